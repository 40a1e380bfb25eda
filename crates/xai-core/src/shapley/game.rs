//! Games of a model's predictive distribution at one point x (watson2023 §4).
//!
//! A coalition S keeps x's values of the features in S and takes the others from a
//! background row b. Its predictive distribution is the mixture over the B background
//! rows
//!
//! q_S(y) = (1/B)·Σ_b q(y | x_S, b_{−S}),
//!
//! the "independent" (interventional) reference distribution of watson2023 §4 and of
//! KernelSHAP. The paper writes p(Y | x_S), the conditional distribution; the two
//! agree when the features are independent. q_∅ is the model's marginal over the
//! background and q_[d] = q_x = q(· | x). A [`ValueFunction`] reads v(S, x) off q_S
//! (and q_x); [`ModelGame`] is the resulting [`Game`].

use std::f64::consts::PI;
use std::ops::Range;

use ndarray::{Array1, Array2, ArrayView1, ArrayView2, Axis, s};
use serde::Deserialize;

use super::Game;
use super::coalitions::CoalitionTable;
use crate::dataset::Target;
use crate::error::{CoreError, Result};
use crate::model::Model;
use crate::predictions::Predictions;
use crate::statistic::{
    PROB_FLOOR, Statistic, categorical_entropy, gaussian_entropy, gaussian_nll,
};
use crate::tree::TreeEnsembleView;

/// The most rows [`ModelGame`] passes to one [`Model::predict`] call: a batch of k
/// coalitions over B background rows is predicted in calls of
/// max(1, ⌊`MAX_PREDICT_ROWS`/B⌋) coalitions (one call when k·B ≤ 65 536), so the
/// stacked design matrix of exact enumeration stays a few MiB; for a value function
/// that reads M members ([`Model::predict_members`]), ⌊`MAX_PREDICT_ROWS`/(B·M)⌋
/// coalitions, so the M batches together stay as large.
pub const MAX_PREDICT_ROWS: usize = 1 << 16;

/// What a Shapley game reads off a coalition's predictive distribution q_S (the
/// background mixture of the module doc), with q_x = q(· | x) the prediction at the
/// explained point (watson2023 §4, PAPERS.md §4.1).
///
/// For `Probabilities` q_S is the mean of the components' class probabilities, which
/// is the mixture exactly. For `Gaussian` predictions q_S is approximated by the
/// moment-matched Gaussian N(μ_S, σ_S²), μ_S = (1/B)·Σ_b μ_b and
/// σ_S² = (1/B)·Σ_b σ_b² + (1/B)·Σ_b (μ_b − μ_S)² (the mixture's own mean and, by the
/// law of total variance, its variance). The mixture itself is not Gaussian, and
/// since a Gaussian has the largest entropy for a given variance, the moment-matched
/// entropy is an upper bound on the mixture's. `Point` predictions have no
/// distribution: only [`ValueFunction::Prediction`] and [`ValueFunction::Expected`]
/// are defined for them.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ValueFunction {
    /// v₀(S, x) = E_b f̂(x_S, b_{−S}): the mean of q_S (watson2023's v₀(S, x) =
    /// E[f(x) | X_S = x_S], taken over the background). This is the mean for point
    /// and Gaussian predictions and P(class 1) for a binary classifier; a multi-class
    /// model has no single prediction. Since the mean is linear, it equals
    /// `Expected(Statistic::Prediction)`.
    Prediction,
    /// v_H(S, x) = H(q_S): −Σ_y q_S(y)·log q_S(y) for class probabilities,
    /// ½·log(2πe·σ_S²) for Gaussian predictions. The value function of every
    /// watson2023 experiment.
    Entropy,
    /// v_IG(S, x) = −H(q_S) (watson2023 §4). For the conditional distribution,
    /// Δ_IG(S, j, x) averages over x to I(Y; X_j | X_S) (Prop. 4.3), and Σ_j φ_IG =
    /// H(q_∅) − H(q_x) averages to I(Y; X).
    NegEntropy,
    /// v_KL(S, x) = −D_KL(q_x ‖ q_S): −Σ_y q_x(y)·log(q_x(y)/q_S(y)) for class
    /// probabilities and −½·[log(σ_S²/σ_x²) + (σ_x² + (μ_x − μ_S)²)/σ_S² − 1] for
    /// Gaussians. v_KL([d]) = 0, so Σ_j φ_KL = D_KL(q_x ‖ q_∅) (Prop. 4.2).
    NegKl,
    /// v_CE(S, x) = −H(q_x, q_S) = Σ_y q_x(y)·log q_S(y) for class probabilities,
    /// −½·log(2πσ_S²) − (σ_x² + (μ_x − μ_S)²)/(2σ_S²) for Gaussians. It differs from
    /// v_KL by the constant −H(q_x), so its marginal contributions and Shapley values
    /// are those of v_KL (Prop. 4.1).
    NegCrossEntropy,
    /// log q_S(y) for the explained row's label y: log q_S(y) of the class
    /// probabilities (floored at [`PROB_FLOOR`] as [`Statistic::Nll`] is) or
    /// log N(y; μ_S, σ_S²). This is the **negative** of watson2023's LossSHAP value
    /// v_L(S, x) = −log p(y | x_S), so its Shapley values are −φ_L: positive when a
    /// feature makes the observed label more likely. Needs the label.
    NegLogLoss,
    /// The plug-in aleatoric entropy of an ensemble of M members (watson2023 §5):
    /// v(S, x) = (1/M)·Σ_m H(q^m_S), q^m_S = (1/B)·Σ_b q^m(· | x_S, b_{−S}) the
    /// background mixture of member m ([`crate::Model::predict_members`]): the
    /// entropy the members agree the label has.
    AleatoricEntropy,
    /// The plug-in epistemic entropy (watson2023 §5): v(S, x) = H(q_S) −
    /// (1/M)·Σ_m H(q^m_S), q_S = (1/M)·Σ_m q^m_S the `Entropy` game's mixture; the
    /// mutual information between the label and the member (BALD), ≥ 0 for class
    /// probabilities by the concavity of entropy, and 0 when the members agree.
    EpistemicEntropy,
    /// v(S, x) = (1/B)·Σ_b s(q(· | x_S, b_{−S}), y): the background mean of the
    /// per-row statistic s of each perturbed row's own prediction, i.e. the v₀ of
    /// the function x ↦ s(q(· | x), y), not a statistic of the mixture q_S. This is
    /// the game that TreeSHAP of a regressor fitted to s estimates (the entropy
    /// regressors of watson2023 §5–6). Because entropy is concave,
    /// `Expected(Entropy)` ≤ `Entropy`: the gap is the spread of the components.
    /// Needs the label if s does.
    Expected(Statistic),
}

