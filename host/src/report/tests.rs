use super::tests_support::{contents, sink_bound_run};
use super::*;
use crate::stats::compare::Verdict;
use crate::store::tests_support::{run_record, sample};

#[test]
fn an_arm_at_70_percent_of_the_sink_ceiling_is_flagged() {
    let report = sink_bound_run();
    assert_eq!(
        report
            .summary
            .iter()
            .map(|a| a.sink_bound)
            .collect::<Vec<_>>(),
        [false, true]
    );
    assert!(
        matches!(&report.warnings[..], [Warning::SinkBound { arm, .. }] if arm == "Blob"),
        "{:?}",
        report.warnings
    );
}

#[test]
fn no_ceiling_means_no_flag() {
    let report = runs(contents(None, vec![sample("r", "Blob", 0, 1e9)]))
        .pop()
        .unwrap();
    assert!(!report.summary[0].sink_bound);
}

#[test]
fn page_and_sink_times_more_than_20_percent_apart_are_flagged_with_advice() {
    let mut near = sample("r", "Blob", 0, 100.0);
    (near.page_ms, near.sink_ms) = (Some(10.0), Some(8.5));
    let mut far = sample("r", "Blob", 1, 100.0);
    (far.page_ms, far.sink_ms) = (Some(10.0), Some(7.0));
    assert!(!timing_disagrees(&near) && timing_disagrees(&far));
    let report = runs(contents(None, vec![near, far])).pop().unwrap();
    assert_eq!(report.summary[0].timing_flags, 1);
    assert_eq!(
        report.warnings,
        [Warning::TimingDisagreement {
            samples: 1,
            tolerance: TIMING_TOLERANCE
        }]
    );
}

#[test]
fn comparisons_use_uint8array_as_the_baseline() {
    let samples = vec![
        sample("r", "Blob", 0, 1800.0),
        sample("r", "Uint8Array", 0, 100.0),
        sample("r", "Blob", 1, 1750.0),
        sample("r", "Uint8Array", 1, 110.0),
        sample("r", "Blob", 2, 1900.0),
        sample("r", "Uint8Array", 2, 95.0),
    ];
    // Three against three has no 95% rank interval: honestly not resolved.
    let three = runs(contents(None, samples.clone())).pop().unwrap();
    assert_eq!(
        three.comparisons[0].verdict,
        crate::stats::compare::Verdict::NotResolved
    );
    let mut samples = samples;
    samples.push(sample("r", "Blob", 3, 1850.0));
    samples.push(sample("r", "Uint8Array", 3, 105.0));
    let report = runs(contents(None, samples)).pop().unwrap();
    assert_eq!(report.comparisons.len(), 1);
    assert_eq!(
        report.comparisons[0].baseline.arm(),
        &sample("r", "Uint8Array", 0, 1.0).arm()
    );
    assert_eq!(
        report.comparisons[0].verdict,
        crate::stats::compare::Verdict::Faster
    );
}

#[test]
fn filters_select_runs() {
    let mut c = contents(None, vec![sample("r", "Blob", 0, 1.0)]);
    let mut other = sample("s", "Blob", 0, 1.0);
    other.env.browser = "Chromium".into();
    c.records.push((99, Record::Sample(other)));
    let all = runs(c);
    assert_eq!(all.len(), 2);
    assert_eq!(
        select(
            all.clone(),
            &Filter {
                run: Some("last".into()),
                ..Default::default()
            }
        )[0]
        .run
        .run_id,
        "s"
    );
    assert_eq!(
        select(
            all.clone(),
            &Filter {
                browser: Some("firefox".into()),
                ..Default::default()
            }
        )[0]
        .run
        .run_id,
        "r"
    );
    assert_eq!(
        select(
            all,
            &Filter {
                since: Some("2026-12-01".into()),
                ..Default::default()
            }
        )
        .len(),
        0
    );
}

#[test]
fn browser_time_before_the_request_is_a_note_and_an_impossible_ordering_is_flagged() {
    // The page waits 97 ms, the sink sees an 18 ms request: the rest is time outside
    // the sink's record (before the request and after it), not an error.
    let mut slow_start = sample("r", "Uint8Array", 0, 100.0);
    (
        slow_start.page_ms,
        slow_start.sink_ms,
        slow_start.sink_request_ms,
    ) = (Some(97.0), Some(17.0), Some(18.0));
    // The sink saw a longer request than the page's whole span: pairing or clocks broke.
    let mut impossible = sample("r", "Uint8Array", 1, 100.0);
    (
        impossible.page_ms,
        impossible.sink_ms,
        impossible.sink_request_ms,
    ) = (Some(10.0), Some(12.5), Some(13.0));
    assert!(!timing_disagrees(&slow_start));
    assert!(timing_disagrees(&impossible));
    let report = runs(contents(None, vec![slow_start, impossible]))
        .pop()
        .unwrap();
    assert_eq!(report.summary[0].timing_flags, 1);
    assert_eq!(report.summary[0].browser_ms, Some(39.5));
    assert!(
        matches!(&report.notes[..], [Note::BrowserTime { arms }] if arms[0].browser_ms == 39.5),
        "{:?}",
        report.notes
    );
}

