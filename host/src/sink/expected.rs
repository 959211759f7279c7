//! The bytes a workload module is given, which the host knows without asking the page:
//! AES-128-CTR keystream under a seed the host chose for the run, one stream per rep
//! (the counter block is the rep as a 64-bit big-endian number, then 64 bits of block
//! counter from zero). WebCrypto's AES-CTR with `length: 64` makes the same bytes in the
//! page (`extension/lib/module-bytes.js`); the stream can be entered at any offset, so
//! every part of a chunked or resumable upload is checked on its own.

use super::parts::{Assembly, PartTally};
use aes::cipher::{BlockCipherEncrypt, KeyInit};
use aes::{Aes128, Block};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Blocks made at a time: 1 MiB. AES-NI encrypts a batch of counter blocks at ~5 GB/s
/// here; the `ctr` crate's byte-wise stream ran at 20 MB/s in a debug build.
const BATCH: usize = 1 << 16;

/// What every workload module of a run is given: `bytes` of the keystream of `seed`.
/// Every upload of a run is given the same bytes (stream 0), so each stretch's digest is
/// made once per run and kept (`sha256`): the whole one when the run starts, before any
/// upload. Made again for every sample, 32 MiB of keystream and its SHA-256 took a core
/// for tens of ms right beside the next upload, and cost whichever arm came next
/// (BENCHMARKS.md, "The harness around a module").
#[derive(Debug, Clone)]
pub struct ModuleRun {
    pub seed: [u8; 16],
    pub bytes: u64,
    digests: Arc<Mutex<HashMap<(u64, u64), String>>>,
}

/// Digests of stretches kept per run (about 100 bytes each): every part of two ways of
/// splitting an upload (one has at most `parts::MAX_PARTS`). Past it, a digest is made
/// each time it is asked for.
const KEPT_DIGESTS: usize = 2 * super::parts::MAX_PARTS;

impl ModuleRun {
    /// A new run's: a fresh random seed, and the digest of the whole stream made now.
    pub fn new(bytes: u64) -> ModuleRun {
        let mut seed = [0u8; 16];
        getrandom::fill(&mut seed).expect("the OS has randomness");
        ModuleRun::with_seed(seed, bytes)
    }

    /// A run's with a seed chosen already (tests name theirs).
    pub fn with_seed(seed: [u8; 16], bytes: u64) -> ModuleRun {
        let run = ModuleRun {
            seed,
            bytes,
            digests: Arc::default(),
        };
        run.sha256(0, bytes);
        run
    }

    pub fn rep(&self, rep: u64) -> ModuleBytes {
        ModuleBytes {
            seed: self.seed,
            rep,
        }
    }

    /// SHA-256 (hex) of the `len` bytes at `offset` of what every upload is given.
    pub fn sha256(&self, offset: u64, len: u64) -> String {
        if let Some(d) = self.digests.lock().unwrap().get(&(offset, len)) {
            return d.clone();
        }
        let d = self.rep(0).sha256(offset, len);
        let mut kept = self.digests.lock().unwrap();
        if kept.len() < KEPT_DIGESTS {
            kept.insert((offset, len), d.clone());
        }
        d
    }

    /// Whether the digest of that stretch is kept (made already).
    pub fn has_digest(&self, offset: u64, len: u64) -> bool {
        self.digests.lock().unwrap().contains_key(&(offset, len))
    }
}

/// One rep's bytes of a run's module seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModuleBytes {
    pub seed: [u8; 16],
    pub rep: u64,
}

impl ModuleBytes {
    /// Calls `f(at, piece)` with the bytes of `offset..offset + len` in order, `at`
    /// counted from `offset`.
    fn pieces(&self, offset: u64, len: u64, mut f: impl FnMut(usize, &[u8])) {
        let aes = Aes128::new(&self.seed.into());
        let mut blocks = vec![Block::default(); BATCH];
        let mut bytes = vec![0u8; BATCH * 16];
        let (mut counter, mut skip) = (offset / 16, (offset % 16) as usize);
        let mut done = 0u64;
        while done < len {
            for (i, b) in blocks.iter_mut().enumerate() {
                b[..8].copy_from_slice(&self.rep.to_be_bytes());
                // WebCrypto's `length: 64` wraps the low 64 bits, as this does.
                b[8..].copy_from_slice(&counter.wrapping_add(i as u64).to_be_bytes());
            }
            aes.encrypt_blocks(&mut blocks);
            for (chunk, b) in bytes.chunks_exact_mut(16).zip(&blocks) {
                chunk.copy_from_slice(b);
            }
            counter = counter.wrapping_add(BATCH as u64);
            let take = (len - done).min((bytes.len() - skip) as u64) as usize;
            f(done as usize, &bytes[skip..skip + take]);
            done += take as u64;
            skip = 0;
        }
    }

