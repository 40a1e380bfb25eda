//! Growing one CART tree (Breiman et al. 1984): exact best splits on presorted
//! per-feature row lists, or one uniform random threshold per feature (extra-trees,
//! Geurts et al. 2006), with the rules of scikit-learn or of R (randomForest, rpart)
//! chosen by [`TreeSettings`].
//!
//! Rows carry weights (a bootstrap sample is its multiplicities, as in scikit-learn).
//! A node holds a range of every feature's sorted row list; a split partitions each
//! list stably, so every node's lists stay sorted at O(n·d) cost per tree level.
//!
//! Split criterion: the weighted impurity decrease w·I(node) − w_l·I(left) − w_r·I(right)
//! with I = variance (regression) or Gini 1 − Σ_c p_c² (classification); maximising it
//! is maximising Σ_l²/w_l + Σ_r²/w_r (sums of w·y) or Σ_c (c_l²/w_l + c_r²/w_r).
//!
//! With [`TreeSettings::cp`] set, the tree is grown and pruned in one pass as rpart's
//! `partition` does (rpart src/partition.c): see [`TreeSettings::cp`].

use rand::{Rng, RngExt};
use xai_core::{LEAF, Tree, TreeNode};

/// The response of the rows a tree is grown on.
#[derive(Debug, Clone, Copy)]
pub enum Response<'a> {
    /// Real values.
    Regression(&'a [f64]),
    /// Class indices below the given number of classes.
    Classes(&'a [usize], usize),
}

impl Response<'_> {
    /// Values per node: 1 (mean) or the number of classes (frequencies).
    pub fn outputs(&self) -> usize {
        match self {
            Response::Regression(_) => 1,
            Response::Classes(_, k) => *k,
        }
    }
}

/// How the features tried at a node are chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeatureDraw {
    /// scikit-learn: features are drawn one at a time in random order, without
    /// replacement; every drawn feature counts towards `mtry`, a constant one too, and
    /// drawing stops once `mtry` were drawn and at least one of them was not constant
    /// in the node (or no feature is left). A constant feature is one whose values in
    /// the node lie within [`TreeSettings::tie`] of each other. The best split of the
    /// non-constant features drawn is taken, whatever its gain; if none of them has a
    /// position that keeps `min_samples_leaf` on both sides, the node is a leaf
    /// (scikit-learn 1.9.1 `sklearn/tree/_splitter.pyx`, `node_split_best` and
    /// `node_split_random`: `while (f_i > n_total_constants and (n_visited_features <
    /// max_features or n_visited_features <= n_found_constants + n_drawn_constants))`,
    /// `n_visited_features += 1` before the constant test).
    UntilNonConstant,
    /// R: exactly min(mtry, d) features are drawn without replacement, a constant one
    /// counts as drawn, and if none of them gives a split that lowers the node's
    /// impurity (gain > 0) the node is a leaf — R does not try further features
    /// (randomForest src/regTree.c `findBestSplit`: `for (i = 0; i < mtry; ++i)`, a
    /// constant feature `continue`s, no split found → `NODE_TERMINAL`; a split needs
    /// `crit > 0`). With mtry ≥ d the features are tried in index order and no random
    /// number is drawn, so ties go to the lowest index, as rpart's `bsplit` (src/bsplit.c,
    /// src/insert_split.c: a later variable replaces the best only if strictly better;
    /// src/anova.c: a split needs improvement > 0).
    Exactly,
}

/// What `min_samples_split` and `min_samples_leaf` count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeSize {
    /// Distinct rows with positive weight (scikit-learn; rpart, whose rows all have
    /// weight 1).
    Rows,
    /// The sum of the row weights: with bootstrap multiplicities as weights every copy
    /// counts, as in R's randomForest, which copies the sampled rows into its bootstrap
    /// sample and counts cases (src/regrf.c: `xb`, `yb`; src/regTree.c).
    Weight,
}

impl NodeSize {
    fn of(self, s: &Stats) -> f64 {
        match self {
            NodeSize::Rows => s.count as f64,
            NodeSize::Weight => s.weight,
        }
    }
}

