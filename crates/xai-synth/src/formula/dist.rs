//! The distributions a formula can draw from: each turns one primitive draw (a uniform
//! u ~ U[0, 1) or a standard normal z) into a value, and knows its mean and variance as
//! expressions of its parameters (the truths E[Y | X] and Var(Y | X) of a target).

use super::parse::{BinOp, Expr, Node};

/// The primitive draw a distribution transforms: `rng.random::<f64>()` or one
/// `StandardNormal` sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Primitive {
    /// u ~ U[0, 1).
    Uniform,
    /// z ~ N(0, 1).
    Normal,
}

/// A distribution with one primitive draw per value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dist {
    /// uniform(a, b) = a + (b − a)·u.
    Uniform,
    /// normal(m, s) = m + s·z: mean m, standard deviation s.
    Normal,
    /// lognormal(μ, σ) = exp(μ + σ·z).
    LogNormal,
    /// bernoulli(p) = 1 if u < p else 0.
    Bernoulli,
    /// categorical(p_0, …, p_{k−1}) = the class c with P(c) = p_c / Σ p, by inverting
    /// the cumulative sums at u·Σ p.
    Categorical,
}

impl Dist {
    /// The distribution called `name`, if any.
    pub fn named(name: &str) -> Option<Dist> {
        Some(match name {
            "uniform" => Dist::Uniform,
            "normal" => Dist::Normal,
            "lognormal" => Dist::LogNormal,
            "bernoulli" => Dist::Bernoulli,
            "categorical" => Dist::Categorical,
            _ => return None,
        })
    }

    /// How the call is written, for messages.
    pub fn usage(self) -> &'static str {
        match self {
            Dist::Uniform => "uniform(min, max)",
            Dist::Normal => "normal(mean, sd)",
            Dist::LogNormal => "lognormal(meanlog, sdlog)",
            Dist::Bernoulli => "bernoulli(p)",
            Dist::Categorical => "categorical(p0, p1, ...) with at least two weights",
        }
    }

    /// Whether `n` parameters are right.
    pub fn takes(self, n: usize) -> bool {
        match self {
            Dist::Uniform | Dist::Normal | Dist::LogNormal => n == 2,
            Dist::Bernoulli => n == 1,
            Dist::Categorical => n >= 2,
        }
    }

    /// The primitive draw it transforms.
    pub fn primitive(self) -> Primitive {
        match self {
            Dist::Normal | Dist::LogNormal => Primitive::Normal,
            Dist::Uniform | Dist::Bernoulli | Dist::Categorical => Primitive::Uniform,
        }
    }

    /// The value for parameters `p` and primitive draw `w`.
    #[inline]
    pub fn value(self, p: &[f64], w: f64) -> f64 {
        match self {
            Dist::Uniform => p[0] + (p[1] - p[0]) * w,
            Dist::Normal => p[0] + p[1] * w,
            Dist::LogNormal => (p[0] + p[1] * w).exp(),
            Dist::Bernoulli => f64::from(u8::from(w < p[0])),
            Dist::Categorical => {
                // A negative weight counts as 0, as in the truths.
                let t = w * p.iter().map(|&pc| pc.max(0.0)).sum::<f64>();
                let mut acc = 0.0;
                let last = p.len() - 1;
                let c = p[..last]
                    .iter()
                    .position(|&pc| {
                        acc += pc.max(0.0);
                        t < acc
                    })
                    .unwrap_or(last);
                c as f64
            }
        }
    }

    /// Why constant parameters `p` are invalid, if they are.
    pub fn invalid(self, p: &[f64]) -> Option<String> {
        match self {
            Dist::Uniform if p[0].partial_cmp(&p[1]) != Some(std::cmp::Ordering::Less) => Some(
                format!("uniform's min {} must be below its max {}", p[0], p[1]),
            ),
            Dist::Normal | Dist::LogNormal if p[1].is_nan() || p[1] < 0.0 => Some(format!(
                "the standard deviation {} must be at least 0",
                p[1]
            )),
            Dist::Bernoulli if !(0.0..=1.0).contains(&p[0]) => {
                Some(format!("the probability {} must lie in [0, 1]", p[0]))
            }
            Dist::Categorical
                if p.iter().any(|&w| w.is_nan() || w < 0.0) || p.iter().sum::<f64>() <= 0.0 =>
            {
                Some("the weights must be at least 0 with a positive sum".into())
            }
            _ => None,
        }
    }

    /// The parameters as the draw uses them: a Bernoulli p clamped to [0, 1] (u < p
    /// is 1 for p > 1, 0 for p < 0), a categorical weight below 0 as 0.
    fn effective(self, a: &[Expr]) -> Vec<Expr> {
        let b = Build::over(a);
        let floor = |e: &Expr| b.call2("max", e.clone(), b.num(0.0));
        match self {
            Dist::Bernoulli => vec![b.call2("min", floor(&a[0]), b.num(1.0))],
            Dist::Categorical => a.iter().map(floor).collect(),
            _ => a.to_vec(),
        }
    }

    /// The mean as an expression of the parameters `a`.
    pub fn mean(self, a: &[Expr]) -> Expr {
        self.mean_of(&self.effective(a))
    }

    /// The mean of the effective parameters `a`.
    fn mean_of(self, a: &[Expr]) -> Expr {
        let b = Build::over(a);
        match self {
            Dist::Uniform => b.op(
                BinOp::Div,
                b.op(BinOp::Add, a[0].clone(), a[1].clone()),
                b.num(2.0),
            ),
            Dist::Normal => a[0].clone(),
            // exp(μ + σ²/2)
            Dist::LogNormal => b.call(
                "exp",
                b.op(
                    BinOp::Add,
                    a[0].clone(),
                    b.op(BinOp::Div, b.sq(&a[1]), b.num(2.0)),
                ),
            ),
            Dist::Bernoulli => a[0].clone(),
            // Σ c·p_c / Σ p_c
            Dist::Categorical => b.op(BinOp::Div, b.moment(a, 1), b.sum(a)),
        }
    }

    /// The variance as an expression of the parameters `a`.
    pub fn variance(self, a: &[Expr]) -> Expr {
        let a = &self.effective(a)[..];
        let b = Build::over(a);
        match self {
            // (b − a)²/12
            Dist::Uniform => b.op(
                BinOp::Div,
                b.sq(&b.op(BinOp::Sub, a[1].clone(), a[0].clone())),
                b.num(12.0),
            ),
            Dist::Normal => b.sq(&a[1]),
            // (exp(σ²) − 1)·exp(2μ + σ²)
            Dist::LogNormal => b.op(
                BinOp::Mul,
                b.op(BinOp::Sub, b.call("exp", b.sq(&a[1])), b.num(1.0)),
                b.call(
                    "exp",
                    b.op(
                        BinOp::Add,
                        b.op(BinOp::Mul, b.num(2.0), a[0].clone()),
                        b.sq(&a[1]),
                    ),
                ),
            ),
            // p(1 − p)
            Dist::Bernoulli => b.op(
                BinOp::Mul,
                a[0].clone(),
                b.op(BinOp::Sub, b.num(1.0), a[0].clone()),
            ),
            // Σ c²·p_c / Σ p_c − (Σ c·p_c / Σ p_c)²
            Dist::Categorical => b.op(
                BinOp::Sub,
                b.op(BinOp::Div, b.moment(a, 2), b.sum(a)),
                b.sq(&self.mean_of(a)),
            ),
        }
    }
}

