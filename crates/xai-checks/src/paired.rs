//! Assertions comparing rows with other rows: one row above another beyond
//! Monte-Carlo error (`greater`), one row closer to a target than another (`closer`),
//! a row unchanged from its reference row (`unchanged`), and the spread over
//! replicates of some rows against others' (`spread`).

use serde::Deserialize;

use crate::tolerance::Threshold;
use xai_core::inference::t_quantile;
use xai_core::{Estimate, t_interval};

use super::{AssertionKind, Context, Reads, Verdict, nan_max, nan_min};
use crate::bounds::Reference;
use xai_results::Invalid;
use xai_results::layout::TableSpec;
use xai_results::output::RunOutput;
use xai_results::select::Selector;
use xai_results::select::{Row, interval, of_quantity, short, summary_rows, tidy_rows};

/// Every `this` row exceeds every `than` row beyond Monte-Carlo error: with two or
/// more replicates the paired t-interval over replicates of est(this) − est(than)
/// lies above 0; with one replicate the intervals do not overlap (lower > upper).
/// With `at_least`, the claim "this ≥ than": it fails only where `than` exceeds
/// `this` beyond Monte-Carlo error (the paired interval lies below 0). Measured: the
/// smallest lower end of a paired difference (or lower(this) − upper(than) with one
/// replicate), positive exactly when the claim holds; with `at_least` the smallest
/// upper end (or upper(this) − lower(than)); with `pooled`, the one interval of the
/// per-replicate mean over the pairs.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Greater {
    /// The quantity compared.
    pub quantity: String,
    /// The row expected to be larger.
    pub this: Selector,
    /// The rows expected to be smaller.
    pub than: Selector,
    /// Take the `than` rows from this quantity instead.
    #[serde(default)]
    pub than_quantity: Option<String>,
    /// "≥" rather than ">" (molnar2023 Table 1: boot* ≥ subs* in every row).
    #[serde(default)]
    pub at_least: bool,
    /// Compare the rows' within-replicate interval widths (upper − lower) instead
    /// of their estimates, paired over replicates (molnar2023 Fig. 6: the
    /// learner-PDP's band is wider than the model-PDP's).
    #[serde(default)]
    pub widths: bool,
    /// Judge the mean of all (this, than) differences instead of each: per
    /// replicate r, d̄_r = (1/K)·Σ_k d_{k,r} over the K pairs, and the t-interval
    /// of d̄ over replicates must lie above 0 (or, with `at_least`, not below). A
    /// claim "on average over the scenarios" (molnar2023 Table 1: boot* covers
    /// more often than subs*, by 0.05 on average), whose Monte-Carlo error shrinks
    /// as 1/√K where each pair's alone cannot resolve it.
    #[serde(default)]
    pub pooled: bool,
}

impl AssertionKind for Greater {
    fn thresholds(&self) -> Vec<Threshold> {
        Vec::new()
    }

    fn quantities(&self) -> Vec<&String> {
        match &self.than_quantity {
            Some(other) => vec![&self.quantity, other],
            None => vec![&self.quantity],
        }
    }

    fn reads(&self) -> Reads<'_> {
        Reads::per_replicate(vec![
            (&self.quantity, &self.this),
            (
                self.than_quantity.as_ref().unwrap_or(&self.quantity),
                &self.than,
            ),
        ])
    }

    fn verdict(&self, ctx: &Context<'_>) -> Verdict {
        greater(
            ctx.out,
            (&self.quantity, self.than_quantity.as_deref()),
            (&self.this, &self.than),
            Compare {
                at_least: self.at_least,
                widths: self.widths,
                pooled: self.pooled,
            },
            ctx.level,
        )
    }
}

/// Every `this` row lies closer to `to` than its `than` row (the row equal to it in
/// every column but those the two selections set differently) beyond Monte-Carlo
/// error: with summary estimates a and b of independent
/// replicates, |b − to| − |a − to| > t·√(se_a² + se_b²), t the two-sided quantile at
/// the check's level with min(n_a, n_b) − 1 degrees of freedom (molnar2023 §3.1: "the
/// bootstrap outperformed subsampling in terms of coverage, i.e. the coverage was
/// closer to the 95% level"). The distance of a mean is not a mean of per-replicate
/// distances, so it reads the summary, not pairs of replicates. Measured: the smallest
/// margin |b − to| − |a − to| − t·√(se_a² + se_b²), positive exactly when it holds.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Closer {
    /// The quantity compared.
    pub quantity: String,
    /// The rows expected to be closer.
    pub this: Selector,
    /// The rows expected to be farther.
    pub than: Selector,
    /// The target (e.g. an interval's nominal coverage).
    pub to: f64,
}

