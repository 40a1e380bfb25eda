//! The learners an experiment YAML can name.
//!
//! Adding a learner: implement [`xai_core::Learner`] in its own module, add one
//! variant here (its YAML name in snake_case, its params struct) and one arm in
//! [`LearnerSpec::build`] and [`LearnerSpec::validate`].

use serde::Deserialize;
use xai_core::Learner;

use crate::calibration::{CalibratedForestLearner, CalibratedParams};
use crate::error::ParamError;
use crate::forest::{ForestLearner, ForestParams};
use crate::gp::{GaussianProcessLearner, GpParams};

/// A learner with its hyperparameters, as written in YAML (`gaussian_process: {...}`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum LearnerSpec {
    /// Gaussian process regression, ARD RBF + white noise ([`crate::gp`]).
    GaussianProcess(#[serde(default)] GpParams),
    /// Random forest, regression or classification ([`crate::forest`]).
    RandomForest(#[serde(default)] ForestParams),
    /// Extra-trees: random thresholds, no bootstrap by default ([`crate::forest`]).
    ExtraTrees(#[serde(default)] ForestParams),
    /// Random forest with cross-fitted sigmoid or isotonic calibration
    /// ([`crate::calibration`]).
    CalibratedForest(#[serde(default)] CalibratedParams),
}

impl LearnerSpec {
    /// The YAML name of the learner.
    pub fn name(&self) -> &'static str {
        match self {
            LearnerSpec::GaussianProcess(_) => "gaussian_process",
            LearnerSpec::RandomForest(_) => "random_forest",
            LearnerSpec::ExtraTrees(_) => "extra_trees",
            LearnerSpec::CalibratedForest(_) => "calibrated_forest",
        }
    }

    /// Checks the hyperparameters before any work starts; the error names the
    /// offending setting.
    pub fn validate(&self) -> Result<(), ParamError> {
        match self {
            LearnerSpec::GaussianProcess(p) => p.validate(),
            LearnerSpec::RandomForest(p) | LearnerSpec::ExtraTrees(p) => p.validate(),
            LearnerSpec::CalibratedForest(p) => p.validate(),
        }
    }

    /// The learner.
    pub fn build(&self) -> Box<dyn Learner> {
        match self {
            LearnerSpec::GaussianProcess(p) => Box::new(GaussianProcessLearner(p.clone())),
            LearnerSpec::RandomForest(p) => Box::new(ForestLearner {
                params: p.clone(),
                random_thresholds: false,
            }),
            LearnerSpec::ExtraTrees(p) => Box::new(ForestLearner {
                params: p.clone(),
                random_thresholds: true,
            }),
            LearnerSpec::CalibratedForest(p) => Box::new(CalibratedForestLearner(p.clone())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validate_passes_the_learners_error_through() {
        let spec = LearnerSpec::ExtraTrees(ForestParams {
            min_samples_leaf: 0,
            ..Default::default()
        });
        let e = spec.validate().unwrap_err();
        assert!(
            matches!(
                &e,
                ParamError::OutOfRange {
                    param: "min_samples_leaf",
                    ..
                }
            ),
            "{e:?}"
        );
        let spec = LearnerSpec::GaussianProcess(GpParams {
            max_iter: 0,
            ..Default::default()
        });
        assert_eq!(spec.validate().unwrap_err().param(), "max_iter");
        for spec in [
            LearnerSpec::GaussianProcess(GpParams::default()),
            LearnerSpec::RandomForest(ForestParams::default()),
            LearnerSpec::ExtraTrees(ForestParams::default()),
            LearnerSpec::CalibratedForest(CalibratedParams::default()),
        ] {
            spec.validate().unwrap();
        }
    }
}
