//! The error type of the DGPs' parameters: it names the parameter, the value given and
//! what is allowed, so that a YAML author knows what to change.

use thiserror::Error;

/// A DGP parameter outside its allowed range.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DgpError {
    /// `param` = `value` is not allowed: it must satisfy `allowed`.
    #[error("`{param}` = {value} is invalid: must be {allowed}")]
    OutOfRange {
        /// The parameter's YAML name (e.g. `rho`).
        param: &'static str,
        /// The value given, as text.
        value: String,
        /// What is allowed (e.g. `strictly between -1 and 1`).
        allowed: String,
    },
    /// A parameter outside the range its field declares (`#[schemars(range(..))]`), as
    /// [`xai_core::settings::check_value`] finds it.
    #[error("`{path}` = {value} is invalid: must be {range}")]
    Declared {
        /// The parameter's path in the DGP's node (`rho`).
        path: String,
        /// The value given, as text.
        value: String,
        /// The range its field declares, in words (`(-1, 1)`).
        range: String,
    },
    /// A list has the wrong number of entries, e.g. `names` against the features.
    #[error("`{param}` has {len} entries, expected {expected} ({what})")]
    WrongLength {
        /// The parameter's YAML name.
        param: &'static str,
        /// The entries given.
        len: usize,
        /// The entries needed.
        expected: usize,
        /// Why that many (e.g. `one name per feature`).
        what: &'static str,
    },
    /// Row `row` of a square matrix has `len` entries instead of `expected`.
    #[error("`{param}` must be square: row {row} has {len} entries, expected {expected}")]
    NotSquare {
        /// The parameter's YAML name.
        param: &'static str,
        /// The first row of the wrong length (0-based).
        row: usize,
        /// Its entries.
        len: usize,
        /// The matrix's number of rows.
        expected: usize,
    },
    /// Entry (row, column) is not finite or differs from (column, row).
    #[error(
        "`{param}` must be finite and symmetric: entry ({row}, {column}) is {value}, ({column}, {row}) is {mirror}"
    )]
    NotSymmetric {
        /// The parameter's YAML name.
        param: &'static str,
        /// Row of the entry (0-based).
        row: usize,
        /// Column of the entry (0-based).
        column: usize,
        /// The entry (row, column), as text.
        value: String,
        /// The entry (column, row), as text.
        mirror: String,
    },
    /// A symmetric matrix is not positive definite: the Cholesky factorisation
    /// Σ = LLᵀ met a pivot ≤ 0 at row `pivot`.
    #[error(
        "`{param}` must be positive definite: its Cholesky factorisation met a non-positive pivot at row {pivot}"
    )]
    NotPositiveDefinite {
        /// The parameter's YAML name.
        param: &'static str,
        /// The row (0-based) whose pivot was not positive.
        pivot: usize,
    },
    /// A formula DGP's formula does not compile ([`crate::formula`]): where, what, and
    /// the formula with a caret under the text at fault.
    #[error("{}: {message}\n    {formula}\n    {}{}", place(*at, formula, *column), " ".repeat(*column), "^".repeat(*width))]
    Formula {
        /// (line, column) in the YAML file of the formula's first character, where known.
        at: Option<(usize, usize)>,
        /// The formula as written.
        formula: String,
        /// The offending text's first character within the formula (0-based).
        column: usize,
        /// Its characters.
        width: usize,
        /// What is wrong and what to write instead.
        message: String,
    },
    /// The drawn rows do not make a dataset (a value that is not finite): the data
    /// type's own reason, all there is to say.
    #[error("the drawn rows are not a dataset: {0}")]
    Rows(String),
}

/// "line L, column C" of a formula's character `column`, or its place in the formula.
fn place(at: Option<(usize, usize)>, formula: &str, column: usize) -> String {
    match at {
        Some((line, col)) => format!("line {line}, column {}", col + column),
        None => format!("in `{formula}`, character {}", column + 1),
    }
}

impl DgpError {
    /// A formula error of unknown place ([`DgpError::Formula`]) located in `text`, the
    /// YAML file holding the formula: its first occurrence below a `formula:` key as a
    /// whole scalar (after `key:`, `- ` or in a `[...]` list, plain or quoted).
    pub fn locate_formula_in(&mut self, text: &str) {
        let DgpError::Formula {
            at: at @ None,
            formula,
            ..
        } = self
        else {
            return;
        };
        let Some(from) = text.find("formula:") else {
            return;
        };
        let whole = |start: usize| {
            let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
            let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
            let before = text[line_start..start]
                .trim_end()
                .trim_end_matches(['"', '\'']);
            let after = text[start + formula.len()..line_end]
                .trim_start_matches(['"', '\''])
                .trim_start();
            let opens = [':', '-', '[', ','].iter().any(|c| before.ends_with(*c));
            let closes = after.is_empty() || [',', ']', '#'].iter().any(|c| after.starts_with(*c));
            (opens && closes).then_some(line_start)
        };
        if let Some((start, line_start)) = text
            .match_indices(formula.as_str())
            .filter(|(i, _)| *i > from)
            .find_map(|(i, _)| whole(i).map(|l| (i, l)))
        {
            let line = text[..start].matches('\n').count() + 1;
            *at = Some((line, text[line_start..start].chars().count() + 1));
        }
    }

    /// `param` = `value` is not `allowed` ([`DgpError::OutOfRange`]).
    pub fn out_of_range(param: &'static str, value: impl ToString, allowed: impl ToString) -> Self {
        DgpError::OutOfRange {
            param,
            value: value.to_string(),
            allowed: allowed.to_string(),
        }
    }

    /// The data type's refusal of drawn rows ([`DgpError::Rows`]).
    pub fn rows(e: xai_core::CoreError) -> Self {
        DgpError::Rows(e.to_string())
    }

    /// The name of the offending parameter.
    pub fn param(&self) -> &str {
        match self {
            DgpError::Declared { path, .. } => path,
            DgpError::OutOfRange { param, .. }
            | DgpError::WrongLength { param, .. }
            | DgpError::NotSquare { param, .. }
            | DgpError::NotSymmetric { param, .. }
            | DgpError::NotPositiveDefinite { param, .. } => param,
            DgpError::Formula { .. } => "formula",
            DgpError::Rows(_) => "sample",
        }
    }
}

/// A parameter outside the range its field declares ([`DgpError::Declared`]).
impl From<xai_core::settings::OutOfRange> for DgpError {
    fn from(e: xai_core::settings::OutOfRange) -> Self {
        DgpError::Declared {
            path: e.path,
            value: e.value.to_string(),
            range: e.range,
        }
    }
}
