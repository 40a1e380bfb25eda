//! Where a check's allowances come from. A claim compares our number with a paper's
//! (or a derived population value) and accepts a gap of at most
//!
//! `tolerance + k·√(se² + se_paper²)`,
//!
//! the Monte-Carlo part `k·√(se² + se_paper²)` combining our standard error over
//! replicates with the paper's own ([`PaperError`]), and `tolerance` an absolute
//! margin. That margin and every other setting that decides a verdict beyond
//! Monte-Carlo error (a bound, a share, the ends of an interval: the kind's
//! [`Threshold`]s) must state its source ([`ToleranceFrom`]): half a unit of the
//! paper's last printed digit, the paper's own words, or a derivation written beside
//! it. A threshold with no source is refused when the experiment loads
//! ([`check_source`]), so none can be picked after seeing the number.

use serde::Deserialize;

use xai_results::Invalid;

/// A setting of an assertion that decides its verdict beyond Monte-Carlo error, by
/// its YAML name and value (`near`'s `tolerance`, `negligible`'s `bound`, a `share`
/// below 1, an interval's `lower` and `upper`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Threshold {
    /// The setting's name in YAML.
    pub setting: &'static str,
    /// Its value.
    pub value: f64,
}

impl Threshold {
    /// The setting, when its value differs from `default` (the value that decides
    /// nothing: a tolerance or bound of 0, a share of 1): none or one threshold.
    pub fn unless(setting: &'static str, value: f64, default: f64) -> Vec<Self> {
        match value != default {
            true => vec![Self { setting, value }],
            false => Vec::new(),
        }
    }

    /// The setting, whatever its value (a bound or interval every use sets).
    pub fn always(setting: &'static str, value: f64) -> Self {
        Self { setting, value }
    }
}

/// The source of a check's thresholds, written beside its assertion as
/// `tolerance_from: { printed: 2 }`, `{ paper: "…" }` or `{ derivation: "…" }`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum ToleranceFrom {
    /// The paper prints `d` decimals, so its number is known to ±½·10^−d: the
    /// tolerance must be exactly that.
    Printed(u32),
    /// The paper's own words that set the threshold, quoted (e.g. "in most splits"
    /// for a share of 0.5, "around age 55" for an interval).
    Paper(String),
    /// A derivation of the threshold, in words, with its numbers (e.g. a Monte-Carlo
    /// sd measured over independent samples, or the paper's own cells).
    Derivation(String),
}

impl ToleranceFrom {
    /// The source in words, as the check's detail and the report show it.
    pub fn describe(&self) -> String {
        match self {
            ToleranceFrom::Printed(d) => {
                format!("the paper's {d} printed decimals (±{})", half_unit(*d))
            }
            ToleranceFrom::Paper(words) => format!("the paper's words: {words}"),
            ToleranceFrom::Derivation(why) => format!("derived: {why}"),
        }
    }
}

/// Half a unit of the `d`-th decimal, ½·10^−d.
pub fn half_unit(d: u32) -> f64 {
    0.5 / 10f64.powi(d as i32)
}

/// Checks that a check's `thresholds` state their source: any threshold needs one;
/// a printed precision justifies an absolute `tolerance` of exactly half a unit of the
/// last printed decimal (to 1e-12) and nothing else; the paper's words and a
/// derivation must say something; a source with nothing to justify is refused
/// (remove it).
pub fn check_source(thresholds: &[Threshold], from: Option<&ToleranceFrom>) -> Result<(), Invalid> {
    let field = "tolerance_from";
    let named: Vec<String> = thresholds
        .iter()
        .map(|t| format!("{} {}", t.setting, t.value))
        .collect();
    if let Some(t) = thresholds.iter().find(|t| !t.value.is_finite()) {
        return Err(Invalid::new(
            t.setting,
            format!("{} is a finite number, not {}", t.setting, t.value),
        ));
    }
    match (thresholds.first(), from) {
        (None, None) => Ok(()),
        (Some(first), None) => Err(Invalid::new(
            first.setting,
            format!(
                "the {} state{} no source: add `tolerance_from: {{ printed: d }}` when a \
                 tolerance is half a unit of the paper's last printed digit, `{{ paper: \"…\" }}` \
                 quoting the paper's words that set it, or `{{ derivation: \"…\" }}` with its \
                 derivation; a Monte-Carlo allowance is `plus_se` (and `paper_error`), which \
                 needs none",
                named.join(" and "),
                if named.len() == 1 { "s" } else { "" }
            ),
        )),
        (Some(_), Some(ToleranceFrom::Printed(d))) => {
            let half = half_unit(*d);
            let fits = |t: &Threshold| {
                t.setting == "tolerance" && (t.value - half).abs() <= 1e-12 * half.max(1.0)
            };
            match thresholds.iter().all(fits) {
                true => Ok(()),
                false => Err(Invalid::new(
                    field,
                    format!(
                        "the {} is not half a unit of {d} printed decimals (a tolerance of \
                         {half}): write `tolerance: {half}`, or quote the paper's words or \
                         give the derivation",
                        named.join(" and ")
                    ),
                )),
            }
        }
        (Some(_), Some(ToleranceFrom::Paper(text) | ToleranceFrom::Derivation(text))) => {
            match text.trim().is_empty() {
                true => Err(Invalid::new(field, "the source is empty: write it out")),
                false => Ok(()),
            }
        }
        (None, Some(_)) => Err(Invalid::new(
            field,
            "the assertion has no threshold for this source to justify: remove \
             `tolerance_from`",
        )),
    }
}

/// The Monte-Carlo error of the paper's own number, joined to ours in quadrature:
/// `paper_error: { runs: N }` or `paper_error: one_fit` (default: none).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, Deserialize, schemars::JsonSchema,
)]
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
