//! The error type of the engine (`xai-bench`, which re-exports it) and of this
//! crate's dataset loading: every message says what to do next.

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
    #[error("plot {}: {message}", path.display())]
    Plot {
        /// The figure file.
        path: PathBuf,
        /// What went wrong.
        message: String,
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
    /// Anything else, stated in full.
    #[error("{0}")]
    Other(String),
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
            BenchError::Dataset { .. } | BenchError::Sample { .. } | BenchError::Data(_) => {
                Fault::Data
            }
            BenchError::Run { source, .. } => source.fault(),
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
