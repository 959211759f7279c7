//! Native messaging host mode: one session per browser connection. Every incoming
//! message gets exactly one reply, in order. Each action lives in its own file.

pub mod auto_check;
mod error_report;
mod hello;
mod job_run;
mod modules;
mod run_conditions;
mod run_finished;
mod run_started;
mod samples;
mod tls_sinks;
mod turn;
mod workload_key;

use crate::platform::mode::Caller;
use crate::platform::untrusted::Clipped;
use crate::platform::{allowed_ids, logging, state};
use crate::protocol::{
    parse_incoming, read_frame, write_frame, ErrorCode, FrameError, Incoming, MessageType, Outgoing,
};
use crate::sink::{Sink, SinkConfig, SinkEvent};
use crate::store::{records::now, Record, Store};
use std::io::{Read, Write};
use std::path::PathBuf;
use std::sync::Arc;

/// Env var naming a job file that `unobserved run` leaves for the host to offer.
pub const JOB_ENV: &str = "UNOBSERVED_JOB";

/// Exit codes in native mode.
pub const EXIT_OK: i32 = 0;
pub const EXIT_DESYNC: i32 = 2;
pub const EXIT_CALLER_REFUSED: i32 = 3;
pub const EXIT_SETUP: i32 = 4;

pub struct Session {
    pub store: Store,
    pub sink: Sink,
    pub job_file: Option<PathBuf>,
    /// The TLS listeners runs asked for, started at `run-started`.
    pub tls: tls_sinks::TlsSinks,
    /// The certificate and ports of the claimed job's TLS listeners, if it has any.
    pub job_tls: Option<crate::protocol::job::JobTls>,
    /// The runs this session's `run-started` recorded: the only ones it takes samples
    /// for, each with what it has taken (`verify::fit`); an ended run stays, taking none.
    pub started: std::collections::HashMap<String, crate::verify::fit::RunBook>,
    /// The claimed job's calibration and turns, kept from the page.
    pub job: Option<job_run::JobRun>,
    /// Runs that upload to a sink elsewhere: the records are claimed from it.
    pub remote: std::collections::HashMap<String, crate::sink::remote_ledger::RemoteLedger>,
    /// The processes whose CPU is this session's runs' own (`conditions::native_roots`,
    /// or `serve`'s own process).
    pub own_processes: Vec<u32>,
    /// Why the browser's processes are not among them, when they are not known (a page
    /// of `serve` on this machine whose browser was not found): stated in the conditions.
    pub browser_gap: Option<crate::domain::conditions::Gap>,
    /// Each running run's sampler and load (`run_conditions.rs`).
    pub conditions: std::collections::HashMap<String, run_conditions::RunConditions>,
    /// The claimed job's `--script` modules (names and paths), kept from the page.
    pub job_modules: Vec<crate::protocol::job::JobModule>,
    /// The state dir, where registered modules are listed (`modules::registry`).
    pub state_dir: Option<PathBuf>,
}

/// Set when the session serves a job of `unobserved run`: where to tell it that the
/// store could not be written (the CLI cannot learn it from the store itself).
static STORE_FAILURE_SIGNAL: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

/// The file beside a job through which its host reports a store failure to the CLI.
pub fn store_failure_signal(job: &std::path::Path) -> PathBuf {
    job.with_extension("store-failed.json")
}

/// The file beside a job through which its host tells the CLI where its local sink is,
/// so that a run that runs out of time can ask that sink whether it answers
/// (`launch/stall.rs`): the CLI cannot learn it from the store.
pub fn local_sink_signal(job: &std::path::Path) -> PathBuf {
    job.with_extension("local-sink.json")
}

/// Where a job's host has its local sink (`local_sink_signal`).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LocalSinkAt {
    pub addr: std::net::SocketAddr,
}

/// Written as the host starts, replacing any earlier host's (a fresh host that records
/// how a run ended has a sink of its own).
fn signal_local_sink(job: &std::path::Path, addr: std::net::SocketAddr) {
    let path = local_sink_signal(job);
    let tmp = path.with_extension("tmp");
    let body = serde_json::to_vec(&LocalSinkAt { addr }).expect("an address serialises");
    if std::fs::write(&tmp, body).is_ok() {
        let _ = std::fs::rename(&tmp, &path);
    }
}

