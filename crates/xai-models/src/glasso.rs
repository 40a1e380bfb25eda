//! The graphical lasso (Friedman, Hastie & Tibshirani 2008; cid2021 §2, PAPERS.md §5):
//!
//! Λ̂ = argmin_{Λ ≻ 0} −log det Λ + tr(SΛ) + α·Σ_{i≠j} |Λ_ij|
//!
//! (the diagonal is not penalised, as in scikit-learn), by block coordinate descent on
//! W = Λ⁻¹: for each column i, with W₁₁ = W without row and column i and s₁₂ the
//! column of S, the lasso ½βᵀW₁₁β − s₁₂ᵀβ + α‖β‖₁ is solved by coordinate descent
//! (β_j ← soft(s₁₂_j − Σ_{k≠j} (W₁₁)_jk β_k, α)/(W₁₁)_jj), then w₁₂ = W₁₁β, and
//! Λ_ii = 1/(W_ii − w₁₂ᵀβ), Λ₁₂ = −Λ_ii·β. The diagonal of W stays S_ii. It stops
//! when the dual gap Σ(S∘Λ) − p + α·Σ_{i≠j}|Λ_ij| (scikit-learn's) is below `tol` and
//! a sweep moves no entry of W by more than `w_tol` (so Λ is the inverse of W).
//!
//! At the optimum the KKT conditions hold: W_ii = S_ii; W_ij = S_ij + α·sign(Λ_ij)
//! where Λ_ij ≠ 0; |W_ij − S_ij| ≤ α where Λ_ij = 0.

use ndarray::{Array2, ArrayView2, Axis};
use xai_core::CoreError;

/// Settings of the graphical lasso (defaults: scikit-learn's).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GlassoParams {
    /// Penalty α ≥ 0 on the off-diagonal entries.
    pub alpha: f64,
    /// Stop when the dual gap is below this.
    pub tol: f64,
    /// Maximum sweeps over the columns.
    pub max_iter: usize,
    /// Inner coordinate descent stops when no coefficient moves by more than this.
    pub inner_tol: f64,
    /// Besides the dual gap, a sweep must move no entry of W by more than this, so
    /// that Λ (built column by column) is the inverse of the final W.
    pub w_tol: f64,
}

impl Default for GlassoParams {
    fn default() -> Self {
        Self {
            alpha: 0.01,
            tol: 1e-4,
            max_iter: 100,
            inner_tol: 1e-10,
            w_tol: 1e-10,
        }
    }
}

/// A fitted graphical lasso.
#[derive(Debug, Clone, PartialEq)]
pub struct Glasso {
    /// The precision matrix Λ̂.
    pub precision: Array2<f64>,
    /// The covariance W = Λ̂⁻¹.
    pub covariance: Array2<f64>,
    /// Sweeps made.
    pub iterations: usize,
    /// The final dual gap.
    pub dual_gap: f64,
}

/// The maximum-likelihood covariance (1/n)·Σᵢ (xᵢ − x̄)(xᵢ − x̄)ᵀ.
pub fn empirical_covariance(x: ArrayView2<'_, f64>) -> Array2<f64> {
    let mean = x.mean_axis(Axis(0)).expect("at least one row");
    let c = &x - &mean;
    c.t().dot(&c) / x.nrows() as f64
}

fn soft(z: f64, t: f64) -> f64 {
    z.signum() * (z.abs() - t).max(0.0)
}

/// scikit-learn's dual gap Σ(S∘Λ) − p + α·Σ_{i≠j}|Λ_ij|.
fn dual_gap(s: &Array2<f64>, precision: &Array2<f64>, alpha: f64) -> f64 {
    let p = s.nrows();
    let off: f64 = precision
        .indexed_iter()
        .filter(|((i, j), _)| i != j)
        .map(|(_, v)| v.abs())
        .sum();
    (s * precision).sum() - p as f64 + alpha * off
}

