//! `workload-key`: the extension's per-run AES-256-GCM key, so the sink can decrypt and
//! verify encrypted chunks. It travels only over native messaging and is never stored
//! or logged.

use super::{invalid_run_id, unknown_run, Session};
use crate::domain::run::valid_run_id;
use crate::protocol::{ErrorCode, MessageType, Outgoing};

pub fn handle(session: &mut Session, run_id: String, key: String) -> Outgoing {
    if !valid_run_id(&run_id) {
        return invalid_run_id(&run_id, MessageType::WorkloadKey);
    }
    if !session.started.contains_key(&run_id) {
        return unknown_run(&run_id, MessageType::WorkloadKey);
    }
    let Some(key) = hex::decode(&key)
        .ok()
        .and_then(|k| <[u8; 32]>::try_from(k).ok())
    else {
        return Outgoing::error(
            ErrorCode::InvalidField,
            "key must be 64 hex digits (AES-256)",
            Some(MessageType::WorkloadKey.into()),
        );
    };
    session.sink.chunks().set_key(&run_id, key);
    log::info!("workload key set for run {run_id}");
    Outgoing::WorkloadKey { run_id }
}
