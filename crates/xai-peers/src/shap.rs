//! The Shapley workloads of `../shared/BENCH.md`: W4 (gradient boosting and
//! path-dependent TreeSHAP, against XGBoost's own `pred_contribs`) and W5 (KernelSHAP
//! of the W1 forest, against shap's `KernelExplainer`).

use std::path::Path;

use ndarray::{Array1, Array2, ArrayView2, Axis, s};
use serde_json::{Map, Value, json};
use xai_core::shapley::game::{ModelGame, ValueFunction};
use xai_core::shapley::kernel::{constrained_wls, kernel_shap};
use xai_core::shapley::tree::tree_shap;
use xai_core::{Attribution, Combination, Game, LEAF, Tree, TreeEnsembleView, TreeNode};
use xai_models::boosting::{Booster, BoostingParams, Objective};

use super::{as_f32, dump_file, matrix, max_abs_diff, peer_forest, replay_ok, time, xy};
use xai_bench::error::{BenchError, Result};

/// Largest |ours − XGBoost's| allowed when the dumped XGBoost model is replayed
/// (peers/README.md W4: "must match to ~1e-5", XGBoost computes in float32).
pub const XGB_REPLAY_TOLERANCE: f64 = 1e-5;

/// Largest |ours − shap's| allowed when the peer's forest and coalitions are replayed
/// through our constrained least squares (peers/README.md W5: "~1e-10").
pub const KERNEL_REPLAY_TOLERANCE: f64 = 1e-10;

/// W5's background: the first 100 training rows (peers/README.md).
const W5_BACKGROUND: usize = 100;
/// W5's explained rows: the first 50 test rows.
const W5_EXPLAINED: usize = 50;
/// W5's coalitions per explained row.
const W5_SAMPLES: usize = 1000;

/// The SHAP values of `rows` as an n × d matrix.
fn phi_matrix(rows: &[Attribution]) -> Array2<f64> {
    let d = rows.first().map_or(0, |a| a.phi.len());
    Array2::from_shape_fn((rows.len(), d), |(i, j)| rows[i].phi[j])
}

/// The peer's result fields for the SHAP values of `rows` (`expected_value`,
/// `max_additivity_error`, |φ| summed and averaged per feature, the first row and
/// common.py's `shap_summary`), each name prefixed with `prefix`.
fn shap_fields(prefix: &str, rows: &[Attribution]) -> Map<String, Value> {
    let phi = phi_matrix(rows);
    let abs = phi.mapv(f64::abs);
    let fields = [
        ("expected_value", json!(rows.first().map(|a| a.base))),
        (
            "max_additivity_error",
            json!(
                rows.iter()
                    .map(Attribution::efficiency_gap)
                    .fold(0.0, f64::max)
            ),
        ),
        (
            "sum_abs_shap_per_feature",
            json!(abs.sum_axis(Axis(0)).to_vec()),
        ),
        (
            "mean_abs_shap_per_feature",
            json!(abs.mean_axis(Axis(0)).map(|m| m.to_vec())),
        ),
        ("shap_row0", json!(rows.first().map(|a| a.phi.to_vec()))),
        (
            "shap_summary",
            json!({
                "shape": phi.shape(),
                "sum": phi.sum(),
                "abs_sum": abs.sum(),
                "sq_sum": phi.mapv(|v| v * v).sum(),
                "first": phi.first(),
                "last": phi.last(),
            }),
        ),
    ];
    fields
        .into_iter()
        .map(|(name, value)| (format!("{prefix}{name}"), value))
        .collect()
}

/// max |ours − theirs| of two matrices of the same shape; fails when the shapes
/// differ or the difference exceeds `tolerance` (a replay that does not reproduce).
fn checked_diff(
    what: &str,
    ours: ArrayView2<'_, f64>,
    theirs: ArrayView2<'_, f64>,
    tolerance: f64,
) -> Result<f64> {
    if ours.dim() != theirs.dim() {
        return Err(BenchError::PeerDiffers {
            workload: what.to_string(),
            message: format!("ours are {:?}, the peer's {:?}", ours.dim(), theirs.dim()),
        });
    }
    let diff = max_abs_diff(ours, theirs);
    replay_ok(what, diff, tolerance)?;
    Ok(diff)
}

fn mean_squared_error(pred: &Array1<f64>, y: &Array1<f64>) -> f64 {
    (pred - y).mapv(|v| v * v).mean().unwrap_or(f64::NAN)
}

