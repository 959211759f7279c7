//! Several requests' records on one axis: an encrypted upload's chunk PUTs one after
//! another, or parallel streams at once. The combined curve is the sum of theirs, its
//! stalls the gaps when no request was receiving, and each request keeps its span.

use super::{ms, Buckets, Span, Stalls, Timeline, MAX_POINTS, STALL_NS, VERSION};

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
    let on_axis = |p: &Timeline, t: Option<f64>| t.map(|t| t + shift(p));
    let mut requests: Vec<Span> = parts
        .iter()
        .map(|p| Span {
            arrived_ms: ms(ns(shift(p))),
            first_byte_ms: on_axis(p, p.first_byte_ms).map(|t| ms(ns(t))),
            last_byte_ms: on_axis(p, p.last_byte_ms).map(|t| ms(ns(t))),
            bytes: p.bytes,
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
            p.points.iter().map(move |&(t, b)| (ns(t + s), i, b))
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

/// Gaps longer than a stall when no part was receiving: each part receives from its
/// first to its last byte except during its own (kept) stalls.
fn idle_gaps(parts: &[Timeline], shift: &dyn Fn(&Timeline) -> f64, curve: &[(u64, u64)]) -> Stalls {
    let mut busy: Vec<(u64, u64)> = Vec::new();
    for p in parts {
        let (Some(first), Some(last)) = (p.first_byte_ms, p.last_byte_ms) else {
            continue;
        };
        let s = shift(p);
        let mut from = first + s;
        for stall in &p.stalls {
            busy.push((ns(from), ns(stall.at_ms + s)));
            from = stall.at_ms + stall.ms + s;
        }
        busy.push((ns(from), ns(last + s)));
    }
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
