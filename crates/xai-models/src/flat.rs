//! A compact layout of a tree for prediction: 16-byte nodes in breadth-first order
//! with the two children of a node adjacent, the right one first, so a step is
//! `i = next + (x[feature] ≤ threshold)`. A missing (NaN) value fails the test and
//! goes right, as [`xai_core::TreeNode::goes_left`] sends it in a tree grown without
//! missing values (the one rule of every tree walk; a learned direction, XGBoost's,
//! is not laid out here). A leaf points to itself with threshold NaN, which no value
//! (not even ±∞) is ≤, so after `depth`
//! steps every row sits in its leaf: rows are walked in lockstep groups of [`LANES`],
//! whose independent chains of loads overlap, with no branch.

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

    /// For each row of the row-major matrix `x` (d columns), the source-tree index of
    /// its leaf, written to `out`.
    pub fn leaves(&self, x: &[f64], d: usize, out: &mut [u32]) {
        let n = out.len();
        let full = n - n % LANES;
        for start in (0..full).step_by(LANES) {
            let rows: [&[f64]; LANES] =
                std::array::from_fn(|k| &x[(start + k) * d..(start + k + 1) * d]);
            let mut idx = [0u32; LANES];
            for _ in 0..self.depth {
                for k in 0..LANES {
                    idx[k] = self.step(idx[k], rows[k]);
                }
            }
            for k in 0..LANES {
                out[start + k] = self.source[idx[k] as usize];
            }
        }
        for r in full..n {
            let row = &x[r * d..(r + 1) * d];
            let mut i = 0;
            for _ in 0..self.depth {
                i = self.step(i, row);
            }
            out[r] = self.source[i as usize];
        }
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
