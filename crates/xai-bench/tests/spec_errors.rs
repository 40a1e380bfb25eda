//! A malformed experiment gives one readable error naming the file, the line and the
//! allowed values, and never a panic.

use std::path::{Path, PathBuf};

use xai_bench::BenchError;
use xai_bench::catalog::resolve;
use xai_bench::plan::Experiment;
use xai_bench::plan::Job;
use xai_models::{LearnerKind, LearnerSpec};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A frozen copy of experiments/wood2024-fig4.yaml, so the line numbers below stay put.
fn fig4() -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/wood2024-fig4.yaml"),
    )
    .unwrap()
}

/// The error of loading the fig4 file with `from` replaced by `to`.
fn error_of(from: &str, to: &str) -> String {
    let text = fig4();
    assert!(text.contains(from), "fixture lacks {from:?}");
    let err = Experiment::from_text(
        Path::new("experiments/wood2024-fig4.yaml"),
        text.replacen(from, to, 1),
    )
    .expect_err("malformed spec must not load");
    let msg = err.to_string();
    assert!(
        msg.starts_with("experiments/wood2024-fig4.yaml: "),
        "names the file: {msg}"
    );
    msg
}

/// The last line of the fixture's `pfi` method.
const PFI_LINE: &str = "      statistics: [nll, entropy]";

fn assert_has(msg: &str, parts: &[&str]) {
    for p in parts {
        assert!(msg.contains(p), "expected {p:?} in:\n{msg}");
    }
}

#[test]
fn wrong_type_names_the_line() {
    let msg = error_of("n_train: 500", "n_train: many");
    eprintln!("{msg}");
    assert_has(&msg, &["line 28", "invalid u64"]);
}

#[test]
fn negative_size_names_the_line() {
    let msg = error_of("n_test: 500", "n_test: -5");
    eprintln!("{msg}");
    assert_has(&msg, &["line 29", "invalid u64"]);
}

#[test]
fn zero_size_names_the_field() {
    let msg = error_of("n_test: 500", "n_test: 0");
    eprintln!("{msg}");
    assert_has(&msg, &["line 29", "n_train and n_test must be at least 2"]);
}

#[test]
fn unknown_dgp_lists_the_known_ones() {
    let msg = error_of("correlated_gaussian: {", "correlated_gausian: {");
    eprintln!("{msg}");
    assert_has(
        &msg,
        &[
            "line 27",
            "correlated_gausian",
            "expected one of correlated_gaussian",
        ],
    );
}

#[test]
fn unknown_learner_lists_the_known_ones() {
    let msg = error_of("gaussian_process:", "neural_net:");
    eprintln!("{msg}");
    // The registry's names, in its order: a new learner is listed by its line alone.
    let known = format!("expected one of {}", LearnerSpec::NAMES.join(", "));
    assert_has(&msg, &["line 32", "neural_net", &known]);
    assert!(known.contains("gaussian_process, kriging, random_forest"));
}

#[test]
fn unknown_field_lists_the_allowed_ones() {
    let msg = error_of("restarts: 4", "restart: 4");
    eprintln!("{msg}");
    assert_has(
        &msg,
        &[
            "line 32",
            "unknown field `restart`",
            "expected one of restarts",
        ],
    );
}

#[test]
fn unknown_statistic_lists_the_allowed_ones() {
    let msg = error_of("[nll, entropy]", "[nll, entropie]");
    eprintln!("{msg}");
    assert_has(
        &msg,
        &[
            "line 36",
            "entropie",
            "expected one of prediction, squared_error, nll, entropy",
        ],
    );
}

#[test]
fn invalid_dgp_parameter_is_named() {
    let msg = error_of("noise_var: 2.0", "noise_var: -2.0");
    eprintln!("{msg}");
    assert_has(
        &msg,
        &["line 27", "`noise_var` = -2 is invalid: must be ≥ 0"],
    );
}

#[test]
fn unknown_quantity_in_a_check_is_named() {
    let msg = error_of(
        "negligible: { quantity: entropy_pfi",
        "negligible: { quantity: entropy_pd",
    );
    eprintln!("{msg}");
    assert_has(
        &msg,
        &[
            "line 54",
            "entropy_pd",
            "the methods report likelihood_pfi, entropy_pfi",
        ],
    );
}

