//! watson2023's modified Friedman benchmark (PAPERS.md §4.3): the mean of Z is driven by
//! X6..X10, its variance by X1..X5.
//!
//! X ~ U(0, 1)¹⁰; Y = f(X1..X5) + ε_y with f(a, b, c, d, e) = 10 sin(π a b) +
//! 20 (c − ½)² + 10 d + 5 e (Friedman #1) and ε_y ~ N(0, 1); Z = f(X6..X10) + ε_z with
//! ε_z ~ N(0, Ỹ²). The rescaled Ỹ is, in the authors' code (`variant: code`, the
//! default, whose numbers Table 1 reports), Y centred and scaled by the batch's sample
//! mean and sd, and in the paper's text (`variant: paper`) Y rescaled to [0, 1] by the
//! batch's minimum and maximum.
//!
//! The target is Z (`response: mean`, the data of the mean model f) or Ỹ²
//! (`response: variance`, the label the code trains the variance model h on).

use ndarray::{Array1, Array2, ArrayView1, ArrayView2};
use rand::{Rng, RngExt};
use rand_distr::StandardNormal;
use serde::Deserialize;
use xai_core::{Dataset, Target};

use crate::{Dgp, DgpError};

/// E[sin(π U V)] for independent U, V ~ U(0, 1): Cin(π)/π with
/// Cin(x) = ∫₀ˣ (1 − cos t)/t dt (by quadrature; checked by Monte Carlo in the tests).
const E_SIN: f64 = 0.524_663_067_575_341;
/// E[sin²(π U V)] = ½ − Si(2π)/(4π).
const E_SIN2: f64 = 0.387_147_083_302_500;

/// E[Y] = 10 E_SIN + 20/12 + 5 + 2.5.
const MEAN_Y: f64 = 10.0 * E_SIN + 20.0 / 12.0 + 7.5;
/// Var Y = 100 Var sin(πUV) + 400 (1/80 − 1/144) + 100/12 + 25/12 + 1 (the noise).
const VAR_Y: f64 = 100.0 * (E_SIN2 - E_SIN * E_SIN)
    + 400.0 * (1.0 / 80.0 - 1.0 / 144.0)
    + 100.0 / 12.0
    + 25.0 / 12.0
    + 1.0;

/// Which target the dataset carries.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Response {
    /// Z, the response of the mean model.
    #[default]
    Mean,
    /// Ỹ², the variance label of the variance model (the authors' code).
    Variance,
}

/// How Y is rescaled to Ỹ, the noise sd of Z.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Rescaling {
    /// The authors' code: (Y − mean)/sd over the batch (sample sd).
    #[default]
    Code,
    /// The paper's text: (Y − min)/(max − min) over the batch.
    Paper,
}

/// watson2023's Friedman mean/variance DGP.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FriedmanVariance {
    /// The target: `mean` (Z) or `variance` (Ỹ²).
    #[serde(default)]
    pub response: Response,
    /// The rescaling of Y: `code` (standardised, default) or `paper` ([0, 1]).
    #[serde(default)]
    pub variant: Rescaling,
}

/// Friedman #1 of five inputs.
fn friedman(x: ArrayView1<'_, f64>) -> f64 {
    10.0 * (std::f64::consts::PI * x[0] * x[1]).sin()
        + 20.0 * (x[2] - 0.5).powi(2)
        + 10.0 * x[3]
        + 5.0 * x[4]
}

impl FriedmanVariance {
    /// Ỹ of every Y of a batch.
    fn rescale(&self, y: &Array1<f64>) -> Array1<f64> {
        match self.variant {
            Rescaling::Code => {
                let (m, s) = (y.mean().unwrap_or(0.0), y.std(1.0));
                y.mapv(|v| (v - m) / s)
            }
            Rescaling::Paper => {
                let lo = y.iter().copied().fold(f64::INFINITY, f64::min);
                let hi = y.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                y.mapv(|v| (v - lo) / (hi - lo))
            }
        }
    }
}

impl Dgp for FriedmanVariance {
    fn feature_names(&self) -> Vec<String> {
        (1..=10).map(|j| format!("X{j}")).collect()
    }

    /// The n × 10 uniforms row by row, then the n noises of Y, then the n noises of Z.
    /// A batch needs two rows for its rescaling; with fewer, Ỹ = 0.
    fn sample(&self, n: usize, rng: &mut dyn Rng) -> Result<Dataset, DgpError> {
        let x = Array2::from_shape_simple_fn((n, 10), || rng.random::<f64>());
        let y: Array1<f64> = x
            .rows()
            .into_iter()
            .map(|r| friedman(r.slice(ndarray::s![..5])) + rng.sample::<f64, _>(StandardNormal))
            .collect();
        let ytilde = if n > 1 {
            self.rescale(&y)
        } else {
            Array1::zeros(n)
        };
        let target = match self.response {
            Response::Mean => x
                .rows()
                .into_iter()
                .zip(&ytilde)
                .map(|(r, s)| {
                    friedman(r.slice(ndarray::s![5..]))
                        + s.abs() * rng.sample::<f64, _>(StandardNormal)
                })
                .collect(),
            Response::Variance => ytilde.mapv(|v| v * v),
        };
        Dataset::new(x, Target::Continuous(target), self.feature_names()).map_err(DgpError::rows)
    }

