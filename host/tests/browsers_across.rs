//! Comparing runs with a real Chromium: a run during which the CPU was busy is not
//! comparable (no "faster"/"slower", and the gate says it cannot tell), and builds run
//! with `--browser-path` twice take turns rep by rep and compare as within a run.

mod common;
use common::runs::ONE_AT_A_TIME;
use common::BIN;
use serde_json::Value;
use std::path::Path;
use std::process::{Child, Command, Stdio};

const CHROMIUM: &str = "/usr/lib/chromium/chromium";
const SMALL: [&str; 8] = [
    "--bodies",
    "Uint8Array,Blob",
    "--size",
    "4MiB",
    "--reps",
    "4",
    "--connect-timeout",
    "90",
];

fn unobserved(state: &Path, args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(BIN)
        .args(args)
        .env("UNOBSERVED_STATE_DIR", state)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

fn run(state: &Path, extra: &[&str]) {
    let mut args = vec!["run", "--browser", "chromium", "--quiet"];
    args.extend(SMALL);
    args.extend(extra);
    let (code, out) = unobserved(state, &args);
    assert_eq!(
        code,
        Some(0),
        "`unobserved run` failed. Is Chromium installed (scripts/ensure-deps.sh)?\n{out}"
    );
}

fn compared(state: &Path) -> Value {
    let (code, text) = unobserved(state, &["compare", "last~1", "last", "--format", "json"]);
    assert_eq!(code, Some(0), "{text}");
    serde_json::from_str(&text).unwrap()
}

/// Busy processes, one per core, each a shell spinning; ended when dropped.
struct Busy(Vec<Child>);

impl Busy {
    fn start() -> Busy {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        Busy(
            (0..cores)
                .map(|_| {
                    Command::new("sh")
                        .args(["-c", "while :; do :; done"])
                        .stdin(Stdio::null())
                        .spawn()
                        .unwrap()
                })
                .collect(),
        )
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

#[test]
fn chromium_a_run_on_a_busy_cpu_is_not_comparable_and_the_gate_cannot_tell() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let state = tempfile::tempdir().unwrap();
    run(state.path(), &[]);
    let busy = Busy::start();
    run(state.path(), &[]);
    drop(busy);
    let v = compared(state.path());
    let newest = v["sides"][1][0].clone();
    assert_eq!(v["machine"]["kind"], "differs", "{}", v["machine"]);
    assert_eq!(v["machine"]["slower"], newest, "the busy run is named");
    assert!(v["machine"]["slower_by"].as_f64().unwrap() > 0.15);
    for arm in v["arms"].as_array().unwrap() {
        let verdict = &arm["versus_first"][0]["verdict"];
        assert_eq!(verdict, "not-comparable", "{arm}");
    }
    let (code, out) = unobserved(
        state.path(),
        &["compare", "last~1", "last", "--fail-if-slower", "10"],
    );
    assert_eq!(
        code,
        Some(7),
        "neither pass nor fail on a busy machine\n{out}"
    );
}

#[test]
fn chromium_builds_given_twice_take_turns_rep_by_rep_and_compare_as_within_a_run() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    assert!(
        Path::new(CHROMIUM).is_file(),
        "{CHROMIUM} is missing: scripts/ensure-deps.sh installs Chromium"
    );
    let state = tempfile::tempdir().unwrap();
    run(
        state.path(),
        &["--browser-path", CHROMIUM, "--browser-path", CHROMIUM],
    );
    let v = compared(state.path());
    assert_eq!(v["machine"]["kind"], "interleaved");
    for arm in v["arms"].as_array().unwrap() {
        assert_eq!(
            arm["versus_first"][0]["method"]["kind"], "interleaved",
            "{arm}"
        );
    }
    // The store shows the turns: each build's rep (both arms) and then the other's.
    let text = std::fs::read_to_string(state.path().join("results.jsonl")).unwrap();
    let order: Vec<(String, u64)> = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r["kind"] == "sample")
        .map(|r| {
            (
                r["run_id"].as_str().unwrap().to_owned(),
                r["rep"].as_u64().unwrap(),
            )
        })
        .collect();
    let (a, b) = (&v["sides"][0][0], &v["sides"][1][0]);
    let expected: Vec<(String, u64)> = (0..4)
        .flat_map(|rep| [a, a, b, b].map(|id| (id.as_str().unwrap().to_owned(), rep)))
        .collect();
    assert_eq!(order, expected);
}
