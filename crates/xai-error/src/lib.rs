//! The engine's one error type ([`BenchError`]), which every layer that reports to a
//! user shares: dataset loading (`xai-data`), results, checks and plots, the engine
//! (`xai-bench`, which re-exports it as `xai_bench::error`), the CLI and the front
//! ends, which map [`BenchError::fault`] to their own error classes. Every variant
//! is named for what went wrong, and every message says what to do next.

#![warn(missing_docs)]

use std::path::PathBuf;

use thiserror::Error;

/// Everything that can stop an experiment, a check or a benchmark.
#[derive(Debug, Error)]
pub enum BenchError {
    /// A YAML file could not be read as an experiment (syntax, type, unknown name,
    /// unknown field, invalid value). `message` carries line and column.
    #[error("{file}: {message}")]
    Spec {
        /// The experiment file.
        file: PathBuf,
        /// What is wrong and where.
        message: String,
    },
    /// No experiment has this id.
    #[error("no experiment `{id}`; known experiments: {}\n(pass an id from `cargo xtask list` or a path to a .yaml file)", known.join(", "))]
    UnknownExperiment {
        /// The id asked for.
        id: String,
        /// The ids under `experiments/`.
        known: Vec<String>,
    },
    /// Reading or writing a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A CSV file could not be read or written.
    #[error("{}: {source}", path.display())]
    Csv {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: csv::Error,
    },
    /// A method or model failed during a run.
    #[error("variant {variant}, replicate {replicate}, model `{model}`: {source}")]
    Run {
        /// The variant's grid labels.
        variant: String,
        /// The replicate index.
        replicate: usize,
        /// The model name.
        model: String,
        /// The underlying error.
        source: xai_core::CoreError,
    },
    /// Drawing a figure failed.
    #[error("plot {}: {source}", path.display())]
    Plot {
        /// The figure file.
        path: PathBuf,
        /// What went wrong.
        source: PlotError,
    },
    /// A run directory holds the cells of another run (another experiment, scale,
    /// YAML or code): mixing them would give numbers neither run computes.
    #[error(
        "{}: holds the cells of another run: {}.\nRerun with --fresh to discard them and start over, or write elsewhere with --out DIR",
        dir.display(),
        differences.join("; ")
    )]
    MixedCells {
        /// The directory.
        dir: PathBuf,
        /// What differs, in words.
        differences: Vec<String>,
    },
    /// A replicate's rows could not be drawn: a formula DGP drew a value that is not
    /// finite (the DGP's message, located in the experiment file).
    #[error("{}: {message}\n(variant {variant}, replicate {replicate}; no cell of it was written)", file.display())]
    Sample {
        /// The experiment file.
        file: PathBuf,
        /// The variant's grid labels.
        variant: String,
        /// The replicate index.
        replicate: usize,
        /// The DGP's error, with its line and column.
        message: String,
    },
    /// The computation of a cell (or of a Monte-Carlo truth) panicked: a bug, not an
    /// input. The cells finished before it are on disk, and a rerun resumes from them.
    #[error(
        "{place}: the computation stopped on a bug: {message}\nThe cells finished so far are kept and a rerun resumes from them; please report this with the experiment file"
    )]
    Panicked {
        /// What was computed: "variant <labels>, replicate <r>", or the truth's model
        /// and variant.
        place: String,
        /// The panic's message.
        message: String,
    },
    /// A registered dataset cannot be used: unknown, its file missing or not the
    /// verified one, its download failed, or a setting does not fit it.
    #[error("dataset `{name}`: {message}")]
    Dataset {
        /// The dataset's registered name.
        name: String,
        /// What is wrong and how to get the verified file.
        message: String,
    },
    /// A command line asks for what cannot be done (a shard written wrongly, a scale a
    /// command has no use for, a count below 1): the option and what to write.
    #[error("{0}")]
    Usage(String),
    /// Shards that cannot be merged into a whole run: not shards, of another run or
    /// split, given twice, missing, or with a missing or unusable cell.
    #[error("{0}")]
    Shards(String),
    /// Another process holds the lock of a run's cell directory.
    #[error("{} is being written by another run ({holder}); wait for it to end, or give this run another --out", dir.display())]
    Locked {
        /// The cell directory.
        dir: PathBuf,
        /// The holder's process and host, as it recorded them.
        holder: String,
    },
    /// A committed baseline or a run's cell store that this build cannot read back:
    /// where, what, and the command that writes it again.
    #[error("{}: {message}", path.display())]
    Stored {
        /// The file or directory.
        path: PathBuf,
        /// What is wrong with it and what to run.
        message: String,
    },
    /// A setting of a front end's call that cannot be used (a level outside (0, 1), a
    /// method's setting out of range, a method the model cannot serve): the setting
    /// and what to write instead.
    #[error("{field}: {message}")]
    Setting {
        /// The setting at fault (`level`, `repeats`, `methods[1]`).
        field: String,
        /// What is wrong and what to write instead.
        message: String,
    },
    /// Rows a front end's call was given that cannot be explained (none to fit or to
    /// explain): what is wrong and what to give.
    #[error("{0}")]
    Data(String),
    /// A call that would need more memory than the machine has: the setting that
    /// makes it too large, the size and the limit.
    #[error("{message}")]
    Size {
        /// The setting to lower (`repeats`, `points`, `n_train`).
        field: String,
        /// The memory it would take and the memory available.
        message: String,
    },
    /// A method's or model's error outside a cell of a run (a benchmark's, a peer's
    /// replay): the error itself.
    #[error(transparent)]
    Core(#[from] xai_core::CoreError),
    /// A run's data section names neither a DGP nor a loaded dataset.
    #[error("variant {variant}: its data has neither a DGP nor a loaded dataset")]
    NoData {
        /// The variant's grid labels.
        variant: String,
    },
    /// A data file the experiment names is in none of the data directories.
    #[error(
        "data file {} not found (looked for {}): set {var} to the directory holding it (e.g. the project's ../shared/data)",
        file.display(),
        tried.join(" and ")
    )]
    DataFile {
        /// The file as the experiment names it.
        file: PathBuf,
        /// Where it was looked for.
        tried: Vec<String>,
        /// The environment variable naming a data directory.
        var: &'static str,
    },
    /// A table of a paper's layout that does not fit the run's rows: which table and
    /// column, and what to change.
    #[error("table `{table}`, column `{column}`: {message}")]
    Table {
        /// The table's `name`.
        table: String,
        /// The column's header.
        column: String,
        /// What does not fit and what to write.
        message: String,
    },
    /// A finished cell that could not be encoded or compressed for storage.
    #[error("cell {cell}: cannot store it: {message}")]
    Encode {
        /// The cell (or the experiment) being stored.
        cell: String,
        /// The encoder's message.
        message: String,
    },
    /// A thread pool of the given size could not be started.
    #[error("cannot start {threads} threads: {message}")]
    Threads {
        /// The threads asked for.
        threads: usize,
        /// The system's message.
        message: String,
    },
    /// A program this one runs (the test suite, pip, a merge) could not be started or
    /// failed.
    #[error("{what}: {message}")]
    Process {
        /// The program, in words.
        what: String,
        /// Why it could not start, or its exit status.
        message: String,
    },
    /// Downloading a registered dataset failed.
    #[error("downloading {url} failed: {message}")]
    Download {
        /// The dataset's recorded URL.
        url: String,
        /// The client's message.
        message: String,
    },
    /// A peer's file (its dump, JSON line or output) that cannot be read as one.
    #[error("{}: {message}", path.display())]
    PeerFile {
        /// The file or directory.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// Our numbers differ from a peer's beyond the workload's tolerance (or its
    /// shapes, or a network failed to learn): the benchmark's comparison failed.
    #[error("{workload}: {message}")]
    PeerDiffers {
        /// The workload, or what of it was compared.
        workload: String,
        /// The differences, with the JSON line.
        message: String,
    },
}

