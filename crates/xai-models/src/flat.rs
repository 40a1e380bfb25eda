//! A compact layout of a tree for prediction: 16-byte nodes in breadth-first order
//! with the two children of a node adjacent, the right one first, so a step is
//! `i = next + (x[feature] ≤ threshold)`. A missing (NaN) value fails the test and
//! goes right, as [`xai_core::TreeNode::goes_left`] sends it in a tree grown without
//! missing values (the one rule of every tree walk; a learned direction, XGBoost's,
//! is not laid out here). A leaf points to itself with threshold NaN, which no value
//! (not even ±∞) is ≤, so after `depth`
//! steps every row sits in its leaf: rows are walked in lockstep groups of [`LANES`],
//! whose independent chains of loads overlap, with no branch. The rows are regrouped
//! once ([`LaneRows`]) so that a lane finds its value at a fixed offset from its
//! group's start, one load fewer per step than through a pointer per row (measured
//! on molnar2023 Table 1's forests: 5% of an experiment).
//!
//! Tried and not kept (`cargo xtask bench w8_coverage_rep`, phase `table1_unit`, one
//! thread; R forests of 19 levels whose rows reach a leaf after 10.7 steps on
//! average): refilling a lane with the next row as soon as its row reaches a leaf
//! (2.36 → 2.5 s: one mispredicted branch per row); walking the rows still outside a
//! leaf in waves, compacted every 4 steps (2.36 → 2.5 s); stopping a group once all
//! its lanes sit in leaves (a group of 8 rows needs 15 levels on average; 1.81 →
//! 1.91 s: the check costs what it saves); 16 lanes (1.81 → 2.06 s: registers
//! spill); unchecked indexing (1.81 → 1.76 s, not worth `unsafe`).

use xai_core::Tree;

/// Rows walked through a tree together.
pub const LANES: usize = 8;

#[derive(Debug, Clone, Copy)]
struct FlatNode {
    threshold: f64,
    feature: u32,
    /// Right child (left = right + 1); a leaf's own index.
    next: u32,
}

/// Equal bit for bit (a leaf's NaN threshold equals itself).
impl PartialEq for FlatNode {
    fn eq(&self, other: &Self) -> bool {
        self.threshold.to_bits() == other.threshold.to_bits()
            && self.feature == other.feature
            && self.next == other.next
    }
}

/// Bytes per node of a [`FlatTree`]: the node and its source index.
pub(crate) const FLAT_NODE_BYTES: usize = size_of::<FlatNode>() + size_of::<u32>();

/// A tree laid out for fast prediction; leaf values stay in the source [`Tree`].
#[derive(Debug, Clone, PartialEq)]
pub struct FlatTree {
    nodes: Vec<FlatNode>,
    /// Source-tree node index of each flat node (used at leaves).
    source: Vec<u32>,
    depth: usize,
}

impl FlatTree {
    /// Re-lays out `tree` breadth first. Panics on a node with a learned missing
    /// direction (`missing_left`), which this layout cannot follow.
    pub fn new(tree: &Tree) -> Self {
        let src = tree.nodes();
        let mut nodes = Vec::with_capacity(src.len());
        let mut source = Vec::with_capacity(src.len());
        let mut queue = std::collections::VecDeque::from([0usize]);
        while let Some(i) = queue.pop_front() {
            let n = &src[i];
            let here = nodes.len() as u32;
            source.push(i as u32);
            if n.is_leaf() {
                nodes.push(FlatNode {
                    threshold: f64::NAN,
                    feature: 0,
                    next: here,
                });
            } else {
                assert!(
                    !n.missing_left,
                    "a flat tree sends a missing value right; this node learned left"
                );
                // Children take the next two free slots after everything queued so
                // far, the right child first.
                let right = nodes.len() + queue.len() + 1;
                nodes.push(FlatNode {
                    threshold: n.threshold,
                    feature: n.feature,
                    next: right as u32,
                });
                queue.push_back(n.right as usize);
                queue.push_back(n.left as usize);
            }
        }
        Self {
            nodes,
            source,
            depth: tree.depth(),
        }
    }

    #[inline]
    fn step(&self, i: u32, row: &[f64]) -> u32 {
        let n = self.nodes[i as usize];
        n.next + u32::from(row[n.feature as usize] <= n.threshold)
    }

    /// For each row of `rows`, the source-tree index of its leaf, written to `out`
    /// (`rows.len()` long).
    pub fn leaves(&self, rows: &LaneRows, out: &mut [u32]) {
        let width = rows.stride * LANES;
        for (group, out) in rows.values.chunks_exact(width).zip(out.chunks_mut(LANES)) {
            let mut idx = [0u32; LANES];
            for _ in 0..self.depth {
                for (k, i) in idx.iter_mut().enumerate() {
                    let n = self.nodes[*i as usize];
                    let v = group[n.feature as usize * LANES + k];
                    *i = n.next + u32::from(v <= n.threshold);
                }
            }
            for (o, &i) in out.iter_mut().zip(&idx) {
                *o = self.source[i as usize];
            }
        }
    }
}

