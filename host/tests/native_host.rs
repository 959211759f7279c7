//! The built binary, started the way a browser starts it: origin argument, pipes, and a
//! state dir from the environment. Real loopback HTTP to its sink.

mod common;

use common::{Host, BIN, CHROMIUM_ORIGIN};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::time::Duration;

#[test]
fn browser_session_hello_upload_64mib_store_and_clean_shutdown() {
    let state = tempfile::tempdir().unwrap();
    let mut host = Host::start(state.path(), &[CHROMIUM_ORIGIN]);

    let hello = host.send(&json!({"type": "hello", "extension_version": "0.1.0"}));
    assert_eq!(hello["type"], "hello");
    assert!(hello["job"].is_null());
    let upload_url = hello["sink"]["upload_url"].as_str().unwrap().to_owned();
    let base = hello["sink"]["base_url"].as_str().unwrap().to_owned();
    let port: u16 = base.rsplit(':').next().unwrap().parse().unwrap();

    // 64 MiB of patterned bytes over real loopback HTTP.
    let body: Vec<u8> = (0..64 * 1024 * 1024u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    let expected = hex::encode(Sha256::digest(&body));
    // The sink keeps records only for runs the host opened: the run starts first.
    let plan = json!({"size_bytes": body.len(), "reps": 1, "warmup": 0, "bodies": ["Uint8Array"]});
    host.start_run_of("it-1", plan);
    let started = std::time::Instant::now();
    let mut resp = ureq::put(&format!("{upload_url}?run=it-1&upload=big-1"))
        .send(&body[..])
        .unwrap();
    let client_ms = started.elapsed().as_secs_f64() * 1000.0;
    assert_eq!(resp.status(), 200);
    let reply: Value = serde_json::from_reader(resp.body_mut().as_reader()).unwrap();
    assert_eq!(reply["bytes"], body.len() as u64);
    assert_eq!(reply["sha256"], expected);
    // The sink's first-to-last byte lies inside the client's whole request.
    let sink_ms = reply["sink_ms"].as_f64().unwrap();
    assert!(
        sink_ms > 0.0 && sink_ms <= client_ms,
        "{sink_ms} vs {client_ms}"
    );

    let sample = json!({"run_id": "it-1", "body": "Uint8Array", "rep": 0, "upload_id": "big-1", "bytes_sent": body.len(),
        "bytes_received": reply["bytes"], "sha256_sent": expected, "sha256_received": reply["sha256"],
        "intact": true, "status": "ok", "error": null, "page_ms": 100.0, "sink_ms": reply["sink_ms"],
        "mbps": 5368.7, "observed": {"webdriver": false}});
    let ack = host.send(&json!({"type": "samples", "run_id": "it-1", "samples": [sample]}));
    assert_eq!(
        ack,
        json!({"type": "samples-ack", "run_id": "it-1", "count": 1})
    );
    let stored = std::fs::read_to_string(state.path().join("results.jsonl")).unwrap();
    let kinds: Vec<Value> = stored
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["kind"].clone())
        .collect();
    assert_eq!(
        kinds,
        [json!("run"), json!("machine"), json!("sample")],
        "the run, its start calibration and its sample"
    );
    assert!(stored.contains(&expected));
    let record: Value = serde_json::from_str(stored.lines().nth(2).unwrap()).unwrap();
    assert_eq!(
        (record["intact"].as_bool(), record["receipt"].as_str()),
        (Some(true), Some("found"))
    );

    // Closing stdin is how the browser says goodbye: the host must be gone within 1 s.
    host.hang_up();
    let status = host
        .wait_exit(Duration::from_secs(1))
        .expect("host still running 1 s after EOF");
    assert!(status.success(), "{status:?}");
    assert!(
        TcpStream::connect(("127.0.0.1", port)).is_err(),
        "sink port {port} still open"
    );
}

#[test]
fn firefox_style_arguments_are_accepted() {
    let state = tempfile::tempdir().unwrap();
    let mut host = Host::start(
        state.path(),
        &[
            "/x/.mozilla/native-messaging-hosts/org.unobserved.host.json",
            "unobserved@unobserved.org",
        ],
    );
    assert_eq!(host.send(&json!({"type": "hello"}))["type"], "hello");
}

