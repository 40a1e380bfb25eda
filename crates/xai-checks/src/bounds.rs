//! Assertions on each selected row against a bound: its interval above a bound
//! (`positive`) or below one (`below`), the share of replicates whose interval
//! excludes 0 (`excludes_zero`), its estimate near a paper's value (`near`) or
//! negligible (`negligible`).

use serde::Deserialize;

use super::{AssertionKind, Context, Reads, Verdict, nan_max, nan_min};
use crate::tolerance::{PaperError, Threshold};
use xai_results::Invalid;
use xai_results::layout::{PaperValue, TableSpec};
use xai_results::select::Selector;
use xai_results::select::{Row, of_quantity, short, summary_rows, tidy_rows};

/// Every selected row of `rows` (the summary's, or the per-replicate rows)
/// satisfies `pred`; measured is `measure` folded by `worst` (the least favourable
/// row's number).
fn every(
    rows: &[Row<'_>],
    quantity: &str,
    sel: &Selector,
    pred: impl Fn(&Row<'_>) -> bool,
    measure: impl Fn(&Row<'_>) -> f64,
    worst: fn(f64, f64) -> f64,
    what: &str,
) -> Verdict {
    let chosen: Vec<_> = of_quantity(rows, quantity)
        .into_iter()
        .filter(|r| r.matches(sel))
        .collect();
    if chosen.is_empty() {
        return Verdict::no_rows("no rows match the selection");
    }
    let measured = chosen
        .iter()
        .map(|r| measure(r))
        .reduce(worst)
        .unwrap_or(f64::NAN);
    let bad: Vec<String> = chosen
        .iter()
        .filter(|r| !pred(r))
        .map(|r| r.varying(&chosen, &[]) + &r.show())
        .collect();
    if bad.is_empty() {
        let shown: Vec<String> = chosen
            .iter()
            .map(|r| r.varying(&chosen, &[]) + &r.show())
            .collect();
        Verdict::new(true, measured, format!("{what}: {}", shown.join("; ")))
    } else {
        Verdict::new(false, measured, format!("not {what}: {}", bad.join("; ")))
    }
}

/// Every selected row's interval lies above `above` (default 0): lower > above;
/// with `each_replicate`, every replicate's own estimate of every selected row does
/// (watson2023 Fig. 3b: "in all trials" every AUC is above chance, 0.5). Measured: the
/// smallest lower end (the smallest estimate with `each_replicate`).
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Positive {
    /// The quantity.
    pub quantity: String,
    /// The rows.
    #[serde(rename = "where")]
    pub rows: Selector,
    /// The bound the intervals must clear (default 0).
    #[serde(default)]
    pub above: f64,
    /// Ask it of each replicate's estimate (the per-replicate rows) instead of the
    /// interval of the mean.
    #[serde(default)]
    pub each_replicate: bool,
}

impl AssertionKind for Positive {
    fn thresholds(&self) -> Vec<Threshold> {
        Threshold::unless("above", self.above, 0.0)
    }

    fn quantities(&self) -> Vec<&String> {
        vec![&self.quantity]
    }

    fn reads(&self) -> Reads<'_> {
        match self.each_replicate {
            true => Reads::per_replicate(vec![(&self.quantity, &self.rows)]),
            false => Reads::summary(),
        }
    }

    fn verdict(&self, ctx: &Context<'_>) -> Verdict {
        let above = self.above;
        match self.each_replicate {
            false => every(
                &summary_rows(ctx.out),
                &self.quantity,
                &self.rows,
                |r| r.value.lower > above,
                |r| r.value.lower,
                nan_min,
                &format!("lower > {above}"),
            ),
            true => every(
                &tidy_rows(ctx.out),
                &self.quantity,
                &self.rows,
                |r| r.value.estimate > above,
                |r| r.value.estimate,
                nan_min,
                &format!("each replicate's estimate > {above}"),
            ),
        }
    }
}

/// For every selected row, the share of replicates whose own interval excludes 0
/// (lower > 0 or upper < 0) is at least `at_least` and at most `at_most` (give one or
/// both): a claim about the intervals one fit reports (molnar2023 Fig. 6: only
/// ST_Slope's and ChestPainType's PFI intervals exclude 0). Measured: the smallest
/// share under `at_least`, else the largest.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExcludesZero {
    /// The quantity.
    pub quantity: String,
    /// The rows.
    #[serde(rename = "where")]
    pub rows: Selector,
    /// Smallest share accepted.
    #[serde(default)]
    pub at_least: Option<f64>,
    /// Largest share accepted.
    #[serde(default)]
    pub at_most: Option<f64>,
}

impl AssertionKind for ExcludesZero {
    fn thresholds(&self) -> Vec<Threshold> {
        [
            self.at_least.map(|v| Threshold::always("at_least", v)),
            self.at_most.map(|v| Threshold::always("at_most", v)),
        ]
        .into_iter()
        .flatten()
        .collect()
    }

    fn quantities(&self) -> Vec<&String> {
        vec![&self.quantity]
    }

    fn reads(&self) -> Reads<'_> {
        Reads::per_replicate(vec![(&self.quantity, &self.rows)])
    }

    fn verdict(&self, ctx: &Context<'_>) -> Verdict {
        let (at_least, at_most) = (self.at_least, self.at_most);
        let lo = at_least.unwrap_or(0.0);
        let hi = at_most.unwrap_or(1.0);
        if (at_least.is_none() && at_most.is_none())
            || at_least.is_some_and(|v| !(v > 0.0 && v <= 1.0))
            || at_most.is_some_and(|v| !(0.0..1.0).contains(&v))
            || lo > hi
        {
            return Verdict::no_rows(
                "excludes_zero needs at_least in (0, 1] and/or at_most in [0, 1), at_least <= at_most: \
                 other bounds cannot fail or cannot pass",
            );
        }
        let tidy = tidy_rows(ctx.out);
        let mut groups: Vec<(String, usize, usize)> = Vec::new();
        for r in of_quantity(&tidy, &self.quantity)
            .into_iter()
            .filter(|r| r.matches(&self.rows))
        {
            if !(r.value.lower.is_finite() && r.value.upper.is_finite()) {
                return Verdict::no_rows(&format!(
                    "{} has no interval in replicate {} (fewer than 2 values behind it)",
                    r.get("feature").unwrap_or(""),
                    r.replicate.unwrap_or(0)
                ));
            }
            let key = r.context(&[]).join(",");
            let excludes = usize::from(r.value.lower > 0.0 || r.value.upper < 0.0);
            match groups.iter_mut().find(|g| g.0 == key) {
                Some(g) => {
                    g.1 += excludes;
                    g.2 += 1;
                }
                None => groups.push((key, excludes, 1)),
            }
        }
        if groups.is_empty() {
            return Verdict::no_rows("no rows match the selection");
        }
        let feature = |key: &str| {
            key.split(',')
                .find_map(|c| c.strip_prefix("feature="))
                .unwrap_or("")
                .to_string()
        };
        let mut holds = true;
        let mut parts = Vec::new();
        let shares: Vec<f64> = groups
            .iter()
            .map(|(key, k, n)| {
                let share = *k as f64 / *n as f64;
                let ok =
                    at_least.is_none_or(|lo| share >= lo) && at_most.is_none_or(|hi| share <= hi);
                holds &= ok;
                parts.push(format!(
                    "{}{} {k} of {n}",
                    if ok { "" } else { "NOT " },
                    feature(key)
                ));
                share
            })
            .collect();
        let measured = match at_least {
            Some(_) => shares.iter().copied().fold(f64::INFINITY, f64::min),
            None => shares.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        };
        let bounds = match (at_least, at_most) {
            (Some(lo), Some(hi)) => format!("in [{lo}, {hi}]"),
            (Some(lo), None) => format!(">= {lo}"),
            (None, Some(hi)) => format!("<= {hi}"),
            (None, None) => unreachable!("checked above"),
        };
        Verdict::new(
            holds,
            measured,
            format!(
                "share of replicates whose interval excludes 0 {bounds}: {}",
                parts.join("; ")
            ),
        )
    }
}

