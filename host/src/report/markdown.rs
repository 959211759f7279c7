//! Markdown export: one table per run, ready to paste into an issue.

use super::{fmt_mbps, fmt_range, ratio_cell, RunReport};

pub fn render(reports: &[RunReport]) -> String {
    let mut out = String::new();
    for r in reports {
        let m = &r.run;
        out += &format!(
            "### {} {} on {} — run `{}`\n\nobserved: **{}** · status: {}{}\n\n",
            m.browser,
            m.browser_version,
            m.os,
            m.run_id,
            m.observed,
            m.status,
            m.sink_ceiling_mbps
                .map(|c| format!(" · sink ceiling {c:.0} Mbps"))
                .unwrap_or_default()
        );
        out += "| Body | n | Median Mbps | Min–max Mbps | IQR | Ratio [95% CI] | Integrity |\n|---|---:|---:|---:|---:|---|---|\n";
        for a in &r.summary {
            out += &format!(
                "| {} | {} | {} | {} | {} | {} | {}{} |\n",
                a.body,
                a.n,
                fmt_mbps(a.median_mbps),
                fmt_range(a),
                fmt_mbps(a.iqr_mbps()),
                ratio_cell(r, &a.body, true),
                a.integrity.to_string().replace('|', "\\|"),
                if a.sink_bound { " **sink-bound**" } else { "" }
            );
        }
        for n in &r.notes {
            out += &format!("\n> **Note:** {n}\n");
        }
        for w in &r.warnings {
            out += &format!("\n> **Warning:** {w}\n");
        }
        out.push('\n');
    }
    out
}
