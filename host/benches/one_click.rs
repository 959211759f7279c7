//! One click to a verdict, and figures that do not move with the host's speed; real
//! Chromium, headless, through `unobserved run` as a user types it.
//!
//! 1. `unobserved run` at the defaults (all four body kinds, 32 MiB, auto-sampled with
//!    its 60 s budget), ROUNDS times: when each sample reached the store, and so the
//!    time from the command's start until Blob against Uint8Array was first settled
//!    (the host's rule, `Comparison::settled`, on each prefix of the stored reps), with
//!    the reps it took; the run's own end and why it stopped.
//! 2. The same fixed plan (`--reps HASH_REPS`) with the host's normal hasher and with
//!    it slowed to a CPU without SHA-NI (`UNOBSERVED_SIMULATE_HASH_MS_PER_MIB=3.5`),
//!    interleaved run by run, HASH_ROUNDS each: every arm's median, slow over normal,
//!    and the rank comparison of the two pools.
//!
//! `cargo bench --bench one_click` (env: ROUNDS=5, HASH_ROUNDS=3, HASH_REPS=8).

#[path = "../tests/common/mod.rs"]
mod common;

use common::{env_u64, BIN};
use std::process::Command;
use std::time::{Duration, Instant};
use unobserved::domain::sample::Sample;
use unobserved::report::{self, RunReport};
use unobserved::stats::compare;
use unobserved::stats::side::Side;

/// A body arm of the run, by its label (this benchmark names arms as the page does).
fn side(label: &str) -> Side {
    Side::Arm {
        arm: unobserved::domain::arm::Arm::from_legacy(label, &Default::default(), false),
    }
}
use unobserved::store::{Record, StoreContents, StoreTail};

/// Every record of one `unobserved run`, each with the seconds since the command
/// started at which it was seen in the store.
struct Followed {
    records: Vec<(f64, Record)>,
    total_secs: f64,
}

