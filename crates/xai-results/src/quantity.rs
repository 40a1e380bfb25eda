//! A quantity's name, typed: what an explanation measures, as the methods build it
//! and the labels, checks and tables read it. Its text form is the `quantity` column
//! of every row (`loss_pfi`, `entropy_conditional_pfi`, `learner_prediction_pd_corrected`,
//! `coverage_loss_pfi`, `prediction_shap_abs`), exactly as before the type existed, so
//! no committed file changes:
//!
//! ```text
//! [inference_]... measure [_sampler] [_aggregation] [_suffix]...
//! ```
//!
//! - measure: a statistic's prefix (`loss`, `entropy`, `code_entropy`; [`Statistic`]),
//!   a Shapley value function's (`aleatoric_entropy`), or a quantity of its own (`mi`,
//!   `covered`, `coefficient`);
//! - sampler: the perturbation's sampler when not the marginal permutation
//!   (`conditional`, `fresh`, `subgroup`);
//! - aggregation: how per-row values become the quantity ([`Aggregation`]: `pfi`,
//!   `cid`, `pd`, `ice`, `shap`, `score`, ICE impact's `fi` ... `nl`);
//! - inference: over refits (`learner`, molnar2023 Eq. 9-10) or a coverage study's
//!   summary of those intervals (`coverage`, `width`, `truth`, `mc_se`), or a
//!   correlation across features (`pearson`), outermost first;
//! - suffixes: `corrected` (the Nadeau-Bengio interval), a band's name, a Shapley
//!   summary (`abs`, `mu`, `tau`, `coverage`, `auc`, `roc`, `efficiency_gap`,
//!   `separating_share`), `normalised`, `printed`, `null`, or `minus` another quantity.
//!
//! [`Quantity::parse`] reads a name back and [`Quantity`]'s `Display` writes it; the
//! tests round-trip every quantity a committed result holds.

use std::fmt;

use xai_core::{Statistic, ValueFunction};

/// The inference a quantity wraps around its measure, written first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Inference {
    /// `learner_`: the mean over refits with its (optionally Nadeau-Bengio corrected)
    /// t-interval (molnar2023 Eq. 9-10).
    Learner,
    /// `truth_`: the Monte-Carlo or closed-form truth of a coverage study.
    Truth,
    /// `coverage_`: the share of intervals that hold the truth.
    Coverage,
    /// `width_`: the mean width of those intervals.
    Width,
    /// `mc_se_`: the Monte-Carlo standard error of an estimate.
    McSe,
    /// `pearson_`: not over refits but across features, Pearson's r of each other
    /// quantity with this one over the features (icefi2022 Tables 1 and 3).
    Pearson,
}

impl Inference {
    const ALL: [Inference; 6] = [
        Inference::Learner,
        Inference::Truth,
        Inference::Coverage,
        Inference::Width,
        Inference::McSe,
        Inference::Pearson,
    ];

    /// Its text, the quantity's first words.
    pub fn as_str(self) -> &'static str {
        match self {
            Inference::Learner => "learner",
            Inference::Truth => "truth",
            Inference::Coverage => "coverage",
            Inference::Width => "width",
            Inference::McSe => "mc_se",
            Inference::Pearson => "pearson",
        }
    }
}

/// How per-row values become the quantity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Aggregation {
    /// `pfi`: permutation feature importance, the mean change of the statistic.
    Pfi,
    /// `cid`: the covered-information-corrected PFI (cid2021).
    Cid,
    /// `pd`: partial dependence, the mean of the ICE curves.
    Pd,
    /// `ice`: the per-row ICE curves.
    Ice,
    /// `shap`: Shapley values.
    Shap,
    /// `score`: the statistic's mean on the test rows.
    Score,
    /// ICE impact (icefi2022): `fi`, `signed_fi`, `idfi`, `he`, `nl`.
    Impact(Impact),
}

