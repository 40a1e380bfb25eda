//! Path-dependent TreeSHAP (Lundberg, Erion & Lee 2018, Algorithm 2; XGBoost's
//! `pred_contribs`, the attribution of watson2023 §5–6): the exact Shapley values of
//! the game v(S) = E_tree[f(x) | x_S], where the expectation over the features outside
//! S follows both children of a split on them, weighted by the children's covers
//! (training weight or hessian sums), and a split on a feature in S follows x (its
//! default direction when x is missing). [`PathDependentGame`] evaluates that game
//! directly, coalition by coalition, for brute-force checks.
//!
//! For an ensemble the game and its values combine as the trees do
//! ([`crate::tree::Combination`]): the mean of per-tree values for a forest, the base margin plus
//! their sum for boosting (the raw margin: log-odds for a logistic booster).

use ndarray::{Array1, ArrayView1, ArrayView2};
use rayon::prelude::*;

use super::{Attribution, Game};
use crate::error::{CoreError, Result};
use crate::tree::{Tree, TreeEnsembleView};

/// One element of the unique path of Algorithm 2: the split feature (usize::MAX for
/// the root's placeholder), the share of training rows that pass (zero fraction), whether x
/// passes (one fraction) and the path weight.
#[derive(Debug, Clone, Copy, Default)]
struct PathElement {
    feature: usize,
    zero: f64,
    one: f64,
    weight: f64,
}

/// EXTEND: adds a split with fractions (zero, one) to a path of `depth` elements.
fn extend(path: &mut [PathElement], depth: usize, zero: f64, one: f64, feature: usize) {
    path[depth] = PathElement {
        feature,
        zero,
        one,
        weight: if depth == 0 { 1.0 } else { 0.0 },
    };
    let d1 = (depth + 1) as f64;
    for i in (0..depth).rev() {
        path[i + 1].weight += one * path[i].weight * (i + 1) as f64 / d1;
        path[i].weight = zero * path[i].weight * (depth - i) as f64 / d1;
    }
}

/// UNWIND: removes element `index` from a path of `depth + 1` elements.
fn unwind(path: &mut [PathElement], depth: usize, index: usize) {
    let PathElement { zero, one, .. } = path[index];
    let d1 = (depth + 1) as f64;
    let mut next = path[depth].weight;
    for i in (0..depth).rev() {
        if one != 0.0 {
            let tmp = path[i].weight;
            path[i].weight = next * d1 / ((i + 1) as f64 * one);
            next = tmp - path[i].weight * zero * (depth - i) as f64 / d1;
        } else {
            path[i].weight = path[i].weight * d1 / (zero * (depth - i) as f64);
        }
    }
    for i in index..depth {
        let PathElement {
            feature, zero, one, ..
        } = path[i + 1];
        path[i].feature = feature;
        path[i].zero = zero;
        path[i].one = one;
    }
}

/// The total weight the path would have with element `index` unwound.
fn unwound_sum(path: &[PathElement], depth: usize, index: usize) -> f64 {
    let PathElement { zero, one, .. } = path[index];
    let mut next = path[depth].weight;
    let mut total = 0.0;
    if one != 0.0 {
        for i in (0..depth).rev() {
            let tmp = next / ((i + 1) as f64 * one);
            total += tmp;
            next = path[i].weight - tmp * zero * (depth - i) as f64;
        }
    } else {
        for i in (0..depth).rev() {
            total += path[i].weight / (zero * (depth - i) as f64);
        }
    }
    total * (depth + 1) as f64
}

/// One tree's walk for one row, adding its Shapley values of output `output` to `phi`.
struct Walk<'a> {
    tree: &'a Tree,
    x: ArrayView1<'a, f64>,
    output: usize,
}

