//! `run(experiment)`: an experiment YAML (a paper's id or a path) run by the engine
//! exactly as `cargo xtask run` runs it, writing the same outputs.

use std::path::PathBuf;

use pyo3::prelude::*;
use xai_bench::catalog::resolve;
use xai_bench::commands::{Place, run_experiment};
use xai_bench::plan::{Job, Scale};
use xai_bench::workspace::workspace_root;

use crate::XaiError;

/// Runs `experiment` at `scale` on `threads` threads (0: every core) into `out`
/// (default `runs/<id>/<scale>/` of the workspace), resuming finished cells unless
/// `fresh`; returns the directory written and the paper checks as
/// (claim, status, measured) triples.
#[pyfunction]
#[pyo3(signature = (experiment, scale, threads, out, fresh, progress))]
pub fn run(
    py: Python<'_>,
    experiment: &str,
    scale: &str,
    threads: usize,
    out: Option<PathBuf>,
    fresh: bool,
    progress: bool,
) -> PyResult<(PathBuf, String)> {
    let err = |e: xai_bench::BenchError| XaiError::new_err(e.to_string());
    let root = workspace_root();
    let scale = Scale::parse(scale).map_err(err)?;
    let exp = resolve(&root, experiment).map_err(err)?;
    let place = Place {
        out,
        fresh,
        shard: None,
    };
    let report = py
        .detach(|| run_experiment(&root, Job::new(&exp, scale, threads, progress), &place))
        .map_err(err)?;
    Ok((report.dir, exp.id().to_string()))
}