    /// E[Z | X] = f(X6..X10) for `response: mean`; for `response: variance`, E[Ỹ² | X],
    /// as [`Dgp::conditional_variance`].
    fn conditional_mean(&self, x: ArrayView2<'_, f64>) -> Array1<f64> {
        match self.response {
            Response::Mean => x
                .rows()
                .into_iter()
                .map(|r| friedman(r.slice(ndarray::s![5..])))
                .collect(),
            Response::Variance => self.variance_of_z(x),
        }
    }

    /// Var(Z | X) = E[Ỹ² | X] for `response: mean`, in the population version of the
    /// rescaling: code, ((f(X1..X5) − E Y)² + 1)/Var Y with E Y = 14.4133 and
    /// Var Y = 24.8265; paper, ((f − a)² + 1)/(b − a)² with [a, b] = [0, 30], the range
    /// of the noiseless f (a batch's own extremes lie beyond it by the noise).
    /// For `response: variance` the label's own noise is not modelled: 0.
    fn conditional_variance(&self, x: ArrayView2<'_, f64>) -> Array1<f64> {
        match self.response {
            Response::Mean => self.variance_of_z(x),
            Response::Variance => Array1::zeros(x.nrows()),
        }
    }
}

impl FriedmanVariance {
    /// E[Ỹ² | X] in the population version of the rescaling (see
    /// [`Dgp::conditional_variance`]).
    fn variance_of_z(&self, x: ArrayView2<'_, f64>) -> Array1<f64> {
        let (shift, scale2) = match self.variant {
            Rescaling::Code => (MEAN_Y, VAR_Y),
            Rescaling::Paper => (0.0, 900.0),
        };
        x.rows()
            .into_iter()
            .map(|r| ((friedman(r.slice(ndarray::s![..5])) - shift).powi(2) + 1.0) / scale2)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use xai_core::rng::stream_rng;

    fn target(d: &Dataset) -> Array1<f64> {
        match d.y() {
            Target::Continuous(y) => y.clone(),
            Target::Classes { .. } => unreachable!(),
        }
    }

    /// The constants of E Y and Var Y against a large Monte-Carlo sample (se of the
    /// mean 0.005, of the variance about 0.03).
    #[test]
    fn the_moments_of_y_match_monte_carlo() {
        let mut rng = stream_rng(1, 0);
        let n = 1_000_000;
        let y: Array1<f64> = (0..n)
            .map(|_| {
                let r: Vec<f64> = (0..5).map(|_| rng.random::<f64>()).collect();
                friedman(ArrayView1::from(&r)) + rng.sample::<f64, _>(StandardNormal)
            })
            .collect();
        assert!(
            (y.mean().unwrap() - MEAN_Y).abs() < 0.02,
            "{}",
            y.mean().unwrap()
        );
        assert!((y.var(1.0) - VAR_Y).abs() < 0.12, "{}", y.var(1.0));
        // A wrong constant (Var without the noise) would be caught.
        assert!((y.var(1.0) - (VAR_Y - 1.0)).abs() > 0.5);
    }

    /// Z's noise sd is |Ỹ|: regressing (Z − f(X6..X10))² on the truth E[Ỹ² | X]
    /// recovers slope ≈ 1; the variance label is Ỹ², whose mean is (n−1)/n ≈ 1 in the
    /// code variant, and lies in [0, 1] in the paper's.
    #[test]
    fn the_variance_of_z_is_driven_by_the_first_five_features() {
        let dgp = FriedmanVariance::default();
        let d = dgp.sample(200_000, &mut stream_rng(2, 0)).unwrap();
        let z = target(&d);
        let mean = dgp.conditional_mean(d.x());
        let truth = dgp.conditional_variance(d.x());
        let r2: Array1<f64> = (&z - &mean).mapv(|v| v * v);
        let slope = r2.dot(&truth) / truth.dot(&truth);
        assert!((slope - 1.0).abs() < 0.02, "slope {slope}");
        assert!((truth.mean().unwrap() - 1.0).abs() < 0.01);
        let label = FriedmanVariance {
            response: Response::Variance,
            ..Default::default()
        };
        let v = target(&label.sample(1000, &mut stream_rng(3, 0)).unwrap());
        assert!(
            (v.mean().unwrap() - 0.999).abs() < 1e-9,
            "{}",
            v.mean().unwrap()
        );
        let paper = FriedmanVariance {
            response: Response::Variance,
            variant: Rescaling::Paper,
        };
        let v = target(&paper.sample(1000, &mut stream_rng(3, 0)).unwrap());
        assert!(v.iter().all(|&t| (0.0..=1.0).contains(&t)));
        assert_eq!(v.iter().copied().fold(0.0, f64::max), 1.0);
    }

    /// The mean of Z moves with X6..X10 only, and its variance with X1..X5 only.
    #[test]
    fn drivers_are_separated() {
        let dgp = FriedmanVariance::default();
        let mut a = Array2::from_elem((1, 10), 0.3);
        let m0 = dgp.conditional_mean(a.view())[0];
        let v0 = dgp.conditional_variance(a.view())[0];
        a[[0, 0]] = 0.9;
        assert_eq!(dgp.conditional_mean(a.view())[0], m0);
        assert!(dgp.conditional_variance(a.view())[0] != v0);
        a[[0, 7]] = 0.9;
        assert!(dgp.conditional_mean(a.view())[0] != m0);
    }
}
