//! `cargo xtask check` end to end on a scratch workspace holding one experiment:
//! it passes against a fresh baseline, and fails when a committed number moves and
//! when a claim marked `expected_to_differ` starts to pass.

use std::path::{Path, PathBuf};

use xai_bench::checks::{Outcome, Status, outcomes_table};
use xai_bench::commands::{
    Report, SharedRuns, bless_experiment, check_committed, check_experiment, trim_rows,
};
use xai_bench::plan::{Experiment, Job, Scale};

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

/// `exp` blessed at ci scale into `root`'s results, then checked against that baseline.
fn bless_then_check(root: &Path, exp: &Experiment) -> Report {
    let job = Job::new(exp, Scale::Ci, 0, false);
    bless_experiment(root, job, &mut SharedRuns::default()).unwrap();
    check_experiment(root, job, &mut SharedRuns::default()).unwrap()
}

fn failed(outcomes: &[Outcome]) -> Vec<&Outcome> {
    outcomes.iter().filter(|o| o.status.fails()).collect()
}

#[test]
fn check_fails_on_a_moved_number_and_on_a_stale_marker() {
    let (root, exp) = scratch("moved", |t| t);
    let report = bless_then_check(&root, &exp);
    assert!(failed(&report.outcomes).is_empty(), "{:?}", report.outcomes);
    assert!(report.dir.starts_with(root.join("runs")));

    // A committed number moves: the summary regression fails and names the row.
    let summary = root.join("results").join(ID).join("summary.csv");
    let text = std::fs::read_to_string(&summary).unwrap();
    let line = text.lines().nth(1).unwrap().to_string();
    let mut cells: Vec<String> = line.split(',').map(String::from).collect();
    let estimate = cells.len() - 6;
    let moved: f64 = cells[estimate].parse::<f64>().unwrap() + 1e-3;
    cells[estimate] = moved.to_string();
    std::fs::write(&summary, text.replacen(&line, &cells.join(","), 1)).unwrap();
    let report = check_experiment(
        &root,
        Job::new(&exp, Scale::Ci, 0, false),
        &mut SharedRuns::default(),
    )
    .unwrap();
    let bad = failed(&report.outcomes);
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert!(bad[0].name.contains("summary.csv"), "{bad:?}");
    assert!(bad[0].detail.contains("row 2"), "{}", bad[0].detail);
    std::fs::remove_dir_all(&root).unwrap();

    // The passing claim marked as a known deviation: a stale marker, which fails.
    let (root, exp) = scratch("stale", |t| {
        t + "    expected_to_differ: measured below 0 once\n"
    });
    let report = bless_then_check(&root, &exp);
    let bad = failed(&report.outcomes);
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert_eq!(bad[0].status, Status::StaleMarker);
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn check_committed_evaluates_the_claims_on_the_committed_files_again() {
    let (root, exp) = scratch("committed", |t| t);
    let blessed = bless_experiment(
        &root,
        Job::new(&exp, Scale::Ci, 0, false),
        &mut SharedRuns::default(),
    )
    .unwrap();
    let dir = root.join("results").join(ID);
    let again = check_committed(&root, &exp, Scale::Ci).unwrap().unwrap();
    assert!(failed(&again.outcomes).is_empty(), "{:?}", again.outcomes);
    let claims = blessed.outcomes.len();
    assert_eq!(
        outcomes_table(&again.outcomes[..claims]),
        outcomes_table(&blessed.outcomes),
        "same verdicts, same numbers"
    );
    assert_eq!(again.output.replicates, blessed.output.replicates);
    assert!(
        check_committed(&root, &exp, Scale::Paper)
            .unwrap()
            .is_none(),
        "no paper baseline"
    );

    // Trimmed to the rows the checks read, the claims come out the same.
    trim_rows(&exp, &blessed.output, &dir, 0).unwrap();
    assert!(!dir.join("tidy.csv").exists() && dir.join("tidy_checked.csv").exists());
    let trimmed = check_committed(&root, &exp, Scale::Ci).unwrap().unwrap();
    assert_eq!(
        outcomes_table(&trimmed.outcomes[..claims]),
        outcomes_table(&blessed.outcomes)
    );

    // Committed numbers move (every estimate and interval, per replicate and over
    // them): the
    // claims' measured values move with them, and the comparison with the committed
    // checks.csv fails.
    for file in ["tidy_checked.csv", "summary.csv"] {
        let path = dir.join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let header: Vec<&str> = text.lines().next().unwrap().split(',').collect();
        let numbers: Vec<usize> = ["estimate", "lower", "upper"]
            .map(|c| header.iter().position(|h| *h == c).unwrap())
            .to_vec();
        let moved: String = text
            .lines()
            .enumerate()
            .map(|(i, line)| {
                let mut cells: Vec<String> = line.split(',').map(String::from).collect();
                for &at in numbers.iter().filter(|_| i > 0) {
                    cells[at] = (cells[at].parse::<f64>().unwrap() * 3.0 - 1.0).to_string();
                }
                cells.join(",") + "\n"
            })
            .collect();
        std::fs::write(&path, moved).unwrap();
    }
    let report = check_committed(&root, &exp, Scale::Ci).unwrap().unwrap();
    let bad = failed(&report.outcomes);
    assert!(
        bad.iter().any(|o| o.name.contains("checks.csv")),
        "{:?}",
        report.outcomes
    );

    // A baseline of other YAML values is refused, with what to do.
    let (other, reseeded) = scratch("reseeded", |t| t.replacen("seed: ", "seed: 1", 1));
    let Err(err) = check_committed(&root, &reseeded, Scale::Ci) else {
        panic!("a baseline of another seed was read")
    };
    let err = err.to_string();
    assert!(err.contains("bless it again"), "{err}");
    std::fs::remove_dir_all(&root).unwrap();
    std::fs::remove_dir_all(&other).unwrap();
}

/// What an experiment writes does not depend on the experiments one command ran with
/// it: two that share a run (`runs_of`) each get the per-replicate rows their own
/// checks read, as when run alone, though the shared run kept the rows of both.
#[test]
fn a_shared_run_gives_each_experiment_the_rows_of_its_own_checks() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments");
    let table1 = Experiment::load(&dir.join("molnar2023-table1.yaml")).unwrap();
    let fig4 = Experiment::load(&dir.join("molnar2023-fig4.yaml")).unwrap();
    let mut shared = SharedRuns::for_batch(&[table1.clone(), fig4.clone()]);
    // As text, so that rows with NaN standard errors compare equal.
    let rows = |e: &Experiment, runs: &mut SharedRuns| -> Vec<String> {
        let out = runs.run(Job::new(e, Scale::Smoke, 0, false)).unwrap();
        out.tidy.iter().map(|r| format!("{r:?}")).collect()
    };
    let (joint_table1, joint_fig4) = (rows(&table1, &mut shared), rows(&fig4, &mut shared));
    let alone_table1 = rows(&table1, &mut SharedRuns::default());
    let alone_fig4 = rows(&fig4, &mut SharedRuns::default());
    assert!(!alone_fig4.is_empty() && alone_fig4 != alone_table1);
    assert_eq!(joint_table1, alone_table1);
    assert_eq!(joint_fig4, alone_fig4);
}
