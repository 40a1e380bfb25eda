//! The regression check: a run's `summary.csv` and the measured values of its
//! `checks.csv` against the committed baseline `results/<id>/`, within a tolerance.

use std::path::Path;

use serde::Deserialize;

use super::{Outcome, Status};

use xai_results::output::{RunOutput, Scale};
use xai_results::table::{CsvTable, read_csv, summary_table};

/// Tolerance of the regression check: |new − old| ≤ abs + rel·|old| for every number.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Tolerance {
    /// Absolute part.
    pub abs: f64,
    /// Relative part.
    pub rel: f64,
}

impl Default for Tolerance {
    /// Same code, seed and scale give the same numbers up to floating-point
    /// differences between machines (SIMD paths of the linear algebra), far below any
    /// Monte-Carlo error.
    fn default() -> Self {
        Self {
            abs: 1e-6,
            rel: 1e-6,
        }
    }
}

/// The numeric columns of `summary.csv`, compared within the tolerance; every other
/// column must be equal.
const SUMMARY_NUMBERS: [&str; 5] = ["estimate", "se", "lower", "upper", "sd"];

/// The numeric column of `checks.csv`; `detail` is text for people and not compared.
const CHECK_NUMBERS: [&str; 1] = ["measured"];

/// Compares a run's summary with the committed `summary.csv` in `baseline_dir`.
pub fn summary(out: &RunOutput, baseline_dir: &Path, tol: Tolerance) -> Outcome {
    let new = summary_table(&out.keys, &out.summary);
    against(
        "regression against the committed summary.csv",
        &baseline_dir.join("summary.csv"),
        &new,
        (&SUMMARY_NUMBERS, &[]),
        tol,
        out.scale,
    )
}

/// Compares the run's checks (claim, status, measured value) with the committed
/// `checks.csv` in `baseline_dir`, so a check's measured value cannot drift unseen
/// (including a known deviation's, which never fails on its own).
pub fn checks(new: &CsvTable, baseline_dir: &Path, tol: Tolerance, scale: Scale) -> Outcome {
    against(
        "regression against the committed checks.csv",
        &baseline_dir.join("checks.csv"),
        new,
        (&CHECK_NUMBERS, &["detail"]),
        tol,
        scale,
    )
}

/// `new` against the committed table at `path`: the columns `numbers` within `tol`,
/// the columns `ignored` not at all (`columns`); the failure says how to re-bless at
/// `scale`.
fn against(
    name: &str,
    path: &Path,
    new: &CsvTable,
    (numbers, ignored): (&[&str], &[&str]),
    tol: Tolerance,
    scale: Scale,
) -> Outcome {
    let bless = match scale {
        Scale::Ci => "cargo xtask bless <id>".to_string(),
        other => format!("cargo xtask bless --scale {} <id>", other.name()),
    };
    let outcome = |status, detail| Outcome {
        name: name.to_string(),
        kind: None,
        status,
        measured: f64::NAN,
        detail,
    };
    let baseline = match read_csv(path) {
        Ok(t) => t,
        Err(e) => {
            return outcome(
                Status::Fail,
                format!("{e}; create the baseline with `{bless}`"),
            );
        }
    };
    match compare(&baseline, new, numbers, ignored, tol) {
        Ok(detail) => outcome(Status::Pass, detail),
        Err(detail) => outcome(
            Status::Fail,
            format!(
                "{detail}; if the change is intended, re-bless with `{bless}` (only the \
                 claims changed: `{bless} --committed`, which computes nothing) and commit"
            ),
        ),
    }
}

