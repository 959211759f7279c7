//! The link's own ceiling beside the arms (`report::link`), as the summary shows it: a
//! column with each arm's median as a share of what the link carried, and a row for
//! the host's own client before the arms and one after, in the arms' columns.

use super::document::{Cell, Row};
use super::words;
use crate::domain::arm::Transport;
use crate::domain::ceiling::TransportCeiling;
use crate::report::RunReport;
use crate::stats::ArmSummary;

/// The column's heading: "Of ceiling" (the sink's, or across a real link the link's).
pub const COLUMN: &str = "Of ceiling";

/// "link ceiling" across a real link (the host's own client measured the link), else
/// "sink ceiling".
pub fn what(r: &RunReport) -> &'static str {
    if r.run.is_remote() {
        "link ceiling"
    } else {
        "sink ceiling"
    }
}

/// The summary has the column when any arm has a share.
pub fn shown(r: &RunReport) -> bool {
    r.summary.iter().any(|a| a.ceiling_share.is_some())
}

/// "76%", or a dash where the arm has no share (a workload, no intact upload).
pub fn share_cell(a: &ArmSummary) -> Cell {
    Cell::num(words::share(a.ceiling_share))
}

/// The ceiling rows, before and after, of each transport the arms uploaded over, with
/// the summary's columns: name, n, median, min–max, IQR, share, then a dash for each
/// column after.
pub fn rows(r: &RunReport, columns: usize) -> Vec<Row> {
    let mut transports: Vec<Transport> = Vec::new();
    for t in r.summary.iter().map(|a| a.arm.travels_over()) {
        if !transports.contains(&t) {
            transports.push(t);
        }
    }
    let named = r.summary.iter().any(|a| a.arm.transport.is_some());
    let what = what(r);
    let mut rows = Vec::new();
    for t in transports {
        let Some(link) = r.run.link(t) else { continue };
        let carried = link.carried_mbps();
        let name = |when: &str| match named {
            true => format!("{what} {t}, {when} (host's client)"),
            false => format!("{what}, {when} (host's client)"),
        };
        for (when, ceiling) in [("before", link.before), ("after", link.after)] {
            if let Some(c) = ceiling {
                rows.push(row(name(when), c, carried, columns));
            }
        }
    }
    rows
}

fn row(name: String, c: TransportCeiling, carried: Option<f64>, columns: usize) -> Row {
    let (lo, hi) = c.receive_range;
    let share = carried.filter(|&x| x > 0.0).map(|x| c.receive_mbps / x);
    let mut cells = vec![
        Cell::text(&name),
        Cell::num(crate::sink::ceiling::ROUNDS.to_string()),
        Cell::num(words::mbps(Some(c.receive_mbps))),
        Cell::num(words::range(Some(lo), Some(hi))),
        Cell::num("–"),
        Cell::num(words::share(share)),
    ];
    cells.resize(columns, Cell::text("–"));
    Row {
        arm: name,
        cells,
        flags: vec![],
    }
}
