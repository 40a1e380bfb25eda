//! The tidy per-replicate table and the summary table, and their CSV form.
//!
//! Numbers are written in Rust's shortest round-trip form and NaN as an empty field,
//! so the same numbers give byte-identical files.

use std::collections::HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use xai_core::{Estimate, t_interval};

use xai_error::{BenchError, Result};

/// One estimate of one replicate: variant × replicate × model × quantity × feature ×
/// grid point.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TidyRow {
    /// Values of the grid keys, in key order.
    pub labels: Vec<String>,
    /// Replicate index.
    pub replicate: usize,
    /// Model name.
    pub model: String,
    /// Quantity name (`likelihood_pfi`, `entropy_pd`, ...).
    pub quantity: String,
    /// Feature name.
    pub feature: String,
    /// Grid point (PD), if any.
    pub x: Option<f64>,
    /// The estimate with its within-replicate standard error and interval.
    pub value: Estimate,
}

/// One ICE curve of one test row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CurveRow {
    /// Values of the grid keys, in key order.
    pub labels: Vec<String>,
    /// Replicate index.
    pub replicate: usize,
    /// Model name.
    pub model: String,
    /// Quantity name (`entropy_ice`, ...).
    pub quantity: String,
    /// The varied feature's name.
    pub feature: String,
    /// Index of the row in the replicate's test set.
    pub row: usize,
    /// Grid values.
    pub grid: Vec<f64>,
    /// The curve ICE⁽ⁱ⁾(x_g).
    pub values: Vec<f64>,
    /// The row's own feature values (as explained: after a covariate shift, the
    /// shifted ones), in column order (the run's first variant's features; empty for
    /// a variant with other features, e.g. another dataset).
    pub row_values: Vec<f64>,
    /// The row's class (classification).
    pub row_class: Option<usize>,
}

/// `ice.csv`'s columns: grid keys, replicate, model, quantity, feature, row, x,
/// value, the row's original feature values (`at_<feature>`, blank for a variant whose
/// features are not the first variant's; no such columns when no curve keeps them)
/// and its class (blank for a continuous target); one record per grid point. The
/// header, and the features whose `at_` columns it has.
fn curve_header<'f>(
    keys: &[String],
    features: &'f [String],
    curves: &[CurveRow],
) -> (Vec<String>, &'f [String]) {
    let mut header = keys.to_vec();
    header.extend(
        [
            "replicate",
            "model",
            "quantity",
            "feature",
            "row",
            "x",
            "value",
        ]
        .map(String::from),
    );
    let at = match curves.iter().any(|c| c.row_values.len() == features.len()) {
        true => features,
        false => &[],
    };
    header.extend(at.iter().map(|f| format!("at_{f}")));
    header.push("class".into());
    (header, at)
}

/// The records of `curves` under [`curve_header`]'s columns (`at`: its features).
fn curve_records<'c>(
    curves: &'c [CurveRow],
    at: &'c [String],
) -> impl Iterator<Item = Vec<String>> + 'c {
    curves.iter().flat_map(move |c| {
        c.grid.iter().zip(&c.values).map(move |(x, v)| {
            let mut rec = c.labels.clone();
            rec.extend([
                c.replicate.to_string(),
                c.model.clone(),
                c.quantity.clone(),
                c.feature.clone(),
                c.row.to_string(),
                num(*x),
                num(*v),
            ]);
            match c.row_values.len() == at.len() {
                true => rec.extend(c.row_values.iter().map(|v| num(*v))),
                false => rec.extend(at.iter().map(|_| String::new())),
            }
            rec.push(c.row_class.map(|k| k.to_string()).unwrap_or_default());
            rec
        })
    })
}

/// `ice.csv` as a table ([`curve_header`]): what a front end returns for the curves.
pub fn curve_table(keys: &[String], features: &[String], curves: &[CurveRow]) -> CsvTable {
    let (header, at) = curve_header(keys, features, curves);
    CsvTable {
        header,
        rows: curve_records(curves, at).collect(),
    }
}

