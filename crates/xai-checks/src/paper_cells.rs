//! The `paper_cells` assertion: a table's cells against the paper's printed digits.

use serde::Deserialize;

use crate::tolerance::Threshold;

use super::{AssertionKind, Context, Reads, Verdict, nan_max};
use xai_results::Invalid;
use xai_results::layout::TableSpec;
use xai_results::output::RunOutput;
use xai_results::select::short;

/// Every cell of table `table` (its `columns`, by header; default all) that shows the
/// paper's value equals it to the printed digits: |ours − paper| ≤ ½·10^−d with d =
/// `decimals`, or with `significant` = s, half a unit in the paper value's s-th
/// significant digit (0 exactly, up to 1e-12). icefi2022's tables on the paper's own
/// forest. Measured: the largest |ours − paper| in units of that half digit (the claim
/// holds at ≤ 1; NaN when no cell has a paper value).
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PaperCells {
    /// The table's `name`.
    pub table: String,
    /// The columns compared, by header (default: every column).
    #[serde(default)]
    pub columns: Vec<String>,
    /// The paper's decimals.
    #[serde(default)]
    pub decimals: Option<u32>,
    /// The paper's significant digits (instead of `decimals`).
    #[serde(default)]
    pub significant: Option<u32>,
}

impl AssertionKind for PaperCells {
    fn thresholds(&self) -> Vec<Threshold> {
        Vec::new()
    }

    /// None of its own: the quantities of the table's columns, checked with the table.
    fn quantities(&self) -> Vec<&String> {
        Vec::new()
    }

    fn reads(&self) -> Reads<'_> {
        Reads::summary()
    }

    fn validate(&self, tables: &[TableSpec]) -> Result<(), Invalid> {
        let table = &self.table;
        let Some(t) = tables.iter().find(|t| &t.name == table) else {
            return Err(Invalid::new(
                table,
                format!("paper_cells names no table `{table}`"),
            ));
        };
        if let Some(h) = self
            .columns
            .iter()
            .find(|h| !t.columns.iter().any(|c| &c.header == *h))
        {
            return Err(Invalid::new(
                h,
                format!("table `{table}` has no column `{h}`"),
            ));
        }
        if self.decimals.is_some() == self.significant.is_some() {
            return Err(Invalid::new(
                table,
                "paper_cells needs the paper's print precision: `decimals: d` or \
                 `significant: s`, one of them",
            ));
        }
        Ok(())
    }

    fn verdict(&self, ctx: &Context<'_>) -> Verdict {
        match ctx.tables.iter().find(|t| t.name == self.table) {
            Some(t) => paper_cells(ctx.out, t, &self.columns, (self.decimals, self.significant)),
            None => Verdict::no_rows(&format!("no table `{}`", self.table)),
        }
    }
}

/// [`PaperCells`]: every cell of `table`'s `columns` (all when
/// empty) with a value in the column's `paper:` list equals it to the printed digits
/// (`decimals`, or `significant` digits of the paper's value). Measured: the largest
/// |ours − paper| over its half-digit tolerance (NaN when no cell has a paper value).
fn paper_cells(
    out: &RunOutput,
    table: &TableSpec,
    columns: &[String],
    (decimals, significant): (Option<u32>, Option<u32>),
) -> Verdict {
    let filled = match xai_results::layout::fill(&[], table, out) {
        Ok(f) => f,
        Err(e) => return Verdict::no_rows(&e.to_string()),
    };
    let half_digit = |paper: f64| match (decimals, significant) {
        (Some(d), _) => 0.5 * 10f64.powi(-(d as i32)),
        (None, Some(s)) if paper != 0.0 => {
            0.5 * 10f64.powi(paper.abs().log10().floor() as i32 - s as i32 + 1)
        }
        _ => 1e-12,
    };
    let (mut compared, mut worst) = (0usize, 0.0f64);
    let mut off = Vec::new();
    for (c, col) in table.columns.iter().enumerate() {
        if !columns.is_empty() && !columns.contains(&col.header) {
            continue;
        }
        for (row, line) in filled.rows.iter().zip(&filled.cells) {
            let Some((ours, paper)) = line[c].as_ref().and_then(|x| Some((x.ours, x.paper?)))
            else {
                continue;
            };
            compared += 1;
            let ratio = (ours - paper).abs() / half_digit(paper);
            worst = nan_max(worst, ratio);
            // A NaN estimate is off too.
            if ratio.is_nan() || ratio > 1.0 {
                off.push(format!(
                    "{} / {}: {} vs {paper}",
                    row.join(", "),
                    col.header,
                    short(ours)
                ));
            }
        }
    }
    if compared == 0 {
        return Verdict::no_rows(&format!(
            "no cell of table `{}` shows a paper value",
            table.name
        ));
    }
    let detail = format!(
        "{} of {compared} cells equal the paper's to the printed digits{}",
        compared - off.len(),
        match off.is_empty() {
            true => String::new(),
            false => format!("; off: {}", off.join("; ")),
        }
    );
    Verdict::new(off.is_empty(), worst, detail)
}
