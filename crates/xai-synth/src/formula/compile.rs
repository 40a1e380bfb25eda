//! From the parsed equations to postfix [`Code`]: names resolved to the variables
//! defined above, calls checked against their arity, draws numbered in the order they
//! are written, constants folded, and the target split into its mean and its draw.

use std::ops::Range;

use super::dist::{Dist, Primitive};
use super::eval::{Code, Fun, Op, Op2};
use super::parse::{BinOp, Expr, Located, Node, parse};

/// Which string of the YAML an error is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// The name (key) of equation i.
    Key(usize),
    /// The formula (value) of equation i.
    Value(usize),
    /// Entry i of `hidden`.
    Hidden(usize),
    /// The target formula.
    Target,
}

/// A located error in one of the formula DGP's strings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormulaError {
    /// The string.
    pub place: Place,
    /// The error within it.
    pub at: Located,
}

/// One compiled variable.
#[derive(Debug, Clone, PartialEq)]
pub struct Var {
    /// Its name.
    pub name: String,
    /// Its code.
    pub code: Code,
    /// Not a column of the data (`hidden`).
    pub hidden: bool,
    /// It draws, itself or through a hidden variable it reads.
    pub random: bool,
    /// Its primitive draws.
    pub slots: Range<usize>,
    /// (distribution, constant parameters) when it is one draw of a distribution with
    /// constant parameters: its marginal, drawn directly.
    pub direct: Option<(Dist, Vec<f64>)>,
}

/// A compiled formula DGP.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    /// The variables in the order they are defined.
    pub vars: Vec<Var>,
    /// Each primitive draw of a row, in order (the variables' slots, then the target's).
    pub slots: Vec<Primitive>,
    /// The target's code (with its draw).
    pub target: Code,
    /// E[Y | X, hidden]: the target with its draw replaced by the draw's mean.
    pub mean: Code,
    /// Var(Y | X, hidden): the draw's variance (0 without a draw).
    pub variance: Code,
    /// The number of classes of a `bernoulli` (2) or `categorical` target.
    pub classes: Option<usize>,
    /// E[Y | X] and Var(Y | X) need Monte Carlo over random hidden variables.
    pub by_monte_carlo: bool,
}

impl Model {
    /// The data's columns: the variables that are not hidden.
    pub fn columns(&self) -> impl Iterator<Item = &Var> {
        self.vars.iter().filter(|v| !v.hidden)
    }
}

const FUNCTIONS: &str = "sqrt, exp, log, sin, cos, tan, tanh, abs, logistic, min, max";
const DISTRIBUTIONS: &str = "uniform, normal, lognormal, bernoulli, categorical, mvnormal";

/// Compiles equations (name or `A, B` group, formula), the hidden names and the target.
pub fn compile(
    equations: &[(&str, &str)],
    hidden: &[&str],
    target: &str,
) -> Result<Model, FormulaError> {
    let declared = declare(equations, hidden, target)?;
    let mut slots = Vec::new();
    let vars = variables(equations, &declared, &mut slots)?;
    let err = |at| FormulaError {
        place: Place::Target,
        at,
    };
    let texpr = parse(target).map_err(err)?;
    let classes = match &texpr.node {
        Node::Call(f, args) => match Dist::named(f) {
            Some(Dist::Bernoulli) => Some(2),
            Some(Dist::Categorical) => Some(args.len()),
            _ => None,
        },
        _ => None,
    };
    let (mean_expr, variance_expr) = mean_and_variance(&texpr).map_err(err)?;
    let mut scope = Scope {
        all: &declared.names,
        vars: &vars,
        own: vars.len(),
        slots: Some(&mut slots),
        features_only: false,
    };
    let target_code = scope.lower(&texpr).map_err(err)?;
    scope.slots = None;
    let mean = scope.lower(&mean_expr).map_err(err)?;
    let variance = match variance_expr {
        Some(v) => scope.lower(&v).map_err(err)?,
        None => Code(vec![Op::Const(0.0)]),
    };
    let by_monte_carlo = mean.reads(|v| vars[v].random && vars[v].hidden)
        || variance.reads(|v| vars[v].random && vars[v].hidden);
    Ok(Model {
        vars,
        slots,
        target: target_code,
        mean,
        variance,
        classes,
        by_monte_carlo,
    })
}