#[test]
fn override_of_no_field_is_named() {
    let msg = error_of("restarts: 0, repeats: 2", "restarts: 0, repeat: 2");
    eprintln!("{msg}");
    assert_has(&msg, &["line 22", "repeat", "matches no field"]);
}

#[test]
fn syntax_error_names_the_line() {
    let msg = error_of("statistics: [nll, entropy]", "statistics: [nll, entropy");
    eprintln!("{msg}");
    assert_has(&msg, &["line 37 column 6", "illegal placement"]);
}

#[test]
fn unknown_id_lists_the_known_ones() {
    let err = resolve(&root(), "no-such-id").unwrap_err();
    assert!(matches!(err, BenchError::UnknownExperiment { .. }));
    assert_has(
        &err.to_string(),
        &["no-such-id", "wood2024-fig4", "wood2024-fig5"],
    );
}

#[test]
fn impurity_importance_needs_a_tree_ensemble() {
    let msg = error_of("methods:\n", "methods:\n  - impurity_importance: {}\n");
    assert_has(
        &msg,
        &[
            "impurity_importance needs tree-ensemble models",
            "`gp` is gaussian_process",
        ],
    );
}

#[test]
fn cid_settings_are_checked_at_load() {
    let msg = error_of(
        PFI_LINE,
        &format!("{PFI_LINE}\n  - cid: {{ corrects: [likelihood_pfi], bins: 1 }}"),
    );
    assert_has(
        &msg,
        &["line 37", "methods[1].cid.bins: 1 is outside its range ≥ 2"],
    );
}

#[test]
fn cross_validated_penalty_needs_candidates() {
    let msg = error_of(
        PFI_LINE,
        &format!(
            "{PFI_LINE}\n  - cid: {{ corrects: [likelihood_pfi], alpha_cv: {{ candidates: [] }} }}"
        ),
    );
    assert_has(
        &msg,
        &[
            "line 37",
            "methods[1].cid.alpha_cv.candidates (its length): 0 is outside its range ≥ 1",
        ],
    );
}

#[test]
fn cid_must_correct_a_pfi_listed_before_it() {
    let msg = error_of(
        "methods:\n",
        "methods:\n  - cid: { corrects: [likelihood_pfi] }\n",
    );
    assert_has(
        &msg,
        &[
            "cid corrects `likelihood_pfi`",
            "not a PFI of a method listed before it",
        ],
    );
}

#[test]
fn pfi_takes_a_conditional_sampler_but_not_a_grid() {
    let text = fig4().replacen("repeats: 2", "permutation.repeats: 2", 1).replacen(
        PFI_LINE,
        &format!("{PFI_LINE}\n  - pfi:\n      perturbation: {{ conditional_gaussian: {{ repeats: 3 }} }}\n      statistics: [entropy]"),
        1,
    );
    let exp = Experiment::from_text(Path::new("experiments/wood2024-fig4.yaml"), text).unwrap();
    let quantities: Vec<String> = exp
        .spec
        .methods
        .iter()
        .flat_map(|m| m.method().quantities())
        .collect();
    assert_eq!(
        quantities,
        ["likelihood_pfi", "entropy_pfi", "entropy_conditional_pfi"]
    );
    let text = fig4().replacen(", repeats: 2", "", 1).replacen(
        "perturbation: { permutation: { repeats: 10 } }",
        "perturbation: { grid: { points: 5 } }",
        1,
    );
    let msg = Experiment::from_text(Path::new("experiments/wood2024-fig4.yaml"), text)
        .unwrap_err()
        .to_string();
    assert_has(&msg, &["line 34", "use an `ice` method"]);
}

#[test]
fn two_methods_reporting_one_quantity_are_rejected() {
    let text = fig4().replacen("repeats: 2", "methods.0.pfi.perturbation.permutation.repeats: 2", 1).replacen(
        PFI_LINE,
        &format!("{PFI_LINE}\n  - pfi:\n      perturbation: {{ permutation: {{ repeats: 2 }} }}\n      statistics: [entropy]"),
        1,
    );
    let msg = Experiment::from_text(Path::new("experiments/wood2024-fig4.yaml"), text)
        .unwrap_err()
        .to_string();
    assert_has(&msg, &["two methods report `entropy_pfi`"]);
}

