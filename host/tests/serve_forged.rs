//! Forged results over HTTP: a page of `unobserved serve` (or anything holding its URL)
//! that lies about what arrived. Real loopback uploads under upload ids, the real binary;
//! every stored sample must be what the sink received, never the page's claim.

mod common;

use common::serve::Serve;
use serde_json::{json, Value};

/// The bytes the page says it sent and the sink got: the plan's 1 KiB.
const SENT: &[u8] = &[b's'; 1024];

fn sha(bytes: &[u8]) -> String {
    hex::encode(ring::digest::digest(&ring::digest::SHA256, bytes))
}

/// A run started as a page starts it: its id, key and h1 upload URL.
fn started(serve: &Serve) -> (String, String, String) {
    let r = serve.call("POST", "start", None);
    assert_eq!(r.status, 200, "{r:?}");
    let s = |k: &str| r.body[k].as_str().unwrap().to_owned();
    (
        s("run_id"),
        s("run_key"),
        r.body["upload_urls"]["h1"].as_str().unwrap().to_owned(),
    )
}

/// `serve` offering 1 KiB Blob uploads, `reps` of them, no warm-up.
fn serve_blobs(reps: &str) -> Serve {
    Serve::start(
        &[
            "--size", "1KiB", "--reps", reps, "--warmup", "0", "--bodies", "Blob",
        ],
        false,
    )
}

/// The page's samples for `run`, sent with its key; the reply's status.
fn try_samples(serve: &Serve, run: &str, key: &str, samples: &[Value]) -> u16 {
    let r = serve.call(
        "POST",
        &format!("runs/{run}/samples"),
        Some(&json!({"key": key, "samples": samples})),
    );
    r.status
}

/// `try_samples`, which must be taken.
fn send_samples(serve: &Serve, run: &str, key: &str, samples: &[Value]) {
    assert_eq!(try_samples(serve, run, key, samples), 200);
}

fn upload(url: &str, run: &str, id: &str, body: &[u8]) {
    let mut r = ureq::put(&format!("{url}?run={run}&upload={id}"))
        .send(body)
        .unwrap();
    assert_eq!(r.status(), 200);
    let _ = r.body_mut().read_to_string();
}

/// What a lying page reports: SENT sent, SENT received, intact.
fn claim(id: &str) -> Value {
    json!({"body": "Blob", "rep": 0, "upload_id": id, "arm": {"kind": "body", "body": "Blob"},
        "bytes_sent": SENT.len(), "sha256_sent": sha(SENT),
        "bytes_received": SENT.len(), "sha256_received": sha(SENT),
        "intact": true, "status": "ok", "error": null, "page_ms": 1.0, "sink_ms": 0.5,
        "mbps": 99999.0, "observed": {"webdriver": false}})
}

fn stored_sample(serve: &Serve, id: &str) -> Value {
    serve
        .store()
        .into_iter()
        .find(|r| r["kind"] == "sample" && r["upload_id"] == id)
        .unwrap_or_else(|| panic!("no sample {id} stored"))
}

#[test]
fn forged_samples_are_stored_as_what_the_sink_received() {
    let serve = serve_blobs("4");
    let (run, key, url) = started(&serve);
    // The honest one, so the test can tell a judge that believes nothing from a broken one.
    upload(&url, &run, "honest", SENT);
    // Right id, other bytes: the sink got different ones of the same length, and fewer.
    let mut other = SENT.to_vec();
    other[0] ^= 1;
    upload(&url, &run, "flipped", &other);
    upload(&url, &run, "short", &SENT[..10]);
    // "never": no upload under that id at all.
    let samples: Vec<Value> = ["honest", "flipped", "short", "never"]
        .iter()
        .enumerate()
        .map(|(rep, id)| {
            let mut c = claim(id);
            c["rep"] = rep.into();
            c
        })
        .collect();
    send_samples(&serve, &run, &key, &samples);
    let honest = stored_sample(&serve, "honest");
    assert_eq!(
        (honest["status"].as_str(), honest["intact"].as_bool()),
        (Some("ok"), Some(true)),
        "{honest}"
    );
    assert_ne!(honest["mbps"], 99999.0, "the host computes the rate");
    for id in ["flipped", "short", "never"] {
        let s = stored_sample(&serve, id);
        assert_eq!(s["intact"], false, "{id}: {s}");
        assert_ne!(s["status"], "ok", "{id}: {s}");
        assert!(s["mbps"].is_null(), "{id}: {s}");
    }
    assert_eq!(
        stored_sample(&serve, "flipped")["sha256_received"],
        sha(&other)
    );
    assert_eq!(stored_sample(&serve, "short")["bytes_received"], 10);
    assert!(
        stored_sample(&serve, "never")["bytes_received"]
            .as_u64()
            .unwrap_or(0)
            == 0
    );
}

#[test]
fn an_upload_of_another_run_does_not_vouch_for_this_one() {
    let serve = serve_blobs("1");
    let (first, _, url) = started(&serve);
    let (second, key, _) = started(&serve);
    upload(&url, &first, "u1", SENT);
    send_samples(&serve, &second, &key, &[claim("u1")]);
    assert_eq!(stored_sample(&serve, "u1")["intact"], false);
}

