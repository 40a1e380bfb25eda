//! ε-support vector regression with an RBF kernel, as R's e1071 `svm()` fits it
//! (libsvm's ε-SVR with e1071's defaults): features and target scaled to mean 0 and
//! sample sd 1, k(a, b) = exp(−γ‖a − b‖²) with γ = 1/p, cost C = 1, ε = 0.1, and
//! libsvm's stopping tolerance 0.001 (molnar2023 Fig. 3, PAPERS.md §2.6 [code]).
//!
//! The dual (libsvm's form, Chang & Lin 2011 §2.3): 2n variables α = (α⁺, α⁻),
//! z_t = +1 for t < n and −1 after, min ½αᵀQα + pᵀα subject to zᵀα = 0 and
//! 0 ≤ α_t ≤ C, with Q_ts = z_t z_s k(x_t, x_s) and p = (ε − y, ε + y). It is solved
//! by SMO with libsvm's second-order working-set selection (Fan, Chen & Lin 2005)
//! on the precomputed kernel matrix (these fits have a few hundred rows). The model
//! is f(x) = Σ_i β_i k(x_i, x) − ρ with β_i = α⁺_i − α⁻_i and ρ from the free
//! variables (libsvm's `calculate_rho`).
//!
//! smartcore 0.7 has an SVR (a port of Smile's SMO) but its fitted model borrows its
//! parameters for its lifetime and its `predict` needs the test matrix for that same
//! lifetime, so it cannot be kept as a model; its α and ρ are private, so the dual's
//! KKT conditions cannot be checked; hence this solver.

use ndarray::{Array1, Array2, ArrayView2};
use rand::Rng;
use serde::Deserialize;
use xai_core::{CoreError, Dataset, Learner, Model, Predictions, Target};

use crate::capabilities::Capabilities;
use crate::kind::LearnerKind;
use crate::smo;
use crate::standardize::Standardizer;

/// `svr:` settings (e1071's defaults).
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct SvrParams {
    /// C, the cost of a residual beyond the tube (> 0; default 1).
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub cost: f64,
    /// ε, the half-width of the tube without loss, in scaled target units (≥ 0;
    /// default 0.1).
    #[schemars(range(min = 0))]
    pub epsilon: f64,
    /// γ of the RBF kernel, in scaled feature units (> 0; default 1/p).
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub gamma: Option<f64>,
    /// Scale features and target to mean 0, sample sd 1 (default true, e1071's).
    pub scale: bool,
    /// Stop when the maximal violation of the optimality conditions is below this
    /// (> 0; default 0.001, libsvm's `eps`).
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub tolerance: f64,
}

impl Default for SvrParams {
    fn default() -> Self {
        Self {
            cost: 1.0,
            epsilon: 0.1,
            gamma: None,
            scale: true,
            tolerance: 1e-3,
        }
    }
}

impl LearnerKind for SvrParams {
    /// Each setting within the range its field declares
    /// ([`xai_core::settings::check_value`]).
    fn validate(&self) -> Result<(), crate::ParamError> {
        Ok(xai_core::settings::check_value(self)?)
    }

    fn describe(&self) -> &'static str {
        "ε-support vector regression"
    }

    /// [`Capabilities::PREDICTIONS_ONLY`].
    fn capabilities(&self) -> Capabilities {
        Capabilities::PREDICTIONS_ONLY
    }

    /// 8·(n² + 2nd + 8n): the kernel matrix, the scaled rows twice, and the 2n dual
    /// variables and gradients.
    fn fit_memory_bytes(&self, n: u128, d: u128) -> u128 {
        crate::memory::bytes(&[&[8, n, n], &[16, n, d], &[64, n]])
    }

    /// 8·(mn + md + m): the cross-kernel with at most n support vectors, the scaled rows
    /// and the predictions.
    fn predict_memory_bytes(&self, n: u128, m: u128, d: u128) -> u128 {
        crate::memory::bytes(&[&[8, m, n], &[8, m, d], &[8, m]])
    }

    fn build(&self) -> Box<dyn Learner> {
        Box::new(SvrLearner(self.clone()))
    }
}

