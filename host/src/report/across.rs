//! Comparing runs: the same arms in two runs (`unobserved compare`), in several runs a
//! side (`compare A1,A2,A3 B1,B2,B3`), or in several browsers (`unobserved run
//! --browser a,b`). Each arm of a later side is set against the same arm of the first
//! with an interval that is honest about runs (`stats::across_runs`), once the machine
//! check (`machine_check`) has found the machine about as fast in every run.

use super::machine_check::{self, MachineCheck};
use super::RunReport;
use crate::domain::arm::Arm;
use crate::domain::sample::{Observed, SampleStatus};
use crate::stats::across_runs::{self, Across};
use crate::stats::compare::Side;
use crate::stats::Integrity;
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct RunsCompared {
    /// The side everything is compared with, then the others: each side's run ids.
    pub sides: Vec<Vec<String>>,
    /// Was the machine about as fast in every run? When not, no verdict is given.
    pub machine: MachineCheck,
    /// Per arm present on the first side and at least one other.
    pub arms: Vec<ArmAcross>,
    /// Arms only some sides have.
    pub unmatched: Vec<Unmatched>,
    /// What differs between the sides besides the code under test (their first runs).
    pub differences: Vec<Difference>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ArmAcross {
    #[serde(serialize_with = "crate::stats::side::labelled")]
    pub arm: Arm,
    /// Median Mbps per side, its runs' samples together, in `sides` order (None: no
    /// intact sample there).
    pub medians: Vec<Option<f64>>,
    /// Integrity per side; None where the side lacks the arm.
    pub integrity: Vec<Option<Integrity>>,
    /// Each later side against the first; None where either has too few samples.
    pub versus_first: Vec<Option<Across>>,
}

/// An arm only some sides have, and the runs that have it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Unmatched {
    #[serde(serialize_with = "crate::stats::side::labelled")]
    pub arm: Arm,
    pub runs: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Difference {
    pub what: Fact,
    /// The value on each side, in `sides` order.
    pub values: Vec<FactValue>,
}

/// What may differ between the sides besides the code under test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Fact {
    #[serde(rename = "browser")]
    Browser,
    #[serde(rename = "OS")]
    Os,
    #[serde(rename = "CPU")]
    Cpu,
    #[serde(rename = "body size")]
    BodySize,
    #[serde(rename = "reps")]
    Reps,
    #[serde(rename = "observed")]
    Observed,
}

/// One side's value of a `Fact`, as data (`export::compared` words it).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum FactValue {
    Text(String),
    Bytes(u64),
    Count(u32),
    Observed(Observed),
    /// Not recorded (a run stored without its plan, or its CPU).
    Missing,
}

fn speeds(r: &RunReport, arm: &Arm) -> Vec<f64> {
    r.samples
        .iter()
        .filter(|s| s.is_of(arm) && s.status == SampleStatus::Ok)
        .filter_map(|s| s.mbps)
        .collect()
}

/// One run a side, the first the baseline.
pub fn compare_runs(reports: &[RunReport], horizon: f64) -> RunsCompared {
    let sides: Vec<Vec<RunReport>> = reports.iter().map(|r| vec![r.clone()]).collect();
    compare_sides(&sides, horizon)
}

/// The runs took turns rep by rep: one run a side, all of one interleaved group.
fn interleaved(sides: &[Vec<RunReport>]) -> bool {
    let group = |s: &Vec<RunReport>| match s.as_slice() {
        [one] => one.run.interleaved.as_ref().map(|i| i.group.clone()),
        _ => None,
    };
    let first = group(&sides[0]);
    first.is_some() && sides.iter().all(|s| group(s) == first)
}

/// Each side one or more runs of one build, the first side the baseline.
pub fn compare_sides(sides: &[Vec<RunReport>], horizon: f64) -> RunsCompared {
    let interleaved = interleaved(sides);
    let metas: Vec<&super::RunMeta> = sides.iter().flatten().map(|r| &r.run).collect();
    let machine = machine_check::check(&metas, interleaved);
    let pooled: Vec<RunReport> = sides
        .iter()
        // Sides are indexed by position below: an empty one must not shift the rest.
        .map(|s| super::pooled::pool(s).expect("every side names at least one run"))
        .collect();
    let ctx = Sides {
        sides,
        pooled: &pooled,
        machine: &machine,
        horizon,
        interleaved,
    };
    let mut arms = Vec::new();
    let mut unmatched = Vec::new();
    for typed in all_arms(&pooled) {
        let having: Vec<usize> = (0..sides.len())
            .filter(|&i| has_arm(&pooled[i], &typed))
            .collect();
        if having.len() < sides.len() {
            unmatched.push(Unmatched {
                arm: typed.clone(),
                runs: having.iter().flat_map(|&i| ids(&sides[i])).collect(),
            });
        }
        if having.len() >= 2 && having[0] == 0 {
            arms.push(ctx.arm_across(typed));
        }
    }
    RunsCompared {
        sides: sides.iter().map(|s| ids(s)).collect(),
        machine,
        arms,
        unmatched,
        differences: differences(&pooled),
    }
}

