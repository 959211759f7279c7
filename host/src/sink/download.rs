//! Downloads for the upload/download comparison: N bytes of AES-128-CTR keystream
//! (the seed is the key, the counter starts at zero). WebCrypto's AES-CTR makes the same
//! bytes in the page, so the page can check what it received.

use aes::Aes128;
use ctr::cipher::{KeyIvInit, StreamCipher};
use std::io::Read;

type Keystream = ctr::Ctr64BE<Aes128>;

/// Downloads have their own cap, far below the upload body cap: nothing in a run needs
/// more, and a token holder must not make the sink generate 16 GiB on request.
pub const MAX_BYTES: u64 = 4 << 30;

/// A reader of `len` keystream bytes, generated as they are read.
pub struct SeededBytes {
    cipher: Keystream,
    left: u64,
}

impl SeededBytes {
    pub fn new(seed: [u8; 16], len: u64) -> SeededBytes {
        SeededBytes {
            cipher: Keystream::new(&seed.into(), &[0u8; 16].into()),
            left: len,
        }
    }
}

impl Read for SeededBytes {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = (buf.len() as u64).min(self.left) as usize;
        buf[..n].fill(0);
        self.cipher.apply_keystream(&mut buf[..n]);
        self.left -= n as u64;
        Ok(n)
    }
}

/// The SHA-256 of the `len` bytes a download of `seed` sends: what the page should
/// have received.
pub fn sha256_of(seed: [u8; 16], len: u64) -> String {
    let mut bytes = SeededBytes::new(seed, len);
    let mut digest = ring::digest::Context::new(&ring::digest::SHA256);
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = bytes.read(&mut buf).expect("keystream never fails");
        if n == 0 {
            return hex::encode(digest.finish());
        }
        digest.update(&buf[..n]);
    }
}

/// `?bytes=N&seed=<32 hex digits>` of a download URL.
pub fn parse_request(url: &str, max: u64) -> Result<([u8; 16], u64), String> {
    let query = url.split_once('?').map(|(_, q)| q).unwrap_or("");
    let param = |name: &str| {
        query
            .split('&')
            .find_map(|kv| kv.strip_prefix(name)?.strip_prefix('='))
    };
    let len: u64 = param("bytes")
        .and_then(|b| b.parse().ok())
        .ok_or("download needs ?bytes=N")?;
    if len > max {
        return Err(format!(
            "download of {len} bytes is over the {max}-byte cap"
        ));
    }
    let seed = param("seed")
        .and_then(|s| hex::decode(s).ok())
        .and_then(|s| <[u8; 16]>::try_from(s).ok());
    Ok((seed.ok_or("download needs &seed=<32 hex digits>")?, len))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keystream_matches_the_aes_ctr_definition() {
        // AES-128(key=0, block=0) = 66e94bd4ef8a2c3b884cfa59ca342b2e (FIPS-197 style vector);
        // CTR over zeros yields exactly the encrypted counter blocks.
        let mut r = SeededBytes::new([0u8; 16], 16);
        let mut out = [0u8; 16];
        r.read_exact(&mut out).unwrap();
        assert_eq!(hex::encode(out), "66e94bd4ef8a2c3b884cfa59ca342b2e");
    }

    #[test]
    fn length_is_exact_and_reads_can_be_split() {
        let mut whole = Vec::new();
        SeededBytes::new([7u8; 16], 100_003)
            .read_to_end(&mut whole)
            .unwrap();
        assert_eq!(whole.len(), 100_003);
        let mut split = SeededBytes::new([7u8; 16], 100_003);
        let mut a = vec![0u8; 33];
        split.read_exact(&mut a).unwrap();
        let mut rest = Vec::new();
        split.read_to_end(&mut rest).unwrap();
        assert_eq!([a, rest].concat(), whole);
    }
}
