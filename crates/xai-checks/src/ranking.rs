//! Assertions on rankings: the share of replicates in which some features rank above
//! others (`ranked_above`), places in the mean ranking (`in_top`), agreement with a
//! reference ranking by Spearman's correlation (`rank_agreement`), and a feature's
//! place under two quantities (`rank_moves`).

use serde::Deserialize;

use crate::tolerance::Threshold;

use super::{AssertionKind, Context, Reads, Verdict, nan_min};
use xai_results::output::RunOutput;
use xai_results::select::Selector;
use xai_results::select::{Row, grouped, of_quantity, short, summary_rows, tidy_rows};

/// Direction of a change of rank.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum RankDirection {
    /// To a higher place (a smaller rank number).
    Up,
    /// To a lower place (a larger rank number).
    Down,
}

/// The place of `r` among `group` (1 + the number of rows with a larger estimate).
fn place(group: &[&Row<'_>], r: &Row<'_>) -> usize {
    1 + group
        .iter()
        .filter(|o| o.value.estimate > r.value.estimate)
        .count()
}

/// The verdict for a ranking that met a NaN estimate: it cannot be decided, so the
/// claim (and its negation) fails with a NaN measure.
fn nan_ranking(rows: &[&Row<'_>]) -> Option<Verdict> {
    rows.iter()
        .find(|r| r.value.estimate.is_nan())
        .map(|r| Verdict::no_rows(&format!("{} has no estimate (NaN): no ranking", r.show())))
}

/// In at least `share` of the replicates (e.g. shuffle splits) that have both `this`
/// and `than` rows, every `this` row exceeds every `than` row of the same replicate
/// and context: min over `this` > max over `than` in k of the R replicates compared,
/// with k ≥ share·R in every context. Measured: the smallest share k/R.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RankedAbove {
    /// The quantity.
    pub quantity: String,
    /// The rows expected to rank higher.
    pub this: Selector,
    /// The rows expected to rank lower.
    pub than: Selector,
    /// Share of replicates required: at least share·(replicates).
    pub share: f64,
}

/// The selector of every row.
static EVERY_ROW: Selector = Selector::new();

impl AssertionKind for RankedAbove {
    fn thresholds(&self) -> Vec<Threshold> {
        Threshold::unless("share", self.share, 1.0)
    }

    fn quantities(&self) -> Vec<&String> {
        vec![&self.quantity]
    }

    /// Every row of the quantity: a NaN anywhere in it voids the ranking.
    fn reads(&self) -> Reads<'_> {
        Reads::per_replicate(vec![(&self.quantity, &EVERY_ROW)])
    }

    fn verdict(&self, ctx: &Context<'_>) -> Verdict {
        ranked_above(ctx.out, &self.quantity, &self.this, &self.than, self.share)
    }
}

/// Per replicate and context: min over `this` > max over `than`; holds when, in every
/// context, at least `share` of the replicates order so. Measured: the smallest share
/// of replicates ordered as claimed.
fn ranked_above(out: &RunOutput, q: &str, this: &Selector, than: &Selector, share: f64) -> Verdict {
    let tidy = tidy_rows(out);
    let skip: Vec<&str> = this
        .keys()
        .chain(than.keys())
        .map(String::as_str)
        .chain(["feature"])
        .collect();
    let rows = of_quantity(&tidy, q);
    if let Some(v) = nan_ranking(&rows) {
        return v;
    }
    // (context, replicates ordered as claimed, replicates compared)
    let mut tally: Vec<(String, usize, usize)> = Vec::new();
    for (_, g) in grouped(&rows, &skip) {
        let min_this = g
            .iter()
            .filter(|r| r.matches(this))
            .map(|r| r.value.estimate)
            .fold(f64::INFINITY, f64::min);
        let max_than = g
            .iter()
            .filter(|r| r.matches(than))
            .map(|r| r.value.estimate)
            .fold(f64::NEG_INFINITY, f64::max);
        if min_this.is_infinite() || max_than.is_infinite() {
            continue;
        }
        let context = g[0].context(&skip).join(",");
        let hit = usize::from(min_this > max_than);
        match tally.iter_mut().find(|(c, _, _)| *c == context) {
            Some(t) => {
                t.1 += hit;
                t.2 += 1;
            }
            None => tally.push((context, hit, 1)),
        }
    }
    if tally.is_empty() {
        return Verdict::no_rows("no replicate has both `this` and `than` rows");
    }
    let ok = tally.iter().all(|(_, k, n)| *k as f64 >= share * *n as f64);
    let measured = tally
        .iter()
        .map(|(_, k, n)| *k as f64 / *n as f64)
        .fold(f64::INFINITY, nan_min);
    let detail = tally
        .iter()
        .map(|(c, k, n)| format!("{c}: {k} of {n} replicates (at least {share} required)"))
        .collect::<Vec<_>>()
        .join("; ");
    Verdict::new(ok, measured, detail)
}

