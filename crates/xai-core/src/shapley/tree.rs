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
//!
//! A tree's values come from Algorithm 2's walk of its paths, or, where enough rows
//! repay building them, from per-leaf tables over the subsets of each leaf's path
//! features (the idea of Fast TreeSHAP v2, Yang 2021; `Tables`): the same numbers
//! to rounding, several times faster on shallow trees (XGBoost's depth 6).

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
/// `inv[k]` = 1/k: the algorithm's divisions by path lengths become products.
fn extend(
    path: &mut [PathElement],
    depth: usize,
    zero: f64,
    one: f64,
    feature: usize,
    inv: &[f64],
) {
    path[depth] = PathElement {
        feature,
        zero,
        one,
        weight: if depth == 0 { 1.0 } else { 0.0 },
    };
    let r = inv[depth + 1];
    for i in (0..depth).rev() {
        path[i + 1].weight += one * path[i].weight * (i + 1) as f64 * r;
        path[i].weight = zero * path[i].weight * (depth - i) as f64 * r;
    }
}

/// UNWIND: removes element `index` from a path of `depth + 1` elements.
fn unwind(path: &mut [PathElement], depth: usize, index: usize, inv: &[f64]) {
    let PathElement { zero, one, .. } = path[index];
    let d1 = (depth + 1) as f64;
    if one != 0.0 {
        let (r, s) = (d1 / one, zero * inv[depth + 1]);
        let mut next = path[depth].weight;
        for i in (0..depth).rev() {
            let tmp = path[i].weight;
            path[i].weight = next * r * inv[i + 1];
            next = tmp - path[i].weight * s * (depth - i) as f64;
        }
    } else {
        let r = d1 / zero;
        for i in (0..depth).rev() {
            path[i].weight *= r * inv[depth - i];
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

/// At a leaf of value `v`, adds each path element's term to `phi`:
/// v·(one − zero)·(the total weight of the path with that element unwound).
///
/// With one = 0 the unwound total is (depth + 1)/zero·Σ_k w_k/(depth − k), so every
/// such element adds the same −(depth + 1)·v·Σ_k w_k/(depth − k), computed once.
fn add_leaf(path: &[PathElement], depth: usize, v: f64, inv: &[f64], phi: &mut [f64]) {
    let d1 = (depth + 1) as f64;
    let mut cold = None;
    for e in &path[1..=depth] {
        if e.one != 0.0 {
            let r = 1.0 / e.one;
            let mut next = path[depth].weight;
            let mut total = 0.0;
            for k in (0..depth).rev() {
                let tmp = next * inv[k + 1] * r;
                total += tmp;
                next = path[k].weight - tmp * e.zero * (depth - k) as f64;
            }
            phi[e.feature] += total * d1 * (e.one - e.zero) * v;
        } else {
            let term = *cold.get_or_insert_with(|| {
                -d1 * v
                    * (0..depth)
                        .map(|k| path[k].weight * inv[depth - k])
                        .sum::<f64>()
            });
            phi[e.feature] += term;
        }
    }
}

/// One tree's walk for one row, adding its Shapley values of output `output` to `phi`.
struct Walk<'a> {
    tree: &'a Tree,
    /// Each node's cover over its parent's (1 at the root).
    share: &'a [f64],
    x: ArrayView1<'a, f64>,
    output: usize,
    /// 1/k for k = 0, …, the longest path + 1 (inv[0] unused).
    inv: &'a [f64],
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
        extend(path, depth, zero, one, feature, self.inv);
        let n = self.tree.nodes()[node];
        if n.is_leaf() {
            add_leaf(
                path,
                depth,
                self.tree.value(node)[self.output],
                self.inv,
                phi,
            );
            return;
        }
        let split = n.feature as usize;
        let hot = n.child(self.x[split]);
        let cold = if hot == n.left as usize {
            n.right as usize
        } else {
            n.left as usize
        };
        let (mut in_zero, mut in_one) = (1.0, 1.0);
        // A feature split on before is unwound and redone here.
        if let Some(k) = (1..=depth).find(|&k| path[k].feature == split) {
            in_zero = path[k].zero;
            in_one = path[k].one;
            unwind(path, depth, k, self.inv);
            depth -= 1;
        }
        self.recurse(
            hot,
            buf,
            start,
            depth + 1,
            self.share[hot] * in_zero,
            in_one,
            split,
            phi,
        );
        self.recurse(
            cold,
            buf,
            start,
            depth + 1,
            self.share[cold] * in_zero,
            0.0,
            split,
            phi,
        );
    }
}

/// The most table entries (f64) [`Tables`] may hold for one tree (32 MiB); a tree
/// that needs more is walked by Algorithm 2.
const MAX_TABLE_ENTRIES: usize = 1 << 22;

/// One leaf of [`Tables`]: its node, its value, its unique path features
/// (`features[first..first + count]`) and the start of its 2^count table entries.
#[derive(Debug, Clone, Copy)]
struct LeafTable {
    node: usize,
    value: f64,
    first: usize,
    count: usize,
    table: usize,
}

/// Path-dependent TreeSHAP of one tree from per-leaf tables (after Fast TreeSHAP v2:
/// Yang 2021, arXiv:2109.09847). For a leaf ℓ of value v whose root path splits on the p
/// unique features P, with z_k the product of the cover shares of the path's splits
/// on feature k, the tree's game is a sum over leaves of
/// g_ℓ(S) = v·Π_{k ∈ P∖S} z_k·[x goes towards ℓ at every split on a feature in S].
/// With H ⊆ P the features on which x goes towards ℓ (the hot set), its Shapley
/// value for k ∈ P is v·(1[k ∈ H] − z_k)/z_k·A_ℓ(H∖{k}), where
/// A_ℓ(G) = Σ_{S ⊆ G} |S|!(p − |S| − 1)!/p!·Π_{j ∈ P∖S} z_j
/// depends on the tree alone: it is tabulated once for every G ⊆ P (a sum of
/// positive terms), and a row costs one pass over the splits for the hot sets and
/// p lookups per leaf instead of Algorithm 2's O(depth²) per leaf.
struct Tables {
    /// The split nodes, parents before children.
    splits: Vec<usize>,
    /// Per split node, the position of its feature among the unique features of its
    /// root path (the bit of that feature in a hot set).
    position: Vec<u32>,
    leaves: Vec<LeafTable>,
    /// Per leaf, its unique features and v·(1 − z_k)/z_k (the factor of a hot k; a
    /// cold k's is −v).
    features: Vec<(usize, f64)>,
    table: Vec<f64>,
}

/// The root path of a leaf: its node, its number of splits and its unique features
/// in the order the path first meets them, each with z_k, the product of the cover
/// shares of the path's splits on it.
struct LeafPath {
    node: usize,
    depth: usize,
    unique: Vec<(usize, f64)>,
}

/// The paths of every leaf in depth-first order, the split nodes in that order and
/// each split node's position among its own path's unique features.
struct LeafPaths {
    leaves: Vec<LeafPath>,
    splits: Vec<usize>,
    position: Vec<u32>,
}

impl LeafPaths {
    fn new(tree: &Tree, share: &[f64]) -> Self {
        fn walk(
            tree: &Tree,
            share: &[f64],
            (node, depth): (usize, usize),
            path: &mut Vec<(usize, f64)>,
            out: &mut LeafPaths,
        ) {
            let n = tree.nodes()[node];
            if n.is_leaf() {
                out.leaves.push(LeafPath {
                    node,
                    depth,
                    unique: path.clone(),
                });
                return;
            }
            let f = n.feature as usize;
            let seen = path.iter().position(|&(g, _)| g == f);
            out.splits.push(node);
            out.position[node] = seen.unwrap_or(path.len()) as u32;
            for child in [n.left as usize, n.right as usize] {
                match seen {
                    Some(k) => {
                        let z = path[k].1;
                        path[k].1 = z * share[child];
                        walk(tree, share, (child, depth + 1), path, out);
                        path[k].1 = z;
                    }
                    None => {
                        path.push((f, share[child]));
                        walk(tree, share, (child, depth + 1), path, out);
                        path.pop();
                    }
                }
            }
        }
        let mut out = LeafPaths {
            leaves: Vec::new(),
            splits: Vec::new(),
            position: vec![0; tree.nodes().len()],
        };
        walk(tree, share, (0, 0), &mut Vec::new(), &mut out);
        out
    }
}

impl Tables {
    /// The tables of `tree` for output `output`, or `None` where Algorithm 2 is the
    /// better choice for `rows` rows: when a cover share is 0 (z_k = 0 has no table
    /// form), when the tables would exceed [`MAX_TABLE_ENTRIES`], or when building
    /// them (Σ_ℓ p·2^p) costs more than the leaf work they save (about Σ_ℓ p·depth
    /// per row).
    fn new(tree: &Tree, share: &[f64], output: usize, rows: usize) -> Option<Self> {
        let paths = LeafPaths::new(tree, share);
        let mut entries = 0usize;
        let (mut build, mut save) = (0usize, 0usize);
        for LeafPath { depth, unique, .. } in &paths.leaves {
            let p = unique.len();
            if p >= 32 || unique.iter().any(|&(_, z)| z <= 0.0) {
                return None;
            }
            entries = entries.saturating_add(1 << p);
            build = build.saturating_add(p << p);
            save = save.saturating_add(p * depth);
        }
        if entries > MAX_TABLE_ENTRIES || build > rows.saturating_mul(save) {
            return None;
        }
        let mut tables = Tables {
            splits: paths.splits,
            position: paths.position,
            leaves: Vec::with_capacity(paths.leaves.len()),
            features: Vec::new(),
            table: Vec::with_capacity(entries),
        };
        for LeafPath { node, unique, .. } in paths.leaves {
            let (p, value) = (unique.len(), tree.value(node)[output]);
            tables.leaves.push(LeafTable {
                node,
                value,
                first: tables.features.len(),
                count: p,
                table: tables.table.len(),
            });
            tables
                .features
                .extend(unique.iter().map(|&(f, z)| (f, value * (1.0 - z) / z)));
            // A(G) = Σ_{S ⊆ G} c_|S|·Π_{j ∉ S} z_j: the terms, then their subset sums.
            // The full set (|S| = p has no Shapley weight) is never looked up.
            let full = (1usize << p) - 1;
            let start = tables.table.len();
            tables.table.extend((0..=full).map(|s| {
                if p == 0 || s == full {
                    return 0.0;
                }
                let outside: f64 = (0..p)
                    .filter(|&k| s & (1 << k) == 0)
                    .map(|k| unique[k].1)
                    .product();
                super::shapley_weight(p, s.count_ones() as usize) * outside
            }));
            let a = &mut tables.table[start..];
            for k in 0..p {
                for s in 0..=full {
                    if s & (1 << k) != 0 {
                        a[s] += a[s ^ (1 << k)];
                    }
                }
            }
        }
        Some(tables)
    }

    /// Adds the tree's Shapley values at row `x` to `phi`; `hot` has one entry per
    /// node.
    fn add(&self, tree: &Tree, x: ArrayView1<'_, f64>, hot: &mut [u32], phi: &mut [f64]) {
        let nodes = tree.nodes();
        hot[0] = u32::MAX;
        for &node in &self.splits {
            let n = nodes[node];
            let bit = 1u32 << self.position[node];
            let (mask, left) = (hot[node], n.goes_left(x[n.feature as usize]));
            hot[n.left as usize] = if left { mask } else { mask & !bit };
            hot[n.right as usize] = if left { mask & !bit } else { mask };
        }
        for leaf in &self.leaves {
            let h = hot[leaf.node] as usize & ((1 << leaf.count) - 1);
            let features = &self.features[leaf.first..leaf.first + leaf.count];
            for (k, &(f, hot_factor)) in features.iter().enumerate() {
                let bit = 1 << k;
                let factor = if h & bit != 0 {
                    hot_factor
                } else {
                    -leaf.value
                };
                phi[f] += factor * self.table[leaf.table + (h & !bit)];
            }
        }
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

/// Each node's cover over its parent's (1 at the root): the zero fractions of
/// Algorithm 2, once per tree rather than once per row.
fn cover_shares(tree: &Tree) -> Vec<f64> {
    let nodes = tree.nodes();
    let mut share = vec![1.0; nodes.len()];
    for n in nodes.iter().filter(|n| !n.is_leaf()) {
        for child in [n.left as usize, n.right as usize] {
            share[child] = nodes[child].weight / n.weight;
        }
    }
    share
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
/// (`full`); Σ_j φ_j = full − base. Tree by tree, each tree's values come from
/// per-leaf tables (`Tables`) where building them is cheaper than walking the
/// tree's paths once per row, else from Algorithm 2; the two agree to rounding.
/// Rows run in parallel; the result does not depend on the thread count.
pub fn tree_shap(
    view: &dyn TreeEnsembleView,
    x: ArrayView2<'_, f64>,
    output: usize,
) -> Result<Vec<Attribution>> {
    tree_shap_weighing(view, x, output, x.nrows())
}

/// [`tree_shap`], choosing tables for a tree when building them costs less than the
/// leaf work of Algorithm 2 on `weigh_rows` rows (0: Algorithm 2 for every tree with
/// a split; `usize::MAX`: tables wherever they fit).
fn tree_shap_weighing(
    view: &dyn TreeEnsembleView,
    x: ArrayView2<'_, f64>,
    output: usize,
    weigh_rows: usize,
) -> Result<Vec<Attribution>> {
    let (n, d) = x.dim();
    check_covers(view, d, output)?;
    if n == 0 {
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
    // A path holds at most max_depth + 1 elements; EXTEND divides by one more.
    let inv: Vec<f64> = (0..=max_depth + 1).map(|k| 1.0 / k as f64).collect();
    let max_nodes = trees.iter().map(|t| t.nodes().len()).max().unwrap_or(0);
    let mut phi = vec![0.0; n * d];
    let mut sums = vec![0.0; n];
    for tree in trees {
        let share = cover_shares(tree);
        let tables = Tables::new(tree, &share, output, weigh_rows);
        phi.par_chunks_mut(d)
            .zip(sums.par_iter_mut())
            .enumerate()
            .for_each_init(
                || (vec![PathElement::default(); buf_len], vec![0u32; max_nodes]),
                |(buf, hot), (i, (phi, sum))| {
                    let row = x.row(i);
                    match &tables {
                        Some(t) => t.add(tree, row, hot, phi),
                        None => Walk {
                            tree,
                            share: &share,
                            x: row,
                            output,
                            inv: &inv,
                        }
                        .recurse(0, buf, 0, 0, 1.0, 1.0, usize::MAX, phi),
                    }
                    *sum += tree.value(tree.leaf(row))[output];
                },
            );
    }
    Ok(phi
        .chunks(d)
        .zip(&sums)
        .map(|(phi, &sum)| Attribution {
            phi: phi.iter().map(|v| v * scale).collect(),
            base,
            full: comb.combine(sum, trees.len()),
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
    use crate::shapley::fixtures::{leaf, random_tree, split};
    use crate::tree::Combination;
    use ndarray::{Array2, array};

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
    /// trees, with and without missing values, and is efficient — by Algorithm 2's
    /// walk (weighed against 0 rows) and by the leaf tables (against any number).
    #[test]
    fn tree_shap_equals_brute_force_shapley_of_the_path_dependent_game() {
        for (comb, weigh_rows) in [
            (Combination::Mean, 0),
            (Combination::Sum { base: 0.7 }, 0),
            (Combination::Mean, usize::MAX),
            (Combination::Sum { base: 0.7 }, usize::MAX),
        ] {
            let e = Ensemble(vec![tree_a(), tree_b()], comb);
            let x = rows();
            let fast = tree_shap_weighing(&e, x.view(), 0, weigh_rows).unwrap();
            for (r, a) in fast.iter().enumerate() {
                let game = PathDependentGame::new(&e, x.row(r), 0).unwrap();
                let brute = exact(&game).unwrap();
                for j in 0..4 {
                    assert!(
                        (a.phi[j] - brute.phi[j]).abs() < 1e-12,
                        "{comb:?}, weighed against {weigh_rows} rows: row {r} feature {j}: {} vs {}",
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

    /// On deeper trees with many repeated features the two methods agree with each
    /// other and with brute force (5 features, 32 coalitions), missing values
    /// included.
    #[test]
    fn both_methods_agree_on_deep_random_trees() {
        let e = Ensemble(
            (0..3).map(|s| random_tree(8, 5, s)).collect(),
            Combination::Sum { base: -0.3 },
        );
        let mut x = crate::shapley::fixtures::normal_rows(20, 5, 3).mapv(|v| 0.5 + 0.3 * v);
        x[[0, 1]] = f64::NAN;
        x[[5, 0]] = f64::NAN;
        x[[5, 4]] = f64::NAN;
        let walked = tree_shap_weighing(&e, x.view(), 0, 0).unwrap();
        let tabled = tree_shap_weighing(&e, x.view(), 0, usize::MAX).unwrap();
        for (r, (a, b)) in walked.iter().zip(&tabled).enumerate() {
            let brute = exact(&PathDependentGame::new(&e, x.row(r), 0).unwrap()).unwrap();
            for j in 0..5 {
                assert!(
                    (a.phi[j] - brute.phi[j]).abs() < 1e-12,
                    "walk, row {r}, {j}"
                );
                assert!(
                    (b.phi[j] - brute.phi[j]).abs() < 1e-12,
                    "tables, row {r}, {j}"
                );
            }
        }
    }

    /// The weighing picks each method where it says: tables cost Σ p·2^p to build
    /// (tree_a: 4·2·4 + 2·3·8 = 80), Algorithm 2 about Σ p·depth per row (tree_a:
    /// 2·(2·3) + 2·(2·2) + 2·(3·3) = 38), so they pay from 3 rows on; a zero cover
    /// share has no table form.
    #[test]
    fn tables_are_built_when_the_rows_repay_them() {
        let t = tree_a();
        let share = cover_shares(&t);
        assert!(Tables::new(&t, &share, 0, 2).is_none());
        assert!(Tables::new(&t, &share, 0, 3).is_some());
        let mut zero = t.nodes().to_vec();
        zero[7].weight = 0.0;
        zero[8].weight = 25.0;
        let values = (0..zero.len()).map(|i| t.value(i)[0]).collect();
        let t = Tree::new(zero, values, 1);
        assert!(Tables::new(&t, &cover_shares(&t), 0, usize::MAX).is_none());
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
