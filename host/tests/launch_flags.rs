//! No launch path ever attaches a debugger or automation driver: every command line
//! `unobserved run` can build, for every browser and mode, is free of such flags.

use std::path::Path;
use unobserved::run::browsers::LAUNCHABLE;
use unobserved::run::launch::{prepare, Workspace};

/// Substrings of flags that open a debugging or automation channel.
const FORBIDDEN: &[&str] = &[
    "remote-debugging",
    "marionette",
    "remote-allow",
    "enable-automation",
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
    unobserved::extension_files::write_package(
        &ws.extension,
        unobserved::extension_files::Family::Firefox,
        false,
    )
    .unwrap();
    for browser in LAUNCHABLE {
        for headed in [false, true] {
            for as_root in [false, true] {
                let launch = prepare(
                    browser,
                    Path::new("/bin/browser"),
                    &ws,
                    Path::new("/bin/host"),
                    headed,
                    as_root,
                )
                .unwrap();
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
}
