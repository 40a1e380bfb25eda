//! The runner: every (variant, replicate) is one task with its own RNG stream, run in
//! parallel; then the outputs are written.
//!
//! Task (v, r) draws everything from `stream_rng(seed, v·2³² + r)`: the training and
//! test samples, then one seed per model (`stream_rng(model_seed, fnv(name))`, so adding
//! a model leaves the others' numbers alone), then one seed per method. Nothing depends
//! on which thread runs a task, so results are identical on any thread count.

use std::path::Path;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use rand::Rng;
use rayon::prelude::*;
use xai_core::rng::stream_rng;
use xai_core::{Dataset, Model, PerturbationSpec, ice, pfi};

use crate::error::{BenchError, Result, io_err};
use crate::load::{Experiment, Scale, Variant};
use crate::spec::{Aggregation, MethodSpec, Sampling};
use crate::table::{
    CurveRow, SummaryRow, TidyRow, summarize, write_curves, write_summary, write_tidy,
};

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
    /// What a `permutation_map` figure draws (first variant, replicate and model).
    pub snapshot: Option<Snapshot>,
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
                let rows = replicate(&variants[v], v, r, data[v].as_deref());
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
    let snapshot = results.first().and_then(|r| r.snapshot.clone());
    let mut tidy = Vec::new();
    let mut curves = Vec::new();
    for r in results {
        tidy.extend(r.rows);
        curves.extend(r.curves);
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
        snapshot,
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

/// What one (variant, replicate) task produced.
struct Replicate {
    rows: Vec<TidyRow>,
    curves: Vec<CurveRow>,
    train: Dataset,
    snapshot: Option<Snapshot>,
}

/// The entropy map of a fitted model over a 2-D grid, with test points before and
/// after one permutation of a feature (wood2024 Fig. 2).
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// Grid values of the first feature.
    pub xs: Vec<f64>,
    /// Grid values of the second feature.
    pub ys: Vec<f64>,
    /// `entropy[[i, j]]` at (xs[i], ys[j]).
    pub entropy: ndarray::Array2<f64>,
    /// The test rows (n × 2).
    pub points: ndarray::Array2<f64>,
    /// The test rows after permuting the feature.
    pub permuted: ndarray::Array2<f64>,
    /// Class of each test row (0 for regression).
    pub classes: Vec<usize>,
    /// Entropy of each test row before and after the permutation.
    pub before: Vec<f64>,
    /// See `before`.
    pub after: Vec<f64>,
    /// The permuted feature's name.
    pub feature: String,
}

/// Computes the snapshot a `permutation_map` plot asks for.
fn snapshot(
    model: &dyn Model,
    test: &Dataset,
    feature: &str,
    resolution: usize,
    seed: u64,
) -> xai_core::error::Result<Snapshot> {
    use xai_core::{Perturbation, Statistic, Target};
    let entropy = |x: ndarray::ArrayView2<'_, f64>| {
        Statistic::Entropy.per_row(
            &model.predict(x),
            &Target::Continuous(ndarray::Array1::zeros(x.nrows())),
        )
    };
    let axis = |j: usize| {
        let c = test.x().column(j).to_owned();
        let (lo, hi) = (
            c.fold(f64::INFINITY, |a, &b| a.min(b)),
            c.fold(f64::NEG_INFINITY, |a, &b| a.max(b)),
        );
        let pad = 0.05 * (hi - lo);
        (0..resolution)
            .map(|k| lo - pad + (hi - lo + 2.0 * pad) * k as f64 / (resolution - 1) as f64)
            .collect::<Vec<_>>()
    };
    let (xs, ys) = (axis(0), axis(1));
    let grid = ndarray::Array2::from_shape_fn((resolution * resolution, 2), |(k, j)| {
        if j == 0 {
            xs[k / resolution]
        } else {
            ys[k % resolution]
        }
    });
    let map = entropy(grid.view())?
        .into_shape_with_order((resolution, resolution))
        .expect("r² values");
    let j = test
        .feature_names()
        .iter()
        .position(|n| n == feature)
        .expect("validated at load");
    let mut permuted = test.x().to_owned();
    Perturbation::Permutation { repeats: 1 }.apply(
        test.x(),
        j,
        0,
        permuted.view_mut(),
        &mut stream_rng(seed, 1 << 62),
    );
    let classes = match test.y() {
        Target::Classes { labels, .. } => labels.to_vec(),
        Target::Continuous(_) => vec![0; test.n_rows()],
    };
    Ok(Snapshot {
        xs,
        ys,
        entropy: map,
        before: entropy(test.x())?.to_vec(),
        after: entropy(permuted.view())?.to_vec(),
        points: test.x().to_owned(),
        permuted,
        classes,
        feature: feature.to_string(),
    })
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
    let root = crate::catalog::workspace_root();
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
        exp.check_features(v, data.feature_names())?;
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

