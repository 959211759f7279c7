//! A remote sink over TLS (`unobserved sink --tls`): its URL pins its certificate, the
//! host claims its ledger over TLS that accepts that certificate and no other, and the
//! browser's uploads travel over HTTP/2.

use serde_json::{json, Value};
use unobserved::domain::sink_url::SinkUrl;
use unobserved::sink::ceiling::Client;
use unobserved::sink::pinned::ReachError;

mod common;
use common::{Host, SinkProcess};

/// The plan's size: a sample of any other is refused as not the plan's.
const BODY: &[u8] = &[7; 1024];

fn sha(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(bytes))
}

fn run_started(host: &mut Host, run_id: &str, url: &str, transports: Value) -> Value {
    host.send(&json!({"type": "run-started", "run": {"run_id": run_id,
        "browser": "Chromium", "browser_version": "156", "os": "Linux",
        "extension_version": "0.1.0", "source": "popup", "started_at": "2026-11-30T00:00:00Z",
        "sink": "remote", "sink_url": url,
        "plan": {"size_bytes": 1024, "reps": 10, "warmup": 0, "bodies": ["Blob"],
                 "transports": transports}}}))
}

/// The URL with another certificate's fingerprint in place of the sink's.
fn wrongly_pinned(url: &str) -> String {
    let (address, _) = url.split_once("#sha256=").unwrap();
    format!("{address}#sha256={}", "ab".repeat(32))
}

fn records(state: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(state.join("results.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn the_sink_prints_a_url_that_pins_its_kept_certificate() {
    let state = tempfile::tempdir().unwrap();
    let sink = SinkProcess::start_in(state.path(), &["--tls", "--listen", "127.0.0.1:0"]);
    let url: SinkUrl = sink.url.parse().expect("a pinned https:// URL");
    assert!(url.is_tls(), "{}", sink.url);
    let kept = std::fs::read(state.path().join("sink-tls/cert.pem")).unwrap();
    assert_eq!(
        Some(unobserved::platform::remote_tls::pin_of_pem(&kept).unwrap()),
        url.pin()
    );
    let (_, presented) = Client::connect_sink(&url).unwrap();
    assert_eq!(presented.unwrap().cert, url.pin().unwrap());
    // Started again on the same state dir, it keeps its certificate, so its pin.
    drop(sink);
    let again = SinkProcess::start_in(state.path(), &["--tls", "--listen", "127.0.0.1:0"]);
    let again: SinkUrl = again.url.parse().unwrap();
    assert_eq!(again.pin(), url.pin());
}

#[test]
fn another_certificate_than_the_pinned_one_is_refused() {
    let sink = SinkProcess::start(&["--tls", "--listen", "127.0.0.1:0"]);
    let wrong: SinkUrl = wrongly_pinned(&sink.url).parse().unwrap();
    match Client::connect_sink(&wrong) {
        Err(ReachError::WrongCertificate { pinned, presented }) => {
            assert_eq!(Some(pinned), wrong.pin());
            let right: SinkUrl = sink.url.parse().unwrap();
            assert_eq!(Some(presented.cert), right.pin());
        }
        Err(other) => panic!("refused for another reason: {other}"),
        Ok(_) => panic!("a certificate other than the pinned one was accepted"),
    }
}

/// The host claims each record over pinned TLS; the same run with a wrong pin is refused
/// (error 13) and nothing of it is recorded.
#[test]
fn a_run_on_a_pinned_sink_is_judged_from_its_ledger_and_a_wrong_pin_records_nothing() {
    let sink = SinkProcess::start(&["--tls", "--listen", "127.0.0.1:0"]);
    let url: SinkUrl = sink.url.parse().unwrap();
    let state = tempfile::tempdir().unwrap();
    let mut host = Host::chromium(state.path());
    host.send(&json!({"type": "hello"}));
    let refused = run_started(
        &mut host,
        "wrong",
        &wrongly_pinned(&sink.url),
        json!(["h2"]),
    );
    assert_eq!(refused["code"], 13, "{refused}");
    // Its transport is its URL's: h2 for an https:// sink.
    let refused = run_started(&mut host, "over-h1", &sink.url, json!(["h1"]));
    assert_eq!(refused["code"], 8, "{refused}");
    assert!(
        records(state.path()).is_empty(),
        "a refused run was recorded"
    );
    let started = run_started(&mut host, "r1", &sink.url, json!(["h2"]));
    assert_eq!(started["type"], "run-started", "{started}");
    assert_eq!(started["upload_urls"], json!({"h2": url.upload_url()}));
    // The page's upload, over the same pinned TLS (the client negotiates h2 as a
    // browser does).
    let (mut client, _) = Client::connect_sink(&url).unwrap();
    let path = format!("{}?run=r1&upload=there", url.path());
    assert_eq!(
        client.put(&path, BODY.len() as u64, BODY).unwrap().status,
        200
    );
    let ack = host.send(&json!({"type": "samples", "run_id": "r1", "samples": [
        {"run_id": "r1", "body": "Blob h2", "rep": 0, "upload_id": "there",
         "arm": {"kind": "body", "body": "Blob", "transport": "h2"},
         "bytes_sent": BODY.len(), "sha256_sent": sha(BODY), "bytes_received": null,
         "sha256_received": null, "intact": true, "status": "ok", "error": null,
         "page_ms": 1.0, "sink_ms": null, "mbps": 1.0, "observed": {"webdriver": false}}]}));
    assert_eq!(ack["count"], 1, "{ack}");
    let stored = records(state.path());
    let sample = stored.iter().find(|r| r["kind"] == "sample").unwrap();
    assert_eq!(
        (&sample["status"], &sample["receipt"], &sample["protocol"]),
        (&json!("ok"), &json!("found"), &json!("h2")),
        "{sample}"
    );
    let run = stored.iter().find(|r| r["kind"] == "run").unwrap();
    assert!(
        run["transport_ceilings"]["h2"]["receive_mbps"].as_f64() > Some(0.0),
        "the link's ceiling, measured over the same transport: {run}"
    );
    assert!(run.get("sink_url").is_none(), "the token was stored: {run}");
    the_link_is_measured_again_after_the_arms(&mut host, state.path());
}

/// At the run's end the host measures the link again over the same pinned TLS, and
/// the analysis sets the arm against what the link carried, with a typed note.
fn the_link_is_measured_again_after_the_arms(host: &mut Host, state: &std::path::Path) {
    let finished =
        host.send(&json!({"type": "run-finished", "run_id": "r1", "status": "incomplete"}));
    assert_eq!(finished["type"], "run-finished", "{finished}");
    let stored = records(state);
    let after = stored.iter().find(|r| r["kind"] == "ceiling_after");
    assert!(
        after.is_some_and(|a| a["ceilings"]["h2"]["receive_mbps"].as_f64() > Some(0.0)),
        "the link's ceiling after the arms: {after:?}"
    );
    let analysis = &finished["analysis"];
    assert!(
        analysis["arms"][0]["ceiling_share"].as_f64() > Some(0.0),
        "{analysis}"
    );
    let note = analysis["notes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["kind"] == "link-wire");
    assert!(
        note.is_some_and(|n| n["arm"] == "Blob h2" && n["limit"].is_string()),
        "a typed note on where the link's time went: {analysis}"
    );
}

/// What a real TLS client that offers both (h2 first, as browsers do) is given by ALPN
/// at the sink of `url`, whose pin it checks.
fn negotiated(url: &SinkUrl) -> Option<Vec<u8>> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let tcp = tokio::net::TcpStream::connect(url.host_port())
            .await
            .unwrap();
        let alpn: &[&[u8]] = &[b"h2", b"http/1.1"];
        let (tls, _) = unobserved::sink::pinned::connect(tcp, url.host(), url.pin().unwrap(), alpn)
            .await
            .unwrap();
        tls.get_ref().1.alpn_protocol().map(<[u8]>::to_vec)
    })
}

