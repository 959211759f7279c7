//! The sink's own ceiling, measured the way the browser sees the sink: PUTs of the run's
//! body size on one kept-alive connection, timed from the first byte sent to the
//! response headers (which leave at the last body byte). An arm near this number is
//! measuring the sink, not the browser (the write-up's Blob column sat on a ~3 Gbps
//! Node sink ceiling). The hash rate is a separate figure: it decides when the digest
//! arrives, not how fast the upload was.

use serde::{Deserialize, Serialize};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// Largest body used for the measurement; bigger runs are measured at this size.
const MAX_PROBE: u64 = 256 << 20;
/// Timed uploads after one untimed warm-up.
const ROUNDS: usize = 5;

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Ceiling {
    /// Median receive rate: first byte sent to response headers.
    pub receive_mbps: f64,
    /// Slowest and fastest of the timed rounds, so a noisy measurement shows.
    pub receive_range: (f64, f64),
    /// One core's SHA-256 rate in memory: the hasher behind the queue.
    pub hash_mbps: f64,
}

/// One response: how long its headers took, its status code and its body.
pub struct Reply {
    pub to_headers: Duration,
    pub status: u16,
    pub body: Vec<u8>,
}

/// A kept-alive HTTP/1.1 connection that PUTs bodies and reads the replies.
pub struct Client {
    reader: BufReader<TcpStream>,
    /// The Host header, as a browser sends it: address and port.
    host: String,
}

impl Client {
    pub fn connect(addr: SocketAddr) -> std::io::Result<Client> {
        let stream = TcpStream::connect(addr)?;
        stream.set_nodelay(true)?;
        stream.set_read_timeout(Some(Duration::from_secs(120)))?;
        Ok(Client {
            reader: BufReader::new(stream),
            host: addr.to_string(),
        })
    }

    /// PUTs `total` bytes (`data` repeated) to `path`.
    pub fn put(&mut self, path: &str, total: u64, data: &[u8]) -> std::io::Result<Reply> {
        let host = self.host.clone();
        let stream = self.reader.get_mut();
        let start = Instant::now();
        write!(
            stream,
            "PUT {path} HTTP/1.1\r\nHost: {host}\r\nContent-Length: {total}\r\n\r\n"
        )?;
        let mut left = total;
        while left > 0 {
            let n = left.min(data.len() as u64) as usize;
            stream.write_all(&data[..n])?;
            left -= n as u64;
        }
        let (status, length, chunked) = self.read_head()?;
        let to_headers = start.elapsed();
        let body = match (length, chunked) {
            (_, true) => self.read_chunked()?,
            (Some(n), false) => {
                let mut b = vec![0; n];
                self.reader.read_exact(&mut b)?;
                b
            }
            (None, false) => return Err(bad("reply has neither a length nor chunks")),
        };
        Ok(Reply {
            to_headers,
            status,
            body,
        })
    }

    fn line(&mut self) -> std::io::Result<String> {
        let mut line = String::new();
        if self.reader.read_line(&mut line)? == 0 {
            return Err(bad("the sink closed the connection"));
        }
        Ok(line.trim_end().to_owned())
    }

    /// Status code, Content-Length and whether the body is chunked.
    fn read_head(&mut self) -> std::io::Result<(u16, Option<usize>, bool)> {
        let status_line = self.line()?;
        let status = status_line
            .split(' ')
            .nth(1)
            .and_then(|c| c.parse().ok())
            .ok_or_else(|| bad("no status code"))?;
        let (mut length, mut chunked) = (None, false);
        loop {
            let line = self.line()?.to_ascii_lowercase();
            if line.is_empty() {
                return Ok((status, length, chunked));
            }
            if let Some(v) = line.strip_prefix("content-length:") {
                length = v.trim().parse().ok();
            } else if line.starts_with("transfer-encoding:") && line.ends_with("chunked") {
                chunked = true;
            }
        }
    }

    fn read_chunked(&mut self) -> std::io::Result<Vec<u8>> {
        let mut body = Vec::new();
        loop {
            let size = usize::from_str_radix(self.line()?.split(';').next().unwrap_or(""), 16)
                .map_err(|_| bad("bad chunk size"))?;
            if size == 0 {
                self.line()?; // the blank line after the last chunk
                return Ok(body);
            }
            let at = body.len();
            body.resize(at + size, 0);
            self.reader.read_exact(&mut body[at..])?;
            self.line()?;
        }
    }
}

fn bad(what: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_owned())
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
    let size = size.clamp(1, MAX_PROBE);
    let data = probe_bytes(size.min(4 << 20) as usize);
    let mut client = Client::connect(addr)?;
    let mut times = Vec::with_capacity(ROUNDS);
    for round in 0..=ROUNDS {
        let reply = client.put(upload_path, size, &data)?;
        if reply.status != 200 {
            return Err(std::io::Error::other(format!(
                "sink answered HTTP {}",
                reply.status
            )));
        }
        if round > 0 {
            times.push(reply.to_headers);
        }
    }
    let receive = receive_rates(size, &times);
    Ok(Ceiling {
        receive_mbps: receive.receive_mbps,
        receive_range: receive.receive_range,
        hash_mbps: hash_rate(),
    })
}

/// The timed rounds of `size`-byte uploads as a receive ceiling: their median rate and
/// the slowest and fastest round. The plain and the TLS ceilings both summarise so.
pub(crate) fn receive_rates(size: u64, times: &[Duration]) -> crate::model::TransportCeiling {
    let rates: Vec<f64> = times.iter().map(|&t| mbps(size, t)).collect();
    let (lo, hi) = rates
        .iter()
        .fold((f64::MAX, 0f64), |(lo, hi), &r| (lo.min(r), hi.max(r)));
    crate::model::TransportCeiling {
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
