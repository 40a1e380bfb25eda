//! `cargo xtask report`: one static HTML page for the whole workspace, built from
//! the committed `results/` or from a run directory: per paper and experiment the
//! figures, the paper's claims with their status and reasons, and what produced them;
//! first a count of experiments and checks per paper. No script beyond one `onerror`
//! attribute per image (it marks a broken image for the browser check in CI) and no
//! network: the page and its copied images open from the file system.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::catalog::{baseline_dir, experiment_ids, resolve, run_dir};
use crate::checks::{CheckSpec, quote};
use crate::committed;
use crate::error::{Result, io_err};
use crate::layout::{ColumnSpec, TableSpec};
use crate::plan::{Experiment, Scale};
use crate::select::{OneOrMany, Scalar};
use crate::spec::ExperimentSpec;
use crate::table::read_csv;

/// Where the report reads each experiment's outputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The committed baselines: `results/<id>/paper/` where it exists, else the ci
    /// baseline `results/<id>/`.
    Committed,
    /// A run at this scale, `runs/<id>/<scale>/`.
    Runs(Scale),
}

impl Source {
    /// The directory shown for `id`, and the other committed scale's (the ci
    /// baseline beside a paper-scale one), whose verdicts are compared.
    fn dirs(self, root: &Path, id: &str) -> (PathBuf, Option<PathBuf>) {
        match self {
            Source::Committed => {
                let (paper, ci) = (
                    baseline_dir(root, id, Scale::Paper),
                    baseline_dir(root, id, Scale::Ci),
                );
                match paper.join("checks.csv").is_file() {
                    true => (paper, Some(ci)),
                    false => (ci, None),
                }
            }
            Source::Runs(scale) => (run_dir(root, id, scale), None),
        }
    }
}

/// "paper scale, 30 replicates" from a manifest.
fn scale_label(m: &serde_json::Value) -> String {
    let r = m["replicates"].as_u64().unwrap_or(0);
    format!(
        "{} scale, {r} replicate{}",
        m["scale"].as_str().unwrap_or("?"),
        if r == 1 { "" } else { "s" }
    )
}

/// The checks of a `checks.csv`.
fn read_checks(path: &Path) -> Result<Vec<Check>> {
    let table = read_csv(path)?;
    let col = |name: &str| table.header.iter().position(|h| h == name);
    let (ci, ki, si, di) = (col("check"), col("kind"), col("status"), col("detail"));
    Ok(table
        .rows
        .iter()
        .map(|r| {
            let get = |i: Option<usize>| i.and_then(|i| r.get(i)).cloned().unwrap_or_default();
            Check {
                claim: get(ci),
                kind: get(ki),
                status: get(si),
                detail: get(di),
            }
        })
        .collect())
}

/// What a built report holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Built {
    /// The page.
    pub page: PathBuf,
    /// The experiments listed (all of `experiments/`).
    pub experiments: Vec<String>,
    /// The experiments that had no outputs to show.
    pub missing: Vec<String>,
}

/// One check as `checks.csv` holds it.
struct Check {
    claim: String,
    /// "paper" or "derived" ([`crate::checks::ClaimKind`]).
    kind: String,
    status: String,
    detail: String,
}

/// Pass, known-deviation and fail counts of the experiments shown at one scale.
#[derive(Default, Clone, Copy)]
struct Counts {
    experiments: usize,
    passed: usize,
    known: usize,
    failed: usize,
}

/// Text made safe for HTML.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

const STYLE: &str = "body{font-family:sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;color:#222}\
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.25em .5em;vertical-align:top;text-align:left}\
.pass{background:#e6f4e6}.known{background:#fff4d6}.fail{background:#fbe0e0}\
img{max-width:100%;border:1px solid #eee;margin:.5em 0}.meta{color:#666;font-size:.9em}\
details{margin:.3em 0}\
.contents{position:sticky;top:0;background:#fff;border-bottom:1px solid #ccc;padding:.4em 0;z-index:1;font-size:.9em}\
.contents span{padding:0 .3em}.layout td small{color:#555}";

/// The columns of `summary.csv` that hold a row's value, not its identity.
const VALUE_COLUMNS: [&str; 6] = ["estimate", "se", "lower", "upper", "n", "sd"];

