//! What a report says beside its figures, typed: warnings (the figures may mislead) and
//! notes (observations that are not problems). Each is an enum with its data; its words
//! are written once, here, by `Display`. Code and tests branch on the kind, never on the
//! words. In JSON each is an object: `kind`, its fields, and the rendered `message`.

use super::ProtocolMismatch;
use crate::model::AutoStop;
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
        ratio: String,
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
    /// An auto-sampled run stopped on a budget before every comparison settled.
    AutoBudgetSpent {
        stop: AutoStop,
        reps: u32,
        max_reps: u32,
        max_seconds: u64,
        /// "Blob vs Uint8Array", one per comparison left unsettled.
        unsettled: Vec<String>,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Note {
    /// Per arm, the median time before the request reached the sink, of the page time.
    BrowserTime { arms: Vec<BrowserTime> },
    /// The one condition every block of the run was measured in (quiet, or the run's
    /// own generated load), and what the machine did.
    MeasuredIn {
        condition: crate::domain::conditions::Condition,
        state: crate::domain::conditions::MachineState,
    },
    /// Why an arm's bytes did not arrive intact, where the tool can explain it.
    IntegrityReason {
        arm: String,
        integrity: &'static str,
        why: &'static str,
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
    pub browser_ms: f64,
    pub page_ms: f64,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::SinkBound { arm, median_mbps, ceiling_mbps } => write!(
                f,
                "{arm} is sink-bound: its median {median_mbps:.0} Mbps is {:.0}% of the sink's own receive ceiling ({ceiling_mbps:.0} Mbps). The number describes the sink, not the browser; comparisons with it understate the gap.",
                100.0 * median_mbps / ceiling_mbps
            ),
            Warning::CeilingDisturbed { arm, median_mbps, ceiling_mbps } => write!(
                f,
                "{arm}'s median {median_mbps:.0} Mbps is above every round of the sink's measured ceiling ({ceiling_mbps:.0} Mbps): the ceiling measurement was disturbed (the machine was busy when it ran), so no sink-bound verdict is given for this arm."
            ),
            Warning::HashSlowerThanArm { arm, hash_mbps, median_mbps } => write!(
                f,
                "The sink hashes at {hash_mbps:.0} Mbps, below {arm}'s {median_mbps:.0} Mbps: each verdict arrives after its upload, but the number stands, because the sink answers at the last byte and hashes off the timed path."
            ),
            Warning::HashBound { arm, samples } => write!(
                f,
                "{samples} sample(s) of {arm} were hash-bound: the body outgrew the sink's hash queue, so the sink received no faster than it could hash. Raise the queue (`unobserved sink --hash-queue`) or use a smaller body."
            ),
            Warning::ProtocolMismatch(m) => write!(
                f,
                "{} upload(s) of {} arrived over {}, not {}: the browser chose another protocol, so those figures do not describe {}.",
                m.uploads, m.arm, m.arrived_over, m.transport.protocol(), m.transport
            ),
            Warning::TimingDisagreement { samples, tolerance } => write!(
                f,
                "{samples} sample(s) have page and sink times that do not fit together (more than {:.0}% apart the wrong way, or from a sink that replied only after hashing). Believe the page time for what a web app experiences: it runs from fetch() to the response and includes the browser preparing the body.",
                tolerance * 100.0
            ),
            Warning::NegativeControlFailed { arm, verdict, horizon, ratio } => write!(
                f,
                "The negative control failed: {arm} uploaded twice in every rep came out {} ({ratio}). Identical arms differ on this machine, so this run's other verdicts cannot be trusted: quiet the machine (close other programs, plug in the laptop) and run again.",
                verdict.words(*horizon)
            ),
            Warning::OtherWork { condition, state } => write!(
                f,
                "{} The verdicts hold for this condition; on a quiet machine they may differ, even in sign (docs/why-the-answer-depends.md).",
                crate::export::conditions::measured_in(condition, state)
            ),
            Warning::ConditionChanged { parts } => {
                let parts: Vec<_> = parts.iter().map(|p| (p.condition.clone(), p.blocks.clone(), p.state)).collect();
                write!(f, "{}", crate::export::conditions::changed(&parts))
            }
            Warning::AutoBudgetSpent { stop, reps, max_reps, max_seconds, unsettled } => {
                let budget = match stop {
                    AutoStop::BudgetReps => format!("The rep budget ({max_reps} reps)"),
                    _ => format!("The time budget ({max_seconds} s)"),
                };
                let left = match unsettled.as_slice() {
                    [] => "nothing to compare was settled".to_owned(),
                    names => format!("{} comparison(s) not settled ({}), which read \"not resolved\" whatever their interval", names.len(), names.join(", ")),
                };
                write!(f, "{budget} ran out after {reps} reps with {left}. Give it more time (Options, or --max-time) or a quieter machine, or widen the horizon.")
            }
        }
    }
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Note::BrowserTime { arms } => {
                let parts: Vec<String> = arms
                    .iter()
                    .map(|a| {
                        format!(
                            "{} {:.0} of {:.0} ms ({:.0}%)",
                            a.arm,
                            a.browser_ms,
                            a.page_ms,
                            100.0 * a.browser_ms / a.page_ms.max(f64::MIN_POSITIVE)
                        )
                    })
                    .collect();
                write!(
                    f,
                    "Time before the request reached the sink, median per upload: {}. That is the browser preparing and handing over the body; a web app waits for it too, so the page time is the figure.",
                    parts.join(", ")
                )
            }
            Note::MeasuredIn { condition, state } => {
                write!(
                    f,
                    "{}",
                    crate::export::conditions::measured_in(condition, state)
                )
            }
            Note::IntegrityReason {
                arm,
                integrity,
                why,
            } => {
                write!(f, "Why {arm} is {integrity}: {why}")
            }
        }
    }
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
