//! Where an upload's time went: **preparing** (the page's fetch() call to the first
//! body byte at the sink), **on the wire** (first to last byte, on the sink's clock)
//! and **reply** (last byte to the page having the response).
//!
//! The page's and the sink's clocks are aligned by the known order of events: the
//! request's headers reached the sink after the browser began sending it (Resource
//! Timing `requestStart`, else the fetch() call), and the sink's last byte came before
//! the response reached the page (`responseStart`, else fetch() resolving). Where in
//! that window the headers arrived is unknown: the phases take its middle and state
//! half its width as their uncertainty. A workload module's upload may be several
//! requests: preparing then runs to its first body byte, on the wire to its last, and
//! reply to the module's promise settling.

use crate::domain::arm::{Arm, ArmKind};
use crate::domain::conditions::Condition;
use crate::domain::sample::Sample;
use crate::stats::median;
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Phases {
    pub preparing_ms: f64,
    pub wire_ms: f64,
    pub reply_ms: f64,
    /// Preparing may be up to this much longer and reply as much shorter, or the
    /// reverse: the clocks are aligned to within it. On the wire is exact.
    pub uncertainty_ms: f64,
}

/// One upload's phases, when the sink recorded its arrival and the page its span.
pub fn of_sample(s: &Sample) -> Option<Phases> {
    let a = aligned(s)?;
    Some(Phases {
        preparing_ms: us(a.headers_at + a.first),
        wire_ms: us(a.last - a.first),
        reply_ms: us(a.reply()),
        uncertainty_ms: us(a.uncertainty),
    })
}

/// The part of an upload's page time outside the sink's record of its request (the
/// request's headers to its last byte), split where the clocks are aligned: before the
/// headers reached the sink, and after the last byte (the reply reaching the page).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Outside {
    pub before_ms: f64,
    pub after_ms: f64,
    /// Before may be up to this much longer and after as much shorter, or the reverse:
    /// the clocks are aligned to within it (as the phases' uncertainty).
    pub uncertainty_ms: f64,
}

/// Which part of the time outside the sink's record is the larger.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutsidePart {
    /// Before the request's headers reached the sink: the browser preparing and
    /// handing over the body.
    Before,
    /// After its last byte: the reply reaching the page.
    After,
}

impl Outside {
    /// The part that is larger however the clocks lie within their uncertainty; None
    /// when the uncertainty could make either the larger.
    pub fn mostly(&self) -> Option<OutsidePart> {
        let u = self.uncertainty_ms;
        if self.after_ms - u > self.before_ms + u {
            Some(OutsidePart::After)
        } else if self.before_ms - u > self.after_ms + u {
            Some(OutsidePart::Before)
        } else {
            None
        }
    }
}

/// One upload's time outside the sink's record, when it has phases.
pub fn outside(s: &Sample) -> Option<Outside> {
    let a = aligned(s)?;
    Some(Outside {
        before_ms: us(a.headers_at),
        after_ms: us(a.reply()),
        uncertainty_ms: us(a.uncertainty),
    })
}

/// The median of each part outside the sink's record over the intact uploads of `arm`
/// that `keep` holds and that have phases.
pub fn outside_of_arm(
    samples: &[Sample],
    arm: &Arm,
    keep: &dyn Fn(&Sample) -> bool,
) -> Option<Outside> {
    let each: Vec<Outside> = samples
        .iter()
        .filter(|s| s.intact && s.is_of(arm) && keep(s))
        .filter_map(outside)
        .collect();
    let m = |f: fn(&Outside) -> f64| median(&each.iter().map(f).collect::<Vec<_>>());
    Some(Outside {
        before_ms: m(|o| o.before_ms)?,
        after_ms: m(|o| o.after_ms)?,
        uncertainty_ms: m(|o| o.uncertainty_ms)?,
    })
}

/// An upload's page span and the sink's record on one axis, the page's clock.
struct Aligned {
    page_ms: f64,
    /// Where the headers reached the sink: the middle of the window they can lie in.
    headers_at: f64,
    /// Half that window's width.
    uncertainty: f64,
    /// The first and last body byte, after the headers (the sink's clock).
    first: f64,
    last: f64,
}

impl Aligned {
    fn reply(&self) -> f64 {
        (self.page_ms - self.headers_at - self.last).max(0.0)
    }
}

fn aligned(s: &Sample) -> Option<Aligned> {
    let t = s.timeline.as_ref()?;
    let page_ms = s.page_ms?;
    let (first, last) = (t.first_byte_ms?, t.last_byte_ms?);
    if !t.requests.is_empty() && !spans_the_page(s) {
        return None; // several requests: no one page span to align with
    }
    let timing = s.page_timing.unwrap_or_default();
    // Where the headers reached the sink, on the page's clock: within [lo, hi].
    let lo = timing.request_start_ms.unwrap_or(0.0).clamp(0.0, page_ms);
    let reply_seen = timing.response_start_ms.map_or(page_ms, |r| r.min(page_ms));
    let hi = (reply_seen - last).max(0.0);
    Some(Aligned {
        page_ms,
        headers_at: (lo + hi) / 2.0,
        uncertainty: ((hi - lo) / 2.0).max(0.0),
        first,
        last,
    })
}