/// Every selected row's estimate lies within `tolerance` + `plus_se`·√(se² +
/// se_paper²) of `value` (the allowance of [`crate::tolerance`]): se is the row's
/// Monte-Carlo standard error over replicates, se_paper the paper's own
/// ([`PaperError`]), and `tolerance` the paper's printed precision or a derived
/// margin (its source in the check's `tolerance_from`), so the check tightens as
/// replicates grow. Measured: the largest |estimate − value|.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Near {
    /// The quantity.
    pub quantity: String,
    /// The rows.
    #[serde(rename = "where")]
    pub rows: Selector,
    /// The expected value (a paper's number, or a population value derived in
    /// PAPERS.md).
    pub value: f64,
    /// The largest |estimate − value| accepted beyond the Monte-Carlo allowance
    /// (default 0).
    #[serde(default)]
    pub tolerance: f64,
    /// k: multiples of the combined Monte-Carlo se added to the tolerance (default 0).
    #[serde(default)]
    pub plus_se: f64,
    /// The Monte-Carlo error of the paper's number (default none).
    #[serde(default)]
    pub paper_error: PaperError,
}

impl Near {
    /// The allowance of row `r`: tolerance + k·√(se² + se_paper²).
    pub fn allowed(&self, se: f64, n: usize) -> f64 {
        match self.plus_se {
            0.0 => self.tolerance,
            k => self.tolerance + k * se.hypot(self.paper_error.se(self.value, se, n)),
        }
    }

