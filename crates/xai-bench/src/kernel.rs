//! The per-replicate kernel: one model's work in one replicate ([`model_work`]) — its
//! fit before the first method that needs it, each method's inputs, compute, and the
//! values and curves collected as tidy rows — with the one definition of the model's
//! random stream ([`model_stream`]). A run's cells ([`crate::run`]) and a front end's
//! call ([`explain`]) both run it, on methods checked by the same validation
//! ([`CheckedMethods`]), so `explain` on a table gives the rows `run` gives for an
//! experiment naming that table, learner, methods and seed, byte for byte.
//!
//! The streams: replicate r of variant stream s draws from
//! [`crate::rows::replicate_stream`] its rows first ([`crate::rows::draw`]), then one
//! model seed; model `name`
//! then draws from `stream_rng(model seed, fnv(name))`, its fit first and then its
//! methods in the order listed, so adding a model leaves the others' numbers alone.

use rand::Rng;
use serde_json::Value as Node;
use xai_core::rng::{StreamRng, stream_rng};
use xai_core::stop::Stop;
use xai_core::{Dataset, Model};
use xai_models::{LearnerKind, LearnerSpec};

use crate::checked::{CheckedMethods, Known, check_level};
use crate::error::{BenchError, Result};
use crate::methods::{Input, MethodSpec};
use crate::results::entropy_map::EntropyMap;
use crate::results::{Invalid, Value};
use crate::rows::{fnv, replicate_stream};
use crate::table::{CurveRow, TidyRow};

/// What one (variant, replicate) cell produced: its tidy rows, its kept ICE curves and
/// its entropy maps (a cell file's content, [`crate::cells`]).
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Replicate {
    /// One row per model × quantity × feature × grid point.
    pub rows: Vec<TidyRow>,
    /// The ICE curves the methods kept.
    pub curves: Vec<CurveRow>,
    /// The entropy maps, for figures.
    pub maps: Vec<EntropyMap>,
}

/// The stream of model `name` in a replicate whose model seed is `model_seed`:
/// `stream_rng(model_seed, fnv(name))`, serving the model's fit and then its methods
/// in the order listed.
pub fn model_stream(model_seed: u64, name: &str) -> StreamRng {
    stream_rng(model_seed, fnv(name))
}

/// One replicate's rows and settings, as every model's methods see them.
#[derive(Clone, Copy)]
pub struct Scene<'a> {
    /// The training rows.
    pub train: &'a Dataset,
    /// The test rows, the rows explained.
    pub test: &'a Dataset,
    /// Every row the replicate was split from (the training rows when each replicate
    /// draws fresh data).
    pub all: &'a Dataset,
    /// The DGP the rows were drawn from, if any.
    pub dgp: Option<&'a xai_synth::DgpSpec>,
    /// Confidence level of intervals, in (0, 1).
    pub level: f64,
    /// The experiment's (or call's) seed.
    pub seed: u64,
    /// The variant's grid labels, in key order (none for a call).
    pub labels: &'a [String],
    /// The replicate's index.
    pub replicate: usize,
    /// A front end's request to stop, checked between methods and blocks of work
    /// (none in a run of the CLI, which Ctrl-C ends as a process).
    pub stop: Option<&'a Stop>,
}

/// One model of a replicate: its name, its learner, the model when it was handed over
/// fitted (else the learner is fitted on the training rows), and whether it is the
/// first model of the first replicate of the first variant.
#[derive(Clone, Copy)]
pub struct ModelRef<'a> {
    /// The model's name.
    pub name: &'a str,
    /// Its learner (fitted here, and refitted by the methods that refit).
    pub learner: &'a LearnerSpec,
    /// A model handed over fitted, if any.
    pub fitted: Option<&'a dyn Model>,
    /// The first model of the first replicate of the first variant.
    pub first: bool,
}