/// The variables the equations declare, in order.
struct Declared {
    /// Each variable's name.
    names: Vec<String>,
    /// The equation defining each variable.
    equation: Vec<usize>,
    /// Whether each is hidden.
    hidden: Vec<bool>,
}

/// The variables named by the equations' keys (one, or a group `A, B`) and which of
/// them `hidden` names: each name an identifier, none twice, at least one, every
/// hidden name a variable, at least one not hidden.
fn declare(
    equations: &[(&str, &str)],
    hidden: &[&str],
    target: &str,
) -> Result<Declared, FormulaError> {
    let mut names: Vec<(String, usize, Range<usize>)> = Vec::new();
    for (i, (key, _)) in equations.iter().enumerate() {
        let mut start = 0;
        for part in key.split(',') {
            let lead = part.len() - part.trim_start().len();
            let name = part.trim();
            let span = start + lead..start + lead + name.len();
            start += part.len() + 1;
            check_name(name, span.clone(), &names).map_err(|at| FormulaError {
                place: Place::Key(i),
                at,
            })?;
            names.push((name.to_string(), i, span));
        }
    }
    if names.is_empty() {
        return Err(FormulaError {
            place: Place::Target,
            at: Located::new(
                0..target.len(),
                "`features` defines no variable; list them under it, one per line, e.g. `- X1: uniform(0, 1)`",
            ),
        });
    }
    let all: Vec<String> = names.iter().map(|n| n.0.clone()).collect();
    let mut is_hidden = vec![false; all.len()];
    for (h, name) in hidden.iter().enumerate() {
        match all.iter().position(|n| n == name.trim()) {
            Some(v) => is_hidden[v] = true,
            None => {
                return Err(FormulaError {
                    place: Place::Hidden(h),
                    at: Located::new(
                        0..name.len(),
                        format!(
                            "`{name}` is not a variable; `hidden` names variables of `features` ({})",
                            all.join(", ")
                        ),
                    ),
                });
            }
        }
    }
    if is_hidden.iter().all(|&h| h) {
        return Err(FormulaError {
            place: Place::Hidden(0),
            at: Located::new(
                0..hidden.first().map_or(0, |h| h.len()),
                "every variable is hidden; the data needs at least one feature",
            ),
        });
    }
    Ok(Declared {
        names: all,
        equation: names.iter().map(|n| n.1).collect(),
        hidden: is_hidden,
    })
}

/// Each declared variable compiled from its equation, in order, its primitive draws
/// appended to `slots`: a group from its `mvnormal`, any other from its formula
/// (which may read the variables above it).
fn variables(
    equations: &[(&str, &str)],
    declared: &Declared,
    slots: &mut Vec<Primitive>,
) -> Result<Vec<Var>, FormulaError> {
    let (all, is_hidden) = (&declared.names, &declared.hidden);
    let mut vars: Vec<Var> = Vec::new();
    for (i, (key, formula)) in equations.iter().enumerate() {
        let err = |at| FormulaError {
            place: Place::Value(i),
            at,
        };
        let group: Vec<usize> = (0..all.len())
            .filter(|&v| declared.equation[v] == i)
            .collect();
        let expr = parse(formula).map_err(err)?;
        let first = vars.len();
        let start = slots.len();
        if group.len() > 1 {
            if group.iter().any(|&v| is_hidden[v]) && !group.iter().all(|&v| is_hidden[v]) {
                return Err(FormulaError {
                    place: Place::Key(i),
                    at: Located::new(
                        0..key.len(),
                        "a group mixes hidden and visible variables (the truths would need the hidden ones given the visible); hide all of them or none",
                    ),
                });
            }
            let codes = mvnormal(&expr, group.len(), slots).map_err(err)?;
            for (k, code) in codes.into_iter().enumerate() {
                vars.push(Var {
                    name: all[first + k].clone(),
                    code,
                    hidden: is_hidden[first + k],
                    random: true,
                    slots: start..slots.len(),
                    direct: None,
                });
            }
            continue;
        }
        let mut scope = Scope {
            all,
            vars: &vars,
            own: first,
            slots: Some(slots),
            features_only: !is_hidden[first],
        };
        let code = scope.lower(&expr).map_err(err)?;
        // It draws itself, or reads a hidden variable that draws.
        let random = code.reads(|v| vars[v].hidden && vars[v].random);
        let direct = match (&expr.node, code.0.as_slice()) {
            (Node::Call(..), [params @ .., Op::Dist { dist, .. }]) => params
                .iter()
                .map(|o| match o {
                    Op::Const(c) => Some(*c),
                    _ => None,
                })
                .collect::<Option<Vec<f64>>>()
                .map(|p| (*dist, p)),
            _ => None,
        };
        vars.push(Var {
            name: all[first].clone(),
            code,
            hidden: is_hidden[first],
            random,
            slots: start..slots.len(),
            direct,
        });
    }
    Ok(vars)
}

