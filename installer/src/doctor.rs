//! `doctor`: for every browser found, is the manifest there and valid, does its path
//! answer a native `hello`, and which ids may connect. Every problem comes with a fix.

use crate::browsers::{Browser, BROWSERS};
use crate::ids::HOST_NAME;
use crate::layout::Layout;
use crate::manifest::{allowed_ids, Family};
use std::path::Path;

/// Starts the host as `family` would and says hello; Ok(host version) or Err(why).
pub type HelloProbe<'a> = &'a dyn Fn(&Path, Family, &Path) -> Result<String, String>;

#[derive(Debug, serde::Serialize)]
pub struct Check {
    /// What it checked, typed: code and tests find a check by this, never by `subject`.
    pub about: About,
    /// The same in words, for a person.
    pub subject: String,
    pub ok: Vec<String>,
    pub problems: Vec<Problem>,
}

/// What a check is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum About {
    /// A browser's manifest and host: its key in `BROWSERS`.
    Browser { browser: &'static str },
    /// A browser installed as a sandboxed package (`sandbox.rs`).
    Sandboxed {
        browser: &'static str,
        package: &'static str,
    },
    /// The state dir the host writes its store to.
    StateDir,
    /// The local CA of `install --local-https`, and its trust.
    LocalHttps,
}

impl Check {
    fn new(about: About, subject: String) -> Check {
        Check {
            about,
            subject,
            ok: vec![],
            problems: vec![],
        }
    }
}

/// Something doctor found wrong: which rule (`kind`, what code and tests branch on),
/// and the words a person reads, the problem and its fix.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Problem {
    pub kind: ProblemKind,
    pub what: String,
    pub fix: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProblemKind {
    /// The browser is a sandboxed package (Snap, Flatpak) that cannot start the host.
    Sandboxed,
    NoManifest,
    ManifestNotJson,
    /// Not a native messaging host manifest for this host (name, type, id list).
    ManifestIncomplete,
    OwnIdNotAllowed,
    HostPathMissing,
    HostSilent,
    StateDirIsAFile,
    StateDirMissing,
    StateDirNotWritable,
    CaCertificateMissing,
    CaKeyReadable,
    CaKeyMissing,
    CaNotTrusted,
}

fn problem(kind: ProblemKind, what: String, fix: impl Into<String>) -> Problem {
    Problem {
        kind,
        what,
        fix: fix.into(),
    }
}

pub fn doctor(layout: &Layout, system: bool, probe: HelloProbe) -> Vec<Check> {
    let mut checks: Vec<Check> = BROWSERS
        .iter()
        // A --profile is a Chromium-family profile: only those browsers read it.
        .filter(|b| {
            layout.chromium_profile.is_none() || b.family == crate::manifest::Family::Chromium
        })
        .filter(|b| layout.detected(b) || layout.manifest_path(b, system).exists())
        .map(|b| check_browser(layout, b, system, probe))
        .collect();
    checks.push(check_state_dir(&layout.state_dir));
    if let Ok(receipt) = crate::receipt::Receipt::load(layout) {
        checks.extend(receipt.trust.iter().map(check_trust));
    }
    for note in crate::sandbox::detect(layout) {
        let about = About::Sandboxed {
            browser: note.browser,
            package: note.kind,
        };
        let mut c = Check::new(about, format!("{} ({})", note.browser, note.kind));
        c.problems.push(problem(
            ProblemKind::Sandboxed,
            format!("{} is a {} package with a sandbox", note.browser, note.kind),
            note.advice,
        ));
        checks.push(c);
    }
    checks
}

fn check_browser(layout: &Layout, b: &Browser, system: bool, probe: HelloProbe) -> Check {
    let mut c = Check::new(About::Browser { browser: b.key }, b.name.into());
    let path = layout.manifest_path(b, system);
    let fix_install = format!(
        "run `unobserved install --browser {}{}`",
        b.key,
        if system { " --system" } else { "" }
    );
    let doc = match read_manifest(&path, b.family) {
        Ok(doc) => doc,
        Err((ProblemKind::NoManifest, what)) => {
            c.problems
                .push(problem(ProblemKind::NoManifest, what, fix_install));
            return c;
        }
        Err((kind, what)) => {
            c.ok.push(format!("manifest {}", path.display()));
            c.problems
                .push(problem(kind, what, format!("{fix_install} --force")));
            return c;
        }
    };
    c.ok.push(format!("manifest {}", path.display()));
    let ids = allowed_ids(&doc);
    let builtin = b.family.own_id();
    c.ok.push(format!("allowed ids: {}", ids.join(", ")));
    if !ids.iter().any(|i| i == builtin) {
        c.problems.push(problem(
            ProblemKind::OwnIdNotAllowed,
            format!("the extension's own id {builtin} is not allowed"),
            fix_install.clone(),
        ));
    }
    let exe = Path::new(doc["path"].as_str().unwrap_or(""));
    let answer = if !exe.is_absolute() || !exe.is_file() {
        Err((
            ProblemKind::HostPathMissing,
            format!("host path {:?} is not an existing file", exe),
        ))
    } else {
        probe(exe, b.family, &path).map_err(|why| {
            let what = format!("host {} did not answer hello: {why}", exe.display());
            (ProblemKind::HostSilent, what)
        })
    };
    match answer {
        Ok(version) => c.ok.push(format!(
            "host {} answers hello (version {version})",
            exe.display()
        )),
        Err((kind, what)) => c.problems.push(problem(kind, what, fix_install)),
    }
    c
}

