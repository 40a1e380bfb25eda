//! Runs that survive: the `xtask` binary killed with SIGKILL part-way and run again,
//! cut-short and altered cell files, a changed YAML, shards merged into the whole
//! run, and the merges that must be refused. Every comparison is of bytes.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use common::xtask;

const XTASK: &str = env!("CARGO_BIN_EXE_xtask");
/// 2 variants × 30 replicates.
const CELLS: usize = 60;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/resumable.yaml")
}

/// A fresh scratch directory of this test file.
fn scratch(name: &str) -> PathBuf {
    common::scratch("resume", name)
}

/// `xtask run <yaml> --scale smoke --out <out> <extra...>`, which must succeed.
fn run(yaml: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "run",
        yaml.to_str().unwrap(),
        "--scale",
        "smoke",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let o = xtask(&args).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    o
}

/// Like [`run`], expected to fail; its stderr.
fn refused(args: &[&str]) -> String {
    let o = xtask(args).output().unwrap();
    assert!(!o.status.success(), "should have been refused: {args:?}");
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn cell_files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| Some(e.ok()?.path())).collect())
        .unwrap_or_default();
    out.retain(|p| p.extension().is_some_and(|e| e == "cell"));
    out.sort();
    out
}

/// The manifest's `cells` object: (total, computed, resumed, unusable_recomputed).
fn counts(dir: &Path) -> (u64, u64, u64, u64) {
    let text = std::fs::read_to_string(dir.join("manifest.json")).unwrap();
    let m: serde_json::Value = serde_json::from_str(&text).unwrap();
    let c = &m["cells"];
    let n = |k: &str| c[k].as_u64().unwrap();
    (
        n("total"),
        n("computed"),
        n("resumed"),
        n("unusable_recomputed"),
    )
}

fn same_bytes(a: &Path, b: &Path) {
    for file in ["summary.csv", "tidy.csv"] {
        let (x, y) = (
            std::fs::read(a.join(file)).unwrap(),
            std::fs::read(b.join(file)).unwrap(),
        );
        assert!(
            x == y,
            "{file} differs between {} and {}",
            a.display(),
            b.display()
        );
    }
}

/// The uninterrupted run on one thread, computed once for all tests.
fn whole() -> PathBuf {
    static WHOLE: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    WHOLE
        .get_or_init(|| {
            let dir = scratch("whole");
            run(&fixture(), &dir, &["--threads", "1"]);
            assert_eq!(counts(&dir), (CELLS as u64, CELLS as u64, 0, 0));
            dir
        })
        .clone()
}