impl AssertionKind for Closer {
    fn thresholds(&self) -> Vec<Threshold> {
        Vec::new()
    }

    fn quantities(&self) -> Vec<&String> {
        vec![&self.quantity]
    }

    fn reads(&self) -> Reads<'_> {
        Reads::summary()
    }

    fn verdict(&self, ctx: &Context<'_>) -> Verdict {
        let summary = summary_rows(ctx.out);
        let rows = of_quantity(&summary, &self.quantity);
        // The pair differs in the keys the two selections set differently; a key
        // both set alike (`model: [lm, rf]`) stays in the context, so lm meets lm.
        let skip: Vec<&str> = self
            .this
            .keys()
            .chain(self.than.keys())
            .filter(|k| self.this.get(*k) != self.than.get(*k))
            .map(String::as_str)
            .collect();
        let (mut margin, mut parts) = (f64::INFINITY, Vec::new());
        for a in rows.iter().filter(|r| r.matches(&self.this)) {
            let context = a.context(&skip);
            for b in rows
                .iter()
                .filter(|r| r.matches(&self.than) && r.context(&skip) == context)
            {
                let n = a.value.n.min(b.value.n);
                if n < 2 {
                    return Verdict::no_rows("closer needs at least 2 replicates per row");
                }
                let t = t_quantile(1.0 - (1.0 - ctx.level) / 2.0, (n - 1) as f64);
                let gap = (b.value.estimate - self.to).abs() - (a.value.estimate - self.to).abs();
                let m = gap - t * a.value.se.hypot(b.value.se);
                margin = nan_min(margin, m);
                parts.push(format!(
                    "{}{}: {} vs {} (distance to {} {} vs {}, allowed {})",
                    if m > 0.0 { "" } else { "NOT " },
                    a.label(&skip),
                    short(a.value.estimate),
                    short(b.value.estimate),
                    self.to,
                    short((a.value.estimate - self.to).abs()),
                    short((b.value.estimate - self.to).abs()),
                    short(gap - m)
                ));
            }
        }
        if parts.is_empty() {
            return Verdict::no_rows("no rows match `this` and `than` in a common context");
        }
        Verdict::new(margin > 0.0, margin, parts.join("; "))
    }
}

/// One `this` > `than` comparison, accumulated over replicates.
struct Pair {
    key: String,
    name: String,
    diffs: Vec<f64>,
    /// The replicate of each difference.
    replicates: Vec<Option<usize>>,
    lower_this: f64,
    upper_this: f64,
    lower_than: f64,
    upper_than: f64,
}

/// How [`greater`] compares (the options of [`Greater`]).
#[derive(Debug, Clone, Copy)]
struct Compare {
    /// "≥" rather than ">".
    at_least: bool,
    /// Compare interval widths instead of estimates.
    widths: bool,
    /// Judge the mean over all pairs, per replicate, instead of each pair.
    pooled: bool,
}

