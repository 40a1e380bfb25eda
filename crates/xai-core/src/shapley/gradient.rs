//! Expected gradients (Erion et al. 2021; shap's `GradientExplainer`): the
//! attributions of a differentiable function h of a binary classifier's member
//! log-odds z_1(x), …, z_M(x) ([`MemberGradients`]), averaged over a background:
//!
//! φ_j(x) = E_{b ~ background, α ~ U(0, 1)} [(x_j − b_j) · ∂h/∂x_j (b + α·(x − b))],
//!
//! estimated from K draws (b⁽ᵏ⁾, α_k). For one baseline b the α-integral is
//! integrated gradients (Sundararajan et al. 2017, the Aumann–Shapley value of h on
//! the path from b to x), whose sum over j is h(x) − h(b) by the gradient theorem; so
//! Σ_j φ_j = h(x) − E_b h(b) holds in expectation (watson2023 Eq. 1's efficiency) and
//! to Monte-Carlo error for finite K. This is the game [`ValueFunction::Expected`]
//! describes (the background mean of the function's value, not a statistic of the
//! background mixture): the function DeepSHAP explains in watson2023's code, where
//! the network outputs the entropy itself. For h linear in x, φ_j = ∂h/∂x_j·(x_j −
//! E b_j), the interventional Shapley value.
//!
//! The functions h of the log-odds (natural logs), with s_m = σ(z_m), p̄ = (1/M)·Σ s_m
//! and H(p) = −p·ln p − (1 − p)·ln(1 − p):
//! - `prediction`: h = p̄;
//! - `entropy`: h = H(p̄) (the total entropy h_t, watson2023 §5);
//! - `aleatoric_entropy`: h = (1/M)·Σ_m H(s_m) (h_a);
//! - `epistemic_entropy`: h = H(p̄) − (1/M)·Σ_m H(s_m) (h_e, the mutual information).

use ndarray::{Array1, Array2, ArrayView1, ArrayView2, Axis};
use rand::{Rng, RngExt};

use super::Attribution;
use super::game::ValueFunction;
use crate::error::{CoreError, Result};
use crate::model::MemberGradients;

/// A function h of the members' log-odds (module doc) that expected gradients
/// explains.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pointwise {
    /// h = p̄.
    Prediction,
    /// h = H(p̄).
    Entropy,
    /// h = (1/M)·Σ_m H(s_m).
    Aleatoric,
    /// h = H(p̄) − (1/M)·Σ_m H(s_m).
    Epistemic,
}

/// log(1 + eᶻ) without overflow.
fn softplus(z: f64) -> f64 {
    z.max(0.0) + (-z.abs()).exp().ln_1p()
}

/// σ(z) = 1/(1 + e^(−z)).
fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// log Σ_i e^(a_i) without overflow.
fn log_sum_exp(a: impl Iterator<Item = f64> + Clone) -> f64 {
    let top = a.clone().fold(f64::NEG_INFINITY, f64::max);
    top + a.map(|v| (v - top).exp()).sum::<f64>().ln()
}

/// H(σ(z)) = softplus(z) − z·σ(z) (exact, no log of 0 when σ(z) rounds to 0 or 1).
fn binary_entropy_of_logit(z: f64) -> f64 {
    softplus(z) - z * sigmoid(z)
}

/// (ln p̄, ln(1 − p̄)) of the members' log-odds, each a log-mean-exp of ln σ(z_m) =
/// −softplus(−z_m) and ln(1 − σ(z_m)) = −softplus(z_m).
fn log_mean(z: ArrayView1<'_, f64>) -> (f64, f64) {
    let ln_m = (z.len() as f64).ln();
    let ln_p = log_sum_exp(z.iter().map(|&v| -softplus(-v))) - ln_m;
    let ln_q = log_sum_exp(z.iter().map(|&v| -softplus(v))) - ln_m;
    (ln_p, ln_q)
}

impl Pointwise {
    /// The function for a value function, or an error naming the ones expected
    /// gradients explains.
    pub fn of(value: ValueFunction) -> Result<Self> {
        match value {
            ValueFunction::Prediction => Ok(Pointwise::Prediction),
            ValueFunction::Entropy => Ok(Pointwise::Entropy),
            ValueFunction::AleatoricEntropy => Ok(Pointwise::Aleatoric),
            ValueFunction::EpistemicEntropy => Ok(Pointwise::Epistemic),
            other => Err(CoreError::Capability(format!(
                "expected gradients explains a function of a classifier's member log-odds: \
                 value `prediction`, `entropy`, `aleatoric_entropy` or `epistemic_entropy`, \
                 not `{}`",
                other.quantity_prefix()
            ))),
        }
    }

