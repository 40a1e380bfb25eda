//! Finding the workspace and its experiments, and the kinds an experiment file can
//! name.

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

/// One registry of kinds an experiment file names: where they are written, and each
/// kind's YAML name and doc comment, both from the registry's lines.
#[derive(Debug, Clone, Copy)]
pub struct Kinds {
    /// The YAML key the kinds are written under (`dgp`, `models`, `methods`, a
    /// check's `assert`, `plots`).
    pub section: &'static str,
    /// What the kinds are, in words (a heading of `docs/kinds.md`).
    pub title: &'static str,
    /// Every kind's YAML name, in registry order.
    pub names: &'static [&'static str],
    /// Every kind's doc comment, in the same order.
    pub docs: &'static [&'static str],
}

/// Every kind an experiment file can name, by where it is written: `dgp:`,
/// `models:`, `methods:`, a check's `assert:` and `plots:`; each list is its
/// registry's, so it cannot miss a kind (`cargo xtask kinds` prints it, `docs/kinds.md`
/// is generated from it, and a test finds each in CONTRIBUTING.md).
pub fn kinds() -> [Kinds; 5] {
    let kinds = |section, title, names, docs| Kinds {
        section,
        title,
        names,
        docs,
    };
    [
        kinds(
            "dgp",
            "Data generating processes (`data: dgp:`)",
            xai_synth::DgpSpec::NAMES,
            xai_synth::DgpSpec::DOCS,
        ),
        kinds(
            "models",
            "Learners (`models:`)",
            xai_models::LearnerSpec::NAMES,
            xai_models::LearnerSpec::DOCS,
        ),
        kinds(
            "methods",
            "Methods (`methods:`)",
            crate::methods::MethodSpec::NAMES,
            crate::methods::MethodSpec::DOCS,
        ),
        kinds(
            "assert",
            "Assertions (a check's `assert:`)",
            crate::checks::Assertion::NAMES,
            crate::checks::Assertion::DOCS,
        ),
        kinds(
            "plots",
            "Plots (`plots:`)",
            crate::plots::PlotSpec::NAMES,
            crate::plots::PlotSpec::DOCS,
        ),
    ]
}

/// The first paragraph of a doc comment on one line, its rustdoc links (`` [`x`] ``)
/// written as plain code (`` `x` ``).
pub fn one_line(doc: &str) -> String {
    let paragraph: Vec<&str> = doc
        .lines()
        .map(str::trim)
        .take_while(|l| !l.is_empty())
        .collect();
    paragraph.join(" ").replace("[`", "`").replace("`]", "`")
}

/// `docs/kinds.md`: every registry's kinds with the first paragraph of their doc
/// comments (`cargo xtask kinds --markdown` prints it; a test fails when the file
/// is stale).
pub fn kinds_markdown() -> String {
    let mut out = String::from(
        "# Kinds\n\nEvery kind an experiment file can name, with the first paragraph of its \
         doc comment in its registry. Generated by `cargo xtask kinds --markdown > \
         docs/kinds.md`; a test fails when this file is stale.\n",
    );
    for k in kinds() {
        out.push_str(&format!(
            "\n## {}\n\n| kind | what it is |\n|---|---|\n",
            k.title
        ));
        for (name, doc) in k.names.iter().zip(k.docs) {
            out.push_str(&format!(
                "| `{name}` | {} |\n",
                one_line(doc).replace('|', "\\|")
            ));
        }
    }
    out
}

/// The names of `names` that `doc` never writes as code (`` `name` ``).
pub fn undocumented<'a>(doc: &str, names: &[&'a str]) -> Vec<&'a str> {
    names
        .iter()
        .copied()
        .filter(|n| !doc.contains(&format!("`{n}`")))
        .collect()
}
