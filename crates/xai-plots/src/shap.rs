//! A SHAP summary ("beeswarm") figure: for every feature a row of dots, one per kept
//! test row, at its Shapley value, jittered vertically and coloured by the row's value
//! of the feature; a dashed red line at 0; one panel per value of a grid key
//! (watson2023 Fig. 3a: the mean model beside the variance model). And a dependence
//! figure: one feature's Shapley values against its values, a series per value of a
//! grid key (watson2023 Fig. 2: original vs perturbed rows, a panel per dataset).

use std::collections::BTreeMap;
use xai_error::PlotError;

use plotters::coord::Shift;
use plotters::prelude::*;
use serde::Deserialize;

use super::key::{Key, Swatch};
use super::labels::Names;
use super::print::Width;
use super::{Canvas, Figure, PlotKind, PlotPlan, colour_bar, range, tick, with_colour_bar};
use xai_results::Invalid;
use xai_results::output::RunOutput;

plot_settings! {
    /// A SHAP summary ("beeswarm"): per feature the kept Shapley values of the test rows
    /// (a `shapley` method's `keep`) as dots jittered vertically and coloured by the
    /// feature's value, one panel per value of the grid key `panels` (watson2023 Fig. 3a).
    pub struct ShapSummary {
        /// The Shapley quantity (`prediction_shap`).
        pub quantity: String,
        /// Grid key whose values get a panel each (none: one panel).
        #[serde(default)]
        pub panels: Option<String>,
    }
}

impl PlotKind for ShapSummary {
    fn replicate(&self) -> Option<usize> {
        None
    }

    fn uses_data(&self) -> bool {
        false
    }

    fn validate(&self, plan: &PlotPlan<'_>) -> Result<(), Invalid> {
        plan.kept(&self.quantity, "`keep:` on a `shapley` method")?;
        plan.panels(&self.panels)
    }

    fn width(&self, fig: &Figure<'_>) -> Width {
        Width::for_panels(panels(fig.out, &self.quantity, self.panels.as_deref()).len())
    }

    /// A row of 8-pt type a feature (24 units), at least 2.6 in.
    fn height(&self, fig: &Figure<'_>, _width: u32) -> u32 {
        (90 + 24 * fig.out.feature_names.len().max(1) as u32).max(260)
    }

    fn draw(&self, canvas: Canvas<'_, '_>, fig: &Figure<'_>) -> Result<(), PlotError> {
        super::on_canvas!(canvas, root => draw(root, fig.out, &self.quantity, self.panels.as_deref(), fig.names))
    }
}

plot_settings! {
    /// A SHAP dependence plot: a dot per kept test row at (its value of `feature`, its
    /// Shapley value for it), coloured and shaped by the grid key `color_by`, one panel
    /// per value of the grid key `panels` (watson2023 Fig. 2: a dataset's shifted
    /// feature, original vs perturbed rows).
    pub struct ShapDependence {
        /// A kept Shapley quantity (`prediction_shap`).
        pub quantity: String,
        /// The feature: one name, or a map from each value of `panels` to its feature.
        pub feature: FeatureChoice,
        /// Grid key with one panel per value.
        #[serde(default)]
        pub panels: Option<String>,
        /// Grid key with one colour and marker per value.
        #[serde(default)]
        pub color_by: Option<String>,
        /// Draw this replicate alone (default: the kept rows of every replicate).
        #[serde(default)]
        pub replicate: Option<usize>,
    }
}

impl PlotKind for ShapDependence {
    fn replicate(&self) -> Option<usize> {
        self.replicate
    }

    fn uses_data(&self) -> bool {
        false
    }

    fn validate(&self, plan: &PlotPlan<'_>) -> Result<(), Invalid> {
        plan.kept(&self.quantity, "`keep:` on a `shapley` method")?;
        if let Some(c) = &self.color_by {
            plan.grid_or_model(c)?;
        }
        match &self.feature {
            FeatureChoice::One(f) => plan.feature(f)?,
            FeatureChoice::PerPanel(_) if self.panels.is_none() => {
                return Err(Invalid::new(
                    "feature",
                    "a feature per panel needs `panels:`, the grid key of the panels",
                ));
            }
            FeatureChoice::PerPanel(_) => {}
        }
        if plan.models.len() > 1 {
            return Err(Invalid::new(
                "shap_dependence",
                "a dependence plot draws one model's values; this experiment has several",
            ));
        }
        plan.panels(&self.panels)
    }

