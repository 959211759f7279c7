//! What an arm is, typed: the body kind or workload it uploads, and the condition it ran
//! under. Every rule that depends on an arm (its baseline, whether it is a workload, the
//! control's halves, the negative control) matches on this, never on its label, so a
//! new kind of arm (a transport, say) is a compile error everywhere it matters.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// What the arm uploads.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum ArmKind {
    /// One fetch() body of this kind: "Uint8Array", "ArrayBuffer", "Blob", "ReadableStream".
    Body { body: String },
    /// A file encrypted in chunks with AES-GCM, each chunk PUT on its own.
    Encrypted {
        chunk_bytes: u64,
        schedule: Schedule,
    },
    /// A streamed GET, the other direction.
    Download,
    /// This many uploads at once.
    Parallel { streams: u64 },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Schedule {
    /// Encrypt a chunk, PUT it, then the next.
    Serial,
    /// Encrypt the next chunk while the previous one uploads.
    Pipelined,
}

/// The positive control's two halves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Condition {
    Attached,
    Detached,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Arm {
    #[serde(flatten)]
    pub kind: ArmKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<Condition>,
    /// The negative control: the baseline body uploaded again in the same rep.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub repeat: bool,
}

/// Every body kind is compared with this one.
pub const BASELINE_BODY: &str = "Uint8Array";

impl Arm {
    /// The arm of a sample stored before arms were recorded, from the fields the page
    /// has always sent (`schedule`/`chunk_bytes`, `direction`, `streams`, `condition`).
    pub fn from_legacy(body: &str, extra: &Map<String, Value>, negative_control: bool) -> Arm {
        let u64_of = |k: &str| extra.get(k).and_then(Value::as_u64);
        let kind = if let Some(schedule) = extra.get("schedule").and_then(Value::as_str) {
            ArmKind::Encrypted {
                chunk_bytes: u64_of("chunk_bytes").unwrap_or(0),
                schedule: if schedule == "pipelined" {
                    Schedule::Pipelined
                } else {
                    Schedule::Serial
                },
            }
        } else if extra.contains_key("direction") {
            ArmKind::Download
        } else if let Some(streams) = u64_of("streams") {
            ArmKind::Parallel { streams }
        } else {
            ArmKind::Body { body: body.into() }
        };
        let condition = match extra.get("condition").and_then(Value::as_str) {
            Some("attached") => Some(Condition::Attached),
            Some("detached") => Some(Condition::Detached),
            _ => None,
        };
        Arm {
            kind,
            condition,
            repeat: negative_control,
        }
    }

    /// A workload arm (encrypted, download, parallel) rather than a plain body kind.
    pub fn is_workload(&self) -> bool {
        !matches!(self.kind, ArmKind::Body { .. })
    }

    /// The arm this one is compared with, if any: a body kind with Uint8Array, the
    /// negative control with its own body, a pipelined schedule with the serial one of the
    /// same chunk size, parallel xN with x1. A control run's halves have none here:
    /// they are compared attached against detached, in the control section.
    pub fn baseline(&self) -> Option<Arm> {
        let with = |kind: ArmKind| Arm {
            kind,
            condition: None,
            repeat: false,
        };
        if self.condition.is_some() {
            return None;
        }
        if self.repeat {
            return Some(with(self.kind.clone()));
        }
        match &self.kind {
            ArmKind::Body { body } if body != BASELINE_BODY => Some(with(ArmKind::Body {
                body: BASELINE_BODY.into(),
            })),
            ArmKind::Encrypted {
                chunk_bytes,
                schedule: Schedule::Pipelined,
            } => Some(with(ArmKind::Encrypted {
                chunk_bytes: *chunk_bytes,
                schedule: Schedule::Serial,
            })),
            ArmKind::Parallel { streams } if *streams != 1 => {
                Some(with(ArmKind::Parallel { streams: 1 }))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn legacy(body: &str, extra: Value) -> Arm {
        Arm::from_legacy(body, extra.as_object().unwrap(), false)
    }

    #[test]
    fn stored_samples_without_an_arm_get_the_one_their_fields_describe() {
        assert_eq!(
            legacy("Blob", json!({"condition": "attached"})),
            Arm {
                kind: ArmKind::Body {
                    body: "Blob".into()
                },
                condition: Some(Condition::Attached),
                repeat: false
            }
        );
        assert_eq!(
            legacy(
                "AES-GCM 16 MiB pipelined",
                json!({"schedule": "pipelined", "chunk_bytes": 16777216})
            )
            .kind,
            ArmKind::Encrypted {
                chunk_bytes: 16777216,
                schedule: Schedule::Pipelined
            }
        );
        assert_eq!(
            legacy("download", json!({"direction": "download"})).kind,
            ArmKind::Download
        );
        assert_eq!(
            legacy("parallel x4", json!({"streams": 4})).kind,
            ArmKind::Parallel { streams: 4 }
        );
    }

    #[test]
    fn baselines_by_kind() {
        let body = |b: &str| Arm {
            kind: ArmKind::Body { body: b.into() },
            condition: None,
            repeat: false,
        };
        assert_eq!(body("Blob").baseline(), Some(body("Uint8Array")));
        assert_eq!(body("Uint8Array").baseline(), None);
        let again = Arm {
            repeat: true,
            ..body("Uint8Array")
        };
        assert_eq!(
            again.baseline(),
            Some(body("Uint8Array")),
            "the negative control is its own body"
        );
        let enc = |schedule| Arm {
            kind: ArmKind::Encrypted {
                chunk_bytes: 8,
                schedule,
            },
            condition: None,
            repeat: false,
        };
        assert_eq!(
            enc(Schedule::Pipelined).baseline(),
            Some(enc(Schedule::Serial))
        );
        assert_eq!(enc(Schedule::Serial).baseline(), None);
        let par = |streams| Arm {
            kind: ArmKind::Parallel { streams },
            condition: None,
            repeat: false,
        };
        assert_eq!(par(8).baseline(), Some(par(1)));
        assert_eq!(par(1).baseline(), None);
        let attached = Arm {
            condition: Some(Condition::Attached),
            ..body("Blob")
        };
        assert_eq!(
            attached.baseline(),
            None,
            "the control section compares the halves"
        );
    }

    #[test]
    fn an_arm_serialises_flat_with_its_kind() {
        let arm = Arm {
            kind: ArmKind::Parallel { streams: 2 },
            condition: Some(Condition::Detached),
            repeat: false,
        };
        let v = serde_json::to_value(&arm).unwrap();
        assert_eq!(
            v,
            json!({"kind": "parallel", "streams": 2, "condition": "detached"})
        );
        assert_eq!(serde_json::from_value::<Arm>(v).unwrap(), arm);
    }
}
