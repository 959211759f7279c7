//! The phases section every format shows (`report::phases`): per arm, the median
//! preparing, on-the-wire and reply times and the clocks' uncertainty; in a control
//! run, attached and detached side by side, so it shows where the debugger's cost lies.

use super::document::{Cell, Row, Section, SectionKind};
use crate::domain::arm::{Arm, Condition};
use crate::report::phases::ArmPhases;
use crate::report::RunReport;

const WHAT: &str = "Median ms per upload: preparing = fetch() called → first byte at the sink; on the wire = first → last byte (the sink's clock); reply = last byte → fetch() resolved. ± = how far the page's and the sink's clocks may be off (preparing that much longer and reply shorter, or the reverse).";

pub fn section(r: &RunReport) -> Option<Section> {
    if r.phases.is_empty() {
        return None;
    }
    Some(if r.control.is_empty() {
        plain(&r.phases)
    } else {
        side_by_side(&r.phases)
    })
}

/// The four medians as the tables show them, to a tenth of a millisecond: preparing,
/// wire, reply, ±.
fn cells(p: &ArmPhases) -> [String; 4] {
    let m = &p.median;
    [m.preparing_ms, m.wire_ms, m.reply_ms, m.uncertainty_ms].map(|v| format!("{v:.1}"))
}

/// "77% · 19% · 4%": each phase's share of their sum.
fn shares(p: &ArmPhases) -> String {
    let m = &p.median;
    let total = m.preparing_ms + m.wire_ms + m.reply_ms;
    if total <= 0.0 {
        return "–".into();
    }
    [m.preparing_ms, m.wire_ms, m.reply_ms]
        .map(|v| format!("{:.0}%", v / total * 100.0))
        .join(" · ")
}

fn plain(phases: &[ArmPhases]) -> Section {
    Section {
        kind: SectionKind::Phases,
        title: Some("Where the time went: preparing, on the wire, reply"),
        columns: [
            "Arm",
            "n",
            "Preparing",
            "On the wire",
            "Reply",
            "±",
            "Shares",
        ]
        .map(String::from)
        .to_vec(),
        rows: phases
            .iter()
            .map(|p| Row {
                arm: p.arm.label(),
                cells: std::iter::once(Cell::text(line_label(p)))
                    .chain([Cell::num(p.uploads.to_string())])
                    .chain(cells(p).map(Cell::num))
                    .chain([Cell::text(shares(p))])
                    .collect(),
                flags: vec![],
            })
            .collect(),
        footnotes: vec![WHAT],
    }
}

/// A line's name: the arm's label, and in a run measured in more than one condition,
/// the condition's ("Uint8Array when quiet", "Blob with the CPU busy (this run's own
/// load)").
pub fn line_label(p: &ArmPhases) -> String {
    match &p.condition {
        Some(c) => super::conditions::arm_in(&p.arm.label(), c),
        None => p.arm.label(),
    }
}

/// The arm without its condition: what pairs attached with detached.
fn unconditioned(arm: &Arm) -> Arm {
    Arm {
        condition: None,
        ..arm.clone()
    }
}

fn side_by_side(phases: &[ArmPhases]) -> Section {
    let of = |arm: &Arm, c: Condition| {
        phases
            .iter()
            .find(|p| p.arm.condition == Some(c) && unconditioned(&p.arm) == *arm)
    };
    let mut arms: Vec<Arm> = Vec::new();
    for p in phases.iter().filter(|p| p.arm.condition.is_some()) {
        let arm = unconditioned(&p.arm);
        if !arms.contains(&arm) {
            arms.push(arm);
        }
    }
    let dashes = || ["–"; 4].map(String::from);
    let rows = arms
        .iter()
        .map(|arm| {
            let [ap, aw, ar, au] = of(arm, Condition::Attached).map_or_else(dashes, cells);
            let [dp, dw, dr, du] = of(arm, Condition::Detached).map_or_else(dashes, cells);
            Row {
                arm: arm.label(),
                cells: std::iter::once(Cell::text(arm.label()))
                    .chain([ap, dp, aw, dw, ar, dr, format!("{au} / {du}")].map(Cell::num))
                    .collect(),
                flags: vec![],
            }
        })
        .collect();
    Section {
        kind: SectionKind::Phases,
        title: Some("Where the time went, attached and detached: preparing, on the wire, reply"),
        columns: [
            "Body",
            "Preparing attached",
            "detached",
            "On the wire attached",
            "detached",
            "Reply attached",
            "detached",
            "± attached / detached",
        ]
        .map(String::from)
        .to_vec(),
        rows,
        footnotes: vec![WHAT],
    }
}

#[cfg(test)]
mod tests;
