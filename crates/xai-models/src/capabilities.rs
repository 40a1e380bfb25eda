//! What a learner's fitted model offers beside its predictions, declared once per
//! learner ([`crate::LearnerKind::capabilities`]): experiment validation reads it
//! before any work, and the registry's test fits every learner (but `fitted_forest`,
//! which needs its node file) and checks that its model offers exactly the declared
//! trees, members, slopes and mean covariance; `tests/missing_values.rs` walks the
//! tree learners' missing values. The struct has no default, so a new learner states
//! every field, or names one of the shared sets below, each stated in full.

/// The offers of a learner's fitted model ([`xai_core::Model`]'s optional parts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capabilities {
    /// It exposes its trees ([`xai_core::Model::tree_ensemble`]): impurity
    /// importance, TreeSHAP.
    pub trees: bool,
    /// It predicts as the mean of members it exposes
    /// ([`xai_core::Model::predict_members`]): a forest's trees, a network's dropout
    /// passes or weight samples (aleatoric and epistemic entropy).
    pub members: bool,
    /// Its members' log-odds are differentiable in the inputs
    /// ([`xai_core::Model::member_gradients`]): a binary-classifier network (expected
    /// gradients).
    pub gradients: bool,
    /// Which slopes it reports ([`xai_core::Model::coefficients`]).
    pub coefficients: Coefficients,
    /// It offers the joint covariance of its mean predictions
    /// ([`xai_core::Model::mean_covariance`]; molnar2023 §2.5's model-based PD band).
    pub mean_covariance: bool,
    /// It fits and predicts rows with missing (NaN) cells.
    pub missing_values: bool,
    /// Its predictions are a distribution of the data's label, which a loss or score
    /// can compare with the label: every learner but `uncertainty`, whose predictions
    /// are a statistic of another model's (watson2023 §6).
    pub predicts_label: bool,
}

/// Whether a fitted model reports the slopes β_j of a model linear in its features.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coefficients {
    /// No slopes.
    None,
    /// One per feature, whatever the features' kinds.
    Always,
    /// One per feature when every feature is continuous; none when a categorical
    /// feature takes several design columns (`logistic_regression`).
    ContinuousFeatures,
}

impl Capabilities {
    /// A mean of trees (`random_forest`, `extra_trees`, `rpart` as a one-tree forest,
    /// `r_random_forest`, `fitted_forest`): its trees (impurity importance, TreeSHAP)
    /// and the trees as members; no slopes, covariance or missing values.
    pub const MEAN_OF_TREES: Capabilities = Capabilities {
        trees: true,
        members: true,
        gradients: false,
        coefficients: Coefficients::None,
        mean_covariance: false,
        missing_values: false,
        predicts_label: true,
    };

    /// A network's (`mlp`, `bayes_by_backprop`, `cnn`): its members, a dropout pass or
    /// a weight sample each, and their gradients in the inputs; nothing else.
    pub const NETWORK: Capabilities = Capabilities {
        trees: false,
        members: true,
        gradients: true,
        coefficients: Coefficients::None,
        mean_covariance: false,
        missing_values: false,
        predicts_label: true,
    };

    /// A Gaussian process's (`gaussian_process`, `kriging`): the joint covariance of
    /// its mean predictions (molnar2023 §2.5's model-based PD band), nothing else.
    pub const MEAN_COVARIANCE_ONLY: Capabilities = Capabilities {
        trees: false,
        members: false,
        gradients: false,
        coefficients: Coefficients::None,
        mean_covariance: true,
        missing_values: false,
        predicts_label: true,
    };

    /// Predictions only (`calibrated_forest`, whose calibrated members are not
    /// exposed; `svr`; `oracle`).
    pub const PREDICTIONS_ONLY: Capabilities = Capabilities {
        trees: false,
        members: false,
        gradients: false,
        coefficients: Coefficients::None,
        mean_covariance: false,
        missing_values: false,
        predicts_label: true,
    };

    /// Whether it reports slopes for some data.
    pub fn has_coefficients(&self) -> bool {
        self.coefficients != Coefficients::None
    }
}
