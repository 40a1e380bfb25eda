//! Choosing what a check reads: summary or per-replicate rows with their identifying
//! columns, and curves (PD from the summary, kept ICE curves), by selector.

use xai_core::Estimate;

use crate::output::RunOutput;
use crate::quantity::{Aggregation, Quantity};
use std::collections::BTreeMap;

use crate::table::{CurveRow, TidyRow, format_number};
use serde::Deserialize;

/// A scalar in a selector: a name or a number.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum Scalar {
    /// A number, matched against numeric columns.
    Number(f64),
    /// A text value.
    Text(String),
}

/// One value or a list of values.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum OneOrMany {
    /// A single value.
    One(Scalar),
    /// Any of these values.
    Many(Vec<Scalar>),
}

impl OneOrMany {
    /// The values as a list.
    pub fn values(&self) -> Vec<Scalar> {
        match self {
            OneOrMany::One(v) => vec![v.clone()],
            OneOrMany::Many(v) => v.clone(),
        }
    }
}

/// Rows of the summary whose columns take the given values (`{feature: [X1, X2]}`).
pub type Selector = BTreeMap<String, OneOrMany>;

/// Curves (PD `*_pd` from the summary, or kept ICE curves `*_ice`) and an interval
/// of the grid, as the curve-shape assertions take them.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CurveInterval {
    /// The quantity.
    pub quantity: String,
    /// The curves.
    #[serde(rename = "where")]
    pub rows: Selector,
    /// ICE only: which rows' curves.
    #[serde(default)]
    pub rows_with: Option<RowFilter>,
    /// Lower end.
    pub lower: f64,
    /// Upper end.
    pub upper: f64,
}

/// Keeps the ICE curves of rows of class `class`, and/or rows whose original value
/// of `feature` has |value| below `abs_below` and/or above `abs_above`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RowFilter {
    /// The row's class.
    #[serde(default)]
    pub class: Option<usize>,
    /// The feature whose original value is tested.
    #[serde(default)]
    pub feature: Option<String>,
    /// Keep rows with |value| < this.
    #[serde(default)]
    pub abs_below: Option<f64>,
    /// Keep rows with |value| > this.
    #[serde(default)]
    pub abs_above: Option<f64>,
}

/// A row's identifying columns (quantity, grid keys, model, feature, x) and value.
pub struct Row<'a> {
    /// (column, value) pairs.
    pub cols: Vec<(&'a str, String)>,
    /// The estimate.
    pub value: Estimate,
    /// The replicate (per-replicate rows only).
    pub replicate: Option<usize>,
}

