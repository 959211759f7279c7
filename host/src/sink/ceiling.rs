//! The sink's own ceiling, measured the way the browser sees the sink: PUTs of the run's
//! body size on one kept-alive connection, timed from the first byte sent to the
//! response headers (which leave at the last body byte). An arm near this number is
//! measuring the sink, not the browser (the write-up's Blob column sat on a ~3 Gbps
//! Node sink ceiling). The hash rate is a separate figure: it decides when the digest
//! arrives, not how fast the upload was.

use crate::domain::ceiling::TransportCeiling;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

pub use super::probe::{Client, Reply, ROUNDS};

/// The sink's ceiling: its receive ceiling, as every transport's is measured, and the
/// rate of the hasher behind it.
#[derive(Clone, Copy, PartialEq)]
pub struct Ceiling {
    /// Median receive rate (first byte sent to response headers) and the slowest and
    /// fastest of the timed rounds, so a noisy measurement shows.
    pub receive: TransportCeiling,
    /// One core's SHA-256 rate in memory: the hasher behind the queue.
    pub hash_mbps: f64,
}

/// Flat, as the run-started log line has always shown it.
impl std::fmt::Debug for Ceiling {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ceiling")
            .field("receive_mbps", &self.receive.receive_mbps)
            .field("receive_range", &self.receive.receive_range)
            .field("hash_mbps", &self.hash_mbps)
            .finish()
    }
}

fn mbps(bytes: u64, d: Duration) -> f64 {
    bytes as f64 * 8.0 / d.as_secs_f64().max(1e-9) / 1e6
}

/// Bytes that do not compress and are cheap to make.
pub fn probe_bytes(len: usize) -> Vec<u8> {
    (0..len as u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 9) as u8)
        .collect()
}

/// The receive ceiling at `size` bytes (capped at 256 MiB) and the hash rate.
pub fn measure(addr: SocketAddr, upload_path: &str, size: u64) -> std::io::Result<Ceiling> {
    let receive = Client::connect(addr)?.ceiling(upload_path, size)?;
    Ok(Ceiling {
        receive,
        hash_mbps: hash_rate(),
    })
}

/// A remote sink's link ceiling: the host's own client uploads `size` bytes (capped at
/// 256 MiB) to the sink's upload URL over the URL's transport (for https://, pinned
/// TLS and HTTP/2, as a browser reaches it), one warm-up then five timed rounds. It is
/// what the link carried for a client that is not a browser: the write-up's lineup.
pub fn measure_link(
    url: &crate::domain::sink_url::SinkUrl,
    size: u64,
) -> Result<TransportCeiling, super::pinned::ReachError> {
    let (mut client, _) = Client::connect_sink(url)?;
    Ok(client.ceiling(url.path(), size)?)
}

/// The timed rounds of `size`-byte uploads as a receive ceiling: their median rate and
/// the slowest and fastest round. The plain and the TLS ceilings both summarise so.
pub(crate) fn receive_rates(size: u64, times: &[Duration]) -> TransportCeiling {
    let rates: Vec<f64> = times.iter().map(|&t| mbps(size, t)).collect();
    let (lo, hi) = rates
        .iter()
        .fold((f64::MAX, 0f64), |(lo, hi), &r| (lo.min(r), hi.max(r)));
    TransportCeiling {
        receive_mbps: crate::stats::median(&rates).unwrap_or(0.0),
        receive_range: (lo, hi),
    }
}

/// One core's SHA-256 rate over 32 MiB, best of three.
pub fn hash_rate() -> f64 {
    let data = probe_bytes(32 << 20);
    (0..3)
        .map(|_| {
            let t = Instant::now();
            let mut d = super::hashing::BodyDigest::default();
            d.update(&data);
            std::hint::black_box(d.finish(0.0, false));
            mbps(data.len() as u64, t.elapsed())
        })
        .fold(0.0, f64::max)
}
