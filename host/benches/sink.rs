//! The sink's receive path and hashing, side by side in one run (BENCHMARKS.md):
//!   (a) raw loopback TCP: a reader that discards the body
//!   (b) the write-up's sink: Node.js `http`, counting bytes only
//!   (c) `unobserved sink`: first byte sent to the response headers (the browser's span)
//!   (d) `unobserved sink`: first byte sent to the digest in the body
//!   (e) a Node.js `http` sink hashing with `crypto`
//!   (f) `openssl speed -evp sha256`, one core
//! for 1 and 2 concurrent streams, then the sink's peak RSS during a 4 GiB upload with
//! the default hash queue and with a 32 MiB one.
//!
//! `cargo bench --bench sink` (env: BENCH_MIB=256 per upload, BENCH_ROUNDS=5,
//! BENCH_RSS_GIB=4)

#[path = "../tests/common/mod.rs"]
mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use unobserved::sink::ceiling::{probe_bytes, Client};

use common::env_u64;

/// Seconds to the response headers and to the whole reply, for `streams` concurrent
/// uploads of `total` bytes each (the slowest stream's).
fn upload(addr: SocketAddr, path: &str, total: u64, streams: usize, data: &[u8]) -> (f64, f64) {
    let t = Instant::now();
    let ends: Vec<Duration> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..streams)
            .map(|_| {
                s.spawn(|| {
                    let reply = Client::connect(addr)
                        .unwrap()
                        .put(path, total, data)
                        .unwrap();
                    assert_eq!(
                        reply.status,
                        200,
                        "{}",
                        String::from_utf8_lossy(&reply.body)
                    );
                    (reply.to_headers, t.elapsed())
                })
            })
            .collect();
        let all: Vec<(Duration, Duration)> =
            handles.into_iter().map(|h| h.join().unwrap()).collect();
        vec![
            all.iter().map(|a| a.0).max().unwrap(),
            all.iter().map(|a| a.1).max().unwrap(),
        ]
    });
    (ends[0].as_secs_f64(), ends[1].as_secs_f64())
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

/// Starts a Node sink script from bench/ and returns it with its address.
fn node_sink(script: &str) -> (Child, SocketAddr) {
    let mut child = Command::new("node")
        .arg(format!("{}/../bench/{script}", env!("CARGO_MANIFEST_DIR")))
        .stdout(Stdio::piped())
        .spawn()
        .expect("node is needed for the Node columns");
    let mut port = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut port)
        .unwrap();
    (child, format!("127.0.0.1:{}", port.trim()).parse().unwrap())
}

/// Starts `unobserved sink` and returns it with its address and upload path.
fn our_sink(extra: &[&str]) -> (common::SinkProcess, SocketAddr, String) {
    let args: Vec<&str> = ["--listen", "127.0.0.1:0"]
        .iter()
        .chain(extra)
        .copied()
        .collect();
    let sink = common::SinkProcess::start(&args);
    let (addr, path) = (sink.authority().parse().unwrap(), sink.path());
    (sink, addr, path)
}

