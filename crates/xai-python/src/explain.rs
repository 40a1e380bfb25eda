//! The generic entry point: any method of the registry, with the settings its YAML
//! node holds, on a Python model (or a Python learner's fit) and the caller's rows.

use std::collections::BTreeMap;
use std::sync::Arc;

use ndarray::Array1;
use numpy::{PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use xai_core::{CoreError, Dataset, FeatureKind, Learner, Model, Target};
use xai_methods::method::{Input, Plan};
use xai_methods::registry::MethodSpec;
use xai_models::capabilities::Capabilities;
use xai_models::external::{ExternalParams, Supplied};
use xai_models::{LearnerKind, LearnerSpec};

use crate::XaiError;
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
                            Err(PyValueError::new_err(format!(
                                "{what}: the label at row {row} ({v}) is not a class code 0..{k}"
                            )))
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
        .map_err(|e| PyValueError::new_err(format!("{what}: {e}")))
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
/// on one model: fitted on `train` first when it is a learner; each method sees the
/// values the ones before it emitted (as in an experiment). Returns the tidy rows
/// (`tidy.csv`'s columns) and the kept ICE curves, as dicts of lists.
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
    let nodes: Vec<serde_json::Value> = serde_json::from_str(methods)
        .map_err(|e| PyValueError::new_err(format!("methods: {e}")))?;
    let specs = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            serde_json::from_value::<MethodSpec>(n.clone())
                .map_err(|e| XaiError::new_err(format!("methods[{i}]: {e}")))
        })
        .collect::<PyResult<Vec<_>>>()?;
    let sink = Sink::default();
    let name = foreign.name.clone();
    let (spec, model) = learner_of(foreign, schema.n_classes, &sink)?;
    let models = BTreeMap::from([(name.clone(), spec.clone())]);
    let mut earlier_names = Vec::new();
    for (i, s) in specs.iter().enumerate() {
        let plan = Plan {
            feature_names: Some(train.feature_names()),
            n_train: Some(train.n_rows()),
            n_test: Some(test.n_rows()),
            models: &models,
            earlier: &earlier_names,
            dgp: dgp.as_deref().map(crate::dgp::Dgp::spec),
            loaded: Some(&train),
        };
        s.method()
            .validate(&plan)
            .map_err(|e| XaiError::new_err(format!("methods[{i}].{}: {}", e.field, e.message)))?;
        earlier_names.extend(s.method().quantities());
    }
    let dgp_spec = dgp.as_deref().map(crate::dgp::Dgp::spec);
    let computed = py.detach(|| -> xai_core::error::Result<_> {
        // One thread calls into Python: the methods' own parallel loops run on a
        // pool of one.
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .map_err(|e| CoreError::Invalid(e.to_string()))?;
        pool.install(|| {
            let mut rng = xai_core::rng::stream_rng(seed, 0);
            let fitted: Box<dyn Model>;
            let model: &dyn Model = match &model {
                Some(m) => m,
                None => {
                    fitted = spec.build().fit(&train, &mut rng)?;
                    fitted.as_ref()
                }
            };
            let mut values = Vec::new();
            let mut curves = Vec::new();
            for (s, node) in specs.iter().zip(&nodes) {
                let method = s.method();
                // A method's Monte-Carlo truth (a learner's expected explanation over
                // fresh data), where it has one and the rows' DGP is given.
                let inner = node.as_object().and_then(|o| o.values().next());
                let truth = match (dgp_spec, inner.and_then(|n| method.truth_key(n))) {
                    (Some(d), Some(_)) => {
                        method.truth(d, &spec, train.n_rows(), level, seed, None)?
                    }
                    _ => Vec::new(),
                };
                let input = Input {
                    train: &train,
                    test: &test,
                    all: &train,
                    learner: &spec,
                    dgp: dgp_spec,
                    model: method.needs_fit().then_some(model),
                    earlier: &values,
                    level,
                    seed,
                    first: true,
                    truth: &truth,
                };
                let out = method.compute(&input, &mut rng)?;
                values.extend(out.values);
                curves.extend(out.curves);
            }
            Ok((values, curves))
        })
    });
    let (values, curves) = match computed {
        Ok(v) => v,
        Err(e) => {
            return Err(sink
                .take()
                .unwrap_or_else(|| XaiError::new_err(e.to_string())));
        }
    };
    let tidy = PyDict::new(py);
    let name = &name;
    tidy.set_item("replicate", vec![0usize; values.len()])?;
    tidy.set_item("model", vec![name; values.len()])?;
    tidy.set_item(
        "quantity",
        values.iter().map(|v| &v.quantity).collect::<Vec<_>>(),
    )?;
    tidy.set_item(
        "feature",
        values.iter().map(|v| &v.feature).collect::<Vec<_>>(),
    )?;
    tidy.set_item(
        "x",
        values
            .iter()
            .map(|v| v.x.unwrap_or(f64::NAN))
            .collect::<Vec<_>>(),
    )?;
    tidy.set_item(
        "estimate",
        values
            .iter()
            .map(|v| v.estimate.estimate)
            .collect::<Vec<_>>(),
    )?;
    tidy.set_item(
        "se",
        values.iter().map(|v| v.estimate.se).collect::<Vec<_>>(),
    )?;
    tidy.set_item(
        "lower",
        values.iter().map(|v| v.estimate.lower).collect::<Vec<_>>(),
    )?;
    tidy.set_item(
        "upper",
        values.iter().map(|v| v.estimate.upper).collect::<Vec<_>>(),
    )?;
    tidy.set_item("n", values.iter().map(|v| v.estimate.n).collect::<Vec<_>>())?;
    let (mut quantity, mut feature, mut row, mut x, mut value) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for c in &curves {
        for (&g, &v) in c.grid.iter().zip(&c.values) {
            quantity.push(c.quantity.as_str());
            feature.push(c.feature.as_str());
            row.push(c.row);
            x.push(g);
            value.push(v);
        }
    }
    let ice = PyDict::new(py);
    ice.set_item("replicate", vec![0usize; x.len()])?;
    ice.set_item("model", vec![name; x.len()])?;
    ice.set_item("quantity", quantity)?;
    ice.set_item("feature", feature)?;
    ice.set_item("row", row)?;
    ice.set_item("x", x)?;
    ice.set_item("value", value)?;
    Ok((tidy, ice))
}

