//! `rpart`, `r_random_forest` and `lm` against R itself (R 4.2.2, rpart 4.1.19,
//! randomForest 4.7-1.1), on molnar2023's DGPs generated here.
//!
//! The reference values in `fixtures/r_reference.csv` were made by
//! `fixtures/r_reference.R` from the data this file writes:
//!
//! ```text
//! R_REFERENCE_DIR=/tmp/rref cargo test -p xai-models --release --test r_reference \
//!     -- --ignored write_r_inputs
//! Rscript crates/xai-models/tests/fixtures/r_reference.R /tmp/rref \
//!     crates/xai-models/tests/fixtures/r_reference.csv
//! ```
//!
//! Features are multiples of 2⁻¹⁶ and responses of 2⁻¹⁰, so their decimal text is
//! exact and R reads the same doubles (the R script checks this).
//!
//! - rpart is deterministic: its predictions must equal R's and its tree must have as
//!   many nodes.
//! - randomForest draws from R's stream, so only the distribution can agree: the mean
//!   number of leaves per tree (sensitive to the nodesize rule and the mtry rule) must
//!   agree within Monte-Carlo error, and R's forest must be as close to ours as two of
//!   ours are to each other.
//! - lm: coefficients and their covariance (`vcov`) to 1e-9.
//!
//! Planted differences, each of which must fail: rpart with cp = 0.02 (R's default
//! 0.01) grows another tree size; randomForest splitting nodes of exactly nodesize
//! cases grows larger trees; lm's σ² with divisor n (not n − q) misses `vcov`.

use ndarray::Array2;
use rand::RngExt;
use rand_distr::{Distribution, StandardNormal};
use std::collections::HashMap;
use xai_core::rng::stream_rng;
use xai_core::{Model, Predictions, TreeEnsembleView};
use xai_models::forest::Forest;
use xai_models::{LmLearner, RForestLearner, RForestParams, RpartLearner, RpartParams};

/// A training set and test rows of one case.
struct Case {
    name: &'static str,
    x: Array2<f64>,
    y: Vec<f64>,
    test: Array2<f64>,
}

const TEST_ROWS: usize = 50;

/// molnar2023's DGPs (PAPERS.md §2.2, code version): linear y = x1 − x2 + ε,
/// non-linear y = x1 − √(1 + x2) + x3·x4 + (x4/10)² + ε; x ~ U[0, 1], ε ~ N(0, 1).
fn sample(nonlinear: bool, n: usize, seed: u64) -> (Array2<f64>, Vec<f64>) {
    let mut rng = stream_rng(seed, 0);
    let p = if nonlinear { 4 } else { 2 };
    let x = Array2::from_shape_fn((n, p), |_| {
        (rng.random::<f64>() * 65536.0).floor() / 65536.0
    });
    let y = x
        .rows()
        .into_iter()
        .map(|r| {
            let f = if nonlinear {
                r[0] - (1.0 + r[1]).sqrt() + r[2] * r[3] + (r[3] / 10.0).powi(2)
            } else {
                r[0] - r[1]
            };
            let e: f64 = StandardNormal.sample(&mut rng);
            ((f + e) * 1024.0).round() / 1024.0
        })
        .collect();
    (x, y)
}

fn cases() -> Vec<Case> {
    let make = |name, nonlinear, n, seed| {
        let (x, y) = sample(nonlinear, n, seed);
        let (test, _) = sample(nonlinear, TEST_ROWS, seed + 1000);
        Case { name, x, y, test }
    };
    let mut cases = vec![
        make("linear_63", false, 63, 1),
        make("linear_632", false, 632, 2),
        make("nonlinear_63", true, 63, 3),
        make("nonlinear_632", true, 632, 4),
        make("nonlinear_200", true, 200, 5),
    ];
    // A bootstrap sample (rows repeated), as molnar2023's "boot" refits train on.
    let mut boot = make("nonlinear_boot_100", true, 100, 6);
    let mut rng = stream_rng(6, 1);
    let rows: Vec<usize> = (0..100).map(|_| rng.random_range(0..100)).collect();
    boot.x = boot.x.select(ndarray::Axis(0), &rows);
    boot.y = rows.iter().map(|&r| boot.y[r]).collect();
    cases.push(boot);
    cases
}

