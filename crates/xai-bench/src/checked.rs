//! The methods of a run or of a front end's call, checked once before any work into
//! [`CheckedMethods`]: each method's settings against what is known of the data and
//! the models, the labels a loss needs, one method per quantity, and the memory the
//! largest prediction batch takes. The runner's cells and `explain`
//! ([`crate::kernel`]) take only this type, so nothing runs unchecked.

use std::collections::BTreeMap;

use xai_core::Dataset;
use xai_models::LearnerSpec;

use crate::methods::{MethodSpec, Plan, model_without};
use crate::results::Invalid;

/// What is known of a run or a call before any work, which its methods are checked
/// against.
#[derive(Debug, Clone, Copy)]
pub struct Known<'a> {
    /// The data's feature names, where known (a DGP's, or a loaded dataset's).
    pub feature_names: Option<&'a [String]>,
    /// (training rows, test rows) of a replicate, where known.
    pub sizes: Option<(usize, usize)>,
    /// The models, by name.
    pub models: &'a BTreeMap<String, LearnerSpec>,
    /// The DGP the rows are drawn from, if any.
    pub dgp: Option<&'a xai_synth::DgpSpec>,
    /// The loaded data, once known (its feature kinds and target).
    pub loaded: Option<&'a Dataset>,
}

/// Methods that passed [`CheckedMethods::check`] (constructed nowhere else), with the
/// quantities and curve quantities they report, in order.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckedMethods {
    specs: Vec<MethodSpec>,
    quantities: Vec<String>,
    curve_quantities: Vec<String>,
}

impl CheckedMethods {
    /// Checks `specs` in order, each against `known` and the quantities of those
    /// before it: its own settings ([`crate::methods::Method::validate`]), a model of
    /// the label for a method that compares with labels, and no quantity reported
    /// twice. The refusal names the method at fault (its index; none when no method is
    /// listed) and its field.
    pub fn check(
        specs: &[MethodSpec],
        known: &Known<'_>,
    ) -> Result<CheckedMethods, (Option<usize>, Invalid)> {
        if specs.is_empty() {
            return Err((
                None,
                Invalid::new(
                    "methods",
                    format!(
                        "list at least one method under `methods:` ({})",
                        MethodSpec::NAMES.join(", ")
                    ),
                ),
            ));
        }
        let mut quantities: Vec<String> = Vec::new();
        let mut curve_quantities: Vec<String> = Vec::new();
        for (i, m) in specs.iter().map(MethodSpec::method).enumerate() {
            let refuse = |e: Invalid| (Some(i), e);
            let plan = Plan {
                feature_names: known.feature_names,
                n_train: known.sizes.map(|z| z.0),
                n_test: known.sizes.map(|z| z.1),
                models: known.models,
                earlier: &quantities,
                dgp: known.dgp,
                loaded: known.loaded,
            };
            m.validate(&plan).map_err(refuse)?;
            if m.compares_with_labels()
                && let Some((name, l)) = model_without(known.models, |c| c.predicts_label)
            {
                return Err(refuse(Invalid::new(
                    name.as_str(),
                    format!(
                        "a method here compares the predictions with the labels (a loss or \
                         score statistic), but model `{name}` ({}) predicts another model's \
                         uncertainty, not the label: use statistics `prediction` or \
                         `entropy` with it, or give the method a model of the label",
                        l.name()
                    ),
                )));
            }
            for q in m.quantities() {
                if quantities.contains(&q) {
                    return Err(refuse(Invalid::new(
                        q.as_str(),
                        format!(
                            "two methods report `{q}`; give them different statistics or samplers"
                        ),
                    )));
                }
                quantities.push(q);
            }
            curve_quantities.extend(m.curve_quantities());
        }
        Ok(CheckedMethods {
            specs: specs.to_vec(),
            quantities,
            curve_quantities,
        })
    }

    /// The methods, in the order listed.
    pub fn specs(&self) -> &[MethodSpec] {
        &self.specs
    }

    /// The quantities they report, in order.
    pub fn quantities(&self) -> &[String] {
        &self.quantities
    }

    /// The quantities of the ICE curves they keep.
    pub fn curve_quantities(&self) -> &[String] {
        &self.curve_quantities
    }

    /// Checks that `in_flight` replicates of these methods on `models` at once, with
    /// `n_train` and `n_test` rows of `p` features, fit in the memory available
    /// ([`crate::memory::check`]); the refusal names the setting that makes it too
    /// large.
    pub fn check_memory(
        &self,
        models: &BTreeMap<String, LearnerSpec>,
        (n_train, n_test, p): (usize, usize, usize),
        in_flight: usize,
    ) -> Result<(), Invalid> {
        crate::memory::check(&self.specs, models, (n_train, n_test, p), in_flight)
    }
}

/// Checks a confidence level: it lies in (0, 1), so that every interval has finite
/// bounds, lower below upper.
pub fn check_level(level: f64) -> Result<(), Invalid> {
    match level > 0.0 && level < 1.0 {
        true => Ok(()),
        false => Err(Invalid::new(
            "level",
            format!("level must lie in (0, 1), e.g. 0.95; got {level}"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn methods(yaml: &str) -> Vec<MethodSpec> {
        serde_saphyr::from_str(yaml).unwrap()
    }

    fn known(models: &BTreeMap<String, LearnerSpec>) -> Known<'_> {
        Known {
            feature_names: None,
            sizes: Some((50, 20)),
            models,
            dgp: None,
            loaded: None,
        }
    }

    /// Two methods reporting one quantity are refused naming it; distinct ones pass
    /// and report their quantities in order.
    #[test]
    fn a_quantity_reported_twice_is_refused() {
        let models =
            BTreeMap::from([("lm".to_string(), serde_saphyr::from_str("lm: {}").unwrap())]);
        let pfi = "- pfi: { perturbation: { permutation: { repeats: 2 } }, statistics: [squared_error] }\n";
        let (m, e) =
            CheckedMethods::check(&methods(&format!("{pfi}{pfi}")), &known(&models)).unwrap_err();
        assert_eq!((m, e.field.as_str()), (Some(1), "loss_pfi"));
        let ok = CheckedMethods::check(
            &methods(&format!(
                "{pfi}- pfi: {{ perturbation: {{ permutation: {{ repeats: 2 }} }}, statistics: [r2_loss] }}\n"
            )),
            &known(&models),
        )
        .unwrap();
        assert_eq!(ok.quantities(), ["loss_pfi", "r2_pfi"]);
        let (m, e) = CheckedMethods::check(&[], &known(&models)).unwrap_err();
        assert_eq!((m, e.field.as_str()), (None, "methods"));
    }

    #[test]
    fn a_level_lies_strictly_between_0_and_1() {
        for bad in [0.0, 1.0, -0.1, 1.5, 95.0, f64::NAN] {
            assert_eq!(check_level(bad).unwrap_err().field, "level", "{bad}");
        }
        assert!(check_level(0.95).is_ok() && check_level(1e-9).is_ok());
    }
}
