//! Tables in a paper's layout (`tables:` of an experiment): our estimate beside the
//! paper's value, cell by cell, as `<name>.csv` and `<name>.md`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use serde::Deserialize;

use crate::output::RunOutput;
use crate::select::{OneOrMany, Row, Scalar, Selector, summary_rows};
use crate::table::{CsvTable, write_table};
use xai_error::{BenchError, Result, io_err};

/// A table in the paper's layout, written as `<name>.csv` and `<name>.md`: a row per
/// combination of the `rows` keys' values, a column per entry of `columns`; a cell is
/// our estimate and, in parentheses, the paper's value, taken from the `near` check
/// that names that cell (its `where` gives every `rows` key; the most specific wins)
/// or else from the column's `paper` values.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TableSpec {
    /// File stem (`table1` → `table1.csv`, `table1.md`).
    pub name: String,
    /// Grid keys (or `model`, or `feature`) whose values make the rows, slowest first.
    pub rows: Vec<String>,
    /// The columns, left to right.
    pub columns: Vec<ColumnSpec>,
    /// Decimals of the Markdown cells (default 2, as molnar2023 Table 1).
    #[serde(default = "default_decimals")]
    pub decimals: usize,
}

fn default_decimals() -> usize {
    2
}

/// A column of a [`TableSpec`]: one summary row per table row.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ColumnSpec {
    /// The column's header ("PD boot*").
    pub header: String,
    /// The quantity shown.
    pub quantity: String,
    /// The rows of the quantity it shows (with the table row's keys, exactly one).
    #[serde(rename = "where", default)]
    pub rows_where: Selector,
    /// Show the sd over replicates beside the mean, "mean, sd s" (molnar2023 Table 2's
    /// width columns, "mean (sd)").
    #[serde(default)]
    pub sd: bool,
    /// The paper's values of cells no `near` check names, by the table row's key
    /// values joined with ", " (icefi2022 App. C: 32 features × 5 columns shown beside
    /// ours, of which only some are claims the run checks). A `near` check's value
    /// takes precedence.
    #[serde(default)]
    pub paper: BTreeMap<String, f64>,
}

/// One cell: our estimate, its spread over replicates, the paper's value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cell {
    /// Mean over replicates.
    pub ours: f64,
    /// The sd over the R replicates.
    pub sd: f64,
    /// sd / √R, the Monte-Carlo se of the mean.
    pub se: f64,
    /// The paper's value, where a `near` check names the cell or the column lists it.
    pub paper: Option<f64>,
}

/// A filled table: the values of its row keys and a cell per column.
pub struct Filled {
    /// Per table row, the row keys' values.
    pub rows: Vec<Vec<String>>,
    /// Per table row, per column, the cell (None where the run has no such row).
    pub cells: Vec<Vec<Option<Cell>>>,
}

/// A paper's number for the rows of `quantity` that `rows` selects (a `near` check's
/// value, `xai_checks::AssertionKind::paper_value`).
#[derive(Debug, Clone, Copy)]
pub struct PaperValue<'a> {
    /// The quantity.
    pub quantity: &'a str,
    /// The rows it is given for.
    pub rows: &'a Selector,
    /// The paper's number.
    pub value: f64,
}

