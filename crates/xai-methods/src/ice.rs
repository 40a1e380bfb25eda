//! Individual conditional expectation curves over a grid and their mean, the partial
//! dependence: ICE⁽ⁱ⁾(x_g) = s(x⁽ⁱ⁾ with x_j := x_g), PD(x_g) = (1/n)·Σᵢ ICE⁽ⁱ⁾(x_g)
//! with its t-interval over rows (wood2024 Eq. 3-4; with `entropy` Eq. 8-10;
//! molnar2023 Eq. 5, 7), or with `band: model` the model-based band of molnar2023
//! §2.5 ([`xai_core::pd_model_band`]). With `impact`, each feature's curves on its
//! sorted unique values are also read as icefi2022's feature impact, in-distribution
//! impact, heterogeneity and non-linearity (Eq. 1–5, [`xai_core::ice_impact`]).

use rand::Rng;
use rand::seq::SliceRandom;
use serde::Deserialize;
use xai_core::rng::{StreamRng, stream_rng};
use xai_core::{GridRange, GridSpec, Statistic, Target};

use crate::method::{Emitted, Input, Method, Plan, feature_indices, known_features};
use xai_results::quantity::{Aggregation, Impact, Inference, Quantity, Sampler, Suffix};
use xai_results::table::CurveRow;
use xai_results::{Invalid, Value};

/// `ice:` settings.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IceSpec {
    /// The grid of each feature (default 20 points from its minimum to its maximum).
    #[serde(default)]
    pub grid: GridSpec,
    /// What is read off each row's predictive distribution (`<prefix>_pd` per grid
    /// point; default `prediction`, the PD of Friedman 2001).
    #[serde(default = "prediction")]
    pub statistics: Vec<Statistic>,
    /// Features explained, by name (default: all).
    #[serde(default)]
    pub features: Option<Vec<String>>,
    /// Keep the ICE curves (`<prefix>_ice`) of this many test rows, drawn at random
    /// without replacement (written to `ice.csv`).
    #[serde(default)]
    pub curves: usize,
    /// The PD's interval: `rows` (default), the t-interval over the test rows
    /// (molnar2023 Eq. 5, 7); or `model`, PD ± z·se with se² = (1/n²)·1ᵀK(x)1 from the
    /// model's covariance of its mean predictions (molnar2023 §2.5; `lm`,
    /// `gaussian_process`, `kriging`; statistic `prediction` only); or
    /// `{conditional: {nearest: r}}`, the conditional PD over the r rows nearest each
    /// grid value ([`Band::Conditional`]).
    #[serde(default)]
    pub band: Band,
    /// Also report `coverage_<prefix>_pd_<band>` and `width_<prefix>_pd_<band>`: the
    /// share of the features' grid points whose interval holds the DGP's true PD
    /// (its closed form `Dgp::partial_dependence`, else by Monte Carlo over
    /// `truth_rows` draws), and the mean width; and `mc_se_<prefix>_pd`, the mean over
    /// them of the PD's Monte-Carlo se √(s²_ICE/n), s²_ICE the sample variance of the
    /// ICE values (molnar2023 Eq. 5; Table 2's "MC se" column beside its coverage;
    /// statistic `prediction` only, on a DGP experiment).
    #[serde(default)]
    pub coverage: bool,
    /// Rows drawn from the DGP for the true PD of `coverage` where the DGP has no
    /// closed form: PD_j(v) ≈ (1/N)·Σᵢ E[Y | x⁽ⁱ⁾ with x_j = v] over N draws of a
    /// fixed stream of the experiment's seed, the same in every replicate, with
    /// Monte-Carlo se sd/√N. Default 100000: a PD interval's half-width over n test
    /// rows is about 1.96·sd/√n, so the truth's se is √(n/N)/1.96 of it, a twentieth
    /// for n = 1000.
    #[serde(default = "truth_rows")]
    #[schemars(range(min = 2))]
    pub truth_rows: usize,
    /// Also read each feature's curves as icefi2022's numbers (Eq. 1–5) with the
    /// authors' code conventions: per statistic `<prefix>_fi`, `_signed_fi`, `_idfi`,
    /// `_he`, `_nl` ([`xai_core::ice_impact`]; needs `range: unique`); with `printed`
    /// also the printed equations' numbers, the same names ending in `_printed`.
    #[serde(default)]
    pub impact: Option<ImpactSpec>,
}

