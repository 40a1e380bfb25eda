//! The extension point for learners: a learner is its settings struct (what its YAML
//! entry holds, e.g. [`crate::GpParams`]) implementing [`LearnerKind`] in the
//! learner's own file, plus one line of the registry ([`crate::LearnerSpec`]). The
//! registry names no learner elsewhere but in `LearnerSpec::data_files_mut` (the
//! learners that read a file): experiment validation, the memory planner, figure
//! labels and the runner read a learner only through this trait.

use xai_core::Learner;

use crate::capabilities::Capabilities;
use crate::error::ParamError;

/// What the workspace knows of a learner before fitting it, and how to build it.
///
/// The memory estimates are upper-order: with n training rows, d features, m
/// predicted rows, T trees, P the threads of rayon's pool, o = 2 values per tree node
/// (a binary classifier; a regression stores 1, k classes k), l the minimum leaf
/// size and D the maximum depth, each implementation states its formula. They are
/// computed in u128, saturating, so 10¹¹ rows (10²² for a GP) neither overflow nor
/// wrap, and a runner can refuse a size before allocating. The forests' terms are
/// worst cases (every leaf one row, every vector at twice its length): measured fits
/// of 20 trees on 20,000 rows and 5 features peaked 1.4–7× below them.
pub trait LearnerKind: Send + Sync {
    /// The learner's name in words, for figures ("Gaussian process").
    fn describe(&self) -> &'static str;

    /// Checks the settings before any work starts; the error names the offending
    /// setting. Each setting's own range is declared once, on its field
    /// (`#[schemars(range(..))]`): a front end's node is checked against it where it
    /// is read (`xai_bench::kinds::read`), and a learner with ranges checks itself
    /// against the same declaration ([`xai_core::settings::check_value`]); what a schema cannot
    /// declare (a relation between settings, a truth or a learner handed over) is
    /// checked here by hand. A learner without either takes this default.
    fn validate(&self) -> Result<(), ParamError> {
        Ok(())
    }

    /// What the fitted model offers beside its predictions, every field stated
    /// ([`Capabilities`] has no default). The registry's test fits every learner and
    /// checks that its model offers exactly this.
    fn capabilities(&self) -> Capabilities;

    /// Peak bytes fitting on `n_rows` rows of `n_features` features allocates,
    /// besides the data itself.
    fn fit_memory_bytes(&self, n_rows: u128, n_features: u128) -> u128;

    /// Peak bytes one prediction call on `n_rows` rows of `n_features` features
    /// allocates, for a model fitted on `n_train` rows (besides the model and the rows).
    fn predict_memory_bytes(&self, n_train: u128, n_rows: u128, n_features: u128) -> u128;

    /// The learner.
    fn build(&self) -> Box<dyn Learner>;
}