/// The ε-SVR learner.
#[derive(Debug, Clone, Default)]
pub struct SvrLearner(pub SvrParams);

impl Learner for SvrLearner {
    fn fit(&self, data: &Dataset, _rng: &mut dyn Rng) -> xai_core::error::Result<Box<dyn Model>> {
        let Target::Continuous(y) = data.y() else {
            return Err(CoreError::Fit(
                "ε-SVR is a regression; this dataset has classes".into(),
            ));
        };
        Ok(Box::new(Svr::fit(
            data.x(),
            y.as_slice().expect("contiguous"),
            &self.0,
        )))
    }
}

/// A fitted ε-SVR.
#[derive(Debug, Clone)]
pub struct Svr {
    inputs: Standardizer,
    y_shift: f64,
    y_scale: f64,
    gamma: f64,
    /// The scaled training rows with β_i ≠ 0.
    support: Array2<f64>,
    /// Their β_i = α⁺_i − α⁻_i.
    beta: Array1<f64>,
    rho: f64,
    iterations: usize,
}

impl Svr {
    /// Fits the ε-SVR to rows `x` and targets `y`.
    pub fn fit(x: ArrayView2<'_, f64>, y: &[f64], params: &SvrParams) -> Svr {
        let n = x.nrows();
        let inputs = Standardizer::fit(x, params.scale, 1.0);
        let ys = Standardizer::fit(
            Array2::from_shape_vec((n, 1), y.to_vec())
                .expect("n values")
                .view(),
            params.scale,
            1.0,
        );
        let (y_shift, y_scale) = (ys.shift[0], ys.scale[0]);
        let xs = inputs.apply(x);
        let yv: Vec<f64> = y.iter().map(|v| (v - y_shift) / y_scale).collect();
        let gamma = params.gamma.unwrap_or(1.0 / x.ncols().max(1) as f64);
        let k = rbf(xs.view(), xs.view(), gamma);
        let dual = solve_dual(&k, &yv, params.cost, params.epsilon, params.tolerance);
        let beta = dual.beta();
        let keep: Vec<usize> = (0..n).filter(|&i| beta[i] != 0.0).collect();
        Svr {
            support: xs.select(ndarray::Axis(0), &keep),
            beta: keep.iter().map(|&i| beta[i]).collect(),
            inputs,
            y_shift,
            y_scale,
            gamma,
            rho: dual.0.rho,
            iterations: dual.0.iterations,
        }
    }

    /// f(x) = Σ_i β_i k(x_i, x) − ρ in scaled units, for the scaled rows `xs`.
    fn decision(&self, xs: ArrayView2<'_, f64>) -> Array1<f64> {
        rbf(xs, self.support.view(), self.gamma).dot(&self.beta) - self.rho
    }

    /// Number of SMO iterations the fit took.
    pub fn iterations(&self) -> usize {
        self.iterations
    }

    /// Number of support vectors (β_i ≠ 0).
    pub fn n_support(&self) -> usize {
        self.beta.len()
    }
}

impl Model for Svr {
    fn predict(&self, x: ArrayView2<'_, f64>) -> xai_core::error::Result<Predictions> {
        let f = self.decision(self.inputs.apply(x).view());
        Ok(Predictions::Point(
            f.mapv(|v| v * self.y_scale + self.y_shift),
        ))
    }
}

/// exp(−γ‖a_i − b_j‖²) for the rows of `a` and `b`.
fn rbf(a: ArrayView2<'_, f64>, b: ArrayView2<'_, f64>, gamma: f64) -> Array2<f64> {
    Array2::from_shape_fn((a.nrows(), b.nrows()), |(i, j)| {
        let d2: f64 = a
            .row(i)
            .iter()
            .zip(b.row(j))
            .map(|(u, v)| (u - v) * (u - v))
            .sum();
        (-gamma * d2).exp()
    })
}

