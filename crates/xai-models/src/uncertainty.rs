//! A model of another model's uncertainty, the two stages of watson2023 §6 (Fig. 2):
//! a base model f₀ is fitted on the training rows, a statistic of its predictive
//! distribution is read off each training row,
//!
//!   u⁽ⁱ⁾ = s(f₀(· | x⁽ⁱ⁾), y⁽ⁱ⁾),
//!
//! e.g. the entropy H = −Σ_c p_c·log p_c of a classifier's probabilities (the plug-in
//! total entropy h_t of watson2023 §5; binary: −p log p − (1 − p) log(1 − p)), or the
//! squared residual (y − f₀(x))² of a regressor (the paper's h of §6.1), and a second
//! model f₁ regresses u on x. The fitted model is f₁: it predicts, and is explained
//! (TreeSHAP of f₁ attributes f₀'s uncertainty to the features).
//!
//! Under a covariate shift ([`xai_core::Dataset::with_shift`]) f₀ is a model deployed
//! before it: it is fitted on the rows as they were ([`xai_core::Dataset::before_shift`])
//! and not refitted, while its uncertainty is read off, and f₁ fitted on, the shifted
//! rows (watson2023 Fig. 2, "Perturbed").
//!
//! Both stages use the same training rows: a residual of a flexible f₀ on its own
//! training rows understates its error (the authors' code fits h on a second sample
//! and on the true variance instead; PAPERS.md §4.3).

use rand::Rng;
use serde::Deserialize;
use xai_core::{Dataset, Learner, Model, Statistic, Target};

use crate::error::ParamError;
use crate::registry::LearnerSpec;

/// `uncertainty: {base, statistic, model}`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UncertaintyParams {
    /// f₀, the model whose uncertainty is modelled (e.g. `{xgboost: {rounds: 50}}`).
    pub base: Box<LearnerSpec>,
    /// The per-row statistic of f₀'s predictions that f₁ learns (default `entropy`;
    /// `squared_error` for the squared residual).
    #[serde(default = "entropy")]
    pub statistic: Statistic,
    /// f₁, a regressor of the statistic.
    pub model: Box<LearnerSpec>,
}

fn entropy() -> Statistic {
    Statistic::Entropy
}

impl UncertaintyParams {
    /// Both stages' settings.
    pub fn validate(&self) -> Result<(), ParamError> {
        let nested = |within, r: Result<(), ParamError>| {
            r.map_err(|error| ParamError::Nested {
                within,
                error: Box::new(error),
            })
        };
        nested("base", self.base.validate())?;
        nested("model", self.model.validate())
    }
}

/// The two-stage learner of [`UncertaintyParams`].
pub struct UncertaintyLearner(pub UncertaintyParams);

