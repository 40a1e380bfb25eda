//! Random forests (Breiman 2001) and extra-trees (Geurts et al. 2006) for regression
//! and classification, fitted in parallel over trees and deterministically: tree t
//! draws from `stream_rng(seed, t)`, so any thread count gives the same forest.
//!
//! Regression predicts the mean of the trees' leaf means (`Predictions::Point`);
//! classification predicts the mean of the trees' leaf class frequencies
//! (`Predictions::Probabilities`).

use ndarray::{Array2, ArrayView2};
use rand::Rng;
use rayon::prelude::*;
use serde::Deserialize;
use xai_core::rng::stream_rng;
use xai_core::{Dataset, Learner, Model, Predictions, Target, Tree, TreeEnsembleView};

use crate::capabilities::Capabilities;
use crate::cart::{Response, SortedColumns, TreeSettings, grow};
use crate::flat::{FlatTree, LaneRows};
use crate::kind::LearnerKind;

/// A rule for the number of features tried per split.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum MtryRule {
    /// All d features.
    All,
    /// ⌊√d⌋ (scikit-learn's classifier default).
    Sqrt,
    /// max(⌊d/3⌋, 1) (R randomForest's regression default).
    Third,
}

/// Features tried per split: a rule or a count.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(untagged)]
pub enum Mtry {
    /// A fixed count (capped at d).
    Count(#[schemars(range(min = 1))] usize),
    /// A rule in d.
    Rule(MtryRule),
}

impl Mtry {
    /// The count for d features (at least 1).
    pub fn resolve(self, d: usize) -> usize {
        let m = match self {
            Mtry::Count(m) => m,
            Mtry::Rule(MtryRule::All) => d,
            Mtry::Rule(MtryRule::Sqrt) => (d as f64).sqrt().floor() as usize,
            Mtry::Rule(MtryRule::Third) => d / 3,
        };
        m.clamp(1, d.max(1))
    }
}

/// Settings of a forest (all optional in YAML; defaults are scikit-learn's).
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ForestParams {
    /// Number of trees.
    #[schemars(range(min = 1))]
    pub n_trees: usize,
    /// Features tried per split (default: `sqrt` for classification, `all` for
    /// regression).
    pub mtry: Option<Mtry>,
    /// Fit each tree on a bootstrap sample (default: true for random forests, false
    /// for extra-trees).
    pub bootstrap: Option<bool>,
    /// Maximum depth (default: unlimited).
    pub max_depth: Option<usize>,
    /// Minimum rows to split a node.
    #[schemars(range(min = 2))]
    pub min_samples_split: usize,
    /// Minimum rows in a leaf.
    #[schemars(range(min = 1))]
    pub min_samples_leaf: usize,
}

impl Default for ForestParams {
    fn default() -> Self {
        Self {
            n_trees: 100,
            mtry: None,
            bootstrap: None,
            max_depth: None,
            min_samples_split: 2,
            min_samples_leaf: 1,
        }
    }
}

impl LearnerKind for ForestParams {
    /// Each setting within the range its field declares
    /// ([`xai_core::settings::check_value`]).
    fn validate(&self) -> Result<(), crate::ParamError> {
        Ok(xai_core::settings::check_value(self)?)
    }

    fn describe(&self) -> &'static str {
        "random forest"
    }

    /// [`Capabilities::MEAN_OF_TREES`].
    fn capabilities(&self) -> Capabilities {
        Capabilities::MEAN_OF_TREES
    }

    /// Peak bytes of fitting the forest on n rows and d features:
    /// 8n (the target's copy) + `ForestParams::grow_memory_bytes` + T·B(n)
    /// (`ForestParams::tree_bytes`) with o = `ESTIMATE_OUTPUTS`.
    fn fit_memory_bytes(&self, n: u128, d: u128) -> u128 {
        crate::memory::bytes(&[
            &[8, n],
            &[self.grow_memory_bytes(n, d)],
            &[self.n_trees as u128, self.tree_bytes(n, ESTIMATE_OUTPUTS)],
        ])
    }