/// `sink --transport h1-tls` offers HTTP/1.1 alone over TLS, and its URL says so; `--tls`
/// offers h2. A URL that says another transport than the sink negotiates is refused.
#[test]
fn a_sink_asked_for_h1_tls_offers_only_http1_by_alpn_and_its_url_says_so() {
    use unobserved::domain::arm::Transport;
    let h1 = SinkProcess::start(&["--transport", "h1-tls", "--listen", "127.0.0.1:0"]);
    let h1_url: SinkUrl = h1.url.parse().unwrap();
    assert!(h1.url.ends_with("&transport=h1-tls"), "{}", h1.url);
    assert_eq!(h1_url.transport(), Transport::H1Tls);
    assert_eq!(negotiated(&h1_url).as_deref(), Some(&b"http/1.1"[..]));
    let h2 = SinkProcess::start(&["--tls", "--listen", "127.0.0.1:0"]);
    let h2_url: SinkUrl = h2.url.parse().unwrap();
    assert_eq!(h2_url.transport(), Transport::H2);
    assert_eq!(negotiated(&h2_url).as_deref(), Some(&b"h2"[..]));
    // The host's own client (the check before a run, the ceiling, the ledger) takes each.
    assert!(Client::connect_sink(&h1_url).is_ok());
    assert!(Client::connect_sink(&h2_url).is_ok());
    let (as_h1, as_h2): (SinkUrl, SinkUrl) = (
        format!("{}&transport=h1-tls", h2.url).parse().unwrap(),
        h1.url.replace("&transport=h1-tls", "").parse().unwrap(),
    );
    for (url, said, offered) in [
        (as_h1, Transport::H1Tls, Transport::H2),
        (as_h2, Transport::H2, Transport::H1Tls),
    ] {
        match Client::connect_sink(&url) {
            Err(ReachError::OtherTransport {
                said: s,
                offered: o,
            }) => {
                assert_eq!((s, o), (said, offered), "{url}")
            }
            Err(other) => panic!("{url}: refused for another reason: {other}"),
            Ok(_) => panic!("{url}: a sink offering {offered} was taken for {said}"),
        }
    }
}
