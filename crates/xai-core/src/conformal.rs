//! Split-conformal intervals for a new row's value of any per-row quantity, e.g. a
//! feature's Shapley value φ_j(x) (watson2023 Theorem 5.1).
//!
//! From n calibration values φ⁽¹⁾, …, φ⁽ⁿ⁾: μ = (1/n)·Σ_i φ⁽ⁱ⁾, δ⁽ⁱ⁾ = |φ⁽ⁱ⁾ − μ| and
//! τ = the q-th smallest δ with q = ⌈(n + 1)(1 − α)⌉. If the calibration values and
//! the new value are exchangeable, P(φ_new ∈ [μ − τ, μ + τ]) ≥ 1 − α, and
//! ≤ 1 − α + 1/(n + 1) when there are no ties (continuous values). (The paper states
//! the theorem for n/2 calibration rows out of n, hence its 2/(n + 2).)

use crate::error::{CoreError, Result};

/// The interval [μ − τ, μ + τ] of watson2023 Theorem 5.1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConformalInterval {
    /// μ, the mean of the calibration values.
    pub center: f64,
    /// τ, the ⌈(n + 1)(1 − α)⌉-th smallest |φ⁽ⁱ⁾ − μ| over the calibration values.
    pub margin: f64,
}

impl ConformalInterval {
    /// Whether `value` lies in the closed interval: |value − μ| ≤ τ.
    pub fn contains(&self, value: f64) -> bool {
        (value - self.center).abs() <= self.margin
    }
}

/// The split-conformal interval of watson2023 Theorem 5.1 from `calibration`
/// (n values): μ = mean, τ = the q-th smallest |φ⁽ⁱ⁾ − μ|, q = ⌈(n + 1)(1 − α)⌉.
/// Its coverage of a new exchangeable value is at least 1 − α.
///
/// Errors: α ∉ (0, 1); a NaN or infinite value (named by its index); q > n, i.e. fewer
/// than ⌈(1 − α)/α⌉ calibration values (the message gives the number needed).
pub fn conformal_interval(calibration: &[f64], alpha: f64) -> Result<ConformalInterval> {
    check(calibration, alpha)?;
    let n = calibration.len();
    let q = rank(n, alpha).map_err(|needed| {
        CoreError::Data(format!(
            "a split-conformal interval at α = {alpha} needs at least {needed} calibration \
             values (q = ⌈(n + 1)(1 − α)⌉ must not exceed n = {n}); add calibration rows \
             or raise α"
        ))
    })?;
    let center = calibration.iter().sum::<f64>() / n as f64;
    let mut deviations: Vec<f64> = calibration.iter().map(|v| (v - center).abs()).collect();
    Ok(ConformalInterval {
        center,
        margin: kth_smallest(&mut deviations, q),
    })
}

/// The split-conformal coverage of watson2023 Table 1: the interval of
/// [`conformal_interval`] calibrated on `calibration`, and the share of `new` values
/// (rows not used to calibrate) it contains. For new values exchangeable with the
/// calibration values its expectation lies in [1 − α, 1 − α + 1/(n + 1)] (n
/// calibration values, no ties), and it is random: a share of |new| draws around the
/// interval's own coverage F(τ), which itself varies with the calibration set. So it
/// can fall below 1 − α where the two sets are not exchangeable (a model that
/// explains its calibration rows differently from new ones), which a leave-one-out
/// share over one set, ≈ q/n by construction, cannot.
///
/// Errors: those of [`conformal_interval`]; no new values; a NaN or infinite new value.
pub fn split_coverage(
    calibration: &[f64],
    new: &[f64],
    alpha: f64,
) -> Result<(ConformalInterval, f64)> {
    let interval = conformal_interval(calibration, alpha)?;
    if new.is_empty() {
        return Err(CoreError::Data(
            "split-conformal coverage needs new values besides the calibration values".into(),
        ));
    }
    check(new, alpha)?;
    let covered = new.iter().filter(|&&v| interval.contains(v)).count();
    Ok((interval, covered as f64 / new.len() as f64))
}

/// q = ⌈(n + 1)(1 − α)⌉ for α ∈ (0, 1), or `Err(least n that works)` = ⌈(1 − α)/α⌉
/// when q > n.
/// A product within 1e-12 (relative) of an integer counts as that integer, so
/// rounding in 1 − α does not move q up by one (⌈10·0.9⌉ = 9, not 10).
fn rank(n: usize, alpha: f64) -> std::result::Result<usize, usize> {
    let ceil = |v: f64| {
        let r = v.round();
        if (v - r).abs() <= 1e-12 * v.abs().max(1.0) {
            r as usize
        } else {
            v.ceil() as usize
        }
    };
    let q = ceil((n + 1) as f64 * (1.0 - alpha));
    if q > n {
        Err(ceil((1.0 - alpha) / alpha))
    } else {
        Ok(q)
    }
}

/// The q-th smallest (1-based) of `values`, reordering them.
fn kth_smallest(values: &mut [f64], q: usize) -> f64 {
    *values.select_nth_unstable_by(q - 1, f64::total_cmp).1
}