/// The caption of a table in a paper's layout (the lines of its `<name>.md` after
/// the `|` rows), as a paragraph.
fn markdown_caption(md: &str) -> String {
    let caption: Vec<String> = md
        .lines()
        .filter(|l| !l.starts_with('|') && !l.trim().is_empty())
        .map(|l| escape(l.trim()))
        .collect();
    match caption.is_empty() {
        true => String::new(),
        false => format!("<p class=\"meta\">{}</p>\n", caption.join(" ")),
    }
}

/// The numbers a paper (or PAPERS.md's derivation from it) gives beside ours: for
/// every `near` check, each selected row of `summary.csv` with the reference value,
/// our estimate, its Monte-Carlo standard error se = sd/√n over the replicates, and
/// the difference (ours − reference)/se. Empty when the experiment has no `near`
/// check besides those its tables show passing in their cells (`used`).
fn reference_table(spec: &ExperimentSpec, dir: &Path, used: &[String]) -> Result<String> {
    use crate::checks::Assertion;
    let near: Vec<_> = spec
        .checks
        .iter()
        .filter(|c| !used.contains(&c.claim))
        .filter_map(|c| match &c.assert {
            Assertion::Near(n) => Some(n),
            _ => None,
        })
        .collect();
    if near.is_empty() {
        return Ok(String::new());
    }
    let summary = read_csv(&dir.join("summary.csv"))?;
    let at = |name: &str| summary.header.iter().position(|h| h == name);
    let number = |row: &[String], name: &str| {
        at(name)
            .and_then(|i| row.get(i))
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(f64::NAN)
    };
    let mut html = String::from(
        "<table><tr><th>quantity</th><th>row</th><th>reference</th><th>ours</th><th>MC se</th><th>(ours − reference) / se</th><th>tolerance</th></tr>\n",
    );
    for n in near {
        let (quantity, sel, value) = (&n.quantity, &n.rows, n.value);
        let allowed = n.describe_allowance();
        for row in &summary.rows {
            let cols: Vec<(&str, String)> = summary
                .header
                .iter()
                .zip(row)
                .filter(|(h, _)| !VALUE_COLUMNS.contains(&h.as_str()))
                .map(|(h, v)| (h.as_str(), v.clone()))
                .collect();
            let is_quantity = cols.iter().any(|(h, v)| *h == "quantity" && v == quantity);
            if !is_quantity || !crate::select::selected(&cols, sel) {
                continue;
            }
            let (estimate, sd, n) = (number(row, "estimate"), number(row, "sd"), number(row, "n"));
            let se = sd / n.sqrt();
            let identity: Vec<String> = cols
                .iter()
                .filter(|(h, v)| *h != "quantity" && !v.is_empty())
                .map(|(h, v)| format!("{h} {v}"))
                .collect();
            let _ = writeln!(
                html,
                "<tr><td>{}</td><td>{}</td><td>{value}</td><td>{}</td><td>{}</td><td>{}</td><td>{allowed}</td></tr>",
                escape(quantity),
                escape(&identity.join(", ")),
                crate::select::short(estimate),
                crate::select::short(se),
                crate::select::short((estimate - value) / se),
            );
        }
    }
    html.push_str("</table>\n");
    Ok(format!(
        "<details open><summary>the paper's numbers beside ours</summary>{html}</details>\n"
    ))
}

/// The claims whose verdict differs between the scale shown (`shown`) and the ci
/// baseline (`ci`), as a table; empty when none does.
fn verdict_changes(shown: &[Check], ci: &[Check]) -> String {
    let rows: Vec<String> = shown
        .iter()
        .filter_map(|k| {
            let at_ci = ci.iter().find(|c| c.claim == k.claim)?;
            (at_ci.status != k.status).then(|| {
                format!(
                    "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
                    escape(&k.claim),
                    escape(&at_ci.status),
                    escape(&k.status)
                )
            })
        })
        .collect();
    match rows.is_empty() {
        true => "<p class=\"meta\">Every claim has the same verdict at ci scale.</p>\n".into(),
        false => format!(
            "<table><tr><th>claim whose verdict changes with the scale</th><th>ci</th><th>shown</th></tr>\n{}\n</table>\n",
            rows.join("\n")
        ),
    }
}

