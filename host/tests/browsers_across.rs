//! Comparing runs with a real Chromium: two identical runs give no "faster"/"slower";
//! a run during which the CPU was busy is not comparable (and the gate says it cannot
//! tell); `run --runs N` stores a series that compares as clusters; and builds run with
//! `--browser-path` twice take turns rep by rep and compare as within a run. Within a
//! run (issue 36): CPU-bound processes started halfway are recorded and the blocks
//! before and after are shown apart, each block in a benchmark page of its own; and a
//! `--load none,cpu` run stores both conditions and a verdict per condition.

mod common;
use common::runs::ONE_AT_A_TIME;
use common::BIN;
use serde_json::Value;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const CHROMIUM: &str = "/usr/lib/chromium/chromium";
const SMALL: [&str; 8] = [
    "--bodies",
    "Uint8Array,Blob",
    "--size",
    "4MiB",
    "--reps",
    "4",
    "--connect-timeout",
    "90",
];

fn unobserved(state: &Path, args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(BIN)
        .args(args)
        .env("UNOBSERVED_STATE_DIR", state)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

fn run(state: &Path, extra: &[&str]) {
    assert!(
        Path::new(CHROMIUM).is_file(),
        "{CHROMIUM} is missing: scripts/ensure-deps.sh installs Chromium"
    );
    let mut args = vec!["run", "--browser", "chromium", "--quiet"];
    args.extend(SMALL);
    args.extend(extra);
    let (code, out) = unobserved(state, &args);
    assert_eq!(
        code,
        Some(0),
        "`unobserved run` failed. Is Chromium installed (scripts/ensure-deps.sh)?\n{out}"
    );
}

fn compared(state: &Path) -> Value {
    compared_sides(state, "last~1", "last")
}

fn compared_sides(state: &Path, a: &str, b: &str) -> Value {
    let (code, text) = unobserved(state, &["compare", a, b, "--format", "json"]);
    assert_eq!(code, Some(0), "{text}");
    serde_json::from_str(&text).unwrap()
}

/// Every arm's verdict and method, against the first side.
fn verdicts(v: &Value) -> Vec<(String, String)> {
    let arms = v["arms"].as_array().unwrap();
    assert!(!arms.is_empty(), "no arm was compared: {v}");
    arms.iter()
        .map(|arm| {
            let c = &arm["versus_first"][0];
            assert!(c.is_object(), "too few intact samples to compare: {arm}");
            let text = |x: &Value| x.as_str().unwrap_or_default().to_owned();
            (text(&c["verdict"]), text(&c["method"]["kind"]))
        })
        .collect()
}

/// An A/A pair may be "same", "not resolved" or "not comparable", never a difference.
fn assert_no_difference(v: &Value) {
    for (verdict, _) in verdicts(v) {
        assert!(
            verdict != "faster" && verdict != "slower",
            "identical runs called {verdict}: {v}"
        );
    }
}

/// `--fail-if-slower` on an A/A pair: passes or cannot tell, never trips.
fn assert_gate_does_not_trip(state: &Path, a: &str, b: &str) {
    let (code, out) = unobserved(state, &["compare", a, b, "--fail-if-slower", "10"]);
    assert!(
        code == Some(0) || code == Some(7),
        "the gate tripped (or failed) on identical runs: {code:?}\n{out}"
    );
}

/// Busy processes, one per core, each a shell spinning; ended when dropped.
struct Busy(Vec<Child>);

impl Busy {
    fn start() -> Busy {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        Busy(
            (0..cores)
                .map(|_| {
                    Command::new("sh")
                        .args(["-c", "while :; do :; done"])
                        .stdin(Stdio::null())
                        .spawn()
                        .unwrap()
                })
                .collect(),
        )
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

#[test]
fn chromium_two_identical_runs_give_no_faster_or_slower_and_the_gate_does_not_trip() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let state = tempfile::tempdir().unwrap();
    run(state.path(), &[]);
    run(state.path(), &[]);
    let v = compared(state.path());
    assert_no_difference(&v);
    if v["machine"]["kind"] != "differs" {
        // One run a side: the interval is widened by the drift allowance.
        for (_, method) in verdicts(&v) {
            assert_eq!(method, "drift-allowance", "{v}");
        }
    }
    assert_gate_does_not_trip(state.path(), "last~1", "last");
}

#[test]
fn chromium_runs_n_stores_a_series_and_two_series_compare_as_clusters() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let state = tempfile::tempdir().unwrap();
    run(state.path(), &["--runs", "2"]);
    run(state.path(), &["--runs", "2"]);
    // Each run its own, tagged with its series and place once complete.
    let text = std::fs::read_to_string(state.path().join("results.jsonl")).unwrap();
    let records: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let runs: Vec<&str> = records
        .iter()
        .filter(|r| r["kind"] == "run")
        .map(|r| r["run_id"].as_str().unwrap())
        .collect();
    let tags: Vec<(&str, &str, u64)> = records
        .iter()
        .filter(|r| r["kind"] == "series")
        .map(|r| {
            assert_eq!(r["runs"], 2, "{r}");
            (
                r["run_id"].as_str().unwrap(),
                r["group"].as_str().unwrap(),
                r["index"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(runs.len(), 4, "four runs: {runs:?}");
    assert_eq!(
        tags.iter().map(|t| t.0).collect::<Vec<_>>(),
        runs,
        "every run tagged, in order"
    );
    assert_eq!(tags.iter().map(|t| t.2).collect::<Vec<_>>(), [0, 1, 0, 1]);
    assert!(tags[0].1 == tags[1].1 && tags[2].1 == tags[3].1 && tags[0].1 != tags[2].1);
    let v = compared_sides(state.path(), "series:last~1", "series:last");
    assert_eq!(
        v["sides"],
        serde_json::json!([[runs[0], runs[1]], [runs[2], runs[3]]])
    );
    assert_no_difference(&v);
    if v["machine"]["kind"] != "differs" {
        for (_, method) in verdicts(&v) {
            assert_eq!(method, "clusters", "{v}");
        }
    }
    assert_gate_does_not_trip(state.path(), "series:last~1", "series:last");
}

#[test]
fn chromium_a_run_on_a_busy_cpu_is_not_comparable_and_the_gate_cannot_tell() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let state = tempfile::tempdir().unwrap();
    run(state.path(), &[]);
    let busy = Busy::start();
    run(state.path(), &[]);
    drop(busy);
    let v = compared(state.path());
    let newest = v["sides"][1][0].clone();
    // The conditions each run recorded, not a timed task, decide: the busy run is the one
    // whose condition names the CPU, and runs in different conditions are not compared.
    assert_eq!(
        v["machine"]["kind"], "conditions-differ",
        "{}",
        v["machine"]
    );
    let cpu_busy = |run: &Value| {
        run[1].as_array().unwrap().iter().any(|c| {
            c["pressures"]
                .as_array()
                .unwrap()
                .contains(&Value::from("cpu"))
        })
    };
    let runs = v["machine"]["runs"].as_array().unwrap();
    let busy: Vec<&Value> = runs.iter().filter(|r| cpu_busy(r)).map(|r| &r[0]).collect();
    assert_eq!(busy, [&newest], "the busy run is named: {}", v["machine"]);
    for arm in v["arms"].as_array().unwrap() {
        let verdict = &arm["versus_first"][0]["verdict"];
        assert_eq!(verdict, "not-comparable", "{arm}");
    }
    let (code, out) = unobserved(
        state.path(),
        &["compare", "last~1", "last", "--fail-if-slower", "10"],
    );
    assert_eq!(
        code,
        Some(7),
        "neither pass nor fail on a busy machine\n{out}"
    );
}

#[test]
fn chromium_builds_given_twice_take_turns_rep_by_rep_and_compare_as_within_a_run() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let state = tempfile::tempdir().unwrap();
    run(
        state.path(),
        &["--browser-path", CHROMIUM, "--browser-path", CHROMIUM],
    );
    let v = compared(state.path());
    assert_eq!(v["machine"]["kind"], "interleaved");
    for arm in v["arms"].as_array().unwrap() {
        assert_eq!(
            arm["versus_first"][0]["method"]["kind"], "interleaved",
            "{arm}"
        );
    }
    // The store shows the turns: each build's rep (both arms) and then the other's.
    let text = std::fs::read_to_string(state.path().join("results.jsonl")).unwrap();
    let order: Vec<(String, u64)> = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r["kind"] == "sample")
        .map(|r| {
            (
                r["run_id"].as_str().unwrap().to_owned(),
                r["rep"].as_u64().unwrap(),
            )
        })
        .collect();
    let (a, b) = (&v["sides"][0][0], &v["sides"][1][0]);
    let expected: Vec<(String, u64)> = (0..4)
        .flat_map(|rep| [a, a, b, b].map(|id| (id.as_str().unwrap().to_owned(), rep)))
        .collect();
    assert_eq!(order, expected);
}

/// The store's records as they are now (a line being written is skipped).
fn records(state: &Path) -> Vec<Value> {
    std::fs::read_to_string(state.join("results.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Each block ran in a benchmark page of its own: page `load` b for block b.
fn assert_a_page_per_block(blocks: &[Value]) {
    for (b, block) in blocks.iter().enumerate() {
        assert_eq!(block["block"], b, "blocks in order: {block}");
        assert_eq!(
            block["page"],
            serde_json::json!({"kind": "own", "load": b}),
            "block {b} ran in a page of its own: {block}"
        );
    }
}

/// The run's one comparison (Blob against Uint8Array).
fn comparison(run: &Value) -> &Value {
    let all = run["comparisons"].as_array().unwrap();
    assert_eq!(all.len(), 1, "one comparison: {all:?}");
    &all[0]
}

#[test]
fn chromium_cpu_bound_processes_started_halfway_are_recorded_and_the_blocks_shown_apart() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let state = tempfile::tempdir().unwrap();
    let (json, log) = (state.path().join("run.json"), state.path().join("run.log"));
    let mut args = vec!["run", "--browser", "chromium", "--quiet"];
    args.extend(&SMALL[..4]);
    // Three blocks of three reps: block 0 quiet, the busy processes from block 1 on.
    args.extend(["--reps", "9", "--connect-timeout", "90"]);
    args.extend(["--json", json.to_str().unwrap()]);
    let mut child = Command::new(BIN)
        .args(&args)
        .env("UNOBSERVED_STATE_DIR", state.path())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    // Block 0's line is stored as block 1's first sample is: then the CPU gets busy.
    let deadline = Instant::now() + Duration::from_secs(180);
    let block_0_over = |r: &Value| r["kind"] == "conditions" && r["block"] == 0;
    while !records(state.path()).iter().any(block_0_over) {
        let running = child.try_wait().unwrap().is_none();
        assert!(
            running && Instant::now() < deadline,
            "no block ended: {}",
            std::fs::read_to_string(&log).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let busy = Busy::start();
    let status = child.wait().unwrap();
    drop(busy);
    let log = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(status.success(), "`unobserved run` failed: {status}\n{log}");
    let doc: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    common::runs::assert_matches_schema(&doc);
    let run = &doc["runs"][0];
    let blocks = run["run"]["blocks"].as_array().unwrap();
    assert_eq!(blocks.len(), 3, "{blocks:?}");
    assert_a_page_per_block(blocks);
    // The change is recorded, and the blocks before and after it are parts of their own.
    let changed: Vec<&Value> = run["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["kind"] == "condition-changed")
        .collect();
    assert_eq!(changed.len(), 1, "{}", run["warnings"]);
    let parts = changed[0]["parts"].as_array().unwrap();
    let part_of = |block: u64| {
        parts
            .iter()
            .find(|p| {
                p["blocks"]
                    .as_array()
                    .unwrap()
                    .contains(&Value::from(block))
            })
            .unwrap_or_else(|| panic!("block {block} is in no part: {parts:?}"))
    };
    let cpu = |p: &Value| {
        p["condition"]["pressures"]
            .as_array()
            .unwrap()
            .contains(&Value::from("cpu"))
    };
    assert!(!cpu(part_of(0)), "block 0 was quiet: {parts:?}");
    assert!(cpu(part_of(2)), "block 2 had the busy processes: {parts:?}");
    // The comparison is made per condition: a part for each.
    let c = comparison(run);
    let of_conditions = c["parts"].as_array().unwrap();
    assert!(
        of_conditions.len() >= 2 && of_conditions.iter().all(|p| p["of"] == "condition"),
        "{c}"
    );
}

#[test]
fn chromium_load_none_cpu_stores_both_conditions_and_a_verdict_per_condition() {
    // Two reps, raised to a whole block of 3 under each load (`Plan::minimum_reps`).
    let mut args = vec!["--load", "none,cpu", "--reps", "2"];
    args.extend(&SMALL[..4]);
    let out = common::runs::run_with("chromium", &args);
    let run = &out.json;
    let blocks = run["run"]["blocks"].as_array().unwrap();
    assert_eq!(blocks.len(), 2, "{blocks:?}");
    assert_a_page_per_block(blocks);
    let loads: Vec<&Value> = blocks.iter().map(|b| &b["load"]).collect();
    assert_eq!(loads, ["none", "cpu"], "{blocks:?}");
    // Stored as the host recorded them, not only in the report.
    let stored = records(out.state.path())
        .into_iter()
        .filter(|r| r["kind"] == "conditions")
        .count();
    assert_eq!(stored, 2);
    let c = comparison(run);
    let parts = c["parts"].as_array().unwrap();
    let per: Vec<(&Value, bool)> = parts
        .iter()
        .map(|p| (&p["condition"]["load"], p["verdict"].is_string()))
        .collect();
    assert_eq!(
        per,
        [(&Value::from("none"), true), (&Value::from("cpu"), true)],
        "a verdict per condition: {c}"
    );
}
