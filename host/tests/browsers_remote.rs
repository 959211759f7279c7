//! Real browsers against a remote sink over pinned TLS (`unobserved sink --tls`, here on
//! loopback in its own process): the throwaway profile trusts the certificate the URL
//! pins, uploads travel over HTTP/2 by ALPN, and every sample is judged from the remote
//! sink's ledger, claimed over the same pinned TLS.

use serde_json::Value;

mod common;
use common::SinkProcess;

const PLAN: [&str; 8] = [
    "--size",
    "1MiB",
    "--reps",
    "2",
    "--warmup",
    "0",
    "--bodies",
    "Blob,ReadableStream",
];

fn run_on_tls_sink(browser: &str) -> Value {
    let sink = SinkProcess::start(&["--tls", "--listen", "127.0.0.1:0"]);
    assert!(sink.url.starts_with("https://"), "{}", sink.url);
    let mut args = vec!["--sink-url", sink.url.as_str()];
    args.extend(PLAN);
    let run = common::runs::run_with(browser, &args).json;
    assert_eq!(run["run"]["status"], "complete", "{}", run["run"]);
    assert!(
        run["run"]["transport_ceilings"]["h2"]["receive_mbps"].as_f64() > Some(0.0),
        "the link's ceiling over the same transport: {}",
        run["run"]
    );
    assert!(
        run["run"]["ceilings_after"]["h2"]["receive_mbps"].as_f64() > Some(0.0),
        "and again after the arms: {}",
        run["run"]
    );
    for arm in run["summary"].as_array().unwrap() {
        if arm["median_mbps"].is_number() {
            assert!(arm["ceiling_share"].as_f64() > Some(0.0), "{arm}");
            let noted = run["notes"].as_array().unwrap().iter().any(|n| {
                n["kind"] == "link-wire"
                    && n["arm"] == arm["arm"]["label"]
                    && n["limit"].is_string()
            });
            assert!(
                noted,
                "no note on where {}'s time went: {}",
                arm["arm"], run["notes"]
            );
        }
    }
    run
}

fn samples<'a>(run: &'a Value, body: &str) -> Vec<&'a Value> {
    let found: Vec<&Value> = run["samples"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["arm"]["body"] == body)
        .collect();
    assert_eq!(found.len(), 2, "two reps of {body}");
    for s in &found {
        assert_eq!(s["arm"]["transport"], "h2", "{s}");
        assert_eq!(s["protocol"], "h2", "over HTTP/2 by ALPN: {s}");
        assert_eq!(s["receipt"], "found", "claimed from the remote ledger: {s}");
    }
    found
}

#[test]
fn chromium_streams_a_readable_stream_body_to_a_pinned_lan_sink_over_h2_intact() {
    let run = run_on_tls_sink("chromium");
    for body in ["Blob", "ReadableStream"] {
        for s in samples(&run, body) {
            assert_eq!(s["status"], "ok", "{s}");
            assert_eq!(s["sha256_received"], s["sha256_sent"], "{s}");
            assert_eq!(s["bytes_received"], 1 << 20, "{s}");
        }
    }
}

/// Firefox over HTTP/2 as it really is: a Blob arrives whole, a ReadableStream body is
/// uploaded as its 23-byte name and fetch() still succeeds.
#[test]
fn firefox_over_h2_to_a_pinned_lan_sink_sends_a_stream_body_as_its_name() {
    let run = run_on_tls_sink("firefox");
    for s in samples(&run, "Blob") {
        assert_eq!(s["status"], "ok", "{s}");
    }
    for s in samples(&run, "ReadableStream") {
        assert_eq!(s["status"], "corrupted", "{s}");
        assert_eq!(s["bytes_received"], 23, "{s}");
    }
}
