//! Permutation feature importance over any perturbation that replaces a feature's
//! values: PFI_s(j) = (1/n)·Σᵢ [(1/R)·Σ_r s(x̃⁽ⁱ'ʳ⁾) − s(x⁽ⁱ⁾)] (molnar2023 Eq. 4, with
//! its SE and t-interval, Eq. 6 and 8). With the marginal permutation and `nll` it is
//! Likelihood-PFI (wood2024 Eq. 5), with `entropy` Entropy-PFI (wood2024 §3.2); with
//! the Gaussian conditional sampler it is the conditional PFI of wood2024 Prop. 3.
//! With `replay`, copy r of every feature applies the r-th of given row permutations
//! instead of a random one (another implementation's draws, e.g. the ten
//! scikit-learn's `permutation_importance` applied to icefi2022's forest), so the
//! PFI equals that implementation's to the last bit, not in distribution.

use std::path::PathBuf;

use rand::Rng;
use serde::Deserialize;
use xai_core::rng::StreamRng;
use xai_core::{PerturbationSpec, Statistic};

use crate::method::{Emitted, Input, Method, Plan, feature_indices, known_features};
use xai_results::quantity::{Aggregation, Quantity, Sampler};
use xai_results::{Invalid, Value};

/// `pfi:` settings.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PfiSpec {
    /// How a feature's values are replaced: `permutation` (marginal; the default,
    /// with 5 repeats), `conditional_gaussian` (X_j | X_−j, fitted on the training
    /// rows) or `fresh_draws` (from the DGP's marginals).
    #[serde(default)]
    pub perturbation: PerturbationSpec,
    /// What is read off each row's predictive distribution; all statistics share the
    /// perturbed copies (default `squared_error`, scikit-learn's regression score).
    #[serde(default = "squared_error")]
    pub statistics: Vec<Statistic>,
    /// Features explained, by name (default: all).
    #[serde(default)]
    pub features: Option<Vec<String>>,
    /// Row permutations to apply instead of random ones, with `permutation: {repeats:
    /// R}`: a CSV with a header and R rows, row r a permutation of the test rows
    /// (copy r sets row i's value to row perm_r[i]'s, for every feature), or the R
    /// permutations as lists. A relative path is looked up in the data directories
    /// before the run starts.
    #[serde(default)]
    pub replay: Option<Replay>,
}

fn squared_error() -> Vec<Statistic> {
    vec![Statistic::SquaredError]
}

/// Row permutations to apply instead of random ones: a CSV file's, or given as data
/// by a front end.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum Replay {
    /// A CSV with a header and R rows, row r a permutation of the test rows.
    File(PathBuf),
    /// The permutations themselves, one list of row indices per copy.
    Rows(Vec<Vec<usize>>),
}

impl Replay {
    /// The file's path, for the runner to find it before the run; none for data.
    pub fn file_mut(&mut self) -> Option<&mut PathBuf> {
        match self {
            Replay::File(path) => Some(path),
            Replay::Rows(_) => None,
        }
    }

    /// Where the permutations come from, for an error.
    fn source(&self) -> String {
        match self {
            Replay::File(path) => path.display().to_string(),
            Replay::Rows(_) => "replay".into(),
        }
    }

    /// The permutations (a file's: header, then one permutation of 0..n per row),
    /// each checked to be a permutation of the `n` test rows.
    fn permutations(&self, n: usize) -> xai_core::error::Result<Vec<Vec<usize>>> {
        let bad = |what: String| xai_core::CoreError::Invalid(format!("{}: {what}", self.source()));
        let perms = match self {
            Replay::Rows(rows) => rows.clone(),
            Replay::File(path) => {
                let mut reader = csv::Reader::from_path(path).map_err(|e| bad(e.to_string()))?;
                let mut out = Vec::new();
                for (r, record) in reader.records().enumerate() {
                    let record = record.map_err(|e| bad(e.to_string()))?;
                    let perm: Vec<usize> = record
                        .iter()
                        .map(|v| v.trim().parse::<usize>())
                        .collect::<Result<_, _>>()
                        .map_err(|_| bad(format!("permutation {r} holds a non-integer")))?;
                    out.push(perm);
                }
                out
            }
        };
        for (r, perm) in perms.iter().enumerate() {
            let mut seen = vec![false; n];
            if perm.len() != n
                || perm
                    .iter()
                    .any(|&i| i >= n || std::mem::replace(&mut seen[i], true))
            {
                return Err(bad(format!(
                    "permutation {r} is not a permutation of the {n} test rows (it has {} entries)",
                    perm.len()
                )));
            }
        }
        Ok(perms)
    }
}

