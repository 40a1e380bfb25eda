//! A table of one's own in an experiment (`data: dataset: {name, table: {file,
//! target, ...}}`): read from its path, relative to the experiment file, without a
//! registry entry; its sha256 computed at load, recorded in the manifest and part of
//! the run's key, so a changed table is never resumed from the old one's cells.

use std::path::{Path, PathBuf};

use xai_bench::commands::{Place, run_experiment};
use xai_bench::plan::{Experiment, Job, Scale};

const YAML: &str = "id: own-table
title: PFI of a linear model on a table of one's own
paper: molnar2023
figure: none
seed: 3
scales:
  smoke: { replicates: 2 }
  ci: { replicates: 2 }
  paper: { replicates: 2 }
data:
  dataset:
    name: mine
    table:
      file: ../tables/mine.csv
      target: { column: y, task: regression }
      categorical: { colour: [red, blue] }
    test_fraction: 0.25
models:
  lm:
    lm: {}
methods:
  - pfi: { perturbation: { permutation: { repeats: 3 } }, statistics: [squared_error] }
";

/// A scratch directory with `tables/mine.csv` (y = 2·x1 + colour, x2 unused) and
/// `experiments/own-table.yaml`.
fn scratch(tag: &str) -> (PathBuf, PathBuf) {
    let root = std::env::temp_dir().join(format!("xai-own-table-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join("tables")).unwrap();
    std::fs::create_dir_all(root.join("experiments")).unwrap();
    let mut csv = String::from("x1,x2,colour,y\n");
    for i in 0..80 {
        let (x1, x2) = ((i % 9) as f64 / 4.0, (i % 7) as f64 / 3.0);
        let red = i % 3 == 0;
        let y = 2.0 * x1 + if red { 1.0 } else { 0.0 } + ((i * 37 % 11) as f64 - 5.0) / 50.0;
        csv += &format!("{x1},{x2},{},{y}\n", if red { "red" } else { "blue" });
    }
    std::fs::write(root.join("tables/mine.csv"), csv).unwrap();
    let yaml = root.join("experiments/own-table.yaml");
    std::fs::write(&yaml, YAML).unwrap();
    (root, yaml)
}

fn sha256(path: &Path) -> String {
    xai_bench::datasets::OwnTable::sha256(path).unwrap()
}

#[test]
fn an_own_table_runs_and_its_sha256_is_recorded_and_keys_the_run() {
    let (root, yaml) = scratch("run");
    let table = root.join("tables/mine.csv");
    let exp = Experiment::load(&yaml).unwrap();
    assert_eq!(
        exp.tables().get("../tables/mine.csv"),
        Some(&sha256(&table))
    );

    let out = root.join("out");
    let place = Place {
        out: Some(out.clone()),
        ..Place::default()
    };
    run_experiment(&root, Job::new(&exp, Scale::Ci, 1, false), &place).unwrap();
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(
        manifest["tables"]["../tables/mine.csv"],
        sha256(&table).as_str()
    );
    let summary = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    for f in ["x1", "x2", "colour"] {
        assert!(summary.contains(&format!("loss_pfi,lm,{f},")), "{summary}");
    }

    // The same YAML over a changed table is another computation.
    let before = exp.computation();
    let text = std::fs::read_to_string(&table).unwrap();
    std::fs::write(&table, text.replacen("0,0,red", "0,0,blue", 1)).unwrap();
    let changed = Experiment::load(&yaml).unwrap();
    assert_ne!(changed.computation(), before);
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_missing_table_is_refused_at_load_naming_its_path() {
    let (root, yaml) = scratch("missing");
    std::fs::remove_file(root.join("tables/mine.csv")).unwrap();
    let e = Experiment::load(&yaml).unwrap_err().to_string();
    assert!(e.contains("mine.csv"), "{e}");
    let _ = std::fs::remove_dir_all(&root);
}
