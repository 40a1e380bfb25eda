//! Random streams are keyed on the YAML values that determine the numbers, never on
//! the `Debug` text of the typed spec (issue 29): a field added to a spec type with
//! its default changes no `Debug`-free key, so it moves no number. Before this, the
//! Monte-Carlo truths drew from `stream_rng(seed, fnv(Debug text))`, and adding an
//! optional field to `LearnerInferenceSpec` moved molnar2023's numbers.

use std::path::Path;

use xai_bench::plan::{Experiment, Job, Scale};
use xai_bench::run::run;
use xai_bench::table::summary_table;

/// A coverage study of learner inference with a Monte-Carlo truth, small enough to run
/// in a second; `{learner}` and `{runs}` are filled in by the tests.
const STUDY: &str = "id: stream-test
title: t
paper: p
figure: f
tidy: false
seed: 29
scales:
  smoke: { replicates: 3 }
  ci: { replicates: 3 }
  paper: { replicates: 3 }
data:
  dgp:
    molnar_linear: {}
  n_train: 60
  n_test: 2
models:
  m:
    {learner}
grid:
  resampling: [boot, subs]
methods:
  - learner_inference:
      resampling: boot
      refits: 4
      truth: { runs: {runs} }
      explain:
        - pfi: { perturbation: { permutation: { repeats: 2 } }, statistics: [squared_error] }
";

/// The same study with its keys in another order and in flow style.
const REORDERED: &str = "id: stream-test
seed: 29
title: t
figure: f
paper: p
tidy: false
scales: { paper: { replicates: 3 }, ci: { replicates: 3 }, smoke: { replicates: 3 } }
models: { m: { lm: {} } }
methods:
  - learner_inference:
      explain: [{ pfi: { statistics: [squared_error], perturbation: { permutation: { repeats: 2 } } } }]
      truth: { runs: 12 }
      refits: 4
      resampling: boot
grid: { resampling: [boot, subs] }
data: { n_test: 2, n_train: 60, dgp: { molnar_linear: {} } }
";

fn study(learner: &str, runs: usize) -> Experiment {
    let text = STUDY
        .replace("{learner}", learner)
        .replace("{runs}", &runs.to_string());
    Experiment::from_text(Path::new("stream-test.yaml"), text).unwrap()
}

/// The truth identity of model `m` and the study's one method, per variant.
fn identities(exp: &Experiment) -> Vec<String> {
    exp.variants(Scale::Smoke)
        .unwrap()
        .iter()
        .map(|v| {
            let method = v.spec.methods[0].method();
            let key = method
                .truth_key(v.method_node(0))
                .expect("a Monte-Carlo truth");
            v.truth_identity("m", key)
        })
        .collect()
}

#[test]
fn a_truth_is_keyed_on_the_canonical_json_of_its_yaml_values() {
    let ids = identities(&study("lm: {}", 12));
    let expected = r#"{"dgp":{"molnar_linear":{}},"learner":{"lm":{}},"method":{"explain":[{"pfi":{"perturbation":{"permutation":{"repeats":2}},"statistics":["squared_error"]}}],"fraction":null,"runs":12},"n_train":60}"#;
    // Both resamplings share the one truth: the resampling is not among its inputs.
    assert_eq!(ids, vec![expected.to_string(), expected.to_string()]);
}

#[test]
fn key_order_and_layout_change_no_stream() {
    let a = study("lm: {}", 12);
    let b = Experiment::from_text(Path::new("stream-test.yaml"), REORDERED.to_string()).unwrap();
    assert_eq!(identities(&a), identities(&b));
    let (ra, rb) = (
        run(Job::new(&a, Scale::Smoke, 1, false)).unwrap(),
        run(Job::new(&b, Scale::Smoke, 2, false)).unwrap(),
    );
    assert_eq!(
        summary_table(&ra.keys, &ra.summary),
        summary_table(&rb.keys, &rb.summary)
    );
}

#[test]
fn every_value_a_truth_depends_on_moves_its_stream() {
    let base = identities(&study("lm: {}", 12));
    assert_ne!(base, identities(&study("lm: {}", 13)), "truth runs");
    assert_ne!(
        base,
        identities(&study("rpart: { maxdepth: 2 }", 12)),
        "learner"
    );
    // And the truth itself moves with them: its values differ with its runs.
    let (a, b) = (
        run(Job::new(&study("lm: {}", 12), Scale::Smoke, 1, false)).unwrap(),
        run(Job::new(&study("lm: {}", 13), Scale::Smoke, 1, false)).unwrap(),
    );
    let truth = |r: &xai_bench::run::RunOutput| -> Vec<f64> {
        r.summary
            .iter()
            .filter(|s| s.quantity.starts_with("truth_"))
            .map(|s| s.value.estimate)
            .collect()
    };
    assert!(!truth(&a).is_empty());
    assert_ne!(truth(&a), truth(&b));
}