/// The experiment's figures (copied to `<out>/img/<id>/`) and its tables with their
/// cells' verdicts ([`verdict_table`]; the claims they show go to `used`), each
/// captioned with the scale `label` they were computed at.
fn figures_and_tables(
    html: &mut String,
    (s, dir, checks): (&ExperimentSpec, &Path, &[Check]),
    out: &Path,
    (id, label): (&str, &str),
    used: &mut Vec<String>,
) -> Result<()> {
    let img = out.join("img").join(id);
    std::fs::create_dir_all(&img).map_err(io_err(&img))?;
    for plot in &s.plots {
        let file = format!("{}.png", plot.kind().name());
        let from = dir.join(&file);
        if from.is_file() {
            std::fs::copy(&from, img.join(&file)).map_err(io_err(&from))?;
            let _ = writeln!(
                html,
                "<figure><a href=\"img/{id}/{file}\"><img src=\"img/{id}/{file}\" alt=\"{id} {file}\" onerror=\"this.setAttribute('data-broken','1')\"></a><figcaption class=\"meta\">{file}: {label}</figcaption></figure>"
            );
        }
    }
    for t in &s.tables {
        let path = dir.join(format!("{}.md", t.name));
        if let Ok(md) = std::fs::read_to_string(&path) {
            let _ = writeln!(html, "<p class=\"meta\">{}: {label}</p>", t.name);
            html.push_str(&verdict_table((s, t), (dir, &md), checks, used)?);
            html.push_str(&markdown_caption(&md));
        }
    }
    Ok(())
}

/// The check of `s` that gives the paper's value of one cell of a table: of the
/// column's quantity, selecting the cell's row (its table-row key `values` and the
/// column's `where`), naming every table-row key; the most specific.
fn cell_claim<'a>(
    s: &'a ExperimentSpec,
    table: &TableSpec,
    col: &ColumnSpec,
    values: &[String],
) -> Option<&'a CheckSpec> {
    let mut cols: Vec<(&str, String)> = vec![("quantity", col.quantity.clone())];
    cols.extend(
        table
            .rows
            .iter()
            .map(String::as_str)
            .zip(values.iter().cloned()),
    );
    for (k, v) in &col.rows_where {
        if let (OneOrMany::One(v), false) = (v, table.rows.contains(k)) {
            cols.push((k.as_str(), scalar_text(v)));
        }
    }
    s.checks
        .iter()
        .filter_map(|c| Some((c, c.assert.kind().paper_value()?)))
        .filter(|(_, p)| {
            p.quantity == col.quantity
                && table.rows.iter().all(|k| p.rows.contains_key(k))
                && crate::select::selected(&cols, p.rows)
        })
        .max_by_key(|(_, p)| p.rows.len())
        .map(|(c, _)| c)
}

/// A selector's value as a column holds it: `15` for 15.0.
fn scalar_text(v: &Scalar) -> String {
    match v {
        Scalar::Text(t) => t.clone(),
        Scalar::Number(n) => n.to_string(),
    }
}