impl ValueFunction {
    /// Every value function but `Expected` (which wraps a statistic), in
    /// declaration order.
    pub const PLAIN: [ValueFunction; 8] = [
        ValueFunction::Prediction,
        ValueFunction::Entropy,
        ValueFunction::NegEntropy,
        ValueFunction::NegKl,
        ValueFunction::NegCrossEntropy,
        ValueFunction::NegLogLoss,
        ValueFunction::AleatoricEntropy,
        ValueFunction::EpistemicEntropy,
    ];

    /// The prefix of its quantity names (`<prefix>_shap`): its YAML name
    /// (`prediction`, `entropy`, `neg_entropy`, `neg_kl`, `neg_cross_entropy`,
    /// `neg_log_loss`, `aleatoric_entropy`, `epistemic_entropy`), or `expected_` followed by the statistic's prefix
    /// (`expected_entropy`, `expected_likelihood`, ...).
    pub fn quantity_prefix(self) -> String {
        match self {
            ValueFunction::Expected(s) => format!("expected_{}", s.quantity_prefix()),
            other => other.name().to_string(),
        }
    }

    fn name(self) -> &'static str {
        match self {
            ValueFunction::Prediction => "prediction",
            ValueFunction::Entropy => "entropy",
            ValueFunction::NegEntropy => "neg_entropy",
            ValueFunction::NegKl => "neg_kl",
            ValueFunction::NegCrossEntropy => "neg_cross_entropy",
            ValueFunction::NegLogLoss => "neg_log_loss",
            ValueFunction::AleatoricEntropy => "aleatoric_entropy",
            ValueFunction::EpistemicEntropy => "epistemic_entropy",
            ValueFunction::Expected(_) => "expected",
        }
    }

    /// Whether it reads the explained row's label.
    pub fn needs_label(self) -> bool {
        match self {
            ValueFunction::NegLogLoss => true,
            ValueFunction::Expected(s) => s.needs_label(),
            ValueFunction::Prediction
            | ValueFunction::Entropy
            | ValueFunction::NegEntropy
            | ValueFunction::NegKl
            | ValueFunction::NegCrossEntropy
            | ValueFunction::AleatoricEntropy
            | ValueFunction::EpistemicEntropy => false,
        }
    }

    /// Whether it reads the members of an ensemble, not only their mean
    /// ([`crate::Model::predict_members`]).
    pub fn reads_members(self) -> bool {
        matches!(
            self,
            ValueFunction::AleatoricEntropy | ValueFunction::EpistemicEntropy
        )
    }
}

/// The interventional game of a value function at one point (watson2023 §4):
/// v(S) = [`ValueFunction`] of q_S = (1/B)·Σ_b q(· | x_S, b_{−S}).
///
/// For a batch of k coalitions it stacks the k·B rows (row c·B + b is x in the
/// features of coalition c and background row b elsewhere), predicts them in one
/// [`Model::predict`] call (several when k·B > [`MAX_PREDICT_ROWS`]) and reduces each
/// coalition's B predictions. Missing values (NaN) in x or the background go to the
/// model as they are, for models that handle them.
///
/// A tree ensemble whose predictions are linear in its leaf values
/// ([`crate::TreeEnsembleView::predictions_of_combined`]: forests, squared-error
/// boosting) predicts no hybrid rows: each coalition's mixture is its mean combined
/// leaf value, read off a [`CoalitionTable`] built once at x (d ≤ 64), for every
/// value function that reads the mixture (all but `Expected`, whose per-row
/// statistic is not linear in the leaf values).
pub struct ModelGame<'a> {
    model: &'a dyn Model,
    x: ArrayView1<'a, f64>,
    background: ArrayView2<'a, f64>,
    value: ValueFunction,
    label: Option<f64>,
    /// q_x, the model's prediction at x.
    point: Mixture,
    /// The coalition table of a linear tree ensemble, with the ensemble.
    table: Option<(CoalitionTable, &'a dyn TreeEnsembleView)>,
    /// The ensemble's number of members M, for a value function that reads them.
    members: usize,
}

impl<'a> ModelGame<'a> {
    /// The game of `value` at `x` (d features) with the background rows `background`
    /// (B × d). `label` is the explained row's y (a class index, as a number, for a
    /// classifier); it is needed by [`ValueFunction::NegLogLoss`] and by `Expected` of
    /// a statistic with a label, and ignored otherwise. Predicts x once, for q_x, and
    /// evaluates v([d]) from it, so a value function the model's predictions do not
    /// support fails here and not in the middle of an estimator.
    ///
    /// Errors: no features; an empty background or one whose columns are not x's; a
    /// non-finite label; a value function the predictions do not support, or one that
    /// needs a label without one (or with a class index the model does not have).
    pub fn new(
        model: &'a dyn Model,
        x: ArrayView1<'a, f64>,
        background: ArrayView2<'a, f64>,
        value: ValueFunction,
        label: Option<f64>,
    ) -> Result<Self> {
        if x.is_empty() {
            return Err(CoreError::Data("the explained row has no features".into()));
        }
        if background.nrows() == 0 {
            return Err(CoreError::Data(
                "the background set is empty: pass at least one row (watson2023 proposes \
                 100 training rows)"
                    .into(),
            ));
        }
        if background.ncols() != x.len() {
            return Err(CoreError::Shape(format!(
                "the background has {} columns but the explained row has {} features",
                background.ncols(),
                x.len()
            )));
        }
        if let Some(y) = label
            && !y.is_finite()
        {
            return Err(CoreError::Data(format!("the label {y} is not finite")));
        }
        let row = x.insert_axis(Axis(0));
        let pred = model.predict(row)?;
        check_len(&pred, 1)?;
        let unit = Array2::ones((1, 1));
        let point = Mixture::of(&pred, 0..1, unit.row(0));
        let members = match value.reads_members() {
            true => {
                let members = model.predict_members(row)?.ok_or_else(|| {
                    CoreError::Capability(format!(
                        "value function `{}` reads an ensemble's members, and this model has \
                         none: use a forest classifier (its trees are its members)",
                        value.quantity_prefix()
                    ))
                })?;
                member_values(value, &members, 1, 1)?;
                members.len()
            }
            false => {
                coalition_values(value, &pred, unit.view(), &point, label)?;
                0
            }
        };
        let table = model
            .tree_ensemble()
            .filter(|view| {
                !matches!(value, ValueFunction::Expected(_))
                    && !value.reads_members()
                    && view
                        .predictions_of_combined(Array2::zeros((0, 1)))
                        .is_some()
            })
            .and_then(|view| Some((CoalitionTable::new(view, x, background)?, view)));
        Ok(ModelGame {
            model,
            x,
            background,
            value,
            label,
            point,
            table,
            members,
        })
    }

