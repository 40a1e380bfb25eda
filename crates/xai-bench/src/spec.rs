//! The experiment file format (`experiments/<id>.yaml`).
//!
//! Every struct rejects unknown fields, and every registry name (DGP, learner,
//! statistic, perturbation, check) is an enum, so a typo fails at load time with the
//! line, the column and the allowed values.

use std::collections::BTreeMap;

use serde::Deserialize;
use xai_models::LearnerSpec;
use xai_synth::DgpSpec;

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
    pub plots: Vec<PlotSpec>,
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
    /// Seconds; used by the integration tests.
    pub smoke: ScaleSpec,
    /// Well under a minute; used by `cargo xtask check` in CI.
    pub ci: ScaleSpec,
    /// The paper's size.
    pub paper: ScaleSpec,
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
    /// Name in `data/datasets.yaml`.
    pub name: String,
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
}

fn five() -> usize {
    5
}

fn default_test_fraction() -> f64 {
    0.25
}

fn default_true() -> bool {
    true
}

/// A figure drawn from the summary.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum PlotSpec {
    /// Bars per feature with interval whiskers: one row of panels per quantity, one
    /// column per model and value of `panels` (a grid key).
    Bars {
        /// File stem of the figure (`<name>.svg`, `<name>.png`).
        name: String,
        /// What a companion figure shows (required for a file other than the paper's
        /// figure `fig<N>`); drawn as "<title> (companion to <figure>)".
        #[serde(default)]
        title: Option<String>,
        /// Quantities drawn side by side.
        quantities: Vec<String>,
        /// Grid key whose values get a panel each.
        #[serde(default)]
        panels: Option<String>,
        /// Order the features by this quantity's estimate, largest first (as in the
        /// first panel).
        #[serde(default)]
        order_by: Option<String>,
        /// Order each panel's features by its own estimates, largest first (a ranking
        /// per quantity, as cid2021 Fig. 2-3 draw them); overrides `order_by`.
        #[serde(default)]
        rank: bool,
        /// Draw only the first `top` features of each panel's order.
        #[serde(default)]
        top: Option<usize>,
        /// One y-range for all quantities (rows of panels), so their sizes compare
        /// (e.g. a conditional PFI beside the marginal one).
        #[serde(default)]
        shared_y: bool,
        /// All quantities side by side in one row (cid2021 Fig. 2-3 draw their
        /// rankings so) instead of one row of panels per quantity.
        #[serde(default)]
        side_by_side: bool,
        /// Horizontal bars with the feature names on the y-axis, largest on top (the
        /// ranking panels of cid2021 Fig. 2-3).
        #[serde(default)]
        horizontal: bool,
        /// Draw replicate k's own estimates and intervals (one fit, as a paper's
        /// figure shows one) instead of the mean over replicates with the interval
        /// over replicates; needs the tidy rows.
        #[serde(default)]
        replicate: Option<usize>,
    },
    /// Partial-dependence curves with their interval bands, one panel per model (and
    /// value of `panels`) holding every feature; or, with `ice`, one panel per feature
    /// with the sampled rows' ICE curves (coloured by `color_by`, a dot at each row's
    /// own value) and the PD in black.
    Curves {
        /// File stem of the figure.
        name: String,
        /// What a companion figure shows (see `bars`).
        #[serde(default)]
        title: Option<String>,
        /// The PD quantity (`entropy_pd`, ...).
        pd: String,
        /// The ICE quantity of the sampled rows (`entropy_ice`, ...), if drawn.
        #[serde(default)]
        ice: Option<String>,
        /// Feature whose original value colours each ICE curve; `other` (two-feature
        /// data only) colours each panel by the feature it does not vary; `class`
        /// colours by the row's class (red = class 1, blue = class 0).
        #[serde(default)]
        color_by: Option<String>,
        /// Vertical dotted lines at these x values.
        #[serde(default)]
        vlines: Vec<f64>,
        /// Mark each ICE row's own value by a rug tick at the bottom instead of a dot.
        #[serde(default)]
        rug: bool,
        /// Add a panel with the training-set histogram of the feature by class.
        #[serde(default)]
        histogram: bool,
        /// Draw at most this many of the kept ICE curves per panel (the first in
        /// replicate and row order; checks still read them all).
        #[serde(default)]
        max_curves: Option<usize>,
        /// Draw the training sample on the left, as a `scatter` plot would (wood2024
        /// Fig. 6: the data beside its Entropy-PDP).
        #[serde(default)]
        data: Option<ScatterPanel>,
        /// Grid key whose values get a panel each.
        #[serde(default)]
        panels: Option<String>,
        /// Draw replicate k's own estimates and intervals (one fit, as a paper's
        /// figure shows one) instead of the mean over replicates with the interval
        /// over replicates; needs the tidy rows.
        #[serde(default)]
        replicate: Option<usize>,
    },
    /// One small panel per feature in a grid of `columns` columns (icefi2022 App. A
    /// and B): the kept ICE curves of one replicate (the first) and the PD in gold,
    /// each row's own value marked by a green dot. With `near: k`, a feature with more
    /// than 10 grid values draws each curve dashed grey and its part within ±k·σ of
    /// the row's own value solid black (σ the population sd of the feature over the
    /// first replicate's training rows); with `centred`, every curve and the PD minus
    /// its value at the smallest grid value (c-ICE).
    IceGrid {
        /// File stem of the figure.
        name: String,
        /// What a companion figure shows (see `bars`).
        #[serde(default)]
        title: Option<String>,
        /// The PD quantity (`prediction_pd`).
        pd: String,
        /// The ICE quantity of the kept rows (`prediction_ice`).
        ice: String,
        /// Panels per row of the grid (default 4).
        #[serde(default = "default_grid_columns")]
        columns: usize,
        /// Half-width, in sds of the feature, of the solid part of each curve.
        #[serde(default)]
        near: Option<f64>,
        /// Centre every curve at the smallest grid value.
        #[serde(default)]
        centred: bool,
    },
    /// Summaries of a coverage study against the number of refits m (the rows' x):
    /// one panel per entry of `y` and per value of `rows` × `columns` (grid keys or
    /// `model`), in each a line per value of `color_by` for every quantity of the entry
    /// (solid, then dashed: the uncorrected and the corrected interval), and dashed
    /// horizontal lines at `hlines` (quantity → value; the nominal level). molnar2023
    /// Fig. 5 and Figs. I.7–I.14.
    Lines {
        /// File stem of the figure.
        name: String,
        /// What a companion figure shows (see `bars`).
        #[serde(default)]
        title: Option<String>,
        /// Per panel column, the quantities drawn in it (at most three line styles).
        y: Vec<Vec<String>>,
        /// The rows drawn (grid keys, `model`).
        #[serde(default, rename = "where")]
        rows_where: Selector,
        /// Grid key (or `model`) whose values get a colour each.
        color_by: String,
        /// Grid key (or `model`) whose values get a row of panels each.
        #[serde(default)]
        rows: Option<String>,
        /// Grid key (or `model`) whose values get a column of panels each (within
        /// each entry of `y`).
        #[serde(default)]
        columns: Option<String>,
        /// Horizontal dashed lines: quantity → value, drawn in that quantity's panels.
        #[serde(default)]
        hlines: BTreeMap<String, f64>,
        /// A dashed line y = x: chance on a ROC curve (watson2023 Fig. 3b).
        #[serde(default)]
        diagonal: bool,
    },
    /// Mean interval width against coverage at one m (molnar2023 Fig. 4): a panel per
    /// estimand `q` (x = `width_<q>`, y = `coverage_<q>`, and `_corrected` for the
    /// Nadeau–Bengio-corrected interval), a point per cell coloured by `color_by`
    /// (a circle uncorrected, a triangle corrected), with a grey segment joining the
    /// points of a cell that differ only in `join`, and a dashed line at the level.
    Tradeoff {
        /// File stem of the figure.
        name: String,
        /// What a companion figure shows (see `bars`).
        #[serde(default)]
        title: Option<String>,
        /// The estimands (`prediction_pd`, `loss_pfi`): one panel each.
        estimands: Vec<String>,
        /// The rows drawn (grid keys, `model`, `x` = m).
        #[serde(rename = "where")]
        rows_where: Selector,
        /// Grid key (or `model`) whose values get a colour each.
        color_by: String,
        /// Which intervals: `both` (uncorrected and corrected), or `corrected` only.
        intervals: Intervals,
        /// Points that differ only in this are joined: `corrected` (an interval and
        /// its corrected version) or a grid key (e.g. `resampling`).
        join: String,
    },
    /// wood2024 Fig. 2: the entropy map of a `permutation_map` method (the first
    /// model's predictive entropy over the plane of the two features, first
    /// replicate), with the test points (left) and the same points after the
    /// permutation (centre), coloured by class, and histograms of the rows' entropies
    /// before and after (right).
    PermutationMap {
        /// File stem of the figure.
        name: String,
        /// What a companion figure shows (see `bars`).
        #[serde(default)]
        title: Option<String>,
    },
    /// The PD of one feature in every replicate as a thin line (from the tidy rows),
    /// one panel per value of the grid key `panels`, all on one y-scale; in the panels
    /// listed in `mean`, also the mean over replicates (bold) and the DGP's true PD
    /// (dashed). molnar2023 Fig. 3: the Monte-Carlo spread of one model's PD beside
    /// the spread of refitted models' PDs around their mean and the truth.
    PdReplicates {
        /// File stem of the figure.
        name: String,
        /// What a companion figure shows (see `bars`).
        #[serde(default)]
        title: Option<String>,
        /// The PD quantity (`prediction_pd`).
        pd: String,
        /// The feature whose PD is drawn.
        feature: String,
        /// Grid key whose values get a panel each.
        panels: String,
        /// Values of `panels` whose panels add the mean and the true PD.
        #[serde(default)]
        mean: Vec<String>,
        /// The values of `panels` drawn, in this order (default: every value).
        #[serde(default)]
        show: Vec<String>,
    },
    /// A SHAP dependence plot: a dot per kept test row at (its value of `feature`, its
    /// Shapley value for it), coloured and shaped by the grid key `color_by`, one panel
    /// per value of the grid key `panels` (watson2023 Fig. 2: a dataset's shifted
    /// feature, original vs perturbed rows).
    ShapDependence {
        /// File stem.
        name: String,
        /// Figure title (default: the experiment's).
        #[serde(default)]
        title: Option<String>,
        /// A kept Shapley quantity (`prediction_shap`).
        quantity: String,
        /// The feature: one name, or a map from each value of `panels` to its feature.
        feature: FeatureChoice,
        /// Grid key with one panel per value.
        #[serde(default)]
        panels: Option<String>,
        /// Grid key with one colour and marker per value.
        #[serde(default)]
        color_by: Option<String>,
        /// Draw this replicate alone (default: the kept rows of every replicate).
        #[serde(default)]
        replicate: Option<usize>,
    },
    /// A SHAP summary ("beeswarm"): per feature the kept Shapley values of the test
    /// rows (a `shapley` method's `keep`) as dots jittered vertically and coloured by
    /// the feature's value, one panel per value of the grid key `panels`
    /// (watson2023 Fig. 3a).
    ShapSummary {
        /// File stem of the figure.
        name: String,
        /// What a companion figure shows (see `bars`).
        #[serde(default)]
        title: Option<String>,
        /// The Shapley quantity (`prediction_shap`).
        quantity: String,
        /// Grid key whose values get a panel each (none: one panel).
        #[serde(default)]
        panels: Option<String>,
    },
    /// Pixel maps (watson2023 Fig. 1a): per value of `panels` and each of the first
    /// `rows` kept test rows (a `shapley` method's `keep`), the image in grey and a map
    /// of each quantity's φ per pixel, red above 0 and blue below; the features must
    /// be the pixels of a square image.
    PixelMaps {
        /// File stem of the figure.
        name: String,
        /// What a companion figure shows (see `bars`).
        #[serde(default)]
        title: Option<String>,
        /// The Shapley quantities mapped (`aleatoric_entropy_shap`, ...).
        quantities: Vec<String>,
        /// Images per block (default 5).
        #[serde(default = "five")]
        rows: usize,
        /// Grid key whose values get a block each (none: one block).
        #[serde(default)]
        panels: Option<String>,
    },
    /// Scatter of two features of the first replicate's training sample, with the
    /// square [−shade, shade]² hatched.
    Scatter {
        /// File stem of the figure.
        name: String,
        /// What a companion figure shows (see `bars`).
        #[serde(default)]
        title: Option<String>,
        /// Feature on the x-axis.
        x: String,
        /// Feature on the y-axis.
        y: String,
        /// Half-width of the hatched square, if any.
        #[serde(default)]
        shade: Option<f64>,
    },
}

