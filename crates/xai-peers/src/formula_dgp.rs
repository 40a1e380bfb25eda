//! `formula_dgp`: sampling 10⁶ rows of molnar2023's non-linear DGP with the Rust DGP
//! (`molnar_nonlinear`) and with the same DGP written as formulas
//! (`experiments/examples/formula-molnar.yaml`, variant `nonlinear-formula`), best of
//! `repeats` after a warm-up, same seed: the JSON line holds both times, their ratio
//! (issue 34's goal: the formula within 2× of the Rust DGP) and whether the rows and
//! targets are equal to the bit.

use std::path::Path;
use std::time::Instant;

use serde_json::{Value, json};
use xai_core::Dataset;
use xai_core::rng::stream_rng;
use xai_synth::DgpSpec;

use xai_bench::error::{BenchError, Result};
use xai_bench::plan::Scale;

/// Rows drawn per timing.
const ROWS: usize = 1_000_000;

/// The example experiment holding both DGPs, and the grid labels of the two.
const EXAMPLE: &str = "experiments/examples/formula-molnar.yaml";
const RUST: &str = "nonlinear-rust";
const FORMULA: &str = "nonlinear-formula";

/// Times both samplers (see the module doc); it reads no inputs and runs on one
/// thread (the [`crate::Workload`] signature).
pub fn formula_dgp(_inputs: &Path, _threads: usize, repeats: usize) -> Result<Value> {
    let root = xai_bench::workspace::workspace_root();
    let exp = xai_bench::plan::Experiment::load(&root.join(EXAMPLE))?;
    let variants = exp.variants(Scale::Ci)?;
    let dgp = |label: &str| -> Result<DgpSpec> {
        variants
            .iter()
            .find(|v| v.labels.iter().any(|(_, l)| l == label))
            .and_then(|v| v.spec.data.dgp.clone())
            .ok_or_else(|| BenchError::PeerFile {
                path: root.join(EXAMPLE),
                message: format!("has no DGP labelled `{label}`"),
            })
    };
    let (rust, formula) = (dgp(RUST)?, dgp(FORMULA)?);
    let time = |d: &DgpSpec| -> Result<(f64, Dataset)> {
        let draw = || {
            d.dgp()
                .sample(ROWS, &mut stream_rng(1, 0))
                .map_err(|e| exp.sample_error(&variants[0], 0, e))
        };
        let mut best = f64::INFINITY;
        let mut last = draw()?;
        for _ in 0..repeats.max(1) {
            let start = Instant::now();
            last = draw()?;
            best = best.min(start.elapsed().as_secs_f64());
        }
        Ok((best, last))
    };
    let (rust_s, a) = time(&rust)?;
    let (formula_s, b) = time(&formula)?;
    Ok(json!({
        "workload": "formula_dgp",
        "rows": ROWS,
        "rust_s": rust_s,
        "formula_s": formula_s,
        "ratio": formula_s / rust_s,
        "same_bytes": a.x() == b.x() && a.y() == b.y(),
    }))
}
