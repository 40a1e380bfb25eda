//! The error type of `xai-core`.

use thiserror::Error;

/// Everything that can go wrong in an explanation method or a data type.
#[derive(Debug, Error)]
pub enum CoreError {
    /// Arrays whose sizes must agree do not.
    #[error("shape mismatch: {0}")]
    Shape(String),
    /// A value in data or predictions is NaN or infinite.
    #[error("non-finite value {value} in {what} at row {row}, column {column}")]
    NonFinite {
        /// What holds the value ("features", "target", "predictions", ...).
        what: &'static str,
        /// Row of the offending value.
        row: usize,
        /// Column of the offending value (0 for vectors).
        column: usize,
        /// The value itself.
        value: f64,
    },
    /// A statistic was asked of predictions it is not defined for.
    #[error("statistic `{statistic}` is not defined for {predictions} predictions: {hint}")]
    Unsupported {
        /// The statistic's name.
        statistic: &'static str,
        /// The kind of predictions it got.
        predictions: &'static str,
        /// What to use instead.
        hint: &'static str,
    },
    /// An argument is out of its allowed range.
    #[error("invalid argument: {0}")]
    Invalid(String),
    /// Fitting a model failed.
    #[error("fitting failed: {0}")]
    Fit(String),
    /// A fitted model could not predict (a foreign model's exception, a network's
    /// tensor error): its own message.
    #[error("predicting failed: {0}")]
    Predict(String),
    /// Drawing fresh rows from a data generating process failed (a formula that drew a
    /// value that is not finite): the process's own message.
    #[error("drawing fresh rows failed: {0}")]
    Sample(String),
}

/// Result alias of this crate.
pub type Result<T, E = CoreError> = std::result::Result<T, E>;
