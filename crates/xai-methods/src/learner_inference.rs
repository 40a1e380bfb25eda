//! Learner inference (molnar2023 Eq. 9–10 and §2.3's variance estimators): any
//! model-based explanation (a PFI, a PD) averaged over m refits of the learner, with
//! the t-interval over refits and,
//! for refits that share rows, the Nadeau–Bengio-corrected interval.
//!
//! Refit d trains on rows B_d and explains rows B_−d:
//! - `boot`: B_d is a bootstrap sample of the replicate's n rows, B_−d the
//!   out-of-bag rows;
//! - `subs`: B_d is ⌊fraction·n⌋ rows drawn without replacement, B_−d the rest;
//! - `ideal`: fresh training and explained sets of ⌊fraction·n⌋ rows each, drawn from
//!   the DGP (molnar2023's "simulation", as the authors' code draws it, PAPERS.md
//!   §2.2 [code]).
//!
//! The learner-level value is v̄ = (1/m)·Σ_d v_d, with V̂ = (1/m + c)·s² and the
//! interval v̄ ± t_{1−α/2, m−1}·√V̂ ([`xai_core::corrected_t_interval`]): c = 0 gives
//! `learner_<q>`, c = `correction` (default (1 − 0.632)/0.632, the authors' code, for
//! bootstrap and subsampling alike) gives `learner_<q>_corrected`; `ideal` has fresh
//! data per refit and reports only the uncorrected interval. Under `ideal` a PFI's
//! permutation is replaced by as many fresh draws from the DGP's marginal (the
//! "ideal" PFI of the authors' code, PAPERS.md §2.2).
//!
//! With `truth: {runs: R}` the estimand's true value, the expected learner-PD/PFI
//! E_F[·], is estimated once per scenario (DGP, n, learner) as the mean of the ideal
//! explanation over R runs, each with fresh training and explained sets of
//! ⌊fraction·n⌋ rows (PAPERS.md §2.2), and reported as `truth_<q>`. Each replicate
//! then reports, for every m in `m` (intervals from the first m refits),
//! `coverage_<q>` and `width_<q>` (and `_corrected`): the share of q's features and
//! grid points whose interval contains the truth, and the mean interval width, with
//! feature empty and x = m. Their mean over replicates is the coverage of molnar2023
//! Table 1, with its Monte-Carlo interval.

use rand::Rng;
use rayon::prelude::*;
use serde::Deserialize;
use xai_core::inference::NADEAU_BENGIO_632;
use xai_core::resample::{bootstrap, subsample};
use xai_core::rng::{StreamRng, stream_rng};
use xai_core::{Dataset, Estimate, PerturbationSpec};
use xai_models::{LearnerKind, LearnerSpec};
use xai_synth::DgpSpec;

use crate::MethodSpec;
use crate::method::{Emitted, Input, Method, Plan};
use xai_results::quantity::{Inference, Quantity};
use xai_results::{Invalid, Value};

/// The memory of one value a refit keeps (its quantity and feature names, grid point
/// and estimate with its interval), rounded up: 5 numbers and an optional grid point
/// (56 bytes), two `String`s (48) and their text (about 40).
const VALUE_BYTES: u128 = 160;

/// How refits get their training and explained rows.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Resampling {
    /// Bootstrap sample of the n rows; explained: the out-of-bag rows.
    #[default]
    Boot,
    /// ⌊fraction·n⌋ rows without replacement; explained: the others.
    Subs,
    /// Fresh training and explained rows (⌊fraction·n⌋ each) from the DGP.
    Ideal,
}

fn default_refits() -> usize {
    15
}

/// `learner_inference:` settings.
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LearnerInferenceSpec {
    /// `boot` (the default), `subs` or `ideal`.
    #[serde(default)]
    pub resampling: Resampling,
    /// Refits m per replicate (≥ 2; default 15, molnar2023 Table 1's smaller m).
    #[serde(default = "default_refits")]
    #[schemars(range(min = 2))]
    pub refits: usize,
    /// Training fraction of `subs` and size fraction of `ideal`'s fresh sets (0.632).
    #[serde(default = "default_fraction")]
    #[schemars(extend("exclusiveMinimum" = 0, "exclusiveMaximum" = 1))]
    pub fraction: f64,
    /// The variance correction c of the corrected intervals (default (1 − 0.632)/0.632).
    #[serde(default = "default_correction")]
    #[schemars(range(min = 0))]
    pub correction: f64,
    /// The model-based explanations averaged over refits (`pfi`, `ice`).
    pub explain: Vec<MethodSpec>,
    /// Refit counts at which coverage is reported (each in 2..=refits; default: just
    /// `refits`).
    #[serde(default)]
    pub m: Vec<usize>,
    /// The truth to report coverage against (a DGP experiment only).
    #[serde(default)]
    pub truth: Option<TruthSpec>,
    /// The rows the refits resample: `train` (default), or `all`, the replicate's
    /// training and test rows together (molnar2023 Table 2: subsampling from all n
    /// rows, while a model-based band fits on the first ⌊0.632n⌋ and explains the
    /// rest).
    #[serde(default)]
    pub rows: RefitRows,
}

