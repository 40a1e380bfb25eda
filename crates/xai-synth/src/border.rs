//! The "border" regression DGP of wood2024 Fig. 6–7 (PAPERS.md §1.4, generator
//! [proposal]): training points only in bands around the square
//! max(|x1|, |x2|) ≥ `hole`, thinning outwards; Y = (X1 + X2)² + σ·ε.
//!
//! (X1, X2) ~ N(0, sd²·I₂) conditioned on max(|X1|, |X2|) ≥ hole (rejection), then
//! ε ~ N(0, 1).

use ndarray::{Array1, Array2, ArrayView2};
use rand::{Rng, RngExt};
use rand_distr::StandardNormal;
use serde::Deserialize;
use xai_core::{Dataset, Target};

use crate::{Dgp, DgpError};

/// Parameters of the border DGP.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Border {
    /// Standard deviation of each coordinate before rejection ([proposal]: 2).
    #[serde(default = "default_sd")]
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub sd: f64,
    /// Half-width of the empty square (wood2024: 1.5).
    #[serde(default = "default_hole")]
    #[schemars(range(min = 0))]
    pub hole: f64,
    /// Noise standard deviation σ (wood2024: 0.1).
    #[serde(default = "default_noise_sd")]
    #[schemars(range(min = 0))]
    pub noise_sd: f64,
}

fn default_sd() -> f64 {
    2.0
}
fn default_hole() -> f64 {
    1.5
}
fn default_noise_sd() -> f64 {
    0.1
}

impl Dgp for Border {
    fn feature_names(&self) -> Vec<String> {
        vec!["X1".into(), "X2".into()]
    }

    /// Each parameter within the range its field declares (sd > 0, hole ≥ 0,
    /// noise_sd ≥ 0; [`xai_core::settings::check_value`]), and hole ≤ 3·sd (a larger
    /// hole leaves almost no mass outside it, and rejection sampling would stall).
    fn validate(&self) -> Result<(), DgpError> {
        xai_core::settings::check_value(self)?;
        if self.hole > 3.0 * self.sd {
            return Err(DgpError::out_of_range(
                "hole",
                self.hole,
                format!(
                    "at most 3·sd = {} (sd = {}): a larger hole leaves almost no mass outside it",
                    3.0 * self.sd,
                    self.sd
                ),
            ));
        }
        Ok(())
    }

    fn sample(&self, n: usize, rng: &mut dyn Rng) -> Result<Dataset, DgpError> {
        let mut x = Array2::zeros((n, 2));
        let mut y = Array1::zeros(n);
        for i in 0..n {
            let (a, b) = loop {
                let a: f64 = self.sd * rng.sample::<f64, _>(StandardNormal);
                let b: f64 = self.sd * rng.sample::<f64, _>(StandardNormal);
                if a.abs().max(b.abs()) >= self.hole {
                    break (a, b);
                }
            };
            x[[i, 0]] = a;
            x[[i, 1]] = b;
            let e: f64 = rng.sample(StandardNormal);
            y[i] = (a + b).powi(2) + self.noise_sd * e;
        }
        Dataset::new(x, Target::Continuous(y), self.feature_names()).map_err(DgpError::rows)
    }

    fn conditional_mean(&self, x: ArrayView2<'_, f64>) -> Array1<f64> {
        x.rows()
            .into_iter()
            .map(|r| (r[0] + r[1]).powi(2))
            .collect()
    }

    fn conditional_variance(&self, x: ArrayView2<'_, f64>) -> Array1<f64> {
        Array1::from_elem(x.nrows(), self.noise_sd * self.noise_sd)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use xai_core::rng::stream_rng;

    #[test]
    fn no_point_falls_in_the_hole_and_bands_thin_outwards() {
        let dgp = Border {
            sd: 2.0,
            hole: 1.5,
            noise_sd: 0.1,
        };
        let data = dgp.sample(5000, &mut stream_rng(1, 0)).unwrap();
        let m: Vec<f64> = data
            .x()
            .rows()
            .into_iter()
            .map(|r| r[0].abs().max(r[1].abs()))
            .collect();
        assert!(m.iter().all(|&v| v >= 1.5));
        let band = |lo: f64, hi: f64| m.iter().filter(|&&v| v >= lo && v < hi).count();
        assert!(band(1.5, 2.5) > band(2.5, 3.5) && band(2.5, 3.5) > band(3.5, 4.5));
    }

    #[test]
    fn invalid_parameters_are_named() {
        let declared = |sd: f64, hole: f64, noise_sd: f64| {
            let node = serde_json::json!({"sd": sd, "hole": hole, "noise_sd": noise_sd});
            xai_core::settings::check_ranges::<Border>(&node)
                .unwrap_err()
                .path
        };
        assert_eq!(declared(0.0, 1.5, 0.1), "sd");
        assert_eq!(declared(2.0, -1.0, 0.1), "hole");
        assert_eq!(declared(2.0, 1.5, -0.1), "noise_sd");
        let bad = |sd, hole, noise_sd| Border { sd, hole, noise_sd }.validate().unwrap_err();
        let e = bad(2.0, 7.0, 0.1);
        assert!(
            matches!(&e, DgpError::OutOfRange { param: "hole", value, .. } if value == "7"),
            "{e:?}"
        );
        assert_eq!(
            e.to_string(),
            "`hole` = 7 is invalid: must be at most 3·sd = 6 (sd = 2): a larger hole leaves almost no mass outside it"
        );
    }
}
