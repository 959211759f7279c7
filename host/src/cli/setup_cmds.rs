//! `install`, `uninstall` and `doctor`: thin wrappers over the installer crate.

use super::args::{DoctorArgs, InstallArgs, UninstallArgs};
use super::usage::flag;
use crate::domain::flags::FlagError;
use crate::platform::state;
use crate::protocol::{read_frame, write_frame};
use anyhow::{bail, Result};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;
use unobserved_installer::browsers::{self, Browser, BROWSERS};
use unobserved_installer::ids::{CHROMIUM_ID, GECKO_ID};
use unobserved_installer::layout::Layout;
use unobserved_installer::manifest::Family;
use unobserved_installer::{apply, doctor, plan, sandbox};

pub fn install(a: InstallArgs) -> Result<i32> {
    let mut layout = Layout::current(state::state_dir()?, a.system)?;
    layout.chromium_profile = profile_dir(a.profile.as_deref())?;
    let chosen: Vec<&Browser> = if a.browsers.is_empty() {
        let found: Vec<&Browser> = BROWSERS.iter().filter(|b| layout.detected(b)).collect();
        if found.is_empty() {
            bail!(
                "no supported browser was found; name one with --browser ({})",
                keys().join(", ")
            );
        }
        found
    } else {
        a.browsers
            .iter()
            .map(|k| {
                browsers::by_key(k).ok_or_else(|| {
                    flag(FlagError::UnknownBrowser {
                        given: k.clone(),
                        known: keys(),
                    })
                })
            })
            .collect::<Result<_>>()?
    };
    for id in &a.extension_ids {
        if unobserved_installer::manifest::Family::of_id(id).is_none() {
            return Err(flag(FlagError::ExtensionId { id: id.clone() }));
        }
    }
    let me = std::env::current_exe()?;
    let host_path = if a.in_place {
        me.clone()
    } else {
        layout.binary_dest()
    };
    let mut plan = plan::plan(&layout, &chosen, &host_path, a.system, &a.extension_ids);
    if a.local_https {
        plan_local_https(&mut plan, &layout, &chosen, a.system)?;
    }
    let opts = apply::InstallOptions {
        force: a.force,
        dry_run: a.dry_run,
        copy_binary_from: (!a.in_place).then_some(me.as_path()),
    };
    println!("{}", apply::install(&layout, &plan, &opts)?);
    for note in sandbox::detect(&layout) {
        println!(
            "\nnote: {} is installed as a {} package. {}",
            note.browser, note.kind, note.advice
        );
    }
    if !a.dry_run {
        println!("\nNext: load the extension in each browser (see README), restart the browser, then check with `unobserved doctor`.");
    }
    Ok(super::exit::OK)
}

/// The local CA's files and its trust in the user's NSS database. An installed CA is
/// kept (its leaves stay valid, and browsers keep one root), a missing one is made.
fn plan_local_https(
    plan: &mut plan::Plan,
    layout: &Layout,
    chosen: &[&Browser],
    system: bool,
) -> Result<()> {
    use crate::platform::local_ca;
    if !cfg!(target_os = "linux") {
        return Err(flag(FlagError::LocalHttpsNotLinux));
    }
    if system {
        return Err(flag(FlagError::LocalHttpsSystem));
    }
    let users: Vec<String> = chosen
        .iter()
        .filter(|b| b.family == Family::Chromium)
        .map(|b| b.key.to_owned())
        .collect();
    if users.is_empty() {
        return Err(flag(FlagError::LocalHttpsNeedsChromium));
    }
    let (cert_path, key_path) = (
        local_ca::cert_path(&layout.state_dir),
        local_ca::key_path(&layout.state_dir),
    );
    let ca = match (
        std::fs::read_to_string(&cert_path),
        std::fs::read_to_string(&key_path),
    ) {
        (Ok(cert_pem), Ok(key_pem)) => crate::platform::local_tls::LocalCert { cert_pem, key_pem },
        _ => local_ca::generate()?,
    };
    let home =
        dirs::home_dir().ok_or_else(|| anyhow::anyhow!("no home folder for ~/.pki/nssdb"))?;
    for (path, contents) in [(&cert_path, ca.cert_pem), (&key_path, ca.key_pem)] {
        plan.files.push(plan::FileWrite {
            path: path.clone(),
            contents,
            browsers: users.clone(),
            private: true,
        });
    }
    plan.trust.push(plan::TrustWrite {
        nssdb: home.join(".pki").join("nssdb"),
        nickname: local_ca::NICKNAME.into(),
        cert_path,
        key_path,
    });
    Ok(())
}

