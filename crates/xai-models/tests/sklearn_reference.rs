//! The deterministic learners that follow scikit-learn against scikit-learn 1.9.1
//! itself, on the data of `fixtures/sklearn_learners.json` (written by
//! `scripts/peers/sklearn_learners.py`, which says how the data were drawn):
//!
//! - `logistic_regression` (standardised, C = 1 and C = 0.05) against StandardScaler +
//!   LogisticRegression(solver="newton-cholesky", tol=1e-12): both are Newton's method
//!   run to a gradient of about 1e-10 on the same strictly convex objective, so the
//!   coefficients and test probabilities agree to 1e-8;
//! - the graphical lasso (α = 0.05, 0.2) against `graphical_lasso(mode="cd",
//!   tol=1e-12, enet_tol=1e-12)`: the precision to 1e-7 (both converge to the unique
//!   optimum; the bound is the inner coordinate descent's stopping rule, 1e-10 on
//!   each coefficient, carried through Λ = W⁻¹ on entries of order 1);
//! - the linear SVC's decision function (SMO with tolerance 1e-12 on both sides, no
//!   shrinking, libsvm's working-set rule on the same single-precision Q): the two solvers take
//!   the same steps, so the decision values differ by the order of floating-point
//!   sums only (of order 1e-16 per operation over about 1e3 steps of 200-term sums):
//!   1e-9. Held in double precision instead, Q gives differences of 3e-6;
//! - the GP at fixed hyperparameters (C·RBF(ARD) + White, raw inputs, standardised
//!   target) against GaussianProcessRegressor(optimizer=None, normalize_y=True): the
//!   log marginal likelihood and the predictive mean and sd (noise included) of the
//!   test rows, to 1e-9 relative (two Cholesky solves of a well-conditioned 200 × 200
//!   system; the optimised GP is held to scikit-learn in `w3_fixture.rs`);
//! - Platt's sigmoid (the calibrator of the SVC and of the calibrated forest) fitted to
//!   the SVC's training decision values against `_sigmoid_calibration`: scikit-learn's
//!   L-BFGS-B stops at a projected gradient of 1e-6, and the log-loss Hessian's smallest
//!   eigenvalue there is 27.7 (written by the script), so its (a, b) lie within
//!   1e-6/27.7 ≈ 4e-8 of the optimum; ours (gradient 1e-9) within 1e-10: 1e-7.
//!
//! Each learner is also fitted once with a setting changed (a planted difference: C = 2
//! for the logistic regression, α · 1.1 for the graphical lasso, cost 2 for the SVC, the
//! inputs standardised for the GP) and must then fail its bound; for Platt's sigmoid
//! the test's own logistic fit on the raw 0/1 labels (not Platt's smoothed targets)
//! must land outside the bound, so the bound tells the two targets apart.

use ndarray::Array1;
use serde_json::Value;
use xai_models::calibration::{CalibrationMethod, Calibrator};
use xai_models::glasso::{GlassoParams, empirical_covariance, graphical_lasso};
use xai_models::gp::{GaussianProcess, GpParams};
use xai_models::logistic::{LogisticParams, LogisticRegression};
use xai_models::svc::{Svc, SvcParams};

mod common;

use common::{matrix, training, vector};

fn fixture() -> Value {
    common::fixture("sklearn_learners.json")
}

/// Largest absolute difference.
fn gap(a: impl IntoIterator<Item = f64>, b: impl IntoIterator<Item = f64>) -> f64 {
    a.into_iter()
        .zip(b)
        .map(|(u, v)| (u - v).abs())
        .fold(0.0, f64::max)
}

#[test]
fn logistic_regression_equals_scikit_learns() {
    let f = fixture();
    let data = training(&f);
    let test = matrix(&f["x_test"]);
    for (key, c) in [("1.0", 1.0), ("0.05", 0.05)] {
        let reference = &f["logistic"][key];
        let worst = |c: f64| {
            let params = LogisticParams {
                c,
                ..Default::default()
            };
            let model = LogisticRegression::fit(&data, &params).unwrap();
            let (b, w) = model.coefficients();
            let coefficients = gap(w.iter().copied(), vector(&reference["coefficients"]));
            let intercept = (b - reference["intercept"].as_f64().unwrap()).abs();
            let p = model.probability(test.view());
            let probability = gap(p.iter().copied(), vector(&reference["probability"]));
            coefficients.max(intercept).max(probability)
        };
        let same = worst(c);
        assert!(same < 1e-8, "C = {c}: largest difference {same}");
        let planted = worst(2.0 * c);
        assert!(planted > 1e-8, "C = {c}: C doubled went unseen ({planted})");
    }
}