    /// The k·B stacked rows of k coalitions: row c·B + b is background row b with the
    /// features of coalition c set to x's values.
    fn stack(&self, coalitions: ArrayView2<'_, bool>) -> Array2<f64> {
        let b = self.background.nrows();
        let mut rows = Array2::zeros((coalitions.nrows() * b, self.x.len()));
        for (c, mask) in coalitions.rows().into_iter().enumerate() {
            let mut block = rows.slice_mut(s![c * b..(c + 1) * b, ..]);
            block.assign(&self.background);
            for (j, _) in mask.iter().enumerate().filter(|&(_, &m)| m) {
                block.column_mut(j).fill(self.x[j]);
            }
        }
        rows
    }
}

impl Game for ModelGame<'_> {
    fn players(&self) -> usize {
        self.x.len()
    }

    fn values(&self, coalitions: ArrayView2<'_, bool>) -> Result<Array1<f64>> {
        if coalitions.ncols() != self.x.len() {
            return Err(CoreError::Shape(format!(
                "coalition masks have {} columns for a game of {} features",
                coalitions.ncols(),
                self.x.len()
            )));
        }
        if let Some((table, view)) = &self.table {
            let pred = view
                .predictions_of_combined(table.combined(coalitions))
                .expect("a linear ensemble, checked in new");
            let unit = Array2::ones((coalitions.nrows(), 1));
            return coalition_values(self.value, &pred, unit.view(), &self.point, self.label);
        }
        let b = self.background.nrows();
        let per_call = (MAX_PREDICT_ROWS / (b * self.members.max(1))).max(1);
        let mut values = Vec::with_capacity(coalitions.nrows());
        for chunk in coalitions.axis_chunks_iter(Axis(0), per_call) {
            let rows = self.stack(chunk);
            if self.members > 0 {
                let members = self.model.predict_members(rows.view())?.ok_or_else(|| {
                    CoreError::Predict(
                        "the model gave its members once and none on a later call".into(),
                    )
                })?;
                values.extend(member_values(self.value, &members, chunk.nrows(), b)?);
                continue;
            }
            let pred = self.model.predict(rows.view())?;
            let weights = Array2::from_elem((chunk.nrows(), b), 1.0 / b as f64);
            values.extend(coalition_values(
                self.value,
                &pred,
                weights.view(),
                &self.point,
                self.label,
            )?);
        }
        Ok(Array1::from(values))
    }
}

/// A coalition's predictive distribution q_S = Σ_b w_b q_b, reduced to what the
/// value functions read.
#[derive(Debug, Clone, PartialEq)]
enum Mixture {
    /// Point predictions: no distribution.
    Point,
    /// The moment-matched Gaussian N(μ, σ²).
    Gaussian { mean: f64, var: f64 },
    /// Class probabilities (the mixture exactly).
    Categorical(Array1<f64>),
}

impl Mixture {
    /// The mixture of rows `rows` of `pred` with weights `w` (summing to 1):
    /// Σ_b w_b q_b for class probabilities; μ = Σ_b w_b μ_b and
    /// σ² = Σ_b w_b σ_b² + Σ_b w_b (μ_b − μ)² for Gaussians.
    fn of(pred: &Predictions, rows: Range<usize>, w: ArrayView1<'_, f64>) -> Mixture {
        match pred {
            Predictions::Point(_) => Mixture::Point,
            Predictions::Gaussian { mean, var } => {
                let means = mean.slice(s![rows.clone()]);
                let mu = means.dot(&w);
                let between: f64 = means
                    .iter()
                    .zip(&w)
                    .map(|(m, w)| w * (m - mu).powi(2))
                    .sum();
                Mixture::Gaussian {
                    mean: mu,
                    var: var.slice(s![rows]).dot(&w) + between,
                }
            }
            Predictions::Probabilities(p) => Mixture::Categorical(w.dot(&p.slice(s![rows, ..]))),
        }
    }

    /// The equal-weight mixture of mixtures of one kind: the mean class
    /// probabilities, or the moment-matched Gaussian (mean of means; mean variance
    /// plus the variance of the means).
    fn pool(parts: &[Mixture]) -> Result<Mixture> {
        let n = parts.len() as f64;
        match parts {
            [Mixture::Categorical(first), ..] => {
                let mut q = Array1::zeros(first.len());
                for part in parts {
                    match part {
                        Mixture::Categorical(p) if p.len() == q.len() => q += &(p / n),
                        other => return Err(mixed("class-probability", other)),
                    }
                }
                Ok(Mixture::Categorical(q))
            }
            [Mixture::Gaussian { .. }, ..] => {
                let mut moments = Vec::with_capacity(parts.len());
                for part in parts {
                    match part {
                        Mixture::Gaussian { mean, var } => moments.push((*mean, *var)),
                        other => return Err(mixed("Gaussian", other)),
                    }
                }
                // Two passes: the mean first, then the spread about it.
                let mean = moments.iter().map(|(m, _)| m / n).sum::<f64>();
                let var = moments
                    .iter()
                    .map(|(m, v)| (v + (m - mean).powi(2)) / n)
                    .sum::<f64>();
                Ok(Mixture::Gaussian { mean, var })
            }
            _ => Ok(Mixture::Point),
        }
    }

    fn kind(&self) -> &'static str {
        match self {
            Mixture::Point => "point",
            Mixture::Gaussian { .. } => "Gaussian",
            Mixture::Categorical(_) => "class-probability",
        }
    }
}

/// The error of members whose predictions are not of one kind (or class count).
fn mixed(first: &str, other: &Mixture) -> CoreError {
    CoreError::Shape(format!(
        "the ensemble's members predict different kinds (or class counts): {first} beside \
         {} predictions",
        other.kind()
    ))
}

/// H(p, q) = −Σ_{y: p(y) > 0} p(y)·log max(q(y), [`PROB_FLOOR`]).
fn cross_entropy(p: &Array1<f64>, q: &Array1<f64>) -> f64 {
    -p.iter()
        .zip(q)
        .filter(|&(&p, _)| p > 0.0)
        .map(|(p, q)| p * q.max(PROB_FLOOR).ln())
        .sum::<f64>()
}

/// H(N(μₓ, σₓ²), N(μ, σ²)) = ½·log(2πσ²) + (σₓ² + (μₓ − μ)²)/(2σ²): the cross-entropy
/// of the full coalition's Gaussian against a coalition's; with μ = μₓ, σ = σₓ it is
/// the entropy, so −KL = H(pₓ) − H(pₓ, q) (watson2023 Prop. 4.1) for both kinds.
fn gaussian_cross_entropy((mean_x, var_x): (f64, f64), (mean, var): (f64, f64)) -> f64 {
    0.5 * (2.0 * PI * var).ln() + (var_x + (mean_x - mean).powi(2)) / (2.0 * var)
}

