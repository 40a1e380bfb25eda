//! Binary C-support vector classification with a linear kernel and Platt-scaled
//! probabilities, as scikit-learn's `SVC(kernel="linear", C, probability=True)` fits
//! it through libsvm (icefi2022 Table 3's SVM, PAPERS.md §3.4).
//!
//! With y_t = ±1 (class 1 is +1) and z_t the (standardised) rows, the dual (Chang &
//! Lin 2011 §2.1) is min ½αᵀQα − 1ᵀα subject to yᵀα = 0, 0 ≤ α ≤ C, with
//! Q_ts = y_t y_s z_tᵀz_s, solved by SMO (`smo.rs`, tolerance 0.001 as
//! libsvm's). The decision function is f(z) = wᵀz − ρ with w = Σ_t α_t y_t z_t.
//!
//! Probabilities (libsvm's `svm_binary_svc_probability`, Lin, Lin & Weng 2007): the
//! rows are shuffled into `folds` parts (5); for each, an SVM fitted on the others
//! gives decision values on it (+1 or −1 when the others hold one class only); a
//! sigmoid P(y = 1 | f) = 1/(1 + exp(A·f + B)) is fitted to these out-of-fold values
//! against Platt's smoothed targets ([`crate::calibration::Calibrator`]) and applied
//! to the decision values of the SVM fitted on every row. The shuffle comes from the
//! replicate's stream (libsvm's from its own `rand()`), so A and B vary over seeds.
//!
//! Written here: smartcore 0.7's SVC gives no probabilities and keeps its support
//! vectors private; linfa-svm 0.8 fits Platt's sigmoid on the training decision
//! values (no cross-validation) and is built on ndarray 0.16 beside the workspace's
//! 0.17 (`../shared/CRATES.md`).

use ndarray::{Array1, ArrayView2, Axis};
use rand::Rng;
use rand::seq::SliceRandom;
use serde::Deserialize;
use xai_core::{CoreError, Dataset, FeatureKind, Learner, Model, Predictions};

use crate::calibration::{CalibrationMethod, Calibrator};
use crate::capabilities::{Capabilities, Coefficients};
use crate::kind::LearnerKind;
use crate::smo;
use crate::standardize::Standardizer;

/// `svc:` settings (all optional in YAML).
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SvcParams {
    /// The cost C of a margin violation (> 0; scikit-learn's default 1).
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub cost: f64,
    /// z-score every feature by its training mean and population sd first
    /// (scikit-learn's `StandardScaler`, as icefi2022's code applies before the SVM).
    pub standardize: bool,
    /// Stop SMO when the maximal violation is below this (> 0; libsvm's 0.001).
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub tolerance: f64,
    /// Folds of the cross-validation Platt's sigmoid is fitted on (≥ 2; libsvm's 5).
    #[schemars(range(min = 2))]
    pub folds: usize,
}

impl Default for SvcParams {
    fn default() -> Self {
        Self {
            cost: 1.0,
            standardize: true,
            tolerance: 1e-3,
            folds: 5,
        }
    }
}

impl LearnerKind for SvcParams {
    /// Each setting within the range its field declares
    /// ([`xai_core::settings::check_value`]).
    fn validate(&self) -> Result<(), crate::ParamError> {
        Ok(xai_core::settings::check_value(self)?)
    }

    fn describe(&self) -> &'static str {
        "linear support vector classifier"
    }

    /// Its slopes (the linear kernel's weights).
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            trees: false,
            members: false,
            gradients: false,
            coefficients: Coefficients::Always,
            mean_covariance: false,
            missing_values: false,
            predicts_label: true,
        }
    }

    /// 8·(n² + 3nd + 8n): the Gram matrix (one at a time over the Platt folds), the
    /// standardised rows and a fold's copy, dual variables, gradients and decision values.
    fn fit_memory_bytes(&self, n: u128, d: u128) -> u128 {
        crate::memory::bytes(&[&[8, n, n], &[24, n, d], &[64, n]])
    }

    /// 8·(md + 3m): the standardised rows, decision values and the two class
    /// probabilities.
    fn predict_memory_bytes(&self, _n: u128, m: u128, d: u128) -> u128 {
        crate::memory::bytes(&[&[8, m, d], &[24, m]])
    }

    fn build(&self) -> Box<dyn Learner> {
        Box::new(SvcLearner(self.clone()))
    }
}

/// The linear SVM learner.
#[derive(Debug, Clone, Default)]
pub struct SvcLearner(pub SvcParams);

impl Learner for SvcLearner {
    fn fit(&self, data: &Dataset, rng: &mut dyn Rng) -> xai_core::error::Result<Box<dyn Model>> {
        Ok(Box::new(Svc::fit(data, &self.0, rng)?))
    }
}

/// A fitted linear SVM with its Platt sigmoid.
#[derive(Debug, Clone)]
pub struct Svc {
    inputs: Standardizer,
    /// w in standardised units.
    weights: Array1<f64>,
    rho: f64,
    sigmoid: Calibrator,
}

