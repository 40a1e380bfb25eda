//! The experiment file format (`experiments/<id>.yaml`).
//!
//! Every struct rejects unknown fields, and every registry name (DGP, learner,
//! statistic, perturbation, check) is an enum, so a typo fails at load time with the
//! line, the column and the allowed values.

use std::collections::BTreeMap;

use serde::Deserialize;
use xai_models::LearnerSpec;
use xai_synth::DgpSpec;

use crate::checks::CheckSpec;
use crate::checks::regression::Tolerance;
use crate::layout::TableSpec;
use crate::methods::MethodSpec;

/// One experiment: data, models, methods, variants, outputs and checks.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExperimentSpec {
    /// Identifier; must equal the file name without `.yaml`.
    pub id: String,
    /// One-line title, used on figures.
    pub title: String,
    /// Paper key (`wood2024`, `molnar2023`, ...; see `seeds/README.md`).
    pub paper: String,
    /// The figure or table reproduced, as the paper numbers it ("Fig. 4").
    pub figure: String,
    /// Free text: settings that differ from the paper, proposals used, and why.
    #[serde(default)]
    pub notes: String,
    /// One line: how the `paper` scale compares with what the paper ran (replicates,
    /// sizes, stand-ins), shown beside the paper-scale results. Not among the fields
    /// that determine the numbers.
    #[serde(default)]
    pub paper_scale: String,
    /// Another experiment (an id in the same directory) whose runs this one draws
    /// and checks: seed, scales, data, models, methods, grid, level and tidy are
    /// taken from that file, so the two compute the same numbers (molnar2023 Figs. 4,
    /// 5 and I from the runs of Table 1, as the paper's code draws them), and a
    /// command given both computes them once.
    #[serde(default)]
    pub runs_of: Option<String>,
    /// Base seed of every RNG stream of the experiment.
    pub seed: u64,
    /// Replicates and overrides per scale.
    pub scales: Scales,
    /// Where the data comes from.
    pub data: DataSpec,
    /// The models, by name (the `model` column of the outputs).
    pub models: BTreeMap<String, LearnerSpec>,
    /// The methods run on every replicate and model, in this order
    /// ([`crate::methods`]).
    pub methods: Vec<MethodSpec>,
    /// Confidence level of every interval.
    #[serde(default = "default_level")]
    pub level: f64,
    /// Whether to write `tidy.csv`, one row per variant × replicate × model × value
    /// (default true). Off for studies with too many per-replicate rows to keep
    /// (molnar2023 Table 1: 197,000 rows at ci scale, 20 million at paper scale);
    /// `summary.csv` and the checks are written either way.
    #[serde(default = "default_tidy")]
    pub tidy: bool,
    /// Variants: each key names a field of this file (or a dotted suffix of its path);
    /// the run is repeated for every combination of the listed values. A value
    /// `{label: L, set: {field: value, ...}}` sets several fields at once and is named L
    /// (its key then names no field, only the output column).
    #[serde(default)]
    pub grid: BTreeMap<String, Vec<serde_json::Value>>,
    /// Figures to draw from the summary.
    #[serde(default)]
    pub plots: Vec<crate::plots::PlotSpec>,
    /// Tables in the paper's layout, written beside `summary.csv`.
    #[serde(default)]
    pub tables: Vec<TableSpec>,
    /// Names in figures: a model's key or a grid value → the words for it in panel
    /// titles ("X1 copied"); by default a model is its learner's name (with its key
    /// when two models share a learner) and a grid value is "key = value".
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
    /// Claims of the paper, checked on the summary.
    #[serde(default)]
    pub checks: Vec<CheckSpec>,
    /// Tolerance of the regression check against the committed summary.
    #[serde(default)]
    pub regression: Tolerance,
    /// Grid keys whose values share their random streams (common random numbers):
    /// variants that differ only in these keys draw the same rows, splits and seeds,
    /// so a comparison across them is paired (watson2023 Fig. 2: the original and the
    /// perturbed rows of one split, f0 fitted once on them). Default: none, every
    /// variant its own streams.
    #[serde(default)]
    pub shared_streams: Vec<String>,
}

fn default_tidy() -> bool {
    true
}

fn default_level() -> f64 {
    0.95
}

