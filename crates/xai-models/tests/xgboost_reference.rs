//! `boosting` and path-dependent TreeSHAP against XGBoost itself (the version is in
//! the fixtures' header line), `tree_method = "exact"`.
//!
//! The fixtures were made by `fixtures/xgboost_reference.py` (not run by tests):
//!
//! ```text
//! python3 -m venv /tmp/xgbenv && /tmp/xgbenv/bin/pip install xgboost numpy
//! /tmp/xgbenv/bin/python crates/xai-models/tests/fixtures/xgboost_reference.py \
//!     crates/xai-models/tests/fixtures
//! ```
//!
//! 300 training and 100 test rows of U(0, 1)⁵ with y = 10 sin(π x1 x2) +
//! 20 (x3 − 0.5)² + 10 x4 + 5 x5 + N(0, 1), about 10% of x1 and x3 missing (and of x5
//! in the test rows only, which takes the default direction of a feature without
//! missing values in training); every number is a float32, written in its shortest
//! round-trip form and read here as f32, so both sides see the same inputs. Ten
//! rounds of η = 0.3, max_depth 6, λ = 1, min_child_weight 1, base_score 0.5 for
//! squared error, squared error with γ = 10 (XGBoost prunes afterwards) and logistic
//! loss of y > median(y).
//!
//! Asserted, per model: the trees are XGBoost's node for node (split feature, default
//! direction, threshold, cover, leaf value); the test rows' margins
//! (`output_margin=True`) agree; TreeSHAP of our booster reproduces `pred_contribs`
//! (its last column, the bias, is our `base`). Planted: λ = 2 gives other trees.

use ndarray::Array2;
use std::collections::HashMap;
use xai_core::TreeEnsembleView;
use xai_core::shapley::tree::tree_shap;
use xai_models::boosting::{Booster, BoostingParams, Objective};

const D: usize = 5;

