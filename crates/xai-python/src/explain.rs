//! The generic entry point: any method of the registry, with the settings its YAML
//! node holds, on a Python model (or a Python learner's fit) and the caller's rows.

use std::sync::Arc;

use ndarray::Array1;
use numpy::{PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use xai_bench::kernel::Request;
use xai_bench::models::external::{ExternalParams, Supplied};
use xai_bench::models::{LearnerKind, LearnerSpec};
use xai_bench::table::{curve_table, tidy_table};
use xai_core::{CoreError, Dataset, FeatureKind, Learner, Model, Target};

use crate::foreign::{ForeignLearner, ForeignModel, Kind, Sink};

/// Rows from Python: features (n × d, float64; categorical columns as codes), the
/// target (float64: values, or class codes with `n_classes`).
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub struct Rows<'py> {
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
}

/// What the rows' columns and target are.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub struct Schema {
    names: Vec<String>,
    /// Per column: `None` (continuous) or its levels (categorical codes 0..L).
    levels: Vec<Option<Vec<String>>>,
    /// Classes of the target (`None`: continuous).
    n_classes: Option<usize>,
}

impl Schema {
    fn dataset(&self, rows: &Rows<'_>, what: &str) -> PyResult<Dataset> {
        let y = rows.y.as_array();
        let target = match self.n_classes {
            None => Target::Continuous(y.to_owned()),
            Some(k) => {
                let labels = y
                    .iter()
                    .enumerate()
                    .map(|(row, &v)| {
                        if v >= 0.0 && v.fract() == 0.0 && v < k as f64 {
                            Ok(v as usize)
                        } else {
                            Err(crate::raise(
                                "DataError",
                                format!(
                                    "{what}: the label at row {row} ({v}) is not a class code 0..{k}"
                                ),
                            ))
                        }
                    })
                    .collect::<PyResult<Array1<usize>>>()?;
                Target::Classes {
                    labels,
                    n_classes: k,
                }
            }
        };
        let kinds = self
            .levels
            .iter()
            .map(|l| match l {
                None => FeatureKind::Continuous,
                Some(levels) => FeatureKind::Categorical {
                    levels: levels.clone(),
                },
            })
            .collect();
        Dataset::with_kinds(
            rows.x.as_array().to_owned(),
            target,
            self.names.clone(),
            kinds,
        )
        .map_err(|e| crate::raise("DataError", format!("{what}: {e}")))
    }
}

/// The model (or learner) from Python: its callable, its kind and its name.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub struct Foreign {
    /// `predict(X)` of a fitted model, or `fit(X, y, seed, n_classes)` of a learner;
    /// `None` for a built-in learner.
    call: Option<Py<PyAny>>,
    /// A built-in learner's YAML node as JSON (`{"random_forest": {"n_trees": 100}}`).
    builtin: Option<String>,
    /// The form of its predictions ([`Kind`]).
    kind: String,
    name: String,
    /// Whether `call` is a learner's fit (refitted by the methods that refit).
    learner: bool,
}

/// Runs `methods` (a JSON list of YAML method nodes, `[{"pfi": {...}}, ...]`) in order
/// on one model with the engine's kernel ([`xai_bench::kernel::explain`]): fitted on
/// `train` first when it is a learner; each method sees the values the ones before it
/// emitted (as in an experiment). Returns the tidy rows (`tidy.csv`'s columns) and the
/// kept ICE curves (`ice.csv`'s), as dicts of columns.
#[allow(clippy::too_many_arguments)]
#[pyfunction]
#[pyo3(signature = (foreign, schema, train, test, methods, seed, level, dgp))]
pub fn explain<'py>(
    py: Python<'py>,
    foreign: Foreign,
    schema: Schema,
    train: Rows<'py>,
    test: Rows<'py>,
    methods: &str,
    seed: u64,
    level: f64,
    dgp: Option<PyRef<'py, crate::dgp::Dgp>>,
) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyDict>)> {
    let train = schema.dataset(&train, "training rows")?;
    let test = schema.dataset(&test, "test rows")?;
    let methods: Vec<serde_json::Value> = serde_json::from_str(methods)
        .map_err(|e| crate::settings_error(format!("methods: {e}")))?;
    let sink = Sink::default();
    let name = foreign.name.clone();
    let (learner, node, model) = learner_of(foreign, schema.n_classes, &sink)?;
    // A model or learner written in Python is called from one thread.
    let threads = if matches!(learner, LearnerSpec::External(_)) {
        1
    } else {
        0
    };
    let request = Request {
        train: &train,
        test: &test,
        name: &name,
        learner: &learner,
        learner_node: &node,
        fitted: model.as_ref().map(|m| m as &dyn xai_core::Model),
        methods: &methods,
        seed,
        level,
        dgp: dgp.as_deref().map(|d| (d.spec(), d.node())),
        threads,
        stop: Some(sink.stop()),
    };
    let label = format!("xaiws: explaining `{name}`");
    let computed = crate::interrupt::interruptible(py, &sink, (&label, true), || {
        xai_bench::kernel::explain(&request)
    })?;
    let out = computed.map_err(|e| sink.take().unwrap_or_else(|| crate::error(e)))?;
    let tidy = crate::tables::columns(py, &tidy_table(&[], &out.rows))?;
    let curves = curve_table(&[], test.feature_names(), &out.curves);
    Ok((tidy, crate::tables::columns(py, &curves)?))
}

/// The learner (a built-in one by its node, or Python's) and, for a model handed over
/// fitted, the model.
fn learner_of(
    foreign: Foreign,
    n_classes: Option<usize>,
    sink: &Sink,
) -> PyResult<(LearnerSpec, serde_json::Value, Option<ForeignModel>)> {
    if let Some(text) = foreign.builtin.as_deref() {
        let node: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| crate::settings_error(format!("learner {text}: {e}")))?;
        let spec: LearnerSpec =
            xai_bench::kinds::read(&node, "learner", LearnerSpec::NAMES).map_err(crate::error)?;
        spec.validate()
            .map_err(|e| crate::settings_error(format!("learner {text}: {e}")))?;
        return Ok((spec, node, None));
    }
    let call = foreign.call.ok_or_else(|| {
        crate::settings_error("give a model, a learner or a built-in learner's node".into())
    })?;
    let kind = Kind::parse(&foreign.kind)?;
    let name = foreign.name.clone();
    let (learner, model): (Arc<dyn Learner>, Option<ForeignModel>) = if foreign.learner {
        let l = ForeignLearner::new(call, kind, name.clone(), sink.clone());
        (Arc::new(l), None)
    } else {
        let m = ForeignModel::new(call, kind, name.clone(), n_classes, sink.clone());
        (Arc::new(FittedOnly(name.clone())), Some(m))
    };
    let node = serde_json::json!({ "external": { "name": name } });
    let supplied = Supplied::foreign(learner, kind == Kind::Members);
    let spec = LearnerSpec::External(ExternalParams::supplied(name, supplied));
    Ok((spec, node, model))
}

/// The learner of a model handed over fitted: it cannot refit.
struct FittedOnly(String);

impl Learner for FittedOnly {
    fn fit(&self, _: &Dataset, _: &mut dyn rand::Rng) -> xai_core::error::Result<Box<dyn Model>> {
        Err(CoreError::Fit(format!(
            "`{}` was given as a fitted model; a method that refits needs a learner \
             (pass learner=<an unfitted estimator or a fit(X, y) callable>)",
            self.0
        )))
    }
}
