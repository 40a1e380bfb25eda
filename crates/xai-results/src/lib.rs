//! What a run produces and every consumer reads (the checks, the plots, the engine,
//! the report), apart from the methods that compute it:
//!
//! 1. [`quantity`]: a quantity's typed name (statistic × aggregation × inference),
//!    whose text is the CSV column value;
//! 2. [`value`]: one reported number with its uncertainty, as a method emits it;
//!    [`entropy_map`]: the map a `permutation_map` method emits for its figure;
//! 3. [`table`]: the rows of `tidy.csv`, `summary.csv` and `ice.csv`, and their CSV;
//! 4. [`output`]: a run's rows at a scale;
//! 5. [`select`]: selectors and the rows they choose; [`layout`]: tables in a paper's
//!    layout;
//! 6. [`invalid`]: the error of a setting found before any work, shared by the
//!    methods', checks' and plots' validation.
//!
//! It depends on `xai-core` and `xai-data` alone, so the checks and the plots build
//! without the learners (and without candle).

#![warn(missing_docs)]

pub mod entropy_map;
pub mod invalid;
pub mod layout;
pub mod output;
pub mod quantity;
pub mod select;
pub mod table;
pub mod value;

pub use invalid::{Invalid, known_feature_names};
pub use value::{Value, point};
