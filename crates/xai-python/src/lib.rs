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
mod interrupt;
mod run;
mod tables;

use pyo3::prelude::*;

/// The class of the package's error family (`xaiws._errors`) for the engine's kind
/// of fault ([`xai_core::Fault`], sorted by the engine).
fn class_of(fault: xai_core::Fault) -> &'static str {
    use xai_core::Fault;
    match fault {
        Fault::Settings => "SettingsError",
        Fault::Data => "DataError",
        Fault::Model => "ModelError",
        Fault::Size => "SizeError",
        Fault::Other => "XaiError",
    }
}

/// An error of the package's family: class `class` of `xaiws._errors` with `message`.
fn raise(class: &str, message: String) -> PyErr {
    Python::attach(|py| {
        let cls = py
            .import("xaiws._errors")
            .and_then(|m| m.getattr(class))
            .and_then(|c| c.cast_into::<pyo3::types::PyType>().map_err(PyErr::from));
        match cls {
            Ok(cls) => PyErr::from_type(cls, message),
            Err(e) => e,
        }
    })
}

/// An engine error as the package's error of its class ([`class_of`]), with the
/// engine's message.
fn error(e: xai_bench::BenchError) -> PyErr {
    raise(class_of(e.fault()), e.to_string())
}

/// A setting refused by the binding itself (a JSON node that does not parse).
fn settings_error(message: String) -> PyErr {
    raise("SettingsError", message)
}

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
    xai_bench::methods::MethodSpec::NAMES.to_vec()
}

/// What a model of one's own can return (`kind=`): `point`, `probabilities`,
/// `gaussian`, `members`.
#[pyfunction]
fn model_kinds() -> Vec<&'static str> {
    foreign::Kind::NAMES.to_vec()
}

/// Every kind an experiment or `explain` can name (under `section` when given), each
/// with its section and settings (name, type, default, range, doc), read off the
/// engine's schema ([`xai_bench::kinds::Vocabulary::entries`]), as a JSON list.
#[pyfunction]
#[pyo3(signature = (section=None))]
fn kinds(section: Option<&str>) -> PyResult<String> {
    serde_json::to_string(&xai_bench::kinds::vocabulary().entries(section))
        .map_err(|e| settings_error(format!("the engine's schema: {e}")))
}

/// The kind named `name` (under `section` when given) with its section and settings,
/// as JSON; the engine's refusal ([`xai_bench::kinds::Vocabulary::find`]) otherwise.
#[pyfunction]
#[pyo3(signature = (name, section=None))]
fn kind(name: &str, section: Option<&str>) -> PyResult<String> {
    let v = xai_bench::kinds::vocabulary();
    let found = v.find(name, section).map_err(error)?;
    serde_json::to_string(&found).map_err(|e| settings_error(format!("the engine's schema: {e}")))
}

/// The quantities a method node (`{"pfi": {...}}`, as JSON) reports, in order, as the
/// engine names them: what a later method (`cid`'s `corrects`) refers to.
#[pyfunction]
fn quantities(method: &str) -> PyResult<Vec<String>> {
    use xai_bench::methods::MethodSpec;
    let node: serde_json::Value = serde_json::from_str(method)
        .map_err(|e| settings_error(format!("method {method}: {e}")))?;
    let spec: MethodSpec =
        xai_bench::kinds::read(&node, "method", MethodSpec::NAMES).map_err(error)?;
    Ok(spec.method().quantities())
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(explain::explain, m)?)?;
    m.add_function(wrap_pyfunction!(run::run, m)?)?;
    m.add_function(wrap_pyfunction!(method_kinds, m)?)?;
    m.add_function(wrap_pyfunction!(quantities, m)?)?;
    m.add_function(wrap_pyfunction!(kinds, m)?)?;
    m.add_function(wrap_pyfunction!(kind, m)?)?;
    m.add_function(wrap_pyfunction!(model_kinds, m)?)?;
    m.add_function(wrap_pyfunction!(tables::read_table, m)?)?;
    m.add_class::<dgp::Dgp>()?;
    m.add_function(wrap_pyfunction!(datasets::dataset, m)?)?;
    Ok(())
}
