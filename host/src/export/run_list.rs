//! `report --list`: one line per run as a table, or the runs' heads as JSON for scripts.

use super::human_bytes;
use crate::report::RunMeta;
use serde::Serialize;

/// The JSON listing: versioned like the reports, each run's head as the report has it.
#[derive(Serialize)]
struct RunList<'a> {
    schema_version: u32,
    runs: &'a [RunMeta],
}

pub fn json(runs: &[RunMeta]) -> String {
    let list = RunList {
        schema_version: super::json::SCHEMA_VERSION,
        runs,
    };
    serde_json::to_string_pretty(&list).expect("a run's head always serialises") + "\n"
}

/// One line per run, oldest first: id, start, browser, plan, status, observed.
pub fn table(runs: &[RunMeta]) -> String {
    let mut out = format!(
        "{:<22} {:<20} {:<28} {:<16} {:<12} {}\n",
        "Run", "Started (UTC)", "Browser", "Plan", "Status", "Observed"
    );
    for m in runs {
        let plan = m.plan.as_ref().map_or("–".into(), |p| {
            format!("{} × {}", human_bytes(p.size_bytes), p.minimum_reps())
        });
        let started = m.started_at.as_deref().unwrap_or("–");
        out += &format!(
            "{:<22} {:<20} {:<28} {:<16} {:<12} {}\n",
            m.run_id,
            started.get(..19).unwrap_or(started).replace('T', " "),
            super::words::browser(&m.env),
            plan,
            m.status,
            m.observed
        );
    }
    out
}
