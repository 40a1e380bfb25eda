//! `cargo xtask`: list, run, check and bless experiments; run benchmarks.

mod test_all;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use xai_bench::BenchError;
use xai_bench::catalog::{experiment_ids, resolve};
use xai_bench::cells::Shard;
use xai_bench::checks::{Outcome, Tally};
use xai_bench::commands::{
    Place, Report, SharedRuns, bless_committed, bless_experiment, check_committed,
    check_experiment, run_experiment, run_shard, run_truths,
};
use xai_bench::merge::merge_shards;
use xai_bench::plan::{Job, Scale};
use xai_bench::slurm::SlurmSpec;
use xai_bench::workspace::{relative_to, workspace_root};
use xai_peers as bench;

#[derive(Parser)]
#[command(
    name = "cargo xtask",
    about = "Reproduce, check and benchmark the papers' experiments"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the experiments under experiments/.
    List {
        /// Print the Markdown table that README.md embeds.
        #[arg(long)]
        markdown: bool,
    },
    /// List every kind an experiment file can name: DGPs, learners (`models:`),
    /// methods, assertions (a check's `assert:`) and plots, each with what it is
    /// (its registry's doc comment).
    Kinds {
        /// Print docs/kinds.md (Markdown tables).
        #[arg(long)]
        markdown: bool,
    },
    /// Run an experiment and write runs/<id>/<scale>/ (git-ignored; never results/).
    /// Finished cells are kept in <out>/cells/, so a run interrupted in any way and
    /// started again computes only the rest.
    Run(RunArgs),
    /// Join the shards of a run (`run --shard k/N`) into exactly the whole run's
    /// outputs; refuses a missing, duplicated or foreign shard.
    Merge(MergeArgs),
    /// Write Slurm scripts for a run: a truths job, a job array of N shards and a
    /// dependent merge job, all calling this executable; prints the command that
    /// submits them.
    Slurm(SlurmArgs),
    /// Run experiments into runs/<id>/<scale>/; check the paper's claims, and the
    /// summary and the checks' measured values against the committed baseline of that
    /// scale (results/<id>/ for ci, results/<id>/paper/ for paper).
    Check(CheckArgs),
    /// Re-run and overwrite the committed baseline: results/<id>/ at ci scale,
    /// results/<id>/paper/ at paper scale (per-row files over 2 MB keep only the rows
    /// the checks read).
    Bless(BlessArgs),
    /// One HTML page of every experiment (figures, claims with their status and
    /// reasons, manifests) from the committed results/ or a run scale; opens from the
    /// file system.
    Report(ReportArgs),
    /// Real datasets of data/datasets.yaml.
    Data {
        #[command(subcommand)]
        action: DataAction,
    },
    /// Run a benchmark workload of ../shared/BENCH.md on a peer dump; prints one JSON line.
    Bench(BenchArgs),
    /// Every test: `cargo test --workspace --release`, then the Python package
    /// installed into a fresh virtual environment (target/xaiws-venv) and its pytest
    /// suite, examples included.
    Test {
        /// The Python interpreter that makes the virtual environment.
        #[arg(long, default_value = "python3")]
        python: String,
        /// Only the Python package's tests (the Rust tests ran already).
        #[arg(long)]
        python_only: bool,
    },
}

/// The arguments of `run`.
#[derive(clap::Args)]
struct RunArgs {
    /// Experiment id (see `list`) or path to a .yaml file.
    experiment: String,
    /// smoke, ci or paper.
    #[arg(long, default_value = "ci")]
    scale: String,
    /// Output directory (default: runs/<id>/<scale>/).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Discard the cells of an earlier run and start over (for an experiment drawn
    /// from another's runs, `runs_of`, the cells it shares with that one).
    #[arg(long)]
    fresh: bool,
    /// Compute only shard k of N (every N-th cell, k = 1..N) into
    /// <out>/shard-k-of-N/; join the shards with `merge`.
    #[arg(long, value_name = "k/N")]
    shard: Option<String>,
    /// Compute only the Monte-Carlo truths into <out>/truths/ (by default in the
    /// run directory of the experiment whose runs these are; a Slurm run's first job,
    /// so the array's shards share them).
    #[arg(long, conflicts_with = "shard")]
    truths_only: bool,
    /// Print the run plan instead: cells, and CPU-hours from one cell per variant
    /// and each truth's first runs, timed on one thread; nothing is written.
    #[arg(long, conflicts_with_all = ["shard", "truths_only"])]
    plan: bool,
    /// With --plan: the shard count to plan for.
    #[arg(long, default_value_t = 100, requires = "plan")]
    shards: usize,
}

