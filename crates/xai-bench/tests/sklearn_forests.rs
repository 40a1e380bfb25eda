//! Our forests against scikit-learn's, in distribution: on the cervical rows as
//! icefi2022 prepares them (three screening columns dropped, mean imputation), 20
//! forests of 500 trees of each learner with independent seeds on each side, and per
//! statistic (the 32 impurity importances, the trees' mean depth and mean number of
//! leaves, the prediction at nine fixed rows) Welch's t of the two means over seeds.
//!
//! The reference is `fixtures/sklearn_forests.csv`, written by
//! `scripts/peers/sklearn_forests.py` (scikit-learn 1.9.1: RandomForestClassifier,
//! RandomForestRegressor, ExtraTreesClassifier and ExtraTreesRegressor with their
//! defaults but for 500 trees, random_state 0..19). A statistic differs when
//! |t| > 4: with about 38 degrees of freedom P(|t| > 4) ≈ 2.8e-4, so among the 43
//! statistics of a learner about 0.012 differ by chance, and the test allows none.
//! Each learner is also run once with one setting changed from the default it must
//! match (a planted difference), and that run must differ in at least one statistic.
//!
//! The calibrated forest (wood2024) the same way against
//! `fixtures/sklearn_calibrated_forest.csv` (the same script):
//! CalibratedClassifierCV(RandomForestClassifier(100 trees), method="sigmoid", cv=5),
//! 20 seeds a side, P(Biopsy = 1) at the nine rows and its mean and sd over all rows
//! (11 statistics, about 0.003 expected beyond |t| = 4 by chance). Skipped without
//! the data.

use std::path::{Path, PathBuf};

use ndarray::{Array2, ArrayView2, Axis};
use xai_bench::datasets::{MissingPolicy, Registry, load, search_dirs};
use xai_core::{Model, Predictions, Target, TreeEnsembleView};
use xai_models::calibration::{CalibratedForestLearner, CalibratedParams};
use xai_models::cart::Response;
use xai_models::forest::{ForestLearner, ForestParams, Mtry};

