//! `run-started`: record the run's browser, plan and origin before any sample.

use super::tls_sinks::Source;
use super::{invalid_run_id, store_failed, Session};
use crate::domain::arm::Transport;
use crate::domain::ceiling::TransportCeiling;
use crate::domain::run::{valid_run_id, RunInfo};
use crate::domain::sink_url::SinkUrl;
use crate::protocol::messages::PlannedArm;
use crate::protocol::{ErrorCode, MessageType, Outgoing};
use crate::sink::remote_ledger::RemoteLedger;
use crate::store::{records::now, Record, RunRecord};
use std::collections::BTreeMap;

pub fn handle(session: &mut Session, mut run: RunInfo) -> Outgoing {
    if let Err(refused) = checked(&mut run) {
        return *refused;
    }
    let run_id = run.run_id.clone();
    // A refusal comes before the turn and the calibration: a refused build must not
    // hold the other's turn.
    let remote = match sinks_of(session, &mut run) {
        Ok(remote) => remote,
        Err(refused) => return *refused,
    };
    if let Err(refused) = super::modules::prepare(session, &mut run, remote.is_some()) {
        return *refused;
    }
    let module_seed = run.plan.module_seed.clone();
    // Before the ceiling probe, which would otherwise be the load it measures.
    let (machine, interleaved) = match super::job_run::start(&mut session.job, &run_id) {
        Ok(started) => started,
        Err(e) => return refused(ErrorCode::TurnFailed, e.to_string()),
    };
    let ceilings = ceilings(session, &run.plan, remote.as_ref().map(RemoteLedger::url));
    let (planned, measured_uploads) = (run.plan.arms(), run.plan.measured_uploads());
    let book = crate::verify::fit::RunBook::new(run.plan.clone());
    let plan = run.plan.clone();
    let upload_urls = upload_urls(session, remote.as_ref());
    let record = run_record(run, &ceilings, interleaved.clone());
    match session.store.append(&[record, Record::Machine(machine)]) {
        Ok(()) => {
            log::info!("run {run_id} started; ceilings {ceilings:?}");
            session.started.insert(run_id.clone(), book);
            super::run_conditions::start(session, &run_id, &plan);
            if let Some(ledger) = remote {
                session.remote.insert(run_id.clone(), ledger);
            }
            Outgoing::RunStarted {
                run_id,
                sink_ceiling_mbps: ceilings.h1.map(|c| c.receive_mbps),
                arms: planned
                    .into_iter()
                    .map(|arm| PlannedArm {
                        label: arm.label(),
                        arm,
                    })
                    .collect(),
                measured_uploads,
                minimum_reps: plan.minimum_reps(),
                upload_urls,
                take_turns: interleaved.is_some(),
                module_seed,
            }
        }
        Err(e) => store_failed(e, MessageType::RunStarted),
    }
}

/// A popup's plan is held to the same rules as the CLI's, before anything is started
/// or stored. Every run now is split into blocks (issue 36).
fn checked(run: &mut RunInfo) -> Result<(), Box<Outgoing>> {
    run.plan
        .block_reps
        .get_or_insert(crate::domain::plan::DEFAULT_BLOCK_REPS);
    if let Err(e) = run
        .plan
        .validate_within(&crate::platform::memory::plan_limits())
    {
        return Err(Box::new(Outgoing::invalid_plan(
            &e,
            MessageType::RunStarted,
        )));
    }
    if !valid_run_id(&run.run_id) {
        return Err(Box::new(invalid_run_id(
            &run.run_id,
            MessageType::RunStarted,
        )));
    }
    Ok(())
}

/// The sinks the run uploads to, or the refusal: a remote sink's ledger (its URL
/// checked, the sink reached), or the local TLS listeners the plan's transports need.
fn sinks_of(
    session: &mut Session,
    run: &mut RunInfo,
) -> Result<Option<RemoteLedger>, Box<Outgoing>> {
    let mut remote_ledger = remote_ledger(run, run.is_remote())?;
    if remote_ledger.is_none() {
        start_tls_sinks(session, &run.plan.transports).map_err(|why| {
            Box::new(refused(
                ErrorCode::TransportUnavailable,
                format!("{why}; nothing was recorded"),
            ))
        })?;
    }
    open_in_ledger(session, run, remote_ledger.as_mut())?;
    Ok(remote_ledger)
}

/// Where each of the plan's transports uploads: the remote sink (under its URL's
/// transport, without the pin), or this session's sinks.
fn upload_urls(session: &Session, remote: Option<&RemoteLedger>) -> BTreeMap<Transport, String> {
    match remote {
        Some(ledger) => [(ledger.url().transport(), ledger.url().upload_url())].into(),
        None => {
            let mut urls = session.tls.upload_urls();
            urls.insert(Transport::H1, session.sink.upload_url());
            urls
        }
    }
}

/// The run as stored, with what the host measured before its first upload.
fn run_record(
    run: RunInfo,
    ceilings: &Ceilings,
    interleaved: Option<crate::platform::turns::Interleaved>,
) -> Record {
    let h1 = ceilings.h1.as_ref();
    Record::Run(RunRecord {
        run,
        host_version: env!("CARGO_PKG_VERSION").into(),
        recorded_at: now(),
        sink_ceiling_mbps: h1.map(|c| c.receive_mbps),
        sink_ceiling_range: h1.map(|c| c.receive_range),
        sink_hash_mbps: ceilings.hash_mbps,
        cpu: crate::platform::cpu::describe(),
        transport_ceilings: ceilings.tls.clone(),
        interleaved,
    })
}

