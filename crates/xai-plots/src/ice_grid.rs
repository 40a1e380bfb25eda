//! A grid of small ICE panels, one per feature (icefi2022 App. A and B): the kept
//! curves of the first replicate, the PD in gold, each row's own value as a green
//! dot; optionally each curve solid only near the row's own value, and centred at
//! the smallest grid value (c-ICE).

use plotters::coord::Shift;
use plotters::prelude::*;
use xai_core::interpolate;
use xai_error::PlotError;

use super::key::{Key, Swatch};
use super::labels::Names;
use super::print::{Width, grid_height};
use super::{Canvas, Figure, PlotKind, PlotPlan, range, tick};
use xai_results::Invalid;
use xai_results::output::RunOutput;
use xai_results::table::{CurveRow, SummaryRow};

/// The PD's colour (the authors' gold).
const GOLD: RGBColor = RGBColor(212, 160, 23);
/// The colour of each row's own value.
const GREEN: RGBColor = RGBColor(44, 160, 44);

plot_settings! {
    /// One small panel per feature in a grid of `columns` columns (icefi2022 App. A and
    /// B): the kept ICE curves of one replicate (the first) and the PD in gold, each row's
    /// own value marked by a green dot. With `near: k`, a feature with more than 10 grid
    /// values draws each curve dashed grey and its part within ±k·σ of the row's own value
    /// solid black (σ the population sd of the feature over the first replicate's
    /// training rows); with `centred`, every curve and the PD minus its value at the
    /// smallest grid value (c-ICE).
    pub struct IceGrid {
        /// The PD quantity (`prediction_pd`).
        pub pd: String,
        /// The ICE quantity of the kept rows (`prediction_ice`).
        pub ice: String,
        /// Panels per row of the grid (default 4).
        #[serde(default = "four")]
        pub columns: usize,
        /// Half-width, in sds of the feature, of the solid part of each curve.
        #[serde(default)]
        pub near: Option<f64>,
        /// Centre every curve at the smallest grid value.
        #[serde(default)]
        pub centred: bool,
        /// `[k, n]`: draw only part k of n, the features cut into n runs of equal
        /// length in the run's order (the last may be shorter), so a grid too tall
        /// for a page spans several figures (icefi2022 App. A and B: 32 features,
        /// two figures of 16).
        #[serde(default)]
        pub part: Option<[usize; 2]>,
    }
}

fn four() -> usize {
    4
}

impl PlotKind for IceGrid {
    fn replicate(&self) -> Option<usize> {
        None
    }

    fn uses_data(&self) -> bool {
        true
    }

    fn validate(&self, plan: &PlotPlan<'_>) -> Result<(), Invalid> {
        plan.known(&self.pd, &self.pd)?;
        plan.kept(&self.ice, "`curves:` on an `ice` method")?;
        if self.columns == 0 {
            return Err(Invalid::new(
                "columns",
                "an ice_grid needs at least 1 column",
            ));
        }
        if let Some([k, n]) = self.part
            && !(1..=n).contains(&k)
        {
            return Err(Invalid::new(
                "part",
                format!("`part: [k, n]` draws part k of n, 1 ≤ k ≤ n; [{k}, {n}] is not one"),
            ));
        }
        if self.near.is_some_and(|k| !(k > 0.0 && k.is_finite())) {
            return Err(Invalid::new("near", "`near` is a positive number of sds"));
        }
        Ok(())
    }

    fn width(&self, fig: &Figure<'_>) -> Width {
        Width::for_panels(cells(fig.out, &self.style()).len().min(self.columns))
    }

    /// Plots 0.62 as tall as wide below each row's caption band, `columns` a row
    /// (16 panels in 4 columns take about 6 in of a 7-in-wide page), and the key.
    fn height(&self, fig: &Figure<'_>, width: u32) -> u32 {
        let style = self.style();
        let list = cells(fig.out, &style);
        let columns = self.columns.clamp(1, list.len().max(1));
        let key = key(&style, fig.out, &list).height(width);
        let width = width.saturating_sub(SIDE);
        let panel_w = width / columns as u32;
        let bands: u32 = list
            .chunks(columns)
            .map(|row| band(row, fig.names, panel_w))
            .sum();
        grid_height(
            width,
            (list.len().div_ceil(columns), columns),
            0.62,
            key + bands,
        )
    }

