//! Blocks inside one run (issue 36). A run draws some of its state once per stretch of
//! time (what else the machine runs, the browser's memory, thermal state), so its reps
//! are not independent draws of what a rerun would see. The run is split into blocks of
//! `block_reps` consecutive reps, arms interleaved inside each, and a comparison takes
//! each block as one figure: the median, over the block's reps, of the arm's log speed
//! less the baseline's in the same rep. The interval is Student's t on those figures
//! (a cluster interval, `B - 1` degrees of freedom), so it holds the spread between
//! blocks as measured, however large, and a rerun in the same condition falls inside it
//! as often as it promises. The ratio printed stays the ratio of the two medians
//! (`agree.rs`), and a verdict needs it inside the interval.
//!
//! Blocks that disagree: the blocks are split in two where their figures part most (the
//! best split of the sorted figures in two); when the two parts' paired log-ratios
//! differ far beyond chance (rank-sum test, times the places the split could fall, p
//! below `HETEROGENEITY_P`), each part is compared on its own. The verdict is `Depends`,
//! with each part's figures, only when the parts disagree as two conditions do
//! (`disagree`: their intervals lie apart and one says a difference the other does not,
//! faster against slower, the same or not resolved); not resolved when they say
//! different things without disagreeing; and when both say the same (both faster, 1.15x
//! in some blocks and 1.8x in others) the verdict over every block stands: how much
//! faster varies, but not whether. With fewer than `MIN_BLOCKS` blocks the samples are
//! pooled and compared by ranks (`compare.rs`), as every run was before blocks; the
//! report says so.

use super::compare::{compare, judge, Comparison, Side, Verdict};
use super::sequential::{last_look, Level, Looks};
use crate::domain::conditions::Condition;
use serde::Serialize;

/// Fewest blocks for the cluster interval.
pub const MIN_BLOCKS: usize = 3;
/// Fewest paired reps for a block to count (a partial last block of one rep does not).
pub const MIN_PAIRS: usize = 2;
/// How unlikely the blocks' disagreement must be under "the blocks agree" before the
/// run is split in two: small, since the test is repeated at every look of `--auto`.
pub const HETEROGENEITY_P: f64 = 0.001;

/// One rep's two speeds (arm and baseline, intact, Mbps) and the block it fell in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Paired {
    pub block: u32,
    pub arm: f64,
    pub baseline: f64,
}

/// What a part of a comparison covers.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(tag = "of", rename_all = "kebab-case")]
pub enum PartOf {
    /// Blocks of one run whose figures part from the others'.
    Blocks { blocks: Vec<u32> },
    /// The blocks measured in one condition.
    Condition { condition: Condition },
}

/// One part of a comparison: its ratio of medians, interval and verdict.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Part {
    #[serde(flatten)]
    pub of: PartOf,
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub ratio: f64,
    pub ci_low: Option<f64>,
    pub ci_high: Option<f64>,
    pub verdict: Verdict,
    /// Its interval lies entirely inside or outside the horizon.
    pub settled: bool,
    /// A condition the run did not plan (other work came or went; a `--load` the run
    /// alternates on purpose has a part of its own) measured over fewer than
    /// `MIN_BLOCKS` blocks: too few blocks to judge. Not resolved, without an interval,
    /// and `--auto` does not wait for it (`Comparison::settled`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub too_few_blocks: bool,
    /// The blocks its interval is over (Student's t from `MIN_BLOCKS`, else by ranks
    /// over their reps), as the comparison's `blocks`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocks: Option<usize>,
}

/// The part of `c` measured in `condition`, if it has one.
pub fn part_in<'a>(
    c: &'a Comparison,
    condition: &crate::domain::conditions::Condition,
) -> Option<&'a Part> {
    c.parts
        .iter()
        .find(|p| matches!(&p.of, PartOf::Condition { condition: of } if of == condition))
}

impl Part {
    pub fn of(of: PartOf, c: &Comparison) -> Part {
        Part {
            of,
            ratio: c.ratio,
            ci_low: c.ci_low,
            ci_high: c.ci_high,
            verdict: c.verdict,
            settled: c.settled(),
            too_few_blocks: false,
            blocks: c.blocks,
        }
    }
}

