//! The sampler: a thread that, every `INTERVAL` while a run measures, reads how busy the
//! machine was, how much of that was the run's own processes and load, and the
//! pressure-stall totals, and adds it to the run's open block. A block's figures are
//! closed when the next block begins or the run ends (`BlockConditions`).

use crate::domain::conditions::{BlockConditions, Gap, Load, MachineState};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How often the machine is read: often enough that a block of a few seconds has ten
/// readings or more, seldom enough that reading /proc costs the run nothing to speak of.
pub const INTERVAL: Duration = Duration::from_millis(250);

/// Sums over one block's readings.
#[derive(Debug, Default, Clone, Copy)]
struct Acc {
    seconds: f64,
    others: f64,
    own: f64,
    load: f64,
    steal: f64,
    all_busy_seconds: f64,
    psi: [Option<f64>; 3],
}

impl Acc {
    fn state(&self, cores: u32, gap: Option<Gap>) -> MachineState {
        let per = |x: f64| {
            if self.seconds > 0.0 {
                x / self.seconds
            } else {
                0.0
            }
        };
        let psi = |i: usize| self.psi[i].map(per);
        MachineState {
            seconds: self.seconds,
            cores,
            others_cores: per(self.others),
            all_cores_busy_share: per(self.all_busy_seconds),
            own_cores: per(self.own),
            load_cores: per(self.load),
            steal_cores: per(self.steal),
            cpu_some: psi(0),
            io_some: psi(1),
            memory_some: psi(2),
            gap,
        }
    }
}

struct Open {
    block: u32,
    first_rep: u32,
    load: Load,
    acc: Acc,
}

struct Shared {
    stop: AtomicBool,
    /// The run's generated load, once started (0: none): its CPU is the run's own.
    load_pid: AtomicU32,
    open: Mutex<Option<Open>>,
    roots: Mutex<Vec<u32>>,
    gap: Option<Gap>,
    cores: u32,
}