#[test]
fn an_unknown_caller_is_refused_with_exit_3_and_not_one_frame() {
    let state = tempfile::tempdir().unwrap();
    let mut host = Host::start(
        state.path(),
        &["chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/"],
    );
    let status = host
        .wait_exit(Duration::from_secs(5))
        .expect("refused host must exit");
    assert_eq!(status.code(), Some(3));
    let mut said = Vec::new();
    std::io::Read::read_to_end(&mut host.stdout, &mut said).unwrap();
    assert!(
        said.is_empty(),
        "a refused caller is told nothing: {said:?}"
    );
}

#[test]
fn a_store_assigned_id_is_accepted_once_allowed() {
    let state = tempfile::tempdir().unwrap();
    std::fs::write(
        state.path().join("allowed-ids.json"),
        r#"{"extension_ids":["bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"]}"#,
    )
    .unwrap();
    let mut host = Host::start(
        state.path(),
        &["chrome-extension://bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb/"],
    );
    assert_eq!(host.send(&json!({"type": "hello"}))["type"], "hello");
}

#[test]
fn stdout_carries_frames_only_even_for_bad_input() {
    let state = tempfile::tempdir().unwrap();
    let mut host = Host::start(state.path(), &[CHROMIUM_ORIGIN]);
    let stdin = host.stdin.as_mut().unwrap();
    stdin.write_all(&5u32.to_ne_bytes()).unwrap();
    stdin.write_all(b"{bad}").unwrap();
    let reply = host.recv();
    assert_eq!(
        (reply["type"].as_str(), reply["code"].as_u64()),
        (Some("error"), Some(5))
    );
    host.hang_up();
    host.wait_exit(Duration::from_secs(1)).unwrap();
    let mut rest = Vec::new();
    host.stdout.read_to_end(&mut rest).unwrap();
    assert!(
        rest.is_empty(),
        "nothing but frames on stdout: {:?}",
        String::from_utf8_lossy(&rest)
    );
}

#[test]
fn cli_mode_prints_help() {
    let state = tempfile::tempdir().unwrap();
    let out = Command::new(BIN)
        .arg("--help")
        .env("UNOBSERVED_STATE_DIR", state.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for word in [
        "run",
        "report",
        "install",
        "uninstall",
        "doctor",
        "pack",
        "Exit codes",
    ] {
        assert!(text.contains(word), "help lacks {word}");
    }
}

/// Sends one frame without waiting for a reply.
fn send_raw(host: &mut Host, body: &[u8]) -> Value {
    let stdin = host.stdin.as_mut().unwrap();
    stdin.write_all(&(body.len() as u32).to_ne_bytes()).unwrap();
    stdin.write_all(body).unwrap();
    stdin.flush().unwrap();
    host.recv()
}

#[test]
fn the_worst_64_mib_frames_are_refused_within_256_mib_of_memory() {
    let state = tempfile::tempdir().unwrap();
    let mut host = Host::chromium(state.path());
    let near = 64 * 1024 * 1024 - 64;
    // A flat array of zeros, a samples batch of tiny objects, a run with a huge map of
    // extra fields, and an error with a huge message: each once parsed whole into
    // generic values took up to ~2 GiB.
    let mut zeros = b"[0".to_vec();
    while zeros.len() < near {
        zeros.extend_from_slice(b",0");
    }
    zeros.push(b']');
    let mut samples = br#"{"type":"samples","run_id":"x","samples":[{}"#.to_vec();
    while samples.len() < near {
        samples.extend_from_slice(b",{}");
    }
    samples.extend_from_slice(b"]}");
    let mut run = br#"{"type":"run-started","run":{"a0":0"#.to_vec();
    let mut i = 1u64;
    while run.len() < near {
        run.extend_from_slice(format!(",\"a{i}\":0").as_bytes());
        i += 1;
    }
    run.extend_from_slice(b"}}");
    let mut error = br#"{"type":"error","message":""#.to_vec();
    error.resize(near, b'a');
    error.extend_from_slice(b"\"}");
    // An unknown type, once echoed whole into replies and log lines, took 267 MiB; of
    // U+0085, each escaped to six chars, 555 MiB.
    let (long_type, u0085_type) = (
        unknown_type_frame("A", near),
        unknown_type_frame("\u{85}", near),
    );
    for frame in [&zeros, &samples, &run, &error, &long_type, &u0085_type] {
        let reply = send_raw(&mut host, frame);
        assert_eq!(reply["type"], "error", "{reply}");
    }
    assert_eq!(
        host.send(&json!({"type": "hello"}))["type"],
        "hello",
        "still in sync"
    );
    let status = std::fs::read_to_string(format!("/proc/{}/status", host.child.id())).unwrap();
    let hwm_kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse().ok())
        .unwrap();
    assert!(hwm_kb < 256 * 1024, "peak RSS {hwm_kb} kB");
}