/// A browser's host manifest, read and held to what a manifest for this host must say.
fn read_manifest(path: &Path, family: Family) -> Result<serde_json::Value, (ProblemKind, String)> {
    let Ok(text) = std::fs::read_to_string(path) else {
        let what = format!("no host manifest at {}", path.display());
        return Err((ProblemKind::NoManifest, what));
    };
    let doc: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        let what = format!("manifest is not valid JSON: {e}");
        (ProblemKind::ManifestNotJson, what)
    })?;
    let list_key = if family == Family::Chromium {
        "allowed_origins"
    } else {
        "allowed_extensions"
    };
    if doc["name"] != HOST_NAME || doc["type"] != "stdio" || !doc[list_key].is_array() {
        let what = format!("manifest lacks name {HOST_NAME:?}, type \"stdio\" or {list_key}");
        return Err((ProblemKind::ManifestIncomplete, what));
    }
    Ok(doc)
}

fn check_state_dir(dir: &Path) -> Check {
    let mut c = Check::new(About::StateDir, "State dir".into());
    // Probe the dir itself, or the nearest existing parent it would be created in;
    // doctor leaves nothing behind.
    // Something that is not a folder where the state dir (or a parent) should be: no
    // permission change helps.
    if let Some(file) = dir.ancestors().find(|a| a.exists() && !a.is_dir()) {
        c.problems.push(problem(
                ProblemKind::StateDirIsAFile,

            format!("{} is a file, not a folder", file.display()),
            format!(
                "move that file away (it is not Unobserved's), or set UNOBSERVED_STATE_DIR to a folder; {} will be created",
                dir.display()
            ),
        ));
        return c;
    }
    let Some(existing) = dir.ancestors().find(|a| a.exists()) else {
        c.problems.push(problem(
            ProblemKind::StateDirMissing,
            format!("no part of {} exists", dir.display()),
            "set UNOBSERVED_STATE_DIR to a writable folder",
        ));
        return c;
    };
    let probe = existing.join(format!(".unobserved-doctor-{}", std::process::id()));
    match std::fs::write(&probe, b"") {
        Ok(()) => {
            let _ = std::fs::remove_file(&probe);
            c.ok.push(format!("{} is writable", dir.display()));
        }
        Err(e) => c.problems.push(problem(
            ProblemKind::StateDirNotWritable,
            format!("{} is not writable ({e})", existing.display()),
            "fix its permissions, or set UNOBSERVED_STATE_DIR to a writable folder",
        )),
    }
    c
}

/// The local CA of `install --local-https`: its files, its key's mode, and the trust.
fn check_trust(t: &crate::plan::TrustWrite) -> Check {
    let mut c = Check::new(About::LocalHttps, format!("local HTTPS ({})", t.nickname));
    let reinstall = "run `unobserved install --local-https` again".to_owned();
    if t.cert_path.is_file() {
        c.ok.push(format!("CA certificate {}", t.cert_path.display()));
    } else {
        c.problems.push(problem(
            ProblemKind::CaCertificateMissing,
            format!("{} is missing", t.cert_path.display()),
            reinstall.clone(),
        ));
    }
    match key_mode(&t.key_path) {
        Some(0o600) => c.ok.push(format!("CA key {} is owner-only", t.key_path.display())),
        Some(mode) => c.problems.push(problem(
                ProblemKind::CaKeyReadable,

            format!("the CA key {} has mode {mode:o}: others may read it and mint certificates for 127.0.0.1 and localhost", t.key_path.display()),
            format!("chmod 600 {}", t.key_path.display()),
        )),
        None => c.problems.push(problem(
                ProblemKind::CaKeyMissing,

            format!("the CA key {} is missing", t.key_path.display()),
            reinstall.clone(),
        )),
    }
    if crate::trust::is_trusted(t) {
        c.ok.push(format!("trusted in {}", t.nssdb.display()));
    } else {
        c.problems.push(problem(
            ProblemKind::CaNotTrusted,
            format!(
                "{} does not hold {:?} (or certutil is missing)",
                t.nssdb.display(),
                t.nickname
            ),
            format!("{reinstall}; it needs certutil (Debian/Ubuntu: libnss3-tools)"),
        ));
    }
    c
}

fn key_mode(path: &Path) -> Option<u32> {
    let meta = std::fs::metadata(path).ok()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        Some(meta.permissions().mode() & 0o777)
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        Some(0o600)
    }
}

#[cfg(test)]
mod state_dir_tests {
    use super::*;

    fn kinds(c: &Check) -> Vec<ProblemKind> {
        c.problems.iter().map(|p| p.kind).collect()
    }

    #[cfg(unix)]
    #[test]
    fn a_local_ca_key_others_can_read_is_a_problem() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let t = crate::plan::TrustWrite {
            nssdb: tmp.path().join("nssdb"),
            nickname: "test".into(),
            cert_path: tmp.path().join("ca.pem"),
            key_path: tmp.path().join("ca.key"),
        };
        std::fs::write(&t.cert_path, "cert").unwrap();
        std::fs::write(&t.key_path, "key").unwrap();
        let problems_with = |mode| {
            std::fs::set_permissions(&t.key_path, std::fs::Permissions::from_mode(mode)).unwrap();
            kinds(&check_trust(&t))
        };
        assert!(!problems_with(0o600).contains(&ProblemKind::CaKeyReadable));
        assert!(problems_with(0o644).contains(&ProblemKind::CaKeyReadable));
        std::fs::remove_file(&t.key_path).unwrap();
        assert!(kinds(&check_trust(&t)).contains(&ProblemKind::CaKeyMissing));
    }

    #[test]
    fn a_state_dir_that_is_a_file_gets_advice_about_the_file_not_permissions() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("unobserved");
        std::fs::write(&file, b"not a folder").unwrap();
        let c = check_state_dir(&file);
        assert_eq!(c.problems.len(), 1);
        assert_eq!(c.problems[0].kind, ProblemKind::StateDirIsAFile);
    }
}
