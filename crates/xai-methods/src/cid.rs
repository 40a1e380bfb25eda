//! The CID correction (cid2021 Eq. 8; PAPERS.md §5.3): each PFI listed in `corrects`
//! is divided by 1 − Ĉ_i, the share of feature i's information about the target that
//! the other features cover, Ĉ_i = 1 − Î(X_i; Y | rest)/Î(X_i; Y). Reports the
//! corrected `<prefix>_cid` and the terms `mi`, `conditional_mi`, `covered`, `mi_null`
//! (the threshold Î(X_i; Y) must exceed for Ĉ_i to be non-zero: the
//! `null_test.quantile` quantile of Î on the target shuffled `null_test.shuffles`
//! times, a [proposal] of this project replacing a fixed 1e-3-nats floor that KSG's
//! own noise of about 0.01 nats cleared for pure-noise features) and
//! `conditional_mi_null` (the same quantile of Î(X_i; Y | rest) over the same
//! shuffles: the resolution below which the conditional term counts as that value,
//! replacing PAPERS.md's cap Ĉ ≤ 0.99; [`xai_core::cid::covered_fraction`]).

use rand::Rng;
use serde::Deserialize;
use xai_core::Dataset;
use xai_core::cid::{CidSettings, CoveredInformation, MiEstimator, NullTest};
use xai_core::rng::StreamRng;
use xai_models::glasso::{
    GlassoParams, cross_validated_alpha, empirical_covariance, graphical_lasso,
};

use crate::method::{Emitted, Input, Method, Plan};
use xai_results::quantity::{Aggregation, Quantity};
use xai_results::{Invalid, Value, point};

/// `cid:` settings: Λ̂ by the graphical lasso with penalty `alpha` on the standardised
/// training rows of [X | y], the binned conditional MI with `bins` bins per continuous
/// variable over the test rows, and Î(X_i; Y) by `mi` on the training rows.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CidSpec {
    /// The PFI quantities corrected (each `<prefix>_pfi`, reported by a method listed
    /// before); each gives `<prefix>_cid`.
    pub corrects: Vec<String>,
    /// Graphical-lasso penalty ρ (default 0.01, scikit-learn's).
    #[serde(default = "default_alpha")]
    #[schemars(range(min = 0))]
    pub alpha: f64,
    /// Bins per continuous variable (default 20).
    #[serde(default = "default_bins")]
    #[schemars(range(min = 2))]
    pub bins: usize,
    /// The estimator of I(X_i; Y) (default `ksg: {k: 3}`).
    #[serde(default = "default_mi")]
    pub mi: MiEstimator,
    /// Choose ρ per split by cross-validated Gaussian likelihood on the standardised
    /// training rows instead of using `alpha` (PAPERS.md §5.3 variant).
    #[serde(default)]
    pub alpha_cv: Option<AlphaCv>,
    /// The permutation test Î(X_i; Y) must pass for Ĉ_i > 0 (default 100 shuffles of
    /// the training target, quantile 0.95: a test of level 5%).
    /// (`null_test:` in YAML, where a bare `null` key would read as YAML's null.)
    #[serde(default = "default_null")]
    pub null_test: NullTest,
}

fn default_null() -> NullTest {
    NullTest {
        shuffles: 100,
        quantile: 0.95,
    }
}

/// Cross-validated choice of the graphical-lasso penalty
/// ([`xai_models::glasso::cross_validated_alpha`]).
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AlphaCv {
    /// The candidate penalties (each ≥ 0).
    #[schemars(length(min = 1), inner(range(min = 0)))]
    pub candidates: Vec<f64>,
    /// Contiguous folds (default 5).
    #[serde(default = "default_cv_folds")]
    #[schemars(range(min = 2))]
    pub folds: usize,
}

fn default_cv_folds() -> usize {
    5
}

fn default_alpha() -> f64 {
    0.01
}

fn default_bins() -> usize {
    20
}

fn default_mi() -> MiEstimator {
    MiEstimator::Ksg { k: 3 }
}

/// The per-feature terms reported besides the corrected PFIs.
pub const TERMS: [&str; 5] = [
    "mi",
    "conditional_mi",
    "covered",
    "mi_null",
    "conditional_mi_null",
];

/// A PFI quantity (`r2_pfi`), read as one; none for another quantity.
fn pfi(name: &str) -> Option<Quantity> {
    Quantity::parse(name).filter(|q| {
        q.aggregation == Some(Aggregation::Pfi) && q.inference.is_empty() && q.suffixes.is_empty()
    })
}

/// The corrected quantity of a PFI quantity: `r2_pfi` → `r2_cid`; another name
/// (which validation refuses) gets `_cid` appended.
fn corrected_name(pfi_name: &str) -> String {
    match pfi(pfi_name) {
        Some(q) => Quantity {
            aggregation: Some(Aggregation::Cid),
            ..q
        }
        .to_string(),
        None => format!("{pfi_name}_cid"),
    }
}