/// Builds expression nodes at one span.
struct Build(std::ops::Range<usize>);

impl Build {
    /// At the span of the parameters `a`.
    fn over(a: &[Expr]) -> Build {
        Build(a[0].span.start..a[a.len() - 1].span.end)
    }
    fn at(&self, node: Node) -> Expr {
        Expr {
            node,
            span: self.0.clone(),
        }
    }
    fn num(&self, v: f64) -> Expr {
        self.at(Node::Num(v))
    }
    fn op(&self, op: BinOp, a: Expr, b: Expr) -> Expr {
        self.at(Node::Bin(op, Box::new(a), Box::new(b)))
    }
    fn call(&self, f: &str, a: Expr) -> Expr {
        self.at(Node::Call(f.into(), vec![a]))
    }
    fn call2(&self, f: &str, a: Expr, c: Expr) -> Expr {
        self.at(Node::Call(f.into(), vec![a, c]))
    }
    fn sq(&self, a: &Expr) -> Expr {
        self.op(BinOp::Pow, a.clone(), self.num(2.0))
    }
    fn sum(&self, a: &[Expr]) -> Expr {
        let mut it = a.iter().cloned();
        let first = it.next().expect("at least one term");
        it.fold(first, |s, t| self.op(BinOp::Add, s, t))
    }
    /// Σ_c c^k · a_c.
    fn moment(&self, a: &[Expr], k: i32) -> Expr {
        let terms: Vec<Expr> = a
            .iter()
            .enumerate()
            .map(|(c, p)| self.op(BinOp::Mul, self.num(f64::from(c as i32).powi(k)), p.clone()))
            .collect();
        self.sum(&terms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn categorical_inverts_the_cumulative_weights() {
        let p = [1.0, 2.0, 1.0];
        // t = 4u: [0, 1) → 0, [1, 3) → 1, [3, 4) → 2.
        let at = |u: f64| Dist::Categorical.value(&p, u);
        assert_eq!(
            [at(0.0), at(0.2), at(0.25), at(0.7), at(0.75), at(0.99)],
            [0.0, 0.0, 1.0, 1.0, 2.0, 2.0]
        );
        assert_eq!(Dist::Bernoulli.value(&[0.3], 0.29), 1.0);
        assert_eq!(Dist::Bernoulli.value(&[0.3], 0.3), 0.0);
        assert_eq!(Dist::Uniform.value(&[0.0, 1.0], 0.375), 0.375);
    }

    #[test]
    fn constant_parameters_out_of_range_are_named() {
        assert!(Dist::Uniform.invalid(&[1.0, 1.0]).is_some());
        assert!(Dist::Normal.invalid(&[0.0, -1.0]).is_some());
        assert!(Dist::Bernoulli.invalid(&[1.5]).is_some());
        assert!(Dist::Categorical.invalid(&[0.0, 0.0]).is_some());
        assert!(Dist::Categorical.invalid(&[0.2, 0.8]).is_none());
    }
}