/// Model `model`'s work in replicate `scene`: the learner fitted on the training rows
/// from `rng` (the model's stream, [`model_stream`]) before the first method that
/// needs a fit (unless a fitted model was handed over), then each method in order, on
/// the same stream, seeing the values of those before it and its Monte-Carlo truth
/// (`truth(m)` for method m; empty when none). Its rows, curves and maps are appended
/// to `out`.
pub fn model_work<'t>(
    scene: &Scene<'_>,
    methods: &CheckedMethods,
    model: ModelRef<'_>,
    truth: impl Fn(usize) -> &'t [Value],
    rng: &mut StreamRng,
    out: &mut Replicate,
) -> xai_core::error::Result<()> {
    let mut fitted: Option<Box<dyn Model>> = None;
    let mut values: Vec<Value> = Vec::new();
    for (m, method) in methods.specs().iter().map(MethodSpec::method).enumerate() {
        if let Some(stop) = scene.stop {
            stop.check()?;
        }
        if method.needs_fit() && model.fitted.is_none() && fitted.is_none() {
            fitted = Some(model.learner.build().fit(scene.train, rng)?);
        }
        let input = Input {
            train: scene.train,
            test: scene.test,
            all: scene.all,
            learner: model.learner,
            dgp: scene.dgp,
            model: model.fitted.or(fitted.as_deref()),
            earlier: &values,
            level: scene.level,
            seed: scene.seed,
            first: model.first,
            truth: truth(m),
            stop: scene.stop,
        };
        let emitted = method.compute(&input, rng)?;
        values.extend(emitted.values);
        out.curves.extend(emitted.curves.into_iter().map(|mut c| {
            c.labels = scene.labels.to_vec();
            c.replicate = scene.replicate;
            c.model = model.name.to_string();
            c
        }));
        out.maps.extend(emitted.maps);
    }
    out.rows.extend(values.into_iter().map(|v| TidyRow {
        labels: scene.labels.to_vec(),
        replicate: scene.replicate,
        model: model.name.to_string(),
        quantity: v.quantity,
        feature: v.feature,
        x: v.x,
        value: v.estimate,
    }));
    Ok(())
}

/// A front end's call: one model explained by `methods` on the caller's rows, computed
/// as replicate 0 of an experiment's only variant with that seed (so its numbers are
/// that cell's where the experiment's rows are these).
pub struct Request<'a> {
    /// The rows the learner is fitted on (and methods that refit resample).
    pub train: &'a Dataset,
    /// The rows explained.
    pub test: &'a Dataset,
    /// The model's name (its stream, and the `model` column).
    pub name: &'a str,
    /// Its learner; `learner_node` is its YAML node (a truth's identity).
    pub learner: &'a LearnerSpec,
    /// The learner's YAML node, as an experiment's `models:` holds it.
    pub learner_node: &'a Node,
    /// A model handed over fitted (not fitted again), if any.
    pub fitted: Option<&'a dyn Model>,
    /// The methods' YAML nodes, in order (`{"pfi": {...}}`).
    pub methods: &'a [Node],
    /// The seed of every random draw.
    pub seed: u64,
    /// The confidence level of intervals.
    pub level: f64,
    /// The DGP the rows came from (its spec and its YAML node), for the methods that
    /// read it and their Monte-Carlo truths.
    pub dgp: Option<(&'a xai_synth::DgpSpec, &'a Node)>,
    /// Threads of the call's pool (0: every core; 1 for a model that must be called
    /// from one thread).
    pub threads: usize,
    /// The caller's request to stop (its Ctrl-C), checked between blocks of work.
    pub stop: Option<&'a Stop>,
}