/// The rows learner inference resamples.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum RefitRows {
    /// The replicate's training rows.
    #[default]
    Train,
    /// Its training rows followed by its test rows.
    All,
}

/// `truth:` settings: `{runs: R}`, the expected learner-level explanation over fresh
/// data (Monte Carlo, molnar2023 Table 1), or `{analytic: true}`, the DGP's
/// closed-form PD (Table 2; `ice` of `prediction` only).
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TruthSpec {
    /// Runs R, each a fit on fresh rows explained on fresh rows (molnar2023: 10,000).
    #[serde(default)]
    pub runs: usize,
    /// The DGP's closed-form PD instead of a Monte-Carlo truth.
    #[serde(default)]
    pub analytic: bool,
}

fn default_fraction() -> f64 {
    0.632
}

fn default_correction() -> f64 {
    NADEAU_BENGIO_632
}

impl LearnerInferenceSpec {
    /// Whether the corrected interval is reported (refits share rows).
    fn corrected(&self) -> bool {
        self.resampling != Resampling::Ideal
    }

    /// The refit counts at which coverage is reported.
    fn ms(&self) -> Vec<usize> {
        if self.m.is_empty() {
            vec![self.refits]
        } else {
            self.m.clone()
        }
    }

    /// The explanations in their ideal form: a PFI's permutation becomes as many
    /// fresh draws from the DGP's marginals.
    fn ideal_explain(&self) -> Vec<MethodSpec> {
        self.explain
            .iter()
            .map(|m| match m {
                MethodSpec::Pfi(p) => {
                    let mut p = p.clone();
                    if let PerturbationSpec::Permutation { repeats } = p.perturbation {
                        p.perturbation = PerturbationSpec::FreshDraws { repeats };
                    }
                    MethodSpec::Pfi(p)
                }
                other => other.clone(),
            })
            .collect()
    }

    /// The quantities the coverage rows report for inner quantity `q`: coverage and
    /// width of its plain intervals, then of its corrected ones.
    fn coverage_quantities(&self, q: &str) -> Vec<String> {
        self.intervals()
            .into_iter()
            .flat_map(|corrected| {
                [Inference::Coverage, Inference::Width]
                    .map(|i| wrap(q, None, corrected).within(i).to_string())
            })
            .collect()
    }

    /// Which intervals it reports: the plain one, and the corrected one if asked.
    fn intervals(&self) -> Vec<bool> {
        match self.corrected() {
            true => vec![false, true],
            false => vec![false],
        }
    }

    /// One refit: draw its rows, fit `learner`, run `explain` on it.
    #[allow(clippy::too_many_arguments)]
    fn refit(
        &self,
        explain: &[MethodSpec],
        data: Option<&Dataset>,
        n: usize,
        dgp: Option<&DgpSpec>,
        learner: &LearnerSpec,
        level: f64,
        seed: u64,
        rng: &mut StreamRng,
    ) -> xai_core::error::Result<Vec<Value>> {
        let (train, explained) = self.draw(data, n, dgp, rng)?;
        let model = learner.build().fit(&train, rng)?;
        let inner = Input {
            train: &train,
            test: &explained,
            all: &train,
            learner,
            dgp,
            model: Some(model.as_ref()),
            earlier: &[],
            level,
            seed,
            first: false,
            truth: &[],
            // The caller checks its stop between refits.
            stop: None,
        };
        // Values keep the names of `self.explain`: the ideal PFI estimates the same
        // learner-PFI as the permutation PFI it replaces.
        let mut values = Vec::new();
        for (run, named) in explain.iter().zip(&self.explain) {
            let (from, to) = (run.method().quantities(), named.method().quantities());
            values.extend(
                run.method()
                    .compute(&inner, rng)?
                    .values
                    .into_iter()
                    .map(|mut v| {
                        if let Some(i) = from.iter().position(|q| *q == v.quantity) {
                            v.quantity.clone_from(&to[i]);
                        }
                        v
                    }),
            );
        }
        Ok(values)
    }

