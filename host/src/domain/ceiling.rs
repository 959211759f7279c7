//! A sink's receive ceiling, as a run records it.

use serde::{Deserialize, Serialize};

/// A sink's receive ceiling: the median and the slowest and fastest of its timed
/// rounds (`sink::ceiling::receive_rates`). Stored per transport for the TLS sinks.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TransportCeiling {
    pub receive_mbps: f64,
    pub receive_range: (f64, f64),
}
