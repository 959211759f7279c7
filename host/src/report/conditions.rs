//! A run's comparisons by blocks and conditions (issue 36): which block each rep fell
//! in, the condition each block was measured in (its `conditions` line: the load the
//! run put on the machine and the other work the host saw), and each arm against its
//! baseline by blocks (`stats::blocks`), per condition when the run's blocks were
//! measured in more than one, with `Depends` when the conditions disagree.

use super::RunMeta;
use crate::domain::arm::Arm;
use crate::domain::conditions::{BlockConditions, Condition, MachineState};
use crate::domain::plan::Plan;
use crate::domain::sample::Sample;
use crate::domain::sample::SampleStatus;
use crate::stats::blocks::{across_conditions, compare_blocks, Paired};
use crate::stats::compare::{self, Comparison, Side};
use crate::stats::sequential::Looks;
use crate::stats::{ArmSummary, ConditionSummary};

/// The condition a sample's block was measured in; None for a run stored before blocks
/// or conditions.
pub fn of_sample(run: &RunMeta, s: &crate::domain::sample::Sample) -> Option<Condition> {
    let plan = run.plan.as_ref().filter(|p| p.block_reps.is_some())?;
    (!run.blocks.is_empty()).then(|| condition_of(run, plan.block_of(s.rep)))
}

/// The condition each block was measured in. A block without its line yet (the one a
/// run is in while `--auto` asks) takes the condition of the run's recorded blocks of the
/// same load, or quiet under its load when there are none.
pub fn condition_of(run: &RunMeta, block: u32) -> Condition {
    if let Some(b) = run.blocks.iter().find(|b| b.block == block) {
        return b.condition();
    }
    let load = run
        .plan
        .as_ref()
        .map_or(Default::default(), |p| p.load_of(block));
    run.blocks
        .iter()
        .filter(|b| b.load == load)
        .map(BlockConditions::condition)
        .next_back()
        .unwrap_or(Condition {
            load,
            ..Condition::default()
        })
}

/// The distinct conditions of a run's blocks, in the order they first appear, with
/// their blocks and what the machine did over them.
pub fn parts(run: &RunMeta) -> Vec<(Condition, Vec<u32>, MachineState)> {
    let mut out: Vec<(Condition, Vec<u32>, Vec<MachineState>)> = Vec::new();
    for b in &run.blocks {
        let c = b.condition();
        match out.iter_mut().find(|(k, ..)| *k == c) {
            Some((_, ids, states)) => {
                ids.push(b.block);
                states.push(b.state);
            }
            None => out.push((c, vec![b.block], vec![b.state])),
        }
    }
    out.into_iter()
        .map(|(c, ids, states)| (c, ids, MachineState::combine(&states)))
        .collect()
}

/// In a run whose blocks were measured in more than one condition, each arm's figures
/// per condition (`ArmSummary::by_condition`): its median and range are never pooled
/// across conditions in what a report shows.
pub fn summaries(run: &RunMeta, summary: &mut [ArmSummary], samples: &[Sample]) {
    let parts = parts(run);
    if parts.len() < 2 {
        return;
    }
    for arm in summary {
        arm.by_condition = parts
            .iter()
            .map(|(condition, ..)| {
                let of = samples
                    .iter()
                    .filter(|s| s.is_of(&arm.arm) && of_sample(run, s).as_ref() == Some(condition))
                    .collect();
                ConditionSummary {
                    condition: condition.clone(),
                    figures: ArmSummary::of_arm(arm.arm.clone(), of),
                }
            })
            .collect();
    }
}

/// Each intact upload of `arm` whose rep `keep` keeps: (rep, Mbps).
fn speeds(samples: &[Sample], arm: &Arm, keep: &dyn Fn(u32) -> bool) -> Vec<(u32, f64)> {
    samples
        .iter()
        .filter(|s| s.is_of(arm) && s.status == SampleStatus::Ok && keep(s.rep))
        .filter_map(|s| Some((s.rep, s.mbps?)))
        .collect()
}

fn values(v: &[(u32, f64)]) -> Vec<f64> {
    v.iter().map(|x| x.1).collect()
}

/// How a run's comparisons are read: at `--auto`'s scheduled looks, or once.
fn looks_of(plan: &Plan) -> Looks {
    if plan.auto.is_some() {
        Looks::Scheduled
    } else {
        Looks::Once
    }
}

