//! `cargo xtask merge <id> DIR...`: the shards of a run joined into the whole run's
//! outputs. The shards are read and checked against each other and the experiment
//! ([`read_shards`]); those another build computed are confirmed by recomputing a
//! cell of each of their variants ([`confirm_other_builds`]); then their cells are
//! merged in the run's order and written as a whole run's are.

use std::path::{Path, PathBuf};

use crate::cells::{self, CellStore, RunKey, Shard};
use crate::commands::{Report, write_run};
use crate::error::{BenchError, Result};
use crate::needed::NeededRows;
use crate::plan::{Experiment, Job, Scale};

/// The shards' cells joined into the whole run's outputs, written into `out`
/// (default: [`merged_dir`]). Refuses, saying which and why, a directory that is not a
/// shard, a shard of another experiment, scale or YAML, a shard given twice, a shard
/// count that differs, a missing shard, or a shard with a missing or unusable cell.
///
/// A shard computed by another build (an earlier commit, another machine: a run too
/// long for one sitting, its finished shards committed) is merged when this build,
/// recomputing the first cell of every variant the shard holds on `threads` threads
/// ([`crate::run::recompute_agrees`]), gets the same bytes; otherwise refused, naming
/// the cells that differ. The outputs are then those this build would compute, as far
/// as a cell per variant and shard can tell.
pub fn merge_shards(
    exp: &Experiment,
    dirs: &[PathBuf],
    out: Option<&Path>,
    threads: usize,
) -> Result<Report> {
    let Some(first) = dirs.first() else {
        return Err(BenchError::Usage(format!(
            "merge {}: give the shard directories, e.g. runs/{}/paper/shard-*-of-N",
            exp.id(),
            exp.id()
        )));
    };
    let shards = read_shards(exp, dirs)?;
    confirm_other_builds(exp, &shards, first, threads)?;
    let scale = shards.scale;
    let stores: Vec<(Shard, CellStore)> = shards
        .parts
        .into_iter()
        .map(|p| (p.shard, p.store))
        .collect();
    let needed = NeededRows::of([exp]);
    let output = crate::run::merge(exp, scale, &stores, &|k, r| needed.keeps(k, r))?;
    let out = out.map_or_else(|| merged_dir(exp, first), Path::to_path_buf);
    write_run(exp, output, &out)
}

/// One shard given to `merge`.
struct Part {
    shard: Shard,
    store: CellStore,
    dir: PathBuf,
    /// The build that computed it, when not this one.
    other_build: Option<String>,
}

/// Every shard of one run, checked against the experiment and each other.
struct Shards {
    parts: Vec<Part>,
    scale: Scale,
    /// The shards' processor SIMD level (the first shard's).
    simd: String,
    /// The number of shards of the run.
    n: usize,
}

impl Shards {
    /// The shards another build computed.
    fn of_other_builds(&self) -> impl Iterator<Item = (&Part, &str)> {
        self.parts
            .iter()
            .filter_map(|p| p.other_build.as_deref().map(|code| (p, code)))
    }
}

/// The shards in `dirs` (at least one), each a shard of `exp`'s run at one scale
/// (of this build or, its YAML and processor the same, of another), none twice, all
/// of one split, none missing.
fn read_shards(exp: &Experiment, dirs: &[PathBuf]) -> Result<Shards> {
    let fail = |m: String| Err(BenchError::Shards(m));
    let mut parts: Vec<Part> = Vec::new();
    let mut first: Option<(Scale, String)> = None;
    for dir in dirs {
        let Some(key) = cells::recorded_key(dir)? else {
            return fail(format!(
                "{}: not a shard directory (no run.json); shards are written by \
                 `cargo xtask run {} --shard k/N` into <out>/shard-k-of-N",
                dir.display(),
                exp.id()
            ));
        };
        let Some((k, n)) = key.shard else {
            return fail(format!(
                "{}: the cells of a whole run, not of a shard; it needs no merge",
                dir.display()
            ));
        };
        let this = Scale::parse(&key.scale)?;
        // Shards may come from another node than this one, but all from one kind of
        // processor: the first shard's SIMD level is the one expected.
        let mut expected = RunKey::of(exp, this, None).unsharded();
        if let Some((_, simd)) = &first {
            expected.simd.clone_from(simd);
        } else {
            expected.simd.clone_from(&key.simd);
        }
        let differences = key.unsharded().differences(&expected);
        let other_build = !differences.is_empty()
            && RunKey {
                code: expected.code.clone(),
                ..key.unsharded()
            }
            .differences(&expected)
            .is_empty();
        if !differences.is_empty() && !other_build {
            return fail(format!(
                "{}: shard {k}/{n} is from another run: {}; rerun it with this build and YAML \
                 (`cargo xtask run {} --scale {} --shard {k}/{n} --fresh`)",
                dir.display(),
                differences.join("; "),
                exp.id(),
                this.name()
            ));
        }
        if let Some(other) = parts.iter().find(|p| p.shard.k == k) {
            return fail(format!(
                "shard {k}/{n} given twice: {} and {}",
                other.dir.display(),
                dir.display()
            ));
        }
        if let Some(other) = parts.iter().find(|p| p.shard.n != n) {
            return fail(format!(
                "{} is a shard of {n}, {} a shard of {}: merge the shards of one split",
                dir.display(),
                other.dir.display(),
                other.shard.n
            ));
        }
        first.get_or_insert((this, expected.simd.clone()));
        parts.push(Part {
            shard: Shard { k, n },
            store: CellStore::open(dir, cells::owner(&key))?,
            dir: dir.clone(),
            other_build: other_build.then(|| key.code.clone()),
        });
    }
    let (Some((scale, simd)), Some(n)) = (first, parts.first().map(|p| p.shard.n)) else {
        return fail(format!("merge {}: no shard directory given", exp.id()));
    };
    let missing: Vec<String> = (1..=n)
        .filter(|k| parts.iter().all(|p| p.shard.k != *k))
        .map(|k| format!("{k}/{n}"))
        .collect();
    if !missing.is_empty() {
        return fail(format!(
            "shard(s) {} missing: merge needs all {n} shards of the run",
            missing.join(", ")
        ));
    }
    Ok(Shards {
        parts,
        scale,
        simd,
        n,
    })
}

