//! The HTML report's timeline drawings: a phase bar per arm (preparing, on the wire,
//! reply), one arrival chart per arm of its representative upload with the arm's other
//! uploads drawn faintly as the spread, and for the encrypted workload the whole
//! sequence of chunk PUTs on one time axis, serial above pipelined. Data-* attributes
//! let tests read the figures back.

use super::html::esc;
use crate::domain::arm::{ArmKind, Schedule};
use crate::domain::sample::Sample;
use crate::domain::timeline::Timeline;
use crate::report::phases::{self, ArmPhases};
use crate::report::RunReport;

const COLOURS: [(&str, &str); 3] = [
    ("preparing", "#e0a800"),
    ("wire", "#3a7ca5"),
    ("reply", "#7f8c8d"),
];

/// Everything the run's samples let it draw.
pub fn charts(r: &RunReport) -> String {
    let mut s = phase_bars(&r.phases);
    for a in &r.summary {
        if matches!(a.arm.kind, ArmKind::Encrypted { .. } | ArmKind::Download) {
            continue;
        }
        if let Some(rep) = phases::representative(&r.samples, &a.arm) {
            let others: Vec<&Sample> = r
                .samples
                .iter()
                .filter(|s| s.intact && s.is_of(&a.arm) && s.timeline.is_some())
                .collect();
            s += &arrival_chart(&a.arm.label(), rep, &others);
        }
    }
    s + &encrypted_sequences(r)
}

/// One stacked bar per arm, all on one scale.
fn phase_bars(arms: &[ArmPhases]) -> String {
    if arms.is_empty() {
        return String::new();
    }
    let (label_w, bar_w, row_h) = (170.0, 430.0, 22.0);
    let total = |p: &ArmPhases| p.median.preparing_ms + p.median.wire_ms + p.median.reply_ms;
    let top = arms.iter().map(total).fold(1e-9, f64::max);
    let height = arms.len() as f64 * row_h + 22.0;
    let mut s = format!(
        r#"<h3>Where the time went</h3><svg class="phases" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {} {height}" width="100%" role="img" aria-label="Median phases per arm">"#,
        label_w + bar_w + 90.0
    );
    for (i, p) in arms.iter().enumerate() {
        let y = i as f64 * row_h + 4.0;
        s += &format!(
            r#"<g class="phase-bar" data-arm="{}"><text x="0" y="{}" font-size="12">{}</text>"#,
            esc(&p.arm.label()),
            y + 12.0,
            esc(&super::phases::line_label(p))
        );
        let mut x = label_w;
        let m = &p.median;
        for ((name, colour), ms) in COLOURS.iter().zip([m.preparing_ms, m.wire_ms, m.reply_ms]) {
            let w = ms / top * bar_w;
            s += &format!(
                r#"<rect data-phase="{name}" data-ms="{ms:.3}" x="{x:.1}" y="{y}" width="{w:.1}" height="15" fill="{colour}"><title>{name} {ms:.1} ms</title></rect>"#
            );
            x += w;
        }
        s += &format!(
            r#"<text x="{:.1}" y="{}" font-size="11">{:.1} ms ±{:.1}</text></g>"#,
            x + 5.0,
            y + 12.0,
            total(p),
            m.uncertainty_ms
        );
    }
    s += &legend(label_w, height - 4.0);
    s + "</svg>"
}

fn legend(x: f64, y: f64) -> String {
    let words = [
        "preparing (fetch() → first byte at the sink)",
        "on the wire",
        "reply",
    ];
    let mut s = String::new();
    let mut at = x;
    for ((_, colour), w) in COLOURS.iter().zip(words) {
        s += &format!(
            r#"<rect x="{at:.1}" y="{}" width="9" height="9" fill="{colour}"/><text x="{:.1}" y="{y}" font-size="10">{w}</text>"#,
            y - 8.0,
            at + 12.0
        );
        at += 12.0 + w.len() as f64 * 5.2 + 12.0;
    }
    s
}

/// Where the sink's axis starts on the page's: the headers' estimated arrival, from the
/// phases; 0 when the upload has none (the chart is then on the sink's clock).
fn offset(s: &Sample) -> f64 {
    let first = s.timeline.as_ref().and_then(|t| t.first_byte_ms);
    match (phases::of_sample(s), first) {
        (Some(p), Some(f)) => p.preparing_ms - f,
        _ => 0.0,
    }
}

