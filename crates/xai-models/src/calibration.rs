//! Probability calibration and the cross-fitted calibrated forest of wood2024
//! (PAPERS.md §1.2), built the way scikit-learn's `CalibratedClassifierCV` does it:
//! k stratified folds (contiguous blocks per class, no shuffling); on each fold a forest
//! is fitted to the other k − 1 folds and a calibrator to its own held-out predictions;
//! the prediction is the mean of the k calibrated models' probabilities.
//!
//! - Sigmoid (Platt 1999): q = 1/(1 + exp(a·p + b)) with (a, b) minimising the
//!   log-loss against Platt's smoothed targets T₊ = (N₊ + 1)/(N₊ + 2),
//!   T₋ = 1/(N₋ + 2).
//! - Isotonic: the non-decreasing least-squares fit of y on p (pool adjacent
//!   violators), linearly interpolated between fitted points and clipped outside.
//!
//! Binary models calibrate P(class 1) and set P(class 0) = 1 − P(class 1); with k > 2
//! classes each class is calibrated one-vs-rest and the k values are renormalised.

use ndarray::{Array2, ArrayView2};
use rand::Rng;
use serde::Deserialize;
use xai_core::{CoreError, Dataset, Learner, Model, Predictions, Target};

use crate::capabilities::Capabilities;
use crate::cart::Response;
use crate::error::ParamError;
use crate::forest::{Forest, ForestLearner, ForestParams};
use crate::kind::LearnerKind;
use crate::optim::{LbfgsOptions, minimize_box};

/// How probabilities are calibrated.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum CalibrationMethod {
    /// Platt scaling.
    Sigmoid,
    /// Isotonic regression.
    Isotonic,
}

/// Settings of the calibrated forest.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct CalibratedParams {
    /// The random forest fitted on each fold.
    pub forest: ForestParams,
    /// Calibration method (wood2024 proposal: sigmoid).
    pub method: CalibrationMethod,
    /// Number k of cross-fitting folds (≥ 2).
    #[schemars(range(min = 2))]
    pub folds: usize,
}

impl Default for CalibratedParams {
    fn default() -> Self {
        Self {
            forest: ForestParams::default(),
            method: CalibrationMethod::Sigmoid,
            folds: 5,
        }
    }
}

impl LearnerKind for CalibratedParams {
    /// Each setting within the range its field declares, the `forest` block's too
    /// (`forest.n_trees`; [`xai_core::settings::check_value`]).
    fn validate(&self) -> Result<(), ParamError> {
        Ok(xai_core::settings::check_value(self)?)
    }

    fn describe(&self) -> &'static str {
        "calibrated random forest"
    }

    /// [`Capabilities::PREDICTIONS_ONLY`].
    fn capabilities(&self) -> Capabilities {
        Capabilities::PREDICTIONS_ONLY
    }

    /// Peak bytes of [`CalibratedForestLearner::fit_calibrated`] on n rows and d
    /// features, k = `folds`, n_t = n − ⌊n/k⌋ training and n_h = ⌈n/k⌉ held-out rows
    /// per fold, o = `crate::forest::ESTIMATE_OUTPUTS`:
    /// 24n + n_t·(8d + 16) + W(n_t) + n_h·(8d + 8o + 136) + k·T·B(n_t):
    /// the labels, fold ids and row lists; the training rows' copy and labels; the
    /// forest's working bytes W (`ForestParams::grow_memory_bytes`); the held-out
    /// rows' copy, their raw probabilities and the calibrator's column, outcomes, sort
    /// order, blocks and pools; the k fitted forests of T trees of B bytes
    /// (`ForestParams::tree_bytes`). Folds run one after another; their forests stay.
    fn fit_memory_bytes(&self, n: u128, d: u128) -> u128 {
        let k = self.folds.max(1) as u128;
        let (train, held) = (n - n / k, n.div_ceil(k));
        let outputs = crate::forest::ESTIMATE_OUTPUTS;
        crate::memory::bytes(&[
            &[24, n],
            &[train, 8, d],
            &[train, 16],
            &[self.forest.grow_memory_bytes(train, d)],
            &[held, 8, d],
            &[held, 8, outputs],
            &[held, 136],
            &[
                k,
                self.forest.n_trees as u128,
                self.forest.tree_bytes(train, outputs),
            ],
        ])
    }

    /// `predict_memory_bytes`.
    fn predict_memory_bytes(&self, _n: u128, m: u128, d: u128) -> u128 {
        predict_memory_bytes(m, d)
    }

    fn build(&self) -> Box<dyn Learner> {
        Box::new(CalibratedForestLearner(self.clone()))
    }
}

