//! The `not` assertion: the claim that another assertion does not hold.

use serde::Deserialize;

use crate::tolerance::Threshold;

use super::{Assertion, AssertionKind, Context, Reads, Verdict};
use xai_results::Invalid;
use xai_results::layout::TableSpec;

/// The claim that the inner assertion does not hold (e.g. "PFI does not put X2-X4 on
/// top in most splits"); nothing selected still fails (a NaN measure is never a
/// pass). Measured: the inner assertion's measure.
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(transparent)]
pub struct Not(pub Box<Assertion>);

impl AssertionKind for Not {
    fn thresholds(&self) -> Vec<Threshold> {
        self.0.kind().thresholds()
    }

    fn quantities(&self) -> Vec<&String> {
        self.0.kind().quantities()
    }

    fn reads(&self) -> Reads<'_> {
        self.0.kind().reads()
    }

    fn validate(&self, tables: &[TableSpec]) -> Result<(), Invalid> {
        self.0.kind().validate(tables)
    }

    fn verdict(&self, ctx: &Context<'_>) -> Verdict {
        let v = self.0.kind().verdict(ctx);
        Verdict::new(
            !v.holds && !v.measured.is_nan(),
            v.measured,
            format!(
                "the negated assertion {}: {}",
                if v.holds { "holds" } else { "fails" },
                v.detail
            ),
        )
    }
}
