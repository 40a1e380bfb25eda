//! Learner inference (molnar2023 §5, Eq. 9–10): any model-based explanation (a PFI,
//! a PD) averaged over m refits of the learner, with the t-interval over refits and,
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
//! data per refit and reports only the uncorrected interval.

use rand::Rng;
use serde::Deserialize;
use xai_core::Dataset;
use xai_core::inference::NADEAU_BENGIO_632;
use xai_core::resample::{bootstrap, subsample};
use xai_core::rng::{StreamRng, stream_rng};

use super::{Emitted, Input, Invalid, Method, MethodSpec, Plan, Value};

/// How refits get their training and explained rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Resampling {
    /// Bootstrap sample of the n rows; explained: the out-of-bag rows.
    Boot,
    /// ⌊fraction·n⌋ rows without replacement; explained: the others.
    Subs,
    /// Fresh training and explained rows (⌊fraction·n⌋ each) from the DGP.
    Ideal,
}

/// `learner_inference:` settings.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LearnerInferenceSpec {
    /// `boot`, `subs` or `ideal`.
    pub resampling: Resampling,
    /// Refits m per replicate (≥ 2; molnar2023 Table 1: 15 of 30).
    pub refits: usize,
    /// Training fraction of `subs` and size fraction of `ideal`'s fresh sets (0.632).
    #[serde(default = "default_fraction")]
    pub fraction: f64,
    /// The variance correction c of the corrected intervals (default (1 − 0.632)/0.632).
    #[serde(default = "default_correction")]
    pub correction: f64,
    /// The model-based explanations averaged over refits (`pfi`, `ice`).
    pub explain: Vec<MethodSpec>,
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

    /// The inner methods' quantities.
    fn inner(&self) -> Vec<String> {
        self.explain
            .iter()
            .flat_map(|m| m.method().quantities())
            .collect()
    }

    /// Training and explained rows of one refit from the replicate's rows `data`.
    fn draw(
        &self,
        data: &Dataset,
        input: &Input<'_>,
        rng: &mut StreamRng,
    ) -> xai_core::error::Result<(Dataset, Dataset)> {
        let n = data.n_rows();
        let k = (self.fraction * n as f64).floor() as usize;
        Ok(match self.resampling {
            Resampling::Boot => {
                let (train, oob) = bootstrap(n, rng);
                (data.select_rows(&train), data.select_rows(&oob))
            }
            Resampling::Subs => {
                let (train, rest) = subsample(n, k, rng);
                (data.select_rows(&train), data.select_rows(&rest))
            }
            Resampling::Ideal => {
                let dgp = input.dgp.ok_or_else(|| {
                    xai_core::CoreError::Invalid("`ideal` resampling needs a DGP".into())
                })?;
                (dgp.dgp().sample(k, rng), dgp.dgp().sample(k, rng))
            }
        })
    }
}

impl Method for LearnerInferenceSpec {
    fn quantities(&self) -> Vec<String> {
        self.inner()
            .into_iter()
            .flat_map(|q| {
                let mut out = vec![format!("learner_{q}")];
                if self.corrected() {
                    out.push(format!("learner_{q}_corrected"));
                }
                out
            })
            .collect()
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

    fn validate(&self, plan: &Plan<'_>) -> Result<(), Invalid> {
        if self.refits < 2 {
            return Err(Invalid::new(
                "refits",
                format!(
                    "an interval over refits needs at least 2, got {}",
                    self.refits
                ),
            ));
        }
        if !(self.fraction > 0.0 && self.fraction < 1.0) {
            return Err(Invalid::new(
                "fraction",
                format!("must lie in (0, 1), got {}", self.fraction),
            ));
        }
        if self.correction.is_nan() || self.correction < 0.0 {
            return Err(Invalid::new(
                "correction",
                format!("must be at least 0, got {}", self.correction),
            ));
        }
        if self.resampling == Resampling::Ideal && plan.dgp.is_none() {
            return Err(Invalid::new(
                "ideal",
                "`ideal` refits draw fresh rows from the DGP; this experiment's data is a \
                 dataset: use `boot` or `subs`",
            ));
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
        let learner = input.learner.build();
        let seed = rng.next_u64();
        // Per key (quantity, feature, x): the refits' point values, in refit order.
        let mut keys: Vec<(String, String, Option<f64>)> = Vec::new();
        let mut values: Vec<Vec<f64>> = Vec::new();
        for d in 0..self.refits {
            // Refit d has its own stream, so the first m refits do not depend on m.
            let mut refit_rng = stream_rng(seed, d as u64);
            let (train, explained) = self.draw(input.train, input, &mut refit_rng)?;
            let model = learner.fit(&train, &mut refit_rng)?;
            let inner = Input {
                train: &train,
                test: &explained,
                all: &train,
                learner: input.learner,
                dgp: input.dgp,
                model: Some(model.as_ref()),
                earlier: &[],
                level: input.level,
                seed: input.seed,
                first: false,
            };
            let mut k = 0;
            for m in &self.explain {
                for v in m.method().compute(&inner, &mut refit_rng)?.values {
                    if d == 0 {
                        keys.push((v.quantity.clone(), v.feature.clone(), v.x));
                        values.push(Vec::with_capacity(self.refits));
                    }
                    if keys.get(k) != Some(&(v.quantity, v.feature, v.x)) {
                        return Err(xai_core::CoreError::Invalid(format!(
                            "refit {d} explained other rows or features than refit 0"
                        )));
                    }
                    values[k].push(v.estimate.estimate);
                    k += 1;
                }
            }
        }
        let mut out = Vec::new();
        for ((q, feature, x), v) in keys.into_iter().zip(values) {
            let mut push = |quantity: String, c: f64| {
                out.push(Value {
                    quantity,
                    feature: feature.clone(),
                    x,
                    estimate: xai_core::corrected_t_interval(&v, c, input.level),
                })
            };
            push(format!("learner_{q}"), 0.0);
            if self.corrected() {
                push(format!("learner_{q}_corrected"), self.correction);
            }
        }
        Ok(Emitted {
            values: out,
            ..Default::default()
        })
    }
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
        let dgp: DgpSpec = serde_saphyr::from_str("molnar_linear: {}").unwrap();
        let learner: LearnerSpec = serde_saphyr::from_str("lm: {}").unwrap();
        let mut rng = stream_rng(seed, 0);
        let data = dgp.dgp().sample(n, &mut rng);
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
        };
        spec(resampling, refits)
            .compute(&input, &mut rng)
            .unwrap()
            .values
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
}
