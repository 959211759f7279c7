//! The browser runs in its own process group, so that it and every child it spawns
//! (renderers, the zygote, our own host) can be ended together.

//! On Windows, `unobserved run` ends only the browser process it started (a job object
//! would be the next step); everything else here is Unix.

use std::time::Duration;
#[cfg(unix)]
use std::time::Instant;

/// Whether any process of the group is still alive.
#[cfg(unix)]
pub fn group_alive(pgid: i32) -> bool {
    // kill(-pgid, 0) checks for existence without sending anything.
    unsafe { libc::kill(-pgid, 0) == 0 }
}

/// SIGTERM, a grace period, then SIGKILL. Returns whether the group is gone.
#[cfg(unix)]
pub fn end_group(pgid: i32, grace: Duration) -> bool {
    if pgid <= 1 {
        return true;
    }
    unsafe { libc::killpg(pgid, libc::SIGTERM) };
    // A stopped group (a browser that stalled under SIGSTOP) takes its SIGTERM only
    // once it runs again: it gets the grace to end, not the grace spent waiting.
    unsafe { libc::killpg(pgid, libc::SIGCONT) };
    if wait_gone(pgid, grace) {
        return true;
    }
    unsafe { libc::killpg(pgid, libc::SIGKILL) };
    wait_gone(pgid, Duration::from_secs(5))
}

#[cfg(unix)]
fn wait_gone(pgid: i32, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    loop {
        // Reap any of our own children that have exited, so they do not linger as zombies.
        unsafe { while libc::waitpid(-pgid, std::ptr::null_mut(), libc::WNOHANG) > 0 {} }
        if !group_alive(pgid) {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[cfg(unix)]
pub fn running_as_root() -> bool {
    unsafe { libc::geteuid() == 0 }
}

#[cfg(not(unix))]
pub fn end_group(_pid: i32, _grace: Duration) -> bool {
    false
}

#[cfg(not(unix))]
pub fn running_as_root() -> bool {
    false
}
