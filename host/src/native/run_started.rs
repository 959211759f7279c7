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
    let remote = run.extra.get("sink").and_then(|v| v.as_str()) == Some("remote");
    let ceiling = if remote {
        None
    } else {
        match crate::sink::ceiling::measure(
            session.sink.addr(),
            &session.sink.upload_path(),
            run.plan.size_bytes,
        ) {
            Ok(c) => Some(c),
            Err(e) => {
                log::warn!("could not measure the sink's ceiling: {e}");
                None
            }
        }
    };
    let record = Record::Run {
        run,
        host_version: env!("CARGO_PKG_VERSION").into(),
        recorded_at: now(),
        sink_ceiling_mbps: ceiling.map(|c| c.receive_mbps),
        sink_ceiling_range: ceiling.map(|c| c.receive_range),
        sink_hash_mbps: ceiling.map(|c| c.hash_mbps),
        cpu: crate::cpu::describe(),
    };
    match session.store.append(&[record]) {
        Ok(()) => {
            log::info!("run {run_id} started; sink ceiling {ceiling:?}");
            Outgoing::RunStarted {
                run_id,
                sink_ceiling_mbps: ceiling.map(|c| c.receive_mbps),
            }
        }
        Err(e) => store_failed(e, "run-started"),
    }
}
