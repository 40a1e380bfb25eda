//! Gaussian process regression with an ARD RBF kernel plus white noise.
//!
//! Kernel (scikit-learn's `ConstantKernel·RBF(ℓ) + WhiteKernel`, wood2024 §4 "GP with
//! an RBF kernel", PAPERS.md §1.2):
//!
//! k(x, x') = σ_f²·exp(−½·Σ_k (x_k − x'_k)²/ℓ_k²) + σ_n²·1(x = x'),
//!
//! with hyperparameters θ = (log σ_f², log ℓ_1..ℓ_d, log σ_n²) (scikit-learn's order).
//! They maximise the log marginal likelihood (Rasmussen & Williams 2006, Eq. 5.8)
//!
//! log p(y | X, θ) = −½·yᵀK⁻¹y − ½·log|K| − (n/2)·log 2π,
//!
//! whose gradient is ∂/∂θ_p = ½·tr((ααᵀ − K⁻¹)·∂K/∂θ_p), α = K⁻¹y (R&W Eq. 5.9), with
//! ∂K/∂log σ_f² = K_f, ∂K/∂log ℓ_k = K_f ∘ (Δ_k²/ℓ_k²), ∂K/∂log σ_n² = σ_n²·I.
//! Inputs and target are standardised internally (mean, population sd) by default.
//!
//! Prediction (R&W Eq. 2.25–2.26): mean k*ᵀα, latent variance σ_f² − k*ᵀK⁻¹k*; the
//! returned predictive variance adds σ_n², as wood2024's predictive distribution does,
//! and is scaled back by the target's variance.

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
use crate::error::ParamError;
use crate::kind::LearnerKind;
use crate::optim::{LbfgsOptions, dot, minimize_box};
use crate::standardize::Standardizer;

/// Hyperparameter bounds exp(±11.51) = 1e∓5, scikit-learn's defaults.
const LOG_BOUND: f64 = 11.512925464970229;

/// Settings of the GP learner (all optional in YAML).
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct GpParams {
    /// Optimiser starts after the first one (which starts from θ = 0, all
    /// hyperparameters 1, as scikit-learn does). Restart r draws log σ_f², log ℓ_k
    /// and log σ_n² uniformly from [log 0.1, log 10], [log 0.1, log 10] and
    /// [log 1e-3, log 1] (on standardised inputs); the best optimum is kept.
    pub restarts: usize,
    /// Standardise each input column with its training mean and population sd.
    pub standardize_inputs: bool,
    /// Standardise the target (scikit-learn's `normalize_y`); variances are scaled
    /// back by the target's variance.
    pub standardize_target: bool,
    /// Iteration cap of each optimiser run.
    #[schemars(range(min = 1))]
    pub max_iter: usize,
    /// Added to the kernel diagonal for numerical stability (scikit-learn's `alpha`).
    #[schemars(range(min = 0))]
    pub jitter: f64,
    /// One length scale per input (ARD, the default) or one shared by all inputs
    /// (isotropic, scikit-learn's `RBF()` default and PAPERS.md §1.2's proposal).
    pub ard: bool,
    /// Bounds [lo, hi] of every length scale, in the units the GP works in
    /// (standardised inputs by default); scikit-learn's `length_scale_bounds`,
    /// default [1e-5, 1e5] like every other hyperparameter.
    pub length_scale_bounds: (f64, f64),
}

impl Default for GpParams {
    fn default() -> Self {
        Self {
            restarts: 4,
            standardize_inputs: true,
            standardize_target: true,
            max_iter: 200,
            jitter: 1e-10,
            ard: true,
            length_scale_bounds: (1e-5, 1e5),
        }
    }
}

impl LearnerKind for GpParams {
    /// Checks the settings before any work starts: each within the range its field
    /// declares ([`xai_core::settings::check_value`]), and `length_scale_bounds` = [lo, hi] with
    /// 0 < lo < hi < ∞.
    fn validate(&self) -> Result<(), ParamError> {
        xai_core::settings::check_value(self)?;
        let (lo, hi) = self.length_scale_bounds;
        if !(lo > 0.0 && lo < hi && hi.is_finite()) {
            return Err(ParamError::out_of_range(
                "length_scale_bounds",
                format!("[{lo}, {hi}]"),
                "[lo, hi] with 0 < lo < hi < inf",
            ));
        }
        Ok(())
    }

