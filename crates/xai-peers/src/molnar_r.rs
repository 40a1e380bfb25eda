//! `w9_molnar_r`: one experiment of molnar2023 Table 1 on the authors' stack
//! (`../shared/peers/w9_molnar_r.R`: R's `lm`, `rpart` and `randomForest`), replayed on
//! the peer's dump: the same n = 1000 rows of the code's non-linear DGP, the same 30
//! bootstrap index vectors and, per refit and feature, the same 5 permutations of the
//! out-of-bag rows. Each learner is refitted 30 times and explained on the out-of-bag
//! rows as in [`super::w8_refit`]: PFI_j = the mean over the 5 permutations of
//! MSE(permuted) − MSE(original), and PD_j at {0.1, 0.3, 0.5, 0.7, 0.9} (molnar2023
//! Eq. 9–10 before the mean over refits). Phase `experiment_<learner>` times the 30
//! refits, as the peer's phase of the same name does.
//!
//! Answers, per refit and entry (4 PFI + 20 PD), against the peer's
//! `refits_<learner>.csv`:
//! - `lm` and `rpart` are deterministic given the rows, so the replay must reproduce
//!   R's numbers: |ours − R's| ≤ [`DETERMINISTIC_TOLERANCE`] (R writes 15 significant
//!   digits);
//! - `randomForest` draws its own bootstrap samples and features, which cannot be
//!   replayed, so per entry the mean over the 30 refits of d_k = ours_k − R's_k must be
//!   within Monte-Carlo error: |z| = |mean d| / (sd(d)/√30) ≤ [`FOREST_MAX_Z`]. Both
//!   forests are fitted on the same rows, so d_k holds only the two forests' own
//!   randomness.

use std::path::Path;

use ndarray::{Array2, ArrayView2, Axis};
use serde_json::{Value, json};
use xai_core::{Dataset, Learner, Model, Perturbation, Target};
use xai_models::{LmLearner, LmParams, RForestLearner, RForestParams, RpartLearner, RpartParams};

use super::{W8_GRID, dump_file, matrix, time, w8_refit, xy};
use xai_bench::error::{BenchError, Result};

/// Refits per experiment (the peer's `M`).
const REFITS: usize = 30;
/// Permutations per feature and refit (the peer's `R`).
const PERMUTATIONS: usize = 5;
/// Largest |ours − R's| of a deterministic learner's PFI or PD: R's `write.csv` keeps
/// 15 significant digits (values here are below 10, so ≤ 5e-15 from rounding), and
/// the two least-squares solvers differ in the last bits.
pub const DETERMINISTIC_TOLERANCE: f64 = 1e-9;
/// Largest |z| of a forest entry (module doc). Under equal distributions z follows
/// t with 29 degrees of freedom; P(|t₂₉| > 4) = 4e-4, so the largest of 24 entries
/// passes 99% of the time.
pub const FOREST_MAX_Z: f64 = 4.0;

/// The learners of the experiment: name (the peer's), learner, whether its fit is
/// deterministic given the rows.
fn learners() -> Vec<(&'static str, Box<dyn Learner>, bool)> {
    vec![
        ("lm", Box::new(LmLearner(LmParams::default())), true),
        (
            "rpart",
            Box::new(RpartLearner(RpartParams::default())),
            true,
        ),
        (
            "rf",
            Box::new(RForestLearner(RForestParams::default())),
            false,
        ),
    ]
}

/// `boot.csv`: one row of n row indices (0-based) per refit.
fn read_boot(path: &Path) -> Result<Vec<Vec<usize>>> {
    let (_, m) = matrix(path)?;
    Ok(m.rows()
        .into_iter()
        .map(|r| r.iter().map(|&v| v as usize).collect())
        .collect())
}

/// `perms.csv` (`refit,feature,rep,permutation`): per refit, per feature, its
/// permutations of the out-of-bag rows in `rep` order.
fn read_perms(path: &Path, d: usize) -> Result<Vec<Vec<Vec<Vec<usize>>>>> {
    let text = std::fs::read_to_string(dump_file(path)).map_err(xai_bench::error::io_err(path))?;
    let mut perms = vec![vec![Vec::new(); d]; REFITS];
    for (i, line) in text.lines().enumerate().skip(1) {
        let bad = || BenchError::PeerFile {
            path: path.to_path_buf(),
            message: format!("line {} is malformed", i + 1),
        };
        let mut parts = line.splitn(4, ',');
        let mut index =
            || -> Result<usize> { parts.next().and_then(|v| v.parse().ok()).ok_or_else(bad) };
        let (k, j, _rep) = (index()?, index()?, index()?);
        let order = parts
            .next()
            .ok_or_else(bad)?
            .split_whitespace()
            .map(|v| v.parse().map_err(|_| bad()))
            .collect::<Result<Vec<usize>>>()?;
        let slot = perms
            .get_mut(k)
            .and_then(|p| p.get_mut(j))
            .ok_or_else(bad)?;
        slot.push(order);
    }
    Ok(perms)
}

