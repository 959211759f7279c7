//! The words of every warning and note (`report/findings.rs` holds their kinds and
//! figures): the `message` each carries in JSON, the popup's findings, and the lines
//! the text formats print.

use super::words;
use crate::domain::plan::AutoStop;
use crate::report::link::WireLimit;
use crate::report::{Note, Warning};
use std::fmt;

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
            Warning::NegativeControlFailed { arm, verdict, horizon, ratio, ci_low, ci_high } => write!(
                f,
                "The negative control failed: {arm} uploaded twice in every rep came out {} ({}). Identical arms differ on this machine, so this run's other verdicts cannot be trusted: quiet the machine (close other programs, plug in the laptop) and run again.",
                words::verdict(*verdict, *horizon),
                words::ratio_of(*ratio, *ci_low, *ci_high, 2)
            ),
            Warning::OtherWork { condition, state } => write!(
                f,
                "{} The verdicts hold for this condition; on a quiet machine they may differ, even in sign (docs/why-the-answer-depends.md).",
                super::conditions::measured_in(condition, state)
            ),
            Warning::ConditionChanged { parts } => {
                let parts: Vec<_> = parts.iter().map(|p| (p.condition.clone(), p.blocks.clone(), p.state)).collect();
                write!(f, "{}", super::conditions::changed(&parts))
            }
            Warning::ModuleChanged { name, sha256, registered_sha256 } => write!(
                f,
                "Workload module {name} changed since it was registered (`unobserved workload add`): this run ran SHA-256 {}…, not the registered {}…. Its figures are the new code's, and `unobserved compare` will not set them beside a run of the old.",
                words::short_sha(sha256),
                words::short_sha(registered_sha256)
            ),
            Warning::AutoBudgetSpent { stop, reps, max_reps, max_seconds, unsettled } => {
                budget_spent(f, *stop, (*reps, *max_reps, *max_seconds), unsettled)
            }
        }
    }
}

/// `Warning::AutoBudgetSpent`'s words: which budget ran out, and what it left unsettled.
fn budget_spent(
    f: &mut fmt::Formatter<'_>,
    stop: AutoStop,
    (reps, max_reps, max_seconds): (u32, u32, u64),
    unsettled: &[crate::report::findings::Unsettled],
) -> fmt::Result {
    let budget = match stop {
        AutoStop::BudgetReps => format!("The rep budget ({max_reps} reps)"),
        _ => format!("The time budget ({max_seconds} s)"),
    };
    let left = match unsettled {
        [] => "nothing to compare was settled".to_owned(),
        each => {
            let names: Vec<String> = each
                .iter()
                .map(|u| format!("{} vs {}", u.arm.label(), u.baseline.label()))
                .collect();
            format!("{} comparison(s) not settled ({}), which read \"not resolved\" whatever their interval", names.len(), names.join(", "))
        }
    };
    write!(f, "{budget} ran out after {reps} reps with {left}. Give it more time (Options, or --max-time) or a quieter machine, or widen the horizon.")
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Note::BrowserTime { arms } => write!(f, "{}", browser_time(arms)),
            Note::MeasuredIn { condition, state } => {
                write!(f, "{}", super::conditions::measured_in(condition, state))
            }
            Note::LoadsPlanned { parts } => {
                let parts: Vec<_> = parts
                    .iter()
                    .map(|p| (p.condition.clone(), p.blocks.clone(), p.state))
                    .collect();
                write!(f, "{}", super::conditions::loads_planned(&parts))
            }
            Note::LinkWire {
                arm,
                median_mbps,
                ceiling_mbps,
                wire_mbps,
                limit,
            } => {
                write!(
                    f,
                    "{arm} reached {} of what this link carried ({} of {} Mbps, the host's own client over the same transport). ",
                    words::share(Some(median_mbps / ceiling_mbps.max(f64::MIN_POSITIVE))),
                    words::mbps(Some(*median_mbps)),
                    words::mbps(Some(*ceiling_mbps))
                )?;
                let wire = words::mbps(*wire_mbps);
                match limit {
                    WireLimit::Link => write!(f, "Its bytes crossed the wire at {wire} Mbps, the link's ceiling: on the wire the link is the limit, and the rest of its time went before the first byte and after the last."),
                    WireLimit::Browser => write!(f, "Its bytes crossed the wire at {wire} Mbps, below the link's ceiling: the browser did not fill the link, so the browser is the limit, not the link."),
                    WireLimit::Unknown => write!(f, "No timeline of its uploads, so whether its bytes crossed at the link's speed is not known."),
                }
            }
            Note::IntegrityReason {
                arm,
                integrity,
                why,
            } => {
                let integrity = serde_json::to_value(integrity).unwrap_or_default();
                let integrity = integrity.as_str().unwrap_or_default();
                write!(
                    f,
                    "Why {arm} is {integrity}: {}",
                    words::integrity_why(*why)
                )
            }
        }
    }
}

