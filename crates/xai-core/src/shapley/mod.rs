//! Shapley values: the Shapley weighting over coalitions as an aggregation
//! (watson2023 Eq. 1, Shapley 1953):
//!
//! φ_j(v) = Σ_{S ⊆ [d]∖{j}} |S|!·(d − |S| − 1)!/d! · [v(S ∪ {j}) − v(S)].
//!
//! A [`Game`] gives v(S) for a batch of coalitions; the estimators are exact
//! enumeration ([`exact`]), KernelSHAP ([`kernel`]), expected gradients of a
//! differentiable model ([`gradient`], efficient in expectation) and, for tree ensembles, the
//! path-dependent TreeSHAP ([`tree`]), whose game is the trees' own conditional
//! expectation. [`game`] builds games from a model, a point, a background set and a
//! value function (the prediction v₀, the entropy v_H, −H for v_IG, −KL, −CE, −log-loss
//! of watson2023 §4). Every estimator returns an [`Attribution`] whose values sum to
//! v([d]) − v(∅) (efficiency).

pub mod coalitions;
pub mod exact;
pub mod game;
pub mod gradient;
pub mod kernel;
pub mod tree;

use ndarray::{Array1, ArrayView2};

use crate::error::Result;

/// A cooperative game over d players (features): v(S) for coalitions S ⊆ {0, …, d−1}.
pub trait Game: Sync {
    /// The number of players d.
    fn players(&self) -> usize;

    /// v(S) for every row of `coalitions` (k × d; `true` = the player is in S), in
    /// row order. Implementations evaluate the whole batch at once (one model call).
    fn values(&self, coalitions: ArrayView2<'_, bool>) -> Result<Array1<f64>>;
}

/// The Shapley values of one game, with the two values they bridge.
#[derive(Debug, Clone, PartialEq)]
pub struct Attribution {
    /// φ_j, one per player.
    pub phi: Array1<f64>,
    /// v(∅): the base value (E f̂(X) for v₀).
    pub base: f64,
    /// v([d]): the value of the full coalition (f̂(x) for v₀).
    pub full: f64,
}

impl Attribution {
    /// |Σ_j φ_j − (v([d]) − v(∅))|: zero (to rounding) for every estimator here.
    pub fn efficiency_gap(&self) -> f64 {
        (self.phi.sum() - (self.full - self.base)).abs()
    }
}

/// The Shapley kernel weight of a coalition of size s among d players,
/// s!·(d − s − 1)!/d! (the weight of v(S ∪ {j}) − v(S) in Eq. 1 for |S| = s).
pub fn shapley_weight(d: usize, s: usize) -> f64 {
    debug_assert!(s < d);
    // 1 / (d · C(d−1, s)), computed in floating point without factorials.
    let mut c = 1.0;
    for i in 0..s {
        c *= (d - 1 - i) as f64 / (i + 1) as f64;
    }
    1.0 / (d as f64 * c)
}

#[cfg(test)]
pub(crate) mod fixtures {
    //! Games and models shared by the tests of the Shapley estimators.

    use std::sync::atomic::{AtomicUsize, Ordering};

    use ndarray::{Array1, Array2, ArrayView2};

    use ndarray::ArrayView1;

    use super::Game;
    use super::game::{ModelGame, ValueFunction};
    use crate::error::Result;
    use crate::model::Model;
    use crate::predictions::Predictions;
    use crate::rng::stream_rng;
    use crate::test_models::standard_normal;
    use crate::tree::{LEAF, Tree, TreeNode};

    /// Point predictions with interactions of order three and more (d ≥ 5):
    /// f(x) = x₀x₁x₂ + sin(x₂ + x₃)·x₄ + x₄² + ½·Σ_{j ≥ 5} x_j·x_{j−1}·x_{j−2}.
    /// (With interactions of order two at most, Banzhaf values and paired-sampling
    /// KernelSHAP are exact Shapley values, so the tests could not tell them apart.)
    pub(crate) struct Interactions;

