//! L2-penalised logistic regression of a binary target, scikit-learn's
//! `LogisticRegression(C)` objective (molnar2023 §5's heart-disease learner, icefi2022
//! Table 3's).
//!
//! Design: each continuous feature is one column; a categorical feature with levels
//! 0..L−1 is L − 1 indicator columns 1[x = k], k = 1..L−1 (treatment coding with the
//! first level as reference, R's default contrasts; PAPERS.md §2.7's "one-hot for
//! logistic regression"), so the model still takes the integer codes every other
//! learner and every explanation sees. With `standardize` each column is z-scored by
//! its training mean and population sd (scikit-learn's `StandardScaler`).
//!
//! Fit: with z_i the design row, p_i = σ(b + wᵀz_i) and λ = 1/C,
//!
//! F(b, w) = −Σ_i [y_i·log p_i + (1 − y_i)·log(1 − p_i)] + (λ/2)·‖w‖²,
//!
//! scikit-learn's C·Σ loss + ½‖w‖² divided by C (the intercept is not penalised).
//! Minimised by Newton's method: gradient g = Zᵀ(p − y) + λ·w̃, Hessian
//! H = Zᵀ diag(p(1 − p)) Z + λ·Ĩ (w̃, Ĩ: zero in the intercept), step H⁻¹g by a
//! Cholesky solve, halved until F decreases; it stops when max|g| < `tol`·n. F is
//! strictly convex for λ > 0, so Newton converges quadratically to the unique minimum.
//!
//! Written here rather than taken from a crate: smartcore's logistic regression gives
//! no probabilities (smartcore issue #50), and linfa-logistic 0.8 (argmin L-BFGS,
//! gradient tolerance 1e-4, the same objective with `alpha` = 1/C) is built on
//! ndarray 0.16 beside the workspace's 0.17 and stops far from the optimum that
//! Newton reaches in a handful of 918 × 15 solves.

use faer::Mat;
use faer::Side;
use faer::linalg::solvers::Solve;
use ndarray::{Array1, Array2, ArrayView2};
use rand::Rng;
use serde::Deserialize;
use xai_core::{CoreError, Dataset, FeatureKind, Learner, Model, Predictions, Target};

use crate::capabilities::{Capabilities, Coefficients};
use crate::kind::LearnerKind;
use crate::standardize::Standardizer;

/// Settings of `logistic_regression` (all optional in YAML).
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct LogisticParams {
    /// Inverse penalty strength C (scikit-learn's default 1); λ = 1/C.
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub c: f64,
    /// z-score every design column by its training mean and population sd.
    pub standardize: bool,
    /// Newton iterations at most.
    #[schemars(range(min = 1))]
    pub max_iter: usize,
    /// Stop when max|gradient| < tol·n.
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub tol: f64,
}

impl Default for LogisticParams {
    fn default() -> Self {
        Self {
            c: 1.0,
            standardize: true,
            max_iter: 100,
            tol: 1e-10,
        }
    }
}

impl LearnerKind for LogisticParams {
    /// Each setting within the range its field declares
    /// ([`xai_core::settings::check_value`]).
    fn validate(&self) -> Result<(), crate::ParamError> {
        Ok(xai_core::settings::check_value(self)?)
    }

    fn describe(&self) -> &'static str {
        "logistic regression"
    }

    /// Its slopes when every feature is continuous (a categorical feature takes several design columns).
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            trees: false,
            members: false,
            gradients: false,
            coefficients: Coefficients::ContinuousFeatures,
            mean_covariance: false,
            missing_values: false,
            predicts_label: true,
        }
    }

    /// 8·(2nq + 6n + 3q²), q = d + 1 design columns and the intercept; each categorical
    /// feature of L levels adds L − 2 more, not counted here (`fit_memory_bytes`).
    fn fit_memory_bytes(&self, n: u128, d: u128) -> u128 {
        fit_memory_bytes(n, d.saturating_add(1))
    }

    /// 8·(mq + 3m), q as in the fit (`predict_memory_bytes`).
    fn predict_memory_bytes(&self, _n: u128, m: u128, d: u128) -> u128 {
        predict_memory_bytes(m, d.saturating_add(1))
    }

    fn build(&self) -> Box<dyn Learner> {
        Box::new(LogisticLearner(self.clone()))
    }
}

