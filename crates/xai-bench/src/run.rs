//! The runner: every (variant, replicate) is one task with its own RNG stream, run in
//! parallel; then the outputs are written.
//!
//! Task (v, r) draws everything from `stream_rng(seed, s·2³² + r)`, s = v (or, with
//! `shared_streams`, the first variant that differs from v only in those keys): the training and
//! test samples, then one seed per model (`stream_rng(model_seed, fnv(name))`, so adding
//! a model leaves the others' numbers alone), whose stream serves the model's fit
//! (before the first method that needs it) and then its methods in the order listed.
//! Nothing depends on which thread runs a task, so results are identical on any thread
//! count. The runner knows no method by name: each is a [`crate::methods::Method`].
//!
//! A method with a Monte-Carlo truth ([`crate::methods::Method::truth_key`]) gets it
//! computed once per distinct (DGP, n_train, learner, key) before the replicates, from
//! stream `stream_rng(seed, fnv(that identity))`, so variants that differ only in what
//! the truth does not depend on share it, whatever their order.
//!
//! A cell is one (variant, replicate) task. With a [`Store`] every finished cell is
//! written to disk ([`crate::cells`]) and a cell found there whole is read back, not
//! computed: a run interrupted at any point and run again computes only the rest and
//! gives the same bytes. `--shard k/N` ([`Shard`]) computes every N-th cell; [`merge`]
//! joins the shards' cells into exactly the output of the whole run.

use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use rand::Rng;
use rayon::prelude::*;

use crate::cells::{CellStore, Found, Shard, cell_name};
use crate::error::{BenchError, Result};
use crate::kernel::{ModelRef, Replicate, Scene, model_stream, model_work};
pub use crate::output::{Counts, RunOutput};
use crate::plan::{Experiment, Job, Scale};
use crate::rows::draw;
use crate::setup::{Setup, caught, cell_place};
use crate::table::{Summarizer, TidyRow};
use crate::truths::{TruthCost, Truths, truths};

/// Where a run keeps its cells: whole cells found there are read back instead of
/// computed, and each computed cell is written there as it finishes.
#[derive(Debug)]
pub struct Store {
    /// This run's (or this shard's) cells.
    pub cells: CellStore,
    /// The Monte-Carlo truths, shared by the shards of a run.
    pub truths: CellStore,
    /// The share of the cells this invocation computes (all when `None`).
    pub shard: Option<Shard>,
}

/// Runs `exp` at `scale` on `threads` threads (0 = all cores), in memory, keeping
/// every per-replicate row. Shows a progress bar on a terminal when `progress` is set.
pub fn run(job: Job<'_>) -> Result<RunOutput> {
    run_with(job, None, &|_, _| true)
}

/// Which per-replicate rows a run keeps in [`RunOutput::tidy`] besides those of an
/// experiment that writes `tidy.csv` (which keeps all): called with the grid keys and
/// each row. Every row feeds the summary whether kept or not.
pub type KeepRow<'a> = dyn Fn(&[String], &TidyRow) -> bool + Sync + 'a;

/// Like [`run`], keeping cells in `store` (a store without a shard): an interrupted
/// run, run again, computes only the cells not yet on disk, and gives the same bytes.
/// With a store, the cells are computed into it and then read back one at a time
/// into the output ([`assemble`]), so the run holds one cell, the summary's values
/// and the rows `keep` keeps, never every row.
pub fn run_with(job: Job<'_>, store: Option<&Store>, keep: &KeepRow<'_>) -> Result<RunOutput> {
    let setup = Setup::new(job)?;
    let (start, cpu) = (Instant::now(), crate::workspace::cpu_seconds());
    let (cells, counts, resumed_seconds) = execute(&setup, store, store.is_none())?;
    let times = || {
        (
            start.elapsed().as_secs_f64(),
            crate::workspace::cpu_seconds() - cpu,
        )
    };
    match store {
        None => {
            let cells = cells.into_iter().map(|c| Ok(c.expect("every cell kept")));
            assemble(&setup, cells, keep, counts, times())
        }
        Some(store) => {
            let cells = setup.tasks.iter().map(|&(v, r)| {
                let name = cell_name(v, r);
                match store.cells.read::<Replicate>(&name)? {
                    Found::Cell(c, _) => Ok(c),
                    _ => Err(BenchError::Stored {
                        path: store.cells.dir().to_path_buf(),
                        message: format!(
                            "cell {name} was written by this run but cannot be read back; run \
                             the same command again (it recomputes it)"
                        ),
                    }),
                }
            });
            let mut out = assemble(&setup, cells, keep, counts, (0.0, 0.0))?;
            let (wall, cpu) = times();
            (out.wall_seconds, out.cpu_seconds) = (wall, cpu + resumed_seconds);
            Ok(out)
        }
    }
}