/// A table in the paper's layout (`tables:`, its cells as `<name>.md` writes them,
/// its numbers from `<name>.csv`) with each cell's verdict inside it: a cell whose paper value a check tests is coloured by that
/// check's status (pass, known deviation, fail), with z = (ours − paper)/se below its
/// "ours (paper)" and the claim on hover; the claims shown so are added to `used`.
fn verdict_table(
    (s, table): (&ExperimentSpec, &TableSpec),
    (dir, md): (&Path, &str),
    checks: &[Check],
    used: &mut Vec<String>,
) -> Result<String> {
    let csv = read_csv(&dir.join(format!("{}.csv", table.name)))?;
    let at = |name: &str| csv.header.iter().position(|h| h == name);
    let (column, ours, se, paper) = (at("column"), at("ours"), at("se"), at("paper"));
    let keys = table.rows.len();
    let number = |row: &[String], i: Option<usize>| {
        i.and_then(|i| row.get(i))
            .and_then(|v| v.parse::<f64>().ok())
    };
    let mut rows: Vec<Vec<String>> = Vec::new();
    for r in &csv.rows {
        let values = r[..keys.min(r.len())].to_vec();
        if !rows.contains(&values) {
            rows.push(values);
        }
    }
    let label = |v: &str| escape(s.labels.get(v).map_or(v, String::as_str));
    let mut html = String::from("<table class=\"layout\"><tr>");
    for k in table
        .rows
        .iter()
        .chain(table.columns.iter().map(|c| &c.header))
    {
        let _ = write!(html, "<th>{}</th>", label(k));
    }
    html.push_str("</tr>\n");
    let d = table.decimals;
    let md_rows: Vec<Vec<&str>> = md
        .lines()
        .filter(|l| l.starts_with('|'))
        .skip(2)
        .map(|l| {
            l.trim()
                .trim_matches('|')
                .split('|')
                .map(str::trim)
                .collect()
        })
        .collect();
    for (i, values) in rows.iter().enumerate() {
        html.push_str("<tr>");
        for v in values {
            let _ = write!(html, "<td>{}</td>", label(v));
        }
        for (c, col) in table.columns.iter().enumerate() {
            let Some(r) = csv.rows.iter().find(|r| {
                r[..keys.min(r.len())] == values[..]
                    && column.and_then(|i| r.get(i)) == Some(&col.header)
            }) else {
                html.push_str("<td></td>");
                continue;
            };
            let (o, e, p) = (number(r, ours), number(r, se), number(r, paper));
            // The cell as the Markdown table writes it ("ours (paper)", "mean, sd s").
            let text = md_rows
                .get(i)
                .and_then(|cells| cells.get(keys + c))
                .map_or_else(
                    || o.map_or(String::new(), |o| format!("{o:.d$}")),
                    |t| escape(t),
                );
            let claim = cell_claim(s, table, col, values);
            let verdict = claim.and_then(|c| checks.iter().find(|k| k.claim == c.claim));
            match verdict {
                Some(k) => {
                    // A passing cell's claim is shown here alone; a known deviation
                    // or failure is listed below too, with its reason and numbers.
                    if k.status == "pass" {
                        used.push(k.claim.clone());
                    }
                    let z = match (o, e, p) {
                        (Some(o), Some(e), Some(p)) if e > 0.0 => format!("z {:+.1}", (o - p) / e),
                        _ => String::new(),
                    };
                    let _ = write!(
                        html,
                        "<td class=\"{}\" title=\"{}: {}\">{text}<br><small>{z}</small></td>",
                        status_class(&k.status),
                        escape(&k.claim),
                        escape(&k.status)
                    );
                }
                None => {
                    let _ = write!(html, "<td>{text}</td>");
                }
            }
        }
        html.push_str("</tr>\n");
    }
    html.push_str("</table>\n");
    if html.contains("<td class=") {
        html.push_str(
            "<p class=\"meta\">Cells are \"ours (paper)\"; a coloured cell is the check of \
             the paper's value (hover for its claim): <span class=\"pass\">pass</span>, \
             <span class=\"known\">known deviation</span> or <span class=\"fail\">fail</span>, \
             the last two listed again below with their reasons and numbers; z = (ours − \
             paper) / se, se the Monte-Carlo standard error over the replicates.</p>\n",
        );
    }
    Ok(html)
}

/// The CSS class of a check's status.
fn status_class(status: &str) -> &'static str {
    match status {
        "pass" => "pass",
        "known deviation" => "known",
        _ => "fail",
    }
}

