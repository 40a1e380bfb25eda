//! A model and a learner written in Python, behind the engine's [`Model`] and
//! [`Learner`] traits.
//!
//! The pure-Python layer hands over one callable per model that takes a float64
//! design matrix (n × d) and returns the predictions in one of four forms ([`Kind`]);
//! this module checks them (shape, finiteness, probabilities in [0, 1] summing to 1)
//! and names the model and the first bad row when they fail. Every call attaches to
//! the interpreter for its duration only: the engine runs detached, and a method's
//! stacked copies of the rows (`predict_replaced`) reach Python as one call.
//!
//! A Python exception raised by the callable is kept in the call's [`Sink`] and
//! returned to the caller as that exception, traceback included; the engine sees a
//! [`CoreError::Predict`] (or `Fit`) with its text.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use ndarray::{Array1, Array2, ArrayView2};
use numpy::{PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use numpy::{PyReadonlyArray3, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use xai_core::error::Result;
use xai_core::stop::Stop;
use xai_core::{CoreError, Dataset, Learner, Model, Predictions, Target};

/// A row's class probabilities may miss 1 by this much: a float32 softmax (PyTorch)
/// rounds each of its k entries by up to 2⁻²⁴ ≈ 6·10⁻⁸, so with up to 16 classes
/// its sum lands within 10⁻⁶ of 1; a larger gap is not a distribution.
const SUM_TOLERANCE: f64 = 1e-6;

/// What a Python model's callable returns for n rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Point predictions: an array (n,).
    Point,
    /// Class probabilities: an array (n, k), rows in [0, 1] summing to 1.
    Probabilities,
    /// A Gaussian per row: a tuple (mean (n,), variance (n,)), variance > 0.
    Gaussian,
    /// An ensemble's members, whose mean (mixture) is the prediction: an array (M, n)
    /// of point predictions, (M, n, k) of class probabilities, or a tuple of means and
    /// variances (M, n) each.
    Members,
}

impl Kind {
    /// Every kind, in the order of [`Kind::NAMES`].
    const ALL: [Kind; 4] = [
        Kind::Point,
        Kind::Probabilities,
        Kind::Gaussian,
        Kind::Members,
    ];

    /// Every kind's name, as `kind=` takes it (the Python package's list).
    pub const NAMES: [&'static str; 4] = ["point", "probabilities", "gaussian", "members"];

    /// The kind named `name` (one of [`Kind::NAMES`]).
    pub fn parse(name: &str) -> PyResult<Kind> {
        match Self::NAMES.iter().position(|&n| n == name) {
            Some(i) => Ok(Self::ALL[i]),
            None => Err(crate::settings_error(format!(
                "unknown model kind `{name}`: one of {}",
                Self::NAMES.join(", ")
            ))),
        }
    }
}

/// What one call of the package shares with its Python models and learners: the
/// first Python exception they raised, kept to be raised again as itself when the
/// engine returns; the call's stop, requested on Ctrl-C ([`crate::interrupt`]) and
/// checked before each call into Python; and how many fits and predictions they
/// made, for the progress line.
#[derive(Clone, Default)]
pub struct Sink {
    error: Arc<Mutex<Option<PyErr>>>,
    stop: Arc<Stop>,
    /// Fits and prediction calls made so far.
    calls: Arc<[AtomicUsize; 2]>,
}

impl Sink {
    /// The call's stop.
    pub fn stop(&self) -> &Stop {
        &self.stop
    }

    /// (fits, prediction calls) made so far by the call's Python learners and models.
    pub fn calls(&self) -> (usize, usize) {
        let [fits, predictions] = &*self.calls;
        (
            fits.load(Ordering::Relaxed),
            predictions.load(Ordering::Relaxed),
        )
    }

    /// Counts a fit (`0`) or a prediction call (`1`).
    fn count(&self, which: usize) {
        self.calls[which].fetch_add(1, Ordering::Relaxed);
    }

    /// Keeps `e` unless an earlier exception is kept; returns its text for the engine.
    fn keep(&self, py: Python<'_>, e: PyErr) -> String {
        let text = match e.get_type(py).name() {
            Ok(t) => format!("{t}: {}", e.value(py)),
            Err(_) => e.to_string(),
        };
        if let Ok(mut slot) = self.error.lock() {
            slot.get_or_insert(e);
        }
        text
    }

    /// The kept exception, if any.
    pub fn take(&self) -> Option<PyErr> {
        self.error.lock().ok().and_then(|mut slot| slot.take())
    }
}

/// A fitted model in Python: its callable, the form of its predictions and its name.
pub struct ForeignModel {
    call: Py<PyAny>,
    kind: Kind,
    name: String,
    n_classes: Option<usize>,
    sink: Sink,
}

impl ForeignModel {
    /// The model `call` of `kind`, named `name` in errors; `n_classes` the classes its
    /// probabilities must have (when the data has classes).
    pub fn new(
        call: Py<PyAny>,
        kind: Kind,
        name: String,
        n_classes: Option<usize>,
        sink: Sink,
    ) -> Self {
        ForeignModel {
            call,
            kind,
            name,
            n_classes,
            sink,
        }
    }

    /// Calls the model on `x` and reads its answer, checked, as `kind` predictions.
    fn call(&self, x: ArrayView2<'_, f64>) -> Result<Vec<Predictions>> {
        self.sink.stop().check()?;
        self.sink.count(1);
        Python::attach(|py| {
            let rows = PyArray2::from_array(py, &x);
            let out = self.call.call1(py, (rows,)).map_err(|e| {
                CoreError::Predict(format!(
                    "model `{}` raised {}",
                    self.name,
                    self.sink.keep(py, e)
                ))
            })?;
            let read = Reader {
                model: &self.name,
                n: x.nrows(),
                n_classes: self.n_classes,
            };
            read.predictions(out.bind(py), self.kind)
        })
    }
}

impl Model for ForeignModel {
    fn predict(&self, x: ArrayView2<'_, f64>) -> Result<Predictions> {
        let mut batches = self.call(x)?;
        match self.kind {
            Kind::Members => Predictions::mixture(&batches),
            _ => Ok(batches.remove(0)),
        }
    }

    fn predict_members(&self, x: ArrayView2<'_, f64>) -> Result<Option<Vec<Predictions>>> {
        match self.kind {
            Kind::Members => self.call(x).map(Some),
            _ => Ok(None),
        }
    }
}

/// Reads a Python model's answer for `n` rows, naming `model` in every error.
struct Reader<'a> {
    model: &'a str,
    n: usize,
    n_classes: Option<usize>,
}

impl Reader<'_> {
    fn bad(&self, what: String) -> CoreError {
        CoreError::Predict(format!("model `{}`: {what}", self.model))
    }

    /// The predictions of `kind` (one batch; for members, one per member).
    fn predictions(&self, out: &Bound<'_, PyAny>, kind: Kind) -> Result<Vec<Predictions>> {
        match kind {
            Kind::Point => Ok(vec![Predictions::Point(self.vector(out, "predictions")?)]),
            Kind::Probabilities => Ok(vec![self.probabilities(self.matrix(out)?)?]),
            Kind::Gaussian => {
                let (mean, var) = self.pair(out)?;
                Ok(vec![self.gaussian(
                    self.vector(&mean, "means")?,
                    self.vector(&var, "variances")?,
                )?])
            }
            Kind::Members => self.members(out),
        }
    }

    fn members(&self, out: &Bound<'_, PyAny>) -> Result<Vec<Predictions>> {
        if out.is_instance_of::<PyTuple>() {
            let (means, vars) = self.pair(out)?;
            let (means, vars) = (self.stacked(&means)?, self.stacked(&vars)?);
            if means.dim() != vars.dim() {
                return Err(self.bad(format!(
                    "members' means are {:?} but their variances {:?}",
                    means.dim(),
                    vars.dim()
                )));
            }
            return means
                .rows()
                .into_iter()
                .zip(vars.rows())
                .map(|(m, v)| self.gaussian(m.to_owned(), v.to_owned()))
                .collect();
        }
        if let Ok(a) = out.extract::<PyReadonlyArray3<'_, f64>>() {
            let a = a.as_array();
            if a.dim().1 != self.n {
                return Err(self.bad(format!(
                    "members' probabilities are {:?}, expected (M, {}, k)",
                    a.dim(),
                    self.n
                )));
            }
            return a
                .outer_iter()
                .map(|m| self.probabilities(m.to_owned()))
                .collect();
        }
        let points = self.stacked(out)?;
        points
            .rows()
            .into_iter()
            .map(|m| {
                self.finite(m.to_owned(), "member predictions")
                    .map(Predictions::Point)
            })
            .collect()
    }

    /// A tuple of two.
    fn pair<'py>(&self, out: &Bound<'py, PyAny>) -> Result<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        out.extract::<(Bound<'py, PyAny>, Bound<'py, PyAny>)>()
            .map_err(|_| {
                self.bad(format!(
                    "returned {}, expected a tuple (mean, variance)",
                    describe(out)
                ))
            })
    }

    /// A float64 array (n,), finite.
    fn vector(&self, out: &Bound<'_, PyAny>, what: &str) -> Result<Array1<f64>> {
        let a = out.extract::<PyReadonlyArray1<'_, f64>>().map_err(|_| {
            self.bad(format!(
                "{what}: returned {}, expected a float64 array of shape ({},)",
                describe(out),
                self.n
            ))
        })?;
        if a.len() != self.n {
            return Err(self.bad(format!("{what}: {} values for {} rows", a.len(), self.n)));
        }
        self.finite(a.as_array().to_owned(), what)
    }

    /// A float64 array (M, n): a row per member.
    fn stacked(&self, out: &Bound<'_, PyAny>) -> Result<Array2<f64>> {
        let a = out.extract::<PyReadonlyArray2<'_, f64>>().map_err(|_| {
            self.bad(format!(
                "returned {}, expected members as a float64 array (M, {})",
                describe(out),
                self.n
            ))
        })?;
        if a.shape()[1] != self.n || a.shape()[0] == 0 {
            return Err(self.bad(format!(
                "members are {:?}, expected (M, {}) with M ≥ 1",
                a.shape(),
                self.n
            )));
        }
        Ok(a.as_array().to_owned())
    }

    /// A float64 array (n, k).
    fn matrix(&self, out: &Bound<'_, PyAny>) -> Result<Array2<f64>> {
        let a = out.extract::<PyReadonlyArray2<'_, f64>>().map_err(|_| {
            self.bad(format!(
                "returned {}, expected class probabilities as a float64 array ({}, k)",
                describe(out),
                self.n
            ))
        })?;
        if a.shape()[0] != self.n {
            return Err(self.bad(format!(
                "probabilities for {} rows, expected {}",
                a.shape()[0],
                self.n
            )));
        }
        Ok(a.as_array().to_owned())
    }

    fn finite(&self, v: Array1<f64>, what: &str) -> Result<Array1<f64>> {
        match v.iter().position(|x| !x.is_finite()) {
            Some(row) => Err(self.bad(format!("{what} at row {row} is {} (not finite)", v[row]))),
            None => Ok(v),
        }
    }

    /// Probabilities (n × k): k classes as the data has, each entry in [0, 1], each
    /// row summing to 1 within [`SUM_TOLERANCE`].
    fn probabilities(&self, p: Array2<f64>) -> Result<Predictions> {
        if let Some(k) = self.n_classes
            && p.ncols() != k
        {
            return Err(self.bad(format!(
                "{} probability columns, but the data has {k} classes (a refit on rows missing a class? \
                 the columns must follow the classes' codes 0..k)",
                p.ncols()
            )));
        }
        for (row, r) in p.rows().into_iter().enumerate() {
            if let Some(v) = r.iter().find(|v| !(0.0..=1.0).contains(*v)) {
                return Err(self.bad(format!("probability {v} at row {row} is outside [0, 1]")));
            }
            let sum = r.sum();
            if (sum - 1.0).abs() > SUM_TOLERANCE {
                return Err(self.bad(format!("probabilities at row {row} sum to {sum}, not 1")));
            }
        }
        Ok(Predictions::Probabilities(p))
    }

    fn gaussian(&self, mean: Array1<f64>, var: Array1<f64>) -> Result<Predictions> {
        let mean = self.finite(mean, "means")?;
        let var = self.finite(var, "variances")?;
        if let Some(row) = var.iter().position(|&v| v <= 0.0) {
            return Err(self.bad(format!(
                "variance {} at row {row} is not positive",
                var[row]
            )));
        }
        Ok(Predictions::Gaussian { mean, var })
    }
}