/// Computes the cells of `store.shard` (or all) into `store` without assembling
/// them (see [`merge`]); returns the counts.
pub fn run_cells(job: Job<'_>, store: &Store) -> Result<Counts> {
    let setup = Setup::new(job)?;
    Ok(execute(&setup, Some(store), false)?.1)
}

/// Computes (or finds) every Monte-Carlo truth of `exp` at `scale` in `store`, the
/// first step of a Slurm run; returns how many distinct truths there are.
pub fn run_truths(job: Job<'_>, store: &CellStore) -> Result<usize> {
    let setup = Setup::new(job)?;
    let all = vec![true; setup.variants.len()];
    let mut seen = std::collections::HashSet::new();
    for t in truths(&setup, Some(store), &all, None)? {
        seen.extend(t.into_values().map(|v| v.as_ptr()));
    }
    Ok(seen.len())
}

/// Recomputes with this build a sample of the cells of `shards`, each with the store
/// another build wrote it into: the first cell of every variant a shard holds, on
/// `threads` threads, with the Monte-Carlo truths (computed once for all of them, and
/// kept in `truths_store` when given), and says of each whether this build's cell
/// equals theirs bit for bit (their postcard encodings; the seconds a cell took
/// aside): per shard, `(cell name, equal)`. Fails when one of their cells is missing
/// or unusable, naming it.
pub fn recompute_agrees(
    job: Job<'_>,
    shards: &[(Shard, &CellStore)],
    truths_store: Option<&CellStore>,
) -> Result<Vec<Vec<(String, bool)>>> {
    let exp = job.exp;
    let setup = Setup::new(Job {
        progress: false,
        ..job
    })?;
    // (shard's position in `shards`, task index)
    let mut tasks: Vec<(usize, usize)> = Vec::new();
    for (s, (shard, _)) in shards.iter().enumerate() {
        for (i, &(v, _)) in setup.tasks.iter().enumerate() {
            let seen = tasks
                .iter()
                .any(|&(t_s, t)| t_s == s && setup.tasks[t].0 == v);
            if shard.owns(i) && !seen {
                tasks.push((s, i));
            }
        }
    }
    let mut needed = vec![false; setup.variants.len()];
    for &(_, i) in &tasks {
        needed[setup.tasks[i].0] = true;
    }
    let truths = truths(&setup, truths_store, &needed, None)?;
    let encode = |c: &Replicate| {
        postcard::to_allocvec(c).map_err(|e| BenchError::Encode {
            cell: exp.id().to_string(),
            message: e.to_string(),
        })
    };
    let verdicts: Vec<(usize, String, bool)> = setup.pool.install(|| {
        tasks
            .par_iter()
            .map(|&(s, i)| {
                let (v, r) = setup.tasks[i];
                let name = cell_name(v, r);
                let theirs = shards[s].1;
                let unreadable = |why: String| {
                    BenchError::Shards(format!(
                        "{}: cell {name} {why}; the shard cannot be checked",
                        theirs.dir().display()
                    ))
                };
                let stored = match theirs.read::<Replicate>(&name)? {
                    Found::Cell(c, _) => c,
                    Found::Missing => return Err(unreadable("is missing".into())),
                    Found::Unusable(why) => return Err(unreadable(format!("is unusable ({why})"))),
                };
                let ours = replicate(&setup, v, r, &truths[v])?;
                Ok((s, name, encode(&ours)? == encode(&stored)?))
            })
            .collect::<Result<_>>()
    })?;
    let mut out = vec![Vec::new(); shards.len()];
    for (s, name, equal) in verdicts {
        out[s].push((name, equal));
    }
    Ok(out)
}

