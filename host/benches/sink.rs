//! Sink ingest over loopback, side by side in one run (see BENCHMARKS.md):
//!   (a) transport limit: a bare TCP reader that discards
//!   (b) hash limit: SHA-256 of the same bytes in memory
//!   (c) our sink (tiny_http + streaming SHA-256)
//!   (d) a Node.js http sink hashing with `crypto`
//! for 1 and 2 concurrent streams, then the host's peak RSS during a 4 GiB upload.
//!
//! `cargo bench --bench sink` (env: BENCH_GIB=1 per stream, BENCH_ROUNDS=3, BENCH_RSS_GIB=4)

#[path = "../tests/common/mod.rs"]
mod common;

use sha2::{Digest, Sha256};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::process::{Command, Stdio};
use std::time::Instant;

const BUF: usize = 4 << 20;

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn payload() -> Vec<u8> {
    (0..BUF as u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 11) as u8)
        .collect()
}

/// PUTs `total` bytes (the payload repeated) and waits for the reply.
fn upload(addr: SocketAddr, path: &str, total: u64, data: &[u8]) {
    let status = unobserved::sink::ceiling::put_bytes(addr, path, total, data).unwrap();
    assert!(status.starts_with("HTTP/1.1 200"), "{status}");
}

/// Aggregate Gbit/s of `streams` concurrent uploads of `per_stream` bytes.
fn measure(addr: SocketAddr, path: &str, per_stream: u64, streams: usize, data: &[u8]) -> f64 {
    let t = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..streams {
            s.spawn(|| upload(addr, path, per_stream, data));
        }
    });
    (per_stream * streams as u64 * 8) as f64 / t.elapsed().as_secs_f64() / 1e9
}

/// (a) Reads the request and discards the body: what loopback TCP allows.
fn discard_server() -> SocketAddr {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    std::thread::spawn(move || {
        for conn in l.incoming() {
            let mut c = conn.unwrap();
            std::thread::spawn(move || {
                let mut buf = vec![0u8; 256 * 1024];
                let mut head = Vec::new();
                // Headers, then Content-Length bytes.
                let (mut body_seen, len) = loop {
                    let n = c.read(&mut buf).unwrap();
                    head.extend_from_slice(&buf[..n]);
                    if let Some(p) = head.windows(4).position(|w| w == b"\r\n\r\n") {
                        let text = String::from_utf8_lossy(&head[..p]).to_lowercase();
                        let len: u64 = text
                            .lines()
                            .find_map(|l| {
                                l.strip_prefix("content-length: ")
                                    .map(|v| v.trim().parse().unwrap())
                            })
                            .unwrap();
                        break ((head.len() - p - 4) as u64, len);
                    }
                };
                while body_seen < len {
                    body_seen += c.read(&mut buf).unwrap() as u64;
                }
                c.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
                    .unwrap();
            });
        }
    });
    addr
}

/// (b) SHA-256 of the same bytes, in memory, per stream (one core each).
fn hash_limit(per_stream: u64, streams: usize, data: &[u8]) -> f64 {
    let t = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..streams {
            s.spawn(|| {
                let mut h = Sha256::new();
                let mut left = per_stream;
                while left > 0 {
                    let n = left.min(data.len() as u64) as usize;
                    h.update(&data[..n]);
                    left -= n as u64;
                }
                std::hint::black_box(h.finalize());
            });
        }
    });
    (per_stream * streams as u64 * 8) as f64 / t.elapsed().as_secs_f64() / 1e9
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let gib = env_u64("BENCH_GIB", 1);
    let rounds = env_u64("BENCH_ROUNDS", 3) as usize;
    let per_stream = gib << 30;
    let data = payload();

    let discard = discard_server();
    let sink = unobserved::sink::Sink::start(unobserved::sink::SinkConfig::default()).unwrap();
    let sink_path = sink.upload_url().replace(&sink.base_url(), "");
    let mut node = Command::new("node")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../bench/node-hash-sink.mjs"
        ))
        .stdout(Stdio::piped())
        .spawn()
        .expect("node is needed for the (d) column");
    let mut port = String::new();
    {
        let mut out = node.stdout.take().unwrap();
        let mut b = [0u8; 1];
        while out.read(&mut b).unwrap() == 1 && b[0] != b'\n' {
            port.push(b[0] as char);
        }
    }
    let node_addr: SocketAddr = format!("127.0.0.1:{}", port.trim()).parse().unwrap();

    println!("sink ingest, {gib} GiB per stream, median of {rounds} interleaved rounds (Gbit/s)");
    println!(
        "{:>7} {:>9} {:>9} {:>9} {:>9} {:>12} {:>8}",
        "streams", "(a) tcp", "(b) sha", "(c) ours", "(d) node", "c/min(a,b)", "c/d"
    );
    let mut ours_by_streams = Vec::new();
    for streams in [1usize, 2] {
        let (mut a, mut b, mut c, mut d) = (vec![], vec![], vec![], vec![]);
        // Interleaved, so drift on a noisy machine hits every column alike.
        for _ in 0..rounds {
            a.push(measure(discard, "/", per_stream, streams, &data));
            b.push(hash_limit(per_stream, streams, &data));
            c.push(measure(sink.addr(), &sink_path, per_stream, streams, &data));
            d.push(measure(node_addr, "/", per_stream, streams, &data));
        }
        let (a, b, c, d) = (median(a), median(b), median(c), median(d));
        ours_by_streams.push(c);
        println!(
            "{streams:>7} {a:>9.2} {b:>9.2} {c:>9.2} {d:>9.2} {:>12.2} {:>8.2}",
            c / a.min(b),
            c / d
        );
    }
    println!(
        "two streams / one stream, ours: {:.2}x",
        ours_by_streams[1] / ours_by_streams[0]
    );
    let _ = node.kill();
    let _ = node.wait();
    drop(sink);

    rss_during_big_upload(env_u64("BENCH_RSS_GIB", 4), &data);
}

/// Starts the real binary as a browser would, uploads N GiB to its sink, and reads the
/// host's peak RSS (VmHWM) from /proc.
fn rss_during_big_upload(gib: u64, data: &[u8]) {
    let state = tempfile::tempdir().unwrap();
    let mut host = common::Host::chromium(state.path());
    let hello = host.send(&serde_json::json!({"type": "hello"}));
    let url = hello["sink"]["upload_url"].as_str().unwrap();
    let addr: SocketAddr = url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let path = format!(
        "/{}",
        url.trim_start_matches("http://").split_once('/').unwrap().1
    );
    let t = Instant::now();
    upload(addr, &path, gib << 30, data);
    let secs = t.elapsed().as_secs_f64();
    let status = std::fs::read_to_string(format!("/proc/{}/status", host.child.id())).unwrap();
    let hwm = status
        .lines()
        .find(|l| l.starts_with("VmHWM"))
        .unwrap_or("VmHWM: ?")
        .to_owned();
    println!(
        "host peak RSS during a {gib} GiB upload: {} ({:.2} Gbit/s)",
        hwm.trim_start_matches("VmHWM:").trim(),
        (gib << 30) as f64 * 8.0 / secs / 1e9
    );
    host.hang_up();
    let _ = host.child.wait();
}