/// Two parts' intervals lie apart.
pub fn apart(a: &Part, b: &Part) -> bool {
    match (a.ci_low, a.ci_high, b.ci_low, b.ci_high) {
        (Some(al), Some(ah), Some(bl), Some(bh)) => ah < bl || bh < al,
        _ => false,
    }
}

/// Two conditions disagree: their intervals lie apart, and one says a difference the
/// other does not say (faster against slower, the same, or not resolved).
pub fn disagree(a: &Part, b: &Part) -> bool {
    apart(a, b)
        && (a.verdict.is_difference() || b.verdict.is_difference())
        && a.verdict != b.verdict
}

/// The arm against its baseline over a run's blocks (`pairs`, one per rep with both
/// intact); `arm` and `baseline` are every intact speed of each, for the ratio of the
/// medians. `looks`: an `--auto` run is read at its scheduled looks only
/// (`sequential.rs`), each at its own level; between looks, on the last look's blocks.
pub fn compare_blocks(
    sides: (Side, Side),
    (arm, baseline): (&[f64], &[f64]),
    pairs: &[Paired],
    horizon: f64,
    looks: Looks,
) -> Option<Comparison> {
    let mut blocks = figures(pairs);
    let level = level_of(&mut blocks, looks);
    let Some(alpha) = level.filter(|_| blocks.len() >= MIN_BLOCKS) else {
        // Too few blocks for their spread: by ranks over the reps, and never settled,
        // so `--auto` goes on to its first look at least.
        let mut c = compare(sides.0, arm, sides.1, baseline, horizon)?;
        c.blocks = Some(blocks.len());
        if blocks.len() >= MIN_BLOCKS {
            // An `--auto` run before its first look: no interval to stop on.
            (c.ci_low, c.ci_high, c.verdict) = (None, None, Verdict::NotResolved);
        }
        return Some(c);
    };
    let ratio = super::agree::ratio_of_medians(arm, baseline)?;
    let all: Vec<&Block> = blocks.iter().collect();
    let mut c = by_blocks(&all, (&sides.0, &sides.1), horizon, alpha)?;
    // The ratio printed is of every intact upload's median, whatever the pairs.
    c.ratio = ratio;
    c.verdict = match (c.ci_low, c.ci_high) {
        (Some(lo), Some(hi)) if super::agree::inside(ratio, lo, hi) => {
            judge(lo.ln(), hi.ln(), (1.0 + horizon).ln())
        }
        _ => Verdict::NotResolved,
    };
    if let Some((p, parts)) = split(&all, (&sides.0, &sides.1), horizon, alpha) {
        if p < HETEROGENEITY_P {
            part_verdict(&mut c, parts);
        }
    }
    Some(c)
}

/// Blocks far apart (`split`): `Depends` when their two parts disagree, as conditions
/// do (`disagree`: intervals apart, and one says a difference the other does not);
/// not resolved when they say different things without disagreeing (no one verdict
/// yet); when both say the same (both faster, however much), the verdict over every
/// block stands, with its own interval and no parts. What a part says is what its
/// interval says (`as_said`).
fn part_verdict(c: &mut Comparison, parts: [Part; 2]) {
    let says = parts.each_ref().map(|p| as_said(p, c.horizon));
    if disagree(&says[0], &says[1]) {
        (c.verdict, c.ci_low, c.ci_high) = (Verdict::Depends, None, None);
    } else if says[0].verdict != says[1].verdict {
        c.verdict = Verdict::NotResolved;
    } else {
        return;
    }
    c.parts = parts.to_vec();
}

/// The part with the verdict its interval says against the horizon, whether or not
/// its ratio of medians lies inside it: a part of many blocks whose ratio falls just
/// outside its narrow interval reads not resolved in print (`agree.rs`), yet its blocks
/// say faster. Blocks and conditions are weighed against each other by this.
fn as_said(p: &Part, horizon: f64) -> Part {
    let verdict = match (p.ci_low, p.ci_high) {
        (Some(lo), Some(hi)) => judge(lo.ln(), hi.ln(), (1.0 + horizon).ln()),
        _ => p.verdict,
    };
    Part {
        verdict,
        ..p.clone()
    }
}

