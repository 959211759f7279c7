//! Every human format shows the same content: for a control run and an encrypted run,
//! each word the document holds (every section's title, columns and cells, the row
//! flags, notes, warnings, the plan and the environment) appears in the terminal table,
//! in Markdown and in HTML.

use super::document::{self, RunDocument};
use super::{exporter, Format};
use crate::domain::arm::{Arm, Transport};
use crate::domain::sample::Sample;
use crate::report::RunReport;
use crate::store::tests_support::{run_record, sample};
use crate::store::Record;
use serde_json::json;

pub(super) fn report_of(samples: Vec<Sample>) -> RunReport {
    let mut run = run_record("r");
    if let Record::Run(crate::store::RunRecord {
        run: info,
        sink_ceiling_mbps,
        sink_ceiling_range,
        sink_hash_mbps,
        cpu,
        ..
    }) = &mut run
    {
        info.started_at = Some("2026-11-30T10:00:00Z".into());
        // Low enough that an arm is sink-bound: a row flag and a warning.
        *sink_ceiling_mbps = Some(1000.0);
        *sink_ceiling_range = Some((900.0, 1100.0));
        *sink_hash_mbps = Some(8000.0);
        *cpu = Some("AMD EPYC (aes avx2 sha_ni)".into());
    }
    let mut records = vec![run];
    // The sink saw half of each page's span: a note on where the rest went.
    records.extend(samples.into_iter().map(|mut s| {
        s.sink_request_ms = Some(0.5);
        Record::Sample(s)
    }));
    crate::report::tests_support::report_of(records)
}

fn control_run() -> RunReport {
    let mut samples = Vec::new();
    for rep in 0..5 {
        for (body, attached, detached) in [("Uint8Array", 100.0, 1800.0), ("Blob", 700.0, 900.0)] {
            for (condition, mbps) in [("attached", attached), ("detached", detached)] {
                let mut s = sample("r", body, rep, mbps + rep as f64);
                s.extra.insert("condition".into(), json!(condition));
                samples.push(s);
            }
        }
    }
    report_of(samples)
}

fn encrypted_run() -> RunReport {
    let mut samples = Vec::new();
    for rep in 0..5 {
        for (schedule, mbps) in [("serial", 500.0), ("pipelined", 800.0)] {
            let mut s = sample(
                "r",
                &format!("encrypted 1MiB {schedule}"),
                rep,
                mbps + rep as f64,
            );
            for (k, v) in [
                ("schedule", json!(schedule)),
                ("chunk_bytes", json!(1048576)),
                ("client_ms", json!(4.0)),
                ("put_ms", json!(5.0)),
                ("chunks", json!(8)),
                ("tags_ok", json!(8)),
            ] {
                s.extra.insert(k.into(), v);
            }
            samples.push(s);
        }
    }
    report_of(samples)
}

/// Body kinds over h1 and h2, as `--transport h1,h2` records them.
fn transport_run() -> RunReport {
    report_of(transport_samples())
}

/// A transport run whose h2 sink's ceiling was measured, and where one h2 upload
/// arrived over HTTP/1.1: `transport_ceilings` and `protocol_mismatches` both present.
fn mismatched_transport_run() -> RunReport {
    let mut samples = transport_samples();
    let h2 = samples
        .iter_mut()
        .find(|s| s.arm().transport == Some(Transport::H2))
        .unwrap();
    h2.protocol = Some("http/1.1".into());
    let mut report = report_of(samples);
    report.run.transport_ceilings.insert(
        Transport::H2,
        crate::domain::ceiling::TransportCeiling {
            receive_mbps: 3000.0,
            receive_range: (2800.0, 3100.0),
        },
    );
    assert!(!report.protocol_mismatches.is_empty());
    report
}

fn transport_samples() -> Vec<Sample> {
    let mut samples = Vec::new();
    for rep in 0..5 {
        for (body, transport, mbps) in [
            ("Uint8Array", Transport::H1, 1000.0),
            ("Uint8Array", Transport::H2, 800.0),
            ("Blob", Transport::H1, 900.0),
            ("Blob", Transport::H2, 700.0),
        ] {
            let mut s = sample("r", body, rep, mbps + rep as f64);
            s.protocol = Some(transport.protocol().into());
            s.recorded_arm = Some(Arm {
                transport: Some(transport),
                ..s.arm()
            });
            samples.push(s);
        }
    }
    samples
}

