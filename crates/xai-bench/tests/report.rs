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
    // Each experiment shows its paper-scale baseline where one is committed, the ci
    // one otherwise, and says which, with the replicates of its manifest.
    for id in &ids {
        let paper = root().join("results").join(id).join("paper");
        let (scale, dir) = match paper.join("checks.csv").is_file() {
            true => ("paper", paper),
            false => ("ci", root().join("results").join(id)),
        };
        let manifest: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap())
                .unwrap();
        let r = manifest["replicates"].as_u64().unwrap();
        let label = format!(
            "{scale} scale, {r} replicate{}",
            if r == 1 { "" } else { "s" }
        );
        let section = page
            .split(&format!("<section id=\"{id}\">"))
            .nth(1)
            .and_then(|s| s.split("</section>").next())
            .unwrap();
        assert!(
            section.contains(&format!("<b>{label}</b>")),
            "{id}: no `{label}`"
        );
    }
    assert!(page.contains("<th>paper</th><th>scale</th><th>experiments</th>"));
    // Every quote in the experiments' notes is filled from the run shown.
    assert!(
        !page.contains("numbers in braces not filled"),
        "a note quotes a number its run lacks"
    );
    // Table 1 in the paper's layout: the header, and the first row with a cell
    // "ours (paper)" taken from the committed table1.md.
    let table1 = page
        .split("<section id=\"molnar2023-table1\">")
        .nth(1)
        .unwrap();
    assert!(
        table1.contains("<tr><th>dgp</th><th>model</th><th>n_train</th><th>PD boot</th>"),
        "no Table 1 layout in the report"
    );
    let md = std::fs::read_to_string(root().join("results/molnar2023-table1/table1.md")).unwrap();
    let first_cell = md.lines().nth(2).unwrap().split('|').nth(4).unwrap().trim();
    let row = table1
        .split("<td>linear</td><td>lm</td><td>100</td><td")
        .nth(1)
        .unwrap_or_default();
    assert!(
        row.contains(&format!("\">{first_cell}<br>")),
        "{first_cell}"
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

/// The notes show the run's numbers in place of their `{{…}}` quotes, and say so
/// where a quote cannot be filled (a row the run lacks).
#[test]
fn notes_show_the_numbers_they_quote_from_the_run() {
    let scratch = std::env::temp_dir().join(format!("xai-report-notes-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    let committed = scratch.join("results/wood2024-fig2");
    std::fs::create_dir_all(scratch.join("experiments")).unwrap();
    std::fs::create_dir_all(&committed).unwrap();
    for file in ["checks.csv", "manifest.json", "summary.csv", "tidy.csv"] {
        std::fs::copy(
            root().join("results/wood2024-fig2").join(file),
            committed.join(file),
        )
        .unwrap();
    }
    let yaml = std::fs::read_to_string(root().join("experiments/wood2024-fig2.yaml")).unwrap();
    let quoting = |notes: &str| yaml.replacen("notes: |\n", &format!("notes: |\n  {notes}\n"), 1);
    let path = scratch.join("experiments/wood2024-fig2.yaml");
    let page = |notes: &str| {
        std::fs::write(&path, quoting(notes)).unwrap();
        let built = build(&scratch, Source::Committed, &scratch.join("report")).unwrap();
        std::fs::read_to_string(&built.page).unwrap()
    };
    // The committed estimate of that row, as the report prints it (4 decimals).
    let summary = std::fs::read_to_string(committed.join("summary.csv")).unwrap();
    let estimate: f64 = summary
        .lines()
        .find(|l| l.starts_with("entropy_pfi,calibrated_rf,X1,"))
        .and_then(|l| l.split(',').nth(4))
        .and_then(|v| v.parse().ok())
        .expect("the committed row");
    let filled = page("X1 gets {{entropy_pfi: model=calibrated_rf, feature=X1}}.");
    assert!(
        filled.contains(&format!("X1 gets {estimate:.4}.")),
        "the quote is not filled"
    );
    assert!(!filled.contains("not filled"));
    let unfilled = page("X9 gets {{entropy_pfi: model=calibrated_rf, feature=X9}}.");
    assert!(
        unfilled.contains("numbers in braces not filled") && unfilled.contains("picks 0 rows"),
        "a quote the run lacks is not reported"
    );
    std::fs::remove_dir_all(&scratch).unwrap();
}

#[test]
fn reference_values_stand_beside_ours_with_the_difference_in_standard_errors() {
    let out = std::env::temp_dir().join(format!("xai-report-ref-{}", std::process::id()));
    let built = build(&root(), Source::Committed, &out).unwrap();
    let page = std::fs::read_to_string(&built.page).unwrap();
    let section = page
        .split("<section id=\"cid2021-fig2\">")
        .nth(1)
        .and_then(|s| s.split("</section>").next())
        .unwrap();
    // cid2021-fig2 checks Ĉ of X0 against the population value 0.595 in each of its
    // samples (sample 1's row first); the report shows the paper-scale baseline where
    // one is committed.
    let paper = root().join("results/cid2021-fig2/paper/summary.csv");
    let shown = match paper.is_file() {
        true => paper,
        false => root().join("results/cid2021-fig2/summary.csv"),
    };
    let summary = std::fs::read_to_string(shown).unwrap();
    let header: Vec<&str> = summary.lines().next().unwrap().split(',').collect();
    let at = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let row: Vec<&str> = summary
        .lines()
        .find(|l| l.starts_with("covered,") && l.contains(",X0,"))
        .unwrap()
        .split(',')
        .collect();
    let (estimate, n, sd): (f64, f64, f64) = (
        row[at("estimate")].parse().unwrap(),
        row[at("n")].parse().unwrap(),
        row[at("sd")].parse().unwrap(),
    );
    let z = (estimate - 0.595) / (sd / n.sqrt());
    let short = xai_bench::select::short;
    let expected = format!(
        "<td>sample 1, model extra_trees, feature X0</td><td>0.595</td><td>{}</td><td>{}</td><td>{}</td>",
        short(estimate),
        short(sd / n.sqrt()),
        short(z)
    );
    assert!(section.contains(&expected), "{expected} not in {section}");
    // An experiment without a reference value has no such table.
    let fig7 = page.split("<section id=\"wood2024-fig7\">").nth(1).unwrap();
    let fig7 = fig7.split("</section>").next().unwrap();
    assert!(!fig7.contains("beside ours"));
    std::fs::remove_dir_all(&out).unwrap();
}

/// A table whose cells are checks shows each verdict in its cell (coloured, with its
/// z-score and the claim on hover) instead of a row per claim below; a cell that
/// does not pass is listed below too, with its reason. The page opens with a
/// contents bar of the papers' verdicts.
#[test]
fn a_tables_cells_carry_their_checks_verdicts() {
    let out = std::env::temp_dir().join(format!("xai-report-cells-{}", std::process::id()));
    let built = build(&root(), Source::Committed, &out).unwrap();
    let page = std::fs::read_to_string(&built.page).unwrap();
    assert!(page.contains("<nav class=\"contents\"><a href=\"#cid2021\">cid2021</a>"));
    let section = page
        .split("<section id=\"molnar2023-table1\">")
        .nth(1)
        .and_then(|s| s.split("</section>").next())
        .unwrap();
    let claim = "Table 1, linear lm n = 100, PD boot: coverage 0.41";
    let dir = root().join("results/molnar2023-table1");
    let checks = match dir.join("paper/checks.csv").is_file() {
        true => dir.join("paper/checks.csv"),
        false => dir.join("checks.csv"),
    };
    let checks = xai_bench::table::read_csv(&checks).unwrap();
    let status = checks
        .rows
        .iter()
        .find(|r| r[0] == claim)
        .map(|r| r[2].clone())
        .unwrap();
    let class = match status.as_str() {
        "pass" => "pass",
        "known deviation" => "known",
        _ => "fail",
    };
    let cell = format!("<td class=\"{class}\" title=\"{claim}: {status}\">");
    assert!(section.contains(&cell), "{cell} not in the table");
    // 0.41 is the paper's value; the cell reads "ours (0.41)" over its z-score.
    let after = section.split(&cell).nth(1).unwrap();
    assert!(after.starts_with("0.") && after.contains(" (0.41)<br><small>z "));
    let listed = section.contains(&format!("<td>{claim}</td>"));
    assert_eq!(
        listed,
        status != "pass",
        "{claim} ({status}) listed: {listed}"
    );
    std::fs::remove_dir_all(&out).unwrap();
}