    /// The allowance in words: "±(0.005 + 3 combined se (…))".
    pub fn describe_allowance(&self) -> String {
        match self.plus_se {
            0.0 => format!("±{}", self.tolerance),
            k => format!(
                "±({} + {k} {})",
                self.tolerance,
                self.paper_error.describe()
            ),
        }
    }
}

impl AssertionKind for Near {
    fn thresholds(&self) -> Vec<Threshold> {
        Threshold::unless("tolerance", self.tolerance, 0.0)
    }

    fn quantities(&self) -> Vec<&String> {
        vec![&self.quantity]
    }

    fn paper_value(&self) -> Option<PaperValue<'_>> {
        Some(PaperValue {
            quantity: &self.quantity,
            rows: &self.rows,
            value: self.value,
        })
    }

    fn validate(&self, _tables: &[TableSpec]) -> Result<(), Invalid> {
        self.paper_error.validate(self.value)
    }

    fn reads(&self) -> Reads<'_> {
        Reads::summary()
    }

    fn verdict(&self, ctx: &Context<'_>) -> Verdict {
        let value = self.value;
        every(
            &summary_rows(ctx.out),
            &self.quantity,
            &self.rows,
            |r| (r.value.estimate - value).abs() <= self.allowed(r.value.se, r.value.n),
            |r| (r.value.estimate - value).abs(),
            nan_max,
            &format!("within {} of {value}", self.describe_allowance()),
        )
    }
}

/// A rule each selected summary row must pass against one bound, and the number a
/// row is measured by (the largest over the rows is the verdict's measured number).
pub trait BoundRule {
    /// Whether row `r` passes against `bound`.
    fn holds(r: &Row<'_>, bound: f64) -> bool;
    /// The row's number.
    fn measure(r: &Row<'_>) -> f64;
    /// The rule in words, for the verdict ("upper < 0.6"), given the bound as shown.
    fn describe(bound: &str) -> String;
}

/// `{quantity, where, bound}`: every selected summary row passes rule `R` against
/// `bound` ([`Below`], [`Negligible`]); with `relative_to`, against `bound` times the
/// largest |estimate| of the reference rows in the same panel ([`Reference`]).
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, bound = "")]
pub struct Bounded<R> {
    /// The quantity.
    pub quantity: String,
    /// The rows.
    #[serde(rename = "where")]
    pub rows: Selector,
    /// The bound of the rule (a fraction, with `relative_to`).
    pub bound: f64,
    /// The rows whose largest |estimate| the bound is a fraction of (default: none, the
    /// bound is absolute).
    #[serde(default)]
    pub relative_to: Option<Reference>,
    #[serde(skip)]
    rule: std::marker::PhantomData<R>,
}

/// The reference of a relative bound: the rows of `quantity` (default: the checked
/// one) that `where` selects, in the same panel as the checked row (equal in every
/// column but the quantity and those `where` names), e.g. `where: { feature: [...] }`
/// for every feature's Entropy-PFI of the same model, so "negligible" reads "an order
/// of magnitude below the largest bar of its panel" at every scale and seed.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Reference {
    /// The reference quantity (default: the checked one).
    #[serde(default)]
    pub quantity: Option<String>,
    /// The reference rows.
    #[serde(rename = "where")]
    pub rows: Selector,
}

