//! A committed baseline read back as the run that wrote it, so that `cargo xtask check
//! --committed` evaluates the paper's claims on it again without recomputing.
//!
//! `summary.csv` holds every field of a summary row (numbers in shortest round-trip
//! form, so every finite number reads back bit for bit; NaN and ±∞ are written as an
//! empty field and read back as NaN); the per-replicate rows come from `tidy.csv` or
//! `tidy_checked.csv` (the rows the checks read, where the experiment writes no
//! `tidy.csv`, or of the quantities they read, where a paper-scale baseline trimmed a
//! large one), the ICE curves from `ice.csv` (or `ice_checked.csv`). Data plots' inputs (training sample, entropy maps) are not
//! kept: no check reads them.

use std::path::Path;

use xai_core::Estimate;

use crate::error::{BenchError, Result, io_err};
use crate::plan::{Experiment, Scale};
use crate::run::{Counts, RunOutput};
use crate::table::{CsvTable, CurveRow, SummaryRow, TidyRow, read_csv, summary_header};

/// The columns of `summary.csv` after the grid keys.
const SUMMARY_TAIL: usize = 9;

/// The columns of `tidy.csv` after the grid keys.
const TIDY_TAIL: usize = 10;

/// The run of `exp` at `scale` as committed in `dir`. Refuses, saying to re-bless,
/// a baseline of another scale or computed from other YAML values than the
/// experiment's now.
pub fn read(exp: &Experiment, scale: Scale, dir: &Path) -> Result<RunOutput> {
    let manifest_path = dir.join("manifest.json");
    let text = std::fs::read_to_string(&manifest_path).map_err(io_err(&manifest_path))?;
    let manifest: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| BenchError::Stored {
            path: manifest_path.clone(),
            message: format!("not JSON ({e})"),
        })?;
    let stale = |what: String| {
        Err(BenchError::Stored {
            path: dir.to_path_buf(),
            message: format!(
                "{what}; bless it again (`cargo xtask bless --scale {} {}`) and commit",
                scale.name(),
                exp.id()
            ),
        })
    };
    if manifest["scale"].as_str() != Some(scale.name()) {
        return stale(format!(
            "a baseline of scale {}, not {}",
            manifest["scale"],
            scale.name()
        ));
    }
    if manifest["computation"].as_str() != Some(exp.computation().as_str()) {
        return stale(
            "computed from other YAML values (seed, scales, data, models, methods, grid, \
             level or tidy) than the experiment holds now"
                .into(),
        );
    }
    let count = |key: &str| manifest[key].as_u64().map_or(0, |n| n as usize);
    let summary_table = read_csv(&dir.join("summary.csv"))?;
    let keys = grid_keys(&summary_table, dir)?;
    let summary = summary_rows(&summary_table, keys.len(), dir)?;
    let tidy = match first_present(dir, &["tidy.csv", "tidy_checked.csv"]) {
        Some(t) => tidy_rows(&read_csv(&t)?, keys.len(), &t)?,
        None => Vec::new(),
    };
    let (curves, feature_names) = match first_present(dir, &["ice.csv", "ice_checked.csv"]) {
        Some(c) => curve_rows(&read_csv(&c)?, keys.len(), &c)?,
        None => (Vec::new(), Vec::new()),
    };
    Ok(RunOutput {
        scale,
        keys,
        tidy,
        summary,
        curves,
        feature_names,
        train_sample: None,
        maps: Vec::new(),
        variants: count("variants"),
        replicates: count("replicates"),
        threads: count("threads"),
        wall_seconds: manifest["wall_seconds"].as_f64().unwrap_or(f64::NAN),
        cpu_seconds: manifest["cpu_seconds"].as_f64().unwrap_or(f64::NAN),
        cells: Counts::default(),
    })
}

fn first_present(dir: &Path, names: &[&str]) -> Option<std::path::PathBuf> {
    names.iter().map(|n| dir.join(n)).find(|p| p.is_file())
}

fn malformed(path: &Path, what: String) -> BenchError {
    BenchError::Stored {
        path: path.to_path_buf(),
        message: format!(
            "{what}; it was not written by this version of `cargo xtask bless`: bless it again"
        ),
    }
}

/// The grid keys of a summary table: the columns between `quantity` and `model`.
fn grid_keys(t: &CsvTable, dir: &Path) -> Result<Vec<String>> {
    let n = t.header.len();
    if n < 1 + SUMMARY_TAIL {
        return Err(malformed(
            &dir.join("summary.csv"),
            format!("columns {:?}", t.header),
        ));
    }
    let keys: Vec<String> = t.header[1..n - SUMMARY_TAIL].to_vec();
    if t.header != summary_header(&keys) {
        return Err(malformed(
            &dir.join("summary.csv"),
            format!("columns {:?}", t.header),
        ));
    }
    Ok(keys)
}

