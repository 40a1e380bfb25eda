//! Truths of a DGP computed by Monte Carlo from its conditional mean, where it has no
//! closed form: the partial dependence of E[Y | X] and the PFI of the oracle model
//! m(x) = E[Y | X = x] itself, each with its Monte-Carlo standard error.

use ndarray::Array1;
use rand::Rng;

use crate::{DgpError, DgpSpec};

/// Monte-Carlo means per entry and their standard errors (sd/√n).
#[derive(Debug, Clone, PartialEq)]
pub struct McTruth {
    /// The means.
    pub mean: Vec<f64>,
    /// Their Monte-Carlo standard errors; 0 for a closed form.
    pub se: Vec<f64>,
}

/// The mean of `v` and its standard error sd/√n (sd with n − 1 in the denominator).
fn mean_se(v: &Array1<f64>) -> (f64, f64) {
    let n = v.len() as f64;
    (v.mean().unwrap_or(f64::NAN), v.std(1.0) / n.sqrt())
}

/// The true partial dependence PD_j(v) = E_{X_−j}[E[Y | X_j = v, X_−j]] (molnar2023
/// Eq. 1) of feature `feature` at each value of `grid`: the DGP's closed form where it
/// has one (se 0), else the mean of E[Y | x⁽ⁱ⁾ with x_j = v] over `n` rows drawn from
/// `rng`, with se sd_i/√n. An error names `feature` when the DGP has no such column.
pub fn partial_dependence(
    dgp: &DgpSpec,
    feature: usize,
    grid: &[f64],
    n: usize,
    rng: &mut dyn Rng,
) -> Result<McTruth, DgpError> {
    let d = dgp.dgp();
    let p = d.feature_names().len();
    if feature >= p {
        return Err(DgpError::OutOfRange {
            param: "feature",
            value: feature.to_string(),
            allowed: format!("a column of the DGP, 0..{p}"),
        });
    }
    if let Some(pd) = d.partial_dependence(feature, grid) {
        return Ok(McTruth {
            se: vec![0.0; pd.len()],
            mean: pd,
        });
    }
    let data = d.sample(n, rng)?;
    let mut x = data.x().to_owned();
    let (mut mean, mut se) = (
        Vec::with_capacity(grid.len()),
        Vec::with_capacity(grid.len()),
    );
    for &v in grid {
        x.column_mut(feature).fill(v);
        let (m, s) = mean_se(&d.conditional_mean(x.view()));
        mean.push(m);
        se.push(s);
    }
    Ok(McTruth { mean, se })
}

/// The squared-error PFI of the oracle m(x) = E[Y | X = x] per feature,
/// E[(Y − m(X̃ʲ))²] − E[(Y − m(X))²] = E[(m(X̃ʲ) − m(X))²] (the cross term vanishes as
/// E[Y − m(X) | X, X̃ʲ] = 0), X̃ʲ the row with x_j replaced by an independent draw
/// from P(X_j): molnar2023's PFI with fresh draws (Eq. 4), of a perfect model. The
/// mean over `n` rows drawn from `rng` (then the replacement draws, feature by
/// feature), with se sd/√n.
pub fn oracle_pfi(dgp: &DgpSpec, n: usize, rng: &mut dyn Rng) -> Result<McTruth, DgpError> {
    let d = dgp.dgp();
    let marginals = dgp.marginals();
    let data = d.sample(n, rng)?;
    let m = d.conditional_mean(data.x());
    let (mut mean, mut se) = (Vec::new(), Vec::new());
    for j in 0..data.n_features() {
        let mut x = data.x().to_owned();
        for i in 0..n {
            x[[i, j]] = marginals.0.draw(j, rng);
        }
        let sq: Array1<f64> = (&d.conditional_mean(x.view()) - &m).mapv(|v| v * v);
        let (mj, sj) = mean_se(&sq);
        mean.push(mj);
        se.push(sj);
    }
    Ok(McTruth { mean, se })
}

#[cfg(test)]
mod tests {
    use super::*;
    use xai_core::rng::stream_rng;

    fn dgp(yaml: &str) -> DgpSpec {
        serde_saphyr::from_str(yaml).unwrap()
    }

    /// y = 2·x1 + x2² with independent standard normals: PD_1(v) = 2v + 1 and the
    /// oracle's PFI of x1 is E[(2(X̃1 − X1))²] = 8, of x2 E[(X̃2² − X2²)²] = 2·Var(X²)
    /// = 4; the Monte-Carlo estimates lie within 4 se of them, and a wrong truth (9)
    /// does not.
    #[test]
    fn monte_carlo_truths_agree_with_their_closed_forms() {
        let f = dgp(
            "formula:\n  features:\n    - x1: normal(0, 1)\n    - x2: normal(0, 1)\n  \
             target: 2 * x1 + x2^2 + normal(0, 1)\n",
        );
        let pd = partial_dependence(&f, 0, &[-1.0, 0.0, 2.0], 4000, &mut stream_rng(1, 0)).unwrap();
        for (g, (m, s)) in [-1.0, 0.0, 2.0].iter().zip(pd.mean.iter().zip(&pd.se)) {
            assert!((m - (2.0 * g + 1.0)).abs() < 4.0 * s, "PD({g}) = {m} ± {s}");
        }
        let pfi = oracle_pfi(&f, 4000, &mut stream_rng(2, 0)).unwrap();
        for (j, truth) in [8.0, 4.0].into_iter().enumerate() {
            let (m, s) = (pfi.mean[j], pfi.se[j]);
            assert!((m - truth).abs() < 4.0 * s, "PFI {j}: {m} ± {s} vs {truth}");
        }
        assert!((pfi.mean[0] - 9.0).abs() > 4.0 * pfi.se[0]);
        assert!(partial_dependence(&f, 2, &[0.0], 10, &mut stream_rng(1, 0)).is_err());
    }
}