#[test]
fn a_run_killed_with_sigkill_resumes_its_finished_cells_to_the_same_bytes() {
    let dir = scratch("killed");
    let mut child = xtask(&[
        "run",
        fixture().to_str().unwrap(),
        "--scale",
        "smoke",
        "--out",
        dir.to_str().unwrap(),
        "--threads",
        "2",
    ])
    .stdout(std::process::Stdio::null())
    .stderr(std::process::Stdio::null())
    .spawn()
    .unwrap();
    let cells = dir.join("cells");
    let start = Instant::now();
    while cell_files(&cells).len() < 6 {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "no cells written in 120 s"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().unwrap(); // SIGKILL on Unix: no handler, no cleanup
    child.wait().unwrap();
    let on_disk = cell_files(&cells).len();
    assert!(
        (6..CELLS).contains(&on_disk),
        "killed part-way: {on_disk} of {CELLS} cells on disk"
    );
    run(&fixture(), &dir, &["--threads", "2"]);
    let (total, computed, resumed, unusable) = counts(&dir);
    assert_eq!(total, CELLS as u64);
    assert_eq!(resumed, on_disk as u64, "every finished cell was read back");
    assert_eq!(
        computed,
        (CELLS - on_disk) as u64,
        "only the rest was computed"
    );
    assert_eq!(unusable, 0);
    same_bytes(&whole(), &dir);
}

#[test]
fn cut_short_or_altered_cells_and_truths_are_computed_again_not_read() {
    let dir = scratch("torn");
    run(&fixture(), &dir, &[]);
    let cells = cell_files(&dir.join("cells"));
    let whole_cell = std::fs::read(&cells[3]).unwrap();
    std::fs::write(&cells[3], &whole_cell[..whole_cell.len() / 2]).unwrap();
    let mut flipped = std::fs::read(&cells[40]).unwrap();
    flipped[100] ^= 0x10;
    std::fs::write(&cells[40], &flipped).unwrap();
    for truth in cell_files(&dir.join("truths")) {
        let bytes = std::fs::read(&truth).unwrap();
        std::fs::write(&truth, &bytes[..bytes.len() - 1]).unwrap();
    }
    let o = run(&fixture(), &dir, &[]);
    assert_eq!(counts(&dir), (CELLS as u64, 2, CELLS as u64 - 2, 2));
    let log = String::from_utf8_lossy(&o.stderr);
    assert!(log.contains("is unusable"), "{log}");
    same_bytes(&whole(), &dir);
    // Without the damage nothing is computed, and the manifest still states what the
    // numbers cost: the cells' own seconds, not the reading's (a tenth of the whole
    // run's CPU at the least; the truths and the start-up are the rest).
    run(&fixture(), &dir, &[]);
    assert_eq!(counts(&dir), (CELLS as u64, 0, CELLS as u64, 0));
    let cpu = |d: &Path| {
        let text = std::fs::read_to_string(d.join("manifest.json")).unwrap();
        serde_json::from_str::<serde_json::Value>(&text).unwrap()["cpu_seconds"]
            .as_f64()
            .unwrap()
    };
    let (resumed, computed) = (cpu(&dir), cpu(&whole()));
    eprintln!("cpu_seconds: resumed {resumed}, computed {computed}");
    assert!(resumed > 0.1 * computed, "{resumed} vs {computed}");
}

#[test]
fn a_changed_yaml_is_refused_with_what_changed_until_fresh() {
    let dir = scratch("changed");
    run(&fixture(), &dir, &[]);
    let other = scratch("changed-yaml").join("resumable.yaml");
    let text = std::fs::read_to_string(fixture()).unwrap();
    std::fs::write(&other, text.replace("seed: 20261123", "seed: 1")).unwrap();
    let args = [
        "run",
        other.to_str().unwrap(),
        "--scale",
        "smoke",
        "--out",
        dir.to_str().unwrap(),
    ];
    let msg = refused(&args);
    assert!(
        msg.contains("another run") && msg.contains("`seed`") && msg.contains("--fresh"),
        "{msg}"
    );
    run(&other, &dir, &["--fresh"]);
    assert_eq!(counts(&dir), (CELLS as u64, CELLS as u64, 0, 0));
    // A comment or a check is not part of the computation: the cells are kept.
    std::fs::write(
        &other,
        format!(
            "{}\n# a comment\n",
            std::fs::read_to_string(&other).unwrap()
        ),
    )
    .unwrap();
    run(&other, &dir, &[]);
    assert_eq!(counts(&dir).2, CELLS as u64);
}

#[test]
fn three_shards_merge_into_exactly_the_whole_run_and_bad_merges_are_refused() {
    let dir = scratch("shards");
    for k in 1..=3 {
        let o = run(&fixture(), &dir, &["--shard", &format!("{k}/3")]);
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            out.contains(&format!("shard {k}/3: 20 cells (20 computed, 0 resumed)")),
            "{out}"
        );
    }
    let shard = |k: usize| dir.join(format!("shard-{k}-of-3"));
    for k in 1..=3 {
        assert_eq!(cell_files(&shard(k)).len(), 20);
    }
    let merged = dir.join("merged");
    let yaml = fixture();
    let (y, m) = (yaml.to_str().unwrap(), merged.to_str().unwrap());
    let (s1, s2, s3) = (shard(1), shard(2), shard(3));
    let (s1, s2, s3) = (
        s1.to_str().unwrap(),
        s2.to_str().unwrap(),
        s3.to_str().unwrap(),
    );
    let o = xtask(&["merge", y, s1, s2, s3, "--out", m])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    same_bytes(&whole(), &merged);
    assert_eq!(counts(&merged), (CELLS as u64, 0, CELLS as u64, 0));

    let msg = refused(&["merge", y, s1, s3, "--out", m]);
    assert!(msg.contains("2/3 missing"), "{msg}");
    let msg = refused(&["merge", y, s1, s2, s2, s3, "--out", m]);
    assert!(msg.contains("given twice"), "{msg}");
    let msg = refused(&["merge", y, s1, s2, m, "--out", m]);
    assert!(msg.contains("not a shard directory"), "{msg}");

    // A shard of another YAML (another seed), and one from other code.
    let other_dir = scratch("shards-other");
    let other = other_dir.join("resumable.yaml");
    let text = std::fs::read_to_string(fixture()).unwrap();
    std::fs::write(&other, text.replace("seed: 20261123", "seed: 2")).unwrap();
    run(&other, &other_dir, &["--shard", "3/3"]);
    let foreign = other_dir.join("shard-3-of-3");
    let msg = refused(&["merge", y, s1, s2, foreign.to_str().unwrap(), "--out", m]);
    assert!(
        msg.contains("another run") && msg.contains("`seed`"),
        "{msg}"
    );
    let old_code = dir.join("old-code");
    std::fs::create_dir_all(&old_code).unwrap();
    for f in std::fs::read_dir(shard(3)).unwrap() {
        let f = f.unwrap().path();
        std::fs::copy(&f, old_code.join(f.file_name().unwrap())).unwrap();
    }
    let key_path = old_code.join("run.json");
    let mut key: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&key_path).unwrap()).unwrap();
    key["code"] = "0123456789abcdef".into();
    std::fs::write(&key_path, key.to_string()).unwrap();
    // Another build's shard is checked by recomputing one cell per variant; here its
    // cells name this build as their owner, so the check cannot read them.
    let msg = refused(&["merge", y, s1, s2, old_code.to_str().unwrap(), "--out", m]);
    assert!(
        msg.contains("by build 0123456789abcdef") && msg.contains("unusable"),
        "{msg}"
    );

    // A shard that did not finish names itself and the command that finishes it.
    std::fs::remove_file(cell_files(&shard(2))[5].clone()).unwrap();
    let msg = refused(&["merge", y, s1, s2, s3, "--out", m]);
    assert!(
        msg.contains("shard 2/3") && msg.contains("--shard 2/3"),
        "{msg}"
    );
}