/// An XGBoost regressor read from its JSON model (`xgb_model.json`,
/// `reg:squarederror`): base margin plus the sum of its trees.
struct XgbModel {
    trees: Vec<Tree>,
    base: f64,
}

impl TreeEnsembleView for XgbModel {
    fn trees(&self) -> &[Tree] {
        &self.trees
    }

    fn combination(&self) -> Combination {
        Combination::Sum { base: self.base }
    }
}

impl XgbModel {
    /// The margin as XGBoost computes it: in float32, from the base score, adding the
    /// trees' leaf values in order (inputs already cast to float32).
    fn margin_f32(&self, x: ArrayView2<'_, f64>) -> Array2<f64> {
        Array2::from_shape_fn((x.nrows(), 1), |(i, _)| {
            let sum = self.trees.iter().fold(self.base as f32, |m, t| {
                m + t.value(t.leaf(x.row(i)))[0] as f32
            });
            f64::from(sum)
        })
    }
}

/// Reads XGBoost's JSON model of a `reg:squarederror` booster (XGBoost ≥ 1.0;
/// `learner_model_param.base_score` is a margin for this objective).
fn xgb_model(path: &Path) -> Result<XgbModel> {
    let path = &dump_file(path);
    let text = std::fs::read_to_string(path).map_err(xai_bench::error::io_err(path))?;
    let bad = |message: String| BenchError::PeerFile {
        path: path.to_path_buf(),
        message,
    };
    let model: Value = serde_json::from_str(&text).map_err(|e| bad(format!("not JSON: {e}")))?;
    let learner = &model["learner"];
    let objective = learner["objective"]["name"].as_str().unwrap_or_default();
    if objective != "reg:squarederror" {
        return Err(bad(format!(
            "objective `{objective}`: only reg:squarederror models are replayed"
        )));
    }
    // XGBoost 2 and later write it as a one-element vector, "[1.4413016E1]".
    let base: f32 = learner["learner_model_param"]["base_score"]
        .as_str()
        .and_then(|b| b.trim_matches(['[', ']']).parse().ok())
        .ok_or_else(|| bad("no numeric learner_model_param.base_score".into()))?;
    let trees = learner["gradient_booster"]["model"]["trees"]
        .as_array()
        .ok_or_else(|| bad("no gradient_booster.model.trees".into()))?
        .iter()
        .enumerate()
        .map(|(t, tree)| xgb_tree(tree).map_err(|e| bad(format!("tree {t}: {e}"))))
        .collect::<Result<Vec<Tree>>>()?;
    Ok(XgbModel {
        trees,
        base: f64::from(base),
    })
}

/// One tree of XGBoost's JSON model. Leaves have `left_children` −1 and their value
/// (η·w) in `split_conditions`; split nodes keep η·w in `base_weights`; the covers
/// are `sum_hessian`. XGBoost sends a row left iff x < c in float32 (c the float32
/// `split_conditions`); [`TreeNode`] sends x ≤ t left, and t = the largest f64 below c
/// keeps x < c ⟺ x ≤ t for every x, so rows cast to float32 go where XGBoost sends
/// them.
fn xgb_tree(tree: &Value) -> std::result::Result<Tree, String> {
    let array = |key: &str| {
        tree[key]
            .as_array()
            .ok_or_else(|| format!("no array `{key}`"))
    };
    let ints = |key: &str| {
        array(key)?
            .iter()
            .map(|v| {
                v.as_i64()
                    .or_else(|| v.as_bool().map(i64::from))
                    .ok_or_else(|| format!("`{key}` holds {v}"))
            })
            .collect::<std::result::Result<Vec<i64>, String>>()
    };
    // float32 in the file: their shortest decimals, read back to the same float32.
    let floats = |key: &str| {
        array(key)?
            .iter()
            .map(|v| {
                v.as_f64()
                    .map(|f| f64::from(f as f32))
                    .ok_or_else(|| format!("`{key}` holds {v}"))
            })
            .collect::<std::result::Result<Vec<f64>, String>>()
    };
    let (left, right) = (ints("left_children")?, ints("right_children")?);
    let (features, default_left) = (ints("split_indices")?, ints("default_left")?);
    let split_type = ints("split_type")?;
    let conditions = floats("split_conditions")?;
    let (weights, covers) = (floats("base_weights")?, floats("sum_hessian")?);
    let n = left.len();
    let lengths = [
        right.len(),
        features.len(),
        default_left.len(),
        split_type.len(),
        conditions.len(),
        weights.len(),
        covers.len(),
    ];
    if n == 0 || lengths.iter().any(|&l| l != n) {
        return Err(format!("node arrays of lengths {n} and {lengths:?}"));
    }
    if split_type.iter().any(|&t| t != 0) {
        return Err("categorical splits are not replayed".into());
    }
    // Children must come after their node (XGBoost numbers them so): no cycles.
    let index = |v: i64, range: std::ops::Range<usize>, what: &str| {
        u32::try_from(v)
            .ok()
            .filter(|&i| range.contains(&(i as usize)))
            .ok_or_else(|| format!("{what} {v} out of range"))
    };
    let mut nodes = Vec::with_capacity(n);
    let mut values = Vec::with_capacity(n);
    for i in 0..n {
        let leaf = left[i] == -1;
        nodes.push(TreeNode {
            feature: if leaf {
                0
            } else {
                index(features[i], 0..usize::MAX, "split feature")?
            },
            left: if leaf {
                LEAF
            } else {
                index(left[i], i + 1..n, "child")?
            },
            right: if leaf {
                LEAF
            } else {
                index(right[i], i + 1..n, "child")?
            },
            threshold: if leaf { 0.0 } else { conditions[i].next_down() },
            weight: covers[i],
            impurity: 0.0,
            missing_left: default_left[i] != 0,
        });
        values.push(if leaf { conditions[i] } else { weights[i] });
    }
    Ok(Tree::new(nodes, values, 1))
}

