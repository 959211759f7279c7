//! `unobserved run` as a user types it, with `--json`: the document schema-checked whole
//! and its one run returned. Browsers take turns: two at once on two cores would make
//! each slower and flakier.

use super::BIN;
use serde_json::Value;
use std::process::Command;
use std::sync::Mutex;

pub static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

pub struct Outcome {
    /// The one run of `--json`'s document (`runs[0]`), which is schema-checked whole.
    pub json: Value,
    pub stdout: String,
    pub state: tempfile::TempDir,
}

pub fn run_with(browser: &str, extra: &[&str]) -> Outcome {
    run_in(browser, extra, StateDir::Absolute)
}

/// How the run is told its state dir. `Relative` names it from the folder the command
/// starts in, as a person typing `UNOBSERVED_STATE_DIR=state unobserved run` does; the
/// browser starts the native host elsewhere, which must still find the same folder.
#[derive(Clone, Copy, PartialEq)]
pub enum StateDir {
    Absolute,
    Relative,
}

pub fn run_in(browser: &str, extra: &[&str], named: StateDir) -> Outcome {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let state = tempfile::tempdir().unwrap();
    let json_path = state.path().join("run.json");
    let mut cmd = Command::new(BIN);
    if named == StateDir::Relative {
        let (parent, name) = (
            state.path().parent().unwrap(),
            state.path().file_name().unwrap(),
        );
        cmd.current_dir(parent).env("UNOBSERVED_STATE_DIR", name);
    } else {
        cmd.env("UNOBSERVED_STATE_DIR", state.path());
    }
    let out = cmd
        .args([
            "run",
            "--browser",
            browser,
            "--quiet",
            "--connect-timeout",
            "90",
        ])
        .args(extra)
        .arg("--json")
        .arg(&json_path)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "`unobserved run --browser {browser}` failed ({}). Is {browser} installed? The README's test command installs it.\nstdout:\n{stdout}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&std::fs::read(&json_path).unwrap()).unwrap();
    assert_matches_schema(&doc);
    assert_eq!(doc["runs"].as_array().unwrap().len(), 1);
    let json = doc["runs"][0].clone();
    assert_judged_from_the_ledger(&json);
    let mut json = json;
    json["launch"] = doc["launch"][0].clone();
    Outcome {
        json,
        stdout,
        state,
    }
}

/// Real output against `schemas/report.schema.json`.
pub fn assert_matches_schema(doc: &Value) {
    let schema: Value =
        serde_json::from_str(include_str!("../../../schemas/report.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "output does not match the schema: {errors:#?}"
    );
}

/// Every sample the host stored says what it found in its sink's ledger, and every
/// intact one names an upload id whose record it claimed.
pub fn assert_judged_from_the_ledger(run: &Value) {
    let samples = run["samples"].as_array().expect("a run has samples");
    for s in samples {
        assert!(s["receipt"].is_string(), "a sample without a receipt: {s}");
        if s["intact"] == true {
            assert!(
                s["upload_id"].as_str().is_some_and(|id| !id.is_empty()),
                "an intact sample without an upload id: {s}"
            );
            assert_eq!(s["receipt"], "found", "{s}");
        }
    }
}

/// What `unobserved run` printed is the table of the run it stored: `report --run ID
/// --format table` of the same store gives the same bytes. (The table's words are
/// `export/`'s, pinned by its unit tests; a test here compares bytes, never words.)
pub fn assert_printed_as_stored(stdout: &str, state: &std::path::Path, run_id: &str) {
    let stored = super::report(state, &["--run", run_id, "--format", "table"]);
    assert!(!stored.is_empty(), "no table of run {run_id}");
    assert_eq!(stdout, stored, "the printed table is not the stored run's");
}