/// Joins the cells of the shards `parts` (each shard's store, whose run keys the
/// caller has checked) into the output of the whole run, exactly as [`run`] gives
/// it, reading one cell at a time ([`assemble`]; rows kept as `keep` says). Fails,
/// naming the shard to rerun, when a cell is missing or unusable.
pub fn merge(
    exp: &Experiment,
    scale: Scale,
    parts: &[(Shard, CellStore)],
    keep: &KeepRow<'_>,
) -> Result<RunOutput> {
    let setup = Setup::new(Job::quiet(exp, scale))?;
    let start = Instant::now();
    let cpu = std::cell::Cell::new(0.0);
    let cells = setup.tasks.iter().enumerate().map(|(i, &(v, r))| {
        let Some((shard, store)) = parts.iter().find(|(s, _)| s.owns(i)) else {
            return Err(BenchError::Shards(format!(
                "no shard holds cell {i} (variant {v}, replicate {r}): give every shard 1..={} of the run",
                parts.first().map_or(0, |p| p.0.n)
            )));
        };
        let name = cell_name(v, r);
        let problem = match store.read::<Replicate>(&name)? {
            Found::Cell(c, seconds) => {
                cpu.set(cpu.get() + seconds);
                return Ok(c);
            }
            Found::Missing => format!("has not finished: cell {name} is missing"),
            Found::Unusable(why) => format!("cell {name} is unusable ({why})"),
        };
        Err(BenchError::Shards(format!(
            "shard {k}/{n} in {}: {problem}; run the shard again (`cargo xtask run {} --scale {} \
             --shard {k}/{n}`: it resumes, recomputing what is missing or unusable) and merge \
             when it ends",
            store.dir().display(),
            exp.id(),
            scale.name(),
            k = shard.k,
            n = shard.n,
        )))
    });
    let counts = Counts {
        total: setup.tasks.len(),
        resumed: setup.tasks.len(),
        ..Counts::default()
    };
    let mut out = assemble(&setup, cells, keep, counts, (0.0, 0.0))?;
    (out.wall_seconds, out.cpu_seconds) = (start.elapsed().as_secs_f64(), cpu.get());
    Ok(out)
}

/// Writes synthetic cells of `exp` at `scale` into the shard stores `parts` (each
/// store holds the cells its shard owns): cell (variant v, replicate r) holds the
/// rows `rows(v, r)` and no curves. For measuring what merging a run of a given shape
/// costs (`cargo xtask bench merge_memory`), never for results.
pub fn write_synthetic_cells(
    job: Job<'_>,
    parts: &[(Shard, CellStore)],
    rows: impl Fn(usize, usize) -> Vec<TidyRow> + Sync,
) -> Result<usize> {
    let setup = Setup::new(job)?;
    setup.pool.install(|| {
        setup
            .tasks
            .par_iter()
            .enumerate()
            .map(|(i, &(v, r))| {
                let Some((_, store)) = parts.iter().find(|(s, _)| s.owns(i)) else {
                    return Ok(());
                };
                let cell = Replicate {
                    rows: rows(v, r),
                    curves: Vec::new(),
                    maps: Vec::new(),
                };
                store.write(&cell_name(v, r), 0.0, &cell)
            })
            .collect::<Result<Vec<()>>>()
    })?;
    Ok(setup.tasks.len())
}

/// The measured cost of a run ([`plan`]): per variant the seconds of one cell on one
/// thread, and per distinct truth the seconds of its first runs.
#[derive(Debug, Clone)]
pub struct RunPlan {
    /// (variant, seconds of its cell 0 on one thread).
    pub variants: Vec<(String, f64)>,
    /// Replicates (cells) per variant.
    pub replicates: usize,
    /// The truths, each timed on its first [`PROBE_RUNS`] runs.
    pub truths: Vec<TruthCost>,
}

impl RunPlan {
    /// Every cell: Σ over variants of replicates × its measured cell time (CPU s).
    pub fn cell_seconds(&self) -> f64 {
        self.variants.iter().map(|(_, s)| s).sum::<f64>() * self.replicates as f64
    }

    /// Every truth, scaled from the runs timed to all its runs (CPU s).
    pub fn truth_seconds(&self) -> f64 {
        self.truths
            .iter()
            .map(|t| t.seconds * t.runs as f64 / t.done.max(1) as f64)
            .sum()
    }
}

