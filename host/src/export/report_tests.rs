//! The reports' words in each format, for reports of made-up records: the badge on an
//! arm's row, a verdict, a run without samples, and how much of the store each format
//! reads.

use super::{csv::Csv, html::Html, markdown::Markdown, table::Table, Exporter, Format};
use crate::report::runs;
use crate::report::tests_support::{contents, sink_bound_run};
use crate::store::tests_support::{run_record, sample};
use crate::store::Record;

#[test]
fn the_sink_bound_badge_is_on_the_arms_own_row_in_every_format() {
    let report = sink_bound_run();
    // The badge on the Blob row itself, in every format (the warning paragraph also
    // says "sink-bound", so a bare contains() would pass without any badge).
    let table = Table { colour: false }.render(std::slice::from_ref(&report));
    let row = |text: &str, body: &str| -> String {
        text.lines()
            .find(|l| l.trim_start_matches("| ").starts_with(body))
            .unwrap_or_default()
            .to_owned()
    };
    assert!(row(&table, "Blob").ends_with("[sink-bound]"), "{table}");
    assert!(!row(&table, "Uint8Array").contains("sink-bound"), "{table}");
    let md = Markdown.render(std::slice::from_ref(&report));
    assert!(row(&md, "Blob").contains("**sink-bound**"), "{md}");
    assert!(!row(&md, "Uint8Array").contains("sink-bound"), "{md}");
    let page = Html.render(std::slice::from_ref(&report));
    let html_row = |body: &str| -> String {
        let start = page.find(&format!(r#"<tr data-body="{body}">"#)).unwrap();
        page[start..start + page[start..].find("</tr>").unwrap()].to_owned()
    };
    assert!(
        html_row("Blob").contains(r#"class="badge warn">sink-bound<"#),
        "{page}"
    );
    assert!(!html_row("Uint8Array").contains("sink-bound"), "{page}");
    let csv = Csv.render(&[report]);
    assert!(csv
        .lines()
        .next()
        .unwrap()
        .contains(",sink_bound,timing_disagrees,transport,protocol,"));
    assert_eq!(
        csv.lines()
            .filter(|l| l.contains(",Blob,") && l.contains(",true,false"))
            .count(),
        2,
        "{csv}"
    );
}

#[test]
fn a_verdict_is_in_the_table() {
    let samples: Vec<_> = (0..4)
        .flat_map(|rep| {
            [
                sample("r", "Blob", rep, 1800.0 + f64::from(rep)),
                sample("r", "Uint8Array", rep, 100.0 + f64::from(rep)),
            ]
        })
        .collect();
    let report = runs(contents(None, samples)).pop().unwrap();
    assert_eq!(
        report.comparisons[0].verdict,
        crate::stats::compare::Verdict::Faster
    );
    assert!(Table { colour: false }
        .render(std::slice::from_ref(&report))
        .contains("faster"));
}

#[test]
fn a_run_without_samples_is_not_called_intact() {
    let empty = runs(contents(None, vec![]))
        .pop()
        .expect("a run without samples");
    let page = Html.render(&[empty]);
    assert!(page.contains("no samples") && !page.contains("all intact"));
}

#[test]
fn a_report_that_shows_only_phases_reads_no_timeline_points_and_the_same_phases() {
    let dir = tempfile::tempdir().unwrap();
    let store = crate::store::Store::in_dir(dir.path());
    let mut s = sample("a", "Blob", 0, 1.0);
    s.page_ms = Some(3.0);
    s.timeline = Some(crate::report::phases::tests::timeline(1.0, 2.0));
    store.append(&[run_record("a"), Record::Sample(s)]).unwrap();
    let read = |points| {
        crate::report::load_run(&store, "a", points)
            .unwrap()
            .unwrap()
    };
    let (kept, dropped) = (
        read(crate::report::TimelinePoints::Keep),
        read(crate::report::TimelinePoints::Drop),
    );
    let points =
        |r: &crate::report::RunReport| r.samples[0].timeline.as_ref().unwrap().points.len();
    assert_eq!((points(&kept), points(&dropped)), (2, 0));
    assert_eq!(
        crate::report::phases::of_sample(&kept.samples[0]),
        crate::report::phases::of_sample(&dropped.samples[0]),
    );
    assert!(crate::report::phases::of_sample(&dropped.samples[0]).is_some());
    assert_eq!(Format::Table.points(), crate::report::TimelinePoints::Drop);
    assert_eq!(Format::Json.points(), crate::report::TimelinePoints::Keep);
    assert_eq!(Format::Html.points(), crate::report::TimelinePoints::Keep);
}

/// The browser-time note in words (golden): an upload with a short wait before its
/// request and a long reply is said to spend its time after its last byte, and one
/// without phases gets the total alone.
#[test]
fn the_browser_time_note_says_before_and_after_the_sinks_record() {
    let mut long_reply = sample("r", "Uint8Array", 0, 100.0);
    (long_reply.page_ms, long_reply.sink_request_ms) = (Some(100.0), Some(20.0));
    long_reply.timeline = Some(crate::report::phases::tests::timeline(2.0, 20.0));
    long_reply.page_timing = Some(crate::domain::page_timing::PageTiming {
        request_start_ms: Some(4.0),
        response_start_ms: Some(26.0),
        response_end_ms: None,
    });
    let mut untimed = sample("r", "Blob", 0, 100.0);
    (untimed.page_ms, untimed.sink_request_ms) = (Some(50.0), Some(30.0));
    let report = runs(contents(None, vec![long_reply, untimed]))
        .pop()
        .unwrap();
    let note = report
        .notes
        .iter()
        .find(|n| matches!(n, crate::report::Note::BrowserTime { .. }))
        .expect("a browser-time note")
        .to_string();
    assert_eq!(
        note,
        "Time outside the sink's record of the request (its headers to its last byte), median per upload: \
         Uint8Array 80 of 100 ms (80%: 5 before, 75 after ±1, mostly after), Blob 20 of 50 ms (40%). \
         Before is until its headers reached the sink: the browser preparing and handing over the body; \
         after is from its last byte until the page had the reply (± is how far the clocks may be off). \
         A web app waits for all of it, so the page time is the figure."
    );
}
