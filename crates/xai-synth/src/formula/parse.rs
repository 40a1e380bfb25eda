//! The grammar of a formula, parsed into an [`Expr`] tree whose every node keeps the byte
//! range it was written in, so that a later error can point at it.
//!
//! ```text
//! expr    = compare
//! compare = sum [("<" | "<=" | ">" | ">=") sum]
//! sum     = product {("+" | "-") product}
//! product = unary {("*" | "/") unary}
//! unary   = "-" unary | power
//! power   = atom ["^" unary]                  (right-associative: -x^2 = -(x^2))
//! atom    = number | name | name "(" [expr {"," expr}] ")" | "(" expr ")"
//!         | "[" [expr {"," expr}] "]"          (a list: mvnormal's mean and covariance)
//! ```

use std::ops::Range;

/// An error at a byte range of the formula text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// The bytes of the formula the error is about.
    pub span: Range<usize>,
    /// What is wrong and what to write instead.
    pub message: String,
}

impl Located {
    pub(crate) fn new(span: Range<usize>, message: impl Into<String>) -> Self {
        Located {
            span,
            message: message.into(),
        }
    }
}

/// A binary operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    /// a + b
    Add,
    /// a − b
    Sub,
    /// a · b
    Mul,
    /// a / b
    Div,
    /// a ^ b
    Pow,
    /// 1 if a < b else 0
    Lt,
    /// 1 if a ≤ b else 0
    Le,
    /// 1 if a > b else 0
    Gt,
    /// 1 if a ≥ b else 0
    Ge,
}

/// A node of a parsed formula.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    /// A number.
    Num(f64),
    /// A variable (or the constant `pi`).
    Name(String),
    /// −a
    Neg(Box<Expr>),
    /// a op b
    Bin(BinOp, Box<Expr>, Box<Expr>),
    /// name(args…): a function or a distribution.
    Call(String, Vec<Expr>),
    /// [a, b, …]
    List(Vec<Expr>),
}

/// A node and the byte range of the formula text it spans.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    /// The node.
    pub node: Node,
    /// Its bytes in the formula text.
    pub span: Range<usize>,
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Num(f64),
    Name(String),
    Sym(&'static str),
}

/// Splits `text` into tokens with their byte ranges.
fn lex(text: &str) -> Result<Vec<(Tok, Range<usize>)>, Located> {
    const SYMS: [&str; 14] = [
        "<=", ">=", "<", ">", "+", "-", "*", "/", "^", "(", ")", ",", "[", "]",
    ];
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_digit()
            || (c == b'.' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'.') {
                // An exponent's sign: 1e-3.
                let exp_sign = matches!(bytes[i], b'e' | b'E')
                    && matches!(bytes.get(i + 1), Some(b'+' | b'-'));
                i += if exp_sign { 2 } else { 1 };
            }
            let s = &text[start..i];
            let v: f64 = s.parse().map_err(|_| {
                Located::new(
                    start..i,
                    format!("`{s}` is not a number; write e.g. 0.5 or 1e-3"),
                )
            })?;
            out.push((Tok::Num(v), start..i));
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            out.push((Tok::Name(text[start..i].to_string()), start..i));
        } else if let Some(s) = SYMS.iter().find(|s| text[i..].starts_with(**s)) {
            out.push((Tok::Sym(s), i..i + s.len()));
            i += s.len();
        } else {
            let ch = text[i..].chars().next().unwrap_or('?');
            return Err(Located::new(
                i..i + ch.len_utf8(),
                format!(
                    "`{ch}` is not part of a formula; use numbers, names, + - * / ^, < <= > >=, parentheses and function calls"
                ),
            ));
        }
    }
    Ok(out)
}

/// Parses one formula.
pub fn parse(text: &str) -> Result<Expr, Located> {
    let toks = lex(text)?;
    let mut p = Parser {
        toks,
        at: 0,
        end: text.len(),
        depth: 0,
    };
    if p.toks.is_empty() {
        return Err(Located::new(
            0..text.len(),
            "the formula is empty; write an expression",
        ));
    }
    let e = p.expr()?;
    match p.toks.get(p.at) {
        None => Ok(e),
        Some((t, span)) => Err(Located::new(
            span.clone(),
            format!(
                "{} after a complete expression; join the two with an operator",
                describe(t)
            ),
        )),
    }
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Num(v) => format!("the number {v}"),
        Tok::Name(n) => format!("`{n}`"),
        Tok::Sym(s) => format!("`{s}`"),
    }
}

