//! Real datasets: the registry (`data/datasets.yaml`) and the verified loader.
//!
//! A dataset's file is looked up in `$XAI_DATA_DIR`, then in `data/cache/`; its sha256
//! must equal the registry's; columns are encoded as the registry declares (continuous,
//! or categorical with levels coded 0..k in the listed order), the target as a real
//! value or a class index in the order of `classes`. Cells equal to a missing marker
//! (`missing:` for every column, `missing_in:` per column) are missing: an error naming
//! row and column, or (policy `drop_rows`) the row is dropped, or (policy `keep`) the
//! cell is NaN, for learners that handle missing values, or (policy `impute_mean`)
//! the cell is its column's mean over the observed cells of the file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ndarray::{Array1, Array2};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use xai_core::{Dataset, FeatureKind, Target};

use xai_error::{BenchError, Result, io_err};

/// The environment variable naming the directory of verified dataset files.
pub const DATA_DIR_VAR: &str = "XAI_DATA_DIR";

/// Regression or classification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Task {
    /// Real-valued target.
    Regression,
    /// Class labels.
    Classification,
}

/// The target column and its encoding.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TargetSpec {
    /// Column name.
    pub column: String,
    /// Task.
    pub task: Task,
    /// Class labels as written in the file, in class-index order (classification).
    #[serde(default)]
    pub classes: Vec<String>,
    /// The classes' names in figures ("diabetic"), in class-index order; none keeps
    /// "class k".
    #[serde(default)]
    pub class_names: Vec<String>,
}

/// What `cargo xtask data verify` asserts besides the row count.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expected {
    /// Rows per class, in class-index order (classification).
    #[serde(default)]
    pub class_counts: Vec<usize>,
    /// Number of cells equal to a missing marker.
    pub missing_cells: usize,
}

/// One registered dataset.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DatasetEntry {
    /// Path of the verified file relative to the data directory.
    pub file: String,
    /// sha256 of the verified file.
    pub sha256: String,
    /// Data rows (without the header).
    pub rows: usize,
    /// Categorical columns with their levels (code = position); others are continuous.
    #[serde(default)]
    pub categorical: BTreeMap<String, Vec<String>>,
    /// Columns not used as features (e.g. identifiers).
    #[serde(default)]
    pub drop: Vec<String>,
    /// Cell values that mean "missing" in every column.
    #[serde(default)]
    pub missing: Vec<String>,
    /// Cell values that mean "missing" in one column only (R's PimaIndiansDiabetes2:
    /// a glucose of 0 is impossible, so missing; 0 pregnancies is not).
    #[serde(default)]
    pub missing_in: BTreeMap<String, Vec<String>>,
    /// The target.
    pub target: TargetSpec,
    /// What verification expects.
    pub expected: Expected,
    /// Where the verified copy came from.
    pub source: String,
    /// How `cargo xtask data fetch` downloads it (absent: no pinned source yields the
    /// verified file without a format conversion).
    #[serde(default)]
    pub fetch: Option<FetchSpec>,
    /// Human names (and units) of columns for figures; a column not listed is drawn
    /// with its key.
    #[serde(default)]
    pub features: BTreeMap<String, FeatureName>,
    /// How to cite the data.
    pub citation: String,
    /// License.
    pub license: String,
}

/// A column's name in figures: "Plasma glucose" with unit "mg/dL".
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FeatureName {
    /// The name, as in tick labels and titles.
    pub name: String,
    /// The unit, added to axis labels ("Plasma glucose (mg/dL)"); none for counts
    /// and indices.
    #[serde(default)]
    pub unit: Option<String>,
}

