//! A jointly Gaussian vector (X_1..X_p, Y) ~ N(0, Σ) with Σ given in full, the target
//! last: cid2021 Fig. 2 (PAPERS.md §5.4; Σ = `xai_core::cid::CID2021_SIGMA`).
//!
//! Each row draws z ~ N(0, I_{p+1}) and returns L·z with Σ = LLᵀ (Cholesky). The
//! ground truth is the Gaussian regression of Y on X: E[Y | x] = Σ_yx Σ_xx⁻¹ x and
//! Var(Y | x) = Σ_yy − Σ_yx Σ_xx⁻¹ Σ_xy (the same for every x).

use faer::Mat;
use faer::linalg::solvers::{LltError, Solve};
use ndarray::{Array1, Array2, ArrayView2};
use rand::{Rng, RngExt};
use rand_distr::StandardNormal;
use serde::Deserialize;
use xai_core::{Dataset, Target};

use crate::{Dgp, DgpError};

/// Parameters of the joint-Gaussian DGP.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct JointGaussian {
    /// Σ over the features and the target (last row and column): symmetric, positive
    /// definite, at least 2 × 2.
    pub covariance: Vec<Vec<f64>>,
    /// Feature names (default X0, X1, ...), one per feature.
    #[serde(default)]
    pub names: Option<Vec<String>>,
}

impl JointGaussian {
    fn sigma(&self) -> Mat<f64> {
        let p = self.covariance.len();
        Mat::from_fn(p, p, |i, j| self.covariance[i][j])
    }

    /// The lower Cholesky factor L of Σ (Σ = LLᵀ), or the row whose pivot is ≤ 0.
    fn cholesky(&self) -> Result<Mat<f64>, DgpError> {
        self.sigma()
            .llt(faer::Side::Lower)
            .map(|c| c.L().to_owned())
            .map_err(|e| {
                let LltError::NonPositivePivot { index } = e;
                DgpError::NotPositiveDefinite {
                    param: "covariance",
                    pivot: index,
                }
            })
    }

    /// β = Σ_xx⁻¹ Σ_xy and Var(Y | X) = Σ_yy − Σ_yxβ.
    fn regression(&self) -> (Vec<f64>, f64) {
        let p = self.covariance.len() - 1;
        let sxx = Mat::from_fn(p, p, |i, j| self.covariance[i][j]);
        let sxy = Mat::from_fn(p, 1, |i, _| self.covariance[i][p]);
        let beta = sxx
            .llt(faer::Side::Lower)
            .expect("validated: Σ_xx is positive definite")
            .solve(&sxy);
        let beta: Vec<f64> = (0..p).map(|i| beta[(i, 0)]).collect();
        let explained: f64 = (0..p).map(|i| beta[i] * self.covariance[i][p]).sum();
        (beta, self.covariance[p][p] - explained)
    }
}

impl Dgp for JointGaussian {
    fn feature_names(&self) -> Vec<String> {
        match &self.names {
            Some(n) => n.clone(),
            None => (0..self.covariance.len().saturating_sub(1))
                .map(|j| format!("X{j}"))
                .collect(),
        }
    }

    /// `covariance` at least 2 × 2, square, finite, symmetric and positive definite;
    /// `names`, if given, one per feature (p − 1 for a p × p Σ).
    fn validate(&self) -> Result<(), DgpError> {
        let p = self.covariance.len();
        if p < 2 {
            return Err(DgpError::out_of_range(
                "covariance",
                format!("a {p} x {p} matrix"),
                "at least 2 x 2 (a feature and the target)",
            ));
        }
        if let Some(i) = self.covariance.iter().position(|r| r.len() != p) {
            return Err(DgpError::NotSquare {
                param: "covariance",
                row: i,
                len: self.covariance[i].len(),
                expected: p,
            });
        }
        if let Some(i) = (0..p).find(|&i| !self.covariance[i][i].is_finite()) {
            return Err(DgpError::out_of_range(
                "covariance",
                format!("diagonal entry {i} = {}", self.covariance[i][i]),
                "finite variances",
            ));
        }
        for i in 0..p {
            for j in 0..i {
                let (a, b) = (self.covariance[i][j], self.covariance[j][i]);
                if !a.is_finite() || a != b {
                    return Err(DgpError::NotSymmetric {
                        param: "covariance",
                        row: i,
                        column: j,
                        value: a.to_string(),
                        mirror: b.to_string(),
                    });
                }
            }
        }
        if let Some(n) = &self.names
            && n.len() != p - 1
        {
            return Err(DgpError::WrongLength {
                param: "names",
                len: n.len(),
                expected: p - 1,
                what: "one name per feature",
            });
        }
        self.cholesky().map(|_| ())
    }