    /// `predict_memory_bytes`.
    fn predict_memory_bytes(&self, _n: u128, m: u128, d: u128) -> u128 {
        predict_memory_bytes(m, d)
    }

    fn build(&self) -> Box<dyn Learner> {
        Box::new(ForestLearner {
            params: self.clone(),
            random_thresholds: false,
        })
    }
}

/// `extra_trees: {...}`: the forest's settings ([`ForestParams`], bootstrap off by
/// default), grown with one uniform random threshold per tried feature.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(transparent)]
pub struct ExtraTreesParams(pub ForestParams);

impl LearnerKind for ExtraTreesParams {
    fn describe(&self) -> &'static str {
        "extra-trees"
    }

    fn validate(&self) -> Result<(), crate::ParamError> {
        self.0.validate()
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::MEAN_OF_TREES
    }

    /// As the random forest's.
    fn fit_memory_bytes(&self, n: u128, d: u128) -> u128 {
        self.0.fit_memory_bytes(n, d)
    }

    /// As the random forest's.
    fn predict_memory_bytes(&self, n: u128, m: u128, d: u128) -> u128 {
        self.0.predict_memory_bytes(n, m, d)
    }

    fn build(&self) -> Box<dyn Learner> {
        Box::new(ForestLearner {
            params: self.0.clone(),
            random_thresholds: true,
        })
    }
}

/// Values per tree node (and per predicted row) the memory estimates assume: 2, a
/// binary classifier's class frequencies (a regression tree stores 1, a k-class one k).
pub(crate) const ESTIMATE_OUTPUTS: u128 = 2;

/// Rows per parallel chunk of [`Forest::leaf_means`].
const CHUNK: usize = 4096;

impl ForestParams {
    /// N(n) = min(2⌈n/l⌉ − 1, 2^(D+1) − 1), l = `min_samples_leaf`, D = `max_depth`:
    /// at most this many nodes in a tree grown on n rows (a leaf keeps at least l
    /// distinct rows, a binary tree has 2·leaves − 1 nodes, and depth D allows
    /// 2^(D+1) − 1).
    pub(crate) fn max_nodes(&self, n: u128) -> u128 {
        let by_rows = 2 * n.div_ceil(self.min_samples_leaf.max(1) as u128).max(1) - 1;
        let by_depth = match self.max_depth {
            Some(depth) if depth < 127 => (1u128 << (depth + 1)) - 1,
            _ => u128::MAX,
        };
        by_rows.min(by_depth)
    }

    /// B(n) = N(n)·(2·(40 + 8o) + 20): one fitted tree on n rows with o values per
    /// node: its 40-byte nodes and their values, counted twice for the growth slack of
    /// the vectors they are pushed into, and the 20-byte nodes of its flat layout.
    pub(crate) fn tree_bytes(&self, n: u128, outputs: u128) -> u128 {
        let node = size_of::<xai_core::TreeNode>() as u128;
        let flat = crate::flat::FLAT_NODE_BYTES as u128;
        crate::memory::bytes(&[
            &[self.max_nodes(n), 2, node],
            &[self.max_nodes(n), 2, 8, outputs],
            &[self.max_nodes(n), flat],
        ])
    }

    /// Working bytes of [`ForestLearner::fit_forest`] on n rows and d features besides
    /// the trees, T trees on P threads: 12nd + 4n + min(T, P)·(8nd + 13n + 8d) +
    /// 8·N(n): the columns, their presorted row lists (u32) and the sort's scratch;
    /// per tree in flight its filtered copy of the row lists (at most twice their
    /// length in capacity), the bootstrap weights, the partition flags and buffer; the
    /// queue of the flat re-layout.
    pub(crate) fn grow_memory_bytes(&self, n: u128, d: u128) -> u128 {
        let in_flight = (self.n_trees as u128).min(crate::memory::threads());
        crate::memory::bytes(&[
            &[12, n, d],
            &[4, n],
            &[in_flight, 8, n, d],
            &[in_flight, 13, n],
            &[in_flight, 8, d],
            &[8, self.max_nodes(n)],
        ])
    }
}