fn truth_rows() -> usize {
    100_000
}

/// The stream of the Monte-Carlo truth's draws under the experiment's seed (one no
/// replicate or model uses: theirs count up from 0).
const TRUTH_STREAM: u64 = (1 << 63) | (1 << 62);

fn prediction() -> Vec<Statistic> {
    vec![Statistic::Prediction]
}

fn icefi_lambda() -> f64 {
    0.75
}

/// `impact:` settings: icefi2022's λ and whether the printed equations are reported
/// beside the code's conventions (which the published tables follow).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImpactSpec {
    /// λ of the likelihood weight λ^{|v_k − x⁽ⁱ⁾|/σ} (Eq. 3; default 0.75, icefi2022's
    /// in all its results).
    #[serde(default = "icefi_lambda")]
    #[schemars(range(max = 1), extend("exclusiveMinimum" = 0))]
    pub lambda: f64,
    /// Also the numbers of Eq. 1–5 as printed (`_printed` quantities).
    #[serde(default)]
    pub printed: bool,
}

impl ImpactSpec {
    /// The conventions reported, with the suffix of their quantities' names.
    fn conventions(self) -> Vec<(xai_core::Convention, Option<Suffix>)> {
        let printed = [(xai_core::Convention::Printed, Some(Suffix::Word("printed")))];
        std::iter::once((xai_core::Convention::Code, None))
            .chain(printed.into_iter().filter(|_| self.printed))
            .collect()
    }

    /// The quantity of impact number `i` of `statistic` under a convention's suffix.
    fn quantity(statistic: Statistic, i: Impact, suffix: &Option<Suffix>) -> String {
        let q = Quantity::of(statistic, None, Aggregation::Impact(i));
        match suffix {
            Some(s) => q.with(s.clone()),
            None => q,
        }
        .to_string()
    }
}

/// The numbers of [`xai_core::IceImpact`] in [`Impact::ALL`]'s order.
fn impact_numbers(i: xai_core::IceImpact) -> [f64; 5] {
    [i.fi, i.signed_fi, i.idfi, i.he, i.nl]
}

/// The interval of a PD, and for `conditional` which rows it averages.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Band {
    /// The t-interval over the rows averaged (Monte-Carlo error).
    #[default]
    Rows,
    /// The model's own uncertainty about the average prediction.
    Model,
    /// The conditional PD (M-plot, PAPERS.md §2.7): at each grid value the mean and
    /// t-interval over the `nearest` test rows closest to it in the feature
    /// ([`xai_core::conditional_pd`]); reported as `<prefix>_conditional_pd`.
    Conditional {
        /// Rows averaged at each grid value (PAPERS.md §2.7: 50).
        #[schemars(range(min = 2))]
        nearest: usize,
    },
}

impl Band {
    /// Its YAML name, which ends the coverage quantities' names.
    fn name(self) -> &'static str {
        match self {
            Band::Rows => "rows",
            Band::Model => "model",
            Band::Conditional { .. } => "conditional",
        }
    }

    /// The PD's quantity of `statistic`: `<prefix>_pd`, or `<prefix>_conditional_pd`.
    fn pd_quantity(self, statistic: Statistic) -> Quantity {
        let sampler = match self {
            Band::Conditional { .. } => Some(Sampler::Conditional),
            Band::Rows | Band::Model => None,
        };
        Quantity::of(statistic, sampler, Aggregation::Pd)
    }

    /// The PD quantity `pd` with this band's name, which the coverage study's
    /// quantities wrap (`prediction_pd_rows`).
    fn band_quantity(self, pd: &Quantity) -> Quantity {
        pd.clone().with(Suffix::Word(self.name()))
    }

    /// The coverage study's quantities of PD quantity `pd`: the coverage and width
    /// of its bands (`coverage_prediction_pd_rows`), and its Monte-Carlo se.
    fn coverage_quantities(self, pd: &Quantity) -> [String; 3] {
        let band = self.band_quantity(pd);
        [
            band.clone().within(Inference::Coverage).to_string(),
            band.within(Inference::Width).to_string(),
            pd.clone().within(Inference::McSe).to_string(),
        ]
    }
}

