//! Ordinary least squares with an intercept on all features, as R's `lm(y ~ ., data)`
//! fits it (the `lm` learner of molnar2023 Table 1).
//!
//! With the design X = [1, x_1, …, x_p] (n × q, q = p + 1), β̂ = argmin ‖y − Xβ‖², the
//! residual variance σ̂² = RSS/(n − p − 1) and the coefficient covariance
//! Σ̂_β = σ̂²(XᵀX)⁻¹ (R's `vcov(lm)`), from which a model-based PD variance D Σ̂_β Dᵀ
//! follows for any design rows D.
//!
//! Solved by Householder QR (faer), X = QR, β̂ = R⁻¹Qᵀy and (XᵀX)⁻¹ = R⁻¹R⁻ᵀ: QR works
//! on X itself, whose condition number is the square root of XᵀX's that a Cholesky
//! solve of the normal equations would face, and it is what R's `lm.fit` uses
//! (LINPACK `dqrdc2`). As there, a column whose part orthogonal to the columns before
//! it has norm below 10⁻⁷ of its own norm (|R_jj| < 10⁻⁷‖X_j‖) makes the design rank
//! deficient; R then drops the column (coefficient NA), here the fit fails naming the
//! feature. linfa-linear was rejected workspace-wide: it pins ndarray 0.16 and rand
//! 0.8 (see CRATES.md).
//!
//! A binary class target is read as its class index 0/1 (the linear probability
//! model: OLS of Biopsy on the features, icefi2022 Table 3's "Linear Regression").
//!
//! Predictions are points, x̂ᵀβ̂ (`Predictions::Point`): the squared-error statistic
//! and the PD read the mean, so molnar2023's L2 PFI, MSE(permuted) − MSE(original),
//! works on them as on any regression model.

use faer::Mat;
use faer::linalg::solvers::SolveLstsq;
use ndarray::{Array1, Array2, ArrayView2};
use rand::Rng;
use serde::Deserialize;
use xai_core::{CoreError, Dataset, Learner, MeanCovariance, Model, Predictions, Target};

use crate::capabilities::{Capabilities, Coefficients};
use crate::kind::LearnerKind;

/// Relative tolerance of the rank check, R's `lm.fit(tol = 1e-07)`.
pub const RANK_TOLERANCE: f64 = 1e-7;

/// Settings of `lm` (YAML `lm: {}`: OLS with an intercept on every feature).
#[derive(
    Debug, Clone, Default, PartialEq, Eq, serde::Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields, default)]
pub struct LmParams {
    /// What a rank-deficient design gives: `error` (default; R drops the column, here
    /// the fit fails naming it) or `min_norm`, scikit-learn's `StandardScaler` +
    /// `LinearRegression`: the least-squares solution whose coefficients on the
    /// z-scored features have the smallest norm (icefi2022 Table 3: STDs (number) is
    /// the sum of the STD indicators, imputed cells included). At least p + 1 rows are
    /// still required.
    pub rank_deficient: RankDeficient,
}

/// See [`LmParams::rank_deficient`].
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum RankDeficient {
    /// Fail, naming the first dependent feature.
    #[default]
    Error,
    /// The minimum-norm solution on the z-scored features (no coefficient
    /// covariance).
    MinNorm,
}

impl LearnerKind for LmParams {
    fn describe(&self) -> &'static str {
        "linear model"
    }

    /// Its slopes (one per feature) and the covariance of its fitted mean.
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            trees: false,
            members: false,
            gradients: false,
            coefficients: Coefficients::Always,
            mean_covariance: true,
            missing_values: false,
            predicts_label: true,
        }
    }

    /// 8·(3nq + 2n + 4q²), q = d + 1 (`fit_memory_bytes`).
    fn fit_memory_bytes(&self, n: u128, d: u128) -> u128 {
        fit_memory_bytes(n, d)
    }

    /// 8m, the predictions (`predict_memory_bytes`).
    fn predict_memory_bytes(&self, _n: u128, m: u128, _d: u128) -> u128 {
        predict_memory_bytes(m)
    }

    fn build(&self) -> Box<dyn Learner> {
        Box::new(LmLearner(self.clone()))
    }
}

