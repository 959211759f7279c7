//! Carries out a plan and records it in a receipt, so `uninstall` can undo exactly
//! that: the files it wrote (if unchanged since), the folders it created (if empty),
//! the registry keys, and any foreign manifest it replaced under `--force` (restored).
//! Uninstall believes the receipt only within `Roots`: it is a file others may edit.

use crate::action::{Action, KeptBecause, Report};
use crate::files::{create_dirs, make_private, mode_of, read_regular, write_file};
use crate::layout::Layout;
use crate::plan::{FileWrite, Plan, RegistryWrite, TrustWrite};
use crate::receipt::{is_host_manifest, Backup, Receipt, Recorded, Sha256};
use crate::roots::{Place, Roots};
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};

pub struct InstallOptions<'a> {
    pub force: bool,
    pub dry_run: bool,
    /// Copy this binary to the layout's stable path; None = manifests point at it in place.
    pub copy_binary_from: Option<&'a Path>,
}

/// Manifests and registry values another program wrote where the plan writes: install
/// refuses with this unless `--force`.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Foreign {
    pub files: Vec<PathBuf>,
    /// (our key, the value another program gave it)
    pub keys: Vec<(RegistryWrite, String)>,
}

/// One action per thing written (or that would be, with dry_run).
pub fn install(layout: &Layout, plan: &Plan, opts: &InstallOptions) -> Result<Report> {
    let receipt = Receipt::load(layout)?;
    let foreign = Foreign::find(plan, &receipt);
    if !opts.force && !foreign.is_empty() {
        return Err(foreign.into());
    }
    if !opts.dry_run && !plan.trust.is_empty() && !crate::trust::available() {
        bail!("--local-https needs NSS's certutil to add the local CA for Chromium-family browsers: install it (Debian/Ubuntu: `sudo apt-get install libnss3-tools`, Fedora: nss-tools) and run this again; nothing was written");
    }
    let mut w = Writer {
        layout,
        receipt,
        dry_run: opts.dry_run,
    };
    w.create_dirs(&layout.data_dir)?;
    let mut actions = Vec::new();
    if let Some(src) = opts.copy_binary_from {
        actions.push(w.copy_binary(src)?);
    }
    for path in &foreign.files {
        actions.push(w.back_up(path)?);
    }
    for f in &plan.files {
        actions.push(w.write(f)?);
    }
    for (r, old) in &foreign.keys {
        actions.push(w.back_up_key(r, old));
    }
    for r in &plan.registry {
        actions.push(w.set_key(r)?);
    }
    for t in &plan.trust {
        actions.push(w.trust(t)?);
    }
    w.finish()?;
    Ok(Report {
        dry_run: opts.dry_run,
        actions,
    })
}

impl Foreign {
    pub fn is_empty(&self) -> bool {
        self.files.is_empty() && self.keys.is_empty()
    }

    fn find(plan: &Plan, receipt: &Receipt) -> Foreign {
        let files = plan
            .files
            .iter()
            .filter(|f| !receipt.owns(&f.path) && is_foreign(&f.path, &f.contents))
            .map(|f| f.path.clone())
            .collect();
        // A registry key of ours that points elsewhere belongs to another program, the
        // same as a manifest file would.
        let keys = plan
            .registry
            .iter()
            .filter(|r| !receipt.registry.contains(r))
            .filter_map(|r| {
                crate::registry::get(r)
                    .filter(|v| *v != r.value)
                    .map(|v| (r.clone(), v))
            })
            .collect();
        Foreign { files, keys }
    }
}

/// Something at `path` that is not the text we would write there. A link counts even
/// if it leads to that text: it is someone's choice, to be restored as a link.
fn is_foreign(path: &Path, contents: &str) -> bool {
    std::fs::symlink_metadata(path).is_ok()
        && read_regular(path).is_none_or(|c| c != contents.as_bytes())
}

impl std::fmt::Display for Foreign {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "these manifests exist and were not written by unobserved; not overwriting them:"
        )?;
        for path in &self.files {
            writeln!(f, "  {}", path.display())?;
        }
        for (r, v) in &self.keys {
            writeln!(f, "  {}\\{} = {v}", r.hive, r.key)?;
        }
        write!(f, "Look at them first; `unobserved install --force` replaces them (uninstall puts them back).")
    }
}