    /// The inner methods' quantities.
    fn inner(&self) -> Vec<String> {
        self.explain
            .iter()
            .flat_map(|m| m.method().quantities())
            .collect()
    }

    /// Training and explained rows of one refit: resampled from the replicate's n rows
    /// `data` (`boot`, `subs`), or fresh from the DGP (`ideal`, and truth runs).
    fn draw(
        &self,
        data: Option<&Dataset>,
        n: usize,
        dgp: Option<&DgpSpec>,
        rng: &mut StreamRng,
    ) -> xai_core::error::Result<(Dataset, Dataset)> {
        let k = (self.fraction * n as f64).floor() as usize;
        Ok(match (self.resampling, data) {
            (Resampling::Boot, Some(data)) => {
                let (train, oob) = bootstrap(n, rng);
                (data.select_rows(&train), data.select_rows(&oob))
            }
            (Resampling::Subs, Some(data)) => {
                let (train, rest) = subsample(n, k, rng);
                (data.select_rows(&train), data.select_rows(&rest))
            }
            _ => {
                let dgp = dgp
                    .ok_or_else(|| xai_core::CoreError::Invalid("fresh rows need a DGP".into()))?;
                let fresh = |rng: &mut StreamRng| {
                    dgp.dgp()
                        .sample(k, rng)
                        .map_err(|e| xai_core::CoreError::Sample(e.to_string()))
                };
                (fresh(rng)?, fresh(rng)?)
            }
        })
    }
}

/// A value's identity: (quantity, feature, x).
type Key = (String, String, Option<f64>);

fn value((quantity, feature, x): Key, estimate: Estimate) -> Value {
    Value {
        quantity,
        feature,
        x,
        estimate,
    }
}

/// Per value (in refit 0's order) the point estimates of every refit, in refit order;
/// an error if a refit emitted other values than refit 0.
fn pool_over_refits(refits: &[Vec<Value>]) -> xai_core::error::Result<Vec<(Key, Vec<f64>)>> {
    let Some(first) = refits.first() else {
        return Ok(Vec::new());
    };
    let mut pooled: Vec<(Key, Vec<f64>)> = first
        .iter()
        .map(|v| ((v.quantity.clone(), v.feature.clone(), v.x), Vec::new()))
        .collect();
    for (d, values) in refits.iter().enumerate() {
        let differs = || {
            xai_core::CoreError::Invalid(format!(
                "refit {d} explained other rows or features than refit 0"
            ))
        };
        if values.len() != pooled.len() {
            return Err(differs());
        }
        for ((key, v), value) in pooled.iter_mut().zip(values) {
            if (&value.quantity, &value.feature, value.x) != (&key.0, &key.1, key.2) {
                return Err(differs());
            }
            v.push(value.estimate.estimate);
        }
    }
    Ok(pooled)
}

impl Method for LearnerInferenceSpec {
    /// Whether any method it averages over refits does.
    fn compares_with_labels(&self) -> bool {
        self.explain
            .iter()
            .any(|m| m.method().compares_with_labels())
    }

    fn quantities(&self) -> Vec<String> {
        let inner = self.inner();
        let mut out: Vec<String> = inner
            .iter()
            .flat_map(|q| {
                self.intervals()
                    .into_iter()
                    .map(|corrected| wrap(q, Some(Inference::Learner), corrected).to_string())
                    .collect::<Vec<_>>()
            })
            .collect();
        if self.truth.is_some() {
            for q in &inner {
                out.push(wrap(q, Some(Inference::Truth), false).to_string());
                out.extend(self.coverage_quantities(q));
            }
        }
        out
    }

    /// What the runs share, so scenarios differing only in the resampling share one
    /// truth (with the DGP, n and the learner, which the runner adds).
    fn truth_key(&self, node: &serde_json::Value) -> Option<serde_json::Value> {
        self.truth.as_ref().filter(|t| !t.analytic).map(|_| {
            serde_json::json!({
                "explain": node["explain"],
                "fraction": node["fraction"],
                "runs": node["truth"]["runs"],
            })
        })
    }

