//! An experiment's figures: what its plots take from it (the names of its models,
//! grid values and dataset columns, the DGP's true PD; [`crate::plots::Setting`]),
//! drawn by [`crate::plots`], which reads no experiment file itself.

use std::collections::BTreeMap;
use std::path::Path;

use crate::datasets::Registry;
use crate::error::Result;
use crate::output::RunOutput;
use crate::plan::Experiment;
use crate::plots::labels::Names;
use crate::plots::{Setting, TruePd};
use crate::spec::ExperimentSpec;
use xai_models::LearnerKind;

/// The names of `spec`'s models (its `labels:`, else the learner's name, with the
/// key when two models share a learner), its `labels:` for grid values, and the
/// column names of its datasets (`data.dataset` and those a grid value sets) from
/// the registry at `data/datasets.yaml`, with the first dataset's classes' names.
pub fn names(spec: &ExperimentSpec) -> Result<Names> {
    let models = spec
        .models
        .iter()
        .map(|(key, learner)| {
            let shared = spec
                .models
                .values()
                .filter(|l| l.name() == learner.name())
                .count()
                > 1;
            let name = match spec.labels.get(key) {
                Some(l) => l.clone(),
                None if shared => format!("{} ({key})", learner.describe()),
                None => learner.describe().to_string(),
            };
            (key.clone(), name)
        })
        .collect();
    // The datasets named by `data.dataset` and by the grid's `dataset.name` sets
    // (one dataset per panel, watson2023 Fig. 2).
    let mut datasets: Vec<&str> = spec
        .data
        .dataset
        .iter()
        .filter(|d| d.table.is_none())
        .map(|d| d.name.as_str())
        .collect();
    datasets.extend(
        spec.grid
            .values()
            .flatten()
            .filter_map(|v| v.get("set")?.as_object())
            .flat_map(|set| set.iter())
            .filter(|(field, _)| field.ends_with("dataset.name"))
            .filter_map(|(_, name)| name.as_str()),
    );
    let mut features = BTreeMap::new();
    let mut classes = Vec::new();
    if !datasets.is_empty() {
        let root = crate::workspace::workspace_root();
        let registry = Registry::load(&root.join("data").join("datasets.yaml"))?;
        for name in datasets {
            let entry = registry.get(name)?;
            features.extend(entry.features.clone());
            if classes.is_empty() {
                classes.clone_from(&entry.target.class_names);
            }
        }
    }
    Ok(Names::new(
        models,
        spec.labels.clone(),
        features,
        spec.methods
            .iter()
            .flat_map(|m| m.method().model_free())
            .collect(),
        spec.level,
    )
    .with_classes(classes))
}

/// Draws every plot of `exp` from `out` into `dir`.
pub fn draw(exp: &Experiment, out: &RunOutput, dir: &Path) -> Result<()> {
    let truth = truth_of(exp);
    let setting = setting_of(exp, &truth)?;
    for plot in &exp.spec.plots {
        crate::plots::draw(plot, &setting, out, dir)?;
    }
    Ok(())
}

/// Draws into `dir` again every plot of `exp` that a committed baseline `out` holds
/// the inputs of (read back by [`crate::committed::read`]), as the run drew them;
/// returns the plots it could not draw, by name, with the reason: drawn from the
/// training sample or entropy maps (never kept), or from rows the baseline trimmed
/// (their files are not written).
pub fn redraw(exp: &Experiment, out: &RunOutput, dir: &Path) -> Result<Vec<Undrawn>> {
    let truth = truth_of(exp);
    let setting = setting_of(exp, &truth)?;
    let mut left = Vec::new();
    for plot in &exp.spec.plots {
        let name = plot.kind().name().to_string();
        if plot.kind().uses_data() {
            let why = "drawn from the training sample or an entropy map".into();
            left.push(Undrawn { name, why });
            continue;
        }
        match crate::plots::draw(plot, &setting, out, dir) {
            Ok(()) => {}
            Err(crate::error::BenchError::Plot { source, .. }) => {
                for ext in ["svg", "png", "pdf"] {
                    let path = dir.join(format!("{name}.{ext}"));
                    if path.exists() {
                        std::fs::remove_file(&path).map_err(crate::error::io_err(&path))?;
                    }
                }
                left.push(Undrawn {
                    name,
                    why: source.to_string(),
                });
            }
            Err(e) => return Err(e),
        }
    }
    Ok(left)
}

/// A figure [`redraw`] left as it is.
#[derive(Debug, Clone)]
pub struct Undrawn {
    /// The plot's name (its file stem).
    pub name: String,
    /// Why it could not be drawn again.
    pub why: String,
}

/// The true PD of `exp`'s DGP at grid points, where it has a closed form.
fn truth_of(exp: &Experiment) -> impl Fn(&str, &[f64]) -> Option<Vec<f64>> + '_ {
    move |feature: &str, grid: &[f64]| {
        let dgp = exp.spec.data.dgp.as_ref()?.dgp();
        let j = dgp.feature_names().iter().position(|f| f == feature)?;
        dgp.partial_dependence(j, grid)
    }
}

/// What `exp`'s figures take from it.
fn setting_of<'a>(exp: &'a Experiment, truth: &'a TruePd<'a>) -> Result<Setting<'a>> {
    let s = &exp.spec;
    Ok(Setting {
        title: &s.title,
        paper: &s.paper,
        figure: &s.figure,
        level: s.level,
        names: names(s)?,
        truth,
    })
}

#[cfg(test)]
mod tests {
    use super::{Names, names};
    use crate::plan::Experiment;

    fn names_of(id: &str) -> Names {
        let path = crate::workspace::workspace_root()
            .join("experiments")
            .join(format!("{id}.yaml"));
        names(&Experiment::load(&path).unwrap().spec).unwrap()
    }

    #[test]
    fn dataset_columns_are_drawn_with_their_registered_names_and_units() {
        let names = names_of("wood2024-fig12");
        assert_eq!(names.feature("plas"), "Plasma glucose (2-h OGTT)");
        // A name ending in a parenthesis takes its unit after a comma.
        assert_eq!(
            names.feature_axis("plas"),
            "Plasma glucose (2-h OGTT), mg/dL"
        );
        assert_eq!(names.feature_axis("pedi"), "Diabetes pedigree function");
        // Classes by the registry's names; a DGP's keep their index.
        assert_eq!(names.class(1), "diabetic");
        assert_eq!(names_of("wood2024-fig6").class(1), "class 1");
        // A DGP's features keep their keys.
        assert_eq!(names_of("wood2024-fig6").feature_axis("X1"), "X1");
    }

    #[test]
    fn panels_of_terms_that_do_not_use_the_model_are_not_titled_by_it() {
        let names = names_of("cid2021-fig2");
        assert_eq!(
            names.panel("extra_trees", "covered"),
            "data alone (no model)"
        );
        assert_eq!(names.panel("extra_trees", "r2_cid"), "extra-trees");
    }
}
