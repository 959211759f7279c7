//! `run-finished`: record how the run ended.

use super::{invalid_run_id, store_failed, Session};
use crate::model::{valid_run_id, RunStatus};
use crate::protocol::Outgoing;
use crate::store::{records::now, Record};

pub fn handle(
    session: &mut Session,
    run_id: String,
    status: RunStatus,
    reason: Option<String>,
    observation: Option<serde_json::Value>,
) -> Outgoing {
    if !valid_run_id(&run_id) {
        return invalid_run_id(&run_id, "run-finished");
    }
    // A run ends once. A second end (e.g. a restarted background that thinks the run was
    // orphaned) must not overwrite how it really ended.
    let already = session.store.read().map(|c| {
        c.records
            .iter()
            .any(|(_, r)| matches!(r, Record::RunEnd { run_id: id, .. } if *id == run_id))
    });
    if let Ok(true) = already {
        log::info!("run {run_id} had already ended; ignoring a second end ({status:?})");
        return Outgoing::RunFinished { run_id };
    }
    log::info!(
        "run {run_id} finished: {status:?} {}",
        reason.as_deref().unwrap_or("")
    );
    let record = Record::RunEnd {
        run_id: run_id.clone(),
        status,
        reason,
        recorded_at: now(),
        observation,
    };
    match session.store.append(&[record]) {
        Ok(()) => Outgoing::RunFinished { run_id },
        Err(e) => store_failed(e, "run-finished"),
    }
}