    fn draw(&self, canvas: Canvas<'_, '_>, fig: &Figure<'_>) -> Result<(), PlotError> {
        let style = self.style();
        super::on_canvas!(canvas, root => draw(root, fig.out, style, fig.names))
    }
}

impl IceGrid {
    /// What it draws.
    fn style(&self) -> Style<'_> {
        Style {
            pd: &self.pd,
            ice: &self.ice,
            columns: self.columns,
            near: self.near,
            centred: self.centred,
            part: self.part,
        }
    }
}

/// What an `ice_grid` plot draws (see [`IceGrid`]).
struct Style<'a> {
    /// The PD quantity.
    pd: &'a str,
    /// The ICE quantity.
    ice: &'a str,
    /// Panels per row.
    columns: usize,
    /// Half-width in sds of the solid part of a curve (features with > 10 values).
    near: Option<f64>,
    /// Subtract each curve's value at the smallest grid value.
    centred: bool,
    /// Part k of n of the features (`[k, n]`), or all.
    part: Option<[usize; 2]>,
}

/// Features with more grid values than this count as continuous (solid only near
/// the row's own value).
const CONTINUOUS: usize = 10;

/// The features in the run's order with their PD rows (first model and variant: the
/// mean over replicates, which is the drawn replicate's own PD when the run has one,
/// as icefi2022's figures are drawn from one forest).
fn panels<'a>(out: &'a RunOutput, pd: &str) -> Vec<(&'a str, Vec<&'a SummaryRow>)> {
    let mut list: Vec<(&str, Vec<&SummaryRow>)> = Vec::new();
    let Some(first) = out.summary.iter().find(|r| r.quantity == pd) else {
        return list;
    };
    for r in out
        .summary
        .iter()
        .filter(|r| r.quantity == pd && r.model == first.model && r.labels == first.labels)
    {
        match list.iter_mut().find(|(f, _)| *f == r.feature) {
            Some((_, rows)) => rows.push(r),
            None => list.push((&r.feature, vec![r])),
        }
    }
    list
}

/// One feature's panel: its PD rows, its curves (of the first replicate, its model
/// and variant), the PD's and the curves' values (centred where asked) and the
/// y-range they are drawn on.
struct Cell<'a> {
    feature: &'a str,
    pd: Vec<&'a SummaryRow>,
    curves: Vec<&'a CurveRow>,
    pd_values: Vec<f64>,
    curve_values: Vec<Vec<f64>>,
    y: (f64, f64),
}

impl Cell<'_> {
    /// The imputed mean of a 0/1 feature whose grid is 0, that mean and 1: such a
    /// feature reads on a categorical axis (0, the mean, 1), since on a 0-1 axis the
    /// step to a mean of ~0.003 is a wall at 0.
    fn binary(&self) -> Option<f64> {
        let grid: Vec<f64> = self.pd.iter().filter_map(|r| r.x).collect();
        match grid.as_slice() {
            [0.0, m, 1.0] => Some(*m),
            _ => None,
        }
    }

    /// How many of its curves leave its y-range (and are cut at its edge).
    fn cut(&self) -> usize {
        let (y0, y1) = self.y;
        self.curve_values
            .iter()
            .filter(|v| v.iter().any(|y| !(y0..=y1).contains(y)))
            .count()
    }
}

/// The features of part k of n (`[k, n]`: the k-th of n runs of ⌈count / n⌉ in
/// order) of `count`, as a range of their positions; all without a part.
fn part_range(part: Option<[usize; 2]>, count: usize) -> std::ops::Range<usize> {
    match part {
        Some([k, n]) if (1..=n).contains(&k) => {
            let run = count.div_ceil(n);
            (run * (k - 1)).min(count)..(run * k).min(count)
        }
        _ => 0..count,
    }
}