/// A setting (of a method, a check, a plot) that cannot work, found before any work:
/// the YAML field at fault, to point at its line, and what to write instead.
#[derive(Debug, Clone, PartialEq, Error)]
#[error("{field}: {message}")]
pub struct Invalid {
    /// The YAML field at fault (used to point at its line).
    pub field: String,
    /// What is wrong and what to write instead.
    pub message: String,
}

impl Invalid {
    /// An error about `field`.
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            message: message.into(),
        }
    }
}

impl From<Invalid> for BenchError {
    /// A front end's setting that cannot be used ([`BenchError::Setting`]).
    fn from(e: Invalid) -> Self {
        BenchError::Setting {
            field: e.field,
            message: e.message,
        }
    }
}

/// Why a figure could not be drawn (`xai-plots`).
#[derive(Debug, Error)]
pub enum PlotError {
    /// The run lacks what the plot draws (rows of a quantity, kept values, the
    /// training sample, an entropy map): what is missing and the setting that keeps
    /// it.
    #[error("{0}")]
    Missing(String),
    /// The rows do not fit the plot's layout (several rows for one bar, images that
    /// are not square): what to change.
    #[error("{0}")]
    Layout(String),
    /// The plot's `at:` picks no variant of the run.
    #[error("`at: {{ {key}: {value} }}` picks no variant of this run")]
    NoVariant {
        /// The grid key.
        key: String,
        /// The value asked for.
        value: String,
    },
    /// The drawing backend failed (a glyph, an area, the image buffer).
    #[error("drawing: {0}")]
    Draw(String),
    /// The SVG could not be converted to PDF.
    #[error("PDF: {0}")]
    Pdf(String),
}

