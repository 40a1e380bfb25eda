//! Kriging as R's DiceKriging fits it: `km(~1, covtype = "powexp")` with no nugget
//! (molnar2023 Table 2's GP, PAPERS.md §2.5).
//!
//! Model: y(x) = β + Z(x), Z a centred Gaussian process with covariance σ²·R, the
//! tensor-product power-exponential correlation
//!
//! R(x, x') = exp(−Σ_k |x_k − x'_k|^{p_k} / θ_k^{p_k}),  θ_k > 0, p_k ∈ (0, 2].
//!
//! β and σ² are concentrated out (DiceKriging's `LLconcentration_beta_sigma2`): with
//! R = LLᵀ, β̂ = 1ᵀR⁻¹y / 1ᵀR⁻¹1, σ̂² = (y − β̂1)ᵀR⁻¹(y − β̂1)/n, the log-likelihood is
//!
//! ℓ(θ, p) = −½·(n·log(2π·σ̂²) + log|R| + n),
//!
//! and, by the envelope theorem, its gradient in any correlation parameter ψ is
//! ∂ℓ/∂ψ = ½·tr((ααᵀ/σ̂² − R⁻¹)·∂R/∂ψ) with α = R⁻¹(y − β̂1), where
//! ∂R/∂θ_k = R ∘ (p_k/θ_k)·t_k, ∂R/∂p_k = −R ∘ t_k·log(|h_k|/θ_k), t_k = |h_k/θ_k|^{p_k}.
//!
//! Fit (DiceKriging's defaults, read in `kmEstimate.R`, `kmNoNugget.init.R` and
//! `covParametersBounds`): bounds θ_k ∈ [1e-10, 2·range(x_k)], p_k ∈ [1e-10, 2];
//! `pop_size` = 20 points drawn uniformly in that box, the one with the largest ℓ is the
//! start of one box-constrained quasi-Newton run (R's `optim(method = "L-BFGS-B")`,
//! maxit 100, factr 1e7, pgtol 0) on the natural (θ, p) scale. Inputs and target are
//! used as given (DiceKriging does not standardise).
//!
//! Prediction is simple kriging with the estimated β̂, σ̂² plugged in (`predict.km`,
//! `type = "SK"`): mean β̂ + r*ᵀα, covariance σ̂²·(R** − r*ᵀR⁻¹r*'), the latter
//! through [`MeanCovariance`] (molnar2023's model-based PD band).

use faer::linalg::solvers::DenseSolveCore;
use faer::linalg::triangular_solve::{
    solve_lower_triangular_in_place, solve_upper_triangular_in_place,
};
use faer::prelude::*;
use faer::{Mat, Side};
use ndarray::{Array1, Array2, ArrayView1, ArrayView2};
use rand::{Rng, RngExt};
use serde::Deserialize;
use xai_core::{CoreError, Dataset, Learner, MeanCovariance, Model, Predictions, Target};

use crate::capabilities::Capabilities;
use crate::kind::LearnerKind;
use crate::optim::{LbfgsOptions, dot, minimize_box};

/// DiceKriging's lower bound of every θ_k and p_k.
const LOWER: f64 = 1e-10;

/// Settings of the kriging learner (all optional in YAML).
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct KrigingParams {
    /// Uniform draws in the parameter box whose best (largest ℓ) starts the optimiser
    /// (DiceKriging's `control$pop.size`, default 20).
    #[schemars(range(min = 1))]
    pub pop_size: usize,
    /// Iteration cap of the optimiser (R's `optim` `maxit`, default 100).
    #[schemars(range(min = 1))]
    pub max_iter: usize,
}

impl Default for KrigingParams {
    fn default() -> Self {
        Self {
            pop_size: 20,
            max_iter: 100,
        }
    }
}

impl LearnerKind for KrigingParams {
    /// Each setting within the range its field declares
    /// ([`xai_core::settings::check_value`]).
    fn validate(&self) -> Result<(), crate::ParamError> {
        Ok(xai_core::settings::check_value(self)?)
    }