/// A run's sampler. Dropping it stops the thread.
pub struct Sampler {
    shared: Arc<Shared>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Sampler {
    /// Starts sampling, block 0 open, with the processes under `roots` counted as the
    /// run's own (the browser's tree where known, and this host).
    pub fn start(roots: Vec<u32>, load: Load, gap: Option<Gap>) -> Sampler {
        let gap = gap.or(os_gap());
        let shared = Arc::new(Shared {
            stop: AtomicBool::new(false),
            load_pid: AtomicU32::new(0),
            open: Mutex::new(Some(Open {
                block: 0,
                first_rep: 0,
                load,
                acc: Acc::default(),
            })),
            roots: Mutex::new(roots),
            gap,
            cores: std::thread::available_parallelism().map_or(1, |n| n.get() as u32),
        });
        let inner = shared.clone();
        let thread = std::thread::Builder::new()
            .name("conditions".into())
            .spawn(move || sample_loop(&inner))
            .map_err(|e| log::warn!("no conditions sampler: {e}"))
            .ok();
        Sampler { shared, thread }
    }

    /// The run's generated load now runs as `pid` (0: none).
    pub fn set_load_pid(&self, pid: u32) {
        self.shared.load_pid.store(pid, Ordering::Relaxed);
    }

    /// More processes that are the run's own (a browser found after the start).
    pub fn add_root(&self, pid: u32) {
        self.shared.roots.lock().unwrap().push(pid);
    }

    /// Closes the open block and opens `block`; the closed one's figures.
    pub fn begin_block(&self, block: u32, first_rep: u32, load: Load) -> Option<BlockConditions> {
        let mut open = self.shared.open.lock().unwrap();
        let closed = open.take().map(|o| self.close(o));
        *open = Some(Open {
            block,
            first_rep,
            load,
            acc: Acc::default(),
        });
        closed
    }

    /// The block open now, if any.
    pub fn open_block(&self) -> Option<(u32, Load)> {
        let open = self.shared.open.lock().unwrap();
        open.as_ref().map(|o| (o.block, o.load))
    }

    /// Stops sampling; the last block's figures.
    pub fn finish(mut self) -> Option<BlockConditions> {
        self.stop_thread();
        let open = self.shared.open.lock().unwrap().take();
        open.map(|o| self.close(o))
    }

    fn close(&self, o: Open) -> BlockConditions {
        BlockConditions {
            block: o.block,
            first_rep: o.first_rep,
            load: o.load,
            state: o.acc.state(self.shared.cores, self.shared.gap),
            page: None,
        }
    }

    fn stop_thread(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Sampler {
    fn drop(&mut self) {
        self.stop_thread();
    }
}

#[cfg(target_os = "linux")]
fn os_gap() -> Option<Gap> {
    let psi = super::procfs::pressures();
    psi.iter()
        .all(Option::is_none)
        .then_some(Gap::NoPressureStallInfo)
}

#[cfg(not(target_os = "linux"))]
fn os_gap() -> Option<Gap> {
    Some(Gap::NotMeasuredOnThisOs)
}

/// One reading of the machine.
#[derive(Clone, Copy)]
struct Reading {
    at: Instant,
    busy: u64,
    steal: u64,
    tree: u64,
    load: u64,
    psi: [Option<u64>; 3],
}

#[cfg(target_os = "linux")]
fn read(shared: &Shared) -> Reading {
    use super::procfs;
    let machine = std::fs::read_to_string("/proc/stat")
        .ok()
        .and_then(|t| procfs::parse_stat(&t))
        .unwrap_or_default();
    let all = procfs::processes();
    let roots = shared.roots.lock().unwrap().clone();
    let load_pid = shared.load_pid.load(Ordering::Relaxed);
    Reading {
        at: Instant::now(),
        busy: machine.busy,
        steal: machine.steal,
        tree: procfs::tree_ticks(&all, &roots),
        load: if load_pid == 0 {
            0
        } else {
            procfs::tree_ticks(&all, &[load_pid])
        },
        psi: procfs::pressures(),
    }
}

#[cfg(not(target_os = "linux"))]
fn read(_: &Shared) -> Reading {
    Reading {
        at: Instant::now(),
        busy: 0,
        steal: 0,
        tree: 0,
        load: 0,
        psi: [None; 3],
    }
}

fn sample_loop(shared: &Shared) {
    #[cfg(target_os = "linux")]
    let tps = super::procfs::ticks_per_second();
    #[cfg(not(target_os = "linux"))]
    let tps = 100.0;
    let mut last = read(shared);
    while !shared.stop.load(Ordering::Relaxed) {
        // Short sleeps, so a finished run does not wait a whole interval.
        let until = last.at + INTERVAL;
        while Instant::now() < until && !shared.stop.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(20));
        }
        let now = read(shared);
        let mut open = shared.open.lock().unwrap();
        if let Some(o) = open.as_mut() {
            add(&mut o.acc, &last, &now, tps, shared.cores);
        }
        last = now;
    }
}

/// Adds the span between two readings to a block's sums.
fn add(acc: &mut Acc, a: &Reading, b: &Reading, tps: f64, cores: u32) {
    let secs = (b.at - a.at).as_secs_f64();
    if secs <= 0.0 {
        return;
    }
    let ticks = |x: u64, y: u64| y.saturating_sub(x) as f64 / tps;
    let busy = ticks(a.busy, b.busy);
    // The tree's sum counts the load too (a child of this host): kept apart.
    let load = ticks(a.load, b.load);
    let own = (ticks(a.tree, b.tree) - load).max(0.0);
    let others = (busy - own - load).max(0.0);
    acc.seconds += secs;
    acc.others += others;
    acc.own += own;
    acc.load += load;
    acc.steal += ticks(a.steal, b.steal);
    if (others / secs).round() >= f64::from(cores) {
        acc.all_busy_seconds += secs;
    }
    for i in 0..3 {
        if let (Some(x), Some(y)) = (a.psi[i], b.psi[i]) {
            let stalled = y.saturating_sub(x) as f64 / 1e6;
            acc.psi[i] = Some(acc.psi[i].unwrap_or(0.0) + stalled.min(secs));
        }
    }
}
