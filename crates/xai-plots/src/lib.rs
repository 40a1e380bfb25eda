//! Figures drawn from a run, as SVG and PNG, with a bundled font (DejaVu Sans) so no
//! system font is needed. Plots only draw what the run computed.
//!
//! Every plot kind follows the pattern methods follow: a settings struct in the file
//! that draws it, implementing [`PlotKind`] (its YAML settings, their validation
//! against the experiment, its size and its drawing), and one line of the
//! [`PlotSpec`] registry. The files: [`bars`], [`curves`] (PD and ICE), [`ice_grid`]
//! (a grid of small ICE panels, one per feature), [`scatter`], [`maps`] (the entropy
//! map of a permutation), [`coverage`] (a coverage study's coverage and width),
//! [`replicates`] (every replicate's PD), [`shap`] (SHAP summary and dependence plots
//! of kept Shapley values) and [`pixels`] (pixel maps of Shapley values).

#![warn(missing_docs)]

/// `plot_settings! { /// doc \n pub struct Kind { fields } }`: a plot kind's YAML
/// settings struct with the fields every plot has, `name` (the file stem of the
/// figure, `<name>.svg` and `<name>.png`) and `title` (what a companion figure shows,
/// required for a file other than the paper's figure `fig<N>`; drawn as "\<title\>
/// (companion to \<figure\>)"), before its own, and [`Named`] reading them.
macro_rules! plot_settings {
    (
        $(#[$meta:meta])*
        pub struct $Kind:ident {
            $(
                $(#[$fmeta:meta])*
                pub $field:ident: $fty:ty,
            )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct $Kind {
            /// File stem of the figure (`<name>.svg`, `<name>.png`).
            pub name: String,
            /// What a companion figure shows (required for a file other than the
            /// paper's figure `fig<N>`); drawn as "\<title\> (companion to \<figure\>)".
            #[serde(default)]
            pub title: Option<String>,
            /// Draw only the variants where these grid keys take these values (e.g.
            /// `at: { sample: "1" }`, the one sample a paper's figure shows of a run
            /// over independent samples); default: every variant.
            #[serde(default)]
            pub at: std::collections::BTreeMap<String, String>,
            $(
                $(#[$fmeta])*
                pub $field: $fty,
            )*
        }

        impl $crate::Named for $Kind {
            fn name(&self) -> &str {
                &self.name
            }

            fn title(&self) -> Option<&str> {
                self.title.as_deref()
            }

            fn at(&self) -> &std::collections::BTreeMap<String, String> {
                &self.at
            }
        }
    };
}

pub mod bars;
pub mod coverage;
pub mod curves;
pub mod ice_grid;
mod key;
pub mod labels;
pub mod maps;
pub mod pixels;
pub mod raster;
pub mod replicates;
pub mod scatter;
pub mod shap;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Once;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use serde::Deserialize;

use xai_core::Statistic;
use xai_data::error::{BenchError, Result};
use xai_results::Invalid;
use xai_results::output::RunOutput;
use xai_results::quantity::Quantity;

xai_core::registry! {
    /// A figure drawn from the run, as written under `plots:`.
    #[derive(Debug, Clone, PartialEq, Deserialize)]
    pub enum PlotSpec: fn kind -> dyn PlotKind {
        /// Bars per feature with interval whiskers ([`bars::Bars`]).
        "bars" => Bars(bars::Bars),
        /// PD curves with their bands, or ICE curves with the PD ([`curves::Curves`]).
        "curves" => Curves(curves::Curves),
        /// One small ICE panel per feature ([`ice_grid::IceGrid`]).
        "ice_grid" => IceGrid(ice_grid::IceGrid),
        /// A coverage study's summaries against the number of refits
        /// ([`coverage::Lines`]).
        "lines" => Lines(coverage::Lines),
        /// Interval width against coverage ([`coverage::Tradeoff`]).
        "tradeoff" => Tradeoff(coverage::Tradeoff),
        /// The entropy map of a permutation ([`maps::PermutationMap`]).
        "permutation_map" => PermutationMap(maps::PermutationMap),
        /// Every replicate's PD of one feature ([`replicates::PdReplicates`]).
        "pd_replicates" => PdReplicates(replicates::PdReplicates),
        /// A SHAP dependence plot ([`shap::ShapDependence`]).
        "shap_dependence" => ShapDependence(shap::ShapDependence),
        /// A SHAP summary ("beeswarm") ([`shap::ShapSummary`]).
        "shap_summary" => ShapSummary(shap::ShapSummary),
        /// Images beside maps of their pixels' Shapley values ([`pixels::PixelMaps`]).
        "pixel_maps" => PixelMaps(pixels::PixelMaps),
        /// Two features of the training sample ([`scatter::Scatter`]).
        "scatter" => Scatter(scatter::Scatter),
    }
}

/// The file stem and own title every plot has (`plot_settings!` writes them).
pub trait Named {
    /// The file stem of the figure (`<name>.svg`, `<name>.png`).
    fn name(&self) -> &str;

    /// A companion figure's own title, if any.
    fn title(&self) -> Option<&str>;

    /// The grid values it is drawn at (grid key → value label); empty for every
    /// variant.
    fn at(&self) -> &BTreeMap<String, String>;
}

/// A kind of plot: its settings' checks, its size and its drawing.
pub trait PlotKind: Named + Send + Sync {
    /// The replicate it draws alone (its own estimates and intervals, from the tidy
    /// rows), if any. Every kind states it (no default): the rows of that replicate
    /// are kept by runs that keep only what their checks and figures read.
    fn replicate(&self) -> Option<usize>;

    /// Whether it draws from the run's training sample or entropy maps, which a
    /// committed baseline does not keep (so `bless --committed` cannot redraw it).
    fn uses_data(&self) -> bool;

    /// Checks the settings against the experiment, at load.
    fn validate(&self, plan: &PlotPlan<'_>) -> std::result::Result<(), Invalid>;

    /// The figure's size in pixels.
    fn size(&self, fig: &Figure<'_>) -> (u32, u32);

    /// The figure title's type size in pixels (shrunk where the title would not fit).
    fn title_px(&self) -> u32 {
        18
    }

    /// Draws the figure below its title (on white; `on_canvas!` draws with one
    /// generic function on either backend).
    fn draw(&self, canvas: Canvas<'_, '_>, fig: &Figure<'_>) -> std::result::Result<(), String>;
}

/// The true PD of a feature at grid points, where the data's DGP has a closed form
/// (`None` elsewhere).
pub type TruePd<'a> = dyn Fn(&str, &[f64]) -> Option<Vec<f64>> + 'a;

/// What figures take from their experiment (built by `xai_bench::figures`).
pub struct Setting<'a> {
    /// The experiment's title.
    pub title: &'a str,
    /// The paper.
    pub paper: &'a str,
    /// The paper's figure or table.
    pub figure: &'a str,
    /// The confidence level of intervals.
    pub level: f64,
    /// Names of models, grid values and features.
    pub names: labels::Names,
    /// The true PD of a feature at grid points, where the data's DGP has a closed form.
    pub truth: &'a TruePd<'a>,
}

/// What a figure is drawn from.
pub struct Figure<'a> {
    /// The true PD of a feature at grid points, where the DGP has a closed form.
    pub truth: &'a TruePd<'a>,
    /// The run (one replicate's alone where the plot asks for it).
    pub out: &'a RunOutput,
    /// Labels of quantities, features and panels.
    pub names: &'a labels::Names,
    /// The figure's title.
    pub title: &'a str,
}

/// The area a figure is drawn on, below its title: the SVG file's or the PNG's.
pub enum Canvas<'a, 'b> {
    /// The SVG file.
    Svg(&'b DrawingArea<SVGBackend<'a>, Shift>),
    /// The PNG raster.
    Png(&'b DrawingArea<raster::Raster<'a>, Shift>),
}

/// `on_canvas!(canvas, root => expr)`: evaluates `expr` with `root` the canvas's
/// drawing area, once per backend, so one generic drawing function serves both.
macro_rules! on_canvas {
    ($canvas:expr, $root:ident => $body:expr) => {
        match $canvas {
            $crate::Canvas::Svg($root) => $body,
            $crate::Canvas::Png($root) => $body,
        }
    };
}
pub(crate) use on_canvas;

/// What a plot's settings are checked against at load: the experiment's grid,
/// models, whether its methods draw entropy maps, the data's features where known,
/// and the quantities and curves its methods report.
pub struct PlotPlan<'a> {
    /// Per grid key, the labels of its values.
    pub grid: &'a BTreeMap<String, Vec<String>>,
    /// Whether the run keeps its per-replicate rows (`tidy`).
    pub tidy: bool,
    /// How many models the experiment fits.
    pub models: usize,
    /// Whether a method draws entropy maps (a `permutation_map` method).
    pub entropy_maps: bool,
    /// Whether the data's DGP knows its true PD in closed form.
    pub true_pd: bool,
    /// The data's feature names, where known before loading.
    pub features: Option<&'a [String]>,
    /// The quantities the methods report per feature.
    pub quantities: &'a [String],
    /// The quantities a grid key's values name.
    pub grid_quantities: &'a [String],
    /// The curve quantities the methods keep.
    pub curves: &'a [String],
}

impl PlotPlan<'_> {
    /// `q` is a quantity the methods report (`field` is blamed otherwise).
    pub fn known(&self, q: &String, field: &str) -> std::result::Result<(), Invalid> {
        if self.quantities.contains(q) || self.grid_quantities.contains(q) {
            return Ok(());
        }
        Err(Invalid::new(
            field,
            format!(
                "unknown quantity `{q}`; the methods report {}",
                self.quantities.join(", ")
            ),
        ))
    }

    /// `q` is a curve quantity kept by a method; `how` says what keeps one.
    pub fn kept(&self, q: &String, how: &str) -> std::result::Result<(), Invalid> {
        if self.curves.contains(q) {
            return Ok(());
        }
        Err(Invalid::new(
            q,
            format!(
                "`{q}` is not kept: set {how} (kept: {})",
                self.curves.join(", ")
            ),
        ))
    }

    /// `f` is a feature of the data (when its features are known).
    pub fn feature(&self, f: &String) -> std::result::Result<(), Invalid> {
        xai_results::known_feature_names(self.features, [f])
    }

    /// `k` is a grid key or `model`, by which plots colour and arrange.
    pub fn grid_or_model(&self, k: &String) -> std::result::Result<(), Invalid> {
        if k == "model" || self.grid.contains_key(k) {
            return Ok(());
        }
        Err(Invalid::new(
            k,
            format!("`{k}` is neither a grid key nor `model`; plots colour and arrange by those"),
        ))
    }

    /// `panels`, where given, is a grid key.
    pub fn panels(&self, panels: &Option<String>) -> std::result::Result<(), Invalid> {
        match panels {
            Some(k) if !self.grid.contains_key(k) => Err(Invalid::new(
                k,
                format!("plot panels `{k}` is not a grid key"),
            )),
            _ => Ok(()),
        }
    }

    /// Whether the data has exactly two features (or its features are not yet known).
    pub fn two_features(&self) -> bool {
        self.features.is_none_or(|n| n.len() == 2)
    }
}

/// The style of the major grid lines: light, so the data stands out (no minor grid).
fn grid() -> ShapeStyle {
    BLACK.mix(0.12).into()
}

/// The axes of every chart in one style: a light major grid and no minor grid, tick
/// labels in [`tick`] form, 13-px labels, and the axis names `x` and `y`. Callers add
/// what differs (no grid on a map, category or count labels) before `draw()`.
fn axes<'a, 'b, DB: DrawingBackend>(
    chart: &'b mut Chart<'a, DB>,
    x: &str,
    y: &str,
) -> plotters::chart::MeshStyle<
    'a,
    'b,
    plotters::coord::types::RangedCoordf64,
    plotters::coord::types::RangedCoordf64,
    DB,
> {
    let mut mesh = chart.configure_mesh();
    mesh.light_line_style(TRANSPARENT)
        .bold_line_style(grid())
        .x_label_formatter(&tick)
        .y_label_formatter(&tick)
        .label_style(("sans-serif", 13))
        .x_desc(x)
        .y_desc(y);
    mesh
}

/// `root` below its figure title: the title in `size`-px type on one line where it
/// fits, else broken at the space nearest its middle into two lines (each shrunk, down
/// to 11 px, only where it still would not fit), so a long title is never cut or tiny.
fn titled<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    title: &str,
    size: u32,
) -> Result<DrawingArea<DB, Shift>, String> {
    let width = i64::from(root.dim_in_pixel().0) - 24;
    let fits = |line: &str, px: u32| {
        root.estimate_text_size(line, &("sans-serif", px).into_text_style(&root))
            .is_ok_and(|(w, _)| i64::from(w) <= width)
    };
    let lines: Vec<&str> = match fits(title, size) {
        true => vec![title],
        false => {
            let middle = title.len() / 2;
            let at = title
                .match_indices(' ')
                .map(|(i, _)| i)
                .min_by_key(|&i| i.abs_diff(middle));
            match at {
                Some(i) => vec![&title[..i], &title[i + 1..]],
                None => vec![title],
            }
        }
    };
    let px = (11..=size)
        .rev()
        .find(|&px| lines.iter().all(|l| fits(l, px)))
        .unwrap_or(11);
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let line_height = px as i32 * 13 / 10;
    let style = ("sans-serif", px)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(HPos::Center, VPos::Top));
    let centre = root.dim_in_pixel().0 as i32 / 2;
    for (k, line) in lines.iter().enumerate() {
        root.draw(&Text::new(
            *line,
            (centre, 4 + k as i32 * line_height),
            style.clone(),
        ))
        .map_err(e)?;
    }
    let top = 4 + lines.len() as i32 * line_height + px as i32 / 2;
    Ok(root.split_vertically(top).1)
}

/// The grid lines and tick labels of a log10 y-axis whose chart draws log10 of its
/// values over [y0, y1]: at 1, 2 and 5 times the powers of ten in range, labelled with
/// the value itself.
fn log_ticks<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    (x0, x1): (f64, f64),
    (y0, y1): (f64, f64),
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let ticks: Vec<f64> = (y0.floor() as i32..=y1.ceil() as i32)
        .flat_map(|k| [1.0, 2.0, 5.0].map(|m| m * 10f64.powi(k)))
        .filter(|v| (y0..=y1).contains(&v.log10()))
        .collect();
    let style = ("sans-serif", 13)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(HPos::Right, VPos::Center));
    for v in ticks {
        let y = v.log10();
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(x0, y), (x1, y)],
            grid(),
        )))?;
        chart.draw_series(std::iter::once(
            EmptyElement::at((x0, y))
                + PathElement::new(vec![(0, 0), (-5, 0)], BLACK.stroke_width(1))
                + Text::new(tick(&v), (-8, 0), style.clone()),
        ))?;
    }
    Ok(())
}

