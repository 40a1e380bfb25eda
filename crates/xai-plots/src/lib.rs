//! Figures drawn from a run, as SVG, PNG (300 dpi) and PDF at their printed size
//! ([`print`]), with a bundled font (DejaVu Sans) so no system font is needed; colours
//! from [`palette`]. Plots only draw what the run computed.
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
/// figure, `<name>.svg`, `.png`, `.pdf`), `title` (what it shows, required for a
/// file other than the paper's figure `fig<N>`), `companion` (a figure of ours
/// beside the paper's, drawn as "\<title\> (companion to \<figure\>)"), `width`
/// (its printed width) and `at`, before its own, and [`Named`] reading them.
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
        #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct $Kind {
            /// File stem of the figure (`<name>.svg`, `.png`, `.pdf`).
            pub name: String,
            /// What the figure shows (required for a file other than the paper's
            /// figure `fig<N>`).
            #[serde(default)]
            pub title: Option<String>,
            /// A figure of ours beside the paper's (not one the paper shows): titled
            /// "\<title\> (companion to \<figure\>)"; needs a title and a paper figure.
            #[serde(default)]
            pub companion: bool,
            /// The printed width, `page` (7 in) or `column` (3.4 in); default: the
            /// kind's own choice ([`PlotKind::width`]).
            #[serde(default)]
            pub width: Option<$crate::print::Width>,
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

            fn companion(&self) -> bool {
                self.companion
            }

            fn printed(&self) -> Option<$crate::print::Width> {
                self.width
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
mod glyphs;
pub mod ice_grid;
mod key;
pub mod labels;
pub mod maps;
pub mod palette;
pub mod pdf;
pub mod pixels;
pub mod print;
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

use xai_error::{BenchError, PlotError, Result};
use xai_results::Invalid;
use xai_results::output::RunOutput;

xai_core::registry! {
    /// A figure drawn from the run, as written under `plots:`.
    #[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
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
    /// The file stem of the figure (`<name>.svg`, `.png`, `.pdf`).
    fn name(&self) -> &str;

    /// The figure's own title, if any.
    fn title(&self) -> Option<&str>;

    /// Whether it is a figure of ours beside the paper's (`companion: true`).
    fn companion(&self) -> bool;

    /// The printed width the YAML asks for, if any.
    fn printed(&self) -> Option<print::Width>;

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

    /// The printed width where the YAML gives none: a column for a single panel,
    /// the page for more ([`print::Width::for_panels`]).
    fn width(&self, fig: &Figure<'_>) -> print::Width;

    /// The height below the figure title, in layout units (1/100 in), of the figure
    /// drawn `width` units wide.
    fn height(&self, fig: &Figure<'_>, width: u32) -> u32;

    /// Draws the figure below its title (on white; `on_canvas!` draws with one
    /// generic function on either backend).
    fn draw(&self, canvas: Canvas<'_, '_>, fig: &Figure<'_>) -> std::result::Result<(), PlotError>;
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
    /// The keys of the models the experiment fits.
    pub models: Vec<&'a str>,
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
/// labels in [`tick`] form at 8 pt, about one per 45 units across and one per 22
/// units up (so a small panel is not crowded), the axis names `x` and `y` at 9 pt.
/// Callers add what differs (no grid on a map, category or count labels) before
/// `draw()`.
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
    let (w, h) = chart.plotting_area().dim_in_pixel();
    let (xs, ys) = (chart.x_range(), chart.y_range());
    let (x, y) = (fitted(x, w), fitted(y, h));
    let size = print::axis_name_size(fit_size(&x, w).min(fit_size(&y, h)));
    let mut mesh = chart.configure_mesh();
    mesh.light_line_style(TRANSPARENT)
        .bold_line_style(grid())
        .x_labels(tick_count((xs.start, xs.end), w, 45, 3))
        .y_labels(tick_count((ys.start, ys.end), h, 22, 3))
        .x_label_formatter(&tick)
        .y_label_formatter(&tick)
        .label_style(("sans-serif", print::TICK))
        .axis_desc_style(("sans-serif", size))
        .x_desc(x)
        .y_desc(y);
    mesh
}

/// The label-count hint for an axis over `range` that is `length` units long:
/// plotters' own round values ([`plotters::coord::ranged1d::Ranged::key_points`])
/// are taken at the smallest hint that labels at least `least` of them and at most
/// one per `spacing` units (or `least`, on a short axis), so a short axis still
/// reads (a hint of 4 over [0.2, 1] gives only 0.5 and 1) and a small panel is not
/// crowded; where plotters offers no such count, the fewest above `least` whose
/// labels do not touch.
fn tick_count((lo, hi): (f64, f64), length: u32, spacing: u32, least: usize) -> usize {
    use plotters::coord::ranged1d::Ranged;
    let axis: plotters::coord::types::RangedCoordf64 = (lo..hi).into();
    let most = ((length / spacing.max(1)) as usize).max(least);
    let labelled = |n: usize| axis.key_points(n).len();
    // Else as few more as plotters offers, while 8-pt labels (13 units) still stand
    // apart: (count − 1) · 14 ≤ length.
    let apart = |count: usize| (count.saturating_sub(1) as u32) * 14 <= length;
    (1..=most + 12)
        .find(|&n| (least..=most).contains(&labelled(n)))
        .or_else(|| (1..=most + 12).find(|&n| labelled(n) >= least && apart(labelled(n))))
        .unwrap_or(most)
}

/// An axis name that fits `length` units: whole where it fits at 9 pt; else without
/// its glosses ([`without_glosses`]: "Plasma glucose (2-h OGTT), mg/dL" reads "Plasma
/// glucose, mg/dL"; "(nats)" and "(log scale)" stay) where that fits at 9 pt, so
/// sibling panels keep one size; else with its trailing qualifiers dropped (", mean
/// over refits", " (corrected)") while it is longer than `length` at 7 pt.
fn fitted(name: &str, length: u32) -> String {
    let smallest = print::pt(print::SMALLEST_PT);
    let fits = |n: &str| glyphs::text_width(n, print::LABEL) <= f64::from(length);
    if fits(name) {
        return name.to_string();
    }
    let plain = without_glosses(name);
    if fits(&plain) {
        return plain;
    }
    let mut name = name.to_string();
    while glyphs::text_width(&name, smallest) > f64::from(length) {
        match name.rfind(" (").or_else(|| name.rfind(", ")) {
            Some(i) if i > 0 => name.truncate(i),
            _ => break,
        }
    }
    name
}

/// `name` without its parenthesised glosses of several words ("(2-h OGTT)"); a
/// one-word parenthesis (a unit, "(nats)") and "(log scale)" stay.
fn without_glosses(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(i) = rest.find(" (") {
        let Some(len) = rest[i..].find(')') else {
            break;
        };
        let gloss = &rest[i..=i + len];
        out.push_str(&rest[..i]);
        if gloss == " (log scale)" || !gloss[2..].contains(' ') {
            out.push_str(gloss);
        }
        rest = &rest[i + len + 1..];
    }
    out.push_str(rest);
    out
}

/// The whole type size of `text` on `room` units: 9 pt ([`print::LABEL`]), shrunk
/// (down to 7 pt) only as far as it needs to fit.
fn fit_size(text: &str, room: u32) -> f64 {
    let full = glyphs::text_width(text, print::LABEL);
    match full <= f64::from(room) {
        true => print::LABEL,
        false => (print::LABEL * f64::from(room) / full)
            .floor()
            .max(print::pt(print::SMALLEST_PT)),
    }
}

/// The figure title's lines on a figure `width` units wide ([`print::wrap`], at
/// 10 pt, a margin of 12 units either side).
fn title_lines(title: &str, width: u32) -> Vec<String> {
    print::wrap(title, print::TITLE, f64::from(width) - 24.0)
}

/// The top of a figure title's line `k`: 6 units down, 1.3 lines of type each.
fn title_top(k: usize) -> f64 {
    6.0 + k as f64 * print::TITLE * 1.3
}

/// The height of a figure title of `lines` lines and half a line below it.
fn title_height(lines: usize) -> u32 {
    (title_top(lines) + print::TITLE / 2.0).round() as u32
}

/// `root` below its figure title, drawn in lines ([`title_lines`]) at 10 pt.
fn titled<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    title: &str,
) -> Result<DrawingArea<DB, Shift>, PlotError> {
    let lines = title_lines(title, root.dim_in_pixel().0);
    let e = crate::drawn::<DB::ErrorType>;
    let step = title_top(1) - title_top(0);
    centred_lines(&root, &lines, print::TITLE, (title_top(0), step)).map_err(e)?;
    Ok(root.split_vertically(title_height(lines.len())).1)
}

/// The grid lines and tick labels of a log10 y-axis whose chart draws log10 of its
/// values over [y0, y1]: at [`log_tick_values`], labelled with the value itself.
fn log_ticks<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    (x0, x1): (f64, f64),
    (y0, y1): (f64, f64),
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (_, h) = chart.plotting_area().dim_in_pixel();
    let style = ("sans-serif", print::TICK)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(HPos::Right, VPos::Center));
    for v in log_tick_values((y0, y1), h) {
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

/// The values a log10 axis over [y0, y1] (log10 of the values), `height` units
/// tall, labels: 1, 2 and 5 times the powers of ten in range where their labels
/// stand at least 16 units apart (1 to 2 is 0.3 decades), else 1 and 3 times them
/// (0.48 and 0.52 decades apart), else the powers of ten alone.
fn log_tick_values((y0, y1): (f64, f64), height: u32) -> Vec<f64> {
    let per_decade = f64::from(height) / (y1 - y0).max(1e-9);
    let apart = |decades: f64| per_decade * decades >= 16.0;
    let mantissas: &[f64] = match (apart(2f64.log10()), apart(3f64.log10())) {
        (true, _) => &[1.0, 2.0, 5.0],
        (false, true) => &[1.0, 3.0],
        (false, false) => &[1.0],
    };
    (y0.floor() as i32..=y1.ceil() as i32)
        .flat_map(|k| mantissas.iter().map(move |m| m * 10f64.powi(k)))
        .filter(|v| (y0..=y1).contains(&v.log10()))
        .collect()
}

/// A count's tick label: a whole number.
fn count(v: &f64) -> String {
    format!("{v:.0}")
}

/// A tick label in its shortest form at a resolution of 1e-6, with a real minus
/// sign (U+2212): `20`, not `20.0`; `0.25`; `−1.5`.
fn tick(v: &f64) -> String {
    let r = (v * 1e6).round() / 1e6;
    // -0 reads as 0.
    match r {
        0.0 => "0".to_string(),
        r if r < 0.0 => format!("\u{2212}{}", -r),
        r => format!("{r}"),
    }
}

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

/// Draws `plot` into `<dir>/<name>.svg`, `<dir>/<name>.png` (300 dpi) and
/// `<dir>/<name>.pdf` (from the SVG, [`pdf`]), all at the figure's printed size.
pub fn draw(plot: &PlotSpec, setting: &Setting<'_>, out: &RunOutput, dir: &Path) -> Result<()> {
    register_fonts();
    let kind = plot.kind();
    // `figure: none` (a study of its own): a plot's title is its own, else the
    // experiment's, and names no paper figure.
    // The citation "(paper Fig. N)" is one word to the title's line breaks (no-break
    // spaces), so a title never breaks inside it.
    let cite = format!("{} {}", setting.paper, setting.figure).replace(' ', "\u{a0}");
    let title = match (kind.title(), !is_paper_figure(setting.figure)) {
        (Some(own), true) => own.to_string(),
        (None, true) => setting.title.to_string(),
        (Some(own), false) if kind.companion() => format!("{own} (companion to {cite})"),
        // An own title that names its figure ("Fig. I.7: …") takes the paper before it.
        (Some(own), false) if own.starts_with("Fig") => format!("{}\u{a0}{own}", setting.paper),
        (Some(own), false) => format!("{own} ({cite})"),
        (None, false) => format!("{} ({cite})", setting.title),
    };
    let mut names = setting.names.clone();
    let (at, title) =
        at_grid_values(kind.at(), out, &names, title).map_err(|source| BenchError::Plot {
            path: dir.join(kind.name()),
            source,
        })?;
    let out = at.as_ref().unwrap_or(out);
    let single;
    let (out, title) = match kind.replicate() {
        Some(k) => {
            single = out.only_replicate(k, setting.level);
            if single.summary.is_empty() {
                return Err(BenchError::Plot {
                    path: dir.join(kind.name()),
                    source: PlotError::Missing(format!(
                        "replicate {k} has no tidy rows: the run has {} replicates and must keep its tidy rows",
                        out.replicates
                    )),
                });
            }
            names.one_fit(k);
            (&single, format!("{title}, one fit (replicate\u{a0}{k})"))
        }
        None => (out, title),
    };
    let fig = Figure {
        truth: setting.truth,
        out,
        names: &names,
        title: &title,
    };
    let width = kind.printed().unwrap_or_else(|| kind.width(&fig)).units();
    let size = (
        width,
        title_height(title_lines(&title, width).len()) + kind.height(&fig, width),
    );
    let svg = dir.join(format!("{}.svg", kind.name()));
    let png = dir.join(format!("{}.png", kind.name()));
    let err = |path: &Path| {
        let path = path.to_path_buf();
        move |source: PlotError| BenchError::Plot { path, source }
    };
    let svg_text = || {
        let mut text = String::new();
        {
            let root = SVGBackend::with_string(&mut text, size).into_drawing_area();
            titled_figure(root, &title, |area| kind.draw(Canvas::Svg(area), &fig))
                .map_err(err(&svg))?;
        }
        Ok::<String, BenchError>(text)
    };
    // Drawn once to measure its axis names, then at one size for them all.
    print::one_axis_name_size(
        || drop(svg_text()),
        || {
            let text = print::physical_svg(&svg_text()?);
            std::fs::write(&svg, &text).map_err(xai_error::io_err(&svg))?;
            let pdf_path = dir.join(format!("{}.pdf", kind.name()));
            let pdf = pdf::from_svg(&text).map_err(err(&pdf_path))?;
            std::fs::write(&pdf_path, pdf).map_err(xai_error::io_err(&pdf_path))?;
            let root = raster::Raster::new(&png, size).into_drawing_area();
            titled_figure(root, &title, |area| kind.draw(Canvas::Png(area), &fig))
                .map_err(err(&png))
        },
    )
}

/// The run at the grid values `at` asks for ([`RunOutput::at_grid_value`]; `None`
/// for every variant) and the title naming them ("…, sample = 1").
fn at_grid_values(
    at: &BTreeMap<String, String>,
    out: &RunOutput,
    names: &labels::Names,
    title: String,
) -> std::result::Result<(Option<RunOutput>, String), PlotError> {
    let mut run: Option<RunOutput> = None;
    let mut settings = Vec::new();
    for (key, value) in at {
        let from = run.as_ref().unwrap_or(out);
        let one = from
            .at_grid_value(key, value)
            .filter(|o| !o.summary.is_empty())
            .ok_or_else(|| PlotError::NoVariant {
                key: key.clone(),
                value: value.clone(),
            })?;
        run = Some(one);
        settings.push(names.setting(key, value));
    }
    let title = match settings.is_empty() {
        true => title,
        false => format!("{title}, {}", settings.join(", ")),
    };
    Ok((run, title))
}

/// A drawing backend's error as a [`PlotError::Draw`].
fn drawn<E: std::error::Error + Send + Sync>(e: DrawingAreaErrorKind<E>) -> PlotError {
    PlotError::Draw(e.to_string())
}

/// Fills `root` white, writes the figure title, draws the rest with `draw` and
/// writes the file.
fn titled_figure<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    title: &str,
    draw: impl FnOnce(&DrawingArea<DB, Shift>) -> Result<(), PlotError>,
) -> Result<(), PlotError> {
    let e = crate::drawn::<DB::ErrorType>;
    root.fill(&WHITE).map_err(e)?;
    let root = titled(root, title)?;
    draw(&root)?;
    root.present().map_err(e)
}

/// The finite values' [min, max], padded by 5 % of its width on either side.
fn range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
    let pad = 0.05 * (hi - lo).max(1e-9);
    (lo - pad, hi + pad)
}

/// The share of the ICE curves' values a panel's y-range holds: the middle 99.6 %,
/// so a few outlying curves (0.2 % of the values above, 0.2 % below) cannot squash
/// the rest (wood2024 Fig. 7's one curve at 0.5 nats over ~300 near 0).
pub const ROBUST_SHARE: f64 = 0.996;

/// The key's note on the `cut` of `total` ICE curves that leave their panel's
/// robust y-range ([`ROBUST_SHARE`]).
fn cut_note(cut: usize, total: usize) -> String {
    let (leave, are) = match cut {
        1 => ("leaves", "is"),
        _ => ("leave", "are"),
    };
    format!(
        "{cut} of {total} curves {leave} the y-range (the middle {}\u{a0}% of values) and {are} \
         cut at its edge",
        tick(&(100.0 * ROBUST_SHARE))
    )
}

/// The sample quantile at `p` of sorted `v` (linear between order statistics, as
/// numpy's default: position p · (n − 1)).
fn quantile(v: &[f64], p: f64) -> f64 {
    let at = p * (v.len() - 1) as f64;
    let (i, f) = (at.floor() as usize, at.fract());
    match v.get(i + 1) {
        Some(next) => v[i] + f * (next - v[i]),
        None => v[i],
    }
}

/// A range robust to outliers: the middle `share` of the finite `values` (their
/// (1 − share)/2 and (1 + share)/2 quantiles), widened to hold every one of `whole`
/// (a PD drawn in full), padded as [`range`] pads.
fn robust_range(values: impl Iterator<Item = f64>, share: f64, whole: &[f64]) -> (f64, f64) {
    let mut v: Vec<f64> = values.filter(|x| x.is_finite()).collect();
    v.sort_by(f64::total_cmp);
    let tail = (1.0 - share) / 2.0;
    let ends = match v.is_empty() {
        true => Vec::new(),
        false => vec![quantile(&v, tail), quantile(&v, 1.0 - tail)],
    };
    range(ends.into_iter().chain(whole.iter().copied()))
}

/// The pieces of the polyline `points` inside y ∈ [y0, y1]: each segment crossing
/// an edge is cut where it crosses (linear between its ends), so a curve leaving a
/// robust range runs to the panel's edge and no further.
fn clip_y(points: &[(f64, f64)], (y0, y1): (f64, f64)) -> Vec<Vec<(f64, f64)>> {
    let inside = |y: f64| (y0..=y1).contains(&y);
    // The edge a value beyond the range lies past.
    let edge = |y: f64| if y < y0 { y0 } else { y1 };
    let cross = |a: (f64, f64), b: (f64, f64), y: f64| {
        let t = (y - a.1) / (b.1 - a.1);
        (a.0 + t * (b.0 - a.0), y)
    };
    let mut pieces: Vec<Vec<(f64, f64)>> = Vec::new();
    let mut current: Vec<(f64, f64)> = Vec::new();
    if let Some(&first) = points.first().filter(|p| inside(p.1)) {
        current.push(first);
    }
    for pair in points.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        match (inside(a.1), inside(b.1)) {
            (true, true) => current.push(b),
            (true, false) => {
                current.push(cross(a, b, edge(b.1)));
                pieces.push(std::mem::take(&mut current));
            }
            (false, true) => {
                current.push(cross(a, b, edge(a.1)));
                current.push(b);
            }
            // From below the range to above it, or back: the part across it.
            (false, false) if edge(a.1) != edge(b.1) => {
                pieces.push(vec![cross(a, b, edge(a.1)), cross(a, b, edge(b.1))]);
            }
            (false, false) => {}
        }
    }
    pieces.push(current);
    pieces.retain(|piece| piece.len() > 1);
    pieces
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

/// A vertical colour bar of `scale` ([`viridis`], [`greys`]) over [lo, hi] with ticks
/// and its label above it, the key to a colour that encodes a value.
fn colour_bar<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    (lo, hi): (f64, f64),
    label: &str,
    scale: Scale,
) -> Result<(), PlotError> {
    let e = crate::drawn::<DB::ErrorType>;
    // The label reads horizontally above the bar (a rotated axis name on the right
    // would be upside down and far from the bar), in lines as wide as the bar's strip.
    let lines = print::wrap(
        label,
        print::TICK,
        f64::from(area.dim_in_pixel().0.saturating_sub(4)),
    );
    centred_lines(area, &lines, print::TICK, (6.0, 16.0)).map_err(e)?;
    let mut chart = ChartBuilder::on(area)
        .margin_top(14 + 16 * lines.len() as u32)
        .margin_bottom(40)
        .margin_left(4)
        .margin_right(4)
        .right_y_label_area_size(40)
        .build_cartesian_2d(0.0..1.0, lo..hi)
        .map_err(e)?;
    let (_, h) = chart.plotting_area().dim_in_pixel();
    chart
        .configure_mesh()
        .disable_mesh()
        .disable_x_axis()
        .set_all_tick_mark_size(4)
        .y_labels(tick_count((lo, hi), h, 22, 3))
        .y_label_formatter(&tick)
        .label_style(("sans-serif", print::TICK))
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
                scale(v, lo, hi).filled(),
            )
        }))
        .map_err(e)?;
    Ok(())
}