    fn describe(&self) -> &'static str {
        "Gaussian process"
    }

    /// [`Capabilities::MEAN_COVARIANCE_ONLY`].
    fn capabilities(&self) -> Capabilities {
        Capabilities::MEAN_COVARIANCE_ONLY
    }

    /// 8·(4n² + 2nd + 4n) (`fit_memory_bytes`).
    fn fit_memory_bytes(&self, n: u128, d: u128) -> u128 {
        fit_memory_bytes(n, d)
    }

    /// 8·(mn + md + 4m) (`predict_memory_bytes`).
    fn predict_memory_bytes(&self, n: u128, m: u128, d: u128) -> u128 {
        predict_memory_bytes(n, m, d)
    }

    fn build(&self) -> Box<dyn Learner> {
        Box::new(GaussianProcessLearner(self.clone()))
    }
}

/// Peak bytes [`GaussianProcess::fit`] allocates on n rows and d inputs:
/// 8·(4n² + 2nd + 4n). One log-likelihood evaluation holds four n × n matrices at once
/// (K_f, the Cholesky factor L, K⁻¹ and faer's scratch L⁻¹ while it inverts; the
/// kernel K = K_f + σ²I lives only during the factorisation, beside K_f and L); the
/// standardised inputs and their row-major copy take 2nd, the target, α and the
/// solves 4n. Evaluations run one after another, so this is also the peak of the fit.
/// Not counted: the packing buffers faer's matrix products keep per thread (a few MiB,
/// allocated once).
pub(crate) fn fit_memory_bytes(n: u128, d: u128) -> u128 {
    crate::memory::bytes(&[&[32, n, n], &[16, n, d], &[32, n]])
}

/// Peak bytes one [`GaussianProcess::predict_mean_var`] on m rows allocates, n training
/// rows, d inputs: 8·(mn + md + 4m): the n × m cross-kernel K*, solved in place into
/// L⁻¹K*, the standardised rows, and the mean and variance vectors.
pub(crate) fn predict_memory_bytes(n: u128, m: u128, d: u128) -> u128 {
    crate::memory::bytes(&[&[8, m, n], &[8, m, d], &[32, m]])
}

/// Fitted hyperparameters: variances in standardised-target units (scikit-learn's
/// convention), length scales in the units of the original inputs.
#[derive(Debug, Clone, PartialEq)]
pub struct GpHyperparameters {
    /// σ_f², the constant kernel's value.
    pub signal_var: f64,
    /// ℓ_1..ℓ_d.
    pub length_scales: Vec<f64>,
    /// σ_n², the white-noise level.
    pub noise_var: f64,
}

/// The GP learner.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GaussianProcessLearner(pub GpParams);

impl Learner for GaussianProcessLearner {
    fn fit(&self, data: &Dataset, rng: &mut dyn Rng) -> xai_core::error::Result<Box<dyn Model>> {
        let Target::Continuous(y) = data.y() else {
            return Err(CoreError::Fit(
                "Gaussian process regression needs a continuous target; this dataset has classes"
                    .into(),
            ));
        };
        Ok(Box::new(GaussianProcess::fit(
            data.x(),
            y.view(),
            &self.0,
            rng,
        )?))
    }
}

/// A fitted GP regression model.
#[derive(Debug, Clone)]
pub struct GaussianProcess {
    x: Array2<f64>,
    inputs: Standardizer,
    y_shift: f64,
    y_scale: f64,
    theta: Vec<f64>,
    chol: Mat<f64>,
    alpha: Array1<f64>,
    lml: f64,
    evaluations: usize,
}

