//! One meaning per colour across every figure: likelihood blue, entropy orange,
//! class 1 red, class 0 purple, and the other series (features, models, methods,
//! settings) in colours none of those has, so a colour read in one figure means the
//! same in the next.
//!
//! Every key entry and every row of bars records the colour it draws its label in
//! ([`record`]); [`colours_drawn`] collects them while figures are drawn and
//! [`conflicts`] names a label drawn in two colours (the test over every committed
//! figure).

use std::cell::RefCell;

use plotters::style::RGBColor;
use xai_core::Statistic;
use xai_results::quantity::Quantity;

/// Likelihood (Likelihood-PFI, -PDP, -ICE): wood2024's blue.
pub const LIKELIHOOD: RGBColor = RGBColor(31, 119, 180);
/// Entropy (Entropy-PFI, -PDP, -ICE): wood2024's orange.
pub const ENTROPY: RGBColor = RGBColor(255, 127, 14);
/// Rows of class 1.
pub const CLASS_1: RGBColor = RGBColor(214, 39, 40);
/// Rows of class 0.
pub const CLASS_0: RGBColor = RGBColor(148, 103, 189);

/// The colours of other series, in order: none is a statistic's or a class's.
pub const SERIES: [RGBColor; 6] = [
    RGBColor(44, 160, 44),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
    RGBColor(188, 189, 34),
    RGBColor(90, 90, 90),
];

/// The `i`-th series' colour (the palette repeats past six).
pub fn series(i: usize) -> RGBColor {
    SERIES[i % SERIES.len()]
}

/// The colour of a quantity's statistic: [`LIKELIHOOD`] or [`ENTROPY`]; `None` for
/// other statistics and for a coverage study's summaries (they take [`series`]).
pub fn statistic(quantity: &str) -> Option<RGBColor> {
    let q = Quantity::parse(quantity).filter(|q| q.inference.is_empty())?;
    match q.statistic()? {
        Statistic::Nll => Some(LIKELIHOOD),
        Statistic::Entropy => Some(ENTROPY),
        _ => None,
    }
}

/// The colour of a quantity's bars: its statistic's ([`statistic`]), else its
/// method's, the same in every figure: a learner's (over refits) green, impurity
/// importance brown, mutual-information terms pink, CID cyan, the covered share
/// olive, one model's PFI or PD of another statistic dark grey (so a model's curve
/// beside its learner's keeps the colours of their bars, molnar2023 Fig. 6); any
/// other the `i`-th [`series`].
pub fn quantity(q: &str, i: usize) -> RGBColor {
    if let Some(c) = statistic(q) {
        return c;
    }
    let words: Vec<&str> = q.split('_').collect();
    let has = |w: &str| words.contains(&w);
    match () {
        _ if has("learner") => SERIES[0],
        _ if has("impurity") => SERIES[1],
        _ if has("mi") => SERIES[2],
        _ if has("cid") => SERIES[3],
        _ if has("covered") => SERIES[4],
        _ if has("pfi") || has("pd") => SERIES[5],
        _ => series(i),
    }
}

/// [`CLASS_1`] for class 1, [`CLASS_0`] for class 0 (and a row of no class),
/// class k ≥ 2 the (k − 2)-th [`series`] colour, so three classes take three colours.
pub fn class(class: Option<usize>) -> RGBColor {
    match class {
        Some(1) => CLASS_1,
        Some(k) if k >= 2 => series(k - 2),
        _ => CLASS_0,
    }
}

thread_local! {
    /// The (label, colour) pairs drawn since [`colours_drawn`] started, if recording.
    static DRAWN: RefCell<Option<Vec<(String, RGBColor)>>> = const { RefCell::new(None) };
}

/// Records that `label` was drawn in `colour` (a key entry, a row of bars).
pub(crate) fn record(label: &str, colour: RGBColor) {
    DRAWN.with(|d| {
        if let Some(list) = d.borrow_mut().as_mut() {
            list.push((label.to_string(), colour));
        }
    });
}

