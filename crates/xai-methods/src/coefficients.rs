//! The slopes of a model linear in its features ([`xai_core::Model::coefficients`]):
//! `coefficient` = β_j, or with `standardised` β_j·σ_j, σ_j the population sd of
//! feature j over the training rows: the slope per sd, which for OLS equals its ICE
//! feature impact up to sign (icefi2022 Eq. 1: FI = |β_j|·σ_j, σ_j over the explained
//! rows: the same rows with `test_fraction: 0`), and which for
//! a logistic regression or SVM fitted on z-scored features is scikit-learn's `coef_`
//! (icefi2022 Table 3).

use serde::Deserialize;
use xai_core::rng::StreamRng;
use xai_core::{CoreError, FeatureKind};
use xai_models::Coefficients;

use crate::method::{Emitted, Input, Method, Plan};
use xai_results::{Invalid, Value, point};

/// `coefficients: {standardised}`: reports `coefficient` per feature.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CoefficientsSpec {
    /// Report β_j·σ_j instead of β_j.
    #[serde(default)]
    pub standardised: bool,
}

impl Method for CoefficientsSpec {
    fn compares_with_labels(&self) -> bool {
        false
    }

    fn quantities(&self) -> Vec<String> {
        vec!["coefficient".into()]
    }

    fn validate(&self, plan: &Plan<'_>) -> Result<(), Invalid> {
        if let Some((name, l)) = crate::method::model_without(plan.models, |c| c.has_coefficients())
        {
            return Err(Invalid::new(
                "coefficients",
                format!(
                    "coefficients needs models linear in their features (lm, \
                     logistic_regression, svc); model `{name}` is {}",
                    l.name()
                ),
            ));
        }
        // A categorical feature takes several design columns, so no one slope.
        let categorical = plan.loaded.and_then(|d| {
            d.feature_kinds()
                .iter()
                .position(|k| matches!(k, FeatureKind::Categorical { .. }))
                .map(|j| d.feature_names()[j].clone())
        });
        if let Some(feature) = categorical
            && let Some((name, l)) = crate::method::model_without(plan.models, |c| {
                c.coefficients != Coefficients::ContinuousFeatures
            })
        {
            return Err(Invalid::new(
                "coefficients",
                format!(
                    "model `{name}` ({}) has one slope per feature only when every feature \
                     is continuous, but `{feature}` is categorical (several design columns); \
                     drop it from the data or use lm",
                    l.name()
                ),
            ));
        }
        Ok(())
    }

    fn compute(&self, input: &Input<'_>, _rng: &mut StreamRng) -> xai_core::error::Result<Emitted> {
        let train = input.train;
        let beta = input.model()?.coefficients().ok_or_else(|| {
            CoreError::Invalid(
                "this model has no per-feature coefficients (a categorical feature has several \
                 design columns)"
                    .into(),
            )
        })?;
        let values = beta
            .iter()
            .zip(train.feature_names())
            .enumerate()
            .map(|(j, (&b, f))| {
                let scale = match self.standardised {
                    true => train.x().column(j).std(0.0),
                    false => 1.0,
                };
                Value {
                    quantity: "coefficient".into(),
                    feature: f.clone(),
                    x: None,
                    estimate: point(b * scale, train.n_rows()),
                }
            })
            .collect();
        Ok(Emitted {
            values,
            ..Default::default()
        })
    }
}
