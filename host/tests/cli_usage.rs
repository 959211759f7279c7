//! Bad input is found before anything is launched: every usage error exits exactly 2,
//! an unreachable sink exits 1, and in neither case does a browser start. The "browser"
//! here is a script that leaves a mark if it is ever run.

use std::path::Path;
use std::process::Command;

mod common;
use common::BIN;

struct Fake {
    dir: tempfile::TempDir,
}

impl Fake {
    fn new() -> Fake {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("browser");
        let mark = dir.path().join("launched");
        std::fs::write(
            &script,
            format!("#!/bin/sh\ntouch {}\nsleep 30\n", mark.display()),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        Fake { dir }
    }

    /// Runs `unobserved <args>` with this fake browser and its own state dir.
    fn run(&self, args: &[&str]) -> (Option<i32>, String) {
        let mut cmd = Command::new(BIN);
        cmd.args(args)
            .env("UNOBSERVED_STATE_DIR", self.dir.path().join("state"));
        if args.first() == Some(&"run") {
            cmd.arg("--browser-path")
                .arg(self.dir.path().join("browser"));
            if !args.contains(&"--connect-timeout") {
                cmd.args(["--connect-timeout", "3"]);
            }
            cmd.arg("--quiet");
        }
        let out = cmd.output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    fn launched(&self) -> bool {
        Path::new(&self.dir.path().join("launched")).exists()
    }
}

#[test]
fn every_usage_error_exits_2_before_any_browser_starts() {
    let cases: &[&[&str]] = &[
        &["run", "--reps", "0"],
        &["run", "--runs", "0"],
        &["run", "--runs", "51"],
        // --runs repeats one build: with a second --browser-path the builds take turns.
        &["run", "--runs", "2", "--browser-path", "/bin/true"],
        &["run", "--bodies", "Foo"],
        &["run", "--browser", "firefox", "--control"],
        &["run", "--size", "100GiB"],
        &["run", "--size", "1"],
        &["run", "--json", "/nonexistent-dir/x.json"],
        &["run", "--workloads", "parallel", "--streams", "0"],
        &["run", "--streams", "2"],
        &["run", "--sink-url", "ftp://x/upload/abc"],
        &["run", "--horizon", "0"],
        &["run", "--workloads", "download", "--negative-control"],
        &["run", "--transport", "h3"],
        &["run", "--transport", "h2,h2"],
        &["run", "--transport", "h2", "--workloads", "download"],
        &[
            "run",
            "--transport",
            "h2",
            "--sink-url",
            "http://127.0.0.1:1/upload/abc",
        ],
        &["report", "--since", "zzz"],
        &[
            "install",
            "--browser",
            "firefox",
            "--local-https",
            "--dry-run",
        ],
        &[
            "install",
            "--browser",
            "chromium",
            "--local-https",
            "--system",
            "--dry-run",
        ],
        &["install", "--browser", "foo", "--dry-run"],
        &["install", "--extension-id", "evil\"@x", "--dry-run"],
        &["sink", "--hash-queue", "lots"],
        &["serve", "--starts-per-minute", "0"],
        // A remote sink over TLS whose URL pins no certificate, or pins on http://.
        &["run", "--sink-url", "https://127.0.0.1:1/upload/abc"],
        &[
            "run",
            "--sink-url",
            "http://127.0.0.1:1/upload/abc#sha256=00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff",
        ],
        &["serve", "--starts-per-minute", "601"],
        &["run", "--size", "1TiB"],
        &["run", "--auto", "--max-reps", "0"],
        &["run", "--auto", "--max-time", "0"],
        &["run", "--timeout", "0"],
        &["run", "--connect-timeout", "0"],
        &["run", "--extension-dir", "/nonexistent"],
        &["run", "--reps", "-1"],
        &["run", "--warmup", "-1"],
        &["report", "--limit", "-1"],
        // The limits the options page shares (tests/fixtures/plan-limits.json).
        &["run", "--reps", "1001"],
        &["run", "--warmup", "101"],
        &["run", "--auto", "--max-reps", "1001"],
        &["run", "--workloads", "encrypted", "--chunk-sizes", "65MiB"],
        &["run", "--workloads", "encrypted", "--file-size", "5GiB"],
        &["run", "--bodies", "Blob,blob"],
    ];
    for args in cases {
        let fake = Fake::new();
        let (code, stderr) = fake.run(args);
        assert_eq!(code, Some(2), "{args:?} exited {code:?}: {stderr}");
        assert!(!stderr.trim().is_empty(), "{args:?} said nothing");
        assert!(
            !fake.launched(),
            "{args:?} launched a browser before failing"
        );
    }
}

#[test]
fn an_unreachable_sink_fails_before_launch_with_exit_1() {
    let fake = Fake::new();
    let (code, stderr) = fake.run(&["run", "--sink-url", "http://127.0.0.1:1/upload/abc"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        !fake.launched(),
        "a browser was launched for an unreachable sink"
    );
}

/// An https:// sink that presents another certificate than its URL pins is refused
/// with exit 2 before any browser starts; the right pin gets past that check.
#[test]
fn a_pinned_sink_with_another_certificate_is_refused_before_launch() {
    let sink = common::SinkProcess::start(&["--tls", "--listen", "127.0.0.1:0"]);
    let (url, pin) = sink.url.split_once("#sha256=").unwrap();
    let wrong = format!("{url}#sha256={}", "ab".repeat(32));
    let fake = Fake::new();
    let (code, stderr) = fake.run(&["run", "--sink-url", &wrong]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(!fake.launched(), "a browser was launched for a wrong pin");
    // The right pin passes the check: the fake browser is launched (and never connects).
    let fake = Fake::new();
    let (code, stderr) = fake.run(&["run", "--sink-url", &format!("{url}#sha256={pin}")]);
    assert_eq!(code, Some(4), "{stderr}");
    assert!(fake.launched(), "{stderr}");
}