fn replicate(variant: &Variant, v: usize, r: usize, data: Option<&Dataset>) -> Result<Replicate> {
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
    let mut rows = Vec::new();
    let mut curves = Vec::new();
    let mut snap = None;
    for (name, learner) in &spec.models {
        let fail = |source| BenchError::Run {
            variant: variant.describe(),
            replicate: r,
            model: name.clone(),
            source,
        };
        let mut model_rng = stream_rng(model_seed, fnv(name));
        if let Some(p) = &spec.predictability {
            let all = data.unwrap_or(&train);
            let built = learner.build();
            for j in 0..all.n_features() {
                for (with_target, quantity) in
                    [(false, "r2_without_target"), (true, "r2_with_target")]
                {
                    let r2 = xai_core::predictability::cv_r2(
                        built.as_ref(),
                        all,
                        j,
                        with_target,
                        p.folds,
                        &mut model_rng,
                    )
                    .map_err(fail)?;
                    rows.push(TidyRow {
                        labels: labels.clone(),
                        replicate: r,
                        model: name.clone(),
                        quantity: quantity.into(),
                        feature: all.feature_names()[j].clone(),
                        x: None,
                        value: point(r2, all.n_rows()),
                    });
                }
            }
        }
        let wants_map = spec
            .plots
            .iter()
            .any(|p| matches!(p, crate::spec::PlotSpec::PermutationMap { .. }));
        if spec.methods.is_empty() && !wants_map && !spec.impurity_importance {
            continue;
        }
        let model = learner.build().fit(&train, &mut model_rng).map_err(fail)?;
        if spec.impurity_importance {
            let trees = model.tree_ensemble().ok_or_else(|| {
                fail(xai_core::CoreError::Invalid(
                    "impurity_importance needs a tree-ensemble model".into(),
                ))
            })?;
            let importance = xai_core::tree::impurity_importance(trees.trees(), train.n_features());
            rows.extend(
                importance
                    .iter()
                    .zip(train.feature_names())
                    .map(|(&v, f)| TidyRow {
                        labels: labels.clone(),
                        replicate: r,
                        model: name.clone(),
                        quantity: "impurity_importance".into(),
                        feature: f.clone(),
                        x: None,
                        value: point(v, train.n_rows()),
                    }),
            );
        }
        if (v, r, snap.is_none()) == (0, 0, true) {
            for plot in &spec.plots {
                if let crate::spec::PlotSpec::PermutationMap {
                    feature,
                    resolution,
                    ..
                } = plot
                {
                    snap = Some(
                        snapshot(model.as_ref(), &test, feature, *resolution, spec.seed)
                            .map_err(fail)?,
                    );
                }
            }
        }
        for method in &spec.methods {
            let seed = model_rng.next_u64();
            let (explained, kept) =
                explain(model.as_ref(), &train, &test, method, seed, spec.level).map_err(fail)?;
            rows.extend(
                explained
                    .into_iter()
                    .map(|(quantity, feature, x, value)| TidyRow {
                        labels: labels.clone(),
                        replicate: r,
                        model: name.clone(),
                        quantity,
                        feature,
                        x,
                        value,
                    }),
            );
            curves.extend(kept.into_iter().map(|mut c| {
                c.labels = labels.clone();
                c.replicate = r;
                c.model = name.clone();
                c
            }));
        }
    }
    Ok(Replicate {
        rows,
        curves,
        train,
        snapshot: snap,
    })
}

type Explained = (String, String, Option<f64>, xai_core::Estimate);

/// A number without an interval, computed from `n` rows.
fn point(estimate: f64, n: usize) -> xai_core::Estimate {
    xai_core::Estimate {
        estimate,
        se: f64::NAN,
        lower: f64::NAN,
        upper: f64::NAN,
        n,
    }
}

/// The CID terms of every feature (PAPERS.md §5.3): Λ̂ by the graphical lasso on the
/// standardised training rows (ρ fixed or cross-validated), MI on the training rows,
/// the binned conditional MI over the test rows; `seed` is for a permutation null test
/// (none is configured yet, so C_i keeps the fixed 1e-3 floor).
fn covered(
    train: &Dataset,
    test: &Dataset,
    cid: &crate::spec::CidSpec,
    seed: u64,
) -> xai_core::error::Result<Vec<xai_core::cid::CoveredInformation>> {
    let params = xai_models::glasso::GlassoParams {
        alpha: cid.alpha,
        ..Default::default()
    };
    let settings = xai_core::cid::CidSettings {
        bins: cid.bins,
        mi: cid.mi,
        null: None,
    };
    xai_core::cid::covered_information(train, test, settings, seed, &|z| {
        let alpha = match &cid.alpha_cv {
            Some(cv) => {
                xai_models::glasso::cross_validated_alpha(z, &cv.candidates, cv.folds, &params)?.0
            }
            None => params.alpha,
        };
        let s = xai_models::glasso::empirical_covariance(z);
        let params = xai_models::glasso::GlassoParams { alpha, ..params };
        Ok(xai_models::glasso::graphical_lasso(s.view(), &params)?.precision)
    })
}

