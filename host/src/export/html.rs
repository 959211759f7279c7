//! One self-contained HTML file: an SVG chart per run (median bars, min–max whiskers,
//! the sink's ceiling as a line), badges, the table, and the environment. No scripts,
//! no external assets. Numbers carry data-* attributes so tests can read them back.

use super::compared;
use super::document::{self, Cell, ChartBar, RunDocument, Section, Tone};
use super::words::{self, mbps as fmt_mbps};
use super::Exporter;
use crate::domain::sample::Observed;
use crate::report::across::RunsCompared;
use crate::report::chart_scale::{self, ChartScale};
use crate::report::RunReport;

pub(super) fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

pub struct Html;

impl Exporter for Html {
    fn render(&self, runs: &[RunReport]) -> String {
        let body: String = runs
            .iter()
            .map(|r| run_section(&document::of(r), &super::timeline_svg::charts(r)))
            .collect();
        page(&body)
    }

    fn render_compared(&self, compared: &RunsCompared, labels: &[String]) -> String {
        let d = compared::of(compared, labels);
        let mut body = format!(r#"<section class="compared"><h2>{}</h2>"#, esc(&d.title));
        body += &grouped_bars(compared, labels);
        body += &table(&d.section);
        for line in &d.lines {
            body += &format!(r#"<p class="note">{}</p>"#, esc(line));
        }
        body += "</section>";
        page(&body)
    }
}

/// The whole self-contained page around `body`.
fn page(body: &str) -> String {
    format!(
        r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Unobserved report</title>
<style>
body {{ font: 14px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 60rem; color: #1b2733; padding: 0 1rem; }}
h1 {{ font-size: 1.4rem; }} h2 {{ font-size: 1.1rem; margin-top: 2.5rem; }}
.badge {{ display: inline-block; padding: 0 .5rem; border-radius: .6rem; font-size: .8rem; font-weight: 600; margin-right: .3rem; }}
.good {{ background: #dff3e4; color: #1e7b34; }} .bad {{ background: #fde2de; color: #c0392b; }} .warn {{ background: #fff1c2; color: #8a6d00; }}
table {{ border-collapse: collapse; width: 100%; margin: .5rem 0; }}
th, td {{ text-align: left; padding: .25rem .5rem; border-bottom: 1px solid #e3e7eb; }}
td.num {{ text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }}
dl {{ display: grid; grid-template-columns: max-content 1fr; gap: .1rem 1rem; }} dt {{ color: #56636f; }}
.warning {{ background: #fff8e1; border-left: 3px solid #e0a800; padding: .4rem .7rem; }}
</style></head>
<body><h1>Unobserved report</h1>
<p>Upload throughput measured in the browser with nothing attached; every byte verified by SHA-256 at the sink. Mbps = 10<sup>6</sup> bits/s over intact uploads.</p>
{body}</body></html>
"#
    )
}

fn badge(class: &str, text: &str) -> String {
    format!(r#"<span class="badge {class}">{}</span>"#, esc(text))
}

fn tone_class(tone: Tone) -> &'static str {
    match tone {
        Tone::Plain => "",
        Tone::Good => "good",
        Tone::Bad => "bad",
        Tone::Warn => "warn",
    }
}

fn cell(c: &Cell) -> String {
    let class = if c.numeric { "num" } else { "" };
    let text = match c.tone {
        Tone::Plain => esc(&c.text),
        tone => badge(tone_class(tone), &c.text),
    };
    format!(r#"<td class="{class}">{text}</td>"#)
}

/// `timelines`: the run's phase bars and arrival charts (`timeline_svg.rs`).
fn run_section(d: &RunDocument, timelines: &str) -> String {
    let mut s = format!(
        r#"<section class="run" data-run-id="{}"><h2>{}</h2><p>"#,
        esc(&d.run_id),
        esc(&d.title)
    );
    s += &match d.observed {
        Observed::No => badge("good", "unobserved"),
        Observed::Yes => badge("bad", "observed"),
        Observed::Unknown => badge("warn", "observation unknown"),
    };
    s += &badge(tone_class(d.status.tone), &d.status.text);
    for b in &d.badges {
        s += &badge(tone_class(b.tone), &b.text);
    }
    s += "</p>";
    if let Some(plan) = &d.plan {
        s += &format!("<p>{}</p>", esc(plan));
    }
    s += &chart(&d.chart, &d.chart_scale);
    s += timelines;
    for section in &d.sections {
        s += &table(section);
    }
    for n in &d.notes {
        s += &format!(r#"<p class="note">{}</p>"#, esc(n));
    }
    for w in &d.warnings {
        s += &format!(r#"<p class="warning">{}</p>"#, esc(w));
    }
    s += "<dl>";
    for (k, v) in &d.environment {
        s += &format!("<dt>{k}</dt><dd>{}</dd>", esc(v));
    }
    s += "</dl></section>";
    s
}

fn table(section: &Section) -> String {
    let mut s = String::new();
    if let Some(title) = section.title {
        s += &format!("<h3>{}</h3>", esc(title));
    }
    s += "<table><thead><tr>";
    for c in &section.columns {
        s += &format!("<th>{}</th>", esc(c));
    }
    s += "</tr></thead><tbody>";
    for row in &section.rows {
        s += &format!(r#"<tr data-body="{}">"#, esc(&row.arm));
        let last = row.cells.len() - 1;
        for (i, c) in row.cells.iter().enumerate() {
            let mut td = cell(c);
            if i == last {
                let flags: String = row.flags.iter().map(|f| badge("warn", f)).collect();
                td = td.replace("</td>", &format!("{flags}</td>"));
            }
            s += &td;
        }
        s += "</tr>";
    }
    s += "</tbody></table>";
    for f in &section.footnotes {
        s += &format!(r#"<p class="note">{}</p>"#, esc(f));
    }
    s
}

/// Median bars with min–max whiskers, scaled to the arms (`report::chart_scale`): the
/// longest bar fills the chart. Each arm's own sink ceiling is marked on its row
/// (arms over h2 upload to another sink than arms over h1), at the right edge when it
/// is off the scale; a whisker reaching past the edge is cut there.
fn chart(bars: &[ChartBar], scale: &ChartScale) -> String {
    let (label_w, bar_w, row_h) = (130.0, 460.0, 28.0);
    let top = scale.top_mbps;
    let x = |v: f64| label_w + (v / top).min(1.0) * bar_w;
    let height = bars.len() as f64 * row_h + 24.0;
    let mut s = format!(
        r#"<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {} {height}" width="100%" role="img" aria-label="Median Mbps per body kind" data-top="{top:.3}" data-bar-width="{bar_w}">"#,
        label_w + bar_w + 110.0
    );
    for (i, b) in bars.iter().enumerate() {
        s += &chart_row(b, i as f64 * row_h + 6.0, label_w, top, &x);
    }
    if let Some(legend) = &scale.legend {
        s += &format!(
            r##"<text class="legend" x="{label_w}" y="{}" font-size="11" fill="#8a6d00">{}</text>"##,
            height - 2.0,
            esc(&words::legend(legend))
        );
    }
    s + "</svg>"
}

fn chart_row(b: &ChartBar, y: f64, label_w: f64, top: f64, x: &dyn Fn(f64) -> f64) -> String {
    let mut s = format!(
        r#"<text x="0" y="{}" font-size="12">{}</text>"#,
        y + 13.0,
        esc(&b.arm)
    );
    let median = b.median_mbps.unwrap_or(0.0);
    let fill = if b.intact { "#3a7ca5" } else { "#c0392b" };
    s += &format!(
        r#"<rect class="bar" data-body="{}" data-median="{}" x="{label_w}" y="{y}" width="{:.1}" height="16" fill="{fill}"/>"#,
        esc(&b.arm),
        b.median_mbps.map(|m| format!("{m:.3}")).unwrap_or_default(),
        (x(median) - label_w).max(1.0)
    );
    if let Some((lo, hi)) = b.range_mbps {
        s += &whisker(lo, hi, y + 8.0, hi > top, x);
    }
    if let Some(c) = b.ceiling_mbps {
        s += &ceiling_mark(c, y, top, x);
    }
    let label = b
        .median_mbps
        .map(|m| format!("{} Mbps", fmt_mbps(Some(m))))
        .unwrap_or_else(|| b.integrity.into());
    // Right of the bar, its whisker and its ceiling mark, so nothing is drawn over it.
    let right = [b.range_mbps.map(|r| r.1), b.ceiling_mbps]
        .into_iter()
        .flatten()
        .fold(median, f64::max);
    // Clear of an off-scale ceiling's arrowhead (7 px past the edge) too.
    let gap = if b
        .ceiling_mbps
        .is_some_and(|c| !chart_scale::on_scale(c, top))
    {
        12.0
    } else {
        6.0
    };
    s + &format!(
        r#"<text x="{:.1}" y="{}" font-size="12">{}</text>"#,
        x(right) + gap,
        y + 13.0,
        esc(&label)
    )
}

/// The min–max line; a maximum past the edge gets no end tick there (it goes on).
fn whisker(lo: f64, hi: f64, wy: f64, cut: bool, x: &dyn Fn(f64) -> f64) -> String {
    let (l, h) = (x(lo), x(hi));
    let tick = |at: f64| {
        format!(
            r#"<line x1="{at:.1}" x2="{at:.1}" y1="{}" y2="{}"/>"#,
            wy - 5.0,
            wy + 5.0
        )
    };
    format!(
        r##"<g class="whisker" data-min="{lo:.3}" data-max="{hi:.3}" data-cut="{cut}" stroke="#1b2733"><line x1="{l:.1}" x2="{h:.1}" y1="{wy}" y2="{wy}"/>{}{}</g>"##,
        tick(l),
        if cut { String::new() } else { tick(h) }
    )
}

/// The arm's sink ceiling: a dashed line where it is, or an arrowhead at the edge
/// pointing past it (the legend gives the figure).
fn ceiling_mark(c: f64, y: f64, top: f64, x: &dyn Fn(f64) -> f64) -> String {
    let cx = x(c);
    let title = format!("<title>sink ceiling {c:.0} Mbps</title>");
    if chart_scale::on_scale(c, top) {
        return format!(
            r##"<g class="ceiling" data-ceiling="{c:.3}">{title}<line x1="{cx:.1}" x2="{cx:.1}" y1="{}" y2="{}" stroke="#e0a800" stroke-dasharray="4 3" stroke-width="2"/></g>"##,
            y - 4.0,
            y + 20.0
        );
    }
    format!(
        r##"<g class="ceiling off-scale" data-ceiling="{c:.3}" data-edge="{cx:.1}">{title}<polygon points="{cx:.1},{} {:.1},{} {cx:.1},{}" fill="#e0a800"/></g>"##,
        y + 2.0,
        cx + 7.0,
        y + 8.0,
        y + 14.0
    )
}

/// Grouped bars: per arm, one bar per run (the first run's colour first), each with its
/// median; a run without intact samples of the arm gets no bar.
fn grouped_bars(c: &RunsCompared, labels: &[String]) -> String {
    const COLOURS: [&str; 4] = ["#3a7ca5", "#e07a2f", "#4f9d69", "#8e5ea2"];
    let (label_w, bar_w, bar_h) = (150.0, 420.0, 14.0);
    let group_h = bar_h * labels.len() as f64 + 10.0;
    let top = c
        .arms
        .iter()
        .flat_map(|a| a.medians.iter().flatten())
        .fold(1.0_f64, |m, v| m.max(*v));
    let legend_h = 18.0;
    let height = c.arms.len() as f64 * group_h + legend_h + 4.0;
    let mut s = format!(
        r#"<svg class="grouped" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {} {height}" width="100%" role="img" aria-label="Median Mbps per arm and run">"#,
        label_w + bar_w + 90.0
    );
    for (i, l) in labels.iter().enumerate() {
        let x = label_w + i as f64 * 160.0;
        s += &format!(
            r#"<rect x="{x}" y="2" width="10" height="10" fill="{}"/><text x="{}" y="11" font-size="11">{}</text>"#,
            COLOURS[i % COLOURS.len()],
            x + 14.0,
            esc(l)
        );
    }
    for (g, a) in c.arms.iter().enumerate() {
        let y0 = legend_h + g as f64 * group_h;
        s += &format!(
            r#"<text x="0" y="{}" font-size="12">{}</text>"#,
            y0 + group_h / 2.0 + 4.0,
            esc(&a.arm.label())
        );
        for (i, m) in a.medians.iter().enumerate() {
            let Some(v) = m else { continue };
            let y = y0 + i as f64 * bar_h;
            let w = (v / top * bar_w).max(1.0);
            s += &format!(
                r#"<rect class="bar" data-arm="{}" data-run="{}" data-median="{v:.3}" x="{label_w}" y="{y}" width="{w:.1}" height="{}" fill="{}"/><text x="{:.1}" y="{}" font-size="10">{} Mbps</text>"#,
                esc(&a.arm.label()),
                esc(&labels[i]),
                bar_h - 2.0,
                COLOURS[i % COLOURS.len()],
                label_w + w + 4.0,
                y + bar_h - 4.0,
                fmt_mbps(Some(*v))
            );
        }
    }
    s + "</svg>"
}
