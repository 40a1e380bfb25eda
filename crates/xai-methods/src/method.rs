//! What every method is: the [`Method`] trait, what it knows at load ([`Plan`]), what
//! it reads of a replicate ([`Input`]) and emits ([`Emitted`]), and the helpers the
//! methods' validation and coverage rows share.

use std::collections::BTreeMap;

use xai_core::rng::StreamRng;
use xai_core::{Dataset, Estimate, Model};
use xai_models::{LearnerKind, LearnerSpec};
use xai_results::quantity::{Inference, Quantity};
use xai_results::table::CurveRow;
use xai_results::{Invalid, Value, known_feature_names, point};

/// What is known of an experiment before any work: used to check a method's settings
/// at load time.
#[derive(Debug, Clone, Copy)]
pub struct Plan<'a> {
    /// The data's feature names (for a dataset, known only once it is loaded).
    pub feature_names: Option<&'a [String]>,
    /// Training rows per replicate, where known before loading.
    pub n_train: Option<usize>,
    /// Test rows per replicate, where known before loading.
    pub n_test: Option<usize>,
    /// The models, by name.
    pub models: &'a BTreeMap<String, LearnerSpec>,
    /// The quantities reported by the methods listed before this one.
    pub earlier: &'a [String],
    /// The DGP the data is drawn from, if any.
    pub dgp: Option<&'a xai_synth::DgpSpec>,
    /// The loaded dataset, once known (its feature kinds and target): checked again
    /// when a run has loaded it.
    pub loaded: Option<&'a Dataset>,
}

/// One replicate as a method sees it, for one model.
pub struct Input<'a> {
    /// The training rows.
    pub train: &'a Dataset,
    /// The test rows, the rows explained.
    pub test: &'a Dataset,
    /// Every row the replicate was split from (a dataset or a shuffle-split sample);
    /// the training rows when each replicate draws fresh data.
    pub all: &'a Dataset,
    /// The model's learner (for methods that refit).
    pub learner: &'a LearnerSpec,
    /// The DGP the replicate's rows were drawn from, if any (fresh draws).
    pub dgp: Option<&'a xai_synth::DgpSpec>,
    /// The model fitted on the training rows, when [`Method::needs_fit`].
    pub model: Option<&'a dyn Model>,
    /// The values emitted for this model by the methods listed before.
    pub earlier: &'a [Value],
    /// Confidence level of intervals.
    pub level: f64,
    /// The experiment's seed (for draws that must not depend on the replicate).
    pub seed: u64,
    /// Whether this is the first model of the first replicate of the first variant.
    pub first: bool,
    /// The Monte-Carlo truth of this method for this scenario and model
    /// ([`Method::truth`]); empty when it has none.
    pub truth: &'a [Value],
    /// A front end's request to stop, checked between blocks of work
    /// ([`Input::begin_block`]); none for a run of the CLI (Ctrl-C ends its process).
    pub stop: Option<&'a xai_core::stop::Stop>,
}

impl<'a> Input<'a> {
    /// A replicate with no model, no DGP and no earlier values, as a test of a
    /// method that reads the data alone sees it (`all` is the training rows).
    #[cfg(test)]
    pub fn of_data(train: &'a Dataset, test: &'a Dataset, learner: &'a LearnerSpec) -> Self {
        Input {
            train,
            test,
            all: train,
            learner,
            dgp: None,
            model: None,
            earlier: &[],
            level: 0.95,
            seed: 1,
            first: true,
            truth: &[],
            stop: None,
        }
    }

    /// [`xai_core::CoreError::Interrupted`] once a stop was requested: called before
    /// each block of work a method plans ([`Method::blocks`]: the refits of learner
    /// inference), so a front end's Ctrl-C ends the call there; else counts the block
    /// as begun, for the front end's progress line.
    pub fn begin_block(&self) -> xai_core::error::Result<()> {
        self.stop.map_or(Ok(()), |s| s.begin_block())
    }

    /// The fitted model; the runner fits one for every method with
    /// [`Method::needs_fit`].
    pub fn model(&self) -> xai_core::error::Result<&dyn Model> {
        self.model
            .ok_or_else(|| xai_core::CoreError::Invalid("this method needs a fitted model".into()))
    }
}

/// What a method emits for one replicate and model.
#[derive(Debug, Clone, Default)]
pub struct Emitted {
    /// Quantities per feature (and grid point).
    pub values: Vec<Value>,
    /// Kept ICE curves (labels, replicate and model are filled in by the runner).
    pub curves: Vec<CurveRow>,
    /// Entropy maps for figures.
    pub maps: Vec<xai_results::entropy_map::EntropyMap>,
}

/// A kind of method: what it needs from a replicate and which quantities it emits.
pub trait Method: Send + Sync {
    /// The quantities it reports per model and feature (`summary.csv`'s `quantity`).
    fn quantities(&self) -> Vec<String>;

    /// The quantities of the ICE curves it keeps (`ice.csv`).
    fn curve_quantities(&self) -> Vec<String> {
        Vec::new()
    }

    /// The quantities (of [`Method::quantities`]) that depend on the data alone, not on
    /// the experiment's model or learner; figures title their panels by the data, not
    /// by a model.
    fn model_free(&self) -> Vec<String> {
        Vec::new()
    }