/// The learner (a built-in one by its node, or Python's) and, for a model handed over
/// fitted, the model.
fn learner_of(
    foreign: Foreign,
    n_classes: Option<usize>,
    sink: &Sink,
) -> PyResult<(LearnerSpec, Option<ForeignModel>)> {
    if let Some(node) = foreign.builtin.as_deref() {
        let spec: LearnerSpec = serde_json::from_str(node).map_err(|e| {
            XaiError::new_err(format!(
                "learner {node}: {e} (the learners: {})",
                LearnerSpec::NAMES.join(", ")
            ))
        })?;
        spec.validate()
            .map_err(|e| XaiError::new_err(format!("learner {node}: {e}")))?;
        return Ok((spec, None));
    }
    let call = foreign
        .call
        .ok_or_else(|| PyValueError::new_err("a model, a learner or a built-in learner's node"))?;
    let kind = Kind::parse(&foreign.kind)?;
    let name = foreign.name.clone();
    let (learner, model): (Arc<dyn Learner>, Option<ForeignModel>) = if foreign.learner {
        let l = ForeignLearner::new(call, kind, name.clone(), sink.clone());
        (Arc::new(l), None)
    } else {
        let m = ForeignModel::new(call, kind, name.clone(), n_classes, sink.clone());
        (Arc::new(FittedOnly(name.clone())), Some(m))
    };
    let capabilities = Capabilities {
        members: kind == Kind::Members,
        ..Capabilities::PREDICTIONS_ONLY
    };
    let spec = LearnerSpec::External(ExternalParams::supplied(
        name,
        Supplied {
            learner,
            capabilities,
        },
    ));
    Ok((spec, model))
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