/// A count's tick label: a whole number.
fn count(v: &f64) -> String {
    format!("{v:.0}")
}

/// A tick label in its shortest form at a resolution of 1e-6: `20`, not `20.0`;
/// `0.25`; `-1.5`.
fn tick(v: &f64) -> String {
    let r = (v * 1e6).round() / 1e6;
    // -0 reads as 0.
    format!("{}", if r == 0.0 { 0.0 } else { r })
}

/// The colour of a quantity's statistic in every figure, as wood2024 draws them:
/// blue for likelihood (Likelihood-PFI, Likelihood-PDP), orange for entropy; `None`
/// for other statistics (they take the palette in order).
fn statistic_color(quantity: &str) -> Option<RGBColor> {
    let q = Quantity::parse(quantity).filter(|q| q.inference.is_empty())?;
    match q.statistic()? {
        Statistic::Nll => Some(COLORS[0]),
        Statistic::Entropy => Some(COLORS[1]),
        _ => None,
    }
}

/// The palette of series.
pub const COLORS: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
];

/// Registers the bundled DejaVu Sans as plotters' `sans-serif` (once).
pub(crate) fn register_fonts() {
    static FONTS: Once = Once::new();
    FONTS.call_once(|| {
        plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular())
            .unwrap_or_else(|_| panic!("the bundled DejaVu Sans font is valid"));
    });
}

