//! Order statistics of the m·n pairwise differences `x_i - y_j`, without building them.
//!
//! The Hodges–Lehmann shift and the Mann–Whitney interval are ranks among those
//! differences. Sorting the whole matrix cost m·n·8 bytes (1.2 GB at 10k samples per
//! arm; 20k aborted). Here the k-th smallest is found by bisecting the f64 total order
//! for the smallest t with at least k differences <= t; each step counts them in one
//! O(m + n) sweep and halves a 64-bit key range. Once few enough candidates are left
//! (at most max(2(m + n), 4096)), they are collected and the rank selected among them.
//! So at most 64 sweeps, O((m + n) · 64) time, O(m + n) memory; small comparisons go
//! straight to the selection.
//!
//! The values are the same rounded `fl(a - b)` the matrix held, so results are
//! bit-identical to sorting it (stored reports do not change). The sweep is exact
//! because IEEE rounding is monotone: `fl(a - b)` never falls as `a` rises nor rises as
//! `b` rises, signed zeros included, under `f64::total_cmp`.

/// Candidates few enough to collect, whatever the arms' sizes (32 KiB).
const COLLECT_FLOOR: usize = 4096;

/// `v` as an unsigned key ordered like `f64::total_cmp`.
fn key(v: f64) -> u64 {
    let bits = v.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    }
}

fn from_key(k: u64) -> f64 {
    f64::from_bits(if k >> 63 == 1 { k & !(1 << 63) } else { !k })
}

/// For each `a` in `x`, the first index into `y` from which every `a - b` has a key
/// <= `t`. For one `a` those `b` are a suffix of `y` (the difference falls as `b` rises),
/// and the suffix starts no earlier for a larger `a`: one pass over each side.
fn suffix_starts<'a>(x: &'a [f64], y: &'a [f64], t: u64) -> impl Iterator<Item = usize> + 'a {
    let mut j = 0;
    x.iter().map(move |&a| {
        while j < y.len() && key(a - y[j]) > t {
            j += 1;
        }
        j
    })
}

/// How many `a - b` have a key <= `t`; `x` and `y` ascending.
fn count_at_most(x: &[f64], y: &[f64], t: u64) -> usize {
    suffix_starts(x, y, t).map(|j| y.len() - j).sum()
}

/// Every `a - b` whose key lies in [lo, hi] (lo > 0).
fn collect_between(x: &[f64], y: &[f64], lo: u64, hi: u64) -> Vec<f64> {
    let mut out = Vec::new();
    let below = suffix_starts(x, y, lo - 1);
    for ((&a, from), to) in x.iter().zip(suffix_starts(x, y, hi)).zip(below) {
        out.extend(y[from..to].iter().map(|b| a - b));
    }
    out
}

/// The k-th smallest (1-based) of every `a - b`, `a` in `x`, `b` in `y`: exactly
/// `diffs[k - 1]` of the sorted matrix. `x` and `y` are ascending (`total_cmp`) and
/// finite (an infinity would make `inf - inf` a NaN, outside the order).
pub fn kth_difference(x: &[f64], y: &[f64], k: usize) -> f64 {
    kth_collecting_below(x, y, k, COLLECT_FLOOR.max(2 * (x.len() + y.len())))
}

/// `kth_difference`, collecting once at most `limit` candidates are left (the tests
/// vary it, so that both the bisection and the selection are checked at every size).
fn kth_collecting_below(x: &[f64], y: &[f64], k: usize, limit: usize) -> f64 {
    let total = x.len() * y.len();
    assert!(k >= 1 && k <= total, "rank {k} of {total}");
    debug_assert!(x.is_sorted_by(|a, b| a.total_cmp(b).is_le()));
    debug_assert!(y.is_sorted_by(|a, b| a.total_cmp(b).is_le()));
    // The answer's key is in [lo, hi]; `below` differences lie under lo and `upto` at or
    // under hi. The smallest and largest differences bound the start.
    let (mut lo, mut hi) = (key(x[0] - y[y.len() - 1]), key(x[x.len() - 1] - y[0]));
    let (mut below, mut upto) = (0, total);
    while lo < hi && upto - below > limit {
        let mid = lo + (hi - lo) / 2;
        let count = count_at_most(x, y, mid);
        if count >= k {
            (hi, upto) = (mid, count);
        } else {
            (lo, below) = (mid + 1, count);
        }
    }
    if lo == hi {
        // Every candidate left is this one value.
        return from_key(lo);
    }
    // lo > 0: it only rose from the smallest difference's key, and 0 is no finite key.
    let mut left = collect_between(x, y, lo, hi);
    let (_, kth, _) = left.select_nth_unstable_by(k - below - 1, f64::total_cmp);
    *kth
}

