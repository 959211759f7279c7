//! `run-finished`: record how the run ended.

use super::{invalid_run_id, store_failed, unknown_run, Session};
use crate::domain::plan::AutoStop;
use crate::domain::received::Receipt;
use crate::domain::run::{valid_run_id, EndReason, RunStatus};
use crate::platform::untrusted::Clipped;
use crate::protocol::{ErrorCode, MessageType, Outgoing};
use crate::store::{records::now, Record};

/// How the extension says a run ended.
pub struct Ending {
    pub run_id: String,
    pub status: RunStatus,
    pub reason: Option<String>,
    pub observation: Option<serde_json::Value>,
    pub auto_stop: Option<AutoStop>,
    /// Why, where the host itself ends the run (a page that never came back to
    /// `serve`); never from a page.
    pub host_reason: Option<EndReason>,
    /// Why, as the page's side says (`EndReason::told_by_page` only).
    pub page_reason: Option<EndReason>,
}

pub fn handle(session: &mut Session, ending: Ending) -> Outgoing {
    let Ending {
        run_id,
        status,
        reason,
        observation,
        auto_stop,
        host_reason,
        page_reason,
    } = ending;
    if !valid_run_id(&run_id) {
        return invalid_run_id(&run_id, MessageType::RunFinished);
    }
    if let Some(refusal) = not_the_pages(page_reason, status) {
        return refusal;
    }
    let mut stored = Stored::scan(session, &run_id);
    if let Some(reply) = not_stored(session, &run_id, stored.as_ref().ok(), status) {
        return reply;
    }
    if let Ok(stored) = &mut stored {
        stored.sink_unreachable = stored.sink_unreachable || sink_gone(session, &run_id, status);
    }
    let said = status;
    let ((status, reason), judged_reason) = judged(stored.as_ref(), status, reason);
    // The host's own record wins over the page's word, which stands only where the
    // host recorded what the page said.
    let page_reason = page_reason.filter(|_| status == said);
    let end_reason = judged_reason.or(host_reason).or(page_reason);
    log::info!(
        "run {run_id} finished: {status:?} {:?}",
        reason.as_deref().map(Clipped)
    );
    let end = Record::RunEnd {
        run_id: run_id.clone(),
        status,
        reason,
        end_reason,
        recorded_at: now(),
        observation,
        auto_stop,
    };
    let records = closing(session, &run_id, stored.as_ref().ok(), end);
    match session.store.append(&records) {
        Ok(()) => {
            close(session, &run_id);
            let analysis = analyse(session, &run_id);
            Outgoing::RunFinished {
                run_id,
                status: Some(status),
                end_reason,
                analysis,
            }
        }
        Err(e) => store_failed(e, MessageType::RunFinished),
    }
}

/// A page that failed on a remote sink (a fresh page whose own check of the sink failed
/// at a block's edge, an upload that could not reach it) is not believed about why: the
/// host uploads to the sink itself, and a sink that does not answer within
/// `STALL_PROBE` is gone.
fn sink_gone(session: &Session, run_id: &str, status: RunStatus) -> bool {
    let Some(remote) = session.remote.get(run_id) else {
        return false;
    };
    if status != RunStatus::Failed {
        return false;
    }
    let at = crate::sink::answers::SinkAt::Remote(remote.url().clone());
    let gone = !crate::sink::answers::answers_within(&at, crate::domain::run::STALL_PROBE);
    if gone {
        log::info!(
            "run {run_id} failed and its sink {} does not answer",
            at.origin()
        );
    }
    gone
}

/// The refusal of a page's `end_reason` that only the host may give (what the sink did),
/// or that a complete run cannot have.
fn not_the_pages(page_reason: Option<EndReason>, status: RunStatus) -> Option<Outgoing> {
    let said = page_reason.filter(|r| !r.told_by_page() || status == RunStatus::Complete)?;
    Some(Outgoing::error(
        ErrorCode::InvalidField,
        format!(
            "end_reason {:?} is not a page's to give for a {} run",
            said.as_str(),
            status.as_str()
        ),
        Some(MessageType::RunFinished.into()),
    ))
}

/// How the run ended as the host records it: the page's word held to the store.
fn judged(
    stored: Result<&Stored, &std::io::Error>,
    status: RunStatus,
    reason: Option<String>,
) -> (Ended, Option<EndReason>) {
    match stored {
        Ok(stored) => stored.judge(status, reason),
        Err(e) if status == RunStatus::Complete => ((
            RunStatus::Incomplete,
            Some(format!("the page called the run complete, but the store could not be read to check it: {e}")),
        ), None),
        Err(_) => ((status, reason), None),
    }
}

/// The reply to an end that is not stored, or None to store it. A run ends once. A
/// second end (e.g. a restarted background that thinks the run was orphaned) must not
/// overwrite how it really ended. That background may end a run another session
/// started, so a run the store knows is accepted too.
fn not_stored(
    session: &Session,
    run_id: &str,
    stored: Option<&Stored>,
    status: RunStatus,
) -> Option<Outgoing> {
    if let Some(Stored { begun: false, .. }) = stored {
        if !session.started.contains_key(run_id) {
            return Some(unknown_run(run_id, MessageType::RunFinished));
        }
    }
    if let Some(Stored { ended: true, .. }) = stored {
        log::info!("run {run_id} had already ended; ignoring a second end ({status:?})");
        return Some(Outgoing::RunFinished {
            run_id: run_id.to_owned(),
            status: None,
            end_reason: None,
            analysis: None,
        });
    }
    None
}

