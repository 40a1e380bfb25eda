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
//! By default both stages use all training rows. A residual of a flexible f₀ on its
//! own training rows understates its error, so `base_share: s` fits f₀ on ⌊s·n⌋
//! training rows drawn at random and reads the statistic off, and fits f₁ on, the
//! other rows: the two batches of watson2023 §6.1, whose h learns the squared
//! residuals of f on a second sample.

use rand::Rng;
use rand::seq::SliceRandom;
use serde::Deserialize;
use xai_core::{Dataset, Learner, Model, Statistic, Target};

use crate::capabilities::Capabilities;
use crate::error::ParamError;
use crate::kind::LearnerKind;

/// `uncertainty: {base, statistic, model}`, its stages `L` any learner (a
/// [`LearnerSpec`](crate::LearnerSpec) in experiments; this module names none).
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UncertaintyParams<L> {
    /// f₀, the model whose uncertainty is modelled (e.g. `{xgboost: {rounds: 50}}`).
    pub base: Box<L>,
    /// The per-row statistic of f₀'s predictions that f₁ learns (default `entropy`;
    /// `squared_error` for the squared residual).
    #[serde(default = "entropy")]
    pub statistic: Statistic,
    /// f₁, a regressor of the statistic.
    pub model: Box<L>,
    /// The share of the training rows, drawn at random, that fit f₀ (in (0, 1));
    /// f₁ learns the rest.
    /// Default: all rows fit both.
    #[serde(default)]
    #[schemars(extend("exclusiveMinimum" = 0, "exclusiveMaximum" = 1))]
    pub base_share: Option<f64>,
}

fn entropy() -> Statistic {
    Statistic::Entropy
}

impl<L: LearnerKind + Clone + 'static> LearnerKind for UncertaintyParams<L> {
    /// Both stages' settings.
    fn validate(&self) -> Result<(), ParamError> {
        let nested = |within, r: Result<(), ParamError>| {
            r.map_err(|error| ParamError::Nested {
                within,
                error: Box::new(error),
            })
        };
        nested("base", self.base.validate())?;
        nested("model", self.model.validate())
    }

    /// The second stage's name: it is the fitted model.
    fn describe(&self) -> &'static str {
        self.model.describe()
    }

    /// What its second stage offers, and missing values if both stages take them;
    /// its predictions are not of the data's label, and its members' gradients are
    /// not exposed.
    fn capabilities(&self) -> Capabilities {
        let (base, model) = (self.base.capabilities(), self.model.capabilities());
        Capabilities {
            missing_values: base.missing_values && model.missing_values,
            predicts_label: false,
            gradients: false,
            ..model
        }
    }

    /// The larger of its stages' bytes, plus 8n (the label) and the base model's
    /// prediction on the n rows (the base model is kept while the second stage fits).
    fn fit_memory_bytes(&self, n: u128, d: u128) -> u128 {
        crate::memory::bytes(&[
            &[self
                .base
                .fit_memory_bytes(n, d)
                .max(self.model.fit_memory_bytes(n, d))],
            &[8, n],
            &[self.base.predict_memory_bytes(n, n, d)],
        ])
    }

    /// Its second stage's bytes.
    fn predict_memory_bytes(&self, n: u128, m: u128, d: u128) -> u128 {
        self.model.predict_memory_bytes(n, m, d)
    }

    fn build(&self) -> Box<dyn Learner> {
        Box::new(UncertaintyLearner(self.clone()))
    }
}

/// The two-stage learner of [`UncertaintyParams`].
pub struct UncertaintyLearner<L>(pub UncertaintyParams<L>);