impl Row<'_> {
    /// The value of column `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.cols
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Whether the row's columns take the values `sel` asks for.
    pub fn matches(&self, sel: &Selector) -> bool {
        selected(&self.cols, sel)
    }

    /// The columns other than `skip` (and the replicate): rows with equal contexts
    /// are compared with each other.
    pub fn context(&self, skip: &[&str]) -> Vec<String> {
        self.cols
            .iter()
            .filter(|(k, _)| !skip.contains(k))
            .map(|(k, v)| format!("{k}={v}"))
            .collect()
    }

    /// The non-empty values of the columns other than `skip` and the quantity, joined
    /// by spaces: which group a check's line speaks of ("molnar_linear boot lm 15").
    pub fn label(&self, skip: &[&str]) -> String {
        self.cols
            .iter()
            .filter(|(k, v)| !skip.contains(k) && *k != "quantity" && !v.is_empty())
            .map(|(_, v)| v.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The row's values of the columns (grid keys, model, grid point; not the
    /// quantity, the feature or `skip`) in which `rows` differ, each followed by a
    /// space: which of the rows a check's line speaks of ("molnar_nonlinear 100 tree
    /// 2 "), nothing where all rows share them.
    pub fn varying(&self, rows: &[&Row<'_>], skip: &[&str]) -> String {
        self.cols
            .iter()
            .filter(|(k, _)| !matches!(*k, "quantity" | "feature") && !skip.contains(k))
            .filter(|(k, v)| rows.iter().any(|r| r.get(k) != Some(v.as_str())))
            .map(|(_, v)| format!("{v} "))
            .collect()
    }

    /// "feature estimate [lower, upper]" (no feature where the row has none, and the
    /// estimate alone where the values behind it are equal, see [`interval`]), after
    /// "replicate k " for a per-replicate row.
    pub fn show(&self) -> String {
        let v = &self.value;
        let feature = self.get("feature").unwrap_or("");
        format!(
            "{}{}{}",
            self.replicate
                .map_or(String::new(), |k| format!("replicate {k} ")),
            if feature.is_empty() {
                String::new()
            } else {
                format!("{feature} ")
            },
            interval(v)
        )
    }
}

/// Whether columns `cols` take the values `sel` asks for.
pub fn selected(cols: &[(&str, String)], sel: &Selector) -> bool {
    sel.iter().all(|(col, want)| {
        let Some((_, have)) = cols.iter().find(|(k, _)| k == col) else {
            return false;
        };
        want.values().iter().any(|w| match w {
            Scalar::Text(t) => t == have,
            Scalar::Number(n) => have.parse::<f64>().is_ok_and(|h| h == *n),
        })
    })
}

/// A number with four decimals, as details show them.
pub fn short(v: f64) -> String {
    format!("{v:.4}")
}

/// "estimate [lower, upper]", or "estimate (no spread: equal values)" where the
/// values behind the estimate are all equal, so that a deterministic model's number
/// copied over replicates (icefi2022's forest, a fit on every row) reads as one
/// number and not as an interval. Equal means a width of rounding alone: the mean of
/// n ≤ 10⁴ equal doubles errs by at most n·ε ≈ 2·10⁻¹² relative, so an interval no
/// wider than 10⁻¹¹·max(|estimate|, 10⁻³⁰⁰) holds equal values and nothing else that
/// a run of ≤ 10⁴ replicates can produce at printed precision.
pub fn interval(e: &Estimate) -> String {
    if equal_values(e) {
        format!("{} (no spread: equal values)", short(e.estimate))
    } else {
        format!(
            "{} [{}, {}]",
            short(e.estimate),
            short(e.lower),
            short(e.upper)
        )
    }
}

/// Whether an estimate's interval is the rounding of equal values (see [`interval`]).
pub fn equal_values(e: &Estimate) -> bool {
    e.upper - e.lower <= 1e-11 * e.estimate.abs().max(1e-300)
}

/// The identifying columns of a row.
fn columns<'a>(
    keys: &'a [String],
    quantity: &str,
    labels: &[String],
    model: &str,
    feature: &str,
) -> Vec<(&'a str, String)> {
    let mut cols = vec![("quantity", quantity.to_string())];
    cols.extend(keys.iter().map(String::as_str).zip(labels.iter().cloned()));
    cols.push(("model", model.to_string()));
    cols.push(("feature", feature.to_string()));
    cols
}

/// An item's quantity, grid labels, model, feature, grid point, value and replicate.
type Parts<'r> = (
    &'r str,
    &'r [String],
    &'r str,
    &'r str,
    Option<f64>,
    Estimate,
    Option<usize>,
);

/// The rows of a run's summary or tidy table with their identifying columns; `parts`
/// reads an item's [`Parts`].
fn rows_of<'a, T>(
    keys: &'a [String],
    items: &[T],
    parts: impl Fn(&T) -> Parts<'_>,
) -> Vec<Row<'a>> {
    items
        .iter()
        .map(|item| {
            let (quantity, labels, model, feature, x, value, replicate) = parts(item);
            let mut cols = columns(keys, quantity, labels, model, feature);
            cols.push(("x", x.map(format_number).unwrap_or_default()));
            Row {
                cols,
                value,
                replicate,
            }
        })
        .collect()
}

/// The summary rows (mean over replicates) of a run.
pub fn summary_rows(out: &RunOutput) -> Vec<Row<'_>> {
    rows_of(&out.keys, &out.summary, |r| {
        (
            &r.quantity,
            &r.labels,
            &r.model,
            &r.feature,
            r.x,
            r.value,
            None,
        )
    })
}