/// The feature a dependence plot draws: one for every panel, or one per panel value
/// (watson2023 Fig. 2: each dataset's shifted feature).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum FeatureChoice {
    /// The same feature in every panel.
    One(String),
    /// Panel value → feature.
    PerPanel(BTreeMap<String, String>),
}

impl FeatureChoice {
    /// The feature of the panel with grid value `panel`.
    pub fn of(&self, panel: &str) -> Option<&str> {
        match self {
            FeatureChoice::One(f) => Some(f),
            FeatureChoice::PerPanel(m) => m.get(panel).map(String::as_str),
        }
    }
}

/// A table in the paper's layout, written as `<name>.csv` and `<name>.md`: a row per
/// combination of the `rows` keys' values, a column per entry of `columns`; a cell is
/// our estimate and, in parentheses, the paper's value, taken from the `near` check
/// that names that cell (its `where` gives every `rows` key; the most specific wins)
/// or else from the column's `paper` values.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableSpec {
    /// File stem (`table1` → `table1.csv`, `table1.md`).
    pub name: String,
    /// Grid keys (or `model`, or `feature`) whose values make the rows, slowest first.
    pub rows: Vec<String>,
    /// The columns, left to right.
    pub columns: Vec<ColumnSpec>,
    /// Decimals of the Markdown cells (default 2, as molnar2023 Table 1).
    #[serde(default = "default_decimals")]
    pub decimals: usize,
}