/// The arguments of `merge`.
#[derive(clap::Args)]
struct MergeArgs {
    /// Experiment id or path to its .yaml file.
    experiment: String,
    /// The shard directories (<out>/shard-k-of-N), all N of them.
    #[arg(required = true)]
    dirs: Vec<PathBuf>,
    /// Output directory (default: the directory holding the first shard, or for an
    /// experiment drawn from another's runs, runs/<id>/<scale>/ beside it).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Worker threads for the cells of another build's shards that are recomputed
    /// to check them (default: all cores).
    #[arg(long, default_value_t = 0)]
    threads: usize,
}

/// The arguments of `slurm`.
#[derive(clap::Args)]
struct SlurmArgs {
    /// Experiment id or path to its .yaml file.
    experiment: String,
    /// Number of shards (array tasks).
    #[arg(long)]
    shards: usize,
    /// smoke, ci or paper.
    #[arg(long, default_value = "paper")]
    scale: String,
    /// Slurm partition (default: the cluster's default).
    #[arg(long)]
    partition: Option<String>,
    /// Time limit of each job, in Slurm's format.
    #[arg(long, default_value = "04:00:00")]
    time: String,
    /// CPUs per task (and threads of each task).
    #[arg(long, default_value_t = 1)]
    cpus: usize,
    /// The run's directory on a file system every node sees (default:
    /// runs/<id>/<scale>/).
    #[arg(long)]
    out: Option<PathBuf>,
}

/// The scale and threads of `check` and `bless`, which compare with a committed
/// baseline.
#[derive(clap::Args)]
struct Baseline {
    /// ci or paper.
    #[arg(long, default_value = "ci")]
    scale: String,
    /// Worker threads (default: all cores).
    #[arg(long, default_value_t = 0)]
    threads: usize,
}

/// The arguments of `check`.
#[derive(clap::Args)]
struct CheckArgs {
    /// Experiment ids (default: all).
    experiments: Vec<String>,
    #[command(flatten)]
    baseline: Baseline,
    /// Compute nothing: evaluate the claims on the committed baseline of the scale
    /// again and compare them with its checks.csv (seconds); experiments without
    /// a baseline of that scale are listed and skipped.
    #[arg(long)]
    committed: bool,
}

/// The arguments of `bless`.
#[derive(clap::Args)]
struct BlessArgs {
    /// Experiment ids.
    #[arg(required = true)]
    experiments: Vec<String>,
    #[command(flatten)]
    baseline: Baseline,
    /// Compute nothing: evaluate the claims on the committed baseline again,
    /// rewrite its checks.csv and tables and redraw the figures it holds the inputs
    /// of (for a change of the claims, a table's layout or a figure; numbers and
    /// manifest stay).
    #[arg(long)]
    committed: bool,
}

/// The arguments of `report`.
#[derive(clap::Args)]
struct ReportArgs {
    /// Read runs/<id>/<scale>/ instead of the committed results/.
    #[arg(long)]
    runs: Option<String>,
    /// Output directory (default: runs/report/).
    #[arg(long)]
    out: Option<PathBuf>,
}

/// The arguments of `bench`.
#[derive(clap::Args)]
struct BenchArgs {
    /// Workload name (w1_pfi, w2_pdp_ice, w3_gp, w4_treeshap, w5_kernelshap, w6_glasso,
    /// w7_rf_calib, w8_coverage_rep, w9_molnar_r; nn_mc_dropout writes its own rows
    /// into <data>/nn_mc_dropout/ when they are not there; formula_dgp draws its own
    /// and ignores --data).
    workload: String,
    /// Peer dump directory (holding <workload>/train.csv, ...).
    #[arg(long)]
    data: PathBuf,
    /// Threads.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Timed repeats after one warm-up.
    #[arg(long, default_value_t = 3)]
    repeats: usize,
    /// The peer's JSON line for the same workload (e.g.
    /// ../shared/peers/dumps/w3_gp.seed1.json): adds speed-ups per phase and fails if
    /// an answer is outside its tolerance.
    #[arg(long)]
    peer: Option<PathBuf>,
}

