//! The DGPs of molnar2023's coverage study (Table 1, PAPERS.md §2.2): independent
//! features x_j ~ U[0, 1] and Gaussian noise ε ~ N(0, σ²), σ = 1 in the paper.
//!
//! - [`MolnarLinear`]: y = x1 − x2 + ε, two features.
//! - [`MolnarNonlinear`]: y = x1 − √(1 + x2) + x3·x4 + (x4/10)² + ε, four features, as
//!   the authors' code draws it (its Table 1 came from the code); `variant: paper`
//!   gives the printed y = x1 − √(1 − x2) + x3·x4 + (x4/10)² + ε.
//!
//! Both draw each feature's marginal U[0, 1] for fresh-draw PFI ([`Dgp::marginals`]).

use std::sync::Arc;

use ndarray::{Array1, Array2, ArrayView1, ArrayView2};
use rand::{Rng, RngExt};
use rand_distr::StandardNormal;
use serde::Deserialize;
use xai_core::{Dataset, MarginalSampler, Marginals, Target};

use crate::{Dgp, DgpError};

/// molnar2023's linear DGP: y = x1 − x2 + ε, x ~ U[0, 1]², ε ~ N(0, `noise_sd`²).
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MolnarLinear {
    /// Noise standard deviation σ (molnar2023: 1).
    #[serde(default = "unit")]
    #[schemars(range(min = 0))]
    pub noise_sd: f64,
}

/// Which formula of the non-linear DGP.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum NonlinearVariant {
    /// √(1 + x2): the authors' code, which produced the published Table 1.
    #[default]
    Code,
    /// √(1 − x2): the paper's printed formula.
    Paper,
}

/// molnar2023's non-linear DGP: y = x1 − √(1 ± x2) + x3·x4 + (x4/10)² + ε,
/// x ~ U[0, 1]⁴, ε ~ N(0, `noise_sd`²).
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MolnarNonlinear {
    /// Noise standard deviation σ (molnar2023: 1).
    #[serde(default = "unit")]
    #[schemars(range(min = 0))]
    pub noise_sd: f64,
    /// `code` (√(1 + x2), default) or `paper` (√(1 − x2)).
    #[serde(default)]
    pub variant: NonlinearVariant,
}

fn unit() -> f64 {
    1.0
}

/// Every feature's marginal is U[0, 1].
struct UnitUniform;

impl MarginalSampler for UnitUniform {
    fn draw(&self, _feature: usize, rng: &mut dyn Rng) -> f64 {
        rng.random()
    }
}

