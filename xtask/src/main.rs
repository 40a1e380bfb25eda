//! `cargo xtask`: list, run, check and bless experiments; run benchmarks.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use xai_bench::catalog::{default_out_dir, experiment_ids, resolve, workspace_root};
use xai_bench::check::{Outcome, Status, paper_checks, regression, write_outcomes};
use xai_bench::load::Scale;
use xai_bench::run::{run, write_outputs};
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
    /// Run an experiment and write results/<id>/ (ci scale) or results/<id>/<scale>/.
    Run {
        /// Experiment id (see `list`) or path to a .yaml file.
        experiment: String,
        /// smoke, ci or paper.
        #[arg(long, default_value = "ci")]
        scale: String,
        /// Output directory (default: results/<id>/ at ci scale, results/<id>/<scale>/ otherwise).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Worker threads (default: all cores).
        #[arg(long, default_value_t = 0)]
        threads: usize,
    },
    /// Run experiments at ci scale; check the paper's claims and the committed summary.
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
    /// Real datasets of data/datasets.yaml.
    Data {
        #[command(subcommand)]
        action: DataAction,
    },
    /// Run a benchmark workload of ../shared/BENCH.md on a peer dump; prints one JSON line.
    Bench {
        /// Workload name (w1_pfi, w2_pdp_ice, w3_gp, w6_glasso, w7_rf_calib).
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

fn print_outcomes(id: &str, outcomes: &[Outcome]) -> bool {
    let mut ok = true;
    for o in outcomes {
        ok &= o.status != Status::Fail;
        println!(
            "  [{}] {id}: {}\n      {}",
            o.status.label(),
            o.name,
            o.detail
        );
    }
    ok
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
            let dir = out.unwrap_or_else(|| default_out_dir(&root, exp.id(), scale));
            let result = run(&exp, scale, threads, progress)?;
            write_outputs(&exp, &result, &dir)?;
            let outcomes = paper_checks(&exp, &result);
            write_outcomes(&dir.join("checks.csv"), &outcomes)?;
            println!(
                "{}: {} variants × {} replicates in {:.1} s on {} threads -> {}",
                exp.id(),
                result.variants,
                result.replicates,
                result.wall_seconds,
                result.threads,
                dir.display()
            );
            print_outcomes(exp.id(), &outcomes);
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
            for id in &ids {
                let exp = resolve(&root, id)?;
                let result = run(&exp, Scale::Ci, threads, progress)?;
                let scratch = root.join("target").join("xtask-check").join(exp.id());
                write_outputs(&exp, &result, &scratch)?;
                let mut outcomes = paper_checks(&exp, &result);
                let baseline = default_out_dir(&root, exp.id(), Scale::Ci);
                outcomes.push(regression(
                    &result.keys,
                    &result,
                    &baseline,
                    exp.spec.regression,
                ));
                println!(
                    "{} ({:.1} s; outputs in {})",
                    exp.id(),
                    result.wall_seconds,
                    scratch.display()
                );
                ok &= print_outcomes(exp.id(), &outcomes);
            }
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
            for id in &experiments {
                let exp = resolve(&root, id)?;
                let result = run(&exp, Scale::Ci, threads, progress)?;
                let dir = default_out_dir(&root, exp.id(), Scale::Ci);
                write_outputs(&exp, &result, &dir)?;
                let outcomes = paper_checks(&exp, &result);
                write_outcomes(&dir.join("checks.csv"), &outcomes)?;
                println!("blessed {} -> {}", exp.id(), dir.display());
                print_outcomes(exp.id(), &outcomes);
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
