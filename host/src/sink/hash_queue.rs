//! The queue between the network reads and the hashers, bounded in bytes.
//!
//! The receive loop copies each body frame into a 1 MiB block and hands full blocks to
//! the upload's own hashing thread, so a body that fits in the queue arrives at wire
//! speed whatever the hash rate. One queue serves every upload of a sink: the bytes held
//! for hashing never exceed its capacity however many uploads run at once. Blocks are
//! fixed-size and recycled through a pool, so what the queue counts is what it holds
//! (variable-size frames kept whole left the allocator holding ~50% more, measured) and
//! a recycled block costs no page faults. A body bigger than what is free waits for the
//! hasher (back-pressure), and its reply says so (`hash_bound`).

use super::hashing::BodyDigest;
use bytes::Bytes;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// What the queue counts in: one block of body bytes.
pub const BLOCK: usize = 1 << 20;

/// The default capacity: 256 MiB, or a quarter of the machine's memory when that is less.
pub const DEFAULT_CAPACITY: u64 = 256 << 20;

pub fn default_capacity() -> u64 {
    match crate::platform::memory::physical_memory() {
        Some(ram) => DEFAULT_CAPACITY.min(ram / 4),
        None => DEFAULT_CAPACITY,
    }
}

/// A benchmark knob, never set in use: `UNOBSERVED_SIMULATE_HASH_MS_PER_MIB=3.5` makes
/// the host's hasher as slow as a CPU without SHA-NI (~260 MB/s), to show on a fast
/// machine that a slow hasher delays verdicts, not numbers (BENCHMARKS.md).
pub fn simulated_slow_cpu() -> Option<Duration> {
    let ms: f64 = std::env::var("UNOBSERVED_SIMULATE_HASH_MS_PER_MIB")
        .ok()?
        .parse()
        .ok()?;
    log::warn!("simulating a slow hasher: {ms} ms per MiB on top of hashing");
    (ms > 0.0).then(|| Duration::from_secs_f64(ms / 1000.0))
}

#[derive(Clone)]
pub struct HashQueue {
    /// One permit per block the queue may hold.
    blocks: Arc<Semaphore>,
    capacity: u64,
    /// Emptied blocks, kept for the next frames: never more than the capacity's worth,
    /// since each was a permit. A host that received a big body keeps up to the queue's
    /// worth until it exits, and every later upload writes into pages already faulted
    /// in (BENCHMARKS.md: a pool of 64 blocks left 192 MiB of fresh pages per 256 MiB
    /// body, and the receive path slower).
    pool: Arc<Mutex<Vec<Vec<u8>>>>,
    /// Test seam: sleep this long per MiB hashed, to show what a slow CPU does.
    slow_hash: Option<Duration>,
}

/// A full block on its way to the hasher, with the permit it holds.
type Queued = (Vec<u8>, OwnedSemaphorePermit);

impl HashQueue {
    pub fn new(capacity: u64, slow_hash: Option<Duration>) -> HashQueue {
        let blocks = (capacity / BLOCK as u64).clamp(2, Semaphore::MAX_PERMITS as u64 >> 1);
        HashQueue {
            blocks: Arc::new(Semaphore::new(blocks as usize)),
            capacity: blocks * BLOCK as u64,
            pool: Arc::default(),
            slow_hash,
        }
    }

    /// In bytes, rounded down to whole blocks.
    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    /// Starts hashing one body on a thread of its own, at the lowest CPU priority: on
    /// a machine with few cores the hasher must not take CPU from the receive loop or
    /// from the browser being measured; it catches up while the page awaits the digest.
    pub fn start(&self) -> BodyHasher {
        let (tx, rx) = std::sync::mpsc::channel::<Queued>();
        let (done_tx, done) = tokio::sync::oneshot::channel();
        let (slow, pool) = (self.slow_hash, self.pool.clone());
        let hash = move || {
            lowest_priority();
            let mut digest = BodyDigest::default();
            for (mut block, permit) in rx {
                digest.update(&block);
                if let Some(per_mib) = slow {
                    std::thread::sleep(per_mib.mul_f64(block.len() as f64 / BLOCK as f64));
                }
                block.clear();
                // Back to the pool before the permit goes: pool + queue <= capacity.
                pool.lock().unwrap().push(block);
                drop(permit);
            }
            let _ = done_tx.send(digest);
        };
        std::thread::Builder::new()
            .name("hasher".into())
            .spawn(hash)
            .expect("a hashing thread");
        BodyHasher {
            tx,
            done,
            queue: self.clone(),
            filling: None,
            waited: false,
        }
    }
}