/// A table of one's own, named by its path in an experiment's `data: dataset:`
/// instead of a registered dataset: its columns encoded as a registry entry's are
/// (`categorical`, `missing`, `target`), every other column a continuous feature. Its
/// sha256 is not required beforehand: it is computed when the run starts and recorded
/// in the run's manifest and key.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OwnTable {
    /// The CSV file (a header row, then one row per example), relative to the
    /// experiment file's directory unless absolute.
    pub file: PathBuf,
    /// The target column and its encoding (`{column: y, task: regression}`, or
    /// `task: classification` with its `classes` as written in the file).
    pub target: TargetSpec,
    /// Categorical columns with their levels (code = position).
    #[serde(default)]
    pub categorical: BTreeMap<String, Vec<String>>,
    /// Cell values that mean "missing" in every column.
    #[serde(default)]
    pub missing: Vec<String>,
}

impl OwnTable {
    /// The file, resolved against `base` (the experiment file's directory).
    pub fn path(&self, base: &Path) -> PathBuf {
        base.join(&self.file)
    }

    /// The file's sha256 (hex), read from `path`.
    pub fn sha256(path: &Path) -> Result<String> {
        let bytes = std::fs::read(path).map_err(io_err(path))?;
        Ok(format!("{:x}", Sha256::digest(&bytes)))
    }

    /// A registry entry for the file at `path`, with its sha256 and row count as found
    /// (so [`load`] verifies the file against itself and reads it as any dataset).
    pub fn entry(&self, path: &Path) -> Result<DatasetEntry> {
        let sha256 = Self::sha256(path)?;
        let mut reader = csv::Reader::from_path(path).map_err(|source| BenchError::Csv {
            path: path.to_path_buf(),
            source,
        })?;
        let rows = reader.records().count();
        Ok(DatasetEntry {
            file: path.display().to_string(),
            sha256,
            rows,
            categorical: self.categorical.clone(),
            drop: Vec::new(),
            missing: self.missing.clone(),
            missing_in: BTreeMap::new(),
            target: self.target.clone(),
            expected: Expected {
                class_counts: Vec::new(),
                missing_cells: 0,
            },
            source: format!("a table of one's own: {}", path.display()),
            fetch: None,
            features: BTreeMap::new(),
            citation: String::new(),
            license: String::new(),
        })
    }
}

/// The registry: dataset name → entry.
#[derive(Debug, Clone, PartialEq)]
pub struct Registry {
    entries: BTreeMap<String, DatasetEntry>,
    path: PathBuf,
}

/// What to do with rows that hold a missing cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MissingPolicy {
    /// Fail, naming the first missing cell.
    #[default]
    Error,
    /// Drop every row with a missing cell.
    DropRows,
    /// Keep the rows, the missing cells as NaN: only learners that handle missing
    /// values (`xgboost`) can fit them (watson2023 Fig. 2).
    Keep,
    /// Replace each missing cell by the mean of its column's observed cells over the
    /// whole file (scikit-learn's `SimpleImputer(strategy="mean")`, fitted on every
    /// row before any split, as icefi2022's code does; PAPERS.md §3.3).
    ImputeMean,
}

/// A loaded dataset with what verification reports.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The encoded data (rows with missing cells dropped under `DropRows`).
    pub data: Dataset,
    /// Cells equal to a missing marker in the file.
    pub missing_cells: usize,
    /// Rows in the file.
    pub file_rows: usize,
    /// Rows per class over every row of the file, dropped ones included
    /// (classification).
    pub file_class_counts: Vec<usize>,
}

impl Registry {
    /// Reads the registry file (`data/datasets.yaml`).
    pub fn load(path: &Path) -> Result<Registry> {
        let text = std::fs::read_to_string(path).map_err(io_err(path))?;
        let entries = serde_saphyr::from_str(&text).map_err(|e| BenchError::Spec {
            file: path.to_path_buf(),
            message: e.to_string(),
        })?;
        Ok(Registry {
            entries,
            path: path.to_path_buf(),
        })
    }

    /// The registered names, sorted.
    pub fn names(&self) -> Vec<String> {
        self.entries.keys().cloned().collect()
    }

