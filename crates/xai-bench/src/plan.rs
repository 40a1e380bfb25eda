//! Loading an experiment: parse, validate, and expand scales and grid into variants.
//!
//! Overrides (a scale's `set:` and the `grid:`) are applied to the YAML tree before it
//! is turned into the typed [`ExperimentSpec`], so any field can vary. A key names a
//! field by its name or by a dotted suffix of its path (`noise_var`,
//! `correlated_gaussian.noise_var`) and must match exactly one field.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::checked::{CheckedMethods, Known, check_level};
use crate::data_section::DataRefusal;
use crate::error::{BenchError, Result, io_err};
use crate::kinds::out_of_range;
pub use crate::output::Scale;
use crate::spec::{ExperimentSpec, ScaleSpec};
use crate::table::format_number;
use xai_models::LearnerKind;
use xai_models::external::Supplied;

/// One cell of the grid: its labels and its fully resolved spec.
#[derive(Debug, Clone, PartialEq)]
pub struct Variant {
    /// (grid key, value as written in the outputs), in key order.
    pub labels: Vec<(String, String)>,
    /// The spec with the scale's and this cell's overrides applied.
    pub spec: ExperimentSpec,
    /// The same as YAML values (the experiment's tree with the overrides set): what
    /// random streams are keyed on ([`Variant::truth_identity`]), never the typed spec's
    /// `Debug` text, so a field added to a spec type with its default leaves every
    /// stream where it was.
    pub tree: Value,
    /// The variant whose random streams this one draws from: itself, or with
    /// `shared_streams` the first variant with the same values of the other keys.
    pub stream: usize,
}

impl Variant {
    /// "noise_var=0.5, ..." (or "base" when there is no grid).
    pub fn describe(&self) -> String {
        if self.labels.is_empty() {
            return "base".into();
        }
        self.labels
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The YAML node of method `m`: the settings under its name (`Null` if absent).
    pub fn method_node(&self, m: usize) -> &Value {
        self.tree["methods"][m]
            .as_object()
            .and_then(|o| o.values().next())
            .unwrap_or(&Value::Null)
    }

    /// The identity of a Monte-Carlo truth of model `model`: the canonical JSON (keys
    /// sorted at every level) of the YAML values it depends on: the DGP, the training
    /// size as resolved, the learner, and `method_key`, what the method's
    /// [`crate::methods::Method::truth_key`] picks from its own node. Equal identities
    /// share one truth, its stream and its file.
    pub fn truth_identity(&self, model: &str, method_key: Value) -> String {
        truth_identity(
            &self.tree["data"]["dgp"],
            self.spec.data.n_train,
            &self.tree["models"][model],
            method_key,
        )
    }
}

/// The identity of a Monte-Carlo truth: the canonical JSON (keys sorted at every
/// level) of the YAML values it depends on: the DGP's node, the training size, the
/// learner's node and `method_key`
/// ([`crate::methods::Method::truth_key`]). Equal identities share one truth, its
/// stream and its file, whichever front end asks.
pub fn truth_identity(dgp: &Value, n_train: usize, learner: &Value, method_key: Value) -> String {
    serde_json::json!({
        "dgp": dgp,
        "n_train": n_train,
        "learner": learner,
        "method": method_key,
    })
    .to_string()
}

/// A run asked of the engine: the experiment, its scale, the threads to run it on
/// (0: every core) and whether long work shows progress on standard error. What
/// travels together through the runner and the commands.
#[derive(Debug, Clone, Copy)]
pub struct Job<'a> {
    /// The experiment.
    pub exp: &'a Experiment,
    /// Its scale.
    pub scale: Scale,
    /// Threads of the run's pool; 0 for every core.
    pub threads: usize,
    /// Show progress (a bar on a terminal, lines in a log).
    pub progress: bool,
    /// A front end's request to stop (its Ctrl-C), checked between blocks of a cell's
    /// work; none for the CLI, whose Ctrl-C ends the process.
    pub stop: Option<&'a xai_core::stop::Stop>,
}

impl<'a> Job<'a> {
    /// `exp` at `scale` on `threads` threads, with `progress` shown or not.
    pub fn new(exp: &'a Experiment, scale: Scale, threads: usize, progress: bool) -> Self {
        Job {
            exp,
            scale,
            threads,
            progress,
            stop: None,
        }
    }

    /// The same job on one thread without progress (a probe, a merge).
    pub fn quiet(exp: &'a Experiment, scale: Scale) -> Self {
        Job::new(exp, scale, 1, false)
    }
}

/// The most variants a grid may make: each holds the experiment's YAML tree and spec
/// in memory (a few kB), so 10⁵ stay under a GB; the largest study here has 16.
const MAX_VARIANTS: usize = 100_000;

/// A loaded, validated experiment file.
#[derive(Debug, Clone)]
pub struct Experiment {
    /// Where it was read from.
    pub path: PathBuf,
    /// Its text (hashed into the manifest).
    pub text: String,
    /// The spec as written.
    pub spec: ExperimentSpec,
    tree: Value,
    /// The learners a front end supplied for the `external` models, by name.
    supplied: BTreeMap<String, Supplied>,
    /// The sha256 of each table of one's own its variants read (`data: dataset:
    /// table:`), by the file as written.
    tables: BTreeMap<String, String>,
}

impl Experiment {
    /// Reads and validates `path`; every variant of every scale is built and checked,
    /// so a bad override fails here, before any work.
    pub fn load(path: &Path) -> Result<Experiment> {
        let text = std::fs::read_to_string(path).map_err(io_err(path))?;
        Self::from_text(path, text)
    }

