//! The dataset type shared by learners, explanation methods and DGPs.

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
/// name and kind per column, and every value is finite, except the cells that
/// [`Dataset::with_missing_cells`] marks missing (NaN), for learners that handle
/// missing values natively (gradient boosting).
#[derive(Debug, Clone, PartialEq)]
pub struct Dataset {
    x: Array2<f64>,
    y: Target,
    feature_names: Vec<String>,
    feature_kinds: Vec<FeatureKind>,
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
        check_finite("features", x.view())?;
        match &y {
            Target::Continuous(v) => {
                check_finite("target", v.view().insert_axis(Axis(1)))?;
            }
            Target::Classes { labels, n_classes } => {
                if let Some(row) = labels.iter().position(|&c| c >= *n_classes) {
                    return Err(CoreError::Invalid(format!(
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
        Ok(Dataset {
            x: ndarray::concatenate(Axis(0), &[self.x.view(), other.x.view()])
                .map_err(|_| mismatch())?,
            y,
            feature_names: self.feature_names.clone(),
            feature_kinds: self.feature_kinds.clone(),
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
            return Err(CoreError::Invalid(format!(
                "a share of missing cells must lie in [0, 1], not {fraction}"
            )));
        }
        let n = self.n_rows();
        let k = (fraction * n as f64).round() as usize;
        let mut x = self.x.clone();
        for mut column in x.columns_mut() {
            for i in rand::seq::index::sample(rng, n, k) {
                column[i] = f64::NAN;
            }
        }
        Ok(Dataset { x, ..self.clone() })
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
        }
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
}
