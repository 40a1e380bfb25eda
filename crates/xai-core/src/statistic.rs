//! The statistic axis: what is read off each row's predictive distribution.

use std::f64::consts::PI;

use ndarray::{Array1, Zip};
use serde::Deserialize;

use crate::dataset::Target;
use crate::error::{CoreError, Result};
use crate::predictions::Predictions;

/// Smallest probability used inside a logarithm, as scikit-learn's `log_loss` clips.
pub const PROB_FLOOR: f64 = 1e-15;

/// A per-row statistic s(q(· | x⁽ⁱ⁾), y⁽ⁱ⁾) of a predictive distribution.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Statistic {
    /// The prediction: the mean for point and Gaussian predictions, P(class 1) for
    /// binary class probabilities (PD/ICE of wood2024 Eq. 3–4; molnar2023 Eq. 1).
    Prediction,
    /// Squared error (y − μ)² (the L2 loss of molnar2023 Eq. 3).
    SquaredError,
    /// Negative log-likelihood −log q(y | x): Gaussian ½·log(2πσ²) + (y − μ)²/(2σ²),
    /// categorical −log q(y) (wood2024 Eq. 5, Likelihood-PDP/ICE).
    Nll,
    /// Entropy of q(· | x): Gaussian ½ + ½·log(2πσ²), categorical −Σ_c q(c)·log q(c)
    /// (wood2024 §3.2, Eq. 8–10). Needs no label.
    Entropy,
    /// Squared error over the variance of y in the rows scored, (y − μ)²/Var(y)
    /// (Var with divisor n): its mean is 1 − R², so its PFI is the drop in R², the
    /// score scikit-learn's permutation importance reports for regressors (cid2021).
    R2Loss,
    /// Misclassification 1[argmax_c q(c) ≠ y] (ties to the lowest class): its mean is
    /// 1 − accuracy, so its PFI is the drop in accuracy (cid2021, classifiers).
    Misclassification,
    /// Brier score of a binary classifier, (1[y = 1] − q(1))² (mlr3's `classif.bbrier`;
    /// molnar2023 §5 selects its heart-disease model by it and PAPERS.md §2.7 proposes
    /// it as the PFI loss).
    Brier,
    /// What watson2023's code computes as the entropy of the shifted rows' binary
    /// probabilities, −(p·log p + p·log(1 − p)) with p = q(1): the binary entropy
    /// −p·log p − (1 − p)·log(1 − p) with its second p mistyped (PAPERS.md §4.6),
    /// unclipped as the code computes it: infinite at p = 1, which [`Statistic::per_row`]
    /// refuses as a non-finite value naming the row. Not an entropy; kept to run that
    /// code's Fig. 2 variant. Needs no label.
    CodeEntropy,
}

impl Statistic {
    /// Every statistic, in declaration order (what a quantity's name may start with).
    pub const ALL: [Statistic; 8] = [
        Statistic::Prediction,
        Statistic::SquaredError,
        Statistic::Nll,
        Statistic::Entropy,
        Statistic::R2Loss,
        Statistic::Misclassification,
        Statistic::Brier,
        Statistic::CodeEntropy,
    ];

