//! Checks on estimates with their intervals: orderings (`greater`), signs
//! (`positive`, `negligible`), agreement with a derived value (`near`), trends over
//! a grid key (`monotone`), spreads over replicates (`spread`) and a table's cells
//! against the paper's printed values (`paper_cells`).

use xai_core::inference::t_quantile;
use xai_core::{Estimate, t_interval};

use super::{Verdict, nan_max, nan_min};
use crate::run::RunOutput;
use crate::select::{Row, of_quantity, short, summary_rows, tidy_rows};
use crate::spec::{Direction, Selector, TableSpec};

/// Every selected row of `rows` (the summary's, or the per-replicate rows)
/// satisfies `pred`; measured is `measure` folded by `worst` (the least favourable
/// row's number).
fn every(
    rows: Vec<Row<'_>>,
    quantity: &str,
    sel: &Selector,
    pred: impl Fn(&Row<'_>) -> bool,
    measure: impl Fn(&Row<'_>) -> f64,
    worst: fn(f64, f64) -> f64,
    what: &str,
) -> Verdict {
    let chosen: Vec<_> = of_quantity(&rows, quantity)
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
        .map(|r| r.model_prefix(&chosen) + &r.show())
        .collect();
    if bad.is_empty() {
        let shown: Vec<String> = chosen
            .iter()
            .map(|r| r.model_prefix(&chosen) + &r.show())
            .collect();
        Verdict::new(true, measured, format!("{what}: {}", shown.join("; ")))
    } else {
        Verdict::new(false, measured, format!("not {what}: {}", bad.join("; ")))
    }
}

/// Every selected row's interval lies above `above`; measured: the smallest lower end.
pub fn positive(out: &RunOutput, quantity: &str, sel: &Selector, above: f64) -> Verdict {
    every(
        summary_rows(out),
        quantity,
        sel,
        |r| r.value.lower > above,
        |r| r.value.lower,
        nan_min,
        &format!("lower > {above}"),
    )
}

/// Every replicate's own estimate of every selected row exceeds `above` (a claim "in
/// all trials"); measured: the smallest of them. Reads the per-replicate rows.
pub fn positive_in_each_replicate(
    out: &RunOutput,
    quantity: &str,
    sel: &Selector,
    above: f64,
) -> Verdict {
    every(
        tidy_rows(out),
        quantity,
        sel,
        |r| r.value.estimate > above,
        |r| r.value.estimate,
        nan_min,
        &format!("each replicate's estimate > {above}"),
    )
}

/// Every selected row's interval lies below `bound` (upper < bound). Measured: the
/// largest upper end.
pub fn below(out: &RunOutput, quantity: &str, sel: &Selector, bound: f64) -> Verdict {
    every(
        summary_rows(out),
        quantity,
        sel,
        |r| r.value.upper < bound,
        |r| r.value.upper,
        nan_max,
        &format!("upper < {bound}"),
    )
}

/// For every selected row (its columns without the replicate), the share of replicates
/// whose interval excludes 0 lies in [`at_least`, `at_most`] (either bound may be
/// absent). Measured: the smallest share under `at_least`, else the largest.
pub fn excludes_zero(
    out: &RunOutput,
    quantity: &str,
    sel: &Selector,
    (at_least, at_most): (Option<f64>, Option<f64>),
) -> Verdict {
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
    let tidy = tidy_rows(out);
    let mut groups: Vec<(String, usize, usize)> = Vec::new();
    for r in of_quantity(&tidy, quantity)
        .into_iter()
        .filter(|r| r.matches(sel))
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
            let ok = at_least.is_none_or(|lo| share >= lo) && at_most.is_none_or(|hi| share <= hi);
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

/// The spread of the `this` rows is at most `factor` times that of the `than` rows, a
/// spread being √(mean over the selected summary rows of sd²), sd the row's sd over
/// replicates; measured: the ratio of the two spreads.
pub fn spread(
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

/// Every selected row's estimate lies within `tolerance` + z_se·se + z_sd·sd of
/// `value` (`plus` = (z_se, z_sd); se: the row's standard error over its n
/// replicates, sd = se·√n their sd; a zero multiple adds nothing); measured: the
/// largest |estimate − value|.
pub fn near(
    out: &RunOutput,
    quantity: &str,
    sel: &Selector,
    value: f64,
    tolerance: f64,
    (plus_se, plus_sd): (f64, f64),
) -> Verdict {
    let allowed = |r: &Row<'_>| {
        let mut a = tolerance;
        if plus_se != 0.0 {
            a += plus_se * r.value.se;
        }
        if plus_sd != 0.0 {
            a += plus_sd * r.value.se * (r.value.n as f64).sqrt();
        }
        a
    };
    let mut what = format!("within {tolerance}");
    for (z, name) in [(plus_se, "se"), (plus_sd, "sd")] {
        if z != 0.0 {
            what += &format!(" + {z} {name}");
        }
    }
    what += &format!(" of {value}");
    every(
        summary_rows(out),
        quantity,
        sel,
        |r| (r.value.estimate - value).abs() <= allowed(r),
        |r| (r.value.estimate - value).abs(),
        nan_max,
        &what,
    )
}

/// Every selected row's interval covers 0 or |estimate| ≤ bound; measured: the
/// largest |estimate|.
pub fn negligible(out: &RunOutput, quantity: &str, sel: &Selector, bound: f64) -> Verdict {
    every(
        summary_rows(out),
        quantity,
        sel,
        |r| r.value.covers(0.0) || r.value.estimate.abs() <= bound,
        |r| r.value.estimate.abs(),
        nan_max,
        &format!("interval covers 0 or |estimate| <= {bound}"),
    )
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

/// How [`greater`] compares (the options of [`crate::spec::Assertion::Greater`]).
#[derive(Debug, Clone, Copy)]
pub struct Compare {
    /// "≥" rather than ">".
    pub at_least: bool,
    /// Compare interval widths instead of estimates.
    pub widths: bool,
    /// Judge the mean over all pairs, per replicate, instead of each pair.
    pub pooled: bool,
}

/// Paired comparison per replicate: the t-interval of est(this) − est(than) over
/// replicates must lie above 0; with one replicate the two intervals must not overlap.
/// Measured: the smallest lower end of a paired difference (or lower(this) −
/// upper(than) with one replicate), positive exactly when the claim holds. With
/// `at_least` ("this ≥ than"): the smallest upper end (or upper(this) − lower(than)),
/// at least 0 exactly when no `than` row exceeds its `this` row beyond Monte-Carlo
/// error. With `pooled`, the one interval of the per-replicate mean over the pairs.
pub fn greater(
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
    let picked = |r: &Row<'_>| -> String {
        skip.iter()
            .filter(|k| !matches!(**k, "feature" | "quantity"))
            .filter_map(|k| r.get(k).map(|v| format!(" {v}")))
            .collect()
    };
    let mut pairs: Vec<Pair> = Vec::new();
    for ra in &a {
        let matching = by_context.get(&(ra.context(&skip), ra.replicate));
        for rb in matching.into_iter().flatten() {
            let name = format!(
                "{}{}{}{} {} {}{}",
                if widths { "width: " } else { "" },
                ra.model_prefix(&a),
                ra.get("feature").unwrap_or(""),
                picked(ra),
                if at_least { ">=" } else { ">" },
                rb.get("feature").unwrap_or(""),
                picked(rb)
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
                format!(
                    "{}: paired diff {} [{}, {}]",
                    p.name,
                    short(e.estimate),
                    short(e.lower),
                    short(e.upper)
                ),
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
            "{}mean over {} pairs ({}, ...): paired diff {} [{}, {}] over {r} replicates",
            if holds { "" } else { "NOT " },
            pairs.len(),
            pairs[0].name,
            short(e.estimate),
            short(e.lower),
            short(e.upper)
        ),
    )
}

/// Every selected row's estimate lies within `tolerance` + `plus_se`·√(se² +
/// se_from²) of its reference row's: the row equal to it in every column but those
/// `from` names, which take `from`'s values. Measured: the largest |difference|.
pub fn unchanged(
    out: &RunOutput,
    quantity: &str,
    (sel, from): (&Selector, &Selector),
    tolerance: f64,
    plus_se: f64,
) -> Verdict {
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
        // With one replicate there is no se: a tolerance alone then decides.
        let allowed = match plus_se {
            0.0 => tolerance,
            z => tolerance + z * r.value.se.hypot(b.value.se),
        };
        let ok = d.abs() <= allowed;
        holds &= ok;
        worst = nan_max(worst, d.abs());
        compared += 1;
        // The context's values, then each side's values of the keys it selects on.
        let side = |row: &Row<'_>, keys: &Selector| -> String {
            keys.keys()
                .filter_map(|k| row.get(k).map(|v| format!("{k} {v} ")))
                .collect()
        };
        parts.push(format!(
            "{}{}: {}{} vs {}{}: diff {} (allowed {})",
            if ok { "" } else { "NOT " },
            r.label(&skip),
            side(r, from),
            short(r.value.estimate),
            side(b, from),
            short(b.value.estimate),
            short(d),
            short(allowed)
        ));
    }
    if compared == 0 {
        return Verdict::no_rows("no rows match the selection");
    }
    Verdict::new(holds && !worst.is_nan(), worst, parts.join("; "))
}

/// Along the grid key `along`, each step of the estimate in `direction` exceeds the
/// combined standard error √(se₁² + se₂²) of its two ends, in every group of the other
/// columns, or with `share` < 1 in at least that share of the groups. Measured: the
/// smallest step minus its margin (with `share` < 1: the share of groups that step).
pub fn monotone(
    out: &RunOutput,
    quantities: &[String],
    sel: &Selector,
    (along, direction, share): (&str, Direction, f64),
    level: f64,
) -> Verdict {
    let summary = summary_rows(out);
    let mut worst = f64::INFINITY;
    let (mut stepping, mut groups_seen) = (0usize, 0usize);
    let mut parts = Vec::new();
    for q in quantities {
        let chosen: Vec<_> = of_quantity(&summary, q)
            .into_iter()
            .filter(|r| r.matches(sel))
            .collect();
        let mut groups: Vec<(Vec<String>, Vec<&Row<'_>>)> = Vec::new();
        for r in chosen {
            let ctx = r.context(&[along]);
            match groups.iter_mut().find(|g| g.0 == ctx) {
                Some(g) => g.1.push(r),
                None => groups.push((ctx, vec![r])),
            }
        }
        if groups.is_empty() {
            return Verdict::no_rows(&format!("no rows of {q} match the selection"));
        }
        if let Some((_, g)) = groups.iter().find(|(_, g)| g.len() < 2) {
            return Verdict::no_rows(&format!(
                "{q} {}: one value along {along}, no trend to judge",
                g[0].get("feature").unwrap_or("")
            ));
        }
        for (_, mut g) in groups {
            let pos = |r: &Row<'_>| {
                r.get(along)
                    .and_then(|v| v.parse::<f64>().ok())
                    .unwrap_or(f64::NAN)
            };
            g.sort_by(|a, b| pos(a).total_cmp(&pos(b)));
            let se = |e: &Estimate| {
                (e.upper - e.lower) / (2.0 * t_quantile(0.5 + level / 2.0, (e.n.max(2) - 1) as f64))
            };
            let slack = g
                .windows(2)
                .map(|w| {
                    let step = match direction {
                        Direction::Decreasing => w[0].value.estimate - w[1].value.estimate,
                        Direction::Increasing => w[1].value.estimate - w[0].value.estimate,
                    };
                    step - (se(&w[0].value).powi(2) + se(&w[1].value).powi(2)).sqrt()
                })
                .fold(f64::INFINITY, nan_min);
            worst = nan_min(worst, slack);
            groups_seen += 1;
            stepping += usize::from(slack > 0.0);
            let values: Vec<String> = g
                .iter()
                .map(|r| format!("{}={}", r.get(along).unwrap_or(""), short(r.value.estimate)))
                .collect();
            parts.push(format!(
                "{}{q} {}: {}",
                if slack > 0.0 { "" } else { "NOT " },
                g[0].label(&[along]),
                values.join(" ")
            ));
        }
    }
    if share < 1.0 {
        let needed = at_least(share, groups_seen);
        return Verdict::new(
            stepping >= needed,
            stepping as f64 / groups_seen as f64,
            format!(
                "{stepping} of {groups_seen} groups step (at least {needed} required): {}",
                parts.join("; ")
            ),
        );
    }
    Verdict::new(worst > 0.0, worst, parts.join("; "))
}

/// The count `share` of `n` asks for: ⌈share·n⌉, with a 1e-9 allowance so that a
/// share written in decimals (0.56 of 25 = 14) does not round up by float error.
pub fn at_least(share: f64, n: usize) -> usize {
    (share * n as f64 - 1e-9).ceil().max(0.0) as usize
}

/// [`crate::spec::Assertion::PaperCells`]: every cell of `table`'s `columns` (all when
/// empty) with a value in the column's `paper:` list equals it to the printed digits
/// (`decimals`, or `significant` digits of the paper's value). Measured: the largest
/// |ours − paper| over its half-digit tolerance (NaN when no cell has a paper value).
pub fn paper_cells(
    out: &RunOutput,
    table: &TableSpec,
    columns: &[String],
    (decimals, significant): (Option<u32>, Option<u32>),
) -> Verdict {
    let filled = match crate::layout::fill(&[], table, out) {
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
