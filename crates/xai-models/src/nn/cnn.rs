//! The convolutional network of watson2023's MNIST code (PAPERS.md §4.7), a binary
//! classifier of square grey-level images given as rows of side² pixels (row-major),
//! with MC dropout (Gal & Ghahramani 2016):
//!
//! conv 1→10 (5×5) → max-pool 2 → ReLU → dropout p₁ → conv 10→20 (5×5) → dropout p₂
//! → max-pool 2 → ReLU → dropout p₃ → flatten (20·q², q = ⌊(⌊(s − 4)/2⌋ − 4)/2⌋; 320
//! for s = 28) → FC 50 → ReLU → dropout p₄ → FC 2 → softmax,
//!
//! with p = (0.3, 0.5, 0.3, 0.5) as the code's `nn.Dropout(p=0.3)` and `nn.Dropout()`
//! (element-wise, not per channel). The two softmax outputs are one Bernoulli logit
//! z = o₁ − o₀: softmax(o)₁ = σ(z), and the code's NLL of the softmax is the binary
//! cross-entropy of z, so training and predictions are those of the code's network.
//!
//! - Inputs: grey levels divided by `input_scale` (255: torchvision's `ToTensor`, the
//!   code's only transform).
//! - Initial weights: PyTorch's default for `Conv2d` and `Linear`, W and b ~
//!   U(−1/√fan_in, 1/√fan_in) (Kaiming-uniform with a = √5), drawn from the
//!   replicate's stream in layer order.
//! - Training [code]: SGD with momentum 0.5, lr 0.01, batches of 128, 20 epochs, no
//!   weight decay; each batch's dropout masks fresh per image and unit.
//! - Members: `passes` = 50 forward passes [paper+code], each a set of masks drawn
//!   once after training and shared by every row ([`super`]'s common random numbers;
//!   the code draws fresh masks per image and call).
//!
//! [conflict] the paper's text says batch norm and Adam; the code, followed here, has
//! neither.
//!
//! Max-pooling gathers each 2 × 2 window's first maximum ([`pool`]), not candle's
//! `max_pool2d`, whose backward pass in candle 0.11 divides the gradient by the
//! window's area (measured: 0.25 at each window's maximum instead of 1), which would
//! shrink the first convolution's training steps and the input gradients 16-fold and
//! the second's 4-fold; nor a `max` reduction, whose backward passes the whole
//! gradient to every tied maximum where PyTorch passes it to one.

use std::sync::Arc;

use candle_core::{Tensor, Var};
use rand::Rng;
use serde::Deserialize;
use xai_core::{CoreError, Dataset, Learner, Model};

use super::head::Head;
use super::net::{self, Member, Network, Schedule};
use crate::capabilities::Capabilities;
use crate::kind::LearnerKind;

/// Channels of the two convolutions and units of the hidden dense layer.
const CHANNELS: [usize; 2] = [10, 20];
const HIDDEN: usize = 50;
/// Side of the square convolution kernels.
const KERNEL: usize = 5;

/// `cnn:` settings (all optional in YAML; the defaults are the code's).
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct CnnParams {
    /// Dropout probabilities p₁…p₄ (module doc), each in [0, 1). Default [0.3, 0.5,
    /// 0.3, 0.5].
    #[schemars(transform = each_in_unit_interval)]
    pub dropout: [f64; 4],
    /// Members at prediction: mask sets drawn once after training (≥ 1). Default 50.
    #[schemars(range(min = 1))]
    pub passes: usize,
    /// Passes over the training images (≥ 1). Default 20.
    #[schemars(range(min = 1))]
    pub epochs: usize,
    /// Images per SGD step (≥ 1; capped at n). Default 128.
    #[schemars(range(min = 1))]
    pub batch_size: usize,
    /// SGD's step size (> 0). Default 0.01.
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub learning_rate: f64,
    /// SGD's momentum μ in [0, 1). Default 0.5.
    #[schemars(range(min = 0), extend("exclusiveMaximum" = 1))]
    pub momentum: f64,
    /// Grey levels are divided by this (> 0). Default 255.
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub input_scale: f64,
}

impl Default for CnnParams {
    fn default() -> Self {
        Self {
            dropout: [0.3, 0.5, 0.3, 0.5],
            passes: 50,
            epochs: 20,
            batch_size: 128,
            learning_rate: 0.01,
            momentum: 0.5,
            input_scale: 255.0,
        }
    }
}