#[test]
fn a_size_that_cannot_fit_in_memory_fails_before_any_work_naming_the_field() {
    // The smoke scale (n_train 60) loads and fits; the ci scale asks for 1e11 rows.
    let text = fig4().replacen("n_train: 500", "n_train: 100000000000", 1);
    let exp = Experiment::from_text(Path::new("experiments/wood2024-fig4.yaml"), text).unwrap();
    let msg = xai_bench::run::run(Job::new(&exp, xai_bench::plan::Scale::Ci, 1, false))
        .unwrap_err()
        .to_string();
    eprintln!("{msg}");
    assert_has(
        &msg,
        &[
            "line 28",
            "n_train = 100000000000",
            "would need about",
            "available",
        ],
    );
}

#[test]
fn a_repeated_key_is_named_with_its_line() {
    let msg = error_of("  n_test: 500", "  n_test: 500\n  n_test: 400");
    eprintln!("{msg}");
    assert_has(&msg, &["`n_test`", "line 30", "line 29"]);
    assert!(!msg.contains("DuplicateKeyPolicy"), "{msg}");
}

#[test]
fn a_neighbour_count_beyond_the_training_rows_fails_at_load() {
    let msg = error_of(
        PFI_LINE,
        &format!(
            "{PFI_LINE}\n  - cid: {{ corrects: [likelihood_pfi], mi: {{ ksg: {{ k: 500 }} }} }}"
        ),
    );
    assert_has(
        &msg,
        &[
            "line 37",
            "cid mi",
            "`k` = 500 is invalid: must be 1 <= k < n for KSG",
        ],
    );
    let msg = error_of(
        PFI_LINE,
        &format!(
            "{PFI_LINE}\n  - cid: {{ corrects: [likelihood_pfi], null_test: {{ shuffles: 10, quantile: 0.95 }} }}"
        ),
    );
    assert_has(
        &msg,
        &[
            "cid null_test",
            "`shuffles` = 10 is invalid: must be at least",
        ],
    );
}

#[test]
fn a_companion_figure_needs_its_own_title() {
    let plot = "  - bars: { name: fig4, quantities: [likelihood_pfi, entropy_pfi] }";
    let msg = error_of(
        plot,
        &format!("{plot}\n  - bars: {{ name: extra, quantities: [entropy_pfi] }}"),
    );
    assert_has(
        &msg,
        &[
            "plot `extra` is a companion to Fig. 4 (`fig4`)",
            "give it a `title:`",
        ],
    );
}

/// `companion: true` marks a figure of ours beside the paper's: it needs a title
/// saying what it shows and a paper figure to stand beside.
#[test]
fn a_companion_needs_a_title_and_a_paper_figure() {
    let plot = "  - bars: { name: fig4, quantities: [likelihood_pfi, entropy_pfi] }";
    let untitled =
        format!("{plot}\n  - bars: {{ name: extra, companion: true, quantities: [entropy_pfi] }}");
    let msg = error_of(plot, &untitled);
    assert_has(
        &msg,
        &[
            "plot `extra` is marked `companion: true`",
            "give it a `title:`",
        ],
    );
    let own_study = fig4().replacen("figure: Fig. 4", "figure: none", 1).replacen(
        plot,
        &format!("{plot}\n  - bars: {{ name: extra, title: \"Entropy-PFI\", companion: true, quantities: [entropy_pfi] }}"),
        1,
    );
    let Err(err) = Experiment::from_text(Path::new("experiments/wood2024-fig4.yaml"), own_study)
    else {
        panic!("a companion of no paper figure loaded");
    };
    assert_has(&err.to_string(), &["marked `companion: true`"]);
    let titled = format!(
        "{plot}\n  - bars: {{ name: extra, title: \"Entropy-PFI\", companion: true, quantities: [entropy_pfi] }}"
    );
    let text = fig4().replacen(plot, &titled, 1);
    Experiment::from_text(Path::new("experiments/wood2024-fig4.yaml"), text).unwrap();
}

/// An ICE figure draws one fit unless it asks for every fit's curves; `replicates`
/// names ICE curves, so a PD figure without them is refused.
#[test]
fn every_fits_curves_need_an_ice_figure() {
    let plot = "  - bars: { name: fig4, quantities: [likelihood_pfi, entropy_pfi] }";
    let msg = error_of(
        plot,
        &format!(
            "{plot}\n  - curves: {{ name: extra, title: \"PD\", pd: likelihood_pfi, replicates: true }}"
        ),
    );
    assert_has(
        &msg,
        &[
            "curves `replicates` draws every fit's ICE curves",
            "needs `ice`",
        ],
    );
}

