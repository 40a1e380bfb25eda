//! The engine's tables to Python: `tidy.csv`'s, `ice.csv`'s and every table a run
//! writes, as dicts of columns typed by one rule whether computed by a call or read
//! from a run's files, so the two compare equal when their bytes do.

use std::path::PathBuf;

use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use xai_bench::table::{ColumnKind, CsvTable, column_kind, read_csv};

/// `table` as a dict of columns, in its column order, typed by the engine's
/// [`column_kind`]: a count column of integers as int64; a value column whose every
/// cell is a number or empty (NaN) as float64, parsed from the shortest round-trip
/// form the engine writes, so the values are the engine's to the bit; the rest (and
/// every text column) as lists of str.
pub fn columns<'py>(py: Python<'py>, table: &CsvTable) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    for (j, h) in table.header.iter().enumerate() {
        let cells = || table.rows.iter().map(move |r| r[j].as_str());
        let kind = column_kind(h);
        if kind != ColumnKind::Text {
            if kind == ColumnKind::Count
                && let Some(v) = cells()
                    .map(|c| c.parse::<i64>().ok())
                    .collect::<Option<Vec<_>>>()
            {
                out.set_item(h, PyArray1::from_vec(py, v))?;
                continue;
            }
            let number = |c: &str| match c {
                "" => Some(f64::NAN),
                c => c.parse::<f64>().ok(),
            };
            if let Some(v) = cells().map(number).collect::<Option<Vec<_>>>() {
                out.set_item(h, PyArray1::from_vec(py, v))?;
                continue;
            }
        }
        out.set_item(h, cells().collect::<Vec<_>>())?;
    }
    Ok(out)
}

/// The CSV table at `path` (a run's `summary.csv`, `tidy.csv`, `checks.csv`), typed as
/// [`columns`] types a computed one.
#[pyfunction]
pub fn read_table(py: Python<'_>, path: PathBuf) -> PyResult<Bound<'_, PyDict>> {
    let table = read_csv(&path).map_err(crate::error)?;
    columns(py, &table)
}