/// The level a run's blocks are read at, and the blocks read: all of them once; in an
/// `--auto` run the whole blocks up to its last look (a last block still filling is not
/// read), and None before its first look.
fn level_of(blocks: &mut Vec<Block>, looks: Looks) -> Option<Level> {
    match looks {
        Looks::Once => Some(Level::Once),
        Looks::Scheduled => {
            let most = blocks.iter().map(|b| b.logs.len()).max().unwrap_or(0);
            if blocks.len() > 1 && blocks.last().is_some_and(|b| b.logs.len() < most) {
                blocks.pop();
            }
            let (at, j) = last_look(blocks.len())?;
            blocks.truncate(at);
            Some(Level::Look(j))
        }
    }
}

/// Some blocks compared: Student's t on their figures (at level `alpha`) from
/// `MIN_BLOCKS` blocks, else by ranks over their reps.
fn by_blocks(
    group: &[&Block],
    sides: (&Side, &Side),
    horizon: f64,
    alpha: Level,
) -> Option<Comparison> {
    let pairs: Vec<Paired> = group.iter().flat_map(|b| b.pairs.iter().copied()).collect();
    let arm: Vec<f64> = pairs.iter().map(|p| p.arm).collect();
    let base: Vec<f64> = pairs.iter().map(|p| p.baseline).collect();
    if group.len() < MIN_BLOCKS {
        let mut c = compare(sides.0.clone(), &arm, sides.1.clone(), &base, horizon)?;
        c.blocks = Some(group.len());
        return Some(c);
    }
    let ratio = super::agree::ratio_of_medians(&arm, &base)?;
    let (lo, hi) = cluster_interval(group, alpha);
    let verdict = if super::agree::inside(ratio, lo.exp(), hi.exp()) {
        judge(lo, hi, (1.0 + horizon).ln())
    } else {
        Verdict::NotResolved
    };
    Some(Comparison {
        arm: sides.0.clone(),
        baseline: sides.1.clone(),
        ratio,
        ci_low: Some(lo.exp()),
        ci_high: Some(hi.exp()),
        horizon,
        verdict,
        blocks: Some(group.len()),
        parts: Vec::new(),
    })
}

/// A block's reps: their paired log-ratios, and the block's figure (their median).
struct Block {
    id: u32,
    logs: Vec<f64>,
    figure: f64,
    pairs: Vec<Paired>,
}

fn figures(pairs: &[Paired]) -> Vec<Block> {
    let mut ids: Vec<u32> = pairs.iter().map(|p| p.block).collect();
    ids.sort_unstable();
    ids.dedup();
    ids.into_iter()
        .filter_map(|id| {
            let pairs: Vec<Paired> = pairs
                .iter()
                .filter(|p| p.block == id && p.arm > 0.0 && p.baseline > 0.0)
                .filter(|p| p.arm.is_finite() && p.baseline.is_finite())
                .copied()
                .collect();
            let logs: Vec<f64> = pairs.iter().map(|p| p.arm.ln() - p.baseline.ln()).collect();
            (logs.len() >= MIN_PAIRS).then(|| Block {
                id,
                figure: super::median(&logs).unwrap_or(0.0),
                logs,
                pairs,
            })
        })
        .collect()
}

/// Student's t on the blocks' figures at level `alpha`: [lo, hi] of the log
/// ratio.
fn cluster_interval(blocks: &[&Block], alpha: Level) -> (f64, f64) {
    let n = blocks.len() as f64;
    let mean = blocks.iter().map(|b| b.figure).sum::<f64>() / n;
    let var = blocks
        .iter()
        .map(|b| (b.figure - mean).powi(2))
        .sum::<f64>()
        / (n - 1.0);
    let half = alpha.t(blocks.len() - 1) * (var / n).sqrt();
    (mean - half, mean + half)
}

/// erfc, Numerical Recipes' Chebyshev fit (relative error below 1.2e-7).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

