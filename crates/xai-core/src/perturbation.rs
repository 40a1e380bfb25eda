//! The perturbation axis: how the values of one feature are replaced.

use ndarray::{ArrayView1, ArrayViewMut1};
use rand::Rng;
use rand::seq::SliceRandom;
use serde::Deserialize;

use crate::dataset::Dataset;
use crate::error::{CoreError, Result};

/// How the grid of a grid perturbation spans a feature.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GridRange {
    /// Equally spaced from the minimum to the maximum of the feature in the
    /// explained rows (wood2024 §1.1 proposal of PAPERS.md).
    MinMax,
}

/// A grid of `points` values per feature.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GridSpec {
    /// Number of grid values (≥ 2).
    pub points: usize,
    /// How the grid spans the feature.
    #[serde(default = "default_range")]
    pub range: GridRange,
}

fn default_range() -> GridRange {
    GridRange::MinMax
}

impl GridSpec {
    /// The grid values for one column: for `MinMax`, x_min + g·(x_max − x_min)/(G − 1),
    /// g = 0..G.
    pub fn values(&self, column: ArrayView1<'_, f64>) -> Result<Vec<f64>> {
        if self.points < 2 {
            return Err(CoreError::Invalid(format!(
                "a grid needs at least 2 points, got {}",
                self.points
            )));
        }
        let lo = column.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = column.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let step = (hi - lo) / (self.points - 1) as f64;
        Ok((0..self.points).map(|g| lo + g as f64 * step).collect())
    }
}

/// A perturbation as written in an experiment: resolved against data by
/// [`PerturbationSpec::resolve`].
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum PerturbationSpec {
    /// Marginal permutation, `repeats` independent permutations.
    Permutation {
        /// Number R of independent permutations (≥ 1).
        repeats: usize,
    },
    /// Fixed grid values (PD/ICE).
    Grid(GridSpec),
}

impl PerturbationSpec {
    /// The perturbation for explaining the rows of `data` (grids span its columns).
    pub fn resolve(&self, data: &Dataset) -> Result<Perturbation> {
        match self {
            PerturbationSpec::Permutation { repeats: 0 } => Err(CoreError::Invalid(
                "permutation repeats must be at least 1".into(),
            )),
            PerturbationSpec::Permutation { repeats } => {
                Ok(Perturbation::Permutation { repeats: *repeats })
            }
            PerturbationSpec::Grid(spec) => Ok(Perturbation::Grid {
                values: data
                    .x()
                    .columns()
                    .into_iter()
                    .map(|c| spec.values(c))
                    .collect::<Result<_>>()?,
            }),
        }
    }
}

/// A resolved perturbation: produces `copies` perturbed versions of a feature column.
#[derive(Debug, Clone, PartialEq)]
pub enum Perturbation {
    /// Copy r replaces x_j by an independent uniform random permutation of the
    /// column (marginal sampler; wood2024 §3, molnar2023 Eq. 4).
    Permutation {
        /// Number of copies R.
        repeats: usize,
    },
    /// Copy g sets x_j := values[j][g] in every row (wood2024 Eq. 3–4, 8–10).
    Grid {
        /// One grid per feature column.
        values: Vec<Vec<f64>>,
    },
    /// Copy r sets row i's x_j to the original x_j of row orders[j][r][i]: given
    /// permutations, to replay another implementation's random draws exactly.
    Orders {
        /// `orders[j][r]` is a permutation of the rows.
        orders: Vec<Vec<Vec<usize>>>,
    },
}

impl Perturbation {
    /// Number of perturbed copies of feature `feature`.
    pub fn copies(&self, feature: usize) -> usize {
        match self {
            Perturbation::Permutation { repeats } => *repeats,
            Perturbation::Grid { values } => values[feature].len(),
            Perturbation::Orders { orders } => orders[feature].len(),
        }
    }

    /// Writes copy `copy` of feature `feature` into `out`, given the original column.
    pub fn apply<R: Rng + ?Sized>(
        &self,
        original: ArrayView1<'_, f64>,
        feature: usize,
        copy: usize,
        mut out: ArrayViewMut1<'_, f64>,
        rng: &mut R,
    ) {
        match self {
            Perturbation::Permutation { .. } => {
                let mut order: Vec<usize> = (0..original.len()).collect();
                order.shuffle(rng);
                for (o, &i) in out.iter_mut().zip(&order) {
                    *o = original[i];
                }
            }
            Perturbation::Grid { values } => out.fill(values[feature][copy]),
            Perturbation::Orders { orders } => {
                for (o, &i) in out.iter_mut().zip(&orders[feature][copy]) {
                    *o = original[i];
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream_rng;
    use ndarray::{Array1, array};

    #[test]
    fn permutation_keeps_the_multiset() {
        let col = array![1.0, 2.0, 3.0, 4.0, 5.0];
        let mut out = Array1::zeros(5);
        let p = Perturbation::Permutation { repeats: 1 };
        p.apply(col.view(), 0, 0, out.view_mut(), &mut stream_rng(1, 0));
        let mut sorted = out.to_vec();
        sorted.sort_by(f64::total_cmp);
        assert_eq!(sorted, col.to_vec());
    }

    #[test]
    fn min_max_grid() {
        let g = GridSpec {
            points: 3,
            range: GridRange::MinMax,
        };
        assert_eq!(
            g.values(array![2.0, -1.0, 5.0].view()).unwrap(),
            vec![-1.0, 2.0, 5.0]
        );
        let one = GridSpec { points: 1, ..g };
        assert!(one.values(array![1.0].view()).is_err());
    }
}
