//! `merge_memory`: the peak memory of merging a run of molnar2023 Table 1's shape at
//! paper scale (12 scenarios × 10,000 experiments = 120,000 cells, each with the
//! 724 per-replicate rows of its scenario). The cells are synthetic (their rows are
//! the keys of the committed ci summary with random estimates), written as 4 shards
//! with this executable's run key; then `cargo xtask merge` runs in a child process
//! and its peak resident set size (`getrusage(RUSAGE_CHILDREN)`) is reported.

use std::path::Path;
use std::time::Instant;

use rand::RngExt;
use serde_json::{Value, json};
use xai_core::Estimate;
use xai_core::rng::stream_rng;

use xai_bench::cells::{self, RunKey, Shard};
use xai_bench::error::{BenchError, Result};
use xai_bench::plan::{Job, Scale};
use xai_bench::table::TidyRow;

/// The experiment whose shape is merged.
const ID: &str = "molnar2023-table1";

/// Shards the synthetic run is split into.
const SHARDS: usize = 4;

/// Writes the synthetic shards into `dir` and merges them in a child process; the JSON line holds the cells,
/// the seconds to write and to merge, and the merge's peak RSS in bytes. Timed once
/// (the [`crate::Workload`] signature's repeats are not used).
pub fn merge_memory(dir: &Path, threads: usize, _repeats: usize) -> Result<Value> {
    let root = xai_bench::workspace::workspace_root();
    let exp = xai_bench::catalog::resolve(&root, ID)?;
    let scale = Scale::Paper;
    let baseline = xai_bench::catalog::baseline_dir(&root, ID, Scale::Ci);
    let summary = xai_bench::committed::read(&exp, Scale::Ci, &baseline)?;
    let variants = exp.variants(scale)?;
    // Per scenario, the keys of its rows (quantity, model, feature, x).
    let templates: Vec<Vec<&xai_bench::table::SummaryRow>> = variants
        .iter()
        .map(|v| {
            let labels: Vec<&String> = v.labels.iter().map(|(_, l)| l).collect();
            summary
                .summary
                .iter()
                .filter(|s| s.labels.iter().collect::<Vec<_>>() == labels)
                .collect()
        })
        .collect();
    if templates.iter().any(Vec::is_empty) {
        return Err(BenchError::Stored {
            path: baseline,
            message: format!("the committed ci summary of {ID} lacks a scenario; bless it first"),
        });
    }
    let parts = (1..=SHARDS)
        .map(|k| {
            let shard = Shard { k, n: SHARDS };
            let key = RunKey::of(&exp, scale, Some(shard));
            let store = cells::claim(&dir.join(shard.dir_name()), &key, false)?;
            Ok((shard, store))
        })
        .collect::<Result<Vec<_>>>()?;
    let start = Instant::now();
    let cells = xai_bench::run::write_synthetic_cells(
        Job::new(&exp, scale, threads, false),
        &parts,
        |v, r| {
            let mut rng = stream_rng(29, ((v as u64) << 32) | r as u64);
            templates[v]
                .iter()
                .map(|t| {
                    let estimate: f64 = rng.random();
                    TidyRow {
                        labels: t.labels.clone(),
                        replicate: r,
                        model: t.model.clone(),
                        quantity: t.quantity.clone(),
                        feature: t.feature.clone(),
                        x: t.x,
                        value: Estimate {
                            estimate,
                            se: 0.1,
                            lower: estimate - 0.2,
                            upper: estimate + 0.2,
                            n: 30,
                        },
                    }
                })
                .collect()
        },
    )?;
    let write_seconds = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let exe = std::env::current_exe().map_err(|e| BenchError::Process {
        what: "this executable".into(),
        message: format!("cannot find it: {e}"),
    })?;
    let status = std::process::Command::new(exe)
        .arg("merge")
        .arg(ID)
        .args(parts.iter().map(|(s, _)| dir.join(s.dir_name())))
        .arg("--out")
        .arg(dir.join("merged"))
        .stdout(std::process::Stdio::null())
        .status()
        .map_err(|e| BenchError::Process {
            what: "merge_memory's merge".into(),
            message: format!("cannot start it: {e}"),
        })?;
    if !status.success() {
        return Err(BenchError::Process {
            what: "merge_memory's merge".into(),
            message: format!("failed ({status})"),
        });
    }
    Ok(json!({
        "workload": "merge_memory",
        "experiment": ID,
        "cells": cells,
        "rows_per_cell": templates.iter().map(Vec::len).max(),
        "write_seconds": write_seconds,
        "merge_seconds": start.elapsed().as_secs_f64(),
        "merge_peak_rss_bytes": xai_bench::workspace::children_peak_rss_bytes(),
    }))
}
