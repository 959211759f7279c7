//! Ratios between runs, with intervals that are honest about the runs themselves.
//!
//! Within a run the arms take turns, so whatever the machine does hits them alike and
//! the rank interval (`compare`) is all there is to it. Two runs are not interleaved:
//! between them the machine changes (load, thermal state, the browser's background
//! work), and every sample of a run shares its run's drift. A rank interval over the
//! pooled samples treats them as independent and calls A/A pairs different far more
//! than 5% of the time (simulation.rs). So a comparison across runs is one of:
//!
//! - **interleaved**: the runs took turns rep by rep (`run --browser-path A
//!   --browser-path B`): as within a run;
//! - **runs as clusters**: with two or more runs on a side, each run is one figure (the
//!   log of its median) and the interval is Student's t on those figures, so it holds
//!   the run-to-run spread as measured;
//! - **one run per side**: the rank interval widened on each side by the drift
//!   allowance (added in quadrature to each half of the interval), the run-to-run drift
//!   this tool assumes of one machine; it is the only case that rests on an assumption,
//!   and the only one that cannot say "same within ±5%" (the allowance alone is wider).

use super::compare::{compare, judge, Comparison, Side, Verdict, ALPHA, MIN_SAMPLES};
use serde::Serialize;

/// Run-to-run drift on one quiet machine, as a standard deviation of a run's log median
/// beyond its sampling error (BENCHMARKS.md, "Across runs": 5.5% measured over 24
/// Chromium runs on 2 cores, rounded up). The allowance covers the drift of two runs,
/// 1.96·√2·σ: on its own it keeps A/A calls at 5% however many reps.
pub const RUN_DRIFT_SD: f64 = 0.06;

/// The allowance, in log units, that widens a one-run-per-side interval on each side.
pub fn drift_allowance() -> f64 {
    Z_975 * std::f64::consts::SQRT_2 * RUN_DRIFT_SD
}

const Z_975: f64 = 1.959_963_984_540_054;

/// How a comparison across runs got its interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Method {
    /// The runs took turns rep by rep: the within-run rank interval.
    Interleaved,
    /// One run per side: the rank interval, widened by `allowance` (a fraction) each way.
    DriftAllowance { allowance: f64 },
    /// Several runs on a side: Student's t on each run's log median.
    Clusters { runs: usize, baseline_runs: usize },
}

/// A comparison across runs, and how it was made.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Across {
    #[serde(flatten)]
    pub comparison: Comparison,
    pub method: Method,
}

/// `arm`'s runs against `baseline`'s, each run's intact Mbps. A run with fewer than
/// `MIN_SAMPLES` is left out (it has no median to speak of); None when a side is left
/// with none.
pub fn compare_runs(
    arm: Side,
    runs: &[Vec<f64>],
    baseline: Side,
    baseline_runs: &[Vec<f64>],
    horizon: f64,
    interleaved: bool,
) -> Option<Across> {
    let usable = |r: &[Vec<f64>]| -> Vec<Vec<f64>> {
        r.iter()
            .map(|v| {
                v.iter()
                    .copied()
                    .filter(|x| x.is_finite() && *x > 0.0)
                    .collect::<Vec<_>>()
            })
            .filter(|v| v.len() >= MIN_SAMPLES)
            .collect()
    };
    let (x, y) = (usable(runs), usable(baseline_runs));
    match (x.len(), y.len()) {
        (0, _) | (_, 0) => None,
        (1, 1) => {
            let c = compare(arm, &x[0], baseline, &y[0], horizon)?;
            Some(if interleaved {
                Across {
                    comparison: c,
                    method: Method::Interleaved,
                }
            } else {
                widened(c, drift_allowance())
            })
        }
        _ => Some(clusters(arm, &x, baseline, &y, horizon)),
    }
}

/// The rank interval widened by `d` (log units) each way, in quadrature with each of
/// its halves (sampling error and drift are independent), and judged again.
fn widened(mut c: Comparison, d: f64) -> Across {
    if let (Some(lo), Some(hi)) = (c.ci_low, c.ci_high) {
        let mid = c.ratio.ln();
        let wider = |half: f64| half.hypot(d);
        let (lo, hi) = (mid - wider(mid - lo.ln()), mid + wider(hi.ln() - mid));
        c.ci_low = Some(lo.exp());
        c.ci_high = Some(hi.exp());
        c.verdict = judge(lo, hi, (1.0 + c.horizon).ln());
    }
    Across {
        comparison: c,
        method: Method::DriftAllowance {
            allowance: d.exp() - 1.0,
        },
    }
}

