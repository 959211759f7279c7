//! Seeded simulations of the promise the verdicts make: between two arms that do not
//! differ, "faster"/"slower" comes out at most 5% of the time, at every sample size the
//! tool reports and under `--auto`'s stopping rule, for every noise model below; and a
//! real 1.3x difference is called at 6 reps. 2,000 trials per case; the bound asserted
//! is 6%, leaving room for the simulation's own error (±1% at 2 standard errors).

use super::compare::{compare, Comparison, DEFAULT_HORIZON};
use super::side::of_body;
use crate::arm::BodyKind;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const TRIALS: usize = 2000;
const MAX_FALSE: f64 = 0.06;

#[derive(Debug, Clone, Copy)]
enum Noise {
    /// Throughput normal around its mean, 8% spread.
    Normal,
    /// Log-throughput normal, 8% spread.
    LogNormal,
    /// Log-throughput Student-t with 3 degrees of freedom (heavy tails).
    StudentT3,
    /// Normal, and 5% of uploads take twice as long.
    SlowOutliers,
    /// Normal, and the machine slows 2% per rep; arms are interleaved, so both feel it.
    Drift,
}

const MODELS: [Noise; 5] = [
    Noise::Normal,
    Noise::LogNormal,
    Noise::StudentT3,
    Noise::SlowOutliers,
    Noise::Drift,
];

