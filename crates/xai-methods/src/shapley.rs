//! Shapley values of the test rows (watson2023 Eq. 1), their summaries per feature,
//! and split-conformal intervals for a new row's value (watson2023 Theorem 5.1).
//!
//! For each explained row x⁽ⁱ⁾ the estimator gives φ_j(x⁽ⁱ⁾), j = 1..d:
//! - `tree`: path-dependent TreeSHAP of a tree ensemble's output (the raw margin of a
//!   booster; class `output`'s frequency of a classification forest), the game
//!   v(S) = E_tree[f(x) | x_S] (xai_core::shapley::tree);
//! - `exact` / `kernel`: the interventional game of a value function over a background
//!   of training rows (xai_core::shapley::game), by enumeration or KernelSHAP;
//! - `gradient`: expected gradients of a differentiable binary classifier's function
//!   h(z_1(x), …, z_M(x)) of its member log-odds (xai_core::shapley::gradient), from
//!   `samples` draws of a background row and a point on the path to x per explained
//!   row; efficient in expectation, so `<p>_efficiency_gap` is its Monte-Carlo error.
//!
//! Quantities, with p the value function's prefix (`prediction` for v₀):
//! - `<p>_shap`: the mean of φ_j over the rows, with its t-interval;
//! - `<p>_shap_abs`: the mean of |φ_j| (the usual SHAP importance), with its t-interval;
//! - with `conformal: {alpha, calibrate}`: the first n_c = ⌊calibrate·n⌋ explained
//!   rows calibrate, the other n − n_c are new rows. `<p>_shap_mu` = μ_j (the mean
//!   over the calibration rows), `<p>_shap_tau` = τ_j (the ⌈(n_c + 1)(1 − α)⌉-th
//!   smallest |φ_j − μ_j| over them) and `<p>_shap_coverage`, the share of the new
//!   rows whose φ_j lies in μ_j ± τ_j (watson2023 Theorem 5.1: ≥ 1 − α in
//!   expectation by exchangeability; random, so it can fail, unlike a leave-one-out
//!   share over one set of rows, which is q/n by construction).
//!
//! - with `acquisition: {drivers}` (feature-value acquisition, watson2023 Fig. 3b):
//!   every missing cell (i, j) of the test rows is scored by |φ_j(x⁽ⁱ⁾)/Σ_k φ_k(x⁽ⁱ⁾)|
//!   (the authors' code; rows whose values sum to 0 are left out) and labelled by
//!   whether j is a driver; `<p>_auc` is the area under the ROC curve of the pooled
//!   cells and `<p>_roc` its true-positive rate at false-positive rates x = 0, 1/(k−1),
//!   …, 1 (k = `points`), so that the mean over replicates is the vertically averaged
//!   ROC curve.
//!
//! - with `efficiency: true`: `<p>_efficiency_gap`, the largest |Σ_j φ_j − (v([d]) −
//!   v(∅))| over the explained rows (Eq. 1's efficiency: the attributions sum to
//!   h(x) − E h for an entropy game, watson2023 Fig. 1a).
//! - with `separating: {features: k, top: m}` (a binary target): the k features whose
//!   class means over the training rows differ most, |x̄_j(1) − x̄_j(0)|, are the
//!   separating ones (the strokes that tell two digits apart); per explained row, the
//!   share of its m largest |φ_j| among them; `<p>_separating_share` is their mean
//!   over the rows with a t-interval (k/d by chance). Its null is the map with no
//!   model, b_j = x_j − x̄'_j (x̄' the background mean: the attributions of h(x) =
//!   Σ_j x_j, which weighs every feature alike), whose share is
//!   `<p>_separating_baseline`; `<p>_separating_excess` is the mean over the rows of
//!   each row's share minus its baseline share, a paired t-interval: > 0 where the
//!   model's map finds the separating features more often than the image alone
//!   (watson2023 Fig. 1a, where the strokes themselves lie on the separating pixels).
//!
//! `keep: k` keeps the values of the first k rows for figures (of the features in
//! `keep_features`, default all), as one-point curves (`ice.csv`: x = the row's value
//! of the feature, value = φ), the points of a SHAP summary or dependence plot.