/// A bar figure draws the models it names, each one the experiment fits, and prints
/// values only beside horizontal bars; an ICE grid's `part: [k, n]` has 1 ≤ k ≤ n;
/// a curves `shared_y` shares ICE panels' ranges, so it needs `ice`. Each loads when
/// set right.
#[test]
fn new_plot_settings_are_checked_at_load() {
    let plot = "  - bars: { name: fig4, quantities: [likelihood_pfi, entropy_pfi] }";
    let with = |extra: &str| error_of(plot, &format!("{plot}\n  - {extra}"));
    let msg = with("bars: { name: x, title: \"T\", quantities: [entropy_pfi], models: [gpp] }");
    assert_has(&msg, &["bars `models` names `gpp`", "its models are gp"]);
    let msg = with("bars: { name: x, title: \"T\", quantities: [entropy_pfi], models: [] }");
    assert_has(&msg, &["lists at least one model"]);
    let msg = with("bars: { name: x, title: \"T\", quantities: [entropy_pfi], values: true }");
    assert_has(&msg, &["bars `values`", "needs `horizontal: true`"]);
    let msg = with("curves: { name: x, title: \"T\", pd: likelihood_pfi, shared_y: true }");
    assert_has(&msg, &["curves `shared_y`", "needs `ice`"]);
    let fine = format!(
        "{plot}\n  - bars: {{ name: x, title: \"T\", quantities: [entropy_pfi], models: [gp], horizontal: true, values: true }}"
    );
    let text = fig4().replacen(plot, &fine, 1);
    Experiment::from_text(Path::new("experiments/wood2024-fig4.yaml"), text).unwrap();
    let dir = root().join("experiments");
    let appb = std::fs::read_to_string(dir.join("icefi2022-figB.yaml")).unwrap();
    assert!(
        appb.contains("part: [2, 2]"),
        "the App. B grid is in two parts"
    );
    let Err(err) = Experiment::from_text(
        &dir.join("icefi2022-figB.yaml"),
        appb.replacen("part: [2, 2]", "part: [3, 2]", 1),
    ) else {
        panic!("part 3 of 2 loaded");
    };
    assert_has(
        &err.to_string(),
        &["`part: [k, n]` draws part k of n", "[3, 2]"],
    );
}

/// Every DGP has marginals (its own or column j of a joint draw), so fresh draws load
/// on fig4's correlated Gaussian DGP; a dataset has none.
#[test]
fn fresh_draws_need_a_dgp_not_a_dataset() {
    let text = fig4()
        .replacen(
            "permutation: { repeats: 10 }",
            "fresh_draws: { repeats: 10 }",
            1,
        )
        .replace("likelihood_pfi", "likelihood_fresh_pfi")
        .replace("entropy_pfi", "entropy_fresh_pfi");
    Experiment::from_text(Path::new("experiments/wood2024-fig4.yaml"), text).unwrap();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments");
    let text = std::fs::read_to_string(dir.join("molnar2023-fig6.yaml")).unwrap();
    assert!(text.contains("conditional_subgroups: { repeats: 5 }"));
    let msg = Experiment::from_text(
        &dir.join("molnar2023-fig6.yaml"),
        text.replacen(
            "conditional_subgroups: { repeats: 5 }",
            "fresh_draws: { repeats: 5 }",
            1,
        ),
    )
    .expect_err("fresh draws from a dataset must not load")
    .to_string();
    assert_has(&msg, &["fresh_draws", "dataset", "permutation"]);
}