fn default_decimals() -> usize {
    2
}

/// A column of a [`TableSpec`]: one summary row per table row.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ColumnSpec {
    /// The column's header ("PD boot*").
    pub header: String,
    /// The quantity shown.
    pub quantity: String,
    /// The rows of the quantity it shows (with the table row's keys, exactly one).
    #[serde(rename = "where", default)]
    pub rows_where: Selector,
    /// Show the sd over replicates beside the mean, "mean, sd s" (molnar2023 Table 2's
    /// width columns, "mean (sd)").
    #[serde(default)]
    pub sd: bool,
    /// The paper's values of cells no `near` check names, by the table row's key
    /// values joined with ", " (icefi2022 App. C: 32 features × 5 columns shown beside
    /// ours, of which only some are claims the run checks). A `near` check's value
    /// takes precedence.
    #[serde(default)]
    pub paper: BTreeMap<String, f64>,
}

/// The intervals a [`PlotSpec::Tradeoff`] draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Intervals {
    /// The uncorrected interval and its corrected version.
    Both,
    /// The corrected interval only.
    Corrected,
}

/// A scatter of two features of the first replicate's training sample, with the
/// square [−shade, shade]² hatched.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScatterPanel {
    /// Feature on the x-axis.
    pub x: String,
    /// Feature on the y-axis.
    pub y: String,
    /// Half-width of the hatched square, if any.
    #[serde(default)]
    pub shade: Option<f64>,
}

