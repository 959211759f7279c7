//! Windows registry writes. Elsewhere a plan never holds registry entries, so these
//! are unreachable there and only report that.

use crate::plan::RegistryWrite;
use anyhow::Result;

#[cfg(windows)]
fn hive(name: &str) -> winreg::RegKey {
    use winreg::enums::{HKEY_CURRENT_USER, HKEY_LOCAL_MACHINE};
    winreg::RegKey::predef(if name == "HKLM" {
        HKEY_LOCAL_MACHINE
    } else {
        HKEY_CURRENT_USER
    })
}

#[cfg(windows)]
pub fn set(w: &RegistryWrite) -> Result<()> {
    let (key, _) = hive(&w.hive).create_subkey(&w.key)?;
    key.set_value("", &w.value)?;
    Ok(())
}

#[cfg(windows)]
pub fn remove(w: &RegistryWrite) -> Result<()> {
    match hive(&w.hive).delete_subkey(&w.key) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e.into()),
        _ => Ok(()),
    }
}

#[cfg(windows)]
pub fn get(w: &RegistryWrite) -> Option<String> {
    hive(&w.hive).open_subkey(&w.key).ok()?.get_value("").ok()
}

#[cfg(not(windows))]
pub fn set(w: &RegistryWrite) -> Result<()> {
    anyhow::bail!(
        "cannot set {}\\{}: the registry exists only on Windows",
        w.hive,
        w.key
    )
}

#[cfg(not(windows))]
pub fn remove(w: &RegistryWrite) -> Result<()> {
    anyhow::bail!(
        "cannot delete {}\\{}: the registry exists only on Windows",
        w.hive,
        w.key
    )
}

#[cfg(not(windows))]
pub fn get(_w: &RegistryWrite) -> Option<String> {
    None
}