    fn describe(&self) -> &'static str {
        "Gaussian process (kriging, power-exponential)"
    }

    /// [`Capabilities::MEAN_COVARIANCE_ONLY`].
    fn capabilities(&self) -> Capabilities {
        Capabilities::MEAN_COVARIANCE_ONLY
    }

    /// 8·(n²d + 4n² + nd + 4n) (`fit_memory_bytes`).
    fn fit_memory_bytes(&self, n: u128, d: u128) -> u128 {
        fit_memory_bytes(n, d)
    }

    /// 8·(2mn + 3m) (`predict_memory_bytes`).
    fn predict_memory_bytes(&self, n: u128, m: u128, _d: u128) -> u128 {
        predict_memory_bytes(n, m)
    }

    fn build(&self) -> Box<dyn Learner> {
        Box::new(KrigingLearner(self.clone()))
    }
}

/// Peak bytes [`Kriging::fit`] allocates on n rows and d inputs:
/// 8·(n²·d + 4n² + nd + 4n): log|h_k| and t_k for the n(n−1)/2 row pairs (n²·d in
/// all), R, its Cholesky factor, R⁻¹ and faer's scratch while it inverts, the inputs'
/// copy, and the target, α and the two solves.
pub(crate) fn fit_memory_bytes(n: u128, d: u128) -> u128 {
    crate::memory::bytes(&[&[8, n, n, d], &[32, n, n], &[8, n, d], &[32, n]])
}

/// Peak bytes one prediction on m rows allocates, n training rows, d inputs:
/// 8·(2mn + 3m): the cross-correlation r* and L⁻¹r*, the mean and variance.
pub(crate) fn predict_memory_bytes(n: u128, m: u128) -> u128 {
    crate::memory::bytes(&[&[16, m, n], &[24, m]])
}

/// The kriging learner.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct KrigingLearner(pub KrigingParams);

impl Learner for KrigingLearner {
    fn fit(&self, data: &Dataset, rng: &mut dyn Rng) -> xai_core::error::Result<Box<dyn Model>> {
        let Target::Continuous(y) = data.y() else {
            return Err(CoreError::Fit(
                "kriging needs a continuous target; this dataset has classes".into(),
            ));
        };
        Ok(Box::new(Kriging::fit(data.x(), y.view(), &self.0, rng)?))
    }
}

/// log|h_k| of every row pair (a, b), a > b, in the order b = 0..n, a = b+1..n
/// (−∞ where the two rows agree in input k): computed once per fit, since every
/// likelihood evaluation needs |h_k|^{p_k} = exp(p_k·log|h_k|).
struct Lags {
    n: usize,
    d: usize,
    log_abs: Vec<f64>,
}

impl Lags {
    fn new(x: ArrayView2<'_, f64>) -> Self {
        let (n, d) = x.dim();
        let mut log_abs = Vec::with_capacity(n * n.saturating_sub(1) / 2 * d);
        for b in 0..n {
            for a in b + 1..n {
                log_abs.extend((0..d).map(|k| (x[[a, k]] - x[[b, k]]).abs().ln()));
            }
        }
        Self { n, d, log_abs }
    }
}

/// One evaluation of the concentrated likelihood at (θ, p).
struct Evaluation {
    log_lik: f64,
    beta: f64,
    sigma2: f64,
    chol: Mat<f64>,
    /// α = R⁻¹(y − β̂1).
    alpha: Vec<f64>,
}