    /// Like [`Experiment::load`] for text already read (`path` is used in messages).
    pub fn from_text(path: &Path, text: String) -> Result<Experiment> {
        Self::from_text_supplied(path, text, BTreeMap::new())
    }

    /// Like [`Experiment::from_text`], with the learners of its `external` models
    /// supplied by a front end (a Python estimator), by name: every variant's models
    /// get them before validation, which fails on an `external` model not supplied.
    pub fn from_text_supplied(
        path: &Path,
        text: String,
        supplied: BTreeMap<String, Supplied>,
    ) -> Result<Experiment> {
        let spec_err = |message: String| BenchError::Spec {
            file: path.to_path_buf(),
            message,
        };
        let mut tree: Value =
            read_yaml(&text).map_err(|e| spec_err(yaml_message(path, &text, e)))?;
        let runs_of = tree
            .get("runs_of")
            .and_then(Value::as_str)
            .map(String::from);
        let spec: ExperimentSpec = match runs_of {
            Some(source) => {
                tree = with_runs_of(path, &text, tree, &source)?;
                serde_json::from_value(tree.clone())
                    .map_err(|e| spec_err(format!("with the runs of `{source}`: {e}")))?
            }
            None => read_yaml(&text).map_err(|e| spec_err(yaml_message(path, &text, e)))?,
        };
        let mut spec = spec;
        spec.models.values_mut().for_each(|m| m.supply(&supplied));
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        if spec.id != stem && !stem.is_empty() {
            return Err(spec_err(format!(
                "{}id `{}` differs from the file name `{stem}.yaml`; make them equal",
                at_line(&text, "id"),
                spec.id
            )));
        }
        let exp = Experiment {
            path: path.to_path_buf(),
            text,
            spec,
            tree,
            supplied,
            tables: BTreeMap::new(),
        };
        // The DGP as written, though a grid may replace it in every variant: a typo
        // there is an error too (and its formula's place is exact, read from the text).
        if let Some(Err(e)) = exp.spec.data.dgp.as_ref().map(|d| d.dgp().validate()) {
            return Err(exp.err(match e {
                xai_synth::DgpError::Formula { .. } => e.to_string(),
                _ => format!("{}{e}", at_line(&exp.text, e.param())),
            }));
        }
        let mut tables = BTreeMap::new();
        for scale in [Scale::Smoke, Scale::Ci, Scale::Paper] {
            for v in exp.variants(scale)? {
                let table = v.spec.data.dataset.as_ref().and_then(|d| d.table.as_ref());
                if let Some(t) = table
                    && let std::collections::btree_map::Entry::Vacant(slot) =
                        tables.entry(t.file.display().to_string())
                {
                    let sha = crate::datasets::OwnTable::sha256(&t.path(exp.dir()))
                        .map_err(|e| exp.err(format!("{}{e}", at_line(&exp.text, "table"))))?;
                    slot.insert(sha);
                }
            }
        }
        Ok(Experiment { tables, ..exp })
    }

    /// The directory of the experiment file, against which a table of one's own is
    /// found.
    pub fn dir(&self) -> &Path {
        self.path.parent().unwrap_or(Path::new("."))
    }

    /// The sha256 of each table of one's own the experiment reads, by its file as
    /// written (recorded in the manifest; part of [`Experiment::computation`], so a
    /// changed table is never resumed from another's cells).
    pub fn tables(&self) -> &BTreeMap<String, String> {
        &self.tables
    }

    /// The experiment's id.
    pub fn id(&self) -> &str {
        &self.spec.id
    }

    /// The experiment whose runs these are: the one `runs_of` names, else this one.
    /// Cells live under `runs/<it>/<scale>/` and their run key names it, so that
    /// experiments drawing on one computation share, and resume, one set of cells.
    pub fn computing_id(&self) -> &str {
        self.spec.runs_of.as_deref().unwrap_or(self.id())
    }

    /// sha256 of the fields that determine the numbers ([`COMPUTATION_KEYS`]):
    /// experiments with equal hashes compute equal runs.
    pub fn computation(&self) -> String {
        let fields = self.computation_fields();
        format!("{:x}", Sha256::digest(Value::Object(fields).to_string()))
    }

    /// The fields that determine the numbers ([`COMPUTATION_KEYS`]), as resolved
    /// (with `runs_of`, the source experiment's).
    pub fn computation_fields(&self) -> serde_json::Map<String, Value> {
        let mut fields: serde_json::Map<String, Value> = COMPUTATION_KEYS
            .iter()
            .filter_map(|&k| Some((k.to_string(), self.tree.get(k)?.clone())))
            .collect();
        if !self.tables.is_empty() {
            fields.insert(
                "tables".into(),
                serde_json::to_value(&self.tables).unwrap_or_default(),
            );
        }
        fields
    }

    /// The replicates and overrides of `scale`.
    pub fn scale(&self, scale: Scale) -> &ScaleSpec {
        match scale {
            Scale::Smoke => &self.spec.scales.smoke,
            Scale::Ci => &self.spec.scales.ci,
            Scale::Paper => &self.spec.scales.paper,
        }
    }

    /// The grid keys, in the order of the output columns.
    pub fn grid_keys(&self) -> Vec<String> {
        self.spec.grid.keys().cloned().collect()
    }