/// A colour scale: the colour of `v` on [lo, hi].
type Scale = fn(f64, f64, f64) -> RGBColor;

/// Viridis (a feature's value, a Shapley-coloured feature).
fn viridis(v: f64, lo: f64, hi: f64) -> RGBColor {
    use plotters::style::colors::colormaps::ViridisRGB;
    ViridisRGB::get_color_normalized(v, lo, hi)
}

/// Greys from near-white (lo) to dark grey (hi): a background under points in the
/// class colours (an entropy map), which a coloured scale would share colours with.
fn greys(v: f64, lo: f64, hi: f64) -> RGBColor {
    let t = match hi > lo {
        true => ((v - lo) / (hi - lo)).clamp(0.0, 1.0),
        false => 0.0,
    };
    let g = (245.0 - t * (245.0 - 70.0)).round() as u8;
    RGBColor(g, g, g)
}

/// A panel's caption on a panel `width` units wide, at type size `size` (9 pt, 8 pt
/// for small multiples): one line where it fits, else broken at spaces into
/// balanced lines ([`print::wrap`]), so a long caption is neither cut nor shrunk and
/// every caption of a figure has one size; and that size.
fn caption_lines(caption: &str, width: u32, size: f64) -> (Vec<String>, f64) {
    let room = f64::from(width.saturating_sub(8));
    match caption.is_empty() {
        true => (Vec::new(), size),
        false => (print::wrap(caption, size, room), size),
    }
}

