//! JSON export: `{"run":…,"samples":[…],"summary":[…]}` for one run, or an array of them.

use super::RunReport;

pub fn one(report: &RunReport) -> String {
    serde_json::to_string_pretty(report).expect("reports serialise")
}

pub fn many(reports: &[RunReport]) -> String {
    serde_json::to_string_pretty(reports).expect("reports serialise")
}
