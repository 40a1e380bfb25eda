//! How well one feature is predicted from the others (wood2024 Fig. 9): the
//! cross-validated R² of a learner fitted to x_j ~ x_−j (optionally plus the target).

use ndarray::{Array1, Axis};
use rand::Rng;

use crate::dataset::{Dataset, Target};
use crate::error::{CoreError, Result};
use crate::model::Learner;
use crate::resample::k_fold;
use crate::statistic::Statistic;

/// R² = 1 − Σᵢ (x_ij − x̂_ij)² / Σᵢ (x_ij − x̄_j)² with out-of-fold predictions x̂_ij of
/// `learner` fitted on the other `folds − 1` folds to the columns other than `feature`
/// (and the target, as a number, when `with_target`). Negative when the fit is worse
/// than the mean.
pub fn cv_r2(
    learner: &dyn Learner,
    data: &Dataset,
    feature: usize,
    with_target: bool,
    folds: usize,
    rng: &mut dyn Rng,
) -> Result<f64> {
    if folds < 2 || folds > data.n_rows() {
        return Err(CoreError::Invalid(format!(
            "folds must lie in 2..={}, got {folds}",
            data.n_rows()
        )));
    }
    let x = data.x();
    let keep: Vec<usize> = (0..data.n_features()).filter(|&j| j != feature).collect();
    let mut cols = x.select(Axis(1), &keep);
    let mut names: Vec<String> = keep
        .iter()
        .map(|&j| data.feature_names()[j].clone())
        .collect();
    if with_target {
        let y: Array1<f64> = match data.y() {
            Target::Continuous(y) => y.clone(),
            Target::Classes { labels, .. } => labels.mapv(|c| c as f64),
        };
        cols.push_column(y.view()).expect("one value per row");
        names.push("target".into());
    }
    let response = x.column(feature).to_owned();
    let problem = Dataset::new(cols, Target::Continuous(response.clone()), names)?;
    let fold = k_fold(problem.y(), folds, false, rng);
    let mut predicted = Array1::zeros(data.n_rows());
    for f in 0..folds {
        let train: Vec<usize> = (0..fold.len()).filter(|&i| fold[i] != f).collect();
        let held: Vec<usize> = (0..fold.len()).filter(|&i| fold[i] == f).collect();
        let model = learner.fit(&problem.select_rows(&train), rng)?;
        let part = problem.select_rows(&held);
        let p = Statistic::Prediction.per_row(&model.predict(part.x())?, part.y())?;
        for (&i, v) in held.iter().zip(p) {
            predicted[i] = v;
        }
    }
    let mean = response.mean().unwrap_or(0.0);
    let sse: f64 = (&response - &predicted).mapv(|v| v * v).sum();
    let sst: f64 = response.mapv(|v| (v - mean).powi(2)).sum();
    Ok(if sst > 0.0 { 1.0 - sse / sst } else { f64::NAN })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Model;
    use crate::predictions::Predictions;
    use crate::rng::stream_rng;
    use crate::test_models::normal_design;
    use ndarray::ArrayView2;

    /// Least squares on the columns (no intercept; the data are centred).
    struct Ols;
    struct Fitted(Array1<f64>);
    impl Model for Fitted {
        fn predict(&self, x: ArrayView2<'_, f64>) -> crate::error::Result<Predictions> {
            Ok(Predictions::Point(x.dot(&self.0)))
        }
    }
    impl Learner for Ols {
        fn fit(&self, data: &Dataset, _: &mut dyn Rng) -> Result<Box<dyn Model>> {
            let x = data.x();
            let Target::Continuous(y) = data.y() else {
                unreachable!()
            };
            // Normal equations for at most two columns, enough for the test.
            let xtx = x.t().dot(&x);
            let xty = x.t().dot(y);
            let beta = match xtx.nrows() {
                1 => Array1::from(vec![xty[0] / xtx[[0, 0]]]),
                _ => {
                    let det = xtx[[0, 0]] * xtx[[1, 1]] - xtx[[0, 1]] * xtx[[1, 0]];
                    Array1::from(vec![
                        (xtx[[1, 1]] * xty[0] - xtx[[0, 1]] * xty[1]) / det,
                        (xtx[[0, 0]] * xty[1] - xtx[[1, 0]] * xty[0]) / det,
                    ])
                }
            };
            Ok(Box::new(Fitted(beta)))
        }
    }

    #[test]
    fn r2_of_a_correlated_pair_is_rho_squared() {
        // X2 = ρ·X1 + noise: the best linear predictor of X2 from X1 has R² = ρ² = 0.81;
        // an independent column has R² ≈ 0 (slightly negative out of fold).
        let mut rng = stream_rng(6, 0);
        let x = normal_design(4000, &[1.0, 1.0, 1.0], 0.9, &mut rng);
        let names = vec!["a".into(), "b".into(), "c".into()];
        let data = Dataset::new(x, Target::Continuous(Array1::zeros(4000)), names).unwrap();
        let ols = Ols;
        let drop_c = data.select_rows(&(0..4000).collect::<Vec<_>>());
        let two = Dataset::new(
            drop_c.x().slice(ndarray::s![.., 0..2]).to_owned(),
            drop_c.y().clone(),
            vec!["a".into(), "b".into()],
        )
        .unwrap();
        let r2 = cv_r2(&ols, &two, 1, false, 5, &mut rng).unwrap();
        assert!((r2 - 0.81).abs() < 0.02, "R² {r2}");
        let r2_c = cv_r2(&ols, &data, 2, false, 5, &mut rng).unwrap();
        assert!(r2_c.abs() < 0.01, "independent column R² {r2_c}");
    }
}
