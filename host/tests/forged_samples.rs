//! A page's samples are never believed about what arrived: the real binary, started as a
//! browser starts it, takes real loopback HTTP uploads under upload ids, and stores each
//! sample from its sink's own record. Every forgery here is what a page could send.

mod common;

use common::Host;
use serde_json::{json, Value};

/// The bytes the page meant to send: the plan's 1 KiB.
const BODY: &[u8] = &[b'b'; 1024];

fn sha(bytes: &[u8]) -> String {
    hex::encode(ring::digest::digest(&ring::digest::SHA256, bytes))
}

/// A session with run `r1` started; the upload URL of its sink.
fn session(state: &std::path::Path) -> (Host, String) {
    let mut host = Host::chromium(state);
    let hello = host.send(&json!({"type": "hello"}));
    host.start_run("r1");
    (
        host,
        hello["sink"]["upload_url"].as_str().unwrap().to_owned(),
    )
}

/// PUTs `body` under `?run=&upload=`; the status, and the verdict read in full as a page
/// reads it before it reports the sample.
fn upload(url: &str, run: &str, id: &str, body: &[u8]) -> (u16, Value) {
    let url = format!("{url}?run={run}&upload={id}");
    match ureq::put(&url).send(body) {
        Ok(mut r) => (
            r.status().as_u16(),
            serde_json::from_reader(r.body_mut().as_reader()).unwrap(),
        ),
        Err(ureq::Error::StatusCode(code)) => (code, Value::Null),
        Err(e) => panic!("{e}"),
    }
}

/// The page's sample of rep `rep`: it sent BODY, and claims the sink received `claimed`.
fn sample(rep: u32, id: &str, claimed: &[u8]) -> Value {
    json!({"run_id": "r1", "body": "Blob", "rep": rep, "upload_id": id,
        "bytes_sent": BODY.len(), "sha256_sent": sha(BODY),
        "bytes_received": claimed.len(), "sha256_received": sha(claimed),
        "intact": true, "status": "ok", "error": null, "page_ms": 1.0, "sink_ms": 0.5,
        "mbps": 1.0, "observed": {"webdriver": false}})
}

fn send_samples(host: &mut Host, run: &str, samples: &[Value]) -> Value {
    host.send(&json!({"type": "samples", "run_id": run, "samples": samples}))
}

