//! `run(experiment)`: an experiment YAML (a paper's id or a path) run by the engine
//! exactly as `cargo xtask run` runs it, writing the same outputs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use pyo3::prelude::*;
use xai_bench::catalog::resolve_supplied;
use xai_bench::commands::{Place, run_experiment};
use xai_bench::plan::{Experiment, Job, Scale};
use xai_bench::workspace::workspace_root;

use xai_bench::models::external::Supplied;

use crate::foreign::{ForeignLearner, Kind, Sink};

/// Runs `experiment` at `scale` on `threads` threads (0: every core) into `out`
/// (default `runs/<id>/<scale>/` of the workspace), resuming finished cells unless
/// `fresh`; returns the directory written and the experiment's id. With `text`, the
/// experiment is that YAML text, `experiment` the file name it answers to
/// (`<id>.yaml`, relative paths in it read from the current directory): an
/// experiment crosses as data, never through a file.
///
/// `models` supplies the learners of the YAML's `external` models by name: a
/// `fit(X, y, seed, n_classes)` callable and the kind of its models each. Such a run
/// is fresh (a Python learner has no hash its cells and truths could be keyed on:
/// the run directory's `cells/` and `truths/` are discarded before it and after a
/// failure) and on one thread (the calls into Python come from one thread). A Python
/// exception comes back as itself; nothing is written.
#[pyfunction]
#[pyo3(signature = (experiment, scale, threads, out, fresh, progress, models, text=None))]
#[allow(clippy::too_many_arguments)]
pub fn run(
    py: Python<'_>,
    experiment: &str,
    scale: &str,
    threads: usize,
    out: Option<PathBuf>,
    fresh: bool,
    progress: bool,
    models: BTreeMap<String, (Py<PyAny>, String)>,
    text: Option<String>,
) -> PyResult<(PathBuf, String)> {
    let err = crate::error;
    let root = workspace_root();
    let scale = Scale::parse(scale).map_err(err)?;
    let sink = Sink::default();
    let mut supplied = BTreeMap::new();
    for (name, (fit, kind)) in models {
        let kind = Kind::parse(&kind)?;
        let learner = ForeignLearner::new(fit, kind, name.clone(), sink.clone());
        supplied.insert(
            name,
            Supplied::foreign(Arc::new(learner), kind == Kind::Members),
        );
    }
    let foreign = !supplied.is_empty();
    let exp = match text {
        Some(text) => Experiment::from_text_supplied(Path::new(experiment), text, supplied),
        None => resolve_supplied(&root, experiment, supplied),
    }
    .map_err(err)?;
    let place = Place {
        out,
        fresh: fresh || foreign,
        shard: None,
    };
    let stored = place.cells_base(&root, &exp, scale);
    let existed = stored.exists();
    // A run with Python learners keeps no cells or truths (their lock files neither),
    // before or after it.
    let clear = || -> PyResult<()> {
        if !foreign {
            return Ok(());
        }
        for d in ["cells", "truths"] {
            let dir = stored.join(d);
            let lock = stored.join(format!("{d}.lock"));
            let gone = |p: &std::path::Path, e: std::io::Error| {
                crate::error(xai_bench::BenchError::Io {
                    path: p.to_path_buf(),
                    source: e,
                })
            };
            if dir.exists() {
                std::fs::remove_dir_all(&dir).map_err(|e| gone(&dir, e))?;
            }
            if lock.exists() {
                std::fs::remove_file(&lock).map_err(|e| gone(&lock, e))?;
            }
        }
        Ok(())
    };
    clear()?;
    let threads = if foreign { 1 } else { threads };
    let job = Job {
        stop: Some(sink.stop()),
        ..Job::new(&exp, scale, threads, progress)
    };
    // A run that shows its own progress bar needs no second line.
    let label = format!("xaiws: running {}", exp.id());
    let report = crate::interrupt::interruptible(py, &sink, (&label, !progress), || {
        run_experiment(&root, job, &place)
    });
    let failed = match report {
        Ok(Ok(report)) => return Ok((report.dir, exp.id().to_string())),
        // Interrupted: the finished cells of a run of Rust learners stay (it resumes).
        Err(interrupt) => interrupt,
        Ok(Err(e)) => sink.take().unwrap_or_else(|| err(e)),
    };
    clear()?;
    if !existed {
        // Empty now unless the run wrote elsewhere in it; then it stays.
        let _ = std::fs::remove_dir(&stored);
    }
    Err(failed)
}
