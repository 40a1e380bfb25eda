//! The `data:` section checks itself ([`DataSpec::check`]): its sizes and split, the
//! DGP's parameters or the dataset's registration and (once loaded) its rows, and its
//! options (sampling, missing cells, a covariate shift) against the models. The plan
//! points at the field it blames; nothing here knows the experiment file.

use std::collections::BTreeMap;

use xai_core::Dataset;
use xai_models::LearnerSpec;

use crate::error::BenchError;
use crate::spec::{DataSpec, Sampling};

/// Why a `data:` section cannot work.
#[derive(Debug)]
pub enum DataRefusal {
    /// A setting at fault: the YAML field to blame and what to write instead.
    Field {
        /// The field (`n_train`, `test_fraction`, a model's name, ...).
        field: String,
        /// What is wrong and what to write instead.
        message: String,
    },
    /// The DGP's formula does not compile: its own located error.
    Formula(xai_synth::DgpError),
    /// The dataset registry cannot be read.
    Registry(BenchError),
}

/// A refusal of `field` with `message`.
fn refuse<T>(field: &str, message: String) -> Result<T, DataRefusal> {
    Err(DataRefusal::Field {
        field: field.to_string(),
        message,
    })
}

impl DataSpec {
    /// Training and test rows per replicate: a DGP's sizes, or the split of a dataset
    /// of `rows` rows (`None` until it is loaded).
    pub fn replicate_sizes(&self, rows: Option<usize>) -> Option<(usize, usize)> {
        match (&self.dataset, rows) {
            (None, _) => Some((self.n_train, self.n_test)),
            (Some(d), Some(rows)) => {
                let test = match d.folds {
                    Some(k) => rows / k,
                    None if d.test_fraction == 0.0 => return Some((rows, rows)),
                    None => (d.test_fraction * rows as f64).round() as usize,
                };
                Some((rows - test.min(rows), test))
            }
            (Some(_), None) => None,
        }
    }

    /// Checks the section against the `models` and, for a dataset, its `loaded` rows
    /// (checked again at run time once loaded); returns the data's feature names where
    /// known before any work (a DGP's, or the loaded dataset's).
    pub fn check(
        &self,
        models: &BTreeMap<String, LearnerSpec>,
        loaded: Option<&Dataset>,
    ) -> Result<Option<Vec<String>>, DataRefusal> {
        let names = match (&self.dgp, &self.dataset) {
            (Some(dgp), None) => {
                if self.n_train < 2 || self.n_test < 2 {
                    let field = if self.n_train < 2 {
                        "n_train"
                    } else {
                        "n_test"
                    };
                    return refuse(
                        field,
                        format!(
                            "n_train and n_test must be at least 2, got {} and {}",
                            self.n_train, self.n_test
                        ),
                    );
                }
                match dgp.dgp().validate() {
                    Err(m @ xai_synth::DgpError::Formula { .. }) => {
                        return Err(DataRefusal::Formula(m));
                    }
                    Err(m) => return refuse(dgp.name(), m.to_string()),
                    Ok(()) => {}
                }
                Some(dgp.dgp().feature_names())
            }
            (None, Some(_)) => {
                self.check_split(loaded)?;
                loaded.map(|d| d.feature_names().to_vec())
            }
            _ => {
                return refuse(
                    "data",
                    "under `data:` give exactly one of `dgp:` (with n_train and n_test) or `dataset:`".into(),
                );
            }
        };
        self.check_options(models, names.as_deref())?;
        Ok(names)
    }