/// Peak bytes of a fit on n rows and q design columns (q ≥ d: categorical features
/// widen it): 8·(2nq + 6n + 3q²): the design and its weighted copy, the probabilities,
/// weights and labels, and the Hessian, its factor and the solve.
pub(crate) fn fit_memory_bytes(n: u128, q: u128) -> u128 {
    crate::memory::bytes(&[&[16, n, q], &[48, n], &[24, q, q]])
}

/// Peak bytes of one predict call on m rows and q design columns: 8·(mq + 3m): the
/// design, the linear predictor and the two class probabilities.
pub(crate) fn predict_memory_bytes(m: u128, q: u128) -> u128 {
    crate::memory::bytes(&[&[8, m, q], &[24, m]])
}

/// The logistic-regression learner.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LogisticLearner(pub LogisticParams);

impl Learner for LogisticLearner {
    fn fit(&self, data: &Dataset, _rng: &mut dyn Rng) -> xai_core::error::Result<Box<dyn Model>> {
        Ok(Box::new(LogisticRegression::fit(data, &self.0)?))
    }
}

/// A fitted logistic regression.
#[derive(Debug, Clone)]
pub struct LogisticRegression {
    kinds: Vec<FeatureKind>,
    columns: Standardizer,
    intercept: f64,
    weights: Array1<f64>,
    iterations: usize,
}

/// The design columns of the rows of `x`: continuous features as they are, a
/// categorical one as indicators of its levels 1..L−1.
fn design(x: ArrayView2<'_, f64>, kinds: &[FeatureKind]) -> Array2<f64> {
    let width: usize = kinds.iter().map(columns_of).sum();
    let mut z = Array2::zeros((x.nrows(), width));
    let mut c = 0;
    for (j, kind) in kinds.iter().enumerate() {
        match kind {
            FeatureKind::Continuous => {
                z.column_mut(c).assign(&x.column(j));
                c += 1;
            }
            FeatureKind::Categorical { levels } => {
                for k in 1..levels.len() {
                    z.column_mut(c)
                        .assign(&x.column(j).mapv(|v| f64::from(u8::from(v == k as f64))));
                    c += 1;
                }
            }
        }
    }
    z
}

fn columns_of(kind: &FeatureKind) -> usize {
    match kind {
        FeatureKind::Continuous => 1,
        FeatureKind::Categorical { levels } => levels.len().saturating_sub(1),
    }
}

/// σ(t) = 1/(1 + e^{−t}), computed without overflow.
fn sigmoid(t: f64) -> f64 {
    if t >= 0.0 {
        1.0 / (1.0 + (-t).exp())
    } else {
        let e = t.exp();
        e / (1.0 + e)
    }
}

/// log(1 + e^t) without overflow.
fn softplus(t: f64) -> f64 {
    t.max(0.0) + (-t.abs()).exp().ln_1p()
}

/// The class labels (0 or 1) of a binary target; an error naming `learner` for a
/// continuous target or more than two classes.
pub(crate) fn binary_labels<'a>(
    data: &'a Dataset,
    learner: &str,
) -> Result<&'a ndarray::Array1<usize>, CoreError> {
    match data.y() {
        Target::Classes {
            labels,
            n_classes: 2,
        } => Ok(labels),
        Target::Classes { n_classes, .. } => Err(CoreError::Fit(format!(
            "{learner} here is binary; the target has {n_classes} classes"
        ))),
        Target::Continuous(_) => Err(CoreError::Fit(format!(
            "{learner} needs class labels; this target is continuous"
        ))),
    }
}

