//! Streams a request body through SHA-256 without ever holding it whole.

use serde::Serialize;
use sha2::{Digest, Sha256};
use std::io::{ErrorKind, Read};
use std::time::Instant;

/// Read size: big enough that syscalls are not the cost, small enough that memory
/// stays flat with many uploads at once.
pub const CHUNK: usize = 256 * 1024;
/// How much of the body is echoed back verbatim, so `[object ReadableStream]` shows.
pub const HEAD_LEN: usize = 64;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BodyReport {
    pub bytes: u64,
    pub sha256: String,
    /// Milliseconds from the first body byte to the last.
    pub sink_ms: f64,
    pub head: String,
}

#[derive(Debug, PartialEq)]
pub enum BodyOutcome {
    Complete(BodyReport),
    /// More than `cap` bytes arrived; reading stopped there.
    OverCap { bytes: u64 },
    /// The body ended early (client went away) or the connection failed.
    Aborted { bytes: u64, reason: String },
}

/// Buffers in flight between the reading and the hashing thread. Memory per upload is
/// bounded by `POOL * CHUNK` (1 MiB), whatever the body's size.
const POOL: usize = 4;

/// Hashes `body`. `expected_len` is the Content-Length, when there was one.
///
/// Reading and hashing run on two threads, pipelined: the socket is drained while the
/// previous chunk is hashed, so the sink's ceiling is the slower of the two, not their
/// sum (BENCHMARKS.md has the figures).
pub fn hash_body(body: &mut dyn Read, expected_len: Option<u64>, cap: u64) -> BodyOutcome {
    let (to_hasher, filled) = std::sync::mpsc::sync_channel::<(Vec<u8>, usize)>(POOL);
    let (to_reader, empty) = std::sync::mpsc::sync_channel::<Vec<u8>>(POOL);
    for _ in 0..POOL {
        to_reader.send(vec![0u8; CHUNK]).expect("pool fits its channel");
    }
    std::thread::scope(|scope| {
        let hasher = scope.spawn(move || {
            let mut hasher = Sha256::new();
            let mut head = Vec::with_capacity(HEAD_LEN);
            for (buf, n) in filled {
                if head.len() < HEAD_LEN {
                    head.extend_from_slice(&buf[..n.min(HEAD_LEN - head.len())]);
                }
                hasher.update(&buf[..n]);
                // The reader may already be gone (over cap, aborted): nothing to return to.
                let _ = to_reader.send(buf);
            }
            (hex::encode(hasher.finalize()), head)
        });
        let read = read_into_pipeline(body, cap, &empty, &to_hasher);
        drop(to_hasher);
        let (sha256, head) = hasher.join().expect("hasher thread");
        match read {
            ReadEnd::Eof { bytes, sink_ms } => match expected_len {
                Some(len) if bytes < len => {
                    BodyOutcome::Aborted { bytes, reason: format!("body ended after {bytes} of {len} bytes") }
                }
                _ => BodyOutcome::Complete(BodyReport { bytes, sha256, sink_ms, head: String::from_utf8_lossy(&head).into_owned() }),
            },
            ReadEnd::OverCap { bytes } => BodyOutcome::OverCap { bytes },
            ReadEnd::Failed { bytes, reason } => BodyOutcome::Aborted { bytes, reason },
        }
    })
}

enum ReadEnd {
    Eof { bytes: u64, sink_ms: f64 },
    OverCap { bytes: u64 },
    Failed { bytes: u64, reason: String },
}

fn read_into_pipeline(
    body: &mut dyn Read,
    cap: u64,
    empty: &std::sync::mpsc::Receiver<Vec<u8>>,
    filled: &std::sync::mpsc::SyncSender<(Vec<u8>, usize)>,
) -> ReadEnd {
    let mut bytes = 0u64;
    let mut first: Option<Instant> = None;
    let mut last = Instant::now();
    loop {
        let mut buf = empty.recv().expect("the hasher returns every buffer");
        let n = loop {
            match body.read(&mut buf) {
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => return ReadEnd::Failed { bytes, reason: e.to_string() },
                Ok(n) => break n,
            }
        };
        if n == 0 {
            let sink_ms = first.map(|f| (last - f).as_secs_f64() * 1000.0).unwrap_or(0.0);
            return ReadEnd::Eof { bytes, sink_ms };
        }
        last = Instant::now();
        first.get_or_insert(last);
        bytes += n as u64;
        if bytes > cap {
            return ReadEnd::OverCap { bytes };
        }
        filled.send((buf, n)).expect("the hasher outlives the reader");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(data: &[u8]) -> BodyReport {
        match hash_body(&mut &data[..], Some(data.len() as u64), u64::MAX) {
            BodyOutcome::Complete(r) => r,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn sha256_known_vectors() {
        assert_eq!(report(b"").sha256, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        assert_eq!(report(b"abc").sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        // FIPS 180-2 long vector: one million 'a's, crossing many read chunks.
        assert_eq!(
            report(&vec![b'a'; 1_000_000]).sha256,
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        );
    }

    #[test]
    fn firefox_stream_body_is_recognisable() {
        let r = report(b"[object ReadableStream]");
        assert_eq!(r.bytes, 23);
        assert_eq!(r.head, "[object ReadableStream]");
        // The figure the browser recipes recorded for this exact body.
        assert_eq!(r.sha256, "7559c3628a54a498b715edbbb9a0f16fc65e94eaaf185b41e91f6bddf1a8e02e");
    }

    #[test]
    fn head_is_the_first_64_bytes_lossily() {
        let mut data = vec![0xffu8; 10];
        data.extend(vec![b'x'; 100]);
        let r = report(&data);
        assert_eq!(r.head.chars().filter(|&c| c == '\u{fffd}').count(), 10);
        assert_eq!(r.head.chars().filter(|&c| c == 'x').count(), 54);
    }

    #[test]
    fn over_cap_stops_reading() {
        let data = vec![0u8; 10_000];
        assert_eq!(hash_body(&mut &data[..], None, 4_000), BodyOutcome::OverCap { bytes: 10_000 });
    }

    #[test]
    fn short_body_is_aborted_with_its_count() {
        let data = vec![0u8; 100];
        match hash_body(&mut &data[..], Some(1000), u64::MAX) {
            BodyOutcome::Aborted { bytes, .. } => assert_eq!(bytes, 100),
            other => panic!("{other:?}"),
        }
    }
}
