//! What every format shows of a comparison between runs (`unobserved compare`, the
//! browser matrix): one row per arm with each run's median and each later run's ratio
//! to the first with its verdict, then the arms only some runs have and what else
//! differs between the runs.

use super::document::{Cell, Row, Section, SectionKind, Tone};
use super::words::{integrity_word, mbps as fmt_mbps};
use crate::report::across::{ArmAcross, Fact, FactValue, RunsCompared};
use crate::report::RunReport;
use crate::stats::across_runs::{Across, Method};
use crate::stats::compare::Verdict;

pub struct ComparedDocument {
    pub title: String,
    pub section: Section,
    /// "only in A: Blob", "differs: browser: …".
    pub lines: Vec<String>,
}

/// The browser matrix's name of each run: its browser and version ("Chromium 156").
pub fn browser_labels(reports: &[RunReport]) -> Vec<String> {
    reports
        .iter()
        .map(|r| super::words::browser(&r.run.env))
        .collect()
}

/// `labels` name the runs in `compared.runs` order (run ids, or browser names).
pub fn of(c: &RunsCompared, labels: &[String]) -> ComparedDocument {
    let mut columns = vec!["Arm".to_owned()];
    for (i, l) in labels.iter().enumerate() {
        columns.push(l.clone());
        if i > 0 {
            columns.push(format!("vs {}", labels[0]));
        }
    }
    ComparedDocument {
        title: format!("{} compared with {}", labels[1..].join(", "), labels[0]),
        section: Section {
            kind: SectionKind::Compared,
            title: None,
            columns,
            rows: c.arms.iter().map(row).collect(),
            footnotes: vec!["Mbps medians of intact uploads; ratio of the medians to the first with its [95% interval], made as the lines below say."],
        },
        lines: lines(c),
    }
}

/// One arm: each run's median, and each later run's ratio to the first.
fn row(a: &ArmAcross) -> Row {
    let mut cells = vec![Cell::text(a.arm.label())];
    for (i, m) in a.medians.iter().enumerate() {
        cells.push(match m {
            Some(v) => Cell::num(fmt_mbps(Some(*v))),
            None => Cell::toned(
                a.integrity[i].as_ref().map_or("–", integrity_word),
                Tone::Bad,
            ),
        });
        if i > 0 {
            cells.push(versus_cell(a.versus_first[i - 1].as_ref()));
        }
    }
    Row {
        arm: a.arm.label(),
        cells,
        flags: vec![],
    }
}

fn versus_cell(versus: Option<&Across>) -> Cell {
    match versus.map(|x| &x.comparison) {
        Some(cmp) => Cell::toned(
            super::words::comparison(cmp),
            match cmp.verdict {
                Verdict::Slower => Tone::Bad,
                Verdict::Faster => Tone::Good,
                Verdict::Depends => Tone::Warn,
                Verdict::Same | Verdict::NotResolved | Verdict::NotComparable => Tone::Plain,
            },
        ),
        None => Cell::text("– (too few samples)"),
    }
}

/// The lines under the table: the machine check, the methods, the unmatched arms and
/// what else differs.
fn lines(c: &RunsCompared) -> Vec<String> {
    let mut lines: Vec<String> = vec![c.machine.to_string()];
    lines.extend(methods(c));
    lines.extend(
        c.unmatched
            .iter()
            .map(|u| format!("only in {}: {}", u.runs.join(", "), u.arm.label())),
    );
    lines.extend(c.differences.iter().map(|d| {
        let values: Vec<String> = d.values.iter().map(fact_value).collect();
        format!("differs: {}: {}", fact_word(d.what), values.join(" | "))
    }));
    lines
}

/// How the intervals were made, once per method used (`stats::across_runs`).
fn methods(c: &RunsCompared) -> Vec<String> {
    let mut seen: Vec<Method> = Vec::new();
    for m in c
        .arms
        .iter()
        .flat_map(|a| a.versus_first.iter().flatten().map(|x| x.method))
    {
        if !seen.contains(&m) {
            seen.push(m);
        }
    }
    seen.into_iter()
        .map(|m| match m {
            Method::Interleaved => "interleaved: the builds took turns rep by rep, so the intervals are as within a run".to_owned(),
            Method::DriftAllowance { allowance } => format!(
                "one run a side: each interval is widened by ±{:.1}% for run-to-run drift, so it cannot say \"same\"; give several runs a side (compare A1,A2,A3 B1,B2,B3) or interleave the builds in one run (run --browser-path A --browser-path B)",
                allowance * 100.0
            ),
            Method::Clusters { runs, baseline_runs } => format!(
                "{runs} runs against {baseline_runs}: each run is one figure (its log median), and the interval is Welch's t on those (each side's own spread; pooled when a side has one run), run-to-run spread included"
            ),
        })
        .collect()
}

fn fact_word(what: Fact) -> &'static str {
    match what {
        Fact::Browser => "browser",
        Fact::Os => "OS",
        Fact::Cpu => "CPU",
        Fact::BodySize => "body size",
        Fact::Reps => "reps",
        Fact::Observed => "observed",
    }
}

fn fact_value(v: &FactValue) -> String {
    match v {
        FactValue::Text(text) => text.clone(),
        FactValue::Bytes(n) => super::units::human_bytes(*n),
        FactValue::Count(n) => n.to_string(),
        FactValue::Observed(o) => o.to_string(),
        FactValue::Missing => String::new(),
    }
}
