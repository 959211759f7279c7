//! No launch path ever attaches a debugger or automation driver: every command line
//! `unobserved run` can build, for every browser and mode, is free of such flags.

use std::path::Path;
use unobserved::launch::browsers::LAUNCHABLE;
use unobserved::launch::profile::{prepare, Mode, Page, Trust, Workspace};
use unobserved::platform::local_tls::LocalCert;

/// Substrings of flags that open a debugging or automation channel.
const FORBIDDEN: &[&str] = &[
    "remote-debugging",
    "marionette",
    "remote-allow",
    // Chromium's --enable-automation, MiniBrowser's --automation (WebDriver mode).
    "automation",
    "webdriver",
    "devtools",
    "-juggler",
];

#[test]
fn no_launch_ever_carries_a_debugger_or_automation_flag() {
    let dir = tempfile::tempdir().unwrap();
    let ws = Workspace {
        profile: dir.path().join("p"),
        home: dir.path().join("h"),
        extension: dir.path().join("e"),
    };
    std::fs::create_dir_all(&ws.profile).unwrap();
    // `run` writes the package first; Firefox's launch zips it into the profile.
    unobserved::platform::extension_files::write_package(
        &ws.extension,
        unobserved::platform::extension_files::Family::Firefox,
        false,
    )
    .unwrap();
    let (_, pins) = LocalCert::generate().unwrap();
    for browser in LAUNCHABLE {
        for (headed, as_root, tls) in (0..8).map(|i| (i & 1 != 0, i & 2 != 0, i & 4 != 0)) {
            let trust = tls.then(|| Trust {
                pins: &pins,
                places: unobserved::platform::local_tls::loopback_places(&[4433]),
            });
            let mode = Mode {
                headed,
                as_root,
                trust,
                // WebKit opens the served page; the others load the extension.
                page: Some(Page {
                    url: "http://127.0.0.1:1/bench/serve.html#0",
                    display: ":1",
                }),
            };
            let launch = prepare(
                browser,
                Path::new("/bin/browser"),
                &ws,
                Path::new("/bin/host"),
                mode,
            )
            .unwrap();
            // MiniBrowser has no per-certificate trust: its throwaway session ignores TLS
            // errors, and only in a run with a TLS transport (SECURITY.md says why).
            assert_eq!(
                launch.args.iter().any(|a| a == "--ignore-tls-errors"),
                tls && browser.key == "webkit",
                "{}",
                browser.key
            );
            // Elsewhere trust reaches this run's certificate only, never every certificate.
            assert!(
                !launch
                    .args
                    .iter()
                    .any(|a| a == "--ignore-certificate-errors"),
                "{}",
                browser.key
            );
            for arg in &launch.args {
                let lower = arg.to_lowercase();
                assert!(
                    !FORBIDDEN.iter().any(|f| lower.contains(f)),
                    "{}: {arg}",
                    browser.key
                );
            }
            for (key, _) in &launch.env {
                assert!(
                    !key.contains("MARIONETTE") && !key.contains("REMOTE"),
                    "{}: env {key}",
                    browser.key
                );
            }
        }
    }
}
