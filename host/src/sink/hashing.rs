//! SHA-256 of a body as it streams past, plus the facts the reply reports: length and
//! the first 64 bytes. Never holds the body.
//!
//! `ring`'s SHA-256 (OpenSSL's assembly: SHA-NI where the CPU has it, AVX2/SSSE3 where
//! it does not) rather than `sha2`, which was 1.9x slower on a CPU without SHA-NI
//! (BENCHMARKS.md, "Hashing").

use serde::{Deserialize, Serialize};

/// How much of the body is echoed back verbatim, so `[object ReadableStream]` shows.
pub const HEAD_LEN: usize = 64;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BodyReport {
    pub bytes: u64,
    pub sha256: String,
    /// Milliseconds from the first body byte to the last.
    pub sink_ms: f64,
    pub head: String,
    /// The body was bigger than the hash queue had room for, so the receive loop waited
    /// for the hasher: `sink_ms` may include hashing time.
    pub hash_bound: bool,
    /// When the bytes arrived (`timeline.rs`); set by the receive loop, not the hasher.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeline: Option<crate::domain::timeline::Timeline>,
}

pub struct BodyDigest {
    hasher: ring::digest::Context,
    head: Vec<u8>,
    bytes: u64,
}

impl Default for BodyDigest {
    fn default() -> Self {
        BodyDigest {
            hasher: ring::digest::Context::new(&ring::digest::SHA256),
            head: Vec::new(),
            bytes: 0,
        }
    }
}

impl BodyDigest {
    pub fn update(&mut self, data: &[u8]) {
        if self.head.len() < HEAD_LEN {
            let take = data.len().min(HEAD_LEN - self.head.len());
            self.head.extend_from_slice(&data[..take]);
        }
        self.bytes += data.len() as u64;
        self.hasher.update(data);
    }

    pub fn finish(self, sink_ms: f64, hash_bound: bool) -> BodyReport {
        BodyReport {
            bytes: self.bytes,
            sha256: hex::encode(self.hasher.finish()),
            sink_ms,
            head: String::from_utf8_lossy(&self.head).into_owned(),
            hash_bound,
            timeline: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(chunks: &[&[u8]]) -> BodyReport {
        let mut d = BodyDigest::default();
        for c in chunks {
            d.update(c);
        }
        d.finish(0.0, false)
    }

    #[test]
    fn sha256_known_vectors() {
        assert_eq!(
            report(&[]).sha256,
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            report(&[b"abc"]).sha256,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            report(&[b"a", b"b", b"c"]).sha256,
            report(&[b"abc"]).sha256,
            "split anywhere"
        );
        // FIPS 180-2 long vector: one million 'a's.
        let a = vec![b'a'; 1_000_000];
        assert_eq!(
            report(&[&a[..333_333], &a[333_333..]]).sha256,
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        );
    }

    #[test]
    fn firefox_stream_body_is_recognisable() {
        let r = report(&[b"[object ", b"ReadableStream]"]);
        assert_eq!(r.bytes, 23);
        assert_eq!(r.head, "[object ReadableStream]");
        // The figure the browser recipes recorded for this exact body.
        assert_eq!(
            r.sha256,
            "7559c3628a54a498b715edbbb9a0f16fc65e94eaaf185b41e91f6bddf1a8e02e"
        );
    }

    #[test]
    fn head_is_the_first_64_bytes_lossily() {
        let mut data = vec![0xffu8; 10];
        data.extend(vec![b'x'; 100]);
        let r = report(&[&data[..5], &data[5..]]);
        assert_eq!(r.head.chars().filter(|&c| c == '\u{fffd}').count(), 10);
        assert_eq!(r.head.chars().filter(|&c| c == 'x').count(), 54);
    }
}