#[test]
fn r_learners_parse_with_their_r_names() {
    use std::collections::BTreeMap;
    let yaml = "lm: {lm: {}}\n\
                tree: {rpart: {cp: 0.02, minsplit: 10}}\n\
                rf: {r_random_forest: {ntree: 50, mtry: third, nodesize: 5}}\n\
                rf1: {r_random_forest: {mtry: 1}}\n\
                tree0: {rpart: {}}\n\
                lm0: {lm: {}}\n";
    let models: BTreeMap<String, LearnerSpec> = serde_saphyr::from_str(yaml).unwrap();
    let names: Vec<&str> = models.values().map(LearnerSpec::name).collect();
    assert_eq!(
        names,
        [
            "lm",
            "lm",
            "r_random_forest",
            "r_random_forest",
            "rpart",
            "rpart"
        ]
    );
    for spec in models.values() {
        spec.validate().unwrap();
    }
    let LearnerSpec::Rpart(p) = &models["tree"] else {
        panic!("rpart")
    };
    assert_eq!((p.cp, p.sizes()), (0.02, (10, 3)));
    let bad: Result<BTreeMap<String, LearnerSpec>, _> =
        serde_saphyr::from_str("tree: {rpart: {minsplt: 10}}\n");
    let msg = bad.unwrap_err().to_string();
    assert!(
        msg.contains("minsplt") && msg.contains("minbucket"),
        "{msg}"
    );
}

/// An experiment drawn from another's runs (`runs_of`) computes exactly what that one
/// computes, states none of it itself, and names an existing computing experiment.
#[test]
fn runs_of_takes_the_computation_of_the_named_experiment_and_nothing_else() {
    let dir = root().join("experiments");
    let table1 = Experiment::load(&dir.join("molnar2023-table1.yaml")).unwrap();
    let fig5 = Experiment::load(&dir.join("molnar2023-fig5.yaml")).unwrap();
    assert_eq!(fig5.computation(), table1.computation());
    assert_eq!(fig5.spec.models, table1.spec.models);
    // Another experiment computes something else.
    let fig4 = Experiment::load(&dir.join("wood2024-fig4.yaml")).unwrap();
    assert_ne!(fig4.computation(), table1.computation());
    let text = std::fs::read_to_string(dir.join("molnar2023-fig5.yaml")).unwrap();
    let load = |t: String| {
        Experiment::from_text(&dir.join("molnar2023-fig5.yaml"), t)
            .expect_err("must not load")
            .to_string()
    };
    let msg = load(text.replacen("labels:", "seed: 7\nlabels:", 1));
    assert!(
        msg.contains("`seed` comes from `molnar2023-table1`"),
        "{msg}"
    );
    let msg = load(text.replacen(
        "runs_of: molnar2023-table1",
        "runs_of: molnar2023-table9",
        1,
    ));
    assert!(msg.contains("runs_of names `molnar2023-table9`"), "{msg}");
    let msg = load(text.replacen("runs_of: molnar2023-table1", "runs_of: molnar2023-fig4", 1));
    assert!(
        msg.contains("draws on the runs of another experiment"),
        "{msg}"
    );
}

#[test]
fn a_model_based_pd_band_needs_the_prediction_and_a_model_with_a_covariance() {
    let ice = "  - ice:\n      grid: { points: 3, range: { fixed: [0.1, 0.9] } }\n      statistics: [entropy]\n      band: model\n";
    let pfi = "  - pfi:\n      perturbation: { permutation: { repeats: 10 } }\n      statistics: [nll, entropy]\n";
    // Without the PFI, the smoke scale's `repeats` override has no field to set.
    let without_pfi = |text: String, method: &str| {
        text.replacen(pfi, method, 1)
            .replacen("restarts: 0, repeats: 2", "restarts: 0", 1)
    };
    let load = |text: String| {
        Experiment::from_text(Path::new("experiments/wood2024-fig4.yaml"), text)
            .expect_err("must not load")
            .to_string()
    };
    let msg = load(without_pfi(fig4(), ice));
    assert_has(&msg, &["band", "statistics: [prediction]"]);
    let text = without_pfi(fig4(), &ice.replace("[entropy]", "[prediction]"))
        .replacen(
            "gaussian_process: { restarts: 4, ard: false }",
            "random_forest: {}",
            1,
        )
        .replacen(", restarts: 0 }", " }", 1);
    let msg = load(text);
    assert_has(&msg, &["`gp` (random_forest)", "lm", "band: rows"]);
}

#[test]
fn a_covariate_shift_names_a_known_feature_and_a_non_negative_sd() {
    let data = "  n_test: 500\n";
    let msg = error_of(
        data,
        &format!("{data}  shift: {{ feature: X9, sd: 1.0 }}\n"),
    );
    assert_has(&msg, &["unknown feature `X9`"]);
    let msg = error_of(
        data,
        &format!("{data}  shift: {{ feature: X1, sd: -1.0 }}\n"),
    );
    assert_has(&msg, &["the shift's sd = -1 must be finite and ≥ 0"]);
}

