//! The output layer's distribution: a Bernoulli for a binary target, a Gaussian with
//! its own variance for a continuous one (the heteroscedastic head of MC-dropout
//! regression, PAPERS.md §1.2).

use candle_core::{Device, Tensor};
use xai_core::{CoreError, Predictions, Target};

/// The distribution the network's last layer parameterises.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Head {
    /// One logit z: P(y = 1 | x) = 1/(1 + e^(−z)).
    Bernoulli,
    /// Two outputs (μ, s) on the z-scored target: y ~ N(shift + scale·μ, scale²·eˢ).
    Gaussian {
        /// The training target's mean.
        shift: f64,
        /// The training target's population sd (1 if constant).
        scale: f64,
    },
}

impl Head {
    /// The head for `y` and the training target as an n × 1 tensor (0/1 labels, or the
    /// z-scored values). `what` names the learner in errors.
    pub(crate) fn for_target(y: &Target, what: &str) -> Result<(Head, Tensor), CoreError> {
        let (head, values): (Head, Vec<f32>) = match y {
            Target::Classes {
                labels,
                n_classes: 2,
            } => (Head::Bernoulli, labels.iter().map(|&c| c as f32).collect()),
            Target::Classes { n_classes, .. } => {
                return Err(CoreError::Fit(format!(
                    "{what} here is a binary classifier or a regressor; the target has \
                     {n_classes} classes"
                )));
            }
            Target::Continuous(v) => {
                let shift = v.mean().unwrap_or(0.0);
                let sd = v.std(0.0);
                let scale = if sd > 0.0 { sd } else { 1.0 };
                let z = v.iter().map(|&t| ((t - shift) / scale) as f32).collect();
                (Head::Gaussian { shift, scale }, z)
            }
        };
        let n = values.len();
        Ok((
            head,
            Tensor::from_vec(values, (n, 1), &Device::Cpu).map_err(fit_error)?,
        ))
    }

    /// Outputs of the last layer: 1 or 2.
    pub(crate) fn outputs(&self) -> usize {
        match self {
            Head::Bernoulli => 1,
            Head::Gaussian { .. } => 2,
        }
    }

    /// The mean over the batch of −log q(y | x) up to a constant: softplus(z) − y·z
    /// (binary cross-entropy on the logit), or ½·(s + (y − μ)²·e^(−s)) (Gaussian NLL
    /// on the z-scored target).
    pub(crate) fn loss(&self, out: &Tensor, y: &Tensor) -> candle_core::Result<Tensor> {
        match self {
            Head::Bernoulli => (softplus(out)? - (out * y)?)?.mean_all(),
            Head::Gaussian { .. } => {
                let (mu, s) = (out.narrow(1, 0, 1)?, out.narrow(1, 1, 1)?);
                let sq = (y - mu)?.sqr()?;
                ((s.clone() + (sq * s.neg()?.exp()?)?)? * 0.5)?.mean_all()
            }
        }
    }

    /// The predictive distributions of the outputs `out` (rows × outputs).
    pub(crate) fn predictions(&self, out: &Tensor) -> candle_core::Result<Predictions> {
        let rows = out.to_dtype(candle_core::DType::F64)?.to_vec2::<f64>()?;
        Ok(match self {
            Head::Bernoulli => {
                Predictions::binary(rows.iter().map(|r| 1.0 / (1.0 + (-r[0]).exp())))
            }
            Head::Gaussian { shift, scale } => Predictions::Gaussian {
                mean: rows.iter().map(|r| shift + scale * r[0]).collect(),
                var: rows.iter().map(|r| scale * scale * r[1].exp()).collect(),
            },
        })
    }
}

/// log(1 + eˣ) without overflow: max(x, 0) + log(1 + e^(−|x|)) (candle has no
/// softplus or log1p), and eˣ below x = −15, where 1 + eˣ rounds to 1 in f32 and the
/// first form would give 0 (a Bayes-by-backprop sd of 0, whose log is −∞); there the
/// two differ by less than e^(2x)/2 < 1e-13.
pub(crate) fn softplus(x: &Tensor) -> candle_core::Result<Tensor> {
    let wide = (x.relu()? + ((x.abs()?.neg()?.exp()? + 1.0)?.log()?))?;
    x.lt(-15.0)?.where_cond(&x.exp()?, &wide)
}

/// A candle error as a fitting error.
pub(crate) fn fit_error(e: candle_core::Error) -> CoreError {
    CoreError::Fit(format!("network: {e}"))
}

/// A candle error of a fitted network's forward pass as a prediction error.
pub(crate) fn predict_error(e: candle_core::Error) -> CoreError {
    CoreError::Predict(format!("network: {e}"))
}
