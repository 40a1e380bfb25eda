//! Gradient-boosted trees as XGBoost 1.x grows them with its `exact` greedy updater
//! (the default of R's xgboost for data of this size, which watson2023 used;
//! PAPERS.md §4.2), with native missing values.
//!
//! Round t adds a tree f_t to the margin F = base + Σ_t η·f_t(x). With the gradient
//! g_i and hessian h_i of the loss at the current margin (squared error: g = F − y,
//! h = 1; logistic: g = p − y, h = max(p(1 − p), 1e-16) with p = σ(F)), a node with
//! sums G, H has weight w = −G/(H + λ) (0 when H < min_child_weight) and a split is
//! scored by its loss change G_L²/(H_L + λ) + G_R²/(H_R + λ) − G²/(H + λ) (XGBoost's
//! `CalcSplitGain`; each term 0 when its H < min_child_weight), taken when it exceeds
//! 10⁻⁶ and both children have H ≥ min_child_weight. XGBoost rounds each loss change,
//! and the node's G²/(H + λ) it subtracts, to float32 before comparing; so do we, or
//! the forward and backward scans of a node without missing values, which find equal
//! loss changes, would pick their default direction by the rounding of the sums.
//! γ prunes the grown tree bottom-up as xgboost's `prune` updater (which follows the
//! `exact` grower): a split whose children are leaves and whose loss change is below γ
//! becomes a leaf, so a split below γ stays above one that clears it.
//!
//! Rules of xgboost's `updater_colmaker.cc` kept here:
//! - candidate thresholds are midpoints between adjacent distinct values of a feature;
//! - every feature is scanned in descending order with missing values sent left; a
//!   feature with missing values in the training data (not only the node's) and
//!   more than one distinct observed value is also scanned ascending with missing
//!   values sent right, first; both scans also try "all observed values one way, the
//!   missing ones the other"; so a feature without missing values in training, or a
//!   constant one, sends a missing value left at prediction (`default_left`);
//! - ties go to the lower feature index, and within a feature to the first candidate;
//! - depth-wise growth to `max_depth`; a leaf's value is η·w.
//!
//! A node's cover (for TreeSHAP) is its H, as XGBoost's `sum_hess`; its impurity is
//! set to −G²/((H + λ)·H), so that the impurity decrease of a split is its loss
//! change and impurity importance is XGBoost's total gain.
//!
//! Written here rather than wrapping forust-ml 0.8 (../shared/CRATES.md's pick, with
//! native NaN and readable trees): forust-ml searches splits on binned histograms
//! (`nbins`), so its trees are not those of the exact greedy search R's xgboost 1.x
//! ran for watson2023; this one is checked against XGBoost's own margins and Shapley
//! contributions (`tests/xgboost_reference.rs`).

use ndarray::{Array1, Array2, ArrayView2};
use rand::Rng;
use serde::Deserialize;
use xai_core::{
    CoreError, Dataset, Learner, Model, Predictions, Target, Tree, TreeEnsembleView, TreeNode,
    tree::{Combination, LEAF},
};

use crate::capabilities::{Capabilities, Coefficients};
use crate::error::ParamError;
use crate::kind::LearnerKind;

/// XGBoost's `kRtEps`: a split must lower the loss by more than this.
const RT_EPS: f64 = 1e-6;

/// The loss boosted.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Objective {
    /// Squared error ½(y − F)², `reg:squarederror`: predicts the margin.
    SquaredError,
    /// Binary log-loss, `binary:logistic`: predicts σ(F) = P(y = 1).
    Logistic,
}

/// Settings of gradient boosting; the defaults are XGBoost's.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct BoostingParams {
    /// Boosting rounds, one tree each (≥ 1; default 100).
    #[schemars(range(min = 1))]
    pub rounds: usize,
    /// Learning rate η, `eta` (in (0, 1]; default 0.3).
    #[schemars(range(max = 1), extend("exclusiveMinimum" = 0))]
    pub eta: f64,
    /// Maximal depth of a tree (≥ 1; default 6).
    #[schemars(range(min = 1, max = 30))]
    pub max_depth: usize,
    /// L2 penalty λ on leaf weights, `lambda` (≥ 0; default 1).
    #[schemars(range(min = 0))]
    pub lambda: f64,
    /// Minimal loss change γ of a split, `gamma`/`min_split_loss`, applied by pruning
    /// after growth (≥ 0; default 0).
    #[schemars(range(min = 0))]
    pub gamma: f64,
    /// Minimal hessian sum of a child, `min_child_weight` (≥ 0; default 1).
    #[schemars(range(min = 0))]
    pub min_child_weight: f64,
    /// The loss; default: squared error for a continuous target, logistic for two
    /// classes.
    pub objective: Option<Objective>,
    /// The initial prediction, `base_score` (default 0.5, XGBoost 1.x's; for the
    /// logistic objective a probability in (0, 1), whose log-odds start the margin).
    pub base_score: f64,
}

