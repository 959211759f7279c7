//! What the sink saw of one upload, over time: when its headers, first and last body
//! bytes arrived, cumulative bytes in adaptive buckets (at most `MAX_POINTS`, whatever
//! the size), and the stalls (gaps over `STALL_NS`) with where they fell. The record
//! only; `sink::timeline` records it on the receive path.

mod points;
pub use points::Points;

use serde::{Deserialize, Serialize};

/// The record's format; bumped when a field changes meaning.
pub const VERSION: u32 = 1;
/// Points per upload, whatever its size: when full, adjacent buckets merge pairwise.
pub const MAX_POINTS: usize = crate::domain::limits::INPUT.timeline_points;
/// A gap with no bytes longer than this is a stall.
pub const STALL_NS: u64 = 10_000_000;
/// Stalls kept with their place: the longest ones (all are counted).
pub const MAX_STALLS: usize = crate::domain::limits::INPUT.timeline_stalls;
/// One upload's arrival record, as the sink's reply carries it under `timeline`.
/// Times are milliseconds from the request's arrival (its headers).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Timeline {
    /// This record's format (`VERSION`).
    pub v: u32,
    /// When the request's headers arrived, in ms on the sink's clock (since the host
    /// started): places the requests of one upload on one axis.
    pub sink_clock_ms: f64,
    pub first_byte_ms: Option<f64>,
    pub last_byte_ms: Option<f64>,
    /// Body bytes received, as `bytes_received`.
    pub bytes: u64,
    /// The bucket width the points ended with.
    pub bucket_ms: f64,
    /// `[ms, cumulative bytes]` at the last frame of each bucket; the last is the last
    /// byte and `bytes`.
    pub points: Points,
    /// The longest stalls (at most `MAX_STALLS`), in time order.
    pub stalls: Vec<Stall>,
    /// Every stall, kept or not, and their total length.
    pub stall_count: u64,
    pub stalled_ms: f64,
    /// A combined record (an encrypted upload's chunk PUTs, parallel streams): each
    /// request's span on the same axis.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub requests: Vec<Span>,
}

/// A gap with no body bytes: it began `at_ms` after `at_bytes` bytes and lasted `ms`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Stall {
    pub at_ms: f64,
    pub at_bytes: u64,
    pub ms: f64,
}

/// One request of a combined record: its arrival, first and last byte, on the
/// combined record's axis.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Span {
    pub arrived_ms: f64,
    pub first_byte_ms: Option<f64>,
    pub last_byte_ms: Option<f64>,
    pub bytes: u64,
}
