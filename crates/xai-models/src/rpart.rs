//! A regression tree as R's `rpart(y ~ ., data)` fits it (method "anova", the `tree`
//! learner of molnar2023 Table 1), grown by [`crate::cart`] with R's rules, read from
//! rpart 4.1.27 (CRAN):
//!
//! - **Defaults** (R/rpart.control.R): cp = 0.01, minsplit = 20, minbucket =
//!   round(minsplit/3) (7), maxdepth = 30; a minbucket given without minsplit makes
//!   minsplit = 3·minbucket; maxdepth must be in 1..=30.
//! - **Risk** (src/anova.c `anovass`): a node's risk is its sum of squares
//!   Σ(y − ȳ)²; the split maximises the decrease SS − SS_l − SS_r, every feature tried
//!   in order (src/bsplit.c), a later feature replacing the best only if strictly
//!   better (src/insert_split.c), and only a decrease > 0 counts. The decrease is
//!   computed with anova's own operations ([`TreeSettings::centered`]), so splits
//!   whose gains tie up to rounding are ordered as in R.
//! - **When a node is not split** (src/partition.c, "Can I quit now?"): fewer than
//!   minsplit rows (`num_obs < min_split`); min(risk, bound) ≤ α = cp·R(root)
//!   (`tempcp <= rp.alpha`, so in particular a node whose risk is ≤ cp·R(root)); its
//!   depth is maxdepth (`nodenum > 2^maxdepth − 1`, root depth 0); or no split exists.
//! - **minbucket** (src/anova.c): both children keep at least minbucket rows
//!   (`left_n >= edge`, `right_n > edge` before the step), and the split point lies
//!   between two distinct values (`x[i + 1] != x[i]`).
//! - **Threshold** (src/anova.c, src/nodesplit.c, src/pred_rpart.c): (a + b)/2 of the
//!   neighbouring values, and `x < (a + b)/2` decides the side, so a new x exactly at
//!   the midpoint goes with the upper rows ([`ThresholdRule::BelowMidpoint`]).
//! - **Pruning while growing** (src/partition.c): after its subtrees, a node's
//!   complexity is (R(t) − R(T_t))/(splits of T_t), after children that collapse
//!   earlier are collapsed; if it is ≤ α the subtree is snipped off (`free_tree`).
//!   So a split is kept only if its subtree lowers the overall relative error by more
//!   than cp per split ([`TreeSettings::cp`] has the exact rule). This is the fitted
//!   tree: R's `rpart()` returns it (src/rpart.c), cross-validation (`xval`) only fills
//!   the cp table.
//! - No missing values, so no surrogate splits; unit weights, duplicated rows (a
//!   bootstrap sample) count once each, as `rpart` on `dat[train_ids, ]` counts them.
//!
//! The fitted model is a one-tree [`Forest`], so it exposes its tree through
//! [`xai_core::TreeEnsembleView`] and predicts the leaf mean (`Predictions::Point`).

use ndarray::ArrayView2;
use rand::Rng;
use serde::Deserialize;
use xai_core::{CoreError, Dataset, Learner, Model, Target};

use crate::capabilities::Capabilities;
use crate::cart::{FeatureDraw, NodeSize, Response, ThresholdRule, TreeSettings};
use crate::forest::{Forest, ForestParams, grow_forest};
use crate::kind::LearnerKind;

/// rpart's settings (R's names; all optional in YAML, defaults R's, R/rpart.control.R).
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RpartParams {
    /// Complexity parameter cp ≥ 0: a split must lower the risk by more than
    /// cp·R(root) per split of its subtree (default 0.01).
    #[schemars(range(min = 0))]
    pub cp: f64,
    /// A node with fewer rows is not split (≥ 1; default 20, or 3·minbucket when only
    /// minbucket is given).
    #[schemars(range(min = 1))]
    pub minsplit: Option<usize>,
    /// Each leaf keeps at least this many rows (≥ 1; default round(minsplit/3); 0 from
    /// that rounding acts as 1, since a child has at least one row).
    #[schemars(range(min = 1))]
    pub minbucket: Option<usize>,
    /// Maximum depth of a leaf, root depth 0 (1..=30; default 30).
    #[schemars(range(min = 1, max = 30))]
    pub maxdepth: usize,
}