/// The paper's value for `row` of `quantity`: the one of `paper` on `quantity` whose
/// selector names every key of `keys` and selects `row`; the most specific one.
fn paper_value(
    paper: &[PaperValue<'_>],
    quantity: &str,
    keys: &[String],
    row: &Row<'_>,
) -> Option<f64> {
    paper
        .iter()
        .filter(|p| {
            p.quantity == quantity
                && keys.iter().all(|k| p.rows.contains_key(k))
                && row.matches(p.rows)
        })
        .map(|p| (p.rows.len(), p.value))
        .max_by_key(|&(specific, _)| specific)
        .map(|(_, v)| v)
}

/// Fills `table` from the run's summary; the paper's values from the column's
/// `paper:` list, or where one of `paper` names the cell, its value.
pub fn fill(paper: &[PaperValue<'_>], table: &TableSpec, out: &RunOutput) -> Result<Filled> {
    // Row i of `summary_rows` is `out.summary[i]`, whose sd gives the se.
    let summary = summary_rows(out);
    let in_column = |r: &Row<'_>, c: usize| {
        let col = &table.columns[c];
        r.get("quantity") == Some(col.quantity.as_str()) && r.matches(&col.rows_where)
    };
    let mut rows: Vec<Vec<String>> = Vec::new();
    for r in summary
        .iter()
        .filter(|r| (0..table.columns.len()).any(|c| in_column(r, c)))
    {
        let values: Vec<String> = table
            .rows
            .iter()
            .map(|k| r.get(k).unwrap_or_default().to_string())
            .collect();
        if !rows.contains(&values) {
            rows.push(values);
        }
    }
    // Rows in the order of the keys, slowest first; each key's values in the order
    // the run reports them.
    let rank = |k: usize, v: &String| rows.iter().position(|r| r[k] == *v).unwrap_or(0);
    let mut order: Vec<(Vec<usize>, Vec<String>)> = rows
        .iter()
        .map(|r| ((0..r.len()).map(|k| rank(k, &r[k])).collect(), r.clone()))
        .collect();
    order.sort();
    let rows: Vec<Vec<String>> = order.into_iter().map(|(_, r)| r).collect();
    for col in &table.columns {
        if let Some(unknown) = col
            .paper
            .keys()
            .find(|k| !rows.iter().any(|r| &r.join(", ") == *k))
        {
            return Err(BenchError::Table {
                table: table.name.clone(),
                column: col.header.clone(),
                message: format!(
                    "the paper's value for `{unknown}` names no row of the table; rows are \
                     named by their {} values joined with \", \"",
                    table.rows.join(", ")
                ),
            });
        }
    }
    let mut cells = Vec::with_capacity(rows.len());
    for values in &rows {
        let of_row: Selector = table
            .rows
            .iter()
            .zip(values)
            .map(|(k, v)| (k.clone(), OneOrMany::One(Scalar::Text(v.clone()))))
            .collect();
        let mut line = Vec::with_capacity(table.columns.len());
        for (c, col) in table.columns.iter().enumerate() {
            let found: Vec<(&Row<'_>, f64)> = summary
                .iter()
                .zip(&out.summary)
                .filter(|(r, _)| in_column(r, c) && r.matches(&of_row))
                .map(|(r, s)| (r, s.sd))
                .collect();
            if found.len() > 1 {
                return Err(BenchError::Table {
                    table: table.name.clone(),
                    column: col.header.clone(),
                    message: format!(
                        "{} summary rows for {}; narrow the column's `where` to one",
                        found.len(),
                        values.join(", ")
                    ),
                });
            }
            line.push(found.first().map(|&(r, sd)| {
                Cell {
                    ours: r.value.estimate,
                    sd,
                    se: sd / (out.replicates as f64).sqrt(),
                    paper: paper_value(paper, &col.quantity, &table.rows, r)
                        .or_else(|| col.paper.get(&values.join(", ")).copied()),
                }
            }));
        }
        cells.push(line);
    }
    Ok(Filled { rows, cells })
}

/// Writes every table of `tables` as `<name>.csv` (row keys, column, ours, se,
/// paper) and `<name>.md` (the paper's layout, cells "ours (paper)"; keys and values
/// named by `labels`).
pub fn write(
    tables: &[TableSpec],
    (paper, labels): (&[PaperValue<'_>], &BTreeMap<String, String>),
    out: &RunOutput,
    dir: &Path,
) -> Result<()> {
    for table in tables {
        let filled = fill(paper, table, out)?;
        let csv_path = dir.join(format!("{}.csv", table.name));
        let mut csv = CsvTable {
            header: table
                .rows
                .iter()
                .cloned()
                .chain(["column", "ours", "se", "paper"].map(String::from))
                .collect(),
            rows: Vec::new(),
        };
        let mut md = format!(
            "| {} | {} |\n|{}\n",
            table
                .rows
                .iter()
                .map(|k| labels.get(k).map_or(k.as_str(), String::as_str))
                .collect::<Vec<_>>()
                .join(" | "),
            table
                .columns
                .iter()
                .map(|c| c.header.as_str())
                .collect::<Vec<_>>()
                .join(" | "),
            "---|".repeat(table.rows.len() + table.columns.len())
        );
        let mut largest_se: f64 = 0.0;
        for (values, line) in filled.rows.iter().zip(&filled.cells) {
            let shown: Vec<&str> = values
                .iter()
                .map(|v| labels.get(v).map_or(v.as_str(), String::as_str))
                .collect();
            let mut md_cells = Vec::new();
            for (col, cell) in table.columns.iter().zip(line) {
                let number = |v: f64| format!("{v:.*}", table.decimals);
                match cell {
                    Some(c) => {
                        csv.rows.push(
                            values
                                .iter()
                                .cloned()
                                .chain([
                                    col.header.clone(),
                                    c.ours.to_string(),
                                    c.se.to_string(),
                                    c.paper.map(|p| p.to_string()).unwrap_or_default(),
                                ])
                                .collect(),
                        );
                        largest_se = largest_se.max(c.se);
                        let ours = match col.sd {
                            true => format!("{}, sd {}", number(c.ours), number(c.sd)),
                            false => number(c.ours),
                        };
                        md_cells.push(match c.paper {
                            Some(p) => format!("{ours} ({})", number(p)),
                            None => ours,
                        });
                    }
                    None => md_cells.push(String::new()),
                }
            }
            let _ = writeln!(md, "| {} | {} |", shown.join(" | "), md_cells.join(" | "));
        }
        let _ = writeln!(
            md,
            "\nEach cell: ours (paper). Ours is the mean over {} replicates{}; its largest Monte-Carlo se is {:.3}.",
            out.replicates,
            match table.columns.iter().any(|c| c.sd) {
                true => " (\"mean, sd s\": with the sd s over replicates)",
                false => "",
            },
            largest_se
        );
        write_table(&csv_path, &csv)?;
        let md_path = dir.join(format!("{}.md", table.name));
        std::fs::write(&md_path, md).map_err(io_err(&md_path))?;
    }
    Ok(())
}