    /// The Monte-Carlo truth of every inner value (quantity, feature, x) for `learner`
    /// on `dgp` with n rows: the mean over `runs` of the ideal explanation of a model
    /// fitted on ⌊fraction·n⌋ fresh rows and explaining ⌊fraction·n⌋ fresh rows, with
    /// its t-interval over runs; run r draws from stream (seed, r), in parallel.
    fn truth(
        &self,
        dgp: &DgpSpec,
        learner: &LearnerSpec,
        n: usize,
        level: f64,
        seed: u64,
        probe: Option<usize>,
    ) -> xai_core::error::Result<Vec<Value>> {
        let Some(t) = &self.truth else {
            return Ok(Vec::new());
        };
        let explain = self.ideal_explain();
        let runs: Vec<Vec<Value>> = (0..probe.map_or(t.runs, |k| k.clamp(2, t.runs)))
            .into_par_iter()
            .map(|r| {
                let mut rng = stream_rng(seed, r as u64);
                self.refit(&explain, None, n, Some(dgp), learner, level, seed, &mut rng)
            })
            .collect::<xai_core::error::Result<_>>()?;
        Ok(pool_over_refits(&runs)?
            .into_iter()
            .map(|(key, v)| value(key, xai_core::t_interval(&v, level)))
            .collect())
    }

    fn truth_runs(&self) -> usize {
        self.truth
            .as_ref()
            .filter(|t| !t.analytic)
            .map_or(0, |t| t.runs)
    }

    /// It fits its own refits, not the replicate's model.
    fn needs_fit(&self) -> bool {
        false
    }

    fn predict_rows(&self, n_test: usize) -> usize {
        self.explain
            .iter()
            .map(|m| m.method().predict_rows(n_test))
            .max()
            .unwrap_or(0)
    }

    /// Its refits, each begun with [`Input::begin_block`].
    fn blocks(&self) -> usize {
        self.refits
    }

    /// Every refit's values, kept until they are pooled: refits × the values its
    /// explanations emit × the size of one ([`VALUE_BYTES`]).
    fn held_bytes(&self, n_test: usize, p: usize) -> (u128, &'static str) {
        let per_refit: u128 = self
            .explain
            .iter()
            .map(|m| m.method().values_emitted(n_test, p) as u128)
            .sum();
        (self.refits as u128 * per_refit * VALUE_BYTES, "refits")
    }