/// The page time less the sink's record of the request is time before the request
/// and after it: an upload whose reply is long (a debugger working on the response,
/// say) and whose preparing is short is put down to its reply, not to the browser
/// preparing the body.
#[test]
fn browser_time_with_a_long_reply_is_put_down_to_the_reply() {
    use super::phases::OutsidePart;
    let mut s = sample("r", "Uint8Array", 0, 100.0);
    // Headers at the sink 4–6 ms after fetch(), body bytes 2–20 ms after the headers,
    // the response at the page only at 100 ms: 5 ms before, 75 ms after, ±1.
    timed(&mut s, 100.0, (2.0, 20.0), Some((4.0, 26.0)));
    let report = runs(contents(None, vec![s])).pop().unwrap();
    let [Note::BrowserTime { arms }] = &report.notes[..] else {
        panic!("{:?}", report.notes)
    };
    assert_eq!((arms[0].browser_ms, arms[0].page_ms), (80.0, 100.0));
    let split = arms[0].split.expect("the upload has phases");
    assert_eq!(
        (split.before_ms, split.after_ms, split.uncertainty_ms),
        (5.0, 75.0, 1.0)
    );
    assert_eq!(split.mostly(), Some(OutsidePart::After));
    // The same figures as the phases: after is the reply.
    assert_eq!(report.phases[0].median.reply_ms, split.after_ms);
}

#[test]
fn a_run_without_samples_is_not_called_intact() {
    // The run record alone is a run, with no arm to summarise.
    let empty = runs(contents(None, vec![]))
        .pop()
        .expect("a run without samples");
    assert_eq!(empty.summary, []);
    assert_eq!(empty.comparisons, []);
}

/// `s` as an upload the sink saw from `first` to `last` ms after its headers, in a page
/// span of `page_ms`, with Resource Timing's requestStart and responseStart if given.
fn timed(s: &mut Sample, page_ms: f64, (first, last): (f64, f64), rt: Option<(f64, f64)>) {
    s.page_ms = Some(page_ms);
    (s.sink_ms, s.sink_request_ms) = (Some(last - first), Some(last));
    s.timeline = Some(super::phases::tests::timeline(first, last));
    s.page_timing = rt.map(|(start, response)| crate::domain::page_timing::PageTiming {
        request_start_ms: Some(start),
        response_start_ms: Some(response),
        response_end_ms: None,
    });
}

/// The popup's phase bar draws the host's phases, one line per arm that has them
/// (from the sink's timeline), never the page's own figures.
#[test]
fn the_analysis_carries_each_arms_median_phases() {
    let mut samples = Vec::new();
    for rep in 0..3 {
        let mut typed = sample("r", "Uint8Array", rep, 100.0);
        timed(&mut typed, 100.0, (2.0, 20.0), Some((70.0, 99.0)));
        samples.push(typed);
        samples.push(sample("r", "Blob", rep, 800.0)); // no timeline: no phases
    }
    let report = runs(contents(None, samples)).pop().unwrap();
    let lines = analysis::of(&report).phases;
    let want = super::phases::Phases {
        preparing_ms: 76.5,
        wire_ms: 18.0,
        reply_ms: 5.5,
        uncertainty_ms: 4.5,
    };
    assert_eq!(
        lines,
        vec![analysis::PhaseLine {
            body: "Uint8Array".into(),
            condition: None,
            uploads: 3,
            median: want,
        }]
    );
}

/// The popup lays out exactly what the host's analysis says. This fixture is that
/// analysis for a run with an intact, a sink-bound and a corrupted arm; the extension's
/// tests load the same file, so the two sides agree on its shape. Regenerate with
/// UNOBSERVED_WRITE_FIXTURES=1 after a deliberate change.
#[test]
fn the_popup_analysis_matches_the_shared_fixture() {
    let mut samples = Vec::new();
    for rep in 0..4 {
        samples.push(sample("r", "Uint8Array", rep, 100.0 + rep as f64));
        samples.push(sample("r", "Blob", rep, 800.0 + rep as f64));
        let mut stream = sample("r", "ReadableStream", rep, 0.0);
        stream.status = crate::domain::sample::SampleStatus::Corrupted;
        stream.intact = false;
        stream.bytes_received = Some(23);
        stream.head = Some("[object ReadableStream]".into());
        samples.push(stream);
    }
    for s in &mut samples {
        s.observed.webdriver = Some(false);
        match s.body.as_str() {
            "Uint8Array" => timed(s, 100.0, (2.0, 20.0), Some((70.0, 99.0))),
            "Blob" => timed(s, 80.0, (1.0, 60.0), None),
            _ => {}
        }
    }
    let report = runs(contents(Some(1000.0), samples)).pop().unwrap();
    let actual = serde_json::to_value(analysis::of(&report)).unwrap();
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/popup-analysis.json"
    );
    if std::env::var_os("UNOBSERVED_WRITE_FIXTURES").is_some() {
        std::fs::write(path, serde_json::to_string_pretty(&actual).unwrap() + "\n").unwrap();
    }
    let expected: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(actual, expected);
}