/// Per arm (and condition, in a run measured in more than one), the time outside the
/// sink's record of the request, and where the phases are known, how much of it came
/// before the request and how much after.
fn browser_time(arms: &[crate::report::findings::BrowserTime]) -> String {
    let parts: Vec<String> = arms.iter().map(browser_time_of).collect();
    let split = arms.iter().any(|a| a.split.is_some());
    format!(
        "Time outside the sink's record of the request (its headers to its last byte), median per upload: {}. {}A web app waits for all of it, so the page time is the figure.",
        parts.join(", "),
        if split {
            "Before is until its headers reached the sink: the browser preparing and handing over the body; after is from its last byte until the page had the reply (± is how far the clocks may be off). "
        } else {
            "It is the browser preparing and handing over the body before the request, and the reply reaching the page after it. "
        }
    )
}

/// "Blob 40 of 100 ms (40%: 5 before, 35 after ±1, mostly after)".
fn browser_time_of(a: &crate::report::findings::BrowserTime) -> String {
    use crate::report::phases::OutsidePart;
    let arm = match &a.condition {
        Some(c) => super::conditions::arm_in(&a.arm, c),
        None => a.arm.clone(),
    };
    let share = 100.0 * a.browser_ms / a.page_ms.max(f64::MIN_POSITIVE);
    let split = a.split.map(|o| {
        let mostly = match o.mostly() {
            Some(OutsidePart::Before) => ", mostly before",
            Some(OutsidePart::After) => ", mostly after",
            None => "",
        };
        format!(
            ": {:.0} before, {:.0} after ±{:.0}{mostly}",
            o.before_ms, o.after_ms, o.uncertainty_ms
        )
    });
    format!(
        "{arm} {:.0} of {:.0} ms ({share:.0}%{})",
        a.browser_ms,
        a.page_ms,
        split.unwrap_or_default()
    )
}

impl fmt::Display for crate::store::StoreWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use crate::store::StoreWarningKind;
        let (path, line, error) = (self.path.display(), self.line, &self.error);
        match self.kind {
            StoreWarningKind::StoppedReading => {
                write!(f, "{path}: stopped reading at line {line}: {error}")
            }
            StoreWarningKind::TornLastLine => write!(
                f,
                "{path}: line {line} skipped, incomplete last line (torn write?): {error}"
            ),
            StoreWarningKind::CorruptLine => {
                write!(f, "{path}: line {line} skipped, corrupt line: {error}")
            }
            StoreWarningKind::MoreSkipped { lines } => {
                write!(f, "{path}: {lines} more lines skipped, corrupt")
            }
        }
    }
}

impl fmt::Display for crate::domain::host_name::HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use crate::domain::host_name::{HostError, LABEL_CHARS, NAME_CHARS};
        match self {
            HostError::Empty => f.write_str("a host name cannot be empty"),
            HostError::TooLong { chars } => {
                write!(f, "{chars} characters: a host name has at most {NAME_CHARS}")
            }
            HostError::BadCharacter => f.write_str(
                "only a name (letters, digits, hyphens and dots), an IPv4 address or an IPv6 one: no scheme, port, path or spaces",
            ),
            HostError::BadLabel => write!(
                f,
                "each dot-separated part must be 1-{LABEL_CHARS} letters, digits or inner hyphens, and a number must be an IPv4 address"
            ),
            HostError::BadIpv6 => f.write_str("brackets must hold an IPv6 address, e.g. [fe80::1]"),
        }
    }
}