/// Peak bytes one [`CalibratedForest::predict_proba`] on m rows and d features
/// allocates: one member's raw leaf means ([`crate::forest::predict_memory_bytes`],
/// members run one after another) + 16mc (the sum over members and its mean, c = o
/// classes).
pub(crate) fn predict_memory_bytes(m: u128, d: u128) -> u128 {
    crate::memory::bytes(&[
        &[crate::forest::predict_memory_bytes(m, d)],
        &[16, m, crate::forest::ESTIMATE_OUTPUTS],
    ])
}

/// A fitted calibration map from a raw probability to a calibrated one.
#[derive(Debug, Clone, PartialEq)]
pub enum Calibrator {
    /// q = 1/(1 + exp(a·p + b)).
    Sigmoid {
        /// Slope (negative for an informative p).
        a: f64,
        /// Intercept.
        b: f64,
    },
    /// Piecewise-linear through the knots, constant outside them.
    Isotonic {
        /// Increasing knot positions.
        x: Vec<f64>,
        /// Non-decreasing knot values.
        y: Vec<f64>,
    },
}

fn softplus(z: f64) -> f64 {
    z.max(0.0) + (-z.abs()).exp().ln_1p()
}

impl Calibrator {
    /// Fits the calibrator to raw probabilities `p` and binary outcomes `y`.
    pub fn fit(method: CalibrationMethod, p: &[f64], y: &[bool]) -> Self {
        match method {
            CalibrationMethod::Sigmoid => platt(p, y),
            CalibrationMethod::Isotonic => isotonic(p, y),
        }
    }

    /// The calibrated probability of raw probability `p`.
    pub fn apply(&self, p: f64) -> f64 {
        match self {
            Calibrator::Sigmoid { a, b } => 1.0 / (1.0 + (a * p + b).exp()),
            Calibrator::Isotonic { x, y } => xai_core::interpolate(x, y, p),
        }
    }
}

fn platt(p: &[f64], y: &[bool]) -> Calibrator {
    let pos = y.iter().filter(|&&v| v).count() as f64;
    let neg = y.len() as f64 - pos;
    let (t_pos, t_neg) = ((pos + 1.0) / (pos + 2.0), 1.0 / (neg + 2.0));
    let targets: Vec<f64> = y.iter().map(|&v| if v { t_pos } else { t_neg }).collect();
    // L = Σ T·softplus(z) + (1 − T)·softplus(−z), z = a·p + b; ∂L/∂z = T − q.
    let objective = |ab: &[f64]| {
        let (mut loss, mut ga, mut gb) = (0.0, 0.0, 0.0);
        for (&pi, &t) in p.iter().zip(&targets) {
            let z = ab[0] * pi + ab[1];
            loss += t * softplus(z) + (1.0 - t) * softplus(-z);
            let q = 1.0 / (1.0 + z.exp());
            ga += (t - q) * pi;
            gb += t - q;
        }
        Some((loss, vec![ga, gb]))
    };
    let start = [0.0, ((neg + 1.0) / (pos + 1.0)).ln()];
    let opts = LbfgsOptions {
        gtol: 1e-9,
        ftol: 1e-14,
        ..Default::default()
    };
    let m = minimize_box(objective, &start, &[-1e6; 2], &[1e6; 2], opts)
        .expect("the Platt objective is finite everywhere");
    Calibrator::Sigmoid {
        a: m.x[0],
        b: m.x[1],
    }
}

