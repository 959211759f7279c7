//! Ratios between arms, their 95% intervals, and verdicts (in words: export/words.rs).
//!
//! The method is rank-based, so slow outliers and heavy tails cannot manufacture a
//! difference: the interval is the exact Mann–Whitney (distribution-free) 95% interval
//! for the shift between the two arms' log throughputs. The ratio printed with it is
//! the ratio of the two medians printed beside it (`agree`), and a verdict needs that
//! ratio inside its interval. Under "no difference" it calls one at
//! most 5% of the time at every sample size, whatever the noise's shape; a percentile
//! bootstrap of the median ratio, used before, called one 9.5% of the time at 3 reps.
//! With 3 samples per arm no 95% rank interval exists, so such a comparison is honestly
//! "not resolved" (the smallest that can resolve is 4 against 4, or 3 against 5).
//!
//! Verdicts, with a horizon h (default 5%): "faster"/"slower" when the interval excludes
//! 1 and does not lie inside ±h; "same within ±h" when it lies inside ±h; otherwise
//! "not resolved". `--auto` stops for precision (see `settled`), not for significance.

use super::pairwise;
pub use super::side::Side;
use serde::Serialize;

/// Fewest samples per arm before a ratio is estimated at all.
pub const MIN_SAMPLES: usize = 3;
/// Fewest samples per arm (when both arms have as many) for which a 95% interval
/// exists: 3 against 3 never resolves.
pub const MIN_TO_RESOLVE: usize = 4;
/// Two-sided error rate of the interval.
pub const ALPHA: f64 = 0.05;
/// The default horizon: differences smaller than this are "the same".
pub const DEFAULT_HORIZON: f64 = 0.05;

#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Comparison {
    /// What is measured against the baseline.
    pub arm: Side,
    pub baseline: Side,
    /// The arm's median over the baseline's: the two figures printed beside it.
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub ratio: f64,
    /// The 95% interval of the ratio; None when the samples are too few for one.
    pub ci_low: Option<f64>,
    pub ci_high: Option<f64>,
    /// The horizon the verdict was judged against, as a fraction (0.05 = ±5%).
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub horizon: f64,
    pub verdict: Verdict,
    /// The blocks of the run the interval is over (`blocks.rs`: each block one figure);
    /// absent when the samples were pooled (fewer than three blocks, or across runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocks: Option<usize>,
    /// Its parts, when the comparison was made per condition or its blocks disagreed:
    /// each part's ratio, interval and verdict (`Verdict::Depends` says they disagree).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<super::blocks::Part>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    Faster,
    Slower,
    /// The whole interval lies inside ±horizon.
    Same,
    /// The interval is too wide to say either.
    NotResolved,
    /// Across runs: the machine itself ran at another speed in one of them, beyond
    /// its horizon (`report::machine_check`), or the runs were measured under different
    /// conditions, so no verdict is given.
    NotComparable,
    /// Its parts (conditions, or blocks of a run) disagree beyond the horizon: faster in
    /// one, not in another. Neither faster nor slower; `parts` has each part's figures.
    Depends,
}

impl Verdict {
    /// A difference was called.
    pub fn is_difference(self) -> bool {
        matches!(self, Verdict::Faster | Verdict::Slower)
    }
}

impl Comparison {
    /// The verdict an `--auto` run reports: a comparison the budget ended before it
    /// settled is not resolved, whatever its interval, because runs that reach the
    /// budget are the ones whose estimate wandered (peeking would otherwise leak
    /// false differences through the last look).
    pub fn as_auto_verdict(mut self) -> Comparison {
        if !self.settled() {
            self.verdict = Verdict::NotResolved;
        }
        for part in &mut self.parts {
            if !part.settled {
                part.verdict = Verdict::NotResolved;
            }
        }
        self
    }

    /// Precise enough to stop adding reps: the interval lies entirely inside the
    /// horizon (the same) or entirely outside it (a difference larger than h).
    pub fn settled(&self) -> bool {
        // Blocks that part stay apart however many more reps come; conditions are
        // settled when each is (so each condition's own verdict is given).
        let of_blocks =
            |p: &super::blocks::Part| matches!(p.of, super::blocks::PartOf::Blocks { .. });
        if self.verdict == Verdict::Depends && self.parts.iter().all(of_blocks) {
            return true;
        }
        if !self.parts.is_empty() {
            // A part too few blocks to judge (other work over a block or two) does not
            // hold the run; at least one part must be judged.
            let mut judged = self.parts.iter().filter(|p| !p.too_few_blocks).peekable();
            return judged.peek().is_some() && judged.all(|p| p.settled);
        }
        if self.blocks.is_some_and(|b| b < super::blocks::MIN_BLOCKS) {
            return false;
        }
        let (Some(lo), Some(hi)) = (self.ci_low, self.ci_high) else {
            return false;
        };
        let agrees = super::agree::inside(self.ratio, lo, hi);
        let (lo, hi, h) = (lo.ln(), hi.ln(), (1.0 + self.horizon).ln());
        agrees && ((lo >= -h && hi <= h) || lo > h || hi < -h)
    }
}