/// The height of a caption band of `lines` lines of type `size`, with a margin
/// (none without a caption).
fn caption_band(lines: usize, size: f64) -> u32 {
    match lines {
        0 => 0,
        n => (n as f64 * size * 1.2 + 6.0).round() as u32,
    }
}

/// The caption band that holds every one of `captions` on panels `width` units
/// wide: the panels of a figure (or of a row) share it, so their axes align.
fn caption_band_of<'a>(captions: impl IntoIterator<Item = &'a str>, width: u32) -> u32 {
    caption_band_at(captions, width, print::LABEL)
}

/// [`caption_band_of`] for captions of type size `size`.
fn caption_band_at<'a>(captions: impl IntoIterator<Item = &'a str>, width: u32, size: f64) -> u32 {
    captions
        .into_iter()
        .map(|c| caption_band(caption_lines(c, width, size).0.len(), size))
        .max()
        .unwrap_or(0)
}

/// Draws `caption` ([`caption_lines`]) centred in the top `band` units of `area`
/// (the band its row shares, [`caption_band_of`]), its last line at the band's
/// foot: a one-line caption beside a two-line one sits just above its own axes,
/// not nearer the panel above.
fn draw_caption<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    caption: &str,
    band: u32,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    draw_caption_at(area, caption, print::LABEL, band)
}

