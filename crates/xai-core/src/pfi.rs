//! The mean-difference aggregation: permutation feature importance (PFI) with its
//! standard error and t-interval.

use ndarray::{Array1, ArrayView1, ArrayView2, Axis};

use crate::dataset::Dataset;
use crate::error::Result;
use crate::inference::{Estimate, t_interval};
use crate::model::Model;
use crate::perturbation::Perturbation;
use crate::perturbed::perturbed_statistics;
use crate::statistic::Statistic;

/// PFI of one feature under one statistic.
#[derive(Debug, Clone, PartialEq)]
pub struct PfiResult {
    /// The feature's column index.
    pub feature: usize,
    /// Per-row contributions L⁽ⁱ⁾ = (1/R)·Σ_r s(x̃⁽ⁱ'ʳ⁾) − s(x⁽ⁱ⁾), the summand of
    /// molnar2023 Eq. 4 and of wood2024 Eq. 5.
    pub contributions: Array1<f64>,
    /// The PFI of each perturbed copy r: (1/n)·Σᵢ [s(x̃⁽ⁱ'ʳ⁾) − s(x⁽ⁱ⁾)].
    pub per_copy: Vec<f64>,
    /// PFI = mean of the contributions, with SE √V̂ (molnar2023 Eq. 6) and the
    /// t-interval PFI ± t_{1−α/2, n−1}·√V̂ (Eq. 8).
    pub estimate: Estimate,
}

/// Aggregates one feature: `original[i]` = s(x⁽ⁱ⁾), `perturbed[[i, r]]` = s(x̃⁽ⁱ'ʳ⁾).
pub fn pfi_from_values(
    feature: usize,
    original: ArrayView1<'_, f64>,
    perturbed: ArrayView2<'_, f64>,
    level: f64,
) -> PfiResult {
    // Differences first, then means: a copy equal to the original contributes exactly 0.
    let diff = &perturbed - &original.insert_axis(Axis(1));
    let contributions = diff
        .mean_axis(Axis(1))
        .expect("at least one perturbed copy");
    // No rows (an empty test set, refused at load): every copy's mean is NaN.
    let per_copy = diff
        .mean_axis(Axis(0))
        .map_or_else(|| vec![f64::NAN; diff.ncols()], |m| m.to_vec());
    let estimate = t_interval(contributions.as_slice().expect("contiguous"), level);
    PfiResult {
        feature,
        contributions,
        per_copy,
        estimate,
    }
}

