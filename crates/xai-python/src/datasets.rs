//! A registered dataset (`data/datasets.yaml`) from Python: located, verified by its
//! sha256 and encoded exactly as an experiment reads it.

use numpy::{PyArray1, PyArray2};
use pyo3::prelude::*;
use xai_bench::datasets::{MissingPolicy, Registry, load, search_dirs};
use xai_bench::workspace::workspace_root;
use xai_core::FeatureKind;

/// The features (n × d; categorical columns as codes), the target (values or class
/// codes), the feature names, each column's levels (`None`: continuous) and the number
/// of classes (`None`: a continuous target) of dataset `name`; `missing` is the
/// policy for rows with a missing cell (`error`, `drop_rows`, `keep`, `impute_mean`).
#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn dataset<'py>(
    py: Python<'py>,
    name: &str,
    missing: &str,
) -> PyResult<(
    Bound<'py, PyArray2<f64>>,
    Bound<'py, PyArray1<f64>>,
    Vec<String>,
    Vec<Option<Vec<String>>>,
    Option<usize>,
)> {
    let err = crate::error;
    let policy: MissingPolicy = serde_json::from_value(serde_json::Value::String(missing.into()))
        .map_err(|_| {
        crate::settings_error(format!(
            "missing={missing:?}: one of error, drop_rows, keep, impute_mean"
        ))
    })?;
    let root = workspace_root();
    let registry = Registry::load(&root.join("data").join("datasets.yaml")).map_err(err)?;
    let entry = registry.get(name).map_err(err)?;
    let loaded = py
        .detach(|| load(name, entry, &search_dirs(&root), policy))
        .map_err(err)?;
    let data = loaded.data;
    let levels = data
        .feature_kinds()
        .iter()
        .map(|k| match k {
            FeatureKind::Continuous => None,
            FeatureKind::Categorical { levels } => Some(levels.clone()),
        })
        .collect();
    let (y, k) = crate::target_columns(data.y());
    Ok((
        PyArray2::from_array(py, &data.x()),
        PyArray1::from_owned_array(py, y),
        data.feature_names().to_vec(),
        levels,
        k,
    ))
}