/// Writes `ice.csv` ([`curve_header`]), a record at a time.
pub fn write_curves(
    path: &Path,
    keys: &[String],
    features: &[String],
    curves: &[CurveRow],
) -> Result<()> {
    let (header, at) = curve_header(keys, features, curves);
    write_csv(path, header, curve_records(curves, at))
}

/// One row of `summary.csv`: an estimate over replicates.
#[derive(Debug, Clone, PartialEq)]
pub struct SummaryRow {
    /// Quantity name.
    pub quantity: String,
    /// Values of the grid keys, in key order.
    pub labels: Vec<String>,
    /// Model name.
    pub model: String,
    /// Feature name ("" when not per feature).
    pub feature: String,
    /// Grid point, if any.
    pub x: Option<f64>,
    /// Mean over replicates with the t-interval over replicates (molnar2023 Eq. 8
    /// applied to replicates); with one replicate, that replicate's own interval.
    pub value: Estimate,
    /// Standard deviation over replicates (divisor R − 1; e.g. over shuffle splits,
    /// the "mean ± sd" cid2021 reports); NaN with one replicate.
    pub sd: f64,
}

/// Summarises tidy rows over replicates, keeping the order of first appearance
/// ([`Summarizer`] fed every row).
pub fn summarize(rows: &[TidyRow], level: f64) -> Vec<SummaryRow> {
    let mut s = Summarizer::default();
    for r in rows {
        s.add(r);
    }
    s.finish(level)
}

/// The summary over replicates built one row at a time, so a run need not hold its
/// rows: per key (quantity, grid labels, model, feature, x), in order of first
/// appearance, the estimates in the order they came (8 bytes a replicate) and the
/// first row's whole estimate. [`Summarizer::finish`] gives, bit for bit, what
/// [`summarize`] gives for the same rows in the same order: the replicates' mean and
/// t-interval ([`t_interval`]) with the sd over replicates, or with one replicate its
/// own estimate. Every cell of a variant lists its keys in the same order, so a row is
/// first compared with the key after the previous row's, without hashing or copying.
#[derive(Debug, Default)]
pub struct Summarizer {
    /// Hash of a key's fields → the groups with that hash.
    index: HashMap<u64, Vec<usize>>,
    groups: Vec<Group>,
    replicates: usize,
    /// The group after the last row's.
    cursor: usize,
}

/// One key and its values.
#[derive(Debug)]
struct Group {
    quantity: String,
    labels: Vec<String>,
    model: String,
    feature: String,
    x: Option<f64>,
    first: Estimate,
    values: Vec<f64>,
}

impl Group {
    /// Whether `r` has this group's key (x compared by its bits).
    fn holds(&self, r: &TidyRow) -> bool {
        self.x.map(f64::to_bits) == r.x.map(f64::to_bits)
            && self.quantity == r.quantity
            && self.feature == r.feature
            && self.model == r.model
            && self.labels == r.labels
    }
}

/// The hash of a row's key.
fn key_hash(r: &TidyRow) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (
        &r.quantity,
        &r.labels,
        &r.model,
        &r.feature,
        r.x.map(f64::to_bits),
    )
        .hash(&mut h);
    h.finish()
}

impl Summarizer {
    /// A summarizer of runs of `replicates` replicates: each key's values are
    /// allocated once, at that length.
    pub fn with_replicates(replicates: usize) -> Summarizer {
        Summarizer {
            replicates,
            ..Summarizer::default()
        }
    }

    /// Adds one replicate's row.
    pub fn add(&mut self, r: &TidyRow) {
        let i = match self.groups.get(self.cursor) {
            Some(g) if g.holds(r) => self.cursor,
            _ => {
                let h = key_hash(r);
                let found = self
                    .index
                    .get(&h)
                    .and_then(|c| c.iter().copied().find(|&i| self.groups[i].holds(r)));
                match found {
                    Some(i) => i,
                    None => {
                        let i = self.groups.len();
                        self.index.entry(h).or_default().push(i);
                        self.groups.push(Group {
                            quantity: r.quantity.clone(),
                            labels: r.labels.clone(),
                            model: r.model.clone(),
                            feature: r.feature.clone(),
                            x: r.x,
                            first: r.value,
                            values: Vec::with_capacity(self.replicates),
                        });
                        i
                    }
                }
            }
        };
        self.groups[i].values.push(r.value.estimate);
        self.cursor = i + 1;
    }

