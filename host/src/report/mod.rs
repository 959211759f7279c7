//! Reports read from the store: everything shown is recomputed from stored records, so
//! any figure can be regenerated later. One file per output format.

pub mod csv;
pub mod json;
pub mod markdown;
pub mod table;

use crate::model::{RunInfo, RunStatus, Sample};
use crate::stats::{summarise, ArmSummary};
use crate::store::{Record, StoreContents};
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    pub run: RunMeta,
    pub samples: Vec<Sample>,
    pub summary: Vec<ArmSummary>,
}

#[derive(Debug, Clone, Serialize)]
pub struct RunMeta {
    pub run_id: String,
    pub browser: String,
    pub browser_version: String,
    pub os: String,
    pub host_version: String,
    pub extension_version: String,
    pub started_at: Option<String>,
    pub finished_at: Option<String>,
    /// complete / incomplete / failed, or "running" when no end was recorded.
    pub status: String,
    pub reason: Option<String>,
    /// yes / no / unknown, from every sample's evidence.
    pub observed: String,
    pub source: String,
    pub plan: Option<crate::model::Plan>,
}

/// Groups the store's records by run, oldest first.
pub fn runs(contents: &StoreContents) -> Vec<RunReport> {
    let mut order: Vec<String> = Vec::new();
    let mut infos: std::collections::HashMap<String, (RunInfo, String, String)> = Default::default();
    let mut ends: std::collections::HashMap<String, (RunStatus, Option<String>, String)> = Default::default();
    let mut samples: std::collections::HashMap<String, Vec<Sample>> = Default::default();
    for (_, record) in &contents.records {
        let Some(id) = record.run_id() else { continue };
        if !order.iter().any(|o| o == id) {
            order.push(id.to_owned());
        }
        match record {
            Record::Run { run, host_version, recorded_at } => {
                infos.insert(id.to_owned(), (run.clone(), host_version.clone(), recorded_at.clone()));
            }
            Record::Sample(s) => samples.entry(id.to_owned()).or_default().push(s.clone()),
            Record::RunEnd { status, reason, recorded_at, .. } => {
                ends.insert(id.to_owned(), (*status, reason.clone(), recorded_at.clone()));
            }
            Record::SinkEvent { .. } => {}
        }
    }
    order
        .into_iter()
        .map(|id| {
            let samples = samples.remove(&id).unwrap_or_default();
            let info = infos.remove(&id);
            let end = ends.remove(&id);
            let first = samples.first();
            let pick = |from_info: Option<&String>, from_sample: Option<&String>| {
                from_info.filter(|s| !s.is_empty()).or(from_sample).cloned().unwrap_or_default()
            };
            let run = RunMeta {
                browser: pick(info.as_ref().map(|i| &i.0.browser), first.map(|s| &s.browser)),
                browser_version: pick(info.as_ref().map(|i| &i.0.browser_version), first.map(|s| &s.browser_version)),
                os: pick(info.as_ref().map(|i| &i.0.os), first.map(|s| &s.os)),
                extension_version: pick(info.as_ref().map(|i| &i.0.extension_version), first.map(|s| &s.extension_version)),
                host_version: info.as_ref().map(|i| i.1.clone()).unwrap_or_default(),
                started_at: info.as_ref().map(|i| i.0.started_at.clone().unwrap_or_else(|| i.2.clone())),
                finished_at: end.as_ref().map(|e| e.2.clone()),
                status: end.as_ref().map(|e| status_word(e.0)).unwrap_or("running").to_owned(),
                reason: end.and_then(|e| e.1),
                observed: observed(&samples).to_owned(),
                source: info.as_ref().map(|i| i.0.source.clone()).unwrap_or_default(),
                plan: info.map(|i| i.0.plan),
                run_id: id,
            };
            RunReport { summary: summarise(&samples), samples, run }
        })
        .collect()
}

fn status_word(s: RunStatus) -> &'static str {
    match s {
        RunStatus::Complete => "complete",
        RunStatus::Incomplete => "incomplete",
        RunStatus::Failed => "failed",
    }
}

/// A run was observed if any sample saw a watcher; unobserved only if every sample
/// positively saw none.
pub fn observed(samples: &[Sample]) -> &'static str {
    let verdicts: Vec<&str> = samples.iter().map(|s| s.observed.verdict()).collect();
    if verdicts.contains(&"yes") {
        "yes"
    } else if !verdicts.is_empty() && verdicts.iter().all(|v| *v == "no") {
        "no"
    } else {
        "unknown"
    }
}

/// Which runs a report covers.
#[derive(Debug, Default, Clone)]
pub struct Filter {
    /// A run id, or "last".
    pub run: Option<String>,
    pub browser: Option<String>,
    /// RFC 3339 timestamp or date (YYYY-MM-DD); runs started before it are left out.
    pub since: Option<String>,
}

pub fn select(mut runs: Vec<RunReport>, filter: &Filter) -> Vec<RunReport> {
    if let Some(b) = &filter.browser {
        runs.retain(|r| r.run.browser.to_lowercase().contains(&b.to_lowercase()));
    }
    if let Some(since) = &filter.since {
        runs.retain(|r| r.run.started_at.as_deref().is_some_and(|t| t >= since.as_str()));
    }
    match filter.run.as_deref() {
        Some("last") => runs.into_iter().last().into_iter().collect(),
        Some(id) => runs.into_iter().filter(|r| r.run.run_id == id).collect(),
        None => runs,
    }
}

pub(crate) fn fmt_mbps(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.0}")).unwrap_or_else(|| "–".into())
}
