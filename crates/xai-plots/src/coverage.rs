//! Figures of a coverage study (learner inference with a truth, whose rows carry the
//! number of refits m as x): coverage and mean width of the intervals against m
//! (molnar2023 Fig. 5 and Figs. I.7–I.14), and mean width against coverage at one m
//! (molnar2023 Fig. 4).

use plotters::coord::Shift;
use plotters::prelude::*;
use xai_error::PlotError;

use std::collections::BTreeMap;

use serde::Deserialize;

use super::key::{Key, Swatch};
use super::labels::{Names, axis_label, learner_estimand, x_axis_label};
use super::print::{Width, grid_height};
use super::{Canvas, Figure, PlotKind, PlotPlan, axes, chart_on, range};
use xai_results::Invalid;
use xai_results::output::RunOutput;
use xai_results::quantity::{Inference, Quantity};
use xai_results::select::Selector;
use xai_results::select::{Row, summary_rows};

plot_settings! {
    /// Summaries of a coverage study against the number of refits m (the rows' x): one
    /// panel per entry of `y` and per value of `rows` × `columns` (grid keys or `model`),
    /// in each a line per value of `color_by` for every quantity of the entry (solid, then
    /// dashed: the uncorrected and the corrected interval), and dashed horizontal lines at
    /// `hlines` (quantity → value; the nominal level). An entry of mean interval widths
    /// is drawn on a log y-axis. The key is below the panels. molnar2023 Fig. 5 and
    /// Figs. I.7–I.14.
    pub struct Lines {
        /// Per panel column, the quantities drawn in it (at most three line styles).
        pub y: Vec<Vec<String>>,
        /// The rows drawn (grid keys, `model`).
        #[serde(default, rename = "where")]
        pub rows_where: Selector,
        /// Grid key (or `model`) whose values get a colour each.
        pub color_by: String,
        /// Grid key (or `model`) whose values get a row of panels each.
        #[serde(default)]
        pub rows: Option<String>,
        /// Grid key (or `model`) whose values get a column of panels each (within
        /// each entry of `y`).
        #[serde(default)]
        pub columns: Option<String>,
        /// Horizontal dashed lines: quantity → value, drawn in that quantity's panels.
        #[serde(default)]
        pub hlines: BTreeMap<String, f64>,
        /// A dashed line y = x over the unit square: chance on a ROC curve
        /// (watson2023 Fig. 3b).
        #[serde(default)]
        pub diagonal: bool,
        /// Shade each line's interval over replicates (the summary's mean ±
        /// t-interval) as a band, said in the key.
        #[serde(default)]
        pub bands: bool,
        /// A quantity whose value at each colour's setting follows the setting's name
        /// in the key (`prediction_shap_auc`: "50% missing (AUC 0.682)").
        #[serde(default)]
        pub annotate: Option<String>,
        /// The values of `color_by` are ordered (a share of missing cells): their
        /// lines take a sequential scale (viridis, dark to green) in their order,
        /// not the series' unordered colours.
        #[serde(default)]
        pub ordered: bool,
    }
}

/// The colour of the `k`-th of `n` values of `color_by`: along viridis from its
/// dark end to its green (its pale yellow end reads poorly on white) where the
/// values are `ordered`, else the `k`-th [`super::palette::series`] colour.
fn line_colour(plot: &Lines, k: usize, n: usize) -> RGBColor {
    match (plot.ordered, n) {
        (true, 2..) => super::viridis(0.8 * k as f64 / (n - 1) as f64, 0.0, 1.0),
        _ => super::palette::series(k),
    }
}

/// Whether the key's entries sit inside the plot's lower-right corner: an ROC
/// figure of one panel, as a matplotlib "lower right" legend (the corner the
/// diagonal crosses and a curve well above chance keeps clear of; what the block
/// covers still shows through it); its notes stay below.
fn key_inside(plot: &Lines, layout: &LinesLayout) -> bool {
    plot.diagonal && plot.y.len() * layout.rows.len().max(1) * layout.columns.len().max(1) == 1
}

/// The key drawn below the panels: the notes alone where the entries sit inside
/// ([`key_inside`]).
fn key_below(plot: &Lines, layout: &LinesLayout, out: &RunOutput, names: &Names) -> Key {
    let key = lines_key(plot, layout, out, names);
    match key_inside(plot, layout) {
        true => key.split_notes().1,
        false => key,
    }
}