    /// The summary rows, in order of first appearance.
    pub fn finish(self, level: f64) -> Vec<SummaryRow> {
        self.groups
            .into_iter()
            .map(|g| {
                let (value, sd) = if g.values.len() == 1 {
                    (g.first, f64::NAN)
                } else {
                    let e = t_interval(&g.values, level);
                    (e, e.se * (g.values.len() as f64).sqrt())
                };
                SummaryRow {
                    quantity: g.quantity,
                    labels: g.labels,
                    model: g.model,
                    feature: g.feature,
                    x: g.x,
                    value,
                    sd,
                }
            })
            .collect()
    }
}

/// Shortest round-trip form of a number, as Rust's `Display` writes it: `0.5`, `2`,
/// `0.0000001`.
pub fn format_number(v: f64) -> String {
    format!("{v}")
}

fn num(v: f64) -> String {
    if v.is_finite() {
        format_number(v)
    } else {
        String::new()
    }
}

/// An estimate's columns, as both the tidy rows and the summary write them:
/// estimate, se, lower, upper, n.
fn estimate_fields(e: &Estimate) -> [String; 5] {
    [
        num(e.estimate),
        num(e.se),
        num(e.lower),
        num(e.upper),
        e.n.to_string(),
    ]
}

fn opt(v: Option<f64>) -> String {
    v.map(num).unwrap_or_default()
}

fn write_csv(
    path: &Path,
    header: Vec<String>,
    rows: impl Iterator<Item = Vec<String>>,
) -> Result<()> {
    let csv_err = |source| BenchError::Csv {
        path: path.to_path_buf(),
        source,
    };
    let mut w = csv::Writer::from_path(path).map_err(csv_err)?;
    w.write_record(&header).map_err(csv_err)?;
    for r in rows {
        w.write_record(&r).map_err(csv_err)?;
    }
    w.flush().map_err(|e| BenchError::Io {
        path: path.to_path_buf(),
        source: e,
    })
}

/// `tidy.csv`'s columns: grid keys, replicate, model, quantity, feature, x, estimate,
/// se, lower, upper, n.
fn tidy_header(keys: &[String]) -> Vec<String> {
    let mut header = keys.to_vec();
    header.extend(
        [
            "replicate",
            "model",
            "quantity",
            "feature",
            "x",
            "estimate",
            "se",
            "lower",
            "upper",
            "n",
        ]
        .map(String::from),
    );
    header
}

/// A row's record under [`tidy_header`]'s columns.
fn tidy_record(r: &TidyRow) -> Vec<String> {
    let mut rec = r.labels.clone();
    rec.extend([
        r.replicate.to_string(),
        r.model.clone(),
        r.quantity.clone(),
        r.feature.clone(),
        opt(r.x),
    ]);
    rec.extend(estimate_fields(&r.value));
    rec
}

/// `tidy.csv` as a table: what a front end returns for the rows.
pub fn tidy_table(keys: &[String], rows: &[TidyRow]) -> CsvTable {
    CsvTable {
        header: tidy_header(keys),
        rows: rows.iter().map(tidy_record).collect(),
    }
}

/// Writes `tidy.csv` ([`tidy_header`]), a record at a time.
pub fn write_tidy(path: &Path, keys: &[String], rows: &[TidyRow]) -> Result<()> {
    write_csv(path, tidy_header(keys), rows.iter().map(tidy_record))
}

/// The fixed columns of `summary.csv` around the grid keys.
pub fn summary_header(keys: &[String]) -> Vec<String> {
    let mut header = vec!["quantity".to_string()];
    header.extend(keys.iter().cloned());
    header.extend(
        [
            "model", "feature", "x", "estimate", "se", "lower", "upper", "n", "sd",
        ]
        .map(String::from),
    );
    header
}