/// The per-replicate rows of a run.
pub fn tidy_rows(out: &RunOutput) -> Vec<Row<'_>> {
    rows_of(&out.keys, &out.tidy, tidy_parts)
}

/// One per-replicate row with its identifying columns.
pub fn tidy_row<'a>(keys: &'a [String], r: &TidyRow) -> Row<'a> {
    rows_of(keys, std::slice::from_ref(r), tidy_parts)
        .pop()
        .expect("one row")
}

/// The [`Parts`] of a per-replicate row.
fn tidy_parts(r: &TidyRow) -> Parts<'_> {
    (
        &r.quantity,
        &r.labels,
        &r.model,
        &r.feature,
        r.x,
        r.value,
        Some(r.replicate),
    )
}

/// The identifying columns of a kept ICE curve: quantity, grid keys, model, feature
/// and `row` ("replicate/row").
pub fn curve_columns<'a>(keys: &'a [String], c: &CurveRow) -> Vec<(&'a str, String)> {
    let mut cols = columns(keys, &c.quantity, &c.labels, &c.model, &c.feature);
    cols.push(("row", format!("{}/{}", c.replicate, c.row)));
    cols
}

/// The rows of quantity `q`.
pub fn of_quantity<'a, 'b>(rows: &'b [Row<'a>], q: &str) -> Vec<&'b Row<'a>> {
    rows.iter()
        .filter(|r| r.get("quantity") == Some(q))
        .collect()
}

/// `rows` grouped by their context without the columns `skip` (and per replicate
/// for tidy rows), in order of first appearance.
pub fn grouped<'r, 'a>(rows: &[&'r Row<'a>], skip: &[&str]) -> Vec<(String, Vec<&'r Row<'a>>)> {
    let mut groups: Vec<(String, Vec<&Row<'_>>)> = Vec::new();
    for r in rows {
        let mut key = r.context(skip).join(",");
        if let Some(rep) = r.replicate {
            key = format!("{key},replicate={rep}");
        }
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, g)) => g.push(r),
            None => groups.push((key, vec![r])),
        }
    }
    groups
}

/// A curve over a grid: a PD from the summary or a kept ICE curve.
pub struct Curve<'a> {
    /// quantity, grid keys, model, feature (and row for ICE).
    pub cols: Vec<(&'a str, String)>,
    /// Grid points.
    pub xs: Vec<f64>,
    /// Values.
    pub ys: Vec<f64>,
    /// Standard errors (0 for ICE curves).
    pub se: Vec<f64>,
    /// ICE: the row's own value of the varied feature.
    pub own: Option<f64>,
}

