//! The records that travel from the extension to the host and into the store.
//! Field names match the extension's (`extension/lib/pairing.js`) and PROTOCOL.md.

use crate::arm::{Api, ArmKind, Schedule, BASELINE_BODY};
pub use crate::arm::{Arm, BodyKind, Transport};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use strum::IntoEnumIterator;

#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    strum::IntoStaticStr,
    strum::EnumIter,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum SampleStatus {
    /// Arrived whole: length and SHA-256 match.
    Ok,
    /// The sink got different bytes than the page sent.
    Corrupted,
    /// fetch() rejected, e.g. a stream body over HTTP/1.1 in Chromium.
    Unsupported,
    /// The upload stopped part-way.
    Aborted,
    /// Anything else that went wrong. The default only so that a CSV export with no
    /// samples can take its header from a default row (export/csv.rs).
    #[default]
    Error,
}

impl SampleStatus {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// Which browser, OS and extension a run or an upload came from: one type wherever it
/// is recorded (a run, each of its samples, a report's run).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Environment {
    #[serde(default)]
    pub browser: String,
    #[serde(default)]
    pub browser_version: String,
    #[serde(default)]
    pub os: String,
    #[serde(default)]
    pub extension_version: String,
}

impl Environment {
    /// Each field from `self`, or from `fallback` where `self` left it empty (a run
    /// record of an old extension, completed from its first sample).
    pub fn or(&self, fallback: &Environment) -> Environment {
        let pick = |a: &String, b: &String| if a.is_empty() { b.clone() } else { a.clone() };
        Environment {
            browser: pick(&self.browser, &fallback.browser),
            browser_version: pick(&self.browser_version, &fallback.browser_version),
            os: pick(&self.os, &fallback.os),
            extension_version: pick(&self.extension_version, &fallback.extension_version),
        }
    }
}

/// One measured upload, paired from the page's and the sink's figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Sample {
    pub run_id: String,
    pub body: String,
    pub rep: u32,
    /// Which browser, OS and extension: stored flat, as it always was.
    #[serde(flatten)]
    pub env: Environment,
    pub bytes_sent: u64,
    pub bytes_received: Option<u64>,
    pub sha256_sent: String,
    pub sha256_received: Option<String>,
    pub intact: bool,
    pub status: SampleStatus,
    pub error: Option<String>,
    pub page_ms: Option<f64>,
    pub sink_ms: Option<f64>,
    /// The sink's view of the whole request: its headers to its last byte. The page's
    /// span minus this is time the browser spent before the request reached the sink.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sink_request_ms: Option<f64>,
    pub mbps: Option<f64>,
    #[serde(default)]
    pub head: Option<String>,
    #[serde(default)]
    pub content_type: Option<String>,
    #[serde(default)]
    pub observed: Observation,
    /// The body outgrew the sink's hash queue, so the sink's receive waited for its
    /// hasher: the figure may describe the hasher rather than the browser.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hash_bound: bool,
    /// The negative control: the baseline body uploaded a second time in the same rep,
    /// under its own label, so the run shows what "no difference" looks like here.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub negative_control: bool,
    /// What the upload arrived over, as the sink saw it: "http/1.1" or "h2".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    /// The arm, typed, as the host recorded it when it stored the sample. Samples stored
    /// before arms were recorded have none; `arm()` derives it from their fields.
    #[serde(default, rename = "arm", skip_serializing_if = "Option::is_none")]
    pub recorded_arm: Option<Arm>,
    /// The id the page gave this upload: the sink's record of it is the received side.
    /// Samples stored before the ledger have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upload_id: Option<crate::sink::ledger::UploadId>,
    /// What the host found in its ledger under `upload_id` (`verify/`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receipt: Option<crate::domain::received::Receipt>,
    /// The page claimed other received figures than the sink recorded (the record's were
    /// stored).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub page_claim_differs: bool,
    /// When the sink saw the bytes arrive (`sink::timeline`, its own record); samples
    /// stored before it have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeline: Option<crate::sink::timeline::Timeline>,
    /// The page's clock of the same upload, for its phases (`page_timing.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_timing: Option<crate::page_timing::PageTiming>,
    /// How long after the reply's headers the page read the sink's digest
    /// (BENCHMARKS.md: the settle time must cover it). Page-side.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest_ms: Option<f64>,
    /// An encrypted file's page-side medians: encrypting one chunk, and one chunk's PUT
    /// (their ratio is the report's pipelining ceiling).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub put_ms: Option<f64>,
    /// A workload module's upload: its requests as the sink counted them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parts: Option<crate::domain::received::PartsSummary>,
    /// How a module upload failed, as the page saw it (page-side).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub module_failure: Option<crate::domain::workload::ModuleFailure>,
    /// An encrypted file's chunks as the sink counted them, stored flat (`chunks`,
    /// `tags_ok`, `chunks_in_order`). Before `extra`: a flattened map takes what the
    /// fields before it left.
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub chunk_tally: Option<crate::domain::received::ChunkTally>,
    /// Fields of samples stored by older versions (the arm's fields before arms were
    /// recorded, say), read and written back as they were. A sample stored now has
    /// none: a page's fields this host does not know are dropped (`verify::fit`).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Sample {
    /// Attached or detached, in a control run.
    pub fn condition(&self) -> Option<crate::arm::Condition> {
        self.arm().condition
    }

    /// The arm, typed: as recorded, or derived from the fields of an older sample.
    pub fn arm(&self) -> Arm {
        self.recorded_arm
            .clone()
            .unwrap_or_else(|| Arm::from_legacy(&self.body, &self.extra, self.negative_control))
    }

    /// The arm's label in reports (`Arm::label`).
    pub fn arm_label(&self) -> String {
        self.arm().label()
    }

    /// Whether this upload belongs to `arm`: the join every report makes, on the typed
    /// arm (no copy for a sample whose arm was recorded, as every loaded one is).
    pub fn is_of(&self, arm: &Arm) -> bool {
        match &self.recorded_arm {
            Some(recorded) => recorded == arm,
            None => self.arm() == *arm,
        }
    }
}

