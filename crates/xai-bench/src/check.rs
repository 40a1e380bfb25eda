//! Checks: the paper's claims on a run's numbers, and the regression check against
//! the committed summary.

use std::path::Path;

use xai_core::inference::t_quantile;
use xai_core::{Estimate, t_interval};

use crate::load::format_number;
use crate::run::RunOutput;
use crate::spec::{
    Assertion, CheckSpec, CurveInterval, Direction, RowFilter, Scalar, Selector, Tolerance,
};
use crate::table::{CsvTable, read_csv, summary_table};
use xai_core::interpolate;

/// Verdict of one check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The claim holds.
    Pass,
    /// The claim fails.
    Fail,
    /// The claim fails and the experiment says why it is expected to.
    KnownDeviation,
}

impl Status {
    /// "pass", "FAIL" or "known deviation".
    pub fn label(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "FAIL",
            Status::KnownDeviation => "known deviation",
        }
    }
}

/// The result of one check.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// What was checked.
    pub name: String,
    /// The verdict.
    pub status: Status,
    /// The numbers behind it.
    pub detail: String,
}

/// The quantities an assertion reads.
pub fn quantities(a: &Assertion) -> Vec<&String> {
    match a {
        Assertion::Greater {
            quantity,
            than_quantity: Some(other),
            ..
        } => vec![quantity, other],
        Assertion::Greater { quantity, .. }
        | Assertion::Positive { quantity, .. }
        | Assertion::Near { quantity, .. }
        | Assertion::RankedAbove { quantity, .. }
        | Assertion::InTop { quantity, .. }
        | Assertion::Negligible { quantity, .. } => vec![quantity],
        Assertion::RankAgreement {
            quantity,
            than_quantity,
            reference,
        } => vec![quantity, than_quantity, reference],
        Assertion::Monotone { quantities, .. } => quantities.iter().collect(),
        Assertion::InteriorPeak(CurveInterval { quantity, .. })
        | Assertion::ArgmaxWithin(CurveInterval { quantity, .. })
        | Assertion::Trend { quantity, .. }
        | Assertion::Varies { quantity, .. }
        | Assertion::ShapesDiffer { quantity, .. }
        | Assertion::RisesTowardsEdges(CurveInterval { quantity, .. })
        | Assertion::SimilarCurves { quantity, .. } => vec![quantity],
        Assertion::BelowPdPeak { quantity, pd, .. } => vec![quantity, pd],
    }
}

/// A row's identifying columns: quantity, grid keys, model, feature, x.
struct Row<'a> {
    cols: Vec<(&'a str, String)>,
    value: Estimate,
    replicate: Option<usize>,
}

impl Row<'_> {
    fn get(&self, name: &str) -> Option<&str> {
        self.cols
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }

    fn matches(&self, sel: &Selector) -> bool {
        sel.iter().all(|(col, want)| {
            let Some(have) = self.get(col) else {
                return false;
            };
            want.values().iter().any(|w| match w {
                Scalar::Text(t) => t == have,
                Scalar::Number(n) => have.parse::<f64>().is_ok_and(|h| h == *n),
            })
        })
    }

    /// The columns other than `skip` (and the replicate): rows with equal contexts
    /// are compared with each other.
    fn context(&self, skip: &[&str]) -> Vec<String> {
        self.cols
            .iter()
            .filter(|(k, _)| !skip.contains(k))
            .map(|(k, v)| format!("{k}={v}"))
            .collect()
    }

    fn show(&self) -> String {
        let v = &self.value;
        format!(
            "{} {} [{}, {}]",
            self.get("feature").unwrap_or(""),
            short(v.estimate),
            short(v.lower),
            short(v.upper)
        )
    }
}

/// Whether columns `cols` take the values `sel` asks for.
fn selected(cols: &[(&str, String)], sel: &Selector) -> bool {
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

fn short(v: f64) -> String {
    format!("{v:.4}")
}

fn rows<'a>(keys: &'a [String], out: &RunOutput, tidy: bool) -> Vec<Row<'a>> {
    let make = |quantity: &str, labels: &[String], model: &str, feature: &str, x: Option<f64>| {
        let mut cols = vec![("quantity", quantity.to_string())];
        cols.extend(keys.iter().map(String::as_str).zip(labels.iter().cloned()));
        cols.push(("model", model.to_string()));
        cols.push(("feature", feature.to_string()));
        cols.push(("x", x.map(format_number).unwrap_or_default()));
        cols
    };
    if tidy {
        out.tidy
            .iter()
            .map(|r| Row {
                cols: make(&r.quantity, &r.labels, &r.model, &r.feature, r.x),
                value: r.value,
                replicate: Some(r.replicate),
            })
            .collect()
    } else {
        out.summary
            .iter()
            .map(|r| Row {
                cols: make(&r.quantity, &r.labels, &r.model, &r.feature, r.x),
                value: r.value,
                replicate: None,
            })
            .collect()
    }
}

