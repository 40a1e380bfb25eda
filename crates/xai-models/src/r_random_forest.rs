//! A regression forest as R's `randomForest(y ~ ., data, ntree = 100)` fits it (the
//! `rf` learner of molnar2023 Table 1), grown by [`crate::forest::grow_forest`] with
//! R's rules, read from randomForest 4.7-1.2 (CRAN):
//!
//! - **Defaults** (R/randomForest.default.R): mtry = max(⌊p/3⌋, 1) for regression,
//!   clamped to 1..=p (`max(1, min(p, round(mtry)))`); nodesize = 5; each tree's
//!   sample is n rows drawn with replacement (`replace = TRUE`, `sampsize = nrow(x)`);
//!   R's own default ntree is 500, molnar2023 used 100 (`rf100`), our default. The
//!   node cap `nrnodes = 2·sampsize + 1` never binds (a tree on n rows has at most
//!   2n − 1 nodes), so trees grow until the nodesize rule stops them; no pruning.
//! - **Bootstrap multiplicities** (src/regrf.c): the sampled rows are copied into
//!   `xb`, `yb`, so a row drawn k times is k cases: it weighs k in node means and in
//!   the node sizes, and as its copies share x no split can separate them. Here the
//!   multiplicities are row weights and node sizes count them ([`NodeSize::Weight`]).
//! - **When a node is terminal** (src/regTree.c `regTree`): a child with
//!   `numPointsInEachNode <= nthsize` (≤ nodesize cases) is `NODE_TERMINAL`; a node
//!   with more cases is split if a split is found, and a child may then have a single
//!   case (no minimum leaf size). So: split only nodes with **more than** nodesize
//!   cases (min_samples_split = nodesize + 1, min_samples_leaf = 1, in cases). The
//!   root is always tried, which differs from this rule only if n ≤ nodesize.
//! - **mtry** (src/regTree.c `findBestSplit`): exactly mtry features are drawn
//!   without replacement per node; one constant in the node counts as drawn
//!   (`continue`), and if none of the mtry gives a split with `crit > 0` the node is
//!   terminal: R does **not** try further features, unlike scikit-learn
//!   ([`FeatureDraw::Exactly`]).
//! - **Split point** (src/regTree.c): between neighbouring distinct sorted values
//!   (`v[j] < v[j+1]`), at their midpoint `(v[j] + v[j+1]) / 2.0`; `x <= split` goes
//!   left in fitting and in `predictRegTree` ([`ThresholdRule::Midpoint`]). The score
//!   is Σ_l²/n_l + Σ_r²/n_r − Σ²/n (the decrease in the sum of squares).
//! - **Ties** (src/regTree.c): R breaks ties between split points of a feature and
//!   between features at random (`unif_rand() < 1.0 / tieVal`); here the first
//!   (lowest value, first drawn feature) wins. With continuous features exact ties
//!   need symmetric responses; with mtry = 1 there are no ties between features.
//! - **Prediction** (R/predict.randomForest.R, src/regTree.c): the mean over trees of
//!   the leaf means (`Predictions::Point`).
//!
//! Not reproduced: R's random number stream (each tree draws from our counter-based
//! stream, so the forest matches R in distribution, not tree by tree); and R's splits
//! of pure nodes, which leave predictions unchanged (a node whose responses are all
//! equal has crit = 0 everywhere, and R's tie rule may still pick a split with
//! `crit == 0`; here such a node is a leaf).

use ndarray::ArrayView2;
use rand::Rng;
use serde::Deserialize;
use xai_core::{CoreError, Dataset, Learner, Model, Target};

use crate::capabilities::Capabilities;
use crate::cart::{FeatureDraw, NodeSize, Response, ThresholdRule, TreeSettings};
use crate::forest::{Forest, ForestParams, Mtry, MtryRule, grow_forest};
use crate::kind::LearnerKind;

/// R randomForest's regression settings (R's names; all optional in YAML).
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RForestParams {
    /// Number of trees (≥ 1; default 100, molnar2023's `ntree = 100`; R's default is
    /// 500).
    #[schemars(range(min = 1))]
    pub ntree: usize,
    /// Features drawn per node: a count (≥ 1, capped at p) or a rule (default
    /// `third`: max(⌊p/3⌋, 1), R's regression default).
    pub mtry: Mtry,
    /// A node with at most this many cases (bootstrap copies counted) is terminal
    /// (≥ 1; default 5, R's regression default).
    #[schemars(range(min = 1))]
    pub nodesize: usize,
}

impl Default for RForestParams {
    fn default() -> Self {
        Self {
            ntree: 100,
            mtry: Mtry::Rule(MtryRule::Third),
            nodesize: 5,
        }
    }
}

