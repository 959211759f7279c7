//! Seeded simulations of the promise the verdicts make: between two arms that do not
//! differ, "faster"/"slower" comes out at most 5% of the time, at every sample size the
//! tool reports and under `--auto`'s stopping rule, for every noise model below; and a
//! real 1.3x difference is called at 6 reps. 2,000 trials per case; the bound asserted
//! is 6%, leaving room for the simulation's own error (±1% at 2 standard errors).

use super::compare::{compare, Comparison, DEFAULT_HORIZON};
use super::side::of_body;
use crate::domain::arm::BodyKind;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const TRIALS: usize = 2000;
const MAX_FALSE: f64 = 0.06;
/// The promise: at most 5% false faster/slower.
const PROMISE: f64 = 0.05;

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

// Blocks inside one run (issue 36). Each block draws a state of its own: a factor on
// both arms alike (the machine's speed then, 10%) and one on each arm apart (what the
// block's state does to one body kind and not the other, `BLOCK_STATE_SD`), on top of
// the noise models above. A rerun draws new states, so the promise is about them too.

use super::blocks::{compare_blocks, Paired};
use super::sequential::Looks;

/// Reps per block in the simulation, as `Plan::DEFAULT_BLOCK_REPS`.
const BLOCK_REPS: usize = 3;
/// How much a block's state moves both arms alike, and one arm and not the other (log
/// sds): the machine's speed then, and what the block's state does to one body kind.
const BLOCK_STATE_SD: (f64, f64) = (0.10, 0.05);

/// One block's reps of both arms, `ratio` apart, `effect` more on the arm in this block.
fn block(
    rng: &mut StdRng,
    noise: Noise,
    (ratio, effect): (f64, f64),
    id: u32,
    first_rep: usize,
    (shared_sd, state_sd): (f64, f64),
) -> Vec<Paired> {
    let shared = (shared_sd * gaussian(rng)).exp();
    let (on_arm, on_base) = (
        (state_sd * gaussian(rng)).exp(),
        (state_sd * gaussian(rng)).exp(),
    );
    (first_rep..first_rep + BLOCK_REPS)
        .map(|rep| Paired {
            block: id,
            baseline: draw(rng, noise, 1000.0, rep) * shared * on_base,
            arm: draw(rng, noise, 1000.0 * ratio * effect, rep) * shared * on_arm,
        })
        .collect()
}

/// The verdict over `pairs`, by blocks or (`pooled`) as one sample.
fn blocked_verdict(pairs: &[Paired], pooled: bool) -> Comparison {
    let arm: Vec<f64> = pairs.iter().map(|p| p.arm).collect();
    let base: Vec<f64> = pairs.iter().map(|p| p.baseline).collect();
    let sides = (of_body(BodyKind::Blob), of_body(BodyKind::Uint8Array));
    if pooled {
        return compare(sides.0, &arm, sides.1, &base, DEFAULT_HORIZON).unwrap();
    }
    compare_blocks(sides, (&arm, &base), pairs, DEFAULT_HORIZON, Looks::Once).unwrap()
}

/// A run of `blocks` blocks; with `half_effect`, the arm is that much more in every
/// other block.
fn blocked_run(
    rng: &mut StdRng,
    noise: Noise,
    ratio: f64,
    blocks: usize,
    half_effect: f64,
) -> Vec<Paired> {
    states_run(rng, noise, ratio, blocks, half_effect, BLOCK_STATE_SD)
}

fn states_run(
    rng: &mut StdRng,
    noise: Noise,
    ratio: f64,
    blocks: usize,
    half_effect: f64,
    sds: (f64, f64),
) -> Vec<Paired> {
    (0..blocks)
        .flat_map(|b| {
            let effect = if b % 2 == 1 { half_effect } else { 1.0 };
            block(rng, noise, (ratio, effect), b as u32, b * BLOCK_REPS, sds)
        })
        .collect()
}

/// An `--auto` run by blocks.
#[derive(Debug, Clone, Copy)]
struct Auto {
    /// Blocks at the start and at most.
    min: usize,
    max: usize,
    horizon: f64,
    /// The block states' sds (`BLOCK_STATE_SD`).
    sds: (f64, f64),
}

/// `--auto` by blocks, read at its scheduled looks: from `min` blocks, one more until
/// settled or `max` blocks. Read after every block (as the host reads after every rep);
/// between looks the verdict is the last look's.
fn blocked_auto(rng: &mut StdRng, noise: Noise, ratio: f64, auto: Auto) -> (Comparison, usize) {
    let mut pairs = states_run(rng, noise, ratio, auto.min, 1.0, auto.sds);
    let sides = (of_body(BodyKind::Blob), of_body(BodyKind::Uint8Array));
    loop {
        let blocks = pairs.len() / BLOCK_REPS;
        let arm: Vec<f64> = pairs.iter().map(|p| p.arm).collect();
        let base: Vec<f64> = pairs.iter().map(|p| p.baseline).collect();
        let c = compare_blocks(
            sides.clone(),
            (&arm, &base),
            &pairs,
            auto.horizon,
            Looks::Scheduled,
        )
        .unwrap();
        if c.settled() || blocks >= auto.max {
            return (c.as_auto_verdict(), blocks);
        }
        let next = block(
            rng,
            noise,
            (ratio, 1.0),
            blocks as u32,
            blocks * BLOCK_REPS,
            auto.sds,
        );
        pairs.extend(next);
    }
}