impl Default for BoostingParams {
    fn default() -> Self {
        Self {
            rounds: 100,
            eta: 0.3,
            max_depth: 6,
            lambda: 1.0,
            gamma: 0.0,
            min_child_weight: 1.0,
            objective: None,
            base_score: 0.5,
        }
    }
}

impl LearnerKind for BoostingParams {
    /// Checks the settings before any work: each within the range its field declares
    /// ([`xai_core::settings::check_value`]), and a logistic objective's base score a
    /// probability.
    fn validate(&self) -> Result<(), ParamError> {
        xai_core::settings::check_value(self)?;
        if !self.base_score.is_finite()
            || (self.objective == Some(Objective::Logistic)
                && !(self.base_score > 0.0 && self.base_score < 1.0))
        {
            return Err(ParamError::out_of_range(
                "base_score",
                self.base_score,
                "finite, and a probability in (0, 1) for the logistic objective",
            ));
        }
        Ok(())
    }

    fn describe(&self) -> &'static str {
        "gradient boosting (XGBoost)"
    }

    /// Its trees (summed on the margin, so no members) and missing values: a learned
    /// default direction at every split.
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            trees: true,
            members: false,
            gradients: false,
            coefficients: Coefficients::None,
            mean_covariance: false,
            missing_values: true,
            predicts_label: true,
        }
    }

    /// 4nd + 28n + (56T + 40)·N ([`fit_memory_bytes`]).
    fn fit_memory_bytes(&self, n: u128, d: u128) -> u128 {
        fit_memory_bytes(self, n, d)
    }

    /// 24m: the margins and, for the logistic objective, the probabilities.
    fn predict_memory_bytes(&self, _n: u128, m: u128, _d: u128) -> u128 {
        crate::memory::bytes(&[&[24, m]])
    }

    fn build(&self) -> Box<dyn Learner> {
        Box::new(BoostingLearner(self.clone()))
    }
}

/// The peak bytes of a fit on n rows and d features (besides the data): 4nd + 28n +
/// (56·T + 40)·N with T = `rounds`, N = 2^(D+1) − 1 the most nodes a tree of depth
/// D = `max_depth` has: the presorted column indices, the gradients, hessians,
/// margins and each row's node; every kept tree's nodes (48 bytes) and values (8);
/// and for the tree being grown its nodes' gradient sums and loss changes (24) and
/// the pruning's bookkeeping (at most 16).
pub fn fit_memory_bytes(params: &BoostingParams, n: u128, d: u128) -> u128 {
    let nodes = 1u128
        .checked_shl(params.max_depth as u32 + 1)
        .map_or(u128::MAX, |v| v - 1);
    (4 * n)
        .saturating_mul(d)
        .saturating_add(28u128.saturating_mul(n))
        .saturating_add(
            56u128
                .saturating_mul(params.rounds as u128)
                .saturating_add(40)
                .saturating_mul(nodes),
        )
}

/// The learner: XGBoost-style boosting with the given settings.
#[derive(Debug, Clone)]
pub struct BoostingLearner(pub BoostingParams);

impl Learner for BoostingLearner {
    fn fit(&self, data: &Dataset, _rng: &mut dyn Rng) -> xai_core::error::Result<Box<dyn Model>> {
        let (y, objective) = match data.y() {
            Target::Continuous(y) => (y.to_vec(), Objective::SquaredError),
            Target::Classes { labels, n_classes } if *n_classes == 2 => (
                labels.iter().map(|&c| c as f64).collect(),
                Objective::Logistic,
            ),
            Target::Classes { n_classes, .. } => {
                return Err(CoreError::Fit(format!(
                    "boosting fits a continuous or a binary target; this one has {n_classes} classes"
                )));
            }
        };
        let params = BoostingParams {
            objective: Some(self.0.objective.unwrap_or(objective)),
            ..self.0.clone()
        };
        if params.objective == Some(Objective::Logistic) && objective != Objective::Logistic {
            return Err(CoreError::Fit(
                "the logistic objective needs a binary class target".into(),
            ));
        }
        Ok(Box::new(Booster::fit(data.x(), &y, &params)?))
    }
}