/// SMO on libsvm's ε-SVR dual with kernel matrix `k` (n × n), targets `y`, cost
/// `c`, tube `eps`: 2n variables α = (α⁺, α⁻) with z = (+1, −1), p = (ε − y, ε + y)
/// and Q_ts = z_t z_s K(row t, row s) ([`crate::smo`]).
fn solve_dual(k: &Array2<f64>, y: &[f64], c: f64, eps: f64, tol: f64) -> Dual {
    let n = y.len();
    let z: Vec<f64> = (0..2 * n).map(|t| if t < n { 1.0 } else { -1.0 }).collect();
    let p: Vec<f64> = (0..2 * n)
        .map(|t| if t < n { eps - y[t] } else { eps + y[t - n] })
        .collect();
    Dual(smo::solve(
        |t, s| z[t] * z[s] * k[[t % n, s % n]],
        &p,
        &z,
        c,
        tol,
    ))
}

/// The solution of the ε-SVR dual.
#[derive(Debug, Clone)]
struct Dual(smo::Solution);

impl Dual {
    /// β_i = α⁺_i − α⁻_i, the coefficient of row i.
    fn beta(&self) -> Vec<f64> {
        let n = self.0.alpha.len() / 2;
        (0..n)
            .map(|i| self.0.alpha[i] - self.0.alpha[i + n])
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;

    #[test]
    fn two_points_sit_on_the_edges_of_the_tube_by_hand() {
        // x = (0, 1), y = (0, 1), k = exp(−1): by symmetry β = (−b, b) and f(0) = ε,
        // f(1) = 1 − ε, so 2b(1 − k) = 1 − 2ε, b = 0.8/(2(1 − e⁻¹)) = 0.63279 < C,
        // ρ = −1/2, and f(0.5) = 1/2.
        let x = ndarray::array![[0.0], [1.0]];
        let params = SvrParams {
            scale: false,
            gamma: Some(1.0),
            tolerance: 1e-10,
            ..Default::default()
        };
        let svr = Svr::fit(x.view(), &[0.0, 1.0], &params);
        let b = 0.8 / (2.0 * (1.0 - (-1.0f64).exp()));
        assert!(
            (svr.beta[0] + b).abs() < 1e-8 && (svr.beta[1] - b).abs() < 1e-8,
            "{:?}",
            svr.beta
        );
        assert!((svr.rho + 0.5).abs() < 1e-8, "{}", svr.rho);
        let Predictions::Point(f) = svr
            .predict(ndarray::array![[0.0], [0.5], [1.0]].view())
            .unwrap()
        else {
            panic!("point predictions");
        };
        for (got, want) in f.iter().zip([0.1, 0.5, 0.9]) {
            assert!((got - want).abs() < 1e-8, "{f}");
        }
        // A tube wider than the data: no support vectors, f = the middle.
        let wide = Svr::fit(
            x.view(),
            &[0.0, 1.0],
            &SvrParams {
                epsilon: 0.6,
                ..params
            },
        );
        assert_eq!(wide.n_support(), 0);
        let Predictions::Point(f) = wide.predict(ndarray::array![[3.0]].view()).unwrap() else {
            panic!("point predictions");
        };
        assert!((f[0] - 0.5).abs() < 1e-12, "{f}");
    }

    #[test]
    fn the_solution_satisfies_the_duals_kkt_conditions() {
        // On noisy data: zᵀα = 0, 0 ≤ α ≤ C, α⁺_i α⁻_i = 0, and with r_i = y_i − f(x_i):
        // β_i = 0 ⇒ |r_i| ≤ ε; 0 < |β_i| < C ⇒ |r_i| = ε; |β_i| = C ⇒ |r_i| ≥ ε, all to
        // within the stopping tolerance.
        let mut rng = xai_core::rng::stream_rng(11, 0);
        let n = 120;
        let x = Array2::from_shape_fn((n, 2), |_| rng.random::<f64>() * 4.0 - 2.0);
        let y: Vec<f64> = (0..n)
            .map(|i| x[[i, 0]].sin() + 0.3 * x[[i, 1]] + 0.3 * (rng.random::<f64>() - 0.5))
            .collect();
        let (c, eps, tol) = (1.0, 0.1, 1e-6);
        let k = rbf(x.view(), x.view(), 0.5);
        let dual = solve_dual(&k, &y, c, eps, tol);
        let beta_of = dual.beta();
        let balance: f64 = beta_of.iter().sum();
        assert!(balance.abs() < 1e-9, "{balance}");
        let f = k.dot(&Array1::from(dual.beta())) - dual.0.rho;
        let (mut free, mut bounded, mut zero) = (0, 0, 0);
        for i in 0..n {
            let (a, b) = (dual.0.alpha[i], dual.0.alpha[i + n]);
            assert!((0.0..=c).contains(&a) && (0.0..=c).contains(&b));
            assert!(a * b < 1e-12, "row {i}: α⁺ = {a}, α⁻ = {b}");
            let r = (y[i] - f[i]).abs();
            let beta = beta_of[i].abs();
            if beta == 0.0 {
                zero += 1;
                assert!(r <= eps + 10.0 * tol, "row {i}: |r| = {r}");
            } else if beta < c {
                free += 1;
                assert!((r - eps).abs() < 10.0 * tol, "row {i}: |r| = {r}");
            } else {
                bounded += 1;
                assert!(r >= eps - 10.0 * tol, "row {i}: |r| = {r}");
            }
        }
        assert!(
            free > 0 && zero > 0 && bounded > 0,
            "{free} {zero} {bounded}"
        );
        // A violated condition is caught: a shifted ρ breaks the free rows' |r| = ε.
        let shifted = k.dot(&Array1::from(dual.beta())) - dual.0.rho - 0.05;
        assert!((0..n).any(|i| {
            let b = beta_of[i].abs();
            b > 0.0 && b < c && ((y[i] - shifted[i]).abs() - eps).abs() > 10.0 * tol
        }));
    }

    #[test]
    fn scaling_makes_the_fit_equivariant_to_units() {
        // e1071 scales features and target: refitting on 100·x and 3·y + 7 gives
        // 3·f + 7 at the scaled rows.
        let mut rng = xai_core::rng::stream_rng(12, 0);
        let n = 60;
        let x = Array2::from_shape_fn((n, 3), |_| rng.random::<f64>());
        let y: Vec<f64> = (0..n).map(|i| x[[i, 0]] * 2.0 - x[[i, 2]]).collect();
        // Solved far past libsvm's 0.001, so that rounding (which can reorder SMO's
        // steps) leaves the two solutions equal to 1e-7.
        let params = SvrParams {
            tolerance: 1e-11,
            ..SvrParams::default()
        };
        let a = Svr::fit(x.view(), &y, &params);
        let x2 = &x * 100.0;
        let y2: Vec<f64> = y.iter().map(|v| 3.0 * v + 7.0).collect();
        let b = Svr::fit(x2.view(), &y2, &params);
        let (Predictions::Point(fa), Predictions::Point(fb)) =
            (a.predict(x.view()).unwrap(), b.predict(x2.view()).unwrap())
        else {
            panic!("point predictions");
        };
        for (u, v) in fa.iter().zip(&fb) {
            assert!((3.0 * u + 7.0 - v).abs() < 1e-7, "{u} {v}");
        }
        assert!(
            SvrParams {
                cost: 0.0,
                ..params.clone()
            }
            .validate()
            .is_err()
        );
        assert!(
            SvrParams {
                gamma: Some(-1.0),
                ..params
            }
            .validate()
            .is_err()
        );
    }
}