/// ℓ(θ, p) (and, with `grad`, its gradient in (θ_1..θ_d, p_1..p_d)); `None` where R
/// is not numerically positive definite.
fn evaluate(
    lags: &Lags,
    y: &[f64],
    theta: &[f64],
    p: &[f64],
    grad: Option<&mut [f64]>,
) -> Option<Evaluation> {
    let (n, d) = (lags.n, lags.d);
    let log_theta: Vec<f64> = theta.iter().map(|t| t.ln()).collect();
    // t_k of every pair, kept for the gradient.
    let mut t = vec![0.0; lags.log_abs.len()];
    let mut r = Mat::<f64>::identity(n, n);
    let mut q = 0;
    for b in 0..n {
        for a in b + 1..n {
            let mut s = 0.0;
            for k in 0..d {
                let lh = lags.log_abs[q * d + k];
                let tk = if lh == f64::NEG_INFINITY {
                    0.0
                } else {
                    (p[k] * (lh - log_theta[k])).exp()
                };
                t[q * d + k] = tk;
                s += tk;
            }
            let v = (-s).exp();
            r[(a, b)] = v;
            r[(b, a)] = v;
            q += 1;
        }
    }
    let llt = r.llt(Side::Lower).ok()?;
    let l = llt.L();
    let mut sol = Mat::<f64>::from_fn(n, 2, |i, c| if c == 0 { y[i] } else { 1.0 });
    solve_lower_triangular_in_place(l, sol.as_mut(), Par::Seq);
    let (xy, m1) = (sol.col_as_slice(0), sol.col_as_slice(1));
    let beta = dot(m1, xy) / dot(m1, m1);
    let z: Vec<f64> = xy.iter().zip(m1).map(|(x, m)| x - beta * m).collect();
    let sigma2 = dot(&z, &z) / n as f64;
    let log_det: f64 = 2.0 * (0..n).map(|i| l[(i, i)].ln()).sum::<f64>();
    let nf = n as f64;
    let log_lik = -0.5 * (nf * (2.0 * std::f64::consts::PI * sigma2).ln() + log_det + nf);
    if !log_lik.is_finite() {
        return None;
    }
    let mut a = Mat::<f64>::from_fn(n, 1, |i, _| z[i]);
    solve_upper_triangular_in_place(l.transpose(), a.as_mut(), Par::Seq);
    let alpha = a.col_as_slice(0).to_vec();
    if let Some(grad) = grad {
        // ½·Σ_{a≠b} W_ab·∂R_ab with W = ααᵀ/σ̂² − R⁻¹ (∂R vanishes on the diagonal):
        // Σ over the lower triangle.
        let rinv = llt.inverse();
        grad.iter_mut().for_each(|g| *g = 0.0);
        let mut q = 0;
        for b in 0..n {
            let rinv_b = rinv.col_as_slice(b);
            let r_b = r.col_as_slice(b);
            for a in b + 1..n {
                let w = (alpha[a] * alpha[b] / sigma2 - rinv_b[a]) * r_b[a];
                for k in 0..d {
                    let tk = t[q * d + k];
                    if tk > 0.0 {
                        let lh = lags.log_abs[q * d + k];
                        grad[k] += w * tk * p[k] / theta[k];
                        grad[d + k] -= w * tk * (lh - log_theta[k]);
                    }
                }
                q += 1;
            }
        }
    }
    Some(Evaluation {
        log_lik,
        beta,
        sigma2,
        chol: l.to_owned(),
        alpha,
    })
}

/// θ and p hold d positive values each.
fn check_parameters(d: usize, theta: &[f64], p: &[f64]) -> Result<(), CoreError> {
    if theta.len() != d || p.len() != d || theta.iter().chain(p).any(|v| v.is_nan() || *v <= 0.0) {
        return Err(CoreError::Invalid(format!(
            "θ and p must hold d = {d} positive values each, got θ = {theta:?}, p = {p:?}"
        )));
    }
    Ok(())
}

/// The concentrated log-likelihood ℓ(θ, p) of the module docs and its gradient in
/// (θ_1..θ_d, p_1..p_d) (DiceKriging's `logLikFun`/`logLikGrad` order), on inputs and
/// target as given.
pub fn concentrated_log_likelihood(
    x: ArrayView2<'_, f64>,
    y: ArrayView1<'_, f64>,
    theta: &[f64],
    p: &[f64],
) -> Result<(f64, Vec<f64>), CoreError> {
    let d = x.ncols();
    check_parameters(d, theta, p)?;
    let y = y.to_vec();
    let mut grad = vec![0.0; 2 * d];
    let e = evaluate(&Lags::new(x), &y, theta, p, Some(&mut grad)).ok_or_else(|| {
        CoreError::Fit(format!(
            "the correlation matrix is not positive definite at θ = {theta:?}, p = {p:?}"
        ))
    })?;
    Ok((e.log_lik, grad))
}

