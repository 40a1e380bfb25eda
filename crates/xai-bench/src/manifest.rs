//! `manifest.json`: what produced a result directory.

use std::path::Path;

use serde_json::json;
use sha2::{Digest, Sha256};

use crate::error::{Result, io_err};
use crate::plan::Experiment;
use crate::run::RunOutput;

/// Versions of the dependencies that determine the numbers, read from Cargo.lock at
/// build time.
fn crate_versions() -> serde_json::Map<String, serde_json::Value> {
    const LOCK: &str = include_str!("../../../Cargo.lock");
    const WANTED: [&str; 8] = [
        "faer",
        "ndarray",
        "rand",
        "rand_chacha",
        "rand_distr",
        "rayon",
        "statrs",
        "serde-saphyr",
    ];
    let mut out = serde_json::Map::new();
    out.insert("xai-bench".into(), env!("CARGO_PKG_VERSION").into());
    let mut name = "";
    for line in LOCK.lines() {
        if let Some(n) = line.strip_prefix("name = ") {
            name = n.trim_matches('"');
        } else if let Some(v) = line.strip_prefix("version = ")
            && WANTED.contains(&name)
            && !out.contains_key(name)
        {
            out.insert(name.into(), v.trim_matches('"').into());
        }
    }
    out
}

/// Writes the manifest: id, the experiment whose runs it draws (if any), YAML path
/// (relative to the workspace root), YAML hash, the hash of the YAML values that
/// determine the numbers ([`Experiment::computation`]), seed, scale, sizes, git
/// commit, crate versions, code version, the processor's SIMD level, wall and CPU
/// time, threads, and the cells computed by
/// this invocation and read back from disk.
pub fn write(exp: &Experiment, out: &RunOutput, path: &Path) -> Result<()> {
    let mut manifest = json!({
        "id": exp.id(),
        "title": exp.spec.title,
        "paper": exp.spec.paper,
        "figure": exp.spec.figure,
        "yaml": crate::workspace::relative_to(&crate::workspace::workspace_root(), &exp.path),
        "yaml_sha256": format!("{:x}", Sha256::digest(exp.text.as_bytes())),
        "computation": exp.computation(),
        "seed": exp.spec.seed,
        "scale": out.scale.name(),
        "variants": out.variants,
        "replicates": out.replicates,
        "git_commit": crate::workspace::git_commit(),
        "crate_versions": crate_versions(),
        "code_version": crate::cells::code_version(),
        "simd": crate::workspace::simd_level(),
        "wall_seconds": out.wall_seconds,
        "cpu_seconds": out.cpu_seconds,
        "threads": out.threads,
        "cells": {
            "total": out.cells.total,
            "computed": out.cells.computed,
            "resumed": out.cells.resumed,
            "unusable_recomputed": out.cells.unusable,
        },
    });
    if !exp.tables().is_empty() {
        // A table outside the workspace keeps only its file name, as the YAML's path.
        let root = crate::workspace::workspace_root();
        let tables: serde_json::Map<String, serde_json::Value> = exp
            .tables()
            .iter()
            .map(|(file, sha)| {
                let shown = match Path::new(file).is_absolute() {
                    true => crate::workspace::relative_to(&root, Path::new(file)),
                    false => file.clone(),
                };
                (shown, sha.as_str().into())
            })
            .collect();
        manifest["tables"] = tables.into();
    }
    if let Some(source) = &exp.spec.runs_of {
        manifest["runs_of"] = source.as_str().into();
    }
    let text = serde_json::to_string_pretty(&manifest).expect("plain JSON") + "\n";
    std::fs::write(path, text).map_err(io_err(path))
}
