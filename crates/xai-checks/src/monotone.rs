//! The `monotone` assertion: a trend along a grid key beyond Monte-Carlo error.

use serde::Deserialize;

use crate::tolerance::Threshold;
use xai_core::Estimate;
use xai_core::inference::t_quantile;

use super::Direction;
use super::{AssertionKind, Context, Reads, Verdict, at_least, nan_min};
use xai_results::output::RunOutput;
use xai_results::select::Selector;
use xai_results::select::{Row, of_quantity, short, summary_rows};

/// Along the grid key `along`, the estimate strictly decreases (or increases) in
/// every group of the other columns (with `share`, in at least that share of the
/// groups), each step by more than the combined standard error √(se₁² + se₂²) of the
/// two estimates. Measured: the smallest step minus its margin (with `share` < 1: the
/// share of groups that step).
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Monotone {
    /// The quantities.
    pub quantities: Vec<String>,
    /// The rows.
    #[serde(rename = "where")]
    pub rows: Selector,
    /// The numeric grid key ordered along.
    pub along: String,
    /// `decreasing` or `increasing`.
    pub direction: Direction,
    /// Share of the groups that must follow the trend (default 1: every group;
    /// molnar2023 §4.3 "in most cases").
    #[serde(default = "super::default_share")]
    pub share: f64,
}

impl AssertionKind for Monotone {
    fn thresholds(&self) -> Vec<Threshold> {
        Threshold::unless("share", self.share, 1.0)
    }

    fn quantities(&self) -> Vec<&String> {
        self.quantities.iter().collect()
    }

    /// Its quantities' curves too: a `monotone` on an ICE quantity keeps them.
    fn reads(&self) -> Reads<'_> {
        Reads::curves(self.quantities.iter().map(|q| (q, &self.rows)).collect())
    }

    fn verdict(&self, ctx: &Context<'_>) -> Verdict {
        monotone(
            ctx.out,
            &self.quantities,
            &self.rows,
            (&self.along, self.direction, self.share),
            ctx.level,
        )
    }
}

/// Along the grid key `along`, each step of the estimate in `direction` exceeds the
/// combined standard error √(se₁² + se₂²) of its two ends, in every group of the other
/// columns, or with `share` < 1 in at least that share of the groups. Measured: the
/// smallest step minus its margin (with `share` < 1: the share of groups that step).
fn monotone(
    out: &RunOutput,
    quantities: &[String],
    sel: &Selector,
    (along, direction, share): (&str, Direction, f64),
    level: f64,
) -> Verdict {
    let summary = summary_rows(out);
    let mut worst = f64::INFINITY;
    let (mut stepping, mut groups_seen) = (0usize, 0usize);
    let mut parts = Vec::new();
    for q in quantities {
        let chosen: Vec<_> = of_quantity(&summary, q)
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
            return Verdict::no_rows(&format!("no rows of {q} match the selection"));
        }
        if let Some((_, g)) = groups.iter().find(|(_, g)| g.len() < 2) {
            return Verdict::no_rows(&format!(
                "{q} {}: one value along {along}, no trend to judge",
                g[0].get("feature").unwrap_or("")
            ));
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
            let slack = g
                .windows(2)
                .map(|w| {
                    let step = match direction {
                        Direction::Decreasing => w[0].value.estimate - w[1].value.estimate,
                        Direction::Increasing => w[1].value.estimate - w[0].value.estimate,
                    };
                    step - (se(&w[0].value).powi(2) + se(&w[1].value).powi(2)).sqrt()
                })
                .fold(f64::INFINITY, nan_min);
            worst = nan_min(worst, slack);
            groups_seen += 1;
            stepping += usize::from(slack > 0.0);
            let values: Vec<String> = g
                .iter()
                .map(|r| format!("{}={}", r.get(along).unwrap_or(""), short(r.value.estimate)))
                .collect();
            parts.push(format!(
                "{}{q} {}: {}",
                if slack > 0.0 { "" } else { "NOT " },
                g[0].label(&[along]),
                values.join(" ")
            ));
        }
    }
    if share < 1.0 {
        let needed = at_least(share, groups_seen);
        return Verdict::new(
            stepping >= needed,
            stepping as f64 / groups_seen as f64,
            format!(
                "{stepping} of {groups_seen} groups step (at least {needed} required): {}",
                parts.join("; ")
            ),
        );
    }
    Verdict::new(worst > 0.0, worst, parts.join("; "))
}
