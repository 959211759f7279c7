//! A big store must not make every report big: a report of one run, a list and a
//! comparison read every line but keep (and parse whole) only the runs they show.
//!
//! Its own test binary: a child's peak RSS as wait4 reports it includes the spawning
//! process's peak at the exec (Linux folds the old address space's high-water mark in),
//! so the test process must stay small; it does here, and the figure is an upper bound.

mod common;

use common::store_lines::{run_record, sample};
use serde_json::Value;
use std::process::Command;

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
    // The figures are upper bounds only while this process stays small (see above).
    let own = std::fs::read_to_string("/proc/self/status").unwrap();
    eprintln!(
        "{}",
        own.lines().find(|l| l.starts_with("VmHWM")).unwrap_or("?")
    );
    // The store (1 GiB) goes with the temporary directory.
    drop(state);
}
