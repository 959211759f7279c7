//! The sink over real loopback HTTP: every bad request gets its status, and the sink
//! keeps serving others.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use unobserved::sink::{Sink, SinkConfig, SinkEvent};

fn start(max_body: u64) -> (Sink, Arc<Mutex<Vec<SinkEvent>>>) {
    let events = Arc::new(Mutex::new(Vec::new()));
    let seen = events.clone();
    let sink = Sink::start(SinkConfig {
        max_body,
        on_event: Some(Arc::new(move |e| seen.lock().unwrap().push(e))),
        ..SinkConfig::default()
    })
    .unwrap();
    (sink, events)
}

fn status_of(result: Result<ureq::http::Response<ureq::Body>, ureq::Error>) -> u16 {
    match result {
        Ok(r) => r.status().as_u16(),
        Err(ureq::Error::StatusCode(c)) => c,
        Err(e) => panic!("{e}"),
    }
}

fn good_upload_works(sink: &Sink) {
    let mut r = ureq::put(&sink.upload_url()).send(&b"abc"[..]).unwrap();
    let v: serde_json::Value = serde_json::from_reader(r.body_mut().as_reader()).unwrap();
    assert_eq!(v["sha256"], "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assert_eq!(v["head"], "abc");
}

#[test]
fn token_path_and_size_errors() {
    let (sink, _) = start(1000);
    let base = sink.base_url();
    assert_eq!(status_of(ureq::put(&format!("{base}/upload/")).send(&b"x"[..])), 403, "missing token");
    assert_eq!(status_of(ureq::put(&format!("{base}/upload/00000000000000000000000000000000")).send(&b"x"[..])), 403, "wrong token");
    assert_eq!(status_of(ureq::get(&format!("{base}/nope")).call()), 404);
    assert_eq!(status_of(ureq::get(&format!("{base}/lib/../manifest.json")).call()), 404);
    assert_eq!(status_of(ureq::put(&sink.upload_url()).send(&vec![0u8; 5000][..])), 413);
    good_upload_works(&sink);
}

#[test]
fn post_is_accepted_like_put() {
    let (sink, _) = start(1 << 20);
    assert_eq!(status_of(ureq::post(&sink.upload_url()).send(&b"hello"[..])), 200);
}

#[test]
fn the_benchmark_page_is_served() {
    let (sink, _) = start(1 << 20);
    let mut r = ureq::get(&sink.page_url()).call().unwrap();
    assert!(r.headers().get("content-type").unwrap().to_str().unwrap().starts_with("text/html"));
    assert!(r.body_mut().read_to_string().unwrap().contains("bench.js"));
    assert_eq!(status_of(ureq::get(&format!("{}/lib/plan.js", sink.base_url())).call()), 200);
}

#[test]
fn malformed_http_gets_400_and_the_sink_keeps_serving() {
    let (sink, _) = start(1 << 20);
    let mut s = TcpStream::connect(sink.addr()).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    s.write_all(b"THIS IS NOT HTTP\r\n\r\n").unwrap();
    let mut reply = String::new();
    let _ = s.read_to_string(&mut reply);
    assert!(reply.starts_with("HTTP/1.1 400"), "{reply:?}");
    good_upload_works(&sink);
}

#[test]
fn an_aborted_upload_is_recorded_with_its_byte_count() {
    let (sink, events) = start(1 << 30);
    let mut s = TcpStream::connect(sink.addr()).unwrap();
    let path = sink.upload_url().replace(&sink.base_url(), "");
    write!(s, "PUT {path} HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n").unwrap();
    s.write_all(&[7u8; 300_000]).unwrap();
    drop(s);
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while events.lock().unwrap().is_empty() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let events = events.lock().unwrap();
    match events.first() {
        Some(SinkEvent::Aborted { bytes, path }) => {
            assert_eq!(*bytes, 300_000);
            assert_eq!(path, "/upload/<token>", "the token never reaches the store");
        }
        other => panic!("no abort recorded: {other:?}"),
    }
    drop(events);
    good_upload_works(&sink);
}

#[test]
fn chunked_bodies_are_hashed_too() {
    let (sink, _) = start(1 << 20);
    let url = sink.upload_url();
    let path = url.replace(&sink.base_url(), "");
    let mut s = TcpStream::connect(sink.addr()).unwrap();
    write!(s, "PUT {path} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n1\r\na\r\n2\r\nbc\r\n0\r\n\r\n").unwrap();
    let mut reply = String::new();
    s.read_to_string(&mut reply).unwrap();
    assert!(reply.contains("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"), "{reply}");
}
