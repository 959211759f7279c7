//! The sink's receive path over each transport, side by side in one run
//! (BENCHMARKS.md, "Transports"), measured by the very code every run uses for its
//! sink ceilings (`sink::ceiling` for h1, `sink::ceiling_tls` for h1-tls and h2): PUTs
//! on one kept-alive connection, first byte to response headers (which the sink sends
//! at the body's last byte), one warm-up and five timed uploads. Rounds interleave
//! the transports:
//!   h1      `unobserved sink`, HTTP/1.1 in the clear
//!   h1-tls  `unobserved sink --tls-cert/--tls-key`, HTTP/1.1 over TLS (ALPN http/1.1)
//!   h2      the same TLS sink, HTTP/2 (ALPN h2)
//!
//! `cargo bench --bench transports` (env: BENCH_MIB=256 per upload, BENCH_ROUNDS=5)

#[path = "../tests/common/mod.rs"]
mod common;

use strum::IntoEnumIterator;
use unobserved::domain::arm::Transport;
use unobserved::sink::{ceiling, ceiling_tls};

fn main() {
    let mib = common::env_u64("BENCH_MIB", 256);
    let rounds = common::env_u64("BENCH_ROUNDS", 5);
    let bytes = mib << 20;
    let plain = common::SinkProcess::start(&["--listen", "127.0.0.1:0"]);
    let tls = common::tls_sink(&[]);
    let chain = std::fs::read_to_string(&tls.cert_path).unwrap();
    let addr = plain.authority().parse().unwrap();
    println!(
        "{mib} MiB per upload, {rounds} rounds of 1 warm-up + 5 uploads each; {}",
        unobserved::platform::cpu::describe().unwrap_or_default()
    );
    let mut medians: Vec<(Transport, Vec<f64>)> =
        Transport::iter().map(|t| (t, Vec::new())).collect();
    for _ in 0..rounds {
        for (t, got) in &mut medians {
            let mbps = match t {
                Transport::H1 => {
                    ceiling::measure(addr, &plain.path(), bytes)
                        .unwrap()
                        .receive
                        .receive_mbps
                }
                _ => {
                    ceiling_tls::measure(&tls.url, &chain, *t, bytes)
                        .unwrap()
                        .receive_mbps
                }
            };
            got.push(mbps);
        }
    }
    let median = |v: &[f64]| unobserved::stats::median(v).unwrap_or(0.0);
    let base = median(&medians[0].1);
    println!("transport   median Mbps   min–max of round medians   vs h1");
    for (t, got) in &medians {
        let (lo, hi) = got
            .iter()
            .fold((f64::MAX, 0f64), |(lo, hi), &r| (lo.min(r), hi.max(r)));
        println!(
            "{:<10} {:>12.0} {:>10.0}–{:<10.0} {:>10.2}x",
            t.as_str(),
            median(got),
            lo,
            hi,
            median(got) / base
        );
    }
}