/// Where a split between two neighbouring sorted values a < b puts its threshold t;
/// rows with x ≤ t go left. The rules split the training rows alike; they differ only
/// for a new x at (or within an ulp of) the midpoint, which happens: with decimal data
/// a test value such as 32.2 between 32.1 and 32.3 falls on whichever side the
/// rounding of the computed midpoint puts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThresholdRule {
    /// t = a/2 + b/2 in floating point, or a if that rounds to b: scikit-learn
    /// (`sklearn/tree/_splitter.pyx`: `feature_values[p_prev] / 2.0 +
    /// feature_values[p] / 2.0`, replaced by `feature_values[p_prev]` when equal to
    /// `feature_values[p]`).
    HalfSum,
    /// t = (a + b)/2, correctly rounded: R's randomForest (src/regTree.c:
    /// `(v[j] + v[j+1]) / 2.0`; `x <= split` goes left in `findBestSplit` and
    /// `predictRegTree`).
    Midpoint,
    /// t = the largest double below (a + b)/2, so x ≤ t ⇔ x < (a + b)/2: rpart
    /// (src/anova.c: `(x[where] + x[where + 1]) / 2`; src/nodesplit.c and
    /// src/pred_rpart.c send `x < split` to one side and `x ≥ split` to the other).
    BelowMidpoint,
}

impl ThresholdRule {
    /// The threshold between neighbours `a < b`; always in [a, b).
    fn between(self, a: f64, b: f64) -> f64 {
        if self == ThresholdRule::HalfSum {
            let t = a / 2.0 + b / 2.0;
            return if t < b { t } else { a };
        }
        let mid = f64::midpoint(a, b);
        match self {
            ThresholdRule::Midpoint if mid < b => mid,
            ThresholdRule::BelowMidpoint if mid > a => mid.next_down(),
            // a and b are adjacent doubles: only t = a separates them.
            _ => a,
        }
    }
}

/// scikit-learn's `FEATURE_THRESHOLD` ([`TreeSettings::tie`]).
pub const SKLEARN_FEATURE_THRESHOLD: f64 = 1e-7;

/// Settings of one tree. [`TreeSettings::default`] is scikit-learn's fully grown tree.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TreeSettings {
    /// Maximum depth (root = 0): a node at this depth is a leaf.
    pub max_depth: usize,
    /// A node whose size ([`NodeSize`]) is below this is a leaf.
    pub min_samples_split: usize,
    /// Each child keeps at least this size ([`NodeSize`]).
    pub min_samples_leaf: usize,
    /// Features tried per split, drawn as [`TreeSettings::draw`] says.
    pub mtry: usize,
    /// One uniform random threshold per tried feature instead of the best one.
    pub random_thresholds: bool,
    /// How the tried features are chosen.
    pub draw: FeatureDraw,
    /// What the size limits count.
    pub size: NodeSize,
    /// Where a threshold lies between two values.
    pub threshold: ThresholdRule,
    /// Sorted neighbours b ≤ a + `tie` are one value: no split between them, and a
    /// feature whose node values all lie within `tie` of the smallest is constant.
    /// scikit-learn: `FEATURE_THRESHOLD` = 1e-7 (`sklearn/tree/_partitioner.pyx`,
    /// `next_p`: `feature_values[p] <= feature_values[p - 1] + FEATURE_THRESHOLD`); R's
    /// randomForest and rpart: 0 (exact ties only). Must be finite and ≥ 0 (the
    /// learners set it; it is not a YAML setting).
    pub tie: f64,
    /// Regression splits scored as rpart's `anova` scores them (src/anova.c): with ȳ
    /// the node mean summed in the feature's sorted order, left and right sums of
    /// w·(y − ȳ), and the score L²/w_l + R²/w_r, which is the decrease in the sum of
    /// squares itself. The same maximiser as Σ_l²/w_l + Σ_r²/w_r in exact arithmetic;
    /// with R's operations in R's order, two splits whose gains tie up to rounding
    /// (e.g. two features that cut a node of repeated rows alike) are told apart as R
    /// tells them apart.
    pub centered: bool,
    /// rpart's complexity parameter cp (`None`: no cost-complexity pruning). With
    /// α = cp · R(root), R(t) the node's risk (regression: its sum of squares
    /// Σw(y − ȳ)² in two passes, rpart's anova deviance, src/anova.c `anovass`;
    /// classification: w(t)·Gini(t)), the tree is grown depth first, left child
    /// first, as rpart's `partition` (src/partition.c) grows it:
    ///
    /// - a node is a leaf if min(R(t), c(t)) ≤ α, where c(root) = R(root) and a child's
    ///   bound c is handed down by its parent: the left child gets c = C − α with C =
    ///   min(R(parent), c(parent)); the right child, after the left subtree is done,
    ///   gets c = min(max((R(parent) − R(T_left))/(s_left + 1), R(parent) − R(left)),
    ///   c(parent)) − α (R(T) = the risk of subtree T's leaves, s = its splits);
    /// - after both subtrees are grown, the node's complexity is
    ///   (R(t) − R(T_l) − R(T_r))/(s_l + s_r + 1), where a child whose own complexity is
    ///   below that value is first collapsed to a leaf (counted as R(child), 0 splits;
    ///   rpart's "who goes first");
    /// - if that complexity is ≤ α, the node's subtree is snipped off and it is a leaf
    ///   (`free_tree`); a leaf's complexity is α.
    ///
    /// So a split into two leaves is kept only if it lowers the risk by more than
    /// cp · R(root), and a split lowering it by less stays if its subtree lowers it by
    /// more than that per split.
    pub cp: Option<f64>,
}