impl GaussianProcess {
    /// Fits the hyperparameters by maximising the log marginal likelihood from
    /// `1 + params.restarts` starts (the first θ = 0), then conditions on the data.
    pub fn fit<R: Rng + ?Sized>(
        x: ArrayView2<'_, f64>,
        y: ArrayView1<'_, f64>,
        params: &GpParams,
        rng: &mut R,
    ) -> Result<Self, CoreError> {
        params.validate()?;
        if x.nrows() != y.len() || x.nrows() < 2 {
            return Err(CoreError::Shape(format!(
                "GP fit needs at least 2 rows and one target per row; got {} rows, {} targets",
                x.nrows(),
                y.len()
            )));
        }
        let inputs = Standardizer::fit(x, params.standardize_inputs, 0.0);
        let (y_shift, y_scale) = target_scaling(y, params.standardize_target);
        let xs = inputs.apply(x);
        let ys = y.mapv(|v| (v - y_shift) / y_scale);
        let d = x.ncols();
        let p = if params.ard { d + 2 } else { 3 };
        let mut lower = vec![-LOG_BOUND; p];
        let mut upper = vec![LOG_BOUND; p];
        for k in 1..p - 1 {
            lower[k] = params.length_scale_bounds.0.ln();
            upper[k] = params.length_scale_bounds.1.ln();
        }
        let opts = LbfgsOptions {
            max_iter: params.max_iter,
            ..Default::default()
        };
        let mut best: Option<(f64, Vec<f64>)> = None;
        let mut evaluations = 0;
        for start in 0..=params.restarts {
            let theta0 = if start == 0 {
                vec![0.0; p]
            } else {
                random_start(p, rng)
            };
            let objective = |free: &[f64]| {
                evaluations += 1;
                let theta = expand(free, d);
                log_marginal_likelihood(xs.view(), ys.view(), &theta, params.jitter)
                    .ok()
                    .map(|(l, g)| (-l, reduce(&g, p).iter().map(|v| -v).collect()))
            };
            if let Some(m) = minimize_box(objective, &theta0, &lower, &upper, opts)
                && best.as_ref().is_none_or(|(l, _)| -m.f > *l)
            {
                best = Some((-m.f, expand(&m.x, d)));
            }
        }
        let (_, theta) = best.ok_or_else(|| {
            CoreError::Fit("the kernel matrix was not positive definite at any start".into())
        })?;
        let mut gp = Self::condition(xs, ys, inputs, (y_shift, y_scale), theta, params.jitter)?;
        gp.evaluations = evaluations;
        Ok(gp)
    }

    /// The GP with fixed hyperparameters `theta` (log scale, in standardised units when
    /// `params` standardises), conditioned on (x, y) without optimising.
    pub fn with_hyperparameters(
        x: ArrayView2<'_, f64>,
        y: ArrayView1<'_, f64>,
        theta: &[f64],
        params: &GpParams,
    ) -> Result<Self, CoreError> {
        let inputs = Standardizer::fit(x, params.standardize_inputs, 0.0);
        let scaling = target_scaling(y, params.standardize_target);
        let xs = inputs.apply(x);
        let ys = y.mapv(|v| (v - scaling.0) / scaling.1);
        Self::condition(xs, ys, inputs, scaling, theta.to_vec(), params.jitter)
    }

    fn condition(
        x: Array2<f64>,
        y: Array1<f64>,
        inputs: Standardizer,
        (y_shift, y_scale): (f64, f64),
        theta: Vec<f64>,
        jitter: f64,
    ) -> Result<Self, CoreError> {
        let d = x.ncols();
        let flat = x.as_standard_layout().to_owned();
        let f = factor(
            flat.as_slice().expect("standard layout"),
            d,
            y.view(),
            &theta,
            jitter,
        )?;
        Ok(Self {
            x,
            inputs,
            y_shift,
            y_scale,
            theta,
            chol: f.llt.L().to_owned(),
            alpha: f.alpha,
            lml: f.lml,
            evaluations: 0,
        })
    }

    /// log p(y | X, θ̂) at the fitted hyperparameters (standardised target).
    pub fn log_marginal_likelihood(&self) -> f64 {
        self.lml
    }

    /// θ̂ = (log σ_f², log ℓ_1..ℓ_d, log σ_n²) in the internal (standardised) units.
    pub fn theta(&self) -> &[f64] {
        &self.theta
    }

    /// Number of log-likelihood evaluations the fit made, over all starts.
    pub fn evaluations(&self) -> usize {
        self.evaluations
    }

    /// The fitted hyperparameters, length scales in original input units.
    pub fn hyperparameters(&self) -> GpHyperparameters {
        let d = self.x.ncols();
        GpHyperparameters {
            signal_var: self.theta[0].exp(),
            length_scales: (0..d)
                .map(|k| self.theta[1 + k].exp() * self.inputs.scale[k])
                .collect(),
            noise_var: self.theta[d + 1].exp(),
        }
    }

