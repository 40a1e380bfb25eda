//! What the networks share: dense layers, the forward pass with dropout, minibatch
//! Adam or SGD with momentum, and the fitted ensemble of plain networks
//! ([`Network`]), whose members' log-odds it differentiates in the inputs.

use candle_core::{Device, Tensor, Var};
use candle_nn::{AdamW, Optimizer, ParamsAdamW};
use indicatif::{ProgressBar, ProgressStyle};
use ndarray::{Array2, ArrayView2};
use rand::{Rng, RngExt};
use xai_core::{CoreError, Dataset, FeatureKind, MemberGradients, Model, Predictions};

use super::head::{Head, fit_error, predict_error};
use crate::standardize::Standardizer;

/// One dense layer: weights W (inputs × outputs) and bias b (1 × outputs).
pub(crate) type Dense = (Tensor, Tensor);

/// One member of a fitted network: a plain network from the scaled input rows
/// (rows × d) to the head's outputs (rows × [`Head::outputs`]).
pub(crate) trait Member: Send + Sync {
    /// The head's inputs for the rows `x`.
    fn forward(&self, x: &Tensor) -> candle_core::Result<Tensor>;
}

/// A dense network without dropout ([`forward`]).
impl Member for Vec<Dense> {
    fn forward(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        forward(self, x, None)
    }
}

/// An f32 tensor of `rows` × `cols` from row-major values.
pub(crate) fn matrix(values: Vec<f32>, rows: usize, cols: usize) -> candle_core::Result<Tensor> {
    Tensor::from_vec(values, (rows, cols), &Device::Cpu)
}

/// `k` draws of U(−a, a) in f32, each (2u − 1)·a from one u ~ U(0, 1) of `rng`.
pub(crate) fn uniform_values(rng: &mut dyn Rng, a: f64, k: usize) -> Vec<f32> {
    (0..k)
        .map(|_| ((2.0 * rng.random::<f64>() - 1.0) * a) as f32)
        .collect()
}

/// Glorot-uniform initial values of a layer, W and b ~ U(−a, a) with
/// a = √(6/(fan_in + fan_out)) (scikit-learn's `MLPClassifier` for ReLU networks;
/// Glorot & Bengio 2010 Eq. 16).
pub(crate) fn glorot(
    rng: &mut dyn Rng,
    fan_in: usize,
    fan_out: usize,
) -> candle_core::Result<Dense> {
    let a = (6.0 / (fan_in + fan_out) as f64).sqrt();
    let w = uniform_values(rng, a, fan_in * fan_out);
    let b = uniform_values(rng, a, fan_out);
    Ok((matrix(w, fan_in, fan_out)?, matrix(b, 1, fan_out)?))
}

/// The (inputs, outputs) of each layer of a network d → h_1 → … → h_L → o.
pub(crate) fn layer_shapes(d: usize, hidden: &[usize], outputs: usize) -> Vec<(usize, usize)> {
    let widths: Vec<usize> = std::iter::once(d)
        .chain(hidden.iter().copied())
        .chain(std::iter::once(outputs))
        .collect();
    widths.windows(2).map(|w| (w[0], w[1])).collect()
}

/// Memory estimates of a network d → h_1 → … → h_L → 2 (the larger head), in bytes,
/// with P = Σ_l (in_l + 1)·out_l parameters and W = d + Σ h_l + 2 units:
///
/// - fit on n rows, batches of B, M members, `copies` f32 values per parameter while
///   training (4 for the MLP: value, gradient, Adam's two moments; 10 for Bayes by
///   backprop: μ and ρ each with those, and the draw's ε and σ): 8nd + 4n(d + 1) (the
///   z-scored rows in f64, then in f32 with the target), 4·copies·P, 16BW (a batch's
///   activations forward and backward, masks) and 4MP (the members);
/// - predict on m rows: 12md (z-scored rows in f64 and f32), 8mW (one member's
///   activations at a time) and 16m(M + 1) (each member's predictions and their
///   mixture, two f64 per row).
pub(crate) struct Footprint {
    pub parameters: u128,
    pub units: u128,
}

