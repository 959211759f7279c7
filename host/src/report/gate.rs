//! `compare --fail-if-slower PCT`: a regression gate that trips only on a settled
//! "slower" beyond its bound, and says so apart when it cannot tell, so CI can tell "the
//! build got slower" from "this comparison could not decide" (exit codes 6 and 7).

use super::across::RunsCompared;
use crate::domain::arm::Arm;
use crate::stats::compare::Verdict;

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
                Some(c) => {
                    let c = &c.comparison;
                    match (c.verdict, c.ci_low, c.ci_high) {
                        (Verdict::Slower, _, Some(hi)) if hi < bound => Ok(true),
                        (Verdict::NotComparable | Verdict::Depends, ..) => Err(()),
                        (_, Some(lo), _) if lo >= bound => Ok(false),
                        _ => Err(()),
                    }
                }
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