    /// Predictive mean and full predictive variance (latent + noise), original units:
    /// the n × m cross-kernel K* is built in the column layout the solve takes, the
    /// means are k*ᵀα per column, then one blocked triangular solve V = L⁻¹K* for all
    /// rows gives the latent variances σ_f² − ‖v_j‖².
    pub fn predict_mean_var(&self, x: ArrayView2<'_, f64>) -> (Array1<f64>, Array1<f64>) {
        let xs = self.inputs.apply(x);
        let signal = self.theta[0].exp();
        let noise = self.theta[self.x.ncols() + 1].exp();
        let m = xs.nrows();
        let mut v = cross_kernel_columns(self.x.view(), xs.view(), &self.theta);
        let alpha = self.alpha.as_slice().expect("contiguous");
        let mean = Array1::from_iter(
            (0..m).map(|j| dot(v.col_as_slice(j), alpha) * self.y_scale + self.y_shift),
        );
        solve_lower_triangular_in_place(self.chol.as_ref(), v.as_mut(), Par::Seq);
        let var = Array1::from_iter((0..m).map(|j| {
            let q = dot(v.col_as_slice(j), v.col_as_slice(j));
            ((signal - q).max(0.0) + noise) * self.y_scale * self.y_scale
        }));
        (mean, var)
    }
}

impl Model for GaussianProcess {
    fn predict(&self, x: ArrayView2<'_, f64>) -> xai_core::error::Result<Predictions> {
        let (mean, var) = self.predict_mean_var(x);
        Ok(Predictions::Gaussian { mean, var })
    }

    fn mean_covariance(&self) -> Option<&dyn MeanCovariance> {
        Some(self)
    }
}

impl GaussianProcess {
    /// L⁻¹·K* for the rows of `xs` (standardised): n × m, column j = L⁻¹k(·, x_j).
    fn whitened(&self, xs: ArrayView2<'_, f64>) -> Mat<f64> {
        let mut v = cross_kernel_columns(self.x.view(), xs, &self.theta);
        solve_lower_triangular_in_place(self.chol.as_ref(), v.as_mut(), Par::Seq);
        v
    }
}

/// The posterior (simple-kriging) covariance of the latent mean f at the rows of x,
/// K** − K*ᵀ(K + σ_n²I)⁻¹K*, in the target's units (the noise σ_n² is not part of
/// it: molnar2023 §2.5's "mod" band is about the mean).
impl MeanCovariance for GaussianProcess {
    fn covariance(&self, x: ArrayView2<'_, f64>) -> Array2<f64> {
        let xs = self.inputs.apply(x);
        let kss = cross_kernel(xs.view(), xs.view(), &self.theta);
        let v = self.whitened(xs.view());
        let s2 = self.y_scale * self.y_scale;
        Array2::from_shape_fn(kss.dim(), |(a, b)| {
            (kss[[a, b]] - dot(v.col_as_slice(a), v.col_as_slice(b))) * s2
        })
    }

    /// (1/m²)·(1ᵀK**1 − ‖L⁻¹K*1‖²): one solve for the summed cross-kernel column
    /// instead of m, O(m²·d + n·m + n²).
    fn variance_of_average(&self, x: ArrayView2<'_, f64>) -> f64 {
        let xs = self.inputs.apply(x);
        let m = xs.nrows() as f64;
        let kss = cross_kernel(xs.view(), xs.view(), &self.theta).sum();
        let ks = cross_kernel_columns(self.x.view(), xs.view(), &self.theta);
        let n = ks.nrows();
        let mut sums = Mat::<f64>::zeros(n, 1);
        for j in 0..ks.ncols() {
            for (s, k) in sums.col_as_slice_mut(0).iter_mut().zip(ks.col_as_slice(j)) {
                *s += k;
            }
        }
        solve_lower_triangular_in_place(self.chol.as_ref(), sums.as_mut(), Par::Seq);
        let q = dot(sums.col_as_slice(0), sums.col_as_slice(0));
        (kss - q) / (m * m) * self.y_scale * self.y_scale
    }
}

/// The full θ (d + 2 values) from the optimised ones: ARD θ as is; isotropic
/// (log σ_f², log ℓ, log σ_n²) with ℓ repeated for every input.
fn expand(free: &[f64], d: usize) -> Vec<f64> {
    if free.len() == d + 2 {
        return free.to_vec();
    }
    let mut theta = vec![free[1]; d + 2];
    theta[0] = free[0];
    theta[d + 1] = free[2];
    theta
}

/// The gradient in the optimised parameters: for the shared length scale the sum of
/// the per-input derivatives (chain rule).
fn reduce(grad: &[f64], p: usize) -> Vec<f64> {
    if grad.len() == p {
        return grad.to_vec();
    }
    let d = grad.len() - 2;
    vec![grad[0], grad[1..=d].iter().sum(), grad[d + 1]]
}

