//! The session answered frame by frame, with a real sink and a real store in a temp dir.

use super::*;
use crate::verify::fit::RunBook;
use serde_json::{json, Value};

fn session(dir: &std::path::Path) -> Session {
    let sink = Sink::start(SinkConfig::default()).unwrap();
    sink.ledger().open_run("r1", 100).unwrap();
    Session {
        store: Store::in_dir(dir),
        sink,
        job_file: None,
        tls: Default::default(),
        job_tls: None,
        started: [("r1".to_owned(), RunBook::new(plan(false)))].into(),
        job: None,
        remote: Default::default(),
        own_processes: crate::conditions::this_process(),
        browser_gap: None,
        conditions: Default::default(),
        job_modules: Vec::new(),
        state_dir: None,
    }
}

/// The plan of the runs these tests start: 3-byte Blobs and 4 streams of 3 bytes, 8 reps;
/// with the positive control, each attached and detached.
fn plan(control: bool) -> crate::domain::plan::Plan {
    serde_json::from_value(
        json!({"size_bytes": 3, "reps": 8, "warmup": 0, "bodies": ["Blob"],
        "control": control, "workloads": {"parallel": {"bytes": 3, "streams": [4]}}}),
    )
    .unwrap()
}

fn frame(body: &[u8]) -> Vec<u8> {
    let mut v = (body.len() as u32).to_ne_bytes().to_vec();
    v.extend_from_slice(body);
    v
}

fn replies(out: &[u8]) -> Vec<Value> {
    let mut r = out;
    std::iter::from_fn(|| read_frame(&mut r).unwrap())
        .map(|b| serde_json::from_slice(&b).unwrap())
        .collect()
}

fn talk(session: &mut Session, wire: Vec<u8>) -> (i32, Vec<Value>) {
    let mut out = Vec::new();
    let code = serve(session, &mut &wire[..], &mut out);
    (code, replies(&out))
}

fn sample(run_id: &str) -> Value {
    json!({"run_id": run_id, "body": "Blob", "rep": 0, "bytes_sent": 3, "bytes_received": 3,
           "sha256_sent": "x", "sha256_received": "x", "intact": true, "status": "ok", "error": null,
           "page_ms": 1.0, "sink_ms": 0.5, "mbps": 0.02, "observed": {"webdriver": false}})
}

