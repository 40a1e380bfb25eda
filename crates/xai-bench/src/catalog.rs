//! Finding the workspace and its experiments.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::error::{BenchError, Result, io_err};
use crate::plan::{Experiment, Scale};
use xai_models::external::Supplied;

/// The ids of the experiments under `<root>/experiments/`, sorted.
pub fn experiment_ids(root: &Path) -> Result<Vec<String>> {
    let dir = root.join("experiments");
    let mut ids: Vec<String> = std::fs::read_dir(&dir)
        .map_err(io_err(&dir))?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let p = e.path();
            (p.extension()? == "yaml").then(|| p.file_stem()?.to_str().map(String::from))?
        })
        .collect();
    ids.sort();
    Ok(ids)
}

/// Loads an experiment by id (`experiments/<id>.yaml`) or by path to a `.yaml` file.
pub fn resolve(root: &Path, id_or_path: &str) -> Result<Experiment> {
    resolve_supplied(root, id_or_path, BTreeMap::new())
}

/// [`resolve`], with the learners of the experiment's `external` models supplied by a
/// front end, by name ([`Experiment::from_text_supplied`]).
pub fn resolve_supplied(
    root: &Path,
    id_or_path: &str,
    supplied: BTreeMap<String, Supplied>,
) -> Result<Experiment> {
    let load = |path: &Path| {
        let text = std::fs::read_to_string(path).map_err(io_err(path))?;
        Experiment::from_text_supplied(path, text, supplied.clone())
    };
    let as_path = Path::new(id_or_path);
    if id_or_path.ends_with(".yaml") || id_or_path.ends_with(".yml") {
        return load(as_path);
    }
    let path = experiment_path(root, id_or_path);
    if path.is_file() {
        return load(&path);
    }
    Err(BenchError::UnknownExperiment {
        id: id_or_path.to_string(),
        known: experiment_ids(root)?,
    })
}

/// The file of experiment `id`: `experiments/<id>.yaml`.
pub fn experiment_path(root: &Path, id: &str) -> PathBuf {
    root.join("experiments").join(format!("{id}.yaml"))
}

/// Where `run` (and `check`) write: `runs/<id>/<scale>/`, git-ignored, so a run never
/// touches the committed baseline.
pub fn run_dir(root: &Path, id: &str, scale: Scale) -> PathBuf {
    root.join("runs").join(id).join(scale.name())
}

/// The committed regression baseline of an experiment at `scale`, written only by
/// `bless`: `results/<id>/` for ci, `results/<id>/<scale>/` for the others (paper).
pub fn baseline_dir(root: &Path, id: &str, scale: Scale) -> PathBuf {
    let dir = root.join("results").join(id);
    match scale {
        Scale::Ci => dir,
        other => dir.join(other.name()),
    }
}

/// The experiment table of README.md (between the `<!-- experiments -->` markers):
/// id, paper, figure, title.
pub fn readme_table(root: &Path) -> Result<String> {
    let mut out = String::from("| id | paper | figure | title |\n|---|---|---|---|\n");
    for id in experiment_ids(root)? {
        let s = resolve(root, &id)?.spec;
        out.push_str(&format!(
            "| `{id}` | {} | {} | {} |\n",
            s.paper, s.figure, s.title
        ));
    }
    Ok(out)
}
