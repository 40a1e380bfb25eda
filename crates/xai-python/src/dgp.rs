//! A data generating process from Python, as a YAML `dgp:` node writes it (a formula
//! DGP, or any registered one): rows drawn with a seed, and its truths.

use ndarray::Array1;
use numpy::{PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use xai_bench::synth::{DgpSpec, oracle};
use xai_core::rng::stream_rng;

/// Rows drawn: the features (n × d), the target (values or class codes) and the
/// number of classes (`None`: continuous).
type Drawn<'py> = (
    Bound<'py, PyArray2<f64>>,
    Bound<'py, PyArray1<f64>>,
    Option<usize>,
);

/// A DGP and its truths: E[Y | X], Var(Y | X), the partial dependence, and the
/// squared-error PFI of E[Y | X] itself.
#[pyclass(module = "xaiws._native", frozen)]
pub struct Dgp {
    spec: DgpSpec,
    /// The `dgp:` node as written (a Monte-Carlo truth's identity).
    node: serde_json::Value,
}

fn bad(e: impl std::fmt::Display) -> PyErr {
    crate::settings_error(e.to_string())
}

#[pymethods]
impl Dgp {
    /// The DGP of `yaml`, a `dgp:` node's value (`{formula: {features: [...], target:
    /// ...}}` or `{correlated_gaussian: {rho: 0.8}}`); JSON is YAML too. Checked now:
    /// an error names the formula's line and column, or the parameter.
    #[new]
    fn new(yaml: &str) -> PyResult<Self> {
        let node = serde_saphyr::from_str(yaml).map_err(bad)?;
        let spec: DgpSpec =
            xai_bench::kinds::read(&node, "dgp", DgpSpec::NAMES).map_err(crate::error)?;
        spec.dgp().validate().map_err(bad)?;
        Ok(Dgp { spec, node })
    }

    /// The feature names, in column order.
    fn feature_names(&self) -> Vec<String> {
        self.spec.dgp().feature_names()
    }

    /// Draws `n` rows from stream `seed` (`stream_rng(seed, 0)`): the features
    /// (n × d), the target (values, or class codes), and the classes (`None` for a
    /// continuous target).
    fn sample<'py>(&self, py: Python<'py>, n: usize, seed: u64) -> PyResult<Drawn<'py>> {
        let data = py
            .detach(|| self.spec.dgp().sample(n, &mut stream_rng(seed, 0)))
            .map_err(bad)?;
        let (y, k) = crate::target_columns(data.y());
        Ok((
            PyArray2::from_array(py, &data.x()),
            PyArray1::from_owned_array(py, y),
            k,
        ))
    }

    /// E[Y | X = x] per row of `x` (n × d); for a binary target, P(Y = 1 | x).
    fn conditional_mean<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        self.per_row(py, x, |d, x| d.conditional_mean(x))
    }

    /// Var(Y | X = x) per row of `x` (n × d).
    fn conditional_variance<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        self.per_row(py, x, |d, x| d.conditional_variance(x))
    }

    /// The true partial dependence PD_j(v) = E_{X_−j}[E[Y | X_j = v, X_−j]]
    /// (molnar2023 Eq. 1) at each value of `grid`: the DGP's closed form where it has
    /// one, else the mean of E[Y | X] over `n` rows drawn from stream `seed` with
    /// column j set to v ([`xai_bench::synth::oracle::partial_dependence`]).
    fn partial_dependence<'py>(
        &self,
        py: Python<'py>,
        feature: usize,
        grid: PyReadonlyArray1<'py, f64>,
        n: usize,
        seed: u64,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let grid = grid.as_array().to_vec();
        let pd = py
            .detach(|| {
                oracle::partial_dependence(&self.spec, feature, &grid, n, &mut stream_rng(seed, 0))
            })
            .map_err(bad)?;
        Ok(PyArray1::from_vec(py, pd.mean))
    }

    /// The squared-error PFI of the true mean m(x) = E[Y | X = x] per feature
    /// ([`xai_bench::synth::oracle::oracle_pfi`]): the mean over `n` rows drawn from stream
    /// `seed`, and its Monte-Carlo se (sd/√n).
    fn oracle_pfi(&self, py: Python<'_>, n: usize, seed: u64) -> PyResult<(Vec<f64>, Vec<f64>)> {
        let pfi = py
            .detach(|| oracle::oracle_pfi(&self.spec, n, &mut stream_rng(seed, 0)))
            .map_err(bad)?;
        Ok((pfi.mean, pfi.se))
    }
}

impl Dgp {
    /// The DGP's spec (for the methods that read the DGP the rows came from).
    pub fn spec(&self) -> &DgpSpec {
        &self.spec
    }

    /// The DGP's node as written.
    pub fn node(&self) -> &serde_json::Value {
        &self.node
    }

    /// A truth per row of `x`, which must have the DGP's columns.
    fn per_row<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
        truth: impl Fn(&dyn xai_bench::synth::Dgp, ndarray::ArrayView2<'_, f64>) -> Array1<f64>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let dgp = self.spec.dgp();
        let d = dgp.feature_names().len();
        let x = x.as_array();
        if x.ncols() != d {
            return Err(bad(format!("{} columns given, the DGP has {d}", x.ncols())));
        }
        Ok(PyArray1::from_owned_array(py, truth(dgp, x)))
    }
}