/// Singular values below this multiple of the largest count as zero in the
/// minimum-norm solution: ε·max(n, p), NumPy's `lstsq` default `rcond` (SciPy's
/// `lstsq` uses ε alone; with an exact dependence both cut the same values).
fn min_norm_cutoff(n: usize, p: usize) -> f64 {
    f64::EPSILON * n.max(p) as f64
}

/// β̂ of the centred problem on z-scored columns by the pseudo-inverse, then mapped
/// back: β_j = γ_j/s_j with γ = V Σ⁺ Uᵀ (y − ȳ) for Z = (x − x̄)/s = UΣVᵀ, and
/// β₀ = ȳ − Σ_j β_j x̄_j (scikit-learn centres both before its `lstsq`); with the
/// rank of Z (the singular values kept).
fn min_norm(x: ArrayView2<'_, f64>, y: &[f64]) -> xai_core::error::Result<(Array1<f64>, usize)> {
    let (n, p) = x.dim();
    let mean_x = x.mean_axis(ndarray::Axis(0)).expect("n ≥ 1 rows");
    let sd = x
        .std_axis(ndarray::Axis(0), 0.0)
        .mapv(|v| if v > 0.0 { v } else { 1.0 });
    let mean_y = y.iter().sum::<f64>() / n as f64;
    let z = Mat::<f64>::from_fn(n, p, |i, j| (x[[i, j]] - mean_x[j]) / sd[j]);
    let svd = z
        .thin_svd()
        .map_err(|e| CoreError::Fit(format!("lm: the SVD did not converge ({e:?})")))?;
    let (u, sing, v) = (svd.U(), svd.S().column_vector(), svd.V());
    let cutoff = min_norm_cutoff(n, p) * sing[0];
    let mut gamma = vec![0.0; p];
    let mut rank = 0;
    for k in 0..sing.nrows() {
        if sing[k] <= cutoff {
            continue;
        }
        rank += 1;
        let uty: f64 = (0..n).map(|i| u[(i, k)] * (y[i] - mean_y)).sum::<f64>() / sing[k];
        for (j, g) in gamma.iter_mut().enumerate() {
            *g += v[(j, k)] * uty;
        }
    }
    let slopes: Vec<f64> = gamma.iter().zip(&sd).map(|(g, s)| g / s).collect();
    let intercept = mean_y - slopes.iter().zip(&mean_x).map(|(b, m)| b * m).sum::<f64>();
    Ok((std::iter::once(intercept).chain(slopes).collect(), rank))
}

/// Peak bytes of a fit on n rows and d features, q = d + 1: 8·(3nq + 2n + 4q²): the
/// design matrix, its QR factor and faer's scratch (n × q each at most), the copies of
/// y and of the least-squares right-hand side, and R, R⁻¹, Σ̂_β and the Householder
/// coefficients (q × q each).
pub(crate) fn fit_memory_bytes(n: u128, d: u128) -> u128 {
    let q = d.saturating_add(1);
    crate::memory::bytes(&[&[24, n, q], &[16, n], &[32, q, q]])
}

/// Peak bytes of one predict call on m rows: 8m (the predictions).
pub(crate) fn predict_memory_bytes(m: u128) -> u128 {
    crate::memory::bytes(&[&[8, m]])
}

/// The OLS learner.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LmLearner(pub LmParams);

