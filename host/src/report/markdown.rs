//! Markdown export: one table per run, ready to paste into an issue.

use super::{fmt_mbps, RunReport};

pub fn render(reports: &[RunReport]) -> String {
    let mut out = String::new();
    for r in reports {
        let m = &r.run;
        out += &format!(
            "### {} {} on {} — run `{}`\n\nobserved: **{}** · status: {}\n\n",
            m.browser, m.browser_version, m.os, m.run_id, m.observed, m.status
        );
        out += "| Body | n | Median Mbps | Min–max Mbps | IQR | Integrity |\n|---|---:|---:|---:|---:|---|\n";
        for a in &r.summary {
            out += &format!(
                "| {} | {} | {} | {}–{} | {} | {} |\n",
                a.body, a.n, fmt_mbps(a.median_mbps), fmt_mbps(a.min_mbps), fmt_mbps(a.max_mbps),
                fmt_mbps(a.iqr_mbps()), a.verdict.replace('|', "\\|")
            );
        }
        out.push('\n');
    }
    out
}
