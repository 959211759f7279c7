//! `compare --fail-if-slower PCT`: a regression gate that trips only on a settled
//! "slower" beyond its bound, and says so apart when it cannot tell, so CI can tell "the
//! build got slower" from "this comparison could not decide" (exit codes 6 and 7).

use super::across::RunsCompared;
use super::RunReport;
use crate::domain::arm::{Arm, ArmKind};
use crate::stats::compare::{Comparison, Verdict};

/// One comparison at `bound` (the ratio below which an arm is "slower beyond"):
/// Ok(true) settled slower beyond it, Ok(false) cleared, Err when it cannot tell.
fn classify(c: &Comparison, bound: f64) -> Result<bool, ()> {
    match (c.verdict, c.ci_low, c.ci_high) {
        (Verdict::Slower, _, Some(hi)) if hi < bound => Ok(true),
        (Verdict::NotComparable | Verdict::Depends, ..) => Err(()),
        (_, Some(lo), _) if lo >= bound => Ok(false),
        _ => Err(()),
    }
}

/// The gate of `run --script … --baseline NAME --fail-if-slower PCT`: every other
/// module of the run against the baseline module, within the run (interleaved rep by
/// rep, so no machine check is needed). A module arm with no comparison (no intact
/// samples, say) cannot be cleared.
pub fn within_run(report: &RunReport, pct: f64) -> Gate {
    let bound = 1.0 - pct / 100.0;
    let baseline = report.run.plan.as_ref().and_then(|p| p.baseline_module());
    let (mut slower, mut undecided) = (Vec::new(), Vec::new());
    let others = report.summary.iter().map(|s| &s.arm).filter(|a| {
        a.condition.is_none()
            && matches!(&a.kind, ArmKind::Module { name, .. } if Some(name) != baseline)
    });
    for arm in others {
        let found = report.comparisons.iter().find(|c| c.arm.arm() == arm);
        match found.map(|c| classify(c, bound)) {
            Some(Ok(true)) => slower.push(arm.clone()),
            Some(Ok(false)) => {}
            _ => undecided.push(arm.clone()),
        }
    }
    if !slower.is_empty() {
        Gate::Slower(slower)
    } else if !undecided.is_empty() {
        Gate::Undecided {
            arms: undecided,
            not_comparable: false,
        }
    } else {
        Gate::Pass
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Gate {
    /// Every arm's interval lies above the bound: nothing is slower beyond it.
    Pass,
    /// These arms are settled "slower", with their whole interval beyond the bound.
    Slower(Vec<Arm>),
    /// No arm is settled slower, but these cannot be cleared: their interval reaches
    /// past the bound without lying beyond it, they have none, or (`not_comparable`)
    /// the machine ran at another speed in one of the runs.
    Undecided {
        arms: Vec<Arm>,
        not_comparable: bool,
    },
}

impl RunsCompared {
    /// The gate at `pct` percent slower than the first side.
    pub fn gate(&self, pct: f64) -> Gate {
        let bound = 1.0 - pct / 100.0;
        let (mut slower, mut undecided) = (Vec::new(), Vec::new());
        for a in &self.arms {
            let verdicts = a.versus_first.iter().map(|c| match c {
                None => Err(()),
                Some(c) => classify(&c.comparison, bound),
            });
            let verdicts: Vec<Result<bool, ()>> = verdicts.collect();
            if verdicts.contains(&Ok(true)) {
                slower.push(a.arm.clone());
            } else if verdicts.contains(&Err(())) {
                undecided.push(a.arm.clone());
            }
        }
        if !slower.is_empty() {
            Gate::Slower(slower)
        } else if !undecided.is_empty() || !self.machine.is_comparable() {
            Gate::Undecided {
                arms: undecided,
                not_comparable: !self.machine.is_comparable(),
            }
        } else {
            Gate::Pass
        }
    }
}
