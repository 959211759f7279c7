use super::*;
use std::time::Duration;

/// A record of frames of `len` bytes at the given offsets (µs) from the arrival.
fn recorded(at_us: impl IntoIterator<Item = u64>, len: usize) -> Timeline {
    let start = Instant::now();
    let mut r = Recorder::new(start);
    for us in at_us {
        r.frame(start + Duration::from_micros(us), len);
    }
    r.finish()
}

fn assert_well_formed(t: &Timeline) {
    assert!(t.points.len() <= MAX_POINTS, "{} points", t.points.len());
    for w in t.points.to_vec().windows(2) {
        assert!(w[0].0 <= w[1].0 && w[0].1 < w[1].1, "not monotonic: {w:?}");
    }
    assert_eq!(
        t.points.last().map(|p| p.1),
        Some(t.bytes),
        "ends at the bytes"
    );
    assert_eq!(t.points.last().map(|p| p.0), t.last_byte_ms);
}

#[test]
fn a_steady_upload_has_no_stalls_and_ends_at_its_bytes() {
    let t = recorded((1..=2000).map(|i| i * 500), 65536);
    assert_well_formed(&t);
    assert_eq!(t.bytes, 2000 * 65536);
    assert_eq!((t.stall_count, t.stalls.len()), (0, 0));
    assert_eq!(t.first_byte_ms, Some(0.5));
    assert_eq!(t.last_byte_ms, Some(1000.0));
}

#[test]
fn a_gap_is_a_stall_with_its_place_and_length() {
    // 16 frames, 400 ms of nothing, 16 more.
    let frames = (0..16)
        .map(|i| 1000 + i * 100)
        .chain((0..16).map(|i| 401_500 + i * 100));
    let t = recorded(frames, 65536);
    assert_well_formed(&t);
    assert_eq!(t.stall_count, 1);
    let s = t.stalls[0];
    assert_eq!(s.at_bytes, 1 << 20);
    assert_eq!((s.at_ms, s.ms), (2.5, 399.0));
    assert_eq!(t.stalled_ms, 399.0);
}

#[test]
fn a_gap_of_ten_ms_or_less_is_no_stall() {
    let t = recorded([0, 10_000, 20_000, 30_001], 1);
    assert_eq!(t.stall_count, 1, "only the 10.001 ms gap");
}

#[test]
fn points_stay_bounded_whatever_the_length_or_rate() {
    // A million frames over 1000 s, then a burst: the width doubles as needed.
    let frames = (0..1_000_000u64)
        .map(|i| i * 1000)
        .chain((0..5000).map(|i| 1_000_000_000 + i));
    let t = recorded(frames, 1024);
    assert_well_formed(&t);
    assert!(t.points.len() > MAX_POINTS / 4, "{} points", t.points.len());
    assert!(
        t.bucket_ms >= 1000.0 * 1000.0 / MAX_POINTS as f64,
        "{}",
        t.bucket_ms
    );
}

#[test]
fn the_longest_stalls_are_kept_and_every_one_counted() {
    // 100 stalls of 11..=110 ms.
    let mut at = 0;
    let frames: Vec<u64> = (0..=100)
        .map(|i| {
            at += (10 + i) * 1000;
            at
        })
        .collect();
    let t = recorded(frames, 1);
    assert_eq!(t.stall_count, 100);
    assert_eq!(t.stalls.len(), MAX_STALLS);
    assert!(t
        .stalls
        .iter()
        .all(|s| s.ms > (100 - MAX_STALLS) as f64 + 10.0));
    assert!(
        t.stalls.windows(2).all(|w| w[0].at_ms < w[1].at_ms),
        "time order"
    );
}

fn at_clock(mut t: Timeline, sink_clock_ms: f64) -> Timeline {
    t.sink_clock_ms = sink_clock_ms;
    t
}

#[test]
fn sequential_requests_combine_with_the_gaps_between_them_as_stalls() {
    let chunk = || recorded((1..=100).map(|i| i * 100), 1000); // 10 ms each
    let parts = [
        at_clock(chunk(), 1000.0),
        at_clock(chunk(), 1060.0), // 50 ms after the first ended
        at_clock(chunk(), 1075.0), // 5 ms after: no stall
    ];
    let t = combine(&parts).unwrap();
    assert_well_formed(&t);
    assert_eq!(t.bytes, 300_000);
    assert_eq!(t.stall_count, 1, "{:?}", t.stalls);
    assert_eq!(t.stalls[0].at_bytes, 100_000);
    assert!((t.stalls[0].ms - 50.1).abs() < 0.01, "{:?}", t.stalls);
    assert_eq!(t.requests.len(), 3);
    assert_eq!(t.requests[1].arrived_ms, 60.0);
    assert_eq!((t.first_byte_ms, t.last_byte_ms), (Some(0.1), Some(85.0)));
}

#[test]
fn overlapping_requests_have_no_stall_while_either_receives() {
    let stalled = recorded([100, 200, 60_000, 60_100], 1000); // a 59.8 ms stall
    let steady = recorded((1..=700).map(|i| i * 100), 1000);
    let t = combine(&[at_clock(stalled, 0.0), at_clock(steady, 0.0)]).unwrap();
    assert_well_formed(&t);
    assert_eq!(t.stall_count, 0, "{:?}", t.stalls);
    assert_eq!(t.bytes, 704_000);
    assert_eq!(combine(&[]), None);
}

#[test]
fn folding_requests_one_at_a_time_keeps_every_gap_and_span() {
    // 40 chunk PUTs 20 ms apart: more gaps than MAX_STALLS keeps.
    let chunk = |i: usize| at_clock(recorded((1..=10).map(|i| i * 100), 1000), i as f64 * 21.0);
    let parts: Vec<Timeline> = (0..40).map(chunk).collect();
    let at_once = combine(&parts).unwrap();
    let mut folded: Option<Timeline> = None;
    for p in &parts {
        let acc: Vec<Timeline> = folded.take().into_iter().chain([p.clone()]).collect();
        folded = combine(&acc);
    }
    let folded = folded.unwrap();
    assert_eq!(at_once.stall_count, 39);
    assert_eq!(folded.stall_count, at_once.stall_count);
    assert_eq!(folded.requests, at_once.requests);
    assert_eq!(folded.bytes, 400_000);
    assert_well_formed(&folded);
}