impl PlotKind for Lines {
    fn replicate(&self) -> Option<usize> {
        None
    }

    fn uses_data(&self) -> bool {
        false
    }

    fn validate(&self, plan: &PlotPlan<'_>) -> Result<(), Invalid> {
        for q in self
            .y
            .iter()
            .flatten()
            .chain(self.hlines.keys())
            .chain(&self.annotate)
        {
            plan.known(q, q)?;
        }
        if let Some(entry) = self.y.iter().find(|e| e.is_empty() || e.len() > 3) {
            return Err(Invalid::new(
                "y",
                format!(
                    "each entry of `y` lists 1 to 3 quantities (line styles), not {}",
                    entry.len()
                ),
            ));
        }
        for k in std::iter::once(&self.color_by)
            .chain(&self.rows)
            .chain(&self.columns)
        {
            plan.grid_or_model(k)?;
        }
        Ok(())
    }

    fn width(&self, fig: &Figure<'_>) -> Width {
        let (layout, entries) = lines_layout(self, fig.out);
        Width::for_panels(entries * layout.columns.len())
    }

    /// Panels 0.8 as tall as wide (square with a `diagonal`: an ROC curve) below
    /// their caption band, and the key.
    fn height(&self, fig: &Figure<'_>, width: u32) -> u32 {
        let (layout, entries) = lines_layout(self, fig.out);
        let cols = (entries * layout.columns.len()).max(1);
        let key = key_below(self, &layout, fig.out, fig.names).height(width);
        let aspect = if self.diagonal { 1.0 } else { PANEL_ASPECT };
        let panel = width.saturating_sub(side_strip(self, &layout)) / cols as u32;
        let titles = panel_titles(self, &layout, fig.names);
        let band = super::caption_band_of(titles.iter().map(String::as_str), panel);
        let rows = layout.rows.len().max(1);
        grid_height(width, (rows, cols), aspect, key + rows as u32 * band)
    }

    fn draw(&self, canvas: Canvas<'_, '_>, fig: &Figure<'_>) -> Result<(), PlotError> {
        super::on_canvas!(canvas, root => draw_lines(root, self, fig.out, fig.names))
    }
}

plot_settings! {
    /// Mean interval width against coverage at one m (molnar2023 Fig. 4): a panel per
    /// estimand `q` (x = `width_<q>`, y = `coverage_<q>`, and `_corrected` for the
    /// Nadeau–Bengio-corrected interval), a point per cell coloured by `color_by` (a circle
    /// uncorrected, a triangle corrected), with a grey segment joining the points of a
    /// cell that differ only in `join`, and a dashed line at the level.
    pub struct Tradeoff {
        /// The estimands (`prediction_pd`, `loss_pfi`): one panel each.
        pub estimands: Vec<String>,
        /// The rows drawn (grid keys, `model`, `x` = m).
        #[serde(rename = "where")]
        pub rows_where: Selector,
        /// Grid key (or `model`) whose values get a colour each.
        pub color_by: String,
        /// Which intervals: `both` (uncorrected and corrected), or `corrected` only.
        pub intervals: Intervals,
        /// Points that differ only in this are joined: `corrected` (an interval and
        /// its corrected version) or a grid key (e.g. `resampling`).
        pub join: String,
    }
}

impl Tradeoff {
    /// The intervals drawn, whether each is the corrected one.
    fn corrected(&self) -> &'static [bool] {
        match self.intervals {
            Intervals::Both => &[false, true],
            Intervals::Corrected => &[true],
        }
    }
}

impl PlotKind for Tradeoff {
    fn replicate(&self) -> Option<usize> {
        None
    }

    fn uses_data(&self) -> bool {
        false
    }

    fn validate(&self, plan: &PlotPlan<'_>) -> Result<(), Invalid> {
        for e in &self.estimands {
            for (kind, &corrected) in [Inference::Width, Inference::Coverage]
                .into_iter()
                .flat_map(|k| self.corrected().iter().map(move |c| (k, c)))
            {
                plan.known(&summary(e, kind, corrected), e)?;
            }
        }
        plan.grid_or_model(&self.color_by)?;
        if self.join != "corrected" {
            plan.grid_or_model(&self.join)?;
        }
        Ok(())
    }