fn isotonic(p: &[f64], y: &[bool]) -> Calibrator {
    let mut idx: Vec<usize> = (0..p.len()).collect();
    idx.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    // Blocks (x, mean y, weight); equal x merged first, then adjacent violators pooled.
    let mut blocks: Vec<(f64, f64, f64)> = Vec::new();
    for &i in &idx {
        let v = if y[i] { 1.0 } else { 0.0 };
        match blocks.last_mut() {
            Some(b) if b.0 == p[i] => {
                b.1 = (b.1 * b.2 + v) / (b.2 + 1.0);
                b.2 += 1.0;
            }
            _ => blocks.push((p[i], v, 1.0)),
        }
    }
    let xs: Vec<f64> = blocks.iter().map(|b| b.0).collect();
    // Pool adjacent violators over (mean, weight, number of x's in the pool).
    let mut pools: Vec<(f64, f64, usize)> = Vec::new();
    for b in &blocks {
        pools.push((b.1, b.2, 1));
        while pools.len() > 1 && pools[pools.len() - 2].0 > pools[pools.len() - 1].0 {
            let (m2, w2, c2) = pools.pop().expect("two pools");
            let last = pools.last_mut().expect("two pools");
            last.0 = (last.0 * last.1 + m2 * w2) / (last.1 + w2);
            last.1 += w2;
            last.2 += c2;
        }
    }
    let ys: Vec<f64> = pools
        .iter()
        .flat_map(|&(m, _, c)| std::iter::repeat_n(m, c))
        .collect();
    Calibrator::Isotonic { x: xs, y: ys }
}

/// Fold (0..k) of every row as scikit-learn's `StratifiedKFold(k)` without shuffling
/// assigns it (scikit-learn 1.9.1 `sklearn/model_selection/_split.py`,
/// `_make_test_folds`): the classes are ranked by their first appearance in `labels`;
/// fold i holds, of class c, as many rows as there are positions p ≡ i (mod k) in
/// class c's block of the labels sorted by that rank (a round robin over the sorted
/// labels), and within each class the rows go to the folds in contiguous blocks in row
/// order (fold 0 first). `k` ≥ 1 (the learner validates `folds` ≥ 2).
pub(crate) fn stratified_folds(labels: &[usize], n_classes: usize, k: usize) -> Vec<usize> {
    let mut counts = vec![0; n_classes];
    let mut by_appearance = Vec::with_capacity(n_classes);
    for &c in labels {
        if counts[c] == 0 {
            by_appearance.push(c);
        }
        counts[c] += 1;
    }
    let mut allocation = vec![vec![0; n_classes]; k.max(1)];
    let mut position = 0;
    for &c in &by_appearance {
        for _ in 0..counts[c] {
            allocation[position % k.max(1)][c] += 1;
            position += 1;
        }
    }
    let (mut fold, mut used) = (vec![0; n_classes], vec![0; n_classes]);
    labels
        .iter()
        .map(|&c| {
            while used[c] == allocation[fold[c]][c] {
                fold[c] += 1;
                used[c] = 0;
            }
            used[c] += 1;
            fold[c]
        })
        .collect()
}

/// The calibrated-forest learner.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CalibratedForestLearner(pub CalibratedParams);

/// k forests, each with one calibrator per class (one in total when binary).
#[derive(Debug, Clone, PartialEq)]
pub struct CalibratedForest {
    members: Vec<(Forest, Vec<Calibrator>)>,
    n_classes: usize,
}

impl Learner for CalibratedForestLearner {
    fn fit(&self, data: &Dataset, rng: &mut dyn Rng) -> xai_core::error::Result<Box<dyn Model>> {
        Ok(Box::new(self.fit_calibrated(data, rng.next_u64())?))
    }
}