impl LmLearner {
    /// Fits y on [1, x]. Fails if n < p + 1 or the design is rank deficient
    /// (|R_jj| < [`RANK_TOLERANCE`]·‖X_j‖), naming the feature; `names` name the
    /// columns of `x` in that message.
    pub fn fit_linear(
        &self,
        x: ArrayView2<'_, f64>,
        y: &[f64],
        names: &[String],
    ) -> xai_core::error::Result<LinearModel> {
        let (n, p) = x.dim();
        let q = p + 1;
        if y.len() != n {
            return Err(CoreError::Shape(format!(
                "lm: {n} rows of features but {} responses",
                y.len()
            )));
        }
        if n < q {
            return Err(CoreError::Fit(format!(
                "lm: {n} rows cannot determine {q} coefficients (intercept and {p} features)"
            )));
        }
        let design = Mat::<f64>::from_fn(n, q, |i, j| if j == 0 { 1.0 } else { x[[i, j - 1]] });
        let qr = design.qr();
        let r = qr.thin_R();
        for j in 0..q {
            let norm = design.col(j).norm_l2();
            // Below the tolerance, or NaN from non-finite data.
            let small = r[(j, j)].abs().partial_cmp(&(RANK_TOLERANCE * norm));
            if matches!(small, None | Some(std::cmp::Ordering::Less)) {
                if self.0.rank_deficient == RankDeficient::MinNorm
                    && x.iter().all(|v| v.is_finite())
                {
                    let (coefficients, rank) = min_norm(x, y)?;
                    return Ok(LinearModel {
                        coefficients,
                        sigma2: None,
                        covariance: None,
                        df: n - 1 - rank,
                    });
                }
                let name = if j == 0 {
                    "(Intercept)"
                } else {
                    names.get(j - 1).map_or("?", String::as_str)
                };
                return Err(CoreError::Fit(format!(
                    "lm: the design is rank deficient: feature `{name}` (column {j}) is \
                     a linear combination of the intercept and the features before it"
                )));
            }
        }
        let rhs = Mat::<f64>::from_fn(n, 1, |i, _| y[i]);
        let beta = qr.solve_lstsq(&rhs);
        let coefficients = Array1::from_shape_fn(q, |j| beta[(j, 0)]);
        let df = n - q;
        let rss: f64 = (0..n)
            .map(|i| {
                let fit =
                    coefficients[0] + (0..p).map(|j| x[[i, j]] * coefficients[j + 1]).sum::<f64>();
                (y[i] - fit).powi(2)
            })
            .sum();
        let (sigma2, covariance) = if df > 0 {
            let sigma2 = rss / df as f64;
            // R⁻¹ by back substitution on the identity; (XᵀX)⁻¹ = R⁻¹R⁻ᵀ.
            let mut r_inv = Mat::<f64>::identity(q, q);
            faer::linalg::triangular_solve::solve_upper_triangular_in_place(
                r.get(..q, ..q),
                r_inv.as_mut(),
                faer::Par::Seq,
            );
            let cov = Array2::from_shape_fn((q, q), |(a, b)| {
                sigma2 * (0..q).map(|k| r_inv[(a, k)] * r_inv[(b, k)]).sum::<f64>()
            });
            (Some(sigma2), Some(cov))
        } else {
            (None, None)
        };
        Ok(LinearModel {
            coefficients,
            sigma2,
            covariance,
            df,
        })
    }
}

impl Learner for LmLearner {
    fn fit(&self, data: &Dataset, _rng: &mut dyn Rng) -> xai_core::error::Result<Box<dyn Model>> {
        let y: Vec<f64> = match data.y() {
            Target::Continuous(y) => y.to_vec(),
            Target::Classes {
                labels,
                n_classes: 2,
            } => labels.iter().map(|&c| c as f64).collect(),
            Target::Classes { n_classes, .. } => {
                return Err(CoreError::Invalid(format!(
                    "lm is least-squares regression: it needs a continuous or binary target, \
                     not {n_classes} classes"
                )));
            }
        };
        Ok(Box::new(self.fit_linear(
            data.x(),
            &y,
            data.feature_names(),
        )?))
    }
}

/// A fitted OLS model: ŷ = β̂₀ + Σ_j β̂_j x_j.
#[derive(Debug, Clone, PartialEq)]
pub struct LinearModel {
    coefficients: Array1<f64>,
    sigma2: Option<f64>,
    covariance: Option<Array2<f64>>,
    df: usize,
}

