//! What a throwaway profile needs, per engine: where the host manifest goes, how the
//! extension is loaded, and the command line. Shared shape, small differences.

use super::browsers::{Engine, Launchable};
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use unobserved_installer::ids::{GECKO_ID, HOST_NAME};
use unobserved_installer::manifest::{self, Family};

pub struct Workspace {
    pub profile: PathBuf,
    pub home: PathBuf,
    pub extension: PathBuf,
}

/// How the browser is started: headed or not, as root or not, and the run's TLS
/// certificate to trust, if it has one.
pub struct Mode<'a> {
    pub headed: bool,
    pub as_root: bool,
    pub trust: Option<Trust<'a>>,
    /// For a browser without native messaging: the served page it opens, and the X
    /// display it runs on.
    pub page: Option<Page<'a>>,
}

pub struct Page<'a> {
    pub url: &'a str,
    pub display: &'a str,
}

/// Trust one certificate (the run's own, or a pinned remote sink's) at these host
/// names and ports, in this profile only.
pub struct Trust<'a> {
    pub pins: &'a crate::platform::local_tls::Pins,
    pub places: Vec<(String, u16)>,
}

pub struct Launch {
    pub program: PathBuf,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
}

/// Writes the host manifest and the extension into the profile, and builds the command.
pub fn prepare(
    browser: &Launchable,
    program: &Path,
    ws: &Workspace,
    host: &Path,
    mode: Mode,
) -> Result<Launch> {
    let Mode {
        headed,
        as_root,
        trust,
        page,
    } = mode;
    let family = match browser.engine {
        Engine::Extension(family) => family,
        Engine::Page => {
            let page = page.context("a browser without native messaging needs the served page")?;
            return Ok(Launch {
                program: program.to_owned(),
                args: super::webkit::args(page.url, trust.is_some()),
                env: vec![
                    ("HOME".to_owned(), ws.home.to_string_lossy().into_owned()),
                    ("DISPLAY".to_owned(), page.display.to_owned()),
                ],
            });
        }
    };
    write_host_manifest(family, ws, host)?;
    let mut env = vec![("HOME".to_owned(), ws.home.to_string_lossy().into_owned())];
    let args = match family {
        Family::Chromium => chromium_trusting(ws, headed, as_root, trust.as_ref()),
        Family::Firefox => {
            install_xpi(ws)?;
            if let Some(t) = &trust {
                std::fs::write(
                    ws.profile.join("cert_override.txt"),
                    crate::platform::local_tls::firefox_overrides(t.pins, &t.places),
                )?;
            }
            env.push(("MOZ_CRASHREPORTER_DISABLE".into(), "1".into()));
            firefox_args(ws, headed)
        }
    };
    Ok(Launch {
        program: program.to_owned(),
        args,
        env,
    })
}

/// The native host's manifest, where this family reads it in a throwaway profile.
fn write_host_manifest(family: Family, ws: &Workspace, host: &Path) -> Result<()> {
    let manifest_dir = match family {
        // With a custom --user-data-dir, Chromium reads host manifests only from there.
        Family::Chromium => ws.profile.join("NativeMessagingHosts"),
        Family::Firefox => ws.home.join(".mozilla").join("native-messaging-hosts"),
    };
    std::fs::create_dir_all(&manifest_dir)?;
    let manifest_path = manifest_dir.join(format!("{HOST_NAME}.json"));
    std::fs::write(&manifest_path, manifest::render(family, host, &[]))
        .with_context(|| format!("cannot write {}", manifest_path.display()))
}

/// Chromium's arguments, accepting the trusted certificate if there is one.
fn chromium_trusting(
    ws: &Workspace,
    headed: bool,
    as_root: bool,
    trust: Option<&Trust>,
) -> Vec<String> {
    let mut args = chromium_args(ws, headed, as_root);
    if let Some(t) = trust {
        // An ordinary switch (not a debugging one): accept a certificate whose
        // key has this hash. It needs --user-data-dir, which a run always has.
        args.insert(
            0,
            format!(
                "--ignore-certificate-errors-spki-list={}",
                t.pins.spki_sha256_base64
            ),
        );
    }
    args
}

