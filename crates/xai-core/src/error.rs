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
    /// A setting outside its allowed range: the setting, the value given and what is
    /// allowed, so that a caller can point at the setting.
    #[error("`{setting}` = {value} is invalid: must be {allowed}")]
    OutOfRange {
        /// The setting's name (e.g. `bins`, `repeats`).
        setting: Box<str>,
        /// The value given, as text.
        value: Box<str>,
        /// What is allowed, with why where it depends on the data.
        allowed: Box<str>,
    },
    /// The rows given do not suit the computation (too few, a constant feature, a label
    /// that is not a class of the model): what is wrong with them.
    #[error("the data does not suit this: {0}")]
    Data(String),
    /// A numerical method failed on the numbers it was given (a singular matrix, a
    /// system its equations do not determine): what failed.
    #[error("numerical failure: {0}")]
    Numerical(String),
    /// The model lacks what the computation reads of it (trees, members, log-odds):
    /// what is missing and what to use instead.
    #[error("the model cannot do this: {0}")]
    Capability(String),
    /// An argument invalid for another reason, stated in full.
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
    /// The computation stopped at a requested stop ([`crate::stop::Stop`]).
    #[error("interrupted")]
    Interrupted,
}

/// What kind of fault an error is: the one classification every front end maps to
/// its own error classes (Python's `SettingsError`, `DataError`, `ModelError`,
/// `SizeError`; R's condition classes), so none of them sorts the variants itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// A setting, a method node or an experiment file that cannot be used.
    Settings,
    /// Rows, a target or a dataset that do not suit the call.
    Data,
    /// A model's fit or predictions that failed or broke their kind's promise.
    Model,
    /// A call too large for the machine's memory, refused before allocation.
    Size,
    /// Anything else (a numerical failure, a bug, an interrupted computation).
    Other,
}

impl CoreError {
    /// The kind of fault this is ([`Fault`]).
    pub fn fault(&self) -> Fault {
        match self {
            CoreError::Fit(_) | CoreError::Predict(_) => Fault::Model,
            CoreError::Data(_)
            | CoreError::NonFinite { .. }
            | CoreError::Shape(_)
            | CoreError::Sample(_) => Fault::Data,
            CoreError::Invalid(_)
            | CoreError::OutOfRange { .. }
            | CoreError::Unsupported { .. }
            | CoreError::Capability(_) => Fault::Settings,
            CoreError::Numerical(_) | CoreError::Interrupted => Fault::Other,
        }
    }

    /// `setting` = `value` is not `allowed` ([`CoreError::OutOfRange`]).
    pub fn out_of_range(
        setting: impl Into<String>,
        value: impl ToString,
        allowed: impl Into<String>,
    ) -> Self {
        CoreError::OutOfRange {
            setting: setting.into().into_boxed_str(),
            value: value.to_string().into_boxed_str(),
            allowed: allowed.into().into_boxed_str(),
        }
    }
}

/// Result alias of this crate.
pub type Result<T, E = CoreError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    /// Each kind of fault a front end raises as its own class.
    #[test]
    fn every_error_has_its_kind_of_fault() {
        assert_eq!(CoreError::Predict("x".into()).fault(), Fault::Model);
        assert_eq!(CoreError::Data("x".into()).fault(), Fault::Data);
        assert_eq!(
            CoreError::out_of_range("k", 0, "at least 1").fault(),
            Fault::Settings
        );
        assert_eq!(CoreError::Interrupted.fault(), Fault::Other);
    }
}