    /// h(z) for one row's member log-odds z (module doc).
    pub fn value(self, z: ArrayView1<'_, f64>) -> f64 {
        let m = z.len() as f64;
        let aleatoric = || z.iter().map(|&v| binary_entropy_of_logit(v)).sum::<f64>() / m;
        let total = || {
            let (ln_p, ln_q) = log_mean(z);
            -ln_p.exp() * ln_p - ln_q.exp() * ln_q
        };
        match self {
            Pointwise::Prediction => z.iter().map(|&v| sigmoid(v)).sum::<f64>() / m,
            Pointwise::Entropy => total(),
            Pointwise::Aleatoric => aleatoric(),
            Pointwise::Epistemic => total() - aleatoric(),
        }
    }

    /// ∂h/∂z_m for one row (module doc): with σ'_m = s_m·(1 − s_m), (1/M)·σ'_m for p̄,
    /// (1/M)·(ln(1 − p̄) − ln p̄)·σ'_m for H(p̄) and (1/M)·(−z_m·σ'_m) for the mean of
    /// H(s_m) (dH(σ(z))/dz = −z·σ'(z)).
    pub fn gradient(self, z: ArrayView1<'_, f64>) -> Array1<f64> {
        let m = z.len() as f64;
        let slope = |v: f64| sigmoid(v) * sigmoid(-v);
        let (ln_p, ln_q) = log_mean(z);
        z.mapv(|v| {
            let total = (ln_q - ln_p) * slope(v);
            let aleatoric = -v * slope(v);
            let g = match self {
                Pointwise::Prediction => slope(v),
                Pointwise::Entropy => total,
                Pointwise::Aleatoric => aleatoric,
                Pointwise::Epistemic => total - aleatoric,
            };
            g / m
        })
    }

    /// h of every row of `x` (n × d).
    pub fn values(
        self,
        model: &dyn MemberGradients,
        x: ArrayView2<'_, f64>,
    ) -> Result<Array1<f64>> {
        let z = model.member_logits(x)?;
        Ok(z.rows().into_iter().map(|r| self.value(r)).collect())
    }
}

/// One Monte-Carlo draw of expected gradients: a background row and a point α on the
/// path from it to x.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Draw {
    /// The background row b.
    pub background: usize,
    /// α ∈ [0, 1): the point b + α·(x − b).
    pub alpha: f64,
}

/// K draws, each a background row uniform among `rows` and α ~ U(0, 1), from `rng` in
/// that order (shap's `GradientExplainer` draws the same pair per sample).
pub fn draws(rng: &mut dyn Rng, rows: usize, k: usize) -> Vec<Draw> {
    (0..k)
        .map(|_| Draw {
            background: rng.random_range(0..rows),
            alpha: rng.random::<f64>(),
        })
        .collect()
}

/// Expected gradients of h over a background (module doc): the model, the function
/// and E_b h(b), computed once.
pub struct ExpectedGradients<'a> {
    model: &'a dyn MemberGradients,
    background: ArrayView2<'a, f64>,
    value: Pointwise,
    base: f64,
}

impl<'a> ExpectedGradients<'a> {
    /// The explainer of `value` over the `background` rows (≥ 1).
    pub fn new(
        model: &'a dyn MemberGradients,
        background: ArrayView2<'a, f64>,
        value: Pointwise,
    ) -> Result<Self> {
        if background.nrows() == 0 {
            return Err(CoreError::Data(
                "expected gradients needs at least one background row".into(),
            ));
        }
        let base = value.values(model, background)?.mean().unwrap_or(0.0);
        Ok(Self {
            model,
            background,
            value,
            base,
        })
    }

    /// φ(x) from the given draws (module doc), with v(∅) = E_b h(b) over the whole
    /// background and v([d]) = h(x); the efficiency gap is the draws' Monte-Carlo error.
    pub fn attribution(&self, x: ArrayView1<'_, f64>, draws: &[Draw]) -> Result<Attribution> {
        if draws.is_empty() {
            return Err(CoreError::out_of_range(
                "draws",
                0,
                "at least 1 for expected gradients",
            ));
        }
        let d = x.len();
        let mut steps = Array2::zeros((draws.len(), d));
        let mut points = Array2::zeros((draws.len(), d));
        for (k, draw) in draws.iter().enumerate() {
            let b = self.background.row(draw.background);
            let step = &x - &b;
            points.row_mut(k).assign(&(&b + &(&step * draw.alpha)));
            steps.row_mut(k).assign(&step);
        }
        let value = self.value;
        let gradient = self
            .model
            .pullback(points.view(), &|z: ArrayView2<'_, f64>| {
                let mut c = Array2::zeros(z.dim());
                for (mut out, row) in c.rows_mut().into_iter().zip(z.rows()) {
                    out.assign(&value.gradient(row));
                }
                c
            })?;
        let phi = (gradient * steps)
            .mean_axis(Axis(0))
            .expect("at least one draw");
        let full = self.value.values(self.model, x.insert_axis(Axis(0)))?[0];
        Ok(Attribution {
            phi,
            base: self.base,
            full,
        })
    }
}

