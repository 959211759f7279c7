//! Faults, on purpose: the host or the browser killed mid-run, a store that cannot be
//! written, and two browsers' hosts writing one store at once.

mod common;

use common::{Host, BIN};
use serde_json::json;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

static ONE_BROWSER_AT_A_TIME: Mutex<()> = Mutex::new(());

fn cmdline(pid: u32) -> Vec<String> {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|b| {
            b.split(|&c| c == 0)
                .filter(|s| !s.is_empty())
                .map(|s| String::from_utf8_lossy(s).into_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn environ_has(pid: u32, needle: &str) -> bool {
    std::fs::read(format!("/proc/{pid}/environ"))
        .map(|e| String::from_utf8_lossy(&e).contains(needle))
        .unwrap_or(false)
}

fn pids() -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .collect()
}

/// The native host a browser started for this state dir.
fn host_pid(state: &Path) -> Option<u32> {
    let marker = format!("UNOBSERVED_STATE_DIR={}", state.display());
    pids().into_iter().find(|&p| {
        let c = cmdline(p);
        c.first().is_some_and(|a| a.ends_with("unobserved"))
            && c.get(1)
                .is_some_and(|a| a.starts_with("chrome-extension://"))
            && environ_has(p, &marker)
    })
}

/// The TCP port `pid` listens on, read from /proc (its socket inodes matched against
/// the kernel's LISTEN entries), not from anything the host writes.
fn listening_port(pid: u32) -> Option<u16> {
    let inodes: Vec<String> = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .ok()?
        .filter_map(|e| {
            let target = std::fs::read_link(e.ok()?.path()).ok()?;
            let t = target.to_str()?;
            Some(t.strip_prefix("socket:[")?.strip_suffix(']')?.to_owned())
        })
        .collect();
    let table = std::fs::read_to_string("/proc/net/tcp").ok()?;
    table.lines().skip(1).find_map(|line| {
        let f: Vec<&str> = line.split_whitespace().collect();
        // local_address is HEXIP:HEXPORT; state 0A is LISTEN; field 9 is the inode.
        let listening =
            f.get(3) == Some(&"0A") && inodes.iter().any(|i| f.get(9) == Some(&i.as_str()));
        if !listening {
            return None;
        }
        u16::from_str_radix(f.get(1)?.rsplit(':').next()?, 16).ok()
    })
}

/// Parent, grandparent, … (renderers are forked by the zygote, which the browser started).
fn ancestors(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let mut p = pid;
    for _ in 0..8 {
        let status = std::fs::read_to_string(format!("/proc/{p}/status")).unwrap_or_default();
        let Some(parent) = status
            .lines()
            .find_map(|l| l.strip_prefix("PPid:"))
            .and_then(|v| v.trim().parse().ok())
        else {
            break;
        };
        if parent <= 1 {
            break;
        }
        out.push(parent);
        p = parent;
    }
    out
}

fn stored_samples(state: &Path) -> usize {
    std::fs::read_to_string(state.join("results.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["kind"] == "sample")
        .count()
}

fn wait_until(what: &str, within: Duration, mut ok: impl FnMut() -> bool) {
    let end = Instant::now() + within;
    while !ok() {
        assert!(Instant::now() < end, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A child `unobserved run` that is killed if the test panics, so a failed assertion
/// never leaves a 200-rep run (and its browser) going.
struct RunChild(std::process::Child);

impl std::ops::Deref for RunChild {
    type Target = std::process::Child;
    fn deref(&self) -> &std::process::Child {
        &self.0
    }
}

impl std::ops::DerefMut for RunChild {
    fn deref_mut(&mut self) -> &mut std::process::Child {
        &mut self.0
    }
}

impl Drop for RunChild {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            // SIGTERM, so the run ends its browser and deletes its profile.
            unsafe { libc::kill(self.0.id() as i32, libc::SIGTERM) };
            let _ = self.0.wait();
        }
    }
}

/// A long `unobserved run` in Chromium, already storing samples: the moment to break
/// something. The returned guard keeps other browser tests out meanwhile.
fn run_in_progress(state: &Path) -> (std::sync::MutexGuard<'static, ()>, RunChild) {
    let turn = ONE_BROWSER_AT_A_TIME
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    let run = Command::new(BIN)
        .args([
            "run",
            "--browser",
            "chromium",
            "--size",
            "8MiB",
            "--reps",
            "200",
            "--warmup",
            "0",
            "--bodies",
            "Uint8Array,Blob",
            "--quiet",
        ])
        .env("UNOBSERVED_STATE_DIR", state)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let run = RunChild(run);
    wait_until("some samples", Duration::from_secs(90), || {
        stored_samples(state) >= 3
    });
    (turn, run)
}

#[test]
fn host_killed_mid_run_is_reported_and_the_store_is_intact() {
    let state = tempfile::tempdir().unwrap();
    let (_turn, mut run) = run_in_progress(state.path());
    let host = host_pid(state.path()).expect("the browser's native host");
    let stored_before = std::fs::read_to_string(state.path().join("results.jsonl")).unwrap();
    unsafe { libc::kill(host as i32, libc::SIGKILL) };

    let out = wait_output(&mut run, Duration::from_secs(60));
    assert_eq!(
        out.0.code(),
        Some(1),
        "a run whose host died failed: {}",
        out.2
    );
    let (status, _, why) = stored_end(state.path()).expect("an end record");
    assert_eq!(
        (status.as_str(), why.as_str()),
        ("incomplete", "host-gone"),
        "the extension recorded the run incomplete through a fresh host, and why"
    );
    let text = std::fs::read_to_string(state.path().join("results.jsonl")).unwrap();
    for (i, line) in text.lines().enumerate() {
        serde_json::from_str::<serde_json::Value>(line)
            .unwrap_or_else(|e| panic!("line {} is damaged: {e}", i + 1));
    }
    // Everything stored before the kill is still there, byte for byte.
    assert!(
        text.starts_with(&stored_before),
        "the store was rewritten or truncated"
    );
}

#[test]
fn browser_killed_mid_run_the_host_exits_and_its_port_closes() {
    let state = tempfile::tempdir().unwrap();
    let (_turn, mut run) = run_in_progress(state.path());
    let host = host_pid(state.path()).expect("the browser's native host");
    let port = listening_port(host).expect("the host listens on a port (its sink)");
    let browser = pids()
        .into_iter()
        .find(|&p| {
            let c = cmdline(p);
            c.iter()
                .any(|a| a.starts_with("--user-data-dir=") && a.contains("unobserved-run-"))
                && !c.iter().any(|a| a.starts_with("--type="))
                && environ_has(
                    p,
                    &format!("UNOBSERVED_STATE_DIR={}", state.path().display()),
                )
        })
        .expect("the browser's main process");
    unsafe { libc::kill(browser as i32, libc::SIGKILL) };
    // Events, not speed: the host exits, then its port is closed. (It takes well under
    // a second on an idle machine; the bound only keeps a broken host from hanging CI.)
    wait_until("the host to exit", Duration::from_secs(15), || {
        !Path::new(&format!("/proc/{host}")).exists() || proc_is_zombie(host)
    });
    assert!(
        std::net::TcpStream::connect(("127.0.0.1", port)).is_err(),
        "sink port {port} still open after its host exited"
    );
    let out = wait_output(&mut run, Duration::from_secs(30));
    assert_eq!(out.0.code(), Some(1), "{}", out.2);
    assert_eq!(stored_end(state.path()).expect("an end record").0, "failed");
}

#[test]
fn every_acknowledged_sample_is_on_disk_after_the_host_is_killed_mid_stream() {
    let state = tempfile::tempdir().unwrap();
    let mut host = Host::chromium(state.path());
    let run = json!({"type": "run-started", "run": {"run_id": "acked", "browser": "Chromium",
        "browser_version": "156", "os": "Linux", "extension_version": "0.1.0", "source": "job",
        "started_at": "2026-11-30T00:00:00Z",
        "plan": {"size_bytes": 1024, "reps": 1000, "warmup": 0, "bodies": ["Blob"]}}});
    assert_eq!(host.send(&run)["type"], "run-started");
    let sample = |rep: u32| {
        json!({"run_id": "acked", "body": "Blob", "rep": rep, "bytes_sent": 1024,
            "bytes_received": 1024, "sha256_sent": "x", "sha256_received": "x", "intact": true,
            "status": "ok", "error": null, "page_ms": 1.0, "sink_ms": 0.5, "mbps": 0.02,
            "observed": {"webdriver": false}})
    };
    // Acknowledged batches, then one more sent without waiting, then SIGKILL.
    let mut acked = Vec::new();
    for batch in 0..20u32 {
        let reps: Vec<u32> = (batch * 5..batch * 5 + 5).collect();
        let msg = json!({"type": "samples", "run_id": "acked",
            "samples": reps.iter().map(|&r| sample(r)).collect::<Vec<_>>()});
        let ack = host.send(&msg);
        assert_eq!(ack["count"], 5, "{ack}");
        acked.extend(reps);
    }
    let body = serde_json::to_vec(&json!({"type": "samples", "run_id": "acked",
        "samples": [sample(999)]}))
    .unwrap();
    let stdin = host.stdin.as_mut().unwrap();
    std::io::Write::write_all(stdin, &(body.len() as u32).to_ne_bytes()).unwrap();
    std::io::Write::write_all(stdin, &body[..body.len() / 2]).unwrap();
    host.child.kill().unwrap();
    let _ = host.child.wait();
    let stored: Vec<u64> = std::fs::read_to_string(state.path().join("results.jsonl"))
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["kind"] == "sample")
        .filter_map(|v| v["rep"].as_u64())
        .collect();
    for rep in acked {
        assert!(
            stored.contains(&u64::from(rep)),
            "acknowledged rep {rep} is not on disk"
        );
    }
}

fn proc_is_zombie(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| s.contains(") Z "))
        .unwrap_or(true)
}

fn wait_output(
    child: &mut std::process::Child,
    within: Duration,
) -> (std::process::ExitStatus, String, String) {
    let end = Instant::now() + within;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let (mut o, mut e) = (String::new(), String::new());
            child.stdout.take().unwrap().read_to_string(&mut o).unwrap();
            child.stderr.take().unwrap().read_to_string(&mut e).unwrap();
            return (status, o, e);
        }
        if Instant::now() > end {
            let _ = child.kill();
            panic!("`unobserved run` did not end within {within:?}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn an_unwritable_store_fails_the_cli_before_any_browser_starts() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("results.jsonl")).unwrap();
    // A "browser" that leaves a mark if it is ever started.
    let fake = dir.path().join("browser");
    let mark = dir.path().join("launched");
    std::fs::write(&fake, format!("#!/bin/sh\ntouch {}\n", mark.display())).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = Command::new(BIN)
        .args(["run", "--quiet", "--browser-path"])
        .arg(&fake)
        .env("UNOBSERVED_STATE_DIR", dir.path())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(unobserved::platform::exit::STORE_FAILED),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!mark.exists(), "a browser was started");
}

/// A store on a full disk (the store's fault seam: every append fails with ENOSPC).
/// The host says so with error 10 and leaves nothing partial.
#[test]
fn a_full_disk_is_a_clear_error_from_the_host() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = Host::start_with_env(
        dir.path(),
        &[common::CHROMIUM_ORIGIN],
        &[(unobserved::store::FULL_DISK_FAULT, "1")],
    );
    let reply = host.send(&json!({"type":"run-started","run":{"run_id":"full","plan":{"size_bytes":1024,"reps":1,"warmup":0,"bodies":["Blob"]}}}));
    assert_eq!(
        (&reply["code"], &reply["name"], &reply["kind"]),
        (&json!(10), &json!("store-failed"), &json!("disk-full")),
        "{reply}"
    );
    // Nothing partial: the store holds no line, whole or torn.
    let stored = std::fs::read(dir.path().join("results.jsonl")).unwrap_or_default();
    assert!(stored.is_empty(), "{}", String::from_utf8_lossy(&stored));
}

/// The state dir is never a way to reach other files: a symlinked store is not written
/// through, a symlinked state dir is not chmodded through, and an old 0644 store is
/// made private again.
#[test]
fn the_store_follows_no_symlink_and_keeps_itself_private() {
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    let record = unobserved::store::Record::SinkEvent {
        event: "aborted".into(),
        bytes: 1,
        path: "/upload".into(),
        recorded_at: "2026-11-30T00:00:00Z".into(),
    };
    // results.jsonl -> another file
    let dir = tempfile::tempdir().unwrap();
    let other = dir.path().join("other.txt");
    std::fs::write(&other, "precious").unwrap();
    std::fs::set_permissions(&other, std::fs::Permissions::from_mode(0o644)).unwrap();
    let state = dir.path().join("state");
    std::fs::create_dir(&state).unwrap();
    std::os::unix::fs::symlink(&other, state.join("results.jsonl")).unwrap();
    let store = unobserved::store::Store::in_dir(&state);
    assert!(store.append(std::slice::from_ref(&record)).is_err());
    assert_eq!(std::fs::read_to_string(&other).unwrap(), "precious");
    // Reads follow the same rule: a report never reads through the link.
    let read = store.read().map(|c| c.records.len());
    assert_eq!(
        read.map_err(|e| e.kind()),
        Err(std::io::ErrorKind::PermissionDenied)
    );
    let report = Command::new(env!("CARGO_BIN_EXE_unobserved"))
        .args(["report", "--list"])
        .env("UNOBSERVED_STATE_DIR", &state)
        .output()
        .unwrap();
    assert_eq!(
        report.status.code(),
        Some(1),
        "report refuses the linked store"
    );
    assert_eq!(mode(&other), 0o644);
    // a state dir that is a symlink to another folder
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::set_permissions(&elsewhere, std::fs::Permissions::from_mode(0o755)).unwrap();
    let linked = dir.path().join("linked-state");
    std::os::unix::fs::symlink(&elsewhere, &linked).unwrap();
    assert!(unobserved::store::Store::in_dir(&linked)
        .append(std::slice::from_ref(&record))
        .is_err());
    assert_eq!(mode(&elsewhere), 0o755, "the link's target was chmodded");
    std::fs::write(elsewhere.join("results.jsonl"), "").unwrap();
    let read = unobserved::store::Store::in_dir(&linked).read();
    assert_eq!(
        read.map(|c| c.records.len()).map_err(|e| e.kind()),
        Err(std::io::ErrorKind::PermissionDenied)
    );
    // an existing store readable by others
    let open = dir.path().join("open-state");
    std::fs::create_dir(&open).unwrap();
    std::fs::write(open.join("results.jsonl"), "").unwrap();
    std::fs::set_permissions(
        open.join("results.jsonl"),
        std::fs::Permissions::from_mode(0o644),
    )
    .unwrap();
    unobserved::store::Store::in_dir(&open)
        .append(std::slice::from_ref(&record))
        .unwrap();
    assert_eq!(mode(&open.join("results.jsonl")), 0o600);
}

/// Two browsers' hosts appending to one store at the same moment: every line is whole
/// and no sample is lost.
#[test]
fn two_hosts_writing_one_store_never_interleave() {
    let dir = tempfile::tempdir().unwrap();
    let writers: Vec<_> = ["ra", "rb"]
        .into_iter()
        .map(|run| {
            let dir = dir.path().to_owned();
            std::thread::spawn(move || {
                let mut host = Host::chromium(&dir);
                host.start_run(run);
                let sample = |rep: u32| json!({"run_id": run, "body": "Blob", "rep": rep, "bytes_sent": 1024, "bytes_received": 1024,
                    "sha256_sent": "a".repeat(64), "sha256_received": "a".repeat(64), "intact": true, "status": "ok",
                    "error": null, "page_ms": 1.0, "sink_ms": 1.0, "mbps": 1.0, "head": "x".repeat(64), "observed": {"webdriver": false}});
                for batch in 0..200u32 {
                    let reply = host.send(&json!({"type": "samples", "run_id": run, "samples": (0..5).map(|i| sample(batch * 5 + i)).collect::<Vec<_>>()}));
                    assert_eq!(reply["type"], "samples-ack");
                }
                host.hang_up();
                host.child.wait().unwrap();
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    let text = std::fs::read_to_string(dir.path().join("results.jsonl")).unwrap();
    let mut per_run = std::collections::HashMap::new();
    for (i, line) in text.lines().enumerate() {
        let v: serde_json::Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("line {} is interleaved or torn: {e}", i + 1));
        if v["kind"] != "sample" {
            continue;
        }
        *per_run
            .entry(v["run_id"].as_str().unwrap().to_owned())
            .or_insert(0) += 1;
    }
    assert_eq!(per_run.get("ra"), Some(&1000));
    assert_eq!(per_run.get("rb"), Some(&1000));
}

/// The extension's own process (service worker included) crashes mid-run. The restarted
/// background finds the orphaned run and records it as incomplete: the CLI ends with
/// that reason instead of waiting out its timeout.
#[test]
fn extension_process_killed_mid_run_is_recorded_incomplete() {
    let state = tempfile::tempdir().unwrap();
    let (_turn, mut run) = run_in_progress(state.path());
    let marker = format!("UNOBSERVED_STATE_DIR={}", state.path().display());
    let extension_process = pids()
        .into_iter()
        .find(|&p| cmdline(p).join(" ").contains("--extension-process") && ancestors(p).iter().any(|&a| environ_has(a, &marker)))
        .unwrap_or_else(|| {
            let candidates: Vec<_> = pids().into_iter().filter(|&p| cmdline(p).join(" ").contains("--extension-process")).map(|p| (p, ancestors(p))).collect();
            panic!("no extension process of this run; extension processes and their ancestors: {candidates:?}")
        });
    unsafe { libc::kill(extension_process as i32, libc::SIGKILL) };
    let out = wait_output(&mut run, Duration::from_secs(60));
    assert!(!out.0.success());
    let (status, _, why) = stored_end(state.path()).expect("the orphaned run's end is recorded");
    assert_eq!(
        (status.as_str(), why.as_str()),
        ("incomplete", "background-stopped"),
        "{}",
        out.2
    );
    let text = std::fs::read_to_string(state.path().join("results.jsonl")).unwrap();
    assert!(text
        .lines()
        .all(|l| serde_json::from_str::<serde_json::Value>(l).is_ok()));
}

/// A full disk under a real run: the CLI stops with the host's words, not a timeout.
#[test]
fn a_full_disk_stops_the_cli_with_the_reason() {
    let _turn = ONE_BROWSER_AT_A_TIME
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let t = Instant::now();
    let out = Command::new(BIN)
        .args([
            "run",
            "--size",
            "1MiB",
            "--reps",
            "1",
            "--quiet",
            "--connect-timeout",
            "120",
        ])
        .env("UNOBSERVED_STATE_DIR", dir.path())
        // The host the browser starts inherits it: its store writes fail with ENOSPC.
        .env(unobserved::store::FULL_DISK_FAULT, "1")
        .output()
        .unwrap();
    // Its own exit code: not a timeout, not a missing connection, not a plain failure.
    assert_eq!(
        out.status.code(),
        Some(unobserved::platform::exit::STORE_FAILED),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        t.elapsed() < Duration::from_secs(100),
        "stopped on the host's report, not the timeout"
    );
}

/// The throwaway profile of the browser running for this state dir.
fn browser_profile(state: &Path) -> String {
    let marker = format!("UNOBSERVED_STATE_DIR={}", state.display());
    pids()
        .into_iter()
        .filter(|&p| environ_has(p, &marker))
        .find_map(|p| {
            cmdline(p)
                .iter()
                .find_map(|a| a.strip_prefix("--user-data-dir=").map(str::to_owned))
        })
        .expect("a browser with a throwaway profile is running")
}

/// Processes whose command line names `path` (zombies waiting for init do not count).
fn processes_using(path: &str) -> Vec<u32> {
    pids()
        .into_iter()
        .filter(|&p| !proc_is_zombie(p) && cmdline(p).iter().any(|a| a.contains(path)))
        .collect()
}

/// How the store says the run ended: (status, reason, typed end reason).
fn stored_end(state: &Path) -> Option<(String, String, String)> {
    std::fs::read_to_string(state.join("results.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|v| v["kind"] == "run_end")
        .map(|v| {
            (
                v["status"].as_str().unwrap_or("").to_owned(),
                v["reason"].as_str().unwrap_or("").to_owned(),
                v["end_reason"].as_str().unwrap_or("").to_owned(),
            )
        })
}

/// Sends `signal` to a run in progress: it ends as `stopped`, exits 128 + the signal's
/// number, and leaves no browser process and no profile behind.
fn signal_ends_the_run_cleanly(signal: i32, expected_exit: i32) {
    let state = tempfile::tempdir().unwrap();
    let (_turn, mut run) = run_in_progress(state.path());
    let profile = browser_profile(state.path());
    unsafe { libc::kill(run.id() as i32, signal) };
    let (status, _, stderr) = wait_output(&mut run, Duration::from_secs(30));
    assert_eq!(status.code(), Some(expected_exit), "{stderr}");
    let (end, reason, _) = stored_end(state.path()).expect("an end record");
    assert_eq!(end, "stopped", "{reason}");
    assert!(
        processes_using(&profile).is_empty(),
        "{:?}",
        processes_using(&profile)
    );
    assert!(!Path::new(&profile).exists(), "{profile} left behind");
}

#[test]
fn sigterm_stops_the_run_records_it_and_leaves_nothing() {
    signal_ends_the_run_cleanly(libc::SIGTERM, 143);
}

#[test]
fn sigint_stops_the_run_records_it_and_leaves_nothing() {
    signal_ends_the_run_cleanly(libc::SIGINT, 130);
}

#[test]
fn sighup_stops_the_run_records_it_and_leaves_nothing() {
    signal_ends_the_run_cleanly(libc::SIGHUP, 129);
}

#[test]
fn sigkill_of_the_cli_still_leaves_no_browser_and_no_profile() {
    let state = tempfile::tempdir().unwrap();
    let (_turn, mut run) = run_in_progress(state.path());
    let profile = browser_profile(state.path());
    run.kill().unwrap(); // SIGKILL: no handler runs
    let _ = run.wait();
    wait_until(
        "the browser and its profile to be gone",
        Duration::from_secs(10),
        || processes_using(&profile).is_empty() && !Path::new(&profile).exists(),
    );
    wait_until("an end record", Duration::from_secs(10), || {
        stored_end(state.path()).is_some()
    });
    assert_eq!(stored_end(state.path()).unwrap().0, "stopped");
}

#[test]
fn a_run_past_its_timeout_is_recorded_timed_out_and_exits_1() {
    let _turn = ONE_BROWSER_AT_A_TIME
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    let state = tempfile::tempdir().unwrap();
    let mut run = Command::new(BIN)
        .args([
            "run",
            "--size",
            "8MiB",
            "--reps",
            "300",
            "--warmup",
            "0",
            "--bodies",
            "Uint8Array",
            "--quiet",
            "--timeout",
            "6",
        ])
        .env("UNOBSERVED_STATE_DIR", state.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (status, _, stderr) = wait_output(&mut run, Duration::from_secs(60));
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert_eq!(
        stored_end(state.path()).expect("an end record").0,
        "timed-out"
    );
}
