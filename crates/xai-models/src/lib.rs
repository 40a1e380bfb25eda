//! Learners and fitted models for the papers' experiments.
//!
//! Every learner implements [`xai_core::Learner`] and every fitted model
//! [`xai_core::Model`]; [`LearnerSpec`] is the registry that experiment YAML names.
//!
//! - [`gp`]: Gaussian process regression with an ARD RBF kernel, signal and noise
//!   variance, fitted by maximising the log marginal likelihood (wood2024 Fig. 4–8).

pub mod gp;
pub mod optim;
pub mod registry;

pub use gp::{GaussianProcess, GaussianProcessLearner, GpHyperparameters, GpParams};
pub use registry::LearnerSpec;