    /// The name used to build quantity names (`<name>_<aggregation>`, e.g.
    /// `likelihood_pfi`, `entropy_ice`).
    pub fn quantity_prefix(self) -> &'static str {
        match self {
            Statistic::Prediction => "prediction",
            Statistic::SquaredError => "loss",
            Statistic::Nll => "likelihood",
            Statistic::Entropy => "entropy",
            Statistic::R2Loss => "r2",
            Statistic::Misclassification => "accuracy",
            Statistic::Brier => "brier",
            Statistic::CodeEntropy => "code_entropy",
        }
    }

    /// Whether it compares the prediction with the row's label (a loss, a score),
    /// rather than reading the prediction alone.
    pub fn needs_label(self) -> bool {
        match self {
            Statistic::Prediction | Statistic::Entropy | Statistic::CodeEntropy => false,
            Statistic::SquaredError
            | Statistic::Nll
            | Statistic::R2Loss
            | Statistic::Misclassification
            | Statistic::Brier => true,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Statistic::Prediction => "prediction",
            Statistic::SquaredError => "squared_error",
            Statistic::Nll => "nll",
            Statistic::Entropy => "entropy",
            Statistic::R2Loss => "r2_loss",
            Statistic::Misclassification => "misclassification",
            Statistic::Brier => "brier",
            Statistic::CodeEntropy => "code_entropy",
        }
    }

    /// The statistic of every row of `pred`; `y` holds the labels of the same rows
    /// (ignored by label-free statistics). A NaN or infinite value (e.g. from a
    /// non-finite prediction) is an error naming its row.
    pub fn per_row(self, pred: &Predictions, y: &Target) -> Result<Array1<f64>> {
        let values = self.values(pred, y)?;
        match values.iter().position(|v| !v.is_finite()) {
            Some(row) => Err(CoreError::NonFinite {
                what: "statistic of the predictions",
                row,
                column: 0,
                value: values[row],
            }),
            None => Ok(values),
        }
    }

    fn values(self, pred: &Predictions, y: &Target) -> Result<Array1<f64>> {
        if pred.len() != y.len() {
            return Err(CoreError::Shape(format!(
                "{} predictions but {} target values",
                pred.len(),
                y.len()
            )));
        }
        let unsupported = |hint| CoreError::Unsupported {
            statistic: self.name(),
            predictions: pred.kind(),
            hint,
        };
        match (self, pred, y) {
            (Statistic::Prediction, Predictions::Point(m), _)
            | (Statistic::Prediction, Predictions::Gaussian { mean: m, .. }, _) => Ok(m.clone()),
            (Statistic::Prediction, Predictions::Probabilities(p), _) if p.ncols() == 2 => {
                Ok(p.column(1).to_owned())
            }
            (Statistic::Prediction, Predictions::Probabilities(_), _) => Err(unsupported(
                "the prediction of a multi-class model is not one number; explain one class's probability",
            )),
            (Statistic::SquaredError, Predictions::Point(m), Target::Continuous(y))
            | (
                Statistic::SquaredError,
                Predictions::Gaussian { mean: m, .. },
                Target::Continuous(y),
            ) => Ok(Zip::from(m).and(y).map_collect(|&m, &y| (y - m).powi(2))),
            (Statistic::R2Loss, Predictions::Point(m), Target::Continuous(y))
            | (Statistic::R2Loss, Predictions::Gaussian { mean: m, .. }, Target::Continuous(y)) => {
                let var = y.var(0.0);
                if var.is_nan() || var <= 0.0 {
                    return Err(CoreError::Invalid(
                        "r2_loss needs a target that varies over the rows scored".into(),
                    ));
                }
                Ok(Zip::from(m)
                    .and(y)
                    .map_collect(|&m, &y| (y - m).powi(2) / var))
            }
            (
                Statistic::Misclassification,
                Predictions::Probabilities(p),
                Target::Classes { labels, .. },
            ) => Ok(Array1::from_iter(p.rows().into_iter().zip(labels).map(
                |(q, &c)| {
                    let best = (0..q.len()).fold(0, |b, k| if q[k] > q[b] { k } else { b });
                    f64::from(u8::from(best != c))
                },
            ))),
            (Statistic::Brier, Predictions::Probabilities(p), Target::Classes { labels, .. })
                if p.ncols() == 2 =>
            {
                Ok(Array1::from_iter(p.column(1).iter().zip(labels).map(
                    |(&q, &c)| {
                        let y = if c == 1 { 1.0 } else { 0.0 };
                        (y - q).powi(2)
                    },
                )))
            }
            (Statistic::Brier, _, _) => Err(unsupported(
                "the Brier score here is binary: it needs a two-class classifier's probabilities",
            )),
            (Statistic::Nll, Predictions::Gaussian { mean, var }, Target::Continuous(y)) => {
                Ok(Zip::from(mean)
                    .and(var)
                    .and(y)
                    .map_collect(|&m, &v, &y| gaussian_nll(m, v, y)))
            }
            (Statistic::Nll, Predictions::Probabilities(p), Target::Classes { labels, .. }) => {
                Ok(Array1::from_iter(
                    labels
                        .iter()
                        .enumerate()
                        .map(|(i, &c)| -p[[i, c]].max(PROB_FLOOR).ln()),
                ))
            }
            (Statistic::Entropy, Predictions::Gaussian { var, .. }, _) => {
                Ok(var.mapv(gaussian_entropy))
            }
            (Statistic::Entropy, Predictions::Probabilities(p), _) => Ok(Array1::from_iter(
                p.rows()
                    .into_iter()
                    .map(|q| categorical_entropy(q.iter().copied())),
            )),
            (Statistic::CodeEntropy, Predictions::Probabilities(p), _) if p.ncols() == 2 => {
                let xlogy = |x: f64, y: f64| if x > 0.0 { x * y.ln() } else { 0.0 };
                Ok(p.column(1).mapv(|q| -(xlogy(q, q) + xlogy(q, 1.0 - q))))
            }
            (Statistic::CodeEntropy, _, _) => Err(unsupported(
                "code_entropy reads a binary classifier's class probabilities",
            )),
            (Statistic::Nll | Statistic::Entropy, Predictions::Point(_), _) => Err(unsupported(
                "use a model with a predictive distribution (Gaussian or class probabilities)",
            )),
            (
                Statistic::Misclassification,
                Predictions::Point(_) | Predictions::Gaussian { .. },
                _,
            ) => Err(unsupported(
                "misclassification needs a classifier's class probabilities",
            )),
            _ => Err(unsupported(
                "the target kind does not match the predictions (regression vs classification)",
            )),
        }
    }
}

