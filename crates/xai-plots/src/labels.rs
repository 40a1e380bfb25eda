//! Human names in figures: quantities with their units for axis labels (one table for
//! every figure), models and settings for panel titles, and a dataset's columns with
//! their units (`features:` in `data/datasets.yaml`).

use std::collections::{BTreeMap, BTreeSet};

use xai_core::Statistic;
use xai_data::datasets::FeatureName;
use xai_results::quantity::{Aggregation, Inference, Quantity, Sampler, Suffix};

/// The names of an experiment's models, grid values and features in figures.
#[derive(Debug, Clone)]
pub struct Names {
    models: BTreeMap<String, String>,
    labels: BTreeMap<String, String>,
    features: BTreeMap<String, FeatureName>,
    model_free: BTreeSet<String>,
    level: f64,
    /// The replicate a figure draws alone (its own intervals), if any.
    replicate: Option<usize>,
    /// The classes' names, in class-index order (none: "class k").
    classes: Vec<String>,
}

impl Names {
    /// Names from `models` (model key → its name), `labels` (a grid value → its
    /// words), `features` (a dataset column → its name and unit), the quantities that
    /// `model_free` depend on the data alone, and the confidence `level` of bands.
    pub fn new(
        models: BTreeMap<String, String>,
        labels: BTreeMap<String, String>,
        features: BTreeMap<String, FeatureName>,
        model_free: BTreeSet<String>,
        level: f64,
    ) -> Self {
        Self {
            models,
            labels,
            features,
            model_free,
            level,
            replicate: None,
            classes: Vec::new(),
        }
    }

    /// Names with the classes named `classes` (class-index order, as the dataset
    /// registry's `class_names`).
    pub fn with_classes(mut self, classes: Vec<String>) -> Self {
        self.classes = classes;
        self
    }

    /// The axis label of `quantity` ([`axis_label`]), a binary classifier's
    /// prediction named by its positive class: "P(diabetic)", "P(heart disease)
    /// (conditional PD)".
    pub fn axis(&self, quantity: &str) -> String {
        self.of_classes(axis_label(quantity), quantity)
    }

    /// The axis label of `quantity` in a panel titled by its estimand ("learner-PFI",
    /// [`estimand_name`]): a learner's quantity is named as one fit's, since the
    /// title says it is the mean over refits, so a model's panel and its learner's
    /// name their axes alike ("Brier score increase (subgroup PFI)" in both).
    pub fn estimand_axis(&self, quantity: &str) -> String {
        let q = Quantity::read(quantity);
        match q.outer() == Some(Inference::Learner) {
            true => {
                let mut base = q.unwrapped();
                base.suffixes.retain(|s| *s != Suffix::Corrected);
                self.of_classes(axis_label(&base.to_string()), quantity)
            }
            false => self.axis(quantity),
        }
    }

    /// `label` with a binary classifier's prediction named by its positive class.
    fn of_classes(&self, label: String, quantity: &str) -> String {
        let prediction = Quantity::read(quantity).statistic() == Some(Statistic::Prediction);
        match (prediction, self.classes.len()) {
            (true, 2) => label.replacen("Prediction", &format!("P({})", self.class(1)), 1),
            _ => label,
        }
    }

    /// Class `k`'s name ("diabetic"), or "class k".
    pub fn class(&self, k: usize) -> String {
        self.classes
            .get(k)
            .cloned()
            .unwrap_or_else(|| format!("class {k}"))
    }

    /// The name of `model` in a panel title: its label or description, or "data alone
    /// (no model)" for a quantity that does not use it.
    pub fn panel(&self, model: &str, quantity: &str) -> String {
        if self.model_free.contains(quantity) {
            return "data alone (no model)".into();
        }
        self.models
            .get(model)
            .map_or(model, String::as_str)
            .to_string()
    }

    /// Whether `quantity` depends on the model (not on the data alone).
    pub fn uses_model(&self, quantity: &str) -> bool {
        !self.model_free.contains(quantity)
    }

    /// A grid value in a panel title: its label, or "key = value"; a model key
    /// (`key` = `model`) is the model's name.
    pub fn setting(&self, key: &str, value: &str) -> String {
        match self.labels.get(value) {
            Some(l) => l.clone(),
            None if key == "model" => self.panel(value, ""),
            None => format!("{key} = {value}"),
        }
    }

