//! The perturbation axis: how the values of one feature are replaced.

use std::sync::Arc;

use ndarray::{Array1, Array2, ArrayView1, ArrayView2, ArrayViewMut1, Axis};
use rand::seq::SliceRandom;
use rand::{Rng, RngExt};
use rand_distr::StandardNormal;
use serde::Deserialize;

use crate::dataset::Dataset;
use crate::error::{CoreError, Result};

/// How the grid of a grid perturbation spans a feature.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GridRange {
    /// Equally spaced from the minimum to the maximum of the feature in the
    /// explained rows (wood2024 §1.1 proposal of PAPERS.md).
    MinMax,
    /// Equally spaced over a fixed interval [lo, hi], the same for every dataset, so
    /// curves of independent replicates can be averaged point by point.
    Fixed(f64, f64),
    /// The feature's sample quantiles at probabilities g/(G − 1), g = 0..G, in the
    /// explained rows (R's type 7, linear between order statistics): as many grid
    /// values where the data is dense as where it is sparse (PAPERS.md §2.7's "20
    /// quantiles of Age in the test set" for the conditional PDP).
    Quantiles,
    /// The feature's sorted unique values in the explained rows, v₁ < … < v_K, however
    /// many there are (`points` is not used): icefi2022's "phantom observations"
    /// (PAPERS.md §3.1), on which each row's ICE curve passes through its own value.
    /// A constant feature has a grid of one value.
    Unique,
}

/// A grid of `points` values per feature.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GridSpec {
    /// Number of grid values (≥ 2; default 20, scikit-learn's `grid_resolution` is
    /// 100); not used with [`GridRange::Unique`].
    #[serde(default = "default_points")]
    pub points: usize,
    /// How the grid spans the feature.
    #[serde(default = "default_range")]
    pub range: GridRange,
}

fn default_range() -> GridRange {
    GridRange::MinMax
}

fn default_points() -> usize {
    20
}

impl Default for GridSpec {
    /// 20 points from the minimum to the maximum.
    fn default() -> Self {
        GridSpec {
            points: default_points(),
            range: default_range(),
        }
    }
}

impl GridSpec {
    /// Checks the settings: at least 2 `points` unless the grid is the unique values.
    pub fn check(&self) -> Result<()> {
        if self.points < 2 && self.range != GridRange::Unique {
            return Err(CoreError::out_of_range(
                "points",
                self.points,
                "at least 2 for a grid",
            ));
        }
        Ok(())
    }

    /// The most grid values a column of `n_rows` rows can give: `points`, or `n_rows`
    /// for [`GridRange::Unique`] (for the memory check before a run).
    pub fn max_len(&self, n_rows: usize) -> usize {
        match self.range {
            GridRange::Unique => n_rows,
            _ => self.points,
        }
    }

    /// The grid values for one column: lo + g·(hi − lo)/(G − 1), g = 0..G, with
    /// [lo, hi] the column's range (`MinMax`) or the fixed interval; or the column's
    /// type-7 quantiles at probabilities g/(G − 1) (`Quantiles`); or its sorted unique
    /// values (`Unique`, missing values skipped).
    pub fn values(&self, column: ArrayView1<'_, f64>) -> Result<Vec<f64>> {
        self.check()?;
        let (lo, hi) = match self.range {
            GridRange::MinMax => (
                column.iter().copied().fold(f64::INFINITY, f64::min),
                column.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            ),
            GridRange::Unique => return unique_values(column),
            GridRange::Fixed(lo, hi) if lo < hi => (lo, hi),
            GridRange::Fixed(lo, hi) => {
                return Err(CoreError::out_of_range(
                    "fixed",
                    format!("[{lo}, {hi}]"),
                    "[lo, hi] with lo < hi",
                ));
            }
            GridRange::Quantiles => {
                if column.is_empty() {
                    return Err(CoreError::Data(
                        "a quantile grid needs at least one row".into(),
                    ));
                }
                let mut sorted = column.to_vec();
                sorted.sort_by(f64::total_cmp);
                let last = (sorted.len().max(1) - 1) as f64;
                return Ok((0..self.points)
                    .map(|g| {
                        let h = last * g as f64 / (self.points - 1) as f64;
                        let (lo, frac) = (h.floor() as usize, h - h.floor());
                        let hi = (lo + 1).min(sorted.len() - 1);
                        sorted[lo] + frac * (sorted[hi] - sorted[lo])
                    })
                    .collect());
            }
        };
        let step = (hi - lo) / (self.points - 1) as f64;
        Ok((0..self.points).map(|g| lo + g as f64 * step).collect())
    }
}

