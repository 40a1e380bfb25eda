//! A multilayer perceptron of ReLU units, trained by minibatch Adam, optionally with
//! dropout kept on at prediction (MC dropout, Gal & Ghahramani 2016).
//!
//! - Binary target: one logit, binary cross-entropy; the defaults are scikit-learn's
//!   `MLPClassifier()` (one hidden layer of 100 units, Adam 1e-3, α = 1e-4, batches of
//!   min(200, n), 200 epochs, Glorot-uniform initial weights), except that early
//!   stopping runs only when `flat_epochs` is set (scikit-learn's is on by default,
//!   `n_iter_no_change = 10`; wood2024 Fig. 1 sets it). Not scikit-learn's bits: f32
//!   (scikit-learn computes in f64), and Adam's ε added to √v̂ as Kingma & Ba's
//!   Algorithm 1 and PyTorch do (scikit-learn adds it to √v, a difference of
//!   ε·(1/√(1 − β₂ᵗ) − 1)).
//! - Continuous target: two outputs, the mean and log-variance of a Gaussian on the
//!   z-scored target, Gaussian NLL (the heteroscedastic MC-dropout regressor of
//!   wood2024 Fig. 8/10, PAPERS.md §1.2: d → 50 → 50 → 2, p = 0.1, T = 100).
//!
//! Loss per batch B: the head's mean NLL + α/(2|B|)·Σ_l ‖W_l‖² (scikit-learn's L2 term;
//! PyTorch's `weight_decay = λ` is about α = λ·|B|: PyTorch also decays the biases). With `dropout: p`, each hidden layer's
//! output is multiplied by an inverted-dropout mask during training; at the end of the
//! fit `passes: T` masks per hidden layer are drawn, shared by every row, and each
//! gives one member network (`thinned`). T identical members when p = 0.
//! Early stopping only when `flat_epochs` is set.

use candle_core::{Tensor, Var};
use rand::Rng;
use serde::Deserialize;
use xai_core::{CoreError, Dataset, Learner, Model};

use super::head::Head;
use super::net::{self, Dense, Member, Network, Schedule};
use crate::capabilities::Capabilities;
use crate::kind::LearnerKind;

/// `mlp:` settings (all optional in YAML).
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct MlpParams {
    /// Units of each hidden layer (each ≥ 1; at least one layer). Default `[100]`.
    #[schemars(length(min = 1), inner(range(min = 1)))]
    pub hidden: Vec<usize>,
    /// Dropout probability after each hidden layer, in [0, 1). Default 0.
    #[schemars(range(min = 0), extend("exclusiveMaximum" = 1))]
    pub dropout: f64,
    /// Members at prediction: dropout masks drawn once after training (≥ 1; MC
    /// dropout's T). Default 1.
    #[schemars(range(min = 1))]
    pub passes: usize,
    /// Passes over the training rows (≥ 1). Default 200.
    #[schemars(range(min = 1))]
    pub epochs: usize,
    /// Rows per Adam step (≥ 1; capped at n). Default 200.
    #[schemars(range(min = 1))]
    pub batch_size: usize,
    /// Adam's step size (> 0). Default 0.001.
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub learning_rate: f64,
    /// L2 penalty α ≥ 0 (scikit-learn's `alpha`, module doc). Default 0.0001.
    #[schemars(range(min = 0))]
    pub alpha: f64,
    /// Early stopping: stop after more than this many epochs whose mean loss is not
    /// 1e-4 below the best (scikit-learn's `n_iter_no_change = 10`). Default: none,
    /// every epoch runs.
    pub flat_epochs: Option<usize>,
}

impl Default for MlpParams {
    fn default() -> Self {
        Self {
            hidden: vec![100],
            dropout: 0.0,
            passes: 1,
            epochs: 200,
            batch_size: 200,
            learning_rate: 1e-3,
            alpha: 1e-4,
            flat_epochs: None,
        }
    }
}

impl LearnerKind for MlpParams {
    /// Each setting within the range its field declares
    /// ([`xai_core::settings::check_value`]).
    fn validate(&self) -> Result<(), crate::ParamError> {
        Ok(xai_core::settings::check_value(self)?)
    }

