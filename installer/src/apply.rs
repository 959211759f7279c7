//! Carries out a plan and records it in a receipt, so `uninstall` can undo exactly
//! that: the files it wrote (if unchanged since), the folders it created (if empty),
//! the registry keys, and any foreign manifest it replaced under `--force` (restored).

use crate::layout::Layout;
use crate::plan::{FileWrite, Plan, RegistryWrite, TrustWrite};
use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Receipt {
    pub files: Vec<FileWrite>,
    pub dirs_created: Vec<PathBuf>,
    pub registry: Vec<RegistryWrite>,
    pub binary: Option<PathBuf>,
    /// (original path, where its previous contents were saved)
    pub backups: Vec<(PathBuf, PathBuf)>,
    /// Registry values that another program had set, replaced under `--force`:
    /// (the key as written by us, its previous value), restored by uninstall.
    #[serde(default)]
    pub registry_backups: Vec<(RegistryWrite, String)>,
    /// Roots added to NSS databases (`--local-https`), removed by uninstall.
    #[serde(default)]
    pub trust: Vec<TrustWrite>,
}

impl Receipt {
    pub fn load(layout: &Layout) -> Result<Receipt> {
        match std::fs::read(layout.receipt_path()) {
            Ok(b) => serde_json::from_slice(&b)
                .with_context(|| format!("{} is damaged", layout.receipt_path().display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Receipt::default()),
            Err(e) => Err(e.into()),
        }
    }

    fn owns(&self, path: &Path) -> bool {
        self.files.iter().any(|f| f.path == path)
    }
}

pub struct InstallOptions<'a> {
    pub force: bool,
    pub dry_run: bool,
    /// Copy this binary to the layout's stable path; None = manifests point at it in place.
    pub copy_binary_from: Option<&'a Path>,
}