    fn batch_setting(&self, n_test: usize) -> &'static str {
        self.explain
            .iter()
            .map(|m| m.method())
            .max_by_key(|m| m.predict_rows(n_test))
            .map_or("n_test", |m| m.batch_setting(n_test))
    }

    fn validate(&self, plan: &Plan<'_>) -> Result<(), Invalid> {
        // Every refit trains on ⌊fraction·n⌋ rows (a bootstrap draw of n) and explains
        // the rest (its out-of-bag rows): both need a row at least.
        if let Some(n) = plan.n_train {
            let fitted = (self.fraction * n as f64).floor() as usize;
            if n < 2 || (self.resampling == Resampling::Subs && (fitted == 0 || fitted == n)) {
                return Err(Invalid::new(
                    "refits",
                    format!(
                        "refits of {n} training rows split them into ⌊{} · {n}⌋ = {fitted} \
                         to fit and {} to explain: give more rows, so that each part has one",
                        self.fraction,
                        n.saturating_sub(fitted)
                    ),
                ));
            }
        }
        if self.resampling == Resampling::Ideal && plan.dgp.is_none() {
            return Err(Invalid::new(
                "ideal",
                "`ideal` refits draw fresh rows from the DGP; this experiment's data is a \
                 dataset: use `boot` or `subs`",
            ));
        }
        if let Some(&bad) = self.ms().iter().find(|&&m| m < 2 || m > self.refits) {
            return Err(Invalid::new(
                "m",
                format!(
                    "coverage at m = {bad} refits: m must lie in 2..={}",
                    self.refits
                ),
            ));
        }
        if let Some(t) = &self.truth {
            if plan.dgp.is_none() {
                return Err(Invalid::new(
                    "truth",
                    "a truth comes from the DGP; this experiment's data is a dataset",
                ));
            }
            if t.analytic {
                if t.runs > 0 {
                    return Err(Invalid::new(
                        "analytic",
                        "give `runs: R` (a Monte-Carlo truth) or `analytic: true`, not both",
                    ));
                }
                let pd_only = self.explain.iter().all(|m| {
                    matches!(m, MethodSpec::Ice(i) if i.statistics == [xai_core::Statistic::Prediction])
                });
                if !pd_only
                    || plan
                        .dgp
                        .is_some_and(|d| d.dgp().partial_dependence(0, &[0.5]).is_none())
                {
                    return Err(Invalid::new(
                        "analytic",
                        "an analytic truth is a DGP's closed-form PD: explain only \
                         `ice` with `statistics: [prediction]`, on `molnar_additive` or `molnar_sine`",
                    ));
                }
            } else if t.runs < 2 {
                return Err(Invalid::new(
                    "runs",
                    format!("a Monte-Carlo truth needs at least 2 runs, got {}", t.runs),
                ));
            }
        }
        if self.explain.is_empty() {
            return Err(Invalid::new(
                "explain",
                "list the explanations to average over refits, e.g. `explain: [{pfi: ...}]`",
            ));
        }
        for m in &self.explain {
            let inner = m.method();
            if !matches!(m, MethodSpec::Pfi(_) | MethodSpec::Ice(_)) {
                return Err(Invalid::new(
                    "explain",
                    "learner inference averages a fitted model's explanation: `pfi` or `ice`",
                ));
            }
            inner.validate(plan)?;
        }
        Ok(())
    }

    fn compute(&self, input: &Input<'_>, rng: &mut StreamRng) -> xai_core::error::Result<Emitted> {
        let seed = rng.next_u64();
        let explain = match self.resampling {
            Resampling::Ideal => self.ideal_explain(),
            _ => self.explain.clone(),
        };
        let all;
        let rows = match self.rows {
            RefitRows::Train => input.train,
            RefitRows::All => {
                all = input.train.stack(input.test)?;
                &all
            }
        };
        let n = rows.n_rows();
        // Refit d draws from its own stream, so the first m refits do not depend on
        // how many follow.
        let refits: Vec<Vec<Value>> = (0..self.refits)
            .map(|d| {
                input.begin_block()?;
                let mut refit_rng = stream_rng(seed, d as u64);
                self.refit(
                    &explain,
                    Some(rows),
                    n,
                    input.dgp,
                    input.learner,
                    input.level,
                    input.seed,
                    &mut refit_rng,
                )
            })
            .collect::<xai_core::error::Result<_>>()?;
        let pooled = pool_over_refits(&refits)?;
        let corrections: Vec<(bool, f64)> = self
            .intervals()
            .into_iter()
            .map(|corrected| (corrected, if corrected { self.correction } else { 0.0 }))
            .collect();
        let mut out = Vec::new();
        for ((q, feature, x), v) in &pooled {
            for &(corrected, c) in &corrections {
                let estimate = xai_core::corrected_t_interval(v, c, input.level);
                out.push(value(
                    (
                        wrap(q, Some(Inference::Learner), corrected).to_string(),
                        feature.clone(),
                        *x,
                    ),
                    estimate,
                ));
            }
        }
        if let Some(t) = &self.truth {
            let truths = match t.analytic {
                true => analytic_truths(&pooled, input)?,
                false => input.truth.to_vec(),
            };
            out.extend(self.coverage(&pooled, &corrections, &truths, input.level)?);
        }
        Ok(Emitted {
            values: out,
            ..Default::default()
        })
    }
}

impl LearnerInferenceSpec {
    /// The truth rows and, per inner quantity q, m and correction, the share of q's
    /// values whose interval from the first m refits contains its truth and their mean
    /// width (x = m, feature empty).
    fn coverage(
        &self,
        pooled: &[(Key, Vec<f64>)],
        corrections: &[(bool, f64)],
        truth: &[Value],
        level: f64,
    ) -> xai_core::error::Result<Vec<Value>> {
        let truth_of = |(q, f, x): &Key| {
            truth
                .iter()
                .find(|t| &t.quantity == q && &t.feature == f && t.x == *x)
                .map(|t| t.estimate.estimate)
                .ok_or_else(|| {
                    xai_core::CoreError::Invalid(format!("no truth for {q} of {f} at {x:?}"))
                })
        };
        let mut out: Vec<Value> = truth
            .iter()
            .map(|t| Value {
                quantity: wrap(&t.quantity, Some(Inference::Truth), false).to_string(),
                ..t.clone()
            })
            .collect();
        for q in self.inner() {
            let of_q: Vec<(&Key, &Vec<f64>)> = pooled
                .iter()
                .filter(|(k, _)| k.0 == q)
                .map(|(k, v)| (k, v))
                .collect();
            let truths: Vec<f64> = of_q
                .iter()
                .map(|(k, _)| truth_of(k))
                .collect::<xai_core::error::Result<_>>()?;
            for &(corrected, c) in corrections {
                for m in self.ms() {
                    let intervals: Vec<Estimate> = of_q
                        .iter()
                        .map(|(_, v)| xai_core::corrected_t_interval(&v[..m], c, level))
                        .collect();
                    out.extend(crate::method::coverage_values(
                        &wrap(&q, None, corrected),
                        Some(m as f64),
                        &intervals,
                        &truths,
                        level,
                    ));
                }
            }
        }
        Ok(out)
    }
}