    fn width(&self, _fig: &Figure<'_>) -> Width {
        Width::for_panels(self.estimands.len())
    }

    /// Panels 0.8 as tall as wide, and two rows of key.
    fn height(&self, _fig: &Figure<'_>, width: u32) -> u32 {
        grid_height(width, (1, self.estimands.len()), PANEL_ASPECT, KEY)
    }

    fn draw(&self, canvas: Canvas<'_, '_>, fig: &Figure<'_>) -> Result<(), PlotError> {
        super::on_canvas!(canvas, root => draw_tradeoff(root, self, fig.out, fig.names))
    }
}

/// The intervals a `tradeoff` plot draws ([`crate::coverage::Tradeoff`]).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Intervals {
    /// The uncorrected interval and its corrected version.
    Both,
    /// The corrected interval only.
    Corrected,
}

/// A panel's height over its width (the paper's panels are about 4:5).
const PANEL_ASPECT: f64 = 0.8;
/// The room of the key: two rows of entries, in layout units.
const KEY: u32 = 50;

/// The quantity of the coverage study's `kind` of `estimand`'s intervals,
/// corrected or not (`width_loss_pfi_corrected`).
fn summary(estimand: &str, kind: Inference, corrected: bool) -> String {
    Quantity::wrapped(estimand, Some(kind), corrected).to_string()
}

/// The values of column `key` among `rows`, in order of first appearance; one empty
/// value when there is no key.
fn values_of(rows: &[Row<'_>], key: Option<&str>) -> Vec<String> {
    let Some(key) = key else {
        return vec![String::new()];
    };
    let mut out: Vec<String> = Vec::new();
    for v in rows.iter().filter_map(|r| r.get(key)) {
        if !out.iter().any(|o| o == v) {
            out.push(v.to_string());
        }
    }
    out
}

/// The summary rows of `quantities` that `sel` selects.
fn rows_of<'a>(out: &'a RunOutput, quantities: &[String], sel: &Selector) -> Vec<Row<'a>> {
    summary_rows(out)
        .into_iter()
        .filter(|r| {
            r.get("quantity")
                .is_some_and(|q| quantities.iter().any(|w| w == q))
        })
        .filter(|r| r.matches(sel))
        .collect()
}

/// Whether `row` takes `value` in column `key` (always, without a key).
fn takes(row: &Row<'_>, key: Option<&str>, value: &str) -> bool {
    key.is_none_or(|k| row.get(k) == Some(value))
}

/// A panel title from the values of its row and column keys.
/// Every panel's caption, row by row: its row's and column's values.
fn panel_titles(plot: &Lines, layout: &LinesLayout, names: &Names) -> Vec<String> {
    let (rows_key, cols_key) = (plot.rows.as_deref(), plot.columns.as_deref());
    layout
        .rows
        .iter()
        .flat_map(|rv| {
            layout
                .columns
                .iter()
                .map(move |cv| title_of(names, &[(rows_key, rv), (cols_key, cv)]))
        })
        .collect()
}

/// The width of the strip down the figure's left that names one quantity shared by
/// a grid of panels (none for one panel or several quantities).
fn side_strip(plot: &Lines, layout: &LinesLayout) -> u32 {
    match plot.y.len() == 1 && layout.rows.len() * layout.columns.len() > 1 {
        true => 20,
        false => 0,
    }
}

