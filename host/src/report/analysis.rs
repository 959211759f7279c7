//! The run's analysis as the extension shows it, as data: the host computes every ratio,
//! interval and verdict, and the popup and `serve`'s page write them in words
//! (`extension/lib/words.js`, by the rules of `export/words.rs`, checked by
//! `tests/fixtures/formats.json`), so no statistical rule lives in JavaScript and no
//! sentence crosses but the findings' messages, which `export/` writes.

use super::RunReport;
use crate::domain::sample::Observed;
use crate::stats::compare::Comparison;
use crate::stats::Integrity;
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Analysis {
    pub observed: Observed,
    /// Per arm, in the table's order.
    pub arms: Vec<ArmLine>,
    pub control: Vec<ControlLine>,
    /// Each transport against h1, one per body kind.
    pub transports: Vec<Comparison>,
    /// The baseline against itself.
    pub negative_control: Option<Comparison>,
    /// How far the chart reaches (the arms, not the sink) and its legend.
    pub chart: super::chart_scale::ChartScale,
    /// Typed, each with its rendered `message` for the popup to show.
    #[serde(serialize_with = "super::findings::with_messages")]
    pub warnings: Vec<super::Warning>,
    #[serde(serialize_with = "super::findings::with_messages")]
    pub notes: Vec<super::Note>,
    /// Per arm with phases, where its uploads' time went (the popup's phase bar).
    pub phases: Vec<PhaseLine>,
}

/// One arm's median phases (`phases.rs`), named as the table names the arm.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PhaseLine {
    pub body: String,
    /// The condition of this line's uploads, in a run measured in more than one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition: Option<crate::domain::conditions::Condition>,
    pub uploads: usize,
    #[serde(flatten)]
    pub median: super::phases::Phases,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ArmLine {
    pub body: String,
    /// Intact uploads, and their median and range in Mbps.
    pub n: usize,
    pub median_mbps: Option<f64>,
    pub min_mbps: Option<f64>,
    pub max_mbps: Option<f64>,
    /// The arm against its baseline, when it has one.
    pub comparison: Option<Comparison>,
    /// Other arms are compared with this one.
    pub baseline: bool,
    /// The receive ceiling of the sink (or link) this arm uploaded to, its transport's:
    /// the faster of before and after the arms (`link.rs`).
    pub ceiling_mbps: Option<f64>,
    /// The median as a share of that ceiling (`ArmSummary::ceiling_share`).
    pub ceiling_share: Option<f64>,
    pub sink_bound: bool,
    /// `status` to branch on, and what arrived or what the browser said.
    pub integrity: Integrity,
    /// In a run measured in more than one condition: the arm per condition, shown in
    /// place of the figures above, which pool them (`ArmSummary::by_condition`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<ConditionLine>,
}

/// An arm's figures in one condition, and its comparison's part in it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConditionLine {
    pub condition: crate::domain::conditions::Condition,
    pub n: usize,
    pub median_mbps: Option<f64>,
    pub min_mbps: Option<f64>,
    pub max_mbps: Option<f64>,
    pub ceiling_share: Option<f64>,
    /// The arm against its baseline over this condition's blocks, when it has one.
    pub part: Option<crate::stats::blocks::Part>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ControlLine {
    pub body: String,
    pub attached_mbps: Option<f64>,
    pub detached_mbps: Option<f64>,
    /// Detached over attached, when there are enough samples of both.
    pub slowdown: Option<Comparison>,
}

pub fn of(report: &RunReport) -> Analysis {
    Analysis {
        observed: report.run.observed,
        arms: report.summary.iter().map(|a| arm_line(report, a)).collect(),
        control: report
            .control
            .iter()
            .map(|c| ControlLine {
                body: c.arm.label(),
                attached_mbps: c.attached_median_mbps,
                detached_mbps: c.detached_median_mbps,
                slowdown: c.slowdown.clone(),
            })
            .collect(),
        transports: report.transports.clone(),
        negative_control: report.negative_control.clone(),
        chart: super::chart_scale(report),
        warnings: report.warnings.clone(),
        notes: report.notes.clone(),
        phases: report
            .phases
            .iter()
            .map(|p| PhaseLine {
                body: p.arm.label(),
                condition: p.condition.clone(),
                uploads: p.uploads,
                median: p.median,
            })
            .collect(),
    }
}

fn arm_line(report: &RunReport, a: &crate::stats::ArmSummary) -> ArmLine {
    let compared = |pick: fn(&Comparison) -> &crate::domain::arm::Arm| {
        report.comparisons.iter().find(move |c| pick(c) == &a.arm)
    };
    ArmLine {
        body: a.arm.label(),
        n: a.n,
        median_mbps: a.median_mbps,
        min_mbps: a.min_mbps,
        max_mbps: a.max_mbps,
        comparison: compared(|c| c.arm.arm()).cloned(),
        baseline: compared(|c| c.baseline.arm()).is_some(),
        ceiling_mbps: report
            .run
            .link(a.arm.travels_over())
            .and_then(|l| l.carried_mbps()),
        ceiling_share: a.ceiling_share,
        sink_bound: a.sink_bound,
        integrity: a.integrity.clone(),
        conditions: a
            .by_condition
            .iter()
            .map(|c| condition_line(compared(|c| c.arm.arm()), c))
            .collect(),
    }
}

fn condition_line(
    comparison: Option<&Comparison>,
    c: &crate::stats::ConditionSummary,
) -> ConditionLine {
    let f = &c.figures;
    ConditionLine {
        condition: c.condition.clone(),
        n: f.n,
        median_mbps: f.median_mbps,
        min_mbps: f.min_mbps,
        max_mbps: f.max_mbps,
        ceiling_share: f.ceiling_share,
        part: comparison
            .and_then(|cmp| crate::stats::blocks::part_in(cmp, &c.condition))
            .cloned(),
    }
}
