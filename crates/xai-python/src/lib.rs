//! The Python front end: the extension module `xaiws._native`, over the engine.
//!
//! The pure-Python package (`python/xaiws/`) wraps it: it turns a scikit-learn
//! estimator, an XGBoost or PyTorch model or any callable into the callable
//! [`foreign`] reads, numpy arrays and DataFrames into rows, and the columns returned
//! into DataFrames. Nothing here implements a method: [`explain`] runs any method of
//! the registry by its YAML node, [`run`] any experiment.

mod datasets;
mod dgp;
mod explain;
mod foreign;
mod run;

use pyo3::prelude::*;

pyo3::create_exception!(
    _native,
    XaiError,
    pyo3::exceptions::PyValueError,
    "An error of the engine: invalid settings, data that does not suit a method, a \
     model whose predictions are not what its kind promises."
);

/// A target as numpy columns: the values (continuous) or the class codes as floats,
/// and the number of classes (`None`: continuous).
fn target_columns(y: &xai_core::Target) -> (ndarray::Array1<f64>, Option<usize>) {
    match y {
        xai_core::Target::Continuous(v) => (v.clone(), None),
        xai_core::Target::Classes { labels, n_classes } => {
            (labels.mapv(|c| c as f64), Some(*n_classes))
        }
    }
}

/// The method kinds an experiment (and [`explain::explain`]) can name.
#[pyfunction]
fn method_kinds() -> Vec<&'static str> {
    xai_methods::registry::MethodSpec::NAMES.to_vec()
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("XaiError", m.py().get_type::<XaiError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(explain::explain, m)?)?;
    m.add_function(wrap_pyfunction!(run::run, m)?)?;
    m.add_function(wrap_pyfunction!(method_kinds, m)?)?;
    m.add_class::<dgp::Dgp>()?;
    m.add_function(wrap_pyfunction!(datasets::dataset, m)?)?;
    Ok(())
}
