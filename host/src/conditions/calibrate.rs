//! A short machine calibration, taken at the start and at the end of every run: a fixed
//! CPU task, timed. Two runs are only compared when the machine was about as fast for
//! both; a parallel build or a busy loop during one of them shows here (the task takes
//! longer), and `compare` says "not comparable" instead of blaming the browser.
//!
//! The task is SHA-256 over a fixed buffer, in the `ring` crate, which is built
//! optimised in every profile (Cargo.toml): a debug and a release binary time the same.
//! Each round is long enough (~20 ms) to share the CPU with whatever else runs, and the
//! median of the rounds is kept, not the best: the best would hide the load it measures.

use serde::{Deserialize, Serialize};
use std::time::Instant;

/// Bytes hashed per round, from a buffer of `BUFFER` hashed this many times.
const BUFFER: usize = 4 << 20;
const PASSES: usize = 8;
const ROUNDS: usize = 5;

/// When in a run a calibration was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, Hash)]
#[serde(rename_all = "lowercase")]
pub enum Moment {
    /// At `run-started`, before the sink's ceiling is measured.
    Start,
    /// At `run-finished`, after the last upload.
    End,
}

/// One calibration of a run, as stored (`Record::Machine`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MachineRecord {
    pub run_id: String,
    pub moment: Moment,
    /// Median time of one round of the fixed task, in milliseconds.
    pub cpu_ms: f64,
    pub recorded_at: String,
}

/// A run's calibrations, as reports show them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Machine {
    /// The fixed task's time at the run's start and end, in ms (None: not recorded,
    /// as in runs stored before calibrations were).
    pub start_cpu_ms: Option<f64>,
    pub end_cpu_ms: Option<f64>,
}

impl Machine {
    pub fn add(&mut self, r: &MachineRecord) {
        match r.moment {
            Moment::Start => self.start_cpu_ms = Some(r.cpu_ms),
            Moment::End => self.end_cpu_ms = Some(r.cpu_ms),
        }
    }

    /// The slower of the two: load at either end of the run counts against it.
    pub fn slowest_ms(&self) -> Option<f64> {
        match (self.start_cpu_ms, self.end_cpu_ms) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.start_cpu_ms.is_none() && self.end_cpu_ms.is_none()
    }
}

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

    #[test]
    fn a_busy_cpu_makes_the_task_take_longer() {
        let _cores = crate::conditions::CORES_IN_USE
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        // Two busy threads per core the machine has: the task must share them.
        let quiet = calibrate();
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        let busy: Vec<_> = (0..2 * cores)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    let mut x = 1u64;
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        x = std::hint::black_box(
                            x.wrapping_mul(6364136223846793005).wrapping_add(1),
                        );
                    }
                })
            })
            .collect();
        let loaded = calibrate();
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        busy.into_iter().for_each(|t| t.join().unwrap());
        eprintln!("calibration: quiet {quiet:.1} ms, loaded {loaded:.1} ms");
        assert!(
            loaded > quiet * 1.3,
            "quiet {quiet:.1} ms, loaded {loaded:.1} ms"
        );
    }
}