/// A fitted boosted ensemble.
#[derive(Debug, Clone, PartialEq)]
pub struct Booster {
    trees: Vec<Tree>,
    base_margin: f64,
    objective: Objective,
}

/// Gradient and hessian sums of a set of rows.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Stats {
    g: f64,
    h: f64,
}

impl Stats {
    fn add(&mut self, g: f64, h: f64) {
        self.g += g;
        self.h += h;
    }

    fn minus(self, o: Stats) -> Stats {
        Stats {
            g: self.g - o.g,
            h: self.h - o.h,
        }
    }
}

/// The regularised loss terms of xgboost's `param.h`.
#[derive(Debug, Clone, Copy)]
struct Regularisation {
    lambda: f64,
    min_child_weight: f64,
}

impl Regularisation {
    /// G²/(H + λ), 0 when H < min_child_weight (`CalcGain`).
    fn gain(&self, s: Stats) -> f64 {
        if s.h < self.min_child_weight || s.h <= 0.0 {
            0.0
        } else {
            s.g * s.g / (s.h + self.lambda)
        }
    }

    /// −G/(H + λ), 0 when H < min_child_weight (`CalcWeight`).
    fn weight(&self, s: Stats) -> f64 {
        if s.h < self.min_child_weight || s.h <= 0.0 {
            0.0
        } else {
            -s.g / (s.h + self.lambda)
        }
    }
}

/// The best split of a node found so far (xgboost's `SplitEntry`).
#[derive(Debug, Clone, Copy)]
struct Split {
    loss_change: f64,
    feature: usize,
    threshold: f64,
    missing_left: bool,
    left: Stats,
    right: Stats,
}

impl Split {
    fn none() -> Self {
        Split {
            loss_change: 0.0,
            feature: 0,
            threshold: 0.0,
            missing_left: false,
            left: Stats::default(),
            right: Stats::default(),
        }
    }

    /// xgboost's `SplitEntry::NeedReplace`: a later feature must do strictly better,
    /// an earlier one at least as well.
    fn offer(&mut self, candidate: Split) {
        let replace = if self.feature <= candidate.feature {
            candidate.loss_change > self.loss_change
        } else {
            candidate.loss_change >= self.loss_change
        };
        if replace && candidate.loss_change.is_finite() {
            *self = candidate;
        }
    }
}

/// A threshold between observed values `lo` < `hi` for the rule x ≤ t ⟺ x < (lo + hi)/2
/// on the observed values.
fn midpoint(lo: f64, hi: f64) -> f64 {
    let mid = 0.5 * (lo + hi);
    if mid >= hi { lo } else { mid }
}

/// Row indices of every feature sorted by value (ascending; missing values left out),
/// and whether a feature is also scanned ascending (xgboost's `NeedForwardSearch`:
/// it has missing values in the training data and not all its observed values are
/// equal).
struct SortedColumns {
    order: Vec<Vec<u32>>,
    forward: Vec<bool>,
}

impl SortedColumns {
    fn new(x: ArrayView2<'_, f64>) -> Self {
        let (n, d) = x.dim();
        let mut order = Vec::with_capacity(d);
        let mut forward = Vec::with_capacity(d);
        for j in 0..d {
            let col = x.column(j);
            let mut rows: Vec<u32> = (0..n as u32)
                .filter(|&i| !col[i as usize].is_nan())
                .collect();
            rows.sort_by(|&a, &b| col[a as usize].total_cmp(&col[b as usize]));
            let value = |r: Option<&u32>| r.map(|&r| col[r as usize]);
            forward.push(rows.len() < n && value(rows.first()) != value(rows.last()));
            order.push(rows);
        }
        Self { order, forward }
    }
}

/// One tree being grown depth-wise over the training rows.
struct Grower<'a> {
    x: ArrayView2<'a, f64>,
    grad: &'a [f64],
    hess: &'a [f64],
    reg: Regularisation,
    gamma: f64,
    eta: f64,
    nodes: Vec<TreeNode>,
    values: Vec<f64>,
    stats: Vec<Stats>,
    /// The loss change of each split node (0 at a leaf).
    loss_change: Vec<f64>,
    /// The node each row sits in.
    position: Vec<u32>,
}

