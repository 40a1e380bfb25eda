//! The interventional game of a tree ensemble without predicting hybrid rows.
//!
//! A coalition S's hybrid row (x in S, background row b elsewhere) reaches, in tree
//! t, the leaf found by walking from the root and taking x's branch at a split on a
//! feature in S and b's branch otherwise. Where x and b take the same branch, S does
//! not matter; where they part on feature j, the walk follows both: x's branch under
//! the condition j ∈ S, b's under j ∉ S (a feature already conditioned on keeps its
//! side). So each (t, b) gives a few leaves, each with the sets I (features required
//! in S) and O (features required out of S); exactly one leaf of each (t, b) has
//! I ⊆ S and O ∩ S = ∅. With the ensemble's combination weight w (1/T for a forest's
//! mean, 1 for boosting's sum) and the background mean 1/B, every coalition's mean
//! combined value is
//!
//!   m(S) = base + Σ_{(I, O)} [I ⊆ S][O ∩ S = ∅] · c_{I,O},
//!   c_{I,O} = (w/B) · Σ_{(t, b, leaf) with sets (I, O)} v_t(leaf),
//!
//! a table built once per explained row in O(T·B·paths) and read for each coalition
//! in O(entries). Entries are at most the leaves the walk reaches (T·B when x and
//! the background never part), so reading a coalition costs at most about what
//! predicting its T·B hybrid walks would, and far less where entries merge. This is the walk of interventional TreeSHAP (Lundberg et al. 2020,
//! "From local explanations to global understanding", Methods) kept per condition
//! pair instead of summed into Shapley weights, so any coalition's value comes out,
//! as KernelSHAP and exact enumeration need. It equals the background mean of the
//! ensemble's combined leaf values on the stacked hybrid rows, up to the order of
//! summation.

use std::collections::HashMap;

use ndarray::{Array2, ArrayView1, ArrayView2};

use crate::tree::{Combination, TreeEnsembleView};

/// The most features a table handles: conditions are bit masks of a u64.
pub const MAX_TABLE_FEATURES: usize = 64;

/// The table c_{I,O} of one explained row (module doc).
#[derive(Debug, Clone)]
pub struct CoalitionTable {
    outputs: usize,
    base: f64,
    /// (I, O) of each entry, as bit masks.
    conditions: Vec<(u64, u64)>,
    /// c_{I,O}, `outputs` per entry.
    values: Vec<f64>,
}

impl CoalitionTable {
    /// The table of `view` at `x` over the background rows `background` (B × d).
    /// `None` with more than [`MAX_TABLE_FEATURES`] features, no trees, or no
    /// background rows.
    pub fn new(
        view: &dyn TreeEnsembleView,
        x: ArrayView1<'_, f64>,
        background: ArrayView2<'_, f64>,
    ) -> Option<CoalitionTable> {
        let trees = view.trees();
        let outputs = trees.first()?.outputs();
        if x.len() > MAX_TABLE_FEATURES || background.nrows() == 0 {
            return None;
        }
        let combination = view.combination();
        let w = combination.weight(trees.len()) / background.nrows() as f64;
        let mut index: HashMap<(u64, u64), usize> = HashMap::new();
        let mut table = CoalitionTable {
            outputs,
            base: match combination {
                Combination::Mean => 0.0,
                Combination::Sum { base } => base,
            },
            conditions: Vec::new(),
            values: Vec::new(),
        };
        let mut stack: Vec<(usize, u64, u64)> = Vec::new();
        for tree in trees {
            let nodes = tree.nodes();
            for b in background.rows() {
                stack.push((0, 0, 0));
                while let Some((i, inside, outside)) = stack.pop() {
                    let n = &nodes[i];
                    if n.is_leaf() {
                        let e = *index.entry((inside, outside)).or_insert_with(|| {
                            table.conditions.push((inside, outside));
                            table.values.resize(table.values.len() + outputs, 0.0);
                            table.conditions.len() - 1
                        });
                        let acc = &mut table.values[e * outputs..(e + 1) * outputs];
                        for (a, v) in acc.iter_mut().zip(tree.value(i)) {
                            *a += w * v;
                        }
                        continue;
                    }
                    let j = n.feature as usize;
                    let bit = 1u64 << j;
                    let (by_x, by_b) = (n.child(x[j]), n.child(b[j]));
                    if by_x == by_b || inside & bit != 0 {
                        stack.push((by_x, inside, outside));
                    } else if outside & bit != 0 {
                        stack.push((by_b, inside, outside));
                    } else {
                        stack.push((by_x, inside | bit, outside));
                        stack.push((by_b, inside, outside | bit));
                    }
                }
            }
        }
        Some(table)
    }

