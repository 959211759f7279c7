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

    /// The run's progress, when new samples arrived and the last look is old enough:
    /// judged, as the host judges after each rep, over the reps before the one under way.
    pub fn poll(&mut self, store: &Store, run_id: &str) -> Option<AutoProgress> {
        if !self.fresh || self.judged_at.is_some_and(|t| t.elapsed() < EVERY) {
            return None;
        }
        self.fresh = false;
        self.judged_at = Some(Instant::now());
        judge(store, run_id, self.reps_seen.saturating_sub(1))
    }

    /// The ended run's progress over every rep it took: what its report says.
    pub fn last(&self, store: &Store, run_id: &str) -> Option<AutoProgress> {
        judge(store, run_id, self.reps_seen)
    }
}

/// `auto_check::decide` over the run's first `reps` reps.
fn judge(store: &Store, run_id: &str, reps: u32) -> Option<AutoProgress> {
    let run = crate::report::load_run_to_rep(store, run_id, reps)
        .ok()
        .flatten()?;
    Some(auto_check::decide(&run, reps, chrono::Utc::now()).progress)
}

impl Default for Watch {
    fn default() -> Self {
        Watch::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::tests_support::{auto_run_record, sample};
    use crate::store::Record;

    /// A store of an auto-sampled run: Blob twice Uint8Array over `reps` whole reps,
    /// then `extra` samples.
    fn store_of(dir: &std::path::Path, reps: u32, extra: Vec<Record>) -> Store {
        let mut records = vec![auto_run_record("r", 3, 100)];
        for rep in 0..reps {
            let wobble = f64::from(rep);
            records.push(Record::Sample(sample(
                "r",
                "Uint8Array",
                rep,
                100.0 + wobble,
            )));
            records.push(Record::Sample(sample("r", "Blob", rep, 200.0 + wobble)));
        }
        records.extend(extra);
        let store = Store::in_dir(dir);
        store.append(&records).unwrap();
        store
    }

    /// The README's run once printed Blob [1.34–1.75] on stderr and [1.40–1.68] in its
    /// table: a rep under way was judged with only some of its arms.
    #[test]
    fn progress_is_judged_over_whole_reps_and_the_last_word_over_every_rep() {
        let (under_way, whole) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let slow_blob = Record::Sample(sample("r", "Blob", 6, 10.0));
        let store = store_of(under_way.path(), 6, vec![slow_blob]);
        let mut watch = Watch::new();
        (0..=6).for_each(|rep| watch.saw(rep));
        let polled = watch.poll(&store, "r").unwrap();
        assert!(!polled.settled_verdicts.is_empty(), "{polled:?}");
        let six_whole = judge(&store_of(whole.path(), 6, vec![]), "r", 6).unwrap();
        assert_eq!(polled, six_whole, "rep 7, under way, is not judged");
        let last = watch.last(&store, "r").unwrap();
        assert_ne!(
            last, polled,
            "the ended run is judged over every rep it took"
        );
    }
}
