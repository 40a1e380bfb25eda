//! Every numeric setting of every method kind, and the data's sizes, driven with 0,
//! −1, 2.7, NaN, 10⁹ and 10¹² from YAML: each experiment is refused at load with a
//! typed error, or runs to a result or a typed error — never a panic, an abort or a
//! hang (a run is given [`DEADLINE`]). Sizes too large for memory are refused before
//! anything is allocated, so 10⁹ and 10¹² end at once.

use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};
use xai_bench::BenchError;
use xai_bench::plan::{Experiment, Job, Scale};

/// The values every numeric setting is driven with, as YAML writes them.
const VALUES: [&str; 6] = ["0", "-1", "2.7", ".nan", "1000000000", "1000000000000"];

/// How long one run may take: a smoke run here takes well under a second, so a run
/// still going after this is looping over a size that validation let through.
const DEADLINE: Duration = Duration::from_secs(60);

/// One valid node of every method kind with numeric settings (each list is the
/// methods of one experiment; the fuzzed one is the last), on a DGP of three
/// features x1, x2, x3.
fn templates() -> Vec<Vec<Value>> {
    let pfi = json!({ "pfi": { "perturbation": { "permutation": { "repeats": 2 } },
                               "statistics": ["squared_error"] } });
    vec![
        vec![pfi.clone()],
        vec![json!({ "pfi": { "perturbation": { "conditional_subgroups":
            { "repeats": 2, "max_depth": 3, "min_leaf": 5 } }, "statistics": ["squared_error"] } })],
        vec![
            json!({ "pfi": { "perturbation": { "fresh_draws": { "repeats": 2 } },
                              "statistics": ["squared_error"] } }),
        ],
        vec![
            json!({ "pfi": { "perturbation": { "conditional_gaussian": { "repeats": 2 } },
                              "statistics": ["squared_error"] } }),
        ],
        vec![
            json!({ "ice": { "grid": { "points": 5, "range": "min_max" },
                              "statistics": ["prediction"], "curves": 3,
                              "coverage": true, "truth_rows": 1000 } }),
        ],
        vec![
            json!({ "ice": { "grid": { "points": 4, "range": { "fixed": [0.0, 1.0] } },
                              "statistics": ["prediction"],
                              "band": { "conditional": { "nearest": 10 } } } }),
        ],
        vec![
            json!({ "ice": { "grid": { "range": "unique" }, "statistics": ["prediction"],
                              "impact": { "lambda": 0.75 } } }),
        ],
        vec![
            pfi.clone(),
            json!({ "cid": { "corrects": ["loss_pfi"], "alpha": 0.01, "bins": 5,
            "mi": { "ksg": { "k": 3 } }, "null_test": { "shuffles": 20, "quantile": 0.95 } } }),
        ],
        vec![json!({ "predictability": { "folds": 3 } })],
        vec![
            json!({ "learner_inference": { "resampling": "subs", "refits": 3,
            "fraction": 0.632, "m": [2, 3], "explain": [pfi] } }),
        ],
        vec![
            json!({ "shapley": { "estimator": "kernel", "samples": 16, "background": 10,
                                  "rows": 5 } }),
        ],
        vec![json!({ "shapley": { "estimator": "exact", "background": 10, "rows": 5 } })],
        vec![json!({ "class_shares": { "feature": "x1", "edges": [0.0, 0.5, 1.0] } })],
    ]
}

/// Whether `methods` needs a target of classes (`class_shares`).
fn classifies(methods: &[Value]) -> bool {
    methods.iter().any(|m| m.get("class_shares").is_some())
}

/// The experiment running `methods`, its DGP's sizes given: a regression target
/// explained by a linear model and a forest, or a binary one by the forest alone.
fn experiment(methods: &[Value], n_train: &str, n_test: &str) -> String {
    let (target, models) = match classifies(methods) {
        false => (
            "x1 + 2 * x2 + normal(0, 0.5)",
            "  lm:\n    lm: {}\n  forest:\n    random_forest: { n_trees: 3 }\n",
        ),
        true => (
            "bernoulli(0.2 + 0.6 * x1)",
            "  forest:\n    random_forest: { n_trees: 3 }\n",
        ),
    };
    format!(
        "id: fuzz\ntitle: t\npaper: molnar2023\nfigure: none\nseed: 1\n\
         scales:\n  smoke: {{ replicates: 1 }}\n  ci: {{ replicates: 1 }}\n  paper: {{ replicates: 1 }}\n\
         data:\n  dgp:\n    formula:\n      features:\n        - x1: uniform(0, 1)\n        \
         - x2: uniform(0, 1)\n        - x3: normal(x1, 1)\n      target: {target}\n  \
         n_train: {n_train}\n  n_test: {n_test}\nmodels:\n{models}methods: {}\n",
        Value::Array(methods.to_vec())
    )
}

