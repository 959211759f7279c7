//! What ends the runs of a `serve` that was killed outright (SIGKILL, a crash): every
//! serving process holds `serve.lock` in the state dir shared for as long as it runs.
//! A `serve` starting when no other one holds it (it takes it exclusively) knows that
//! every page run still open in the store belongs to a process that is gone, and ends
//! each as `interrupted`. Nothing is removed: the samples the dead process acknowledged
//! stay with their run.

use crate::domain::run::{RunSource, RunStatus};
use crate::platform::state;
use crate::store::{records::now, Record, Store};
use std::fs::{File, TryLockError};

pub const FILE_NAME: &str = "serve.lock";

/// `serve.lock`, held shared until dropped (or the process dies).
pub struct ServeLock {
    _file: File,
}

impl ServeLock {
    /// Takes the lock beside `store`, first ending the runs of serves that are gone
    /// when no serve holds it. Fails only when the lock file cannot be opened or locked.
    pub fn take(store: &Store) -> anyhow::Result<ServeLock> {
        let dir = store
            .path()
            .parent()
            .ok_or_else(|| anyhow::anyhow!("the store has no folder"))?;
        state::ensure_private_dir(dir)?;
        let file = state::open_private_append(&dir.join(FILE_NAME))?;
        match file.try_lock() {
            Ok(()) => {
                end_interrupted(store);
                file.unlock()?;
            }
            Err(TryLockError::WouldBlock) => {}
            Err(TryLockError::Error(e)) => return Err(e.into()),
        }
        // Another serve may be ending runs just now: that takes a moment, then this one
        // shares the lock with it.
        file.lock_shared()?;
        Ok(ServeLock { _file: file })
    }
}

/// Every run a page of a serve started and no end was recorded for: its process is gone.
fn end_interrupted(store: &Store) {
    let open = match store.open_runs(&|r| r.run.started_by(RunSource::Serve)) {
        Ok(open) => open,
        Err(e) => return log::error!("could not read the store for runs left open: {e}"),
    };
    let ends: Vec<Record> = open
        .into_iter()
        .map(|run_id| Record::RunEnd {
            run_id,
            status: RunStatus::Interrupted,
            reason: None,
            recorded_at: now(),
            observation: None,
            auto_stop: None,
        })
        .collect();
    if !ends.is_empty() {
        log::warn!(
            "{} run(s) of a serve that is gone recorded as interrupted",
            ends.len()
        );
    }
    if let Err(e) = store.append(&ends) {
        log::error!("could not record runs left open as interrupted: {e}");
    }
}
