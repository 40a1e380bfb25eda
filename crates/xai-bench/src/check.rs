//! Checks: the paper's claims on a run's numbers, and the regression check against
//! the committed summary.

use std::path::Path;

use xai_core::inference::t_quantile;
use xai_core::{Estimate, t_interval};

use crate::load::format_number;
use crate::run::RunOutput;
use crate::spec::{Assertion, CheckSpec, Direction, Scalar, Selector, Tolerance};
use crate::table::{CsvTable, read_csv, summary_table};

/// Verdict of one check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The claim holds.
    Pass,
    /// The claim fails.
    Fail,
    /// The claim fails and the experiment says why it is expected to.
    KnownDeviation,
}

impl Status {
    /// "pass", "FAIL" or "known deviation".
    pub fn label(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "FAIL",
            Status::KnownDeviation => "known deviation",
        }
    }
}

/// The result of one check.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// What was checked.
    pub name: String,
    /// The verdict.
    pub status: Status,
    /// The numbers behind it.
    pub detail: String,
}

/// The quantities an assertion reads.
pub fn quantities(a: &Assertion) -> Vec<&String> {
    match a {
        Assertion::Greater { quantity, .. }
        | Assertion::Positive { quantity, .. }
        | Assertion::Negligible { quantity, .. } => vec![quantity],
        Assertion::Monotone { quantities, .. } => quantities.iter().collect(),
    }
}

/// A row's identifying columns: quantity, grid keys, model, feature, x.
struct Row<'a> {
    cols: Vec<(&'a str, String)>,
    value: Estimate,
    replicate: Option<usize>,
}

impl Row<'_> {
    fn get(&self, name: &str) -> Option<&str> {
        self.cols
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }

    fn matches(&self, sel: &Selector) -> bool {
        sel.iter().all(|(col, want)| {
            let Some(have) = self.get(col) else {
                return false;
            };
            want.values().iter().any(|w| match w {
                Scalar::Text(t) => t == have,
                Scalar::Number(n) => have.parse::<f64>().is_ok_and(|h| h == *n),
            })
        })
    }

    /// The columns other than `skip` (and the replicate): rows with equal contexts
    /// are compared with each other.
    fn context(&self, skip: &[&str]) -> Vec<String> {
        self.cols
            .iter()
            .filter(|(k, _)| !skip.contains(k))
            .map(|(k, v)| format!("{k}={v}"))
            .collect()
    }

    fn show(&self) -> String {
        let v = &self.value;
        format!(
            "{} {} [{}, {}]",
            self.get("feature").unwrap_or(""),
            short(v.estimate),
            short(v.lower),
            short(v.upper)
        )
    }
}

fn short(v: f64) -> String {
    format!("{v:.4}")
}

fn rows<'a>(keys: &'a [String], out: &RunOutput, tidy: bool) -> Vec<Row<'a>> {
    let make = |quantity: &str, labels: &[String], model: &str, feature: &str, x: Option<f64>| {
        let mut cols = vec![("quantity", quantity.to_string())];
        cols.extend(keys.iter().map(String::as_str).zip(labels.iter().cloned()));
        cols.push(("model", model.to_string()));
        cols.push(("feature", feature.to_string()));
        cols.push(("x", x.map(format_number).unwrap_or_default()));
        cols
    };
    if tidy {
        out.tidy
            .iter()
            .map(|r| Row {
                cols: make(&r.quantity, &r.labels, &r.model, &r.feature, r.x),
                value: r.value,
                replicate: Some(r.replicate),
            })
            .collect()
    } else {
        out.summary
            .iter()
            .map(|r| Row {
                cols: make(&r.quantity, &r.labels, &r.model, &r.feature, r.x),
                value: r.value,
                replicate: None,
            })
            .collect()
    }
}

fn of_quantity<'a, 'b>(rows: &'b [Row<'a>], q: &str) -> Vec<&'b Row<'a>> {
    rows.iter()
        .filter(|r| r.get("quantity") == Some(q))
        .collect()
}

/// Evaluates one paper check on a run.
pub fn evaluate(check: &CheckSpec, keys: &[String], out: &RunOutput, level: f64) -> Outcome {
    let (ok, detail) = match &check.assert {
        Assertion::Greater {
            quantity,
            this,
            than,
        } => greater(&rows(keys, out, true), quantity, this, than, level),
        Assertion::Positive {
            quantity,
            rows: sel,
        } => {
            let summary = rows(keys, out, false);
            every(
                of_quantity(&summary, quantity),
                sel,
                |r| r.value.lower > 0.0,
                "lower > 0",
            )
        }
        Assertion::Negligible {
            quantity,
            rows: sel,
            bound,
        } => {
            let summary = rows(keys, out, false);
            every(
                of_quantity(&summary, quantity),
                sel,
                |r| r.value.covers(0.0) || r.value.estimate.abs() <= *bound,
                &format!("interval covers 0 or |estimate| <= {bound}"),
            )
        }
        Assertion::Monotone {
            quantities,
            rows: sel,
            along,
            direction,
        } => monotone(
            &rows(keys, out, false),
            quantities,
            sel,
            along,
            *direction,
            level,
        ),
    };
    let status = match (ok, &check.expected_to_differ) {
        (true, _) => Status::Pass,
        (false, None) => Status::Fail,
        (false, Some(_)) => Status::KnownDeviation,
    };
    let detail = match (&check.expected_to_differ, status) {
        (Some(why), Status::KnownDeviation) => format!("{detail} (expected: {why})"),
        _ => detail,
    };
    Outcome {
        name: check.claim.clone(),
        status,
        detail,
    }
}

