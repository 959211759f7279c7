//! The sink's own ceiling: how fast it ingests bodies of the run's size from a native
//! client over loopback. An arm near this number is measuring the sink, not the
//! browser (the write-up's Blob column sat on a ~3 Gbps Node sink ceiling).

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Instant;

/// Largest body used for the measurement; bigger runs are measured at this size.
const MAX_PROBE: u64 = 256 << 20;

/// PUTs `total` bytes (`data` repeated) to `path` and returns the status line.
pub fn put_bytes(addr: SocketAddr, path: &str, total: u64, data: &[u8]) -> std::io::Result<String> {
    let mut s = TcpStream::connect(addr)?;
    write!(s, "PUT {path} HTTP/1.1\r\nHost: unobserved\r\nContent-Length: {total}\r\nConnection: close\r\n\r\n")?;
    let mut left = total;
    while left > 0 {
        let n = left.min(data.len() as u64) as usize;
        s.write_all(&data[..n])?;
        left -= n as u64;
    }
    let mut reply = Vec::new();
    s.read_to_end(&mut reply)?;
    Ok(String::from_utf8_lossy(&reply)
        .lines()
        .next()
        .unwrap_or("")
        .to_owned())
}

/// Median Mbps of three uploads of `size` bytes (capped at 256 MiB).
pub fn measure(addr: SocketAddr, upload_path: &str, size: u64) -> std::io::Result<f64> {
    let size = size.clamp(1, MAX_PROBE);
    let data: Vec<u8> = (0..(size.min(4 << 20)) as u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 9) as u8)
        .collect();
    let mut mbps = Vec::new();
    for _ in 0..3 {
        let t = Instant::now();
        let status = put_bytes(addr, upload_path, size, &data)?;
        if !status.starts_with("HTTP/1.1 200") {
            return Err(std::io::Error::other(format!("sink answered {status:?}")));
        }
        mbps.push(size as f64 * 8.0 / t.elapsed().as_secs_f64() / 1e6);
    }
    Ok(crate::stats::median(&mbps).unwrap_or(0.0))
}