fn target_scaling(y: ArrayView1<'_, f64>, enabled: bool) -> (f64, f64) {
    if !enabled {
        return (0.0, 1.0);
    }
    let sd = y.std(0.0);
    (
        y.mean().expect("at least one row"),
        if sd > 0.0 { sd } else { 1.0 },
    )
}

fn random_start<R: Rng + ?Sized>(p: usize, rng: &mut R) -> Vec<f64> {
    let ten = 10f64.ln();
    let mut theta: Vec<f64> = (0..p - 1).map(|_| rng.random_range(-ten..ten)).collect();
    theta.push(rng.random_range(-3.0 * ten..0.0));
    theta
}

/// K_f(a, b) = σ_f²·exp(−½·Σ_k (a_k − b_k)²/ℓ_k²) for every row pair of `a` (m × d)
/// and `b` (n × d), as an m × n matrix.
fn cross_kernel(a: ArrayView2<'_, f64>, b: ArrayView2<'_, f64>, theta: &[f64]) -> Array2<f64> {
    let d = a.ncols();
    let signal = theta[0].exp();
    let inv_l2: Vec<f64> = (0..d).map(|k| (-2.0 * theta[1 + k]).exp()).collect();
    let a = a.as_standard_layout();
    let b = b.as_standard_layout();
    let (a, b) = (
        a.as_slice().expect("standard layout"),
        b.as_slice().expect("standard layout"),
    );
    let n = b.len() / d.max(1);
    let mut k = Vec::with_capacity(a.len() / d.max(1) * n);
    for ra in a.chunks_exact(d) {
        k.extend(
            b.chunks_exact(d)
                .map(|rb| signal * (-0.5 * sq_dist(ra, rb, &inv_l2)).exp()),
        );
    }
    Array2::from_shape_vec((k.len() / n.max(1), n), k).expect("m·n values")
}

/// K_f(x_i, z_j) of the rows x (n × d, the training rows) and z (m × d) as the n × m
/// matrix whose column j is k(·, z_j), filled column by column: the layout of the
/// right-hand side of the solve L⁻¹K*, so no transposed copy is needed. Each column
/// first accumulates Σ_k (x̃_ik − z̃_jk)² over inputs k (x̃ = x/ℓ held input by input,
/// so the loop over the n rows is contiguous and vectorises), then takes σ_f²·exp(−½·).
fn cross_kernel_columns(x: ArrayView2<'_, f64>, z: ArrayView2<'_, f64>, theta: &[f64]) -> Mat<f64> {
    let d = x.ncols();
    let signal = theta[0].exp();
    let inv_l: Vec<f64> = (0..d).map(|c| (-theta[1 + c]).exp()).collect();
    let columns: Vec<Vec<f64>> = (0..d)
        .map(|c| x.column(c).iter().map(|v| v * inv_l[c]).collect())
        .collect();
    let mut k = Mat::<f64>::zeros(x.nrows(), z.nrows());
    for (j, row) in z.rows().into_iter().enumerate() {
        let col = k.col_as_slice_mut(j);
        for ((xc, zv), s) in columns.iter().zip(row).zip(&inv_l) {
            let zc = zv * s;
            for (o, xv) in col.iter_mut().zip(xc) {
                let t = xv - zc;
                *o += t * t;
            }
        }
        for o in col.iter_mut() {
            *o = signal * (-0.5 * *o).exp();
        }
    }
    k
}

/// Σ_k (a_k − b_k)²·w_k.
fn sq_dist(a: &[f64], b: &[f64], w: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .zip(w)
        .map(|((x, y), w)| (x - y) * (x - y) * w)
        .sum()
}

/// The training covariance K_f (symmetric; computed on one triangle).
fn train_kernel(x: &[f64], d: usize, theta: &[f64]) -> Mat<f64> {
    let n = x.len() / d;
    let signal = theta[0].exp();
    let inv_l2: Vec<f64> = (0..d).map(|k| (-2.0 * theta[1 + k]).exp()).collect();
    let mut kf = Mat::<f64>::zeros(n, n);
    for j in 0..n {
        let rj = &x[j * d..(j + 1) * d];
        kf[(j, j)] = signal;
        for i in j + 1..n {
            let v = signal * (-0.5 * sq_dist(&x[i * d..(i + 1) * d], rj, &inv_l2)).exp();
            kf[(i, j)] = v;
            kf[(j, i)] = v;
        }
    }
    kf
}

/// Cholesky factorisation of K = K_f + (σ_n² + jitter)·I with α = K⁻¹y and the log
/// marginal likelihood.
struct Factor {
    kf: Mat<f64>,
    llt: faer::linalg::solvers::Llt<f64>,
    alpha: Array1<f64>,
    lml: f64,
}

