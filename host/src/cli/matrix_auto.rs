//! `unobserved run --browser a,b --auto`: auto-sampling across browsers. Each round runs
//! every browser in turn (interleaved, so drift hits them alike), each in a fresh
//! throwaway profile; after each round the pooled samples of each browser are compared
//! with the first browser's, and the rounds stop when every ratio is settled (its 95%
//! interval entirely inside or entirely outside ±horizon, the rule within a run) or a
//! budget is spent.

use crate::domain::plan::{AutoBudget, AutoStop, Plan};
use crate::report::across::{compare_runs, RunsCompared};
use crate::report::pooled::pool;
use crate::report::RunReport;
use std::time::{Duration, Instant};

/// Reps each later round adds per browser (the first round runs --reps).
pub const REPS_PER_ROUND: u32 = 2;

/// The plan of the next round after `reps_done` reps per browser, or None when the rep
/// budget is spent. Each round's run judges nothing itself: no --auto inside it.
pub fn next_round(plan: &Plan, budget: AutoBudget, reps_done: u32) -> Option<Plan> {
    let reps = if reps_done == 0 {
        plan.reps
    } else {
        REPS_PER_ROUND.min(budget.max_reps.saturating_sub(reps_done))
    };
    (reps > 0).then(|| Plan {
        reps,
        auto: None,
        ..plan.clone()
    })
}

/// Each browser's runs pooled, then compared with the first browser's.
pub fn judge(per_browser: &[Vec<RunReport>], horizon: f64) -> Option<RunsCompared> {
    let pooled: Vec<RunReport> = per_browser.iter().filter_map(|runs| pool(runs)).collect();
    (pooled.len() > 1).then(|| compare_runs(&pooled, horizon))
}

/// Settled when there is at least one ratio and every ratio is settled.
pub fn settled(compared: &RunsCompared) -> bool {
    let ratios: Vec<_> = compared
        .arms
        .iter()
        .flat_map(|a| a.versus_first.iter().flatten())
        .collect();
    !ratios.is_empty() && ratios.iter().all(|c| c.comparison.settled())
}

/// Whether to stop after a round, and why.
pub fn stop_after(
    compared: Option<&RunsCompared>,
    budget: AutoBudget,
    reps_done: u32,
    started: Instant,
) -> Option<AutoStop> {
    if compared.is_some_and(settled) {
        Some(AutoStop::Settled)
    } else if reps_done >= budget.max_reps {
        Some(AutoStop::BudgetReps)
    } else if started.elapsed() >= Duration::from_secs(budget.max_seconds) {
        Some(AutoStop::BudgetTime)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tests_support::report_of;
    use crate::store::tests_support::{run_record, sample};
    use crate::store::Record;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    /// One browser's run: `reps` Blob uploads lognormal around `mean` (8% spread).
    fn round(id: &str, mean: f64, reps: u32, rng: &mut StdRng) -> RunReport {
        let mut records = vec![run_record(id)];
        for rep in 0..reps {
            let z: f64 = (0..12).map(|_| rng.random::<f64>()).sum::<f64>() - 6.0;
            let mbps = mean * (0.08 * z).exp();
            records.push(Record::Sample(sample(id, "Blob", rep, mbps)));
        }
        report_of(records)
    }

    /// Rounds as the matrix runs them, with simulated browsers of these means.
    fn rounds_until_stop(means: [f64; 2], seed: u64) -> (AutoStop, u32) {
        let mut rng = StdRng::seed_from_u64(seed);
        let plan = Plan {
            reps: 4,
            ..Plan::default()
        };
        let budget = AutoBudget {
            max_reps: 30,
            max_seconds: 3600,
        };
        let (mut per_browser, mut reps_done) = (vec![vec![], vec![]], 0);
        let started = Instant::now();
        loop {
            let round_plan = next_round(&plan, budget, reps_done).unwrap();
            assert!(round_plan.auto.is_none(), "a round judges nothing itself");
            for (b, mean) in means.iter().enumerate() {
                let id = format!("b{b}-{reps_done}");
                per_browser[b].push(round(&id, *mean, round_plan.reps, &mut rng));
            }
            reps_done += round_plan.reps;
            let compared = judge(&per_browser, 0.05);
            if let Some(stop) = stop_after(compared.as_ref(), budget, reps_done, started) {
                return (stop, reps_done);
            }
        }
    }

    #[test]
    fn a_clear_difference_between_browsers_settles_early() {
        for seed in 0..20 {
            let (stop, reps) = rounds_until_stop([1000.0, 1400.0], seed);
            assert_eq!(stop, AutoStop::Settled, "seed {seed}");
            assert!(reps <= 12, "seed {seed}: {reps} reps");
        }
    }

    #[test]
    fn browsers_a_hair_apart_run_to_the_budget_instead_of_a_false_verdict() {
        // 3% apart with 8% noise sits on the ±5% horizon: rarely settles in 30 reps.
        let stopped_by_budget = (0..20)
            .filter(|&seed| rounds_until_stop([1000.0, 1050.0], seed).0 == AutoStop::BudgetReps)
            .count();
        assert!(stopped_by_budget >= 10, "{stopped_by_budget} of 20");
    }

    #[test]
    fn later_rounds_add_two_reps_and_never_pass_the_budget() {
        let plan = Plan {
            reps: 4,
            ..Plan::default()
        };
        let budget = AutoBudget {
            max_reps: 7,
            max_seconds: 60,
        };
        assert_eq!(next_round(&plan, budget, 0).unwrap().reps, 4);
        assert_eq!(next_round(&plan, budget, 4).unwrap().reps, 2);
        assert_eq!(next_round(&plan, budget, 6).unwrap().reps, 1);
        assert!(next_round(&plan, budget, 7).is_none());
    }
}