/// The rows not drawn, ascending (R's `setdiff(1:N, idx)`).
fn out_of_bag(n: usize, drawn: &[usize]) -> Vec<usize> {
    let mut seen = vec![false; n];
    drawn.iter().for_each(|&i| seen[i] = true);
    (0..n).filter(|&i| !seen[i]).collect()
}

/// Per entry (columns) the largest |ours − R's| over refits, or the z of the mean
/// difference (module doc).
fn agreement(
    ours: ArrayView2<'_, f64>,
    theirs: ArrayView2<'_, f64>,
    deterministic: bool,
) -> Vec<f64> {
    let diff = &ours - &theirs;
    diff.columns()
        .into_iter()
        .map(|d| match deterministic {
            true => d.iter().fold(0.0, |m: f64, v| m.max(v.abs())),
            false => {
                let m = d.len() as f64;
                let mean = d.mean().unwrap_or(f64::NAN);
                mean / (d.std(1.0) / m.sqrt())
            }
        })
        .collect()
}

/// W9 (module doc): per learner the 30 refits, timed, and their agreement with R's.
pub(super) fn w9_molnar_r(dir: &Path, threads: usize, repeats: usize) -> Result<Value> {
    let (x, y) = xy(dir.join("data.csv"))?;
    let (n, d) = x.dim();
    let boot = read_boot(&dir.join("boot.csv"))?;
    let perms = read_perms(&dir.join("perms.csv"), d)?;
    if boot.len() != REFITS || perms.iter().flatten().any(|p| p.len() != PERMUTATIONS) {
        return Err(BenchError::PeerFile {
            path: dir.to_path_buf(),
            message: format!(
                "expected {REFITS} refits with {PERMUTATIONS} permutations per feature"
            ),
        });
    }
    let names: Vec<String> = (1..=d).map(|j| format!("x{j}")).collect();
    let mut wall = serde_json::Map::new();
    let mut runs = serde_json::Map::new();
    let mut result = serde_json::Map::new();
    let mut failed = Vec::new();
    for (name, learner, deterministic) in learners() {
        let fit = |xb: ArrayView2<'_, f64>, yb: &[f64], k: usize| -> Result<Box<dyn Model>> {
            let data = Dataset::new(
                xb.to_owned(),
                Target::Continuous(yb.to_vec().into()),
                names.clone(),
            )
            .map_err(BenchError::Core)?;
            let mut rng = xai_core::rng::stream_rng(9, k as u64);
            learner.fit(&data, &mut rng).map_err(BenchError::Core)
        };
        let (refits, wall_s, runs_s) = time(repeats, || {
            (0..REFITS)
                .map(|k| {
                    let oob = out_of_bag(n, &boot[k]);
                    let orders = Perturbation::Orders {
                        orders: perms[k].clone(),
                    };
                    let refit = w8_refit(
                        &x,
                        &y,
                        (&boot[k], &oob),
                        |xb, yb| fit(xb, yb, k),
                        &orders,
                        0,
                    )?;
                    Ok((oob.len(), refit.values()))
                })
                .collect::<Result<Vec<_>>>()
        })?;
        let ours =
            Array2::from_shape_fn((REFITS, d * (1 + W8_GRID.len())), |(k, e)| refits[k].1[e]);
        let (_, peer) = matrix(&dir.join(format!("refits_{name}.csv")))?;
        let n_oob_ok = refits
            .iter()
            .zip(peer.column(0))
            .all(|((n_oob, _), &theirs)| *n_oob as f64 == theirs);
        let theirs = peer.slice(ndarray::s![.., 1..]);
        let per_entry = agreement(ours.view(), theirs, deterministic);
        let worst = per_entry.iter().fold(0.0, |m: f64, v| m.max(v.abs()));
        let (measure, bound) = match deterministic {
            true => ("max_abs_diff", DETERMINISTIC_TOLERANCE),
            false => ("max_abs_z", FOREST_MAX_Z),
        };
        let ok = n_oob_ok && worst <= bound;
        if !ok {
            failed.push(format!(
                "{name}: {measure} {worst:.3e} (bound {bound}), n_oob equal: {n_oob_ok}"
            ));
        }
        let mean = ours.mean_axis(Axis(0)).expect("30 refits");
        let pd_x1: Vec<f64> = mean.iter().skip(d).take(W8_GRID.len()).copied().collect();
        result.insert(
            name.into(),
            json!({
                "learner_pfi": mean.iter().take(d).collect::<Vec<_>>(),
                "learner_pd_x1": pd_x1,
                measure: worst,
                "bound": bound,
                "ok": ok,
                "per_entry": per_entry,
            }),
        );
        wall.insert(format!("experiment_{name}"), json!(wall_s));
        runs.insert(format!("experiment_{name}"), json!(runs_s));
    }
    let line = json!({
        "workload": "w9_molnar_r",
        "threads": threads,
        "repeats": repeats,
        "wall_s": wall,
        "runs_s": runs,
        "result": result,
    });
    if failed.is_empty() {
        Ok(line)
    } else {
        Err(BenchError::PeerDiffers {
            workload: "w9_molnar_r".into(),
            message: format!("differs from R's refits: {}\n{line}", failed.join("; ")),
        })
    }
}
