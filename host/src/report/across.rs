//! Comparing runs: the same arms in two runs (`unobserved compare`), or in several
//! browsers (`unobserved run --browser a,b`). Each arm of a later run is set against the
//! same arm of the first with the rank-based interval and the four verdicts, so "did
//! this get slower?" gets the same honest answer as a comparison within a run.

use super::RunReport;
use crate::arm::Arm;
use crate::model::SampleStatus;
use crate::stats::compare::{self, Comparison, Side};
use crate::stats::Integrity;
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct RunsCompared {
    /// The run everything is compared with, then the others, by id.
    pub runs: Vec<String>,
    /// Per arm present in the first run and at least one other.
    pub arms: Vec<ArmAcross>,
    /// Arms only some runs have.
    pub unmatched: Vec<Unmatched>,
    /// What differs between the runs besides the code under test.
    pub differences: Vec<Difference>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ArmAcross {
    #[serde(serialize_with = "crate::stats::side::labelled")]
    pub arm: Arm,
    /// Median Mbps per run, in `runs` order (None: no intact sample there).
    pub medians: Vec<Option<f64>>,
    /// Integrity per run; None where the run lacks the arm.
    pub integrity: Vec<Option<Integrity>>,
    /// Each later run against the first; None where either has too few samples.
    pub versus_first: Vec<Option<Comparison>>,
}

/// An arm only some runs have, and the runs that have it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Unmatched {
    #[serde(serialize_with = "crate::stats::side::labelled")]
    pub arm: Arm,
    pub runs: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Difference {
    pub what: String,
    /// The value in each run, in `runs` order.
    pub values: Vec<String>,
}

fn speeds(r: &RunReport, arm: &Arm) -> Vec<f64> {
    r.samples
        .iter()
        .filter(|s| s.is_of(arm) && s.status == SampleStatus::Ok)
        .filter_map(|s| s.mbps)
        .collect()
}

pub fn compare_runs(reports: &[RunReport], horizon: f64) -> RunsCompared {
    let first = &reports[0];
    let ids: Vec<String> = reports.iter().map(|r| r.run.run_id.clone()).collect();
    let mut arms = Vec::new();
    let mut unmatched = Vec::new();
    // Arms are matched across runs on the typed arm.
    let mut all_arms: Vec<Arm> = Vec::new();
    for r in reports {
        for a in &r.summary {
            if !all_arms.contains(&a.arm) {
                all_arms.push(a.arm.clone());
            }
        }
    }
    for typed in all_arms {
        let has: Vec<&RunReport> = reports
            .iter()
            .filter(|r| r.summary.iter().any(|a| a.arm == typed))
            .collect();
        if has.len() < reports.len() {
            unmatched.push(Unmatched {
                arm: typed.clone(),
                runs: has.iter().map(|r| r.run.run_id.clone()).collect(),
            });
        }
        if has.len() < 2 || !has.iter().any(|r| r.run.run_id == first.run.run_id) {
            continue;
        }
        let summary_of = |r: &RunReport| r.summary.iter().find(|a| a.arm == typed).cloned();
        let base = speeds(first, &typed);
        let side = |r: &RunReport| Side::Runs {
            run_ids: vec![r.run.run_id.clone()],
            arm: typed.clone(),
        };
        arms.push(ArmAcross {
            medians: reports
                .iter()
                .map(|r| summary_of(r).and_then(|a| a.median_mbps))
                .collect(),
            integrity: reports
                .iter()
                .map(|r| summary_of(r).map(|a| a.integrity))
                .collect(),
            versus_first: reports[1..]
                .iter()
                .map(|r| compare::compare(side(r), &speeds(r, &typed), side(first), &base, horizon))
                .collect(),
            arm: typed,
        });
    }
    RunsCompared {
        runs: ids,
        arms,
        unmatched,
        differences: differences(reports),
    }
}

fn differences(reports: &[RunReport]) -> Vec<Difference> {
    type Get = fn(&RunReport) -> String;
    let facts: [(&str, Get); 6] = [
        ("browser", |r| {
            format!("{} {}", r.run.env.browser, r.run.env.browser_version)
        }),
        ("OS", |r| r.run.env.os.clone()),
        ("CPU", |r| r.run.cpu.clone().unwrap_or_default()),
        ("body size", |r| {
            r.run
                .plan
                .as_ref()
                .map_or(String::new(), |p| crate::units::human_bytes(p.size_bytes))
        }),
        ("reps", |r| {
            r.run
                .plan
                .as_ref()
                .map_or(String::new(), |p| p.reps.to_string())
        }),
        ("observed", |r| r.run.observed.to_string()),
    ];
    facts
        .iter()
        .filter_map(|(what, get)| {
            let values: Vec<String> = reports.iter().map(get).collect();
            values.iter().any(|v| v != &values[0]).then(|| Difference {
                what: (*what).to_owned(),
                values,
            })
        })
        .collect()
}

impl RunsCompared {
    /// Arms whose whole interval lies more than `pct`% slower than the first run.
    pub fn slower_than(&self, pct: f64) -> Vec<Arm> {
        let bound = 1.0 - pct / 100.0;
        self.arms
            .iter()
            .filter(|a| {
                a.versus_first
                    .iter()
                    .flatten()
                    .any(|c| c.ci_high.is_some_and(|hi| hi < bound))
            })
            .map(|a| a.arm.clone())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arm::BodyKind;
    use crate::store::tests_support::{report_of, run_record, sample};
    use crate::store::Record;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};
    use BodyKind::{Blob, Uint8Array};

    fn body(body: BodyKind) -> Arm {
        Arm {
            kind: crate::arm::ArmKind::Body { body },
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
        let mut rng = StdRng::seed_from_u64(3);
        let a = run("a", [2400.0, 2500.0, 3300.0], 6, &mut rng);
        let b = run("b", [1680.0, 2500.0, 3300.0], 6, &mut rng); // Uint8Array 30% slower
        let c = compare_runs(&[a.clone(), b.clone()], 0.05);
        let u8 = c.arms.iter().find(|x| x.arm == body(Uint8Array)).unwrap();
        assert_eq!(
            u8.versus_first[0].as_ref().unwrap().verdict,
            crate::stats::compare::Verdict::Slower
        );
        assert_eq!(c.slower_than(10.0), vec![body(Uint8Array)]);
        assert!(
            c.slower_than(50.0).is_empty(),
            "30% slower is not 50% slower"
        );
        // The other way round nothing is slower.
        assert!(compare_runs(&[b, a], 0.05).slower_than(10.0).is_empty());
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
        assert_eq!(c.differences[0].what, "browser");
        assert_eq!(c.arms.len(), 2);
    }
}