impl<'a> Grower<'a> {
    fn add_node(&mut self, s: Stats) -> usize {
        let h = s.h;
        self.nodes.push(TreeNode {
            feature: 0,
            left: LEAF,
            right: LEAF,
            threshold: 0.0,
            weight: h,
            impurity: if h > 0.0 {
                -s.g * s.g / ((h + self.reg.lambda) * h)
            } else {
                0.0
            },
            missing_left: false,
        });
        self.values.push(self.eta * self.reg.weight(s));
        self.stats.push(s);
        self.loss_change.push(0.0);
        self.nodes.len() - 1
    }

    /// The best split of every node of `expand` (slot k of the result for
    /// `expand[k]`), scanning each feature once for all of them.
    fn best_splits(&self, expand: &[usize], columns: &SortedColumns) -> Vec<Split> {
        let mut slot = vec![u32::MAX; self.nodes.len()];
        for (k, &nid) in expand.iter().enumerate() {
            slot[nid] = k as u32;
        }
        let mut best = vec![Split::none(); expand.len()];
        for (j, rows) in columns.order.iter().enumerate() {
            if columns.forward[j] {
                self.scan(j, rows.iter(), true, expand, &slot, &mut best);
            }
            self.scan(j, rows.iter().rev(), false, expand, &slot, &mut best);
        }
        best
    }

    /// One enumeration of feature j's values in `rows` order (ascending when
    /// `forward`, where the running sums are the left child and missing values go
    /// right; descending otherwise, running sums right, missing left).
    fn scan<'r>(
        &self,
        j: usize,
        rows: impl Iterator<Item = &'r u32>,
        forward: bool,
        expand: &[usize],
        slot: &[u32],
        best: &mut [Split],
    ) {
        let col = self.x.column(j);
        let mut run = vec![Stats::default(); expand.len()];
        let mut last = vec![f64::NAN; expand.len()];
        let candidate = |k: usize, run: Stats, threshold: f64| {
            let total = self.stats[expand[k]];
            let rest = total.minus(run);
            let (left, right) = if forward { (run, rest) } else { (rest, run) };
            // float32, as xgboost's `root_gain` and `loss_chg`.
            let root_gain = f64::from(self.reg.gain(total) as f32);
            Split {
                loss_change: f64::from(
                    (self.reg.gain(left) + self.reg.gain(right) - root_gain) as f32,
                ),
                feature: j,
                threshold,
                missing_left: !forward,
                left,
                right,
            }
        };
        for &r in rows {
            let r = r as usize;
            let k = slot[self.position[r] as usize];
            if k == u32::MAX {
                continue;
            }
            let k = k as usize;
            let v = col[r];
            let rest = self.stats[expand[k]].minus(run[k]);
            if !last[k].is_nan()
                && v != last[k]
                && run[k].h >= self.reg.min_child_weight
                && rest.h >= self.reg.min_child_weight
            {
                let t = if forward {
                    midpoint(last[k], v)
                } else {
                    midpoint(v, last[k])
                };
                best[k].offer(candidate(k, run[k], t));
            }
            run[k].add(self.grad[r], self.hess[r]);
            last[k] = v;
        }
        // Every observed value one way, the missing values the other.
        for k in 0..expand.len() {
            let rest = self.stats[expand[k]].minus(run[k]);
            if !last[k].is_nan()
                && run[k].h >= self.reg.min_child_weight
                && rest.h >= self.reg.min_child_weight
            {
                let gap = last[k].abs() + RT_EPS;
                let t = if forward {
                    last[k] + gap
                } else {
                    last[k] - gap
                };
                best[k].offer(candidate(k, run[k], t));
            }
        }
    }

    fn grow(mut self, columns: &SortedColumns, max_depth: usize) -> (Tree, Vec<u32>) {
        let total = self
            .grad
            .iter()
            .zip(self.hess)
            .fold(Stats::default(), |mut s, (&g, &h)| {
                s.add(g, h);
                s
            });
        self.add_node(total);
        let mut expand = vec![0usize];
        for _ in 0..max_depth {
            if expand.is_empty() {
                break;
            }
            let splits = self.best_splits(&expand, columns);
            let mut next = Vec::new();
            for (&nid, s) in expand.iter().zip(&splits) {
                if s.loss_change > RT_EPS {
                    let left = self.add_node(s.left);
                    let right = self.add_node(s.right);
                    let node = &mut self.nodes[nid];
                    node.feature = s.feature as u32;
                    node.threshold = s.threshold;
                    node.missing_left = s.missing_left;
                    node.left = left as u32;
                    node.right = right as u32;
                    self.loss_change[nid] = s.loss_change;
                    next.extend([left, right]);
                }
            }
            for (r, p) in self.position.iter_mut().enumerate() {
                let node = &self.nodes[*p as usize];
                if !node.is_leaf() {
                    *p = node.child(self.x[[r, node.feature as usize]]) as u32;
                }
            }
            expand = next;
        }
        self.prune();
        (Tree::new(self.nodes, self.values, 1), self.position)
    }

    /// xgboost's `prune` updater, which runs after the grower: a split whose children
    /// are both leaves and whose loss change is below γ becomes a leaf (value η·w),
    /// bottom-up until none is left, so a split below γ stays when a split beneath it
    /// clears γ. The remaining nodes keep their order, and a row of a removed leaf
    /// moves to the leaf that replaced it.
    fn prune(&mut self) {
        let count = self.nodes.len();
        let mut parent = vec![0usize; count];
        for (i, n) in self.nodes.iter().enumerate().filter(|(_, n)| !n.is_leaf()) {
            parent[n.left as usize] = i;
            parent[n.right as usize] = i;
        }
        let mut removed = vec![false; count];
        // Children come after their parent: a reverse sweep sees them final.
        for p in (0..count).rev() {
            let n = self.nodes[p];
            if !n.is_leaf()
                && self.nodes[n.left as usize].is_leaf()
                && self.nodes[n.right as usize].is_leaf()
                && self.loss_change[p] < self.gamma
            {
                self.nodes[p] = TreeNode {
                    feature: 0,
                    left: LEAF,
                    right: LEAF,
                    threshold: 0.0,
                    missing_left: false,
                    ..n
                };
                removed[n.left as usize] = true;
                removed[n.right as usize] = true;
            }
        }
        if !removed.contains(&true) {
            return;
        }
        // The new index of every node: its rank among the kept ones, or its parent's
        // for a removed one (the parent comes first).
        let mut target = vec![0u32; count];
        let mut kept = 0u32;
        for i in 0..count {
            if removed[i] {
                target[i] = target[parent[i]];
            } else {
                target[i] = kept;
                kept += 1;
            }
        }
        let keep = |i: &usize| !removed[*i];
        self.nodes = (0..count)
            .filter(keep)
            .map(|i| {
                let mut n = self.nodes[i];
                if !n.is_leaf() {
                    n.left = target[n.left as usize];
                    n.right = target[n.right as usize];
                }
                n
            })
            .collect();
        self.values = (0..count).filter(keep).map(|i| self.values[i]).collect();
        for p in &mut self.position {
            *p = target[*p as usize];
        }
    }
}