#[test]
fn hello_reports_the_sink_with_a_token_in_the_upload_url() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = session(dir.path());
    let (code, r) = talk(&mut s, frame(br#"{"type":"hello"}"#));
    assert_eq!(code, EXIT_OK);
    assert_eq!(r[0]["type"], "hello");
    let base = r[0]["sink"]["base_url"].as_str().unwrap();
    assert!(base.starts_with("http://127.0.0.1:"), "{base}");
    let upload = r[0]["sink"]["upload_url"].as_str().unwrap();
    assert!(upload.starts_with(&format!("{base}/upload/")) && upload.len() > base.len() + 8 + 31);
    assert!(r[0]["job"].is_null());
}

#[test]
fn a_job_is_offered_once() {
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("job.json");
    std::fs::write(
        &job,
        json!({"run_id":"r1","plan":{"size_bytes":1024,"reps":1,"warmup":0,"bodies":["Blob"]}})
            .to_string(),
    )
    .unwrap();
    let mut s = session(dir.path());
    s.job_file = Some(job.clone());
    let mut wire = frame(br#"{"type":"hello"}"#);
    wire.extend(frame(br#"{"type":"hello"}"#));
    let (_, r) = talk(&mut s, wire);
    assert_eq!(r[0]["job"]["run_id"], "r1");
    assert_eq!(r[0]["job"]["plan"]["bodies"][0], "Blob");
    assert!(r[1]["job"].is_null(), "second hello gets no job");
    assert!(!job.exists() && job.with_extension("claimed").exists());
}

#[test]
fn a_jobs_tls_key_stays_in_the_host() {
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("job.json");
    let tls = json!({"cert": {"cert_pem": "CERT", "key_pem": "SECRET KEY"},
        "listeners": [{"transport": "h2", "port": 4433}]});
    let plan = json!({"size_bytes":1024,"reps":1,"warmup":0,"bodies":["Blob"],"transports":["h2"]});
    std::fs::write(
        &job,
        json!({"run_id":"r1","plan":plan,"tls":tls}).to_string(),
    )
    .unwrap();
    let mut s = session(dir.path());
    s.job_file = Some(job);
    let (_, r) = talk(&mut s, frame(br#"{"type":"hello"}"#));
    assert_eq!(r[0]["job"]["run_id"], "r1");
    assert!(r[0]["job"].get("tls").is_none(), "{}", r[0]);
    assert_eq!(
        s.job_tls.map(|t| t.cert.key_pem).as_deref(),
        Some("SECRET KEY"),
        "kept for run-started"
    );
}

#[test]
fn samples_are_stored_then_acknowledged_with_the_count() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = session(dir.path());
    let mut second = sample("r1");
    second["rep"] = json!(1);
    let msg = json!({"type":"samples","run_id":"r1","samples":[sample("r1"), second]});
    let (_, r) = talk(&mut s, frame(msg.to_string().as_bytes()));
    assert_eq!(r[0], json!({"type":"samples-ack","run_id":"r1","count":2}));
    assert_eq!(s.store.read().unwrap().records.len(), 2);
}

#[test]
fn every_stored_sample_carries_its_arm_typed() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = session(dir.path());
    s.started.insert("r1".into(), RunBook::new(plan(true)));
    let mut attached = sample("r1");
    attached["condition"] = json!("attached");
    let mut parallel = sample("r1");
    parallel["body"] = json!("parallel x4");
    parallel["streams"] = json!(4);
    parallel["condition"] = json!("detached");
    parallel["bytes_sent"] = json!(12);
    let msg = json!({"type":"samples","run_id":"r1","samples":[attached, parallel]});
    talk(&mut s, frame(msg.to_string().as_bytes()));
    let text = std::fs::read_to_string(s.store.path()).unwrap();
    let arms: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["arm"].clone())
        .collect();
    assert_eq!(
        arms,
        [
            json!({"kind": "body", "body": "Blob", "condition": "attached"}),
            json!({"kind": "parallel", "streams": 4, "condition": "detached"})
        ]
    );
}

/// The stored samples' (status, intact) pairs, in order.
fn stored_verdicts(s: &Session) -> Vec<(String, bool)> {
    let text = std::fs::read_to_string(s.store.path()).unwrap_or_default();
    text.lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["kind"] == "sample")
        .map(|v| {
            (
                v["status"].as_str().unwrap().to_owned(),
                v["intact"].as_bool().unwrap(),
            )
        })
        .collect()
}

/// Uploads `body` to the session's sink over loopback HTTP under `upload`, as a page does.
fn upload(s: &Session, upload: &str, body: &[u8]) -> u16 {
    let url = format!("{}?run=r1&upload={upload}", s.sink.upload_url());
    match ureq::put(&url).send(body) {
        // The verdict is in the body: read it, as the page does, before the sample goes.
        Ok(mut r) => {
            r.body_mut().read_to_string().unwrap();
            r.status().as_u16()
        }
        Err(ureq::Error::StatusCode(code)) => code,
        Err(e) => panic!("{e}"),
    }
}

fn sha_hex(body: &[u8]) -> String {
    hex::encode(ring::digest::digest(&ring::digest::SHA256, body))
}

/// What the page claims about the received side is never read: the sink's record is.
#[test]
fn the_sinks_record_decides_never_the_pages_claim() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = session(dir.path());
    assert_eq!(upload(&s, "u1", b"abc"), 200);
    assert_eq!(upload(&s, "u2", b"abd"), 200);
    let claim = |id: &str, claimed_sha: &str| {
        let mut c = sample("r1");
        c["rep"] = json!(id[1..].parse::<u32>().unwrap());
        c["upload_id"] = json!(id);
        c["sha256_sent"] = json!(sha_hex(b"abc"));
        c["sha256_received"] = json!(claimed_sha);
        c
    };
    let samples = [
        // Whole at the sink; the page claims another hash.
        claim("u1", "y"),
        // Other bytes at the sink; the page claims they were right.
        claim("u2", &sha_hex(b"abc")),
        // Never uploaded.
        claim("u3", &sha_hex(b"abc")),
    ];
    let msg = json!({"type":"samples","run_id":"r1","samples":samples});
    let (_, r) = talk(&mut s, frame(msg.to_string().as_bytes()));
    assert_eq!(r[0]["type"], "samples-ack");
    assert_eq!(
        stored_verdicts(&s),
        [
            ("ok".to_owned(), true),
            ("corrupted".to_owned(), false),
            ("error".to_owned(), false)
        ]
    );
}

#[test]
fn messages_for_a_run_this_session_never_started_are_refused_and_nothing_is_stored() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = session(dir.path());
    let ghost = |m: Value| frame(m.to_string().as_bytes());
    let mut wire = ghost(json!({"type":"samples","run_id":"ghost","samples":[sample("ghost")]}));
    wire.extend(ghost(
        json!({"type":"auto-check","run_id":"ghost","reps_done":3}),
    ));
    wire.extend(ghost(
        json!({"type":"workload-key","run_id":"ghost","key":"00".repeat(32)}),
    ));
    wire.extend(ghost(
        json!({"type":"run-finished","run_id":"ghost","status":"complete"}),
    ));
    let (_, r) = talk(&mut s, wire);
    let codes: Vec<_> = r.iter().map(|m| m["code"].as_u64()).collect();
    assert_eq!(codes, [Some(15); 4], "{r:?}");
    assert!(s.store.read().unwrap().records.is_empty());
}

