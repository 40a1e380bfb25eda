//! What a method needs of a model, checked against the loaded dataset before any
//! work (`Experiment::check_against_data`), from the learners' declared
//! capabilities: a mismatch the runs used to meet only while computing.

use std::path::Path;

use ndarray::Array2;
use xai_bench::plan::{Experiment, Scale};
use xai_core::{Dataset, FeatureKind, Target};

/// An experiment on a registered dataset (its rows replaced by a toy) with the one model `model` and the one method
/// `method` (YAML flow mappings).
fn experiment(model: &str, method: &str) -> Experiment {
    Experiment::from_text(
        Path::new("refusal-test.yaml"),
        experiment_text(model, method),
    )
    .unwrap()
}

/// The YAML of [`experiment`].
fn experiment_text(model: &str, method: &str) -> String {
    format!(
        "id: refusal-test
title: t
paper: t
figure: t
paper_scale: t
notes: t
seed: 1
scales: {{ smoke: {{ replicates: 1 }}, ci: {{ replicates: 1 }}, paper: {{ replicates: 1 }} }}
data:
  dataset: {{ name: heart, test_fraction: 0.5 }}
models:
  m: {model}
methods:
  - {method}
"
    )
}

/// 40 rows of two features, the second `second` (continuous, or a categorical code
/// 0..3), and the target `target`.
fn toy(second: FeatureKind, target: Target) -> Dataset {
    let x = Array2::from_shape_fn((40, 2), |(i, j)| ((i * (j + 2)) % 4) as f64);
    Dataset::with_kinds(
        x,
        target,
        vec!["a".into(), "b".into()],
        vec![FeatureKind::Continuous, second],
    )
    .unwrap()
}

fn binary() -> Target {
    Target::Classes {
        labels: (0..40).map(|i| i % 2).collect(),
        n_classes: 2,
    }
}

fn checked(exp: &Experiment, data: &Dataset) -> Result<(), String> {
    let v = exp.variants(Scale::Ci).unwrap();
    exp.check_against_data(&v[0], data)
        .map_err(|e| e.to_string())
}

#[test]
fn slopes_of_a_logistic_model_need_continuous_features() {
    let levels = FeatureKind::Categorical {
        levels: ["w", "x", "y", "z"].map(String::from).to_vec(),
    };
    let logistic = experiment("{ logistic_regression: {} }", "coefficients: {}");
    let err = checked(&logistic, &toy(levels.clone(), binary())).unwrap_err();
    assert!(err.contains("`b` is categorical"), "{err}");
    assert!(checked(&logistic, &toy(FeatureKind::Continuous, binary())).is_ok());
    // lm has a slope per design column of a code: accepted.
    let lm = experiment("{ lm: {} }", "coefficients: {}");
    let continuous = Target::Continuous((0..40).map(f64::from).collect());
    assert!(checked(&lm, &toy(levels, continuous)).is_ok());
}

#[test]
fn aleatoric_entropy_needs_a_class_target() {
    let exp = experiment(
        "{ random_forest: { n_trees: 5 } }",
        "shapley: { estimator: exact, value: aleatoric_entropy, background: 5 }",
    );
    let continuous = Target::Continuous((0..40).map(f64::from).collect());
    let err = checked(&exp, &toy(FeatureKind::Continuous, continuous)).unwrap_err();
    assert!(err.contains("target is continuous"), "{err}");
    assert!(checked(&exp, &toy(FeatureKind::Continuous, binary())).is_ok());
}

/// A model of another model's uncertainty predicts that statistic, not the label: a
/// loss is refused at load, the prediction itself is not.
#[test]
fn a_loss_of_an_uncertainty_model_is_refused_at_load() {
    let model =
        "{ uncertainty: { base: { xgboost: { rounds: 2 } }, model: { xgboost: { rounds: 2 } } } }";
    let text = |method: &str| experiment_text(model, method);
    let err = Experiment::from_text(
        Path::new("refusal-test.yaml"),
        text("score: { statistics: [brier] }"),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("predicts another model's uncertainty"),
        "{err}"
    );
    assert!(
        Experiment::from_text(
            Path::new("refusal-test.yaml"),
            text("score: { statistics: [prediction] }")
        )
        .is_ok()
    );
}

/// A split of the loaded rows that leaves no test row, or fewer than 2 training rows,
/// or more folds than rows, is refused at its field before any work (it met a panic
/// on an empty array while computing).
#[test]
fn a_split_that_leaves_a_side_empty_is_refused() {
    let data = toy(FeatureKind::Continuous, binary());
    let with = |split: &str| {
        let text = experiment_text(
            "{ logistic_regression: {} }",
            "score: { statistics: [brier] }",
        )
        .replace("test_fraction: 0.5", split);
        Experiment::from_text(Path::new("refusal-test.yaml"), text).unwrap()
    };
    assert_eq!(checked(&with("test_fraction: 0.5"), &data), Ok(()));
    for (split, field) in [
        ("test_fraction: 0.001", "test_fraction"),
        ("test_fraction: 0.99", "test_fraction"),
        ("folds: 41", "folds"),
    ] {
        let err = checked(&with(split), &data).unwrap_err();
        assert!(
            err.contains(field) && err.contains("40 rows"),
            "{split}: {err}"
        );
    }
}