/// Compares `arm` against `baseline` (both Mbps samples, any order).
pub fn compare(
    side: Side,
    arm: &[f64],
    baseline_side: Side,
    baseline: &[f64],
    horizon: f64,
) -> Option<Comparison> {
    // Sorted, as the rank selection needs (`pairwise`: the m×n differences are never
    // built, since they cost m·n memory).
    let logs = |v: &[f64]| -> Vec<f64> {
        let mut l: Vec<f64> = v
            .iter()
            .filter(|x| x.is_finite() && **x > 0.0)
            .map(|x| x.ln())
            .collect();
        l.sort_by(f64::total_cmp);
        l
    };
    let (x, y) = (logs(arm), logs(baseline));
    if x.len() < MIN_SAMPLES || y.len() < MIN_SAMPLES {
        return None;
    }
    let ratio = super::agree::ratio_of_medians(arm, baseline)?;
    let pairs = x.len() * y.len();
    let interval = mann_whitney_rank(x.len(), y.len(), ALPHA).map(|k| {
        (
            pairwise::kth_difference(&x, &y, k),
            pairwise::kth_difference(&x, &y, pairs - k + 1),
        )
    });
    let verdict = match interval {
        Some((lo, hi)) if super::agree::inside(ratio, lo.exp(), hi.exp()) => {
            judge(lo, hi, (1.0 + horizon).ln())
        }
        _ => Verdict::NotResolved,
    };
    Some(Comparison {
        arm: side,
        baseline: baseline_side,
        ratio,
        ci_low: interval.map(|i| i.0.exp()),
        ci_high: interval.map(|i| i.1.exp()),
        horizon,
        verdict,
        blocks: None,
        parts: Vec::new(),
    })
}

/// The verdict for a log-ratio interval [lo, hi] and a log horizon h.
pub(super) fn judge(lo: f64, hi: f64, h: f64) -> Verdict {
    if lo >= -h && hi <= h {
        Verdict::Same
    } else if lo > 0.0 {
        Verdict::Faster
    } else if hi < 0.0 {
        Verdict::Slower
    } else {
        Verdict::NotResolved
    }
}

/// The rank k (1-based) of the pairwise differences that bounds the exact two-sided
/// (1 - alpha) Mann–Whitney interval: the largest k with P(U <= k-1) <= alpha/2 under
/// "no difference". None when even k = 1 is too likely (too few samples).
pub fn mann_whitney_rank(m: usize, n: usize, alpha: f64) -> Option<usize> {
    thread_local! {
        // Reports and --auto ask for the same few sizes again and again.
        static CACHE: std::cell::RefCell<std::collections::HashMap<(usize, usize, u64), Option<usize>>> =
            Default::default();
    }
    let key = (m, n, alpha.to_bits());
    if let Some(k) = CACHE.with(|c| c.borrow().get(&key).copied()) {
        return k;
    }
    let k = rank_uncached(m, n, alpha);
    CACHE.with(|c| c.borrow_mut().insert(key, k));
    k
}

fn rank_uncached(m: usize, n: usize, alpha: f64) -> Option<usize> {
    if m == 0 || n == 0 {
        return None;
    }
    if m + n > EXACT_UP_TO {
        // Normal approximation, far outside the sizes where it matters.
        let mn = (m * n) as f64;
        let sd = (mn * (m + n + 1) as f64 / 12.0).sqrt();
        let k = (mn / 2.0 - Z_975 * sd).floor() as usize;
        return (k >= 1).then_some(k);
    }
    let counts = u_distribution(m, n);
    let total: f64 = counts.iter().map(|&c| c as f64).sum();
    let mut below = 0.0;
    let mut k = 0;
    for (u, &c) in counts.iter().enumerate() {
        below += c as f64;
        if below / total > alpha / 2.0 {
            break;
        }
        k = u + 1;
    }
    (k >= 1).then_some(k)
}

const Z_975: f64 = 1.959_963_984_540_054;
/// Exact counts fit in i128 up to 120 samples in all (C(120, 60) < 2^117).
const EXACT_UP_TO: usize = 120;