fn sigmoid(f: f64) -> f64 {
    1.0 / (1.0 + (-f).exp())
}

impl Booster {
    /// Boosts `params.rounds` trees on the rows of `x` (NaN = missing) and the
    /// targets `y` (0/1 for the logistic objective).
    pub fn fit(
        x: ArrayView2<'_, f64>,
        y: &[f64],
        params: &BoostingParams,
    ) -> xai_core::error::Result<Self> {
        params.validate()?;
        let n = x.nrows();
        if n != y.len() || n == 0 {
            return Err(CoreError::Shape(format!(
                "{n} rows of features but {} targets (and at least one row is needed)",
                y.len()
            )));
        }
        if let Some((i, v)) = x.iter().enumerate().find(|(_, v)| v.is_infinite()) {
            return Err(CoreError::NonFinite {
                what: "features",
                row: i / x.ncols(),
                column: i % x.ncols(),
                value: *v,
            });
        }
        let objective = params.objective.unwrap_or(Objective::SquaredError);
        let base_margin = match objective {
            Objective::SquaredError => params.base_score,
            Objective::Logistic => (params.base_score / (1.0 - params.base_score)).ln(),
        };
        let columns = SortedColumns::new(x);
        let reg = Regularisation {
            lambda: params.lambda,
            min_child_weight: params.min_child_weight,
        };
        let mut margin = vec![base_margin; n];
        let (mut grad, mut hess) = (vec![0.0; n], vec![0.0; n]);
        let mut trees = Vec::with_capacity(params.rounds);
        for _ in 0..params.rounds {
            for i in 0..n {
                (grad[i], hess[i]) = match objective {
                    Objective::SquaredError => (margin[i] - y[i], 1.0),
                    Objective::Logistic => {
                        let p = sigmoid(margin[i]);
                        (p - y[i], (p * (1.0 - p)).max(1e-16))
                    }
                };
            }
            let grower = Grower {
                x,
                grad: &grad,
                hess: &hess,
                reg,
                gamma: params.gamma,
                eta: params.eta,
                nodes: Vec::new(),
                values: Vec::new(),
                stats: Vec::new(),
                loss_change: Vec::new(),
                position: vec![0; n],
            };
            let (tree, leaves) = grower.grow(&columns, params.max_depth);
            for (m, &leaf) in margin.iter_mut().zip(&leaves) {
                *m += tree.value(leaf as usize)[0];
            }
            trees.push(tree);
        }
        Ok(Self {
            trees,
            base_margin,
            objective,
        })
    }