impl Default for TreeSettings {
    /// Unlimited depth, min_samples_split 2, min_samples_leaf 1, every feature, best
    /// thresholds at the midpoint, counted in rows, values within 1e-7 tied, no
    /// pruning (scikit-learn).
    fn default() -> Self {
        Self {
            max_depth: usize::MAX,
            min_samples_split: 2,
            min_samples_leaf: 1,
            mtry: usize::MAX,
            random_thresholds: false,
            draw: FeatureDraw::UntilNonConstant,
            size: NodeSize::Rows,
            threshold: ThresholdRule::HalfSum,
            tie: SKLEARN_FEATURE_THRESHOLD,
            centered: false,
            cp: None,
        }
    }
}

/// Column-major features with, per feature, the rows sorted by value.
pub struct SortedColumns {
    columns: Vec<Vec<f64>>,
    order: Vec<Vec<u32>>,
}

impl SortedColumns {
    /// Sorts every column of a row-major n × d matrix once.
    pub fn new(x: ndarray::ArrayView2<'_, f64>) -> Self {
        let columns: Vec<Vec<f64>> = x.columns().into_iter().map(|c| c.to_vec()).collect();
        let order = columns
            .iter()
            .map(|c| {
                let mut o: Vec<u32> = (0..c.len() as u32).collect();
                o.sort_by(|&a, &b| c[a as usize].total_cmp(&c[b as usize]));
                o
            })
            .collect();
        Self { columns, order }
    }

    /// Number of rows.
    pub fn n_rows(&self) -> usize {
        self.columns.first().map_or(0, Vec::len)
    }

    /// Number of features.
    pub fn n_features(&self) -> usize {
        self.columns.len()
    }
}

/// Node statistics: weight, row count, and Σw·y, Σw·y² or per-class weights.
#[derive(Debug, Clone)]
struct Stats {
    weight: f64,
    count: usize,
    sums: Vec<f64>,
}

impl Stats {
    fn new(k: usize) -> Self {
        Self {
            weight: 0.0,
            count: 0,
            sums: vec![0.0; k],
        }
    }

    fn clear(&mut self) {
        self.weight = 0.0;
        self.count = 0;
        self.sums.iter_mut().for_each(|s| *s = 0.0);
    }

    fn add(&mut self, r: &Response<'_>, row: usize, w: f64) {
        self.weight += w;
        self.count += 1;
        match r {
            Response::Regression(y) => {
                self.sums[0] += w * y[row];
                self.sums[1] += w * y[row] * y[row];
            }
            Response::Classes(c, _) => self.sums[c[row]] += w,
        }
    }

    /// Adds `rows`, as [`Stats::add`] would one by one (a regression's sums in
    /// registers).
    fn add_rows(&mut self, r: &Response<'_>, rows: &[u32], weights: &[f64]) {
        let Response::Regression(y) = r else {
            for &row in rows {
                self.add(r, row as usize, weights[row as usize]);
            }
            return;
        };
        let (mut weight, mut s, mut s2) = (self.weight, self.sums[0], self.sums[1]);
        for &row in rows {
            let (w, y) = (weights[row as usize], y[row as usize]);
            weight += w;
            s += w * y;
            s2 += w * y * y;
        }
        self.weight = weight;
        self.count += rows.len();
        self.sums[0] = s;
        self.sums[1] = s2;
    }

    /// The split proxy term Σ²/w (regression) or Σ_c c²/w (Gini).
    fn proxy(&self, r: &Response<'_>) -> f64 {
        match r {
            Response::Regression(_) => self.sums[0] * self.sums[0] / self.weight,
            Response::Classes(..) => self.sums.iter().map(|c| c * c).sum::<f64>() / self.weight,
        }
    }

    /// The proxy term of the complement `self − left`, without allocating.
    fn proxy_without(&self, left: &Stats, r: &Response<'_>) -> f64 {
        let w = self.weight - left.weight;
        match r {
            Response::Regression(_) => (self.sums[0] - left.sums[0]).powi(2) / w,
            Response::Classes(..) => {
                self.sums
                    .iter()
                    .zip(&left.sums)
                    .map(|(t, l)| (t - l) * (t - l))
                    .sum::<f64>()
                    / w
            }
        }
    }