use ndarray::{Array2, ArrayView2, s};
use rand::Rng;
use rayon::prelude::*;
use serde::Deserialize;
use xai_core::rng::{StreamRng, stream_rng};
use xai_core::shapley::Attribution;
use xai_core::shapley::exact::exact;
use xai_core::shapley::game::{MAX_PREDICT_ROWS, ModelGame, ValueFunction};
use xai_core::shapley::gradient::{ExpectedGradients, Pointwise, draws};
use xai_core::shapley::kernel::kernel_shap;
use xai_core::shapley::tree::tree_shap;
use xai_core::{CoreError, Target, t_interval};

use crate::method::{Emitted, Input, Method, Plan};
use xai_results::quantity::{Aggregation, Quantity, Suffix};
use xai_results::table::CurveRow;
use xai_results::{Invalid, Value, point};

/// How the Shapley values are computed.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Estimator {
    /// Path-dependent TreeSHAP of a tree ensemble (exact for its game).
    Tree,
    /// Enumeration of all 2^d coalitions (d ≤ 20).
    Exact,
    /// KernelSHAP with paired sampling of `samples` coalitions (the default: any
    /// model).
    #[default]
    Kernel,
    /// Expected gradients from `samples` draws (a network's member log-odds).
    Gradient,
}

fn half() -> f64 {
    0.5
}

fn default_background() -> usize {
    100
}

fn default_samples() -> usize {
    2048
}

/// Where the background rows of `exact` and `kernel` come from.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum BackgroundFrom {
    /// The first training rows.
    #[default]
    Train,
    /// The first test rows (watson2023 Fig. 1a's code: one batch of test images).
    Test,
}

/// The separating features and how many of each row's largest |φ_j| are read (module
/// doc).
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Separating {
    /// k: how many features count as separating (1 ≤ k < d).
    pub features: usize,
    /// m: how many of each row's largest |φ_j| are read (≥ 1).
    #[schemars(range(min = 1))]
    pub top: usize,
}

/// `shapley: {estimator, value, background, background_from, samples, output, rows,
/// keep, keep_features, keep_row_values, conformal, acquisition, efficiency,
/// separating}`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShapleySpec {
    /// `tree`, `exact`, `kernel` (the default) or `gradient`.
    #[serde(default)]
    pub estimator: Estimator,
    /// The value function of `exact` and `kernel` (default `prediction`, v₀); `tree`
    /// explains the trees' own output, v₀ only. With `gradient` the value names a
    /// function h(x) of the row's own prediction (xai_core::shapley::gradient), and
    /// v(∅) is the background mean of h, where `exact` and `kernel` take h of the
    /// background mixture.
    #[serde(default = "prediction")]
    pub value: ValueFunction,
    /// Background rows of `exact`, `kernel` and `gradient`: the first this many
    /// training rows (default 100, watson2023's proposal), in file order unless the
    /// dataset is `shuffled`.
    #[serde(default = "default_background")]
    pub background: usize,
    /// Take the background from the `train` rows (default) or the `test` rows.
    #[serde(default)]
    pub background_from: BackgroundFrom,
    /// Coalitions per explained row for `kernel`, draws for `gradient` (default 2048).
    #[serde(default = "default_samples")]
    pub samples: usize,
    /// The output of `tree` (a classification forest's class; default 0, the
    /// regression value or a booster's margin).
    #[serde(default)]
    pub output: usize,
    /// Explain the first this many test rows (default: all).
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub rows: Option<usize>,
    /// Keep the values of the first this many explained rows for figures (default 0).
    #[serde(default)]
    pub keep: usize,
    /// The features whose kept values are written (default: every feature), e.g. the
    /// shifted feature of a dependence plot (watson2023 Fig. 2).
    #[serde(default)]
    pub keep_features: Vec<String>,
    /// Write each kept row's feature values beside each of its values (the
    /// `at_<feature>` columns of `ice.csv`, which colour a dependence plot by another
    /// feature). Default true; `false` for images, whose pixel maps need each pixel's
    /// own value only (d² values per image otherwise: 45 MB for 30 MNIST images).
    #[serde(default = "yes")]
    pub keep_row_values: bool,
    /// Split-conformal intervals μ_j ± τ_j and their coverage of new rows (watson2023
    /// Table 1); none by default.
    #[serde(default)]
    pub conformal: Option<Conformal>,
    /// Rank the test rows' missing cells and score the ranking against the true
    /// drivers (watson2023 Fig. 3b); none by default.
    #[serde(default)]
    pub acquisition: Option<Acquisition>,
    /// Report the largest efficiency gap over the explained rows (module doc).
    #[serde(default)]
    pub efficiency: bool,
    /// Report the share of each row's largest |φ_j| on the separating features
    /// (module doc); none by default.
    #[serde(default)]
    pub separating: Option<Separating>,
}