/// The target's E[Y | X] and Var(Y | X) as expressions: the target with its one
/// additive draw D replaced by E[D], and Var D (none without a draw). Refuses a
/// second draw, an `mvnormal`, a draw that is not one distribution added to the mean,
/// and a distribution whose parameters draw.
fn mean_and_variance(texpr: &Expr) -> Result<(Expr, Option<Expr>), Located> {
    let mut terms = Vec::new();
    additive_terms(texpr, &mut terms);
    let draws: Vec<&Expr> = terms
        .into_iter()
        .filter(|t| first_draw(t).is_some())
        .collect();
    let d = match draws.as_slice() {
        [] => return Ok((texpr.clone(), None)),
        [d] => *d,
        [_, second, ..] => {
            return Err(Located::new(
                second.span.clone(),
                "the target has a second draw; one distribution carries its noise, e.g. normal(0, sqrt(a^2 + b^2)) for two normal terms",
            ));
        }
    };
    let (f, args, dist) = match &d.node {
        Node::Call(f, _) if f == "mvnormal" => {
            return Err(Located::new(
                d.span.clone(),
                "mvnormal draws features, not a target; use normal(mean, sd)",
            ));
        }
        Node::Call(f, args) => match Dist::named(f) {
            Some(dist) => (f, args, dist),
            None => return Err(not_one_draw(d)),
        },
        _ => return Err(not_one_draw(d)),
    };
    if !dist.takes(args.len()) {
        return Err(arity_error(f, dist.usage(), d.span.clone(), args.len()));
    }
    if let Some(inner) = args.iter().find_map(first_draw) {
        return Err(Located::new(
            inner.span.clone(),
            "the parameters of the target's distribution cannot draw; define the draw as a hidden variable and use its name",
        ));
    }
    Ok((
        replace(texpr, &d.span, &dist.mean(args)),
        Some(dist.variance(args)),
    ))
}

/// A draw term `d` of the target that is not a distribution itself (a scaled draw,
/// `2 * normal(0, 1)`), located at the draw inside it.
fn not_one_draw(d: &Expr) -> Located {
    Located::new(
        first_draw(d).map_or(d.span.clone(), |inner| inner.span.clone()),
        "the target's draw must be one distribution added to its mean, as in `X1 + normal(0, sd)`; write a scale into the distribution's parameters",
    )
}

/// A variable name must be an identifier, neither reserved nor taken.
fn check_name(
    name: &str,
    span: Range<usize>,
    taken: &[(String, usize, Range<usize>)],
) -> Result<(), Located> {
    let ident = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !ident {
        return Err(Located::new(
            span,
            format!(
                "`{name}` is not a variable name; use letters, digits and _, starting with a letter"
            ),
        ));
    }
    if name == "pi"
        || Fun::named(name).is_some()
        || Dist::named(name).is_some()
        || matches!(name, "min" | "max" | "mvnormal")
    {
        return Err(Located::new(
            span,
            format!("`{name}` is a built-in name; choose another"),
        ));
    }
    if taken.iter().any(|t| t.0 == name) {
        return Err(Located::new(
            span,
            format!("`{name}` is defined twice; rename one"),
        ));
    }
    Ok(())
}