/// A fitted kriging model.
#[derive(Debug, Clone)]
pub struct Kriging {
    x: Array2<f64>,
    theta: Vec<f64>,
    p: Vec<f64>,
    beta: f64,
    sigma2: f64,
    chol: Mat<f64>,
    alpha: Array1<f64>,
    log_lik: f64,
}

impl Kriging {
    /// Maximum-likelihood (θ, p) as DiceKriging finds them (module docs), then the
    /// model conditioned on (x, y).
    pub fn fit<R: Rng + ?Sized>(
        x: ArrayView2<'_, f64>,
        y: ArrayView1<'_, f64>,
        params: &KrigingParams,
        rng: &mut R,
    ) -> Result<Self, CoreError> {
        params.validate()?;
        let (n, d) = x.dim();
        if y.len() != n || n < 2 {
            return Err(CoreError::Shape(format!(
                "kriging needs at least 2 rows and one target per row; got {n} rows, {} targets",
                y.len()
            )));
        }
        let mut upper: Vec<f64> = x
            .columns()
            .into_iter()
            .map(|c| {
                let (lo, hi) = c
                    .iter()
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
                        (lo.min(v), hi.max(v))
                    });
                2.0 * (hi - lo)
            })
            .collect();
        if let Some(k) = upper.iter().position(|u| u.is_nan() || *u <= LOWER) {
            return Err(CoreError::Fit(format!(
                "kriging: input {k} is constant over the training rows; drop it (DiceKriging's \
                 bound 2·range(x_k) would be 0)"
            )));
        }
        upper.extend(std::iter::repeat_n(2.0, d));
        let lower = vec![LOWER; 2 * d];
        let lags = Lags::new(x);
        let ys = y.to_vec();
        let split = |v: &[f64]| -> (Vec<f64>, Vec<f64>) { (v[..d].to_vec(), v[d..].to_vec()) };
        let mut start: Option<(f64, Vec<f64>)> = None;
        for _ in 0..params.pop_size {
            let v: Vec<f64> = lower
                .iter()
                .zip(&upper)
                .map(|(lo, hi)| lo + rng.random::<f64>() * (hi - lo))
                .collect();
            let (th, p) = split(&v);
            if let Some(e) = evaluate(&lags, &ys, &th, &p, None)
                && start.as_ref().is_none_or(|(l, _)| e.log_lik > *l)
            {
                start = Some((e.log_lik, v));
            }
        }
        let (_, v0) = start.ok_or_else(|| {
            CoreError::Fit(format!(
                "kriging: the correlation matrix was singular at all {} initial points; the \
                 training rows may repeat",
                params.pop_size
            ))
        })?;
        let opts = LbfgsOptions {
            max_iter: params.max_iter,
            gtol: 0.0,
            ..Default::default()
        };
        let objective = |v: &[f64]| {
            let (th, p) = split(v);
            let mut g = vec![0.0; 2 * d];
            evaluate(&lags, &ys, &th, &p, Some(&mut g))
                .map(|e| (-e.log_lik, g.iter().map(|v| -v).collect()))
        };
        let best = minimize_box(objective, &v0, &lower, &upper, opts).map_or(v0, |m| m.x);
        let (theta, p) = split(&best);
        Self::with_parameters(x, y, &theta, &p)
    }

    /// The model with fixed (θ, p), β̂ and σ̂² estimated, conditioned on (x, y).
    pub fn with_parameters(
        x: ArrayView2<'_, f64>,
        y: ArrayView1<'_, f64>,
        theta: &[f64],
        p: &[f64],
    ) -> Result<Self, CoreError> {
        check_parameters(x.ncols(), theta, p)?;
        if y.len() != x.nrows() {
            return Err(CoreError::Shape(format!(
                "{} rows but {} targets",
                x.nrows(),
                y.len()
            )));
        }
        let e = evaluate(&Lags::new(x), &y.to_vec(), theta, p, None).ok_or_else(|| {
            CoreError::Fit(format!(
                "the correlation matrix is not positive definite at θ = {theta:?}, p = {p:?}"
            ))
        })?;
        Ok(Self {
            x: x.to_owned(),
            theta: theta.to_vec(),
            p: p.to_vec(),
            beta: e.beta,
            sigma2: e.sigma2,
            chol: e.chol,
            alpha: Array1::from(e.alpha),
            log_lik: e.log_lik,
        })
    }

    /// The range parameters θ̂_1..θ̂_d.
    pub fn theta(&self) -> &[f64] {
        &self.theta
    }

    /// The shape parameters p̂_1..p̂_d.
    pub fn shape(&self) -> &[f64] {
        &self.p
    }

    /// β̂, the estimated constant trend.
    pub fn trend(&self) -> f64 {
        self.beta
    }

    /// σ̂², the estimated process variance.
    pub fn process_variance(&self) -> f64 {
        self.sigma2
    }

    /// ℓ(θ̂, p̂), the concentrated log-likelihood at the fit.
    pub fn log_likelihood(&self) -> f64 {
        self.log_lik
    }

    /// t_k(a, b) = (|a − b|/θ_k)^{p_k}, input k's term of −log R (module docs), with
    /// `inv_theta` = 1/θ.
    fn term(&self, k: usize, a: f64, b: f64, inv_theta: &[f64]) -> f64 {
        ((a - b).abs() * inv_theta[k]).powf(self.p[k])
    }

    /// The cross-correlation R(x*_a, x_b) = exp(−Σ_k t_k) of the rows of `a` (m × d)
    /// and `b`, m × n. Where `a` and `b` are one matrix, R is symmetric to the bit
    /// (|a − b| = |b − a| in floating point), so its lower triangle is mirrored.
    fn correlation(&self, a: ArrayView2<'_, f64>, b: ArrayView2<'_, f64>) -> Array2<f64> {
        let inv_theta: Vec<f64> = self.theta.iter().map(|t| 1.0 / t).collect();
        let at = |i: usize, j: usize| {
            let s: f64 = (0..a.ncols())
                .map(|k| self.term(k, a[[i, k]], b[[j, k]], &inv_theta))
                .sum();
            (-s).exp()
        };
        if a == b {
            let mut r = Array2::zeros((a.nrows(), a.nrows()));
            for i in 0..a.nrows() {
                for j in 0..=i {
                    let v = at(i, j);
                    r[[i, j]] = v;
                    r[[j, i]] = v;
                }
            }
            r
        } else {
            Array2::from_shape_fn((a.nrows(), b.nrows()), |(i, j)| at(i, j))
        }
    }

    /// [`Kriging::correlation`] of the copies of [`Model::predict_replaced`] (row
    /// c·n + i is row i of `x` with input `feature` set to `values[[c, i]]`) and the
    /// training rows, the same numbers with fewer powers: a row's terms t_k, k ≠
    /// `feature`, are computed once for all its copies, and a copy whose value is one
    /// for every row (a PD grid point) has its t_feature computed once per training row.
    fn replaced_correlation(
        &self,
        x: ArrayView2<'_, f64>,
        feature: usize,
        values: ArrayView2<'_, f64>,
    ) -> Array2<f64> {
        let (copies, n) = values.dim();
        let (train, d) = self.x.dim();
        let inv_theta: Vec<f64> = self.theta.iter().map(|t| 1.0 / t).collect();
        let feature_terms = |v: f64| -> Vec<f64> {
            (0..train)
                .map(|b| self.term(feature, v, self.x[[b, feature]], &inv_theta))
                .collect()
        };
        let shared: Vec<Option<Vec<f64>>> = values
            .rows()
            .into_iter()
            .map(|row| {
                let v = *row.first()?;
                row.iter()
                    .all(|w| w.to_bits() == v.to_bits())
                    .then(|| feature_terms(v))
            })
            .collect();
        let mut rs = Array2::zeros((copies * n, train));
        let mut own = vec![0.0; train * d];
        let mut tf = vec![0.0; train];
        for i in 0..n {
            for b in 0..train {
                for k in (0..d).filter(|&k| k != feature) {
                    own[b * d + k] = self.term(k, x[[i, k]], self.x[[b, k]], &inv_theta);
                }
            }
            for c in 0..copies {
                let tf = match &shared[c] {
                    Some(t) => t.as_slice(),
                    None => {
                        let v = values[[c, i]];
                        tf.iter_mut().enumerate().for_each(|(b, t)| {
                            *t = self.term(feature, v, self.x[[b, feature]], &inv_theta)
                        });
                        tf.as_slice()
                    }
                };
                let mut out = rs.row_mut(c * n + i);
                for b in 0..train {
                    let s: f64 = (0..d)
                        .map(|k| if k == feature { tf[b] } else { own[b * d + k] })
                        .sum();
                    out[b] = (-s).exp();
                }
            }
        }
        rs
    }

    /// L⁻¹·r*ᵀ (n × m) for the cross-correlation r* (m × n) of m rows, one blocked
    /// triangular solve.
    fn whitened(&self, rs: &Array2<f64>) -> Mat<f64> {
        let mut v = Mat::<f64>::from_fn(self.x.nrows(), rs.nrows(), |i, j| rs[[j, i]]);
        solve_lower_triangular_in_place(self.chol.as_ref(), v.as_mut(), Par::Seq);
        v
    }

    /// Simple-kriging mean β̂ + r*ᵀα and variance σ̂²·(1 − ‖L⁻¹r*‖²) of the rows whose
    /// cross-correlation with the training rows is `rs`.
    fn predict_correlated(&self, rs: &Array2<f64>) -> Predictions {
        let v = self.whitened(rs);
        let mean = rs.dot(&self.alpha).mapv(|m| m + self.beta);
        let var = Array1::from_iter((0..rs.nrows()).map(|j| {
            let q = dot(v.col_as_slice(j), v.col_as_slice(j));
            self.sigma2 * (1.0 - q).max(0.0)
        }));
        Predictions::Gaussian { mean, var }
    }
}