/// The class index of a label given as a number: an integer in 0..k.
fn class_index(y: f64, k: usize) -> Result<usize> {
    if y >= 0.0 && y.fract() == 0.0 && y < k as f64 {
        Ok(y as usize)
    } else {
        Err(CoreError::Data(format!(
            "the label {y} is not a class index of the model's {k} classes (0..{k})"
        )))
    }
}

/// An error unless `pred` has `rows` rows.
fn check_len(pred: &Predictions, rows: usize) -> Result<()> {
    if pred.len() == rows {
        Ok(())
    } else {
        Err(CoreError::Shape(format!(
            "the model returned {} predictions for {rows} rows",
            pred.len()
        )))
    }
}

/// v(S_c, x) for every coalition c of a batch: the coalition's components are rows
/// c·B..(c + 1)·B of `pred` with the weights `weights[c, ·]` (k × B, each row summing
/// to 1), `point` is q_x and `label` the explained row's y. Every game here reduces
/// its predictions with this one function: [`ModelGame`] with uniform weights 1/B,
/// the exact discrete game of the tests with the conditional weights p(x⁽ᵐ⁾ | x_S).
fn coalition_values(
    value: ValueFunction,
    pred: &Predictions,
    weights: ArrayView2<'_, f64>,
    point: &Mixture,
    label: Option<f64>,
) -> Result<Array1<f64>> {
    let (k, b) = weights.dim();
    check_len(pred, k * b)?;
    if value.needs_label() && label.is_none() {
        return Err(CoreError::Data(format!(
            "value function `{}` needs the explained row's label",
            value.quantity_prefix()
        )));
    }
    let values = match value {
        ValueFunction::Prediction | ValueFunction::Expected(_) => {
            let statistic = match value {
                ValueFunction::Expected(s) => s,
                _ => Statistic::Prediction,
            };
            let target = repeated_label(pred, label.filter(|_| value.needs_label()))?;
            let per_row = statistic.per_row(pred, &target)?;
            Array1::from_shape_fn(k, |c| {
                per_row.slice(s![c * b..(c + 1) * b]).dot(&weights.row(c))
            })
        }
        _ => (0..k)
            .map(|c| {
                let q = Mixture::of(pred, c * b..(c + 1) * b, weights.row(c));
                mixture_value(value, &q, point, label)
            })
            .collect::<Result<Array1<f64>>>()?,
    };
    match values.iter().position(|v| !v.is_finite()) {
        Some(c) => Err(CoreError::NonFinite {
            what: "coalition values (check the model's predictions)",
            row: c,
            column: 0,
            value: values[c],
        }),
        None => Ok(values),
    }
}

/// v(S_c, x) of a value function that reads members, for k coalitions of B
/// components each (rows c·B..(c + 1)·B of every member's batch, weights 1/B): each
/// member's mixture q^m_S, their entropies, and the entropy of their pool q_S
/// (formulas of [`ValueFunction::AleatoricEntropy`] and `EpistemicEntropy`).
fn member_values(
    value: ValueFunction,
    members: &[Predictions],
    k: usize,
    b: usize,
) -> Result<Array1<f64>> {
    if members.is_empty() {
        return Err(CoreError::Invalid("the ensemble has no members".into()));
    }
    for m in members {
        check_len(m, k * b)?;
    }
    let w = Array1::from_elem(b, 1.0 / b as f64);
    let entropy = |q: &Mixture| mixture_value(ValueFunction::Entropy, q, q, None);
    (0..k)
        .map(|c| {
            let each: Vec<Mixture> = members
                .iter()
                .map(|m| Mixture::of(m, c * b..(c + 1) * b, w.view()))
                .collect();
            let mut aleatoric = 0.0;
            for q in &each {
                aleatoric += entropy(q)? / each.len() as f64;
            }
            let v = match value {
                ValueFunction::AleatoricEntropy => aleatoric,
                _ => entropy(&Mixture::pool(&each)?)? - aleatoric,
            };
            if v.is_finite() {
                Ok(v)
            } else {
                Err(CoreError::NonFinite {
                    what: "coalition values (check the members' predictions)",
                    row: c,
                    column: 0,
                    value: v,
                })
            }
        })
        .collect()
}

/// The target of every row of `pred`: the label repeated (class 0 or y = 0 when the
/// statistic reads none).
fn repeated_label(pred: &Predictions, label: Option<f64>) -> Result<Target> {
    let n = pred.len();
    Ok(match pred {
        Predictions::Probabilities(p) => Target::Classes {
            labels: Array1::from_elem(n, label.map_or(Ok(0), |y| class_index(y, p.ncols()))?),
            n_classes: p.ncols(),
        },
        Predictions::Point(_) | Predictions::Gaussian { .. } => {
            Target::Continuous(Array1::from_elem(n, label.unwrap_or(0.0)))
        }
    })
}

