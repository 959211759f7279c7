//! What the machine was doing while a run measured: the load the run put on it on
//! purpose (`Load`), what the host saw of other work (`MachineState`, per block and per
//! run) and the condition that names (`Condition`). Words for all of it are in
//! `export/conditions.rs`; the sampler that measures it is `conditions/`.

use serde::{Deserialize, Serialize};

/// A load the run generates itself, in alternate blocks (`--load none,cpu`).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Default,
    Serialize,
    Deserialize,
    clap::ValueEnum,
    schemars::JsonSchema,
    strum::EnumIter,
)]
#[serde(rename_all = "kebab-case")]
pub enum Load {
    /// Nothing added: the machine as it is.
    #[default]
    None,
    /// One CPU-bound thread per logical core at normal priority (`unobserved __load`).
    Cpu,
}

/// Thresholds that name a block's condition (docs/why-the-answer-depends.md has why).
pub mod thresholds {
    /// Other work used at least this many cores on average, or a quarter of the cores
    /// when that is more: the CPU was busy with other work.
    pub const CPU_BUSY_CORES: f64 = 0.5;
    pub const CPU_BUSY_SHARE_OF_CORES: f64 = 0.25;
    /// Some task stalled on I/O for at least this share of the wall time (PSI io some).
    pub const IO_SOME: f64 = 0.10;
    /// Some task stalled on memory for at least this share of the wall time.
    pub const MEMORY_SOME: f64 = 0.05;
}

/// What the host measured of the machine over a span (a block, or a whole run). CPU
/// figures are in cores (1.0 = one logical core busy for the whole span); pressures
/// are shares of the wall time (Linux PSI `some`: at least one task stalled).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MachineState {
    /// Wall seconds covered.
    pub seconds: f64,
    /// Logical cores of the machine.
    pub cores: u32,
    /// Cores busy with work other than this run's: the machine's busy time less the
    /// browser's, this host's and its load's.
    pub others_cores: f64,
    /// Share of the sampling intervals in which every core was busy with other work
    /// (others rounded to the machine's core count).
    pub all_cores_busy_share: f64,
    /// Cores this run's own processes used (the browser where known, this host).
    pub own_cores: f64,
    /// Cores the run's own generated load used (`Load::Cpu` blocks).
    pub load_cores: f64,
    /// Cores the hypervisor took (steal), where the kernel reports it.
    pub steal_cores: f64,
    /// PSI: share of the time some task waited for a CPU / for I/O / for memory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_some: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_some: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_some: Option<f64>,
    /// What could not be measured here, if anything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gap: Option<Gap>,
}

/// Why part of the machine's state is not measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Gap {
    /// Windows and macOS: the sampler reads Linux's /proc; nothing is measured.
    NotMeasuredOnThisOs,
    /// Linux without /proc/pressure (a kernel before 4.20 or PSI off): CPU only.
    NoPressureStallInfo,
    /// The browser's processes are not known (a page of `serve` from this machine
    /// whose process was not found): its CPU counts as other work.
    BrowserUnknown,
}

/// What kind of other work a span saw, worst first when several apply.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Pressure {
    /// Other work kept the CPU busy.
    Cpu,
    /// Tasks stalled on I/O (a disk-heavy process).
    Io,
    /// Tasks stalled on memory (reclaim, swapping).
    Memory,
}

/// The condition a verdict was measured under: the load the run put on the machine on
/// purpose, and the other work the host saw. Two spans are in the same condition when
/// both agree; a condition that could not be measured is `unmeasured`.
#[derive(
    Debug,
    Clone,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Default,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
pub struct Condition {
    #[serde(default)]
    pub load: Load,
    /// Empty: quiet (no other work beyond the thresholds).
    #[serde(default)]
    pub pressures: Vec<Pressure>,
    /// Nothing was measured (another OS, an old run): the condition is unknown.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unmeasured: bool,
}

impl Condition {
    pub fn is_quiet(&self) -> bool {
        self.load == Load::None && self.pressures.is_empty() && !self.unmeasured
    }
}

impl MachineState {
    /// The cores other work must use for the CPU to count as busy with it.
    pub fn cpu_busy_cores(&self) -> f64 {
        thresholds::CPU_BUSY_CORES.max(thresholds::CPU_BUSY_SHARE_OF_CORES * self.cores as f64)
    }

    /// The pressures beyond their thresholds, worst first.
    pub fn pressures(&self) -> Vec<Pressure> {
        let mut p = Vec::new();
        if self.others_cores >= self.cpu_busy_cores() {
            p.push(Pressure::Cpu);
        }
        if self.io_some.is_some_and(|s| s >= thresholds::IO_SOME) {
            p.push(Pressure::Io);
        }
        if self
            .memory_some
            .is_some_and(|s| s >= thresholds::MEMORY_SOME)
        {
            p.push(Pressure::Memory);
        }
        p
    }

    /// The condition of a span with this state and the run's own `load`.
    pub fn condition(&self, load: Load) -> Condition {
        Condition {
            load,
            pressures: self.pressures(),
            unmeasured: self.gap == Some(Gap::NotMeasuredOnThisOs),
        }
    }