#[cfg(test)]
mod tests {
    use ndarray::{Array1, Array2, ArrayView2, array};

    use super::*;
    use crate::model::Model;
    use crate::predictions::Predictions;
    use crate::rng::stream_rng;
    use crate::shapley::Game;
    use crate::shapley::game::ModelGame;

    /// M members with linear log-odds z_m(x) = w_m·x + c_m.
    struct LinearLogits {
        w: Array2<f64>,
        c: Array1<f64>,
    }

    impl LinearLogits {
        fn logits(&self, x: ArrayView2<'_, f64>) -> Array2<f64> {
            x.dot(&self.w.t()) + &self.c
        }
    }

    impl MemberGradients for LinearLogits {
        fn member_logits(&self, x: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
            Ok(self.logits(x))
        }

        fn pullback(
            &self,
            x: ArrayView2<'_, f64>,
            cotangent: &dyn Fn(ArrayView2<'_, f64>) -> Array2<f64>,
        ) -> Result<Array2<f64>> {
            Ok(cotangent(self.logits(x).view()).dot(&self.w))
        }
    }

    impl Model for LinearLogits {
        fn predict(&self, x: ArrayView2<'_, f64>) -> crate::error::Result<Predictions> {
            Predictions::mixture(&self.predict_members(x)?.unwrap())
        }

        fn predict_members(
            &self,
            x: ArrayView2<'_, f64>,
        ) -> crate::error::Result<Option<Vec<Predictions>>> {
            let z = self.logits(x);
            Ok(Some(
                z.columns()
                    .into_iter()
                    .map(|c| Predictions::binary(c.iter().map(|&v| sigmoid(v))))
                    .collect(),
            ))
        }
    }

    fn three_members() -> LinearLogits {
        LinearLogits {
            w: array![[1.0, -2.0, 0.5], [0.3, 1.5, -1.0], [-0.7, 0.2, 2.0]],
            c: array![0.2, -0.4, 0.1],
        }
    }

    const ALL: [Pointwise; 4] = [
        Pointwise::Prediction,
        Pointwise::Entropy,
        Pointwise::Aleatoric,
        Pointwise::Epistemic,
    ];

    /// K draws per background row at the midpoints α = (k + ½)/K: a quadrature of the
    /// path integral, exact to O(1/K²).
    fn quadrature(rows: usize, k: usize) -> Vec<Draw> {
        (0..rows)
            .flat_map(|b| {
                (0..k).map(move |i| Draw {
                    background: b,
                    alpha: (i as f64 + 0.5) / k as f64,
                })
            })
            .collect()
    }

    #[test]
    fn each_gradient_is_the_derivative_of_its_value() {
        let z = array![2.5, -0.3, 0.8, 30.0];
        for f in ALL {
            let g = f.gradient(z.view());
            for m in 0..z.len() {
                let (mut up, mut down) = (z.clone(), z.clone());
                up[m] += 1e-6;
                down[m] -= 1e-6;
                let numeric = (f.value(up.view()) - f.value(down.view())) / 2e-6;
                assert!(
                    (g[m] - numeric).abs() < 1e-7,
                    "{f:?} member {m}: {} vs {numeric}",
                    g[m]
                );
            }
        }
    }

    #[test]
    fn values_are_the_games_full_coalition_values() {
        // h(x) is v([d]) of the interventional game whose value function it names: the
        // same entropies, computed from probabilities there and log-odds here.
        let model = three_members();
        let x = array![0.4, -1.2, 0.9];
        for (f, v) in ALL.into_iter().zip([
            ValueFunction::Prediction,
            ValueFunction::Entropy,
            ValueFunction::AleatoricEntropy,
            ValueFunction::EpistemicEntropy,
        ]) {
            assert_eq!(Pointwise::of(v).unwrap(), f);
            let background = x.clone().insert_axis(Axis(0));
            let game = ModelGame::new(&model, x.view(), background.view(), v, None).unwrap();
            let full = game.values(array![[true, true, true]].view()).unwrap()[0];
            let here = f.value(model.logits(background.view()).row(0));
            assert!((full - here).abs() < 1e-12, "{v:?}: {full} vs {here}");
        }
    }