/// The cumulative-bytes step curve of `t`, shifted by `off` ms.
fn step_path(t: &Timeline, off: f64, x: &dyn Fn(f64) -> f64, y: &dyn Fn(f64) -> f64) -> String {
    let start = t.first_byte_ms.unwrap_or(0.0) + off;
    let mut d = format!("M{:.1},{:.1}", x(start), y(0.0));
    for (ms, bytes) in t.points.iter() {
        d += &format!("H{:.1}V{:.1}", x(ms + off), y(bytes as f64));
    }
    d
}

/// An arm's representative upload as bytes over time, with its phases shaded and its
/// stalls marked; the arm's other uploads drawn faintly (the spread).
fn arrival_chart(arm: &str, rep: &Sample, all: &[&Sample]) -> String {
    let Some(t) = rep.timeline.as_ref() else {
        return String::new();
    };
    let (left, w, h) = (60.0, 520.0, 120.0);
    let end = |s: &Sample| s.page_ms.unwrap_or(0.0).max(offset(s) + timeline_end(s));
    let span = all
        .iter()
        .map(|s| end(s))
        .fold(end(rep), f64::max)
        .max(1e-3);
    let top = all
        .iter()
        .filter_map(|s| s.timeline.as_ref().map(|t| t.bytes))
        .fold(t.bytes, u64::max)
        .max(1) as f64;
    let x = |ms: f64| left + ms / span * w;
    let y = |b: f64| 10.0 + h - b / top * h;
    let mut s = format!(
        r#"<h3>{} — rep {}, the arm's median upload</h3><svg class="timeline" data-arm="{}" data-rep="{}" data-points="{}" data-stalls="{}" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {} {}" width="100%" role="img" aria-label="Bytes at the sink over time">"#,
        esc(arm),
        rep.rep,
        esc(arm),
        rep.rep,
        t.points.len(),
        t.stall_count,
        left + w + 20.0,
        h + 40.0
    );
    s += &phase_bands(rep, &x, h);
    for other in all.iter().filter(|s| !std::ptr::eq(**s, rep)) {
        if let Some(ot) = &other.timeline {
            s += &format!(
                r##"<path class="spread" data-rep="{}" d="{}" fill="none" stroke="#b8c2cc" stroke-width="1"/>"##,
                other.rep,
                step_path(ot, offset(other), &x, &y)
            );
        }
    }
    let off = offset(rep);
    for st in &t.stalls {
        s += &format!(
            r##"<rect class="stall" data-ms="{}" x="{:.1}" y="10" width="{:.1}" height="{h}" fill="#c0392b" opacity=".15"><title>stall {} ms</title></rect>"##,
            st.ms,
            x(st.at_ms + off),
            (x(st.at_ms + off + st.ms) - x(st.at_ms + off)).max(1.0),
            st.ms
        );
    }
    s += &format!(
        r##"<path class="arrival" data-bytes="{}" d="{}" fill="none" stroke="#1b2733" stroke-width="1.8"/>"##,
        t.bytes,
        step_path(t, off, &x, &y)
    );
    s + &axes(left, w, h, span, top) + "</svg>"
}

fn timeline_end(s: &Sample) -> f64 {
    s.timeline
        .as_ref()
        .and_then(|t| t.last_byte_ms)
        .unwrap_or(0.0)
}

/// The representative's phases as bands behind its curve.
fn phase_bands(s: &Sample, x: &dyn Fn(f64) -> f64, h: f64) -> String {
    let Some(p) = phases::of_sample(s) else {
        return String::new();
    };
    let bounds = [
        0.0,
        p.preparing_ms,
        p.preparing_ms + p.wire_ms,
        p.preparing_ms + p.wire_ms + p.reply_ms,
    ];
    COLOURS
        .iter()
        .enumerate()
        .map(|(i, (name, colour))| {
            format!(
                r#"<rect class="band" data-phase="{name}" x="{:.1}" y="10" width="{:.1}" height="{h}" fill="{colour}" opacity=".12"/>"#,
                x(bounds[i]),
                (x(bounds[i + 1]) - x(bounds[i])).max(0.0)
            )
        })
        .collect()
}

fn axes(left: f64, w: f64, h: f64, span_ms: f64, top_bytes: f64) -> String {
    format!(
        r##"<g font-size="10" fill="#56636f"><line x1="{left}" x2="{}" y1="{}" y2="{}" stroke="#56636f"/><text x="{left}" y="{}">0</text><text x="{}" y="{}" text-anchor="end">{span_ms:.1} ms</text><text x="{}" y="18" text-anchor="end">{}</text></g>"##,
        left + w,
        h + 10.0,
        h + 10.0,
        h + 24.0,
        left + w,
        h + 24.0,
        left - 4.0,
        crate::export::units::human_bytes(top_bytes as u64)
    )
}

