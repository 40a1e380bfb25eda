//! A read-only view of fitted decision trees: what TreeSHAP and impurity importance
//! need (split feature and threshold, children, weighted node size, node value),
//! independent of how a forest was fitted.

use ndarray::{Array1, Array2, ArrayView1};

use crate::predictions::Predictions;

/// Marks a leaf in [`TreeNode::left`] / [`TreeNode::right`].
pub const LEAF: u32 = u32::MAX;

/// One node of a binary decision tree. Rows with x[feature] ≤ threshold go left; a
/// missing (NaN) value goes left when `missing_left`, else right.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TreeNode {
    /// Split feature (unused at a leaf).
    pub feature: u32,
    /// Index of the left child, or [`LEAF`].
    pub left: u32,
    /// Index of the right child, or [`LEAF`].
    pub right: u32,
    /// Split threshold (unused at a leaf).
    pub threshold: f64,
    /// Weighted number of training rows in the node (its "cover").
    pub weight: f64,
    /// Weighted impurity of the node (variance, or Gini index 1 − Σ_c p_c²).
    pub impurity: f64,
    /// Where a missing value goes: the default direction gradient boosting learns
    /// (XGBoost's `default_left`). Trees grown without missing values set `false`,
    /// which is where `NaN ≤ t` (false) sends a row anyway.
    pub missing_left: bool,
}

impl TreeNode {
    /// Whether the node is a leaf.
    pub fn is_leaf(&self) -> bool {
        self.left == LEAF
    }

    /// Whether a row with value `v` of the split feature goes left: v ≤ threshold, or
    /// the default direction when v is missing (NaN).
    pub fn goes_left(&self, v: f64) -> bool {
        if v.is_nan() {
            self.missing_left
        } else {
            v <= self.threshold
        }
    }

    /// The child a row with value `v` of the split feature goes to.
    pub fn child(&self, v: f64) -> usize {
        (if self.goes_left(v) {
            self.left
        } else {
            self.right
        }) as usize
    }
}

/// A fitted tree: nodes (root first) and `outputs` values per node (the mean response,
/// or the class frequencies).
#[derive(Debug, Clone, PartialEq)]
pub struct Tree {
    nodes: Vec<TreeNode>,
    values: Vec<f64>,
    outputs: usize,
}

impl Tree {
    /// A tree from its nodes and per-node values (`outputs` per node, node-major).
    pub fn new(nodes: Vec<TreeNode>, values: Vec<f64>, outputs: usize) -> Self {
        debug_assert_eq!(values.len(), nodes.len() * outputs);
        Self {
            nodes,
            values,
            outputs,
        }
    }

    /// The nodes; index 0 is the root.
    pub fn nodes(&self) -> &[TreeNode] {
        &self.nodes
    }

    /// Values per node.
    pub fn outputs(&self) -> usize {
        self.outputs
    }

    /// The value of node `i` (mean response, or class frequencies).
    pub fn value(&self, i: usize) -> &[f64] {
        &self.values[i * self.outputs..(i + 1) * self.outputs]
    }

    /// The index of the leaf row `x` falls into.
    pub fn leaf(&self, x: ArrayView1<'_, f64>) -> usize {
        let mut i = 0;
        loop {
            let n = &self.nodes[i];
            if n.is_leaf() {
                return i;
            }
            i = n.child(x[n.feature as usize]);
        }
    }

    /// Depth of the tree (a lone root has depth 0).
    pub fn depth(&self) -> usize {
        fn walk(t: &Tree, i: usize) -> usize {
            let n = &t.nodes[i];
            if n.is_leaf() {
                0
            } else {
                1 + walk(t, n.left as usize).max(walk(t, n.right as usize))
            }
        }
        walk(self, 0)
    }
}

/// How a tree ensemble's prediction combines its trees' leaf values v_t(x).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Combination {
    /// (1/T)·Σ_t v_t(x): a forest (regression means or class frequencies).
    Mean,
    /// base + Σ_t v_t(x): a boosted ensemble's raw margin (the log-odds for the
    /// logistic objective, before the sigmoid).
    Sum {
        /// The starting margin (XGBoost's base score on the margin scale).
        base: f64,
    },
}

