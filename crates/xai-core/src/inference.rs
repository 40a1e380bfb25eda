//! Point estimates with their uncertainty: mean, standard error, t-interval.

use statrs::distribution::{ContinuousCDF, StudentsT};

/// A point estimate with its standard error and two-sided interval.
#[derive(Debug, Clone, Copy, PartialEq)]
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
/// V̂ = 1/(n(n−1))·Σᵢ (vᵢ − v̄)², interval v̄ ± t_{1−α/2, n−1}·√V̂ with α = 1 − `level`.
pub fn t_interval(values: &[f64], level: f64) -> Estimate {
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
    let ss: f64 = values.iter().map(|v| (v - mean).powi(2)).sum();
    let se = (ss / ((n * (n - 1)) as f64)).sqrt();
    let half = t_quantile(1.0 - (1.0 - level) / 2.0, (n - 1) as f64) * se;
    Estimate {
        estimate: mean,
        se,
        lower: mean - half,
        upper: mean + half,
        n,
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
    fn single_value_has_no_interval() {
        let e = t_interval(&[3.0], 0.95);
        assert_eq!(e.estimate, 3.0);
        assert!(e.se.is_nan() && !e.covers(3.0));
    }
}
