//! Covered Information Disentanglement (cid2021; computable form in PAPERS.md §5.2-5.3).
//!
//! The covered fraction of feature i is C_i = 1 − I(X_i; Y | rest) / I(X_i; Y)
//! (cid2021 Def. 3 with I = all other features), and the corrected importance is
//! PI_i^T = PI_i / (1 − C_i) (cid2021 Eq. 8). I(X_i; Y | rest) comes from a Gaussian
//! MRF with precision Λ on standardised variables (mean 0, so η = 0): on a grid of
//! bin centres a (for X_i) and b (for Y), with x_R the other variables of a row,
//! F_ab = exp(−Λ_iY·a·b), d_a = exp(−½Λ_ii·a² − a·Σ_r Λ_ir·x_r),
//! e_b = exp(−½Λ_YY·b² − b·Σ_r Λ_Yr·x_r), and the row contributes
//! log[F_ab·(dᵀFe) / ((dᵀF_·b)·(F_a·e))] at its own bins (cid2021 Eq. 9 with the sign
//! corrected as PAPERS.md §5.2 explains); the estimate is the mean over rows.

use ndarray::{Array1, Array2, ArrayView1, ArrayView2, Axis};
use serde::Deserialize;

use crate::dataset::{Dataset, Target};
use crate::error::{CoreError, Result};
use crate::inference::Estimate;
use crate::mutual_info::{ksg_mi, plugin_mi};

/// The covariance of cid2021's Gaussian toy (Fig. 2; PAPERS.md §5.4) over X0..X6, Y
/// (last); also the covariance of benchmark workload W6.
pub const CID2021_SIGMA: [[f64; 8]; 8] = [
    [1.0, 0.4, 0.1, 0.1, 0.1, 0.0, 0.0, 0.3],
    [0.4, 1.0, 0.1, 0.1, 0.1, 0.0, 0.0, 0.3],
    [0.1, 0.1, 1.0, 0.7, 0.7, 0.0, 0.0, 0.4],
    [0.1, 0.1, 0.7, 1.0, 0.7, 0.0, 0.0, 0.4],
    [0.1, 0.1, 0.7, 0.7, 1.0, 0.0, 0.0, 0.4],
    [0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.9, 0.0],
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.9, 1.0, 0.0],
    [0.3, 0.3, 0.4, 0.4, 0.4, 0.0, 0.0, 1.0],
];

/// Equal-width bins over [lo, hi]: their centres, and the bin of a value (values
/// outside fall into the end bins).
#[derive(Debug, Clone, PartialEq)]
pub struct Bins {
    lo: f64,
    width: f64,
    /// Bin centres.
    pub centres: Vec<f64>,
}

impl Bins {
    /// `count` bins spanning [lo, hi].
    pub fn new(lo: f64, hi: f64, count: usize) -> Self {
        let width = (hi - lo) / count as f64;
        let centres = (0..count).map(|k| lo + (k as f64 + 0.5) * width).collect();
        Self { lo, width, centres }
    }

    /// `count` bins spanning the range of `values`.
    pub fn spanning(values: ArrayView1<'_, f64>, count: usize) -> Self {
        let lo = values.fold(f64::INFINITY, |a, &b| a.min(b));
        let hi = values.fold(f64::NEG_INFINITY, |a, &b| a.max(b));
        Self::new(lo, hi, count)
    }

    /// The bins of a column (cid2021 §2.2): a binary column keeps its two values as
    /// the bin centres (two bins of width v₁ − v₀ centred on them); any other column
    /// gets `count` equal-width bins spanning its range.
    pub fn for_column(values: ArrayView1<'_, f64>, count: usize) -> Self {
        match binary_levels(values) {
            Some((v0, v1)) => Self::new(1.5 * v0 - 0.5 * v1, 1.5 * v1 - 0.5 * v0, 2),
            None => Self::spanning(values, count),
        }
    }

    /// The bin of `v`.
    pub fn of(&self, v: f64) -> usize {
        (((v - self.lo) / self.width).floor().max(0.0) as usize).min(self.centres.len() - 1)
    }
}

