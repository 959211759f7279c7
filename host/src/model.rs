//! The records that travel from the extension to the host and into the store.
//! Field names match the extension's (`extension/lib/pairing.js`) and PROTOCOL.md.

pub use crate::arm::Arm;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The body kinds the default suite runs, in the extension's spelling.
pub const BODY_KINDS: [&str; 4] = ["Uint8Array", "ArrayBuffer", "Blob", "ReadableStream"];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SampleStatus {
    /// Arrived whole: length and SHA-256 match.
    Ok,
    /// The sink got different bytes than the page sent.
    Corrupted,
    /// fetch() rejected, e.g. a stream body over HTTP/1.1 in Chromium.
    Unsupported,
    /// The upload stopped part-way.
    Aborted,
    /// Anything else that went wrong.
    Error,
}

impl SampleStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            SampleStatus::Ok => "ok",
            SampleStatus::Corrupted => "corrupted",
            SampleStatus::Unsupported => "unsupported",
            SampleStatus::Aborted => "aborted",
            SampleStatus::Error => "error",
        }
    }
}

/// One measured upload, paired from the page's and the sink's figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    pub run_id: String,
    pub body: String,
    pub rep: u32,
    #[serde(default)]
    pub browser: String,
    #[serde(default)]
    pub browser_version: String,
    #[serde(default)]
    pub os: String,
    #[serde(default)]
    pub extension_version: String,
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
    /// The arm, typed, as the host recorded it when it stored the sample. Samples stored
    /// before arms were recorded have none; `arm()` derives it from their fields.
    #[serde(default, rename = "arm", skip_serializing_if = "Option::is_none")]
    pub recorded_arm: Option<Arm>,
    /// Anything newer extensions add is kept, so the store loses nothing.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Sample {
    /// "attached" / "detached" in a control run, as the page sent it.
    pub fn condition(&self) -> Option<&str> {
        self.extra.get("condition").and_then(Value::as_str)
    }

    /// The arm, typed: as recorded, or derived from the fields of an older sample.
    pub fn arm(&self) -> Arm {
        self.recorded_arm
            .clone()
            .unwrap_or_else(|| Arm::from_legacy(&self.body, &self.extra, self.negative_control))
    }

    pub fn extra_f64(&self, key: &str) -> Option<f64> {
        self.extra.get(key).and_then(Value::as_f64)
    }

    /// The arm's label in reports: the page's name for it, plus its condition in a
    /// control run, or the negative control's mark.
    pub fn arm_label(&self) -> String {
        match self.condition() {
            Some(c) => format!("{} ({c})", self.body),
            None if self.negative_control => format!("{}{NEGATIVE_CONTROL_SUFFIX}", self.body),
            None => self.body.clone(),
        }
    }
}

/// The negative control's arm is its body kind with this after it.
pub const NEGATIVE_CONTROL_SUFFIX: &str = " (A/A)";

/// What the page could tell about being watched. `webdriver` is `navigator.webdriver`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Observation {
    pub webdriver: Option<bool>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Whether anything watched the measurement: a debugger or an automation driver.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Observed {
    Yes,
    No,
    Unknown,
}

impl Observed {
    pub fn as_str(self) -> &'static str {
        match self {
            Observed::Yes => "yes",
            Observed::No => "no",
            Observed::Unknown => "unknown",
        }
    }

    /// A run was observed if any sample saw a watcher; unobserved only if every sample
    /// positively saw none.
    pub fn of_run(samples: &[Sample]) -> Observed {
        let each: Vec<Observed> = samples.iter().map(|s| s.observed.verdict()).collect();
        if each.contains(&Observed::Yes) {
            Observed::Yes
        } else if !each.is_empty() && each.iter().all(|v| *v == Observed::No) {
            Observed::No
        } else {
            Observed::Unknown
        }
    }
}

impl std::fmt::Display for Observed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub size_bytes: u64,
    pub reps: u32,
    pub warmup: u32,
    pub bodies: Vec<String>,
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
}

