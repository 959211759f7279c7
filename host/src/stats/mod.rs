//! Summaries of throughput samples: medians and spreads per arm, and the integrity
//! verdict in words.

pub mod across_runs;
pub mod agree;
pub mod blocks;
pub mod compare;
pub mod integrity;
pub mod pairwise;
pub mod sequential;
pub mod side;
#[cfg(test)]
mod simulation;

use crate::domain::sample::{Sample, SampleStatus};
pub use integrity::Integrity;
use serde::Serialize;
use std::collections::BTreeMap;

/// Linear-interpolated quantile of sorted data (the R-7 / NumPy default).
pub fn quantile(sorted: &[f64], q: f64) -> Option<f64> {
    quantile_by(sorted.len(), q, |i| sorted[i])
}

/// `quantile` of `len` sorted values read through `at` (0-based rank), for data too
/// large to hold (`pairwise`): one formula, so both give the same bits.
pub fn quantile_by(len: usize, q: f64, mut at: impl FnMut(usize) -> f64) -> Option<f64> {
    if len == 0 {
        return None;
    }
    let pos = q.clamp(0.0, 1.0) * (len - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    let low = at(lo);
    // Each read may be costly: the same rank is read once.
    let high = if hi == lo { low } else { at(hi) };
    Some(low + (high - low) * (pos - lo as f64))
}

pub fn median(values: &[f64]) -> Option<f64> {
    quantile(&sorted(values), 0.5)
}

fn sorted(values: &[f64]) -> Vec<f64> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    v.sort_by(f64::total_cmp);
    v
}

/// One body kind's figures over a run. Throughput comes from intact samples only: a
/// corrupted upload's speed describes the wrong bytes.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ArmSummary {
    /// The arm, typed: what every rule about it matches on; written with its label.
    #[serde(serialize_with = "side::labelled")]
    #[schemars(with = "side::Labelled")]
    pub arm: crate::domain::arm::Arm,
    pub n: usize,
    pub median_mbps: Option<f64>,
    pub min_mbps: Option<f64>,
    pub max_mbps: Option<f64>,
    pub q1_mbps: Option<f64>,
    pub q3_mbps: Option<f64>,
    pub statuses: BTreeMap<String, usize>,
    /// Written as `verdict`: "intact", "corrupted: received 23 bytes `[object ReadableStream]`", …
    #[serde(rename = "verdict", serialize_with = "integrity::as_text")]
    #[schemars(with = "String")]
    pub integrity: Integrity,
    /// The median is at least 70% of the sink's own ceiling (set by the report).
    pub sink_bound: bool,
    /// Samples whose page and sink times do not fit together (set by the report).
    pub timing_flags: usize,
    /// Median page time of intact uploads, and the median part of it the sink did not
    /// see (page time minus the sink's request time): before the request's headers
    /// reached the sink, and after its last byte until the page had the reply.
    pub page_ms: Option<f64>,
    pub browser_ms: Option<f64>,
    /// The median as a share of what the arm's sink (or link) carried for the host's
    /// own client, before or after the arms (set by the report: `report::link`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ceiling_share: Option<f64>,
    /// In a run whose blocks were measured in more than one condition: the arm's
    /// figures over each condition's uploads, in the order the conditions first appear
    /// (set by the report: `report::conditions::summaries`). Every format shows these
    /// in place of the figures above, which pool the conditions and are kept for the
    /// checks that need one figure per arm and so that no JSON field changes meaning.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub by_condition: Vec<ConditionSummary>,
}

/// An arm's figures over the uploads of one condition.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ConditionSummary {
    pub condition: crate::domain::conditions::Condition,
    #[serde(flatten)]
    pub figures: ArmSummary,
}

impl ArmSummary {
    pub fn iqr_mbps(&self) -> Option<f64> {
        Some(self.q3_mbps? - self.q1_mbps?)
    }

    /// `arm`'s figures over `samples` (each of them the arm's).
    pub fn of_arm(arm: crate::domain::arm::Arm, samples: Vec<&Sample>) -> ArmSummary {
        summarise_arm(arm, samples)
    }
}