/// The binned estimate of I(X_i; X_y | all other variables) from the precision Λ of
/// standardised variables, averaged over the rows of `z` (standardised, all
/// variables including y), with `bins_i` and `bins_y` for the two variables.
pub fn binned_conditional_mi(
    precision: ArrayView2<'_, f64>,
    i: usize,
    y: usize,
    z: ArrayView2<'_, f64>,
    bins_i: &Bins,
    bins_y: &Bins,
) -> f64 {
    let l_iy = precision[[i, y]];
    if l_iy == 0.0 {
        return 0.0;
    }
    let (a, b) = (&bins_i.centres, &bins_y.centres);
    let f: Vec<Vec<f64>> = a
        .iter()
        .map(|&ak| b.iter().map(|&bk| (-l_iy * ak * bk).exp()).collect())
        .collect();
    let mut total = 0.0;
    for row in z.rows() {
        let (mut si, mut sy) = (0.0, 0.0);
        for r in 0..row.len() {
            if r != i && r != y {
                si += precision[[i, r]] * row[r];
                sy += precision[[y, r]] * row[r];
            }
        }
        let d: Vec<f64> = a
            .iter()
            .map(|&ak| (-0.5 * precision[[i, i]] * ak * ak - ak * si).exp())
            .collect();
        let e: Vec<f64> = b
            .iter()
            .map(|&bk| (-0.5 * precision[[y, y]] * bk * bk - bk * sy).exp())
            .collect();
        let (ka, kb) = (bins_i.of(row[i]), bins_y.of(row[y]));
        let fe_a: f64 = (0..b.len()).map(|q| f[ka][q] * e[q]).sum();
        let df_b: f64 = (0..a.len()).map(|p| d[p] * f[p][kb]).sum();
        let dfe: f64 = (0..a.len())
            .map(|p| d[p] * (0..b.len()).map(|q| f[p][q] * e[q]).sum::<f64>())
            .sum();
        total += (f[ka][kb] * dfe / (df_b * fe_a)).ln();
    }
    total / z.nrows() as f64
}

/// The two values of a column that takes exactly two, smaller first.
fn binary_levels(values: ArrayView1<'_, f64>) -> Option<(f64, f64)> {
    let first = *values.first()?;
    let other = values.iter().copied().find(|&v| v != first)?;
    values
        .iter()
        .all(|&v| v == first || v == other)
        .then(|| (first.min(other), first.max(other)))
}

/// How Î(X_i; Y) = H(X_i ∩ Y) is estimated (PAPERS.md §5.3), in nats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum MiEstimator {
    /// Kraskov–Stögbauer–Grassberger with `k` neighbours ([`ksg_mi`]), for continuous
    /// pairs.
    Ksg {
        /// Neighbours (cid2021 proposal: 3).
        k: usize,
    },
    /// Plug-in MI ([`plugin_mi`]) of the discretised pair: a binary column keeps its
    /// two values, any other column is cut into `bins` equal-width bins.
    Plugin {
        /// Bins of a non-binary column (cid2021 Fig. 3 proposal: 10).
        bins: usize,
    },
}

impl MiEstimator {
    /// Î(x; y) of two paired columns (errors as [`ksg_mi`]).
    pub fn estimate(self, x: ArrayView1<'_, f64>, y: ArrayView1<'_, f64>) -> Result<f64> {
        match self {
            MiEstimator::Ksg { k } => ksg_mi(&x.to_vec(), &y.to_vec(), k),
            MiEstimator::Plugin { bins } => {
                let labels = |c: ArrayView1<'_, f64>| {
                    let b = Bins::for_column(c, bins);
                    c.iter().map(|&v| b.of(v)).collect::<Vec<_>>()
                };
                Ok(plugin_mi(&labels(x), &labels(y)))
            }
        }
    }
}

/// The settings of the covered-information estimate (PAPERS.md §5.3).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CidSettings {
    /// Bins B per continuous variable in the binned conditional MI (proposal: 20).
    pub bins: usize,
    /// The estimator of I(X_i; Y).
    pub mi: MiEstimator,
}

/// The information terms of one feature: Î(X_i; Y), Î(X_i; Y | rest) and the
/// covered fraction C_i.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CoveredInformation {
    /// Î(X_i; Y) on the training rows.
    pub mi: f64,
    /// Binned Î(X_i; Y | rest) from the Gaussian MRF, averaged over the evaluation rows.
    pub conditional_mi: f64,
    /// C_i of [`covered_fraction`].
    pub covered: f64,
}

/// The features and the target of `data` as one matrix [X | y] (class labels as
/// numbers), standardised with the mean and sd (divisor n) of `reference`'s columns.
fn standardised_joint(data: &Dataset, reference: &Dataset) -> Result<Array2<f64>> {
    let joint = |d: &Dataset| {
        let y: Array1<f64> = match d.y() {
            Target::Continuous(y) => y.clone(),
            Target::Classes { labels, .. } => labels.mapv(|c| c as f64),
        };
        ndarray::concatenate(Axis(1), &[d.x(), y.view().insert_axis(Axis(1))])
            .expect("rows of X and y agree")
    };
    let r = joint(reference);
    let mean = r.mean_axis(Axis(0)).expect("at least one row");
    let sd = r.std_axis(Axis(0), 0.0);
    if let Some(j) = sd.iter().position(|&s| s.is_nan() || s <= 0.0) {
        let name = reference
            .feature_names()
            .get(j)
            .map_or("the target", String::as_str);
        return Err(CoreError::Invalid(format!(
            "CID needs every variable to vary in the training rows, but {name} is constant"
        )));
    }
    Ok((joint(data) - &mean) / &sd)
}