impl PlotSpec {
    /// The file stem of the figure.
    pub fn name(&self) -> &str {
        match self {
            PlotSpec::Bars { name, .. }
            | PlotSpec::Curves { name, .. }
            | PlotSpec::Lines { name, .. }
            | PlotSpec::Tradeoff { name, .. }
            | PlotSpec::Scatter { name, .. }
            | PlotSpec::ShapSummary { name, .. }
            | PlotSpec::ShapDependence { name, .. }
            | PlotSpec::PdReplicates { name, .. }
            | PlotSpec::IceGrid { name, .. }
            | PlotSpec::PixelMaps { name, .. }
            | PlotSpec::PermutationMap { name, .. } => name,
        }
    }

    /// The replicate a `bars` or `curves` plot draws alone, if any.
    pub fn replicate(&self) -> Option<usize> {
        match self {
            PlotSpec::Bars { replicate, .. }
            | PlotSpec::Curves { replicate, .. }
            | PlotSpec::ShapDependence { replicate, .. } => *replicate,
            _ => None,
        }
    }

    /// A companion figure's own title.
    pub fn title(&self) -> Option<&str> {
        match self {
            PlotSpec::Bars { title, .. }
            | PlotSpec::Curves { title, .. }
            | PlotSpec::Lines { title, .. }
            | PlotSpec::Tradeoff { title, .. }
            | PlotSpec::Scatter { title, .. }
            | PlotSpec::ShapSummary { title, .. }
            | PlotSpec::ShapDependence { title, .. }
            | PlotSpec::PdReplicates { title, .. }
            | PlotSpec::IceGrid { title, .. }
            | PlotSpec::PixelMaps { title, .. }
            | PlotSpec::PermutationMap { title, .. } => title.as_deref(),
        }
    }
}

fn default_grid_columns() -> usize {
    4
}

fn default_share() -> f64 {
    1.0
}

/// A scalar in a selector: a name or a number.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum Scalar {
    /// A number, matched against numeric columns.
    Number(f64),
    /// A text value.
    Text(String),
}

/// One value or a list of values.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum OneOrMany {
    /// A single value.
    One(Scalar),
    /// Any of these values.
    Many(Vec<Scalar>),
}

impl OneOrMany {
    /// The values as a list.
    pub fn values(&self) -> Vec<Scalar> {
        match self {
            OneOrMany::One(v) => vec![v.clone()],
            OneOrMany::Many(v) => v.clone(),
        }
    }
}

/// Rows of the summary whose columns take the given values (`{feature: [X1, X2]}`).
pub type Selector = BTreeMap<String, OneOrMany>;

/// A claim of the paper and how it is checked.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckSpec {
    /// The paper's claim in words.
    pub claim: String,
    /// Whose claim it is: the paper's own words (default), or derived from the
    /// paper's numbers or reasoning (PAPERS.md [derived]).
    #[serde(default)]
    pub kind: ClaimKind,
    /// The assertion that tests it.
    pub assert: Assertion,
    /// Why this claim is known not to reproduce, with the measured numbers: a failure
    /// is then reported as a known deviation, not fatal, and a pass fails as a stale
    /// marker (remove the marker once its cause is fixed). One reason for every scale,
    /// or reasons per scale ([`Deviation::PerScale`]).
    #[serde(default)]
    pub expected_to_differ: Option<Deviation>,
}

