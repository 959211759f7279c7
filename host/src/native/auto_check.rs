//! `auto-check`: with `--auto`, the page asks after every rep whether to add another.
//! The host answers from the run's stored samples with the same statistics the reports
//! use, so the stopping rule and the final verdicts agree.

use super::{invalid_run_id, unknown_run, Session};
use crate::domain::plan::{AutoBudget, AutoReason, AutoStop};
use crate::domain::run::valid_run_id;
pub use crate::protocol::messages::AutoProgress;
use crate::protocol::{ErrorCode, MessageType, Outgoing};
use crate::report;

pub fn handle(session: &mut Session, run_id: String, reps_done: u32) -> Outgoing {
    if !valid_run_id(&run_id) {
        return invalid_run_id(&run_id, MessageType::AutoCheck);
    }
    if !session.started.contains_key(&run_id) {
        return unknown_run(&run_id, MessageType::AutoCheck);
    }
    let run = match report::load_run(&session.store, &run_id, report::TimelinePoints::Drop) {
        Ok(Some(run)) => run,
        Ok(None) => {
            return Outgoing::error(
                ErrorCode::InvalidField,
                format!("no run {run_id:?} in the store"),
                Some(MessageType::AutoCheck.into()),
            )
        }
        Err(e) => {
            return Outgoing::error(
                ErrorCode::StoreFailed,
                format!("cannot read the store: {e}"),
                Some(MessageType::AutoCheck.into()),
            )
        }
    };
    let decision = decide(&run, reps_done, chrono::Utc::now());
    if decision.stop.is_none() {
        // The next rep is `reps_done`: its block's load is on before it begins.
        super::run_conditions::before_rep(session, &run_id, reps_done);
    }
    let reason = decision.reason();
    log::info!(
        "auto-check {run_id} after {reps_done} reps: {}",
        crate::export::words::auto_reason(&reason)
    );
    Outgoing::AutoDecision {
        run_id,
        more: decision.stop.is_none(),
        stop: decision.stop,
        reason,
        progress: decision.progress,
    }
}

/// Another rep, or why not.
#[derive(Debug, PartialEq)]
pub struct Decision {
    /// None: add a rep.
    pub stop: Option<AutoStop>,
    /// The arms whose comparisons are not settled yet (empty before the plan's minimum
    /// reps or before there is anything to compare).
    pub unsettled: Vec<crate::domain::arm::Arm>,
    pub progress: AutoProgress,
}

impl Decision {
    /// For the page and the log: why it stops, or why not yet.
    pub fn reason(&self) -> AutoReason {
        match (self.stop, self.unsettled.is_empty()) {
            (Some(stop), _) => stop.into(),
            (None, true) => AutoReason::NothingToCompare,
            (None, false) => AutoReason::NotSettled {
                unsettled: self.unsettled.clone(),
            },
        }
    }
}

/// Seconds of the time budget left at `now`, counted from the run's start (all of it
/// when the start is unknown).
fn seconds_left(
    run: &report::RunReport,
    budget: AutoBudget,
    now: chrono::DateTime<chrono::Utc>,
) -> u64 {
    let started = run
        .run
        .started_at
        .as_deref()
        .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok());
    let spent = started.map_or(0, |s| (now - s.with_timezone(&chrono::Utc)).num_seconds());
    budget.max_seconds.saturating_sub(spent.max(0) as u64)
}

/// Whether the run has yet to take its plan's minimum reps (`Plan::minimum_reps`).
fn before_minimum(run: &report::RunReport, reps_done: u32) -> bool {
    let plan = run.run.plan.as_ref();
    plan.is_some_and(|p| reps_done < p.minimum_reps())
}