/// The numbers of ICE impact ([`xai_core::IceImpact`], icefi2022 Eq. 1-5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Impact {
    /// `fi`: ICE feature impact, FI = σ · mean |s| over the ICE slopes s (Eq. 1).
    Fi,
    /// `signed_fi`: σ · mean s, Eq. 1 without the absolute value.
    SignedFi,
    /// `idfi`: in-distribution feature impact, σ · Σ L|s| / Σ L with
    /// L⁽ⁱ⁾_k = λ^{|v_k − x⁽ⁱ⁾|/σ} (Eq. 2-3).
    Idfi,
    /// `he`: heterogeneity, σ · mean over k of the sd over rows of s_k (Eq. 4).
    He,
    /// `nl`: non-linearity, σ · mean over rows of the sd over k of s⁽ⁱ⁾ (Eq. 5).
    Nl,
}

impl Impact {
    /// Every impact number, in the order the method emits them.
    pub const ALL: [Impact; 5] = [
        Impact::Fi,
        Impact::SignedFi,
        Impact::Idfi,
        Impact::He,
        Impact::Nl,
    ];
}

impl Aggregation {
    const ALL: [Aggregation; 11] = [
        Aggregation::Pfi,
        Aggregation::Cid,
        Aggregation::Pd,
        Aggregation::Ice,
        Aggregation::Shap,
        Aggregation::Score,
        Aggregation::Impact(Impact::SignedFi),
        Aggregation::Impact(Impact::Fi),
        Aggregation::Impact(Impact::Idfi),
        Aggregation::Impact(Impact::He),
        Aggregation::Impact(Impact::Nl),
    ];

    /// Its text.
    pub fn as_str(self) -> &'static str {
        match self {
            Aggregation::Pfi => "pfi",
            Aggregation::Cid => "cid",
            Aggregation::Pd => "pd",
            Aggregation::Ice => "ice",
            Aggregation::Shap => "shap",
            Aggregation::Score => "score",
            Aggregation::Impact(Impact::Fi) => "fi",
            Aggregation::Impact(Impact::SignedFi) => "signed_fi",
            Aggregation::Impact(Impact::Idfi) => "idfi",
            Aggregation::Impact(Impact::He) => "he",
            Aggregation::Impact(Impact::Nl) => "nl",
        }
    }
}

/// The sampler a perturbation draws replacement values from, when it is not the
/// marginal permutation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sampler {
    /// `conditional`: a conditional Gaussian, or a PD's conditional band.
    Conditional,
    /// `fresh`: fresh draws from the feature's marginal.
    Fresh,
    /// `subgroup`: permutation within rpart subgroups (cs-PFI).
    Subgroup,
}

impl Sampler {
    const ALL: [Sampler; 3] = [Sampler::Conditional, Sampler::Fresh, Sampler::Subgroup];

    /// Its text.
    pub fn as_str(self) -> &'static str {
        match self {
            Sampler::Conditional => "conditional",
            Sampler::Fresh => "fresh",
            Sampler::Subgroup => "subgroup",
        }
    }
}

/// What follows the aggregation, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Suffix {
    /// `corrected`: with the Nadeau-Bengio corrected interval.
    Corrected,
    /// A word of its own: a band (`model`, `rows`, `conditional`), a Shapley summary
    /// (`abs`, `mu`, `tau`, `coverage`, `auc`, `roc`, `efficiency_gap`,
    /// `separating_share`, `separating_baseline`, `separating_excess`), `normalised`,
    /// `printed` or `null`.
    Word(&'static str),
    /// `minus_<quantity>`: this quantity minus another.
    Minus(Box<Quantity>),
}

/// The words [`Suffix::Word`] takes, longest first where one ends another.
const WORDS: [&str; 16] = [
    "separating_baseline",
    "separating_excess",
    "separating_share",
    "efficiency_gap",
    "normalised",
    "conditional",
    "coverage",
    "printed",
    "model",
    "rows",
    "null",
    "abs",
    "auc",
    "roc",
    "tau",
    "mu",
];