impl Footprint {
    /// P and W of the network (doc above).
    pub(crate) fn of(d: usize, hidden: &[usize]) -> Self {
        let shapes = layer_shapes(d, hidden, 2);
        let parameters = shapes.iter().map(|&(i, o)| ((i + 1) * o) as u128).sum();
        let units = (d + hidden.iter().sum::<usize>() + 2) as u128;
        Footprint { parameters, units }
    }

    /// Bytes of a fit (doc above).
    pub(crate) fn fit_bytes(
        &self,
        n: u128,
        d: u128,
        batch: u128,
        members: u128,
        copies: u128,
    ) -> u128 {
        let rows = 8u128
            .saturating_mul(n.saturating_mul(d))
            .saturating_add(4u128.saturating_mul(n.saturating_mul(d + 1)));
        rows.saturating_add(4 * copies * self.parameters)
            .saturating_add(
                16u128
                    .saturating_mul(batch.min(n))
                    .saturating_mul(self.units),
            )
            .saturating_add(
                4u128
                    .saturating_mul(members)
                    .saturating_mul(self.parameters),
            )
    }

    /// Bytes of one prediction call on m rows (doc above).
    pub(crate) fn predict_bytes(&self, m: u128, d: u128, members: u128) -> u128 {
        12u128
            .saturating_mul(m.saturating_mul(d))
            .saturating_add(8u128.saturating_mul(m).saturating_mul(self.units))
            .saturating_add(16u128.saturating_mul(m).saturating_mul(members + 1))
    }
}

/// Inverted-dropout mask of `rows` × `cols`: each entry 1/(1 − p) with probability
/// 1 − p, else 0 (Srivastava et al. 2014, scaled at training time as PyTorch does).
pub(crate) fn dropout_mask(
    rng: &mut dyn Rng,
    rows: usize,
    cols: usize,
    p: f64,
) -> candle_core::Result<Tensor> {
    let keep = (1.0 / (1.0 - p)) as f32;
    let values = (0..rows * cols)
        .map(|_| if rng.random::<f64>() < p { 0.0 } else { keep })
        .collect();
    matrix(values, rows, cols)
}

/// The forward pass z_l = ReLU(z_(l−1)·W_l + b_l) ⊙ m_l through the hidden layers
/// and z_L = z_(L−1)·W_L + b_L at the output. With `dropout = (rng, p)`, each m_l is
/// a fresh per-row, per-unit mask ([`dropout_mask`]); without it m_l = 1.
pub(crate) fn forward(
    layers: &[Dense],
    x: &Tensor,
    mut dropout: Option<(&mut dyn Rng, f64)>,
) -> candle_core::Result<Tensor> {
    let mut z = x.clone();
    for (l, (w, b)) in layers.iter().enumerate() {
        z = z.matmul(w)?.broadcast_add(b)?;
        if l + 1 < layers.len() {
            z = z.relu()?;
            if let Some((rng, p)) = dropout.as_mut() {
                let (rows, cols) = z.dims2()?;
                z = (z * dropout_mask(&mut **rng, rows, cols, *p)?)?;
            }
        }
    }
    Ok(z)
}

/// The network with hidden layer l's units fixed on by the column mask m_l
/// (h_l × 1): since ReLU(·) ⊙ m_l then ·W_(l+1) equals ReLU(·)·(diag(m_l)·W_(l+1)),
/// a dropout pass with masks shared by every row is a plain network with rows of
/// W_(l+1) scaled (one MC-dropout member).
pub(crate) fn thinned(layers: &[Dense], masks: &[Tensor]) -> candle_core::Result<Vec<Dense>> {
    let mut out = Vec::with_capacity(layers.len());
    for (l, (w, b)) in layers.iter().enumerate() {
        let w = match l.checked_sub(1).and_then(|k| masks.get(k)) {
            Some(m) => w.broadcast_mul(m)?,
            None => w.clone(),
        };
        out.push((w, b.clone()));
    }
    Ok(out)
}

/// Σ_l ‖W_l‖², the weights' squared norm (biases not included, as scikit-learn's
/// L2 penalty).
pub(crate) fn weights_squared(layers: &[Dense]) -> candle_core::Result<Tensor> {
    let mut total = Tensor::zeros((), candle_core::DType::F32, &Device::Cpu)?;
    for (w, _) in layers {
        total = (total + w.sqr()?.sum_all()?)?;
    }
    Ok(total)
}

