//! `stats::compare` (Hodges–Lehmann ratio and exact Mann–Whitney interval) on large
//! arms: time per comparison and the process's peak RSS after each size. Sorting the
//! m×n pairwise differences, as it once did, took 1.2 GB and 2.9 s at 10k per arm;
//! the rank selection (`stats::pairwise`) needs memory for the samples only.
//!
//! `cargo bench --bench compare` (env: BENCH_SMALL=10000, BENCH_LARGE=100000 samples
//! per arm, BENCH_ROUNDS=3). Sizes run smallest first, so each peak is its own.

#[path = "../tests/common/mod.rs"]
mod common;

use common::env_u64;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::time::Instant;
use unobserved::domain::arm::BodyKind;
use unobserved::stats::compare::{compare, DEFAULT_HORIZON};
use unobserved::stats::side::of_body;

/// `n` Mbps samples around `mean`, ±10%, rounded to 0.1 Mbps as stored (so with ties).
fn samples(rng: &mut StdRng, n: usize, mean: f64) -> Vec<f64> {
    (0..n)
        .map(|_| (mean * rng.random_range(0.9..1.1f64) * 10.0).round() / 10.0)
        .collect()
}

/// The process's peak resident set so far ("123456 kB").
fn peak_rss() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM"))
                .map(|l| l.trim_start_matches("VmHWM:").trim().to_owned())
        })
        .unwrap_or_else(|| "?".into())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let rounds = env_u64("BENCH_ROUNDS", 3).max(1);
    let sizes = [
        env_u64("BENCH_SMALL", 10_000),
        env_u64("BENCH_LARGE", 100_000),
    ];
    println!(
        "{}",
        unobserved::platform::cpu::describe().unwrap_or_default()
    );
    println!(
        "one core, median of {rounds} rounds; peak RSS before any comparison: {}",
        peak_rss()
    );
    let mut rng = StdRng::seed_from_u64(1);
    for n in sizes.map(|n| n as usize) {
        let (arm, base) = (samples(&mut rng, n, 1100.0), samples(&mut rng, n, 1000.0));
        let mut ms = Vec::new();
        let mut last = None;
        for _ in 0..rounds {
            let t = Instant::now();
            last = std::hint::black_box(compare(
                of_body(BodyKind::Blob),
                &arm,
                of_body(BodyKind::Uint8Array),
                &base,
                DEFAULT_HORIZON,
            ));
            ms.push(t.elapsed().as_secs_f64() * 1e3);
        }
        let c = last.expect("enough samples");
        println!(
            "{n:>7} vs {n:<7} {:>9.1} ms   peak RSS {:>10}   {}",
            median(ms),
            peak_rss(),
            unobserved::export::words::ratio(&c, 4)
        );
    }
}