impl Curve<'_> {
    /// The curve's columns after the quantity, as text.
    pub fn describe(&self) -> String {
        self.cols
            .iter()
            .skip(1)
            .map(|(_, v)| v.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Its grid keys, model and feature: the PD of an ICE curve has the same.
    pub fn context(&self, n_keys: usize) -> Vec<String> {
        self.cols[1..self.cols.len().min(n_keys + 3)]
            .iter()
            .map(|(_, v)| v.clone())
            .collect()
    }
}

/// Index of the largest value.
pub fn argmax(v: &[f64]) -> usize {
    (0..v.len()).fold(0, |best, i| if v[i] > v[best] { i } else { best })
}

/// Index of the smallest value.
pub fn argmin(v: &[f64]) -> usize {
    (0..v.len()).fold(0, |best, i| if v[i] < v[best] { i } else { best })
}

/// The curves of `quantity` selected by `sel` (and, for ICE, `filter`): ICE curves
/// (`*_ice`) from the kept curves, anything else as PD curves from the summary.
pub fn curves<'a>(
    out: &'a RunOutput,
    quantity: &str,
    sel: &Selector,
    filter: Option<&RowFilter>,
) -> Vec<Curve<'a>> {
    let keys = &out.keys;
    let index = |name: &str| out.feature_names.iter().position(|n| n == name);
    let ice = Quantity::parse(quantity).is_some_and(|q| {
        q.aggregation == Some(Aggregation::Ice) && q.inference.is_empty() && q.suffixes.is_empty()
    });
    if ice {
        return out
            .curves
            .iter()
            .filter(|c| c.quantity == quantity)
            .filter(|c| {
                filter.is_none_or(|f| {
                    f.class.is_none_or(|k| c.row_class == Some(k))
                        && f.feature.as_ref().is_none_or(|name| {
                            index(name)
                                .and_then(|j| c.row_values.get(j))
                                .is_some_and(|v| {
                                    let v = v.abs();
                                    f.abs_below.is_none_or(|b| v < b)
                                        && f.abs_above.is_none_or(|b| v > b)
                                })
                        })
                })
            })
            .map(|c| {
                let cols = curve_columns(keys, c);
                Curve {
                    cols,
                    xs: c.grid.clone(),
                    ys: c.values.clone(),
                    se: vec![0.0; c.grid.len()],
                    own: index(&c.feature).and_then(|j| c.row_values.get(j).copied()),
                }
            })
            .filter(|c| selected(&c.cols, sel))
            .collect();
    }
    let mut list: Vec<Curve<'a>> = Vec::new();
    for r in out.summary.iter().filter(|r| r.quantity == quantity) {
        let cols = columns(keys, quantity, &r.labels, &r.model, &r.feature);
        if !selected(&cols, sel) {
            continue;
        }
        let i = match list.iter().position(|c| c.cols == cols) {
            Some(i) => i,
            None => {
                list.push(Curve {
                    cols,
                    xs: Vec::new(),
                    ys: Vec::new(),
                    se: Vec::new(),
                    own: None,
                });
                list.len() - 1
            }
        };
        let c = &mut list[i];
        c.xs.push(r.x.unwrap_or(f64::NAN));
        c.ys.push(r.value.estimate);
        c.se.push(if r.value.se.is_finite() {
            r.value.se
        } else {
            0.0
        });
    }
    list
}

/// The curves a curve-interval assertion selects.
pub fn interval_curves<'a>(ci: &CurveInterval, out: &'a RunOutput) -> Vec<Curve<'a>> {
    curves(out, &ci.quantity, &ci.rows, ci.rows_with.as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::{TidyRow, summarize};

    fn row(rep: usize, est: f64) -> TidyRow {
        TidyRow {
            labels: Vec::new(),
            replicate: rep,
            model: "forest".into(),
            quantity: "prediction_fi".into(),
            feature: "Age".into(),
            x: None,
            value: Estimate {
                estimate: est,
                se: f64::NAN,
                lower: f64::NAN,
                upper: f64::NAN,
                n: 1,
            },
        }
    }

    #[test]
    fn equal_replicates_read_as_one_number_and_unequal_ones_as_an_interval() {
        // 0.1 + 0.2 copied over 50 replicates: their mean is off by rounding, so the
        // t-interval has a width of about 1e-17 that is no spread at all.
        let v = 0.1 + 0.2;
        let equal: Vec<TidyRow> = (0..50).map(|r| row(r, v)).collect();
        let s = &summarize(&equal, 0.95)[0].value;
        assert!(equal_values(s));
        assert_eq!(interval(s), "0.3000 (no spread: equal values)");
        // One replicate apart by a part in 10^9 is a spread and shows its interval.
        let mut apart = equal;
        apart[7] = row(7, v * (1.0 + 1e-9));
        let s = &summarize(&apart, 0.95)[0].value;
        assert!(!equal_values(s));
        assert_eq!(interval(s), "0.3000 [0.3000, 0.3000]");
        // No interval (one value behind it) is not "equal values".
        let none = Estimate {
            estimate: 1.0,
            se: f64::NAN,
            lower: f64::NAN,
            upper: f64::NAN,
            n: 1,
        };
        assert!(!equal_values(&none));
        assert_eq!(interval(&none), "1.0000 [NaN, NaN]");
    }
}