/// C_i for every feature (PAPERS.md §5.2-5.3): [X | y] is standardised with the
/// training rows' mean and sd; `precision_of` estimates the precision Λ̂ of the
/// standardised training rows (the graphical lasso, cid2021 §2); Î(X_i; Y) is
/// `settings.mi` on the standardised training columns; Î(X_i; Y | rest) is
/// [`binned_conditional_mi`] averaged over the standardised `eval` rows, with
/// [`Bins::for_column`] bins of the training columns (evaluation values outside the
/// training range fall into the end bins).
pub fn covered_information(
    train: &Dataset,
    eval: &Dataset,
    settings: CidSettings,
    precision_of: &dyn Fn(ArrayView2<'_, f64>) -> Result<Array2<f64>>,
) -> Result<Vec<CoveredInformation>> {
    let z_train = standardised_joint(train, train)?;
    let z_eval = standardised_joint(eval, train)?;
    let precision = precision_of(z_train.view())?;
    let y = z_train.ncols() - 1;
    let bins_y = Bins::for_column(z_train.column(y), settings.bins);
    (0..y)
        .map(|i| {
            let mi = settings.mi.estimate(z_train.column(i), z_train.column(y))?;
            let bins_i = Bins::for_column(z_train.column(i), settings.bins);
            let conditional_mi =
                binned_conditional_mi(precision.view(), i, y, z_eval.view(), &bins_i, &bins_y);
            Ok(CoveredInformation {
                mi,
                conditional_mi,
                covered: covered_fraction(mi, conditional_mi),
            })
        })
        .collect()
}

/// C_i = 1 − I(X_i;Y|rest)/I(X_i;Y) with the safeguards of PAPERS.md §5.3: 0 when
/// I(X_i;Y) < 1e-3 nats or the fraction is negative ("explaining away"), at most 0.99.
pub fn covered_fraction(mi: f64, conditional_mi: f64) -> f64 {
    if mi < 1e-3 {
        return 0.0;
    }
    (1.0 - conditional_mi / mi).clamp(0.0, 0.99)
}

/// The CID-corrected importance PI / (1 − C) (cid2021 Eq. 8).
pub fn corrected_importance(pi: f64, covered: f64) -> f64 {
    pi / (1.0 - covered)
}

/// A PFI estimate corrected by [`corrected_importance`]: the estimate, its standard
/// error and its interval all scaled by 1/(1 − C), i.e. an interval conditional on Ĉ.
pub fn corrected_estimate(pi: Estimate, covered: f64) -> Estimate {
    let scale = |v: f64| corrected_importance(v, covered);
    Estimate {
        estimate: scale(pi.estimate),
        se: scale(pi.se),
        lower: scale(pi.lower),
        upper: scale(pi.upper),
        n: pi.n,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mutual_info::gaussian_conditional_mi;
    use crate::rng::stream_rng;
    use crate::test_models::standard_normal;
    use ndarray::Array2;

    /// Σ⁻¹ and n draws of N(0, Σ) for Σ = [`CID2021_SIGMA`] (x = L·z, Σ = LLᵀ).
    fn precision_and_sample(n: usize) -> (Array2<f64>, Array2<f64>) {
        use faer::linalg::solvers::DenseSolveCore;
        let sigma = faer::Mat::<f64>::from_fn(8, 8, |i, j| CID2021_SIGMA[i][j]);
        let llt = sigma
            .llt(faer::Side::Lower)
            .expect("Σ is positive definite");
        let inv = llt.inverse();
        let l = Array2::from_shape_fn((8, 8), |(i, j)| llt.L()[(i, j)]);
        let mut rng = stream_rng(12, 0);
        let z = Array2::from_shape_fn((n, 8), |_| standard_normal(&mut rng));
        (
            Array2::from_shape_fn((8, 8), |(i, j)| inv[(i, j)]),
            z.dot(&l.t()),
        )
    }

    #[test]
    fn binned_conditional_mi_approaches_the_exact_gaussian_value() {
        // PAPERS.md §5.4: I(X0; Y | rest) = 0.0191, I(X2; Y | rest) = 0.0068 nats.
        let (lambda, z) = precision_and_sample(20_000);
        for (i, exact_paper) in [(0usize, 0.0191), (2, 0.0068)] {
            let exact = gaussian_conditional_mi(lambda[[i, 7]], lambda[[i, i]], lambda[[7, 7]]);
            assert!((exact - exact_paper).abs() < 1e-4, "exact {exact}");
            let err = |b: usize| {
                let bi = Bins::spanning(z.column(i), b);
                let by = Bins::spanning(z.column(7), b);
                (binned_conditional_mi(lambda.view(), i, 7, z.view(), &bi, &by) - exact).abs()
            };
            let (coarse, fine) = (err(5), err(80));
            assert!(
                fine < coarse,
                "X{i}: error {fine} at B = 80 vs {coarse} at B = 5"
            );
            // MC error of a mean over 20,000 rows of the log ratio is ≈ 2e-4 here.
            assert!(
                fine < 1.5e-3,
                "X{i}: binned estimate off by {fine} at B = 80"
            );
        }
        // Λ_iY = 0 (X5): no conditional information.
        let b = Bins::spanning(z.column(5), 20);
        assert_eq!(
            binned_conditional_mi(lambda.view(), 5, 7, z.view(), &b, &b),
            0.0
        );
    }

    #[test]
    fn binary_columns_keep_their_two_values_as_bins() {
        let b = Bins::for_column(ndarray::array![3.0, -1.0, 3.0, -1.0].view(), 20);
        assert_eq!(b.centres, vec![-1.0, 3.0]);
        assert_eq!((b.of(-1.0), b.of(3.0), b.of(0.9), b.of(1.1)), (0, 1, 0, 1));
        assert_eq!(
            Bins::for_column(ndarray::array![0.0, 1.0, 2.0].view(), 4)
                .centres
                .len(),
            4
        );
    }

    #[test]
    fn covered_information_recovers_the_population_covered_fractions() {
        // 10,000 training and 5,000 evaluation rows of cid2021's toy, the inverse of
        // the training covariance as Λ̂: C = 0.595 (X0, X1), 0.922 (X2-X4), 0 (X5, X6).
        // The sd of Ĉ(X0) here is about 0.04 (KSG error over Î(X0; Y) = 0.047 and the
        // mean of the log ratio over 5,000 rows); with 500 evaluation rows, as in one
        // split of the paper's experiment, it is about 0.15.
        let (_, z) = precision_and_sample(15_000);
        let data = |rows: std::ops::Range<usize>| {
            let part = z.slice(ndarray::s![rows, ..]);
            Dataset::new(
                part.slice(ndarray::s![.., ..7]).to_owned(),
                Target::Continuous(part.column(7).to_owned()),
                (0..7).map(|j| format!("X{j}")).collect(),
            )
            .unwrap()
        };
        let inverse = |x: ArrayView2<'_, f64>| -> Result<Array2<f64>> {
            use faer::linalg::solvers::DenseSolveCore;
            let n = x.nrows() as f64;
            let s = x.t().dot(&x) / n;
            let m = faer::Mat::<f64>::from_fn(8, 8, |i, j| s[[i, j]]);
            let inv = m
                .llt(faer::Side::Lower)
                .expect("positive definite")
                .inverse();
            Ok(Array2::from_shape_fn((8, 8), |(i, j)| inv[(i, j)]))
        };
        let settings = CidSettings {
            bins: 20,
            mi: MiEstimator::Ksg { k: 3 },
        };
        let c = covered_information(&data(0..10_000), &data(10_000..15_000), settings, &inverse)
            .unwrap();
        for (j, want) in [0.595, 0.595, 0.922, 0.922, 0.922, 0.0, 0.0]
            .into_iter()
            .enumerate()
        {
            assert!(
                (c[j].covered - want).abs() < 0.1,
                "X{j}: C = {} (MI {}, CMI {}), population {want}",
                c[j].covered,
                c[j].mi,
                c[j].conditional_mi
            );
        }
    }

    #[test]
    fn covered_fraction_safeguards_and_correction() {
        // X0 of §5.4: C = 1 − 0.0191/0.0472 = 0.595, PI^T = 0.0661/0.405 = 0.163.
        let c = covered_fraction(0.0472, 0.0191);
        assert!((c - 0.595).abs() < 1e-3);
        assert!((corrected_importance(0.0661, c) - 0.163).abs() < 1e-3);
        let pi = crate::t_interval(&[0.05, 0.07, 0.08], 0.95);
        let e = corrected_estimate(pi, 0.5);
        assert_eq!(
            (e.estimate, e.se, e.lower, e.upper),
            (
                2.0 * pi.estimate,
                2.0 * pi.se,
                2.0 * pi.lower,
                2.0 * pi.upper
            )
        );
        assert_eq!(covered_fraction(0.0005, 0.0), 0.0);
        assert_eq!(covered_fraction(0.05, 0.06), 0.0);
        assert_eq!(covered_fraction(0.05, 0.0), 0.99);
    }
}
