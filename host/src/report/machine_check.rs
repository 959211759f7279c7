//! Before runs are set side by side: was the machine about as fast in each? Every run
//! times a fixed CPU task at its start and end (`machine.rs`); the slower of the two is
//! the run's figure. When the slowest run's figure is beyond the horizon of the fastest
//! run's, a parallel build or some other load ran during one of them, and the runs'
//! ratios would describe the machine, not the browser: `compare` gives no verdict.

use super::RunMeta;
use serde::Serialize;

/// How much slower the machine may have been in one run than in another before the runs
/// are not comparable. Quiet runs on 2 cores differ by up to 8% (BENCHMARKS.md, "Across
/// runs"); one busy process per core makes the task 1.9–2.6x slower.
pub const MACHINE_HORIZON: f64 = 0.15;

/// Whether the machine was about as fast in every run compared.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum MachineCheck {
    /// Every run's figure within the horizon of every other's; `spread` is the slowest
    /// over the fastest, less one.
    Same { spread: f64, horizon: f64 },
    /// The runs took turns rep by rep, so whatever the machine did hit them alike.
    Interleaved,
    /// These runs have no calibration (stored before runs recorded one): not checked.
    Unchecked { runs: Vec<String> },
    /// Every run was measured in the one same condition (issue 36: what the host saw
    /// of other work while each run measured, and its own load).
    SameCondition {
        condition: crate::domain::conditions::Condition,
    },
    /// The runs were measured in different conditions (or a run in several): no verdict
    /// across them. Each run with its conditions.
    ConditionsDiffer {
        runs: Vec<(String, Vec<crate::domain::conditions::Condition>)>,
    },
    /// The machine ran `slower_by` (a fraction) slower during run `slower` than during
    /// run `than`.
    Differs {
        slower: String,
        than: String,
        slower_by: f64,
        horizon: f64,
    },
}

impl MachineCheck {
    pub fn is_comparable(&self) -> bool {
        !matches!(
            self,
            MachineCheck::Differs { .. } | MachineCheck::ConditionsDiffer { .. }
        )
    }
}

/// The conditions check, for runs that recorded their blocks' conditions: comparable
/// only when every run was measured in one condition, the same. None when a run has no
/// conditions (stored before them): the CPU task's check then.
fn by_conditions(runs: &[&RunMeta]) -> Option<MachineCheck> {
    let each: Vec<(String, Vec<crate::domain::conditions::Condition>)> = runs
        .iter()
        .map(|r| {
            let conditions = super::conditions::parts(r)
                .into_iter()
                .map(|p| p.0)
                .collect();
            (r.run_id.clone(), conditions)
        })
        .collect();
    if each.iter().any(|(_, c)| c.is_empty()) {
        return None;
    }
    let first = &each[0].1;
    Some(
        if first.len() == 1 && each.iter().all(|(_, c)| c == first) {
            MachineCheck::SameCondition {
                condition: first[0].clone(),
            }
        } else {
            MachineCheck::ConditionsDiffer { runs: each }
        },
    )
}

/// The check over every run compared, whichever side it is on.
pub fn check(runs: &[&RunMeta], interleaved: bool) -> MachineCheck {
    if interleaved {
        return MachineCheck::Interleaved;
    }
    if let Some(check) = by_conditions(runs) {
        return check;
    }
    let unchecked: Vec<String> = runs
        .iter()
        .filter(|r| r.machine.slowest_ms().is_none())
        .map(|r| r.run_id.clone())
        .collect();
    if !unchecked.is_empty() {
        return MachineCheck::Unchecked { runs: unchecked };
    }
    let figure = |r: &&&RunMeta| r.machine.slowest_ms().unwrap_or(0.0);
    let (Some(slowest), Some(fastest)) = (
        runs.iter().max_by(|a, b| figure(a).total_cmp(&figure(b))),
        runs.iter().min_by(|a, b| figure(a).total_cmp(&figure(b))),
    ) else {
        return MachineCheck::Unchecked { runs: vec![] };
    };
    let spread = figure(&slowest) / figure(&fastest) - 1.0;
    if spread > MACHINE_HORIZON {
        MachineCheck::Differs {
            slower: slowest.run_id.clone(),
            than: fastest.run_id.clone(),
            slower_by: spread,
            horizon: MACHINE_HORIZON,
        }
    } else {
        MachineCheck::Same {
            spread,
            horizon: MACHINE_HORIZON,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::machine::Machine;
    use crate::report::tests_support::report_of;
    use crate::store::tests_support::run_record;

    fn meta(id: &str, start: Option<f64>, end: Option<f64>) -> RunMeta {
        let mut m = report_of(vec![run_record(id)]).run;
        m.machine = Machine {
            start_cpu_ms: start,
            end_cpu_ms: end,
        };
        m
    }

    #[test]
    fn a_run_the_machine_was_slower_in_is_named() {
        let (a, b) = (
            meta("a", Some(20.0), Some(20.5)),
            meta("b", Some(20.2), Some(31.0)),
        );
        match check(&[&a, &b], false) {
            MachineCheck::Differs {
                slower,
                than,
                slower_by,
                ..
            } => {
                assert_eq!((slower.as_str(), than.as_str()), ("b", "a"));
                assert!((slower_by - 31.0 / 20.5 + 1.0).abs() < 1e-9);
            }
            other => panic!("{other:?}"),
        }
        let c = meta("c", Some(21.0), Some(22.0));
        assert!(matches!(check(&[&a, &c], false), MachineCheck::Same { .. }));
        assert!(check(&[&a, &b], true).is_comparable(), "interleaved");
        let old = meta("old", None, None);
        assert_eq!(
            check(&[&a, &old], false),
            MachineCheck::Unchecked {
                runs: vec!["old".into()]
            }
        );
    }
}