/// Peak bytes one [`Forest::predict`] on m rows and d features allocates:
/// 8md (a row-major copy of rows that are not) + 8mo (the mean of the leaf values, o =
/// [`ESTIMATE_OUTPUTS`]) + 8m (a regression's column) + 16384·P (each thread's leaf
/// indices of a chunk of 4096 rows).
pub(crate) fn predict_memory_bytes(m: u128, d: u128) -> u128 {
    crate::memory::bytes(&[
        &[8, m, d],
        &[8, m, ESTIMATE_OUTPUTS],
        &[8, m],
        &[4, CHUNK as u128, crate::memory::threads()],
    ])
}

/// A random forest (`random_thresholds = false`) or extra-trees learner.
#[derive(Debug, Clone, PartialEq)]
pub struct ForestLearner {
    /// The settings.
    pub params: ForestParams,
    /// Extra-trees: one uniform random threshold per tried feature.
    pub random_thresholds: bool,
}

impl ForestLearner {
    /// Fits the forest on the rows of `x` with the given response; tree t draws from
    /// `stream_rng(seed, t)`.
    pub fn fit_forest(&self, x: ArrayView2<'_, f64>, response: Response<'_>, seed: u64) -> Forest {
        let p = &self.params;
        let d = x.ncols();
        let classification = matches!(response, Response::Classes(..));
        let default_mtry = if classification {
            Mtry::Rule(MtryRule::Sqrt)
        } else {
            Mtry::Rule(MtryRule::All)
        };
        let settings = TreeSettings {
            max_depth: p.max_depth.unwrap_or(usize::MAX),
            min_samples_split: p.min_samples_split,
            min_samples_leaf: p.min_samples_leaf,
            mtry: p.mtry.unwrap_or(default_mtry).resolve(d),
            random_thresholds: self.random_thresholds,
            ..TreeSettings::default()
        };
        let bootstrap = p.bootstrap.unwrap_or(!self.random_thresholds);
        grow_forest(x, response, &settings, p.n_trees, bootstrap, seed)
    }
}

/// Grows `n_trees` trees with `settings` on the rows of `x`, in parallel; tree t draws
/// from `stream_rng(seed, t)`: with `bootstrap`, first its sample of n rows drawn
/// uniformly with replacement (the multiplicities are the rows' weights), then its
/// splits. Any thread count gives the same forest.
pub fn grow_forest(
    x: ArrayView2<'_, f64>,
    response: Response<'_>,
    settings: &TreeSettings,
    n_trees: usize,
    bootstrap: bool,
    seed: u64,
) -> Forest {
    let (n, d) = x.dim();
    let sorted = SortedColumns::new(x);
    let trees = (0..n_trees)
        .into_par_iter()
        .map(|t| {
            let mut rng = stream_rng(seed, t as u64);
            let mut weights = vec![if bootstrap { 0.0 } else { 1.0 }; n];
            if bootstrap {
                for _ in 0..n {
                    weights[rand::RngExt::random_range(&mut rng, 0..n)] += 1.0;
                }
            }
            grow(&sorted, response, &weights, settings, &mut rng)
        })
        .collect();
    let n_classes = match response {
        Response::Classes(_, k) => Some(k),
        Response::Regression(_) => None,
    };
    Forest::from_trees(trees, d, n_classes)
}

