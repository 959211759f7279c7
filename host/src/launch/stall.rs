//! Which side stalled when a run runs out of time: the host uploads 16 bytes to the
//! run's sink with its own client (`sink::answers`). An answer (any answer) within
//! `STALL_PROBE` says the sink is there and quick, so the page or its browser stalled;
//! none says the sink, or the link to it, did.

use crate::domain::run::{EndReason, STALL_PROBE};
use crate::sink::answers::{answers_within, SinkAt};

/// The side that stalled, for a run on the sink `at` that ran out of time. Blocks at
/// most `STALL_PROBE`.
pub fn side(at: &SinkAt) -> EndReason {
    EndReason::of_stall(answers_within(at, STALL_PROBE))
}
