//! `unobserved compare` and `report --list` through the binary, on stores written the
//! way the host writes them.

use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;

mod common;
use common::BIN;

/// A run of Uint8Array and Blob with these Mbps per rep.
fn store_run(state: &Path, id: &str, u8: &[f64], blob: &[f64]) {
    store_calibrated(state, id, u8, blob, None)
}

/// The same, with the machine calibrations a host records at the run's start and end.
fn store_calibrated(state: &Path, id: &str, u8: &[f64], blob: &[f64], cpu_ms: Option<(f64, f64)>) {
    let mut lines = vec![json!({"kind": "run", "run_id": id, "browser": "Chromium",
        "browser_version": "156", "os": "Linux", "extension_version": "0.1.0", "source": "job",
        "started_at": "2026-11-30T10:00:00Z",
        "plan": {"size_bytes": 1048576, "reps": u8.len(), "warmup": 0, "bodies": ["Uint8Array", "Blob"]},
        "host_version": "0.1.0", "recorded_at": "2026-11-30T10:00:00Z"})];
    for (body, speeds) in [("Uint8Array", u8), ("Blob", blob)] {
        for (rep, mbps) in speeds.iter().enumerate() {
            lines.push(
                json!({"kind": "sample", "run_id": id, "body": body, "rep": rep,
                "bytes_sent": 1048576, "bytes_received": 1048576, "sha256_sent": "a",
                "sha256_received": "a", "intact": true, "status": "ok", "error": null,
                "page_ms": 1.0, "sink_ms": 0.9, "mbps": mbps, "observed": {"webdriver": false}}),
            );
        }
    }
    if let Some((start, end)) = cpu_ms {
        for (moment, ms) in [("start", start), ("end", end)] {
            lines.push(json!({"kind": "machine", "run_id": id, "moment": moment,
                "cpu_ms": ms, "recorded_at": "2026-11-30T10:00:30Z"}));
        }
    }
    lines.push(
        json!({"kind": "run_end", "run_id": id, "status": "complete", "reason": null,
        "recorded_at": "2026-11-30T10:01:00Z"}),
    );
    let mut text = std::fs::read_to_string(state.join("results.jsonl")).unwrap_or_default();
    for l in lines {
        text += &(l.to_string() + "\n");
    }
    std::fs::write(state.join("results.jsonl"), text).unwrap();
}

fn unobserved(state: &Path, args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(BIN)
        .args(args)
        .env("UNOBSERVED_STATE_DIR", state)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

const BASE: [f64; 6] = [2400.0, 2420.0, 2380.0, 2410.0, 2390.0, 2405.0];
const SLOWER: [f64; 6] = [1700.0, 1710.0, 1690.0, 1705.0, 1695.0, 1702.0];
const BLOB: [f64; 6] = [3300.0, 3310.0, 3290.0, 3305.0, 3295.0, 3302.0];

#[test]
fn fail_if_slower_trips_on_a_regression_and_not_on_an_improvement() {
    let state = tempfile::tempdir().unwrap();
    store_run(state.path(), "before", &BASE, &BLOB);
    store_run(state.path(), "after", &SLOWER, &BLOB);
    let (code, table) = unobserved(
        state.path(),
        &["compare", "before", "after", "--fail-if-slower", "10"],
    );
    assert_eq!(code, Some(6), "{table}");
    // The other way round, the same data is an improvement: the gate stays open where
    // every interval clears the bound. One run a side, the unchanged Blob's interval
    // (widened for run-to-run drift) reaches past 10%: the gate cannot tell there.
    let gate = |a: &str, b: &str, pct: &str| {
        unobserved(state.path(), &["compare", a, b, "--fail-if-slower", pct]).0
    };
    assert_eq!(gate("after", "before", "25"), Some(0));
    assert_eq!(gate("after", "before", "10"), Some(7));
    // A bound well beyond the 29% regression does not trip either.
    assert_eq!(gate("before", "after", "50"), Some(0));
}

#[test]
fn compare_gives_a_verdict_per_arm_in_json_and_finds_runs_by_position() {
    let state = tempfile::tempdir().unwrap();
    store_run(state.path(), "before", &BASE, &BLOB);
    store_run(state.path(), "after", &SLOWER, &BLOB);
    let (code, text) = unobserved(
        state.path(),
        &["compare", "last~1", "last", "--format", "json"],
    );
    assert_eq!(code, Some(0));
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["sides"], json!([["before"], ["after"]]));
    let verdict = |arm: &str| {
        v["arms"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["arm"]["body"] == arm)
            .unwrap()["versus_first"][0]
            .clone()
    };
    assert_eq!(verdict("Uint8Array")["verdict"], "slower");
    // One run a side: the interval is widened for run-to-run drift, wider than ±5%.
    assert_eq!(verdict("Blob")["verdict"], "not-resolved");
    assert_eq!(verdict("Blob")["method"]["kind"], "drift-allowance");
    assert_eq!(v["machine"]["kind"], "unchecked", "no calibrations stored");
    assert_eq!(
        unobserved(state.path(), &["compare", "nope", "last"]).0,
        Some(2)
    );
}