    fn width(&self, fig: &Figure<'_>) -> Width {
        let n = self.panel_count(fig);
        Width::for_panels(dependence_layout(n).1)
    }

    /// Panels 0.85 as tall as wide in the grid of [`dependence_layout`], and the key.
    fn height(&self, fig: &Figure<'_>, width: u32) -> u32 {
        let n = self.panel_count(fig);
        super::print::grid_height(width, dependence_layout(n), 0.85, 40)
    }

    fn draw(&self, canvas: Canvas<'_, '_>, fig: &Figure<'_>) -> Result<(), PlotError> {
        let by = (self.panels.as_deref(), self.color_by.as_deref());
        super::on_canvas!(canvas, root => draw_dependence(root, fig.out, &self.quantity, &self.feature, by, fig.names))
    }
}

/// The feature a dependence plot draws: one for every panel, or one per panel value
/// (watson2023 Fig. 2: each dataset's shifted feature).
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum FeatureChoice {
    /// The same feature in every panel.
    One(String),
    /// Panel value → feature.
    PerPanel(BTreeMap<String, String>),
}

impl FeatureChoice {
    /// The feature of the panel with grid value `panel`.
    pub fn of(&self, panel: &str) -> Option<&str> {
        match self {
            FeatureChoice::One(f) => Some(f),
            FeatureChoice::PerPanel(m) => m.get(panel).map(String::as_str),
        }
    }
}

/// The kept values of one panel: per feature (in data order) the (φ, feature value)
/// pairs.
struct Panel {
    value: String,
    points: Vec<Vec<(f64, f64)>>,
}

fn panels(out: &RunOutput, quantity: &str, key: Option<&str>) -> Vec<Panel> {
    let col = key.and_then(|k| out.keys.iter().position(|c| c == k));
    let mut list: Vec<Panel> = Vec::new();
    for c in out.curves.iter().filter(|c| c.quantity == quantity) {
        let value = col.map_or_else(String::new, |i| c.labels[i].clone());
        let Some(j) = out.feature_names.iter().position(|f| *f == c.feature) else {
            continue;
        };
        let panel = match list.iter().position(|p| p.value == value) {
            Some(i) => &mut list[i],
            None => {
                list.push(Panel {
                    value,
                    points: vec![Vec::new(); out.feature_names.len()],
                });
                list.last_mut().expect("just pushed")
            }
        };
        if let (Some(&x), Some(&phi)) = (c.grid.first(), c.values.first()) {
            panel.points[j].push((phi, x));
        }
    }
    list
}

/// A deterministic vertical offset in [−0.3, 0.3] for the k-th dot of a row (the
/// golden-ratio sequence: spread evenly, no random numbers).
fn jitter(k: usize) -> f64 {
    ((k as f64 * 0.618_033_988_749_895).fract() - 0.5) * 0.6
}

