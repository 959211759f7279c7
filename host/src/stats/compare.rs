//! Ratios between arms with bootstrap confidence intervals, and verdicts in words.
//! "faster" or "slower" only when the 95% interval excludes 1; otherwise "within noise".
//! This is what would have caught the write-up's 13% single-run "win".

use super::{median, quantile};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;

pub const RESAMPLES: usize = 2000;
/// Fewest samples per arm for an interval.
pub const MIN_SAMPLES: usize = 3;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    pub body: String,
    pub baseline: String,
    /// median(arm) / median(baseline)
    pub ratio: f64,
    pub ci_low: f64,
    pub ci_high: f64,
    pub verdict: Verdict,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    Faster,
    Slower,
    WithinNoise,
}

impl Verdict {
    pub fn words(self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::WithinNoise => "within noise",
        }
    }
}

/// Compares `arm` against `baseline` (both Mbps samples). The seed is fixed so a
/// report regenerated from the store shows the same interval.
pub fn compare(
    body: &str,
    arm: &[f64],
    baseline_name: &str,
    baseline: &[f64],
) -> Option<Comparison> {
    // With two samples a bootstrap has four distinct resamples: its "interval" would
    // look precise and mean nothing.
    if arm.len() < MIN_SAMPLES || baseline.len() < MIN_SAMPLES {
        return None;
    }
    let ratio = median(arm)? / median(baseline)?;
    let mut rng = StdRng::seed_from_u64(0x756e_6f62_7365_7276);
    let mut resample = |v: &[f64], out: &mut Vec<f64>| {
        out.clear();
        out.extend((0..v.len()).map(|_| v[rng.random_range(0..v.len())]));
        out.sort_by(f64::total_cmp);
        quantile(out, 0.5).unwrap_or(f64::NAN)
    };
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let mut ratios: Vec<f64> = (0..RESAMPLES)
        .map(|_| resample(arm, &mut a) / resample(baseline, &mut b))
        .collect();
    ratios.retain(|r| r.is_finite());
    ratios.sort_by(f64::total_cmp);
    let (ci_low, ci_high) = (quantile(&ratios, 0.025)?, quantile(&ratios, 0.975)?);
    let verdict = if ci_low > 1.0 {
        Verdict::Faster
    } else if ci_high < 1.0 {
        Verdict::Slower
    } else {
        Verdict::WithinNoise
    };
    Some(Comparison {
        body: body.into(),
        baseline: baseline_name.into(),
        ratio,
        ci_low,
        ci_high,
        verdict,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;

    /// Normal-ish noise (sum of uniforms) around `mean`, like repeated uploads.
    fn noisy(rng: &mut StdRng, mean: f64, spread: f64, n: usize) -> Vec<f64> {
        (0..n)
            .map(|_| mean + spread * ((0..6).map(|_| rng.random::<f64>()).sum::<f64>() - 3.0))
            .collect()
    }

    #[test]
    fn ratio_of_medians_is_exact() {
        let c = compare(
            "Blob",
            &[200.0, 210.0, 190.0],
            "Uint8Array",
            &[100.0, 90.0, 110.0],
        )
        .unwrap();
        assert_eq!(c.ratio, 2.0);
        assert_eq!(c.verdict, Verdict::Faster);
        assert!(c.ci_low > 1.0 && c.ci_high >= c.ci_low);
    }

    #[test]
    fn a_a_comparisons_come_out_within_noise() {
        // The same arm measured twice under two labels: a 95% interval should call a
        // difference at most about 5% of the time. Over 200 seeded trials, allow 10%.
        let mut rng = StdRng::seed_from_u64(7);
        let resolved = (0..200)
            .filter(|_| {
                let a = noisy(&mut rng, 1800.0, 150.0, 12);
                let a2 = noisy(&mut rng, 1800.0, 150.0, 12);
                compare("Blob (again)", &a2, "Blob", &a).unwrap().verdict != Verdict::WithinNoise
            })
            .count();
        assert!(
            resolved <= 20,
            "{resolved} of 200 A/A comparisons claimed a difference"
        );
    }

    #[test]
    fn clearly_different_arms_resolve() {
        let mut rng = StdRng::seed_from_u64(9);
        let slow = noisy(&mut rng, 100.0, 10.0, 6);
        let fast = noisy(&mut rng, 1800.0, 150.0, 6);
        assert_eq!(
            compare("Uint8Array", &slow, "Blob", &fast).unwrap().verdict,
            Verdict::Slower
        );
        assert_eq!(
            compare("Blob", &fast, "Uint8Array", &slow).unwrap().verdict,
            Verdict::Faster
        );
        // A 1.3x difference with moderate noise resolves too, given enough reps.
        let base = noisy(&mut rng, 600.0, 40.0, 12);
        let better = noisy(&mut rng, 800.0, 50.0, 12);
        assert_eq!(
            compare("Blob", &better, "Uint8Array", &base)
                .unwrap()
                .verdict,
            Verdict::Faster
        );
    }

    #[test]
    fn one_sample_is_not_enough_to_compare() {
        assert!(compare("Blob", &[1.0], "Uint8Array", &[1.0, 2.0, 3.0]).is_none());
        assert!(compare("Blob", &[1.0, 2.0], "Uint8Array", &[1.0, 2.0, 3.0]).is_none());
    }
}
