//! The learners an experiment YAML can name.
//!
//! Adding a learner: implement [`xai_core::Learner`] in its own module, add one
//! variant here (its YAML name in snake_case, its params struct) and one arm in
//! [`LearnerSpec::build`] and [`LearnerSpec::validate`].

use serde::Deserialize;
use xai_core::Learner;

use crate::gp::{GaussianProcessLearner, GpParams};

/// A learner with its hyperparameters, as written in YAML (`gaussian_process: {...}`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum LearnerSpec {
    /// Gaussian process regression, ARD RBF + white noise ([`crate::gp`]).
    GaussianProcess(#[serde(default)] GpParams),
}

impl LearnerSpec {
    /// The YAML name of the learner.
    pub fn name(&self) -> &'static str {
        match self {
            LearnerSpec::GaussianProcess(_) => "gaussian_process",
        }
    }

    /// Checks the hyperparameters before any work starts.
    pub fn validate(&self) -> Result<(), String> {
        match self {
            LearnerSpec::GaussianProcess(p) => p.validate(),
        }
    }

    /// The learner.
    pub fn build(&self) -> Box<dyn Learner> {
        match self {
            LearnerSpec::GaussianProcess(p) => Box::new(GaussianProcessLearner(p.clone())),
        }
    }
}