/// A quantity's name (module doc).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quantity {
    /// The inferences around it, outermost first (`learner_coverage_…` would be the
    /// learner's mean of a coverage); empty for none.
    pub inference: Vec<Inference>,
    /// What is measured: a statistic's or value function's prefix, or a name.
    pub measure: String,
    /// The perturbation's sampler, when not the marginal one.
    pub sampler: Option<Sampler>,
    /// How per-row values are aggregated, when by an explanation method.
    pub aggregation: Option<Aggregation>,
    /// What follows, in order.
    pub suffixes: Vec<Suffix>,
}

impl Quantity {
    /// `<measure>[_<sampler>]_<aggregation>`.
    pub fn new(
        measure: impl Into<String>,
        sampler: Option<Sampler>,
        aggregation: Aggregation,
    ) -> Self {
        Quantity {
            inference: Vec::new(),
            measure: measure.into(),
            sampler,
            aggregation: Some(aggregation),
            suffixes: Vec::new(),
        }
    }

    /// A statistic's quantity, `<prefix>[_<sampler>]_<aggregation>`.
    pub fn of(statistic: Statistic, sampler: Option<Sampler>, aggregation: Aggregation) -> Self {
        Quantity::new(statistic.quantity_prefix(), sampler, aggregation)
    }

    /// The same quantity wrapped in `inference` (outside any it has).
    pub fn within(mut self, inference: Inference) -> Self {
        self.inference.insert(0, inference);
        self
    }

    /// `estimand`'s name read back ([`Quantity::read`]), wrapped in `inference`
    /// (outside any it has), with the corrected interval's suffix when `corrected`:
    /// `learner_loss_pfi_corrected`, `width_prediction_pd`.
    pub fn wrapped(estimand: &str, inference: Option<Inference>, corrected: bool) -> Self {
        let mut q = Quantity::read(estimand);
        if let Some(i) = inference {
            q = q.within(i);
        }
        if corrected {
            q = q.with(Suffix::Corrected);
        }
        q
    }

    /// The outermost inference, if any.
    pub fn outer(&self) -> Option<Inference> {
        self.inference.first().copied()
    }

    /// The same quantity without its outermost inference.
    pub fn unwrapped(mut self) -> Self {
        if !self.inference.is_empty() {
            self.inference.remove(0);
        }
        self
    }

    /// The same quantity with `suffix` appended.
    pub fn with(mut self, suffix: Suffix) -> Self {
        self.suffixes.push(suffix);
        self
    }

    /// The statistic it measures, if its measure is a statistic's prefix.
    pub fn statistic(&self) -> Option<Statistic> {
        Statistic::ALL
            .into_iter()
            .find(|s| s.quantity_prefix() == self.measure)
    }

    /// Whether it is a corrected interval's (its last suffix is `corrected`).
    pub fn is_corrected(&self) -> bool {
        self.suffixes.last() == Some(&Suffix::Corrected)
    }

    /// Whether its last suffix is `word`.
    pub fn ends_with_word(&self, word: &str) -> bool {
        matches!(self.suffixes.last(), Some(Suffix::Word(w)) if *w == word)
    }

    /// `name` read as a quantity, or kept whole as a measure of its own when it does
    /// not parse (a YAML name validation then refuses where it needs a structure):
    /// never fails, so a method can name its quantities before its settings are
    /// checked.
    pub fn read(name: &str) -> Quantity {
        Quantity::parse(name).unwrap_or_else(|| Quantity {
            inference: Vec::new(),
            measure: name.to_string(),
            sampler: None,
            aggregation: None,
            suffixes: Vec::new(),
        })
    }

    /// Reads a quantity's name; `None` for an empty name or an aggregation of a
    /// measure that is no statistic's or value function's prefix (`lost_pfi`). A name
    /// without an aggregation is a quantity of its own (`covered`). Every name a
    /// method emits parses, and writes back unchanged.
    pub fn parse(name: &str) -> Option<Quantity> {
        let mut inference = Vec::new();
        let mut rest = name;
        while let Some((i, r)) = Inference::ALL
            .into_iter()
            .find_map(|i| Some((i, rest.strip_prefix(i.as_str())?.strip_prefix('_')?)))
        {
            inference.push(i);
            rest = r;
        }
        let (head, minus) = match rest.split_once("_minus_") {
            Some((head, other)) => (head, Some(Box::new(Quantity::parse(other)?))),
            None => (rest, None),
        };
        let mut q = Quantity::parse_plain(head)?;
        q.inference = inference;
        if let Some(m) = minus {
            q.suffixes.push(Suffix::Minus(m));
        }
        Some(q)
    }