impl LogisticRegression {
    /// Fits by Newton's method (module docs); needs two classes.
    pub fn fit(data: &Dataset, params: &LogisticParams) -> Result<Self, CoreError> {
        params.validate()?;
        let labels = binary_labels(data, "logistic regression")?;
        let kinds = data.feature_kinds().to_vec();
        let raw = design(data.x(), &kinds);
        let columns = Standardizer::fit(raw.view(), params.standardize, 0.0);
        let z = columns.apply(raw.view());
        let y: Vec<f64> = labels
            .iter()
            .map(|&c| f64::from(u8::from(c == 1)))
            .collect();
        let (n, q) = z.dim();
        let lambda = 1.0 / params.c;
        // θ = (b, w); the objective at θ.
        let objective = |theta: &[f64]| -> f64 {
            let w = &theta[1..];
            let loss: f64 = (0..n)
                .map(|i| {
                    let t = theta[0] + z.row(i).iter().zip(w).map(|(a, b)| a * b).sum::<f64>();
                    softplus(t) - y[i] * t
                })
                .sum();
            loss + 0.5 * lambda * w.iter().map(|v| v * v).sum::<f64>()
        };
        let mut theta = vec![0.0; q + 1];
        let mut f = objective(&theta);
        let mut iterations = 0;
        let mut converged = false;
        while iterations < params.max_iter {
            iterations += 1;
            let p: Vec<f64> = (0..n)
                .map(|i| {
                    sigmoid(
                        theta[0]
                            + z.row(i)
                                .iter()
                                .zip(&theta[1..])
                                .map(|(a, b)| a * b)
                                .sum::<f64>(),
                    )
                })
                .collect();
            let mut g = vec![0.0; q + 1];
            let mut h = Mat::<f64>::zeros(q + 1, q + 1);
            for i in 0..n {
                let r = p[i] - y[i];
                let wgt = p[i] * (1.0 - p[i]);
                let row = z.row(i);
                let at = |a: usize| if a == 0 { 1.0 } else { row[a - 1] };
                for a in 0..=q {
                    g[a] += r * at(a);
                    for b in 0..=a {
                        h[(a, b)] += wgt * at(a) * at(b);
                    }
                }
            }
            for a in 1..=q {
                g[a] += lambda * theta[a];
                h[(a, a)] += lambda;
            }
            if g.iter().fold(0.0f64, |m, v| m.max(v.abs())) < params.tol * n as f64 {
                converged = true;
                break;
            }
            for a in 0..=q {
                for b in a + 1..=q {
                    h[(a, b)] = h[(b, a)];
                }
            }
            let llt = h.llt(Side::Lower).map_err(|e| {
                CoreError::Fit(format!(
                    "logistic regression: the Hessian is not positive definite ({e:?}); a \
                     design column may be constant or duplicated with C very large"
                ))
            })?;
            let step = llt.solve(Mat::<f64>::from_fn(q + 1, 1, |a, _| g[a]));
            // Halve the step until F does not rise; a step that cannot lower F even at
            // 1e-10 of its length means θ is the minimum to rounding.
            let mut t = 1.0;
            let accepted = loop {
                let cand: Vec<f64> = (0..=q).map(|a| theta[a] - t * step[(a, 0)]).collect();
                let fc = objective(&cand);
                if fc <= f {
                    theta = cand;
                    f = fc;
                    break true;
                }
                if t < 1e-10 {
                    break false;
                }
                t *= 0.5;
            };
            if !accepted {
                converged = true;
                break;
            }
        }
        if !converged {
            return Err(CoreError::Fit(format!(
                "logistic regression did not converge in max_iter = {} Newton steps (gradient \
                 above tol·n); raise `max_iter` or `tol`, or lower `c` if the classes are \
                 separable",
                params.max_iter
            )));
        }
        Ok(Self {
            kinds,
            columns,
            intercept: theta[0],
            weights: Array1::from(theta[1..].to_vec()),
            iterations,
        })
    }

    /// The intercept and the weights of the (standardised) design columns.
    pub fn coefficients(&self) -> (f64, &Array1<f64>) {
        (self.intercept, &self.weights)
    }

    /// Newton iterations the fit took.
    pub fn iterations(&self) -> usize {
        self.iterations
    }