impl std::error::Error for Foreign {}

/// Install's steps, each returning its action; in a dry run none touches anything.
struct Writer<'a> {
    layout: &'a Layout,
    receipt: Receipt,
    dry_run: bool,
}

impl Writer<'_> {
    /// Creates `dir` and its missing parents, noting them for uninstall; returns them.
    fn create_dirs(&mut self, dir: &Path) -> Result<Vec<PathBuf>> {
        if self.dry_run {
            return Ok(vec![]);
        }
        let created = create_dirs(dir)?;
        for d in &created {
            if !self.receipt.dirs_created.contains(d) {
                self.receipt.dirs_created.push(d.clone());
            }
        }
        Ok(created)
    }

    fn copy_binary(&mut self, src: &Path) -> Result<Action> {
        let to = self.layout.binary_dest();
        if !self.dry_run {
            self.create_dirs(to.parent().expect("the binary has a folder"))?;
            let bytes = std::fs::read(src)
                .with_context(|| format!("cannot read the binary {}", src.display()))?;
            if read_regular(&to).as_deref() != Some(&bytes[..]) {
                // Beside, then renamed: a running host keeps its old inode intact.
                write_file(&to, &bytes, 0o755)?;
            }
            self.receipt.binary = Some(Recorded::of(&to, &bytes));
        }
        Ok(Action::CopiedBinary {
            from: src.to_owned(),
            to,
        })
    }

    /// Saves what `--force` is about to replace: a link as its target, a file as a
    /// copy in `backups/` with its mode.
    fn back_up(&mut self, path: &Path) -> Result<Action> {
        if !self.dry_run {
            let backup = match std::fs::read_link(path) {
                Ok(target) => Backup::Link {
                    original: path.to_owned(),
                    target,
                },
                Err(_) => self.save_copy(path)?,
            };
            self.receipt.backups.push(backup);
        }
        Ok(Action::BackedUp {
            path: path.to_owned(),
        })
    }

    fn save_copy(&mut self, path: &Path) -> Result<Backup> {
        let dir = self.layout.data_dir.join("backups");
        self.create_dirs(&dir)?;
        let saved = (0..)
            .map(|n| dir.join(format!("{n}.json")))
            .find(|p| std::fs::symlink_metadata(p).is_err())
            .expect("a free name");
        let bytes =
            std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
        write_file(&saved, &bytes, mode_of(path))?;
        Ok(Backup::Copy {
            original: path.to_owned(),
            saved,
            sha256: Sha256::of(&bytes),
        })
    }

    fn write(&mut self, f: &FileWrite) -> Result<Action> {
        let bytes = f.contents.as_bytes();
        let unchanged = read_regular(&f.path).is_some_and(|c| c == bytes);
        if !self.dry_run {
            let created = self.create_dirs(f.path.parent().expect("a file has a folder"))?;
            if !unchanged {
                // A private file (a key) is never readable by others, not even for a moment.
                write_file(&f.path, bytes, if f.private { 0o600 } else { 0o644 })?;
            }
            if f.private {
                make_private(&f.path, &created)?;
            }
            self.receipt.record_file(&f.path, bytes);
        }
        let (path, browsers) = (f.path.clone(), f.browsers.clone());
        Ok(if unchanged {
            Action::Unchanged { path, browsers }
        } else {
            Action::WroteFile { path, browsers }
        })
    }

    fn back_up_key(&mut self, r: &RegistryWrite, old: &str) -> Action {
        let backups = &mut self.receipt.registry_backups;
        if !self.dry_run && !backups.iter().any(|(k, _)| k == r) {
            backups.push((r.clone(), old.to_owned()));
        }
        Action::BackedUpKey {
            key: r.clone(),
            old: old.to_owned(),
        }
    }

    fn set_key(&mut self, r: &RegistryWrite) -> Result<Action> {
        if !self.dry_run {
            crate::registry::set(r)?;
            if !self.receipt.registry.contains(r) {
                self.receipt.registry.push(r.clone());
            }
        }
        Ok(Action::SetKey { key: r.clone() })
    }

    fn trust(&mut self, t: &TrustWrite) -> Result<Action> {
        if !self.dry_run {
            crate::trust::add(t)?;
            if !self.receipt.trust.contains(t) {
                self.receipt.trust.push(t.clone());
            }
        }
        Ok(Action::Trusted { trust: t.clone() })
    }

    fn finish(mut self) -> Result<()> {
        if self.dry_run {
            return Ok(());
        }
        if let Some(p) = &self.layout.chromium_profile {
            if !self.receipt.profiles.contains(p) {
                self.receipt.profiles.push(p.clone());
            }
        }
        self.receipt.save(self.layout)
    }
}