/// Every piece of text the document holds.
fn words(d: &RunDocument) -> Vec<String> {
    let mut out = vec![d.title.clone(), d.run_id.clone(), d.status.text.clone()];
    out.extend(d.plan.clone());
    for s in &d.sections {
        out.extend(s.title.map(String::from));
        out.extend(s.columns.iter().cloned());
        for row in &s.rows {
            out.extend(row.cells.iter().map(|c| c.text.clone()));
            out.extend(row.flags.iter().map(|f| f.to_string()));
        }
        out.extend(s.footnotes.iter().map(|f| f.to_string()));
    }
    out.extend(d.notes.iter().cloned());
    out.extend(d.warnings.iter().cloned());
    for (k, v) in &d.environment {
        out.push(k.to_string());
        out.push(v.clone());
    }
    out
}

/// The text as each format writes it (HTML escapes, Markdown escapes pipes).
fn as_written(format: Format, text: &str) -> String {
    match format {
        Format::Html => text
            .replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;"),
        Format::Markdown => text.replace('|', "\\|"),
        _ => text.to_owned(),
    }
}

pub(super) fn assert_same_content(report: RunReport, must_have: document::SectionKind) {
    let d = document::of(&report);
    assert!(
        d.sections.iter().any(|s| s.kind == must_have),
        "the fixture must produce a {must_have:?} section"
    );
    assert!(!d.notes.is_empty(), "the fixture must have a note");
    let reports = [report];
    for format in [Format::Table, Format::Markdown, Format::Html] {
        let text = exporter(format, false).render(&reports);
        for word in words(&d) {
            assert!(
                text.contains(&as_written(format, &word)),
                "{format:?} lacks {word:?}:\n{text}"
            );
        }
    }
}

#[test]
fn a_control_run_shows_the_same_content_in_every_format() {
    let report = control_run();
    let d = document::of(&report);
    assert!(!d.warnings.is_empty(), "the fixture must have a warning");
    assert!(
        d.sections[0].rows.iter().any(|r| !r.flags.is_empty()),
        "and a flagged row"
    );
    assert_same_content(report, document::SectionKind::Control);
}

#[test]
fn a_run_over_two_transports_shows_the_same_content_in_every_format() {
    let report = transport_run();
    assert_eq!(
        report.transports.len(),
        2,
        "each body kind over h2 against h1"
    );
    assert_same_content(report, document::SectionKind::Transports);
}

#[test]
fn an_encrypted_run_shows_the_same_content_in_every_format() {
    assert_same_content(encrypted_run(), document::SectionKind::Encrypted);
}

/// Two runs of the same plan: the second a little faster on Blob, missing one arm.
fn two_runs() -> Vec<RunReport> {
    let run = |id: &str, blob: f64, with_stream: bool| {
        let mut samples = Vec::new();
        for rep in 0..6 {
            for (body, mbps) in [("Uint8Array", 1000.0), ("Blob", blob)] {
                let mut s = sample(id, body, rep, mbps + rep as f64 * 3.0);
                s.sink_request_ms = Some(0.5);
                samples.push(s);
            }
            if with_stream {
                samples.push(sample(id, "ReadableStream", rep, 500.0));
            }
        }
        let mut r = report_of(samples);
        r.run.run_id = id.into();
        r
    };
    vec![run("a", 700.0, true), run("b", 900.0, false)]
}

