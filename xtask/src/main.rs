//! `cargo xtask`: list, run, check and bless experiments; run benchmarks.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use xai_bench::catalog::{experiment_ids, resolve};
use xai_bench::checks::{Outcome, Tally};
use xai_bench::commands::{Report, SharedRuns, bless_experiment, check_experiment, run_experiment};
use xai_bench::plan::Scale;
use xai_bench::workspace::{relative_to, workspace_root};
use xai_bench::{BenchError, bench};

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
    /// Run an experiment and write runs/<id>/<scale>/ (git-ignored; never results/).
    Run {
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
    },
    /// Run experiments at ci scale into runs/<id>/ci/; check the paper's claims, and the
    /// summary and the checks' measured values against the committed results/<id>/.
    Check {
        /// Experiment ids (default: all).
        experiments: Vec<String>,
        /// Worker threads (default: all cores).
        #[arg(long, default_value_t = 0)]
        threads: usize,
    },
    /// Re-run at ci scale and overwrite the committed results/<id>/ (the regression baseline).
    Bless {
        /// Experiment ids.
        #[arg(required = true)]
        experiments: Vec<String>,
        /// Worker threads (default: all cores).
        #[arg(long, default_value_t = 0)]
        threads: usize,
    },
    /// One HTML page of every experiment (figures, claims with their status and
    /// reasons, manifests) from the committed results/ or a run scale; opens from the
    /// file system.
    Report {
        /// Read runs/<id>/<scale>/ instead of the committed results/.
        #[arg(long)]
        runs: Option<String>,
        /// Output directory (default: runs/report/).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Real datasets of data/datasets.yaml.
    Data {
        #[command(subcommand)]
        action: DataAction,
    },
    /// Run a benchmark workload of ../shared/BENCH.md on a peer dump; prints one JSON line.
    Bench {
        /// Workload name (w1_pfi, w2_pdp_ice, w3_gp, w6_glasso, w7_rf_calib, w8_coverage_rep).
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
    },
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

fn main() -> ExitCode {
    match real_main() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn real_main() -> Result<bool, BenchError> {
    let cli = Cli::parse();
    let root = workspace_root();
    let progress = true;
    match cli.command {
        Command::List { markdown: true } => {
            print!("{}", xai_bench::catalog::readme_table(&root)?);
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
        Command::Run {
            experiment,
            scale,
            out,
            threads,
        } => {
            let scale = Scale::parse(&scale)?;
            let exp = resolve(&root, &experiment)?;
            let mut runs = SharedRuns::default();
            let report = run_experiment(
                &root,
                &exp,
                scale,
                threads,
                progress,
                &mut runs,
                out.as_deref(),
            )?;
            print_report(&root, exp.id(), &report);
            print_outcomes(exp.id(), &report.outcomes);
            Ok(true)
        }
        Command::Check {
            experiments,
            threads,
        } => {
            let ids = if experiments.is_empty() {
                experiment_ids(&root)?
            } else {
                experiments
            };
            let mut ok = true;
            let mut total = Tally::default();
            let exps = ids
                .iter()
                .map(|id| resolve(&root, id))
                .collect::<Result<Vec<_>, _>>()?;
            let mut runs = SharedRuns::for_batch(&exps);
            for exp in &exps {
                let report = check_experiment(&root, exp, threads, progress, &mut runs)?;
                print_report(&root, exp.id(), &report);
                ok &= print_outcomes(exp.id(), &report.outcomes);
                total += Tally::of(&report.outcomes);
            }
            println!("all {} experiments: {total}", ids.len());
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
        Command::Bless {
            experiments,
            threads,
        } => {
            let exps = experiments
                .iter()
                .map(|id| resolve(&root, id))
                .collect::<Result<Vec<_>, _>>()?;
            let mut runs = SharedRuns::for_batch(&exps);
            for exp in &exps {
                let report = bless_experiment(&root, exp, threads, progress, &mut runs)?;
                print_report(&root, exp.id(), &report);
                print_outcomes(exp.id(), &report.outcomes);
            }
            Ok(true)
        }
        Command::Report { runs, out } => {
            let source = match runs {
                Some(scale) => xai_bench::report::Source::Runs(Scale::parse(&scale)?),
                None => xai_bench::report::Source::Committed,
            };
            let out = out.unwrap_or_else(|| root.join("runs").join("report"));
            let built = xai_bench::report::build(&root, source, &out)?;
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
        Command::Bench {
            workload,
            data,
            threads,
            repeats,
            peer,
        } => {
            let mut line = bench::run(&workload, &data, threads, repeats.max(1))?;
            if let Some(peer) = peer {
                bench::compare_with_peer(&mut line, &peer)?;
            }
            println!("{line}");
            Ok(true)
        }
    }
}
