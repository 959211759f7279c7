//! Encrypted chunk uploads (the write-up's workload): each body is a 12-byte IV, then
//! AES-256-GCM ciphertext and tag. The sink decrypts with the run's key (handed over
//! native messaging, never HTTP), verifies the tag, hashes the plaintext, and checks
//! that chunk indices of each upload arrive in order, once each.

//!
//! `ring`'s AES-256-GCM: 3.4x the `aes-gcm` crate on the same CPU (BENCHMARKS.md,
//! "Hashing"), so verifying a chunk costs the sink little.

use ring::aead::{Aad, LessSafeKey, Nonce, UnboundKey, AES_256_GCM};
use serde::Serialize;
use std::collections::HashMap;
use std::sync::Mutex;

pub const IV_LEN: usize = 12;
pub const TAG_LEN: usize = 16;
/// Encrypted uploads whose chunk order the sink remembers at once. A run makes a few
/// dozen; a token holder inventing ids must not grow the map without bound.
pub const MAX_UPLOADS: usize = 4096;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Order {
    Ok,
    OutOfOrder,
    Repeated,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChunkReport {
    pub index: u64,
    pub bytes: u64,
    pub plaintext_bytes: u64,
    pub tag_ok: bool,
    pub plaintext_sha256: Option<String>,
    pub order: Order,
    /// When the chunk's bytes arrived (`timeline.rs`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeline: Option<crate::domain::timeline::Timeline>,
}

/// Keys per run, and the next expected index per upload.
#[derive(Default)]
pub struct ChunkState {
    keys: Mutex<HashMap<String, [u8; 32]>>,
    next_index: Mutex<HashMap<String, u64>>,
}

impl ChunkState {
    pub fn set_key(&self, run_id: &str, key: [u8; 32]) {
        self.keys.lock().unwrap().insert(run_id.to_owned(), key);
    }

    pub fn key(&self, run_id: &str) -> Option<[u8; 32]> {
        self.keys.lock().unwrap().get(run_id).copied()
    }

    /// Records that `index` of `upload` arrived, and says whether that was in order.
    /// None when the sink already tracks MAX_UPLOADS uploads (a bound on its memory).
    pub fn record_order(&self, upload: &str, index: u64) -> Option<Order> {
        let mut next = self.next_index.lock().unwrap();
        if next.len() >= MAX_UPLOADS && !next.contains_key(upload) {
            return None;
        }
        let expected = next.entry(upload.to_owned()).or_insert(0);
        let order = match index.cmp(expected) {
            std::cmp::Ordering::Equal => Order::Ok,
            std::cmp::Ordering::Less => Order::Repeated,
            std::cmp::Ordering::Greater => Order::OutOfOrder,
        };
        *expected = (*expected).max(index + 1);
        Some(order)
    }
}

/// Decrypts `body` (IV || ciphertext || tag) in place and reports what it found.
pub fn verify(key: &[u8; 32], mut body: Vec<u8>, index: u64, order: Order) -> ChunkReport {
    let bytes = body.len() as u64;
    let failed = |order| ChunkReport {
        index,
        bytes,
        plaintext_bytes: 0,
        tag_ok: false,
        plaintext_sha256: None,
        order,
        timeline: None,
    };
    if body.len() < IV_LEN + TAG_LEN {
        return failed(order);
    }
    let key = LessSafeKey::new(UnboundKey::new(&AES_256_GCM, key).expect("32-byte key"));
    let mut sealed = body.split_off(IV_LEN);
    let nonce = Nonce::try_assume_unique_for_key(&body).expect("12-byte IV");
    match key.open_in_place(nonce, Aad::empty(), &mut sealed) {
        Ok(plain) => ChunkReport {
            index,
            bytes,
            plaintext_bytes: plain.len() as u64,
            tag_ok: true,
            plaintext_sha256: Some(hex::encode(ring::digest::digest(
                &ring::digest::SHA256,
                plain,
            ))),
            order,
            timeline: None,
        },
        Err(_) => failed(order),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(s: &str) -> Vec<u8> {
        hex::decode(s).unwrap()
    }

    /// McGrew & Viega, "The Galois/Counter Mode of Operation", test case 15 (AES-256, no AAD).
    const KEY: &str = "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308";
    const IV: &str = "cafebabefacedbaddecaf888";
    const PT: &str = "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255";
    const CT: &str = "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad";
    const TAG: &str = "b094dac5d93471bdec1a502270e3cc6c";

    fn key() -> [u8; 32] {
        h(KEY).try_into().unwrap()
    }

    fn body() -> Vec<u8> {
        [h(IV), h(CT), h(TAG)].concat()
    }

    #[test]
    fn gcm_test_vector_decrypts_and_its_tag_verifies() {
        let r = verify(&key(), body(), 0, Order::Ok);
        assert!(r.tag_ok);
        assert_eq!(r.plaintext_bytes, 64);
        assert_eq!(
            r.plaintext_sha256.unwrap(),
            hex::encode(<sha2::Sha256 as sha2::Digest>::digest(h(PT)))
        );
    }

    #[test]
    fn a_tampered_chunk_fails_its_tag() {
        for flip in [IV_LEN, IV_LEN + 40, body().len() - 1, 0] {
            let mut b = body();
            b[flip] ^= 1;
            assert!(
                !verify(&key(), b, 0, Order::Ok).tag_ok,
                "flipping byte {flip} went unnoticed"
            );
        }
        assert!(
            !verify(&key(), body()[..20].to_vec(), 0, Order::Ok).tag_ok,
            "too short"
        );
        let mut wrong_key = key();
        wrong_key[0] ^= 1;
        assert!(!verify(&wrong_key, body(), 0, Order::Ok).tag_ok);
    }

    #[test]
    fn out_of_order_and_repeated_chunks_are_flagged() {
        let s = ChunkState::default();
        assert_eq!(s.record_order("u", 0), Some(Order::Ok));
        assert_eq!(s.record_order("u", 2), Some(Order::OutOfOrder));
        assert_eq!(s.record_order("u", 1), Some(Order::Repeated));
        assert_eq!(s.record_order("u", 3), Some(Order::Ok));
        assert_eq!(s.record_order("u", 3), Some(Order::Repeated));
        assert_eq!(
            s.record_order("other", 0),
            Some(Order::Ok),
            "uploads are tracked apart"
        );
    }

    #[test]
    fn the_sink_remembers_a_bounded_number_of_uploads() {
        let s = ChunkState::default();
        for i in 0..MAX_UPLOADS {
            assert!(s.record_order(&format!("u{i}"), 0).is_some());
        }
        assert_eq!(s.record_order("one-too-many", 0), None);
        assert_eq!(
            s.record_order("u7", 1),
            Some(Order::Ok),
            "known uploads go on"
        );
    }
}
