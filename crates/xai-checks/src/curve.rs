//! Assertions on curves (PD curves `*_pd` from the summary with their standard errors,
//! or kept ICE curves `*_ice`): shape inside an interval of the grid
//! (`interior_peak`, `rises_towards_edges`, `argmax_within`), trends between two
//! points (`trend`), variation (`varies`, `shapes_differ`), and comparisons of curves
//! with each other (`similar_curves`) and with the PD (`below_pd_peak`).

use serde::Deserialize;

use crate::tolerance::Threshold;
use xai_core::interpolate;

use super::Direction;
use super::{AssertionKind, Context, Reads, Verdict, at_least, nan_max};
use xai_results::output::RunOutput;
use xai_results::select::{Curve, argmax, argmin, curves, interval_curves, short};
use xai_results::select::{CurveInterval, RowFilter, Selector};

/// The ends of a curve interval, which every use sets (around the paper's location).
fn interval_thresholds(c: &CurveInterval) -> Vec<Threshold> {
    [("lower", c.lower), ("upper", c.upper)]
        .into_iter()
        .map(|(s, v)| Threshold::always(s, v))
        .collect()
}

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

/// Every selected curve has a bump inside [lower, upper]: its maximum over the interval
/// exceeds its values at both ends of the interval by more than the combined standard
/// error (0 for ICE curves). Measured: the share of curves that pass.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(transparent)]
pub struct InteriorPeak(pub CurveInterval);

impl AssertionKind for InteriorPeak {
    fn thresholds(&self) -> Vec<Threshold> {
        interval_thresholds(&self.0)
    }

    fn quantities(&self) -> Vec<&String> {
        vec![&self.0.quantity]
    }

    fn reads(&self) -> Reads<'_> {
        Reads::curves(vec![(&self.0.quantity, &self.0.rows)])
    }

    fn verdict(&self, ctx: &Context<'_>) -> Verdict {
        interior_peak(ctx.out, &self.0)
    }
}

/// Every curve's maximum over [lower, upper] exceeds its values at both ends of the
/// interval by more than the combined standard error (grid point nearest each end).
fn interior_peak(out: &RunOutput, ci: &CurveInterval) -> Verdict {
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

/// On each side of [lower, upper] every selected curve's value at the grid end exceeds
/// the curve's minimum on that side (for PD, by more than the combined standard error
/// of the two points). Measured: the share of curves that pass.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(transparent)]
pub struct RisesTowardsEdges(pub CurveInterval);

impl AssertionKind for RisesTowardsEdges {
    fn thresholds(&self) -> Vec<Threshold> {
        interval_thresholds(&self.0)
    }

    fn quantities(&self) -> Vec<&String> {
        vec![&self.0.quantity]
    }

    fn reads(&self) -> Reads<'_> {
        Reads::curves(vec![(&self.0.quantity, &self.0.rows)])
    }

    fn verdict(&self, ctx: &Context<'_>) -> Verdict {
        rises_towards_edges(ctx.out, &self.0)
    }
}

/// On each side of [lower, upper] the curve's value at the grid end exceeds its
/// minimum on that side, by more than the combined standard error of the two points.
fn rises_towards_edges(out: &RunOutput, ci: &CurveInterval) -> Verdict {
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

/// Every selected curve reaches its maximum over the whole grid inside [lower, upper].
/// Measured: the share of curves that pass.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(transparent)]
pub struct ArgmaxWithin(pub CurveInterval);

impl AssertionKind for ArgmaxWithin {
    fn thresholds(&self) -> Vec<Threshold> {
        interval_thresholds(&self.0)
    }

    fn quantities(&self) -> Vec<&String> {
        vec![&self.0.quantity]
    }

    fn reads(&self) -> Reads<'_> {
        Reads::curves(vec![(&self.0.quantity, &self.0.rows)])
    }

    fn verdict(&self, ctx: &Context<'_>) -> Verdict {
        argmax_within(ctx.out, &self.0)
    }
}