/// The rpart settings R fitted, by name (as in `r_reference.R`).
fn rpart_settings() -> Vec<(&'static str, RpartParams)> {
    vec![
        ("default", RpartParams::default()),
        (
            "deep",
            RpartParams {
                cp: 0.001,
                minsplit: Some(10),
                ..Default::default()
            },
        ),
        (
            "depth2",
            RpartParams {
                maxdepth: 2,
                cp: 0.0,
                ..Default::default()
            },
        ),
    ]
}

fn write_csv(path: &std::path::Path, x: &Array2<f64>, y: Option<&[f64]>) {
    let p = x.ncols();
    let mut text: String = (1..=p).map(|j| format!("x{j},")).collect();
    text.push_str("y\n");
    for (i, row) in x.rows().into_iter().enumerate() {
        for v in row {
            text.push_str(&format!("{v},"));
        }
        text.push_str(&y.map_or("0".into(), |y| format!("{}", y[i])));
        text.push('\n');
    }
    std::fs::write(path, text).unwrap();
}

#[test]
#[ignore = "writes the inputs of fixtures/r_reference.R"]
fn write_r_inputs() {
    let dir = std::path::PathBuf::from(std::env::var("R_REFERENCE_DIR").unwrap());
    std::fs::create_dir_all(&dir).unwrap();
    for c in cases() {
        write_csv(&dir.join(format!("{}_train.csv", c.name)), &c.x, Some(&c.y));
        write_csv(&dir.join(format!("{}_test.csv", c.name)), &c.test, None);
    }
}

/// (case, model, quantity) → values in order of their index.
fn reference() -> HashMap<(String, String, String), Vec<f64>> {
    let path = format!(
        "{}/tests/fixtures/r_reference.csv",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut out: HashMap<_, Vec<(usize, f64)>> = HashMap::new();
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let key = (f[0].to_string(), f[1].to_string(), f[2].to_string());
        out.entry(key)
            .or_default()
            .push((f[3].parse().unwrap(), f[4].parse().unwrap()));
    }
    out.into_iter()
        .map(|(k, mut v)| {
            v.sort_by_key(|&(i, _)| i);
            (k, v.into_iter().map(|(_, x)| x).collect())
        })
        .collect()
}

fn get<'a>(
    r: &'a HashMap<(String, String, String), Vec<f64>>,
    case: &str,
    model: &str,
    quantity: &str,
) -> &'a [f64] {
    r.get(&(case.into(), model.into(), quantity.into()))
        .unwrap_or_else(|| panic!("no reference {case} {model} {quantity}"))
}

fn points(m: &dyn Model, x: &Array2<f64>) -> Vec<f64> {
    match m.predict(x.view()).unwrap() {
        Predictions::Point(p) => p.to_vec(),
        _ => panic!("point predictions"),
    }
}

#[test]
fn rpart_grows_the_tree_r_grows() {
    let r = reference();
    for c in cases() {
        for (setting, params) in rpart_settings() {
            let model = format!("rpart_{setting}");
            let tree: Forest = RpartLearner(params).fit_tree(c.x.view(), &c.y);
            let nodes = tree.trees()[0].nodes().len() as f64;
            assert_eq!(
                nodes,
                get(&r, c.name, &model, "nodes")[0],
                "{} {model}",
                c.name
            );
            let ours = points(&tree, &c.test);
            let theirs = get(&r, c.name, &model, "test_prediction");
            for (i, (a, b)) in ours.iter().zip(theirs).enumerate() {
                assert!(
                    (a - b).abs() <= 1e-12 * b.abs().max(1.0),
                    "{} {model} test row {i}: {a} vs R {b}",
                    c.name
                );
            }
        }
    }
    // Planted: cp = 0.02 instead of R's default 0.01 prunes some case's tree to
    // another size.
    let planted = RpartParams {
        cp: 0.02,
        ..Default::default()
    };
    assert!(
        cases().iter().any(|c| {
            let tree: Forest = RpartLearner(planted.clone()).fit_tree(c.x.view(), &c.y);
            tree.trees()[0].nodes().len() as f64 != get(&r, c.name, "rpart_default", "nodes")[0]
        }),
        "cp = 0.02 went unseen"
    );
}