    /// Fills `buf` with the bytes at `offset`.
    pub fn fill(&self, offset: u64, buf: &mut [u8]) {
        self.pieces(offset, buf.len() as u64, |at, piece| {
            buf[at..at + piece.len()].copy_from_slice(piece);
        });
    }

    /// SHA-256 (hex) of the `len` bytes at `offset`.
    pub fn sha256(&self, offset: u64, len: u64) -> String {
        let mut digest = ring::digest::Context::new(&ring::digest::SHA256);
        self.pieces(offset, len, |_, piece| digest.update(piece));
        hex::encode(digest.finish())
    }
}

/// What the parts of a module upload show against the `size` bytes it was given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PartsCheck {
    /// Every offset arrived, and every part is exactly the bytes at its offset.
    Intact,
    /// A part whose bytes are not the ones at its offset (the first, by offset).
    Differs { offset: u64, bytes: u64 },
    /// A part the sink could not hash (its request was lost mid-way).
    Undigested { offset: u64, bytes: u64 },
    /// Bytes went past the end of what the module was given.
    Beyond { bytes: u64 },
    /// Some offsets never arrived.
    Short { covered: u64 },
    /// Requests the sink refused for carrying more than the module was given, or for
    /// being one too many.
    Refused { requests: u64 },
}