impl Model for Kriging {
    /// Simple-kriging mean β̂ + r*ᵀα and variance σ̂²·(1 − ‖L⁻¹r*‖²) of each row.
    fn predict(&self, x: ArrayView2<'_, f64>) -> xai_core::error::Result<Predictions> {
        Ok(self.predict_correlated(&self.correlation(x, self.x.view())))
    }

    /// [`Model::predict`] of the stacked copies, bit for bit, through
    /// [`Kriging::replaced_correlation`].
    fn predict_replaced(
        &self,
        x: ArrayView2<'_, f64>,
        feature: usize,
        values: ArrayView2<'_, f64>,
    ) -> xai_core::error::Result<Predictions> {
        Ok(self.predict_correlated(&self.replaced_correlation(x, feature, values)))
    }

    fn mean_covariance(&self) -> Option<&dyn MeanCovariance> {
        Some(self)
    }
}

/// The simple-kriging covariance σ̂²·(R** − r*ᵀR⁻¹r*') of the rows of x
/// (`predict.km(type = "SK", cov.compute = TRUE)`).
impl MeanCovariance for Kriging {
    fn covariance(&self, x: ArrayView2<'_, f64>) -> Array2<f64> {
        let rss = self.correlation(x, x);
        let v = self.whitened(&self.correlation(x, self.x.view()));
        Array2::from_shape_fn(rss.dim(), |(a, b)| {
            self.sigma2 * (rss[[a, b]] - dot(v.col_as_slice(a), v.col_as_slice(b)))
        })
    }

