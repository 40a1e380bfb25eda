//! What the `cargo xtask` commands do with an experiment: `run` into a git-ignored run
//! directory, `check` against the committed baseline, `bless` a new baseline.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::catalog::{baseline_dir, run_dir};
use crate::checks::{Outcome, outcomes_table, paper_checks, regression, write_outcomes};
use crate::error::{Result, io_err};
use crate::outputs::write_tables;
use crate::plan::{Experiment, Scale};
use crate::run::{RunOutput, run};

/// A finished run: its numbers, its paper checks and where it was written.
pub struct Report {
    /// What was computed.
    pub output: RunOutput,
    /// The paper checks (and, for `check`, the regression checks after them).
    pub outcomes: Vec<Outcome>,
    /// The directory written.
    pub dir: PathBuf,
}

/// The runs of one command, kept for its other experiments that compute the same
/// numbers (`runs_of`: molnar2023 Figs. 4, 5 and I draw on Table 1's runs), so that
/// each computation is done once per command and scale.
#[derive(Debug, Default)]
pub struct SharedRuns {
    shared: HashSet<String>,
    kept: HashMap<(Scale, String), RunOutput>,
}

impl SharedRuns {
    /// Keeps a run only when another experiment of `batch` has the same computation
    /// ([`Experiment::computation`]); `SharedRuns::default()` keeps none.
    pub fn for_batch(batch: &[Experiment]) -> SharedRuns {
        let mut seen = HashSet::new();
        let shared = batch
            .iter()
            .map(Experiment::computation)
            .filter(|c| !seen.insert(c.clone()))
            .collect();
        SharedRuns {
            shared,
            kept: HashMap::new(),
        }
    }

    /// The run of `exp` at `scale`: a kept one of the same computation, or a new one.
    pub fn run(
        &mut self,
        exp: &Experiment,
        scale: Scale,
        threads: usize,
        progress: bool,
    ) -> Result<RunOutput> {
        let key = (scale, exp.computation());
        if let Some(kept) = self.kept.get(&key) {
            return Ok(kept.clone());
        }
        let output = run(exp, scale, threads, progress)?;
        if self.shared.contains(&key.1) {
            self.kept.insert(key, output.clone());
        }
        Ok(output)
    }
}

/// Runs `exp` at `scale` (or takes the run of the same computation from `runs`) and
/// writes the tables, figures and `checks.csv` into `dir`.
pub fn run_into(
    exp: &Experiment,
    scale: Scale,
    threads: usize,
    progress: bool,
    runs: &mut SharedRuns,
    dir: &Path,
) -> Result<Report> {
    let output = runs.run(exp, scale, threads, progress)?;
    write_tables(exp, &output, dir)?;
    crate::layout::write(&exp.spec, &output, dir)?;
    for plot in &exp.spec.plots {
        crate::plots::draw(exp, plot, &output, dir)?;
    }
    let outcomes = paper_checks(exp, &output);
    write_outcomes(&dir.join("checks.csv"), &outcomes)?;
    Ok(Report {
        output,
        outcomes,
        dir: dir.to_path_buf(),
    })
}

/// `cargo xtask run`: into `out`, or by default `runs/<id>/<scale>/` under `root`
/// (git-ignored; `results/` is written by [`bless_experiment`]).
pub fn run_experiment(
    root: &Path,
    exp: &Experiment,
    scale: Scale,
    threads: usize,
    progress: bool,
    runs: &mut SharedRuns,
    out: Option<&Path>,
) -> Result<Report> {
    let dir = out.map_or_else(|| run_dir(root, exp.id(), scale), Path::to_path_buf);
    run_into(exp, scale, threads, progress, runs, &dir)
}

/// `cargo xtask check`: a ci-scale run into `runs/<id>/ci/`, its paper checks, then
/// the regression of its `summary.csv` and of its checks' statuses and measured values
/// against the committed `results/<id>/`.
pub fn check_experiment(
    root: &Path,
    exp: &Experiment,
    threads: usize,
    progress: bool,
    runs: &mut SharedRuns,
) -> Result<Report> {
    let mut report = run_experiment(root, exp, Scale::Ci, threads, progress, runs, None)?;
    let baseline = baseline_dir(root, exp.id());
    let tol = exp.spec.regression;
    let checks_table = outcomes_table(&report.outcomes);
    report
        .outcomes
        .push(regression::summary(&report.output, &baseline, tol));
    report
        .outcomes
        .push(regression::checks(&checks_table, &baseline, tol));
    Ok(report)
}

/// `cargo xtask bless`: a ci-scale run that replaces `results/<id>/` as a whole (so
/// no file of an older run stays behind), written beside it first.
pub fn bless_experiment(
    root: &Path,
    exp: &Experiment,
    threads: usize,
    progress: bool,
    runs: &mut SharedRuns,
) -> Result<Report> {
    let dir = baseline_dir(root, exp.id());
    let fresh = dir.with_file_name(format!(".{}.blessing", exp.id()));
    if fresh.exists() {
        std::fs::remove_dir_all(&fresh).map_err(io_err(&fresh))?;
    }
    let mut report = run_into(exp, Scale::Ci, threads, progress, runs, &fresh)?;
    if dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(io_err(&dir))?;
    }
    std::fs::rename(&fresh, &dir).map_err(io_err(&dir))?;
    report.dir = dir;
    Ok(report)
}