struct Parser {
    toks: Vec<(Tok, Range<usize>)>,
    at: usize,
    end: usize,
    /// Open parentheses, brackets, calls and unary minuses around the current token.
    depth: usize,
}

/// The deepest nesting a formula may have (a guard against exhausting the stack).
const MAX_DEPTH: usize = 200;

impl Parser {
    fn peek_sym(&self) -> Option<&'static str> {
        match self.toks.get(self.at) {
            Some((Tok::Sym(s), _)) => Some(s),
            _ => None,
        }
    }

    /// Consumes the symbol `s` or says what was expected instead.
    fn expect(&mut self, s: &'static str, what: &str) -> Result<Range<usize>, Located> {
        match self.toks.get(self.at) {
            Some((Tok::Sym(t), span)) if *t == s => {
                self.at += 1;
                Ok(span.clone())
            }
            Some((t, span)) => Err(Located::new(
                span.clone(),
                format!("expected `{s}` {what}, found {}", describe(t)),
            )),
            None => Err(Located::new(
                self.end..self.end,
                format!("the formula ends early: expected `{s}` {what}"),
            )),
        }
    }

    fn expr(&mut self) -> Result<Expr, Located> {
        let lhs = self.sum()?;
        let op = match self.peek_sym() {
            Some("<") => BinOp::Lt,
            Some("<=") => BinOp::Le,
            Some(">") => BinOp::Gt,
            Some(">=") => BinOp::Ge,
            _ => return Ok(lhs),
        };
        self.at += 1;
        let rhs = self.sum()?;
        if let Some(s @ ("<" | "<=" | ">" | ">=")) = self.peek_sym() {
            return Err(Located::new(
                self.toks[self.at].1.clone(),
                format!(
                    "comparisons do not chain: a second `{s}`; write (a < b) * (b < c) for a < b < c"
                ),
            ));
        }
        Ok(bin(op, lhs, rhs))
    }

    fn sum(&mut self) -> Result<Expr, Located> {
        self.left_assoc(&[("+", BinOp::Add), ("-", BinOp::Sub)], Self::product)
    }

    fn product(&mut self) -> Result<Expr, Located> {
        self.left_assoc(&[("*", BinOp::Mul), ("/", BinOp::Div)], Self::unary)
    }

    /// `next {op next}` for the operators `ops`, grouped to the left.
    fn left_assoc(
        &mut self,
        ops: &[(&str, BinOp)],
        next: fn(&mut Self) -> Result<Expr, Located>,
    ) -> Result<Expr, Located> {
        let mut lhs = next(self)?;
        while let Some(&(_, op)) = ops.iter().find(|(s, _)| self.peek_sym() == Some(*s)) {
            self.at += 1;
            let rhs = next(self)?;
            lhs = bin(op, lhs, rhs);
        }
        Ok(lhs)
    }

    /// `parse` one level deeper, refused beyond [`MAX_DEPTH`].
    fn nested(&mut self, parse: fn(&mut Self) -> Result<Expr, Located>) -> Result<Expr, Located> {
        if self.depth >= MAX_DEPTH {
            let span = self
                .toks
                .get(self.at)
                .map_or(self.end..self.end, |t| t.1.clone());
            return Err(Located::new(
                span,
                format!(
                    "the formula nests deeper than {MAX_DEPTH} levels; define a variable for a part of it"
                ),
            ));
        }
        self.depth += 1;
        let e = parse(self);
        self.depth -= 1;
        e
    }

    fn unary(&mut self) -> Result<Expr, Located> {
        if self.peek_sym() == Some("-") {
            let start = self.toks[self.at].1.start;
            self.at += 1;
            let inner = self.nested(Self::unary)?;
            let span = start..inner.span.end;
            return Ok(Expr {
                node: Node::Neg(Box::new(inner)),
                span,
            });
        }
        let base = self.atom()?;
        if self.peek_sym() == Some("^") {
            self.at += 1;
            let exponent = self.nested(Self::unary)?;
            return Ok(bin(BinOp::Pow, base, exponent));
        }
        Ok(base)
    }

    /// Comma-separated expressions up to the symbol `close`.
    fn items(&mut self, close: &'static str, what: &str) -> Result<(Vec<Expr>, usize), Located> {
        let mut items = Vec::new();
        if self.peek_sym() == Some(close) {
            let end = self.expect(close, what)?.end;
            return Ok((items, end));
        }
        loop {
            items.push(self.nested(Self::expr)?);
            if self.peek_sym() == Some(",") {
                self.at += 1;
                continue;
            }
            let end = self.expect(close, what)?.end;
            return Ok((items, end));
        }
    }

    fn atom(&mut self) -> Result<Expr, Located> {
        let Some((tok, span)) = self.toks.get(self.at).cloned() else {
            return Err(Located::new(
                self.end..self.end,
                "the formula ends early: expected a number, a name, `-`, `(` or `[`",
            ));
        };
        self.at += 1;
        match tok {
            Tok::Num(v) => Ok(Expr {
                node: Node::Num(v),
                span,
            }),
            Tok::Name(name) if self.peek_sym() == Some("(") => {
                self.at += 1;
                let (args, end) =
                    self.items(")", &format!("to close the arguments of `{name}`"))?;
                Ok(Expr {
                    node: Node::Call(name, args),
                    span: span.start..end,
                })
            }
            Tok::Name(name) => Ok(Expr {
                node: Node::Name(name),
                span,
            }),
            Tok::Sym("(") => {
                let inner = self.nested(Self::expr)?;
                let end = self.expect(")", "to close this parenthesis")?.end;
                Ok(Expr {
                    node: inner.node,
                    span: span.start..end,
                })
            }
            Tok::Sym("[") => {
                let (items, end) = self.items("]", "to close the list")?;
                Ok(Expr {
                    node: Node::List(items),
                    span: span.start..end,
                })
            }
            Tok::Sym(s) => Err(Located::new(
                span,
                format!("expected a number, a name, `-`, `(` or `[`, found `{s}`"),
            )),
        }
    }
}