/// Whose claim a check tests, as the report and `checks.csv` show it. A statement
/// that holds by construction of the method (an identity) is neither: it belongs in
/// a unit test.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClaimKind {
    /// A claim the paper makes in its text, figure or table.
    #[default]
    Paper,
    /// A claim derived from the paper (its numbers, its reasoning, or what its figure
    /// shows without saying), tagged [derived] in PAPERS.md.
    Derived,
}

impl ClaimKind {
    /// "paper" or "derived", as `checks.csv` writes it.
    pub fn label(self) -> &'static str {
        match self {
            ClaimKind::Paper => "paper",
            ClaimKind::Derived => "derived",
        }
    }
}

/// An `expected_to_differ` marker: `"reason"` at every scale, or
/// `{ paper: "reason", ... }` at the scales it names only (a claim can fail at ci
/// scale for lack of replicates and hold at the paper's, or the reverse, where the
/// paper's Monte-Carlo error is small enough to show a real difference).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum Deviation {
    /// The same reason at every scale.
    Everywhere(String),
    /// A reason per scale name (`smoke`, `ci`, `paper`); elsewhere the claim must hold.
    PerScale(BTreeMap<String, String>),
}

impl Deviation {
    /// The reason at the scale named `scale`, if the claim is expected to differ there.
    pub fn at(&self, scale: &str) -> Option<&str> {
        match self {
            Deviation::Everywhere(why) => Some(why),
            Deviation::PerScale(by) => by.get(scale).map(String::as_str),
        }
    }
}