/// Split-conformal intervals (watson2023 Theorem 5.1): their level, and which of the
/// explained rows calibrate them.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Conformal {
    /// The miscoverage level α (watson2023: 0.1), in (0, 1).
    #[schemars(extend("exclusiveMinimum" = 0, "exclusiveMaximum" = 1))]
    pub alpha: f64,
    /// The share of the explained rows that calibrate (the first ⌊share·n⌋); the rest
    /// are the new rows whose coverage is measured. In (0, 1); default 0.5, half.
    #[serde(default = "half")]
    #[schemars(extend("exclusiveMinimum" = 0, "exclusiveMaximum" = 1))]
    pub calibrate: f64,
}

impl Conformal {
    /// How many of `n` explained rows calibrate.
    fn calibration_rows(&self, n: usize) -> usize {
        (self.calibrate * n as f64).floor() as usize
    }
}

/// Feature-value acquisition: which features are the true drivers, and the ROC
/// curve's resolution.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Acquisition {
    /// The features that drive the explained quantity (the positives).
    #[schemars(length(min = 1))]
    pub drivers: Vec<String>,
    /// Points of the reported ROC curve, false-positive rates evenly from 0 to 1
    /// (≥ 2; default 51).
    #[serde(default = "default_points")]
    #[schemars(range(min = 2))]
    pub points: usize,
}

fn default_points() -> usize {
    51
}

fn yes() -> bool {
    true
}

fn prediction() -> ValueFunction {
    ValueFunction::Prediction
}

impl Acquisition {
    /// At least one driver, all known, and some features left that are not drivers;
    /// at least 2 ROC points.
    fn validate(&self, plan: &Plan<'_>) -> Result<(), Invalid> {
        crate::method::known_features(plan, &self.drivers)?;
        if plan
            .feature_names
            .is_some_and(|n| n.len() <= self.drivers.len())
        {
            return Err(Invalid::new(
                "drivers",
                "some features must not be drivers: the ROC curve needs both kinds",
            ));
        }
        Ok(())
    }
}

impl Separating {
    /// At least one value read per row; k and m within the features.
    fn validate(&self, plan: &Plan<'_>) -> Result<(), Invalid> {
        if let Some(names) = plan.feature_names
            && (self.features == 0 || self.features >= names.len() || self.top > names.len())
        {
            return Err(Invalid::new(
                "separating",
                format!(
                    "features = {} must lie in 1..{} and top = {} at most {} (the features)",
                    self.features,
                    names.len(),
                    self.top,
                    names.len()
                ),
            ));
        }
        Ok(())
    }
}

impl Conformal {
    /// Enough calibrating rows of the `n` explained (when known) for the
    /// ⌈(n_c + 1)(1 − α)⌉-th smallest deviation (α and `calibrate` lie in (0, 1) by
    /// their declared ranges).
    fn validate(&self, n: Option<usize>) -> Result<(), Invalid> {
        if let Some(n) = n {
            let n_c = self.calibration_rows(n);
            if ((n_c + 1) as f64 * (1.0 - self.alpha)).ceil() as usize > n_c {
                return Err(Invalid::new(
                    "calibrate",
                    format!(
                        "{n_c} of the {n} explained rows calibrate: too few for α = {} \
                         (the ⌈(n_c + 1)(1 − α)⌉-th smallest deviation must exist); raise \
                         `calibrate`, `alpha` or the rows",
                        self.alpha
                    ),
                ));
            }
        }
        Ok(())
    }
}

