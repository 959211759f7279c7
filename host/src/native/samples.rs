//! `samples`: store a batch (fsynced), then acknowledge it with the count. Each sample
//! must fit its run (`verify::fit`: the plan's arms, reps and sizes, once each, within
//! the run's caps, while it is open) or the batch is refused with error 18 and nothing
//! is stored. Each sample's received side is the sink's ledger record and its status the
//! host's judgement (`verify/`), never the page's word.

use super::{invalid_run_id, store_failed, unknown_run, Session};
use crate::domain::run::valid_run_id;
use crate::domain::sample::Sample;
use crate::platform::untrusted::Clipped;
use crate::protocol::{ErrorCode, MessageType, Outgoing};
use crate::store::Record;
use crate::verify::fit::{only_known, Misfit};

pub fn handle(session: &mut Session, run_id: String, samples: Vec<Sample>) -> Outgoing {
    if !valid_run_id(&run_id) {
        return invalid_run_id(&run_id, MessageType::Samples);
    }
    let Some(book) = session.started.get(&run_id) else {
        return unknown_run(&run_id, MessageType::Samples);
    };
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
    if let Err(misfit) = book.check_claims(&samples) {
        return refused(&run_id, &misfit);
    }
    let count = samples.len();
    let samples: Vec<Sample> = samples.into_iter().map(only_known).collect();
    let judged = match session.remote.get_mut(&run_id) {
        Some(remote) => crate::verify::verify_from(remote, &run_id, samples),
        None => crate::verify::verify(session.sink.ledger(), &run_id, samples),
    };
    let pages: Vec<(u32, Option<u32>)> = judged.iter().map(|s| (s.rep, s.page_load)).collect();
    let records: Vec<Record> = judged.into_iter().map(Record::Sample).collect();
    let lines: Vec<usize> = records
        .iter()
        .map(|r| serde_json::to_vec(r).map_or(usize::MAX, |l| l.len()))
        .collect();
    let book = session.started.get_mut(&run_id).expect("checked above");
    let stored: Vec<Sample> = records
        .iter()
        .filter_map(|r| match r {
            Record::Sample(s) => Some(s.clone()),
            _ => None,
        })
        .collect();
    if let Err(misfit) = book.check_stored(&stored, &lines) {
        return refused(&run_id, &misfit);
    }
    match session.store.append(&records) {
        Ok(()) => {
            book.took(&stored, &lines);
            super::run_conditions::stored(session, &run_id, &pages);
            log::info!("stored {count} sample(s) of run {run_id}");
            Outgoing::SamplesAck { run_id, count }
        }
        Err(e) => store_failed(e, MessageType::Samples),
    }
}

/// Error 18: the samples do not fit their run; nothing was stored.
fn refused(run_id: &str, misfit: &Misfit) -> Outgoing {
    log::warn!("refused samples of run {run_id}: {misfit}");
    Outgoing::sample_refused(misfit)
}