/// Runs one method on the test rows (samplers estimated on the training rows):
/// (quantity, feature, grid point, estimate) rows.
fn explain(
    model: &dyn Model,
    train: &Dataset,
    test: &Dataset,
    method: &MethodSpec,
    seed: u64,
    level: f64,
) -> xai_core::error::Result<(Vec<Explained>, Vec<CurveRow>)> {
    let names = test.feature_names();
    let features: Vec<usize> = match &method.features {
        Some(fs) => fs
            .iter()
            .map(|f| {
                names
                    .iter()
                    .position(|n| n == f)
                    .expect("validated at load")
            })
            .collect(),
        None => (0..names.len()).collect(),
    };
    let quantities = method.quantities();
    let mut out = Vec::new();
    let mut curves = Vec::new();
    match (method.aggregation, &method.perturbation) {
        (Aggregation::Pfi, p) => {
            let res = pfi(
                model,
                test,
                &features,
                &p.resolve(train, test)?,
                &method.statistics,
                seed,
                level,
            )?;
            let terms = method
                .cid
                .as_ref()
                // Stream 2⁶¹ of the method seed, which PFI (streams 0..p) and the kept
                // ICE rows (2⁶³) do not use.
                .map(|c| covered(train, test, c, stream_rng(seed, 1 << 61).next_u64()))
                .transpose()?;
            for ((q, stat), per_feature) in quantities.iter().zip(&method.statistics).zip(res) {
                for f in per_feature {
                    out.push((q.clone(), names[f.feature].clone(), None, f.estimate));
                    if let Some(t) = &terms {
                        let corrected =
                            xai_core::cid::corrected_estimate(f.estimate, t[f.feature].covered);
                        out.push((
                            crate::spec::cid_quantity(*stat),
                            names[f.feature].clone(),
                            None,
                            corrected,
                        ));
                    }
                }
            }
            for (j, t) in terms
                .iter()
                .flat_map(|t| features.iter().map(move |&j| (j, t[j])))
            {
                for (q, v) in crate::spec::CID_TERMS
                    .iter()
                    .zip([t.mi, t.conditional_mi, t.covered])
                {
                    out.push((
                        q.to_string(),
                        names[j].clone(),
                        None,
                        point(v, test.n_rows()),
                    ));
                }
            }
        }
        (Aggregation::Ice, PerturbationSpec::Grid(grid)) => {
            let res = ice(model, test, &features, *grid, &method.statistics, level)?;
            let kept = sample_rows(test.n_rows(), method.curves, seed);
            for ((q, stat), per_feature) in quantities.iter().zip(&method.statistics).zip(res) {
                for f in per_feature {
                    for (x, pd) in f.grid.iter().zip(&f.pd) {
                        out.push((q.clone(), names[f.feature].clone(), Some(*x), *pd));
                    }
                    curves.extend(kept.iter().map(|&row| CurveRow {
                        labels: Vec::new(),
                        replicate: 0,
                        model: String::new(),
                        quantity: format!("{}_ice", stat.quantity_prefix()),
                        feature: names[f.feature].clone(),
                        row,
                        grid: f.grid.clone(),
                        values: f.curves.row(row).to_vec(),
                        row_values: test.x().row(row).to_vec(),
                        row_class: match test.y() {
                            xai_core::Target::Classes { labels, .. } => Some(labels[row]),
                            xai_core::Target::Continuous(_) => None,
                        },
                    }));
                }
            }
        }
        (Aggregation::Ice, _) => unreachable!("validated at load: ice needs a grid"),
    }
    Ok((out, curves))
}

/// `k` distinct rows out of `n`, in increasing order, drawn from stream (seed, 2⁶³).
fn sample_rows(n: usize, k: usize, seed: u64) -> Vec<usize> {
    use rand::seq::SliceRandom;
    let mut rows: Vec<usize> = (0..n).collect();
    let (chosen, _) = rows.partial_shuffle(&mut stream_rng(seed, 1 << 63), k.min(n));
    let mut chosen = chosen.to_vec();
    chosen.sort_unstable();
    chosen
}

/// Writes `tidy.csv`, `summary.csv`, the figures and `manifest.json` into `dir`.
pub fn write_outputs(exp: &Experiment, out: &RunOutput, dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(io_err(dir))?;
    write_tidy(&dir.join("tidy.csv"), &out.keys, &out.tidy)?;
    write_summary(&dir.join("summary.csv"), &out.keys, &out.summary)?;
    if !out.curves.is_empty() {
        write_curves(
            &dir.join("ice.csv"),
            &out.keys,
            &out.feature_names,
            &out.curves,
        )?;
    }
    for plot in &exp.spec.plots {
        crate::plot::draw(exp, plot, out, dir)?;
    }
    crate::manifest::write(exp, out, &dir.join("manifest.json"))
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
