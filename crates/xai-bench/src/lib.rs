//! Experiments: YAML specs, the runner, outputs (tidy CSV, summary, figures,
//! manifest), paper and regression checks, and the benchmarks against the peers.
//!
//! `xtask` is the command-line front end; everything it does is a function here.
//!
//! Modules import downwards only, in this order (`tests/structure.rs` fails on any
//! circle of imports):
//! 1. foundations: [`error`], [`table`] (rows and CSV), [`workspace`], [`datasets`],
//!    [`fetch`];
//! 2. [`methods`]: each kind of method behind one trait, and its YAML settings;
//! 3. [`spec`]: the experiment file format;
//! 4. plan: [`plan`] (load, validate, expand variants), [`memory`], [`catalog`];
//! 5. [`cells`] (finished cells on disk), [`lock`] (one run per cell directory) and
//!    [`run`]: the runner;
//! 6. [`outputs`], [`manifest`]: writing a run's tables; [`committed`]: reading a
//!    committed baseline back;
//! 7. [`checks`] (by family), [`plots`] (by kind) and [`layout`] (tables in a
//!    paper's layout);
//! 8. [`commands`], [`report`], [`slurm`] and [`bench`]: what the CLI does.

#![warn(missing_docs)]

pub mod bench;
pub mod catalog;
pub mod cells;
pub mod checks;
pub mod commands;
pub mod committed;
pub mod data_files;
pub mod datasets;
pub mod error;
pub mod fetch;
pub mod layout;
pub mod lock;
pub mod manifest;
pub mod memory;
pub mod methods;
pub mod outputs;
pub mod plan;
pub mod plots;
pub mod report;
pub mod run;
pub mod select;
pub mod slurm;
pub mod spec;
pub mod table;
pub mod workspace;

pub use error::BenchError;