/// Undoes what the receipt lists, within the roots install writes to: a file only while
/// it holds what install wrote, a folder only when empty. Whatever is left is reported.
pub fn uninstall(layout: &Layout, dry_run: bool) -> Result<Report> {
    let receipt = Receipt::load(layout)?;
    let mut u = Undo {
        roots: Roots::new(layout, &receipt.profiles),
        dry_run,
        actions: vec![],
        freed: vec![],
    };
    // Trust first: the root leaves the browser's database before its file goes.
    for t in &receipt.trust {
        u.untrust(t)?;
    }
    for f in &receipt.files {
        u.remove(f)?;
    }
    for b in &receipt.backups {
        u.restore(b)?;
    }
    for r in &receipt.registry {
        u.undo_key(r, &receipt.registry_backups)?;
    }
    // Removing our own running executable is fine on Unix; Windows keeps it until exit.
    if let Some(bin) = &receipt.binary {
        u.remove(bin)?;
    }
    if !dry_run {
        let _ = std::fs::remove_file(layout.receipt_path());
        remove_logs(layout, &receipt);
    }
    u.remove_dirs(&receipt.dirs_created)?;
    if u.actions.is_empty() {
        u.actions.push(Action::NothingInstalled);
    }
    Ok(Report {
        dry_run,
        actions: u.actions,
    })
}

/// A state dir this install created holds only logs until a run stores results; then it
/// is the user's, and stays.
fn remove_logs(layout: &Layout, receipt: &Receipt) {
    let state = &layout.state_dir;
    if receipt.dirs_created.contains(state) && !state.join("results.jsonl").exists() {
        for log in ["unobserved.log", "unobserved.log.1"] {
            let _ = std::fs::remove_file(state.join(log));
        }
    }
}

/// Uninstall's steps, each adding its action; in a dry run none touches anything.
struct Undo {
    roots: Roots,
    dry_run: bool,
    actions: Vec<Action>,
    /// Files removed (or that would be): their places are free for a backup.
    freed: Vec<PathBuf>,
}

impl Undo {
    fn untrust(&mut self, t: &TrustWrite) -> Result<()> {
        if !self.dry_run {
            crate::trust::remove(t)?;
        }
        self.actions.push(Action::Untrusted { trust: t.clone() });
        Ok(())
    }

    fn remove(&mut self, f: &Recorded) -> Result<()> {
        let path = f.path().to_owned();
        match self.still_ours(f) {
            Ok(false) => {}
            Ok(true) => {
                if !self.dry_run {
                    std::fs::remove_file(&path)
                        .with_context(|| format!("cannot remove {}", path.display()))?;
                }
                self.freed.push(path.clone());
                self.actions.push(Action::RemovedFile { path });
            }
            Err(why) => self.actions.push(Action::Kept { path, why }),
        }
        Ok(())
    }

    /// Whether the file is there, where install writes, holding what install wrote;
    /// Ok(false) when it is gone already.
    fn still_ours(&self, f: &Recorded) -> Result<bool, KeptBecause> {
        let Some(place) = self.roots.place_of(f.path())? else {
            return Ok(false);
        };
        let Ok(meta) = std::fs::symlink_metadata(f.path()) else {
            return Ok(false);
        };
        let bytes = read_regular(f.path())
            .filter(|_| meta.is_file())
            .ok_or(KeptBecause::Replaced)?;
        f.proves(&bytes, &self.roots.binary_dest)?;
        // Other programs' manifests live beside ours: only a manifest of ours goes.
        if place == Place::Shared && !is_host_manifest(&bytes) {
            return Err(KeptBecause::NotOurManifest);
        }
        Ok(true)
    }