/// Whether `figure` (an experiment's `figure:`) names a figure or table of its paper;
/// `none` is a study of its own, whose plots are not companions of anything.
pub fn is_paper_figure(figure: &str) -> bool {
    !figure.trim().eq_ignore_ascii_case("none")
}

/// Draws `plot` into `<dir>/<name>.svg` and `<dir>/<name>.png`.
pub fn draw(plot: &PlotSpec, setting: &Setting<'_>, out: &RunOutput, dir: &Path) -> Result<()> {
    register_fonts();
    let kind = plot.kind();
    // `figure: none` (a study of its own): a plot's title is its own, else the
    // experiment's, and names no paper figure.
    let title = match (kind.title(), !is_paper_figure(setting.figure)) {
        (Some(own), true) => own.to_string(),
        (None, true) => setting.title.to_string(),
        (Some(own), false) => format!("{own} (companion to {} {})", setting.paper, setting.figure),
        (None, false) => format!("{} ({} {})", setting.title, setting.paper, setting.figure),
    };
    let mut names = setting.names.clone();
    let (at, title) =
        at_grid_values(kind.at(), out, &names, title).map_err(|message| BenchError::Plot {
            path: dir.join(kind.name()),
            message,
        })?;
    let out = at.as_ref().unwrap_or(out);
    let single;
    let (out, title) = match kind.replicate() {
        Some(k) => {
            single = out.only_replicate(k, setting.level);
            if single.summary.is_empty() {
                return Err(BenchError::Plot {
                    path: dir.join(kind.name()),
                    message: format!(
                        "replicate {k} has no tidy rows: the run has {} replicates and must keep its tidy rows",
                        out.replicates
                    ),
                });
            }
            names.one_fit(k);
            (
                &single,
                format!("{title}, one run of the data and fits (replicate {k})"),
            )
        }
        None => (out, title),
    };
    let fig = Figure {
        truth: setting.truth,
        out,
        names: &names,
        title: &title,
    };
    let size = kind.size(&fig);
    let svg = dir.join(format!("{}.svg", kind.name()));
    let png = dir.join(format!("{}.png", kind.name()));
    let err = |path: &Path| {
        let path = path.to_path_buf();
        move |message: String| BenchError::Plot { path, message }
    };
    let root = SVGBackend::new(&svg, size).into_drawing_area();
    titled_figure(root, &title, kind, |area| {
        kind.draw(Canvas::Svg(area), &fig)
    })
    .map_err(err(&svg))?;
    let root = raster::Raster::new(&png, size).into_drawing_area();
    titled_figure(root, &title, kind, |area| {
        kind.draw(Canvas::Png(area), &fig)
    })
    .map_err(err(&png))
}