#[test]
fn a_comparison_shows_the_same_content_in_every_format() {
    let runs = two_runs();
    let compared = crate::report::across::compare_runs(&runs, 0.05);
    let labels = vec!["a".to_owned(), "b".to_owned()];
    let d = super::compared::of(&compared, &labels);
    assert!(
        !d.lines.is_empty(),
        "the fixture has an arm only one run has"
    );
    let mut words = vec![d.title.clone()];
    words.extend(d.section.columns.iter().cloned());
    for row in &d.section.rows {
        words.extend(row.cells.iter().map(|c| c.text.clone()));
    }
    words.extend(d.lines.iter().cloned());
    for format in [Format::Table, Format::Markdown, Format::Html] {
        let text = exporter(format, false).render_compared(&compared, &labels);
        for word in &words {
            assert!(
                text.contains(&as_written(format, word)),
                "{format:?} lacks {word:?}:\n{text}"
            );
        }
    }
    // CSV: one row per arm in both runs, with the verdict as the JSON spells it.
    let csv = exporter(Format::Csv, false).render_compared(&compared, &labels);
    assert_eq!(csv.lines().count(), 1 + compared.arms.len(), "{csv}");
    let json: serde_json::Value =
        serde_json::from_str(&exporter(Format::Json, false).render_compared(&compared, &labels))
            .unwrap();
    for (line, arm) in csv.lines().skip(1).zip(json["arms"].as_array().unwrap()) {
        let verdict = arm["versus_first"][0]["verdict"].as_str().unwrap();
        assert!(
            line.ends_with(&format!(",{verdict}")),
            "{line} vs {verdict}"
        );
    }
    // HTML: grouped bars, one per arm and run, carrying the medians.
    let html = exporter(Format::Html, false).render_compared(&compared, &labels);
    let bars = html.matches(r#"<rect class="bar""#).count();
    let medians: usize = compared
        .arms
        .iter()
        .map(|a| a.medians.iter().flatten().count())
        .sum();
    assert_eq!(bars, medians, "{html}");
}

/// The browser matrix's words and number formats, pinned once: `run --browser a,b`
/// prints this rendering of the stored runs' comparison (the browser test checks that
/// typed), named by browser.
#[test]
fn the_browser_matrix_reads_as_pinned() {
    let mut runs = two_runs();
    runs[1].run.env.browser = "Firefox".into();
    runs[1].run.env.browser_version = "153.8".into();
    let compared = crate::report::across::compare_runs(&runs, 0.05);
    let labels = super::compared::browser_labels(&runs);
    assert_eq!(labels, ["Chromium 156", "Firefox 153.8"]);
    let text = exporter(Format::Table, false).render_compared(&compared, &labels);
    assert_eq!(text, MATRIX, "{text}");
}

const MATRIX: &str = r#"Firefox 153.8 compared with Chromium 156
Arm         Chromium 156  Firefox 153.8  vs Chromium 156
Uint8Array          1008           1008  1.00x [0.85–1.18] not resolved
Blob                 708            908  1.28x [1.09–1.52] faster
Mbps medians of intact uploads; ratio of the medians to the first with its [95% interval], made as the lines below say.
machine check: none; a, b recorded no machine calibration (stored by an older host)
one run a side: each interval is widened by ±18.1% for run-to-run drift, so it cannot say "same"; give several runs a side (compare A1,A2,A3 B1,B2,B3) or interleave the builds in one run (run --browser-path A --browser-path B)
only in a: ReadableStream
differs: browser: Chromium 156 | Firefox 153.8
"#;

/// An auto-sampled run the rep budget ended: its plan line says how many reps it took
/// and where it started, and its warning says which budget ran out and what it left
/// unsettled, in these words (the browser tests check the same run typed: `auto_stop`,
/// the reps, the warning's kind and figures).
#[test]
fn an_auto_run_the_rep_budget_ended_reads_as_pinned() {
    use crate::domain::plan::AutoStop;
    let mut records = vec![crate::store::tests_support::auto_run_record("r", 3, 5)];
    for rep in 0..5 {
        for (body, mbps) in [("Uint8Array", 1000.0), ("Blob", 990.0)] {
            let wobble = [0.0, 40.0, -30.0, 25.0, -45.0][rep as usize];
            records.push(Record::Sample(sample("r", body, rep, mbps + wobble)));
        }
    }
    records.push(Record::RunEnd {
        run_id: "r".into(),
        status: crate::domain::run::RunStatus::Complete,
        reason: None,
        end_reason: None,
        recorded_at: crate::store::records::now(),
        observation: None,
        auto_stop: Some(AutoStop::BudgetReps),
    });
    let report = crate::report::tests_support::report_of(records);
    let d = document::of(&report);
    assert_eq!(d.plan.as_deref(), Some(PLAN_LINE));
    assert_eq!(d.warnings, [BUDGET_SPENT]);
    let table = exporter(Format::Table, false).render(std::slice::from_ref(&report));
    assert!(table.contains(&format!("{PLAN_LINE}\n")), "{table}");
    assert!(
        table.contains(&format!("warning: {BUDGET_SPENT}\n")),
        "{table}"
    );
}

const PLAN_LINE: &str =
    "32 MiB per upload × 5 reps (auto from 3), 1 warm-up · sink ceiling 9000 Mbps";

const BUDGET_SPENT: &str = "The rep budget (5 reps) ran out after 5 reps with 1 comparison(s) not settled (Blob vs Uint8Array), which read \"not resolved\" whatever their interval. Give it more time (Options, or --max-time) or a quieter machine, or widen the horizon.";

const SCHEMA_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../schemas/report.schema.json");

/// The committed schema is the one generated from the types (`json::schema()`).
/// Regenerate it with `UNOBSERVED_WRITE_FIXTURES=1 cargo test -p unobserved --lib
/// export::` after changing a type the report writes.
#[test]
fn the_committed_schema_is_generated_from_the_types() {
    let generated = super::json::schema();
    let text = serde_json::to_string_pretty(&generated).unwrap() + "\n";
    if std::env::var_os("UNOBSERVED_WRITE_FIXTURES").is_some() {
        std::fs::write(SCHEMA_PATH, &text).unwrap();
    }
    let committed = std::fs::read_to_string(SCHEMA_PATH).unwrap();
    assert!(
        committed == text,
        "schemas/report.schema.json is not what the types generate: regenerate it with \
         UNOBSERVED_WRITE_FIXTURES=1 cargo test -p unobserved --lib export::"
    );
}

/// Closed: every object with fixed fields rejects others, except a sample and its
/// observation, which keep what newer extensions add; and the ceilings and the
/// mismatches are described, not merely allowed.
#[test]
fn the_schema_is_closed_and_describes_ceilings_and_mismatches() {
    let schema = super::json::schema();
    let defs = schema["$defs"].as_object().unwrap();
    let mut open = Vec::new();
    fn walk(v: &serde_json::Value, at: &str, open: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(m) => {
                if m.contains_key("properties")
                    && m.get("additionalProperties") != Some(&false.into())
                {
                    open.push(at.to_owned());
                }
                for (k, v) in m {
                    walk(v, &format!("{at}/{k}"), open);
                }
            }
            serde_json::Value::Array(items) => {
                for (i, v) in items.iter().enumerate() {
                    walk(v, &format!("{at}/{i}"), open);
                }
            }
            _ => {}
        }
    }
    walk(&schema, "#", &mut open);
    assert_eq!(open, ["#/$defs/Observation", "#/$defs/Sample"]);
    assert_eq!(schema["additionalProperties"], false);

    let run = &defs["RunMeta"]["properties"];
    assert_eq!(
        run["transport_ceilings"]["additionalProperties"]["$ref"],
        "#/$defs/TransportCeiling"
    );
    assert_eq!(
        run["transport_ceilings"]["propertyNames"]["$ref"],
        "#/$defs/Transport"
    );
    let ceiling = &defs["TransportCeiling"];
    assert!(ceiling["properties"]["receive_mbps"].is_object());
    assert!(ceiling["properties"]["receive_range"].is_object());
    assert_eq!(
        defs["RunReport"]["properties"]["protocol_mismatches"]["items"]["$ref"],
        "#/$defs/ProtocolMismatch"
    );
    let mismatch = defs["ProtocolMismatch"]["properties"].as_object().unwrap();
    let mut fields: Vec<&str> = mismatch.keys().map(String::as_str).collect();
    fields.sort();
    assert_eq!(fields, ["arm", "arrived_over", "transport", "uploads"]);
}

