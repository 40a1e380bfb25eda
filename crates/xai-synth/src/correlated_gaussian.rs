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
    pub noise_var: f64,
    /// corr(X1, X2) = corr(X3, X4) (wood2024: 0.8). Must lie in (−1, 1).
    #[serde(default = "default_rho")]
    pub rho: f64,
}

fn default_rho() -> f64 {
    0.8
}

impl Dgp for CorrelatedGaussian {
    fn feature_names(&self) -> Vec<String> {
        (1..=5).map(|j| format!("X{j}")).collect()
    }

    /// noise_var finite and ≥ 0, −1 < rho < 1.
    fn validate(&self) -> Result<(), DgpError> {
        if !(self.noise_var >= 0.0 && self.noise_var.is_finite()) {
            return Err(DgpError::out_of_range(
                "noise_var",
                self.noise_var,
                "finite and at least 0",
            ));
        }
        if self.rho.is_nan() || self.rho.abs() >= 1.0 {
            return Err(DgpError::out_of_range(
                "rho",
                self.rho,
                "strictly between -1 and 1",
            ));
        }
        Ok(())
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

    #[test]
    fn invalid_parameters_are_named() {
        let bad = CorrelatedGaussian {
            noise_var: -1.0,
            rho: 0.8,
        };
        let e = bad.validate().unwrap_err();
        assert!(
            matches!(&e, DgpError::OutOfRange { param: "noise_var", value, .. } if value == "-1"),
            "{e:?}"
        );
        assert_eq!(
            e.to_string(),
            "`noise_var` = -1 is invalid: must be finite and at least 0"
        );
        let bad = CorrelatedGaussian {
            noise_var: 1.0,
            rho: 1.0,
        };
        assert!(matches!(
            bad.validate().unwrap_err(),
            DgpError::OutOfRange { param: "rho", .. }
        ));
    }
}
