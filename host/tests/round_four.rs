//! Hardening, round four (SECURITY.md): what an outside probe found a page or a device
//! on the LAN could do to the host, each tried again here against the real binary over
//! loopback, with its guard in place.

mod common;

use common::serve::Serve;
use common::{Host, SinkProcess, CHROMIUM_ORIGIN};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::path::Path;
use std::time::{Duration, Instant};

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

/// A native host given build 0 of two interleaved builds whose turns live in `turns`
/// (as `unobserved run --browser-path A --browser-path B` starts it), asked to start its
/// run: its reply, and how long it took.
fn start_interleaved_build(state: &Path, turns: &Path) -> (Value, Duration, Host) {
    let plan = json!({"size_bytes": 1024, "reps": 1, "warmup": 0, "bodies": ["Blob"]});
    let job = state.join("job.json");
    let tag = json!({"group": "g", "position": 0, "builds": 2});
    let body = json!({"run_id": "r1", "plan": plan, "turns": {"tag": tag, "gate_dir": turns}});
    std::fs::write(&job, body.to_string()).unwrap();
    let env = [("UNOBSERVED_JOB", job.to_str().unwrap())];
    let mut host = Host::start_with_env(state, &[CHROMIUM_ORIGIN], &env);
    let hello = host.send(&json!({"type": "hello"}));
    assert_eq!(hello["job"]["run_id"], "r1", "{hello}");
    let run = json!({"run_id": "r1", "browser": "Chromium", "browser_version": "156",
        "os": "Linux", "extension_version": "0.1.0", "source": "job",
        "started_at": "2026-11-30T00:00:00Z", "plan": plan});
    let asked = Instant::now();
    let reply = host.send(&json!({"type": "run-started", "run": run}));
    (reply, asked.elapsed(), host)
}

/// The reply's type and numbered error.
fn typed(reply: &Value) -> (Option<&str>, Option<u64>) {
    (reply["type"].as_str(), reply["code"].as_u64())
}

/// A turns lock held by another process made `run-started` wait forever (660 s seen,
/// error 17 never came). Now the lock is waited for a bounded time, whoever holds it.
#[test]
fn a_turns_lock_held_by_another_process_fails_run_started_with_error_17_in_bounded_time() {
    let (state, turns) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    std::fs::write(turns.path().join("turn"), "0").unwrap();
    // This test process holds the lock (the host is another process), and lets go
    // after 30 s: a host that waited for it anyway would then start the run.
    let held = std::fs::File::open(turns.path().join("turn")).unwrap();
    held.lock().unwrap();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(30));
        drop(held);
    });
    let (reply, took, _host) = start_interleaved_build(state.path(), turns.path());
    assert_eq!(typed(&reply), (Some("error"), Some(17)), "{reply}");
    let bound = unobserved::platform::turns::LOCK_WAIT;
    assert!(
        took >= bound && took < bound + Duration::from_secs(10),
        "{took:?}"
    );
}

/// `turn` and `done-0` in the turns folder were followed when they were links: the
/// target was overwritten or truncated. Now each is refused (error 17) and its target
/// is left as it was, through the session's end (where build 0 marks itself done).
#[test]
fn links_in_the_turns_folder_are_refused_and_their_targets_left_alone() {
    for planted in ["turn", "done-0"] {
        let (state, turns) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let victim = state.path().join("victim");
        std::fs::write(&victim, "precious").unwrap();
        if planted != "turn" {
            std::fs::write(turns.path().join("turn"), "0").unwrap();
        }
        std::os::unix::fs::symlink(&victim, turns.path().join(planted)).unwrap();
        let (reply, _, mut host) = start_interleaved_build(state.path(), turns.path());
        assert_eq!(
            typed(&reply),
            (Some("error"), Some(17)),
            "{planted}: {reply}"
        );
        host.hang_up();
        assert!(
            host.wait_exit(Duration::from_secs(10)).is_some(),
            "{planted}"
        );
        let kept = std::fs::read_to_string(&victim).unwrap();
        assert_eq!(kept, "precious", "{planted} was followed");
    }
}
/// A sample whose arm claims 2^62 parallel streams.
fn two_to_the_62_streams() -> Value {
    json!({"body": "Blob", "rep": 0, "upload_id": "p",
        "arm": {"kind": "parallel", "streams": 1u64 << 62},
        "bytes_sent": 1024, "sha256_sent": "x", "bytes_received": 1024, "sha256_received": "x",
        "intact": true, "status": "ok", "error": null, "page_ms": 1.0, "sink_ms": 0.5,
        "mbps": 1.0, "observed": {"webdriver": false}})
}