fn of_quantity<'a, 'b>(rows: &'b [Row<'a>], q: &str) -> Vec<&'b Row<'a>> {
    rows.iter()
        .filter(|r| r.get("quantity") == Some(q))
        .collect()
}

/// Evaluates one paper check on a run.
pub fn evaluate(check: &CheckSpec, keys: &[String], out: &RunOutput, level: f64) -> Outcome {
    let (ok, detail) = match &check.assert {
        Assertion::Greater {
            quantity,
            this,
            than,
            than_quantity,
        } => greater(
            &rows(keys, out, true),
            quantity,
            than_quantity.as_deref(),
            this,
            than,
            level,
        ),
        Assertion::Positive {
            quantity,
            rows: sel,
        } => {
            let summary = rows(keys, out, false);
            every(
                of_quantity(&summary, quantity),
                sel,
                |r| r.value.lower > 0.0,
                "lower > 0",
            )
        }
        Assertion::Near {
            quantity,
            rows: sel,
            value,
            tolerance,
        } => {
            let summary = rows(keys, out, false);
            every(
                of_quantity(&summary, quantity),
                sel,
                |r| (r.value.estimate - value).abs() <= *tolerance,
                &format!("within {tolerance} of {value}"),
            )
        }
        Assertion::RankedAbove {
            quantity,
            this,
            than,
            share,
        } => ranked_above(&rows(keys, out, true), quantity, this, than, *share),
        Assertion::InTop {
            quantity,
            rows: sel,
            k,
        } => in_top(&rows(keys, out, false), quantity, sel, *k),
        Assertion::RankAgreement {
            quantity,
            than_quantity,
            reference,
        } => rank_agreement(&rows(keys, out, false), quantity, than_quantity, reference),
        Assertion::Negligible {
            quantity,
            rows: sel,
            bound,
        } => {
            let summary = rows(keys, out, false);
            every(
                of_quantity(&summary, quantity),
                sel,
                |r| r.value.covers(0.0) || r.value.estimate.abs() <= *bound,
                &format!("interval covers 0 or |estimate| <= {bound}"),
            )
        }
        Assertion::Monotone {
            quantities,
            rows: sel,
            along,
            direction,
        } => monotone(
            &rows(keys, out, false),
            quantities,
            sel,
            along,
            *direction,
            level,
        ),
        Assertion::InteriorPeak(ci) => {
            each_curve(&ci.curves(keys, out), |c| bump(c, ci.lower, ci.upper))
        }
        Assertion::RisesTowardsEdges(ci) => {
            each_curve(&ci.curves(keys, out), |c| rises(c, ci.lower, ci.upper))
        }
        Assertion::ArgmaxWithin(ci) => each_curve(&ci.curves(keys, out), |c| {
            let at = c.xs[argmax(&c.ys)];
            (
                (ci.lower..=ci.upper).contains(&at),
                format!("maximum at {}", short(at)),
            )
        }),
        Assertion::Trend {
            quantity,
            rows: sel,
            rows_with,
            from,
            to,
            direction,
            share,
        } => {
            let list = curves(keys, out, quantity, sel, rows_with.as_ref());
            let follows: Vec<bool> = list
                .iter()
                .map(|c| trend(c, *from, *to, *direction))
                .collect();
            let k = follows.iter().filter(|&&f| f).count();
            let needed = (share * list.len() as f64).ceil() as usize;
            (
                !list.is_empty() && k >= needed,
                format!(
                    "{k} of {} curves go {} from {from} to {to} (at least {needed} required)",
                    list.len(),
                    if *direction == Direction::Increasing {
                        "up"
                    } else {
                        "down"
                    }
                ),
            )
        }
        Assertion::Varies {
            quantity,
            rows: sel,
            bound,
        } => each_curve(&curves(keys, out, quantity, sel, None), |c| {
            let (hi, lo) = (argmax(&c.ys), argmin(&c.ys));
            let range = c.ys[hi] - c.ys[lo];
            let margin = (c.se[hi].powi(2) + c.se[lo].powi(2)).sqrt().max(*bound);
            (
                range > margin,
                format!("range {} vs {}", short(range), short(margin)),
            )
        }),
        Assertion::ShapesDiffer {
            quantity,
            rows: sel,
            bound,
        } => shapes_differ(&curves(keys, out, quantity, sel, None), *bound),
        Assertion::SimilarCurves {
            quantity,
            this,
            that,
            tolerance,
        } => similar(
            &curves(keys, out, quantity, this, None),
            &curves(keys, out, quantity, that, None),
            *tolerance,
        ),
        Assertion::BelowPdPeak {
            quantity,
            pd,
            rows: sel,
            rows_with,
            at_own_value,
            within,
        } => {
            let (lo, hi) = within.unwrap_or((f64::NEG_INFINITY, f64::INFINITY));
            let max_within = |k: &Curve<'_>| {
                (0..k.xs.len())
                    .filter(|&i| k.xs[i] >= lo && k.xs[i] <= hi)
                    .map(|i| k.ys[i])
                    .fold(f64::NEG_INFINITY, f64::max)
            };
            let pds = curves(keys, out, pd, &Selector::new(), None);
            each_curve(&curves(keys, out, quantity, sel, rows_with.as_ref()), |c| {
                // The PD of the same grid keys, model and feature (columns 1..=feature).
                let context = |k: &Curve<'_>| -> Vec<String> {
                    k.cols[1..k.cols.len().min(keys.len() + 3)]
                        .iter()
                        .map(|(_, v)| v.clone())
                        .collect()
                };
                let Some(p) = pds.iter().find(|p| context(p) == context(c)) else {
                    return (false, "no PD curve of the same feature and model".into());
                };
                let peak = max_within(p);
                let value = match (at_own_value, c.own) {
                    (true, Some(x)) => interpolate(&c.xs, &c.ys, x),
                    _ => max_within(c),
                };
                (
                    value < peak,
                    format!("{} vs PD peak {}", short(value), short(peak)),
                )
            })
        }
    };
    let status = match (ok, &check.expected_to_differ) {
        (true, _) => Status::Pass,
        (false, None) => Status::Fail,
        (false, Some(_)) => Status::KnownDeviation,
    };
    let detail = match (&check.expected_to_differ, status) {
        (Some(why), Status::KnownDeviation) => format!("{detail} (expected: {why})"),
        _ => detail,
    };
    Outcome {
        name: check.claim.clone(),
        status,
        detail,
    }
}