impl CalibratedForestLearner {
    /// Cross-fits the k calibrated forests; fold f's forest draws from seed
    /// `seed + f` (each forest's trees from their own streams).
    pub fn fit_calibrated(
        &self,
        data: &Dataset,
        seed: u64,
    ) -> xai_core::error::Result<CalibratedForest> {
        let p = &self.0;
        p.validate()?;
        let Target::Classes { labels, n_classes } = data.y() else {
            return Err(CoreError::Fit(
                "the calibrated forest is a classifier; the target is continuous".into(),
            ));
        };
        let labels = labels.to_vec();
        let folds = stratified_folds(&labels, *n_classes, p.folds);
        let learner = ForestLearner {
            params: p.forest.clone(),
            random_thresholds: false,
        };
        let mut members = Vec::with_capacity(p.folds);
        for f in 0..p.folds {
            let train: Vec<usize> = (0..labels.len()).filter(|&i| folds[i] != f).collect();
            let held: Vec<usize> = (0..labels.len()).filter(|&i| folds[i] == f).collect();
            if held.is_empty() || train.is_empty() {
                return Err(CoreError::Fit(format!(
                    "fold {f} of {} is empty: use fewer folds",
                    p.folds
                )));
            }
            let tr = data.select_rows(&train);
            let tr_labels: Vec<usize> = train.iter().map(|&i| labels[i]).collect();
            let forest = learner.fit_forest(
                tr.x(),
                Response::Classes(&tr_labels, *n_classes),
                seed.wrapping_add(f as u64),
            );
            let raw = forest.leaf_means(data.select_rows(&held).x());
            let classes: Vec<usize> = if *n_classes == 2 {
                vec![1]
            } else {
                (0..*n_classes).collect()
            };
            let calibrators = classes
                .iter()
                .map(|&c| {
                    let y: Vec<bool> = held.iter().map(|&i| labels[i] == c).collect();
                    Calibrator::fit(p.method, &raw.column(c).to_vec(), &y)
                })
                .collect();
            members.push((forest, calibrators));
        }
        Ok(CalibratedForest {
            members,
            n_classes: *n_classes,
        })
    }
}

impl CalibratedForest {
    /// Calibrated class probabilities (n × k), the mean over the k fold models.
    pub fn predict_proba(&self, x: ArrayView2<'_, f64>) -> Array2<f64> {
        let k = self.n_classes;
        let mut acc = Array2::<f64>::zeros((x.nrows(), k));
        for (forest, cals) in &self.members {
            let raw = forest.leaf_means(x);
            for (i, row) in raw.rows().into_iter().enumerate() {
                if k == 2 {
                    let q = cals[0].apply(row[1]);
                    acc[[i, 0]] += 1.0 - q;
                    acc[[i, 1]] += q;
                } else {
                    let q: Vec<f64> = cals
                        .iter()
                        .zip(row.iter())
                        .map(|(c, &v)| c.apply(v))
                        .collect();
                    let s: f64 = q.iter().sum();
                    for c in 0..k {
                        acc[[i, c]] += if s > 0.0 { q[c] / s } else { 1.0 / k as f64 };
                    }
                }
            }
        }
        acc / self.members.len() as f64
    }
}