impl Combination {
    /// The prediction from `sum` = Σ_t v_t over `trees` trees: sum/T for a mean,
    /// base + sum for a sum.
    pub fn combine(&self, sum: f64, trees: usize) -> f64 {
        match *self {
            Combination::Mean => sum * self.weight(trees),
            Combination::Sum { base } => base + sum,
        }
    }

    /// The weight of one tree's value in the prediction: 1/T for a mean, 1 for a sum.
    pub fn weight(&self, trees: usize) -> f64 {
        match self {
            Combination::Mean => 1.0 / trees as f64,
            Combination::Sum { .. } => 1.0,
        }
    }
}

/// Models made of trees expose them through this trait (TreeSHAP, impurity
/// importance).
pub trait TreeEnsembleView: Sync {
    /// The trees.
    fn trees(&self) -> &[Tree];

    /// How the trees' leaf values make the prediction (the raw margin for boosting):
    /// their mean unless the model says otherwise.
    fn combination(&self) -> Combination {
        Combination::Mean
    }

    /// The model's predictions of rows whose leaf values, combined as
    /// [`Self::combination`] says, are `combined` (a row per row, a column per
    /// output), when the predictions are that combination itself and so linear in
    /// the leaf values: a forest's means or class frequencies, a squared-error
    /// booster's margin. A game then reads a coalition's background mixture off its
    /// mean combined value ([`crate::shapley::coalitions`]). `None` (the default)
    /// when they are not, e.g. a logistic booster's sigmoid of the margin.
    fn predictions_of_combined(&self, combined: Array2<f64>) -> Option<Predictions> {
        let _ = combined;
        None
    }
}

/// Mean decrease in impurity per feature of one tree, unnormalised:
/// Σ_splits on j [w·I(node) − w_l·I(left) − w_r·I(right)] (w = weighted row counts).
fn tree_impurity_decrease(tree: &Tree, n_features: usize) -> Array1<f64> {
    let mut imp = Array1::zeros(n_features);
    let nodes = tree.nodes();
    for n in nodes.iter().filter(|n| !n.is_leaf()) {
        let (l, r) = (&nodes[n.left as usize], &nodes[n.right as usize]);
        imp[n.feature as usize] +=
            n.weight * n.impurity - l.weight * l.impurity - r.weight * r.impurity;
    }
    imp
}

/// Mean over trees of each tree's unnormalised impurity decrease per feature.
pub fn impurity_decrease(trees: &[Tree], n_features: usize) -> Array1<f64> {
    trees.iter().fold(Array1::zeros(n_features), |acc, t| {
        acc + tree_impurity_decrease(t, n_features)
    }) / trees.len() as f64
}

/// Impurity (MDI, "Gini") importance as scikit-learn reports it: each tree's
/// decreases normalised to sum to 1 (a tree whose decreases sum to 0 gives zeros), the
/// mean over the trees with a split, normalised again to sum to 1; zeros if no tree
/// splits or every decrease is 0 (where scikit-learn divides 0 by 0 and returns NaN) (scikit-learn 1.9.1 `sklearn/ensemble/_forest.py`, `feature_importances_`:
/// the mean over estimators with `node_count > 1`, divided by its sum;
/// `sklearn/tree/_tree.pyx`, `compute_feature_importances`).
pub fn impurity_importance(trees: &[Tree], n_features: usize) -> Array1<f64> {
    let split = trees.iter().filter(|t| t.nodes().len() > 1);
    let count = split.clone().count();
    let mean = split.fold(Array1::zeros(n_features), |acc, t| {
        let single = tree_impurity_decrease(t, n_features);
        let s = single.sum();
        if s > 0.0 { acc + single / s } else { acc }
    }) / count.max(1) as f64;
    let total = mean.sum();
    if total > 0.0 { mean / total } else { mean }
}
