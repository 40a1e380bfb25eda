//! How informative one feature alone is of a binary class, bin by bin, on the
//! training rows: for the K + 1 bins B_b = [e_b, e_{b+1}) of the feature x_j given by
//! the edges e_0 < … < e_K (B_0 reaches down to −∞, and B_K = [e_K, +∞)), the
//! share of the positive class
//!
//! p̂_b = (1/n_b)·Σ_{i: x_ij ∈ B_b} 1[y_i = 1]
//!
//! (`class_share`, with the t-interval of the indicators) and the label entropy
//! H_b = −p̂_b·log p̂_b − (1 − p̂_b)·log(1 − p̂_b) in nats (`class_entropy`; 0·log 0 = 0),
//! each reported at x = e_b. A description of the data, no model: wood2024 §5.3
//! (Fig. 12) reads the training histogram of plasma glucose by class — "at extreme
//! values, the feature is strongly informative of class label, but at values in the
//! region 100–170, both classes are present with high frequency" — which is H_b high
//! inside that region and low at its edges. Missing values are left out.

use serde::Deserialize;
use xai_core::rng::StreamRng;
use xai_core::{CoreError, Target};

use crate::method::{Emitted, Input, Method, Plan};
use xai_results::{Invalid, Value};

/// `class_shares:` settings.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClassSharesSpec {
    /// The binned feature.
    pub feature: String,
    /// The bin edges e_0 < e_1 < … < e_K (at least two): K + 1 bins [e_b, e_{b+1}),
    /// the first extended down to −∞, the last [e_K, +∞).
    pub edges: Vec<f64>,
}

impl Method for ClassSharesSpec {
    fn compares_with_labels(&self) -> bool {
        false
    }

    /// `class_share` and `class_entropy`, per bin (x = its lower edge).
    fn quantities(&self) -> Vec<String> {
        vec!["class_share".into(), "class_entropy".into()]
    }

    fn model_free(&self) -> Vec<String> {
        self.quantities()
    }

    fn needs_fit(&self) -> bool {
        false
    }

    fn validate(&self, plan: &Plan<'_>) -> Result<(), Invalid> {
        crate::method::known_features(plan, [&self.feature])?;
        if self.edges.len() < 2
            || self.edges.windows(2).any(|w| w[0] >= w[1])
            || self.edges.iter().any(|e| !e.is_finite())
        {
            return Err(Invalid::new(
                "edges",
                format!(
                    "class_shares needs at least two finite, increasing bin edges (e.g. \
                     [0, 100, 170]), got {:?}",
                    self.edges
                ),
            ));
        }
        Ok(())
    }

    fn compute(&self, input: &Input<'_>, _rng: &mut StreamRng) -> xai_core::error::Result<Emitted> {
        let data = input.train;
        let labels = match data.y() {
            Target::Classes {
                labels,
                n_classes: 2,
            } => labels,
            _ => {
                return Err(CoreError::Invalid(
                    "class_shares needs a binary class target (classes 0 and 1); \
                     use it on a classification dataset with two classes"
                        .into(),
                ));
            }
        };
        let j = crate::method::feature_indices(data, Some(std::slice::from_ref(&self.feature)))[0];
        let mut bins: Vec<Vec<f64>> = vec![Vec::new(); self.edges.len()];
        for (&x, &y) in data.x().column(j).iter().zip(labels) {
            if !x.is_nan() {
                bins[bin_of(&self.edges, x)].push(f64::from(u8::from(y == 1)));
            }
        }
        let mut out = Emitted::default();
        for (indicators, &edge) in bins.iter().zip(&self.edges) {
            let share = xai_core::t_interval(indicators, input.level);
            let p = share.estimate;
            // An empty bin has no share and no entropy (NaN), not entropy 0; a pure
            // bin's −0 is written as 0.
            let entropy = match indicators.is_empty() {
                true => f64::NAN,
                false => xai_core::statistic::categorical_entropy([p, 1.0 - p].into_iter()) + 0.0,
            };
            for (quantity, estimate) in [
                ("class_share", share),
                (
                    "class_entropy",
                    xai_results::point(entropy, indicators.len()),
                ),
            ] {
                out.values.push(Value {
                    quantity: quantity.into(),
                    feature: self.feature.clone(),
                    x: Some(edge),
                    estimate,
                });
            }
        }
        Ok(out)
    }
}

