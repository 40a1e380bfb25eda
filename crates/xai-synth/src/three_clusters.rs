//! The three-cluster toy of wood2024 Fig. 2 (PAPERS.md §1.4, [proposal]): three
//! Gaussian clusters along the diagonal, so X1 and X2 are strongly correlated and
//! permuting one of them moves points off the diagonal, between the clusters.
//!
//! Class c ∈ {0, 1, 2} uniform; (X1, X2) ~ N((c − 1)·spread·(1, 1), sd²·I₂). Per row the
//! draws are the class, then two N(0, 1).

use ndarray::{Array1, Array2, ArrayView2};
use rand::{Rng, RngExt};
use rand_distr::StandardNormal;
use serde::Deserialize;
use xai_core::{Dataset, Target};

use crate::{Dgp, DgpError};

/// Parameters of the three-cluster DGP.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ThreeClusters {
    /// Distance along each axis between neighbouring cluster centres (> 0).
    #[serde(default = "default_spread")]
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub spread: f64,
    /// Standard deviation of each coordinate within a cluster (> 0).
    #[serde(default = "default_sd")]
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub sd: f64,
}

fn default_spread() -> f64 {
    2.0
}
fn default_sd() -> f64 {
    0.6
}

impl ThreeClusters {
    /// Class posterior P(c | x) of the generating mixture, per row (n × 3).
    fn posterior(&self, x: ArrayView2<'_, f64>) -> Array2<f64> {
        let mut p = Array2::zeros((x.nrows(), 3));
        for (i, r) in x.rows().into_iter().enumerate() {
            let logs: Vec<f64> = (0..3)
                .map(|c| {
                    let m = (c as f64 - 1.0) * self.spread;
                    -((r[0] - m).powi(2) + (r[1] - m).powi(2)) / (2.0 * self.sd * self.sd)
                })
                .collect();
            let top = logs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let w: Vec<f64> = logs.iter().map(|l| (l - top).exp()).collect();
            let s: f64 = w.iter().sum();
            for c in 0..3 {
                p[[i, c]] = w[c] / s;
            }
        }
        p
    }
}

impl Dgp for ThreeClusters {
    /// Each parameter within the range its field declares
    /// ([`xai_core::settings::check_value`]).
    fn validate(&self) -> Result<(), DgpError> {
        Ok(xai_core::settings::check_value(self)?)
    }

    fn feature_names(&self) -> Vec<String> {
        vec!["X1".into(), "X2".into()]
    }

    fn sample(&self, n: usize, rng: &mut dyn Rng) -> Result<Dataset, DgpError> {
        let mut x = Array2::zeros((n, 2));
        let mut labels = Array1::zeros(n);
        for i in 0..n {
            let c = rng.random_range(0..3usize);
            let m = (c as f64 - 1.0) * self.spread;
            for j in 0..2 {
                x[[i, j]] = m + self.sd * rng.sample::<f64, _>(StandardNormal);
            }
            labels[i] = c;
        }
        Dataset::new(
            x,
            Target::Classes {
                labels,
                n_classes: 3,
            },
            self.feature_names(),
        )
        .map_err(DgpError::rows)
    }

    /// E[Y | x] with the class index as Y: Σ_c c·P(c | x).
    fn conditional_mean(&self, x: ArrayView2<'_, f64>) -> Array1<f64> {
        self.posterior(x)
            .rows()
            .into_iter()
            .map(|p| p[1] + 2.0 * p[2])
            .collect()
    }

    /// Var(Y | x) with the class index as Y.
    fn conditional_variance(&self, x: ArrayView2<'_, f64>) -> Array1<f64> {
        self.posterior(x)
            .rows()
            .into_iter()
            .map(|p| {
                let m = p[1] + 2.0 * p[2];
                p[1] + 4.0 * p[2] - m * m
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use xai_core::rng::stream_rng;

    #[test]
    fn clusters_sit_on_the_diagonal_with_balanced_classes() {
        let dgp = ThreeClusters {
            spread: 2.0,
            sd: 0.6,
        };
        let data = dgp.sample(30_000, &mut stream_rng(5, 0)).unwrap();
        let Target::Classes { labels, .. } = data.y() else {
            unreachable!()
        };
        for c in 0..3 {
            let rows: Vec<usize> = (0..labels.len()).filter(|&i| labels[i] == c).collect();
            let share = rows.len() as f64 / 30_000.0;
            assert!((share - 1.0 / 3.0).abs() < 0.015, "class {c} share {share}");
            let mean = rows.iter().map(|&i| data.x()[[i, 1]]).sum::<f64>() / rows.len() as f64;
            assert!(
                (mean - (c as f64 - 1.0) * 2.0).abs() < 0.03,
                "class {c} mean {mean}"
            );
        }
        // At the centre (2, 2) the class weights are e^(−32/0.72), e^(−8/0.72), 1.
        let centre = ndarray::array![[2.0, 2.0]];
        let w = [(-32.0f64 / 0.72).exp(), (-8.0f64 / 0.72).exp(), 1.0];
        let s: f64 = w.iter().sum();
        let mean = (w[1] + 2.0 * w[2]) / s;
        let var = (w[1] + 4.0 * w[2]) / s - mean * mean;
        assert!((dgp.conditional_mean(centre.view())[0] - mean).abs() < 1e-12);
        assert!((dgp.conditional_variance(centre.view())[0] - var).abs() < 1e-12);
    }

    #[test]
    fn a_parameter_outside_its_declared_range_is_named() {
        use xai_core::settings::check_ranges;
        let check = |v: serde_json::Value| check_ranges::<ThreeClusters>(&v);
        let e = check(serde_json::json!({"spread": 0.0, "sd": 0.6})).unwrap_err();
        assert_eq!(e.to_string(), "spread is 0, outside its range > 0");
        let e = check(serde_json::json!({"spread": 2.0, "sd": -0.1})).unwrap_err();
        assert_eq!(e.path, "sd");
    }
}