impl Reference {
    /// The largest |estimate| of the reference rows in row `r`'s panel (equal to it in
    /// every column but the quantity and those `where` names), the reference quantity
    /// being `checked` unless it names one; NaN when the panel has none, so a claim
    /// against it fails.
    pub fn largest(&self, summary: &[Row<'_>], checked: &str, r: &Row<'_>) -> f64 {
        let skip: Vec<&str> = std::iter::once("quantity")
            .chain(self.rows.keys().map(String::as_str))
            .collect();
        let panel = r.context(&skip);
        of_quantity(summary, self.quantity.as_deref().unwrap_or(checked))
            .into_iter()
            .filter(|b| b.matches(&self.rows) && b.context(&skip) == panel)
            .map(|b| b.value.estimate.abs())
            .reduce(nan_max)
            .unwrap_or(f64::NAN)
    }
}

impl<R> Bounded<R> {
    /// The bound row `r` is held to: `bound`, or `bound` × the largest |estimate| of
    /// its reference rows (NaN when it has none, so the claim fails).
    fn bound_of(&self, summary: &[Row<'_>], r: &Row<'_>) -> f64 {
        match &self.relative_to {
            None => self.bound,
            Some(rel) => self.bound * rel.largest(summary, &self.quantity, r),
        }
    }
}

impl<R: BoundRule + Send + Sync> AssertionKind for Bounded<R> {
    fn thresholds(&self) -> Vec<Threshold> {
        Threshold::unless("bound", self.bound, 0.0)
    }

    fn quantities(&self) -> Vec<&String> {
        let mut q = vec![&self.quantity];
        q.extend(self.relative_to.as_ref().and_then(|r| r.quantity.as_ref()));
        q
    }

    fn reads(&self) -> Reads<'_> {
        Reads::summary()
    }

    fn verdict(&self, ctx: &Context<'_>) -> Verdict {
        let summary = summary_rows(ctx.out);
        let what = match &self.relative_to {
            None => R::describe(&self.bound.to_string()),
            Some(rel) => {
                let bounds: Vec<f64> = of_quantity(&summary, &self.quantity)
                    .into_iter()
                    .filter(|r| r.matches(&self.rows))
                    .map(|r| self.bound_of(&summary, r))
                    .collect();
                let (lo, hi) = bounds
                    .iter()
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
                        (a.min(x), b.max(x))
                    });
                let of = rel.quantity.as_deref().unwrap_or(&self.quantity);
                let shown = match lo == hi {
                    true => short(lo),
                    false => format!("{}-{}", short(lo), short(hi)),
                };
                format!(
                    "{}, {} times the largest |{of}| of its panel",
                    R::describe(&shown),
                    self.bound
                )
            }
        };
        every(
            &summary,
            &self.quantity,
            &self.rows,
            |r| R::holds(r, self.bound_of(&summary, r)),
            R::measure,
            nan_max,
            &what,
        )
    }
}

/// `below`: every selected row's interval lies below `bound`, upper < bound
/// (icefi2022 Table 1: ICE FI correlates with the other importance measures at less
/// than 0.6). Measured: the largest upper end.
pub type Below = Bounded<UpperBelow>;

/// The rule of [`Below`]: upper < bound.
#[derive(Debug, Clone, PartialEq)]
pub struct UpperBelow;

impl BoundRule for UpperBelow {
    fn holds(r: &Row<'_>, bound: f64) -> bool {
        r.value.upper < bound
    }

    fn measure(r: &Row<'_>) -> f64 {
        r.value.upper
    }

    fn describe(bound: &str) -> String {
        format!("upper < {bound}")
    }
}

/// `negligible`: every selected row's interval lies inside (−`bound`, `bound`), an
/// equivalence rule (two one-sided tests at the interval's level): the claim holds only
/// when the run is precise enough to show the value small, so an underpowered run, whose
/// wide interval merely covers 0, fails. `bound` is the largest value that still counts
/// as negligible, with its source in the check's `tolerance_from`. Measured: the
/// largest max(|lower|, |upper|).
pub type Negligible = Bounded<InsideBound>;

/// The rule of [`Negligible`]: −bound < lower and upper < bound.
#[derive(Debug, Clone, PartialEq)]
pub struct InsideBound;

impl BoundRule for InsideBound {
    fn holds(r: &Row<'_>, bound: f64) -> bool {
        -bound < r.value.lower && r.value.upper < bound
    }

    fn measure(r: &Row<'_>) -> f64 {
        r.value.lower.abs().max(r.value.upper.abs())
    }

    fn describe(bound: &str) -> String {
        format!("interval inside ±{bound}")
    }
}