/// The side s of the square images of d pixels, and the pooled side q after both
/// blocks (module doc), if the network can read them.
fn geometry(d: usize) -> Option<(usize, usize)> {
    let s = (d as f64).sqrt().round() as usize;
    let q = (s.checked_sub(KERNEL - 1)? / 2).checked_sub(KERNEL - 1)? / 2;
    (s * s == d && q >= 1).then_some((s, q))
}

/// The shapes of one image's activations after each dropout (module doc): the
/// pooled first maps, the second convolution's maps, the pooled second maps and the
/// hidden layer, as (channels, height, width) with 1 × 1 for the dense layer.
fn mask_shapes(s: usize, q: usize) -> [(usize, usize, usize); 4] {
    let c1 = s + 1 - KERNEL;
    let p1 = c1 / 2;
    let c2 = p1 - KERNEL + 1;
    [
        (CHANNELS[0], p1, p1),
        (CHANNELS[1], c2, c2),
        (CHANNELS[1], q, q),
        (HIDDEN, 1, 1),
    ]
}

/// Parameters P = Σ (fan_in + 1)·fan_out and the f32 values of one image's
/// activations A (input, both convolutions, poolings, dense layers) of a network on
/// s × s images.
fn sizes(s: usize, q: usize) -> (u128, u128) {
    let k2 = KERNEL * KERNEL;
    let flat = CHANNELS[1] * q * q;
    let p = CHANNELS[0] * (k2 + 1)
        + CHANNELS[1] * (CHANNELS[0] * k2 + 1)
        + HIDDEN * (flat + 1)
        + 2 * (HIDDEN + 1);
    let c1 = s - KERNEL + 1;
    let maps: usize = mask_shapes(s, q).iter().map(|(c, h, w)| c * h * w).sum();
    (
        p as u128,
        (s * s + CHANNELS[0] * c1 * c1 + maps + 2) as u128,
    )
}

/// The schema of `dropout`: each item in [0, 1).
fn each_in_unit_interval(schema: &mut schemars::Schema) {
    if let Some(items) = schema.get_mut("items").and_then(|i| i.as_object_mut()) {
        items.insert("minimum".into(), 0.into());
        items.insert("exclusiveMaximum".into(), 1.into());
    }
}

impl LearnerKind for CnnParams {
    /// Each setting within the range its field declares
    /// ([`xai_core::settings::check_value`]).
    fn validate(&self) -> Result<(), crate::ParamError> {
        Ok(xai_core::settings::check_value(self)?)
    }

    /// Peak bytes of a fit on n images of d pixels: 12nd (the rows in f64 and f32),
    /// 12P (weights, gradients, velocities), 16BA (a batch's activations forward and
    /// backward, its masks) and 4MA (the members' masks), with P and A of `sizes`.
    fn fit_memory_bytes(&self, n: u128, d: u128) -> u128 {
        let (p, a) = geometry(d as usize).map_or((0, d), |(s, q)| sizes(s, q));
        (12u128.saturating_mul(n.saturating_mul(d)))
            .saturating_add(12 * p)
            .saturating_add(
                16u128
                    .saturating_mul((self.batch_size as u128).min(n))
                    .saturating_mul(a),
            )
            .saturating_add(4u128.saturating_mul(self.passes as u128).saturating_mul(a))
    }

    /// Peak bytes of one prediction on m images: 12md, 8mA (one member's activations
    /// at a time) and 16m(M + 1) (each member's predictions and their mixture).
    fn predict_memory_bytes(&self, _n: u128, m: u128, d: u128) -> u128 {
        let a = geometry(d as usize).map_or(d, |(s, q)| sizes(s, q).1);
        12u128
            .saturating_mul(m.saturating_mul(d))
            .saturating_add(8u128.saturating_mul(m).saturating_mul(a))
            .saturating_add(
                16u128
                    .saturating_mul(m)
                    .saturating_mul(self.passes as u128 + 1),
            )
    }

    /// "MC-dropout CNN".
    fn describe(&self) -> &'static str {
        "MC-dropout CNN"
    }

    /// [`Capabilities::NETWORK`].
    fn capabilities(&self) -> Capabilities {
        Capabilities::NETWORK
    }

    fn build(&self) -> Box<dyn Learner> {
        Box::new(CnnLearner(self.clone()))
    }
}

