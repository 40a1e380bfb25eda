//! The dataset type shared by learners, explanation methods and DGPs.

use std::borrow::Cow;

use ndarray::{Array1, Array2, ArrayView2, Axis};
use rand::Rng;

use crate::error::{CoreError, Result};

/// The response of a dataset.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// A real-valued response (regression).
    Continuous(Array1<f64>),
    /// Class indices `0..n_classes` (classification).
    Classes {
        /// One class index per row.
        labels: Array1<usize>,
        /// Number of classes k; every label is below k.
        n_classes: usize,
    },
}

impl Target {
    /// Number of rows.
    pub fn len(&self) -> usize {
        match self {
            Target::Continuous(y) => y.len(),
            Target::Classes { labels, .. } => labels.len(),
        }
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The rows `rows`, in that order (repeats allowed).
    pub fn select(&self, rows: &[usize]) -> Target {
        match self {
            Target::Continuous(y) => Target::Continuous(y.select(Axis(0), rows)),
            Target::Classes { labels, n_classes } => Target::Classes {
                labels: labels.select(Axis(0), rows),
                n_classes: *n_classes,
            },
        }
    }

    /// The target repeated `times` times end to end (rows of copy c are `c·n..(c+1)·n`),
    /// matching a design matrix made of `times` stacked perturbed copies.
    pub fn tile(&self, times: usize) -> Target {
        let n = self.len();
        let rows: Vec<usize> = (0..times * n).map(|i| i % n).collect();
        self.select(&rows)
    }
}

/// What values a feature takes.
#[derive(Debug, Clone, PartialEq)]
pub enum FeatureKind {
    /// Real-valued.
    Continuous,
    /// Integer codes `0..levels.len()` of named levels.
    Categorical {
        /// The level names, indexed by code.
        levels: Vec<String>,
    },
}

/// A design matrix with its target, feature names and kinds.
///
/// Invariants (checked by [`Dataset::new`]): `x` has one row per target value, one
/// name and kind per column, and every value is finite, except missing cells (NaN:
/// those [`Dataset::with_missing_cells`] blanks or [`Dataset::with_missing_values`]
/// accepts), for learners that handle missing values natively (gradient boosting).
///
/// A dataset under covariate shift ([`Dataset::with_shift`]) remembers one column's
/// values before the shift, so that a model deployed before it (not refitted) can be
/// fitted on [`Dataset::before_shift`].
#[derive(Debug, Clone, PartialEq)]
pub struct Dataset {
    x: Array2<f64>,
    y: Target,
    feature_names: Vec<String>,
    feature_kinds: Vec<FeatureKind>,
    unshifted: Option<(usize, Array1<f64>)>,
}

impl Dataset {
    /// A dataset of continuous features. Fails on mismatched sizes or a NaN/∞ value
    /// (naming its row and column).
    pub fn new(x: Array2<f64>, y: Target, feature_names: Vec<String>) -> Result<Self> {
        let kinds = vec![FeatureKind::Continuous; x.ncols()];
        Self::with_kinds(x, y, feature_names, kinds)
    }

    /// A dataset with explicit feature kinds.
    pub fn with_kinds(
        x: Array2<f64>,
        y: Target,
        feature_names: Vec<String>,
        feature_kinds: Vec<FeatureKind>,
    ) -> Result<Self> {
        check_finite("features", x.view())?;
        Self::build(x, y, feature_names, feature_kinds)
    }

    /// As [`Dataset::with_kinds`], but a NaN feature value is accepted and means a
    /// missing cell (a real dataset read with `missing: keep`, for learners that handle
    /// missing values natively, watson2023 §6); ±∞ is still refused.
    pub fn with_missing_values(
        x: Array2<f64>,
        y: Target,
        feature_names: Vec<String>,
        feature_kinds: Vec<FeatureKind>,
    ) -> Result<Self> {
        if let Some(((row, column), &value)) = x.indexed_iter().find(|(_, v)| v.is_infinite()) {
            return Err(CoreError::NonFinite {
                what: "features",
                row,
                column,
                value,
            });
        }
        Self::build(x, y, feature_names, feature_kinds)
    }