/// Times `exp` at `scale` on one thread without writing anything: each truth on its
/// first [`crate::truths::PROBE_RUNS`] runs, then cell 0 of every variant (whose numbers, computed
/// against the probe truths, are thrown away). One cell per variant is the
/// measurement: cells of a variant differ only in their random draws.
pub fn plan(exp: &Experiment, scale: Scale) -> Result<RunPlan> {
    let setup = Setup::new(Job::quiet(exp, scale))?;
    let mut costs = Vec::new();
    let all = vec![true; setup.variants.len()];
    let truths = truths(&setup, None, &all, Some(&mut costs))?;
    let mut variants = Vec::with_capacity(setup.variants.len());
    for (v, variant) in setup.variants.iter().enumerate() {
        let start = Instant::now();
        caught(
            || cell_place(variant, 0),
            || setup.pool.install(|| replicate(&setup, v, 0, &truths[v])),
        )?;
        variants.push((variant.describe(), start.elapsed().as_secs_f64()));
    }
    Ok(RunPlan {
        variants,
        replicates: setup.replicates,
        truths: costs,
    })
}

/// The cells of this invocation (all, or the shard's), each read back from the
/// store or computed (in parallel, written to the store as it finishes); kept in
/// memory, in the run's order, when `keep` is set. Also the seconds the cells read
/// back took when they were computed.
fn execute(
    setup: &Setup<'_>,
    store: Option<&Store>,
    keep: bool,
) -> Result<(Vec<Option<Replicate>>, Counts, f64)> {
    let Job { exp, progress, .. } = setup.job;
    let shard = store.and_then(|s| s.shard);
    let mut cells: Vec<Option<Replicate>> = (0..setup.tasks.len()).map(|_| None).collect();
    let mut counts = Counts::default();
    let mut resumed_seconds = 0.0;
    let mut pending = Vec::new();
    for (i, &(v, r)) in setup.tasks.iter().enumerate() {
        if shard.is_some_and(|s| !s.owns(i)) {
            continue;
        }
        counts.total += 1;
        let found = match store {
            Some(s) => s.cells.read::<Replicate>(&cell_name(v, r))?,
            None => Found::Missing,
        };
        match found {
            Found::Cell(c, seconds) => {
                counts.resumed += 1;
                resumed_seconds += seconds;
                if keep {
                    cells[i] = Some(c);
                }
            }
            Found::Missing => pending.push(i),
            Found::Unusable(why) => {
                eprintln!(
                    "{}: cell {} is unusable ({why}); computing it again",
                    exp.id(),
                    cell_name(v, r)
                );
                counts.unusable += 1;
                pending.push(i);
            }
        }
    }
    counts.computed = pending.len();
    let label = match shard {
        Some(s) => format!(
            "{} ({}, shard {}/{})",
            exp.id(),
            setup.job.scale.name(),
            s.k,
            s.n
        ),
        None => format!("{} ({})", exp.id(), setup.job.scale.name()),
    };
    if progress && store.is_some() {
        eprintln!(
            "{label}: {} cells, {} finished on disk, {} to compute",
            counts.total,
            counts.resumed,
            pending.len()
        );
    }
    let mut needed = vec![false; setup.variants.len()];
    for &i in &pending {
        needed[setup.tasks[i].0] = true;
    }
    let truths = truths(setup, store.map(|s| &s.truths), &needed, None)?;
    let bar = if progress {
        ProgressBar::new(pending.len() as u64)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} cells, {per_sec}, ETA {eta}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar.set_message(label.clone());
    let log = progress
        .then(|| PlainProgress::new(&label, pending.len()))
        .flatten();
    let computed: Vec<(usize, Option<Replicate>)> = setup.pool.install(|| {
        pending
            .par_iter()
            .map(|&i| {
                let (v, r) = setup.tasks[i];
                let start = Instant::now();
                let variant = &setup.variants[v];
                let cell = caught(
                    || cell_place(variant, r),
                    || replicate(setup, v, r, &truths[v]),
                )?;
                if let Some(s) = store {
                    s.cells
                        .write(&cell_name(v, r), start.elapsed().as_secs_f64(), &cell)?;
                }
                bar.inc(1);
                if let Some(log) = &log {
                    log.tick();
                }
                Ok((i, keep.then_some(cell)))
            })
            .collect::<Result<_>>()
    })?;
    bar.finish_and_clear();
    for (i, cell) in computed {
        cells[i] = cell;
    }
    Ok((cells, counts, resumed_seconds))
}