fn factor(
    x: &[f64],
    d: usize,
    y: ArrayView1<'_, f64>,
    theta: &[f64],
    jitter: f64,
) -> Result<Factor, CoreError> {
    let n = y.len();
    let noise = theta[d + 1].exp();
    let kf = train_kernel(x, d, theta);
    let mut k = kf.clone();
    for i in 0..n {
        k[(i, i)] += noise + jitter;
    }
    let llt = k.llt(Side::Lower).map_err(|e| {
        CoreError::Fit(format!(
            "kernel matrix not positive definite ({e:?}) at θ = {theta:?}"
        ))
    })?;
    // α = L⁻ᵀ(L⁻¹y).
    let mut sol = Mat::<f64>::from_fn(n, 1, |i, _| y[i]);
    solve_lower_triangular_in_place(llt.L(), sol.as_mut(), Par::Seq);
    solve_upper_triangular_in_place(llt.L().transpose(), sol.as_mut(), Par::Seq);
    let alpha = Array1::from_iter((0..n).map(|i| sol[(i, 0)]));
    let log_det_half: f64 = (0..n).map(|i| llt.L()[(i, i)].ln()).sum();
    let lml =
        -0.5 * y.dot(&alpha) - log_det_half - 0.5 * n as f64 * (2.0 * std::f64::consts::PI).ln();
    Ok(Factor {
        kf,
        llt,
        alpha,
        lml,
    })
}

