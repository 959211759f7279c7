//! JSON export: always one versioned object, `{"schema_version": 2, "runs": [...]}`,
//! whatever the number of runs, so a consumer never has to guess the shape. The schema
//! is `schemas/report.schema.json`; a test validates real output against it.

use super::Exporter;
use crate::report::across::RunsCompared;
use crate::report::RunReport;
use serde::Serialize;

/// Bumped whenever a field is removed or changes meaning (additions do not bump it).
pub const SCHEMA_VERSION: u32 = 2;

#[derive(Serialize)]
pub struct Document<'a> {
    pub schema_version: u32,
    pub runs: &'a [RunReport],
    /// `unobserved run --json` adds how each browser was launched, in `runs` order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub launch: Option<serde_json::Value>,
}

/// `launch`: what `unobserved run --json` adds about each browser's launch.
pub struct Json {
    pub launch: Option<serde_json::Value>,
}

impl Exporter for Json {
    fn render(&self, runs: &[RunReport]) -> String {
        render(runs, self.launch.clone())
    }

    fn write(&self, runs: &[RunReport], out: &mut dyn std::io::Write) -> std::io::Result<()> {
        serde_json::to_writer_pretty(&mut *out, &document(runs, self.launch.clone()))?;
        out.write_all(b"\n")
    }

    fn render_compared(&self, compared: &RunsCompared, _labels: &[String]) -> String {
        serde_json::to_string_pretty(compared).expect("comparisons serialise") + "\n"
    }
}

fn document(runs: &[RunReport], launch: Option<serde_json::Value>) -> Document<'_> {
    Document {
        schema_version: SCHEMA_VERSION,
        runs,
        launch,
    }
}

fn render(reports: &[RunReport], launch: Option<serde_json::Value>) -> String {
    serde_json::to_string_pretty(&document(reports, launch)).expect("reports serialise") + "\n"
}