/// Minibatch settings of a network's training.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Schedule {
    /// Passes over the training rows (most, with `flat_epochs`).
    pub epochs: usize,
    /// Rows per optimiser step (the last batch of an epoch holds the rest).
    pub batch_size: usize,
    /// The step size: Adam's (β = (0.9, 0.999), ε = 1e-8) or SGD's.
    pub learning_rate: f64,
    /// Stop when the epoch's mean loss has not fallen 1e-4 below its best for more
    /// than this many epochs in a row (scikit-learn's `n_iter_no_change`, `tol`).
    pub flat_epochs: Option<usize>,
    /// SGD with this momentum μ instead of Adam ([`Sgd`]).
    pub momentum: Option<f64>,
}

/// SGD with momentum as PyTorch's `optim.SGD(lr, momentum)` steps (no dampening, no
/// Nesterov): v ← μ·v + g (v = g at the first step), θ ← θ − lr·v.
struct Sgd {
    vars: Vec<Var>,
    velocity: Vec<Option<Tensor>>,
    lr: f64,
    momentum: f64,
}

impl Sgd {
    fn backward_step(&mut self, loss: &Tensor) -> candle_core::Result<()> {
        let grads = loss.backward()?;
        for (var, v) in self.vars.iter().zip(self.velocity.iter_mut()) {
            let Some(g) = grads.get(var.as_tensor()) else {
                continue;
            };
            // Detached, as PyTorch steps under no_grad: a velocity that kept its
            // autograd history would hold every earlier batch's graph through the
            // chain v_t = μ·v_{t−1} + g_t (a 320-epoch CNN fit grew past 24 GB).
            let next = match v.take() {
                Some(old) => ((old * self.momentum)? + g)?,
                None => g.clone(),
            }
            .detach();
            var.set(&(var.as_tensor() - (&next * self.lr)?)?)?;
            *v = Some(next);
        }
        Ok(())
    }
}

/// The optimiser a [`Schedule`] names.
enum Step {
    Adam(AdamW),
    Sgd(Sgd),
}

impl Step {
    fn new(vars: Vec<Var>, schedule: &Schedule) -> candle_core::Result<Self> {
        Ok(match schedule.momentum {
            None => Step::Adam(AdamW::new(
                vars,
                ParamsAdamW {
                    lr: schedule.learning_rate,
                    weight_decay: 0.0,
                    ..ParamsAdamW::default()
                },
            )?),
            Some(momentum) => Step::Sgd(Sgd {
                velocity: vec![None; vars.len()],
                vars,
                lr: schedule.learning_rate,
                momentum,
            }),
        })
    }

    fn backward_step(&mut self, loss: &Tensor) -> candle_core::Result<()> {
        match self {
            Step::Adam(adam) => adam.backward_step(loss),
            Step::Sgd(sgd) => sgd.backward_step(loss),
        }
    }
}

/// Minibatch Adam (Kingma & Ba 2015; candle's AdamW with weight decay 0), or SGD
/// with momentum ([`Schedule::momentum`]), on `vars`: each epoch draws a permutation of the `n` rows from `rng` and steps once per
/// batch, on `loss(rows, rng)` (`rows` a u32 index tensor; the loss is a mean over
/// them and may draw from `rng`). A terminal shows `what`'s epochs and loss.
/// Returns the epochs run.
pub(crate) fn train(
    vars: Vec<Var>,
    n: usize,
    schedule: Schedule,
    what: &str,
    rng: &mut dyn Rng,
    mut loss: impl FnMut(&Tensor, &mut dyn Rng) -> candle_core::Result<Tensor>,
) -> candle_core::Result<usize> {
    let mut step = Step::new(vars, &schedule)?;
    let bar = ProgressBar::new(schedule.epochs as u64).with_message(what.to_string());
    bar.set_style(
        ProgressStyle::with_template("{msg}: epoch {pos}/{len} {wide_bar} {eta}")
            .expect("a valid template"),
    );
    let batch = schedule.batch_size.min(n);
    let (mut best, mut flat) = (f64::INFINITY, 0);
    let mut order: Vec<u32> = (0..n as u32).collect();
    for epoch in 0..schedule.epochs {
        // Fisher–Yates from the replicate's stream.
        for i in (1..n).rev() {
            order.swap(i, rng.random_range(0..=i));
        }
        let mut total = 0.0;
        for rows in order.chunks(batch) {
            let index = Tensor::from_slice(rows, rows.len(), &Device::Cpu)?;
            let value = loss(&index, rng)?;
            if schedule.flat_epochs.is_some() {
                total += f64::from(value.to_scalar::<f32>()?) * rows.len() as f64;
            }
            step.backward_step(&value)?;
        }
        bar.inc(1);
        if let Some(k) = schedule.flat_epochs {
            let mean = total / n as f64;
            flat = if mean > best - 1e-4 { flat + 1 } else { 0 };
            best = best.min(mean);
            if flat > k {
                bar.finish_and_clear();
                return Ok(epoch + 1);
            }
        }
    }
    bar.finish_and_clear();
    Ok(schedule.epochs)
}

