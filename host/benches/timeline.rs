//! What the arrival record (`sink/timeline.rs`) costs (BENCHMARKS.md, "Timeline"):
//!   (a) the sink's receive ceiling with recording on and off, side by side: two
//!       `unobserved sink` processes, one with UNOBSERVED_BENCH_NO_TIMELINE=1, uploads
//!       on one kept-alive connection each, timed from the first byte sent to the
//!       response headers, rounds interleaved (which goes first alternates);
//!   (b) the recorder alone, per frame, beside the clock read the receive loop makes
//!       anyway;
//!   (c) the record's JSON size for a typical and the largest possible upload;
//!   (d) each sink's peak RSS during a big upload.
//!
//! `cargo bench --bench timeline` (env: BENCH_MIB=256 per upload, BENCH_ROUNDS=11,
//! BENCH_RSS_GIB=4)

#[path = "../tests/common/mod.rs"]
mod common;

use common::{env_u64, SinkProcess};
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use unobserved::domain::timeline::Timeline;
use unobserved::sink::ceiling::{probe_bytes, Client};
use unobserved::sink::timeline::Recorder;

const OFF: (&str, &str) = ("UNOBSERVED_BENCH_NO_TIMELINE", "1");

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

struct Sink {
    process: SinkProcess,
    addr: SocketAddr,
    path: String,
}

fn sink(env: &[(&str, &str)]) -> Sink {
    let process = SinkProcess::start_with_env(&["--listen", "127.0.0.1:0"], env);
    let (addr, path) = (process.authority().parse().unwrap(), process.path());
    Sink {
        process,
        addr,
        path,
    }
}

/// Gbit/s to the response headers of one upload of `total` bytes.
fn upload(client: &mut Client, s: &Sink, total: u64, data: &[u8]) -> (f64, serde_json::Value) {
    let reply = client.put(&s.path, total, data).unwrap();
    assert_eq!(reply.status, 200);
    let v: serde_json::Value = serde_json::from_slice(&reply.body).unwrap();
    let gbps = total as f64 * 8.0 / reply.to_headers.as_secs_f64() / 1e9;
    (gbps, v)
}

/// (a): median Gbit/s with recording on and off, and the median of the rounds' ratios.
fn ceilings(total: u64, rounds: usize) -> (f64, f64, f64) {
    let data = probe_bytes(4 << 20);
    let (on, off) = (sink(&[]), sink(&[OFF]));
    let (mut c_on, mut c_off) = (
        Client::connect(on.addr).unwrap(),
        Client::connect(off.addr).unwrap(),
    );
    // One untimed upload each, as the ceiling probe does.
    let (_, v) = upload(&mut c_on, &on, total, &data);
    assert!(v["timeline"].is_object(), "recording is on");
    let (_, v) = upload(&mut c_off, &off, total, &data);
    assert!(v.get("timeline").is_none(), "recording is off");
    let (mut a, mut b, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds {
        let (x, y) = if round % 2 == 0 {
            let x = upload(&mut c_on, &on, total, &data).0;
            (x, upload(&mut c_off, &off, total, &data).0)
        } else {
            let y = upload(&mut c_off, &off, total, &data).0;
            (upload(&mut c_on, &on, total, &data).0, y)
        };
        a.push(x);
        b.push(y);
        ratios.push(x / y);
    }
    drop((on.process, off.process));
    (median(a), median(b), median(ratios))
}

/// (b): ns per frame of the recorder, and of the clock read beside it.
fn per_frame() -> (f64, f64) {
    let frames = 10_000_000u64;
    let start = Instant::now();
    let mut r = Recorder::new(start);
    let t = Instant::now();
    for i in 0..frames {
        // 64 KiB frames at ~21 Gbit/s, for 100 s: the width doubles as it goes.
        r.frame(start + Duration::from_nanos(i * 25_000), 65536);
    }
    let recorder = t.elapsed().as_nanos() as f64 / frames as f64;
    std::hint::black_box(r.finish());
    let t = Instant::now();
    for _ in 0..frames {
        std::hint::black_box(Instant::now());
    }
    (recorder, t.elapsed().as_nanos() as f64 / frames as f64)
}

fn json_len(t: &Timeline) -> usize {
    serde_json::to_string(t).unwrap().len()
}

/// (c): a 32 MiB upload in 64 KiB frames at 2.8 Gbit/s (what Chromium's Blob does here,
/// one frame per 0.19 ms), and the most a record can hold: 512 points and 32 stalls of
/// a 16 GiB upload lasting over a minute, every figure at its longest.
fn sizes() -> (usize, usize, usize) {
    let start = Instant::now();
    let mut r = Recorder::new(start);
    for i in 0..512 {
        r.frame(start + Duration::from_nanos(1000 + i * 187_000), 65536);
    }
    let typical = r.finish();
    let mut worst = typical.clone();
    worst.points = (0..512u64)
        .map(|i| {
            (
                10_000.01 + i as f64 * 127.99,
                (16u64 << 30) - (511 - i) * 33_554_431,
            )
        })
        .collect();
    worst.stalls = vec![
        worst.stalls.first().copied().unwrap_or(
            unobserved::domain::timeline::Stall {
                at_ms: 12_345.67,
                at_bytes: 12_345_678_901,
                ms: 1_234.56,
            }
        );
        32
    ];
    worst.stall_count = 12_345;
    (json_len(&typical), typical.points.len(), json_len(&worst))
}

/// (d): peak RSS (VmHWM) of each sink during one `gib` GiB upload.
fn peak_rss(gib: u64) -> Vec<(&'static str, String)> {
    let data = probe_bytes(4 << 20);
    [("on", vec![]), ("off", vec![OFF])]
        .into_iter()
        .map(|(label, env)| {
            let s = sink(&env);
            upload(&mut Client::connect(s.addr).unwrap(), &s, gib << 30, &data);
            let status =
                std::fs::read_to_string(format!("/proc/{}/status", s.process.child.id())).unwrap();
            let hwm = status
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .unwrap_or("?")
                .trim()
                .to_owned();
            (label, hwm)
        })
        .collect()
}

fn main() {
    let mib = env_u64("BENCH_MIB", 256);
    let rounds = env_u64("BENCH_ROUNDS", 11) as usize;
    println!(
        "CPU: {}",
        unobserved::platform::cpu::describe().unwrap_or_default()
    );
    let (on, off, ratio) = ceilings(mib << 20, rounds);
    println!(
        "(a) receive ceiling, {mib} MiB uploads, median of {rounds} interleaved rounds: timeline on {on:.2} Gbit/s, off {off:.2} Gbit/s; on/off {:.3} (median of per-round ratios {ratio:.3})",
        on / off
    );
    let (recorder, clock) = per_frame();
    println!("(b) recorder {recorder:.1} ns per frame; the clock read beside it {clock:.1} ns");
    let (typical, points, worst) = sizes();
    println!("(c) JSON of the record: {typical} bytes for a 32 MiB upload at 2.8 Gbit/s ({points} points); {worst} bytes at 512 points of a 16 GiB one");
    for (label, hwm) in peak_rss(env_u64("BENCH_RSS_GIB", 4)) {
        println!("(d) peak RSS of `unobserved sink` during the upload, timeline {label}: {hwm}");
    }
}
