//! What a run must keep of its rows for its checks and figures: the per-replicate
//! rows ([`NeededRows`]) of a run that writes no `tidy.csv`, and the kept ICE curves
//! ([`NeededCurves`]) of a paper-scale baseline too large to commit whole. Each
//! assertion kind declares what it reads ([`crate::checks::AssertionKind::reads`]),
//! each plot kind the replicate it draws alone.

use crate::plan::Experiment;
use crate::select::Selector;
use crate::table::{CurveRow, TidyRow};

/// The kept ICE curves the checks of `exp` read ([`crate::checks::Reads::curves`]): what a
/// paper-scale baseline keeps of an `ice.csv` too large to commit whole.
pub struct NeededCurves {
    selections: Vec<(String, Selector)>,
}

impl NeededCurves {
    /// What the checks of `exp` read.
    pub fn of(exp: &Experiment) -> NeededCurves {
        NeededCurves {
            selections: exp
                .spec
                .checks
                .iter()
                .flat_map(|c| c.assert.kind().reads().curves)
                .map(|(q, sel)| (q.clone(), sel.clone()))
                .collect(),
        }
    }

    /// Whether the curve (of a run with grid keys `keys`) is read.
    pub fn keeps(&self, keys: &[String], c: &CurveRow) -> bool {
        let cols = crate::select::curve_columns(keys, c);
        self.selections
            .iter()
            .any(|(q, sel)| *q == c.quantity && crate::select::selected(&cols, sel))
    }
}

/// The per-replicate rows the experiments `exps` (sharing one run) read: the rows
/// their checks select ([`crate::checks::Reads::per_replicate`]) and every row of a replicate
/// a figure draws alone (`replicate: k`). What a run that writes no `tidy.csv`
/// keeps ([`crate::run::KeepRow`]), so the checks decide on what they would decide
/// on with every row, while the run holds a few rows per cell instead of all.
pub struct NeededRows {
    selections: Vec<(String, Selector)>,
    replicates: Vec<usize>,
}

impl NeededRows {
    /// What the checks and figures of `exps` read.
    pub fn of<'e>(exps: impl IntoIterator<Item = &'e Experiment>) -> NeededRows {
        let mut needed = NeededRows {
            selections: Vec::new(),
            replicates: Vec::new(),
        };
        for exp in exps {
            for c in &exp.spec.checks {
                for (q, sel) in c.assert.kind().reads().per_replicate {
                    needed.selections.push((q.clone(), sel.clone()));
                }
            }
            needed
                .replicates
                .extend(exp.spec.plots.iter().filter_map(|p| p.kind().replicate()));
        }
        needed
    }

    /// Whether the row of grid keys `keys` is read.
    pub fn keeps(&self, keys: &[String], row: &TidyRow) -> bool {
        if self.replicates.contains(&row.replicate) {
            return true;
        }
        let mut wanted = self
            .selections
            .iter()
            .filter(|(q, _)| *q == row.quantity)
            .peekable();
        if wanted.peek().is_none() {
            return false;
        }
        let row = crate::select::tidy_row(keys, row);
        wanted.any(|(_, sel)| row.matches(sel))
    }
}
