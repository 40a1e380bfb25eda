//! Every experiment under experiments/ runs end to end at smoke scale, writes all its
//! outputs, and gives the same numbers on 1 and 2 threads.

mod common;

use std::path::{Path, PathBuf};

use xai_bench::catalog::{experiment_ids, resolve};
use xai_bench::commands::{Place, SharedRuns, run_experiment, run_into};
use xai_bench::plan::{Job, Scale};
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

/// Experiments that draw the same runs (`runs_of`) share one computation, as a
/// command given several computes it once; each computation is run again on 2
/// threads and must give the same summary.
#[test]
fn every_experiment_runs_at_smoke_scale_deterministically() {
    let ids = experiment_ids(&root()).unwrap();
    assert!(ids.contains(&"wood2024-fig4".to_string()));
    let mut experiments = Vec::new();
    for id in ids {
        let exp = resolve(&root(), &id).unwrap();
        if let Some(d) = &exp.spec.data.dataset
            && !dataset_available(&d.name)
        {
            // Real data is not in the repository: set XAI_DATA_DIR (CI does).
            eprintln!("{id}: dataset `{}` not available, not run", d.name);
            continue;
        }
        experiments.push(exp);
    }
    let mut shared = SharedRuns::for_batch(&experiments);
    let mut on_two_threads = std::collections::HashSet::new();
    for exp in &experiments {
        let id = exp.id();
        let dir = std::env::temp_dir().join(format!("xai-smoke-{}-{id}", std::process::id()));
        let one = run_into(Job::new(exp, Scale::Smoke, 1, false), &mut shared, &dir)
            .unwrap()
            .output;
        if on_two_threads.insert(exp.computation()) {
            let two = run(Job::new(exp, Scale::Smoke, 2, false)).unwrap();
            assert_eq!(
                summary_table(&one.keys, &one.summary),
                summary_table(&two.keys, &two.summary),
                "{id}: 1 vs 2 threads"
            );
        }
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
            files.push(format!("{}.svg", plot.kind().name()));
            files.push(format!("{}.png", plot.kind().name()));
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
    let report = run_experiment(&root(), Job::new(&exp, Scale::Smoke, 0, false), &place).unwrap();
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
fn committed_baselines_are_runs_of_the_current_files_at_their_scale() {
    // The regression check compares with results/<id>/summary.csv (ci) and
    // results/<id>/paper/summary.csv; each manifest must say it is a run of its scale
    // computed from the YAML values the file holds now (a claim, a note or the
    // paper_scale line may change without a re-bless: `check` compares the claims).
    for id in experiment_ids(&root()).unwrap() {
        let exp = resolve(&root(), &id).unwrap();
        let ci = root().join("results").join(&id);
        for (scale, dir) in [("ci", ci.clone()), ("paper", ci.join("paper"))] {
            let manifest = dir.join("manifest.json");
            let text = match std::fs::read_to_string(&manifest) {
                Ok(text) => text,
                Err(_) if scale == "paper" => continue,
                Err(e) => panic!("{}: {e}; run `cargo xtask bless {id}`", manifest.display()),
            };
            let m: serde_json::Value = serde_json::from_str(&text).unwrap();
            assert_eq!(m["scale"], scale, "{id}");
            assert_eq!(
                m["computation"],
                exp.computation().as_str(),
                "{id}: the YAML values that determine the numbers changed since the last \
                 `cargo xtask bless --scale {scale} {id}`"
            );
        }
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

/// A small experiment's YAML: `reps` replicates at every scale, lm on `data`, and
/// `methods` (the lines under `methods:`).
fn tiny(seed: u64, reps: usize, data: &str, methods: &str) -> String {
    format!(
        "id: tiny\ntitle: t\npaper: molnar2023\nfigure: test\nseed: {seed}\n\
         scales: {{ smoke: {{ replicates: {reps} }}, ci: {{ replicates: {reps} }}, paper: {{ replicates: {reps} }} }}\n\
         data: {data}\nmodels: {{ lm: {{ lm: {{}} }} }}\nmethods:\n{methods}"
    )
}

/// `tiny`'s tidy rows at smoke scale on one thread.
fn tiny_tidy(yaml: String) -> Vec<xai_bench::table::TidyRow> {
    let exp = xai_bench::plan::Experiment::from_text(Path::new("tiny.yaml"), yaml).unwrap();
    run(Job::new(&exp, Scale::Smoke, 1, false)).unwrap().tidy
}

/// `tiny`'s load error.
fn tiny_error(yaml: String) -> String {
    xai_bench::plan::Experiment::from_text(Path::new("tiny.yaml"), yaml)
        .unwrap_err()
        .to_string()
}

/// molnar_additive's true PD of feature `X{j+1}` at x: β_j·x + ½·Σ_{k≠j} β_k.
fn additive_pd(feature: &str, x: f64) -> f64 {
    let beta = [4.0, -2.0, 2.0, -1.0, 1.0];
    let j: usize = feature[1..].parse::<usize>().unwrap() - 1;
    beta[j] * x
        + (0..5)
            .filter(|&k| k != j)
            .map(|k| beta[k] / 2.0)
            .sum::<f64>()
}

/// The share of `rows` whose interval holds molnar_additive's true PD.
fn share_holding_the_additive_pd(rows: &[&xai_bench::table::TidyRow]) -> f64 {
    let held = rows
        .iter()
        .filter(|t| t.value.covers(additive_pd(&t.feature, t.x.unwrap())))
        .count();
    held as f64 / rows.len() as f64
}

/// The tidy rows of replicate `r` and quantity `q`.
fn rows_of<'a>(
    tidy: &'a [xai_bench::table::TidyRow],
    r: usize,
    q: &str,
) -> Vec<&'a xai_bench::table::TidyRow> {
    tidy.iter()
        .filter(|t| t.replicate == r && t.quantity == q)
        .collect()
}

#[test]
fn a_model_based_pd_band_is_a_normal_band_and_the_row_band_a_t_band() {
    // lm on molnar2023's linear DGP with 40 test rows: `band: rows` gives the
    // t-interval over rows (t_{0.975, 39} = 2.0227), `band: model` the normal band
    // (z_{0.975} = 1.96) around the same PD.
    let run_band = |band: &str| {
        tiny_tidy(tiny(
            3,
            2,
            "{ dgp: { molnar_linear: {} }, n_train: 60, n_test: 40 }",
            &format!(
                "  - ice: {{ grid: {{ points: 3, range: {{ fixed: [0.2, 0.8] }} }}, statistics: [prediction], band: {band} }}\n"
            ),
        ))
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
    // hold the true PD, and width_… their mean width.
    let yaml = |band: &str, dgp: &str| {
        tiny(
            5,
            3,
            &format!("{{ dgp: {{ {dgp}: {{}} }}, n_train: 126, n_test: 74 }}"),
            &format!(
                "  - ice: {{ grid: {{ points: 3, range: {{ fixed: [0.1, 0.9] }} }}, statistics: [prediction], band: {band}, coverage: true }}\n"
            ),
        )
    };
    let mut mc_se = Vec::new();
    for band in ["rows", "model"] {
        let tidy = tiny_tidy(yaml(band, "molnar_additive"));
        let mut of_band = Vec::new();
        for r in 0..3 {
            let pd = rows_of(&tidy, r, "prediction_pd");
            assert_eq!(pd.len(), 15);
            let width = pd
                .iter()
                .map(|t| t.value.upper - t.value.lower)
                .sum::<f64>()
                / 15.0;
            let cov = rows_of(&tidy, r, &format!("coverage_prediction_pd_{band}"));
            let wid = rows_of(&tidy, r, &format!("width_prediction_pd_{band}"));
            assert!((cov[0].value.estimate - share_holding_the_additive_pd(&pd)).abs() < 1e-12);
            assert!((wid[0].value.estimate - width).abs() < 1e-12, "{band} {r}");
            if band == "rows" {
                // The Monte-Carlo se of Table 2 is the row band's se, averaged.
                let se = pd.iter().map(|t| t.value.se).sum::<f64>() / 15.0;
                assert!(
                    (rows_of(&tidy, r, "mc_se_prediction_pd")[0].value.estimate - se).abs() < 1e-12
                );
            }
            of_band.push(rows_of(&tidy, r, "mc_se_prediction_pd")[0].value.estimate);
        }
        mc_se.push(of_band);
    }
    // The model band reports the same Monte-Carlo se: it is the rows', not its own.
    assert_eq!(mc_se[0], mc_se[1]);
    // A DGP without a closed-form PD: its PD by Monte Carlo over `truth_rows` (10⁵)
    // draws. molnar_linear's is PD_1(v) = v − 1/2 and PD_2(v) = 1/2 − v (unit-uniform
    // features), and the Monte-Carlo truth lies within 4 se = 4·(1/√12)/√10⁵ of it:
    // an interval whose bounds are farther from the exact PD than that holds both or
    // neither, so the coverage lies between the shares holding it with that margin
    // and without.
    let tidy = tiny_tidy(yaml("rows", "molnar_linear"));
    let slack = 4.0 / (12f64.sqrt() * 1e5f64.sqrt());
    let exact = |t: &xai_bench::table::TidyRow| match t.feature.as_str() {
        "X1" => t.x.unwrap() - 0.5,
        _ => 0.5 - t.x.unwrap(),
    };
    for r in 0..3 {
        let pd = rows_of(&tidy, r, "prediction_pd");
        assert_eq!(pd.len(), 6);
        let within = |margin: f64| {
            pd.iter()
                .filter(|t| {
                    t.value.lower + margin <= exact(t) && exact(t) <= t.value.upper - margin
                })
                .count() as f64
                / 6.0
        };
        let cov = rows_of(&tidy, r, "coverage_prediction_pd_rows")[0]
            .value
            .estimate;
        assert!(within(slack) <= cov && cov <= within(-slack), "{r}: {cov}");
    }
}

#[test]
fn learner_pd_coverage_against_the_closed_form_pd_of_subsamples_of_all_rows() {
    // molnar2023 Table 2's "subs": 6 subsampling refits of lm from the training and
    // test rows together, intervals at m = 6, coverage against the true PD.
    let yaml = |truth: &str| {
        tiny(
            8,
            3,
            "{ dgp: { molnar_additive: {} }, n_train: 126, n_test: 74 }",
            &format!(
                "  - learner_inference:\n      resampling: subs\n      refits: 6\n      rows: all\n      truth: {truth}\n      explain:\n        - ice: {{ grid: {{ points: 3, range: {{ fixed: [0.1, 0.9] }} }}, statistics: [prediction] }}\n"
            ),
        )
    };
    let tidy = tiny_tidy(yaml("{ analytic: true }"));
    for r in 0..3 {
        let pd = rows_of(&tidy, r, "learner_prediction_pd_corrected");
        assert_eq!(pd.len(), 15);
        let cov = rows_of(&tidy, r, "coverage_prediction_pd_corrected");
        assert_eq!(cov.len(), 1);
        assert!((cov[0].value.estimate - share_holding_the_additive_pd(&pd)).abs() < 1e-12);
        for t in rows_of(&tidy, r, "truth_prediction_pd") {
            assert!((t.value.estimate - additive_pd(&t.feature, t.x.unwrap())).abs() < 1e-12);
        }
    }
    for (bad, says) in [
        ("{ analytic: true, runs: 10 }", "not both"),
        ("{ runs: 1 }", "at least 2 runs"),
    ] {
        let err = tiny_error(yaml(bad));
        assert!(err.contains(says), "{err}");
    }
}

#[test]
fn n_rows_splits_one_sample_into_train_fraction_training_rows_and_the_rest() {
    // n_rows = 200, train_fraction = 0.632: ⌊126.4⌋ = 126 training rows and 74 test
    // rows, so the rows band is a t-band with 73 degrees of freedom.
    let yaml = |data: &str| {
        tiny(
            9,
            2,
            data,
            "  - ice: { grid: { points: 3, range: { fixed: [0.2, 0.8] } }, statistics: [prediction] }\n",
        )
    };
    let tidy = tiny_tidy(yaml(
        "{ dgp: { molnar_additive: {} }, n_rows: 200, train_fraction: 0.632 }",
    ));
    assert_eq!(tidy.len(), 2 * 15);
    for t in &tidy {
        let q = (t.value.upper - t.value.estimate) / t.value.se;
        assert!(
            (q - 1.992_997_1).abs() < 1e-6,
            "t_(0.975, 73) expected, got {q}"
        );
        assert_eq!(t.value.n, 74);
    }
    for (bad, says) in [
        (
            "{ dgp: { molnar_additive: {} }, n_rows: 200, n_train: 100, train_fraction: 0.5 }",
            "not both",
        ),
        (
            "{ dgp: { molnar_additive: {} }, n_rows: 200 }",
            "needs `train_fraction`",
        ),
        (
            "{ dgp: { molnar_additive: {} }, n_rows: 200, train_fraction: 1.2 }",
            "must lie in (0, 1)",
        ),
        (
            "{ dgp: { molnar_additive: {} }, n_train: 100, train_fraction: 0.5 }",
            "give `n_rows` too",
        ),
    ] {
        let err = tiny_error(yaml(bad));
        assert!(err.contains(says), "{bad}: {err}");
    }
}

#[test]
fn a_bundled_grid_value_sets_several_fields_and_fixed_training_keeps_the_model() {
    // Two variants that differ in two fields at once: "mc" keeps one training sample
    // and draws 20 test rows per replicate, "fresh" draws both afresh with 40 test
    // rows. lm's PD is β̂_0 + β̂_j·x + Σ_k β̂_k·x̄_k, so PD(0.8) − PD(0.2) = 0.6·β̂_j:
    // the same in every replicate when the model is, while the level moves with the
    // test rows' means.
    let yaml = format!(
        "{}grid:\n  panel:\n    - {{ label: mc, set: {{ sampling: fixed_training, n_test: 20 }} }}\n    - {{ label: fresh, set: {{ sampling: fresh, n_test: 40 }} }}\n",
        tiny(
            11,
            3,
            "{ dgp: { molnar_additive: {} }, n_train: 60, n_test: 30, sampling: fresh }",
            "  - ice: { grid: { points: 2, range: { fixed: [0.2, 0.8] } }, statistics: [prediction] }\n",
        )
    );
    let tidy = tiny_tidy(yaml);
    let of = |panel: &str| -> Vec<(f64, f64)> {
        (0..3)
            .map(|r| {
                let pd: Vec<&xai_bench::table::TidyRow> = tidy
                    .iter()
                    .filter(|t| t.labels == [panel] && t.replicate == r && t.feature == "X1")
                    .collect();
                assert_eq!(pd.len(), 2);
                let n = if panel == "mc" { 20 } else { 40 };
                assert!(pd.iter().all(|t| t.value.n == n), "{panel}: {n} test rows");
                (
                    pd[1].value.estimate - pd[0].value.estimate,
                    pd[0].value.estimate,
                )
            })
            .collect()
    };
    let (mc, fresh) = (of("mc"), of("fresh"));
    for r in 1..3 {
        assert!((mc[r].0 - mc[0].0).abs() < 1e-12, "one model: {mc:?}");
        assert!((mc[r].1 - mc[0].1).abs() > 1e-6, "fresh test rows: {mc:?}");
        assert!(
            (fresh[r].0 - fresh[0].0).abs() > 1e-6,
            "fresh models: {fresh:?}"
        );
    }
    let err = tiny_error(format!(
        "{}grid:\n  panel:\n    - {{ label: a, set: {{ no_such_field: 1 }} }}\n",
        tiny(
            1,
            1,
            "{ dgp: { molnar_additive: {} }, n_train: 60, n_test: 30 }",
            "  - ice: { grid: { points: 2, range: { fixed: [0.2, 0.8] } }, statistics: [prediction] }\n"
        )
    ));
    assert!(
        err.contains("grid `panel`'s set key `no_such_field` matches no field"),
        "{err}"
    );
    let err = tiny_error(tiny(
        1,
        1,
        "{ dgp: { molnar_additive: {} }, n_rows: 100, train_fraction: 0.5, sampling: fixed_training }",
        "  - ice: { grid: { points: 2, range: { fixed: [0.2, 0.8] } }, statistics: [prediction] }\n",
    ));
    assert!(err.contains("contradicts"), "{err}");
}

#[test]
fn a_pd_replicates_plot_names_grid_values_and_needs_the_tidy_rows() {
    let yaml = |extra: &str, plot: &str| {
        format!(
            "{}{extra}grid:\n  panel:\n    - {{ label: mc, set: {{ sampling: fixed_training, n_test: 20 }} }}\n    - {{ label: fresh, set: {{ sampling: fresh, n_test: 40 }} }}\nplots:\n  - pd_replicates: {plot}\n",
            tiny(
                1,
                2,
                "{ dgp: { molnar_additive: {} }, n_train: 60, n_test: 30, sampling: fresh }",
                "  - ice: { grid: { points: 2, range: { fixed: [0.2, 0.8] } }, statistics: [prediction] }\n",
            )
        )
    };
    let ok = "{ name: test, pd: prediction_pd, feature: X1, panels: panel, mean: [fresh], show: [mc, fresh] }";
    xai_bench::plan::Experiment::from_text(Path::new("tiny.yaml"), yaml("", ok)).unwrap();
    for (extra, plot, says) in [
        ("tidy: false\n", ok, "remove `tidy: false`"),
        (
            "",
            "{ name: test, pd: prediction_pd, feature: X1, panels: panel, mean: [bias] }",
            "`mean` names `bias`",
        ),
        (
            "",
            "{ name: test, pd: prediction_pd, feature: X1, panels: panel, show: [mc, other] }",
            "`show` names `other`",
        ),
        (
            "",
            "{ name: test, pd: prediction_pd, feature: X1, panels: n_test }",
            "not a grid key",
        ),
    ] {
        let err = tiny_error(yaml(extra, plot));
        assert!(err.contains(says), "{plot}: {err}");
    }
}

#[test]
fn conditional_subgroups_is_a_pfi_sampler_like_any_other() {
    // On molnar2023's linear DGP (independent features) the within-leaf permutation
    // of x1 still breaks lm's use of it: loss_subgroup_pfi of X1 is well above 0.
    let yaml = |p: &str| {
        tiny(
            4,
            2,
            "{ dgp: { molnar_linear: {} }, n_train: 300, n_test: 300 }",
            &format!("  - pfi: {{ perturbation: {p}, statistics: [squared_error] }}\n"),
        )
    };
    let tidy = tiny_tidy(yaml("{ conditional_subgroups: { repeats: 3 } }"));
    let x1: Vec<f64> = tidy
        .iter()
        .filter(|t| t.quantity == "loss_subgroup_pfi" && t.feature == "X1")
        .map(|t| t.value.estimate)
        .collect();
    assert_eq!(x1.len(), 2);
    assert!(x1.iter().all(|v| *v > 0.05), "{x1:?}");
    let err = tiny_error(yaml(
        "{ conditional_subgroups: { repeats: 3, max_depth: 0 } }",
    ));
    assert!(
        err.contains("conditional_subgroups.max_depth: 0 is outside its range [1, 30]"),
        "{err}"
    );
}

#[test]
fn a_scale_can_replace_the_values_of_a_grid_key_and_only_of_one_the_grid_has() {
    let base = tiny(
        3,
        1,
        "{ dgp: { molnar_additive: {} }, n_train: 60, n_test: 30 }",
        "  - ice: { grid: { points: 2, range: { fixed: [0.2, 0.8] } }, statistics: [prediction] }\n",
    );
    let with = |override_: &str| {
        format!("{base}grid:\n  n_test: [30, 40]\n").replace(
            "smoke: { replicates: 1 }",
            &format!("smoke: {{ replicates: 1, grid: {override_} }}"),
        )
    };
    let tidy = tiny_tidy(with("{ n_test: [20] }"));
    assert!(!tidy.is_empty());
    assert!(
        tidy.iter().all(|t| t.labels == ["20"] && t.value.n == 20),
        "smoke runs only the n_test = 20 cell"
    );
    let err = tiny_error(with("{ n_train: [20] }"));
    assert!(err.contains("which `grid:` does not have"), "{err}");
}

#[test]
fn a_conditional_pd_needs_two_rows_per_grid_value_and_has_no_coverage() {
    let data = "{ dgp: { molnar_additive: {} }, n_train: 60, n_test: 30 }";
    let err = tiny_error(tiny(
        1,
        1,
        data,
        "  - ice: { grid: { points: 3 }, statistics: [prediction], band: { conditional: { nearest: 1 } } }\n",
    ));
    assert!(
        err.contains("band.conditional.nearest: 1 is outside its range ≥ 2"),
        "{err}"
    );
    let err = tiny_error(tiny(
        1,
        1,
        data,
        "  - ice: { grid: { points: 3 }, statistics: [prediction], coverage: true, band: { conditional: { nearest: 10 } } }\n",
    ));
    assert!(err.contains("conditional PD has no"), "{err}");
    let tidy = tiny_tidy(tiny(
        1,
        1,
        data,
        "  - ice: { grid: { points: 3 }, statistics: [prediction], band: { conditional: { nearest: 10 } } }\n  - score: { statistics: [squared_error] }\n",
    ));
    let pd: Vec<_> = tidy
        .iter()
        .filter(|t| t.quantity == "prediction_conditional_pd")
        .collect();
    assert_eq!(pd.len(), 15, "3 grid points for each of 5 features");
    assert!(pd.iter().all(|t| t.value.n == 10));
    let score: Vec<_> = tidy.iter().filter(|t| t.quantity == "loss_score").collect();
    assert_eq!(score.len(), 1);
    assert_eq!(score[0].value.n, 30);
}