/// A value function that reads the mixture q (not a per-row statistic), with
/// `point` = q_x; the formulas are those of [`ValueFunction`].
fn mixture_value(
    value: ValueFunction,
    q: &Mixture,
    point: &Mixture,
    label: Option<f64>,
) -> Result<f64> {
    let need_label = || {
        label.ok_or_else(|| CoreError::Data("neg_log_loss needs the explained row's label".into()))
    };
    let signed = |h: f64| {
        if value == ValueFunction::Entropy {
            h
        } else {
            -h
        }
    };
    match (value, q, point) {
        (ValueFunction::Prediction | ValueFunction::Expected(_), ..) => {
            unreachable!("coalition_values reads these per row, not off the mixture")
        }
        (ValueFunction::AleatoricEntropy | ValueFunction::EpistemicEntropy, ..) => {
            unreachable!("member_values reads these off each member's mixture")
        }
        (_, Mixture::Point, _) => Err(CoreError::Unsupported {
            statistic: value.name(),
            predictions: q.kind(),
            hint: "it reads a predictive distribution: use a model with Gaussian or class \
                   predictions, or the value function `prediction` or `expected`",
        }),
        (ValueFunction::Entropy | ValueFunction::NegEntropy, Mixture::Gaussian { var, .. }, _) => {
            Ok(signed(gaussian_entropy(*var)))
        }
        (ValueFunction::Entropy | ValueFunction::NegEntropy, Mixture::Categorical(q), _) => {
            Ok(signed(categorical_entropy(q.iter().copied())))
        }
        (
            ValueFunction::NegKl,
            Mixture::Gaussian { mean, var },
            Mixture::Gaussian {
                mean: mean_x,
                var: var_x,
            },
        ) => {
            Ok(gaussian_entropy(*var_x) - gaussian_cross_entropy((*mean_x, *var_x), (*mean, *var)))
        }
        (ValueFunction::NegKl, Mixture::Categorical(q), Mixture::Categorical(p))
            if p.len() == q.len() =>
        {
            Ok(cross_entropy(p, p) - cross_entropy(p, q))
        }
        (
            ValueFunction::NegCrossEntropy,
            Mixture::Gaussian { mean, var },
            Mixture::Gaussian {
                mean: mean_x,
                var: var_x,
            },
        ) => Ok(-gaussian_cross_entropy((*mean_x, *var_x), (*mean, *var))),
        (ValueFunction::NegCrossEntropy, Mixture::Categorical(q), Mixture::Categorical(p))
            if p.len() == q.len() =>
        {
            Ok(-cross_entropy(p, q))
        }
        (ValueFunction::NegLogLoss, Mixture::Gaussian { mean, var }, _) => {
            Ok(-gaussian_nll(*mean, *var, need_label()?))
        }
        (ValueFunction::NegLogLoss, Mixture::Categorical(q), _) => {
            Ok(q[class_index(need_label()?, q.len())?].max(PROB_FLOOR).ln())
        }
        _ => Err(CoreError::Shape(format!(
            "the model's predictions at x ({}) and at the coalitions ({}) are not of one kind",
            point.kind(),
            q.kind()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use ndarray::array;

    use super::*;
    use crate::shapley::exact::exact;
    use crate::shapley::fixtures::{Interactions, masks, normal_rows, prediction_game};
    use crate::test_models::{Gaussian, Linear};

    /// A joint distribution of (X, Y) with X on the grid {0, 1}^d (row m of `grid`
    /// has x_j = bit j of m): p(x) and p(y | x).
    struct Joint {
        grid: Array2<f64>,
        px: Array1<f64>,
        py: Array2<f64>,
    }

    impl Joint {
        /// p(x) ∝ `px(x)`, p(· | x) = `py(x)`.
        fn new(d: usize, px: impl Fn(&[f64]) -> f64, py: impl Fn(&[f64]) -> Vec<f64>) -> Joint {
            let grid = Array2::from_shape_fn((1 << d, d), |(m, j)| ((m >> j) & 1) as f64);
            let rows: Vec<Vec<f64>> = grid.rows().into_iter().map(|r| r.to_vec()).collect();
            let mut p = Array1::from_iter(rows.iter().map(|x| px(x)));
            p /= p.sum();
            let cond: Vec<Vec<f64>> = rows.iter().map(|x| py(x)).collect();
            let py = Array2::from_shape_fn((rows.len(), cond[0].len()), |(m, y)| cond[m][y]);
            Joint { grid, px: p, py }
        }

        /// I(Y; X) = Σ_x p(x) Σ_y p(y | x)·log(p(y | x)/p(y)), computed directly.
        fn mutual_information(&self) -> f64 {
            let py = self.px.dot(&self.py);
            self.py
                .rows()
                .into_iter()
                .zip(&self.px)
                .map(|(q, px)| {
                    px * q
                        .iter()
                        .zip(&py)
                        .filter(|&(&q, _)| q > 0.0)
                        .map(|(q, p)| q * (q / p).ln())
                        .sum::<f64>()
                })
                .sum()
        }
    }

    /// The exact game of watson2023 §4 at grid point `at`, with the conditional
    /// q_S = p(Y | X_S = x_S) = Σ_m p(x⁽ᵐ⁾ | x_S)·p(Y | x⁽ᵐ⁾): the components are all
    /// grid points, weighted by p(x⁽ᵐ⁾)·1[x⁽ᵐ⁾_S = x_S]/p(x_S).
    struct Conditional<'a> {
        joint: &'a Joint,
        at: usize,
        value: ValueFunction,
        point: Mixture,
    }

    impl<'a> Conditional<'a> {
        fn new(joint: &'a Joint, at: usize, value: ValueFunction) -> Self {
            let point = Mixture::Categorical(joint.py.row(at).to_owned());
            Conditional {
                joint,
                at,
                value,
                point,
            }
        }
    }

    impl Game for Conditional<'_> {
        fn players(&self) -> usize {
            self.joint.grid.ncols()
        }

        fn values(&self, coalitions: ArrayView2<'_, bool>) -> Result<Array1<f64>> {
            let (grid, x) = (&self.joint.grid, self.joint.grid.row(self.at));
            let (k, m) = (coalitions.nrows(), grid.nrows());
            let mut weights = Array2::zeros((k, m));
            for (c, mask) in coalitions.rows().into_iter().enumerate() {
                for b in 0..m {
                    if (0..x.len()).all(|j| !mask[j] || grid[[b, j]] == x[j]) {
                        weights[[c, b]] = self.joint.px[b];
                    }
                }
                let total = weights.row(c).sum();
                weights.row_mut(c).mapv_inplace(|w| w / total);
            }
            let py = &self.joint.py;
            let tiled = Array2::from_shape_fn((k * m, py.ncols()), |(r, y)| py[[r % m, y]]);
            let pred = Predictions::Probabilities(tiled);
            coalition_values(self.value, &pred, weights.view(), &self.point, None)
        }
    }

    fn binary(p1: f64) -> Vec<f64> {
        vec![1.0 - p1, p1]
    }

    #[test]
    fn worked_example_kl_contribution_of_x_at_one_one_is_zero() {
        // PAPERS.md §4.1: X, Z ~ Bern(0.5) independent, Y ~ Bern(0.3 + 0.4X − 0.2Z).
        // P(Y=1) = 0.3 + 0.2 − 0.1 = 0.4 (not 0.5), P(Y=1 | X=1) = 0.6 (Z averaged
        // out) and P(Y=1 | X=1, Z=1) = 0.5. So at (x, z) = (1, 1)
        // Δ_KL(∅, X) = v_KL({X}) − v_KL(∅) = Σ_y p(y | x, z)·log(p(y | x)/p(y))
        //            = 0.5·log(0.4/0.6) + 0.5·log(0.6/0.4) = 0:
        // q_x = (0.5, 0.5) is as far (in KL) from q_{X} = (0.4, 0.6) as from
        // q_∅ = (0.6, 0.4), though neither distance is 0.
        let joint = Joint::new(2, |_| 1.0, |x| binary(0.3 + 0.4 * x[0] - 0.2 * x[1]));
        let coalitions = masks(2, &[&[], &[0], &[0, 1]]);
        let (at_11, at_10) = (3, 1); // grid rows of (x, z) = (1, 1) and (1, 0)
        let v0 = Conditional::new(&joint, at_11, ValueFunction::Prediction)
            .values(coalitions.view())
            .unwrap();
        assert!(
            (v0[0] - 0.4).abs() < 1e-15 && (v0[1] - 0.6).abs() < 1e-15,
            "{v0}"
        );
        assert!((v0[2] - 0.5).abs() < 1e-15, "{v0}");
        let kl = Conditional::new(&joint, at_11, ValueFunction::NegKl)
            .values(coalitions.view())
            .unwrap();
        let kl_each = 0.5 * (0.5f64 / 0.4).ln() + 0.5 * (0.5f64 / 0.6).ln();
        assert!((kl[0] + kl_each).abs() < 1e-15 && kl[0] < -0.02, "{kl}");
        // Measured exactly 0.0 (the two cross-entropies add the same two terms in
        // another order); the tolerance allows for another summation order.
        assert!((kl[1] - kl[0]).abs() < 1e-15, "Δ_KL = {}", kl[1] - kl[0]);
        assert_eq!(kl[2], 0.0, "v_KL([d]) = −KL(q_x ‖ q_x)");
        // At (1, 0), q_x = (0.3, 0.7): Δ_KL = 0.3·log(0.4/0.6) + 0.7·log(0.6/0.4)
        // = 0.4·log 1.5 ≠ 0, and Δ_CE equals it (Prop. 4.1).
        for value in [ValueFunction::NegKl, ValueFunction::NegCrossEntropy] {
            let v = Conditional::new(&joint, at_10, value)
                .values(coalitions.view())
                .unwrap();
            let delta = v[1] - v[0];
            assert!(
                (delta - 0.4 * 1.5f64.ln()).abs() < 1e-15,
                "{value:?}: {delta}"
            );
        }
    }

    #[test]
    fn worked_example_observing_x_zero_raises_the_entropy() {
        // PAPERS.md §4.1: X ~ Bern(0.8), Y ~ Bern(0.5 + 0.25X): P(Y=1) = 0.7 and
        // H(Y | X=0) = log 2 > H(Y) = H(0.7) > H(Y | X) = 0.2·log 2 + 0.8·H(0.75).
        let joint = Joint::new(
            1,
            |x| if x[0] == 1.0 { 0.8 } else { 0.2 },
            |x| binary(0.5 + 0.25 * x[0]),
        );
        let h = |p: f64| categorical_entropy([p, 1.0 - p].into_iter());
        let both = masks(1, &[&[], &[0]]);
        let p1 = Conditional::new(&joint, 0, ValueFunction::Prediction)
            .values(both.view())
            .unwrap()[0];
        assert!((p1 - 0.7).abs() < 1e-15);
        let at = |m: usize| {
            Conditional::new(&joint, m, ValueFunction::Entropy)
                .values(both.view())
                .unwrap()
        };
        let (v_0, v_1) = (at(0), at(1));
        let h_y = v_0[0];
        let h_y_given_x = 0.2 * v_0[1] + 0.8 * v_1[1];
        assert!((h_y - h(0.7)).abs() < 1e-15);
        assert!((v_0[1] - 2f64.ln()).abs() < 1e-15);
        assert!((h_y_given_x - (0.2 * 2f64.ln() + 0.8 * h(0.75))).abs() < 1e-15);
        assert!(
            v_0[1] > h_y && h_y > h_y_given_x,
            "{} {h_y} {h_y_given_x}",
            v_0[1]
        );
        // So φ_H(X) > 0 at x = 0 (uncertainty rises) and < 0 at x = 1.
        assert!(
            exact(&Conditional::new(&joint, 0, ValueFunction::Entropy))
                .unwrap()
                .phi[0]
                > 0.0
        );
        assert!(
            exact(&Conditional::new(&joint, 1, ValueFunction::Entropy))
                .unwrap()
                .phi[0]
                < 0.0
        );
    }

    #[test]
    fn information_gain_values_sum_to_the_mutual_information_in_expectation() {
        // Three dependent binary features, three classes.
        let joint = Joint::new(
            3,
            |x| 1.0 + x[0] + 2.0 * x[1] * x[2] + 0.5 * x[0] * x[1],
            |x| {
                let logits = [0.0, x[0] - x[1] + 0.5 * x[2], 1.5 * x[0] * x[2] - 0.5];
                let z: f64 = logits.iter().map(|l: &f64| l.exp()).sum();
                logits.iter().map(|l| l.exp() / z).collect()
            },
        );
        let mi = joint.mutual_information();
        let mut expected_sum = 0.0;
        let mut expected_phi = Array1::<f64>::zeros(3);
        for m in 0..joint.grid.nrows() {
            let a = exact(&Conditional::new(&joint, m, ValueFunction::NegEntropy)).unwrap();
            expected_sum += joint.px[m] * a.phi.sum();
            expected_phi.scaled_add(joint.px[m], &a.phi);
        }
        // Measured: I(Y; X) = 0.0734, E_x[Σ_j φ_IG] − I = −1.4e-17, E_x[φ_IG] =
        // (0.027, 0.026, 0.020).
        assert!(mi > 0.05, "I(Y; X) = {mi}");
        assert!((expected_sum - mi).abs() < 1e-12, "{expected_sum} vs {mi}");
        // E_x[v_IG(S ∪ j) − v_IG(S)] = I(Y; X_j | X_S) ≥ 0 (Prop. 4.3), so every
        // feature's mean φ_IG is non-negative; with v_H (the opposite sign) it is not.
        assert!(expected_phi.iter().all(|&p| p > 0.0), "{expected_phi}");
    }

    /// Class probabilities (1 − p, p), p = σ(x₀ + x₁·x₂ − 0.5·x₃).
    struct Logistic;

    impl Model for Logistic {
        fn predict(&self, x: ArrayView2<'_, f64>) -> crate::error::Result<Predictions> {
            let p: Vec<f64> = x
                .rows()
                .into_iter()
                .map(|r| 1.0 / (1.0 + (-(r[0] + r[1] * r[2] - 0.5 * r[3])).exp()))
                .collect();
            Ok(Predictions::binary(p))
        }
    }

    #[test]
    fn class_probability_mixture_is_the_mean_of_the_rows() {
        let background = normal_rows(12, 4, 21);
        let x = array![1.0, -0.5, 2.0, 0.3];
        let game = ModelGame::new(
            &Logistic,
            x.view(),
            background.view(),
            ValueFunction::Entropy,
            None,
        )
        .unwrap();
        // S = {0, 2}: rows (x₀, b₁, x₂, b₃).
        let mut rows = background.clone();
        rows.column_mut(0).fill(x[0]);
        rows.column_mut(2).fill(x[2]);
        let Predictions::Probabilities(p) = Logistic.predict(rows.view()).unwrap() else {
            unreachable!()
        };
        let q = p.mean_axis(Axis(0)).unwrap();
        let v = game.values(masks(4, &[&[0, 2]]).view()).unwrap();
        assert!((v[0] - categorical_entropy(q.iter().copied())).abs() < 1e-14);
        // The label's log-probability under the mixture, and a label that is no class.
        let loss = ModelGame::new(
            &Logistic,
            x.view(),
            background.view(),
            ValueFunction::NegLogLoss,
            Some(1.0),
        )
        .unwrap();
        let v = loss.values(masks(4, &[&[0, 2]]).view()).unwrap();
        assert!((v[0] - q[1].ln()).abs() < 1e-14);
        for bad in [2.0, 0.5, -1.0] {
            let err = ModelGame::new(
                &Logistic,
                x.view(),
                background.view(),
                ValueFunction::NegLogLoss,
                Some(bad),
            );
            assert!(matches!(err, Err(CoreError::Data(_))), "label {bad}");
        }
    }

    #[test]
    fn gaussian_mixture_is_moment_matched() {
        let background = normal_rows(30, 3, 22);
        let x = array![0.4, -0.2, 1.0];
        let model = Gaussian { ignore: None };
        let Predictions::Gaussian { mean, var } = model.predict(background.view()).unwrap() else {
            unreachable!()
        };
        let Predictions::Gaussian { mean: mx, var: vx } =
            model.predict(x.view().insert_axis(Axis(0))).unwrap()
        else {
            unreachable!()
        };
        let (mx, vx) = (mx[0], vx[0]);
        // q_∅ = N(μ̄, mean σ² + population variance of the means).
        let mu = mean.mean().unwrap();
        let sigma2 = var.mean().unwrap() + mean.var(0.0);
        let value = |v: ValueFunction, label| {
            ModelGame::new(&model, x.view(), background.view(), v, label)
                .unwrap()
                .values(masks(3, &[&[], &[0, 1, 2]]).view())
                .unwrap()
        };
        let h = value(ValueFunction::Entropy, None);
        assert!((h[0] - 0.5 * (2.0 * PI * std::f64::consts::E * sigma2).ln()).abs() < 1e-12);
        assert!((h[1] - gaussian_entropy(vx)).abs() < 1e-12);
        let kl = value(ValueFunction::NegKl, None);
        let want = -0.5 * ((sigma2 / vx).ln() + (vx + (mx - mu).powi(2)) / sigma2 - 1.0);
        assert!(
            (kl[0] - want).abs() < 1e-12 && want < -0.1,
            "{kl} vs {want}"
        );
        assert!(kl[1].abs() < 1e-12, "v_KL([d]) = {}", kl[1]);
        let ce = value(ValueFunction::NegCrossEntropy, None);
        assert!(
            (ce[1] + gaussian_entropy(vx)).abs() < 1e-12,
            "H(q_x, q_x) = H(q_x)"
        );
        assert!(
            ((ce[1] - ce[0]) - (kl[1] - kl[0])).abs() < 1e-12,
            "Prop. 4.1"
        );
        let ll = value(ValueFunction::NegLogLoss, Some(0.7));
        assert!((ll[0] + gaussian_nll(mu, sigma2, 0.7)).abs() < 1e-12);
    }

    #[test]
    fn expected_statistic_is_the_background_mean_of_per_row_values() {
        let background = normal_rows(25, 3, 23);
        let x = array![1.5, -1.0, 0.5];
        let model = Gaussian { ignore: None };
        let empty = masks(3, &[&[]]);
        let expected = ModelGame::new(
            &model,
            x.view(),
            background.view(),
            ValueFunction::Expected(Statistic::Entropy),
            None,
        )
        .unwrap()
        .values(empty.view())
        .unwrap()[0];
        let Predictions::Gaussian { var, .. } = model.predict(background.view()).unwrap() else {
            unreachable!()
        };
        let direct = var.mapv(gaussian_entropy).mean().unwrap();
        assert!((expected - direct).abs() < 1e-12, "{expected} vs {direct}");
        let mixture = ModelGame::new(
            &model,
            x.view(),
            background.view(),
            ValueFunction::Entropy,
            None,
        )
        .unwrap()
        .values(empty.view())
        .unwrap()[0];
        // Measured 4.16 vs 2.37.
        assert!(mixture > expected + 0.1, "Jensen: {mixture} vs {expected}");
        // v₀ of a linear model: the mean of the background predictions.
        let linear = Linear(vec![1.0, 2.0, -1.0]);
        let v0 = prediction_game(&linear, x.view(), background.view())
            .values(empty.view())
            .unwrap()[0];
        let Predictions::Point(f) = linear.predict(background.view()).unwrap() else {
            unreachable!()
        };
        assert!((v0 - f.mean().unwrap()).abs() < 1e-12);
    }

    #[test]
    fn unsupported_value_functions_and_bad_shapes_are_errors() {
        let background = normal_rows(5, 3, 24);
        let x = array![0.0, 1.0, 2.0];
        let linear = Linear(vec![1.0, 1.0, 1.0]);
        let new = |model: &dyn Model, bg: ArrayView2<'_, f64>, value, label| {
            ModelGame::new(model, x.view(), bg, value, label).map(|_| ())
        };
        for value in [
            ValueFunction::Entropy,
            ValueFunction::NegKl,
            ValueFunction::NegLogLoss,
        ] {
            let err = new(&linear, background.view(), value, Some(1.0)).unwrap_err();
            assert!(
                matches!(err, CoreError::Unsupported { .. }),
                "{value:?}: {err}"
            );
        }
        assert!(
            new(
                &linear,
                background.view(),
                ValueFunction::Expected(Statistic::SquaredError),
                Some(1.0)
            )
            .is_ok()
        );
        let gaussian = Gaussian { ignore: None };
        for value in [
            ValueFunction::NegLogLoss,
            ValueFunction::Expected(Statistic::Nll),
        ] {
            let err = new(&gaussian, background.view(), value, None).unwrap_err();
            assert!(err.to_string().contains("label"), "{err}");
        }
        let empty = Array2::<f64>::zeros((0, 3));
        assert!(new(&linear, empty.view(), ValueFunction::Prediction, None).is_err());
        let narrow = Array2::<f64>::zeros((4, 2));
        assert!(matches!(
            new(&linear, narrow.view(), ValueFunction::Prediction, None),
            Err(CoreError::Shape(_))
        ));
        let game = prediction_game(&linear, x.view(), background.view());
        assert!(game.values(Array2::from_elem((2, 4), true).view()).is_err());
    }

    /// [`Interactions`] that counts its `predict` calls.
    struct CountingModel(AtomicUsize);

    impl Model for CountingModel {
        fn predict(&self, x: ArrayView2<'_, f64>) -> crate::error::Result<Predictions> {
            self.0.fetch_add(1, Ordering::SeqCst);
            Interactions.predict(x)
        }
    }

    #[test]
    fn batches_are_predicted_in_one_call_or_in_chunks_with_the_same_values() {
        let model = CountingModel(AtomicUsize::new(0));
        let x = array![0.5, -1.0, 1.5, 0.2, -0.3];
        let all = Array2::from_shape_fn((32, 5), |(m, j)| (m >> j) & 1 == 1);
        let small = normal_rows(10, 5, 25);
        let game = prediction_game(&model, x.view(), small.view());
        model.0.store(0, Ordering::SeqCst);
        game.values(all.view()).unwrap();
        assert_eq!(model.0.load(Ordering::SeqCst), 1, "32·10 rows: one call");
        // 32 coalitions × 3000 rows = 96 000 rows: ⌊65 536/3000⌋ = 21 coalitions per
        // call, so 2 calls; the values are those of one coalition at a time.
        let large = normal_rows(3000, 5, 26);
        let game = prediction_game(&model, x.view(), large.view());
        model.0.store(0, Ordering::SeqCst);
        let batch = game.values(all.view()).unwrap();
        assert_eq!(model.0.load(Ordering::SeqCst), 2);
        for (c, mask) in all.rows().into_iter().enumerate() {
            let one = game.values(mask.insert_axis(Axis(0))).unwrap();
            assert_eq!(one[0], batch[c]);
        }
    }

    /// An ensemble of class-probability members: member m predicts
    /// P(1 | x) = σ(a_m·x₀ + b_m·x₁ + c_m·x₂); the ensemble predicts their mean.
    struct Committee(Vec<[f64; 3]>);

    impl Committee {
        fn member(&self, m: usize, x: ArrayView2<'_, f64>) -> Array2<f64> {
            let w = self.0[m];
            Array2::from_shape_fn((x.nrows(), 2), |(i, c)| {
                let z = w[0] * x[[i, 0]] + w[1] * x[[i, 1]] + w[2] * x[[i, 2]];
                let p = 1.0 / (1.0 + (-z).exp());
                if c == 1 { p } else { 1.0 - p }
            })
        }
    }

    impl Model for Committee {
        fn predict(&self, x: ArrayView2<'_, f64>) -> crate::error::Result<Predictions> {
            let sum = (0..self.0.len()).fold(Array2::zeros((x.nrows(), 2)), |acc, m| {
                acc + self.member(m, x)
            });
            Ok(Predictions::Probabilities(sum / self.0.len() as f64))
        }

        fn predict_members(
            &self,
            x: ArrayView2<'_, f64>,
        ) -> crate::error::Result<Option<Vec<Predictions>>> {
            Ok(Some(
                (0..self.0.len())
                    .map(|m| Predictions::Probabilities(self.member(m, x)))
                    .collect(),
            ))
        }
    }

    fn all_coalitions(d: usize) -> Array2<bool> {
        Array2::from_shape_fn((1 << d, d), |(m, j)| m >> j & 1 == 1)
    }

    /// h_a(S) + h_e(S) = H(q_S), the entropy game, for every coalition; h_e ≥ 0; the
    /// Shapley values of each are efficient.
    #[test]
    fn aleatoric_and_epistemic_entropy_add_up_to_the_entropy() {
        let model = Committee(vec![[2.0, -1.0, 0.5], [-0.5, 1.5, 1.0], [1.0, 1.0, -2.0]]);
        let rows = normal_rows(12, 3, 8);
        let (x, background) = (rows.row(0), rows.slice(s![1.., ..]));
        let all = all_coalitions(3);
        let game = |value| ModelGame::new(&model, x, background, value, None).unwrap();
        let [total, aleatoric, epistemic] = [
            ValueFunction::Entropy,
            ValueFunction::AleatoricEntropy,
            ValueFunction::EpistemicEntropy,
        ]
        .map(|v| game(v).values(all.view()).unwrap());
        let gap = (&aleatoric + &epistemic - &total).mapv(f64::abs).sum();
        assert!(gap < 1e-12, "{gap}");
        assert!(epistemic.iter().all(|&e| e > 1e-4), "{epistemic}");
        for v in [
            ValueFunction::AleatoricEntropy,
            ValueFunction::EpistemicEntropy,
        ] {
            assert!(exact(&game(v)).unwrap().efficiency_gap() < 1e-12);
        }
    }

    /// By hand, at the full coalition (the hybrid row is x itself): h_a is the mean
    /// of the members' binary entropies, h_e the entropy of their mean minus it; and
    /// members that agree leave no epistemic entropy anywhere.
    #[test]
    fn plug_in_entropies_by_hand_and_for_agreeing_members() {
        let model = Committee(vec![[1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]]);
        let x = array![0.8, 0.0, 0.0];
        let background = array![[0.1, 0.3, -0.2], [-0.4, 0.2, 0.9]];
        let h = |p: f64| -(p * p.ln() + (1.0 - p) * (1.0 - p).ln());
        let p = 1.0 / (1.0 + (-0.8f64).exp());
        let full = array![[true, true, true]];
        let value = |v| {
            ModelGame::new(&model, x.view(), background.view(), v, None)
                .unwrap()
                .values(full.view())
                .unwrap()[0]
        };
        // The members predict p and 1 − p: equal entropies, mean probability ½.
        assert!((value(ValueFunction::AleatoricEntropy) - h(p)).abs() < 1e-15);
        let e = value(ValueFunction::EpistemicEntropy);
        assert!((e - (2f64.ln() - h(p))).abs() < 1e-15, "{e}");
        let agreeing = Committee(vec![[1.0, -2.0, 0.5]; 3]);
        let g = ModelGame::new(
            &agreeing,
            x.view(),
            background.view(),
            ValueFunction::EpistemicEntropy,
            None,
        )
        .unwrap();
        let values = g.values(all_coalitions(3).view()).unwrap();
        assert!(values.iter().all(|v| v.abs() < 1e-15), "{values}");
    }

    #[test]
    fn a_model_without_members_has_no_epistemic_entropy_game() {
        let x = array![0.5, 0.5];
        let background = array![[0.0, 1.0]];
        let err = ModelGame::new(
            &Linear(vec![1.0, 2.0]),
            x.view(),
            background.view(),
            ValueFunction::EpistemicEntropy,
            None,
        )
        .err()
        .unwrap()
        .to_string();
        assert!(
            err.contains("epistemic_entropy") && err.contains("members"),
            "{err}"
        );
    }
}