/// The CNN learner.
#[derive(Debug, Clone, Default)]
pub struct CnnLearner(pub CnnParams);

impl Learner for CnnLearner {
    fn fit(&self, data: &Dataset, rng: &mut dyn Rng) -> xai_core::error::Result<Box<dyn Model>> {
        Ok(Box::new(fit(&self.0, data, rng)?))
    }
}

/// The trained weights: two convolutions (kernels out × in × 5 × 5, biases out × 1 ×
/// 1) and two dense layers (W in × out, b 1 × out).
pub(crate) struct Weights {
    pub(crate) conv: [(Tensor, Tensor); 2],
    pub(crate) dense: [(Tensor, Tensor); 2],
    pub(crate) side: usize,
}

impl Weights {
    /// The two logits o (rows × 2) of the images `x` (rows × s²), each activation
    /// after dropout l multiplied by `masks[l]` (broadcast over rows, or one per row).
    pub(crate) fn forward(&self, x: &Tensor, masks: &[Tensor; 4]) -> candle_core::Result<Tensor> {
        let rows = x.dims2()?.0;
        let image = x.reshape((rows, 1, self.side, self.side))?;
        let conv = |z: &Tensor, (k, b): &(Tensor, Tensor)| -> candle_core::Result<Tensor> {
            z.conv2d(k, 0, 1, 1, 1)?.broadcast_add(b)
        };
        let z = pool(&conv(&image, &self.conv[0])?)?.relu()?;
        let z = z.broadcast_mul(&masks[0])?;
        let z = conv(&z, &self.conv[1])?.broadcast_mul(&masks[1])?;
        let z = pool(&z)?.relu()?.broadcast_mul(&masks[2])?;
        let (w, b) = &self.dense[0];
        let z = z.flatten_from(1)?.matmul(w)?.broadcast_add(b)?.relu()?;
        let z = z.broadcast_mul(&masks[3].flatten_from(1)?)?;
        let (w, b) = &self.dense[1];
        z.matmul(w)?.broadcast_add(b)
    }
}

/// 2 × 2 max-pooling of maps (rows × channels × h × w) to ⌊h/2⌋ × ⌊w/2⌋ (an odd last
/// row or column dropped, as PyTorch's `MaxPool2d(2)`): each window's maximum, the
/// first in row-major order among ties, whose gradient goes to it alone (module doc).
/// Ties are common: over a blank patch a convolution is its bias in all four places.
fn pool(z: &Tensor) -> candle_core::Result<Tensor> {
    let (r, c, h, w) = z.dims4()?;
    let (h, w) = (h / 2, w / 2);
    let even = z.narrow(2, 0, 2 * h)?.narrow(3, 0, 2 * w)?;
    let windows = even
        .reshape((r, c, h, 2, w, 2))?
        .permute((0, 1, 2, 4, 3, 5))?
        .reshape((r, c, h, w, 4))?;
    let first = windows.argmax_keepdim(4)?;
    windows.gather(&first, 4)?.squeeze(4)
}

/// The Bernoulli logit z = o₁ − o₀ of the two outputs (module doc).
fn logit(o: &Tensor) -> candle_core::Result<Tensor> {
    o.narrow(1, 1, 1)? - o.narrow(1, 0, 1)?
}

/// One MC-dropout pass: the weights and one mask set shared by every row.
pub(crate) struct Pass {
    pub(crate) weights: Arc<Weights>,
    pub(crate) masks: [Tensor; 4],
}

impl Member for Pass {
    fn forward(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        logit(&self.weights.forward(x, &self.masks)?)
    }
}

/// Inverted-dropout masks of `rows` images (module doc's four shapes, each with a
/// leading dimension of `rows`), from `rng` in layer order.
fn masks(
    rng: &mut dyn Rng,
    rows: usize,
    shapes: &[(usize, usize, usize); 4],
    p: &[f64; 4],
) -> candle_core::Result<[Tensor; 4]> {
    let mut out = Vec::with_capacity(4);
    for (&(c, h, w), &p) in shapes.iter().zip(p) {
        let m = net::dropout_mask(rng, rows, c * h * w, p)?;
        out.push(m.reshape((rows, c, h, w))?);
    }
    Ok(out.try_into().expect("four masks"))
}

