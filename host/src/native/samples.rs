//! `samples`: store a batch (fsynced), then acknowledge it with the count. Each sample's
//! received side is the sink's ledger record and its status the host's judgement
//! (`verify/`), never the page's word.

use super::{invalid_run_id, store_failed, unknown_run, Session};
use crate::model::{valid_run_id, Sample};
use crate::protocol::{ErrorCode, MessageType, Outgoing};
use crate::store::Record;
use crate::untrusted::Clipped;

pub fn handle(session: &mut Session, run_id: String, samples: Vec<Sample>) -> Outgoing {
    if !valid_run_id(&run_id) {
        return invalid_run_id(&run_id, MessageType::Samples);
    }
    if !session.started.contains(&run_id) {
        return unknown_run(&run_id, MessageType::Samples);
    }
    if let Some(stray) = samples.iter().find(|s| s.run_id != run_id) {
        return Outgoing::error(
            ErrorCode::InvalidField,
            format!(
                "a sample belongs to run {:?}, not {run_id:?}; nothing was stored",
                Clipped(stray.run_id.as_str())
            ),
            Some(MessageType::Samples.into()),
        );
    }
    let count = samples.len();
    let judged = match session.remote.get_mut(&run_id) {
        Some(remote) => crate::verify::verify_from(remote, &run_id, samples),
        None => crate::verify::verify(session.sink.ledger(), &run_id, samples),
    };
    let records: Vec<Record> = judged.into_iter().map(Record::Sample).collect();
    match session.store.append(&records) {
        Ok(()) => {
            log::info!("stored {count} sample(s) of run {run_id}");
            Outgoing::SamplesAck { run_id, count }
        }
        Err(e) => store_failed(e, MessageType::Samples),
    }
}