/// The write-up's investigation as arms: encrypted chunked uploads (serial and
/// pipelined, per chunk size), a streamed download, and parallel uploads.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Workloads {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encrypted: Option<EncryptedWorkload>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub download: Option<DownloadWorkload>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parallel: Option<ParallelWorkload>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EncryptedWorkload {
    pub file_bytes: u64,
    pub chunk_sizes: Vec<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DownloadWorkload {
    pub bytes: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParallelWorkload {
    pub bytes: u64,
    pub streams: Vec<u32>,
}

impl Workloads {
    pub fn is_empty(&self) -> bool {
        self.encrypted.is_none() && self.download.is_none() && self.parallel.is_none()
    }

    /// How many arms these add: two schedules per chunk size, one download, one per
    /// stream count. Must agree with `armsOf` in extension/lib/plan.js.
    pub fn arms(&self) -> usize {
        self.encrypted
            .as_ref()
            .map_or(0, |e| 2 * e.chunk_sizes.len())
            + usize::from(self.download.is_some())
            + self.parallel.as_ref().map_or(0, |p| p.streams.len())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
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
            bodies: BODY_KINDS.map(String::from).to_vec(),
            control: false,
            auto: None,
            negative_control: false,
            horizon: None,
            workloads: Workloads::default(),
        }
    }
}

impl Plan {
    /// At most this many reps: --auto may add reps up to its max.
    fn max_reps(&self) -> u64 {
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

    pub fn measured_uploads(&self) -> u64 {
        let arms = self.bodies.len() + self.workloads.arms() + usize::from(self.negative_control);
        self.max_reps() * arms as u64 * self.conditions()
    }

    /// Bytes one rep moves, every arm once: the bodies, the negative control, and each
    /// workload at its own size (a whole file per encrypted schedule, N bodies at once).
    fn bytes_per_rep(&self) -> u64 {
        let bodies =
            (self.bodies.len() as u64 + u64::from(self.negative_control)) * self.size_bytes;
        let w = &self.workloads;
        let encrypted = w
            .encrypted
            .as_ref()
            .map_or(0, |e| 2 * e.chunk_sizes.len() as u64 * e.file_bytes);
        let download = w.download.as_ref().map_or(0, |d| d.bytes);
        let parallel = w.parallel.as_ref().map_or(0, |p| {
            p.streams.iter().map(|&n| u64::from(n) * p.bytes).sum()
        });
        bodies + encrypted + download + parallel
    }

    /// How long `unobserved run` waits by default: two minutes of slack, every byte of
    /// every rep and warm-up (both conditions of a control) at a slow 16 Mbit/s, and
    /// the --auto time budget.
    pub fn default_timeout(&self) -> std::time::Duration {
        let reps = self.max_reps() + u64::from(self.warmup);
        let bytes = reps * self.conditions() * self.bytes_per_rep();
        std::time::Duration::from_secs(
            120 + bytes / 2_000_000 + self.auto.map_or(0, |a| a.max_seconds),
        )
    }
}

/// A suite the CLI hands to the extension through the `hello` reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Job {
    pub run_id: String,
    pub plan: Plan,
    /// Upload to this sink (e.g. `unobserved sink` on a LAN server) instead of the host's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sink_url: Option<String>,
    /// Close the benchmark tab when done (the CLI then ends the browser itself).
    #[serde(default = "yes")]
    pub close_tab: bool,
}

fn yes() -> bool {
    true
}

/// Metadata about a run, sent once by the extension when the run starts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    pub run_id: String,
    #[serde(default)]
    pub browser: String,
    #[serde(default)]
    pub browser_version: String,
    #[serde(default)]
    pub os: String,
    #[serde(default)]
    pub extension_version: String,
    pub plan: Plan,
    /// "popup" or "job".
    #[serde(default)]
    pub source: String,
    #[serde(default)]
    pub started_at: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// How a run ended. Every way out of `unobserved run` writes one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
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
        match self {
            RunStatus::Complete => "complete",
            RunStatus::Incomplete => "incomplete",
            RunStatus::Failed => "failed",
            RunStatus::Stopped => "stopped",
            RunStatus::TimedOut => "timed-out",
        }
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

impl Serialize for RunState {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
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

    #[test]
    fn the_measured_count_agrees_with_the_extension_on_the_shared_fixture() {
        let fixture: Value =
            serde_json::from_str(include_str!("../../tests/fixtures/plan-counts.json")).unwrap();
        for case in fixture["plans"].as_array().unwrap() {
            let plan: Plan = serde_json::from_value(case["plan"].clone()).unwrap();
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
            bodies: vec!["Uint8Array".into(), "Blob".into()],
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
    }

    #[test]
    fn run_ids_cannot_traverse_paths() {
        assert!(valid_run_id("20261130-1355-ab12"));
        for bad in ["", "../etc", "a/b", "a\\b", "..", "x y", &"a".repeat(65)] {
            assert!(!valid_run_id(bad), "{bad:?} must be refused");
        }
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