/// The two sides over the blocks whose reps `keep` keeps.
fn by_blocks(
    samples: &[Sample],
    plan: &Plan,
    (sides, arms): ((Side, Side), (&Arm, &Arm)),
    keep: &dyn Fn(u32) -> bool,
    horizon: f64,
) -> Option<Comparison> {
    let (a, b) = (speeds(samples, arms.0, keep), speeds(samples, arms.1, keep));
    let pairs: Vec<Paired> = a
        .iter()
        .filter_map(|&(rep, x)| {
            let y = b.iter().find(|(r, _)| *r == rep)?.1;
            Some(Paired {
                block: plan.block_of(rep),
                arm: x,
                baseline: y,
            })
        })
        .collect();
    let speeds = (values(&a), values(&b));
    compare_blocks(
        sides,
        (&speeds.0, &speeds.1),
        &pairs,
        horizon,
        looks_of(plan),
    )
}

/// The conditions `arm`'s reps were measured in, in the order they first appear.
fn conditions_of(run: &RunMeta, plan: &Plan, samples: &[Sample], arm: &Arm) -> Vec<Condition> {
    let mut conditions: Vec<Condition> = Vec::new();
    for s in samples.iter().filter(|s| s.is_of(arm)) {
        let c = condition_of(run, plan.block_of(s.rep));
        if !conditions.contains(&c) {
            conditions.push(c);
        }
    }
    conditions
}

/// `arm` against `baseline`: by blocks (per condition when the blocks' conditions
/// differ) in a run with blocks; pooled by ranks in a run stored before them.
pub fn compare_pair(
    run: &RunMeta,
    samples: &[Sample],
    arms: (&Arm, &Arm),
    horizon: f64,
) -> Option<Comparison> {
    let sides = (
        Side::Arm {
            arm: arms.0.clone(),
        },
        Side::Arm {
            arm: arms.1.clone(),
        },
    );
    let all = |_: u32| true;
    let (arm, baseline) = (
        values(&speeds(samples, arms.0, &all)),
        values(&speeds(samples, arms.1, &all)),
    );
    let Some(plan) = run.plan.as_ref().filter(|p| p.block_reps.is_some()) else {
        return compare::compare(sides.0, &arm, sides.1, &baseline, horizon);
    };
    let conditions = conditions_of(run, plan, samples, arms.0);
    if conditions.len() <= 1 {
        return by_blocks(samples, plan, (sides, arms), &all, horizon);
    }
    let each: Vec<(Condition, Comparison)> = conditions
        .into_iter()
        .filter_map(|c| {
            let keep = |rep: u32| condition_of(run, plan.block_of(rep)) == c;
            let one = by_blocks(samples, plan, (sides.clone(), arms), &keep, horizon)?;
            Some((c, one))
        })
        .collect();
    let ratio = crate::stats::agree::ratio_of_medians(&arm, &baseline)?;
    Some(across_conditions(sides, ratio, each, horizon))
}

/// What a report says of the run's conditions: a warning when other work loaded the
/// machine, or when the other work changed between blocks (an unplanned change); else
/// a note naming the one condition (quiet, or the run's own load), or, in a run whose
/// loads alternate as planned (`--load none,cpu`) over one kind of other work, a note
/// naming each load's blocks. Nothing for a run stored before blocks.
pub fn findings(run: &RunMeta) -> (Option<super::Warning>, Option<super::Note>) {
    let parts = parts(run);
    // The other work each part saw, its load set aside: what the run did not plan.
    let mut other_work: Vec<Condition> = Vec::new();
    for (c, ..) in &parts {
        let unplanned = Condition {
            load: Default::default(),
            ..c.clone()
        };
        if !other_work.contains(&unplanned) {
            other_work.push(unplanned);
        }
    }
    match (parts.as_slice(), other_work.as_slice()) {
        ([], _) => (None, None),
        ([(condition, _, state)], _) => one_condition(condition, state),
        (many, [unplanned]) => {
            let states: Vec<MachineState> = many.iter().map(|p| p.2).collect();
            let loaded = (!unplanned.pressures.is_empty()).then(|| super::Warning::OtherWork {
                condition: unplanned.clone(),
                state: MachineState::combine(&states),
            });
            let planned = super::Note::LoadsPlanned {
                parts: condition_parts(many),
            };
            (loaded, Some(planned))
        }
        (many, _) => (
            Some(super::Warning::ConditionChanged {
                parts: condition_parts(many),
            }),
            None,
        ),
    }
}

/// A run measured in one condition: a note when only the run's own load (if any) was
/// on the machine, a warning when other work was.
fn one_condition(
    condition: &Condition,
    state: &MachineState,
) -> (Option<super::Warning>, Option<super::Note>) {
    let (condition, state) = (condition.clone(), *state);
    if condition.pressures.is_empty() {
        (None, Some(super::Note::MeasuredIn { condition, state }))
    } else {
        (Some(super::Warning::OtherWork { condition, state }), None)
    }
}

