//! CSV export: one row per sample, with the run's context on every row.

use super::Exporter;
use crate::report::across::RunsCompared;
use crate::report::{timing_disagrees, RunReport};

pub struct Csv;

impl Exporter for Csv {
    fn render(&self, runs: &[RunReport]) -> String {
        render(runs)
    }

    /// One row per arm and later run: both medians and the ratio with its interval.
    fn render_compared(&self, c: &RunsCompared, labels: &[String]) -> String {
        let mut out =
            "arm,baseline_run,run,baseline_median_mbps,median_mbps,ratio,ci_low,ci_high,verdict\n"
                .to_owned();
        let num = |v: Option<f64>| v.map(|x| x.to_string()).unwrap_or_default();
        for a in &c.arms {
            for (i, cmp) in a.versus_first.iter().enumerate() {
                let row = [
                    a.arm.clone(),
                    labels[0].clone(),
                    labels[i + 1].clone(),
                    num(a.medians[0]),
                    num(a.medians[i + 1]),
                    num(cmp.as_ref().map(|c| c.ratio)),
                    num(cmp.as_ref().and_then(|c| c.ci_low)),
                    num(cmp.as_ref().and_then(|c| c.ci_high)),
                    // The verdict as the JSON writes it ("not-resolved").
                    cmp.as_ref()
                        .and_then(|c| serde_json::to_value(c.verdict).ok())
                        .and_then(|v| v.as_str().map(str::to_owned))
                        .unwrap_or_default(),
                ];
                out += &row.iter().map(|f| field(f)).collect::<Vec<_>>().join(",");
                out.push('\n');
            }
        }
        out
    }
}

const COLUMNS: [&str; 23] = [
    "run_id",
    "browser",
    "browser_version",
    "os",
    "arm",
    "body",
    "condition",
    "rep",
    "status",
    "intact",
    "bytes_sent",
    "bytes_received",
    "sha256_sent",
    "sha256_received",
    "page_ms",
    "sink_ms",
    "mbps",
    "observed",
    "error",
    "sink_bound",
    "timing_disagrees",
    "transport",
    "protocol",
];

fn render(reports: &[RunReport]) -> String {
    let mut out = COLUMNS.join(",") + "\n";
    for r in reports {
        for s in &r.samples {
            let sink_bound = r
                .summary
                .iter()
                .any(|a| a.body == s.arm_label() && a.sink_bound);
            let opt = |v: Option<f64>| v.map(|x| x.to_string()).unwrap_or_default();
            let row = [
                s.run_id.clone(),
                r.run.browser.clone(),
                r.run.browser_version.clone(),
                r.run.os.clone(),
                s.arm_label(),
                s.body.clone(),
                s.condition().map(|c| c.as_str()).unwrap_or_default().into(),
                s.rep.to_string(),
                s.status.as_str().into(),
                s.intact.to_string(),
                s.bytes_sent.to_string(),
                s.bytes_received.map(|b| b.to_string()).unwrap_or_default(),
                s.sha256_sent.clone(),
                s.sha256_received.clone().unwrap_or_default(),
                opt(s.page_ms),
                opt(s.sink_ms),
                opt(s.mbps),
                s.observed.verdict().to_string(),
                s.error.clone().unwrap_or_default(),
                sink_bound.to_string(),
                timing_disagrees(s).to_string(),
                s.arm().travels_over().to_string(),
                s.protocol.clone().unwrap_or_default(),
            ];
            out += &row.iter().map(|f| field(f)).collect::<Vec<_>>().join(",");
            out.push('\n');
        }
    }
    out
}

/// RFC 4180 quoting: only when needed, doubling inner quotes.
fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn quoting() {
        assert_eq!(super::field("plain"), "plain");
        assert_eq!(super::field("a,b"), "\"a,b\"");
        assert_eq!(super::field("say \"hi\""), "\"say \"\"hi\"\"\"");
    }
}
