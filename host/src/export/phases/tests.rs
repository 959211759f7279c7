//! The phases and timelines in every format: the phase section in the table, Markdown
//! and HTML, phase columns in CSV, everything in JSON (schema-checked), and the HTML's
//! drawings of each arm's upload and of an encrypted upload's chunk PUTs.

use super::super::tests::{assert_same_content, assert_valid, report_of};
use super::super::{document::SectionKind, exporter, Format};
use crate::domain::page_timing::PageTiming;
use crate::domain::sample::Sample;
use crate::domain::timeline::Timeline;
use crate::report::RunReport;
use crate::sink::timeline::{combine, Recorder};
use crate::store::tests_support::sample;
use serde_json::json;
use std::time::{Duration, Instant};

/// Frames of 64 KiB every `every_us`, from `first_us` after the headers, with one pause.
fn recorded(first_us: u64, frames: u64, every_us: u64, pause_us: u64) -> Timeline {
    let start = Instant::now();
    let mut r = Recorder::new(start);
    for i in 0..frames {
        let paused = if i >= frames / 2 { pause_us } else { 0 };
        r.frame(
            start + Duration::from_micros(first_us + i * every_us + paused),
            65536,
        );
    }
    r.finish()
}

fn timed(mut s: Sample, t: Timeline, page_ms: f64) -> Sample {
    s.bytes_sent = t.bytes;
    s.bytes_received = Some(t.bytes);
    s.page_ms = Some(page_ms);
    s.page_timing = Some(PageTiming {
        request_start_ms: Some(page_ms * 0.6),
        response_start_ms: Some(page_ms - 0.5),
        response_end_ms: Some(page_ms + 3.0),
    });
    s.timeline = Some(t);
    s
}

fn body_run(condition: Option<&str>) -> RunReport {
    let mut samples = Vec::new();
    for rep in 0..5 {
        for (body, every, page_ms) in [("Uint8Array", 50, 80.0), ("Blob", 200, 120.0)] {
            for c in condition.map_or(vec![None], |_| vec![Some("attached"), Some("detached")]) {
                let mut s = sample("r", body, rep, 1000.0);
                let slow = if c == Some("attached") { 10.0 } else { 1.0 };
                if let Some(c) = c {
                    s.extra.insert("condition".into(), json!(c));
                }
                let t = recorded(100, 128, every, 15_000);
                samples.push(timed(s, t, page_ms * slow + rep as f64));
            }
        }
    }
    report_of(samples)
}

#[test]
fn the_phase_section_shows_the_same_content_in_every_format() {
    let report = body_run(None);
    assert_eq!(report.phases.len(), 2, "{:?}", report.phases);
    assert!(report.phases.iter().all(|p| p.uploads == 5));
    assert_same_content(report, SectionKind::Phases);
}

#[test]
fn a_control_run_puts_attached_and_detached_phases_side_by_side() {
    let report = body_run(Some("control"));
    let section = super::section(&report).unwrap();
    assert!(section.columns.iter().any(|c| c == "Preparing attached"));
    assert_eq!(section.rows.len(), 2, "one row per body kind");
    let cells: Vec<f64> = section.rows[0].cells[1..3]
        .iter()
        .map(|c| c.text.parse().unwrap())
        .collect();
    assert!(
        cells[0] > 5.0 * cells[1],
        "attached prepares longer: {cells:?}"
    );
    assert_same_content(report, SectionKind::Phases);
}

/// The phase sections' words and number formats, pinned once: the browser tests check
/// a real run's phases typed (in JSON), and every format shows this section's words
/// (the tests above).
#[test]
fn the_phase_sections_read_as_pinned() {
    let table = |r: &RunReport| {
        super::super::table::Table { colour: false }.section(&super::section(r).unwrap())
    };
    assert_eq!(table(&body_run(None)), PLAIN, "{}", table(&body_run(None)));
    let control = body_run(Some("control"));
    assert_eq!(table(&control), SIDE_BY_SIDE, "{}", table(&control));
}

