//! Figures drawn from a run, as SVG and PNG, with a bundled font (DejaVu Sans) so no
//! system font is needed; one module per kind: [`bars`], [`curves`] (PD and ICE),
//! [`ice_grid`] (a grid of small ICE panels, one per feature),
//! [`scatter`], [`maps`] (the entropy map of a permutation), [`coverage`] (a coverage
//! study's coverage and width), [`replicates`] (every replicate's PD) and [`shap`]
//! (SHAP summary and dependence plots of kept Shapley values). Plots only draw what
//! the run computed.

pub mod bars;
pub mod coverage;
pub mod curves;
pub mod ice_grid;
pub mod labels;
pub mod maps;
pub mod pixels;
pub mod raster;
pub mod replicates;
pub mod scatter;
pub mod shap;

use std::path::Path;
use std::sync::Once;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::error::{BenchError, Result};
use crate::plan::Experiment;
use crate::run::RunOutput;
use crate::spec::PlotSpec;

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

/// `root` below its figure title: the title in `size`-px type, or smaller (down to
/// 11 px) where that would be wider than the figure, so a long title is never cut.
fn titled<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    title: &str,
    size: u32,
) -> Result<DrawingArea<DB, Shift>, String> {
    let width = i64::from(root.dim_in_pixel().0) - 24;
    let fits = |px: u32| {
        root.estimate_text_size(title, &("sans-serif", px).into_text_style(&root))
            .is_ok_and(|(w, _)| i64::from(w) <= width)
    };
    let px = (11..=size).rev().find(|&px| fits(px)).unwrap_or(11);
    root.titled(title, ("sans-serif", px))
        .map_err(|e| e.to_string())
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
    match quantity.split('_').next() {
        Some("likelihood") => Some(COLORS[0]),
        Some("entropy") => Some(COLORS[1]),
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

/// Draws `plot` into `<dir>/<name>.svg` and `<dir>/<name>.png`.
pub fn draw(exp: &Experiment, plot: &PlotSpec, out: &RunOutput, dir: &Path) -> Result<()> {
    register_fonts();
    let title = match plot.title() {
        Some(own) => format!(
            "{own} (companion to {} {})",
            exp.spec.paper, exp.spec.figure
        ),
        None => format!(
            "{} ({} {})",
            exp.spec.title, exp.spec.paper, exp.spec.figure
        ),
    };
    let mut names = labels::Names::of(&exp.spec)?;
    let single;
    let (out, title) = match plot.replicate() {
        Some(k) => {
            single = out.only_replicate(k, exp.spec.level);
            if single.summary.is_empty() {
                return Err(BenchError::Plot {
                    path: dir.join(plot.name()),
                    message: format!(
                        "replicate {k} has no tidy rows: the run has {} replicates and must keep its tidy rows",
                        out.replicates
                    ),
                });
            }
            names.one_fit(k);
            (&single, format!("{title}, one fit"))
        }
        None => (out, title),
    };
    match plot {
        PlotSpec::Bars {
            name,
            quantities,
            panels,
            order_by,
            rank,
            top,
            shared_y,
            side_by_side,
            horizontal,
            ..
        } => {
            let order = bars::BarOrder {
                features: bars::feature_order(out, order_by.as_deref()),
                rank: *rank,
                top: *top,
                shared_y: *shared_y,
                side_by_side: *side_by_side,
                horizontal: *horizontal,
            };
            bars::draw(&title, name, quantities, panels, &order, &names, out, dir)
        }
        PlotSpec::Curves { name, .. }
        | PlotSpec::Lines { name, .. }
        | PlotSpec::Tradeoff { name, .. }
        | PlotSpec::Scatter { name, .. }
        | PlotSpec::ShapSummary { name, .. }
        | PlotSpec::ShapDependence { name, .. }
        | PlotSpec::PdReplicates { name, .. }
        | PlotSpec::IceGrid { name, .. }
        | PlotSpec::PixelMaps { name, .. }
        | PlotSpec::PermutationMap { name, .. } => {
            let svg = dir.join(format!("{name}.svg"));
            let png = dir.join(format!("{name}.png"));
            let err = |path: &Path| {
                let path = path.to_path_buf();
                move |message: String| BenchError::Plot { path, message }
            };
            let size = size(exp, plot, out, &names);
            draw_figure(
                SVGBackend::new(&svg, size).into_drawing_area(),
                &title,
                exp,
                plot,
                out,
                &names,
            )
            .map_err(err(&svg))?;
            draw_figure(
                raster::Raster::new(&png, size).into_drawing_area(),
                &title,
                exp,
                plot,
                out,
                &names,
            )
            .map_err(err(&png))
        }
    }
}

/// The pixel size of a figure other than bars.
fn size(exp: &Experiment, plot: &PlotSpec, out: &RunOutput, names: &labels::Names) -> (u32, u32) {
    match plot {
        PlotSpec::PdReplicates { .. } => {
            pd_replicates(exp, plot, &|what| replicates::size(out, what))
        }
        PlotSpec::Curves { .. } => curves::size(plot, out, names),
        PlotSpec::IceGrid { pd, columns, .. } => ice_grid::size(out, pd, *columns),
        PlotSpec::Lines { .. } | PlotSpec::Tradeoff { .. } => coverage::size(plot, out),
        PlotSpec::PermutationMap { .. } => (1500, 500),
        PlotSpec::PixelMaps {
            quantities,
            rows,
            panels,
            ..
        } => pixels::size(out, quantities, *rows, panels.as_deref()),
        PlotSpec::ShapSummary {
            quantity, panels, ..
        } => shap::size(out, quantity, panels.as_deref()),
        PlotSpec::ShapDependence {
            quantity,
            feature,
            panels,
            ..
        } => shap::dependence_size(out, quantity, feature, panels.as_deref()),
        _ => (560, 560),
    }
}

/// Draws a figure other than bars.
fn draw_figure<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    title: &str,
    exp: &Experiment,
    plot: &PlotSpec,
    out: &RunOutput,
    names: &labels::Names,
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(e)?;
    let root = titled(root, title, 18)?;
    match plot {
        PlotSpec::Curves { .. } => curves::draw(&root, plot, out, names)?,
        PlotSpec::IceGrid {
            pd,
            ice,
            columns,
            near,
            centred,
            ..
        } => ice_grid::draw(
            &root,
            out,
            ice_grid::Style {
                pd,
                ice,
                columns: *columns,
                near: *near,
                centred: *centred,
            },
            names,
        )?,
        PlotSpec::Lines { .. } => coverage::draw_lines(&root, plot, out, names)?,
        PlotSpec::Tradeoff { .. } => coverage::draw_tradeoff(&root, plot, out, names)?,
        PlotSpec::Scatter { x, y, shade, .. } => scatter::draw(&root, out, x, y, *shade)?,
        PlotSpec::PermutationMap { .. } => maps::draw(&root, out)?,
        PlotSpec::PixelMaps {
            quantities,
            rows,
            panels,
            ..
        } => pixels::draw(&root, out, quantities, *rows, panels.as_deref(), names)?,
        PlotSpec::ShapSummary {
            quantity, panels, ..
        } => shap::draw(&root, out, quantity, panels.as_deref(), names)?,
        PlotSpec::ShapDependence {
            quantity,
            feature,
            panels,
            color_by,
            ..
        } => shap::draw_dependence(
            &root,
            out,
            quantity,
            feature,
            (panels.as_deref(), color_by.as_deref()),
            names,
        )?,
        PlotSpec::PdReplicates { .. } => {
            pd_replicates(exp, plot, &|what| replicates::draw(&root, out, what, names))?
        }
        PlotSpec::Bars { .. } => unreachable!("bars are drawn by plot::draw"),
    }
    root.present().map_err(e)
}

/// Calls `with` on what a `pd_replicates` plot draws, its true PD from the
/// experiment's DGP.
fn pd_replicates<T>(
    exp: &Experiment,
    plot: &PlotSpec,
    with: &dyn Fn(&replicates::PdReplicates<'_>) -> T,
) -> T {
    let PlotSpec::PdReplicates {
        pd,
        feature,
        panels,
        mean,
        show,
        ..
    } = plot
    else {
        unreachable!("called for pd_replicates plots")
    };
    let truth = |grid: &[f64]| {
        let dgp = exp.spec.data.dgp.as_ref()?.dgp();
        let j = dgp.feature_names().iter().position(|f| f == feature)?;
        dgp.partial_dependence(j, grid)
    };
    with(&replicates::PdReplicates {
        pd,
        feature,
        panels,
        mean,
        show,
        truth: &truth,
    })
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

/// The series legend in the upper right corner.
fn legend<'a, DB: DrawingBackend + 'a>(
    chart: &mut Chart<'a, DB>,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    legend_at(chart, SeriesLabelPosition::UpperRight)
}

/// The series legend at `position`, on a translucent white box.
fn legend_at<'a, DB: DrawingBackend + 'a>(
    chart: &mut Chart<'a, DB>,
    position: SeriesLabelPosition,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    chart
        .configure_series_labels()
        .position(position)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 13))
        .draw()
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