impl CidSpec {
    /// The CID terms of every feature: Λ̂ by the graphical lasso on the standardised
    /// training rows (ρ fixed or cross-validated), MI and the binned conditional MI
    /// over the test rows, and both their permutation nulls from the same shuffles of
    /// the target (shuffle s from stream (seed, s), shared by every feature, Λ̂
    /// refitted on each).
    fn terms(
        &self,
        train: &Dataset,
        test: &Dataset,
        seed: u64,
    ) -> xai_core::error::Result<Vec<CoveredInformation>> {
        let params = GlassoParams {
            alpha: self.alpha,
            ..Default::default()
        };
        let settings = CidSettings {
            bins: self.bins,
            mi: self.mi,
            null: Some(self.null_test),
        };
        xai_core::cid::covered_information(train, test, settings, seed, &|z| {
            let alpha = match &self.alpha_cv {
                Some(cv) => cross_validated_alpha(z, &cv.candidates, cv.folds, &params)?.0,
                None => params.alpha,
            };
            let s = empirical_covariance(z);
            Ok(graphical_lasso(s.view(), &GlassoParams { alpha, ..params })?.precision)
        })
    }
}

impl Method for CidSpec {
    fn compares_with_labels(&self) -> bool {
        false
    }

    /// The null test's terms of every shuffle, kept until their quantiles are taken
    /// (shuffles × (p pairs of 8-byte numbers and a 24-byte list)), and the binned
    /// conditional MI's table of bins × bins numbers of 8 bytes; named by the larger.
    fn held_bytes(&self, _n_test: usize, p: usize) -> (u128, &'static str) {
        let null = self.null_test.shuffles as u128 * (16 * p as u128 + 24);
        let table = (self.bins as u128).saturating_mul(self.bins as u128) * 8;
        match null >= table {
            true => (null + table, "shuffles"),
            false => (null + table, "bins"),
        }
    }

    fn quantities(&self) -> Vec<String> {
        let mut q: Vec<String> = self.corrects.iter().map(|p| corrected_name(p)).collect();
        q.extend(TERMS.map(String::from));
        q
    }

    /// The information terms Î(X_j; Y), its null quantile, Î(X_j; Y | X_−j) and Ĉ_j
    /// are estimated from the data; only the corrected drops use the learner.
    fn model_free(&self) -> Vec<String> {
        TERMS.map(String::from).to_vec()
    }

    fn needs_fit(&self) -> bool {
        false
    }

    fn validate(&self, plan: &Plan<'_>) -> Result<(), Invalid> {
        if self.corrects.is_empty() {
            return Err(Invalid::new(
                "corrects",
                "cid needs the PFI quantities it corrects, e.g. `corrects: [r2_pfi]`",
            ));
        }
        for q in &self.corrects {
            if pfi(q).is_none() || !plan.earlier.contains(q) {
                return Err(Invalid::new(
                    "corrects",
                    format!(
                        "cid corrects `{q}`, which is not a PFI of a method listed before it \
                         (listed before: {})",
                        plan.earlier.join(", ")
                    ),
                ));
            }
        }
        // KSG's k against the training rows, once they are known.
        let rows = plan.n_train.unwrap_or(usize::MAX);
        if let Err(e) = self.mi.validate(rows) {
            return Err(Invalid::new("mi", format!("cid mi: {e}")));
        }
        self.null_test
            .validate()
            .map_err(|e| Invalid::new("null_test", format!("cid null_test: {e}")))
    }

    fn compute(&self, input: &Input<'_>, rng: &mut StreamRng) -> xai_core::error::Result<Emitted> {
        let terms = self.terms(input.train, input.test, rng.next_u64())?;
        let names = input.train.feature_names();
        let index = |f: &str| names.iter().position(|n| n == f);
        let mut out = Emitted::default();
        for q in &self.corrects {
            for v in input.earlier.iter().filter(|v| &v.quantity == q) {
                let Some(j) = index(&v.feature) else { continue };
                out.values.push(Value {
                    quantity: corrected_name(q),
                    feature: v.feature.clone(),
                    x: None,
                    estimate: xai_core::cid::corrected_estimate(v.estimate, terms[j].covered),
                });
            }
        }
        for (j, t) in terms.iter().enumerate() {
            for (q, v) in TERMS.iter().zip([
                t.mi,
                t.conditional_mi,
                t.covered,
                t.mi_null,
                t.conditional_mi_null,
            ]) {
                out.values.push(Value {
                    quantity: q.to_string(),
                    feature: names[j].clone(),
                    x: None,
                    estimate: point(v, input.test.n_rows()),
                });
            }
        }
        Ok(out)
    }
}
