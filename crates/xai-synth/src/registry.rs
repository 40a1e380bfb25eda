//! The DGPs an experiment YAML can name.

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

/// A DGP with its parameters, as written in YAML (`correlated_gaussian: {...}`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum DgpSpec {
    /// wood2024 Fig. 4–5 ([`crate::correlated_gaussian`]).
    CorrelatedGaussian(CorrelatedGaussian),
    /// wood2024 Fig. 6–7 ([`crate::border`]).
    Border(Border),
    /// wood2024 Fig. 3, workload W7 ([`crate::mease_wyner`]).
    MeaseWyner(MeaseWyner),
    /// wood2024 Fig. 2 ([`crate::three_clusters`]).
    ThreeClusters(ThreeClusters),
    /// cid2021 Fig. 2: (X, Y) ~ N(0, Σ), Σ given ([`crate::joint_gaussian`]).
    JointGaussian(JointGaussian),
    /// molnar2023 Table 1: y = x1 − x2 + ε ([`crate::molnar`]).
    MolnarLinear(MolnarLinear),
    /// molnar2023 Table 1: y = x1 − √(1 + x2) + x3·x4 + (x4/10)² + ε
    /// ([`crate::molnar`]).
    MolnarNonlinear(MolnarNonlinear),
    /// molnar2023 Table 2: y = 4x1 − 2x2 + 2x3 − x4 + x5 + ε ([`crate::molnar_pd`]).
    MolnarAdditive(MolnarAdditive),
    /// molnar2023 Fig. 3: y = sin(x1) + x1/2 + x2 + x2·x3² + ε ([`crate::molnar_pd`]).
    MolnarSine(MolnarSine),
    /// watson2023 Fig. 3, Table 1: Friedman #1 in X6..X10 for the mean of Z, in
    /// X1..X5 for its noise sd ([`crate::friedman_variance`]).
    FriedmanVariance(FriedmanVariance),
}

impl DgpSpec {
    /// The YAML name of the DGP.
    pub fn name(&self) -> &'static str {
        match self {
            DgpSpec::CorrelatedGaussian(_) => "correlated_gaussian",
            DgpSpec::Border(_) => "border",
            DgpSpec::MeaseWyner(_) => "mease_wyner",
            DgpSpec::ThreeClusters(_) => "three_clusters",
            DgpSpec::JointGaussian(_) => "joint_gaussian",
            DgpSpec::MolnarLinear(_) => "molnar_linear",
            DgpSpec::MolnarNonlinear(_) => "molnar_nonlinear",
            DgpSpec::MolnarAdditive(_) => "molnar_additive",
            DgpSpec::MolnarSine(_) => "molnar_sine",
            DgpSpec::FriedmanVariance(_) => "friedman_variance",
        }
    }

    /// The DGP.
    pub fn dgp(&self) -> &dyn Dgp {
        match self {
            DgpSpec::CorrelatedGaussian(d) => d,
            DgpSpec::Border(d) => d,
            DgpSpec::MeaseWyner(d) => d,
            DgpSpec::ThreeClusters(d) => d,
            DgpSpec::JointGaussian(d) => d,
            DgpSpec::MolnarLinear(d) => d,
            DgpSpec::MolnarNonlinear(d) => d,
            DgpSpec::MolnarAdditive(d) => d,
            DgpSpec::MolnarSine(d) => d,
            DgpSpec::FriedmanVariance(d) => d,
        }
    }
}