    /// P(class 1 | x) of each row.
    pub fn probability(&self, x: ArrayView2<'_, f64>) -> Array1<f64> {
        let z = self.columns.apply(design(x, &self.kinds).view());
        z.dot(&self.weights).mapv(|t| sigmoid(t + self.intercept))
    }
}

impl Model for LogisticRegression {
    fn predict(&self, x: ArrayView2<'_, f64>) -> xai_core::error::Result<Predictions> {
        Ok(Predictions::binary(self.probability(x)))
    }

    /// w_j / s_j, the weight of feature j in its own units (s_j its training sd when
    /// standardised); `None` with a categorical feature (several design columns).
    fn coefficients(&self) -> Option<Vec<f64>> {
        if self
            .kinds
            .iter()
            .any(|k| matches!(k, FeatureKind::Categorical { .. }))
        {
            return None;
        }
        Some(self.columns.in_own_units(&self.weights))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    fn classes(labels: Vec<usize>) -> Target {
        Target::Classes {
            labels: Array1::from(labels),
            n_classes: 2,
        }
    }

    #[test]
    fn unpenalised_a_saturated_model_reproduces_the_group_frequencies() {
        // One categorical feature with three levels: intercept + two indicators is
        // saturated, so the MLE's probability in each level is its share of class 1.
        let x = array![
            [0.],
            [0.],
            [0.],
            [0.],
            [1.],
            [1.],
            [1.],
            [2.],
            [2.],
            [2.],
            [2.],
            [2.]
        ];
        let y = classes(vec![1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0]);
        let kinds = vec![FeatureKind::Categorical {
            levels: vec!["a".into(), "b".into(), "c".into()],
        }];
        let data = Dataset::with_kinds(x, y, vec!["g".into()], kinds).unwrap();
        let params = LogisticParams {
            c: 1e12,
            ..Default::default()
        };
        let m = LogisticRegression::fit(&data, &params).unwrap();
        let p = m.probability(array![[0.], [1.], [2.]].view());
        for (got, want) in p.iter().zip([0.25, 2.0 / 3.0, 0.8]) {
            assert!((got - want).abs() < 1e-8, "{p}");
        }
        assert!(m.iterations() < 30);
    }

    #[test]
    fn the_fit_is_stationary_and_a_strong_penalty_shrinks_towards_the_base_rate() {
        let x = array![
            [0.1, 2.0],
            [0.5, 1.0],
            [0.9, 0.5],
            [0.3, 3.0],
            [0.7, 0.1],
            [0.2, 1.5],
            [0.8, 2.5]
        ];
        let y = classes(vec![0, 1, 1, 0, 1, 0, 0]);
        let data = Dataset::new(x.clone(), y, vec!["a".into(), "b".into()]).unwrap();
        let m = LogisticRegression::fit(&data, &LogisticParams::default()).unwrap();
        // Stationarity of F at the fit: Zᵀ(p − y) + λw = 0 on the standardised design.
        let z = m.columns.apply(x.view());
        let p = m.probability(x.view());
        let yv = array![0., 1., 1., 0., 1., 0., 0.];
        let r = &p - &yv;
        assert!(r.sum().abs() < 1e-9);
        let g = z.t().dot(&r) + &m.weights;
        assert!(g.iter().all(|v| v.abs() < 1e-9), "{g}");
        let strong = LogisticParams {
            c: 1e-9,
            ..Default::default()
        };
        let m = LogisticRegression::fit(&data, &strong).unwrap();
        assert!(
            m.probability(x.view())
                .iter()
                .all(|p| (p - 3.0 / 7.0).abs() < 1e-6)
        );
    }

    #[test]
    fn refuses_three_classes() {
        let data = Dataset::new(
            array![[0.], [1.], [2.]],
            Target::Classes {
                labels: array![0, 1, 2],
                n_classes: 3,
            },
            vec!["a".into()],
        )
        .unwrap();
        let e = LogisticRegression::fit(&data, &LogisticParams::default()).unwrap_err();
        assert!(e.to_string().contains("3 classes"), "{e}");
    }
}