/// Every selected row's estimate is among the `k` largest estimates of its quantity
/// in its context (model and grid values), over all features: its place, 1 + the
/// number of rows with a larger estimate, is at most k. Measured: the worst place.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InTop {
    /// The quantity.
    pub quantity: String,
    /// The rows.
    #[serde(rename = "where")]
    pub rows: Selector,
    /// How many top places count.
    pub k: usize,
}

impl AssertionKind for InTop {
    fn thresholds(&self) -> Vec<Threshold> {
        Vec::new()
    }

    fn quantities(&self) -> Vec<&String> {
        vec![&self.quantity]
    }

    fn reads(&self) -> Reads<'_> {
        Reads::summary()
    }

    fn verdict(&self, ctx: &Context<'_>) -> Verdict {
        in_top(ctx.out, &self.quantity, &self.rows, self.k)
    }
}

/// Every selected row ranks within the top `k` of its context (1 + the number of
/// rows of the context with a larger estimate). Measured: the worst rank.
fn in_top(out: &RunOutput, q: &str, sel: &Selector, k: usize) -> Verdict {
    let summary = summary_rows(out);
    let rows = of_quantity(&summary, q);
    if let Some(v) = nan_ranking(&rows) {
        return v;
    }
    let mut worst = 0usize;
    let mut parts = Vec::new();
    for (_, g) in grouped(&rows, &["feature"]) {
        for r in g.iter().filter(|r| r.matches(sel)) {
            let rank = place(&g, r);
            worst = worst.max(rank);
            parts.push(format!(
                "{} rank {rank} of {}",
                r.get("feature").unwrap_or(""),
                g.len()
            ));
        }
    }
    if parts.is_empty() {
        return Verdict::no_rows("no rows match the selection");
    }
    Verdict::new(
        worst <= k,
        worst as f64,
        format!("top {k} required: {}", parts.join("; ")),
    )
}

/// Every selected row ranks higher (`up`, nearer 1) or lower (`down`) among the
/// features of its context under `quantity` than under `from_quantity` (ranks of the
/// mean over replicates, 1 = largest; e.g. "CID lowers Itching's rank relative to
/// PFI", cid2021 §3.2). Measured: the smallest move in the claimed direction, in
/// places (negative when a row moved the other way).
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RankMoves {
    /// The quantity whose ranking is compared.
    pub quantity: String,
    /// The quantity whose ranking it is compared with.
    pub from_quantity: String,
    /// The rows (features).
    #[serde(rename = "where")]
    pub rows: Selector,
    /// `up` or `down`.
    pub direction: RankDirection,
}

impl AssertionKind for RankMoves {
    fn thresholds(&self) -> Vec<Threshold> {
        Vec::new()
    }

    fn quantities(&self) -> Vec<&String> {
        vec![&self.quantity, &self.from_quantity]
    }

    fn reads(&self) -> Reads<'_> {
        Reads::summary()
    }

    fn verdict(&self, ctx: &Context<'_>) -> Verdict {
        rank_moves(
            ctx.out,
            &self.quantity,
            &self.from_quantity,
            &self.rows,
            self.direction,
        )
    }
}