/// The panels' cells, in the run's feature order (of the part drawn).
fn cells<'a>(out: &'a RunOutput, style: &Style<'_>) -> Vec<Cell<'a>> {
    let shift = |values: &[f64]| match (style.centred, values.first()) {
        (true, Some(&v0)) => values.iter().map(|v| v - v0).collect(),
        _ => values.to_vec(),
    };
    let all = panels(out, style.pd);
    let drawn = part_range(style.part, all.len());
    all.into_iter()
        .skip(drawn.start)
        .take(drawn.len())
        .map(|(feature, pd)| {
            let first = pd[0];
            let curves: Vec<&CurveRow> = out
                .curves
                .iter()
                .filter(|c| {
                    c.quantity == style.ice
                        && c.replicate == 0
                        && c.feature == *feature
                        && c.model == first.model
                        && c.labels == first.labels
                })
                .collect();
            let pd_values = shift(&pd.iter().map(|r| r.value.estimate).collect::<Vec<_>>());
            let curve_values: Vec<Vec<f64>> = curves.iter().map(|c| shift(&c.values)).collect();
            let y = match super::robust_range(
                curve_values.iter().flatten().copied(),
                super::ROBUST_SHARE,
                &pd_values,
            ) {
                // Every curve one value (a constant feature, centred): a readable
                // unit range.
                (lo, hi) if hi - lo < 1e-6 => ((lo + hi) / 2.0 - 0.5, (lo + hi) / 2.0 + 0.5),
                bounds => bounds,
            };
            Cell {
                feature,
                pd,
                curves,
                pd_values,
                curve_values,
                y,
            }
        })
        .collect()
}

/// A panel's caption: the feature's name, and the one value a feature constant in
/// the data takes (it has no curve to draw).
fn caption(cell: &Cell<'_>, names: &Names) -> String {
    let values: Vec<f64> = cell.pd.iter().filter_map(|r| r.x).collect();
    match values.as_slice() {
        [only] => format!(
            "{} (one value in the data: {})",
            names.feature(cell.feature),
            tick(only)
        ),
        _ => names.feature(cell.feature).to_string(),
    }
}

/// Draws the grid.
fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    out: &RunOutput,
    style: Style<'_>,
    names: &Names,
) -> Result<(), PlotError> {
    let list = cells(out, &style);
    if list.is_empty() {
        return Err(PlotError::Missing(format!(
            "the run has no `{}` rows to draw",
            style.pd
        )));
    }
    let key = key(&style, out, &list);
    let (root, strip) = key.split(root);
    key.draw(&strip)?;
    // The panels' one y-axis name, once down the left (small multiples).
    let (side, root) = root.split_horizontally(SIDE);
    super::side_name(&side, &y_name(&style, out, names)).map_err(crate::drawn)?;
    let root = &root;
    let columns = style.columns.clamp(1, list.len());
    let width = root.dim_in_pixel().0 / columns as u32;
    // A caption band per row: the row's panels align, other rows keep their height.
    let bands: Vec<u32> = list
        .chunks(columns)
        .map(|row| band(row, names, width))
        .collect();
    let plots = root
        .dim_in_pixel()
        .1
        .saturating_sub(bands.iter().sum::<u32>());
    let rows = list.len().div_ceil(columns) as u32;
    let mut top = 0;
    for (row, cells) in list.chunks(columns).enumerate() {
        let height = bands[row] + plots / rows;
        let strip = root
            .clone()
            .shrink((0, top), (root.dim_in_pixel().0, height));
        top += height;
        let areas = strip.split_evenly((1, columns));
        for (area, cell) in areas.iter().zip(cells) {
            let caption = caption(cell, names);
            let (w, h) = area.dim_in_pixel();
            let inner = area
                .clone()
                .shrink((CAPTION_GAP, 0), (w.saturating_sub(2 * CAPTION_GAP), h));
            super::draw_caption_at(&inner, &caption, CAPTION, bands[row]).map_err(crate::drawn)?;
            let area = area.clone().split_vertically(bands[row]).1;
            panel(&area, out, &style, cell)?;
        }
    }
    Ok(())
}

/// Small multiples: captions at 8 pt.
const CAPTION: f64 = super::print::TICK;

/// The width of the strip down the left that names the panels' y-axes, in layout
/// units.
const SIDE: u32 = 24;