/// Written in the run's workspace, not the state dir, which may be the full disk.
fn signal_store_failure(job: &std::path::Path, e: &std::io::Error) {
    let body = serde_json::json!({"code": ErrorCode::StoreFailed.number(), "error": e.to_string()});
    let path = store_failure_signal(job);
    let tmp = path.with_extension("tmp");
    if std::fs::write(&tmp, body.to_string()).is_ok() {
        let _ = std::fs::rename(&tmp, &path);
    }
}

/// Entry point when a browser starts the binary.
pub fn main(caller: Caller) -> i32 {
    let state_dir = state::state_dir().ok();
    logging::init(state_dir.as_deref(), false, false);
    let Some(state_dir) = state_dir else {
        log::error!("no state dir: set UNOBSERVED_STATE_DIR");
        return EXIT_SETUP;
    };
    let allowed = allowed_ids::allowed(&state_dir);
    if !allowed.iter().any(|id| id == caller.id()) {
        log::error!("refusing caller {caller:?}: not one of the allowed extension ids {allowed:?}");
        return EXIT_CALLER_REFUSED;
    }
    log::info!("native session for {caller:?}");
    let store = Store::in_dir(&state_dir);
    let sink = match Sink::start(sink_config(&store, Default::default())) {
        Ok(s) => s,
        Err(e) => {
            log::error!("{e:#}");
            let reply = Outgoing::error(ErrorCode::SinkUnavailable, format!("{e:#}"), None);
            let _ = send(&mut std::io::stdout().lock(), &reply);
            return EXIT_SETUP;
        }
    };
    let job_file = std::env::var_os(JOB_ENV).map(PathBuf::from);
    if let Some(job) = &job_file {
        let _ = STORE_FAILURE_SIGNAL.set(job.clone());
        signal_local_sink(job, sink.addr());
    }
    let mut session = Session {
        store,
        sink,
        job_file,
        tls: Default::default(),
        job_tls: None,
        started: Default::default(),
        job: None,
        remote: Default::default(),
        own_processes: crate::conditions::native_roots(),
        browser_gap: None,
        conditions: Default::default(),
        job_modules: Vec::new(),
        state_dir: Some(state_dir.clone()),
    };
    serve(
        &mut session,
        &mut std::io::stdin().lock(),
        &mut std::io::stdout().lock(),
    )
}

/// A sink of this session: its events go to the store, and what it receives to the
/// session's one ledger.
pub(crate) fn sink_config(store: &Store, ledger: Arc<crate::sink::ledger::Ledger>) -> SinkConfig {
    let hook_store = store.clone();
    SinkConfig {
        on_event: Some(Arc::new(move |e: SinkEvent| {
            record_sink_event(&hook_store, e)
        })),
        slow_hash: crate::sink::hash_queue::simulated_slow_cpu(),
        ledger,
        ..SinkConfig::default()
    }
}

fn record_sink_event(store: &Store, event: SinkEvent) {
    let SinkEvent::Aborted { bytes, path } = event;
    let record = Record::SinkEvent {
        event: "aborted".into(),
        bytes,
        path,
        recorded_at: now(),
    };
    if let Err(e) = store.append(&[record]) {
        log::error!("cannot record an aborted upload: {e}");
    }
}

/// Reads frames until EOF or a desynchronised stream, answering each one.
pub fn serve(session: &mut Session, input: &mut impl Read, output: &mut impl Write) -> i32 {
    loop {
        let reply = match read_frame(input) {
            Ok(None) => {
                log::info!("stdin closed (browser gone or port disconnected); shutting down");
                return EXIT_OK;
            }
            Ok(Some(bytes)) => match parse_incoming(&bytes) {
                Ok(message) => dispatch(session, message),
                Err(bad) => {
                    log::warn!("bad message: {:?}", bad.message);
                    bad.reply()
                }
            },
            Err(e) if e.stream_in_sync() => {
                log::warn!("{e}");
                let code = match e {
                    FrameError::TooLarge(_) => ErrorCode::FrameTooLarge,
                    _ => ErrorCode::ZeroLength,
                };
                Outgoing::error(code, e.to_string(), None)
            }
            Err(e) => {
                log::error!("ending session, the stream is desynchronised: {e}");
                let _ = send(
                    output,
                    &Outgoing::error(ErrorCode::TruncatedFrame, e.to_string(), None),
                );
                return EXIT_DESYNC;
            }
        };
        if let Err(e) = send(output, &reply) {
            log::error!("cannot write to the browser, ending session: {e}");
            return EXIT_OK;
        }
    }
}