    /// The raw margin base + Σ_t f_t(x) of every row (NaN = missing).
    pub fn margin(&self, x: ArrayView2<'_, f64>) -> Array1<f64> {
        x.rows()
            .into_iter()
            .map(|row| {
                self.base_margin
                    + self
                        .trees
                        .iter()
                        .map(|t| t.value(t.leaf(row))[0])
                        .sum::<f64>()
            })
            .collect()
    }
}

impl TreeEnsembleView for Booster {
    fn trees(&self) -> &[Tree] {
        &self.trees
    }

    fn combination(&self) -> Combination {
        Combination::Sum {
            base: self.base_margin,
        }
    }

    /// The squared-error margin is the prediction; the logistic one is not (its
    /// sigmoid is).
    fn predictions_of_combined(&self, combined: Array2<f64>) -> Option<Predictions> {
        (self.objective == Objective::SquaredError)
            .then(|| Predictions::Point(combined.column(0).to_owned()))
    }
}

impl Model for Booster {
    fn predict(&self, x: ArrayView2<'_, f64>) -> xai_core::error::Result<Predictions> {
        let f = self.margin(x);
        Ok(match self.objective {
            Objective::SquaredError => Predictions::Point(f),
            Objective::Logistic => {
                let mut p = Array2::zeros((f.len(), 2));
                for (i, &m) in f.iter().enumerate() {
                    let q = sigmoid(m);
                    p[[i, 0]] = 1.0 - q;
                    p[[i, 1]] = q;
                }
                Predictions::Probabilities(p)
            }
        })
    }