    fn impurity(&self, r: &Response<'_>) -> f64 {
        let w = self.weight;
        match r {
            Response::Regression(_) => (self.sums[1] / w - (self.sums[0] / w).powi(2)).max(0.0),
            Response::Classes(..) => 1.0 - self.sums.iter().map(|c| (c / w) * (c / w)).sum::<f64>(),
        }
    }

    /// Writes the node value (mean, or class frequencies) into `out`.
    fn write_value(&self, r: &Response<'_>, out: &mut [f64]) {
        match r {
            Response::Regression(_) => out[0] = self.sums[0] / self.weight,
            Response::Classes(..) => {
                for (o, c) in out.iter_mut().zip(&self.sums) {
                    *o = c / self.weight;
                }
            }
        }
    }
}

struct Split {
    feature: usize,
    threshold: f64,
    score: f64,
}

/// Grows a tree on the rows with positive `weights`.
pub fn grow<R: Rng + ?Sized>(
    data: &SortedColumns,
    response: Response<'_>,
    weights: &[f64],
    settings: &TreeSettings,
    rng: &mut R,
) -> Tree {
    Grower::new(data, response, weights, settings).run(rng)
}

/// What is left to do, on an explicit stack (no recursion: unlimited depth is allowed).
enum Task {
    /// Compute a node's statistics and split it if the rules allow.
    Visit {
        id: usize,
        lo: usize,
        hi: usize,
        depth: usize,
    },
    /// With pruning: the left subtree of `parent` is done; bound and visit the right
    /// child (rows `lo..hi`).
    Right {
        parent: usize,
        lo: usize,
        hi: usize,
        depth: usize,
    },
    /// With pruning: both subtrees of `id` are done; compute its complexity, snip if
    /// it is ≤ α.
    Finish { id: usize },
}

/// rpart's per-node bookkeeping of [`TreeSettings::cp`].
#[derive(Debug, Clone, Copy, Default)]
struct Cost {
    /// R(t) = w·I.
    risk: f64,
    /// On entry the bound handed down by the parent; once done the node's complexity
    /// (rpart's `me->complexity`).
    complexity: f64,
    /// Risk of the subtree's leaves (`*sumrisk`).
    subtree_risk: f64,
    /// Splits in the subtree (partition's return value).
    splits: u32,
}

struct Grower<'a> {
    data: &'a SortedColumns,
    response: Response<'a>,
    weights: &'a [f64],
    settings: &'a TreeSettings,
    order: Vec<Vec<u32>>,
    nodes: Vec<TreeNode>,
    values: Vec<f64>,
    /// With pruning: one entry per node.
    costs: Vec<Cost>,
    /// α = cp · R(root), once the root is visited.
    alpha: Option<f64>,
    goes_left: Vec<bool>,
    buffer: Vec<u32>,
    features: Vec<usize>,
    total: Stats,
    scratch: SplitScratch,
}

/// The left side's statistics of the split search ([`AnyLeft`], [`random_split`]),
/// reused from node to node.
struct SplitScratch {
    left: Stats,
}

impl<'a> Grower<'a> {
    fn new(
        data: &'a SortedColumns,
        response: Response<'a>,
        weights: &'a [f64],
        settings: &'a TreeSettings,
    ) -> Self {
        let k = match response {
            Response::Regression(_) => 2,
            Response::Classes(_, k) => k,
        };
        // The rows drawn (weight > 0), without a branch: about a third of a bootstrap
        // sample's rows are not, at random.
        let order: Vec<Vec<u32>> = data
            .order
            .iter()
            .map(|o| {
                let mut kept = vec![0; o.len()];
                let mut k = 0;
                for &r in o {
                    kept[k] = r;
                    k += usize::from(weights[r as usize] > 0.0);
                }
                kept.truncate(k);
                kept
            })
            .collect();
        let n = order.first().map_or(0, Vec::len);
        Self {
            data,
            response,
            weights,
            settings,
            order,
            nodes: Vec::new(),
            values: Vec::new(),
            costs: Vec::new(),
            alpha: None,
            goes_left: vec![false; data.n_rows()],
            buffer: Vec::with_capacity(n),
            features: (0..data.n_features()).collect(),
            total: Stats::new(k),
            scratch: SplitScratch {
                left: Stats::new(k),
            },
        }
    }