    /// A grid value in a legend, where the key is the legend's subject: its label, or
    /// the value itself; a model key is the model's name.
    pub fn setting_value(&self, key: &str, value: &str) -> String {
        match self.labels.get(value) {
            Some(l) => l.clone(),
            None if key == "model" => self.panel(value, ""),
            None => value.to_string(),
        }
    }

    /// The confidence level of the experiment's intervals.
    pub fn level(&self) -> f64 {
        self.level
    }

    /// What the interval of a summary row of `quantity` standing on `n` values is,
    /// for the key: over replicates, "mean ± 95% t-interval over n = 50 replicates"
    /// (the summary's Eq. 8 over replicates, at the experiment's `level`); for one
    /// replicate alone, its own interval: over its refits for learner inference
    /// (molnar2023 Eq. 9-10, "corrected" after Nadeau and Bengio), over the test rows
    /// nearest each value for a conditional PD (§2.7), over its test rows for a PFI
    /// (Eq. 8).
    pub fn interval(&self, quantity: &str, n: usize) -> String {
        let level = super::tick(&(100.0 * self.level));
        if self.replicate.is_none() {
            return format!("mean ± {level}% t-interval over n = {n} replicates");
        }
        let q = Quantity::read(quantity);
        let own = if q.outer() == Some(Inference::Learner) {
            let corrected = match q.is_corrected() {
                true => "Nadeau-Bengio-corrected ",
                false => "",
            };
            format!("{corrected}t-interval over its {n} refits")
        } else if !q.inference.is_empty() {
            "own interval".to_string()
        } else {
            match (q.aggregation, q.sampler) {
                (Some(Aggregation::Pd), Some(Sampler::Conditional)) => {
                    format!("t-interval over the {n} test rows nearest each value")
                }
                (Some(Aggregation::Pfi), _) => format!("t-interval over its {n} test rows"),
                _ => "own interval".to_string(),
            }
        };
        format!("{level}% {own}")
    }

    /// Names for a figure of replicate `k` alone ([`super::PlotKind::replicate`]).
    pub fn one_fit(&mut self, k: usize) {
        self.replicate = Some(k);
    }

    /// A feature's name in tick labels and titles ("Plasma glucose (2-h OGTT)"), or its
    /// key.
    pub fn feature<'a>(&'a self, key: &'a str) -> &'a str {
        self.features.get(key).map_or(key, |f| f.name.as_str())
    }

    /// A feature's axis label: its name with its unit ("Age (days)"), after a comma
    /// where the name ends in a parenthesis ("Plasma glucose (2-h OGTT), mg/dL").
    pub fn feature_axis(&self, key: &str) -> String {
        match self.features.get(key) {
            // "Plasma glucose (2-h OGTT), mg/dL": no second parenthesis.
            Some(FeatureName {
                name,
                unit: Some(unit),
            }) if name.ends_with(')') => format!("{name}, {unit}"),
            Some(FeatureName {
                name,
                unit: Some(unit),
            }) => with_unit(name.clone(), unit),
            _ => self.feature(key).to_string(),
        }
    }
}

/// The legend name of a curve quantity: `entropy_pd` → "Entropy-PDP",
/// `likelihood_ice` → "Likelihood-ICE" (wood2024's names), `prediction_pd` → "PDP"
/// (a plain PD of the prediction); other quantities keep their key.
pub fn curve_name(quantity: &str) -> String {
    let Some(q) = Quantity::parse(quantity) else {
        return quantity.to_string();
    };
    let plain = q.inference.is_empty() && q.sampler.is_none() && q.suffixes.is_empty();
    let curve = match q.aggregation {
        Some(Aggregation::Pd) => "PDP",
        Some(Aggregation::Ice) => "ICE",
        _ => return quantity.to_string(),
    };
    match (q.statistic(), q.statistic().and_then(noun)) {
        (Some(Statistic::Prediction), _) if plain => curve.to_string(),
        (_, Some((name, _))) if plain => format!("{name}-{curve}"),
        _ => quantity.to_string(),
    }
}