/// −log N(y; μ, σ²) = ½·log(2πσ²) + (y − μ)²/(2σ²).
pub fn gaussian_nll(mean: f64, var: f64, y: f64) -> f64 {
    0.5 * (2.0 * PI * var).ln() + (y - mean).powi(2) / (2.0 * var)
}

/// Differential entropy of N(μ, σ²): ½ + ½·log(2πσ²) (nats; negative for small σ²).
pub fn gaussian_entropy(var: f64) -> f64 {
    0.5 + 0.5 * (2.0 * PI * var).ln()
}

/// Shannon entropy −Σ_c q(c)·log q(c) of class probabilities (0·log 0 = 0).
pub fn categorical_entropy(q: impl Iterator<Item = f64>) -> f64 {
    -q.filter(|&p| p > 0.0).map(|p| p * p.ln()).sum::<f64>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn gaussian_entropy_is_half_plus_half_log_two_pi_var() {
        for var in [0.01, 0.5, 1.0, 2.0, 37.0] {
            let expected = 0.5 + 0.5 * (2.0 * PI * var).ln();
            assert!((gaussian_entropy(var) - expected).abs() < 1e-15);
        }
        // Entropy of N(0,1) in nats is 1.4189385332046727.
        assert!((gaussian_entropy(1.0) - 1.418_938_533_204_672_7).abs() < 1e-15);
    }

    #[test]
    fn gaussian_nll_matches_the_density() {
        let (m, v, y) = (1.0, 4.0, 2.5_f64);
        let density = (-(y - m).powi(2) / (2.0 * v)).exp() / (2.0 * PI * v).sqrt();
        assert!((gaussian_nll(m, v, y) + density.ln()).abs() < 1e-14);
    }

    #[test]
    fn categorical_statistics() {
        let p = Predictions::Probabilities(array![[0.5, 0.5], [1.0, 0.0], [0.25, 0.75]]);
        let y = Target::Classes {
            labels: array![0, 0, 1],
            n_classes: 2,
        };
        let h = Statistic::Entropy.per_row(&p, &y).unwrap();
        assert!((h[0] - 2f64.ln()).abs() < 1e-15);
        assert_eq!(h[1], 0.0);
        // watson2023's code's formula: the entropy at p = ½ and at p = 0, not elsewhere:
        // p = ¾ gives −(¾·log ¾ + ¾·log ¼) = 1.2555 against the entropy's 0.5623.
        let c = Statistic::CodeEntropy.per_row(&p, &y).unwrap();
        assert!((c[0] - 2f64.ln()).abs() < 1e-15 && c[1] == 0.0);
        assert!((c[2] + 0.75 * (0.75f64.ln() + 0.25f64.ln())).abs() < 1e-15);
        assert!((c[2] - h[2]).abs() > 0.5);
        // At p = 1 the code's formula is infinite: an error naming the row.
        let sure = Predictions::Probabilities(array![[0.0, 1.0]]);
        let one = Target::Classes {
            labels: array![1],
            n_classes: 2,
        };
        assert!(matches!(
            Statistic::CodeEntropy.per_row(&sure, &one),
            Err(CoreError::NonFinite { row: 0, .. })
        ));
        let nll = Statistic::Nll.per_row(&p, &y).unwrap();
        assert!((nll[0] - 2f64.ln()).abs() < 1e-15);
        assert_eq!(nll[1], 0.0);
        assert!((nll[2] + 0.75f64.ln()).abs() < 1e-15);
        let pr = Statistic::Prediction.per_row(&p, &y).unwrap();
        assert_eq!(pr.to_vec(), vec![0.5, 0.0, 0.75]);
    }

    #[test]
    fn score_drops_average_to_one_minus_r2_and_one_minus_accuracy() {
        let y = Target::Continuous(array![1.0, 2.0, 3.0, 6.0]);
        let mu = Predictions::Point(array![1.5, 2.0, 2.0, 5.0]);
        // R² = 1 − SS_res/SS_tot = 1 − 2.25/14.
        let l = Statistic::R2Loss.per_row(&mu, &y).unwrap();
        assert!((l.mean().unwrap() - 2.25 / 14.0).abs() < 1e-15);
        let p = Predictions::Probabilities(array![[0.4, 0.6], [0.5, 0.5], [0.9, 0.1]]);
        let c = Target::Classes {
            labels: array![1, 1, 0],
            n_classes: 2,
        };
        let m = Statistic::Misclassification.per_row(&p, &c).unwrap();
        assert_eq!(m.to_vec(), vec![0.0, 1.0, 0.0], "a tie goes to class 0");
        let flat = Target::Continuous(array![2.0, 2.0]);
        assert!(
            Statistic::R2Loss
                .per_row(&Predictions::Point(array![1.0, 2.0]), &flat)
                .is_err()
        );
    }

    #[test]
    fn brier_is_the_squared_gap_to_the_class_one_indicator_and_binary_only() {
        let p = Predictions::Probabilities(array![[0.4, 0.6], [0.5, 0.5], [0.9, 0.1]]);
        let c = Target::Classes {
            labels: array![1, 0, 0],
            n_classes: 2,
        };
        let b = Statistic::Brier.per_row(&p, &c).unwrap();
        for (got, want) in b.iter().zip([0.16, 0.25, 0.01]) {
            assert!((got - want).abs() < 1e-15, "{b}");
        }
        let three = Predictions::Probabilities(array![[0.2, 0.3, 0.5]]);
        let c3 = Target::Classes {
            labels: array![2],
            n_classes: 3,
        };
        assert!(matches!(
            Statistic::Brier.per_row(&three, &c3),
            Err(CoreError::Unsupported { .. })
        ));
    }

    #[test]
    fn non_finite_predictions_are_errors_naming_the_row() {
        let p = Predictions::Gaussian {
            mean: array![0.0, f64::NAN],
            var: array![1.0, 1.0],
        };
        let y = Target::Continuous(array![0.0, 0.0]);
        let err = Statistic::Nll.per_row(&p, &y).unwrap_err();
        assert!(matches!(err, CoreError::NonFinite { row: 1, .. }), "{err}");
    }

    #[test]
    fn mismatches_are_errors_not_panics() {
        let p = Predictions::Point(array![1.0]);
        let y = Target::Continuous(array![1.0]);
        assert!(matches!(
            Statistic::Entropy.per_row(&p, &y),
            Err(CoreError::Unsupported { .. })
        ));
        let y2 = Target::Continuous(array![1.0, 2.0]);
        assert!(Statistic::SquaredError.per_row(&p, &y2).is_err());
    }
}