/// Room kept free either side of a caption, so neighbouring captions stand apart,
/// in layout units.
const CAPTION_GAP: u32 = 6;

/// The caption band of a row of cells, each `width` units wide: room for its
/// longest caption's lines, kept [`CAPTION_GAP`] from either edge.
fn band(row: &[Cell<'_>], names: &Names, width: u32) -> u32 {
    let captions: Vec<String> = row.iter().map(|c| caption(c, names)).collect();
    let room = width.saturating_sub(2 * CAPTION_GAP);
    super::caption_band_at(captions.iter().map(String::as_str), room, CAPTION)
}

/// The panels' y-axis name: what the curves are, centred where they are.
fn y_name(style: &Style<'_>, out: &RunOutput, names: &Names) -> String {
    let y = y_label(out, style.pd, names);
    match style.centred {
        true => format!("{y}, centred at the smallest grid value"),
        false => y,
    }
}

/// The key: the PD, the curves (solid near the row's own value with `near`), the
/// rows' own values, that each panel has its own y-range (their one name runs down
/// the figure's left, [`y_name`]), how 0/1 axes read, the part drawn and how many
/// curves leave their panel's y-range.
fn key(style: &Style<'_>, out: &RunOutput, cells: &[Cell<'_>]) -> Key {
    let mut key = Key::default();
    key.add("PD", Swatch::Line(GOLD, 3, 0));
    match style.near {
        Some(k) => {
            let k = tick(&k);
            key.add(
                format!("ICE of a row, within ±{k} sd of its own value"),
                Swatch::Line(FAINT, 1, 0),
            );
            key.add(
                format!("farther (features with over {CONTINUOUS} values)"),
                Swatch::Line(DASHED, 1, 1),
            );
        }
        None => key.add("ICE of a row", Swatch::Line(FAINT, 1, 0)),
    }
    key.add("the row's own value", Swatch::Marker(GREEN, false));
    key.add("y-axes: each panel on its own range", Swatch::Note);
    if cells.iter().any(|c| c.binary().is_some()) {
        key.add(
            "x-axes of 0/1 features with an imputed mean, broken (//): 0, the mean and 1, equally spaced",
            Swatch::Note,
        );
    }
    let count = panels(out, style.pd).len();
    let drawn = part_range(style.part, count);
    if drawn.len() < count {
        key.add(
            format!(
                "features {}\u{2013}{} of the {count}, in the data's order",
                drawn.start + 1,
                drawn.end
            ),
            Swatch::Note,
        );
    }
    let cut: usize = cells.iter().map(Cell::cut).sum();
    if cut > 0 {
        let total: usize = cells.iter().map(|c| c.curves.len()).sum();
        key.add(super::cut_note(cut, total), Swatch::Note);
    }
    key
}

/// The curves' black at 0.3 opacity on white.
const FAINT: RGBColor = RGBColor(179, 179, 179);
/// The dashed parts' grey at 0.4 opacity on white.
const DASHED: RGBColor = RGBColor(213, 213, 213);

/// The y-axis name: P(class 1) for a classifier's predictions, by the class's name
/// ("P(biopsy positive)"), else the quantity's.
fn y_label(out: &RunOutput, pd: &str, names: &Names) -> String {
    let classes = out
        .train_sample
        .as_ref()
        .is_some_and(|d| matches!(d.y(), xai_core::Target::Classes { .. }));
    match (classes, pd) {
        (true, "prediction_pd") => format!("P({})", names.class(1)),
        _ => names.axis(pd),
    }
}

/// The population sd of `feature` over the first replicate's training rows.
fn feature_sd(out: &RunOutput, feature: &str) -> Option<f64> {
    let data = out.train_sample.as_ref()?;
    let j = data.feature_names().iter().position(|n| n == feature)?;
    Some(data.x().column(j).std(0.0))
}

/// The position of grid value `v` on a binary feature's categorical axis (0, the
/// imputed value between, 1), or `v` itself on any other axis.
fn position(binary: Option<f64>, v: f64) -> f64 {
    match binary {
        Some(_) if v == 0.0 || v == 1.0 => v,
        Some(_) => 0.5,
        None => v,
    }
}

