//! Checks of a run: the paper's claims ([`crate::spec::CheckSpec`]), evaluated by
//! family ([`scalar`] estimates, [`ranking`], [`curve`] shapes, on rows chosen by
//! [`crate::select`]), and the [`regression`] check against the committed baseline.
//!
//! Every assertion yields a [`Verdict`]: whether it holds, one measured number (the
//! quantity it is decided on, documented per kind) and the numbers behind it. The
//! measured number goes to `checks.csv`, so the regression check guards it too.

pub mod curve;
pub mod ranking;
pub mod regression;
pub mod scalar;

#[cfg(test)]
mod tests;

use std::path::Path;

use crate::error::Result;
use crate::plan::Experiment;
use crate::run::RunOutput;
use crate::spec::{Assertion, CheckSpec, ClaimKind, CurveInterval, Selector, TableSpec};
use crate::table::{CsvTable, CurveRow, TidyRow, format_number, write_table};

/// Verdict of one check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The claim holds.
    Pass,
    /// The claim fails.
    Fail,
    /// The claim fails and the experiment says why it is expected to.
    KnownDeviation,
    /// The claim is marked `expected_to_differ` but holds: the marker is stale and
    /// must be removed (this fails `check`).
    StaleMarker,
}

impl Status {
    /// "pass", "FAIL", "known deviation" or "STALE MARKER".
    pub fn label(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "FAIL",
            Status::KnownDeviation => "known deviation",
            Status::StaleMarker => "STALE MARKER",
        }
    }

    /// Whether this status fails `check`.
    pub fn fails(self) -> bool {
        matches!(self, Status::Fail | Status::StaleMarker)
    }
}

/// What an assertion found.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// Whether the claim holds.
    pub holds: bool,
    /// The number the verdict is decided on (NaN when nothing was selected).
    pub measured: f64,
    /// The numbers behind it, for people.
    pub detail: String,
}

impl Verdict {
    /// A verdict.
    pub fn new(holds: bool, measured: f64, detail: String) -> Self {
        Self {
            holds,
            measured,
            detail,
        }
    }

    /// The claim cannot hold: nothing it talks about was found.
    pub fn no_rows(detail: &str) -> Self {
        Self::new(false, f64::NAN, detail.to_string())
    }
}

/// The result of one check.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// What was checked.
    pub name: String,
    /// Whose claim it is (`None` for the regression checks, which are no claim).
    pub kind: Option<ClaimKind>,
    /// The verdict.
    pub status: Status,
    /// The measured number of the assertion (NaN for the regression checks).
    pub measured: f64,
    /// The numbers behind it.
    pub detail: String,
}

/// The minimum, NaN if either is NaN (a NaN makes a claim fail, never pass).
pub fn nan_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.min(b)
    }
}

/// The maximum, NaN if either is NaN.
pub fn nan_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

