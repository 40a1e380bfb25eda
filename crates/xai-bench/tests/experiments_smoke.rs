//! Every experiment under experiments/ runs end to end at smoke scale, writes all its
//! outputs, and gives the same numbers on 1 and 2 threads.

mod common;

use std::path::{Path, PathBuf};

use xai_bench::catalog::{experiment_ids, resolve};
use xai_bench::commands::{Place, SharedRuns, run_experiment, run_into};
use xai_bench::plan::Scale;
use xai_bench::run::run;
use xai_bench::table::{read_csv, summary_table};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Whether the registered dataset's file is in $XAI_DATA_DIR or data/cache/.
fn dataset_available(name: &str) -> bool {
    let registry = xai_bench::datasets::Registry::load(&root().join("data/datasets.yaml")).unwrap();
    let entry = registry.get(name).unwrap();
    xai_bench::datasets::search_dirs(&root())
        .iter()
        .any(|d| d.join(&entry.file).is_file())
}

#[test]
fn every_experiment_runs_at_smoke_scale_deterministically() {
    let ids = experiment_ids(&root()).unwrap();
    assert!(ids.contains(&"wood2024-fig4".to_string()));
    for id in ids {
        let exp = resolve(&root(), &id).unwrap();
        if let Some(d) = &exp.spec.data.dataset
            && !dataset_available(&d.name)
        {
            // Real data is not in the repository: set XAI_DATA_DIR (CI does).
            eprintln!("{id}: dataset `{}` not available, not run", d.name);
            continue;
        }
        let dir = std::env::temp_dir().join(format!("xai-smoke-{}-{id}", std::process::id()));
        let one = run_into(
            &exp,
            Scale::Smoke,
            1,
            false,
            &mut SharedRuns::default(),
            &dir,
        )
        .unwrap()
        .output;
        let two = run(&exp, Scale::Smoke, 2, false).unwrap();
        assert_eq!(
            summary_table(&one.keys, &one.summary),
            summary_table(&two.keys, &two.summary),
            "{id}: 1 vs 2 threads"
        );
        assert!(!one.summary.is_empty(), "{id}: empty summary");
        let mut files = vec![
            "summary.csv".to_string(),
            "manifest.json".into(),
            "checks.csv".into(),
        ];
        if exp.spec.tidy {
            files.push("tidy.csv".into());
        } else {
            assert!(!dir.join("tidy.csv").exists(), "{id}: tidy.csv written");
        }
        for plot in &exp.spec.plots {
            files.push(format!("{}.svg", plot.name()));
            files.push(format!("{}.png", plot.name()));
        }
        for f in &files {
            let meta = std::fs::metadata(dir.join(f)).unwrap_or_else(|e| panic!("{id}: {f}: {e}"));
            assert!(meta.len() > 0, "{id}: {f} is empty");
        }
        if exp
            .spec
            .methods
            .iter()
            .any(|m| !m.method().curve_quantities().is_empty())
        {
            assert!(!one.curves.is_empty(), "{id}: no ICE curves kept");
            assert!(
                std::fs::metadata(dir.join("ice.csv")).is_ok_and(|m| m.len() > 0),
                "{id}: ice.csv"
            );
        }
        let summary = read_csv(&dir.join("summary.csv")).unwrap();
        assert_eq!(
            summary,
            summary_table(&one.keys, &one.summary),
            "{id}: CSV round trip"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn run_writes_into_the_ignored_runs_directory_and_never_into_results() {
    let exp = resolve(&root(), "wood2024-fig4").unwrap();
    // `fresh`: cells there from an earlier build (another executable) are discarded.
    let place = Place {
        fresh: true,
        ..Place::default()
    };
    let report = run_experiment(&root(), &exp, Scale::Smoke, 0, false, &place).unwrap();
    assert!(report.dir.join("cells").join("run.json").is_file());
    let runs = root().canonicalize().unwrap().join("runs");
    let dir = report.dir.canonicalize().unwrap();
    assert!(dir.starts_with(&runs), "{}", dir.display());
    assert!(dir.join("summary.csv").is_file());
    // `git status` stays clean: every file written is ignored (when git is here).
    let ignored = std::process::Command::new("git")
        .arg("-C")
        .arg(root())
        .args(["check-ignore", "-q"])
        .arg(dir.join("summary.csv"))
        .status();
    if let Ok(status) = ignored {
        assert!(status.success(), "runs/ must be git-ignored");
    }
}

#[test]
fn no_committed_result_holds_an_absolute_path() {
    let root = root().canonicalize().unwrap();
    let mut forbidden = vec![root.display().to_string()];
    if let Some(home) = std::env::var_os("HOME").filter(|h| h.len() > 1) {
        forbidden.push(home.to_string_lossy().into_owned());
    }
    let mut checked = 0;
    for path in common::files_under(&root.join("results")) {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue; // binary (PNG)
        };
        for f in &forbidden {
            assert!(!text.contains(f.as_str()), "{} holds `{f}`", path.display());
        }
        if path.extension().is_some_and(|e| e == "json") {
            let v: serde_json::Value = serde_json::from_str(&text).unwrap();
            let strings = v.as_object().unwrap().values().filter_map(|v| v.as_str());
            for s in strings {
                assert!(
                    !Path::new(s).is_absolute(),
                    "{}: `{s}` is absolute",
                    path.display()
                );
            }
        }
        checked += 1;
    }
    assert!(checked > 16, "read {checked} files");
}

#[test]
fn committed_baselines_are_ci_scale_runs_of_the_current_files() {
    // The regression check compares with results/<id>/summary.csv; its manifest must
    // say it is a ci-scale run of the YAML as committed.
    for id in experiment_ids(&root()).unwrap() {
        let exp = resolve(&root(), &id).unwrap();
        let manifest = root().join("results").join(&id).join("manifest.json");
        let text = std::fs::read_to_string(&manifest).unwrap_or_else(|e| {
            panic!("{}: {e}; run `cargo xtask bless {id}`", manifest.display())
        });
        let m: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(m["scale"], "ci", "{id}");
        use sha2::Digest;
        let hash = format!("{:x}", sha2::Sha256::digest(exp.text.as_bytes()));
        assert_eq!(
            m["yaml_sha256"],
            hash.as_str(),
            "{id}: YAML changed since the last `cargo xtask bless {id}`"
        );
    }
}

#[test]
fn readme_lists_exactly_the_experiments() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let table = xai_bench::catalog::readme_table(&root()).unwrap();
    let inside = readme
        .split("<!-- experiments -->")
        .nth(1)
        .expect("README.md has <!-- experiments --> markers");
    assert_eq!(
        inside.trim(),
        table.trim(),
        "README's experiment table is stale: paste `cargo xtask list --markdown` between the markers"
    );
}

#[test]
fn a_model_based_pd_band_is_a_normal_band_and_the_row_band_a_t_band() {
    // lm on molnar2023's linear DGP with 40 test rows: `band: rows` gives the
    // t-interval over rows (t_{0.975, 39} = 2.0227), `band: model` the normal band
    // (z_{0.975} = 1.96) around the same PD.
    let yaml = |band: &str| {
        format!(
            "id: band\ntitle: t\npaper: molnar2023\nfigure: test\nseed: 3\n\
             scales: {{ smoke: {{ replicates: 2 }}, ci: {{ replicates: 2 }}, paper: {{ replicates: 2 }} }}\n\
             data: {{ dgp: {{ molnar_linear: {{}} }}, n_train: 60, n_test: 40 }}\n\
             models: {{ lm: {{ lm: {{}} }} }}\n\
             methods:\n  - ice: {{ grid: {{ points: 3, range: {{ fixed: [0.2, 0.8] }} }}, statistics: [prediction], band: {band} }}\n"
        )
    };
    let run_band = |band: &str| {
        let exp =
            xai_bench::plan::Experiment::from_text(Path::new("band.yaml"), yaml(band)).unwrap();
        run(&exp, Scale::Smoke, 1, false).unwrap().tidy
    };
    let (rows, model) = (run_band("rows"), run_band("model"));
    assert_eq!(rows.len(), 12);
    for (r, m) in rows.iter().zip(&model) {
        assert_eq!(r.value.estimate, m.value.estimate, "the same PD");
        let q = |e: &xai_core::Estimate| (e.upper - e.estimate) / e.se;
        assert!((q(&r.value) - 2.022_690_9).abs() < 1e-5, "{:?}", r.value);
        assert!((q(&m.value) - 1.959_964).abs() < 1e-5, "{:?}", m.value);
        assert!(m.value.se > 0.0 && m.value.se != r.value.se);
    }
}

#[test]
fn pd_coverage_is_the_share_of_intervals_holding_the_dgps_true_pd() {
    // lm on molnar2023 Table 2's DGP, PD of all five features at 3 points: each
    // replicate's coverage_prediction_pd_<band> is the share of its 15 intervals that
    // hold β_j·x + ½·Σ_{k≠j} β_k, and width_… their mean width.
    let yaml = |band: &str, dgp: &str| {
        format!(
            "id: cover\ntitle: t\npaper: molnar2023\nfigure: test\nseed: 5\n\
             scales: {{ smoke: {{ replicates: 3 }}, ci: {{ replicates: 3 }}, paper: {{ replicates: 3 }} }}\n\
             data: {{ dgp: {{ {dgp}: {{}} }}, n_train: 126, n_test: 74 }}\n\
             models: {{ lm: {{ lm: {{}} }} }}\n\
             methods:\n  - ice: {{ grid: {{ points: 3, range: {{ fixed: [0.1, 0.9] }} }}, statistics: [prediction], band: {band}, coverage: true }}\n"
        )
    };
    let beta = [4.0, -2.0, 2.0, -1.0, 1.0];
    let truth = |j: usize, x: f64| {
        beta[j] * x
            + (0..5)
                .filter(|&k| k != j)
                .map(|k| beta[k] / 2.0)
                .sum::<f64>()
    };
    for band in ["rows", "model"] {
        let exp = xai_bench::plan::Experiment::from_text(
            Path::new("cover.yaml"),
            yaml(band, "molnar_additive"),
        )
        .unwrap();
        let tidy = run(&exp, Scale::Smoke, 1, false).unwrap().tidy;
        for r in 0..3 {
            let of = |q: String| -> Vec<&xai_bench::table::TidyRow> {
                tidy.iter()
                    .filter(|t| t.replicate == r && t.quantity == q)
                    .collect()
            };
            let pd = of("prediction_pd".into());
            assert_eq!(pd.len(), 15);
            let held = pd
                .iter()
                .filter(|t| {
                    let j: usize = t.feature[1..].parse::<usize>().unwrap() - 1;
                    t.value.covers(truth(j, t.x.unwrap()))
                })
                .count() as f64
                / 15.0;
            let width = pd
                .iter()
                .map(|t| t.value.upper - t.value.lower)
                .sum::<f64>()
                / 15.0;
            let cov = of(format!("coverage_prediction_pd_{band}"))[0];
            let wid = of(format!("width_prediction_pd_{band}"))[0];
            assert!((cov.value.estimate - held).abs() < 1e-12, "{band} {r}");
            assert!((wid.value.estimate - width).abs() < 1e-12, "{band} {r}");
        }
    }
    // A DGP without a closed-form PD cannot give coverage.
    let err = xai_bench::plan::Experiment::from_text(
        Path::new("cover.yaml"),
        yaml("rows", "molnar_linear"),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("molnar_additive"), "{err}");
}
