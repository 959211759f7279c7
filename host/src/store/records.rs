//! The kinds of line in the store. Each is self-describing through `"kind"`.

use crate::domain::arm::Transport;
use crate::domain::ceiling::TransportCeiling;
use crate::domain::run::{RunInfo, RunStatus};
use crate::domain::sample::Sample;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

// A sample is nearly every line of a store: held inline, not boxed one by one.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Record {
    /// A run began. Carries the browser, the plan and who started it.
    Run(RunRecord),
    /// One measured upload.
    Sample(Sample),
    /// A run ended: complete, incomplete (e.g. the tab went away) or failed.
    RunEnd {
        run_id: String,
        status: RunStatus,
        #[serde(default)]
        reason: Option<String>,
        recorded_at: String,
        /// `{"debugger_before": bool|null, "debugger_after": bool|null}` where known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        observation: Option<serde_json::Value>,
        /// Why an `--auto` run stopped adding reps.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        auto_stop: Option<crate::domain::plan::AutoStop>,
    },
    /// A machine calibration of a run, at its start or end (`machine.rs`).
    Machine(crate::domain::machine::MachineRecord),
    /// A finished run of `run --runs N` and its place in the series (`series.rs`).
    Series(crate::domain::series::SeriesRecord),
    /// What the machine did during one block of a run (`conditions/`), stored as the
    /// block ends.
    Conditions(ConditionsRecord),
    /// The run's sinks (or a remote sink's link) measured again by the host's own client
    /// after its last upload, as at its start (`native/run_finished.rs`): the ceiling
    /// before and after the arms.
    CeilingAfter {
        run_id: String,
        /// Per transport: h1's (the local sink's, or an http:// link's) and each TLS
        /// one's (or an https:// link's, under h2).
        ceilings: BTreeMap<Transport, TransportCeiling>,
        recorded_at: String,
    },
    /// Something the sink saw that no page reported, such as an aborted upload.
    SinkEvent {
        event: String,
        bytes: u64,
        path: String,
        recorded_at: String,
    },
}

impl Record {
    pub fn run_id(&self) -> Option<&str> {
        match self {
            Record::Run(r) => Some(&r.run.run_id),
            Record::Sample(s) => Some(&s.run_id),
            Record::RunEnd { run_id, .. } => Some(run_id),
            Record::Machine(m) => Some(&m.run_id),
            Record::Series(s) => Some(&s.run_id),
            Record::Conditions(c) => Some(&c.run_id),
            Record::CeilingAfter { run_id, .. } => Some(run_id),
            Record::SinkEvent { .. } => None,
        }
    }
}

/// A `conditions` line: one block of a run and what the machine did meanwhile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConditionsRecord {
    pub run_id: String,
    #[serde(flatten)]
    pub block: crate::domain::conditions::BlockConditions,
    pub recorded_at: String,
}

/// A run as the host recorded it at `run-started`: the extension's `RunInfo` and what
/// the host measured before the first upload. Stored flat, as it always was.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    #[serde(flatten)]
    pub run: RunInfo,
    pub host_version: String,
    pub recorded_at: String,
    /// The h1 sink's receive rate at the run's body size (first byte to response
    /// headers, kept-alive connection), median of rounds measured at run start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sink_ceiling_mbps: Option<f64>,
    /// Slowest and fastest round of that measurement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sink_ceiling_range: Option<(f64, f64)>,
    /// One core's SHA-256 rate: when the digest arrives, not the upload's speed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sink_hash_mbps: Option<f64>,
    /// The host machine's CPU, for the report's environment section.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<String>,
    /// The TLS sinks' own ceilings, per transport (runs with `transports`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub transport_ceilings: BTreeMap<Transport, TransportCeiling>,
    /// The run took turns rep by rep with other builds' runs (`interleave.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interleaved: Option<crate::platform::turns::Interleaved>,
}

impl RunRecord {
    /// The receive ceiling of the sink a transport uploads to: h1's is stored in the
    /// run's own fields (stores written before TLS read the same), the others by name.
    pub fn ceiling(&self, t: Transport) -> Option<TransportCeiling> {
        match t {
            Transport::H1 => Some(TransportCeiling {
                receive_mbps: self.sink_ceiling_mbps?,
                // Stores older than the range have the median alone.
                receive_range: self
                    .sink_ceiling_range
                    .unwrap_or((self.sink_ceiling_mbps?, self.sink_ceiling_mbps?)),
            }),
            t => self.transport_ceilings.get(&t).copied(),
        }
    }
}

/// One stored line. Samples, nearly every line of a store, are read straight into
/// their type: the tagged enum would first buffer each line as a generic tree.
pub fn parse(line: &[u8]) -> serde_json::Result<Record> {
    match parse_picked(line, Pick::Records(Runs::All))? {
        Some(Parsed::Record(r)) => Ok(r),
        _ => unreachable!("every line is wanted whole"),
    }
}

/// Which runs' lines a reader parses; a line of no run (a sink event) is wanted only
/// when every run is.
#[derive(Clone, Copy)]
pub enum Runs<'a> {
    All,
    Only(&'a dyn Fn(&str) -> bool),
}

