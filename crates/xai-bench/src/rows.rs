//! The rows of a replicate: each variant's data loaded once (a dataset, or one DGP
//! sample that every replicate splits), then cell (v, r)'s training and test rows
//! drawn first from its stream (a split, or fresh samples of the DGP), with their
//! missing cells and covariate shift.

use xai_core::Dataset;
use xai_core::rng::stream_rng;

use crate::error::{BenchError, Result};
use crate::plan::{Experiment, Variant};
use crate::spec::Sampling;

/// Each variant's rows to split: its real dataset (loaded and verified once per
/// distinct dataset), the one sample of a DGP with `sampling: shuffle_splits`, its
/// one training sample with `sampling: fixed_training`, or
/// `None` for a DGP sampled afresh per replicate; the experiment's feature names are
/// checked against the data.
pub(crate) fn load_data(
    exp: &Experiment,
    variants: &[Variant],
) -> Result<Vec<Option<std::sync::Arc<Dataset>>>> {
    use crate::datasets::{Registry, load, search_dirs};
    let root = crate::workspace::workspace_root();
    let mut cache: Vec<(&crate::spec::DatasetRef, std::sync::Arc<Dataset>)> = Vec::new();
    let mut out = Vec::with_capacity(variants.len());
    for v in variants {
        let Some(d) = &v.spec.data.dataset else {
            out.push(match (&v.spec.data.dgp, v.spec.data.sampling) {
                (Some(dgp), sampling @ (Sampling::ShuffleSplits | Sampling::FixedTraining)) => {
                    let n = match sampling {
                        Sampling::FixedTraining => v.spec.data.n_train,
                        _ => v.spec.data.n_train + v.spec.data.n_test,
                    };
                    let mut rng = stream_rng(v.spec.seed, sample_stream(v.stream));
                    let sample = dgp
                        .dgp()
                        .sample(n, &mut rng)
                        .map_err(|e| exp.sample_error(v, 0, e))?;
                    Some(std::sync::Arc::new(sample))
                }
                _ => None,
            });
            continue;
        };
        let data = match cache.iter().find(|(c, _)| {
            (&c.name, &c.table, c.missing, &c.drop, &c.classes)
                == (&d.name, &d.table, d.missing, &d.drop, &d.classes)
        }) {
            Some((_, data)) => data.clone(),
            None => {
                let mut entry = match &d.table {
                    Some(t) => t.entry(&t.path(exp.dir()))?,
                    None => Registry::load(&root.join("data").join("datasets.yaml"))?
                        .get(&d.name)?
                        .clone(),
                };
                entry.drop.extend(d.drop.iter().cloned());
                let loaded = load(&d.name, &entry, &search_dirs(&root), d.missing)?;
                let data = match d.classes.is_empty() {
                    true => loaded.data,
                    false => {
                        crate::datasets::keep_classes(&loaded.data, &d.name, &entry, &d.classes)?
                    }
                };
                let data = std::sync::Arc::new(data);
                cache.push((d, data.clone()));
                data
            }
        };
        exp.check_against_data(v, &data)?;
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
/// k-fold partition drawn once per variant from stream [`sample_stream`]; in file
/// order, or with `shuffled` each in a random order drawn next from the replicate's
/// stream.
pub fn split_rows(
    full: &Dataset,
    d: &crate::spec::DatasetRef,
    seed: u64,
    v: usize,
    r: usize,
    rng: &mut xai_core::rng::StreamRng,
) -> (Vec<usize>, Vec<usize>) {
    let (mut train, mut test) = match d.folds {
        Some(k) => {
            let mut fold_rng = stream_rng(seed, sample_stream(v));
            let fold = xai_core::resample::k_fold(full.y(), k, d.stratify, &mut fold_rng);
            let f = r % k;
            (
                (0..fold.len()).filter(|&i| fold[i] != f).collect(),
                (0..fold.len()).filter(|&i| fold[i] == f).collect(),
            )
        }
        None if d.test_fraction == 0.0 => {
            let all: Vec<usize> = (0..full.n_rows()).collect();
            (all.clone(), all)
        }
        None => xai_core::resample::train_test_split(full.y(), d.test_fraction, d.stratify, rng),
    };
    if d.shuffled {
        use rand::seq::SliceRandom;
        train.shuffle(rng);
        test.shuffle(rng);
    }
    (train, test)
}

/// The training and test rows of cell (v, r), drawn first from its stream (a split of
/// the data, a split of one fresh DGP sample of `n_rows` rows, or fresh training and test
/// samples of the DGP; then their `missing_cells`), and the stream after them. A
/// `shift`'s noise comes from stream (seed ⊕ fnv("shift"), s·2³² + r), which leaves the
/// cell's stream as an unshifted variant's.
pub(crate) fn draw(
    exp: &Experiment,
    variant: &Variant,
    r: usize,
    data: Option<&Dataset>,
) -> Result<(Dataset, Dataset, xai_core::rng::StreamRng)> {
    let spec = &variant.spec;
    let mut rng = replicate_stream(spec.seed, variant.stream, r);
    let data_error =
        |field: &str, e: xai_core::CoreError| exp.cell_error(variant, r, field, e.to_string());
    let sample = |dgp: &xai_synth::DgpSpec, n: usize, rng: &mut xai_core::rng::StreamRng| {
        dgp.dgp()
            .sample(n, rng)
            .map_err(|e| exp.sample_error(variant, r, e))
    };
    let (train, test) = match (data, &spec.data.dataset, &spec.data.dgp) {
        (Some(full), Some(d), _) => {
            let (tr, te) = split_rows(full, d, spec.seed, variant.stream, r, &mut rng);
            (full.select_rows(&tr), full.select_rows(&te))
        }
        (Some(train), None, Some(dgp)) if spec.data.sampling == Sampling::FixedTraining => {
            (train.clone(), sample(dgp, spec.data.n_test, &mut rng)?)
        }
        (Some(sample), None, Some(_)) => split_sample(sample, spec.data.n_test, &mut rng),
        (None, _, Some(dgp)) if spec.data.n_rows.is_some() => {
            let rows = sample(dgp, spec.data.n_train + spec.data.n_test, &mut rng)?;
            split_sample(&rows, spec.data.n_test, &mut rng)
        }
        (None, _, Some(dgp)) => {
            let train = sample(dgp, spec.data.n_train, &mut rng)?;
            (train, sample(dgp, spec.data.n_test, &mut rng)?)
        }
        _ => {
            return Err(BenchError::NoData {
                variant: variant.describe(),
            });
        }
    };
    let (train, test) = match spec.data.missing_cells {
        Some(m) => (
            blank(train, m.train, &mut rng).map_err(|e| data_error("missing_cells", e))?,
            blank(test, m.test, &mut rng).map_err(|e| data_error("missing_cells", e))?,
        ),
        None => (train, test),
    };
    let (train, test) = match &spec.data.shift {
        Some(shift) if shift.sd > 0.0 => {
            // Its own stream, so that a shifted and an unshifted variant sharing
            // streams also share every later draw (the model seeds).
            let mut noise = replicate_stream(spec.seed ^ fnv("shift"), variant.stream, r);
            let train = shifted(train, shift, &mut noise).map_err(|e| data_error("shift", e))?;
            let test = shifted(test, shift, &mut noise).map_err(|e| data_error("shift", e))?;
            match shift.rows {
                crate::spec::ShiftedRows::All => (train, test),
                // The same noise on the test rows as with `all`; the training rows
                // keep their values.
                crate::spec::ShiftedRows::Test => (train.before_shift().into_owned(), test),
            }
        }
        _ => (train, test),
    };
    Ok((train, test, rng))
}

/// `data` with N(0, sd²) noise added to the shifted feature of every row (its name
/// and sd validated at load); an error where the noise makes a value infinite (an sd
/// near the largest float).
fn shifted(
    data: Dataset,
    shift: &crate::spec::CovariateShift,
    rng: &mut xai_core::rng::StreamRng,
) -> std::result::Result<Dataset, xai_core::CoreError> {
    let j = data
        .feature_names()
        .iter()
        .position(|f| *f == shift.feature)
        .ok_or_else(|| {
            xai_core::CoreError::Invalid(format!("the data has no feature `{}`", shift.feature))
        })?;
    let noise: Vec<f64> = (0..data.n_rows())
        .map(|_| {
            shift.sd * rand_distr::Distribution::<f64>::sample(&rand_distr::StandardNormal, rng)
        })
        .collect();
    data.with_shift(j, &noise)
}

/// `data` with a share of every column's cells missing (validated in [0, 1) at load).
fn blank(
    data: Dataset,
    share: f64,
    rng: &mut xai_core::rng::StreamRng,
) -> std::result::Result<Dataset, xai_core::CoreError> {
    data.with_missing_cells(share, rng)
}

/// `sample` split at random into its training rows and `n_test` test rows.
fn split_sample(
    sample: &Dataset,
    n_test: usize,
    rng: &mut xai_core::rng::StreamRng,
) -> (Dataset, Dataset) {
    let fraction = n_test as f64 / sample.n_rows() as f64;
    let (tr, te) = xai_core::resample::train_test_split(sample.y(), fraction, false, rng);
    (sample.select_rows(&tr), sample.select_rows(&te))
}

/// The stream of the replicate whose stream number is `stream` (its variant's, or with
/// `shared_streams` the first variant it shares streams with) and index `r`:
/// `stream_rng(seed, stream·2³² + r)`. Its rows are drawn first ([`draw`]), then the
/// model seed.
pub fn replicate_stream(seed: u64, stream: usize, r: usize) -> xai_core::rng::StreamRng {
    stream_rng(seed, ((stream as u64) << 32) | r as u64)
}

/// FNV-1a hash of a name, the stream number of a model (and of a shift's noise, a
/// truth's identity).
pub(crate) fn fnv(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::plan::Scale;
    use crate::spec::DatasetRef;
    use rand::Rng as _;
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
            table: None,
            test_fraction: 0.25,
            stratify: true,
            missing: Default::default(),
            folds: Some(4),
            drop: Vec::new(),
            classes: Vec::new(),
            shuffled: false,
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
        let (train, test) = split_rows(&data, &random, 7, 0, 0, &mut stream_rng(7, 0));
        assert_eq!(test.len(), 6);
        assert!(train.is_sorted() && test.is_sorted(), "in file order");
        // `shuffled`: the same rows, in another order.
        let shuffled = DatasetRef {
            shuffled: true,
            ..random
        };
        let (train_s, test_s) = split_rows(&data, &shuffled, 7, 0, 0, &mut stream_rng(7, 0));
        assert!(!train_s.is_sorted());
        let sorted = |mut v: Vec<usize>| {
            v.sort_unstable();
            v
        };
        assert_eq!((sorted(train_s), sorted(test_s)), (train, test));
    }

    /// A Friedman DGP with a covariate shift of X3 as a grid of two variants
    /// (`shared` inserted among the top-level fields).
    pub(crate) fn shift_experiment(shared: &str) -> Result<Experiment> {
        let text = format!(
            "id: shift-test
title: t
paper: watson2023
figure: none
seed: 5
{shared}
scales:
  smoke: {{ replicates: 1 }}
  ci: {{ replicates: 1 }}
  paper: {{ replicates: 1 }}
data:
  dgp:
    friedman_variance: {{ response: mean }}
  n_train: 30
  n_test: 20
  shift: {{ feature: X3, sd: 1.0 }}
models:
  xgboost:
    xgboost: {{ rounds: 2 }}
grid:
  shift:
    - {{ label: Original, set: {{ shift.sd: 0.0 }} }}
    - {{ label: Perturbed, set: {{}} }}
methods:
  - shapley: {{ estimator: tree }}
"
        );
        Experiment::from_text(std::path::Path::new("shift-test.yaml"), text)
    }

    /// With `shared_streams` the original and the shifted variant draw the same rows
    /// and seeds, and the shift moves X3 alone (by N(0, 1) noise); without, the rows
    /// differ.
    #[test]
    fn shared_streams_pair_the_shifted_rows_with_the_original_ones() {
        let bits = |d: &Dataset| format!("{:?}", d.x());
        let exp = shift_experiment("shared_streams: [shift]").unwrap();
        let v = exp.variants(Scale::Ci).unwrap();
        assert_eq!((v[0].stream, v[1].stream), (0, 0));
        let (train0, test0, mut rng0) = draw(&exp, &v[0], 0, None).unwrap();
        let (train1, test1, mut rng1) = draw(&exp, &v[1], 0, None).unwrap();
        // The noise has its own stream: the model seeds drawn next agree too.
        assert_eq!(rng0.next_u64(), rng1.next_u64());
        for (original, shifted) in [(&train0, &train1), (&test0, &test1)] {
            assert_eq!(bits(&shifted.before_shift()), bits(original));
            let moved = |j: usize| original.x().column(j) != shifted.x().column(j);
            assert_eq!((0..10).filter(|&j| moved(j)).collect::<Vec<_>>(), vec![2]);
            let noise = &shifted.x().column(2) - &original.x().column(2);
            let sd = noise.std(1.0);
            assert!((0.5..1.6).contains(&sd), "noise sd {sd}");
        }
        let exp = shift_experiment("").unwrap();
        let v = exp.variants(Scale::Ci).unwrap();
        assert_eq!((v[0].stream, v[1].stream), (0, 1));
        let (train1, _, _) = draw(&exp, &v[1], 0, None).unwrap();
        assert_ne!(bits(&train1.before_shift()), bits(&train0));
    }

    /// `rows: test` moves the test rows exactly as `rows: all` does and leaves the
    /// training rows as they were.
    #[test]
    fn a_shift_of_the_test_rows_leaves_the_training_rows() {
        let bits = |d: &Dataset| format!("{:?}", d.x());
        let exp = shift_experiment("shared_streams: [shift]").unwrap();
        let mut v = exp.variants(Scale::Ci).unwrap();
        let (train_all, test_all, _) = draw(&exp, &v[1], 0, None).unwrap();
        v[1].spec.data.shift.as_mut().unwrap().rows = crate::spec::ShiftedRows::Test;
        let (train, test, _) = draw(&exp, &v[1], 0, None).unwrap();
        let (train0, _, _) = draw(&exp, &v[0], 0, None).unwrap();
        assert_eq!(bits(&train), bits(&train0));
        assert_eq!(bits(&test), bits(&test_all));
        assert_ne!(bits(&train), bits(&train_all));
    }

    #[test]
    fn shared_streams_must_name_grid_keys() {
        let e = shift_experiment("shared_streams: [noise]")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`noise` in shared_streams is not a grid key"),
            "{e}"
        );
    }
}