fn condition_parts(
    parts: &[(Condition, Vec<u32>, MachineState)],
) -> Vec<super::findings::ConditionPart> {
    parts
        .iter()
        .map(
            |(condition, blocks, state)| super::findings::ConditionPart {
                condition: condition.clone(),
                blocks: blocks.clone(),
                state: *state,
            },
        )
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::domain::conditions::{Load, Pressure};
    use crate::report::tests_support::report_of;
    use crate::stats::compare::Verdict;
    use crate::store::tests_support::{run_record, sample};
    use crate::store::{ConditionsRecord, Record};

    /// A run of 12 blocks of 3 reps: Blob 0.7x of Uint8Array in even blocks, 1.6x in odd
    /// ones, and each block's conditions line (`odd` saw two busy cores, or ran the
    /// run's own load).
    pub(crate) fn run(id: &str, odd: Condition, flip: bool) -> crate::report::RunReport {
        report_of(records(id, odd, flip))
    }

    /// The records of that run, for a test that adds to its samples.
    pub(crate) fn records(id: &str, odd: Condition, flip: bool) -> Vec<Record> {
        let mut records = vec![run_record(id)];
        if let Record::Run(r) = &mut records[0] {
            r.run.plan.block_reps = Some(3);
        }
        for block in 0..12u32 {
            let busy = block % 2 == 1;
            let ratio = if busy && flip { 1.6 } else { 0.7 };
            for rep in block * 3..block * 3 + 3 {
                let wobble = 1.0 + 0.01 * f64::from(rep % 3);
                records.push(Record::Sample(sample(
                    id,
                    "Uint8Array",
                    rep,
                    1000.0 * wobble,
                )));
                records.push(Record::Sample(sample(
                    id,
                    "Blob",
                    rep,
                    1000.0 * ratio / wobble,
                )));
            }
            let mut state = MachineState {
                seconds: 2.0,
                cores: 2,
                io_some: Some(0.0),
                memory_some: Some(0.0),
                ..MachineState::default()
            };
            let mut load = Load::None;
            if busy {
                state.others_cores = if odd.pressures.contains(&Pressure::Cpu) {
                    1.9
                } else {
                    0.0
                };
                state.all_cores_busy_share = if state.others_cores > 1.0 { 0.9 } else { 0.0 };
                load = odd.load;
            }
            records.push(Record::Conditions(ConditionsRecord {
                run_id: id.into(),
                block: BlockConditions {
                    block,
                    first_rep: block * 3,
                    load,
                    state,
                    page: None,
                },
                recorded_at: String::new(),
            }));
        }
        records
    }

    pub(crate) fn busy() -> Condition {
        Condition {
            pressures: vec![Pressure::Cpu],
            ..Condition::default()
        }
    }

    #[test]
    fn conditions_that_disagree_read_depends_with_each_part() {
        let r = run("a", busy(), true);
        let c = &r.comparisons[0];
        assert_eq!(c.verdict, Verdict::Depends, "{c:?}");
        assert_eq!(c.parts.len(), 2);
        assert_eq!(c.parts[0].verdict, Verdict::Slower);
        assert_eq!(c.parts[1].verdict, Verdict::Faster);
        assert!(c.settled());
        assert!(
            r.warnings.iter().any(|w| matches!(w, crate::report::Warning::ConditionChanged { parts } if parts.len() == 2)),
            "{:?}",
            r.warnings
        );
        // Every format's cell names both parts: `export::conditions::tests`.
        // The same run with one condition throughout: one verdict, and a note naming it.
        let quiet = run("q", Condition::default(), false);
        assert_eq!(quiet.comparisons[0].verdict, Verdict::Slower);
        assert!(quiet.comparisons[0].parts.is_empty());
        assert!(quiet
            .notes
            .iter()
            .any(|n| matches!(n, crate::report::Note::MeasuredIn { condition, .. } if condition.is_quiet())));
    }

    #[test]
    fn a_run_with_its_own_load_gives_a_verdict_per_load() {
        let loaded = Condition {
            load: Load::Cpu,
            ..Condition::default()
        };
        let r = run("l", loaded.clone(), true);
        let c = &r.comparisons[0];
        assert_eq!(c.verdict, Verdict::Depends);
        assert!(
            matches!(&c.parts[1].of, crate::stats::blocks::PartOf::Condition { condition } if *condition == loaded)
        );
        // The loads alternated as planned on a quiet machine: the design, not a
        // surprise. A note names each load's blocks; no condition-changed warning.
        assert!(r.warnings.is_empty(), "{:?}", r.warnings);
        let planned = r.notes.iter().find_map(|n| match n {
            crate::report::Note::LoadsPlanned { parts } => Some(parts),
            _ => None,
        });
        let loads: Vec<Load> = planned.unwrap().iter().map(|p| p.condition.load).collect();
        assert_eq!(loads, [Load::None, Load::Cpu]);
        // Busy with other work throughout as well: that other work is warned of, and
        // the loads are still a plan.
        let mut busy_records = records("lb", loaded.clone(), true);
        for r in &mut busy_records {
            if let Record::Conditions(c) = r {
                c.block.state.others_cores = 1.9;
            }
        }
        let busy_run = report_of(busy_records);
        assert!(
            matches!(&busy_run.warnings[..], [crate::report::Warning::OtherWork { condition, .. }] if condition.pressures == [Pressure::Cpu] && condition.load == Load::None),
            "{:?}",
            busy_run.warnings
        );
        assert!(busy_run
            .notes
            .iter()
            .any(|n| matches!(n, crate::report::Note::LoadsPlanned { parts } if parts.len() == 2)));
        // Other work that came and went in a planned-load run is an unplanned change.
        let mut changed = records("lc", loaded, true);
        for r in &mut changed {
            if let Record::Conditions(c) = r {
                c.block.state.others_cores = if c.block.block < 6 { 0.0 } else { 1.9 };
            }
        }
        let changed = report_of(changed);
        assert!(
            matches!(&changed.warnings[..], [crate::report::Warning::ConditionChanged { parts }] if parts.len() == 4),
            "{:?}",
            changed.warnings
        );
    }

    /// An `--auto` run of 12 blocks, Blob 0.7x of Uint8Array throughout (seeded noise on
    /// every sample), quiet but for other work over blocks 4 and 5 (a burst): the
    /// burst's part is too few blocks to judge (not resolved, no interval) and does not
    /// hold the run, which settles on the quiet blocks' slower; the change is warned of.
    #[test]
    fn a_burst_of_other_work_over_two_blocks_does_not_hold_auto() {
        use rand::{rngs::StdRng, Rng, SeedableRng};
        let mut rng = StdRng::seed_from_u64(36);
        let mut records = records("burst", busy(), false);
        for r in &mut records {
            match r {
                Record::Run(r) => {
                    r.run.plan.auto = Some(crate::domain::plan::AutoBudget {
                        max_reps: 1000,
                        max_seconds: 60,
                    });
                }
                Record::Sample(s) => {
                    s.mbps = s
                        .mbps
                        .map(|m| m * (1.0 + 0.04 * (rng.random::<f64>() - 0.5)));
                }
                Record::Conditions(c) => {
                    let burst = (4..6).contains(&c.block.block);
                    c.block.state.others_cores = if burst { 1.9 } else { 0.0 };
                    c.block.state.all_cores_busy_share = if burst { 0.9 } else { 0.0 };
                }
                _ => {}
            }
        }
        let r = report_of(records);
        let c = &r.comparisons[0];
        let few: Vec<_> = c.parts.iter().filter(|p| p.too_few_blocks).collect();
        assert!(
            matches!(&few[..], [p] if p.verdict == Verdict::NotResolved && p.ci_low.is_none()),
            "{c:?}"
        );
        assert!(crate::report::auto_budget::comparisons_to_settle(&r)
            .iter()
            .all(Comparison::settled));
        assert_eq!(c.verdict, Verdict::Slower, "{c:?}");
        assert!(r.warnings.iter().any(
            |w| matches!(w, crate::report::Warning::ConditionChanged { parts } if parts.len() == 2)
        ));
    }

    #[test]
    fn compare_refuses_runs_measured_in_different_conditions_and_the_gate_cannot_tell() {
        use crate::report::gate::Gate;
        use crate::report::machine_check::MachineCheck;
        let quiet = run("q", Condition::default(), false);
        let mut busy_run = run("b", busy(), false);
        // Every block of the second run busy.
        for b in &mut busy_run.run.blocks {
            b.state.others_cores = 1.9;
        }
        let c = crate::report::across::compare_runs(&[quiet.clone(), busy_run], 0.05);
        assert!(
            matches!(c.machine, MachineCheck::ConditionsDiffer { .. }),
            "{:?}",
            c.machine
        );
        assert!(c
            .arms
            .iter()
            .all(|a| a.versus_first[0].as_ref().unwrap().comparison.verdict
                == Verdict::NotComparable));
        assert!(matches!(
            c.gate(10.0),
            Gate::Undecided {
                not_comparable: true,
                ..
            }
        ));
        let again = crate::report::across::compare_runs(&[quiet.clone(), quiet], 0.05);
        assert!(
            matches!(again.machine, MachineCheck::SameCondition { .. }),
            "{:?}",
            again.machine
        );
    }
}
