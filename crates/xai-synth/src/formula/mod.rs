//! A DGP written in the experiment's YAML: a structural equation model whose features
//! are distributions or expressions of the features above them, and whose target is an
//! expression plus one draw (or a Bernoulli/categorical draw, for classification).
//!
//! ```yaml
//! dgp:
//!   formula:
//!     features:                     # a sequence: the order is the definitions'
//!       - X1: uniform(0, 1)
//!       - X2: 0.5 * X1 + normal(0, 0.1)
//!       - X3, X4: mvnormal([0, 0], [[1, 0.8], [0.8, 1]])
//!       - S: X3 + normal(0, 1)        # hidden below: not a column of the data
//!     hidden: [S]
//!     target: X1 - sqrt(1 + X2) + normal(0, abs(S) / 2)
//! ```
//!
//! **Features** (ordered as written) are numbers, names defined above, `pi`, `+ - * / ^`
//! (right-associative, `-x^2 = -(x^2)`), comparisons `< <= > >=` (1 or 0), the functions
//! sqrt, exp, log, sin, cos, tan, tanh, abs, logistic (1/(1 + e^−x)), min, max, and
//! the distributions uniform(min, max), normal(mean, sd), lognormal(meanlog, sdlog),
//! bernoulli(p), categorical(p0, p1, …) (the class c with probability p_c/Σp), whose
//! parameters may be expressions; a group `A, B: mvnormal([m_A, m_B], [[…], […]])`
//! draws a Gaussian vector with the covariance written there. `hidden` names variables
//! that are not columns (a latent, e.g. watson2023's Y behind Z's noise); a feature
//! cannot read one.
//!
//! **Draws** of a row happen in the order the distributions are written, features
//! first and the target's last, each one primitive draw (`rng.random::<f64>()` for
//! uniform, bernoulli and categorical, a standard normal for normal, lognormal and
//! each mvnormal coordinate): uniform(a, b) = a + (b − a)·u, normal(m, s) = m + s·z,
//! lognormal = exp(m + s·z), bernoulli(p) = [u < p], mvnormal = m + L·z with Σ = LLᵀ.
//! So a formula written in the order a Rust DGP draws gives its bytes (molnar2023's
//! DGPs, wood2024's correlated Gaussian: `experiments/examples/`).
//!
//! **Truths.** The target is `mean + D` (or `mean − D`) with at most one draw D, whose
//! parameters may depend on the variables: E[Y | X] = mean ± E[D] and
//! Var(Y | X) = Var D, from D's mean and variance as expressions
//! (e.g. Var normal(m, s) = s²); a `bernoulli(p)` target is the class 1 with
//! E[Y | X] = p. Where these read a hidden variable that draws, they are averaged over
//! 4,096 draws of the hidden variables given X (law of total variance: E[Var] + Var[E]),
//! with a fixed seed. PD is by Monte Carlo over joint draws, as for any DGP without a
//! closed form.
//!
//! **Errors** name the YAML line and column and what to write instead
//! ([`compile::FormulaError`]).
//!
//! The engine is written here: measured on 10⁶ rows of molnar's non-linear mean, a
//! hand-written bytecode run a block of 1,024 rows at a time took 16–18 ms (bit-equal
//! to Rust), a per-row stack machine 49 ms, the crates exmex 85–97 ms and fasteval
//! 124–142 ms (the Rust DGP draws its 10⁶ rows in about 23 ms).

pub mod compile;
pub mod dist;
pub mod eval;
pub mod parse;

use std::sync::Arc;

use ndarray::{Array1, Array2, ArrayView2};
use rand::{Rng, RngExt};
use rand_distr::StandardNormal;
use serde::Deserialize;
use serde::de::{MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;
use xai_core::rng::stream_rng;
use xai_core::{Dataset, MarginalSampler, Marginals, Target};

use crate::{Dgp, DgpError};
use compile::{FormulaError, Model, Place};
use dist::Primitive;
use eval::{BLOCK, Code};
use parse::Located;

/// Draws of the hidden variables per row for truths by Monte Carlo.
const TRUTH_DRAWS: usize = 4 * BLOCK;
/// The seed of those draws (row i uses stream i).
const TRUTH_SEED: u64 = 0x7275_7468;

/// The YAML of a formula DGP: its equations in order, the hidden names and the target.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FormulaSource {
    /// `- name: formula` (or `- A, B: mvnormal(...)`), in order: a sequence, because
    /// an experiment's variants are rebuilt from a tree whose mappings sort their keys.
    #[schemars(with = "Vec<std::collections::BTreeMap<String, String>>")]
    pub features: Equations,
    /// Variables that are not columns of the data.
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub hidden: Vec<Spanned<String>>,
    /// The target: `mean + draw`, or `bernoulli(p)` / `categorical(...)`.
    #[schemars(with = "String")]
    pub target: Spanned<String>,
}

/// A YAML sequence of one-entry mappings `name: formula`, each with its location.
#[derive(Debug, Clone)]
pub struct Equations(pub Vec<(Spanned<String>, Spanned<String>)>);

/// One `name: formula` entry of [`Equations`].
struct Equation((Spanned<String>, Spanned<String>));