/// Checks every part against the expected bytes at its offset, whose digests
/// `sha256_at(offset, len)` gives (`ModuleRun::sha256`, which keeps them).
pub fn check(
    tally: &PartTally,
    sha256_at: impl Fn(u64, u64) -> String,
    size: u64,
) -> (PartsCheck, Assembly) {
    let assembly = tally.assemble(size);
    let same = |got: &str, offset: u64, bytes: u64| got == sha256_at(offset, bytes);
    let mut parts: Vec<_> = tally.parts.iter().collect();
    parts.sort_by_key(|p| (p.offset, p.bytes));
    for p in parts {
        let within = p.bytes.min(size.saturating_sub(p.offset));
        let verdict = match &p.sha256 {
            None => Some(PartsCheck::Undigested {
                offset: p.offset,
                bytes: p.bytes,
            }),
            Some(_) if within < p.bytes => None, // counted in `beyond`
            Some(got) if !same(got, p.offset, p.bytes) => Some(PartsCheck::Differs {
                offset: p.offset,
                bytes: p.bytes,
            }),
            Some(_) => None,
        };
        if let Some(v) = verdict {
            return (v, assembly);
        }
    }
    let verdict = if tally.refused > 0 {
        PartsCheck::Refused {
            requests: tally.refused,
        }
    } else if assembly.beyond > 0 {
        PartsCheck::Beyond {
            bytes: assembly.beyond,
        }
    } else if assembly.covered < size {
        PartsCheck::Short {
            covered: assembly.covered,
        }
    } else {
        PartsCheck::Intact
    };
    (verdict, assembly)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sink::parts::Protocol;

    const SEED: [u8; 16] = *b"0123456789abcdef";

    fn bytes(rep: u64, len: usize) -> Vec<u8> {
        let mut b = vec![0; len];
        ModuleBytes { seed: SEED, rep }.fill(0, &mut b);
        b
    }

    fn sha(b: &[u8]) -> String {
        hex::encode(<sha2::Sha256 as sha2::Digest>::digest(b))
    }

    /// WebCrypto's AES-CTR, `length: 64`, counter block rep||0, on these bytes (worked
    /// out with Node's webcrypto; `extension/tests/module-bytes.test.js` holds the same
    /// figures).
    #[test]
    fn the_keystream_is_webcryptos() {
        let fixture: serde_json::Value =
            serde_json::from_str(include_str!("../../../tests/fixtures/module-bytes.json"))
                .unwrap();
        let seed: [u8; 16] = hex::decode(fixture["seed"].as_str().unwrap())
            .unwrap()
            .try_into()
            .unwrap();
        for case in fixture["cases"].as_array().unwrap() {
            let m = ModuleBytes {
                seed,
                rep: case["rep"].as_u64().unwrap(),
            };
            let (offset, len) = (
                case["offset"].as_u64().unwrap(),
                case["len"].as_u64().unwrap(),
            );
            assert_eq!(
                m.sha256(offset, len),
                case["sha256"].as_str().unwrap(),
                "{case}"
            );
            let mut first = vec![0u8; 16.min(len as usize)];
            m.fill(offset, &mut first);
            assert_eq!(
                hex::encode(first),
                case["first16"].as_str().unwrap(),
                "{case}"
            );
        }
    }

    #[test]
    fn any_offset_is_the_same_stream_and_reps_differ() {
        let whole = bytes(3, 100_000);
        let m = ModuleBytes { seed: SEED, rep: 3 };
        for (off, len) in [(0, 1), (17, 5000), (65_536, 34_464), (99_999, 1)] {
            let slice = &whole[off..off + len];
            assert_eq!(m.sha256(off as u64, len as u64), sha(slice));
        }
        assert_ne!(bytes(4, 64), bytes(3, 64));
    }

    fn tally(parts: &[(u64, &[u8])]) -> PartTally {
        let mut t = PartTally::new(Protocol::Put);
        for &(offset, b) in parts {
            t.begin(offset).unwrap();
            t.commit(offset, b.len() as u64, None);
            t.digested(offset, b.len() as u64, sha(b), String::new());
        }
        t
    }

    #[test]
    fn a_runs_digests_are_made_once_the_whole_one_before_any_upload() {
        let run = ModuleRun::new(300);
        assert!(run.has_digest(0, 300), "made when the run starts");
        assert!(!run.has_digest(100, 50));
        let part = run.sha256(100, 50);
        assert_eq!(part, run.rep(0).sha256(100, 50));
        assert!(run.has_digest(100, 50), "kept for the next rep's upload");
        assert_eq!(run.clone().sha256(0, 300), run.rep(0).sha256(0, 300));
    }

    #[test]
    fn parts_are_checked_against_the_bytes_at_their_offsets() {
        let m = ModuleBytes { seed: SEED, rep: 1 };
        let b = bytes(1, 300);
        let whole = tally(&[(200, &b[200..]), (0, &b[..100]), (100, &b[100..200])]);
        assert_eq!(
            check(&whole, |o, l| m.sha256(o, l), 300).0,
            PartsCheck::Intact
        );
        let mut other = b.clone();
        other[150] ^= 1;
        let differs = tally(&[(0, &b[..100]), (100, &other[100..200]), (200, &b[200..])]);
        assert_eq!(
            check(&differs, |o, l| m.sha256(o, l), 300).0,
            PartsCheck::Differs {
                offset: 100,
                bytes: 100
            }
        );
        let short = tally(&[(0, &b[..100]), (200, &b[200..])]);
        assert_eq!(
            check(&short, |o, l| m.sha256(o, l), 300).0,
            PartsCheck::Short { covered: 200 }
        );
        let wrong_rep = tally(&[(0, &bytes(2, 300))]);
        assert!(matches!(
            check(&wrong_rep, |o, l| m.sha256(o, l), 300).0,
            PartsCheck::Differs { .. }
        ));
        let more = bytes(1, 310);
        assert_eq!(
            check(&tally(&[(0, &more)]), |o, l| m.sha256(o, l), 300).0,
            PartsCheck::Beyond { bytes: 10 }
        );
        let mut lost = tally(&[(0, &b[..100])]);
        lost.begin(100).unwrap();
        lost.commit(100, 200, None);
        assert_eq!(
            check(&lost, |o, l| m.sha256(o, l), 300).0,
            PartsCheck::Undigested {
                offset: 100,
                bytes: 200
            }
        );
    }
}