fn title_of(names: &Names, parts: &[(Option<&str>, &str)]) -> String {
    parts
        .iter()
        .filter_map(|&(k, v)| k.map(|k| names.setting(k, v)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The legend name of a quantity's line style: whether its interval is corrected.
fn interval_name(corrected: bool) -> &'static str {
    if corrected {
        "corrected (Nadeau-Bengio)"
    } else {
        "uncorrected"
    }
}

/// The panels of a `lines` figure: (rows, columns), the keys' values.
struct LinesLayout {
    rows: Vec<String>,
    columns: Vec<String>,
    colors: Vec<String>,
}

fn lines_layout(plot: &Lines, out: &RunOutput) -> (LinesLayout, usize) {
    let Lines {
        y,
        rows_where,
        color_by,
        rows,
        columns,
        ..
    } = plot;
    let all: Vec<String> = y.iter().flatten().cloned().collect();
    let selected = rows_of(out, &all, rows_where);
    (
        LinesLayout {
            rows: values_of(&selected, rows.as_deref()),
            columns: values_of(&selected, columns.as_deref()),
            colors: values_of(&selected, Some(color_by)),
        },
        y.len(),
    )
}

/// A dashed line of `style` through `points`: dashes for style 1, dots for style 2,
/// solid for style 0.
fn styled_line<DB: DrawingBackend>(
    chart: &mut super::Chart<'_, DB>,
    points: Vec<(f64, f64)>,
    style: usize,
    color: RGBColor,
) -> Result<(), PlotError> {
    let e = crate::drawn::<DB::ErrorType>;
    let stroke = color.stroke_width(2);
    match style {
        0 => chart
            .draw_series(LineSeries::new(points, stroke))
            .map(|_| ()),
        1 => chart
            .draw_series(DashedLineSeries::new(points, 9, 6, stroke))
            .map(|_| ()),
        _ => chart
            .draw_series(DashedLineSeries::new(points, 2, 5, stroke))
            .map(|_| ()),
    }
    .map_err(e)
}

/// The key of a `lines` figure: a colour per value of `color_by`, then the line
/// styles (uncorrected and corrected intervals) and the reference lines.
fn lines_key(plot: &Lines, layout: &LinesLayout, out: &RunOutput, names: &Names) -> Key {
    let mut key = Key::default();
    for (k, value) in layout.colors.iter().enumerate() {
        let mut label = names.setting_value(&plot.color_by, value);
        if let Some(q) = &plot.annotate {
            let at = rows_of(out, std::slice::from_ref(q), &plot.rows_where)
                .into_iter()
                .find(|r| r.get(&plot.color_by) == Some(value.as_str()));
            if let Some(r) = at {
                label = format!("{label} ({} {:.3})", short_name(q), r.value.estimate);
            }
        }
        let colour = line_colour(plot, k, layout.colors.len());
        key.add(label, Swatch::Line(colour, 3, 0));
    }
    for entry in plot.y.iter().filter(|e| e.len() > 1) {
        for (style, q) in entry.iter().enumerate() {
            let corrected = Quantity::parse(q).is_some_and(|q| q.is_corrected());
            key.add(interval_name(corrected), Swatch::Line(BLACK, 2, style));
        }
    }
    for (q, v) in &plot.hlines {
        let what = match Quantity::parse(q).and_then(|q| q.outer()) {
            Some(Inference::Coverage) => "nominal level",
            _ => "reference",
        };
        key.add(
            format!("{what} {}", super::tick(v)),
            Swatch::Line(REFERENCE, 1, 1),
        );
    }
    if plot.diagonal {
        key.add("chance (y = x)", Swatch::Line(REFERENCE, 2, 1));
    }
    if plot.bands {
        let first = plot.y.iter().flatten().next().map_or(Vec::new(), |q| {
            rows_of(out, std::slice::from_ref(q), &plot.rows_where)
        });
        if let Some(r) = first.iter().find(|r| r.value.lower.is_finite()) {
            let q = r.get("quantity").unwrap_or_default();
            key.add(
                format!("shaded: {}", names.interval(q, r.value.n)),
                Swatch::Note,
            );
        }
    }
    key
}

/// A quantity's short name in a key: "AUC" for an area under the ROC curve, else
/// its axis label.
fn short_name(quantity: &str) -> String {
    match Quantity::parse(quantity).is_some_and(|q| q.ends_with_word("auc")) {
        true => "AUC".into(),
        false => axis_label(quantity),
    }
}

/// The colour of reference lines (the nominal level, chance): grey, apart from the
/// black of the line-style key.
const REFERENCE: RGBColor = RGBColor(110, 110, 110);

/// Whether every quantity of a panel entry is a mean interval width, drawn on a
/// log y-axis: widths fall like t(m−1)/√m, so m = 2's would flatten the rest.
/// The y-axis name of quantity `q`, saying where its axis is logarithmic.
fn y_axis_name(q: &str, log: bool) -> String {
    match log {
        true => format!("{} (log scale)", axis_label(q)),
        false => axis_label(q),
    }
}

fn log_scale(entry: &[String]) -> bool {
    entry
        .iter()
        .all(|q| Quantity::parse(q).is_some_and(|q| q.outer() == Some(Inference::Width)))
}

/// Draws a `lines` figure (coverage or width against m) into `root`, with its key
/// below the panels.
fn draw_lines<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    plot: &Lines,
    out: &RunOutput,
    names: &Names,
) -> Result<(), PlotError> {
    let Lines {
        y,
        rows_where,
        color_by,
        rows,
        columns,
        hlines,
        diagonal,
        ..
    } = plot;
    let e = crate::drawn::<DB::ErrorType>;
    let (layout, _) = lines_layout(plot, out);
    let key = key_below(plot, &layout, out, names);
    let (root, strip) = key.split(root);
    key.draw(&strip)?;
    let inside =
        key_inside(plot, &layout).then(|| lines_key(plot, &layout, out, names).split_notes().0);
    let (rows_key, cols_key) = (rows.as_deref(), columns.as_deref());
    // One quantity over a grid of panels: its name once, down the figure's left
    // (a panel's own height is too short for it), the panels unnamed.
    let strip = side_strip(plot, &layout);
    let shared = strip > 0;
    let (name_strip, root) = root.split_horizontally(strip);
    if shared {
        super::side_name(&name_strip, &y_axis_name(&y[0][0], log_scale(&y[0]))).map_err(e)?;
    }
    let areas = root.split_evenly((
        layout.rows.len().max(1),
        (y.len() * layout.columns.len()).max(1),
    ));
    let titles = panel_titles(plot, &layout, names);
    let band = super::caption_band_of(titles.iter().map(String::as_str), areas[0].dim_in_pixel().0);
    for (g, entry) in y.iter().enumerate() {
        let selected = rows_of(out, entry, rows_where);
        // Values as drawn: log10 of widths (with their own ticks).
        let log = log_scale(entry);
        let at = |v: f64| if log { v.log10() } else { v };
        // One y-range per entry (its panels compare), holding its reference lines.
        let (y0, y1) = range(
            selected
                .iter()
                .flat_map(|r| {
                    let v = &r.value;
                    match plot.bands {
                        true => vec![v.estimate, v.lower, v.upper],
                        false => vec![v.estimate],
                    }
                })
                .map(at)
                .chain(entry.iter().filter_map(|q| hlines.get(q).map(|&h| at(h)))),
        );
        let (x0, x1) = range(
            selected
                .iter()
                .filter_map(|r| r.get("x")?.parse::<f64>().ok()),
        );
        for (ri, rv) in layout.rows.iter().enumerate() {
            for (ci, cv) in layout.columns.iter().enumerate() {
                let area =
                    &areas[ri * y.len() * layout.columns.len() + g * layout.columns.len() + ci];
                let title = &titles[ri * layout.columns.len() + ci];
                // An ROC curve reads against its diagonal: a square plot area.
                let frame = super::Frame::new(title, band).square(*diagonal).log_y(log);
                let mut chart = chart_on(area, &frame, (x0, x1), (y0, y1)).map_err(e)?;
                // The y-axis is named on the first column of its entry (once for the
                // figure where it is shared).
                let y_name = match (shared, ci) {
                    (false, 0) => y_axis_name(&entry[0], log),
                    _ => String::new(),
                };
                let mut mesh = axes(&mut chart, &x_axis_label(&entry[0]), &y_name);
                if log {
                    mesh.disable_y_mesh().y_labels(0);
                }
                mesh.draw().map_err(e)?;
                if log {
                    super::log_ticks(&mut chart, (x0, x1), (y0, y1)).map_err(e)?;
                }
                if *diagonal {
                    // Chance runs across the unit square of the ROC.
                    let (a, b) = (x0.max(y0).max(0.0), x1.min(y1).min(1.0));
                    styled_line(&mut chart, vec![(a, a), (b, b)], 1, REFERENCE)?;
                }
                for (k, color_value) in layout.colors.iter().enumerate() {
                    let color = line_colour(plot, k, layout.colors.len());
                    for (style, q) in entry.iter().enumerate() {
                        // (x, estimate, lower, upper), as drawn.
                        let mut points: Vec<(f64, f64, f64, f64)> = selected
                            .iter()
                            .filter(|r| r.get("quantity") == Some(q.as_str()))
                            .filter(|r| takes(r, rows_key, rv) && takes(r, cols_key, cv))
                            .filter(|r| r.get(color_by) == Some(color_value.as_str()))
                            .filter_map(|r| {
                                let v = &r.value;
                                let x = r.get("x")?.parse().ok()?;
                                Some((x, at(v.estimate), at(v.lower), at(v.upper)))
                            })
                            .collect();
                        points.sort_by(|a, b| a.0.total_cmp(&b.0));
                        if plot.bands {
                            let band: Vec<(f64, f64)> = points
                                .iter()
                                .map(|p| (p.0, p.3))
                                .chain(points.iter().rev().map(|p| (p.0, p.2)))
                                .filter(|p| p.1.is_finite())
                                .collect();
                            chart
                                .draw_series(std::iter::once(Polygon::new(
                                    band,
                                    color.mix(0.15).filled(),
                                )))
                                .map_err(e)?;
                        }
                        let line = points.iter().map(|p| (p.0, p.1)).collect();
                        styled_line(&mut chart, line, style, color)?;
                    }
                }
                // Reference lines over the series, thin and dashed, so neither a
                // series at the level (the ideal coverage) hides them nor they it.
                for h in entry.iter().filter_map(|q| hlines.get(q)) {
                    let level = vec![(x0, at(*h)), (x1, at(*h))];
                    chart
                        .draw_series(DashedLineSeries::new(
                            level,
                            5,
                            7,
                            REFERENCE.stroke_width(1),
                        ))
                        .map_err(e)?;
                }
                if let Some(entries) = &inside {
                    let plotting = chart.plotting_area().strip_coord_spec();
                    let (w, h) = plotting.dim_in_pixel();
                    entries.draw_block(&plotting, (w as i32 - 6, h as i32 - 6))?;
                }
            }
        }
    }
    Ok(())
}

/// One point of a trade-off panel: a cell's interval (corrected or not).
struct Point {
    /// The cell's columns other than the quantity (and `corrected`).
    context: Vec<(String, String)>,
    color: String,
    corrected: bool,
    width: f64,
    coverage: f64,
}

/// The (width, coverage) points of `estimand`, one per cell and interval (plain and,
/// per the plot's suffixes, corrected), each coloured by its `color_by` value; a new
/// value is appended to `colors`.
fn tradeoff_points(
    out: &RunOutput,
    plot: &Tradeoff,
    estimand: &str,
    colors: &mut Vec<String>,
) -> Vec<Point> {
    let Tradeoff {
        rows_where,
        color_by,
        ..
    } = plot;
    let mut points: Vec<Point> = Vec::new();
    for &corrected in plot.corrected() {
        let width = summary(estimand, Inference::Width, corrected);
        let coverage = summary(estimand, Inference::Coverage, corrected);
        let rows = rows_of(out, &[width.clone(), coverage.clone()], rows_where);
        let context = |r: &Row<'_>| -> Vec<(String, String)> {
            r.cols
                .iter()
                .filter(|(k, _)| *k != "quantity")
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect()
        };
        for w in rows
            .iter()
            .filter(|r| r.get("quantity") == Some(width.as_str()))
        {
            let cell = context(w);
            let Some(c) = rows
                .iter()
                .find(|r| r.get("quantity") == Some(coverage.as_str()) && context(r) == cell)
            else {
                continue;
            };
            let color = w.get(color_by).unwrap_or_default().to_string();
            if !colors.contains(&color) {
                colors.push(color.clone());
            }
            points.push(Point {
                context: cell,
                color,
                corrected,
                width: w.value.estimate,
                coverage: c.value.estimate,
            });
        }
    }
    points
}

