//! The foundations every experiment crate stands on: [`workspace`] (where the
//! experiment files, results and data directories are), [`datasets`] (the real
//! datasets, each verified by its checksum), `fetch` (downloading one from its
//! recorded URL, behind the `fetch` feature, the only network access) and [`error`]
//! ([`BenchError`], the one error type the experiment crates report).

#![warn(missing_docs)]

pub mod datasets;
#[cfg(feature = "fetch")]
pub mod fetch;
pub mod workspace;

pub use xai_error::BenchError;