fn arity_error(f: &str, usage: &str, span: Range<usize>, got: usize) -> Located {
    Located::new(
        span,
        format!("`{f}` is called with {got} argument(s); write {usage}"),
    )
}

/// The terms of a sum at the top of `e` (through + and −).
fn additive_terms<'a>(e: &'a Expr, out: &mut Vec<&'a Expr>) {
    match &e.node {
        Node::Bin(BinOp::Add | BinOp::Sub, a, b) => {
            additive_terms(a, out);
            additive_terms(b, out);
        }
        _ => out.push(e),
    }
}

/// The first distribution call inside `e`, if any.
fn first_draw(e: &Expr) -> Option<&Expr> {
    match &e.node {
        Node::Call(f, _) if Dist::named(f).is_some() || f == "mvnormal" => Some(e),
        Node::Call(_, args) | Node::List(args) => args.iter().find_map(first_draw),
        Node::Neg(a) => first_draw(a),
        Node::Bin(_, a, b) => first_draw(a).or_else(|| first_draw(b)),
        Node::Num(_) | Node::Name(_) => None,
    }
}

/// `e` with the node spanning `span` replaced by `with`.
fn replace(e: &Expr, span: &Range<usize>, with: &Expr) -> Expr {
    if &e.span == span && first_draw(e).is_some_and(|d| &d.span == span) {
        return with.clone();
    }
    let r = |a: &Expr| Box::new(replace(a, span, with));
    let node = match &e.node {
        Node::Neg(a) => Node::Neg(r(a)),
        Node::Bin(op, a, b) => Node::Bin(*op, r(a), r(b)),
        other => other.clone(),
    };
    Expr {
        node,
        span: e.span.clone(),
    }
}

/// Names and draws visible to one formula.
struct Scope<'a> {
    /// Every variable's name, in order.
    all: &'a [String],
    /// The variables defined above.
    vars: &'a [Var],
    /// The index of the variable being defined (`all.len()` for the target).
    own: usize,
    /// Where new draws are numbered; `None` where a formula cannot draw.
    slots: Option<&'a mut Vec<Primitive>>,
    /// A feature: it cannot read hidden variables.
    features_only: bool,
}

