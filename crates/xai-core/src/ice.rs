//! The curve aggregation: individual conditional expectation (ICE) curves and their
//! mean, the partial dependence (PD).

use ndarray::{Array2, ArrayView2};

use crate::dataset::Dataset;
use crate::error::Result;
use crate::inference::{Estimate, t_interval};
use crate::model::{MeanCovariance, Model};
use crate::perturbation::{GridSpec, PerturbationSpec};
use crate::perturbed::perturbed_statistics;
use crate::statistic::Statistic;

/// ICE curves and PD of one feature under one statistic.
#[derive(Debug, Clone, PartialEq)]
pub struct IceResult {
    /// The feature's column index.
    pub feature: usize,
    /// The grid values x_g.
    pub grid: Vec<f64>,
    /// `curves[[i, g]]` = ICE⁽ⁱ⁾(x_g) = s(q(· | x₋ⱼ⁽ⁱ⁾, x_j = x_g)) (wood2024 Eq. 4, 10).
    pub curves: Array2<f64>,
    /// PD(x_g) = (1/n)·Σᵢ ICE⁽ⁱ⁾(x_g) (wood2024 Eq. 3, 8–9; molnar2023 Eq. 2) with the
    /// Monte-Carlo variance of molnar2023 Eq. 5 and the t-band of Eq. 7.
    pub pd: Vec<Estimate>,
}

/// Aggregates one feature's grid statistics (`values[[i, g]]`) into ICE curves and PD.
pub fn ice_from_values(
    feature: usize,
    grid: Vec<f64>,
    values: ArrayView2<'_, f64>,
    level: f64,
) -> IceResult {
    let pd = values
        .columns()
        .into_iter()
        .map(|c| t_interval(&c.to_vec(), level))
        .collect();
    IceResult {
        feature,
        grid,
        curves: values.to_owned(),
        pd,
    }
}

/// The model-based PD band of molnar2023 §2.5 (Moosbauer et al. 2021; the "mod"
/// column of Table 2): at each grid value x_g, PD̂(x_g) = `pd[g]` (the mean prediction
/// over the n rows of `x` with column `feature` set to x_g) with
/// se² = (1/n²)·1ᵀK(x_g)1, K(x_g) the joint covariance of those n mean predictions
/// ([`MeanCovariance`]), and the normal band PD̂ ± z_{1−α/2}·se, α = 1 − `level`.
/// It counts the model's uncertainty given the n rows, not the Monte-Carlo error of
/// averaging over them (Eq. 5), which is why it undercovers the true PD.
pub fn pd_model_band(
    cov: &dyn MeanCovariance,
    x: ArrayView2<'_, f64>,
    feature: usize,
    grid: &[f64],
    pd: &[f64],
    level: f64,
) -> Vec<Estimate> {
    use statrs::distribution::{ContinuousCDF, Normal};
    let z = Normal::standard().inverse_cdf(1.0 - (1.0 - level) / 2.0);
    let mut design = x.to_owned();
    grid.iter()
        .zip(pd)
        .map(|(&v, &estimate)| {
            design.column_mut(feature).fill(v);
            let se = cov.variance_of_average(design.view()).max(0.0).sqrt();
            Estimate {
                estimate,
                se,
                lower: estimate - z * se,
                upper: estimate + z * se,
                n: x.nrows(),
            }
        })
        .collect()
}

/// The conditional PD (M-plot) of PAPERS.md §2.7's proposal for molnar2023 Fig. 1 and 6:
/// at grid value a_g, the mean of the ICE values ICE⁽ⁱ⁾(a_g) over the `nearest` rows i
/// whose own value x_j⁽ⁱ⁾ is closest to a_g (ties in a random order drawn from stream
/// (`seed`, 0), never the rows' order, which may follow the data's sources), with the
/// t-interval over those rows (molnar2023 Eq. 5, 7 with n = `nearest`). It estimates
/// E[f̂(a_g, X₋ⱼ) | X_j ≈ a_g]: the other features keep the values they have near
/// a_g, where the PD averages them over all rows. `column` holds x_j of the rows of
/// `curves` (n × G); `nearest` is capped at n.
pub fn conditional_pd(
    curves: ArrayView2<'_, f64>,
    column: &[f64],
    grid: &[f64],
    nearest: usize,
    level: f64,
    seed: u64,
) -> Vec<Estimate> {
    use rand::seq::SliceRandom;
    let k = nearest.min(column.len());
    let mut order: Vec<usize> = (0..column.len()).collect();
    order.shuffle(&mut crate::rng::stream_rng(seed, 0));
    grid.iter()
        .enumerate()
        .map(|(g, &a)| {
            // A stable sort keeps tied rows in the shuffled order.
            let mut rows = order.clone();
            rows.sort_by(|&i, &j| (column[i] - a).abs().total_cmp(&(column[j] - a).abs()));
            let values: Vec<f64> = rows[..k].iter().map(|&i| curves[[i, g]]).collect();
            t_interval(&values, level)
        })
        .collect()
}

