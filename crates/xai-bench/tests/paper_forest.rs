//! icefi2022's own scikit-learn forest (`cervical/paper_forest/` in the data
//! directory), replayed: read by `fitted_forest` with scikit-learn's float32
//! comparisons, on the cervical data imputed as its `SimpleImputer` did, it predicts
//! the probabilities scikit-learn's `predict_proba` wrote (to the order of the sum
//! over trees), and its impurity
//! importances, its permutation importances under the ten permutations scikit-learn
//! applied (`pfi: {replay}`), and its mean TreeSHAP values equal scikit-learn's and
//! shap's (`reference.csv`) to rounding. Planted, and caught: thresholds compared in
//! f64 (a probability moves by 0.004), the importances normalised once over the forest
//! instead of tree by tree. Skipped without the data.

use std::path::{Path, PathBuf};

use xai_bench::datasets::{MissingPolicy, Registry, load, search_dirs};
use xai_core::{Model, Perturbation, Predictions, Statistic, TreeEnsembleView};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A column of a CSV with a header, as numbers.
fn column(path: &Path, name: &str) -> Vec<f64> {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let at = reader
        .headers()
        .unwrap()
        .iter()
        .position(|h| h == name)
        .unwrap();
    reader
        .records()
        .map(|r| r.unwrap()[at].parse().unwrap())
        .collect()
}

#[test]
fn the_paper_forest_replays_scikit_learns_numbers() {
    let dirs = search_dirs(&root());
    let Some(dir) = dirs
        .iter()
        .map(|d| d.join("cervical/paper_forest"))
        .find(|d| d.join("forest.csv").is_file())
    else {
        eprintln!("cervical/paper_forest not in the data directories: not run");
        return;
    };
    let registry = Registry::load(&root().join("data/datasets.yaml")).unwrap();
    let entry = registry.get("cervical").unwrap();
    let data = load("cervical", entry, &dirs, MissingPolicy::ImputeMean)
        .unwrap()
        .data;
    let forest = xai_models::fitted_forest::read_forest(&dir.join("forest.csv"), true).unwrap();
    assert_eq!(forest.trees().len(), 500);

    // The imputer's means are the ones scikit-learn used: a mean-imputed column keeps
    // the mean of its observed cells.
    let means = column(&dir.join("imputed_means.csv"), "imputed_mean");
    assert_eq!(means.len(), data.n_features());
    for (j, m) in means.iter().enumerate() {
        let ours = data.x().column(j).mean().unwrap();
        assert!(
            (ours - m).abs() < 1e-9 * m.abs().max(1.0),
            "column {j}: {ours} vs {m}"
        );
    }

    // predict_proba: every row reaches scikit-learn's leaves (a single other leaf
    // would move a probability by a multiple of 1/500 of a leaf's fraction), so the
    // probabilities agree up to the order of the sum over the trees.
    let Predictions::Probabilities(p) = forest.predict(data.x()).unwrap() else {
        panic!("a classification forest predicts probabilities")
    };
    let theirs = column(&dir.join("predict_proba.csv"), "p_class1");
    let worst = p
        .column(1)
        .iter()
        .zip(&theirs)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    assert!(worst < 1e-15, "predict_proba: largest difference {worst}");
    // Planted: thresholds compared in f64 instead of scikit-learn's float32.
    let f64_forest =
        xai_models::fitted_forest::read_forest(&dir.join("forest.csv"), false).unwrap();
    let Predictions::Probabilities(q) = f64_forest.predict(data.x()).unwrap() else {
        panic!("a classification forest predicts probabilities")
    };
    let planted = q
        .column(1)
        .iter()
        .zip(&theirs)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    assert!(planted > 1e-15, "f64 thresholds went unseen");

    let reference = dir.join("reference.csv");
    let worst = |ours: &[f64], name: &str| {
        let theirs = column(&reference, name);
        ours.iter()
            .zip(&theirs)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max)
    };
    let close = |ours: &[f64], name: &str| {
        let worst = worst(ours, name);
        assert!(worst < 1e-12, "{name}: largest difference {worst}");
    };
    // Impurity importance (scikit-learn's feature_importances_).
    close(
        &xai_core::tree::impurity_importance(forest.trees(), data.n_features()).to_vec(),
        "impurity_importance",
    );
    // Planted: the forest's mean decrease normalised once, not tree by tree.
    let pooled = xai_core::tree::impurity_decrease(forest.trees(), data.n_features());
    let pooled = &pooled / pooled.sum();
    assert!(
        worst(&pooled.to_vec(), "impurity_importance") > 1e-12,
        "normalising once went unseen"
    );
    // Mean signed path-dependent TreeSHAP of class 1 (shap's TreeExplainer).
    let phi = xai_core::shapley::tree::tree_shap(&forest, data.x(), 1).unwrap();
    let mean: Vec<f64> = (0..data.n_features())
        .map(|j| phi.iter().map(|a| a.phi[j]).sum::<f64>() / phi.len() as f64)
        .collect();
    close(&mean, "treeshap_mean_signed");
    // Accuracy-drop PFI under the permutations scikit-learn applied.
    let mut reader = csv::Reader::from_path(dir.join("pfi_permutations.csv")).unwrap();
    let perms: Vec<Vec<usize>> = reader
        .records()
        .map(|r| r.unwrap().iter().map(|v| v.parse().unwrap()).collect())
        .collect();
    let features: Vec<usize> = (0..data.n_features()).collect();
    let orders = Perturbation::Orders {
        orders: vec![perms; data.n_features()],
    };
    let res = xai_core::pfi(
        &forest,
        &data,
        &features,
        &orders,
        &[Statistic::Misclassification],
        0,
        0.95,
    )
    .unwrap();
    let pfi: Vec<f64> = res[0].iter().map(|r| r.estimate.estimate).collect();
    close(&pfi, "pfi_accuracy_mean");
}