    /// A dataset's split: `folds` and `test_fraction` in range, the dataset registered,
    /// and (once `loaded`) a split that leaves every replicate ≥ 2 training and ≥ 1 test
    /// rows.
    fn check_split(&self, loaded: Option<&Dataset>) -> Result<(), DataRefusal> {
        let Some(d) = &self.dataset else {
            return Ok(());
        };
        if d.folds.is_some_and(|k| k < 2) {
            return refuse("folds", "folds must be at least 2".into());
        }
        if !(d.test_fraction >= 0.0 && d.test_fraction < 1.0) {
            return refuse(
                "test_fraction",
                format!(
                    "test_fraction must lie in [0, 1) (0: no split, every row is fitted and \
                     explained), got {}",
                    d.test_fraction
                ),
            );
        }
        if d.table.is_none() {
            let registry = crate::datasets::Registry::load(
                &crate::workspace::workspace_root()
                    .join("data")
                    .join("datasets.yaml"),
            )
            .map_err(DataRefusal::Registry)?;
            if let Err(e) = registry.get(&d.name) {
                return refuse("dataset", e.to_string());
            }
        }
        let Some(rows) = loaded.map(Dataset::n_rows) else {
            return Ok(());
        };
        if d.folds.is_some_and(|k| k > rows) {
            return refuse(
                "folds",
                format!("`folds` must be at most the {rows} rows of `{}`", d.name),
            );
        }
        let (n_train, n_test) = self.replicate_sizes(Some(rows)).unwrap_or((0, 0));
        if n_train < 2 || n_test < 1 {
            let field = match d.folds {
                Some(_) => "folds",
                None => "test_fraction",
            };
            return refuse(
                field,
                format!(
                    "`{field}` splits the {rows} rows of `{}` into {n_train} training and \
                     {n_test} test rows; a replicate needs at least 2 and 1",
                    d.name
                ),
            );
        }
        Ok(())
    }

    /// The options against the models and the data's feature `names` where known:
    /// `sampling` and `missing_cells` apply to a DGP, missing cells (made or kept) need
    /// a model that fits them, and a shift names a feature and a finite sd ≥ 0.
    fn check_options(
        &self,
        models: &BTreeMap<String, LearnerSpec>,
        names: Option<&[String]>,
    ) -> Result<(), DataRefusal> {
        let without_missing = || crate::methods::model_without(models, |c| c.missing_values);
        if self.sampling != Sampling::Fresh && self.dgp.is_none() {
            return refuse(
                "sampling",
                "`sampling: shuffle_splits` or `fixed_training` applies to a DGP; a dataset is split afresh per replicate already".into(),
            );
        }
        if let Some(m) = self.missing_cells {
            if self.dgp.is_none() {
                return refuse(
                    "missing_cells",
                    "`missing_cells` blanks cells of a DGP's rows; a dataset's own missing cells follow its `missing:` policy".into(),
                );
            }
            if let Some((field, v)) = [("train", m.train), ("test", m.test)]
                .into_iter()
                .find(|(_, v)| !(0.0..1.0).contains(v))
            {
                return refuse(
                    "missing_cells",
                    format!("missing_cells.{field} = {v} must lie in [0, 1)"),
                );
            }
            if let Some((name, l)) = without_missing() {
                return refuse(
                    name,
                    format!(
                        "model `{name}` ({}) cannot fit rows with missing cells; only `xgboost` learns a direction for them",
                        l.name()
                    ),
                );
            }
        }
        let kept = self
            .dataset
            .as_ref()
            .is_some_and(|d| d.missing == crate::datasets::MissingPolicy::Keep);
        if kept && let Some((name, l)) = without_missing() {
            return refuse(
                name,
                format!(
                    "model `{name}` ({}) cannot fit rows with missing cells, which `missing: keep` \
                     keeps; choose `missing: drop_rows` or a learner that handles them (`xgboost`)",
                    l.name()
                ),
            );
        }
        if let Some(shift) = &self.shift {
            if let Err(e) = crate::results::known_feature_names(names, [&shift.feature]) {
                return refuse(&e.field, e.message);
            }
            if !(shift.sd >= 0.0 && shift.sd.is_finite()) {
                return refuse(
                    "sd",
                    format!("the shift's sd = {} must be finite and ≥ 0", shift.sd),
                );
            }
        }
        if self.sampling == Sampling::FixedTraining && self.n_rows.is_some() {
            return refuse(
                "sampling",
                "`sampling: fixed_training` keeps the training rows and draws the test rows \
                 afresh, which `n_rows` (one sample split at random) contradicts; give \
                 `n_train` and `n_test`"
                    .into(),
            );
        }
        Ok(())
    }
}
