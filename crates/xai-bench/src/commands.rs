//! What the `cargo xtask` commands do with an experiment: `run` into a git-ignored run
//! directory (whole, resumable, or one shard), `merge` shards, `check` against the
//! committed baseline, `bless` a new baseline.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::catalog::{baseline_dir, run_dir};
use crate::cells::{self, RunKey, Shard};
use crate::checks::{
    Outcome, evaluate, notes_outcome, outcomes_table, paper_values, regression, write_outcomes,
};
use crate::error::{BenchError, Result, io_err};
use crate::lock::RunLock;
use crate::needed::{NeededCurves, NeededRows};
use crate::outputs::write_tables;
use crate::plan::{Experiment, Job, Scale};
use crate::run::{Counts, RunOutput, Store};

/// A finished run: its numbers, its paper checks and where it was written.
pub struct Report {
    /// What was computed.
    pub output: RunOutput,
    /// The paper checks (and, for `check`, the regression checks after them).
    pub outcomes: Vec<Outcome>,
    /// The directory written.
    pub dir: PathBuf,
}

/// Every paper check of `exp` on a run, and a failing outcome after them when a
/// number its notes quote cannot be read from the run ([`notes_outcome`]).
pub fn paper_checks(exp: &Experiment, out: &RunOutput) -> Vec<Outcome> {
    exp.spec
        .checks
        .iter()
        .map(|c| evaluate(c, out, &exp.spec.tables, exp.spec.level))
        .chain(notes_outcome(&exp.spec.notes, out))
        .collect()
}

/// The runs of one command, kept for its other experiments that compute the same
/// numbers (`runs_of`: molnar2023 Figs. 4, 5 and I draw on Table 1's runs), so that
/// each computation is done once per command and scale, keeping the per-replicate
/// rows that any of them reads. With [`SharedRuns::with_cells`] each run keeps its
/// cells on disk as `cargo xtask run` does, so it holds one cell at a time and
/// resumes after an interruption.
#[derive(Default)]
pub struct SharedRuns {
    needed: HashMap<String, NeededRows>,
    kept: HashMap<(Scale, String), RunOutput>,
    cells_root: Option<PathBuf>,
}

impl SharedRuns {
    /// Keeps a run only when another experiment of `batch` has the same computation
    /// ([`Experiment::computation`]); `SharedRuns::default()` keeps none. Runs are in
    /// memory.
    pub fn for_batch(batch: &[Experiment]) -> SharedRuns {
        let mut by: HashMap<String, Vec<&Experiment>> = HashMap::new();
        for exp in batch {
            by.entry(exp.computation()).or_default().push(exp);
        }
        let needed = by
            .into_iter()
            .filter(|(_, exps)| exps.len() > 1)
            .map(|(c, exps)| (c, NeededRows::of(exps)))
            .collect();
        SharedRuns {
            needed,
            ..SharedRuns::default()
        }
    }

    /// Runs keep their cells in `<root>/runs/<id>/<scale>/cells/` (taking its lock; `<id>`
    /// that of the experiment whose runs these are, [`Experiment::computing_id`]),
    /// resuming the cells found there when they are of this YAML and build, starting
    /// afresh when they are another's.
    pub fn with_cells(self, root: &Path) -> SharedRuns {
        SharedRuns {
            cells_root: Some(root.to_path_buf()),
            ..self
        }
    }