/// A number as the tables write it: empty for NaN.
fn number(field: &str, path: &Path) -> Result<f64> {
    if field.is_empty() {
        return Ok(f64::NAN);
    }
    field
        .parse()
        .map_err(|_| malformed(path, format!("`{field}` is not a number")))
}

fn count(field: &str, path: &Path) -> Result<usize> {
    field
        .parse()
        .map_err(|_| malformed(path, format!("`{field}` is not a count")))
}

fn grid_point(field: &str, path: &Path) -> Result<Option<f64>> {
    Ok(Some(number(field, path)?).filter(|_| !field.is_empty()))
}

/// estimate, se, lower, upper, n from five fields.
fn estimate(f: &[String], path: &Path) -> Result<Estimate> {
    Ok(Estimate {
        estimate: number(&f[0], path)?,
        se: number(&f[1], path)?,
        lower: number(&f[2], path)?,
        upper: number(&f[3], path)?,
        n: count(&f[4], path)?,
    })
}

fn summary_rows(t: &CsvTable, k: usize, dir: &Path) -> Result<Vec<SummaryRow>> {
    let path = dir.join("summary.csv");
    t.rows
        .iter()
        .map(|r| {
            let rest = &r[1 + k..];
            Ok(SummaryRow {
                quantity: r[0].clone(),
                labels: r[1..1 + k].to_vec(),
                model: rest[0].clone(),
                feature: rest[1].clone(),
                x: grid_point(&rest[2], &path)?,
                value: estimate(&rest[3..8], &path)?,
                sd: number(&rest[8], &path)?,
            })
        })
        .collect()
}

fn tidy_rows(t: &CsvTable, k: usize, path: &Path) -> Result<Vec<TidyRow>> {
    if t.header.len() != k + TIDY_TAIL {
        return Err(malformed(path, format!("columns {:?}", t.header)));
    }
    t.rows
        .iter()
        .map(|r| {
            let rest = &r[k..];
            Ok(TidyRow {
                labels: r[..k].to_vec(),
                replicate: count(&rest[0], path)?,
                model: rest[1].clone(),
                quantity: rest[2].clone(),
                feature: rest[3].clone(),
                x: grid_point(&rest[4], path)?,
                value: estimate(&rest[5..10], path)?,
            })
        })
        .collect()
}

/// ICE curves (one line per grid point, consecutive lines of one curve) and the
/// feature names: those of the `at_<feature>` columns, or without them the curves'
/// features in order of first appearance.
fn curve_rows(t: &CsvTable, k: usize, path: &Path) -> Result<(Vec<CurveRow>, Vec<String>)> {
    let features: Vec<String> = t
        .header
        .iter()
        .filter_map(|h| h.strip_prefix("at_").map(String::from))
        .collect();
    if t.header.len() != k + 7 + features.len() + 1 {
        return Err(malformed(path, format!("columns {:?}", t.header)));
    }
    let mut curves: Vec<CurveRow> = Vec::new();
    for r in &t.rows {
        let rest = &r[k..];
        let (replicate, row) = (count(&rest[0], path)?, count(&rest[4], path)?);
        let at = &rest[7..7 + features.len()];
        let same = curves.last().is_some_and(|c| {
            c.labels == r[..k]
                && c.replicate == replicate
                && c.model == rest[1]
                && c.quantity == rest[2]
                && c.feature == rest[3]
                && c.row == row
        });
        if !same {
            curves.push(CurveRow {
                labels: r[..k].to_vec(),
                replicate,
                model: rest[1].clone(),
                quantity: rest[2].clone(),
                feature: rest[3].clone(),
                row,
                grid: Vec::new(),
                values: Vec::new(),
                row_values: match at.iter().all(String::is_empty) && !at.is_empty() {
                    true => Vec::new(),
                    false => at.iter().map(|v| number(v, path)).collect::<Result<_>>()?,
                },
                row_class: match rest[7 + features.len()].as_str() {
                    "" => None,
                    c => Some(count(c, path)?),
                },
            });
        }
        let c = curves.last_mut().expect("just pushed");
        c.grid.push(number(&rest[5], path)?);
        c.values.push(number(&rest[6], path)?);
    }
    if features.is_empty() {
        let mut named: Vec<String> = Vec::new();
        for c in &curves {
            if !named.contains(&c.feature) {
                named.push(c.feature.clone());
            }
        }
        return Ok((curves, named));
    }
    Ok((curves, features))
}
