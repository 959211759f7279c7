//! The run's analysis as the extension shows it: the host computes every ratio,
//! interval and verdict, and the popup only lays out the text it is given, so no
//! statistical rule lives in JavaScript.

use super::{ratio_cell, RunReport};
use crate::model::Observed;
use crate::stats::Integrity;
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Analysis {
    pub observed: Observed,
    /// Per arm, in the table's order: "1.48x [1.18–3.05] faster", "baseline" or "–".
    pub arms: Vec<ArmLine>,
    pub control: Vec<ControlLine>,
    /// "Blob h2 vs Blob h1: 1.10x [1.02–1.21] faster", one per transport comparison.
    pub transports: Vec<String>,
    pub negative_control: Option<String>,
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
    pub vs: String,
    /// The receive ceiling of the sink this arm uploaded to (its transport's).
    pub ceiling_mbps: Option<f64>,
    pub sink_bound: bool,
    pub integrity: IntegrityLine,
}

/// An arm's integrity for the popup: `status` to branch on, words to show.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IntegrityLine {
    #[serde(flatten)]
    pub integrity: Integrity,
    pub word: &'static str,
    pub detail: Option<String>,
    pub why: Option<&'static str>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ControlLine {
    pub body: String,
    pub attached_mbps: Option<f64>,
    pub detached_mbps: Option<f64>,
    pub slowdown: String,
}

pub fn of(report: &RunReport) -> Analysis {
    Analysis {
        observed: report.run.observed,
        arms: report
            .summary
            .iter()
            .map(|a| ArmLine {
                body: a.arm.label(),
                n: a.n,
                median_mbps: a.median_mbps,
                min_mbps: a.min_mbps,
                max_mbps: a.max_mbps,
                vs: ratio_cell(report, &a.arm, true),
                ceiling_mbps: report.run.ceiling_of(a.arm.travels_over()).0,
                sink_bound: a.sink_bound,
                integrity: IntegrityLine {
                    integrity: a.integrity.clone(),
                    word: a.integrity.word(),
                    detail: a.integrity.detail(),
                    why: a.integrity.why(&a.arm),
                },
            })
            .collect(),
        control: report
            .control
            .iter()
            .map(|c| ControlLine {
                body: c.arm.label(),
                attached_mbps: c.attached_median_mbps,
                detached_mbps: c.detached_median_mbps,
                slowdown: c.slowdown_text(),
            })
            .collect(),
        transports: report
            .transports
            .iter()
            .map(|c| {
                format!(
                    "{} vs {}: {}",
                    c.arm.label(),
                    c.baseline.label(),
                    crate::export::conditions::comparison_text(c, 2)
                )
            })
            .collect(),
        negative_control: report.negative_control.as_ref().map(|c| {
            format!(
                "{} vs itself: {} {}",
                c.baseline.label(),
                c.ratio_text(2),
                c.verdict.words(c.horizon)
            )
        }),
        chart: super::chart_scale(report),
        warnings: report.warnings.clone(),
        notes: report.notes.clone(),
        phases: report
            .phases
            .iter()
            .map(|p| PhaseLine {
                body: p.arm.label(),
                uploads: p.uploads,
                median: p.median,
            })
            .collect(),
    }
}