    /// (σ̂²/m²)·(1ᵀR**1 − ‖L⁻¹r*1‖²): one solve for the summed cross-correlation.
    fn variance_of_average(&self, x: ArrayView2<'_, f64>) -> f64 {
        let m = x.nrows() as f64;
        let rss = self.correlation(x, x).sum();
        let sums = self
            .correlation(x, self.x.view())
            .sum_axis(ndarray::Axis(0));
        let mut v = Mat::<f64>::from_fn(sums.len(), 1, |i, _| sums[i]);
        solve_lower_triangular_in_place(self.chol.as_ref(), v.as_mut(), Par::Seq);
        let q = dot(v.col_as_slice(0), v.col_as_slice(0));
        self.sigma2 * (rss - q) / (m * m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use xai_core::rng::stream_rng;

    fn design(n: usize, d: usize, seed: u64) -> (Array2<f64>, Array1<f64>) {
        let mut rng = stream_rng(seed, 0);
        let x = Array2::from_shape_fn((n, d), |_| rng.random::<f64>());
        let y = Array1::from_iter(x.rows().into_iter().map(|r| {
            (3.0 * r[0]).sin() + r.iter().skip(1).sum::<f64>() + 0.01 * rng.random::<f64>()
        }));
        (x, y)
    }

    /// Gauss–Jordan inverse with full pivoting and the determinant, written out
    /// independently of faer.
    fn inverse_and_log_det(a: &Array2<f64>) -> (Array2<f64>, f64) {
        let n = a.nrows();
        let mut m = a.clone();
        let mut inv = Array2::<f64>::eye(n);
        let mut log_det = 0.0;
        for c in 0..n {
            let piv = (c..n)
                .max_by(|&i, &j| m[[i, c]].abs().total_cmp(&m[[j, c]].abs()))
                .unwrap();
            if piv != c {
                for k in 0..n {
                    m.swap([c, k], [piv, k]);
                    inv.swap([c, k], [piv, k]);
                }
            }
            let pv = m[[c, c]];
            log_det += pv.abs().ln();
            for k in 0..n {
                m[[c, k]] /= pv;
                inv[[c, k]] /= pv;
            }
            for i in 0..n {
                if i != c {
                    let f = m[[i, c]];
                    for k in 0..n {
                        m[[i, k]] -= f * m[[c, k]];
                        inv[[i, k]] -= f * inv[[c, k]];
                    }
                }
            }
        }
        (inv, log_det)
    }

    fn dense_log_lik(x: &Array2<f64>, y: &Array1<f64>, theta: &[f64], p: &[f64]) -> f64 {
        let n = x.nrows();
        let r = Array2::from_shape_fn((n, n), |(a, b)| {
            let s: f64 = (0..x.ncols())
                .map(|k| ((x[[a, k]] - x[[b, k]]).abs() / theta[k]).powf(p[k]))
                .sum();
            (-s).exp()
        });
        let (rinv, log_det) = inverse_and_log_det(&r);
        let one = Array1::<f64>::ones(n);
        let beta = one.dot(&rinv.dot(y)) / one.dot(&rinv.dot(&one));
        let e = y - beta;
        let sigma2 = e.dot(&rinv.dot(&e)) / n as f64;
        let nf = n as f64;
        -0.5 * (nf * (2.0 * std::f64::consts::PI * sigma2).ln() + log_det + nf)
    }

    /// The first parameter whose gradient entry disagrees with central finite
    /// differences of the dense likelihood beyond 1e-5 (relative), if any.
    fn finite_difference_mismatch(
        x: &Array2<f64>,
        y: &Array1<f64>,
        params: &[f64],
        grad: &[f64],
    ) -> Option<usize> {
        let d = x.ncols();
        let mut at = params.to_vec();
        (0..2 * d).find(|&k| {
            let (v, h) = (at[k], 1e-6 * at[k]);
            at[k] = v + h;
            let up = dense_log_lik(x, y, &at[..d], &at[d..]);
            at[k] = v - h;
            let down = dense_log_lik(x, y, &at[..d], &at[d..]);
            at[k] = v;
            let fd = (up - down) / (2.0 * h);
            (grad[k] - fd).abs() > 1e-5 * fd.abs().max(1.0)
        })
    }

    #[test]
    fn likelihood_matches_a_dense_computation_and_its_gradient_finite_differences() {
        let (x, y) = design(25, 3, 1);
        let theta = [0.4, 0.9, 0.25];
        let p = [1.9, 1.2, 0.7];
        let (l, g) = concentrated_log_likelihood(x.view(), y.view(), &theta, &p).unwrap();
        let dense = dense_log_lik(&x, &y, &theta, &p);
        assert!(
            (l - dense).abs() < 1e-9 * dense.abs().max(1.0),
            "{l} vs {dense}"
        );
        let params: Vec<f64> = theta.iter().chain(&p).copied().collect();
        assert_eq!(
            finite_difference_mismatch(&x, &y, &params, &g),
            None,
            "{g:?}"
        );
        // The comparison can fail: the θ-gradient without its factor p_k/θ_k is caught.
        let mut wrong = g.clone();
        for k in 0..3 {
            wrong[k] *= theta[k] / p[k];
        }
        assert_eq!(finite_difference_mismatch(&x, &y, &params, &wrong), Some(0));
    }

    #[test]
    fn replaced_copies_predict_the_stacked_rows_bit_for_bit() {
        let (x, y) = design(30, 3, 4);
        let m = Kriging::with_parameters(x.view(), y.view(), &[0.4, 0.9, 0.25], &[1.9, 1.2, 0.7])
            .unwrap();
        let (rows, _) = design(7, 3, 5);
        let mut rng = stream_rng(6, 0);
        // A PD grid (one value per copy) and permutation-like copies (a value per row).
        let grid = Array2::from_shape_fn((4, 7), |(c, _)| 0.2 * c as f64 + 0.1);
        let drawn = Array2::from_shape_fn((3, 7), |_| rng.random::<f64>());
        for values in [grid, drawn] {
            for feature in 0..3 {
                let ours = m
                    .predict_replaced(rows.view(), feature, values.view())
                    .unwrap();
                let stacked =
                    xai_core::model::predict_stacked(&m, rows.view(), feature, values.view())
                        .unwrap();
                let (
                    Predictions::Gaussian { mean: a, var: va },
                    Predictions::Gaussian { mean: b, var: vb },
                ) = (ours, stacked)
                else {
                    panic!()
                };
                let bits = |v: &Array1<f64>| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&a), bits(&b), "mean, feature {feature}");
                assert_eq!(bits(&va), bits(&vb), "variance, feature {feature}");
            }
        }
    }

