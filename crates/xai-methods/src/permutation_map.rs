//! The entropy of a model's predictive distribution over the plane of two features,
//! with the test rows before and after one permutation of a feature (wood2024 Fig. 2,
//! drawn by the `permutation_map` plot). Computed on the first model of the first
//! replicate only; reports no quantity.

use ndarray::{Array1, Array2, ArrayView2};
use serde::Deserialize;
use xai_core::rng::{StreamRng, stream_rng};
use xai_core::{Dataset, Model, Perturbation, Statistic, Target};

use crate::method::{Emitted, Input, Method, Plan};
use xai_results::Invalid;
use xai_results::entropy_map::EntropyMap;

/// `permutation_map:` settings.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PermutationMapSpec {
    /// The permuted feature.
    pub feature: String,
    /// Grid cells per axis of the entropy map (≥ 2).
    #[serde(default = "default_resolution")]
    #[schemars(range(min = 2))]
    pub resolution: usize,
}

fn default_resolution() -> usize {
    80
}

impl Method for PermutationMapSpec {
    fn compares_with_labels(&self) -> bool {
        false
    }

    fn quantities(&self) -> Vec<String> {
        Vec::new()
    }

    fn predict_rows(&self, n_test: usize) -> usize {
        n_test.max(self.resolution.saturating_mul(self.resolution))
    }

    fn batch_setting(&self, _n_test: usize) -> &'static str {
        "resolution"
    }

    fn validate(&self, plan: &Plan<'_>) -> Result<(), Invalid> {
        crate::method::known_features(plan, [&self.feature])?;
        if plan.feature_names.is_some_and(|n| n.len() != 2) {
            return Err(Invalid::new(
                "permutation_map",
                "permutation_map needs data with exactly two features",
            ));
        }
        Ok(())
    }

    fn compute(&self, input: &Input<'_>, _rng: &mut StreamRng) -> xai_core::error::Result<Emitted> {
        if !input.first {
            return Ok(Emitted::default());
        }
        let map = entropy_map(
            input.model()?,
            input.test,
            &self.feature,
            self.resolution,
            input.seed,
        )?;
        Ok(Emitted {
            maps: vec![map],
            ..Default::default()
        })
    }
}

/// The map: a `resolution`² grid over the test rows' range padded by 5%, and the
/// test rows with `feature` permuted by stream (seed, 2⁶²).
fn entropy_map(
    model: &dyn Model,
    test: &Dataset,
    feature: &str,
    resolution: usize,
    seed: u64,
) -> xai_core::error::Result<EntropyMap> {
    let entropy = |x: ArrayView2<'_, f64>| {
        Statistic::Entropy.per_row(
            &model.predict(x)?,
            &Target::Continuous(Array1::zeros(x.nrows())),
        )
    };
    let axis = |j: usize| {
        let c = test.x().column(j).to_owned();
        let (lo, hi) = (
            c.fold(f64::INFINITY, |a, &b| a.min(b)),
            c.fold(f64::NEG_INFINITY, |a, &b| a.max(b)),
        );
        let pad = 0.05 * (hi - lo);
        (0..resolution)
            .map(|k| lo - pad + (hi - lo + 2.0 * pad) * k as f64 / (resolution - 1) as f64)
            .collect::<Vec<_>>()
    };
    let (xs, ys) = (axis(0), axis(1));
    let grid = Array2::from_shape_fn((resolution * resolution, 2), |(k, j)| {
        if j == 0 {
            xs[k / resolution]
        } else {
            ys[k % resolution]
        }
    });
    let map = entropy(grid.view())?
        .into_shape_with_order((resolution, resolution))
        .expect("r² values");
    let j = test
        .feature_names()
        .iter()
        .position(|n| n == feature)
        .ok_or_else(|| xai_core::CoreError::Invalid(format!("no feature `{feature}`")))?;
    let mut permuted = test.x().to_owned();
    Perturbation::Permutation { repeats: 1 }.apply(
        test.x(),
        j,
        0,
        permuted.column_mut(j),
        &mut stream_rng(seed, 1 << 62),
    );
    let classes = match test.y() {
        Target::Classes { labels, .. } => labels.to_vec(),
        Target::Continuous(_) => vec![0; test.n_rows()],
    };
    Ok(EntropyMap {
        xs,
        ys,
        entropy: map,
        before: entropy(test.x())?.to_vec(),
        after: entropy(permuted.view())?.to_vec(),
        points: test.x().to_owned(),
        permuted,
        classes,
        feature: feature.to_string(),
        axes: (
            test.feature_names()[0].clone(),
            test.feature_names()[1].clone(),
        ),
    })
}
