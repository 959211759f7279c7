//! What a report says beside its figures, typed: warnings (the figures may mislead) and
//! notes (observations that are not problems). Each is an enum with its data; its words
//! are written once, by `Display`, in `export/findings.rs`. Code and tests branch on the
//! kind, never on the words. In JSON each is an object: `kind`, its fields, and the
//! rendered `message`.

use super::ProtocolMismatch;
use crate::domain::plan::AutoStop;
use crate::stats::compare::Verdict;
use serde::{Serialize, Serializer};
use std::fmt;

#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Warning {
    /// The arm's median reaches `SINK_BOUND_SHARE` of its sink's own ceiling.
    SinkBound {
        arm: String,
        median_mbps: f64,
        ceiling_mbps: f64,
    },
    /// The median is above every round of the ceiling: that measurement was disturbed.
    CeilingDisturbed {
        arm: String,
        median_mbps: f64,
        ceiling_mbps: f64,
    },
    /// The sink hashes slower than the arm uploads (the figure still stands).
    HashSlowerThanArm {
        arm: String,
        hash_mbps: f64,
        median_mbps: f64,
    },
    /// Bodies outgrew the hash queue, so the sink received no faster than it hashed.
    HashBound { arm: String, samples: usize },
    /// Uploads of a TLS arm arrived over another protocol.
    ProtocolMismatch(ProtocolMismatch),
    /// Page and sink times that do not fit together.
    TimingDisagreement { samples: usize, tolerance: f64 },
    /// The baseline against itself came out different: the machine is too noisy.
    NegativeControlFailed {
        arm: String,
        verdict: Verdict,
        horizon: f64,
        /// The baseline over itself, with its 95% interval where there is one.
        ratio: f64,
        ci_low: Option<f64>,
        ci_high: Option<f64>,
    },
    /// Other work loaded the machine while the run measured (every block alike): the
    /// verdicts hold for that condition, not for a quiet machine.
    OtherWork {
        condition: crate::domain::conditions::Condition,
        state: crate::domain::conditions::MachineState,
    },
    /// The run's blocks were measured in more than one condition: its comparisons are
    /// given per condition, each part with its blocks.
    ConditionChanged { parts: Vec<ConditionPart> },
    /// A registered workload module whose file changed since `workload add`: the run ran
    /// its new code (`sha256`), not the code that was registered (`registered_sha256`).
    ModuleChanged {
        name: crate::domain::workload::ModuleName,
        sha256: String,
        registered_sha256: String,
    },
    /// An auto-sampled run stopped on a budget before every comparison settled.
    AutoBudgetSpent {
        stop: AutoStop,
        reps: u32,
        max_reps: u32,
        max_seconds: u64,
        /// One per comparison left unsettled: its arm and baseline.
        unsettled: Vec<Unsettled>,
    },
}

/// A comparison an auto-sampled run left unsettled: its two sides, as the comparison
/// writes them.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Unsettled {
    pub arm: crate::stats::side::Side,
    pub baseline: crate::stats::side::Side,
}

#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Note {
    /// Per arm, the median part of the page time outside the sink's record of the
    /// request (before its headers reached the sink, and after its last byte), split
    /// into the two where the phases are known.
    BrowserTime { arms: Vec<BrowserTime> },
    /// The one condition every block of the run was measured in (quiet, or the run's
    /// own generated load), and what the machine did.
    MeasuredIn {
        condition: crate::domain::conditions::Condition,
        state: crate::domain::conditions::MachineState,
    },
    /// The run alternated its own load by plan (`--load none,cpu`) over one kind of
    /// other work: each load's blocks and what the machine did over them. Comparisons
    /// are given per load; this is the design of the run, not a change of condition.
    LoadsPlanned { parts: Vec<ConditionPart> },
    /// On a remote sink, per body arm: its median as a share of what the link carried
    /// for the host's own client, and whether its bytes crossed the wire at the link's
    /// ceiling (`report::link`).
    LinkWire {
        arm: String,
        median_mbps: f64,
        ceiling_mbps: f64,
        /// Its median upload's first to last byte at the sink, as a rate.
        wire_mbps: Option<f64>,
        limit: super::link::WireLimit,
    },
    /// Why an arm's bytes did not arrive intact, where the tool can explain it.
    IntegrityReason {
        arm: String,
        integrity: crate::stats::integrity::IntegrityStatus,
        why: crate::stats::integrity::IntegrityWhy,
    },
}

/// The blocks of a run measured in one condition, and what the machine did over them.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ConditionPart {
    pub condition: crate::domain::conditions::Condition,
    pub blocks: Vec<u32>,
    pub state: crate::domain::conditions::MachineState,
}

#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct BrowserTime {
    pub arm: String,
    /// The condition of these uploads, in a run measured in more than one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition: Option<crate::domain::conditions::Condition>,
    /// The median page time less the sink's record of the request (its headers to its
    /// last byte): the time outside that record, before it and after it.
    pub browser_ms: f64,
    pub page_ms: f64,
    /// That time split into before the headers reached the sink and after the last
    /// byte (medians of each, `report::phases`); absent where the uploads have no phases.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub split: Option<super::phases::Outside>,
}

/// A finding as JSON: its kind and fields, and its words as `message`.
#[derive(Serialize, schemars::JsonSchema)]
#[schemars(rename = "{T}")]
pub struct Rendered<'a, T: Serialize> {
    #[serde(flatten)]
    finding: &'a T,
    /// The finding in words, as the text reports print it.
    message: String,
}

/// `serialize_with` for a list of findings.
pub fn with_messages<T, S>(items: &[T], s: S) -> Result<S::Ok, S::Error>
where
    T: Serialize + fmt::Display,
    S: Serializer,
{
    s.collect_seq(items.iter().map(|finding| Rendered {
        finding,
        message: finding.to_string(),
    }))
}