    /// Peak bytes of a fit on n rows of d features (`net::Footprint`).
    fn fit_memory_bytes(&self, n: u128, d: u128) -> u128 {
        net::Footprint::of(d as usize, &self.hidden).fit_bytes(
            n,
            d,
            self.batch_size as u128,
            self.passes as u128,
            4,
        )
    }

    /// Peak bytes of one prediction on m rows of d features (`net::Footprint`).
    fn predict_memory_bytes(&self, _n: u128, m: u128, d: u128) -> u128 {
        net::Footprint::of(d as usize, &self.hidden).predict_bytes(m, d, self.passes as u128)
    }

    /// The learner's name in words: "MC-dropout network" with dropout, else "MLP".
    fn describe(&self) -> &'static str {
        if self.dropout > 0.0 {
            "MC-dropout network"
        } else {
            "MLP"
        }
    }

    /// [`Capabilities::NETWORK`].
    fn capabilities(&self) -> Capabilities {
        Capabilities::NETWORK
    }

    fn build(&self) -> Box<dyn Learner> {
        Box::new(MlpLearner(self.clone()))
    }
}
/// The MLP / MC-dropout learner.
#[derive(Debug, Clone, Default)]
pub struct MlpLearner(pub MlpParams);

impl Learner for MlpLearner {
    fn fit(&self, data: &Dataset, rng: &mut dyn Rng) -> xai_core::error::Result<Box<dyn Model>> {
        Ok(Box::new(fit(&self.0, data, rng)?))
    }
}

/// Fits the network (module doc): initial weights, then the epochs, then the T
/// members' masks, all from `rng` in that order.
pub fn fit(params: &MlpParams, data: &Dataset, rng: &mut dyn Rng) -> Result<Network, CoreError> {
    params.validate()?;
    net::fit(
        data,
        params.describe(),
        net::Scaling::ZScore,
        rng,
        Box::new(|head, x, y, rng| members(params, head, x, y, rng)),
    )
}

/// Trains on the z-scored rows `x` and targets `y`, then draws the members.
fn members(
    params: &MlpParams,
    head: &Head,
    x: &Tensor,
    y: &Tensor,
    rng: &mut dyn Rng,
) -> candle_core::Result<Vec<Box<dyn Member>>> {
    let (n, d) = x.dims2()?;
    let mut vars = Vec::new();
    for (i, o) in net::layer_shapes(d, &params.hidden, head.outputs()) {
        let (w, b) = net::glorot(rng, i, o)?;
        vars.push(Var::from_tensor(&w)?);
        vars.push(Var::from_tensor(&b)?);
    }
    let layers = |vars: &[Var]| -> Vec<Dense> {
        vars.chunks(2)
            .map(|v| (v[0].as_tensor().clone(), v[1].as_tensor().clone()))
            .collect()
    };
    let schedule = Schedule {
        epochs: params.epochs,
        batch_size: params.batch_size,
        learning_rate: params.learning_rate,
        flat_epochs: params.flat_epochs,
        momentum: None,
    };
    let p = params.dropout;
    let what = params.describe();
    net::train(vars.clone(), n, schedule, what, rng, |rows, rng| {
        let current = layers(&vars);
        let dropout = (p > 0.0).then_some((rng, p));
        let out = net::forward(&current, &x.index_select(rows, 0)?, dropout)?;
        let loss = head.loss(&out, &y.index_select(rows, 0)?)?;
        if params.alpha == 0.0 {
            return Ok(loss);
        }
        let penalty = params.alpha / (2.0 * rows.dims1()? as f64);
        loss + (net::weights_squared(&current)? * penalty)?
    })?;
    let fitted: Vec<Dense> = layers(&vars)
        .into_iter()
        .map(|(w, b)| (w.detach(), b.detach()))
        .collect();
    (0..params.passes)
        .map(|_| {
            let masks = fitted[..fitted.len() - 1]
                .iter()
                .map(|(w, _)| net::dropout_mask(rng, w.dims2()?.1, 1, p))
                .collect::<candle_core::Result<Vec<_>>>()?;
            Ok(Box::new(net::thinned(&fitted, &masks)?) as Box<dyn Member>)
        })
        .collect()
}
