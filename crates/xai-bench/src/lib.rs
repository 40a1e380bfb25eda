//! The experiment engine: YAML specs, plans, the runner, outputs (tidy CSV, summary,
//! figures, manifest) and the report.
//!
//! `xtask` is the command-line front end; everything it does is a function here.
//!
//! The crates below it, by job (each imports only the ones listed before it):
//! 1. `xai-data`: [`error`], [`workspace`], [`datasets`] and `fetch` (feature
//!    `fetch`);
//! 2. `xai-methods`: [`methods`], each kind of method behind one trait, and what a
//!    run produced and how it is read: [`table`] (rows and CSV), [`output`] (the run's
//!    rows at a scale), [`select`] (selectors and the rows they choose), [`layout`]
//!    (tables in a paper's layout);
//! 3. `xai-checks` ([`checks`], each assertion kind behind one trait) and `xai-plots`
//!    ([`plots`], each plot kind behind one trait): they read a run and name no
//!    experiment file, so that the spec can hold their registries as it holds the
//!    methods'.
//!
//! They are re-exported here under their module names. The modules of this crate
//! import downwards only, in this order (`tests/structure.rs` fails on any circle of
//! imports, in this crate and in each crate below):
//! 1. [`spec`], the experiment file format, and [`data_section`], its `data:` section
//!    checking itself;
//! 2. plan: [`checked`] (the methods checked once), [`plan`] (load, validate, expand
//!    variants), [`memory`], [`catalog`];
//! 3. [`cells`] (finished cells on disk), [`lock`] (one run per cell directory),
//!    [`needed`] (the rows a run keeps for its checks and figures), [`data_files`] and
//!    the runner: [`rows`] (a replicate's rows), [`setup`] (what a run needs before its
//!    cells), [`truths`] (the Monte-Carlo truths), [`kernel`] (one model's work in one
//!    replicate, which a run's cells and a front end's `explain` both run) and [`run`]
//!    (the cells, scheduled, and their output);
//! 4. [`outputs`], [`manifest`]: writing a run's tables; [`committed`]: reading a
//!    committed baseline back; [`figures`]: an experiment's figures;
//! 5. [`commands`], [`merge`], [`report`] and [`slurm`]: what the CLI does (the
//!    benchmarks against the peers are the crate `xai-peers`).

#![warn(missing_docs)]

pub mod catalog;
pub mod cells;
pub mod checked;
pub mod commands;
pub mod committed;
pub mod data_files;
pub mod data_section;
pub mod figures;
pub mod kernel;
pub mod kinds;
pub mod lock;
pub mod manifest;
pub mod memory;
pub mod merge;
pub mod needed;
mod oracle;
pub mod outputs;
pub mod plan;
pub mod report;
pub mod rows;
pub mod run;
pub mod setup;
pub mod slurm;
pub mod spec;
pub mod truths;

pub use xai_checks as checks;
#[cfg(feature = "fetch")]
pub use xai_data::fetch;
pub use xai_data::{datasets, workspace};
pub use xai_error::{self as error, BenchError};
pub use xai_methods as methods;
pub use xai_models as models;
pub use xai_plots as plots;
pub use xai_results as results;
pub use xai_results::{layout, output, select, table};
pub use xai_synth as synth;
