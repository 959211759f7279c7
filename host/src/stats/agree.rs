//! Figures that agree. A report prints each arm's median beside its ratio to the
//! baseline, so the ratio it prints is the ratio of those two medians: a reader can
//! check it by hand, and it can never say "faster" beside a lower median. Its 95%
//! interval stays the exact Mann–Whitney (rank) interval. The two describe different
//! things (the typical pair against the middle upload), and on skewed or bimodal data
//! the medians' ratio can fall outside the rank interval; then the data do not support
//! a clean call, and the comparison is neither judged nor settled.

/// Relative slack for the floating-point gap between a ratio of values and the
/// exponential of a difference of their logarithms (4 against 4: the interval's ends
/// are exactly two of the pairwise ratios).
const SLACK: f64 = 1e-12;

/// The ratio of the arm's median to the baseline's, over the usable values (finite,
/// above zero) the interval is computed from. None when either side has none.
pub fn ratio_of_medians(arm: &[f64], baseline: &[f64]) -> Option<f64> {
    let usable = |v: &[f64]| -> Vec<f64> {
        v.iter()
            .copied()
            .filter(|x| x.is_finite() && *x > 0.0)
            .collect()
    };
    let (a, b) = (
        super::median(&usable(arm))?,
        super::median(&usable(baseline))?,
    );
    Some(a / b)
}

/// Whether the printed ratio lies inside its interval [lo, hi] (all ratios, not logs).
pub fn inside(ratio: f64, lo: f64, hi: f64) -> bool {
    ratio >= lo * (1.0 - SLACK) && ratio <= hi * (1.0 + SLACK)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::arm::BodyKind;
    use crate::stats::compare::{compare, Verdict, DEFAULT_HORIZON};
    use crate::stats::side::of_body;

    #[test]
    fn the_ratio_is_the_medians_ratio() {
        assert_eq!(
            ratio_of_medians(&[200.0, 100.0, 300.0], &[50.0, 150.0, 100.0, 0.0]),
            Some(2.0)
        );
        assert_eq!(ratio_of_medians(&[f64::NAN], &[1.0]), None);
        assert!(inside(1.0, 1.0, 1.0));
        assert!(!inside(0.99, 1.0, 1.2));
    }

    /// 15 against 15, where the rank interval says "faster" while the arm's median is
    /// the lower: the arm's lower half sits just under its median and its upper half far
    /// above; the baseline's lower half spreads wide and its upper half is tight.
    #[test]
    fn a_ratio_outside_its_interval_is_not_judged_and_not_settled() {
        let arm: Vec<f64> = (0..7)
            .map(|i| 999.0 + f64::from(i) * 0.01)
            .chain([1000.0])
            .chain((0..7).map(|i| 1400.0 + f64::from(i)))
            .collect();
        let base: Vec<f64> = (0..7)
            .map(|i| 600.0 + f64::from(i) * 400.0 / 7.0)
            .chain([1001.0])
            .chain((0..7).map(|i| 1001.5 + f64::from(i) * 0.01))
            .collect();
        let c = compare(
            of_body(BodyKind::Blob),
            &arm,
            of_body(BodyKind::Uint8Array),
            &base,
            DEFAULT_HORIZON,
        )
        .unwrap();
        let (lo, hi) = (c.ci_low.unwrap(), c.ci_high.unwrap());
        assert!(c.ratio < 1.0, "the arm's median is the lower: {}", c.ratio);
        assert!(
            lo > 1.05,
            "the rank interval alone would say faster: [{lo}–{hi}]"
        );
        assert!(!inside(c.ratio, lo, hi), "{} [{lo}–{hi}]", c.ratio);
        assert_eq!(c.verdict, Verdict::NotResolved);
        assert!(!c.settled());
    }
}
