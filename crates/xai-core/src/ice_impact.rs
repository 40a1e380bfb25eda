//! ICE feature impact (icefi2022 Eq. 1–5): numbers read off one feature's ICE curves
//! on the feature's sorted unique values v₁ < … < v_K (the "phantom observations" of
//! icefi2022 §3.1, PAPERS.md §3.1–3.2).
//!
//! With ŷ⁽ⁱ⁾_k the curve of row i at v_k, σ the population sd of the feature over the
//! n rows, and the slopes s⁽ⁱ⁾_k = (ŷ⁽ⁱ⁾_k − ŷ⁽ⁱ⁾_{k−1})/(v_k − v_{k−1}), k = 2..K:
//!
//! - FI = σ · mean |s| (Eq. 1, the change of ŷ per sd of the feature), and the signed
//!   FI = σ · mean s (its direction);
//! - IDFI = σ · Σ L|s| / Σ L with L⁽ⁱ⁾_k = λ^{|v_k − x⁽ⁱ⁾|/σ} (Eq. 2–3: slopes far
//!   from the row's own value count less; λ = 1 gives FI);
//! - HE = σ · mean over k of the sd over rows of s_k (Eq. 4, heterogeneity: 0 when
//!   every row's curve has the same shape);
//! - NL = σ · mean over rows of the sd over k of s⁽ⁱ⁾ (Eq. 5, non-linearity: 0 for
//!   straight curves).
//!
//! [`Convention::Code`] (the default, what the published tables follow): the slope at
//! k = 1 is the slope of segment (1, 2), so each row has K slopes, the first segment
//! counting twice; L at k = 1 uses v₁; the sds are sample sds (divisor m − 1) of the
//! signed slopes. [`Convention::Printed`]: the printed equations, over the K − 1
//! defined slopes (Eq. 1's 1/(n(K − 1))), with the same sample sds. A constant
//! feature (K = 1 or σ = 0) has all five 0; an sd of a single value is 0.

use crate::error::{CoreError, Result};
use ndarray::{Array2, ArrayView1, ArrayView2, Axis, s};

/// Which slopes the averages run over (module doc).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Convention {
    /// The authors' code: K slopes per row, the first duplicated.
    #[default]
    Code,
    /// The printed Eq. 1–5: the K − 1 slopes between grid values.
    Printed,
}

/// The five numbers of one feature (module doc).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IceImpact {
    /// ICE feature impact, Eq. 1.
    pub fi: f64,
    /// Signed ICE feature impact (Eq. 1 without |·|).
    pub signed_fi: f64,
    /// In-distribution feature impact, Eq. 2–3.
    pub idfi: f64,
    /// Heterogeneity, Eq. 4.
    pub he: f64,
    /// Non-linearity, Eq. 5.
    pub nl: f64,
}

/// Checks λ of Eq. 3 lies in (0, 1] (1 gives the plain FI).
pub fn check_lambda(lambda: f64) -> Result<()> {
    if !(lambda > 0.0 && lambda <= 1.0) {
        return Err(CoreError::out_of_range(
            "lambda",
            lambda,
            "in (0, 1] (icefi2022 uses 0.75; 1 gives the plain FI)",
        ));
    }
    Ok(())
}

