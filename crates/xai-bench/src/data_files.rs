//! Files a run reads besides its dataset: a fitted forest's node table
//! (`fitted_forest: {file}`), a PFI's replayed permutations (`pfi: {replay}`). A
//! relative path is looked up where datasets are ([`crate::datasets::search_dirs`]:
//! `$XAI_DATA_DIR`, then `data/cache/`) when the run starts, so a missing file is
//! refused before any work, and the YAML (and every key and stream derived from it)
//! keeps the relative path, the same on every machine.

use std::path::PathBuf;

use crate::datasets::{DATA_DIR_VAR, search_dirs};
use crate::error::{BenchError, Result};
use crate::methods::MethodSpec;
use crate::spec::ExperimentSpec;

/// Replaces every relative data-file path of `spec`'s models and methods by the file
/// found in the data directories; an error names the directories searched.
pub fn resolve(spec: &mut ExperimentSpec) -> Result<()> {
    let dirs = search_dirs(&crate::workspace::workspace_root());
    let mut files: Vec<&mut PathBuf> = spec
        .models
        .values_mut()
        .flat_map(|m| m.data_files_mut())
        .collect();
    files.extend(spec.methods.iter_mut().filter_map(|m| match m {
        MethodSpec::Pfi(p) => p.replay.as_mut().and_then(|r| r.file_mut()),
        _ => None,
    }));
    for file in files.into_iter().filter(|f| f.is_relative()) {
        match dirs.iter().map(|d| d.join(&*file)).find(|p| p.is_file()) {
            Some(found) => *file = found,
            None => {
                let tried: Vec<String> = dirs
                    .iter()
                    .map(|d| d.join(&*file).display().to_string())
                    .collect();
                return Err(BenchError::DataFile {
                    file: file.to_path_buf(),
                    tried,
                    var: DATA_DIR_VAR,
                });
            }
        }
    }
    Ok(())
}