/// Each shard another build computed, confirmed by this build recomputing the first
/// cell of each of its variants to the same bytes (truths read from the `truths`
/// directory beside the `first` shard, when there is one); refused, naming the cells
/// that differ, otherwise, or on a node of another SIMD level than the shards'.
fn confirm_other_builds(
    exp: &Experiment,
    shards: &Shards,
    first: &Path,
    threads: usize,
) -> Result<()> {
    let fail = |m: String| Err(BenchError::Shards(m));
    let n = shards.n;
    let foreign: Vec<(&Part, &str)> = shards.of_other_builds().collect();
    if foreign.is_empty() {
        return Ok(());
    }
    let named = |f: &dyn Fn(&Part, &str) -> String| {
        foreign
            .iter()
            .map(|(p, code)| f(p, code))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let here = crate::workspace::simd_level();
    if shards.simd != here {
        return fail(format!(
            "the shards were computed on a processor of SIMD level {} and shard(s) {} by \
             another build; this node is of level {here}, where recomputing their cells \
             cannot confirm them (the linear algebra's last bits differ between levels): \
             merge on a node of level {}",
            shards.simd,
            named(&|p, _| format!("{}/{n}", p.shard.k)),
            shards.simd
        ));
    }
    let truths = match first.parent().map(|p| p.join("truths")) {
        Some(dir) if dir.is_dir() => Some(cells::truths(&dir)?),
        _ => None,
    };
    let checked: Vec<(Shard, &CellStore)> =
        foreign.iter().map(|(p, _)| (p.shard, &p.store)).collect();
    let verdicts = crate::run::recompute_agrees(
        Job::new(exp, shards.scale, threads, false),
        &checked,
        truths.as_ref(),
    )
    .map_err(|e| {
        BenchError::Shards(format!(
            "shard(s) computed by another build ({}); checking them with this build \
                     ({}) failed: {e}",
            named(&|p, code| format!("{}/{n} by build {code}", p.shard.k)),
            cells::code_version()
        ))
    })?;
    for ((part, code), shard_verdicts) in foreign.iter().zip(&verdicts) {
        let k = part.shard.k;
        let differ: Vec<&str> = shard_verdicts
            .iter()
            .filter(|(_, equal)| !equal)
            .map(|(name, _)| name.as_str())
            .collect();
        if !differ.is_empty() {
            return fail(format!(
                "{}: shard {k}/{n} was computed by build {code}, and this build ({}) \
                 computes other numbers for its cell(s) {}: rerun the shard with this \
                 build (`cargo xtask run {} --scale {} --shard {k}/{n} --fresh`)",
                part.dir.display(),
                cells::code_version(),
                differ.join(", "),
                exp.id(),
                shards.scale.name()
            ));
        }
        eprintln!(
            "{}: shard {k}/{n} was computed by build {code}; this build ({}) \
             recomputed {} of its cells (the first of each variant: {}) and got the \
             same bytes",
            part.dir.display(),
            cells::code_version(),
            shard_verdicts.len(),
            shard_verdicts
                .iter()
                .map(|(name, _)| name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    Ok(())
}

/// Where `merge` writes by default: the directory holding the first shard; for an
/// experiment drawn from another's runs, whose shards sit in `<runs>/<source>/<scale>/`
/// ([`crate::commands::Place::cells_base`]), `<runs>/<id>/<scale>/` beside it.
fn merged_dir(exp: &Experiment, first: &Path) -> PathBuf {
    let parent = first.parent().map_or_else(PathBuf::new, Path::to_path_buf);
    match (parent.parent(), parent.file_name()) {
        (Some(up), Some(scale))
            if exp.id() != exp.computing_id()
                && up.file_name() == Some(std::ffi::OsStr::new(exp.computing_id())) =>
        {
            up.with_file_name(exp.id()).join(scale)
        }
        _ => parent,
    }
}
