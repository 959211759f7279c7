//! The terminal table: coloured on a tty, plain otherwise.

use super::{fmt_mbps, fmt_range, ratio_cell, RunReport};
use crate::model::Observed;
use console::Style;

pub fn render(report: &RunReport, colour: bool) -> String {
    let paint = |s: String, st: Style| {
        if colour {
            st.apply_to(s).to_string()
        } else {
            s
        }
    };
    let m = &report.run;
    let observed_style = match m.observed {
        Observed::No => Style::new().green(),
        Observed::Yes => Style::new().red().bold(),
        Observed::Unknown => Style::new().yellow(),
    };
    let mut out = format!(
        "{} {} on {} · run {} · {}{} · observed: {}\n",
        m.browser,
        m.browser_version,
        m.os,
        m.run_id,
        m.status,
        m.reason
            .as_deref()
            .map(|r| format!(" ({r})"))
            .unwrap_or_default(),
        paint(m.observed.to_string(), observed_style)
    );
    if let Some(p) = &m.plan {
        // With --auto the plan's reps are where it started; say how many it took.
        let reps = match p.auto {
            Some(_) => {
                let done = report.summary.iter().map(|a| a.n).max().unwrap_or(0);
                format!("{done} reps (--auto from {})", p.reps)
            }
            None => format!("{} reps", p.reps),
        };
        out += &format!(
            "{} per upload × {reps}, {} warm-up",
            human_bytes(p.size_bytes),
            p.warmup
        );
        if let Some(c) = m.sink_ceiling_mbps {
            out += &format!(" · sink ceiling {c:.0} Mbps");
            if let Some((lo, hi)) = m.sink_ceiling_range {
                out += &format!(" ({lo:.0}–{hi:.0})");
            }
            if let Some(h) = m.sink_hash_mbps {
                out += &format!(", hashing {h:.0} Mbps");
            }
        }
        out += "\n";
    }
    let baselines: Vec<&str> = report
        .comparisons
        .iter()
        .map(|c| c.baseline.as_str())
        .collect();
    let baseline = baselines.first().map(|b| b.to_string()).unwrap_or_default();
    let single = baselines.iter().all(|b| *b == baseline);
    let vs = if baseline.is_empty() {
        "–".to_owned()
    } else if single {
        format!("vs {baseline}")
    } else {
        "vs baseline".to_owned()
    };
    let w = report
        .summary
        .iter()
        .map(|a| a.body.chars().count())
        .max()
        .unwrap_or(4)
        .max(14);
    let header = format!(
        "{:<w$} {:>3} {:>7} {:>11} {:>6}  {:<28} {}",
        "Body", "n", "Median", "Min–max", "IQR", vs, "Integrity"
    );
    out += &paint(header, Style::new().bold());
    out += "\n";
    for a in &report.summary {
        let range = fmt_range(a);
        let comparison = ratio_cell(report, &a.body, false);
        let verdict_style = if a.integrity.is_intact() {
            Style::new().green()
        } else {
            Style::new().red()
        };
        let mut verdict = paint(a.integrity.to_string(), verdict_style);
        if a.sink_bound {
            verdict += &paint(" [sink-bound]".into(), Style::new().yellow().bold());
        }
        out += &format!(
            "{:<w$} {:>3} {:>7} {:>11} {:>6}  {:<28} {}\n",
            a.body,
            a.n,
            fmt_mbps(a.median_mbps),
            range,
            fmt_mbps(a.iqr_mbps()),
            comparison,
            verdict
        );
    }
    out += &paint(
        "Mbps (10^6 bits/s) over intact uploads; [95% interval] of the ratio (Hodges–Lehmann, exact Mann–Whitney)."
            .into(),
        Style::new().dim(),
    );
    out += "\n";
    if !single && !baseline.is_empty() {
        out += &paint("Baselines: body kinds vs Uint8Array, pipelined vs serial at the same chunk size, parallel xN vs x1.\n".into(), Style::new().dim());
    }
    if !report.encrypted.is_empty() {
        out += &paint(
            "\nEncrypted chunked upload (AES-256-GCM, every tag verified at the sink)\n".into(),
            Style::new().bold(),
        );
        out += &format!(
            "{:<w$} {:>7} {:>10} {:>9} {:>10}  {}\n",
            "Arm",
            "Mbps",
            "client ms",
            "PUT ms",
            "bad tags",
            "most pipelining can save (client / PUT)"
        );
        for e in &report.encrypted {
            let f = |v: Option<f64>| v.map(|x| format!("{x:.0}")).unwrap_or_else(|| "–".into());
            out += &format!(
                "{:<w$} {:>7} {:>10} {:>9} {:>10}  {}\n",
                e.arm,
                fmt_mbps(e.median_mbps),
                f(e.client_ms),
                f(e.put_ms),
                e.chunks_with_bad_tags,
                e.pipelining_ceiling
                    .map(|c| format!("{:.0}%", c * 100.0))
                    .unwrap_or_else(|| "–".into())
            );
        }
    }
    if !report.control.is_empty() {
        out += &paint("\nPositive control: the same uploads with a debugger attached (Network domain on) and detached\n".into(), Style::new().bold());
        out += &format!(
            "{:<w$} {:>10} {:>10}  {}\n",
            "Body", "Attached", "Detached", "Slowdown (detached / attached) [95% CI]"
        );
        for c in &report.control {
            let slow = c.slowdown_text();
            out += &format!(
                "{:<w$} {:>10} {:>10}  {slow}\n",
                c.body,
                fmt_mbps(c.attached_median_mbps),
                fmt_mbps(c.detached_median_mbps)
            );
        }
    }
    for n in &report.notes {
        out += &format!("note: {n}\n");
    }
    for w in &report.warnings {
        out += &paint(format!("warning: {w}\n"), Style::new().yellow());
    }
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
    if v.fract() == 0.0 {
        format!("{v} {}", UNITS[unit])
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}