impl Learner for UncertaintyLearner {
    /// f₀ on the rows before any shift, then f₁ on (x, s(f₀(x), y)) of the rows as
    /// given, from the same stream in that order.
    fn fit(&self, data: &Dataset, rng: &mut dyn Rng) -> xai_core::error::Result<Box<dyn Model>> {
        let base = self.0.base.build().fit(&data.before_shift(), rng)?;
        let label = self
            .0
            .statistic
            .per_row(&base.predict(data.x()), data.y())?;
        self.0
            .model
            .build()
            .fit(&data.with_target(Target::Continuous(label))?, rng)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::boosting::{BoostingParams, Objective};
    use crate::lm::LmParams;
    use ndarray::{Array1, Array2};
    use xai_core::Predictions;

    fn classes(x: &Array2<f64>) -> Target {
        Target::Classes {
            labels: x
                .rows()
                .into_iter()
                .map(|r| usize::from(r[0] > 0.5))
                .collect(),
            n_classes: 2,
        }
    }

    fn booster(rounds: usize) -> Box<LearnerSpec> {
        Box::new(LearnerSpec::Xgboost(BoostingParams {
            rounds,
            ..Default::default()
        }))
    }

    /// f₁ fitted by hand on the entropy of f₀'s probabilities is the learner's model;
    /// under a shift f₀ is the model of the unshifted rows, f₁ learns the shifted
    /// rows' entropy.
    #[test]
    fn the_second_stage_learns_the_first_stages_entropy_before_and_after_a_shift() {
        let x = Array2::from_shape_fn((80, 2), |(i, j)| ((i * (3 + j)) % 29) as f64 / 29.0);
        let data = Dataset::new(x.clone(), classes(&x), vec!["a".into(), "b".into()]).unwrap();
        let params = UncertaintyParams {
            base: booster(5),
            statistic: Statistic::Entropy,
            model: booster(5),
        };
        let noise: Vec<f64> = (0..80)
            .map(|i| 0.3 * ((i % 7) as f64 - 3.0) / 3.0)
            .collect();
        let shifted = data.with_shift(0, &noise).unwrap();
        for rows in [&data, &shifted] {
            let mut rng = xai_core::rng::stream_rng(3, 0);
            let fitted = UncertaintyLearner(params.clone())
                .fit(rows, &mut rng)
                .unwrap();
            let mut rng = xai_core::rng::stream_rng(3, 0);
            let f0 = params.base.build().fit(&data, &mut rng).unwrap();
            let Predictions::Probabilities(p) = f0.predict(rows.x()) else {
                panic!("a classifier's probabilities")
            };
            let h: Array1<f64> = p
                .rows()
                .into_iter()
                .map(|q| -(q[0] * q[0].ln() + q[1] * q[1].ln()))
                .collect();
            let by_hand = params
                .model
                .build()
                .fit(&rows.with_target(Target::Continuous(h)).unwrap(), &mut rng)
                .unwrap();
            assert_eq!(fitted.predict(rows.x()), by_hand.predict(rows.x()));
            assert!(fitted.tree_ensemble().is_some());
        }
    }

    /// The squared-residual label: f₀ a line through y = 2x exactly, so every
    /// residual is 0 and f₁ (a line) predicts 0 everywhere; a wrong label would not.
    #[test]
    fn squared_residuals_of_an_exact_fit_are_zero() {
        let x = Array2::from_shape_fn((20, 1), |(i, _)| i as f64);
        let y = Target::Continuous(x.column(0).mapv(|v| 2.0 * v));
        let data = Dataset::new(x.clone(), y, vec!["a".into()]).unwrap();
        let lm = || Box::new(LearnerSpec::Lm(LmParams::default()));
        let params = UncertaintyParams {
            base: lm(),
            statistic: Statistic::SquaredError,
            model: lm(),
        };
        let fitted = UncertaintyLearner(params)
            .fit(&data, &mut xai_core::rng::stream_rng(1, 0))
            .unwrap();
        let mean = Statistic::Prediction
            .per_row(&fitted.predict(x.view()), data.y())
            .unwrap();
        assert!(mean.iter().all(|m| m.abs() < 1e-9), "{mean}");
    }

    #[test]
    fn a_base_without_a_distribution_or_a_bad_nested_setting_is_refused() {
        let data = Dataset::new(
            Array2::from_shape_fn((10, 1), |(i, _)| i as f64),
            Target::Continuous(Array1::from_iter((0..10).map(|i| (i % 3) as f64))),
            vec!["a".into()],
        )
        .unwrap();
        // A booster's point predictions have no entropy.
        let params = UncertaintyParams {
            base: booster(2),
            statistic: Statistic::Entropy,
            model: booster(2),
        };
        assert!(
            UncertaintyLearner(params.clone())
                .fit(&data, &mut xai_core::rng::stream_rng(1, 0))
                .is_err()
        );
        let bad = UncertaintyParams {
            model: Box::new(LearnerSpec::Xgboost(BoostingParams {
                rounds: 0,
                objective: Some(Objective::SquaredError),
                ..Default::default()
            })),
            ..params
        };
        assert!(matches!(
            bad.validate(),
            Err(ParamError::Nested {
                within: "model",
                ..
            })
        ));
    }
}