impl BenchError {
    /// The kind of fault this is ([`xai_core::Fault`]), for the front ends' error
    /// classes: a method's or model's error is its own kind.
    pub fn fault(&self) -> xai_core::Fault {
        use xai_core::Fault;
        match self {
            BenchError::Spec { .. }
            | BenchError::UnknownExperiment { .. }
            | BenchError::Usage(_)
            | BenchError::Setting { .. } => Fault::Settings,
            BenchError::Size { .. } => Fault::Size,
            BenchError::Dataset { .. }
            | BenchError::Sample { .. }
            | BenchError::Data(_)
            | BenchError::DataFile { .. } => Fault::Data,
            BenchError::Table { .. } | BenchError::NoData { .. } => Fault::Settings,
            BenchError::Run { source, .. } | BenchError::Core(source) => source.fault(),
            _ => Fault::Other,
        }
    }
}

/// Result alias of this crate.
pub type Result<T, E = BenchError> = std::result::Result<T, E>;

/// Wraps an I/O error with its path.
pub fn io_err(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> BenchError {
    let path = path.into();
    move |source| BenchError::Io { path, source }
}

#[cfg(test)]
mod tests {
    use super::*;
    use xai_core::{CoreError, Fault};

    #[test]
    fn each_error_is_sorted_into_its_kind_of_fault() {
        let table = BenchError::Table {
            table: "t".into(),
            column: "c".into(),
            message: "m".into(),
        };
        let file = BenchError::DataFile {
            file: "heart.csv".into(),
            tried: vec!["a/heart.csv".into()],
            var: "XAI_DATA_DIR",
        };
        let core = BenchError::from(CoreError::Data("row 3 is NaN".into()));
        let threads = BenchError::Threads {
            threads: 2,
            message: "no".into(),
        };
        assert_eq!(table.fault(), Fault::Settings);
        assert_eq!(file.fault(), Fault::Data);
        assert_eq!(core.fault(), Fault::Data);
        assert_eq!(threads.fault(), Fault::Other);
        assert!(file.to_string().contains("set XAI_DATA_DIR"), "{file}");
    }

    #[test]
    fn an_invalid_setting_is_a_setting_error_naming_its_field() {
        let e = BenchError::from(Invalid::new("repeats", "at least 1"));
        assert_eq!(e.fault(), xai_core::Fault::Settings);
        assert_eq!(e.to_string(), "repeats: at least 1");
    }

    #[test]
    fn a_plot_error_names_the_figure_and_what_is_missing() {
        let e = BenchError::Plot {
            path: "fig1".into(),
            source: PlotError::NoVariant {
                key: "sample".into(),
                value: "9".into(),
            },
        };
        assert_eq!(
            e.to_string(),
            "plot fig1: `at: { sample: 9 }` picks no variant of this run"
        );
    }
}
