//! What `--fail-if-slower` says on stderr (`report::gate`): the arms slower beyond the
//! bound, or those it cannot clear, and why the runs were not comparable.

use crate::report::gate::Gate;

/// The gate's lines, one per finding; none when it passes. `machine` is the machine
/// check's line, said when the runs were not comparable.
pub fn said(gate: &Gate, pct: f64, baseline: &str, machine: &str) -> Vec<String> {
    let names = |arms: &[crate::domain::arm::Arm]| {
        arms.iter()
            .map(|a| a.label())
            .collect::<Vec<_>>()
            .join(", ")
    };
    match gate {
        Gate::Pass => Vec::new(),
        Gate::Slower(arms) => vec![format!(
            "--fail-if-slower {pct}: slower than {baseline} beyond {pct}%: {}",
            names(arms)
        )],
        Gate::Undecided {
            arms,
            not_comparable,
        } => {
            let mut lines = Vec::new();
            if *not_comparable {
                lines.push(format!("--fail-if-slower {pct}: {machine}"));
            }
            if !arms.is_empty() {
                lines.push(format!(
                    "--fail-if-slower {pct}: cannot tell whether these are {pct}% slower than {baseline}: {}",
                    names(arms)
                ));
            }
            lines
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::arm::Arm;

    /// The gate's words (golden), as `compare` and `run --fail-if-slower` print them.
    #[test]
    fn the_gate_says_which_arms_are_slower_or_cannot_be_cleared() {
        let blob = Arm {
            kind: crate::domain::arm::ArmKind::Body {
                body: crate::domain::arm::BodyKind::Blob,
            },
            transport: None,
            condition: None,
            api: None,
            repeat: false,
        };
        assert!(said(&Gate::Pass, 10.0, "A", "").is_empty());
        assert_eq!(
            said(&Gate::Slower(vec![blob.clone()]), 10.0, "A", ""),
            ["--fail-if-slower 10: slower than A beyond 10%: Blob"]
        );
        let undecided = Gate::Undecided {
            arms: vec![blob],
            not_comparable: true,
        };
        assert_eq!(
            said(&undecided, 10.0, "A", "not comparable: the machine"),
            [
                "--fail-if-slower 10: not comparable: the machine",
                "--fail-if-slower 10: cannot tell whether these are 10% slower than A: Blob"
            ]
        );
    }
}