/// A curve over a grid: a PD from the summary or a kept ICE curve.
struct Curve<'a> {
    /// quantity, grid keys, model, feature (and row for ICE).
    cols: Vec<(&'a str, String)>,
    xs: Vec<f64>,
    ys: Vec<f64>,
    /// Standard errors (0 for ICE curves).
    se: Vec<f64>,
    /// ICE: the row's own value of the varied feature.
    own: Option<f64>,
}

fn argmin(v: &[f64]) -> usize {
    (0..v.len()).fold(0, |best, i| if v[i] < v[best] { i } else { best })
}

/// The largest across-curve standard deviation of the centred curves (each minus its
/// own mean) over the grid, against `bound`.
fn shapes_differ(curves: &[Curve<'_>], bound: f64) -> (bool, String) {
    if curves.len() < 2 || curves.iter().any(|c| c.ys.len() != curves[0].ys.len()) {
        return (
            false,
            format!("need at least two curves on one grid, got {}", curves.len()),
        );
    }
    let centred: Vec<Vec<f64>> = curves
        .iter()
        .map(|c| {
            let m = c.ys.iter().sum::<f64>() / c.ys.len() as f64;
            c.ys.iter().map(|y| y - m).collect()
        })
        .collect();
    let n = centred.len() as f64;
    let spread = (0..centred[0].len())
        .map(|g| {
            let mean = centred.iter().map(|c| c[g]).sum::<f64>() / n;
            (centred.iter().map(|c| (c[g] - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
        })
        .fold(0.0, f64::max);
    (
        spread > bound,
        format!(
            "largest spread of centred curves {} vs bound {bound} ({} curves)",
            short(spread),
            curves.len()
        ),
    )
}

fn argmax(v: &[f64]) -> usize {
    (0..v.len()).fold(0, |best, i| if v[i] > v[best] { i } else { best })
}

/// The curves of `quantity` selected by `sel` (and, for ICE, `filter`).
fn curves<'a>(
    keys: &'a [String],
    out: &RunOutput,
    quantity: &str,
    sel: &Selector,
    filter: Option<&RowFilter>,
) -> Vec<Curve<'a>> {
    let base = |labels: &[String], model: &str, feature: &str| {
        let mut cols = vec![("quantity", quantity.to_string())];
        cols.extend(keys.iter().map(String::as_str).zip(labels.iter().cloned()));
        cols.push(("model", model.to_string()));
        cols.push(("feature", feature.to_string()));
        cols
    };
    let index = |name: &str| out.feature_names.iter().position(|n| n == name);
    if quantity.ends_with("_ice") {
        return out
            .curves
            .iter()
            .filter(|c| c.quantity == quantity)
            .filter(|c| {
                filter.is_none_or(|f| {
                    f.class.is_none_or(|k| c.row_class == Some(k))
                        && f.feature.as_ref().is_none_or(|name| {
                            index(name).is_some_and(|j| {
                                let v = c.row_values[j].abs();
                                f.abs_below.is_none_or(|b| v < b)
                                    && f.abs_above.is_none_or(|b| v > b)
                            })
                        })
                })
            })
            .map(|c| {
                let mut cols = base(&c.labels, &c.model, &c.feature);
                cols.push(("row", format!("{}/{}", c.replicate, c.row)));
                Curve {
                    cols,
                    xs: c.grid.clone(),
                    ys: c.values.clone(),
                    se: vec![0.0; c.grid.len()],
                    own: index(&c.feature).map(|j| c.row_values[j]),
                }
            })
            .filter(|c| selected(&c.cols, sel))
            .collect();
    }
    let mut list: Vec<Curve<'a>> = Vec::new();
    for r in out.summary.iter().filter(|r| r.quantity == quantity) {
        let cols = base(&r.labels, &r.model, &r.feature);
        if !selected(&cols, sel) {
            continue;
        }
        let c = match list.iter().position(|c| c.cols == cols) {
            Some(i) => &mut list[i],
            None => {
                list.push(Curve {
                    cols,
                    xs: Vec::new(),
                    ys: Vec::new(),
                    se: Vec::new(),
                    own: None,
                });
                list.last_mut().expect("just pushed")
            }
        };
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

impl CurveInterval {
    /// The curves this assertion selects.
    fn curves<'a>(&self, keys: &'a [String], out: &RunOutput) -> Vec<Curve<'a>> {
        curves(
            keys,
            out,
            &self.quantity,
            &self.rows,
            self.rows_with.as_ref(),
        )
    }
}

fn describe(c: &Curve<'_>) -> String {
    c.cols
        .iter()
        .skip(1)
        .map(|(_, v)| v.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Applies `test` to every curve: passes if all pass (and there is at least one).
fn each_curve(curves: &[Curve<'_>], test: impl Fn(&Curve<'_>) -> (bool, String)) -> (bool, String) {
    if curves.is_empty() {
        return (false, "no curves match the selection".into());
    }
    let results: Vec<(bool, String)> = curves
        .iter()
        .map(|c| {
            let (ok, text) = test(c);
            (ok, format!("{}: {text}", describe(c)))
        })
        .collect();
    let failed: Vec<&str> = results
        .iter()
        .filter(|r| !r.0)
        .map(|r| r.1.as_str())
        .collect();
    let shown: Vec<&str> = if failed.is_empty() {
        results.iter().map(|r| r.1.as_str()).take(4).collect()
    } else {
        failed.iter().copied().take(4).collect()
    };
    (
        failed.is_empty(),
        format!(
            "{} of {} curves pass; {}",
            results.len() - failed.len(),
            results.len(),
            shown.join("; ")
        ),
    )
}

/// The curve's maximum over [lower, upper] exceeds its values at both ends of the
/// interval by more than the combined standard error (grid point nearest each end).
fn bump(c: &Curve<'_>, lower: f64, upper: f64) -> (bool, String) {
    let inside: Vec<usize> = (0..c.xs.len())
        .filter(|&i| c.xs[i] >= lower && c.xs[i] <= upper)
        .collect();
    let (Some(&first), Some(&last)) = (inside.first(), inside.last()) else {
        return (false, "no grid point inside the interval".into());
    };
    let top = *inside
        .iter()
        .max_by(|&&a, &&b| c.ys[a].total_cmp(&c.ys[b]))
        .expect("non-empty");
    let above = |end: usize| c.ys[top] - c.ys[end] > (c.se[top].powi(2) + c.se[end].powi(2)).sqrt();
    (
        above(first) && above(last),
        format!(
            "max {} at {} vs {} and {} at the ends",
            short(c.ys[top]),
            short(c.xs[top]),
            short(c.ys[first]),
            short(c.ys[last])
        ),
    )
}

/// Both grid ends exceed the curve's minimum on their side of [lower, upper], by more
/// than the combined standard error of the two points.
fn rises(c: &Curve<'_>, lower: f64, upper: f64) -> (bool, String) {
    let side = |inside: &dyn Fn(f64) -> bool, edge: usize| {
        let idx: Vec<usize> = (0..c.xs.len()).filter(|&i| inside(c.xs[i])).collect();
        let m = *idx.iter().min_by(|&&a, &&b| c.ys[a].total_cmp(&c.ys[b]))?;
        let margin = (c.se[edge].powi(2) + c.se[m].powi(2)).sqrt();
        Some((c.ys[edge] - c.ys[m] > margin, c.ys[edge] - c.ys[m]))
    };
    let last = c.xs.len() - 1;
    match (side(&|x| x <= lower, 0), side(&|x| x >= upper, last)) {
        (Some((l, dl)), Some((r, dr))) => (
            l && r,
            format!("rise {} (left), {} (right)", short(dl), short(dr)),
        ),
        _ => (false, "the grid does not reach beyond the interval".into()),
    }
}

/// Whether the curve moves in `direction` from x = `from` to x = `to` by more than the
/// combined standard error of the nearest grid points (0 for ICE).
fn trend(c: &Curve<'_>, from: f64, to: f64, direction: Direction) -> bool {
    let nearest = |x: f64| {
        (0..c.xs.len())
            .min_by(|&a, &b| (c.xs[a] - x).abs().total_cmp(&(c.xs[b] - x).abs()))
            .unwrap_or(0)
    };
    let (a, b) = (
        interpolate(&c.xs, &c.ys, from),
        interpolate(&c.xs, &c.ys, to),
    );
    let margin = (c.se[nearest(from)].powi(2) + c.se[nearest(to)].powi(2)).sqrt();
    match direction {
        Direction::Increasing => b - a > margin,
        Direction::Decreasing => a - b > margin,
    }
}

fn similar(a: &[Curve<'_>], b: &[Curve<'_>], tolerance: f64) -> (bool, String) {
    if a.is_empty() || a.len() != b.len() {
        return (
            false,
            format!("{} curves for `this`, {} for `that`", a.len(), b.len()),
        );
    }
    let mut ok = true;
    let mut parts = Vec::new();
    for (ca, cb) in a.iter().zip(b) {
        let range = ca.ys[argmax(&ca.ys)] - ca.ys.iter().copied().fold(f64::INFINITY, f64::min);
        let gap = ca
            .ys
            .iter()
            .zip(&cb.ys)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f64::max);
        let pass = ca.ys.len() == cb.ys.len() && gap <= tolerance * range;
        ok &= pass;
        parts.push(format!(
            "{}max gap {} vs range {}",
            if pass { "" } else { "NOT " },
            short(gap),
            short(range)
        ));
    }
    (ok, parts.join("; "))
}

fn every(
    rows: Vec<&Row<'_>>,
    sel: &Selector,
    pred: impl Fn(&Row<'_>) -> bool,
    what: &str,
) -> (bool, String) {
    let chosen: Vec<_> = rows.into_iter().filter(|r| r.matches(sel)).collect();
    if chosen.is_empty() {
        return (false, "no rows match the selection".into());
    }
    let bad: Vec<String> = chosen
        .iter()
        .filter(|r| !pred(r))
        .map(|r| r.show())
        .collect();
    let shown: Vec<String> = chosen.iter().map(|r| r.show()).collect();
    if bad.is_empty() {
        (true, format!("{what}: {}", shown.join("; ")))
    } else {
        (false, format!("not {what}: {}", bad.join("; ")))
    }
}

/// `rows` grouped by their context without the columns `skip` (and per replicate
/// for tidy rows), in order of first appearance.
fn grouped<'r, 'a>(rows: &[&'r Row<'a>], skip: &[&str]) -> Vec<(String, Vec<&'r Row<'a>>)> {
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

/// Per replicate and context: min over `this` > max over `than`; passes when, in every
/// context, at least `share` of the replicates order so.
fn ranked_above(
    tidy: &[Row<'_>],
    q: &str,
    this: &Selector,
    than: &Selector,
    share: f64,
) -> (bool, String) {
    let skip: Vec<&str> = this
        .keys()
        .chain(than.keys())
        .map(String::as_str)
        .chain(["feature"])
        .collect();
    let rows = of_quantity(tidy, q);
    // (context, replicates ordered as claimed, replicates compared)
    let mut tally: Vec<(String, usize, usize)> = Vec::new();
    for (_, g) in grouped(&rows, &skip) {
        let min_this = g
            .iter()
            .filter(|r| r.matches(this))
            .map(|r| r.value.estimate)
            .fold(f64::INFINITY, f64::min);
        let max_than = g
            .iter()
            .filter(|r| r.matches(than))
            .map(|r| r.value.estimate)
            .fold(f64::NEG_INFINITY, f64::max);
        if min_this.is_infinite() || max_than.is_infinite() {
            continue;
        }
        let context = g[0].context(&skip).join(",");
        let hit = usize::from(min_this > max_than);
        match tally.iter_mut().find(|(c, _, _)| *c == context) {
            Some(t) => {
                t.1 += hit;
                t.2 += 1;
            }
            None => tally.push((context, hit, 1)),
        }
    }
    if tally.is_empty() {
        return (false, "no replicate has both `this` and `than` rows".into());
    }
    let ok = tally.iter().all(|(_, k, n)| *k as f64 >= share * *n as f64);
    let detail = tally
        .iter()
        .map(|(c, k, n)| format!("{c}: {k} of {n} replicates (at least {share} required)"))
        .collect::<Vec<_>>()
        .join("; ");
    (ok, detail)
}

/// Every selected row ranks within the top `k` of its context (1 + the number of
/// rows of the context with a larger estimate).
fn in_top(summary: &[Row<'_>], q: &str, sel: &Selector, k: usize) -> (bool, String) {
    let rows = of_quantity(summary, q);
    let mut ok = true;
    let mut parts = Vec::new();
    for (_, g) in grouped(&rows, &["feature"]) {
        for r in g.iter().filter(|r| r.matches(sel)) {
            let rank = 1 + g
                .iter()
                .filter(|o| o.value.estimate > r.value.estimate)
                .count();
            ok &= rank <= k;
            parts.push(format!(
                "{} rank {rank} of {}",
                r.get("feature").unwrap_or(""),
                g.len()
            ));
        }
    }
    if parts.is_empty() {
        return (false, "no rows match the selection".into());
    }
    (ok, format!("top {k} required: {}", parts.join("; ")))
}

/// Ranks 1..n of `v` (ties share their mean rank).
fn ranks(v: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..v.len()).collect();
    order.sort_by(|&a, &b| v[a].total_cmp(&v[b]));
    let mut out = vec![0.0; v.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && v[order[j + 1]] == v[order[i]] {
            j += 1;
        }
        for &o in &order[i..=j] {
            out[o] = (i + j) as f64 / 2.0 + 1.0;
        }
        i = j + 1;
    }
    out
}

/// Spearman's rank correlation: the Pearson correlation of the ranks.
fn spearman(a: &[f64], b: &[f64]) -> f64 {
    let (ra, rb) = (ranks(a), ranks(b));
    let n = ra.len() as f64;
    let (ma, mb) = (ra.iter().sum::<f64>() / n, rb.iter().sum::<f64>() / n);
    let cov: f64 = ra.iter().zip(&rb).map(|(x, y)| (x - ma) * (y - mb)).sum();
    let va: f64 = ra.iter().map(|x| (x - ma).powi(2)).sum();
    let vb: f64 = rb.iter().map(|y| (y - mb).powi(2)).sum();
    cov / (va * vb).sqrt()
}

/// Spearman(q, reference) > Spearman(than, reference) over the features of each
/// context.
fn rank_agreement(summary: &[Row<'_>], q: &str, than: &str, reference: &str) -> (bool, String) {
    let all: Vec<&Row<'_>> = summary.iter().collect();
    let mut ok = true;
    let mut parts = Vec::new();
    for (context, g) in grouped(&all, &["quantity", "feature"]) {
        let of = |name: &str| -> Vec<(&str, f64)> {
            g.iter()
                .filter(|r| r.get("quantity") == Some(name))
                .map(|r| (r.get("feature").unwrap_or(""), r.value.estimate))
                .collect()
        };
        let ref_values = of(reference);
        let paired = |name: &str| {
            let values = of(name);
            let (mut a, mut b) = (Vec::new(), Vec::new());
            for (f, v) in &values {
                if let Some((_, r)) = ref_values.iter().find(|(g, _)| g == f) {
                    a.push(*v);
                    b.push(*r);
                }
            }
            (a.len() >= 3).then(|| spearman(&a, &b))
        };
        let (Some(rq), Some(rt)) = (paired(q), paired(than)) else {
            continue;
        };
        ok &= rq > rt;
        parts.push(format!(
            "{context}: Spearman with {reference} {} ({q}) vs {} ({than})",
            short(rq),
            short(rt),
        ));
    }
    if parts.is_empty() {
        return (
            false,
            "need at least three features with all three quantities".into(),
        );
    }
    (ok, parts.join("; "))
}

/// One `this` > `than` comparison, accumulated over replicates.
struct Pair {
    key: String,
    name: String,
    diffs: Vec<f64>,
    lower_this: f64,
    upper_than: f64,
}

/// Paired comparison per replicate: the t-interval of est(this) − est(than) over
/// replicates must lie above 0; with one replicate the two intervals must not overlap.
fn greater(
    tidy: &[Row<'_>],
    q: &str,
    than_q: Option<&str>,
    this: &Selector,
    than: &Selector,
    level: f64,
) -> (bool, String) {
    let mut skip: Vec<&str> = this.keys().chain(than.keys()).map(String::as_str).collect();
    if than_q.is_some() {
        skip.push("quantity");
    }
    let rows = of_quantity(tidy, q);
    let other = of_quantity(tidy, than_q.unwrap_or(q));
    let a: Vec<_> = rows.iter().filter(|r| r.matches(this)).collect();
    let b: Vec<_> = other.iter().filter(|r| r.matches(than)).collect();
    let mut pairs: Vec<Pair> = Vec::new();
    for ra in &a {
        for rb in b
            .iter()
            .filter(|rb| rb.context(&skip) == ra.context(&skip) && rb.replicate == ra.replicate)
        {
            let name = format!(
                "{} > {}",
                ra.get("feature").unwrap_or(""),
                rb.get("feature").unwrap_or("")
            );
            let key = format!("{}|{name}", ra.context(&skip).join(","));
            let d = ra.value.estimate - rb.value.estimate;
            match pairs.iter_mut().find(|p| p.key == key) {
                Some(p) => p.diffs.push(d),
                None => pairs.push(Pair {
                    key,
                    name,
                    diffs: vec![d],
                    lower_this: ra.value.lower,
                    upper_than: rb.value.upper,
                }),
            }
        }
    }
    if pairs.is_empty() {
        return (
            false,
            "no rows match `this` and `than` in a common context".into(),
        );
    }
    let mut ok = true;
    let mut parts = Vec::new();
    for p in &pairs {
        let (pass, text) = if p.diffs.len() >= 2 {
            let e = t_interval(&p.diffs, level);
            (
                e.lower > 0.0,
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
                p.lower_this > p.upper_than,
                format!(
                    "{}: lower {} vs upper {}",
                    p.name,
                    short(p.lower_this),
                    short(p.upper_than)
                ),
            )
        };
        ok &= pass;
        parts.push(if pass { text } else { format!("NOT {text}") });
    }
    (ok, parts.join("; "))
}

fn monotone(
    summary: &[Row<'_>],
    quantities: &[String],
    sel: &Selector,
    along: &str,
    direction: Direction,
    level: f64,
) -> (bool, String) {
    let mut ok = true;
    let mut parts = Vec::new();
    for q in quantities {
        let chosen: Vec<_> = of_quantity(summary, q)
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
            return (false, format!("no rows of {q} match the selection"));
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
            let steps: Vec<bool> = g
                .windows(2)
                .map(|w| {
                    let step = match direction {
                        Direction::Decreasing => w[0].value.estimate - w[1].value.estimate,
                        Direction::Increasing => w[1].value.estimate - w[0].value.estimate,
                    };
                    step > (se(&w[0].value).powi(2) + se(&w[1].value).powi(2)).sqrt()
                })
                .collect();
            let good = steps.iter().all(|&s| s);
            ok &= good;
            let values: Vec<String> = g
                .iter()
                .map(|r| format!("{}={}", r.get(along).unwrap_or(""), short(r.value.estimate)))
                .collect();
            parts.push(format!(
                "{}{q} {}: {}",
                if good { "" } else { "NOT " },
                g[0].get("feature").unwrap_or(""),
                values.join(" ")
            ));
        }
    }
    (ok, parts.join("; "))
}

/// Compares a run's summary with the committed `summary.csv` in `baseline_dir`.
pub fn regression(
    keys: &[String],
    out: &RunOutput,
    baseline_dir: &Path,
    tol: Tolerance,
) -> Outcome {
    let name = "regression against the committed summary.csv".to_string();
    let path = baseline_dir.join("summary.csv");
    let fail = |detail: String| Outcome {
        name: name.clone(),
        status: Status::Fail,
        detail,
    };
    let baseline = match read_csv(&path) {
        Ok(t) => t,
        Err(e) => {
            return fail(format!(
                "{e}; create the baseline with `cargo xtask bless <id>`"
            ));
        }
    };
    let new = summary_table(keys, &out.summary);
    match compare(&baseline, &new, tol) {
        Ok(detail) => Outcome {
            name,
            status: Status::Pass,
            detail,
        },
        Err(detail) => fail(format!(
            "{detail}; if the change is intended, re-bless with `cargo xtask bless <id>` and commit"
        )),
    }
}

const NUMERIC: [&str; 4] = ["estimate", "lower", "upper", "sd"];

fn compare(old: &CsvTable, new: &CsvTable, tol: Tolerance) -> Result<String, String> {
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
    let mut worst = 0.0f64;
    for (i, (o, n)) in old.rows.iter().zip(&new.rows).enumerate() {
        for (c, col) in old.header.iter().enumerate() {
            if !NUMERIC.contains(&col.as_str()) {
                if o[c] != n[c] {
                    return Err(format!("row {}: {col} `{}` -> `{}`", i + 2, o[c], n[c]));
                }
                continue;
            }
            match (o[c].parse::<f64>(), n[c].parse::<f64>()) {
                (Ok(a), Ok(b)) => {
                    let excess = (a - b).abs() - (tol.abs + tol.rel * a.abs());
                    if excess > 0.0 {
                        return Err(format!(
                            "row {} ({} {}): {col} {a} -> {b}, beyond abs {} + rel {}",
                            i + 2,
                            o[0],
                            old.header
                                .iter()
                                .position(|h| h == "feature")
                                .and_then(|f| o.get(f))
                                .map_or("", String::as_str),
                            tol.abs,
                            tol.rel
                        ));
                    }
                    worst = worst.max((a - b).abs());
                }
                _ if o[c] == n[c] => {}
                _ => return Err(format!("row {}: {col} `{}` -> `{}`", i + 2, o[c], n[c])),
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

/// Every paper check of `exp` on a run.
pub fn paper_checks(exp: &crate::load::Experiment, out: &RunOutput) -> Vec<Outcome> {
    exp.spec
        .checks
        .iter()
        .map(|c| evaluate(c, &out.keys, out, exp.spec.level))
        .collect()
}

/// Writes `checks.csv` (check, status, detail).
pub fn write_outcomes(path: &Path, outcomes: &[Outcome]) -> crate::error::Result<()> {
    let csv_err = |source| crate::error::BenchError::Csv {
        path: path.to_path_buf(),
        source,
    };
    let mut w = csv::Writer::from_path(path).map_err(csv_err)?;
    w.write_record(["check", "status", "detail"])
        .map_err(csv_err)?;
    for o in outcomes {
        w.write_record([o.name.as_str(), o.status.label(), o.detail.as_str()])
            .map_err(csv_err)?;
    }
    w.flush().map_err(crate::error::io_err(path))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::Scale;
    use crate::table::{TidyRow, summarize};

    /// A run of one model whose replicate r has `values[r]` = (quantity, feature, value).
    fn run(values: &[Vec<(&str, &str, f64)>]) -> RunOutput {
        let tidy: Vec<TidyRow> = values
            .iter()
            .enumerate()
            .flat_map(|(r, rows)| {
                rows.iter().map(move |&(q, f, v)| TidyRow {
                    labels: Vec::new(),
                    replicate: r,
                    model: "m".into(),
                    quantity: q.into(),
                    feature: f.into(),
                    x: None,
                    value: Estimate {
                        estimate: v,
                        se: f64::NAN,
                        lower: f64::NAN,
                        upper: f64::NAN,
                        n: 1,
                    },
                })
            })
            .collect();
        RunOutput {
            scale: Scale::Ci,
            keys: Vec::new(),
            summary: summarize(&tidy, 0.95),
            tidy,
            curves: Vec::new(),
            feature_names: Vec::new(),
            train_sample: None,
            snapshot: None,
            variants: 1,
            replicates: values.len(),
            threads: 1,
            wall_seconds: 0.0,
        }
    }

    fn check(yaml: &str, out: &RunOutput) -> Status {
        let spec = CheckSpec {
            claim: "c".into(),
            assert: serde_saphyr::from_str(yaml).unwrap(),
            expected_to_differ: None,
        };
        evaluate(&spec, &[], out, 0.95).status
    }

    #[test]
    fn ranked_above_counts_the_replicates_that_order_as_claimed() {
        // A above both B and C in replicates 0 and 1 only.
        let out = run(&[
            vec![("q", "A", 3.0), ("q", "B", 2.0), ("q", "C", 1.0)],
            vec![("q", "A", 3.0), ("q", "B", 1.0), ("q", "C", 2.0)],
            vec![("q", "A", 1.5), ("q", "B", 2.0), ("q", "C", 1.0)],
        ]);
        let claim = |share: f64| {
            format!(
                "ranked_above: {{ quantity: q, this: {{ feature: A }}, than: {{ feature: [B, C] }}, share: {share} }}"
            )
        };
        assert_eq!(check(&claim(0.6), &out), Status::Pass);
        assert_eq!(check(&claim(0.7), &out), Status::Fail);
    }

    #[test]
    fn in_top_and_near_read_the_mean_over_replicates() {
        let out = run(&[
            vec![("q", "A", 1.0), ("q", "B", 3.0), ("q", "C", 2.0)],
            vec![("q", "A", 1.0), ("q", "B", 5.0), ("q", "C", 2.0)],
        ]);
        let top = |f: &str, k: usize| {
            format!("in_top: {{ quantity: q, where: {{ feature: {f} }}, k: {k} }}")
        };
        assert_eq!(check(&top("C", 2), &out), Status::Pass);
        assert_eq!(check(&top("A", 2), &out), Status::Fail);
        let near = |tol: f64| {
            format!(
                "near: {{ quantity: q, where: {{ feature: B }}, value: 4.5, tolerance: {tol} }}"
            )
        };
        assert_eq!(check(&near(0.5), &out), Status::Pass);
        assert_eq!(check(&near(0.4), &out), Status::Fail);
    }

    #[test]
    fn rank_agreement_compares_spearman_correlations_with_the_reference() {
        let out = run(&[vec![
            ("mi", "A", 0.3),
            ("mi", "B", 0.2),
            ("mi", "C", 0.1),
            ("mi", "D", 0.0),
            ("cid", "A", 9.0),
            ("cid", "B", 5.0),
            ("cid", "C", 4.0),
            ("cid", "D", 1.0),
            ("pfi", "A", 1.0),
            ("pfi", "B", 2.0),
            ("pfi", "C", 4.0),
            ("pfi", "D", 3.0),
        ]]);
        let claim = |a: &str, b: &str| {
            format!("rank_agreement: {{ quantity: {a}, than_quantity: {b}, reference: mi }}")
        };
        assert_eq!(check(&claim("cid", "pfi"), &out), Status::Pass);
        assert_eq!(check(&claim("pfi", "cid"), &out), Status::Fail);
    }

    #[test]
    fn spearman_uses_mean_ranks_for_ties() {
        assert_eq!(ranks(&[2.0, 1.0, 2.0, 3.0]), vec![2.5, 1.0, 2.5, 4.0]);
        assert!((spearman(&[1.0, 2.0, 3.0], &[10.0, 20.0, 30.0]) - 1.0).abs() < 1e-15);
        assert!((spearman(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]) + 1.0).abs() < 1e-15);
    }
}
