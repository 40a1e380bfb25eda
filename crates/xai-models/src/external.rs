//! A learner supplied at run time by a front end (a Python `fit` callable or a
//! scikit-learn estimator), named in YAML as `external: { name: <name> }`.
//!
//! The YAML only names it; the front end that runs the experiment hands over the
//! learner and what its models offer ([`Supplied`]) before validation, so a run
//! without it stops at load time with the name it lacks. Everything else about an
//! external learner (its predictions, its seeding) is the front end's.

use std::sync::Arc;

use serde::Deserialize;
use xai_core::{Dataset, Learner, Model};

use crate::capabilities::Capabilities;
use crate::error::ParamError;
use crate::kind::LearnerKind;

/// `external: { name: ... }`: a learner the front end supplies under `name`.
#[derive(Clone, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExternalParams {
    /// The name the front end supplies it under (Python: `run(..., models={name: learner})`).
    pub name: String,
    /// The learner and its capabilities, once supplied.
    #[serde(skip)]
    pub supplied: Option<Supplied>,
}

/// A supplied external learner and what its fitted models offer.
#[derive(Clone)]
pub struct Supplied {
    /// The learner (shared: a run's variants and replicates refit it).
    pub learner: Arc<dyn Learner>,
    /// What its fitted models offer beside predictions (members for an ensemble whose
    /// members the front end exposes; nothing else is read of a foreign model).
    pub capabilities: Capabilities,
}

impl Supplied {
    /// A learner written in a front end's language: its models predict and nothing
    /// else is read of them, but their members where `members` (an ensemble whose
    /// members the front end exposes).
    pub fn foreign(learner: Arc<dyn Learner>, members: bool) -> Supplied {
        Supplied {
            learner,
            capabilities: Capabilities {
                members,
                ..Capabilities::PREDICTIONS_ONLY
            },
        }
    }
}

impl ExternalParams {
    /// `name` with `supplied` handed over.
    pub fn supplied(name: impl Into<String>, supplied: Supplied) -> Self {
        ExternalParams {
            name: name.into(),
            supplied: Some(supplied),
        }
    }
}

impl std::fmt::Debug for Supplied {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Supplied")
            .field("capabilities", &self.capabilities)
            .finish_non_exhaustive()
    }
}

/// Two external learners are equal when they carry the same name (the YAML's value).
impl PartialEq for ExternalParams {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl std::fmt::Debug for ExternalParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExternalParams")
            .field("name", &self.name)
            .field("supplied", &self.supplied)
            .finish()
    }
}

/// Delegates to the shared learner.
struct SharedLearner(Arc<dyn Learner>);

impl Learner for SharedLearner {
    fn fit(
        &self,
        data: &Dataset,
        rng: &mut dyn rand::Rng,
    ) -> xai_core::error::Result<Box<dyn Model>> {
        self.0.fit(data, rng)
    }
}

/// Refuses to fit: the learner of an external entry that was never supplied (load-time
/// validation stops such a run first).
struct Unsupplied(String);

impl Learner for Unsupplied {
    fn fit(&self, _: &Dataset, _: &mut dyn rand::Rng) -> xai_core::error::Result<Box<dyn Model>> {
        Err(xai_core::CoreError::Fit(format!(
            "the external learner `{}` was not supplied",
            self.0
        )))
    }
}

impl LearnerKind for ExternalParams {
    fn describe(&self) -> &'static str {
        "external model"
    }

    /// Fails when the front end has not supplied the learner.
    fn validate(&self) -> Result<(), ParamError> {
        match self.supplied {
            Some(_) => Ok(()),
            None => Err(ParamError::out_of_range(
                "name",
                &self.name,
                "the name of a learner supplied by the front end (from Python: \
                 run(experiment, models={name: learner}))",
            )),
        }
    }

    /// The supplied capabilities; before it is supplied, predictions only.
    fn capabilities(&self) -> Capabilities {
        self.supplied
            .as_ref()
            .map_or(Capabilities::PREDICTIONS_ONLY, |s| s.capabilities)
    }

    /// Unknown (the front end's own memory): 0.
    fn fit_memory_bytes(&self, _n: u128, _d: u128) -> u128 {
        0
    }

    /// Unknown (the front end's own memory): 0.
    fn predict_memory_bytes(&self, _n: u128, _m: u128, _d: u128) -> u128 {
        0
    }

    fn build(&self) -> Box<dyn Learner> {
        match &self.supplied {
            Some(s) => Box::new(SharedLearner(Arc::clone(&s.learner))),
            None => Box::new(Unsupplied(self.name.clone())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Mean;

    impl Learner for Mean {
        fn fit(
            &self,
            _: &Dataset,
            _: &mut dyn rand::Rng,
        ) -> xai_core::error::Result<Box<dyn Model>> {
            Err(xai_core::CoreError::Fit("not needed".into()))
        }
    }

    #[test]
    fn an_unsupplied_learner_fails_validation_with_its_name_and_refuses_to_fit() {
        let p: ExternalParams = serde_json::from_str(r#"{"name": "mine"}"#).unwrap();
        let e = p.validate().unwrap_err().to_string();
        assert!(e.contains("mine") && e.contains("models="), "{e}");
        let data = Dataset::new(
            ndarray::Array2::zeros((2, 1)),
            xai_core::Target::Continuous(ndarray::Array1::zeros(2)),
            vec!["a".into()],
        )
        .unwrap();
        let mut rng = xai_core::rng::stream_rng(1, 0);
        let e = p.build().fit(&data, &mut rng).err().unwrap().to_string();
        assert!(e.contains("`mine` was not supplied"), "{e}");
    }

    #[test]
    fn a_supplied_learner_validates_and_declares_its_capabilities() {
        let caps = Capabilities {
            members: true,
            ..Capabilities::PREDICTIONS_ONLY
        };
        let p = ExternalParams::supplied(
            "mine",
            Supplied {
                learner: Arc::new(Mean),
                capabilities: caps,
            },
        );
        p.validate().unwrap();
        assert_eq!(p.capabilities(), caps);
        assert_eq!(p, serde_json::from_str(r#"{"name": "mine"}"#).unwrap());
    }
}
