//! Several requests' records on one axis: an encrypted upload's chunk PUTs one after
//! another, or parallel streams at once. The combined curve is the sum of theirs, its
//! stalls the gaps when no request was receiving, and each request keeps its span.

use super::{ms, Buckets, Stalls, Timeline, MAX_POINTS, STALL_NS, VERSION};
use crate::domain::timeline::Span;

fn ns(ms: f64) -> u64 {
    (ms.max(0.0) * 1e6).round() as u64
}

/// The requests' records combined on the sink's clock, from the earliest arrival.
pub fn combine(parts: &[Timeline]) -> Option<Timeline> {
    let origin = parts
        .iter()
        .map(|p| p.sink_clock_ms)
        .min_by(f64::total_cmp)?;
    let shift = |p: &Timeline| p.sink_clock_ms - origin;
    let curve = summed(parts, &shift);
    let mut buckets = Buckets::new();
    for &(t, total) in &curve {
        buckets.add(t, total);
    }
    let (stalls, stall_count, stalled_ms) = idle_gaps(parts, &shift, &curve).finish();
    let mut requests: Vec<Span> = parts
        .iter()
        .flat_map(|p| {
            let s = shift(p);
            let at = move |t: f64| ms(ns(t + s));
            spans(p).into_iter().map(move |r| Span {
                arrived_ms: at(r.arrived_ms),
                first_byte_ms: r.first_byte_ms.map(at),
                last_byte_ms: r.last_byte_ms.map(at),
                bytes: r.bytes,
            })
        })
        .collect();
    requests.sort_by(|a, b| a.arrived_ms.total_cmp(&b.arrived_ms));
    requests.truncate(MAX_POINTS);
    let first = requests.iter().filter_map(|r| r.first_byte_ms);
    let last = requests.iter().filter_map(|r| r.last_byte_ms);
    Some(Timeline {
        v: VERSION,
        sink_clock_ms: origin,
        first_byte_ms: first.min_by(f64::total_cmp),
        last_byte_ms: last.max_by(f64::total_cmp),
        bytes: parts.iter().map(|p| p.bytes).sum(),
        bucket_ms: buckets.width_ms(),
        points: buckets.points(),
        stalls,
        stall_count,
        stalled_ms,
        requests,
    })
}

/// `(ns, total bytes)` at every point of every part, in time order.
fn summed(parts: &[Timeline], shift: &dyn Fn(&Timeline) -> f64) -> Vec<(u64, u64)> {
    let mut events: Vec<(u64, usize, u64)> = parts
        .iter()
        .enumerate()
        .flat_map(|(i, p)| {
            let s = shift(p);
            p.points.iter().map(move |(t, b)| (ns(t + s), i, b))
        })
        .collect();
    events.sort_unstable();
    let mut each = vec![0u64; parts.len()];
    let mut total = 0u64;
    events
        .into_iter()
        .map(|(t, i, b)| {
            total = total - each[i] + b.max(each[i]);
            each[i] = b.max(each[i]);
            (t, total)
        })
        .collect()
}

/// A part's requests on its own axis: those it already combines, or itself.
fn spans(p: &Timeline) -> Vec<Span> {
    if !p.requests.is_empty() {
        return p.requests.clone();
    }
    vec![Span {
        arrived_ms: 0.0,
        first_byte_ms: p.first_byte_ms,
        last_byte_ms: p.last_byte_ms,
        bytes: p.bytes,
    }]
}

/// When a part was receiving, on its own axis: each request from its first to its last
/// byte, except during the part's (kept) stalls.
fn busy(p: &Timeline) -> Vec<(f64, f64)> {
    let mut out = Vec::new();
    for r in spans(p) {
        let (Some(first), Some(last)) = (r.first_byte_ms, r.last_byte_ms) else {
            continue;
        };
        let mut from = first;
        for stall in p
            .stalls
            .iter()
            .filter(|s| s.at_ms >= first && s.at_ms < last)
        {
            out.push((from, stall.at_ms));
            from = stall.at_ms + stall.ms;
        }
        out.push((from, last.max(from)));
    }
    out
}

/// Gaps longer than a stall when no part was receiving (`busy`).
fn idle_gaps(parts: &[Timeline], shift: &dyn Fn(&Timeline) -> f64, curve: &[(u64, u64)]) -> Stalls {
    let mut busy: Vec<(u64, u64)> = parts
        .iter()
        .flat_map(|p| {
            let s = shift(p);
            busy(p)
                .into_iter()
                .map(move |(a, b)| (ns(a + s), ns(b + s)))
        })
        .collect();
    busy.sort_unstable();
    let mut stalls = Stalls::new();
    let mut reach: Option<u64> = None;
    for (start, end) in busy {
        if let Some(r) = reach.filter(|&r| start > r && start - r > STALL_NS) {
            let at = curve.partition_point(|&(t, _)| t <= r);
            let bytes = at.checked_sub(1).map_or(0, |i| curve[i].1);
            stalls.add(r, bytes, start - r);
        }
        reach = Some(reach.map_or(end, |r| r.max(end)));
    }
    stalls
}