/// The experiment's claims not shown in a table's cells (`used`), grouped: the
/// paper's claims, those derived from the paper, and the known deviations with their
/// measured reasons at the shown scale; every check counted into `c`.
fn claims_table(
    html: &mut String,
    checks: &[Check],
    (s, shown_scale): (&ExperimentSpec, &str),
    used: &[String],
    c: &mut Counts,
) {
    for k in checks {
        match status_class(&k.status) {
            "pass" => c.passed += 1,
            "known" => c.known += 1,
            _ => c.failed += 1,
        }
    }
    let rest: Vec<&Check> = checks.iter().filter(|k| !used.contains(&k.claim)).collect();
    // A known deviation is its own group, whoever's claim it is.
    let group_of = |k: &Check| match (k.status.as_str(), k.kind.as_str()) {
        ("known deviation", _) => 2,
        (_, "derived") => 1,
        _ => 0,
    };
    let headings = [
        "The paper's claims",
        "Derived from the paper",
        "Known deviations (each with its measured reason)",
    ];
    for (g, heading) in headings.iter().enumerate() {
        let group: Vec<&&Check> = rest.iter().filter(|k| group_of(k) == g).collect();
        if group.is_empty() {
            continue;
        }
        let _ = writeln!(html, "<h4>{heading} ({})</h4>", group.len());
        html.push_str(
            "<table><tr><th>claim</th><th>whose</th><th>status</th><th>measured</th></tr>\n",
        );
        for k in group {
            let class = status_class(&k.status);
            let whose = match k.kind.as_str() {
                "derived" => "derived from the paper",
                _ => "the paper's",
            };
            // A known deviation shows its measured reason beside its status.
            let why = s
                .checks
                .iter()
                .find(|c| c.claim == k.claim)
                .and_then(|c| c.expected_to_differ.as_ref())
                .and_then(|d| d.at(shown_scale))
                .filter(|_| class == "known")
                .map(|why| format!("<br><small>{}</small>", escape(why)))
                .unwrap_or_default();
            let _ = writeln!(
                html,
                "<tr class=\"{class}\"><td>{}</td><td>{whose}</td><td>{}{why}</td><td><details><summary>numbers</summary>{}</details></td></tr>",
                escape(&k.claim),
                escape(&k.status),
                escape(&k.detail)
            );
        }
        html.push_str("</table>\n");
    }
}

/// The page's head and its summary table: experiments and verdicts per paper and
/// scale, and over all papers per scale.
fn summary(source: Source, counts: &BTreeMap<(String, String), Counts>) -> String {
    let mut page = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>xai-workspace report</title><style>{STYLE}</style></head><body>\n<h1>xai-workspace: every experiment</h1>\n<p class=\"meta\">From {}. Each claim of a paper is a check: pass, a known deviation (the reason follows its numbers), or a failure. Every figure and table says the scale and replicates it was computed at.</p>\n<h2>Summary</h2>\n<table><tr><th>paper</th><th>scale</th><th>experiments</th><th>passed</th><th>known deviations</th><th>failed</th></tr>\n",
        match source {
            Source::Committed => "the committed results/: the paper-scale baseline (results/&lt;id&gt;/paper/) where one is committed, the ci-scale one otherwise".to_string(),
            Source::Runs(scale) => format!("runs/*/{}", scale.name()),
        }
    );
    // The contents bar, kept at the top: each paper with its verdicts over scales.
    let mut per_paper: BTreeMap<&str, Counts> = BTreeMap::new();
    for ((paper, _), c) in counts {
        let t = per_paper.entry(paper).or_default();
        t.passed += c.passed;
        t.known += c.known;
        t.failed += c.failed;
    }
    let bar: Vec<String> = per_paper
        .iter()
        .map(|(paper, c)| {
            format!(
                "<a href=\"#{paper}\">{paper}</a> <span class=\"pass\">{} pass</span> <span class=\"known\">{} known</span> <span class=\"fail\">{} fail</span>",
                c.passed, c.known, c.failed
            )
        })
        .collect();
    page = page.replacen(
        "<h2>Summary</h2>",
        &format!(
            "<nav class=\"contents\">{}</nav>\n<h2>Summary</h2>",
            bar.join(" · ")
        ),
        1,
    );
    let mut total: BTreeMap<&str, Counts> = BTreeMap::new();
    for ((paper, scale), c) in counts {
        let _ = writeln!(
            page,
            "<tr><td><a href=\"#{paper}\">{paper}</a></td><td>{scale}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            c.experiments, c.passed, c.known, c.failed
        );
        let t = total.entry(scale).or_default();
        t.experiments += c.experiments;
        t.passed += c.passed;
        t.known += c.known;
        t.failed += c.failed;
    }
    for (scale, c) in &total {
        let _ = writeln!(
            page,
            "<tr><th>all</th><th>{scale}</th><th>{}</th><th>{}</th><th>{}</th><th>{}</th></tr>",
            c.experiments, c.passed, c.known, c.failed
        );
    }
    page.push_str("</table>\n");
    page
}

