//! Real browsers against a remote sink over pinned TLS (`unobserved sink --tls`, here on
//! loopback in its own process): the throwaway profile trusts the certificate the URL
//! pins, uploads travel over HTTP/2 by ALPN, and every sample is judged from the remote
//! sink's ledger, claimed over the same pinned TLS. And the faults a real link has: a
//! sink that goes away halfway (killed inside a page's block, and exactly at a block's
//! edge), one that stalls (behind a proxy that stops passing bytes on), and a browser
//! that stalls while its sink answers (remote, and on the local sink a page that never
//! settles), each during a real Chromium run, each ended with its typed reason.

use serde_json::Value;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
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

/// `unobserved run` of Chromium on `sink_url`, small Blob reps, in `state`: `reps` of
/// them in blocks of `block_reps` (a fresh page per block, which checks the sink first).
fn start_run(
    state: &Path,
    sink_url: &str,
    timeout_secs: &str,
    (reps, block_reps): (&str, &str),
) -> Child {
    Command::new(BIN)
        .args([
            "run",
            "--browser",
            "chromium",
            "--quiet",
            "--connect-timeout",
            "90",
        ])
        .args(["--sink-url", sink_url, "--size", "256KiB", "--reps", reps])
        .args(["--block-reps", block_reps])
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

/// These faults strike inside a page's block: all 40 reps in one.
const ONE_BLOCK: (&str, &str) = ("40", "40");

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
    let mut run = start_run(state.path(), &sink.url, "120", ONE_BLOCK);
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

/// What a proxy does with each chunk one side sent before passing it on: true passes
/// it (after holding it as long as it likes), false drops the connection.
type Gate = Box<dyn FnMut(&[u8]) -> bool + Send>;

/// A TCP proxy in front of a sink at `sink`, listening on `listen`: each connection's
/// bytes go through a fresh pair of gates, towards the sink and back.
fn proxy<F>(listen: SocketAddr, sink: SocketAddr, gates: F)
where
    F: Fn() -> (Gate, Gate) + Send + 'static,
{
    let listener = TcpListener::bind(listen).unwrap();
    std::thread::spawn(move || {
        for client in listener.incoming().flatten() {
            let Ok(upstream) = TcpStream::connect(sink) else {
                continue;
            };
            let (c2, u2) = (client.try_clone().unwrap(), upstream.try_clone().unwrap());
            let (to_sink, to_client) = gates();
            std::thread::spawn(move || pipe(client, upstream, to_sink));
            std::thread::spawn(move || pipe(u2, c2, to_client));
        }
    });
}

/// Copies `from` to `to` through `gate`, until either side closes or the gate drops it.
fn pipe(mut from: TcpStream, mut to: TcpStream, mut gate: Gate) {
    let mut buf = vec![0u8; 64 << 10];
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        if !gate(&buf[..n]) {
            let _ = to.shutdown(std::net::Shutdown::Both);
            let _ = from.shutdown(std::net::Shutdown::Both);
            return;
        }
        if to.write_all(&buf[..n]).is_err() {
            break;
        }
    }
    let _ = to.shutdown(std::net::Shutdown::Write);
}

/// A proxy that passes bytes on both ways until told to stall, then holds whatever
/// arrives (the connections stay open): a sink that stopped answering, as the browser
/// and the host both see it.
struct StallingProxy {
    stalled: Arc<AtomicBool>,
}

impl StallingProxy {
    fn start(listen: SocketAddr, sink: SocketAddr) -> StallingProxy {
        let stalled = Arc::new(AtomicBool::new(false));
        let flag = stalled.clone();
        let hold = move || -> Gate {
            let flag = flag.clone();
            Box::new(move |_| {
                while flag.load(Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_millis(50));
                }
                true
            })
        };
        proxy(listen, sink, move || (hold(), hold()));
        StallingProxy { stalled }
    }

    fn stall(&self) {
        self.stalled.store(true, Ordering::SeqCst);
    }
}

/// A plain sink on 127.0.0.1 that answers to 127.0.0.2 at its own port, where a test's
/// proxy listens: the sink and that port.
fn sink_behind_a_proxy() -> (SinkProcess, u16) {
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
    (sink, port)
}

/// The sink stalls after some samples are stored: the run runs out of time, and its end
/// says the sink stalled (typed `sink-stalled`, status timed-out), not the page.
#[test]
fn a_sink_that_stalls_mid_run_is_named_as_the_side_that_stalled() {
    let _turn = common::runs::ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    let (sink, port) = sink_behind_a_proxy();
    let proxy = StallingProxy::start(
        SocketAddr::from(([127, 0, 0, 2], port)),
        SocketAddr::from(([127, 0, 0, 1], port)),
    );
    let state = tempfile::tempdir().unwrap();
    let mut run = start_run(state.path(), &sink.url, "15", ONE_BLOCK);
    wait_for_samples(state.path(), 2, &mut run);
    proxy.stall();
    ended(run, state.path(), "timed-out", "sink-stalled");
}

/// A page's own check of its sink, as it reaches the sink: `PUT <upload path>?probe=1`.
const SINK_CHECK: &[u8] = b"?probe=1 HTTP/";