/// [`draw_caption`] at type size `size`.
fn draw_caption_at<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    caption: &str,
    size: f64,
    band: u32,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (lines, size) = caption_lines(caption, area.dim_in_pixel().0, size);
    let spare = band.saturating_sub(caption_band(lines.len(), size));
    centred_lines(area, &lines, size, (4.0 + f64::from(spare), size * 1.2))
}

/// Draws `lines` of type `size` centred across `area`, the first's top `top` units
/// down and each next `step` further.
fn centred_lines<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    lines: &[String],
    size: f64,
    (top, step): (f64, f64),
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let style = ("sans-serif", size)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(HPos::Center, VPos::Top));
    let centre = area.dim_in_pixel().0 as i32 / 2;
    for (k, line) in lines.iter().enumerate() {
        let y = (top + k as f64 * step) as i32;
        area.draw(&Text::new(line.as_str(), (centre, y), style.clone()))?;
    }
    Ok(())
}

/// A y-axis name shared by a figure's panels, turned a quarter and centred down
/// `strip` (the figure's left edge), 9 pt, shrunk to 7 pt where the strip is short.
fn side_name<DB: DrawingBackend>(
    strip: &DrawingArea<DB, Shift>,
    name: &str,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (w, h) = strip.dim_in_pixel();
    let style = ("sans-serif", fit_size(name, h))
        .into_font()
        .transform(FontTransform::Rotate270)
        .color(&BLACK)
        .pos(Pos::new(HPos::Center, VPos::Top));
    strip.draw(&Text::new(name, (w as i32 / 2 - 6, h as i32 / 2), style))
}