impl Model for CalibratedForest {
    fn predict(&self, x: ArrayView2<'_, f64>) -> xai_core::error::Result<Predictions> {
        Ok(Predictions::Probabilities(self.predict_proba(x)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array2;
    use rand::RngExt;
    use xai_core::rng::stream_rng;

    #[test]
    fn isotonic_pools_adjacent_violators() {
        let c = isotonic(&[0.1, 0.2, 0.3, 0.4], &[false, true, false, true]);
        assert_eq!(
            c,
            Calibrator::Isotonic {
                x: vec![0.1, 0.2, 0.3, 0.4],
                y: vec![0.0, 0.5, 0.5, 1.0]
            }
        );
        assert_eq!(c.apply(0.0), 0.0);
        assert_eq!(c.apply(0.25), 0.5);
        assert!((c.apply(0.35) - 0.75).abs() < 1e-15);
        assert_eq!(c.apply(0.9), 1.0);
    }

    #[test]
    fn platt_recovers_the_generating_sigmoid() {
        let mut rng = stream_rng(2, 0);
        let (a, b) = (-6.0, 3.0);
        let p: Vec<f64> = (0..20_000).map(|_| rng.random::<f64>()).collect();
        let y: Vec<bool> = p
            .iter()
            .map(|&v| rng.random::<f64>() < 1.0 / (1.0 + (a * v + b).exp()))
            .collect();
        let Calibrator::Sigmoid { a: fa, b: fb } = platt(&p, &y) else {
            unreachable!()
        };
        // MC sd of (â, b̂) at n = 20,000 is about 0.1 and 0.05.
        assert!(
            (fa - a).abs() < 0.4 && (fb - b).abs() < 0.2,
            "a {fa}, b {fb}"
        );
    }

    #[test]
    fn folds_are_scikit_learns_stratified_blocks() {
        let labels = [0, 0, 1, 0, 1, 0, 1, 1];
        assert_eq!(
            stratified_folds(&labels, 2, 2),
            vec![0, 0, 0, 1, 0, 1, 1, 1]
        );
        // scikit-learn 1.9.1's StratifiedKFold(3) on these labels.
        let labels = [0, 0, 1, 0, 1, 0, 1, 1, 2, 2, 2, 1, 0];
        let sklearn = vec![0, 0, 0, 1, 0, 1, 1, 2, 0, 1, 2, 2, 2];
        assert_eq!(stratified_folds(&labels, 3, 3), sklearn);
        // Classes are ranked by first appearance, not by index (the first row here is
        // class 1; ranked by index, the folds would be 0, 0, 0, 1, 2, 1, 1, 2).
        let labels = [1, 0, 0, 0, 0, 1, 1, 1];
        assert_eq!(
            stratified_folds(&labels, 2, 3),
            vec![0, 0, 1, 1, 2, 0, 1, 2]
        );
        let labels = [2, 0, 1, 1, 2, 0, 0, 1, 2, 2, 1, 0, 0];
        let sklearn = vec![0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2];
        assert_eq!(stratified_folds(&labels, 3, 3), sklearn);
        // 500 and 268 rows (pima's classes), 5 folds: scikit-learn gives class 1
        // 54, 54, 54, 53, 53 rows (a rule of equal blocks, ⌊5j/268⌋, gives 54, 54,
        // 53, 54, 53).
        let labels: Vec<usize> = (0..768).map(|i| usize::from(i >= 500)).collect();
        let folds = stratified_folds(&labels, 2, 5);
        let per_fold = |c: usize| -> Vec<usize> {
            (0..5)
                .map(|f| {
                    (0..768)
                        .filter(|&i| labels[i] == c && folds[i] == f)
                        .count()
                })
                .collect()
        };
        assert_eq!(per_fold(1), vec![54, 54, 54, 53, 53]);
        assert_eq!(per_fold(0), vec![100; 5]);
    }

    #[test]
    fn calibrated_probabilities_are_valid_for_two_and_three_classes() {
        let mut rng = stream_rng(4, 0);
        let x = Array2::from_shape_fn((300, 3), |_| rng.random::<f64>());
        for (k, method) in [
            (2, CalibrationMethod::Sigmoid),
            (3, CalibrationMethod::Isotonic),
            (3, CalibrationMethod::Sigmoid),
        ] {
            let labels: Vec<usize> = x
                .rows()
                .into_iter()
                .map(|r| ((r[0] * k as f64) as usize + usize::from(rng.random::<f64>() < 0.2)) % k)
                .collect();
            let names = vec!["a".into(), "b".into(), "c".into()];
            let data = Dataset::new(
                x.clone(),
                Target::Classes {
                    labels: labels.into(),
                    n_classes: k,
                },
                names,
            )
            .unwrap();
            let learner = CalibratedForestLearner(CalibratedParams {
                forest: ForestParams {
                    n_trees: 10,
                    ..Default::default()
                },
                method,
                folds: 3,
            });
            let p = learner
                .fit_calibrated(&data, 1)
                .unwrap()
                .predict_proba(x.view());
            for row in p.rows() {
                assert!(row.iter().all(|&v| (0.0..=1.0).contains(&v)), "{row}");
                assert!((row.sum() - 1.0).abs() < 1e-12, "{row}");
            }
        }
    }

    #[test]
    fn invalid_settings_name_the_parameter() {
        let e = CalibratedParams {
            folds: 1,
            ..Default::default()
        }
        .validate()
        .unwrap_err();
        assert_eq!(e.param(), "folds");
        // A bad setting of the nested forest names the block and the setting.
        let e = CalibratedParams {
            forest: ForestParams {
                n_trees: 0,
                ..Default::default()
            },
            ..Default::default()
        }
        .validate()
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "`forest.n_trees` = 0 is invalid: must be ≥ 1"
        );
    }
}