/// The assertions a check can make on summary rows. Rows are compared within each
/// combination of the columns the assertion does not select on (each variant and
/// model separately).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Assertion {
    /// Every `this` row exceeds every `than` row beyond Monte-Carlo error: with two or
    /// more replicates the paired t-interval over replicates of est(this) − est(than)
    /// lies above 0; with one replicate the intervals do not overlap (lower > upper).
    /// With `at_least`, the claim "this ≥ than": it fails only where `than` exceeds
    /// `this` beyond Monte-Carlo error (the paired interval lies below 0).
    Greater {
        /// The quantity compared.
        quantity: String,
        /// The row expected to be larger.
        this: Selector,
        /// The rows expected to be smaller.
        than: Selector,
        /// Take the `than` rows from this quantity instead.
        #[serde(default)]
        than_quantity: Option<String>,
        /// "≥" rather than ">" (molnar2023 Table 1: boot* ≥ subs* in every row).
        #[serde(default)]
        at_least: bool,
        /// Compare the rows' within-replicate interval widths (upper − lower) instead
        /// of their estimates, paired over replicates (molnar2023 Fig. 6: the
        /// learner-PDP's band is wider than the model-PDP's).
        #[serde(default)]
        widths: bool,
        /// Judge the mean of all (this, than) differences instead of each: per
        /// replicate r, d̄_r = (1/K)·Σ_k d_{k,r} over the K pairs, and the t-interval
        /// of d̄ over replicates must lie above 0 (or, with `at_least`, not below). A
        /// claim "on average over the scenarios" (molnar2023 Table 1: boot* covers
        /// more often than subs*, by 0.05 on average), whose Monte-Carlo error shrinks
        /// as 1/√K where each pair's alone cannot resolve it.
        #[serde(default)]
        pooled: bool,
    },
    /// For every selected row, the share of replicates whose own interval excludes 0
    /// (lower > 0 or upper < 0) is at least `at_least` and at most `at_most` (give
    /// one or both): a claim about the intervals one fit reports (molnar2023 Fig. 6:
    /// only ST_Slope's and ChestPainType's PFI intervals exclude 0).
    ExcludesZero {
        /// The quantity.
        quantity: String,
        /// The rows.
        #[serde(rename = "where")]
        rows: Selector,
        /// Smallest share accepted.
        #[serde(default)]
        at_least: Option<f64>,
        /// Largest share accepted.
        #[serde(default)]
        at_most: Option<f64>,
    },
    /// Every selected row's interval lies above `above` (default 0): lower > above;
    /// with `each_replicate`, every replicate's own estimate of every selected row does
    /// (watson2023 Fig. 3b: "in all trials" every AUC is above chance, 0.5).
    Positive {
        /// The quantity.
        quantity: String,
        /// The rows.
        #[serde(rename = "where")]
        rows: Selector,
        /// The bound the intervals must clear (default 0).
        #[serde(default)]
        above: f64,
        /// Ask it of each replicate's estimate (the per-replicate rows) instead of the
        /// interval of the mean.
        #[serde(default)]
        each_replicate: bool,
    },
    /// Every selected row's interval lies below `bound`: upper < bound (icefi2022
    /// Table 1: ICE FI correlates with the other importance measures at less than
    /// 0.6).
    Below {
        /// The quantity.
        quantity: String,
        /// The rows.
        #[serde(rename = "where")]
        rows: Selector,
        /// The bound the intervals must stay under.
        bound: f64,
    },
    /// Every selected row's estimate lies within `tolerance` + `plus_se`·se +
    /// `plus_sd`·sd of `value`, se being the row's Monte-Carlo standard error over
    /// replicates and sd = se·√R their sd (a paper's number: a model-fit margin plus
    /// the reproduction's own Monte-Carlo error, so the check tightens as replicates
    /// grow, plus, for a number from one fit, that fit's spread).
    Near {
        /// The quantity.
        quantity: String,
        /// The rows.
        #[serde(rename = "where")]
        rows: Selector,
        /// The expected value (e.g. a population value derived in PAPERS.md).
        value: f64,
        /// The largest |estimate − value| accepted beyond the Monte-Carlo allowance.
        tolerance: f64,
        /// Multiples of the row's Monte-Carlo se added to the tolerance (default 0).
        #[serde(default)]
        plus_se: f64,
        /// Multiples of the row's sd over replicates added to the tolerance (default
        /// 0): the spread of one fit, for a paper's number that came from a single
        /// fit and so differs from the mean over replicates by that fit's own error
        /// (watson2023 Table 1's margins of the features a model ignores).
        #[serde(default)]
        plus_sd: f64,
    },
    /// Every selected row's estimate lies within `tolerance` + `plus_se`·√(se² +
    /// se_from²) of the estimate of its `from` row: the row equal to it in every
    /// column but those `from` names, which take `from`'s values; se and se_from their
    /// Monte-Carlo standard errors over independent replicates (molnar2023 §4.3: the
    /// linear model's PD coverage "not heavily affected by increasing sample size n",
    /// the n = 1000 row against the n = 100 row).
    Unchanged {
        /// The quantity.
        quantity: String,
        /// The rows compared.
        #[serde(rename = "where")]
        rows: Selector,
        /// The values of the reference row's keys, e.g. `{ n_train: "100" }`.
        from: Selector,
        /// The largest |estimate − reference| accepted beyond the Monte-Carlo
        /// allowance.
        tolerance: f64,
        /// Multiples of the difference's Monte-Carlo se added to the tolerance.
        #[serde(default)]
        plus_se: f64,
    },
    /// In at least `share` of the replicates (e.g. shuffle splits) that have both
    /// `this` and `than` rows, every `this` row exceeds every `than` row of the same
    /// replicate and context.
    RankedAbove {
        /// The quantity.
        quantity: String,
        /// The rows expected to rank higher.
        this: Selector,
        /// The rows expected to rank lower.
        than: Selector,
        /// Share of replicates required: at least share·(replicates).
        share: f64,
    },
    /// Every cell of table `table` (its `columns`, by header; default all) that shows
    /// the paper's value equals it to the printed digits: |ours − paper| ≤ ½·10^−d
    /// with d = `decimals`, or with `significant` = s, half a unit in the paper
    /// value's s-th significant digit (0 exactly, up to 1e-12). icefi2022's tables on
    /// the paper's own forest. Measured: the largest |ours − paper| in units of that
    /// half digit (the claim holds at ≤ 1).
    PaperCells {
        /// The table's `name`.
        table: String,
        /// The columns compared, by header (default: every column).
        #[serde(default)]
        columns: Vec<String>,
        /// The paper's decimals.
        #[serde(default)]
        decimals: Option<u32>,
        /// The paper's significant digits (instead of `decimals`).
        #[serde(default)]
        significant: Option<u32>,
    },
    /// Every selected row's estimate is among the `k` largest estimates of its
    /// quantity in its context (model and grid values), over all features.
    InTop {
        /// The quantity.
        quantity: String,
        /// The rows.
        #[serde(rename = "where")]
        rows: Selector,
        /// How many top places count.
        k: usize,
    },
    /// Spearman's rank correlation over features between the estimates of `quantity`
    /// and of `reference` exceeds that between `than_quantity` and `reference`, in
    /// every context (model and grid values).
    RankAgreement {
        /// The quantity expected to agree better with the reference.
        quantity: String,
        /// The quantity expected to agree less.
        than_quantity: String,
        /// The reference ranking.
        reference: String,
    },
    /// Every selected row ranks higher (`up`, nearer 1) or lower (`down`) among the
    /// features of its context under `quantity` than under `from_quantity` (ranks of the
    /// mean over replicates, 1 = largest; e.g. "CID lowers Itching's rank relative to
    /// PFI", cid2021 §3.2).
    RankMoves {
        /// The quantity whose ranking is compared.
        quantity: String,
        /// The quantity whose ranking it is compared with.
        from_quantity: String,
        /// The rows (features).
        #[serde(rename = "where")]
        rows: Selector,
        /// `up` or `down`.
        direction: RankDirection,
    },
    /// The claim that the inner assertion does not hold (e.g. "PFI does not put X2-X4
    /// on top in most splits"); nothing selected still fails.
    Not(Box<Assertion>),
    /// The spread over replicates of the `this` rows is at most `factor` times that
    /// of the `than` rows, a spread being the root mean square of the rows' sds over
    /// replicates (molnar2023 Fig. 3: the Monte-Carlo spread of one model's PD shrinks
    /// as 1/√n with the rows averaged, and stays below the spread of refitted models).
    Spread {
        /// The quantity.
        quantity: String,
        /// The rows whose spread is the smaller.
        this: Selector,
        /// The rows it is compared with.
        than: Selector,
        /// The largest ratio of the two spreads accepted.
        factor: f64,
    },
    /// Every selected row is negligible: its interval covers 0 or |estimate| ≤ bound.
    Negligible {
        /// The quantity.
        quantity: String,
        /// The rows.
        #[serde(rename = "where")]
        rows: Selector,
        /// The largest |estimate| that still counts as negligible.
        bound: f64,
    },
    /// Along the grid key `along`, the estimate strictly decreases (or increases) in
    /// every group of the other columns (with `share`, in at least that share of the
    /// groups), each step by more than the combined standard error √(se₁² + se₂²) of
    /// the two estimates.
    Monotone {
        /// The quantities.
        quantities: Vec<String>,
        /// The rows.
        #[serde(rename = "where")]
        rows: Selector,
        /// The numeric grid key ordered along.
        along: String,
        /// `decreasing` or `increasing`.
        direction: Direction,
        /// Share of the groups that must follow the trend (default 1: every group;
        /// molnar2023 §4.3 "in most cases").
        #[serde(default = "default_share")]
        share: f64,
    },
    /// Every selected curve (PD `*_pd` from the summary, or kept ICE curves `*_ice`)
    /// has a bump inside [lower, upper]: its maximum over the interval exceeds its
    /// values at both ends of the interval by more than the combined standard error
    /// (0 for ICE curves).
    InteriorPeak(CurveInterval),
    /// On each side of [lower, upper] every selected curve's value at the grid end
    /// exceeds the curve's minimum on that side (for PD, by more than the combined
    /// standard error of the two points).
    RisesTowardsEdges(CurveInterval),
    /// Every selected curve reaches its maximum over the whole grid inside
    /// [lower, upper].
    ArgmaxWithin(CurveInterval),
    /// At least `share` of the selected curves move in `direction` from x = `from` to
    /// x = `to` (values interpolated) by more than `by` and, for PD, by more than the
    /// combined standard error.
    Trend {
        /// The quantity.
        quantity: String,
        /// The curves.
        #[serde(rename = "where")]
        rows: Selector,
        /// ICE only: which rows' curves.
        #[serde(default)]
        rows_with: Option<RowFilter>,
        /// Start of the comparison.
        from: f64,
        /// End of the comparison.
        to: f64,
        /// `increasing` or `decreasing`.
        direction: Direction,
        /// Share of curves that must follow the trend (default 1).
        #[serde(default = "default_share")]
        share: f64,
        /// The smallest move that counts (default 0): e.g. more than one tree's vote
        /// of a forest's predicted probability, so that a curve stepping by one of 500
        /// trees (0.002) does not count as rising (icefi2022 App. B).
        #[serde(default)]
        by: f64,
    },
    /// Every selected curve varies: its range max − min exceeds `bound` and (for PD)
    /// the combined standard error of its highest and lowest points.
    Varies {
        /// The quantity.
        quantity: String,
        /// The curves.
        #[serde(rename = "where")]
        rows: Selector,
        /// Smallest range that counts.
        #[serde(default)]
        bound: f64,
    },
    /// The selected ICE curves differ in shape, not only in level: after subtracting
    /// each curve's own mean, the standard deviation across curves exceeds `bound` at
    /// some grid point.
    ShapesDiffer {
        /// The ICE quantity.
        quantity: String,
        /// The curves (one feature and model).
        #[serde(rename = "where")]
        rows: Selector,
        /// Smallest spread that counts.
        bound: f64,
    },
    /// Two PD curves agree point by point (matched grid index):
    /// max |a − b| ≤ tolerance · (max a − min a).
    SimilarCurves {
        /// The PD quantity.
        quantity: String,
        /// The first curve.
        this: Selector,
        /// The second curve.
        that: Selector,
        /// Relative tolerance.
        tolerance: f64,
    },
    /// Every selected ICE curve stays below the peak of the PD of its feature and
    /// model: its maximum, or with `at_own_value` its value at the row's own x (the
    /// row's unperturbed prediction); with `within`, both maxima are taken over that
    /// interval.
    BelowPdPeak {
        /// The ICE quantity.
        quantity: String,
        /// The PD quantity.
        pd: String,
        /// The curves.
        #[serde(rename = "where")]
        rows: Selector,
        /// Which rows' curves.
        #[serde(default)]
        rows_with: Option<RowFilter>,
        /// Compare the value at the row's own x instead of the curve's maximum.
        #[serde(default)]
        at_own_value: bool,
        /// Compare both maxima over this interval only.
        #[serde(default)]
        within: Option<(f64, f64)>,
    },
}