/// A gate towards the sink that counts the pages' sink checks (on any connection, even
/// split between reads) and, at the `nth`, runs `edge` and drops that check unpassed.
fn at_nth_check(seen: Arc<AtomicUsize>, nth: usize, edge: Arc<Mutex<Option<Edge>>>) -> Gate {
    let mut tail: Vec<u8> = Vec::new();
    Box::new(move |chunk| {
        // What the last read ended with, too short to hold a whole check itself.
        let mut window = std::mem::take(&mut tail);
        window.extend_from_slice(chunk);
        let checks = window
            .windows(SINK_CHECK.len())
            .filter(|w| *w == SINK_CHECK);
        let before = seen.fetch_add(checks.count(), Ordering::SeqCst);
        tail = window[window.len().saturating_sub(SINK_CHECK.len() - 1)..].to_vec();
        if before < nth && seen.load(Ordering::SeqCst) >= nth {
            if let Some(edge) = edge.lock().unwrap().take() {
                edge();
            }
            return false;
        }
        true
    })
}

type Edge = Box<dyn FnOnce() + Send>;

/// The sink is killed exactly at a block's edge: when the second page's own check of
/// the sink reaches it (the first block's samples all stored by then), before that check
/// is passed on. The run ends at once, failed, with the typed reason `sink-unreachable`
/// (the host's own upload finds no sink; the page's words alone would name none), and
/// every sample the host acknowledged before the kill is kept, intact.
#[test]
fn a_sink_killed_at_a_blocks_edge_ends_the_run_sink_unreachable_and_keeps_the_block_before() {
    let _turn = common::runs::ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    let (sink, port) = sink_behind_a_proxy();
    let url = sink.url.clone();
    let state = tempfile::tempdir().unwrap();
    let acknowledged = Arc::new(Mutex::new(None));
    let kill: Edge = {
        let (ack, dir) = (acknowledged.clone(), state.path().to_owned());
        // Dropped, the sink process is SIGKILLed and reaped.
        Box::new(move || {
            *ack.lock().unwrap() = Some(stored_samples(&dir));
            drop(sink);
        })
    };
    let (seen, edge) = (
        Arc::new(AtomicUsize::new(0)),
        Arc::new(Mutex::new(Some(kill))),
    );
    let pass = || -> Gate { Box::new(|_| true) };
    proxy(
        SocketAddr::from(([127, 0, 0, 2], port)),
        SocketAddr::from(([127, 0, 0, 1], port)),
        move || (at_nth_check(seen.clone(), 2, edge.clone()), pass()),
    );
    let run = start_run(state.path(), &url, "120", ("6", "3"));
    let report = ended(run, state.path(), "failed", "sink-unreachable");
    let acknowledged = acknowledged.lock().unwrap().take();
    let acknowledged = acknowledged.expect("a second page checked the sink");
    let reps: Vec<&Value> = acknowledged.iter().map(|s| &s["rep"]).collect();
    assert_eq!(
        reps,
        [0, 1, 2],
        "the first block, whole, stored before the edge"
    );
    let samples = report["samples"].as_array().unwrap();
    assert_eq!(
        samples.len(),
        3,
        "nothing uploaded after the edge: {samples:?}"
    );
    for before in &acknowledged {
        let kept = samples
            .iter()
            .find(|s| s["upload_id"] == before["upload_id"]);
        let kept = kept.unwrap_or_else(|| panic!("lost: {before}"));
        assert_eq!(
            (&kept["status"], &kept["intact"], &kept["receipt"]),
            (&"ok".into(), &true.into(), &"found".into()),
            "{kept}"
        );
        assert_eq!(kept["sha256_received"], before["sha256_sent"], "{kept}");
    }
}

/// The browser `unobserved run` (process `run`) started: its child that leads a process
/// group of its own, with every process it spawned (renderers, our own host) in it.
fn browser_group(run: u32) -> i32 {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // pid (comm) state ppid pgrp …; comm may hold spaces, so split after its ')'.
        let Some((head, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let pid: i32 = head.split(' ').next().unwrap().parse().unwrap();
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let (ppid, pgrp): (u32, i32) = (fields[1].parse().unwrap(), fields[2].parse().unwrap());
        if ppid == run && pgrp == pid {
            found.push(pid);
        }
    }
    assert_eq!(found.len(), 1, "one browser group under {run}: {found:?}");
    found[0]
}

/// The browser stalls (its whole process group stopped, SIGSTOP) while the remote sink
/// stays up: the run runs out of time, and its end names the page's side (typed
/// `page-stalled`, status timed-out), the sink having answered the host's own upload.
#[test]
fn a_browser_that_stalls_on_a_live_remote_sink_is_named_as_the_side_that_stalled() {
    let _turn = common::runs::ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    let sink = SinkProcess::start(&["--listen", "127.0.0.1:0"]);
    let state = tempfile::tempdir().unwrap();
    let mut run = start_run(state.path(), &sink.url, "10", ONE_BLOCK);
    wait_for_samples(state.path(), 2, &mut run);
    let group = browser_group(run.id());
    assert_eq!(unsafe { libc::killpg(group, libc::SIGSTOP) }, 0);
    ended(run, state.path(), "timed-out", "page-stalled");
}

/// On the local sink too: a workload module that never settles (its timeout longer than
/// the run's) stalls the page while the host's own sink answers, and the run's end names
/// the page's side, typed `page-stalled`, status timed-out.
#[test]
fn a_page_that_never_settles_on_the_local_sink_is_named_as_the_side_that_stalled() {
    let _turn = common::runs::ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    let hangs = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/workloads/hangs.mjs");
    let state = tempfile::tempdir().unwrap();
    let run = Command::new(BIN)
        .args(["run", "--browser", "chromium", "--quiet"])
        .args(["--connect-timeout", "90", "--timeout", "10"])
        .args(["--reps", "1", "--warmup", "0", "--module-timeout", "600"])
        .arg("--script")
        .arg(format!("hangs={}", hangs.display()))
        .env("UNOBSERVED_STATE_DIR", state.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    ended(run, state.path(), "timed-out", "page-stalled");
}