/// What the page could tell about being watched. `webdriver` is `navigator.webdriver`.
///
/// Open: whatever else the page reports (`debugger_attached`, newer evidence) is kept.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Observation {
    pub webdriver: Option<bool>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Whether anything watched the measurement: a debugger or an automation driver.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    strum::IntoStaticStr,
    strum::Display,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum Observed {
    Yes,
    No,
    /// No evidence either way, as `Observation::default()` has.
    #[default]
    Unknown,
}

impl Observed {
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// A run was observed if any sample saw a watcher; unobserved only if every sample
    /// positively saw none.
    pub fn of_run(samples: &[Sample]) -> Observed {
        let mut tally = ObservedTally::default();
        samples.iter().for_each(|s| tally.add(&s.observed));
        tally.verdict()
    }
}

/// `Observed::of_run` one sample at a time, for a reader that does not keep them.
#[derive(Debug, Clone, Copy, Default)]
pub struct ObservedTally {
    samples: usize,
    yes: usize,
    no: usize,
}

impl ObservedTally {
    pub fn add(&mut self, o: &Observation) {
        self.samples += 1;
        match o.verdict() {
            Observed::Yes => self.yes += 1,
            Observed::No => self.no += 1,
            Observed::Unknown => {}
        }
    }

    pub fn verdict(&self) -> Observed {
        if self.yes > 0 {
            Observed::Yes
        } else if self.samples > 0 && self.no == self.samples {
            Observed::No
        } else {
            Observed::Unknown
        }
    }
}

impl Observation {
    /// Yes, no or unknown, from the evidence recorded.
    pub fn verdict(&self) -> Observed {
        let debugger = self.extra.get("debugger_attached").and_then(Value::as_bool);
        match (self.webdriver, debugger) {
            (Some(true), _) | (_, Some(true)) => Observed::Yes,
            (Some(false), _) => Observed::No,
            _ => Observed::Unknown,
        }
    }
}

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
    pub apis: Vec<crate::arm::Api>,
    /// The user's workload modules, run as arms after the body kinds (`--script`, or
    /// registered with `unobserved workload add`). A plan from the extension names them;
    /// the host reads each and records its SHA-256 and size before the run starts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub modules: Vec<crate::domain::workload::ModuleRef>,
    /// The module every other module is compared with (`--baseline`); without it, the
    /// first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<crate::arm::ModuleName>,
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

    /// At most this many reps: --auto may add reps up to its max.
    pub fn max_reps(&self) -> u64 {
        self.auto.map_or(self.reps, |a| a.max_reps.max(self.reps)) as u64
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
            crate::arm::Condition::Attached,
            crate::arm::Condition::Detached,
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
        (self.max_reps() + u64::from(self.warmup) + 1) * self.conditions() * per_rep
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
    pub fn baseline_module(&self) -> Option<&crate::arm::ModuleName> {
        self.baseline
            .as_ref()
            .or_else(|| self.modules.first().map(|m| &m.name))
    }

    pub fn measured_uploads(&self) -> u64 {
        self.max_reps() * self.arms().len() as u64 * self.conditions()
    }

    /// The fewest measured samples a complete run of this plan stores: every arm's
    /// reps; an auto-sampled run may stop adding reps after its first ones.
    pub fn fewest_measured(&self) -> u64 {
        self.reps as u64 * self.arms().len() as u64 * self.conditions()
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
        let first = (u64::from(self.reps) + u64::from(self.warmup)) * rep_bytes;
        let added = self.auto.map_or(0, |a| {
            let by_reps = self.max_reps().saturating_sub(u64::from(self.reps)) * rep_bytes;
            by_reps.min(a.max_seconds * SLOW_BYTES_PER_SEC + rep_bytes)
        });
        std::time::Duration::from_secs(120 + (first + added) / SLOW_BYTES_PER_SEC)
    }
}