#[test]
fn untrusted_text_cannot_forge_a_log_line() {
    let state = tempfile::tempdir().unwrap();
    let mut host = Host::chromium(state.path());
    let forged = "2026-11-30T00:00:00.000Z 1 ERROR unobserved: store write failed: forged";
    let reply = host.send(&json!({"type": "error", "message": format!("oops\n{forged}")}));
    assert_eq!(reply["type"], "error-logged");
    host.hang_up();
    host.wait_exit(Duration::from_secs(15))
        .expect("the host exits at EOF");
    let log = std::fs::read_to_string(state.path().join("unobserved.log")).unwrap();
    assert!(!log.lines().any(|l| l == forged), "{log}");
}

/// `{"type":"<name>"}` with `name` of `repeat` repeated to make about `bytes` bytes.
fn unknown_type_frame(repeat: &str, bytes: usize) -> Vec<u8> {
    let name = repeat.repeat(bytes / repeat.len());
    format!(r#"{{"type":"{name}"}}"#).into_bytes()
}

/// The host's log file and its rotated predecessor, as they are now.
fn log_files(state: &std::path::Path) -> [Vec<u8>; 2] {
    ["unobserved.log", "unobserved.log.1"].map(|f| std::fs::read(state.join(f)).unwrap_or_default())
}

/// Sends `frame`, checks it is refused with `code` and that `hello` is still answered,
/// then hangs up; returns how long the refusal took.
fn refused_then_hello(host: &mut Host, frame: &[u8], code: u64) -> Duration {
    let started = std::time::Instant::now();
    let reply = send_raw(host, frame);
    let took = started.elapsed();
    assert_eq!(
        (reply["type"].as_str(), reply["code"].as_u64()),
        (Some("error"), Some(code))
    );
    assert_eq!(host.send(&json!({"type": "hello"}))["type"], "hello");
    host.hang_up();
    host.wait_exit(Duration::from_secs(15))
        .expect("the host exits at EOF");
    took
}

/// 64 KiB: room for many ordinary lines, far from one frame's 16 MiB.
const SMALL: usize = 64 << 10;

#[test]
fn a_16_mib_unknown_type_is_refused_in_a_few_small_lines() {
    let state = tempfile::tempdir().unwrap();
    let stderr_path = state.path().join("stderr");
    let stderr = std::fs::File::create(&stderr_path).unwrap();
    let mut host = Host::chromium_with_stderr(state.path(), stderr);
    refused_then_hello(&mut host, &unknown_type_frame("A", 16 << 20), 7);
    let [log, old] = log_files(state.path());
    assert!(old.is_empty(), "rotated: {} bytes moved aside", old.len());
    assert!(log.len() < SMALL, "log file {} bytes", log.len());
    let stderr = std::fs::metadata(&stderr_path).unwrap().len();
    assert!(stderr < SMALL as u64, "stderr {stderr} bytes");
}

#[test]
fn a_16_mib_type_of_u0085_is_refused_quickly_and_keeps_the_log_history() {
    let state = tempfile::tempdir().unwrap();
    // Earlier history, as a long-used state dir has.
    let history: Vec<u8> = (0..1000)
        .flat_map(|i| format!("earlier line {i}\n").into_bytes())
        .collect();
    std::fs::write(state.path().join("unobserved.log"), &history).unwrap();
    let mut host = Host::chromium(state.path());
    // Raw U+0085 (C2 85): each is escaped to six chars when a log line quotes it.
    let took = refused_then_hello(&mut host, &unknown_type_frame("\u{85}", 16 << 20), 7);
    assert!(took < Duration::from_secs(20), "refused after {took:?}");
    let [log, old] = log_files(state.path());
    assert!(
        log.starts_with(&history) || old.starts_with(&history),
        "the history is gone: {} + {} bytes",
        log.len(),
        old.len()
    );
    assert!(
        log.len() < history.len() + SMALL,
        "log file {} bytes",
        log.len()
    );
}