    fn tree_ensemble(&self) -> Option<&dyn TreeEnsembleView> {
        Some(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;
    use rand::RngExt;
    use xai_core::rng::stream_rng;

    fn one_round(params: BoostingParams) -> BoostingParams {
        BoostingParams {
            rounds: 1,
            ..params
        }
    }

    /// One stump on y = (0, 0, 1, 1) at x = (1, 2, 3, 4), squared error from base 0.5:
    /// g = (0.5, 0.5, −0.5, −0.5), h = 1. Root gain 0; children G = ±1, H = 2, loss
    /// change 2·1/3; threshold the midpoint 2.5; leaf values η·(∓1/3).
    #[test]
    fn a_stump_by_hand() {
        let x = array![[1.0], [2.0], [3.0], [4.0]];
        let p = one_round(BoostingParams {
            max_depth: 1,
            ..Default::default()
        });
        let b = Booster::fit(x.view(), &[0.0, 0.0, 1.0, 1.0], &p).unwrap();
        let t = &b.trees[0];
        let root = t.nodes()[0];
        assert_eq!(root.threshold, 2.5);
        assert!(
            root.missing_left,
            "a column without missing values sends them left"
        );
        let (l, r) = (root.left as usize, root.right as usize);
        assert!((t.value(l)[0] - 0.3 * (-1.0 / 3.0)).abs() < 1e-15);
        assert!((t.value(r)[0] - 0.3 * (1.0 / 3.0)).abs() < 1e-15);
        assert_eq!(t.nodes()[l].weight, 2.0);
        // The impurity decrease of the split is its loss change, 2/3.
        let imp = xai_core::tree::impurity_decrease(std::slice::from_ref(t), 1);
        assert!((imp[0] - 2.0 / 3.0).abs() < 1e-12, "{imp}");
        let m = b.margin(array![[0.0], [10.0], [f64::NAN]].view());
        assert!((m[0] - (0.5 - 0.1)).abs() < 1e-15 && (m[1] - 0.6).abs() < 1e-15);
        assert_eq!(m[2], m[0], "missing goes left");
    }

    /// Missing values carry the signal: rows with x missing have y = 5, others y = 0
    /// whatever x is; the learned default direction sends missing rows to their own
    /// leaf, and the other branch is right (ascending scan) or left.
    #[test]
    fn the_default_direction_is_learned_from_missing_values() {
        let mut x = Array2::zeros((40, 1));
        let mut y = vec![0.0; 40];
        for i in 0..40 {
            if i % 4 == 0 {
                x[[i, 0]] = f64::NAN;
                y[i] = 5.0;
            } else {
                x[[i, 0]] = i as f64;
            }
        }
        let p = BoostingParams {
            rounds: 30,
            max_depth: 1,
            ..Default::default()
        };
        let b = Booster::fit(x.view(), &y, &p).unwrap();
        let m = b.margin(array![[f64::NAN], [3.0], [37.0]].view());
        assert!((m[0] - 5.0).abs() < 0.01, "{m}");
        assert!(m[1].abs() < 0.01 && m[2].abs() < 0.01, "{m}");
        // The first split puts every observed value left and the 10 missing rows
        // right: the ascending scan (missing right) is tried first and the
        // descending one's equal loss change does not replace it (xgboost's order).
        let t = &b.trees[0];
        let root = t.nodes()[0];
        assert!(!root.missing_left && root.threshold > 39.0, "{root:?}");
        assert_eq!(t.nodes()[root.right as usize].weight, 10.0);
    }

    /// A feature whose observed values are all equal is only scanned descending, so
    /// its missing values go left: XGBoost 3.2.0 on the same data (x = 1 observed,
    /// y = 0; x missing on 10 of 40 rows, y = 5; one stump) dumps
    /// `[f0<-9.53674316e-07] missing=yes`, leaves 1.22727275 (left) and
    /// −0.145161286, i.e. threshold 1 − (|1| + 10⁻⁶) and values η·45/11, η·(−15/31).
    #[test]
    fn a_constant_feature_sends_missing_values_left() {
        let x = Array2::from_shape_fn((40, 1), |(i, _)| if i % 4 == 0 { f64::NAN } else { 1.0 });
        let y: Vec<f64> = (0..40)
            .map(|i| if i % 4 == 0 { 5.0 } else { 0.0 })
            .collect();
        let p = one_round(BoostingParams {
            max_depth: 1,
            ..Default::default()
        });
        let b = Booster::fit(x.view(), &y, &p).unwrap();
        let t = &b.trees[0];
        let root = t.nodes()[0];
        assert!(root.missing_left, "{root:?}");
        assert!((root.threshold + 1e-6).abs() < 1e-12, "{root:?}");
        assert!((t.value(root.left as usize)[0] - 0.3 * 45.0 / 11.0).abs() < 1e-12);
        assert!((t.value(root.right as usize)[0] + 0.3 * 15.0 / 31.0).abs() < 1e-12);
    }

    /// Boosting drives the training loss down and a regression of a smooth function
    /// generalises; the logistic objective gives probabilities.
    #[test]
    fn fits_regression_and_classification() {
        let mut rng = stream_rng(3, 0);
        let n = 500;
        let x = Array2::from_shape_fn((n, 3), |_| rng.random::<f64>());
        let f = |r: ndarray::ArrayView1<f64>| 10.0 * (3.0 * r[0]).sin() + 5.0 * r[1];
        let y: Vec<f64> = x.rows().into_iter().map(f).collect();
        let b = Booster::fit(x.view(), &y, &BoostingParams::default()).unwrap();
        let xt = Array2::from_shape_fn((200, 3), |_| rng.random::<f64>());
        let pred = b.margin(xt.view());
        let mse = xt
            .rows()
            .into_iter()
            .zip(&pred)
            .map(|(r, p)| (f(r) - p).powi(2))
            .sum::<f64>()
            / 200.0;
        assert!(mse < 0.3, "test mse {mse}");
        let labels: Vec<f64> = y.iter().map(|&v| f64::from(u8::from(v > 5.0))).collect();
        let p = BoostingParams {
            objective: Some(Objective::Logistic),
            ..Default::default()
        };
        let c = Booster::fit(x.view(), &labels, &p).unwrap();
        let Predictions::Probabilities(q) = c.predict(x.view()).unwrap() else {
            panic!("probabilities expected")
        };
        let wrong = labels
            .iter()
            .zip(q.column(1))
            .filter(|(l, q)| (**q > 0.5) != (**l > 0.5))
            .count();
        assert!(wrong < 5, "{wrong} training rows misclassified");
    }

    /// γ prunes after growing, as xgboost's `prune` updater does. XOR-like data: x1,
    /// x2 ∈ {0, 1}, five rows per cell, y = 0, 2 (x1 = 0; x2 = 0, 1) and 3, 1 (x1 = 1),
    /// squared error from 0.5. The root's split on x1 changes the loss by
    /// 25/11 + 225/11 − 400/21 ≈ 3.68, its children's splits on x2 by
    /// 6.25/6 + 56.25/6 − 25/11 ≈ 8.14 and 156.25/6 + 6.25/6 − 225/11 ≈ 6.63. γ = 5
    /// keeps all three (the root for the splits below it), γ = 7 drops the right one
    /// (its rows then sit in its parent, a leaf of value η·15/11), γ = 9 all.
    #[test]
    fn gamma_prunes_bottom_up_after_growing() {
        let x = Array2::from_shape_fn((20, 2), |(i, j)| ((i / 5) >> (1 - j) & 1) as f64);
        let y: Vec<f64> = (0..20).map(|i| [0.0, 2.0, 3.0, 1.0][i / 5]).collect();
        let grad: Vec<f64> = y.iter().map(|y| 0.5 - y).collect();
        let hess = vec![1.0; 20];
        let columns = SortedColumns::new(x.view());
        for (gamma, nodes) in [(5.0, 7), (7.0, 5), (9.0, 1)] {
            let grower = Grower {
                x: x.view(),
                grad: &grad,
                hess: &hess,
                reg: Regularisation {
                    lambda: 1.0,
                    min_child_weight: 1.0,
                },
                gamma,
                eta: 0.3,
                nodes: Vec::new(),
                values: Vec::new(),
                stats: Vec::new(),
                loss_change: Vec::new(),
                position: vec![0; 20],
            };
            let (tree, position) = grower.grow(&columns, 2);
            assert_eq!(tree.nodes().len(), nodes, "γ = {gamma}");
            for (r, &p) in position.iter().enumerate() {
                assert_eq!(p as usize, tree.leaf(x.row(r)), "γ = {gamma}, row {r}");
            }
            if gamma == 7.0 {
                let right = tree.nodes()[0].right as usize;
                assert!(tree.nodes()[right].is_leaf());
                assert!((tree.value(right)[0] - 0.3 * 15.0 / 11.0).abs() < 1e-15);
            }
        }
    }

    /// The margin a booster predicts for its training rows is base + Σ leaf values,
    /// the same as walking the trees ([`Booster::margin`]), and the view's
    /// combination says so.
    #[test]
    fn the_view_adds_the_trees_to_the_base() {
        let mut rng = stream_rng(4, 0);
        let x = Array2::from_shape_fn((100, 2), |_| rng.random::<f64>());
        let y: Vec<f64> = x.rows().into_iter().map(|r| r[0] * r[1]).collect();
        let b = Booster::fit(x.view(), &y, &one_round(BoostingParams::default())).unwrap();
        let Combination::Sum { base } = b.combination() else {
            panic!("boosting sums its trees")
        };
        assert_eq!(base, 0.5);
        let m = b.margin(x.view());
        let by_view: f64 = b.trees()[0].value(b.trees()[0].leaf(x.row(7)))[0];
        assert_eq!(m[7], base + by_view);
    }

    /// The memory bound is linear in the rows and the rounds, and doubles (almost)
    /// with each level of depth.
    #[test]
    fn fit_memory_grows_with_rows_rounds_and_depth() {
        let p = BoostingParams::default();
        let at = |p: &BoostingParams, n: u128| fit_memory_bytes(p, n, 10);
        let per_row = at(&p, 2000) - at(&p, 1000);
        assert_eq!(at(&p, 3000) - at(&p, 2000), per_row);
        assert_eq!(per_row, 1000 * (4 * 10 + 28));
        let more = BoostingParams {
            rounds: 200,
            ..Default::default()
        };
        assert_eq!(at(&more, 0) - at(&p, 0), 56 * 100 * 127);
        let deeper = BoostingParams {
            max_depth: 7,
            ..Default::default()
        };
        assert_eq!(at(&deeper, 0), (56 * 100 + 40) * 255);
    }

    #[test]
    fn a_base_score_outside_the_logistic_range_is_refused() {
        let p = BoostingParams {
            objective: Some(Objective::Logistic),
            base_score: 1.0,
            ..Default::default()
        };
        assert_eq!(p.validate().unwrap_err().param(), "base_score");
        BoostingParams::default().validate().unwrap();
    }
}