impl Scope<'_> {
    fn lower(&mut self, e: &Expr) -> Result<Code, Located> {
        let mut code = Code::default();
        self.emit(e, &mut code)?;
        Ok(code)
    }

    fn emit(&mut self, e: &Expr, code: &mut Code) -> Result<(), Located> {
        match &e.node {
            Node::Num(v) => code.push(Op::Const(*v)),
            Node::Name(n) if n == "pi" => code.push(Op::Const(std::f64::consts::PI)),
            Node::Name(n) => code.push(Op::Var(self.resolve(n, e.span.clone())?)),
            Node::Neg(a) => {
                self.emit(a, code)?;
                code.push(Op::Neg);
            }
            Node::Bin(BinOp::Pow, a, b) => {
                self.emit(a, code)?;
                let exponent = self.lower(b)?;
                match exponent.constant() {
                    Some(p) if p.fract() == 0.0 && p.abs() <= 64.0 => code.push(Op::Powi(p as i32)),
                    _ => {
                        exponent.0.into_iter().for_each(|o| code.push(o));
                        code.push(Op::Op2(Op2::Bin(BinOp::Pow)));
                    }
                }
            }
            Node::Bin(op, a, b) => {
                self.emit(a, code)?;
                self.emit(b, code)?;
                code.push(Op::Op2(Op2::Bin(*op)));
            }
            Node::List(_) => {
                return Err(Located::new(
                    e.span.clone(),
                    "a list [...] is only mvnormal's mean or covariance",
                ));
            }
            Node::Call(f, args) => self.call(f, args, e.span.clone(), code)?,
        }
        Ok(())
    }

    fn call(
        &mut self,
        f: &str,
        args: &[Expr],
        span: Range<usize>,
        code: &mut Code,
    ) -> Result<(), Located> {
        if let Some(fun) = Fun::named(f) {
            if args.len() != 1 {
                return Err(arity_error(f, &format!("{f}(x)"), span, args.len()));
            }
            self.emit(&args[0], code)?;
            code.push(Op::Fun(fun));
            return Ok(());
        }
        if f == "min" || f == "max" {
            if args.len() != 2 {
                return Err(arity_error(f, &format!("{f}(a, b)"), span, args.len()));
            }
            self.emit(&args[0], code)?;
            self.emit(&args[1], code)?;
            code.push(Op::Op2(if f == "min" { Op2::Min } else { Op2::Max }));
            return Ok(());
        }
        if f == "mvnormal" {
            return Err(Located::new(
                span,
                "mvnormal draws several features at once; write it as the formula of a group, `X1, X2: mvnormal([0, 0], [[1, 0.5], [0.5, 1]])`",
            ));
        }
        let Some(dist) = Dist::named(f) else {
            return Err(Located::new(
                span.start..span.start + f.len(),
                format!(
                    "unknown function `{f}`; functions: {FUNCTIONS}; distributions: {DISTRIBUTIONS}"
                ),
            ));
        };
        if !dist.takes(args.len()) {
            return Err(arity_error(f, dist.usage(), span, args.len()));
        }
        let Some(slots) = self.slots.as_deref_mut() else {
            return Err(Located::new(span, "a distribution cannot appear here"));
        };
        let slot = slots.len();
        slots.push(dist.primitive());
        let params = args
            .iter()
            .map(|a| self.lower(a))
            .collect::<Result<Vec<_>, _>>()?;
        let constants: Option<Vec<f64>> = params.iter().map(Code::constant).collect();
        if let Some(why) = constants.and_then(|p| dist.invalid(&p)) {
            return Err(Located::new(
                span,
                format!("{why}; {} is invalid", dist.usage()),
            ));
        }
        for p in params {
            p.0.into_iter().for_each(|o| code.push(o));
        }
        code.push(Op::Dist {
            dist,
            arity: args.len(),
            slot,
        });
        Ok(())
    }

    fn resolve(&self, n: &str, span: Range<usize>) -> Result<usize, Located> {
        match self.all.iter().position(|a| a == n) {
            Some(v) if v < self.own => {
                if self.features_only && self.vars[v].hidden {
                    return Err(Located::new(
                        span,
                        format!(
                            "a feature cannot read the hidden `{n}` (the truths given the features would need its posterior); make `{n}` a feature, or this variable hidden"
                        ),
                    ));
                }
                Ok(v)
            }
            Some(v) if v == self.own => Err(Located::new(
                span,
                format!("`{n}` cannot be defined by itself; use the variables above it"),
            )),
            Some(_) => Err(Located::new(
                span,
                format!(
                    "`{n}` is defined further down; a formula can use only the variables above it (move `{n}` up)"
                ),
            )),
            None => {
                let above = &self.all[..self.own];
                let known = if above.is_empty() {
                    "none is defined above it".to_string()
                } else {
                    format!("defined above: {}", above.join(", "))
                };
                Err(Located::new(
                    span,
                    format!("unknown variable `{n}`; {known}"),
                ))
            }
        }
    }
}