    /// The entry of `name`; the error lists the registered names.
    pub fn get(&self, name: &str) -> Result<&DatasetEntry> {
        self.entries.get(name).ok_or_else(|| BenchError::Dataset {
            name: name.to_string(),
            message: format!(
                "not in {}; registered: {}",
                self.path.display(),
                self.names().join(", ")
            ),
        })
    }
}

/// The directories searched for dataset files: `$XAI_DATA_DIR` (if set), then
/// `<root>/data/cache`.
pub fn search_dirs(root: &Path) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(d) = std::env::var_os(DATA_DIR_VAR).filter(|d| !d.is_empty()) {
        dirs.push(PathBuf::from(d));
    }
    dirs.push(root.join("data").join("cache"));
    dirs
}

/// The verified file of `name`: found in `dirs` and matching the registry's sha256.
pub fn locate(name: &str, entry: &DatasetEntry, dirs: &[PathBuf]) -> Result<PathBuf> {
    let Some(path) = dirs
        .iter()
        .map(|d| d.join(&entry.file))
        .find(|p| p.is_file())
    else {
        let tried: Vec<String> = dirs
            .iter()
            .map(|d| d.join(&entry.file).display().to_string())
            .collect();
        return Err(BenchError::Dataset {
            name: name.to_string(),
            message: format!(
                "{} not found (looked for {}). Put the verified file there, or set \
             {DATA_DIR_VAR} to a directory holding {} (e.g. the project's ../shared/data). \
             Or download it: cargo xtask data fetch {name}",
                entry.file,
                tried.join(" and "),
                entry.file
            ),
        });
    };
    let bytes = std::fs::read(&path).map_err(io_err(&path))?;
    let found = format!("{:x}", Sha256::digest(&bytes));
    if found != entry.sha256 {
        return Err(BenchError::Dataset {
            name: name.to_string(),
            message: format!(
                "{} has sha256 {found}, but the registry expects {}; \
             replace it with the verified copy",
                path.display(),
                entry.sha256
            ),
        });
    }
    Ok(path)
}

/// The rows of `data` whose class is one of `keep` (class names as `entry` lists
/// them), relabelled by their position in `keep`; an error names an unknown or
/// repeated class, or a regression target.
pub fn keep_classes(
    data: &Dataset,
    name: &str,
    entry: &DatasetEntry,
    keep: &[String],
) -> Result<Dataset> {
    let bad = |m: String| BenchError::Dataset {
        name: name.to_string(),
        message: format!("classes: {m}"),
    };
    let Target::Classes { labels, .. } = data.y() else {
        return Err(bad(
            "the target is continuous; `classes` picks classes of a classifier".into(),
        ));
    };
    let mut index = Vec::with_capacity(keep.len());
    for (k, c) in keep.iter().enumerate() {
        let i = entry
            .target
            .classes
            .iter()
            .position(|n| n == c)
            .ok_or_else(|| {
                bad(format!(
                    "no class `{c}`; the registry names {}",
                    entry.target.classes.join(", ")
                ))
            })?;
        if keep[..k].contains(c) {
            return Err(bad(format!("class `{c}` is named twice")));
        }
        index.push(i);
    }
    if index.len() < 2 {
        return Err(bad("name at least two classes".into()));
    }
    let rows: Vec<usize> = (0..labels.len())
        .filter(|&r| index.contains(&labels[r]))
        .collect();
    let kept = data.select_rows(&rows);
    let relabelled = rows
        .iter()
        .map(|&r| {
            index
                .iter()
                .position(|&i| i == labels[r])
                .expect("kept rows' classes")
        })
        .collect();
    kept.with_target(Target::Classes {
        labels: relabelled,
        n_classes: index.len(),
    })
    .map_err(|e| bad(e.to_string()))
}