fn stored(state: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(state.join("results.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["kind"] == "sample")
        .collect()
}

#[test]
fn an_upload_id_the_sink_never_received_is_stored_as_nothing_received() {
    let state = tempfile::tempdir().unwrap();
    let (mut host, _) = session(state.path());
    let ack = send_samples(&mut host, "r1", &[sample(0, "never-uploaded", BODY)]);
    assert_eq!(ack["type"], "samples-ack", "{ack}");
    let s = &stored(state.path())[0];
    assert_eq!(
        (s["status"].as_str(), s["intact"].as_bool()),
        (Some("error"), Some(false)),
        "{s}"
    );
    assert_eq!(
        (&s["bytes_received"], &s["sha256_received"]),
        (&Value::Null, &Value::Null)
    );
    assert_eq!(s["receipt"], "missing");
    assert_eq!(s["mbps"], Value::Null);
}

#[test]
fn a_claim_of_other_bytes_or_hash_is_replaced_by_the_sinks_record() {
    let state = tempfile::tempdir().unwrap();
    let (mut host, url) = session(state.path());
    // Whole at the sink, but the page claims it got 3 other bytes.
    assert_eq!(upload(&url, "r1", "whole", BODY).0, 200);
    // Other bytes at the sink (one flipped), but the page claims they were right.
    let mut flipped = BODY.to_vec();
    flipped[5] ^= 1;
    let (status, verdict) = upload(&url, "r1", "flipped", &flipped);
    assert_eq!(status, 200);
    // Fewer bytes at the sink, and the page claims the full length.
    assert_eq!(upload(&url, "r1", "short", &BODY[..7]).0, 200);
    let ack = send_samples(
        &mut host,
        "r1",
        &[
            sample(0, "whole", b"abc"),
            sample(1, "flipped", BODY),
            sample(2, "short", BODY),
        ],
    );
    assert_eq!(ack["count"], 3, "{ack}");
    let s = stored(state.path());
    let verdicts: Vec<_> = s
        .iter()
        .map(|s| {
            (
                s["status"].as_str().unwrap(),
                s["intact"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        verdicts,
        [("ok", true), ("corrupted", false), ("corrupted", false)]
    );
    assert_eq!(s[0]["bytes_received"], BODY.len());
    assert_eq!(s[0]["sha256_received"], sha(BODY));
    assert_eq!(s[1]["sha256_received"], verdict["sha256"]);
    assert_eq!(s[1]["sha256_received"], sha(&flipped));
    assert_eq!(s[2]["bytes_received"], 7);
    assert!(s
        .iter()
        .all(|s| s["page_claim_differs"] == true && s["receipt"] == "found"));
}

#[test]
fn samples_for_a_run_the_host_did_not_start_are_refused_and_nothing_is_stored() {
    let state = tempfile::tempdir().unwrap();
    let (mut host, url) = session(state.path());
    // The sink takes no upload naming a run the host did not start (it did, before:
    // 8192 of them locked every other device out), and the host takes no sample for it.
    assert_eq!(upload(&url, "ghost", "g0", BODY).0, 403);
    host.start_run("r2");
    assert_eq!(upload(&url, "r2", "g1", BODY).0, 200);
    let mut forged = sample(0, "g1", BODY);
    forged["run_id"] = json!("ghost");
    let reply = send_samples(&mut host, "ghost", &[forged]);
    assert_eq!(
        (reply["type"].as_str(), reply["code"].as_u64()),
        (Some("error"), Some(15)),
        "{reply}"
    );
    assert!(stored(state.path()).is_empty());
    // Nor is it stored under a run the host did start: the record is another run's.
    let ack = send_samples(&mut host, "r1", &[sample(0, "g1", BODY)]);
    assert_eq!(ack["count"], 1);
    let s = &stored(state.path())[0];
    assert_eq!(
        (s["intact"].as_bool(), s["receipt"].as_str()),
        (Some(false), Some("other-run")),
        "{s}"
    );
}

#[test]
fn a_reused_upload_id_is_refused_and_cannot_vouch_for_a_second_sample() {
    let state = tempfile::tempdir().unwrap();
    let (mut host, url) = session(state.path());
    assert_eq!(upload(&url, "r1", "once", BODY).0, 200);
    let (status, reply) = upload(&url, "r1", "once", BODY);
    assert_eq!(status, 409, "{reply}");
    let second = sample(1, "once", BODY);
    let ack = send_samples(&mut host, "r1", &[sample(0, "once", BODY), second]);
    assert_eq!(ack["count"], 2);
    // After its record was claimed, the id still cannot be uploaded under again.
    assert_eq!(upload(&url, "r1", "once", BODY).0, 409);
    send_samples(&mut host, "r1", &[sample(2, "once", BODY)]);
    let s = stored(state.path());
    let verdicts: Vec<_> = s
        .iter()
        .map(|s| {
            (
                s["intact"].as_bool().unwrap(),
                s["receipt"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        verdicts,
        [
            (true, "found"),
            (false, "already-taken"),
            (false, "already-taken")
        ]
    );
}

#[test]
fn a_badly_named_upload_is_refused_with_400_before_its_body_counts() {
    let state = tempfile::tempdir().unwrap();
    let (_host, url) = session(state.path());
    for query in [
        "run=r1&upload=a.b",
        "run=r1&upload=",
        "upload=u1",
        "run=..&upload=u1",
    ] {
        let status = match ureq::put(&format!("{url}?{query}")).send(BODY) {
            Ok(r) => r.status().as_u16(),
            Err(ureq::Error::StatusCode(code)) => code,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(status, 400, "{query}");
    }
}

/// A run on a sink elsewhere (`unobserved sink`, another process): the host claims each
/// record from that sink over HTTP, so the same forgeries fail there too, and the token
/// it was handed is never stored.
#[test]
fn a_remote_sinks_records_are_claimed_from_it_and_forgeries_fail_the_same() {
    let remote = common::SinkProcess::start(&["--listen", "127.0.0.1:0"]);
    let state = tempfile::tempdir().unwrap();
    let mut host = Host::chromium(state.path());
    host.send(&json!({"type": "hello"}));
    let started = host.send(&json!({"type": "run-started", "run": {"run_id": "r1",
        "browser": "Chromium", "browser_version": "156", "os": "Linux",
        "extension_version": "0.1.0", "source": "popup", "started_at": "2026-11-30T00:00:00Z",
        "sink": "remote", "sink_url": remote.url,
        "plan": {"size_bytes": 1024, "reps": 10, "warmup": 0, "bodies": ["Blob"]}}}));
    assert_eq!(started["type"], "run-started", "{started}");
    assert_eq!(upload(&remote.url, "r1", "there", BODY).0, 200);
    let mut flipped = BODY.to_vec();
    flipped[0] ^= 1;
    assert_eq!(upload(&remote.url, "r1", "flipped", &flipped).0, 200);
    let ack = send_samples(
        &mut host,
        "r1",
        &[
            sample(0, "there", b"x"),
            sample(1, "flipped", BODY),
            sample(2, "nowhere", BODY),
        ],
    );
    assert_eq!(ack["count"], 3, "{ack}");
    let s = stored(state.path());
    let verdicts: Vec<_> = s
        .iter()
        .map(|s| {
            (
                s["status"].as_str().unwrap(),
                s["receipt"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        verdicts,
        [
            ("ok", "found"),
            ("corrupted", "found"),
            ("error", "missing")
        ]
    );
    assert_eq!(s[1]["sha256_received"], sha(&flipped));
    let token = remote.url.rsplit('/').next().unwrap();
    let text = std::fs::read_to_string(state.path().join("results.jsonl")).unwrap();
    assert!(!text.contains(token), "the remote sink's token was stored");
    // A run on a remote sink that does not say where it is cannot start.
    let refused = host.send(&json!({"type": "run-started", "run": {"run_id": "r2",
        "browser": "Chromium", "browser_version": "156", "os": "Linux",
        "extension_version": "0.1.0", "source": "popup", "started_at": "2026-11-30T00:00:00Z",
        "sink": "remote", "plan": {"size_bytes": 1024, "reps": 10, "warmup": 0, "bodies": ["Blob"]}}}));
    assert_eq!(refused["code"], 8, "{refused}");
    // Nor one on an https:// sink whose URL pins no certificate.
    let https = remote.url.replace("http://", "https://");
    let refused = host.send(&json!({"type": "run-started", "run": {"run_id": "r3",
        "browser": "Chromium", "browser_version": "156", "os": "Linux",
        "extension_version": "0.1.0", "source": "popup", "started_at": "2026-11-30T00:00:00Z",
        "sink": "remote", "sink_url": https,
        "plan": {"size_bytes": 1024, "reps": 10, "warmup": 0, "bodies": ["Blob"]}}}));
    assert_eq!(refused["code"], 8, "{refused}");
    let runs = std::fs::read_to_string(state.path().join("results.jsonl")).unwrap();
    assert!(!runs.contains("\"r3\""), "a run it cannot judge was stored");
}