fn ids(side: &[RunReport]) -> Vec<String> {
    side.iter().map(|r| r.run.run_id.clone()).collect()
}

fn has_arm(r: &RunReport, arm: &Arm) -> bool {
    r.summary.iter().any(|a| a.arm == *arm)
}

/// Every arm of any side, in first-seen order; arms are matched across runs on the typed arm.
fn all_arms(pooled: &[RunReport]) -> Vec<Arm> {
    let mut all: Vec<Arm> = Vec::new();
    for a in pooled.iter().flat_map(|r| &r.summary) {
        if !all.contains(&a.arm) {
            all.push(a.arm.clone());
        }
    }
    all
}

/// What comparing one arm across the sides needs.
struct Sides<'a> {
    sides: &'a [Vec<RunReport>],
    pooled: &'a [RunReport],
    machine: &'a MachineCheck,
    horizon: f64,
    interleaved: bool,
}

impl Sides<'_> {
    /// One arm the first side and at least one other have.
    fn arm_across(&self, typed: Arm) -> ArmAcross {
        let summary_of = |r: &RunReport| r.summary.iter().find(|a| a.arm == typed).cloned();
        ArmAcross {
            medians: self
                .pooled
                .iter()
                .map(|r| summary_of(r).and_then(|a| a.median_mbps))
                .collect(),
            integrity: self
                .pooled
                .iter()
                .map(|r| summary_of(r).map(|a| a.integrity))
                .collect(),
            versus_first: (1..self.sides.len())
                .map(|i| self.versus(i, &typed))
                .collect(),
            arm: typed,
        }
    }

    /// Side `i` against the first, for one arm.
    fn versus(&self, i: usize, typed: &Arm) -> Option<Across> {
        let side = |i: usize| Side::Runs {
            run_ids: ids(&self.sides[i]),
            arm: typed.clone(),
        };
        let per_run = |i: usize| -> Vec<Vec<f64>> {
            self.sides[i].iter().map(|r| speeds(r, typed)).collect()
        };
        let c = across_runs::compare_runs(
            side(i),
            &per_run(i),
            side(0),
            &per_run(0),
            self.horizon,
            self.interleaved,
        )?;
        Some(if self.machine.is_comparable() {
            c
        } else {
            across_runs::not_comparable(c)
        })
    }
}

