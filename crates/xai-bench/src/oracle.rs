//! The truth an `oracle` model predicts: the conditional moments of the experiment's
//! DGP ([`xai_synth::Dgp::conditional_mean`], [`xai_synth::Dgp::conditional_variance`]).

use ndarray::{Array1, ArrayView2};
use xai_models::oracle::Truth;
use xai_synth::DgpSpec;

/// A DGP as the oracle's [`Truth`].
pub(crate) struct DgpTruth(pub(crate) DgpSpec);

impl Truth for DgpTruth {
    fn mean(&self, x: ArrayView2<'_, f64>) -> Array1<f64> {
        self.0.dgp().conditional_mean(x)
    }

    fn variance(&self, x: ArrayView2<'_, f64>) -> Array1<f64> {
        self.0.dgp().conditional_variance(x)
    }
}
