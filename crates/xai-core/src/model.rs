//! The model and learner traits every learner in `xai-models` implements.

use ndarray::ArrayView2;
use rand::Rng;

use crate::dataset::Dataset;
use crate::error::Result;
use crate::predictions::Predictions;
use crate::tree::TreeEnsembleView;

/// A fitted model: maps a design matrix to predictive distributions.
pub trait Model: Send + Sync {
    /// Predictive distributions for the rows of `x` (n × d, the training columns).
    fn predict(&self, x: ArrayView2<'_, f64>) -> Predictions;

    /// The model's trees, if it is a tree ensemble whose prediction is their mean
    /// (impurity importance, TreeSHAP); `None` otherwise.
    fn tree_ensemble(&self) -> Option<&dyn TreeEnsembleView> {
        None
    }
}

/// A learning algorithm with fixed hyperparameters; fitting it again (with a new RNG)
/// is what replicates and refits do.
pub trait Learner: Send + Sync {
    /// Fits a model to `data`; every random choice draws from `rng`.
    fn fit(&self, data: &Dataset, rng: &mut dyn Rng) -> Result<Box<dyn Model>>;
}
