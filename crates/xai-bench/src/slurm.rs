//! `cargo xtask slurm`: a run as Slurm jobs — one job for the Monte-Carlo truths, a
//! job array with one task per shard (`--shard $SLURM_ARRAY_TASK_ID/N`), and a merge
//! job, each waiting for the one before (`--dependency=afterok`).
//!
//! Every job calls the executable that wrote the scripts (built once, on a shared
//! file system), from the workspace root, with the run's directory on the shared file
//! system; a failed or cancelled task is resubmitted alone (`sbatch --array=K
//! cells.sbatch`) and resumes from its finished cells, then the merge is resubmitted.

use std::path::{Path, PathBuf};

use crate::error::{BenchError, Result, io_err};
use crate::plan::{Experiment, Scale};

/// The settings of `cargo xtask slurm`.
#[derive(Debug, Clone)]
pub struct SlurmSpec {
    /// Number of shards (array tasks).
    pub shards: usize,
    /// The run's scale.
    pub scale: Scale,
    /// `--partition`, if any.
    pub partition: Option<String>,
    /// `--time` of each job (Slurm's format, e.g. `02:00:00`).
    pub time: String,
    /// `--cpus-per-task`, also the threads of each task.
    pub cpus: usize,
}

/// The scripts written, and the command that submits them.
#[derive(Debug, Clone)]
pub struct Written {
    /// The directory of the scripts (`<run>/slurm/`).
    pub dir: PathBuf,
    /// `bash <dir>/submit.sh`.
    pub submit: String,
    /// The sbatch commands `submit.sh` runs, in order.
    pub commands: Vec<String>,
}

/// Single-quotes `s` for bash.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Writes `truths.sbatch`, `cells.sbatch` (the array), `merge.sbatch` and
/// `submit.sh` into `<base>/slurm/` for `exp`, run by `exe` from the workspace `root`
/// into the run directory `base`.
pub fn write(
    exp: &Experiment,
    spec: &SlurmSpec,
    root: &Path,
    base: &Path,
    exe: &Path,
) -> Result<Written> {
    if spec.shards == 0 || spec.cpus == 0 {
        return Err(BenchError::Usage(
            "--shards and --cpus must be at least 1".into(),
        ));
    }
    std::fs::create_dir_all(base).map_err(io_err(base))?;
    let abs = |p: &Path| p.canonicalize().map_err(io_err(p));
    let (root, base, exe) = (abs(root)?, abs(base)?, abs(exe)?);
    let dir = base.join("slurm");
    let logs = dir.join("logs");
    std::fs::create_dir_all(&logs).map_err(io_err(&logs))?;
    let (id, n, scale) = (exp.id(), spec.shards, spec.scale.name());
    let q = |p: &Path| quote(&p.to_string_lossy());
    // The experiment as the jobs name it: its id when it is the catalog's file, else
    // its absolute path.
    let yaml = abs(&exp.path)?;
    let target = match yaml == abs(&crate::catalog::experiment_path(&root, id)).unwrap_or_default()
    {
        true => id.to_string(),
        false => q(&yaml),
    };
    let xtask = format!("{} ", q(&exe));
    let common = format!("--scale {scale} --out {} --threads {}", q(&base), spec.cpus);
    let data = std::env::var("XAI_DATA_DIR")
        .map(|d| format!("export XAI_DATA_DIR={}\n", quote(&d)))
        .unwrap_or_default();
    let header = |job: &str, log: &str, array: Option<usize>| {
        let mut h = format!(
            "#!/bin/bash\n# {job} of `{id}` at {scale} scale, written by `cargo xtask slurm`.\n\
             #SBATCH --job-name=xai-{id}-{job}\n#SBATCH --cpus-per-task={}\n#SBATCH --time={}\n\
             #SBATCH --output={}\n",
            spec.cpus,
            spec.time,
            logs.join(log).display()
        );
        if let Some(p) = &spec.partition {
            h += &format!("#SBATCH --partition={p}\n");
        }
        if let Some(n) = array {
            h += &format!("#SBATCH --array=1-{n}\n");
        }
        h + "set -euo pipefail\n" + &data + &format!("cd {}\n", q(&root))
    };
    let scripts = [
        (
            "truths.sbatch",
            header("truths", "truths.out", None)
                + &format!("exec {xtask}run {target} {common} --truths-only\n"),
        ),
        (
            "cells.sbatch",
            header("cells", "cells-%a.out", Some(n))
                + &format!(
                    "exec {xtask}run {target} {common} --shard \"${{SLURM_ARRAY_TASK_ID}}/{n}\"\n"
                ),
        ),
        (
            "merge.sbatch",
            header("merge", "merge.out", None)
                + &format!(
                    "shards=()\nfor k in $(seq 1 {n}); do shards+=({}/shard-\"$k\"-of-{n}); done\n\
                     exec {xtask}merge {target} \"${{shards[@]}}\" --out {}\n",
                    q(&base),
                    q(&base)
                ),
        ),
    ];
    for (name, text) in &scripts {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(io_err(&path))?;
    }
    let sb = |name: &str| q(&dir.join(name));
    let commands = vec![
        format!("truths=$(sbatch --parsable {})", sb("truths.sbatch")),
        format!(
            "cells=$(sbatch --parsable --dependency=afterok:${{truths%%;*}} {})",
            sb("cells.sbatch")
        ),
        format!(
            "merge=$(sbatch --parsable --dependency=afterok:${{cells%%;*}} {})",
            sb("merge.sbatch")
        ),
    ];
    let submit = format!(
        "#!/bin/bash\n# Submits the truths, the {n}-task array and the merge of `{id}` ({scale}).\n\
         set -euo pipefail\n{}\necho \"truths: job ${{truths%%;*}}; cells: array job ${{cells%%;*}} \
         ({n} tasks); merge: job ${{merge%%;*}}\"\necho \"outputs: {}\"\n",
        commands.join("\n"),
        base.display()
    );
    let path = dir.join("submit.sh");
    std::fs::write(&path, submit).map_err(io_err(&path))?;
    Ok(Written {
        submit: format!("bash {}", q(&path)),
        dir,
        commands,
    })
}