/// How a network scales its input columns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Scaling {
    /// Each column z-scored on the training rows (population sd).
    ZScore,
    /// Every column divided by one constant (an image's grey levels by their maximum,
    /// as torchvision's `ToTensor` maps 0–255 to [0, 1]).
    Divide(f64),
}

/// The rows a network is fitted on, scaled, as an f32 tensor, with the scaler.
/// Refuses categorical features and missing cells, which a network cannot read.
pub(crate) fn inputs(
    data: &Dataset,
    what: &str,
    scaling: Scaling,
) -> Result<(Standardizer, Tensor), CoreError> {
    if data
        .feature_kinds()
        .iter()
        .any(|k| matches!(k, FeatureKind::Categorical { .. }))
    {
        return Err(CoreError::Fit(format!(
            "{what} takes continuous features only; encode categorical ones first"
        )));
    }
    if data.x().iter().any(|v| !v.is_finite()) {
        return Err(CoreError::Fit(format!(
            "{what} needs complete rows; impute missing cells first (dataset option \
             `missing: impute_mean`)"
        )));
    }
    let standardizer = match scaling {
        Scaling::ZScore => Standardizer::fit(data.x(), true, 0.0),
        Scaling::Divide(by) => {
            let d = data.n_features();
            Standardizer {
                shift: ndarray::Array1::zeros(d),
                scale: ndarray::Array1::from_elem(d, by),
            }
        }
    };
    let z = as_tensor(&standardizer, data.x()).map_err(fit_error)?;
    Ok((standardizer, z))
}

fn as_tensor(standardizer: &Standardizer, x: ArrayView2<'_, f64>) -> candle_core::Result<Tensor> {
    let (rows, cols) = x.dim();
    let z = standardizer.apply(x);
    matrix(z.iter().map(|&v| v as f32).collect(), rows, cols)
}

/// The members of a network trained on scaled rows and its head's target, from
/// `rng`: `(head, rows, target, rng)` → the member networks.
pub(crate) type Trainer<'a> = dyn FnOnce(&Head, &Tensor, &Tensor, &mut dyn Rng) -> candle_core::Result<Vec<Box<dyn Member>>>
    + 'a;

/// Fits a network on `data` ([`inputs`], [`Head::for_target`], then `train`); `what`
/// names it in errors.
pub(crate) fn fit(
    data: &Dataset,
    what: &str,
    scaling: Scaling,
    rng: &mut dyn Rng,
    train: Box<Trainer<'_>>,
) -> Result<Network, CoreError> {
    let (inputs, x) = inputs(data, what, scaling)?;
    let (head, y) = Head::for_target(data.y(), what)?;
    let members = train(&head, &x, &y, rng).map_err(fit_error)?;
    Ok(Network {
        inputs,
        head,
        members,
    })
}

/// A fitted network: M plain networks on scaled inputs, whose predictive
/// distribution is the equal-weight mixture of theirs (module doc).
pub struct Network {
    pub(crate) inputs: Standardizer,
    pub(crate) head: Head,
    pub(crate) members: Vec<Box<dyn Member>>,
}

/// Rows per forward-and-backward pass of [`MemberGradients::pullback`], which keeps
/// every member's activations of a chunk for the backward pass.
const PULLBACK_ROWS: usize = 64;

impl Network {
    /// The number of members M.
    pub fn n_members(&self) -> usize {
        self.members.len()
    }