#[derive(Subcommand)]
enum DataAction {
    /// Load every registered dataset (or the named ones) from $XAI_DATA_DIR or
    /// data/cache/ and check its sha256, shape, class balance and missing cells.
    Verify {
        /// Dataset names (default: all).
        names: Vec<String>,
    },
    /// Download registered datasets (default: all that have a pinned source) into
    /// data/cache/, checking every sha256.
    Fetch {
        /// Dataset names (default: all).
        names: Vec<String>,
        /// Fetch the verified files from a mirror laid out like ../shared/data
        /// (`<base-url>/<file>`) instead of the pinned upstream sources.
        #[arg(long)]
        base_url: Option<String>,
        /// Directory to write into (default: data/cache).
        #[arg(long)]
        cache: Option<PathBuf>,
    },
}

/// Prints each outcome, then the experiment's tally; whether none failed.
fn print_outcomes(id: &str, outcomes: &[Outcome]) -> bool {
    for o in outcomes {
        println!(
            "  [{}] {id}: {}\n      {}",
            o.status.label(),
            o.name,
            o.detail
        );
    }
    let tally = Tally::of(outcomes);
    println!("{id}: {tally}");
    tally.failed == 0
}

/// One line: what ran, how big, how long, and where it was written.
fn print_report(root: &std::path::Path, id: &str, r: &Report) {
    println!(
        "{id}: {} variants × {} replicates in {:.1} s on {} threads -> {}",
        r.output.variants,
        r.output.replicates,
        r.output.wall_seconds,
        r.output.threads,
        relative_to(root, &r.dir)
    );
}

/// `run --plan`: the cells, and the CPU-hours measured on one thread.
fn print_plan(
    exp: &xai_bench::plan::Experiment,
    scale: Scale,
    shards: usize,
) -> Result<(), BenchError> {
    if let Some(source) = &exp.spec.runs_of {
        println!(
            "{} draws on the runs of `{source}` (runs_of): it computes nothing of its own, and \
             `check` or `bless` given both computes those runs once; plan them with \
             `cargo xtask run {source} --scale {} --plan`",
            exp.id(),
            scale.name()
        );
        return Ok(());
    }
    let plan = xai_bench::run::plan(exp, scale)?;
    let cells = plan.variants.len() * plan.replicates;
    // No more shards than cells.
    let shards = shards.clamp(1, cells.max(1));
    println!(
        "{} at {} scale: {} variants x {} replicates = {cells} cells; {} Monte-Carlo truths",
        exp.id(),
        scale.name(),
        plan.variants.len(),
        plan.replicates,
        plan.truths.len()
    );
    println!("measured on 1 thread: one cell per variant, each truth's first runs");
    let width = plan
        .variants
        .iter()
        .map(|(v, _)| v.len())
        .max()
        .unwrap_or(0)
        .max(7);
    println!("  {:<width$}  {:>9}  {:>9}", "variant", "s/cell", "CPU-h");
    for (v, s) in &plan.variants {
        println!(
            "  {v:<width$}  {s:>9.3}  {:>9.2}",
            s * plan.replicates as f64 / 3600.0
        );
    }
    for t in &plan.truths {
        println!(
            "  truth of {}: {} runs, {:.4} s per run ({} timed), {:.2} CPU-h",
            t.what,
            t.runs,
            t.seconds / t.done.max(1) as f64,
            t.done,
            t.seconds * t.runs as f64 / t.done.max(1) as f64 / 3600.0
        );
    }
    // `max(0.0)`: a sum of no truths is -0.0, printed "-0.00".
    let (c, t) = (
        plan.cell_seconds().max(0.0) / 3600.0,
        plan.truth_seconds().max(0.0) / 3600.0,
    );
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "total: {:.2} CPU-h ({c:.2} cells + {t:.2} truths); {:.1} h on this machine's {cores} cores",
        c + t,
        (c + t) / cores as f64
    );
    println!(
        "as {shards} shards (`--shard k/{shards}`, each an equal share of every variant): \
         {:.2} CPU-h of cells per shard, after one truths job of {t:.2} CPU-h \
         (spread over its --cpus); `cargo xtask slurm {} --scale {} --shards {shards}` writes the jobs",
        c / shards as f64,
        exp.id(),
        scale.name()
    );
    Ok(())
}