#[test]
fn every_bad_input_gets_its_error_and_the_session_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = session(dir.path());
    let mut wire = Vec::new();
    wire.extend((crate::protocol::MAX_INCOMING + 1).to_ne_bytes());
    wire.extend(vec![b' '; crate::protocol::MAX_INCOMING as usize + 1]);
    wire.extend(0u32.to_ne_bytes());
    wire.extend(frame(b"\xc3\x28"));
    wire.extend(frame(b"{oops"));
    wire.extend(frame(br#"{"no":"type"}"#));
    wire.extend(frame(br#"{"type":"format-disk"}"#));
    wire.extend(frame(
        br#"{"type":"samples","run_id":"r1","samples":[{"run_id":"r1","bytes_sent":"many"}]}"#,
    ));
    wire.extend(frame(
        json!({"type":"samples","run_id":"../../etc","samples":[]})
            .to_string()
            .as_bytes(),
    ));
    wire.extend(frame(
        json!({"type":"samples","run_id":"r1","samples":[sample("r2")]})
            .to_string()
            .as_bytes(),
    ));
    wire.extend(frame(br#"{"type":"hello"}"#));
    let (code, r) = talk(&mut s, wire);
    assert_eq!(code, EXIT_OK);
    let codes: Vec<_> = r.iter().map(|m| m["code"].as_u64()).collect();
    assert_eq!(
        codes,
        [
            Some(1),
            Some(2),
            Some(4),
            Some(5),
            Some(6),
            Some(7),
            Some(8),
            Some(11),
            Some(8),
            None
        ]
    );
    assert!(r[..9]
        .iter()
        .all(|m| m["type"] == "error" && m["message"].as_str().unwrap().len() > 5));
    assert_eq!(r[9]["type"], "hello", "still answering after all that");
    assert!(
        s.store.read().unwrap().records.is_empty(),
        "nothing bad was stored"
    );
}

#[test]
fn a_truncated_frame_ends_the_session_without_losing_stored_samples() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = session(dir.path());
    let mut wire = frame(
        json!({"type":"samples","run_id":"r1","samples":[sample("r1")]})
            .to_string()
            .as_bytes(),
    );
    wire.extend(100u32.to_ne_bytes());
    wire.extend(b"{\"type\":");
    let (code, r) = talk(&mut s, wire);
    assert_eq!(code, EXIT_DESYNC);
    assert_eq!(r[0]["type"], "samples-ack");
    assert_eq!(r[1]["code"], 3);
    assert_eq!(s.store.read().unwrap().records.len(), 1);
}

#[test]
fn a_plan_that_breaks_a_rule_gets_error_16_with_its_kind_and_nothing_is_stored() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = session(dir.path());
    let good = json!({"size_bytes": 1024, "reps": 1, "warmup": 0, "bodies": ["Blob"]});
    let bad = [
        ("reps", json!(0), "reps-out-of-range"),
        ("size_bytes", json!(0), "size-too-small"),
        ("size_bytes", json!(5u64 << 30), "size-too-large"),
        ("bodies", json!(["Blob", "Foo"]), "unknown-body"),
        ("bodies", json!([]), "no-arms"),
        ("transports", json!(["h2", "h2"]), "repeated-transport"),
    ];
    let mut wire = Vec::new();
    for (field, value, _) in &bad {
        let mut plan = good.clone();
        plan[field] = value.clone();
        let run = json!({"type": "run-started", "run": {"run_id": "r2", "plan": plan}});
        wire.extend(frame(run.to_string().as_bytes()));
    }
    let (_, r) = talk(&mut s, wire);
    let got: Vec<_> = r
        .iter()
        .map(|m| (m["code"].clone(), m["kind"].clone()))
        .collect();
    let want: Vec<_> = bad
        .iter()
        .map(|(_, _, kind)| (json!(16), json!(kind)))
        .collect();
    assert_eq!(got, want, "{r:?}");
    assert!(r.iter().all(|m| m["in_reply_to"] == "run-started"));
    assert!(s.store.read().unwrap().records.is_empty(), "no run record");
    assert!(!s.started.contains_key("r2"), "samples for it stay refused");
}

#[test]
fn run_lifecycle_is_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = session(dir.path());
    let mut wire = frame(json!({"type":"run-started","run":{"run_id":"r1","browser":"Firefox","plan":{"size_bytes":1024,"reps":1,"warmup":0,"bodies":["Blob"]}}}).to_string().as_bytes());
    wire.extend(frame(
        br#"{"type":"run-finished","run_id":"r1","status":"complete"}"#,
    ));
    wire.extend(frame(br#"{"type":"error","message":"tab closed"}"#));
    // A late second end must not overwrite the first.
    wire.extend(frame(
        br#"{"type":"run-finished","run_id":"r1","status":"incomplete","reason":"orphaned"}"#,
    ));
    let (_, r) = talk(&mut s, wire);
    assert_eq!(r[0]["type"], "run-started");
    assert_eq!(r[0]["run_id"], "r1");
    // The sink measured itself, and stored the median with its spread around it.
    let ceiling = r[0]["sink_ceiling_mbps"].as_f64().unwrap();
    let stored = serde_json::to_value(&s.store.read().unwrap().records[0].1).unwrap();
    let (lo, hi) = (
        stored["sink_ceiling_range"][0].as_f64().unwrap(),
        stored["sink_ceiling_range"][1].as_f64().unwrap(),
    );
    assert!(0.0 < lo && lo <= ceiling && ceiling <= hi, "{stored}");
    assert_eq!(stored["sink_ceiling_mbps"], r[0]["sink_ceiling_mbps"]);
    // The end is answered with the run's analysis, which the popup shows.
    assert_eq!(
        (&r[1]["type"], &r[1]["run_id"]),
        (&json!("run-finished"), &json!("r1"))
    );
    assert!(r[1]["analysis"]["arms"].is_array(), "{}", r[1]);
    assert_eq!(r[2], json!({"type":"error-logged"}));
    let kinds: Vec<_> = s
        .store
        .read()
        .unwrap()
        .records
        .iter()
        .map(|(_, r)| serde_json::to_value(r).unwrap()["kind"].clone())
        .collect();
    assert_eq!(
        kinds,
        [
            json!("run"),
            json!("machine"),
            json!("conditions"),
            json!("ceiling_after"),
            json!("machine"),
            json!("run_end")
        ],
        "a calibration at the start and at the end, the block's conditions, the sink's ceiling after the arms, and exactly one end, the first"
    );
    let moments: Vec<_> = s
        .store
        .read()
        .unwrap()
        .records
        .into_iter()
        .filter_map(|(_, r)| match r {
            Record::Machine(m) => Some((m.moment, m.cpu_ms > 0.0)),
            _ => None,
        })
        .collect();
    assert_eq!(
        moments,
        [
            (crate::conditions::calibrate::Moment::Start, true),
            (crate::conditions::calibrate::Moment::End, true)
        ]
    );
    assert_eq!(r[3], json!({"type":"run-finished","run_id":"r1"}));
}

#[cfg(unix)]
#[test]
fn a_store_that_cannot_be_written_is_reported_and_nothing_partial_is_left() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("ro");
    std::fs::create_dir(&state).unwrap();
    let mut s = session(&state);
    // A directory where the file should be makes every append fail, even as root.
    std::fs::create_dir(state.join(crate::store::FILE_NAME)).unwrap();
    let msg = json!({"type":"samples","run_id":"r1","samples":[sample("r1")]});
    let (_, r) = talk(&mut s, frame(msg.to_string().as_bytes()));
    assert_eq!(
        (&r[0]["code"], &r[0]["in_reply_to"]),
        (&json!(10), &json!("samples"))
    );
    // Nothing was written in the store's place, not even part of a line.
    let left = std::fs::read_dir(state.join(crate::store::FILE_NAME)).unwrap();
    assert_eq!(left.count(), 0);
}

#[test]
fn a_reply_over_the_1_mib_limit_is_replaced_by_error_9_and_never_sent() {
    // An error whose message alone is 2 MiB: a reply the browser would refuse.
    let huge = Outgoing::error(ErrorCode::InvalidField, "x".repeat(2 << 20), None);
    let mut out = Vec::new();
    super::send(&mut out, &huge).unwrap();
    assert!(out.len() < 4096, "{} bytes went out", out.len());
    let r = replies(&out);
    assert_eq!(r.len(), 1);
    assert_eq!((&r[0]["type"], &r[0]["code"]), (&json!("error"), &json!(9)));
}

/// The error each message got: (code, kind), and what the store then holds.
fn refusals(s: &mut Session, messages: &[Value]) -> Vec<(Value, Value)> {
    let wire: Vec<u8> = messages
        .iter()
        .flat_map(|m| frame(m.to_string().as_bytes()))
        .collect();
    let (_, r) = talk(s, wire);
    r.iter()
        .map(|m| (m["code"].clone(), m["kind"].clone()))
        .collect()
}

fn samples_of(samples: &[Value]) -> Value {
    json!({"type": "samples", "run_id": "r1", "samples": samples})
}

#[test]
fn samples_outside_the_plan_get_error_18_with_their_rule_and_nothing_is_stored() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = session(dir.path());
    let with = |fields: Value| {
        let mut c = sample("r1");
        for (k, v) in fields.as_object().unwrap() {
            c[k] = v.clone();
        }
        c
    };
    let cases = [
        // An arm the plan does not have, written as an arm or in the old fields.
        (
            vec![with(json!({"arm": {"kind": "body", "body": "Uint8Array"}}))],
            "arm-not-planned",
        ),
        (
            vec![with(json!({"arm": {"kind": "download"}}))],
            "arm-not-planned",
        ),
        (
            vec![with(json!({"body": "parallel", "streams": 3}))],
            "arm-not-planned",
        ),
        (
            vec![with(json!({"rep": 4_000_000_000u32}))],
            "rep-out-of-range",
        ),
        (vec![with(json!({"rep": 8}))], "rep-out-of-range"),
        (vec![with(json!({"bytes_sent": 10}))], "size-not-planned"),
        (
            vec![with(json!({"bytes_sent": 4 << 20}))],
            "size-not-planned",
        ),
        (vec![sample("r1"), sample("r1")], "repeated"),
        (vec![sample("r1"); 65], "too-many-in-message"),
    ];
    for (samples, kind) in cases {
        let got = refusals(&mut s, &[samples_of(&samples)]);
        assert_eq!(got, [(json!(18), json!(kind))], "{kind}");
    }
    assert!(s.store.read().unwrap().records.is_empty());
}

/// 2^62 streams was a loop over every stream id, holding the host (and `serve`'s one
/// lock) at 100% CPU: refused before anything is looked up.
#[test]
fn a_sample_of_two_to_the_62_streams_is_refused_in_milliseconds() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = session(dir.path());
    let mut huge = sample("r1");
    huge["upload_id"] = json!("p");
    huge["arm"] = json!({"kind": "parallel", "streams": 1u64 << 62});
    let t = std::time::Instant::now();
    let got = refusals(&mut s, &[samples_of(&[huge])]);
    assert_eq!(got, [(json!(18), json!("arm-not-planned"))]);
    assert!(
        t.elapsed() < std::time::Duration::from_secs(1),
        "{:?}",
        t.elapsed()
    );
}

#[test]
fn a_pages_unknown_fields_are_dropped_and_each_rep_is_taken_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = session(dir.path());
    let mut fat = sample("r1");
    fat["junk"] = json!("x".repeat(250 << 10));
    fat["observed"] =
        json!({"webdriver": false, "debugger_attached": false, "more": "y".repeat(1000)});
    fat["error"] = json!("e".repeat(100_000));
    fat["arm"] = json!({"kind": "body", "body": "Blob"});
    fat["body"] = json!("not the arm's label");
    fat["digest_ms"] = json!(1.5);
    let got = refusals(&mut s, &[samples_of(&[fat.clone()])]);
    assert_eq!(got, [(Value::Null, Value::Null)], "stored");
    let text = std::fs::read_to_string(s.store.path()).unwrap();
    assert!(text.len() < 4096, "{} bytes stored", text.len());
    let stored: Value = serde_json::from_str(text.trim()).unwrap();
    assert!(stored.get("junk").is_none() && stored["observed"].get("more").is_none());
    assert_eq!(stored["observed"]["debugger_attached"], false);
    assert_eq!(
        (&stored["body"], &stored["digest_ms"]),
        (&json!("Blob"), &json!(1.5))
    );
    // The same rep again, in another message: refused, and the store is as it was.
    let got = refusals(&mut s, &[samples_of(&[fat])]);
    assert_eq!(got, [(json!(18), json!("repeated"))]);
    assert_eq!(std::fs::read_to_string(s.store.path()).unwrap(), text);
}