    /// The number of (I, O) entries.
    #[cfg(test)]
    fn entries(&self) -> usize {
        self.conditions.len()
    }

    /// m(S) for every coalition (k × d masks): k × outputs mean combined values.
    pub fn combined(&self, coalitions: ArrayView2<'_, bool>) -> Array2<f64> {
        let mut out = Array2::from_elem((coalitions.nrows(), self.outputs), self.base);
        for (mask, mut row) in coalitions.rows().into_iter().zip(out.rows_mut()) {
            let s = mask
                .iter()
                .enumerate()
                .filter(|&(_, &m)| m)
                .fold(0u64, |s, (j, _)| s | (1 << j));
            for (e, &(inside, outside)) in self.conditions.iter().enumerate() {
                if inside & !s == 0 && outside & s == 0 {
                    let c = &self.values[e * self.outputs..(e + 1) * self.outputs];
                    row.iter_mut().zip(c).for_each(|(r, c)| *r += c);
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use ndarray::{Array1, Array2, ArrayView2, Axis, s};

    use crate::model::Model;
    use crate::predictions::Predictions;
    use crate::shapley::Game;
    use crate::shapley::exact::exact;
    use crate::shapley::fixtures::{normal_rows, random_tree};
    use crate::shapley::game::{ModelGame, ValueFunction};
    use crate::tree::{Combination, Tree, TreeEnsembleView};

    /// Trees predicting their combined leaf values: as points, or (two outputs) as
    /// class frequencies; `linear` says whether the game may use the table.
    struct Trees {
        trees: Vec<Tree>,
        combination: Combination,
        linear: bool,
    }

    impl Trees {
        fn combined(&self, x: ArrayView2<'_, f64>) -> Array2<f64> {
            let k = self.trees[0].outputs();
            let w = self.combination.weight(self.trees.len());
            let base = match self.combination {
                Combination::Mean => 0.0,
                Combination::Sum { base } => base,
            };
            Array2::from_shape_fn((x.nrows(), k), |(i, c)| {
                base + self
                    .trees
                    .iter()
                    .map(|t| w * t.value(t.leaf(x.row(i)))[c])
                    .sum::<f64>()
            })
        }

        fn as_predictions(&self, combined: Array2<f64>) -> Predictions {
            match combined.ncols() {
                1 => Predictions::Point(combined.column(0).to_owned()),
                _ => Predictions::Probabilities(combined),
            }
        }
    }

    impl TreeEnsembleView for Trees {
        fn trees(&self) -> &[Tree] {
            &self.trees
        }
        fn combination(&self) -> Combination {
            self.combination
        }
        fn predictions_of_combined(&self, combined: Array2<f64>) -> Option<Predictions> {
            self.linear.then(|| self.as_predictions(combined))
        }
    }

    impl Model for Trees {
        fn predict(&self, x: ArrayView2<'_, f64>) -> crate::error::Result<Predictions> {
            Ok(self.as_predictions(self.combined(x)))
        }
        fn tree_ensemble(&self) -> Option<&dyn TreeEnsembleView> {
            Some(self)
        }
    }

    /// A tree with two outputs, class frequencies (p, 1 − p) from its leaf values.
    fn classifier_tree(depth: usize, d: usize, seed: u64) -> Tree {
        let t = random_tree(depth, d, seed);
        let values: Vec<f64> = (0..t.nodes().len())
            .flat_map(|i| {
                let p = 1.0 / (1.0 + (-6.0 * t.value(i)[0]).exp());
                [p, 1.0 - p]
            })
            .collect();
        Tree::new(t.nodes().to_vec(), values, 2)
    }

    /// Every coalition's value from the table equals the one from predicting the
    /// stacked hybrid rows, for a forest's mean and a booster's sum, for the
    /// prediction and the entropy of class frequencies, with missing values in x and
    /// the background (default directions); and so do the Shapley values.
    #[test]
    fn the_table_gives_the_values_of_the_predicted_hybrid_rows() {
        let d = 6;
        let all = Array2::from_shape_fn((1 << d, d), |(m, j)| m >> j & 1 == 1);
        let mut rows = normal_rows(21, d, 4).mapv(|v| 0.5 + 0.3 * v);
        rows[[0, 2]] = f64::NAN;
        rows[[3, 0]] = f64::NAN;
        rows[[7, 5]] = f64::NAN;
        let (x, background) = (rows.row(0), rows.slice(s![1.., ..]));
        let cases = [
            (Combination::Mean, 1, ValueFunction::Prediction),
            (Combination::Sum { base: 0.7 }, 1, ValueFunction::Prediction),
            (Combination::Mean, 2, ValueFunction::Entropy),
            (Combination::Mean, 2, ValueFunction::NegKl),
        ];
        for (combination, outputs, value) in cases {
            let trees: Vec<Tree> = (0..7)
                .map(|t| match outputs {
                    1 => random_tree(5, d, 10 + t),
                    _ => classifier_tree(5, d, 10 + t),
                })
                .collect();
            let model = |linear| Trees {
                trees: trees.clone(),
                combination,
                linear,
            };
            let (fast, slow) = (model(true), model(false));
            let games =
                [&fast, &slow].map(|m| ModelGame::new(m, x, background, value, None).unwrap());
            let (a, b) = (
                games[0].values(all.view()).unwrap(),
                games[1].values(all.view()).unwrap(),
            );
            let gap = (&a - &b).mapv(f64::abs).fold(0.0, |m: f64, &v| m.max(v));
            assert!(gap < 1e-12, "{combination:?} {value:?}: gap {gap}");
            assert!(
                a.var(0.0) > 1e-5,
                "{combination:?} {value:?}: the coalitions must differ for the test to mean something ({})",
                a.var(0.0)
            );
            let (pa, pb) = (exact(&games[0]).unwrap(), exact(&games[1]).unwrap());
            assert!((&pa.phi - &pb.phi).mapv(f64::abs).sum() < 1e-11);
        }
    }

    /// By hand: one split on feature 0 at 0.5 (left 1, right 3), x = 0.2 and
    /// background rows 0.9 and 0.1: S ∋ 0 gives 1 for both rows, S ∌ 0 gives
    /// (3 + 1)/2 = 2; the table holds the unconditional 0.5 (row 0.1), 0.5 under
    /// 0 ∈ S and 1.5 under 0 ∉ S.
    #[test]
    fn one_split_by_hand() {
        use crate::shapley::fixtures::{leaf, split};
        let tree = Tree::new(
            vec![split(0, 0.5, 1, 2, 2.0, false), leaf(1.0), leaf(1.0)],
            vec![0.0, 1.0, 3.0],
            1,
        );
        let view = Trees {
            trees: vec![tree],
            combination: Combination::Mean,
            linear: true,
        };
        let x = Array1::from(vec![0.2, 0.0]);
        let background = Array2::from_shape_vec((2, 2), vec![0.9, 0.0, 0.1, 0.0]).unwrap();
        let table = super::CoalitionTable::new(&view, x.view(), background.view()).unwrap();
        assert_eq!(table.entries(), 3);
        let masks =
            Array2::from_shape_vec((3, 2), vec![true, false, false, true, false, false]).unwrap();
        let m = table.combined(masks.view());
        assert_eq!(m.index_axis(Axis(1), 0).to_vec(), vec![1.0, 2.0, 2.0]);
    }
}
