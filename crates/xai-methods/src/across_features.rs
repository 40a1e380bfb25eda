//! Numbers across the features of one replicate, read off quantities that methods
//! listed before emitted per feature (icefi2022's comparison of importance measures,
//! PAPERS.md §3.5–3.6):
//!
//! - [`NormaliseSpec`]: each quantity q as a share of its total,
//!   `<q>_normalised`_j = 100·|q_j| / Σ_k |q_k| ("made positive and normalised to sum
//!   to 100", the tables of icefi2022 §4 and App. C);
//! - [`CorrelationSpec`]: Pearson's correlation over the features between a reference
//!   quantity and each other one, r = Σ(a_j − ā)(b_j − b̄) / √(Σ(a_j − ā)²·Σ(b_j − b̄)²)
//!   (icefi2022 Tables 1 and 3);
//! - [`DifferenceSpec`]: q_j − p_j per feature (icefi2022 Table 2).
//!
//! Computed per replicate, so their means over replicates come with a spread over
//! refits (over forest seeds, where the paper had one forest).

use serde::Deserialize;
use xai_core::CoreError;
use xai_core::rng::StreamRng;

use crate::method::{Emitted, Input, Method, Plan};
use xai_results::quantity::{Inference, Quantity, Suffix};
use xai_results::{Invalid, Value, point};

/// `normalise: {quantities: [q, ...]}`: reports `<q>_normalised` per feature.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NormaliseSpec {
    /// Per-feature quantities of methods listed before.
    pub quantities: Vec<String>,
}

/// `correlation: {reference: a, with: [b, ...]}`: reports `pearson_<a>`, one row per
/// quantity b, its `feature` column naming b.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CorrelationSpec {
    /// The quantity every other is correlated with.
    pub reference: String,
    /// The quantities correlated with it.
    pub with: Vec<String>,
}

/// `difference: {quantity: q, minus: p}`: reports `<q>_minus_<p>` per feature.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DifferenceSpec {
    /// The quantity subtracted from.
    pub quantity: String,
    /// The quantity subtracted.
    pub minus: String,
}

/// Checks every quantity was reported per feature by a method listed before.
fn listed_before<'a>(
    plan: &Plan<'_>,
    method: &str,
    field: &str,
    quantities: impl IntoIterator<Item = &'a String>,
) -> Result<(), Invalid> {
    let mut any = false;
    for q in quantities {
        any = true;
        if !plan.earlier.contains(q) {
            return Err(Invalid::new(
                field,
                format!(
                    "{method} reads `{q}`, which no method listed before it reports (listed \
                     before: {})",
                    plan.earlier.join(", ")
                ),
            ));
        }
    }
    if any {
        Ok(())
    } else {
        Err(Invalid::new(
            field,
            format!("{method} needs at least one quantity"),
        ))
    }
}

/// The per-feature values (no grid point) of `quantity` among the earlier values, in
/// the order they were emitted.
fn per_feature<'a>(input: &'a Input<'_>, quantity: &str) -> Vec<&'a Value> {
    input
        .earlier
        .iter()
        .filter(|v| v.quantity == quantity && v.x.is_none())
        .collect()
}

/// The estimates of `quantity` for `features`, in that order; an error naming the
/// first feature it lacks.
fn aligned(
    input: &Input<'_>,
    quantity: &str,
    features: &[&str],
) -> xai_core::error::Result<Vec<f64>> {
    let values = per_feature(input, quantity);
    features
        .iter()
        .map(|f| {
            values
                .iter()
                .find(|v| v.feature == *f)
                .map(|v| v.estimate.estimate)
                .ok_or_else(|| {
                    CoreError::Invalid(format!("`{quantity}` has no value for feature `{f}`"))
                })
        })
        .collect()
}

/// Quantity `q` read by name ([`Quantity::read`]).
fn named(q: &str) -> Quantity {
    Quantity::read(q)
}

/// `<q>_normalised`.
fn normalised(q: &str) -> String {
    named(q).with(Suffix::Word("normalised")).to_string()
}

impl CorrelationSpec {
    /// `pearson_<reference>`.
    fn correlation(&self) -> String {
        named(&self.reference)
            .within(Inference::Pearson)
            .to_string()
    }
}

impl DifferenceSpec {
    /// `<quantity>_minus_<minus>`.
    fn difference(&self) -> String {
        named(&self.quantity)
            .with(Suffix::Minus(Box::new(named(&self.minus))))
            .to_string()
    }
}

/// A per-feature value.
fn value(quantity: String, feature: &str, v: f64, n: usize) -> Value {
    Value {
        quantity,
        feature: feature.to_string(),
        x: None,
        estimate: point(v, n),
    }
}

impl Method for NormaliseSpec {
    fn compares_with_labels(&self) -> bool {
        false
    }

    fn quantities(&self) -> Vec<String> {
        self.quantities.iter().map(|q| normalised(q)).collect()
    }

    fn needs_fit(&self) -> bool {
        false
    }

    fn validate(&self, plan: &Plan<'_>) -> Result<(), Invalid> {
        listed_before(plan, "normalise", "quantities", &self.quantities)
    }