/// A small panel's y labels over `range` on `length` units: the label-count hint
/// and the step of the labelled values. Where plotters' round values leave fewer
/// than two labels (0 alone over [−0.45, 0.42]), the next finer set is taken and
/// every other one labelled (−0.4, 0, 0.4 of the five 0.2 apart), so the scale
/// reads and no labels touch.
fn thinned_labels(range: (f64, f64), length: u32) -> (usize, f64) {
    use plotters::coord::ranged1d::Ranged;
    let axis: plotters::coord::types::RangedCoordf64 = (range.0..range.1).into();
    let step = |points: &[f64]| match points {
        [a, b, ..] => b - a,
        _ => range.1 - range.0,
    };
    let n = super::tick_count(range, length, 20, 2);
    let points = axis.key_points(n);
    if points.len() >= 2 {
        return (n, step(&points));
    }
    let finer = (n + 1..n + 12)
        .find(|&m| axis.key_points(m).len() >= 3)
        .unwrap_or(n);
    (finer, 2.0 * step(&axis.key_points(finer)))
}

/// One feature's panel, below its caption.
fn panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    out: &RunOutput,
    style: &Style<'_>,
    cell: &Cell<'_>,
) -> Result<(), PlotError> {
    let e = crate::drawn::<DB::ErrorType>;
    let grid: Vec<f64> = cell.pd.iter().filter_map(|r| r.x).collect();
    let binary = cell.binary();
    let at = |v: f64| position(binary, v);
    // A constant feature has one grid value: a unit-wide axis around it.
    let (x0, x1) = match (grid.as_slice(), binary) {
        ([only], _) => (only - 0.5, only + 0.5),
        (_, Some(_)) => (-0.15, 1.15),
        _ => range(grid.iter().copied()),
    };
    let (y0, y1) = cell.y;
    let mut chart = ChartBuilder::on(area)
        .margin(6)
        .x_label_area_size(20)
        .y_label_area_size(36)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(e)?;
    let zero_one = |v: &f64| match binary {
        Some(m) if (v - 0.5).abs() < 1e-9 => tick(&((m * 1e3).round() / 1e3)),
        _ if *v == 0.0 || *v == 1.0 => tick(v),
        _ => String::new(),
    };
    let two_valued = grid.len() == 2 && grid == [0.0, 1.0];
    let (w, h) = chart.plotting_area().dim_in_pixel();
    let y_ticks = thinned_labels((y0, y1), h);
    let y_label = |v: &f64| {
        let k = v / y_ticks.1;
        match (k - k.round()).abs() < 1e-6 {
            true => tick(v),
            false => String::new(),
        }
    };
    let mut mesh = chart.configure_mesh();
    mesh.light_line_style(TRANSPARENT)
        .bold_line_style(BLACK.mix(0.12))
        // Small multiples: at least two labels that do not collide.
        .y_labels(y_ticks.0)
        .y_label_formatter(&y_label)
        .label_style(("sans-serif", super::print::TICK));
    // A constant feature is labelled at its one value alone.
    let only = |v: &f64| match grid.as_slice() {
        [g] if (v - g).abs() < 1e-9 => tick(v),
        _ => String::new(),
    };
    match (grid.len(), binary.is_some() || two_valued) {
        (1, _) => mesh.x_labels(3).x_label_formatter(&only).disable_x_mesh(),
        // 0 and 1 alone: no unlabelled tick between them to read as a mean.
        (_, true) if two_valued => mesh.x_labels(2).x_label_formatter(&tick).disable_x_mesh(),
        (_, true) => mesh
            .x_labels(3)
            .x_label_formatter(&zero_one)
            .disable_x_mesh(),
        (_, false) => mesh
            .x_labels(super::tick_count((x0, x1), w, 45, 2))
            .x_label_formatter(&tick),
    };
    mesh.draw().map_err(e)?;
    // A categorical 0/1 axis is broken between its slots (0, the mean, 1), so its
    // equal spacing does not read as a linear scale.
    if binary.is_some() {
        let base = area.get_base_pixel();
        for x in [0.25, 0.75] {
            let (px, py) = chart.backend_coord(&(x, y0));
            let (px, py) = (px - base.0, py - base.1);
            area.draw(&Rectangle::new(
                [(px - 2, py - 3), (px + 2, py + 3)],
                WHITE.filled(),
            ))
            .map_err(e)?;
            for dx in [-3, 3] {
                area.draw(&PathElement::new(
                    vec![(px + dx - 2, py + 4), (px + dx + 2, py - 4)],
                    BLACK.stroke_width(1),
                ))
                .map_err(e)?;
            }
        }
    }
    let own = out.feature_names.iter().position(|n| n == cell.feature);
    let half = match (style.near, grid.len() > CONTINUOUS) {
        (Some(k), true) => feature_sd(out, cell.feature).map(|sd| k * sd),
        _ => None,
    };
    let black = BLACK.mix(0.3);
    for (c, values) in cell.curves.iter().zip(&cell.curve_values) {
        let x_own = own.and_then(|j| c.row_values.get(j).copied());
        let points: Vec<(f64, f64)> = c
            .grid
            .iter()
            .map(|&g| at(g))
            .zip(values.iter().copied())
            .collect();
        let near = match (half, x_own) {
            (Some(h), Some(x)) => {
                let (lo, hi) = (x - h, x + h);
                Some(
                    std::iter::once(lo.max(c.grid[0]))
                        .chain(c.grid.iter().copied().filter(|&g| g > lo && g < hi))
                        .chain(std::iter::once(hi.min(c.grid[c.grid.len() - 1])))
                        .map(|g| (g, interpolate(&c.grid, values, g)))
                        .collect::<Vec<_>>(),
                )
            }
            _ => None,
        };
        for piece in super::clip_y(&points, (y0, y1)) {
            match near {
                Some(_) => chart.draw_series(DashedLineSeries::new(
                    piece,
                    4,
                    4,
                    RGBColor(150, 150, 150).mix(0.4).stroke_width(1),
                )),
                None => chart.draw_series(LineSeries::new(piece, black.stroke_width(1))),
            }
            .map_err(e)?;
        }
        for piece in near.iter().flat_map(|n| super::clip_y(n, (y0, y1))) {
            chart
                .draw_series(LineSeries::new(piece, black.stroke_width(1)))
                .map_err(e)?;
        }
        if let Some(x) = x_own {
            let y = interpolate(&c.grid, values, x);
            if (y0..=y1).contains(&y) {
                chart
                    .draw_series(std::iter::once(Circle::new((at(x), y), 2, GREEN.filled())))
                    .map_err(e)?;
            }
        }
    }
    chart
        .draw_series(LineSeries::new(
            grid.iter()
                .map(|&g| at(g))
                .zip(cell.pd_values.iter().copied()),
            GOLD.stroke_width(3),
        ))
        .map_err(e)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::thinned_labels;

    /// Part k of n cuts the features into runs of ⌈count / n⌉ in order, the last
    /// shorter; the parts cover every feature once; without a part, all are drawn.
    #[test]
    fn parts_cover_every_feature_once_in_order() {
        assert_eq!(super::part_range(Some([1, 2]), 32), 0..16);
        assert_eq!(super::part_range(Some([2, 2]), 32), 16..32);
        assert_eq!(super::part_range(Some([3, 3]), 10), 8..10);
        assert_eq!(super::part_range(None, 7), 0..7);
        for (count, n) in [(32, 2), (10, 3), (5, 4), (3, 3)] {
            let covered: Vec<usize> = (1..=n)
                .flat_map(|k| super::part_range(Some([k, n]), count))
                .collect();
            assert_eq!(covered, (0..count).collect::<Vec<_>>(), "{count} in {n}");
        }
    }

    #[test]
    fn a_small_panel_labels_every_other_round_value_rather_than_0_alone() {
        let (_, step) = thinned_labels((-0.45, 0.42), 40);
        assert!((step - 0.4).abs() < 1e-9, "{step}");
        // Where two round values fit, they are labelled as they are.
        let (_, step) = thinned_labels((-0.05, 0.3), 60);
        assert!(step <= 0.2, "{step}");
    }
}