/// The run at the grid values `at` asks for ([`RunOutput::at_grid_value`]; `None`
/// for every variant) and the title naming them ("…, sample = 1").
fn at_grid_values(
    at: &BTreeMap<String, String>,
    out: &RunOutput,
    names: &labels::Names,
    title: String,
) -> std::result::Result<(Option<RunOutput>, String), String> {
    let mut run: Option<RunOutput> = None;
    let mut settings = Vec::new();
    for (key, value) in at {
        let from = run.as_ref().unwrap_or(out);
        let one = from
            .at_grid_value(key, value)
            .filter(|o| !o.summary.is_empty())
            .ok_or_else(|| format!("`at: {{ {key}: {value} }}` picks no variant of this run"))?;
        run = Some(one);
        settings.push(names.setting(key, value));
    }
    let title = match settings.is_empty() {
        true => title,
        false => format!("{title}, {}", settings.join(", ")),
    };
    Ok((run, title))
}

/// Fills `root` white, writes the figure title, draws the rest with `draw` and
/// writes the file.
fn titled_figure<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    title: &str,
    kind: &dyn PlotKind,
    draw: impl FnOnce(&DrawingArea<DB, Shift>) -> Result<(), String>,
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(e)?;
    let root = titled(root, title, kind.title_px())?;
    draw(&root)?;
    root.present().map_err(e)
}