    /// Every cell of the grid at `scale`, in lexicographic order of the grid keys'
    /// value indices (the first key varies slowest).
    pub fn variants(&self, scale: Scale) -> Result<Vec<Variant>> {
        let mut base = self.tree.clone();
        for (key, value) in &self.scale(scale).set {
            self.set(
                &mut base,
                key,
                value,
                &format!("scales.{}.set", scale.name()),
            )?;
        }
        let mut grid = self.spec.grid.clone();
        for (key, values) in &self.scale(scale).grid {
            let Some(slot) = grid.get_mut(key) else {
                return Err(self.err(format!(
                    "{}scales.{}.grid names `{key}`, which `grid:` does not have; a scale can \
                     only replace the values of an existing grid key",
                    at_line(&self.text, key),
                    scale.name()
                )));
            };
            *slot = values.clone();
        }
        let variants = self.cells(&base, &grid)?;
        for variant in &variants {
            self.validate_with(variant, None)?;
        }
        self.validate_selectors(&variants)?;
        Ok(variants)
    }

    /// Every selector of the checks, plots and tables (`where:`, `this:`, `than:`,
    /// `from:`, `that:`) names output columns (a grid key, `model`, `feature`, `x`,
    /// `quantity`) and values some variant has: a grid value's label, a model, a
    /// feature of the data (where known before the run). A typo would otherwise
    /// select no rows and show only after the whole run.
    fn validate_selectors(&self, variants: &[Variant]) -> Result<()> {
        let mut known: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut add = |k: &str, v: String| {
            let vals = known.entry(k.to_string()).or_default();
            if !vals.contains(&v) {
                vals.push(v);
            }
        };
        let mut features_known = true;
        for v in variants {
            for (k, l) in &v.labels {
                add(k, l.clone());
            }
            for m in v.spec.models.keys() {
                add("model", m.clone());
            }
            match &v.spec.data.dgp {
                Some(d) => d
                    .dgp()
                    .feature_names()
                    .into_iter()
                    .for_each(|f| add("feature", f)),
                None => features_known = false,
            }
        }
        if !features_known {
            known.remove("feature");
        }
        let mut selectors = Vec::new();
        for part in ["checks", "plots", "tables"] {
            collect_selectors(&self.tree[part], &mut selectors);
        }
        for (field, sel) in selectors {
            for (key, want) in sel {
                if matches!(key.as_str(), "x" | "quantity") {
                    continue;
                }
                let columns = || {
                    let mut c: Vec<&str> = variants
                        .first()
                        .map(|v| v.labels.iter().map(|(k, _)| k.as_str()).collect())
                        .unwrap_or_default();
                    c.extend(["model", "feature", "x", "quantity"]);
                    c.join(", ")
                };
                if key != "model"
                    && key != "feature"
                    && !variants
                        .iter()
                        .any(|v| v.labels.iter().any(|(k, _)| k == key))
                {
                    return Err(self.err(format!(
                        "{}`{field}` selects on `{key}`, which is no column of the outputs; the columns are {}",
                        at_line(&self.text, key),
                        columns()
                    )));
                }
                let Some(have) = known.get(key) else {
                    continue;
                };
                let wanted: Vec<Value> = match want {
                    Value::Array(items) => items.clone(),
                    one => vec![one.clone()],
                };
                for w in wanted {
                    let text = label(&w);
                    let numeric = |h: &String| {
                        w.as_f64()
                            .is_some_and(|n| h.parse::<f64>().is_ok_and(|h| h == n))
                    };
                    if !have.iter().any(|h| *h == text || numeric(h)) {
                        return Err(self.err(format!(
                            "{}`{field}` selects `{key}: {text}`, which no variant has; the values of `{key}` are {}",
                            at_line(&self.text, &text),
                            have.join(", ")
                        )));
                    }
                }
            }
        }
        Ok(())
    }

    /// Every quantity that some cell of the grid reports: a grid may change a method's
    /// settings (learner inference's resampling) and with them its quantities, and a
    /// check or plot may name a quantity of some cells only.
    fn grid_quantities(&self) -> Result<Vec<String>> {
        let mut out: Vec<String> = Vec::new();
        for v in self.cells(&self.tree, &self.spec.grid)? {
            for q in v.spec.methods.iter().flat_map(|m| m.method().quantities()) {
                if !out.contains(&q) {
                    out.push(q);
                }
            }
        }
        Ok(out)
    }