/// Per chunk size: the representative serial and pipelined uploads' chunk PUTs on one
/// axis, serial above pipelined: the gaps encryption leaves and what pipelining buys.
fn encrypted_sequences(r: &RunReport) -> String {
    let mut sizes: Vec<u64> = Vec::new();
    for a in &r.summary {
        if let ArmKind::Encrypted { chunk_bytes, .. } = a.arm.kind {
            if !sizes.contains(&chunk_bytes) {
                sizes.push(chunk_bytes);
            }
        }
    }
    sizes
        .into_iter()
        .filter_map(|size| {
            let lane = |schedule: Schedule| {
                let arm = r.summary.iter().find(|a| {
                    a.arm.kind
                        == ArmKind::Encrypted {
                            chunk_bytes: size,
                            schedule,
                        }
                })?;
                Some((
                    arm.arm.label(),
                    phases::representative(&r.samples, &arm.arm)?,
                ))
            };
            let lanes: Vec<_> = [Schedule::Serial, Schedule::Pipelined]
                .into_iter()
                .filter_map(lane)
                .collect();
            (!lanes.is_empty()).then(|| sequence_chart(size, &lanes))
        })
        .collect()
}

fn sequence_chart(size: u64, lanes: &[(String, &Sample)]) -> String {
    let (left, w, lane_h) = (180.0, 440.0, 46.0);
    let span = lanes
        .iter()
        .filter_map(|(_, s)| s.timeline.as_ref()?.last_byte_ms)
        .fold(1e-3, f64::max);
    let x = |ms: f64| left + ms / span * w;
    let height = lanes.len() as f64 * lane_h + 40.0;
    let mut s = format!(
        r#"<h3>Encrypted {} chunks: every PUT on one time axis, serial above pipelined</h3><svg class="sequence" data-chunk-bytes="{size}" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {} {height}" width="100%" role="img" aria-label="Chunk PUTs over time">"#,
        crate::export::units::human_bytes(size),
        left + w + 20.0
    );
    for (i, (label, sample)) in lanes.iter().enumerate() {
        let Some(t) = sample.timeline.as_ref() else {
            continue;
        };
        s += &sequence_lane(label, t, i as f64 * lane_h + 4.0, &x);
    }
    s += &format!(
        r##"<g font-size="10" fill="#56636f"><text x="{left}" y="{}">0</text><text x="{}" y="{}" text-anchor="end">{span:.1} ms on the sink's clock</text><text x="0" y="{}">grey: a request's headers in, its body not yet; blue: its bytes arriving; red: nothing arriving</text></g>"##,
        height - 20.0,
        left + w,
        height - 20.0,
        height - 5.0
    );
    s + "</svg>"
}

fn sequence_lane(label: &str, t: &Timeline, y: f64, x: &dyn Fn(f64) -> f64) -> String {
    let mut s = format!(
        r#"<g class="lane" data-arm="{}" data-requests="{}" data-stalls="{}" data-stalled-ms="{}"><text x="0" y="{}" font-size="12">{}</text>"#,
        esc(label),
        t.requests.len(),
        t.stall_count,
        t.stalled_ms,
        y + 20.0,
        esc(label)
    );
    for st in &t.stalls {
        s += &format!(
            r##"<rect class="gap" x="{:.1}" y="{y}" width="{:.1}" height="30" fill="#c0392b" opacity=".18"/>"##,
            x(st.at_ms),
            (x(st.at_ms + st.ms) - x(st.at_ms)).max(0.5)
        );
    }
    for r in &t.requests {
        let (first, last) = (
            r.first_byte_ms.unwrap_or(r.arrived_ms),
            r.last_byte_ms.unwrap_or(r.arrived_ms),
        );
        s += &format!(
            r##"<rect class="waiting" x="{:.1}" y="{}" width="{:.1}" height="14" fill="#b8c2cc"/><rect class="put" x="{:.1}" y="{y}" width="{:.1}" height="30" fill="#3a7ca5"/>"##,
            x(r.arrived_ms),
            y + 8.0,
            (x(first) - x(r.arrived_ms)).max(0.0),
            x(first),
            (x(last) - x(first)).max(0.8)
        );
    }
    s + "</g>"
}
