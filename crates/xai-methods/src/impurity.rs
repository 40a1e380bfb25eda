//! Impurity ("Gini", MDI) importance of a tree ensemble: per tree the decrease
//! Σ_{splits on j} [w·I(node) − w_l·I(left) − w_r·I(right)] normalised to sum 1,
//! averaged over the trees with a split and normalised again
//! (`xai_core::tree::impurity_importance`, scikit-learn's `feature_importances_`;
//! cid2021 Fig. 2-3).

use serde::Deserialize;
use xai_core::CoreError;
use xai_core::rng::StreamRng;

use crate::method::{Emitted, Input, Method, Plan};
use xai_results::{Invalid, Value, point};

/// `impurity_importance: {}` (no settings): reports `impurity_importance`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImpuritySpec {}

impl Method for ImpuritySpec {
    fn compares_with_labels(&self) -> bool {
        false
    }

    fn quantities(&self) -> Vec<String> {
        vec!["impurity_importance".into()]
    }

    fn validate(&self, plan: &Plan<'_>) -> Result<(), Invalid> {
        match crate::method::model_without(plan.models, |c| c.trees) {
            Some((name, l)) => Err(Invalid::new(
                "impurity_importance",
                format!(
                    "impurity_importance needs tree-ensemble models (random_forest, \
                     extra_trees, rpart, r_random_forest, xgboost); model `{name}` is {}",
                    l.name()
                ),
            )),
            None => Ok(()),
        }
    }

    fn compute(&self, input: &Input<'_>, _rng: &mut StreamRng) -> xai_core::error::Result<Emitted> {
        let train = input.train;
        let trees = input.model()?.tree_ensemble().ok_or_else(|| {
            CoreError::Capability("impurity_importance needs a tree-ensemble model".into())
        })?;
        let importance = xai_core::tree::impurity_importance(trees.trees(), train.n_features());
        let values = importance
            .iter()
            .zip(train.feature_names())
            .map(|(&v, f)| Value {
                quantity: "impurity_importance".into(),
                feature: f.clone(),
                x: None,
                estimate: point(v, train.n_rows()),
            })
            .collect();
        Ok(Emitted {
            values,
            ..Default::default()
        })
    }
}