impl LinearModel {
    /// β̂ = (β̂₀, β̂₁, …, β̂_p): the intercept first, then one per feature (R's
    /// `coef(lm)`).
    pub fn coefficients(&self) -> &Array1<f64> {
        &self.coefficients
    }

    /// Residual degrees of freedom n − 1 − rank (n − p − 1 at full rank).
    pub fn residual_df(&self) -> usize {
        self.df
    }

    /// σ̂² = RSS/(n − p − 1) (R's `sigma(lm)^2`); `None` when n = p + 1 (no residual
    /// degrees of freedom).
    pub fn residual_variance(&self) -> Option<f64> {
        self.sigma2
    }

    /// Σ̂_β = σ̂²(XᵀX)⁻¹, (p + 1) × (p + 1) in the order of
    /// [`LinearModel::coefficients`] (R's `vcov(lm)`): the covariance of the
    /// coefficient estimates under the linear model with homoscedastic errors; the
    /// variance of a linear functional Dβ̂ (e.g. the PD at a grid point, D = the mean
    /// design row with x_S set) is D Σ̂_β Dᵀ. `None` when n = p + 1.
    pub fn coefficient_covariance(&self) -> Option<&Array2<f64>> {
        self.covariance.as_ref()
    }
}

impl Model for LinearModel {
    fn predict(&self, x: ArrayView2<'_, f64>) -> xai_core::error::Result<Predictions> {
        let b = &self.coefficients;
        let slopes = b.slice(ndarray::s![1..]);
        Ok(Predictions::Point(x.dot(&slopes) + b[0]))
    }

    /// β̂₁, …, β̂_p.
    fn coefficients(&self) -> Option<Vec<f64>> {
        Some(self.coefficients.iter().skip(1).copied().collect())
    }

    /// The sampling covariance of the fitted values, when Σ̂_β exists (n > p + 1).
    fn mean_covariance(&self) -> Option<&dyn MeanCovariance> {
        self.covariance
            .as_ref()
            .map(|_| self as &dyn MeanCovariance)
    }
}

impl LinearModel {
    /// D = [1, x]: the design rows with the intercept column first.
    fn design(x: ArrayView2<'_, f64>) -> Array2<f64> {
        let mut d = Array2::ones((x.nrows(), x.ncols() + 1));
        d.slice_mut(ndarray::s![.., 1..]).assign(&x);
        d
    }

    fn sigma_beta(&self) -> &Array2<f64> {
        self.covariance
            .as_ref()
            .expect("mean_covariance is offered only with Σ̂_β")
    }
}

/// Cov(Dβ̂) = D Σ̂_β Dᵀ (molnar2023 §2.5, LM's "mod" band), with Σ̂_β = σ̂²(XᵀX)⁻¹.
impl MeanCovariance for LinearModel {
    fn covariance(&self, x: ArrayView2<'_, f64>) -> Array2<f64> {
        let d = Self::design(x);
        d.dot(self.sigma_beta()).dot(&d.t())
    }