/// Inner quantity `q` wrapped in `inference` (outside any it has), with the
/// corrected interval's suffix when `corrected` (`learner_loss_pfi_corrected`).
fn wrap(q: &str, inference: Option<Inference>, corrected: bool) -> Quantity {
    Quantity::wrapped(q, inference, corrected)
}

/// The DGP's closed-form PD at every pooled (PD quantity, feature, x), as truth
/// values named like the estimates.
fn analytic_truths(
    pooled: &[(Key, Vec<f64>)],
    input: &Input<'_>,
) -> xai_core::error::Result<Vec<Value>> {
    let invalid = |m: String| xai_core::CoreError::Invalid(m);
    let dgp = input
        .dgp
        .ok_or_else(|| invalid("an analytic truth needs the DGP".into()))?;
    let names = input.train.feature_names();
    pooled
        .iter()
        .map(|((q, f, x), _)| {
            let j = names
                .iter()
                .position(|n| n == f)
                .ok_or_else(|| invalid(format!("no feature {f}")))?;
            let x = x.ok_or_else(|| invalid(format!("{q} of {f} has no grid point")))?;
            let pd = dgp
                .dgp()
                .partial_dependence(j, &[x])
                .ok_or_else(|| invalid(format!("the DGP has no closed-form PD of {f}")))?;
            Ok(value(
                (q.clone(), f.clone(), Some(x)),
                xai_results::point(pd[0], 1),
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use xai_core::rng::stream_rng;
    use xai_models::LearnerSpec;
    use xai_synth::DgpSpec;

    fn spec(resampling: Resampling, refits: usize) -> LearnerInferenceSpec {
        let text = format!(
            "resampling: {}\nrefits: {refits}\nexplain:\n  - pfi: {{ perturbation: {{ permutation: {{ repeats: 5 }} }}, statistics: [squared_error] }}\n",
            match resampling {
                Resampling::Boot => "boot",
                Resampling::Subs => "subs",
                Resampling::Ideal => "ideal",
            }
        );
        serde_saphyr::from_str(&text).unwrap()
    }

    /// The method's values for `lm` on molnar2023's linear DGP with n rows.
    fn run(resampling: Resampling, refits: usize, n: usize, seed: u64) -> Vec<Value> {
        run_with(&spec(resampling, refits), n, seed, &[])
    }

    fn run_with(method: &LearnerInferenceSpec, n: usize, seed: u64, truth: &[Value]) -> Vec<Value> {
        let (dgp, learner) = lm_on_linear();
        let mut rng = stream_rng(seed, 0);
        let data = dgp.dgp().sample(n, &mut rng).unwrap();
        let input = Input {
            train: &data,
            test: &data,
            all: &data,
            learner: &learner,
            dgp: Some(&dgp),
            model: None,
            earlier: &[],
            level: 0.95,
            seed,
            first: false,
            truth,
            stop: None,
        };
        method.compute(&input, &mut rng).unwrap().values
    }

    fn lm_on_linear() -> (DgpSpec, LearnerSpec) {
        (
            serde_saphyr::from_str("molnar_linear: {}").unwrap(),
            serde_saphyr::from_str("lm: {}").unwrap(),
        )
    }

    fn find<'a>(values: &'a [Value], quantity: &str, feature: &str) -> &'a Value {
        values
            .iter()
            .find(|v| v.quantity == quantity && v.feature == feature)
            .unwrap()
    }

    #[test]
    fn learner_pfi_of_lm_on_the_linear_dgp_tends_to_two_beta_squared_var_x() {
        // y = x1 − x2 + ε, x ~ U[0, 1]: PFI_j → 2·β_j²·Var(X_j) = 2·1·(1/12) = 1/6 as
        // the fitted coefficients approach β (n = 4000, fresh rows per refit).
        let truth = 1.0 / 6.0;
        let values = run(Resampling::Ideal, 30, 4000, 3);
        for feature in ["X1", "X2"] {
            let v = find(&values, "learner_loss_pfi", feature).estimate;
            assert!((v.estimate - truth).abs() < 4.0 * v.se, "{feature}: {v:?}");
            // A wrong closed form (β²Var(X), without the 2) is far outside.
            assert!((v.estimate - truth / 2.0).abs() > 10.0 * v.se);
            assert_eq!(v.n, 30);
        }
        // Ideal refits have fresh data: no corrected interval.
        assert!(values.iter().all(|v| !v.quantity.ends_with("_corrected")));
    }

    #[test]
    fn the_corrected_interval_widens_by_the_nadeau_bengio_factor() {
        let m = 10;
        let values = run(Resampling::Subs, m, 300, 4);
        let plain = find(&values, "learner_loss_pfi", "X1").estimate;
        let corrected = find(&values, "learner_loss_pfi_corrected", "X1").estimate;
        assert_eq!(plain.estimate, corrected.estimate);
        let ratio = (corrected.upper - corrected.lower) / (plain.upper - plain.lower);
        let c = NADEAU_BENGIO_632;
        let want = ((1.0 / m as f64 + c) / (1.0 / m as f64)).sqrt();
        assert!((ratio - want).abs() < 1e-9, "{ratio} vs {want}");
    }

    #[test]
    fn coverage_counts_the_intervals_that_contain_the_truth() {
        let mut method = spec(Resampling::Subs, 10);
        method.m = vec![5, 10];
        method.truth = Some(TruthSpec {
            runs: 40,
            analytic: false,
        });
        let (dgp, learner) = lm_on_linear();
        let truth = method.truth(&dgp, &learner, 200, 0.95, 9, None).unwrap();
        // One truth per feature, named as the estimates, close to 2β²Var(X) = 1/6.
        assert_eq!(truth.len(), 2);
        for t in &truth {
            assert_eq!(t.quantity, "loss_pfi");
            assert!((t.estimate.estimate - 1.0 / 6.0).abs() < 0.05, "{t:?}");
        }
        // A probe of 10 runs is the truth of the first 10 runs (same streams).
        let probe = method
            .truth(&dgp, &learner, 200, 0.95, 9, Some(10))
            .unwrap();
        let mut ten = method.clone();
        ten.truth = Some(TruthSpec {
            runs: 10,
            analytic: false,
        });
        assert_eq!(
            probe,
            ten.truth(&dgp, &learner, 200, 0.95, 9, None).unwrap()
        );
        assert_ne!(probe, truth);
        let values = run_with(&method, 200, 10, &truth);
        let rows = |q: &str| -> Vec<&Value> { values.iter().filter(|v| v.quantity == q).collect() };
        let corrected = rows("coverage_loss_pfi_corrected");
        assert_eq!(
            corrected.iter().map(|v| v.x).collect::<Vec<_>>(),
            [Some(5.0), Some(10.0)]
        );
        for v in rows("coverage_loss_pfi").iter().chain(&corrected) {
            let c = v.estimate.estimate;
            assert!(c == 0.0 || c == 0.5 || c == 1.0, "{v:?}");
            assert!(v.feature.is_empty() && v.estimate.n == 2);
        }
        // Widths: the corrected intervals are wider.
        let width = |q: &str, m: f64| {
            rows(q)
                .iter()
                .find(|v| v.x == Some(m))
                .unwrap()
                .estimate
                .estimate
        };
        assert!(width("width_loss_pfi_corrected", 10.0) > width("width_loss_pfi", 10.0));
        assert!(width("width_loss_pfi", 5.0) > 0.0);
        assert_eq!(rows("truth_loss_pfi").len(), 2);
        // A truth far from every estimate is never covered.
        let far: Vec<Value> = truth
            .iter()
            .map(|t| {
                let mut t = t.clone();
                t.estimate.estimate += 10.0;
                t
            })
            .collect();
        let missed = run_with(&method, 200, 10, &far);
        assert!(
            missed
                .iter()
                .filter(|v| v.quantity.starts_with("coverage_"))
                .all(|v| v.estimate.estimate == 0.0)
        );
    }
}