    /// Several spans as one: time-weighted means.
    pub fn combine(spans: &[MachineState]) -> MachineState {
        let seconds: f64 = spans.iter().map(|s| s.seconds).sum();
        if seconds <= 0.0 {
            return spans.first().copied().unwrap_or_default();
        }
        let mean = |f: &dyn Fn(&MachineState) -> f64| {
            spans.iter().map(|s| f(s) * s.seconds).sum::<f64>() / seconds
        };
        let mean_opt = |f: &dyn Fn(&MachineState) -> Option<f64>| {
            let known: Vec<&MachineState> = spans.iter().filter(|s| f(s).is_some()).collect();
            let t: f64 = known.iter().map(|s| s.seconds).sum();
            (t > 0.0).then(|| {
                known
                    .iter()
                    .map(|s| f(s).unwrap_or(0.0) * s.seconds)
                    .sum::<f64>()
                    / t
            })
        };
        MachineState {
            seconds,
            cores: spans.iter().map(|s| s.cores).max().unwrap_or(0),
            others_cores: mean(&|s| s.others_cores),
            all_cores_busy_share: mean(&|s| s.all_cores_busy_share),
            own_cores: mean(&|s| s.own_cores),
            load_cores: mean(&|s| s.load_cores),
            steal_cores: mean(&|s| s.steal_cores),
            cpu_some: mean_opt(&|s| s.cpu_some),
            io_some: mean_opt(&|s| s.io_some),
            memory_some: mean_opt(&|s| s.memory_some),
            gap: spans.iter().find_map(|s| s.gap),
        }
    }
}

/// One block of a run as the host saw it: its reps, the load it ran under, and what
/// the machine did meanwhile. Stored as a `conditions` line when the block ends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BlockConditions {
    pub block: u32,
    /// The first rep of the block.
    pub first_rep: u32,
    pub load: Load,
    pub state: MachineState,
    /// Whether the block's uploads ran in a benchmark page of their own (from the
    /// samples' `page_load`). Absent when no sample said which page it ran in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<BlockPage>,
}

/// The benchmark page a block ran in (issue 36): a fresh page per block, so that what a
/// page draws once (its JS heap, its blobs) is drawn once per block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum BlockPage {
    /// Every upload of the block ran in page `load`, and no other block's did.
    Own { load: u32 },
    /// The block's uploads ran in more than one page, or in one another block used too.
    Shared,
}

/// Why `unobserved serve` refused a page's `new-page`, or a fresh page's `ready` (a page
/// per block over HTTP, PROTOCOL.md). Worded in `export::conditions`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr, strum::EnumIter)]
#[strum(serialize_all = "kebab-case")]
pub enum PageRefusal {
    /// The page that asked is not the run's current one (serve did not serve it for
    /// this run, or a fresh page already took over).
    NotCurrentPage,
    /// The rep is not the first rep of a block after the last one granted.
    NotABlockStart,
    /// The rep is past the plan's last.
    BeyondPlan,
    /// A fresh page was granted and has not taken over yet.
    Pending,
    /// `ready` for a run that granted no fresh page.
    NotGranted,
    /// `ready` from a page serve did not serve, or one already bound to a run.
    UnknownLoad,
    /// The run has ended.
    Ended,
}

impl BlockConditions {
    pub fn condition(&self) -> Condition {
        self.state.condition(self.load)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(others: f64, io: f64) -> MachineState {
        MachineState {
            seconds: 1.0,
            cores: 2,
            others_cores: others,
            io_some: Some(io),
            memory_some: Some(0.0),
            ..MachineState::default()
        }
    }

    #[test]
    fn a_condition_names_what_crossed_its_threshold() {
        assert!(state(0.1, 0.01).condition(Load::None).is_quiet());
        assert_eq!(state(1.8, 0.0).pressures(), vec![Pressure::Cpu]);
        assert_eq!(state(0.1, 0.4).pressures(), vec![Pressure::Io]);
        assert_eq!(
            state(1.0, 0.4).pressures(),
            vec![Pressure::Cpu, Pressure::Io]
        );
        let loaded = state(0.0, 0.0).condition(Load::Cpu);
        assert!(!loaded.is_quiet() && loaded.pressures.is_empty());
        // Eight cores need two busy with other work.
        let big = MachineState {
            cores: 8,
            ..state(1.5, 0.0)
        };
        assert!(big.pressures().is_empty());
    }

    #[test]
    fn spans_combine_by_time() {
        let a = MachineState {
            seconds: 3.0,
            ..state(2.0, 0.0)
        };
        let b = MachineState {
            seconds: 1.0,
            ..state(0.0, 0.4)
        };
        let both = MachineState::combine(&[a, b]);
        assert_eq!(both.seconds, 4.0);
        assert!((both.others_cores - 1.5).abs() < 1e-12);
        assert!((both.io_some.unwrap() - 0.1).abs() < 1e-12);
    }
}