impl Assertion {
    /// The quantities the assertion reads.
    pub fn quantities(&self) -> Vec<&String> {
        match self {
            Assertion::Greater {
                quantity,
                than_quantity: Some(other),
                ..
            } => vec![quantity, other],
            Assertion::Greater { quantity, .. }
            | Assertion::Positive { quantity, .. }
            | Assertion::Below { quantity, .. }
            | Assertion::ExcludesZero { quantity, .. }
            | Assertion::Near { quantity, .. }
            | Assertion::Unchanged { quantity, .. }
            | Assertion::RankedAbove { quantity, .. }
            | Assertion::InTop { quantity, .. }
            | Assertion::Negligible { quantity, .. }
            | Assertion::Spread { quantity, .. }
            | Assertion::Trend { quantity, .. }
            | Assertion::Varies { quantity, .. }
            | Assertion::ShapesDiffer { quantity, .. }
            | Assertion::SimilarCurves { quantity, .. }
            | Assertion::InteriorPeak(CurveInterval { quantity, .. })
            | Assertion::ArgmaxWithin(CurveInterval { quantity, .. })
            | Assertion::RisesTowardsEdges(CurveInterval { quantity, .. }) => vec![quantity],
            Assertion::RankAgreement {
                quantity,
                than_quantity,
                reference,
            } => vec![quantity, than_quantity, reference],
            Assertion::Monotone { quantities, .. } => quantities.iter().collect(),
            Assertion::RankMoves {
                quantity,
                from_quantity,
                ..
            } => vec![quantity, from_quantity],
            Assertion::Not(inner) => inner.quantities(),
            Assertion::BelowPdPeak { quantity, pd, .. } => vec![quantity, pd],
            // The quantities of the table's columns, from the summary alone.
            Assertion::PaperCells { .. } => Vec::new(),
        }
    }
}