/// The sorted distinct non-missing values of `column` (at least one).
fn unique_values(column: ArrayView1<'_, f64>) -> Result<Vec<f64>> {
    let mut unique: Vec<f64> = column.iter().copied().filter(|v| !v.is_nan()).collect();
    unique.sort_by(f64::total_cmp);
    unique.dedup();
    if unique.is_empty() {
        return Err(CoreError::Data(
            "a grid of unique values needs at least one observed value".into(),
        ));
    }
    Ok(unique)
}

/// A perturbation as written in an experiment: resolved against data by
/// [`PerturbationSpec::resolve`].
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum PerturbationSpec {
    /// Marginal permutation, `repeats` independent permutations.
    Permutation {
        /// Number R of independent permutations (≥ 1; default 5, scikit-learn's
        /// `n_repeats`).
        #[serde(default = "default_repeats")]
        #[schemars(range(min = 1))]
        repeats: usize,
    },
    /// Fixed grid values (PD/ICE).
    Grid(GridSpec),
    /// Draws from the Gaussian conditional X_j | X_−j, with mean and covariance
    /// estimated from the reference (training) rows, `repeats` independent draws.
    ConditionalGaussian {
        /// Number R of independent draws per row (≥ 1; default 5, as a permutation's).
        #[serde(default = "default_repeats")]
        #[schemars(range(min = 1))]
        repeats: usize,
    },
    /// Independent draws from the feature's marginal P(X_j), from the data generating
    /// process itself ("fresh draws": the ideal PFI of molnar2023's simulation, in
    /// place of a permutation), `repeats` draws per row.
    FreshDraws {
        /// Number R of independent draws per row (≥ 1; default 5, as a permutation's).
        #[serde(default = "default_repeats")]
        #[schemars(range(min = 1))]
        repeats: usize,
    },
    /// Conditional subgroups (molnar2023 §2.7, after Molnar et al. 2023, "a
    /// conditional subgroup approach"): a regression tree of X_j on X_−j fitted on the
    /// reference (training) rows splits the explained rows into its leaves, and copy r
    /// permutes x_j among the explained rows of each leaf, so x̃_j keeps (roughly) its
    /// distribution given X_−j.
    ConditionalSubgroups {
        /// Number R of independent permutations (≥ 1; default 5, scikit-learn's
        /// `n_repeats`).
        #[serde(default = "default_repeats")]
        #[schemars(range(min = 1))]
        repeats: usize,
        /// Depth of the tree (molnar2023: 4).
        #[serde(default = "subgroup_depth")]
        #[schemars(range(min = 1, max = 30))]
        max_depth: usize,
        /// Reference rows per leaf at least (molnar2023: 30).
        #[serde(default = "subgroup_leaf")]
        #[schemars(range(min = 1))]
        min_leaf: usize,
    },
}

fn default_repeats() -> usize {
    5
}

impl Default for PerturbationSpec {
    /// The marginal permutation with the default repeats.
    fn default() -> Self {
        PerturbationSpec::Permutation {
            repeats: default_repeats(),
        }
    }
}

fn subgroup_depth() -> usize {
    4
}

fn subgroup_leaf() -> usize {
    30
}

/// Splits rows into subgroups in which a feature is nearly independent of the
/// others: the conditional-subgroups sampler's tree, supplied by a crate that grows
/// trees.
pub trait Subgroups: Send + Sync {
    /// The subgroup of each row of `explained` for feature `feature`: its leaf in a
    /// regression tree of x_feature on the other features, grown on `reference` with
    /// depth ≤ `max_depth` and ≥ `min_leaf` rows per leaf.
    fn assign(
        &self,
        reference: &Dataset,
        explained: &Dataset,
        feature: usize,
        max_depth: usize,
        min_leaf: usize,
    ) -> Result<Vec<usize>>;
}

/// What samplers that need more than the data use: the DGP's marginals (fresh
/// draws) and a tree grower (conditional subgroups).
#[derive(Default, Clone, Copy)]
pub struct Samplers<'a> {
    /// The DGP's own marginal sampler, if the data come from one.
    pub marginals: Option<&'a Marginals>,
    /// The grower of conditional subgroups.
    pub subgroups: Option<&'a dyn Subgroups>,
}