impl Learner for ForestLearner {
    fn fit(&self, data: &Dataset, rng: &mut dyn Rng) -> xai_core::error::Result<Box<dyn Model>> {
        self.params.validate()?;
        let seed = rng.next_u64();
        Ok(Box::new(match data.y() {
            Target::Continuous(y) => {
                let y = y.to_vec();
                self.fit_forest(data.x(), Response::Regression(&y), seed)
            }
            Target::Classes { labels, n_classes } => {
                let c = labels.to_vec();
                self.fit_forest(data.x(), Response::Classes(&c, *n_classes), seed)
            }
        }))
    }
}

/// A fitted forest.
#[derive(Debug, Clone, PartialEq)]
pub struct Forest {
    trees: Vec<Tree>,
    flat: Vec<FlatTree>,
    n_features: usize,
    n_classes: Option<usize>,
}

impl Forest {
    /// A forest from given trees (e.g. a dumped scikit-learn forest, for replays).
    pub fn from_trees(trees: Vec<Tree>, n_features: usize, n_classes: Option<usize>) -> Self {
        Self {
            flat: trees.iter().map(FlatTree::new).collect(),
            trees,
            n_features,
            n_classes,
        }
    }

    /// The mean over trees of the leaf values of each row (n × outputs). Chunks of
    /// rows run in parallel; within a chunk, tree by tree (one tree's nodes stay in
    /// cache while the chunk walks it). Each row sums its trees in the same order, so
    /// the result does not depend on the thread count.
    pub fn leaf_means(&self, x: ArrayView2<'_, f64>) -> Array2<f64> {
        let out = self.trees.first().map_or(1, Tree::outputs);
        let (n, d) = x.dim();
        let x = x.as_standard_layout();
        let x = x.as_slice().expect("standard layout");
        let scale = 1.0 / self.trees.len() as f64;
        let mut acc = vec![0.0; n * out];
        acc.par_chunks_mut(CHUNK * out)
            .zip(x.par_chunks(CHUNK * d.max(1)))
            .for_each(|(acc, x)| {
                let rows = LaneRows::new(x, acc.len() / out, d);
                let mut leaves = vec![0u32; rows.len()];
                for (tree, flat) in self.trees.iter().zip(&self.flat) {
                    flat.leaves(&rows, &mut leaves);
                    if out == 1 {
                        for (a, &leaf) in acc.iter_mut().zip(&leaves) {
                            *a += tree.value(leaf as usize)[0];
                        }
                        continue;
                    }
                    for (a, &leaf) in acc.chunks_exact_mut(out).zip(&leaves) {
                        for (a, b) in a.iter_mut().zip(tree.value(leaf as usize)) {
                            *a += b;
                        }
                    }
                }
                acc.iter_mut().for_each(|v| *v *= scale);
            });
        Array2::from_shape_vec((n, out), acc).expect("n·outputs values")
    }
}

/// Copies of a row from which [`Forest::predict_replaced`] walks each tree once with
/// the copies parted at the perturbed feature's nodes, rather than walking the stacked
/// copies 8 rows in lockstep ([`FlatTree::leaves`]). Measured with `cargo xtask bench`
/// (one thread, peer dumps of seed 1, idle machine, old and new build alternated): the
/// parted walk is 1.6–1.8× faster for PD + ICE over 20 grid values (W2: 0.83–1.12 s →
/// 0.51–0.61 s), as fast for PFI over 10 permutations (W1: 0.47–0.53 s either way), and
/// 1.3× slower with 1 to 5 copies (W8), where the lockstep walk's overlapped loads win.
/// On molnar2023 Table 1's R forests (5 copies; `table1_unit`) the parted walk was
/// 1.3× slower too (2.36 → 3.1 s), and still 1.5× slower (1.81 → 2.6–2.9 s) with
/// each row's copies sorted once by value, so that a split at a node of the feature
/// is a prefix of the copies rather than a partition: although the 11 copies of a row
/// (its own and 5 + 5 replaced) pass through 24 distinct nodes per tree where the
/// lockstep walk steps 11 × 19 times, one row's walk is a chain of dependent loads
/// and unpredictable branches, about 40 cycles a node against the lockstep walk's 3.
pub const PARTED_WALK_MIN_COPIES: usize = 8;

