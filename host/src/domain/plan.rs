//! What a run will do: the plan (body kinds, reps, workloads, transports, blocks, loads),
//! the arms it gives, and (`validate`) the rules every plan is held to.

use crate::domain::arm::{Api, Arm, ArmKind, BodyKind, Schedule, Transport, BASELINE_BODY};
use serde::{Deserialize, Serialize};
use strum::IntoEnumIterator;

mod validate;
pub use validate::{
    shared_data, PlanError, PlanErrorKind, SizeOf, AUTO_DEFAULT, BLOCK_REPS,
    MAX_MODULE_TIMEOUT_SECS,
};

/// What a run will do: the suite the popup or the CLI asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Plan {
    pub size_bytes: u64,
    pub reps: u32,
    pub warmup: u32,
    pub bodies: Vec<BodyKind>,
    /// The positive control: every rep runs once with a debugger attached to the
    /// benchmark tab and once without (Chromium family only).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub control: bool,
    /// Keep adding interleaved reps past `reps` until every ratio resolves or the
    /// budget runs out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto: Option<AutoBudget>,
    /// The negative control: the baseline body a second time in every rep, compared
    /// with itself. A difference there means the machine is too noisy for the verdicts.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub negative_control: bool,
    /// Differences smaller than this fraction count as "the same" (default 0.05); also
    /// what `--auto` resolves to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub horizon: Option<f64>,
    /// Real workloads run as extra arms beside (or instead of) the body kinds.
    #[serde(default, skip_serializing_if = "Workloads::is_empty")]
    pub workloads: Workloads,
    /// The transports every body kind runs over (`--transport`). Empty: h1 only, with
    /// labels as they always were. Workloads always travel over h1.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub transports: Vec<Transport>,
    /// Reps per block (issue 36): the run is split into blocks of this many reps, each
    /// one figure of its comparisons (`stats::blocks`). Absent in runs stored before
    /// blocks (one block: every rep pooled); the host sets `DEFAULT_BLOCK_REPS` when a
    /// plan starts without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_reps: Option<u32>,
    /// Loads the run generates itself, block by block in turn (`--load none,cpu`):
    /// block b runs under `loads[b % loads.len()]`. Empty: the machine as it is.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub loads: Vec<crate::domain::conditions::Load>,
    /// The APIs every body kind uploads through (`--api`). Empty: fetch() only, with
    /// labels as they always were; XHR arms are made for the kinds XHR sends as bytes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub apis: Vec<crate::domain::arm::Api>,
    /// The user's workload modules, run as arms after the body kinds (`--script`, or
    /// registered with `unobserved workload add`). A plan from the extension names them;
    /// the host reads each and records its SHA-256 and size before the run starts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub modules: Vec<crate::domain::workload::ModuleRef>,
    /// The module every other module is compared with (`--baseline`); without it, the
    /// first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<crate::domain::arm::ModuleName>,
    /// The seed of the bytes every module is given (`sink::expected`), chosen by the host
    /// at the run's start: 32 hex digits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub module_seed: Option<String>,
    /// How long one module upload may take before it is aborted and stored as a failure
    /// (`--module-timeout`; 60 s when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub module_timeout_secs: Option<u32>,
}

/// Reps per block when a plan does not say: three, the fewest whose median is robust
/// to one slow upload, so a minute holds many blocks (BENCHMARKS.md, issue 36).
pub const DEFAULT_BLOCK_REPS: u32 = 3;