/// The name of an estimand in a panel title, where a model's estimand is drawn
/// beside its learner's: `prediction_conditional_pd` → "conditional model-PDP",
/// `learner_prediction_conditional_pd_corrected` → "conditional learner-PDP"
/// (molnar2023 §5 and Fig. 6), `brier_pfi` → "model-PFI"; else its curve name.
pub fn estimand_name(quantity: &str) -> String {
    let Some(q) = Quantity::parse(quantity) else {
        return quantity.to_string();
    };
    let who = match q.inference.as_slice() {
        [] => "model",
        [Inference::Learner] => "learner",
        _ => return curve_name(quantity),
    };
    let what = match q.aggregation {
        Some(Aggregation::Pd) => "PDP",
        Some(Aggregation::Pfi) => "PFI",
        _ => return curve_name(quantity),
    };
    let conditional = match q.sampler {
        Some(Sampler::Conditional) if what == "PDP" => "conditional ",
        _ => "",
    };
    format!("{conditional}{who}-{what}")
}

/// Whether `quantities` drawn side by side are titled by their estimands (model-
/// and learner-PFI or -PDP, [`estimand_name`]): where any is a learner's.
pub fn titled_by_estimand(quantities: &[String]) -> bool {
    quantities
        .iter()
        .any(|q| Quantity::read(q).outer() == Some(Inference::Learner))
}

/// The names of `quantities` drawn side by side, for their panel titles: their
/// estimands where [`titled_by_estimand`], else each quantity's title where its axis
/// names only what it measures ("From the other features" above "Cross-validated
/// R²"), else its axis label ("R² drop / (1 − Ĉ) (CID)").
pub fn quantity_titles(quantities: &[String]) -> Vec<String> {
    let estimands = titled_by_estimand(quantities);
    quantities
        .iter()
        .map(|q| match (estimands, q.as_str()) {
            (true, _) => estimand_name(q),
            (false, "r2_without_target") => "From the other features".into(),
            (false, "r2_with_target") => "From the other features and the target".into(),
            (false, _) => axis_label(q),
        })
        .collect()
}

