//! The DGPs an experiment YAML can name: one line per DGP, whose parameters
//! implement [`Dgp`] in its own file.

use std::sync::Arc;

use rand::Rng;
use serde::Deserialize;
use xai_core::{MarginalSampler, Marginals};

use crate::Dgp;
use crate::border::Border;
use crate::correlated_gaussian::CorrelatedGaussian;
use crate::formula::Formula;
use crate::friedman_variance::FriedmanVariance;
use crate::joint_gaussian::JointGaussian;
use crate::mease_wyner::MeaseWyner;
use crate::molnar::{MolnarLinear, MolnarNonlinear};
use crate::molnar_pd::{MolnarAdditive, MolnarSine};
use crate::three_clusters::ThreeClusters;

xai_core::registry! {
    /// A DGP with its parameters, as written in YAML (`correlated_gaussian: {...}`).
    #[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
    pub enum DgpSpec: fn dgp -> dyn Dgp, fn name {
        /// Two correlated Gaussian pairs and an independent X5, Y = X1 + X2 + 0.9·X3² +
        /// X4 + X5 + ε (wood2024 Fig. 4–5; [`crate::correlated_gaussian`]).
        "correlated_gaussian" => CorrelatedGaussian(CorrelatedGaussian),
        /// Training points in bands around a square hole, Y = (X1 + X2)² + σ·ε
        /// (wood2024 Fig. 6–7; [`crate::border`]).
        "border" => Border(Border),
        /// Mease–Wyner classification: P(Y = 1 | x) jumps where Σ_{j≤J} x_j crosses J/2
        /// (wood2024 Fig. 3, workload W7; [`crate::mease_wyner`]).
        "mease_wyner" => MeaseWyner(MeaseWyner),
        /// Three Gaussian classes along the diagonal of (X1, X2) (wood2024 Fig. 2;
        /// [`crate::three_clusters`]).
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
        /// A DGP written as formulas in the YAML: features, hidden variables and a
        /// target ([`crate::formula`]).
        "formula" => Formula(Formula),
    }
}

impl DgpSpec {
    /// A sampler of each feature's marginal P(X_j): the DGP's own ([`Dgp::marginals`]),
    /// else [`JointColumns`], column j of a fresh joint draw, which every DGP has. So
    /// fresh-draw PFI, `ideal` resampling and Monte-Carlo truths work on any DGP.
    pub fn marginals(&self) -> Marginals {
        self.dgp()
            .marginals()
            .unwrap_or_else(|| Marginals(Arc::new(JointColumns(self.clone()))))
    }
}

/// X_j ~ P(X_j) as column j of one row drawn from the joint P(X, Y) ([`Dgp::sample`]):
/// the marginal of a DGP that declares none. One whole row per value, so a DGP with a
/// cheaper sampler overrides [`Dgp::marginals`].
pub struct JointColumns(pub DgpSpec);

impl MarginalSampler for JointColumns {
    fn draw(&self, feature: usize, rng: &mut dyn Rng) -> f64 {
        // A draw that fails is NaN, which the statistic of the perturbed rows refuses.
        self.0
            .dgp()
            .sample(1, rng)
            .map_or(f64::NAN, |d| d.x()[[0, feature]])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use xai_core::rng::stream_rng;

    /// Mean and variance of `n` draws of feature `j` from `m`.
    fn moments(m: &Marginals, j: usize, n: usize) -> (f64, f64) {
        let mut rng = stream_rng(8, j as u64);
        let v: Vec<f64> = (0..n).map(|_| m.0.draw(j, &mut rng)).collect();
        let mean = v.iter().sum::<f64>() / n as f64;
        let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        (mean, var)
    }

    /// Column j of joint draws has X_j's marginal: U[0, 1] for molnar_linear (mean
    /// 1/2, variance 1/12), N(0, 1) for correlated_gaussian, each within 4 Monte-Carlo
    /// se over 20,000 draws; a DGP with its own sampler keeps it.
    #[test]
    fn joint_columns_draw_each_features_marginal() {
        let n = 20_000;
        let nf = n as f64;
        let molnar = DgpSpec::MolnarLinear(MolnarLinear { noise_sd: 1.0 });
        let joint = Marginals(Arc::new(JointColumns(molnar.clone())));
        assert!(molnar.dgp().marginals().is_some());
        for j in 0..2 {
            let (mean, var) = moments(&joint, j, n);
            // se of the mean sqrt(1/12/n); of the variance sqrt((1/80 − 1/144)/n).
            assert!(
                (mean - 0.5).abs() < 4.0 * (1.0 / 12.0 / nf).sqrt(),
                "{mean}"
            );
            assert!(
                (var - 1.0 / 12.0).abs() < 4.0 * ((1.0 / 80.0 - 1.0 / 144.0) / nf).sqrt(),
                "{var}"
            );
        }
        let gaussian = DgpSpec::CorrelatedGaussian(CorrelatedGaussian {
            noise_var: 2.0,
            rho: 0.8,
        });
        assert!(gaussian.dgp().marginals().is_none());
        let m = gaussian.marginals();
        for j in 0..4 {
            let (mean, var) = moments(&m, j, n);
            assert!(mean.abs() < 4.0 * (1.0 / nf).sqrt(), "X{j}: mean {mean}");
            assert!(
                (var - 1.0).abs() < 4.0 * (2.0 / nf).sqrt(),
                "X{j}: variance {var}"
            );
        }
    }
}
