//! Checks of a run: the paper's claims ([`CheckSpec`]), each an
//! [`Assertion`] of one kind, and the [`regression`] check against the committed
//! baseline.
//!
//! Every assertion kind is a settings struct in the file of its family ([`bounds`]:
//! estimates against a bound; [`paired`]: rows against rows; [`monotone`] trends;
//! [`ranking`]; [`curve`] shapes; [`paper_cells`]; [`not`] and [`across`], which wrap
//! another) implementing
//! [`AssertionKind`], and one line of the [`Assertion`] registry. It reads rows chosen
//! by [`xai_results::select`] and yields a [`Verdict`]: whether it holds, one measured number
//! (the quantity it is decided on, documented per kind) and the numbers behind it. The
//! measured number goes to `checks.csv`, so the regression check guards it too.

#![warn(missing_docs)]

pub mod across;
pub mod bounds;
pub mod curve;
pub mod monotone;
pub mod not;
pub mod paired;
pub mod paper_cells;
pub mod quote;
pub mod ranking;
pub mod regression;
pub mod tolerance;

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use xai_error::Result;
use xai_results::Invalid;
use xai_results::layout::{PaperValue, TableSpec};
use xai_results::output::RunOutput;
use xai_results::select::Selector;
use xai_results::table::{CsvTable, format_number, write_table};

xai_core::registry! {
    /// The assertions a check can make on summary rows, as written under `assert:`
    /// (in the order the YAML error lists them).
    /// Rows are compared within each combination of the columns the assertion does not
    /// select on (each variant and model separately).
    #[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
    pub enum Assertion: fn kind -> dyn AssertionKind {
        /// Every `this` row exceeds every `than` row beyond Monte-Carlo error
        /// ([`paired::Greater`]).
        "greater" => Greater(paired::Greater),
        /// Every `this` row lies closer to a target than its `than` row beyond
        /// Monte-Carlo error ([`paired::Closer`]).
        "closer" => Closer(paired::Closer),
        /// The share of replicates whose own interval excludes 0
        /// ([`bounds::ExcludesZero`]).
        "excludes_zero" => ExcludesZero(bounds::ExcludesZero),
        /// Every selected row's interval lies above a bound ([`bounds::Positive`]).
        "positive" => Positive(bounds::Positive),
        /// Every selected row's interval lies below a bound ([`bounds::Below`]).
        "below" => Below(bounds::Below),
        /// Every selected row's estimate lies near a paper's value ([`bounds::Near`]).
        "near" => Near(bounds::Near),
        /// Every selected row's estimate stays within a tolerance of its `from` row's
        /// ([`paired::Unchanged`]).
        "unchanged" => Unchanged(paired::Unchanged),
        /// Some features rank above others in a share of the replicates
        /// ([`ranking::RankedAbove`]).
        "ranked_above" => RankedAbove(ranking::RankedAbove),
        /// A table's cells equal the paper's printed digits
        /// ([`paper_cells::PaperCells`]).
        "paper_cells" => PaperCells(paper_cells::PaperCells),
        /// Every selected row is among the k largest ([`ranking::InTop`]).
        "in_top" => InTop(ranking::InTop),
        /// One quantity's ranking agrees better with a reference than another's
        /// ([`ranking::RankAgreement`]).
        "rank_agreement" => RankAgreement(ranking::RankAgreement),
        /// A feature's place moves between two quantities' rankings
        /// ([`ranking::RankMoves`]).
        "rank_moves" => RankMoves(ranking::RankMoves),
        /// The inner assertion does not hold ([`not::Not`]).
        "not" => Not(not::Not),
        /// The inner assertion holds on a share of a grid key's independent samples
        /// ([`across::Across`]).
        "across" => Across(across::Across),
        /// The spread over replicates of some rows is at most a factor of others'
        /// ([`paired::Spread`]).
        "spread" => Spread(paired::Spread),
        /// Every selected row's interval lies inside ±bound, an equivalence rule
        /// ([`bounds::Negligible`]).
        "negligible" => Negligible(bounds::Negligible),
        /// A trend along a grid key beyond Monte-Carlo error ([`monotone::Monotone`]).
        "monotone" => Monotone(monotone::Monotone),
        /// Every selected curve has a bump inside an interval ([`curve::InteriorPeak`]).
        "interior_peak" => InteriorPeak(curve::InteriorPeak),
        /// Every selected curve rises towards both grid ends
        /// ([`curve::RisesTowardsEdges`]).
        "rises_towards_edges" => RisesTowardsEdges(curve::RisesTowardsEdges),
        /// Every selected curve peaks inside an interval ([`curve::ArgmaxWithin`]).
        "argmax_within" => ArgmaxWithin(curve::ArgmaxWithin),
        /// A share of the selected curves move one way between two points
        /// ([`curve::Trend`]).
        "trend" => Trend(curve::Trend),
        /// Every selected curve varies ([`curve::Varies`]).
        "varies" => Varies(curve::Varies),
        /// ICE curves differ in shape, not only level ([`curve::ShapesDiffer`]).
        "shapes_differ" => ShapesDiffer(curve::ShapesDiffer),
        /// Two PD curves agree point by point ([`curve::SimilarCurves`]).
        "similar_curves" => SimilarCurves(curve::SimilarCurves),
        /// ICE curves stay below the PD's peak ([`curve::BelowPdPeak`]).
        "below_pd_peak" => BelowPdPeak(curve::BelowPdPeak),
    }
}

