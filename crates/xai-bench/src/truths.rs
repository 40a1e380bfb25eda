//! The Monte-Carlo truths a run's methods compare their estimates with
//! ([`crate::methods::Method::truth`]): each computed once per distinct (DGP, n_train,
//! learner, the method's truth key) before the cells, from stream
//! `stream_rng(seed, fnv(that identity))`, and kept in the run's truth store.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Instant;

use rand::Rng;
use xai_core::rng::stream_rng;

use crate::cells::{self, CellStore, Found};
use crate::error::{BenchError, Result};
use crate::methods::{Method, MethodSpec};
use crate::plan::Job;
use crate::results::Value;
use crate::rows::fnv;
use crate::setup::{Setup, caught};

/// A variant's Monte-Carlo truths: per (model, method index) its values.
pub(crate) type Truths = BTreeMap<(String, usize), Arc<Vec<Value>>>;

/// The cost of one Monte-Carlo truth: what it is, its runs, and the seconds taken
/// by the runs done (all, or a probe's first few).
#[derive(Debug, Clone)]
pub struct TruthCost {
    /// "model (variant)".
    pub what: String,
    /// Its runs.
    pub runs: usize,
    /// Runs done (fewer for a probe).
    pub done: usize,
    /// Seconds they took (0 when read from the store).
    pub seconds: f64,
}

/// The truths of the variants marked `needed` (the others get none), each computed
/// once per distinct (DGP, n_train, learner, method's truth key) on the setup's pool,
/// or read from `store`, where a computed one is written; with `probe`, only the
/// first runs of each (to time it, see [`crate::run::plan`]), never stored.
pub(crate) fn truths(
    setup: &Setup<'_>,
    store: Option<&CellStore>,
    needed: &[bool],
    mut probe: Option<&mut Vec<TruthCost>>,
) -> Result<Vec<Truths>> {
    let Job { exp, progress, .. } = setup.job;
    let mut cache: HashMap<String, Arc<Vec<Value>>> = HashMap::new();
    let mut out = Vec::with_capacity(setup.variants.len());
    for (variant, _) in setup.variants.iter().zip(needed).filter(|(_, n)| **n) {
        let spec = &variant.spec;
        let mut truths = Truths::new();
        for (m, method) in spec.methods.iter().map(MethodSpec::method).enumerate() {
            let (Some(key), Some(dgp)) = (method.truth_key(variant.method_node(m)), &spec.data.dgp)
            else {
                continue;
            };
            for (name, learner) in &spec.models {
                let identity = variant.truth_identity(name, key.clone());
                if let Some(values) = cache.get(&identity) {
                    truths.insert((name.clone(), m), values.clone());
                    continue;
                }
                let file = cells::truth_name(&identity, spec.seed);
                let stored = match (store, &probe) {
                    (Some(store), None) => store.read::<Vec<Value>>(&file)?,
                    _ => Found::Missing,
                };
                let values = match stored {
                    Found::Cell(values, _) => values,
                    found => {
                        if let Found::Unusable(why) = found {
                            eprintln!(
                                "{}: truth {file} is unusable ({why}); computing it again",
                                exp.id()
                            );
                        }
                        if progress && probe.is_none() {
                            eprintln!(
                                "{}: Monte-Carlo truth of {name} ({})",
                                exp.id(),
                                variant.describe()
                            );
                        }
                        let runs = probe.as_ref().map(|_| PROBE_RUNS);
                        let start = Instant::now();
                        let place = || {
                            format!(
                                "the Monte-Carlo truth of model `{name}` (variant {})",
                                variant.describe()
                            )
                        };
                        let values = caught(place, || {
                            setup
                                .pool
                                .install(|| {
                                    truth_of(
                                        method,
                                        &identity,
                                        dgp,
                                        learner,
                                        (spec.data.n_train, spec.level, spec.seed),
                                        runs,
                                    )
                                })
                                .map_err(|source| BenchError::Run {
                                    variant: variant.describe(),
                                    replicate: 0,
                                    model: name.clone(),
                                    source,
                                })
                        })?;
                        let seconds = start.elapsed().as_secs_f64();
                        match probe.as_deref_mut() {
                            Some(costs) => costs.push(TruthCost {
                                what: format!("{name} ({})", variant.describe()),
                                runs: method.truth_runs(),
                                done: runs.map_or(method.truth_runs(), |k| {
                                    k.clamp(2, method.truth_runs())
                                }),
                                seconds,
                            }),
                            None => {
                                if let Some(store) = store {
                                    store.write(&file, seconds, &values)?;
                                }
                            }
                        }
                        values
                    }
                };
                let values = Arc::new(values);
                cache.insert(identity, values.clone());
                truths.insert((name.clone(), m), values);
            }
        }
        out.push(truths);
    }
    // Variants not needed get no truths, at their own index.
    let mut it = out.into_iter();
    Ok(needed
        .iter()
        .map(|&n| {
            if n {
                it.next().expect("one per needed")
            } else {
                Truths::new()
            }
        })
        .collect())
}

/// The Monte-Carlo truth of `method` for `learner` on `dgp` with `n_train` training
/// rows and intervals at `level` ([`crate::methods::Method::truth`]), its runs drawn
/// from the seed `stream_rng(seed, fnv(identity))` gives first, `identity` being the
/// truth's ([`crate::plan::truth_identity`]): so a run's cells and a front end's call
/// that ask for the same truth get the same numbers. With `runs`, only the first runs
/// (a probe).
pub(crate) fn truth_of(
    method: &dyn Method,
    identity: &str,
    dgp: &xai_synth::DgpSpec,
    learner: &xai_models::LearnerSpec,
    (n_train, level, seed): (usize, f64, u64),
    runs: Option<usize>,
) -> xai_core::error::Result<Vec<Value>> {
    let seed = stream_rng(seed, fnv(identity)).next_u64();
    method.truth(dgp, learner, n_train, level, seed, runs)
}

/// Runs of a truth that `--plan` times.
pub(crate) const PROBE_RUNS: usize = 20;