impl Forest {
    /// [`Forest::leaf_means`] of the perturbed copies of `x` that differ from it in
    /// column `feature` only (row c·n + i: row i with x_{i,feature} = `values[[c, i]]`),
    /// without building them: each row walks each tree once
    /// ([`FlatTree::leaves_replaced`]). Trees are summed in the same order as in
    /// `leaf_means`, so the numbers are the same to the last bit.
    pub fn leaf_means_replaced(
        &self,
        x: ArrayView2<'_, f64>,
        feature: usize,
        values: ArrayView2<'_, f64>,
    ) -> Array2<f64> {
        let out = self.trees.first().map_or(1, Tree::outputs);
        let (copies, n) = values.dim();
        let d = x.ncols();
        let x = x.as_standard_layout();
        let x = x.as_slice().expect("standard layout");
        let scale = 1.0 / self.trees.len() as f64;
        let rows_per_chunk = (CHUNK / copies.max(1)).max(1);
        // Per chunk of rows, the means row-major by (row, copy, output).
        let chunks: Vec<Vec<f64>> = (0..n)
            .into_par_iter()
            .step_by(rows_per_chunk)
            .map(|first| {
                let rows = first..(first + rows_per_chunk).min(n);
                let mut acc = vec![0.0; rows.len() * copies * out];
                let mut own = vec![0.0; copies];
                let mut scratch = vec![0u32; copies];
                let mut stack = Vec::new();
                for (tree, flat) in self.trees.iter().zip(&self.flat) {
                    for (r, i) in rows.clone().enumerate() {
                        for (c, v) in own.iter_mut().enumerate() {
                            *v = values[[c, i]];
                        }
                        let acc = &mut acc[r * copies * out..(r + 1) * copies * out];
                        flat.leaves_replaced(
                            &x[i * d..(i + 1) * d],
                            feature,
                            &own,
                            &mut scratch,
                            &mut stack,
                            |leaf, reached| {
                                let value = tree.value(leaf as usize);
                                for &c in reached {
                                    let a = &mut acc[c as usize * out..(c as usize + 1) * out];
                                    for (a, b) in a.iter_mut().zip(value) {
                                        *a += b;
                                    }
                                }
                            },
                        );
                    }
                }
                acc.iter_mut().for_each(|v| *v *= scale);
                acc
            })
            .collect();
        let mut means = Array2::zeros((copies * n, out));
        for (k, chunk) in chunks.iter().enumerate() {
            for (r, per_row) in chunk.chunks_exact(copies * out).enumerate() {
                let i = k * rows_per_chunk + r;
                for (c, v) in per_row.chunks_exact(out).enumerate() {
                    means
                        .row_mut(c * n + i)
                        .iter_mut()
                        .zip(v)
                        .for_each(|(m, v)| *m = *v);
                }
            }
        }
        means
    }

    /// Point predictions (regression) or class probabilities from leaf means.
    fn predictions(&self, means: Array2<f64>) -> Predictions {
        match self.n_classes {
            Some(_) => Predictions::Probabilities(means),
            None => Predictions::Point(means.column(0).to_owned()),
        }
    }
}

impl TreeEnsembleView for Forest {
    fn trees(&self) -> &[Tree] {
        &self.trees
    }

    /// The forest predicts its mean leaf values: class frequencies or the mean.
    fn predictions_of_combined(&self, combined: Array2<f64>) -> Option<Predictions> {
        Some(self.predictions(combined))
    }
}

impl Model for Forest {
    fn tree_ensemble(&self) -> Option<&dyn TreeEnsembleView> {
        Some(self)
    }