/// A suite the CLI hands to the extension through the `hello` reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Job {
    pub run_id: String,
    pub plan: Plan,
    /// Upload to this sink (e.g. `unobserved sink` on a LAN server) instead of the host's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sink_url: Option<crate::sink::remote::SinkUrl>,
    /// Close the benchmark tab when done (the CLI then ends the browser itself).
    #[serde(default = "yes")]
    pub close_tab: bool,
    /// The run's TLS listeners (--transport h1-tls/h2): the certificate its throwaway
    /// profile trusts, and the ports it trusts it at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls: Option<JobTls>,
    /// Interleaved builds: the turns this run takes with the others (`interleave.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turns: Option<crate::interleave::JobTurns>,
    /// The machine calibration (`machine.rs`) the CLI took before the browser started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_cpu_ms: Option<f64>,
    /// Where the run's `--script` modules are: kept by the host (like `tls`), which reads
    /// and serves them; the extension's plan names them only.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub module_files: Vec<JobModule>,
}

/// A `--script NAME=PATH` of a job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobModule {
    pub name: crate::arm::ModuleName,
    pub path: std::path::PathBuf,
}

/// A sink's receive ceiling: the median and the slowest and fastest of its timed
/// rounds (`sink::ceiling::receive_rates`). Stored per transport for the TLS sinks.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TransportCeiling {
    pub receive_mbps: f64,
    pub receive_range: (f64, f64),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobTls {
    pub cert: crate::local_tls::LocalCert,
    pub listeners: Vec<TlsListener>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TlsListener {
    pub transport: Transport,
    pub port: u16,
}

fn yes() -> bool {
    true
}

/// Metadata about a run, sent once by the extension when the run starts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    pub run_id: String,
    /// Which browser, OS and extension: stored flat, as it always was.
    #[serde(flatten)]
    pub env: Environment,
    pub plan: Plan,
    /// "popup" or "job".
    #[serde(default)]
    pub source: String,
    #[serde(default)]
    pub started_at: Option<String>,
    /// Where the uploads go; absent in runs stored before it was sent (the local sink).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sink: Option<SinkChoice>,
    /// A remote sink's upload URL, which the host claims its records with. Never stored:
    /// its token is that sink's.
    #[serde(default, skip_serializing)]
    pub sink_url: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Which sink a run's uploads go to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SinkChoice {
    /// The host's own sink on this machine: the browser is measured.
    Local,
    /// Another machine's `unobserved sink`: the link is measured.
    Remote,
}

impl RunInfo {
    pub fn is_remote(&self) -> bool {
        self.sink == Some(SinkChoice::Remote)
    }
}

/// How a run ended. Every way out of `unobserved run` writes one.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    strum::IntoStaticStr,
    strum::EnumIter,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum RunStatus {
    Complete,
    /// The extension side ended early (the tab closed, the host went away).
    Incomplete,
    Failed,
    /// `unobserved run` was interrupted (SIGINT, SIGTERM, SIGHUP).
    Stopped,
    /// `unobserved run` gave up waiting (--timeout).
    TimedOut,
}

impl RunStatus {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// A stored run: no end recorded yet, or how it ended. Written as one word
/// ("running", "complete", "timed-out", …), as the JSON report has always had it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunState {
    Running,
    Ended(RunStatus),
}

impl RunState {
    pub fn as_str(self) -> &'static str {
        match self {
            RunState::Running => "running",
            RunState::Ended(status) => status.as_str(),
        }
    }

    pub fn is_complete(self) -> bool {
        self == RunState::Ended(RunStatus::Complete)
    }
}

impl std::fmt::Display for RunState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

