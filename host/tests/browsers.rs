//! End to end in real browsers, headless, with nothing attached: `unobserved run` as a
//! user types it. A missing browser fails these tests loudly; the README's test
//! command installs both browsers first.

use serde_json::{json, Value};
use std::process::Command;
use unobserved::domain::arm::{ArmKind, BodyKind};

mod common;
use common::runs::{
    assert_matches_schema, assert_printed_as_stored, run_in, run_with, Outcome, StateDir,
    ONE_AT_A_TIME,
};
use common::BIN;

/// The state dir is named relatively, as a person may type it: the native host the
/// browser starts from another folder must keep its records in the same one.
fn run(browser: &str) -> Outcome {
    let plan = ["--size", "2MiB", "--reps", "2", "--warmup", "1"];
    run_in(browser, &plan, StateDir::Relative)
}

/// One side of a comparison, as its typed arm (its label left out).
fn typed(side: &Value) -> Value {
    let mut arm = side["arm"].clone();
    arm.as_object_mut()
        .expect("a side names its arm")
        .remove("label");
    arm
}

fn arm<'a>(json: &'a Value, body: &str) -> Vec<&'a Value> {
    json["samples"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["body"] == body)
        .collect()
}

/// Everything true of any browser's run.
fn common_checks(o: &Outcome, browser_name: &str) {
    let j = &o.json;
    assert_eq!(j["run"]["browser"], browser_name);
    assert_eq!(j["run"]["status"], "complete");
    assert_eq!(
        j["run"]["observed"], "no",
        "nothing was attached, and the run must say so"
    );
    assert_eq!(
        j["samples"].as_array().unwrap().len(),
        8,
        "2 reps x 4 kinds"
    );
    assert_eq!(j["summary"].as_array().unwrap().len(), 4);
    for s in j["samples"].as_array().unwrap() {
        assert_eq!(s["observed"]["webdriver"], false);
        assert_eq!(s["bytes_sent"], 2 * 1024 * 1024);
    }
    for kind in ["Uint8Array", "ArrayBuffer", "Blob"] {
        for s in arm(j, kind) {
            assert_eq!(s["status"], "ok", "{kind}: {s}");
            assert_eq!(s["intact"], true);
            assert_eq!(s["sha256_received"], s["sha256_sent"]);
            // Mbps is the page's span over the bytes, and the sink's first-to-last-byte
            // time lies inside that span (the reply leaves at the last byte).
            let (page_ms, sink_ms) = (
                s["page_ms"].as_f64().unwrap(),
                s["sink_ms"].as_f64().unwrap(),
            );
            let expected = 2.0 * 1024.0 * 1024.0 * 8.0 / (page_ms / 1000.0) / 1e6;
            assert!(
                (s["mbps"].as_f64().unwrap() - expected).abs() < 1e-6 * expected,
                "{s}"
            );
            assert!(sink_ms > 0.0 && sink_ms <= page_ms + 1.0, "{s}");
        }
    }
    timelines_in_every_format(o);
    // The samples are in the store, not just in the JSON.
    let stored = std::fs::read_to_string(o.state.path().join("results.jsonl")).unwrap();
    let stored_samples = stored
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["kind"] == "sample")
        .count();
    assert_eq!(stored_samples, 8);
    // And the table printed to stdout is the stored run's, every arm of it.
    printed_as_stored(o);
    // No debugger or automation flag on the command line that was launched.
    let command: Vec<String> = serde_json::from_value(j["launch"]["command"].clone()).unwrap();
    for arg in &command {
        let a = arg.to_lowercase();
        assert!(
            !a.contains("remote-debugging")
                && !a.contains("marionette")
                && !a.contains("enable-automation"),
            "{arg}"
        );
    }
    // The browser's whole process group is gone, and so is the throwaway profile.
    let profile = command
        .iter()
        .find_map(|a| a.strip_prefix("--user-data-dir=").map(str::to_owned))
        .or_else(|| {
            command
                .iter()
                .position(|a| a == "-profile")
                .map(|i| command[i + 1].clone())
        })
        .expect("profile on the command line");
    assert!(
        !std::path::Path::new(&profile).exists(),
        "throwaway profile {profile} left behind"
    );
    let survivors: Vec<String> = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| std::fs::read(e.ok()?.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.contains(&profile))
        .collect();
    assert!(
        survivors.is_empty(),
        "browser processes outlived the run: {survivors:?}"
    );
}