#[test]
fn an_uncertainty_model_checks_both_stages_and_kept_features_need_keep() {
    let model = "    gaussian_process: { restarts: 4, ard: false }";
    let msg = error_of(
        model,
        "    uncertainty: { base: { xgboost: { rounds: 0 } }, model: { gaussian_process: { restarts: 4 } } }",
    );
    assert_has(
        &msg,
        &["models.gp.uncertainty.base.xgboost.rounds: 0 is outside its range ≥ 1"],
    );
    let msg = error_of(
        PFI_LINE,
        &format!("{PFI_LINE}\n  - shapley: {{ estimator: exact, keep_features: [X1] }}"),
    );
    assert_has(&msg, &["keep_features", "set `keep:` too"]);
}

#[test]
fn kept_missing_cells_need_a_learner_that_handles_them() {
    let msg = error_of(
        "  dgp:\n    correlated_gaussian: { noise_var: 2.0, rho: 0.8 }\n",
        "  dataset: { name: pima_na, missing: keep }\n",
    );
    assert_has(
        &msg,
        &[
            "model `gp` (gaussian_process) cannot fit rows with missing cells",
            "missing: keep",
        ],
    );
}

#[test]
fn member_entropies_need_a_model_with_members() {
    let msg = error_of(
        PFI_LINE,
        &format!("{PFI_LINE}\n  - shapley: {{ estimator: exact, value: epistemic_entropy }}"),
    );
    assert_has(
        &msg,
        &[
            "epistemic_entropy",
            "model `gp` (gaussian_process) has none",
        ],
    );
}

#[test]
fn ice_impact_needs_the_unique_grid_and_a_lambda_in_the_unit_interval() {
    let ice = |grid: &str, lambda: f64| {
        error_of(
            PFI_LINE,
            &format!(
                "{PFI_LINE}\n  - ice: {{ grid: {grid}, statistics: [prediction], impact: {{ lambda: {lambda} }} }}"
            ),
        )
    };
    assert_has(
        &ice("{ points: 10 }", 0.75),
        &["sorted unique values", "range: unique"],
    );
    assert_has(
        &ice("{ range: unique }", 1.5),
        &["methods[1].ice.impact.lambda: 1.5 is outside its range (0, 1]"],
    );
}

#[test]
fn across_feature_methods_read_quantities_listed_before() {
    let msg = error_of(
        PFI_LINE,
        &format!("{PFI_LINE}\n  - normalise: {{ quantities: [nope_fi] }}"),
    );
    assert_has(&msg, &["normalise reads `nope_fi`", "listed before: "]);
    let msg = error_of(
        PFI_LINE,
        &format!("{PFI_LINE}\n  - correlation: {{ reference: likelihood_pfi, with: [] }}"),
    );
    assert_has(&msg, &["correlation needs at least one quantity"]);
}

#[test]
fn coefficients_need_linear_models() {
    let msg = error_of(
        PFI_LINE,
        &format!("{PFI_LINE}\n  - coefficients: {{ standardised: true }}"),
    );
    assert_has(
        &msg,
        &[
            "coefficients needs models linear in their features",
            "model `gp`",
        ],
    );
}

#[test]
fn expected_gradients_need_a_network_and_a_function_of_its_log_odds() {
    let msg = error_of(
        "methods:\n",
        "methods:\n  - shapley: { estimator: gradient, value: entropy, samples: 200 }\n",
    );
    assert_has(
        &msg,
        &[
            "estimator `gradient` differentiates a network's members",
            "`gp` is gaussian_process",
        ],
    );
    let msg = error_of(
        "methods:\n",
        "methods:\n  - shapley: { estimator: gradient, value: neg_kl, samples: 200 }\n",
    );
    assert_has(
        &msg,
        &["expected gradients explains a function", "not `neg_kl`"],
    );
    let msg = error_of(
        "methods:\n",
        "methods:\n  - shapley: { estimator: gradient, value: entropy, samples: 0 }\n",
    );
    assert_has(&msg, &["at least 1 draw per row"]);
}