/// Fits the graphical lasso to the covariance `s` (p × p, symmetric).
pub fn graphical_lasso(s: ArrayView2<'_, f64>, params: &GlassoParams) -> Result<Glasso, CoreError> {
    let p = s.nrows();
    if s.ncols() != p || p == 0 {
        return Err(CoreError::Shape(format!(
            "the covariance must be square, got {:?}",
            s.dim()
        )));
    }
    if params.alpha.is_nan() || params.alpha < 0.0 {
        return Err(CoreError::out_of_range("alpha", params.alpha, "at least 0"));
    }
    if (0..p).any(|i| s[[i, i]] <= 0.0) {
        return Err(CoreError::Data(
            "the covariance has a non-positive diagonal entry (a constant feature)".into(),
        ));
    }
    let s = s.to_owned();
    let mut w = s.clone();
    let mut precision = Array2::<f64>::zeros((p, p));
    for i in 0..p {
        precision[[i, i]] = 1.0 / s[[i, i]];
    }
    // β of every column, warm-started from the previous sweep.
    let mut betas = vec![vec![0.0; p - 1]; p];
    let mut iterations = 0;
    let mut gap = f64::INFINITY;
    while iterations < params.max_iter {
        iterations += 1;
        let before = w.clone();
        for i in 0..p {
            let others: Vec<usize> = (0..p).filter(|&k| k != i).collect();
            let beta = &mut betas[i];
            loop {
                let mut moved = 0.0f64;
                for (a, &ka) in others.iter().enumerate() {
                    let mut z = s[[ka, i]];
                    for (b, &kb) in others.iter().enumerate() {
                        if b != a {
                            z -= w[[ka, kb]] * beta[b];
                        }
                    }
                    let new = soft(z, params.alpha) / w[[ka, ka]];
                    moved = moved.max((new - beta[a]).abs());
                    beta[a] = new;
                }
                if moved <= params.inner_tol {
                    break;
                }
            }
            let w12: Vec<f64> = others
                .iter()
                .map(|&ka| {
                    others
                        .iter()
                        .zip(beta.iter())
                        .map(|(&kb, &bb)| w[[ka, kb]] * bb)
                        .sum()
                })
                .collect();
            for (a, &ka) in others.iter().enumerate() {
                w[[ka, i]] = w12[a];
                w[[i, ka]] = w12[a];
            }
            let dot: f64 = w12.iter().zip(beta.iter()).map(|(x, y)| x * y).sum();
            let lii = 1.0 / (w[[i, i]] - dot);
            precision[[i, i]] = lii;
            for (a, &ka) in others.iter().enumerate() {
                precision[[ka, i]] = -lii * beta[a];
                precision[[i, ka]] = -lii * beta[a];
            }
        }
        gap = dual_gap(&s, &precision, params.alpha);
        let moved = (&w - &before).iter().fold(0.0f64, |m, v| m.max(v.abs()));
        if gap.abs() < params.tol && moved < params.w_tol {
            break;
        }
    }
    if !gap.is_finite() {
        return Err(CoreError::Fit(format!(
            "the graphical lasso diverged (alpha = {})",
            params.alpha
        )));
    }
    Ok(Glasso {
        precision,
        covariance: w,
        iterations,
        dual_gap: gap,
    })
}

/// The held-out Gaussian log-likelihood per row of rows with covariance `s` under
/// precision Λ (mean taken as known): ½·(log det Λ − tr(SΛ) − p·log 2π).
pub fn gaussian_log_likelihood(s: ArrayView2<'_, f64>, precision: ArrayView2<'_, f64>) -> f64 {
    let p = s.nrows();
    let m = faer::Mat::<f64>::from_fn(p, p, |i, j| precision[[i, j]]);
    let log_det = match m.llt(faer::Side::Lower) {
        Ok(llt) => 2.0 * (0..p).map(|i| llt.L()[(i, i)].ln()).sum::<f64>(),
        Err(_) => return f64::NEG_INFINITY,
    };
    0.5 * (log_det - (&s * &precision).sum() - p as f64 * (2.0 * std::f64::consts::PI).ln())
}