/// A chart's margin on every side, in layout units.
const MARGIN: u32 = 8;
/// The height of a chart's x tick labels and axis name, in layout units.
const X_LABELS: u32 = 35;

/// The width of a y-axis's tick labels, tick marks and name: the widest label of
/// the ticks the axis draws over `y` on a plot `height` units tall (plotters' own
/// key points, or [`log_tick_values`] for a log axis), so its name never runs over
/// them.
fn y_label_area(y: (f64, f64), height: u32, log: bool) -> u32 {
    let labels: Vec<String> = match log {
        true => log_tick_values(y, height).iter().map(tick).collect(),
        false => {
            use plotters::coord::ranged1d::Ranged;
            let axis: plotters::coord::types::RangedCoordf64 = (y.0..y.1).into();
            axis.key_points(tick_count(y, height, 22, 3))
                .iter()
                .map(tick)
                .collect()
        }
    };
    let widest = labels
        .iter()
        .map(|l| glyphs::text_width(l, print::TICK))
        .fold(0.0, f64::max);
    // Tick mark and gap (13), the name's height (12) and a margin (7).
    widest.ceil() as u32 + 32
}

/// How a panel's chart is framed ([`chart_on`]): its caption in a band its row
/// shares, a square plot area or not, and a log y-axis's labels or linear ones.
pub(crate) struct Frame<'c> {
    caption: &'c str,
    band: u32,
    square: bool,
    log_y: bool,
}

