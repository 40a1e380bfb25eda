//! Mutual-information estimators (cid2021 §2.2, PAPERS.md §5): exact Gaussian
//! formulas (for tests and the Gaussian MRF), the plug-in estimator for discrete
//! pairs, and the Kraskov–Stögbauer–Grassberger kNN estimator for continuous pairs.
//! All in nats.

use statrs::function::gamma::digamma;

use crate::error::{CoreError, Result};

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

/// The KSG estimator (Kraskov, Stögbauer & Grassberger 2004, Eq. 8, their algorithm 1)
/// with k neighbours: Î = ψ(k) + ψ(N) − (1/N)·Σ_i [ψ(n_x(i) + 1) + ψ(n_y(i) + 1)], where
/// ε_i = the k-th smallest of the max-norm distances max(|x_i − x_j|, |y_i − y_j|),
/// j ≠ i (ties counted with multiplicity), and n_x(i) (n_y(i)) counts the points j ≠ i
/// with |x_i − x_j| < ε_i (|y_i − y_j| < ε_i); n_x = n_y = 0 when ε_i = 0.
///
/// Exact and O(N·(log N + m)), m the points scanned per row (O(√N) for a continuous
/// pair, ≈ 150 at N = 4500), instead of the O(N²) definition: the points are sorted by x once; ε_i is
/// found by visiting the points in order of increasing |x_i − x_j| (outward from i in
/// x-order), keeping the k smallest distances, and stopping once |x_i − x_j| reaches
/// the current k-th smallest (every later point is at least that far); n_x and n_y are
/// two binary searches each in the sorted x and sorted y. Every distance is computed
/// exactly as in the definition and the sum runs over i in input order, so the result
/// is the brute-force one, ties included.
///
/// Errors: [`CoreError::Shape`] if `x` and `y` differ in length,
/// [`CoreError::OutOfRange`] unless 1 ≤ k < N, [`CoreError::NonFinite`] for a NaN or
/// infinite value.
pub fn ksg_mi(x: &[f64], y: &[f64], k: usize) -> Result<f64> {
    let n = x.len();
    if y.len() != n {
        return Err(CoreError::Shape(format!(
            "KSG needs paired samples, got {n} x values and {} y values",
            y.len()
        )));
    }
    if k < 1 || k >= n {
        return Err(CoreError::out_of_range(
            "k",
            k,
            format!("1 <= k < n for KSG, with n = {n} rows"),
        ));
    }
    for (column, v) in [x, y].into_iter().enumerate() {
        if let Some(row) = v.iter().position(|a| !a.is_finite()) {
            return Err(CoreError::NonFinite {
                what: "KSG sample",
                row,
                column,
                value: v[row],
            });
        }
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| x[a].total_cmp(&x[b]));
    // x and y in x-order, and the position of every row in that order.
    let xs: Vec<f64> = order.iter().map(|&j| x[j]).collect();
    let ys_by_x: Vec<f64> = order.iter().map(|&j| y[j]).collect();
    let mut position = vec![0; n];
    for (p, &j) in order.iter().enumerate() {
        position[j] = p;
    }
    let mut ys = y.to_vec();
    ys.sort_by(f64::total_cmp);
    // ψ(m) for m = 1..=n, filled on first use (the same statrs value every time).
    let mut psi = vec![f64::NAN; n + 1];
    let mut psi_of = |m: usize| {
        if psi[m].is_nan() {
            psi[m] = digamma(m as f64);
        }
        psi[m]
    };
    let mut best: Vec<f64> = Vec::with_capacity(k);
    let mut total = 0.0;
    // Rows in input order (the order of the sum in the definition).
    for &p in &position {
        let (xi, yi) = (xs[p], ys_by_x[p]);
        best.clear();
        // Above p, then below p in x-order: |x_i − x_j| grows along each scan, so a
        // scan stops once it reaches the k-th smallest distance found so far.
        scan(p + 1..n, &xs, &ys_by_x, (xi, yi), k, &mut best);
        scan((0..p).rev(), &xs, &ys_by_x, (xi, yi), k, &mut best);
        let eps = best[k - 1];
        let (nx, ny) = if eps > 0.0 {
            (within(&xs, xi, eps) - 1, within(&ys, yi, eps) - 1)
        } else {
            (0, 0)
        };
        total += psi_of(nx + 1) + psi_of(ny + 1);
    }
    Ok(digamma(k as f64) + digamma(n as f64) - total / n as f64)
}

/// Offers the max-norm distances from `c` = (x_i, y_i) to the points `js` (in x-order,
/// moving away from i, so |x_i − x_j| grows) to `best`, the (at most) k smallest
/// distances so far in ascending order; stops at the first j with |x_i − x_j| ≥ the
/// k-th smallest, as no later j can enter.
#[inline]
fn scan(
    js: impl Iterator<Item = usize>,
    xs: &[f64],
    ys_by_x: &[f64],
    c: (f64, f64),
    k: usize,
    best: &mut Vec<f64>,
) {
    let mut full = best.len() == k;
    let mut kth = if full { best[k - 1] } else { f64::INFINITY };
    for j in js {
        let dx = (c.0 - xs[j]).abs();
        if full && dx >= kth {
            return;
        }
        let d = dx.max((c.1 - ys_by_x[j]).abs());
        if !full {
            best.push(d);
        } else if d < kth {
            best[k - 1] = d;
        } else {
            continue;
        }
        let mut q = best.len() - 1;
        while q > 0 && best[q - 1] > best[q] {
            best.swap(q - 1, q);
            q -= 1;
        }
        full = best.len() == k;
        if full {
            kth = best[k - 1];
        }
    }
}