const SEEDS: u64 = 20;
const TREES: usize = 500;
/// |t| above which two means differ (see the module docs).
const T_LIMIT: f64 = 4.0;
/// The rows whose predictions are compared (the script's `ROWS`).
const ROWS: [usize; 9] = [0, 100, 200, 300, 400, 500, 600, 700, 800];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The statistics in fixture `file` of one learner (rows whose first field is
/// `learner`, or every row if `None`): one row per seed, and the column names.
fn reference(file: &str, learner: Option<&str>) -> (Vec<String>, Vec<Vec<f64>>) {
    let path = root().join("crates/xai-bench/tests/fixtures").join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut reader = csv::ReaderBuilder::new()
        .comment(Some(b'#'))
        .from_reader(text.as_bytes());
    let skip = if learner.is_some() { 2 } else { 1 };
    let names = reader
        .headers()
        .unwrap()
        .iter()
        .skip(skip)
        .map(String::from)
        .collect();
    let rows = reader
        .records()
        .map(Result::unwrap)
        .filter(|r| learner.is_none_or(|l| &r[0] == l))
        .map(|r| r.iter().skip(skip).map(|v| v.parse().unwrap()).collect())
        .collect();
    (names, rows)
}

/// The cervical rows as icefi2022 prepares them, or `None` without the data.
fn cervical() -> Option<(Array2<f64>, Vec<usize>)> {
    let dirs = search_dirs(&root());
    let registry = Registry::load(&root().join("data/datasets.yaml")).unwrap();
    let entry = registry.get("cervical").unwrap();
    let data = load("cervical", entry, &dirs, MissingPolicy::ImputeMean)
        .ok()?
        .data;
    let Target::Classes { labels, .. } = data.y() else {
        panic!("cervical is a classification dataset")
    };
    Some((data.x().to_owned(), labels.to_vec()))
}

/// The statistics of one of our forests, in the fixture's column order.
fn statistics(
    learner: &ForestLearner,
    x: ArrayView2<'_, f64>,
    labels: &[usize],
    classifier: bool,
    seed: u64,
) -> Vec<f64> {
    let y: Vec<f64> = labels.iter().map(|&c| c as f64).collect();
    let response = if classifier {
        Response::Classes(labels, 2)
    } else {
        Response::Regression(&y)
    };
    let forest = learner.fit_forest(x, response, seed);
    let trees = forest.trees();
    let mut out = xai_core::tree::impurity_importance(trees, x.ncols()).to_vec();
    let n = trees.len() as f64;
    out.push(trees.iter().map(|t| t.depth() as f64).sum::<f64>() / n);
    let leaves = |t: &xai_core::Tree| t.nodes().iter().filter(|n| n.is_leaf()).count();
    out.push(trees.iter().map(|t| leaves(t) as f64).sum::<f64>() / n);
    let rows = x.select(Axis(0), &ROWS);
    match forest.predict(rows.view()).unwrap() {
        Predictions::Probabilities(p) => out.extend(p.column(1)),
        Predictions::Point(p) => out.extend(p),
        other => panic!("a forest predicts points or probabilities, not {other:?}"),
    }
    out
}

/// Mean and variance (n − 1) of each column of `rows`.
fn moments(rows: &[Vec<f64>]) -> Vec<(f64, f64)> {
    let n = rows.len() as f64;
    (0..rows[0].len())
        .map(|j| {
            let mean = rows.iter().map(|r| r[j]).sum::<f64>() / n;
            let var = rows.iter().map(|r| (r[j] - mean).powi(2)).sum::<f64>() / (n - 1.0);
            (mean, var)
        })
        .collect()
}

/// The statistics whose means differ (|Welch t| > [`T_LIMIT`]), with their t, ours
/// and scikit-learn's means; one line per statistic is printed.
fn differing(
    names: &[String],
    ours: &[Vec<f64>],
    theirs: &[Vec<f64>],
) -> Vec<(String, f64, f64, f64)> {
    let (a, b) = (moments(ours), moments(theirs));
    let (na, nb) = (ours.len() as f64, theirs.len() as f64);
    let mut out = Vec::new();
    for ((name, &(ma, va)), &(mb, vb)) in names.iter().zip(&a).zip(&b) {
        let se = (va / na + vb / nb).sqrt();
        let t = if se > 0.0 {
            (ma - mb) / se
        } else if ma == mb {
            0.0
        } else {
            f64::INFINITY
        };
        eprintln!("{name}: ours {ma:.5}, scikit-learn {mb:.5}, t {t:.2}");
        if t.abs() > T_LIMIT {
            out.push((name.clone(), t, ma, mb));
        }
    }
    out
}

/// Compares `learner` with the fixture's `name` and returns the differing statistics.
fn compare(name: &str, learner: &ForestLearner) -> Option<Vec<(String, f64, f64, f64)>> {
    let (x, labels) = cervical()?;
    let (names, theirs) = reference("sklearn_forests.csv", Some(name));
    assert_eq!(theirs.len(), SEEDS as usize, "{name}: seeds in the fixture");
    let classifier = name.ends_with("classifier");
    let ours: Vec<Vec<f64>> = (0..SEEDS)
        .map(|seed| statistics(learner, x.view(), &labels, classifier, seed))
        .collect();
    eprintln!("== {name}");
    Some(differing(&names, &ours, &theirs))
}

fn learner(random_thresholds: bool, params: ForestParams) -> ForestLearner {
    ForestLearner {
        params: ForestParams {
            n_trees: TREES,
            ..params
        },
        random_thresholds,
    }
}

/// Our learner with its defaults matches the fixture's `name`; with `planted` it
/// does not.
fn holds_and_catches(name: &str, random_thresholds: bool, planted: ForestParams) {
    let Some(same) = compare(name, &learner(random_thresholds, ForestParams::default())) else {
        eprintln!("cervical not in the data directories: not run");
        return;
    };
    assert!(
        same.is_empty(),
        "{name}: differs from scikit-learn in {same:?}"
    );
    let planted = compare(name, &learner(random_thresholds, planted)).unwrap();
    assert!(
        !planted.is_empty(),
        "{name}: the planted difference went unseen"
    );
}

#[test]
fn random_forest_classifier_is_distributed_as_scikit_learns() {
    // Planted: 6 features per split instead of scikit-learn's ⌊√32⌋ = 5.
    let planted = ForestParams {
        mtry: Some(Mtry::Count(6)),
        ..Default::default()
    };
    holds_and_catches("random_forest_classifier", false, planted);
}

#[test]
fn random_forest_regressor_is_distributed_as_scikit_learns() {
    // Planted: min_samples_leaf 2 instead of 1.
    let planted = ForestParams {
        min_samples_leaf: 2,
        ..Default::default()
    };
    holds_and_catches("random_forest_regressor", false, planted);
}

#[test]
fn extra_trees_classifier_is_distributed_as_scikit_learns() {
    // Planted: 6 features per split instead of 5.
    let planted = ForestParams {
        mtry: Some(Mtry::Count(6)),
        ..Default::default()
    };
    holds_and_catches("extra_trees_classifier", true, planted);
}

#[test]
fn extra_trees_regressor_is_distributed_as_scikit_learns() {
    // Planted: a bootstrap sample per tree (scikit-learn's extra-trees use all rows).
    let planted = ForestParams {
        bootstrap: Some(true),
        ..Default::default()
    };
    holds_and_catches("extra_trees_regressor", true, planted);
}

/// P(class 1) of a calibrated forest at [`ROWS`], then its mean and sd over all rows.
fn calibrated_statistics(
    learner: &CalibratedForestLearner,
    data: &xai_core::Dataset,
    seed: u64,
) -> Vec<f64> {
    let model = learner.fit_calibrated(data, seed).unwrap();
    let p = model.predict_proba(data.x());
    let p = p.column(1);
    let mut out: Vec<f64> = ROWS.iter().map(|&r| p[r]).collect();
    let n = p.len() as f64;
    let mean = p.sum() / n;
    out.push(mean);
    out.push((p.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt());
    out
}

#[test]
fn calibrated_forest_is_distributed_as_scikit_learns() {
    let dirs = search_dirs(&root());
    let registry = Registry::load(&root().join("data/datasets.yaml")).unwrap();
    let entry = registry.get("cervical").unwrap();
    let Ok(loaded) = load("cervical", entry, &dirs, MissingPolicy::ImputeMean) else {
        eprintln!("cervical not in the data directories: not run");
        return;
    };
    let (names, theirs) = reference("sklearn_calibrated_forest.csv", None);
    assert_eq!(theirs.len(), SEEDS as usize);
    let run = |params: CalibratedParams| -> Vec<(String, f64, f64, f64)> {
        let learner = CalibratedForestLearner(params);
        let ours: Vec<Vec<f64>> = (0..SEEDS)
            .map(|seed| calibrated_statistics(&learner, &loaded.data, seed))
            .collect();
        differing(&names, &ours, &theirs)
    };
    let sklearn = CalibratedParams {
        forest: ForestParams {
            n_trees: 100,
            ..Default::default()
        },
        ..Default::default()
    };
    let same = run(sklearn.clone());
    assert!(same.is_empty(), "differs from scikit-learn in {same:?}");
    // Planted: 3 folds instead of scikit-learn's 5.
    let planted = run(CalibratedParams {
        folds: 3,
        ..sklearn
    });
    assert!(!planted.is_empty(), "the planted difference went unseen");
}