/// An error unless α ∈ (0, 1) and every value is finite (naming the first that is not).
fn check(values: &[f64], alpha: f64) -> Result<()> {
    if !(alpha > 0.0 && alpha < 1.0) {
        return Err(CoreError::out_of_range(
            "alpha",
            alpha,
            "in (0, 1): the miscoverage level α",
        ));
    }
    match values.iter().position(|v| !v.is_finite()) {
        Some(i) => Err(CoreError::NonFinite {
            what: "conformal calibration values",
            row: i,
            column: 0,
            value: values[i],
        }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream_rng;
    use crate::test_models::standard_normal;
    use rand::RngExt;

    #[test]
    fn the_margin_is_the_qth_smallest_deviation() {
        // n = 9, α = 0.2: q = ⌈10·0.8⌉ = 8. μ = 0 and the sorted |δ| are
        // 0, 0.5, 1, 2, 4.5, 6, 7, 8, 10: the 8th is 8 (the 7th is 7, the 9th 10).
        let values = [-8.0, -6.0, -4.5, -1.0, 0.0, 0.5, 2.0, 7.0, 10.0];
        let interval = conformal_interval(&values, 0.2).unwrap();
        assert_eq!(interval.center, 0.0);
        assert_eq!(interval.margin, 8.0);
        assert!(interval.contains(-8.0) && interval.contains(8.0) && !interval.contains(8.5));
        // α = 0.1: q = ⌈10·0.9⌉ = 9 (10·0.9 is 9 up to rounding), the largest.
        assert_eq!(conformal_interval(&values, 0.1).unwrap().margin, 10.0);
    }

    #[test]
    fn too_few_calibration_values_or_bad_inputs_are_errors() {
        // α = 0.1 needs n ≥ (1 − α)/α = 9: with 8 values q = ⌈9·0.9⌉ = 9 > 8.
        let err = conformal_interval(&[1.0; 8], 0.1).unwrap_err();
        assert!(
            err.to_string().contains("at least 9 calibration values"),
            "{err}"
        );
        assert!(conformal_interval(&[1.0; 9], 0.1).is_ok());
        assert!(split_coverage(&[1.0; 9], &[], 0.1).is_err());
        assert!(split_coverage(&[1.0; 9], &[f64::INFINITY], 0.1).is_err());
        assert!(conformal_interval(&[], 0.5).is_err());
        for alpha in [0.0, 1.0, -0.1, f64::NAN] {
            assert!(
                conformal_interval(&[1.0; 50], alpha).is_err(),
                "α = {alpha}"
            );
        }
        let err = conformal_interval(&[1.0, f64::NAN, 2.0], 0.5).unwrap_err();
        assert!(matches!(err, CoreError::NonFinite { row: 1, .. }), "{err}");
    }

    /// The mean split coverage over `reps` independent calibration sets of `n` and
    /// new sets of `m` values, the new values scaled by `scale` (1: exchangeable).
    fn mean_split_coverage(
        draw: fn(&mut crate::rng::StreamRng) -> f64,
        (n, m, reps): (usize, usize, u64),
        scale: f64,
        alpha: f64,
    ) -> f64 {
        (0..reps)
            .map(|r| {
                let mut rng = stream_rng(31, r);
                let cal: Vec<f64> = (0..n).map(|_| draw(&mut rng)).collect();
                let new: Vec<f64> = (0..m).map(|_| scale * draw(&mut rng)).collect();
                split_coverage(&cal, &new, alpha).unwrap().1
            })
            .sum::<f64>()
            / reps as f64
    }

    #[test]
    fn split_coverage_of_exchangeable_values_is_nominal_and_can_fail() {
        // Theorem 5.1: E coverage ∈ [1 − α, 1 − α + 1/(n + 1)] = [0.9, 0.9010]. One
        // replicate's coverage has variance ≈ α(1 − α)/(n + 1) (from F(τ)) +
        // α(1 − α)/m (the new draws): sd ≈ 0.0134, so 200 replicates give se ≈ 0.00095.
        let (n, m, reps, alpha) = (1000, 1000, 200, 0.1);
        let se = ((alpha * (1.0 - alpha)) * (1.0 / (n + 1) as f64 + 1.0 / m as f64) / reps as f64)
            .sqrt();
        let normal = |rng: &mut crate::rng::StreamRng| standard_normal(rng);
        let exponential = |rng: &mut crate::rng::StreamRng| -(1.0 - rng.random::<f64>()).ln();
        for draw in [normal as fn(&mut _) -> f64, exponential] {
            let coverage = mean_split_coverage(draw, (n, m, reps), 1.0, alpha);
            let (lo, hi) = (0.9 - 4.0 * se, 0.9 + 1.0 / (n + 1) as f64 + 4.0 * se);
            assert!(
                coverage >= lo && coverage <= hi,
                "{coverage} ∉ [{lo}, {hi}]"
            );
            // New values more spread than the calibration values are not exchangeable
            // with them, and the coverage falls far below 1 − α (P(|Z| ≤ 1.645/1.5)
            // = 0.73 for the normal).
            let wider = mean_split_coverage(draw, (n, m, reps), 1.5, alpha);
            assert!(wider < 0.9 - 0.1, "{wider}");
        }
    }

    #[test]
    fn split_coverage_counts_the_new_values_inside() {
        // μ = 0, τ = 8 (the margin test's values): 2 of the 4 new values lie inside.
        let values = [-8.0, -6.0, -4.5, -1.0, 0.0, 0.5, 2.0, 7.0, 10.0];
        let (interval, coverage) = split_coverage(&values, &[-8.0, 8.0, 8.5, -9.0], 0.2).unwrap();
        assert_eq!((interval.center, interval.margin), (0.0, 8.0));
        assert_eq!(coverage, 0.5);
    }
}