/// Curves (PD `*_pd` from the summary, or kept ICE curves `*_ice`) and an interval
/// of the grid, as the curve-shape assertions take them.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CurveInterval {
    /// The quantity.
    pub quantity: String,
    /// The curves.
    #[serde(rename = "where")]
    pub rows: Selector,
    /// ICE only: which rows' curves.
    #[serde(default)]
    pub rows_with: Option<RowFilter>,
    /// Lower end.
    pub lower: f64,
    /// Upper end.
    pub upper: f64,
}

/// Keeps the ICE curves of rows of class `class`, and/or rows whose original value
/// of `feature` has |value| below `abs_below` and/or above `abs_above`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RowFilter {
    /// The row's class.
    #[serde(default)]
    pub class: Option<usize>,
    /// The feature whose original value is tested.
    #[serde(default)]
    pub feature: Option<String>,
    /// Keep rows with |value| < this.
    #[serde(default)]
    pub abs_below: Option<f64>,
    /// Keep rows with |value| > this.
    #[serde(default)]
    pub abs_above: Option<f64>,
}

/// Direction of a change of rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RankDirection {
    /// To a higher place (a smaller rank number).
    Up,
    /// To a lower place (a larger rank number).
    Down,
}

/// Direction of a monotone trend.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Each value below the previous one.
    Decreasing,
    /// Each value above the previous one.
    Increasing,
}

/// Tolerance of the regression check: |new − old| ≤ abs + rel·|old| for every number.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Tolerance {
    /// Absolute part.
    pub abs: f64,
    /// Relative part.
    pub rel: f64,
}

impl Default for Tolerance {
    /// Same code, seed and scale give the same numbers up to floating-point
    /// differences between machines (SIMD paths of the linear algebra), far below any
    /// Monte-Carlo error.
    fn default() -> Self {
        Self {
            abs: 1e-6,
            rel: 1e-6,
        }
    }
}
