//! Explanation methods for predictive models and their uncertainty.
//!
//! Every method here is "explain by removing" and is a composition of three axes
//! (ARCHITECTURE.md):
//!
//! 1. [`Perturbation`] – how the values of one feature are replaced
//!    ([`PerturbationSpec`]: marginal permutation, fixed grid values, draws from the
//!    Gaussian conditional, fresh draws from the DGP's marginal, conditional
//!    subgroups);
//! 2. [`Statistic`] – what is read off each row's predictive distribution
//!    (prediction, squared error, negative log-likelihood, entropy, R²-loss,
//!    misclassification, Brier score, and watson2023's code's entropy);
//! 3. aggregation – [`pfi`] (mean difference, molnar2023 Eq. 4, 6, 8),
//!    [`ice`] (per-row curves and their mean, the PD) or [`shapley`] (the Shapley
//!    weighting over coalitions of a [`Game`], watson2023 Eq. 1), with
//!    [`conformal`] intervals on top of any per-row attribution.
//!
//! Likelihood-PFI (wood2024 Eq. 5) is `(Permutation, Nll, pfi)`, Entropy-PFI
//! (wood2024 §3.2) is `(Permutation, Entropy, pfi)` and Entropy-ICE (wood2024 Eq. 10)
//! is `(Grid, Entropy, ice)`; none of them has a function of its own.
//!
//! The crate does no file I/O and no plotting; every stochastic function takes a seed
//! or an RNG argument, never a global generator.

#![warn(missing_docs)]

pub mod cid;
pub mod conformal;
pub mod dataset;
pub mod error;
pub mod ice;
pub mod ice_impact;
pub mod inference;
pub mod interp;
pub mod model;
pub mod mutual_info;
pub mod perturbation;
pub mod perturbed;
pub mod pfi;
pub mod predictability;
pub mod predictions;
pub mod registry;
pub mod resample;
pub mod rng;
pub mod roc;
pub mod settings;
pub mod shapley;
pub mod statistic;
pub mod stop;
pub mod tree;

pub use conformal::{ConformalInterval, conformal_interval, split_coverage};
pub use dataset::{Dataset, FeatureKind, Target};
pub use error::{CoreError, Fault};
pub use ice::{IceResult, conditional_pd, ice, ice_from_values, pd_model_band};
pub use ice_impact::{Convention, IceImpact, ice_impact};
pub use inference::{Coverage, Estimate, corrected_t_interval, coverage, t_interval};
pub use interp::interpolate;
pub use model::{Learner, MeanCovariance, MemberGradients, Model};
pub use perturbation::{
    GridRange, GridSpec, MarginalSampler, Marginals, Perturbation, PerturbationSpec, Samplers,
    Subgroups,
};
pub use perturbed::{PerturbedStatistics, perturbed_statistics};
pub use pfi::{PfiResult, pfi, pfi_from_values};
pub use predictions::Predictions;
pub use shapley::game::{ModelGame, ValueFunction};
pub use shapley::{Attribution, Game};
pub use statistic::Statistic;
pub use tree::{Combination, LEAF, Tree, TreeEnsembleView, TreeNode};

#[cfg(test)]
mod test_models;