/// Which lines a reader parses, and how much of each.
#[derive(Clone, Copy)]
pub enum Pick<'a> {
    /// The runs' lines, whole.
    Records(Runs<'a>),
    /// The runs' lines, a sample's as its `SampleHead` only: what lists and filters
    /// need, without its measurements, timeline or stored extras.
    Heads(Runs<'a>),
    /// The runs' starts and ends only (`run` and `run_end` lines), whole; every other
    /// line is skipped after its kind.
    Bounds(Runs<'a>),
}

/// A line as a `Pick` read it. (Handed on one at a time, never stored: not boxed.)
#[allow(clippy::large_enum_variant)]
pub enum Parsed {
    Record(Record),
    Head(SampleHead),
}

/// What a run's list line needs of each sample: its run, environment and observation.
/// Every other field is skipped unread into memory.
#[derive(Debug, Clone, Deserialize)]
pub struct SampleHead {
    pub run_id: String,
    #[serde(default)]
    browser: String,
    #[serde(default)]
    browser_version: String,
    #[serde(default)]
    os: String,
    #[serde(default)]
    extension_version: String,
    #[serde(default)]
    pub observed: crate::domain::sample::Observation,
}

impl SampleHead {
    pub fn env(&self) -> crate::domain::sample::Environment {
        crate::domain::sample::Environment {
            browser: self.browser.clone(),
            browser_version: self.browser_version.clone(),
            os: self.os.clone(),
            extension_version: self.extension_version.clone(),
        }
    }
}

/// One line as `pick` wants it, or None when it wants none of it. Only the line's kind
/// and run id are read before that is decided.
pub fn parse_picked(line: &[u8], pick: Pick) -> serde_json::Result<Option<Parsed>> {
    #[derive(Deserialize)]
    struct Peek<'a> {
        #[serde(borrow)]
        kind: Option<std::borrow::Cow<'a, str>>,
        #[serde(borrow)]
        run_id: Option<std::borrow::Cow<'a, str>>,
    }
    let peek = serde_json::from_slice::<Peek>(line)?;
    let (Pick::Records(runs) | Pick::Heads(runs) | Pick::Bounds(runs)) = pick;
    let wanted = match (runs, peek.run_id.as_deref()) {
        (Runs::All, _) => true,
        (Runs::Only(wanted), Some(id)) => wanted(id),
        (Runs::Only(_), None) => false,
    };
    if !wanted {
        return Ok(None);
    }
    let sample = peek.kind.as_deref() == Some("sample");
    let bound = matches!(peek.kind.as_deref(), Some("run" | "run_end"));
    match pick {
        Pick::Bounds(_) if !bound => Ok(None),
        Pick::Heads(_) if sample => serde_json::from_slice(line).map(|h| Some(Parsed::Head(h))),
        _ if sample => Ok(Some(Parsed::Record(Record::Sample(sample_of(line)?)))),
        _ => serde_json::from_slice(line).map(|r| Some(Parsed::Record(r))),
    }
}

/// The run id a stored line names, read without the rest of it; None for a line of no
/// run (a sink event) or one that is not JSON.
pub fn run_id_of(line: &[u8]) -> Option<String> {
    #[derive(Deserialize)]
    struct Peek<'a> {
        #[serde(borrow)]
        run_id: Option<std::borrow::Cow<'a, str>>,
    }
    let peek = serde_json::from_slice::<Peek>(line).ok()?;
    peek.run_id.map(std::borrow::Cow::into_owned)
}

fn sample_of(line: &[u8]) -> serde_json::Result<Sample> {
    let mut s: Sample = serde_json::from_slice(line)?;
    // The tag is the record's, not one of the sample's extra fields. An emptied map
    // still holds its node (about 600 bytes): a store of 200k samples kept 120 MB.
    s.extra.remove("kind");
    if s.extra.is_empty() {
        s.extra = serde_json::Map::new();
    }
    Ok(s)
}

pub fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fast_sample_path_reads_what_the_tagged_enum_reads() {
        let fixture = include_str!("../../../tests/fixtures/store-v1.jsonl");
        let mut samples = 0;
        for line in fixture.lines() {
            let generic: Record = serde_json::from_str(line).unwrap();
            samples += matches!(generic, Record::Sample(_)) as usize;
            assert_eq!(parse(line.as_bytes()).unwrap(), generic, "{line}");
        }
        assert!(samples > 10, "the fixture has samples");
    }
}

#[cfg(test)]
mod environment_tests {
    use super::*;

    /// The environment is stored flat in runs and samples, and no field of it lands in
    /// a sample's extra fields on the way back.
    #[test]
    fn the_environment_reads_and_writes_flat() {
        let line = crate::store::tests_support::sample("r", "Blob", 0, 1.0);
        let text = serde_json::to_string(&Record::Sample(line.clone())).unwrap();
        assert!(
            text.contains(r#""browser":"Chromium","browser_version":"156""#),
            "{text}"
        );
        let Record::Sample(back) = parse(text.as_bytes()).unwrap() else {
            panic!("a sample")
        };
        assert_eq!(back.extra, serde_json::Map::new());
        assert_eq!(back, line);
    }
}
