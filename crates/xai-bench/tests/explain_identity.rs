//! One kernel behind both front ends: `explain` of a built-in learner on a table, with
//! `pfi`, `ice` (curves kept) and `learner_inference`, writes the tidy rows and curves
//! that `run` writes for an experiment naming that table (a table of one's own, every
//! row fitted and explained), that learner, those methods and that seed, byte for
//! byte; and a call's settings are refused as a run refuses them, before any work.

use std::path::PathBuf;

use serde_json::{Value, json};
use xai_bench::BenchError;
use xai_bench::commands::{Place, run_experiment};
use xai_bench::datasets::{load, search_dirs};
use xai_bench::kernel::{Request, explain};
use xai_bench::plan::{Experiment, Job, Scale};
use xai_bench::table::{write_curves, write_tidy};
use xai_models::LearnerSpec;

const SEED: u64 = 17;

/// The learner and methods, as the YAML writes them and as `explain` receives them.
fn learner() -> Value {
    json!({ "random_forest": { "n_trees": 8, "min_samples_split": 5 } })
}

fn methods() -> Vec<Value> {
    let pfi = json!({ "pfi": {
        "perturbation": { "permutation": { "repeats": 3 } },
        "statistics": ["squared_error"] } });
    let ice = json!({ "ice": {
        "grid": { "points": 5, "range": "min_max" },
        "statistics": ["prediction"],
        "curves": 4 } });
    let learner_pd = json!({ "ice": {
        "grid": { "points": 4, "range": { "fixed": [0, 2] } },
        "statistics": ["prediction"],
        "features": ["x1"] } });
    let inference = json!({ "learner_inference": {
        "resampling": "subs", "refits": 3, "explain": [pfi, learner_pd] } });
    vec![pfi, ice, inference]
}

/// A scratch directory with `mine.csv` (y = 2·x1 + colour + noise, x2 unused) and
/// the experiment naming it.
fn scratch(tag: &str) -> (PathBuf, PathBuf) {
    let root = std::env::temp_dir().join(format!("xai-explain-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let mut csv = String::from("x1,x2,colour,y\n");
    for i in 0..60 {
        let (x1, x2) = ((i % 9) as f64 / 4.0, (i % 7) as f64 / 3.0);
        let red = i % 3 == 0;
        let y = 2.0 * x1 + if red { 1.0 } else { 0.0 } + ((i * 37 % 11) as f64 - 5.0) / 20.0;
        csv += &format!("{x1},{x2},{},{y}\n", if red { "red" } else { "blue" });
    }
    std::fs::write(root.join("mine.csv"), csv).unwrap();
    let yaml = format!(
        "id: explain-identity\ntitle: t\npaper: molnar2023\nfigure: none\nseed: {SEED}\n\
         tidy: true\nscales:\n  smoke: {{ replicates: 1 }}\n  ci: {{ replicates: 1 }}\n  \
         paper: {{ replicates: 1 }}\ndata:\n  dataset:\n    name: mine\n    table:\n      \
         file: mine.csv\n      target: {{ column: y, task: regression }}\n      \
         categorical: {{ colour: [red, blue] }}\n    test_fraction: 0\n\
         models:\n  forest: {}\nmethods: {}\n",
        learner(),
        Value::Array(methods())
    );
    let path = root.join("explain-identity.yaml");
    std::fs::write(&path, yaml).unwrap();
    (root, path)
}

/// The table as the run loads it.
fn table(root: &std::path::Path, exp: &Experiment) -> xai_core::Dataset {
    let d = exp.spec.data.dataset.as_ref().unwrap();
    let own = d.table.as_ref().unwrap();
    let entry = own.entry(&own.path(exp.dir())).unwrap();
    load(&d.name, &entry, &search_dirs(root), d.missing)
        .unwrap()
        .data
}

/// The call of the forest on `data` (fitted and explained) with `methods`.
fn request<'a>(
    data: &'a xai_core::Dataset,
    learner: &'a LearnerSpec,
    node: &'a Value,
    methods: &'a [Value],
    level: f64,
) -> Request<'a> {
    Request {
        train: data,
        test: data,
        name: "forest",
        learner,
        learner_node: node,
        fitted: None,
        methods,
        seed: SEED,
        level,
        dgp: None,
        threads: 1,
        stop: None,
    }
}

