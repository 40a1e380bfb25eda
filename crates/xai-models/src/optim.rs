//! Box-constrained quasi-Newton minimisation: projected L-BFGS.
//!
//! Written here because the maintained Rust optimiser (argmin) has L-BFGS without
//! bound constraints, and the GP's hyperparameters live in a box (scikit-learn's
//! default bounds 1e-5..1e5), as in L-BFGS-B.
//!
//! Each iteration takes the two-loop L-BFGS direction (Nocedal & Wright, Alg. 7.4)
//! restricted to the variables not held at a bound, and a backtracking Armijo line
//! search along the projected path P(x + t·d). Curvature pairs with sᵀy ≤ 0 are
//! skipped. It stops when the projected gradient's largest entry is below `gtol`, or
//! when the relative reduction (f_k − f_{k+1}) / max(|f_k|, |f_{k+1}|, 1) is below
//! `ftol` (scipy's `factr·ε` test).

use std::collections::VecDeque;

/// Settings of [`minimize_box`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LbfgsOptions {
    /// Maximum number of iterations.
    pub max_iter: usize,
    /// Number of curvature pairs kept.
    pub memory: usize,
    /// Relative-reduction tolerance (scipy default 1e7·ε ≈ 2.2e-9).
    pub ftol: f64,
    /// Projected-gradient tolerance (scipy default 1e-5).
    pub gtol: f64,
}

impl Default for LbfgsOptions {
    fn default() -> Self {
        Self {
            max_iter: 200,
            memory: 10,
            ftol: 1e7 * f64::EPSILON,
            gtol: 1e-5,
        }
    }
}

/// The result of [`minimize_box`].
#[derive(Debug, Clone, PartialEq)]
pub struct Minimum {
    /// The minimiser found.
    pub x: Vec<f64>,
    /// The objective there.
    pub f: f64,
    /// Iterations taken.
    pub iterations: usize,
    /// Objective evaluations made.
    pub evaluations: usize,
    /// Whether a convergence test (not the iteration cap) ended the run.
    pub converged: bool,
}

/// Σ_i a_i·b_i.
pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Minimises `f` over the box [`lower`, `upper`] from `x0` (clamped into the box).
///
/// `f(x)` returns the objective and its gradient, or `None` where it cannot be
/// evaluated (treated as +∞). Returns `None` if `f` fails at the start.
pub fn minimize_box<F>(
    mut f: F,
    x0: &[f64],
    lower: &[f64],
    upper: &[f64],
    opts: LbfgsOptions,
) -> Option<Minimum>
where
    F: FnMut(&[f64]) -> Option<(f64, Vec<f64>)>,
{
    let clamp = |x: &mut Vec<f64>| {
        for ((v, &lo), &hi) in x.iter_mut().zip(lower).zip(upper) {
            *v = v.clamp(lo, hi);
        }
    };
    let mut x = x0.to_vec();
    clamp(&mut x);
    let (mut fx, mut g) = f(&x)?;
    let mut evaluations = 1;
    let mut pairs: VecDeque<(Vec<f64>, Vec<f64>, f64)> = VecDeque::new();
    let mut converged = false;
    let mut iterations = 0;
    while iterations < opts.max_iter {
        let free: Vec<bool> = (0..x.len())
            .map(|i| !((x[i] <= lower[i] && g[i] > 0.0) || (x[i] >= upper[i] && g[i] < 0.0)))
            .collect();
        let pg: Vec<f64> = g
            .iter()
            .zip(&free)
            .map(|(&gi, &fr)| if fr { gi } else { 0.0 })
            .collect();
        if pg.iter().all(|v| v.abs() <= opts.gtol) {
            converged = true;
            break;
        }
        let mut d = two_loop(&pg, &pairs);
        for (di, &fr) in d.iter_mut().zip(&free) {
            if !fr {
                *di = 0.0;
            }
        }
        if dot(&d, &g) >= 0.0 {
            pairs.clear();
            d = pg.iter().map(|v| -v).collect();
        }
        let mut t = if pairs.is_empty() {
            (1.0 / dot(&pg, &pg).sqrt()).min(1.0)
        } else {
            1.0
        };
        let mut accepted = None;
        for _ in 0..40 {
            let mut xn: Vec<f64> = x.iter().zip(&d).map(|(xi, di)| xi + t * di).collect();
            clamp(&mut xn);
            let step: Vec<f64> = xn.iter().zip(&x).map(|(a, b)| a - b).collect();
            let slope = dot(&g, &step);
            evaluations += 1;
            match f(&xn) {
                Some((fnew, gnew)) if fnew <= fx + 1e-4 * slope => {
                    accepted = Some((xn, fnew, gnew, step));
                    break;
                }
                Some((fnew, _)) if fnew.is_finite() => {
                    // Minimiser of the quadratic through f(x), its slope and f(x + t·d),
                    // kept within [0.1·t, 0.5·t].
                    let dd = dot(&g, &d);
                    let q = -dd * t * t / (2.0 * (fnew - fx - dd * t));
                    t = if q.is_finite() {
                        q.clamp(0.1 * t, 0.5 * t)
                    } else {
                        0.5 * t
                    };
                }
                _ => t *= 0.5,
            }
        }
        iterations += 1;
        let Some((xn, fnew, gnew, s)) = accepted else {
            if pairs.is_empty() {
                break;
            }
            pairs.clear();
            continue;
        };
        let y: Vec<f64> = gnew.iter().zip(&g).map(|(a, b)| a - b).collect();
        let sy = dot(&s, &y);
        if sy > 1e-12 * dot(&y, &y) {
            if pairs.len() == opts.memory {
                pairs.pop_front();
            }
            pairs.push_back((s, y, 1.0 / sy));
        }
        let reduction = (fx - fnew) / fx.abs().max(fnew.abs()).max(1.0);
        x = xn;
        fx = fnew;
        g = gnew;
        if reduction <= opts.ftol {
            converged = true;
            break;
        }
    }
    Some(Minimum {
        x,
        f: fx,
        iterations,
        evaluations,
        converged,
    })
}

