//! Where Unobserved keeps its results, log and settings, per user.

use anyhow::{Context, Result};
use std::fs::{self, File, OpenOptions};
use std::path::{Path, PathBuf};

pub const STATE_DIR_ENV: &str = "UNOBSERVED_STATE_DIR";

/// `UNOBSERVED_STATE_DIR`, else the XDG state dir (Linux), Application Support (macOS),
/// or `%LOCALAPPDATA%` (Windows), each with an `unobserved` folder.
pub fn state_dir() -> Result<PathBuf> {
    if let Some(dir) = std::env::var_os(STATE_DIR_ENV).filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    let base = if cfg!(target_os = "linux") {
        dirs::state_dir()
    } else {
        dirs::data_local_dir()
    };
    base.map(|b| b.join("unobserved"))
        .context("cannot tell where your home directory is; set UNOBSERVED_STATE_DIR")
}

/// Makes a relative `UNOBSERVED_STATE_DIR` absolute, against the folder the command was
/// started in. A browser starts its native host from another folder, with this
/// environment: left relative, the host would keep its records somewhere else and the
/// command would wait for a run that never reaches it. Call before any thread starts.
pub fn anchor_state_dir_env() {
    let Some(dir) = std::env::var_os(STATE_DIR_ENV).filter(|v| !v.is_empty()) else {
        return;
    };
    let dir = PathBuf::from(dir);
    if dir.is_relative() {
        if let Ok(abs) = std::path::absolute(&dir) {
            std::env::set_var(STATE_DIR_ENV, abs);
        }
    }
}

/// Creates the dir (0700 on Unix) if it is missing. A symbolic link in its place is
/// refused rather than followed: chmod through it would change whatever it points at.
pub fn ensure_private_dir(dir: &Path) -> Result<()> {
    match fs::symlink_metadata(dir) {
        Ok(m) if m.file_type().is_symlink() => anyhow::bail!(
            "{} is a symbolic link; Unobserved keeps its state only in a real folder (set UNOBSERVED_STATE_DIR to one)",
            dir.display()
        ),
        Ok(m) if !m.is_dir() => anyhow::bail!("{} is not a folder", dir.display()),
        Ok(_) => {}
        Err(_) => {
            fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?
        }
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(dir, fs::Permissions::from_mode(0o700))
            .with_context(|| format!("cannot make {} private", dir.display()))?;
    }
    Ok(())
}

/// Opens a state file for reading, with the rule writes follow: a symbolic link, in
/// place of the file or of the state dir itself, is refused (ELOOP-like error), so a
/// report never reads through a link someone planted.
pub fn open_private_read(path: &Path) -> std::io::Result<File> {
    if let Some(dir) = path.parent() {
        if fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(symlink_refused(dir));
        }
    }
    open_no_follow(path, OpenOptions::new().read(true))
}

/// Opens `path` with `opts` without following a symbolic link in its place (O_NOFOLLOW):
/// a link there is refused, and the error says so.
pub fn open_no_follow(path: &Path, opts: &mut OpenOptions) -> std::io::Result<File> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.custom_flags(libc::O_NOFOLLOW);
    }
    opts.open(path).map_err(|e| {
        let link = fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
        if link {
            symlink_refused(path)
        } else {
            e
        }
    })
}

fn symlink_refused(path: &Path) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::PermissionDenied,
        format!(
            "{} is a symbolic link; the state dir never follows one",
            path.display()
        ),
    )
}

/// Opens a file for appending, creating it readable by its owner only.
/// A symbolic link is never followed (O_NOFOLLOW), a file of another user is refused,
/// and one that is readable by others (say an old 0644 store) is made 0600 again.
pub fn open_private_append(path: &Path) -> std::io::Result<File> {
    let mut opts = OpenOptions::new();
    opts.create(true).append(true).read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
        opts.mode(0o600).custom_flags(libc::O_NOFOLLOW);
        let file = opts.open(path)?;
        let meta = file.metadata()?;
        // SAFETY: geteuid has no preconditions.
        if meta.uid() != unsafe { libc::geteuid() } {
            return Err(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                format!("{} belongs to another user", path.display()),
            ));
        }
        if meta.mode() & 0o077 != 0 {
            file.set_permissions(fs::Permissions::from_mode(0o600))?;
        }
        Ok(file)
    }
    #[cfg(not(unix))]
    opts.open(path)
}

/// Takes `file`'s exclusive lock, asking every `poll` and waiting at most `within` for
/// whoever holds it: `WouldBlock` when they held it all that time.
pub fn lock_within(
    file: &File,
    within: std::time::Duration,
    poll: std::time::Duration,
) -> std::io::Result<()> {
    let started = std::time::Instant::now();
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(()),
            Err(fs::TryLockError::Error(e)) => return Err(e),
            Err(fs::TryLockError::WouldBlock) if started.elapsed() >= within => {
                return Err(std::io::ErrorKind::WouldBlock.into())
            }
            Err(fs::TryLockError::WouldBlock) => std::thread::sleep(poll),
        }
    }
}