/// The run's output from its cells, taken one at a time in the run's order: each
/// cell's rows feed the summary ([`Summarizer`]) and are kept only where the
/// experiment writes `tidy.csv` or `keep` says; its curves and maps are kept. The
/// cell is dropped before the next is taken.
fn assemble(
    setup: &Setup<'_>,
    cells: impl Iterator<Item = Result<Replicate>>,
    keep: &KeepRow<'_>,
    counts: Counts,
    (wall_seconds, cpu_seconds): (f64, f64),
) -> Result<RunOutput> {
    let exp = setup.job.exp;
    let train_sample = setup
        .variants
        .first()
        .map(|first| draw(exp, first, 0, setup.data[0].as_deref()))
        .transpose()?
        .map(|(train, _, _)| train);
    let features = |v: usize| match (&setup.data[v], &setup.variants[v].spec.data.dgp) {
        (Some(data), _) => data.feature_names().to_vec(),
        (None, Some(dgp)) => dgp.dgp().feature_names(),
        (None, None) => Vec::new(),
    };
    let first = features(0);
    let keys = exp.grid_keys();
    let mut summary = Summarizer::with_replicates(setup.replicates);
    let mut tidy = Vec::new();
    let mut curves = Vec::new();
    let mut maps = Vec::new();
    for (cell, &(v, _)) in cells.zip(&setup.tasks) {
        let r = cell?;
        for row in r.rows {
            summary.add(&row);
            if exp.spec.tidy || keep(&keys, &row) {
                tidy.push(row);
            }
        }
        // A curve's row values are read in the first variant's feature order: a
        // variant with other features (another dataset) keeps none.
        let other = v > 0 && features(v) != first;
        curves.extend(r.curves.into_iter().map(|mut c| {
            if other {
                c.row_values.clear();
            }
            c
        }));
        maps.extend(r.maps);
    }
    Ok(RunOutput {
        scale: setup.job.scale,
        keys,
        tidy,
        summary: summary.finish(exp.spec.level),
        curves,
        feature_names: train_sample
            .as_ref()
            .map(|d| d.feature_names().to_vec())
            .unwrap_or_default(),
        train_sample,
        maps,
        variants: setup.variants.len(),
        replicates: setup.replicates,
        threads: setup.pool.current_num_threads(),
        wall_seconds,
        cpu_seconds,
        cells: counts,
    })
}

/// Progress lines for logs (stderr not a terminal, where the bar is hidden): at most
/// one line every 10 s with cells done, rate and ETA.
struct PlainProgress {
    id: String,
    total: usize,
    start: Instant,
    state: std::sync::Mutex<(usize, Instant)>,
}

impl PlainProgress {
    fn new(id: &str, total: usize) -> Option<Self> {
        use std::io::IsTerminal;
        let now = Instant::now();
        (!std::io::stderr().is_terminal()).then(|| Self {
            id: id.to_string(),
            total,
            start: now,
            state: std::sync::Mutex::new((0, now)),
        })
    }

    fn tick(&self) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        s.0 += 1;
        if s.1.elapsed().as_secs_f64() >= 10.0 && s.0 < self.total {
            s.1 = Instant::now();
            let rate = s.0 as f64 / self.start.elapsed().as_secs_f64();
            eprintln!(
                "{}: {}/{} cells, {rate:.2}/s, ETA {:.0} s",
                self.id,
                s.0,
                self.total,
                (self.total - s.0) as f64 / rate
            );
        }
    }
}