/// Stop when every comparison is settled (its interval lies entirely inside or entirely
/// outside the horizon: precision, not significance), or when a budget is spent.
pub fn decide(
    run: &report::RunReport,
    reps_done: u32,
    now: chrono::DateTime<chrono::Utc>,
) -> Decision {
    // A run without an auto budget (a page of a `--load` plan asks before every rep,
    // so the block's load is on in time) goes on to its reps, then stops.
    let Some(budget) = run.run.plan.as_ref().and_then(|p| p.auto) else {
        return Decision {
            stop: (!before_minimum(run, reps_done)).then_some(AutoStop::BudgetReps),
            unsettled: vec![],
            progress: AutoProgress::default(),
        };
    };
    let comparisons = report::auto_budget::comparisons_to_settle(run);
    let unsettled: Vec<crate::domain::arm::Arm> = comparisons
        .iter()
        .filter(|c| !c.settled())
        .map(|c| c.arm.arm().clone())
        .collect();
    let progress = AutoProgress {
        settled: comparisons.len() - unsettled.len(),
        comparisons: comparisons.len(),
        seconds_left: seconds_left(run, budget, now),
        settled_verdicts: comparisons
            .iter()
            .filter(|c| c.settled())
            .cloned()
            .collect(),
    };
    let before_minimum = before_minimum(run, reps_done);
    let stop = if before_minimum {
        None
    } else if !comparisons.is_empty() && unsettled.is_empty() {
        Some(AutoStop::Settled)
    } else if reps_done >= budget.max_reps {
        Some(AutoStop::BudgetReps)
    } else if progress.seconds_left == 0 {
        Some(AutoStop::BudgetTime)
    } else {
        None
    };
    let unsettled = if before_minimum || stop.is_some() {
        vec![]
    } else {
        unsettled
    };
    Decision {
        stop,
        unsettled,
        progress,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::conditions::Load;
    use crate::domain::plan::{AutoBudget, Plan};
    use crate::domain::run::RunInfo;
    use crate::store::tests_support::sample;
    use crate::store::{Record, StoreContents};

    fn run(samples: Vec<crate::domain::sample::Sample>, started: &str) -> report::RunReport {
        let plan = Plan {
            reps: 3,
            auto: Some(AutoBudget {
                max_reps: 10,
                max_seconds: 60,
            }),
            ..Plan::default()
        };
        let info = RunInfo {
            run_id: "r".into(),
            env: crate::domain::sample::Environment {
                browser: "b".into(),
                browser_version: "1".into(),
                os: "o".into(),
                extension_version: "0".into(),
            },
            plan,
            source: "job".into(),
            started_at: Some(started.into()),
            sink: None,
            sink_url: None,
            extra: Default::default(),
        };
        let mut records = vec![Record::Run(crate::store::RunRecord {
            run: info,
            host_version: "0".into(),
            recorded_at: started.into(),
            sink_ceiling_mbps: None,
            sink_ceiling_range: None,
            sink_hash_mbps: None,
            cpu: None,
            transport_ceilings: Default::default(),
            interleaved: None,
        })];
        records.extend(samples.into_iter().map(Record::Sample));
        report::runs(StoreContents {
            records: records.into_iter().enumerate().collect(),
            warnings: vec![],
        })
        .pop()
        .unwrap()
    }

    fn arms(pairs: &[(f64, f64)]) -> Vec<crate::domain::sample::Sample> {
        pairs
            .iter()
            .enumerate()
            .flat_map(|(i, (u, b))| {
                [
                    sample("r", "Uint8Array", i as u32, *u),
                    sample("r", "Blob", i as u32, *b),
                ]
            })
            .collect()
    }

    #[test]
    fn stops_when_every_ratio_resolves() {
        let now = chrono::Utc::now();
        let r = run(
            arms(&[
                (100.0, 900.0),
                (110.0, 950.0),
                (95.0, 880.0),
                (105.0, 910.0),
            ]),
            &now.to_rfc3339(),
        );
        let settled = decide(&r, 4, now);
        assert_eq!(settled.stop, Some(AutoStop::Settled));
        assert_eq!(
            (settled.progress.settled, settled.progress.comparisons),
            (1, 1)
        );
    }

    #[test]
    fn keeps_going_while_not_settled_then_stops_on_the_rep_budget() {
        let now = chrono::Utc::now();
        let r = run(
            arms(&[(100.0, 101.0), (103.0, 99.0), (98.0, 102.0)]),
            &now.to_rfc3339(),
        );
        let going = decide(&r, 3, now);
        let blob = sample("r", "Blob", 0, 1.0).arm();
        assert_eq!((going.stop, going.unsettled), (None, vec![blob]));
        assert_eq!(
            going.progress,
            AutoProgress {
                settled: 0,
                comparisons: 1,
                seconds_left: 60,
                settled_verdicts: vec![],
            }
        );
        assert_eq!(decide(&r, 10, now).stop, Some(AutoStop::BudgetReps));
    }

    #[test]
    fn stops_on_the_time_budget() {
        let now = chrono::Utc::now();
        let r = run(
            arms(&[(100.0, 101.0), (103.0, 99.0), (98.0, 102.0)]),
            &(now - chrono::Duration::seconds(61)).to_rfc3339(),
        );
        let spent = decide(&r, 4, now);
        assert_eq!(spent.stop, Some(AutoStop::BudgetTime));
        assert_eq!(spent.progress.seconds_left, 0);
    }

    #[test]
    fn never_stops_before_the_minimum_reps() {
        let now = chrono::Utc::now();
        let r = run(arms(&[(100.0, 900.0), (110.0, 950.0)]), &now.to_rfc3339());
        let early = decide(&r, 2, now);
        assert_eq!((early.stop, early.unsettled), (None, vec![]));
    }

    /// The CI failure of stop 44: `--load none,cpu`, 4 reps in blocks of 3 and a 5 s
    /// budget stopped after rep 4, so the CPU block had one rep and no verdict.
    #[test]
    fn a_plan_of_loads_measures_a_whole_block_of_each_before_a_budget_stops_it() {
        let now = chrono::Utc::now();
        let pairs = [(100.0, 101.0), (103.0, 99.0), (98.0, 102.0), (101.0, 100.0)];
        let mut r = run(
            arms(&pairs),
            &(now - chrono::Duration::seconds(61)).to_rfc3339(),
        );
        let plan = r.run.plan.as_mut().unwrap();
        (plan.reps, plan.block_reps) = (4, Some(3));
        plan.loads = vec![Load::None, Load::Cpu];
        plan.auto = Some(AutoBudget {
            max_reps: 4,
            max_seconds: 5,
        });
        assert_eq!(decide(&r, 4, now).stop, None, "the CPU block has one rep");
        assert_eq!(decide(&r, 5, now).stop, None);
        // Then it stops (on the data or a budget, whichever says so first).
        assert!(decide(&r, 6, now).stop.is_some());
        // Without a budget, the same: the plan's reps are raised to a block of each load.
        r.run.plan.as_mut().unwrap().auto = None;
        assert_eq!(decide(&r, 5, now).stop, None);
        assert_eq!(decide(&r, 6, now).stop, Some(AutoStop::BudgetReps));
    }

    #[test]
    fn transport_comparisons_must_settle_too() {
        let over = |rep: u32, transport, mbps| {
            let mut s = sample("r", "Uint8Array", rep, mbps);
            s.recorded_arm = Some(crate::domain::arm::Arm {
                transport: Some(transport),
                ..s.arm()
            });
            s
        };
        let now = chrono::Utc::now();
        let close = (0..4)
            .flat_map(|i| {
                let wobble = [100.0, 103.0, 98.0, 101.0][i as usize];
                [
                    over(i, crate::domain::arm::Transport::H1, wobble),
                    over(i, crate::domain::arm::Transport::H2, 201.0 - wobble),
                ]
            })
            .collect();
        let r = run(close, &now.to_rfc3339());
        assert!(
            r.comparisons.is_empty(),
            "one body kind: nothing but transports"
        );
        let going = decide(&r, 4, now);
        assert_eq!(
            (going.stop, going.unsettled),
            (
                None,
                vec![over(0, crate::domain::arm::Transport::H2, 1.0).arm()]
            )
        );
        let apart = (0..4)
            .flat_map(|i| {
                [
                    over(i, crate::domain::arm::Transport::H1, 100.0 + i as f64),
                    over(i, crate::domain::arm::Transport::H2, 300.0 + i as f64),
                ]
            })
            .collect();
        assert_eq!(
            decide(&run(apart, &now.to_rfc3339()), 4, now).stop,
            Some(AutoStop::Settled)
        );
    }
}