    fn run<R: Rng + ?Sized>(mut self, rng: &mut R) -> Tree {
        let n = self.order.first().map_or(0, Vec::len);
        let out = self.response.outputs();
        self.push_node();
        let mut stack = vec![Task::Visit {
            id: 0,
            lo: 0,
            hi: n,
            depth: 0,
        }];
        while let Some(task) = stack.pop() {
            match task {
                Task::Visit { id, lo, hi, depth } => self.visit(id, lo, hi, depth, &mut stack, rng),
                Task::Right {
                    parent,
                    lo,
                    hi,
                    depth,
                } => {
                    let right = self.nodes[parent].right as usize;
                    self.bound_right(parent, right);
                    stack.push(Task::Visit {
                        id: right,
                        lo,
                        hi,
                        depth,
                    });
                }
                Task::Finish { id } => self.finish(id),
            }
        }
        Tree::new(self.nodes, self.values, out)
    }

    fn push_node(&mut self) {
        self.nodes.push(placeholder());
        self.values
            .extend(std::iter::repeat_n(0.0, self.response.outputs()));
        if self.settings.cp.is_some() {
            self.costs.push(Cost::default());
        }
    }

    fn visit<R: Rng + ?Sized>(
        &mut self,
        id: usize,
        lo: usize,
        hi: usize,
        depth: usize,
        stack: &mut Vec<Task>,
        rng: &mut R,
    ) {
        let settings = self.settings;
        let response = self.response;
        self.total.clear();
        self.total
            .add_rows(&response, &self.order[0][lo..hi], self.weights);
        let impurity = self.total.impurity(&response);
        let out = response.outputs();
        self.total
            .write_value(&response, &mut self.values[id * out..(id + 1) * out]);
        self.nodes[id] = TreeNode {
            impurity,
            weight: self.total.weight,
            ..placeholder()
        };
        // rpart's "can I quit now?": min(R(t), c(t)) ≤ α.
        let mut bound = 0.0;
        if let Some(cp) = settings.cp {
            let risk = match response {
                // rpart's anovass: Σ w·(y − ȳ)², two passes.
                Response::Regression(y) => {
                    let mean = self.total.sums[0] / self.total.weight;
                    self.order[0][lo..hi]
                        .iter()
                        .map(|&r| (y[r as usize] - mean).powi(2) * self.weights[r as usize])
                        .sum()
                }
                Response::Classes(..) => self.total.weight * impurity,
            };
            if id == 0 {
                self.alpha = Some(cp * risk);
                self.costs[0].complexity = risk;
            }
            let c = &mut self.costs[id];
            c.risk = risk;
            c.subtree_risk = risk;
            c.splits = 0;
            bound = risk.min(c.complexity);
        }
        let alpha = self.alpha.unwrap_or(f64::NEG_INFINITY);
        let size = settings.size.of(&self.total);
        let splittable = depth < settings.max_depth
            && size >= settings.min_samples_split as f64
            && size >= 2.0 * settings.min_samples_leaf as f64
            && impurity > 1e-12
            && bound > alpha;
        let split = if splittable {
            find_split(
                self.data,
                &self.order,
                lo,
                hi,
                &response,
                self.weights,
                &self.total,
                &mut self.scratch,
                settings,
                &mut self.features,
                rng,
            )
        } else {
            None
        };
        let Some(split) = split else {
            if let Some(c) = self.costs.get_mut(id) {
                c.complexity = alpha;
            }
            return;
        };
        let n_left = self.partition(lo, hi, &split);
        let left = self.nodes.len();
        self.push_node();
        self.push_node();
        let node = &mut self.nodes[id];
        node.feature = split.feature as u32;
        node.threshold = split.threshold;
        node.left = left as u32;
        node.right = left as u32 + 1;
        if settings.cp.is_some() {
            self.costs[left].complexity = bound - alpha;
            stack.push(Task::Finish { id });
            stack.push(Task::Right {
                parent: id,
                lo: lo + n_left,
                hi,
                depth: depth + 1,
            });
        } else {
            stack.push(Task::Visit {
                id: left + 1,
                lo: lo + n_left,
                hi,
                depth: depth + 1,
            });
        }
        stack.push(Task::Visit {
            id: left,
            lo,
            hi: lo + n_left,
            depth: depth + 1,
        });
    }

    /// Partitions every feature's rows `lo..hi` stably into left then right; returns
    /// the number of left rows.
    fn partition(&mut self, lo: usize, hi: usize, split: &Split) -> usize {
        let col = &self.data.columns[split.feature];
        for &r in &self.order[0][lo..hi] {
            self.goes_left[r as usize] = col[r as usize] <= split.threshold;
        }
        // Without a branch (a row goes either way about as often): every row is
        // written to both places and the side it belongs to advances; o[w] with w ≤ i
        // is already read.
        self.buffer.resize(hi - lo, 0);
        let mut n_left = 0;
        for o in self.order.iter_mut() {
            let (mut w, mut b) = (lo, 0);
            for i in lo..hi {
                let r = o[i];
                let left = self.goes_left[r as usize];
                o[w] = r;
                self.buffer[b] = r;
                w += usize::from(left);
                b += usize::from(!left);
            }
            n_left = w - lo;
            o[w..hi].copy_from_slice(&self.buffer[..b]);
        }
        n_left
    }