/// Arms in the order they first appear in the samples (the plan's order), joined on the
/// typed arm; the label is only what the summary shows.
pub fn summarise(samples: &[Sample]) -> Vec<ArmSummary> {
    let mut order: Vec<crate::domain::arm::Arm> = Vec::new();
    for s in samples {
        if !order.iter().any(|a| s.is_of(a)) {
            order.push(s.arm());
        }
    }
    order
        .into_iter()
        .map(|arm| {
            let of_arm: Vec<&Sample> = samples.iter().filter(|s| s.is_of(&arm)).collect();
            summarise_arm(arm, of_arm)
        })
        .collect()
}

fn summarise_arm(arm: crate::domain::arm::Arm, samples: Vec<&Sample>) -> ArmSummary {
    let mbps = sorted(
        &samples
            .iter()
            .filter(|s| s.status == SampleStatus::Ok)
            .filter_map(|s| s.mbps)
            .collect::<Vec<_>>(),
    );
    let ok: Vec<&&Sample> = samples
        .iter()
        .filter(|s| s.status == SampleStatus::Ok)
        .collect();
    let mut statuses = BTreeMap::new();
    for s in &samples {
        *statuses.entry(s.status.as_str().to_owned()).or_insert(0) += 1;
    }
    ArmSummary {
        arm,
        n: mbps.len(),
        median_mbps: quantile(&mbps, 0.5),
        min_mbps: mbps.first().copied(),
        max_mbps: mbps.last().copied(),
        q1_mbps: quantile(&mbps, 0.25),
        q3_mbps: quantile(&mbps, 0.75),
        statuses,
        integrity: Integrity::of(&samples),
        sink_bound: false,
        timing_flags: 0,
        page_ms: median(&ok.iter().filter_map(|s| s.page_ms).collect::<Vec<_>>()),
        browser_ms: median(
            &ok.iter()
                .filter_map(|s| Some((s.page_ms? - s.sink_request_ms?).max(0.0)))
                .collect::<Vec<_>>(),
        ),
        ceiling_share: None,
        by_condition: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::arm::{BodyKind, Transport};
    use crate::domain::sample::SampleError;
    use crate::domain::workload::ModuleFailure;
    use crate::store::tests_support::sample;

    /// The page's medians (extension/lib/stats.js) use the same fixture.
    #[test]
    fn quantiles_match_the_shared_fixture() {
        let cases: Vec<serde_json::Value> =
            serde_json::from_str(include_str!("../../../tests/fixtures/quantiles.json")).unwrap();
        for c in cases {
            let data: Vec<f64> = serde_json::from_value(c["data"].clone()).unwrap();
            let q = c["q"].as_f64().unwrap();
            let got = quantile(&sorted(&data), q);
            assert_eq!(
                got.map(|v| (v * 1e9).round() / 1e9),
                c["expect"].as_f64(),
                "{c}"
            );
        }
    }

    #[test]
    fn quantiles_match_numpy() {
        let data = [7.0, 1.0, 3.0, 5.0];
        let s = sorted(&data);
        assert_eq!(quantile(&s, 0.5), Some(4.0));
        assert_eq!(quantile(&s, 0.25), Some(2.5));
        assert_eq!(quantile(&s, 0.75), Some(5.5));
        assert_eq!(median(&[2.0, 9.0, 4.0]), Some(4.0));
        assert_eq!(median(&[]), None);
    }

    #[test]
    fn summary_per_arm_uses_intact_samples_and_counts_statuses() {
        let mut samples = vec![
            sample("r", "Uint8Array", 0, 100.0),
            sample("r", "Blob", 0, 900.0),
            sample("r", "Uint8Array", 1, 300.0),
            sample("r", "Blob", 1, 700.0),
            sample("r", "Uint8Array", 2, 200.0),
        ];
        let mut bad = sample("r", "ReadableStream", 0, 5.0);
        bad.status = SampleStatus::Corrupted;
        bad.intact = false;
        bad.bytes_received = Some(23);
        bad.head = Some("[object ReadableStream]".into());
        samples.push(bad);

        let arms = summarise(&samples);
        assert_eq!(
            arms.iter().map(|a| a.arm.kind.clone()).collect::<Vec<_>>(),
            [
                BodyKind::Uint8Array,
                BodyKind::Blob,
                BodyKind::ReadableStream
            ]
            .map(|body| crate::domain::arm::ArmKind::Body { body })
        );
        assert_eq!(
            (
                arms[0].n,
                arms[0].median_mbps,
                arms[0].min_mbps,
                arms[0].max_mbps
            ),
            (3, Some(200.0), Some(100.0), Some(300.0))
        );
        assert_eq!(arms[0].iqr_mbps(), Some(100.0));
        assert_eq!(arms[0].integrity, Integrity::Intact);
        assert_eq!(arms[2].n, 0, "a corrupted upload's speed is not counted");
        assert_eq!(arms[2].median_mbps, None);
        assert_eq!(arms[2].statuses["corrupted"], 1);
        assert_eq!(
            arms[2].integrity.to_string(),
            "corrupted: received 23 bytes `[object ReadableStream]`"
        );
        assert!(arms[2].integrity.why(&arms[2].arm).is_some());
        // The JSON report keeps the text under its old name.
        let json = serde_json::to_value(&arms[2]).unwrap();
        assert_eq!(
            json["verdict"],
            "corrupted: received 23 bytes `[object ReadableStream]`"
        );
    }

    /// A sample stored with kinds: the browser's words come from `rejection` (so the
    /// known causes are still found), a sink's refusal keeps its status as a number.
    #[test]
    fn a_typed_failure_gives_the_browsers_words_and_the_sinks_status() {
        let mut s = sample("r", "ReadableStream", 0, 0.0);
        s.status = SampleStatus::Unsupported;
        s.error = Some(SampleError::FetchRejected.as_str().into());
        s.rejection = Some("TypeError: Failed to fetch".into());
        let integrity = Integrity::of(&[&s]);
        let expected = Integrity::Unsupported {
            error: "TypeError: Failed to fetch".into(),
            http_status: None,
            module_failure: None,
        };
        assert_eq!(integrity, expected);
        assert!(integrity.why(&s.arm()).is_some());
        s.status = SampleStatus::Error;
        s.error = Some(SampleError::SinkStatus.as_str().into());
        (s.rejection, s.http_status) = (None, Some(413));
        let expected = Integrity::Error {
            error: "sink-status".into(),
            http_status: Some(413),
            module_failure: None,
        };
        assert_eq!(Integrity::of(&[&s]), expected);
        // A module's failure carries its kind and numbers; its own words stand in `error`.
        s.error = Some(SampleError::ModuleFailed.as_str().into());
        let failure = ModuleFailure::TimedOut {
            timeout_ms: Some(5000),
        };
        (s.module_failure, s.rejection) = (Some(failure.clone()), Some("AbortError: x".into()));
        let expected = Integrity::Error {
            error: "AbortError: x".into(),
            http_status: Some(413),
            module_failure: Some(failure),
        };
        assert_eq!(Integrity::of(&[&s]), expected);
    }

    #[test]
    fn unsupported_verdict_quotes_the_browser_error() {
        let mut s = sample("r", "ReadableStream", 0, 0.0);
        s.status = SampleStatus::Unsupported;
        s.error = Some("TypeError: Failed to fetch".into());
        let integrity = Integrity::of(&[&s]);
        assert_eq!(
            integrity.to_string(),
            "unsupported: TypeError: Failed to fetch"
        );
        let over = |body: &str, transport| crate::domain::arm::Arm {
            transport,
            ..sample("r", body, 0, 0.0).arm()
        };
        assert!(integrity.why(&over("ReadableStream", None)).is_some());
        assert!(integrity
            .why(&over("ReadableStream", Some(Transport::H1Tls)))
            .is_some());
        assert_eq!(
            integrity.why(&over("ReadableStream", Some(Transport::H2))),
            None,
            "over h2 the known cause does not apply"
        );
        assert_eq!(
            integrity.why(&over("Blob", None)),
            None,
            "no guess where the cause is unknown"
        );
        // WebKit refuses a stream over every transport, and says so in its own words.
        s.error = Some("NotSupportedError: ReadableStream uploading is not supported".into());
        let webkit = Integrity::of(&[&s]);
        let h1 = webkit.why(&over("ReadableStream", None));
        assert!(h1.is_some() && h1 != integrity.why(&over("ReadableStream", None)));
        assert_eq!(h1, webkit.why(&over("ReadableStream", Some(Transport::H2))));
        assert_eq!(Integrity::of(&[]), Integrity::NoSamples);
    }
}
