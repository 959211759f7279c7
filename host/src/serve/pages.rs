//! A fresh benchmark page per block for a page of `unobserved serve` (issue 36). The sink
//! puts a load token, made here, into each copy of the page it serves to a navigation
//! (`sink::api::Api::page_load`); the page sends it back with its messages. A run binds
//! the token of the page that started it, then that of each fresh page that took over,
//! so a sample's `page_load` is the place of its token in that list: what serve saw
//! served, never a number the page gave.

use crate::domain::conditions::PageRefusal;
use crate::domain::plan::Plan;
use crate::sink::token;
use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// Tokens of pages served and not yet bound to a run: at most this many are kept, the
/// oldest dropped first (each GET of the page makes one).
const UNBOUND: usize = 64;

/// The load tokens of pages served and not yet bound.
#[derive(Default)]
pub struct Loads {
    unbound: VecDeque<String>,
}

impl Loads {
    /// A token for a copy of the page about to be served.
    pub fn mint(&mut self) -> String {
        let t = token::generate();
        if self.unbound.len() == UNBOUND {
            self.unbound.pop_front();
        }
        self.unbound.push_back(t.clone());
        t
    }

    /// Takes `presented` out of the unbound tokens: true when serve served it and no
    /// run has bound it yet.
    fn take(&mut self, presented: &str) -> bool {
        match self
            .unbound
            .iter()
            .position(|t| token::matches(t, presented))
        {
            Some(i) => {
                self.unbound.remove(i);
                true
            }
            None => false,
        }
    }
}

/// One run's benchmark pages: page n's token at n, and the fresh page granted.
#[derive(Default)]
pub struct RunPages {
    tokens: Vec<String>,
    /// The rep the fresh page now awaited resumes at, and when it was granted.
    granted: Option<(u32, Instant)>,
    last_granted: u32,
}

impl RunPages {
    /// The pages of a run started by a page with token `presented`: page 0 when serve
    /// served it; none (no fresh pages, samples without `page_load`) otherwise.
    pub fn first(loads: &mut Loads, presented: Option<&str>) -> RunPages {
        RunPages {
            tokens: presented
                .filter(|t| loads.take(t))
                .map(str::to_owned)
                .into_iter()
                .collect(),
            ..RunPages::default()
        }
    }

    /// Whether this run's pages can be renewed (serve knows its first page).
    pub fn renews(&self) -> bool {
        !self.tokens.is_empty()
    }

    /// The page a message with token `presented` came from.
    pub fn load_of(&self, presented: Option<&str>) -> Option<u32> {
        let presented = presented?;
        let i = self
            .tokens
            .iter()
            .position(|t| token::matches(t, presented))?;
        u32::try_from(i).ok()
    }

    /// The current page asks to hand the run over at `rep`, the first rep of a block
    /// after the last granted, within the plan.
    pub fn grant(
        &mut self,
        plan: &Plan,
        presented: Option<&str>,
        rep: u32,
    ) -> Result<(), PageRefusal> {
        let current = self.tokens.len().checked_sub(1).map(|i| i as u32);
        if current.is_none() || self.load_of(presented) != current {
            return Err(PageRefusal::NotCurrentPage);
        }
        if self.granted.is_some() {
            return Err(PageRefusal::Pending);
        }
        let k = plan
            .block_reps
            .filter(|&k| k > 0)
            .ok_or(PageRefusal::NotABlockStart)?;
        if rep == 0 || !rep.is_multiple_of(k) || rep <= self.last_granted {
            return Err(PageRefusal::NotABlockStart);
        }
        if u64::from(rep) >= plan.max_reps() {
            return Err(PageRefusal::BeyondPlan);
        }
        self.granted = Some((rep, Instant::now()));
        self.last_granted = rep;
        Ok(())
    }

    /// Whether a fresh page was granted more than `limit` before `now` and none took over.
    pub fn overdue(&self, now: Instant, limit: Duration) -> bool {
        self.granted
            .is_some_and(|(_, at)| now.saturating_duration_since(at) > limit)
    }

    /// A fresh page with token `presented` takes over the granted block: the rep it
    /// resumes at.
    pub fn resume(
        &mut self,
        loads: &mut Loads,
        presented: Option<&str>,
    ) -> Result<u32, PageRefusal> {
        let (rep, _) = self.granted.ok_or(PageRefusal::NotGranted)?;
        let presented = presented
            .filter(|t| loads.take(t))
            .ok_or(PageRefusal::UnknownLoad)?;
        self.granted = None;
        self.tokens.push(presented.to_owned());
        Ok(rep)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> Plan {
        Plan {
            reps: 6,
            block_reps: Some(2),
            ..Plan::default()
        }
    }

    #[test]
    fn a_fresh_page_is_granted_at_a_block_start_only_to_the_current_page_and_taken_once() {
        let mut loads = Loads::default();
        let first = loads.mint();
        let mut pages = RunPages::first(&mut loads, Some(&first));
        assert_eq!(pages.load_of(Some(&first)), Some(0));
        let fresh = loads.mint();
        // Not a block start; another page's token; past the plan.
        assert_eq!(
            pages.grant(&plan(), Some(&first), 3),
            Err(PageRefusal::NotABlockStart)
        );
        assert_eq!(
            pages.grant(&plan(), Some(&fresh), 2),
            Err(PageRefusal::NotCurrentPage)
        );
        assert_eq!(
            pages.grant(&plan(), Some(&first), 6),
            Err(PageRefusal::BeyondPlan)
        );
        assert_eq!(
            pages.resume(&mut loads, Some(&fresh)),
            Err(PageRefusal::NotGranted)
        );
        assert_eq!(pages.grant(&plan(), Some(&first), 2), Ok(()));
        assert_eq!(
            pages.grant(&plan(), Some(&first), 4),
            Err(PageRefusal::Pending)
        );
        // The old page's token is bound already: it cannot take over as a fresh page.
        assert_eq!(
            pages.resume(&mut loads, Some(&first)),
            Err(PageRefusal::UnknownLoad)
        );
        assert_eq!(pages.resume(&mut loads, Some(&fresh)), Ok(2));
        assert_eq!(pages.load_of(Some(&fresh)), Some(1));
        // The old page no longer hands over, and a block already granted is not again.
        assert_eq!(
            pages.grant(&plan(), Some(&first), 4),
            Err(PageRefusal::NotCurrentPage)
        );
        assert_eq!(
            pages.grant(&plan(), Some(&fresh), 2),
            Err(PageRefusal::NotABlockStart)
        );
    }

    #[test]
    fn a_page_serve_did_not_serve_renews_nothing_and_unbound_tokens_are_bounded() {
        let mut loads = Loads::default();
        let pages = RunPages::first(&mut loads, Some(&"0".repeat(32)));
        assert!(!pages.renews());
        assert_eq!(pages.load_of(Some(&"0".repeat(32))), None);
        let oldest = loads.mint();
        for _ in 0..UNBOUND {
            loads.mint();
        }
        assert_eq!(loads.unbound.len(), UNBOUND);
        assert!(!RunPages::first(&mut loads, Some(&oldest)).renews());
    }
}
