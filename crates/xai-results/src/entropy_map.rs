//! The entropy map a `permutation_map` method computes and its plot draws
//! (wood2024 Fig. 2): the entropy of a model's predictive distribution over the plane
//! of two features, with the test rows before and after one permutation.

use ndarray::Array2;

/// The entropy map of a fitted model over a 2-D grid, with test points before and
/// after one permutation of a feature.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct EntropyMap {
    /// Grid values of the first feature.
    pub xs: Vec<f64>,
    /// Grid values of the second feature.
    pub ys: Vec<f64>,
    /// `entropy[[i, j]]` at (xs[i], ys[j]).
    pub entropy: Array2<f64>,
    /// The test rows (n × 2).
    pub points: Array2<f64>,
    /// The test rows after permuting the feature.
    pub permuted: Array2<f64>,
    /// Class of each test row (0 for regression).
    pub classes: Vec<usize>,
    /// Entropy of each test row before the permutation.
    pub before: Vec<f64>,
    /// Entropy of each test row after the permutation.
    pub after: Vec<f64>,
    /// The permuted feature's name.
    pub feature: String,
    /// The names of the two features, (x-axis, y-axis).
    pub axes: (String, String),
}