/// A claim of the paper and how it is checked.
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckSpec {
    /// The paper's claim in words.
    pub claim: String,
    /// Whose claim it is: the paper's own words (default), or derived from the
    /// paper's numbers or reasoning (PAPERS.md's "\[derived\]").
    #[serde(default)]
    pub kind: ClaimKind,
    /// The assertion that tests it.
    pub assert: Assertion,
    /// The source of the assertion's thresholds ([`tolerance::ToleranceFrom`]),
    /// required when it has any ([`tolerance::check_source`]).
    #[serde(default)]
    pub tolerance_from: Option<tolerance::ToleranceFrom>,
    /// Why this claim is known not to reproduce, with the measured numbers (the run's
    /// own as `{{quantity: key=value, ...}}` quotes, [`quote`]): a failure
    /// is then reported as a known deviation, not fatal, and a pass fails as a stale
    /// marker (remove the marker once its cause is fixed). One reason for every scale,
    /// or reasons per scale ([`Deviation::PerScale`]).
    #[serde(default)]
    pub expected_to_differ: Option<Deviation>,
}

impl CheckSpec {
    /// Checks its assertion's settings against the experiment's tables, and that its
    /// thresholds state their source.
    pub fn validate(&self, tables: &[TableSpec]) -> std::result::Result<(), Invalid> {
        let kind = self.assert.kind();
        kind.validate(tables)?;
        tolerance::check_source(&kind.thresholds(), self.tolerance_from.as_ref())
    }
}

/// The paper's numbers the checks give ([`AssertionKind::paper_value`]), which
/// tables show beside ours.
pub fn paper_values(checks: &[CheckSpec]) -> Vec<PaperValue<'_>> {
    checks
        .iter()
        .filter_map(|c| c.assert.kind().paper_value())
        .collect()
}

/// Whose claim a check tests, as the report and `checks.csv` show it. A statement
/// that holds by construction of the method (an identity) is neither: it belongs in
/// a unit test.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ClaimKind {
    /// A claim the paper makes in its text, figure or table.
    #[default]
    Paper,
    /// A claim derived from the paper (its numbers, its reasoning, or what its figure
    /// shows without saying), tagged \[derived\] in PAPERS.md.
    Derived,
}

impl ClaimKind {
    /// "paper" or "derived", as `checks.csv` writes it.
    pub fn label(self) -> &'static str {
        match self {
            ClaimKind::Paper => "paper",
            ClaimKind::Derived => "derived",
        }
    }
}

/// An `expected_to_differ` marker: `"reason"` at every scale, or
/// `{ paper: "reason", ... }` at the scales it names only (a claim can fail at ci
/// scale for lack of replicates and hold at the paper's, or the reverse, where the
/// paper's Monte-Carlo error is small enough to show a real difference).
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum Deviation {
    /// The same reason at every scale.
    Everywhere(String),
    /// A reason per scale name (`smoke`, `ci`, `paper`); elsewhere the claim must hold.
    PerScale(BTreeMap<String, String>),
}

impl Deviation {
    /// The reason at the scale named `scale`, if the claim is expected to differ there.
    pub fn at(&self, scale: &str) -> Option<&str> {
        match self {
            Deviation::Everywhere(why) => Some(why),
            Deviation::PerScale(by) => by.get(scale).map(String::as_str),
        }
    }
}

/// Direction of a monotone trend.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Each value below the previous one.
    Decreasing,
    /// Each value above the previous one.
    Increasing,
}

/// A share of 1 (every group or curve), the default of assertions' `share`.
pub(crate) fn default_share() -> f64 {
    1.0
}

/// What an assertion reads besides its own settings.
pub struct Context<'a> {
    /// The run.
    pub out: &'a RunOutput,
    /// The experiment's tables (the cells [`paper_cells::PaperCells`] compares).
    pub tables: &'a [TableSpec],
    /// The confidence level of intervals.
    pub level: f64,
}