    fn build(
        x: Array2<f64>,
        y: Target,
        feature_names: Vec<String>,
        feature_kinds: Vec<FeatureKind>,
    ) -> Result<Self> {
        if x.nrows() != y.len() {
            return Err(CoreError::Shape(format!(
                "{} rows of features but {} target values",
                x.nrows(),
                y.len()
            )));
        }
        if feature_names.len() != x.ncols() || feature_kinds.len() != x.ncols() {
            return Err(CoreError::Shape(format!(
                "{} columns but {} names and {} kinds",
                x.ncols(),
                feature_names.len(),
                feature_kinds.len()
            )));
        }
        match &y {
            Target::Continuous(v) => {
                check_finite("target", v.view().insert_axis(Axis(1)))?;
            }
            Target::Classes { labels, n_classes } => {
                if let Some(row) = labels.iter().position(|&c| c >= *n_classes) {
                    return Err(CoreError::Data(format!(
                        "class label {} at row {row} is not below n_classes = {n_classes}",
                        labels[row]
                    )));
                }
            }
        }
        Ok(Self {
            x,
            y,
            feature_names,
            feature_kinds,
            unshifted: None,
        })
    }

    /// The design matrix (n × d).
    pub fn x(&self) -> ArrayView2<'_, f64> {
        self.x.view()
    }

    /// The target.
    pub fn y(&self) -> &Target {
        &self.y
    }

    /// Feature names, one per column.
    pub fn feature_names(&self) -> &[String] {
        &self.feature_names
    }

    /// Feature kinds, one per column.
    pub fn feature_kinds(&self) -> &[FeatureKind] {
        &self.feature_kinds
    }

    /// Number of rows n.
    pub fn n_rows(&self) -> usize {
        self.x.nrows()
    }

    /// Number of features d.
    pub fn n_features(&self) -> usize {
        self.x.ncols()
    }

    /// The rows of `self` followed by those of `other`, which must have the same
    /// features and kind of target.
    pub fn stack(&self, other: &Dataset) -> Result<Dataset> {
        let mismatch =
            || CoreError::Invalid("datasets to stack differ in their features or target".into());
        if self.feature_names != other.feature_names || self.feature_kinds != other.feature_kinds {
            return Err(mismatch());
        }
        let y = match (&self.y, &other.y) {
            (Target::Continuous(a), Target::Continuous(b)) => Target::Continuous(
                ndarray::concatenate(Axis(0), &[a.view(), b.view()]).expect("1-D"),
            ),
            (
                Target::Classes {
                    labels: a,
                    n_classes,
                },
                Target::Classes {
                    labels: b,
                    n_classes: m,
                },
            ) if n_classes == m => Target::Classes {
                labels: ndarray::concatenate(Axis(0), &[a.view(), b.view()]).expect("1-D"),
                n_classes: *n_classes,
            },
            _ => return Err(mismatch()),
        };
        let unshifted = match (&self.unshifted, &other.unshifted) {
            (None, None) => None,
            (Some((j, a)), Some((k, b))) if j == k => Some((
                *j,
                ndarray::concatenate(Axis(0), &[a.view(), b.view()]).expect("1-D"),
            )),
            _ => {
                return Err(CoreError::Invalid(
                    "datasets to stack differ in their covariate shift".into(),
                ));
            }
        };
        Ok(Dataset {
            x: ndarray::concatenate(Axis(0), &[self.x.view(), other.x.view()])
                .map_err(|_| mismatch())?,
            y,
            feature_names: self.feature_names.clone(),
            feature_kinds: self.feature_kinds.clone(),
            unshifted,
        })
    }

    /// A copy with round(fraction·n) cells of every column missing (NaN), chosen
    /// uniformly at random without replacement, column after column (missing
    /// completely at random; watson2023 Fig. 3b deletes a share of each column's
    /// cells). Fails for a fraction outside [0, 1].
    pub fn with_missing_cells<R: Rng + ?Sized>(
        &self,
        fraction: f64,
        rng: &mut R,
    ) -> Result<Dataset> {
        if !(0.0..=1.0).contains(&fraction) {
            return Err(CoreError::out_of_range(
                "missing_cells",
                fraction,
                "a share in [0, 1]",
            ));
        }
        let n = self.n_rows();
        let k = (fraction * n as f64).round() as usize;
        let mut x = self.x.clone();
        let mut unshifted = self.unshifted.clone();
        for (j, mut column) in x.columns_mut().into_iter().enumerate() {
            for i in rand::seq::index::sample(rng, n, k) {
                column[i] = f64::NAN;
                // A shifted column's cell is missing before the shift too.
                if let Some((_, before)) = unshifted.as_mut().filter(|(s, _)| *s == j) {
                    before[i] = f64::NAN;
                }
            }
        }
        Ok(Dataset {
            x,
            unshifted,
            ..self.clone()
        })
    }

    /// The number of missing (NaN) cells.
    pub fn missing_cells(&self) -> usize {
        self.x.iter().filter(|v| v.is_nan()).count()
    }