#[test]
fn report_list_shows_each_run_once_and_limit_keeps_the_newest() {
    let state = tempfile::tempdir().unwrap();
    for id in ["r1", "r2", "r3"] {
        store_run(state.path(), id, &BASE, &BLOB);
    }
    let (code, list) = unobserved(state.path(), &["report", "--list"]);
    assert_eq!(code, Some(0));
    let rows: Vec<&str> = list.lines().skip(1).collect();
    assert_eq!(
        rows.iter()
            .map(|r| r.split_whitespace().next().unwrap())
            .collect::<Vec<_>>(),
        ["r1", "r2", "r3"]
    );
    let (_, newest) = unobserved(state.path(), &["report", "--list", "--limit", "1"]);
    assert_eq!(
        newest
            .lines()
            .skip(1)
            .map(|r| r.split_whitespace().next().unwrap())
            .collect::<Vec<_>>(),
        ["r3"]
    );
}

#[test]
fn report_list_as_json_gives_each_runs_head_typed_and_refuses_other_formats() {
    let state = tempfile::tempdir().unwrap();
    for id in ["r1", "r2"] {
        store_run(state.path(), id, &BASE, &BLOB);
    }
    let (code, out) = unobserved(state.path(), &["report", "--list", "--format", "json"]);
    assert_eq!(code, Some(0), "{out}");
    let list: serde_json::Value = serde_json::from_str(&out).expect("--list --format json is JSON");
    assert_eq!(list["schema_version"], 3);
    let runs = list["runs"].as_array().unwrap();
    let ids: Vec<&str> = runs.iter().map(|r| r["run_id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["r1", "r2"]);
    assert!(runs.iter().all(|r| r["status"] == "complete"), "{out}");
    // A listing has no CSV, Markdown or HTML form: a usage error, before the store is read.
    for format in ["csv", "markdown", "html"] {
        let (code, _) = unobserved(state.path(), &["report", "--list", "--format", format]);
        assert_eq!(code, Some(2), "{format}");
    }
}

/// Three builds at once: every later run against the first, in every format; the HTML
/// draws one bar per arm and run; the gate trips if any later run regressed.
#[test]
fn compare_takes_several_runs_and_every_format() {
    let state = tempfile::tempdir().unwrap();
    store_run(state.path(), "one", &BASE, &BLOB);
    store_run(state.path(), "two", &BASE, &BLOB);
    store_run(state.path(), "three", &SLOWER, &BLOB);
    let s = state.path();
    let (code, csv) = unobserved(s, &["compare", "one", "two", "three", "--format", "csv"]);
    assert_eq!(code, Some(0));
    // Two arms × two later runs.
    assert_eq!(csv.lines().count(), 1 + 4, "{csv}");
    assert!(
        csv.lines()
            .any(|l| l.starts_with("Uint8Array,one,three,") && l.ends_with(",slower")),
        "{csv}"
    );
    let (_, html) = unobserved(s, &["compare", "one", "two", "three", "--format", "html"]);
    assert_eq!(
        html.matches(r#"<rect class="bar""#).count(),
        2 * 3,
        "{html}"
    );
    let (_, md) = unobserved(
        s,
        &["compare", "one", "two", "three", "--format", "markdown"],
    );
    assert!(
        md.lines()
            .any(|l| l.starts_with("| Arm | one | two | vs one | three | vs one |")),
        "{md}"
    );
    let (code, _) = unobserved(
        s,
        &["compare", "one", "two", "three", "--fail-if-slower", "10"],
    );
    assert_eq!(code, Some(6), "the third run is 29% slower on Uint8Array");
    let (code, _) = unobserved(s, &["compare", "one"]);
    assert_eq!(code, Some(2), "one run is nothing to compare");
}

/// Several runs a side: each run one figure, and the interval holds their spread.
#[test]
fn several_runs_a_side_are_compared_as_clusters() {
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    let scaled = |v: &[f64], k: f64| v.iter().map(|x| x * k).collect::<Vec<_>>();
    for (i, k) in [1.0, 1.02, 0.98].into_iter().enumerate() {
        store_run(s, &format!("a{i}"), &scaled(&BASE, k), &scaled(&BLOB, k));
        store_run(
            s,
            &format!("b{i}"),
            &scaled(&SLOWER, k),
            &scaled(&BLOB, 1.0 / k),
        );
    }
    let (code, text) = unobserved(s, &["compare", "a0,a1,a2", "b0, b1,b2", "--format", "json"]);
    assert_eq!(code, Some(0), "{text}");
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["sides"], json!([["a0", "a1", "a2"], ["b0", "b1", "b2"]]));
    for arm in v["arms"].as_array().unwrap() {
        let c = &arm["versus_first"][0];
        assert_eq!(
            c["method"],
            json!({"kind": "clusters", "runs": 3, "baseline_runs": 3})
        );
        let want = if arm["arm"]["body"] == "Uint8Array" {
            "slower"
        } else {
            "same"
        };
        assert_eq!(c["verdict"], want, "{c}");
    }
    assert_eq!(
        unobserved(
            s,
            &["compare", "a0,a1,a2", "b0,b1,b2", "--fail-if-slower", "10"]
        )
        .0,
        Some(6)
    );
    // A run named twice would be compared with itself.
    assert_eq!(unobserved(s, &["compare", "a0,a1", "a1,b2"]).0, Some(2));
    assert_eq!(
        unobserved(s, &["compare", "a0,", "b1"]).0,
        Some(2),
        "an empty id"
    );
}

/// A run during which the machine was slower (a busy loop, a parallel build) gets no
/// verdict, and the gate says it cannot tell (7) rather than pass or fail.
#[test]
fn a_run_on_a_slower_machine_is_not_comparable_and_the_gate_cannot_tell() {
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    store_calibrated(s, "quiet", &BASE, &BLOB, Some((20.0, 20.3)));
    store_calibrated(s, "busy", &SLOWER, &BLOB, Some((38.0, 41.0)));
    store_calibrated(s, "again", &SLOWER, &BLOB, Some((20.2, 20.9)));
    let (code, text) = unobserved(s, &["compare", "quiet", "busy", "--format", "json"]);
    assert_eq!(code, Some(0));
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["machine"]["kind"], "differs");
    assert_eq!(
        (&v["machine"]["slower"], &v["machine"]["than"]),
        (&json!("busy"), &json!("quiet"))
    );
    for arm in v["arms"].as_array().unwrap() {
        assert_eq!(arm["versus_first"][0]["verdict"], "not-comparable");
    }
    let gate =
        |b: &str, pct: &str| unobserved(s, &["compare", "quiet", b, "--fail-if-slower", pct]).0;
    assert_eq!(
        gate("busy", "10"),
        Some(7),
        "not comparable: neither pass nor fail"
    );
    assert_eq!(
        gate("again", "10"),
        Some(6),
        "on a quiet machine the regression trips"
    );
    // Unchanged, one run a side: the intervals (widened for drift) clear a 40% bound
    // but reach past a 1% one, so the gate cannot tell there.
    store_calibrated(s, "same", &BASE, &BLOB, Some((20.1, 20.4)));
    assert_eq!(gate("same", "40"), Some(0));
    assert_eq!(gate("same", "1"), Some(7));
}

/// The tag `run --runs N` writes beside each of its finished runs.
fn tag_series(state: &Path, id: &str, group: &str, index: u32, runs: u32) {
    let line = json!({"kind": "series", "run_id": id, "group": group, "index": index,
        "runs": runs, "recorded_at": "2026-11-30T10:01:01Z"});
    let mut text = std::fs::read_to_string(state.join("results.jsonl")).unwrap();
    text += &(line.to_string() + "\n");
    std::fs::write(state.join("results.jsonl"), text).unwrap();
}

/// A series of `run --runs N` is one side, found from the newest back or by its id.
#[test]
fn a_series_of_runs_is_one_side_named_by_position_or_id() {
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    let scaled = |v: &[f64], k: f64| v.iter().map(|x| x * k).collect::<Vec<_>>();
    for (i, k) in [1.0, 1.02, 0.98].into_iter().enumerate() {
        store_run(s, &format!("a{i}"), &scaled(&BASE, k), &scaled(&BLOB, k));
        tag_series(s, &format!("a{i}"), "ga", i as u32, 3);
    }
    // A run outside any series, between the two, belongs to neither.
    store_run(s, "loose", &BASE, &BLOB);
    for (i, k) in [0.99, 1.01].into_iter().enumerate() {
        store_run(s, &format!("b{i}"), &scaled(&SLOWER, k), &scaled(&BLOB, k));
        tag_series(s, &format!("b{i}"), "gb", i as u32, 2);
    }
    let json_of = |args: &[&str]| {
        let (code, text) = unobserved(s, args);
        assert_eq!(code, Some(0), "{text}");
        serde_json::from_str::<Value>(&text).unwrap()
    };
    let v = json_of(&[
        "compare",
        "series:last~1",
        "series:last",
        "--format",
        "json",
    ]);
    assert_eq!(v["sides"], json!([["a0", "a1", "a2"], ["b0", "b1"]]));
    for arm in v["arms"].as_array().unwrap() {
        let c = &arm["versus_first"][0];
        assert_eq!(
            c["method"],
            json!({"kind": "clusters", "runs": 2, "baseline_runs": 3})
        );
    }
    let by_id = json_of(&["compare", "series:ga", "series:gb", "--format", "json"]);
    assert_eq!(by_id["sides"], v["sides"]);
    // The report of a run says which series it is in.
    let report = json_of(&["report", "--run", "b1", "--format", "json"]);
    let run = &report["runs"][0]["run"];
    assert_eq!(
        run["series"],
        json!({"group": "gb", "index": 1, "runs": 2}),
        "{run}"
    );
    // A series that is not there is a usage error, like a run that is not.
    for missing in ["series:last~2", "series:nope", "series:", "series:last~x"] {
        assert_eq!(
            unobserved(s, &["compare", missing, "series:last"]).0,
            Some(2),
            "{missing}"
        );
    }
}

/// A run like `store_run` whose plan also ran the workload module `up` with this code.
fn store_module_run(state: &Path, id: &str, sha256: &str) {
    store_run(state, id, &BASE, &BLOB);
    let path = state.join("results.jsonl");
    let text: String = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            if v["kind"] == "run" && v["run_id"] == id {
                v["plan"]["modules"] = json!([{"name": "up", "sha256": sha256, "bytes": 100}]);
            }
            v.to_string() + "\n"
        })
        .collect();
    std::fs::write(path, text).unwrap();
}

#[test]
fn runs_of_one_module_name_with_different_code_are_refused_with_exit_8() {
    let state = tempfile::tempdir().unwrap();
    let s = state.path();
    store_module_run(s, "v1", &"a".repeat(64));
    store_module_run(s, "v1b", &"a".repeat(64));
    store_module_run(s, "v2", &"b".repeat(64));
    let (same, _) = unobserved(s, &["compare", "v1", "v1b", "--format", "json"]);
    assert_eq!(same, Some(0), "one module's same code is compared");
    for args in [
        &["compare", "v1", "v2"][..],
        &[
            "compare",
            "v1",
            "v2",
            "--format",
            "json",
            "--fail-if-slower",
            "10",
        ],
        &["compare", "v1,v2", "v1b"],
    ] {
        let (code, out) = unobserved(s, args);
        assert_eq!(code, Some(8), "{args:?}");
        assert!(out.is_empty(), "nothing is compared: {out}");
    }
}
