//! Hardening, round four (SECURITY.md): what an outside probe found a page or a device
//! on the LAN could do to the host, each tried again here against the real binary over
//! loopback, with its guard in place.

mod common;

use common::SinkProcess;
use serde_json::Value;

/// PUTs `body` to `url` with `headers`: the status, and the reply's JSON when it has one.
fn put(url: &str, headers: &[(&str, &str)], body: &[u8]) -> (u16, Value) {
    let mut request = ureq::put(url);
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    match request.send(body) {
        Ok(mut r) => (
            r.status().as_u16(),
            serde_json::from_reader(r.body_mut().as_reader()).unwrap_or(Value::Null),
        ),
        Err(ureq::Error::StatusCode(code)) => (code, Value::Null),
        Err(e) => panic!("{e}"),
    }
}

/// The ledger route of `sink` with `query`, as the host calls it.
fn ledger(sink: &SinkProcess, query: &str) -> (u16, Value) {
    let token = sink.url.rsplit('/').next().unwrap();
    let url = format!("http://{}/ledger/{token}?{query}", sink.authority());
    put(&url, &[], b"")
}

/// 8192 one-byte uploads under a run nobody started locked every other device out of
/// `unobserved sink` (429) for the session, and each record kept the request's whole
/// Content-Type (8192 × 30 KB took the sink from 8 to 257 MB). Now a run must be opened
/// first by a holder of the token, each run has its own room, and a record keeps a
/// bounded Content-Type.
#[test]
fn ten_thousand_uploads_under_an_unknown_run_leave_another_devices_upload_accepted() {
    let sink = SinkProcess::start(&["--listen", "127.0.0.1:0"]);
    let (status, opened) = ledger(&sink, "run=honest&open=10");
    assert_eq!(
        (status, &opened["room"]),
        (200, &Value::from(10)),
        "{opened}"
    );
    let junk = "x".repeat(30_000);
    for i in 0..10_000 {
        let url = format!("{}?run=notarun&upload=u{i}", sink.url);
        let (status, _) = put(&url, &[("content-type", &junk)], b"x");
        assert_eq!(status, 403, "upload {i}");
    }
    let url = format!("{}?run=honest&upload=h0", sink.url);
    let (status, reply) = put(&url, &[("content-type", &junk)], b"honest bytes");
    assert_eq!(status, 200, "{reply}");
    // What the record keeps of the header is bounded.
    let (status, claim) = ledger(&sink, "run=honest&upload=h0");
    assert_eq!(status, 200);
    let kept = claim["entry"]["content_type"].as_str().unwrap();
    assert_eq!(
        kept.len(),
        unobserved::domain::limits::INPUT.content_type_chars
    );
    // The run ended: no upload under it is taken again, not even a new id.
    assert_eq!(ledger(&sink, "run=honest&forget=1").0, 200);
    assert_eq!(
        put(&format!("{}?run=honest&upload=h1", sink.url), &[], b"late").0,
        410
    );
    assert_eq!(ledger(&sink, "run=honest&open=10").0, 410);
}