/// W4: gradient boosting (100 rounds, depth 6, η = 0.3) on the 2000×10 Friedman #1
/// dump and path-dependent TreeSHAP of the 1000 test rows. The peer grows XGBoost's
/// `hist` trees (256 bins); ours are XGBoost's exact greedy trees, with the peer's
/// intercept: XGBoost ≥ 2 estimates `base_score` for squared error as the mean of y.
///
/// With `xgb_model.json` in the dump, the peer's own trees are replayed (phase
/// `shap_values_replay`, the like-for-like timing of XGBoost's `pred_contribs`): every
/// SHAP value must be within [`XGB_REPLAY_TOLERANCE`] of `shap_values.csv`, and the
/// margins, accumulated in float32 as XGBoost does, within it of `xgb_test_pred.csv`.
pub(super) fn w4_treeshap(dir: &Path, threads: usize, repeats: usize) -> Result<Value> {
    let (x, y) = xy(dir.join("train.csv"))?;
    let (xt, yt) = xy(dir.join("test.csv"))?;
    let params = BoostingParams {
        rounds: 100,
        eta: 0.3,
        max_depth: 6,
        objective: Some(Objective::SquaredError),
        base_score: y.mean().unwrap_or(0.0),
        ..BoostingParams::default()
    };
    let targets = y.to_vec();
    let (booster, fit_s, fit_runs) = time(repeats, || {
        Booster::fit(x.view(), &targets, &params).map_err(BenchError::Core)
    })?;
    let (ours, shap_s, shap_runs) = time(repeats, || {
        tree_shap(&booster, xt.view(), 0).map_err(BenchError::Core)
    })?;
    let mut result = shap_fields("", &ours);
    result.insert(
        "test_mse".into(),
        json!(mean_squared_error(&booster.margin(xt.view()), &yt)),
    );
    result.insert("n_trees".into(), json!(booster.trees().len()));
    let mut wall = json!({"fit": fit_s, "shap_values": shap_s});
    let mut runs = json!({"fit": fit_runs, "shap_values": shap_runs});
    if dir.join("xgb_model.json").is_file() {
        let model = xgb_model(&dir.join("xgb_model.json"))?;
        let xt32 = as_f32(xt.view());
        let (replay, replay_s, replay_runs) = time(repeats, || {
            tree_shap(&model, xt32.view(), 0).map_err(BenchError::Core)
        })?;
        wall["shap_values_replay"] = json!(replay_s);
        runs["shap_values_replay"] = json!(replay_runs);
        let (_, theirs) = matrix(&dir.join("shap_values.csv"))?;
        let (_, pred) = matrix(&dir.join("xgb_test_pred.csv"))?;
        let shap_diff = checked_diff(
            "w4_treeshap SHAP values",
            phi_matrix(&replay).view(),
            theirs.view(),
            XGB_REPLAY_TOLERANCE,
        )?;
        let margin = model.margin_f32(xt32.view());
        let margin_diff = checked_diff(
            "w4_treeshap float32 margins",
            margin.view(),
            pred.view(),
            XGB_REPLAY_TOLERANCE,
        )?;
        // TreeSHAP's v([d]): the margin in f64, off XGBoost's float32 sum by its rounding.
        let full = Array2::from_shape_fn((replay.len(), 1), |(i, _)| replay[i].full);
        result.extend(shap_fields("replay_", &replay));
        result.insert("replay_shap_max_abs_diff".into(), json!(shap_diff));
        result.insert("replay_margin_f32_max_abs_diff".into(), json!(margin_diff));
        result.insert(
            "replay_margin_f64_max_abs_diff".into(),
            json!(max_abs_diff(full.view(), pred.view())),
        );
        result.insert(
            "replay_test_mse".into(),
            json!(mean_squared_error(&margin.column(0).to_owned(), &yt)),
        );
    }
    Ok(json!({
        "workload": "w4_treeshap",
        "threads": threads,
        "repeats": repeats,
        "wall_s": wall,
        "runs_s": runs,
        "result": result,
    }))
}

