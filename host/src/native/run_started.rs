//! `run-started`: record the run's browser, plan and origin before any sample.

use super::{invalid_run_id, store_failed, Session};
use crate::model::{valid_run_id, RunInfo};
use crate::protocol::Outgoing;
use crate::store::{records::now, Record};

pub fn handle(session: &mut Session, run: RunInfo) -> Outgoing {
    if !valid_run_id(&run.run_id) {
        return invalid_run_id(&run.run_id, "run-started");
    }
    let run_id = run.run_id.clone();
    let record = Record::Run { run, host_version: env!("CARGO_PKG_VERSION").into(), recorded_at: now() };
    match session.store.append(&[record]) {
        Ok(()) => {
            log::info!("run {run_id} started");
            Outgoing::RunStarted { run_id }
        }
        Err(e) => store_failed(e, "run-started"),
    }
}