impl Walk<'_> {
    /// RECURSE of Algorithm 2: the path of the parent is `buf[parent..parent + depth + 1]`
    /// (its last element not yet extended); this node's path is built right after it.
    #[allow(clippy::too_many_arguments)]
    fn recurse(
        &self,
        node: usize,
        buf: &mut [PathElement],
        parent: usize,
        mut depth: usize,
        zero: f64,
        one: f64,
        feature: usize,
        phi: &mut [f64],
    ) {
        let start = parent + depth + 1;
        buf.copy_within(parent..parent + depth + 1, start);
        let (_, path) = buf.split_at_mut(start);
        extend(path, depth, zero, one, feature);
        let n = self.tree.nodes()[node];
        if n.is_leaf() {
            let v = self.tree.value(node)[self.output];
            for i in 1..=depth {
                let w = unwound_sum(path, depth, i);
                let e = path[i];
                phi[e.feature] += w * (e.one - e.zero) * v;
            }
            return;
        }
        let split = n.feature as usize;
        let hot = n.child(self.x[split]);
        let cold = if hot == n.left as usize {
            n.right as usize
        } else {
            n.left as usize
        };
        let nodes = self.tree.nodes();
        let (hot_zero, cold_zero) = (nodes[hot].weight / n.weight, nodes[cold].weight / n.weight);
        let (mut in_zero, mut in_one) = (1.0, 1.0);
        // A feature split on before is unwound and redone here.
        if let Some(k) = (1..=depth).find(|&k| path[k].feature == split) {
            in_zero = path[k].zero;
            in_one = path[k].one;
            unwind(path, depth, k);
            depth -= 1;
        }
        self.recurse(
            hot,
            buf,
            start,
            depth + 1,
            hot_zero * in_zero,
            in_one,
            split,
            phi,
        );
        self.recurse(
            cold,
            buf,
            start,
            depth + 1,
            cold_zero * in_zero,
            0.0,
            split,
            phi,
        );
    }
}

/// E_tree[f] of output `output`: the leaves' values weighted by their share of the
/// root's cover, recursively over the features outside `known` (a split on a known
/// feature follows x). With nothing known this is the tree's expected value.
fn conditional_expectation(
    tree: &Tree,
    node: usize,
    x: ArrayView1<'_, f64>,
    known: &[bool],
    output: usize,
) -> f64 {
    let n = tree.nodes()[node];
    if n.is_leaf() {
        return tree.value(node)[output];
    }
    let f = n.feature as usize;
    if known[f] {
        return conditional_expectation(tree, n.child(x[f]), x, known, output);
    }
    let (l, r) = (n.left as usize, n.right as usize);
    let nodes = tree.nodes();
    (nodes[l].weight * conditional_expectation(tree, l, x, known, output)
        + nodes[r].weight * conditional_expectation(tree, r, x, known, output))
        / n.weight
}

/// Refuses trees TreeSHAP cannot weigh: a split node whose cover is not positive or
/// is not the sum of its children's (e.g. a replayed forest without node sizes), a
/// split on a feature beyond the d columns, or an output index out of range.
fn check_covers(view: &dyn TreeEnsembleView, d: usize, output: usize) -> Result<()> {
    if view.trees().is_empty() {
        return Err(CoreError::Invalid("an ensemble without trees".into()));
    }
    for (t, tree) in view.trees().iter().enumerate() {
        if output >= tree.outputs() {
            return Err(CoreError::Invalid(format!(
                "output {output} of trees with {} values per node",
                tree.outputs()
            )));
        }
        for (i, n) in tree
            .nodes()
            .iter()
            .enumerate()
            .filter(|(_, n)| !n.is_leaf())
        {
            let children =
                tree.nodes()[n.left as usize].weight + tree.nodes()[n.right as usize].weight;
            if n.feature as usize >= d {
                return Err(CoreError::Shape(format!(
                    "tree {t}, node {i} splits on feature {} but the rows have {d} columns",
                    n.feature
                )));
            }
            if n.weight.is_nan() || n.weight <= 0.0 || (children - n.weight).abs() > 1e-9 * n.weight
            {
                return Err(CoreError::Invalid(format!(
                    "tree {t}, node {i}: cover {} is not positive or not its children's sum {children}; \
                     TreeSHAP needs the training weight (or hessian sum) of every node",
                    n.weight
                )));
            }
        }
    }
    Ok(())
}

