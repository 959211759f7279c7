//! The two sides of a comparison, typed: an arm of the run itself, or an arm of other
//! stored runs (`unobserved compare`, the browser matrix). Rules join on the arm; the
//! words ("Blob", "Blob in 20261130-…") are made only where a side is shown, and in
//! JSON each arm carries its label beside its fields, derived from the type.

use crate::domain::arm::Arm;
pub use crate::domain::arm::{labelled, Labelled};
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(tag = "of", rename_all = "kebab-case")]
pub enum Side {
    /// An arm of the run the comparison belongs to.
    Arm {
        #[serde(serialize_with = "labelled")]
        #[schemars(with = "Labelled")]
        arm: Arm,
    },
    /// An arm of other stored runs, by id: one, or several read as one side.
    Runs {
        run_ids: Vec<String>,
        #[serde(serialize_with = "labelled")]
        #[schemars(with = "Labelled")]
        arm: Arm,
    },
}

impl Side {
    pub fn arm(&self) -> &Arm {
        match self {
            Side::Arm { arm } | Side::Runs { arm, .. } => arm,
        }
    }

    /// What a reader is shown: the arm's label, and the runs when it is another's.
    pub fn label(&self) -> String {
        match self {
            Side::Arm { arm } => arm.label(),
            Side::Runs { run_ids, arm } => format!("{} in {}", arm.label(), run_ids.join(",")),
        }
    }
}

/// A plain body kind of the run itself (tests and benchmarks).
pub fn of_body(body: crate::domain::arm::BodyKind) -> Side {
    Side::Arm {
        arm: Arm {
            api: None,
            kind: crate::domain::arm::ArmKind::Body { body },
            transport: None,
            condition: None,
            repeat: false,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::arm::{ArmKind, BodyKind};

    #[test]
    fn an_arm_is_written_with_its_label_beside_its_fields() {
        let arm = Arm {
            api: None,
            kind: ArmKind::Body {
                body: BodyKind::Blob,
            },
            transport: Some(crate::domain::arm::Transport::H2),
            condition: None,
            repeat: false,
        };
        let side = Side::Runs {
            run_ids: vec!["a".into(), "b".into()],
            arm: arm.clone(),
        };
        let json = serde_json::to_value(&side).unwrap();
        assert_eq!(json["of"], "runs");
        assert_eq!(json["arm"]["label"], arm.label());
        assert_eq!(json["arm"]["kind"], "body");
        assert_eq!(json["arm"]["transport"], "h2");
        assert_eq!(side.arm(), &arm);
        assert_eq!(
            serde_json::to_value(Side::Arm { arm: arm.clone() }).unwrap()["of"],
            "arm"
        );
    }
}
