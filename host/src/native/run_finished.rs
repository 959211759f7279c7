//! `run-finished`: record how the run ended.

use super::{invalid_run_id, store_failed, unknown_run, Session};
use crate::domain::plan::AutoStop;
use crate::domain::run::{valid_run_id, RunStatus};
use crate::platform::untrusted::Clipped;
use crate::protocol::{MessageType, Outgoing};
use crate::store::{records::now, Record};

/// How the extension says a run ended.
pub struct Ending {
    pub run_id: String,
    pub status: RunStatus,
    pub reason: Option<String>,
    pub observation: Option<serde_json::Value>,
    pub auto_stop: Option<AutoStop>,
}

pub fn handle(session: &mut Session, ending: Ending) -> Outgoing {
    let Ending {
        run_id,
        status,
        reason,
        observation,
        auto_stop,
    } = ending;
    if !valid_run_id(&run_id) {
        return invalid_run_id(&run_id, MessageType::RunFinished);
    }
    // A run ends once. A second end (e.g. a restarted background that thinks the run was
    // orphaned) must not overwrite how it really ended. That background may end a run
    // another session started, so a run the store knows is accepted too.
    let stored = Stored::scan(session, &run_id);
    if let Ok(Stored { begun: false, .. }) = stored {
        if !session.started.contains_key(&run_id) {
            return unknown_run(&run_id, MessageType::RunFinished);
        }
    }
    if let Ok(Stored { ended: true, .. }) = stored {
        log::info!("run {run_id} had already ended; ignoring a second end ({status:?})");
        return Outgoing::RunFinished {
            run_id,
            status: None,
            analysis: None,
        };
    }
    let (status, reason) = match &stored {
        Ok(stored) => stored.judge(status, reason),
        Err(e) if status == RunStatus::Complete => (
            RunStatus::Incomplete,
            Some(format!("the page called the run complete, but the store could not be read to check it: {e}")),
        ),
        Err(_) => (status, reason),
    };
    log::info!(
        "run {run_id} finished: {status:?} {:?}",
        reason.as_deref().map(Clipped)
    );
    // After the last upload, before the end: `unobserved run` ends the browser at it.
    super::run_conditions::finish(session, &run_id);
    let machine = super::job_run::end(&mut session.job, &run_id);
    let record = Record::RunEnd {
        run_id: run_id.clone(),
        status,
        reason,
        recorded_at: now(),
        observation,
        auto_stop,
    };
    match session.store.append(&[Record::Machine(machine), record]) {
        Ok(()) => {
            // An ended run takes nothing more: its book stays as a tombstone.
            if let Some(book) = session.started.get_mut(&run_id) {
                book.end();
            }
            // The run's uploads can vouch for nothing more.
            session.sink.ledger().forget_run(&run_id);
            session.sink.modules().forget(&run_id);
            if let Some(mut remote) = session.remote.remove(&run_id) {
                remote.forget_run(&run_id);
            }
            let analysis = analyse(session, &run_id);
            Outgoing::RunFinished {
                run_id,
                status: Some(status),
                analysis,
            }
        }
        Err(e) => store_failed(e, MessageType::RunFinished),
    }
}

/// What the store holds of the run: only its lines are parsed.
struct Stored {
    begun: bool,
    ended: bool,
    plan: Option<crate::domain::plan::Plan>,
    /// Each (arm, rep) the run stored a sample of, once however many named it.
    measured: std::collections::HashSet<(crate::domain::arm::Arm, u32)>,
}

impl Stored {
    fn scan(session: &Session, run_id: &str) -> std::io::Result<Stored> {
        let mut stored = Stored {
            begun: false,
            ended: false,
            plan: None,
            measured: Default::default(),
        };
        session.store.scan_run(run_id, |_, r| match r {
            Record::Run(r) => {
                stored.begun = true;
                stored.plan = Some(r.run.plan);
            }
            Record::RunEnd { .. } => stored.ended = true,
            Record::Sample(s) => {
                stored.measured.insert((s.arm(), s.rep));
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
    fn judge(&self, status: RunStatus, reason: Option<String>) -> (RunStatus, Option<String>) {
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