    /// (1/n²)·1ᵀDΣ̂_βDᵀ1 = d̄ᵀΣ̂_β d̄ with d̄ the mean design row: O(n·p + p²).
    fn variance_of_average(&self, x: ArrayView2<'_, f64>) -> f64 {
        let mean = Self::design(x)
            .mean_axis(ndarray::Axis(0))
            .expect("at least one row");
        mean.dot(&self.sigma_beta().dot(&mean))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;
    use rand_distr::{Distribution, StandardNormal};
    use xai_core::rng::stream_rng;

    fn names(p: usize) -> Vec<String> {
        (1..=p).map(|j| format!("x{j}")).collect()
    }

    fn noisy(n: usize, beta: &[f64], seed: u64) -> (Array2<f64>, Vec<f64>) {
        let mut rng = stream_rng(seed, 0);
        let p = beta.len() - 1;
        let x = Array2::from_shape_fn((n, p), |_| rng.random::<f64>());
        let y = x
            .rows()
            .into_iter()
            .map(|r| {
                let e: f64 = StandardNormal.sample(&mut rng);
                beta[0] + r.iter().zip(&beta[1..]).map(|(a, b)| a * b).sum::<f64>() + e
            })
            .collect();
        (x, y)
    }

    #[test]
    fn an_exact_linear_response_is_recovered() {
        let x = ndarray::array![[0.0, 1.0], [1.0, 0.0], [2.0, 3.0], [3.0, 1.0], [4.0, 4.0]];
        let y: Vec<f64> = x
            .rows()
            .into_iter()
            .map(|r| 1.0 + 2.0 * r[0] - 3.0 * r[1])
            .collect();
        let m = LmLearner::default()
            .fit_linear(x.view(), &y, &names(2))
            .unwrap();
        for (b, e) in m.coefficients().iter().zip([1.0, 2.0, -3.0]) {
            assert!((b - e).abs() < 1e-12, "{b} vs {e}");
        }
        assert_eq!(m.residual_df(), 2);
        assert!(m.residual_variance().unwrap() < 1e-24);
        let Predictions::Point(p) = m.predict(ndarray::array![[10.0, 1.0]].view()).unwrap() else {
            panic!("point predictions");
        };
        assert!((p[0] - 18.0).abs() < 1e-12);
    }

    /// (XᵀX)⁻¹ by Gauss–Jordan elimination on the normal equations, independent of
    /// faer and of QR.
    fn normal_equations_inverse(x: &Array2<f64>) -> Array2<f64> {
        let (n, p) = x.dim();
        let q = p + 1;
        let col = |i: usize, j: usize| if j == 0 { 1.0 } else { x[[i, j - 1]] };
        let mut a = Array2::from_shape_fn((q, 2 * q), |(r, c)| {
            if c < q {
                (0..n).map(|i| col(i, r) * col(i, c)).sum()
            } else if c - q == r {
                1.0
            } else {
                0.0
            }
        });
        for k in 0..q {
            let pivot = a[[k, k]];
            for c in 0..2 * q {
                a[[k, c]] /= pivot;
            }
            for r in (0..q).filter(|&r| r != k) {
                let f = a[[r, k]];
                for c in 0..2 * q {
                    a[[r, c]] -= f * a[[k, c]];
                }
            }
        }
        a.slice(ndarray::s![.., q..]).to_owned()
    }

    #[test]
    fn the_model_based_pd_variance_is_the_closed_form_on_a_small_design() {
        // 7 rows, 2 features: Var(PD̂_1(v)) = (1/n²)·Σ_a Σ_b d_aᵀ Σ̂_β d_b with
        // d_a = (1, v, x_a2), written out element by element with Σ̂_β = σ̂²(XᵀX)⁻¹
        // from Gauss–Jordan; equal to d̄ᵀΣ̂_β d̄ with d̄ = (1, v, mean x_2).
        let x = ndarray::array![
            [0.1, 0.7],
            [0.4, 0.2],
            [0.5, 0.9],
            [0.8, 0.3],
            [0.9, 0.6],
            [0.2, 0.1],
            [0.6, 0.5]
        ];
        let y = [1.0, 0.3, 1.9, 0.2, 1.4, 0.1, 1.1];
        let m = LmLearner::default()
            .fit_linear(x.view(), &y, &names(2))
            .unwrap();
        let sigma = normal_equations_inverse(&x) * m.residual_variance().unwrap();
        let cov = m.mean_covariance().expect("n > p + 1");
        let (n, grid) = (7.0, [0.0, 0.25, 1.5]);
        let b = m.coefficients();
        let mean2 = x.column(1).mean().unwrap();
        let pd: Vec<f64> = grid
            .iter()
            .map(|v| b[0] + b[1] * v + b[2] * mean2)
            .collect();
        let band = xai_core::pd_model_band(cov, x.view(), 0, &grid, &pd, 0.95);
        for (g, &v) in grid.iter().enumerate() {
            let mut by_hand = 0.0;
            for a in 0..7 {
                for c in 0..7 {
                    let da = [1.0, v, x[[a, 1]]];
                    let dc = [1.0, v, x[[c, 1]]];
                    for k in 0..3 {
                        for l in 0..3 {
                            by_hand += da[k] * sigma[[k, l]] * dc[l];
                        }
                    }
                }
            }
            by_hand /= n * n;
            let bar = [1.0, v, mean2];
            let closed: f64 = (0..3)
                .flat_map(|k| (0..3).map(move |l| (k, l)))
                .map(|(k, l)| bar[k] * sigma[[k, l]] * bar[l])
                .sum();
            let se2 = band[g].se * band[g].se;
            assert!(
                (se2 - by_hand).abs() < 1e-12 * by_hand,
                "{se2} vs {by_hand}"
            );
            assert!((closed - by_hand).abs() < 1e-12 * by_hand);
            // The default 1ᵀK1/n² from the full matrix agrees with the override.
            let mut design = x.clone();
            design.column_mut(0).fill(v);
            let full = cov.covariance(design.view()).sum() / (n * n);
            assert!((full - by_hand).abs() < 1e-12 * by_hand);
            // A normal band: PD ± z_{0.975}·se.
            assert_eq!(band[g].estimate, pd[g]);
            let z = (band[g].upper - pd[g]) / band[g].se;
            assert!((z - 1.959_963_984_540_054).abs() < 1e-9, "{z}");
            assert!((pd[g] - band[g].lower - band[g].upper + pd[g]).abs() < 1e-12);
        }
        // No residual degrees of freedom: no covariance to offer.
        let exact = LmLearner::default()
            .fit_linear(x.slice(ndarray::s![..3, ..]), &y[..3], &names(2))
            .unwrap();
        assert!(exact.mean_covariance().is_none());
    }

    /// A duplicated feature, x₂ = 2x₁, makes the design rank deficient: `error` names
    /// it; `min_norm` fits y = 3x₁ + 1 exactly and splits the slope equally on the
    /// z-scored columns (z₁ = z₂, so the minimum-norm γ has γ₁ = γ₂): β₁σ₁ = β₂σ₂ and
    /// 3 = β₁ + 2β₂.
    #[test]
    fn a_rank_deficient_design_fails_or_gets_the_minimum_norm_solution() {
        let x1: Vec<f64> = (0..20).map(|i| (i * 7 % 11) as f64).collect();
        let x = Array2::from_shape_fn((20, 3), |(i, j)| match j {
            0 => x1[i],
            1 => 2.0 * x1[i],
            _ => ((i * 5) % 7) as f64,
        });
        let y: Vec<f64> = x1.iter().map(|v| 3.0 * v + 1.0).collect();
        let err = LmLearner::default()
            .fit_linear(x.view(), &y, &names(3))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("x2") && err.contains("rank deficient"),
            "{err}"
        );
        let m = LmLearner(LmParams {
            rank_deficient: RankDeficient::MinNorm,
        })
        .fit_linear(x.view(), &y, &names(3))
        .unwrap();
        let b = m.coefficients();
        let s1 = x.column(0).std(0.0);
        assert!((b[1] * s1 - b[2] * 2.0 * s1).abs() < 1e-9, "{b}");
        assert!(
            (b[1] + 2.0 * b[2] - 3.0).abs() < 1e-9 && b[3].abs() < 1e-9,
            "{b}"
        );
        let Predictions::Point(f) = m.predict(x.view()).unwrap() else {
            panic!("points")
        };
        assert!(f.iter().zip(&y).all(|(a, b)| (a - b).abs() < 1e-9));
        assert!(m.mean_covariance().is_none());
        // Rank 2 of the three z-scored columns: 20 − 1 − 2 residual degrees of freedom.
        assert_eq!(m.residual_df(), 17);
    }

