//! The terminal's view of an auto-sampled run. The extension asks the host after every
//! rep whether to go on; `unobserved run` follows the store, so it judges the stored
//! run with the same rule (`native::auto_check::decide`) for its progress: how many
//! comparisons are settled, and the seconds of the budget left.

use crate::native::auto_check;
use crate::protocol::messages::AutoProgress;
use crate::store::Store;
use std::time::{Duration, Instant};

/// Judging reads the run's lines from the store: at most this often.
const EVERY: Duration = Duration::from_secs(1);

pub struct Watch {
    reps_seen: u32,
    judged_at: Option<Instant>,
    fresh: bool,
}

impl Watch {
    pub fn new() -> Watch {
        Watch {
            reps_seen: 0,
            judged_at: None,
            fresh: false,
        }
    }

    /// A measured sample of rep `rep` was stored.
    pub fn saw(&mut self, rep: u32) {
        self.reps_seen = self.reps_seen.max(rep + 1);
        self.fresh = true;
    }

    /// The run's progress, when new samples arrived and the last look is old enough.
    pub fn poll(&mut self, store: &Store, run_id: &str) -> Option<AutoProgress> {
        if !self.fresh || self.judged_at.is_some_and(|t| t.elapsed() < EVERY) {
            return None;
        }
        self.fresh = false;
        self.judged_at = Some(Instant::now());
        let run = crate::report::load_run(store, run_id, crate::report::TimelinePoints::Drop)
            .ok()
            .flatten()?;
        Some(auto_check::decide(&run, self.reps_seen, chrono::Utc::now()).progress)
    }
}

impl Default for Watch {
    fn default() -> Self {
        Watch::new()
    }
}