    /// The run of `exp` at `scale`: a kept one of the same computation, or a new one,
    /// holding the per-replicate rows `exp` reads and no others, so that what an
    /// experiment writes does not depend on which experiments one command ran with it.
    pub fn run(&mut self, job: Job<'_>) -> Result<RunOutput> {
        let Job { exp, scale, .. } = job;
        let own = NeededRows::of([exp]);
        let only_own = |mut output: RunOutput| {
            if !exp.spec.tidy {
                let keys = output.keys.clone();
                output.tidy.retain(|r| own.keeps(&keys, r));
            }
            output
        };
        let key = (scale, exp.computation());
        if let Some(kept) = self.kept.get(&key) {
            return Ok(only_own(kept.clone()));
        }
        let needed = self.needed.get(&key.1).unwrap_or(&own);
        let keep = |k: &[String], r: &crate::table::TidyRow| needed.keeps(k, r);
        let output = match &self.cells_root {
            None => crate::run::run_with(job, None, &keep)?,
            Some(root) => {
                let mut place = Place::default();
                let cells = place.cells_base(root, exp, scale).join("cells");
                place.fresh = cells::recorded_key(&cells)?
                    .is_some_and(|k| !k.differences(&RunKey::of(exp, scale, None)).is_empty());
                let (_, store, _lock) = place.store(root, exp, scale, None)?;
                crate::run::run_with(job, Some(&store), &keep)?
            }
        };
        if self.needed.contains_key(&key.1) {
            self.kept.insert(key, output.clone());
        }
        Ok(only_own(output))
    }
}

/// Runs `job` (or takes the run of the same computation from `runs`) and writes the
/// tables, figures and `checks.csv` into `dir`.
pub fn run_into(job: Job<'_>, runs: &mut SharedRuns, dir: &Path) -> Result<Report> {
    let output = runs.run(job)?;
    write_run(job.exp, output, dir)
}

/// Writes a run's tables, figures and `checks.csv` into `dir`: all of them first into
/// `<dir>/.writing-<pid>/`, then each renamed into place, so an error (a full disk)
/// leaves no cut-short file among the outputs; the staging directory is removed
/// either way.
pub fn write_run(exp: &Experiment, output: RunOutput, dir: &Path) -> Result<Report> {
    let staging = dir.join(format!(".writing-{}", std::process::id()));
    if staging.exists() {
        std::fs::remove_dir_all(&staging).map_err(io_err(&staging))?;
    }
    let staged = stage_run(exp, &output, dir, &staging).and_then(|outcomes| {
        move_entries(&staging, dir)?;
        Ok(outcomes)
    });
    let outcomes = match staged {
        Ok(outcomes) => outcomes,
        Err(e) => {
            // Best effort: the error that stopped the writing is the one to report.
            let _ = std::fs::remove_dir_all(&staging);
            return Err(e);
        }
    };
    Ok(Report {
        output,
        outcomes,
        dir: dir.to_path_buf(),
    })
}

/// Every output of a run written into `staging` (see [`write_run`]); the paper's
/// checks evaluated.
fn stage_run(
    exp: &Experiment,
    output: &RunOutput,
    dir: &Path,
    staging: &Path,
) -> Result<Vec<Outcome>> {
    write_tables(exp, output, staging)?;
    crate::layout::write(
        &exp.spec.tables,
        (&paper_values(&exp.spec.checks), &exp.spec.labels),
        output,
        staging,
    )?;
    // A figure that cannot be drawn is named where it would have been written.
    crate::figures::draw(exp, output, staging).map_err(|e| match e {
        BenchError::Plot { path, source } => BenchError::Plot {
            path: path
                .strip_prefix(staging)
                .map_or(path.clone(), |name| dir.join(name)),
            source,
        },
        other => other,
    })?;
    let outcomes = paper_checks(exp, output);
    write_outcomes(&staging.join("checks.csv"), &outcomes)?;
    Ok(outcomes)
}

/// Renames every entry of `from` into `to` (replacing what is there), then removes
/// `from`.
fn move_entries(from: &Path, to: &Path) -> Result<()> {
    for entry in std::fs::read_dir(from).map_err(io_err(from))? {
        let path = entry.map_err(io_err(from))?.path();
        let target = to.join(path.file_name().expect("an entry of the directory"));
        std::fs::rename(&path, &target).map_err(io_err(&target))?;
    }
    std::fs::remove_dir(from).map_err(io_err(from))
}