    /// The right child's bound c = min(max((R(t) − R(T_l))/(s_l + 1), R(t) − R(l)),
    /// c(t)) − α (rpart src/partition.c, before `partition(1 + 2 * nodenum, ...)`).
    fn bound_right(&mut self, parent: usize, right: usize) {
        let alpha = self.alpha.expect("set at the root");
        let me = self.costs[parent];
        let left = self.costs[right - 1];
        let by_subtree = (me.risk - left.subtree_risk) / (left.splits + 1) as f64;
        let c = by_subtree.max(me.risk - left.risk).min(me.complexity);
        self.costs[right].complexity = c - alpha;
    }

    /// The node's complexity after its children (rpart src/partition.c, from "Now
    /// calculate my actual C.P."), and the snip when it is ≤ α.
    fn finish(&mut self, id: usize) {
        let alpha = self.alpha.expect("set at the root");
        let left = self.nodes[id].left as usize;
        let (me, l, r) = (self.costs[id], self.costs[left], self.costs[left + 1]);
        let (mut l_risk, mut l_splits) = (l.subtree_risk, l.splits);
        let (mut r_risk, mut r_splits) = (r.subtree_risk, r.splits);
        let cp = |l_risk: f64, r_risk: f64, splits: u32| {
            (me.risk - (l_risk + r_risk)) / (splits + 1) as f64
        };
        let c = cp(l_risk, r_risk, l_splits + r_splits);
        // Who goes first: a child whose complexity is below the node's collapses first.
        if r.complexity > l.complexity {
            if c > l.complexity {
                (l_risk, l_splits) = (l.risk, 0);
                if cp(l_risk, r_risk, r_splits) > r.complexity {
                    (r_risk, r_splits) = (r.risk, 0);
                }
            }
        } else if c > r.complexity {
            (r_risk, r_splits) = (r.risk, 0);
            if cp(l_risk, r_risk, l_splits) > l.complexity {
                (l_risk, l_splits) = (l.risk, 0);
            }
        }
        let complexity = cp(l_risk, r_risk, l_splits + r_splits);
        let c = &mut self.costs[id];
        c.complexity = complexity;
        if complexity <= alpha {
            // All was in vain: the node does not split after all. Its descendants are
            // exactly the nodes allocated after its children.
            c.subtree_risk = me.risk;
            c.splits = 0;
            self.nodes.truncate(left);
            self.values.truncate(left * self.response.outputs());
            self.costs.truncate(left);
            let node = &mut self.nodes[id];
            *node = TreeNode {
                impurity: node.impurity,
                weight: node.weight,
                ..placeholder()
            };
        } else {
            c.subtree_risk = l_risk + r_risk;
            c.splits = l_splits + r_splits + 1;
        }
    }
}

fn placeholder() -> TreeNode {
    TreeNode {
        feature: 0,
        left: LEAF,
        right: LEAF,
        threshold: 0.0,
        weight: 0.0,
        impurity: 0.0,
        missing_left: false,
    }
}

#[allow(clippy::too_many_arguments)]
fn find_split<R: Rng + ?Sized>(
    data: &SortedColumns,
    order: &[Vec<u32>],
    lo: usize,
    hi: usize,
    response: &Response<'_>,
    weights: &[f64],
    total: &Stats,
    scratch: &mut SplitScratch,
    settings: &TreeSettings,
    features: &mut [usize],
    rng: &mut R,
) -> Option<Split> {
    let d = features.len();
    // Exactly: at most this many draws; in index order, without drawing, if all.
    let draws = match settings.draw {
        FeatureDraw::UntilNonConstant => d,
        FeatureDraw::Exactly => settings.mtry.min(d),
    };
    let in_order = settings.draw == FeatureDraw::Exactly && draws == d;
    let centered = match response {
        Response::Regression(y) if settings.centered => Some(*y),
        _ => None,
    };
    // Exactly: a split must lower the impurity (score above the node's own term, or
    // a centered score, which is the decrease itself, above 0).
    let floor = match (settings.draw, centered) {
        (FeatureDraw::UntilNonConstant, _) => f64::NEG_INFINITY,
        (FeatureDraw::Exactly, Some(_)) => 0.0,
        (FeatureDraw::Exactly, None) => total.proxy(response),
    };
    let mut best: Option<Split> = None;
    let mut evaluated = 0;
    for i in 0..draws {
        if settings.draw == FeatureDraw::UntilNonConstant && i >= settings.mtry && evaluated > 0 {
            break;
        }
        let f = if in_order {
            i
        } else {
            // Partial Fisher–Yates: features[i] is a fresh uniform draw from the rest.
            let j = rng.random_range(i..d);
            features.swap(i, j);
            features[i]
        };
        let col = &data.columns[f];
        let rows = &order[f][lo..hi];
        let (min, max) = (col[rows[0] as usize], col[rows[rows.len() - 1] as usize]);
        if max <= min + settings.tie {
            continue; // constant in this node: counts as drawn, is not evaluated
        }
        evaluated += 1;
        let found = match centered {
            _ if settings.random_thresholds => random_split(
                col,
                rows,
                response,
                weights,
                total,
                &mut scratch.left,
                settings,
                min,
                max,
                rng,
            ),
            Some(y) => centered_split(col, rows, y, weights, total, settings),
            None => best_split(col, rows, response, weights, total, settings, scratch),
        };
        if let Some((threshold, score)) = found
            && score > floor
            && best.as_ref().is_none_or(|b| score > b.score)
        {
            best = Some(Split {
                feature: f,
                threshold,
                score,
            });
        }
    }
    best
}

