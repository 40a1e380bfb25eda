//! A classification forest fitted elsewhere, read from a table of its nodes: how a
//! user brings a model of their own, and how icefi2022's tables are computed on the
//! paper's own scikit-learn forest (`../shared/data/cervical/paper_forest/`).
//!
//! The table (CSV, header named) has a row per node: `tree`, `node` (0 is the root,
//! rows of a tree contiguous and in node order), `left`, `right` (−1 at a leaf),
//! `feature` (the column index, −1 at a leaf), `threshold` (empty at a leaf),
//! `p_class1` (the node's class-1 fraction), `weighted_n_node_samples` (its cover,
//! bootstrap multiplicities counted) and `impurity` (its Gini index): scikit-learn's
//! `tree_` arrays. The forest predicts P(class 1) = the mean over trees of the leaf's
//! `p_class1`, as `predict_proba` does, and exposes the nodes' covers and impurities
//! to TreeSHAP and impurity importance ([`xai_core::TreeEnsembleView`]).
//!
//! scikit-learn casts its input to float32 before comparing it with a threshold t
//! (a float64): a row goes left iff f32(x) ≤ t. With `float32: true` each threshold
//! is replaced by the float64 t′ with x ≤ t′ ⟺ f32(x) ≤ t for every float64 x
//! ([`float32_threshold`]), so every walk of the trees (prediction, ICE, PFI,
//! TreeSHAP) follows scikit-learn's branches on float64 data.

use std::path::{Path, PathBuf};

use rand::Rng;
use serde::Deserialize;
use xai_core::tree::{LEAF, Tree, TreeNode};
use xai_core::{CoreError, Dataset, Learner, Model, Target, TreeEnsembleView};

use crate::capabilities::Capabilities;
use crate::forest::{Forest, ForestParams};
use crate::kind::LearnerKind;

/// `fitted_forest: {file, float32}`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FittedForestParams {
    /// The node table; a relative path is looked up in the data directories (as a
    /// dataset's file is) before the run starts.
    pub file: PathBuf,
    /// Compare float32-rounded inputs with the thresholds, as scikit-learn does
    /// (default true).
    #[serde(default = "yes")]
    pub float32: bool,
}

fn yes() -> bool {
    true
}

impl LearnerKind for FittedForestParams {
    fn describe(&self) -> &'static str {
        "random forest (fitted elsewhere)"
    }

    /// [`Capabilities::MEAN_OF_TREES`].
    fn capabilities(&self) -> Capabilities {
        Capabilities::MEAN_OF_TREES
    }

    /// A default forest's size, the best guess before the file is read (scikit-learn's
    /// trees are grown as deep).
    fn fit_memory_bytes(&self, n: u128, d: u128) -> u128 {
        ForestParams::default().fit_memory_bytes(n, d)
    }

    /// As a forest's (`crate::forest::predict_memory_bytes`).
    fn predict_memory_bytes(&self, _n: u128, m: u128, d: u128) -> u128 {
        crate::forest::predict_memory_bytes(m, d)
    }

    fn build(&self) -> Box<dyn Learner> {
        Box::new(FittedForestLearner(self.clone()))
    }
}

/// The learner of a [`FittedForestParams`]: "fitting" reads the forest from its file
/// and checks it against the data (a binary target, every split feature a column).
#[derive(Debug, Clone)]
pub struct FittedForestLearner(pub FittedForestParams);

impl Learner for FittedForestLearner {
    fn fit(&self, data: &Dataset, _rng: &mut dyn Rng) -> xai_core::error::Result<Box<dyn Model>> {
        if !matches!(data.y(), Target::Classes { n_classes: 2, .. }) {
            return Err(CoreError::Invalid(format!(
                "the fitted forest of {} predicts P(class 1) of a binary target; this data's \
                 target is not binary",
                self.0.file.display()
            )));
        }
        let forest = read_forest(&self.0.file, self.0.float32)?;
        let d = data.n_features();
        if let Some(j) = forest
            .trees()
            .iter()
            .flat_map(|t| t.nodes())
            .filter(|n| !n.is_leaf())
            .map(|n| n.feature as usize)
            .find(|&j| j >= d)
        {
            return Err(CoreError::Invalid(format!(
                "the fitted forest of {} splits on column {j}, but the data has {d} features: \
                 the forest was fitted on other columns",
                self.0.file.display()
            )));
        }
        let trees = forest.trees().to_vec();
        Ok(Box::new(Forest::from_trees(trees, d, Some(2))))
    }
}