fn mean_sd(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    (
        m,
        (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0)).sqrt(),
    )
}

fn leaves(f: &Forest) -> Vec<f64> {
    f.trees()
        .iter()
        .map(|t| t.nodes().iter().filter(|n| n.is_leaf()).count() as f64)
        .collect()
}

#[test]
fn r_random_forest_grows_trees_of_r_s_size_and_predicts_as_r() {
    let r = reference();
    const TREES: usize = 500;
    let learner = |nodesize| {
        RForestLearner(RForestParams {
            ntree: TREES,
            nodesize,
            ..Default::default()
        })
    };
    for c in cases().iter().filter(|c| !c.name.contains("boot")) {
        let theirs = get(&r, c.name, "random_forest", "leaves");
        let (r_mean, r_sd) = (theirs[0], theirs[1]);
        let ours = learner(5).fit_forest(c.x.view(), &c.y, 1);
        let (mean, sd) = mean_sd(&leaves(&ours));
        let se = ((r_sd * r_sd + sd * sd) / TREES as f64).sqrt();
        eprintln!(
            "{}: leaves per tree {mean:.2} (sd {sd:.2}), R {r_mean:.2} (sd {r_sd:.2})",
            c.name
        );
        assert!(
            (mean - r_mean).abs() < 4.0 * se,
            "{}: {mean:.2} leaves per tree, R {r_mean:.2} (se {se:.3})",
            c.name
        );
        // The test can tell the rules apart: splitting nodes of exactly nodesize
        // cases (nodesize 4 here) grows measurably larger trees.
        let (wrong, _) = mean_sd(&leaves(&learner(4).fit_forest(c.x.view(), &c.y, 1)));
        assert!(
            (wrong - r_mean).abs() > 8.0 * se,
            "{}: the nodesize rule is not identifiable ({wrong:.2} vs {r_mean:.2})",
            c.name
        );
        // R's forest is as close to ours as another of ours (different seed).
        let other = learner(5).fit_forest(c.x.view(), &c.y, 2);
        let rms = |a: &[f64], b: &[f64]| {
            (a.iter().zip(b).map(|(a, b)| (a - b).powi(2)).sum::<f64>() / a.len() as f64).sqrt()
        };
        let ours_p = points(&ours, &c.test);
        let to_r = rms(&ours_p, get(&r, c.name, "random_forest", "test_prediction"));
        let to_ours = rms(&ours_p, &points(&other, &c.test));
        assert!(
            to_r < 1.5 * to_ours,
            "{}: RMS distance to R's forest {to_r:.4}, to another of ours {to_ours:.4}",
            c.name
        );
    }
}

#[test]
fn lm_matches_r_coefficients_and_vcov() {
    let r = reference();
    for c in cases() {
        let names: Vec<String> = (1..=c.x.ncols()).map(|j| format!("x{j}")).collect();
        let m = LmLearner::default()
            .fit_linear(c.x.view(), &c.y, &names)
            .unwrap();
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1e-6);
        for (a, b) in m.coefficients().iter().zip(get(&r, c.name, "lm", "coef")) {
            assert!(close(*a, *b), "{} coef {a} vs R {b}", c.name);
        }
        // vcov in R's column-major order.
        let cov = m.coefficient_covariance().unwrap();
        let q = cov.nrows();
        let theirs = get(&r, c.name, "lm", "vcov");
        for j in 0..q {
            for i in 0..q {
                let (a, b) = (cov[[i, j]], theirs[j * q + i]);
                assert!(close(a, b), "{} vcov[{i},{j}] {a} vs R {b}", c.name);
            }
        }
        // Planted: σ² with divisor n (maximum likelihood) instead of R's n − q.
        let n = c.x.nrows() as f64;
        let ml = cov[[0, 0]] * (n - q as f64) / n;
        assert!(!close(ml, theirs[0]), "{}: divisor n went unseen", c.name);
        let ours = points(&m, &c.test);
        for (a, b) in ours.iter().zip(get(&r, c.name, "lm", "test_prediction")) {
            assert!(close(*a, *b), "{} prediction {a} vs R {b}", c.name);
        }
    }
}
