//! `--transport`: the same body kinds over HTTP/1.1 in the clear, HTTP/1.1 over TLS and
//! HTTP/2 over TLS, in real headless browsers with nothing attached. The run's
//! certificate is trusted by its throwaway profile alone (Chromium by the key's hash,
//! Firefox by a per-port override): no test flag, no debugger.

use serde_json::Value;
use std::process::Command;

mod common;
use common::BIN;

fn run(browser: &str, transports: &str) -> Value {
    let extra = [
        "--size",
        "2MiB",
        "--reps",
        "3",
        "--warmup",
        "1",
        "--bodies",
        "Uint8Array,ReadableStream",
        "--transport",
        transports,
    ];
    common::runs::run_with(browser, &extra).json
}

/// The samples of one body kind over one transport.
fn samples<'a>(run: &'a Value, body: &str, transport: &str) -> Vec<&'a Value> {
    let found: Vec<&Value> = run["samples"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["arm"]["body"] == body && s["arm"]["transport"] == transport)
        .collect();
    assert_eq!(found.len(), 3, "three reps of {body} over {transport}");
    found
}

fn summary<'a>(run: &'a Value, body: &str, transport: &str) -> &'a Value {
    run["summary"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["arm"]["body"] == body && a["arm"]["transport"] == transport)
        .unwrap_or_else(|| panic!("no arm {body} {transport}: {}", run["summary"]))
}

/// A comparison of `body` over `transport` with the same body over `baseline`.
fn compares(c: &Value, body: &str, transport: &str, baseline: &str) -> bool {
    let over = |side: &Value, t: &str| side["arm"]["body"] == body && side["arm"]["transport"] == t;
    over(&c["arm"], transport) && over(&c["baseline"], baseline)
}

#[test]
fn chromium_uploads_a_stream_body_over_h2_intact_and_refuses_it_over_http1() {
    let run = run("chromium", "h1,h2");
    assert_eq!(run["run"]["status"], "complete");
    assert_eq!(run["run"]["observed"], "no");
    for s in samples(&run, "ReadableStream", "h2") {
        assert_eq!(s["status"], "ok", "{s}");
        assert_eq!(s["intact"], true);
        assert_eq!(s["sha256_received"], s["sha256_sent"], "verified by hash");
        assert_eq!(s["bytes_received"], 2 * 1024 * 1024);
        assert_eq!(s["protocol"], "h2", "the sink saw HTTP/2");
    }
    for s in samples(&run, "Uint8Array", "h2") {
        assert_eq!(s["status"], "ok", "{s}");
        assert_eq!(s["protocol"], "h2");
    }
    for s in samples(&run, "Uint8Array", "h1") {
        assert_eq!(s["status"], "ok", "{s}");
        assert_eq!(s["protocol"], "http/1.1");
    }
    for s in samples(&run, "ReadableStream", "h1") {
        assert_eq!(s["status"], "unsupported", "{s}");
    }
    assert_eq!(summary(&run, "ReadableStream", "h2")["verdict"], "intact");
    // The h2 sink's own ceiling was measured, so its arms can be flagged sink-bound.
    assert!(
        run["run"]["transport_ceilings"]["h2"]["receive_mbps"]
            .as_f64()
            .is_some_and(|m| m > 0.0),
        "{}",
        run["run"]
    );
    // h2 is compared with h1 for each body kind that arrived over both.
    let transports = run["transports"].as_array().unwrap();
    assert!(
        transports
            .iter()
            .any(|c| compares(c, "Uint8Array", "h2", "h1")),
        "{transports:?}"
    );
}

#[test]
fn firefox_over_h2_and_tls_still_uploads_a_stream_body_as_its_name() {
    let run = run("firefox", "h1,h1-tls,h2");
    assert_eq!(run["run"]["status"], "complete");
    for (transport, protocol) in [("h1", "http/1.1"), ("h1-tls", "http/1.1"), ("h2", "h2")] {
        for s in samples(&run, "Uint8Array", transport) {
            assert_eq!(s["status"], "ok", "{s}");
            assert_eq!(s["protocol"], protocol, "{s}");
        }
        // What Firefox does with a stream body, over every transport: it sends the
        // 23 bytes "[object ReadableStream]" and the fetch succeeds.
        for s in samples(&run, "ReadableStream", transport) {
            assert_eq!(s["status"], "corrupted", "{s}");
            assert_eq!(s["bytes_received"], 23);
            assert_eq!(s["protocol"], protocol, "{s}");
        }
    }
    let transports = run["transports"].as_array().unwrap();
    for (transport, baseline) in [("h2", "h1-tls"), ("h2", "h1"), ("h1-tls", "h1")] {
        assert!(
            transports
                .iter()
                .any(|c| compares(c, "Uint8Array", transport, baseline)),
            "{transport} vs {baseline}: {transports:?}"
        );
    }
}

#[test]
fn a_tls_transport_with_a_remote_sink_is_refused_before_any_browser_starts() {
    let state = tempfile::tempdir().unwrap();
    let out = Command::new(BIN)
        .args(["run", "--browser", "chromium", "--transport", "h2"])
        .args(["--sink-url", "http://192.0.2.1:9/upload/x"])
        .env("UNOBSERVED_STATE_DIR", state.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "a usage error");
    assert!(
        !state.path().join("results.jsonl").exists(),
        "nothing was started or recorded"
    );
}