impl Method for IceSpec {
    fn compares_with_labels(&self) -> bool {
        self.statistics.iter().any(|s| s.needs_label())
    }

    fn quantities(&self) -> Vec<String> {
        let pd: Vec<Quantity> = self
            .statistics
            .iter()
            .map(|&s| self.band.pd_quantity(s))
            .collect();
        let coverage = pd
            .iter()
            .filter(|_| self.coverage)
            .flat_map(|q| self.band.coverage_quantities(q));
        let impact = self.impact.iter().flat_map(|i| {
            self.statistics.iter().flat_map(move |&s| {
                i.conventions().into_iter().flat_map(move |(_, suffix)| {
                    Impact::ALL.map(|n| ImpactSpec::quantity(s, n, &suffix))
                })
            })
        });
        pd.iter()
            .map(Quantity::to_string)
            .chain(coverage)
            .chain(impact)
            .collect()
    }

    fn curve_quantities(&self) -> Vec<String> {
        if self.curves == 0 {
            return Vec::new();
        }
        self.statistics
            .iter()
            .map(|&s| Quantity::of(s, None, Aggregation::Ice).to_string())
            .collect()
    }

    fn predict_rows(&self, n_test: usize) -> usize {
        n_test.saturating_mul(self.grid.max_len(n_test))
    }