/// Rows laid out for [`FlatTree::leaves`]: in groups of [`LANES`], feature by feature
/// within a group (feature f of the group's row k at `f·LANES + k`), so a lane reads
/// its value at a fixed offset from the group's start; the last group is padded with
/// copies of the last row. Built once, walked through every tree.
#[derive(Debug, Clone)]
pub struct LaneRows {
    values: Vec<f64>,
    /// Features per row, at least 1 (rows without features hold a 0).
    stride: usize,
    n: usize,
}

impl LaneRows {
    /// The n rows of the row-major matrix `x` (d columns).
    pub fn new(x: &[f64], n: usize, d: usize) -> Self {
        let stride = d.max(1);
        let mut values = vec![0.0; n.div_ceil(LANES) * LANES * stride];
        for (g, group) in values.chunks_exact_mut(stride * LANES).enumerate() {
            for k in 0..LANES {
                let r = (g * LANES + k).min(n - 1);
                for f in 0..d {
                    group[f * LANES + k] = x[r * d + f];
                }
            }
        }
        Self { values, stride, n }
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }
}

impl FlatTree {
    /// The leaves of one row under every replacement of its column `feature`: copy k
    /// sets x[feature] = `values[k]`, and `visit(leaf, copies)` is called once per leaf
    /// reached, with the copies that reach it (`copies` is scratch, `values.len()`
    /// long). The row walks the tree once; the copies part only at nodes that test
    /// `feature`, so K copies cost far less than K walks (PD of a tree for all grid
    /// values in one traversal, and PFI likewise over the permuted values).
    pub fn leaves_replaced(
        &self,
        row: &[f64],
        feature: usize,
        values: &[f64],
        copies: &mut [u32],
        stack: &mut Vec<(u32, usize, usize)>,
        mut visit: impl FnMut(u32, &[u32]),
    ) {
        let k = values.len();
        for (c, slot) in copies.iter_mut().enumerate() {
            *slot = c as u32;
        }
        stack.clear();
        stack.push((0, 0, k));
        while let Some((mut i, lo, mut hi)) = stack.pop() {
            loop {
                let n = self.nodes[i as usize];
                if n.next == i {
                    visit(self.source[i as usize], &copies[lo..hi]);
                    break;
                }
                if n.feature as usize != feature {
                    i = self.step(i, row);
                    continue;
                }
                // Copies with values ≤ threshold first (left, at next + 1), the others
                // (right, at next; a missing value among them) after.
                let mut mid = lo;
                for j in lo..hi {
                    if values[copies[j] as usize] <= n.threshold {
                        copies.swap(mid, j);
                        mid += 1;
                    }
                }
                if mid == lo {
                    i = n.next;
                } else {
                    if mid < hi {
                        stack.push((n.next, mid, hi));
                        hi = mid;
                    }
                    i = n.next + 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cart::{Response, SortedColumns, TreeSettings, grow};
    use ndarray::Array2;
    use rand::RngExt;
    use xai_core::rng::stream_rng;

    #[test]
    fn the_lockstep_walk_finds_every_rows_leaf_in_full_and_partial_groups() {
        let mut rng = stream_rng(4, 0);
        let x = Array2::from_shape_fn((300, 3), |_| rng.random::<f64>());
        let y: Vec<f64> = x.rows().into_iter().map(|r| r[0] * r[1] + r[2]).collect();
        let weights = vec![1.0; 300];
        let settings = TreeSettings::default();
        let tree = grow(
            &SortedColumns::new(x.view()),
            Response::Regression(&y),
            &weights,
            &settings,
            &mut rng,
        );
        let flat = FlatTree::new(&tree);
        // 1, LANES − 1, LANES, LANES + 1 and 3·LANES + 5 rows: the last group is
        // padded; a missing value goes right.
        let mut rows = Array2::from_shape_fn((3 * LANES + 5, 3), |_| rng.random::<f64>());
        rows[[2, 0]] = f64::NAN;
        for n in [1, LANES - 1, LANES, LANES + 1, 3 * LANES + 5] {
            let x = rows.slice(ndarray::s![..n, ..]).to_owned();
            let lanes = LaneRows::new(x.as_slice().unwrap(), n, 3);
            assert_eq!(lanes.len(), n);
            let mut out = vec![u32::MAX; n];
            flat.leaves(&lanes, &mut out);
            let expected: Vec<u32> = x.rows().into_iter().map(|r| tree.leaf(r) as u32).collect();
            assert_eq!(out, expected, "{n} rows");
        }
        // No features: a one-leaf tree.
        let leaf = xai_core::TreeNode {
            feature: 0,
            left: xai_core::LEAF,
            right: xai_core::LEAF,
            threshold: 0.0,
            weight: 4.0,
            impurity: 0.0,
            missing_left: false,
        };
        let root = Tree::new(vec![leaf], vec![1.0], 1);
        let mut out = vec![u32::MAX; 3];
        FlatTree::new(&root).leaves(&LaneRows::new(&[], 3, 0), &mut out);
        assert_eq!(out, vec![0; 3]);
    }
}
