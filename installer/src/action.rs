//! What install and uninstall did (or would do, in a dry run): one action per file or
//! registry key. Tests look at these; the CLI prints them, worded here and only here.

use crate::plan::{RegistryWrite, TrustWrite};
use crate::receipt::Backup;
use std::fmt;
use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    CopiedBinary {
        from: PathBuf,
        to: PathBuf,
    },
    /// A foreign manifest, saved before `--force` replaces it.
    BackedUp {
        path: PathBuf,
    },
    WroteFile {
        path: PathBuf,
        browsers: Vec<String>,
    },
    /// Already held exactly what the plan says.
    Unchanged {
        path: PathBuf,
        browsers: Vec<String>,
    },
    /// Another program's registry value, saved before `--force` replaces it.
    BackedUpKey {
        key: RegistryWrite,
        old: String,
    },
    SetKey {
        key: RegistryWrite,
    },
    Trusted {
        trust: TrustWrite,
    },
    Untrusted {
        trust: TrustWrite,
    },
    RemovedFile {
        path: PathBuf,
    },
    RestoredBackup {
        path: PathBuf,
    },
    RestoredLink {
        path: PathBuf,
        target: PathBuf,
    },
    RestoredKey {
        key: RegistryWrite,
        old: String,
    },
    DeletedKey {
        key: RegistryWrite,
    },
    /// Listed in the receipt, and left where it is.
    Kept {
        path: PathBuf,
        why: KeptBecause,
    },
    KeptKey {
        key: RegistryWrite,
        why: KeptBecause,
    },
    /// A backup that was not put back; the saved copy (if any) stays.
    NotRestored {
        backup: Backup,
        why: KeptBecause,
    },
    NothingInstalled,
}

/// Why uninstall left something the receipt lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeptBecause {
    /// Not in a folder install writes to (or reached by `..` or a symlinked folder).
    OutsideRoots,
    /// In a browser's manifest folder but not our host's manifest.
    NotOurManifest,
    /// Its bytes are not the ones install wrote.
    Changed,
    /// A link, folder or other kind of file stands where install wrote a file.
    Replaced,
    /// Listed by an older install's receipt, which cannot prove the file is ours.
    LegacyReceipt,
    /// A folder that holds something.
    NotEmpty,
    /// Something stands where a backup would be put back.
    Occupied,
}

/// All the actions of one install or uninstall.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    pub dry_run: bool,
    pub actions: Vec<Action>,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, a) in self.actions.iter().enumerate() {
            let (done, planned, rest) = words(a);
            let verb = if self.dry_run { planned } else { done };
            let newline = if i > 0 { "\n" } else { "" };
            write!(f, "{newline}{verb} {rest}")?;
        }
        Ok(())
    }
}

/// The line for `a`: its verb as done, its verb in a dry run, and the rest.
fn words(a: &Action) -> (&'static str, &'static str, String) {
    let (done, planned) = verbs(a);
    (done, planned, rest(a))
}

/// The verb of `a` as done and as planned in a dry run.
fn verbs(a: &Action) -> (&'static str, &'static str) {
    match a {
        Action::CopiedBinary { .. } => ("copied   ", "would copy"),
        Action::BackedUp { .. } | Action::BackedUpKey { .. } => ("backed up", "would back up"),
        Action::WroteFile { .. } => ("wrote    ", "would write"),
        Action::Unchanged { .. } => ("unchanged", "unchanged"),
        Action::SetKey { .. } => ("registry ", "would set"),
        Action::Trusted { .. } => ("trusted  ", "would trust"),
        Action::Untrusted { .. } => ("untrusted", "would untrust"),
        Action::RemovedFile { .. } => ("removed", "would remove"),
        Action::RestoredBackup { .. }
        | Action::RestoredLink { .. }
        | Action::RestoredKey { .. } => ("restored", "would restore"),
        Action::DeletedKey { .. } => ("deleted", "would delete"),
        Action::Kept { .. } | Action::KeptKey { .. } => ("left     ", "would leave"),
        Action::NotRestored { .. } => ("did not restore", "would not restore"),
        Action::NothingInstalled => ("nothing to remove:", "nothing to remove:"),
    }
}

/// What `a` acted on, after the verb.
fn rest(a: &Action) -> String {
    let key = |r: &RegistryWrite| format!("{}\\{}", r.hive, r.key);
    let who = |path: &PathBuf, b: &[String]| match b {
        [] => format!("{} (allowed ids)", path.display()),
        b => format!("{} ({})", path.display(), b.join(", ")),
    };
    let forced = " (replaced with --force)";
    match a {
        Action::CopiedBinary { from, to } => format!("{} -> {}", from.display(), to.display()),
        Action::BackedUp { path } => format!("{}{forced}", path.display()),
        Action::WroteFile { path, browsers } | Action::Unchanged { path, browsers } => {
            who(path, browsers)
        }
        Action::BackedUpKey { key: r, old } => format!("{} = {old}{forced}", key(r)),
        Action::SetKey { key: r } => format!("{} = {}", key(r), r.value),
        Action::Trusted { trust: t } => format!(
            "{} as {:?} in {}",
            t.cert_path.display(),
            t.nickname,
            t.nssdb.display()
        ),
        Action::Untrusted { trust: t } => format!("{:?} from {}", t.nickname, t.nssdb.display()),
        Action::RemovedFile { path } | Action::RestoredBackup { path } => {
            path.display().to_string()
        }
        Action::RestoredLink { path, target } => {
            format!("{} (a link to {})", path.display(), target.display())
        }
        Action::RestoredKey { key: r, old } => format!("{} = {old}", key(r)),
        Action::DeletedKey { key: r } => key(r),
        Action::Kept { path, why } => format!("{} ({why})", path.display()),
        Action::KeptKey { key: r, why } => format!("{} ({why})", key(r)),
        Action::NotRestored { backup, why } => {
            format!("{} ({why}); {}", backup.original().display(), was(backup))
        }
        Action::NothingInstalled => "unobserved is not installed here".into(),
    }
}

/// What a backup held, for a person to put back by hand.
fn was(b: &Backup) -> String {
    match b {
        Backup::Copy { saved, .. } | Backup::Legacy(_, saved) => {
            format!("its old contents are in {}", saved.display())
        }
        Backup::Link { target, .. } => format!("it was a link to {}", target.display()),
    }
}

impl fmt::Display for KeptBecause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            KeptBecause::OutsideRoots => "not in a folder install writes to",
            KeptBecause::NotOurManifest => "not this host's manifest",
            KeptBecause::Changed => "changed since install",
            KeptBecause::Replaced => "replaced since install by a link, folder or other file",
            KeptBecause::LegacyReceipt => "an older install's receipt cannot prove it is ours",
            KeptBecause::NotEmpty => "not empty",
            KeptBecause::Occupied => "something else is there now",
        })
    }
}
