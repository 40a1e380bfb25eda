//! Every replicate's PD of one feature as a thin line, a panel per value of a grid
//! key on one y-scale, with the mean over replicates and the DGP's true PD where asked
//! (molnar2023 Fig. 3: "Uncertainty due to Monte Carlo integration" beside "Bias and
//! variance").

use plotters::coord::Shift;
use plotters::prelude::*;
use xai_error::PlotError;

use super::key::{Key, Swatch};
use super::labels::Names;
use super::print::{Width, grid_height};
use super::{Canvas, Figure, PlotKind, PlotPlan, axes, chart_on, range};
use xai_results::Invalid;
use xai_results::output::RunOutput;

plot_settings! {
    /// The PD of one feature in every replicate as a thin line (from the tidy rows), one
    /// panel per value of the grid key `panels`, all on one y-scale; in the panels listed
    /// in `mean`, also the mean over replicates (bold) and the DGP's true PD (dashed).
    /// molnar2023 Fig. 3: the Monte-Carlo spread of one model's PD beside the spread of
    /// refitted models' PDs around their mean and the truth.
    pub struct PdReplicates {
        /// The PD quantity (`prediction_pd`).
        pub pd: String,
        /// The feature whose PD is drawn.
        pub feature: String,
        /// Grid key whose values get a panel each.
        pub panels: String,
        /// Values of `panels` whose panels add the mean and the true PD.
        #[serde(default)]
        pub mean: Vec<String>,
        /// The values of `panels` drawn, in this order (default: every value).
        #[serde(default)]
        pub show: Vec<String>,
    }
}

impl PdReplicates {
    /// Calls `with` on what is drawn, its true PD from the experiment's DGP
    /// ([`Figure::truth`]).
    fn drawn<T>(&self, fig: &Figure<'_>, with: &dyn Fn(&Drawn<'_>) -> T) -> T {
        let truth = |grid: &[f64]| (fig.truth)(&self.feature, grid);
        with(&Drawn {
            pd: &self.pd,
            feature: &self.feature,
            panels: &self.panels,
            mean: &self.mean,
            show: &self.show,
            truth: &truth,
        })
    }
}

impl PlotKind for PdReplicates {
    fn replicate(&self) -> Option<usize> {
        None
    }

    fn uses_data(&self) -> bool {
        false
    }

    fn validate(&self, plan: &PlotPlan<'_>) -> Result<(), Invalid> {
        let panels = &self.panels;
        plan.known(&self.pd, &self.pd)?;
        plan.feature(&self.feature)?;
        if !plan.tidy {
            return Err(Invalid::new(
                "pd_replicates",
                "a pd_replicates plot draws each replicate's PD from the tidy rows; remove `tidy: false`",
            ));
        }
        if !self.mean.is_empty() && !plan.true_pd {
            return Err(Invalid::new(
                "mean",
                "`mean` panels draw the true PD, which only a DGP with a closed form knows (`molnar_additive`, `molnar_sine`)",
            ));
        }
        let in_grid = |v: &String| plan.grid.get(panels).is_some_and(|vals| vals.contains(v));
        for (field, values) in [("mean", &self.mean), ("show", &self.show)] {
            if let Some(v) = values.iter().find(|v| !in_grid(v)) {
                return Err(Invalid::new(
                    field,
                    format!(
                        "`{field}` names `{v}`, which is not a value of the grid key `{panels}`"
                    ),
                ));
            }
        }
        plan.panels(&Some(panels.clone()))
    }

    fn width(&self, fig: &Figure<'_>) -> Width {
        self.drawn(fig, &|what| Width::for_panels(panels(fig.out, what).len()))
    }

    /// Panels 0.85 as tall as wide, and a row of key.
    fn height(&self, fig: &Figure<'_>, width: u32) -> u32 {
        let cols = self.drawn(fig, &|what| panels(fig.out, what).len());
        grid_height(width, (1, cols), 0.85, 40)
    }

    fn draw(&self, canvas: Canvas<'_, '_>, fig: &Figure<'_>) -> Result<(), PlotError> {
        super::on_canvas!(canvas, root => self.drawn(fig, &|what| draw(root, fig.out, what, fig.names)))
    }
}

/// What a `pd_replicates` figure draws.
struct Drawn<'a> {
    /// The PD quantity.
    pd: &'a str,
    /// The feature.
    feature: &'a str,
    /// The grid key whose values get a panel each.
    panels: &'a str,
    /// The panels that add the mean and the truth.
    mean: &'a [String],
    /// The panels drawn, in order (empty: all, in the run's order).
    show: &'a [String],
    /// The DGP's true PD of the feature at the given grid points.
    truth: &'a dyn Fn(&[f64]) -> Option<Vec<f64>>,
}

/// One panel's lines: per replicate its (x, PD) points in grid order, and the mean
/// over replicates at the grid points they share.
struct Panel {
    value: String,
    lines: Vec<Vec<(f64, f64)>>,
    mean: Vec<(f64, f64)>,
}

