//! SHA-256 and AES-256-GCM implementations side by side on this CPU, one core, 32 MiB
//! buffers, median of interleaved rounds (BENCHMARKS.md "Hashing").
//!
//! `cargo bench --bench hash` (env: BENCH_ROUNDS=7). Prints the CPU flags that decide
//! which code path each crate takes (sha_ni, avx2, aes).

use aes_gcm::aead::{AeadInOut, KeyInit};
use sha2::Digest;
use std::time::Instant;

const LEN: usize = 32 << 20;

fn mbytes_per_s(f: &mut dyn FnMut()) -> f64 {
    let t = Instant::now();
    f();
    LEN as f64 / t.elapsed().as_secs_f64() / 1e6
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let rounds = std::env::var("BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(7);
    let data: Vec<u8> = (0..LEN as u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    let key = [7u8; 32];
    let nonce = [9u8; 12];
    let ring_key = ring::aead::LessSafeKey::new(
        ring::aead::UnboundKey::new(&ring::aead::AES_256_GCM, &key).unwrap(),
    );
    let rc_key = aes_gcm::Aes256Gcm::new((&key).into());
    let mut sealed = data.clone();
    let tag = ring_key
        .seal_in_place_separate_tag(
            ring::aead::Nonce::assume_unique_for_key(nonce),
            ring::aead::Aad::empty(),
            &mut sealed,
        )
        .unwrap();
    sealed.extend_from_slice(tag.as_ref());

    let names = [
        "sha2 0.11 SHA-256",
        "ring 0.17 SHA-256",
        "aes-gcm 0.11 AES-256-GCM open",
        "ring 0.17 AES-256-GCM open",
    ];
    let mut figures: Vec<Vec<f64>> = vec![vec![]; names.len()];
    for _ in 0..rounds {
        figures[0].push(mbytes_per_s(&mut || {
            std::hint::black_box(sha2::Sha256::digest(&data));
        }));
        figures[1].push(mbytes_per_s(&mut || {
            std::hint::black_box(ring::digest::digest(&ring::digest::SHA256, &data));
        }));
        let mut buf = sealed.clone();
        figures[2].push(mbytes_per_s(&mut || {
            let n = aes_gcm::Nonce::<aes_gcm::aes::cipher::consts::U12>::from(nonce);
            rc_key.decrypt_in_place(&n, b"", &mut buf).unwrap();
        }));
        let mut buf = sealed.clone();
        figures[3].push(mbytes_per_s(&mut || {
            ring_key
                .open_in_place(
                    ring::aead::Nonce::assume_unique_for_key(nonce),
                    ring::aead::Aad::empty(),
                    &mut buf,
                )
                .unwrap();
        }));
    }
    println!(
        "{}",
        unobserved::platform::cpu::describe().unwrap_or_default()
    );
    println!("one core, 32 MiB buffer, median of {rounds} interleaved rounds (MB/s)");
    for (name, f) in names.iter().zip(figures) {
        println!("{name:<32} {:>8.0}", median(f));
    }
}