/// The sums of the rows left of a candidate split that [`best_split`]'s scan keeps.
trait LeftSums {
    /// Adds row `r` with weight `w`.
    fn add(&mut self, r: usize, w: f64);
    /// The left side's size under `rule`.
    fn size(&self, rule: NodeSize) -> f64;
    /// The split's score Σ_l²/w_l + Σ_r²/w_r (or Σ_c over classes).
    fn score(&self, total: &Stats) -> f64;
}

/// Any response: the node statistics themselves.
struct AnyLeft<'a, 'r> {
    response: &'a Response<'r>,
    stats: &'a mut Stats,
}

impl LeftSums for AnyLeft<'_, '_> {
    fn add(&mut self, r: usize, w: f64) {
        self.stats.add(self.response, r, w);
    }

    fn size(&self, rule: NodeSize) -> f64 {
        rule.of(self.stats)
    }

    fn score(&self, total: &Stats) -> f64 {
        self.stats.proxy(self.response) + total.proxy_without(self.stats, self.response)
    }
}

/// A regression's left side: weight, count and Σw·y in registers, with the
/// operations of [`Stats::add`], [`Stats::proxy`] and [`Stats::proxy_without`] in
/// their order, so the scores are the same to the last bit.
struct RegressionLeft<'a> {
    y: &'a [f64],
    weight: f64,
    count: usize,
    sum: f64,
}

impl LeftSums for RegressionLeft<'_> {
    #[inline]
    fn add(&mut self, r: usize, w: f64) {
        self.weight += w;
        self.count += 1;
        self.sum += w * self.y[r];
    }

    #[inline]
    fn size(&self, rule: NodeSize) -> f64 {
        match rule {
            NodeSize::Rows => self.count as f64,
            NodeSize::Weight => self.weight,
        }
    }

    #[inline]
    fn score(&self, total: &Stats) -> f64 {
        self.sum * self.sum / self.weight
            + (total.sums[0] - self.sum).powi(2) / (total.weight - self.weight)
    }
}

fn best_split(
    col: &[f64],
    rows: &[u32],
    response: &Response<'_>,
    weights: &[f64],
    total: &Stats,
    settings: &TreeSettings,
    scratch: &mut SplitScratch,
) -> Option<(f64, f64)> {
    match response {
        Response::Regression(y) => {
            let left = RegressionLeft {
                y,
                weight: 0.0,
                count: 0,
                sum: 0.0,
            };
            scan(col, rows, weights, total, settings, left)
        }
        Response::Classes(..) => {
            scratch.left.clear();
            let left = AnyLeft {
                response,
                stats: &mut scratch.left,
            };
            scan(col, rows, weights, total, settings, left)
        }
    }
}

/// The best split of `rows` (sorted by `col`) between distinct neighbours whose sides
/// keep `min_samples_leaf`: its threshold and score.
fn scan(
    col: &[f64],
    rows: &[u32],
    weights: &[f64],
    total: &Stats,
    settings: &TreeSettings,
    mut left: impl LeftSums,
) -> Option<(f64, f64)> {
    // The first valid position with the highest score, without a branch per
    // position (in small nodes whether a position beats the best so far is a coin
    // flip for the branch predictor).
    let (mut found, mut at, mut best) = (false, 0, f64::NEG_INFINITY);
    let min_leaf = settings.min_samples_leaf as f64;
    let size = settings.size.of(total);
    for p in 0..rows.len() - 1 {
        let r = rows[p] as usize;
        left.add(r, weights[r]);
        let left_size = left.size(settings.size);
        // `!(next <= here)`, not `next > here`: a NaN neighbour counts as R and
        // scikit-learn count it (not a tie).
        #[allow(clippy::neg_cmp_op_on_partial_ord)]
        let distinct = !(col[rows[p + 1] as usize] <= col[r] + settings.tie);
        let valid = distinct & (left_size >= min_leaf) & (size - left_size >= min_leaf);
        let score = left.score(total);
        let take = valid & (!found | (score > best));
        at = if take { p } else { at };
        best = if take { score } else { best };
        found |= valid;
    }
    found.then_some((at, best)).map(|(p, score)| {
        let (here, next) = (col[rows[p] as usize], col[rows[p + 1] as usize]);
        (settings.threshold.between(here, next), score)
    })
}