/// d = −H·g by the L-BFGS two-loop recursion with initial scaling sᵀy / yᵀy.
fn two_loop(g: &[f64], pairs: &VecDeque<(Vec<f64>, Vec<f64>, f64)>) -> Vec<f64> {
    let mut q = g.to_vec();
    let mut alphas = Vec::with_capacity(pairs.len());
    for (s, y, rho) in pairs.iter().rev() {
        let a = rho * dot(s, &q);
        for (qi, yi) in q.iter_mut().zip(y) {
            *qi -= a * yi;
        }
        alphas.push(a);
    }
    if let Some((s, y, _)) = pairs.back() {
        let gamma = dot(s, y) / dot(y, y);
        q.iter_mut().for_each(|v| *v *= gamma);
    }
    for ((s, y, rho), a) in pairs.iter().zip(alphas.iter().rev()) {
        let b = rho * dot(y, &q);
        for (qi, si) in q.iter_mut().zip(s) {
            *qi += (a - b) * si;
        }
    }
    q.iter().map(|v| -v).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rosenbrock(x: &[f64]) -> Option<(f64, Vec<f64>)> {
        let (a, b) = (x[0], x[1]);
        let f = (1.0 - a).powi(2) + 100.0 * (b - a * a).powi(2);
        let g = vec![
            -2.0 * (1.0 - a) - 400.0 * a * (b - a * a),
            200.0 * (b - a * a),
        ];
        Some((f, g))
    }

    #[test]
    fn finds_the_rosenbrock_minimum() {
        let opts = LbfgsOptions {
            ftol: 0.0,
            gtol: 1e-8,
            ..Default::default()
        };
        let m = minimize_box(rosenbrock, &[-1.2, 1.0], &[-5.0; 2], &[5.0; 2], opts).unwrap();
        assert!(m.converged);
        assert!(
            (m.x[0] - 1.0).abs() < 1e-6 && (m.x[1] - 1.0).abs() < 1e-6,
            "{m:?}"
        );
    }

    #[test]
    fn respects_an_active_bound() {
        // min (x − 3)² + (y + 1)² on [0, 2] × [0, 2] is at (2, 0).
        let f = |x: &[f64]| {
            Some((
                (x[0] - 3.0).powi(2) + (x[1] + 1.0).powi(2),
                vec![2.0 * (x[0] - 3.0), 2.0 * (x[1] + 1.0)],
            ))
        };
        let m = minimize_box(
            f,
            &[1.0, 1.0],
            &[0.0; 2],
            &[2.0; 2],
            LbfgsOptions::default(),
        )
        .unwrap();
        assert_eq!(m.x, vec![2.0, 0.0]);
        assert!(m.converged);
    }
}