/// Every curve reaches its maximum over the whole grid inside [lower, upper].
fn argmax_within(out: &RunOutput, ci: &CurveInterval) -> Verdict {
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

/// At least `share` of the selected curves move in `direction` from x = `from` to x =
/// `to` (values interpolated) by more than `by` and, for PD, by more than the combined
/// standard error. Measured: the share of curves that do.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Trend {
    /// The quantity.
    pub quantity: String,
    /// The curves.
    #[serde(rename = "where")]
    pub rows: Selector,
    /// ICE only: which rows' curves.
    #[serde(default)]
    pub rows_with: Option<RowFilter>,
    /// Start of the comparison.
    pub from: f64,
    /// End of the comparison.
    pub to: f64,
    /// `increasing` or `decreasing`.
    pub direction: Direction,
    /// Share of curves that must follow the trend (default 1).
    #[serde(default = "super::default_share")]
    pub share: f64,
    /// The smallest move that counts (default 0): e.g. more than one tree's vote
    /// of a forest's predicted probability, so that a curve stepping by one of 500
    /// trees (0.002) does not count as rising (icefi2022 App. B).
    #[serde(default)]
    pub by: f64,
}

impl AssertionKind for Trend {
    fn thresholds(&self) -> Vec<Threshold> {
        [
            Threshold::unless("share", self.share, 1.0),
            Threshold::unless("by", self.by, 0.0),
        ]
        .concat()
    }

    fn quantities(&self) -> Vec<&String> {
        vec![&self.quantity]
    }

    fn reads(&self) -> Reads<'_> {
        Reads::curves(vec![(&self.quantity, &self.rows)])
    }

    fn verdict(&self, ctx: &Context<'_>) -> Verdict {
        trend(
            ctx.out,
            (&self.quantity, &self.rows, self.rows_with.as_ref()),
            (self.from, self.to),
            self.direction,
            (self.share, self.by),
        )
    }
}

/// At least `share` of the selected curves (`quantity`, `sel`, `filter`) move in
/// `direction` from `from` to `to` by more than `by`. Measured: the share that do.
fn trend(
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
    let needed = at_least(share, list.len());
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

/// Every selected curve varies: its range max − min exceeds `bound` and (for PD) the
/// combined standard error of its highest and lowest points. Measured: the share of
/// curves that do.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Varies {
    /// The quantity.
    pub quantity: String,
    /// The curves.
    #[serde(rename = "where")]
    pub rows: Selector,
    /// Smallest range that counts.
    #[serde(default)]
    pub bound: f64,
}

impl AssertionKind for Varies {
    fn thresholds(&self) -> Vec<Threshold> {
        Threshold::unless("bound", self.bound, 0.0)
    }

    fn quantities(&self) -> Vec<&String> {
        vec![&self.quantity]
    }

    fn reads(&self) -> Reads<'_> {
        Reads::curves(vec![(&self.quantity, &self.rows)])
    }

    fn verdict(&self, ctx: &Context<'_>) -> Verdict {
        varies(ctx.out, &self.quantity, &self.rows, self.bound)
    }
}

/// Every selected curve's range max − min exceeds `bound` and the combined standard
/// error of its highest and lowest points.
fn varies(out: &RunOutput, quantity: &str, sel: &Selector, bound: f64) -> Verdict {
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

/// The selected ICE curves differ in shape, not only in level: after subtracting each
/// curve's own mean, the standard deviation across curves exceeds `bound` at some
/// grid point; with `relative`, `bound` times the range of the curves' mean (their
/// PD over the rows drawn), so the bound is a share of the effect the PD shows.
/// Measured: the largest such spread.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShapesDiffer {
    /// The ICE quantity.
    pub quantity: String,
    /// The curves (one feature and model).
    #[serde(rename = "where")]
    pub rows: Selector,
    /// Smallest spread that counts (a share of the PD's range, with `relative`).
    pub bound: f64,
    /// Whether `bound` is a share of the range of the curves' mean (default false).
    #[serde(default)]
    pub relative: bool,
}

impl AssertionKind for ShapesDiffer {
    fn thresholds(&self) -> Vec<Threshold> {
        vec![Threshold::always("bound", self.bound)]
    }

    fn quantities(&self) -> Vec<&String> {
        vec![&self.quantity]
    }

    fn reads(&self) -> Reads<'_> {
        Reads::curves(vec![(&self.quantity, &self.rows)])
    }

    fn verdict(&self, ctx: &Context<'_>) -> Verdict {
        shapes_differ(ctx.out, self)
    }
}

