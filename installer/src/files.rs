//! The file-system steps install and uninstall share: every write goes beside and is
//! renamed into place, every mode is set whatever the umask, no link is followed.

use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// Creates `dir` and any missing parents, returning those it created. Each gets 0755
/// whatever the umask: a folder others could write to would let them swap the manifest
/// that decides which program a browser starts.
pub fn create_dirs(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut missing: Vec<PathBuf> = dir
        .ancestors()
        .take_while(|a| !a.exists())
        .map(Path::to_path_buf)
        .collect();
    missing.reverse();
    for d in &missing {
        std::fs::create_dir(d).with_context(|| format!("cannot create {}", d.display()))?;
        set_mode(d, 0o755)?;
    }
    Ok(missing)
}

/// 0600 for the file, 0700 for the folders this install created for it.
pub fn make_private(file: &Path, new_dirs: &[PathBuf]) -> Result<()> {
    set_mode(file, 0o600)?;
    new_dirs.iter().try_for_each(|d| set_mode(d, 0o700))
}

/// Writes beside the target and renames over it: a symlink at `path` is replaced, never
/// written through (`--force` must not clobber whatever a link points at), and the file
/// has `mode` whatever the umask, from its creation on.
pub fn write_file(path: &Path, contents: &[u8], mode: u32) -> Result<()> {
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
    file.write_all(contents)
        .with_context(|| format!("cannot write {}", tmp.display()))?;
    drop(file);
    set_mode(&tmp, mode)?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))
}

/// The bytes of a regular file at `path`; None for a link (not followed), a folder, or
/// nothing there.
pub fn read_regular(path: &Path) -> Option<Vec<u8>> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    meta.is_file().then(|| std::fs::read(path).ok()).flatten()
}

/// Makes a symbolic link at `link` to `target`, as it was before install replaced it.
pub fn symlink(target: &Path, link: &Path) -> Result<()> {
    #[cfg(unix)]
    let made = std::os::unix::fs::symlink(target, link);
    #[cfg(windows)]
    let made = std::os::windows::fs::symlink_file(target, link);
    made.with_context(|| format!("cannot make the link {}", link.display()))
}

/// The permission bits of `path` (0644 where there are none).
pub fn mode_of(path: &Path) -> u32 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if let Ok(meta) = std::fs::symlink_metadata(path) {
            return meta.permissions().mode() & 0o777;
        }
    }
    let _ = path;
    0o644
}

pub fn set_mode(path: &Path, mode: u32) -> Result<()> {
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