/// The margin a rate measured over `TRIALS` trials is allowed above a true 5%: two of
/// its standard errors (sqrt(0.05 * 0.95 / 2000) = 0.49%), so the bound asserted is
/// 5.97%. Measured over 20,000 trials each (0.15% standard error): read once at 95%,
/// the heavy-tailed cases with a state per block were 5.0–5.25% (the 5.7% read at 2,000
/// trials was 5.25% plus sampling error), so a run read once now uses a 95.5% interval
/// (`sequential::ONCE_ALPHA`): at most 4.71% over 20,000 trials (5.15% in one case at
/// 2,000); under `--auto`, below 3.5%.
const MC_MARGIN: f64 = 0.0097;

#[test]
fn blocks_keep_identical_arms_at_5_percent_with_a_state_per_block() {
    let mut failures = Vec::new();
    for (i, noise) in MODELS.into_iter().enumerate() {
        for (blocks, sds) in [3, 4, 6, 10, 20]
            .into_iter()
            .flat_map(|b| [(b, BLOCK_STATE_SD), (b, (0.0, 0.12))])
        {
            let mut rng = StdRng::seed_from_u64(11_000 + i as u64 * 100 + blocks as u64);
            let called = (0..TRIALS)
                .filter(|_| {
                    let pairs = states_run(&mut rng, noise, 1.0, blocks, 1.0, sds);
                    blocked_verdict(&pairs, false).verdict.is_difference()
                })
                .count();
            let rate = called as f64 / TRIALS as f64;
            eprintln!(
                "A/A by blocks {noise:?}, {blocks} blocks of {BLOCK_REPS}, states {sds:?}: {:.2}%",
                rate * 100.0
            );
            if rate > PROMISE + MC_MARGIN {
                failures.push(format!(
                    "{noise:?} {blocks} blocks {sds:?}: {:.1}%",
                    rate * 100.0
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "false differences above 5% (+{MC_MARGIN}): {failures:?}"
    );
}

/// Why blocks: with a state per block that moves one arm and not the other, the reps
/// pooled as one sample call identical arms different far more than 5% of the time.
#[test]
fn pooled_reps_fail_identical_arms_with_a_state_per_block() {
    let mut rng = StdRng::seed_from_u64(12_001);
    let called = (0..TRIALS)
        .filter(|_| {
            let pairs = states_run(&mut rng, Noise::LogNormal, 1.0, 10, 1.0, (0.0, 0.12));
            blocked_verdict(&pairs, true).verdict.is_difference()
        })
        .count();
    let rate = called as f64 / TRIALS as f64;
    eprintln!(
        "A/A pooled over 10 blocks with block states: {:.1}%",
        rate * 100.0
    );
    assert!(rate > 0.08, "{:.1}%", rate * 100.0);
}

/// `--auto` by blocks keeps identical arms at 5% at every horizon, budget and block
/// state: a horizon of 0.5% makes the stop on "outside" a significance test repeated
/// at every look, the worst case. Red check: every block read at 95% (the levels of
/// `sequential.rs` off) called 11–15% at horizons of 0.5–1%.
#[test]
fn blocks_under_auto_keep_identical_arms_at_5_percent() {
    let mut failures = Vec::new();
    let mut worst: f64 = 0.0;
    for (i, noise) in MODELS.into_iter().enumerate() {
        for (horizon, max, sds) in [0.005, 0.05, 0.2].into_iter().flat_map(|h| {
            [
                (h, 24, BLOCK_STATE_SD),
                (h, 24, (0.0, 0.12)),
                (h, 12, (0.0, 0.0)),
            ]
        }) {
            let seed = 13_000 + i as u64 * 100 + max as u64 + (horizon * 1000.0) as u64;
            let mut rng = StdRng::seed_from_u64(seed);
            let auto = Auto {
                min: 2,
                max,
                horizon,
                sds,
            };
            let called = (0..TRIALS)
                .filter(|_| {
                    let (c, _) = blocked_auto(&mut rng, noise, 1.0, auto);
                    c.verdict.is_difference()
                })
                .count();
            let rate = called as f64 / TRIALS as f64;
            worst = worst.max(rate);
            eprintln!("A/A --auto {noise:?} {auto:?}: {:.2}%", rate * 100.0);
            if rate > PROMISE + MC_MARGIN {
                failures.push(format!("{noise:?} {auto:?}: {:.1}%", rate * 100.0));
            }
        }
    }
    eprintln!("A/A --auto by blocks, worst case: {:.2}%", worst * 100.0);
    assert!(
        failures.is_empty(),
        "--auto false differences above 5% (+{MC_MARGIN}): {failures:?}"
    );
}

/// Still decisive: a real 1.3x is called within 20 blocks (60 reps, about the default
/// 60 s budget of two arms) in at least 9 runs of 10, for every noise model.
#[test]
fn blocks_under_auto_still_call_a_real_1_3x() {
    let mut report = Vec::new();
    for (i, noise) in MODELS.into_iter().enumerate() {
        let mut rng = StdRng::seed_from_u64(14_000 + i as u64);
        let mut used = Vec::new();
        let auto = Auto {
            min: 2,
            max: 20,
            horizon: DEFAULT_HORIZON,
            sds: BLOCK_STATE_SD,
        };
        let called = (0..TRIALS)
            .filter(|_| {
                let (c, blocks) = blocked_auto(&mut rng, noise, 1.3, auto);
                used.push(blocks as f64);
                c.verdict == super::compare::Verdict::Faster
            })
            .count();
        let rate = called as f64 / TRIALS as f64;
        report.push(format!(
            "{noise:?} {:.1}% (median {} blocks)",
            rate * 100.0,
            super::median(&used).unwrap()
        ));
        assert!(rate >= 0.90, "{noise:?}: {:.1}%", rate * 100.0);
    }
    eprintln!("1.3x by blocks under --auto: {report:?}");
}

/// Half the blocks carry a 2x effect on the arm: the answer depends on the block, and
/// the verdict says so. Pooled as one sample, the same reps read "faster" or "slower"
/// in most trials (the red check).
#[test]
fn a_2x_effect_on_half_the_blocks_depends() {
    let (depends, differences) = depends_or_pooled(false);
    // A part's own interval errs too: when the half without the effect reads faster by
    // chance (its interval's one-sided error), both parts say faster, they do not
    // disagree, and the verdict over every block stands, as for two conditions that
    // both say faster. 47 of 2000 (2.4%) with this seed; the promise bounds it.
    assert!(
        differences <= TRIALS * 5 / 100,
        "called faster or slower {differences} times"
    );
    assert!(
        depends >= TRIALS * 8 / 10,
        "depends in {depends} of {TRIALS}"
    );
    let (_, pooled) = depends_or_pooled(true);
    eprintln!("pooled as one sample: {pooled} of {TRIALS} faster or slower");
    assert!(pooled > TRIALS / 4);
}

/// Every block faster, 1.15x in half of them and 1.8x in the other half (a quiet run
/// measured 1.11–1.84x per block over 27 blocks): the two parts lie apart but both say
/// faster, so the verdict is faster, never depends (issue 36 item 4: depends is for
/// parts that disagree, as conditions do). 64 blocks, so that each part's interval
/// lies clear of the 5% horizon (a part faster against one not resolved, apart, is a
/// disagreement). Red on the rule before: depends in 2000 of 2000; with the printed
/// verdicts in place of what the intervals say, depends in 119 of 2000 (a part's ratio
/// of medians just outside its own interval).
#[test]
fn faster_by_two_amounts_in_half_the_blocks_each_is_faster() {
    use super::compare::Verdict;
    let mut rng = StdRng::seed_from_u64(15_100);
    let (mut faster, mut depends, mut slower) = (0, 0, 0);
    for _ in 0..TRIALS {
        let pairs = blocked_run(&mut rng, Noise::LogNormal, 1.15, 64, 1.8 / 1.15);
        let v = blocked_verdict(&pairs, false).verdict;
        faster += (v == Verdict::Faster) as usize;
        depends += (v == Verdict::Depends) as usize;
        slower += (v == Verdict::Slower) as usize;
    }
    eprintln!(
        "1.15x and 1.8x in half the blocks each: faster {faster}, depends {depends} of {TRIALS}"
    );
    assert_eq!((depends, slower), (0, 0));
    // The rest are not resolved over every block: 22 of 2000 with this seed.
    assert!(
        faster >= TRIALS * 95 / 100,
        "faster in {faster} of {TRIALS}"
    );
}

fn depends_or_pooled(pooled: bool) -> (usize, usize) {
    let mut rng = StdRng::seed_from_u64(15_000);
    let (mut depends, mut differences) = (0, 0);
    for _ in 0..TRIALS {
        let pairs = blocked_run(&mut rng, Noise::LogNormal, 1.0, 8, 2.0);
        let v = blocked_verdict(&pairs, pooled).verdict;
        depends += (v == super::compare::Verdict::Depends) as usize;
        differences += v.is_difference() as usize;
    }
    eprintln!("2x on half the blocks (pooled: {pooled}): depends {depends}, faster/slower {differences} of {TRIALS}");
    (depends, differences)
}
