//! Writing a run's tables: `tidy.csv`, `summary.csv`, `ice.csv` and `manifest.json`
//! (figures are drawn by [`crate::plots`], checks written by [`crate::checks`]).

use std::path::Path;

use crate::error::{Result, io_err};
use crate::plan::Experiment;
use crate::run::RunOutput;
use crate::table::{write_curves, write_summary, write_tidy};

/// Writes `tidy.csv` (or, where the experiment turns it off, `tidy_checked.csv` with
/// the rows its checks read), `summary.csv`, `ice.csv` (when curves were kept) and
/// `manifest.json` into `dir`, creating it.
pub fn write_tables(exp: &Experiment, out: &RunOutput, dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(io_err(dir))?;
    if exp.spec.tidy {
        write_tidy(&dir.join("tidy.csv"), &out.keys, &out.tidy)?;
    } else if !out.tidy.is_empty() {
        // The per-replicate rows the run kept for its checks
        // ([`crate::needed::NeededRows`]), so they can be evaluated again from the files.
        write_tidy(&dir.join("tidy_checked.csv"), &out.keys, &out.tidy)?;
    }
    write_summary(&dir.join("summary.csv"), &out.keys, &out.summary)?;
    if !out.curves.is_empty() {
        write_curves(
            &dir.join("ice.csv"),
            &out.keys,
            &out.feature_names,
            &out.curves,
        )?;
    }
    crate::manifest::write(exp, out, &dir.join("manifest.json"))
}