/// The largest across-curve standard deviation of the centred curves (each minus its
/// own mean) over the grid exceeds the bound. Measured: that spread.
fn shapes_differ(out: &RunOutput, claim: &ShapesDiffer) -> Verdict {
    let curves = curves(out, &claim.quantity, &claim.rows, None);
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
    let (bound, of) = match claim.relative {
        false => (claim.bound, String::new()),
        true => {
            let pd: Vec<f64> = (0..curves[0].ys.len())
                .map(|g| curves.iter().map(|c| c.ys[g]).sum::<f64>() / n)
                .collect();
            let range = pd[argmax(&pd)] - pd[argmin(&pd)];
            let of = format!(
                " = {} x the curves' mean's range {}",
                claim.bound,
                short(range)
            );
            (claim.bound * range, of)
        }
    };
    Verdict::new(
        spread > bound,
        spread,
        format!(
            "largest spread of centred curves {} vs bound {}{of} ({} curves)",
            short(spread),
            short(bound),
            curves.len()
        ),
    )
}

/// Two PD curves agree point by point (matched grid index): max |a − b| ≤ tolerance ·
/// (max a − min a). Measured: the largest max |a − b| / range.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SimilarCurves {
    /// The PD quantity.
    pub quantity: String,
    /// The first curve.
    pub this: Selector,
    /// The second curve.
    pub that: Selector,
    /// Relative tolerance.
    pub tolerance: f64,
}

impl AssertionKind for SimilarCurves {
    fn thresholds(&self) -> Vec<Threshold> {
        vec![Threshold::always("tolerance", self.tolerance)]
    }

    fn quantities(&self) -> Vec<&String> {
        vec![&self.quantity]
    }

    fn reads(&self) -> Reads<'_> {
        Reads::curves(vec![
            (&self.quantity, &self.this),
            (&self.quantity, &self.that),
        ])
    }

    fn verdict(&self, ctx: &Context<'_>) -> Verdict {
        similar_curves(
            ctx.out,
            &self.quantity,
            &self.this,
            &self.that,
            self.tolerance,
        )
    }
}

/// Two sets of PD curves agree point by point: max |a − b| ≤ tolerance·(max a − min a)
/// for each pair. Measured: the largest max |a − b| / range.
fn similar_curves(
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

/// Every selected ICE curve stays below the peak of the PD of its feature and model:
/// its maximum, or with `at_own_value` its value at the row's own x (the row's
/// unperturbed prediction); with `within`, both maxima are taken over that interval.
/// Measured: the share of curves that do.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BelowPdPeak {
    /// The ICE quantity.
    pub quantity: String,
    /// The PD quantity.
    pub pd: String,
    /// The curves.
    #[serde(rename = "where")]
    pub rows: Selector,
    /// Which rows' curves.
    #[serde(default)]
    pub rows_with: Option<RowFilter>,
    /// Compare the value at the row's own x instead of the curve's maximum.
    #[serde(default)]
    pub at_own_value: bool,
    /// Compare both maxima over this interval only.
    #[serde(default)]
    pub within: Option<(f64, f64)>,
}

impl AssertionKind for BelowPdPeak {
    fn thresholds(&self) -> Vec<Threshold> {
        self.within
            .into_iter()
            .flat_map(|(lower, upper)| [("lower", lower), ("upper", upper)])
            .map(|(s, v)| Threshold::always(s, v))
            .collect()
    }

    fn quantities(&self) -> Vec<&String> {
        vec![&self.quantity, &self.pd]
    }

    fn reads(&self) -> Reads<'_> {
        Reads::curves(vec![(&self.quantity, &self.rows)])
    }

    fn verdict(&self, ctx: &Context<'_>) -> Verdict {
        below_pd_peak(
            ctx.out,
            &self.quantity,
            &self.pd,
            &self.rows,
            self.rows_with.as_ref(),
            self.at_own_value,
            self.within,
        )
    }
}

/// Every selected ICE curve stays below the peak of the PD of its feature and model
/// (same grid keys): its maximum, or with `at_own_value` its value at the row's own x;
/// with `within`, the curve's maximum and the PD's peak are taken over that interval
/// (the row's own value is compared wherever it lies).
fn below_pd_peak(
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