impl Default for RpartParams {
    fn default() -> Self {
        Self {
            cp: 0.01,
            minsplit: None,
            minbucket: None,
            maxdepth: 30,
        }
    }
}

impl RpartParams {
    /// (minsplit, minbucket) as R's `rpart.control` resolves them: both given → as
    /// given; minsplit only → (s, round(s/3)); minbucket only → (3b, b); neither →
    /// (20, 7). s/3 is never a half, so rounding needs no tie rule.
    pub fn sizes(&self) -> (usize, usize) {
        match (self.minsplit, self.minbucket) {
            (Some(s), Some(b)) => (s, b),
            (Some(s), None) => (s, (s + 1) / 3),
            (None, Some(b)) => (3 * b, b),
            (None, None) => (20, 7),
        }
    }

    /// The grower's settings: every feature in index order, sizes in rows, threshold
    /// below the midpoint, exact ties only, cp pruning.
    pub fn tree_settings(&self) -> TreeSettings {
        let (minsplit, minbucket) = self.sizes();
        TreeSettings {
            max_depth: self.maxdepth,
            min_samples_split: minsplit,
            min_samples_leaf: minbucket.max(1),
            mtry: usize::MAX,
            random_thresholds: false,
            draw: FeatureDraw::Exactly,
            size: NodeSize::Rows,
            threshold: ThresholdRule::BelowMidpoint,
            tie: 0.0,
            centered: true,
            cp: Some(self.cp),
        }
    }

    /// The same tree as a one-tree forest without bootstrap, for the memory estimates.
    fn as_forest(&self) -> ForestParams {
        let (minsplit, minbucket) = self.sizes();
        ForestParams {
            n_trees: 1,
            mtry: None,
            bootstrap: Some(false),
            max_depth: Some(self.maxdepth),
            min_samples_split: minsplit.max(2),
            min_samples_leaf: minbucket.max(1),
        }
    }
}

impl LearnerKind for RpartParams {
    /// Each setting within the range its field declares
    /// ([`xai_core::settings::check_value`]).
    fn validate(&self) -> Result<(), crate::ParamError> {
        Ok(xai_core::settings::check_value(self)?)
    }

    fn describe(&self) -> &'static str {
        "regression tree (rpart)"
    }

    /// A one-tree forest: [`Capabilities::MEAN_OF_TREES`].
    fn capabilities(&self) -> Capabilities {
        Capabilities::MEAN_OF_TREES
    }

    /// Peak bytes of a fit on n rows and d features: a one-tree forest's
    /// ([`ForestParams::fit_memory_bytes`] with l = minbucket, D = maxdepth, T = 1)
    /// plus 8n for the unit weights and 64·N(n) for the pruning bookkeeping (24-byte
    /// entries and up to two pending tasks of 24 bytes per node, counted with growth
    /// slack), N(n) = min(2⌈n/l⌉ − 1, 2^(D+1) − 1).
    fn fit_memory_bytes(&self, n: u128, d: u128) -> u128 {
        let forest = self.as_forest();
        crate::memory::bytes(&[
            &[forest.fit_memory_bytes(n, d)],
            &[8, n],
            &[64, forest.max_nodes(n)],
        ])
    }

    /// As a forest's (`crate::forest::predict_memory_bytes`).
    fn predict_memory_bytes(&self, _n: u128, m: u128, d: u128) -> u128 {
        crate::forest::predict_memory_bytes(m, d)
    }

    fn build(&self) -> Box<dyn Learner> {
        Box::new(RpartLearner(self.clone()))
    }
}

/// The rpart learner ([`RpartParams`]); regression only (method "anova").
#[derive(Debug, Clone, PartialEq)]
pub struct RpartLearner(pub RpartParams);

impl RpartLearner {
    /// Fits the tree on the rows of `x` and the response `y` (no random numbers are
    /// drawn: rpart's tree is deterministic).
    pub fn fit_tree(&self, x: ArrayView2<'_, f64>, y: &[f64]) -> Forest {
        grow_forest(
            x,
            Response::Regression(y),
            &self.0.tree_settings(),
            1,
            false,
            0,
        )
    }
}