    /// The cells of `grid` (the experiment's, or a scale's version of it) over the
    /// experiment tree `base`, unvalidated.
    fn cells(&self, base: &Value, grid: &BTreeMap<String, Vec<Value>>) -> Result<Vec<Variant>> {
        let keys = self.grid_keys();
        let sizes: Vec<usize> = keys.iter().map(|k| grid[k].len()).collect();
        if let Some(k) = keys.iter().find(|k| grid[*k].is_empty()) {
            return Err(self.err(format!(
                "{}grid key `{k}` has no values",
                at_line(&self.text, k)
            )));
        }
        let total = sizes
            .iter()
            .try_fold(1usize, |n, &k| n.checked_mul(k))
            .filter(|&n| n <= MAX_VARIANTS)
            .ok_or_else(|| {
                self.err(format!(
                    "{}the grid's {} keys make more than {MAX_VARIANTS} variants; split the \
                     study into several experiments",
                    at_line(&self.text, "grid"),
                    keys.len()
                ))
            })?;
        let mut out = Vec::with_capacity(total);
        for cell in 0..total {
            let mut tree = base.clone();
            let mut labels = Vec::new();
            let mut rest = cell;
            let mut idx = vec![0; keys.len()];
            for k in (0..keys.len()).rev() {
                idx[k] = rest % sizes[k];
                rest /= sizes[k];
            }
            for (k, key) in keys.iter().enumerate() {
                let value = &grid[key][idx[k]];
                match bundle(value) {
                    Some((_, fields)) => {
                        for (field, v) in fields {
                            self.set(&mut tree, field, v, &format!("grid `{key}`'s set"))?;
                        }
                    }
                    None => self.set(&mut tree, key, value, "grid")?,
                }
                labels.push((key.clone(), grid_label(value)));
            }
            self.ranges(&tree)?;
            let mut spec: ExperimentSpec = serde_json::from_value(tree.clone()).map_err(|e| {
                self.err(format!(
                    "{}the override {} does not fit: {e}",
                    at_line(&self.text, keys.first().map_or("scales", |k| k.as_str())),
                    labels
                        .iter()
                        .map(|(k, v)| format!("{k} = {v}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })?;
            spec.models
                .values_mut()
                .for_each(|m| m.supply(&self.supplied));
            if let Some(dgp) = &spec.data.dgp {
                let truth: std::sync::Arc<dyn xai_models::oracle::Truth> =
                    std::sync::Arc::new(crate::oracle::DgpTruth(dgp.clone()));
                spec.models
                    .values_mut()
                    .for_each(|m| m.supply_truth(&truth));
            }
            self.resolve_sizes(&mut spec)?;
            let own = |(k, _): &&(String, String)| !self.spec.shared_streams.contains(k);
            let stream = out
                .iter()
                .position(|w: &Variant| w.labels.iter().filter(own).eq(labels.iter().filter(own)))
                .unwrap_or(out.len());
            out.push(Variant {
                labels,
                spec,
                tree,
                stream,
            });
        }
        Ok(out)
    }

    /// Sets n_train = ⌊train_fraction·n⌋ and n_test = n − n_train where `data.n_rows`
    /// is given; refuses it beside `n_train`/`n_test`, and either half of the pair alone.
    fn resolve_sizes(&self, spec: &mut ExperimentSpec) -> Result<()> {
        let d = &mut spec.data;
        let fail = |key: &str, m: &str| Err(self.err(format!("{}{m}", at_line(&self.text, key))));
        match (d.n_rows, d.train_fraction) {
            (None, None) => Ok(()),
            (Some(_), _) if d.n_train != 0 || d.n_test != 0 => fail(
                "n_train",
                "give either `n_rows` (with `train_fraction`) or `n_train` and `n_test`, not both",
            ),
            (Some(n), Some(f)) if f > 0.0 && f < 1.0 => {
                d.n_train = (f * n as f64).floor() as usize;
                d.n_test = n - d.n_train;
                Ok(())
            }
            (Some(_), Some(f)) => fail(
                "train_fraction",
                &format!("train_fraction must lie in (0, 1), got {f}"),
            ),
            (Some(_), None) => fail(
                "n_rows",
                "`n_rows` needs `train_fraction`, the training share of its rows (e.g. 0.632)",
            ),
            (None, Some(_)) => fail(
                "train_fraction",
                "`train_fraction` splits `n_rows` rows: give `n_rows` too, or `n_train` and `n_test`",
            ),
        }
    }

    /// Every number of a variant's `dgp`, `models` and `methods` within the range its
    /// setting declares ([`crate::kinds::out_of_range`]); a refusal names the setting's
    /// path, at its line.
    fn ranges(&self, tree: &Value) -> Result<()> {
        let at = |e: BenchError| match e {
            BenchError::Setting { field, message } => {
                let last = field.rsplit(['.', '[']).next().unwrap_or(&field);
                let last = last.split(' ').next().unwrap_or(last);
                self.err(format!("{}{field}: {message}", at_line(&self.text, last)))
            }
            other => other,
        };
        if let Some(dgp) = tree.pointer("/data/dgp") {
            out_of_range::<xai_synth::DgpSpec>(dgp, "data.dgp").map_err(at)?;
        }
        let models = tree.get("models").and_then(Value::as_object);
        for (name, m) in models.into_iter().flatten() {
            out_of_range::<xai_models::LearnerSpec>(m, &format!("models.{name}")).map_err(at)?;
        }
        let methods = tree.get("methods").and_then(Value::as_array);
        for (i, m) in methods.into_iter().flatten().enumerate() {
            out_of_range::<crate::methods::MethodSpec>(m, &format!("methods[{i}]")).map_err(at)?;
        }
        Ok(())
    }

    fn err(&self, message: String) -> BenchError {
        BenchError::Spec {
            file: self.path.clone(),
            message,
        }
    }

    /// An error of replicate `replicate` of `variant` caused by the YAML's `field` (a
    /// shift whose noise makes a value infinite), at that field's line.
    pub fn cell_error(
        &self,
        variant: &Variant,
        replicate: usize,
        field: &str,
        message: String,
    ) -> BenchError {
        self.err(format!(
            "{}{message} (variant {}, replicate {replicate})",
            at_line(&self.text, field),
            variant.describe()
        ))
    }

    /// The DGP's failure to draw replicate `replicate` of `variant` (a formula that drew
    /// a value that is not finite), located in this experiment's file.
    pub fn sample_error(
        &self,
        variant: &Variant,
        replicate: usize,
        mut e: xai_synth::DgpError,
    ) -> BenchError {
        e.locate_formula_in(&self.text);
        BenchError::Sample {
            file: self.path.clone(),
            variant: variant.describe(),
            replicate,
            message: e.to_string(),
        }
    }

    /// Sets the unique field matching `key` in `tree` (outside the sections that
    /// hold overrides, checks, plots and tables) to `value`.
    fn set(&self, tree: &mut Value, key: &str, value: &Value, section: &str) -> Result<()> {
        let suffix: Vec<&str> = key.split('.').collect();
        let mut found = Vec::new();
        find_paths(tree, &mut Vec::new(), &suffix, &mut found);
        match found.len() {
            1 => {
                let mut node = tree;
                for part in &found[0] {
                    node = match node {
                        Value::Array(items) => &mut items[part.parse::<usize>().expect("index")],
                        other => other.get_mut(part).expect("path just found"),
                    };
                }
                *node = value.clone();
                Ok(())
            }
            0 => Err(self.err(format!(
                "{}{section} key `{key}` matches no field of the experiment; use a field name \
                 such as `n_train` or a dotted path such as `correlated_gaussian.noise_var`",
                at_line(&self.text, key)
            ))),
            _ => Err(self.err(format!(
                "{}{section} key `{key}` matches several fields ({}); use a longer dotted path",
                at_line(&self.text, key),
                found
                    .iter()
                    .map(|p| p.join("."))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        }
    }

    /// Checks the experiment against the loaded dataset: feature references against
    /// its names, sizes (e.g. KSG's k < n_train) against its rows, and what each
    /// method needs of a model against its feature kinds and target.
    pub fn check_against_data(&self, variant: &Variant, data: &xai_core::Dataset) -> Result<()> {
        self.validate_with(variant, Some(data)).map(|_| ())
    }

    /// The methods of `variant`, checked against its data (`loaded`, its dataset or
    /// shuffle-split sample, if it has one) for a run: what its cells compute.
    pub fn checked_methods(
        &self,
        variant: &Variant,
        loaded: Option<&xai_core::Dataset>,
    ) -> Result<CheckedMethods> {
        self.validate_with(variant, loaded)
    }

    /// Checks, before any work, that `in_flight` replicates of `variant` at once fit in
    /// the memory available ([`crate::memory::check`]); `loaded` is the variant's
    /// dataset or shuffle-split sample, if it has one. The error names the field at
    /// fault and the bytes.
    pub fn check_memory(
        &self,
        variant: &Variant,
        loaded: Option<&xai_core::Dataset>,
        in_flight: usize,
    ) -> Result<()> {
        let s = &variant.spec;
        let features = match (&s.data.dgp, loaded) {
            (Some(dgp), _) => dgp.dgp().feature_names().len(),
            (None, Some(d)) => d.n_features(),
            (None, None) => return Ok(()),
        };
        let rows = loaded
            .filter(|_| s.data.dataset.is_some())
            .map(|d| d.n_rows());
        let Some((n_train, n_test)) = s.data.replicate_sizes(rows) else {
            return Ok(());
        };
        crate::memory::check(
            &s.methods,
            &s.models,
            (n_train, n_test, features),
            in_flight,
        )
        .map_err(|e| self.at_field(variant, &e.field, e.message))
    }

    /// Checks what types cannot: positive sizes, each method's settings, known
    /// quantity names, feature names and the memory a run needs, against what is
    /// known: a DGP's own names and sizes, or for a dataset the `loaded` data (its
    /// names, rows, feature kinds and target), checked again at run time with
    /// [`Experiment::check_against_data`].
    fn validate_with(
        &self,
        v: &Variant,
        loaded: Option<&xai_core::Dataset>,
    ) -> Result<CheckedMethods> {
        let names = self.data_features(v, loaded)?;
        self.validate_setup(v)?;
        let methods = self.validate_methods(v, loaded, names.as_deref())?;
        self.validate_outputs(
            v,
            names.as_deref(),
            (methods.quantities(), methods.curve_quantities()),
        )?;
        Ok(methods)
    }

    /// The error at `field`'s line, naming the variant.
    fn at_field(&self, v: &Variant, field: &str, msg: String) -> BenchError {
        self.err(format!(
            "{}{msg} (variant {})",
            at_line(&self.text, field),
            v.describe()
        ))
    }

    /// The data's feature names where known before any work (a DGP's, or a loaded
    /// dataset's), after the `data:` section checked itself ([`crate::spec::DataSpec::check`]); its
    /// refusal at its field's line (a formula's at its own line and column).
    fn data_features(
        &self,
        v: &Variant,
        loaded: Option<&xai_core::Dataset>,
    ) -> Result<Option<Vec<String>>> {
        v.spec
            .data
            .check(&v.spec.models, loaded)
            .map_err(|refusal| match refusal {
                DataRefusal::Field { field, message } => self.at_field(v, &field, message),
                DataRefusal::Formula(mut m) => {
                    m.locate_formula_in(&self.text);
                    self.err(format!("{m}\n(variant {})", v.describe()))
                }
                DataRefusal::Registry(e) => e,
            })
    }

    /// Checks the grid, scales, level and models (the data's options checked
    /// themselves against the models in [`crate::spec::DataSpec::check`]).
    fn validate_setup(&self, v: &Variant) -> Result<()> {
        let s = &v.spec;
        let fail = |field: &str, msg: String| Err(self.at_field(v, field, msg));
        if let Some(k) = s.shared_streams.iter().find(|k| !s.grid.contains_key(*k)) {
            return fail(
                "shared_streams",
                format!("`{k}` in shared_streams is not a grid key"),
            );
        }
        for scale in [&s.scales.smoke, &s.scales.ci, &s.scales.paper] {
            if scale.replicates == 0 {
                return fail("replicates", "replicates must be at least 1".into());
            }
        }
        if let Err(e) = check_level(s.level) {
            return fail(&e.field, e.message);
        }
        if s.models.is_empty() {
            return fail("models", "list at least one model under `models:`".into());
        }
        for (name, learner) in &s.models {
            if let Err(m) = learner.validate() {
                return fail(name, format!("model `{name}`: {m}"));
            }
        }
        Ok(())
    }

    /// Checks every method against what is known before it
    /// ([`CheckedMethods::check`]), its refusal at its field's line.
    fn validate_methods(
        &self,
        v: &Variant,
        loaded: Option<&xai_core::Dataset>,
        names: Option<&[String]>,
    ) -> Result<CheckedMethods> {
        let s = &v.spec;
        let known = Known {
            feature_names: names,
            sizes: s.data.replicate_sizes(loaded.map(|d| d.n_rows())),
            models: &s.models,
            dgp: s.data.dgp.as_ref(),
            loaded,
        };
        CheckedMethods::check(&s.methods, &known)
            .map_err(|(_, e)| self.at_field(v, &e.field, e.message))
    }

    /// Checks the plots, tables and checks against the quantities and curves the
    /// methods report.
    fn validate_outputs(
        &self,
        v: &Variant,
        names: Option<&[String]>,
        (quantities, curve_quantities): (&[String], &[String]),
    ) -> Result<()> {
        let s = &v.spec;
        let fail = |field: &str, msg: String| Err(self.at_field(v, field, msg));
        let in_grid = match s.grid.is_empty() {
            true => Vec::new(),
            false => self.grid_quantities()?,
        };
        let grid_labels = grid_labels(s);
        let plot_plan = plot_plan(
            s,
            &grid_labels,
            names,
            (quantities, &in_grid, curve_quantities),
        );
        let at_field = |e: crate::results::Invalid| fail(&e.field, e.message);
        let known = |q: &String, field: &str| plot_plan.known(q, field).or_else(at_field);
        let grid_or_model = |k: &String| plot_plan.grid_or_model(k).or_else(at_field);
        for p in s.plots.iter().map(crate::plots::PlotSpec::kind) {
            if p.companion() && (p.title().is_none() || !s.has_paper_figure()) {
                return fail(
                    p.name(),
                    format!(
                        "plot `{}` is marked `companion: true`: a companion shows what the \
                         paper's figure does not, beside a figure of the paper; give it a \
                         `title:` and the experiment a paper figure (or drop `companion`)",
                        p.name()
                    ),
                );
            }
            if s.has_paper_figure() && p.name() != s.figure_stem() && p.title().is_none() {
                return fail(
                    p.name(),
                    format!(
                        "plot `{}` is a companion to {} (`{}`): give it a `title:` saying what it shows",
                        p.name(),
                        s.figure,
                        s.figure_stem()
                    ),
                );
            }
            for (key, value) in p.at() {
                if !grid_labels.get(key).is_some_and(|l| l.contains(value)) {
                    return fail(
                        "at",
                        format!(
                            "plot `{}`: `at: {{ {key}: {value} }}` names no grid value (grid: {})",
                            p.name(),
                            grid_labels
                                .iter()
                                .map(|(k, l)| format!("{k}: {}", l.join(", ")))
                                .collect::<Vec<_>>()
                                .join("; ")
                        ),
                    );
                }
            }
            if let Some(k) = p.replicate() {
                if !s.tidy {
                    return fail(
                        "replicate",
                        "`replicate:` draws one replicate's own intervals from the tidy rows; remove `tidy: false`".into(),
                    );
                }
                let fewest = [&s.scales.smoke, &s.scales.ci, &s.scales.paper]
                    .iter()
                    .map(|sc| sc.replicates)
                    .min()
                    .unwrap_or(0);
                if k >= fewest {
                    return fail(
                        "replicate",
                        format!(
                            "`replicate: {k}` names no replicate at every scale (replicates are numbered from 0; the smallest scale has {fewest})"
                        ),
                    );
                }
            }
            p.validate(&plot_plan).or_else(at_field)?;
        }
        for t in &s.tables {
            // A table may also have a row per feature (watson2023 Table 1).
            for k in t.rows.iter().filter(|k| *k != "feature") {
                grid_or_model(k)?;
            }
            for c in &t.columns {
                known(&c.quantity, &c.quantity)?;
            }
        }
        for c in &s.checks {
            for q in c.assert.kind().quantities() {
                if !curve_quantities.contains(q) {
                    known(q, q)?;
                }
            }
            if let Err(e) = c.validate(&s.tables) {
                return fail(&e.field, e.message);
            }
            if let Some(crate::checks::Deviation::PerScale(by)) = &c.expected_to_differ
                && let Some(bad) = by.keys().find(|k| Scale::parse(k).is_err())
            {
                return Err(self.err(format!(
                    "{}expected_to_differ names the scale `{bad}`; the scales are smoke, ci \
                     and paper",
                    at_line(&self.text, bad)
                )));
            }
        }
        Ok(())
    }
}

/// The labels of each grid key's values, as plots name panels.
fn grid_labels(spec: &ExperimentSpec) -> BTreeMap<String, Vec<String>> {
    spec.grid
        .iter()
        .map(|(k, values)| (k.clone(), values.iter().map(grid_label).collect()))
        .collect()
}

/// The plan `spec`'s plots are checked against: `features` of the data where known,
/// the `quantities` and `curves` its methods report, `grid_quantities` a grid names,
/// and `grid` from [`grid_labels`].
fn plot_plan<'a>(
    spec: &'a ExperimentSpec,
    grid: &'a BTreeMap<String, Vec<String>>,
    features: Option<&'a [String]>,
    (quantities, grid_quantities, curves): (&'a [String], &'a [String], &'a [String]),
) -> crate::plots::PlotPlan<'a> {
    crate::plots::PlotPlan {
        grid,
        tidy: spec.tidy,
        models: spec.models.keys().map(String::as_str).collect(),
        entropy_maps: spec
            .methods
            .iter()
            .any(|m| matches!(m, crate::methods::MethodSpec::PermutationMap(_))),
        true_pd: spec
            .data
            .dgp
            .as_ref()
            .is_some_and(|d| d.dgp().partial_dependence(0, &[0.5]).is_some()),
        features,
        quantities,
        grid_quantities,
        curves,
    }
}

/// The fields of an experiment file that determine its numbers; an experiment with
/// `runs_of` takes them from the file it names.
pub const COMPUTATION_KEYS: [&str; 8] = [
    "seed", "scales", "data", "models", "methods", "grid", "level", "tidy",
];

/// `tree` (the file `path` holding `text`) with the [`COMPUTATION_KEYS`] of the
/// experiment `source` of the same directory, which it must not state itself.
fn with_runs_of(path: &Path, text: &str, mut tree: Value, source: &str) -> Result<Value> {
    let err = |file: &Path, message: String| BenchError::Spec {
        file: file.to_path_buf(),
        message,
    };
    let from = path.with_file_name(format!("{source}.yaml"));
    let source_text = std::fs::read_to_string(&from).map_err(|e| {
        err(
            path,
            format!(
                "{}runs_of names `{source}`, but {} cannot be read ({e}); name an experiment of the same directory",
                at_line(text, "runs_of"),
                from.display()
            ),
        )
    })?;
    let source_tree: Value =
        read_yaml(&source_text).map_err(|e| err(&from, yaml_message(&from, &source_text, e)))?;
    if source_tree.get("runs_of").is_some() {
        return Err(err(
            path,
            format!(
                "{}`{source}` draws on the runs of another experiment itself; name the one that computes them",
                at_line(text, "runs_of")
            ),
        ));
    }
    let own = tree
        .as_object_mut()
        .ok_or_else(|| err(path, "an experiment file is a mapping of fields".into()))?;
    for key in COMPUTATION_KEYS {
        if own.contains_key(key) {
            return Err(err(
                path,
                format!(
                    "{}`{key}` comes from `{source}` (runs_of); remove it here, or remove runs_of to compute on its own",
                    at_line(text, key)
                ),
            ));
        }
        if let Some(v) = source_tree.get(key) {
            own.insert(key.to_string(), v.clone());
        }
    }
    Ok(tree)
}

/// The selectors under `node` (a mapping under `where`, `this`, `than`, `from` or
/// `that`, at any depth), with the field that holds each.
fn collect_selectors<'a>(
    node: &'a Value,
    out: &mut Vec<(&'a str, &'a serde_json::Map<String, Value>)>,
) {
    match node {
        Value::Object(map) => {
            for (k, v) in map {
                match (k.as_str(), v) {
                    ("where" | "this" | "than" | "from" | "that", Value::Object(sel)) => {
                        out.push((k, sel))
                    }
                    _ => collect_selectors(v, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect_selectors(v, out)),
        _ => {}
    }
}

/// Experiment YAML in the YAML 1.2 core schema: only `true` and `false` are booleans,
/// so a formula DGP's variable named `Y`, `N` or `on` stays a name when the file is
/// read as a tree (YAML 1.1 reads those as booleans).
fn read_yaml<'de, T: serde::Deserialize<'de>>(
    text: &'de str,
) -> std::result::Result<T, serde_saphyr::Error> {
    serde_saphyr::from_str_with_options(text, serde_saphyr::options! { strict_booleans: true })
}

/// The parser's message, without its own `error: ` (the CLI prints one) and with the
/// file's path where it says `<input>`; for a repeated key, where serde-saphyr suggests
/// a parser option, the key and both of its lines instead.
fn yaml_message(path: &Path, text: &str, e: serde_saphyr::Error) -> String {
    let full = e.to_string();
    let message = full
        .strip_prefix("error: ")
        .unwrap_or(&full)
        .replace("<input>", &path.display().to_string());
    let Some(rest) = message.split("duplicate mapping key: ").nth(1) else {
        return message;
    };
    let key = rest.split([',', '\n']).next().unwrap_or(rest).trim();
    let line = message
        .split("line ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse::<usize>().ok());
    let lines: Vec<&str> = text.lines().collect();
    let Some(at) = line.filter(|&l| l >= 1 && l <= lines.len()) else {
        return format!("the key `{key}` is repeated in one mapping; keep one of them");
    };
    let indent = |l: &str| l.len() - l.trim_start().len();
    let here = indent(lines[at - 1]);
    let starts = |l: &str| {
        let t = l.trim_start().trim_start_matches("- ");
        t.starts_with(&format!("{key}:"))
    };
    // The earlier line of the same key at the same indentation, within the mapping.
    let first = (0..at - 1)
        .rev()
        .take_while(|&i| lines[i].trim().is_empty() || indent(lines[i]) >= here)
        .find(|&i| indent(lines[i]) == here && starts(lines[i]))
        .map(|i| i + 1);
    match first {
        Some(f) => format!(
            "line {at}: the key `{key}` is repeated (first at line {f}); keep one of the two"
        ),
        None => format!("line {at}: the key `{key}` is repeated in its mapping; keep one of them"),
    }
}

/// A grid value `{label: L, set: {field: value, ...}}`: a variant that sets several
/// fields at once, named L in the grid key's output column (molnar2023 Fig. 3: a
/// "Monte Carlo" panel with one training sample and 50 test rows beside a "bias and
/// variance" panel with fresh samples, where a cartesian grid would cross them).
fn bundle(value: &Value) -> Option<(&str, &serde_json::Map<String, Value>)> {
    let map = value.as_object()?;
    if map.len() != 2 {
        return None;
    }
    Some((map.get("label")?.as_str()?, map.get("set")?.as_object()?))
}

/// A grid value's name in the output columns: a bundle's label or [`label`].
/// The label of a grid value: a registry entry's name, else its [`label`].
pub fn grid_label(value: &Value) -> String {
    bundle(value).map_or_else(|| label(value), |(name, _)| name.to_string())
}

/// The text of a grid value as written in output columns (numbers in shortest form).
pub fn label(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        // A registry entry without settings (`{molnar_linear: {}}`) reads as its name.
        Value::Object(map)
            if map.len() == 1
                && map
                    .values()
                    .all(|v| v.as_object().is_some_and(|o| o.is_empty())) =>
        {
            map.keys().next().cloned().unwrap_or_default()
        }
        // One with scalar settings (`{correlated_gaussian: {noise_var: 2.0}}`) as
        // `correlated_gaussian(noise_var=2)`; others (a covariance matrix) stay JSON,
        // or take a bundle's `label:`.
        Value::Object(map) if map.len() == 1 => match map.iter().next() {
            Some((name, Value::Object(settings)))
                if settings.values().all(|v| !v.is_object() && !v.is_array()) =>
            {
                let settings: Vec<String> = settings
                    .iter()
                    .map(|(k, v)| format!("{k}={}", label(v)))
                    .collect();
                format!("{name}({})", settings.join(", "))
            }
            _ => value.to_string(),
        },
        Value::Number(n) => n.as_f64().map_or_else(|| n.to_string(), format_number),
        other => other.to_string(),
    }
}

const OVERRIDE_FREE: [&str; 7] = [
    "grid",
    "scales",
    "checks",
    "plots",
    "tables",
    "regression",
    "labels",
];

/// Collects the paths (object keys, array indices as text) whose trailing keys equal
/// `suffix`.
fn find_paths(node: &Value, path: &mut Vec<String>, suffix: &[&str], found: &mut Vec<Vec<String>>) {
    let children: Vec<(String, &Value)> = match node {
        Value::Object(map) => map
            .iter()
            .filter(|(k, _)| !(path.is_empty() && OVERRIDE_FREE.contains(&k.as_str())))
            .map(|(k, v)| (k.clone(), v))
            .collect(),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, v)| (i.to_string(), v))
            .collect(),
        _ => return,
    };
    for (k, child) in children {
        let is_key = matches!(node, Value::Object(_));
        path.push(k);
        if is_key
            && path.len() >= suffix.len()
            && path[path.len() - suffix.len()..]
                .iter()
                .zip(suffix)
                .all(|(a, b)| a == b)
        {
            found.push(path.clone());
        }
        find_paths(child, path, suffix, found);
        path.pop();
    }
}

/// "line N: " of the line that best locates `key` (its last dotted part): first a line
/// starting with `key:`, then one holding `key:` inline, then one holding the word;
/// "" if none does.
pub fn at_line(text: &str, key: &str) -> String {
    let last = key.rsplit('.').next().unwrap_or(key);
    let field = format!("{last}:");
    let starts = |l: &str| l.trim_start().trim_start_matches("- ").starts_with(&field);
    let inline = |l: &str| l.contains(&format!(" {field}")) || l.contains(&format!("{{{field}"));
    let word = |l: &str| {
        l.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
            .any(|w| w == last)
    };
    let lines: Vec<&str> = text.lines().collect();
    [&starts as &dyn Fn(&str) -> bool, &inline, &word]
        .iter()
        .find_map(|test| lines.iter().position(|l| test(l)))
        .map_or_else(String::new, |i| format!("line {}: ", i + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A grid value reads as its name, with scalar settings in parentheses; one whose
    /// settings hold a matrix stays JSON (a bundle's `label:` names it instead).
    #[test]
    fn a_registry_entry_labels_itself_with_its_scalar_settings() {
        let v = |t: &str| -> Value { serde_json::from_str(t).unwrap() };
        assert_eq!(label(&v(r#"{"molnar_linear": {}}"#)), "molnar_linear");
        assert_eq!(
            label(&v(
                r#"{"correlated_gaussian": {"noise_var": 2.0, "rho": 0.5}}"#
            )),
            "correlated_gaussian(noise_var=2, rho=0.5)"
        );
        let matrix = v(r#"{"joint_gaussian": {"covariance": [[1.0, 0.5], [0.5, 1.0]]}}"#);
        assert_eq!(label(&matrix), matrix.to_string());
        assert_eq!(
            grid_label(&v(r#"{"label": "rho 0.5", "set": {}}"#)),
            "rho 0.5"
        );
    }
}