/// Real JSON against the committed schema (read when the test runs, so a file just
/// regenerated is the one checked).
pub(super) fn assert_valid(doc: &serde_json::Value) {
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(SCHEMA_PATH).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(doc)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

/// JSON of runs with warnings, notes, the control and encrypted chunks, transport
/// ceilings and a protocol mismatch, against the published schema (no browser needed).
#[test]
fn json_with_every_kind_of_section_matches_the_schema() {
    let runs = [control_run(), encrypted_run(), mismatched_transport_run()];
    assert!(
        runs.iter().any(|r| !r.warnings.is_empty()) && runs.iter().all(|r| !r.notes.is_empty())
    );
    let mut doc: serde_json::Value =
        serde_json::from_str(&exporter(Format::Json, false).render(&runs)).unwrap();
    let run = &doc["runs"][2];
    assert!(
        run["run"]["transport_ceilings"]["h2"].is_object(),
        "{run:#}"
    );
    assert!(run["protocol_mismatches"][0].is_object(), "{run:#}");
    assert!(run["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|w| w["kind"] == "protocol-mismatch"));
    doc["launch"] = json!([{ "browser_path": "/usr/bin/chromium", "command": ["chromium"] }]);
    assert_valid(&doc);
}

/// Closed means closed: an extra key anywhere fixed is rejected, while a sample keeps
/// what a newer extension added.
#[test]
fn the_schema_rejects_unknown_keys_but_keeps_a_samples_extras() {
    let schema = super::json::schema();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let runs = [mismatched_transport_run()];
    let doc: serde_json::Value =
        serde_json::from_str(&exporter(Format::Json, false).render(&runs)).unwrap();
    assert!(validator.is_valid(&doc));
    for pointer in [
        "",
        "/runs/0",
        "/runs/0/run",
        "/runs/0/run/transport_ceilings/h2",
        "/runs/0/protocol_mismatches/0",
        "/runs/0/summary/0",
        "/runs/0/summary/0/arm",
        "/runs/0/comparisons/0",
        "/runs/0/warnings/0",
    ] {
        let mut bad = doc.clone();
        bad.pointer_mut(pointer).unwrap()["surprise"] = json!(1);
        assert!(
            !validator.is_valid(&bad),
            "{pointer} accepted an unknown key"
        );
    }
    let mut newer = doc.clone();
    newer["runs"][0]["samples"][0]["from_a_newer_extension"] = json!(1);
    newer["runs"][0]["samples"][0]["observed"]["debugger_attached"] = json!(false);
    assert!(validator.is_valid(&newer));
}

/// Streaming and rendering give the same text in every format.
#[test]
fn every_format_writes_what_it_renders() {
    let runs = [control_run(), encrypted_run()];
    for format in [
        Format::Table,
        Format::Json,
        Format::Csv,
        Format::Markdown,
        Format::Html,
    ] {
        let e = exporter(format, false);
        let mut written = Vec::new();
        e.write(&runs, &mut written).unwrap();
        let mut rendered = e.render(&runs);
        if !rendered.ends_with('\n') {
            rendered.push('\n');
        }
        assert_eq!(String::from_utf8(written).unwrap(), rendered, "{format:?}");
    }
}

/// The HTML chart marks each arm's own sink ceiling: h2 arms uploaded to the h2 sink.
#[test]
fn the_html_chart_marks_each_arms_own_sink_ceiling() {
    let mut report = transport_run();
    report.run.transport_ceilings.insert(
        Transport::H2,
        crate::domain::ceiling::TransportCeiling {
            receive_mbps: 5000.0,
            receive_range: (4900.0, 5100.0),
        },
    );
    let html = exporter(Format::Html, false).render(&[report]);
    let ceiling_after = |arm: &str| -> String {
        let row = html.split(&format!(r#"data-body="{arm}""#)).nth(1).unwrap();
        let mark = row.split(r#"data-ceiling=""#).nth(1).unwrap();
        mark.split('"').next().unwrap().to_owned()
    };
    assert_eq!(ceiling_after("Uint8Array h1"), "1000.000");
    assert_eq!(ceiling_after("Uint8Array h2"), "5000.000");
}

/// A run that ended for a typed reason says so in every format: the words in table,
/// Markdown and HTML, the name in JSON's `end_reason` and CSV's `run_end_reason`.
#[test]
fn a_typed_end_reason_is_in_every_format() {
    use crate::domain::run::{EndReason, RunStatus};
    use strum::IntoEnumIterator;
    for reason in EndReason::iter() {
        let records = vec![
            run_record("r"),
            Record::Sample(sample("r", "Blob", 0, 900.0)),
            Record::RunEnd {
                run_id: "r".into(),
                status: RunStatus::Failed,
                reason: Some("page text".into()),
                end_reason: Some(reason),
                recorded_at: crate::store::records::now(),
                observation: None,
                auto_stop: None,
            },
        ];
        let reports = [crate::report::tests_support::report_of(records)];
        let said = super::words::end_reason(reason);
        for format in [Format::Table, Format::Markdown, Format::Html] {
            let text = exporter(format, false).render(&reports);
            assert!(
                text.contains(&as_written(format, said)),
                "{format:?}: {reason:?}\n{text}"
            );
        }
        let json: serde_json::Value =
            serde_json::from_str(&exporter(Format::Json, false).render(&reports)).unwrap();
        assert_eq!(json["runs"][0]["run"]["end_reason"], reason.as_str());
        let csv = exporter(Format::Csv, false).render(&reports);
        let mut rows = ::csv::Reader::from_reader(csv.as_bytes());
        let column = rows
            .headers()
            .unwrap()
            .iter()
            .position(|h| h == "run_end_reason")
            .expect("a run_end_reason column");
        let row = rows.records().next().unwrap().unwrap();
        assert_eq!(&row[column], reason.as_str());
    }
}
