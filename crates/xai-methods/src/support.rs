//! How far the test rows leave the training data's range, per feature: the share
//!
//! s_j = (1/n_j)·Σᵢ 1[x_ij < min_k x̃_kj or x_ij > max_k x̃_kj]
//!
//! of the n_j non-missing test values x_ij outside the range of the training values
//! x̃_kj as they were before any covariate shift (the values the model was first fitted
//! on). A description of the data, no model: watson2023 §6 (Fig. 2) says its shifted
//! test values "rarely fall outside the support of training values for a given
//! feature". The range is the support's hull: a value between two levels of an integer
//! code counts as inside.

use serde::Deserialize;
use xai_core::rng::StreamRng;

use crate::method::{Emitted, Input, Method, Plan};
use xai_results::{Invalid, Value};

/// The quantity reported.
const QUANTITY: &str = "outside_training_range";

/// `support:` settings.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SupportSpec {
    /// The features reported (default: every feature).
    #[serde(default)]
    pub features: Option<Vec<String>>,
}

impl Method for SupportSpec {
    fn compares_with_labels(&self) -> bool {
        false
    }

    /// `outside_training_range`, per feature.
    fn quantities(&self) -> Vec<String> {
        vec![QUANTITY.into()]
    }

    fn model_free(&self) -> Vec<String> {
        self.quantities()
    }

    fn needs_fit(&self) -> bool {
        false
    }

    fn validate(&self, plan: &Plan<'_>) -> Result<(), Invalid> {
        crate::method::known_features(plan, self.features.iter().flatten())
    }

    fn compute(&self, input: &Input<'_>, _rng: &mut StreamRng) -> xai_core::error::Result<Emitted> {
        let train = input.train.before_shift();
        let values = crate::method::feature_indices(input.test, self.features.as_deref())
            .into_iter()
            .map(|j| {
                let indicators = outside(train.x().column(j), input.test.x().column(j));
                Value {
                    quantity: QUANTITY.into(),
                    feature: input.test.feature_names()[j].clone(),
                    x: None,
                    estimate: xai_core::t_interval(&indicators, input.level),
                }
            })
            .collect();
        Ok(Emitted {
            values,
            ..Default::default()
        })
    }
}

/// 1 for each non-missing value of `test` outside [min, max] of the non-missing
/// values of `train`, else 0 (every value when `train` has none).
fn outside(train: ndarray::ArrayView1<'_, f64>, test: ndarray::ArrayView1<'_, f64>) -> Vec<f64> {
    let (lo, hi) = train
        .iter()
        .filter(|v| !v.is_nan())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        });
    test.iter()
        .filter(|v| !v.is_nan())
        .map(|&v| f64::from(u8::from(v < lo || v > hi)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    /// Training values 1..=10 (an integer code), test values shifted by noise: the
    /// ends count only beyond the range, a value between two codes is inside, a
    /// missing value is not counted.
    #[test]
    fn counts_the_test_values_beyond_the_training_range() {
        let train = array![1.0, 3.0, 10.0, f64::NAN, 5.0];
        let test = array![0.4, 1.0, 2.5, 10.0, 10.2, f64::NAN];
        let flags = outside(train.view(), test.view());
        assert_eq!(flags, vec![1.0, 0.0, 0.0, 0.0, 1.0]);
        assert_eq!(outside(array![].view(), array![1.0].view()), vec![1.0]);
    }

    /// The range is the training values before the shift: a shifted training column
    /// does not widen it.
    #[test]
    fn the_range_is_the_unshifted_training_values() {
        let x = ndarray::Array2::from_shape_vec((3, 1), vec![1.0, 2.0, 3.0]).unwrap();
        let y = xai_core::Target::Continuous(array![0.0, 0.0, 0.0]);
        let train = xai_core::Dataset::new(x.clone(), y.clone(), vec!["a".into()]).unwrap();
        let shifted = train.with_shift(0, &[5.0, 5.0, 5.0]).unwrap();
        let test = xai_core::Dataset::new(x + 0.5, y, vec!["a".into()]).unwrap();
        let spec = SupportSpec { features: None };
        let learner: xai_models::LearnerSpec = serde_saphyr::from_str("lm: {}").unwrap();
        let input = Input::of_data(&shifted, &test, &learner);
        let out = spec
            .compute(&input, &mut xai_core::rng::stream_rng(1, 0))
            .unwrap();
        // 1.5 and 2.5 inside [1, 3], 3.5 outside; the shifted column is [6, 8].
        assert!((out.values[0].estimate.estimate - 1.0 / 3.0).abs() < 1e-15);
    }
}