    fn predict(&self, x: ArrayView2<'_, f64>) -> xai_core::error::Result<Predictions> {
        Ok(self.predictions(self.leaf_means(x)))
    }

    /// Each tree's leaf values (class frequencies, or the mean), a member per tree,
    /// walked as [`Forest::leaf_means`] walks them.
    fn predict_members(
        &self,
        x: ArrayView2<'_, f64>,
    ) -> xai_core::error::Result<Option<Vec<Predictions>>> {
        let (n, d) = x.dim();
        let x = x.as_standard_layout();
        let x = x.as_slice().expect("standard layout");
        let rows = LaneRows::new(x, n, d);
        let members = self
            .trees
            .par_iter()
            .zip(&self.flat)
            .map(|(tree, flat)| {
                let mut leaves = vec![0u32; n];
                flat.leaves(&rows, &mut leaves);
                let values = Array2::from_shape_fn((n, tree.outputs()), |(i, c)| {
                    tree.value(leaves[i] as usize)[c]
                });
                self.predictions(values)
            })
            .collect();
        Ok(Some(members))
    }

    /// From [`PARTED_WALK_MIN_COPIES`] copies on, one parted walk per row and tree
    /// ([`Forest::leaf_means_replaced`]); fewer copies are stacked and walked in
    /// lockstep (the trait's default), which is faster there.
    fn predict_replaced(
        &self,
        x: ArrayView2<'_, f64>,
        feature: usize,
        values: ArrayView2<'_, f64>,
    ) -> xai_core::error::Result<Predictions> {
        if values.nrows() < PARTED_WALK_MIN_COPIES {
            return xai_core::model::predict_stacked(self, x, feature, values);
        }
        Ok(self.predictions(self.leaf_means_replaced(x, feature, values)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{array, s};
    use rand::RngExt;
    use xai_core::tree::{impurity_decrease, impurity_importance};

    fn single_tree(depth: usize) -> ForestLearner {
        ForestLearner {
            params: ForestParams {
                n_trees: 1,
                mtry: Some(Mtry::Rule(MtryRule::All)),
                bootstrap: Some(false),
                max_depth: Some(depth),
                ..Default::default()
            },
            random_thresholds: false,
        }
    }

    #[test]
    fn one_tree_reproduces_a_hand_computed_regression_split() {
        // y = 1,2,3 | 10,11,12 splits on x1 at 3.5 (SSE 4); no split on x2 separates.
        // Root variance 379/6 − 6.5² = 20.9167, leaves 2/3 each:
        // decrease = 6·20.9167 − 3·(2/3) − 3·(2/3) = 121.5.
        let x = array![
            [1.0, 3.0],
            [2.0, 1.0],
            [3.0, 4.0],
            [4.0, 2.0],
            [5.0, 6.0],
            [6.0, 5.0]
        ];
        let y = [1.0, 2.0, 3.0, 10.0, 11.0, 12.0];
        let f = single_tree(1).fit_forest(x.view(), Response::Regression(&y), 0);
        let t = &f.trees()[0];
        let root = t.nodes()[0];
        assert_eq!((root.feature, root.threshold), (0, 3.5));
        assert_eq!(t.value(root.left as usize), &[2.0]);
        assert_eq!(t.value(root.right as usize), &[11.0]);
        let imp = impurity_decrease(f.trees(), f.n_features);
        assert!((imp[0] - 121.5).abs() < 1e-9 && imp[1] == 0.0, "{imp}");
        assert_eq!(
            impurity_importance(f.trees(), f.n_features).to_vec(),
            vec![1.0, 0.0]
        );
    }

    #[test]
    fn one_tree_reproduces_a_hand_computed_gini_split() {
        // Classes 0,0,1,1 along x1: the split at 2.5 leaves pure children.
        let x = array![[1.0, 0.3], [2.0, 0.9], [3.0, 0.1], [4.0, 0.5]];
        let c = [0, 0, 1, 1];
        let f = single_tree(5).fit_forest(x.view(), Response::Classes(&c, 2), 0);
        let t = &f.trees()[0];
        assert_eq!((t.nodes()[0].feature, t.nodes()[0].threshold), (0, 2.5));
        assert_eq!(t.nodes().len(), 3);
        // Root Gini 0.5 on 4 rows, children pure: decrease 2.
        assert!((impurity_decrease(f.trees(), f.n_features)[0] - 2.0).abs() < 1e-12);
        let p = f.leaf_means(array![[1.5, 0.0], [3.5, 0.0]].view());
        assert_eq!(p, array![[1.0, 0.0], [0.0, 1.0]]);
    }

    fn noisy_data(n: usize) -> (Array2<f64>, Vec<f64>) {
        let mut rng = stream_rng(8, 0);
        let x = Array2::from_shape_fn((n, 4), |_| rng.random::<f64>());
        let y = x
            .rows()
            .into_iter()
            .map(|r| 10.0 * r[0] + 5.0 * r[1] * r[2] + rng.random::<f64>())
            .collect();
        (x, y)
    }

    /// The copies `predict_replaced` stands for, built row by row.
    fn stacked(x: &Array2<f64>, feature: usize, values: &Array2<f64>) -> Array2<f64> {
        let n = x.nrows();
        let mut s = Array2::zeros((values.nrows() * n, x.ncols()));
        for c in 0..values.nrows() {
            for i in 0..n {
                s.row_mut(c * n + i).assign(&x.row(i));
                s[[c * n + i, feature]] = values[[c, i]];
            }
        }
        s
    }

    #[test]
    fn replaced_copies_predict_exactly_as_the_stacked_copies() {
        // Grid values (PD) and a permutation with ties (PFI), on a regression forest
        // deep enough for copies to part at many nodes, a classification forest, and
        // a single-leaf tree; every number equal to the last bit.
        let (x, y) = noisy_data(300);
        let deep = ForestLearner {
            params: ForestParams {
                n_trees: 9,
                ..Default::default()
            },
            random_thresholds: false,
        };
        let regression = deep.fit_forest(x.view(), Response::Regression(&y), 3);
        let classes: Vec<usize> = y.iter().map(|&v| usize::from(v > 6.0)).collect();
        let classification = deep.fit_forest(x.view(), Response::Classes(&classes, 2), 4);
        let stump = single_tree(0).fit_forest(x.view(), Response::Regression(&y), 5);
        let n = x.nrows();
        let grid = Array2::from_shape_fn((7, n), |(c, _)| -0.1 + 0.2 * c as f64);
        let mut rng = stream_rng(9, 0);
        let permuted = Array2::from_shape_fn((3, n), |_| x[[rng.random_range(0..n), 1]]);
        for forest in [&regression, &classification, &stump] {
            for feature in 0..x.ncols() {
                // Values exactly at split thresholds: x = threshold goes left.
                let at: Vec<f64> = forest.trees()[0]
                    .nodes()
                    .iter()
                    .filter(|t| !t.is_leaf() && t.feature as usize == feature)
                    .map(|t| t.threshold)
                    .chain([0.5])
                    .collect();
                let ties = Array2::from_shape_fn((at.len(), n), |(c, _)| at[c]);
                for values in [&grid, &permuted, &ties] {
                    let fast = forest.leaf_means_replaced(x.view(), feature, values.view());
                    let slow = forest.leaf_means(stacked(&x, feature, values).view());
                    assert_eq!(fast, slow, "feature {feature}");
                }
            }
        }
        let Predictions::Point(p) = regression
            .predict_replaced(x.view(), 2, grid.view())
            .unwrap()
        else {
            panic!("a regression forest predicts points")
        };
        assert_eq!(p.len(), 7 * n);
    }

    /// The members are the trees: their mean is the forest's prediction, each
    /// member a tree's own leaf values.
    #[test]
    fn the_members_average_to_the_prediction() {
        let (x, y) = noisy_data(150);
        let learner = ForestLearner {
            params: ForestParams {
                n_trees: 5,
                ..Default::default()
            },
            random_thresholds: false,
        };
        let classes: Vec<usize> = y.iter().map(|&v| usize::from(v > 6.0)).collect();
        for forest in [
            learner.fit_forest(x.view(), Response::Regression(&y), 1),
            learner.fit_forest(x.view(), Response::Classes(&classes, 2), 2),
        ] {
            let members = forest.predict_members(x.view()).unwrap().unwrap();
            assert_eq!(members.len(), 5);
            let as_matrix = |p: &Predictions| match p {
                Predictions::Point(m) => m.clone().insert_axis(ndarray::Axis(1)),
                Predictions::Probabilities(p) => p.clone(),
                Predictions::Gaussian { .. } => unreachable!("forests predict no Gaussians"),
            };
            let mean = members
                .iter()
                .map(as_matrix)
                .fold(None, |acc, m| match acc {
                    None => Some(m),
                    Some(a) => Some(a + m),
                });
            let gap = (mean.unwrap() / 5.0 - as_matrix(&forest.predict(x.view()).unwrap()))
                .mapv(f64::abs)
                .fold(0.0, |a: f64, &b| a.max(b));
            assert!(gap < 1e-14, "{gap}");
            let first = &forest.trees()[0];
            assert_eq!(
                as_matrix(&members[0])[[7, 0]],
                first.value(first.leaf(x.row(7)))[0]
            );
        }
    }

    #[test]
    fn impurity_decreases_sum_to_the_total_decrease() {
        let (x, y) = noisy_data(300);
        let learner = ForestLearner {
            params: ForestParams {
                n_trees: 7,
                max_depth: Some(6),
                ..Default::default()
            },
            random_thresholds: false,
        };
        let f = learner.fit_forest(x.view(), Response::Regression(&y), 3);
        let total: f64 = f
            .trees()
            .iter()
            .map(|t| {
                let n = t.nodes();
                n[0].weight * n[0].impurity
                    - n.iter()
                        .filter(|v| v.is_leaf())
                        .map(|v| v.weight * v.impurity)
                        .sum::<f64>()
            })
            .sum::<f64>()
            / 7.0;
        let sum = impurity_decrease(f.trees(), f.n_features).sum();
        assert!((sum - total).abs() < 1e-9 * total, "{sum} vs {total}");
        assert!((impurity_importance(f.trees(), f.n_features).sum() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn forests_are_identical_on_one_and_two_threads() {
        let (x, y) = noisy_data(400);
        for random_thresholds in [false, true] {
            let learner = ForestLearner {
                params: ForestParams {
                    n_trees: 12,
                    ..Default::default()
                },
                random_thresholds,
            };
            let fit = |threads| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap()
                    .install(|| learner.fit_forest(x.view(), Response::Regression(&y), 5))
            };
            assert_eq!(fit(1), fit(2));
        }
    }

    #[test]
    fn forest_learns_a_smooth_signal() {
        let (x, y) = noisy_data(1500);
        let f = ForestLearner {
            params: ForestParams::default(),
            random_thresholds: true,
        }
        .fit_forest(x.slice(s![..1000, ..]), Response::Regression(&y[..1000]), 1);
        let pred = f.leaf_means(x.slice(s![1000.., ..]));
        let mse: f64 = (0..500)
            .map(|i| (pred[[i, 0]] - y[1000 + i]).powi(2))
            .sum::<f64>()
            / 500.0;
        let var: f64 = {
            let m = y[1000..].iter().sum::<f64>() / 500.0;
            y[1000..].iter().map(|v| (v - m).powi(2)).sum::<f64>() / 500.0
        };
        assert!(mse < 0.15 * var, "test MSE {mse} vs variance {var}");
    }
}