/// The paths of every number in `node`, as JSON pointers.
fn numbers(node: &Value, at: String, out: &mut Vec<String>) {
    match node {
        Value::Number(_) => out.push(at),
        Value::Array(v) => v
            .iter()
            .enumerate()
            .for_each(|(i, n)| numbers(n, format!("{at}/{i}"), out)),
        Value::Object(m) => m
            .iter()
            .for_each(|(k, n)| numbers(n, format!("{at}/{k}"), out)),
        _ => {}
    }
}

/// How a run ended well.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Ended {
    /// Refused at load (typed).
    Refused,
    /// Ran into a typed error.
    Failed,
    /// Ran to a result.
    Computed,
}

/// What loading and running `yaml` ended in: how it ended well (a refusal, a typed
/// error, a result), or what went wrong (a panic, a bug caught in a cell, or the
/// deadline passed).
fn outcome(yaml: String) -> Result<Ended, String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let ran = std::panic::catch_unwind(|| {
            let exp = match Experiment::from_text(std::path::Path::new("fuzz.yaml"), yaml) {
                Ok(exp) => exp,
                Err(_) => return Ok(Ended::Refused),
            };
            match xai_bench::run::run(Job::quiet(&exp, Scale::Smoke)) {
                Err(BenchError::Panicked { message, .. }) => Err(format!("a bug: {message}")),
                Err(_) => Ok(Ended::Failed),
                Ok(_) => Ok(Ended::Computed),
            }
        });
        let _ = tx.send(ran.unwrap_or_else(|_| Err("a panic".into())));
    });
    rx.recv_timeout(DEADLINE)
        .unwrap_or_else(|_| Err(format!("still running after {DEADLINE:?}")))
}

#[test]
fn no_setting_value_panics_aborts_or_hangs() {
    let mut failures = Vec::new();
    let mut ended = std::collections::BTreeMap::<Ended, usize>::new();
    let mut runs = 0;
    for methods in templates() {
        // The template as written computes: the drive starts from a working call.
        assert_eq!(
            outcome(experiment(&methods, "40", "20")),
            Ok(Ended::Computed),
            "{methods:?}"
        );
        let last = methods.len() - 1;
        let mut paths = Vec::new();
        numbers(&methods[last], String::new(), &mut paths);
        for path in &paths {
            for v in VALUES {
                let mut fuzzed = methods.clone();
                // A placeholder the YAML text then carries as written (.nan is YAML's).
                *fuzzed[last].pointer_mut(path).unwrap() = json!("@@");
                let yaml = experiment(&fuzzed, "40", "20").replace("\"@@\"", v);
                runs += 1;
                if std::env::var_os("XAI_FUZZ_TRACE").is_some() {
                    eprintln!("{}{path} = {v}", methods[last]);
                }
                match outcome(yaml) {
                    Ok(e) => *ended.entry(e).or_default() += 1,
                    Err(why) => failures.push(format!("{}{path} = {v}: {why}", methods[last])),
                }
            }
        }
    }
    for (n_train, n_test) in VALUES
        .iter()
        .flat_map(|v| [(*v, "20"), ("40", *v)])
        .chain([("1", "20"), ("40", "1")])
    {
        runs += 1;
        let methods = &templates()[0];
        match outcome(experiment(methods, n_train, n_test)) {
            Ok(e) => *ended.entry(e).or_default() += 1,
            Err(why) => failures.push(format!("n_train {n_train}, n_test {n_test}: {why}")),
        }
    }
    // Most driven values are out of range and refused at load; some are valid (2.7
    // for a real setting, 10⁹ for one the memory check lets through) and compute,
    // some fail inside the run with a typed error: the drive reaches each stage.
    eprintln!("{runs} runs: {ended:?}");
    assert!(runs > 100, "{runs} runs");
    for stage in [Ended::Refused, Ended::Failed, Ended::Computed] {
        assert!(ended.get(&stage).copied().unwrap_or(0) >= 5, "{ended:?}");
    }
    assert!(
        failures.is_empty(),
        "{} of {runs}:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