/// Evaluates one assertion on a run; `tables` are the experiment's tables (the cells
/// [`Assertion::PaperCells`] compares).
pub fn verdict(a: &Assertion, out: &RunOutput, tables: &[TableSpec], level: f64) -> Verdict {
    use Assertion as A;
    match a {
        A::Greater {
            quantity,
            this,
            than,
            than_quantity,
            at_least,
            widths,
            pooled,
        } => scalar::greater(
            out,
            (quantity, than_quantity.as_deref()),
            (this, than),
            scalar::Compare {
                at_least: *at_least,
                widths: *widths,
                pooled: *pooled,
            },
            level,
        ),
        A::Unchanged {
            quantity,
            rows,
            from,
            tolerance,
            plus_se,
        } => scalar::unchanged(out, quantity, (rows, from), *tolerance, *plus_se),
        A::Positive {
            quantity,
            rows,
            above,
            each_replicate: false,
        } => scalar::positive(out, quantity, rows, *above),
        A::Positive {
            quantity,
            rows,
            above,
            each_replicate: true,
        } => scalar::positive_in_each_replicate(out, quantity, rows, *above),
        A::Below {
            quantity,
            rows,
            bound,
        } => scalar::below(out, quantity, rows, *bound),
        A::ExcludesZero {
            quantity,
            rows,
            at_least,
            at_most,
        } => scalar::excludes_zero(out, quantity, rows, (*at_least, *at_most)),
        A::Near {
            quantity,
            rows,
            value,
            tolerance,
            plus_se,
            plus_sd,
        } => scalar::near(
            out,
            quantity,
            rows,
            *value,
            *tolerance,
            (*plus_se, *plus_sd),
        ),
        A::Negligible {
            quantity,
            rows,
            bound,
        } => scalar::negligible(out, quantity, rows, *bound),
        A::Spread {
            quantity,
            this,
            than,
            factor,
        } => scalar::spread(out, quantity, (this, than), *factor),
        A::Monotone {
            quantities,
            rows,
            along,
            direction,
            share,
        } => scalar::monotone(out, quantities, rows, (along, *direction, *share), level),
        A::RankedAbove {
            quantity,
            this,
            than,
            share,
        } => ranking::ranked_above(out, quantity, this, than, *share),
        A::InTop { quantity, rows, k } => ranking::in_top(out, quantity, rows, *k),
        A::RankAgreement {
            quantity,
            than_quantity,
            reference,
        } => ranking::rank_agreement(out, quantity, than_quantity, reference),
        A::RankMoves {
            quantity,
            from_quantity,
            rows,
            direction,
        } => ranking::rank_moves(out, quantity, from_quantity, rows, *direction),
        A::PaperCells {
            table,
            columns,
            decimals,
            significant,
        } => match tables.iter().find(|t| &t.name == table) {
            Some(t) => scalar::paper_cells(out, t, columns, (*decimals, *significant)),
            None => Verdict::no_rows(&format!("no table `{table}`")),
        },
        A::Not(inner) => {
            let v = verdict(inner, out, tables, level);
            Verdict::new(
                !v.holds && !v.measured.is_nan(),
                v.measured,
                format!(
                    "the negated assertion {}: {}",
                    if v.holds { "holds" } else { "fails" },
                    v.detail
                ),
            )
        }
        A::InteriorPeak(ci) => curve::interior_peak(out, ci),
        A::RisesTowardsEdges(ci) => curve::rises_towards_edges(out, ci),
        A::ArgmaxWithin(ci) => curve::argmax_within(out, ci),
        A::Trend {
            quantity,
            rows,
            rows_with,
            from,
            to,
            direction,
            share,
            by,
        } => curve::trend(
            out,
            (quantity, rows, rows_with.as_ref()),
            (*from, *to),
            *direction,
            (*share, *by),
        ),
        A::Varies {
            quantity,
            rows,
            bound,
        } => curve::varies(out, quantity, rows, *bound),
        A::ShapesDiffer {
            quantity,
            rows,
            bound,
        } => curve::shapes_differ(out, quantity, rows, *bound),
        A::SimilarCurves {
            quantity,
            this,
            that,
            tolerance,
        } => curve::similar_curves(out, quantity, this, that, *tolerance),
        A::BelowPdPeak {
            quantity,
            pd,
            rows,
            rows_with,
            at_own_value,
            within,
        } => curve::below_pd_peak(
            out,
            quantity,
            pd,
            rows,
            rows_with.as_ref(),
            *at_own_value,
            *within,
        ),
    }
}

