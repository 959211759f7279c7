//! An auto-sampled run: which comparisons it must settle, how many reps it took, and
//! the warning every format shows when a budget ended it before they all settled.

use super::{RunReport, Warning};
use crate::domain::plan::AutoStop;
use crate::stats::compare::Comparison;

/// Every comparison an auto-sampled run must settle: arms against their baselines
/// (or, in a control run, the slowdowns) and the transports.
pub fn comparisons_to_settle(run: &RunReport) -> Vec<Comparison> {
    let mut comparisons: Vec<_> = if run.control.is_empty() {
        run.comparisons.clone()
    } else {
        run.control
            .iter()
            .filter_map(|c| c.slowdown.clone())
            .collect()
    };
    comparisons.extend(run.transports.iter().cloned());
    comparisons
}

/// Measured reps the run took: one past the highest rep any sample recorded.
pub fn reps_taken(run: &RunReport) -> u32 {
    run.samples.iter().map(|s| s.rep + 1).max().unwrap_or(0)
}

/// The budget, not the data, ended the run: say which budget, after how many reps, and
/// which comparisons it left unsettled (they read "not resolved").
pub fn budget_warning(run: &RunReport) -> Option<Warning> {
    let stop = run.run.auto_stop.filter(|s| *s != AutoStop::Settled)?;
    let budget = run.run.plan.as_ref()?.auto?;
    let unsettled = comparisons_to_settle(run)
        .into_iter()
        .filter(|c| !c.settled())
        .map(|c| super::findings::Unsettled {
            arm: c.arm.clone(),
            baseline: c.baseline.clone(),
        })
        .collect();
    Some(Warning::AutoBudgetSpent {
        stop,
        reps: reps_taken(run),
        max_reps: budget.max_reps,
        max_seconds: budget.max_seconds,
        unsettled,
    })
}