    /// The rows `rows`, in that order (repeats allowed, as a bootstrap needs).
    pub fn select_rows(&self, rows: &[usize]) -> Dataset {
        Dataset {
            x: self.x.select(Axis(0), rows),
            y: self.y.select(rows),
            feature_names: self.feature_names.clone(),
            feature_kinds: self.feature_kinds.clone(),
            unshifted: self
                .unshifted
                .as_ref()
                .map(|(j, v)| (*j, v.select(Axis(0), rows))),
        }
    }

    /// The same rows with another target (of as many rows): a second-stage model's
    /// label, such as the entropy of a first model's predictions (watson2023 §6).
    pub fn with_target(&self, y: Target) -> Result<Dataset> {
        if y.len() != self.n_rows() {
            return Err(CoreError::Shape(format!(
                "{} rows of features but {} target values",
                self.n_rows(),
                y.len()
            )));
        }
        Ok(Dataset { y, ..self.clone() })
    }

    /// A covariate shift: `noise[i]` added to feature `feature` of row i (a missing
    /// cell stays missing), remembering the column as it was (watson2023 §6, Fig. 2:
    /// Gaussian noise on one feature of every row). Shifting an already shifted
    /// column again keeps its values before the first shift; shifting a second
    /// column is refused.
    pub fn with_shift(&self, feature: usize, noise: &[f64]) -> Result<Dataset> {
        if feature >= self.n_features() || noise.len() != self.n_rows() {
            return Err(CoreError::Shape(format!(
                "a shift of feature {feature} by {} values, for {} rows and {} features",
                noise.len(),
                self.n_rows(),
                self.n_features()
            )));
        }
        let unshifted = match &self.unshifted {
            Some((j, _)) if *j != feature => {
                return Err(CoreError::Invalid(format!(
                    "feature {j} is shifted already; one shifted feature is supported"
                )));
            }
            Some(kept) => kept.clone(),
            None => (feature, self.x.column(feature).to_owned()),
        };
        let mut x = self.x.clone();
        x.column_mut(feature)
            .iter_mut()
            .zip(noise)
            .for_each(|(v, e)| *v += e);
        check_finite_or_missing(x.column(feature))?;
        Ok(Dataset {
            x,
            unshifted: Some(unshifted),
            ..self.clone()
        })
    }

    /// The rows as they were before [`Dataset::with_shift`] (`self` if unshifted).
    pub fn before_shift(&self) -> Cow<'_, Dataset> {
        match &self.unshifted {
            None => Cow::Borrowed(self),
            Some((j, column)) => {
                let mut x = self.x.clone();
                x.column_mut(*j).assign(column);
                Cow::Owned(Dataset {
                    x,
                    unshifted: None,
                    ..self.clone()
                })
            }
        }
    }
}

/// Fails if a shifted column holds ±∞ (noise too large for f64).
fn check_finite_or_missing(column: ndarray::ArrayView1<'_, f64>) -> Result<()> {
    match column.iter().position(|v| v.is_infinite()) {
        Some(row) => Err(CoreError::Numerical(format!(
            "the shift makes row {row} infinite"
        ))),
        None => Ok(()),
    }
}