/// Computes cell (v, r): its rows ([`draw`]), then the model seed, then each model's
/// work ([`model_work`]) on its own stream ([`model_stream`]).
fn replicate(setup: &Setup<'_>, v: usize, r: usize, truths: &Truths) -> Result<Replicate> {
    let (exp, variant) = (setup.job.exp, &setup.variants[v]);
    let data = setup.data[v].as_deref();
    let spec = &variant.spec;
    let (train, test, mut rng) = draw(exp, variant, r, data)?;
    let model_seed = rng.next_u64();
    let labels: Vec<String> = variant.labels.iter().map(|(_, l)| l.clone()).collect();
    let scene = Scene {
        train: &train,
        test: &test,
        all: data.unwrap_or(&train),
        dgp: spec.data.dgp.as_ref(),
        level: spec.level,
        seed: spec.seed,
        labels: &labels,
        replicate: r,
        stop: setup.job.stop,
    };
    let mut out = Replicate::default();
    for (k, (name, learner)) in spec.models.iter().enumerate() {
        let model = ModelRef {
            name,
            learner,
            fitted: None,
            first: (v, r, k) == (0, 0, 0),
        };
        let truth = |m: usize| {
            truths
                .get(&(name.clone(), m))
                .map_or(&[][..], |t| t.as_slice())
        };
        let mut rng = model_stream(model_seed, name);
        model_work(&scene, &setup.methods[v], model, truth, &mut rng, &mut out).map_err(
            |source| BenchError::Run {
                variant: variant.describe(),
                replicate: r,
                model: name.clone(),
                source,
            },
        )?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Another build's shard is checked cell by cell: equal cells agree, and a cell
    /// holding other numbers (here another replicate's) is named.
    #[test]
    fn another_builds_cells_are_recomputed_and_compared_bit_for_bit() {
        let yaml = "id: adopt\ntitle: t\npaper: molnar2023\nfigure: none\nseed: 5\n\
            scales:\n  smoke: { replicates: 4 }\n  ci: { replicates: 4 }\n  paper: { replicates: 4 }\n\
            data:\n  dgp:\n    molnar_linear: {}\n  n_train: 60\n  n_test: 30\n\
            models:\n  lm:\n    lm: {}\ngrid:\n  n_train: [60, 80]\n\
            methods:\n  - pfi: { perturbation: { permutation: { repeats: 2 } }, statistics: [squared_error] }\n";
        let exp =
            Experiment::from_text(std::path::Path::new("experiments/adopt.yaml"), yaml.into())
                .unwrap();
        let dir = std::env::temp_dir().join(format!("xai-adopt-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let theirs = CellStore::open(&dir, "another build".into()).unwrap();
        let setup = Setup::new(Job::quiet(&exp, Scale::Smoke)).unwrap();
        let truths = Truths::new();
        let cell = |i: usize| {
            let (v, r) = setup.tasks[i];
            replicate(&setup, v, r, &truths).unwrap()
        };
        for i in 0..setup.tasks.len() {
            let (v, r) = setup.tasks[i];
            theirs.write(&cell_name(v, r), 1.0, &cell(i)).unwrap();
        }
        let shard = [(Shard { k: 2, n: 3 }, &theirs)];
        let verdicts = recompute_agrees(Job::quiet(&exp, Scale::Smoke), &shard, None).unwrap();
        let verdicts = &verdicts[0];
        // 2 variants × 4 replicates; shard 2/3 holds cells 1, 4, 7: one per variant.
        let names: Vec<&str> = verdicts.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["v000-r000001", "v001-r000000"]);
        assert!(verdicts.iter().all(|(_, equal)| *equal), "{verdicts:?}");
        theirs.write("v001-r000000", 1.0, &cell(5)).unwrap();
        let verdicts = recompute_agrees(Job::quiet(&exp, Scale::Smoke), &shard, None).unwrap();
        assert_eq!(
            verdicts[0],
            [
                ("v000-r000001".to_string(), true),
                ("v001-r000000".to_string(), false)
            ]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A panic inside a cell's computation (a bug) is an error naming the cell and
    /// the panic's message; a computation that returns is passed through.
    #[test]
    fn a_panic_in_a_cell_is_an_error_naming_the_cell() {
        let exp = crate::rows::tests::shift_experiment("").unwrap();
        let v = exp.variants(Scale::Ci).unwrap();
        let err = caught(
            || cell_place(&v[1], 7),
            || -> Result<()> { panic!("index 9 out of bounds") },
        )
        .unwrap_err()
        .to_string();
        let want = format!(
            "variant {}, replicate 7: the computation stopped on a bug: index 9 out of bounds",
            v[1].describe()
        );
        assert!(err.starts_with(&want), "{err}");
        let n = 3;
        let err = caught(
            || cell_place(&v[0], 0),
            || -> Result<()> { panic!("{n} rows") },
        )
        .unwrap_err();
        assert!(err.to_string().contains("on a bug: 3 rows"), "{err}");
        assert_eq!(caught(|| cell_place(&v[0], 0), || Ok(5)).unwrap(), 5);
    }
}