    /// A name without inference or `minus`: measure, sampler, aggregation, words.
    fn parse_plain(name: &str) -> Option<Quantity> {
        // Trailing words, read off the end while they are words.
        let mut body = name;
        let mut suffixes = Vec::new();
        loop {
            if let Some(b) = body.strip_suffix("_corrected") {
                suffixes.push(Suffix::Corrected);
                body = b;
                continue;
            }
            let word = WORDS.into_iter().find(|w| {
                body.strip_suffix(w)
                    .is_some_and(|b| b.ends_with('_') && b.len() > 1)
            });
            match word {
                Some(w) => {
                    body = &body[..body.len() - w.len() - 1];
                    suffixes.push(Suffix::Word(w));
                }
                None => break,
            }
        }
        suffixes.reverse();
        let found = Aggregation::ALL.into_iter().find_map(|a| {
            let measure = body.strip_suffix(a.as_str())?.strip_suffix('_')?;
            (!measure.is_empty()).then_some((measure, a))
        });
        let (measure, sampler, aggregation) = match found {
            Some((front, a)) => {
                let sampler = Sampler::ALL.into_iter().find_map(|s| {
                    let m = front.strip_suffix(s.as_str())?.strip_suffix('_')?;
                    known_measure(m).then_some((m, s))
                });
                match sampler {
                    Some((m, s)) => (m, Some(s), Some(a)),
                    // An aggregation's measure is a statistic's or a value
                    // function's prefix: a renamed one reads as no quantity.
                    None if known_measure(front) => (front, None, Some(a)),
                    None => return None,
                }
            }
            None => (body, None, None),
        };
        if measure.is_empty() {
            return None;
        }
        Some(Quantity {
            inference: Vec::new(),
            measure: measure.to_string(),
            sampler,
            aggregation,
            suffixes,
        })
    }
}

/// Whether `m` is a statistic's or a Shapley value function's prefix
/// (`expected_<statistic>` included).
fn known_measure(m: &str) -> bool {
    Statistic::ALL.iter().any(|s| s.quantity_prefix() == m)
        || ValueFunction::PLAIN
            .iter()
            .any(|v| v.quantity_prefix() == m)
        || m.strip_prefix("expected_")
            .is_some_and(|s| Statistic::ALL.iter().any(|t| t.quantity_prefix() == s))
}