/// A study of its own (`figure: none`) has no paper figure to be a companion of: its
/// plots load without titles and are titled with the experiment's.
#[test]
fn plots_of_a_study_without_a_paper_figure_need_no_title() {
    let plot = "  - bars: { name: fig4, quantities: [likelihood_pfi, entropy_pfi] }";
    let text = fig4()
        .replacen("figure: Fig. 4", "figure: none", 1)
        .replacen(
            plot,
            &format!("{plot}\n  - bars: {{ name: extra, quantities: [entropy_pfi] }}"),
            1,
        );
    assert!(text.contains("figure: none"));
    Experiment::from_text(Path::new("experiments/wood2024-fig4.yaml"), text).unwrap();
}

/// A check's selector names a column and a value some variant has, checked at load
/// (a typo would otherwise select no rows, found only after the run).
#[test]
fn a_check_selecting_an_unknown_feature_or_column_is_refused_at_load() {
    let msg = error_of(
        "where: { feature: X5 }, bound",
        "where: { feature: X9 }, bound",
    );
    assert_has(
        &msg,
        &[
            "line 54",
            "`where` selects `feature: X9`",
            "X1, X2, X3, X4, X5",
        ],
    );
    let msg = error_of(
        "where: { feature: X5 }, bound",
        "where: { fature: X5 }, bound",
    );
    assert_has(
        &msg,
        &[
            "line 54",
            "selects on `fature`",
            "model, feature, x, quantity",
        ],
    );
    let msg = error_of("than: { feature: [X1, X2, X3, X4] }", "than: { model: rf }");
    assert_has(
        &msg,
        &["`than` selects `model: rf`", "values of `model` are gp"],
    );
}

/// A formula DGP's error names the line and column of the file, whether the formula
/// is the DGP as written or one a grid sets (read back through a tree).
#[test]
fn a_formula_error_names_its_line_and_column() {
    let dgp = "    correlated_gaussian: { noise_var: 2.0, rho: 0.8 }";
    let msg = error_of(
        dgp,
        "    formula:\n      features:\n        - X1: uniform(0, 1)\n      target: X1 + X0 + normal(0, 1)",
    );
    assert_has(
        &msg,
        &[
            "line 30, column 20: unknown variable `X0`; defined above: X1",
            "         ^^",
        ],
    );
}

/// A YAML error names the file where the parser says `<input>`, and says `error:` once.
#[test]
fn a_yaml_error_names_the_file_where_the_parser_says_input() {
    let msg = error_of("n_train: 500", "n_train: many");
    assert!(
        !msg.contains("<input>") && !msg.contains(": error: "),
        "{msg}"
    );
    assert_has(&msg, &["--> experiments/wood2024-fig4.yaml:28:"]);
}

/// A grid of more variants than memory holds (60 keys of two values: 2^60) is refused
/// at its line before any variant is built (its count once overflowed the allocation).
#[test]
fn a_grid_of_too_many_variants_is_refused() {
    let keys: String = (0..60).map(|i| format!("  k{i}: [1, 2]\n")).collect();
    let msg = error_of("\nmethods:", &format!("\ngrid:\n{keys}methods:"));
    assert_has(&msg, &["grid", "more than 100000 variants"]);
}

/// A check's absolute tolerance with no stated source does not load, and the error
/// says which sources there are (issue 50: no margin picked after seeing the number).
#[test]
fn a_tolerance_without_a_source_is_refused_at_load() {
    let msg = error_of(
        "negligible: { quantity: entropy_pfi, where: { feature: X5 }, bound: 0.005 }\n    tolerance_from: { derivation: \"a frozen copy for the error tests: a tenth of the largest Entropy-PFI, about 0.02 at ci scale\" }",
        "near: { quantity: entropy_pfi, where: { feature: X5 }, value: 0.1, tolerance: 0.03 }",
    );
    eprintln!("{msg}");
    assert_has(
        &msg,
        &["tolerance 0.03 states no source", "printed", "derivation"],
    );
}

/// A plot drawn `at` a grid value the experiment lacks is refused at load, naming the
/// grid it has.
#[test]
fn a_plot_at_a_grid_value_the_experiment_lacks_is_refused_at_load() {
    let msg = error_of(
        "  - bars: { name: fig4, quantities",
        "  - bars: { name: fig4, at: { sample: \"1\" }, quantities",
    );
    assert_has(&msg, &["`at: { sample: 1 }`", "names no grid value"]);
}