impl<'de> Deserialize<'de> for Equation {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct One;
        impl<'de> Visitor<'de> for One {
            type Value = Equation;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("one `name: formula`, e.g. `- X1: uniform(0, 1)`")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Equation, A::Error> {
                let Some(entry) = map.next_entry()? else {
                    return Err(serde::de::Error::custom(
                        "an entry of `features` is empty; write `- X1: uniform(0, 1)`",
                    ));
                };
                if map.next_key::<serde::de::IgnoredAny>()?.is_some() {
                    return Err(serde::de::Error::custom(
                        "each entry of `features` defines one variable: start each with `- `, e.g. `- X1: uniform(0, 1)` then `- X2: ...`",
                    ));
                }
                Ok(Equation(entry))
            }
        }
        d.deserialize_map(One)
    }
}

impl<'de> Deserialize<'de> for Equations {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Ordered;
        impl<'de> Visitor<'de> for Ordered {
            type Value = Equations;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(
                    "a sequence of `name: formula` entries in order, e.g. `- X1: uniform(0, 1)`",
                )
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Equations, A::Error> {
                let mut out = Vec::new();
                while let Some(Equation(entry)) = seq.next_element()? {
                    out.push(entry);
                }
                Ok(Equations(out))
            }
            fn visit_map<A: MapAccess<'de>>(self, _map: A) -> Result<Equations, A::Error> {
                Err(serde::de::Error::custom(
                    "`features` is a sequence, to keep its order: start each entry with `- `, e.g. `- X1: uniform(0, 1)`",
                ))
            }
        }
        d.deserialize_any(Ordered)
    }
}

/// A DGP written as formulas ([`crate::formula`]), compiled when it is read; a formula
/// that does not compile is reported by [`Dgp::validate`], which an experiment calls
/// at load.
#[derive(Debug, Clone, Deserialize)]
#[serde(from = "FormulaSource")]
pub struct Formula {
    source: FormulaSource,
    model: Result<Arc<Model>, DgpError>,
}

impl schemars::JsonSchema for Formula {
    /// Written as its source.
    fn schema_name() -> std::borrow::Cow<'static, str> {
        FormulaSource::schema_name()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        FormulaSource::json_schema(generator)
    }
}

impl PartialEq for Formula {
    /// Equal when written the same (wherever in a file).
    fn eq(&self, other: &Self) -> bool {
        let text = |s: &FormulaSource| {
            let eq: Vec<(&str, &str)> = s
                .features
                .0
                .iter()
                .map(|(k, v)| (k.value.as_str(), v.value.as_str()))
                .collect();
            let hidden: Vec<&str> = s.hidden.iter().map(|h| h.value.as_str()).collect();
            format!("{eq:?}{hidden:?}{}", s.target.value)
        };
        text(&self.source) == text(&other.source)
    }
}

impl From<FormulaSource> for Formula {
    fn from(source: FormulaSource) -> Self {
        let eqs: Vec<(&str, &str)> = source
            .features
            .0
            .iter()
            .map(|(k, v)| (k.value.as_str(), v.value.as_str()))
            .collect();
        let hidden: Vec<&str> = source.hidden.iter().map(|h| h.value.as_str()).collect();
        let model = compile::compile(&eqs, &hidden, &source.target.value)
            .map(Arc::new)
            .map_err(|e| located(&source, &e));
        Formula { source, model }
    }
}

/// The error `e` as a [`DgpError::Formula`], at the YAML line and column of its string
/// where the parser recorded them: read from the file's text (an experiment's DGP as
/// written). A variant of an experiment is rebuilt from a tree and has none; the
/// experiment then finds the formula in its file ([`DgpError::locate_formula_in`]).
fn located(source: &FormulaSource, e: &FormulaError) -> DgpError {
    let s = match e.place {
        Place::Key(i) => &source.features.0[i].0,
        Place::Value(i) => &source.features.0[i].1,
        Place::Hidden(i) => &source.hidden[i],
        Place::Target => &source.target,
    };
    let text = &s.value;
    let span = e.at.span.start.min(text.len())..e.at.span.end.min(text.len());
    let loc = s.referenced;
    let written = loc.span().len() as usize;
    let chars = text.chars().count();
    // The first character of a plain scalar, or the one after a quote; unknown for a
    // block scalar or one with escapes, whose characters are not the file's.
    let at = match (loc.line(), text.contains('\n')) {
        (0, _) | (_, true) => None,
        (line, false) if written == chars => Some((line as usize, loc.column() as usize)),
        (line, false) if written == chars + 2 => Some((line as usize, loc.column() as usize + 1)),
        _ => None,
    };
    DgpError::Formula {
        at,
        formula: text.clone(),
        column: text[..span.start].chars().count(),
        width: text[span].chars().count().max(1),
        message: e.at.message.clone(),
    }
}

impl Formula {
    /// The compiled formulas; [`Dgp::validate`] reports a formula that did not compile.
    fn model(&self) -> &Model {
        match &self.model {
            Ok(m) => m,
            Err(e) => panic!("the formula DGP was used without validating it: {e}"),
        }
    }

    fn names(&self) -> Vec<String> {
        self.model().columns().map(|v| v.name.clone()).collect()
    }

    /// The equation (entry of `features`) that defines variable `var`: a group
    /// `A, B: mvnormal(...)` defines one variable per name, in order.
    fn equation_of(&self, var: usize) -> usize {
        let mut defined = 0;
        for (i, (names, _)) in self.source.features.0.iter().enumerate() {
            defined += names.value.split(',').count();
            if var < defined {
                return i;
            }
        }
        self.source.features.0.len().saturating_sub(1)
    }