#[test]
fn graphical_lasso_equals_scikit_learns() {
    let f = fixture();
    let z = matrix(&f["glasso_x"]);
    let s = empirical_covariance(z.view());
    for (key, alpha) in [("0.05", 0.05), ("0.2", 0.2)] {
        let reference = matrix(&f["glasso"][key]);
        let worst = |alpha: f64| {
            let params = GlassoParams {
                alpha,
                tol: 1e-12,
                max_iter: 1000,
                ..Default::default()
            };
            let fit = graphical_lasso(s.view(), &params).unwrap();
            gap(fit.precision.iter().copied(), reference.iter().copied())
        };
        let same = worst(alpha);
        assert!(same < 1e-7, "alpha {alpha}: largest difference {same}");
        let planted = worst(1.1 * alpha);
        assert!(planted > 1e-7, "alpha {alpha}: α · 1.1 went unseen");
    }
}

#[test]
fn linear_svc_decision_function_equals_scikit_learns() {
    let f = fixture();
    let data = training(&f);
    let test = matrix(&f["x_test"]);
    let reference = vector(&f["svc_decision"]);
    let worst = |cost: f64| {
        let params = SvcParams {
            cost,
            tolerance: 1e-12,
            ..Default::default()
        };
        let mut rng = xai_core::rng::stream_rng(1, 0);
        let svc = Svc::fit(&data, &params, &mut rng).unwrap();
        gap(svc.decision(test.view()), reference.iter().copied())
    };
    let same = worst(1.0);
    eprintln!("linear SVC: largest difference {same:e}");
    assert!(same < 1e-9, "largest difference {same}");
    assert!(worst(2.0) > 1e-9, "cost 2 went unseen");
}

#[test]
fn gp_at_fixed_hyperparameters_equals_scikit_learns() {
    let f = fixture();
    let x = matrix(&f["x"]);
    let test = matrix(&f["x_test"]);
    let y = Array1::from(vector(&f["gp"]["y"]));
    let theta = vector(&f["gp"]["theta"]);
    let lml = f["gp"]["log_marginal_likelihood"].as_f64().unwrap();
    let (mean, sd) = (vector(&f["gp"]["mean"]), vector(&f["gp"]["sd"]));
    let relative = |standardize_inputs: bool| {
        let params = GpParams {
            standardize_inputs,
            ..Default::default()
        };
        let gp =
            GaussianProcess::with_hyperparameters(x.view(), y.view(), &theta, &params).unwrap();
        let (m, v) = gp.predict_mean_var(test.view());
        let scale = |r: &[f64]| r.iter().fold(0.0_f64, |a, v| a.max(v.abs()));
        let mean_gap = gap(m.iter().copied(), mean.iter().copied()) / scale(&mean);
        let sd_gap = gap(v.iter().map(|v| v.sqrt()), sd.iter().copied()) / scale(&sd);
        let lml_gap = (gp.log_marginal_likelihood() - lml).abs() / lml.abs();
        mean_gap.max(sd_gap).max(lml_gap)
    };
    let same = relative(false);
    assert!(same < 1e-9, "largest relative difference {same}");
    assert!(relative(true) > 1e-9, "standardised inputs went unseen");
}

#[test]
fn platt_sigmoid_equals_scikit_learns() {
    let f = fixture();
    let decision = vector(&f["svc_decision_train"]);
    let y: Vec<bool> = f["y"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() == 1)
        .collect();
    let (a, b) = (
        f["platt"]["a"].as_f64().unwrap(),
        f["platt"]["b"].as_f64().unwrap(),
    );
    assert!(f["platt"]["hessian_min_eigenvalue"].as_f64().unwrap() > 10.0);
    let Calibrator::Sigmoid {
        a: ours_a,
        b: ours_b,
    } = Calibrator::fit(CalibrationMethod::Sigmoid, &decision, &y)
    else {
        panic!("a sigmoid")
    };
    assert!(
        (ours_a - a).abs() < 1e-7 && (ours_b - b).abs() < 1e-7,
        "ours ({ours_a}, {ours_b}), scikit-learn ({a}, {b})"
    );
    // Planted: the raw 0/1 labels as targets instead of Platt's smoothed ones (a
    // logistic regression of y on the decision values) lands elsewhere.
    let raw = logistic_on(&decision, &y);
    assert!(
        (raw.0 - a).abs() > 1e-7 || (raw.1 - b).abs() > 1e-7,
        "the raw targets went unseen"
    );
}

/// (a, b) of the unpenalised logistic fit P(y) = 1/(1 + exp(a·f + b)) with 0/1 targets,
/// by Newton's method.
fn logistic_on(f: &[f64], y: &[bool]) -> (f64, f64) {
    let (mut a, mut b) = (0.0, 0.0);
    for _ in 0..100 {
        let (mut g, mut h) = ([0.0; 2], [[0.0; 2]; 2]);
        for (&fi, &yi) in f.iter().zip(y) {
            let p = 1.0 / (1.0 + (a * fi + b).exp());
            let r = f64::from(u8::from(yi)) - p;
            g[0] += r * fi;
            g[1] += r;
            let w = p * (1.0 - p);
            h[0][0] += w * fi * fi;
            h[0][1] += w * fi;
            h[1][1] += w;
        }
        let det = h[0][0] * h[1][1] - h[0][1] * h[0][1];
        a -= (h[1][1] * g[0] - h[0][1] * g[1]) / det;
        b -= (h[0][0] * g[1] - h[0][1] * g[0]) / det;
    }
    (a, b)
}