impl ShapleySpec {
    /// The estimator against the value function, the models and the features:
    /// TreeSHAP explains tree ensembles' predictions only; expected gradients a
    /// network's binary predictions; a member-reading value needs a classifier with
    /// members; a game needs background rows, KernelSHAP more coalitions than
    /// features, exact enumeration at most 20 features.
    fn validate_estimator(&self, plan: &Plan<'_>) -> Result<(), Invalid> {
        if self.estimator == Estimator::Tree {
            if self.value != ValueFunction::Prediction {
                return Err(Invalid::new(
                    "value",
                    "TreeSHAP explains the trees' own output (value: prediction); use estimator \
                     `exact` or `kernel` for another value function",
                ));
            }
            if let Some((name, l)) = crate::method::model_without(plan.models, |c| c.trees) {
                return Err(Invalid::new(
                    "estimator",
                    format!(
                        "estimator `tree` needs tree-ensemble models (random_forest, \
                         extra_trees, rpart, r_random_forest, xgboost); model `{name}` is {}",
                        l.name()
                    ),
                ));
            }
        }
        if self.estimator == Estimator::Gradient {
            self.validate_gradient(plan)?;
        }
        if self.value.reads_members()
            && let Some(d) = plan.loaded
            && matches!(d.y(), xai_core::Target::Continuous(_))
        {
            return Err(Invalid::new(
                "value",
                format!(
                    "value `{}` splits a classifier's entropy over its members' class \
                     probabilities, but this data's target is continuous: use a \
                     classification dataset, or value `prediction`",
                    self.value.quantity_prefix()
                ),
            ));
        }
        if self.value.reads_members()
            && let Some((name, l)) = crate::method::model_without(plan.models, |c| c.members)
        {
            return Err(Invalid::new(
                "value",
                format!(
                    "value `{}` splits an ensemble's entropy by its members; model `{name}` \
                     ({}) has none: use a forest",
                    self.value.quantity_prefix(),
                    l.name()
                ),
            ));
        }
        if self.estimator != Estimator::Tree && self.background == 0 {
            return Err(Invalid::new(
                "background",
                "at least one background row is needed",
            ));
        }
        if self.estimator == Estimator::Kernel && self.samples < 2 {
            return Err(Invalid::new(
                "samples",
                "KernelSHAP needs at least 2 coalitions",
            ));
        }
        if let Some(names) = plan.feature_names
            && self.estimator == Estimator::Kernel
            && self.samples <= names.len()
        {
            return Err(Invalid::new(
                "samples",
                format!(
                    "KernelSHAP of {} features needs more than {} coalitions to determine \
                     their values (2048 is the default)",
                    names.len(),
                    names.len()
                ),
            ));
        }
        if let Some(names) = plan.feature_names
            && self.estimator == Estimator::Exact
            && names.len() > 20
        {
            return Err(Invalid::new(
                "estimator",
                format!(
                    "exact enumeration of {} features takes 2^{} coalitions; use `kernel`",
                    names.len(),
                    names.len()
                ),
            ));
        }
        Ok(())
    }

    /// Expected gradients explain a function of a binary classifier's member log-odds,
    /// `samples` ≥ 1 draws per row, with models whose members are differentiable.
    fn validate_gradient(&self, plan: &Plan<'_>) -> Result<(), Invalid> {
        Pointwise::of(self.value).map_err(|e| Invalid::new("value", e.to_string()))?;
        if self.samples == 0 {
            return Err(Invalid::new(
                "samples",
                "expected gradients needs at least 1 draw per row (shap's default is 200)",
            ));
        }
        if let Some(d) = plan.loaded
            && !matches!(d.y(), Target::Classes { n_classes: 2, .. })
        {
            return Err(Invalid::new(
                "estimator",
                "estimator `gradient` differentiates a binary classifier's member log-odds; \
                 this data's target is not two classes: use `kernel`",
            ));
        }
        if let Some((name, l)) = crate::method::model_without(plan.models, |c| c.gradients) {
            return Err(Invalid::new(
                "estimator",
                format!(
                    "estimator `gradient` differentiates a network's members in its inputs \
                     (mlp, bayes_by_backprop, cnn); model `{name}` is {}: use `kernel`",
                    l.name()
                ),
            ));
        }
        Ok(())
    }

    /// `<value prefix>_shap`, the Shapley values' quantity.
    fn shap(&self) -> Quantity {
        Quantity::new(self.value.quantity_prefix(), None, Aggregation::Shap)
    }

    /// A summary of the Shapley values, `<value prefix>_shap_<word>`.
    fn summary(&self, word: &'static str) -> String {
        self.shap().with(Suffix::Word(word)).to_string()
    }

