//! What the `cargo xtask` commands do with an experiment: `run` into a git-ignored run
//! directory (whole, resumable, or one shard), `merge` shards, `check` against the
//! committed baseline, `bless` a new baseline.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::catalog::{baseline_dir, run_dir};
use crate::cells::{self, CellStore, RunKey, Shard};
use crate::checks::{Outcome, outcomes_table, paper_checks, regression, write_outcomes};
use crate::error::{BenchError, Result, io_err};
use crate::outputs::write_tables;
use crate::plan::{Experiment, Scale};
use crate::run::{Counts, RunOutput, Store, run};

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
    write_run(exp, output, dir)
}

/// Writes a run's tables, figures and `checks.csv` into `dir`.
pub fn write_run(exp: &Experiment, output: RunOutput, dir: &Path) -> Result<Report> {
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

/// Where `cargo xtask run` and `merge` write, and how `run` treats cells on disk.
#[derive(Debug, Clone, Default)]
pub struct Place {
    /// The run's directory (default `runs/<id>/<scale>/`): its outputs, `cells/`,
    /// `truths/` and the shards' `shard-k-of-N/`.
    pub out: Option<PathBuf>,
    /// Discard this invocation's earlier cells first (not the shared truths, which
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

    /// The cell store of `exp` at `scale` (of `shard`, or the whole run): cells in
    /// `<base>/cells/` or `<base>/shard-k-of-N/`, claimed for this run's key (with
    /// [`Place::fresh`]), truths shared in `<base>/truths/`; and the cells' directory.
    fn store(
        &self,
        root: &Path,
        exp: &Experiment,
        scale: Scale,
        shard: Option<Shard>,
    ) -> Result<(PathBuf, Store)> {
        let base = self.base(root, exp, scale);
        let dir = base.join(shard.map_or_else(|| "cells".to_string(), |s| s.dir_name()));
        let store = Store {
            cells: cells::claim(&dir, &RunKey::of(exp, scale, shard), self.fresh)?,
            truths: cells::truths(&base.join("truths"))?,
            shard,
        };
        Ok((dir, store))
    }
}

/// `cargo xtask run` without a shard: the run with its cells kept in
/// `<out>/cells/` (resumed when found whole, refused when another run's), its
/// truths in `<out>/truths/`, its outputs in `<out>`.
pub fn run_experiment(
    root: &Path,
    exp: &Experiment,
    scale: Scale,
    threads: usize,
    progress: bool,
    place: &Place,
) -> Result<Report> {
    let (_, store) = place.store(root, exp, scale, None)?;
    let output = crate::run::run_with(exp, scale, threads, progress, Some(&store))?;
    write_run(exp, output, &place.base(root, exp, scale))
}

/// `cargo xtask run --shard k/N`: this shard's cells into `<out>/shard-k-of-N/`
/// (resumed like a whole run's), the truths shared in `<out>/truths/`; returns the
/// shard's directory and counts.
pub fn run_shard(
    root: &Path,
    exp: &Experiment,
    scale: Scale,
    threads: usize,
    progress: bool,
    place: &Place,
    shard: Shard,
) -> Result<(PathBuf, Counts)> {
    let (dir, store) = place.store(root, exp, scale, Some(shard))?;
    let counts = crate::run::run_cells(exp, scale, threads, progress, &store)?;
    Ok((dir, counts))
}

/// `cargo xtask run --truths-only`: every Monte-Carlo truth into `<out>/truths/`
/// (the first job of a Slurm run, so the array's shards find them); returns the
/// directory and how many distinct truths there are.
pub fn run_truths(
    root: &Path,
    exp: &Experiment,
    scale: Scale,
    threads: usize,
    progress: bool,
    place: &Place,
) -> Result<(PathBuf, usize)> {
    let dir = place.base(root, exp, scale).join("truths");
    let n = crate::run::run_truths(exp, scale, threads, progress, &cells::truths(&dir)?)?;
    Ok((dir, n))
}

/// `cargo xtask merge <id> DIR...`: the shards' cells joined into the whole run's
/// outputs, written into `out` (default: the directory holding the first shard).
/// Refuses, saying which and why, a directory that is not a shard, a shard of another
/// experiment, scale, YAML or code (this executable's included), a shard given twice,
/// a shard count that differs, a missing shard, or a shard with a missing or
/// unusable cell.
pub fn merge_shards(exp: &Experiment, dirs: &[PathBuf], out: Option<&Path>) -> Result<Report> {
    let fail = |m: String| Err(BenchError::Other(m));
    let Some(first) = dirs.first() else {
        return fail(format!(
            "merge {}: give the shard directories, e.g. runs/{}/paper/shard-*-of-N",
            exp.id(),
            exp.id()
        ));
    };
    let mut parts: Vec<(Shard, CellStore, PathBuf)> = Vec::new();
    let mut scale = None;
    for dir in dirs {
        let Some(key) = cells::recorded_key(dir)? else {
            return fail(format!(
                "{}: not a shard directory (no run.json); shards are written by \
                 `cargo xtask run {} --shard k/N` into <out>/shard-k-of-N",
                dir.display(),
                exp.id()
            ));
        };
        let Some((k, n)) = key.shard else {
            return fail(format!(
                "{}: the cells of a whole run, not of a shard; it needs no merge",
                dir.display()
            ));
        };
        let this = Scale::parse(&key.scale)?;
        let expected = RunKey::of(exp, this, None).unsharded();
        let differences = key.unsharded().differences(&expected);
        if !differences.is_empty() {
            return fail(format!(
                "{}: shard {k}/{n} is from another run: {}; rerun it with this build and YAML \
                 (`cargo xtask run {} --scale {} --shard {k}/{n} --fresh`)",
                dir.display(),
                differences.join("; "),
                exp.id(),
                this.name()
            ));
        }
        if let Some((_, _, other)) = parts.iter().find(|(s, _, _)| s.k == k) {
            return fail(format!(
                "shard {k}/{n} given twice: {} and {}",
                other.display(),
                dir.display()
            ));
        }
        if let Some((s, _, other)) = parts.iter().find(|(s, _, _)| s.n != n) {
            return fail(format!(
                "{} is a shard of {n}, {} a shard of {}: merge the shards of one split",
                dir.display(),
                other.display(),
                s.n
            ));
        }
        scale = Some(this);
        parts.push((
            Shard { k, n },
            CellStore::open(dir, cells::owner(&key))?,
            dir.clone(),
        ));
    }
    let n = parts[0].0.n;
    let missing: Vec<String> = (1..=n)
        .filter(|k| parts.iter().all(|(s, _, _)| s.k != *k))
        .map(|k| format!("{k}/{n}"))
        .collect();
    if !missing.is_empty() {
        return fail(format!(
            "shard(s) {} missing: merge needs all {n} shards of the run",
            missing.join(", ")
        ));
    }
    let scale = scale.expect("at least one shard");
    let stores: Vec<(Shard, CellStore)> = parts.into_iter().map(|(s, c, _)| (s, c)).collect();
    let output = crate::run::merge(exp, scale, &stores)?;
    let out = out.map_or_else(
        || first.parent().map_or_else(PathBuf::new, Path::to_path_buf),
        Path::to_path_buf,
    );
    write_run(exp, output, &out)
}

/// `cargo xtask check [--scale S]`: a run at `scale` into `runs/<id>/<scale>/`, its
/// paper checks, then the regression of its `summary.csv` and of its checks' statuses
/// and measured values against the committed [`baseline_dir`] of that scale.
pub fn check_experiment(
    root: &Path,
    exp: &Experiment,
    scale: Scale,
    threads: usize,
    progress: bool,
    runs: &mut SharedRuns,
) -> Result<Report> {
    let dir = run_dir(root, exp.id(), scale);
    let mut report = run_into(exp, scale, threads, progress, runs, &dir)?;
    let baseline = baseline_dir(root, exp.id(), scale);
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

/// `cargo xtask check --committed [--scale S]`: the committed baseline of `scale`
/// read back ([`crate::committed::read`]), the paper's claims evaluated on it again
/// and compared with its committed `checks.csv` (statuses and measured values), and
/// its `summary.csv` written again from what was read and compared with itself, so a
/// reader that loses a bit fails; nothing is computed. `Ok(None)` when the experiment
/// has no baseline of that scale.
pub fn check_committed(root: &Path, exp: &Experiment, scale: Scale) -> Result<Option<Report>> {
    let dir = baseline_dir(root, exp.id(), scale);
    if !dir.join("manifest.json").is_file() {
        return Ok(None);
    }
    let output = crate::committed::read(exp, scale, &dir)?;
    let mut outcomes = paper_checks(exp, &output);
    let tol = exp.spec.regression;
    let checks_table = outcomes_table(&outcomes);
    outcomes.push(regression::summary(&output, &dir, tol));
    outcomes.push(regression::checks(&checks_table, &dir, tol));
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
/// `paper/` subdirectory), written beside it first. At a scale other than ci, a
/// per-row file over [`KEPT_WHOLE_BYTES`] keeps only the rows of the quantities the
/// checks read, so the repository stays lean and the claims can still be evaluated
/// from the committed files (`check --committed`).
pub fn bless_experiment(
    root: &Path,
    exp: &Experiment,
    scale: Scale,
    threads: usize,
    progress: bool,
    runs: &mut SharedRuns,
) -> Result<Report> {
    if scale == Scale::Smoke {
        return Err(BenchError::Other(
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
    let mut report = run_into(exp, scale, threads, progress, runs, &fresh)?;
    if scale != Scale::Ci {
        trim_rows(exp, &fresh, KEPT_WHOLE_BYTES)?;
    }
    let paper = baseline_dir(root, exp.id(), Scale::Paper);
    if scale == Scale::Ci && paper.is_dir() {
        let to = fresh.join(Scale::Paper.name());
        std::fs::rename(&paper, &to).map_err(io_err(&to))?;
    }
    if dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(io_err(&dir))?;
    }
    if let Some(parent) = dir.parent() {
        std::fs::create_dir_all(parent).map_err(io_err(parent))?;
    }
    std::fs::rename(&fresh, &dir).map_err(io_err(&dir))?;
    report.dir = dir;
    Ok(report)
}

/// Replaces each of `tidy.csv` and `ice.csv` in `dir` that is larger than `limit`
/// bytes by `tidy_checked.csv` / `ice_checked.csv`: the same header, only the rows
/// whose quantity some check reads.
pub fn trim_rows(exp: &Experiment, dir: &Path, limit: u64) -> Result<()> {
    let read: HashSet<&String> = exp
        .spec
        .checks
        .iter()
        .flat_map(|c| c.assert.quantities())
        .collect();
    for name in ["tidy", "ice"] {
        let path = dir.join(format!("{name}.csv"));
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        if meta.len() <= limit {
            continue;
        }
        let mut table = crate::table::read_csv(&path)?;
        let q = table
            .header
            .iter()
            .position(|h| h == "quantity")
            .ok_or_else(|| BenchError::Other(format!("{}: no quantity column", path.display())))?;
        table.rows.retain(|r| read.contains(&r[q]));
        let kept = dir.join(format!("{name}_checked.csv"));
        crate::table::write_table(&kept, &table)?;
        std::fs::remove_file(&path).map_err(io_err(&path))?;
    }
    Ok(())
}