    fn sample(&self, n: usize, rng: &mut dyn Rng) -> Result<Dataset, DgpError> {
        let l = self.cholesky()?;
        let p = self.covariance.len();
        let mut joint = Array2::zeros((n, p));
        let mut z = vec![0.0; p];
        for mut row in joint.rows_mut() {
            z.iter_mut().for_each(|v| *v = rng.sample(StandardNormal));
            for i in 0..p {
                row[i] = (0..=i).map(|k| l[(i, k)] * z[k]).sum();
            }
        }
        let y = joint.column(p - 1).to_owned();
        joint.remove_index(ndarray::Axis(1), p - 1);
        Dataset::new(joint, Target::Continuous(y), self.feature_names()).map_err(DgpError::rows)
    }

    fn conditional_mean(&self, x: ArrayView2<'_, f64>) -> Array1<f64> {
        let (beta, _) = self.regression();
        x.dot(&Array1::from(beta))
    }

    fn conditional_variance(&self, x: ArrayView2<'_, f64>) -> Array1<f64> {
        Array1::from_elem(x.nrows(), self.regression().1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use xai_core::cid::CID2021_SIGMA;
    use xai_core::rng::stream_rng;

    fn cid2021() -> JointGaussian {
        JointGaussian {
            covariance: CID2021_SIGMA.iter().map(|r| r.to_vec()).collect(),
            names: None,
        }
    }

    #[test]
    fn regression_of_the_cid2021_toy_matches_the_derived_coefficients() {
        // PAPERS.md §5.4: E[Y | X] = 0.1818·(X0 + X1) + 0.1515·(X2 + X3 + X4), R² = 0.2909.
        let d = cid2021();
        d.validate().unwrap();
        let (beta, var) = d.regression();
        let want = [0.1818, 0.1818, 0.1515, 0.1515, 0.1515, 0.0, 0.0];
        for (b, w) in beta.iter().zip(want) {
            assert!((b - w).abs() < 1e-4, "{beta:?}");
        }
        assert!((1.0 - var - 0.2909).abs() < 1e-4, "R² {}", 1.0 - var);
    }

    #[test]
    fn samples_have_the_declared_covariance() {
        let d = cid2021();
        let data = d.sample(40_000, &mut stream_rng(3, 0)).unwrap();
        let y = match data.y() {
            Target::Continuous(y) => y.clone(),
            Target::Classes { .. } => unreachable!(),
        };
        let cov = |a: ndarray::ArrayView1<'_, f64>, b: ndarray::ArrayView1<'_, f64>| {
            (&a * &b).mean().unwrap() - a.mean().unwrap() * b.mean().unwrap()
        };
        // Each entry's sd is at most √(2/40,000) ≈ 0.007.
        for (i, row) in CID2021_SIGMA.iter().enumerate().take(7) {
            assert!((cov(data.x().column(i), y.view()) - row[7]).abs() < 0.03);
            for (j, &want) in row.iter().enumerate().take(7) {
                let c = cov(data.x().column(i), data.x().column(j));
                assert!((c - want).abs() < 0.03, "({i}, {j}): {c}");
            }
        }
    }

    #[test]
    fn invalid_covariances_are_rejected_with_the_reason() {
        let bad = |c: Vec<Vec<f64>>| JointGaussian {
            covariance: c,
            names: None,
        };
        let e = bad(vec![vec![1.0]]).validate().unwrap_err();
        assert!(
            matches!(
                &e,
                DgpError::OutOfRange {
                    param: "covariance",
                    ..
                }
            ),
            "{e:?}"
        );
        assert!(e.to_string().contains("at least 2 x 2"), "{e}");
        assert_eq!(
            bad(vec![vec![1.0, 0.5], vec![0.5]]).validate().unwrap_err(),
            DgpError::NotSquare {
                param: "covariance",
                row: 1,
                len: 1,
                expected: 2
            }
        );
        let infinite = bad(vec![vec![1.0, 0.5], vec![0.5, f64::INFINITY]]).validate();
        assert!(
            infinite
                .unwrap_err()
                .to_string()
                .contains("diagonal entry 1 = inf"),
        );
        let e = bad(vec![vec![1.0, 0.5], vec![0.4, 1.0]])
            .validate()
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "`covariance` must be finite and symmetric: entry (1, 0) is 0.4, (0, 1) is 0.5"
        );
        // 1 − 2² < 0: the second pivot fails.
        assert_eq!(
            bad(vec![vec![1.0, 2.0], vec![2.0, 1.0]])
                .validate()
                .unwrap_err(),
            DgpError::NotPositiveDefinite {
                param: "covariance",
                pivot: 1
            }
        );
        let named = JointGaussian {
            covariance: vec![vec![1.0, 0.5], vec![0.5, 1.0]],
            names: Some(vec!["a".into(), "b".into()]),
        };
        let e = named.validate().unwrap_err();
        assert!(
            matches!(
                &e,
                DgpError::WrongLength {
                    param: "names",
                    len: 2,
                    expected: 1,
                    ..
                }
            ),
            "{e:?}"
        );
    }
}