    /// The background: the first `background` rows of the training or test rows.
    fn background_rows(&self, input: &Input<'_>) -> Array2<f64> {
        let source = match self.background_from {
            BackgroundFrom::Train => input.train,
            BackgroundFrom::Test => input.test,
        };
        source
            .x()
            .slice(s![..self.background.min(source.n_rows()), ..])
            .to_owned()
    }

    /// The null of `separating` (module doc): per explained row, its share and the
    /// share of the map with no model, x_j − x̄'_j over the background, as
    /// `separating_share`, `separating_baseline` and their paired `separating_excess`.
    fn separating(
        &self,
        sep: &Separating,
        input: &Input<'_>,
        phi: ArrayView2<'_, f64>,
    ) -> xai_core::error::Result<Vec<Value>> {
        let x = input.test.x();
        let x = x.slice(s![..phi.nrows(), ..]);
        let background = self.background_rows(input);
        let mean = background
            .mean_axis(ndarray::Axis(0))
            .ok_or_else(|| CoreError::Invalid("`separating` needs background rows".into()))?;
        let baseline = &x - &mean;
        let shares = separating_shares(sep, input.train, phi)?;
        let base = separating_shares(sep, input.train, baseline.view())?;
        let excess: Vec<f64> = shares.iter().zip(&base).map(|(a, b)| a - b).collect();
        Ok([
            ("separating_share", shares),
            ("separating_baseline", base),
            ("separating_excess", excess),
        ]
        .into_iter()
        .map(|(word, values)| Value {
            quantity: self.summary(word),
            feature: String::new(),
            x: None,
            estimate: t_interval(&values, input.level),
        })
        .collect())
    }

    /// φ (rows × d) of the first `n` test rows, with v(∅) and v([d]) per row.
    fn attributions(
        &self,
        input: &Input<'_>,
        n: usize,
        rng: &mut StreamRng,
    ) -> xai_core::error::Result<Vec<Attribution>> {
        let model = input.model()?;
        let x = input.test.x();
        let x = x.slice(s![..n, ..]);
        if self.estimator == Estimator::Tree {
            let view = model.tree_ensemble().ok_or_else(|| {
                CoreError::Capability("estimator `tree` needs a tree-ensemble model".into())
            })?;
            return tree_shap(view, x, self.output);
        }
        let background = self.background_rows(input);
        let seed = rng.next_u64();
        if self.estimator == Estimator::Gradient {
            let gradients = model.member_gradients().ok_or_else(|| {
                CoreError::Invalid(
                    "estimator `gradient` needs a binary classifier with differentiable members"
                        .into(),
                )
            })?;
            let eg =
                ExpectedGradients::new(gradients, background.view(), Pointwise::of(self.value)?)?;
            return (0..n)
                .into_par_iter()
                .map(|i| {
                    let d = draws(
                        &mut stream_rng(seed, i as u64),
                        background.nrows(),
                        self.samples,
                    );
                    eg.attribution(x.row(i), &d)
                })
                .collect();
        }
        (0..n)
            .into_par_iter()
            .map(|i| {
                let label = match input.test.y() {
                    Target::Continuous(y) => y[i],
                    Target::Classes { labels, .. } => labels[i] as f64,
                };
                let game =
                    ModelGame::new(model, x.row(i), background.view(), self.value, Some(label))?;
                match self.estimator {
                    Estimator::Exact => exact(&game),
                    _ => kernel_shap(&game, self.samples, &mut stream_rng(seed, i as u64)),
                }
            })
            .collect()
    }
}

impl Method for ShapleySpec {
    fn compares_with_labels(&self) -> bool {
        self.value.needs_label()
    }

    fn quantities(&self) -> Vec<String> {
        let mut q = vec![self.shap().to_string(), self.summary("abs")];
        if self.conformal.is_some() {
            q.extend(["mu", "tau", "coverage"].map(|w| self.summary(w)));
        }
        if self.acquisition.is_some() {
            q.extend(["auc", "roc"].map(|w| self.summary(w)));
        }
        if self.efficiency {
            q.push(self.summary("efficiency_gap"));
        }
        if self.separating.is_some() {
            q.extend(
                [
                    "separating_share",
                    "separating_baseline",
                    "separating_excess",
                ]
                .map(|w| self.summary(w)),
            );
        }
        q
    }

    fn curve_quantities(&self) -> Vec<String> {
        if self.keep > 0 {
            vec![self.shap().to_string()]
        } else {
            Vec::new()
        }
    }