/// Draws the panels side by side, each on its own x-scale (a variance model's values
/// are an order smaller than a mean model's), with the colour key on the right.
fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    out: &RunOutput,
    quantity: &str,
    key: Option<&str>,
    names: &Names,
) -> Result<(), PlotError> {
    let e = crate::drawn::<DB::ErrorType>;
    let list = panels(out, quantity, key);
    if list.iter().all(|p| p.points.iter().all(Vec::is_empty)) {
        return Err(PlotError::Missing(format!(
            "no kept values of `{quantity}` to draw: give the shapley method `keep: k`"
        )));
    }
    let d = out.feature_names.len();
    let (plots, bar) = with_colour_bar(root, 80);
    let areas = plots.split_evenly((1, list.len()));
    let axis = super::labels::axis_label(quantity);
    for (area, p) in areas.iter().zip(&list) {
        let title = match key {
            Some(k) => names.setting_value(k, &p.value),
            None => String::new(),
        };
        let (x0, x1) = range(p.points.iter().flatten().map(|q| q.0));
        let longest = out
            .feature_names
            .iter()
            .map(|f| super::glyphs::text_width(&names.feature_axis(f), super::print::TICK))
            .fold(0.0, f64::max);
        let mut chart = ChartBuilder::on(area)
            .caption(title, ("sans-serif", super::print::LABEL))
            .margin(8)
            .x_label_area_size(36)
            .y_label_area_size(longest as u32 + 12)
            .build_cartesian_2d(x0..x1, -0.6..(d as f64 - 0.4))
            .map_err(e)?;
        let (w, _) = chart.plotting_area().dim_in_pixel();
        // Feature j sits at y = d − 1 − j: the first feature on top.
        let feature_at = |y: &f64| {
            let j = d as f64 - 1.0 - y.round();
            if (y - y.round()).abs() < 1e-9 && j >= 0.0 && (j as usize) < d {
                names.feature_axis(&out.feature_names[j as usize])
            } else {
                String::new()
            }
        };
        chart
            .configure_mesh()
            .light_line_style(TRANSPARENT)
            .bold_line_style(BLACK.mix(0.12))
            .y_labels(d)
            .x_labels(super::tick_count((x0, x1), w, 45, 3))
            .y_label_formatter(&feature_at)
            .x_label_formatter(&tick)
            .label_style(("sans-serif", super::print::TICK))
            .axis_desc_style(("sans-serif", super::print::LABEL))
            .x_desc(axis.as_str())
            .draw()
            .map_err(e)?;
        for (j, points) in p.points.iter().enumerate() {
            let (lo, hi) = range(points.iter().map(|q| q.1));
            let y = (d - 1 - j) as f64;
            chart
                .draw_series(points.iter().enumerate().map(|(k, &(phi, v))| {
                    Circle::new(
                        (phi, y + jitter(k)),
                        2,
                        super::viridis(v, lo, hi).mix(0.8).filled(),
                    )
                }))
                .map_err(e)?;
        }
        let red = super::palette::CLASS_1.stroke_width(2);
        let steps = 30;
        chart
            .draw_series((0..steps).step_by(2).map(|k| {
                let a = -0.6 + d as f64 * k as f64 / steps as f64;
                let b = -0.6 + d as f64 * (k + 1) as f64 / steps as f64;
                PathElement::new(vec![(0.0, a), (0.0, b)], red)
            }))
            .map_err(e)?;
    }
    colour_bar(&bar, (0.0, 1.0), "feature value", super::viridis)
}

/// The kept values of one feature in a dependence panel: per series (a value of the
/// colour key, in order of appearance) the (feature value, φ) pairs.
struct Dependence {
    panel: String,
    feature: String,
    series: Vec<(String, Vec<(f64, f64)>)>,
}

impl ShapDependence {
    /// How many panels the figure draws.
    fn panel_count(&self, fig: &Figure<'_>) -> usize {
        let key = self.panels.as_deref();
        dependence(fig.out, &self.quantity, &self.feature, key, None).len()
    }
}

fn dependence(
    out: &RunOutput,
    quantity: &str,
    feature: &FeatureChoice,
    key: Option<&str>,
    color_by: Option<&str>,
) -> Vec<Dependence> {
    let col = |k: Option<&str>| k.and_then(|k| out.keys.iter().position(|c| c == k));
    let (panel_col, series_col) = (col(key), col(color_by));
    let mut list: Vec<Dependence> = Vec::new();
    for c in out.curves.iter().filter(|c| c.quantity == quantity) {
        let panel = panel_col.map_or_else(String::new, |i| c.labels[i].clone());
        if feature.of(&panel) != Some(c.feature.as_str()) {
            continue;
        }
        let series = series_col.map_or_else(String::new, |i| c.labels[i].clone());
        let p = match list.iter().position(|p| p.panel == panel) {
            Some(i) => &mut list[i],
            None => {
                list.push(Dependence {
                    panel,
                    feature: c.feature.clone(),
                    series: Vec::new(),
                });
                list.last_mut().expect("just pushed")
            }
        };
        let s = match p.series.iter().position(|(s, _)| *s == series) {
            Some(i) => &mut p.series[i].1,
            None => {
                p.series.push((series, Vec::new()));
                &mut p.series.last_mut().expect("just pushed").1
            }
        };
        // A missing value (NaN) has no place on the x-axis.
        if let (Some(&x), Some(&phi)) = (c.grid.first(), c.values.first())
            && x.is_finite()
        {
            s.push((x, phi));
        }
    }
    list
}

