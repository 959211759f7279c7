//! Interleaved builds: `unobserved run --browser-path A --browser-path B` starts both
//! builds at once, each in its own throwaway profile with its own host and run, and they
//! take turns: build A's rep 1, build B's rep 1, build A's rep 2, … the way arms take
//! turns within a run. Whatever the machine does hits both builds alike, so their
//! comparison is as honest as a comparison within a run (`stats::across_runs`).
//!
//! The turns live in a folder the CLI makes (`Gate`): one counter, advanced under a file
//! lock by whichever host holds the turn, and a `done-N` file per build that finished
//! (or broke), which the others then skip. Turn t belongs to build t mod builds, step
//! t div builds; a build's steps are its run's start (the calibration and the sink's
//! ceiling), each rep, and its end.

use crate::platform::state;
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A run that took turns with others; stored in its run record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Interleaved {
    /// Shared by the runs that took turns.
    pub group: String,
    /// This build's place in the turns, from 0.
    pub position: u32,
    pub builds: u32,
}

/// What a job of an interleaved run tells its host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobTurns {
    pub tag: Interleaved,
    pub gate_dir: PathBuf,
}

/// Longest a build waits for its turn: the other build's rep, or its start.
const WAIT: Duration = Duration::from_secs(600);
/// Longest a build waits for the counter's lock. A host holds it for a read and a
/// write; whoever holds it longer (another process, a stuck host) is not waited for.
pub const LOCK_WAIT: Duration = Duration::from_secs(5);
const POLL: Duration = Duration::from_millis(2);

#[derive(Debug, thiserror::Error)]
pub enum TurnError {
    #[error("no turn for build {position} within {}s", WAIT.as_secs())]
    TimedOut { position: u32 },
    #[error("the turns' lock was held by another for {}s", LOCK_WAIT.as_secs())]
    LockHeld,
    #[error("the turns' folder: {0}")]
    Io(#[from] std::io::Error),
}

/// One build's view of the turns.
#[derive(Debug)]
pub struct Gate {
    dir: PathBuf,
    position: u32,
    builds: u32,
    /// The next step this build will take, and whether it holds the current one.
    next_step: u64,
    holding: Option<u64>,
}

impl Gate {
    /// Makes the turns' folder for `builds` builds (the CLI, before any launch).
    pub fn create(dir: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(dir)?;
        let mut file = state::open_no_follow(
            &dir.join("turn"),
            OpenOptions::new().write(true).create_new(true),
        )?;
        file.write_all(b"0")
    }

    pub fn open(turns: &JobTurns) -> Gate {
        Gate {
            dir: turns.gate_dir.clone(),
            position: turns.tag.position,
            builds: turns.tag.builds,
            next_step: 0,
            holding: None,
        }
    }

    /// Gives back the turn held, if any, then waits for this build's next one.
    pub fn take_next(&mut self) -> Result<(), TurnError> {
        self.release()?;
        let mine = self.next_step * u64::from(self.builds) + u64::from(self.position);
        let started = Instant::now();
        loop {
            if self.advance(|turn| turn == mine)? == mine {
                self.holding = Some(mine);
                self.next_step += 1;
                return Ok(());
            }
            if started.elapsed() > WAIT {
                return Err(TurnError::TimedOut {
                    position: self.position,
                });
            }
            std::thread::sleep(POLL);
        }
    }

    /// Gives back the turn held.
    pub fn release(&mut self) -> Result<(), TurnError> {
        if let Some(held) = self.holding.take() {
            self.bump(held)?;
        }
        Ok(())
    }

    /// This build takes no more turns: the others skip its place.
    pub fn finish(&mut self) -> Result<(), TurnError> {
        self.release()?;
        mark_done(&self.dir, self.position)?;
        // A turn that waits on this build moves on now, not at the next poll.
        self.advance(|_| false).map(drop)?;
        Ok(())
    }

    /// Under the lock: skips the turns of finished builds and returns the turn now due.
    /// `stop` ends the skipping at a turn the caller wants.
    fn advance(&self, stop: impl Fn(u64) -> bool) -> Result<u64, TurnError> {
        let (mut file, mut turn) = self.locked()?;
        let start = turn;
        let done = (0..self.builds)
            .map(|p| is_done(&self.dir, p))
            .collect::<std::io::Result<Vec<bool>>>()?;
        let all_done = done.iter().all(|&d| d);
        while !all_done && !stop(turn) && done[(turn % u64::from(self.builds)) as usize] {
            turn += 1;
        }
        if turn != start {
            write_turn(&mut file, turn)?;
        }
        Ok(turn)
    }

