//! SMO for libsvm's dual problems (Chang & Lin 2011 §4.1; Fan, Chen & Lin 2005):
//!
//! min_α ½αᵀQα + pᵀα  subject to  zᵀα = 0,  0 ≤ α_t ≤ C,  z_t ∈ {−1, +1},
//!
//! the form of ε-SVR (2n variables, [`crate::svr`]) and of C-SVC (n variables,
//! z = y, p = −1, [`crate::svc`]). Each step updates the maximal violating pair
//! chosen by libsvm's second-order working-set selection; it stops when the gap
//! m(α) − M(α) is below the tolerance (libsvm's `Solver::Solve` without shrinking),
//! and ρ is the mean of z_t∇_t f over the free variables, or the middle of their
//! bounds when none is free (libsvm's `calculate_rho`). Q is read entry by entry,
//! so a precomputed kernel matrix or a linear kernel's dot products both serve. As
//! in libsvm (3.x `svm.cpp`: `typedef float Qfloat`, `SVC_Q::get_Q`, `SVR_Q::get_Q`
//! cast each entry to float; `QD` keeps the diagonal in double), the gradient
//! updates and the off-diagonal Q_ij of a pair's curvature use Q rounded to single
//! precision, the diagonal Q_ii the double: without it the solution differs from
//! scikit-learn's SVC by about 3e-6 in decision values, with it by 6e-12.

/// libsvm's τ: the curvature used when a pair's is not positive.
const TAU: f64 = 1e-12;

/// A solved dual.
#[derive(Debug, Clone)]
pub(crate) struct Solution {
    /// The variables α.
    pub(crate) alpha: Vec<f64>,
    /// The offset ρ of the decision function Σ_t z_t α_t K(x_t, x) − ρ.
    pub(crate) rho: f64,
    /// SMO steps taken.
    pub(crate) iterations: usize,
}

/// Solves the dual with Q_ts = `q(t, s)`, linear term `p`, signs `z`, bound `c` and
/// stopping tolerance `tol`.
pub(crate) fn solve(
    q: impl Fn(usize, usize) -> f64,
    p: &[f64],
    z: &[f64],
    c: f64,
    tol: f64,
) -> Solution {
    let m = p.len();
    let z = |t: usize| z[t];
    // libsvm keeps Q's columns in single precision (`typedef float Qfloat`) and its
    // diagonal in double (`QD`): the gradient and a pair's Q_ij are read rounded.
    let q32 = |t: usize, s: usize| f64::from(q(t, s) as f32);
    let mut alpha = vec![0.0; m];
    let mut grad: Vec<f64> = p.to_vec();
    let up = |a: f64, t: usize| if z(t) > 0.0 { a < c } else { a > 0.0 };
    let low = |a: f64, t: usize| if z(t) > 0.0 { a > 0.0 } else { a < c };
    let mut iterations = 0;
    let max_iterations = 10_000_000usize.max(100 * m);
    loop {
        // i: the maximiser of −z_t G_t over I_up.
        let (mut gmax, mut i) = (f64::NEG_INFINITY, usize::MAX);
        for t in 0..m {
            if up(alpha[t], t) && -z(t) * grad[t] >= gmax {
                gmax = -z(t) * grad[t];
                i = t;
            }
        }
        // j: among I_low with −z_t G_t < gmax, the largest second-order decrease.
        let (mut gmax2, mut j, mut best) = (f64::NEG_INFINITY, usize::MAX, f64::INFINITY);
        for t in 0..m {
            if !low(alpha[t], t) {
                continue;
            }
            let zg = z(t) * grad[t];
            gmax2 = gmax2.max(zg);
            let diff = gmax + zg;
            if i != usize::MAX && diff > 0.0 {
                let mut curv = q(i, i) + q(t, t) - 2.0 * z(i) * z(t) * q32(i, t);
                if curv <= 0.0 {
                    curv = TAU;
                }
                let gain = -diff * diff / curv;
                if gain <= best {
                    best = gain;
                    j = t;
                }
            }
        }
        if gmax + gmax2 < tol || j == usize::MAX || iterations >= max_iterations {
            break;
        }
        iterations += 1;
        let (old_i, old_j) = (alpha[i], alpha[j]);
        if z(i) != z(j) {
            let mut curv = q(i, i) + q(j, j) + 2.0 * q32(i, j);
            if curv <= 0.0 {
                curv = TAU;
            }
            let delta = (-grad[i] - grad[j]) / curv;
            let diff = alpha[i] - alpha[j];
            alpha[i] += delta;
            alpha[j] += delta;
            if diff > 0.0 {
                if alpha[j] < 0.0 {
                    alpha[j] = 0.0;
                    alpha[i] = diff;
                }
            } else if alpha[i] < 0.0 {
                alpha[i] = 0.0;
                alpha[j] = -diff;
            }
            if diff > 0.0 {
                if alpha[i] > c {
                    alpha[i] = c;
                    alpha[j] = c - diff;
                }
            } else if alpha[j] > c {
                alpha[j] = c;
                alpha[i] = c + diff;
            }
        } else {
            let mut curv = q(i, i) + q(j, j) - 2.0 * q32(i, j);
            if curv <= 0.0 {
                curv = TAU;
            }
            let delta = (grad[i] - grad[j]) / curv;
            let sum = alpha[i] + alpha[j];
            alpha[i] -= delta;
            alpha[j] += delta;
            if sum > c {
                if alpha[i] > c {
                    alpha[i] = c;
                    alpha[j] = sum - c;
                }
            } else if alpha[j] < 0.0 {
                alpha[j] = 0.0;
                alpha[i] = sum;
            }
            if sum > c {
                if alpha[j] > c {
                    alpha[j] = c;
                    alpha[i] = sum - c;
                }
            } else if alpha[i] < 0.0 {
                alpha[i] = 0.0;
                alpha[j] = sum;
            }
        }
        let (di, dj) = (alpha[i] - old_i, alpha[j] - old_j);
        for (t, g) in grad.iter_mut().enumerate() {
            *g += q32(i, t) * di + q32(j, t) * dj;
        }
    }
    // ρ: the mean of z_t G_t over free variables, else the middle of the bounds.
    let (mut ub, mut lb, mut sum, mut free) = (f64::INFINITY, f64::NEG_INFINITY, 0.0, 0usize);
    for t in 0..m {
        let zg = z(t) * grad[t];
        if alpha[t] >= c {
            if z(t) < 0.0 {
                ub = ub.min(zg);
            } else {
                lb = lb.max(zg);
            }
        } else if alpha[t] <= 0.0 {
            if z(t) > 0.0 {
                ub = ub.min(zg);
            } else {
                lb = lb.max(zg);
            }
        } else {
            free += 1;
            sum += zg;
        }
    }
    let rho = if free > 0 {
        sum / free as f64
    } else {
        (ub + lb) / 2.0
    };
    Solution {
        alpha,
        rho,
        iterations,
    }
}