/// Runs `req`: its level and methods checked as a run checks them (a refusal names
/// `methods[i].<field>`), the memory it needs checked before anything is allocated, each
/// method's Monte-Carlo truth (stream as a run's, [`crate::plan::truth_identity`]),
/// then [`model_work`] on replicate 0's stream, a panic inside it returned as
/// [`BenchError::Panicked`]. Returns the rows (no grid labels, replicate 0).
pub fn explain(req: &Request<'_>) -> Result<Replicate> {
    let invalid = BenchError::from;
    check_level(req.level).map_err(invalid)?;
    for (rows, what) in [
        (req.train, "training rows (X, y)"),
        (req.test, "rows to explain"),
    ] {
        if rows.n_rows() == 0 {
            return Err(BenchError::Data(format!(
                "no {what}: give at least one row (a method that refits or splits needs more)"
            )));
        }
    }
    let specs = req
        .methods
        .iter()
        .enumerate()
        .map(|(i, n)| {
            crate::kinds::read::<MethodSpec>(n, &format!("methods[{i}]"), MethodSpec::NAMES)
        })
        .collect::<Result<Vec<_>>>()?;
    let models = std::collections::BTreeMap::from([(req.name.to_string(), req.learner.clone())]);
    let known = Known {
        feature_names: Some(req.train.feature_names()),
        sizes: Some((req.train.n_rows(), req.test.n_rows())),
        models: &models,
        dgp: req.dgp.map(|d| d.0),
        loaded: Some(req.train),
    };
    let methods = CheckedMethods::check(&specs, &known).map_err(|(m, e)| match m {
        Some(i) => invalid(Invalid::new(format!("methods[{i}].{}", e.field), e.message)),
        None => invalid(e),
    })?;
    let sizes = (
        req.train.n_rows(),
        req.test.n_rows(),
        req.train.n_features(),
    );
    methods
        .check_memory(&models, sizes, 1)
        .map_err(|e| BenchError::Size {
            field: e.field,
            message: e.message,
        })?;
    let pool = crate::setup::pool(req.threads)?;
    let failed = |source| BenchError::Run {
        variant: "base".into(),
        replicate: 0,
        model: req.name.to_string(),
        source,
    };
    crate::setup::caught(
        || format!("explaining model `{}`", req.name),
        || {
            pool.install(|| {
                let truths = call_truths(req, &methods).map_err(failed)?;
                if let Some(stop) = req.stop {
                    stop.plan(methods.specs().iter().map(|m| m.method().blocks()).sum());
                }
                let scene = Scene {
                    train: req.train,
                    test: req.test,
                    all: req.train,
                    dgp: req.dgp.map(|d| d.0),
                    level: req.level,
                    seed: req.seed,
                    labels: &[],
                    replicate: 0,
                    stop: req.stop,
                };
                let model_seed = replicate_stream(req.seed, 0, 0).next_u64();
                let model = ModelRef {
                    name: req.name,
                    learner: req.learner,
                    fitted: req.fitted,
                    first: true,
                };
                let mut out = Replicate::default();
                let truth = |m: usize| truths[m].as_slice();
                let mut rng = model_stream(model_seed, req.name);
                model_work(&scene, &methods, model, truth, &mut rng, &mut out).map_err(failed)?;
                Ok(out)
            })
        },
    )
}

/// Each method's Monte-Carlo truth for a call (empty where it has none or no DGP is
/// given), from the stream a run's truth of the same identity draws from.
fn call_truths(
    req: &Request<'_>,
    methods: &CheckedMethods,
) -> xai_core::error::Result<Vec<Vec<Value>>> {
    methods
        .specs()
        .iter()
        .zip(req.methods)
        .map(|(spec, node)| {
            let method = spec.method();
            // The key is picked from the node as written, as a run picks it.
            let key = node
                .as_object()
                .and_then(|o| o.values().next())
                .and_then(|inner| method.truth_key(inner));
            match (key, req.dgp) {
                (Some(key), Some((dgp, dgp_node))) => {
                    let identity = crate::plan::truth_identity(
                        dgp_node,
                        req.train.n_rows(),
                        req.learner_node,
                        key,
                    );
                    crate::truths::truth_of(
                        method,
                        &identity,
                        dgp,
                        req.learner,
                        (req.train.n_rows(), req.level, req.seed),
                        None,
                    )
                }
                _ => Ok(Vec::new()),
            }
        })
        .collect()
}
