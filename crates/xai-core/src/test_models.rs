//! Small hand-written models and samplers for the unit tests of this crate.

use ndarray::{Array1, Array2, ArrayView2};
use rand::{Rng, RngExt};

use crate::model::Model;
use crate::predictions::Predictions;

/// Point predictions f(x) = βᵀx.
pub struct Linear(pub Vec<f64>);

impl Model for Linear {
    fn predict(&self, x: ArrayView2<'_, f64>) -> crate::error::Result<Predictions> {
        Ok(Predictions::Point(x.dot(&Array1::from(self.0.clone()))))
    }
}

/// Gaussian predictions with mean x₁ + x₂ and log-variance (x₁ − x₂)² + 0.3·x₃,
/// with column `ignore` (if any) set to 0 before predicting.
pub struct Gaussian {
    pub ignore: Option<usize>,
}

impl Model for Gaussian {
    fn predict(&self, x: ArrayView2<'_, f64>) -> crate::error::Result<Predictions> {
        let mut x = x.to_owned();
        if let Some(j) = self.ignore {
            x.column_mut(j).fill(0.0);
        }
        let mean = x.rows().into_iter().map(|r| r[0] + r[1]).collect();
        let var = x
            .rows()
            .into_iter()
            .map(|r| ((r[0] - r[1]).powi(2) + 0.3 * r[2]).exp())
            .collect();
        Ok(Predictions::Gaussian { mean, var })
    }
}

/// One N(0, 1) draw (Box–Muller), so this crate needs no distribution crate.
pub fn standard_normal<R: Rng + ?Sized>(rng: &mut R) -> f64 {
    let u1: f64 = 1.0 - rng.random::<f64>();
    let u2: f64 = rng.random::<f64>();
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

/// n rows of zero-mean normals with sds `sd`; columns 0 and 1 have correlation `rho`,
/// the others are independent.
pub fn normal_design<R: Rng + ?Sized>(n: usize, sd: &[f64], rho: f64, rng: &mut R) -> Array2<f64> {
    let d = sd.len();
    let mut x = Array2::zeros((n, d));
    for mut row in x.rows_mut() {
        let z: Vec<f64> = (0..d).map(|_| standard_normal(rng)).collect();
        for j in 0..d {
            row[j] = sd[j] * z[j];
        }
        row[1] = sd[1] * (rho * z[0] + (1.0 - rho * rho).sqrt() * z[1]);
    }
    x
}