fn bin(op: BinOp, lhs: Expr, rhs: Expr) -> Expr {
    let span = lhs.span.start..rhs.span.end;
    Expr {
        node: Node::Bin(op, Box::new(lhs), Box::new(rhs)),
        span,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(e: &Expr) -> String {
        match &e.node {
            Node::Num(v) => format!("{v}"),
            Node::Name(n) => n.clone(),
            Node::Neg(a) => format!("(-{})", show(a)),
            Node::Bin(op, a, b) => format!("({} {op:?} {})", show(a), show(b)),
            Node::Call(f, args) => {
                let a: Vec<String> = args.iter().map(show).collect();
                format!("{f}({})", a.join(", "))
            }
            Node::List(items) => {
                let a: Vec<String> = items.iter().map(show).collect();
                format!("[{}]", a.join(", "))
            }
        }
    }

    #[test]
    fn precedence_and_associativity_are_the_usual_ones() {
        let cases = [
            ("1 - 2 - 3", "((1 Sub 2) Sub 3)"),
            ("a + b * c", "(a Add (b Mul c))"),
            ("-x^2", "(-(x Pow 2))"),
            ("2^3^2", "(2 Pow (3 Pow 2))"),
            ("2^-1", "(2 Pow (-1))"),
            ("0.9 * X3 * X3", "((0.9 Mul X3) Mul X3)"),
            ("x < 1 + y", "(x Lt (1 Add y))"),
            ("f(a, g(b), [1, 2e-3])", "f(a, g(b), [1, 0.002])"),
            ("(a + b) / c", "((a Add b) Div c)"),
        ];
        for (text, want) in cases {
            assert_eq!(show(&parse(text).unwrap()), want, "{text}");
        }
    }

    #[test]
    fn chained_comparisons_and_deep_nesting_are_refused() {
        let e = parse("a < b < c").unwrap_err();
        assert!(
            e.message.contains("comparisons do not chain"),
            "{}",
            e.message
        );
        assert_eq!(e.span, 6..7);
        let deep = format!("{}1{}", "(".repeat(100_000), ")".repeat(100_000));
        assert!(
            parse(&deep)
                .unwrap_err()
                .message
                .contains("nests deeper than")
        );
        let ok = format!("{}1{}", "(".repeat(150), ")".repeat(150));
        assert!(parse(&ok).is_ok());
        assert!(
            parse(&"-".repeat(100_000))
                .unwrap_err()
                .message
                .contains("nests deeper")
        );
    }

    #[test]
    fn spans_cover_the_text_of_each_node() {
        let text = "X1 - sqrt(1 + X2)";
        let e = parse(text).unwrap();
        assert_eq!(e.span, 0..text.len());
        let Node::Bin(_, _, rhs) = e.node else {
            panic!()
        };
        assert_eq!(&text[rhs.span.clone()], "sqrt(1 + X2)");
    }
}