    #[test]
    fn saturated_members_have_finite_entropy_and_gradient() {
        let z = array![800.0, -750.0, 40.0];
        for f in ALL {
            assert!(f.value(z.view()).is_finite());
            assert!(f.gradient(z.view()).iter().all(|g| g.is_finite()));
        }
        assert!(Pointwise::Aleatoric.value(array![800.0].view()).abs() < 1e-300);
    }

    #[test]
    fn the_path_integral_sums_to_the_difference_of_values() {
        // The gradient theorem: with every background row and a fine quadrature in α,
        // Σ_j φ_j = h(x) − mean_b h(b) to the quadrature's error.
        let model = three_members();
        let background = array![[0.0, 0.0, 0.0], [1.0, -0.5, 0.3], [-0.8, 0.9, 1.4]];
        let x = array![0.7, 0.4, -1.1];
        for f in ALL {
            let eg = ExpectedGradients::new(&model, background.view(), f).unwrap();
            let a = eg.attribution(x.view(), &quadrature(3, 2000)).unwrap();
            assert!(
                a.efficiency_gap() < 1e-6,
                "{f:?}: gap {}",
                a.efficiency_gap()
            );
        }
    }

    #[test]
    fn one_linear_index_splits_by_its_slopes() {
        // M = 1 and z = w·x: along the path h moves with t = w·x only, so integrated
        // gradients from b gives φ_j = w_j·(x_j − b_j)·(h(x) − h(b))/(w·x − w·b).
        let model = LinearLogits {
            w: array![[1.5, -0.5, 2.0]],
            c: array![0.0],
        };
        let b = array![[0.2, 0.1, -0.4]];
        let x = array![1.0, -1.0, 0.5];
        let f = Pointwise::Aleatoric;
        let eg = ExpectedGradients::new(&model, b.view(), f).unwrap();
        let a = eg.attribution(x.view(), &quadrature(1, 4000)).unwrap();
        let w = model.w.row(0);
        let (tx, tb) = (w.dot(&x), w.dot(&b.row(0)));
        let rise = f.value(array![tx].view()) - f.value(array![tb].view());
        for j in 0..3 {
            let closed = w[j] * (x[j] - b[[0, j]]) * rise / (tx - tb);
            assert!(
                (a.phi[j] - closed).abs() < 1e-7,
                "feature {j}: {} vs {closed}",
                a.phi[j]
            );
        }
    }

    #[test]
    fn random_draws_are_efficient_to_monte_carlo_error() {
        // Σ_j φ_j is the mean of K single-draw sums t_k, unbiased for h(x) − E_b h(b):
        // the gap lies within 4 standard errors sd(t)/√K.
        let model = three_members();
        let background = array![[0.0, 0.0, 0.0], [1.0, -0.5, 0.3], [-0.8, 0.9, 1.4]];
        let x = array![0.7, 0.4, -1.1];
        let eg = ExpectedGradients::new(&model, background.view(), Pointwise::Entropy).unwrap();
        let k = 4000;
        let all = draws(&mut stream_rng(7, 0), 3, k);
        assert_eq!(
            all[..8],
            draws(&mut stream_rng(7, 0), 3, 8)[..],
            "draws do not depend on K"
        );
        let t: Array1<f64> = all
            .iter()
            .map(|d| eg.attribution(x.view(), &[*d]).unwrap().phi.sum())
            .collect();
        let se = t.std(1.0) / (k as f64).sqrt();
        let a = eg.attribution(x.view(), &all).unwrap();
        assert!((a.phi.sum() - t.mean().unwrap()).abs() < 1e-12);
        assert!(
            a.efficiency_gap() < 4.0 * se,
            "gap {} against se {se}",
            a.efficiency_gap()
        );
        assert!(se > 0.0 && se < 0.05, "se {se}");
    }

    #[test]
    fn a_value_of_the_label_or_of_a_mixture_is_refused() {
        for v in [ValueFunction::NegKl, ValueFunction::NegLogLoss] {
            let e = Pointwise::of(v).unwrap_err().to_string();
            assert!(e.contains("aleatoric_entropy"), "{e}");
        }
        let model = three_members();
        let empty = Array2::zeros((0, 3));
        assert!(ExpectedGradients::new(&model, empty.view(), Pointwise::Entropy).is_err());
    }
}
