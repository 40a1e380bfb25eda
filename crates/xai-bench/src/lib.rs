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
//! 3. what a run produced and how it is read: [`output`] (the run's rows at a
//!    scale), [`select`] (selectors and the rows they choose), [`layout`] (tables in
//!    a paper's layout);
//! 4. [`checks`] (each assertion kind behind one trait) and [`plots`] (each plot kind
//!    behind one trait): they read a run and name no experiment file, so that
//! 5. [`spec`], the experiment file format, can hold their registries as it holds the
//!    methods';
//! 6. plan: [`plan`] (load, validate, expand variants), [`memory`], [`catalog`];
//! 7. [`cells`] (finished cells on disk), [`lock`] (one run per cell directory),
//!    [`needed`] (the rows a run keeps for its checks and figures) and [`run`]: the
//!    runner;
//! 8. [`outputs`], [`manifest`]: writing a run's tables; [`committed`]: reading a
//!    committed baseline back; [`figures`]: an experiment's figures;
//! 9. [`commands`], [`report`], [`slurm`] and [`bench`]: what the CLI does.

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
pub mod figures;
pub mod layout;
pub mod lock;
pub mod manifest;
pub mod memory;
pub mod methods;
pub mod needed;
pub mod output;
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