/// rpart's anova split search (src/anova.c `anova`, continuous predictor): returns
/// the threshold and the decrease in the sum of squares, or `None` if no position
/// decreases it.
fn centered_split(
    col: &[f64],
    rows: &[u32],
    y: &[f64],
    weights: &[f64],
    total: &Stats,
    settings: &TreeSettings,
) -> Option<(f64, f64)> {
    let (mut right_sum, mut right_wt) = (0.0, 0.0);
    for &r in rows {
        let (r, w) = (r as usize, weights[r as usize]);
        right_sum += y[r] * w;
        right_wt += w;
    }
    let grand_mean = right_sum / right_wt;
    let (mut left_sum, mut left_wt, mut left_n) = (0.0, 0.0, 0usize);
    right_sum = 0.0;
    let min_leaf = settings.min_samples_leaf as f64;
    let size = settings.size.of(total);
    let mut best = 0.0;
    let mut at = None;
    for p in 0..rows.len() - 1 {
        let (r, w) = (rows[p] as usize, weights[rows[p] as usize]);
        left_wt += w;
        right_wt -= w;
        left_n += 1;
        let t = (y[r] - grand_mean) * w;
        left_sum += t;
        right_sum -= t;
        let left_size = match settings.size {
            NodeSize::Rows => left_n as f64,
            NodeSize::Weight => left_wt,
        };
        if col[rows[p + 1] as usize] <= col[r] + settings.tie
            || left_size < min_leaf
            || size - left_size < min_leaf
        {
            continue;
        }
        let score = left_sum * left_sum / left_wt + right_sum * right_sum / right_wt;
        if score > best {
            best = score;
            at = Some(p);
        }
    }
    at.map(|p| {
        let (here, next) = (col[rows[p] as usize], col[rows[p + 1] as usize]);
        (settings.threshold.between(here, next), best)
    })
}

#[allow(clippy::too_many_arguments)]
fn random_split<R: Rng + ?Sized>(
    col: &[f64],
    rows: &[u32],
    response: &Response<'_>,
    weights: &[f64],
    total: &Stats,
    left: &mut Stats,
    settings: &TreeSettings,
    min: f64,
    max: f64,
    rng: &mut R,
) -> Option<(f64, f64)> {
    let threshold = rng.random_range(min..max);
    left.clear();
    for &r in rows {
        if col[r as usize] > threshold {
            break;
        }
        left.add(response, r as usize, weights[r as usize]);
    }
    let min_leaf = settings.min_samples_leaf as f64;
    let left_size = settings.size.of(left);
    let right_size = settings.size.of(total) - left_size;
    (left_size >= min_leaf && right_size >= min_leaf).then(|| {
        (
            threshold,
            left.proxy(response) + total.proxy_without(left, response),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::ThresholdRule;

    #[test]
    fn each_threshold_rule_is_its_reference_formula_and_stays_in_a_to_b() {
        // Pairs where a + (b − a)/2, a/2 + b/2 and (a + b)/2 can round apart.
        for (a, b) in [(32.1, 32.3), (0.1, 0.7), (1e300, 1.7e308), (3.0, 5.0)] {
            let half_sum = ThresholdRule::HalfSum.between(a, b);
            assert_eq!(half_sum, a / 2.0 + b / 2.0);
            assert_eq!(ThresholdRule::Midpoint.between(a, b), f64::midpoint(a, b));
            let below = ThresholdRule::BelowMidpoint.between(a, b);
            assert_eq!(below, f64::midpoint(a, b).next_down());
            for t in [half_sum, below] {
                assert!(a <= t && t < b);
            }
        }
        // Adjacent doubles: only t = a separates them.
        let (a, b) = (1.0, 1.0f64.next_up());
        for rule in [
            ThresholdRule::HalfSum,
            ThresholdRule::Midpoint,
            ThresholdRule::BelowMidpoint,
        ] {
            assert_eq!(rule.between(a, b), a);
        }
    }
}