/// The experiment's notes with each `{{…}}` quote replaced by the number of the run
/// shown (committed in `dir` at `scale`), as the check reads them; the text as written,
/// with the reason after it, when the run cannot be read or a quote cannot be filled
/// (which `check` reports as a failure).
fn notes_of_run(exp: &Experiment, scale: &str, dir: &Path) -> String {
    if !exp.spec.notes.contains("{{") {
        return exp.spec.notes.clone();
    }
    let filled = Scale::parse(scale)
        .map_err(|e| e.to_string())
        .and_then(|scale| committed::read(exp, scale, dir).map_err(|e| e.to_string()))
        .and_then(|out| quote::render(&exp.spec.notes, &out));
    match filled {
        Ok(text) => text,
        Err(why) => format!("{}\n(numbers in braces not filled: {why})", exp.spec.notes),
    }
}

/// Builds `<out>/index.html` with the figures copied to `<out>/img/<id>/`.
pub fn build(root: &Path, source: Source, out: &Path) -> Result<Built> {
    let ids = experiment_ids(root)?;
    let mut by_paper: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut counts: BTreeMap<(String, String), Counts> = BTreeMap::new();
    let mut sections: BTreeMap<String, String> = BTreeMap::new();
    let mut missing = Vec::new();
    for id in &ids {
        let exp = resolve(root, id)?;
        let s = &exp.spec;
        let (dir, other) = source.dirs(root, id);
        let mut html = String::new();
        let _ = writeln!(
            html,
            "<section id=\"{id}\"><h3>{} {}: {}</h3><p class=\"meta\"><code>{id}</code>",
            escape(&s.paper),
            escape(&s.figure),
            escape(&s.title)
        );
        let manifest = std::fs::read_to_string(dir.join("manifest.json"))
            .ok()
            .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok());
        let scale = manifest
            .as_ref()
            .and_then(|m| m["scale"].as_str())
            .unwrap_or("not run")
            .to_string();
        let c = counts.entry((s.paper.clone(), scale)).or_default();
        c.experiments += 1;
        if !dir.join("checks.csv").is_file() {
            missing.push(id.clone());
            let _ = writeln!(
                html,
                " · not run: no outputs in <code>{}</code></p></section>",
                escape(&crate::workspace::relative_to(root, &dir))
            );
        } else {
            let label = manifest.as_ref().map(scale_label).unwrap_or_default();
            if let Some(m) = &manifest {
                let _ = write!(
                    html,
                    " · <b>{label}</b> · {} variants · {:.1} s on {} threads · commit {}",
                    m["variants"],
                    m["wall_seconds"].as_f64().unwrap_or(f64::NAN),
                    m["threads"],
                    m["git_commit"]
                        .as_str()
                        .map_or("?", |c| &c[..c.len().min(10)])
                );
            }
            if !s.paper_scale.is_empty() {
                let _ = write!(
                    html,
                    "<br>paper scale against the paper: {}",
                    escape(&s.paper_scale)
                );
            }
            html.push_str("</p>\n");
            let checks = read_checks(&dir.join("checks.csv"))?;
            let mut used = Vec::new();
            figures_and_tables(&mut html, (s, &dir, &checks), out, (id, &label), &mut used)?;
            let shown_scale = manifest
                .as_ref()
                .and_then(|m| m["scale"].as_str())
                .unwrap_or_default();
            claims_table(&mut html, &checks, (s, shown_scale), &used, c);
            if let Some(other) = other.filter(|o| o.join("checks.csv").is_file()) {
                html.push_str(&verdict_changes(
                    &checks,
                    &read_checks(&other.join("checks.csv"))?,
                ));
            }
            html.push_str(&reference_table(s, &dir, &used)?);
            if !s.notes.is_empty() {
                let _ = writeln!(
                    html,
                    "<details><summary>settings and differences from the paper</summary><pre>{}</pre></details>",
                    escape(&notes_of_run(&exp, shown_scale, &dir))
                );
            }
            html.push_str("</section>\n");
        }
        by_paper
            .entry(s.paper.clone())
            .or_default()
            .push(id.clone());
        sections.insert(id.clone(), html);
    }
    let mut page = summary(source, &counts);
    for (paper, list) in &by_paper {
        let _ = writeln!(page, "<h2 id=\"{paper}\">{paper}</h2>");
        for id in list {
            page.push_str(&sections[id]);
        }
    }
    page.push_str("</body></html>\n");
    std::fs::create_dir_all(out).map_err(io_err(out))?;
    let path = out.join("index.html");
    std::fs::write(&path, page).map_err(io_err(&path))?;
    Ok(Built {
        page: path,
        experiments: ids,
        missing,
    })
}