impl ExperimentSpec {
    /// Whether the experiment reproduces a figure or table of its paper; `figure:
    /// none` is a study of its own, whose plots are not companions of anything.
    pub fn has_paper_figure(&self) -> bool {
        xai_plots::is_paper_figure(&self.figure)
    }

    /// The file stem of the paper's figure or table: "Fig. 4" → `fig4`,
    /// "Table 1" → `table1`.
    pub fn figure_stem(&self) -> String {
        self.figure
            .to_lowercase()
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .collect()
    }
}

/// The three scales an experiment runs at.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scales {
    /// Seconds; used by the integration tests. Default: 2 replicates, no overrides.
    #[serde(default = "smoke_default")]
    pub smoke: ScaleSpec,
    /// Well under a minute; used by `cargo xtask check` in CI.
    pub ci: ScaleSpec,
    /// The paper's size.
    pub paper: ScaleSpec,
}

fn smoke_default() -> ScaleSpec {
    ScaleSpec {
        replicates: 2,
        set: BTreeMap::new(),
        grid: BTreeMap::new(),
    }
}

/// Replicates and field overrides of one scale.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScaleSpec {
    /// Independent replicates per variant (fresh data, fresh fit), ≥ 1.
    pub replicates: usize,
    /// Fields to override at this scale, keyed like `grid`.
    #[serde(default)]
    pub set: BTreeMap<String, serde_json::Value>,
    /// Values of some `grid:` keys to use at this scale instead of the experiment's,
    /// written like `grid:` (a key `grid:` lacks is refused): e.g. a costly model left
    /// out of one cell at ci scale with a `{label, set}` value that replaces `models`.
    #[serde(default)]
    pub grid: BTreeMap<String, Vec<serde_json::Value>>,
}

/// The data of every replicate: a registered DGP with fresh training and test
/// samples, or a registered real dataset split afresh (give exactly one).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DataSpec {
    /// The DGP and its parameters.
    #[serde(default)]
    pub dgp: Option<DgpSpec>,
    /// A dataset of `data/datasets.yaml` with its split.
    #[serde(default)]
    pub dataset: Option<DatasetRef>,
    /// Training rows per replicate (DGP).
    #[serde(default)]
    pub n_train: usize,
    /// Test rows per replicate, the rows explained (DGP).
    #[serde(default)]
    pub n_test: usize,
    /// All rows of a replicate (DGP), instead of `n_train` and `n_test`: each
    /// replicate draws one sample of n rows (`n` alone reads as `false` in YAML 1.1) and splits it at random into
    /// n_train = ⌊train_fraction·n⌋ training rows and n_test = n − n_train test rows,
    /// so what the DGP computes over its sample (molnar_additive's noise sd) sees all
    /// n rows (molnar2023 Table 2: n ∈ {200, 1000}, train_fraction 0.632).
    #[serde(default)]
    pub n_rows: Option<usize>,
    /// The training share of `n_rows` (in (0, 1)).
    #[serde(default)]
    pub train_fraction: Option<f64>,
    /// How replicates get their DGP rows (default `fresh`).
    #[serde(default)]
    pub sampling: Sampling,
    /// Shares of every column's cells made missing (NaN) in each replicate's training
    /// and test rows (DGP; watson2023 Fig. 3b: a share m of the training cells, 10%
    /// of the test cells); only learners that handle missing values (`xgboost`) can
    /// fit such data.
    #[serde(default)]
    pub missing_cells: Option<MissingCells>,
    /// A covariate shift of each replicate's training and test rows (watson2023
    /// Fig. 2); none by default.
    #[serde(default)]
    pub shift: Option<CovariateShift>,
}

/// Gaussian noise N(0, sd²) added to one feature of every training and test row of a
/// replicate, after its split and missing cells, drawn from a stream of its own
/// (training rows first), so a shifted variant's other draws are an unshifted one's;
/// a missing cell stays missing. The noise is added to the value as stored (a
/// categorical feature's code too). Monte-Carlo truths and the full dataset some
/// methods read (`predictability`) are not shifted. The rows remember the feature's values
/// before the shift ([`xai_core::Dataset::before_shift`]): a model deployed before
/// the shift is fitted on them and not refitted (learner `uncertainty`'s `base`).
/// `sd: 0` shifts nothing (the unshifted rows of a comparison).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CovariateShift {
    /// The shifted feature.
    pub feature: String,
    /// The noise's standard deviation (≥ 0).
    pub sd: f64,
    /// Which rows are shifted: `all` (default; watson2023's code: training and test
    /// rows, so the uncertainty model is refitted on shifted rows) or `test` (the
    /// paper's text: the deployed models meet shifted rows they were not fitted on).
    #[serde(default)]
    pub rows: ShiftedRows,
}