impl fmt::Display for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for i in &self.inference {
            write!(f, "{}_", i.as_str())?;
        }
        f.write_str(&self.measure)?;
        if let Some(s) = self.sampler {
            write!(f, "_{}", s.as_str())?;
        }
        if let Some(a) = self.aggregation {
            write!(f, "_{}", a.as_str())?;
        }
        for s in &self.suffixes {
            match s {
                Suffix::Corrected => f.write_str("_corrected")?,
                Suffix::Word(w) => write!(f, "_{w}")?,
                Suffix::Minus(q) => write!(f, "_minus_{q}")?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(name: &str) -> Quantity {
        let q = Quantity::parse(name).unwrap();
        assert_eq!(q.to_string(), name, "{q:?} writes back");
        q
    }

    #[test]
    fn explanations_split_into_statistic_sampler_and_aggregation() {
        let q = parsed("entropy_conditional_pfi");
        assert_eq!(q.statistic(), Some(Statistic::Entropy));
        assert_eq!(q.sampler, Some(Sampler::Conditional));
        assert_eq!(q.aggregation, Some(Aggregation::Pfi));
        // A statistic whose prefix holds an underscore is one measure, not a sampler.
        let q = parsed("code_entropy_pfi");
        assert_eq!(q.statistic(), Some(Statistic::CodeEntropy));
        assert_eq!(q.sampler, None);
        assert_eq!(
            parsed("brier_subgroup_pfi").sampler,
            Some(Sampler::Subgroup)
        );
        assert_eq!(
            parsed("prediction_signed_fi").aggregation,
            Some(Aggregation::Impact(Impact::SignedFi))
        );
        assert_eq!(
            parsed("prediction_idfi").aggregation,
            Some(Aggregation::Impact(Impact::Idfi))
        );
        assert_eq!(
            parsed("aleatoric_entropy_shap").measure,
            "aleatoric_entropy"
        );
    }

    #[test]
    fn inference_and_suffixes_wrap_the_estimand() {
        let q = parsed("learner_prediction_conditional_pd_corrected");
        assert_eq!(q.inference, [Inference::Learner]);
        assert!(q.is_corrected());
        assert_eq!(
            q.unwrapped().to_string(),
            "prediction_conditional_pd_corrected"
        );
        let q = parsed("coverage_prediction_pd_model");
        assert_eq!(q.outer(), Some(Inference::Coverage));
        assert_eq!(q.suffixes, [Suffix::Word("model")]);
        assert_eq!(parsed("mc_se_prediction_pd").outer(), Some(Inference::McSe));
        // Inferences nest, outermost first.
        let q = parsed("learner_coverage_prediction_pd_rows");
        assert_eq!(q.inference, [Inference::Learner, Inference::Coverage]);
        assert_eq!(q.unwrapped().to_string(), "coverage_prediction_pd_rows");
        // A Shapley summary named `coverage` is a suffix, not the inference.
        let q = parsed("prediction_shap_coverage");
        assert_eq!(q.outer(), None);
        assert!(q.ends_with_word("coverage"));
        let q = parsed("prediction_fi_normalised_minus_impurity_importance_normalised");
        let Some(Suffix::Minus(other)) = q.suffixes.last() else {
            panic!("{q:?}")
        };
        assert_eq!(other.measure, "impurity_importance");
        let q = parsed("pearson_prediction_fi_normalised");
        assert_eq!(q.outer(), Some(Inference::Pearson));
        assert_eq!(q.aggregation, Some(Aggregation::Impact(Impact::Fi)));
        assert_eq!(q.suffixes[0], Suffix::Word("normalised"));
    }

    #[test]
    fn names_of_their_own_stay_whole() {
        for name in [
            "mi",
            "covered",
            "class_share",
            "r2_with_target",
            "outside_training_range",
        ] {
            let q = parsed(name);
            assert_eq!((q.measure.as_str(), q.aggregation), (name, None));
        }
        assert_eq!(parsed("mi_null").suffixes, [Suffix::Word("null")]);
    }

    #[test]
    fn an_aggregation_of_an_unknown_measure_is_no_quantity() {
        assert_eq!(Quantity::parse("lost_pfi"), None);
        assert_eq!(Quantity::parse("learner_lost_conditional_pd"), None);
        assert_eq!(Quantity::parse(""), None);
        // Read without failing, kept whole.
        assert_eq!(Quantity::read("lost_pfi").to_string(), "lost_pfi");
        assert_eq!(Quantity::read("lost_pfi").aggregation, None);
        assert_eq!(parsed("expected_loss_shap").measure, "expected_loss");
    }

    #[test]
    fn built_quantities_write_the_names_rows_carry() {
        let pfi = Quantity::of(Statistic::SquaredError, None, Aggregation::Pfi);
        assert_eq!(pfi.to_string(), "loss_pfi");
        assert_eq!(
            pfi.clone()
                .within(Inference::Learner)
                .with(Suffix::Corrected)
                .to_string(),
            "learner_loss_pfi_corrected"
        );
        assert_eq!(
            Quantity::of(Statistic::Nll, Some(Sampler::Fresh), Aggregation::Pfi).to_string(),
            "likelihood_fresh_pfi"
        );
        assert_ne!(pfi, Quantity::parse("loss_cid").unwrap());
    }
}
