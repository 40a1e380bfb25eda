//! The dataset loader on a small committed fixture (no real dataset needed).

use std::path::{Path, PathBuf};

use xai_core::{FeatureKind, Target};
use xai_data::datasets::{MissingPolicy, Registry, load, verify};

const SHA: &str = "1fed83efe94d7dcf90ea21d3949afab64273538fa917f1502ea00249ac6f1e71";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/data")
}

/// A registry with one dataset `tiny` whose sha256 is `sha`, in its own file.
fn registry(sha: &str) -> Registry {
    registry_with(sha, "")
}

/// As [`registry`], with `extra` lines in the entry.
fn registry_with(sha: &str, extra: &str) -> Registry {
    let text = format!(
        "tiny:
  file: tiny/tiny.csv
  sha256: {sha}
  rows: 5
  drop: [Id]
  missing: [\"?\"]
{extra}  categorical:
    color: [red, blue, green]
  target: {{ column: label, task: classification, classes: [\"no\", \"yes\"] }}
  expected: {{ class_counts: [2, 3], missing_cells: 2 }}
  source: test fixture
  citation: none
  license: none
"
    );
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let k = NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let path = std::env::temp_dir().join(format!("xai-registry-{}-{k}.yaml", std::process::id()));
    std::fs::write(&path, text).unwrap();
    Registry::load(&path).unwrap()
}

#[test]
fn loads_encodes_and_drops_rows_with_missing_cells() {
    let reg = registry(SHA);
    let entry = reg.get("tiny").unwrap();
    let loaded = load("tiny", entry, &[fixtures()], MissingPolicy::DropRows).unwrap();
    let d = &loaded.data;
    assert_eq!(d.feature_names(), &["a", "color", "b"]);
    assert_eq!(
        d.feature_kinds()[1],
        FeatureKind::Categorical {
            levels: vec!["red".into(), "blue".into(), "green".into()]
        }
    );
    // Rows 2 and 4 hold a missing cell; rows 1, 3, 5 remain.
    assert_eq!(d.x().column(1).to_vec(), vec![0.0, 0.0, 2.0]);
    assert_eq!(d.x().column(2).to_vec(), vec![2.0, 4.0, 7.0]);
    assert_eq!(
        d.y(),
        &Target::Classes {
            labels: vec![1, 1, 1].into(),
            n_classes: 2
        }
    );
    assert_eq!((loaded.missing_cells, loaded.file_rows), (2, 5));
    assert!(verify("tiny", entry, &loaded).unwrap().contains("ok"));
}

/// `keep` keeps every row with NaN for each missing cell, and a marker of
/// `missing_in` counts in its own column only (the 4 of `b`, not a 4 elsewhere).
#[test]
fn kept_missing_cells_are_nan_and_per_column_markers_apply_to_their_column() {
    let reg = registry_with(SHA, "  missing_in: { b: [\"4\"], Id: [\"1\"] }\n");
    let loaded = load(
        "tiny",
        reg.get("tiny").unwrap(),
        &[fixtures()],
        MissingPolicy::Keep,
    )
    .unwrap();
    let d = &loaded.data;
    assert_eq!(d.n_rows(), 5);
    let bits = |j: usize| format!("{:?}", d.x().column(j).to_vec());
    assert_eq!(bits(0), "[0.5, 1.5, 2.5, NaN, 3.0]");
    assert_eq!(bits(2), "[2.0, NaN, NaN, 1.0, 7.0]");
    // "?" twice, b's 4, and the dropped Id column's 1.
    assert_eq!((d.missing_cells(), loaded.missing_cells), (3, 4));
}

/// `impute_mean`: each missing cell is its column's mean over the observed cells of
/// every row (scikit-learn's SimpleImputer): a = (0.5 + 1.5 + 2.5 + 3.0)/4 = 1.875,
/// b = (2 + 4 + 1 + 7)/4 = 3.5; observed cells are untouched.
#[test]
fn impute_mean_fills_each_missing_cell_with_its_columns_observed_mean() {
    let reg = registry(SHA);
    let loaded = load(
        "tiny",
        reg.get("tiny").unwrap(),
        &[fixtures()],
        MissingPolicy::ImputeMean,
    )
    .unwrap();
    let d = &loaded.data;
    assert_eq!(d.n_rows(), 5);
    assert_eq!(d.x().column(0).to_vec(), vec![0.5, 1.5, 2.5, 1.875, 3.0]);
    assert_eq!(d.x().column(2).to_vec(), vec![2.0, 3.5, 4.0, 1.0, 7.0]);
    assert_eq!(d.missing_cells(), 0);
}

#[test]
fn missing_cell_is_an_error_naming_line_and_column_by_default() {
    let reg = registry(SHA);
    let err = load(
        "tiny",
        reg.get("tiny").unwrap(),
        &[fixtures()],
        MissingPolicy::Error,
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("line 3") && err.contains("column `b`") && err.contains("drop_rows"),
        "{err}"
    );
}

#[test]
fn wrong_checksum_names_expected_and_found() {
    let wrong = "0".repeat(64);
    let reg = registry(&wrong);
    let err = load(
        "tiny",
        reg.get("tiny").unwrap(),
        &[fixtures()],
        MissingPolicy::DropRows,
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains(SHA) && err.contains(&wrong) && err.contains("tiny/tiny.csv"),
        "{err}"
    );
}

#[test]
fn absent_file_names_the_dataset_the_paths_and_the_variable() {
    let reg = registry(SHA);
    let nowhere = std::env::temp_dir().join("xai-no-such-dir");
    let err = load(
        "tiny",
        reg.get("tiny").unwrap(),
        std::slice::from_ref(&nowhere),
        MissingPolicy::DropRows,
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("dataset `tiny`")
            && err.contains(&nowhere.join("tiny/tiny.csv").display().to_string())
            && err.contains("XAI_DATA_DIR"),
        "{err}"
    );
}

#[test]
fn verify_reports_a_wrong_expectation() {
    let reg = registry(SHA);
    let entry = reg.get("tiny").unwrap();
    let loaded = load("tiny", entry, &[fixtures()], MissingPolicy::DropRows).unwrap();
    let mut wrong = entry.clone();
    wrong.expected.class_counts = vec![3, 2];
    assert!(
        verify("tiny", &wrong, &loaded)
            .unwrap_err()
            .to_string()
            .contains("class counts [2, 3]")
    );
}

#[test]
fn verify_reports_a_figure_name_for_a_column_that_is_not_a_feature() {
    let reg = registry(SHA);
    let entry = reg.get("tiny").unwrap();
    let loaded = load("tiny", entry, &[fixtures()], MissingPolicy::DropRows).unwrap();
    let mut wrong = entry.clone();
    let name = xai_data::datasets::FeatureName {
        name: "Nothing".into(),
        unit: None,
    };
    wrong
        .features
        .insert(loaded.data.feature_names()[0].clone(), name.clone());
    assert!(verify("tiny", &wrong, &loaded).is_ok());
    wrong.features.insert("no_such_column".into(), name);
    let err = verify("tiny", &wrong, &loaded).unwrap_err().to_string();
    assert!(err.contains("`no_such_column`"), "{err}");
}

#[test]
fn unknown_dataset_lists_the_registered_ones() {
    let err = registry(SHA).get("nope").unwrap_err().to_string();
    assert!(err.contains("nope") && err.contains("tiny"), "{err}");
}

#[test]
fn the_project_registry_parses_and_names_eleven_datasets() {
    let reg =
        Registry::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/datasets.yaml"))
            .unwrap();
    // Ten files; pima also read with its impossible zeros missing (pima_na).
    assert_eq!(reg.names().len(), 11);
}

/// `classes:` keeps the rows of the named classes, relabelled in the order given
/// ("yes" first makes it class 0), and names what it cannot find.
#[test]
fn keep_classes_relabels_in_the_order_given() {
    use xai_data::datasets::keep_classes;
    let reg = registry(SHA);
    let entry = reg.get("tiny").unwrap();
    let loaded = load("tiny", entry, &[fixtures()], MissingPolicy::DropRows).unwrap();
    let Target::Classes { labels, .. } = loaded.data.y() else {
        panic!("classes")
    };
    let flipped = keep_classes(&loaded.data, "tiny", entry, &["yes".into(), "no".into()]).unwrap();
    let Target::Classes {
        labels: new,
        n_classes,
    } = flipped.y()
    else {
        panic!("classes")
    };
    assert_eq!(*n_classes, 2);
    assert_eq!(new.len(), labels.len());
    assert!(labels.iter().zip(new).all(|(a, b)| a + b == 1));
    let e = keep_classes(&loaded.data, "tiny", entry, &["yes".into(), "maybe".into()])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("no class `maybe`") && e.contains("no, yes"),
        "{e}"
    );
    let e = keep_classes(&loaded.data, "tiny", entry, &["yes".into(), "yes".into()])
        .unwrap_err()
        .to_string();
    assert!(e.contains("twice"), "{e}");
}