/// The rows a [`CovariateShift`] moves.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShiftedRows {
    /// Training and test rows.
    #[default]
    All,
    /// The test rows only.
    Test,
}

/// Shares of missing cells per column, chosen at random column by column
/// ([`xai_core::Dataset::with_missing_cells`]).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MissingCells {
    /// Share of each training column (in [0, 1); default 0).
    #[serde(default)]
    pub train: f64,
    /// Share of each test column (in [0, 1); default 0).
    #[serde(default)]
    pub test: f64,
}

/// How the replicates of a DGP experiment get their rows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Sampling {
    /// Each replicate draws fresh training and test samples.
    #[default]
    Fresh,
    /// Shuffle splits (cid2021 §3.1): one sample of n_train + n_test rows per variant
    /// (from stream (seed, v·2³² + 2³² − 1)); replicate r splits it at random into
    /// n_train training and n_test test rows. The spread over replicates is then the
    /// spread over splits of one sample, not over samples.
    ShuffleSplits,
    /// One training sample of n_train rows per variant (the stream of
    /// `shuffle_splits`), fresh test rows per replicate: a deterministic learner then
    /// fits the same model in every replicate, and the spread over replicates is the
    /// Monte-Carlo error of explaining it on n_test rows alone (molnar2023 Fig. 3,
    /// left). A learner that draws random numbers still draws them per replicate.
    FixedTraining,
}

/// A registered dataset and how each replicate splits it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DatasetRef {
    /// Name in `data/datasets.yaml`; with `table`, the name the outputs give it.
    pub name: String,
    /// A table of one's own instead of a registered dataset (`table: {file: my.csv,
    /// target: {column: y, task: regression}}`), its sha256 computed when the run
    /// starts and recorded in the manifest.
    #[serde(default)]
    pub table: Option<crate::datasets::OwnTable>,
    /// Share of rows in the test set (wood2024: 0.25); 0: no split, every row is both
    /// fitted and explained, and replicates differ only in their models' streams
    /// (icefi2022: one forest per seed on all 858 rows).
    #[serde(default = "default_test_fraction")]
    pub test_fraction: f64,
    /// Keep the class shares in both parts (classification).
    #[serde(default = "default_true")]
    pub stratify: bool,
    /// Rows with a missing cell: `error` (default), `drop_rows`, `keep` (as NaN,
    /// for learners that handle missing values), or `impute_mean` (each missing cell
    /// replaced by its column's mean over the file's observed values, before any
    /// split: scikit-learn's `SimpleImputer()` as icefi2022's code applies it).
    #[serde(default)]
    pub missing: crate::datasets::MissingPolicy,
    /// k-fold instead of a random split: replicate r is tested on fold r mod k (folds
    /// drawn once per variant, stratified when `stratify`), so k replicates use every
    /// row once as a test row; `test_fraction` is then unused.
    #[serde(default)]
    pub folds: Option<usize>,
    /// Columns left out of the features, besides the registry's `drop` (icefi2022
    /// Table 3: the two constant columns, which the linear models cannot use).
    #[serde(default)]
    pub drop: Vec<String>,
    /// Keep only the rows of these classes, as the registry names them, relabelled
    /// 0, 1, … in this order before any split (watson2023 Fig. 1a's digit pairs:
    /// `["1", "7"]` makes 7 the class 1). Default: every class.
    #[serde(default)]
    pub classes: Vec<String>,
    /// Put the training and test rows in a random order (drawn from the replicate's
    /// stream right after the split) instead of the file's, for a file sorted by class
    /// (mnist5k), whose first test rows (a background, the explained rows) would
    /// otherwise all be of one class. Default false.
    #[serde(default)]
    pub shuffled: bool,
}

fn default_test_fraction() -> f64 {
    0.25
}

fn default_true() -> bool {
    true
}