/// The median of every `a - b`, interpolated exactly as `super::quantile` does on the
/// sorted matrix. None when either side is empty.
pub fn median_difference(x: &[f64], y: &[f64]) -> Option<f64> {
    super::quantile_by(x.len() * y.len(), 0.5, |i| kth_difference(x, y, i + 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::arm::BodyKind;
    use crate::stats::compare::{compare, judge, mann_whitney_rank, Comparison, Verdict, ALPHA};
    use crate::stats::side::of_body;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    /// The old way, kept as the oracle: every difference, sorted.
    fn matrix(x: &[f64], y: &[f64]) -> Vec<f64> {
        let mut d: Vec<f64> = x
            .iter()
            .flat_map(|a| y.iter().map(move |b| a - b))
            .collect();
        d.sort_by(f64::total_cmp);
        d
    }

    fn sorted(mut v: Vec<f64>) -> Vec<f64> {
        v.sort_by(f64::total_cmp);
        v
    }

    /// `len` values of one of several shapes: continuous, heavy ties, runs of one
    /// duplicated value, and raw values across signs, zeros of both signs and subnormals.
    fn values(rng: &mut StdRng, len: usize, shape: u32) -> Vec<f64> {
        let raw = [-0.0, 0.0, 5e-324, -5e-324, 1e-300, -2.5, 3.0, 1e300, -1e300];
        let dup = rng.random_range(1.0..1000.0f64).ln();
        (0..len)
            .map(|_| match shape {
                0 => rng.random_range(1.0..2000.0f64).ln(),
                1 => (rng.random_range(1..6) as f64 * 100.0).ln(),
                2 if rng.random_bool(0.6) => dup,
                2 => rng.random_range(1.0..1000.0f64).ln(),
                _ => raw[rng.random_range(0..raw.len())],
            })
            .collect()
    }

    fn bits_eq(got: f64, want: f64) -> bool {
        got.to_bits() == want.to_bits()
    }

    #[test]
    fn every_rank_matches_the_sorted_matrix() {
        let mut rng = StdRng::seed_from_u64(20_240_611);
        for case in 0..400 {
            let (m, n) = (rng.random_range(3..=20), rng.random_range(3..=20));
            let shape = case % 4;
            let x = sorted(values(&mut rng, m, shape));
            let y = sorted(values(&mut rng, n, shape));
            let d = matrix(&x, &y);
            // 0: bisection alone; 7: bisection, then a few collected; default: collected.
            for limit in [0, 7, COLLECT_FLOOR] {
                for k in 1..=m * n {
                    let got = kth_collecting_below(&x, &y, k, limit);
                    let want = d[k - 1];
                    assert!(
                        bits_eq(got, want),
                        "{m}x{n} k={k} limit {limit}: {got} vs {want}"
                    );
                }
            }
        }
    }

    #[test]
    fn sampled_ranks_match_on_larger_and_unequal_arms() {
        let mut rng = StdRng::seed_from_u64(7_001);
        let sizes = (0..200)
            .map(|_| (rng.random_range(3..=60), rng.random_range(3..=60)))
            .chain([(500, 700), (700, 500), (3, 700)]);
        for (case, (m, n)) in sizes.collect::<Vec<_>>().into_iter().enumerate() {
            let shape = case as u32 % 4;
            let x = sorted(values(&mut rng, m, shape));
            let y = sorted(values(&mut rng, n, shape));
            let d = matrix(&x, &y);
            let total = m * n;
            let mut ks = vec![1, 2, total / 2, total / 2 + 1, total - 1, total];
            ks.extend((0..60).map(|_| rng.random_range(1..=total)));
            if let Some(k) = mann_whitney_rank(m, n, ALPHA) {
                ks.extend([k, total - k + 1]);
            }
            for k in ks {
                for limit in [0, 50, 2 * (m + n)] {
                    let got = kth_collecting_below(&x, &y, k, limit);
                    let want = d[k - 1];
                    assert!(
                        bits_eq(got, want),
                        "{m}x{n} k={k} limit {limit}: {got} vs {want}"
                    );
                }
            }
            let want = crate::stats::quantile(&d, 0.5).unwrap();
            let got = median_difference(&x, &y).unwrap();
            assert!(bits_eq(got, want), "{m}x{n} median: {got} vs {want}");
        }
    }

    /// `compare` as it was, by the sorted matrix.
    fn compare_by_matrix(arm: &[f64], base: &[f64], horizon: f64) -> Comparison {
        let logs = |v: &[f64]| -> Vec<f64> {
            v.iter()
                .filter(|x| x.is_finite() && **x > 0.0)
                .map(|x| x.ln())
                .collect()
        };
        let (x, y) = (logs(arm), logs(base));
        let diffs = matrix(&x, &y);
        let ratio = crate::stats::agree::ratio_of_medians(arm, base).unwrap();
        let interval = mann_whitney_rank(x.len(), y.len(), ALPHA)
            .map(|k| (diffs[k - 1], diffs[diffs.len() - k]));
        let agrees = |(lo, hi): (f64, f64)| crate::stats::agree::inside(ratio, lo.exp(), hi.exp());
        Comparison {
            arm: of_body(BodyKind::Blob),
            baseline: of_body(BodyKind::Uint8Array),
            ratio,
            ci_low: interval.map(|i| i.0.exp()),
            ci_high: interval.map(|i| i.1.exp()),
            horizon,
            verdict: interval
                .filter(|&i| agrees(i))
                .map_or(Verdict::NotResolved, |(lo, hi)| {
                    judge(lo, hi, (1.0 + horizon).ln())
                }),
            blocks: None,
            parts: Vec::new(),
        }
    }

    /// Mbps with ties (rounded figures) and the odd unusable sample.
    fn mbps(rng: &mut StdRng, len: usize, mean: f64) -> Vec<f64> {
        (0..len)
            .map(|_| match rng.random_range(0..40) {
                0 => f64::NAN,
                1 => 0.0,
                2..=15 => (mean * rng.random_range(0.9..1.1f64)).round(),
                _ => mean * rng.random_range(0.8..1.2f64),
            })
            .collect()
    }

    #[test]
    fn compare_is_bit_identical_to_the_matrix_version() {
        let mut rng = StdRng::seed_from_u64(42);
        let sizes = (0..300)
            .map(|_| (rng.random_range(3..=60), rng.random_range(3..=60)))
            .chain([(500, 700), (130, 90)]);
        for (m, n) in sizes.collect::<Vec<_>>() {
            let lift = rng.random_range(0.9..1.3);
            let (arm, base) = (mbps(&mut rng, m, 1000.0 * lift), mbps(&mut rng, n, 1000.0));
            let horizon = [0.02, 0.05, 0.1][rng.random_range(0..3)];
            let Some(got) = compare(
                of_body(BodyKind::Blob),
                &arm,
                of_body(BodyKind::Uint8Array),
                &base,
                horizon,
            ) else {
                continue; // fewer than 3 usable samples: nothing to compare
            };
            let want = compare_by_matrix(&arm, &base, horizon);
            assert_eq!(got, want, "{m}x{n}");
            let bits = |c: &Comparison| {
                (
                    c.ratio.to_bits(),
                    c.ci_low.map(f64::to_bits),
                    c.ci_high.map(f64::to_bits),
                )
            };
            assert_eq!(bits(&got), bits(&want), "{m}x{n}");
        }
    }

    #[test]
    fn keys_order_like_total_cmp() {
        let v = [
            f64::NEG_INFINITY,
            -1e300,
            -1.0,
            -5e-324,
            -0.0,
            0.0,
            5e-324,
            1.0,
            f64::MAX,
        ];
        for w in v.windows(2) {
            assert!(key(w[0]) < key(w[1]), "{} {}", w[0], w[1]);
        }
        for x in v {
            assert!(bits_eq(from_key(key(x)), x));
        }
    }
}
