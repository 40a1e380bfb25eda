//! Experiments: YAML specs, the runner, outputs (tidy CSV, summary, figures,
//! manifest), paper and regression checks, and the benchmarks against the peers.
//!
//! `xtask` is the command-line front end; everything it does is a function here.

#![warn(missing_docs)]

pub mod bench;
pub mod catalog;
pub mod check;
pub mod curves;
pub mod datasets;
pub mod error;
pub mod fetch;
pub mod load;
pub mod manifest;
pub mod plot;
pub mod run;
pub mod spec;
pub mod table;

pub use error::BenchError;