/// The records that end a run: the ceilings after its arms, the machine's calibration
/// at its end, then `end` itself.
fn closing(
    session: &mut Session,
    run_id: &str,
    stored: Option<&Stored>,
    end: Record,
) -> Vec<Record> {
    // After the last upload, before the end: `unobserved run` ends the browser at it.
    super::run_conditions::finish(session, run_id);
    let after = ceilings_after(session, run_id, stored);
    let machine = super::job_run::end(&mut session.job, run_id);
    after
        .into_iter()
        .chain([Record::Machine(machine), end])
        .collect()
}

/// An ended run takes nothing more: its book stays as a tombstone, and its uploads can
/// vouch for nothing more.
fn close(session: &mut Session, run_id: &str) {
    if let Some(book) = session.started.get_mut(run_id) {
        book.end();
    }
    session.sink.ledger().forget_run(run_id);
    session.sink.modules().forget(run_id);
    if let Some(mut remote) = session.remote.remove(run_id) {
        remote.forget_run(run_id);
    }
}

/// The run's sinks (or its remote link) measured again by the host's own client, as at
/// its start, for a run this session started: the ceiling after the arms.
fn ceilings_after(session: &Session, run_id: &str, stored: Option<&Stored>) -> Option<Record> {
    let plan = stored?.plan.as_ref()?;
    if !session.started.contains_key(run_id) {
        return None;
    }
    let remote = session.remote.get(run_id).map(|r| r.url().clone());
    let ceilings = super::run_started::ceilings(session, plan, remote.as_ref()).by_transport();
    (!ceilings.is_empty()).then(|| Record::CeilingAfter {
        run_id: run_id.to_owned(),
        ceilings,
        recorded_at: now(),
    })
}

/// A run's status and the sentence that goes with it.
type Ended = (RunStatus, Option<String>);

/// What the store holds of the run: only its lines are parsed.
struct Stored {
    begun: bool,
    ended: bool,
    plan: Option<crate::domain::plan::Plan>,
    /// Each (arm, rep) the run stored a sample of, once however many named it.
    measured: std::collections::HashSet<(crate::domain::arm::Arm, u32)>,
    /// A sample's record could not be claimed, or the page failed and the host's own
    /// upload found no sink: its remote sink went away.
    sink_unreachable: bool,
}

impl Stored {
    fn scan(session: &Session, run_id: &str) -> std::io::Result<Stored> {
        let mut stored = Stored {
            begun: false,
            ended: false,
            plan: None,
            measured: Default::default(),
            sink_unreachable: false,
        };
        session.store.scan_run(run_id, |_, r| match r {
            Record::Run(r) => {
                stored.begun = true;
                stored.plan = Some(r.run.plan);
            }
            Record::RunEnd { .. } => stored.ended = true,
            Record::Sample(s) => {
                stored.measured.insert((s.arm(), s.rep));
                stored.sink_unreachable |= s.receipt == Some(Receipt::SinkUnreachable);
            }
            _ => {}
        })?;
        Ok(stored)
    }

    /// A page's "complete" is believed only if the host stored a sample of every arm's
    /// every rep the plan needs (a sample naming an upload the sink never saw counts, as
    /// the error it is stored as; the same rep twice counts once; an arm or rep outside
    /// the plan, which runs stored before samples were held to their plan may have, not
    /// at all): a page that ends early, or says so falsely, leaves the run incomplete.
    /// A run whose remote sink went away (a sample's record could not be claimed, or the
    /// page failed and the sink did not answer the host) failed, whatever the page says,
    /// and its end says why.
    fn judge(&self, status: RunStatus, reason: Option<String>) -> (Ended, Option<EndReason>) {
        if self.sink_unreachable {
            let failed = (
                RunStatus::Failed,
                reason.filter(|_| status != RunStatus::Complete),
            );
            return (failed, Some(EndReason::SinkUnreachable));
        }
        (self.judge_count(status, reason), None)
    }

    fn judge_count(&self, status: RunStatus, reason: Option<String>) -> Ended {
        let Some(plan) = &self.plan else {
            return (status, reason);
        };
        let arms = plan.measured_arms();
        let stored = self
            .measured
            .iter()
            .filter(|(arm, rep)| arms.contains(arm) && u64::from(*rep) < plan.max_reps())
            .count() as u64;
        match Some(plan.fewest_measured()) {
            Some(fewest) if status == RunStatus::Complete && stored < fewest => (
                RunStatus::Incomplete,
                Some(format!(
                    "the page called the run complete, but the host stored {stored} of the {fewest} samples its plan needs"
                )),
            ),
            _ => (status, reason),
        }
    }
}

/// The finished run's analysis from the store, as every report computes it.
fn analyse(session: &Session, run_id: &str) -> Option<Box<crate::report::analysis::Analysis>> {
    let run = crate::report::load_run(&session.store, run_id, crate::report::TimelinePoints::Drop)
        .ok()??;
    Some(Box::new(crate::report::analysis::of(&run)))
}