fn follow_run(args: &[&str], env: &[(&str, &str)]) -> Followed {
    let state = tempfile::tempdir().unwrap();
    let mut tail = StoreTail::from_end(state.path().join("results.jsonl"));
    let started = Instant::now();
    let mut child = Command::new(BIN)
        .args(["run", "--browser", "chromium", "--quiet"])
        .args(args)
        .envs(env.iter().copied())
        .env("UNOBSERVED_STATE_DIR", state.path())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut records = Vec::new();
    loop {
        let exited = child.try_wait().unwrap();
        let at = started.elapsed().as_secs_f64();
        records.extend(tail.poll().unwrap().into_iter().map(|r| (at, r)));
        if let Some(status) = exited {
            assert!(status.success(), "unobserved run {args:?} failed: {status}");
            return Followed {
                records,
                total_secs: at,
            };
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The run as reported from the records of its first `reps` reps.
fn prefix(f: &Followed, reps: u32) -> RunReport {
    let records = f
        .records
        .iter()
        .filter(|(_, r)| !matches!(r, Record::Sample(s) if s.rep >= reps))
        .map(|(_, r)| r.clone())
        .enumerate()
        .collect();
    report::runs(StoreContents {
        records,
        warnings: vec![],
    })
    .pop()
    .unwrap()
}

fn samples(f: &Followed) -> impl Iterator<Item = (f64, &Sample)> {
    f.records.iter().filter_map(|(at, r)| match r {
        Record::Sample(s) => Some((*at, s)),
        _ => None,
    })
}

/// (seconds, reps) when Blob against Uint8Array was first settled, if it was.
fn first_settled(f: &Followed) -> Option<(f64, u32)> {
    let most = samples(f).map(|(_, s)| s.rep + 1).max()?;
    (1..=most).find_map(|reps| {
        let r = prefix(f, reps);
        let c = r
            .comparisons
            .iter()
            .find(|c| c.arm.arm().label() == "Blob")?;
        let at = samples(f)
            .filter(|(_, s)| s.rep < reps)
            .map(|(at, _)| at)
            .fold(0.0, f64::max);
        c.settled().then_some((at, reps))
    })
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    unobserved::stats::quantile(&v, 0.5).unwrap_or(f64::NAN)
}

fn defaults(rounds: u64) {
    println!("## unobserved run at the defaults, {rounds} rounds");
    let mut times = Vec::new();
    for round in 1..=rounds {
        let f = follow_run(&[], &[]);
        let whole = prefix(&f, u32::MAX);
        let first = samples(&f).map(|(at, _)| at).fold(f64::INFINITY, f64::min);
        let settled = first_settled(&f);
        let blob = whole
            .comparisons
            .iter()
            .find(|c| c.arm.arm().label() == "Blob");
        println!(
            "round {round}: Blob vs Uint8Array settled {} · first sample at {first:.1} s · run ended at {:.1} s after {} reps ({:?}) · final {}",
            settled.map_or("never".into(), |(at, reps)| format!("at {at:.1} s after {reps} reps")),
            f.total_secs,
            report::auto_budget::reps_taken(&whole),
            whole.run.auto_stop,
            blob.map_or("–".into(), unobserved::export::words::comparison),
        );
        times.push(settled.map_or(f64::INFINITY, |(at, _)| at));
    }
    println!(
        "median time to a settled Blob vs Uint8Array: {:.1} s",
        median(times)
    );
}

fn hashers(rounds: u64, reps: u64) {
    println!("## normal and slowed hasher, interleaved, {rounds} runs each of --reps {reps}");
    let reps = reps.to_string();
    let args = ["--reps", reps.as_str()];
    let slow = [("UNOBSERVED_SIMULATE_HASH_MS_PER_MIB", "3.5")];
    let (mut normal, mut slowed) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        normal.push(follow_run(&args, &[]));
        slowed.push(follow_run(&args, &slow));
    }
    let pool = |runs: &[Followed], arm: &str| -> Vec<f64> {
        runs.iter()
            .flat_map(samples)
            .filter(|(_, s)| s.body == arm)
            .filter_map(|(_, s)| s.mbps)
            .collect()
    };
    // Per run, each arm's median: the runs are the units that vary with the machine.
    let per_run = |runs: &[Followed], arm: &str| -> Vec<String> {
        runs.iter()
            .map(|f| format!("{:.0}", median(pool(std::slice::from_ref(f), arm))))
            .collect()
    };
    let digest = |runs: &[Followed]| -> Vec<f64> {
        runs.iter()
            .flat_map(samples)
            .filter_map(|(_, s)| s.digest_ms)
            .collect()
    };
    for (name, runs) in [("normal", &normal), ("slowed", &slowed)] {
        let d = digest(runs);
        let late = d.iter().filter(|&&ms| ms > 150.0).count();
        println!(
            "{name} hasher: digest read a median {:.0} ms (max {:.0}) after the headers, {late} of {} past the 150 ms settle; run medians Uint8Array {:?}, Blob {:?}",
            median(d.clone()),
            d.iter().copied().fold(0.0, f64::max),
            d.len(),
            per_run(runs, "Uint8Array"),
            per_run(runs, "Blob"),
        );
    }
    println!("| arm | normal hasher | slowed hasher | slowed / normal | rank interval, verdict |");
    for arm in ["Uint8Array", "ArrayBuffer", "Blob"] {
        let (n, s) = (pool(&normal, arm), pool(&slowed, arm));
        let c = compare::compare(side(arm), &s, side(arm), &n, compare::DEFAULT_HORIZON).unwrap();
        println!(
            "| {arm} | {:.0} | {:.0} | **{:.3}** | {} {} |",
            median(n.clone()),
            median(s.clone()),
            median(s) / median(n),
            unobserved::export::words::ratio(&c, 3),
            unobserved::export::words::verdict(c.verdict, c.horizon)
        );
    }
}

fn main() {
    let rounds = env_u64("ROUNDS", 5);
    if rounds > 0 {
        defaults(rounds);
    }
    hashers(env_u64("HASH_ROUNDS", 3), env_u64("HASH_REPS", 8));
}
