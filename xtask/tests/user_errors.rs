//! Every kind of bad user input known to the project, given to the `xtask` binary as a
//! new user would: each ends with one located `error:` block and exit code 2, never
//! a panic (a panic exits with 101 and prints "panicked"). The inputs are one field
//! of `fixtures/user-input.yaml` changed at a time, plus bad command lines.

mod common;

use std::path::{Path, PathBuf};

use common::xtask;

fn fixture() -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/user-input.yaml"),
    )
    .unwrap()
}

/// A fresh scratch directory of this test file.
fn scratch(name: &str) -> PathBuf {
    common::scratch("user-errors", name)
}

/// Runs `xtask <args>` and asserts a refusal: exit code 2, no panic, one `error:`
/// block holding every one of `parts`. Returns stderr.
fn refused(args: &[&str], parts: &[&str]) -> String {
    let o = xtask(args).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(!err.contains("panicked"), "{args:?} panicked:\n{err}");
    assert_eq!(o.status.code(), Some(2), "{args:?}:\n{err}");
    assert!(err.contains("error:"), "{args:?}: no error block:\n{err}");
    for p in parts {
        assert!(err.contains(p), "{args:?}: expected {p:?} in:\n{err}");
    }
    err
}

/// `xtask run <yaml> --scale smoke --out <out>`, which must be refused with `parts`
/// in the message ([`refused`]). Returns stderr.
fn refused_run(yaml: &Path, out: &Path, parts: &[&str]) -> String {
    let args = [
        "run",
        yaml.to_str().unwrap(),
        "--scale",
        "smoke",
        "--out",
        out.to_str().unwrap(),
    ];
    refused(&args, parts)
}

/// The fixture with `from` replaced by `to`, run at smoke scale into a scratch
/// directory; must be refused with `parts` in the message. Returns (stderr, out dir).
fn refused_yaml(name: &str, from: &str, to: &str, parts: &[&str]) -> (String, PathBuf) {
    let text = fixture();
    assert!(text.contains(from), "fixture lacks {from:?}");
    let dir = scratch(name);
    let yaml = dir.join("user-input.yaml");
    std::fs::write(&yaml, text.replacen(from, to, 1)).unwrap();
    let out = dir.join("out");
    (refused_run(&yaml, &out, parts), out)
}

