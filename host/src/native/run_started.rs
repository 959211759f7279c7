//! `run-started`: record the run's browser, plan and origin before any sample.

use super::tls_sinks::Source;
use super::{invalid_run_id, store_failed, Session};
use crate::arm::Transport;
use crate::model::{valid_run_id, RunInfo};
use crate::protocol::messages::PlannedArm;
use crate::protocol::{ErrorCode, MessageType, Outgoing};
use crate::sink::remote::SinkUrl;
use crate::sink::remote_ledger::RemoteLedger;
use crate::store::{records::now, Record, RunRecord};

pub fn handle(session: &mut Session, mut run: RunInfo) -> Outgoing {
    // A popup's plan is held to the same rules as the CLI's, before anything is started
    // or stored.
    if let Err(e) = run.plan.validate() {
        return Outgoing::invalid_plan(&e, MessageType::RunStarted);
    }
    if !valid_run_id(&run.run_id) {
        return invalid_run_id(&run.run_id, MessageType::RunStarted);
    }
    let run_id = run.run_id.clone();
    if let Err(why) = start_tls_sinks(session, &run.plan.transports) {
        return refused(
            ErrorCode::TransportUnavailable,
            format!("{why}; nothing was recorded"),
        );
    }
    // A refusal comes before the turn and the calibration: a refused build must not
    // hold the other's turn.
    let remote = run.extra.get("sink").and_then(|v| v.as_str()) == Some("remote");
    let remote_ledger = match remote_ledger(&mut run, remote) {
        Ok(ledger) => ledger,
        Err(refused) => return *refused,
    };
    if let Err(refused) = super::modules::prepare(session, &mut run, remote) {
        return *refused;
    }
    let module_seed = run.plan.module_seed.clone();
    // Before the ceiling probe, which would otherwise be the load it measures.
    let (machine, interleaved) = match super::job_run::start(&mut session.job, &run_id) {
        Ok(started) => started,
        Err(e) => return refused(ErrorCode::TurnFailed, e.to_string()),
    };
    let ceiling = (!remote)
        .then(|| own_ceiling(session, run.plan.size_bytes))
        .flatten();
    let (planned, measured_uploads) = (run.plan.arms(), run.plan.measured_uploads());
    let transport_ceilings = session
        .tls
        .ceilings(run.plan.size_bytes, &run.plan.transports);
    let mut upload_urls = session.tls.upload_urls();
    upload_urls.insert(Transport::H1, session.sink.upload_url());
    let record = Record::Run(RunRecord {
        run,
        host_version: env!("CARGO_PKG_VERSION").into(),
        recorded_at: now(),
        sink_ceiling_mbps: ceiling.map(|c| c.receive.receive_mbps),
        sink_ceiling_range: ceiling.map(|c| c.receive.receive_range),
        sink_hash_mbps: ceiling.map(|c| c.hash_mbps),
        cpu: crate::cpu::describe(),
        transport_ceilings,
        interleaved: interleaved.clone(),
    });
    match session.store.append(&[record, Record::Machine(machine)]) {
        Ok(()) => {
            log::info!("run {run_id} started; sink ceiling {ceiling:?}");
            session.started.insert(run_id.clone());
            if let Some(ledger) = remote_ledger {
                session.remote.insert(run_id.clone(), ledger);
            }
            Outgoing::RunStarted {
                run_id,
                sink_ceiling_mbps: ceiling.map(|c| c.receive.receive_mbps),
                arms: planned
                    .into_iter()
                    .map(|arm| PlannedArm {
                        label: arm.label(),
                        arm,
                    })
                    .collect(),
                measured_uploads,
                upload_urls,
                take_turns: interleaved.is_some(),
                module_seed,
            }
        }
        Err(e) => store_failed(e, MessageType::RunStarted),
    }
}

/// An error in reply to `run-started`.
fn refused(code: ErrorCode, message: String) -> Outgoing {
    Outgoing::error(code, message, Some(MessageType::RunStarted.into()))
}

/// The local sink's receive ceiling at the plan's body size (a remote sink's is not ours
/// to probe); None, with a warning, when it cannot be measured.
fn own_ceiling(session: &Session, size_bytes: u64) -> Option<crate::sink::ceiling::Ceiling> {
    let measured =
        crate::sink::ceiling::measure(session.sink.addr(), &session.sink.upload_path(), size_bytes);
    measured
        .map_err(|e| log::warn!("could not measure the sink's ceiling: {e}"))
        .ok()
}

/// Where a run on a remote sink claims its records: the URL it names in `sink_url`,
/// taken out of the run, since its token is the sink's to keep (held, never stored).
fn remote_ledger(run: &mut RunInfo, remote: bool) -> Result<Option<RemoteLedger>, Box<Outgoing>> {
    let url = run.extra.remove("sink_url");
    if !remote {
        return Ok(None);
    }
    match url.map(serde_json::from_value::<SinkUrl>) {
        Some(Ok(url)) => match url.unclaimable() {
            None => Ok(Some(RemoteLedger::new(url))),
            Some(why) => Err(Box::new(refused(
                ErrorCode::SinkUnavailable,
                format!("{why}; nothing was recorded"),
            ))),
        },
        _ => Err(Box::new(refused(
            ErrorCode::InvalidField,
            "a run on a remote sink names its upload URL in sink_url; nothing was recorded".into(),
        ))),
    }
}

/// The TLS listeners the plan's transports need: with the job's certificate in a run
/// of `unobserved run`, else with a leaf of the installed local CA.
fn start_tls_sinks(session: &mut Session, transports: &[Transport]) -> Result<(), String> {
    if !transports.iter().any(|t| t.is_tls()) {
        return Ok(());
    }
    let source = match &session.job_tls {
        Some(job) => Source::Job(job),
        None => Source::LocalCa(crate::local_ca::session_leaf()?),
    };
    let (page_origin, store) = (session.sink.base_url(), session.store.clone());
    let ledger = session.sink.ledger().clone();
    session.tls.ensure(transports, &source, &page_origin, || {
        super::sink_config(&store, ledger.clone())
    })
}
