//! One measured upload as stored: its status, the environment it came from, what the
//! page saw of being watched. Field names match the extension's and PROTOCOL.md.

use crate::domain::arm::Arm;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

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

/// Why a sample failed, as a kind: what the page saw (`FetchRejected`, `SinkStatus`,
/// `NoReply`, `DifferentBytes`, `ModuleFailed`) or what the host found in its sink's
/// record (`DifferentBytes`, `NoRecord`, `NothingReceived`). Stored in a sample's `error` by name; samples stored
/// before kinds carry a sentence there instead (`Sample::error_kind` gives None). Its
/// words are `export::words::sample_error`; the names are in tests/fixtures/names.json.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    strum::IntoStaticStr,
    strum::EnumString,
    strum::EnumIter,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum SampleError {
    /// fetch() (or the XHR) rejected: the browser's own words are in `rejection`.
    FetchRejected,
    /// The sink answered with another HTTP status than 200 (in `http_status`).
    SinkStatus,
    /// The sink answered 200 but the page could not read its answer.
    NoReply,
    /// Other bytes arrived than were sent: see `bytes_sent` and `bytes_received`.
    DifferentBytes,
    /// The sink has no record of this upload for this sample (see `receipt`).
    NoRecord,
    /// The sink's record has no received bytes.
    NothingReceived,
    /// A workload module failed: how is in `module_failure`, its own words (if it threw)
    /// in `rejection`.
    ModuleFailed,
}

impl SampleError {
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// The kind a stored `error` names; None for an older sample's sentence.
    pub fn of(error: &str) -> Option<SampleError> {
        error.parse().ok()
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
    /// A `SampleError` by name (older samples: a sentence, read as it was).
    pub error: Option<String>,
    /// The HTTP status the sink answered the page with, when it was not 200.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_status: Option<u16>,
    /// The browser's own words when fetch() rejected ("TypeError: Failed to fetch"):
    /// its exception's name and message, clipped (`verify::fit`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rejection: Option<String>,
    pub page_ms: Option<f64>,
    pub sink_ms: Option<f64>,
    /// The sink's view of the whole request: its headers to its last byte. The page's
    /// span minus this is the time outside the sink's record: before the headers
    /// reached the sink, and after the last byte until the page had the reply.
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
    pub upload_id: Option<crate::domain::upload_id::UploadId>,
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
    pub timeline: Option<crate::domain::timeline::Timeline>,
    /// The page's clock of the same upload, for its phases (`page_timing.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_timing: Option<crate::domain::page_timing::PageTiming>,
    /// How long after the reply's headers the page read the sink's digest
    /// (BENCHMARKS.md: the settle time must cover it). Page-side.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest_ms: Option<f64>,
    /// Which benchmark page of its run the upload ran in: 0 the first, one more for each
    /// fresh page (a page per block, issue 36). Counted by the extension's background,
    /// one per page that connected to it, or by `serve`, one per copy of its page it
    /// served and the run bound; never by the page. None: no page was renewed in this
    /// run (a page `serve` did not serve with a token, a run before pages per block).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_load: Option<u32>,
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
    /// Why it failed, as a kind; None when it did not, or for an older sample's sentence.
    pub fn error_kind(&self) -> Option<SampleError> {
        self.error.as_deref().and_then(SampleError::of)
    }

    /// Attached or detached, in a control run.
    pub fn condition(&self) -> Option<crate::domain::arm::Condition> {
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

/// What the page could tell about being watched. `webdriver` is `navigator.webdriver`;
/// `debugger_attached` is the background's word (the chrome.debugger API) where it has
/// one. A value that is not a boolean counts as not said.
///
/// Open: newer evidence the page reports is read here, and the host stores none of it
/// (`verify::fit::only_known`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Observation {
    pub webdriver: Option<bool>,
    #[serde(
        default,
        deserialize_with = "bool_or_unsaid",
        skip_serializing_if = "Option::is_none"
    )]
    pub debugger_attached: Option<bool>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A boolean, or nothing for any other value: a page's word that is not one is unsaid.
fn bool_or_unsaid<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    Ok(Value::deserialize(d)?.as_bool())
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
        match (self.webdriver, self.debugger_attached) {
            (Some(true), _) | (_, Some(true)) => Observed::Yes,
            (Some(false), _) => Observed::No,
            _ => Observed::Unknown,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
        o.debugger_attached = Some(true);
        assert_eq!(o.verdict(), Observed::Yes);
        // A word that is not a boolean is not said.
        let o: Observation =
            serde_json::from_value(json!({"webdriver": false, "debugger_attached": "yes"}))
                .unwrap();
        assert_eq!((o.debugger_attached, o.verdict()), (None, Observed::No));
    }
}
