//! The error type of the learners' settings: it names the setting, the value given and
//! what is allowed, so that a YAML author knows what to change.

use thiserror::Error;
use xai_core::CoreError;

/// A learner setting outside its allowed range.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ParamError {
    /// `param` = `value` is not allowed: it must satisfy `allowed`.
    #[error("`{param}` = {value} is invalid: must be {allowed}")]
    OutOfRange {
        /// The setting's YAML name (e.g. `n_trees`).
        param: &'static str,
        /// The value given, as text.
        value: String,
        /// What is allowed (e.g. `at least 1`).
        allowed: &'static str,
    },
    /// A setting outside the range its field declares (`#[schemars(range(..))]`), as
    /// [`xai_core::settings::check_value`] finds it: its path within the settings, the
    /// value and the range.
    #[error("`{path}` = {value} is invalid: must be {range}")]
    Declared {
        /// The setting's path in the learner's node (`n_trees`, `forest.n_trees`).
        path: String,
        /// The value given, as text.
        value: String,
        /// The range its field declares, in words (`≥ 1`, `(0, 1)`).
        range: String,
    },
    /// A setting of a nested block is invalid, e.g. `forest: {n_trees: 0}` of the
    /// calibrated forest.
    #[error("in `{within}`: {error}")]
    Nested {
        /// The YAML name of the block (e.g. `forest`).
        within: &'static str,
        /// The error of the block's settings.
        error: Box<ParamError>,
    },
}

impl ParamError {
    /// `param` = `value` is not `allowed` ([`ParamError::OutOfRange`]).
    pub fn out_of_range(param: &'static str, value: impl ToString, allowed: &'static str) -> Self {
        ParamError::OutOfRange {
            param,
            value: value.to_string(),
            allowed,
        }
    }

    /// The name of the offending setting itself (innermost for a nested block; the
    /// path of a declared range).
    pub fn param(&self) -> &str {
        match self {
            ParamError::OutOfRange { param, .. } => param,
            ParamError::Declared { path, .. } => path,
            ParamError::Nested { error, .. } => error.param(),
        }
    }
}

/// A setting outside the range its field declares ([`ParamError::Declared`]).
impl From<xai_core::settings::OutOfRange> for ParamError {
    fn from(e: xai_core::settings::OutOfRange) -> Self {
        ParamError::Declared {
            path: e.path,
            value: e.value.to_string(),
            range: e.range,
        }
    }
}

/// A learner's fit reports a setting out of range as [`CoreError::OutOfRange`] (a nested
/// block's as the setting `block.setting`), with the same text as the [`ParamError`].
impl From<ParamError> for CoreError {
    fn from(e: ParamError) -> Self {
        let mut within = Vec::new();
        let mut e = &e;
        while let ParamError::Nested { within: w, error } = e {
            within.push(*w);
            e = error;
        }
        match e {
            ParamError::OutOfRange {
                param,
                value,
                allowed,
            } => {
                within.push(param);
                CoreError::out_of_range(within.join("."), value, *allowed)
            }
            ParamError::Declared { path, value, range } => {
                let mut at: Vec<&str> = within;
                at.push(path);
                CoreError::out_of_range(at.join("."), value, range.as_str())
            }
            ParamError::Nested { .. } => CoreError::Invalid(e.to_string()),
        }
    }
}