    /// TreeSHAP predicts nothing; a game predicts its coalitions' background rows in
    /// batches of at most [`MAX_PREDICT_ROWS`] rows (or one coalition's); expected
    /// gradients the background, then each row's points on its paths.
    fn predict_rows(&self, n_test: usize) -> usize {
        match self.estimator {
            Estimator::Tree => n_test,
            Estimator::Exact | Estimator::Kernel => MAX_PREDICT_ROWS.max(self.background),
            Estimator::Gradient => self.samples.max(self.background),
        }
    }

    /// KernelSHAP's coalitions for one row: samples + 2 masks of p bytes, and per
    /// coalition its value, the sampled values' copy and its weight (8 bytes each).
    fn held_bytes(&self, _n_test: usize, p: usize) -> (u128, &'static str) {
        match self.estimator {
            Estimator::Kernel => ((self.samples as u128 + 2) * (p as u128 + 24), "samples"),
            _ => (0, "samples"),
        }
    }

    fn batch_setting(&self, _n_test: usize) -> &'static str {
        match self.estimator {
            Estimator::Tree => "n_test",
            Estimator::Exact | Estimator::Kernel => "background",
            Estimator::Gradient if self.samples >= self.background => "samples",
            Estimator::Gradient => "background",
        }
    }

    fn validate(&self, plan: &Plan<'_>) -> Result<(), Invalid> {
        self.validate_estimator(plan)?;
        let n = self.rows.or(plan.n_test);
        if let (Some(rows), Some(n_test)) = (self.rows, plan.n_test)
            && rows > n_test
        {
            return Err(Invalid::new(
                "rows",
                format!("rows = {rows} must be between 1 and the {n_test} test rows"),
            ));
        }
        if let Some(n) = n
            && self.keep > n
        {
            return Err(Invalid::new(
                "keep",
                format!(
                    "keep = {} asks for more rows than the {n} explained",
                    self.keep
                ),
            ));
        }
        crate::method::known_features(plan, &self.keep_features)?;
        if !self.keep_features.is_empty() && !self.keep_row_values {
            return Err(Invalid::new(
                "keep_row_values",
                "without the rows' values the figures read the feature names from the kept \
                 values, so every feature must be kept: drop `keep_features`, or keep the \
                 row values",
            ));
        }
        if !self.keep_features.is_empty() && self.keep == 0 {
            return Err(Invalid::new(
                "keep_features",
                "keep_features picks among the kept values: set `keep:` too",
            ));
        }
        if let Some(a) = &self.acquisition {
            a.validate(plan)?;
        }
        if let Some(sep) = &self.separating {
            sep.validate(plan)?;
        }
        if let Some(c) = self.conformal {
            c.validate(n)?;
        }
        Ok(())
    }

    fn compute(&self, input: &Input<'_>, rng: &mut StreamRng) -> xai_core::error::Result<Emitted> {
        let test = input.test;
        let n = self.rows.unwrap_or(test.n_rows()).min(test.n_rows());
        let d = test.n_features();
        let attributions = self.attributions(input, n, rng)?;
        let mut phi = Array2::zeros((n, d));
        for (mut row, a) in phi.rows_mut().into_iter().zip(&attributions) {
            row.assign(&a.phi);
        }
        let p = self.shap().to_string();
        let mut out = Emitted::default();
        for (j, name) in test.feature_names().iter().enumerate() {
            let values = phi.column(j).to_vec();
            let abs: Vec<f64> = values.iter().map(|v| v.abs()).collect();
            let mut push = |quantity: String, estimate| {
                out.values.push(Value {
                    quantity,
                    feature: name.clone(),
                    x: None,
                    estimate,
                })
            };
            push(p.clone(), t_interval(&values, input.level));
            push(self.summary("abs"), t_interval(&abs, input.level));
            if let Some(c) = self.conformal {
                let n_c = c.calibration_rows(n);
                let (calibration, new) = values.split_at(n_c);
                let (interval, coverage) =
                    xai_core::conformal::split_coverage(calibration, new, c.alpha)?;
                push(self.summary("mu"), point(interval.center, n_c));
                push(self.summary("tau"), point(interval.margin, n_c));
                push(self.summary("coverage"), point(coverage, n - n_c));
            }
        }
        let x = test.x();
        if self.efficiency {
            let gap = attributions
                .iter()
                .map(Attribution::efficiency_gap)
                .fold(0.0, f64::max);
            out.values.push(Value {
                quantity: self.summary("efficiency_gap"),
                feature: String::new(),
                x: None,
                estimate: point(gap, n),
            });
        }
        if let Some(sep) = &self.separating {
            out.values.extend(self.separating(sep, input, phi.view())?);
        }
        if let Some(a) = &self.acquisition {
            out.values.extend(acquisition(
                a,
                [self.summary("auc"), self.summary("roc")],
                phi.view(),
                x.slice(s![..n, ..]),
                test.feature_names(),
            )?);
        }
        for i in 0..self.keep.min(n) {
            for (j, name) in
                test.feature_names().iter().enumerate().filter(|(_, f)| {
                    self.keep_features.is_empty() || self.keep_features.contains(f)
                })
            {
                out.curves.push(CurveRow {
                    labels: Vec::new(),
                    replicate: 0,
                    model: String::new(),
                    quantity: p.clone(),
                    feature: name.clone(),
                    row: i,
                    grid: vec![x[[i, j]]],
                    values: vec![phi[[i, j]]],
                    row_values: match self.keep_row_values {
                        true => x.row(i).to_vec(),
                        false => Vec::new(),
                    },
                    row_class: match test.y() {
                        Target::Classes { labels, .. } => Some(labels[i]),
                        Target::Continuous(_) => None,
                    },
                });
            }
        }
        Ok(out)
    }
}