    fn batch_setting(&self, _n_test: usize) -> &'static str {
        "points"
    }

    /// With `coverage`, a Monte-Carlo truth's draws: `truth_rows` rows of p features
    /// and their target, a copy with x_j set, and their conditional means.
    fn held_bytes(&self, _n_test: usize, p: usize) -> (u128, &'static str) {
        let rows = match self.coverage {
            true => self.truth_rows as u128,
            false => 0,
        };
        (rows.saturating_mul(2 * p as u128 + 2) * 8, "truth_rows")
    }

    /// One value per quantity, feature and grid point.
    fn values_emitted(&self, n_test: usize, p: usize) -> usize {
        self.quantities()
            .len()
            .saturating_mul(p)
            .saturating_mul(self.grid.max_len(n_test))
    }

    fn validate(&self, plan: &Plan<'_>) -> Result<(), Invalid> {
        crate::method::some_statistics(&self.statistics)?;
        self.grid
            .check()
            .map_err(|e| Invalid::new("points", e.to_string()))?;
        if self.impact.is_some() {
            if self.grid.range != GridRange::Unique {
                return Err(Invalid::new(
                    "impact",
                    "ICE feature impact is defined on each feature's sorted unique values \
                     (icefi2022 §3.1): use `grid: { range: unique }`",
                ));
            }
            if self.band != Band::Rows {
                return Err(Invalid::new(
                    "impact",
                    "ICE feature impact reads the ICE curves themselves; use the default \
                     `band: rows`",
                ));
            }
        }
        if let Some(n) = plan.n_test
            && self.curves > n
        {
            return Err(Invalid::new(
                "curves",
                format!(
                    "curves = {} asks for more ICE curves than the {n} test rows",
                    self.curves
                ),
            ));
        }
        if let Band::Conditional { .. } = self.band
            && self.coverage
        {
            return Err(Invalid::new(
                "coverage",
                "coverage is against the DGP's (marginal) PD; a conditional PD has no \
                 closed-form truth here",
            ));
        }
        if self.coverage {
            if self.statistics != [Statistic::Prediction] {
                return Err(Invalid::new(
                    "coverage",
                    "coverage is of the PD of the mean prediction: use `statistics: [prediction]`",
                ));
            }
            if plan.dgp.is_none() {
                return Err(Invalid::new(
                    "coverage",
                    "coverage needs the true PD, which only a DGP experiment knows \
                     (`data: { dgp: ... }`)",
                ));
            }
        }
        if self.band == Band::Model {
            if self.statistics != [Statistic::Prediction] {
                return Err(Invalid::new(
                    "band",
                    "`band: model` is the covariance of the mean predictions: use \
                     `statistics: [prediction]`",
                ));
            }
            if let Some((name, learner)) =
                crate::method::model_without(plan.models, |c| c.mean_covariance)
            {
                return Err(Invalid::new(
                    "band",
                    format!(
                        "`band: model` needs the covariance of a model's mean predictions, \
                         which `{name}` ({}) does not have; use `lm`, `gaussian_process` or `kriging`, or \
                         `band: rows`",
                        learner.name()
                    ),
                ));
            }
        }
        known_features(plan, self.features.iter().flatten())
    }

    fn compute(&self, input: &Input<'_>, rng: &mut StreamRng) -> xai_core::error::Result<Emitted> {
        let seed = rng.next_u64();
        let test = input.test;
        let features = feature_indices(test, self.features.as_deref());
        let res = xai_core::ice(
            input.model()?,
            test,
            &features,
            self.grid,
            &self.statistics,
            input.level,
        )?;
        let kept = sample_rows(test.n_rows(), self.curves, seed);
        let names = test.feature_names();
        let mut out = Emitted::default();
        for (&stat, per_feature) in self.statistics.iter().zip(res) {
            let pd_quantity = self.band.pd_quantity(stat);
            let q = pd_quantity.to_string();
            let (mut intervals, mut truths, mut mc_se) = (Vec::new(), Vec::new(), Vec::new());
            for mut f in per_feature {
                mc_se.extend(f.pd.iter().map(|e| e.se));
                if let Band::Conditional { nearest } = self.band {
                    let column = test.x().column(f.feature).to_vec();
                    f.pd = xai_core::conditional_pd(
                        f.curves.view(),
                        &column,
                        &f.grid,
                        nearest,
                        input.level,
                        seed,
                    );
                }
                if self.band == Band::Model {
                    let model = input.model()?;
                    let cov = model.mean_covariance().ok_or_else(|| {
                        xai_core::CoreError::Invalid(
                            "`band: model`: this model has no covariance of its mean predictions"
                                .into(),
                        )
                    })?;
                    let pd: Vec<f64> = f.pd.iter().map(|e| e.estimate).collect();
                    f.pd = xai_core::pd_model_band(
                        cov,
                        test.x(),
                        f.feature,
                        &f.grid,
                        &pd,
                        input.level,
                    );
                }
                if self.coverage {
                    let dgp = input.dgp.ok_or_else(|| {
                        xai_core::CoreError::Invalid("coverage needs the DGP's true PD".into())
                    })?;
                    let truth = xai_synth::oracle::partial_dependence(
                        dgp,
                        f.feature,
                        &f.grid,
                        self.truth_rows,
                        &mut stream_rng(input.seed, TRUTH_STREAM),
                    )
                    .map_err(|e| xai_core::CoreError::Sample(e.to_string()))?;
                    truths.extend(truth.mean);
                    intervals.extend(f.pd.iter().copied());
                }
                if let Some(impact) = self.impact {
                    let x = test.x();
                    for (convention, suffix) in impact.conventions() {
                        let numbers = xai_core::ice_impact(
                            &f.grid,
                            f.curves.view(),
                            x.column(f.feature),
                            impact.lambda,
                            convention,
                        )?;
                        out.values.extend(
                            Impact::ALL
                                .into_iter()
                                .zip(impact_numbers(numbers))
                                .map(|(n, v)| Value {
                                    quantity: ImpactSpec::quantity(stat, n, &suffix),
                                    feature: names[f.feature].clone(),
                                    x: None,
                                    estimate: xai_results::point(v, test.n_rows()),
                                }),
                        );
                    }
                }
                for (x, pd) in f.grid.iter().zip(&f.pd) {
                    out.values.push(Value {
                        quantity: q.clone(),
                        feature: names[f.feature].clone(),
                        x: Some(*x),
                        estimate: *pd,
                    });
                }
                out.curves.extend(kept.iter().map(|&row| CurveRow {
                    labels: Vec::new(),
                    replicate: 0,
                    model: String::new(),
                    quantity: Quantity::of(stat, None, Aggregation::Ice).to_string(),
                    feature: names[f.feature].clone(),
                    row,
                    grid: f.grid.clone(),
                    values: f.curves.row(row).to_vec(),
                    row_values: test.x().row(row).to_vec(),
                    row_class: match test.y() {
                        Target::Classes { labels, .. } => Some(labels[row]),
                        Target::Continuous(_) => None,
                    },
                }));
            }
            if self.coverage {
                out.values.extend(crate::method::coverage_values(
                    &self.band.band_quantity(&pd_quantity),
                    None,
                    &intervals,
                    &truths,
                    input.level,
                ));
                out.values.push(Value {
                    quantity: pd_quantity.clone().within(Inference::McSe).to_string(),
                    feature: String::new(),
                    x: None,
                    estimate: xai_results::point(
                        mc_se.iter().sum::<f64>() / mc_se.len() as f64,
                        mc_se.len(),
                    ),
                });
            }
        }
        Ok(out)
    }
}

