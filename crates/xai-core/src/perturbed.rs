//! The engine shared by every aggregation: statistics of the model's predictions on
//! perturbed copies of the data, batched into few large prediction calls.

use ndarray::{Array2, Axis, s};
use rayon::prelude::*;

use crate::dataset::Dataset;
use crate::error::{CoreError, Result};
use crate::model::Model;
use crate::perturbation::Perturbation;
use crate::rng::stream_rng;
use crate::statistic::Statistic;

/// Largest number of rows predicted in one call; copies are batched up to this size.
const MAX_BATCH_ROWS: usize = 1 << 16;

/// Statistics of one feature's perturbed copies.
#[derive(Debug, Clone, PartialEq)]
pub struct PerturbedStatistics {
    /// The perturbed feature's column index.
    pub feature: usize,
    /// `values[s][[i, c]]`: statistic `s` of row i under perturbed copy c (n × copies).
    pub values: Vec<Array2<f64>>,
}

/// The statistics of every row of `data` under each perturbed copy of each feature in
/// `features`.
///
/// Copies of a feature are predicted in one [`Model::predict_replaced`] call (up to
/// 65,536 rows per call), which a tree ensemble answers without stacking them. Features run in parallel; feature j draws from
/// its own stream `stream_rng(seed, j)`, so the numbers do not depend on the thread
/// count.
pub fn perturbed_statistics(
    model: &dyn Model,
    data: &Dataset,
    features: &[usize],
    perturbation: &Perturbation,
    statistics: &[Statistic],
    seed: u64,
) -> Result<Vec<PerturbedStatistics>> {
    if let Some(&j) = features.iter().find(|&&j| j >= data.n_features()) {
        return Err(CoreError::Invalid(format!(
            "feature index {j} is out of range (the data has {} features)",
            data.n_features()
        )));
    }
    features
        .par_iter()
        .map(|&j| perturb_one(model, data, j, perturbation, statistics, seed))
        .collect()
}

fn perturb_one(
    model: &dyn Model,
    data: &Dataset,
    feature: usize,
    perturbation: &Perturbation,
    statistics: &[Statistic],
    seed: u64,
) -> Result<PerturbedStatistics> {
    let n = data.n_rows();
    let copies = perturbation.copies(feature);
    let per_batch = (MAX_BATCH_ROWS / n.max(1)).max(1);
    let mut rng = stream_rng(seed, feature as u64);
    let mut values = vec![Array2::zeros((n, copies)); statistics.len()];
    let mut first = 0;
    while first < copies {
        let batch = per_batch.min(copies - first);
        let mut replaced = Array2::zeros((batch, n));
        for (c, column) in replaced.rows_mut().into_iter().enumerate() {
            perturbation.apply(data.x(), feature, first + c, column, &mut rng);
        }
        let pred = model.predict_replaced(data.x(), feature, replaced.view())?;
        let y = data.y().tile(batch);
        for (s, stat) in statistics.iter().enumerate() {
            let v = stat.per_row(&pred, &y).map_err(|e| match e {
                CoreError::NonFinite { row, value, .. } => CoreError::NonFinite {
                    what: "statistic of perturbed predictions (column = perturbed feature)",
                    row: row % n,
                    column: feature,
                    value,
                },
                other => other,
            })?;
            let v = v.into_shape_with_order((batch, n)).expect("batch·n values");
            values[s]
                .slice_mut(s![.., first..first + batch])
                .assign(&v.t());
        }
        first += batch;
    }
    debug_assert!(values.iter().all(|v| v.len_of(Axis(1)) == copies));
    Ok(PerturbedStatistics { feature, values })
}
