//! Affine standardisation of columns, as the GP (scikit-learn: population sd) and
//! the SVR (R's `scale()`: sample sd) apply it to their inputs.

use ndarray::{Array1, Array2, ArrayView2, Axis};

/// z = (v − shift)/scale for each column.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Standardizer {
    pub(crate) shift: Array1<f64>,
    pub(crate) scale: Array1<f64>,
}

impl Standardizer {
    /// Column means and sds with `ddof` (0: population, 1: sample); a constant
    /// column keeps scale 1. Identity when not `enabled`.
    pub(crate) fn fit(x: ArrayView2<'_, f64>, enabled: bool, ddof: f64) -> Self {
        let d = x.ncols();
        if !enabled {
            return Self {
                shift: Array1::zeros(d),
                scale: Array1::ones(d),
            };
        }
        // No rows (an empty training set, refused at load): the identity shift.
        let shift = x.mean_axis(Axis(0)).unwrap_or_else(|| Array1::zeros(d));
        let scale = x
            .std_axis(Axis(0), ddof)
            .mapv(|s| if s > 0.0 { s } else { 1.0 });
        Self { shift, scale }
    }

    /// Slopes on the standardised columns as slopes in the columns' own units,
    /// w_j / scale_j (a linear model's coefficients, [`xai_core::Model::coefficients`]).
    pub(crate) fn in_own_units(&self, weights: &Array1<f64>) -> Vec<f64> {
        weights
            .iter()
            .zip(&self.scale)
            .map(|(w, s)| w / s)
            .collect()
    }

    /// The standardised rows.
    pub(crate) fn apply(&self, x: ArrayView2<'_, f64>) -> Array2<f64> {
        (&x - &self.shift) / &self.scale
    }
}
