//! The DGPs an experiment YAML can name: one line per DGP, whose parameters
//! implement [`Dgp`] in its own file.

use serde::Deserialize;

use crate::Dgp;
use crate::border::Border;
use crate::correlated_gaussian::CorrelatedGaussian;
use crate::friedman_variance::FriedmanVariance;
use crate::joint_gaussian::JointGaussian;
use crate::mease_wyner::MeaseWyner;
use crate::molnar::{MolnarLinear, MolnarNonlinear};
use crate::molnar_pd::{MolnarAdditive, MolnarSine};
use crate::three_clusters::ThreeClusters;

xai_core::registry! {
    /// A DGP with its parameters, as written in YAML (`correlated_gaussian: {...}`).
    #[derive(Debug, Clone, PartialEq, Deserialize)]
    pub enum DgpSpec: fn dgp -> dyn Dgp, fn name {
        /// wood2024 Fig. 4–5 ([`crate::correlated_gaussian`]).
        "correlated_gaussian" => CorrelatedGaussian(CorrelatedGaussian),
        /// wood2024 Fig. 6–7 ([`crate::border`]).
        "border" => Border(Border),
        /// wood2024 Fig. 3, workload W7 ([`crate::mease_wyner`]).
        "mease_wyner" => MeaseWyner(MeaseWyner),
        /// wood2024 Fig. 2 ([`crate::three_clusters`]).
        "three_clusters" => ThreeClusters(ThreeClusters),
        /// cid2021 Fig. 2: (X, Y) ~ N(0, Σ), Σ given ([`crate::joint_gaussian`]).
        "joint_gaussian" => JointGaussian(JointGaussian),
        /// molnar2023 Table 1: y = x1 − x2 + ε ([`crate::molnar`]).
        "molnar_linear" => MolnarLinear(MolnarLinear),
        /// molnar2023 Table 1: y = x1 − √(1 + x2) + x3·x4 + (x4/10)² + ε
        /// ([`crate::molnar`]).
        "molnar_nonlinear" => MolnarNonlinear(MolnarNonlinear),
        /// molnar2023 Table 2: y = 4x1 − 2x2 + 2x3 − x4 + x5 + ε ([`crate::molnar_pd`]).
        "molnar_additive" => MolnarAdditive(MolnarAdditive),
        /// molnar2023 Fig. 3: y = sin(x1) + x1/2 + x2 + x2·x3² + ε ([`crate::molnar_pd`]).
        "molnar_sine" => MolnarSine(MolnarSine),
        /// watson2023 Fig. 3, Table 1: Friedman #1 in X6..X10 for the mean of Z, in
        /// X1..X5 for its noise sd ([`crate::friedman_variance`]).
        "friedman_variance" => FriedmanVariance(FriedmanVariance),
    }
}