impl<'c> Frame<'c> {
    /// `caption` in a band `band` units tall ([`caption_band_of`]).
    fn new(caption: &'c str, band: u32) -> Self {
        Self {
            caption,
            band,
            square: false,
            log_y: false,
        }
    }

    /// A square plot area, centred (a scatter or map over a square region in equal
    /// aspect, an ROC curve against its diagonal).
    fn square(self, square: bool) -> Self {
        Self { square, ..self }
    }

    /// The y-axis is labelled by [`log_ticks`].
    fn log_y(self, log_y: bool) -> Self {
        Self { log_y, ..self }
    }
}

/// A captioned chart over [x0, x1] × [y0, y1] framed as `frame` says: the caption
/// drawn above it ([`draw_caption`]), the y labels as wide as their ticks
/// ([`y_label_area`]), and a square plot area's leftover room in its margins, half
/// each side.
fn chart_on<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    frame: &Frame<'_>,
    (x0, x1): (f64, f64),
    (y0, y1): (f64, f64),
) -> Result<Chart<'a, DB>, DrawingAreaErrorKind<DB::ErrorType>> {
    let (w, h) = area.dim_in_pixel();
    draw_caption(area, frame.caption, frame.band)?;
    let plot_h = h.saturating_sub(frame.band + X_LABELS + 2 * MARGIN);
    let y_labels = y_label_area((y0, y1), plot_h, frame.log_y);
    let room_x = w.saturating_sub(y_labels + 2 * MARGIN);
    let side = room_x.min(plot_h);
    let (extra_x, extra_y) = match frame.square {
        true => (room_x - side, plot_h - side),
        false => (0, 0),
    };
    ChartBuilder::on(area)
        .margin_left(MARGIN + extra_x / 2)
        .margin_right(MARGIN + extra_x - extra_x / 2)
        .margin_top(MARGIN + frame.band + extra_y / 2)
        .margin_bottom(MARGIN + extra_y - extra_y / 2)
        .x_label_area_size(X_LABELS)
        .y_label_area_size(y_labels)
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