/// `o`'s stdout is the table of the run it stored.
fn printed_as_stored(o: &Outcome) {
    let id = o.json["run"]["run_id"].as_str().expect("a run id");
    assert_printed_as_stored(&o.stdout, o.state.path(), id);
}

/// Every intact sample carries the sink's arrival record, bounded and ending at the
/// bytes received; every intact arm has phases (typed, in JSON: that the text formats
/// show them is `export/phases`'s unit tests'), its CSV rows the phase columns, and the
/// HTML draws it.
fn timelines_in_every_format(o: &Outcome) {
    let j = &o.json;
    let intact: Vec<&Value> = j["samples"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["intact"] == true)
        .collect();
    assert!(!intact.is_empty());
    for s in &intact {
        let t = &s["timeline"];
        let points: Vec<(f64, u64)> = serde_json::from_value(t["points"].clone())
            .unwrap_or_else(|e| panic!("an intact sample without a timeline ({e}): {s}"));
        assert!(!points.is_empty() && points.len() <= 512, "{t}");
        assert!(
            points
                .windows(2)
                .all(|w| w[0].0 <= w[1].0 && w[0].1 < w[1].1),
            "{t}"
        );
        assert_eq!(
            Some(points.last().unwrap().1),
            s["bytes_received"].as_u64(),
            "{s}"
        );
        assert_eq!(t["bytes"], s["bytes_received"]);
    }
    let mut arms: Vec<&str> = intact.iter().map(|s| s["body"].as_str().unwrap()).collect();
    arms.sort();
    arms.dedup();
    let phases = j["phases"].as_array().unwrap();
    for arm in &arms {
        let p = phases.iter().find(|p| p["arm"]["label"] == *arm);
        let p = p.unwrap_or_else(|| panic!("no phases for {arm}: {phases:?}"));
        assert!(p["median"]["wire_ms"].as_f64().unwrap() > 0.0, "{p}");
    }
    let report = |format: &str| common::report(o.state.path(), &["--format", format]);
    let csv = report("csv");
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let wire = header
        .iter()
        .position(|h| *h == "wire_ms")
        .expect("wire_ms");
    let ok = header.iter().position(|h| *h == "intact").unwrap();
    // Split on commas: the intact rows hold no quoted cell (no error text).
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    let intact_rows: Vec<&Vec<&str>> = rows.iter().filter(|r| r[ok] == "true").collect();
    assert_eq!(intact_rows.len(), intact.len());
    assert!(
        intact_rows.iter().all(|r| r[wire].parse::<f64>().is_ok()),
        "{csv}"
    );
    let html = report("html");
    for arm in &arms {
        let svg = format!(r#"<svg class="timeline" data-arm="{arm}""#);
        let at = html
            .find(&svg)
            .unwrap_or_else(|| panic!("no chart of {arm}"));
        let chart = &html[at..at + html[at..].find("</svg>").unwrap()];
        assert!(chart.contains(r#"class="arrival""#), "{chart}");
        assert!(html.contains(&format!(r#"<g class="phase-bar" data-arm="{arm}">"#)));
    }
}

#[test]
fn chromium_runs_the_suite_and_refuses_stream_bodies_over_http1() {
    // Chromium's own temporary folders go in the throwaway workspace (its TMPDIR), so a
    // run leaves no /tmp/org.chromium.Chromium.* behind.
    let chromium_tmp = || {
        std::fs::read_dir(std::env::temp_dir())
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with("org.chromium.Chromium.")
            })
            .count()
    };
    let before = chromium_tmp();
    let o = run("chromium");
    assert_eq!(
        chromium_tmp(),
        before,
        "the run left Chromium temp folders in /tmp"
    );
    common_checks(&o, "Chromium");
    for s in arm(&o.json, "ReadableStream") {
        assert_eq!(s["status"], "unsupported", "{s}");
        assert_eq!(s["error"], "fetch-rejected", "{s}");
        assert_eq!(
            s["rejection"], "TypeError: Failed to fetch",
            "the browser's own error text, in its own field"
        );
        assert!(s["bytes_received"].is_null(), "nothing arrived");
    }
    // Its summary row counts both uploads unsupported, with no speed (the row's words
    // are stats' and export's unit tests' to pin).
    stream_summary(&o.json, json!({"unsupported": 2}));
}

/// The ReadableStream row of the summary: its arm, typed, and its count of each status;
/// no median, as no upload of it arrived whole.
fn stream_summary(j: &Value, statuses: Value) {
    let row = &j["summary"].as_array().unwrap()[3];
    assert_eq!(
        typed(row),
        json!({"kind": "body", "body": "ReadableStream"})
    );
    assert_eq!(row["statuses"], statuses, "{row}");
    assert!(row["median_mbps"].is_null(), "{row}");
}

#[test]
fn chromium_negative_control_compares_the_baseline_with_itself_and_stores_it() {
    let o = run_with(
        "chromium",
        &[
            "--size",
            "2MiB",
            "--reps",
            "4",
            "--warmup",
            "1",
            "--bodies",
            "Uint8Array,Blob",
            "--negative-control",
        ],
    );
    let j = &o.json;
    assert_eq!(j["run"]["status"], "complete");
    let replicas: Vec<&Value> = j["samples"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["arm"]["repeat"] == true)
        .collect();
    assert_eq!(replicas.len(), 4, "one A/A upload per rep");
    for s in &replicas {
        assert_eq!(s["arm"]["body"], "Uint8Array");
        assert_eq!(s["status"], "ok", "{s}");
    }
    let nc = &j["negative_control"];
    assert_eq!(
        typed(&nc["arm"]),
        json!({"kind": "body", "body": "Uint8Array", "repeat": true})
    );
    assert_eq!(
        typed(&nc["baseline"]),
        json!({"kind": "body", "body": "Uint8Array"})
    );
    let verdict = nc["verdict"].as_str().unwrap();
    assert!(
        ["faster", "slower", "same", "not-resolved"].contains(&verdict),
        "{nc}"
    );
    // Every figure comes back from the store alone: the report regenerates the verdict.
    let again = Command::new(BIN)
        .args(["report", "--run", "last", "--format", "json"])
        .env("UNOBSERVED_STATE_DIR", o.state.path())
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_matches_schema(&report);
    assert_eq!(report["schema_version"], 3);
    assert_eq!(report["runs"][0]["negative_control"], *nc);
    // The A/A arm has its own summary row, typed; the printed table is the stored run's.
    let rows: Vec<Value> = j["summary"].as_array().unwrap().iter().map(typed).collect();
    assert!(
        rows.contains(&json!({"kind": "body", "body": "Uint8Array", "repeat": true})),
        "{rows:?}"
    );
    printed_as_stored(&o);
}

#[test]
fn firefox_uploads_the_text_of_a_stream_body_and_it_is_caught() {
    let o = run("firefox");
    common_checks(&o, "Firefox");
    for s in arm(&o.json, "ReadableStream") {
        assert_eq!(s["status"], "corrupted", "{s}");
        assert_eq!(s["intact"], false);
        assert_eq!(s["bytes_received"], 23);
        assert_eq!(s["head"], "[object ReadableStream]");
        assert_eq!(
            s["sha256_received"],
            "7559c3628a54a498b715edbbb9a0f16fc65e94eaaf185b41e91f6bddf1a8e02e"
        );
    }
    stream_summary(&o.json, json!({"corrupted": 2}));
}

/// The positive control: with the extension's own debugger attached (Network domain on),
/// typed-array uploads must be much slower. A correctness check with a wide margin
/// (~13x is typical here), not a timing test.
#[test]
fn chromium_control_reproduces_the_debugger_slowdown() {
    let o = run_with(
        "chromium",
        &[
            "--control",
            "--size",
            "16MiB",
            "--reps",
            "3",
            "--warmup",
            "1",
            "--bodies",
            "Uint8Array,Blob",
            "--api",
            "fetch,xhr",
        ],
    );
    let j = &o.json;
    assert_eq!(j["run"]["status"], "complete");
    assert_eq!(
        j["run"]["observed"], "yes",
        "half of a control run is observed by construction"
    );
    let row = |body: &str, api: Option<&str>| {
        j["control"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["arm"]["body"] == body && c["arm"]["api"].as_str() == api)
            .unwrap_or_else(|| panic!("no control row for {body} {api:?}: {}", j["control"]))
    };
    // The control covers the XHR arms too (BENCHMARKS.md has what it measured there):
    // each has both halves, measured.
    for body in ["Uint8Array", "Blob"] {
        let xhr = row(body, Some("xhr"));
        for half in ["attached_median_mbps", "detached_median_mbps"] {
            assert!(
                xhr[half].as_f64().unwrap() > 0.0,
                "{body} xhr {half}: {xhr}"
            );
        }
    }
    let u8 = row("Uint8Array", None);
    let (attached, detached) = (
        u8["attached_median_mbps"].as_f64().unwrap(),
        u8["detached_median_mbps"].as_f64().unwrap(),
    );
    assert!(
        detached >= 5.0 * attached,
        "Uint8Array: {attached:.0} Mbps attached vs {detached:.0} detached; expected at least 5x"
    );
    for s in j["samples"].as_array().unwrap() {
        assert_eq!(
            s["observed"]["debugger_attached"],
            s["arm"]["condition"] == "attached",
            "{s}"
        );
        assert_eq!(s["status"], "ok");
    }
    // Where the cost lies: not on the wire. The time a debugger adds to a Uint8Array
    // upload is spent before its first byte and after its last (the phases).
    let phase = |condition: &str, name: &str| {
        let p = j["phases"].as_array().unwrap().iter().find(|p| {
            p["arm"]["body"] == "Uint8Array"
                && p["arm"]["api"].is_null()
                && p["arm"]["condition"] == condition
        });
        p.unwrap_or_else(|| panic!("no {condition} phases: {}", j["phases"]))["median"][name]
            .as_f64()
            .unwrap()
    };
    let total = |c: &str| phase(c, "preparing_ms") + phase(c, "wire_ms") + phase(c, "reply_ms");
    let added = total("attached") - total("detached");
    let on_wire = phase("attached", "wire_ms") - phase("detached", "wire_ms");
    assert!(added > 0.0 && on_wire < 0.1 * added, "{}", j["phases"]);
    assert!(
        phase("attached", "preparing_ms") > 2.0 * phase("detached", "preparing_ms"),
        "{}",
        j["phases"]
    );
    printed_as_stored(&o);
}

/// The write-up's workloads, small: every encrypted chunk's tag verifies at the sink,
/// downloads are intact, parallel uploads arrive whole.
#[test]
fn chromium_workloads_verify_every_chunk_and_download() {
    let o = run_with(
        "chromium",
        &[
            "--workloads",
            "encrypted,download,parallel",
            "--file-size",
            "6MiB",
            "--chunk-sizes",
            "2MiB",
            "--size",
            "2MiB",
            "--streams",
            "1,2",
            "--reps",
            "4",
            "--warmup",
            "0",
        ],
    );
    let j = &o.json;
    assert_eq!(j["run"]["status"], "complete");
    let samples = j["samples"].as_array().unwrap();
    assert_eq!(
        samples.len(),
        4 * 5,
        "4 reps x (2 schedules + download + 2 stream counts)"
    );
    for s in samples {
        assert_eq!(s["status"], "ok", "{s}");
        assert_eq!(s["intact"], true);
    }
    let encrypted: Vec<_> = samples
        .iter()
        .filter(|s| s["arm"]["kind"] == "encrypted")
        .collect();
    assert_eq!(encrypted.len(), 8);
    // The workloads' own comparisons: pipelined against serial, x2 against x1, each with
    // one of the four verdicts (which one is the machine's business, not the test's).
    let vs: Vec<(Value, Value, String)> = j["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                typed(&c["arm"]),
                typed(&c["baseline"]),
                c["verdict"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let chunked =
        |schedule| json!({"kind": "encrypted", "chunk_bytes": 2 << 20, "schedule": schedule});
    let streams = |n| json!({"kind": "parallel", "streams": n});
    for (arm, baseline) in [
        (chunked("pipelined"), chunked("serial")),
        (streams(2), streams(1)),
    ] {
        let found = vs.iter().find(|(a, b, _)| *a == arm && *b == baseline);
        let (_, _, verdict) = found.unwrap_or_else(|| panic!("no {arm} vs {baseline}: {vs:?}"));
        assert!(
            ["faster", "slower", "same", "not-resolved"].contains(&verdict.as_str()),
            "{verdict}"
        );
    }
    for s in &encrypted {
        assert_eq!(s["chunks"], 3);
        assert_eq!(s["tags_ok"], 3, "every tag verified: {s}");
        assert_eq!(s["bytes_received"], 6 * 1024 * 1024);
        assert_eq!(
            s["timeline"]["requests"].as_array().unwrap().len(),
            3,
            "{s}"
        );
    }
    chunk_gaps(&encrypted);
    for s in samples.iter().filter(|s| s["arm"]["kind"] == "parallel") {
        let requests = s["timeline"]["requests"].as_array().unwrap().len();
        assert_eq!(Some(requests as u64), s["arm"]["streams"].as_u64(), "{s}");
        assert_eq!(s["timeline"]["bytes"], s["bytes_received"]);
    }
    let downloads: Vec<_> = samples
        .iter()
        .filter(|s| s["arm"]["kind"] == "download")
        .collect();
    assert_eq!(downloads.len(), 4);
    assert!(downloads
        .iter()
        .all(|d| d["sha256_received"] == d["sha256_sent"]));
    assert_eq!(j["encrypted"].as_array().unwrap().len(), 2);
    for row in j["encrypted"].as_array().unwrap() {
        let (c, p) = (
            row["client_ms"].as_f64().unwrap(),
            row["put_ms"].as_f64().unwrap(),
        );
        let ceiling = row["pipelining_ceiling"].as_f64().unwrap();
        assert!((ceiling - c / p).abs() < 1e-9, "client / PUT: {row}");
    }
}

/// The sink's timeline of an encrypted upload: serial leaves a gap (a stall) between
/// chunks while the page encrypts the next; pipelined leaves shorter ones.
fn chunk_gaps(encrypted: &[&Value]) {
    let median = |schedule: &str, field: &str| {
        let mut v: Vec<f64> = encrypted
            .iter()
            .filter(|s| s["arm"]["schedule"] == schedule)
            .map(|s| s["timeline"][field].as_f64().unwrap())
            .collect();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    assert!(
        median("serial", "stall_count") >= 2.0,
        "a gap between each chunk"
    );
    assert!(
        median("pipelined", "stalled_ms") < median("serial", "stalled_ms"),
        "pipelined {} ms of gaps, serial {}",
        median("pipelined", "stalled_ms"),
        median("serial", "stalled_ms")
    );
}

/// A separate `unobserved sink` process stands in for a server on the LAN: the
/// extension uploads there from its own page, and the results are stored locally. What
/// the remote sink took is read from its own typed record: each sample's receipt is the
/// record the host claimed from that sink's ledger, and the run's ceilings before and
/// after the arms are the host's own uploads to it.
#[test]
fn uploads_to_a_remote_sink_are_verified_and_stored_locally() {
    let sink = common::SinkProcess::start(&["--listen", "127.0.0.1:0"]);
    let o = run_with(
        "chromium",
        &[
            "--sink-url",
            sink.url.as_str(),
            "--size",
            "1MiB",
            "--reps",
            "2",
            "--warmup",
            "0",
            "--bodies",
            "Uint8Array,Blob",
        ],
    );
    drop(sink);
    let run = &o.json["run"];
    assert_eq!(run["status"], "complete");
    assert_eq!(run["sink"], "remote", "{run}");
    let samples = o.json["samples"].as_array().unwrap();
    assert_eq!(samples.len(), 4);
    // Claimed from the remote sink's ledger, one record per upload, each of the whole body.
    let claimed: std::collections::BTreeSet<&str> = samples
        .iter()
        .filter(|s| s["receipt"] == "found" && s["bytes_received"] == 1 << 20)
        .filter_map(|s| s["upload_id"].as_str())
        .collect();
    assert_eq!(
        claimed.len(),
        4,
        "the remote sink took every upload: {samples:?}"
    );
    assert!(samples
        .iter()
        .all(|s| s["status"] == "ok" && s["sha256_received"] == s["sha256_sent"]));
    // The host's own rounds to the same sink, before the arms and after them.
    let before = run["sink_ceiling_mbps"].as_f64().unwrap_or(0.0);
    let (lo, hi) = (&run["sink_ceiling_range"][0], &run["sink_ceiling_range"][1]);
    assert!(
        before > 0.0 && lo.as_f64() <= Some(before) && hi.as_f64() >= Some(before),
        "the link's own ceiling, measured by the host's client to the remote sink: {run}"
    );
    assert!(
        run["ceilings_after"]["h1"]["receive_mbps"].as_f64() > Some(0.0),
        "and again after the arms: {run}"
    );
    assert!(
        run["sink_hash_mbps"].is_null(),
        "the local hasher says nothing of a remote sink"
    );
}

#[test]
fn firefox_has_no_control_and_it_is_a_usage_error() {
    let out = Command::new(BIN)
        .args(["run", "--browser", "firefox", "--control", "--quiet"])
        .env("UNOBSERVED_STATE_DIR", tempfile::tempdir().unwrap().path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// `unobserved run` of one stream-body upload in `browser`, with `--fail-on <outcomes>`:
/// its exit code, its stdout and its state dir.
fn stream_body_run(browser: &str, fail_on: &str) -> (Option<i32>, String, tempfile::TempDir) {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let state = tempfile::tempdir().unwrap();
    let out = Command::new(BIN)
        .args([
            "run",
            "--browser",
            browser,
            "--bodies",
            "ReadableStream",
            "--size",
            "64KiB",
        ])
        .args([
            "--reps",
            "1",
            "--warmup",
            "0",
            "--quiet",
            "--fail-on",
            fail_on,
        ])
        .env("UNOBSERVED_STATE_DIR", state.path())
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        state,
    )
}

#[test]
fn fail_on_names_the_outcomes_that_fail_a_ci_gate() {
    // Firefox uploads the text of a stream body: corrupted.
    let (code, stdout, state) = stream_body_run("firefox", "corrupted");
    assert_eq!(code, Some(5));
    // The table is still printed: the stored run's, byte for byte.
    assert_printed_as_stored(&stdout, state.path(), "last");
    // Chromium refuses it over HTTP/1.1: unsupported, which is not corruption.
    assert_eq!(stream_body_run("chromium", "corrupted").0, Some(0));
    assert_eq!(stream_body_run("chromium", "unsupported").0, Some(5));
    assert_eq!(stream_body_run("chromium", "corrupted,error").0, Some(0));
}

#[test]
fn an_extension_that_never_connects_is_exit_4_and_no_run_is_recorded() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let ext = tempfile::tempdir().unwrap();
    std::fs::write(
        ext.path().join("manifest.json"),
        r#"{"manifest_version":3,"name":"silent","version":"1.0"}"#,
    )
    .unwrap();
    let state = tempfile::tempdir().unwrap();
    let out = Command::new(BIN)
        .args([
            "run",
            "--browser",
            "chromium",
            "--quiet",
            "--connect-timeout",
            "5",
            "--extension-dir",
        ])
        .arg(ext.path())
        .env("UNOBSERVED_STATE_DIR", state.path())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(4),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stored = std::fs::read_to_string(state.path().join("results.jsonl")).unwrap_or_default();
    assert!(
        !stored
            .lines()
            .any(|l| serde_json::from_str::<Value>(l).is_ok_and(|v| v["kind"] == "run")),
        "no extension spoke, so no run began: {stored}"
    );
}

#[test]
fn a_missing_browser_is_a_clear_error_with_its_own_exit_code() {
    let out = Command::new(BIN)
        .args([
            "run",
            "--browser",
            "chromium",
            "--browser-path",
            "/nonexistent/chromium",
            "--quiet",
        ])
        .env("UNOBSERVED_STATE_DIR", tempfile::tempdir().unwrap().path())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(unobserved::platform::exit::BROWSER_MISSING),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `--auto` with one arm has nothing to compare, so only a budget can end it: what ended
/// it is recorded, and the header says how many reps it took.
#[test]
fn auto_runs_until_a_budget_ends_it_and_says_which() {
    let common = [
        "--size",
        "1MiB",
        "--warmup",
        "0",
        "--bodies",
        "Uint8Array",
        "--auto",
    ];
    let by_reps = run_with(
        "chromium",
        &[&common[..], &["--reps", "3", "--max-reps", "5"]].concat(),
    );
    assert_eq!(arm(&by_reps.json, "Uint8Array").len(), 5);
    assert_eq!(by_reps.json["run"]["auto_stop"], "budget-reps");
    // What the header says of it (`export/`'s unit tests pin its words): the reps it took
    // and where it started, typed, and the printed table is the stored run's.
    let plan = &by_reps.json["run"]["plan"];
    assert_eq!(
        (&plan["reps"], &plan["auto"]["max_reps"]),
        (&json!(3), &json!(5))
    );
    printed_as_stored(&by_reps);

    let by_time = run_with(
        "chromium",
        &[
            &common[..],
            // The most reps a plan may have (domain/plan/validate.rs): far more than 2 s allows.
            &["--reps", "3", "--max-reps", "1000", "--max-time", "2"],
        ]
        .concat(),
    );
    let n = arm(&by_time.json, "Uint8Array").len();
    assert!((3..1000).contains(&n), "{n}");
    assert_eq!(by_time.json["run"]["auto_stop"], "budget-time");
}

/// The cross-browser matrix: the same plan in Chromium and Firefox ESR, one stored run
/// each, one table with both.
/// `unobserved run --browser chromium,firefox` with Uint8Array and Blob and `extra`;
/// it must exit 0. Returns its stdout and its --json document.
fn run_matrix(state: &std::path::Path, extra: &[&str]) -> (String, Value) {
    let json_path = state.join("matrix.json");
    let out = Command::new(BIN)
        .args(["run", "--browser", "chromium,firefox", "--warmup", "0"])
        .args(["--bodies", "Uint8Array,Blob", "--quiet"])
        .args(extra)
        .arg("--json")
        .arg(&json_path)
        .env("UNOBSERVED_STATE_DIR", state)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&std::fs::read(&json_path).unwrap()).unwrap();
    assert_matches_schema(&doc);
    for run in doc["runs"].as_array().unwrap() {
        common::runs::assert_judged_from_the_ledger(run);
    }
    (stdout, doc)
}

#[test]
fn the_matrix_runs_chromium_and_firefox_and_prints_one_table_of_both() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let state = tempfile::tempdir().unwrap();
    let (stdout, doc) = run_matrix(state.path(), &["--size", "1MiB", "--reps", "4"]);
    let browsers: Vec<&str> = doc["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["run"]["browser"].as_str().unwrap())
        .collect();
    assert_eq!(browsers, ["Chromium", "Firefox"]);
    // Two runs in the store, each ended complete (the store's typed run_end records),
    // and `report --list` lists both, by id.
    let stored = std::fs::read_to_string(state.path().join("results.jsonl")).unwrap();
    let ended: Vec<Value> = stored
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["kind"] == "run_end")
        .collect();
    assert_eq!(ended.len(), 2, "{ended:?}");
    assert!(ended.iter().all(|e| e["status"] == "complete"), "{ended:?}");
    let list = Command::new(BIN)
        .args(["report", "--list", "--format", "json"])
        .env("UNOBSERVED_STATE_DIR", state.path())
        .output()
        .unwrap();
    assert!(list.status.success());
    let listed: Value = serde_json::from_slice(&list.stdout).unwrap();
    let id = |r: &Value| r["run_id"].as_str().unwrap().to_owned();
    let ids: Vec<String> = listed["runs"].as_array().unwrap().iter().map(id).collect();
    let run_ids: Vec<String> = doc["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| id(&r["run"]))
        .collect();
    assert_eq!(ids, run_ids);
    // The matrix: the stored runs compared, Chromium first, one row per arm with each
    // browser's median and Firefox's ratio to Chromium.
    let (compared, matrix) = matrix_of_stored(state.path(), &ids);
    assert_eq!(compared.sides, [[ids[0].clone()], [ids[1].clone()]]);
    let bodies: Vec<&ArmKind> = compared.arms.iter().map(|a| &a.arm.kind).collect();
    let body = |body| ArmKind::Body { body };
    assert_eq!(bodies, [&body(BodyKind::Uint8Array), &body(BodyKind::Blob)]);
    for a in &compared.arms {
        assert!(a.medians.iter().all(Option::is_some), "{a:?}");
        assert!(
            a.versus_first[0]
                .as_ref()
                .is_some_and(|x| x.comparison.ratio > 0.0),
            "{a:?}"
        );
    }
    // And `run` printed it: each run's stored table, then that matrix, byte for byte.
    let table = |id: &str| common::report(state.path(), &["--run", id, "--format", "table"]);
    assert_eq!(
        stdout,
        format!("{}{}\n{matrix}\n", table(&ids[0]), table(&ids[1]))
    );
}

/// The stored runs `ids` compared as `run --browser a,b` compares them (the default
/// horizon, the first the baseline), and that comparison in the terminal table's words.
fn matrix_of_stored(
    state: &std::path::Path,
    ids: &[String],
) -> (unobserved::report::across::RunsCompared, String) {
    use unobserved::export::{compared::browser_labels, table::Table, Exporter};
    use unobserved::report::{across, load_run, TimelinePoints};
    let store = unobserved::store::Store::in_dir(state);
    let runs: Vec<_> = ids
        .iter()
        .map(|id| {
            load_run(&store, id, TimelinePoints::Drop)
                .unwrap()
                .expect("a stored run")
        })
        .collect();
    let compared = across::compare_runs(&runs, unobserved::stats::compare::DEFAULT_HORIZON);
    let text = Table { colour: false }.render_compared(&compared, &browser_labels(&runs));
    (compared, text)
}

/// `--auto` across browsers: rounds interleave the browsers, the first round runs
/// --reps and each later one two more, and no browser passes --max-reps. (When to stop
/// is the seeded simulation's job: cli::matrix_auto's tests.)
#[test]
fn auto_across_browsers_adds_interleaved_rounds_within_the_budget() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let state = tempfile::tempdir().unwrap();
    let (_, doc) = run_matrix(
        state.path(),
        &[
            "--auto",
            "--reps",
            "4",
            "--max-reps",
            "8",
            "--size",
            "256KiB",
        ],
    );
    let runs: Vec<(&str, u64)> = doc["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["run"]["browser"].as_str().unwrap(),
                r["run"]["plan"]["reps"].as_u64().unwrap(),
            )
        })
        .collect();
    assert!(runs.len() >= 2 && runs.len().is_multiple_of(2), "{runs:?}");
    for (i, (browser, reps)) in runs.iter().enumerate() {
        let round = i / 2;
        assert_eq!(
            *browser,
            ["Chromium", "Firefox"][i % 2],
            "interleaved: {runs:?}"
        );
        assert_eq!(*reps, if round == 0 { 4 } else { 2 }, "{runs:?}");
    }
    for browser in ["Chromium", "Firefox"] {
        let total: u64 = runs.iter().filter(|r| r.0 == browser).map(|r| r.1).sum();
        assert!(total <= 8, "{browser}: {total} reps past --max-reps 8");
    }
    // Every round's run judged nothing itself.
    assert!(doc["runs"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["run"]["plan"]["auto"].is_null()));
}
