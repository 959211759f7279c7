//! Refused requests are counted, not logged one by one: a page or a peer hammering the
//! sink with bad tokens must not be able to grow the log without bound. At most one
//! summary line a second reaches the log, with the counts by reason.

use std::sync::Mutex;
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Refusal {
    Token,
    Host,
    /// A repeated Host or Origin, or a Host the request's target contradicts.
    Ambiguous,
    Origin,
    TooManyConnections,
    TooManyFromPeer,
    /// Test uploads (naming no run) past `serve`'s rate.
    ProbeRate,
}

impl Refusal {
    pub fn label(self) -> &'static str {
        match self {
            Refusal::Token => "missing or wrong token",
            Refusal::Host => "unknown Host header",
            Refusal::Ambiguous => "repeated or contradicting Host or Origin",
            Refusal::Origin => "foreign origin",
            Refusal::TooManyConnections => "connection cap",
            Refusal::TooManyFromPeer => "per-peer cap",
            Refusal::ProbeRate => "test upload rate",
        }
    }
}

const EVERY: Duration = Duration::from_secs(1);

pub struct Refusals {
    state: Mutex<(Instant, std::collections::BTreeMap<Refusal, u64>)>,
}

impl Default for Refusals {
    fn default() -> Self {
        Refusals {
            state: Mutex::new((Instant::now() - EVERY, Default::default())),
        }
    }
}

impl Refusals {
    pub fn record(&self, why: Refusal) {
        let mut state = self.state.lock().unwrap();
        *state.1.entry(why).or_insert(0) += 1;
        if state.0.elapsed() >= EVERY {
            let summary: Vec<String> = state
                .1
                .iter()
                .map(|(r, n)| format!("{n} ({})", r.label()))
                .collect();
            log::warn!(
                "refused requests since the last summary: {}",
                summary.join(", ")
            );
            state.1.clear();
            state.0 = Instant::now();
        }
    }
}