/// `f` on a thread of its own, or None if it took longer than `within` (a hang).
fn within<T: Send + 'static>(
    within: Duration,
    f: impl FnOnce() -> T + Send + 'static,
) -> Option<T> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(within).ok()
}

/// One ~300-byte sample of 2^62 streams made the host loop over every stream id while
/// holding serve's one state lock: every page's messages timed out and SIGTERM no longer
/// stopped it. Now it is refused in milliseconds, another page is answered, and SIGTERM
/// stops serve.
#[test]
fn a_sample_of_two_to_the_62_streams_leaves_serve_answering_and_stoppable() {
    let mut serve = Serve::start(
        &[
            "--size", "1KiB", "--reps", "3", "--warmup", "0", "--bodies", "Blob",
        ],
        false,
    );
    let started = serve.call("POST", "start", None);
    assert_eq!(started.status, 200, "{started:?}");
    let (run, key) = (
        started.body["run_id"].as_str().unwrap().to_owned(),
        started.body["run_key"].as_str().unwrap().to_owned(),
    );
    let (port, token) = (serve.port(), serve.token());
    let message = json!({"key": key, "samples": [two_to_the_62_streams()]});
    let t = Instant::now();
    let refused = within(Duration::from_secs(5), move || {
        common::serve::request(
            &format!("127.0.0.1:{port}"),
            &format!("127.0.0.1:{port}"),
            "POST",
            &format!("/serve/{token}/runs/{run}/samples"),
            &[],
            Some(&serde_json::to_vec(&message).unwrap()),
        )
    })
    .expect("the sample was not answered within 5 s");
    assert!(
        t.elapsed() < Duration::from_millis(500),
        "{:?}",
        t.elapsed()
    );
    assert_eq!(
        (refused.status, &refused.body["code"], &refused.body["kind"]),
        (400, &json!(18), &json!("arm-not-planned")),
        "{refused:?}"
    );
    // Another page is answered at once.
    let t = Instant::now();
    let offer = serve.call("GET", "offer", None);
    assert_eq!(offer.status, 200, "{offer:?}");
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    // And SIGTERM stops serve, recording the open run as stopped.
    unsafe { libc::kill(serve.child.id() as i32, libc::SIGTERM) };
    let deadline = Instant::now() + Duration::from_secs(5);
    let status = loop {
        if let Some(status) = serve.child.try_wait().unwrap() {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "serve still running 5 s after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(0));
    assert!(serve
        .store()
        .iter()
        .any(|r| r["kind"] == "run_end" && r["status"] == "stopped"));
}

/// The native host, sent the same sample, answers error 18 and still exits when its
/// stdin closes (it used to loop on, long after the browser went away).
#[test]
fn a_native_host_sent_two_to_the_62_streams_exits_when_stdin_closes() {
    let state = tempfile::tempdir().unwrap();
    let mut host = Host::chromium(state.path());
    host.start_run("r1");
    let mut huge = two_to_the_62_streams();
    huge["run_id"] = json!("r1");
    for (k, v) in [
        ("browser", "Chromium"),
        ("browser_version", "156"),
        ("os", "Linux"),
        ("extension_version", "0.1.0"),
    ] {
        huge[k] = json!(v);
    }
    let body =
        serde_json::to_vec(&json!({"type": "samples", "run_id": "r1", "samples": [huge]})).unwrap();
    let stdin = host.stdin.as_mut().unwrap();
    stdin.write_all(&(body.len() as u32).to_ne_bytes()).unwrap();
    stdin.write_all(&body).unwrap();
    host.hang_up();
    let status = host
        .wait_exit(Duration::from_secs(2))
        .expect("the host still running 2 s after its stdin closed");
    assert!(status.success(), "{status:?}");
    let reply = host.recv();
    assert_eq!(
        (&reply["type"], &reply["code"], &reply["kind"]),
        (&json!("error"), &json!(18), &json!("arm-not-planned")),
        "{reply}"
    );
}

/// A 16-byte test upload (the page's `?probe=1`) on a kept-alive connection: the reply's
/// status, or 0 when the connection was closed.
fn probe_kept_alive(stream: &mut TcpStream, authority: &str, token: &str) -> u16 {
    let head = format!(
        "PUT /upload/{token}?probe=1 HTTP/1.1\r\nhost: {authority}\r\ncontent-length: 16\r\n\r\n"
    );
    if stream.write_all(head.as_bytes()).is_err() || stream.write_all(&[0; 16]).is_err() {
        return 0;
    }
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    let _ = reader.read_line(&mut line);
    let status = line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let mut length = 0usize;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).unwrap_or(0) == 0 || header == "\r\n" {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().unwrap_or(0);
            }
        }
    }
    let mut body = vec![0; length];
    let _ = reader.read_exact(&mut body);
    status
}

