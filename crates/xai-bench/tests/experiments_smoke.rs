//! Every experiment under experiments/ runs end to end at smoke scale, writes all its
//! outputs, and gives the same numbers on 1 and 2 threads.

use std::path::{Path, PathBuf};

use xai_bench::catalog::{experiment_ids, resolve};
use xai_bench::check::{paper_checks, write_outcomes};
use xai_bench::load::Scale;
use xai_bench::run::{run, write_outputs};
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
        let one = run(&exp, Scale::Smoke, 1, false).unwrap();
        let two = run(&exp, Scale::Smoke, 2, false).unwrap();
        assert_eq!(
            summary_table(&one.keys, &one.summary),
            summary_table(&two.keys, &two.summary),
            "{id}: 1 vs 2 threads"
        );
        assert!(!one.summary.is_empty(), "{id}: empty summary");
        let dir = std::env::temp_dir().join(format!("xai-smoke-{}-{id}", std::process::id()));
        write_outputs(&exp, &one, &dir).unwrap();
        write_outcomes(&dir.join("checks.csv"), &paper_checks(&exp, &one)).unwrap();
        let mut files = vec![
            "tidy.csv".to_string(),
            "summary.csv".into(),
            "manifest.json".into(),
            "checks.csv".into(),
        ];
        for plot in &exp.spec.plots {
            files.push(format!("{}.svg", plot.name()));
            files.push(format!("{}.png", plot.name()));
        }
        for f in &files {
            let meta = std::fs::metadata(dir.join(f)).unwrap_or_else(|e| panic!("{id}: {f}: {e}"));
            assert!(meta.len() > 0, "{id}: {f} is empty");
        }
        if exp.spec.methods.iter().any(|m| m.curves > 0) {
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