/// The blocks in two where their sorted figures part most (least squares within the
/// two), with how unlikely a gap that wide is if the blocks were one population: the
/// rank-sum test of the two parts' paired log-ratios, times the number of places the
/// split could have fallen (the best of them was chosen). Each part is compared by ranks
/// over its reps.
fn split(
    blocks: &[&Block],
    sides: (&Side, &Side),
    horizon: f64,
    alpha: Level,
) -> Option<(f64, [Part; 2])> {
    let mut order: Vec<&Block> = blocks.to_vec();
    order.sort_by(|a, b| a.figure.total_cmp(&b.figure));
    let ss = |part: &[&Block]| {
        let m = part.iter().map(|b| b.figure).sum::<f64>() / part.len() as f64;
        part.iter().map(|b| (b.figure - m).powi(2)).sum::<f64>()
    };
    let at = (1..order.len()).min_by(|&a, &b| {
        let cost = |s: usize| ss(&order[..s]) + ss(&order[s..]);
        cost(a).total_cmp(&cost(b))
    })?;
    let logs = |group: &[&Block]| -> Vec<f64> {
        group.iter().flat_map(|b| b.logs.iter().copied()).collect()
    };
    let p =
        (rank_sum_p(&logs(&order[..at]), &logs(&order[at..])) * (order.len() - 1) as f64).min(1.0);
    let part = |group: &[&Block]| -> Option<Part> {
        let c = by_blocks(group, sides, horizon, alpha)?;
        let mut ids: Vec<u32> = group.iter().map(|b| b.id).collect();
        ids.sort_unstable();
        Some(Part::of(PartOf::Blocks { blocks: ids }, &c))
    };
    Some((p, [part(&order[..at])?, part(&order[at..])?]))
}

/// Two-sided p of the Wilcoxon rank-sum test (normal approximation, ties at mid-rank).
fn rank_sum_p(x: &[f64], y: &[f64]) -> f64 {
    let (m, n) = (x.len() as f64, y.len() as f64);
    if x.is_empty() || y.is_empty() {
        return 1.0;
    }
    let u: f64 = x
        .iter()
        .map(|a| {
            y.iter()
                .map(|b| match a.total_cmp(b) {
                    std::cmp::Ordering::Greater => 1.0,
                    std::cmp::Ordering::Equal => 0.5,
                    std::cmp::Ordering::Less => 0.0,
                })
                .sum::<f64>()
        })
        .sum();
    let z = (u - m * n / 2.0) / (m * n * (m + n + 1.0) / 12.0).sqrt();
    erfc(z.abs() / std::f64::consts::SQRT_2)
}

/// A comparison made in each condition, as one: `Depends` when two conditions disagree
/// (`disagree`), the verdict they share when every one judged says the same, else not
/// resolved (a part too few blocks to judge, `unplanned_few`, is given but not judged).
/// The ratio is the ratio of the medians over every condition; the interval is none
/// (each part has its own).
pub fn across_conditions(
    sides: (Side, Side),
    ratio: f64,
    parts: Vec<(Condition, Comparison)>,
    horizon: f64,
) -> Comparison {
    let few = unplanned_few(&parts);
    let parts: Vec<Part> = parts
        .iter()
        .zip(few)
        .map(|((c, cmp), few)| {
            let of = PartOf::Condition {
                condition: c.clone(),
            };
            let mut part = Part::of(of, cmp);
            if few {
                (part.ci_low, part.ci_high) = (None, None);
                (part.verdict, part.settled) = (Verdict::NotResolved, false);
                part.too_few_blocks = true;
            }
            part
        })
        .collect();
    let verdict = verdict_across(&parts, horizon);
    Comparison {
        arm: sides.0,
        baseline: sides.1,
        ratio,
        ci_low: None,
        ci_high: None,
        horizon,
        verdict,
        blocks: None,
        parts,
    }
}

