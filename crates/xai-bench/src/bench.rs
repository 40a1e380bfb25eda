//! Benchmarks against the Python peers (`../shared/BENCH.md`): each reads the peer's
//! dumped inputs, times the same phases with this workspace's code and prints one JSON
//! line with the same phase and result names.

use std::path::{Path, PathBuf};
use std::time::Instant;

use ndarray::{Array1, Array2};
use serde_json::{Value, json};
use xai_models::gp::{GaussianProcess, GpParams, log_marginal_likelihood};

use crate::error::{BenchError, Result};
use crate::table::read_csv;

/// The workloads implemented so far.
pub const WORKLOADS: [&str; 1] = ["w3_gp"];

/// Runs workload `name` on the dump in `data` (the directory holding `<name>/` or
/// the workload directory itself) and returns its JSON line.
pub fn run(name: &str, data: &Path, threads: usize, repeats: usize) -> Result<Value> {
    let dir = if data.join(name).is_dir() {
        data.join(name)
    } else {
        data.to_path_buf()
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| BenchError::Other(format!("cannot start {threads} threads: {e}")))?;
    match name {
        "w3_gp" => pool.install(|| w3_gp(&dir, threads, repeats)),
        other => Err(BenchError::Other(format!(
            "unknown workload `{other}`; implemented: {}",
            WORKLOADS.join(", ")
        ))),
    }
}

/// Reads a numeric CSV whose last column is the target.
fn xy(path: PathBuf) -> Result<(Array2<f64>, Array1<f64>)> {
    let t = read_csv(&path)?;
    let bad =
        |r: usize| BenchError::Other(format!("{}: row {} is not numeric", path.display(), r + 2));
    let d = t.header.len() - 1;
    let mut x = Array2::zeros((t.rows.len(), d));
    let mut y = Array1::zeros(t.rows.len());
    for (i, row) in t.rows.iter().enumerate() {
        for (j, v) in row.iter().enumerate() {
            let v: f64 = v.parse().map_err(|_| bad(i))?;
            if j < d { x[[i, j]] = v } else { y[i] = v }
        }
    }
    Ok((x, y))
}

/// Median of the timings of `repeats` runs after one warm-up; returns the last result.
fn time<T>(repeats: usize, mut f: impl FnMut() -> Result<T>) -> Result<(T, f64, Vec<f64>)> {
    let mut out = f()?;
    let mut runs = Vec::with_capacity(repeats);
    for _ in 0..repeats {
        let t = Instant::now();
        out = f()?;
        runs.push(t.elapsed().as_secs_f64());
    }
    let mut sorted = runs.clone();
    sorted.sort_by(f64::total_cmp);
    Ok((out, sorted[sorted.len() / 2], runs))
}

/// W3: GP ML-II fit on the 500×5 training dump (scikit-learn's setting: raw inputs,
/// standardised target, one optimiser start from θ = 0), then predictive mean and sd
/// on the 500 test rows.
fn w3_gp(dir: &Path, threads: usize, repeats: usize) -> Result<Value> {
    let (x, y) = xy(dir.join("train.csv"))?;
    let (xt, yt) = xy(dir.join("test.csv"))?;
    let params = GpParams {
        restarts: 0,
        standardize_inputs: false,
        ..GpParams::default()
    };
    let core = |e: xai_core::CoreError| BenchError::Other(e.to_string());
    let (gp, fit_s, fit_runs) = time(repeats, || {
        let mut rng = xai_core::rng::stream_rng(1, 0);
        GaussianProcess::fit(x.view(), y.view(), &params, &mut rng).map_err(core)
    })?;
    let ((mean, var), pred_s, pred_runs) = time(repeats, || Ok(gp.predict_mean_var(xt.view())))?;
    let sd = var.mapv(f64::sqrt);
    let ys = (&y - y.mean().unwrap_or(0.0)) / y.std(0.0);
    let (lml0, _) = log_marginal_likelihood(
        x.view(),
        ys.view(),
        &vec![0.0; x.ncols() + 2],
        params.jitter,
    )
    .map_err(core)?;
    let h = gp.hyperparameters();
    let mse = (&mean - &yt).mapv(|v| v * v).mean().unwrap_or(f64::NAN);
    Ok(json!({
        "workload": "w3_gp",
        "threads": threads,
        "repeats": repeats,
        "wall_s": {"fit": fit_s, "predict_mean_std": pred_s},
        "runs_s": {"fit": fit_runs, "predict_mean_std": pred_runs},
        "result": {
            "log_marginal_likelihood": gp.log_marginal_likelihood(),
            "lml_at_initial_theta": lml0,
            "constant_value": h.signal_var,
            "length_scales": h.length_scales,
            "noise_level": h.noise_var,
            "theta_log": gp.theta(),
            "optimizer": {"nfev": gp.evaluations()},
            "test_mse": mse,
            "pred_mean_first5": mean.iter().take(5).collect::<Vec<_>>(),
            "pred_std_first5": sd.iter().take(5).collect::<Vec<_>>(),
        }
    }))
}