/// `k` distinct rows out of `n`, in increasing order, drawn from stream (seed, 2⁶³).
fn sample_rows(n: usize, k: usize, seed: u64) -> Vec<usize> {
    let mut rows: Vec<usize> = (0..n).collect();
    let (chosen, _) = rows.partial_shuffle(&mut stream_rng(seed, 1 << 63), k.min(n));
    let mut chosen = chosen.to_vec();
    chosen.sort_unstable();
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;
    use xai_models::{LearnerKind, LearnerSpec};
    use xai_synth::DgpSpec;

    /// Friedman's PD (wood2024 Eq. 3) is the mean of the ICE curves (Eq. 4) over the
    /// same rows: with every test row's curve kept, the emitted PD at each grid value
    /// is their mean. (An identity of the method, so a test here, not a paper claim.)
    #[test]
    fn coverage_needs_a_dgp_and_its_monte_carlo_truth_two_rows() {
        let models = std::collections::BTreeMap::new();
        let dgp: xai_synth::DgpSpec = serde_saphyr::from_str("molnar_linear: {}").unwrap();
        let plan = |dgp| Plan {
            feature_names: None,
            n_train: None,
            n_test: None,
            models: &models,
            earlier: &[],
            dgp,
            loaded: None,
        };
        let spec = |truth_rows: usize| -> IceSpec {
            serde_saphyr::from_str(&format!("coverage: true\ntruth_rows: {truth_rows}")).unwrap()
        };
        assert!(spec(100).validate(&plan(Some(&dgp))).is_ok());
        assert_eq!(
            spec(100).validate(&plan(None)).unwrap_err().field,
            "coverage"
        );
        let one = serde_json::json!({"coverage": true, "truth_rows": 1});
        let e = xai_core::settings::check_ranges::<IceSpec>(&one).unwrap_err();
        assert_eq!((e.path.as_str(), e.range.as_str()), ("truth_rows", "≥ 2"));
        // The draws are held in memory, sized by `truth_rows`.
        assert_eq!(spec(1000).held_bytes(10, 2), (1000 * 6 * 8, "truth_rows"));
    }

    #[test]
    fn the_pd_is_the_mean_of_the_kept_ice_curves() {
        let dgp: DgpSpec = serde_saphyr::from_str("molnar_nonlinear: {}").unwrap();
        let learner: LearnerSpec =
            serde_saphyr::from_str("random_forest: { n_trees: 20 }").unwrap();
        let mut rng = stream_rng(5, 0);
        let train = dgp.dgp().sample(200, &mut rng).unwrap();
        let test = dgp.dgp().sample(40, &mut rng).unwrap();
        let model = learner.build().fit(&train, &mut rng).unwrap();
        let spec: IceSpec = serde_saphyr::from_str(
            "{ grid: { points: 7, range: min_max }, statistics: [prediction], curves: 40 }",
        )
        .unwrap();
        let input = Input {
            train: &train,
            test: &test,
            all: &train,
            learner: &learner,
            dgp: Some(&dgp),
            model: Some(model.as_ref()),
            earlier: &[],
            level: 0.95,
            seed: 5,
            first: false,
            truth: &[],
            stop: None,
        };
        let out = spec.compute(&input, &mut rng).unwrap();
        let mut compared = 0;
        for v in out.values.iter().filter(|v| v.quantity == "prediction_pd") {
            let curves: Vec<&CurveRow> = out
                .curves
                .iter()
                .filter(|c| c.feature == v.feature)
                .collect();
            assert_eq!(curves.len(), 40, "{}: every row's curve is kept", v.feature);
            let g = curves[0].grid.iter().position(|&x| Some(x) == v.x).unwrap();
            let mean = curves.iter().map(|c| c.values[g]).sum::<f64>() / 40.0;
            assert!(
                (v.estimate.estimate - mean).abs() < 1e-12,
                "{v:?} vs {mean}"
            );
            compared += 1;
        }
        assert_eq!(compared, 7 * test.n_features());
    }
}
