//! The sink's receive path over each transport, side by side in one run
//! (BENCHMARKS.md, "Transports"): one client library (hyper) uploads the same bytes to
//!   h1      `unobserved sink`, HTTP/1.1 in the clear
//!   h1-tls  `unobserved sink --tls-cert/--tls-key`, HTTP/1.1 over TLS (ALPN http/1.1)
//!   h2      the same TLS sink, HTTP/2 (ALPN h2)
//! each timed from the first byte sent to the response headers, which the sink sends at
//! the body's last byte (the browser's span). Rounds interleave the transports.
//!
//! `cargo bench --bench transports` (env: BENCH_MIB=256 per upload, BENCH_ROUNDS=7)

#[path = "../tests/common/mod.rs"]
mod common;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::rt::{TokioExecutor, TokioIo};
use std::sync::Arc;
use std::time::Instant;
use tokio_rustls::rustls;

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[derive(Clone, Copy, PartialEq)]
enum Transport {
    H1,
    H1Tls,
    H2,
}

impl Transport {
    fn name(self) -> &'static str {
        match self {
            Transport::H1 => "h1",
            Transport::H1Tls => "h1-tls",
            Transport::H2 => "h2",
        }
    }
}

struct Target {
    authority: String,
    path: String,
}

fn tls_config(cert_der: &[u8], alpn: &[u8]) -> Arc<rustls::ClientConfig> {
    let mut roots = rustls::RootCertStore::empty();
    roots
        .add(rustls::pki_types::CertificateDer::from(cert_der.to_vec()))
        .unwrap();
    let mut config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_root_certificates(roots)
    .with_no_client_auth();
    config.alpn_protocols = vec![alpn.to_vec()];
    Arc::new(config)
}

/// One upload on a fresh connection: seconds from the first byte to the headers.
async fn upload(
    t: Transport,
    target: &Target,
    tls: &Arc<rustls::ClientConfig>,
    body: Bytes,
) -> f64 {
    let tcp = tokio::net::TcpStream::connect(&target.authority)
        .await
        .unwrap();
    tcp.set_nodelay(true).unwrap();
    let request = hyper::Request::put(format!("{}?bench=1", target.path))
        .header("host", &target.authority)
        .header("content-length", body.len())
        .body(Full::new(body))
        .unwrap();
    let request_h2 = |r: hyper::Request<Full<Bytes>>| {
        let (mut parts, body) = r.into_parts();
        parts.uri = format!("https://{}{}", target.authority, parts.uri)
            .parse()
            .unwrap();
        parts.headers.remove("host");
        hyper::Request::from_parts(parts, body)
    };
    let (status, took) = if t == Transport::H1 {
        let (mut send, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tcp))
            .await
            .unwrap();
        tokio::spawn(conn);
        let start = Instant::now();
        let resp = send.send_request(request).await.unwrap();
        (resp.status(), start.elapsed())
    } else {
        let name = rustls::pki_types::ServerName::try_from("localhost").unwrap();
        let stream = tokio_rustls::TlsConnector::from(tls.clone())
            .connect(name, tcp)
            .await
            .unwrap();
        if t == Transport::H2 {
            let (mut send, conn) =
                hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(stream))
                    .await
                    .unwrap();
            tokio::spawn(conn);
            let start = Instant::now();
            let resp = send.send_request(request_h2(request)).await.unwrap();
            let took = start.elapsed();
            let _ = resp.into_body().collect().await;
            return check(t, hyper::StatusCode::OK, took);
        }
        let (mut send, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .unwrap();
        tokio::spawn(conn);
        let start = Instant::now();
        let resp = send.send_request(request).await.unwrap();
        (resp.status(), start.elapsed())
    };
    check(t, status, took)
}

fn check(t: Transport, status: hyper::StatusCode, took: std::time::Duration) -> f64 {
    assert_eq!(status, 200, "{} upload refused", t.name());
    took.as_secs_f64()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let mib = env_u64("BENCH_MIB", 256);
    let rounds = env_u64("BENCH_ROUNDS", 7) as usize;
    let bytes = mib << 20;
    let body = Bytes::from(
        (0..bytes)
            .map(|i| (i * 2654435761 % 251) as u8)
            .collect::<Vec<u8>>(),
    );
    let plain = common::SinkProcess::start(&["--listen", "127.0.0.1:0"]);
    let tls = common::tls_sink(&[]);
    let h1 = Target {
        authority: plain.authority(),
        path: plain.path(),
    };
    let over_tls = Target {
        authority: format!("localhost:{}", tls.port),
        path: tls.path.clone(),
    };
    let (h1_tls_config, h2_config) = (
        tls_config(&tls.cert_der, b"http/1.1"),
        tls_config(&tls.cert_der, b"h2"),
    );
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    println!(
        "{mib} MiB per upload, {rounds} rounds, a fresh connection each; CPU flags: {}",
        std::fs::read_to_string("/proc/cpuinfo")
            .unwrap_or_default()
            .split_whitespace()
            .filter(|w| ["sha_ni", "avx2", "avx512f", "aes"].contains(w))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect::<Vec<_>>()
            .join(" ")
    );
    let transports = [Transport::H1, Transport::H1Tls, Transport::H2];
    let mut secs: Vec<Vec<f64>> = vec![Vec::new(); transports.len()];
    rt.block_on(async {
        // One warm-up each, then interleaved rounds.
        for round in 0..=rounds {
            for (i, &t) in transports.iter().enumerate() {
                let (target, config) = match t {
                    Transport::H1 => (&h1, &h1_tls_config),
                    Transport::H1Tls => (&over_tls, &h1_tls_config),
                    Transport::H2 => (&over_tls, &h2_config),
                };
                let s = upload(t, target, config, body.clone()).await;
                if round > 0 {
                    secs[i].push(s);
                }
            }
        }
    });
    let mbps = |s: f64| bytes as f64 * 8.0 / s / 1e6;
    let base = mbps(median(secs[0].clone()));
    println!("transport   median Mbps   min–max Mbps   vs h1");
    for (i, t) in transports.iter().enumerate() {
        let m = mbps(median(secs[i].clone()));
        let lo = mbps(secs[i].iter().cloned().fold(0.0, f64::max));
        let hi = mbps(secs[i].iter().cloned().fold(f64::MAX, f64::min));
        println!(
            "{:<10} {:>12.0} {:>7.0}–{:<7.0} {:>6.2}x",
            t.name(),
            m,
            lo,
            hi,
            m / base
        );
    }
}
