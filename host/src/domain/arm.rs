//! What an arm is, typed: the body kind or workload it uploads, and the condition it ran
//! under. Every rule that depends on an arm (its baseline, whether it is a workload, the
//! control's halves, the negative control) matches on this, never on its label, so a
//! new kind of arm (a transport, say) is a compile error everywhere it matters.

pub use crate::domain::workload::{Api, ModuleName};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The body kinds `fetch()` is given. The names are part of the data format (the store,
/// the reports, the extension's plans): serde, strum and clap all spell them as the
/// variants are named.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    clap::ValueEnum,
    strum::EnumIter,
    strum::EnumString,
    strum::IntoStaticStr,
    strum::Display,
    schemars::JsonSchema,
)]
#[value(rename_all = "verbatim")]
pub enum BodyKind {
    Uint8Array,
    ArrayBuffer,
    Blob,
    ReadableStream,
}

impl BodyKind {
    /// Whether `api` uploads this kind as its bytes: XHR's send() would stringify a
    /// ReadableStream, so no XHR arm is made for one.
    pub fn goes_through(self, api: Api) -> bool {
        api == Api::Fetch || self != BodyKind::ReadableStream
    }
}

/// What the arm uploads.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum ArmKind {
    /// One fetch() body of this kind.
    Body { body: BodyKind },
    /// A file encrypted in chunks with AES-GCM, each chunk PUT on its own.
    Encrypted {
        chunk_bytes: u64,
        schedule: Schedule,
    },
    /// A streamed GET, the other direction.
    Download,
    /// This many uploads at once.
    Parallel { streams: u64 },
    /// The user's own upload code (`--script NAME=PATH`): the module `name`, whose
    /// source had this SHA-256 when the sink served it. Two versions of one module are
    /// two arms, never one.
    Module { name: ModuleName, sha256: String },
    /// A sample that came without an arm and whose fields describe none (its body names
    /// no body kind): kept under the label it came with, compared with nothing. This
    /// project's pages never send one; it keeps a stranger's sample from being lost.
    Unknown { label: String },
}

#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    strum::IntoStaticStr,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum Schedule {
    /// Encrypt a chunk, PUT it, then the next.
    Serial,
    /// Encrypt the next chunk while the previous one uploads.
    Pipelined,
}

/// How the upload travels to the sink. The bench page is always served over plain
/// HTTP/1.1; a TLS arm uploads cross-origin to a TLS listener of the same sink.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Default,
    Serialize,
    Deserialize,
    clap::ValueEnum,
    strum::EnumIter,
    strum::IntoStaticStr,
    strum::Display,
    schemars::JsonSchema,
)]
// One casing rule for all three: "h1", "h1-tls", "h2" (clap's default is kebab-case).
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum Transport {
    /// HTTP/1.1 in the clear: what every run measured before transports existed.
    #[default]
    H1,
    /// HTTP/1.1 over TLS: the TLS half of the difference between h1 and h2.
    H1Tls,
    /// HTTP/2 over TLS (ALPN h2): the only way Chromium sends a ReadableStream body.
    H2,
}

impl Transport {
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// Served over TLS, so the run needs a certificate the browser trusts.
    pub fn is_tls(self) -> bool {
        self != Transport::H1
    }

    /// The protocol the sink should see on this transport (its verdict's `protocol`).
    pub fn protocol(self) -> &'static str {
        match self {
            Transport::H1 | Transport::H1Tls => "http/1.1",
            Transport::H2 => "h2",
        }
    }

    /// What this transport is compared with, nearest first: h2 with HTTP/1.1 over TLS
    /// (the protocol alone) and in the clear; h1-tls with h1 (TLS alone).
    pub fn baselines(self) -> &'static [Transport] {
        match self {
            Transport::H1 => &[],
            Transport::H1Tls => &[Transport::H1],
            Transport::H2 => &[Transport::H1Tls, Transport::H1],
        }
    }
}