fn differences(reports: &[RunReport]) -> Vec<Difference> {
    type Get = fn(&RunReport) -> FactValue;
    let facts: [(Fact, Get); 6] = [
        (Fact::Browser, |r| {
            FactValue::Text(format!(
                "{} {}",
                r.run.env.browser, r.run.env.browser_version
            ))
        }),
        (Fact::Os, |r| FactValue::Text(r.run.env.os.clone())),
        (Fact::Cpu, |r| {
            r.run
                .cpu
                .clone()
                .map_or(FactValue::Missing, FactValue::Text)
        }),
        (Fact::BodySize, |r| {
            r.run
                .plan
                .as_ref()
                .map_or(FactValue::Missing, |p| FactValue::Bytes(p.size_bytes))
        }),
        (Fact::Reps, |r| {
            r.run
                .plan
                .as_ref()
                .map_or(FactValue::Missing, |p| FactValue::Count(p.reps))
        }),
        (Fact::Observed, |r| FactValue::Observed(r.run.observed)),
    ];
    facts
        .iter()
        .filter_map(|(what, get)| {
            let values: Vec<FactValue> = reports.iter().map(get).collect();
            values
                .iter()
                .any(|v| v != &values[0])
                .then_some(Difference {
                    what: *what,
                    values,
                })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::arm::BodyKind;
    use crate::report::tests_support::report_of;
    use crate::stats::compare::Verdict;
    use crate::store::tests_support::{run_record, sample};
    use crate::store::Record;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};
    use BodyKind::{Blob, Uint8Array};

    fn body(body: BodyKind) -> Arm {
        Arm {
            api: None,
            kind: crate::domain::arm::ArmKind::Body { body },
            transport: None,
            condition: None,
            repeat: false,
        }
    }

    /// A stored run of three arms, `reps` each, lognormal around `means` (8% spread).
    fn run(id: &str, means: [f64; 3], reps: u32, rng: &mut StdRng) -> RunReport {
        let mut records = vec![run_record(id)];
        for rep in 0..reps {
            for (arm, mean) in ["Uint8Array", "ArrayBuffer", "Blob"].iter().zip(means) {
                let (u, v): (f64, f64) = (rng.random::<f64>().max(1e-12), rng.random());
                let noise = (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos();
                records.push(Record::Sample(sample(
                    id,
                    arm,
                    rep,
                    mean * (0.08 * noise).exp(),
                )));
            }
        }
        report_of(records)
    }

    #[test]
    fn two_runs_of_the_same_browser_and_plan_are_called_the_same_or_unresolved() {
        // 2000 seeded A/A pairs of runs, three arms each: a difference is called for an
        // arm at most 5% of the time (asserting 6% for the simulation's own error).
        let mut rng = StdRng::seed_from_u64(17);
        let mut called = 0;
        let trials = 2000;
        for _ in 0..trials {
            let a = run("a", [2400.0, 2500.0, 3300.0], 6, &mut rng);
            let b = run("b", [2400.0, 2500.0, 3300.0], 6, &mut rng);
            let c = compare_runs(&[a, b], 0.05);
            assert_eq!(c.arms.len(), 3);
            called += c
                .arms
                .iter()
                .filter(|arm| {
                    arm.versus_first[0]
                        .as_ref()
                        .unwrap()
                        .comparison
                        .verdict
                        .is_difference()
                })
                .count();
        }
        let rate = called as f64 / (3 * trials) as f64;
        assert!(
            rate <= 0.06,
            "{:.1}% of A/A arms called different",
            rate * 100.0
        );
    }

    #[test]
    fn a_real_regression_is_caught_and_the_gate_trips_only_beyond_its_bound() {
        use crate::report::gate::Gate;
        let mut rng = StdRng::seed_from_u64(3);
        let a = run("a", [2400.0, 2500.0, 3300.0], 6, &mut rng);
        let b = run("b", [1680.0, 2500.0, 3300.0], 6, &mut rng); // Uint8Array 30% slower
        let c = compare_runs(&[a.clone(), b.clone()], 0.05);
        let u8 = c.arms.iter().find(|x| x.arm == body(Uint8Array)).unwrap();
        assert_eq!(
            u8.versus_first[0].as_ref().unwrap().comparison.verdict,
            Verdict::Slower
        );
        assert_eq!(c.gate(10.0), Gate::Slower(vec![body(Uint8Array)]));
        assert_eq!(c.gate(50.0), Gate::Pass, "30% slower is not 50% slower");
        // The other way round nothing is slower; at 40% every interval clears the bound.
        let back = compare_runs(&[b, a], 0.05);
        assert_eq!(back.gate(40.0), Gate::Pass);
        // At 1% the unchanged arms' intervals (one run a side, widened for drift)
        // reach past the bound: the gate cannot tell, and says so apart.
        assert!(matches!(
            back.gate(1.0),
            Gate::Undecided {
                not_comparable: false,
                ..
            }
        ));
    }

    #[test]
    fn runs_on_a_machine_that_ran_slower_get_no_verdict_and_the_gate_cannot_tell() {
        use crate::report::gate::Gate;
        let mut rng = StdRng::seed_from_u64(4);
        let mut a = run("a", [2400.0, 2500.0, 3300.0], 6, &mut rng);
        let mut b = run("b", [1680.0, 2500.0, 3300.0], 6, &mut rng);
        let calibrated = |start, end| crate::domain::machine::Machine {
            start_cpu_ms: Some(start),
            end_cpu_ms: Some(end),
        };
        a.run.machine = calibrated(20.0, 20.4);
        b.run.machine = calibrated(20.1, 30.0); // loaded by the end of run b
        let c = compare_runs(&[a.clone(), b.clone()], 0.05);
        assert!(matches!(&c.machine, MachineCheck::Differs { slower, .. } if slower == "b"));
        for arm in &c.arms {
            assert_eq!(
                arm.versus_first[0].as_ref().unwrap().comparison.verdict,
                Verdict::NotComparable
            );
        }
        assert_eq!(
            c.gate(10.0),
            Gate::Undecided {
                arms: c.arms.iter().map(|x| x.arm.clone()).collect(),
                not_comparable: true
            }
        );
        b.run.machine = calibrated(20.1, 21.0);
        let quiet = compare_runs(&[a, b], 0.05);
        assert!(matches!(quiet.machine, MachineCheck::Same { .. }));
        assert_eq!(quiet.gate(10.0), Gate::Slower(vec![body(Uint8Array)]));
    }

    #[test]
    fn arms_in_one_run_only_and_environment_differences_are_listed() {
        let mut rng = StdRng::seed_from_u64(5);
        let a = run("a", [1.0, 2.0, 3.0], 4, &mut rng);
        let mut b = run("b", [1.0, 2.0, 3.0], 4, &mut rng);
        b.summary.retain(|s| s.arm != body(Blob));
        b.samples.retain(|s| !s.is_of(&body(Blob)));
        b.run.env.browser_version = "157".into();
        let c = compare_runs(&[a, b], 0.05);
        assert_eq!(
            c.unmatched,
            vec![Unmatched {
                arm: body(Blob),
                runs: vec!["a".to_owned()]
            }]
        );
        assert_eq!(c.differences.len(), 1);
        assert_eq!(c.differences[0].what, Fact::Browser);
        assert_eq!(c.arms.len(), 2);
    }
}