pub struct BodyHasher {
    tx: std::sync::mpsc::Sender<Queued>,
    done: tokio::sync::oneshot::Receiver<BodyDigest>,
    queue: HashQueue,
    /// The block being filled, with its permit.
    filling: Option<Queued>,
    waited: bool,
}

impl BodyHasher {
    /// Copies a frame into blocks, queueing each one that fills; waits only when the
    /// queue is full.
    pub async fn push(&mut self, data: Bytes) {
        let mut rest = &data[..];
        while !rest.is_empty() {
            if self.filling.is_none() {
                self.filling = Some(self.take_block().await);
            }
            let (block, _) = self.filling.as_mut().expect("just filled");
            let n = rest.len().min(BLOCK - block.len());
            block.extend_from_slice(&rest[..n]);
            rest = &rest[n..];
            if block.len() == BLOCK {
                self.send_block();
            }
        }
    }

    /// A pooled or new block, once the queue has room for one.
    async fn take_block(&mut self) -> Queued {
        let permit = match self.queue.blocks.clone().try_acquire_owned() {
            Ok(p) => p,
            Err(_) => {
                self.waited = true;
                self.queue
                    .blocks
                    .clone()
                    .acquire_owned()
                    .await
                    .expect("the queue's semaphore is never closed")
            }
        };
        let block = self
            .queue
            .pool
            .lock()
            .unwrap()
            .pop()
            .unwrap_or_else(|| Vec::with_capacity(BLOCK));
        (block, permit)
    }

    fn send_block(&mut self) {
        if let Some(queued) = self.filling.take() {
            // The thread only ends when this sender is dropped.
            let _ = self.tx.send(queued);
        }
    }

    /// No more frames: whether the receive loop ever waited for the hasher, and the digest.
    pub fn finish(mut self) -> (bool, tokio::sync::oneshot::Receiver<BodyDigest>) {
        self.send_block();
        drop(self.tx);
        (self.waited, self.done)
    }
}

/// Nice 19 for the calling thread (Linux schedules threads, so this is per thread).
#[cfg(target_os = "linux")]
fn lowest_priority() {
    // SAFETY: plain syscalls on the calling thread's own id.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        libc::setpriority(libc::PRIO_PROCESS, tid, 19);
    }
}

#[cfg(not(target_os = "linux"))]
fn lowest_priority() {}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_body_within_the_queue_never_waits_and_a_bigger_one_does() {
        let queue = HashQueue::new(2 << 20, Some(Duration::from_millis(50)));
        let mut small = queue.start();
        for _ in 0..4 {
            small.push(Bytes::from(vec![1u8; 128 << 10])).await;
        }
        let (waited, digest) = small.finish();
        assert!(!waited, "512 KiB fits in a 2 MiB queue");
        assert_eq!(digest.await.unwrap().finish(0.0, waited).bytes, 512 << 10);

        let mut big = queue.start();
        for _ in 0..32 {
            big.push(Bytes::from(vec![1u8; 128 << 10])).await;
        }
        let (waited, digest) = big.finish();
        assert!(
            waited,
            "4 MiB through a 2 MiB queue must wait for the hasher"
        );
        assert_eq!(digest.await.unwrap().finish(0.0, waited).bytes, 4 << 20);
        assert_eq!(queue.blocks.available_permits(), 2, "every block released");
        assert!(
            queue.pool.lock().unwrap().len() <= 2,
            "the pool never outgrows the queue"
        );
    }
}