/// The write-up's investigation as arms: encrypted chunked uploads (serial and
/// pipelined, per chunk size), a streamed download, and parallel uploads.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Workloads {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encrypted: Option<EncryptedWorkload>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub download: Option<DownloadWorkload>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parallel: Option<ParallelWorkload>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EncryptedWorkload {
    pub file_bytes: u64,
    pub chunk_sizes: Vec<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DownloadWorkload {
    pub bytes: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ParallelWorkload {
    pub bytes: u64,
    pub streams: Vec<u32>,
}

impl Workloads {
    pub fn is_empty(&self) -> bool {
        self.encrypted.is_none() && self.download.is_none() && self.parallel.is_none()
    }

    /// The workload arms, in the order a rep runs them: both schedules per chunk size,
    /// the download, then one per stream count.
    fn arms(&self) -> Vec<ArmKind> {
        let mut arms = Vec::new();
        for &chunk_bytes in self.encrypted.iter().flat_map(|e| &e.chunk_sizes) {
            for schedule in [Schedule::Serial, Schedule::Pipelined] {
                arms.push(ArmKind::Encrypted {
                    chunk_bytes,
                    schedule,
                });
            }
        }
        if self.download.is_some() {
            arms.push(ArmKind::Download);
        }
        for &streams in self.parallel.iter().flat_map(|p| &p.streams) {
            arms.push(ArmKind::Parallel {
                streams: u64::from(streams),
            });
        }
        arms
    }

    /// The bytes one run of this workload arm moves.
    fn bytes_of(&self, kind: &ArmKind) -> u64 {
        match kind {
            ArmKind::Encrypted { .. } => self.encrypted.as_ref().map_or(0, |e| e.file_bytes),
            ArmKind::Download => self.download.as_ref().map_or(0, |d| d.bytes),
            ArmKind::Parallel { streams } => {
                streams * self.parallel.as_ref().map_or(0, |p| p.bytes)
            }
            ArmKind::Body { .. } | ArmKind::Module { .. } | ArmKind::Unknown { .. } => 0,
        }
    }
}

/// Why `--auto` stopped adding reps (or rounds, across browsers).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::EnumIter, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum AutoStop {
    /// Every comparison's interval lies entirely inside or outside the horizon.
    Settled,
    BudgetReps,
    BudgetTime,
}

/// Why an auto-sampled run goes on or stops: `auto-decision`'s `reason`, as data. Its
/// words are `export::words::auto_reason`'s; the extension's are held to them by
/// `tests/fixtures/formats.json`.
#[derive(Debug, Clone, PartialEq, Serialize, strum::EnumDiscriminants)]
#[serde(tag = "kind", rename_all = "kebab-case")]
#[strum_discriminants(
    name(AutoReasonKind),
    derive(strum::EnumIter, Serialize),
    serde(rename_all = "kebab-case")
)]
pub enum AutoReason {
    /// It stops: every comparison is settled.
    Settled,
    /// It stops: the rep budget is spent.
    BudgetReps,
    /// It stops: the time budget is spent.
    BudgetTime,
    /// It goes on: nothing settled to compare yet (before the plan's reps, or no
    /// comparison in the plan).
    NothingToCompare,
    /// It goes on: these arms' comparisons are not settled yet.
    NotSettled {
        #[serde(serialize_with = "crate::domain::arm::labelled_all")]
        unsettled: Vec<Arm>,
    },
    /// The page's own, when its `auto-check` got no answer, so the run stops there. The
    /// host never sends it; the run's end reason is worded from it all the same.
    CheckFailed { error: String },
}

