//! `turn`: an interleaved build's page asks before each rep, and gets its answer when
//! the other builds have had theirs (`interleave.rs`). A run that takes no turns is
//! answered at once.

use super::{invalid_run_id, job_run, unknown_run, Session};
use crate::domain::run::valid_run_id;
use crate::protocol::{ErrorCode, MessageType, Outgoing};

pub fn handle(session: &mut Session, run_id: String) -> Outgoing {
    if !valid_run_id(&run_id) {
        return invalid_run_id(&run_id, MessageType::Turn);
    }
    if !session.started.contains_key(&run_id) {
        return unknown_run(&run_id, MessageType::Turn);
    }
    if let Some((_, gate)) = job_run::of(&mut session.job, &run_id).and_then(|j| j.turns.as_mut()) {
        if let Err(e) = gate.take_next() {
            return Outgoing::error(
                ErrorCode::TurnFailed,
                e.to_string(),
                Some(MessageType::Turn.into()),
            );
        }
    }
    Outgoing::Turn { run_id }
}
