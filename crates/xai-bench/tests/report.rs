//! The report page lists every experiment of `experiments/`, with images that exist.

use std::path::{Path, PathBuf};

use xai_bench::catalog::experiment_ids;
use xai_bench::report::{Source, build};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn the_report_lists_every_experiment_with_its_figures() {
    let out = std::env::temp_dir().join(format!("xai-report-{}", std::process::id()));
    let built = build(&root(), Source::Committed, &out).unwrap();
    let page = std::fs::read_to_string(&built.page).unwrap();
    let ids = experiment_ids(&root()).unwrap();
    assert_eq!(built.experiments, ids);
    assert!(
        built.missing.is_empty(),
        "no committed outputs: {:?}",
        built.missing
    );
    for id in &ids {
        assert!(
            page.contains(&format!("<section id=\"{id}\">")),
            "{id} is missing from the report"
        );
    }
    let mut images = 0;
    for part in page.split("<img src=\"").skip(1) {
        let src = part.split('"').next().unwrap();
        assert!(out.join(src).is_file(), "broken image {src}");
        images += 1;
    }
    assert!(
        images >= ids.len(),
        "{images} images for {} experiments",
        ids.len()
    );
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn an_experiment_without_outputs_is_listed_as_not_run() {
    let scratch = std::env::temp_dir().join(format!("xai-report-empty-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(scratch.join("experiments")).unwrap();
    std::fs::copy(
        root().join("experiments/wood2024-fig2.yaml"),
        scratch.join("experiments/wood2024-fig2.yaml"),
    )
    .unwrap();
    let built = build(&scratch, Source::Committed, &scratch.join("report")).unwrap();
    assert_eq!(built.missing, ["wood2024-fig2"]);
    let page = std::fs::read_to_string(&built.page).unwrap();
    assert!(page.contains("<section id=\"wood2024-fig2\">") && page.contains("not run"));
    std::fs::remove_dir_all(&scratch).unwrap();
}
