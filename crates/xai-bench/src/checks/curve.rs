//! Checks on curves (PD curves from the summary with their standard errors, or kept
//! ICE curves): shape inside an interval of the grid, trends between two points, and
//! comparisons of curves with each other and with the PD.

use xai_core::interpolate;

use super::{Verdict, nan_max};
use crate::run::RunOutput;
use crate::select::{Curve, argmax, argmin, curves, interval_curves, short};
use crate::spec::{CurveInterval, Direction, RowFilter, Selector};

/// No curves, or a curve with a NaN value: the shape cannot be judged, so the claim
/// (and its negation) fails with a NaN measure.
fn undecidable(curves: &[Curve<'_>]) -> Option<Verdict> {
    if curves.is_empty() {
        return Some(Verdict::no_rows("no curves match the selection"));
    }
    curves
        .iter()
        .find(|c| c.ys.iter().any(|y| y.is_nan()))
        .map(|c| Verdict::no_rows(&format!("{}: NaN on the curve", c.describe())))
}

/// Applies `test` to every curve: holds if all pass (and there is at least one).
/// Measured: the share of curves that pass.
fn each_curve(curves: &[Curve<'_>], test: impl Fn(&Curve<'_>) -> (bool, String)) -> Verdict {
    if let Some(v) = undecidable(curves) {
        return v;
    }
    let results: Vec<(bool, String)> = curves
        .iter()
        .map(|c| {
            let (ok, text) = test(c);
            (ok, format!("{}: {text}", c.describe()))
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
    let passed = results.len() - failed.len();
    Verdict::new(
        failed.is_empty(),
        passed as f64 / results.len() as f64,
        format!(
            "{passed} of {} curves pass; {}",
            results.len(),
            shown.join("; ")
        ),
    )
}

/// Every curve's maximum over [lower, upper] exceeds its values at both ends of the
/// interval by more than the combined standard error (grid point nearest each end).
pub fn interior_peak(out: &RunOutput, ci: &CurveInterval) -> Verdict {
    each_curve(&interval_curves(ci, out), |c| {
        let inside: Vec<usize> = (0..c.xs.len())
            .filter(|&i| c.xs[i] >= ci.lower && c.xs[i] <= ci.upper)
            .collect();
        let (Some(&first), Some(&last)) = (inside.first(), inside.last()) else {
            return (false, "no grid point inside the interval".into());
        };
        let top = *inside
            .iter()
            .max_by(|&&a, &&b| c.ys[a].total_cmp(&c.ys[b]))
            .expect("non-empty");
        let above =
            |end: usize| c.ys[top] - c.ys[end] > (c.se[top].powi(2) + c.se[end].powi(2)).sqrt();
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
    })
}

/// On each side of [lower, upper] the curve's value at the grid end exceeds its
/// minimum on that side, by more than the combined standard error of the two points.
pub fn rises_towards_edges(out: &RunOutput, ci: &CurveInterval) -> Verdict {
    each_curve(&interval_curves(ci, out), |c| {
        let side = |inside: &dyn Fn(f64) -> bool, edge: usize| {
            let idx: Vec<usize> = (0..c.xs.len()).filter(|&i| inside(c.xs[i])).collect();
            let m = *idx.iter().min_by(|&&a, &&b| c.ys[a].total_cmp(&c.ys[b]))?;
            let margin = (c.se[edge].powi(2) + c.se[m].powi(2)).sqrt();
            Some((c.ys[edge] - c.ys[m] > margin, c.ys[edge] - c.ys[m]))
        };
        let last = c.xs.len() - 1;
        match (side(&|x| x <= ci.lower, 0), side(&|x| x >= ci.upper, last)) {
            (Some((l, dl)), Some((r, dr))) => (
                l && r,
                format!("rise {} (left), {} (right)", short(dl), short(dr)),
            ),
            _ => (false, "the grid does not reach beyond the interval".into()),
        }
    })
}

/// Every curve reaches its maximum over the whole grid inside [lower, upper].
pub fn argmax_within(out: &RunOutput, ci: &CurveInterval) -> Verdict {
    each_curve(&interval_curves(ci, out), |c| {
        let at = c.xs[argmax(&c.ys)];
        (
            (ci.lower..=ci.upper).contains(&at),
            format!("maximum at {}", short(at)),
        )
    })
}

/// Whether the curve moves in `direction` from x = `from` to x = `to` by more than the
/// combined standard error of the nearest grid points (0 for ICE).
fn follows(c: &Curve<'_>, from: f64, to: f64, direction: Direction, by: f64) -> bool {
    let nearest = |x: f64| {
        (0..c.xs.len())
            .min_by(|&a, &b| (c.xs[a] - x).abs().total_cmp(&(c.xs[b] - x).abs()))
            .unwrap_or(0)
    };
    let (a, b) = (
        interpolate(&c.xs, &c.ys, from),
        interpolate(&c.xs, &c.ys, to),
    );
    let margin = (c.se[nearest(from)].powi(2) + c.se[nearest(to)].powi(2))
        .sqrt()
        .max(by);
    match direction {
        Direction::Increasing => b - a > margin,
        Direction::Decreasing => a - b > margin,
    }
}

/// At least `share` of the selected curves (`quantity`, `sel`, `filter`) move in
/// `direction` from `from` to `to` by more than `by`. Measured: the share that do.
pub fn trend(
    out: &RunOutput,
    (quantity, sel, filter): (&str, &Selector, Option<&RowFilter>),
    (from, to): (f64, f64),
    direction: Direction,
    (share, by): (f64, f64),
) -> Verdict {
    let list = curves(out, quantity, sel, filter);
    if let Some(v) = undecidable(&list) {
        return v;
    }
    let k = list
        .iter()
        .filter(|c| follows(c, from, to, direction, by))
        .count();
    let needed = super::scalar::at_least(share, list.len());
    Verdict::new(
        k >= needed,
        k as f64 / list.len() as f64,
        format!(
            "{k} of {} curves go {} from {from} to {to}{} (at least {needed} required)",
            list.len(),
            if direction == Direction::Increasing {
                "up"
            } else {
                "down"
            },
            if by > 0.0 {
                format!(" by more than {by}")
            } else {
                String::new()
            }
        ),
    )
}

/// Every selected curve's range max − min exceeds `bound` and the combined standard
/// error of its highest and lowest points.
pub fn varies(out: &RunOutput, quantity: &str, sel: &Selector, bound: f64) -> Verdict {
    each_curve(&curves(out, quantity, sel, None), |c| {
        let (hi, lo) = (argmax(&c.ys), argmin(&c.ys));
        let range = c.ys[hi] - c.ys[lo];
        let margin = (c.se[hi].powi(2) + c.se[lo].powi(2)).sqrt().max(bound);
        (
            range > margin,
            format!("range {} vs {}", short(range), short(margin)),
        )
    })
}

/// The largest across-curve standard deviation of the centred curves (each minus its
/// own mean) over the grid exceeds `bound`. Measured: that spread.
pub fn shapes_differ(out: &RunOutput, quantity: &str, sel: &Selector, bound: f64) -> Verdict {
    let curves = curves(out, quantity, sel, None);
    if curves.len() < 2 || curves.iter().any(|c| c.ys.len() != curves[0].ys.len()) {
        return Verdict::no_rows(&format!(
            "need at least two curves on one grid, got {}",
            curves.len()
        ));
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
        .fold(0.0, nan_max);
    Verdict::new(
        spread > bound,
        spread,
        format!(
            "largest spread of centred curves {} vs bound {bound} ({} curves)",
            short(spread),
            curves.len()
        ),
    )
}

/// Two sets of PD curves agree point by point: max |a − b| ≤ tolerance·(max a − min a)
/// for each pair. Measured: the largest max |a − b| / range.
pub fn similar_curves(
    out: &RunOutput,
    quantity: &str,
    this: &Selector,
    that: &Selector,
    tolerance: f64,
) -> Verdict {
    let (a, b) = (
        curves(out, quantity, this, None),
        curves(out, quantity, that, None),
    );
    if a.is_empty() || a.len() != b.len() {
        return Verdict::no_rows(&format!(
            "{} curves for `this`, {} for `that`",
            a.len(),
            b.len()
        ));
    }
    let mut worst = 0.0f64;
    let mut parts = Vec::new();
    for (ca, cb) in a.iter().zip(&b) {
        let range = ca.ys[argmax(&ca.ys)] - ca.ys[argmin(&ca.ys)];
        let gap = ca
            .ys
            .iter()
            .zip(&cb.ys)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, nan_max);
        let ratio = match (ca.ys.len() == cb.ys.len(), range > 0.0) {
            (true, true) => gap / range,
            (true, false) if gap == 0.0 => 0.0,
            _ => f64::INFINITY,
        };
        worst = nan_max(worst, ratio);
        parts.push(format!(
            "{}max gap {} vs range {}",
            if ratio <= tolerance { "" } else { "NOT " },
            short(gap),
            short(range)
        ));
    }
    Verdict::new(worst <= tolerance, worst, parts.join("; "))
}

/// Every selected ICE curve stays below the peak of the PD of its feature and model
/// (same grid keys): its maximum, or with `at_own_value` its value at the row's own x;
/// with `within`, the curve's maximum and the PD's peak are taken over that interval
/// (the row's own value is compared wherever it lies).
pub fn below_pd_peak(
    out: &RunOutput,
    quantity: &str,
    pd: &str,
    sel: &Selector,
    filter: Option<&RowFilter>,
    at_own_value: bool,
    within: Option<(f64, f64)>,
) -> Verdict {
    let (lo, hi) = within.unwrap_or((f64::NEG_INFINITY, f64::INFINITY));
    let max_within = |k: &Curve<'_>| {
        (0..k.xs.len())
            .filter(|&i| k.xs[i] >= lo && k.xs[i] <= hi)
            .map(|i| k.ys[i])
            .fold(f64::NEG_INFINITY, f64::max)
    };
    let n_keys = out.keys.len();
    let pds = curves(out, pd, &Selector::new(), None);
    if let Some(v) = undecidable(&pds) {
        return v;
    }
    each_curve(&curves(out, quantity, sel, filter), |c| {
        let Some(p) = pds.iter().find(|p| p.context(n_keys) == c.context(n_keys)) else {
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
