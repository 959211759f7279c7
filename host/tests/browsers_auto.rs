//! Auto-sampling is the default, in real Chromium: a run without --reps adds interleaved
//! reps until every comparison is settled or its time budget is spent, and says which;
//! `--reps N` is exactly N reps, as it always was. Small bodies and a small budget keep
//! these to seconds.

use serde_json::Value;

mod common;
use common::runs::{assert_printed_as_stored, run_with};

/// 256 KiB bodies, no warm-up: the defaults otherwise (all four body kinds, 6 first reps).
const SMALL: [&str; 4] = ["--size", "256KiB", "--warmup", "0"];

fn reps_in(run: &Value) -> u64 {
    let reps = run["samples"].as_array().unwrap().iter();
    reps.map(|s| s["rep"].as_u64().unwrap() + 1)
        .max()
        .unwrap_or(0)
}

/// The comparison's interval lies entirely inside or entirely outside ±horizon, with
/// its ratio inside it: what "settled" means (stats::compare::Comparison::settled).
fn settled(c: &Value) -> bool {
    let (Some(lo), Some(hi)) = (c["ci_low"].as_f64(), c["ci_high"].as_f64()) else {
        return false;
    };
    let (ratio, h) = (
        c["ratio"].as_f64().unwrap(),
        1.0 + c["horizon"].as_f64().unwrap(),
    );
    let inside = lo >= 1.0 / h && hi <= h;
    let outside = lo > h || hi < 1.0 / h;
    (lo..=hi).contains(&ratio) && (inside || outside)
}

#[test]
fn a_default_run_ends_with_every_comparison_settled_or_says_the_budget_ended_it() {
    let o = run_with("chromium", &[&SMALL[..], &["--max-time", "8"]].concat());
    let run = &o.json;
    assert_eq!(run["run"]["status"], "complete");
    let plan = &run["run"]["plan"];
    assert_eq!(plan["auto"]["max_seconds"], 8, "no --reps: auto-sampled");
    assert_eq!(plan["reps"], 6, "from the default first reps");
    assert!(reps_in(run) >= 6, "{}", reps_in(run));
    let comparisons = run["comparisons"].as_array().unwrap();
    assert_eq!(
        comparisons.len(),
        2,
        "ArrayBuffer and Blob against Uint8Array"
    );
    let budget: Vec<&Value> = run["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["kind"] == "auto-budget-spent")
        .collect();
    match run["run"]["auto_stop"].as_str() {
        Some("settled") => {
            assert!(comparisons.iter().all(settled), "{comparisons:#?}");
            assert!(budget.is_empty(), "{budget:#?}");
        }
        Some(stop @ ("budget-time" | "budget-reps")) => {
            let [w] = budget.as_slice() else {
                panic!("a budget ended it, so one warning says so: {budget:#?}")
            };
            assert_eq!(w["stop"], stop);
            assert_eq!(
                w["reps"].as_u64(),
                Some(reps_in(run)),
                "with the reps it took"
            );
            let unsettled: Vec<&Value> = comparisons.iter().filter(|c| !settled(c)).collect();
            // The warning names the same comparisons, by their two typed sides.
            let sides = |c: &Value| (c["arm"].clone(), c["baseline"].clone());
            let named: Vec<_> = w["unsettled"]
                .as_array()
                .unwrap()
                .iter()
                .map(sides)
                .collect();
            assert_eq!(
                named,
                unsettled.iter().map(|c| sides(c)).collect::<Vec<_>>()
            );
            assert!(
                !unsettled.is_empty(),
                "a budget stop leaves something unsettled"
            );
            for c in unsettled {
                assert_eq!(c["verdict"], "not-resolved", "{c}");
            }
        }
        other => panic!("an auto run records why it stopped: {other:?}"),
    }
    // The table `unobserved run` printed is the stored run's, so it shows the budget's
    // warning as every format does (`export/`'s unit tests pin its words).
    let id = run["run"]["run_id"].as_str().unwrap();
    assert_printed_as_stored(&o.stdout, o.state.path(), id);
}

#[test]
fn a_fixed_reps_run_is_exactly_that_many_reps() {
    let o = run_with("chromium", &[&SMALL[..], &["--reps", "3"]].concat());
    let run = &o.json;
    assert_eq!(run["run"]["status"], "complete");
    assert!(
        run["run"]["plan"]["auto"].is_null(),
        "--reps alone: no auto-sampling"
    );
    assert!(run["run"].get("auto_stop").is_none());
    assert_eq!(reps_in(run), 3);
    assert_eq!(
        run["samples"].as_array().unwrap().len(),
        3 * 4,
        "3 reps × 4 kinds"
    );
    assert!(!run["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|w| w["kind"] == "auto-budget-spent"));
}