/// Returns one line per thing written (or that would be, with dry_run).
pub fn install(layout: &Layout, plan: &Plan, opts: &InstallOptions) -> Result<Vec<String>> {
    let mut receipt = Receipt::load(layout)?;
    let mut lines = Vec::new();
    let foreign: Vec<&FileWrite> = plan
        .files
        .iter()
        .filter(|f| f.path.exists() && !receipt.owns(&f.path))
        .filter(|f| {
            std::fs::read_to_string(&f.path)
                .map(|c| c != f.contents)
                .unwrap_or(true)
        })
        .collect();
    // A registry key of ours that points elsewhere belongs to another program, the same
    // as a manifest file would.
    let foreign_keys: Vec<(&RegistryWrite, String)> = plan
        .registry
        .iter()
        .filter(|r| !receipt.registry.contains(r))
        .filter_map(|r| {
            crate::registry::get(r)
                .filter(|v| *v != r.value)
                .map(|v| (r, v))
        })
        .collect();
    if (!foreign.is_empty() || !foreign_keys.is_empty()) && !opts.force {
        let list: Vec<String> = foreign
            .iter()
            .map(|f| format!("  {}", f.path.display()))
            .chain(
                foreign_keys
                    .iter()
                    .map(|(r, v)| format!("  {}\\{} = {v}", r.hive, r.key)),
            )
            .collect();
        bail!("these manifests exist and were not written by unobserved; not overwriting them:\n{}\nLook at them first; `unobserved install --force` replaces them (uninstall puts them back).", list.join("\n"));
    }
    if opts.dry_run {
        if let Some(src) = opts.copy_binary_from {
            lines.push(format!(
                "would copy {} -> {}",
                src.display(),
                layout.binary_dest().display()
            ));
        }
        lines.extend(
            plan.files
                .iter()
                .map(|f| format!("would write {}", f.path.display())),
        );
        lines.extend(
            plan.registry
                .iter()
                .map(|r| format!("would set {}\\{} = {}", r.hive, r.key, r.value)),
        );
        lines.extend(plan.trust.iter().map(|t| {
            format!(
                "would trust {} as {:?} in {}",
                t.cert_path.display(),
                t.nickname,
                t.nssdb.display()
            )
        }));
        return Ok(lines);
    }
    if !plan.trust.is_empty() && !crate::trust::available() {
        bail!("--local-https needs NSS's certutil to add the local CA for Chromium-family browsers: install it (Debian/Ubuntu: `sudo apt-get install libnss3-tools`, Fedora: nss-tools) and run this again; nothing was written");
    }
    create_dirs(&layout.data_dir, &mut receipt.dirs_created)?;
    if let Some(src) = opts.copy_binary_from {
        let dest = layout.binary_dest();
        create_dirs(dest.parent().unwrap(), &mut receipt.dirs_created)?;
        if std::fs::read(src).ok() != std::fs::read(&dest).ok() {
            // Copy beside, then rename: a running host keeps its old inode intact.
            let tmp = dest.with_extension("new");
            std::fs::copy(src, &tmp)
                .with_context(|| format!("cannot copy the binary to {}", tmp.display()))?;
            std::fs::rename(&tmp, &dest)?;
        }
        receipt.binary = Some(dest.clone());
        lines.push(format!("binary    {}", dest.display()));
    }
    for f in &foreign {
        let backup = layout
            .data_dir
            .join("backups")
            .join(format!("{}.json", receipt.backups.len()));
        create_dirs(backup.parent().unwrap(), &mut receipt.dirs_created)?;
        std::fs::copy(&f.path, &backup)?;
        receipt.backups.push((f.path.clone(), backup));
        lines.push(format!(
            "backed up {} (replaced with --force)",
            f.path.display()
        ));
    }
    for f in &plan.files {
        let created_before = receipt.dirs_created.len();
        create_dirs(f.path.parent().unwrap(), &mut receipt.dirs_created)?;
        let unchanged = std::fs::read_to_string(&f.path).is_ok_and(|c| c == f.contents);
        if !unchanged {
            // A private file (a key) is never readable by others, not even for a moment.
            write_file(&f.path, &f.contents, if f.private { 0o600 } else { 0o644 })?;
        }
        if f.private {
            make_private(&f.path, &receipt.dirs_created[created_before..])?;
        }
        receipt.files.retain(|old| old.path != f.path);
        receipt.files.push(f.clone());
        let who = if f.browsers.is_empty() {
            "allowed ids".into()
        } else {
            f.browsers.join(", ")
        };
        lines.push(format!(
            "{} {} ({who})",
            if unchanged { "unchanged" } else { "wrote    " },
            f.path.display()
        ));
    }
    for (r, old) in &foreign_keys {
        if !receipt.registry_backups.iter().any(|(k, _)| k == *r) {
            receipt.registry_backups.push(((*r).clone(), old.clone()));
        }
        lines.push(format!(
            "backed up {}\\{} = {old} (replaced with --force)",
            r.hive, r.key
        ));
    }
    for r in &plan.registry {
        crate::registry::set(r)?;
        if !receipt.registry.contains(r) {
            receipt.registry.push(r.clone());
        }
        lines.push(format!("registry  {}\\{} = {}", r.hive, r.key, r.value));
    }
    for t in &plan.trust {
        crate::trust::add(t)?;
        if !receipt.trust.contains(t) {
            receipt.trust.push(t.clone());
        }
        lines.push(format!(
            "trusted   {} as {:?} in {}",
            t.cert_path.display(),
            t.nickname,
            t.nssdb.display()
        ));
    }
    write_file(
        &layout.receipt_path(),
        &(serde_json::to_string_pretty(&receipt)? + "\n"),
        0o644,
    )?;
    Ok(lines)
}