/// Runs `draw` on this thread and returns its result with every (label, colour)
/// pair it drew.
pub fn colours_drawn<R>(draw: impl FnOnce() -> R) -> (R, Vec<(String, RGBColor)>) {
    let before = DRAWN.with(|d| d.replace(Some(Vec::new())));
    let result = draw();
    let drawn = DRAWN.with(|d| d.replace(before)).unwrap_or_default();
    (result, drawn)
}

/// The labels drawn in more than one colour, each with its colours and where (the
/// second element of each input pair: the figure that drew it).
pub fn conflicts(drawn: &[(String, RGBColor, String)]) -> Vec<String> {
    let mut labels: Vec<&String> = drawn.iter().map(|(l, _, _)| l).collect();
    labels.sort();
    labels.dedup();
    labels
        .into_iter()
        .filter_map(|label| {
            let mut seen: Vec<(RGBColor, &str)> = Vec::new();
            for (l, c, figure) in drawn {
                if l == label && !seen.iter().any(|(s, _)| s == c) {
                    seen.push((*c, figure));
                }
            }
            (seen.len() > 1).then(|| {
                let each: Vec<String> = seen
                    .iter()
                    .map(|(c, f)| format!("rgb({}, {}, {}) in {f}", c.0, c.1, c.2))
                    .collect();
                format!("`{label}`: {}", each.join("; "))
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statistics_and_classes_keep_their_colours_and_series_take_none_of_them() {
        assert_eq!(statistic("likelihood_pfi"), Some(LIKELIHOOD));
        assert_eq!(statistic("entropy_pd"), Some(ENTROPY));
        assert_eq!(statistic("r2_pfi"), None);
        assert_eq!((class(Some(1)), class(Some(0))), (CLASS_1, CLASS_0));
        assert_eq!(class(Some(2)), SERIES[0]);
        for c in SERIES {
            assert!(![LIKELIHOOD, ENTROPY, CLASS_1, CLASS_0].contains(&c));
        }
        // A method keeps its colour wherever its quantity is drawn.
        assert_eq!(quantity("mi", 0), quantity("mi", 3));
        assert_eq!(quantity("conditional_mi_null", 4), SERIES[2]);
        assert_eq!(quantity("r2_cid", 2), quantity("accuracy_cid", 0));
        assert_eq!(quantity("entropy_pfi", 5), ENTROPY);
        assert_ne!(
            quantity("brier_subgroup_pfi", 0),
            quantity("learner_brier_subgroup_pfi_corrected", 1)
        );
        assert_eq!(quantity("r2_with_target", 1), series(1));
        // A model's PD takes its PFI's colour, its learner's the learner's.
        assert_eq!(
            quantity("prediction_conditional_pd", 0),
            quantity("brier_subgroup_pfi", 1)
        );
        assert_eq!(
            quantity("learner_prediction_conditional_pd_corrected", 0),
            quantity("learner_brier_subgroup_pfi_corrected", 1)
        );
    }

    #[test]
    fn a_label_drawn_in_two_colours_is_a_conflict() {
        let ((), drawn) = colours_drawn(|| {
            record("boot", series(0));
            record("subs", series(1));
        });
        let mut all: Vec<(String, RGBColor, String)> = drawn
            .into_iter()
            .map(|(l, c)| (l, c, "fig5".into()))
            .collect();
        assert!(conflicts(&all).is_empty());
        all.push(("boot".into(), series(0), "figI7".into()));
        assert!(conflicts(&all).is_empty());
        all.push(("boot".into(), series(2), "fig4".into()));
        let found = conflicts(&all);
        assert_eq!(found.len(), 1);
        assert!(
            found[0].contains("`boot`") && found[0].contains("fig4"),
            "{found:?}"
        );
        // Outside a recording nothing is kept.
        record("boot", series(3));
        assert!(colours_drawn(|| {}).1.is_empty());
    }
}