/// The codes of `mvnormal(mean, covariance)` for a group of `d` variables: with
/// Σ = LLᵀ (Cholesky), X_i = m_i + Σ_{k ≤ i} L_ik·z_k, the z_k being d standard-normal
/// draws of the row, in order.
fn mvnormal(e: &Expr, d: usize, slots: &mut Vec<Primitive>) -> Result<Vec<Code>, Located> {
    let usage =
        "write `A, B: mvnormal([mean_A, mean_B], [[var_A, cov_AB], [cov_AB, var_B]])` with numbers";
    let Node::Call(f, args) = &e.node else {
        return Err(Located::new(
            e.span.clone(),
            format!("a group of variables is drawn by mvnormal; {usage}"),
        ));
    };
    if f != "mvnormal" || args.len() != 2 {
        return Err(Located::new(
            e.span.clone(),
            format!("a group of variables is drawn by mvnormal(mean, covariance); {usage}"),
        ));
    }
    let numbers = |e: &Expr, want: usize, what: &str| -> Result<Vec<f64>, Located> {
        let Node::List(items) = &e.node else {
            return Err(Located::new(
                e.span.clone(),
                format!("{what} must be a list of {want} numbers; {usage}"),
            ));
        };
        if items.len() != want {
            return Err(Located::new(
                e.span.clone(),
                format!("{what} has {} entries, the group {want}", items.len()),
            ));
        }
        items
            .iter()
            .map(|it| match &it.node {
                Node::Num(v) => Ok(*v),
                Node::Neg(a) => match a.node {
                    Node::Num(v) => Ok(-v),
                    _ => Err(Located::new(
                        it.span.clone(),
                        format!("{what} holds numbers only"),
                    )),
                },
                _ => Err(Located::new(
                    it.span.clone(),
                    format!("{what} holds numbers only"),
                )),
            })
            .collect()
    };
    let mean = numbers(&args[0], d, "the mean")?;
    let Node::List(rows) = &args[1].node else {
        return Err(Located::new(
            args[1].span.clone(),
            format!("the covariance must be a list of {d} rows; {usage}"),
        ));
    };
    if rows.len() != d {
        return Err(Located::new(
            args[1].span.clone(),
            format!(
                "the covariance has {} rows, the group {d} variables",
                rows.len()
            ),
        ));
    }
    let cov: Vec<Vec<f64>> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| numbers(r, d, &format!("row {} of the covariance", i + 1)))
        .collect::<Result<_, _>>()?;
    for (i, row) in cov.iter().enumerate() {
        if let Some(k) = (0..i).find(|&k| row[k] != cov[k][i]) {
            return Err(Located::new(
                rows[i].span.clone(),
                format!(
                    "the covariance must be symmetric: entry ({}, {}) is {}, ({}, {}) is {}",
                    i + 1,
                    k + 1,
                    row[k],
                    k + 1,
                    i + 1,
                    cov[k][i]
                ),
            ));
        }
    }
    // Σ = LLᵀ row by row: l_ik = (σ_ik − Σ_{m<k} l_im l_km) / l_kk, l_ii = √(σ_ii − Σ l_im²).
    let mut l = vec![vec![0.0; d]; d];
    for i in 0..d {
        for k in 0..=i {
            let s = (0..k).fold(cov[i][k], |s, m| s - l[i][m] * l[k][m]);
            if i == k {
                if s.is_nan() || s <= 0.0 {
                    return Err(Located::new(
                        rows[i].span.clone(),
                        format!(
                            "the covariance must be positive definite: its Cholesky factorisation meets a non-positive pivot at row {}",
                            i + 1
                        ),
                    ));
                }
                l[i][i] = s.sqrt();
            } else {
                l[i][k] = s / l[k][k];
            }
        }
    }
    let first = slots.len();
    slots.extend(std::iter::repeat_n(Primitive::Normal, d));
    Ok((0..d)
        .map(|i| {
            let mut code = Code::default();
            code.push(Op::Const(mean[i]));
            let mut terms = 0;
            for (k, &lik) in l[i].iter().enumerate().take(i + 1) {
                if lik == 0.0 {
                    continue;
                }
                code.0.push(Op::Const(lik));
                code.0.push(Op::Draw(first + k));
                code.0.push(Op::Op2(Op2::Bin(BinOp::Mul)));
                if terms > 0 {
                    code.0.push(Op::Op2(Op2::Bin(BinOp::Add)));
                }
                terms += 1;
            }
            code.0.push(Op::Op2(Op2::Bin(BinOp::Add)));
            code
        })
        .collect())
}