/// w = Σ_t α_t y_t z_t and ρ of the linear SVM on rows `z` with labels `y` (±1).
fn linear_svm(z: ArrayView2<'_, f64>, y: &[f64], c: f64, tol: f64) -> (Array1<f64>, f64) {
    let gram = z.dot(&z.t());
    let ones = vec![-1.0; y.len()];
    let dual = smo::solve(|t, s| y[t] * y[s] * gram[[t, s]], &ones, y, c, tol);
    let coef: Array1<f64> = dual.alpha.iter().zip(y).map(|(a, v)| a * v).collect();
    (z.t().dot(&coef), dual.rho)
}

impl Svc {
    /// Fits the SVM on every row and Platt's sigmoid on `folds`-fold decision values
    /// (module doc); the folds' shuffle is drawn from `rng`.
    pub fn fit(data: &Dataset, params: &SvcParams, rng: &mut dyn Rng) -> Result<Self, CoreError> {
        params.validate()?;
        let labels = crate::logistic::binary_labels(data, "the linear SVM")?;
        if data
            .feature_kinds()
            .iter()
            .any(|k| matches!(k, FeatureKind::Categorical { .. }))
        {
            return Err(CoreError::Fit(
                "the linear SVM takes continuous features only; encode categorical ones first"
                    .into(),
            ));
        }
        if !(labels.iter().any(|&c| c == 0) && labels.iter().any(|&c| c == 1)) {
            return Err(CoreError::Fit(
                "the SVM needs rows of both classes; these rows hold one".into(),
            ));
        }
        let inputs = Standardizer::fit(data.x(), params.standardize, 0.0);
        let z = inputs.apply(data.x());
        let y: Vec<f64> = labels
            .iter()
            .map(|&c| if c == 1 { 1.0 } else { -1.0 })
            .collect();
        let (c, tol) = (params.cost, params.tolerance);
        let (weights, rho) = linear_svm(z.view(), &y, c, tol);
        // Out-of-fold decision values for Platt's sigmoid.
        let n = y.len();
        let mut order: Vec<usize> = (0..n).collect();
        order.shuffle(rng);
        let mut decision = vec![0.0; n];
        for f in 0..params.folds {
            let (lo, hi) = (f * n / params.folds, (f + 1) * n / params.folds);
            let held = &order[lo..hi];
            let rest: Vec<usize> = order[..lo].iter().chain(&order[hi..]).copied().collect();
            let ys: Vec<f64> = rest.iter().map(|&i| y[i]).collect();
            let (pos, neg) = (ys.iter().any(|&v| v > 0.0), ys.iter().any(|&v| v < 0.0));
            // libsvm's rule for a one-class training part: ±1, or 0 when empty.
            let (w, r) = match (pos, neg) {
                (true, true) => linear_svm(z.select(Axis(0), &rest).view(), &ys, c, tol),
                (true, false) => (Array1::zeros(z.ncols()), -1.0),
                (false, true) => (Array1::zeros(z.ncols()), 1.0),
                (false, false) => (Array1::zeros(z.ncols()), 0.0),
            };
            for &i in held {
                decision[i] = z.row(i).dot(&w) - r;
            }
        }
        let positive: Vec<bool> = y.iter().map(|&v| v > 0.0).collect();
        let sigmoid = Calibrator::fit(CalibrationMethod::Sigmoid, &decision, &positive);
        Ok(Svc {
            inputs,
            weights,
            rho,
            sigmoid,
        })
    }

    /// f(x) = wᵀz − ρ for the rows of `x`.
    pub fn decision(&self, x: ArrayView2<'_, f64>) -> Array1<f64> {
        self.inputs.apply(x).dot(&self.weights) - self.rho
    }
}

impl Model for Svc {
    fn predict(&self, x: ArrayView2<'_, f64>) -> xai_core::error::Result<Predictions> {
        Ok(Predictions::binary(
            self.decision(x).iter().map(|&f| self.sigmoid.apply(f)),
        ))
    }