/// The schema of what `Serialize` writes: "running", or a `RunStatus`.
impl schemars::JsonSchema for RunState {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "RunState".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "How the run ended, or \"running\" when no end was recorded.",
            "anyOf": [{ "const": "running" }, generator.subschema_for::<RunStatus>()]
        })
    }
}

impl Serialize for RunState {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// A new run's id: the UTC second it starts and 16 random bits, "20261201-143042-ad76"
/// (`run_id_at`, the one rule; the extension makes its ids by the same, checked by
/// tests/fixtures/run-ids.json).
pub fn new_run_id() -> String {
    let mut r = [0u8; 2];
    let _ = getrandom::fill(&mut r);
    run_id_at(chrono::Utc::now(), u16::from_be_bytes(r))
}

/// The id of a run started at `at` with the random number `random`.
pub fn run_id_at(at: chrono::DateTime<chrono::Utc>, random: u16) -> String {
    format!("{}-{random:04x}", at.format("%Y%m%d-%H%M%S"))
}

/// Run ids end up in file names of exports, so they are kept to a safe alphabet.
pub fn valid_run_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The shared cases: the extension's lib/run-id.js makes the same ids from them.
    #[test]
    fn run_ids_are_made_by_one_rule_and_are_valid() {
        let fixture: Value = serde_json::from_str(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/fixtures/run-ids.json"
        )))
        .unwrap();
        let cases = fixture["made"].as_array().unwrap();
        for case in cases {
            let at = chrono::DateTime::parse_from_rfc3339(case["at"].as_str().unwrap()).unwrap();
            let random = case["random"].as_u64().unwrap() as u16;
            let id = run_id_at(at.with_timezone(&chrono::Utc), random);
            assert_eq!(id, case["id"].as_str().unwrap());
            assert!(valid_run_id(&id));
        }
        for (key, valid) in [("valid", true), ("invalid", false)] {
            for id in fixture[key].as_array().unwrap() {
                assert_eq!(valid_run_id(id.as_str().unwrap()), valid, "{id}");
            }
        }
        assert!(valid_run_id(&new_run_id()));
    }

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
            serde_json::from_str(include_str!("../../tests/fixtures/plan-counts.json")).unwrap();
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

    #[test]
    fn run_ids_cannot_traverse_paths() {
        assert!(valid_run_id("20261130-1355-ab12"));
        for bad in ["", "../etc", "a/b", "a\\b", "..", "x y", &"a".repeat(65)] {
            assert!(!valid_run_id(bad), "{bad:?} must be refused");
        }
    }

    #[test]
    fn a_chunk_tally_reads_and_writes_flat_as_it_was_stored() {
        let base = json!({"run_id": "r", "body": "AES-GCM 1 MiB serial", "rep": 0,
            "bytes_sent": 4, "bytes_received": 4, "sha256_sent": "a", "sha256_received": "a",
            "intact": false, "status": "corrupted", "error": null, "page_ms": 1.0,
            "sink_ms": null, "mbps": null});
        // Before the ledger: the page's two counts, no order.
        let mut old = base.clone();
        old["chunks"] = 4.into();
        old["tags_ok"] = 3.into();
        let s: Sample = serde_json::from_value(old.clone()).unwrap();
        let tally = crate::domain::received::ChunkTally {
            chunks: 4,
            tags_ok: 3,
            in_order: None,
        };
        assert_eq!((s.chunk_tally, s.extra.len()), (Some(tally), 0));
        assert_eq!(serde_json::to_value(&s).unwrap()["chunks"], 4);
        let back = serde_json::to_value(&s).unwrap();
        assert!(back.get("chunks_in_order").is_none(), "{back}");
        // Since the ledger: the sink's three.
        let mut new = old;
        new["chunks_in_order"] = 2.into();
        let s: Sample = serde_json::from_value(new).unwrap();
        assert_eq!(s.chunk_tally.unwrap().in_order, Some(2));
        assert_eq!(serde_json::to_value(&s).unwrap()["chunks_in_order"], 2);
        // A plain upload has none, and writes none.
        let s: Sample = serde_json::from_value(base).unwrap();
        assert_eq!(s.chunk_tally, None);
        assert!(serde_json::to_value(&s).unwrap().get("chunks").is_none());
    }

    #[test]
    fn observation_verdicts() {
        let mut o = Observation::default();
        assert_eq!(o.verdict(), Observed::Unknown);
        o.webdriver = Some(false);
        assert_eq!(o.verdict(), Observed::No);
        o.extra
            .insert("debugger_attached".into(), Value::Bool(true));
        assert_eq!(o.verdict(), Observed::Yes);
    }
}