/// n rows of p independent U[0, 1] features (row by row), and y = f(x) + σ·ε.
fn sample_uniform(
    n: usize,
    p: usize,
    noise_sd: f64,
    f: impl Fn(ArrayView1<'_, f64>) -> f64,
    names: Vec<String>,
    rng: &mut dyn Rng,
) -> Result<Dataset, DgpError> {
    let mut x = Array2::zeros((n, p));
    let mut y = Array1::zeros(n);
    for (mut row, yi) in x.rows_mut().into_iter().zip(y.iter_mut()) {
        row.mapv_inplace(|_| rng.random::<f64>());
        let e: f64 = rng.sample(StandardNormal);
        *yi = f(row.view()) + noise_sd * e;
    }
    Dataset::new(x, Target::Continuous(y), names).map_err(DgpError::rows)
}

fn names(p: usize) -> Vec<String> {
    (1..=p).map(|j| format!("X{j}")).collect()
}

impl MolnarLinear {
    fn f(x: ArrayView1<'_, f64>) -> f64 {
        x[0] - x[1]
    }
}

impl MolnarNonlinear {
    fn f(&self, x: ArrayView1<'_, f64>) -> f64 {
        let root = match self.variant {
            NonlinearVariant::Code => (1.0 + x[1]).sqrt(),
            NonlinearVariant::Paper => (1.0 - x[1]).sqrt(),
        };
        x[0] - root + x[2] * x[3] + (x[3] / 10.0).powi(2)
    }
}

impl Dgp for MolnarLinear {
    /// Each parameter within the range its field declares
    /// ([`xai_core::settings::check_value`]).
    fn validate(&self) -> Result<(), DgpError> {
        Ok(xai_core::settings::check_value(self)?)
    }

    fn feature_names(&self) -> Vec<String> {
        names(2)
    }

    fn sample(&self, n: usize, rng: &mut dyn Rng) -> Result<Dataset, DgpError> {
        sample_uniform(n, 2, self.noise_sd, Self::f, self.feature_names(), rng)
    }

    fn conditional_mean(&self, x: ArrayView2<'_, f64>) -> Array1<f64> {
        x.rows().into_iter().map(Self::f).collect()
    }

    fn conditional_variance(&self, x: ArrayView2<'_, f64>) -> Array1<f64> {
        Array1::from_elem(x.nrows(), self.noise_sd * self.noise_sd)
    }

    fn marginals(&self) -> Option<Marginals> {
        Some(Marginals(Arc::new(UnitUniform)))
    }
}

impl Dgp for MolnarNonlinear {
    /// Each parameter within the range its field declares
    /// ([`xai_core::settings::check_value`]).
    fn validate(&self) -> Result<(), DgpError> {
        Ok(xai_core::settings::check_value(self)?)
    }

    fn feature_names(&self) -> Vec<String> {
        names(4)
    }

    fn sample(&self, n: usize, rng: &mut dyn Rng) -> Result<Dataset, DgpError> {
        sample_uniform(
            n,
            4,
            self.noise_sd,
            |x| self.f(x),
            self.feature_names(),
            rng,
        )
    }

    fn conditional_mean(&self, x: ArrayView2<'_, f64>) -> Array1<f64> {
        x.rows().into_iter().map(|r| self.f(r)).collect()
    }

    fn conditional_variance(&self, x: ArrayView2<'_, f64>) -> Array1<f64> {
        Array1::from_elem(x.nrows(), self.noise_sd * self.noise_sd)
    }

    fn marginals(&self) -> Option<Marginals> {
        Some(Marginals(Arc::new(UnitUniform)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;
    use xai_core::rng::stream_rng;

    #[test]
    fn the_formulas_are_the_code_s_and_the_paper_s() {
        let x = array![[0.5, 0.44, 0.2, 0.3]];
        let code = MolnarNonlinear {
            noise_sd: 1.0,
            variant: NonlinearVariant::Code,
        };
        let paper = MolnarNonlinear {
            variant: NonlinearVariant::Paper,
            ..code.clone()
        };
        // 0.5 − √1.44 + 0.06 + 0.0009 and 0.5 − √0.56 + 0.06 + 0.0009.
        assert!((code.conditional_mean(x.view())[0] - (0.5 - 1.2 + 0.0609)).abs() < 1e-12);
        let want = 0.5 - 0.56f64.sqrt() + 0.0609;
        assert!((paper.conditional_mean(x.view())[0] - want).abs() < 1e-12);
        let linear = MolnarLinear { noise_sd: 1.0 };
        assert_eq!(linear.conditional_mean(array![[0.75, 0.25]].view())[0], 0.5);
    }

    #[test]
    fn features_are_unit_uniform_and_the_noise_has_the_given_sd() {
        let dgp = MolnarLinear { noise_sd: 1.0 };
        let n = 20_000;
        let data = dgp.sample(n, &mut stream_rng(7, 0)).unwrap();
        let x = data.x();
        assert!(x.iter().all(|&v| (0.0..1.0).contains(&v)));
        // Var U[0, 1] = 1/12; the sd of a variance estimate from 20,000 draws ≈ 0.0006.
        for j in 0..2 {
            assert!((x.column(j).var(1.0) - 1.0 / 12.0).abs() < 0.003);
        }
        let Target::Continuous(y) = data.y() else {
            panic!("regression")
        };
        let resid = y - &dgp.conditional_mean(x);
        assert!((resid.var(1.0) - 1.0).abs() < 0.04, "{}", resid.var(1.0));
        let m = dgp.marginals().unwrap();
        let mut rng = stream_rng(8, 0);
        let draws: Vec<f64> = (0..n).map(|_| m.0.draw(1, &mut rng)).collect();
        let mean = draws.iter().sum::<f64>() / n as f64;
        assert!((mean - 0.5).abs() < 0.01);
    }

    #[test]
    fn a_negative_noise_sd_is_named() {
        let node = serde_json::json!({"noise_sd": -1.0});
        let err = xai_core::settings::check_ranges::<MolnarLinear>(&node).unwrap_err();
        assert_eq!(err.path, "noise_sd");
    }
}
