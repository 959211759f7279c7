//! A big run must not make the store unreadable: a report of 20 000 samples per arm
//! stays within a small address space, and listing or reporting another run costs
//! what that run costs, not what the biggest run in the store would.

mod common;

use serde_json::{json, Value};
use std::process::Command;

/// Per-process address-space limit: today's report of 20k samples per arm needs a few
/// tens of MiB; every pairwise difference (m×n) would need 3.2 GB.
const AS_LIMIT: &str = "--as=1073741824";

fn run_record(run_id: &str) -> Value {
    json!({"kind": "run", "run_id": run_id, "browser": "Chromium", "browser_version": "156",
        "os": "Linux", "extension_version": "0.1.0", "source": "job",
        "started_at": "2026-12-01T00:00:00Z", "host_version": "0.1.0",
        "recorded_at": "2026-12-01T00:00:00Z",
        "plan": {"size_bytes": 1024, "reps": 20000, "warmup": 0, "bodies": ["Uint8Array", "Blob"]}})
}

fn sample(run_id: &str, body: &str, rep: u32, mbps: f64) -> Value {
    json!({"kind": "sample", "run_id": run_id, "body": body, "rep": rep, "bytes_sent": 1024,
        "bytes_received": 1024, "sha256_sent": "a", "sha256_received": "a", "intact": true,
        "status": "ok", "error": null, "page_ms": 1.0, "sink_ms": 0.9, "mbps": mbps,
        "observed": {"webdriver": false}, "arm": {"kind": "body", "body": body}})
}

/// A store with a small run and, after it, one of `per_arm` reps of two arms where
/// Blob is 10% faster than Uint8Array.
fn store(per_arm: u32) -> tempfile::TempDir {
    let state = tempfile::tempdir().unwrap();
    let mut lines = vec![run_record("small")];
    lines.extend((0..4).flat_map(|r| {
        [
            sample("small", "Uint8Array", r, 1000.0 + r as f64),
            sample("small", "Blob", r, 1100.0 + r as f64),
        ]
    }));
    lines.push(run_record("big"));
    for r in 0..per_arm {
        // A deterministic spread with many ties, like real rounded figures.
        let jitter = ((r * 7919) % 101) as f64;
        lines.push(sample("big", "Uint8Array", r, 1000.0 + jitter));
        lines.push(sample("big", "Blob", r, 1100.0 + jitter));
    }
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(state.path().join("results.jsonl"), text).unwrap();
    state
}

fn limited_report(state: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new("prlimit")
        .arg(AS_LIMIT)
        .arg(common::BIN)
        .arg("report")
        .args(args)
        .env("UNOBSERVED_STATE_DIR", state)
        .output()
        .expect("prlimit (util-linux) runs the report")
}

