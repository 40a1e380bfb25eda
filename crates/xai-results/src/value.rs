//! One reported number of a method: a quantity of a feature at a grid point, with its
//! within-replicate uncertainty (a row of `tidy.csv` before the run's labels).

use xai_core::Estimate;

/// One reported number: a quantity of a feature (at a grid point), with its
/// within-replicate uncertainty.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Value {
    /// Quantity name (`entropy_pfi`, `covered`, ...).
    pub quantity: String,
    /// Feature name.
    pub feature: String,
    /// Grid point, if any.
    pub x: Option<f64>,
    /// The estimate with its standard error and interval.
    pub estimate: Estimate,
}

/// A number without an interval, computed from `n` rows.
pub fn point(estimate: f64, n: usize) -> Estimate {
    Estimate {
        estimate,
        se: f64::NAN,
        lower: f64::NAN,
        upper: f64::NAN,
        n,
    }
}
