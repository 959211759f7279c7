//! The terminal table: coloured on a tty, plain otherwise.

use super::{fmt_mbps, RunReport};
use console::{style, Style};

pub fn render(report: &RunReport, colour: bool) -> String {
    let paint = |s: String, st: Style| if colour { st.apply_to(s).to_string() } else { s };
    let m = &report.run;
    let observed_style = match m.observed.as_str() {
        "no" => Style::new().green(),
        "yes" => Style::new().red().bold(),
        _ => Style::new().yellow(),
    };
    let mut out = format!(
        "{} {} on {} · run {} · {} · observed: {}\n",
        m.browser,
        m.browser_version,
        m.os,
        m.run_id,
        m.status,
        paint(m.observed.clone(), observed_style)
    );
    if let Some(p) = &m.plan {
        out += &format!("{} per upload × {} reps, {} warm-up\n", human_bytes(p.size_bytes), p.reps, p.warmup);
    }
    let header = format!("{:<16} {:>3} {:>10} {:>17} {:>8}  {}", "Body", "n", "Median", "Min–max", "IQR", "Integrity");
    out += &paint(header, Style::new().bold());
    out += "\n";
    for a in &report.summary {
        let range = match (a.min_mbps, a.max_mbps) {
            (Some(_), Some(_)) => format!("{}–{}", fmt_mbps(a.min_mbps), fmt_mbps(a.max_mbps)),
            _ => "–".into(),
        };
        let verdict_style = if a.verdict == "intact" { Style::new().green() } else { Style::new().red() };
        out += &format!(
            "{:<16} {:>3} {:>10} {:>17} {:>8}  {}\n",
            a.body,
            a.n,
            fmt_mbps(a.median_mbps),
            range,
            fmt_mbps(a.iqr_mbps()),
            paint(a.verdict.clone(), verdict_style)
        );
    }
    out += &format!("{}\n", style("Throughput in Mbps (10^6 bits/s), intact uploads only.").dim().force_styling(colour));
    out
}

pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut v = n as f64;
    let mut unit = 0;
    while v >= 1024.0 && unit < UNITS.len() - 1 {
        v /= 1024.0;
        unit += 1;
    }
    if v.fract() == 0.0 { format!("{v} {}", UNITS[unit]) } else { format!("{v:.1} {}", UNITS[unit]) }
}
