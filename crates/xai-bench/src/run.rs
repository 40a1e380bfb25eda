//! The runner: every (variant, replicate) is one task with its own RNG stream, run in
//! parallel; then the outputs are written.
//!
//! Task (v, r) draws everything from `stream_rng(seed, v·2³² + r)`: the training and
//! test samples, then one seed per model (`stream_rng(model_seed, fnv(name))`, so adding
//! a model leaves the others' numbers alone), whose stream serves the model's fit
//! (before the first method that needs it) and then its methods in the order listed.
//! Nothing depends on which thread runs a task, so results are identical on any thread
//! count. The runner knows no method by name: each is a [`crate::methods::Method`].
//!
//! A method with a Monte-Carlo truth ([`crate::methods::Method::truth_key`]) gets it
//! computed once per distinct (DGP, n_train, learner, key) before the replicates, from
//! stream `stream_rng(seed, fnv(that identity))`, so variants that differ only in what
//! the truth does not depend on share it, whatever their order.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use rand::Rng;
use rayon::prelude::*;
use xai_core::rng::stream_rng;
use xai_core::{Dataset, Model};

use crate::error::{BenchError, Result};
use crate::methods::permutation_map::EntropyMap;
use crate::methods::{Input, MethodSpec, Value};
use crate::plan::{Experiment, Scale, Variant};
use crate::spec::Sampling;
use crate::table::{CurveRow, SummaryRow, TidyRow, summarize};

/// What a run computed.
#[derive(Debug, Clone)]
pub struct RunOutput {
    /// The scale run.
    pub scale: Scale,
    /// The grid keys (columns of the tables).
    pub keys: Vec<String>,
    /// One row per variant × replicate × model × quantity × feature × grid point.
    pub tidy: Vec<TidyRow>,
    /// The summary over replicates.
    pub summary: Vec<SummaryRow>,
    /// ICE curves of the sampled test rows (methods with `curves > 0`).
    pub curves: Vec<CurveRow>,
    /// Feature names of the data (of the first variant).
    pub feature_names: Vec<String>,
    /// The training sample of the first variant's first replicate (for data plots).
    pub train_sample: Option<Dataset>,
    /// The entropy maps of `permutation_map` methods (first variant, replicate and
    /// model).
    pub maps: Vec<EntropyMap>,
    /// Number of variants.
    pub variants: usize,
    /// Replicates per variant.
    pub replicates: usize,
    /// Threads used.
    pub threads: usize,
    /// Wall time of the computation in seconds.
    pub wall_seconds: f64,
}

/// Runs `exp` at `scale` on `threads` threads (0 = all cores). Shows a progress bar
/// on a terminal when `progress` is set.
pub fn run(exp: &Experiment, scale: Scale, threads: usize, progress: bool) -> Result<RunOutput> {
    let variants = exp.variants(scale)?;
    let data = load_data(exp, &variants)?;
    let replicates = exp.scale(scale).replicates;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| BenchError::Other(format!("cannot start {threads} threads: {e}")))?;
    let in_flight = pool.current_num_threads().min(replicates * variants.len());
    for (v, variant) in variants.iter().enumerate() {
        exp.check_memory(variant, data[v].as_deref(), in_flight)?;
    }
    let truths = truths(exp, &variants, &pool, progress)?;
    let tasks: Vec<(usize, usize)> = (0..variants.len())
        .flat_map(|v| (0..replicates).map(move |r| (v, r)))
        .collect();
    let bar = if progress {
        ProgressBar::new(tasks.len() as u64)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{msg} [{bar:30}] {pos}/{len} replicates, {per_sec}, ETA {eta}",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    bar.set_message(format!("{} ({})", exp.id(), scale.name()));
    let start = Instant::now();
    let log = progress
        .then(|| PlainProgress::new(exp.id(), tasks.len()))
        .flatten();
    let results: Vec<Replicate> = pool.install(|| {
        tasks
            .par_iter()
            .map(|&(v, r)| {
                let rows = replicate(&variants[v], v, r, data[v].as_deref(), &truths[v]);
                bar.inc(1);
                if let Some(log) = &log {
                    log.tick();
                }
                rows
            })
            .collect::<Result<_>>()
    })?;
    bar.finish_and_clear();
    let train_sample = results.first().map(|r| r.train.clone());
    let mut tidy = Vec::new();
    let mut curves = Vec::new();
    let mut maps = Vec::new();
    for r in results {
        tidy.extend(r.rows);
        curves.extend(r.curves);
        maps.extend(r.maps);
    }
    let summary = summarize(&tidy, exp.spec.level);
    Ok(RunOutput {
        scale,
        keys: exp.grid_keys(),
        tidy,
        summary,
        curves,
        feature_names: train_sample
            .as_ref()
            .map(|d| d.feature_names().to_vec())
            .unwrap_or_default(),
        train_sample,
        maps,
        variants: variants.len(),
        replicates,
        threads: pool.current_num_threads(),
        wall_seconds: start.elapsed().as_secs_f64(),
    })
}