/// The lines of a fixture after its `#` header and column names, split at commas.
fn records(name: &str) -> Vec<Vec<String>> {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .skip(1)
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

/// A float32 of the fixtures as f64; an empty field is missing (NaN).
fn num(s: &str) -> f64 {
    if s.is_empty() {
        f64::NAN
    } else {
        f64::from(s.parse::<f32>().unwrap_or_else(|e| panic!("{s:?}: {e}")))
    }
}

struct Data {
    x: Array2<f64>,
    y: Vec<f64>,
    label: Vec<f64>,
    test: Array2<f64>,
}

fn data() -> Data {
    let rows = records("xgboost_data.csv");
    let matrix = |split: &str| {
        let r: Vec<&Vec<String>> = rows.iter().filter(|r| r[0] == split).collect();
        Array2::from_shape_fn((r.len(), D), |(i, j)| num(&r[i][1 + j]))
    };
    let train = rows.iter().filter(|r| r[0] == "train");
    Data {
        x: matrix("train"),
        y: train.clone().map(|r| num(&r[1 + D])).collect(),
        label: train.map(|r| num(&r[2 + D])).collect(),
        test: matrix("test"),
    }
}

/// XGBoost's margin and `pred_contribs` (φ_1..φ_d, bias) of one test row.
struct Reference {
    margin: f64,
    contribs: Vec<f64>,
}

fn reference() -> HashMap<String, Vec<Reference>> {
    let mut out: HashMap<String, Vec<Reference>> = HashMap::new();
    for r in records("xgboost_reference.csv") {
        let rows = out.entry(r[0].clone()).or_default();
        assert_eq!(r[1].parse::<usize>().unwrap(), rows.len());
        rows.push(Reference {
            margin: num(&r[2]),
            contribs: r[3..].iter().map(|v| num(v)).collect(),
        });
    }
    out
}

/// One node of XGBoost's JSON model (pruned nodes left out).
struct XgbNode {
    left: i64,
    right: i64,
    feature: i64,
    threshold: f64,
    default_left: bool,
    cover: f64,
    value: f64,
}

/// model → trees → nodes.
fn xgb_trees() -> HashMap<String, Vec<Vec<XgbNode>>> {
    let mut out: HashMap<String, Vec<Vec<XgbNode>>> = HashMap::new();
    for r in records("xgboost_trees.csv") {
        let trees = out.entry(r[0].clone()).or_default();
        let t: usize = r[1].parse().unwrap();
        if t == trees.len() {
            trees.push(Vec::new());
        }
        assert_eq!(r[2].parse::<usize>().unwrap(), trees[t].len());
        trees[t].push(XgbNode {
            left: r[3].parse().unwrap(),
            right: r[4].parse().unwrap(),
            feature: r[5].parse().unwrap(),
            threshold: num(&r[6]),
            default_left: r[7] == "1",
            cover: num(&r[8]),
            value: num(&r[9]),
        });
    }
    out
}

/// The settings of `xgboost_reference.py`.
fn params(objective: Objective, gamma: f64) -> BoostingParams {
    BoostingParams {
        rounds: 10,
        eta: 0.3,
        max_depth: 6,
        lambda: 1.0,
        gamma,
        min_child_weight: 1.0,
        objective: Some(objective),
        base_score: 0.5,
    }
}

fn fit(name: &str, d: &Data) -> Booster {
    let (objective, gamma, y) = match name {
        "squared_error" => (Objective::SquaredError, 0.0, &d.y),
        "squared_error_gamma" => (Objective::SquaredError, 10.0, &d.y),
        "logistic" => (Objective::Logistic, 0.0, &d.label),
        _ => unreachable!(),
    };
    Booster::fit(d.x.view(), y, &params(objective, gamma)).unwrap()
}

const MODELS: [&str; 3] = ["squared_error", "squared_error_gamma", "logistic"];

/// The first node where tree `t` of `ours` differs from XGBoost's, described.
fn first_difference(tree: &xai_core::Tree, xgb: &[XgbNode], eta: f64) -> Option<String> {
    let nodes = tree.nodes();
    if nodes.len() != xgb.len() {
        return Some(format!("{} nodes, XGBoost {}", nodes.len(), xgb.len()));
    }
    for (i, (n, x)) in nodes.iter().zip(xgb).enumerate() {
        let value = tree.value(i)[0];
        let same = if x.left < 0 {
            n.is_leaf() && close(value, x.value, 1e-5)
        } else {
            // A split node's value is η times its base weight.
            !n.is_leaf()
                && (
                    n.feature as i64,
                    n.left as i64,
                    n.right as i64,
                    n.missing_left,
                ) == (x.feature, x.left, x.right, x.default_left)
                && (n.threshold - x.threshold).abs() <= F32_EPS * x.threshold.abs()
                && close(value, eta * x.value, 1e-5)
        };
        if !same || !close(n.weight, x.cover, 1e-5) {
            return Some(format!(
                "node {i}: ours {n:?} value {value}; XGBoost's feature {} threshold {} \
                 default_left {} children {} {} cover {} value {}",
                x.feature, x.threshold, x.default_left, x.left, x.right, x.cover, x.value
            ));
        }
    }
    None
}

/// Our trees are XGBoost's node for node: the same shape, split features and default
/// directions, and thresholds, covers and values equal up to XGBoost's float32.
#[test]
fn the_trees_are_xgboost_s() {
    let d = data();
    let theirs = xgb_trees();
    let mut failures = Vec::new();
    for name in MODELS {
        let ours = fit(name, &d);
        let xgb = &theirs[name];
        assert_eq!(ours.trees().len(), xgb.len(), "{name}");
        if let Some((t, diff)) = ours
            .trees()
            .iter()
            .zip(xgb)
            .enumerate()
            .find_map(|(t, (tree, x))| first_difference(tree, x, 0.3).map(|d| (t, d)))
        {
            failures.push(format!("{name} tree {t}, {diff}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Planted: λ = 2 instead of XGBoost's 1 gives other leaf values.
    let planted = Booster::fit(
        d.x.view(),
        &d.y,
        &BoostingParams {
            lambda: 2.0,
            ..params(Objective::SquaredError, 0.0)
        },
    )
    .unwrap();
    assert!(
        planted
            .trees()
            .iter()
            .zip(&theirs["squared_error"])
            .any(|(tree, x)| first_difference(tree, x, 0.3).is_some()),
        "λ = 2 went unseen"
    );
}

/// f32's machine epsilon, 2⁻²³.
const F32_EPS: f64 = 1.1920929e-7;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs().max(1.0)
}

/// The margins of the test rows and their TreeSHAP values (φ and the base, XGBoost's
/// bias column) agree with XGBoost's to 16 float32 roundings of the largest margin,
/// 16·2⁻²⁴·max|F| ≈ 10⁻⁶·max|F|: XGBoost keeps leaf values and covers in float32 and
/// sums the trees, and runs TreeSHAP, in float32, where we work in f64. Measured with
/// xgboost 3.2.0: at most 3.2·10⁻⁶ for margins up to 24 (squared error) and
/// 5.5·10⁻⁷ for margins up to 3.4 (logistic), about two roundings; a different split
/// or default direction anywhere moves some margin by a leaf value, 10⁻² or more.
#[test]
fn margins_and_tree_shap_match_xgboost() {
    let d = data();
    let r = reference();
    for name in MODELS {
        let b = fit(name, &d);
        let theirs = &r[name];
        assert_eq!(theirs.len(), d.test.nrows(), "{name}");
        let margin = b.margin(d.test.view());
        let shap = tree_shap(&b, d.test.view(), 0).unwrap();
        let scale = theirs.iter().map(|x| x.margin.abs()).fold(1.0, f64::max);
        let tol = 16.0 * f64::from(f32::EPSILON) / 2.0 * scale;
        // (|Δ|, what) of the worst margin, φ_j and base.
        let mut worst = [
            (0.0, String::new()),
            (0.0, String::new()),
            (0.0, String::new()),
        ];
        let mut record = |k: usize, ours: f64, xgb: f64, what: String| {
            let diff = (ours - xgb).abs();
            if diff.is_nan() || diff > worst[k].0 {
                worst[k] = (diff, format!("{what}: ours {ours}, XGBoost {xgb}"));
            }
        };
        for (i, (x, a)) in theirs.iter().zip(&shap).enumerate() {
            record(0, margin[i], x.margin, format!("row {i} margin"));
            for j in 0..D {
                record(1, a.phi[j], x.contribs[j], format!("row {i} phi_{}", j + 1));
            }
            record(2, a.base, x.contribs[D], format!("row {i} bias"));
            assert!(a.efficiency_gap() < 1e-9 * scale, "{name} row {i}");
        }
        eprintln!(
            "{name}: max |margin| {scale:.3}, tolerance {tol:.2e}; max |Δ| margin {:.2e}, \
             φ {:.2e}, bias {:.2e}",
            worst[0].0, worst[1].0, worst[2].0
        );
        for (diff, what) in &worst {
            assert!(*diff <= tol, "{name} {what}: |Δ| {diff:.3e} > {tol:.3e}");
        }
    }
}