impl From<AutoStop> for AutoReason {
    fn from(stop: AutoStop) -> AutoReason {
        match stop {
            AutoStop::Settled => AutoReason::Settled,
            AutoStop::BudgetReps => AutoReason::BudgetReps,
            AutoStop::BudgetTime => AutoReason::BudgetTime,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AutoBudget {
    pub max_reps: u32,
    pub max_seconds: u64,
}

impl Default for Plan {
    fn default() -> Self {
        Plan {
            size_bytes: 32 * 1024 * 1024,
            reps: 6,
            warmup: 1,
            bodies: BodyKind::iter().collect(),
            control: false,
            auto: None,
            negative_control: false,
            horizon: None,
            workloads: Workloads::default(),
            transports: Vec::new(),
            block_reps: None,
            loads: Vec::new(),
            apis: Vec::new(),
            modules: Vec::new(),
            baseline: None,
            module_seed: None,
            module_timeout_secs: None,
        }
    }
}

impl Plan {
    /// The block a rep falls in (every rep in block 0 for a plan without blocks).
    pub fn block_of(&self, rep: u32) -> u32 {
        self.block_reps.filter(|&k| k > 0).map_or(0, |k| rep / k)
    }

    /// The load a block runs under.
    pub fn load_of(&self, block: u32) -> crate::domain::conditions::Load {
        match self.loads.len() {
            0 => crate::domain::conditions::Load::None,
            n => self.loads[block as usize % n],
        }
    }

    /// The reps a run takes before any budget may stop it: its `reps`, raised so a plan
    /// that alternates loads measures every load for one whole block. Stopped sooner, a
    /// load would have a rep or none, and no verdict of its own.
    pub fn minimum_reps(&self) -> u32 {
        let every_load = match (self.loads.len(), self.block_reps.filter(|&k| k > 0)) {
            (n, Some(k)) if n > 1 => k.saturating_mul(n as u32),
            _ => 0,
        };
        self.reps.max(every_load)
    }

    /// At most this many reps: --auto may add reps up to its max.
    pub fn max_reps(&self) -> u64 {
        let asked = self.auto.map_or(self.reps, |a| a.max_reps.max(self.reps));
        asked.max(self.minimum_reps()) as u64
    }

    /// A control plan runs every rep twice, attached and detached.
    fn conditions(&self) -> u64 {
        if self.control {
            2
        } else {
            1
        }
    }

    /// Every arm of one rep, in the order the page runs them: the body kinds over
    /// each transport (the negative control after the first transport's), then the
    /// workloads. The page builds its steps from exactly this list.
    pub fn arms(&self) -> Vec<Arm> {
        let plain = |kind: ArmKind, transport: Option<Transport>, repeat: bool| Arm {
            api: None,
            kind,
            transport,
            condition: None,
            repeat,
        };
        // h1 alone is the default said out loud: labels stay as they always were.
        let chosen: Vec<Option<Transport>> =
            if self.transports.is_empty() || self.transports == [Transport::H1] {
                vec![None]
            } else {
                self.transports.iter().copied().map(Some).collect()
            };
        let mut arms = Vec::new();
        for (i, &transport) in chosen.iter().enumerate() {
            for &body in &self.bodies {
                arms.push(plain(ArmKind::Body { body }, transport, false));
            }
            let xhr = self.apis.contains(&Api::Xhr);
            for &body in self
                .bodies
                .iter()
                .filter(|b| xhr && b.goes_through(Api::Xhr))
            {
                arms.push(Arm {
                    api: Some(Api::Xhr),
                    ..plain(ArmKind::Body { body }, transport, false)
                });
            }
            if self.negative_control && i == 0 && !self.bodies.is_empty() {
                let body = if self.bodies.contains(&BASELINE_BODY) {
                    BASELINE_BODY
                } else {
                    self.bodies[0]
                };
                arms.push(plain(ArmKind::Body { body }, transport, true));
            }
        }
        arms.extend(
            self.workloads
                .arms()
                .into_iter()
                .chain(self.module_arms())
                .map(|kind| plain(kind, None, false)),
        );
        arms
    }

    /// Every arm a measured sample of this plan may name: the arms, and in a control
    /// plan each of them attached and detached.
    pub fn measured_arms(&self) -> Vec<Arm> {
        let arms = self.arms();
        if !self.control {
            return arms;
        }
        [
            crate::domain::arm::Condition::Attached,
            crate::domain::arm::Condition::Detached,
        ]
        .into_iter()
        .flat_map(|c| {
            arms.iter().cloned().map(move |mut arm| {
                arm.condition = Some(c);
                arm
            })
        })
        .collect()
    }

    /// The bytes one upload of `arm` sends under this plan (a parallel arm's streams
    /// together).
    pub fn bytes_of(&self, arm: &Arm) -> u64 {
        match &arm.kind {
            ArmKind::Body { .. } | ArmKind::Module { .. } => self.size_bytes,
            kind => self.workloads.bytes_of(kind),
        }
    }

    /// Upload ids a run of this plan makes at a sink, warm-ups and every rep it may
    /// reach included, and one rep more: each body, file and download one, each
    /// parallel stream one. The room its sink's ledger opens it with.
    pub fn upload_ids(&self) -> u64 {
        let per_rep: u64 = self
            .arms()
            .iter()
            .map(|arm| match arm.kind {
                ArmKind::Parallel { streams } => streams,
                _ => 1,
            })
            .sum();
        (self.max_reps() + u64::from(self.warmup) * self.pages() + 1) * self.conditions() * per_rep
    }

    /// At most this many benchmark pages: one per block, each with its own warm-up
    /// (a page that cannot be renewed runs every block in one, so it uses fewer).
    pub fn pages(&self) -> u64 {
        match self.block_reps.filter(|&k| k > 0) {
            Some(k) => self.max_reps().div_ceil(u64::from(k)).max(1),
            None => 1,
        }
    }

    /// Each module as an arm, under the SHA-256 the host recorded for it.
    fn module_arms(&self) -> impl Iterator<Item = ArmKind> + '_ {
        self.modules.iter().map(|m| ArmKind::Module {
            name: m.name.clone(),
            sha256: m.sha256.clone().unwrap_or_default(),
        })
    }

    /// The module arm every other module arm is compared with: `baseline`'s, or the
    /// first module's.
    pub fn baseline_module(&self) -> Option<&crate::domain::arm::ModuleName> {
        self.baseline
            .as_ref()
            .or_else(|| self.modules.first().map(|m| &m.name))
    }

    pub fn measured_uploads(&self) -> u64 {
        self.max_reps() * self.arms().len() as u64 * self.conditions()
    }

    /// The fewest measured samples a complete run of this plan stores: every arm's
    /// minimum reps; an auto-sampled run may stop adding reps after them.
    pub fn fewest_measured(&self) -> u64 {
        self.minimum_reps() as u64 * self.arms().len() as u64 * self.conditions()
    }

    /// Bytes one rep moves, every arm once: a body per body arm, and each workload at
    /// its own size (a whole file per encrypted schedule, N bodies at once).
    fn bytes_per_rep(&self) -> u64 {
        self.arms().iter().map(|arm| self.bytes_of(arm)).sum()
    }

    /// How long `unobserved run` waits by default: two minutes of slack, and every byte
    /// of every rep and warm-up (both conditions of a control) at a slow 16 Mbit/s; an
    /// auto-sampled run's added reps end with its time budget (plus the rep under way),
    /// or with its rep budget if that comes first.
    pub fn default_timeout(&self) -> std::time::Duration {
        const SLOW_BYTES_PER_SEC: u64 = 2_000_000;
        let rep_bytes = self.conditions() * self.bytes_per_rep();
        let first = (u64::from(self.minimum_reps()) + u64::from(self.warmup)) * rep_bytes;
        let added = self.auto.map_or(0, |a| {
            let by_reps = self
                .max_reps()
                .saturating_sub(u64::from(self.minimum_reps()))
                * rep_bytes;
            by_reps.min(a.max_seconds * SLOW_BYTES_PER_SEC + rep_bytes)
        });
        std::time::Duration::from_secs(120 + (first + added) / SLOW_BYTES_PER_SEC)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::conditions::Load;
    use serde_json::Value;

    /// The arms `run-started` hands the page, as JSON.
    fn planned(plan: &Plan) -> Value {
        let arms: Vec<_> = plan
            .arms()
            .into_iter()
            .map(|arm| crate::protocol::messages::PlannedArm {
                label: arm.label(),
                arm,
            })
            .collect();
        serde_json::to_value(arms).unwrap()
    }

    #[test]
    fn plans_give_the_arms_and_counts_of_the_shared_fixture() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/fixtures/plan-counts.json"
        );
        let mut fixture: Value =
            serde_json::from_str(include_str!("../../../tests/fixtures/plan-counts.json")).unwrap();
        if std::env::var_os("UNOBSERVED_WRITE_FIXTURES").is_some() {
            for case in fixture["plans"].as_array_mut().unwrap() {
                let plan: Plan = serde_json::from_value(case["plan"].clone()).unwrap();
                case["arms"] = planned(&plan);
                case["measured"] = plan.measured_uploads().into();
            }
            std::fs::write(path, serde_json::to_string_pretty(&fixture).unwrap() + "\n").unwrap();
        }
        for case in fixture["plans"].as_array().unwrap() {
            let plan: Plan = serde_json::from_value(case["plan"].clone()).unwrap();
            assert_eq!(planned(&plan), case["arms"], "{plan:?}");
            assert_eq!(
                plan.measured_uploads(),
                case["measured"].as_u64().unwrap(),
                "{plan:?}"
            );
        }
    }

    #[test]
    fn a_plan_of_loads_takes_at_least_a_whole_block_of_each_load() {
        let plan = Plan {
            reps: 4,
            block_reps: Some(3),
            loads: vec![Load::None, Load::Cpu],
            ..Plan::default()
        };
        assert_eq!((plan.minimum_reps(), plan.max_reps()), (6, 6));
        let one_load = Plan {
            loads: vec![Load::Cpu],
            ..plan.clone()
        };
        assert_eq!(
            one_load.minimum_reps(),
            4,
            "one load: every block is under it"
        );
        let many = Plan { reps: 10, ..plan };
        assert_eq!(many.minimum_reps(), 10);
    }

    #[test]
    fn the_default_timeout_counts_every_byte_the_plan_moves() {
        let base = Plan {
            size_bytes: 32 << 20,
            reps: 6,
            warmup: 1,
            bodies: vec![BodyKind::Uint8Array, BodyKind::Blob],
            ..Plan::default()
        };
        // 7 reps × 2 bodies × 32 MiB at 2 MB/s, plus two minutes.
        let plain = base.default_timeout().as_secs();
        assert_eq!(plain, 120 + 7 * 2 * (32 << 20) / 2_000_000);
        // A control run moves everything twice.
        let control = Plan {
            control: true,
            ..base.clone()
        }
        .default_timeout()
        .as_secs();
        assert!(
            (control - 120).abs_diff(2 * (plain - 120)) <= 1,
            "{control} vs {plain}"
        );
        // Workloads count at their own sizes: a 512 MiB file per encrypted schedule.
        let mut encrypted = base.clone();
        encrypted.workloads.encrypted = Some(EncryptedWorkload {
            file_bytes: 512 << 20,
            chunk_sizes: vec![16 << 20],
        });
        let extra = encrypted.default_timeout().as_secs() - plain;
        assert!(extra >= 7 * 2 * (512 << 20) / 2_000_000 - 1, "{extra}");
        // Auto-sampled: the time budget ends the added reps, within one rep more; a
        // small rep budget ends them sooner.
        let auto = |max_reps, max_seconds| Plan {
            auto: Some(AutoBudget {
                max_reps,
                max_seconds,
            }),
            ..base.clone()
        };
        let rep = 2 * (32 << 20) / 2_000_000;
        let by_time = auto(1000, 60).default_timeout().as_secs();
        assert!(by_time.abs_diff(plain + 60 + rep) <= 1, "{by_time}");
        let by_reps = auto(8, 600).default_timeout().as_secs();
        assert!(by_reps.abs_diff(plain + 2 * rep) <= 1, "{by_reps}");
    }
}