/// To the microsecond: neither clock is finer.
fn us(ms: f64) -> f64 {
    (ms * 1000.0).round() / 1000.0
}

/// Whether a combined record (several requests on one axis) still lines up with the
/// page's span: a workload module's does, since the page times the module from its call
/// to its promise settling and marks its first request's start and its last reply
/// (`lib/timing.js` `spanMarks`), so preparing runs to the first byte of its first
/// request and reply from the last byte of its last. An encrypted upload's page time
/// leaves its verification out, and parallel streams have no one reply: they have none.
fn spans_the_page(s: &Sample) -> bool {
    matches!(
        s.recorded_arm.as_ref().map(|a| &a.kind),
        Some(ArmKind::Module { .. })
    )
}

/// One arm's phases: the median of each over its intact uploads.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ArmPhases {
    /// Written with its label, as the summary's arms are.
    #[serde(serialize_with = "crate::stats::side::labelled")]
    #[schemars(with = "crate::stats::side::Labelled")]
    pub arm: Arm,
    pub uploads: usize,
    pub median: Phases,
    /// The rep of the upload whose page time is the arm's median: the one the HTML
    /// report draws.
    pub representative_rep: Option<u32>,
    /// The condition these uploads were measured in, when the run's blocks were
    /// measured in more than one (the arm then has one line per condition, so a run
    /// whose condition changed shows its parts apart); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition: Option<Condition>,
}

/// The intact uploads of `arm` that have phases, with them.
pub fn of_arm<'a>(
    samples: &'a [Sample],
    arm: &'a Arm,
) -> impl Iterator<Item = (&'a Sample, Phases)> {
    samples
        .iter()
        .filter(move |s| s.intact && s.is_of(arm))
        .filter_map(|s| Some((s, of_sample(s)?)))
}

/// The upload of `arm` with a timeline whose page time is the median one.
pub fn representative<'a>(samples: &'a [Sample], arm: &Arm) -> Option<&'a Sample> {
    median_upload(samples.iter(), arm)
}

fn median_upload<'a>(samples: impl Iterator<Item = &'a Sample>, arm: &Arm) -> Option<&'a Sample> {
    let mut drawn: Vec<&Sample> = samples
        .filter(|s| s.intact && s.is_of(arm) && s.timeline.is_some())
        .collect();
    drawn.sort_by(|a, b| {
        a.page_ms
            .unwrap_or(0.0)
            .total_cmp(&b.page_ms.unwrap_or(0.0))
    });
    drawn.get(drawn.len().saturating_sub(1) / 2).copied()
}

/// Per arm (in the order given) whose uploads have phases.
pub fn by_arm<'a>(arms: impl Iterator<Item = &'a Arm>, samples: &[Sample]) -> Vec<ArmPhases> {
    by_arm_in(arms, samples, &|_| None)
}

/// `by_arm`, and when `condition_of` names more than one condition among the samples,
/// per arm and condition (in the order the conditions first appear).
pub fn by_arm_in<'a>(
    arms: impl Iterator<Item = &'a Arm>,
    samples: &[Sample],
    condition_of: &dyn Fn(&Sample) -> Option<Condition>,
) -> Vec<ArmPhases> {
    let mut seen: Vec<Condition> = Vec::new();
    for c in samples.iter().filter_map(condition_of) {
        if !seen.contains(&c) {
            seen.push(c);
        }
    }
    let each: Vec<Option<Condition>> = match seen.len() {
        0 | 1 => vec![None],
        _ => seen.into_iter().map(Some).collect(),
    };
    arms.flat_map(|arm| {
        each.iter()
            .filter_map(move |c| in_condition(arm, samples, c.as_ref(), condition_of))
    })
    .collect()
}

/// One arm's phases over its uploads in `condition` (all of them when None).
fn in_condition(
    arm: &Arm,
    samples: &[Sample],
    condition: Option<&Condition>,
    condition_of: &dyn Fn(&Sample) -> Option<Condition>,
) -> Option<ArmPhases> {
    let keep = |s: &&Sample| condition.is_none() || condition_of(s).as_ref() == condition;
    let each: Vec<Phases> = of_arm(samples, arm)
        .filter(|(s, _)| keep(s))
        .map(|(_, p)| p)
        .collect();
    let m = |f: fn(&Phases) -> f64| median(&each.iter().map(f).collect::<Vec<_>>());
    Some(ArmPhases {
        arm: arm.clone(),
        uploads: each.len(),
        median: Phases {
            preparing_ms: m(|p| p.preparing_ms)?,
            wire_ms: m(|p| p.wire_ms)?,
            reply_ms: m(|p| p.reply_ms)?,
            uncertainty_ms: m(|p| p.uncertainty_ms)?,
        },
        representative_rep: median_upload(samples.iter().filter(keep), arm).map(|s| s.rep),
        condition: condition.cloned(),
    })
}

#[cfg(test)]
pub(crate) mod tests;