    /// A located [`DgpError::Formula`] when `values`, variable `var`'s column of a
    /// block (`None`: the target's) whose first row is row `first` of the sample, holds
    /// a value that is not finite: the formula that drew it at its YAML place, the
    /// value, and the first such row's values of every variable defined above it.
    fn refuse_non_finite(
        &self,
        b: &Block,
        var: Option<usize>,
        values: &[f64],
        first: usize,
    ) -> Result<(), DgpError> {
        let Some(r) = values.iter().position(|v| !v.is_finite()) else {
            return Ok(());
        };
        let m = self.model();
        let above = var.unwrap_or(m.vars.len());
        let inputs: Vec<String> = (0..above)
            .map(|u| format!("{} = {}", m.vars[u].name, b.vars[u][r]))
            .collect();
        let (name, place) = match var {
            Some(v) => (
                format!("`{}`", m.vars[v].name),
                Place::Value(self.equation_of(v)),
            ),
            None => ("the target".to_string(), Place::Target),
        };
        let formula = match place {
            Place::Value(i) => &self.source.features.0[i].1.value,
            _ => &self.source.target.value,
        };
        let given = match inputs.is_empty() {
            true => String::new(),
            false => format!(" where {}", inputs.join(", ")),
        };
        let e = FormulaError {
            place,
            at: Located::new(
                0..formula.len(),
                format!(
                    "{name} drew {} in row {} of a sample{given}; make its formula finite \
                     wherever the variables above it can be (log of a positive, sqrt of a \
                     non-negative expression)",
                    values[r],
                    first + r + 1,
                ),
            ),
        };
        Err(located(&self.source, &e))
    }
}

/// Column buffers of one block: the variables', the primitive draws' and scratch.
struct Block {
    vars: Vec<Vec<f64>>,
    draws: Vec<Vec<f64>>,
    stack: Vec<Vec<f64>>,
}

impl Block {
    /// Buffers for blocks of up to `rows` rows (at most [`BLOCK`]).
    fn new(m: &Model, rows: usize) -> Block {
        let rows = rows.min(BLOCK);
        Block {
            vars: vec![vec![0.0; rows]; m.vars.len()],
            draws: vec![vec![0.0; rows]; m.slots.len()],
            stack: Vec::new(),
        }
    }

    /// The primitive draws `slots` of `n` rows, row by row.
    fn draw(&mut self, m: &Model, slots: &[usize], n: usize, rng: &mut dyn Rng) {
        for r in 0..n {
            for &s in slots {
                self.draws[s][r] = match m.slots[s] {
                    Primitive::Uniform => rng.random::<f64>(),
                    Primitive::Normal => rng.sample(StandardNormal),
                };
            }
        }
    }

    /// Runs `code` on the first n rows into `out`.
    fn run(&mut self, code: &Code, n: usize, out: &mut [f64]) {
        code.run(&self.vars, &self.draws, n, &mut self.stack, out);
    }

    /// Computes variable v's column.
    fn compute(&mut self, m: &Model, v: usize, n: usize) {
        let mut col = std::mem::take(&mut self.vars[v]);
        self.run(&m.vars[v].code, n, &mut col);
        self.vars[v] = col;
    }
}

impl Dgp for Formula {
    fn feature_names(&self) -> Vec<String> {
        self.names()
    }

    /// The formulas compiled: else the first error, located in the YAML.
    fn validate(&self) -> Result<(), DgpError> {
        match &self.model {
            Ok(_) => Ok(()),
            Err(e) => Err(e.clone()),
        }
    }

    /// Blocks of 1,024 rows: each row's primitive draws in order, then every
    /// variable's and the target's code over the block.
    fn sample(&self, n: usize, rng: &mut dyn Rng) -> Result<Dataset, DgpError> {
        let m = self.model();
        let cols: Vec<usize> = (0..m.vars.len()).filter(|&v| !m.vars[v].hidden).collect();
        let all: Vec<usize> = (0..m.slots.len()).collect();
        let mut x = Array2::zeros((n, cols.len()));
        let mut y = vec![0.0; n];
        let mut b = Block::new(m, n);
        for start in (0..n).step_by(BLOCK) {
            let len = BLOCK.min(n - start);
            b.draw(m, &all, len, rng);
            for v in 0..m.vars.len() {
                b.compute(m, v, len);
            }
            let ys = &mut y[start..start + len];
            b.run(&m.target, len, ys);
            for &v in &cols {
                self.refuse_non_finite(&b, Some(v), &b.vars[v][..len], start)?;
            }
            self.refuse_non_finite(&b, None, ys, start)?;
            for (r, mut row) in x
                .slice_mut(ndarray::s![start..start + len, ..])
                .rows_mut()
                .into_iter()
                .enumerate()
            {
                for (x, &v) in row.iter_mut().zip(&cols) {
                    *x = b.vars[v][r];
                }
            }
        }
        let names = self.names();
        let y = Array1::from(y);
        let target = match m.classes {
            Some(k) => Target::Classes {
                labels: y.iter().map(|&v| v as usize).collect(),
                n_classes: k,
            },
            None => Target::Continuous(y),
        };
        Dataset::new(x, target, names).map_err(DgpError::rows)
    }