/// Per row of `phi`, the share of its `top` largest |φ_j| (ties to the lower j) on
/// the `features` separating features of the binary training rows `train` (module
/// doc).
fn separating_shares(
    sep: &Separating,
    train: &xai_core::Dataset,
    phi: ArrayView2<'_, f64>,
) -> xai_core::error::Result<Vec<f64>> {
    let Target::Classes {
        labels,
        n_classes: 2,
    } = train.y()
    else {
        return Err(CoreError::Invalid(
            "`separating` compares the class means of a binary target".into(),
        ));
    };
    let x = train.x();
    let mean_of = |class: usize, j: usize| {
        let rows: Vec<f64> = (0..labels.len())
            .filter(|&r| labels[r] == class)
            .map(|r| x[[r, j]])
            .collect();
        rows.iter().sum::<f64>() / rows.len().max(1) as f64
    };
    let by_gap = top_indices(
        &(0..x.ncols())
            .map(|j| (mean_of(1, j) - mean_of(0, j)).abs())
            .collect::<Vec<_>>(),
        sep.features,
    );
    Ok(phi
        .rows()
        .into_iter()
        .map(|row| {
            let abs: Vec<f64> = row.iter().map(|v| v.abs()).collect();
            let top = top_indices(&abs, sep.top);
            top.iter().filter(|j| by_gap.contains(j)).count() as f64 / sep.top as f64
        })
        .collect())
}

/// The indices of the `k` largest values (ties to the lower index).
fn top_indices(values: &[f64], k: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[b].total_cmp(&values[a]).then(a.cmp(&b)));
    order.truncate(k);
    order
}