/// The quantity of a PFI: `<statistic prefix>_pfi` under the marginal permutation,
/// `<statistic prefix>_<sampler>_pfi` under another sampler (`entropy_conditional_pfi`).
pub fn pfi_quantity(statistic: Statistic, perturbation: &PerturbationSpec) -> String {
    Quantity::of(statistic, sampler(perturbation), Aggregation::Pfi).to_string()
}

/// The sampler a quantity names (none for the marginal permutation).
fn sampler(p: &PerturbationSpec) -> Option<Sampler> {
    match p {
        PerturbationSpec::Permutation { .. } | PerturbationSpec::Grid(_) => None,
        PerturbationSpec::ConditionalGaussian { .. } => Some(Sampler::Conditional),
        PerturbationSpec::FreshDraws { .. } => Some(Sampler::Fresh),
        PerturbationSpec::ConditionalSubgroups { .. } => Some(Sampler::Subgroup),
    }
}

impl Method for PfiSpec {
    fn compares_with_labels(&self) -> bool {
        self.statistics.iter().any(|s| s.needs_label())
    }

    fn quantities(&self) -> Vec<String> {
        self.statistics
            .iter()
            .map(|&s| pfi_quantity(s, &self.perturbation))
            .collect()
    }

    fn predict_rows(&self, n_test: usize) -> usize {
        let copies = match self.perturbation {
            PerturbationSpec::Permutation { repeats }
            | PerturbationSpec::ConditionalGaussian { repeats }
            | PerturbationSpec::ConditionalSubgroups { repeats, .. }
            | PerturbationSpec::FreshDraws { repeats } => repeats,
            PerturbationSpec::Grid(g) => g.max_len(n_test),
        };
        n_test.saturating_mul(copies)
    }

    fn batch_setting(&self, _n_test: usize) -> &'static str {
        match self.perturbation {
            PerturbationSpec::Grid(_) => "points",
            _ => "repeats",
        }
    }

    fn validate(&self, plan: &Plan<'_>) -> Result<(), Invalid> {
        crate::method::some_statistics(&self.statistics)?;
        match self.perturbation {
            PerturbationSpec::Grid(_) => {
                return Err(Invalid::new(
                    "pfi",
                    "`pfi` replaces a feature by draws (permutation, conditional_gaussian); \
                     a grid sets every row to each grid value: use an `ice` method for that",
                ));
            }
            PerturbationSpec::FreshDraws { .. } if plan.dgp.is_none() => {
                return Err(Invalid::new(
                    "fresh_draws",
                    "`fresh_draws` draws a feature from its marginal, which a DGP knows and a \
                     dataset does not: use `permutation` here",
                ));
            }
            _ => {}
        }
        if self.replay.is_some()
            && !matches!(self.perturbation, PerturbationSpec::Permutation { .. })
        {
            return Err(Invalid::new(
                "replay",
                "`replay` applies given row permutations: use it with `perturbation: \
                 {permutation: {repeats: R}}`, R the file's number of permutations",
            ));
        }
        known_features(plan, self.features.iter().flatten())
    }

    fn compute(&self, input: &Input<'_>, rng: &mut StreamRng) -> xai_core::error::Result<Emitted> {
        let seed = rng.next_u64();
        let features = feature_indices(input.test, self.features.as_deref());
        let marginals = input.dgp.map(|d| d.marginals());
        let samplers = xai_core::Samplers {
            marginals: marginals.as_ref(),
            subgroups: Some(&xai_models::RpartSubgroups),
        };
        let perturbation = match &self.replay {
            Some(replay) => {
                let perms = replay.permutations(input.test.n_rows())?;
                if let PerturbationSpec::Permutation { repeats } = self.perturbation
                    && repeats != perms.len()
                {
                    return Err(xai_core::CoreError::Invalid(format!(
                        "{} holds {} permutations but `repeats` is {repeats}: make them equal",
                        replay.source(),
                        perms.len()
                    )));
                }
                xai_core::Perturbation::Orders {
                    orders: vec![perms; input.test.n_features()],
                }
            }
            None => self
                .perturbation
                .resolve(input.train, input.test, &samplers)?,
        };
        let res = xai_core::pfi(
            input.model()?,
            input.test,
            &features,
            &perturbation,
            &self.statistics,
            seed,
            input.level,
        )?;
        let names = input.test.feature_names();
        let values = self
            .quantities()
            .into_iter()
            .zip(res)
            .flat_map(|(q, per_feature)| {
                per_feature.into_iter().map(move |f| Value {
                    quantity: q.clone(),
                    feature: names[f.feature].clone(),
                    x: None,
                    estimate: f.estimate,
                })
            })
            .collect();
        Ok(Emitted {
            values,
            ..Default::default()
        })
    }
}
