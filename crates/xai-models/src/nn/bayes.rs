//! Bayes by backprop (Blundell et al. 2015): a ReLU network whose every weight has a
//! Gaussian posterior q(w) = N(μ, σ²), σ = softplus(ρ) = log(1 + e^ρ), against a
//! prior N(0, σ_p²), trained by minimising the minibatch ELBO
//!
//!   L(B) = (1/|B|)·Σ_(i∈B) −log q(y_i | x_i, w) + KL(q ‖ p)/N,   w = μ + σ ⊙ ε,
//!
//! with one ε ~ N(0, I) per step (the reparameterisation trick; Blundell et al. Eq. 2
//! with the KL in closed form and scaled by the N training rows, PAPERS.md §1.2) and
//! KL(N(μ, σ²) ‖ N(0, σ_p²)) = log(σ_p/σ) + (σ² + μ²)/(2σ_p²) − ½ per weight.
//! After training, `samples: S` weight draws are the members; the prediction is the
//! mean of their probabilities. Defaults: wood2024 Fig. 11–15's [proposal] 8 → 32 → 1
//! network, σ_p = 1, σ initialised at 0.01, Adam 1e-3, batches of 32, 1000 epochs,
//! S = 100. A continuous target gets the Gaussian head of [`super::mlp`].

use candle_core::{Tensor, Var};
use rand::Rng;
use rand_distr::{Distribution, StandardNormal};
use serde::Deserialize;
use xai_core::{CoreError, Dataset, Learner, Model};

use super::head::{Head, softplus};
use super::net::{self, Dense, Member, Network, Schedule};
use crate::capabilities::Capabilities;
use crate::kind::LearnerKind;

/// `bayes_by_backprop:` settings (all optional in YAML).
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct BayesParams {
    /// Units of each hidden layer. Default `[32]`.
    #[schemars(length(min = 1), inner(range(min = 1)))]
    pub hidden: Vec<usize>,
    /// The prior's sd σ_p (> 0). Default 1.
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub prior_sd: f64,
    /// Every weight's posterior sd at the start (in [1e-6, 10], where f32 holds ρ =
    /// log(e^σ − 1) and softplus(ρ) to a few digits).
    /// Default 0.01.
    #[schemars(range(min = 1e-6, max = 10))]
    pub initial_sd: f64,
    /// Weight samples at prediction (≥ 1; the members). Default 100.
    #[schemars(range(min = 1))]
    pub samples: usize,
    /// Passes over the training rows (≥ 1). Default 1000.
    #[schemars(range(min = 1))]
    pub epochs: usize,
    /// Rows per Adam step (≥ 1; capped at n). Default 32.
    #[schemars(range(min = 1))]
    pub batch_size: usize,
    /// Adam's step size (> 0). Default 0.001.
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub learning_rate: f64,
}

impl Default for BayesParams {
    fn default() -> Self {
        Self {
            hidden: vec![32],
            prior_sd: 1.0,
            initial_sd: 0.01,
            samples: 100,
            epochs: 1000,
            batch_size: 32,
            learning_rate: 1e-3,
        }
    }
}

impl LearnerKind for BayesParams {
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
            self.samples as u128,
            10,
        )
    }

    /// Peak bytes of one prediction on m rows of d features (`net::Footprint`).
    fn predict_memory_bytes(&self, _n: u128, m: u128, d: u128) -> u128 {
        net::Footprint::of(d as usize, &self.hidden).predict_bytes(m, d, self.samples as u128)
    }

    fn describe(&self) -> &'static str {
        "Bayes-by-backprop network"
    }

    /// [`Capabilities::NETWORK`].
    fn capabilities(&self) -> Capabilities {
        Capabilities::NETWORK
    }

    fn build(&self) -> Box<dyn Learner> {
        Box::new(BayesLearner(self.clone()))
    }
}

/// The Bayes-by-backprop learner.
#[derive(Debug, Clone, Default)]
pub struct BayesLearner(pub BayesParams);

impl Learner for BayesLearner {
    fn fit(&self, data: &Dataset, rng: &mut dyn Rng) -> xai_core::error::Result<Box<dyn Model>> {
        Ok(Box::new(fit(&self.0, data, rng)?))
    }
}

/// Σ KL(N(μ, σ²) ‖ N(0, σ_p²)) over the entries of `mu` and `sd` (module doc).
pub(crate) fn kl_to_prior(mu: &Tensor, sd: &Tensor, prior_sd: f64) -> candle_core::Result<Tensor> {
    let quadratic = ((sd.sqr()? + mu.sqr()?)? / (2.0 * prior_sd * prior_sd))?;
    ((quadratic - sd.log()?)? + (prior_sd.ln() - 0.5))?.sum_all()
}