/// Independent draws from each feature's marginal distribution P(X_j), as a data
/// generating process knows it.
pub trait MarginalSampler: Send + Sync {
    /// One draw of feature `feature` from P(X_feature).
    fn draw(&self, feature: usize, rng: &mut dyn Rng) -> f64;
}

/// A shared [`MarginalSampler`] (compared by identity).
#[derive(Clone)]
pub struct Marginals(pub Arc<dyn MarginalSampler>);

impl std::fmt::Debug for Marginals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Marginals(..)")
    }
}

impl PartialEq for Marginals {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl PerturbationSpec {
    /// The perturbation for explaining the rows of `explained` (grids span its
    /// columns); samplers that model the feature distribution are estimated from
    /// `reference` (the training rows); fresh draws come from `samplers.marginals`,
    /// the data generating process's own sampler, and subgroups from
    /// `samplers.subgroups` (an error without them).
    pub fn resolve(
        &self,
        reference: &Dataset,
        explained: &Dataset,
        samplers: &Samplers<'_>,
    ) -> Result<Perturbation> {
        match self {
            PerturbationSpec::Permutation { repeats: 0 }
            | PerturbationSpec::ConditionalGaussian { repeats: 0 }
            | PerturbationSpec::ConditionalSubgroups { repeats: 0, .. }
            | PerturbationSpec::FreshDraws { repeats: 0 } => Err(CoreError::out_of_range(
                "repeats",
                0,
                "at least 1 for a perturbation",
            )),
            PerturbationSpec::ConditionalSubgroups {
                repeats,
                max_depth,
                min_leaf,
            } => {
                let grower = samplers.subgroups.ok_or_else(|| {
                    CoreError::Invalid(
                        "`conditional_subgroups` needs a tree grower for its subgroups".into(),
                    )
                })?;
                let groups = (0..explained.n_features())
                    .map(|j| grower.assign(reference, explained, j, *max_depth, *min_leaf))
                    .collect::<Result<_>>()?;
                Ok(Perturbation::WithinGroups {
                    repeats: *repeats,
                    groups,
                })
            }
            PerturbationSpec::FreshDraws { repeats } => match samplers.marginals {
                Some(m) => Ok(Perturbation::FreshDraws {
                    repeats: *repeats,
                    marginals: m.clone(),
                }),
                None => Err(CoreError::Invalid(
                    "`fresh_draws` needs a DGP that draws each feature from its marginal; \
                     this data has none (use `permutation` for real data)"
                        .into(),
                )),
            },
            PerturbationSpec::ConditionalGaussian { repeats } => {
                gaussian_conditional(reference, *repeats)
            }
            PerturbationSpec::Permutation { repeats } => {
                Ok(Perturbation::Permutation { repeats: *repeats })
            }
            PerturbationSpec::Grid(spec) => Ok(Perturbation::Grid {
                values: explained
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
    /// Copy r draws x̃_j ~ N(μ_j − Σ_{k≠j} Λ_jk·(x_k − μ_k)/Λ_jj, 1/Λ_jj) for each row:
    /// the Gaussian conditional X_j | X_−j with mean μ and precision Λ = Σ⁻¹
    /// (wood2024 Eq. 7, the conditional sampler of Prop. 3).
    ConditionalGaussian {
        /// Number of draws R.
        repeats: usize,
        /// Feature means μ.
        mean: Array1<f64>,
        /// Precision matrix Λ.
        precision: Array2<f64>,
    },
    /// Copy r permutes x_j among the rows of each group, `groups[j][i]` the group of
    /// row i for feature j (conditional subgroups).
    WithinGroups {
        /// Number of copies R.
        repeats: usize,
        /// Per feature, each row's group.
        groups: Vec<Vec<usize>>,
    },
    /// Copy r draws x̃_j ~ P(X_j) independently for each row, from the DGP's sampler.
    FreshDraws {
        /// Number of draws R.
        repeats: usize,
        /// The DGP's marginals.
        marginals: Marginals,
    },
}

/// The Gaussian conditional sampler of `reference`'s sample mean and covariance
/// (divisor n − 1); fails, naming the cure, if the covariance is singular.
fn gaussian_conditional(reference: &Dataset, repeats: usize) -> Result<Perturbation> {
    let x = reference.x();
    let n = x.nrows();
    let mean = x
        .mean_axis(Axis(0))
        .ok_or_else(|| CoreError::Data("no reference rows".into()))?;
    let centred = &x - &mean;
    let cov = centred.t().dot(&centred) / (n.max(2) - 1) as f64;
    let d = cov.nrows();
    let mat = faer::Mat::<f64>::from_fn(d, d, |i, j| cov[[i, j]]);
    let llt = mat.llt(faer::Side::Lower).map_err(|_| {
        CoreError::Numerical(
            "the covariance of the reference features is singular (a feature is constant or a \
             copy of others): the Gaussian conditional sampler needs full rank"
                .into(),
        )
    })?;
    let inv = faer::linalg::solvers::DenseSolveCore::inverse(&llt);
    Ok(Perturbation::ConditionalGaussian {
        repeats,
        mean,
        precision: Array2::from_shape_fn((d, d), |(i, j)| inv[(i, j)]),
    })
}

impl Perturbation {
    /// Number of perturbed copies of feature `feature`.
    pub fn copies(&self, feature: usize) -> usize {
        match self {
            Perturbation::Permutation { repeats } => *repeats,
            Perturbation::Grid { values } => values[feature].len(),
            Perturbation::Orders { orders } => orders[feature].len(),
            Perturbation::ConditionalGaussian { repeats, .. }
            | Perturbation::WithinGroups { repeats, .. }
            | Perturbation::FreshDraws { repeats, .. } => *repeats,
        }
    }

    /// Writes copy `copy` of feature `feature` of the explained rows `original` into
    /// `out`: the values that replace column `feature`, one per row.
    pub fn apply<R: Rng>(
        &self,
        original: ArrayView2<'_, f64>,
        feature: usize,
        copy: usize,
        mut out: ArrayViewMut1<'_, f64>,
        rng: &mut R,
    ) {
        let column = original.column(feature);
        match self {
            Perturbation::Permutation { .. } => {
                let mut order: Vec<usize> = (0..column.len()).collect();
                order.shuffle(rng);
                for (o, &i) in out.iter_mut().zip(&order) {
                    *o = column[i];
                }
            }
            Perturbation::WithinGroups { groups, .. } => {
                let mut members: Vec<(usize, usize)> = groups[feature]
                    .iter()
                    .copied()
                    .zip(0..column.len())
                    .collect();
                members.sort_unstable();
                for group in members.chunk_by(|a, b| a.0 == b.0) {
                    let rows: Vec<usize> = group.iter().map(|m| m.1).collect();
                    let mut order = rows.clone();
                    order.shuffle(rng);
                    for (&i, &from) in rows.iter().zip(&order) {
                        out[i] = column[from];
                    }
                }
            }
            Perturbation::Grid { values } => out.fill(values[feature][copy]),
            Perturbation::Orders { orders } => {
                for (o, &i) in out.iter_mut().zip(&orders[feature][copy]) {
                    *o = column[i];
                }
            }
            Perturbation::ConditionalGaussian {
                mean, precision, ..
            } => {
                let lambda = precision.row(feature);
                let sd = lambda[feature].recip().sqrt();
                for (o, row) in out.iter_mut().zip(original.rows()) {
                    let shift: f64 = (0..row.len())
                        .filter(|&k| k != feature)
                        .map(|k| lambda[k] * (row[k] - mean[k]))
                        .sum();
                    let z: f64 = rng.sample(StandardNormal);
                    *o = mean[feature] - shift / lambda[feature] + sd * z;
                }
            }
            Perturbation::FreshDraws { marginals, .. } => {
                for o in out.iter_mut() {
                    *o = marginals.0.draw(feature, rng);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream_rng;
    use ndarray::array;

    #[test]
    fn a_quantile_grid_interpolates_between_order_statistics_as_r_type_7() {
        // R: quantile(c(5, 1, 4, 2, 3, 10), probs = c(0, 1/3, 2/3, 1)) = 1, 2.6667, 4.3333, 10.
        let g = GridSpec {
            points: 4,
            range: GridRange::Quantiles,
        };
        let v = g
            .values(ndarray::array![5.0, 1.0, 4.0, 2.0, 3.0, 10.0].view())
            .unwrap();
        for (got, want) in v.iter().zip([1.0, 8.0 / 3.0, 13.0 / 3.0, 10.0]) {
            assert!((got - want).abs() < 1e-12, "{v:?}");
        }
    }

    #[test]
    fn permutation_keeps_the_multiset() {
        let x = array![[1.0], [2.0], [3.0], [4.0], [5.0]];
        let mut out = Array1::zeros(5);
        let p = Perturbation::Permutation { repeats: 1 };
        p.apply(x.view(), 0, 0, out.view_mut(), &mut stream_rng(1, 0));
        let mut sorted = out.to_vec();
        sorted.sort_by(f64::total_cmp);
        assert_eq!(sorted, x.column(0).to_vec());
    }

    #[test]
    fn conditional_gaussian_draws_have_the_conditional_moments() {
        // (X1, X2) standard normal with correlation 0.8: X1 | X2 = x2 ~ N(0.8·x2, 0.36).
        let mut rng = stream_rng(3, 0);
        let reference = crate::test_models::normal_design(20_000, &[1.0, 1.0], 0.8, &mut rng);
        let data = Dataset::new(
            reference,
            crate::Target::Continuous(Array1::zeros(20_000)),
            vec!["a".into(), "b".into()],
        )
        .unwrap();
        let p = PerturbationSpec::ConditionalGaussian { repeats: 1 }
            .resolve(&data, &data, &Samplers::default())
            .unwrap();
        let x = Array2::from_shape_fn((20_000, 2), |(_, j)| if j == 1 { 1.5 } else { 0.0 });
        let mut draws = Array1::zeros(20_000);
        p.apply(x.view(), 0, 0, draws.view_mut(), &mut rng);
        let m = draws.mean().unwrap();
        let v = draws.var(1.0);
        // MC sd of the mean ≈ 0.6/√20000 = 0.004; sample-estimated ρ adds ~0.006.
        assert!((m - 1.2).abs() < 0.03, "mean {m}");
        assert!((v - 0.36).abs() < 0.02, "variance {v}");
    }

    #[test]
    fn conditional_gaussian_rejects_a_singular_covariance() {
        let x = array![[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]];
        let data = Dataset::new(
            x,
            crate::Target::Continuous(Array1::zeros(3)),
            vec!["a".into(), "b".into()],
        )
        .unwrap();
        let err = PerturbationSpec::ConditionalGaussian { repeats: 1 }
            .resolve(&data, &data, &Samplers::default())
            .unwrap_err();
        assert!(err.to_string().contains("singular"), "{err}");
    }

    /// X_j ~ U[j, j + 1].
    struct Shifted;

    impl MarginalSampler for Shifted {
        fn draw(&self, feature: usize, rng: &mut dyn Rng) -> f64 {
            feature as f64 + rng.random::<f64>()
        }
    }

    #[test]
    fn fresh_draws_come_from_the_marginal_and_ignore_the_rows() {
        let x = Array2::from_elem((4000, 2), 100.0);
        let data = Dataset::new(
            x.clone(),
            crate::Target::Continuous(Array1::zeros(4000)),
            vec!["a".into(), "b".into()],
        )
        .unwrap();
        let spec = PerturbationSpec::FreshDraws { repeats: 3 };
        let err = spec
            .resolve(&data, &data, &Samplers::default())
            .unwrap_err();
        assert!(err.to_string().contains("fresh_draws"), "{err}");
        let p = spec
            .resolve(
                &data,
                &data,
                &Samplers {
                    marginals: Some(&Marginals(Arc::new(Shifted))),
                    subgroups: None,
                },
            )
            .unwrap();
        assert_eq!(p.copies(1), 3);
        let mut draws = Array1::zeros(4000);
        p.apply(x.view(), 1, 0, draws.view_mut(), &mut stream_rng(5, 0));
        // Draws from U[1, 2], whatever the rows hold (100).
        assert!(draws.iter().all(|&v| (1.0..2.0).contains(&v)));
        // Mean of U[1, 2] is 1.5; sd of the mean of 4000 draws ≈ 0.0046.
        assert!((draws.mean().unwrap() - 1.5).abs() < 0.02);
    }

    /// The unique grid is the sorted distinct observed values, `points` unused; a
    /// constant column gives one value, a column with nothing observed an error.
    #[test]
    fn unique_grid() {
        let unique = GridSpec {
            points: 0,
            range: GridRange::Unique,
        };
        let column = array![2.0, -1.0, 2.0, f64::NAN, 0.5, -1.0];
        assert_eq!(unique.values(column.view()).unwrap(), vec![-1.0, 0.5, 2.0]);
        assert_eq!(unique.values(array![3.0, 3.0].view()).unwrap(), vec![3.0]);
        assert!(unique.values(array![f64::NAN].view()).is_err());
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
        let fixed = GridSpec {
            points: 5,
            range: GridRange::Fixed(-1.0, 1.0),
        };
        assert_eq!(
            fixed.values(array![7.0].view()).unwrap(),
            vec![-1.0, -0.5, 0.0, 0.5, 1.0]
        );
    }
}