/// Evaluates one paper check: its assertion's verdict, read against its
/// `expected_to_differ` marker.
pub fn evaluate(check: &CheckSpec, out: &RunOutput, tables: &[TableSpec], level: f64) -> Outcome {
    let v = verdict(&check.assert, out, tables, level);
    let marker = check
        .expected_to_differ
        .as_ref()
        .and_then(|d| d.at(out.scale.name()));
    let status = match (v.holds, marker) {
        (true, None) => Status::Pass,
        (true, Some(_)) => Status::StaleMarker,
        (false, None) => Status::Fail,
        (false, Some(_)) => Status::KnownDeviation,
    };
    let detail = match (marker, status) {
        (Some(why), Status::KnownDeviation) => format!("{} (expected: {why})", v.detail),
        (Some(_), Status::StaleMarker) => format!(
            "{}; the claim now holds although it is marked expected_to_differ: remove the \
             marker (and its explanation) from the experiment",
            v.detail
        ),
        _ => v.detail,
    };
    Outcome {
        name: check.claim.clone(),
        kind: Some(check.kind),
        status,
        measured: v.measured,
        detail,
    }
}

/// The selector of every row.
static EVERY_ROW: Selector = Selector::new();

/// The (quantity, selector) pairs whose per-replicate rows an assertion reads: the
/// paired comparisons (`greater`), the share of intervals excluding zero
/// (`excludes_zero`) and the per-replicate ranking (`ranked_above`), through `not`;
/// every other assertion reads the summary or the kept curves.
fn per_replicate_selections(a: &Assertion) -> Vec<(&String, &Selector)> {
    match a {
        Assertion::Greater {
            quantity,
            this,
            than,
            than_quantity,
            ..
        } => vec![
            (quantity, this),
            (than_quantity.as_ref().unwrap_or(quantity), than),
        ],
        // Every row of the quantity: a NaN anywhere in it voids the ranking.
        Assertion::RankedAbove { quantity, .. } => vec![(quantity, &EVERY_ROW)],
        Assertion::ExcludesZero { quantity, rows, .. }
        | Assertion::Positive {
            quantity,
            rows,
            each_replicate: true,
            ..
        } => vec![(quantity, rows)],
        Assertion::Not(inner) => per_replicate_selections(inner),
        _ => Vec::new(),
    }
}

/// The (quantity, selector) pairs whose curves a curve assertion reads (kept ICE
/// curves where the quantity is an `*_ice`), through `not`.
fn curve_selections(a: &Assertion) -> Vec<(&String, &Selector)> {
    match a {
        Assertion::Trend { quantity, rows, .. }
        | Assertion::Varies { quantity, rows, .. }
        | Assertion::ShapesDiffer { quantity, rows, .. }
        | Assertion::BelowPdPeak { quantity, rows, .. }
        | Assertion::InteriorPeak(CurveInterval { quantity, rows, .. })
        | Assertion::ArgmaxWithin(CurveInterval { quantity, rows, .. })
        | Assertion::RisesTowardsEdges(CurveInterval { quantity, rows, .. }) => {
            vec![(quantity, rows)]
        }
        Assertion::SimilarCurves {
            quantity,
            this,
            that,
            ..
        } => vec![(quantity, this), (quantity, that)],
        Assertion::Monotone {
            quantities, rows, ..
        } => quantities.iter().map(|q| (q, rows)).collect(),
        Assertion::Not(inner) => curve_selections(inner),
        _ => Vec::new(),
    }
}

/// The kept ICE curves the checks of `exp` read ([`curve_selections`]): what a
/// paper-scale baseline keeps of an `ice.csv` too large to commit whole.
pub struct NeededCurves {
    selections: Vec<(String, Selector)>,
}

impl NeededCurves {
    /// What the checks of `exp` read.
    pub fn of(exp: &Experiment) -> NeededCurves {
        NeededCurves {
            selections: exp
                .spec
                .checks
                .iter()
                .flat_map(|c| curve_selections(&c.assert))
                .map(|(q, sel)| (q.clone(), sel.clone()))
                .collect(),
        }
    }

    /// Whether the curve (of a run with grid keys `keys`) is read.
    pub fn keeps(&self, keys: &[String], c: &CurveRow) -> bool {
        let cols = crate::select::curve_columns(keys, c);
        self.selections
            .iter()
            .any(|(q, sel)| *q == c.quantity && crate::select::selected(&cols, sel))
    }
}