    #[test]
    fn covariance_is_sigma_squared_times_the_inverse_gram_matrix() {
        let (x, y) = noisy(60, &[0.5, 1.0, -1.0, 2.0], 4);
        let m = LmLearner::default()
            .fit_linear(x.view(), &y, &names(3))
            .unwrap();
        // σ̂² from the residuals with n − p − 1 = 56 degrees of freedom.
        let Predictions::Point(fit) = m.predict(x.view()).unwrap() else {
            panic!("point predictions");
        };
        let rss: f64 = fit.iter().zip(&y).map(|(f, y)| (y - f).powi(2)).sum();
        let sigma2 = m.residual_variance().unwrap();
        assert!((sigma2 - rss / 56.0).abs() < 1e-12 * sigma2);
        let expected = normal_equations_inverse(&x) * sigma2;
        let cov = m.coefficient_covariance().unwrap();
        for (a, b) in cov.iter().zip(&expected) {
            assert!((a - b).abs() < 1e-9 * b.abs().max(1e-3), "{a} vs {b}");
        }
        // The normal equations hold: Xᵀ(y − Xβ̂) = 0.
        for j in 0..3 {
            let g: f64 = (0..60).map(|i| x[[i, j]] * (y[i] - fit[i])).sum();
            assert!(g.abs() < 1e-10, "{g}");
        }
    }