/// Paired comparison per replicate: the t-interval of est(this) − est(than) over
/// replicates must lie above 0; with one replicate the two intervals must not overlap.
/// Measured: the smallest lower end of a paired difference (or lower(this) −
/// upper(than) with one replicate), positive exactly when the claim holds. With
/// `at_least` ("this ≥ than"): the smallest upper end (or upper(this) − lower(than)),
/// at least 0 exactly when no `than` row exceeds its `this` row beyond Monte-Carlo
/// error. With `pooled`, the one interval of the per-replicate mean over the pairs.
fn greater(
    out: &RunOutput,
    (q, than_q): (&str, Option<&str>),
    (this, than): (&Selector, &Selector),
    Compare {
        at_least,
        widths,
        pooled,
    }: Compare,
    level: f64,
) -> Verdict {
    // With `widths` the compared value is the row's interval width.
    let value = |e: &Estimate| {
        if widths {
            e.upper - e.lower
        } else {
            e.estimate
        }
    };
    let tidy = tidy_rows(out);
    let mut skip: Vec<&str> = this.keys().chain(than.keys()).map(String::as_str).collect();
    if than_q.is_some() {
        skip.push("quantity");
    }
    skip.sort_unstable();
    skip.dedup();
    let rows = of_quantity(&tidy, q);
    let other = of_quantity(&tidy, than_q.unwrap_or(q));
    let a: Vec<_> = rows.iter().copied().filter(|r| r.matches(this)).collect();
    let b: Vec<_> = other.iter().copied().filter(|r| r.matches(than)).collect();
    // The `than` rows by context and replicate, each group in the rows' order: one
    // pass, not a scan of every `than` row per `this` row (Table 1 at paper scale has
    // some 10^5 of each).
    let mut by_context: std::collections::HashMap<(Vec<String>, Option<usize>), Vec<_>> =
        std::collections::HashMap::new();
    for rb in &b {
        by_context
            .entry((rb.context(&skip), rb.replicate))
            .or_default()
            .push(*rb);
    }
    // A row's values of the selected keys other than the feature (and the quantity),
    // so that each (this row, than row) pair is its own comparison: `than: {resampling:
    // [boot, subs]}` compares with boot and with subs, never with their pool.
    // A side of a pair: its feature and the values of the compared keys, then (once,
    // before both) the context keys in which the pairs differ.
    let side = |r: &Row<'_>| -> String {
        std::iter::once(r.get("feature").unwrap_or(""))
            .chain(
                skip.iter()
                    .filter(|k| !matches!(**k, "feature" | "quantity"))
                    .filter_map(|k| r.get(k)),
            )
            .filter(|v| !v.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut pairs: Vec<Pair> = Vec::new();
    for ra in &a {
        let matching = by_context.get(&(ra.context(&skip), ra.replicate));
        for rb in matching.into_iter().flatten() {
            let name = format!(
                "{}{}{} {} {}",
                if widths { "width: " } else { "" },
                ra.varying(&a, &skip),
                side(ra),
                if at_least { ">=" } else { ">" },
                side(rb)
            );
            let key = format!("{}|{name}", ra.context(&skip).join(","));
            let d = value(&ra.value) - value(&rb.value);
            match pairs.iter_mut().find(|p| p.key == key) {
                Some(p) => {
                    p.diffs.push(d);
                    p.replicates.push(ra.replicate);
                }
                None => pairs.push(Pair {
                    key,
                    name,
                    diffs: vec![d],
                    replicates: vec![ra.replicate],
                    lower_this: ra.value.lower,
                    upper_this: ra.value.upper,
                    lower_than: rb.value.lower,
                    upper_than: rb.value.upper,
                }),
            }
        }
    }
    if pairs.is_empty() {
        return Verdict::no_rows("no rows match `this` and `than` in a common context");
    }
    if widths && pairs.iter().any(|p| p.diffs.len() < 2) {
        return Verdict::no_rows("widths are compared over at least 2 replicates");
    }
    if pooled {
        return pooled_difference(&pairs, at_least, level);
    }
    // ">": the paired interval's lower end must be above 0; "≥": its upper end must
    // not be below 0.
    let mut margin = f64::INFINITY;
    let mut parts = Vec::new();
    for p in &pairs {
        let (m, text) = if p.diffs.len() >= 2 {
            let e = t_interval(&p.diffs, level);
            (
                if at_least { e.upper } else { e.lower },
                format!("{}: paired diff {}", p.name, interval(&e)),
            )
        } else {
            (
                if at_least {
                    p.upper_this - p.lower_than
                } else {
                    p.lower_this - p.upper_than
                },
                format!(
                    "{}: lower {} vs upper {}",
                    p.name,
                    short(p.lower_this),
                    short(p.upper_than)
                ),
            )
        };
        margin = nan_min(margin, m);
        let holds = if at_least { m >= 0.0 } else { m > 0.0 };
        parts.push(if holds { text } else { format!("NOT {text}") });
    }
    let holds = if at_least {
        margin >= 0.0
    } else {
        margin > 0.0
    };
    Verdict::new(holds, margin, parts.join("; "))
}

/// [`greater`] with `pooled`: per replicate r the mean d̄_r of the K pairs'
/// differences, and the t-interval of d̄ over the replicates (every pair needs the
/// same replicates, in the same order, so d̄_r averages one replicate's). Measured: its lower end (upper with `at_least`).
fn pooled_difference(pairs: &[Pair], at_least: bool, level: f64) -> Verdict {
    let r = pairs[0].diffs.len();
    if r < 2 || pairs.iter().any(|p| p.replicates != pairs[0].replicates) {
        return Verdict::no_rows(
            "a pooled comparison needs every pair over the same replicates, at least 2",
        );
    }
    let k = pairs.len() as f64;
    let means: Vec<f64> = (0..r)
        .map(|i| pairs.iter().map(|p| p.diffs[i]).sum::<f64>() / k)
        .collect();
    let e = t_interval(&means, level);
    let margin = if at_least { e.upper } else { e.lower };
    let holds = if at_least {
        margin >= 0.0
    } else {
        margin > 0.0
    };
    Verdict::new(
        holds,
        margin,
        format!(
            "{}mean over {} pairs ({}, ...): paired diff {} over {r} replicates",
            if holds { "" } else { "NOT " },
            pairs.len(),
            pairs[0].name,
            interval(&e)
        ),
    )
}

/// Every selected row's estimate lies within `tolerance` + `plus_se`·√(se² +
/// se_from²) of the estimate of its `from` row: the row equal to it in every column
/// but those `from` names, which take `from`'s values; se and se_from their
/// Monte-Carlo standard errors over independent replicates (molnar2023 §4.3: the
/// linear model's PD coverage "not heavily affected by increasing sample size n", the
/// n = 1000 row against the n = 100 row). Measured: the largest |difference|.
/// The two se are combined as if the rows were independent; rows of the same
/// replicates that are positively correlated make the allowance conservative.
///
/// With `equivalent: true` it is an equivalence rule: the difference's interval
/// d ± `plus_se`·√(se² + se_from²) must lie inside ±`tolerance`, so a run too small
/// to tell the rows apart fails instead of passing (wood2024 Fig. 3: "similarly
/// high"); measured: the largest |d| + `plus_se`·√(se² + se_from²). With
/// `relative_to`, `tolerance` is a fraction of the largest |estimate| of the
/// reference rows of the row's panel ([`Reference`]).
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Unchanged {
    /// The quantity.
    pub quantity: String,
    /// The rows compared.
    #[serde(rename = "where")]
    pub rows: Selector,
    /// The values of the reference row's keys, e.g. `{ n_train: "100" }`.
    pub from: Selector,
    /// The largest |estimate − reference| accepted beyond the Monte-Carlo
    /// allowance, or with `equivalent` the bound of the difference's interval; a
    /// fraction of the reference rows' largest |estimate| with `relative_to` (default
    /// 0; its source in the check's `tolerance_from`).
    #[serde(default)]
    pub tolerance: f64,
    /// Multiples of the difference's Monte-Carlo se added to the tolerance (with
    /// `equivalent`, the half-width of the difference's interval).
    #[serde(default)]
    pub plus_se: f64,
    /// The difference's interval must lie inside ±tolerance (default: the difference
    /// within tolerance plus its allowance).
    #[serde(default)]
    pub equivalent: bool,
    /// The rows whose largest |estimate| `tolerance` is a fraction of (default: none,
    /// the tolerance is absolute).
    #[serde(default)]
    pub relative_to: Option<Reference>,
}

impl AssertionKind for Unchanged {
    fn thresholds(&self) -> Vec<Threshold> {
        Threshold::unless("tolerance", self.tolerance, 0.0)
    }

    fn validate(&self, _tables: &[TableSpec]) -> Result<(), Invalid> {
        if self.equivalent && self.plus_se <= 0.0 {
            return Err(Invalid::new(
                "equivalent",
                "an equivalence needs the difference's interval: set plus_se (e.g. 3)",
            ));
        }
        if self.relative_to.is_some() && self.tolerance <= 0.0 {
            return Err(Invalid::new(
                "relative_to",
                "a relative tolerance needs its fraction: set tolerance (e.g. 0.1)",
            ));
        }
        Ok(())
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
        unchanged(ctx.out, self)
    }
}

/// Every selected row's estimate lies within the allowance of [`Unchanged`] of its
/// reference row's: the row equal to it in every column but those `from` names, which
/// take `from`'s values. Measured: the largest |difference| (with `equivalent`, the
/// largest |difference| + `plus_se`·se of the difference).
fn unchanged(out: &RunOutput, spec: &Unchanged) -> Verdict {
    let (quantity, sel, from) = (&spec.quantity, &spec.rows, &spec.from);
    let summary = summary_rows(out);
    let rows = of_quantity(&summary, quantity);
    // The reference row agrees with the row in every column but those `from` names.
    let skip: Vec<&str> = from.keys().map(String::as_str).collect();
    let (mut worst, mut parts, mut holds, mut compared) = (0.0f64, Vec::new(), true, 0);
    // A row that `from` selects is a reference, never compared with itself.
    for r in rows.iter().filter(|r| r.matches(sel) && !r.matches(from)) {
        let reference: Vec<_> = rows
            .iter()
            .filter(|b| b.matches(from) && b.context(&skip) == r.context(&skip))
            .collect();
        let [b] = reference.as_slice() else {
            return Verdict::no_rows(&format!(
                "{} rows match `from` for {}; name the keys that pick one",
                reference.len(),
                r.show()
            ));
        };
        let d = r.value.estimate - b.value.estimate;
        let tolerance = match &spec.relative_to {
            None => spec.tolerance,
            Some(rel) => spec.tolerance * rel.largest(&summary, quantity, r),
        };
        // Without `plus_se` the tolerance alone decides (a row of one replicate
        // has no se).
        let margin = match spec.plus_se {
            0.0 => 0.0,
            z => z * r.value.se.hypot(b.value.se),
        };
        // Equivalence moves the margin from the allowance to the difference.
        let (reach, allowed) = match spec.equivalent {
            true => (d.abs() + margin, tolerance),
            false => (d.abs(), tolerance + margin),
        };
        let ok = reach <= allowed;
        holds &= ok;
        worst = nan_max(worst, reach);
        compared += 1;
        // The context's values, then each side's values of the keys it selects on.
        let side = |row: &Row<'_>, keys: &Selector| -> String {
            keys.keys()
                .filter_map(|k| row.get(k).map(|v| format!("{k} {v} ")))
                .collect()
        };
        let diff = match spec.equivalent {
            true => format!(
                "diff {} ± {} (inside ±{} required)",
                short(d),
                short(margin),
                short(allowed)
            ),
            false => format!("diff {} (allowed {})", short(d), short(allowed)),
        };
        parts.push(format!(
            "{}{}: {}{} vs {}{}: {diff}",
            if ok { "" } else { "NOT " },
            r.label(&skip),
            side(r, from),
            short(r.value.estimate),
            side(b, from),
            short(b.value.estimate),
        ));
    }
    if compared == 0 {
        return Verdict::no_rows("no rows match the selection");
    }
    Verdict::new(holds && !worst.is_nan(), worst, parts.join("; "))
}