    fn conditional_mean(&self, x: ArrayView2<'_, f64>) -> Array1<f64> {
        self.truths(x).0
    }

    fn conditional_variance(&self, x: ArrayView2<'_, f64>) -> Array1<f64> {
        self.truths(x).1
    }

    /// A feature drawn by one distribution of constant parameters is drawn from it;
    /// any other, as column j of a joint row.
    fn marginals(&self) -> Option<Marginals> {
        Some(Marginals(Arc::new(FormulaMarginals(self.clone()))))
    }
}

impl Formula {
    /// (E[Y | X], Var(Y | X)) for each row of `x` (see [`crate::formula`], Truths).
    fn truths(&self, x: ArrayView2<'_, f64>) -> (Array1<f64>, Array1<f64>) {
        let m = self.model();
        let cols: Vec<usize> = (0..m.vars.len()).filter(|&v| !m.vars[v].hidden).collect();
        let hidden: Vec<usize> = (0..m.vars.len()).filter(|&v| m.vars[v].hidden).collect();
        let rows = if m.by_monte_carlo { BLOCK } else { x.nrows() };
        let mut b = Block::new(m, rows);
        let (mut mean, mut var) = (vec![0.0; x.nrows()], vec![0.0; x.nrows()]);
        if !m.by_monte_carlo {
            for start in (0..x.nrows()).step_by(BLOCK) {
                let len = BLOCK.min(x.nrows() - start);
                for (j, &v) in cols.iter().enumerate() {
                    for r in 0..len {
                        b.vars[v][r] = x[[start + r, j]];
                    }
                }
                for &v in &hidden {
                    b.compute(m, v, len);
                }
                b.run(&m.mean, len, &mut mean[start..start + len]);
                b.run(&m.variance, len, &mut var[start..start + len]);
            }
            return (Array1::from(mean), Array1::from(var));
        }
        // A group's members share their slots: each slot once.
        let mut slots: Vec<usize> = hidden
            .iter()
            .flat_map(|&v| m.vars[v].slots.clone())
            .collect();
        slots.dedup();
        let (mut mu, mut s2) = (vec![0.0; BLOCK], vec![0.0; BLOCK]);
        for i in 0..x.nrows() {
            let mut rng = stream_rng(TRUTH_SEED, i as u64);
            for (j, &v) in cols.iter().enumerate() {
                b.vars[v].fill(x[[i, j]]);
            }
            let (mut sum, mut sum2, mut within) = (0.0, 0.0, 0.0);
            for _ in 0..TRUTH_DRAWS / BLOCK {
                b.draw(m, &slots, BLOCK, &mut rng);
                for &v in &hidden {
                    b.compute(m, v, BLOCK);
                }
                b.run(&m.mean, BLOCK, &mut mu);
                b.run(&m.variance, BLOCK, &mut s2);
                sum += mu.iter().sum::<f64>();
                sum2 += mu.iter().map(|v| v * v).sum::<f64>();
                within += s2.iter().sum::<f64>();
            }
            let k = TRUTH_DRAWS as f64;
            mean[i] = sum / k;
            var[i] = within / k + (sum2 / k - mean[i] * mean[i]).max(0.0);
        }
        (Array1::from(mean), Array1::from(var))
    }
}

/// The marginal of each feature of a formula DGP.
struct FormulaMarginals(Formula);