/// What a statistic measures, as a noun, and its unit ("" when none); none for the
/// mistyped entropy of watson2023's code, whose quantities keep their key.
fn noun(statistic: Statistic) -> Option<(&'static str, &'static str)> {
    Some(match statistic {
        Statistic::Nll => ("Likelihood", "nats"),
        Statistic::Entropy => ("Entropy", "nats"),
        Statistic::SquaredError => ("Squared error", ""),
        Statistic::Prediction => ("Prediction", ""),
        Statistic::R2Loss => ("R² drop", ""),
        Statistic::Misclassification => ("Accuracy drop", ""),
        Statistic::Brier => ("Brier score", ""),
        Statistic::CodeEntropy => return None,
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
/// "Entropy (nats)", `likelihood_pd` → "−log-likelihood (nats)", `r2_pfi` →
/// "R² drop (PFI)", `r2_cid` → "R² drop / (1 − Ĉ) (CID)", `prediction_shap` →
/// "Shapley value of the prediction", `covered` → "Covered
/// fraction Ĉ"; a quantity not in the table keeps its key.
pub fn axis_label(quantity: &str) -> String {
    let fixed = match quantity {
        "impurity_importance" => Some("Impurity (Gini) importance"),
        "mi" => Some("Mutual information Î(X; Y) (nats)"),
        "mi_null" => Some("95% quantile of Î under the null (nats)"),
        "conditional_mi" => Some("Î(X; Y | rest) (nats)"),
        "conditional_mi_null" => Some("95% quantile of Î(X; Y | rest) under the null (nats)"),
        "covered" => Some("Covered fraction Ĉ"),
        "r2_without_target" | "r2_with_target" => Some("Cross-validated R²"),
        "outside_training_range" => Some("Share of test values outside the training range"),
        "class_share" => Some("Share of the positive class"),
        "class_entropy" => Some("Label entropy in the bin (nats)"),
        _ => None,
    };
    if let Some(f) = fixed {
        return f.to_string();
    }
    let Some(q) = Quantity::parse(quantity) else {
        return quantity.to_string();
    };
    if q.ends_with_word("roc") {
        return "True-positive rate".into();
    }
    if q.ends_with_word("auc") {
        return "Area under the ROC curve".into();
    }
    if let Some(label) = interval_label(&q) {
        return label;
    }
    if q.outer() == Some(Inference::Learner) {
        let mut base = q.clone().unwrapped();
        let corrected = match base.suffixes.last() {
            Some(Suffix::Corrected) => {
                base.suffixes.pop();
                " (corrected interval)"
            }
            _ => "",
        };
        return format!(
            "{}, mean over refits{corrected}",
            axis_label(&base.to_string())
        );
    }
    explanation_label(&q).unwrap_or_else(|| quantity.to_string())
}

/// The label of an explanation of a statistic without inference or suffixes: its
/// noun, sampler and aggregation ("Conditional Entropy-PFI (nats)").
fn explanation_label(q: &Quantity) -> Option<String> {
    if !q.inference.is_empty() || !q.suffixes.is_empty() {
        return None;
    }
    let (name, unit) = noun(q.statistic()?)?;
    let sampler = q.sampler.map_or(String::new(), |s| {
        let word = s.as_str();
        word[..1].to_uppercase() + &word[1..] + " "
    });
    Some(match (q.aggregation?, unit) {
        (Aggregation::Pfi, "nats") => with_unit(format!("{sampler}{name}-PFI"), unit),
        // A loss's PFI is its increase; a score's drop says so in its name.
        (Aggregation::Pfi, _) => {
            let change = if name.ends_with("drop") {
                ""
            } else {
                " increase"
            };
            format!("{name}{change} ({}PFI)", sampler.to_lowercase())
        }
        (Aggregation::Cid, _) => format!("{name} / (1 − Ĉ) (CID)"),
        (Aggregation::Pd | Aggregation::Ice, _) if q.statistic() == Some(Statistic::Nll) => {
            // Short enough to keep its unit beside an ICE panel 1.5 in tall.
            with_unit("\u{2212}log-likelihood".into(), unit)
        }
        (Aggregation::Pd, _) if q.sampler == Some(Sampler::Conditional) => {
            format!("{name}, conditional PD")
        }
        (Aggregation::Pd | Aggregation::Ice, _) => with_unit(name.to_string(), unit),
        (Aggregation::Shap, _) => with_unit(
            format!("Shapley value of the {}", name.to_lowercase()),
            unit,
        ),
        _ => return None,
    })
}

/// The x-axis label of a quantity drawn along its `x` column: the false-positive
/// rate of a ROC curve (`*_roc`), else the number of refits m of a coverage study.
pub fn x_axis_label(quantity: &str) -> String {
    match Quantity::parse(quantity).is_some_and(|q| q.ends_with_word("roc")) {
        true => "False-positive rate".into(),
        false => "number of refits m".into(),
    }
}

/// The axis label of a coverage study's summary of intervals: `coverage_prediction_pd`
/// → "Coverage of learner-PD intervals", `width_loss_pfi_corrected` → "Mean
/// learner-PFI interval width" (the `_corrected` twin shares its axis; short enough
/// that a log axis's "(log scale)" still fits beside a panel 2 in tall).
fn interval_label(q: &Quantity) -> Option<String> {
    let plain_or_corrected = matches!(q.suffixes.as_slice(), [] | [Suffix::Corrected]);
    let estimand = learner_name(q.aggregation?)?;
    let label = match q.inference.as_slice() {
        [Inference::Coverage] => format!("Coverage of {estimand} intervals"),
        [Inference::Width] => format!("Mean {estimand} interval width"),
        _ => return None,
    };
    plain_or_corrected.then_some(label)
}

/// The name of a learner-inference estimand of `aggregation`: PD → "learner-PD",
/// PFI → "learner-PFI" (molnar2023 Eq. 9-10).
fn learner_name(aggregation: Aggregation) -> Option<&'static str> {
    match aggregation {
        Aggregation::Pd => Some("learner-PD"),
        Aggregation::Pfi => Some("learner-PFI"),
        _ => None,
    }
}

/// The name of a learner-inference estimand: `prediction_pd` → "learner-PD",
/// `loss_pfi` → "learner-PFI" (molnar2023 Eq. 9-10); else the key.
pub fn learner_estimand(estimand: &str) -> String {
    Quantity::parse(estimand)
        .filter(|q| q.suffixes.is_empty())
        .and_then(|q| learner_name(q.aggregation?))
        .map_or_else(|| estimand.to_string(), String::from)
}

#[cfg(test)]
mod tests {
    use super::{Names, axis_label, curve_name, estimand_name};
    use xai_core::Statistic;
    use xai_results::quantity::{Aggregation, Quantity};

    /// The key says what each interval is: over replicates the summary's, for one
    /// replicate its own, by what the quantity is.
    #[test]
    fn intervals_say_what_they_are_over() {
        let mut names = Names::new(
            Default::default(),
            Default::default(),
            Default::default(),
            Default::default(),
            0.95,
        );
        let learner = "learner_prediction_conditional_pd_corrected";
        assert_eq!(
            names.interval(learner, 50),
            "mean ± 95% t-interval over n = 50 replicates"
        );
        names.one_fit(0);
        assert_eq!(
            names.interval(learner, 15),
            "95% Nadeau-Bengio-corrected t-interval over its 15 refits"
        );
        assert_eq!(
            names.interval("learner_loss_pfi", 15),
            "95% t-interval over its 15 refits"
        );
        assert_eq!(
            names.interval("prediction_conditional_pd", 50),
            "95% t-interval over the 50 test rows nearest each value"
        );
        assert_eq!(
            names.interval("brier_subgroup_pfi", 367),
            "95% t-interval over its 367 test rows"
        );
        assert_eq!(estimand_name(learner), "conditional learner-PDP");
        assert_eq!(estimand_name("brier_subgroup_pfi"), "model-PFI");
    }

    /// A binary classifier's prediction is named by its positive class; other
    /// quantities, or a model without class names, keep their label.
    #[test]
    fn predictions_read_as_the_probability_of_the_positive_class() {
        let plain = Names::new(
            Default::default(),
            Default::default(),
            Default::default(),
            Default::default(),
            0.95,
        );
        let named = plain
            .clone()
            .with_classes(vec!["no heart disease".into(), "heart disease".into()]);
        let q = "prediction_conditional_pd";
        assert_eq!(named.axis(q), "P(heart disease), conditional PD");
        assert_eq!(plain.axis(q), "Prediction, conditional PD");
        // Beside its model's panel, a learner's axis is named as one fit's.
        let learner = "learner_prediction_conditional_pd_corrected";
        assert_eq!(named.estimand_axis(learner), named.axis(q));
        assert_eq!(
            named.axis(learner),
            "P(heart disease), conditional PD, mean over refits (corrected interval)"
        );
        assert_eq!(
            plain.estimand_axis("learner_brier_subgroup_pfi_corrected"),
            plain.estimand_axis("brier_subgroup_pfi")
        );
        assert_eq!(named.axis("entropy_pd"), "Entropy (nats)");
        assert_eq!(named.class(0), "no heart disease");
        assert_eq!(plain.class(1), "class 1");
    }

    #[test]
    fn pd_curves_are_named_as_the_paper_names_them() {
        assert_eq!(curve_name("entropy_pd"), "Entropy-PDP");
        assert_eq!(curve_name("likelihood_pd"), "Likelihood-PDP");
        assert_eq!(curve_name("prediction_pd"), "PDP");
        assert_eq!(curve_name("entropy_ice"), "Entropy-ICE");
        assert_eq!(curve_name("entropy_pfi"), "entropy_pfi");
    }

    /// Every statistic's PFI and PD have a label of words (but the mistyped entropy
    /// of watson2023's code, which keeps its key): renaming a statistic's prefix
    /// cannot leave its figures with bare keys.
    #[test]
    fn every_statistic_has_words() {
        for s in Statistic::ALL {
            for a in [Aggregation::Pfi, Aggregation::Pd] {
                let key = Quantity::of(s, None, a).to_string();
                let words = axis_label(&key) != key;
                assert_eq!(words, s != Statistic::CodeEntropy, "{key}");
            }
        }
    }

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
            "\u{2212}log-likelihood (nats)"
        );
        assert_eq!(axis_label("r2_pfi"), "R² drop (PFI)");
        assert_eq!(axis_label("brier_pfi"), "Brier score increase (PFI)");
        assert_eq!(axis_label("accuracy_cid"), "Accuracy drop / (1 − Ĉ) (CID)");
        assert_eq!(axis_label("covered"), "Covered fraction Ĉ");
        assert_eq!(
            axis_label("learner_brier_subgroup_pfi_corrected"),
            "Brier score increase (subgroup PFI), mean over refits (corrected interval)"
        );
        assert_eq!(
            axis_label("prediction_conditional_pd"),
            "Prediction, conditional PD"
        );
        assert_eq!(axis_label("something_new"), "something_new");
        assert_eq!(
            axis_label("coverage_prediction_pd"),
            "Coverage of learner-PD intervals"
        );
        assert_eq!(
            axis_label("width_loss_pfi_corrected"),
            "Mean learner-PFI interval width"
        );
    }
}
