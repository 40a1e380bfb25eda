//! Point estimates with their uncertainty: mean, standard error, t-interval, the
//! Nadeau–Bengio-corrected interval over refits, and coverage over replicates.

use statrs::distribution::{ContinuousCDF, StudentsT};

/// A point estimate with its standard error and two-sided interval.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Estimate {
    /// The point estimate.
    pub estimate: f64,
    /// Its standard error (NaN when fewer than two values stand behind it).
    pub se: f64,
    /// Lower end of the interval (NaN when `se` is NaN).
    pub lower: f64,
    /// Upper end of the interval (NaN when `se` is NaN).
    pub upper: f64,
    /// How many values stand behind the estimate.
    pub n: usize,
}

impl Estimate {
    /// Whether `value` lies in the closed interval [lower, upper].
    pub fn covers(&self, value: f64) -> bool {
        self.lower <= value && value <= self.upper
    }
}

/// Mean of `values` with the t-interval of molnar2023 Eq. 6–8:
/// V̂ = 1/(n(n−1))·Σᵢ (vᵢ − v̄)², interval v̄ ± t_{1−α/2, n−1}·√V̂ with α = 1 − `level`
/// ([`corrected_t_interval`] with c = 0).
pub fn t_interval(values: &[f64], level: f64) -> Estimate {
    corrected_t_interval(values, 0.0, level)
}

/// The variance correction c the authors of molnar2023 use for bootstrap and
/// subsampling refits alike: n_test/n_train = (1 − 0.632)/0.632 ≈ 0.5823 (Nadeau &
/// Bengio 2003 with a 0.632 training fraction; PAPERS.md §2.1 [code]).
pub const NADEAU_BENGIO_632: f64 = (1.0 - 0.632) / 0.632;

/// Mean of m refit values (learner-PD/PFI, molnar2023 Eq. 9–10) with the corrected
/// t-interval of molnar2023 §2.3 "Variance Estimation" and "Confidence Bands and
/// Intervals" (unnumbered there; Nadeau & Bengio 2003):
/// V̂ = (1/m + c)·s², s² = 1/(m−1)·Σ_d (v_d − v̄)², interval v̄ ± t_{1−α/2, m−1}·√V̂.
/// c = 0 when every refit has fresh training and evaluation data (and for
/// replicates); c = [`NADEAU_BENGIO_632`] corrects for refits that share rows.
pub fn corrected_t_interval(values: &[f64], c: f64, level: f64) -> Estimate {
    let n = values.len();
    let mean = values.iter().sum::<f64>() / n as f64;
    if n < 2 {
        return Estimate {
            estimate: mean,
            se: f64::NAN,
            lower: f64::NAN,
            upper: f64::NAN,
            n,
        };
    }
    let s2 = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    let se = ((1.0 / n as f64 + c) * s2).sqrt();
    let half = t_quantile(1.0 - (1.0 - level) / 2.0, (n - 1) as f64) * se;
    Estimate {
        estimate: mean,
        se,
        lower: mean - half,
        upper: mean + half,
        n,
    }
}

/// How often intervals over replicates contain the truth, and how wide they are.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Coverage {
    /// The share of intervals with lower ≤ truth ≤ upper, with its Monte-Carlo
    /// t-interval over replicates (se ≈ √(p(1 − p)/R)).
    pub coverage: Estimate,
    /// The mean width upper − lower, with its Monte-Carlo t-interval.
    pub width: Estimate,
}