/// Where `cargo xtask run` and `merge` write, and how `run` treats cells on disk.
#[derive(Debug, Clone, Default)]
pub struct Place {
    /// The run's directory (default `runs/<id>/<scale>/`): its outputs, `cells/`,
    /// `truths/` and the shards' `shard-k-of-N/` (by default the latter three in the
    /// directory of the experiment whose runs these are, [`Place::cells_base`]).
    pub out: Option<PathBuf>,
    /// Discard this invocation's earlier cells first (for an experiment drawn from
    /// another's runs, the cells it shares with that one; not the shared truths, which
    /// are keyed by what they depend on and cannot be stale).
    pub fresh: bool,
    /// Compute only this shard's cells, into `<out>/shard-k-of-N/`.
    pub shard: Option<Shard>,
}

impl Place {
    /// The run's directory.
    pub fn base(&self, root: &Path, exp: &Experiment, scale: Scale) -> PathBuf {
        self.out
            .clone()
            .unwrap_or_else(|| run_dir(root, exp.id(), scale))
    }

    /// The directory of the run's `cells/`, `truths/` and shards: [`Place::base`], but
    /// by default that of the experiment whose runs these are
    /// ([`Experiment::computing_id`]), so that `molnar2023-fig4` run alone resumes
    /// the cells of `molnar2023-table1`.
    pub fn cells_base(&self, root: &Path, exp: &Experiment, scale: Scale) -> PathBuf {
        self.out
            .clone()
            .unwrap_or_else(|| run_dir(root, exp.computing_id(), scale))
    }

    /// The cell store of `exp` at `scale` (of `shard`, or the whole run): cells in
    /// `<base>/cells/` or `<base>/shard-k-of-N/`, claimed for this run's key (with
    /// [`Place::fresh`]), truths shared in `<base>/truths/`; the cells' directory; and
    /// its lock, held until the run ends ([`RunLock`]).
    fn store(
        &self,
        root: &Path,
        exp: &Experiment,
        scale: Scale,
        shard: Option<Shard>,
    ) -> Result<(PathBuf, Store, RunLock)> {
        let base = self.cells_base(root, exp, scale);
        let dir = base.join(shard.map_or_else(|| "cells".to_string(), |s| s.dir_name()));
        let lock = RunLock::take(&dir)?;
        let store = Store {
            cells: cells::claim(&dir, &RunKey::of(exp, scale, shard), self.fresh)?,
            truths: cells::truths(&base.join("truths"))?,
            shard,
        };
        Ok((dir, store, lock))
    }
}

/// `cargo xtask run` without a shard: the run with its cells kept in
/// `<out>/cells/` (resumed when found whole, refused when another run's), its
/// truths in `<out>/truths/`, its outputs in `<out>`.
pub fn run_experiment(root: &Path, job: Job<'_>, place: &Place) -> Result<Report> {
    let Job { exp, scale, .. } = job;
    let (_, store, _lock) = place.store(root, exp, scale, None)?;
    let needed = NeededRows::of([exp]);
    let keep = |k: &[String], r: &crate::table::TidyRow| needed.keeps(k, r);
    let output = crate::run::run_with(job, Some(&store), &keep)?;
    write_run(exp, output, &place.base(root, exp, scale))
}

/// `cargo xtask run --shard k/N`: this shard's cells into `<out>/shard-k-of-N/`
/// (resumed like a whole run's), the truths shared in `<out>/truths/`; returns the
/// shard's directory and counts.
pub fn run_shard(
    root: &Path,
    job: Job<'_>,
    place: &Place,
    shard: Shard,
) -> Result<(PathBuf, Counts)> {
    let (dir, store, _lock) = place.store(root, job.exp, job.scale, Some(shard))?;
    let counts = crate::run::run_cells(job, &store)?;
    Ok((dir, counts))
}

/// `cargo xtask run --truths-only`: every Monte-Carlo truth into `<out>/truths/`
/// (the first job of a Slurm run, so the array's shards find them); returns the
/// directory and how many distinct truths there are.
pub fn run_truths(root: &Path, job: Job<'_>, place: &Place) -> Result<(PathBuf, usize)> {
    let dir = place.cells_base(root, job.exp, job.scale).join("truths");
    let _lock = RunLock::take(&dir)?;
    let n = crate::run::run_truths(job, &cells::truths(&dir)?)?;
    Ok((dir, n))
}

