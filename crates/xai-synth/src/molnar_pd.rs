//! The DGPs of molnar2023's PD studies, whose true PD is known in closed form.
//!
//! - [`MolnarAdditive`] (Table 2, PAPERS.md §2.5 [paper+code]): y = 4x1 − 2x2 + 2x3 −
//!   x4 + x5 + ε, x ~ U[0, 1]⁵, ε ~ N(0, (0.2·sd(f))²) with sd(f) the *sample* sd of
//!   f(x) over the n rows drawn [code]. PD_j(x) = β_j·x + ½·Σ_{k≠j} β_k.
//! - [`MolnarSine`] (Fig. 3, PAPERS.md §2.6 [code]): x1 ~ U(0, 10), x2, x3 ~ N(0, 1),
//!   y = sin(x1) + x1/2 + x2 + x2·x3² + N(0, 5²). PD_1(x) = sin(x) + x/2 (E[x2] = 0
//!   and x2 ⟂ x3), PD_2(x) = E[sin(x1) + x1/2] + x·(1 + E[x3²]) = (1 − cos 10)/10 +
//!   5/2 + 2x, PD_3(x) = (1 − cos 10)/10 + 5/2.

use ndarray::{Array1, Array2, ArrayView1, ArrayView2};
use rand::{Rng, RngExt};
use rand_distr::StandardNormal;
use serde::Deserialize;
use xai_core::{Dataset, Target};

use crate::{Dgp, DgpError};

/// The coefficients of [`MolnarAdditive`].
const BETA: [f64; 5] = [4.0, -2.0, 2.0, -1.0, 1.0];

/// molnar2023 Table 2's linear DGP with noise relative to the signal's sample sd.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MolnarAdditive {
    /// The noise sd as a fraction of the sample sd of f over the rows drawn
    /// (molnar2023: 0.2).
    #[serde(default = "fifth")]
    #[schemars(range(min = 0))]
    pub noise_fraction: f64,
}

fn fifth() -> f64 {
    0.2
}

/// molnar2023 Fig. 3's DGP: a sine in x1 plus an interaction of x2 and x3.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MolnarSine {
    /// Noise sd (molnar2023: 5).
    #[serde(default = "five")]
    #[schemars(range(min = 0))]
    pub noise_sd: f64,
}

fn five() -> f64 {
    5.0
}

fn names(p: usize) -> Vec<String> {
    (1..=p).map(|j| format!("X{j}")).collect()
}

impl MolnarAdditive {
    fn f(x: ArrayView1<'_, f64>) -> f64 {
        x.iter().zip(BETA).map(|(v, b)| v * b).sum()
    }
}

impl Dgp for MolnarAdditive {
    /// Each parameter within the range its field declares
    /// ([`xai_core::settings::check_value`]).
    fn validate(&self) -> Result<(), DgpError> {
        Ok(xai_core::settings::check_value(self)?)
    }

    fn feature_names(&self) -> Vec<String> {
        names(5)
    }

    /// The n rows first (row by row), then f's sample sd (n − 1), then the n noises.
    fn sample(&self, n: usize, rng: &mut dyn Rng) -> Result<Dataset, DgpError> {
        let x = Array2::from_shape_simple_fn((n, 5), || rng.random::<f64>());
        let f: Array1<f64> = x.rows().into_iter().map(Self::f).collect();
        let sd = if n > 1 { f.std(1.0) } else { 0.0 };
        let y = f.mapv(|v| v + self.noise_fraction * sd * rng.sample::<f64, _>(StandardNormal));
        Dataset::new(x, Target::Continuous(y), self.feature_names()).map_err(DgpError::rows)
    }

    fn conditional_mean(&self, x: ArrayView2<'_, f64>) -> Array1<f64> {
        x.rows().into_iter().map(Self::f).collect()
    }

    /// The population version (noise_fraction·sd(f))² with Var f = Σβ²/12 = 26/12;
    /// a sample's noise uses its own sample sd.
    fn conditional_variance(&self, x: ArrayView2<'_, f64>) -> Array1<f64> {
        let var_f: f64 = BETA.iter().map(|b| b * b).sum::<f64>() / 12.0;
        Array1::from_elem(x.nrows(), self.noise_fraction.powi(2) * var_f)
    }

    fn partial_dependence(&self, feature: usize, grid: &[f64]) -> Option<Vec<f64>> {
        let rest: f64 = (0..5)
            .filter(|&k| k != feature)
            .map(|k| BETA[k] / 2.0)
            .sum();
        let b = *BETA.get(feature)?;
        Some(grid.iter().map(|x| b * x + rest).collect())
    }
}

impl MolnarSine {
    fn f(x: ArrayView1<'_, f64>) -> f64 {
        x[0].sin() + 0.5 * x[0] + x[1] + x[1] * x[2] * x[2]
    }
}

impl Dgp for MolnarSine {
    /// Each parameter within the range its field declares
    /// ([`xai_core::settings::check_value`]).
    fn validate(&self) -> Result<(), DgpError> {
        Ok(xai_core::settings::check_value(self)?)
    }