#[test]
fn twenty_thousand_samples_per_arm_report_within_one_gib_of_address_space() {
    let state = store(20_000);
    let out = limited_report(state.path(), &["--run", "big", "--format", "json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let c = &report["runs"][0]["comparisons"][0];
    assert_eq!(c["verdict"], "faster", "{c}");
    assert!((c["ratio"].as_f64().unwrap() - 1.1).abs() < 0.02, "{c}");
}

#[test]
fn listing_and_reporting_another_run_stay_cheap_beside_a_huge_one() {
    // Analysing this run once needed every pairwise difference (3.2 GB): a list and
    // another run's report must not analyse it at all.
    let state = store(20_000);
    let list = limited_report(state.path(), &["--list"]);
    assert!(list.status.success());
    let listed = String::from_utf8_lossy(&list.stdout);
    assert_eq!(listed.lines().count(), 3, "a header and two runs: {listed}");
    let other = limited_report(state.path(), &["--run", "small", "--format", "json"]);
    assert!(other.status.success());
    let report: Value = serde_json::from_slice(&other.stdout).unwrap();
    assert_eq!(report["runs"].as_array().unwrap().len(), 1);
    assert_eq!(report["runs"][0]["run"]["run_id"], "small");
}

/// Peak resident memory a report may reach beside a big store.
const RSS_LIMIT_KIB: i64 = 256 * 1024;

/// A store of about 1 GiB: a small run, a run of 4096 samples each carrying 256 KiB of
/// an unknown field (as older hosts stored what a page sent), and another small run.
/// Written a line at a time: the test never holds it.
fn gib_store() -> tempfile::TempDir {
    use std::io::Write;
    let state = tempfile::tempdir().unwrap();
    let file = std::fs::File::create(state.path().join("results.jsonl")).unwrap();
    let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
    let small = |out: &mut std::io::BufWriter<std::fs::File>, id: &str| {
        writeln!(out, "{}", run_record(id)).unwrap();
        for r in 0..4 {
            writeln!(out, "{}", sample(id, "Uint8Array", r, 1000.0 + r as f64)).unwrap();
            writeln!(out, "{}", sample(id, "Blob", r, 1100.0 + r as f64)).unwrap();
        }
    };
    small(&mut out, "small");
    writeln!(out, "{}", run_record("big")).unwrap();
    let filler = "x".repeat(256 * 1024);
    for r in 0..4096 {
        let mut s = sample("big", "Blob", r, 1000.0);
        s["note"] = Value::String(filler.clone());
        writeln!(out, "{s}").unwrap();
    }
    small(&mut out, "small2");
    out.flush().unwrap();
    state
}

/// `unobserved <args>` on the store in `state`: its exit code, its stdout, and its peak
/// resident memory in KiB (wait4's rusage of that child alone, not of the test's other
/// children).
// wait4 reaps the child: clippy cannot see that.
#[allow(clippy::zombie_processes)]
fn peak_rss(state: &std::path::Path, args: &[&str]) -> (i32, Vec<u8>, i64) {
    let stdout = state.join("stdout");
    let child = Command::new(common::BIN)
        .args(args)
        .env("UNOBSERVED_STATE_DIR", state)
        .stdout(std::fs::File::create(&stdout).unwrap())
        .spawn()
        .unwrap();
    let mut status = 0;
    // SAFETY: a zeroed rusage is valid; wait4 reaps this child, which nothing else waits for.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let reaped = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(reaped, child.id() as i32);
    assert!(libc::WIFEXITED(status), "{status}");
    let out = std::fs::read(&stdout).unwrap();
    eprintln!("unobserved {args:?}: peak RSS {} KiB", usage.ru_maxrss);
    (libc::WEXITSTATUS(status), out, usage.ru_maxrss)
}

/// Beside a 1 GiB store, a report of a small run, a one-line list and a comparison of
/// two small runs each peaked at 1.24 GB: every run's samples were parsed and held.
/// Now runs are listed from their samples' heads and only the runs shown are read
/// whole.
#[test]
fn a_small_runs_report_a_list_and_a_compare_stay_under_256_mib_beside_a_gib_store() {
    let state = gib_store();
    let (code, out, rss) = peak_rss(
        state.path(),
        &["report", "--run", "small", "--format", "json"],
    );
    assert_eq!(code, 0);
    let report: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(report["runs"][0]["run"]["run_id"], "small");
    assert_eq!(
        report["runs"][0]["samples"].as_array().map(Vec::len),
        Some(8)
    );
    assert!(rss < RSS_LIMIT_KIB, "report --run small: {rss} KiB");

    let (code, out, rss) = peak_rss(state.path(), &["report", "--list", "--limit", "1"]);
    assert_eq!(code, 0);
    let listed = String::from_utf8_lossy(&out);
    assert_eq!(listed.lines().count(), 2, "a header and the last run");
    assert!(listed.lines().nth(1).unwrap().starts_with("small2 "));
    assert!(rss < RSS_LIMIT_KIB, "report --list --limit 1: {rss} KiB");

    let (code, _, rss) = peak_rss(state.path(), &["compare", "small", "small2"]);
    assert_eq!(code, 0);
    assert!(rss < RSS_LIMIT_KIB, "compare small small2: {rss} KiB");
    // The store (1 GiB) goes with the temporary directory.
    drop(state);
}