/// Uploads and reports a sample of each of `reps`, one message each, then says the run
/// is complete: each message's status, and the run's end as the host recorded it.
fn finish_after(serve: &Serve, reps: &[u32]) -> (Vec<u16>, Value) {
    let (run, key, url) = started(serve);
    let statuses = reps
        .iter()
        .enumerate()
        .map(|(i, &rep)| {
            let id = format!("{run}_u{i}");
            upload(&url, &run, &id, SENT);
            let mut s = claim(&id);
            s["rep"] = rep.into();
            try_samples(serve, &run, &key, &[s])
        })
        .collect();
    let r = serve.call(
        "POST",
        &format!("runs/{run}/run-finished"),
        Some(&json!({"key": key, "status": "complete"})),
    );
    assert_eq!(r.status, 200, "{r:?}");
    let end = serve
        .store()
        .into_iter()
        .find(|r| r["kind"] == "run_end" && r["run_id"] == run.as_str())
        .expect("the run's end is stored");
    (statuses, end)
}

#[test]
fn a_page_calling_a_short_run_complete_is_recorded_incomplete() {
    let serve = serve_blobs("3");
    let (_, short) = finish_after(&serve, &[0]);
    assert_eq!(short["status"], "incomplete", "{short}");
    // Three samples, but of one rep: the rep is taken once, the others refused.
    let (statuses, repeated) = finish_after(&serve, &[0, 0, 0]);
    assert_eq!(statuses, [200, 400, 400]);
    assert_eq!(repeated["status"], "incomplete", "{repeated}");
    let (statuses, whole) = finish_after(&serve, &[0, 1, 2]);
    assert_eq!(statuses, [200, 200, 200]);
    assert_eq!(whole["status"], "complete", "{whole}");
}

/// `report --run RUN --format json` over the store in `state`: the run and its samples.
fn reported(state: &std::path::Path, run: &str) -> Value {
    let text = common::report(state, &["--run", run, "--format", "json"]);
    serde_json::from_str::<Value>(&text).unwrap()["runs"][0].clone()
}

/// Another `serve` on the state dir `state`, started and serving (its URL printed).
fn serve_beside(state: &std::path::Path) -> std::process::Child {
    let (child, _, url) = common::serve::spawn(state, &["--size", "1KiB", "--reps", "1"], &[]);
    assert!(url.starts_with("http://"), "{url:?}");
    child
}

/// A `serve` killed with -9 records nothing, and its runs stayed `running` for good. Now
/// every serve holds `serve.lock` shared: one starting beside a live serve leaves that
/// serve's run alone, and the next one started after it was killed ends the run as
/// `interrupted`, with the sample the killed serve acknowledged still the run's.
#[test]
fn a_run_of_a_serve_killed_with_9_is_interrupted_by_the_next_serve_with_its_sample_kept() {
    let mut first = serve_blobs("3");
    let (run, key, url) = started(&first);
    upload(&url, &run, "kept", SENT);
    send_samples(&first, &run, &key, &[claim("kept")]);
    let mut beside = serve_beside(first.state.path());
    assert_eq!(
        reported(first.state.path(), &run)["run"]["status"],
        "running"
    );
    beside.kill().unwrap();
    beside.wait().unwrap();
    first.child.kill().unwrap(); // SIGKILL
    first.child.wait().unwrap();
    assert_eq!(
        reported(first.state.path(), &run)["run"]["status"],
        "running"
    );
    let mut next = serve_beside(first.state.path());
    let after = reported(first.state.path(), &run);
    next.kill().unwrap();
    next.wait().unwrap();
    assert_eq!(after["run"]["status"], "interrupted", "{after}");
    let samples = after["samples"].as_array().unwrap();
    assert_eq!(samples.len(), 1, "{after}");
    assert_eq!(
        (&samples[0]["upload_id"], &samples[0]["intact"]),
        (&json!("kept"), &json!(true))
    );
}

/// The run's end record, if stored.
fn stored_end(serve: &Serve, run: &str) -> Option<Value> {
    serve
        .store()
        .into_iter()
        .find(|r| r["kind"] == "run_end" && r["run_id"] == run)
}

/// A page names why its run ended from its own side (its error as the detail), but what
/// the sink did is the host's to say, and a complete run has no reason to give: a page
/// naming one is refused, and nothing stored.
#[test]
fn a_page_names_its_own_end_but_never_the_sinks() {
    let serve = serve_blobs("3");
    let (run, key, _) = started(&serve);
    let end = |status: &str, why: &str| {
        let said =
            json!({"key": key, "status": status, "end_reason": why, "reason": "TypeError: boom"});
        serve.call("POST", &format!("runs/{run}/run-finished"), Some(&said))
    };
    // The sink's side, and a reason beside "complete", are not the page's to give.
    for (status, why) in [("failed", "sink-stalled"), ("complete", "page-failed")] {
        let refused = end(status, why);
        assert_eq!(
            (refused.status, &refused.body["code"]),
            (400, &json!(8)),
            "{status} {why}: {refused:?}"
        );
    }
    assert_eq!(
        stored_end(&serve, &run),
        None,
        "a refused end is not stored"
    );
    assert_eq!(end("failed", "page-failed").status, 200);
    let stored = stored_end(&serve, &run).expect("the page's end is stored");
    assert_eq!(
        (&stored["status"], &stored["end_reason"], &stored["reason"]),
        (
            &json!("failed"),
            &json!("page-failed"),
            &json!("TypeError: boom")
        ),
        "{stored}"
    );
}