#[cfg(test)]
mod tests {
    use super::{clip_y, fitted, quantile, robust_range, without_glosses};

    /// The grey scale runs from near-white at its low end to dark grey at its high
    /// end, darker with the value, clamped outside [lo, hi]; a one-value range is
    /// its low end.
    #[test]
    fn greys_darken_with_the_value_and_clamp() {
        use plotters::style::RGBColor;
        let g = |v: f64| super::greys(v, 0.0, 2.0);
        assert_eq!(g(0.0), RGBColor(245, 245, 245));
        assert_eq!(g(2.0), RGBColor(70, 70, 70));
        assert!(g(0.5).0 > g(1.5).0);
        assert_eq!((g(-1.0), g(9.0)), (g(0.0), g(2.0)));
        assert_eq!(super::greys(3.0, 1.0, 1.0), RGBColor(245, 245, 245));
    }

    #[test]
    fn a_long_axis_name_loses_its_gloss_before_its_size() {
        let name = "Plasma glucose (2-h OGTT), mg/dL";
        assert_eq!(without_glosses(name), "Plasma glucose, mg/dL");
        assert_eq!(
            without_glosses("Mean width (of the interval) (log scale)"),
            "Mean width (log scale)"
        );
        assert_eq!(
            without_glosses("Shapley value of Plasma glucose (2-h OGTT) (nats)"),
            "Shapley value of Plasma glucose (nats)"
        );
        assert_eq!(without_glosses("P(biopsy positive)"), "P(biopsy positive)");
        // Room for the whole name: kept; for the plain one at 9 pt: the plain one.
        let whole = super::glyphs::text_width(name, super::print::LABEL).ceil() as u32;
        assert_eq!(fitted(name, whole), name);
        assert_eq!(fitted(name, whole - 10), "Plasma glucose, mg/dL");
        // Room for less at 9 pt: shrunk, and cut at its qualifiers only below 7 pt.
        let plain = super::glyphs::text_width("Plasma glucose, mg/dL", super::print::LABEL);
        let room = plain.floor() as u32 - 1;
        let small = super::print::pt(super::print::SMALLEST_PT);
        let got = fitted(name, room);
        assert_ne!(got, "Plasma glucose, mg/dL");
        assert!(
            super::glyphs::text_width(&got, small) <= f64::from(room),
            "{got}"
        );
    }