/// The per-replicate rows the experiments `exps` (sharing one run) read: the rows
/// their checks select ([`per_replicate_selections`]) and every row of a replicate
/// a figure draws alone (`replicate: k`). What a run that writes no `tidy.csv`
/// keeps ([`crate::run::KeepRow`]), so the checks decide on what they would decide
/// on with every row, while the run holds a few rows per cell instead of all.
pub struct NeededRows {
    selections: Vec<(String, Selector)>,
    replicates: Vec<usize>,
}

impl NeededRows {
    /// What the checks and figures of `exps` read.
    pub fn of<'e>(exps: impl IntoIterator<Item = &'e Experiment>) -> NeededRows {
        let mut needed = NeededRows {
            selections: Vec::new(),
            replicates: Vec::new(),
        };
        for exp in exps {
            for c in &exp.spec.checks {
                for (q, sel) in per_replicate_selections(&c.assert) {
                    needed.selections.push((q.clone(), sel.clone()));
                }
            }
            needed
                .replicates
                .extend(exp.spec.plots.iter().filter_map(|p| p.replicate()));
        }
        needed
    }

    /// Whether the row of grid keys `keys` is read.
    pub fn keeps(&self, keys: &[String], row: &TidyRow) -> bool {
        if self.replicates.contains(&row.replicate) {
            return true;
        }
        let mut wanted = self
            .selections
            .iter()
            .filter(|(q, _)| *q == row.quantity)
            .peekable();
        if wanted.peek().is_none() {
            return false;
        }
        let row = crate::select::tidy_row(keys, row);
        wanted.any(|(_, sel)| row.matches(sel))
    }
}

/// Every paper check of `exp` on a run.
pub fn paper_checks(exp: &Experiment, out: &RunOutput) -> Vec<Outcome> {
    exp.spec
        .checks
        .iter()
        .map(|c| evaluate(c, out, &exp.spec.tables, exp.spec.level))
        .collect()
}

/// How many checks passed, are known deviations, and failed (stale markers count as
/// failed).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Passed.
    pub passed: usize,
    /// Known deviations.
    pub known: usize,
    /// Failed, including stale markers.
    pub failed: usize,
}

impl Tally {
    /// Counts the outcomes.
    pub fn of(outcomes: &[Outcome]) -> Self {
        outcomes.iter().fold(Self::default(), |mut t, o| {
            match o.status {
                Status::Pass => t.passed += 1,
                Status::KnownDeviation => t.known += 1,
                Status::Fail | Status::StaleMarker => t.failed += 1,
            }
            t
        })
    }
}

impl std::ops::AddAssign for Tally {
    fn add_assign(&mut self, other: Tally) {
        self.passed += other.passed;
        self.known += other.known;
        self.failed += other.failed;
    }
}

impl std::fmt::Display for Tally {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} passed / {} known deviations / {} failed",
            self.passed, self.known, self.failed
        )
    }
}

/// The paper checks as `checks.csv` holds them: check, kind (paper or derived),
/// status, measured, detail.
pub fn outcomes_table(outcomes: &[Outcome]) -> CsvTable {
    CsvTable {
        header: ["check", "kind", "status", "measured", "detail"]
            .map(String::from)
            .to_vec(),
        rows: outcomes
            .iter()
            .map(|o| {
                let measured = if o.measured.is_finite() {
                    format_number(o.measured)
                } else {
                    String::new()
                };
                vec![
                    o.name.clone(),
                    o.kind.map_or("", ClaimKind::label).to_string(),
                    o.status.label().to_string(),
                    measured,
                    o.detail.clone(),
                ]
            })
            .collect(),
    }
}

/// Writes `checks.csv` ([`outcomes_table`]).
pub fn write_outcomes(path: &Path, outcomes: &[Outcome]) -> Result<()> {
    write_table(path, &outcomes_table(outcomes))
}
