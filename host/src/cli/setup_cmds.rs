//! `install`, `uninstall` and `doctor`: thin wrappers over the installer crate.

use super::args::{DoctorArgs, InstallArgs, UninstallArgs};
use anyhow::Result;

pub fn install(_a: InstallArgs) -> Result<i32> {
    anyhow::bail!("install: not yet wired")
}

pub fn uninstall(_a: UninstallArgs) -> Result<i32> {
    anyhow::bail!("uninstall: not yet wired")
}

pub fn doctor(_a: DoctorArgs) -> Result<i32> {
    anyhow::bail!("doctor: not yet wired")
}