/// Path-dependent TreeSHAP of every row of `x` (n × d; NaN = missing) for output
/// `output` of the trees' values (0 for regression and boosting; class c of a
/// classification forest's frequencies): φ_j(x) of the game
/// v(S) = combine_t E_t[f_t(x) | x_S] (Lundberg et al. 2018, Algorithm 2), with
/// v(∅) = combine_t E_t[f_t] (`base`) and v([d]) = the ensemble's prediction at x
/// (`full`); Σ_j φ_j = full − base. Rows run in parallel; the result does not depend
/// on the thread count.
pub fn tree_shap(
    view: &dyn TreeEnsembleView,
    x: ArrayView2<'_, f64>,
    output: usize,
) -> Result<Vec<Attribution>> {
    let d = x.ncols();
    check_covers(view, d, output)?;
    if x.nrows() == 0 {
        return Ok(Vec::new());
    }
    let trees = view.trees();
    let comb = view.combination();
    let none = vec![false; d];
    let expected: f64 = trees
        .iter()
        .map(|t| conditional_expectation(t, 0, x.row(0), &none, output))
        .sum();
    let base = comb.combine(expected, trees.len());
    let scale = comb.weight(trees.len());
    let max_depth = trees.iter().map(Tree::depth).max().unwrap_or(0);
    let buf_len = (max_depth + 2) * (max_depth + 3) / 2 + 1;
    Ok(x.rows()
        .into_iter()
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|row| {
            let mut phi = vec![0.0; d];
            let mut buf = vec![PathElement::default(); buf_len];
            let mut sum = 0.0;
            for tree in trees {
                let walk = Walk {
                    tree,
                    x: row,
                    output,
                };
                walk.recurse(0, &mut buf, 0, 0, 1.0, 1.0, usize::MAX, &mut phi);
                sum += tree.value(tree.leaf(row))[output];
            }
            Attribution {
                phi: Array1::from(phi) * scale,
                base,
                full: comb.combine(sum, trees.len()),
            }
        })
        .collect())
}

/// The game path-dependent TreeSHAP solves, evaluated coalition by coalition:
/// v(S) = combine_t E_t[f_t(x) | x_S] for one row x ([`tree_shap`]'s conditional
/// expectation over covers). Exact enumeration over it is the brute-force Shapley
/// value TreeSHAP must equal.
pub struct PathDependentGame<'a> {
    view: &'a dyn TreeEnsembleView,
    x: ArrayView1<'a, f64>,
    output: usize,
}

impl<'a> PathDependentGame<'a> {
    /// The game of row `x` and output `output`; checks the trees' covers.
    pub fn new(
        view: &'a dyn TreeEnsembleView,
        x: ArrayView1<'a, f64>,
        output: usize,
    ) -> Result<Self> {
        check_covers(view, x.len(), output)?;
        Ok(Self { view, x, output })
    }
}

