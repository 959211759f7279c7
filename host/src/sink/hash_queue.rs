//! The queue between the network reads and the hashers, bounded in bytes.
//!
//! The receive loop hands each body frame to the upload's own hashing thread and moves
//! on, so a body that fits in the queue arrives at wire speed whatever the hash rate.
//! One queue serves every upload of a sink, so the bytes held for hashing never exceed
//! its capacity however many uploads run at once. A body bigger than what is free
//! waits for the hasher (back-pressure), and its reply says so (`hash_bound`).

use super::hashing::BodyDigest;
use bytes::Bytes;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The default capacity: 256 MiB, or a quarter of the machine's memory when that is less.
pub const DEFAULT_CAPACITY: u64 = 256 << 20;

pub fn default_capacity() -> u64 {
    match physical_memory() {
        Some(ram) => DEFAULT_CAPACITY.min(ram / 4),
        None => DEFAULT_CAPACITY,
    }
}

#[cfg(unix)]
fn physical_memory() -> Option<u64> {
    // SAFETY: sysconf only reads system configuration.
    let (pages, page) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    (pages > 0 && page > 0).then(|| pages as u64 * page as u64)
}

#[cfg(not(unix))]
fn physical_memory() -> Option<u64> {
    None
}

#[derive(Clone)]
pub struct HashQueue {
    bytes: Arc<Semaphore>,
    capacity: u64,
    /// Test seam: sleep this long per MiB hashed, to show what a slow CPU does.
    slow_hash: Option<Duration>,
}

impl HashQueue {
    pub fn new(capacity: u64, slow_hash: Option<Duration>) -> HashQueue {
        let capacity = capacity.clamp(64 << 10, Semaphore::MAX_PERMITS as u64);
        HashQueue {
            bytes: Arc::new(Semaphore::new(capacity as usize)),
            capacity,
            slow_hash,
        }
    }

    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    /// Starts hashing one body on a blocking thread of its own.
    pub fn start(&self) -> BodyHasher {
        let (tx, rx) = std::sync::mpsc::channel::<(Bytes, OwnedSemaphorePermit)>();
        let slow = self.slow_hash;
        let done = tokio::task::spawn_blocking(move || {
            let mut digest = BodyDigest::default();
            for (data, permit) in rx {
                digest.update(&data);
                if let Some(per_mib) = slow {
                    std::thread::sleep(per_mib.mul_f64(data.len() as f64 / (1 << 20) as f64));
                }
                drop(permit);
            }
            digest
        });
        BodyHasher {
            tx,
            done,
            queue: self.clone(),
            waited: false,
        }
    }
}

pub struct BodyHasher {
    tx: std::sync::mpsc::Sender<(Bytes, OwnedSemaphorePermit)>,
    done: tokio::task::JoinHandle<BodyDigest>,
    queue: HashQueue,
    waited: bool,
}

impl BodyHasher {
    /// Queues a frame; waits only when the queue is full.
    pub async fn push(&mut self, data: Bytes) {
        let n = (data.len() as u64).min(self.queue.capacity) as u32;
        let permit = match self.queue.bytes.clone().try_acquire_many_owned(n) {
            Ok(p) => p,
            Err(_) => {
                self.waited = true;
                self.queue
                    .bytes
                    .clone()
                    .acquire_many_owned(n)
                    .await
                    .expect("the queue's semaphore is never closed")
            }
        };
        // The thread only ends when this sender is dropped.
        let _ = self.tx.send((data, permit));
    }

    /// No more frames: whether the receive loop ever waited for the hasher, and the digest.
    pub fn finish(self) -> (bool, tokio::task::JoinHandle<BodyDigest>) {
        drop(self.tx);
        (self.waited, self.done)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_body_within_the_queue_never_waits_and_a_bigger_one_does() {
        let queue = HashQueue::new(1 << 20, Some(Duration::from_millis(50)));
        let mut small = queue.start();
        for _ in 0..4 {
            small.push(Bytes::from(vec![1u8; 128 << 10])).await;
        }
        let (waited, digest) = small.finish();
        assert!(!waited, "512 KiB fits in a 1 MiB queue");
        assert_eq!(digest.await.unwrap().finish(0.0, waited).bytes, 512 << 10);

        let mut big = queue.start();
        for _ in 0..32 {
            big.push(Bytes::from(vec![1u8; 128 << 10])).await;
        }
        let (waited, digest) = big.finish();
        assert!(
            waited,
            "4 MiB through a 1 MiB queue must wait for the hasher"
        );
        assert_eq!(digest.await.unwrap().finish(0.0, waited).bytes, 4 << 20);
        assert_eq!(
            queue.bytes.available_permits(),
            1 << 20,
            "every byte released"
        );
    }
}