#[test]
fn uploads_of_a_tls_arm_that_arrived_over_another_protocol_are_warned_of() {
    use crate::domain::arm::{Arm, Transport};
    let over = |rep, protocol: &str| {
        let mut s = sample("r", "Blob", rep, 500.0);
        s.protocol = Some(protocol.into());
        s.recorded_arm = Some(Arm {
            transport: Some(Transport::H2),
            ..s.arm()
        });
        s
    };
    let report = super::tests_support::report_of(vec![
        run_record("r"),
        Record::Sample(over(0, "h2")),
        Record::Sample(over(1, "http/1.1")),
        Record::Sample(over(2, "http/1.1")),
    ]);
    assert_eq!(
        report.protocol_mismatches,
        vec![ProtocolMismatch {
            arm: "Blob h2".into(),
            transport: Transport::H2,
            arrived_over: "http/1.1".into(),
            uploads: 2,
        }]
    );
    assert!(report.warnings.contains(&Warning::ProtocolMismatch(
        report.protocol_mismatches[0].clone()
    )));
}

#[test]
fn an_arm_over_tls_is_held_against_its_own_sinks_ceiling() {
    use crate::domain::arm::{Arm, Transport};
    use crate::domain::ceiling::TransportCeiling;
    let over = |transport, rep| {
        let mut s = sample("r", "Uint8Array", rep, 800.0 + rep as f64);
        s.recorded_arm = Some(Arm {
            transport: Some(transport),
            ..s.arm()
        });
        s
    };
    let mut run = run_record("r");
    if let Record::Run(crate::store::RunRecord {
        sink_ceiling_mbps,
        transport_ceilings,
        ..
    }) = &mut run
    {
        // The plain sink is far above the arm; the h2 sink only just above it.
        *sink_ceiling_mbps = Some(10_000.0);
        transport_ceilings.insert(
            Transport::H2,
            TransportCeiling {
                receive_mbps: 1000.0,
                receive_range: (950.0, 1050.0),
            },
        );
    }
    let mut records = vec![run];
    for rep in 0..4 {
        records.push(Record::Sample(over(Transport::H1, rep)));
        records.push(Record::Sample(over(Transport::H2, rep)));
    }
    let report = super::tests_support::report_of(records);
    let bound: Vec<(Option<Transport>, bool)> = report
        .summary
        .iter()
        .map(|a| (a.arm.transport, a.sink_bound))
        .collect();
    assert_eq!(
        bound,
        [(Some(Transport::H1), false), (Some(Transport::H2), true)]
    );
}

/// The negative control is found by its arm (the repeated body), not by its label, and a
/// control that comes out different warns that the run's verdicts cannot stand.
#[test]
fn the_negative_control_is_joined_on_its_arm() {
    let again = |rep: u32, mbps: f64| Sample {
        negative_control: true,
        ..sample("r", "Uint8Array", rep, mbps)
    };
    let mut samples = Vec::new();
    for rep in 0..5 {
        samples.push(sample("r", "Uint8Array", rep, 1000.0 + rep as f64));
        samples.push(again(rep, 500.0 + rep as f64));
        samples.push(sample("r", "Blob", rep, 1000.0 + rep as f64));
    }
    let report = runs(contents(None, samples)).pop().unwrap();
    let nc = report
        .negative_control
        .as_ref()
        .expect("a negative control");
    assert!(nc.arm.arm().repeat);
    assert_eq!(
        nc.baseline.arm(),
        &sample("r", "Uint8Array", 0, 1.0).arm(),
        "compared with its own body"
    );
    assert_eq!(nc.verdict, Verdict::Slower);
    assert!(report.warnings.iter().any(|w| matches!(
        w,
        Warning::NegativeControlFailed {
            verdict: Verdict::Slower,
            ..
        }
    )));
}

#[test]
fn one_runs_lines_are_read_alone_and_the_rest_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let store = crate::store::Store::in_dir(dir.path());
    let mut records = vec![run_record("a"), run_record("b")];
    records.extend((0..3).map(|r| Record::Sample(sample("a", "Blob", r, 1.0))));
    records.push(Record::Sample(sample("b", "Blob", 0, 1.0)));
    records.push(Record::SinkEvent {
        event: "aborted".into(),
        bytes: 1,
        path: "/upload".into(),
        recorded_at: "2026-12-01T00:00:00Z".into(),
    });
    store.append(&records).unwrap();
    let mut seen = Vec::new();
    store
        .scan_run("a", |_, r| seen.push(r.run_id().map(str::to_owned)))
        .unwrap();
    assert_eq!(
        seen,
        vec![Some("a".to_owned()); 4],
        "a's run record and 3 samples"
    );
    let b = super::load_run(&store, "b", super::TimelinePoints::Keep)
        .unwrap()
        .unwrap();
    assert_eq!((b.run.run_id.as_str(), b.samples.len()), ("b", 1));
    assert!(super::load_run(&store, "c", super::TimelinePoints::Keep)
        .unwrap()
        .is_none());
}
