//! A short machine calibration, taken at the start and at the end of every run: a fixed
//! CPU task, timed. Two runs are only compared when the machine was about as fast for
//! both; a parallel build or a busy loop during one of them shows here (the task takes
//! longer), and `compare` says "not comparable" instead of blaming the browser.
//!
//! The task is SHA-256 over a fixed buffer, in the `ring` crate, which is built
//! optimised in every profile (Cargo.toml): a debug and a release binary time the same.
//! Each round is long enough (~20 ms) to share the CPU with whatever else runs, and the
//! median of the rounds is kept, not the best: the best would hide the load it measures.

use std::time::Instant;

/// Bytes hashed per round, from a buffer of `BUFFER` hashed this many times.
const BUFFER: usize = 4 << 20;
const PASSES: usize = 8;
const ROUNDS: usize = 5;

pub use crate::domain::machine::{Machine, MachineRecord, Moment};

/// Times the fixed task now: the median round, in milliseconds.
pub fn calibrate() -> f64 {
    // SHA-256 takes as long whatever the bytes are.
    let data = vec![0x5au8; BUFFER];
    let mut times: Vec<f64> = (0..ROUNDS)
        .map(|_| {
            let t = Instant::now();
            let mut h = ring::digest::Context::new(&ring::digest::SHA256);
            for _ in 0..PASSES {
                h.update(&data);
            }
            std::hint::black_box(h.finish());
            t.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[ROUNDS / 2]
}

/// A calibration record for `run_id` taken now.
pub fn record(run_id: &str, moment: Moment) -> MachineRecord {
    let cpu_ms = calibrate();
    log::info!("run {run_id}: machine calibration at {moment:?}: {cpu_ms:.1} ms");
    MachineRecord {
        run_id: run_id.to_owned(),
        moment,
        cpu_ms,
        recorded_at: crate::store::records::now(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_slower_end_of_a_run_is_the_one_that_counts() {
        let mut m = Machine::default();
        assert!(m.is_empty() && m.slowest_ms().is_none());
        let at = |moment, cpu_ms| MachineRecord {
            run_id: "r".into(),
            moment,
            cpu_ms,
            recorded_at: String::new(),
        };
        m.add(&at(Moment::Start, 20.0));
        assert_eq!(m.slowest_ms(), Some(20.0));
        m.add(&at(Moment::End, 31.0));
        assert_eq!(m.slowest_ms(), Some(31.0));
    }

    /// Runs `f` with two busy threads per core beside it, once every one of them runs
    /// (a task timed before they are scheduled would see a quiet machine).
    fn beside_busy_threads<T>(f: impl FnOnce() -> T) -> T {
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        let running = std::sync::Arc::new(std::sync::Barrier::new(2 * cores + 1));
        let busy: Vec<_> = (0..2 * cores)
            .map(|_| {
                let (stop, running) = (stop.clone(), running.clone());
                std::thread::spawn(move || {
                    running.wait();
                    let mut x = 1u64;
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        x = std::hint::black_box(
                            x.wrapping_mul(6364136223846793005).wrapping_add(1),
                        );
                    }
                })
            })
            .collect();
        running.wait();
        let out = f();
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        busy.into_iter().for_each(|t| t.join().unwrap());
        out
    }

    /// The task shares the cores with two busy threads per core, so it takes longer.
    /// Quiet and loaded are timed in turn, five pairs, and the median of the pairs'
    /// ratios is judged: another session's work that starts or stops between two
    /// timings moves one pair, not the verdict (each pair's own baseline is taken
    /// beside it).
    #[test]
    fn a_busy_cpu_makes_the_task_take_longer() {
        let _cores = crate::conditions::CORES_IN_USE
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let mut ratios: Vec<f64> = (0..5)
            .map(|_| {
                let quiet = calibrate();
                // Timed third in a row: a thread that has just woken runs ahead of
                // long-running neighbours for a few ms (measured in CI: 3 of 5 single
                // 18 ms timings read 0.99-1.06x), which the first two use up.
                let loaded = beside_busy_threads(|| [calibrate(), calibrate(), calibrate()][2]);
                eprintln!("calibration: quiet {quiet:.1} ms, loaded {loaded:.1} ms");
                loaded / quiet
            })
            .collect();
        ratios.sort_by(f64::total_cmp);
        assert!(ratios[2] > 1.3, "loaded / quiet, per pair: {ratios:.2?}");
    }
}