/// The spread over replicates of the `this` rows is at most `factor` times that of
/// the `than` rows, a spread being the root mean square of the rows' sds over
/// replicates (molnar2023 Fig. 3: the Monte-Carlo spread of one model's PD shrinks as
/// 1/√n with the rows averaged, and stays below the spread of refitted models).
/// Measured: the ratio of the two spreads.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Spread {
    /// The quantity.
    pub quantity: String,
    /// The rows whose spread is the smaller.
    pub this: Selector,
    /// The rows it is compared with.
    pub than: Selector,
    /// The largest ratio of the two spreads accepted.
    pub factor: f64,
}

impl AssertionKind for Spread {
    fn thresholds(&self) -> Vec<Threshold> {
        vec![Threshold::always("factor", self.factor)]
    }

    fn quantities(&self) -> Vec<&String> {
        vec![&self.quantity]
    }

    fn reads(&self) -> Reads<'_> {
        Reads::summary()
    }

    fn verdict(&self, ctx: &Context<'_>) -> Verdict {
        spread(
            ctx.out,
            &self.quantity,
            (&self.this, &self.than),
            self.factor,
        )
    }
}

/// The spread of the `this` rows is at most `factor` times that of the `than` rows, a
/// spread being √(mean over the selected summary rows of sd²), sd the row's sd over
/// replicates; measured: the ratio of the two spreads.
fn spread(
    out: &RunOutput,
    quantity: &str,
    (this, than): (&Selector, &Selector),
    factor: f64,
) -> Verdict {
    let summary = summary_rows(out);
    let of = |sel: &Selector| {
        let sds: Vec<f64> = summary
            .iter()
            .zip(&out.summary)
            .filter(|(r, _)| r.get("quantity") == Some(quantity) && r.matches(sel))
            .map(|(_, s)| s.sd)
            .collect();
        (sds.iter().map(|v| v * v).sum::<f64>() / sds.len() as f64).sqrt()
    };
    let (a, b) = (of(this), of(than));
    if a.is_nan() || b.is_nan() {
        return Verdict::no_rows("no rows (or a single replicate) on one side");
    }
    let ratio = a / b;
    Verdict::new(
        ratio <= factor,
        ratio,
        format!(
            "spread {} / {} = {} ({} {factor})",
            short(a),
            short(b),
            short(ratio),
            if ratio <= factor { "<=" } else { "above" }
        ),
    )
}