/// Fails with the first non-finite entry of `x`, naming its row and column.
pub fn check_finite(what: &'static str, x: ArrayView2<'_, f64>) -> Result<()> {
    for ((row, column), &value) in x.indexed_iter() {
        if !value.is_finite() {
            return Err(CoreError::NonFinite {
                what,
                row,
                column,
                value,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    fn names(d: usize) -> Vec<String> {
        (1..=d).map(|j| format!("X{j}")).collect()
    }

    #[test]
    fn rejects_nan_with_its_position() {
        let x = array![[1.0, 2.0], [3.0, f64::NAN]];
        let err = Dataset::new(x, Target::Continuous(array![0.0, 1.0]), names(2)).unwrap_err();
        assert!(matches!(
            err,
            CoreError::NonFinite {
                row: 1,
                column: 1,
                ..
            }
        ));
    }

    #[test]
    fn rejects_mismatched_rows_and_bad_labels() {
        let x = array![[1.0], [2.0]];
        assert!(Dataset::new(x.clone(), Target::Continuous(array![0.0]), names(1)).is_err());
        let y = Target::Classes {
            labels: array![0, 2],
            n_classes: 2,
        };
        assert!(Dataset::new(x, y, names(1)).is_err());
    }

    /// Exactly round(f·n) cells of each column go missing, and which ones depends on
    /// the RNG only.
    #[test]
    fn missing_cells_take_the_share_of_every_column() {
        let x = ndarray::Array2::from_shape_fn((50, 3), |(i, j)| (i * 3 + j) as f64);
        let d = Dataset::new(x, Target::Continuous(ndarray::Array1::zeros(50)), names(3)).unwrap();
        let m = d
            .with_missing_cells(0.1, &mut crate::rng::stream_rng(1, 0))
            .unwrap();
        for c in m.x().columns() {
            assert_eq!(c.iter().filter(|v| v.is_nan()).count(), 5);
        }
        assert_eq!(m.missing_cells(), 15);
        assert_eq!(d.missing_cells(), 0);
        let again = d
            .with_missing_cells(0.1, &mut crate::rng::stream_rng(1, 0))
            .unwrap();
        assert_eq!(format!("{:?}", m.x()), format!("{:?}", again.x()));
        assert!(
            d.with_missing_cells(1.5, &mut crate::rng::stream_rng(1, 0))
                .is_err()
        );
    }

    #[test]
    fn select_and_tile_keep_rows_aligned() {
        let x = array![[1.0], [2.0], [3.0]];
        let d = Dataset::new(x, Target::Continuous(array![10.0, 20.0, 30.0]), names(1)).unwrap();
        let s = d.select_rows(&[2, 0, 2]);
        assert_eq!(s.x().column(0).to_vec(), vec![3.0, 1.0, 3.0]);
        assert_eq!(s.y(), &Target::Continuous(array![30.0, 10.0, 30.0]));
        assert_eq!(
            d.y().tile(2),
            Target::Continuous(array![10.0, 20.0, 30.0, 10.0, 20.0, 30.0])
        );
    }

    /// A shift moves one column only; the rows before it come back bit for bit, also
    /// after selecting rows and stacking; a missing cell stays missing.
    #[test]
    fn a_shift_remembers_the_column_it_moved() {
        let x = array![[0.1, 5.0], [f64::NAN, 6.0], [0.3, 7.0]];
        let y = Target::Continuous(array![1.0, 2.0, 3.0]);
        let d =
            Dataset::with_missing_values(x.clone(), y, names(2), vec![FeatureKind::Continuous; 2])
                .unwrap();
        let noise = [0.7, 0.2, 1e-3];
        let s = d.with_shift(0, &noise).unwrap();
        assert_eq!(s.x()[[0, 0]], 0.1 + 0.7);
        assert!(s.x()[[1, 0]].is_nan());
        assert_eq!(s.x().column(1), x.column(1));
        // Debug prints NaN as NaN, so equal prints mean equal bits here (== fails on NaN).
        let same = |a: &Dataset, b: &Dataset| assert_eq!(format!("{a:?}"), format!("{b:?}"));
        same(&s.before_shift(), &d);
        same(
            &s.select_rows(&[2, 0]).before_shift(),
            &d.select_rows(&[2, 0]),
        );
        same(&s.stack(&s).unwrap().before_shift(), &d.stack(&d).unwrap());
        same(&s.with_shift(0, &noise).unwrap().before_shift(), &d);
        assert!(s.with_shift(1, &noise).is_err());
        // Cells blanked after the shift are missing before it too.
        let blanked = s
            .with_missing_cells(0.5, &mut crate::rng::stream_rng(2, 0))
            .unwrap();
        let before = blanked.before_shift();
        for (a, b) in blanked.x().column(0).iter().zip(before.x().column(0)) {
            assert_eq!(a.is_nan(), b.is_nan());
        }
        assert!(s.stack(&d).is_err());
        assert!(d.with_shift(2, &noise).is_err());
    }

    #[test]
    fn missing_values_are_nan_but_not_infinity() {
        let kinds = || vec![FeatureKind::Continuous];
        let y = || Target::Continuous(array![0.0, 1.0]);
        let ok = Dataset::with_missing_values(array![[f64::NAN], [1.0]], y(), names(1), kinds());
        assert_eq!(ok.unwrap().missing_cells(), 1);
        let inf = array![[f64::INFINITY], [1.0]];
        assert!(Dataset::with_missing_values(inf, y(), names(1), kinds()).is_err());
        assert!(Dataset::with_kinds(array![[f64::NAN], [1.0]], y(), names(1), kinds()).is_err());
    }

    #[test]
    fn a_new_target_must_match_the_rows() {
        let d = Dataset::new(
            array![[1.0], [2.0]],
            Target::Continuous(array![0.0, 1.0]),
            names(1),
        )
        .unwrap();
        let e = d.with_target(Target::Continuous(array![5.0, 6.0])).unwrap();
        assert_eq!(e.y(), &Target::Continuous(array![5.0, 6.0]));
        assert_eq!(e.x(), d.x());
        assert!(d.with_target(Target::Continuous(array![5.0])).is_err());
    }
}
