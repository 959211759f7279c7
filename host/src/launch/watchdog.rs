//! What cleans up when `unobserved run` itself is killed outright (SIGKILL, OOM): a
//! small child process that watches its parent. When the parent is gone it kills the
//! browser's process group and deletes the throwaway workspace, then exits. On Linux the
//! browser's leader also gets PR_SET_PDEATHSIG, so it dies with `unobserved run` at once.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
#[cfg(unix)]
use std::time::Duration;

/// The hidden subcommand the watchdog runs as.
pub const SUBCOMMAND: &str = "__watchdog";

/// Starts the watchdog for a run's browser group and workspace.
pub fn spawn(pgid: i32, workspace: &Path, run_id: &str) -> std::io::Result<Child> {
    Command::new(std::env::current_exe()?)
        .args([SUBCOMMAND, "--pgid", &pgid.to_string(), "--run-id", run_id])
        .arg("--workspace")
        .arg(workspace)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
}

/// The watchdog's body: wait for the parent to go, then clean up and record the end.
#[cfg(unix)]
pub fn main(pgid: i32, workspace: PathBuf, run_id: String) -> i32 {
    // A Ctrl-C in the terminal reaches the whole foreground group; `unobserved run`
    // handles that itself, and the watchdog must outlive it in case it cannot.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_IGN);
        libc::signal(libc::SIGHUP, libc::SIG_IGN);
    }
    let parent = unsafe { libc::getppid() };
    while unsafe { libc::getppid() } == parent && workspace.exists() {
        std::thread::sleep(Duration::from_millis(250));
    }
    if unsafe { libc::getppid() } != parent {
        // No grace: whoever ran the benchmark is gone. (The group's zombies may linger
        // until init reaps them, so do not wait for the group to vanish.)
        unsafe { libc::killpg(pgid, libc::SIGKILL) };
        std::thread::sleep(Duration::from_millis(200));
        let _ = std::fs::remove_dir_all(&workspace);
        record_killed(&run_id);
    }
    0
}

/// A run that had begun and has no end gets one: `unobserved run` was killed.
#[cfg(unix)]
fn record_killed(run_id: &str) {
    use crate::store::{Record, Store};
    let Ok(dir) = crate::platform::state::state_dir() else {
        return;
    };
    let store = Store::in_dir(&dir);
    let (mut begun, mut ended) = (false, false);
    // Only the run's own lines are read (through the store's index).
    let read = store.scan_run(run_id, |_, r| {
        begun |= matches!(r, Record::Run(_));
        ended |= matches!(r, Record::RunEnd { .. });
    });
    if read.is_err() {
        return;
    }
    if begun && !ended {
        let _ = store.append(&[Record::RunEnd {
            run_id: run_id.to_owned(),
            status: crate::domain::run::RunStatus::Stopped,
            reason: Some("`unobserved run` was killed (its watchdog ended the browser)".into()),
            recorded_at: crate::store::records::now(),
            observation: None,
            auto_stop: None,
        }]);
    }
}

#[cfg(not(unix))]
pub fn main(_pgid: i32, _workspace: PathBuf, _run_id: String) -> i32 {
    0
}

/// Makes the browser's leader die with its parent (Linux), from `pre_exec`.
#[cfg(target_os = "linux")]
pub fn die_with_parent() -> std::io::Result<()> {
    // SAFETY: prctl is async-signal-safe, as pre_exec requires.
    if unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}
