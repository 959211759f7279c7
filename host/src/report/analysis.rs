//! The run's analysis as the extension shows it: the host computes every ratio,
//! interval and verdict, and the popup only lays out the text it is given, so no
//! statistical rule lives in JavaScript.

use super::{ratio_cell, RunReport};
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Analysis {
    /// Per arm, in the table's order: "1.48x [1.18–3.05] faster", "baseline" or "–".
    pub arms: Vec<ArmLine>,
    pub control: Vec<ControlLine>,
    pub negative_control: Option<String>,
    pub warnings: Vec<String>,
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ArmLine {
    pub body: String,
    pub vs: String,
    pub sink_bound: bool,
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
        arms: report
            .summary
            .iter()
            .map(|a| ArmLine {
                body: a.body.clone(),
                vs: ratio_cell(report, &a.body, true),
                sink_bound: a.sink_bound,
            })
            .collect(),
        control: report
            .control
            .iter()
            .map(|c| ControlLine {
                body: c.body.clone(),
                attached_mbps: c.attached_median_mbps,
                detached_mbps: c.detached_median_mbps,
                slowdown: c.slowdown_text(),
            })
            .collect(),
        negative_control: report.negative_control.as_ref().map(|c| {
            format!(
                "{} vs itself: {} {}",
                c.baseline,
                c.ratio_text(2),
                c.verdict.words(c.horizon)
            )
        }),
        warnings: report.warnings.clone(),
        notes: report.notes.clone(),
    }
}