    fn compute(&self, input: &Input<'_>, _rng: &mut StreamRng) -> xai_core::error::Result<Emitted> {
        let mut out = Emitted::default();
        for q in &self.quantities {
            let values = per_feature(input, q);
            let estimates: Vec<f64> = values.iter().map(|v| v.estimate.estimate).collect();
            let shares = shares(&estimates).ok_or_else(|| {
                CoreError::Invalid(format!(
                    "cannot normalise `{q}`: its absolute values over {} features sum to 0 \
                     or are not finite",
                    estimates.len()
                ))
            })?;
            out.values.extend(
                values
                    .iter()
                    .zip(shares)
                    .map(|(v, share)| value(normalised(q), &v.feature, share, values.len())),
            );
        }
        Ok(out)
    }
}

/// 100·|v_j| / Σ_k |v_k|, icefi2022's "made positive and normalised to sum to 100"
/// (Tables 1–4, App. C); `None` when the sum is 0 or not finite.
pub fn shares(values: &[f64]) -> Option<Vec<f64>> {
    let total: f64 = values.iter().map(|v| v.abs()).sum();
    (total > 0.0 && total.is_finite())
        .then(|| values.iter().map(|v| 100.0 * v.abs() / total).collect())
}

/// Pearson's correlation r = Σ(a_j − ā)(b_j − b̄) / √(Σ(a_j − ā)²·Σ(b_j − b̄)²) of `a`
/// and `b` (icefi2022 Tables 1 and 3, over the features); NaN when either is
/// constant.
pub fn pearson(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len() as f64;
    let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for (x, y) in a.iter().zip(b) {
        sab += (x - ma) * (y - mb);
        saa += (x - ma) * (x - ma);
        sbb += (y - mb) * (y - mb);
    }
    sab / (saa * sbb).sqrt()
}

impl Method for CorrelationSpec {
    fn compares_with_labels(&self) -> bool {
        false
    }

    fn quantities(&self) -> Vec<String> {
        vec![self.correlation()]
    }

    fn needs_fit(&self) -> bool {
        false
    }

    fn validate(&self, plan: &Plan<'_>) -> Result<(), Invalid> {
        listed_before(
            plan,
            "correlation",
            "reference",
            std::iter::once(&self.reference),
        )?;
        listed_before(plan, "correlation", "with", &self.with)
    }

    fn compute(&self, input: &Input<'_>, _rng: &mut StreamRng) -> xai_core::error::Result<Emitted> {
        let reference = per_feature(input, &self.reference);
        let features: Vec<&str> = reference.iter().map(|v| v.feature.as_str()).collect();
        let a: Vec<f64> = reference.iter().map(|v| v.estimate.estimate).collect();
        let mut out = Emitted::default();
        for q in &self.with {
            let b = aligned(input, q, &features)?;
            out.values.push(value(
                self.correlation(),
                q,
                pearson(&a, &b),
                features.len(),
            ));
        }
        Ok(out)
    }
}

impl Method for DifferenceSpec {
    fn compares_with_labels(&self) -> bool {
        false
    }

    fn quantities(&self) -> Vec<String> {
        vec![self.difference()]
    }

    fn needs_fit(&self) -> bool {
        false
    }

    fn validate(&self, plan: &Plan<'_>) -> Result<(), Invalid> {
        listed_before(
            plan,
            "difference",
            "quantity",
            [&self.quantity, &self.minus],
        )
    }

    fn compute(&self, input: &Input<'_>, _rng: &mut StreamRng) -> xai_core::error::Result<Emitted> {
        let from = per_feature(input, &self.quantity);
        let features: Vec<&str> = from.iter().map(|v| v.feature.as_str()).collect();
        let minus = aligned(input, &self.minus, &features)?;
        let name = self.difference();
        Ok(Emitted {
            values: from
                .iter()
                .zip(minus)
                .map(|(v, m)| {
                    value(
                        name.clone(),
                        &v.feature,
                        v.estimate.estimate - m,
                        from.len(),
                    )
                })
                .collect(),
            ..Default::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Shares of the absolute values, summing to 100; nothing to share is refused.
    #[test]
    fn shares_by_hand() {
        assert_eq!(shares(&[1.0, -3.0, 0.0]), Some(vec![25.0, 75.0, 0.0]));
        assert_eq!(shares(&[0.0, 0.0]), None);
        assert_eq!(shares(&[1.0, f64::NAN]), None);
    }

    /// Pearson's r by hand: b = 2a + 1 gives 1, its negative −1, and a pair with
    /// Σ(a − ā)(b − b̄) = 1, Σ(a − ā)² = 2, Σ(b − b̄)² = 2 gives 1/2.
    #[test]
    fn pearson_by_hand() {
        let a = [1.0, 2.0, 3.0];
        assert!((pearson(&a, &[3.0, 5.0, 7.0]) - 1.0).abs() < 1e-15);
        assert!((pearson(&a, &[-3.0, -5.0, -7.0]) + 1.0).abs() < 1e-15);
        // a − ā = (−1, 0, 1), b − b̄ = (0, −1, 1).
        assert!((pearson(&a, &[1.0, 0.0, 2.0]) - 0.5).abs() < 1e-15);
        assert!(pearson(&a, &[1.0, 1.0, 1.0]).is_nan());
    }
}
