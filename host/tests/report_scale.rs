//! A big run must not make the store unreadable: a report of 20 000 samples per arm
//! stays within a small address space, and listing or reporting another run costs
//! what that run costs, not what the biggest run in the store would.

mod common;

use common::store_lines::{run_record, sample};
use serde_json::Value;
use std::process::Command;

/// Per-process address-space limit: today's report of 20k samples per arm needs a few
/// tens of MiB; every pairwise difference (m×n) would need 3.2 GB.
const AS_LIMIT: &str = "--as=1073741824";

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
