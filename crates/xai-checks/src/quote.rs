//! Numbers a marker quotes from the run. An `expected_to_differ` reason writes a
//! number of the run as `{{quantity: key=value, ...}}` (the estimate of the one
//! summary row the selection picks) or `{{quantity: key=value, ... | field}}` (its
//! `se`, `lower`, `upper` or `sd`), and the reason is shown with the run's own number
//! in its place: a quoted number cannot go stale when the baseline is blessed again,
//! and a quote whose row the run lacks fails the check.

use std::collections::BTreeMap;

use xai_results::output::RunOutput;
use xai_results::select::{OneOrMany, Scalar, Selector, of_quantity, short, summary_rows};

/// `text` with every `{{…}}` quote replaced by the run's number, or why a quote cannot
/// be read (its syntax, or the number of rows it picks when that is not one).
pub fn render(text: &str, out: &RunOutput) -> Result<String, String> {
    let mut rendered = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        rendered.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after
            .find("}}")
            .ok_or_else(|| format!("a quote opened with {{{{ is not closed: {rest}"))?;
        rendered.push_str(&number(&after[..end], out)?);
        rest = &after[end + 2..];
    }
    rendered.push_str(rest);
    Ok(rendered)
}

/// One quote's number: `quantity: key=value, ... [| field]`.
fn number(quote: &str, out: &RunOutput) -> Result<String, String> {
    let (picked, field) = match quote.split_once('|') {
        Some((p, f)) => (p, f.trim()),
        None => (quote, "estimate"),
    };
    let (quantity, pairs) = picked.split_once(':').ok_or_else(|| {
        format!("the quote {{{{{quote}}}}} names no quantity: write `quantity: key=value, ...`")
    })?;
    let mut selector: Selector = BTreeMap::new();
    for pair in pairs.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (k, v) = pair
            .split_once('=')
            .ok_or_else(|| format!("`{pair}` in the quote {{{{{quote}}}}} is not key=value"))?;
        selector.insert(
            k.trim().to_string(),
            OneOrMany::One(Scalar::Text(v.trim().to_string())),
        );
    }
    let summary = summary_rows(out);
    let rows: Vec<_> = of_quantity(&summary, quantity.trim())
        .into_iter()
        .filter(|r| r.matches(&selector))
        .collect();
    let [row] = rows.as_slice() else {
        return Err(format!(
            "the quote {{{{{quote}}}}} picks {} rows of the run, not one: name the keys that pick it",
            rows.len()
        ));
    };
    let v = &row.value;
    let value = match field {
        "estimate" => v.estimate,
        "se" => v.se,
        "lower" => v.lower,
        "upper" => v.upper,
        "sd" => v.se * (v.n as f64).sqrt(),
        other => {
            return Err(format!(
                "the quote {{{{{quote}}}}} asks for `{other}`: estimate, se, lower, upper or sd"
            ));
        }
    };
    Ok(short(value))
}