pub fn uninstall(layout: &Layout, dry_run: bool) -> Result<Vec<String>> {
    let receipt = Receipt::load(layout)?;
    let mut lines = Vec::new();
    // "removed" when done, "would remove" in a dry run.
    let verb = |done: &str, planned: &str| {
        if dry_run {
            format!("would {planned}")
        } else {
            done.to_owned()
        }
    };
    // Trust first: the root leaves the browser's database before its file goes.
    for t in &receipt.trust {
        if !dry_run {
            crate::trust::remove(t)?;
        }
        lines.push(format!(
            "{} {:?} from {}",
            verb("untrusted", "untrust"),
            t.nickname,
            t.nssdb.display()
        ));
    }
    for f in &receipt.files {
        match std::fs::read_to_string(&f.path) {
            Ok(c) if c == f.contents => {
                if !dry_run {
                    std::fs::remove_file(&f.path)?;
                }
                lines.push(format!(
                    "{} {}",
                    verb("removed", "remove"),
                    f.path.display()
                ));
            }
            Ok(_) => lines.push(format!(
                "left      {} (changed since install)",
                f.path.display()
            )),
            Err(_) => {}
        }
    }
    for (original, backup) in &receipt.backups {
        if !dry_run {
            std::fs::copy(backup, original)?;
            std::fs::remove_file(backup)?;
        }
        lines.push(format!(
            "{} {}",
            verb("restored", "restore"),
            original.display()
        ));
    }
    for r in &receipt.registry {
        match receipt.registry_backups.iter().find(|(k, _)| k == r) {
            // Someone else's value was there before --force: put it back.
            Some((_, old)) => {
                if !dry_run {
                    let mut restored = r.clone();
                    restored.value = old.clone();
                    crate::registry::set(&restored)?;
                }
                lines.push(format!(
                    "{} {}\\{} = {old}",
                    verb("restored", "restore"),
                    r.hive,
                    r.key
                ));
            }
            None => {
                if !dry_run {
                    crate::registry::remove(r)?;
                }
                lines.push(format!(
                    "{} {}\\{}",
                    verb("deleted", "delete"),
                    r.hive,
                    r.key
                ));
            }
        }
    }
    if let Some(bin) = &receipt.binary {
        // Removing our own running executable is fine on Unix; Windows keeps it until exit.
        if !dry_run && bin.exists() {
            std::fs::remove_file(bin)?;
        }
        lines.push(format!("{} {}", verb("removed", "remove"), bin.display()));
    }
    if !dry_run {
        let _ = std::fs::remove_file(layout.receipt_path());
        // A state dir this install created holds only logs until a run stores results;
        // then it is the user's, and stays.
        let state = &layout.state_dir;
        if receipt.dirs_created.contains(state) && !state.join("results.jsonl").exists() {
            for log in ["unobserved.log", "unobserved.log.1"] {
                let _ = std::fs::remove_file(state.join(log));
            }
        }
        let mut dirs = receipt.dirs_created.clone();
        dirs.sort_by_key(|d| std::cmp::Reverse(d.components().count()));
        for d in dirs {
            // Only if empty: anything a user or a browser put there stays.
            let _ = std::fs::remove_dir(&d);
        }
    }
    if lines.is_empty() {
        lines.push("nothing to remove: unobserved is not installed here".into());
    }
    Ok(lines)
}

/// Creates `dir` and any missing parents, noting each one it created. Each gets 0755
/// whatever the umask: a folder others could write to would let them swap the manifest
/// that decides which program a browser starts.
fn create_dirs(dir: &Path, created: &mut Vec<PathBuf>) -> Result<()> {
    let mut missing: Vec<&Path> = dir.ancestors().take_while(|a| !a.exists()).collect();
    missing.reverse();
    for d in missing {
        std::fs::create_dir(d).with_context(|| format!("cannot create {}", d.display()))?;
        set_mode(d, 0o755)?;
        if !created.iter().any(|c| c == d) {
            created.push(d.to_owned());
        }
    }
    Ok(())
}

/// 0600 for the file, 0700 for the folders this install created for it.
fn make_private(file: &Path, new_dirs: &[PathBuf]) -> Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o600))?;
        for d in new_dirs {
            std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o700))?;
        }
    }
    #[cfg(not(unix))]
    let _ = (file, new_dirs);
    Ok(())
}

/// Writes beside the target and renames over it: a symlink at `path` is replaced, never
/// written through (`--force` must not clobber whatever a link points at), and the file
/// has `mode` whatever the umask, from its creation on.
fn write_file(path: &Path, contents: &str, mode: u32) -> Result<()> {
    use std::io::Write;
    let tmp = path.with_extension("unobserved-tmp");
    let _ = std::fs::remove_file(&tmp);
    let mut open = std::fs::OpenOptions::new();
    open.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut open, mode);
    let mut file = open
        .open(&tmp)
        .with_context(|| format!("cannot write {}", tmp.display()))?;
    file.write_all(contents.as_bytes())
        .with_context(|| format!("cannot write {}", tmp.display()))?;
    drop(file);
    set_mode(&tmp, mode)?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))
}

fn set_mode(path: &Path, mode: u32) -> Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
            .with_context(|| format!("cannot set the mode of {}", path.display()))?;
    }
    #[cfg(not(unix))]
    let _ = (path, mode);
    Ok(())
}
