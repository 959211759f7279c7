//! Trust in an NSS certificate database, the one Chromium-family browsers on Linux read
//! for locally added roots (`~/.pki/nssdb`). Done with NSS's own `certutil` (Debian:
//! libnss3-tools), so the database is only ever written by the library that owns it.

use crate::plan::TrustWrite;
use anyhow::{bail, Context, Result};
use std::path::Path;
use std::process::Command;

/// The `certutil` to run: `UNOBSERVED_CERTUTIL` if set, else from PATH.
fn certutil() -> Command {
    Command::new(std::env::var_os("UNOBSERVED_CERTUTIL").unwrap_or_else(|| "certutil".into()))
}

fn db(dir: &Path) -> String {
    format!("sql:{}", dir.display())
}

fn run(mut cmd: Command, what: &str) -> Result<String> {
    let out = cmd.output().with_context(|| {
        format!("cannot run certutil to {what}: install NSS's tools (Debian/Ubuntu: `sudo apt-get install libnss3-tools`, Fedora: nss-tools)")
    })?;
    if !out.status.success() {
        bail!(
            "certutil could not {what}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Whether certutil can be run at all: checked before anything is written.
pub fn available() -> bool {
    certutil().arg("-H").output().is_ok()
}

/// Adds the certificate as a root for websites (`C,,`), creating the database if the
/// user has none yet.
pub fn add(t: &TrustWrite) -> Result<()> {
    if !t.nssdb.join("cert9.db").exists() {
        std::fs::create_dir_all(&t.nssdb)?;
        let mut init = certutil();
        init.args(["-N", "--empty-password", "-d"])
            .arg(db(&t.nssdb));
        run(init, "create the NSS database")?;
    }
    let mut add = certutil();
    add.args(["-A", "-t", "C,,", "-n", &t.nickname, "-d"])
        .arg(db(&t.nssdb))
        .arg("-i")
        .arg(&t.cert_path);
    run(add, "add the local CA")?;
    Ok(())
}

/// Removes it again; gone already is fine.
pub fn remove(t: &TrustWrite) -> Result<()> {
    if !is_trusted(t) {
        return Ok(());
    }
    let mut del = certutil();
    del.args(["-D", "-n", &t.nickname, "-d"]).arg(db(&t.nssdb));
    run(del, "remove the local CA").map(|_| ())
}

/// The database holds a certificate under this nickname.
pub fn is_trusted(t: &TrustWrite) -> bool {
    let mut list = certutil();
    list.args(["-L", "-n", &t.nickname, "-d"]).arg(db(&t.nssdb));
    list.output().is_ok_and(|o| o.status.success())
}
