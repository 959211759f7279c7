//! Real browsers against a remote sink over pinned TLS (`unobserved sink --tls`, here on
//! loopback in its own process): the throwaway profile trusts the certificate the URL
//! pins, uploads travel over HTTP/2 by ALPN, and every sample is judged from the remote
//! sink's ledger, claimed over the same pinned TLS. And the faults a real link has: a
//! sink that goes away halfway (killed), and one that stalls (behind a proxy that stops
//! passing bytes on), each during a real Chromium run.

use serde_json::Value;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

mod common;
use common::{SinkProcess, BIN};

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

/// `unobserved run` of Chromium on `sink_url`, many small Blob reps, in `state`, all in
/// one block: these tests are about a sink that fails inside a page's block. At a block's
/// edge a fresh page first checks the sink itself, and a sink gone then ends the run
/// `failed` with the page's words and no typed reason (not yet typed; seen once in CI).
fn start_run(state: &Path, sink_url: &str, timeout_secs: &str) -> Child {
    Command::new(BIN)
        .args([
            "run",
            "--browser",
            "chromium",
            "--quiet",
            "--connect-timeout",
            "90",
        ])
        .args(["--sink-url", sink_url, "--size", "256KiB", "--reps", "40"])
        .args(["--block-reps", "40"])
        .args([
            "--warmup",
            "0",
            "--bodies",
            "Blob",
            "--timeout",
            timeout_secs,
        ])
        .env("UNOBSERVED_STATE_DIR", state)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The samples stored so far in `state`'s store.
fn stored_samples(state: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(state.join("results.jsonl")).unwrap_or_default();
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| r["kind"] == "sample")
        .collect()
}