/// The summary as it is written to `summary.csv`: quantity, grid keys, model,
/// feature, x, estimate, se, lower, upper, n (ARCHITECTURE.md, Outputs), and sd over
/// replicates: every field of a [`SummaryRow`], so the file reads back into the rows
/// the checks were decided on.
pub fn summary_table(keys: &[String], rows: &[SummaryRow]) -> CsvTable {
    let rows = rows
        .iter()
        .map(|r| {
            let mut rec = vec![r.quantity.clone()];
            rec.extend(r.labels.iter().cloned());
            rec.extend([r.model.clone(), r.feature.clone(), opt(r.x)]);
            rec.extend(estimate_fields(&r.value));
            rec.push(num(r.sd));
            rec
        })
        .collect();
    CsvTable {
        header: summary_header(keys),
        rows,
    }
}

/// Writes a table as CSV with its header.
pub fn write_table(path: &Path, table: &CsvTable) -> Result<()> {
    write_csv(path, table.header.clone(), table.rows.iter().cloned())
}

/// Writes `summary.csv` (see [`summary_table`]).
pub fn write_summary(path: &Path, keys: &[String], rows: &[SummaryRow]) -> Result<()> {
    let t = summary_table(keys, rows);
    write_csv(path, t.header, t.rows.into_iter())
}

/// What a column of the engine's tables holds, so that every front end types it
/// alike ([`column_kind`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnKind {
    /// Names (`model`, `quantity`, `feature`): text, whatever they look like.
    Text,
    /// Counts and indices (`replicate`, `n`, `row`): integers where every cell is one.
    Count,
    /// Anything else: numbers where every cell is one or empty (NaN), else text.
    Value,
}

/// The kind of the column named `name` in `tidy.csv`, `ice.csv`, `summary.csv` and
/// the other tables a run writes.
pub fn column_kind(name: &str) -> ColumnKind {
    match name {
        "model" | "quantity" | "feature" => ColumnKind::Text,
        "replicate" | "n" | "row" => ColumnKind::Count,
        _ => ColumnKind::Value,
    }
}

/// A CSV file as a header and string records.
#[derive(Debug, Clone, PartialEq)]
pub struct CsvTable {
    /// Column names.
    pub header: Vec<String>,
    /// Records.
    pub rows: Vec<Vec<String>>,
}

/// Reads a CSV file with a header row.
pub fn read_csv(path: &Path) -> Result<CsvTable> {
    let csv_err = |source| BenchError::Csv {
        path: path.to_path_buf(),
        source,
    };
    let mut r = csv::Reader::from_path(path).map_err(csv_err)?;
    let header = r
        .headers()
        .map_err(csv_err)?
        .iter()
        .map(String::from)
        .collect();
    let rows = r
        .records()
        .map(|rec| rec.map(|r| r.iter().map(String::from).collect()))
        .collect::<Result<_, _>>()
        .map_err(csv_err)?;
    Ok(CsvTable { header, rows })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(rep: usize, est: f64) -> TidyRow {
        TidyRow {
            labels: vec!["2".into()],
            replicate: rep,
            model: "gp".into(),
            quantity: "entropy_pfi".into(),
            feature: "X1".into(),
            x: None,
            value: Estimate {
                estimate: est,
                se: 0.1,
                lower: est - 0.2,
                upper: est + 0.2,
                n: 500,
            },
        }
    }

    #[test]
    fn summary_is_the_t_interval_over_replicates() {
        let s = summarize(&[row(0, 1.0), row(1, 2.0), row(2, 3.0)], 0.95);
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].value.estimate, 2.0);
        assert_eq!(s[0].value.n, 3);
        // sd₁ = 1, se = 1/√3, t_{0.975, 2} = 4.302653.
        assert!((s[0].value.upper - (2.0 + 4.302653 / 3f64.sqrt())).abs() < 1e-5);
        // One replicate keeps its own interval.
        let one = summarize(&[row(0, 1.0)], 0.95);
        assert_eq!(one[0].value, row(0, 1.0).value);
    }
}
