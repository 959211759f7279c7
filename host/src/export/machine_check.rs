//! The machine check's words (`report::machine_check`): was the machine about as fast
//! in every run compared, and if not, why no verdict is given.

use crate::report::machine_check::MachineCheck;

impl std::fmt::Display for MachineCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let pct = |x: f64| format!("{:.0}%", x * 100.0);
        match self {
            MachineCheck::Same { spread, horizon } => write!(
                f,
                "machine check: the fixed CPU task took within {} across the runs (horizon ±{})",
                pct(*spread),
                pct(*horizon)
            ),
            MachineCheck::Interleaved => {
                write!(f, "machine check: the runs took turns rep by rep")
            }
            MachineCheck::SameCondition { condition } => write!(
                f,
                "machine check: every run was measured {}",
                super::conditions::condition_phrase(condition)
            ),
            MachineCheck::ConditionsDiffer { runs } => {
                let each: Vec<String> = runs
                    .iter()
                    .map(|(id, cs)| {
                        let phrases: Vec<String> =
                            cs.iter().map(super::conditions::condition_phrase).collect();
                        format!("{id} {}", phrases.join(" then "))
                    })
                    .collect();
                write!(
                    f,
                    "not comparable: the runs were measured in different conditions ({}); a difference between them could be the machine's, so none is called. Run them again in one condition, or interleave them in one run",
                    each.join("; ")
                )
            }
            MachineCheck::Unchecked { runs } => write!(
                f,
                "machine check: none; {} recorded no machine calibration (stored by an older host)",
                runs.join(", ")
            ),
            MachineCheck::Differs {
                slower,
                than,
                slower_by,
                horizon,
            } => write!(
                f,
                "not comparable: this machine ran {} slower during run {slower} than during run {than} (the horizon is {}); run both again on a quiet machine, or interleave them in one run",
                pct(*slower_by),
                pct(*horizon)
            ),
        }
    }
}
