//! The learners an experiment YAML can name: one line per learner.
//!
//! Adding a learner: its settings struct in its own module implements
//! [`LearnerKind`] (description, validation, [`Capabilities`],
//! memory estimates, the [`xai_core::Learner`] it builds), and one line below names
//! it. A learner that reads a file is also named in [`LearnerSpec::data_files_mut`].

use std::collections::BTreeMap;

use serde::Deserialize;
use xai_core::Learner;

use crate::boosting::BoostingParams;
use crate::calibration::CalibratedParams;
use crate::capabilities::Capabilities;
use crate::error::ParamError;
use crate::external::{ExternalParams, Supplied};
use crate::fitted_forest::FittedForestParams;
use crate::forest::{ExtraTreesParams, ForestParams};
use crate::gp::GpParams;
use crate::kind::LearnerKind;
use crate::kriging::KrigingParams;
use crate::lm::LmParams;
use crate::logistic::LogisticParams;
#[cfg(feature = "nn")]
use crate::nn::{BayesParams, CnnParams, MlpParams};
use crate::oracle::{OracleParams, Truth};
use crate::r_random_forest::RForestParams;
use crate::rpart::RpartParams;
use crate::svc::SvcParams;
use crate::svr::SvrParams;
use crate::uncertainty::UncertaintyParams;

