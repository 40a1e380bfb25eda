//! Mutual-information estimators (cid2021 §2.2, PAPERS.md §5): exact Gaussian
//! formulas (for tests and the Gaussian MRF), the plug-in estimator for discrete
//! pairs, and the Kraskov–Stögbauer–Grassberger kNN estimator for continuous pairs.
//! All in nats.

use statrs::function::gamma::digamma;

/// I(X; Y) = −½·log(1 − ρ²) for a bivariate Gaussian with correlation ρ.
pub fn gaussian_mi(rho: f64) -> f64 {
    -0.5 * (1.0 - rho * rho).ln()
}

/// I(X_i; X_j | rest) = −½·log(1 − Λ_ij²/(Λ_ii·Λ_jj)) for a Gaussian with precision
/// Λ (the partial correlation is −Λ_ij/√(Λ_ii·Λ_jj); PAPERS.md §5.2).
pub fn gaussian_conditional_mi(lambda_ij: f64, lambda_ii: f64, lambda_jj: f64) -> f64 {
    -0.5 * (1.0 - lambda_ij * lambda_ij / (lambda_ii * lambda_jj)).ln()
}

/// Plug-in I(X; Y) = Σ p(x, y)·log(p(x, y)/(p(x)·p(y))) of the empirical joint
/// distribution of two label sequences of equal length.
pub fn plugin_mi(x: &[usize], y: &[usize]) -> f64 {
    assert_eq!(x.len(), y.len(), "paired samples");
    let n = x.len() as f64;
    let kx = x.iter().max().map_or(0, |m| m + 1);
    let ky = y.iter().max().map_or(0, |m| m + 1);
    let mut joint = vec![0.0; kx * ky];
    let (mut px, mut py) = (vec![0.0; kx], vec![0.0; ky]);
    for (&a, &b) in x.iter().zip(y) {
        joint[a * ky + b] += 1.0;
        px[a] += 1.0;
        py[b] += 1.0;
    }
    let mut mi = 0.0;
    for a in 0..kx {
        for b in 0..ky {
            let c = joint[a * ky + b];
            if c > 0.0 {
                mi += c / n * (c * n / (px[a] * py[b])).ln();
            }
        }
    }
    mi
}

/// The KSG estimator (Kraskov, Stögbauer & Grassberger 2004, algorithm 1) with k
/// neighbours: Î = ψ(k) + ψ(N) − ⟨ψ(n_x + 1) + ψ(n_y + 1)⟩, where ε_i is the max-norm
/// distance from point i to its k-th neighbour in the joint space and n_x (n_y) counts
/// the other points strictly within ε_i in x (y). Brute force, O(N²).
pub fn ksg_mi(x: &[f64], y: &[f64], k: usize) -> f64 {
    let n = x.len();
    assert!(
        n == y.len() && k >= 1 && k < n,
        "paired samples and 1 <= k < n"
    );
    let mut total = 0.0;
    let mut dist = vec![0.0; n];
    for i in 0..n {
        for j in 0..n {
            dist[j] = if i == j {
                f64::INFINITY
            } else {
                (x[i] - x[j]).abs().max((y[i] - y[j]).abs())
            };
        }
        let mut sorted = dist.clone();
        sorted.select_nth_unstable_by(k - 1, f64::total_cmp);
        let eps = sorted[k - 1];
        let nx = (0..n)
            .filter(|&j| j != i && (x[i] - x[j]).abs() < eps)
            .count();
        let ny = (0..n)
            .filter(|&j| j != i && (y[i] - y[j]).abs() < eps)
            .count();
        total += digamma(nx as f64 + 1.0) + digamma(ny as f64 + 1.0);
    }
    digamma(k as f64) + digamma(n as f64) - total / n as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream_rng;
    use crate::test_models::standard_normal;
    use rand::RngExt;

    #[test]
    fn ksg_recovers_the_gaussian_mutual_information() {
        // ρ = 0.6: I = −½·log(0.64) = 0.2231. KSG with k = 3 at N = 2000 has a standard
        // error of about 0.01 (Kraskov et al. 2004, Fig. 4); allow 3 of them.
        let mut rng = stream_rng(9, 0);
        let rho: f64 = 0.6;
        let (mut x, mut y) = (Vec::new(), Vec::new());
        for _ in 0..2000 {
            let a = standard_normal(&mut rng);
            let b = rho * a + (1.0 - rho * rho).sqrt() * standard_normal(&mut rng);
            x.push(a);
            y.push(b);
        }
        let est = ksg_mi(&x, &y, 3);
        assert!(
            (est - gaussian_mi(rho)).abs() < 0.03,
            "KSG {est} vs {}",
            gaussian_mi(rho)
        );
        // Independent pair: about 0.
        let z: Vec<f64> = (0..2000).map(|_| standard_normal(&mut rng)).collect();
        assert!(ksg_mi(&x, &z, 3).abs() < 0.03);
    }

    #[test]
    fn plugin_mi_of_identical_and_independent_labels() {
        let x: Vec<usize> = (0..4000).map(|i| i % 4).collect();
        assert!((plugin_mi(&x, &x) - 4f64.ln()).abs() < 1e-12);
        let mut rng = stream_rng(10, 0);
        let y: Vec<usize> = (0..4000).map(|_| rng.random_range(0..3usize)).collect();
        // Bias of the plug-in estimator ≈ (kx − 1)(ky − 1)/(2N) = 0.00075.
        assert!(plugin_mi(&x, &y) < 0.005);
    }

    #[test]
    fn conditional_mi_of_two_variables_is_their_mutual_information() {
        // For p = 2 the precision is Σ⁻¹ and the partial correlation is ρ itself.
        let rho: f64 = 0.7;
        let det = 1.0 - rho * rho;
        let (lii, ljj, lij) = (1.0 / det, 1.0 / det, -rho / det);
        assert!((gaussian_conditional_mi(lij, lii, ljj) - gaussian_mi(rho)).abs() < 1e-12);
    }
}
