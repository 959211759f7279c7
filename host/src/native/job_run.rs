//! What a claimed job of `unobserved run` tells the host beyond the plan, kept in the
//! host and never sent to the page: the machine calibration the CLI took before the
//! browser started (at `run-started` the browser is still starting up, and its start
//! would be the load the calibration measures), and, for interleaved builds, this
//! build's turns (`interleave.rs`). A popup's run has none of it.

use crate::platform::turns::{Gate, Interleaved};
use crate::protocol::job::Job;

pub struct JobRun {
    pub run_id: String,
    pub start_cpu_ms: Option<f64>,
    pub turns: Option<(Interleaved, Gate)>,
}

impl JobRun {
    /// Takes the host's parts out of the job the page is about to get.
    pub fn take_from(job: &mut Job) -> JobRun {
        JobRun {
            run_id: job.run_id.clone(),
            start_cpu_ms: job.start_cpu_ms.take(),
            turns: job.turns.take().map(|t| (t.tag.clone(), Gate::open(&t))),
        }
    }
}

impl Drop for JobRun {
    /// However the session ends, the other builds stop waiting for this one.
    fn drop(&mut self) {
        if let Some((_, gate)) = &mut self.turns {
            if let Err(e) = gate.finish() {
                log::warn!("could not give up the turns of run {}: {e}", self.run_id);
            }
        }
    }
}

/// The job's run, when `run_id` is it.
pub fn of<'a>(job: &'a mut Option<JobRun>, run_id: &str) -> Option<&'a mut JobRun> {
    job.as_mut().filter(|j| j.run_id == run_id)
}

/// At `run-started`: this build's first turn, held through the sink's ceiling probes
/// (two builds probing at once would each measure the other), then the run's start
/// calibration: the job's when it has one, else one taken now. Also the run's place in
/// the turns, for its record.
pub fn start(
    job: &mut Option<JobRun>,
    run_id: &str,
) -> Result<
    (
        crate::conditions::calibrate::MachineRecord,
        Option<Interleaved>,
    ),
    crate::platform::turns::TurnError,
> {
    use crate::conditions::calibrate::{record, MachineRecord, Moment};
    let Some(j) = of(job, run_id) else {
        return Ok((record(run_id, Moment::Start), None));
    };
    if let Some((_, gate)) = &mut j.turns {
        gate.take_next()?;
    }
    let machine = match j.start_cpu_ms {
        Some(cpu_ms) => MachineRecord {
            run_id: run_id.to_owned(),
            moment: Moment::Start,
            cpu_ms,
            recorded_at: crate::store::records::now(),
        },
        None => record(run_id, Moment::Start),
    };
    Ok((machine, j.turns.as_ref().map(|(tag, _)| tag.clone())))
}

/// At `run-finished`: the end calibration, in this build's turn (its last), after
/// which the build takes no more turns.
pub fn end(job: &mut Option<JobRun>, run_id: &str) -> crate::conditions::calibrate::MachineRecord {
    let gate = of(job, run_id).and_then(|j| j.turns.as_mut().map(|(_, g)| g));
    let Some(gate) = gate else {
        return crate::conditions::calibrate::record(
            run_id,
            crate::conditions::calibrate::Moment::End,
        );
    };
    if let Err(e) = gate.take_next() {
        log::warn!("run {run_id}: no turn for the end calibration ({e}); taking it anyway");
    }
    let machine =
        crate::conditions::calibrate::record(run_id, crate::conditions::calibrate::Moment::End);
    if let Err(e) = gate.finish() {
        log::warn!("run {run_id}: could not give up the turns: {e}");
    }
    machine
}