/// ICE curves and PD of each feature in `features` for each statistic: `result[s][f]`.
/// With `Statistic::Entropy` these are Entropy-ICE/PDP (wood2024 Eq. 8–10), with
/// `Statistic::Nll` Likelihood-ICE/PDP, with `Statistic::Prediction` the ordinary
/// ICE/PDP (Eq. 3–4). The grid spans the columns of `data`.
pub fn ice(
    model: &dyn Model,
    data: &Dataset,
    features: &[usize],
    grid: GridSpec,
    statistics: &[Statistic],
    level: f64,
) -> Result<Vec<Vec<IceResult>>> {
    let perturbation =
        PerturbationSpec::Grid(grid).resolve(data, data, &crate::Samplers::default())?;
    // A grid perturbation draws no random numbers, so the seed is irrelevant.
    let perturbed = perturbed_statistics(model, data, features, &perturbation, statistics, 0)?;
    let crate::perturbation::Perturbation::Grid { values: grids } = &perturbation else {
        unreachable!("a grid spec resolves to a grid")
    };
    Ok((0..statistics.len())
        .map(|s| {
            perturbed
                .iter()
                .map(|p| {
                    ice_from_values(
                        p.feature,
                        grids[p.feature].clone(),
                        p.values[s].view(),
                        level,
                    )
                })
                .collect()
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_conditional_pd_averages_the_rows_nearest_each_grid_value() {
        // f(x) = x_j·x_k with x_k = x_j: ICE⁽ⁱ⁾(a) = a·x_j⁽ⁱ⁾. The rows nearest a have
        // x_j ≈ a, so the M-plot is ≈ a², where the PD is a·mean(x_j).
        let column: Vec<f64> = (0..100).map(|i| i as f64 / 99.0).collect();
        let grid = [0.1, 0.5, 0.9];
        let curves = Array2::from_shape_fn((100, 3), |(i, g)| grid[g] * column[i]);
        let m = conditional_pd(curves.view(), &column, &grid, 5, 0.95, 1);
        for (e, a) in m.iter().zip(grid) {
            assert!((e.estimate - a * a).abs() < 0.03 * a, "{a}: {}", e.estimate);
            assert_eq!(e.n, 5);
        }
        let pd_at_01 = 0.1 * column.iter().sum::<f64>() / 100.0;
        assert!(
            (m[0].estimate - pd_at_01).abs() > 0.03,
            "the PD would differ"
        );
        // With every row "nearest" it is the PD.
        let all = conditional_pd(curves.view(), &column, &grid, 1000, 0.95, 1);
        assert!((all[0].estimate - pd_at_01).abs() < 1e-12);
        // Ties are broken at random, not by row order: two tied groups of 50 rows with
        // value 0, the first with ICE 0 and the second 1, give about one half.
        let tied = vec![0.0; 100];
        let ice = Array2::from_shape_fn((100, 1), |(i, _)| f64::from(u8::from(i >= 50)));
        let m = conditional_pd(ice.view(), &tied, &[0.0], 40, 0.95, 3);
        assert!(
            m[0].estimate > 0.2 && m[0].estimate < 0.8,
            "{}",
            m[0].estimate
        );
    }
    use crate::dataset::Target;
    use crate::perturbation::GridRange;
    use crate::rng::stream_rng;
    use crate::test_models::{Linear, normal_design};

    #[test]
    fn pd_of_a_linear_model_is_the_line_through_the_other_means() {
        // f = βᵀx: PD_j(x) = β_j·x + Σ_{k≠j} β_k·mean(x_k); every ICE curve has slope β_j.
        let beta = vec![1.5, -2.0, 0.25];
        let x = normal_design(200, &[1.0, 1.0, 1.0], 0.5, &mut stream_rng(2, 0));
        let means: Vec<f64> = x.columns().into_iter().map(|c| c.mean().unwrap()).collect();
        let names = vec!["a".into(), "b".into(), "c".into()];
        let data = Dataset::new(x, Target::Continuous(ndarray::Array1::zeros(200)), names).unwrap();
        let grid = GridSpec {
            points: 5,
            range: GridRange::MinMax,
        };
        let res = ice(
            &Linear(beta.clone()),
            &data,
            &[1],
            grid,
            &[Statistic::Prediction],
            0.95,
        )
        .unwrap();
        let r = &res[0][0];
        for (g, &v) in r.grid.iter().enumerate() {
            let expected = beta[1] * v + beta[0] * means[0] + beta[2] * means[2];
            assert!((r.pd[g].estimate - expected).abs() < 1e-12);
        }
        let slope = (r.curves[[7, 4]] - r.curves[[7, 0]]) / (r.grid[4] - r.grid[0]);
        assert!((slope - beta[1]).abs() < 1e-12);
    }
}