fn main() -> ExitCode {
    // candle sizes the gemm parallelism of every matrix product from RAYON_NUM_THREADS
    // (read at each call; the core count when unset). The networks' products are a few
    // thousand flops, for which a second thread only adds hand-offs (measured: training
    // the `nn_mc_dropout` benchmark took 6.3 s with two, 2.4 s with one); the runner's
    // pool, sized by `--threads`, parallelises over cells instead. Set before any
    // thread starts; a value the user set is kept.
    if std::env::var_os("RAYON_NUM_THREADS").is_none() {
        // SAFETY: no other thread exists yet, so none reads the environment meanwhile.
        unsafe { std::env::set_var("RAYON_NUM_THREADS", "1") };
    }
    match real_main() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// Long runs show a progress bar on standard error.
const PROGRESS: bool = true;

fn real_main() -> Result<bool, BenchError> {
    let cli = Cli::parse();
    let root = workspace_root();
    match cli.command {
        Command::List { markdown: true } => {
            print!("{}", xai_bench::catalog::readme_table(&root)?);
            Ok(true)
        }
        Command::Kinds { markdown: true } => {
            print!("{}", xai_bench::kinds::kinds_markdown());
            Ok(true)
        }
        Command::Kinds { markdown: false } => {
            for r in xai_bench::kinds::vocabulary().registries {
                println!("{} ({}):", r.section, r.title);
                for k in &r.kinds {
                    println!("  {:<24} {}", k.name, xai_bench::kinds::one_line(&k.doc));
                }
            }
            Ok(true)
        }
        Command::List { markdown: false } => {
            for id in experiment_ids(&root)? {
                let exp = resolve(&root, &id)?;
                println!(
                    "{id:<24} {} {:<8} {}",
                    exp.spec.paper, exp.spec.figure, exp.spec.title
                );
            }
            Ok(true)
        }
        Command::Run(args) => run(&root, args),
        Command::Merge(args) => merge(&root, args),
        Command::Slurm(args) => slurm(&root, args),
        Command::Check(args) => check(&root, args),
        Command::Bless(args) => bless(&root, args),
        Command::Report(args) => report(&root, args),
        Command::Data {
            action: DataAction::Verify { names },
        } => {
            use xai_bench::datasets::{MissingPolicy, Registry, load, search_dirs, verify};
            let registry = Registry::load(&root.join("data").join("datasets.yaml"))?;
            let names = if names.is_empty() {
                registry.names()
            } else {
                names
            };
            let dirs = search_dirs(&root);
            let mut ok = true;
            for name in &names {
                let entry = registry.get(name)?;
                match load(name, entry, &dirs, MissingPolicy::DropRows)
                    .and_then(|l| verify(name, entry, &l))
                {
                    Ok(line) => println!("{line}"),
                    Err(e) => {
                        ok = false;
                        println!("FAILED {e}");
                    }
                }
            }
            Ok(ok)
        }
        Command::Data {
            action:
                DataAction::Fetch {
                    names,
                    base_url,
                    cache,
                },
        } => {
            let registry =
                xai_bench::datasets::Registry::load(&root.join("data").join("datasets.yaml"))?;
            let cache = cache.unwrap_or_else(|| root.join("data").join("cache"));
            let names = if names.is_empty() {
                registry.names()
            } else {
                names
            };
            let mut ok = true;
            for name in &names {
                match xai_bench::fetch::fetch(
                    name,
                    registry.get(name)?,
                    &cache,
                    base_url.as_deref(),
                ) {
                    Ok(path) => println!("{name}: {}", path.display()),
                    Err(e) => {
                        ok = false;
                        println!("FAILED {e}");
                    }
                }
            }
            Ok(ok)
        }
        Command::Bench(args) => bench_workload(args),
        Command::Test {
            python,
            python_only,
        } => test_all::run(&root, &python, python_only),
    }
}

/// `cargo xtask run`: a run, its shard, its truths or its plan.
fn run(root: &Path, args: RunArgs) -> Result<bool, BenchError> {
    let RunArgs {
        experiment,
        scale,
        out,
        threads,
        fresh,
        shard,
        truths_only,
        plan,
        shards,
    } = args;
    let scale = Scale::parse(&scale)?;
    let exp = resolve(root, &experiment)?;
    let shard = shard.as_deref().map(Shard::parse).transpose()?;
    let place = Place { out, fresh, shard };
    if plan {
        print_plan(&exp, scale, shards)?;
        return Ok(true);
    }
    if truths_only {
        let (dir, n) = run_truths(root, Job::new(&exp, scale, threads, PROGRESS), &place)?;
        println!(
            "{}: {n} Monte-Carlo truths in {}",
            exp.id(),
            relative_to(root, &dir)
        );
        return Ok(true);
    }
    if let Some(shard) = shard {
        let (dir, c) = run_shard(
            root,
            Job::new(&exp, scale, threads, PROGRESS),
            &place,
            shard,
        )?;
        println!(
            "{}: shard {}/{}: {} cells ({} computed, {} resumed) -> {}",
            exp.id(),
            shard.k,
            shard.n,
            c.total,
            c.computed,
            c.resumed,
            relative_to(root, &dir)
        );
        println!(
            "when all {} shards are done: cargo xtask merge {} {}",
            shard.n,
            exp.id(),
            relative_to(root, &dir.with_file_name(format!("shard-*-of-{}", shard.n)))
        );
        return Ok(true);
    }
    let report = run_experiment(root, Job::new(&exp, scale, threads, PROGRESS), &place)?;
    print_report(root, exp.id(), &report);
    print_outcomes(exp.id(), &report.outcomes);
    Ok(true)
}

/// `cargo xtask merge`: joins a run's shards.
fn merge(root: &Path, args: MergeArgs) -> Result<bool, BenchError> {
    let MergeArgs {
        experiment,
        dirs,
        out,
        threads,
    } = args;
    let exp = resolve(root, &experiment)?;
    let report = merge_shards(&exp, &dirs, out.as_deref(), threads)?;
    print_report(root, exp.id(), &report);
    print_outcomes(exp.id(), &report.outcomes);
    Ok(true)
}

/// `cargo xtask slurm`: writes a run's Slurm scripts.
fn slurm(root: &Path, args: SlurmArgs) -> Result<bool, BenchError> {
    let SlurmArgs {
        experiment,
        shards,
        scale,
        partition,
        time,
        cpus,
        out,
    } = args;
    let scale = Scale::parse(&scale)?;
    let exp = resolve(root, &experiment)?;
    let base = Place {
        out,
        ..Place::default()
    }
    .base(root, &exp, scale);
    let spec = SlurmSpec {
        shards,
        scale,
        partition,
        time,
        cpus,
    };
    let exe = std::env::current_exe().map_err(|e| BenchError::Process {
        what: "this executable".into(),
        message: format!("cannot find it: {e}"),
    })?;
    let written = xai_bench::slurm::write(&exp, &spec, root, &base, &exe)?;
    println!(
        "Slurm scripts in {}; submit them with:\n  {}",
        written.dir.display(),
        written.submit
    );
    println!("which runs:");
    for c in &written.commands {
        println!("  {c}");
    }
    println!(
        "A failed task k: `sbatch --array=k {}` (it resumes), then `sbatch {}`.",
        written.dir.join("cells.sbatch").display(),
        written.dir.join("merge.sbatch").display()
    );
    Ok(true)
}

/// `cargo xtask check`: whether every check of every experiment passed.
fn check(root: &Path, args: CheckArgs) -> Result<bool, BenchError> {
    let CheckArgs {
        experiments,
        baseline: Baseline { scale, threads },
        committed,
    } = args;
    let scale = Scale::parse(&scale)?;
    if scale == Scale::Smoke {
        return Err(BenchError::Usage(
            "check compares with a committed baseline, of ci or paper scale; smoke \
             has none (`cargo xtask run <id> --scale smoke` runs it)"
                .into(),
        ));
    }
    let ids = if experiments.is_empty() {
        experiment_ids(root)?
    } else {
        experiments
    };
    let mut ok = true;
    let mut total = Tally::default();
    let exps = ids
        .iter()
        .map(|id| resolve(root, id))
        .collect::<Result<Vec<_>, _>>()?;
    let mut runs = SharedRuns::for_batch(&exps).with_cells(root);
    let mut without = Vec::new();
    for exp in &exps {
        let report = if committed {
            match check_committed(root, exp, scale) {
                Ok(Some(report)) => report,
                Ok(None) => {
                    without.push(exp.id());
                    continue;
                }
                Err(e) => {
                    println!("{}: FAILED {e}", exp.id());
                    ok = false;
                    total.failed += 1;
                    continue;
                }
            }
        } else {
            check_experiment(root, Job::new(exp, scale, threads, PROGRESS), &mut runs)?
        };
        print_report(root, exp.id(), &report);
        ok &= print_outcomes(exp.id(), &report.outcomes);
        total += Tally::of(&report.outcomes);
    }
    if !without.is_empty() {
        println!(
            "no {} baseline (not checked): {}",
            scale.name(),
            without.join(", ")
        );
    }
    println!(
        "{} experiments at {} scale{}: {total}",
        ids.len() - without.len(),
        scale.name(),
        if committed { " (committed)" } else { "" }
    );
    println!(
        "{}",
        if ok {
            "all checks passed"
        } else {
            "some checks FAILED"
        }
    );
    Ok(ok)
}

/// `cargo xtask bless`: rewrites committed baselines.
fn bless(root: &Path, args: BlessArgs) -> Result<bool, BenchError> {
    let BlessArgs {
        experiments,
        baseline: Baseline { scale, threads },
        committed,
    } = args;
    let scale = Scale::parse(&scale)?;
    let exps = experiments
        .iter()
        .map(|id| resolve(root, id))
        .collect::<Result<Vec<_>, _>>()?;
    let mut runs = SharedRuns::for_batch(&exps).with_cells(root);
    for exp in &exps {
        let report = if committed {
            let (report, left) = bless_committed(root, exp, scale)?.ok_or_else(|| {
                BenchError::Usage(format!(
                    "{} has no committed {} baseline to evaluate again: bless it \
                     without --committed first",
                    exp.id(),
                    scale.name()
                ))
            })?;
            for xai_bench::figures::Undrawn { name, why } in left {
                println!(
                    "  {}: figure {name} left as it is ({why}; the baseline does not keep \
                     its inputs: bless without --committed to redraw it)",
                    exp.id()
                );
            }
            report
        } else {
            bless_experiment(root, Job::new(exp, scale, threads, PROGRESS), &mut runs)?
        };
        print_report(root, exp.id(), &report);
        print_outcomes(exp.id(), &report.outcomes);
    }
    Ok(true)
}

/// `cargo xtask report`: the HTML page of every experiment.
fn report(root: &Path, args: ReportArgs) -> Result<bool, BenchError> {
    let ReportArgs { runs, out } = args;
    let source = match runs {
        Some(scale) => xai_bench::report::Source::Runs(Scale::parse(&scale)?),
        None => xai_bench::report::Source::Committed,
    };
    let out = out.unwrap_or_else(|| root.join("runs").join("report"));
    let built = xai_bench::report::build(root, source, &out)?;
    println!(
        "report of {} experiments -> {}",
        built.experiments.len(),
        built.page.display()
    );
    for id in &built.missing {
        println!("  {id}: no outputs to show (run it first)");
    }
    Ok(true)
}

/// `cargo xtask bench`: prints the workload's JSON line (and fails on an answer
/// outside its tolerance against the peer).
fn bench_workload(args: BenchArgs) -> Result<bool, BenchError> {
    let BenchArgs {
        workload,
        data,
        threads,
        repeats,
        peer,
    } = args;
    let mut line = bench::run(&workload, &data, threads, repeats.max(1))?;
    if let Some(peer) = peer {
        bench::compare_with_peer(&mut line, &peer)?;
    }
    println!("{line}");
    Ok(true)
}