/// The bin of `x`: the last b with e_b ≤ x (0 below e_0).
fn bin_of(edges: &[f64], x: f64) -> usize {
    edges.partition_point(|&e| e <= x).saturating_sub(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array2, array};

    /// The method with bins (−∞, 10) and [10, ∞) of feature `g` on `data`.
    fn shares_in_two_bins(data: &xai_core::Dataset) -> xai_core::error::Result<Emitted> {
        let spec = ClassSharesSpec {
            feature: "g".into(),
            edges: vec![0.0, 10.0],
        };
        let learner: xai_models::LearnerSpec = serde_saphyr::from_str("lm: {}").unwrap();
        spec.compute(
            &Input::of_data(data, data, &learner),
            &mut xai_core::rng::stream_rng(1, 0),
        )
    }

    #[test]
    fn the_outer_bins_reach_to_infinity() {
        let edges = [0.0, 100.0, 170.0];
        let bins: Vec<usize> = [-5.0, 0.0, 99.9, 100.0, 169.0, 170.0, 1e9]
            .iter()
            .map(|&x| bin_of(&edges, x))
            .collect();
        assert_eq!(bins, vec![0, 0, 0, 1, 1, 2, 2]);
    }

    /// Bin [0, 10): classes 0, 0, 0, 1 (share 1/4, entropy H(1/4)); bin [10, ∞): 1, 1
    /// (share 1, entropy 0); the missing value is left out.
    #[test]
    fn shares_and_entropies_per_bin() {
        let x =
            Array2::from_shape_vec((7, 1), vec![1.0, 2.0, 3.0, 4.0, 12.0, 15.0, f64::NAN]).unwrap();
        let y = Target::Classes {
            labels: array![0, 0, 0, 1, 1, 1, 0],
            n_classes: 2,
        };
        let data = xai_core::Dataset::with_missing_values(
            x,
            y,
            vec!["g".into()],
            vec![xai_core::dataset::FeatureKind::Continuous],
        )
        .unwrap();
        let out = shares_in_two_bins(&data).unwrap();
        let get = |q: &str, x: f64| {
            let v = out
                .values
                .iter()
                .find(|v| v.quantity == q && v.x == Some(x))
                .unwrap();
            (v.estimate.estimate, v.estimate.n)
        };
        let h = -(0.25f64 * 0.25f64.ln() + 0.75 * 0.75f64.ln());
        assert_eq!(get("class_share", 0.0), (0.25, 4));
        assert!((get("class_entropy", 0.0).0 - h).abs() < 1e-15);
        assert_eq!(get("class_share", 10.0), (1.0, 2));
        assert!(get("class_entropy", 10.0).0.to_bits() == 0f64.to_bits());
    }

    /// A bin without rows has no entropy (NaN), so it cannot pass for an informative
    /// one.
    #[test]
    fn an_empty_bin_has_no_entropy() {
        let x = Array2::from_shape_vec((2, 1), vec![1.0, 2.0]).unwrap();
        let y = Target::Classes {
            labels: array![0, 1],
            n_classes: 2,
        };
        let data = xai_core::Dataset::new(x, y, vec!["g".into()]).unwrap();
        let out = shares_in_two_bins(&data).unwrap();
        let upper: Vec<f64> = out
            .values
            .iter()
            .filter(|v| v.x == Some(10.0))
            .map(|v| v.estimate.estimate)
            .collect();
        assert_eq!(upper.len(), 2);
        assert!(upper.iter().all(|v| v.is_nan()), "{upper:?}");
    }

    #[test]
    fn edges_must_increase() {
        let models = std::collections::BTreeMap::new();
        let plan = Plan {
            feature_names: None,
            n_train: None,
            n_test: None,
            models: &models,
            earlier: &[],
            dgp: None,
            loaded: None,
        };
        for edges in [
            vec![1.0],
            vec![1.0, 1.0],
            vec![0.0, f64::NAN],
            vec![2.0, 1.0],
        ] {
            let spec = ClassSharesSpec {
                feature: "g".into(),
                edges,
            };
            assert_eq!(spec.validate(&plan).unwrap_err().field, "edges");
        }
    }

    #[test]
    fn a_regression_target_is_refused() {
        let x = Array2::from_shape_vec((2, 1), vec![1.0, 2.0]).unwrap();
        let data =
            xai_core::Dataset::new(x, Target::Continuous(array![0.5, 1.5]), vec!["g".into()])
                .unwrap();
        let err = shares_in_two_bins(&data).unwrap_err();
        assert!(err.to_string().contains("binary class target"), "{err}");
    }
}
