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

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use rand::Rng;
use rayon::prelude::*;
use xai_core::rng::stream_rng;
use xai_core::{Dataset, Model};

use crate::cells::{self, CellStore, Found, Shard, cell_name};
use crate::error::{BenchError, Result};
use crate::methods::{Input, MethodSpec};
pub use crate::output::{Counts, RunOutput};
use crate::plan::{Experiment, Scale, Variant};
use crate::results::Value;
use crate::results::entropy_map::EntropyMap;
use crate::spec::Sampling;
use crate::table::{CurveRow, Summarizer, TidyRow};
use xai_models::LearnerKind;

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
pub fn run(exp: &Experiment, scale: Scale, threads: usize, progress: bool) -> Result<RunOutput> {
    run_with(exp, scale, threads, progress, None, &|_, _| true)
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
pub fn run_with(
    exp: &Experiment,
    scale: Scale,
    threads: usize,
    progress: bool,
    store: Option<&Store>,
    keep: &KeepRow<'_>,
) -> Result<RunOutput> {
    let setup = Setup::new(exp, scale, threads)?;
    let (start, cpu) = (Instant::now(), crate::workspace::cpu_seconds());
    let (cells, counts, resumed_seconds) = execute(exp, &setup, progress, store, store.is_none())?;
    let times = || {
        (
            start.elapsed().as_secs_f64(),
            crate::workspace::cpu_seconds() - cpu,
        )
    };
    match store {
        None => {
            let cells = cells.into_iter().map(|c| Ok(c.expect("every cell kept")));
            assemble(exp, &setup, cells, keep, counts, times())
        }
        Some(store) => {
            let cells = setup.tasks.iter().map(|&(v, r)| {
                let name = cell_name(v, r);
                match store.cells.read::<Replicate>(&name)? {
                    Found::Cell(c, _) => Ok(c),
                    _ => Err(BenchError::Other(format!(
                        "{}: cell {name} was written by this run but cannot be read back; run \
                         the same command again (it recomputes it)",
                        store.cells.dir().display()
                    ))),
                }
            });
            let mut out = assemble(exp, &setup, cells, keep, counts, (0.0, 0.0))?;
            let (wall, cpu) = times();
            (out.wall_seconds, out.cpu_seconds) = (wall, cpu + resumed_seconds);
            Ok(out)
        }
    }
}

/// Computes the cells of `store.shard` (or all) into `store` without assembling
/// them (see [`merge`]); returns the counts.
pub fn run_cells(
    exp: &Experiment,
    scale: Scale,
    threads: usize,
    progress: bool,
    store: &Store,
) -> Result<Counts> {
    let setup = Setup::new(exp, scale, threads)?;
    Ok(execute(exp, &setup, progress, Some(store), false)?.1)
}

/// Computes (or finds) every Monte-Carlo truth of `exp` at `scale` in `store`, the
/// first step of a Slurm run; returns how many distinct truths there are.
pub fn run_truths(
    exp: &Experiment,
    scale: Scale,
    threads: usize,
    progress: bool,
    store: &CellStore,
) -> Result<usize> {
    let setup = Setup::new(exp, scale, threads)?;
    let all = vec![true; setup.variants.len()];
    let mut seen = std::collections::HashSet::new();
    for t in truths(exp, &setup, progress, Some(store), &all, None)? {
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
    exp: &Experiment,
    scale: Scale,
    threads: usize,
    shards: &[(Shard, &CellStore)],
    truths_store: Option<&CellStore>,
) -> Result<Vec<Vec<(String, bool)>>> {
    let setup = Setup::new(exp, scale, threads)?;
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
    let truths = truths(exp, &setup, false, truths_store, &needed, None)?;
    let encode = |c: &Replicate| {
        postcard::to_allocvec(c)
            .map_err(|e| BenchError::Other(format!("{}: encoding a cell: {e}", exp.id())))
    };
    let verdicts: Vec<(usize, String, bool)> = setup.pool.install(|| {
        tasks
            .par_iter()
            .map(|&(s, i)| {
                let (v, r) = setup.tasks[i];
                let name = cell_name(v, r);
                let theirs = shards[s].1;
                let unreadable = |why: String| {
                    BenchError::Other(format!(
                        "{}: cell {name} {why}; the shard cannot be checked",
                        theirs.dir().display()
                    ))
                };
                let stored = match theirs.read::<Replicate>(&name)? {
                    Found::Cell(c, _) => c,
                    Found::Missing => return Err(unreadable("is missing".into())),
                    Found::Unusable(why) => return Err(unreadable(format!("is unusable ({why})"))),
                };
                let ours = replicate(
                    exp,
                    &setup.variants[v],
                    v,
                    r,
                    setup.data[v].as_deref(),
                    &truths[v],
                )?;
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
    let setup = Setup::new(exp, scale, 1)?;
    let start = Instant::now();
    let cpu = std::cell::Cell::new(0.0);
    let cells = setup.tasks.iter().enumerate().map(|(i, &(v, r))| {
        let Some((shard, store)) = parts.iter().find(|(s, _)| s.owns(i)) else {
            return Err(BenchError::Other(format!(
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
        Err(BenchError::Other(format!(
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
    let mut out = assemble(exp, &setup, cells, keep, counts, (0.0, 0.0))?;
    (out.wall_seconds, out.cpu_seconds) = (start.elapsed().as_secs_f64(), cpu.get());
    Ok(out)
}

/// Writes synthetic cells of `exp` at `scale` into the shard stores `parts` (each
/// store holds the cells its shard owns): cell (variant v, replicate r) holds the
/// rows `rows(v, r)` and no curves. For measuring what merging a run of a given shape
/// costs (`cargo xtask bench merge_memory`), never for results.
pub fn write_synthetic_cells(
    exp: &Experiment,
    scale: Scale,
    parts: &[(Shard, CellStore)],
    threads: usize,
    rows: impl Fn(usize, usize) -> Vec<TidyRow> + Sync,
) -> Result<usize> {
    let setup = Setup::new(exp, scale, threads)?;
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
/// first [`PROBE_RUNS`] runs, then cell 0 of every variant (whose numbers, computed
/// against the probe truths, are thrown away). One cell per variant is the
/// measurement: cells of a variant differ only in their random draws.
pub fn plan(exp: &Experiment, scale: Scale) -> Result<RunPlan> {
    let setup = Setup::new(exp, scale, 1)?;
    let mut costs = Vec::new();
    let all = vec![true; setup.variants.len()];
    let truths = truths(exp, &setup, false, None, &all, Some(&mut costs))?;
    let mut variants = Vec::with_capacity(setup.variants.len());
    for (v, variant) in setup.variants.iter().enumerate() {
        let start = Instant::now();
        setup
            .pool
            .install(|| replicate(exp, variant, v, 0, setup.data[v].as_deref(), &truths[v]))?;
        variants.push((variant.describe(), start.elapsed().as_secs_f64()));
    }
    Ok(RunPlan {
        variants,
        replicates: setup.replicates,
        truths: costs,
    })
}

/// What a run needs before its cells: the variants, their data, the cells in their
/// order, and the thread pool.
struct Setup {
    variants: Vec<Variant>,
    data: Vec<Option<Arc<Dataset>>>,
    replicates: usize,
    /// (variant, replicate) of every cell, variant-major: the run's order.
    tasks: Vec<(usize, usize)>,
    pool: rayon::ThreadPool,
    scale: Scale,
}

impl Setup {
    fn new(exp: &Experiment, scale: Scale, threads: usize) -> Result<Setup> {
        let mut variants = exp.variants(scale)?;
        for v in &mut variants {
            crate::data_files::resolve(&mut v.spec)?;
        }
        let data = load_data(exp, &variants)?;
        let replicates = exp.scale(scale).replicates;
        // 0: every core, counted here rather than by rayon, whose default follows
        // RAYON_NUM_THREADS (which `cargo xtask` sets to 1 for candle's products).
        let threads = match threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| BenchError::Other(format!("cannot start {threads} threads: {e}")))?;
        let in_flight = pool.current_num_threads().min(replicates * variants.len());
        for (v, variant) in variants.iter().enumerate() {
            exp.check_memory(variant, data[v].as_deref(), in_flight)?;
        }
        let tasks = (0..variants.len())
            .flat_map(|v| (0..replicates).map(move |r| (v, r)))
            .collect();
        Ok(Setup {
            variants,
            data,
            replicates,
            tasks,
            pool,
            scale,
        })
    }
}

/// The cells of this invocation (all, or the shard's), each read back from the
/// store or computed (in parallel, written to the store as it finishes); kept in
/// memory, in the run's order, when `keep` is set. Also the seconds the cells read
/// back took when they were computed.
fn execute(
    exp: &Experiment,
    setup: &Setup,
    progress: bool,
    store: Option<&Store>,
    keep: bool,
) -> Result<(Vec<Option<Replicate>>, Counts, f64)> {
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
            setup.scale.name(),
            s.k,
            s.n
        ),
        None => format!("{} ({})", exp.id(), setup.scale.name()),
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
    let truths = truths(
        exp,
        setup,
        progress,
        store.map(|s| &s.truths),
        &needed,
        None,
    )?;
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
                let cell = caught(variant, r, || {
                    replicate(exp, variant, v, r, setup.data[v].as_deref(), &truths[v])
                })?;
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
    exp: &Experiment,
    setup: &Setup,
    cells: impl Iterator<Item = Result<Replicate>>,
    keep: &KeepRow<'_>,
    counts: Counts,
    (wall_seconds, cpu_seconds): (f64, f64),
) -> Result<RunOutput> {
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
        scale: setup.scale,
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

/// FNV-1a hash of a name, the stream number of a model.
fn fnv(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A variant's Monte-Carlo truths: per (model, method index) its values.
type Truths = BTreeMap<(String, usize), Arc<Vec<Value>>>;

/// The cost of one Monte-Carlo truth: what it is, its runs, and the seconds taken
/// by the runs done (all, or a probe's first few).
#[derive(Debug, Clone)]
pub struct TruthCost {
    /// "model (variant)".
    pub what: String,
    /// Its runs.
    pub runs: usize,
    /// Runs done (fewer for a probe).
    pub done: usize,
    /// Seconds they took (0 when read from the store).
    pub seconds: f64,
}

/// The truths of the variants marked `needed` (the others get none), each computed
/// once per distinct (DGP, n_train, learner, method's truth key) on the setup's pool,
/// or read from `store`, where a computed one is written; with `probe`, only the
/// first runs of each (to time it, see [`plan`]), never stored.
fn truths(
    exp: &Experiment,
    setup: &Setup,
    progress: bool,
    store: Option<&CellStore>,
    needed: &[bool],
    mut probe: Option<&mut Vec<TruthCost>>,
) -> Result<Vec<Truths>> {
    let mut cache: HashMap<String, Arc<Vec<Value>>> = HashMap::new();
    let mut out = Vec::with_capacity(setup.variants.len());
    for (variant, _) in setup.variants.iter().zip(needed).filter(|(_, n)| **n) {
        let spec = &variant.spec;
        let mut truths = Truths::new();
        for (m, method) in spec.methods.iter().map(MethodSpec::method).enumerate() {
            let (Some(key), Some(dgp)) = (method.truth_key(variant.method_node(m)), &spec.data.dgp)
            else {
                continue;
            };
            for (name, learner) in &spec.models {
                let identity = variant.truth_identity(name, key.clone());
                if let Some(values) = cache.get(&identity) {
                    truths.insert((name.clone(), m), values.clone());
                    continue;
                }
                let file = cells::truth_name(&identity, spec.seed);
                let stored = match (store, &probe) {
                    (Some(store), None) => store.read::<Vec<Value>>(&file)?,
                    _ => Found::Missing,
                };
                let values = match stored {
                    Found::Cell(values, _) => values,
                    found => {
                        if let Found::Unusable(why) = found {
                            eprintln!(
                                "{}: truth {file} is unusable ({why}); computing it again",
                                exp.id()
                            );
                        }
                        if progress && probe.is_none() {
                            eprintln!(
                                "{}: Monte-Carlo truth of {name} ({})",
                                exp.id(),
                                variant.describe()
                            );
                        }
                        let seed = stream_rng(spec.seed, fnv(&identity)).next_u64();
                        let runs = probe.as_ref().map(|_| PROBE_RUNS);
                        let start = Instant::now();
                        let values = setup
                            .pool
                            .install(|| {
                                method.truth(
                                    dgp,
                                    learner,
                                    spec.data.n_train,
                                    spec.level,
                                    seed,
                                    runs,
                                )
                            })
                            .map_err(|source| BenchError::Run {
                                variant: variant.describe(),
                                replicate: 0,
                                model: name.clone(),
                                source,
                            })?;
                        let seconds = start.elapsed().as_secs_f64();
                        match probe.as_deref_mut() {
                            Some(costs) => costs.push(TruthCost {
                                what: format!("{name} ({})", variant.describe()),
                                runs: method.truth_runs(),
                                done: runs.map_or(method.truth_runs(), |k| {
                                    k.clamp(2, method.truth_runs())
                                }),
                                seconds,
                            }),
                            None => {
                                if let Some(store) = store {
                                    store.write(&file, seconds, &values)?;
                                }
                            }
                        }
                        values
                    }
                };
                let values = Arc::new(values);
                cache.insert(identity, values.clone());
                truths.insert((name.clone(), m), values);
            }
        }
        out.push(truths);
    }
    // Variants not needed get no truths, at their own index.
    let mut it = out.into_iter();
    Ok(needed
        .iter()
        .map(|&n| {
            if n {
                it.next().expect("one per needed")
            } else {
                Truths::new()
            }
        })
        .collect())
}

/// Runs of a truth that `--plan` times.
const PROBE_RUNS: usize = 20;

/// What one (variant, replicate) cell produced (the training sample that data plots
/// show is drawn again from the first cell's stream, see [`draw`]).
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct Replicate {
    rows: Vec<TidyRow>,
    curves: Vec<CurveRow>,
    maps: Vec<EntropyMap>,
}

/// Each variant's rows to split: its real dataset (loaded and verified once per
/// distinct dataset), the one sample of a DGP with `sampling: shuffle_splits`, its
/// one training sample with `sampling: fixed_training`, or
/// `None` for a DGP sampled afresh per replicate; the experiment's feature names are
/// checked against the data.
fn load_data(
    exp: &Experiment,
    variants: &[Variant],
) -> Result<Vec<Option<std::sync::Arc<Dataset>>>> {
    use crate::datasets::{Registry, load, search_dirs};
    let root = crate::workspace::workspace_root();
    let mut cache: Vec<(&crate::spec::DatasetRef, std::sync::Arc<Dataset>)> = Vec::new();
    let mut out = Vec::with_capacity(variants.len());
    for v in variants {
        let Some(d) = &v.spec.data.dataset else {
            out.push(match (&v.spec.data.dgp, v.spec.data.sampling) {
                (Some(dgp), sampling @ (Sampling::ShuffleSplits | Sampling::FixedTraining)) => {
                    let n = match sampling {
                        Sampling::FixedTraining => v.spec.data.n_train,
                        _ => v.spec.data.n_train + v.spec.data.n_test,
                    };
                    let mut rng = stream_rng(v.spec.seed, sample_stream(v.stream));
                    let sample = dgp
                        .dgp()
                        .sample(n, &mut rng)
                        .map_err(|e| exp.sample_error(v, 0, e))?;
                    Some(std::sync::Arc::new(sample))
                }
                _ => None,
            });
            continue;
        };
        let data = match cache.iter().find(|(c, _)| {
            (&c.name, c.missing, &c.drop, &c.classes) == (&d.name, d.missing, &d.drop, &d.classes)
        }) {
            Some((_, data)) => data.clone(),
            None => {
                let registry = Registry::load(&root.join("data").join("datasets.yaml"))?;
                let mut entry = registry.get(&d.name)?.clone();
                entry.drop.extend(d.drop.iter().cloned());
                let loaded = load(&d.name, &entry, &search_dirs(&root), d.missing)?;
                let data = match d.classes.is_empty() {
                    true => loaded.data,
                    false => {
                        crate::datasets::keep_classes(&loaded.data, &d.name, &entry, &d.classes)?
                    }
                };
                let data = std::sync::Arc::new(data);
                cache.push((d, data.clone()));
                data
            }
        };
        exp.check_against_data(v, &data)?;
        out.push(Some(data));
    }
    Ok(out)
}

/// The stream of what is drawn once per variant v (a k-fold partition, a
/// shuffle-split sample): (seed, v·2³² + 2³² − 1), never a replicate's stream.
fn sample_stream(v: usize) -> u64 {
    ((v as u64) << 32) | 0xFFFF_FFFF
}

/// The (train, test) rows of replicate `r` of variant `v`: a random split drawn from
/// the replicate's stream, or with `folds: k` the complement of and fold r mod k of a
/// k-fold partition drawn once per variant from stream [`sample_stream`]; in file
/// order, or with `shuffled` each in a random order drawn next from the replicate's
/// stream.
pub fn split_rows(
    full: &Dataset,
    d: &crate::spec::DatasetRef,
    seed: u64,
    v: usize,
    r: usize,
    rng: &mut xai_core::rng::StreamRng,
) -> (Vec<usize>, Vec<usize>) {
    let (mut train, mut test) = match d.folds {
        Some(k) => {
            let mut fold_rng = stream_rng(seed, sample_stream(v));
            let fold = xai_core::resample::k_fold(full.y(), k, d.stratify, &mut fold_rng);
            let f = r % k;
            (
                (0..fold.len()).filter(|&i| fold[i] != f).collect(),
                (0..fold.len()).filter(|&i| fold[i] == f).collect(),
            )
        }
        None if d.test_fraction == 0.0 => {
            let all: Vec<usize> = (0..full.n_rows()).collect();
            (all.clone(), all)
        }
        None => xai_core::resample::train_test_split(full.y(), d.test_fraction, d.stratify, rng),
    };
    if d.shuffled {
        use rand::seq::SliceRandom;
        train.shuffle(rng);
        test.shuffle(rng);
    }
    (train, test)
}

/// The training and test rows of cell (v, r), drawn first from its stream (a split of
/// the data, a split of one fresh DGP sample of `n_rows` rows, or fresh training and test
/// samples of the DGP; then their `missing_cells`), and the stream after them. A
/// `shift`'s noise comes from stream (seed ⊕ fnv("shift"), s·2³² + r), which leaves the
/// cell's stream as an unshifted variant's.
fn draw(
    exp: &Experiment,
    variant: &Variant,
    r: usize,
    data: Option<&Dataset>,
) -> Result<(Dataset, Dataset, xai_core::rng::StreamRng)> {
    let spec = &variant.spec;
    let mut rng = stream_rng(spec.seed, ((variant.stream as u64) << 32) | r as u64);
    let sample = |dgp: &xai_synth::DgpSpec, n: usize, rng: &mut xai_core::rng::StreamRng| {
        dgp.dgp()
            .sample(n, rng)
            .map_err(|e| exp.sample_error(variant, r, e))
    };
    let (train, test) = match (data, &spec.data.dataset, &spec.data.dgp) {
        (Some(full), Some(d), _) => {
            let (tr, te) = split_rows(full, d, spec.seed, variant.stream, r, &mut rng);
            (full.select_rows(&tr), full.select_rows(&te))
        }
        (Some(train), None, Some(dgp)) if spec.data.sampling == Sampling::FixedTraining => {
            (train.clone(), sample(dgp, spec.data.n_test, &mut rng)?)
        }
        (Some(sample), None, Some(_)) => split_sample(sample, spec.data.n_test, &mut rng),
        (None, _, Some(dgp)) if spec.data.n_rows.is_some() => {
            let rows = sample(dgp, spec.data.n_train + spec.data.n_test, &mut rng)?;
            split_sample(&rows, spec.data.n_test, &mut rng)
        }
        (None, _, Some(dgp)) => {
            let train = sample(dgp, spec.data.n_train, &mut rng)?;
            (train, sample(dgp, spec.data.n_test, &mut rng)?)
        }
        _ => {
            return Err(BenchError::Other(format!(
                "variant {}: its data has neither a DGP nor a loaded dataset",
                variant.describe()
            )));
        }
    };
    let (train, test) = match spec.data.missing_cells {
        Some(m) => (
            blank(train, m.train, &mut rng),
            blank(test, m.test, &mut rng),
        ),
        None => (train, test),
    };
    let (train, test) = match &spec.data.shift {
        Some(shift) if shift.sd > 0.0 => {
            // Its own stream, so that a shifted and an unshifted variant sharing
            // streams also share every later draw (the model seeds).
            let mut noise = stream_rng(
                spec.seed ^ fnv("shift"),
                ((variant.stream as u64) << 32) | r as u64,
            );
            let train = shifted(train, shift, &mut noise);
            let test = shifted(test, shift, &mut noise);
            match shift.rows {
                crate::spec::ShiftedRows::All => (train, test),
                // The same noise on the test rows as with `all`; the training rows
                // keep their values.
                crate::spec::ShiftedRows::Test => (train.before_shift().into_owned(), test),
            }
        }
        _ => (train, test),
    };
    Ok((train, test, rng))
}

/// `data` with N(0, sd²) noise added to the shifted feature of every row (its name
/// and sd validated at load).
fn shifted(
    data: Dataset,
    shift: &crate::spec::CovariateShift,
    rng: &mut xai_core::rng::StreamRng,
) -> Dataset {
    let j = data
        .feature_names()
        .iter()
        .position(|f| *f == shift.feature)
        .expect("shifted feature validated at load");
    let noise: Vec<f64> = (0..data.n_rows())
        .map(|_| {
            shift.sd * rand_distr::Distribution::<f64>::sample(&rand_distr::StandardNormal, rng)
        })
        .collect();
    data.with_shift(j, &noise)
        .expect("one shifted feature of the data's rows")
}

/// `data` with a share of every column's cells missing (validated in [0, 1) at load).
fn blank(data: Dataset, share: f64, rng: &mut xai_core::rng::StreamRng) -> Dataset {
    data.with_missing_cells(share, rng)
        .expect("missing_cells validated at load")
}

/// `sample` split at random into its training rows and `n_test` test rows.
fn split_sample(
    sample: &Dataset,
    n_test: usize,
    rng: &mut xai_core::rng::StreamRng,
) -> (Dataset, Dataset) {
    let fraction = n_test as f64 / sample.n_rows() as f64;
    let (tr, te) = xai_core::resample::train_test_split(sample.y(), fraction, false, rng);
    (sample.select_rows(&tr), sample.select_rows(&te))
}

/// `compute`'s result for cell (`variant`, `r`), with a panic inside it (a bug, not
/// an input) caught and returned as [`BenchError::CellPanicked`] naming the cell: the
/// run then ends with that error, and the cells finished before it stay on disk.
fn caught<T>(variant: &Variant, r: usize, compute: impl FnOnce() -> Result<T>) -> Result<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(compute)).unwrap_or_else(|payload| {
        let message = match (
            payload.downcast_ref::<&str>(),
            payload.downcast_ref::<String>(),
        ) {
            (Some(s), _) => s.to_string(),
            (None, Some(s)) => s.clone(),
            (None, None) => "a panic without a message".into(),
        };
        Err(BenchError::CellPanicked {
            variant: variant.describe(),
            replicate: r,
            message,
        })
    })
}

/// Computes cell (v, r): its rows, then per model the fit and each method.
fn replicate(
    exp: &Experiment,
    variant: &Variant,
    v: usize,
    r: usize,
    data: Option<&Dataset>,
    truths: &Truths,
) -> Result<Replicate> {
    let spec = &variant.spec;
    let (train, test, mut rng) = draw(exp, variant, r, data)?;
    let model_seed = rng.next_u64();
    let labels: Vec<String> = variant.labels.iter().map(|(_, l)| l.clone()).collect();
    let mut out = Replicate {
        rows: Vec::new(),
        curves: Vec::new(),
        maps: Vec::new(),
    };
    for (k, (name, learner)) in spec.models.iter().enumerate() {
        let fail = |source| BenchError::Run {
            variant: variant.describe(),
            replicate: r,
            model: name.clone(),
            source,
        };
        // The model's stream: the fit and then each method, in the order listed.
        let mut model_rng = stream_rng(model_seed, fnv(name));
        let mut model: Option<Box<dyn Model>> = None;
        let mut values: Vec<Value> = Vec::new();
        for (m, method) in spec.methods.iter().map(MethodSpec::method).enumerate() {
            if method.needs_fit() && model.is_none() {
                model = Some(learner.build().fit(&train, &mut model_rng).map_err(fail)?);
            }
            let input = Input {
                train: &train,
                test: &test,
                all: data.unwrap_or(&train),
                learner,
                dgp: spec.data.dgp.as_ref(),
                model: model.as_deref(),
                earlier: &values,
                level: spec.level,
                seed: spec.seed,
                first: (v, r, k) == (0, 0, 0),
                truth: truths.get(&(name.clone(), m)).map_or(&[], |t| t.as_slice()),
            };
            let emitted = method.compute(&input, &mut model_rng).map_err(fail)?;
            values.extend(emitted.values);
            out.curves.extend(emitted.curves.into_iter().map(|mut c| {
                c.labels = labels.clone();
                c.replicate = r;
                c.model = name.clone();
                c
            }));
            out.maps.extend(emitted.maps);
        }
        out.rows.extend(values.into_iter().map(|v| TidyRow {
            labels: labels.clone(),
            replicate: r,
            model: name.clone(),
            quantity: v.quantity,
            feature: v.feature,
            x: v.x,
            value: v.estimate,
        }));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::DatasetRef;
    use xai_core::Target;

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
        let setup = Setup::new(&exp, Scale::Smoke, 1).unwrap();
        let truths = Truths::new();
        let cell = |i: usize| {
            let (v, r) = setup.tasks[i];
            replicate(
                &exp,
                &setup.variants[v],
                v,
                r,
                setup.data[v].as_deref(),
                &truths,
            )
            .unwrap()
        };
        for i in 0..setup.tasks.len() {
            let (v, r) = setup.tasks[i];
            theirs.write(&cell_name(v, r), 1.0, &cell(i)).unwrap();
        }
        let shard = [(Shard { k: 2, n: 3 }, &theirs)];
        let verdicts = recompute_agrees(&exp, Scale::Smoke, 1, &shard, None).unwrap();
        let verdicts = &verdicts[0];
        // 2 variants × 4 replicates; shard 2/3 holds cells 1, 4, 7: one per variant.
        let names: Vec<&str> = verdicts.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["v000-r000001", "v001-r000000"]);
        assert!(verdicts.iter().all(|(_, equal)| *equal), "{verdicts:?}");
        theirs.write("v001-r000000", 1.0, &cell(5)).unwrap();
        let verdicts = recompute_agrees(&exp, Scale::Smoke, 1, &shard, None).unwrap();
        assert_eq!(
            verdicts[0],
            [
                ("v000-r000001".to_string(), true),
                ("v001-r000000".to_string(), false)
            ]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn k_fold_replicates_test_every_row_exactly_once() {
        let n = 23;
        let data = Dataset::new(
            ndarray::Array2::zeros((n, 1)),
            Target::Classes {
                labels: (0..n).map(|i| i % 3 % 2).collect(),
                n_classes: 2,
            },
            vec!["a".into()],
        )
        .unwrap();
        let d = DatasetRef {
            name: "x".into(),
            test_fraction: 0.25,
            stratify: true,
            missing: Default::default(),
            folds: Some(4),
            drop: Vec::new(),
            classes: Vec::new(),
            shuffled: false,
        };
        let mut seen = vec![0; n];
        for r in 0..4 {
            let (train, test) = split_rows(&data, &d, 7, 0, r, &mut stream_rng(7, r as u64));
            assert_eq!(train.len() + test.len(), n);
            assert!(train.iter().all(|i| !test.contains(i)));
            for i in test {
                seen[i] += 1;
            }
        }
        assert!(seen.iter().all(|&c| c == 1), "{seen:?}");
        // Without folds: a random split of round(0.25 · 23) = 6 test rows.
        let random = DatasetRef { folds: None, ..d };
        let (train, test) = split_rows(&data, &random, 7, 0, 0, &mut stream_rng(7, 0));
        assert_eq!(test.len(), 6);
        assert!(train.is_sorted() && test.is_sorted(), "in file order");
        // `shuffled`: the same rows, in another order.
        let shuffled = DatasetRef {
            shuffled: true,
            ..random
        };
        let (train_s, test_s) = split_rows(&data, &shuffled, 7, 0, 0, &mut stream_rng(7, 0));
        assert!(!train_s.is_sorted());
        let sorted = |mut v: Vec<usize>| {
            v.sort_unstable();
            v
        };
        assert_eq!((sorted(train_s), sorted(test_s)), (train, test));
    }

    fn shift_experiment(shared: &str) -> Result<Experiment> {
        let text = format!(
            "id: shift-test
title: t
paper: watson2023
figure: none
seed: 5
{shared}
scales:
  smoke: {{ replicates: 1 }}
  ci: {{ replicates: 1 }}
  paper: {{ replicates: 1 }}
data:
  dgp:
    friedman_variance: {{ response: mean }}
  n_train: 30
  n_test: 20
  shift: {{ feature: X3, sd: 1.0 }}
models:
  xgboost:
    xgboost: {{ rounds: 2 }}
grid:
  shift:
    - {{ label: Original, set: {{ shift.sd: 0.0 }} }}
    - {{ label: Perturbed, set: {{}} }}
methods:
  - shapley: {{ estimator: tree }}
"
        );
        Experiment::from_text(std::path::Path::new("shift-test.yaml"), text)
    }

    /// A panic inside a cell's computation (a bug) is an error naming the cell and
    /// the panic's message; a computation that returns is passed through.
    #[test]
    fn a_panic_in_a_cell_is_an_error_naming_the_cell() {
        let exp = shift_experiment("").unwrap();
        let v = exp.variants(Scale::Ci).unwrap();
        let err = caught(&v[1], 7, || -> Result<()> {
            panic!("index 9 out of bounds")
        })
        .unwrap_err()
        .to_string();
        let want = format!(
            "variant {}, replicate 7: the computation stopped on a bug: index 9 out of bounds",
            v[1].describe()
        );
        assert!(err.starts_with(&want), "{err}");
        let n = 3;
        let err = caught(&v[0], 0, || -> Result<()> { panic!("{n} rows") }).unwrap_err();
        assert!(err.to_string().contains("on a bug: 3 rows"), "{err}");
        assert_eq!(caught(&v[0], 0, || Ok(5)).unwrap(), 5);
    }

    /// With `shared_streams` the original and the shifted variant draw the same rows
    /// and seeds, and the shift moves X3 alone (by N(0, 1) noise); without, the rows
    /// differ.
    #[test]
    fn shared_streams_pair_the_shifted_rows_with_the_original_ones() {
        let bits = |d: &Dataset| format!("{:?}", d.x());
        let exp = shift_experiment("shared_streams: [shift]").unwrap();
        let v = exp.variants(Scale::Ci).unwrap();
        assert_eq!((v[0].stream, v[1].stream), (0, 0));
        let (train0, test0, mut rng0) = draw(&exp, &v[0], 0, None).unwrap();
        let (train1, test1, mut rng1) = draw(&exp, &v[1], 0, None).unwrap();
        // The noise has its own stream: the model seeds drawn next agree too.
        assert_eq!(rng0.next_u64(), rng1.next_u64());
        for (original, shifted) in [(&train0, &train1), (&test0, &test1)] {
            assert_eq!(bits(&shifted.before_shift()), bits(original));
            let moved = |j: usize| original.x().column(j) != shifted.x().column(j);
            assert_eq!((0..10).filter(|&j| moved(j)).collect::<Vec<_>>(), vec![2]);
            let noise = &shifted.x().column(2) - &original.x().column(2);
            let sd = noise.std(1.0);
            assert!((0.5..1.6).contains(&sd), "noise sd {sd}");
        }
        let exp = shift_experiment("").unwrap();
        let v = exp.variants(Scale::Ci).unwrap();
        assert_eq!((v[0].stream, v[1].stream), (0, 1));
        let (train1, _, _) = draw(&exp, &v[1], 0, None).unwrap();
        assert_ne!(bits(&train1.before_shift()), bits(&train0));
    }

    /// `rows: test` moves the test rows exactly as `rows: all` does and leaves the
    /// training rows as they were.
    #[test]
    fn a_shift_of_the_test_rows_leaves_the_training_rows() {
        let bits = |d: &Dataset| format!("{:?}", d.x());
        let exp = shift_experiment("shared_streams: [shift]").unwrap();
        let mut v = exp.variants(Scale::Ci).unwrap();
        let (train_all, test_all, _) = draw(&exp, &v[1], 0, None).unwrap();
        v[1].spec.data.shift.as_mut().unwrap().rows = crate::spec::ShiftedRows::Test;
        let (train, test, _) = draw(&exp, &v[1], 0, None).unwrap();
        let (train0, _, _) = draw(&exp, &v[0], 0, None).unwrap();
        assert_eq!(bits(&train), bits(&train0));
        assert_eq!(bits(&test), bits(&test_all));
        assert_ne!(bits(&train), bits(&train_all));
    }

    #[test]
    fn shared_streams_must_name_grid_keys() {
        let e = shift_experiment("shared_streams: [noise]")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`noise` in shared_streams is not a grid key"),
            "{e}"
        );
    }
}