/// The verdict across conditions: `Depends` when two disagree, the verdict the judged
/// parts share, else not resolved. Each part counts by what its interval says (`as_said`),
/// as blocks do: a part whose ratio falls just outside its narrow interval prints not
/// resolved, yet its blocks say faster, and that is no disagreement.
fn verdict_across(parts: &[Part], horizon: f64) -> Verdict {
    let says: Vec<Part> = parts.iter().map(|p| as_said(p, horizon)).collect();
    let depends = says
        .iter()
        .enumerate()
        .any(|(i, a)| says[i + 1..].iter().any(|b| disagree(a, b)));
    let judged: Vec<&Part> = says.iter().filter(|p| !p.too_few_blocks).collect();
    let first = judged.first().map(|p| p.verdict);
    if depends {
        Verdict::Depends
    } else if first.is_some() && judged.iter().all(|p| Some(p.verdict) == first) {
        first.unwrap_or(Verdict::NotResolved)
    } else {
        Verdict::NotResolved
    }
}

/// Which conditions are too few blocks to judge: fewer than `MIN_BLOCKS` blocks in a
/// condition that shares its load with another (other work came or went, unplanned).
/// A load the run alternates on purpose is a condition of its own, so it is judged
/// however few blocks it has so far, and `--auto` waits for it.
fn unplanned_few(parts: &[(Condition, Comparison)]) -> Vec<bool> {
    parts
        .iter()
        .enumerate()
        .map(|(i, (c, cmp))| {
            let shared = parts
                .iter()
                .enumerate()
                .any(|(j, (d, _))| j != i && d.load == c.load);
            shared && cmp.blocks.is_some_and(|b| b < MIN_BLOCKS)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A condition's comparison as `compare_blocks` gives it: its ratio, interval and
    /// printed verdict.
    fn judged_in(ratio: f64, (lo, hi): (f64, f64), verdict: Verdict) -> Comparison {
        let side = super::super::side::of_body(crate::domain::arm::BodyKind::Blob);
        Comparison {
            arm: side.clone(),
            baseline: side,
            ratio,
            ci_low: Some(lo),
            ci_high: Some(hi),
            horizon: 0.05,
            verdict,
            blocks: Some(12),
            parts: vec![],
        }
    }

    #[test]
    fn two_conditions_whose_intervals_both_say_faster_do_not_depend() {
        let quiet = Condition::default();
        let busy = Condition {
            pressures: vec![crate::domain::conditions::Pressure::Cpu],
            ..Condition::default()
        };
        let side = super::super::side::of_body(crate::domain::arm::BodyKind::Blob);
        // Quiet: 1.16x inside [1.10–1.25], faster. Busy: the interval [2.4–3.1] says
        // faster, but the ratio of medians (2.35) falls just outside it, so it prints
        // not resolved (`agree.rs`). The two intervals lie apart; both say faster.
        let parts = vec![
            (
                quiet.clone(),
                judged_in(1.16, (1.10, 1.25), Verdict::Faster),
            ),
            (
                busy.clone(),
                judged_in(2.35, (2.4, 3.1), Verdict::NotResolved),
            ),
        ];
        let c = across_conditions((side.clone(), side.clone()), 1.6, parts, 0.05);
        assert_eq!(c.verdict, Verdict::Faster, "{c:?}");
        // Slower when busy instead: they disagree.
        let parts = vec![
            (quiet, judged_in(1.16, (1.10, 1.25), Verdict::Faster)),
            (busy, judged_in(0.5, (0.4, 0.6), Verdict::Slower)),
        ];
        let c = across_conditions((side.clone(), side), 0.8, parts, 0.05);
        assert_eq!(c.verdict, Verdict::Depends, "{c:?}");
    }

    #[test]
    fn erfc_and_the_rank_sum_p_match_the_tables() {
        assert!((erfc(0.0) - 1.0).abs() < 1e-7);
        assert!((erfc(1.0) - 0.157_299_2).abs() < 1e-6);
        assert!((erfc(-1.0) - 1.842_700_8).abs() < 1e-6);
        // Two samples of 10, fully apart: z = -3.78, p = 1.57e-4.
        let x: Vec<f64> = (0..10).map(f64::from).collect();
        let y: Vec<f64> = (10..20).map(f64::from).collect();
        let p = rank_sum_p(&x, &y);
        assert!((p - 1.57e-4).abs() < 0.1e-4, "{p}");
        assert!((rank_sum_p(&x, &x) - 1.0).abs() < 1e-6);
    }
}