/// `cargo xtask check [--scale S]`: a run at `scale` into `runs/<id>/<scale>/`, its
/// paper checks, then the regression of its `summary.csv` and of its checks' statuses
/// and measured values against the committed [`baseline_dir`] of that scale.
pub fn check_experiment(root: &Path, job: Job<'_>, runs: &mut SharedRuns) -> Result<Report> {
    let Job { exp, scale, .. } = job;
    let dir = run_dir(root, exp.id(), scale);
    let mut report = run_into(job, runs, &dir)?;
    let baseline = baseline_dir(root, exp.id(), scale);
    let tol = exp.spec.regression;
    let checks_table = outcomes_table(&report.outcomes);
    report
        .outcomes
        .push(regression::summary(&report.output, &baseline, tol));
    report
        .outcomes
        .push(regression::checks(&checks_table, &baseline, tol, scale));
    Ok(report)
}

/// `cargo xtask check --committed [--scale S]`: the committed baseline of `scale`
/// read back ([`crate::committed::read`]), the paper's claims evaluated on it again
/// and compared with its committed `checks.csv` (statuses and measured values), and
/// its `summary.csv` written again from what was read and compared with itself with
/// no tolerance, so a reader that loses a bit fails; nothing is computed. `Ok(None)` when the experiment
/// has no baseline of that scale.
pub fn check_committed(root: &Path, exp: &Experiment, scale: Scale) -> Result<Option<Report>> {
    let dir = baseline_dir(root, exp.id(), scale);
    if !dir.join("manifest.json").is_file() {
        return Ok(None);
    }
    let output = crate::committed::read(exp, scale, &dir)?;
    let mut outcomes = paper_checks(exp, &output);
    let checks_table = outcomes_table(&outcomes);
    let exact = crate::checks::regression::Tolerance { abs: 0.0, rel: 0.0 };
    outcomes.push(regression::summary(&output, &dir, exact));
    outcomes.push(regression::checks(
        &checks_table,
        &dir,
        exp.spec.regression,
        scale,
    ));
    Ok(Some(Report {
        output,
        outcomes,
        dir,
    }))
}

/// The largest per-row file (`tidy.csv`, `ice.csv`) a paper-scale baseline keeps
/// whole; a larger one keeps only the rows the checks read ([`trim_rows`]).
pub const KEPT_WHOLE_BYTES: u64 = 2 << 20;

/// `cargo xtask bless [--scale S]`: a run at `scale` that replaces [`baseline_dir`] as a
/// whole (so no file of an older run stays behind; the ci baseline keeps its
/// `paper/` subdirectory), written beside it first (`results/.<id>.<scale>.blessing`,
/// git-ignored) and moved in only when the run and its outputs succeeded. At a scale other than ci, a
/// per-row file over [`KEPT_WHOLE_BYTES`] keeps only the rows of the quantities the
/// checks read, so the repository stays lean and the claims can still be evaluated
/// from the committed files (`check --committed`).
pub fn bless_experiment(root: &Path, job: Job<'_>, runs: &mut SharedRuns) -> Result<Report> {
    let Job { exp, scale, .. } = job;
    if scale == Scale::Smoke {
        return Err(BenchError::Usage(
            "a baseline is blessed at ci or paper scale; smoke is for tests only".into(),
        ));
    }
    let dir = baseline_dir(root, exp.id(), scale);
    let fresh = root
        .join("results")
        .join(format!(".{}.{}.blessing", exp.id(), scale.name()));
    if fresh.exists() {
        std::fs::remove_dir_all(&fresh).map_err(io_err(&fresh))?;
    }
    let mut report = run_into(job, runs, &fresh)?;
    if scale != Scale::Ci {
        trim_rows(exp, &report.output, &fresh, KEPT_WHOLE_BYTES)?;
    }
    // Replace the baseline's files, never its nested paper-scale baseline: remove
    // every entry but `paper/`, then move the new files in.
    std::fs::create_dir_all(&dir).map_err(io_err(&dir))?;
    for entry in std::fs::read_dir(&dir).map_err(io_err(&dir))? {
        let path = entry.map_err(io_err(&dir))?.path();
        if scale == Scale::Ci && path.file_name() == Some(Scale::Paper.name().as_ref()) {
            continue;
        }
        match path.is_dir() {
            true => std::fs::remove_dir_all(&path),
            false => std::fs::remove_file(&path),
        }
        .map_err(io_err(&path))?;
    }
    move_entries(&fresh, &dir)?;
    report.dir = dir;
    Ok(report)
}

