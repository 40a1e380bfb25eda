//! The correlated-Gaussian regression DGP of wood2024 Fig. 4–5 (PAPERS.md §1.4).
//!
//! (X1, X2) and (X3, X4) are standard bivariate normal pairs with correlation ρ,
//! independent of each other and of X5 ~ N(0, 1);
//! Y = X1 + X2 + 0.9·X3² + X4 + X5 + ε, ε ~ N(0, σ²).
//! Per row the draws are z_1..z_5, then e, all N(0, 1) (the peers' W3 order):
//! X1 = z1, X2 = ρ·z1 + √(1−ρ²)·z2, X3 = z3, X4 = ρ·z3 + √(1−ρ²)·z4, X5 = z5, ε = σ·e.

use ndarray::{Array1, Array2, ArrayView2};
use rand::{Rng, RngExt};
use rand_distr::StandardNormal;
use serde::Deserialize;
use xai_core::{Dataset, Target};

use crate::{Dgp, DgpError};

/// Parameters of the correlated-Gaussian DGP.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CorrelatedGaussian {
    /// Var(ε) = σ² (wood2024 Fig. 4: 2; Fig. 5: 0.5, 1, 2). Must be ≥ 0.
    #[schemars(range(min = 0))]
    pub noise_var: f64,
    /// corr(X1, X2) = corr(X3, X4) (wood2024: 0.8). Must lie in (−1, 1).
    #[serde(default = "default_rho")]
    #[schemars(extend("exclusiveMinimum" = -1, "exclusiveMaximum" = 1))]
    pub rho: f64,
}

fn default_rho() -> f64 {
    0.8
}

impl Dgp for CorrelatedGaussian {
    /// Each parameter within the range its field declares
    /// ([`xai_core::settings::check_value`]).
    fn validate(&self) -> Result<(), DgpError> {
        Ok(xai_core::settings::check_value(self)?)
    }

    fn feature_names(&self) -> Vec<String> {
        (1..=5).map(|j| format!("X{j}")).collect()
    }

    fn sample(&self, n: usize, rng: &mut dyn Rng) -> Result<Dataset, DgpError> {
        let s = (1.0 - self.rho * self.rho).sqrt();
        let sigma = self.noise_var.sqrt();
        let mut x = Array2::zeros((n, 5));
        let mut y = Array1::zeros(n);
        for i in 0..n {
            let z: [f64; 6] = std::array::from_fn(|_| rng.sample(StandardNormal));
            let row = [
                z[0],
                self.rho * z[0] + s * z[1],
                z[2],
                self.rho * z[2] + s * z[3],
                z[4],
            ];
            for (j, v) in row.iter().enumerate() {
                x[[i, j]] = *v;
            }
            y[i] = mean_of(&row) + sigma * z[5];
        }
        Dataset::new(x, Target::Continuous(y), self.feature_names()).map_err(DgpError::rows)
    }

    fn conditional_mean(&self, x: ArrayView2<'_, f64>) -> Array1<f64> {
        x.rows()
            .into_iter()
            .map(|r| mean_of(&[r[0], r[1], r[2], r[3], r[4]]))
            .collect()
    }

    fn conditional_variance(&self, x: ArrayView2<'_, f64>) -> Array1<f64> {
        Array1::from_elem(x.nrows(), self.noise_var)
    }
}

/// E[Y | x] = x1 + x2 + 0.9·x3² + x4 + x5.
fn mean_of(x: &[f64; 5]) -> f64 {
    x[0] + x[1] + 0.9 * x[2] * x[2] + x[3] + x[4]
}

#[cfg(test)]
mod tests {
    use super::*;
    use xai_core::rng::stream_rng;

    #[test]
    fn moments_match_the_definition() {
        let dgp = CorrelatedGaussian {
            noise_var: 2.0,
            rho: 0.8,
        };
        let data = dgp.sample(40_000, &mut stream_rng(1, 0)).unwrap();
        let x = data.x();
        let n = x.nrows() as f64;
        let corr = |a: usize, b: usize| x.column(a).dot(&x.column(b)) / n;
        // Unit variances, corr 0.8 within pairs, 0 across; MC sd ≈ 1/√n·√(1+ρ²) ≈ 0.007.
        assert!((corr(0, 0) - 1.0).abs() < 0.03 && (corr(4, 4) - 1.0).abs() < 0.03);
        assert!((corr(0, 1) - 0.8).abs() < 0.03 && (corr(2, 3) - 0.8).abs() < 0.03);
        assert!(corr(0, 2).abs() < 0.03 && corr(1, 4).abs() < 0.03);
        // Residual variance Y − E[Y|X] is σ² = 2.
        let Target::Continuous(y) = data.y() else {
            unreachable!()
        };
        let resid = y - &dgp.conditional_mean(x);
        let var = resid.dot(&resid) / n;
        assert!((var - 2.0).abs() < 0.06, "residual variance {var}");
        assert_eq!(dgp.conditional_variance(x)[0], 2.0);
    }

    /// Each parameter's range is declared on its field; a node outside it is refused
    /// by name before a DGP is built, and a DGP built in Rust outside it by `validate`.
    #[test]
    fn a_parameter_outside_its_declared_range_is_named() {
        use xai_core::settings::check_ranges;
        let check = |v: serde_json::Value| check_ranges::<CorrelatedGaussian>(&v);
        let e = check(serde_json::json!({"noise_var": -1.0, "rho": 0.8})).unwrap_err();
        assert_eq!(e.to_string(), "noise_var is -1, outside its range ≥ 0");
        for rho in [1.0, -1.0] {
            let e = check(serde_json::json!({"noise_var": 1.0, "rho": rho})).unwrap_err();
            assert_eq!((e.path.as_str(), e.range.as_str()), ("rho", "(-1, 1)"));
        }
        assert_eq!(
            check(serde_json::json!({"noise_var": 0.0, "rho": -0.99})),
            Ok(())
        );
        // A DGP built in Rust checks itself against the same declaration.
        let built = CorrelatedGaussian {
            noise_var: f64::NAN,
            rho: 0.8,
        };
        assert_eq!(
            built.validate().unwrap_err().to_string(),
            "`noise_var` = NaN is invalid: must be ≥ 0"
        );
    }
}