/// An error in reply to `run-started`.
fn refused(code: ErrorCode, message: String) -> Outgoing {
    Outgoing::error(code, message, Some(MessageType::RunStarted.into()))
}

/// What the host's own client measured before the first upload: the h1 sink's (or an
/// http:// remote link's) receive ceiling and the hash rate behind it, and each TLS
/// sink's (or an https:// remote link's) per transport. A failed probe leaves its
/// figure out, with a warning.
#[derive(Debug, Default)]
pub(super) struct Ceilings {
    pub h1: Option<TransportCeiling>,
    pub hash_mbps: Option<f64>,
    pub tls: BTreeMap<Transport, TransportCeiling>,
}

impl Ceilings {
    /// Every transport's ceiling, h1's under `h1`: the after-the-arms record's shape.
    pub fn by_transport(&self) -> BTreeMap<Transport, TransportCeiling> {
        let mut all = self.tls.clone();
        all.extend(self.h1.map(|c| (Transport::H1, c)));
        all
    }
}

/// The run's ceilings at its body size: the local sinks', or the link to the remote
/// sink at `remote`. Measured before the first upload and again after the last.
pub(super) fn ceilings(
    session: &Session,
    plan: &crate::domain::plan::Plan,
    remote: Option<&SinkUrl>,
) -> Ceilings {
    let size = plan.size_bytes;
    let Some(url) = remote else {
        let own = own_ceiling(session, size);
        return Ceilings {
            h1: own.map(|c| c.receive),
            hash_mbps: own.map(|c| c.hash_mbps),
            tls: session.tls.ceilings(size, &plan.transports),
        };
    };
    let link = crate::sink::ceiling::measure_link(url, size)
        .map_err(|e| log::warn!("could not measure the link to {}: {e}", url.origin()))
        .ok();
    match url.transport() {
        Transport::H1 => Ceilings {
            h1: link,
            ..Ceilings::default()
        },
        t => Ceilings {
            tls: link.map(|c| (t, c)).into_iter().collect(),
            ..Ceilings::default()
        },
    }
}

/// The local sink's receive ceiling at the plan's body size; None, with a warning,
/// when it cannot be measured.
fn own_ceiling(session: &Session, size_bytes: u64) -> Option<crate::sink::ceiling::Ceiling> {
    let measured = crate::sink::ceiling::measure(
        session.sink.addr(),
        &session.sink.own_upload_path(),
        size_bytes,
    );
    measured
        .map_err(|e| log::warn!("could not measure the sink's ceiling: {e}"))
        .ok()
}

/// The run opened in the ledger that will hold its records (the sink's own, or a remote
/// sink's over its ledger route), with room for its plan's uploads: a sink keeps records
/// only for runs opened so. A ledger with no room refuses the run (error 13).
fn open_in_ledger(
    session: &Session,
    run: &RunInfo,
    remote: Option<&mut RemoteLedger>,
) -> Result<(), Box<Outgoing>> {
    let wanted = run.plan.upload_ids();
    let opened = match remote {
        Some(remote) => remote
            .open_run(&run.run_id, wanted)
            .map_err(|e| e.to_string()),
        None => session
            .sink
            .ledger()
            .open_run(&run.run_id, usize::try_from(wanted).unwrap_or(usize::MAX))
            .map(|_| ())
            .map_err(|why| why.of_opening()),
    };
    match opened {
        Ok(()) => Ok(()),
        Err(why) => Err(Box::new(refused(
            ErrorCode::SinkUnavailable,
            format!("the sink would not open the run: {why}; nothing was recorded"),
        ))),
    }
}

/// Where a run on a remote sink claims its records: the URL it names in `sink_url`,
/// taken out of the run, since its token is the sink's to keep (held, never stored).
/// Refused unless the plan uploads over the URL's transport and the sink answers with
/// the certificate an https:// URL pins.
fn remote_ledger(run: &mut RunInfo, remote: bool) -> Result<Option<RemoteLedger>, Box<Outgoing>> {
    let url = run.sink_url.take();
    if !remote {
        return Ok(None);
    }
    let refused = |code, why: String| {
        Err(Box::new(refused(
            code,
            format!("{why}; nothing was recorded"),
        )))
    };
    let url = match url.map(|u| u.parse::<SinkUrl>()) {
        Some(Ok(url)) => url,
        Some(Err(e)) => return refused(ErrorCode::InvalidField, format!("sink_url {e}")),
        None => {
            return refused(
                ErrorCode::InvalidField,
                "a run on a remote sink names its upload URL in sink_url".into(),
            )
        }
    };
    let transports = &run.plan.transports;
    let over_url = transports.iter().all(|&t| t == url.transport())
        && (!transports.is_empty() || url.transport() == Transport::H1);
    if !over_url || (url.is_tls() && !run.plan.workloads.is_empty()) {
        return refused(ErrorCode::InvalidField, format!("a remote sink's transport is its URL's: this plan must upload its body kinds over {} alone (workloads travel over h1, so only with an http:// sink)", url.transport()));
    }
    let mut ledger = RemoteLedger::new(url);
    match ledger.check() {
        Ok(()) => Ok(Some(ledger)),
        Err(e) => refused(
            ErrorCode::SinkUnavailable,
            format!(
                "the remote sink at {} cannot be judged: {e}",
                ledger.url().origin()
            ),
        ),
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
        None => Source::LocalCa(crate::platform::local_ca::session_leaf()?),
    };
    let (page_origin, store) = (session.sink.base_url(), session.store.clone());
    let ledger = session.sink.ledger().clone();
    session.tls.ensure(transports, &source, &page_origin, || {
        super::sink_config(&store, ledger.clone())
    })
}
