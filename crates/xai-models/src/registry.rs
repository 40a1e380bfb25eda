//! The learners an experiment YAML can name.
//!
//! Adding a learner: implement [`xai_core::Learner`] in its own module, add one
//! variant here (its YAML name in snake_case, its params struct) and one arm in
//! [`LearnerSpec::name`], [`LearnerSpec::describe`], [`LearnerSpec::validate`], [`LearnerSpec::fit_memory_bytes`],
//! [`LearnerSpec::predict_memory_bytes`], [`LearnerSpec::capabilities`] and
//! [`LearnerSpec::build`].

use serde::Deserialize;
use xai_core::Learner;

use crate::boosting::{BoostingLearner, BoostingParams};
use crate::calibration::{CalibratedForestLearner, CalibratedParams};
use crate::capabilities::{Capabilities, Coefficients};
use crate::error::ParamError;
use crate::fitted_forest::{FittedForestLearner, FittedForestParams};
use crate::forest::{ForestLearner, ForestParams};
use crate::gp::{GaussianProcessLearner, GpParams};
use crate::kriging::{KrigingLearner, KrigingParams};
use crate::lm::{LmLearner, LmParams};
use crate::logistic::{LogisticLearner, LogisticParams};
#[cfg(feature = "nn")]
use crate::nn::{BayesLearner, BayesParams, MlpLearner, MlpParams};
use crate::r_random_forest::{RForestLearner, RForestParams};
use crate::rpart::{RpartLearner, RpartParams};
use crate::svc::{SvcLearner, SvcParams};
use crate::svr::{SvrLearner, SvrParams};
use crate::uncertainty::{StageSpec, UncertaintyLearner, UncertaintyParams};