/// `cargo xtask bless --committed [--scale S]`: the committed baseline of `scale` read
/// back ([`crate::committed::read`]; refused when its YAML computation changed), its
/// paper claims evaluated again and its `checks.csv` and tables (`<name>.csv`,
/// `<name>.md`) written again from the committed numbers, and its figures drawn again
/// from them where it holds their inputs ([`crate::figures::redraw`]; those left as
/// they are come back, by name with the reason).
/// Nothing is computed and no number or manifest changes: this is for a change of the
/// claims, of a table's layout or of a figure only (a claim on a quantity the baseline
/// did not keep fails, and then needs a full `bless`). `Ok(None)` when there is no
/// baseline of that scale.
pub fn bless_committed(
    root: &Path,
    exp: &Experiment,
    scale: Scale,
) -> Result<Option<(Report, Vec<crate::figures::Undrawn>)>> {
    let dir = baseline_dir(root, exp.id(), scale);
    if !dir.join("manifest.json").is_file() {
        return Ok(None);
    }
    let output = crate::committed::read(exp, scale, &dir)?;
    let outcomes = paper_checks(exp, &output);
    crate::layout::write(
        &exp.spec.tables,
        (&paper_values(&exp.spec.checks), &exp.spec.labels),
        &output,
        &dir,
    )?;
    write_outcomes(&dir.join("checks.csv"), &outcomes)?;
    // Drawn beside the baseline first, so a figure that cannot be drawn again
    // keeps its committed files.
    let staging = dir.join(".redraw");
    std::fs::create_dir_all(&staging).map_err(io_err(&staging))?;
    let left = crate::figures::redraw(exp, &output, &staging)?;
    move_entries(&staging, &dir)?;
    Ok(Some((
        Report {
            output,
            outcomes,
            dir,
        },
        left,
    )))
}

/// Replaces `tidy.csv` in `dir`, when larger than `limit` bytes, by
/// `tidy_checked.csv`, the rows of `out` whose quantity some check reads; and
/// `ice.csv`, when larger, by `ice_checked.csv`, the curves the checks select
/// ([`NeededCurves`]). The claims evaluate on them as on the whole files.
pub fn trim_rows(exp: &Experiment, out: &RunOutput, dir: &Path, limit: u64) -> Result<()> {
    let too_large = |name: &str| std::fs::metadata(dir.join(name)).is_ok_and(|m| m.len() > limit);
    if too_large("tidy.csv") {
        let read: HashSet<&String> = exp
            .spec
            .checks
            .iter()
            .flat_map(|c| c.assert.kind().quantities())
            .collect();
        let rows: Vec<crate::table::TidyRow> = out
            .tidy
            .iter()
            .filter(|r| read.contains(&r.quantity))
            .cloned()
            .collect();
        crate::table::write_tidy(&dir.join("tidy_checked.csv"), &out.keys, &rows)?;
        let path = dir.join("tidy.csv");
        std::fs::remove_file(&path).map_err(io_err(&path))?;
    }
    if too_large("ice.csv") {
        let needed = NeededCurves::of(exp);
        let curves: Vec<crate::table::CurveRow> = out
            .curves
            .iter()
            .filter(|c| needed.keeps(&out.keys, c))
            .cloned()
            .collect();
        crate::table::write_curves(
            &dir.join("ice_checked.csv"),
            &out.keys,
            &out.feature_names,
            &curves,
        )?;
        let path = dir.join("ice.csv");
        std::fs::remove_file(&path).map_err(io_err(&path))?;
    }
    Ok(())
}