#[test]
fn the_fixture_itself_runs() {
    let dir = scratch("ok");
    let yaml = dir.join("user-input.yaml");
    std::fs::write(&yaml, fixture()).unwrap();
    let o = xtask(&["run", yaml.to_str().unwrap(), "--scale", "smoke"])
        .args(["--out", dir.join("out").to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// issue 47's example: log of a normal draw is NaN in about half the rows.
#[test]
fn a_formula_that_draws_a_value_that_is_not_finite_is_located_and_writes_no_cell() {
    let (err, out) = refused_yaml(
        "log",
        "target: X1 + exp(X2) + normal(0, 1)",
        "target: X1 + log(X2) + normal(0, 1)",
        &[
            "user-input.yaml: line 19, column 15: the target drew NaN in row ",
            " where X1 = ",
            ", X2 = -",
            "X1 + log(X2) + normal(0, 1)",
            "(variant base, replicate ",
        ],
    );
    assert_eq!(err.matches("error:").count(), 1, "{err}");
    // The directory holds the run's key (run.json) and no cell (v000-r000000...).
    let cells: Vec<String> = std::fs::read_dir(out.join("cells"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('v'))
        .collect();
    assert!(
        cells.is_empty(),
        "no cell of a failed replicate is written: {cells:?}"
    );
}

#[test]
fn a_formula_feature_that_is_not_finite_names_the_feature() {
    refused_yaml(
        "sqrt",
        "- X2: normal(0, 1)",
        "- X2: sqrt(X1 - 0.5)",
        &[
            "line 18, column 15: `X2` drew NaN in row ",
            " where X1 = 0.",
            "sqrt of a non-negative",
        ],
    );
}

#[test]
fn formulas_that_do_not_compile_are_located() {
    refused_yaml(
        "unknown-var",
        "X1 + exp(X2)",
        "X1 + exp(X9)",
        &["line 19, column 24: unknown variable `X9`"],
    );
    refused_yaml(
        "unknown-fn",
        "exp(X2)",
        "expp(X2)",
        &["line 19, column 20: unknown function `expp`"],
    );
}

#[test]
fn counts_and_numbers_out_of_range_or_of_the_wrong_type_are_located() {
    refused_yaml("negative", "n_train: 60", "n_train: -5", &["line 20"]);
    refused_yaml("word", "n_train: 60", "n_train: many", &["line 20"]);
    refused_yaml(
        "tiny",
        "n_test: 40",
        "n_test: 1",
        &["n_test must be at least 2"],
    );
    refused_yaml(
        "replicates",
        "smoke: { replicates: 2 }",
        "smoke: { replicates: lots }",
        &["line 10"],
    );
}

#[test]
fn unknown_names_and_fields_list_what_is_allowed() {
    refused_yaml(
        "learner",
        "lm: {}",
        "lmm: {}",
        &["line 24", "lmm", "gaussian_process"],
    );
    refused_yaml(
        "field",
        "n_test: 40",
        "n_test: 40\n  n_valid: 10",
        &["line 22", "n_valid"],
    );
    refused_yaml(
        "statistic",
        "statistics: [squared_error]",
        "statistics: [squared_eror]",
        &["line 26", "squared_eror"],
    );
}

#[test]
fn a_selector_naming_what_no_variant_has_is_refused_at_load() {
    refused_yaml(
        "feature",
        "feature: X1 }",
        "feature: X7 }",
        &["X7", "X1, X2"],
    );
    refused_yaml(
        "quantity",
        "quantity: loss_pfi",
        "quantity: loss_pdf",
        &["loss_pdf", "loss_pfi"],
    );
}

#[test]
fn bad_command_lines_are_refused() {
    refused(
        &["run", "no-such-experiment"],
        &["no experiment `no-such-experiment`"],
    );
    refused(&["run", "experiments/missing.yaml"], &["missing.yaml"]);
    refused(&["run", "wood2024-fig4", "--shard", "3/2"], &["shard"]);
    // clap's own refusals (an unknown flag or value) exit with 2 too.
    refused(&["run", "wood2024-fig4", "--scale", "huge"], &["huge"]);
}

/// An output that cannot be written (here `summary.csv` is a directory in the way; on
/// a full disk, any file) ends the run with the path named, and no staging directory
/// left behind.
#[test]
fn a_failed_write_removes_its_staging_directory() {
    let dir = scratch("write");
    let yaml = dir.join("user-input.yaml");
    std::fs::write(&yaml, fixture()).unwrap();
    let out = dir.join("out");
    std::fs::create_dir_all(out.join("summary.csv").join("in-the-way")).unwrap();
    refused_run(&yaml, &out, &["summary.csv"]);
    let left: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".writing-"))
        .collect();
    assert!(left.is_empty(), "staging left behind: {left:?}");
}

#[test]
fn yaml_that_does_not_parse_and_files_that_do_not_match_are_located() {
    // Indentation that breaks the mapping.
    refused_yaml(
        "syntax",
        "  n_test: 40",
        " n_test: 40",
        &["user-input.yaml", "line"],
    );
    // The id names the file.
    refused_yaml(
        "id",
        "id: user-input",
        "id: other",
        &["line 1", "differs from the file name"],
    );
    // A key given twice.
    refused_yaml(
        "twice",
        "  n_test: 40",
        "  n_test: 40\n  n_test: 30",
        &["n_test"],
    );
}

#[test]
fn dgp_settings_out_of_range_and_unknown_dgps_name_their_parameter() {
    refused_yaml(
        "dgp-name",
        "    formula:\n",
        "    formulas:\n",
        &["line 15", "formulas", "molnar_linear"],
    );
    refused_yaml(
        "dgp-param",
        "    formula:\n      features:\n        - X1: uniform(0, 1)\n        - X2: normal(0, 1)\n      target: X1 + exp(X2) + normal(0, 1)\n",
        "    correlated_gaussian: { rho: 1.5 }\n",
        &["rho", "1.5"],
    );
}

#[test]
fn a_grid_over_a_key_no_field_has_is_refused() {
    refused_yaml(
        "grid",
        "methods:",
        "grid:\n  n_tests: [20, 40]\nmethods:",
        &["n_tests"],
    );
}

/// A real dataset whose file is not the verified one (found first in
/// `XAI_DATA_DIR`): the message names the file and the checksum expected, and nothing
/// is computed.
#[test]
fn a_dataset_file_that_is_not_the_verified_one_is_refused() {
    let data = scratch("bad-data");
    std::fs::create_dir_all(data.join("pima")).unwrap();
    std::fs::write(data.join("pima").join("pima.csv"), "not,the,data\n").unwrap();
    let o = xtask(&["run", "wood2024-fig11", "--scale", "smoke"])
        .args(["--out", data.join("out").to_str().unwrap()])
        .env("XAI_DATA_DIR", &data)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("dataset `pima`") && err.contains("replace it with the verified copy"),
        "{err}"
    );
}

/// A covariate shift whose noise overflows to infinity (sd near the largest float):
/// the cell's error names the `shift` line, never a panic.
#[test]
fn a_shift_that_makes_a_value_infinite_is_located() {
    refused_yaml(
        "shift",
        "  n_test: 40\n",
        "  n_test: 40\n  shift: { feature: X1, sd: 1.0e308 }\n",
        &[
            "line 22",
            "the shift makes row",
            "infinite",
            "(variant base, replicate ",
        ],
    );
}
