//! The `across` assertion: a claim about one sample judged over independent samples
//! (or over redraws of a random split of one dataset: molnar2023's fold draws).
//!
//! A paper's figure often shows one sample of its DGP (cid2021 Fig. 2: 20 shuffle
//! splits of one 5000-row sample). Its splits share that sample, so their intervals
//! leave out the sample's own error, and a pattern the figure shows may be that
//! sample's alone (three exchangeable features, one of which ranks lowest in a third
//! of all samples). A grid key whose values are independent samples (each variant
//! draws its data from its own stream) turns such a claim into a measurement: the
//! inner assertion is evaluated on each sample as if the run had had it alone, and the
//! claim holds where it holds in at least `share` of them, with the share reported.

use serde::Deserialize;

use crate::tolerance::Threshold;

use super::{Assertion, AssertionKind, Context, Reads, Verdict, at_least, default_share};
use xai_results::Invalid;
use xai_results::layout::{PaperValue, TableSpec};

/// `across: { key, share, assert }`: the inner assertion holds on at least
/// ⌈share·K⌉ of the K values of grid key `key`, each judged on its own rows
/// ([`xai_results::output::RunOutput::at_grid_value`]). Measured: the share of values
/// on which it holds (NaN, a failure, when the key has no values or the inner
/// assertion's measure is NaN on one of them).
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Across {
    /// The grid key whose values are independent samples (e.g. `sample`) or redraws
    /// of a random split (e.g. `draw`).
    pub key: String,
    /// Share of its values on which the inner assertion must hold (default 1: on every
    /// one).
    #[serde(default = "default_share")]
    pub share: f64,
    /// The assertion judged on each value.
    pub assert: Box<Assertion>,
}

impl AssertionKind for Across {
    fn thresholds(&self) -> Vec<Threshold> {
        let mut t = Threshold::unless("share", self.share, 1.0);
        t.extend(self.assert.kind().thresholds());
        t
    }

    fn quantities(&self) -> Vec<&String> {
        self.assert.kind().quantities()
    }

    /// The inner assertion's paper value (a `near`'s), the number every sample is
    /// held to, which tables show beside ours.
    fn paper_value(&self) -> Option<PaperValue<'_>> {
        self.assert.kind().paper_value()
    }

    fn reads(&self) -> Reads<'_> {
        self.assert.kind().reads()
    }

    fn validate(&self, tables: &[TableSpec]) -> Result<(), Invalid> {
        if !(self.share > 0.0 && self.share <= 1.0) {
            return Err(Invalid::new(
                "share",
                format!(
                    "share = {} must lie in (0, 1]: the share of the samples on which the claim holds",
                    self.share
                ),
            ));
        }
        self.assert.kind().validate(tables)
    }

    fn verdict(&self, ctx: &Context<'_>) -> Verdict {
        let values = ctx.out.grid_values(&self.key);
        if values.is_empty() {
            return Verdict::no_rows(&format!(
                "`{}` is no grid key of this run (or has no rows): across needs a grid key \
                 whose values are independent samples",
                self.key
            ));
        }
        let (mut held, mut undecided, mut parts) = (0, false, Vec::new());
        for value in &values {
            let Some(one) = ctx.out.at_grid_value(&self.key, value) else {
                continue;
            };
            let v = self.assert.kind().verdict(&Context { out: &one, ..*ctx });
            held += usize::from(v.holds);
            undecided |= v.measured.is_nan() && !v.holds;
            parts.push(format!(
                "{}={value}: {} ({})",
                self.key,
                if v.holds { "holds" } else { "fails" },
                v.detail
            ));
        }
        let k = values.len();
        let need = at_least(self.share, k);
        let measured = match undecided {
            true => f64::NAN,
            false => held as f64 / k as f64,
        };
        Verdict::new(
            held >= need && !undecided,
            measured,
            format!(
                "holds on {held} of {k} values of {} (at least {need} required): {}",
                self.key,
                parts.join("; ")
            ),
        )
    }
}