/// The coverage summary of intervals I_k for true values θ_k (one each, or one for
/// all when `truths` has a single entry): the mean of the indicators 1[lower_k ≤ θ_k ≤
/// upper_k] and of the widths, each with its t-interval over the k at `level` (over
/// replicates of one estimand, the Monte-Carlo interval of the coverage). An interval
/// that could not be formed (NaN ends) counts as not covering.
pub fn coverage(intervals: &[Estimate], truths: &[f64], level: f64) -> Coverage {
    assert!(
        truths.len() == 1 || truths.len() == intervals.len(),
        "one truth, or one per interval"
    );
    let hits: Vec<f64> = intervals
        .iter()
        .zip(truths.iter().cycle())
        .map(|(e, &t)| f64::from(u8::from(e.covers(t))))
        .collect();
    let widths: Vec<f64> = intervals.iter().map(|e| e.upper - e.lower).collect();
    Coverage {
        coverage: t_interval(&hits, level),
        width: t_interval(&widths, level),
    }
}

/// The p-quantile of Student's t with `df` degrees of freedom.
pub fn t_quantile(p: f64, df: f64) -> f64 {
    StudentsT::new(0.0, 1.0, df)
        .expect("df >= 1 is guaranteed by the caller")
        .inverse_cdf(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantile_matches_r() {
        // R: qt(0.975, 9) = 2.262157
        assert!((t_quantile(0.975, 9.0) - 2.262157).abs() < 1e-6);
    }

    #[test]
    fn interval_of_known_values() {
        let e = t_interval(&[1.0, 2.0, 3.0, 4.0], 0.95);
        assert_eq!(e.estimate, 2.5);
        let se = (5.0f64 / 12.0).sqrt(); // sd₁² = 5/3, /n = 5/12
        assert!((e.se - se).abs() < 1e-15);
        // R: qt(0.975, 3) = 3.182446
        assert!((e.upper - (2.5 + 3.182446 * se)).abs() < 1e-5);
        assert!(e.covers(2.5) && !e.covers(10.0));
    }

    #[test]
    fn the_nadeau_bengio_variance_is_one_over_m_plus_c_times_the_sample_variance() {
        let v = [1.0, 2.0, 3.0, 4.0];
        let s2 = 5.0 / 3.0;
        let c = NADEAU_BENGIO_632;
        assert!((c - 0.368 / 0.632).abs() < 1e-15 && (c - 0.5823).abs() < 1e-4);
        let e = corrected_t_interval(&v, c, 0.95);
        assert_eq!(e.estimate, 2.5);
        assert!((e.se - ((0.25 + c) * s2).sqrt()).abs() < 1e-15);
        assert!((e.upper - (2.5 + 3.182446 * e.se)).abs() < 1e-5);
        // c = 0 (fresh data per refit) is the plain t-interval.
        assert_eq!(corrected_t_interval(&v, 0.0, 0.95), t_interval(&v, 0.95));
        // The correction widens the interval.
        assert!(e.upper - e.lower > t_interval(&v, 0.95).upper - t_interval(&v, 0.95).lower);
    }

    /// molnar2023 Table 1 "the correction raises every coverage cell" and Fig. 4
    /// "every corrected interval is wider": both hold by construction, for any values.
    #[test]
    fn the_corrected_interval_contains_the_uncorrected_one_and_is_sqrt_1_plus_mc_wider() {
        let mut rng = crate::rng::stream_rng(17, 0);
        for m in [2usize, 5, 15, 30] {
            let v: Vec<f64> = (0..m)
                .map(|_| crate::test_models::standard_normal(&mut rng))
                .collect();
            let (plain, corrected) = (
                t_interval(&v, 0.95),
                corrected_t_interval(&v, NADEAU_BENGIO_632, 0.95),
            );
            assert!(corrected.lower <= plain.lower && plain.upper <= corrected.upper);
            let ratio = (corrected.upper - corrected.lower) / (plain.upper - plain.lower);
            let want = (1.0 + m as f64 * NADEAU_BENGIO_632).sqrt();
            assert!((ratio - want).abs() < 1e-12, "m = {m}: {ratio} vs {want}");
        }
    }

    /// molnar2023 Fig. 5's width claims follow from the interval's formula: the width
    /// is 2·t_{m−1}·√(1/m + c)·s with E s independent of m (up to c₄(m)), so the factor
    /// t_{m−1}·√(1/m + c) decides "width shrinks as m grows", "below ~10 refits
    /// intervals are wide" and "widths plateau above ~20" (corrected intervals).
    #[test]
    fn the_width_factor_falls_with_the_refits_and_plateaus_above_twenty_when_corrected() {
        let factor =
            |m: usize, c: f64| t_quantile(0.975, (m - 1) as f64) * (1.0 / m as f64 + c).sqrt();
        for c in [0.0, NADEAU_BENGIO_632] {
            for m in 2..30 {
                assert!(factor(m + 1, c) < factor(m, c), "c = {c}, m = {m}");
            }
            // From 2 to 10 refits the width falls by far more than half.
            assert!(factor(10, c) < 0.2 * factor(2, c));
        }
        let c = NADEAU_BENGIO_632;
        // Corrected: 3.6% narrower from 20 to 30 refits; uncorrected: 20%.
        assert!(factor(30, c) > 0.95 * factor(20, c));
        assert!(factor(30, 0.0) < 0.85 * factor(20, 0.0));
    }

    fn interval(lower: f64, upper: f64) -> Estimate {
        Estimate {
            estimate: (lower + upper) / 2.0,
            se: 1.0,
            lower,
            upper,
            n: 2,
        }
    }

    #[test]
    fn coverage_of_constructed_intervals() {
        // 7 of 10 intervals contain 0 (one of them at its edge); widths 1..10.
        let intervals: Vec<Estimate> = (0..10)
            .map(|k| {
                let w = (k + 1) as f64;
                match k {
                    0..=5 => interval(-w / 2.0, w / 2.0),
                    6 => interval(0.0, w),
                    _ => interval(1.0, 1.0 + w),
                }
            })
            .collect();
        let c = coverage(&intervals, &[0.0], 0.95);
        assert_eq!(c.coverage.estimate, 0.7);
        assert!((c.coverage.se - (0.7f64 * 0.3 / 9.0).sqrt()).abs() < 1e-12);
        assert_eq!(c.width.estimate, 5.5);
        assert_eq!(c.coverage.n, 10);
        // An interval that could not be formed does not cover.
        let missing = Estimate {
            lower: f64::NAN,
            upper: f64::NAN,
            ..interval(0.0, 0.0)
        };
        assert_eq!(coverage(&[missing], &[0.0], 0.95).coverage.estimate, 0.0);
        // One truth per interval.
        let two = [interval(0.0, 1.0), interval(2.0, 3.0)];
        assert_eq!(coverage(&two, &[0.5, 0.5], 0.95).coverage.estimate, 0.5);
        assert_eq!(coverage(&two, &[0.5, 2.5], 0.95).coverage.estimate, 1.0);
    }

    #[test]
    fn t_intervals_of_normal_samples_cover_the_mean_95_percent_of_the_time() {
        use rand::RngExt;
        use rand_distr::StandardNormal;
        let mut rng = crate::rng::stream_rng(11, 0);
        let intervals: Vec<Estimate> = (0..4000)
            .map(|_| {
                let v: Vec<f64> = (0..8).map(|_| rng.sample(StandardNormal)).collect();
                t_interval(&v, 0.95)
            })
            .collect();
        let c = coverage(&intervals, &[0.0], 0.95);
        // MC se = √(0.95·0.05/4000) ≈ 0.0034: within 4 se.
        assert!((c.coverage.estimate - 0.95).abs() < 0.014, "{c:?}");
        // And an interval with the wrong centre covers less.
        assert!(coverage(&intervals, &[0.5], 0.95).coverage.estimate < 0.8);
    }

    #[test]
    fn single_value_has_no_interval() {
        let e = t_interval(&[3.0], 0.95);
        assert_eq!(e.estimate, 3.0);
        assert!(e.se.is_nan() && !e.covers(3.0));
    }
}