/// One message, answered: the native port's and `serve`'s page messages alike.
pub fn dispatch(session: &mut Session, message: Incoming) -> Outgoing {
    match message {
        Incoming::Hello {
            extension_version,
            browser,
        } => hello::handle(session, extension_version, browser),
        Incoming::RunStarted { run } => run_started::handle(session, *run),
        Incoming::Samples { run_id, samples } => samples::handle(session, run_id, samples),
        Incoming::RunFinished {
            run_id,
            status,
            reason,
            observation,
            auto_stop,
            end_reason,
        } => run_finished::handle(
            session,
            run_finished::Ending {
                run_id,
                status,
                reason,
                observation,
                auto_stop,
                host_reason: None,
                page_reason: end_reason,
            },
        ),
        Incoming::Error { message, code } => error_report::handle(message, code),
        Incoming::AutoCheck { run_id, reps_done } => auto_check::handle(session, run_id, reps_done),
        Incoming::WorkloadKey { run_id, key } => workload_key::handle(session, run_id, key),
        Incoming::Turn { run_id } => turn::handle(session, run_id),
    }
}

/// The host ends a run itself (not on a page's word), with the typed reason why: a
/// page of `serve` that asked for a fresh page and none came back.
pub fn end_by_host(
    session: &mut Session,
    run_id: &str,
    status: crate::domain::run::RunStatus,
    why: crate::domain::run::EndReason,
) -> Outgoing {
    run_finished::handle(
        session,
        run_finished::Ending {
            run_id: run_id.to_owned(),
            status,
            reason: None,
            observation: None,
            auto_stop: None,
            host_reason: Some(why),
            page_reason: None,
        },
    )
}

/// Sends a reply, or an error in its place when the reply is over the 1 MiB limit.
fn send(output: &mut impl Write, reply: &Outgoing) -> std::io::Result<()> {
    let bytes = serde_json::to_vec(reply).expect("replies serialise");
    if bytes.len() > crate::protocol::MAX_OUTGOING {
        log::error!(
            "reply of {} bytes is over the 1 MiB limit; sending an error instead",
            bytes.len()
        );
        let refusal = Outgoing::error(
            ErrorCode::ReplyTooLarge,
            format!("reply of {} bytes was over the limit", bytes.len()),
            None,
        );
        return write_frame(output, &serde_json::to_vec(&refusal).expect("json"));
    }
    write_frame(output, &bytes)
}

fn invalid_run_id(run_id: &str, in_reply_to: MessageType) -> Outgoing {
    Outgoing::error(
        ErrorCode::InvalidRunId,
        format!(
            "run id {:?} must be 1-64 letters, digits, '-' or '_'",
            Clipped(run_id)
        ),
        Some(in_reply_to.into()),
    )
}

/// Refuses a run-scoped message for a run this session did not start (error 15).
fn unknown_run(run_id: &str, in_reply_to: MessageType) -> Outgoing {
    Outgoing::error(
        ErrorCode::UnknownRun,
        format!("run {run_id:?} was not started in this session; nothing was stored"),
        Some(in_reply_to.into()),
    )
}

fn store_failed(e: std::io::Error, in_reply_to: MessageType) -> Outgoing {
    log::error!("store write failed: {e}");
    if let Some(job) = STORE_FAILURE_SIGNAL.get() {
        signal_store_failure(job, &e);
    }
    let mut error = Outgoing::error(
        ErrorCode::StoreFailed,
        format!("could not store (nothing was written): {e}"),
        Some(in_reply_to.into()),
    );
    if let Outgoing::Error { kind, .. } = &mut error {
        *kind = Some(crate::store::StoreFault::of(&e).into());
    }
    error
}

#[cfg(test)]
mod tests;