impl Learner for RpartLearner {
    fn fit(&self, data: &Dataset, _rng: &mut dyn Rng) -> xai_core::error::Result<Box<dyn Model>> {
        self.0.validate()?;
        let Target::Continuous(y) = data.y() else {
            return Err(CoreError::Invalid(
                "rpart is fitted as a regression tree (method \"anova\"): it needs a \
                 continuous target"
                    .into(),
            ));
        };
        Ok(Box::new(self.fit_tree(data.x(), &y.to_vec())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array2;
    use xai_core::{TreeEnsembleView, TreeNode};

    fn fit(params: RpartParams, x: &Array2<f64>, y: &[f64]) -> Forest {
        RpartLearner(params).fit_tree(x.view(), y)
    }

    fn nodes(f: &Forest) -> &[TreeNode] {
        f.trees()[0].nodes()
    }

    /// 15 rows at x = 0 with mean −a and 15 at x = 1 with mean +a, each group with
    /// within-group sum of squares 14 (e = ±1 seven times each, and one 0): the only
    /// split is x = 0 | 1, its gain is 30a², the root risk 30a² + 28, and both children
    /// (15 < minsplit = 20 rows) are leaves. Returns data whose split lowers the
    /// relative error by exactly `r`.
    fn two_groups(r: f64) -> (Array2<f64>, Vec<f64>) {
        let a = (r * 28.0 / ((1.0 - r) * 30.0)).sqrt();
        let e = |i: usize| match i {
            14 => 0.0,
            i if i % 2 == 0 => 1.0,
            _ => -1.0,
        };
        let x = Array2::from_shape_fn((30, 1), |(i, _)| (i / 15) as f64);
        let y = (0..30)
            .map(|i| if i < 15 { -a + e(i) } else { a + e(i - 15) })
            .collect();
        (x, y)
    }

    #[test]
    fn a_split_is_made_only_if_it_lowers_the_relative_error_by_more_than_cp() {
        for (r, splits) in [(0.0099, false), (0.0101, true)] {
            let (x, y) = two_groups(r);
            // Hand check: root risk 30a² + 28 and gain 30a², so gain/root = r.
            let mean = y.iter().sum::<f64>() / 30.0;
            let root: f64 = y.iter().map(|v| (v - mean).powi(2)).sum();
            let gain = root - 28.0;
            assert!((gain / root - r).abs() < 1e-12, "{}", gain / root);
            let f = fit(RpartParams::default(), &x, &y);
            assert_eq!(nodes(&f).len(), if splits { 3 } else { 1 }, "r = {r}");
            if splits {
                // The threshold lies just below the midpoint 0.5 (x < 0.5 goes left).
                let t = nodes(&f)[0].threshold;
                assert!(t < 0.5 && t.next_up() == 0.5, "{t}");
            }
            // With cp just below r the split is made.
            let f = fit(
                RpartParams {
                    cp: r - 0.0002,
                    ..Default::default()
                },
                &x,
                &y,
            );
            assert_eq!(nodes(&f).len(), 3);
        }
    }

    /// Four cells of 20 rows: x1, x2 ∈ {0, 1}, cell means (x1 = 0) +b, −b and
    /// (x1 = 1) −b + δ, b + δ along x2, within-cell e = ±1 (sum of squares 20 each).
    /// x2 alone gains nothing at the root; x1 gains 20δ²; each child gains 40b² on x2.
    fn four_cells(b: f64, delta: f64) -> (Array2<f64>, Vec<f64>) {
        let x = Array2::from_shape_fn((80, 2), |(i, j)| ((i / 20) >> (1 - j) & 1) as f64);
        let y = (0..80)
            .map(|i| {
                let e = if i % 2 == 0 { 1.0 } else { -1.0 };
                let m = match i / 20 {
                    0 => b,
                    1 => -b,
                    2 => -b + delta,
                    _ => b + delta,
                };
                m + e
            })
            .collect();
        (x, y)
    }

    #[test]
    fn a_weak_split_stays_when_its_subtree_lowers_the_error_by_more_than_cp_per_split() {
        // b = 1, δ = 0.2: root risk 80 + 0.8 + 80 = 160.8, α = 1.608. The root split
        // alone gains 20δ² = 0.8 < α, but its subtree (3 splits) gains 80.8, i.e.
        // 26.9 per split > α, and each child's split gains 40 > α: rpart keeps all.
        let (x, y) = four_cells(1.0, 0.2);
        let f = fit(RpartParams::default(), &x, &y);
        let n = nodes(&f);
        assert_eq!(n.len(), 7);
        assert_eq!(n[0].feature, 0);
        assert!(
            n.iter()
                .filter(|v| !v.is_leaf())
                .skip(1)
                .all(|v| v.feature == 1)
        );
        // Depth 1 cannot reach the children's splits: the root split alone gains
        // 0.8 ≤ α and is snipped.
        let f = fit(
            RpartParams {
                maxdepth: 1,
                ..Default::default()
            },
            &x,
            &y,
        );
        assert_eq!(nodes(&f).len(), 1);
        // b = 0.1: the children gain 0.4 each < α = 0.01·(0.8 + 0.8 + 80) and are
        // snipped, then the root (gain 0.8 < α) too.
        let (x, y) = four_cells(0.1, 0.2);
        assert_eq!(nodes(&fit(RpartParams::default(), &x, &y)).len(), 1);
    }

    /// x = 1..n, y = 10 on the first `high` rows and 0 after.
    fn step(n: usize, high: usize) -> (Array2<f64>, Vec<f64>) {
        let x = Array2::from_shape_fn((n, 1), |(i, _)| (i + 1) as f64);
        let y = (0..n).map(|i| if i < high { 10.0 } else { 0.0 }).collect();
        (x, y)
    }

    #[test]
    fn a_node_with_fewer_than_minsplit_rows_is_not_split() {
        let (x, y) = step(19, 10);
        assert_eq!(nodes(&fit(RpartParams::default(), &x, &y)).len(), 1);
        let (x, y) = step(20, 10);
        let f = fit(RpartParams::default(), &x, &y);
        assert_eq!(nodes(&f).len(), 3);
        assert_eq!(nodes(&f)[0].threshold.next_up(), 10.5);
        // minsplit 19 lets the 19 rows split.
        let (x, y) = step(19, 10);
        let f = fit(
            RpartParams {
                minsplit: Some(19),
                ..Default::default()
            },
            &x,
            &y,
        );
        assert_eq!(nodes(&f).len(), 3);
    }

    #[test]
    fn minbucket_keeps_seven_rows_in_each_child() {
        // The best split is after row 3, but minbucket = round(20/3) = 7 allows only
        // 7..=13 rows on the left; the gain 30²/k − 30²/20 is largest at k = 7.
        let (x, y) = step(20, 3);
        let f = fit(RpartParams::default(), &x, &y);
        let n = nodes(&f);
        assert_eq!(n.len(), 3);
        assert_eq!(n[0].threshold.next_up(), 7.5);
        assert_eq!((n[1].weight, n[2].weight), (7.0, 13.0));
        let f = fit(
            RpartParams {
                minbucket: Some(1),
                minsplit: Some(20),
                ..Default::default()
            },
            &x,
            &y,
        );
        assert_eq!(nodes(&f)[0].threshold.next_up(), 3.5);
        // minbucket alone sets minsplit = 3·minbucket: 3 → 9, so 20 rows split at 3.
        let f = fit(
            RpartParams {
                minbucket: Some(3),
                ..Default::default()
            },
            &x,
            &y,
        );
        assert_eq!(nodes(&f)[0].threshold.next_up(), 3.5);
    }

    #[test]
    fn sizes_resolve_as_rpart_control() {
        let sizes = |minsplit, minbucket| {
            RpartParams {
                minsplit,
                minbucket,
                ..Default::default()
            }
            .sizes()
        };
        assert_eq!(sizes(None, None), (20, 7));
        assert_eq!(sizes(Some(10), None), (10, 3));
        assert_eq!(sizes(Some(11), None), (11, 4));
        assert_eq!(sizes(Some(1), None), (1, 0));
        assert_eq!(sizes(None, Some(5)), (15, 5));
        assert_eq!(sizes(Some(8), Some(5)), (8, 5));
    }

    #[test]
    fn a_class_target_is_refused() {
        let data = Dataset::new(
            Array2::zeros((4, 1)),
            Target::Classes {
                labels: ndarray::array![0, 1, 0, 1],
                n_classes: 2,
            },
            vec!["x".into()],
        )
        .unwrap();
        let mut rng = xai_core::rng::stream_rng(0, 0);
        assert!(
            RpartLearner(RpartParams::default())
                .fit(&data, &mut rng)
                .is_err()
        );
    }
}