    fn members_on(&self, x: ArrayView2<'_, f64>) -> candle_core::Result<Vec<Predictions>> {
        let z = as_tensor(&self.inputs, x)?;
        self.members
            .iter()
            .map(|member| self.head.predictions(&member.forward(&z)?))
            .collect()
    }

    /// Member log-odds exist for a Bernoulli head only.
    fn binary(&self) -> xai_core::error::Result<()> {
        match self.head {
            Head::Bernoulli => Ok(()),
            Head::Gaussian { .. } => Err(CoreError::Capability(
                "member log-odds need a binary classifier; this network is a regressor".into(),
            )),
        }
    }

    /// The members' logits (rows × M) of a binary head on the scaled rows `z`.
    fn logits(&self, z: &Tensor) -> candle_core::Result<Tensor> {
        let each = self
            .members
            .iter()
            .map(|m| m.forward(z))
            .collect::<candle_core::Result<Vec<_>>>()?;
        Tensor::cat(&each, 1)
    }
}

/// A rows × columns tensor as an f64 array.
pub(crate) fn to_f64(t: &Tensor) -> candle_core::Result<Array2<f64>> {
    let (r, c) = t.dims2()?;
    let v = t
        .to_dtype(candle_core::DType::F64)?
        .flatten_all()?
        .to_vec1::<f64>()?;
    Ok(Array2::from_shape_vec((r, c), v).expect("a rows × columns tensor"))
}

/// The members' log-odds z_m(x) are the Bernoulli head's logits; their gradients
/// come from candle's autograd through the scaled inputs, in chunks of
/// [`PULLBACK_ROWS`] rows, divided by each column's scale (∂/∂x_j = (1/s_j)·∂/∂z_j).
impl MemberGradients for Network {
    fn member_logits(&self, x: ArrayView2<'_, f64>) -> xai_core::error::Result<Array2<f64>> {
        self.binary()?;
        let z = as_tensor(&self.inputs, x).map_err(predict_error)?;
        to_f64(&self.logits(&z).map_err(predict_error)?).map_err(predict_error)
    }

    fn pullback(
        &self,
        x: ArrayView2<'_, f64>,
        cotangent: &dyn Fn(ArrayView2<'_, f64>) -> Array2<f64>,
    ) -> xai_core::error::Result<Array2<f64>> {
        self.binary()?;
        let mut out = Array2::zeros(x.dim());
        for start in (0..x.nrows()).step_by(PULLBACK_ROWS) {
            let end = (start + PULLBACK_ROWS).min(x.nrows());
            let rows = x.slice(ndarray::s![start..end, ..]);
            let chunk = (|| -> candle_core::Result<Array2<f64>> {
                let z = Var::from_tensor(&as_tensor(&self.inputs, rows)?)?;
                let logits = self.logits(z.as_tensor())?;
                let c = cotangent(to_f64(&logits)?.view());
                let (r, m) = c.dim();
                let c = matrix(c.iter().map(|&v| v as f32).collect(), r, m)?;
                let grads = (logits * c)?.sum_all()?.backward()?;
                let g = grads
                    .get(z.as_tensor())
                    .map(to_f64)
                    .transpose()?
                    .unwrap_or_else(|| Array2::zeros(rows.dim()));
                Ok(g / &self.inputs.scale)
            })()
            .map_err(predict_error)?;
            out.slice_mut(ndarray::s![start..end, ..]).assign(&chunk);
        }
        Ok(out)
    }
}

impl Model for Network {
    /// (1/M)·Σ_m q_m(y | x) ([`Predictions::mixture`]).
    fn predict(&self, x: ArrayView2<'_, f64>) -> xai_core::error::Result<Predictions> {
        Predictions::mixture(&self.members_on(x).map_err(predict_error)?)
    }

    /// Each member's q_m(y | x): a dropout mask or weight sample fixed at fit time.
    fn predict_members(
        &self,
        x: ArrayView2<'_, f64>,
    ) -> xai_core::error::Result<Option<Vec<Predictions>>> {
        Ok(Some(self.members_on(x).map_err(predict_error)?))
    }

    /// Its members' log-odds when the head is a Bernoulli (a binary classifier).
    fn member_gradients(&self) -> Option<&dyn MemberGradients> {
        (self.head == Head::Bernoulli).then_some(self as &dyn MemberGradients)
    }
}
