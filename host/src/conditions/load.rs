//! The CPU load a run generates on purpose (`--load cpu`): a child process,
//! `unobserved __load`, with one CPU-bound thread per logical core at normal priority.
//! It is one process for the whole run, stopped (SIGSTOP) in quiet blocks and continued
//! (SIGCONT) in loaded ones, so switching costs nothing and its CPU is attributable: the
//! sampler counts its process tree as the run's load, not as other work. It dies with
//! the host (Linux `PR_SET_PDEATHSIG`), and the host kills it when the run ends.
//!
//! Why this load: it is the "two CPU-bound processes" made repeatable. Defined
//! per core, it is the same condition on any machine (every core has a CPU-bound
//! neighbour); at normal priority the scheduler shares each core it wants between the
//! browser's threads and the load's by equal weight. The loop touches no memory, so it
//! loads the cores and nothing else (not the caches or the memory bus).

/// The hidden subcommand the load runs as.
pub const SUBCOMMAND: &str = "__load";

/// The load's body: `threads` busy threads, until killed.
pub fn main(threads: usize) -> i32 {
    let threads = threads.max(1);
    let spin = || {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        loop {
            for _ in 0..1_000_000 {
                x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
            }
        }
    };
    let workers: Vec<_> = (1..threads).map(|_| std::thread::spawn(spin)).collect();
    drop(workers);
    spin()
}

/// Threads the load runs: one per logical core.
pub fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The running load process of a run.
pub struct LoadProcess {
    child: std::process::Child,
    on: bool,
}

impl LoadProcess {
    /// Starts the load, stopped.
    #[cfg(unix)]
    pub fn spawn() -> std::io::Result<LoadProcess> {
        use std::os::unix::process::CommandExt;
        let mut cmd = std::process::Command::new(std::env::current_exe()?);
        cmd.args([SUBCOMMAND, "--threads", &threads().to_string()])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        #[cfg(target_os = "linux")]
        unsafe {
            cmd.pre_exec(|| {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = cmd.spawn()?;
        let mut load = LoadProcess { child, on: true };
        load.set(false);
        Ok(load)
    }

    /// Windows: no load generator (`Plan::validate` refuses `--load cpu` there).
    #[cfg(not(unix))]
    pub fn spawn() -> std::io::Result<LoadProcess> {
        Err(std::io::Error::other(
            "the CPU load is not built for this OS",
        ))
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Runs (true) or stops (false) the load's threads.
    pub fn set(&mut self, on: bool) {
        if on == self.on {
            return;
        }
        #[cfg(unix)]
        unsafe {
            let signal = if on { libc::SIGCONT } else { libc::SIGSTOP };
            libc::kill(self.child.id() as i32, signal);
        }
        self.on = on;
        log::info!("generated CPU load {}", if on { "on" } else { "off" });
    }
}

impl Drop for LoadProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
