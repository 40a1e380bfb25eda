//! Learners and fitted models for the papers' experiments.
//!
//! Every learner implements [`xai_core::Learner`] and every fitted model
//! [`xai_core::Model`]; [`LearnerSpec`] is the registry that experiment YAML names, one line per
//! learner whose settings implement [`LearnerKind`].
//!
//! - [`forest`]: random forests and extra-trees for regression and classification
//!   (CART in [`cart`]), with impurity importance and a [`xai_core::TreeEnsembleView`];
//! - [`calibration`]: sigmoid (Platt) and isotonic calibration, and the cross-fitted
//!   calibrated classifier of wood2024 (Fig. 3, 11–15);
//! - [`lm`], [`rpart`], [`r_random_forest`]: least squares, a regression tree and a
//!   regression forest as R's `lm`, `rpart` and `randomForest` fit them (molnar2023
//!   Table 1);
//! - [`logistic`]: L2-penalised logistic regression (scikit-learn's objective),
//!   categorical features as indicators (molnar2023 §5, icefi2022);
//! - [`glasso`]: the graphical lasso (cid2021);
//! - [`gp`]: Gaussian process regression with an ARD RBF kernel, signal and noise
//!   variance, fitted by maximising the log marginal likelihood (wood2024 Fig. 4–8);
//! - [`kriging`]: kriging with a power-exponential correlation as R's DiceKriging
//!   fits it (molnar2023 Table 2);
//! - [`boosting`]: gradient-boosted trees as XGBoost's exact greedy updater grows
//!   them, with native missing values (watson2023);
//! - [`svr`], [`svc`]: ε-SVR with an RBF kernel as R's e1071 fits it (molnar2023
//!   Fig. 3) and a linear C-SVM with Platt probabilities as scikit-learn's `SVC`
//!   (icefi2022 Table 3), on one SMO solver of libsvm's dual;
//! - [`nn`] (feature `nn`, on by default): an MLP, MC-dropout and Bayes-by-backprop networks and
//!   watson2023's MC-dropout CNN on candle, with their members' input gradients (wood2024
//!   Fig. 1, 8, 10–15; watson2023 Fig. 1a);
//! - [`uncertainty`]: a model of another model's uncertainty (watson2023 §6);
//! - [`fitted_forest`]: a classification forest fitted elsewhere, read from a table
//!   of its nodes (icefi2022's own scikit-learn forest);
//! - [`external`]: a learner a front end supplies at run time (a Python estimator);
//! - [`kind`]: [`LearnerKind`], what a learner's settings declare and build;
//! - [`capabilities`]: what each learner's fitted model offers beside predictions;
//! - [`error`]: [`ParamError`], an invalid setting with its name and allowed range.

#![warn(missing_docs)]

pub mod boosting;
pub mod calibration;
pub mod capabilities;
pub mod cart;
pub mod error;
pub mod external;
pub mod fitted_forest;
pub mod flat;
pub mod forest;
pub mod glasso;
pub mod gp;
pub mod kind;
pub mod kriging;
pub mod lm;
pub mod logistic;
mod memory;
#[cfg(feature = "nn")]
pub mod nn;
pub mod optim;
pub mod oracle;
pub mod r_random_forest;
pub mod registry;
pub mod rpart;
mod smo;
mod standardize;
pub mod subgroups;
pub mod svc;
pub mod svr;
pub mod uncertainty;

pub use capabilities::{Capabilities, Coefficients};
pub use error::ParamError;
pub use forest::ExtraTreesParams;
pub use forest::{Forest, ForestLearner, ForestParams, Mtry, MtryRule};
pub use gp::{GaussianProcess, GaussianProcessLearner, GpHyperparameters, GpParams};
pub use kind::LearnerKind;
pub use kriging::{Kriging, KrigingLearner, KrigingParams};
pub use lm::{LinearModel, LmLearner, LmParams};
pub use logistic::{LogisticLearner, LogisticParams, LogisticRegression};
pub use r_random_forest::{RForestLearner, RForestParams};
pub use registry::LearnerSpec;
pub use rpart::{RpartLearner, RpartParams};
pub use subgroups::RpartSubgroups;
pub use svr::{Svr, SvrLearner, SvrParams};