/// `coalitions.csv` (row, k, kernel_weight, m1..m_d): per explained row, shap's
/// coalition masks and their final kernel weights, in row order.
fn read_coalitions(path: &Path, d: usize, rows: usize) -> Result<Vec<(Array2<bool>, Vec<f64>)>> {
    let (header, m) = matrix(path)?;
    if header.len() != 3 + d {
        return Err(BenchError::PeerFile {
            path: path.to_path_buf(),
            message: format!(
                "{} columns, expected row, k, kernel_weight and {d} masks",
                header.len()
            ),
        });
    }
    (0..rows)
        .map(|row| {
            let mine: Vec<usize> = (0..m.nrows())
                .filter(|&r| m[[r, 0]] == row as f64)
                .collect();
            if mine.is_empty() {
                return Err(BenchError::PeerFile {
                    path: path.to_path_buf(),
                    message: format!("no coalitions of explained row {row}"),
                });
            }
            let masks = Array2::from_shape_fn((mine.len(), d), |(k, j)| m[[mine[k], 3 + j]] != 0.0);
            Ok((masks, mine.iter().map(|&r| m[[r, 2]]).collect()))
        })
        .collect()
}

/// shap's solve of one explained row: [`constrained_wls`] over the `selected`
/// features only, φ = 0 for the others. shap's default `l1_reg="num_features(10)"`
/// first runs 10 steps of LARS and keeps the features it activated; with d = 10 that
/// is usually all of them, but not always (seed 1: row 8 keeps 9, and shap_values.csv
/// holds an exact 0 for the tenth), so the replay takes the selection from the
/// features whose φ the peer did not set to exactly 0. Coalitions that hold all or
/// none of the selected features add a zero row to shap's design matrix, so they are
/// left out.
fn shap_solve(
    masks: ArrayView2<'_, bool>,
    weights: &[f64],
    values: &[f64],
    (base, full): (f64, f64),
    selected: &[bool],
) -> Result<Array1<f64>> {
    if selected.iter().all(|&s| s) {
        return constrained_wls(masks, weights, values, base, full).map_err(BenchError::Core);
    }
    let columns: Vec<usize> = (0..selected.len()).filter(|&j| selected[j]).collect();
    let restricted = masks.select(Axis(1), &columns);
    let keep: Vec<usize> = (0..restricted.nrows())
        .filter(|&r| {
            let size = restricted.row(r).iter().filter(|&&m| m).count();
            size > 0 && size < columns.len()
        })
        .collect();
    let pick = |v: &[f64]| keep.iter().map(|&r| v[r]).collect::<Vec<f64>>();
    let phi = constrained_wls(
        restricted.select(Axis(0), &keep).view(),
        &pick(weights),
        &pick(values),
        base,
        full,
    )
    .map_err(BenchError::Core)?;
    let mut all = Array1::zeros(selected.len());
    for (&j, &p) in columns.iter().zip(&phi) {
        all[j] = p;
    }
    Ok(all)
}