/// Replaces each column's missing (NaN) cells by the mean of its observed ones; the
/// error names a column with none observed.
fn impute_means(x: &mut Array2<f64>, names: &[String]) -> std::result::Result<(), String> {
    for (j, mut column) in x.columns_mut().into_iter().enumerate() {
        let observed: Vec<f64> = column.iter().copied().filter(|v| !v.is_nan()).collect();
        if observed.len() < column.len() {
            if observed.is_empty() {
                return Err(format!(
                    "column `{}` has no observed value to impute its mean from",
                    names[j]
                ));
            }
            let mean = observed.iter().sum::<f64>() / observed.len() as f64;
            column.mapv_inplace(|v| if v.is_nan() { mean } else { v });
        }
    }
    Ok(())
}

/// Loads, verifies and encodes dataset `name`.
pub fn load(
    name: &str,
    entry: &DatasetEntry,
    dirs: &[PathBuf],
    policy: MissingPolicy,
) -> Result<Loaded> {
    let path = locate(name, entry, dirs)?;
    let csv_err = |source| BenchError::Csv {
        path: path.clone(),
        source,
    };
    let mut reader = csv::Reader::from_path(&path).map_err(csv_err)?;
    let header: Vec<String> = reader
        .headers()
        .map_err(csv_err)?
        .iter()
        .map(String::from)
        .collect();
    let bad = |msg: String| BenchError::Dataset {
        name: name.to_string(),
        message: format!("{}: {msg}", path.display()),
    };
    let col = |c: &str| {
        header.iter().position(|h| h == c).ok_or_else(|| {
            bad(format!(
                "no column `{c}`; the file has {}",
                header.join(", ")
            ))
        })
    };
    let target_col = col(&entry.target.column)?;
    for c in entry
        .categorical
        .keys()
        .chain(&entry.drop)
        .chain(entry.missing_in.keys())
    {
        col(c)?;
    }
    let markers: Vec<Vec<&String>> = header
        .iter()
        .map(|h| {
            entry
                .missing
                .iter()
                .chain(entry.missing_in.get(h).into_iter().flatten())
                .collect()
        })
        .collect();
    let features: Vec<usize> = (0..header.len())
        .filter(|&j| j != target_col && !entry.drop.contains(&header[j]))
        .collect();
    let mut x: Vec<f64> = Vec::new();
    let mut y: Vec<f64> = Vec::new();
    let mut missing_cells = 0;
    let mut file_rows = 0;
    let mut file_class_counts = vec![0; entry.target.classes.len()];
    for (i, record) in reader.records().enumerate() {
        let record = record.map_err(csv_err)?;
        file_rows += 1;
        let line = i + 2;
        if let Some(c) = entry
            .target
            .classes
            .iter()
            .position(|c| c == &record[target_col])
        {
            file_class_counts[c] += 1;
        }
        let is_missing = |j: usize| markers[j].iter().any(|m| *m == &record[j]);
        let row_missing = (0..record.len()).filter(|&j| is_missing(j)).count();
        missing_cells += row_missing;
        if row_missing > 0 {
            match policy {
                MissingPolicy::DropRows => continue,
                MissingPolicy::Keep | MissingPolicy::ImputeMean if !is_missing(target_col) => {}
                MissingPolicy::Keep | MissingPolicy::ImputeMean => {
                    return Err(bad(format!(
                        "line {line}: the target is missing, which `missing: keep` or \
                         `impute_mean` cannot fill; choose `missing: drop_rows`"
                    )));
                }
                MissingPolicy::Error => {
                    let j = (0..record.len()).find(|&j| is_missing(j)).unwrap_or(0);
                    return Err(bad(format!(
                        "line {line}, column `{}` is missing; choose `missing: drop_rows` to drop \
                         such rows, or `missing: keep` for a learner that handles missing values",
                        header[j]
                    )));
                }
            }
        }
        for &j in &features {
            x.push(if is_missing(j) {
                f64::NAN
            } else {
                encode(&record[j], entry.categorical.get(&header[j]))
                    .map_err(|e| bad(format!("line {line}, column `{}`: {e}", header[j])))?
            });
        }
        let t = &record[target_col];
        y.push(
            match entry.target.task {
                Task::Regression => encode(t, None),
                Task::Classification => encode(t, Some(&entry.target.classes)),
            }
            .map_err(|e| {
                bad(format!(
                    "line {line}, target `{}`: {e}",
                    entry.target.column
                ))
            })?,
        );
    }
    let n = y.len();
    let names: Vec<String> = features.iter().map(|&j| header[j].clone()).collect();
    let kinds = names
        .iter()
        .map(|c| match entry.categorical.get(c) {
            Some(levels) => FeatureKind::Categorical {
                levels: levels.clone(),
            },
            None => FeatureKind::Continuous,
        })
        .collect();
    let mut x = Array2::from_shape_vec((n, names.len()), x).expect("n·d values");
    if policy == MissingPolicy::ImputeMean {
        impute_means(&mut x, &names).map_err(bad)?;
    }
    let target = match entry.target.task {
        Task::Regression => Target::Continuous(Array1::from(y)),
        Task::Classification => Target::Classes {
            labels: y.iter().map(|&v| v as usize).collect(),
            n_classes: entry.target.classes.len(),
        },
    };
    let data =
        Dataset::with_missing_values(x, target, names, kinds).map_err(|e| bad(e.to_string()))?;
    Ok(Loaded {
        data,
        missing_cells,
        file_rows,
        file_class_counts,
    })
}