/// 256 kept-alive connections from one peer, each having sent one test upload, were
/// never evicted (the upload carried the token, which marked the connection in use for
/// good) and loopback had no per-peer cap: an honest page got 503 for 45 of 45 s. Now a
/// connection is in use only while a request is, every peer has a cap (loopback too),
/// the connection idle longest makes room, and test uploads are rate-limited as starts.
#[test]
fn idle_keep_alive_connections_from_one_peer_leave_an_honest_page_served_within_2_s() {
    let serve = Serve::start(
        &[
            "--size", "1KiB", "--reps", "3", "--warmup", "0", "--bodies", "Blob",
        ],
        false,
    );
    let addr: SocketAddr = format!("127.0.0.1:{}", serve.port()).parse().unwrap();
    let (authority, token) = (serve.authority(), serve.token());
    let mut held = Vec::new();
    let mut statuses: BTreeMap<u16, usize> = BTreeMap::new();
    for _ in 0..256 {
        let Ok(mut stream) = TcpStream::connect(addr) else {
            continue;
        };
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        *statuses
            .entry(probe_kept_alive(&mut stream, &authority, &token))
            .or_default() += 1;
        held.push(stream);
    }
    let t = Instant::now();
    let offer = serve.call("GET", "offer", None);
    assert_eq!(offer.status, 200, "{offer:?}");
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    // The test uploads themselves: a few taken, the rest 429.
    let taken = statuses.get(&200).copied().unwrap_or(0);
    assert!(
        (1..=8).contains(&taken) && statuses.get(&429).copied().unwrap_or(0) > 200,
        "{statuses:?}"
    );
    drop(held);
}

/// A page's start from `from` (a loopback address), as `Serve::call` sends it.
fn start_from(from: Ipv4Addr, addr: SocketAddr, authority: &str, token: &str) -> u16 {
    let ua = [("user-agent", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/60.5 Safari/605.1.15")];
    let stream = common::serve::connect_from(from, addr);
    let path = format!("/serve/{token}/start");
    common::serve::request_on(stream, authority, "POST", &path, &ua, Some(b"{}")).status
}

/// 40 starts from 127.0.0.2-41 were all admitted (the limit was per address only), and
/// 50 concurrent starts of a 32 MiB plan, each measuring the sink's ceiling under
/// serve's one lock, held an honest page's message for 31 s. Now starts are limited in
/// total too: a few are admitted, the rest 429 at once, and the honest page waits for
/// those few only.
#[test]
fn starts_from_forty_addresses_are_limited_in_total_and_an_honest_page_is_answered() {
    let serve = Serve::start(
        &[
            "--size", "32MiB", "--reps", "3", "--warmup", "0", "--bodies", "Blob",
        ],
        false,
    );
    let addr: SocketAddr = format!("127.0.0.1:{}", serve.port()).parse().unwrap();
    let starts: Vec<_> = (2..42u8)
        .map(|i| {
            let (authority, token) = (serve.authority(), serve.token());
            std::thread::spawn(move || {
                start_from(Ipv4Addr::new(127, 0, 0, i), addr, &authority, &token)
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let t = Instant::now();
    let offer = serve.call("GET", "offer", None);
    let waited = t.elapsed();
    let statuses: Vec<u16> = starts.into_iter().map(|s| s.join().unwrap()).collect();
    let admitted = statuses.iter().filter(|&&s| s == 200).count();
    let limited = statuses.iter().filter(|&&s| s == 429).count();
    eprintln!("admitted {admitted}, limited {limited}, the honest page waited {waited:?}");
    assert!(
        (1..=8).contains(&admitted) && admitted + limited == 40,
        "{statuses:?}"
    );
    assert_eq!(offer.status, 200, "{offer:?}");
    assert!(waited < Duration::from_secs(10), "{waited:?}");
}