    fn restore(&mut self, b: &Backup) -> Result<()> {
        if let Err(why) = self.may_restore(b) {
            self.actions.push(Action::NotRestored {
                backup: b.clone(),
                why,
            });
            return Ok(());
        }
        if !self.dry_run {
            put_back(b)?;
        }
        let path = b.original().to_owned();
        self.actions.push(match b {
            Backup::Link { target, .. } => Action::RestoredLink {
                path,
                target: target.clone(),
            },
            Backup::Copy { .. } | Backup::Legacy(..) => Action::RestoredBackup { path },
        });
        Ok(())
    }

    /// A backup goes back only to a place install writes, now free, and a copy only
    /// from `backups/`, unchanged (an old receipt's copy has no hash to check).
    fn may_restore(&self, b: &Backup) -> Result<(), KeptBecause> {
        let original = b.original();
        // A folder that is gone is not one install writes to now.
        self.roots
            .place_of(original)?
            .ok_or(KeptBecause::OutsideRoots)?;
        let free = std::fs::symlink_metadata(original).is_err()
            || self.freed.contains(&original.to_owned());
        if !free {
            return Err(KeptBecause::Occupied);
        }
        let (saved, sha256) = match b {
            Backup::Link { .. } => return Ok(()),
            Backup::Copy { saved, sha256, .. } => (saved, Some(sha256)),
            Backup::Legacy(_, saved) => (saved, None),
        };
        if !self.roots.is_backup(saved) {
            return Err(KeptBecause::OutsideRoots);
        }
        match read_regular(saved) {
            Some(bytes) if sha256.is_none_or(|d| *d == Sha256::of(&bytes)) => Ok(()),
            _ => Err(KeptBecause::Changed),
        }
    }

    fn undo_key(&mut self, r: &RegistryWrite, backups: &[(RegistryWrite, String)]) -> Result<()> {
        let key = r.clone();
        if !self.roots.holds_key(r) {
            let why = KeptBecause::OutsideRoots;
            self.actions.push(Action::KeptKey { key, why });
            return Ok(());
        }
        match backups.iter().find(|(k, _)| k == r) {
            // Someone else's value was there before --force: put it back.
            Some((_, old)) => {
                if !self.dry_run {
                    crate::registry::set(&RegistryWrite {
                        value: old.clone(),
                        ..key.clone()
                    })?;
                }
                let old = old.clone();
                self.actions.push(Action::RestoredKey { key, old });
            }
            None => {
                if !self.dry_run {
                    crate::registry::remove(r)?;
                }
                self.actions.push(Action::DeletedKey { key });
            }
        }
        Ok(())
    }

    /// Deepest first, so a folder's empty subfolders go before it. Whether a folder
    /// will be empty is not known in a dry run, so only what would be left regardless is
    /// reported then.
    fn remove_dirs(&mut self, dirs: &[PathBuf]) -> Result<()> {
        let mut dirs = dirs.to_vec();
        dirs.sort_by_key(|d| std::cmp::Reverse(d.components().count()));
        for d in dirs {
            let Ok(meta) = std::fs::symlink_metadata(&d) else {
                continue;
            };
            let why = if !meta.is_dir() {
                KeptBecause::Replaced
            } else if !self.roots.holds_dir(&d) {
                KeptBecause::OutsideRoots
            } else if self.dry_run {
                continue;
            } else if std::fs::read_dir(&d)?.next().is_some() {
                // Said once, of the deepest: a folder holding one already left is not news.
                if self.actions.iter().any(|a| left_inside(a, &d)) {
                    continue;
                }
                KeptBecause::NotEmpty
            } else {
                std::fs::remove_dir(&d)
                    .with_context(|| format!("cannot remove {}", d.display()))?;
                continue;
            };
            self.actions.push(Action::Kept { path: d, why });
        }
        Ok(())
    }
}

fn left_inside(a: &Action, dir: &Path) -> bool {
    matches!(a, Action::Kept { path, .. } if path.starts_with(dir))
}

/// Puts back what `--force` replaced: a link as a link, a copy with its mode.
fn put_back(b: &Backup) -> Result<()> {
    match b {
        Backup::Link { original, target } => crate::files::symlink(target, original),
        Backup::Copy {
            original, saved, ..
        }
        | Backup::Legacy(original, saved) => {
            let bytes = std::fs::read(saved)?;
            write_file(original, &bytes, mode_of(saved))?;
            std::fs::remove_file(saved)
                .with_context(|| format!("cannot remove {}", saved.display()))
        }
    }
}

#[cfg(test)]
mod tests;
