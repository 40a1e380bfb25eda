//! Data generating processes (DGPs) with their ground truth.
//!
//! A DGP implements [`Dgp`]; [`DgpSpec`] is the registry that experiment YAML names.
//! Adding a DGP: one file with a params struct implementing [`Dgp`], and one line
//! in [`DgpSpec`]'s registry. Invalid parameters are a [`DgpError`] naming the
//! parameter.

#![warn(missing_docs)]

pub mod border;
pub mod correlated_gaussian;
pub mod error;
pub mod formula;
pub mod friedman_variance;
pub mod joint_gaussian;
pub mod mease_wyner;
pub mod molnar;
pub mod molnar_pd;
pub mod oracle;
pub mod registry;
pub mod three_clusters;

use ndarray::{Array1, ArrayView2};
use rand::Rng;
use xai_core::{Dataset, Marginals};

pub use border::Border;
pub use correlated_gaussian::CorrelatedGaussian;
pub use error::DgpError;
pub use formula::Formula;
pub use friedman_variance::FriedmanVariance;
pub use joint_gaussian::JointGaussian;
pub use mease_wyner::MeaseWyner;
pub use molnar::{MolnarLinear, MolnarNonlinear};
pub use molnar_pd::{MolnarAdditive, MolnarSine};
pub use registry::DgpSpec;
pub use three_clusters::ThreeClusters;

/// A data generating process: draws datasets and knows its ground truth.
pub trait Dgp: Send + Sync {
    /// Feature names, in column order.
    fn feature_names(&self) -> Vec<String>;

    /// Checks the parameters; the error names the offending parameter, its value and
    /// what is allowed. Each parameter's own range is declared once, on its field
    /// (`#[schemars(range(..))]`): a node is checked against it where it is read
    /// (`xai_bench::kinds::read`), and a DGP with ranges checks itself against the
    /// same declaration ([`xai_core::settings::check_value`]); what a schema cannot
    /// declare (a relation between parameters, a matrix's definiteness) is checked by
    /// hand. A DGP without either takes this default.
    fn validate(&self) -> Result<(), DgpError> {
        Ok(())
    }

    /// Draws n i.i.d. rows (features and target). Fallible: a formula DGP can draw a
    /// value that is not finite ([`DgpError::Formula`], located in the YAML).
    fn sample(&self, n: usize, rng: &mut dyn Rng) -> Result<Dataset, DgpError>;

    /// E[Y | X = x] for each row of `x`.
    fn conditional_mean(&self, x: ArrayView2<'_, f64>) -> Array1<f64>;

    /// Var(Y | X = x) for each row of `x`.
    fn conditional_variance(&self, x: ArrayView2<'_, f64>) -> Array1<f64>;

    /// A sampler of each feature's marginal P(X_j) (fresh-draw PFI, `ideal`
    /// resampling), where the DGP has one cheaper than a joint draw; `None` by default,
    /// and [`DgpSpec::marginals`] then takes column j of a fresh joint row.
    fn marginals(&self) -> Option<Marginals> {
        None
    }

    /// The true partial dependence PD_j(x) = E_{X_−j}[E[Y | X_j = x, X_−j]]
    /// (molnar2023 Eq. 1 with the marginal sampler) of feature `feature` at each value
    /// of `grid`, when the DGP knows it in closed form; `None` by default and for a
    /// feature it does not have.
    fn partial_dependence(&self, _feature: usize, _grid: &[f64]) -> Option<Vec<f64>> {
        None
    }
}