/// A learner with its hyperparameters, as written in YAML (`gaussian_process: {...}`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum LearnerSpec {
    /// Gaussian process regression, ARD RBF + white noise ([`crate::gp`]).
    GaussianProcess(#[serde(default)] GpParams),
    /// Kriging with a constant trend and a power-exponential correlation, no nugget,
    /// as R's DiceKriging `km(~1, covtype = "powexp")` fits it ([`crate::kriging`]).
    Kriging(#[serde(default)] KrigingParams),
    /// Random forest, regression or classification ([`crate::forest`]).
    RandomForest(#[serde(default)] ForestParams),
    /// Extra-trees: random thresholds, no bootstrap by default ([`crate::forest`]).
    ExtraTrees(#[serde(default)] ForestParams),
    /// Random forest with cross-fitted sigmoid or isotonic calibration
    /// ([`crate::calibration`]).
    CalibratedForest(#[serde(default)] CalibratedParams),
    /// Least squares with an intercept on every feature, as R's `lm` ([`crate::lm`]).
    Lm(#[serde(default)] LmParams),
    /// L2-penalised logistic regression of a binary target, scikit-learn's objective
    /// with C ([`crate::logistic`]).
    LogisticRegression(#[serde(default)] LogisticParams),
    /// A regression tree as R's `rpart` fits it: cp, minsplit, minbucket, maxdepth
    /// ([`crate::rpart`]).
    Rpart(#[serde(default)] RpartParams),
    /// A regression forest as R's `randomForest` fits it: ntree, mtry, nodesize
    /// ([`crate::r_random_forest`]).
    RRandomForest(#[serde(default)] RForestParams),
    /// ε-support vector regression with an RBF kernel, as R's e1071 fits it
    /// ([`crate::svr`]).
    Svr(#[serde(default)] SvrParams),
    /// A binary linear-kernel C-SVM with Platt-scaled probabilities, as scikit-learn's
    /// `SVC(kernel="linear", probability=True)` fits it ([`crate::svc`]).
    Svc(#[serde(default)] SvcParams),
    /// Gradient-boosted trees as XGBoost 1.x's exact greedy updater grows them, with
    /// learned default directions for missing values ([`crate::boosting`]).
    Xgboost(#[serde(default)] BoostingParams),
    /// A multilayer perceptron of ReLU units trained by Adam; with `dropout` and
    /// `passes`, an MC-dropout network; a Gaussian head for a continuous target
    /// ([`crate::nn::mlp`]).
    #[cfg(feature = "nn")]
    Mlp(#[serde(default)] MlpParams),
    /// A Bayes-by-backprop network: mean-field Gaussian weights, prior N(0, σ_p²),
    /// `samples` weight draws at prediction ([`crate::nn::bayes`]).
    #[cfg(feature = "nn")]
    BayesByBackprop(#[serde(default)] BayesParams),
    /// A model of another model's uncertainty: a base model, a statistic of its
    /// predictions on the training rows (entropy by default), and a regressor of it,
    /// which is the fitted model (watson2023 §6; [`crate::uncertainty`]).
    Uncertainty(UncertaintyParams<LearnerSpec>),
    /// A classification forest fitted elsewhere, read from a table of its nodes (e.g.
    /// the icefi2022 paper's scikit-learn forest; [`crate::fitted_forest`]).
    FittedForest(FittedForestParams),
}

impl LearnerSpec {
    /// The YAML name of the learner.
    pub fn name(&self) -> &'static str {
        match self {
            LearnerSpec::GaussianProcess(_) => "gaussian_process",
            LearnerSpec::Kriging(_) => "kriging",
            LearnerSpec::RandomForest(_) => "random_forest",
            LearnerSpec::ExtraTrees(_) => "extra_trees",
            LearnerSpec::CalibratedForest(_) => "calibrated_forest",
            LearnerSpec::Lm(_) => "lm",
            LearnerSpec::LogisticRegression(_) => "logistic_regression",
            LearnerSpec::Rpart(_) => "rpart",
            LearnerSpec::RRandomForest(_) => "r_random_forest",
            LearnerSpec::Svr(_) => "svr",
            LearnerSpec::Svc(_) => "svc",
            LearnerSpec::Xgboost(_) => "xgboost",
            #[cfg(feature = "nn")]
            LearnerSpec::Mlp(_) => "mlp",
            #[cfg(feature = "nn")]
            LearnerSpec::BayesByBackprop(_) => "bayes_by_backprop",
            LearnerSpec::Uncertainty(_) => "uncertainty",
            LearnerSpec::FittedForest(_) => "fitted_forest",
        }
    }

    /// What the fitted model offers beside its predictions, one arm per learner
    /// with every field stated: the trees (impurity importance, TreeSHAP) of
    /// `random_forest`, `extra_trees`, `rpart` (one tree), `r_random_forest`,
    /// `fitted_forest` (the mean of their trees, also their members) and `xgboost` (the
    /// sum of its trees on the margin, so no members); the members of the networks
    /// (`mlp`: a dropout pass each; `bayes_by_backprop`: a weight sample each); the
    /// slopes of `lm`, `svc` and `logistic_regression` (continuous features only); the
    /// mean covariance of `lm`, `gaussian_process` and `kriging`; missing values in
    /// `xgboost`, which learns a default direction at every split. An `uncertainty`
    /// model offers what its second stage does, and missing values if both stages
    /// take them; its predictions are not of the data's label.
    pub fn capabilities(&self) -> Capabilities {
        match self {
            LearnerSpec::RandomForest(_)
            | LearnerSpec::ExtraTrees(_)
            | LearnerSpec::Rpart(_)
            | LearnerSpec::RRandomForest(_)
            | LearnerSpec::FittedForest(_) => Capabilities {
                trees: true,
                members: true,
                coefficients: Coefficients::None,
                mean_covariance: false,
                missing_values: false,
                predicts_label: true,
            },
            LearnerSpec::Xgboost(_) => Capabilities {
                trees: true,
                members: false,
                coefficients: Coefficients::None,
                mean_covariance: false,
                missing_values: true,
                predicts_label: true,
            },
            #[cfg(feature = "nn")]
            LearnerSpec::Mlp(_) | LearnerSpec::BayesByBackprop(_) => Capabilities {
                trees: false,
                members: true,
                coefficients: Coefficients::None,
                mean_covariance: false,
                missing_values: false,
                predicts_label: true,
            },
            LearnerSpec::Lm(_) => Capabilities {
                trees: false,
                members: false,
                coefficients: Coefficients::Always,
                mean_covariance: true,
                missing_values: false,
                predicts_label: true,
            },
            LearnerSpec::GaussianProcess(_) | LearnerSpec::Kriging(_) => Capabilities {
                trees: false,
                members: false,
                coefficients: Coefficients::None,
                mean_covariance: true,
                missing_values: false,
                predicts_label: true,
            },
            LearnerSpec::LogisticRegression(_) => Capabilities {
                trees: false,
                members: false,
                coefficients: Coefficients::ContinuousFeatures,
                mean_covariance: false,
                missing_values: false,
                predicts_label: true,
            },
            LearnerSpec::Svc(_) => Capabilities {
                trees: false,
                members: false,
                coefficients: Coefficients::Always,
                mean_covariance: false,
                missing_values: false,
                predicts_label: true,
            },
            LearnerSpec::CalibratedForest(_) | LearnerSpec::Svr(_) => Capabilities {
                trees: false,
                members: false,
                coefficients: Coefficients::None,
                mean_covariance: false,
                missing_values: false,
                predicts_label: true,
            },
            LearnerSpec::Uncertainty(p) => {
                let (base, model) = (p.base.capabilities(), p.model.capabilities());
                Capabilities {
                    missing_values: base.missing_values && model.missing_values,
                    predicts_label: false,
                    ..model
                }
            }
        }
    }

    /// The learner's name in words, for figures ("Gaussian process").
    pub fn describe(&self) -> &'static str {
        match self {
            LearnerSpec::GaussianProcess(_) => "Gaussian process",
            LearnerSpec::Kriging(_) => "Gaussian process (kriging, power-exponential)",
            LearnerSpec::RandomForest(_) => "random forest",
            LearnerSpec::ExtraTrees(_) => "extra-trees",
            LearnerSpec::CalibratedForest(_) => "calibrated random forest",
            LearnerSpec::Lm(_) => "linear model",
            LearnerSpec::LogisticRegression(_) => "logistic regression",
            LearnerSpec::Rpart(_) => "regression tree (rpart)",
            LearnerSpec::RRandomForest(_) => "random forest (R)",
            LearnerSpec::Svr(_) => "ε-support vector regression",
            LearnerSpec::Svc(_) => "linear support vector classifier",
            LearnerSpec::Xgboost(_) => "gradient boosting (XGBoost)",
            #[cfg(feature = "nn")]
            LearnerSpec::Mlp(p) => p.describe(),
            #[cfg(feature = "nn")]
            LearnerSpec::BayesByBackprop(_) => "Bayes-by-backprop network",
            LearnerSpec::Uncertainty(p) => p.model.describe(),
            LearnerSpec::FittedForest(_) => "random forest (fitted elsewhere)",
        }
    }

    /// Checks the hyperparameters before any work starts; the error names the
    /// offending setting.
    pub fn validate(&self) -> Result<(), ParamError> {
        match self {
            LearnerSpec::GaussianProcess(p) => p.validate(),
            LearnerSpec::Kriging(p) => p.validate(),
            LearnerSpec::RandomForest(p) | LearnerSpec::ExtraTrees(p) => p.validate(),
            LearnerSpec::CalibratedForest(p) => p.validate(),
            LearnerSpec::Lm(p) => p.validate(),
            LearnerSpec::LogisticRegression(p) => p.validate(),
            LearnerSpec::Rpart(p) => p.validate(),
            LearnerSpec::RRandomForest(p) => p.validate(),
            LearnerSpec::Svr(p) => p.validate(),
            LearnerSpec::Svc(p) => p.validate(),
            LearnerSpec::Xgboost(p) => p.validate(),
            #[cfg(feature = "nn")]
            LearnerSpec::Mlp(p) => p.validate(),
            #[cfg(feature = "nn")]
            LearnerSpec::BayesByBackprop(p) => p.validate(),
            LearnerSpec::Uncertainty(p) => p.validate(),
            LearnerSpec::FittedForest(_) => Ok(()),
        }
    }

    /// An upper-order estimate of the peak bytes fitting this learner on `n_rows` rows
    /// and `n_features` features allocates (besides the data itself), so a runner can
    /// refuse a size before allocating. With n rows, d features, T = `n_trees`, P the
    /// threads of rayon's pool, o = 2 values per tree node (a binary classifier; a
    /// regression stores 1, k classes k), l = `min_samples_leaf`, D = `max_depth`:
    ///
    /// - `gaussian_process`: 8·(4n² + 2nd + 4n): one log-likelihood evaluation holds
    ///   K_f, its Cholesky factor L, K⁻¹ and faer's scratch L⁻¹ (n × n each); faer's
    ///   per-thread packing buffers (a few MiB, allocated once) are not counted.
    /// - `kriging`: 8·(n²d + 4n² + nd + 4n): log|h_k| and t_k of every row pair, R, L,
    ///   R⁻¹ and faer's scratch ([`crate::kriging`]).
    /// - `random_forest`, `extra_trees`: 12n + 12nd + min(T, P)·(8nd + 13n + 8d) +
    ///   8·N(n) + T·B(n): the target's copy, the presorted columns, each tree in
    ///   flight's row lists and weights, and the trees, B(n) = N(n)·(2·(40 + 8o) + 20) bytes each with at most
    ///   N(n) = min(2⌈n/l⌉ − 1, 2^(D+1) − 1) nodes (40-byte nodes and their values
    ///   counted twice for vector growth slack, 20-byte flat nodes).
    /// - `calibrated_forest` (k = `folds`, n_t = n − ⌊n/k⌋, n_h = ⌈n/k⌉):
    ///   24n + n_t·(8d + 16) + [the forest's working bytes on n_t rows, as above without
    ///   its 8n and trees] + n_h·(8d + 8o + 136) + k·T·B(n_t): one fold's row copies
    ///   and forest at a time, all k forests kept.
    /// - `lm` (q = d + 1): 8·(3nq + 2n + 4q²): the design, its QR factor and faer's
    ///   scratch, copies of y, and the q × q factors and covariance ([`crate::lm`]).
    /// - `logistic_regression` (q = d + 1 design columns and the intercept; each
    ///   categorical feature of L levels adds L − 2 more, not counted here):
    ///   8·(2nq + 6n + 3q²) ([`crate::logistic`]).
    /// - `rpart` (l = minbucket, D = maxdepth): the `random_forest` bytes with T = 1,
    ///   plus 8n (unit weights) and 64·N(n) (the cp-pruning bookkeeping).
    /// - `r_random_forest` (T = ntree, l = 1, D unlimited): the `random_forest` bytes.
    /// - `svr`: 8·(n² + 2nd + 8n): the kernel matrix, the scaled rows twice, and the
    ///   2n dual variables and gradients.
    /// - `svc`: 8·(n² + 3nd + 8n): the Gram matrix (one at a time over the Platt
    ///   folds), the standardised rows and a fold's copy, dual variables, gradients
    ///   and decision values.
    ///
    /// The forests' terms are worst cases (every leaf one row, every vector at twice
    /// its length): measured fits of 20 trees on 20,000 rows
    /// and 5 features peaked 1.4–7× below them.
    /// - `xgboost` (T = `rounds`, N = 2^(D+1) − 1, D = `max_depth`): 4nd + 28n +
    ///   (56T + 40)·N: the presorted columns, per-row gradients, hessians, margins and
    ///   nodes, the kept trees and the tree being grown and pruned
    ///   ([`crate::boosting::fit_memory_bytes`]).
    /// - `mlp`, `bayes_by_backprop`: the parameters with Adam's state, a batch's
    ///   activations, the rows in f64 and f32 and the members
    ///   ([`crate::nn::MlpParams::fit_memory_bytes`]).
    /// - `uncertainty`: the larger of its stages' bytes, plus 8n (the label) and
    ///   the base model's prediction on the n rows (the base model is kept while the
    ///   second stage fits).
    ///
    /// Computed in u128, saturating, so 10¹¹ rows (10²² for the GP) neither overflows
    /// nor wraps.
    pub fn fit_memory_bytes(&self, n_rows: usize, n_features: usize) -> u128 {
        let (n, d) = (n_rows as u128, n_features as u128);
        match self {
            LearnerSpec::GaussianProcess(_) => crate::gp::fit_memory_bytes(n, d),
            LearnerSpec::Kriging(_) => crate::kriging::fit_memory_bytes(n, d),
            LearnerSpec::RandomForest(p) | LearnerSpec::ExtraTrees(p) => p.fit_memory_bytes(n, d),
            LearnerSpec::CalibratedForest(p) => p.fit_memory_bytes(n, d),
            LearnerSpec::Lm(_) => crate::lm::fit_memory_bytes(n, d),
            LearnerSpec::LogisticRegression(_) => {
                crate::logistic::fit_memory_bytes(n, d.saturating_add(1))
            }
            LearnerSpec::Rpart(p) => p.fit_memory_bytes(n, d),
            LearnerSpec::RRandomForest(p) => p.as_forest().fit_memory_bytes(n, d),
            // The forest read from its file: a default forest's size, the best guess
            // before the file is read (scikit-learn's trees are grown as deep).
            LearnerSpec::FittedForest(_) => ForestParams::default().fit_memory_bytes(n, d),
            LearnerSpec::Svr(_) => 8u128.saturating_mul(
                n.saturating_mul(n)
                    .saturating_add(2 * n.saturating_mul(d))
                    .saturating_add(8 * n),
            ),
            LearnerSpec::Svc(_) => 8u128.saturating_mul(
                n.saturating_mul(n)
                    .saturating_add(3 * n.saturating_mul(d))
                    .saturating_add(8 * n),
            ),
            LearnerSpec::Xgboost(p) => crate::boosting::fit_memory_bytes(p, n, d),
            #[cfg(feature = "nn")]
            LearnerSpec::Mlp(p) => p.fit_memory_bytes(n, d),
            #[cfg(feature = "nn")]
            LearnerSpec::BayesByBackprop(p) => p.fit_memory_bytes(n, d),
            LearnerSpec::Uncertainty(p) => p
                .base
                .fit_memory_bytes(n_rows, n_features)
                .max(p.model.fit_memory_bytes(n_rows, n_features))
                .saturating_add(8 * n)
                .saturating_add(p.base.predict_memory_bytes(n_rows, n_rows, n_features)),
        }
    }

    /// An upper-order estimate of the peak bytes one prediction call on `n_rows` rows
    /// of `n_features` features allocates, for a model fitted on `n_train` rows
    /// (besides the model and the rows themselves). With m = `n_rows`, n = `n_train`,
    /// d, o and P as in [`Self::fit_memory_bytes`]:
    ///
    /// - `gaussian_process`: 8·(mn + md + 4m): the n × m cross-kernel K*, solved in
    ///   place into L⁻¹K*, the standardised rows, mean and variance.
    /// - `kriging`: 8·(2mn + 3m): r*, L⁻¹r*ᵀ, mean and variance.
    /// - `random_forest`, `extra_trees`: 8md + 8mo + 8m + 16384·P: a row-major copy of
    ///   the rows, the mean leaf values, a regression's column, each thread's leaf
    ///   indices of a 4096-row chunk (independent of n).
    /// - `calibrated_forest`: the forest's bytes + 16mo (the sum over the k members
    ///   and its mean; the members predict one after another).
    /// - `rpart`, `r_random_forest`: as `random_forest` (they predict as forests).
    /// - `lm`: 8m (the predictions).
    /// - `logistic_regression`: 8·(mq + 3m), q = d + 1 as in [`Self::fit_memory_bytes`].
    /// - `svr`: 8·(mn + md + m): the cross-kernel with at most n support vectors, the
    ///   scaled rows and the predictions.
    /// - `svc`: 8·(md + 3m): the standardised rows, decision values and the two
    ///   class probabilities.
    /// - `xgboost`: 24m: the margins and, for the logistic objective, the
    ///   probabilities.
    /// - `mlp`, `bayes_by_backprop`: the rows, one member's activations and every
    ///   member's predictions ([`crate::nn::MlpParams::predict_memory_bytes`]).
    /// - `uncertainty`: its second stage's bytes.
    pub fn predict_memory_bytes(&self, n_train: usize, n_rows: usize, n_features: usize) -> u128 {
        let (n, m, d) = (n_train as u128, n_rows as u128, n_features as u128);
        match self {
            LearnerSpec::GaussianProcess(_) => crate::gp::predict_memory_bytes(n, m, d),
            LearnerSpec::Kriging(_) => crate::kriging::predict_memory_bytes(n, m),
            LearnerSpec::RandomForest(_)
            | LearnerSpec::ExtraTrees(_)
            | LearnerSpec::Rpart(_)
            | LearnerSpec::RRandomForest(_)
            | LearnerSpec::FittedForest(_) => crate::forest::predict_memory_bytes(m, d),
            LearnerSpec::CalibratedForest(_) => crate::calibration::predict_memory_bytes(m, d),
            LearnerSpec::Lm(_) => crate::lm::predict_memory_bytes(m),
            LearnerSpec::LogisticRegression(_) => {
                crate::logistic::predict_memory_bytes(m, d.saturating_add(1))
            }
            LearnerSpec::Svr(_) => 8u128.saturating_mul(
                m.saturating_mul(n)
                    .saturating_add(m.saturating_mul(d))
                    .saturating_add(m),
            ),
            LearnerSpec::Svc(_) => 8u128.saturating_mul(m.saturating_mul(d).saturating_add(3 * m)),
            LearnerSpec::Xgboost(_) => 24u128.saturating_mul(m),
            #[cfg(feature = "nn")]
            LearnerSpec::Mlp(p) => p.predict_memory_bytes(m, d),
            #[cfg(feature = "nn")]
            LearnerSpec::BayesByBackprop(p) => p.predict_memory_bytes(m, d),
            LearnerSpec::Uncertainty(p) => {
                p.model.predict_memory_bytes(n_train, n_rows, n_features)
            }
        }
    }

    /// The files the learner reads (a fitted forest's node table), mutable so that a
    /// runner can resolve relative paths against its data directories; nested
    /// learners' too.
    pub fn data_files_mut(&mut self) -> Vec<&mut std::path::PathBuf> {
        match self {
            LearnerSpec::FittedForest(p) => vec![&mut p.file],
            LearnerSpec::Uncertainty(p) => {
                let mut files = p.base.data_files_mut();
                files.extend(p.model.data_files_mut());
                files
            }
            _ => Vec::new(),
        }
    }

    /// The learner.
    pub fn build(&self) -> Box<dyn Learner> {
        match self {
            LearnerSpec::GaussianProcess(p) => Box::new(GaussianProcessLearner(p.clone())),
            LearnerSpec::Kriging(p) => Box::new(KrigingLearner(p.clone())),
            LearnerSpec::RandomForest(p) => Box::new(ForestLearner {
                params: p.clone(),
                random_thresholds: false,
            }),
            LearnerSpec::ExtraTrees(p) => Box::new(ForestLearner {
                params: p.clone(),
                random_thresholds: true,
            }),
            LearnerSpec::CalibratedForest(p) => Box::new(CalibratedForestLearner(p.clone())),
            LearnerSpec::Lm(p) => Box::new(LmLearner(p.clone())),
            LearnerSpec::LogisticRegression(p) => Box::new(LogisticLearner(p.clone())),
            LearnerSpec::Rpart(p) => Box::new(RpartLearner(p.clone())),
            LearnerSpec::RRandomForest(p) => Box::new(RForestLearner(p.clone())),
            LearnerSpec::Svr(p) => Box::new(SvrLearner(p.clone())),
            LearnerSpec::Svc(p) => Box::new(SvcLearner(p.clone())),
            LearnerSpec::Xgboost(p) => Box::new(BoostingLearner(p.clone())),
            #[cfg(feature = "nn")]
            LearnerSpec::Mlp(p) => Box::new(MlpLearner(p.clone())),
            #[cfg(feature = "nn")]
            LearnerSpec::BayesByBackprop(p) => Box::new(BayesLearner(p.clone())),
            LearnerSpec::Uncertainty(p) => Box::new(UncertaintyLearner(p.clone())),
            LearnerSpec::FittedForest(p) => Box::new(FittedForestLearner(p.clone())),
        }
    }
}

/// Any learner is a stage of an `uncertainty` model.
impl StageSpec for LearnerSpec {
    fn validate(&self) -> Result<(), ParamError> {
        LearnerSpec::validate(self)
    }

    fn build(&self) -> Box<dyn Learner> {
        LearnerSpec::build(self)
    }
}

// The tests fit every learner, the networks too.
#[cfg(all(test, feature = "nn"))]
mod tests {
    use super::*;

    #[test]
    fn validate_passes_the_learners_error_through() {
        let spec = LearnerSpec::ExtraTrees(ForestParams {
            min_samples_leaf: 0,
            ..Default::default()
        });
        let e = spec.validate().unwrap_err();
        assert!(
            matches!(
                &e,
                ParamError::OutOfRange {
                    param: "min_samples_leaf",
                    ..
                }
            ),
            "{e:?}"
        );
        let spec = LearnerSpec::GaussianProcess(GpParams {
            max_iter: 0,
            ..Default::default()
        });
        assert_eq!(spec.validate().unwrap_err().param(), "max_iter");
        let spec = LearnerSpec::Rpart(RpartParams {
            maxdepth: 31,
            ..Default::default()
        });
        assert_eq!(spec.validate().unwrap_err().param(), "maxdepth");
        let spec = LearnerSpec::RRandomForest(RForestParams {
            nodesize: 0,
            ..Default::default()
        });
        assert_eq!(spec.validate().unwrap_err().param(), "nodesize");
        for spec in all_defaults() {
            spec.validate().unwrap();
        }
    }

    fn all_defaults() -> [LearnerSpec; 14] {
        [
            LearnerSpec::GaussianProcess(GpParams::default()),
            LearnerSpec::Kriging(KrigingParams::default()),
            LearnerSpec::LogisticRegression(LogisticParams::default()),
            LearnerSpec::RandomForest(ForestParams::default()),
            LearnerSpec::ExtraTrees(ForestParams::default()),
            LearnerSpec::CalibratedForest(CalibratedParams::default()),
            LearnerSpec::Lm(LmParams::default()),
            LearnerSpec::Rpart(RpartParams::default()),
            LearnerSpec::RRandomForest(RForestParams::default()),
            LearnerSpec::Svr(SvrParams::default()),
            LearnerSpec::Svc(SvcParams::default()),
            LearnerSpec::Xgboost(BoostingParams::default()),
            LearnerSpec::Mlp(MlpParams::default()),
            LearnerSpec::BayesByBackprop(BayesParams::default()),
        ]
    }

    #[test]
    fn every_learner_fits_and_exposes_trees_and_covariances_as_declared() {
        let mut rng = xai_core::rng::stream_rng(2, 0);
        // Distinct rows (kriging has no nugget: a repeated row makes R singular).
        let x = ndarray::Array2::from_shape_fn((60, 2), |(i, j)| {
            ((i * (j + 3)) % 17) as f64 + 0.01 * i as f64
        });
        let y: Vec<f64> = x.rows().into_iter().map(|r| r[0] - 0.5 * r[1]).collect();
        let data = xai_core::Dataset::new(
            x,
            xai_core::Target::Continuous(y.into()),
            vec!["a".into(), "b".into()],
        )
        .unwrap();
        for spec in all_defaults().into_iter().filter(|s| {
            !matches!(
                s,
                LearnerSpec::CalibratedForest(_)
                    | LearnerSpec::LogisticRegression(_)
                    | LearnerSpec::Svc(_)
            )
        }) {
            let model = spec.build().fit(&data, &mut rng).unwrap();
            offers_as_declared(&spec, model.as_ref(), &data);
            assert!(!spec.describe().is_empty());
        }
        // The classifiers left out above, on a binary target from the same rows.
        let labels: Vec<usize> = data
            .x()
            .rows()
            .into_iter()
            .map(|r| usize::from(r[0] > r[1]))
            .collect();
        let binary = data
            .with_target(xai_core::Target::Classes {
                labels: labels.into(),
                n_classes: 2,
            })
            .unwrap();
        for spec in [
            LearnerSpec::LogisticRegression(LogisticParams::default()),
            LearnerSpec::Svc(SvcParams::default()),
            LearnerSpec::Mlp(MlpParams::default()),
            LearnerSpec::BayesByBackprop(BayesParams::default()),
            LearnerSpec::CalibratedForest(CalibratedParams::default()),
            LearnerSpec::RandomForest(ForestParams::default()),
            LearnerSpec::Xgboost(BoostingParams::default()),
            serde_saphyr::from_str(
                "uncertainty: { base: { random_forest: {} }, model: { rpart: {} } }",
            )
            .unwrap(),
            serde_saphyr::from_str("uncertainty: { base: { xgboost: {} }, model: { lm: {} } }")
                .unwrap(),
        ] {
            let model = spec.build().fit(&binary, &mut rng).unwrap();
            offers_as_declared(&spec, model.as_ref(), &binary);
        }
    }

    /// The fitted `model` of `spec` offers exactly what `spec.capabilities()`
    /// declares (slopes: on continuous features).
    fn offers_as_declared(
        spec: &LearnerSpec,
        model: &dyn xai_core::Model,
        data: &xai_core::Dataset,
    ) {
        let caps = spec.capabilities();
        let name = spec.name();
        assert_eq!(model.tree_ensemble().is_some(), caps.trees, "{name}: trees");
        assert_eq!(
            model.coefficients().is_some(),
            caps.has_coefficients(),
            "{name}: slopes"
        );
        assert_eq!(
            model.mean_covariance().is_some(),
            caps.mean_covariance,
            "{name}: covariance"
        );
        assert_eq!(
            model.predict_members(data.x()).is_some(),
            caps.members,
            "{name}: members"
        );
    }

    #[test]
    fn r_learner_memory_is_linear_in_rows() {
        for spec in [
            LearnerSpec::Lm(LmParams::default()),
            LearnerSpec::Rpart(RpartParams::default()),
            LearnerSpec::RRandomForest(RForestParams::default()),
        ] {
            let r = ratio(
                spec.fit_memory_bytes(200_000, 4),
                spec.fit_memory_bytes(100_000, 4),
            );
            assert!(
                (r - 2.0).abs() < 0.01,
                "{}: fit at 2n / fit at n = {r}",
                spec.name()
            );
            let r = ratio(
                spec.predict_memory_bytes(10, 2_000_000, 4),
                spec.predict_memory_bytes(10, 1_000_000, 4),
            );
            assert!(
                (r - 2.0).abs() < 0.01,
                "{}: predict on 2m rows: {r}",
                spec.name()
            );
            // 10¹¹ rows: beyond any machine (lm, the cheapest, needs 12 TB).
            assert!(spec.fit_memory_bytes(100_000_000_000, 4) > 1e13 as u128);
        }
        // lm: 8·(3·10·3 + 2·10 + 4·9) = 1168 bytes for n = 10, d = 2.
        assert_eq!(
            LearnerSpec::Lm(LmParams::default()).fit_memory_bytes(10, 2),
            1168
        );
        // One rpart tree costs far less than a 100-tree forest.
        let tree = LearnerSpec::Rpart(RpartParams::default()).fit_memory_bytes(1000, 4);
        let forest = LearnerSpec::RRandomForest(RForestParams::default()).fit_memory_bytes(1000, 4);
        assert!(tree * 20 < forest, "{tree} vs {forest}");
    }

    /// The default MLP on d = 2: P = 3·100 + 101·2 = 502 parameters, W = 104 units.
    /// Fit on 10 rows (one batch of 10, one member): 8·20 + 4·30 + 16·502 +
    /// 16·10·104 + 4·502 = 26,960 bytes; predict 10 rows: 12·20 + 8·10·104 + 16·10·2 =
    /// 8880.
    /// Bayes by backprop keeps more copies of each parameter than the MLP.
    #[test]
    fn network_memory_by_hand() {
        let mlp = LearnerSpec::Mlp(MlpParams::default());
        assert_eq!(mlp.fit_memory_bytes(10, 2), 26_960);
        assert_eq!(mlp.predict_memory_bytes(10, 10, 2), 8880);
        let r = ratio(
            mlp.fit_memory_bytes(2_000_000, 8),
            mlp.fit_memory_bytes(1_000_000, 8),
        );
        assert!((r - 2.0).abs() < 0.01, "{r}");
        let bbb = LearnerSpec::BayesByBackprop(BayesParams {
            hidden: vec![100],
            samples: 1,
            batch_size: 200,
            ..Default::default()
        });
        assert_eq!(
            bbb.fit_memory_bytes(10, 2) - mlp.fit_memory_bytes(10, 2),
            4 * 6 * 502
        );
    }

    fn ratio(a: u128, b: u128) -> f64 {
        a as f64 / b as f64
    }

    #[test]
    fn gp_memory_grows_with_the_square_of_the_rows() {
        let gp = LearnerSpec::GaussianProcess(GpParams::default());
        // 8·(4·10² + 2·10·2 + 4·10) = 3840.
        assert_eq!(gp.fit_memory_bytes(10, 2), 3840);
        // 8·(3·10 + 3·2 + 4·3) = 384.
        assert_eq!(gp.predict_memory_bytes(10, 3, 2), 384);
        let r = ratio(
            gp.fit_memory_bytes(20_000, 5),
            gp.fit_memory_bytes(10_000, 5),
        );
        assert!((r - 4.0).abs() < 0.01, "fit at 2n / fit at n = {r}");
        let r = ratio(
            gp.predict_memory_bytes(20_000, 1000, 5),
            gp.predict_memory_bytes(10_000, 1000, 5),
        );
        assert!((r - 2.0).abs() < 0.01, "predict with 2n training rows: {r}");
        let r = ratio(
            gp.predict_memory_bytes(10_000, 2000, 5),
            gp.predict_memory_bytes(10_000, 1000, 5),
        );
        assert!((r - 2.0).abs() < 1e-9, "predict on 2m rows: {r}");
        // 10¹¹ rows: 32·10²² bytes to fit, 8·10¹⁴ to predict 1000 rows, far beyond any
        // machine.
        assert!(gp.fit_memory_bytes(100_000_000_000, 5) > 1e15 as u128);
        assert!(gp.predict_memory_bytes(100_000_000_000, 1000, 5) > 1e14 as u128);
        assert_eq!(gp.fit_memory_bytes(usize::MAX, usize::MAX), u128::MAX);
    }

    #[test]
    fn forest_memory_is_linear_in_rows_and_trees() {
        let params = ForestParams::default();
        assert_eq!(params.max_nodes(100), 199);
        let shallow = ForestParams {
            max_depth: Some(3),
            min_samples_leaf: 5,
            ..Default::default()
        };
        assert_eq!(shallow.max_nodes(100), 15);
        assert_eq!(shallow.max_nodes(12), 2 * 3 - 1);
        for spec in [
            LearnerSpec::RandomForest(params.clone()),
            LearnerSpec::ExtraTrees(params.clone()),
        ] {
            let r = ratio(
                spec.fit_memory_bytes(200_000, 5),
                spec.fit_memory_bytes(100_000, 5),
            );
            assert!((r - 2.0).abs() < 0.01, "fit at 2n / fit at n = {r}");
            let r = ratio(
                spec.predict_memory_bytes(1, 2_000_000, 5),
                spec.predict_memory_bytes(1, 1_000_000, 5),
            );
            assert!((r - 2.0).abs() < 0.01, "predict on 2m rows: {r}");
            assert_eq!(
                spec.predict_memory_bytes(10, 1000, 5),
                spec.predict_memory_bytes(10_000_000, 1000, 5)
            );
            assert!(spec.fit_memory_bytes(100_000_000_000, 5) > 1e15 as u128);
        }
        // The trees dominate: twice the trees, about twice the bytes.
        let more = LearnerSpec::RandomForest(ForestParams {
            n_trees: 200,
            ..Default::default()
        });
        let r = ratio(
            more.fit_memory_bytes(100_000, 5),
            LearnerSpec::RandomForest(params).fit_memory_bytes(100_000, 5),
        );
        assert!(r > 1.95 && r <= 2.0, "200 trees / 100 trees = {r}");
        // A depth cap bounds the trees: beyond that only the working memory grows.
        let capped = LearnerSpec::RandomForest(shallow);
        assert!(capped.fit_memory_bytes(100_000, 5) < more.fit_memory_bytes(100_000, 5) / 10);
    }

    #[test]
    fn calibrated_forest_memory_counts_the_k_fold_forests() {
        let calibrated = |folds| {
            LearnerSpec::CalibratedForest(CalibratedParams {
                folds,
                ..Default::default()
            })
        };
        let forest = LearnerSpec::RandomForest(ForestParams::default());
        let five = calibrated(5);
        let r = ratio(
            five.fit_memory_bytes(200_000, 5),
            five.fit_memory_bytes(100_000, 5),
        );
        assert!((r - 2.0).abs() < 0.01, "fit at 2n / fit at n = {r}");
        // k forests on (k − 1)/k of the rows: about k − 1 = 4 forests' trees.
        let r = ratio(
            five.fit_memory_bytes(100_000, 5),
            forest.fit_memory_bytes(100_000, 5),
        );
        assert!((r - 4.0).abs() < 0.1, "calibrated (k = 5) / forest = {r}");
        let r = ratio(
            calibrated(10).fit_memory_bytes(100_000, 5),
            five.fit_memory_bytes(100_000, 5),
        );
        assert!((r - 9.0 / 4.0).abs() < 0.05, "k = 10 / k = 5: {r}");
        let r = ratio(
            five.predict_memory_bytes(1, 2_000_000, 5),
            five.predict_memory_bytes(1, 1_000_000, 5),
        );
        assert!((r - 2.0).abs() < 0.01, "predict on 2m rows: {r}");
        assert!(five.fit_memory_bytes(100_000_000_000, 5) > 1e15 as u128);
    }
}