fn chromium_args(ws: &Workspace, headed: bool, as_root: bool) -> Vec<String> {
    let mut a = vec![
        format!("--user-data-dir={}", ws.profile.display()),
        format!("--load-extension={}", ws.extension.display()),
        "--no-first-run".into(),
        "--no-default-browser-check".into(),
        "--disable-background-networking".into(),
        "--disable-component-update".into(),
        "--disable-sync".into(),
        "--disable-default-apps".into(),
        "--disable-breakpad".into(),
        "--disable-gpu".into(),
        "--enable-logging=stderr".into(),
    ];
    if !headed {
        a.push("--headless".into());
    }
    if as_root {
        // Chromium refuses to start as root with its sandbox on.
        a.push("--no-sandbox".into());
    }
    a.push("about:blank".into());
    a
}

fn firefox_args(ws: &Workspace, headed: bool) -> Vec<String> {
    let mut a = vec![
        "-profile".into(),
        ws.profile.to_string_lossy().into_owned(),
        "-no-remote".into(),
    ];
    if !headed {
        a.push("-headless".into());
    }
    a.push("about:blank".into());
    a
}

/// Firefox installs an unsigned add-on without asking when it sits in the profile's
/// extensions folder and the profile's prefs allow it. It is the workspace's own copy,
/// with the run's permission grants, zipped.
fn install_xpi(ws: &Workspace) -> Result<()> {
    let dir = ws.profile.join("extensions");
    std::fs::create_dir_all(&dir)?;
    crate::platform::extension_files::zip_dir(&ws.extension, &dir.join(format!("{GECKO_ID}.xpi")))?;
    std::fs::write(ws.profile.join("user.js"), include_str!("firefox-prefs.js"))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::launch::browsers::by_key;

    fn workspace(dir: &Path) -> Workspace {
        let ws = Workspace {
            profile: dir.join("p"),
            home: dir.join("h"),
            extension: dir.join("e"),
        };
        std::fs::create_dir_all(&ws.profile).unwrap();
        ws
    }

    #[test]
    fn chromium_gets_the_manifest_in_its_profile_and_no_sandbox_only_as_root() {
        let dir = tempfile::tempdir().unwrap();
        let ws = workspace(dir.path());
        let l = prepare(
            by_key("chromium").unwrap(),
            Path::new("/b"),
            &ws,
            Path::new("/host"),
            Mode {
                headed: false,
                as_root: false,
                trust: None,
                page: None,
            },
        )
        .unwrap();
        assert!(l.args.contains(&"--headless".to_string()));
        assert!(!l.args.contains(&"--no-sandbox".to_string()));
        let text = std::fs::read_to_string(
            ws.profile
                .join("NativeMessagingHosts/org.unobserved.host.json"),
        )
        .unwrap();
        assert!(text.contains("\"/host\""));
        let l = prepare(
            by_key("chromium").unwrap(),
            Path::new("/b"),
            &ws,
            Path::new("/host"),
            Mode {
                headed: true,
                as_root: true,
                trust: None,
                page: None,
            },
        )
        .unwrap();
        assert!(
            l.args.contains(&"--no-sandbox".to_string())
                && !l.args.contains(&"--headless".to_string())
        );
    }

    #[test]
    fn firefox_gets_the_xpi_prefs_and_manifest_in_home() {
        let dir = tempfile::tempdir().unwrap();
        let ws = workspace(dir.path());
        crate::platform::extension_files::write_package(&ws.extension, Family::Firefox, false)
            .unwrap();
        let l = prepare(
            by_key("firefox").unwrap(),
            Path::new("/b"),
            &ws,
            Path::new("/host"),
            Mode {
                headed: false,
                as_root: true,
                trust: None,
                page: None,
            },
        )
        .unwrap();
        assert!(ws
            .profile
            .join("extensions/unobserved@unobserved.org.xpi")
            .is_file());
        // The xpi is the workspace's Firefox package, not the two-family source tree.
        let xpi = std::fs::File::open(ws.profile.join("extensions/unobserved@unobserved.org.xpi"));
        let mut archive = zip::ZipArchive::new(xpi.unwrap()).unwrap();
        let manifest: serde_json::Value =
            serde_json::from_reader(archive.by_name("manifest.json").unwrap()).unwrap();
        assert!(manifest.get("key").is_none(), "{manifest}");
        assert!(std::fs::read_to_string(ws.profile.join("user.js"))
            .unwrap()
            .contains("xpinstall.signatures.required\", false"));
        assert!(ws
            .home
            .join(".mozilla/native-messaging-hosts/org.unobserved.host.json")
            .is_file());
        assert!(l.env.iter().any(|(k, _)| k == "HOME"));
        assert!(l.args.contains(&"-headless".to_string()));
    }
}
