//! Human names in figures: quantities with their units for axis labels (one table for
//! every figure), and models and settings for panel titles.

use std::collections::BTreeMap;

use crate::spec::ExperimentSpec;

/// The names of an experiment's models and grid values in panel titles.
pub struct Names {
    models: BTreeMap<String, String>,
    labels: BTreeMap<String, String>,
}

impl Names {
    /// The names of `spec`'s models (its `labels:`, else the learner's name, with the
    /// key when two models share a learner) and its `labels:` for grid values.
    pub fn of(spec: &ExperimentSpec) -> Self {
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
        Self {
            models,
            labels: spec.labels.clone(),
        }
    }

    /// "model name, setting": the setting is the grid value's label, or "key = value".
    pub fn panel(&self, model: &str, setting: Option<(&str, &str)>) -> String {
        let model = self.models.get(model).map_or(model, String::as_str);
        match setting {
            Some((key, value)) => match self.labels.get(value) {
                Some(l) => format!("{model}, {l}"),
                None => format!("{model}, {key} = {value}"),
            },
            None => model.to_string(),
        }
    }
}

/// What a statistic prefix measures, as a noun, and its unit ("" when none).
fn statistic(prefix: &str) -> Option<(&'static str, &'static str)> {
    Some(match prefix {
        "likelihood" => ("Likelihood", "nats"),
        "entropy" => ("Entropy", "nats"),
        "loss" => ("Squared error", ""),
        "prediction" => ("Prediction", ""),
        "r2" => ("R² drop", ""),
        "accuracy" => ("Accuracy drop", ""),
        _ => return None,
    })
}

/// "name (unit)", or the name alone without a unit.
fn with_unit(name: String, unit: &str) -> String {
    if unit.is_empty() {
        name
    } else {
        format!("{name} ({unit})")
    }
}

/// The axis label of a quantity: `likelihood_pfi` → "Likelihood-PFI (nats)",
/// `entropy_conditional_pfi` → "Conditional Entropy-PFI (nats)", `entropy_pd` →
/// "Entropy (nats)", `likelihood_pd` → "Negative log-likelihood (nats)", `r2_pfi` →
/// "R² drop (PFI)", `r2_cid` → "R² drop / (1 − Ĉ) (CID)", `covered` → "Covered
/// fraction Ĉ"; a quantity not in the table keeps its key.
pub fn axis_label(quantity: &str) -> String {
    let fixed = match quantity {
        "impurity_importance" => Some("Impurity (Gini) importance"),
        "mi" => Some("Mutual information Î(X; Y) (nats)"),
        "mi_null" => Some("95% quantile of Î under the null (nats)"),
        "conditional_mi" => Some("Î(X; Y | rest) (nats)"),
        "covered" => Some("Covered fraction Ĉ"),
        "r2_without_target" => Some("R² from the other features"),
        "r2_with_target" => Some("R² from the others and the target"),
        _ => None,
    };
    if let Some(f) = fixed {
        return f.to_string();
    }
    let Some((rest, suffix)) = quantity.rsplit_once('_') else {
        return quantity.to_string();
    };
    let (prefix, sampler) = match rest.split_once('_') {
        Some((p, s)) => (p, Some(s)),
        None => (rest, None),
    };
    let Some((name, unit)) = statistic(prefix) else {
        return quantity.to_string();
    };
    let sampler = sampler.map_or(String::new(), |s| {
        let mut c = s.chars();
        c.next().map_or(String::new(), |f| {
            f.to_uppercase().collect::<String>() + c.as_str() + " "
        })
    });
    match (suffix, unit) {
        ("pfi", "nats") => with_unit(format!("{sampler}{name}-PFI"), unit),
        ("pfi", _) => format!("{sampler}{name} (PFI)"),
        ("cid", _) => format!("{name} / (1 − Ĉ) (CID)"),
        ("pd" | "ice", _) if prefix == "likelihood" => {
            with_unit("Negative log-likelihood".into(), unit)
        }
        ("pd" | "ice", _) => with_unit(name.to_string(), unit),
        _ => quantity.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::axis_label;

    #[test]
    fn quantities_read_as_the_papers_name_them() {
        assert_eq!(axis_label("likelihood_pfi"), "Likelihood-PFI (nats)");
        assert_eq!(axis_label("entropy_pfi"), "Entropy-PFI (nats)");
        assert_eq!(
            axis_label("entropy_conditional_pfi"),
            "Conditional Entropy-PFI (nats)"
        );
        assert_eq!(axis_label("entropy_pd"), "Entropy (nats)");
        assert_eq!(
            axis_label("likelihood_ice"),
            "Negative log-likelihood (nats)"
        );
        assert_eq!(axis_label("r2_pfi"), "R² drop (PFI)");
        assert_eq!(axis_label("accuracy_cid"), "Accuracy drop / (1 − Ĉ) (CID)");
        assert_eq!(axis_label("covered"), "Covered fraction Ĉ");
        assert_eq!(axis_label("something_new"), "something_new");
    }
}