    #[test]
    fn a_curve_leaving_the_range_is_cut_at_its_edges() {
        let curve = [(0.0, 0.5), (1.0, 1.5), (2.0, 0.5), (3.0, -1.0), (4.0, 2.0)];
        let pieces = clip_y(&curve, (0.0, 1.0));
        assert_eq!(
            pieces,
            vec![
                vec![(0.0, 0.5), (0.5, 1.0)],
                vec![(1.5, 1.0), (2.0, 0.5), (2.0 + 1.0 / 3.0, 0.0)],
                vec![(3.0 + 1.0 / 3.0, 0.0), (3.0 + 2.0 / 3.0, 1.0)],
            ]
        );
        // A curve inside is one piece, unchanged; one beyond has none.
        assert_eq!(
            clip_y(&curve[..1], (0.0, 1.0)),
            Vec::<Vec<(f64, f64)>>::new()
        );
        assert_eq!(
            clip_y(&[(0.0, 0.2), (1.0, 0.8)], (0.0, 1.0)),
            vec![vec![(0.0, 0.2), (1.0, 0.8)]]
        );
        assert!(clip_y(&[(0.0, 3.0), (1.0, 4.0)], (0.0, 1.0)).is_empty());
    }

    #[test]
    fn a_robust_range_leaves_out_the_outlying_values_but_keeps_the_whole_pd() {
        assert_eq!(quantile(&[1.0, 2.0, 3.0, 4.0], 0.5), 2.5);
        // 999 values in [0, 1] and one at 100: the range ignores the 100.
        let values = (0..999).map(|k| k as f64 / 998.0).chain([100.0]);
        let (lo, hi) = robust_range(values, 0.996, &[]);
        assert!(lo > -0.06 && hi < 1.06, "{lo} {hi}");
        // A PD beyond the curves' middle is drawn whole.
        let values = (0..999).map(|k| k as f64 / 998.0).chain([100.0]);
        let (_, hi) = robust_range(values, 0.996, &[2.0]);
        assert!(hi > 2.0 && hi < 2.2, "{hi}");
    }
}

#[cfg(test)]
mod ticks {
    use super::{tick, tick_count};

    /// The labels of a log axis over [y0, y1] decades on `height` units.
    fn log_tick_values(y: (f64, f64), height: u32) -> Vec<String> {
        super::log_tick_values(y, height).iter().map(tick).collect()
    }

    #[test]
    fn a_log_axis_labels_as_densely_as_its_labels_stand_apart() {
        let named = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        // Two decades on 200 units: 1-2-5 (0.3 decades = 30 units apart).
        assert_eq!(
            log_tick_values((-2.0, 0.0), 200),
            named(&["0.01", "0.02", "0.05", "0.1", "0.2", "0.5", "1"])
        );
        // On 90 units 1 and 2 would stand 13.5 apart: 1 and 3.
        assert_eq!(
            log_tick_values((-2.0, 0.0), 90),
            named(&["0.01", "0.03", "0.1", "0.3", "1"])
        );
        // On 40 units, decades alone.
        assert_eq!(
            log_tick_values((-2.0, 0.0), 40),
            named(&["0.01", "0.1", "1"])
        );
    }

    use plotters::coord::ranged1d::Ranged;
    use plotters::coord::types::RangedCoordf64;

    fn labels((lo, hi): (f64, f64), n: usize) -> usize {
        let axis: RangedCoordf64 = (lo..hi).into();
        axis.key_points(n).len()
    }

    #[test]
    fn a_short_axis_still_gets_three_labels_and_a_small_one_is_not_crowded() {
        // Coverage over [0.2, 1.02] on 130 units: a plain hint of 5 labels only 0.5
        // and 1; the count found labels at least three and at most 130 / 22.
        let n = tick_count((0.2, 1.02), 130, 22, 3);
        assert!((3..=5).contains(&labels((0.2, 1.02), n)), "{n}");
        // A 40-unit small multiple over [−0.45, 0.42]: plotters' round values are
        // 0 alone or five 0.2 apart (56 units for their labels): the count keeps
        // them from touching, however few that leaves (the grid thins them: its
        // `thinned_labels`).
        let n = tick_count((-0.45, 0.42), 40, 20, 2);
        assert!(labels((-0.45, 0.42), n) <= 3, "{n}");
    }
}
