//! What a run produced, as the figures, tables and checks read it: [`RunOutput`] at a
//! [`Scale`]. A plain record: it names no module that computes it, so everything that
//! reads a run (checks, plots, tables) sits below the runner and the experiment file.

use xai_core::Dataset;

use crate::entropy_map::EntropyMap;
use crate::table::{CurveRow, SummaryRow, TidyRow, summarize};
use xai_error::{BenchError, Result};

/// Run size: `smoke` (seconds), `ci` (under a minute), `paper` (the paper's size).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scale {
    /// Seconds; used by the integration tests.
    Smoke,
    /// Under a minute; used by `cargo xtask check`.
    Ci,
    /// The paper's size.
    Paper,
}

impl Scale {
    /// The scale's name.
    pub fn name(self) -> &'static str {
        match self {
            Scale::Smoke => "smoke",
            Scale::Ci => "ci",
            Scale::Paper => "paper",
        }
    }

    /// Parses `smoke`, `ci` or `paper`.
    pub fn parse(s: &str) -> Result<Scale> {
        match s {
            "smoke" => Ok(Scale::Smoke),
            "ci" => Ok(Scale::Ci),
            "paper" => Ok(Scale::Paper),
            other => Err(BenchError::Usage(format!(
                "unknown scale `{other}`; allowed: smoke, ci, paper"
            ))),
        }
    }
}

/// What a run computed.
#[derive(Debug, Clone)]
pub struct RunOutput {
    /// The scale run.
    pub scale: Scale,
    /// The grid keys (columns of the tables).
    pub keys: Vec<String>,
    /// One row per variant × replicate × model × quantity × feature × grid point.
    pub tidy: Vec<TidyRow>,
    /// The summary over replicates.
    pub summary: Vec<SummaryRow>,
    /// ICE curves of the sampled test rows (methods with `curves > 0`).
    pub curves: Vec<CurveRow>,
    /// Feature names of the data (of the first variant).
    pub feature_names: Vec<String>,
    /// The training sample of the first variant's first replicate (for data plots).
    pub train_sample: Option<Dataset>,
    /// The entropy maps of `permutation_map` methods (first variant, replicate and
    /// model).
    pub maps: Vec<EntropyMap>,
    /// Number of variants.
    pub variants: usize,
    /// Replicates per variant.
    pub replicates: usize,
    /// Threads used.
    pub threads: usize,
    /// Wall time of the computation in seconds.
    pub wall_seconds: f64,
    /// CPU time of the computation in seconds, all threads
    /// (`xai_data::workspace::cpu_seconds` of the
    /// process, plus the seconds that the cells read back from disk took when an
    /// earlier invocation computed them, so a resumed run states what its numbers
    /// cost; for a merge, the seconds its cells took in their shards); NaN where the
    /// platform does not tell.
    pub cpu_seconds: f64,
    /// Cells computed by this invocation and read back from disk.
    pub cells: Counts,
}

impl RunOutput {
    /// The run as replicate `k` alone: its tidy rows, and as summary their own
    /// estimates and intervals ([`crate::table::summarize`] of one replicate), for a
    /// figure of one fit.
    pub fn only_replicate(&self, k: usize, level: f64) -> RunOutput {
        let tidy: Vec<TidyRow> = self
            .tidy
            .iter()
            .filter(|r| r.replicate == k)
            .cloned()
            .collect();
        RunOutput {
            summary: summarize(&tidy, level),
            tidy,
            curves: self
                .curves
                .iter()
                .filter(|c| c.replicate == k)
                .cloned()
                .collect(),
            replicates: 1,
            ..self.clone()
        }
    }

    /// The run's rows of the variants whose grid key `key` takes `value` (its summary,
    /// tidy rows and curves; the entropy maps, which are the first variant's, kept),
    /// as if the run had had that value alone: one independent sample of a grid of
    /// samples, or one panel of a figure. `None` when `key` is no grid key.
    pub fn at_grid_value(&self, key: &str, value: &str) -> Option<RunOutput> {
        let c = self.keys.iter().position(|k| k == key)?;
        let keep = |labels: &[String]| labels.get(c).is_some_and(|l| l == value);
        Some(RunOutput {
            summary: self
                .summary
                .iter()
                .filter(|r| keep(&r.labels))
                .cloned()
                .collect(),
            tidy: self
                .tidy
                .iter()
                .filter(|r| keep(&r.labels))
                .cloned()
                .collect(),
            curves: self
                .curves
                .iter()
                .filter(|r| keep(&r.labels))
                .cloned()
                .collect(),
            ..self.clone()
        })
    }

    /// The values grid key `key` takes in the summary, in order of first appearance
    /// (empty when it is no grid key).
    pub fn grid_values(&self, key: &str) -> Vec<String> {
        let Some(c) = self.keys.iter().position(|k| k == key) else {
            return Vec::new();
        };
        self.summary.iter().fold(Vec::new(), |mut seen, r| {
            if !seen.contains(&r.labels[c]) {
                seen.push(r.labels[c].clone());
            }
            seen
        })
    }
}

/// How many cells (variant × replicate) an invocation had, computed, and read back
/// from disk (finished by an earlier, interrupted invocation or by shards).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Cells of this invocation (a shard's share, or all).
    pub total: usize,
    /// Computed now.
    pub computed: usize,
    /// Read back whole from disk.
    pub resumed: usize,
    /// Of the computed: found on disk but cut short or corrupt, so computed again.
    pub unusable: usize,
}