/// ρ chosen by k-fold cross-validation (PAPERS.md §5.3 variant, as scikit-learn's
/// `GraphicalLassoCV` scores): for each candidate, the mean over folds of
/// [`gaussian_log_likelihood`] of the held-out rows (covariance centred on the
/// training mean) under the graphical lasso fitted to the other folds. Folds are
/// contiguous blocks of rows (no shuffling, so no RNG). Returns the best candidate
/// (the larger on a tie) and every candidate's mean score.
pub fn cross_validated_alpha(
    x: ArrayView2<'_, f64>,
    candidates: &[f64],
    folds: usize,
    params: &GlassoParams,
) -> Result<(f64, Vec<f64>), CoreError> {
    let n = x.nrows();
    if candidates.is_empty() || folds < 2 || n < 2 * folds {
        return Err(CoreError::out_of_range(
            "folds",
            folds,
            format!("at least 2, with 2 rows per fold of the {n} rows and some candidate alphas"),
        ));
    }
    let bounds: Vec<usize> = (0..=folds).map(|f| f * n / folds).collect();
    let mut scores = vec![0.0; candidates.len()];
    for f in 0..folds {
        let (lo, hi) = (bounds[f], bounds[f + 1]);
        let train_rows: Vec<usize> = (0..n).filter(|&i| i < lo || i >= hi).collect();
        let train = x.select(Axis(0), &train_rows);
        let mean = train.mean_axis(Axis(0)).expect("rows");
        let held = &x.slice(ndarray::s![lo..hi, ..]) - &mean;
        let s_held = held.t().dot(&held) / held.nrows() as f64;
        let s_train = empirical_covariance(train.view());
        for (score, &alpha) in scores.iter_mut().zip(candidates) {
            let fit = graphical_lasso(s_train.view(), &GlassoParams { alpha, ..*params })?;
            *score += gaussian_log_likelihood(s_held.view(), fit.precision.view()) / folds as f64;
        }
    }
    let best = (0..candidates.len()).fold(0, |b, k| {
        if scores[k] > scores[b] || (scores[k] == scores[b] && candidates[k] > candidates[b]) {
            k
        } else {
            b
        }
    });
    Ok((candidates[best], scores))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;
    use rand_distr::StandardNormal;
    use xai_core::rng::stream_rng;

    /// The covariance of W6 (../shared/peers/README.md), cid2021's Σ.
    fn w6_sigma() -> Array2<f64> {
        Array2::from_shape_fn((8, 8), |(i, j)| xai_core::cid::CID2021_SIGMA[i][j])
    }

    #[test]
    fn cross_validation_prefers_a_small_penalty_on_plenty_of_dense_data() {
        // 2000 rows of cid2021's Σ (14 of 28 partial correlations non-zero): heavy
        // shrinkage loses held-out likelihood, so CV picks a small ρ; the scores are
        // the held-out log-likelihood, which at ρ ≈ 0 is about −½(log det Σ + p(1 + log 2π)).
        let sigma = w6_sigma();
        let x = sample(&sigma, 2000);
        let candidates = [0.001, 0.01, 0.1, 0.5];
        let (best, scores) =
            cross_validated_alpha(x.view(), &candidates, 5, &GlassoParams::default()).unwrap();
        assert!(best <= 0.01, "best {best}, scores {scores:?}");
        assert!(scores[3] < scores[0], "{scores:?}");
        let log_det: f64 = {
            let m = faer::Mat::<f64>::from_fn(8, 8, |i, j| sigma[[i, j]]);
            let llt = m.llt(faer::Side::Lower).unwrap();
            2.0 * (0..8).map(|i| llt.L()[(i, i)].ln()).sum::<f64>()
        };
        let population = -0.5 * (log_det + 8.0 * (1.0 + (2.0 * std::f64::consts::PI).ln()));
        assert!(
            (scores[0] - population).abs() < 0.1,
            "{} vs {population}",
            scores[0]
        );
        assert!(cross_validated_alpha(x.view(), &[], 5, &GlassoParams::default()).is_err());
    }

    /// n draws of N(0, Σ): x = L·z with Σ = LLᵀ.
    fn sample(sigma: &Array2<f64>, n: usize) -> Array2<f64> {
        let p = sigma.nrows();
        let llt = faer::Mat::<f64>::from_fn(p, p, |i, j| sigma[[i, j]])
            .llt(faer::Side::Lower)
            .expect("Σ is positive definite");
        let l = Array2::from_shape_fn((p, p), |(i, j)| llt.L()[(i, j)]);
        let mut rng = stream_rng(6, 0);
        let z = Array2::from_shape_fn((n, p), |_| rng.sample::<f64, _>(StandardNormal));
        z.dot(&l.t())
    }

    #[test]
    fn solution_satisfies_the_kkt_conditions() {
        let s = empirical_covariance(sample(&w6_sigma(), 5000).view());
        for alpha in [0.01, 0.05, 0.2] {
            let params = GlassoParams {
                alpha,
                tol: 1e-10,
                max_iter: 500,
                ..Default::default()
            };
            let g = graphical_lasso(s.view(), &params).unwrap();
            let w = &g.covariance;
            let tol = 1e-6;
            for i in 0..8 {
                assert!((w[[i, i]] - s[[i, i]]).abs() < tol);
                for j in 0..8 {
                    if i == j {
                        continue;
                    }
                    let l = g.precision[[i, j]];
                    let d = w[[i, j]] - s[[i, j]];
                    if l != 0.0 {
                        assert!(
                            (d - alpha * l.signum()).abs() < tol,
                            "α {alpha} ({i},{j}): {d} vs {}",
                            alpha * l.signum()
                        );
                    } else {
                        assert!(d.abs() <= alpha + tol, "α {alpha} ({i},{j}): |{d}| > α");
                    }
                }
            }
            // W is the inverse of Λ.
            let id = w.dot(&g.precision);
            for i in 0..8 {
                for j in 0..8 {
                    assert!(
                        (id[[i, j]] - f64::from(u8::from(i == j))).abs() < 1e-6,
                        "α {alpha}: (W·Λ)[{i},{j}] = {}",
                        id[[i, j]]
                    );
                }
            }
        }
    }

    #[test]
    fn zero_penalty_inverts_the_covariance_and_large_penalty_is_diagonal() {
        let s = empirical_covariance(sample(&w6_sigma(), 2000).view());
        let g = graphical_lasso(
            s.view(),
            &GlassoParams {
                alpha: 0.0,
                tol: 1e-12,
                max_iter: 1000,
                ..Default::default()
            },
        )
        .unwrap();
        let id = s.dot(&g.precision);
        assert!(
            (0..8).all(|i| (0..8).all(|j| (id[[i, j]] - f64::from(u8::from(i == j))).abs() < 1e-6))
        );
        let big = graphical_lasso(
            s.view(),
            &GlassoParams {
                alpha: 10.0,
                ..Default::default()
            },
        )
        .unwrap();
        assert!(
            big.precision
                .indexed_iter()
                .all(|((i, j), v)| i == j || *v == 0.0)
        );
    }
}
