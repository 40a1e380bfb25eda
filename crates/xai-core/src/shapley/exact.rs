//! Exact Shapley values by enumerating all 2^d coalitions (watson2023 Eq. 1).

use ndarray::{Array1, Array2};

use super::{Attribution, Game, shapley_weight};
use crate::error::{CoreError, Result};

/// The most players [`exact`] enumerates: 2^20 ≈ 10⁶ coalitions (their masks take
/// d·2^d bytes, 20 MiB at d = 20). Beyond it use KernelSHAP
/// ([`super::kernel::kernel_shap`]).
pub const MAX_EXACT_PLAYERS: usize = 20;

/// Exact Shapley values of `game` (watson2023 Eq. 1):
///
/// φ_j = Σ_{S ⊆ [d]∖{j}} |S|!·(d − |S| − 1)!/d! · [v(S ∪ {j}) − v(S)],
///
/// from v(S) of all 2^d coalitions, asked of the game in one [`Game::values`] call
/// (coalition m holds player j iff bit j of m is set, so v(∅) is row 0 and v([d])
/// row 2^d − 1). The weights are [`shapley_weight`]; the sum telescopes, so
/// Σ_j φ_j = v([d]) − v(∅) to rounding. Cost: the game's 2^d values, then d·2^d
/// additions.
///
/// Errors: d > [`MAX_EXACT_PLAYERS`] (use KernelSHAP), and the game's own errors.
pub fn exact<G: Game + ?Sized>(game: &G) -> Result<Attribution> {
    enumerate(game, shapley_weight)
}

/// Eq. 1 with the weight `weight(d, |S|)` of v(S ∪ {j}) − v(S) in place of the
/// Shapley weight (the tests give it a wrong one to show that efficiency is lost).
fn enumerate<G: Game + ?Sized>(
    game: &G,
    weight: impl Fn(usize, usize) -> f64,
) -> Result<Attribution> {
    let d = game.players();
    if d > MAX_EXACT_PLAYERS {
        return Err(CoreError::out_of_range(
            "features",
            d,
            format!(
                "at most {MAX_EXACT_PLAYERS} for exact Shapley values (2^d coalitions); use \
                 KernelSHAP (estimator `kernel`) for more"
            ),
        ));
    }
    let n = 1usize << d;
    let masks = Array2::from_shape_fn((n, d), |(m, j)| (m >> j) & 1 == 1);
    let v = game.values(masks.view())?;
    if v.len() != n {
        return Err(CoreError::Shape(format!(
            "the game returned {} values for {n} coalitions",
            v.len()
        )));
    }
    let w: Vec<f64> = (0..d).map(|s| weight(d, s)).collect();
    let mut phi = Array1::zeros(d);
    for m in 0..n {
        let size = m.count_ones() as usize;
        for j in (0..d).filter(|&j| (m >> j) & 1 == 0) {
            phi[j] += w[size] * (v[m | (1 << j)] - v[m]);
        }
    }
    Ok(Attribution {
        phi,
        base: v[0],
        full: v[n - 1],
    })
}

#[cfg(test)]
mod tests {
    use ndarray::{Array1, ArrayView2, Axis, array};

    use super::*;
    use crate::shapley::fixtures::{Counting, Interactions, normal_rows, prediction_game};
    use crate::shapley::game::{ModelGame, ValueFunction};
    use crate::test_models::{Gaussian, Linear};

    /// A game that must never be evaluated.
    struct Huge;

    impl Game for Huge {
        fn players(&self) -> usize {
            MAX_EXACT_PLAYERS + 1
        }

        fn values(&self, _: ArrayView2<'_, bool>) -> Result<Array1<f64>> {
            panic!("exact must refuse before asking for 2^21 values")
        }
    }

    #[test]
    fn efficiency_holds_on_games_with_interactions_and_fails_with_a_wrong_weight() {
        let background = normal_rows(25, 5, 1);
        let x = array![0.8, -1.2, 1.5, 0.7, -0.4];
        let cases: [(&dyn crate::model::Model, ValueFunction); 3] = [
            (&Interactions, ValueFunction::Prediction),
            (&Gaussian { ignore: None }, ValueFunction::Entropy),
            (&Gaussian { ignore: None }, ValueFunction::NegKl),
        ];
        for (model, value) in cases {
            let game = Counting::new(
                ModelGame::new(model, x.view(), background.view(), value, None).unwrap(),
            );
            let a = exact(&game).unwrap();
            assert_eq!(game.calls(), 1, "one values call for all 2^d coalitions");
            // v(∅) and v([d]) asked afresh, not taken from the attribution.
            let ends = game
                .values(ndarray::array![[false; 5], [true; 5]].view())
                .unwrap();
            let gap = a.phi.sum() - (ends[1] - ends[0]);
            assert!(gap.abs() < 1e-12, "{value:?}: gap {gap:e}, φ = {}", a.phi);
            assert!(a.efficiency_gap() < 1e-12);
            // Banzhaf weights 1/2^(d−1) in place of the Shapley weights: the games
            // have interactions of order three, so the sum misses v([d]) − v(∅)
            // (measured gaps 0.31, 0.031 and 0.039; the efficient gaps are 4e-16).
            let banzhaf = enumerate(&game, |d, _| 0.5f64.powi(d as i32 - 1)).unwrap();
            assert!(banzhaf.efficiency_gap() > 1e-3, "{value:?}: {banzhaf:?}");
        }
    }

    #[test]
    fn a_feature_the_model_ignores_gets_exactly_zero() {
        // Gaussian reads columns 0–2 only: columns 3 and 4 are null players.
        let background = normal_rows(10, 5, 2);
        let x = array![0.3, 1.1, -0.7, 2.0, -3.0];
        let model = Gaussian { ignore: None };
        let game = ModelGame::new(
            &model,
            x.view(),
            background.view(),
            ValueFunction::Entropy,
            None,
        )
        .unwrap();
        let a = exact(&game).unwrap();
        assert_eq!((a.phi[3], a.phi[4]), (0.0, 0.0), "{}", a.phi);
        assert!(a.phi[0].abs() > 1e-3 && a.phi[2].abs() > 1e-3, "{}", a.phi);
    }

    #[test]
    fn linear_model_with_an_interventional_background_gives_beta_times_centred_x() {
        let beta = vec![1.5, -2.0, 0.5, 3.0, -0.25];
        let model = Linear(beta.clone());
        let background = normal_rows(40, 5, 3);
        let x = array![1.0, 2.0, -1.0, 0.5, 4.0];
        let game = prediction_game(&model, x.view(), background.view());
        let a = exact(&game).unwrap();
        let mean = background.mean_axis(Axis(0)).unwrap();
        for j in 0..5 {
            let want = beta[j] * (x[j] - mean[j]);
            assert!(
                (a.phi[j] - want).abs() < 1e-12,
                "φ_{j} = {} vs {want}",
                a.phi[j]
            );
            // The uncentred β_j·x_j is not the answer (measured 0.029–0.50 away;
            // the centred closed form holds to 9e-16).
            assert!((a.phi[j] - beta[j] * x[j]).abs() > 1e-3);
        }
        assert!((a.base - mean.dot(&Array1::from(beta))).abs() < 1e-12);
    }

    #[test]
    fn more_than_twenty_players_is_refused_with_a_pointer_to_kernel_shap() {
        let err = exact(&Huge).unwrap_err();
        assert!(err.to_string().contains("KernelSHAP"), "{err}");
    }
}