/// A number, or the level's code among `levels`.
fn encode(v: &str, levels: Option<&Vec<String>>) -> std::result::Result<f64, String> {
    match levels {
        Some(levels) => levels
            .iter()
            .position(|l| l == v)
            .map(|c| c as f64)
            .ok_or_else(|| {
                format!(
                    "`{v}` is not one of the declared levels {}",
                    levels.join(", ")
                )
            }),
        None => v
            .trim()
            .parse()
            .map_err(|_| format!("`{v}` is not a number")),
    }
}

/// Checks a loaded dataset against the registry: rows, class counts, missing cells,
/// and that every column given a figure name is a feature.
/// Returns one line describing it.
pub fn verify(name: &str, entry: &DatasetEntry, loaded: &Loaded) -> Result<String> {
    let mut problems = Vec::new();
    if loaded.file_rows != entry.rows {
        problems.push(format!(
            "{} rows, expected {}",
            loaded.file_rows, entry.rows
        ));
    }
    if loaded.missing_cells != entry.expected.missing_cells {
        problems.push(format!(
            "{} missing cells, expected {}",
            loaded.missing_cells, entry.expected.missing_cells
        ));
    }
    let counts = &loaded.file_class_counts;
    if counts != &entry.expected.class_counts {
        problems.push(format!(
            "class counts {counts:?}, expected {:?}",
            entry.expected.class_counts
        ));
    }
    for column in entry.features.keys() {
        if !loaded.data.feature_names().contains(column) {
            problems.push(format!(
                "`features:` names `{column}`, which is not a feature column"
            ));
        }
    }
    if problems.is_empty() {
        Ok(format!(
            "{name}: {} rows x {} features, classes {counts:?}, {} missing cells: ok",
            loaded.file_rows,
            loaded.data.n_features(),
            loaded.missing_cells
        ))
    } else {
        Err(BenchError::Dataset {
            name: name.to_string(),
            message: problems.join("; "),
        })
    }
}

/// Where a dataset can be downloaded from.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FetchSpec {
    /// Pinned upstream URL (a raw file at a fixed commit).
    pub url: String,
    /// sha256 of the download, when it differs from the verified file's.
    #[serde(default)]
    pub sha256: Option<String>,
    /// Header line the verified copy adds in front of the downloaded bytes.
    #[serde(default)]
    pub header: Option<String>,
}