/// The float64 threshold t′ with x ≤ t′ ⟺ f32(x) ≤ t for every float64 x (f32(x) the
/// round-to-nearest-even float32 of x). Rounding is monotone, so with T the largest
/// float32 ≤ t, f32(x) ≤ t ⟺ f32(x) ≤ T ⟺ x rounds to T or below. The float64 values
/// that do are those below the midpoint m = (T + T⁺)/2 (T⁺ the next float32, m exact
/// in float64: it needs one bit more than a float32's 24), and m itself when the tie
/// goes to T, i.e. when T's last significand bit is 0 (ties to even). So t′ = m if T
/// is even, else the float64 just below m. A t at or beyond the largest finite
/// float32 in magnitude keeps its value, which is not exact there (scikit-learn's
/// thresholds are midpoints of data values, never that large).
pub fn float32_threshold(t: f64) -> f64 {
    let mut big = t as f32;
    if f64::from(big) > t {
        big = big.next_down();
    }
    if !big.is_finite() || !big.next_up().is_finite() {
        return t;
    }
    let mid = (f64::from(big) + f64::from(big.next_up())) / 2.0;
    match big.to_bits() & 1 {
        0 => mid,
        _ => mid.next_down(),
    }
}

/// Reads a node table (module doc) into a [`Forest`] over its largest split column + 1
/// features; with `float32`, thresholds by [`float32_threshold`].
pub fn read_forest(path: &Path, float32: bool) -> xai_core::error::Result<Forest> {
    let bad = |what: String| CoreError::Invalid(format!("{}: {what}", path.display()));
    let mut reader = csv::Reader::from_path(path).map_err(|e| {
        bad(format!(
            "cannot read the fitted forest ({e}); a relative `file` is looked up in \
             $XAI_DATA_DIR and data/cache"
        ))
    })?;
    let header = reader.headers().map_err(|e| bad(e.to_string()))?.clone();
    const COLUMNS: [&str; 9] = [
        "tree",
        "node",
        "left",
        "right",
        "feature",
        "threshold",
        "p_class1",
        "weighted_n_node_samples",
        "impurity",
    ];
    let at: Vec<usize> = COLUMNS
        .iter()
        .map(|c| {
            header
                .iter()
                .position(|h| h == *c)
                .ok_or_else(|| bad(format!("no column `{c}` (needs {})", COLUMNS.join(", "))))
        })
        .collect::<xai_core::error::Result<_>>()?;
    let mut trees: Vec<Tree> = Vec::new();
    let (mut nodes, mut values) = (Vec::new(), Vec::new());
    let mut n_features = 0;
    for (line, record) in reader.records().enumerate() {
        let record = record.map_err(|e| bad(e.to_string()))?;
        let row = line + 2;
        let num = |k: usize| -> xai_core::error::Result<f64> {
            let text = record.get(at[k]).unwrap_or("");
            text.trim().parse::<f64>().map_err(|_| {
                bad(format!(
                    "line {row}: `{}` = `{text}` is not a number",
                    COLUMNS[k]
                ))
            })
        };
        let (tree, node) = (num(0)? as usize, num(1)? as usize);
        if tree == trees.len() + 1 && node == 0 {
            if nodes.is_empty() {
                return Err(bad(format!(
                    "line {row}: tree {tree} starts before tree {} has a node",
                    trees.len()
                )));
            }
            trees.push(finish(&mut nodes, &mut values));
        }
        if tree != trees.len() || node != nodes.len() {
            return Err(bad(format!(
                "line {row}: node {node} of tree {tree} out of order (expected node {} of \
                 tree {}, trees and nodes numbered from 0 in order)",
                nodes.len(),
                trees.len()
            )));
        }
        let leaf = num(2)? < 0.0;
        let feature = if leaf { 0 } else { num(4)? as u32 };
        n_features = n_features.max(feature as usize + 1);
        let threshold = match leaf {
            true => 0.0,
            false if float32 => float32_threshold(num(5)?),
            false => num(5)?,
        };
        nodes.push(TreeNode {
            feature,
            left: if leaf { LEAF } else { num(2)? as u32 },
            right: if leaf { LEAF } else { num(3)? as u32 },
            threshold,
            weight: num(7)?,
            impurity: num(8)?,
            missing_left: false,
        });
        let p = num(6)?;
        values.extend([1.0 - p, p]);
    }
    if !nodes.is_empty() {
        trees.push(finish(&mut nodes, &mut values));
    }
    if trees.is_empty() {
        return Err(bad("no nodes".into()));
    }
    for (k, t) in trees.iter().enumerate() {
        let n = t.nodes().len() as u32;
        // A child numbered after its parent, as scikit-learn numbers them: no node
        // is its own ancestor, so every walk down a tree ends.
        if let Some(i) = t.nodes().iter().enumerate().position(|(i, nd)| {
            let outside = |c: u32| c >= n || c as usize <= i;
            !nd.is_leaf() && (outside(nd.left) || outside(nd.right))
        }) {
            return Err(bad(format!(
                "tree {k}, node {i}: a child outside the tree or not after its parent"
            )));
        }
    }
    Ok(Forest::from_trees(trees, n_features, Some(2)))
}

