//! The Mease–Wyner (2008) classification DGP of wood2024 Fig. 3 (PAPERS.md §1.4) and
//! workload W7.
//!
//! x ~ U[0,1]^d; P(Y = 1 | x) = ε + (1 − 2ε)·1(Σ_{j≤J} x_j > J/2). Optionally the last
//! feature is replaced by a copy of another (wood2024 Fig. 3 b, c). Per row the draws
//! are x_1..x_d, then u ~ U[0,1]; Y = 1(u < P(Y = 1 | x)).

use ndarray::{Array1, Array2, ArrayView2};
use rand::{Rng, RngExt};
use serde::Deserialize;
use xai_core::{Dataset, Target};

use crate::{Dgp, DgpError};

/// Parameters of the Mease–Wyner DGP.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MeaseWyner {
    /// Number of features d (wood2024: 10).
    #[serde(default = "default_d")]
    #[schemars(range(min = 2))]
    pub d: usize,
    /// Number J of features in the signal (wood2024: 4); 1 ≤ J ≤ d.
    #[serde(default = "default_j")]
    #[schemars(range(min = 1))]
    pub j: usize,
    /// Label noise ε in [0, 0.5) (wood2024: 0.1).
    #[serde(default = "default_eps")]
    #[schemars(range(min = 0), extend("exclusiveMaximum" = 0.5))]
    pub eps: f64,
    /// `none`, or the name of a feature (e.g. `X1`) whose copy replaces the last one.
    #[serde(default = "default_redundant")]
    pub redundant: String,
}

fn default_d() -> usize {
    10
}
fn default_j() -> usize {
    4
}
fn default_eps() -> f64 {
    0.1
}
fn default_redundant() -> String {
    "none".into()
}

impl MeaseWyner {
    /// The 0-based column copied into the last one, if any.
    fn copied(&self) -> Option<usize> {
        self.redundant
            .strip_prefix('X')
            .and_then(|j| j.parse::<usize>().ok())
            .map(|j| j - 1)
    }

    fn p(&self, x: &[f64]) -> f64 {
        let s: f64 = x[..self.j].iter().sum();
        self.eps + (1.0 - 2.0 * self.eps) * f64::from(u8::from(s > self.j as f64 / 2.0))
    }
}

impl Dgp for MeaseWyner {
    fn feature_names(&self) -> Vec<String> {
        (1..=self.d).map(|j| format!("X{j}")).collect()
    }

    /// Each parameter within the range its field declares (d ≥ 2, j ≥ 1, eps in
    /// [0, 0.5); [`xai_core::settings::check_value`]), j ≤ d, and redundant `none` or
    /// one of X1..X(d−1).
    fn validate(&self) -> Result<(), DgpError> {
        xai_core::settings::check_value(self)?;
        if self.j > self.d {
            return Err(DgpError::out_of_range(
                "j",
                self.j,
                format!("between 1 and d = {}", self.d),
            ));
        }
        match (self.redundant.as_str(), self.copied()) {
            ("none", _) => Ok(()),
            (_, Some(c)) if c + 1 < self.d => Ok(()),
            (other, _) => Err(DgpError::out_of_range(
                "redundant",
                format!("`{other}`"),
                format!("`none` or a feature X1..X{} (not the last)", self.d - 1),
            )),
        }
    }

    fn sample(&self, n: usize, rng: &mut dyn Rng) -> Result<Dataset, DgpError> {
        let d = self.d;
        let mut x = Array2::zeros((n, d));
        let mut labels = Array1::zeros(n);
        let mut row = vec![0.0; d];
        for i in 0..n {
            row.iter_mut().for_each(|v| *v = rng.random::<f64>());
            if let Some(c) = self.copied() {
                row[d - 1] = row[c];
            }
            labels[i] = usize::from(rng.random::<f64>() < self.p(&row));
            x.row_mut(i).assign(&ndarray::ArrayView1::from(&row));
        }
        Dataset::new(
            x,
            Target::Classes {
                labels,
                n_classes: 2,
            },
            self.feature_names(),
        )
        .map_err(DgpError::rows)
    }

    fn conditional_mean(&self, x: ArrayView2<'_, f64>) -> Array1<f64> {
        x.rows().into_iter().map(|r| self.p(&r.to_vec())).collect()
    }

    fn conditional_variance(&self, x: ArrayView2<'_, f64>) -> Array1<f64> {
        self.conditional_mean(x).mapv(|p| p * (1.0 - p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use xai_core::rng::stream_rng;

    #[test]
    fn label_rates_follow_the_definition_and_copies_are_exact() {
        let dgp = MeaseWyner {
            d: 10,
            j: 4,
            eps: 0.1,
            redundant: "X1".into(),
        };
        dgp.validate().unwrap();
        let data = dgp.sample(20_000, &mut stream_rng(1, 0)).unwrap();
        let x = data.x();
        assert_eq!(x.column(0), x.column(9));
        let Target::Classes { labels, .. } = data.y() else {
            unreachable!()
        };
        let p = dgp.conditional_mean(x);
        // Among rows with P = 0.9 the label rate is 0.9 (MC sd ≈ 0.003), and 0.1 below.
        for level in [0.1, 0.9] {
            let rows: Vec<usize> = (0..p.len()).filter(|&i| p[i] == level).collect();
            let rate = rows.iter().map(|&i| labels[i] as f64).sum::<f64>() / rows.len() as f64;
            assert!((rate - level).abs() < 0.015, "rate {rate} for P = {level}");
        }
    }

    #[test]
    fn invalid_parameters_are_named() {
        let dgp = MeaseWyner {
            d: 10,
            j: 4,
            eps: 0.1,
            redundant: "X10".into(),
        };
        let e = dgp.validate().unwrap_err();
        assert!(
            matches!(&e, DgpError::OutOfRange { param: "redundant", value, .. } if value == "`X10`"),
            "{e:?}"
        );
        assert_eq!(
            e.to_string(),
            "`redundant` = `X10` is invalid: must be `none` or a feature X1..X9 (not the last)"
        );
        let bad = |d, j, eps| MeaseWyner {
            d,
            j,
            eps,
            redundant: "none".into(),
        };
        assert_eq!(bad(10, 11, 0.1).validate().unwrap_err().param(), "j");
        let declared = |d: usize, j: usize, eps: f64| {
            let node = serde_json::json!({"d": d, "j": j, "eps": eps, "redundant": "none"});
            xai_core::settings::check_ranges::<MeaseWyner>(&node)
                .unwrap_err()
                .path
        };
        assert_eq!(declared(1, 1, 0.1), "d");
        assert_eq!(declared(10, 0, 0.1), "j");
        assert_eq!(declared(10, 4, 0.5), "eps");
    }
}