/// Progress lines for logs (stderr not a terminal, where the bar is hidden): at most
/// one line every 10 s with replicates done, rate and ETA.
struct PlainProgress {
    id: String,
    total: usize,
    start: Instant,
    state: std::sync::Mutex<(usize, Instant)>,
}

impl PlainProgress {
    fn new(id: &str, total: usize) -> Option<Self> {
        use std::io::IsTerminal;
        let now = Instant::now();
        (!std::io::stderr().is_terminal()).then(|| Self {
            id: id.to_string(),
            total,
            start: now,
            state: std::sync::Mutex::new((0, now)),
        })
    }

    fn tick(&self) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        s.0 += 1;
        if s.1.elapsed().as_secs_f64() >= 10.0 && s.0 < self.total {
            s.1 = Instant::now();
            let rate = s.0 as f64 / self.start.elapsed().as_secs_f64();
            eprintln!(
                "{}: {}/{} replicates, {rate:.2}/s, ETA {:.0} s",
                self.id,
                s.0,
                self.total,
                (self.total - s.0) as f64 / rate
            );
        }
    }
}

/// FNV-1a hash of a name, the stream number of a model.
fn fnv(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A variant's Monte-Carlo truths: per (model, method index) its values.
type Truths = BTreeMap<(String, usize), Arc<Vec<Value>>>;

/// The truths of every variant, each computed once per distinct (DGP, n_train,
/// learner, method's truth key), runs in parallel on `pool`.
fn truths(
    exp: &Experiment,
    variants: &[Variant],
    pool: &rayon::ThreadPool,
    progress: bool,
) -> Result<Vec<Truths>> {
    let mut cache: HashMap<String, Arc<Vec<Value>>> = HashMap::new();
    let mut out = Vec::with_capacity(variants.len());
    for variant in variants {
        let spec = &variant.spec;
        let mut truths = Truths::new();
        for (m, method) in spec.methods.iter().map(MethodSpec::method).enumerate() {
            let (Some(key), Some(dgp)) = (method.truth_key(), &spec.data.dgp) else {
                continue;
            };
            for (name, learner) in &spec.models {
                let identity = format!("{dgp:?}|{}|{learner:?}|{key}", spec.data.n_train);
                let values = match cache.get(&identity) {
                    Some(values) => values.clone(),
                    None => {
                        if progress {
                            eprintln!(
                                "{}: Monte-Carlo truth of {name} ({})",
                                exp.id(),
                                variant.describe()
                            );
                        }
                        let seed = stream_rng(spec.seed, fnv(&identity)).next_u64();
                        let values = pool
                            .install(|| {
                                method.truth(dgp, learner, spec.data.n_train, spec.level, seed)
                            })
                            .map_err(|source| BenchError::Run {
                                variant: variant.describe(),
                                replicate: 0,
                                model: name.clone(),
                                source,
                            })?;
                        let values = Arc::new(values);
                        cache.insert(identity, values.clone());
                        values
                    }
                };
                truths.insert((name.clone(), m), values);
            }
        }
        out.push(truths);
    }
    Ok(out)
}

/// What one (variant, replicate) task produced.
struct Replicate {
    rows: Vec<TidyRow>,
    curves: Vec<CurveRow>,
    train: Dataset,
    maps: Vec<EntropyMap>,
}

/// Each variant's rows to split: its real dataset (loaded and verified once per
/// distinct dataset), the one sample of a DGP with `sampling: shuffle_splits`, or
/// `None` for a DGP sampled afresh per replicate; the experiment's feature names are
/// checked against the data.
fn load_data(
    exp: &Experiment,
    variants: &[Variant],
) -> Result<Vec<Option<std::sync::Arc<Dataset>>>> {
    use crate::datasets::{Registry, load, search_dirs};
    let root = crate::workspace::workspace_root();
    let mut cache: Vec<(
        String,
        crate::datasets::MissingPolicy,
        std::sync::Arc<Dataset>,
    )> = Vec::new();
    let mut out = Vec::with_capacity(variants.len());
    for (i, v) in variants.iter().enumerate() {
        let Some(d) = &v.spec.data.dataset else {
            out.push(match (&v.spec.data.dgp, v.spec.data.sampling) {
                (Some(dgp), Sampling::ShuffleSplits) => {
                    let n = v.spec.data.n_train + v.spec.data.n_test;
                    let mut rng = stream_rng(v.spec.seed, sample_stream(i));
                    Some(std::sync::Arc::new(dgp.dgp().sample(n, &mut rng)))
                }
                _ => None,
            });
            continue;
        };
        let data = match cache
            .iter()
            .find(|(n, m, _)| *n == d.name && *m == d.missing)
        {
            Some((_, _, data)) => data.clone(),
            None => {
                let registry = Registry::load(&root.join("data").join("datasets.yaml"))?;
                let loaded = load(
                    &d.name,
                    registry.get(&d.name)?,
                    &search_dirs(&root),
                    d.missing,
                )?;
                let data = std::sync::Arc::new(loaded.data);
                cache.push((d.name.clone(), d.missing, data.clone()));
                data
            }
        };
        exp.check_against_data(v, data.feature_names(), data.n_rows())?;
        out.push(Some(data));
    }
    Ok(out)
}

/// The stream of what is drawn once per variant v (a k-fold partition, a
/// shuffle-split sample): (seed, v·2³² + 2³² − 1), never a replicate's stream.
fn sample_stream(v: usize) -> u64 {
    ((v as u64) << 32) | 0xFFFF_FFFF
}

/// The (train, test) rows of replicate `r` of variant `v`: a random split drawn from
/// the replicate's stream, or with `folds: k` the complement of and fold r mod k of a
/// k-fold partition drawn once per variant from stream [`sample_stream`].
pub fn split_rows(
    full: &Dataset,
    d: &crate::spec::DatasetRef,
    seed: u64,
    v: usize,
    r: usize,
    rng: &mut xai_core::rng::StreamRng,
) -> (Vec<usize>, Vec<usize>) {
    match d.folds {
        Some(k) => {
            let mut fold_rng = stream_rng(seed, sample_stream(v));
            let fold = xai_core::resample::k_fold(full.y(), k, d.stratify, &mut fold_rng);
            let f = r % k;
            (
                (0..fold.len()).filter(|&i| fold[i] != f).collect(),
                (0..fold.len()).filter(|&i| fold[i] == f).collect(),
            )
        }
        None => xai_core::resample::train_test_split(full.y(), d.test_fraction, d.stratify, rng),
    }
}

fn replicate(
    variant: &Variant,
    v: usize,
    r: usize,
    data: Option<&Dataset>,
    truths: &Truths,
) -> Result<Replicate> {
    let spec = &variant.spec;
    let mut rng = stream_rng(spec.seed, ((v as u64) << 32) | r as u64);
    let (train, test) = match (data, &spec.data.dataset, &spec.data.dgp) {
        (Some(full), Some(d), _) => {
            let (tr, te) = split_rows(full, d, spec.seed, v, r, &mut rng);
            (full.select_rows(&tr), full.select_rows(&te))
        }
        (Some(sample), None, Some(_)) => {
            let fraction = spec.data.n_test as f64 / sample.n_rows() as f64;
            let (tr, te) =
                xai_core::resample::train_test_split(sample.y(), fraction, false, &mut rng);
            (sample.select_rows(&tr), sample.select_rows(&te))
        }
        (None, _, Some(dgp)) => {
            let dgp = dgp.dgp();
            let train = dgp.sample(spec.data.n_train, &mut rng);
            (train, dgp.sample(spec.data.n_test, &mut rng))
        }
        _ => unreachable!("validated at load: data has a dgp or a loaded dataset"),
    };
    let model_seed = rng.next_u64();
    let labels: Vec<String> = variant.labels.iter().map(|(_, l)| l.clone()).collect();
    let mut out = Replicate {
        rows: Vec::new(),
        curves: Vec::new(),
        train: train.clone(),
        maps: Vec::new(),
    };
    for (k, (name, learner)) in spec.models.iter().enumerate() {
        let fail = |source| BenchError::Run {
            variant: variant.describe(),
            replicate: r,
            model: name.clone(),
            source,
        };
        // The model's stream: the fit and then each method, in the order listed.
        let mut model_rng = stream_rng(model_seed, fnv(name));
        let mut model: Option<Box<dyn Model>> = None;
        let mut values: Vec<Value> = Vec::new();
        for (m, method) in spec.methods.iter().map(MethodSpec::method).enumerate() {
            if method.needs_fit() && model.is_none() {
                model = Some(learner.build().fit(&train, &mut model_rng).map_err(fail)?);
            }
            let input = Input {
                train: &train,
                test: &test,
                all: data.unwrap_or(&train),
                learner,
                dgp: spec.data.dgp.as_ref(),
                model: model.as_deref(),
                earlier: &values,
                level: spec.level,
                seed: spec.seed,
                first: (v, r, k) == (0, 0, 0),
                truth: truths.get(&(name.clone(), m)).map_or(&[], |t| t.as_slice()),
            };
            let emitted = method.compute(&input, &mut model_rng).map_err(fail)?;
            values.extend(emitted.values);
            out.curves.extend(emitted.curves.into_iter().map(|mut c| {
                c.labels = labels.clone();
                c.replicate = r;
                c.model = name.clone();
                c
            }));
            out.maps.extend(emitted.maps);
        }
        out.rows.extend(values.into_iter().map(|v| TidyRow {
            labels: labels.clone(),
            replicate: r,
            model: name.clone(),
            quantity: v.quantity,
            feature: v.feature,
            x: v.x,
            value: v.estimate,
        }));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::DatasetRef;
    use xai_core::Target;

    #[test]
    fn k_fold_replicates_test_every_row_exactly_once() {
        let n = 23;
        let data = Dataset::new(
            ndarray::Array2::zeros((n, 1)),
            Target::Classes {
                labels: (0..n).map(|i| i % 3 % 2).collect(),
                n_classes: 2,
            },
            vec!["a".into()],
        )
        .unwrap();
        let d = DatasetRef {
            name: "x".into(),
            test_fraction: 0.25,
            stratify: true,
            missing: Default::default(),
            folds: Some(4),
        };
        let mut seen = vec![0; n];
        for r in 0..4 {
            let (train, test) = split_rows(&data, &d, 7, 0, r, &mut stream_rng(7, r as u64));
            assert_eq!(train.len() + test.len(), n);
            assert!(train.iter().all(|i| !test.contains(i)));
            for i in test {
                seen[i] += 1;
            }
        }
        assert!(seen.iter().all(|&c| c == 1), "{seen:?}");
        // Without folds: a random split of round(0.25 · 23) = 6 test rows.
        let random = DatasetRef { folds: None, ..d };
        assert_eq!(
            split_rows(&data, &random, 7, 0, 0, &mut stream_rng(7, 0))
                .1
                .len(),
            6
        );
    }
}