#[test]
fn explain_on_a_table_writes_the_rows_run_writes_byte_for_byte() {
    let (root, yaml) = scratch("identity");
    let exp = Experiment::load(&yaml).unwrap();
    let out = root.join("run");
    let place = Place {
        out: Some(out.clone()),
        ..Place::default()
    };
    run_experiment(&root, Job::new(&exp, Scale::Ci, 2, false), &place).unwrap();

    let data = table(&root, &exp);
    let spec: LearnerSpec = serde_json::from_value(learner()).unwrap();
    let (node, methods) = (learner(), methods());
    let request = request(&data, &spec, &node, &methods, 0.95);
    let got = explain(&request).unwrap();
    let ours = root.join("explain");
    std::fs::create_dir_all(&ours).unwrap();
    write_tidy(&ours.join("tidy.csv"), &[], &got.rows).unwrap();
    write_curves(
        &ours.join("ice.csv"),
        &[],
        data.feature_names(),
        &got.curves,
    )
    .unwrap();
    let read = |p: PathBuf| std::fs::read_to_string(p).unwrap();
    let tidy = read(out.join("tidy.csv"));
    assert_eq!(read(ours.join("tidy.csv")), tidy);
    assert_eq!(read(ours.join("ice.csv")), read(out.join("ice.csv")));
    for q in [
        "loss_pfi",
        "prediction_pd",
        "learner_loss_pfi_corrected",
        "learner_prediction_pd",
    ] {
        assert!(tidy.contains(&format!(",forest,{q},")), "no {q} in\n{tidy}");
    }
    // Another seed moves the numbers: the comparison can fail.
    // With a stop, the call plans learner inference's 3 refits and begins each (the
    // progress line's "refit 3 of 3").
    let stop = xai_core::stop::Stop::default();
    let other = explain(&Request {
        seed: SEED + 1,
        stop: Some(&stop),
        ..request
    })
    .unwrap();
    assert_eq!(stop.progress(), (3, 3));
    write_tidy(&ours.join("other.csv"), &[], &other.rows).unwrap();
    assert_ne!(read(ours.join("other.csv")), tidy);
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_calls_settings_are_refused_before_any_work_naming_the_setting() {
    let (root, yaml) = scratch("refusals");
    let exp = Experiment::load(&yaml).unwrap();
    let data = table(&root, &exp);
    let spec: LearnerSpec = serde_json::from_value(learner()).unwrap();
    let node = learner();
    let call = |methods: &[Value], level: f64| {
        explain(&request(&data, &spec, &node, methods, level)).err()
    };
    let pfi = |repeats: u64| {
        vec![json!({ "pfi": {
            "perturbation": { "permutation": { "repeats": repeats } },
            "statistics": ["squared_error"] } })]
    };
    for level in [0.0, 1.0, 95.0, f64::NAN] {
        match call(&pfi(2), level) {
            Some(BenchError::Setting { field, .. }) => assert_eq!(field, "level"),
            e => panic!("level {level}: {e:?}"),
        }
    }
    // 10⁹ perturbed copies of 60 rows of 3 features: 1.4 TB, refused unallocated.
    match call(&pfi(1_000_000_000), 0.95) {
        Some(BenchError::Size { field, message }) => {
            assert_eq!(field, "repeats");
            assert!(message.contains("`repeats` is too large"), "{message}");
        }
        e => panic!("{e:?}"),
    }
    // 10⁹ refits' values kept until pooled, 10¹² KernelSHAP coalitions: refused too.
    let refits = [json!({ "learner_inference": {
        "resampling": "subs", "refits": 1_000_000_000u64, "explain": pfi(2) } })];
    let shapley =
        [json!({ "shapley": { "estimator": "kernel", "samples": 1_000_000_000_000u64 } })];
    for (methods, setting) in [(&refits, "refits"), (&shapley, "samples")] {
        match call(methods, 0.95) {
            Some(BenchError::Size { field, .. }) => assert_eq!(field, setting),
            e => panic!("{setting}: {e:?}"),
        }
    }
    match call(&pfi(0), 0.95) {
        Some(BenchError::Setting { field, message }) => {
            assert_eq!(field, "methods[0].pfi.perturbation.permutation.repeats");
            assert_eq!(message, "0 is outside its range ≥ 1");
        }
        e => panic!("{e:?}"),
    }
    let twice = [pfi(2), pfi(3)].concat();
    match call(&twice, 0.95) {
        Some(BenchError::Setting { field, .. }) => assert_eq!(field, "methods[1].loss_pfi"),
        e => panic!("{e:?}"),
    }
    match call(&[json!({ "pfj": {} })], 0.95) {
        Some(BenchError::Setting { field, message }) => {
            assert_eq!(field, "methods[0]");
            assert!(message.contains("learner_inference"), "{message}");
        }
        e => panic!("{e:?}"),
    }
    assert!(call(&pfi(2), 0.95).is_none());
    let _ = std::fs::remove_dir_all(&root);
}