/// Compares two tables cell by cell: the columns `numbers` within
/// |new − old| ≤ abs + rel·|old| (an empty cell, NaN, must stay empty), the columns
/// `ignored` not at all, every other column exactly. Returns a summary of the largest
/// change, or the first difference.
pub fn compare(
    old: &CsvTable,
    new: &CsvTable,
    numbers: &[&str],
    ignored: &[&str],
    tol: Tolerance,
) -> Result<String, String> {
    if old.header != new.header {
        return Err(format!(
            "columns changed: {:?} -> {:?}",
            old.header, new.header
        ));
    }
    if old.rows.len() != new.rows.len() {
        return Err(format!(
            "{} rows -> {} rows",
            old.rows.len(),
            new.rows.len()
        ));
    }
    let feature = old.header.iter().position(|h| h == "feature");
    let mut worst = 0.0f64;
    for (i, (o, n)) in old.rows.iter().zip(&new.rows).enumerate() {
        let at = || {
            let what = match feature.and_then(|f| o.get(f)) {
                Some(f) => format!("{} {f}", o[0]),
                None => o[0].clone(),
            };
            format!("row {} ({what})", i + 2)
        };
        for (c, col) in old.header.iter().enumerate() {
            if ignored.contains(&col.as_str()) {
                continue;
            }
            if !numbers.contains(&col.as_str()) {
                if o[c] != n[c] {
                    return Err(format!("{}: {col} `{}` -> `{}`", at(), o[c], n[c]));
                }
                continue;
            }
            match (o[c].parse::<f64>(), n[c].parse::<f64>()) {
                (Ok(a), Ok(b)) => {
                    let excess = (a - b).abs() - (tol.abs + tol.rel * a.abs());
                    if excess > 0.0 || (a - b).is_nan() {
                        return Err(format!(
                            "{}: {col} {a} -> {b}, beyond abs {} + rel {}",
                            at(),
                            tol.abs,
                            tol.rel
                        ));
                    }
                    worst = worst.max((a - b).abs());
                }
                _ if o[c] == n[c] => {}
                _ => return Err(format!("{}: {col} `{}` -> `{}`", at(), o[c], n[c])),
            }
        }
    }
    Ok(format!(
        "{} rows within abs {} + rel {} (largest change {worst:e})",
        old.rows.len(),
        tol.abs,
        tol.rel
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(rows: &[[&str; 3]]) -> CsvTable {
        CsvTable {
            header: vec!["quantity".into(), "feature".into(), "estimate".into()],
            rows: rows
                .iter()
                .map(|r| r.iter().map(|c| c.to_string()).collect())
                .collect(),
        }
    }

    fn cmp(old: &CsvTable, new: &CsvTable) -> Result<String, String> {
        compare(old, new, &["estimate"], &[], Tolerance::default())
    }

    #[test]
    fn identical_and_within_tolerance_pass() {
        let old = table(&[["q", "X1", "0.5"], ["q", "X2", "1"]]);
        assert!(cmp(&old, &old).is_ok());
        let nudged = table(&[["q", "X1", "0.5000001"], ["q", "X2", "1"]]);
        assert!(cmp(&old, &nudged).is_ok());
    }

    #[test]
    fn a_moved_number_fails_and_is_named() {
        let old = table(&[["q", "X1", "0.5"], ["q", "X2", "1"]]);
        let moved = table(&[["q", "X1", "0.5"], ["q", "X2", "1.001"]]);
        let err = cmp(&old, &moved).unwrap_err();
        assert!(err.contains("row 3 (q X2): estimate 1 -> 1.001"), "{err}");
    }

    #[test]
    fn a_changed_row_count_fails() {
        let old = table(&[["q", "X1", "0.5"], ["q", "X2", "1"]]);
        let fewer = table(&[["q", "X1", "0.5"]]);
        assert_eq!(cmp(&old, &fewer).unwrap_err(), "2 rows -> 1 rows");
    }

    #[test]
    fn a_finite_value_turning_nan_fails_both_ways() {
        // NaN is written as an empty cell.
        let old = table(&[["q", "X1", "0.5"]]);
        let nan = table(&[["q", "X1", ""]]);
        assert!(
            cmp(&old, &nan)
                .unwrap_err()
                .contains("estimate `0.5` -> ``")
        );
        assert!(cmp(&nan, &old).is_err());
        assert!(cmp(&nan, &nan).is_ok());
        let parsed_nan = table(&[["q", "X1", "NaN"]]);
        assert!(cmp(&old, &parsed_nan).is_err());
    }

    #[test]
    fn a_changed_label_or_column_fails_and_ignored_columns_do_not() {
        let old = table(&[["q", "X1", "0.5"]]);
        assert!(cmp(&old, &table(&[["q", "X9", "0.5"]])).is_err());
        let mut renamed = old.clone();
        renamed.header[2] = "value".into();
        assert!(cmp(&old, &renamed).unwrap_err().contains("columns changed"));
        let text = table(&[["q", "other words", "0.5"]]);
        assert!(
            compare(
                &old,
                &text,
                &["estimate"],
                &["feature"],
                Tolerance::default()
            )
            .is_ok()
        );
    }
}