impl RForestParams {
    /// The grower's settings for p features: exactly mtry draws, sizes in cases
    /// (bootstrap copies), a node with more than nodesize cases is split, leaves of
    /// any size, midpoint thresholds, exact ties only, no depth limit and no pruning.
    pub fn tree_settings(&self, p: usize) -> TreeSettings {
        TreeSettings {
            max_depth: usize::MAX,
            min_samples_split: self.nodesize + 1,
            min_samples_leaf: 1,
            mtry: self.mtry.resolve(p),
            random_thresholds: false,
            draw: FeatureDraw::Exactly,
            size: NodeSize::Weight,
            threshold: ThresholdRule::Midpoint,
            tie: 0.0,
            centered: false,
            cp: None,
        }
    }

    /// The same forest in [`ForestParams`] terms, for the memory estimates (leaves of
    /// one distinct row at worst).
    pub(crate) fn as_forest(&self) -> ForestParams {
        ForestParams {
            n_trees: self.ntree,
            mtry: Some(self.mtry),
            bootstrap: Some(true),
            max_depth: None,
            min_samples_split: self.nodesize + 1,
            min_samples_leaf: 1,
        }
    }
}

impl LearnerKind for RForestParams {
    /// Each setting within the range its field declares
    /// ([`xai_core::settings::check_value`]).
    fn validate(&self) -> Result<(), crate::ParamError> {
        Ok(xai_core::settings::check_value(self)?)
    }

    fn describe(&self) -> &'static str {
        "random forest (R)"
    }

    /// [`Capabilities::MEAN_OF_TREES`].
    fn capabilities(&self) -> Capabilities {
        Capabilities::MEAN_OF_TREES
    }

    /// As `ForestParams`' (`Self::as_forest`: l = 1, D unlimited, T = ntree).
    fn fit_memory_bytes(&self, n: u128, d: u128) -> u128 {
        self.as_forest().fit_memory_bytes(n, d)
    }

    /// As a forest's (`crate::forest::predict_memory_bytes`).
    fn predict_memory_bytes(&self, _n: u128, m: u128, d: u128) -> u128 {
        crate::forest::predict_memory_bytes(m, d)
    }

    fn build(&self) -> Box<dyn Learner> {
        Box::new(RForestLearner(self.clone()))
    }
}

/// The R randomForest regression learner ([`RForestParams`]).
#[derive(Debug, Clone, PartialEq)]
pub struct RForestLearner(pub RForestParams);

impl RForestLearner {
    /// Fits the forest on the rows of `x` and the response `y`; tree t draws its
    /// bootstrap sample and its features from `stream_rng(seed, t)`.
    pub fn fit_forest(&self, x: ArrayView2<'_, f64>, y: &[f64], seed: u64) -> Forest {
        let p = &self.0;
        grow_forest(
            x,
            Response::Regression(y),
            &p.tree_settings(x.ncols()),
            p.ntree,
            true,
            seed,
        )
    }
}