/// log p(y | X, θ) and its gradient in θ = (log σ_f², log ℓ_1..ℓ_d, log σ_n²), for
/// inputs and target exactly as given (no standardisation). R&W Eq. 5.8–5.9.
pub fn log_marginal_likelihood(
    x: ArrayView2<'_, f64>,
    y: ArrayView1<'_, f64>,
    theta: &[f64],
    jitter: f64,
) -> Result<(f64, Vec<f64>), CoreError> {
    let (n, d) = x.dim();
    if theta.len() != d + 2 || theta.iter().any(|t| !t.is_finite()) {
        return Err(CoreError::Invalid(format!(
            "θ must hold d + 2 = {} finite values, got {theta:?}",
            d + 2
        )));
    }
    let xs = x.as_standard_layout();
    let xs = xs.as_slice().expect("standard layout");
    let f = factor(xs, d, y, theta, jitter)?;
    let kinv = f.llt.inverse();
    let inv_l2: Vec<f64> = (0..d).map(|k| (-2.0 * theta[1 + k]).exp()).collect();
    let noise = theta[d + 1].exp();
    let alpha = f.alpha.as_slice().expect("contiguous");
    // ½·Σ_ab W_ab·∂K_ab with W = ααᵀ − K⁻¹, over the lower triangle (off-diagonal
    // pairs counted twice).
    let mut grad = vec![0.0; d + 2];
    for b in 0..n {
        let kinv_b = kinv.col_as_slice(b);
        let kf_b = f.kf.col_as_slice(b);
        let w = alpha[b] * alpha[b] - kinv_b[b];
        grad[0] += 0.5 * w * kf_b[b];
        grad[d + 1] += 0.5 * w * noise;
        let rb = &xs[b * d..(b + 1) * d];
        for a in b + 1..n {
            let wk = (alpha[a] * alpha[b] - kinv_b[a]) * kf_b[a];
            grad[0] += wk;
            let ra = &xs[a * d..(a + 1) * d];
            for c in 0..d {
                grad[1 + c] += wk * (ra[c] - rb[c]) * (ra[c] - rb[c]) * inv_l2[c];
            }
        }
    }
    Ok((f.lml, grad))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;
    use std::f64::consts::PI;

    /// log N(y; 0, K) by a textbook Cholesky written out in loops, independent of faer.
    fn dense_lml(
        x: ArrayView2<'_, f64>,
        y: ArrayView1<'_, f64>,
        theta: &[f64],
        jitter: f64,
    ) -> f64 {
        let n = x.nrows();
        let d = x.ncols();
        let mut k = vec![vec![0.0; n]; n];
        for i in 0..n {
            for j in 0..n {
                let r2: f64 = (0..d)
                    .map(|c| ((x[[i, c]] - x[[j, c]]) / theta[1 + c].exp()).powi(2))
                    .sum();
                k[i][j] = theta[0].exp() * (-0.5 * r2).exp();
            }
            k[i][i] += theta[d + 1].exp() + jitter;
        }
        let mut l = vec![vec![0.0; n]; n];
        for i in 0..n {
            for j in 0..=i {
                let s: f64 = k[i][j] - (0..j).map(|m| l[i][m] * l[j][m]).sum::<f64>();
                l[i][j] = if i == j { s.sqrt() } else { s / l[j][j] };
            }
        }
        let mut z = vec![0.0; n];
        for i in 0..n {
            z[i] = (y[i] - (0..i).map(|m| l[i][m] * z[m]).sum::<f64>()) / l[i][i];
        }
        let quad: f64 = z.iter().map(|v| v * v).sum();
        let logdet: f64 = (0..n).map(|i| 2.0 * l[i][i].ln()).sum();
        -0.5 * quad - 0.5 * logdet - 0.5 * n as f64 * (2.0 * PI).ln()
    }

    fn toy() -> (Array2<f64>, Array1<f64>) {
        let x = array![
            [0.1, -1.2],
            [0.7, 0.3],
            [-0.4, 0.9],
            [1.5, -0.2],
            [-1.1, -0.8],
            [0.2, 1.7],
            [0.9, 0.8]
        ];
        let y = x
            .rows()
            .into_iter()
            .map(|r| (2.0f64 * r[0]).sin() + 0.3 * r[1])
            .collect();
        (x, y)
    }

    #[test]
    fn lml_matches_a_direct_dense_computation() {
        let (x, y) = toy();
        for theta in [
            [0.0, 0.0, 0.0, 0.0],
            [0.5, -0.3, 0.8, -2.0],
            [-1.0, 1.2, -0.5, -4.0],
        ] {
            let (lml, _) = log_marginal_likelihood(x.view(), y.view(), &theta, 1e-10).unwrap();
            let dense = dense_lml(x.view(), y.view(), &theta, 1e-10);
            assert!(
                (lml - dense).abs() < 1e-10 * dense.abs().max(1.0),
                "{lml} vs {dense}"
            );
        }
    }

    #[test]
    fn lml_gradient_matches_finite_differences() {
        let (x, y) = toy();
        let theta = [0.4, -0.2, 0.6, -1.5];
        let (_, grad) = log_marginal_likelihood(x.view(), y.view(), &theta, 0.0).unwrap();
        let h = 1e-5;
        for p in 0..theta.len() {
            let mut up = theta;
            let mut down = theta;
            up[p] += h;
            down[p] -= h;
            let fd = (log_marginal_likelihood(x.view(), y.view(), &up, 0.0)
                .unwrap()
                .0
                - log_marginal_likelihood(x.view(), y.view(), &down, 0.0)
                    .unwrap()
                    .0)
                / (2.0 * h);
            assert!(
                (grad[p] - fd).abs() < 1e-6 * fd.abs().max(1.0),
                "θ_{p}: analytic {} vs finite difference {fd}",
                grad[p]
            );
        }
    }

    #[test]
    fn isotropic_kernel_shares_one_length_scale_and_nests_in_ard() {
        let (x, y) = toy();
        let iso = GpParams {
            ard: false,
            standardize_inputs: false,
            ..Default::default()
        };
        let mut rng = xai_core::rng::stream_rng(4, 0);
        let gp_iso = GaussianProcess::fit(x.view(), y.view(), &iso, &mut rng).unwrap();
        let l = gp_iso.hyperparameters().length_scales;
        assert_eq!(l[0], l[1]);
        // The chain-rule gradient of the shared length scale drove the optimiser to a
        // stationary point: the summed per-input derivative vanishes there.
        let ys = (&y - y.mean().unwrap()) / y.std(0.0);
        let (_, g) =
            log_marginal_likelihood(x.view(), ys.view(), gp_iso.theta(), iso.jitter).unwrap();
        assert!((g[1] + g[2]).abs() < 1e-3, "{g:?}");
        let ard = GpParams { ard: true, ..iso };
        let gp_ard = GaussianProcess::fit(x.view(), y.view(), &ard, &mut rng).unwrap();
        assert!(gp_ard.log_marginal_likelihood() >= gp_iso.log_marginal_likelihood() - 1e-6);
    }

    #[test]
    fn prediction_on_one_training_point_by_hand() {
        // x = 0, y = 1, σ_f² = 1, ℓ = 1, σ_n² = 0.1, no standardisation:
        // K = 1.1; at x*: k = exp(−x*²/2), mean = k/1.1, var = 1 − k²/1.1 + 0.1.
        let params = GpParams {
            standardize_inputs: false,
            standardize_target: false,
            jitter: 0.0,
            ..Default::default()
        };
        let theta = [0.0, 0.0, 0.1f64.ln()];
        let gp = GaussianProcess::with_hyperparameters(
            array![[0.0]].view(),
            array![1.0].view(),
            &theta,
            &params,
        )
        .unwrap();
        let (mean, var) = gp.predict_mean_var(array![[0.0], [1.0]].view());
        let k1 = (-0.5f64).exp();
        assert!((mean[0] - 1.0 / 1.1).abs() < 1e-14);
        assert!((var[0] - (1.0 - 1.0 / 1.1 + 0.1)).abs() < 1e-14);
        assert!((mean[1] - k1 / 1.1).abs() < 1e-14);
        assert!((var[1] - (1.0 - k1 * k1 / 1.1 + 0.1)).abs() < 1e-14);
        // LML = log N(1; 0, 1.1).
        let expected = -0.5 / 1.1 - 0.5 * (2.0 * PI * 1.1).ln();
        assert!((gp.log_marginal_likelihood() - expected).abs() < 1e-14);
    }

    #[test]
    fn the_posterior_mean_covariance_is_the_predictive_variance_less_the_noise() {
        // K = K** − K*ᵀ(K + σ_n²I)⁻¹K*: symmetric, its diagonal plus σ_n² is the
        // predictive variance, and the one-solve 1ᵀK1/m² equals the full matrix's.
        let mut rng = xai_core::rng::stream_rng(5, 0);
        let n = 40;
        let x = Array2::from_shape_fn((n, 2), |_| rng.random::<f64>() * 2.0);
        let y = Array1::from_iter(
            (0..n).map(|i| x[[i, 0]].sin() + 0.5 * x[[i, 1]] + 0.1 * rng.random::<f64>()),
        );
        let gp = GaussianProcess::fit(x.view(), y.view(), &GpParams::default(), &mut rng).unwrap();
        let test = array![[0.3, 0.2], [1.0, 1.5], [1.9, 0.4], [3.0, 3.0]];
        let k = gp.mean_covariance().unwrap().covariance(test.view());
        let (_, var) = gp.predict_mean_var(test.view());
        let noise = gp.theta()[3].exp() * gp.y_scale * gp.y_scale;
        for a in 0..4 {
            assert!((k[[a, a]] + noise - var[a]).abs() < 1e-10 * var[a], "{a}");
            for b in 0..4 {
                assert!((k[[a, b]] - k[[b, a]]).abs() < 1e-12);
            }
        }
        // Far from the data the latent variance approaches the prior σ_f²·scale².
        assert!(k[[3, 3]] > 10.0 * k[[1, 1]], "{k:?}");
        let fast = gp.variance_of_average(test.view());
        let full = k.sum() / 16.0;
        assert!((fast - full).abs() < 1e-10 * full, "{fast} vs {full}");
    }

    #[test]
    fn fit_recovers_a_smooth_function_and_the_noise() {
        let mut rng = xai_core::rng::stream_rng(3, 0);
        let n = 80;
        let x = Array2::from_shape_fn((n, 1), |(i, _)| -3.0 + 6.0 * i as f64 / (n - 1) as f64);
        let noise: Vec<f64> = (0..n)
            .map(|_| rand_distr::Distribution::<f64>::sample(&rand_distr::StandardNormal, &mut rng))
            .collect();
        let y = Array1::from_iter((0..n).map(|i| x[[i, 0]].sin() + 0.1 * noise[i]));
        let gp = GaussianProcess::fit(x.view(), y.view(), &GpParams::default(), &mut rng).unwrap();
        let (mean, var) = gp.predict_mean_var(array![[0.5], [1.5]].view());
        assert!((mean[0] - 0.5f64.sin()).abs() < 0.05 && (mean[1] - 1.5f64.sin()).abs() < 0.05);
        // Predictive variance ≈ noise variance 0.01 inside the data.
        assert!(var[0] > 0.005 && var[0] < 0.02, "var {}", var[0]);
    }

    #[test]
    fn inverted_length_scale_bounds_are_refused() {
        let e = GpParams {
            length_scale_bounds: (1.0, 0.5),
            ..Default::default()
        }
        .validate()
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "`length_scale_bounds` = [1, 0.5] is invalid: must be [lo, hi] with 0 < lo < hi < inf"
        );
        GpParams::default().validate().unwrap();
    }
}