const PLAIN: &str = r#"
Where the time went: preparing, on the wire, reply
Arm         n  Preparing  On the wire  Reply    ±  Shares
Uint8Array  5       54.7         21.4    5.9  5.4  67% · 26% · 7%
Blob        5       77.2         40.4    4.4  3.9  63% · 33% · 4%
Median ms per upload: preparing = fetch() called → first byte at the sink; on the wire = first → last byte (the sink's clock); reply = last byte → fetch() resolved. ± = how far the page's and the sink's clocks may be off (preparing that much longer and reply shorter, or the reverse).
"#;

const SIDE_BY_SIDE: &str = r#"
Where the time went, attached and detached: preparing, on the wire, reply
Body        Preparing attached  detached  On the wire attached  detached  Reply attached  detached  ± attached / detached
Uint8Array               630.7      54.7                  21.4      21.4           149.9       5.9  149.4 / 5.4
Blob                     941.2      77.2                  40.4      40.4           220.4       4.4  219.9 / 3.9
Median ms per upload: preparing = fetch() called → first byte at the sink; on the wire = first → last byte (the sink's clock); reply = last byte → fetch() resolved. ± = how far the page's and the sink's clocks may be off (preparing that much longer and reply shorter, or the reverse).
"#;

#[test]
fn csv_has_the_phase_and_stall_columns_of_every_sample() {
    let text = exporter(Format::Csv, false).render(&[body_run(None)]);
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let headers = reader.headers().unwrap().clone();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 10);
    for row in &rows {
        for name in [
            "preparing_ms",
            "wire_ms",
            "reply_ms",
            "phase_uncertainty_ms",
        ] {
            let v: f64 = row[col(name)].parse().unwrap();
            assert!(v >= 0.0, "{name}: {v}");
        }
        assert_eq!(&row[col("stalls")], "1");
        assert!(row[col("stalled_ms")].parse::<f64>().unwrap() > 10.0);
    }
}

#[test]
fn json_has_every_timeline_and_the_phases_and_matches_the_schema() {
    let text = exporter(Format::Json, false).render(&[body_run(None), encrypted_run()]);
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_valid(&doc);
    let run = &doc["runs"][0];
    assert_eq!(run["phases"].as_array().unwrap().len(), 2);
    for s in run["samples"].as_array().unwrap() {
        assert_eq!(s["timeline"]["bytes"], s["bytes_received"], "{s}");
        assert!(s["page_timing"]["request_start_ms"].is_number());
    }
    let chunks = &doc["runs"][1]["samples"][0]["timeline"]["requests"];
    assert_eq!(chunks.as_array().unwrap().len(), 4);
}

#[test]
fn the_html_draws_each_arms_upload_and_phase_bar() {
    let report = body_run(None);
    let page = exporter(Format::Html, false).render(std::slice::from_ref(&report));
    for p in &report.phases {
        let svg = format!(r#"<svg class="timeline" data-arm="{}""#, p.arm.label());
        let at = page
            .find(&svg)
            .unwrap_or_else(|| panic!("no chart of {}", p.arm.label()));
        let chart = &page[at..at + page[at..].find("</svg>").unwrap()];
        let rep = report
            .samples
            .iter()
            .find(|s| s.is_of(&p.arm) && Some(s.rep) == p.representative_rep)
            .unwrap();
        let t = rep.timeline.as_ref().unwrap();
        // The curve steps once per point, to the bytes received.
        let arrival = &chart[chart.find(r#"class="arrival""#).unwrap()..];
        let path = &arrival[arrival.find(" d=\"").unwrap()..];
        assert_eq!(
            path[..path.find("\" ").unwrap()].matches('H').count(),
            t.points.len()
        );
        assert!(arrival.contains(&format!(r#"data-bytes="{}""#, t.bytes)));
        assert_eq!(
            chart.matches(r#"class="spread""#).count(),
            4,
            "the other reps"
        );
        assert_eq!(chart.matches(r#"class="stall""#).count(), 1);
        assert!(page.contains(&format!(
            r#"<g class="phase-bar" data-arm="{}">"#,
            p.arm.label()
        )));
    }
}

/// Encrypted uploads of four chunk PUTs each: serial with 30 ms between chunks,
/// pipelined with 5.
fn encrypted_run() -> RunReport {
    let mut samples = Vec::new();
    for rep in 0..3 {
        for (schedule, gap) in [("serial", 30.0), ("pipelined", 5.0)] {
            let mut s = sample("r", &format!("encrypted 1MiB {schedule}"), rep, 500.0);
            for (k, v) in [
                ("schedule", json!(schedule)),
                ("chunk_bytes", json!(1 << 20)),
            ] {
                s.extra.insert(k.into(), v);
            }
            let parts: Vec<Timeline> = (0..4)
                .map(|i| {
                    let mut t = recorded(100, 16, 100, 0);
                    t.sink_clock_ms = 1000.0 + i as f64 * (1.7 + gap);
                    t
                })
                .collect();
            let t = combine(&parts).unwrap();
            let mut s = timed(s, t, 100.0);
            s.page_timing = None;
            samples.push(s);
        }
    }
    report_of(samples)
}

#[test]
fn the_html_draws_an_encrypted_uploads_chunks_serial_above_pipelined() {
    let page = exporter(Format::Html, false).render(&[encrypted_run()]);
    let at = page
        .find(r#"<svg class="sequence""#)
        .expect("a sequence chart");
    let chart = &page[at..at + page[at..].find("</svg>").unwrap()];
    let serial = chart.find(r#"data-arm="AES-GCM 1 MiB serial""#).unwrap();
    let pipelined = chart.find(r#"data-arm="AES-GCM 1 MiB pipelined""#).unwrap();
    assert!(serial < pipelined, "serial above pipelined");
    assert_eq!(
        chart.matches(r#"class="put""#).count(),
        8,
        "every chunk PUT"
    );
    assert_eq!(
        chart[serial..pipelined].matches(r#"class="gap""#).count(),
        3
    );
    assert_eq!(chart[pipelined..].matches(r#"class="gap""#).count(), 0);
}

/// A `--load none,cpu` run (blocks of 3 reps, the odd ones under the run's own load)
/// whose Uint8Array takes 3x as long in the loaded blocks: the phases are given per arm
/// and condition in every format, each line named by its condition, the loaded one
/// slower, and JSON carries each line's condition typed.
#[test]
fn a_run_in_two_conditions_shows_each_arms_phases_per_condition() {
    use crate::domain::conditions::{Condition, Load};
    use crate::store::Record;
    let loaded = Condition {
        load: Load::Cpu,
        ..Condition::default()
    };
    let mut records = crate::report::conditions::tests::records("r", loaded.clone(), false);
    for r in &mut records {
        if let Record::Sample(s) = r {
            let slow = if (s.rep / 3) % 2 == 1 { 3.0 } else { 1.0 };
            let t = recorded(100, 128, 50, 0);
            *s = timed(s.clone(), t, 80.0 * slow);
        }
    }
    let report = crate::report::tests_support::report_of(records);
    let lines: Vec<(String, Option<Load>, f64)> = report
        .phases
        .iter()
        .map(|p| {
            (
                p.arm.label(),
                p.condition.as_ref().map(|c| c.load),
                p.median.preparing_ms,
            )
        })
        .collect();
    assert_eq!(lines.len(), 4, "{lines:?}");
    for body in ["Uint8Array", "Blob"] {
        let of = |load| {
            lines
                .iter()
                .find(|l| l.0 == body && l.1 == Some(load))
                .unwrap()
                .2
        };
        assert!(of(Load::Cpu) > 2.0 * of(Load::None), "{lines:?}");
    }
    let labels: Vec<String> = report.phases.iter().map(super::line_label).collect();
    let distinct: std::collections::HashSet<&String> = labels.iter().collect();
    assert_eq!(distinct.len(), 4, "{labels:?}");
    for format in [Format::Table, Format::Markdown, Format::Html] {
        let text = exporter(format, false).render(std::slice::from_ref(&report));
        for label in &labels {
            let shown = if format == Format::Html {
                crate::export::html::esc(label)
            } else {
                label.clone()
            };
            assert!(text.contains(&shown), "{format:?} lacks the line {label:?}");
        }
    }
    let json: serde_json::Value =
        serde_json::from_str(&exporter(Format::Json, false).render(std::slice::from_ref(&report)))
            .unwrap();
    let loads: Vec<&serde_json::Value> = json["runs"][0]["phases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| &p["condition"]["load"])
        .collect();
    assert_eq!(
        loads,
        [&json!("none"), &json!("cpu"), &json!("none"), &json!("cpu")]
    );
    assert_valid(&json);
    // The popup's phase lines of this run and the host's name of each, for the JS bar
    // (extension/tests/phase-bar.test.js).
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/phase-lines.json"
    );
    let lines = crate::report::analysis::of(&report).phases;
    let actual = json!({"lines": lines.iter().zip(&labels)
        .map(|(line, label)| json!({"line": line, "label": label})).collect::<Vec<_>>()});
    if std::env::var_os("UNOBSERVED_WRITE_FIXTURES").is_some() {
        std::fs::write(path, serde_json::to_string_pretty(&actual).unwrap() + "\n").unwrap();
    }
    let fixture: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(actual, fixture);
}
