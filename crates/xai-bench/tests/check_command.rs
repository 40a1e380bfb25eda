//! `cargo xtask check` end to end on a scratch workspace holding one experiment:
//! it passes against a fresh baseline, and fails when a committed number moves and
//! when a claim marked `expected_to_differ` starts to pass.

use std::path::{Path, PathBuf};

use xai_bench::checks::{Outcome, Status};
use xai_bench::commands::{SharedRuns, bless_experiment, check_experiment};
use xai_bench::plan::Experiment;

const ID: &str = "wood2024-fig2";

/// A scratch root with `experiments/<ID>.yaml` (the committed file after `edit`).
fn scratch(tag: &str, edit: impl Fn(String) -> String) -> (PathBuf, Experiment) {
    let root = std::env::temp_dir().join(format!("xai-check-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join("experiments")).unwrap();
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../experiments/{ID}.yaml"));
    let path = root.join("experiments").join(format!("{ID}.yaml"));
    std::fs::write(&path, edit(std::fs::read_to_string(source).unwrap())).unwrap();
    let exp = Experiment::load(&path).unwrap();
    (root, exp)
}

fn failed(outcomes: &[Outcome]) -> Vec<&Outcome> {
    outcomes.iter().filter(|o| o.status.fails()).collect()
}

#[test]
fn check_fails_on_a_moved_number_and_on_a_stale_marker() {
    let (root, exp) = scratch("moved", |t| t);
    bless_experiment(&root, &exp, 0, false, &mut SharedRuns::default()).unwrap();
    let report = check_experiment(&root, &exp, 0, false, &mut SharedRuns::default()).unwrap();
    assert!(failed(&report.outcomes).is_empty(), "{:?}", report.outcomes);
    assert!(report.dir.starts_with(root.join("runs")));

    // A committed number moves: the summary regression fails and names the row.
    let summary = root.join("results").join(ID).join("summary.csv");
    let text = std::fs::read_to_string(&summary).unwrap();
    let line = text.lines().nth(1).unwrap().to_string();
    let mut cells: Vec<String> = line.split(',').map(String::from).collect();
    let estimate = cells.len() - 5;
    let moved: f64 = cells[estimate].parse::<f64>().unwrap() + 1e-3;
    cells[estimate] = moved.to_string();
    std::fs::write(&summary, text.replacen(&line, &cells.join(","), 1)).unwrap();
    let report = check_experiment(&root, &exp, 0, false, &mut SharedRuns::default()).unwrap();
    let bad = failed(&report.outcomes);
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert!(bad[0].name.contains("summary.csv"), "{bad:?}");
    assert!(bad[0].detail.contains("row 2"), "{}", bad[0].detail);
    std::fs::remove_dir_all(&root).unwrap();

    // The passing claim marked as a known deviation: a stale marker, which fails.
    let (root, exp) = scratch("stale", |t| {
        t + "    expected_to_differ: measured below 0 once\n"
    });
    bless_experiment(&root, &exp, 0, false, &mut SharedRuns::default()).unwrap();
    let report = check_experiment(&root, &exp, 0, false, &mut SharedRuns::default()).unwrap();
    let bad = failed(&report.outcomes);
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert_eq!(bad[0].status, Status::StaleMarker);
    std::fs::remove_dir_all(&root).unwrap();
}