fn every(
    rows: Vec<&Row<'_>>,
    sel: &Selector,
    pred: impl Fn(&Row<'_>) -> bool,
    what: &str,
) -> (bool, String) {
    let chosen: Vec<_> = rows.into_iter().filter(|r| r.matches(sel)).collect();
    if chosen.is_empty() {
        return (false, "no rows match the selection".into());
    }
    let bad: Vec<String> = chosen
        .iter()
        .filter(|r| !pred(r))
        .map(|r| r.show())
        .collect();
    let shown: Vec<String> = chosen.iter().map(|r| r.show()).collect();
    if bad.is_empty() {
        (true, format!("{what}: {}", shown.join("; ")))
    } else {
        (false, format!("not {what}: {}", bad.join("; ")))
    }
}

/// One `this` > `than` comparison, accumulated over replicates.
struct Pair {
    key: String,
    name: String,
    diffs: Vec<f64>,
    lower_this: f64,
    upper_than: f64,
}

/// Paired comparison per replicate: the t-interval of est(this) − est(than) over
/// replicates must lie above 0; with one replicate the two intervals must not overlap.
fn greater(
    tidy: &[Row<'_>],
    q: &str,
    this: &Selector,
    than: &Selector,
    level: f64,
) -> (bool, String) {
    let rows = of_quantity(tidy, q);
    let skip: Vec<&str> = this.keys().chain(than.keys()).map(String::as_str).collect();
    let a: Vec<_> = rows.iter().filter(|r| r.matches(this)).collect();
    let b: Vec<_> = rows.iter().filter(|r| r.matches(than)).collect();
    let mut pairs: Vec<Pair> = Vec::new();
    for ra in &a {
        for rb in b
            .iter()
            .filter(|rb| rb.context(&skip) == ra.context(&skip) && rb.replicate == ra.replicate)
        {
            let name = format!(
                "{} > {}",
                ra.get("feature").unwrap_or(""),
                rb.get("feature").unwrap_or("")
            );
            let key = format!("{}|{name}", ra.context(&skip).join(","));
            let d = ra.value.estimate - rb.value.estimate;
            match pairs.iter_mut().find(|p| p.key == key) {
                Some(p) => p.diffs.push(d),
                None => pairs.push(Pair {
                    key,
                    name,
                    diffs: vec![d],
                    lower_this: ra.value.lower,
                    upper_than: rb.value.upper,
                }),
            }
        }
    }
    if pairs.is_empty() {
        return (
            false,
            "no rows match `this` and `than` in a common context".into(),
        );
    }
    let mut ok = true;
    let mut parts = Vec::new();
    for p in &pairs {
        let (pass, text) = if p.diffs.len() >= 2 {
            let e = t_interval(&p.diffs, level);
            (
                e.lower > 0.0,
                format!(
                    "{}: paired diff {} [{}, {}]",
                    p.name,
                    short(e.estimate),
                    short(e.lower),
                    short(e.upper)
                ),
            )
        } else {
            (
                p.lower_this > p.upper_than,
                format!(
                    "{}: lower {} vs upper {}",
                    p.name,
                    short(p.lower_this),
                    short(p.upper_than)
                ),
            )
        };
        ok &= pass;
        parts.push(if pass { text } else { format!("NOT {text}") });
    }
    (ok, parts.join("; "))
}

fn monotone(
    summary: &[Row<'_>],
    quantities: &[String],
    sel: &Selector,
    along: &str,
    direction: Direction,
    level: f64,
) -> (bool, String) {
    let mut ok = true;
    let mut parts = Vec::new();
    for q in quantities {
        let chosen: Vec<_> = of_quantity(summary, q)
            .into_iter()
            .filter(|r| r.matches(sel))
            .collect();
        let mut groups: Vec<(Vec<String>, Vec<&Row<'_>>)> = Vec::new();
        for r in chosen {
            let ctx = r.context(&[along]);
            match groups.iter_mut().find(|g| g.0 == ctx) {
                Some(g) => g.1.push(r),
                None => groups.push((ctx, vec![r])),
            }
        }
        if groups.is_empty() {
            return (false, format!("no rows of {q} match the selection"));
        }
        for (_, mut g) in groups {
            let pos = |r: &Row<'_>| {
                r.get(along)
                    .and_then(|v| v.parse::<f64>().ok())
                    .unwrap_or(f64::NAN)
            };
            g.sort_by(|a, b| pos(a).total_cmp(&pos(b)));
            let se = |e: &Estimate| {
                (e.upper - e.lower) / (2.0 * t_quantile(0.5 + level / 2.0, (e.n.max(2) - 1) as f64))
            };
            let steps: Vec<bool> = g
                .windows(2)
                .map(|w| {
                    let step = match direction {
                        Direction::Decreasing => w[0].value.estimate - w[1].value.estimate,
                        Direction::Increasing => w[1].value.estimate - w[0].value.estimate,
                    };
                    step > (se(&w[0].value).powi(2) + se(&w[1].value).powi(2)).sqrt()
                })
                .collect();
            let good = steps.iter().all(|&s| s);
            ok &= good;
            let values: Vec<String> = g
                .iter()
                .map(|r| format!("{}={}", r.get(along).unwrap_or(""), short(r.value.estimate)))
                .collect();
            parts.push(format!(
                "{}{q} {}: {}",
                if good { "" } else { "NOT " },
                g[0].get("feature").unwrap_or(""),
                values.join(" ")
            ));
        }
    }
    (ok, parts.join("; "))
}

/// Compares a run's summary with the committed `summary.csv` in `baseline_dir`.
pub fn regression(
    keys: &[String],
    out: &RunOutput,
    baseline_dir: &Path,
    tol: Tolerance,
) -> Outcome {
    let name = "regression against the committed summary.csv".to_string();
    let path = baseline_dir.join("summary.csv");
    let fail = |detail: String| Outcome {
        name: name.clone(),
        status: Status::Fail,
        detail,
    };
    let baseline = match read_csv(&path) {
        Ok(t) => t,
        Err(e) => {
            return fail(format!(
                "{e}; create the baseline with `cargo xtask bless <id>`"
            ));
        }
    };
    let new = summary_table(keys, &out.summary);
    match compare(&baseline, &new, tol) {
        Ok(detail) => Outcome {
            name,
            status: Status::Pass,
            detail,
        },
        Err(detail) => fail(format!(
            "{detail}; if the change is intended, re-bless with `cargo xtask bless <id>` and commit"
        )),
    }
}

const NUMERIC: [&str; 3] = ["estimate", "lower", "upper"];

fn compare(old: &CsvTable, new: &CsvTable, tol: Tolerance) -> Result<String, String> {
    if old.header != new.header {
        return Err(format!(
            "columns changed: {:?} -> {:?}",
            old.header, new.header
        ));
    }
    if old.rows.len() != new.rows.len() {
        return Err(format!(
            "{} rows -> {} rows",
            old.rows.len(),
            new.rows.len()
        ));
    }
    let mut worst = 0.0f64;
    for (i, (o, n)) in old.rows.iter().zip(&new.rows).enumerate() {
        for (c, col) in old.header.iter().enumerate() {
            if !NUMERIC.contains(&col.as_str()) {
                if o[c] != n[c] {
                    return Err(format!("row {}: {col} `{}` -> `{}`", i + 2, o[c], n[c]));
                }
                continue;
            }
            match (o[c].parse::<f64>(), n[c].parse::<f64>()) {
                (Ok(a), Ok(b)) => {
                    let excess = (a - b).abs() - (tol.abs + tol.rel * a.abs());
                    if excess > 0.0 {
                        return Err(format!(
                            "row {} ({} {}): {col} {a} -> {b}, beyond abs {} + rel {}",
                            i + 2,
                            o[0],
                            o.get(old.header.len() - 6).map_or("", String::as_str),
                            tol.abs,
                            tol.rel
                        ));
                    }
                    worst = worst.max((a - b).abs());
                }
                _ if o[c] == n[c] => {}
                _ => return Err(format!("row {}: {col} `{}` -> `{}`", i + 2, o[c], n[c])),
            }
        }
    }
    Ok(format!(
        "{} rows within abs {} + rel {} (largest change {worst:e})",
        old.rows.len(),
        tol.abs,
        tol.rel
    ))
}

/// Every paper check of `exp` on a run.
pub fn paper_checks(exp: &crate::load::Experiment, out: &RunOutput) -> Vec<Outcome> {
    exp.spec
        .checks
        .iter()
        .map(|c| evaluate(c, &out.keys, out, exp.spec.level))
        .collect()
}

/// Writes `checks.csv` (check, status, detail).
pub fn write_outcomes(path: &Path, outcomes: &[Outcome]) -> crate::error::Result<()> {
    let csv_err = |source| crate::error::BenchError::Csv {
        path: path.to_path_buf(),
        source,
    };
    let mut w = csv::Writer::from_path(path).map_err(csv_err)?;
    w.write_record(["check", "status", "detail"])
        .map_err(csv_err)?;
    for o in outcomes {
        w.write_record([o.name.as_str(), o.status.label(), o.detail.as_str()])
            .map_err(csv_err)?;
    }
    w.flush().map_err(crate::error::io_err(path))
}
