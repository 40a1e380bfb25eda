//! Where a check's allowances come from. A claim compares our number with a paper's
//! (or a derived population value) and accepts a gap of at most
//!
//! `tolerance + k·√(se² + se_paper²)`,
//!
//! the Monte-Carlo part `k·√(se² + se_paper²)` combining our standard error over
//! replicates with the paper's own ([`PaperError`]), and `tolerance` an absolute
//! margin that must state its source ([`ToleranceFrom`]): half a unit of the paper's
//! last printed digit, or a derivation written beside it. A margin with no source is
//! refused when the experiment loads ([`check_source`]), so no allowance can be picked
//! after seeing the number.

use serde::Deserialize;

use xai_results::Invalid;

/// The source of a check's absolute tolerance, written beside its assertion as
/// `tolerance_from: { printed: 2 }` or `tolerance_from: { derivation: "…" }`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum ToleranceFrom {
    /// The paper prints `d` decimals, so its number is known to ±½·10^−d: the
    /// tolerance must be exactly that.
    Printed(u32),
    /// A derivation of the margin, in words, with its numbers (e.g. why a
    /// difference of model fits is bounded by it).
    Derivation(String),
}

impl ToleranceFrom {
    /// The source in words, as the check's detail and the report show it.
    pub fn describe(&self) -> String {
        match self {
            ToleranceFrom::Printed(d) => {
                format!("the paper's {d} printed decimals (±{})", half_unit(*d))
            }
            ToleranceFrom::Derivation(why) => format!("derived: {why}"),
        }
    }
}

/// Half a unit of the `d`-th decimal, ½·10^−d.
pub fn half_unit(d: u32) -> f64 {
    0.5 / 10f64.powi(d as i32)
}

/// Checks that an absolute `tolerance` (the assertion's, `None` when its kind has
/// none) states its source: a positive tolerance needs one, a printed precision must
/// equal it to 1e-12, a derivation must say something, and a source with nothing to
/// justify is refused (remove it).
pub fn check_source(tolerance: Option<f64>, from: Option<&ToleranceFrom>) -> Result<(), Invalid> {
    let field = "tolerance_from";
    match (tolerance.filter(|t| *t != 0.0), from) {
        (None, None) => Ok(()),
        (Some(t), _) if !(t.is_finite() && t > 0.0) => Err(Invalid::new(
            "tolerance",
            format!("a tolerance is a finite number ≥ 0, not {t}"),
        )),
        (Some(t), None) => Err(Invalid::new(
            "tolerance",
            format!(
                "the tolerance {t} states no source: add `tolerance_from: {{ printed: d }}` \
                 when it is half a unit of the paper's last printed digit, or \
                 `tolerance_from: {{ derivation: \"…\" }}` with its derivation; a \
                 Monte-Carlo allowance is `plus_se` (and `paper_error`), not a tolerance"
            ),
        )),
        (Some(t), Some(ToleranceFrom::Printed(d))) => {
            let half = half_unit(*d);
            match (t - half).abs() <= 1e-12 * half.max(1.0) {
                true => Ok(()),
                false => Err(Invalid::new(
                    field,
                    format!(
                        "the tolerance {t} is not half a unit of {d} printed decimals ({half}): \
                         write `tolerance: {half}`, or give its derivation"
                    ),
                )),
            }
        }
        (Some(_), Some(ToleranceFrom::Derivation(why))) => match why.trim().is_empty() {
            true => Err(Invalid::new(field, "the derivation is empty: write it out")),
            false => Ok(()),
        },
        (None, Some(_)) => Err(Invalid::new(
            field,
            "the assertion has no tolerance for this source to justify: remove \
             `tolerance_from`",
        )),
    }
}

/// The Monte-Carlo error of the paper's own number, joined to ours in quadrature:
/// `paper_error: { runs: N }` or `paper_error: one_fit` (default: none).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum PaperError {
    /// The paper's number is exact (a population value, a closed form) or has no
    /// Monte-Carlo error it reports.
    #[default]
    None,
    /// The paper's number is a share (a coverage) over `N` independent runs of its
    /// own simulation: se_paper = √(v(1 − v)/N) at the paper's value v (molnar2023
    /// Table 1: 10,000 experiments per cell; for a share averaged over correlated
    /// features this is an upper bound).
    Runs(u64),
    /// The paper's number comes from one fit, so it differs from the mean over fits by
    /// that fit's own spread: se_paper = sd over our replicates = se·√R.
    OneFit,
}

impl PaperError {
    /// se_paper for the paper's value `value` and our row's `se` over `n` replicates.
    pub fn se(self, value: f64, se: f64, n: usize) -> f64 {
        match self {
            PaperError::None => 0.0,
            PaperError::Runs(runs) => (value * (1.0 - value) / runs as f64).max(0.0).sqrt(),
            PaperError::OneFit => se * (n as f64).sqrt(),
        }
    }

    /// Checks the setting against the paper's value: a share over runs needs a value
    /// in [0, 1] and at least one run.
    pub fn validate(self, value: f64) -> Result<(), Invalid> {
        match self {
            PaperError::Runs(0) => Err(Invalid::new("paper_error", "runs must be at least 1")),
            PaperError::Runs(_) if !(0.0..=1.0).contains(&value) => Err(Invalid::new(
                "paper_error",
                format!(
                    "runs gives the binomial se of a share, but the value {value} is not in \
                     [0, 1]; use one_fit or none"
                ),
            )),
            _ => Ok(()),
        }
    }

    /// The combined se in words: "se" alone, or "√(se² + se_paper²)" with what the
    /// paper's is.
    pub fn describe(self) -> String {
        match self {
            PaperError::None => "se".into(),
            PaperError::Runs(runs) => {
                format!("combined se (ours ⊕ the paper's binomial se over {runs} runs)")
            }
            PaperError::OneFit => "combined se (ours ⊕ the sd of the paper's one fit)".into(),
        }
    }
}
