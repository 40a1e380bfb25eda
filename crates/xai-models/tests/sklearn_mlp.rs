//! `mlp` against scikit-learn's `MLPClassifier` (1.9.1) in distribution, from
//! `fixtures/sklearn_mlp.json` (written by `scripts/peers/sklearn_mlp.py`, which says
//! how the 300 training and 8 test rows were drawn): StandardScaler + MLPClassifier()
//! with its defaults, run for all its 200 epochs (`n_iter_no_change = 200`; ours runs
//! its epochs when `flat_epochs` is unset), 20 seeds a side. Statistics: P(y = 1) of
//! the 8 test rows and the training rows' mean log-loss; a statistic differs when
//! Welch's |t| > 4 (about 38 degrees of freedom: P ≈ 2.8e-4 each, about 0.003 of the 9
//! expected to differ by chance). The known differences in bits (ours computes in f32
//! and adds Adam's ε to √v̂, scikit-learn to √v; `nn/mlp.rs`) must not show. Planted:
//! a learning rate of 2e-3 instead of 1e-3 must.
#![cfg(feature = "nn")]

use ndarray::Array2;
use serde_json::Value;
use xai_core::{Dataset, Model, Predictions, Target};
use xai_models::nn::mlp::{MlpParams, fit};

const SEEDS: u64 = 20;

mod common;

use common::{matrix, training, vector};

fn fixture() -> Value {
    common::fixture("sklearn_mlp.json")
}

/// P(y = 1) of `x`.
fn probability(model: &dyn Model, x: &Array2<f64>) -> Vec<f64> {
    match model.predict(x.view()).unwrap() {
        Predictions::Probabilities(p) => p.column(1).to_vec(),
        other => panic!("a classifier predicts probabilities, not {other:?}"),
    }
}

/// Per seed: P(y = 1) of the test rows, then the training rows' mean log-loss.
fn ours(params: &MlpParams, data: &Dataset, labels: &[usize], test: &Array2<f64>) -> Vec<Vec<f64>> {
    (0..SEEDS)
        .map(|seed| {
            let mut rng = xai_core::rng::stream_rng(seed, 0);
            let net = fit(params, data, &mut rng).unwrap();
            let mut out = probability(&net, test);
            let p = probability(&net, &data.x().to_owned());
            let loss = p
                .iter()
                .zip(labels)
                .map(|(&p, &c)| -(if c == 1 { p } else { 1.0 - p }).ln())
                .sum::<f64>()
                / p.len() as f64;
            out.push(loss);
            out
        })
        .collect()
}

/// Welch's t of the column means of `a` and `b`.
fn welch(a: &[Vec<f64>], b: &[Vec<f64>]) -> Vec<f64> {
    let moments = |rows: &[Vec<f64>], j: usize| {
        let n = rows.len() as f64;
        let m = rows.iter().map(|r| r[j]).sum::<f64>() / n;
        let v = rows.iter().map(|r| (r[j] - m).powi(2)).sum::<f64>() / (n - 1.0);
        (m, v / n)
    };
    (0..a[0].len())
        .map(|j| {
            let ((ma, va), (mb, vb)) = (moments(a, j), moments(b, j));
            (ma - mb) / (va + vb).sqrt()
        })
        .collect()
}

#[test]
fn mlp_is_distributed_as_scikit_learns() {
    let f = fixture();
    let test = matrix(&f["x_test"]);
    let data = training(&f);
    let Target::Classes { labels, .. } = data.y() else {
        panic!("binary labels")
    };
    let labels = labels.to_vec();
    let theirs: Vec<Vec<f64>> = f["fits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|fit| {
            let mut v = vector(&fit["test_probability"]);
            v.push(fit["train_log_loss"].as_f64().unwrap());
            v
        })
        .collect();
    assert_eq!(theirs.len(), SEEDS as usize);
    let t = welch(&ours(&MlpParams::default(), &data, &labels, &test), &theirs);
    eprintln!("Welch t (8 test rows, training log-loss): {t:.2?}");
    assert!(
        t.iter().all(|t| t.abs() <= 4.0),
        "differs from scikit-learn: {t:.2?}"
    );
    let planted = MlpParams {
        learning_rate: 2e-3,
        ..Default::default()
    };
    let t = welch(&ours(&planted, &data, &labels, &test), &theirs);
    assert!(
        t.iter().any(|t| t.abs() > 4.0),
        "learning rate 2e-3 went unseen: {t:.2?}"
    );
}