/// Each run one figure, its log median; the difference of the sides' means with
/// Welch's t interval (its degrees of freedom rounded down) when both sides have two
/// runs or more, else the pooled-variance one on k_a + k_b − 2. Welch is the wider of
/// the two when the sides' spreads agree, and stays honest when one side's runs
/// scatter more than the other's.
fn clusters(arm: Side, x: &[Vec<f64>], baseline: Side, y: &[Vec<f64>], horizon: f64) -> Across {
    let figures = |runs: &[Vec<f64>]| -> Vec<f64> {
        runs.iter()
            .filter_map(|r| super::median(r).map(f64::ln))
            .collect()
    };
    let (a, b) = (figures(x), figures(y));
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let squares = |v: &[f64]| {
        let m = mean(v);
        v.iter().map(|x| (x - m).powi(2)).sum::<f64>()
    };
    let (ka, kb) = (a.len() as f64, b.len() as f64);
    let shift = mean(&a) - mean(&b);
    let (se, df) = if a.len() >= 2 && b.len() >= 2 {
        let (va, vb) = (squares(&a) / (ka - 1.0) / ka, squares(&b) / (kb - 1.0) / kb);
        let df = (va + vb).powi(2) / (va * va / (ka - 1.0) + vb * vb / (kb - 1.0));
        // All runs alike (df NaN): the fewest degrees of freedom either side has.
        let df = if df.is_finite() {
            df
        } else {
            (ka.min(kb) - 1.0).max(1.0)
        };
        ((va + vb).sqrt(), df.floor().max(1.0) as usize)
    } else {
        let df = a.len() + b.len() - 2;
        let sd = ((squares(&a) + squares(&b)) / df as f64).sqrt();
        (sd * (1.0 / ka + 1.0 / kb).sqrt(), df)
    };
    let half = t_975(df) * se;
    let (lo, hi) = (shift - half, shift + half);
    Across {
        comparison: Comparison {
            arm,
            baseline,
            ratio: shift.exp(),
            ci_low: Some(lo.exp()),
            ci_high: Some(hi.exp()),
            horizon,
            verdict: judge(lo, hi, (1.0 + horizon).ln()),
            blocks: None,
            parts: Vec::new(),
        },
        method: Method::Clusters {
            runs: a.len(),
            baseline_runs: b.len(),
        },
    }
}

/// Student's t 0.975 quantile. A table to 30 degrees of freedom, then the
/// Cornish–Fisher expansion (error below 1e-4 there); one quantile is not worth a crate.
pub fn t_975(df: usize) -> f64 {
    const TABLE: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    const { assert!(ALPHA == 0.05, "the table is of the 95% quantile") };
    match df {
        0 => f64::INFINITY,
        1..=30 => TABLE[df - 1],
        _ => {
            let (z, n) = (Z_975, df as f64);
            z + (z.powi(3) + z) / (4.0 * n)
                + (5.0 * z.powi(5) + 16.0 * z.powi(3) + 3.0 * z) / (96.0 * n * n)
        }
    }
}

/// The verdict of a comparison whose runs ran on a machine that differed: none.
pub fn not_comparable(mut a: Across) -> Across {
    a.comparison.verdict = Verdict::NotComparable;
    a
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::arm::BodyKind;
    use crate::stats::side::of_body;

    fn side() -> (Side, Side) {
        (of_body(BodyKind::Blob), of_body(BodyKind::Blob))
    }

    #[test]
    fn t_quantiles_join_the_normal() {
        assert_eq!(t_975(1), 12.706);
        assert!((t_975(31) - 2.0395).abs() < 1e-3, "{}", t_975(31));
        assert!((t_975(120) - 1.9799).abs() < 1e-3);
        assert!(t_975(0).is_infinite());
    }

    #[test]
    fn one_run_a_side_is_widened_by_the_allowance_and_cannot_say_same() {
        let (a, b) = side();
        let same = vec![1000.0, 1001.0, 999.0, 1000.5, 999.5, 1000.2];
        let one = std::slice::from_ref(&same);
        let c = compare_runs(a, one, b, one, 0.05, false).unwrap();
        let d = drift_allowance();
        assert!(d > 1.05f64.ln(), "wider than the horizon on its own");
        assert!(c.comparison.ci_low.unwrap() < (-d).exp() * 1.0001);
        assert_eq!(c.comparison.verdict, Verdict::NotResolved);
        assert!(matches!(c.method, Method::DriftAllowance { .. }));
        // Interleaved runs keep the within-run interval, which can.
        let (a, b) = side();
        let i = compare_runs(a, one, b, one, 0.05, true).unwrap();
        assert_eq!(i.comparison.verdict, Verdict::Same);
        assert_eq!(i.method, Method::Interleaved);
    }

    #[test]
    fn several_runs_a_side_use_the_spread_of_their_medians() {
        let (a, b) = side();
        let run = |m: f64| vec![m, m * 1.01, m * 0.99];
        let c = compare_runs(
            a,
            &[run(700.0), run(710.0), run(690.0)],
            b,
            &[run(1000.0), run(1010.0), run(990.0), vec![5.0]],
            0.05,
            false,
        )
        .unwrap();
        assert_eq!(
            c.method,
            Method::Clusters {
                runs: 3,
                baseline_runs: 3
            },
            "a run of one sample is left out"
        );
        assert!((c.comparison.ratio - 0.7).abs() < 0.01);
        assert_eq!(c.comparison.verdict, Verdict::Slower);
    }
}
