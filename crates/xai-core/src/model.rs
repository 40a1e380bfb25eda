//! The model and learner traits every learner in `xai-models` implements.

use ndarray::{Array2, ArrayView2, s};
use rand::Rng;

use crate::dataset::Dataset;
use crate::error::Result;
use crate::predictions::Predictions;
use crate::tree::TreeEnsembleView;

/// A fitted model: maps a design matrix to predictive distributions.
pub trait Model: Send + Sync {
    /// Predictive distributions for the rows of `x` (n × d, the training columns).
    ///
    /// Fallible, so that a model computed elsewhere (another language, a network's
    /// tensors) can report its failure: [`crate::CoreError::Predict`] carries its
    /// message to the caller.
    fn predict(&self, x: ArrayView2<'_, f64>) -> Result<Predictions>;

    /// Predictions for perturbed copies of the rows of `x` that differ from them in
    /// column `feature` only: row c·n + i of the result is row i of `x` with
    /// x_{i,feature} = `values[[c, i]]` (`values`: copies × n). Every perturbation
    /// (PFI's permutations and draws, PD's grid values) is such a set of copies.
    ///
    /// The default stacks the copies into one design matrix and calls
    /// [`Model::predict`]; a tree ensemble overrides it to walk each row through a
    /// tree once, parting the copies only at the nodes that test `feature`. Either
    /// way the numbers are those of [`Model::predict`] on the stacked copies.
    fn predict_replaced(
        &self,
        x: ArrayView2<'_, f64>,
        feature: usize,
        values: ArrayView2<'_, f64>,
    ) -> Result<Predictions> {
        predict_stacked(self, x, feature, values)
    }

    /// The model's trees, if it is a tree ensemble whose prediction is their mean
    /// (impurity importance, TreeSHAP); `None` otherwise.
    fn tree_ensemble(&self) -> Option<&dyn TreeEnsembleView> {
        None
    }

    /// The joint covariance of its mean predictions, if it has one (a GP's posterior,
    /// OLS's sampling covariance); `None` otherwise.
    fn mean_covariance(&self) -> Option<&dyn MeanCovariance> {
        None
    }

    /// The predictions of each member of an ensemble whose prediction is the members'
    /// mean, f(x) = (1/M)·Σ_m f^m(x) (a forest's trees; a network that draws its
    /// dropout masks or weight samples at fit time would expose those): one batch per member
    /// for the rows of `x`. They split the entropy of the mean into its aleatoric and
    /// epistemic parts (watson2023 §5). `Ok(None)` for a model without members.
    fn predict_members(&self, x: ArrayView2<'_, f64>) -> Result<Option<Vec<Predictions>>> {
        let _ = x;
        Ok(None)
    }

    /// The slopes β_1, …, β_d of a model linear in its features (for a classifier,
    /// of its linear predictor), one per feature in the feature's own units: OLS's
    /// coefficients, a logistic regression's or a linear SVM's weights (icefi2022
    /// Table 3 correlates ICE feature impact with their |β_j|·σ_j). `None` for other
    /// models, or when a feature has several design columns.
    fn coefficients(&self) -> Option<Vec<f64>> {
        None
    }

    /// The gradients of its members' log-odds in the inputs, if it is a binary
    /// classifier whose members are differentiable (a network's dropout passes or
    /// weight samples; expected gradients, [`crate::shapley::gradient`]); `None`
    /// otherwise.
    fn member_gradients(&self) -> Option<&dyn MemberGradients> {
        None
    }
}

/// A binary classifier of M members whose log-odds z_m(x) = log(P_m(y = 1 | x) /
/// P_m(y = 0 | x)) are differentiable in x (a network: its dropout masks or weight
/// samples fixed at fit time, [`Model::predict_members`]).
pub trait MemberGradients: Sync {
    /// z_m(x_i) for the rows of `x` (n × d): n × M.
    fn member_logits(&self, x: ArrayView2<'_, f64>) -> Result<Array2<f64>>;

    /// The vector–Jacobian product Σ_m c_{i,m}·∂z_m(x_i)/∂x_i (n × d, in the features'
    /// own units) with the cotangents c = `cotangent(z)` (n × M) computed from the
    /// logits z (n × M) of the same forward pass: the gradient of Σ_i h(z(x_i)) for a
    /// function h of the members' log-odds whose ∂h/∂z_m the closure returns.
    fn pullback(
        &self,
        x: ArrayView2<'_, f64>,
        cotangent: &dyn Fn(ArrayView2<'_, f64>) -> Array2<f64>,
    ) -> Result<Array2<f64>>;
}

/// A model whose mean predictions f̂(x_1), …, f̂(x_n) have a joint covariance
/// K = Cov(f̂(x_a), f̂(x_b)): the posterior covariance of a GP's latent mean (simple
/// kriging), or for OLS the sampling covariance D Σ̂_β Dᵀ (D the design rows with a
/// leading 1). molnar2023 §2.5 (Moosbauer et al. 2021, the "mod" band of Table 2)
/// needs the variance of an average of predictions, (1/n²)·1ᵀK1.
pub trait MeanCovariance {
    /// K (n × n) for the rows of `x` (the training columns), in the model's target
    /// units.
    fn covariance(&self, x: ArrayView2<'_, f64>) -> Array2<f64>;

    /// Var((1/n)·Σ_a f̂(x_a)) = (1/n²)·1ᵀK1 over the rows of `x`. The default sums
    /// [`MeanCovariance::covariance`]; a model with a cheaper closed form overrides it
    /// (it must agree to rounding).
    fn variance_of_average(&self, x: ArrayView2<'_, f64>) -> f64 {
        let n = x.nrows() as f64;
        self.covariance(x).sum() / (n * n)
    }
}

/// [`Model::predict_replaced`] by stacking the copies into one design matrix (n·copies
/// rows) and calling [`Model::predict`] once.
pub fn predict_stacked<M: Model + ?Sized>(
    model: &M,
    x: ArrayView2<'_, f64>,
    feature: usize,
    values: ArrayView2<'_, f64>,
) -> Result<Predictions> {
    let (copies, n) = values.dim();
    let mut stacked = Array2::zeros((copies * n, x.ncols()));
    for (c, v) in values.rows().into_iter().enumerate() {
        let mut block = stacked.slice_mut(s![c * n..(c + 1) * n, ..]);
        block.assign(&x);
        block.column_mut(feature).assign(&v);
    }
    model.predict(stacked.view())
}

/// A learning algorithm with fixed hyperparameters; fitting it again (with a new RNG)
/// is what replicates and refits do.
pub trait Learner: Send + Sync {
    /// Fits a model to `data`; every random choice draws from `rng`.
    fn fit(&self, data: &Dataset, rng: &mut dyn Rng) -> Result<Box<dyn Model>>;
}
