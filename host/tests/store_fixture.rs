//! A store written by today's format (real runs: Chromium with the negative control,
//! the positive control, the encrypted/download/parallel workloads, and Firefox) still
//! reads, and reports exactly as it did when it was saved. Regenerate the expected
//! files only for a deliberate change of output, never to make this pass.

mod common;

fn report(format: &str) -> String {
    let state = tempfile::tempdir().unwrap();
    std::fs::copy(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/fixtures/store-v1.jsonl"
        ),
        state.path().join("results.jsonl"),
    )
    .unwrap();
    common::report(state.path(), &["--format", format])
}

fn expected(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/../tests/fixtures/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

#[test]
fn a_saved_store_reports_the_same_markdown() {
    assert_eq!(report("markdown"), expected("store-v1.report.md"));
}

#[test]
fn a_saved_store_reports_the_same_samples_arms_and_conditions() {
    assert_eq!(report("csv"), expected("store-v1.report.csv"));
}

#[test]
fn a_saved_stores_json_report_matches_the_schema_without_a_browser() {
    let doc: serde_json::Value = serde_json::from_str(&report("json")).unwrap();
    assert_eq!(doc["schema_version"], 3);
    assert!(doc["runs"].as_array().is_some_and(|r| r.len() > 3));
    common::runs::assert_matches_schema(&doc);
}