    /// The turn after `held`, written if `held` is still the turn due.
    fn bump(&self, held: u64) -> Result<(), TurnError> {
        let (mut file, turn) = self.locked()?;
        if turn == held {
            write_turn(&mut file, held + 1)?;
        }
        Ok(())
    }

    /// The counter's file, locked (released when it is dropped), and its value. A link
    /// in its place is refused, never followed.
    fn locked(&self) -> Result<(File, u64), TurnError> {
        let path = self.dir.join("turn");
        let mut file = state::open_no_follow(&path, OpenOptions::new().read(true).write(true))?;
        lock_within(&file, LOCK_WAIT)?;
        let mut text = String::new();
        file.read_to_string(&mut text)?;
        Ok((file, text.trim().parse().unwrap_or(0)))
    }
}

/// Takes `file`'s lock, waiting at most `within` for whoever holds it.
fn lock_within(file: &File, within: Duration) -> Result<(), TurnError> {
    state::lock_within(file, within, POLL).map_err(|e| match e.kind() {
        std::io::ErrorKind::WouldBlock => TurnError::LockHeld,
        _ => e.into(),
    })
}

fn write_turn(file: &mut File, turn: u64) -> std::io::Result<()> {
    file.set_len(0)?;
    file.rewind()?;
    file.write_all(turn.to_string().as_bytes())
}

fn done_path(dir: &Path, position: u32) -> PathBuf {
    dir.join(format!("done-{position}"))
}

/// Whether the build marked itself done: a file there (a link there is refused).
fn is_done(dir: &Path, position: u32) -> std::io::Result<bool> {
    match state::open_no_follow(&done_path(dir, position), OpenOptions::new().read(true)) {
        Ok(_) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

/// Marks a build finished: by its host at its end, or by the CLI when it broke. Made
/// without following a link in its place (which would truncate the link's target).
pub fn mark_done(dir: &Path, position: u32) -> std::io::Result<()> {
    let path = done_path(dir, position);
    state::open_no_follow(&path, OpenOptions::new().write(true).create(true)).map(drop)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    fn turns(dir: &Path, position: u32, builds: u32) -> JobTurns {
        JobTurns {
            tag: Interleaved {
                group: "g".into(),
                position,
                builds,
            },
            gate_dir: dir.to_owned(),
        }
    }

    /// Two builds, each in its own thread as each host is its own process: their steps
    /// alternate A B A B, and when one finishes early the other goes on alone.
    #[test]
    fn builds_take_turns_and_a_finished_build_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        Gate::create(dir.path()).unwrap();
        let order = Arc::new(Mutex::new(Vec::new()));
        let threads: Vec<_> = [(0u32, 5usize), (1, 3)]
            .into_iter()
            .map(|(position, steps)| {
                let (t, order) = (turns(dir.path(), position, 2), order.clone());
                std::thread::spawn(move || {
                    let mut gate = Gate::open(&t);
                    for step in 0..steps {
                        gate.take_next().unwrap();
                        order.lock().unwrap().push((position, step));
                        std::thread::sleep(Duration::from_millis(3));
                    }
                    gate.finish().unwrap();
                })
            })
            .collect();
        threads.into_iter().for_each(|t| t.join().unwrap());
        let order = order.lock().unwrap().clone();
        assert_eq!(
            order,
            [
                (0, 0),
                (1, 0),
                (0, 1),
                (1, 1),
                (0, 2),
                (1, 2),
                (0, 3),
                (0, 4)
            ]
        );
    }

    #[test]
    fn a_build_that_never_came_is_skipped_once_marked_done() {
        let dir = tempfile::tempdir().unwrap();
        Gate::create(dir.path()).unwrap();
        let mut a = Gate::open(&turns(dir.path(), 0, 2));
        a.take_next().unwrap();
        // Build 1 never started; the CLI marks it done when its browser gives up.
        mark_done(dir.path(), 1).unwrap();
        a.take_next().unwrap();
        a.take_next().unwrap();
        a.finish().unwrap();
    }
}