/// "an int", "a float64 array of shape (3, 2)": what a callable returned.
fn describe(out: &Bound<'_, PyAny>) -> String {
    if let Ok(a) = out.cast::<numpy::PyUntypedArray>() {
        return format!("a {} array of shape {:?}", a.dtype(), a.shape());
    }
    match out.get_type().name() {
        Ok(t) => format!("a {t}"),
        Err(_) => "an object".into(),
    }
}

/// A learner in Python: a callable `fit(X, y, seed, n_classes)` returning the fitted
/// model's callable (the pure-Python layer clones a scikit-learn estimator and passes
/// `seed` as its `random_state`); `y` holds class codes 0..n_classes when the data
/// has classes (`n_classes` is then a number, else `None`).
pub struct ForeignLearner {
    fit: Py<PyAny>,
    kind: Kind,
    name: String,
    sink: Sink,
}

impl ForeignLearner {
    /// The learner `fit`, whose models are of `kind`, named `name` in errors.
    pub fn new(fit: Py<PyAny>, kind: Kind, name: String, sink: Sink) -> Self {
        ForeignLearner {
            fit,
            kind,
            name,
            sink,
        }
    }
}

impl Learner for ForeignLearner {
    /// Draws the refit's seed, one u32, from `rng` (the replicate's stream), so the same
    /// seed gives the same refits.
    fn fit(&self, data: &Dataset, rng: &mut dyn rand::Rng) -> Result<Box<dyn Model>> {
        let seed = rng.next_u32();
        self.sink.stop().check()?;
        self.sink.count(0);
        let n_classes = match data.y() {
            Target::Classes { n_classes, .. } => Some(*n_classes),
            Target::Continuous(_) => None,
        };
        let call = Python::attach(|py| -> Result<Py<PyAny>> {
            let x = PyArray2::from_array(py, &data.x());
            let y = match data.y() {
                Target::Continuous(v) => PyArray1::from_array(py, v).into_any(),
                Target::Classes { labels, .. } => {
                    PyArray1::from_iter(py, labels.iter().map(|&c| c as i64)).into_any()
                }
            };
            self.fit.call1(py, (x, y, seed, n_classes)).map_err(|e| {
                CoreError::Fit(format!(
                    "learner `{}` raised {}",
                    self.name,
                    self.sink.keep(py, e)
                ))
            })
        })?;
        Ok(Box::new(ForeignModel::new(
            call,
            self.kind,
            self.name.clone(),
            n_classes,
            self.sink.clone(),
        )))
    }
}
