//! The tree of the conditional-subgroups sampler (molnar2023 §2.7, issue 13): for
//! feature j an rpart regression tree ("anova") of x_j on the other features, grown
//! on the reference (training) rows with maxdepth = `max_depth`, minbucket =
//! `min_leaf`, minsplit = 2·`min_leaf` and cp = 0 (no pruning: the depth and leaf
//! size alone bound the subgroups); a row's subgroup is its leaf.

use ndarray::Axis;
use xai_core::error::Result;
use xai_core::{Dataset, Subgroups, TreeEnsembleView};

use crate::kind::LearnerKind;
use crate::rpart::{RpartLearner, RpartParams};

/// Subgroups from rpart regression trees ([`xai_core::Subgroups`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct RpartSubgroups;

impl Subgroups for RpartSubgroups {
    fn assign(
        &self,
        reference: &Dataset,
        explained: &Dataset,
        feature: usize,
        max_depth: usize,
        min_leaf: usize,
    ) -> Result<Vec<usize>> {
        let params = RpartParams {
            cp: 0.0,
            minsplit: Some(2 * min_leaf),
            minbucket: Some(min_leaf),
            maxdepth: max_depth,
        };
        params.validate()?;
        let others: Vec<usize> = (0..reference.n_features())
            .filter(|&k| k != feature)
            .collect();
        let x = reference.x().select(Axis(1), &others);
        let y = reference.x().column(feature).to_vec();
        let forest = RpartLearner(params).fit_tree(x.view(), &y);
        let tree = &forest.trees()[0];
        let explained = explained.x().select(Axis(1), &others);
        Ok(explained.rows().into_iter().map(|r| tree.leaf(r)).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array2;
    use rand::RngExt;
    use rand_distr::StandardNormal;
    use xai_core::perturbation::{PerturbationSpec, Samplers};
    use xai_core::rng::stream_rng;
    use xai_core::statistic::Statistic;
    use xai_core::{Learner, Target};

    /// x1, x3 ~ N(0, 1); x2 = x1 + N(0, 0.1²); y = x2 + x3 + N(0, 0.1²).
    fn dependent(n: usize, seed: u64) -> Dataset {
        let mut rng = stream_rng(seed, 0);
        let mut x = Array2::zeros((n, 3));
        let mut y = Vec::with_capacity(n);
        for mut row in x.rows_mut() {
            let z: [f64; 4] = std::array::from_fn(|_| rng.sample(StandardNormal));
            row[0] = z[0];
            row[1] = z[0] + 0.1 * z[1];
            row[2] = z[2];
            y.push(row[1] + row[2] + 0.1 * z[3]);
        }
        let names = (1..=3).map(|j| format!("X{j}")).collect();
        Dataset::new(x, Target::Continuous(y.into()), names).unwrap()
    }

    #[test]
    fn conditional_pfi_of_a_near_copy_is_near_zero_where_the_marginal_is_large() {
        // lm on y = x2 + x3 + ε with x2 ≈ x1: permuting x2 marginally breaks the model
        // (PFI ≈ 2·β²·Var(X2) ≈ 2), but within the leaves of x2's tree on (x1, x3)
        // x2 barely moves (its spread is x1's within a leaf plus 0.1²), so its
        // conditional PFI is a few percent of that; the independent x3 keeps its PFI.
        let (train, test) = (dependent(2000, 1), dependent(2000, 2));
        let model = crate::LmLearner::default()
            .fit(&train, &mut stream_rng(0, 0))
            .unwrap();
        let samplers = Samplers {
            marginals: None,
            subgroups: Some(&RpartSubgroups),
        };
        let pfi = |spec: PerturbationSpec| {
            let p = spec.resolve(&train, &test, &samplers).unwrap();
            xai_core::pfi::pfi(
                model.as_ref(),
                &test,
                &[0, 1, 2],
                &p,
                &[Statistic::SquaredError],
                5,
                0.95,
            )
            .unwrap()
            .remove(0)
        };
        let marginal = pfi(PerturbationSpec::Permutation { repeats: 5 });
        let conditional = pfi(PerturbationSpec::ConditionalSubgroups {
            repeats: 5,
            max_depth: 4,
            min_leaf: 30,
        });
        let (m, c) = (&marginal[1].estimate, &conditional[1].estimate);
        assert!(m.estimate > 1.5, "marginal PFI of x2: {m:?}");
        assert!(c.estimate < 0.1 * m.estimate, "conditional {c:?} vs {m:?}");
        let (m3, c3) = (
            marginal[2].estimate.estimate,
            conditional[2].estimate.estimate,
        );
        assert!((c3 - m3).abs() < 0.15 * m3, "x3 independent: {c3} vs {m3}");
    }

    #[test]
    fn a_row_takes_its_value_from_a_row_of_its_own_leaf() {
        let (train, test) = (dependent(600, 3), dependent(300, 4));
        let groups = RpartSubgroups.assign(&train, &test, 1, 4, 30).unwrap();
        let distinct: std::collections::BTreeSet<usize> = groups.iter().copied().collect();
        assert!(distinct.len() > 4 && distinct.len() <= 16, "{distinct:?}");
        let p = xai_core::Perturbation::WithinGroups {
            repeats: 1,
            groups: vec![vec![0; 300], groups.clone(), vec![0; 300]],
        };
        let mut out = ndarray::Array1::zeros(300);
        p.apply(test.x(), 1, 0, out.view_mut(), &mut stream_rng(5, 0));
        let x = test.x();
        let column = x.column(1);
        let mut moved = 0;
        for (i, v) in out.iter().enumerate() {
            let from = column.iter().position(|c| c == v).unwrap();
            assert_eq!(groups[from], groups[i], "row {i} drew from another leaf");
            moved += usize::from(from != i);
        }
        assert!(
            moved > 250,
            "a permutation within leaves moves most rows: {moved}"
        );
    }
}
