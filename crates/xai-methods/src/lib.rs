//! The methods a replicate runs. Each kind of method is one file holding its YAML
//! settings and its implementation of [`Method`]; [`MethodSpec`] is the registry that
//! experiment files name (`methods: [{pfi: ...}, {cid: ...}]`).
//!
//! Adding a method: a file here whose settings struct implements [`Method`], and one
//! line of the [`MethodSpec`] registry.
//!
//! A method reads one replicate ([`Input`]: training and test rows, the model fitted
//! on the training rows if it asks for one, the rows emitted by the methods listed
//! before it) and emits quantities ([`Emitted`]). Methods run in the order listed, each
//! with the model's RNG stream, so a method's numbers do not depend on the methods
//! listed after it.
//!
//! The trait, what a method reads and emits, and the helpers its validation shares
//! are in [`method`]; the registry in [`registry`]. The rows the methods write and how
//! a finished run's rows are read are the crate `xai-results`, which the checks and
//! plots stand on without the learners.

#![warn(missing_docs)]

pub mod across_features;
pub mod cid;
pub mod class_shares;
pub mod coefficients;
pub mod ice;
pub mod impurity;
pub mod learner_inference;
pub mod method;
pub mod permutation_map;
pub mod pfi;
pub mod predictability;
pub mod registry;
pub mod score;
pub mod shapley;
pub mod support;

pub use method::{
    Emitted, Input, Method, Plan, coverage_values, feature_indices, known_features, model_without,
};
pub use registry::MethodSpec;