#[test]
fn slurm_writes_an_array_whose_tasks_call_this_binary_with_their_shard() {
    let dir = scratch("slurm");
    let o = xtask(&[
        "slurm",
        fixture().to_str().unwrap(),
        "--shards",
        "4",
        "--scale",
        "smoke",
        "--cpus",
        "2",
        "--partition",
        "short",
        "--out",
        dir.to_str().unwrap(),
    ])
    .output()
    .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("submit.sh") && out.contains("--dependency=afterok"),
        "{out}"
    );
    let slurm = dir.join("slurm");
    let cells = std::fs::read_to_string(slurm.join("cells.sbatch")).unwrap();
    let exe = std::fs::canonicalize(XTASK).unwrap();
    for want in [
        "#SBATCH --array=1-4",
        "#SBATCH --cpus-per-task=2",
        "#SBATCH --partition=short",
        "--shard \"${SLURM_ARRAY_TASK_ID}/4\"",
        "--threads 2",
        exe.to_str().unwrap(),
    ] {
        assert!(cells.contains(want), "{want} not in:\n{cells}");
    }
    let merge = std::fs::read_to_string(slurm.join("merge.sbatch")).unwrap();
    // A YAML outside experiments/ is named by its absolute path in every job.
    let yaml = std::fs::canonicalize(fixture()).unwrap();
    let named = format!("merge '{}'", yaml.display());
    assert!(
        merge.contains(&named) && merge.contains("seq 1 4"),
        "{merge}"
    );
    assert!(
        cells.contains(&format!("run '{}'", yaml.display())),
        "{cells}"
    );
    for script in ["truths.sbatch", "cells.sbatch", "merge.sbatch", "submit.sh"] {
        let ok = Command::new("bash")
            .args(["-n", slurm.join(script).to_str().unwrap()])
            .status()
            .unwrap();
        assert!(ok.success(), "{script} is not valid bash");
    }
}