/// The tree of the nodes and values read so far (two outputs per node: P(class 0),
/// P(class 1)), leaving both empty.
fn finish(nodes: &mut Vec<TreeNode>, values: &mut Vec<f64>) -> Tree {
    Tree::new(std::mem::take(nodes), std::mem::take(values), 2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;
    use xai_core::rng::stream_rng;

    #[test]
    fn the_float32_threshold_sends_every_value_where_scikit_learn_does() {
        let mut rng = stream_rng(3, 0);
        for _ in 0..2000 {
            // Thresholds as scikit-learn makes them: midpoints of two float32 values.
            let a = (rng.random::<f64>() * 200.0 - 100.0) as f32;
            let b = a.next_up().next_up();
            let t = (f64::from(a) + f64::from(b)) / 2.0;
            let t2 = float32_threshold(t);
            let mid_up = (f64::from(a.next_up()) + f64::from(b)) / 2.0;
            let mid_down = (f64::from(a) + f64::from(a.next_up())) / 2.0;
            for x in [
                t,
                t2,
                t2.next_up(),
                t2.next_down(),
                mid_up,
                mid_up.next_up(),
                mid_up.next_down(),
                mid_down,
                f64::from(a),
                f64::from(b),
            ] {
                assert_eq!(x <= t2, f64::from(x as f32) <= t, "t = {t}, x = {x}");
            }
        }
        // A float32-exact threshold (34.5, half an ulp 1.9e-6 there) also takes the
        // values that round to it: 34.500001 goes left, 34.50001 right.
        let t2 = float32_threshold(34.5);
        assert!((34.500_001..34.500_01).contains(&t2));
        assert_eq!(float32_threshold(f64::MAX), f64::MAX);
    }

    #[test]
    fn a_node_table_is_read_and_predicts_the_mean_leaf_fraction() {
        let dir = std::env::temp_dir().join(format!("xai-fitted-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("forest.csv");
        std::fs::write(
            &file,
            "tree,node,left,right,feature,threshold,p_class1,n_node_samples,weighted_n_node_samples,impurity\n\
             0,0,1,2,1,0.5,0.5,4,4.0,0.5\n\
             0,1,-1,-1,-1,,0.0,2,2.0,0.0\n\
             0,2,-1,-1,-1,,1.0,2,2.0,0.0\n\
             1,0,-1,-1,-1,,0.25,4,4.0,0.375\n",
        )
        .unwrap();
        let forest = read_forest(&file, true).unwrap();
        assert_eq!(forest.trees().len(), 2);
        let x = ndarray::array![[9.0, 0.2], [9.0, 0.7]];
        let p = forest.leaf_means(x.view());
        assert_eq!(p.column(1).to_vec(), vec![0.125, 0.625]);
        // A node out of order is refused with its line.
        std::fs::write(
            &file,
            "tree,node,left,right,feature,threshold,p_class1,weighted_n_node_samples,impurity\n\
             0,1,-1,-1,-1,,0.0,2.0,0.0\n",
        )
        .unwrap();
        let err = read_forest(&file, true).unwrap_err().to_string();
        assert!(
            err.contains("line 2") && err.contains("out of order"),
            "{err}"
        );
        // A table starting at tree 1 would leave tree 0 empty; a child that points back
        // up its tree would make a walk that never ends: both refused.
        let header =
            "tree,node,left,right,feature,threshold,p_class1,weighted_n_node_samples,impurity\n";
        for (table, want) in [
            (
                "1,0,-1,-1,-1,,0.5,4.0,0.5\n",
                "tree 1 starts before tree 0 has a node",
            ),
            (
                "0,0,0,1,1,0.5,0.5,4.0,0.5\n0,1,-1,-1,-1,,0.0,2.0,0.0\n",
                "not after its parent",
            ),
        ] {
            std::fs::write(&file, format!("{header}{table}")).unwrap();
            let err = read_forest(&file, true).unwrap_err().to_string();
            assert!(err.contains(want), "{err}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