/// How many of the C(m+n, m) orderings give each value of U (0..=mn): the coefficients
/// of the Gaussian binomial [m+n choose m]_q = prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i).
fn u_distribution(m: usize, n: usize) -> Vec<i128> {
    let degree = m * n;
    let mut c = vec![0i128; degree + 1];
    c[0] = 1;
    for i in 1..=m {
        for u in (n + i..=degree).rev() {
            c[u] -= c[u - (n + i)];
        }
        for u in i..=degree {
            c[u] += c[u - i];
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::arm::BodyKind;
    use crate::stats::side::of_body;

    #[test]
    fn the_u_distribution_matches_the_tables() {
        // m = n = 3: 20 orderings, U = 0..9 with counts 1 1 2 3 3 3 3 2 1 1.
        assert_eq!(u_distribution(3, 3), vec![1, 1, 2, 3, 3, 3, 3, 2, 1, 1]);
        assert_eq!(u_distribution(4, 4).iter().sum::<i128>(), 70);
        assert_eq!(
            u_distribution(30, 30).iter().sum::<i128>(),
            118_264_581_564_861_424
        );
    }

    #[test]
    fn interval_ranks_match_the_published_critical_values() {
        // Two-sided 0.05 critical values of U (Mann & Whitney 1947 tables): the interval
        // runs from the (U_crit + 1)-th smallest difference.
        assert_eq!(mann_whitney_rank(3, 3, 0.05), None);
        assert_eq!(mann_whitney_rank(3, 4, 0.05), None);
        assert_eq!(mann_whitney_rank(3, 5, 0.05), Some(1)); // U_crit 0
        assert_eq!(mann_whitney_rank(4, 4, 0.05), Some(1)); // U_crit 0
        assert_eq!(mann_whitney_rank(6, 6, 0.05), Some(6)); // U_crit 5
        assert_eq!(mann_whitney_rank(10, 10, 0.05), Some(24)); // U_crit 23
        assert_eq!(mann_whitney_rank(20, 20, 0.05), Some(128)); // U_crit 127
                                                                // The normal approximation joins on smoothly.
        let exact = mann_whitney_rank(60, 60, 0.05).unwrap() as f64;
        let mn: f64 = 3600.0;
        let approx = mn / 2.0 - Z_975 * (mn * 121.0 / 12.0).sqrt();
        assert!((exact - approx).abs() < 3.0, "{exact} vs {approx}");
    }

    #[test]
    fn the_ratio_is_the_ratio_of_the_medians() {
        let c = compare(
            of_body(BodyKind::Blob),
            &[200.0, 210.0, 190.0, 205.0],
            of_body(BodyKind::Uint8Array),
            &[100.0, 90.0, 110.0, 105.0],
            DEFAULT_HORIZON,
        )
        .unwrap();
        assert!((c.ratio - 202.5 / 102.5).abs() < 1e-12, "{}", c.ratio);
        // 4 against 4: the interval is the extremes of the 16 pairwise ratios.
        assert!((c.ci_low.unwrap() - 190.0 / 110.0).abs() < 1e-9);
        assert!((c.ci_high.unwrap() - 210.0 / 90.0).abs() < 1e-9);
        assert_eq!(c.verdict, Verdict::Faster);
    }

    #[test]
    fn three_against_three_cannot_resolve() {
        let c = compare(
            of_body(BodyKind::Blob),
            &[900.0, 910.0, 905.0],
            of_body(BodyKind::Uint8Array),
            &[100.0, 101.0, 99.0],
            0.05,
        )
        .unwrap();
        assert_eq!(
            (c.ci_low, c.ci_high, c.verdict),
            (None, None, Verdict::NotResolved)
        );
        assert!(compare(
            of_body(BodyKind::Blob),
            &[1.0, 2.0],
            of_body(BodyKind::Uint8Array),
            &[1.0, 2.0, 3.0],
            0.05
        )
        .is_none());
    }

    #[test]
    fn verdicts_follow_the_interval_and_the_horizon() {
        let h = 1.05f64.ln();
        assert_eq!(judge(0.10, 0.30, h), Verdict::Faster);
        assert_eq!(judge(-0.30, -0.10, h), Verdict::Slower);
        assert_eq!(judge(-0.02, 0.03, h), Verdict::Same);
        assert_eq!(
            judge(0.01, 0.03, h),
            Verdict::Same,
            "inside the horizon wins"
        );
        assert_eq!(judge(0.01, 0.09, h), Verdict::Faster);
        assert_eq!(judge(-0.02, 0.09, h), Verdict::NotResolved);
    }
}