pub fn uninstall(a: UninstallArgs) -> Result<i32> {
    let layout = Layout::current(state::state_dir()?, a.system)?;
    println!("{}", apply::uninstall(&layout, a.dry_run)?);
    Ok(super::exit::OK)
}

pub fn doctor(a: DoctorArgs) -> Result<i32> {
    let mut layout = Layout::current(state::state_dir()?, a.system)?;
    layout.chromium_profile = profile_dir(a.profile.as_deref())?;
    let checks = doctor::doctor(&layout, a.system, &hello_probe);
    let broken: usize = checks.iter().map(|c| c.problems.len()).sum();
    if a.json {
        let json = serde_json::json!({"checks": checks, "problems": broken});
        println!("{}", serde_json::to_string_pretty(&json)?);
        return Ok(if broken > 0 {
            super::exit::FAILED
        } else {
            super::exit::OK
        });
    }
    for c in &checks {
        let mark = if c.problems.is_empty() { "ok " } else { "BAD" };
        println!("[{mark}] {}", c.subject);
        for line in &c.ok {
            println!("      {line}");
        }
        for p in &c.problems {
            println!("      problem: {}\n      fix:     {}", p.what, p.fix);
        }
    }
    if broken > 0 {
        println!("\n{broken} problem(s) found.");
        return Ok(super::exit::FAILED);
    }
    println!("\nEverything checks out.");
    Ok(super::exit::OK)
}

fn keys() -> Vec<String> {
    BROWSERS.iter().map(|b| b.key.to_owned()).collect()
}

/// Starts `exe` exactly as a browser of `family` would, says hello, and returns the
/// host's version. Its state goes to a throwaway dir, so doctor leaves nothing behind.
pub fn hello_probe(exe: &Path, family: Family, manifest: &Path) -> Result<String, String> {
    let scratch = tempfile::tempdir().map_err(|e| e.to_string())?;
    let mut cmd = Command::new(exe);
    match family {
        Family::Chromium => cmd.arg(format!("chrome-extension://{CHROMIUM_ID}/")),
        Family::Firefox => cmd.arg(manifest).arg(GECKO_ID),
    };
    let mut child = cmd
        .env(state::STATE_DIR_ENV, scratch.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start it: {e}"))?;
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let result = write_frame(&mut stdin, &probe_hello())
            .map_err(|e| e.to_string())
            .and_then(|_| read_frame(&mut stdout).map_err(|e| e.to_string()));
        let _ = tx.send(result);
    });
    let reply = rx.recv_timeout(Duration::from_secs(5));
    let _ = child.kill();
    let _ = child.wait();
    match reply {
        Ok(Ok(Some(bytes))) => {
            let v: serde_json::Value =
                serde_json::from_slice(&bytes).map_err(|e| format!("reply is not JSON: {e}"))?;
            let hello: &str = crate::protocol::ReplyType::Hello.into();
            match v["type"].as_str() {
                Some(t) if t == hello => Ok(v["version"].as_str().unwrap_or("?").to_owned()),
                _ => Err(format!("unexpected reply {v}")),
            }
        }
        Ok(Ok(None)) => Err("it exited without answering (is it an unobserved binary?)".into()),
        Ok(Err(e)) => Err(e),
        Err(_) => Err("no answer within 5 s".into()),
    }
}

/// The `hello` doctor sends the host, named by the protocol's own message type.
fn probe_hello() -> Vec<u8> {
    let hello = crate::protocol::MessageType::Hello.as_str();
    serde_json::json!({"type": hello, "browser": "unobserved doctor"})
        .to_string()
        .into_bytes()
}

/// `--profile DIR` must be an existing folder (the browser's --user-data-dir).
fn profile_dir(dir: Option<&Path>) -> Result<Option<std::path::PathBuf>> {
    match dir {
        None => Ok(None),
        Some(d) if d.is_dir() => Ok(Some(std::fs::canonicalize(d)?)),
        Some(d) => Err(flag(FlagError::ProfileNotFolder { dir: d.into() })),
    }
}

#[cfg(test)]
mod probe_tests {
    /// The host reads doctor's probe as its own `hello`.
    #[test]
    fn the_doctor_probe_is_a_hello_the_host_reads() {
        let m = crate::protocol::parse_incoming(&super::probe_hello()).expect("it parses");
        assert!(
            matches!(m, crate::protocol::Incoming::Hello { browser: Some(ref b), .. } if b == "unobserved doctor"),
            "{m:?}"
        );
    }
}
