//! Markdown: one heading and pipe tables per run, ready to paste into an issue.

use super::compared;
use super::document::{self, RunDocument, Section};
use super::Exporter;
use crate::report::across::RunsCompared;
use crate::report::RunReport;

pub struct Markdown;

impl Exporter for Markdown {
    fn render(&self, runs: &[RunReport]) -> String {
        runs.iter().map(|r| run(&document::of(r))).collect()
    }

    fn render_compared(&self, compared: &RunsCompared, labels: &[String]) -> String {
        let d = compared::of(compared, labels);
        let mut out = format!("### {}\n\n", d.title);
        out += &section(&d.section);
        for line in &d.lines {
            out += &format!("- {}\n", cell(line));
        }
        out
    }
}

/// A table cell: pipes escaped, line breaks folded.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

fn run(d: &RunDocument) -> String {
    let mut out = format!(
        "### {} — run `{}`\n\nobserved: **{}** · status: {}\n\n",
        d.title, d.run_id, d.observed, d.status.text
    );
    if let Some(plan) = &d.plan {
        out += &format!("{plan}\n\n");
    }
    for s in &d.sections {
        out += &section(s);
    }
    for n in &d.notes {
        out += &format!("> **Note:** {n}\n\n");
    }
    for w in &d.warnings {
        out += &format!("> **Warning:** {w}\n\n");
    }
    out += "| Environment | |\n|---|---|\n";
    for (k, v) in &d.environment {
        out += &format!("| {k} | {} |\n", cell(v));
    }
    out.push('\n');
    out
}

fn section(s: &Section) -> String {
    let mut out = String::new();
    if let Some(title) = s.title {
        out += &format!("#### {title}\n\n");
    }
    out += &format!("| {} |\n", s.columns.join(" | "));
    let align: Vec<&str> = (0..s.columns.len())
        .map(|i| if s.numeric_column(i) { "---:" } else { "---" })
        .collect();
    out += &format!("|{}|\n", align.join("|"));
    for row in &s.rows {
        let mut cells: Vec<String> = row.cells.iter().map(|c| cell(&c.text)).collect();
        if let Some(last) = cells.last_mut() {
            for flag in &row.flags {
                *last += &format!(" **{flag}**");
            }
        }
        out += &format!("| {} |\n", cells.join(" | "));
    }
    for f in &s.footnotes {
        out += &format!("\n{f}\n");
    }
    out.push('\n');
    out
}