#[test]
fn an_ended_run_takes_no_more_samples() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = session(dir.path());
    let plan = json!({"size_bytes": 1024, "reps": 2, "warmup": 0, "bodies": ["Blob"]});
    let mut late = sample("r9");
    late["bytes_sent"] = json!(1024);
    let wire = [
        json!({"type": "run-started", "run": {"run_id": "r9", "plan": plan}}),
        json!({"type": "run-finished", "run_id": "r9", "status": "complete"}),
        json!({"type": "samples", "run_id": "r9", "samples": [late]}),
    ];
    let got = refusals(&mut s, &wire);
    assert_eq!(got[2], (json!(18), json!("run-ended")));
    let samples = s
        .store
        .read()
        .unwrap()
        .records
        .iter()
        .filter(|(_, r)| matches!(r, Record::Sample(_)))
        .count();
    assert_eq!(samples, 0);
}

#[test]
fn hello_offers_registered_modules_and_one_that_changed_is_recorded_with_its_new_sha256() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let file = dir.path().join("up.mjs");
    let v1 = "export const unobserved = 1;\nexport default async () => {};\n";
    std::fs::write(&file, v1).unwrap();
    let name: crate::domain::arm::ModuleName = "up".parse().unwrap();
    let registry = crate::modules::registry::Registry::in_dir(&state);
    let added = registry.add(&name, &file).unwrap();
    let v2 = format!("{v1}// v2\n");
    std::fs::write(&file, &v2).unwrap();
    let mut s = session(&dir.path().join("store"));
    s.state_dir = Some(state);
    let start = json!({"type": "run-started", "run": {"run_id": "m1", "browser": "Firefox",
        "plan": {"size_bytes": 1024, "reps": 1, "warmup": 0, "bodies": [], "modules": [{"name": "up"}]}}});
    let mut wire = frame(br#"{"type":"hello"}"#);
    wire.extend(frame(start.to_string().as_bytes()));
    let (_, r) = talk(&mut s, wire);
    // hello offers it to the popup and Options as registered.
    assert_eq!(
        r[0]["modules"],
        json!([{"name": "up", "sha256": added.sha256, "bytes": v1.len()}])
    );
    assert_eq!(r[1]["type"], "run-started", "{}", r[1]);
    let stored = serde_json::to_value(&s.store.read().unwrap().records[0].1).unwrap();
    let module = &stored["plan"]["modules"][0];
    assert_eq!(module["sha256"], json!(sha_hex(v2.as_bytes())), "{stored}");
    assert_eq!(module["bytes"], json!(v2.len()));
    assert_eq!(module["registered_sha256"], json!(added.sha256));
    assert_ne!(module["sha256"], module["registered_sha256"]);
}