fn range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
    let pad = 0.05 * (hi - lo).max(1e-9);
    (lo - pad, hi + pad)
}

/// Splits a colour bar of `width` px off the right of `area`: (the rest, the bar's
/// area).
fn with_colour_bar<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    width: u32,
) -> (DrawingArea<DB, Shift>, DrawingArea<DB, Shift>) {
    let (w, _) = area.dim_in_pixel();
    area.split_horizontally(w.saturating_sub(width))
}

/// A vertical viridis colour bar over [lo, hi] with ticks and its label above it, the
/// key to a colour that encodes a value.
fn colour_bar<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    (lo, hi): (f64, f64),
    label: &str,
) -> Result<(), String> {
    use plotters::style::colors::colormaps::ViridisRGB;
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    // The label reads horizontally above the bar (a rotated axis name on the right
    // would be upside down and far from the bar).
    let mut chart = ChartBuilder::on(area)
        .caption(label, ("sans-serif", 13))
        .margin_top(19)
        .margin_bottom(47)
        .margin_left(4)
        .margin_right(4)
        .right_y_label_area_size(48)
        .build_cartesian_2d(0.0..1.0, lo..hi)
        .map_err(e)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .disable_x_axis()
        .y_label_formatter(&tick)
        .label_style(("sans-serif", 12))
        .draw()
        .map_err(e)?;
    const STEPS: usize = 100;
    let step = (hi - lo) / STEPS as f64;
    chart
        .draw_series((0..STEPS).map(|k| {
            let v = lo + (k as f64 + 0.5) * step;
            Rectangle::new(
                [
                    (0.0, lo + k as f64 * step),
                    (1.0, lo + (k + 1) as f64 * step),
                ],
                ViridisRGB::get_color_normalized(v, lo, hi).filled(),
            )
        }))
        .map_err(e)?;
    Ok(())
}

/// A captioned line-chart area over [x0, x1] × [y0, y1].
fn chart_on<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    caption: &str,
    (x0, x1): (f64, f64),
    (y0, y1): (f64, f64),
) -> Result<Chart<'a, DB>, DrawingAreaErrorKind<DB::ErrorType>> {
    ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 15))
        .margin(12)
        .x_label_area_size(35)
        .y_label_area_size(60)
        .build_cartesian_2d(x0..x1, y0..y1)
}

type Chart<'a, DB> = ChartContext<
    'a,
    DB,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

fn draw_vlines<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    vlines: &[f64],
    (y0, y1): (f64, f64),
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    for &v in vlines {
        let steps = 40;
        let dash = (0..steps).step_by(2).map(|k| {
            let a = y0 + (y1 - y0) * k as f64 / steps as f64;
            let b = y0 + (y1 - y0) * (k + 1) as f64 / steps as f64;
            PathElement::new(vec![(v, a), (v, b)], BLACK.stroke_width(1))
        });
        chart.draw_series(dash)?;
    }
    Ok(())
}

/// Red for class 1, blue for class 0.
fn class_color(class: Option<usize>) -> RGBColor {
    if class == Some(1) {
        COLORS[3]
    } else {
        COLORS[0]
    }
}
