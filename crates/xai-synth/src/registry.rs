//! The DGPs an experiment YAML can name.

use serde::Deserialize;

use crate::Dgp;
use crate::border::Border;
use crate::correlated_gaussian::CorrelatedGaussian;
use crate::joint_gaussian::JointGaussian;
use crate::mease_wyner::MeaseWyner;
use crate::molnar::{MolnarLinear, MolnarNonlinear};
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
        }
    }
}
