use super::*;
use crate::domain::page_timing::PageTiming;
use crate::domain::timeline::Timeline;

pub(crate) fn timeline(first: f64, last: f64) -> Timeline {
    Timeline {
        v: 1,
        sink_clock_ms: 0.0,
        first_byte_ms: Some(first),
        last_byte_ms: Some(last),
        bytes: 1024,
        bucket_ms: 0.1,
        points: [(first, 512), (last, 1024)].into_iter().collect(),
        stalls: vec![],
        stall_count: 0,
        stalled_ms: 0.0,
        requests: vec![],
    }
}

fn sample(page_ms: f64, t: Timeline, timing: Option<PageTiming>) -> Sample {
    let mut s = crate::store::tests::sample("r", "Blob", 0, 1.0);
    s.page_ms = Some(page_ms);
    s.timeline = Some(t);
    s.page_timing = timing;
    s
}

#[test]
fn the_phases_add_up_to_the_page_time_and_the_wire_is_the_sinks() {
    // 100 ms page span; the sink saw the first byte 2 ms and the last 20 ms after the
    // headers; Resource Timing: request sent at 70 ms, the reply seen at 99 ms.
    let timing = PageTiming {
        request_start_ms: Some(70.0),
        response_start_ms: Some(99.0),
        response_end_ms: Some(150.0),
    };
    let p = of_sample(&sample(100.0, timeline(2.0, 20.0), Some(timing))).unwrap();
    // Headers at the page's 70–79 ms: the middle, ±4.5.
    assert_eq!(p.uncertainty_ms, 4.5);
    assert_eq!(p.preparing_ms, 74.5 + 2.0);
    assert_eq!(p.wire_ms, 18.0);
    assert_eq!(p.reply_ms, 100.0 - 74.5 - 20.0);
    assert!((p.preparing_ms + p.wire_ms + p.reply_ms - 100.0).abs() < 1e-9);
}

#[test]
fn without_resource_timing_the_whole_slack_is_uncertain() {
    let p = of_sample(&sample(100.0, timeline(2.0, 20.0), None)).unwrap();
    // Headers anywhere in the page's 0–80 ms.
    assert_eq!((p.preparing_ms, p.uncertainty_ms), (42.0, 40.0));
    assert_eq!(p.reply_ms, 40.0);
}

#[test]
fn no_timeline_no_phases() {
    let mut s = sample(100.0, timeline(2.0, 20.0), None);
    s.timeline = None;
    assert_eq!(of_sample(&s), None);
}

/// A module's upload of two requests, as the sink combines them: 0–30 and 40–70 ms.
fn two_requests() -> Timeline {
    let mut t = timeline(1.0, 70.0);
    t.requests = [(0.0, 1.0, 30.0), (39.0, 40.0, 70.0)]
        .map(|(arrived, first, last)| crate::domain::timeline::Span {
            arrived_ms: arrived,
            first_byte_ms: Some(first),
            last_byte_ms: Some(last),
            bytes: 512,
        })
        .to_vec();
    t
}

fn arm_of(kind: ArmKind) -> Arm {
    Arm {
        kind,
        transport: None,
        condition: None,
        api: None,
        repeat: false,
    }
}

#[test]
fn a_modules_requests_have_phases_from_its_first_request_to_its_last_reply() {
    // The page marks the first request's start at 10 ms and the last reply at 89 ms of
    // a 100 ms call: headers at 10–19 ms on the page's clock.
    let timing = PageTiming {
        request_start_ms: Some(10.0),
        response_start_ms: Some(89.0),
        response_end_ms: Some(89.5),
    };
    let mut s = sample(100.0, two_requests(), Some(timing));
    s.recorded_arm = Some(arm_of(ArmKind::Module {
        name: crate::domain::workload::ModuleName::new("mine").unwrap(),
        sha256: "ab".repeat(32),
    }));
    let p = of_sample(&s).unwrap();
    assert_eq!((p.preparing_ms, p.wire_ms), (14.5 + 1.0, 69.0));
    assert_eq!((p.reply_ms, p.uncertainty_ms), (100.0 - 14.5 - 70.0, 4.5));
    // Several requests of any other arm (an encrypted file's chunks) have no one span.
    s.recorded_arm = Some(arm_of(ArmKind::Download));
    assert_eq!(of_sample(&s), None);
}
