//! The oracle: the true predictive distribution of the DGP the rows are drawn from,
//! p(y | x) = N(E[Y | x], Var(Y | x)) for a continuous target and
//! Bernoulli(P(Y = 1 | x)) for a binary one, as a "model" beside the fitted ones.
//! It learns nothing: whatever a method measures on it is the population value of
//! the method's quantity for a perfect model (wood2024 Fig. 4: the Likelihood-PFI a
//! perfectly fitted predictive distribution gets, against which a GP's is read).
//!
//! The YAML names it (`oracle: {}`); the runner hands over the truth ([`Truth`]) of
//! the experiment's DGP before validation, so an experiment on a real dataset stops
//! at load time.

use std::sync::Arc;

use ndarray::{Array1, ArrayView2};
use serde::Deserialize;
use xai_core::{CoreError, Dataset, Learner, Model, Predictions, Target};

use crate::capabilities::Capabilities;
use crate::error::ParamError;
use crate::kind::LearnerKind;

/// The conditional moments of a DGP's target: what the oracle predicts.
pub trait Truth: Send + Sync {
    /// E[Y | X = x] for each row of `x` (P(Y = 1 | x) for a binary target).
    fn mean(&self, x: ArrayView2<'_, f64>) -> Array1<f64>;

    /// Var(Y | X = x) for each row of `x`.
    fn variance(&self, x: ArrayView2<'_, f64>) -> Array1<f64>;
}

/// `oracle: {}`: the DGP's true predictive distribution.
#[derive(Clone, Default, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OracleParams {
    /// The DGP's truth, once the runner has handed it over.
    #[serde(skip)]
    pub truth: Option<Arc<dyn Truth>>,
}

/// Two oracles are equal: the YAML entry has no settings.
impl PartialEq for OracleParams {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for OracleParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OracleParams")
            .field("truth", &self.truth.is_some())
            .finish()
    }
}

impl LearnerKind for OracleParams {
    fn describe(&self) -> &'static str {
        "true predictive distribution (oracle)"
    }

    /// Fails when no DGP's truth was handed over (the data are not drawn from a DGP).
    fn validate(&self) -> Result<(), ParamError> {
        match self.truth {
            Some(_) => Ok(()),
            None => Err(ParamError::out_of_range(
                "oracle",
                "{}",
                "a model of data drawn from a DGP (`data: { dgp: ... }`): the oracle predicts \
                 the DGP's true distribution, which a real dataset does not have",
            )),
        }
    }

    /// Predictions only.
    fn capabilities(&self) -> Capabilities {
        Capabilities::PREDICTIONS_ONLY
    }

    /// Nothing is fitted.
    fn fit_memory_bytes(&self, _: u128, _: u128) -> u128 {
        0
    }

    /// The two moments of each predicted row.
    fn predict_memory_bytes(&self, _: u128, n_rows: u128, _: u128) -> u128 {
        n_rows.saturating_mul(16)
    }

    fn build(&self) -> Box<dyn Learner> {
        Box::new(OracleLearner(self.truth.clone()))
    }
}

/// Builds the oracle of the training rows' target kind.
struct OracleLearner(Option<Arc<dyn Truth>>);

impl Learner for OracleLearner {
    fn fit(
        &self,
        data: &Dataset,
        _: &mut dyn rand::Rng,
    ) -> xai_core::error::Result<Box<dyn Model>> {
        let truth = self.0.clone().ok_or_else(|| {
            CoreError::Fit("the oracle was given no DGP: its data are not drawn from one".into())
        })?;
        let binary = match data.y() {
            Target::Continuous(_) => false,
            Target::Classes { n_classes: 2, .. } => true,
            Target::Classes { n_classes, .. } => {
                return Err(CoreError::Fit(format!(
                    "the oracle predicts a continuous or binary target; this one has {n_classes} classes"
                )));
            }
        };
        Ok(Box::new(Oracle { truth, binary }))
    }
}

/// The fitted oracle.
struct Oracle {
    truth: Arc<dyn Truth>,
    binary: bool,
}

impl Model for Oracle {
    fn predict(&self, x: ArrayView2<'_, f64>) -> xai_core::error::Result<Predictions> {
        let mean = self.truth.mean(x);
        Ok(match self.binary {
            true => Predictions::binary(mean),
            false => Predictions::Gaussian {
                mean,
                var: self.truth.variance(x),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    /// Y = 2·x₀ + ε, Var(ε) = 0.5 + x₁² (heteroscedastic).
    struct Line;

    impl Truth for Line {
        fn mean(&self, x: ArrayView2<'_, f64>) -> Array1<f64> {
            x.column(0).mapv(|v| 2.0 * v)
        }

        fn variance(&self, x: ArrayView2<'_, f64>) -> Array1<f64> {
            x.column(1).mapv(|v| 0.5 + v * v)
        }
    }

    #[test]
    fn the_oracle_predicts_the_truth_it_is_given_and_refuses_to_run_without_one() {
        let x = array![[1.0, 0.0], [-0.5, 2.0]];
        let data = Dataset::new(
            x.clone(),
            Target::Continuous(array![0.0, 0.0]),
            vec!["a".into(), "b".into()],
        )
        .unwrap();
        let spec = OracleParams {
            truth: Some(Arc::new(Line)),
        };
        spec.validate().unwrap();
        let mut rng = xai_core::rng::stream_rng(1, 0);
        let model = spec.build().fit(&data, &mut rng).unwrap();
        assert_eq!(
            model.predict(x.view()).unwrap(),
            Predictions::Gaussian {
                mean: array![2.0, -1.0],
                var: array![0.5, 4.5],
            }
        );
        let bare = OracleParams::default();
        assert_eq!(bare.validate().unwrap_err().param(), "oracle");
        assert!(bare.build().fit(&data, &mut rng).is_err());
    }
}