    #[test]
    fn fit_interpolates_and_beats_its_start() {
        let (x, y) = design(40, 2, 2);
        let mut rng = stream_rng(3, 0);
        let m = Kriging::fit(x.view(), y.view(), &KrigingParams::default(), &mut rng).unwrap();
        // No nugget: the SK mean interpolates the training rows, with variance ~0.
        let Predictions::Gaussian { mean, var } = m.predict(x.view()).unwrap() else {
            panic!()
        };
        for i in 0..40 {
            assert!(
                (mean[i] - y[i]).abs() < 1e-6,
                "row {i}: {} vs {}",
                mean[i],
                y[i]
            );
            assert!(var[i] < 1e-6 * m.process_variance());
        }
        // The optimum is at least as good as any parameter in a small lattice of the box.
        for th in [0.1, 0.5, 1.0] {
            for p in [1.0, 1.5, 2.0] {
                if let Ok((l, _)) =
                    concentrated_log_likelihood(x.view(), y.view(), &[th, th], &[p, p])
                {
                    assert!(
                        m.log_likelihood() >= l - 1e-6,
                        "{} < {l}",
                        m.log_likelihood()
                    );
                }
            }
        }
    }

    #[test]
    fn covariance_agrees_with_its_average_and_the_predictive_variance() {
        let (x, y) = design(30, 2, 4);
        let m = Kriging::with_parameters(x.view(), y.view(), &[0.5, 0.8], &[1.8, 1.5]).unwrap();
        let (xt, _) = design(7, 2, 5);
        let k = m.covariance(xt.view());
        let avg = m.variance_of_average(xt.view());
        assert!((k.sum() / 49.0 - avg).abs() < 1e-12 * avg.abs().max(1e-12));
        let Predictions::Gaussian { var, .. } = m.predict(xt.view()).unwrap() else {
            panic!()
        };
        for i in 0..7 {
            assert!(
                (k[[i, i]] - var[i]).abs() < 1e-12,
                "{} vs {}",
                k[[i, i]],
                var[i]
            );
        }
    }

    #[test]
    fn refuses_a_constant_input() {
        let (mut x, y) = design(10, 2, 6);
        x.column_mut(1).fill(0.3);
        let mut rng = stream_rng(1, 0);
        let e = Kriging::fit(x.view(), y.view(), &KrigingParams::default(), &mut rng).unwrap_err();
        assert!(e.to_string().contains("constant"), "{e}");
    }
}