/// The impact numbers of the curves `curves` (n × K, row i's ŷ at each grid value)
/// on the sorted unique values `grid` (K), with `own` (n) each row's own value of the
/// feature and λ = `lambda` in (0, 1] (icefi2022: 0.75).
///
/// Errors: sizes that do not match, a grid that is not strictly increasing, λ
/// outside (0, 1], a non-finite value.
pub fn ice_impact(
    grid: &[f64],
    curves: ArrayView2<'_, f64>,
    own: ArrayView1<'_, f64>,
    lambda: f64,
    convention: Convention,
) -> Result<IceImpact> {
    let (n, k) = curves.dim();
    if k != grid.len() || own.len() != n || n == 0 {
        return Err(CoreError::Shape(format!(
            "ICE impact of {n} curves at {k} points, a grid of {} values and {} own values",
            grid.len(),
            own.len()
        )));
    }
    if grid
        .windows(2)
        .any(|w| w[0].partial_cmp(&w[1]) != Some(std::cmp::Ordering::Less))
    {
        return Err(CoreError::Invalid(
            "the ICE grid must be the feature's sorted unique values (strictly increasing)".into(),
        ));
    }
    check_lambda(lambda)?;
    if let Some(v) = curves.iter().chain(own.iter()).find(|v| !v.is_finite()) {
        return Err(CoreError::Invalid(format!(
            "ICE impact needs finite curves and feature values, got {v}"
        )));
    }
    let sigma = own.std(0.0);
    if k < 2 || sigma == 0.0 {
        return Ok(IceImpact {
            fi: 0.0,
            signed_fi: 0.0,
            idfi: 0.0,
            he: 0.0,
            nl: 0.0,
        });
    }
    let between = Array2::from_shape_fn((n, k - 1), |(i, j)| {
        (curves[[i, j + 1]] - curves[[i, j]]) / (grid[j + 1] - grid[j])
    });
    // The slopes averaged over, with the grid value each is weighted at.
    let (slopes, at): (Array2<f64>, &[f64]) = match convention {
        Convention::Code => {
            let mut full = Array2::zeros((n, k));
            full.column_mut(0).assign(&between.column(0));
            full.slice_mut(s![.., 1..]).assign(&between);
            (full, grid)
        }
        Convention::Printed => (between, &grid[1..]),
    };
    let (mut weighted, mut weights) = (0.0, 0.0);
    for ((i, j), s) in slopes.indexed_iter() {
        let l = lambda.powf((at[j] - own[i]).abs() / sigma);
        weighted += l * s.abs();
        weights += l;
    }
    let sd = |v: ArrayView1<'_, f64>| if v.len() > 1 { v.std(1.0) } else { 0.0 };
    // The mean over lanes of the sd along `axis`: over rows at each k (Axis(0)), or
    // over k within each row (Axis(1)).
    let mean_sd = |axis: Axis| {
        let sds: Vec<f64> = slopes.lanes(axis).into_iter().map(sd).collect();
        sds.iter().sum::<f64>() / sds.len() as f64
    };
    Ok(IceImpact {
        fi: sigma * slopes.mapv(f64::abs).mean().expect("n·K > 0 slopes"),
        signed_fi: sigma * slopes.mean().expect("n·K > 0 slopes"),
        idfi: sigma * weighted / weights,
        he: sigma * mean_sd(Axis(0)),
        nl: sigma * mean_sd(Axis(1)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array1, array};

    fn both() -> [Convention; 2] {
        [Convention::Code, Convention::Printed]
    }

    /// A linear model ŷ = c_i + β·v: FI = |β|·σ, the signed FI β·σ, HE = NL = 0, and
    /// IDFI = FI (every slope is β), under both conventions.
    #[test]
    fn a_linear_model_has_impact_beta_sigma_and_no_heterogeneity_or_curvature() {
        let grid = [0.0, 1.0, 2.5, 4.0];
        let own = array![0.0, 2.5, 4.0, 1.0, 2.5];
        let beta = -1.7;
        let curves = Array2::from_shape_fn((5, 4), |(i, k)| 0.3 * i as f64 + beta * grid[k]);
        let sigma = own.std(0.0);
        for c in both() {
            let r = ice_impact(&grid, curves.view(), own.view(), 0.75, c).unwrap();
            assert!((r.fi - beta.abs() * sigma).abs() < 1e-12, "{c:?} {r:?}");
            assert!((r.signed_fi - beta * sigma).abs() < 1e-12);
            assert!((r.idfi - r.fi).abs() < 1e-12);
            assert!(r.he.abs() < 1e-12 && r.nl.abs() < 1e-12, "{r:?}");
        }
    }

    /// An additive model ŷ = c_i + g(v) has no heterogeneity but, with a curved g,
    /// non-linearity.
    #[test]
    fn an_additive_model_has_no_heterogeneity() {
        let grid: [f64; 4] = [0.0, 1.0, 2.0, 3.0];
        let own = array![0.0, 1.0, 3.0, 3.0];
        let curves = Array2::from_shape_fn((4, 4), |(i, k)| i as f64 + grid[k].powi(2));
        for c in both() {
            let r = ice_impact(&grid, curves.view(), own.view(), 0.75, c).unwrap();
            assert!(r.he.abs() < 1e-12, "{c:?} {r:?}");
            assert!(r.nl > 0.1, "{c:?} {r:?}");
        }
        // Rows with different slopes are heterogeneous.
        let crossing = Array2::from_shape_fn((4, 4), |(i, k)| i as f64 * grid[k]);
        let r = ice_impact(&grid, crossing.view(), own.view(), 0.75, Convention::Code).unwrap();
        assert!(r.he > 0.1 && r.nl.abs() < 1e-12, "{r:?}");
    }

    /// λ = 1 weighs every slope alike: IDFI = FI, for curved, heterogeneous curves; a
    /// λ below 1 weighs the slopes near each row's own value more, so IDFI differs.
    #[test]
    fn idfi_is_fi_at_lambda_one() {
        let grid: [f64; 4] = [0.0, 1.0, 2.0, 5.0];
        let own = array![0.0, 0.0, 5.0, 1.0];
        let curves = Array2::from_shape_fn((4, 4), |(i, k)| (grid[k] * (i as f64 + 1.0)).sin());
        for c in both() {
            let one = ice_impact(&grid, curves.view(), own.view(), 1.0, c).unwrap();
            assert!((one.idfi - one.fi).abs() < 1e-12, "{c:?} {one:?}");
            let low = ice_impact(&grid, curves.view(), own.view(), 0.5, c).unwrap();
            assert!((low.idfi - low.fi).abs() > 1e-3, "{c:?} {low:?}");
        }
    }

    /// By hand on a 3-valued feature: grid 0, 1, 3 and one curve 0, 2, 3 have slopes
    /// 2 and 0.5. The code's convention repeats the first: slopes (2, 2, 0.5), FI =
    /// σ·4.5/3 = 1.5σ, NL = σ·sd₁(2, 2, 0.5) = σ·√0.75; the printed one: FI = σ·2.5/2
    /// = 1.25σ, NL = σ·sd₁(2, 0.5) = σ·1.5/√2.
    #[test]
    fn the_first_slope_convention_on_a_three_valued_feature() {
        let grid = [0.0, 1.0, 3.0];
        let own = array![0.0, 3.0];
        let sigma = 1.5;
        let curves = array![[0.0, 2.0, 3.0], [1.0, 3.0, 4.0]];
        let code = ice_impact(&grid, curves.view(), own.view(), 0.75, Convention::Code).unwrap();
        assert!((code.fi - 1.5 * sigma).abs() < 1e-12, "{code:?}");
        assert!((code.nl - sigma * 0.75f64.sqrt()).abs() < 1e-12, "{code:?}");
        let printed =
            ice_impact(&grid, curves.view(), own.view(), 0.75, Convention::Printed).unwrap();
        assert!((printed.fi - 1.25 * sigma).abs() < 1e-12, "{printed:?}");
        assert!(
            (printed.nl - sigma * 1.5 / 2f64.sqrt()).abs() < 1e-12,
            "{printed:?}"
        );
        // Two identical rows: no heterogeneity.
        assert!(code.he.abs() < 1e-12 && printed.he.abs() < 1e-12);
    }

    /// A binary feature (K = 2) has one slope per row; the code's convention repeats
    /// it, which changes no mean and no sd: FI, signed FI, HE and NL agree with the
    /// printed equations (icefi2022-tableD's Dx columns), and NL is 0.
    #[test]
    fn the_two_conventions_agree_on_a_binary_feature() {
        let grid = [0.0, 1.0];
        let own = array![0.0, 1.0, 1.0];
        let curves = array![[0.1, 0.4], [0.3, 0.2], [0.0, 0.9]];
        let code = ice_impact(&grid, curves.view(), own.view(), 0.75, Convention::Code).unwrap();
        let printed =
            ice_impact(&grid, curves.view(), own.view(), 0.75, Convention::Printed).unwrap();
        for (a, b) in [
            (code.fi, printed.fi),
            (code.signed_fi, printed.signed_fi),
            (code.he, printed.he),
            (code.nl, printed.nl),
        ] {
            assert!((a - b).abs() < 1e-15, "{code:?} vs {printed:?}");
        }
        assert_eq!(code.nl, 0.0);
        assert!(code.fi > 0.0 && code.he > 0.0);
    }

    #[test]
    fn a_constant_feature_has_no_impact_and_bad_input_is_refused() {
        let r = ice_impact(
            &[2.0],
            Array2::from_elem((3, 1), 0.4).view(),
            Array1::from_elem(3, 2.0).view(),
            0.75,
            Convention::Code,
        )
        .unwrap();
        assert_eq!((r.fi, r.idfi, r.he, r.nl), (0.0, 0.0, 0.0, 0.0));
        let curves = Array2::zeros((2, 2));
        let own = array![0.0, 1.0];
        assert!(
            ice_impact(
                &[1.0, 0.0],
                curves.view(),
                own.view(),
                0.75,
                Convention::Code
            )
            .is_err()
        );
        assert!(
            ice_impact(
                &[0.0, 1.0],
                curves.view(),
                own.view(),
                0.0,
                Convention::Code
            )
            .is_err()
        );
        assert!(
            ice_impact(
                &[0.0, 1.0, 2.0],
                curves.view(),
                own.view(),
                0.5,
                Convention::Code
            )
            .is_err()
        );
    }
}