/// PyTorch's default initial values of a layer with `fan_in` inputs: `shape` of
/// U(−1/√fan_in, 1/√fan_in) draws ([`net::uniform_values`]).
fn uniform(rng: &mut dyn Rng, fan_in: usize, shape: &[usize]) -> candle_core::Result<Var> {
    let a = 1.0 / (fan_in as f64).sqrt();
    let v = net::uniform_values(rng, a, shape.iter().product());
    Var::from_tensor(&Tensor::from_vec(v, shape, &candle_core::Device::Cpu)?)
}

/// Fits the network (module doc): initial weights, then the epochs, then the
/// members' masks, all from `rng` in that order.
pub fn fit(params: &CnnParams, data: &Dataset, rng: &mut dyn Rng) -> Result<Network, CoreError> {
    params.validate()?;
    if !matches!(data.y(), xai_core::Target::Classes { n_classes: 2, .. }) {
        return Err(CoreError::Fit(
            "cnn is a binary classifier (two softmax outputs); the target is not two classes: \
             keep two with the dataset's `classes: [a, b]`"
                .into(),
        ));
    }
    let d = data.n_features();
    let (side, q) = geometry(d).ok_or_else(|| {
        CoreError::Fit(format!(
            "cnn reads square images of at least 16 × 16 pixels, each a row of side² \
             features in row-major order; these rows have {d} features"
        ))
    })?;
    net::fit(
        data,
        "MC-dropout CNN",
        net::Scaling::Divide(params.input_scale),
        rng,
        Box::new(|head, x, y, rng| members(params, (side, q), head, x, y, rng)),
    )
}

fn members(
    params: &CnnParams,
    (side, q): (usize, usize),
    head: &Head,
    x: &Tensor,
    y: &Tensor,
    rng: &mut dyn Rng,
) -> candle_core::Result<Vec<Box<dyn Member>>> {
    debug_assert_eq!(
        *head,
        Head::Bernoulli,
        "for_target refuses other targets' classes"
    );
    let n = x.dims2()?.0;
    let k2 = KERNEL * KERNEL;
    let flat = CHANNELS[1] * q * q;
    let vars = vec![
        uniform(rng, k2, &[CHANNELS[0], 1, KERNEL, KERNEL])?,
        uniform(rng, k2, &[CHANNELS[0], 1, 1])?,
        uniform(
            rng,
            CHANNELS[0] * k2,
            &[CHANNELS[1], CHANNELS[0], KERNEL, KERNEL],
        )?,
        uniform(rng, CHANNELS[0] * k2, &[CHANNELS[1], 1, 1])?,
        uniform(rng, flat, &[flat, HIDDEN])?,
        uniform(rng, flat, &[1, HIDDEN])?,
        uniform(rng, HIDDEN, &[HIDDEN, 2])?,
        uniform(rng, HIDDEN, &[1, 2])?,
    ];
    let weights = |vars: &[Var], detach: bool| -> Weights {
        let t = |k: usize| {
            let t = vars[k].as_tensor();
            if detach { t.detach() } else { t.clone() }
        };
        Weights {
            conv: [(t(0), t(1)), (t(2), t(3))],
            dense: [(t(4), t(5)), (t(6), t(7))],
            side,
        }
    };
    let schedule = Schedule {
        epochs: params.epochs,
        batch_size: params.batch_size,
        learning_rate: params.learning_rate,
        flat_epochs: None,
        momentum: Some(params.momentum),
    };
    let shapes = mask_shapes(side, q);
    net::train(
        vars.clone(),
        n,
        schedule,
        "MC-dropout CNN",
        rng,
        |rows, rng| {
            let batch = masks(rng, rows.dims1()?, &shapes, &params.dropout)?;
            let o = weights(&vars, false).forward(&x.index_select(rows, 0)?, &batch)?;
            head.loss(&logit(&o)?, &y.index_select(rows, 0)?)
        },
    )?;
    let fitted = Arc::new(weights(&vars, true));
    (0..params.passes)
        .map(|_| {
            Ok(Box::new(Pass {
                weights: Arc::clone(&fitted),
                masks: masks(rng, 1, &shapes, &params.dropout)?,
            }) as Box<dyn Member>)
        })
        .collect()
}