fn panels(out: &RunOutput, what: &Drawn<'_>) -> Vec<Panel> {
    let col = out.keys.iter().position(|k| k == what.panels);
    let mut list: Vec<Panel> = Vec::new();
    for t in out
        .tidy
        .iter()
        .filter(|t| t.quantity == what.pd && t.feature == what.feature)
    {
        let value = col.map_or_else(String::new, |c| t.labels[c].clone());
        let panel = match list.iter().position(|p| p.value == value) {
            Some(i) => &mut list[i],
            None => {
                list.push(Panel {
                    value,
                    lines: Vec::new(),
                    mean: Vec::new(),
                });
                list.last_mut().expect("just pushed")
            }
        };
        if panel.lines.len() <= t.replicate {
            panel.lines.resize(t.replicate + 1, Vec::new());
        }
        panel.lines[t.replicate].push((t.x.unwrap_or(f64::NAN), t.value.estimate));
    }
    if !what.show.is_empty() {
        list.retain(|p| what.show.contains(&p.value));
        list.sort_by_key(|p| what.show.iter().position(|v| *v == p.value));
    }
    for p in &mut list {
        p.lines.retain(|l| !l.is_empty());
        for l in &mut p.lines {
            l.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        // The mean where every replicate has the same grid (a fixed range).
        let first: Vec<f64> = p.lines[0].iter().map(|q| q.0).collect();
        if p.lines
            .iter()
            .all(|l| l.iter().map(|q| q.0).eq(first.iter().copied()))
        {
            p.mean = first
                .iter()
                .enumerate()
                .map(|(g, &x)| {
                    let sum: f64 = p.lines.iter().map(|l| l[g].1).sum();
                    (x, sum / p.lines.len() as f64)
                })
                .collect();
        }
    }
    list
}

/// The pixel size: one 560-px column per panel.
/// Draws the panels side by side on one y-scale.
fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    out: &RunOutput,
    what: &Drawn<'_>,
    names: &Names,
) -> Result<(), PlotError> {
    let e = crate::drawn::<DB::ErrorType>;
    let list = panels(out, what);
    if list.is_empty() {
        return Err(PlotError::Missing(format!(
            "no tidy rows of `{}` for feature `{}` to draw",
            what.pd, what.feature
        )));
    }
    let truths: Vec<Option<Vec<(f64, f64)>>> = list
        .iter()
        .map(|p| {
            if !what.mean.contains(&p.value) || p.mean.is_empty() {
                return None;
            }
            let xs: Vec<f64> = p.mean.iter().map(|q| q.0).collect();
            (what.truth)(&xs).map(|t| xs.into_iter().zip(t).collect())
        })
        .collect();
    let all_points = list
        .iter()
        .flat_map(|p| p.lines.iter().flatten())
        .chain(truths.iter().flatten().flatten());
    let (x0, x1) = range(all_points.clone().map(|q| q.0));
    let (y0, y1) = range(all_points.map(|q| q.1));
    let thin = BLACK.mix(0.55).stroke_width(1);
    let mut key = Key::default();
    // The thin lines' grey on white.
    key.add(
        "PD of one replicate",
        Swatch::Line(RGBColor(115, 115, 115), 1, 0),
    );
    if truths.iter().any(Option::is_some) {
        key.add(
            "mean over replicates",
            Swatch::Line(super::palette::series(0), 4, 0),
        );
        key.add("true PD", Swatch::Line(super::palette::series(1), 3, 1));
    }
    let (root, strip) = key.split(root);
    key.draw(&strip)?;
    let areas = root.split_evenly((1, list.len()));
    let titles: Vec<String> = list
        .iter()
        .map(|p| {
            let what = names.setting_value(what.panels, &p.value);
            format!("{what} ({} replicates)", p.lines.len())
        })
        .collect();
    let band = super::caption_band_of(titles.iter().map(String::as_str), areas[0].dim_in_pixel().0);
    for (((area, p), truth), title) in areas.iter().zip(&list).zip(&truths).zip(&titles) {
        let mut chart =
            chart_on(area, &super::Frame::new(title, band), (x0, x1), (y0, y1)).map_err(e)?;
        axes(&mut chart, &names.feature_axis(what.feature), "PD")
            .draw()
            .map_err(e)?;
        for line in &p.lines {
            chart
                .draw_series(LineSeries::new(line.iter().copied(), thin))
                .map_err(e)?;
        }
        if let Some(t) = truth {
            chart
                .draw_series(LineSeries::new(
                    p.mean.iter().copied(),
                    super::palette::series(0).stroke_width(4),
                ))
                .map_err(e)?;
            chart
                .draw_series(DashedLineSeries::new(
                    t.iter().copied(),
                    8,
                    6,
                    super::palette::series(1).stroke_width(3),
                ))
                .map_err(e)?;
        }
    }
    Ok(())
}