    /// The Monte-Carlo truth the method's estimates are compared with, computed once
    /// per scenario before the replicates and handed to every replicate as
    /// [`Input::truth`]; `None` when it has none. The key is what the truth depends on
    /// besides the data, model and learner, picked from the method's own YAML `node`
    /// (values as written, never the typed spec, so streams keyed on it stay put when a
    /// spec type gains a field); methods with equal keys share it. The runner calls
    /// [`Method::truth`] for it.
    fn truth_key(&self, _node: &serde_json::Value) -> Option<serde_json::Value> {
        None
    }

    /// The truth for `learner` on `dgp` with n rows (see [`Method::truth_key`]); run
    /// r of the Monte-Carlo truth draws from stream (seed, r). With `probe: Some(k)`
    /// only its first min(k, runs) runs are done, to time it (`--plan`).
    fn truth(
        &self,
        _dgp: &xai_synth::DgpSpec,
        _learner: &LearnerSpec,
        _n: usize,
        _level: f64,
        _seed: u64,
        _probe: Option<usize>,
    ) -> xai_core::error::Result<Vec<Value>> {
        Ok(Vec::new())
    }

    /// How many Monte-Carlo runs its truth takes (its cost is linear in them).
    fn truth_runs(&self) -> usize {
        0
    }

    /// Whether it reads the model fitted on the training rows.
    fn needs_fit(&self) -> bool {
        true
    }

    /// Whether it compares a model's predictions with the rows' labels (a loss or a
    /// score: [`xai_core::Statistic::needs_label`]), which a model of another model's
    /// uncertainty cannot serve: its predictions are that statistic, not a
    /// distribution of the label. Every method states it (no default).
    fn compares_with_labels(&self) -> bool;

    /// The largest number of rows it passes to one `predict` call when the test set
    /// has `n_test` rows (for the memory check before a run).
    fn predict_rows(&self, n_test: usize) -> usize {
        n_test
    }

    /// The setting that sizes [`Method::predict_rows`] beyond the test rows (`repeats`,
    /// `points`, ...), which a refusal for memory tells the user to lower; `n_test`
    /// when the test rows alone do.
    fn batch_setting(&self, _n_test: usize) -> &'static str {
        "n_test"
    }

    /// How many values it emits per replicate and model on `n_test` rows of `p`
    /// features, at most: one per quantity and feature by default.
    fn values_emitted(&self, _n_test: usize, p: usize) -> usize {
        self.quantities().len().saturating_mul(p)
    }

    /// The blocks of work it begins one by one with [`Input::begin_block`], for a
    /// front end's progress line ("refit 12 of 60"); none by default.
    fn blocks(&self) -> usize {
        0
    }

    /// The memory it holds for one replicate and model besides its prediction batch
    /// (every refit's values, every sampled coalition), in bytes, with the setting that
    /// sizes it; none by default.
    fn held_bytes(&self, _n_test: usize, _p: usize) -> (u128, &'static str) {
        (0, "n_test")
    }

    /// Checks the settings against what is known before any work.
    fn validate(&self, plan: &Plan<'_>) -> Result<(), Invalid>;

    /// Runs on one replicate and one model. `rng` is the model's stream of the
    /// replicate, shared in order by the model's fit and its methods.
    fn compute(&self, input: &Input<'_>, rng: &mut StreamRng) -> xai_core::error::Result<Emitted>;
}

/// The column indices of `wanted` (all columns when `None`); names are checked at
/// load by [`known_features`].
pub fn feature_indices(data: &Dataset, wanted: Option<&[String]>) -> Vec<usize> {
    let names = data.feature_names();
    match wanted {
        Some(fs) => fs
            .iter()
            .filter_map(|f| names.iter().position(|n| n == f))
            .collect(),
        None => (0..names.len()).collect(),
    }
}

/// The first model (by name) whose learner lacks what `has` asks of its
/// [`xai_models::Capabilities`]: the model a method's validation blames.
pub fn model_without(
    models: &BTreeMap<String, LearnerSpec>,
    has: impl Fn(&xai_models::Capabilities) -> bool,
) -> Option<(&String, &LearnerSpec)> {
    models.iter().find(|(_, l)| !has(&l.capabilities()))
}

/// Checks feature names against the data's, when known.
pub fn known_features<'a>(
    plan: &Plan<'_>,
    wanted: impl IntoIterator<Item = &'a String>,
) -> Result<(), Invalid> {
    known_feature_names(plan.feature_names, wanted)
}

/// The rows `coverage_<estimand>` and `width_<estimand>` (feature empty, grid point `x`) of
/// `intervals` against `truths` (one each): the share of intervals holding their
/// truth and the mean width ([`xai_core::coverage`]); their means over replicates are
/// the coverage and width of molnar2023 Tables 1 and 2.
pub fn coverage_values(
    estimand: &Quantity,
    x: Option<f64>,
    intervals: &[Estimate],
    truths: &[f64],
    level: f64,
) -> [Value; 2] {
    let c = xai_core::coverage(intervals, truths, level);
    let k = intervals.len();
    [
        (Inference::Coverage, c.coverage),
        (Inference::Width, c.width),
    ]
    .map(|(what, e)| Value {
        quantity: estimand.clone().within(what).to_string(),
        feature: String::new(),
        x,
        estimate: point(e.estimate, k),
    })
}

/// Checks a list of statistics is not empty.
pub(crate) fn some_statistics(statistics: &[xai_core::Statistic]) -> Result<(), Invalid> {
    if statistics.is_empty() {
        return Err(Invalid::new(
            "statistics",
            "a method needs at least one statistic",
        ));
    }
    Ok(())
}
