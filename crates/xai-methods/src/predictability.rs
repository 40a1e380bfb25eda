//! How well each feature is predicted from the others (wood2024 Fig. 9): the
//! cross-validated R² = 1 − Σ(x_j − x̂_j)²/Σ(x_j − x̄_j)² of the model's learner
//! predicting x_j from the other features (`r2_without_target`) and from the others
//! plus the target (`r2_with_target`), with out-of-fold predictions x̂_j, on every row
//! of the replicate.

use serde::Deserialize;
use xai_core::rng::StreamRng;

use crate::method::{Emitted, Input, Method, Plan};
use xai_models::LearnerKind;
use xai_results::{Invalid, Value, point};

/// `predictability:` settings.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PredictabilitySpec {
    /// Number of cross-validation folds (≥ 2).
    #[schemars(range(min = 2))]
    pub folds: usize,
}

const QUANTITIES: [(bool, &str); 2] = [(false, "r2_without_target"), (true, "r2_with_target")];

impl Method for PredictabilitySpec {
    fn compares_with_labels(&self) -> bool {
        false
    }

    fn quantities(&self) -> Vec<String> {
        QUANTITIES.iter().map(|(_, q)| q.to_string()).collect()
    }

    fn needs_fit(&self) -> bool {
        false
    }

    fn validate(&self, _plan: &Plan<'_>) -> Result<(), Invalid> {
        Ok(())
    }

    fn compute(&self, input: &Input<'_>, rng: &mut StreamRng) -> xai_core::error::Result<Emitted> {
        let all = input.all;
        let learner = input.learner.build();
        let mut out = Emitted::default();
        for j in 0..all.n_features() {
            for (with_target, quantity) in QUANTITIES {
                let r2 = xai_core::predictability::cv_r2(
                    learner.as_ref(),
                    all,
                    j,
                    with_target,
                    self.folds,
                    rng,
                )?;
                out.values.push(Value {
                    quantity: quantity.into(),
                    feature: all.feature_names()[j].clone(),
                    x: None,
                    estimate: point(r2, all.n_rows()),
                });
            }
        }
        Ok(out)
    }
}