    fn feature_names(&self) -> Vec<String> {
        names(3)
    }

    /// Row by row: x1, x2, x3, then the noise.
    fn sample(&self, n: usize, rng: &mut dyn Rng) -> Result<Dataset, DgpError> {
        let mut x = Array2::zeros((n, 3));
        let mut y = Array1::zeros(n);
        for (mut row, yi) in x.rows_mut().into_iter().zip(y.iter_mut()) {
            row[0] = 10.0 * rng.random::<f64>();
            row[1] = rng.sample(StandardNormal);
            row[2] = rng.sample(StandardNormal);
            let e: f64 = rng.sample(StandardNormal);
            *yi = Self::f(row.view()) + self.noise_sd * e;
        }
        Dataset::new(x, Target::Continuous(y), self.feature_names()).map_err(DgpError::rows)
    }

    fn conditional_mean(&self, x: ArrayView2<'_, f64>) -> Array1<f64> {
        x.rows().into_iter().map(Self::f).collect()
    }

    fn conditional_variance(&self, x: ArrayView2<'_, f64>) -> Array1<f64> {
        Array1::from_elem(x.nrows(), self.noise_sd * self.noise_sd)
    }

    fn partial_dependence(&self, feature: usize, grid: &[f64]) -> Option<Vec<f64>> {
        // E[sin(x1) + x1/2] over U(0, 10) = (1 − cos 10)/10 + 5/2.
        let mean_1 = (1.0 - 10f64.cos()) / 10.0 + 2.5;
        let pd = |x: f64| match feature {
            0 => x.sin() + 0.5 * x,
            1 => mean_1 + 2.0 * x,
            _ => mean_1,
        };
        (feature < 3).then(|| grid.iter().map(|&x| pd(x)).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use xai_core::rng::stream_rng;

    /// PD_j(x) by Monte Carlo: the mean of E[Y | x_j := x, x_−j] over a large sample.
    fn monte_carlo_pd(dgp: &dyn Dgp, feature: usize, x: f64) -> (f64, f64) {
        let n = 200_000;
        let mut data = dgp
            .sample(n, &mut stream_rng(31, feature as u64))
            .unwrap()
            .x()
            .to_owned();
        data.column_mut(feature).fill(x);
        let f = dgp.conditional_mean(data.view());
        (f.mean().unwrap(), f.std(1.0) / (n as f64).sqrt())
    }

    #[test]
    fn the_closed_form_pds_match_monte_carlo() {
        let dgps: [(&dyn Dgp, &[f64]); 2] = [
            (
                &MolnarAdditive {
                    noise_fraction: 0.2,
                },
                &[0.1, 0.5, 0.9],
            ),
            (&MolnarSine { noise_sd: 5.0 }, &[0.5, 3.0, 7.5]),
        ];
        for (dgp, grid) in dgps {
            for j in 0..dgp.feature_names().len() {
                let pd = dgp.partial_dependence(j, grid).unwrap();
                for (&x, want) in grid.iter().zip(pd) {
                    let (mc, se) = monte_carlo_pd(dgp, j, x);
                    assert!(
                        (mc - want).abs() < 4.0 * se + 1e-12,
                        "feature {j} at {x}: {mc} vs {want}"
                    );
                }
            }
            let p = dgp.feature_names().len();
            assert!(dgp.partial_dependence(p, grid).is_none());
        }
        // PD_1 of the additive DGP is 4x: the other coefficients sum to 0.
        let pd = MolnarAdditive {
            noise_fraction: 0.2,
        }
        .partial_dependence(0, &[0.3])
        .unwrap();
        assert!((pd[0] - 1.2).abs() < 1e-12);
    }

    #[test]
    fn the_additive_noise_is_a_fifth_of_the_samples_signal_sd() {
        // Over many rows the residual sd / sd(f) → 0.2 (sd of the ratio ≈ 0.2/√(2n)).
        let dgp = MolnarAdditive {
            noise_fraction: 0.2,
        };
        let data = dgp.sample(50_000, &mut stream_rng(4, 0)).unwrap();
        let f = dgp.conditional_mean(data.x());
        let Target::Continuous(y) = data.y() else {
            panic!("regression")
        };
        let ratio = (y - &f).std(1.0) / f.std(1.0);
        assert!((ratio - 0.2).abs() < 0.003, "{ratio}");
        // Noise-free with fraction 0.
        let exact = MolnarAdditive {
            noise_fraction: 0.0,
        }
        .sample(10, &mut stream_rng(4, 1))
        .unwrap();
        let Target::Continuous(y) = exact.y() else {
            panic!("regression")
        };
        assert_eq!(y, &dgp.conditional_mean(exact.x()));
        let node = serde_json::json!({"noise_sd": -1.0});
        let err = xai_core::settings::check_ranges::<MolnarSine>(&node).unwrap_err();
        assert_eq!(err.path, "noise_sd");
    }
}