/// The first `n` samples the host stored (acknowledged), once there are `n`.
fn wait_for_samples(state: &Path, n: usize, run: &mut Child) -> Vec<Value> {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let stored = stored_samples(state);
        if stored.len() >= n {
            return stored;
        }
        if let Some(status) = run.try_wait().unwrap() {
            panic!("`unobserved run` ended ({status}) before {n} samples were stored: {stored:?}");
        }
        assert!(
            Instant::now() < deadline,
            "no {n} samples within 120 s: {stored:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The run as `report` reads it back (a run that failed writes no `--json`), and its CSV.
fn reported(state: &Path) -> (Value, String) {
    let doc: Value = serde_json::from_str(&common::report(state, &["--format", "json"])).unwrap();
    common::runs::assert_matches_schema(&doc);
    let csv = common::report(state, &["--format", "csv"]);
    (doc["runs"][0].clone(), csv)
}

/// `unobserved run` failed, and the stored run ended `status` for the typed `reason`, in
/// JSON and in every CSV row.
fn ended(run: Child, state: &Path, status: &str, reason: &str) -> Value {
    let out = run.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    let (report, csv) = reported(state);
    let got = (&report["run"]["status"], &report["run"]["end_reason"]);
    assert_eq!(got, (&status.into(), &reason.into()), "{}", report["run"]);
    assert_csv_end_reason(&csv, reason);
    report
}

/// Every CSV row names the run's typed end.
fn assert_csv_end_reason(csv: &str, reason: &str) {
    let mut rows = csv::Reader::from_reader(csv.as_bytes());
    let at = rows
        .headers()
        .unwrap()
        .iter()
        .position(|h| h == "run_end_reason");
    let at = at.expect("a run_end_reason column");
    for row in rows.records() {
        let row = row.unwrap();
        assert_eq!(row.get(at), Some(reason), "{row:?}");
    }
}

/// The sink is killed after some samples are stored: the run ends at once, failed, with
/// the typed reason `sink-unreachable`; every sample stored before the kill is kept as
/// it was (intact, its record claimed); the uploads after it are stored as
/// `sink-unreachable` receipts and are never intact.
#[test]
fn a_sink_killed_mid_run_ends_it_sink_unreachable_and_keeps_every_acknowledged_sample() {
    let _turn = common::runs::ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    let mut sink = SinkProcess::start(&["--tls", "--listen", "127.0.0.1:0"]);
    let state = tempfile::tempdir().unwrap();
    let mut run = start_run(state.path(), &sink.url, "120");
    let acknowledged = wait_for_samples(state.path(), 3, &mut run);
    sink.child.kill().unwrap();
    sink.child.wait().unwrap();
    let report = ended(run, state.path(), "failed", "sink-unreachable");
    let samples = report["samples"].as_array().unwrap();
    for before in &acknowledged {
        assert_eq!(
            before["status"], "ok",
            "acknowledged before the kill: {before}"
        );
        let kept = samples
            .iter()
            .find(|s| s["upload_id"] == before["upload_id"]);
        let kept = kept.unwrap_or_else(|| panic!("lost: {before}"));
        assert_eq!(
            (&kept["intact"], &kept["receipt"]),
            (&true.into(), &"found".into())
        );
        assert_eq!(kept["sha256_received"], before["sha256_sent"], "{kept}");
    }
    let unreachable: Vec<&Value> = samples
        .iter()
        .filter(|s| s["receipt"] == "sink-unreachable")
        .collect();
    assert!(!unreachable.is_empty(), "{samples:?}");
    for s in unreachable {
        assert_eq!(
            (&s["intact"], &s["status"]),
            (&false.into(), &"error".into()),
            "{s}"
        );
    }
}

/// A TCP proxy in front of a sink that passes bytes on both ways until told to stall,
/// then holds whatever arrives (the connections stay open): a sink that stopped
/// answering, as the browser and the host both see it.
struct StallingProxy {
    stalled: Arc<AtomicBool>,
}

impl StallingProxy {
    fn start(listen: SocketAddr, sink: SocketAddr) -> StallingProxy {
        let listener = TcpListener::bind(listen).unwrap();
        let stalled = Arc::new(AtomicBool::new(false));
        let flag = stalled.clone();
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                let Ok(upstream) = TcpStream::connect(sink) else {
                    continue;
                };
                let (c2, u2) = (client.try_clone().unwrap(), upstream.try_clone().unwrap());
                let (f1, f2) = (flag.clone(), flag.clone());
                std::thread::spawn(move || pipe(client, upstream, &f1));
                std::thread::spawn(move || pipe(u2, c2, &f2));
            }
        });
        StallingProxy { stalled }
    }

    fn stall(&self) {
        self.stalled.store(true, Ordering::SeqCst);
    }
}

/// Copies `from` to `to` while not stalled; stalled, it holds what it read.
fn pipe(mut from: TcpStream, mut to: TcpStream, stalled: &AtomicBool) {
    let mut buf = vec![0u8; 64 << 10];
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        while stalled.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(50));
        }
        if to.write_all(&buf[..n]).is_err() {
            break;
        }
    }
    let _ = to.shutdown(std::net::Shutdown::Write);
}

/// The sink stalls after some samples are stored: the run runs out of time, and its end
/// says the sink stalled (typed `sink-stalled`, status timed-out), not the page.
#[test]
fn a_sink_that_stalls_mid_run_is_named_as_the_side_that_stalled() {
    let _turn = common::runs::ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    // The sink answers to 127.0.0.2 at its port, where the proxy listens.
    let sink = SinkProcess::start(&["--listen", "127.0.0.1:0", "--public-host", "127.0.0.2"]);
    let port: u16 = sink
        .authority()
        .rsplit(':')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        sink.url.starts_with(&format!("http://127.0.0.2:{port}/")),
        "{}",
        sink.url
    );
    let proxy = StallingProxy::start(
        SocketAddr::from(([127, 0, 0, 2], port)),
        SocketAddr::from(([127, 0, 0, 1], port)),
    );
    let state = tempfile::tempdir().unwrap();
    let mut run = start_run(state.path(), &sink.url, "15");
    wait_for_samples(state.path(), 2, &mut run);
    proxy.stall();
    ended(run, state.path(), "timed-out", "sink-stalled");
}