impl MarginalSampler for FormulaMarginals {
    fn draw(&self, feature: usize, rng: &mut dyn Rng) -> f64 {
        let var = self
            .0
            .model()
            .columns()
            .nth(feature)
            .expect("a feature of the DGP");
        match &var.direct {
            Some((dist, params)) => {
                let w = match dist.primitive() {
                    Primitive::Uniform => rng.random::<f64>(),
                    Primitive::Normal => rng.sample(StandardNormal),
                };
                dist.value(params, w)
            }
            // A draw that fails is NaN, which the statistic of the perturbed rows
            // refuses; the replicate's own sample reports the formula's error first.
            None => self
                .0
                .sample(1, rng)
                .map_or(f64::NAN, |d| d.x()[[0, feature]]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DgpSpec;
    use crate::correlated_gaussian::CorrelatedGaussian;
    use crate::molnar::{MolnarLinear, MolnarNonlinear, NonlinearVariant};
    use ndarray::array;

    /// The formula DGP of `yaml` (the body of `formula:`), validated.
    fn formula(yaml: &str) -> Formula {
        let f = unvalidated(yaml);
        f.validate().unwrap();
        f
    }

    fn unvalidated(yaml: &str) -> Formula {
        let text = format!("formula:\n{yaml}");
        match serde_saphyr::from_str::<DgpSpec>(&text).unwrap() {
            DgpSpec::Formula(f) => f,
            _ => unreachable!(),
        }
    }

    fn continuous(d: &Dataset) -> &Array1<f64> {
        match d.y() {
            Target::Continuous(y) => y,
            Target::Classes { .. } => panic!("a regression target"),
        }
    }

    /// Same rows, targets, truths and marginal draws, to the bit.
    fn same_bytes(rust: &dyn Dgp, yaml: &Formula) {
        let (a, b) = (
            rust.sample(3000, &mut stream_rng(5, 1)).unwrap(),
            yaml.sample(3000, &mut stream_rng(5, 1)).unwrap(),
        );
        assert_eq!(rust.feature_names(), yaml.feature_names());
        assert_eq!(a.x(), b.x());
        assert_eq!(continuous(&a), continuous(&b));
        assert_eq!(rust.conditional_mean(a.x()), yaml.conditional_mean(a.x()));
        if let Some(m) = rust.marginals() {
            let n = yaml.marginals().unwrap();
            for j in 0..a.x().ncols() {
                let (mut r1, mut r2) = (stream_rng(6, j as u64), stream_rng(6, j as u64));
                for _ in 0..100 {
                    assert_eq!(m.0.draw(j, &mut r1), n.0.draw(j, &mut r2));
                }
            }
        }
    }

    const UNIFORM4: &str = "  features:\n    - X1: uniform(0, 1)\n    - X2: uniform(0, 1)\n    - X3: uniform(0, 1)\n    - X4: uniform(0, 1)\n";

    /// molnar2023's DGPs written as formulas draw the Rust DGPs' bytes: features row by
    /// row, then the noise, the same operations in the same order.
    #[test]
    fn molnar_s_dgps_as_formulas_give_the_rust_bytes() {
        let linear = formula(
            "  features:\n    - X1: uniform(0, 1)\n    - X2: uniform(0, 1)\n  target: X1 - X2 + normal(0, 1)\n",
        );
        same_bytes(&MolnarLinear { noise_sd: 1.0 }, &linear);
        let nonlinear = formula(&format!(
            "{UNIFORM4}  target: X1 - sqrt(1 + X2) + X3 * X4 + (X4 / 10)^2 + normal(0, 1)\n"
        ));
        let code = MolnarNonlinear {
            noise_sd: 1.0,
            variant: NonlinearVariant::Code,
        };
        same_bytes(&code, &nonlinear);
        assert_eq!(
            code.conditional_variance(array![[0.1, 0.2, 0.3, 0.4]].view()),
            nonlinear.conditional_variance(array![[0.1, 0.2, 0.3, 0.4]].view())
        );
        // The paper's printed √(1 − x2) is another DGP: its rows differ.
        let paper = formula(&format!(
            "{UNIFORM4}  target: X1 - sqrt(1 - X2) + X3 * X4 + (X4 / 10)^2 + normal(0, 1)\n"
        ));
        let d = paper.sample(10, &mut stream_rng(5, 1)).unwrap();
        assert_ne!(
            continuous(&d),
            continuous(&code.sample(10, &mut stream_rng(5, 1)).unwrap())
        );
    }

    /// wood2024's correlated Gaussian as two mvnormal pairs: the Cholesky factor of
    /// [[1, ρ], [ρ, 1]] is [[1, 0], [ρ, √(1 − ρ²)]], the Rust DGP's draw.
    #[test]
    fn the_correlated_gaussian_as_a_formula_gives_the_rust_bytes() {
        let yaml = formula(
            "  features:\n    - X1, X2: mvnormal([0, 0], [[1, 0.8], [0.8, 1]])\n    - X3, X4: mvnormal([0, 0], [[1, 0.8], [0.8, 1]])\n    - X5: normal(0, 1)\n  target: X1 + X2 + 0.9 * X3 * X3 + X4 + X5 + normal(0, sqrt(2))\n",
        );
        let rust = CorrelatedGaussian {
            noise_var: 2.0,
            rho: 0.8,
        };
        same_bytes(&rust, &yaml);
        // Var = sqrt(2)² is 2 to one unit in the last place.
        let x = array![[0.0, 0.0, 0.0, 0.0, 0.0]];
        assert!((yaml.conditional_variance(x.view())[0] - 2.0).abs() < 1e-15);
    }

    /// E[Y | X] and Var(Y | X) of a heteroscedastic target, of Bernoulli, categorical
    /// and log-normal targets, against their closed forms and 20,000 draws (4 se).
    #[test]
    fn truths_follow_the_target_s_draw() {
        let n = 20_000;
        let nf = n as f64;
        let het = formula(
            "  features:\n    - X1: uniform(-1, 1)\n  target: 2 * X1 + normal(0, abs(X1))\n",
        );
        let x = array![[0.5], [-0.25]];
        assert_eq!(het.conditional_mean(x.view()), array![1.0, -0.5]);
        assert_eq!(het.conditional_variance(x.view()), array![0.25, 0.0625]);
        let d = het.sample(n, &mut stream_rng(3, 0)).unwrap();
        let z: Vec<f64> = (continuous(&d) - &het.conditional_mean(d.x()))
            .iter()
            .zip(het.conditional_variance(d.x()))
            .map(|(r, v)| r / v.sqrt())
            .collect();
        let mean = z.iter().sum::<f64>() / nf;
        let var = z.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (nf - 1.0);
        assert!(mean.abs() < 4.0 / nf.sqrt(), "{mean}");
        assert!((var - 1.0).abs() < 4.0 * (2.0 / nf).sqrt(), "{var}");

        let bern =
            formula("  features:\n    - X1: normal(0, 1)\n  target: bernoulli(logistic(3 * X1))\n");
        assert_eq!(bern.conditional_mean(array![[0.0]].view())[0], 0.5);
        assert_eq!(bern.conditional_variance(array![[0.0]].view())[0], 0.25);
        let d = bern.sample(n, &mut stream_rng(3, 1)).unwrap();
        let Target::Classes {
            labels,
            n_classes: 2,
        } = d.y()
        else {
            panic!("two classes")
        };
        let p = bern.conditional_mean(d.x());
        let gap = labels
            .iter()
            .zip(&p)
            .map(|(&l, p)| l as f64 - p)
            .sum::<f64>()
            / nf;
        assert!(gap.abs() < 4.0 * (0.25 / nf).sqrt(), "{gap}");

        let cat = formula("  features:\n    - X1: uniform(0, 1)\n  target: categorical(1, 2, 1)\n");
        assert_eq!(cat.conditional_mean(array![[0.3]].view())[0], 1.0);
        assert_eq!(cat.conditional_variance(array![[0.3]].view())[0], 0.5);
        let d = cat.sample(n, &mut stream_rng(3, 2)).unwrap();
        let Target::Classes {
            labels,
            n_classes: 3,
        } = d.y()
        else {
            panic!("three classes")
        };
        let share = labels.iter().filter(|&&l| l == 1).count() as f64 / nf;
        assert!((share - 0.5).abs() < 4.0 * (0.25 / nf).sqrt(), "{share}");

        let logn = formula("  features:\n    - X1: uniform(0, 1)\n  target: lognormal(X1, 0.5)\n");
        let d = logn.sample(n, &mut stream_rng(3, 3)).unwrap();
        let want = logn.conditional_mean(d.x());
        assert!((want[0] - (d.x()[[0, 0]] + 0.125).exp()).abs() < 1e-12);
        let resid: f64 = (continuous(&d) - &want).sum() / nf;
        let sd = (logn.conditional_variance(d.x()).sum() / nf).sqrt();
        assert!(resid.abs() < 4.0 * sd / nf.sqrt(), "{resid}");
    }

    /// A feature that is an expression of the ones above plus a draw, and an mvnormal
    /// group: sample moments within 4 se of the formula's.
    #[test]
    fn structural_equations_and_mvnormal_have_their_moments() {
        let f = formula(
            "  features:\n    - A, B: mvnormal([1, -1], [[2, 0.6], [0.6, 1]])\n    - C: 0.5 * A + normal(0, 1)\n  target: C + normal(0, 1)\n",
        );
        let n = 40_000;
        let nf = n as f64;
        let d = f.sample(n, &mut stream_rng(4, 0)).unwrap();
        let x = d.x();
        let m: Vec<f64> = (0..3).map(|j| x.column(j).sum() / nf).collect();
        let cov = |i: usize, j: usize| {
            x.column(i)
                .iter()
                .zip(x.column(j))
                .map(|(a, b)| (a - m[i]) * (b - m[j]))
                .sum::<f64>()
                / (nf - 1.0)
        };
        // E[C] = 0.5, Var C = 0.25·2 + 1 = 1.5, Cov(A, C) = 0.5·2 = 1.
        for (got, want, var) in [(m[0], 1.0, 2.0), (m[1], -1.0, 1.0), (m[2], 0.5, 1.5)] {
            assert!(
                (got - want).abs() < 4.0 * (var / nf).sqrt(),
                "{got} vs {want}"
            );
        }
        // se of a sample covariance ≈ sqrt((σ_ii σ_jj + σ_ij²)/n).
        for (i, j, want, se2) in [
            (0, 0, 2.0, 8.0),
            (0, 1, 0.6, 2.36),
            (1, 1, 1.0, 2.0),
            (0, 2, 1.0, 4.0),
            (2, 2, 1.5, 4.5),
        ] {
            let got = cov(i, j);
            assert!(
                (got - want).abs() < 4.0 * (se2 / nf).sqrt(),
                "cov({i}, {j}) {got} vs {want}"
            );
        }
    }

    /// A hidden variable that draws is averaged over: Y = X1 + normal(0, |H|) with
    /// H = X1 + N(0, 1) has E[Y | X] = X1 and Var(Y | X) = E[H² | X] = X1² + 1, within 4
    /// se of the 4,096 draws (Var H² = 2 + 4 X1²); H is no column of the data.
    #[test]
    fn hidden_variables_are_averaged_over_in_the_truths() {
        let f = formula(
            "  features:\n    - X1: uniform(0, 1)\n    - H: X1 + normal(0, 1)\n  hidden: [H]\n  target: X1 + normal(0, abs(H))\n",
        );
        assert_eq!(f.feature_names(), ["X1"]);
        assert_eq!(f.sample(5, &mut stream_rng(1, 0)).unwrap().x().ncols(), 1);
        let x = array![[0.0], [0.5], [1.0]];
        let (mean, var) = (
            f.conditional_mean(x.view()),
            f.conditional_variance(x.view()),
        );
        for (i, &x1) in [0.0, 0.5, 1.0].iter().enumerate() {
            assert_eq!(mean[i], x1);
            let se = ((2.0 + 4.0 * x1 * x1) / TRUTH_DRAWS as f64).sqrt();
            assert!(
                (var[i] - (x1 * x1 + 1.0)).abs() < 4.0 * se,
                "{} at {x1}",
                var[i]
            );
        }
    }

    /// The same seed gives the same bytes whatever the number of rows per call: a
    /// block boundary does not move a draw.
    #[test]
    fn blocks_do_not_change_the_draws() {
        let f = formula(&format!("{UNIFORM4}  target: X1 * X2 + normal(0, X3)\n"));
        let long = f.sample(2500, &mut stream_rng(9, 0)).unwrap();
        let mut rng = stream_rng(9, 0);
        let first = f.sample(1024, &mut rng).unwrap();
        let rest = f.sample(1476, &mut rng).unwrap();
        assert_eq!(long.x().slice(ndarray::s![..1024, ..]), first.x());
        assert_eq!(long.x().slice(ndarray::s![1024.., ..]), rest.x());
        let y = continuous(&long);
        assert_eq!(y.slice(ndarray::s![..1024]), continuous(&first));
        assert_eq!(y.slice(ndarray::s![1024..]), continuous(&rest));
    }

    /// Read through a tree whose mappings sort their keys (an experiment's variants),
    /// the features keep the order written: `features` is a sequence. A mapping is
    /// refused with what to write.
    #[test]
    fn the_features_keep_their_order_through_a_tree() {
        let text = "formula:\n  features:\n    - Z: uniform(0, 1)\n    - A: 2 * Z + normal(0, 1)\n    - X10: normal(0, 1)\n    - X2: normal(0, 1)\n  target: A + normal(0, 1)\n";
        let tree: serde_json::Value = serde_saphyr::from_str(text).unwrap();
        let DgpSpec::Formula(f) = serde_json::from_value(tree).unwrap() else {
            unreachable!()
        };
        f.validate().unwrap();
        assert_eq!(f.feature_names(), ["Z", "A", "X10", "X2"]);
        let mapping = "formula:\n  features:\n    X1: uniform(0, 1)\n  target: X1\n";
        let err = serde_saphyr::from_str::<DgpSpec>(mapping)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("`features` is a sequence, to keep its order"),
            "{err}"
        );
        let two = "formula:\n  features:\n    - X1: uniform(0, 1)\n      X2: uniform(0, 1)\n  target: X1\n";
        let err = serde_saphyr::from_str::<DgpSpec>(two)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("each entry of `features` defines one variable"),
            "{err}"
        );
    }

    /// A drawn value that is not finite is an error naming the formula's YAML place,
    /// the row and the values of the variables above it.
    #[test]
    fn a_draw_that_is_not_finite_is_a_located_error_with_the_row_s_inputs() {
        let drawn_error = |body: &str| {
            let f = formula(body);
            f.sample(50, &mut stream_rng(1, 0)).unwrap_err().to_string()
        };
        // The target: log of a normal draw is NaN for about half the rows.
        let err = drawn_error(
            "  features:\n    - X1: uniform(0, 1)\n    - X2: normal(0, 1)\n  target: X1 + log(X2) + normal(0, 1)\n",
        );
        assert!(
            err.starts_with("line 5, column 11: the target drew NaN in row "),
            "{err}"
        );
        assert!(
            err.contains(" where X1 = ") && err.contains(", X2 = -"),
            "{err}"
        );
        assert!(err.contains("log of a positive"), "{err}");
        assert!(
            err.ends_with("    X1 + log(X2) + normal(0, 1)\n    ^^^^^^^^^^^^^^^^^^^^^^^^^^^"),
            "{err}"
        );
        // A feature in a group's line: the variable and only the variables above it.
        let err = drawn_error(
            "  features:\n    - A, B: mvnormal([0, 0], [[1, 0], [0, 1]])\n    - C: sqrt(B)\n    - D: uniform(0, 1)\n  target: C + D\n",
        );
        assert!(
            err.starts_with("line 4, column 10: `C` drew NaN in row "),
            "{err}"
        );
        assert!(
            err.contains(" where A = ") && !err.contains("D = "),
            "{err}"
        );
        // The same draws where every value is finite: no error, same columns.
        let fine = formula(
            "  features:\n    - A, B: mvnormal([0, 0], [[1, 0], [0, 1]])\n    - C: sqrt(abs(B))\n    - D: uniform(0, 1)\n  target: C + D\n",
        );
        assert_eq!(fine.sample(50, &mut stream_rng(1, 0)).unwrap().n_rows(), 50);
    }

    /// Bad formulas: each error names the YAML line and column of the offending text
    /// and says what to write.
    #[test]
    fn a_bad_formula_is_located_and_explained() {
        let cases: &[(&str, &str, &str)] = &[
            // (the formula's body, its location, a phrase of the message)
            (
                "  features:\n    - X1: uniform(0, 1)\n    - X2: X1 + X9\n  target: X1 + normal(0, 1)\n",
                "line 4, column 16",
                "unknown variable `X9`; defined above: X1",
            ),
            (
                "  features:\n    - X1: X2 + 1\n    - X2: uniform(0, 1)\n  target: X1\n",
                "line 3, column 11",
                "`X2` is defined further down",
            ),
            (
                "  features:\n    - X1: X1 + 1\n  target: X1\n",
                "line 3, column 11",
                "cannot be defined by itself",
            ),
            (
                "  features:\n    - X1: \"sqrt(2, 3)\"\n  target: X1\n",
                "line 3, column 12",
                "`sqrt` is called with 2 argument(s); write sqrt(x)",
            ),
            (
                "  features:\n    - X1: normal(0)\n  target: X1\n",
                "line 3, column 11",
                "write normal(mean, sd)",
            ),
            (
                "  features:\n    - X1: sqr(2)\n  target: X1\n",
                "line 3, column 11",
                "unknown function `sqr`",
            ),
            (
                "  features:\n    - X1: 2 $ 3\n  target: X1\n",
                "line 3, column 13",
                "`$` is not part of a formula",
            ),
            (
                "  features:\n    - X1: sqrt(2\n  target: X1\n",
                "line 3, column 17",
                "expected `)` to close the arguments of `sqrt`",
            ),
            (
                "  features:\n    - X1: uniform(0, 1) X1\n  target: X1\n",
                "line 3, column 25",
                "after a complete expression",
            ),
            (
                "  features:\n    - X1: 1.2.3\n  target: X1\n",
                "line 3, column 11",
                "`1.2.3` is not a number",
            ),
            (
                "  features:\n    - X1: uniform(0, 1)\n  target: X1 + normal(0, 1) + normal(0, 2)\n",
                "line 4, column 31",
                "a second draw",
            ),
            (
                "  features:\n    - X1: uniform(0, 1)\n  target: exp(normal(0, 1)) + X1\n",
                "line 4, column 15",
                "one distribution added to its mean",
            ),
            (
                "  features:\n    - X1: uniform(0, 1)\n  target: X1 + normal(0, uniform(0, 1))\n",
                "line 4, column 26",
                "cannot draw",
            ),
            (
                "  features:\n    - H: normal(0, 1)\n    - X1: H + 1\n  hidden: [H]\n  target: X1\n",
                "line 4, column 11",
                "cannot read the hidden `H`",
            ),
            (
                "  features:\n    - X1: uniform(1, 0)\n  target: X1\n",
                "line 3, column 11",
                "min 1 must be below its max 0",
            ),
            (
                "  features:\n    - A, B: mvnormal([0, 0], [[1, 2], [2, 1]])\n  target: A\n",
                "line 3, column 39",
                "positive definite",
            ),
            (
                "  features:\n    - A, B: mvnormal([0, 0], [[1, 0.5], [0.4, 1]])\n  target: A\n",
                "line 3, column 41",
                "symmetric",
            ),
            (
                "  features:\n    - A, B: normal(0, 1)\n  target: A\n",
                "line 3, column 13",
                "a group of variables is drawn by mvnormal",
            ),
            (
                "  features:\n    - X1: mvnormal([0], [[1]])\n  target: X1\n",
                "line 3, column 11",
                "mvnormal draws several features",
            ),
            (
                "  features:\n    - X1: uniform(0, 1)\n    - pi: 2\n  target: X1\n",
                "line 4, column 7",
                "`pi` is a built-in name",
            ),
            (
                "  features:\n    - X1: uniform(0, 1)\n  hidden: [X2]\n  target: X1\n",
                "line 4, column 12",
                "`X2` is not a variable",
            ),
            (
                "  features:\n    - X1: \"\"\n  target: X1\n",
                "line 3, column 12",
                "the formula is empty",
            ),
            (
                "  features:\n    - X1: \"[1, 2]\"\n  target: X1\n",
                "line 3, column 12",
                "only mvnormal's mean or covariance",
            ),
            (
                "  features: []\n  target: X1\n",
                "line 3, column 11",
                "`features` defines no variable",
            ),
            (
                "  features:\n    - X1, H: mvnormal([0, 0], [[1, 0.5], [0.5, 1]])\n  hidden: [H]\n  target: X1 + H\n",
                "line 3, column 7",
                "a group mixes hidden and visible variables",
            ),
            (
                "  features:\n    - X1: X1 < 1 < 2\n  target: X1\n",
                "line 3, column 18",
                "comparisons do not chain",
            ),
        ];
        for (body, at, phrase) in cases {
            let err = unvalidated(body).validate().unwrap_err().to_string();
            assert!(err.starts_with(&format!("{at}:")), "{body}\n{err}");
            assert!(err.contains(phrase), "{body}\n{err}");
        }
        // The caret sits under the offending text.
        let err = unvalidated(cases[0].0).validate().unwrap_err().to_string();
        assert!(err.ends_with("    X1 + X9\n         ^^"), "{err}");
        // A formula that compiles is no error.
        formula(cases[0].0.replace("X9", "X1").as_str());
        // Read through a tree (a grid's `set:`), the parser's place is lost: the
        // error says where in the formula, and the experiment finds it in its file.
        let text = format!("formula:\n{}", cases[0].0);
        let tree: serde_json::Value = serde_saphyr::from_str(&text).unwrap();
        let DgpSpec::Formula(f) = serde_json::from_value(tree).unwrap() else {
            unreachable!()
        };
        let mut err = f.validate().unwrap_err();
        assert!(
            err.to_string()
                .starts_with("in `X1 + X9`, character 6: unknown variable"),
            "{err}"
        );
        let mut noisy = err.clone();
        err.locate_formula_in(&text);
        assert!(
            err.to_string()
                .starts_with("line 4, column 16: unknown variable"),
            "{err}"
        );
        // The formula's text elsewhere in the file (a note) is not taken for it.
        noisy.locate_formula_in(&format!("notes: |\n  X1 + X9 is a typo\n{text}"));
        assert!(
            noisy
                .to_string()
                .starts_with("line 6, column 16: unknown variable"),
            "{noisy}"
        );
    }
}