/// Every selected row's rank (1 = largest mean, among the features of its context)
/// under `q` is above (`up`) or below (`down`) its rank under `from`. Measured: the
/// smallest move in the claimed direction, in places (negative when a row moved the
/// other way).
fn rank_moves(
    out: &RunOutput,
    q: &str,
    from: &str,
    sel: &Selector,
    direction: RankDirection,
) -> Verdict {
    let summary = summary_rows(out);
    let both: Vec<&Row<'_>> = [q, from]
        .iter()
        .flat_map(|quantity| of_quantity(&summary, quantity))
        .collect();
    if let Some(v) = nan_ranking(&both) {
        return v;
    }
    let rank_in = |quantity: &str| -> Vec<(String, String, usize)> {
        let rows = of_quantity(&summary, quantity);
        grouped(&rows, &["feature"])
            .into_iter()
            .flat_map(|(_, g)| {
                let context = g[0].context(&["feature", "quantity"]).join(",");
                g.iter()
                    .filter(|r| r.matches(sel))
                    .map(|r| {
                        let rank = 1 + g
                            .iter()
                            .filter(|o| o.value.estimate > r.value.estimate)
                            .count();
                        (
                            context.clone(),
                            r.get("feature").unwrap_or("").to_string(),
                            rank,
                        )
                    })
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    let (after, before) = (rank_in(q), rank_in(from));
    let mut worst = f64::INFINITY;
    let mut parts = Vec::new();
    for (context, feature, to) in &after {
        let Some((_, _, was)) = before.iter().find(|(c, f, _)| c == context && f == feature) else {
            continue;
        };
        let moved = *was as f64 - *to as f64;
        let towards = match direction {
            RankDirection::Up => moved,
            RankDirection::Down => -moved,
        };
        worst = nan_min(worst, towards);
        parts.push(format!(
            "{feature}: rank {was} under {from}, {to} under {q}"
        ));
    }
    if parts.is_empty() {
        return Verdict::no_rows("no selected feature has both rankings");
    }
    Verdict::new(worst > 0.0, worst, parts.join("; "))
}

/// Ranks 1..n of `v` (ties share their mean rank).
pub fn ranks(v: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..v.len()).collect();
    order.sort_by(|&a, &b| v[a].total_cmp(&v[b]));
    let mut out = vec![0.0; v.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && v[order[j + 1]] == v[order[i]] {
            j += 1;
        }
        for &o in &order[i..=j] {
            out[o] = (i + j) as f64 / 2.0 + 1.0;
        }
        i = j + 1;
    }
    out
}

/// Spearman's rank correlation: the Pearson correlation of the ranks.
pub fn spearman(a: &[f64], b: &[f64]) -> f64 {
    let (ra, rb) = (ranks(a), ranks(b));
    let n = ra.len() as f64;
    let (ma, mb) = (ra.iter().sum::<f64>() / n, rb.iter().sum::<f64>() / n);
    let cov: f64 = ra.iter().zip(&rb).map(|(x, y)| (x - ma) * (y - mb)).sum();
    let va: f64 = ra.iter().map(|x| (x - ma).powi(2)).sum();
    let vb: f64 = rb.iter().map(|y| (y - mb).powi(2)).sum();
    cov / (va * vb).sqrt()
}

/// Spearman's rank correlation over features between the estimates of `quantity` and
/// of `reference` exceeds that between `than_quantity` and `reference`, in every
/// context (model and grid values): ρ_s(q, ref) > ρ_s(than, ref), ρ_s the Pearson
/// correlation of the ranks ([`spearman`]). Measured: the smallest difference of the
/// two correlations.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RankAgreement {
    /// The quantity expected to agree better with the reference.
    pub quantity: String,
    /// The quantity expected to agree less.
    pub than_quantity: String,
    /// The reference ranking.
    pub reference: String,
}

impl AssertionKind for RankAgreement {
    fn thresholds(&self) -> Vec<Threshold> {
        Vec::new()
    }

    fn quantities(&self) -> Vec<&String> {
        vec![&self.quantity, &self.than_quantity, &self.reference]
    }

    fn reads(&self) -> Reads<'_> {
        Reads::summary()
    }

    fn verdict(&self, ctx: &Context<'_>) -> Verdict {
        rank_agreement(
            ctx.out,
            &self.quantity,
            &self.than_quantity,
            &self.reference,
        )
    }
}

/// Spearman(q, reference) > Spearman(than, reference) over the features of each
/// context. Measured: the smallest difference of the two correlations.
fn rank_agreement(out: &RunOutput, q: &str, than: &str, reference: &str) -> Verdict {
    let summary = summary_rows(out);
    let all: Vec<&Row<'_>> = summary.iter().collect();
    let read: Vec<&Row<'_>> = [q, than, reference]
        .iter()
        .flat_map(|name| of_quantity(&summary, name))
        .collect();
    if let Some(v) = nan_ranking(&read) {
        return v;
    }
    let mut worst = f64::INFINITY;
    let mut parts = Vec::new();
    for (context, g) in grouped(&all, &["quantity", "feature"]) {
        let of = |name: &str| -> Vec<(&str, f64)> {
            g.iter()
                .filter(|r| r.get("quantity") == Some(name))
                .map(|r| (r.get("feature").unwrap_or(""), r.value.estimate))
                .collect()
        };
        let ref_values = of(reference);
        let paired = |name: &str| {
            let values = of(name);
            let (mut a, mut b) = (Vec::new(), Vec::new());
            for (f, v) in &values {
                if let Some((_, r)) = ref_values.iter().find(|(g, _)| g == f) {
                    a.push(*v);
                    b.push(*r);
                }
            }
            (a.len() >= 3).then(|| spearman(&a, &b))
        };
        let (Some(rq), Some(rt)) = (paired(q), paired(than)) else {
            continue;
        };
        worst = nan_min(worst, rq - rt);
        parts.push(format!(
            "{context}: Spearman with {reference} {} ({q}) vs {} ({than})",
            short(rq),
            short(rt),
        ));
    }
    if parts.is_empty() {
        return Verdict::no_rows("need at least three features with all three quantities");
    }
    Verdict::new(worst > 0.0, worst, parts.join("; "))
}