impl Learner for RForestLearner {
    fn fit(&self, data: &Dataset, rng: &mut dyn Rng) -> xai_core::error::Result<Box<dyn Model>> {
        self.0.validate()?;
        let Target::Continuous(y) = data.y() else {
            return Err(CoreError::Invalid(
                "r_random_forest is R's regression forest: it needs a continuous target \
                 (random_forest fits classifiers)"
                    .into(),
            ));
        };
        let seed = rng.next_u64();
        Ok(Box::new(self.fit_forest(data.x(), &y.to_vec(), seed)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array2;
    use rand::RngExt;
    use xai_core::rng::stream_rng;
    use xai_core::{Predictions, TreeEnsembleView};

    fn uniform(n: usize, p: usize, seed: u64) -> (Array2<f64>, Vec<f64>) {
        let mut rng = stream_rng(seed, 0);
        let x = Array2::from_shape_fn((n, p), |_| rng.random::<f64>());
        let y = x
            .rows()
            .into_iter()
            .map(|r| 4.0 * r[0] + rng.random::<f64>())
            .collect();
        (x, y)
    }

    #[test]
    fn mtry_is_a_third_of_the_features_and_at_least_one() {
        let mtry = |p| RForestParams::default().tree_settings(p).mtry;
        assert_eq!(
            [1, 2, 3, 4, 5, 6, 8, 9, 10].map(mtry),
            [1, 1, 1, 1, 1, 2, 2, 3, 3]
        );
        let count = RForestParams {
            mtry: Mtry::Count(7),
            ..Default::default()
        };
        assert_eq!(count.tree_settings(4).mtry, 4);
    }

    #[test]
    fn a_node_draws_exactly_mtry_features_and_does_not_retry() {
        // x2 is constant: with mtry = 1 of p = 2 a node draws x2 half the time, finds
        // no split and stays a leaf, as in R; so about half the roots are leaves.
        let (mut x, y) = uniform(200, 2, 1);
        x.column_mut(1).fill(0.5);
        let learner = RForestLearner(RForestParams {
            ntree: 400,
            ..Default::default()
        });
        let f = learner.fit_forest(x.view(), &y, 2);
        let stumps = f.trees().iter().filter(|t| t.nodes().len() == 1).count();
        // Binomial(400, 1/2): sd 10.
        assert!(
            (160..=240).contains(&stumps),
            "{stumps} of 400 roots are leaves"
        );
        // Every split is on x1 (x2 never splits), and scikit-learn's rule, which goes
        // on to x1 when x2 is constant, never leaves a root unsplit.
        assert!(
            f.trees()
                .iter()
                .flat_map(|t| t.nodes())
                .all(|n| n.is_leaf() || n.feature == 0)
        );
        let sk = TreeSettings {
            draw: FeatureDraw::UntilNonConstant,
            ..learner.0.tree_settings(2)
        };
        let f = grow_forest(x.view(), Response::Regression(&y), &sk, 50, true, 2);
        assert!(f.trees().iter().all(|t| t.nodes().len() > 1));
        // With mtry = 2 both features are tried at every node.
        let f = RForestLearner(RForestParams {
            ntree: 50,
            mtry: Mtry::Count(2),
            ..Default::default()
        })
        .fit_forest(x.view(), &y, 2);
        assert!(f.trees().iter().all(|t| t.nodes().len() > 1));
    }

    #[test]
    fn a_node_with_at_most_nodesize_cases_is_terminal() {
        // Cases count bootstrap copies (node weight). R: a node with ≤ nodesize = 5
        // cases is terminal, one with more is split, and a child may hold one case.
        let (x, y) = uniform(300, 3, 4);
        let f = RForestLearner(RForestParams {
            ntree: 50,
            ..Default::default()
        })
        .fit_forest(x.view(), &y, 9);
        let nodes: Vec<_> = f.trees().iter().flat_map(|t| t.nodes()).collect();
        let internal_min = nodes
            .iter()
            .filter(|n| !n.is_leaf())
            .map(|n| n.weight)
            .fold(f64::INFINITY, f64::min);
        assert_eq!(internal_min, 6.0, "smallest split node");
        let leaves: Vec<f64> = nodes
            .iter()
            .filter(|n| n.is_leaf())
            .map(|n| n.weight)
            .collect();
        assert!(leaves.contains(&1.0) && leaves.contains(&5.0));
        // A leaf with more than 5 cases must be one row copied (constant x): with
        // continuous x and mtry = 1 any other node has a split with gain > 0.
        for t in f.trees() {
            for (i, n) in t.nodes().iter().enumerate() {
                if n.is_leaf() && n.weight > 5.0 {
                    assert!(n.impurity < 1e-12, "leaf {i} of {} cases", n.weight);
                }
            }
        }
        // nodesize = 10: no split node has 10 or fewer cases.
        let f = RForestLearner(RForestParams {
            ntree: 20,
            nodesize: 10,
            ..Default::default()
        })
        .fit_forest(x.view(), &y, 9);
        assert!(
            f.trees()
                .iter()
                .flat_map(|t| t.nodes())
                .all(|n| n.is_leaf() || n.weight >= 11.0)
        );
    }

    #[test]
    fn prediction_is_the_mean_of_the_trees() {
        let (x, y) = uniform(100, 4, 6);
        let f = RForestLearner(RForestParams {
            ntree: 7,
            ..Default::default()
        })
        .fit_forest(x.view(), &y, 1);
        let Predictions::Point(p) = f.predict(x.view()).unwrap() else {
            panic!("point predictions");
        };
        for (i, row) in x.rows().into_iter().enumerate() {
            let mean = f
                .trees()
                .iter()
                .map(|t| t.value(t.leaf(row))[0])
                .sum::<f64>()
                / 7.0;
            assert!((p[i] - mean).abs() < 1e-12);
        }
    }

    #[test]
    fn invalid_settings_name_the_parameter() {
        let bad = |p: RForestParams| p.validate().unwrap_err().param().to_string();
        let d = RForestParams::default;
        assert_eq!(bad(RForestParams { ntree: 0, ..d() }), "ntree");
        assert_eq!(bad(RForestParams { nodesize: 0, ..d() }), "nodesize");
        assert_eq!(
            bad(RForestParams {
                mtry: Mtry::Count(0),
                ..d()
            }),
            "mtry"
        );
        d().validate().unwrap();
    }
}
