//! One rule for a missing (NaN) value in every tree walk: a split sends it the way
//! its node's `missing_left` says ([`xai_core::TreeNode::goes_left`]), right in a tree
//! grown without missing values. Each tree learner's own prediction path (the flat
//! lockstep walk of the forests, the booster's walk) must agree with walking its
//! exposed trees by [`xai_core::Tree::leaf`], on rows with missing cells.

use ndarray::{Array2, ArrayView1};
use xai_core::rng::stream_rng;
use xai_core::{Dataset, Predictions, Target, TreeEnsembleView};
use xai_models::{LearnerKind, LearnerSpec};

/// 300 rows of three features, y a step in x0 and x1 (so every tree splits on them).
fn data() -> Dataset {
    let x = Array2::from_shape_fn((300, 3), |(i, j)| ((i * (7 + 3 * j)) % 101) as f64 / 101.0);
    let y = x
        .rows()
        .into_iter()
        .map(|r| f64::from(u8::from(r[0] > 0.5)) + 0.5 * r[1])
        .collect();
    Dataset::new(
        x,
        Target::Continuous(y),
        vec!["a".into(), "b".into(), "c".into()],
    )
    .unwrap()
}

/// The rows predicted: every row of `data` with a missing cell in column i mod 3,
/// and every tenth row with ±∞ in another column (a walk must still end in a leaf).
fn with_missing(data: &Dataset) -> Array2<f64> {
    let mut x = data.x().to_owned();
    for i in 0..x.nrows() {
        x[[i, i % 3]] = f64::NAN;
        if i % 10 == 0 {
            x[[i, (i + 1) % 3]] = if i % 20 == 0 {
                f64::INFINITY
            } else {
                f64::NEG_INFINITY
            };
        }
    }
    x
}

/// The ensemble's mean prediction of `row` by walking each exposed tree.
fn by_tree_leaf(view: &dyn TreeEnsembleView, row: ArrayView1<'_, f64>) -> f64 {
    let trees = view.trees();
    let sum: f64 = trees.iter().map(|t| t.value(t.leaf(row))[0]).sum();
    view.combination().combine(sum, trees.len())
}

fn means(p: &Predictions) -> Vec<f64> {
    match p {
        Predictions::Gaussian { mean, .. } => mean.to_vec(),
        Predictions::Point(mean) => mean.to_vec(),
        other => panic!("a regression's predictions, got {other:?}"),
    }
}

#[test]
fn every_tree_learner_walks_a_missing_value_as_its_trees_say() {
    let data = data();
    let x = with_missing(&data);
    for yaml in [
        "random_forest: { n_trees: 20 }",
        "extra_trees: { n_trees: 20 }",
        "rpart: {}",
        "r_random_forest: { ntree: 20 }",
        "xgboost: { rounds: 10 }",
    ] {
        let spec: LearnerSpec = serde_saphyr::from_str(yaml).unwrap();
        let model = spec.build().fit(&data, &mut stream_rng(1, 0)).unwrap();
        let view = model
            .tree_ensemble()
            .expect("a tree learner exposes its trees");
        let predicted = means(&model.predict(x.view()).unwrap());
        for (i, row) in x.rows().into_iter().enumerate() {
            let walked = by_tree_leaf(view, row);
            assert!(
                (predicted[i] - walked).abs() <= 1e-12 * walked.abs().max(1.0),
                "{}: row {i} predicted {} but its trees give {walked}",
                spec.name(),
                predicted[i]
            );
        }
    }
}

/// A forest's flat walk sends a missing value right at every split: at a root that
/// splits on x0, a row missing x0 reaches a leaf of the right subtree.
#[test]
fn a_forest_sends_a_missing_value_right() {
    let data = data();
    let spec: LearnerSpec = serde_saphyr::from_str("rpart: {}").unwrap();
    let model = spec.build().fit(&data, &mut stream_rng(1, 0)).unwrap();
    let tree = &model.tree_ensemble().unwrap().trees()[0];
    let root = tree.nodes()[0];
    assert_eq!(root.feature, 0, "y steps in x0, so the root splits on it");
    let mut row = data.x().row(0).to_owned();
    row[0] = f64::NAN;
    let right_only = {
        let mut above = row.clone();
        above[0] = root.threshold + 1.0;
        tree.leaf(above.view())
    };
    assert_eq!(tree.leaf(row.view()), right_only);
    let predicted = means(
        &model
            .predict(row.view().insert_axis(ndarray::Axis(0)))
            .unwrap(),
    );
    assert_eq!(predicted[0], tree.value(right_only)[0]);
}
