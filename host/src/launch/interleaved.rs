//! `unobserved run --browser-path A --browser-path B`: the builds run at once, each in
//! its own throwaway profile, with its own host and run, taking turns rep by rep
//! (`crate::platform::turns`). Everything is prepared before anything is launched (and the
//! machine calibrated before any browser starts); a build whose browser breaks is
//! marked done in the turns, so the others go on alone.

use super::{follow, outcome, prepare, spawn, stop, Followed, RunOptions, RunOutcome};
use crate::platform::turns::{mark_done, Gate, Interleaved, JobTurns};
use anyhow::{Context, Result};

/// Each build's outcome, in the order given.
pub fn run(opts: Vec<RunOptions>) -> Result<Vec<Result<RunOutcome>>> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(run_async(opts))
}

async fn run_async(mut opts: Vec<RunOptions>) -> Result<Vec<Result<RunOutcome>>> {
    let turns_dir = tempfile::Builder::new()
        .prefix("unobserved-turns-")
        .tempdir()
        .context("cannot make the folder for the builds' turns")?;
    Gate::create(turns_dir.path())?;
    let group = crate::domain::run::new_run_id();
    let builds = opts.len() as u32;
    for (position, o) in opts.iter_mut().enumerate() {
        o.turns = Some(JobTurns {
            tag: Interleaved {
                group: group.clone(),
                position: position as u32,
                builds,
            },
            gate_dir: turns_dir.path().to_owned(),
        });
    }
    let prepared = opts.iter().map(prepare).collect::<Result<Vec<_>>>()?;
    let spawned: Vec<Result<super::Running>> = prepared.iter().map(spawn).collect();
    if spawned.iter().any(Result::is_err) {
        // One build could not start: none is measured alone against a half-run group.
        let mut first_error = None;
        for ((o, p), s) in opts.iter().zip(prepared).zip(spawned) {
            match s {
                Ok(r) => stop(o, p.tmp, r).await,
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        return Err(first_error.expect("a build failed to start"));
    }
    let mut running: Vec<super::Running> = spawned.into_iter().flatten().collect();
    let dir = turns_dir.path();
    let followed = futures_util::future::join_all(
        opts.iter()
            .zip(&prepared)
            .zip(running.iter_mut())
            .enumerate()
            .map(|(position, ((o, p), r))| async move {
                let f = follow(o, p, r).await;
                if matches!(f, Followed::Broke { .. }) {
                    // A build that broke takes no more turns: the others go on.
                    let _ = mark_done(dir, position as u32);
                }
                f
            }),
    )
    .await;
    let mut outcomes = Vec::new();
    for (((o, p), r), f) in opts.iter().zip(prepared).zip(running).zip(followed) {
        let (store, run_id) = (p.store.clone(), p.run_id.clone());
        let (launch_command, program) = (p.launch_command.clone(), p.program.clone());
        stop(o, p.tmp, r).await;
        outcomes.push(outcome(f, &store, &run_id, launch_command, program));
    }
    Ok(outcomes)
}
