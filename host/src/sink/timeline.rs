//! The sink's recorder of one upload's arrival: its frames into the record
//! `domain::timeline::Timeline` (adaptive buckets, stalls with their place).
//!
//! Cheap on the receive path: per frame one clock read (the loop's own) and a few adds
//! and compares into buffers allocated once at the request's start.

mod combine;
pub use combine::combine;

use crate::domain::timeline::{Points, Stall, Timeline, MAX_POINTS, MAX_STALLS, STALL_NS, VERSION};
use std::sync::OnceLock;
use std::time::Instant;

/// The first bucket width; doubled each time the points fill.
const FIRST_WIDTH_NS: u64 = 100_000;

/// The benchmark seam: `UNOBSERVED_BENCH_NO_TIMELINE=1` turns recording off, to measure
/// what it costs against the receive ceiling (BENCHMARKS.md). Never set in use.
pub fn enabled() -> bool {
    std::env::var_os("UNOBSERVED_BENCH_NO_TIMELINE").is_none()
}

/// The sink's clock: every request's arrival is placed on it, so the chunk PUTs of one
/// upload share a time axis.
pub(crate) fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

/// Nanoseconds to milliseconds, to 10 µs: finer than any chart or stall needs.
pub(crate) fn ms(ns: u64) -> f64 {
    (ns as f64 / 10_000.0).round() / 100.0
}

/// Cumulative bytes in at most `MAX_POINTS` buckets of a width that doubles as needed.
pub(crate) struct Buckets {
    width: u64,
    /// Where the current (last) bucket ends.
    end: u64,
    points: Vec<(u64, u64)>,
}

impl Buckets {
    pub(crate) fn new() -> Buckets {
        Buckets {
            width: FIRST_WIDTH_NS,
            end: 0,
            points: Vec::with_capacity(MAX_POINTS),
        }
    }

    /// `total` bytes had arrived at `t` ns.
    #[inline]
    pub(crate) fn add(&mut self, t: u64, total: u64) {
        if t < self.end {
            if let Some(last) = self.points.last_mut() {
                *last = (t, total);
                return;
            }
        }
        if self.points.len() == MAX_POINTS {
            self.coarsen();
            if t < self.end {
                *self.points.last_mut().expect("coarsening keeps points") = (t, total);
                return;
            }
        }
        self.points.push((t, total));
        self.end = (t / self.width + 1) * self.width;
    }

    /// Doubles the width until adjacent buckets merged pairwise leave room: each keeps
    /// its last point. In place, no allocation.
    fn coarsen(&mut self) {
        while self.points.len() >= MAX_POINTS {
            self.width *= 2;
            let width = self.width;
            let mut kept = 0;
            for i in 0..self.points.len() {
                let p = self.points[i];
                if kept > 0 && self.points[kept - 1].0 / width == p.0 / width {
                    self.points[kept - 1] = p;
                } else {
                    self.points[kept] = p;
                    kept += 1;
                }
            }
            self.points.truncate(kept);
        }
        let last = self.points.last().map_or(0, |p| p.0);
        self.end = (last / self.width + 1) * self.width;
    }

    pub(crate) fn points(&self) -> Points {
        self.points.iter().map(|&(t, b)| (ms(t), b)).collect()
    }

    pub(crate) fn width_ms(&self) -> f64 {
        ms(self.width)
    }
}

/// Every stall counted; the `MAX_STALLS` longest kept with their place.
#[derive(Default)]
pub(crate) struct Stalls {
    kept: Vec<(u64, u64, u64)>,
    count: u64,
    total: u64,
}

impl Stalls {
    pub(crate) fn new() -> Stalls {
        Stalls {
            kept: Vec::with_capacity(MAX_STALLS),
            ..Stalls::default()
        }
    }

    /// No bytes from `at` ns (after `bytes`) for `gap` ns.
    pub(crate) fn add(&mut self, at: u64, bytes: u64, gap: u64) {
        self.count += 1;
        self.total += gap;
        if self.kept.len() < MAX_STALLS {
            self.kept.push((at, bytes, gap));
        } else if let Some(shortest) = self.kept.iter_mut().min_by_key(|s| s.2) {
            if shortest.2 < gap {
                *shortest = (at, bytes, gap);
            }
        }
    }

    /// Into the record's fields: the kept stalls in time order, the count, the total.
    pub(crate) fn finish(mut self) -> (Vec<Stall>, u64, f64) {
        self.kept.sort_unstable();
        let stalls = self
            .kept
            .iter()
            .map(|&(at, at_bytes, gap)| Stall {
                at_ms: ms(at),
                at_bytes,
                ms: ms(gap),
            })
            .collect();
        (stalls, self.count, ms(self.total))
    }
}

/// Records one upload's frames as they arrive.
pub struct Recorder {
    start: Instant,
    first: Option<u64>,
    last: u64,
    bytes: u64,
    buckets: Buckets,
    stalls: Stalls,
}

impl Recorder {
    /// From the request's arrival (its headers).
    pub fn new(start: Instant) -> Recorder {
        epoch();
        Recorder {
            start,
            first: None,
            last: 0,
            bytes: 0,
            buckets: Buckets::new(),
            stalls: Stalls::new(),
        }
    }

    /// A frame of `len` bytes arrived at `at` (the receive loop's own clock read).
    #[inline]
    pub fn frame(&mut self, at: Instant, len: usize) {
        if len == 0 {
            return;
        }
        let t = at.saturating_duration_since(self.start).as_nanos() as u64;
        match self.first {
            None => self.first = Some(t),
            Some(_) if t - self.last > STALL_NS => {
                self.stalls.add(self.last, self.bytes, t - self.last)
            }
            Some(_) => {}
        }
        self.last = t;
        self.bytes += len as u64;
        self.buckets.add(t, self.bytes);
    }

    pub fn finish(self) -> Timeline {
        let (stalls, stall_count, stalled_ms) = self.stalls.finish();
        Timeline {
            v: VERSION,
            sink_clock_ms: ms(self.start.saturating_duration_since(epoch()).as_nanos() as u64),
            first_byte_ms: self.first.map(ms),
            last_byte_ms: self.first.map(|_| ms(self.last)),
            bytes: self.bytes,
            bucket_ms: self.buckets.width_ms(),
            points: self.buckets.points(),
            stalls,
            stall_count,
            stalled_ms,
            requests: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests;