xai_core::registry! {
    /// A learner with its hyperparameters, as written in YAML (`gaussian_process: {...}`).
    #[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
    pub enum LearnerSpec: fn learner -> dyn LearnerKind, fn name {
        /// Gaussian process regression, ARD RBF + white noise ([`crate::gp`]).
        "gaussian_process" => GaussianProcess(#[serde(default)] GpParams),
        /// Kriging with a constant trend and a power-exponential correlation, no nugget,
        /// as R's DiceKriging `km(~1, covtype = "powexp")` fits it ([`crate::kriging`]).
        "kriging" => Kriging(#[serde(default)] KrigingParams),
        /// Random forest, regression or classification ([`crate::forest`]).
        "random_forest" => RandomForest(#[serde(default)] ForestParams),
        /// Extra-trees: random thresholds, no bootstrap by default ([`crate::forest`]).
        "extra_trees" => ExtraTrees(#[serde(default)] ExtraTreesParams),
        /// Random forest with cross-fitted sigmoid or isotonic calibration
        /// ([`crate::calibration`]).
        "calibrated_forest" => CalibratedForest(#[serde(default)] CalibratedParams),
        /// Least squares with an intercept on every feature, as R's `lm` ([`crate::lm`]).
        "lm" => Lm(#[serde(default)] LmParams),
        /// L2-penalised logistic regression of a binary target, scikit-learn's objective
        /// with C ([`crate::logistic`]).
        "logistic_regression" => LogisticRegression(#[serde(default)] LogisticParams),
        /// A regression tree as R's `rpart` fits it: cp, minsplit, minbucket, maxdepth
        /// ([`crate::rpart`]).
        "rpart" => Rpart(#[serde(default)] RpartParams),
        /// A regression forest as R's `randomForest` fits it: ntree, mtry, nodesize
        /// ([`crate::r_random_forest`]).
        "r_random_forest" => RRandomForest(#[serde(default)] RForestParams),
        /// ε-support vector regression with an RBF kernel, as R's e1071 fits it
        /// ([`crate::svr`]).
        "svr" => Svr(#[serde(default)] SvrParams),
        /// A binary linear-kernel C-SVM with Platt-scaled probabilities, as scikit-learn's
        /// `SVC(kernel="linear", probability=True)` fits it ([`crate::svc`]).
        "svc" => Svc(#[serde(default)] SvcParams),
        /// Gradient-boosted trees as XGBoost 1.x's exact greedy updater grows them, with
        /// learned default directions for missing values ([`crate::boosting`]).
        "xgboost" => Xgboost(#[serde(default)] BoostingParams),
        /// A multilayer perceptron of ReLU units trained by Adam; with `dropout` and
        /// `passes`, an MC-dropout network; a Gaussian head for a continuous target
        /// ([`crate::nn::mlp`]).
        #[cfg(feature = "nn")]
        "mlp" => Mlp(#[serde(default)] MlpParams),
        /// A Bayes-by-backprop network: mean-field Gaussian weights, prior N(0, σ_p²),
        /// `samples` weight draws at prediction ([`crate::nn::bayes`]).
        #[cfg(feature = "nn")]
        "bayes_by_backprop" => BayesByBackprop(#[serde(default)] BayesParams),
        /// watson2023's MC-dropout CNN of square grey-level images, SGD with momentum
        /// ([`crate::nn::cnn`]).
        #[cfg(feature = "nn")]
        "cnn" => Cnn(#[serde(default)] CnnParams),
        /// A model of another model's uncertainty: a base model, a statistic of its
        /// predictions on the training rows (entropy by default), and a regressor of it,
        /// which is the fitted model (watson2023 §6; [`crate::uncertainty`]).
        "uncertainty" => Uncertainty(UncertaintyParams<LearnerSpec>),
        /// A classification forest fitted elsewhere, read from a table of its nodes (e.g.
        /// the icefi2022 paper's scikit-learn forest; [`crate::fitted_forest`]).
        "fitted_forest" => FittedForest(FittedForestParams),
        /// A learner supplied at run time by a front end under a name (a Python
        /// estimator; [`crate::external`]).
        "external" => External(ExternalParams),
        /// The true predictive distribution of the experiment's DGP, a perfect model
        /// beside the fitted ones ([`crate::oracle`]).
        "oracle" => Oracle(#[serde(default)] OracleParams),
    }
}

impl LearnerSpec {
    /// Hands every `external` learner (nested ones too) its learner from `supplied`,
    /// by name; a name not there stays unsupplied (validation then names it).
    pub fn supply(&mut self, supplied: &BTreeMap<String, Supplied>) {
        match self {
            LearnerSpec::External(p) => {
                if let Some(s) = supplied.get(&p.name) {
                    p.supplied = Some(s.clone());
                }
            }
            LearnerSpec::Uncertainty(p) => {
                p.base.supply(supplied);
                p.model.supply(supplied);
            }
            _ => {}
        }
    }

    /// Hands every `oracle` (nested ones too) the truth of the experiment's DGP.
    pub fn supply_truth(&mut self, truth: &std::sync::Arc<dyn Truth>) {
        match self {
            LearnerSpec::Oracle(p) => p.truth = Some(truth.clone()),
            LearnerSpec::Uncertainty(p) => {
                p.base.supply_truth(truth);
                p.model.supply_truth(truth);
            }
            _ => {}
        }
    }

    /// The files the learner reads (a fitted forest's node table), mutable so that a
    /// runner can resolve relative paths against its data directories; nested
    /// learners' too.
    pub fn data_files_mut(&mut self) -> Vec<&mut std::path::PathBuf> {
        match self {
            LearnerSpec::FittedForest(p) => vec![&mut p.file],
            LearnerSpec::Uncertainty(p) => {
                let mut files = p.base.data_files_mut();
                files.extend(p.model.data_files_mut());
                files
            }
            _ => Vec::new(),
        }
    }
}

/// A learner named in YAML is the learner its line names: every method delegates
/// (so an `uncertainty` stage can be any learner).
impl LearnerKind for LearnerSpec {
    fn describe(&self) -> &'static str {
        self.learner().describe()
    }

    fn validate(&self) -> Result<(), ParamError> {
        self.learner().validate()
    }

    fn capabilities(&self) -> Capabilities {
        self.learner().capabilities()
    }

    fn fit_memory_bytes(&self, n: u128, d: u128) -> u128 {
        self.learner().fit_memory_bytes(n, d)
    }

    fn predict_memory_bytes(&self, n: u128, m: u128, d: u128) -> u128 {
        self.learner().predict_memory_bytes(n, m, d)
    }

    fn build(&self) -> Box<dyn Learner> {
        self.learner().build()
    }
}

// The tests fit every learner, the networks too.
#[cfg(all(test, feature = "nn"))]
mod tests {
    use super::*;

    /// Each learner's ranges are declared on its settings' fields and refused where a
    /// node is read, naming the setting's path; a relation the schema cannot declare
    /// (a logistic booster's base score) is the learner's `validate`, passed through.
    #[test]
    fn a_setting_outside_its_declared_range_is_refused_by_name() {
        use serde_json::json;
        use xai_core::settings::check_ranges;
        let refused = |node: serde_json::Value| match check_ranges::<LearnerSpec>(&node) {
            Err(e) => e.path,
            Ok(()) => format!("{node} passed"),
        };
        for (node, path) in [
            (
                json!({"extra_trees": {"min_samples_leaf": 0}}),
                "extra_trees.min_samples_leaf",
            ),
            (
                json!({"random_forest": {"min_samples_split": 1}}),
                "random_forest.min_samples_split",
            ),
            (json!({"random_forest": {"mtry": 0}}), "random_forest.mtry"),
            (
                json!({"gaussian_process": {"max_iter": 0}}),
                "gaussian_process.max_iter",
            ),
            (json!({"rpart": {"maxdepth": 31}}), "rpart.maxdepth"),
            (json!({"rpart": {"cp": -0.1}}), "rpart.cp"),
            (
                json!({"r_random_forest": {"nodesize": 0}}),
                "r_random_forest.nodesize",
            ),
            (json!({"kriging": {"pop_size": 0}}), "kriging.pop_size"),
            (
                json!({"logistic_regression": {"c": 0.0}}),
                "logistic_regression.c",
            ),
            (json!({"xgboost": {"eta": 0.0}}), "xgboost.eta"),
            (
                json!({"calibrated_forest": {"forest": {"n_trees": 0}}}),
                "calibrated_forest.forest.n_trees",
            ),
            (json!({"mlp": {"hidden": []}}), "mlp.hidden (its length)"),
            (json!({"mlp": {"hidden": [4, 0]}}), "mlp.hidden[1]"),
            (
                json!({"cnn": {"dropout": [0.1, 0.2, 1.0, 0.3]}}),
                "cnn.dropout[2]",
            ),
            (
                json!({"uncertainty": {"base": {"xgboost": {"rounds": 0}}, "model": "lm", "base_share": 0.5}}),
                "uncertainty.base.xgboost.rounds",
            ),
        ] {
            assert_eq!(refused(node), path);
        }
        for node in [
            json!({"random_forest": {"mtry": "sqrt", "min_samples_split": 2}}),
            json!({"rpart": {"maxdepth": 30, "cp": 0.0}}),
            json!({"xgboost": {"eta": 1.0}}),
            json!({"cnn": {"dropout": [0.0, 0.5, 0.5, 0.5]}}),
        ] {
            assert_eq!(check_ranges::<LearnerSpec>(&node), Ok(()), "{node}");
        }
        // A learner built in Rust checks itself against the same declaration.
        let spec = LearnerSpec::ExtraTrees(ExtraTreesParams(ForestParams {
            min_samples_leaf: 0,
            ..Default::default()
        }));
        let e = spec.validate().unwrap_err();
        assert_eq!(
            e.to_string(),
            "`min_samples_leaf` = 0 is invalid: must be ≥ 1"
        );
        let spec = LearnerSpec::CalibratedForest(CalibratedParams {
            forest: ForestParams {
                n_trees: 0,
                ..Default::default()
            },
            ..Default::default()
        });
        assert_eq!(spec.validate().unwrap_err().param(), "forest.n_trees");
        let spec = LearnerSpec::Rpart(RpartParams {
            cp: f64::NAN,
            ..Default::default()
        });
        assert_eq!(spec.validate().unwrap_err().param(), "cp");
        let spec = LearnerSpec::Xgboost(BoostingParams {
            objective: Some(crate::boosting::Objective::Logistic),
            base_score: 1.0,
            ..Default::default()
        });
        assert_eq!(spec.validate().unwrap_err().param(), "base_score");
        for spec in all_defaults() {
            spec.validate().unwrap();
        }
    }

    fn all_defaults() -> [LearnerSpec; 15] {
        [
            LearnerSpec::GaussianProcess(GpParams::default()),
            LearnerSpec::Kriging(KrigingParams::default()),
            LearnerSpec::LogisticRegression(LogisticParams::default()),
            LearnerSpec::RandomForest(ForestParams::default()),
            LearnerSpec::ExtraTrees(ExtraTreesParams::default()),
            LearnerSpec::CalibratedForest(CalibratedParams::default()),
            LearnerSpec::Lm(LmParams::default()),
            LearnerSpec::Rpart(RpartParams::default()),
            LearnerSpec::RRandomForest(RForestParams::default()),
            LearnerSpec::Svr(SvrParams::default()),
            LearnerSpec::Svc(SvcParams::default()),
            LearnerSpec::Xgboost(BoostingParams::default()),
            LearnerSpec::Mlp(MlpParams::default()),
            LearnerSpec::BayesByBackprop(BayesParams::default()),
            LearnerSpec::Cnn(CnnParams::default()),
        ]
    }

    #[test]
    fn every_learner_fits_and_exposes_trees_and_covariances_as_declared() {
        let mut rng = xai_core::rng::stream_rng(2, 0);
        // Distinct rows (kriging has no nugget: a repeated row makes R singular).
        let x = ndarray::Array2::from_shape_fn((60, 2), |(i, j)| {
            ((i * (j + 3)) % 17) as f64 + 0.01 * i as f64
        });
        let y: Vec<f64> = x.rows().into_iter().map(|r| r[0] - 0.5 * r[1]).collect();
        let data = xai_core::Dataset::new(
            x,
            xai_core::Target::Continuous(y.into()),
            vec!["a".into(), "b".into()],
        )
        .unwrap();
        for spec in all_defaults().into_iter().filter(|s| {
            !matches!(
                s,
                LearnerSpec::CalibratedForest(_)
                    | LearnerSpec::LogisticRegression(_)
                    | LearnerSpec::Svc(_)
                    | LearnerSpec::Cnn(_)
            )
        }) {
            let model = spec.build().fit(&data, &mut rng).unwrap();
            offers_as_declared(&spec, model.as_ref(), &data);
            assert!(!spec.describe().is_empty());
        }
        // The classifiers left out above, on a binary target from the same rows (the
        // CNN, which reads images, in nn::tests).
        let labels: Vec<usize> = data
            .x()
            .rows()
            .into_iter()
            .map(|r| usize::from(r[0] > r[1]))
            .collect();
        let binary = data
            .with_target(xai_core::Target::Classes {
                labels: labels.into(),
                n_classes: 2,
            })
            .unwrap();
        for spec in [
            LearnerSpec::LogisticRegression(LogisticParams::default()),
            LearnerSpec::Svc(SvcParams::default()),
            LearnerSpec::Mlp(MlpParams::default()),
            LearnerSpec::BayesByBackprop(BayesParams::default()),
            LearnerSpec::CalibratedForest(CalibratedParams::default()),
            LearnerSpec::RandomForest(ForestParams::default()),
            LearnerSpec::Xgboost(BoostingParams::default()),
            serde_saphyr::from_str(
                "uncertainty: { base: { random_forest: {} }, model: { rpart: {} } }",
            )
            .unwrap(),
            serde_saphyr::from_str("uncertainty: { base: { xgboost: {} }, model: { lm: {} } }")
                .unwrap(),
        ] {
            let model = spec.build().fit(&binary, &mut rng).unwrap();
            offers_as_declared(&spec, model.as_ref(), &binary);
        }
    }

    /// The fitted `model` of `spec` offers exactly what `spec.capabilities()`
    /// declares (slopes: on continuous features).
    fn offers_as_declared(
        spec: &LearnerSpec,
        model: &dyn xai_core::Model,
        data: &xai_core::Dataset,
    ) {
        let caps = spec.capabilities();
        let name = spec.name();
        assert_eq!(model.tree_ensemble().is_some(), caps.trees, "{name}: trees");
        assert_eq!(
            model.coefficients().is_some(),
            caps.has_coefficients(),
            "{name}: slopes"
        );
        assert_eq!(
            model.mean_covariance().is_some(),
            caps.mean_covariance,
            "{name}: covariance"
        );
        assert_eq!(
            model.predict_members(data.x()).unwrap().is_some(),
            caps.members,
            "{name}: members"
        );
        // Member log-odds exist for a binary target only.
        let binary = matches!(data.y(), xai_core::Target::Classes { n_classes: 2, .. });
        assert_eq!(
            model.member_gradients().is_some(),
            caps.gradients && binary,
            "{name}: gradients"
        );
    }

    #[test]
    fn r_learner_memory_is_linear_in_rows() {
        for spec in [
            LearnerSpec::Lm(LmParams::default()),
            LearnerSpec::Rpart(RpartParams::default()),
            LearnerSpec::RRandomForest(RForestParams::default()),
        ] {
            let r = ratio(
                spec.fit_memory_bytes(200_000, 4),
                spec.fit_memory_bytes(100_000, 4),
            );
            assert!(
                (r - 2.0).abs() < 0.01,
                "{}: fit at 2n / fit at n = {r}",
                spec.name()
            );
            let r = ratio(
                spec.predict_memory_bytes(10, 2_000_000, 4),
                spec.predict_memory_bytes(10, 1_000_000, 4),
            );
            assert!(
                (r - 2.0).abs() < 0.01,
                "{}: predict on 2m rows: {r}",
                spec.name()
            );
            // 10¹¹ rows: beyond any machine (lm, the cheapest, needs 12 TB).
            assert!(spec.fit_memory_bytes(100_000_000_000, 4) > 1e13 as u128);
        }
        // lm: 8·(3·10·3 + 2·10 + 4·9) = 1168 bytes for n = 10, d = 2.
        assert_eq!(
            LearnerSpec::Lm(LmParams::default()).fit_memory_bytes(10, 2),
            1168
        );
        // One rpart tree costs far less than a 100-tree forest.
        let tree = LearnerSpec::Rpart(RpartParams::default()).fit_memory_bytes(1000, 4);
        let forest = LearnerSpec::RRandomForest(RForestParams::default()).fit_memory_bytes(1000, 4);
        assert!(tree * 20 < forest, "{tree} vs {forest}");
    }

    /// The default MLP on d = 2: P = 3·100 + 101·2 = 502 parameters, W = 104 units.
    /// Fit on 10 rows (one batch of 10, one member): 8·20 + 4·30 + 16·502 +
    /// 16·10·104 + 4·502 = 26,960 bytes; predict 10 rows: 12·20 + 8·10·104 + 16·10·2 =
    /// 8880.
    /// Bayes by backprop keeps more copies of each parameter than the MLP.
    #[test]
    fn network_memory_by_hand() {
        let mlp = LearnerSpec::Mlp(MlpParams::default());
        assert_eq!(mlp.fit_memory_bytes(10, 2), 26_960);
        assert_eq!(mlp.predict_memory_bytes(10, 10, 2), 8880);
        let r = ratio(
            mlp.fit_memory_bytes(2_000_000, 8),
            mlp.fit_memory_bytes(1_000_000, 8),
        );
        assert!((r - 2.0).abs() < 0.01, "{r}");
        let bbb = LearnerSpec::BayesByBackprop(BayesParams {
            hidden: vec![100],
            samples: 1,
            batch_size: 200,
            ..Default::default()
        });
        assert_eq!(
            bbb.fit_memory_bytes(10, 2) - mlp.fit_memory_bytes(10, 2),
            4 * 6 * 502
        );
    }

    fn ratio(a: u128, b: u128) -> f64 {
        a as f64 / b as f64
    }

    #[test]
    fn gp_memory_grows_with_the_square_of_the_rows() {
        let gp = LearnerSpec::GaussianProcess(GpParams::default());
        // 8·(4·10² + 2·10·2 + 4·10) = 3840.
        assert_eq!(gp.fit_memory_bytes(10, 2), 3840);
        // 8·(3·10 + 3·2 + 4·3) = 384.
        assert_eq!(gp.predict_memory_bytes(10, 3, 2), 384);
        let r = ratio(
            gp.fit_memory_bytes(20_000, 5),
            gp.fit_memory_bytes(10_000, 5),
        );
        assert!((r - 4.0).abs() < 0.01, "fit at 2n / fit at n = {r}");
        let r = ratio(
            gp.predict_memory_bytes(20_000, 1000, 5),
            gp.predict_memory_bytes(10_000, 1000, 5),
        );
        assert!((r - 2.0).abs() < 0.01, "predict with 2n training rows: {r}");
        let r = ratio(
            gp.predict_memory_bytes(10_000, 2000, 5),
            gp.predict_memory_bytes(10_000, 1000, 5),
        );
        assert!((r - 2.0).abs() < 1e-9, "predict on 2m rows: {r}");
        // 10¹¹ rows: 32·10²² bytes to fit, 8·10¹⁴ to predict 1000 rows, far beyond any
        // machine.
        assert!(gp.fit_memory_bytes(100_000_000_000, 5) > 1e15 as u128);
        assert!(gp.predict_memory_bytes(100_000_000_000, 1000, 5) > 1e14 as u128);
        assert_eq!(gp.fit_memory_bytes(u128::MAX, u128::MAX), u128::MAX);
    }

    #[test]
    fn forest_memory_is_linear_in_rows_and_trees() {
        let params = ForestParams::default();
        assert_eq!(params.max_nodes(100), 199);
        let shallow = ForestParams {
            max_depth: Some(3),
            min_samples_leaf: 5,
            ..Default::default()
        };
        assert_eq!(shallow.max_nodes(100), 15);
        assert_eq!(shallow.max_nodes(12), 2 * 3 - 1);
        for spec in [
            LearnerSpec::RandomForest(params.clone()),
            LearnerSpec::ExtraTrees(ExtraTreesParams(params.clone())),
        ] {
            let r = ratio(
                spec.fit_memory_bytes(200_000, 5),
                spec.fit_memory_bytes(100_000, 5),
            );
            assert!((r - 2.0).abs() < 0.01, "fit at 2n / fit at n = {r}");
            let r = ratio(
                spec.predict_memory_bytes(1, 2_000_000, 5),
                spec.predict_memory_bytes(1, 1_000_000, 5),
            );
            assert!((r - 2.0).abs() < 0.01, "predict on 2m rows: {r}");
            assert_eq!(
                spec.predict_memory_bytes(10, 1000, 5),
                spec.predict_memory_bytes(10_000_000, 1000, 5)
            );
            assert!(spec.fit_memory_bytes(100_000_000_000, 5) > 1e15 as u128);
        }
        // The trees dominate: twice the trees, about twice the bytes.
        let more = LearnerSpec::RandomForest(ForestParams {
            n_trees: 200,
            ..Default::default()
        });
        let r = ratio(
            more.fit_memory_bytes(100_000, 5),
            LearnerSpec::RandomForest(params).fit_memory_bytes(100_000, 5),
        );
        assert!(r > 1.95 && r <= 2.0, "200 trees / 100 trees = {r}");
        // A depth cap bounds the trees: beyond that only the working memory grows.
        let capped = LearnerSpec::RandomForest(shallow);
        assert!(capped.fit_memory_bytes(100_000, 5) < more.fit_memory_bytes(100_000, 5) / 10);
    }

    #[test]
    fn calibrated_forest_memory_counts_the_k_fold_forests() {
        let calibrated = |folds| {
            LearnerSpec::CalibratedForest(CalibratedParams {
                folds,
                ..Default::default()
            })
        };
        let forest = LearnerSpec::RandomForest(ForestParams::default());
        let five = calibrated(5);
        let r = ratio(
            five.fit_memory_bytes(200_000, 5),
            five.fit_memory_bytes(100_000, 5),
        );
        assert!((r - 2.0).abs() < 0.01, "fit at 2n / fit at n = {r}");
        // k forests on (k − 1)/k of the rows: about k − 1 = 4 forests' trees.
        let r = ratio(
            five.fit_memory_bytes(100_000, 5),
            forest.fit_memory_bytes(100_000, 5),
        );
        assert!((r - 4.0).abs() < 0.1, "calibrated (k = 5) / forest = {r}");
        let r = ratio(
            calibrated(10).fit_memory_bytes(100_000, 5),
            five.fit_memory_bytes(100_000, 5),
        );
        assert!((r - 9.0 / 4.0).abs() < 0.05, "k = 10 / k = 5: {r}");
        let r = ratio(
            five.predict_memory_bytes(1, 2_000_000, 5),
            five.predict_memory_bytes(1, 1_000_000, 5),
        );
        assert!((r - 2.0).abs() < 0.01, "predict on 2m rows: {r}");
        assert!(five.fit_memory_bytes(100_000_000_000, 5) > 1e15 as u128);
    }
}