/// The grid of dependence panels: up to two columns.
fn dependence_layout(panels: usize) -> (usize, usize) {
    let cols = panels.clamp(1, 2);
    (panels.div_ceil(cols).max(1), cols)
}

/// A SHAP dependence figure: per panel, a dot per kept row at (its value of the
/// feature, its Shapley value for that feature), one colour and marker per value of
/// `color_by` (circles, then triangles, …), a dashed line at φ = 0, and the key
/// below.
fn draw_dependence<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    out: &RunOutput,
    quantity: &str,
    feature: &FeatureChoice,
    (key, color_by): (Option<&str>, Option<&str>),
    names: &Names,
) -> Result<(), PlotError> {
    let e = crate::drawn::<DB::ErrorType>;
    let list = dependence(out, quantity, feature, key, color_by);
    if list.is_empty() {
        return Err(PlotError::Missing(format!(
            "no kept values of `{quantity}` for the plotted feature: give the shapley method \
             `keep: k` (and the feature in `keep_features`)"
        )));
    }
    // The key below the panels: a colour and marker per value of `color_by`.
    let mut legend = Key::default();
    if let Some(c) = color_by {
        for p in &list {
            for (k, (series, _)) in p.series.iter().enumerate() {
                let color = super::palette::series(k);
                legend.add(
                    names.setting_value(c, series),
                    Swatch::Marker(color, k % 2 == 1),
                );
            }
        }
    }
    // What the y-axes show, said once: the panels' own names are short.
    let axis = super::labels::axis_label(quantity);
    legend.add(
        format!("y-axes: {axis}, for the feature on the x-axis"),
        Swatch::Note,
    );
    let (root, strip) = legend.split(root);
    legend.draw(&strip)?;
    let areas = root.split_evenly(dependence_layout(list.len()));
    let titles: Vec<String> = list
        .iter()
        .map(|p| key.map_or_else(String::new, |k| names.setting_value(k, &p.panel)))
        .collect();
    let band = super::caption_band_of(titles.iter().map(String::as_str), areas[0].dim_in_pixel().0);
    for ((area, p), title) in areas.iter().zip(&list).zip(&titles) {
        let points = || p.series.iter().flat_map(|(_, s)| s.iter());
        let (x0, x1) = range(points().map(|q| q.0));
        let (y0, y1) = range(points().map(|q| q.1).chain([0.0]));
        let frame = super::Frame::new(title, band);
        let mut chart = super::chart_on(area, &frame, (x0, x1), (y0, y1)).map_err(e)?;
        let x_name = names.feature_axis(&p.feature);
        let y_name = format!("Shapley value of {}", names.feature(&p.feature));
        super::axes(&mut chart, &x_name, &y_name)
            .draw()
            .map_err(e)?;
        let grey = BLACK.mix(0.5).stroke_width(1);
        let steps = 40;
        chart
            .draw_series((0..steps).step_by(2).map(|k| {
                let at = |k: usize| x0 + (x1 - x0) * k as f64 / steps as f64;
                PathElement::new(vec![(at(k), 0.0), (at(k + 1), 0.0)], grey)
            }))
            .map_err(e)?;
        for (k, (_, pts)) in p.series.iter().enumerate() {
            let color = super::palette::series(k);
            let style = color.mix(0.75).filled();
            if k % 2 == 0 {
                chart.draw_series(pts.iter().map(|&q| Circle::new(q, 3, style)))
            } else {
                chart.draw_series(pts.iter().map(|&q| TriangleMarker::new(q, 4, style)))
            }
            .map_err(e)?;
        }
    }
    Ok(())
}
