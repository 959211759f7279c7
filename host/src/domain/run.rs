//! A run: its id (one rule, shared with the extension), what the extension says when it
//! starts, which sink it uploads to, and how it ended.

use crate::domain::plan::Plan;
use crate::domain::sample::Environment;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Metadata about a run, sent once by the extension when the run starts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    pub run_id: String,
    /// Which browser, OS and extension: stored flat, as it always was.
    #[serde(flatten)]
    pub env: Environment,
    pub plan: Plan,
    /// Who started it: a `RunSource`'s name ("popup", "job" or "serve").
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

    pub fn started_by(&self, source: RunSource) -> bool {
        self.source == source.as_str()
    }
}

/// Who starts runs: the popup and a job file through the extension, or a page of
/// `serve` (or of `run --browser webkit`, which serves its page) over HTTP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr)]
#[strum(serialize_all = "kebab-case")]
pub enum RunSource {
    Popup,
    Job,
    Serve,
}

impl RunSource {
    pub fn as_str(self) -> &'static str {
        self.into()
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
    /// Its `serve` was killed outright: the next `serve` ended it, samples kept.
    Interrupted,
}

impl RunStatus {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// Why a run ended the way it did, when the host knows it better than a sentence:
/// stored with the run's end (`end_reason`), shown by every exporter in its own words
/// (`export::words::end_reason`), shared with the extension through the names fixture.
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
pub enum EndReason {
    /// The remote sink could not be reached for a sample's record, or (the page having
    /// failed) for the host's own small upload: it went away.
    SinkUnreachable,
    /// The run ran out of time, and the sink did not answer the host's own small upload
    /// within `STALL_PROBE`: the sink (or the link to it) stalled.
    SinkStalled,
    /// The run ran out of time while the sink answered the host's own small upload at
    /// once: the page or its browser stalled.
    PageStalled,
    /// A page asked for a fresh page (a page per block) and none took over within
    /// `PAGE_RETURN`.
    PageNotBack,
    /// The benchmark tab closed before the run ended.
    BenchTabClosed,
    /// The extension lost its native host mid-run (the page's reason: how).
    HostGone,
    /// The extension's background stopped mid-run; a restarted one found the run.
    BackgroundStopped,
    /// The benchmark page threw (the page's reason: the browser's error).
    PageFailed,
    /// The host refused to store a sample (the page's reason: the host's error).
    SampleNotStored,
}

impl EndReason {
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// Whether the extension may say it in `run-finished`: the page's own side of the
    /// run. What the sink did is the host's to say, never a page's. Every reason is
    /// named, so a new one is decided here, not let through by default.
    pub fn told_by_page(self) -> bool {
        match self {
            EndReason::SinkUnreachable | EndReason::SinkStalled | EndReason::PageStalled => false,
            EndReason::PageNotBack
            | EndReason::BenchTabClosed
            | EndReason::HostGone
            | EndReason::BackgroundStopped
            | EndReason::PageFailed
            | EndReason::SampleNotStored => true,
        }
    }

    /// How a run that ran out of time is told apart: whether the sink answered the
    /// host's own small upload within `STALL_PROBE`.
    pub fn of_stall(sink_answered: bool) -> EndReason {
        match sink_answered {
            true => EndReason::PageStalled,
            false => EndReason::SinkStalled,
        }
    }
}

/// How long a page that asked for a fresh page (a page per block) may take to come
/// back before its run ends `incomplete`: the extension's background and `serve` alike.
pub const PAGE_RETURN: std::time::Duration = std::time::Duration::from_secs(30);

/// How long a stalled run's sink gets to answer the host's own small upload.
pub const STALL_PROBE: std::time::Duration = std::time::Duration::from_secs(3);

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

    #[test]
    fn run_ids_cannot_traverse_paths() {
        assert!(valid_run_id("20261130-1355-ab12"));
        for bad in ["", "../etc", "a/b", "a\\b", "..", "x y", &"a".repeat(65)] {
            assert!(!valid_run_id(bad), "{bad:?} must be refused");
        }
    }
}
