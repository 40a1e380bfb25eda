//! The registry of methods: the YAML name of each kind of method under `methods:`,
//! its settings type, and the dispatch to [`Method`].

use serde::Deserialize;

use crate::method::Method;
use crate::{
    across_features, cid, class_shares, coefficients, ice, impurity, learner_inference,
    permutation_map, pfi, predictability, score, shapley, support,
};

xai_core::registry! {
    /// A method and its settings, as written under `methods:`.
    #[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
    pub enum MethodSpec: fn method -> dyn Method {
        /// Perturbation × statistics × mean difference ([`pfi`]).
        "pfi" => Pfi(pfi::PfiSpec),
        /// Grid × statistics × per-row curves and their mean ([`ice`]).
        "ice" => Ice(ice::IceSpec),
        /// The covered-information correction of earlier PFIs ([`cid`]).
        "cid" => Cid(cid::CidSpec),
        /// Impurity (MDI, "Gini") importance of tree ensembles ([`impurity`]).
        "impurity_importance" => ImpurityImportance(impurity::ImpuritySpec),
        /// Cross-validated predictability of each feature ([`predictability`]).
        "predictability" => Predictability(predictability::PredictabilitySpec),
        /// The entropy map of a permutation, for a figure ([`permutation_map`]).
        "permutation_map" => PermutationMap(permutation_map::PermutationMapSpec),
        /// A model-based explanation averaged over refits ([`learner_inference`]).
        "learner_inference" => LearnerInference(learner_inference::LearnerInferenceSpec),
        /// The mean of a per-row statistic on the test rows, e.g. the Brier score
        /// ([`score`]).
        "score" => Score(score::ScoreSpec),
        /// Shapley values of the test rows, their summaries and split-conformal
        /// intervals ([`shapley`]).
        "shapley" => Shapley(shapley::ShapleySpec),
        /// The slopes of a linear model, per feature ([`coefficients`]).
        "coefficients" => Coefficients(coefficients::CoefficientsSpec),
        /// Earlier per-feature quantities as shares of 100 ([`across_features`]).
        "normalise" => Normalise(across_features::NormaliseSpec),
        /// Pearson's correlation over features of earlier quantities
        /// ([`across_features`]).
        "correlation" => Correlation(across_features::CorrelationSpec),
        /// The per-feature difference of two earlier quantities ([`across_features`]).
        "difference" => Difference(across_features::DifferenceSpec),
        /// The share of test values outside the training range, per feature
        /// ([`support`]).
        "support" => Support(support::SupportSpec),
        /// The class shares and label entropy of the training rows in bins of a feature
        /// ([`class_shares`]).
        "class_shares" => ClassShares(class_shares::ClassSharesSpec),
    }
}