    impl Model for Interactions {
        fn predict(&self, x: ArrayView2<'_, f64>) -> crate::error::Result<Predictions> {
            Ok(Predictions::Point(
                x.rows()
                    .into_iter()
                    .map(|r| {
                        let chain: f64 = (5..r.len()).map(|j| r[j] * r[j - 1] * r[j - 2]).sum();
                        r[0] * r[1] * r[2] + (r[2] + r[3]).sin() * r[4] + r[4] * r[4] + 0.5 * chain
                    })
                    .collect(),
            ))
        }
    }

    /// n × d independent N(0, 1) draws from `stream_rng(seed, 0)`.
    pub(crate) fn normal_rows(n: usize, d: usize, seed: u64) -> Array2<f64> {
        let mut rng = stream_rng(seed, 0);
        Array2::from_shape_simple_fn((n, d), || standard_normal(&mut rng))
    }

    /// The k × d masks of the given coalitions (each a list of players).
    pub(crate) fn masks(d: usize, coalitions: &[&[usize]]) -> Array2<bool> {
        let mut m = Array2::from_elem((coalitions.len(), d), false);
        for (r, s) in coalitions.iter().enumerate() {
            for &j in *s {
                m[[r, j]] = true;
            }
        }
        m
    }

    /// A game that counts the calls of [`Game::values`] of the game it wraps.
    pub(crate) struct Counting<G> {
        pub(crate) game: G,
        pub(crate) calls: AtomicUsize,
    }

    impl<G> Counting<G> {
        pub(crate) fn new(game: G) -> Self {
            Counting {
                game,
                calls: AtomicUsize::new(0),
            }
        }

        pub(crate) fn calls(&self) -> usize {
            self.calls.load(Ordering::SeqCst)
        }
    }

    impl<G: Game> Game for Counting<G> {
        fn players(&self) -> usize {
            self.game.players()
        }

        fn values(&self, coalitions: ArrayView2<'_, bool>) -> Result<Array1<f64>> {
            self.calls.fetch_add(1, Ordering::SeqCst);
            self.game.values(coalitions)
        }
    }

    /// The v₀ game (the prediction) of `model` at `x` over `background`.
    pub fn prediction_game<'a>(
        model: &'a dyn Model,
        x: ArrayView1<'a, f64>,
        background: ArrayView2<'a, f64>,
    ) -> ModelGame<'a> {
        ModelGame::new(model, x, background, ValueFunction::Prediction, None).expect("a valid game")
    }

    pub(crate) fn split(
        feature: u32,
        threshold: f64,
        left: u32,
        right: u32,
        w: f64,
        missing_left: bool,
    ) -> TreeNode {
        TreeNode {
            feature,
            left,
            right,
            threshold,
            weight: w,
            impurity: 0.0,
            missing_left,
        }
    }

    pub(crate) fn leaf(w: f64) -> TreeNode {
        TreeNode {
            feature: 0,
            left: LEAF,
            right: LEAF,
            threshold: 0.0,
            weight: w,
            impurity: 0.0,
            missing_left: false,
        }
    }

    /// A complete tree of depth `depth` on `d` features with random splits (features
    /// repeat along paths), random covers and leaf values, and random default
    /// directions.
    pub(crate) fn random_tree(depth: usize, d: usize, seed: u64) -> Tree {
        use rand::RngExt;
        let mut rng = crate::rng::stream_rng(seed, 0);
        let (mut nodes, mut values) = (vec![leaf(1000.0)], vec![0.0]);
        let mut level = vec![0usize];
        for _ in 0..depth {
            let mut next = Vec::new();
            for &i in &level {
                let w = nodes[i].weight;
                let left_share = 0.1 + 0.8 * rng.random::<f64>();
                let (l, r) = (nodes.len(), nodes.len() + 1);
                nodes[i] = split(
                    rng.random_range(0..d) as u32,
                    rng.random::<f64>(),
                    l as u32,
                    r as u32,
                    w,
                    rng.random::<bool>(),
                );
                nodes.extend([leaf(w * left_share), leaf(w * (1.0 - left_share))]);
                values.extend([rng.random::<f64>() * 4.0 - 2.0, rng.random::<f64>()]);
                next.extend([l, r]);
            }
            level = next;
        }
        Tree::new(nodes, values, 1)
    }
}