fn gaussian(rng: &mut StdRng) -> f64 {
    // Box–Muller.
    let (u, v): (f64, f64) = (rng.random::<f64>().max(f64::MIN_POSITIVE), rng.random());
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

/// One upload's Mbps at rep `rep` for an arm whose true mean is `mean`.
fn draw(rng: &mut StdRng, noise: Noise, mean: f64, rep: usize) -> f64 {
    match noise {
        Noise::Normal => mean * (1.0 + 0.08 * gaussian(rng)).max(0.05),
        Noise::LogNormal => mean * (0.08 * gaussian(rng)).exp(),
        Noise::StudentT3 => {
            let chi2: f64 = (0..3).map(|_| gaussian(rng).powi(2)).sum();
            mean * (0.05 * gaussian(rng) / (chi2 / 3.0).sqrt()).exp()
        }
        Noise::SlowOutliers => {
            let v = mean * (1.0 + 0.08 * gaussian(rng)).max(0.05);
            if rng.random::<f64>() < 0.05 {
                v / 2.0
            } else {
                v
            }
        }
        Noise::Drift => mean * (1.0 - 0.02 * rep as f64).max(0.2) * (1.0 + 0.05 * gaussian(rng)),
    }
}

/// Interleaved reps of two arms: (arm, baseline).
fn run(rng: &mut StdRng, noise: Noise, ratio: f64, reps: usize) -> (Vec<f64>, Vec<f64>) {
    let mut arm = Vec::new();
    let mut base = Vec::new();
    for rep in 0..reps {
        base.push(draw(rng, noise, 1000.0, rep));
        arm.push(draw(rng, noise, 1000.0 * ratio, rep));
    }
    (arm, base)
}

fn verdict_of(arm: &[f64], base: &[f64]) -> Comparison {
    compare(
        of_body(BodyKind::Blob),
        arm,
        of_body(BodyKind::Uint8Array),
        base,
        DEFAULT_HORIZON,
    )
    .unwrap()
}

/// The share of trials whose verdict is a difference.
fn difference_rate(noise: Noise, ratio: f64, reps: usize, seed: u64) -> f64 {
    let mut rng = StdRng::seed_from_u64(seed);
    let called = (0..TRIALS)
        .filter(|_| {
            let (a, b) = run(&mut rng, noise, ratio, reps);
            verdict_of(&a, &b).verdict.is_difference()
        })
        .count();
    called as f64 / TRIALS as f64
}

#[test]
fn identical_arms_are_called_different_at_most_5_percent_at_every_n() {
    let mut failures = Vec::new();
    for (i, noise) in MODELS.into_iter().enumerate() {
        for reps in [3, 4, 6, 12, 30] {
            let rate = difference_rate(noise, 1.0, reps, 100 + i as u64 * 10 + reps as u64);
            eprintln!("A/A {noise:?} at {reps} reps: {:.2}%", rate * 100.0);
            if rate > MAX_FALSE {
                failures.push(format!("{noise:?} at {reps} reps: {:.1}%", rate * 100.0));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "false differences above 6%: {failures:?}"
    );
}

#[test]
fn a_real_1_3x_difference_is_called_at_6_reps() {
    let mut report = Vec::new();
    for (i, noise) in MODELS.into_iter().enumerate() {
        let rate = difference_rate(noise, 1.3, 6, 500 + i as u64);
        report.push(format!("{noise:?} {:.1}%", rate * 100.0));
        // A slow outlier (5% of uploads at half speed) lands in 46% of 12-upload runs,
        // and a rank interval at 6 reps tolerates five out-of-order pairs of 36: about
        // four in five such runs still resolve. The other models resolve ≥ 80%.
        let floor = if matches!(noise, Noise::SlowOutliers) {
            0.75
        } else {
            0.80
        };
        assert!(
            rate >= floor,
            "{noise:?}: called in only {:.1}% of trials",
            rate * 100.0
        );
    }
    eprintln!("power at 6 reps, 1.3x: {report:?}");
}

/// `--auto`: start at `min` reps, add one interleaved rep at a time until every
/// comparison is settled or `max` reps are done; the verdict is read at the stop.
fn auto_verdict(rng: &mut StdRng, noise: Noise, ratio: f64, min: usize, max: usize) -> Comparison {
    let (mut arm, mut base) = run(rng, noise, ratio, min);
    loop {
        let c = verdict_of(&arm, &base);
        if c.settled() || arm.len() >= max {
            return c.as_auto_verdict();
        }
        let rep = arm.len();
        base.push(draw(rng, noise, 1000.0, rep));
        arm.push(draw(rng, noise, 1000.0 * ratio, rep));
    }
}

#[test]
fn auto_stopping_keeps_the_false_difference_rate_at_5_percent() {
    let mut failures = Vec::new();
    for (i, noise) in MODELS.into_iter().enumerate() {
        for max in [12, 30] {
            let mut rng = StdRng::seed_from_u64(900 + i as u64 * 7 + max as u64);
            let called = (0..TRIALS)
                .filter(|_| {
                    auto_verdict(&mut rng, noise, 1.0, 3, max)
                        .verdict
                        .is_difference()
                })
                .count();
            let rate = called as f64 / TRIALS as f64;
            eprintln!("A/A --auto {noise:?} 3..{max} reps: {:.2}%", rate * 100.0);
            if rate > MAX_FALSE {
                failures.push(format!("{noise:?} up to {max} reps: {:.1}%", rate * 100.0));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "--auto false differences above 6%: {failures:?}"
    );
}

#[test]
fn auto_settles_a_real_difference() {
    let mut rng = StdRng::seed_from_u64(77);
    let called = (0..TRIALS)
        .filter(|_| {
            auto_verdict(&mut rng, Noise::Normal, 1.3, 3, 30)
                .verdict
                .is_difference()
        })
        .count();
    assert!(
        called as f64 / TRIALS as f64 >= 0.95,
        "{called} of {TRIALS}"
    );
}

// Across runs. Every run has its own drift: all its samples share one factor exp(δ),
// δ ~ N(0, σ), on top of the noise models above (the machine's load, thermal state and
// the browser's background work differ from run to run, and arms of one run share it).

use super::across_runs::{compare_runs, drift_allowance, RUN_DRIFT_SD};

/// One run's samples of an arm whose true mean is `mean`, with its own drift.
fn drifting_run(rng: &mut StdRng, noise: Noise, mean: f64, reps: usize, sd: f64) -> Vec<f64> {
    let drift = (sd * gaussian(rng)).exp();
    (0..reps)
        .map(|rep| draw(rng, noise, mean, rep) * drift)
        .collect()
}

/// `runs` runs a side of identical builds (or builds `ratio` apart): the share of
/// trials that `compare_runs` calls different.
fn across_rate(noise: Noise, ratio: f64, reps: usize, runs: usize, sd: f64, seed: u64) -> f64 {
    let mut rng = StdRng::seed_from_u64(seed);
    let called = (0..TRIALS)
        .filter(|_| {
            let side = |rng: &mut StdRng, mean: f64| -> Vec<Vec<f64>> {
                (0..runs)
                    .map(|_| drifting_run(rng, noise, mean, reps, sd))
                    .collect()
            };
            let (base, arm) = (side(&mut rng, 1000.0), side(&mut rng, 1000.0 * ratio));
            let c = compare_runs(
                of_body(BodyKind::Blob),
                &arm,
                of_body(BodyKind::Blob),
                &base,
                DEFAULT_HORIZON,
                false,
            )
            .unwrap();
            c.comparison.verdict.is_difference()
        })
        .count();
    called as f64 / TRIALS as f64
}

#[test]
fn across_runs_with_run_drift_identical_builds_are_called_different_at_most_5_percent() {
    let mut failures = Vec::new();
    for (i, noise) in MODELS.into_iter().enumerate() {
        for reps in [4, 6, 12, 30] {
            // One run a side, at 5% drift (the quiet machine's) and at the 6% the
            // allowance is made for; several runs a side also at a drift well beyond
            // it, which their t interval measures.
            let cases = [
                (1, 0.05),
                (1, RUN_DRIFT_SD),
                (3, RUN_DRIFT_SD),
                (3, 0.10),
                (2, 0.10),
            ];
            for (runs, sd) in cases {
                let seed = 3000 + i as u64 * 100 + reps as u64 * 7 + runs as u64;
                let rate = across_rate(noise, 1.0, reps, runs, sd, seed);
                eprintln!(
                    "A/A across runs {noise:?}, {runs} run(s) a side of {reps} reps, drift {:.0}%: {:.2}%",
                    sd * 100.0,
                    rate * 100.0
                );
                if rate > MAX_FALSE {
                    failures.push(format!(
                        "{noise:?} {runs}x{reps} drift {sd}: {:.1}%",
                        rate * 100.0
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "false differences across runs above 6%: {failures:?}"
    );
}

/// Why runs need their own interval: the within-run rank interval over two runs'
/// samples treats them as independent, and with run drift it calls A/A pairs different
/// far more than 5% of the time, the more so the more reps.
#[test]
fn the_within_run_interval_alone_fails_across_runs_with_drift() {
    let mut rng = StdRng::seed_from_u64(41);
    let called = (0..TRIALS)
        .filter(|_| {
            let a = drifting_run(&mut rng, Noise::LogNormal, 1000.0, 12, RUN_DRIFT_SD);
            let b = drifting_run(&mut rng, Noise::LogNormal, 1000.0, 12, RUN_DRIFT_SD);
            verdict_of(&b, &a).verdict.is_difference()
        })
        .count();
    let rate = called as f64 / TRIALS as f64;
    eprintln!(
        "A/A across runs with the within-run interval: {:.1}%",
        rate * 100.0
    );
    assert!(rate > 0.10, "{:.1}%", rate * 100.0);
}

#[test]
fn across_runs_a_real_1_3x_difference_is_still_called() {
    let mut report = Vec::new();
    let mut low = Vec::new();
    for (i, noise) in MODELS.into_iter().enumerate() {
        for runs in [1, 3] {
            let seed = 7000 + i as u64 * 10 + runs as u64;
            let rate = across_rate(noise, 1.3, 6, runs, RUN_DRIFT_SD, seed);
            report.push(format!("{noise:?} {runs} run(s): {:.1}%", rate * 100.0));
            // Drift of 6% a run costs power: about three in four pairs resolve, one
            // run a side or three (Welch's t has few degrees of freedom at 3 against
            // 3), and fewer with slow outliers on top. More reps do not help one run a
            // side; more runs do, and interleaving does most (within-run power).
            let floor = match noise {
                Noise::SlowOutliers => 0.50,
                _ => 0.70,
            };
            if rate < floor {
                low.push(format!("{noise:?} {runs}: {:.1}%", rate * 100.0));
            }
        }
    }
    eprintln!(
        "power across runs at 6 reps, 1.3x (allowance ±{:.1}%): {report:?}",
        (drift_allowance().exp() - 1.0) * 100.0
    );
    assert!(low.is_empty(), "{low:?}");
}