/// One layer's variational parameters: μ and ρ of W and of b.
struct Posterior {
    mu: Dense,
    rho: Dense,
}

impl Posterior {
    /// A draw w = μ + softplus(ρ) ⊙ ε with ε from `rng`, and its σ = softplus(ρ).
    fn sample(&self, rng: &mut dyn Rng) -> candle_core::Result<(Dense, Dense)> {
        let draw = |mu: &Tensor,
                    rho: &Tensor,
                    rng: &mut dyn Rng|
         -> candle_core::Result<(Tensor, Tensor)> {
            let (r, c) = mu.dims2()?;
            let eps: Vec<f32> = (0..r * c)
                .map(|_| StandardNormal.sample(&mut *rng))
                .collect();
            let sd = softplus(rho)?;
            Ok(((mu + (&sd * net::matrix(eps, r, c)?)?)?, sd))
        };
        let (w, sw) = draw(&self.mu.0, &self.rho.0, rng)?;
        let (b, sb) = draw(&self.mu.1, &self.rho.1, rng)?;
        Ok(((w, b), (sw, sb)))
    }
}

/// Fits the posterior (module doc): μ Glorot-uniform, ρ = log(e^σ₀ − 1), then the
/// epochs, then the S members, all from `rng` in that order.
pub fn fit(params: &BayesParams, data: &Dataset, rng: &mut dyn Rng) -> Result<Network, CoreError> {
    params.validate()?;
    net::fit(
        data,
        "Bayes-by-backprop network",
        net::Scaling::ZScore,
        rng,
        Box::new(|head, x, y, rng| members(params, head, x, y, rng)),
    )
}

fn members(
    params: &BayesParams,
    head: &Head,
    x: &Tensor,
    y: &Tensor,
    rng: &mut dyn Rng,
) -> candle_core::Result<Vec<Box<dyn Member>>> {
    let (n, d) = x.dims2()?;
    let rho0 = params.initial_sd.exp_m1().ln();
    let mut vars: Vec<Var> = Vec::new();
    for (i, o) in net::layer_shapes(d, &params.hidden, head.outputs()) {
        let (w, b) = net::glorot(rng, i, o)?;
        vars.push(Var::from_tensor(&w)?);
        vars.push(Var::from_tensor(&b)?);
        vars.push(Var::from_tensor(&(w.ones_like()? * rho0)?)?);
        vars.push(Var::from_tensor(&(b.ones_like()? * rho0)?)?);
    }
    let posterior = |vars: &[Var]| -> Vec<Posterior> {
        vars.chunks(4)
            .map(|v| Posterior {
                mu: (v[0].as_tensor().clone(), v[1].as_tensor().clone()),
                rho: (v[2].as_tensor().clone(), v[3].as_tensor().clone()),
            })
            .collect()
    };
    let schedule = Schedule {
        epochs: params.epochs,
        batch_size: params.batch_size,
        learning_rate: params.learning_rate,
        flat_epochs: None,
        momentum: None,
    };
    net::train(
        vars.clone(),
        n,
        schedule,
        "Bayes-by-backprop network",
        rng,
        |rows, rng| {
            let mut layers = Vec::new();
            let mut kl = Tensor::zeros((), candle_core::DType::F32, x.device())?;
            for layer in posterior(&vars) {
                let (w, sd) = layer.sample(rng)?;
                kl = ((kl + kl_to_prior(&layer.mu.0, &sd.0, params.prior_sd)?)?
                    + kl_to_prior(&layer.mu.1, &sd.1, params.prior_sd)?)?;
                layers.push(w);
            }
            let out = net::forward(&layers, &x.index_select(rows, 0)?, None)?;
            head.loss(&out, &y.index_select(rows, 0)?)? + (kl / n as f64)?
        },
    )?;
    let fitted: Vec<Posterior> = posterior(&vars)
        .into_iter()
        .map(|p| Posterior {
            mu: (p.mu.0.detach(), p.mu.1.detach()),
            rho: (p.rho.0.detach(), p.rho.1.detach()),
        })
        .collect();
    (0..params.samples)
        .map(|_| {
            let layers = fitted
                .iter()
                .map(|p| Ok(p.sample(rng)?.0))
                .collect::<candle_core::Result<Vec<Dense>>>()?;
            Ok(Box::new(layers) as Box<dyn Member>)
        })
        .collect()
}
