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

/// A 5000-character host name.
static LONG_HOST: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| "a".repeat(5000));

#[test]
fn every_usage_error_exits_2_before_any_browser_starts() {
    let cases: &[&[&str]] = &[
        &["run", "--reps", "0"],
        &["run", "--runs", "0"],
        &["run", "--runs", "51"],
        // --runs repeats one build: with a second --browser-path the builds take turns.
        &["run", "--runs", "2", "--browser-path", "/bin/true"],
        &["run", "--bodies", "Foo"],
        // WebKit builds cannot take turns: refused, not called interleaved (issue 38).
        &[
            "run",
            "--browser",
            "webkit",
            "--browser-path",
            "/nonexistent/webkit-a",
            "--browser-path",
            "/nonexistent/webkit-b",
        ],
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
        // Round four (issue 38, item 9): each of these was taken, or exited 1 or 3.
        &["sink", "--idle-timeout", "0"],
        &["sink", "--public-host", ""],
        &["sink", "--public-host", "a b"],
        &["sink", "--public-host", "http://x"],
        // HTTP/1.1 in the clear beside a TLS flag (issue 39's h1-only TLS sink).
        &["sink", "--tls", "--transport", "h1", "--listen", "127.0.0.1:0"],
        &["sink", "--transport", "h3"],
        &["sink", "--public-host", "[::1"],
        &["sink", "--public-host", &LONG_HOST],
        &["serve", "--public-host", "a b"],
        &["serve", "--public-host", &LONG_HOST],
        &["run", "--browser-path", "/tmp"],
        &["serve", "--starts-per-minute", "0"],
        // A remote sink over TLS whose URL pins no certificate, or pins on http://.
        &["run", "--sink-url", "https://127.0.0.1:1/upload/abc"],
        &[
            "run",
            "--sink-url",
            "http://127.0.0.1:1/upload/abc#sha256=00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff",
        ],
        // Firefox's extension page upgrades plain http:// off loopback to https://
        // (upgrade-insecure-requests in its Manifest V3 pages' default policy): a plain
        // sink there is never reached, so it is refused before launch (issue 39).
        &[
            "run",
            "--browser",
            "firefox",
            "--sink-url",
            "http://10.239.0.1:1/upload/abc",
        ],
        &["serve", "--starts-per-minute", "601"],
        &["serve", "--page-return", "0"],
        &["serve", "--page-return", "601"],
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

/// Firefox included: a plain sink on loopback is one its extension page reaches, so
/// only the probe refuses it.
#[test]
fn an_unreachable_sink_fails_before_launch_with_exit_1() {
    for browser in ["chromium", "firefox"] {
        let fake = Fake::new();
        let (code, stderr) = fake.run(&[
            "run",
            "--browser",
            browser,
            "--sink-url",
            "http://127.0.0.1:1/upload/abc",
        ]);
        assert_eq!(code, Some(1), "{browser}: {stderr}");
        assert!(
            !fake.launched(),
            "a browser was launched for an unreachable sink"
        );
    }
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

/// Every bad `--script`, `--api`, `--baseline` and `workload` input: exit 2, something
/// said, and no browser started.

#[test]
fn bad_workload_modules_and_apis_exit_2_before_any_browser_starts() {
    let dir = tempfile::tempdir().unwrap();
    let file = |name: &str, body: &[u8]| {
        let p = dir.path().join(name);
        std::fs::write(&p, body).unwrap();
        p.display().to_string()
    };
    let good = format!(
        "a={}",
        file(
            "a.mjs",
            b"export const unobserved = 1;\nexport default async () => {};\n"
        )
    );
    let png = format!("p={}", file("x.png", &[0x89, b'P', b'N', b'G', 0xff, 0]));
    let cjs = format!("c={}", file("c.js", b"module.exports = async () => {};"));
    let v2 = format!(
        "v={}",
        file("v2.mjs", b"export const unobserved = 2; export default 1;")
    );
    let folder = format!("d={}", dir.path().display());
    let blob = good.replacen("a=", "Blob=", 1);
    // Each case's error is its own (a test never matches the words: the exit code and
    // that something was said are checked).
    let cases: Vec<Vec<&str>> = vec![
        vec!["run", "--script", "noequals"],
        vec!["run", "--script", "1x=a.mjs"],
        vec!["run", "--script", "a=/nonexistent/a.mjs"],
        vec!["run", "--script", &folder],
        vec!["run", "--script", &png],
        vec!["run", "--script", &cjs],
        vec!["run", "--script", &v2],
        vec!["run", "--script", &blob],
        vec!["run", "--script", &good, "--script", &good],
        vec!["run", "--baseline", "a"],
        vec!["run", "--script", &good, "--baseline", "b"],
        vec!["run", "--fail-if-slower", "10"],
        vec!["run", "--script", &good, "--module-timeout", "0"],
        vec!["run", "--api", "xhr", "--bodies", "ReadableStream"],
        vec!["run", "--api", "fetch,fetch"],
        vec!["run", "--api", "beacon"],
        vec![
            "run",
            "--script",
            &good,
            "--sink-url",
            "http://127.0.0.1:1/upload/abc",
        ],
        vec!["run", "--browser", "webkit", "--script", &good],
        vec!["workload", "add", "x", "/nonexistent/x.mjs"],
        vec!["workload", "add", "1x", "/nonexistent/x.mjs"],
        vec!["workload", "remove", "never"],
    ];
    for args in &cases {
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

/// `workload add`, `list` and `remove` against a real state dir, and a changed file seen.
#[test]
fn workload_add_list_and_remove() {
    let fake = Fake::new();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("up.mjs");
    std::fs::write(
        &path,
        "export const unobserved = 1;\nexport default async () => {};\n",
    )
    .unwrap();
    let path = path.display().to_string();
    let out = |args: &[&str]| {
        let o = Command::new(BIN)
            .args(args)
            .env("UNOBSERVED_STATE_DIR", fake.dir.path().join("state"))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&o.stdout).into_owned();
        (
            o.status.code(),
            text,
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let (code, text, _) = out(&["workload", "add", "up", &path]);
    assert_eq!(code, Some(0), "{text}");
    let (code, _, err) = out(&["workload", "add", "up", &path]);
    assert_eq!(code, Some(2), "added twice: {err}");
    let (_, listed, _) = out(&["workload", "list", "--json"]);
    let listed: serde_json::Value = serde_json::from_str(&listed).unwrap();
    assert_eq!(listed[0]["module"]["name"], "up");
    assert_eq!(listed[0]["now"]["state"], "unchanged");
    std::fs::write(
        &path,
        "export const unobserved = 1;\nexport default async () => 1;\n",
    )
    .unwrap();
    let (_, listed, _) = out(&["workload", "list", "--json"]);
    let listed: serde_json::Value = serde_json::from_str(&listed).unwrap();
    assert_eq!(listed[0]["now"]["state"], "changed", "{listed:#}");
    let (code, _, _) = out(&["workload", "remove", "up"]);
    assert_eq!(code, Some(0));
    let (_, listed, _) = out(&["workload", "list", "--json"]);
    assert_eq!(listed.trim(), "[]");
}