/// The rows of a run an assertion reads beyond the summary: what a run that keeps no
/// `tidy.csv` (or a paper-scale baseline that trims `ice.csv`) must still keep for it.
#[derive(Debug, Default)]
pub struct Reads<'a> {
    /// (quantity, selector) pairs whose per-replicate rows it reads.
    pub per_replicate: Vec<(&'a String, &'a Selector)>,
    /// (quantity, selector) pairs whose curves (kept ICE curves) it reads.
    pub curves: Vec<(&'a String, &'a Selector)>,
}

impl<'a> Reads<'a> {
    /// The summary alone.
    pub fn summary() -> Self {
        Self::default()
    }

    /// The per-replicate rows of these (quantity, selector) pairs.
    pub fn per_replicate(pairs: Vec<(&'a String, &'a Selector)>) -> Self {
        Self {
            per_replicate: pairs,
            curves: Vec::new(),
        }
    }

    /// The curves of these (quantity, selector) pairs.
    pub fn curves(pairs: Vec<(&'a String, &'a Selector)>) -> Self {
        Self {
            per_replicate: Vec::new(),
            curves: pairs,
        }
    }
}

/// A kind of assertion: what it reads of a run and how it decides.
pub trait AssertionKind: Send + Sync {
    /// The quantities it reads, checked at load against those the methods report
    /// (curve quantities against the kept curves).
    fn quantities(&self) -> Vec<&String>;

    /// The rows it reads beyond the summary. Every kind states it (no default): a
    /// kind that reads per-replicate rows it does not declare would decide on
    /// nothing in a run that keeps only the rows its checks read.
    fn reads(&self) -> Reads<'_>;

    /// The paper's number it compares with, for the cells a table shows beside ours
    /// (a `near` check's value); `None` for a kind that gives none.
    fn paper_value(&self) -> Option<PaperValue<'_>> {
        None
    }

    /// Its settings that decide the verdict beyond Monte-Carlo error (a margin, a
    /// bound, a share, an interval), which the check must give a source for
    /// ([`tolerance::check_source`]). Every kind states them (no default), so a new
    /// setting cannot slip past the rule.
    fn thresholds(&self) -> Vec<tolerance::Threshold>;

    /// Checks its settings against the experiment's tables, at load.
    fn validate(&self, _tables: &[TableSpec]) -> std::result::Result<(), Invalid> {
        Ok(())
    }

    /// Evaluates it on a run.
    fn verdict(&self, ctx: &Context<'_>) -> Verdict;
}

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

/// The count `share` of `n` asks for: ⌈share·n⌉, with a 1e-9 allowance so that a
/// share written in decimals (0.56 of 25 = 14) does not round up by float error.
pub fn at_least(share: f64, n: usize) -> usize {
    (share * n as f64 - 1e-9).ceil().max(0.0) as usize
}

/// Evaluates one assertion on a run; `tables` are the experiment's tables.
pub fn verdict(a: &Assertion, out: &RunOutput, tables: &[TableSpec], level: f64) -> Verdict {
    a.kind().verdict(&Context { out, tables, level })
}

/// Evaluates one paper check: its assertion's verdict, read against its
/// `expected_to_differ` marker.
pub fn evaluate(check: &CheckSpec, out: &RunOutput, tables: &[TableSpec], level: f64) -> Outcome {
    let v = verdict(&check.assert, out, tables, level);
    // The marker with the run's numbers in place of its quotes ([`quote`]); a quote
    // the run cannot fill fails the check.
    let marker = check
        .expected_to_differ
        .as_ref()
        .and_then(|d| d.at(out.scale.name()))
        .map(|why| quote::render(why, out));
    if let Some(Err(why)) = marker {
        return Outcome {
            name: check.claim.clone(),
            kind: Some(check.kind),
            status: Status::Fail,
            measured: v.measured,
            detail: format!(
                "{}; the expected_to_differ marker cannot be read: {why}",
                v.detail
            ),
        };
    }
    let marker = marker.and_then(Result::ok);
    let status = match (v.holds, &marker) {
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
    let detail = match &check.tolerance_from {
        Some(from) => format!("{detail} (tolerance: {})", from.describe()),
        None => detail,
    };
    Outcome {
        name: check.claim.clone(),
        kind: Some(check.kind),
        status,
        measured: v.measured,
        detail,
    }
}

/// The experiment's notes read against the run: `None` when each `{{…}}` quote in
/// them picks one row of the run ([`quote::render`]), else a failing outcome that says
/// which quote cannot be read. A number a note quotes is then the run's at every
/// scale, and one whose row a re-run no longer has fails the check as a marker's does.
pub fn notes_outcome(notes: &str, out: &RunOutput) -> Option<Outcome> {
    let why = quote::render(notes, out).err()?;
    Some(Outcome {
        name: "the notes' quoted numbers".into(),
        kind: None,
        status: Status::Fail,
        measured: f64::NAN,
        detail: format!("a quote in the experiment's notes cannot be read: {why}"),
    })
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