/// `openssl speed -evp sha256` on 1 MiB blocks, one core, in MB/s; with `mask`, the
/// CPU features OpenSSL may use are cut down (OPENSSL_ia32cap) to show a CPU without them.
fn openssl_sha256(mask: Option<&str>) -> Option<f64> {
    let mut cmd = Command::new("openssl");
    cmd.args([
        "speed", "-evp", "sha256", "-bytes", "1048576", "-seconds", "2",
    ])
    .stderr(Stdio::null());
    if let Some(m) = mask {
        cmd.env("OPENSSL_ia32cap", m);
    }
    let out = cmd.output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let last = text.lines().rev().find(|l| l.starts_with("sha256"))?;
    let kbytes: f64 = last
        .split_whitespace()
        .last()?
        .trim_end_matches('k')
        .parse()
        .ok()?;
    Some(kbytes * 1000.0 / 1e6)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let mib = env_u64("BENCH_MIB", 256);
    let rounds = env_u64("BENCH_ROUNDS", 5) as usize;
    let total = mib << 20;
    let data = probe_bytes(4 << 20);
    let gbps = |secs: f64, streams: usize| (total * streams as u64 * 8) as f64 / secs / 1e9;

    println!(
        "CPU: {}",
        unobserved::platform::cpu::describe().unwrap_or_default()
    );
    let discard = discard_server();
    let (mut count, count_addr) = node_sink("node-count-sink.mjs");
    let (mut hash, hash_addr) = node_sink("node-hash-sink.mjs");
    let (ours, ours_addr, ours_path) = our_sink(&[]);

    println!("{mib} MiB per upload, median of {rounds} interleaved rounds (Gbit/s; time in ms)");
    println!(
        "{:>7} {:>9} {:>9} {:>11} {:>11} {:>9} {:>13} {:>9} {:>9}",
        "streams",
        "(a) tcp",
        "(b) count",
        "(c) headers",
        "(d) digest",
        "(e) hash",
        "c time/b time",
        "d / e",
        "d / f"
    );
    let openssl = openssl_sha256(None);
    for streams in [1usize, 2] {
        let mut cols: Vec<Vec<f64>> = vec![vec![]; 5];
        for _ in 0..rounds {
            cols[0].push(upload(discard, "/", total, streams, &data).1);
            cols[1].push(upload(count_addr, "/", total, streams, &data).1);
            let (headers, digest) = upload(ours_addr, &ours_path, total, streams, &data);
            cols[2].push(headers);
            cols[3].push(digest);
            cols[4].push(upload(hash_addr, "/", total, streams, &data).1);
        }
        let t: Vec<f64> = cols.into_iter().map(median).collect();
        let f = openssl.map(|mb| mb * 8.0 / 1000.0 * streams.min(2) as f64);
        println!(
            "{streams:>7} {:>9.2} {:>9.2} {:>11.2} {:>11.2} {:>9.2} {:>13.2} {:>9.2} {:>9}",
            gbps(t[0], streams),
            gbps(t[1], streams),
            gbps(t[2], streams),
            gbps(t[3], streams),
            gbps(t[4], streams),
            t[2] / t[1],
            t[4] / t[3],
            f.map_or("-".into(), |f| format!("{:.2}", gbps(t[3], streams) / f)),
        );
    }
    let masked = [
        ("all features", None),
        ("no SHA-NI (AVX2 path)", Some(":~0x20000000")),
        (
            "no SHA-NI, no AVX2 (AVX path, as ring uses)",
            Some(":~0x20000020"),
        ),
    ];
    for (label, mask) in masked {
        if let Some(mb) = openssl_sha256(mask) {
            println!(
                "(f) openssl speed -evp sha256, one core, {label}: {mb:.0} MB/s ({:.2} Gbit/s)",
                mb * 8.0 / 1000.0
            );
        }
    }
    for c in [&mut count, &mut hash] {
        let _ = c.kill();
        let _ = c.wait();
    }
    drop(ours);

    let gib = env_u64("BENCH_RSS_GIB", 4);
    let default_queue = unobserved::sink::hash_queue::default_capacity();
    for (label, args) in [
        (
            format!("default hash queue ({} MiB)", default_queue >> 20),
            vec![],
        ),
        (
            "--hash-queue 32MiB".to_owned(),
            vec!["--hash-queue", "32MiB"],
        ),
    ] {
        let (sink, addr, path) = our_sink(&args);
        let t = Instant::now();
        let reply = Client::connect(addr)
            .unwrap()
            .put(&path, gib << 30, &data)
            .unwrap();
        let secs = t.elapsed().as_secs_f64();
        let status = std::fs::read_to_string(format!("/proc/{}/status", sink.child.id())).unwrap();
        let hwm = status
            .lines()
            .find(|l| l.starts_with("VmHWM"))
            .unwrap_or("VmHWM: ?")
            .trim_start_matches("VmHWM:")
            .trim()
            .to_owned();
        let v: serde_json::Value = serde_json::from_slice(&reply.body).unwrap();
        println!(
            "peak RSS of `unobserved sink` during a {gib} GiB upload, {label}: {hwm} ({:.2} Gbit/s to the digest, hash_bound {})",
            (gib << 30) as f64 * 8.0 / secs / 1e9,
            v["hash_bound"]
        );
        drop(sink);
    }
}