impl Game for PathDependentGame<'_> {
    fn players(&self) -> usize {
        self.x.len()
    }

    fn values(&self, coalitions: ArrayView2<'_, bool>) -> Result<Array1<f64>> {
        let trees = self.view.trees();
        let comb = self.view.combination();
        Ok(coalitions
            .rows()
            .into_iter()
            .map(|mask| {
                let known = mask.to_vec();
                let sum = trees
                    .iter()
                    .map(|t| conditional_expectation(t, 0, self.x, &known, self.output))
                    .sum();
                comb.combine(sum, trees.len())
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shapley::exact::exact;
    use crate::tree::{Combination, LEAF, TreeNode};
    use ndarray::{Array2, array};

    fn split(
        feature: u32,
        threshold: f64,
        left: u32,
        right: u32,
        w: f64,
        missing_left: bool,
    ) -> TreeNode {
        TreeNode {
            feature,
            left,
            right,
            threshold,
            weight: w,
            impurity: 0.0,
            missing_left,
        }
    }

    fn leaf(w: f64) -> TreeNode {
        TreeNode {
            feature: 0,
            left: LEAF,
            right: LEAF,
            threshold: 0.0,
            weight: w,
            impurity: 0.0,
            missing_left: false,
        }
    }

    struct Ensemble(Vec<Tree>, Combination);

    impl TreeEnsembleView for Ensemble {
        fn trees(&self) -> &[Tree] {
            &self.0
        }
        fn combination(&self) -> Combination {
            self.1
        }
    }

    /// A depth-3 tree on 4 features that splits on feature 0 twice along a path
    /// (the unwind case), with unequal covers and default directions both ways.
    fn tree_a() -> Tree {
        let nodes = vec![
            split(0, 0.5, 1, 2, 100.0, true), // 0
            split(1, 0.3, 3, 4, 60.0, false), // 1
            split(2, 0.7, 5, 6, 40.0, true),  // 2
            split(0, 0.2, 7, 8, 25.0, false), // 3: feature 0 again
            leaf(35.0),                       // 4
            leaf(10.0),                       // 5
            split(3, 0.1, 9, 10, 30.0, true), // 6
            leaf(5.0),                        // 7
            leaf(20.0),                       // 8
            leaf(12.0),                       // 9
            leaf(18.0),                       // 10
        ];
        let values = vec![0.0, 0.0, 0.0, 0.0, 2.0, -1.0, 0.0, 5.0, -3.0, 4.0, 0.5];
        Tree::new(nodes, values, 1)
    }

    fn tree_b() -> Tree {
        let nodes = vec![
            split(3, 0.6, 1, 2, 100.0, false),
            split(1, 0.5, 3, 4, 70.0, true),
            leaf(30.0),
            leaf(45.0),
            leaf(25.0),
        ];
        Tree::new(nodes, vec![0.0, 0.0, 1.5, -2.0, 3.0], 1)
    }

    fn rows() -> Array2<f64> {
        array![
            [0.1, 0.2, 0.8, 0.05],
            [0.9, 0.9, 0.1, 0.9],
            [0.3, 0.25, 0.75, 0.5],
            [f64::NAN, 0.1, f64::NAN, 0.2],
            [0.15, f64::NAN, 0.9, f64::NAN],
        ]
    }

    /// TreeSHAP equals the brute-force Shapley values of the trees' own conditional
    /// expectation (exact enumeration of all 16 coalitions), for a mean and a sum of
    /// trees, with and without missing values, and is efficient.
    #[test]
    fn tree_shap_equals_brute_force_shapley_of_the_path_dependent_game() {
        for comb in [Combination::Mean, Combination::Sum { base: 0.7 }] {
            let e = Ensemble(vec![tree_a(), tree_b()], comb);
            let x = rows();
            let fast = tree_shap(&e, x.view(), 0).unwrap();
            for (r, a) in fast.iter().enumerate() {
                let game = PathDependentGame::new(&e, x.row(r), 0).unwrap();
                let brute = exact(&game).unwrap();
                for j in 0..4 {
                    assert!(
                        (a.phi[j] - brute.phi[j]).abs() < 1e-12,
                        "{comb:?} row {r} feature {j}: {} vs {}",
                        a.phi[j],
                        brute.phi[j]
                    );
                }
                assert!((a.base - brute.base).abs() < 1e-12);
                assert!((a.full - brute.full).abs() < 1e-12);
                assert!(a.efficiency_gap() < 1e-12);
            }
        }
    }

    /// The game itself: v(∅) is the cover-weighted mean of the leaves and v([d]) the
    /// prediction, by hand for tree_b: E = (45·(−2) + 25·3 + 30·1.5)/100 = 0.3.
    #[test]
    fn the_game_by_hand() {
        let e = Ensemble(vec![tree_b()], Combination::Mean);
        let x = array![0.0, 0.7, 0.0, 0.1];
        let g = PathDependentGame::new(&e, x.view(), 0).unwrap();
        let v = g
            .values(array![[false; 4], [true; 4], [false, true, false, false]].view())
            .unwrap();
        assert!((v[0] - 0.3).abs() < 1e-15, "{v}");
        assert_eq!(v[1], 3.0);
        // Feature 1 known: at node 1 go right (0.7 > 0.5); node 0 still weighted:
        // 0.7·3 + 0.3·1.5 = 2.55.
        assert!((v[2] - 2.55).abs() < 1e-15, "{v}");
    }

    /// A wrong cover (the children's covers do not add up) is refused: the weights
    /// would no longer be a distribution and efficiency would fail silently.
    #[test]
    fn inconsistent_covers_are_refused() {
        let mut nodes = tree_b().nodes().to_vec();
        nodes[3].weight = 10.0;
        let bad = Ensemble(
            vec![Tree::new(nodes, vec![0.0, 0.0, 1.5, -2.0, 3.0], 1)],
            Combination::Mean,
        );
        let err = tree_shap(&bad, rows().view(), 0).unwrap_err();
        assert!(err.to_string().contains("cover"), "{err}");
        assert!(
            tree_shap(
                &Ensemble(vec![tree_b()], Combination::Mean),
                rows().view(),
                1
            )
            .is_err()
        );
    }

    /// Missing values follow the default direction: with feature 0 missing, row 3
    /// goes left at the root (missing_left) and its attribution to feature 0 is
    /// that of x0 on the left side, not zero.
    #[test]
    fn a_missing_value_is_attributed_through_its_default_direction() {
        let e = Ensemble(vec![tree_a()], Combination::Mean);
        let x = rows();
        let a = tree_shap(&e, x.view(), 0).unwrap();
        let left = array![[0.3, 0.1, f64::NAN, 0.2]];
        let b = tree_shap(&e, left.view(), 0).unwrap();
        // x0 = NaN and x0 = 0.3 both go left at the root and right at node 3 (0.3 >
        // 0.2; NaN: missing_left = false there).
        assert!((a[3].phi[0] - b[0].phi[0]).abs() < 1e-12);
        assert!(a[3].phi[0].abs() > 1e-3);
    }
}