/// Draws a `tradeoff` figure (width against coverage) into `root`.
fn draw_tradeoff<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    plot: &Tradeoff,
    out: &RunOutput,
    names: &Names,
) -> Result<(), PlotError> {
    let Tradeoff {
        estimands,
        color_by,
        join,
        ..
    } = plot;
    let e = crate::drawn::<DB::ErrorType>;
    let intervals = plot.corrected();
    let mut colors: Vec<String> = Vec::new();
    let points: Vec<Vec<Point>> = estimands
        .iter()
        .map(|q| tradeoff_points(out, plot, q, &mut colors))
        .collect();
    // The key: a colour per value of `color_by` in the marker its points have (a
    // triangle where only corrected intervals are drawn), then the markers.
    let mut key = Key::default();
    let only_corrected = intervals == [true];
    for (k, c) in colors.iter().enumerate() {
        let color = super::palette::series(k);
        key.add(
            names.setting_value(color_by, c),
            Swatch::Marker(color, only_corrected),
        );
    }
    if intervals.len() > 1 {
        for corrected in [false, true] {
            key.add(interval_name(corrected), Swatch::Marker(BLACK, corrected));
        }
    }
    key.add(
        format!("nominal level {}", super::tick(&names.level())),
        Swatch::Line(REFERENCE, 2, 1),
    );
    let joined = match join.as_str() {
        "corrected" => "a scenario's uncorrected and corrected interval".to_string(),
        key => format!("the points of a scenario that differ only in {key}"),
    };
    // The segments' black at 0.3 opacity on white.
    key.add(
        format!("segment: joins {joined}"),
        Swatch::Line(RGBColor(179, 179, 179), 1, 0),
    );
    let (root, strip) = key.split(root);
    key.draw(&strip)?;
    let areas = root.split_evenly((1, estimands.len().max(1)));
    let titles: Vec<String> = estimands.iter().map(|q| learner_estimand(q)).collect();
    let band = super::caption_band_of(titles.iter().map(String::as_str), areas[0].dim_in_pixel().0);
    for (((area, title), estimand), points) in areas.iter().zip(&titles).zip(estimands).zip(&points)
    {
        let (x0, x1) = range(points.iter().map(|p| p.width));
        // The coverages and the level, not down to 0: the points fill the panel.
        let (y0, y1) = range(points.iter().map(|p| p.coverage).chain([names.level()]));
        let (y0, y1) = (y0.max(-0.02), y1.min(1.02));
        let frame = super::Frame::new(title, band);
        let mut chart = chart_on(area, &frame, (x0, x1), (y0, y1)).map_err(e)?;
        axes(
            &mut chart,
            &axis_label(&summary(estimand, Inference::Width, false)),
            &axis_label(&summary(estimand, Inference::Coverage, false)),
        )
        .draw()
        .map_err(e)?;
        styled_line(
            &mut chart,
            vec![(x0, names.level()), (x1, names.level())],
            1,
            REFERENCE,
        )?;
        // Points that differ only in `join` are joined by a segment.
        let group = |p: &Point| -> Vec<(String, String)> {
            p.context
                .iter()
                .filter(|(k, _)| k != join)
                .cloned()
                .collect()
        };
        for (i, p) in points.iter().enumerate() {
            for q in points[i + 1..].iter() {
                let joined = match join.as_str() {
                    "corrected" => p.context == q.context && p.corrected != q.corrected,
                    _ => {
                        p.corrected == q.corrected && group(p) == group(q) && p.context != q.context
                    }
                };
                if joined {
                    chart
                        .draw_series(std::iter::once(PathElement::new(
                            vec![(p.width, p.coverage), (q.width, q.coverage)],
                            BLACK.mix(0.3).stroke_width(1),
                        )))
                        .map_err(e)?;
                }
            }
        }
        for p in points {
            let k = colors.iter().position(|c| *c == p.color).unwrap_or(0);
            // Opaque markers on a white marker one unit larger (a rim), so markers
            // that overlap stay apart (plotters fills a triangle whatever its style).
            let color = super::palette::series(k).filled();
            let rim = WHITE.filled();
            let at = (p.width, p.coverage);
            if p.corrected {
                chart
                    .draw_series([
                        TriangleMarker::new(at, 7, rim),
                        TriangleMarker::new(at, 5, color),
                    ])
                    .map_err(e)?;
            } else {
                chart
                    .draw_series([Circle::new(at, 5, rim), Circle::new(at, 4, color)])
                    .map_err(e)?;
            }
        }
    }
    Ok(())
}