/// PFI of each feature in `features` for each statistic: `result[s][f]`.
///
/// PFI_s(j) = (1/n)·Σᵢ [ (1/R)·Σ_r s(x̃⁽ⁱ'ʳ⁾) − s(x⁽ⁱ⁾) ] (molnar2023 Eq. 4). With the
/// marginal permutation and `Statistic::Nll` this is Likelihood-PFI (wood2024 Eq. 5);
/// with `Statistic::Entropy` it is Entropy-PFI (wood2024 §3.2). All statistics of a
/// feature share the same perturbed copies (drawn from stream `seed`, see
/// [`perturbed_statistics`]); `level` is the interval's confidence (e.g. 0.95).
pub fn pfi(
    model: &dyn Model,
    data: &Dataset,
    features: &[usize],
    perturbation: &Perturbation,
    statistics: &[Statistic],
    seed: u64,
    level: f64,
) -> Result<Vec<Vec<PfiResult>>> {
    let pred = model.predict(data.x())?;
    let original = statistics
        .iter()
        .map(|s| s.per_row(&pred, data.y()))
        .collect::<Result<Vec<_>>>()?;
    let perturbed = perturbed_statistics(model, data, features, perturbation, statistics, seed)?;
    Ok(original
        .iter()
        .enumerate()
        .map(|(s, orig)| {
            perturbed
                .iter()
                .map(|p| pfi_from_values(p.feature, orig.view(), p.values[s].view(), level))
                .collect()
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::Target;
    use crate::rng::stream_rng;
    use crate::test_models::{Gaussian, Linear, normal_design, standard_normal};
    use ndarray::{Array2, array};

    fn dataset(x: Array2<f64>, y: Vec<f64>) -> Dataset {
        let names = (1..=x.ncols()).map(|j| format!("X{j}")).collect();
        Dataset::new(x, Target::Continuous(y.into()), names).unwrap()
    }

    fn perm(repeats: usize) -> Perturbation {
        Perturbation::Permutation { repeats }
    }

    #[test]
    fn linear_model_squared_loss_pfi_is_two_beta_squared_var() {
        // f(x) = βᵀx, y = f(x) + ε: E[(y − f(x̃))² − (y − f(x))²] = 2·β_j²·Var(X_j).
        let beta = [2.0, -1.0, 0.5];
        let sd = [1.0, 2.0, 3.0];
        let mut rng = stream_rng(11, 0);
        let x = normal_design(5000, &sd, 0.0, &mut rng);
        let y: Vec<f64> = x
            .rows()
            .into_iter()
            .map(|r| r.dot(&ndarray::arr1(&beta)) + standard_normal(&mut rng))
            .collect();
        let data = dataset(x, y);
        let model = Linear(beta.to_vec());
        let res = pfi(
            &model,
            &data,
            &[0, 1, 2],
            &perm(20),
            &[Statistic::SquaredError],
            3,
            0.95,
        )
        .unwrap();
        for (j, r) in res[0].iter().enumerate() {
            let truth = 2.0 * beta[j].powi(2) * sd[j].powi(2);
            let e = r.estimate;
            assert!(
                (e.estimate - truth).abs() < 4.0 * e.se
                    && (e.estimate - truth).abs() < 0.06 * truth,
                "feature {j}: PFI {} ± {} vs 2β²Var = {truth}",
                e.estimate,
                e.se
            );
        }
    }

    #[test]
    fn prop2_unused_feature_has_exactly_zero_likelihood_and_entropy_pfi() {
        // wood2024 Prop. 2: if q ignores x_j, both PFIs are 0 — exactly, since every
        // perturbed prediction equals the original one.
        let mut rng = stream_rng(5, 0);
        let x = normal_design(300, &[1.0, 1.0, 1.0], 0.7, &mut rng);
        let y: Vec<f64> = x
            .column(0)
            .iter()
            .map(|v| v + standard_normal(&mut rng))
            .collect();
        let data = dataset(x, y);
        let model = Gaussian { ignore: Some(2) };
        let res = pfi(
            &model,
            &data,
            &[2],
            &perm(10),
            &[Statistic::Nll, Statistic::Entropy],
            9,
            0.95,
        )
        .unwrap();
        for stat in &res {
            assert_eq!(stat[0].estimate.estimate, 0.0);
            assert!(stat[0].contributions.iter().all(|&c| c == 0.0));
        }
    }

    #[test]
    fn prop1_entropy_pfi_of_an_independent_feature_is_zero_within_its_interval() {
        // wood2024 Prop. 1: X_j ⫫ X_−j ⇒ Entropy-PFI(j) = 0 in population, for any model.
        // Control: the same model on correlated features gives a clearly positive value.
        let model = Gaussian { ignore: None };
        let mut rng = stream_rng(21, 0);
        let entropy_pfi_of_x1 = |x: Array2<f64>| {
            let data = dataset(x, vec![0.0; 4000]);
            pfi(
                &model,
                &data,
                &[0],
                &perm(10),
                &[Statistic::Entropy],
                1,
                0.95,
            )
            .unwrap()[0][0]
                .estimate
        };
        let r = entropy_pfi_of_x1(normal_design(4000, &[1.0, 1.0, 1.0], 0.0, &mut rng));
        assert!(r.covers(0.0), "independent: {r:?}");
        let r = entropy_pfi_of_x1(normal_design(4000, &[1.0, 1.0, 1.0], 0.9, &mut rng));
        // Population value: ½·E(X1−X2)² rises from (1−ρ) to 1, i.e. by ρ = 0.9.
        assert!(r.lower > 0.5, "correlated: {r:?}");
    }

    #[test]
    fn prop3_conditional_entropy_pfi_is_zero_where_marginal_is_positive() {
        // wood2024 Prop. 3: with X̃_j ~ X_j | X_−j the perturbed rows have the law of the
        // original ones, so conditional Entropy-PFI = 0 for any model. The sampler is
        // estimated on separate reference rows of the same Gaussian law (ρ = 0.9).
        let model = Gaussian { ignore: None };
        let mut rng = stream_rng(33, 0);
        let reference = dataset(
            normal_design(4000, &[1.0, 1.0, 1.0], 0.9, &mut rng),
            vec![0.0; 4000],
        );
        let data = dataset(
            normal_design(4000, &[1.0, 1.0, 1.0], 0.9, &mut rng),
            vec![0.0; 4000],
        );
        let entropy_pfi = |spec: crate::PerturbationSpec| {
            let p = spec
                .resolve(&reference, &data, &crate::Samplers::default())
                .unwrap();
            pfi(&model, &data, &[0], &p, &[Statistic::Entropy], 2, 0.95).unwrap()[0][0].estimate
        };
        let conditional = entropy_pfi(crate::PerturbationSpec::ConditionalGaussian { repeats: 10 });
        let marginal = entropy_pfi(crate::PerturbationSpec::Permutation { repeats: 10 });
        assert!(conditional.covers(0.0), "conditional: {conditional:?}");
        // Marginal: ½·E(X1−X2)² rises from 1 − ρ = 0.1 to 1, by 0.9.
        assert!(marginal.lower > 0.5, "marginal: {marginal:?}");
    }

    #[test]
    fn per_copy_values_average_to_the_estimate() {
        let orig = array![1.0, 2.0, 3.0];
        let pert = array![[2.0, 4.0], [2.0, 2.0], [3.0, 5.0]];
        let r = pfi_from_values(0, orig.view(), pert.view(), 0.95);
        assert_eq!(r.contributions.to_vec(), vec![2.0, 0.0, 1.0]);
        assert!((r.per_copy[0] - 1.0 / 3.0).abs() < 1e-15);
        assert!((r.per_copy[1] - 5.0 / 3.0).abs() < 1e-15);
        assert!((r.estimate.estimate - 1.0).abs() < 1e-15);
    }
}
