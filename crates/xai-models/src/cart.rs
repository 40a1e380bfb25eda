//! Growing one CART tree (Breiman et al. 1984): exact best splits on presorted
//! per-feature row lists, or one uniform random threshold per feature (extra-trees,
//! Geurts et al. 2006).
//!
//! Rows carry weights (a bootstrap sample is its multiplicities, as in scikit-learn).
//! A node holds a range of every feature's sorted row list; a split partitions each
//! list stably, so every node's lists stay sorted at O(n·d) cost per tree level.
//!
//! Split criterion: the weighted impurity decrease w·I(node) − w_l·I(left) − w_r·I(right)
//! with I = variance (regression) or Gini 1 − Σ_c p_c² (classification); maximising it
//! is maximising Σ_l²/w_l + Σ_r²/w_r (sums of w·y) or Σ_c (c_l²/w_l + c_r²/w_r).

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

/// Settings of one tree.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TreeSettings {
    /// Maximum depth (root = 0).
    pub max_depth: usize,
    /// A node with fewer rows is a leaf.
    pub min_samples_split: usize,
    /// Each child keeps at least this many rows.
    pub min_samples_leaf: usize,
    /// Features tried per split (non-constant ones; more are tried if none splits).
    pub mtry: usize,
    /// One uniform random threshold per tried feature instead of the best one.
    pub random_thresholds: bool,
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

    fn value(&self, r: &Response<'_>) -> Vec<f64> {
        match r {
            Response::Regression(_) => vec![self.sums[0] / self.weight],
            Response::Classes(..) => self.sums.iter().map(|c| c / self.weight).collect(),
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
    let d = data.n_features();
    let k = match response {
        Response::Regression(_) => 2,
        Response::Classes(_, k) => k,
    };
    let mut order: Vec<Vec<u32>> = data
        .order
        .iter()
        .map(|o| {
            o.iter()
                .copied()
                .filter(|&r| weights[r as usize] > 0.0)
                .collect()
        })
        .collect();
    let n = order.first().map_or(0, Vec::len);
    let mut nodes: Vec<TreeNode> = Vec::new();
    let mut values: Vec<f64> = Vec::new();
    let mut goes_left = vec![false; data.n_rows()];
    let mut buffer: Vec<u32> = Vec::with_capacity(n);
    let mut features: Vec<usize> = (0..d).collect();
    // (node index, range start, range end, depth)
    let mut stack = vec![(0usize, 0usize, n, 0usize)];
    nodes.push(placeholder());
    values.extend(std::iter::repeat_n(0.0, response.outputs()));
    while let Some((id, lo, hi, depth)) = stack.pop() {
        let mut total = Stats::new(k);
        for &r in &order[0][lo..hi] {
            total.add(&response, r as usize, weights[r as usize]);
        }
        let impurity = total.impurity(&response);
        let out = response.outputs();
        values[id * out..(id + 1) * out].copy_from_slice(&total.value(&response));
        nodes[id] = TreeNode {
            impurity,
            weight: total.weight,
            ..placeholder()
        };
        let splittable = depth < settings.max_depth
            && hi - lo >= settings.min_samples_split
            && hi - lo >= 2 * settings.min_samples_leaf
            && impurity > 1e-12;
        if !splittable {
            continue;
        }
        let Some(split) = find_split(
            data,
            &order,
            lo,
            hi,
            &response,
            weights,
            &total,
            settings,
            &mut features,
            rng,
        ) else {
            continue;
        };
        let col = &data.columns[split.feature];
        for &r in &order[0][lo..hi] {
            goes_left[r as usize] = col[r as usize] <= split.threshold;
        }
        let mut n_left = 0;
        for o in order.iter_mut() {
            buffer.clear();
            let mut w = lo;
            for i in lo..hi {
                let r = o[i];
                if goes_left[r as usize] {
                    o[w] = r;
                    w += 1;
                } else {
                    buffer.push(r);
                }
            }
            n_left = w - lo;
            o[w..hi].copy_from_slice(&buffer);
        }
        let left = nodes.len();
        nodes.push(placeholder());
        nodes.push(placeholder());
        values.extend(std::iter::repeat_n(0.0, 2 * response.outputs()));
        let node = &mut nodes[id];
        node.feature = split.feature as u32;
        node.threshold = split.threshold;
        node.left = left as u32;
        node.right = left as u32 + 1;
        stack.push((left + 1, lo + n_left, hi, depth + 1));
        stack.push((left, lo, lo + n_left, depth + 1));
    }
    Tree::new(nodes, values, response.outputs())
}

fn placeholder() -> TreeNode {
    TreeNode {
        feature: 0,
        left: LEAF,
        right: LEAF,
        threshold: 0.0,
        weight: 0.0,
        impurity: 0.0,
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
    settings: &TreeSettings,
    features: &mut [usize],
    rng: &mut R,
) -> Option<Split> {
    let d = features.len();
    let mut best: Option<Split> = None;
    let mut tried = 0;
    for i in 0..d {
        // Partial Fisher–Yates: features[i] is a fresh uniform draw from the rest.
        let j = rng.random_range(i..d);
        features.swap(i, j);
        let f = features[i];
        let col = &data.columns[f];
        let rows = &order[f][lo..hi];
        let (min, max) = (col[rows[0] as usize], col[rows[rows.len() - 1] as usize]);
        if min >= max {
            continue; // constant in this node: does not count towards mtry
        }
        tried += 1;
        let found = if settings.random_thresholds {
            random_split(col, rows, response, weights, total, settings, min, max, rng)
        } else {
            best_split(col, rows, response, weights, total, settings)
        };
        if let Some((threshold, score)) = found
            && best.as_ref().is_none_or(|b| score > b.score)
        {
            best = Some(Split {
                feature: f,
                threshold,
                score,
            });
        }
        if tried >= settings.mtry && best.is_some() {
            break;
        }
    }
    best
}

fn best_split(
    col: &[f64],
    rows: &[u32],
    response: &Response<'_>,
    weights: &[f64],
    total: &Stats,
    settings: &TreeSettings,
) -> Option<(f64, f64)> {
    let k = total.sums.len();
    let mut left = Stats::new(k);
    let mut best: Option<(f64, f64)> = None;
    let min_leaf = settings.min_samples_leaf;
    for p in 0..rows.len() - 1 {
        let r = rows[p] as usize;
        left.add(response, r, weights[r]);
        let (here, next) = (col[r], col[rows[p + 1] as usize]);
        if next <= here || left.count < min_leaf || rows.len() - left.count < min_leaf {
            continue;
        }
        let score = left.proxy(response) + total.proxy_without(&left, response);
        if best.is_none_or(|(_, s)| score > s) {
            let mid = here + (next - here) / 2.0;
            best = Some((if mid < next { mid } else { here }, score));
        }
    }
    best
}

#[allow(clippy::too_many_arguments)]
fn random_split<R: Rng + ?Sized>(
    col: &[f64],
    rows: &[u32],
    response: &Response<'_>,
    weights: &[f64],
    total: &Stats,
    settings: &TreeSettings,
    min: f64,
    max: f64,
    rng: &mut R,
) -> Option<(f64, f64)> {
    let threshold = rng.random_range(min..max);
    let mut left = Stats::new(total.sums.len());
    for &r in rows {
        if col[r as usize] > threshold {
            break;
        }
        left.add(response, r as usize, weights[r as usize]);
    }
    let right_count = rows.len() - left.count;
    (left.count >= settings.min_samples_leaf && right_count >= settings.min_samples_leaf).then(
        || {
            (
                threshold,
                left.proxy(response) + total.proxy_without(&left, response),
            )
        },
    )
}
