//! An experiment's figures: what its plots take from it (the names of its models,
//! grid values and dataset columns, the DGP's true PD; [`crate::plots::Setting`]),
//! drawn by [`crate::plots`], which reads no experiment file itself.

use std::collections::BTreeMap;
use std::path::Path;

use crate::datasets::Registry;
use crate::error::Result;
use crate::output::RunOutput;
use crate::plan::Experiment;
use crate::plots::Setting;
use crate::plots::labels::Names;
use crate::spec::ExperimentSpec;
use xai_models::LearnerKind;

/// The names of `spec`'s models (its `labels:`, else the learner's name, with the
/// key when two models share a learner), its `labels:` for grid values, and the
/// column names of its datasets (`data.dataset` and those a grid value sets) from
/// the registry at `data/datasets.yaml`.
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
    let mut datasets: Vec<&str> = spec.data.dataset.iter().map(|d| d.name.as_str()).collect();
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
    if !datasets.is_empty() {
        let root = crate::workspace::workspace_root();
        let registry = Registry::load(&root.join("data").join("datasets.yaml"))?;
        for name in datasets {
            features.extend(registry.get(name)?.features.clone());
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
    ))
}

/// Draws every plot of `exp` from `out` into `dir`.
pub fn draw(exp: &Experiment, out: &RunOutput, dir: &Path) -> Result<()> {
    let s = &exp.spec;
    let truth = |feature: &str, grid: &[f64]| {
        let dgp = s.data.dgp.as_ref()?.dgp();
        let j = dgp.feature_names().iter().position(|f| f == feature)?;
        dgp.partial_dependence(j, grid)
    };
    let setting = Setting {
        title: &s.title,
        paper: &s.paper,
        figure: &s.figure,
        level: s.level,
        names: names(s)?,
        truth: &truth,
    };
    for plot in &s.plots {
        crate::plots::draw(plot, &setting, out, dir)?;
    }
    Ok(())
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
        assert_eq!(
            names.feature_axis("plas"),
            "Plasma glucose (2-h OGTT) (mg/dL)"
        );
        assert_eq!(names.feature_axis("pedi"), "Diabetes pedigree function");
        // A DGP's features keep their keys.
        assert_eq!(names_of("wood2024-fig6").feature_axis("X1"), "X1");
    }

    #[test]
    fn panels_of_terms_that_do_not_use_the_model_are_not_titled_by_it() {
        let names = names_of("cid2021-fig2");
        assert_eq!(
            names.panel("extra_trees", "covered", None),
            "data alone (no model)"
        );
        assert_eq!(names.panel("extra_trees", "r2_cid", None), "extra-trees");
    }
}