    /// w_j / s_j: the weight of feature j in its own units (s_j its training sd when
    /// standardised; scikit-learn's `coef_` on the standardised features is w).
    fn coefficients(&self) -> Option<Vec<f64>> {
        Some(self.inputs.in_own_units(&self.weights))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array2;
    use rand::RngExt;
    use xai_core::Target;

    fn classes(y: &[usize]) -> Target {
        Target::Classes {
            labels: y.to_vec().into(),
            n_classes: 2,
        }
    }

    /// Two points x = −1 (class 0) and x = +1 (class 1), no scaling, C large: the
    /// maximum-margin separator is w = 1, ρ = 0 (margins at ±1), so α = (½, ½) by
    /// w = Σ α_t y_t x_t; with C = 0.25 both points violate and α = C: w = 0.5.
    #[test]
    fn two_points_by_hand() {
        let x = ndarray::array![[-1.0], [1.0]];
        let y = [-1.0, 1.0];
        let (w, rho) = linear_svm(x.view(), &y, 10.0, 1e-12);
        assert!((w[0] - 1.0).abs() < 1e-9 && rho.abs() < 1e-9, "{w} {rho}");
        let (w, _) = linear_svm(x.view(), &y, 0.25, 1e-12);
        assert!((w[0] - 0.5).abs() < 1e-9, "{w}");
    }

    /// The KKT conditions of the soft-margin dual on overlapping classes: with
    /// m_t = y_t f(x_t), α_t = 0 ⇒ m_t ≥ 1, 0 < α_t < C ⇒ m_t = 1, α_t = C ⇒ m_t ≤ 1
    /// (to the tolerance), and Σ α_t y_t = 0.
    #[test]
    fn the_solution_satisfies_the_kkt_conditions() {
        let mut rng = xai_core::rng::stream_rng(3, 0);
        let n = 150;
        let x = Array2::from_shape_fn((n, 2), |_| rng.random::<f64>() * 2.0 - 1.0);
        let y: Vec<f64> = (0..n)
            .map(|i| {
                let s = x[[i, 0]] + 0.5 * x[[i, 1]] + 0.4 * (rng.random::<f64>() - 0.5);
                if s > 0.0 { 1.0 } else { -1.0 }
            })
            .collect();
        let (c, tol) = (1.0, 1e-8);
        let gram = x.dot(&x.t());
        let dual = smo::solve(
            |t, s| y[t] * y[s] * gram[[t, s]],
            &vec![-1.0; n],
            &y,
            c,
            tol,
        );
        let balance: f64 = dual.alpha.iter().zip(&y).map(|(a, v)| a * v).sum();
        assert!(balance.abs() < 1e-9, "{balance}");
        let (w, rho) = linear_svm(x.view(), &y, c, tol);
        let (mut free, mut bounded) = (0, 0);
        for (t, (&a, yt)) in dual.alpha.iter().zip(&y).enumerate() {
            let m = yt * (x.row(t).dot(&w) - rho);
            if a <= 0.0 {
                assert!(m >= 1.0 - 1e-6, "row {t}: α = 0, margin {m}");
            } else if a < c {
                free += 1;
                assert!((m - 1.0).abs() < 1e-6, "row {t}: free, margin {m}");
            } else {
                bounded += 1;
                assert!(m <= 1.0 + 1e-6, "row {t}: α = C, margin {m}");
            }
        }
        assert!(free > 0 && bounded > 0, "{free} {bounded}");
    }

    /// Probabilities rise with the decision value, lie in (0, 1), and depend on the
    /// fold shuffle only through A and B; the coefficients are w in the feature's own
    /// units (w/s), so scaling a feature by 10 divides its coefficient by 10.
    #[test]
    fn platt_probabilities_follow_the_decision_values() {
        let mut rng = xai_core::rng::stream_rng(4, 0);
        let n = 200;
        let x = Array2::from_shape_fn((n, 2), |_| rng.random::<f64>() * 2.0 - 1.0);
        let y: Vec<usize> = (0..n)
            .map(|i| usize::from(x[[i, 0]] + 0.3 * (rng.random::<f64>() - 0.5) > 0.0))
            .collect();
        let names = vec!["a".to_string(), "b".to_string()];
        let data = Dataset::new(x.clone(), classes(&y), names.clone()).unwrap();
        let svc = Svc::fit(
            &data,
            &SvcParams::default(),
            &mut xai_core::rng::stream_rng(5, 0),
        )
        .unwrap();
        let Predictions::Probabilities(p) = svc.predict(x.view()).unwrap() else {
            panic!("probabilities");
        };
        let f = svc.decision(x.view());
        let mut by_f: Vec<usize> = (0..n).collect();
        by_f.sort_by(|&a, &b| f[a].total_cmp(&f[b]));
        assert!(by_f.windows(2).all(|w| p[[w[0], 1]] <= p[[w[1], 1]]));
        assert!(p.iter().all(|&v| v > 0.0 && v < 1.0));
        let mut scaled = x.clone();
        scaled.column_mut(0).mapv_inplace(|v| 10.0 * v);
        let data10 = Dataset::new(scaled, classes(&y), names).unwrap();
        let svc10 = Svc::fit(
            &data10,
            &SvcParams::default(),
            &mut xai_core::rng::stream_rng(5, 0),
        )
        .unwrap();
        let (a, b) = (svc.coefficients().unwrap(), svc10.coefficients().unwrap());
        // Standardising makes the two problems equal up to rounding, which can reorder
        // SMO's steps: the solutions agree to well within its 0.001 tolerance.
        assert!(
            (a[0] - 10.0 * b[0]).abs() < 1e-4 * a[0].abs(),
            "{a:?} {b:?}"
        );
        assert!((a[1] - b[1]).abs() < 1e-4, "{a:?} {b:?}");
        // Rows of one class leave nothing to separate: refused, not NaN.
        let one = Dataset::new(
            x.clone(),
            classes(&vec![1; n]),
            vec!["a".into(), "b".into()],
        )
        .unwrap();
        let err = Svc::fit(
            &one,
            &SvcParams::default(),
            &mut xai_core::rng::stream_rng(5, 0),
        );
        assert!(err.is_err_and(|e| e.to_string().contains("both classes")));
    }
}