impl<L: LearnerKind> Learner for UncertaintyLearner<L> {
    /// f₀ on the rows before any shift, then f₁ on (x, s(f₀(x), y)) of the rows as
    /// given (with `base_share`, each on its own part), from the same stream in that
    /// order.
    fn fit(&self, data: &Dataset, rng: &mut dyn Rng) -> xai_core::error::Result<Box<dyn Model>> {
        let n = data.n_rows();
        let (first, rest) = match self.0.base_share {
            Some(share) => {
                let cut = (share * n as f64).floor() as usize;
                if cut == 0 || cut == n {
                    return Err(xai_core::CoreError::out_of_range(
                        "base_share",
                        share,
                        format!("a share of the {n} rows that leaves each stage a row"),
                    ));
                }
                let mut order: Vec<usize> = (0..n).collect();
                order.shuffle(rng);
                let (a, b) = order.split_at(cut);
                (data.select_rows(a), data.select_rows(b))
            }
            None => (data.clone(), data.clone()),
        };
        let base = self.0.base.build().fit(&first.before_shift(), rng)?;
        let label = self
            .0
            .statistic
            .per_row(&base.predict(rest.x())?, rest.y())?;
        self.0
            .model
            .build()
            .fit(&rest.with_target(Target::Continuous(label))?, rng)
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

    /// The stages the tests use: a line (OLS) or a booster, from the registry.
    type Stage = crate::LearnerSpec;

    /// Lines (OLS) for both stages, f₁ learning f₀'s squared residuals.
    fn residual_lines(base_share: Option<f64>) -> UncertaintyParams<Stage> {
        UncertaintyParams {
            base: Box::new(Stage::Lm(LmParams::default())),
            statistic: Statistic::SquaredError,
            model: Box::new(Stage::Lm(LmParams::default())),
            base_share,
        }
    }

    fn booster(rounds: usize) -> Box<Stage> {
        Box::new(Stage::Xgboost(BoostingParams {
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
            base_share: None,
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
            let Predictions::Probabilities(p) = f0.predict(rows.x()).unwrap() else {
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
            assert_eq!(
                fitted.predict(rows.x()).unwrap(),
                by_hand.predict(rows.x()).unwrap()
            );
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
        let fitted = UncertaintyLearner(residual_lines(None))
            .fit(&data, &mut xai_core::rng::stream_rng(1, 0))
            .unwrap();
        let mean = Statistic::Prediction
            .per_row(&fitted.predict(x.view()).unwrap(), data.y())
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
            base_share: None,
        };
        assert!(
            UncertaintyLearner(params.clone())
                .fit(&data, &mut xai_core::rng::stream_rng(1, 0))
                .is_err()
        );
        let bad = UncertaintyParams {
            model: Box::new(Stage::Xgboost(BoostingParams {
                objective: Some(Objective::Logistic),
                base_score: 1.0,
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

    /// With `base_share`, f₀ fits a random ⌊s·n⌋ rows (drawn first from the stream)
    /// and f₁ the squared residuals of f₀ on the others, as fitted by hand; a share
    /// that leaves a stage without rows is refused.
    #[test]
    fn a_base_share_fits_the_stages_on_separate_rows() {
        use rand::seq::SliceRandom;
        let x = Array2::from_shape_fn((20, 1), |(i, _)| (i % 10) as f64);
        let y = Target::Continuous(Array1::from_iter(
            (0..20).map(|i| 2.0 * (i % 10) as f64 + if i % 3 == 0 { 3.0 } else { 0.0 }),
        ));
        let data = Dataset::new(x.clone(), y, vec!["a".into()]).unwrap();
        let params = residual_lines(Some(0.4));
        let fitted = UncertaintyLearner(params.clone())
            .fit(&data, &mut xai_core::rng::stream_rng(1, 0))
            .unwrap();
        let mut rng = xai_core::rng::stream_rng(1, 0);
        let mut order: Vec<usize> = (0..20).collect();
        order.shuffle(&mut rng);
        let (first, rest) = (data.select_rows(&order[..8]), data.select_rows(&order[8..]));
        let f0 = params.base.build().fit(&first, &mut rng).unwrap();
        let residuals = Statistic::SquaredError
            .per_row(&f0.predict(rest.x()).unwrap(), rest.y())
            .unwrap();
        let by_hand = params
            .model
            .build()
            .fit(
                &rest.with_target(Target::Continuous(residuals)).unwrap(),
                &mut rng,
            )
            .unwrap();
        assert_eq!(
            fitted.predict(x.view()).unwrap(),
            by_hand.predict(x.view()).unwrap()
        );
        // Fitted on all rows alike, the stages give another model.
        let same_rows = UncertaintyLearner(UncertaintyParams {
            base_share: None,
            ..params.clone()
        })
        .fit(&data, &mut xai_core::rng::stream_rng(1, 0))
        .unwrap();
        assert_ne!(
            fitted.predict(x.view()).unwrap(),
            same_rows.predict(x.view()).unwrap()
        );
        let tiny = data.select_rows(&[0]);
        let err = UncertaintyLearner(params.clone())
            .fit(&tiny, &mut xai_core::rng::stream_rng(1, 0))
            .err()
            .unwrap();
        assert!(err.to_string().contains("leaves each stage a row"), "{err}");
    }
}
