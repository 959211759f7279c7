//! The sink's arrival record of an upload (`timeline` in its reply), from a real
//! loopback client: a pause in the body shows as a stall where it fell, a steady body
//! shows none, and the record stays bounded and ends at the bytes received whatever
//! the size.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;
use unobserved::sink::ceiling::{probe_bytes, Client};
use unobserved::sink::{Sink, SinkConfig};

const MIB: u64 = 1 << 20;

/// One at a time: a GiB upload beside the steady one would starve its receive loop on
/// two cores, and that would be a stall.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn turn() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner())
}

/// PUTs `parts` one after another on one request, pausing `pause` between them, and
/// returns the reply's JSON (HTTP/1.1, chunked reply body, connection closed).
fn paused_put(sink: &Sink, parts: &[&[u8]], pause: Duration) -> serde_json::Value {
    let total: usize = parts.iter().map(|p| p.len()).sum();
    let mut c = TcpStream::connect(sink.addr()).unwrap();
    write!(
        c,
        "PUT {} HTTP/1.1\r\nHost: {}\r\nContent-Length: {total}\r\nConnection: close\r\n\r\n",
        sink.upload_path(),
        sink.addr()
    )
    .unwrap();
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            std::thread::sleep(pause);
        }
        c.write_all(part).unwrap();
        c.flush().unwrap();
    }
    let mut reply = Vec::new();
    c.read_to_end(&mut reply).unwrap();
    let text = String::from_utf8(reply).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    serde_json::from_str(&dechunk(body)).unwrap()
}

/// A chunked body's content.
fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    loop {
        let (size, rest) = body.split_once("\r\n").unwrap();
        let n = usize::from_str_radix(size.trim(), 16).unwrap();
        if n == 0 {
            return out;
        }
        out.push_str(&rest[..n]);
        body = &rest[n + 2..];
    }
}

fn points(t: &serde_json::Value) -> Vec<(f64, u64)> {
    serde_json::from_value(t["points"].clone()).unwrap()
}

/// Monotonic, bounded, and ending at the last byte and at `bytes`.
fn assert_well_formed(reply: &serde_json::Value) {
    let t = &reply["timeline"];
    let p = points(t);
    assert!(!p.is_empty() && p.len() <= 512, "{} points", p.len());
    assert!(
        p.windows(2).all(|w| w[0].0 <= w[1].0 && w[0].1 < w[1].1),
        "not monotonic"
    );
    let last = *p.last().unwrap();
    assert_eq!(
        last.1,
        reply["bytes"].as_u64().unwrap(),
        "ends at the bytes"
    );
    assert_eq!(t["bytes"], reply["bytes"]);
    assert_eq!(Some(last.0), t["last_byte_ms"].as_f64());
    assert!(t["first_byte_ms"].as_f64().unwrap() <= last.0);
}

#[test]
fn a_pause_in_the_body_is_a_stall_between_the_two_mib_marks() {
    let _turn = turn();
    let sink = Sink::start(SinkConfig::default()).unwrap();
    let data = probe_bytes(MIB as usize);
    let reply = paused_put(&sink, &[&data, &data], Duration::from_millis(400));
    assert_eq!(reply["bytes"], 2 * MIB);
    assert_well_formed(&reply);
    let t = &reply["timeline"];
    let long: Vec<&serde_json::Value> = t["stalls"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["ms"].as_f64().unwrap() >= 300.0)
        .collect();
    assert_eq!(long.len(), 1, "one long stall: {}", t["stalls"]);
    let stall = long[0];
    assert!(stall["ms"].as_f64().unwrap() <= 700.0, "{stall}");
    let at = stall["at_bytes"].as_u64().unwrap();
    assert!(
        at > 0 && at <= MIB,
        "the stall fell within the first MiB: {stall}"
    );
    // After the stall, the second MiB: the curve crosses 1 MiB only after it (each
    // figure is rounded to 10 µs, so the sum may be 20 µs late).
    let after = stall["at_ms"].as_f64().unwrap() + stall["ms"].as_f64().unwrap() - 0.02;
    let past_first: Vec<_> = points(t).into_iter().filter(|p| p.1 > MIB).collect();
    assert!(past_first.iter().all(|p| p.0 >= after), "{past_first:?}");
    assert_eq!(points(t).last().unwrap().1, 2 * MIB);
}

#[test]
fn a_steady_upload_shows_no_stall() {
    let _turn = turn();
    let sink = Sink::start(SinkConfig::default()).unwrap();
    let data = probe_bytes(MIB as usize);
    let reply = paused_put(&sink, &[&data, &data], Duration::ZERO);
    assert_well_formed(&reply);
    assert_eq!(reply["timeline"]["stall_count"], 0, "{}", reply["timeline"]);
}

#[test]
fn a_gib_upload_keeps_at_most_512_points_and_ends_at_its_bytes() {
    let _turn = turn();
    let sink = Sink::start(SinkConfig::default()).unwrap();
    // Generated as it is sent (4 MiB repeated), never held whole.
    let data = probe_bytes(4 << 20);
    let reply = Client::connect(sink.addr())
        .unwrap()
        .put(&sink.upload_path(), 1 << 30, &data)
        .unwrap();
    assert_eq!(reply.status, 200);
    let v: serde_json::Value = serde_json::from_slice(&reply.body).unwrap();
    assert_eq!(v["bytes"], 1u64 << 30);
    assert_well_formed(&v);
    assert!(
        points(&v["timeline"]).len() > 64,
        "{}",
        v["timeline"]["points"]
    );
}

#[test]
fn the_extensions_page_may_read_the_uploads_resource_timing() {
    let _turn = turn();
    let sink = Sink::start(SinkConfig::default()).unwrap();
    let origin = "chrome-extension://ofhblkgjlepfiadjplffojmacooicfhm";
    let resp = ureq::put(&sink.upload_url())
        .header("Origin", origin)
        .send(&b"abc"[..])
        .unwrap();
    assert_eq!(
        resp.headers()
            .get("timing-allow-origin")
            .map(|v| v.to_str().unwrap()),
        Some(origin)
    );
}
