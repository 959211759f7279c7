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

/// Creates the dir (0700 on Unix) if it is missing.
pub fn ensure_private_dir(dir: &Path) -> Result<()> {
    fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(dir, fs::Permissions::from_mode(0o700))
            .with_context(|| format!("cannot make {} private", dir.display()))?;
    }
    Ok(())
}

/// Opens a file for appending, creating it readable by its owner only.
pub fn open_private_append(path: &Path) -> std::io::Result<File> {
    let mut opts = OpenOptions::new();
    opts.create(true).append(true).read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    opts.open(path)
}
