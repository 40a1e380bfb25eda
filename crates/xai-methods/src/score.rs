//! A model's score on the test rows: the mean of a per-row statistic,
//! (1/n)·Σᵢ s(q(· | x⁽ⁱ⁾), y⁽ⁱ⁾), with its t-interval (molnar2023 Eq. 6 and 8 applied
//! to the unperturbed rows). With `brier` over `folds: k` replicates the mean over
//! replicates is the k-fold cross-validated Brier score by which molnar2023 §5 chooses
//! its heart-disease model.

use serde::Deserialize;
use xai_core::Statistic;
use xai_core::rng::StreamRng;

use crate::method::{Emitted, Input, Method, Plan};
use xai_results::quantity::{Aggregation, Quantity};
use xai_results::{Invalid, Value};

/// `score:` settings.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScoreSpec {
    /// The per-row statistics averaged (`brier`, `nll`, `misclassification`, ...).
    pub statistics: Vec<Statistic>,
}

impl Method for ScoreSpec {
    fn compares_with_labels(&self) -> bool {
        self.statistics.iter().any(|s| s.needs_label())
    }

    /// `<statistic prefix>_score` (`brier_score`), one row per model with no feature.
    fn quantities(&self) -> Vec<String> {
        self.statistics
            .iter()
            .map(|&s| Quantity::of(s, None, Aggregation::Score).to_string())
            .collect()
    }

    fn validate(&self, _plan: &Plan<'_>) -> Result<(), Invalid> {
        crate::method::some_statistics(&self.statistics)
    }

    fn compute(&self, input: &Input<'_>, _rng: &mut StreamRng) -> xai_core::error::Result<Emitted> {
        let pred = input.model()?.predict(input.test.x())?;
        let values = self
            .statistics
            .iter()
            .zip(self.quantities())
            .map(|(s, quantity)| {
                let rows = s.per_row(&pred, input.test.y())?;
                Ok(Value {
                    quantity,
                    feature: String::new(),
                    x: None,
                    estimate: xai_core::t_interval(
                        rows.as_slice().expect("contiguous"),
                        input.level,
                    ),
                })
            })
            .collect::<xai_core::error::Result<Vec<_>>>()?;
        Ok(Emitted {
            values,
            ..Default::default()
        })
    }
}