/// W5: KernelSHAP of the W1 forest (the peer's, `rf_forest.csv`, on float32-cast
/// rows as scikit-learn compares them) for the first 50 test rows over the first 100
/// training rows. Phase `kernelshap_50rows_replay` evaluates the peer's own coalitions
/// (`coalitions.csv`) with [`ModelGame`] (which reads a forest's coalitions off its
/// coalition table, `xai_core::shapley::coalitions`) and solves shap's constrained least squares
/// with its kernel weights over the features its LARS step kept ([`shap_solve`]):
/// every φ must be within [`KERNEL_REPLAY_TOLERANCE`] of `shap_values.csv`. Phase `kernelshap_50rows` is our own paired sampler
/// ([`kernel_shap`], 1000 coalitions per row, stream = row index of seed 1); its
/// largest difference from the peer's values is reported, not bounded (other
/// coalitions).
pub(super) fn w5_kernelshap(dir: &Path, threads: usize, repeats: usize) -> Result<Value> {
    let (x, _) = xy(dir.join("train.csv"))?;
    let (xt, _) = xy(dir.join("test.csv"))?;
    let d = x.ncols();
    let forest = peer_forest(&dir.join("rf_forest.csv"), d, false)?;
    let background = as_f32(x.slice(s![..W5_BACKGROUND, ..]));
    let explained = as_f32(xt.slice(s![..W5_EXPLAINED, ..]));
    let game = |i: usize| {
        ModelGame::new(
            &forest,
            explained.row(i),
            background.view(),
            ValueFunction::Prediction,
            None,
        )
        .map_err(BenchError::Core)
    };
    let (ours, ours_s, ours_runs) = time(repeats, || {
        (0..W5_EXPLAINED)
            .map(|i| {
                kernel_shap(
                    &game(i)?,
                    W5_SAMPLES,
                    &mut xai_core::rng::stream_rng(1, i as u64),
                )
                .map_err(BenchError::Core)
            })
            .collect::<Result<Vec<Attribution>>>()
    })?;
    let (_, theirs) = matrix(&dir.join("shap_values.csv"))?;
    // Not bounded: another sampler draws other coalitions.
    let ours_diff = checked_diff(
        "w5_kernelshap our sampler's SHAP values",
        phi_matrix(&ours).view(),
        theirs.view(),
        f64::INFINITY,
    )?;
    let mut result = shap_fields("", &ours);
    result.insert("max_abs_diff_vs_peer".into(), json!(ours_diff));
    result.insert(
        "model_evals_per_explained_row".into(),
        json!((W5_SAMPLES + 2) * W5_BACKGROUND),
    );
    let mut wall = json!({"kernelshap_50rows": ours_s});
    let mut runs = json!({"kernelshap_50rows": ours_runs});
    if dir.join("coalitions.csv").is_file() {
        let coalitions = read_coalitions(&dir.join("coalitions.csv"), d, W5_EXPLAINED)?;
        let (replay, replay_s, replay_runs) = time(repeats, || {
            let base = forest
                .leaf_means(background.view())
                .column(0)
                .mean()
                .unwrap_or(f64::NAN);
            let full = forest.leaf_means(explained.view());
            coalitions
                .iter()
                .enumerate()
                .map(|(i, (masks, weights))| {
                    let values = game(i)?.values(masks.view()).map_err(BenchError::Core)?;
                    let selected: Vec<bool> = theirs.row(i).iter().map(|&p| p != 0.0).collect();
                    let phi = shap_solve(
                        masks.view(),
                        weights,
                        &values.to_vec(),
                        (base, full[[i, 0]]),
                        &selected,
                    )?;
                    Ok(Attribution {
                        phi,
                        base,
                        full: full[[i, 0]],
                    })
                })
                .collect::<Result<Vec<Attribution>>>()
        })?;
        wall["kernelshap_50rows_replay"] = json!(replay_s);
        runs["kernelshap_50rows_replay"] = json!(replay_runs);
        let diff = checked_diff(
            "w5_kernelshap SHAP values",
            phi_matrix(&replay).view(),
            theirs.view(),
            KERNEL_REPLAY_TOLERANCE,
        )?;
        result.extend(shap_fields("replay_", &replay));
        result.insert("replay_shap_max_abs_diff".into(), json!(diff));
        let dropped: Vec<String> = theirs
            .indexed_iter()
            .filter(|&(_, &p)| p == 0.0)
            .map(|((i, j), _)| format!("row {i}: x{}", j + 1))
            .collect();
        result.insert("replay_not_selected_by_shap".into(), json!(dropped));
    }
    Ok(json!({
        "workload": "w5_kernelshap",
        "threads": threads,
        "repeats": repeats,
        "wall_s": wall,
        "runs_s": runs,
        "result": result,
    }))
}