    #[test]
    fn no_residual_degrees_of_freedom_means_no_covariance() {
        let x = ndarray::array![[0.0], [1.0]];
        let m = LmLearner::default()
            .fit_linear(x.view(), &[1.0, 3.0], &names(1))
            .unwrap();
        assert_eq!(m.residual_df(), 0);
        assert!(m.residual_variance().is_none() && m.coefficient_covariance().is_none());
        assert!((m.coefficients()[1] - 2.0).abs() < 1e-12);
    }

    #[test]
    fn a_collinear_feature_is_named() {
        let (x, y) = noisy(30, &[0.0, 1.0, 1.0], 1);
        let mut x = x;
        let doubled = x.column(0).to_owned() * 2.0 - 1.0;
        x.column_mut(1).assign(&doubled);
        let e = LmLearner::default()
            .fit_linear(x.view(), &y, &names(2))
            .unwrap_err();
        assert!(e.to_string().contains("`x2`"), "{e}");
        let e = LmLearner::default()
            .fit_linear(x.slice(ndarray::s![..2, ..]), &y[..2], &names(2))
            .unwrap_err();
        assert!(e.to_string().contains("2 rows cannot determine 3"), "{e}");
    }

    #[test]
    fn squared_error_pfi_of_a_fitted_lm_is_two_beta_squared_var() {
        // molnar2023's L2 PFI on point predictions: for a linear model
        // E[(y − f(x̃))² − (y − f(x))²] = 2·β̂_j²·Var(X_j), here with y = x1 − x2 + ε.
        use xai_core::perturbation::Perturbation;
        use xai_core::statistic::Statistic;
        let (x, y) = noisy(4000, &[0.0, 1.0, -1.0], 7);
        let var: Vec<f64> = x.columns().into_iter().map(|c| c.var(0.0)).collect();
        let ys = y.clone();
        let data = Dataset::new(x, Target::Continuous(y.into()), names(2)).unwrap();
        let m = LmLearner::default()
            .fit_linear(data.x(), &ys, &names(2))
            .unwrap();
        let beta = m.coefficients().clone();
        let model: Box<dyn Model> = Box::new(m);
        let res = xai_core::pfi::pfi(
            model.as_ref(),
            &data,
            &[0, 1],
            &Perturbation::Permutation { repeats: 5 },
            &[Statistic::SquaredError],
            3,
            0.95,
        )
        .unwrap();
        for r in &res[0] {
            let (est, se) = (r.estimate.estimate, r.estimate.se);
            let expected = 2.0 * beta[r.feature + 1].powi(2) * var[r.feature];
            assert!(
                (est - expected).abs() < 4.0 * se,
                "{est} ± {se} vs {expected}"
            );
            assert!((expected - 2.0 / 12.0).abs() < 0.05, "{expected}");
        }
    }
}