/// The AUC and the ROC curve of feature-value acquisition (see the module doc), as
/// quantities `auc` and `roc`.
fn acquisition(
    a: &Acquisition,
    [auc, roc]: [String; 2],
    phi: ArrayView2<'_, f64>,
    x: ArrayView2<'_, f64>,
    names: &[String],
) -> xai_core::error::Result<Vec<Value>> {
    let driver: Vec<bool> = names.iter().map(|f| a.drivers.contains(f)).collect();
    let (mut scores, mut labels) = (Vec::new(), Vec::new());
    for (row, values) in x.rows().into_iter().zip(phi.rows()) {
        let sum = values.sum();
        if sum == 0.0 {
            continue;
        }
        for j in (0..row.len()).filter(|&j| row[j].is_nan()) {
            scores.push((values[j] / sum).abs());
            labels.push(driver[j]);
        }
    }
    if scores.is_empty() {
        return Err(CoreError::Invalid(
            "feature-value acquisition scores the test rows' missing cells, and there are none: \
             set data.missing_cells.test"
                .into(),
        ));
    }
    let cells = scores.len();
    let curve = xai_core::roc::roc_curve(&scores, &labels)?;
    let mut values = vec![Value {
        quantity: auc,
        feature: String::new(),
        x: None,
        estimate: point(xai_core::roc::auc(&scores, &labels)?, cells),
    }];
    values.extend((0..a.points).map(|g| {
        let fpr = g as f64 / (a.points - 1) as f64;
        Value {
            quantity: roc.clone(),
            feature: String::new(),
            x: Some(fpr),
            estimate: point(xai_core::roc::tpr_at(&curve, fpr), cells),
        }
    }));
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    /// Four training rows of three features: class means differ by 2 in feature 1, 1
    /// in feature 0, 0 in feature 2, so with k = 1 feature 1 alone separates.
    fn train() -> xai_core::Dataset {
        let x = array![
            [0.0, 0.0, 5.0],
            [0.0, 0.0, 5.0],
            [1.0, 2.0, 5.0],
            [1.0, 2.0, 5.0]
        ];
        let y = Target::Classes {
            labels: array![0, 0, 1, 1],
            n_classes: 2,
        };
        xai_core::Dataset::new(x, y, vec!["a".into(), "b".into(), "c".into()]).unwrap()
    }

    #[test]
    fn separating_share_counts_each_rows_largest_values_on_the_separating_features() {
        let sep = Separating {
            features: 1,
            top: 1,
        };
        // Row 0's largest |φ| is on feature 1 (separating), row 1's on feature 2.
        let phi = array![[0.1, -0.9, 0.2], [0.1, 0.2, 0.3]];
        let shares = separating_shares(&sep, &train(), phi.view()).unwrap();
        assert_eq!(shares, vec![1.0, 0.0]);
        // Two separating features and the top two values: {0, 1} against {1, 2}, {2, 1}.
        let two = Separating {
            features: 2,
            top: 2,
        };
        assert_eq!(
            separating_shares(&two, &train(), phi.view()).unwrap(),
            vec![0.5, 0.5]
        );
        assert_eq!(top_indices(&[1.0, 3.0, 3.0, 0.0], 2), vec![1, 2]);
        let regression = train()
            .with_target(Target::Continuous(array![0.0, 1.0, 2.0, 3.0]))
            .unwrap();
        assert!(separating_shares(&sep, &regression, phi.view()).is_err());
    }

    /// The null of `separating`: feature c varies most around the background mean but
    /// does not separate the classes (b does), so the map with no model, x − x̄', puts
    /// every row's largest value on c (baseline share 0) while a map on b scores 1:
    /// an excess of 1 over the rows; a map equal to the baseline has excess 0.
    #[test]
    fn the_separating_null_is_the_map_of_the_image_alone() {
        let data = xai_core::Dataset::new(
            array![
                [0.0, 0.0, 0.0],
                [0.0, 0.0, 10.0],
                [1.0, 2.0, 0.0],
                [1.0, 2.0, 10.0]
            ],
            Target::Classes {
                labels: array![0, 0, 1, 1],
                n_classes: 2,
            },
            vec!["a".into(), "b".into(), "c".into()],
        )
        .unwrap();
        let spec: ShapleySpec = serde_saphyr::from_str(
            "{ estimator: exact, background: 4, separating: { features: 1, top: 1 } }",
        )
        .unwrap();
        let learner: xai_models::LearnerSpec = serde_saphyr::from_str("lm: {}").unwrap();
        let input = Input::of_data(&data, &data, &learner);
        let sep = spec.separating.clone().unwrap();
        let estimates = |phi: ArrayView2<'_, f64>| -> Vec<(String, f64)> {
            spec.separating(&sep, &input, phi)
                .unwrap()
                .into_iter()
                .map(|v| (v.quantity, v.estimate.estimate))
                .collect()
        };
        let on_b = array![
            [0.0, 1.0, 0.1],
            [0.0, -1.0, 0.1],
            [0.0, 1.0, 0.1],
            [0.0, 1.0, 0.1]
        ];
        assert_eq!(
            estimates(on_b.view()),
            [
                ("prediction_shap_separating_share".to_string(), 1.0),
                ("prediction_shap_separating_baseline".to_string(), 0.0),
                ("prediction_shap_separating_excess".to_string(), 1.0),
            ]
        );
        let image = &data.x() - &array![0.5, 1.0, 5.0];
        assert_eq!(estimates(image.view())[2].1, 0.0);
    }
}