/// How many values v of the ascending `sorted` have |c − v| < eps (eps > 0): the
/// differences are computed as in the definition (fl(c − v) is monotone in v, so the
/// set is a contiguous run).
fn within(sorted: &[f64], c: f64, eps: f64) -> usize {
    let lo = sorted.partition_point(|&v| c - v >= eps);
    let hi = sorted.partition_point(|&v| v - c < eps);
    hi - lo
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream_rng;
    use crate::test_models::standard_normal;
    use rand::RngExt;

    /// The definition of [`ksg_mi`] computed by brute force, O(N²): the oracle of
    /// the fast version.
    fn ksg_mi_brute_force(x: &[f64], y: &[f64], k: usize) -> f64 {
        let n = x.len();
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

    /// n draws of a bivariate Gaussian pair with correlation `rho`.
    fn gaussian_pair(n: usize, rho: f64, seed: u64) -> (Vec<f64>, Vec<f64>) {
        let mut rng = stream_rng(seed, 0);
        (0..n)
            .map(|_| {
                let a = standard_normal(&mut rng);
                (
                    a,
                    rho * a + (1.0 - rho * rho).sqrt() * standard_normal(&mut rng),
                )
            })
            .unzip()
    }

    #[test]
    fn fast_ksg_equals_the_brute_force_definition_on_continuous_data() {
        for (rho, seed) in [(0.0, 1), (0.6, 2), (0.95, 3)] {
            let (x, y) = gaussian_pair(1500, rho, seed);
            for k in [1, 3, 5] {
                let (fast, brute) = (ksg_mi(&x, &y, k).unwrap(), ksg_mi_brute_force(&x, &y, k));
                assert!(
                    (fast - brute).abs() < 1e-12,
                    "rho {rho}, k {k}: {fast} vs {brute}"
                );
            }
        }
    }

    #[test]
    fn fast_ksg_equals_the_brute_force_definition_with_many_ties() {
        // Values rounded to a few levels: many equal x, equal y and equal points, so
        // distances tie at ε_i, ε_i = 0 occurs, and the strict counts matter.
        let (x, y) = gaussian_pair(1200, 0.5, 4);
        for levels in [2.0, 4.0] {
            let round = |v: &[f64]| -> Vec<f64> {
                v.iter()
                    .map(|a| (a * levels / 2.0).round().clamp(-levels, levels))
                    .collect()
            };
            let (xr, yr) = (round(&x), round(&y));
            // A third pair: x rounded, y continuous.
            for (a, b) in [(&xr, &yr), (&xr, &y)] {
                for k in [1, 3, 5] {
                    let (fast, brute) = (ksg_mi(a, b, k).unwrap(), ksg_mi_brute_force(a, b, k));
                    assert!(
                        (fast - brute).abs() < 1e-12,
                        "levels {levels}, k {k}: {fast} vs {brute}"
                    );
                }
            }
        }
    }

    #[test]
    fn ksg_rejects_k_out_of_range_and_unpaired_or_non_finite_samples() {
        let x = [0.0, 1.0, 2.0];
        for k in [0, 3, 4] {
            match ksg_mi(&x, &x, k) {
                Err(e @ CoreError::OutOfRange { .. }) => {
                    let m = e.to_string();
                    assert!(
                        m.contains(&format!("`k` = {k}")) && m.contains("n = 3"),
                        "{m}"
                    )
                }
                other => panic!("k = {k}: {other:?}"),
            }
        }
        assert!(matches!(ksg_mi(&x, &x[..2], 1), Err(CoreError::Shape(_))));
        assert!(matches!(
            ksg_mi(&x, &[0.0, f64::NAN, 1.0], 1),
            Err(CoreError::NonFinite {
                row: 1,
                column: 1,
                ..
            })
        ));
        assert!(ksg_mi(&x, &x, 2).unwrap().is_finite());
    }

    /// Timing of one call at N = 4500 (the training rows of one cid2021 split):
    /// `cargo test -p xai-core --release -- --ignored --nocapture ksg_timing`.
    #[test]
    #[ignore = "timing, prints only"]
    fn ksg_timing() {
        let (x, y) = gaussian_pair(4500, 0.3, 5);
        let time = |f: &dyn Fn() -> f64, reps: u32| {
            let start = std::time::Instant::now();
            let mut v = 0.0;
            for _ in 0..reps {
                v = f();
            }
            (start.elapsed().as_secs_f64() / reps as f64, v)
        };
        let (brute, vb) = time(&|| ksg_mi_brute_force(&x, &y, 3), 3);
        let (fast, vf) = time(&|| ksg_mi(&x, &y, 3).unwrap(), 50);
        println!(
            "KSG k = 3, N = 4500: brute force {:.1} ms, fast {:.3} ms ({:.0}x); values {vb} {vf}",
            brute * 1e3,
            fast * 1e3,
            brute / fast
        );
    }

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
        let est = ksg_mi(&x, &y, 3).unwrap();
        assert!(
            (est - gaussian_mi(rho)).abs() < 0.03,
            "KSG {est} vs {}",
            gaussian_mi(rho)
        );
        // Independent pair: about 0.
        let z: Vec<f64> = (0..2000).map(|_| standard_normal(&mut rng)).collect();
        assert!(ksg_mi(&x, &z, 3).unwrap().abs() < 0.03);
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