/// The positive control's two halves.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    strum::IntoStaticStr,
    strum::EnumIter,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum Condition {
    Attached,
    Detached,
}

/// An arm, typed: what it uploads (`kind` and its fields) and the transport and
/// condition it ran under.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Arm {
    #[serde(flatten)]
    pub kind: ArmKind,
    /// Set in runs that chose their transports (`--transport`); None is h1, as every
    /// run before transports was, and keeps the arm's label as it always was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<Transport>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<Condition>,
    /// The API a body arm uploads through, set for XMLHttpRequest arms (`--api xhr`);
    /// None is fetch(), as every run before APIs was, and keeps the label as it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api: Option<Api>,
    /// The negative control: the baseline body uploaded again in the same rep.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub repeat: bool,
}

/// The negative control's arm is its body kind with this after it.
pub const NEGATIVE_CONTROL_SUFFIX: &str = " (A/A)";

/// 1048576 -> "1 MiB"; sizes that are not whole MiB in bytes. Kept by hand: it is part
/// of a stored arm's name, and no size formatter (bytesize's included) writes this rule.
fn size_label(bytes: u64) -> String {
    const MIB: u64 = 1024 * 1024;
    if bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else {
        format!("{bytes} B")
    }
}

impl Schedule {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

impl Condition {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// Every body kind is compared with this one.
pub const BASELINE_BODY: BodyKind = BodyKind::Uint8Array;

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
            match body.parse() {
                Ok(body) => ArmKind::Body { body },
                Err(_) => ArmKind::Unknown { label: body.into() },
            }
        };
        let condition = extra
            .get("condition")
            .and_then(|c| Condition::deserialize(c).ok());
        Arm {
            api: None,
            kind,
            transport: None,
            condition,
            repeat: negative_control,
        }
    }

    /// The arm's name in every report and on the page: "Blob", "AES-GCM 1 MiB
    /// pipelined", "parallel x4", "download", then the transport when the run chose
    /// one ("Blob h2"), then the control's condition ("Blob (attached)") or the
    /// negative control's mark ("Uint8Array (A/A)").
    pub fn label(&self) -> String {
        let mut label = match &self.kind {
            ArmKind::Body { body } => body.to_string(),
            ArmKind::Encrypted {
                chunk_bytes,
                schedule,
            } => format!("AES-GCM {} {}", size_label(*chunk_bytes), schedule.as_str()),
            ArmKind::Download => "download".into(),
            ArmKind::Parallel { streams } => format!("parallel x{streams}"),
            ArmKind::Module { name, .. } => name.to_string(),
            ArmKind::Unknown { label } => label.clone(),
        };
        if let Some(api) = self.api.filter(|&a| a != Api::Fetch) {
            label = format!("{label} {api}");
        }
        if let Some(t) = self.transport {
            label = format!("{label} {t}");
        }
        match self.condition {
            Some(c) => format!("{label} ({})", c.as_str()),
            None if self.repeat => format!("{label}{NEGATIVE_CONTROL_SUFFIX}"),
            None => label,
        }
    }

    /// The transport it travels over: h1 unless the run chose.
    pub fn travels_over(&self) -> Transport {
        self.transport.unwrap_or(Transport::H1)
    }

    /// The same upload over the transports this one is compared with, nearest first.
    pub fn transport_baselines(&self) -> Vec<Arm> {
        self.travels_over()
            .baselines()
            .iter()
            .map(|&t| Arm {
                transport: Some(t),
                ..self.clone()
            })
            .collect()
    }

    /// A workload arm (encrypted, download, parallel, a module) rather than a plain
    /// body kind.
    pub fn is_workload(&self) -> bool {
        matches!(
            self.kind,
            ArmKind::Encrypted { .. }
                | ArmKind::Download
                | ArmKind::Parallel { .. }
                | ArmKind::Module { .. }
        )
    }

    /// The arm this one is compared with, if any, over the same transport: an XHR arm
    /// with its fetch() twin, a body kind with Uint8Array, the
    /// negative control with its own body, a pipelined schedule with the serial one of the
    /// same chunk size, parallel xN with x1. A control run's halves have none here:
    /// they are compared attached against detached, in the control section; nor has a
    /// module, whose baseline is the plan's (`--baseline`, `report::compare_arms`).
    pub fn baseline(&self) -> Option<Arm> {
        let with = |kind: ArmKind| Arm {
            kind,
            transport: self.transport,
            condition: None,
            api: self.api,
            repeat: false,
        };
        if self.condition.is_some() {
            return None;
        }
        if self.repeat {
            return Some(with(self.kind.clone()));
        }
        if self.api.is_some_and(|a| a != Api::Fetch) {
            // An XHR arm against the same body through fetch().
            return Some(Arm {
                api: None,
                ..with(self.kind.clone())
            });
        }
        match &self.kind {
            ArmKind::Body { body } if *body != BASELINE_BODY => Some(with(ArmKind::Body {
                body: BASELINE_BODY,
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

/// An arm as reports write it: its label, then its typed fields.
#[derive(Serialize, schemars::JsonSchema)]
pub struct Labelled<'a> {
    /// The arm's name in every report ("Blob", "AES-GCM 16 MiB pipelined",
    /// "Uint8Array (attached)"), made from the fields beside it.
    pub label: String,
    #[serde(flatten)]
    pub arm: std::borrow::Cow<'a, Arm>,
}

/// `serialize_with` for an arm: `Labelled`.
pub fn labelled<S: serde::Serializer>(arm: &Arm, s: S) -> Result<S::Ok, S::Error> {
    Labelled {
        label: arm.label(),
        arm: std::borrow::Cow::Borrowed(arm),
    }
    .serialize(s)
}

/// `serialize_with` for a list of arms: each `Labelled`.
pub fn labelled_all<S: serde::Serializer>(arms: &[Arm], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(arms.iter().map(|arm| Labelled {
        label: arm.label(),
        arm: std::borrow::Cow::Borrowed(arm),
    }))
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
                api: None,
                kind: ArmKind::Body {
                    body: BodyKind::Blob,
                },
                transport: None,
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
    fn serde_strum_and_clap_spell_every_name_alike() {
        use clap::ValueEnum;
        use strum::IntoEnumIterator;
        fn names<T: Serialize + ValueEnum + Into<&'static str> + Copy + std::fmt::Display>(
            all: impl Iterator<Item = T>,
        ) -> Vec<[String; 4]> {
            all.map(|v| {
                let clap = v.to_possible_value().unwrap().get_name().to_owned();
                let serde = serde_json::to_value(v)
                    .unwrap()
                    .as_str()
                    .unwrap()
                    .to_owned();
                [serde, clap, v.into().to_owned(), v.to_string()]
            })
            .collect()
        }
        for n in names(BodyKind::iter())
            .iter()
            .chain(&names(Transport::iter()))
        {
            assert!(n.iter().all(|x| *x == n[0]), "{n:?}");
        }
        let bodies: Vec<String> = names(BodyKind::iter())
            .into_iter()
            .map(|n| n[0].clone())
            .collect();
        assert_eq!(
            bodies,
            ["Uint8Array", "ArrayBuffer", "Blob", "ReadableStream"]
        );
        let transports: Vec<String> = names(Transport::iter())
            .into_iter()
            .map(|n| n[0].clone())
            .collect();
        assert_eq!(transports, ["h1", "h1-tls", "h2"]);
        // Tables pad these names: the derived Display still honours width.
        assert_eq!(format!("{:<4}|", Transport::H2), "h2  |");
    }

    #[test]
    fn a_sample_whose_body_names_no_arm_keeps_its_label_and_is_compared_with_nothing() {
        let stranger = legacy("FormData", json!({}));
        assert_eq!(
            stranger.kind,
            ArmKind::Unknown {
                label: "FormData".into()
            }
        );
        assert_eq!(stranger.label(), "FormData");
        assert_eq!(stranger.baseline(), None);
        assert!(!stranger.is_workload());
    }

    #[test]
    fn baselines_by_kind() {
        let body = |body: BodyKind| Arm {
            api: None,
            kind: ArmKind::Body { body },
            transport: None,
            condition: None,
            repeat: false,
        };
        assert_eq!(
            body(BodyKind::Blob).baseline(),
            Some(body(BodyKind::Uint8Array))
        );
        assert_eq!(body(BodyKind::Uint8Array).baseline(), None);
        let again = Arm {
            repeat: true,
            ..body(BodyKind::Uint8Array)
        };
        assert_eq!(
            again.baseline(),
            Some(body(BodyKind::Uint8Array)),
            "the negative control is its own body"
        );
        let enc = |schedule| Arm {
            api: None,
            kind: ArmKind::Encrypted {
                chunk_bytes: 8,
                schedule,
            },
            transport: None,
            condition: None,
            repeat: false,
        };
        assert_eq!(
            enc(Schedule::Pipelined).baseline(),
            Some(enc(Schedule::Serial))
        );
        assert_eq!(enc(Schedule::Serial).baseline(), None);
        let par = |streams| Arm {
            api: None,
            kind: ArmKind::Parallel { streams },
            transport: None,
            condition: None,
            repeat: false,
        };
        assert_eq!(par(8).baseline(), Some(par(1)));
        assert_eq!(par(1).baseline(), None);
        let attached = Arm {
            condition: Some(Condition::Attached),
            ..body(BodyKind::Blob)
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
            api: None,
            kind: ArmKind::Parallel { streams: 2 },
            transport: None,
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

    fn arm(kind: ArmKind) -> Arm {
        Arm {
            api: None,
            kind,
            transport: None,
            condition: None,
            repeat: false,
        }
    }

    #[test]
    fn labels_name_the_kind_then_the_transport_then_the_condition() {
        let blob = arm(ArmKind::Body {
            body: BodyKind::Blob,
        });
        assert_eq!(
            blob.label(),
            "Blob",
            "no transport chosen: the label as always"
        );
        let h2 = Arm {
            transport: Some(Transport::H2),
            ..blob.clone()
        };
        assert_eq!(h2.label(), "Blob h2");
        let attached = Arm {
            condition: Some(Condition::Attached),
            ..h2.clone()
        };
        assert_eq!(attached.label(), "Blob h2 (attached)");
        let again = Arm {
            repeat: true,
            ..blob
        };
        assert_eq!(again.label(), "Blob (A/A)");
        assert_eq!(
            arm(ArmKind::Encrypted {
                chunk_bytes: 1 << 20,
                schedule: Schedule::Pipelined
            })
            .label(),
            "AES-GCM 1 MiB pipelined"
        );
        assert_eq!(
            arm(ArmKind::Encrypted {
                chunk_bytes: 1000,
                schedule: Schedule::Serial
            })
            .label(),
            "AES-GCM 1000 B serial"
        );
        assert_eq!(arm(ArmKind::Download).label(), "download");
        assert_eq!(arm(ArmKind::Parallel { streams: 4 }).label(), "parallel x4");
    }

    #[test]
    fn a_transport_is_compared_with_the_same_upload_over_the_nearer_transports() {
        let over = |t| Arm {
            transport: Some(t),
            ..arm(ArmKind::Body {
                body: BodyKind::Uint8Array,
            })
        };
        assert_eq!(
            over(Transport::H2).transport_baselines(),
            vec![over(Transport::H1Tls), over(Transport::H1)]
        );
        assert_eq!(
            over(Transport::H1Tls).transport_baselines(),
            vec![over(Transport::H1)]
        );
        assert!(over(Transport::H1).transport_baselines().is_empty());
        // Body kinds are compared within one transport.
        let blob_h2 = Arm {
            transport: Some(Transport::H2),
            ..arm(ArmKind::Body {
                body: BodyKind::Blob,
            })
        };
        assert_eq!(blob_h2.baseline(), Some(over(Transport::H2)));
    }
}
