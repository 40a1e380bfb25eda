//! Bars per feature with interval whiskers: one row of panels per quantity, one
//! column per model and value of a grid key.

use super::key::{Key, Swatch};
use super::labels::Names;
use super::print::Width;
use super::{Canvas, Figure, PlotKind, PlotPlan};
use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use xai_error::PlotError;
use xai_results::Invalid;
use xai_results::output::RunOutput;
use xai_results::table::SummaryRow;

/// One panel: a title and its summary rows.
struct Panel<'a> {
    title: String,
    rows: Vec<&'a SummaryRow>,
}

/// Which features a bar panel shows, in which order.
pub struct BarOrder {
    /// Per model, a fixed order (features not in it go last); a model without one
    /// takes the first model's; empty for the data's order.
    pub features: Vec<(String, Vec<String>)>,
    /// Each panel by its own estimates instead, largest first.
    pub rank: bool,
    /// Only the first `top` features.
    pub top: Option<usize>,
    /// One y-range for every quantity.
    pub shared_y: bool,
    /// All quantities in one row.
    pub side_by_side: bool,
    /// With `side_by_side`, at most this many panels a row.
    pub wrap: Option<usize>,
    /// Horizontal bars, names on the y-axis.
    pub horizontal: bool,
    /// Each horizontal bar's estimate printed beyond its whisker.
    pub values: bool,
}

/// Per model (in run order), its features by decreasing estimate of `quantity` at
/// the grid values of the first summary row (wood2024 Figs. 8 and 11 order each
/// model's bars by its own L-PFI); empty when no order is asked for.
pub fn feature_order(out: &RunOutput, quantity: Option<&str>) -> Vec<(String, Vec<String>)> {
    let Some(q) = quantity else { return Vec::new() };
    let rows: Vec<&SummaryRow> = out.summary.iter().filter(|r| r.quantity == q).collect();
    let Some(first) = rows.first() else {
        return Vec::new();
    };
    let mut orders: Vec<(String, Vec<&SummaryRow>)> = Vec::new();
    for r in rows.iter().filter(|r| r.labels == first.labels) {
        match orders.iter_mut().find(|(m, _)| *m == r.model) {
            Some((_, panel)) => panel.push(r),
            None => orders.push((r.model.clone(), vec![r])),
        }
    }
    orders
        .into_iter()
        .map(|(model, mut panel)| {
            panel.sort_by(|a, b| b.value.estimate.total_cmp(&a.value.estimate));
            (model, panel.iter().map(|r| r.feature.clone()).collect())
        })
        .collect()
}

plot_settings! {
    /// Bars per feature with interval whiskers: one row of panels per quantity, one column
    /// per model and value of `panels` (a grid key).
    pub struct Bars {
        /// Quantities drawn side by side.
        pub quantities: Vec<String>,
        /// Grid key whose values get a panel each.
        #[serde(default)]
        pub panels: Option<String>,
        /// Order the features by this quantity's estimate, largest first (each
        /// model's by its own, at the first panel's grid values).
        #[serde(default)]
        pub order_by: Option<String>,
        /// Order each panel's features by its own estimates, largest first (a ranking
        /// per quantity, as cid2021 Fig. 2-3 draw them); overrides `order_by`.
        #[serde(default)]
        pub rank: bool,
        /// Draw only the first `top` features of each panel's order.
        #[serde(default)]
        pub top: Option<usize>,
        /// One y-range for all quantities (rows of panels), so their sizes compare
        /// (e.g. a conditional PFI beside the marginal one).
        #[serde(default)]
        pub shared_y: bool,
        /// All quantities side by side in one row (cid2021 Fig. 2-3 draw their
        /// rankings so) instead of one row of panels per quantity.
        #[serde(default)]
        pub side_by_side: bool,
        /// With `side_by_side`, at most this many panels a row, the rest wrapped into
        /// further rows (a 2 × 2 grid of four rankings instead of one wide row).
        #[serde(default)]
        pub wrap: Option<usize>,
        /// Horizontal bars with the feature names on the y-axis, largest on top (the
        /// ranking panels of cid2021 Fig. 2-3).
        #[serde(default)]
        pub horizontal: bool,
        /// Draw replicate k's own estimates and intervals (one fit, as a paper's
        /// figure shows one) instead of the mean over replicates with the interval
        /// over replicates; needs the tidy rows.
        #[serde(default)]
        pub replicate: Option<usize>,
        /// Draw only these models' panels (model keys; all by default): a companion
        /// figure can leave out a model whose bars are all 0 by construction.
        #[serde(default)]
        pub models: Option<Vec<String>>,
        /// With `horizontal`, each bar's estimate printed beyond its whisker, so bars
        /// too short to see on an axis set by the largest still read (cid2021 Fig. 3's
        /// CID, whose two largest are ten times the rest).
        #[serde(default)]
        pub values: bool,
    }
}

impl Bars {
    /// The panels (a title and its summary rows each) and the order of their bars.
    fn panel_list<'a>(&self, fig: &Figure<'a>) -> (Vec<Panel<'a>>, BarOrder) {
        let order = BarOrder {
            features: feature_order(fig.out, self.order_by.as_deref()),
            rank: self.rank,
            top: self.top,
            shared_y: self.shared_y,
            side_by_side: self.side_by_side,
            wrap: self.wrap,
            horizontal: self.horizontal,
            values: self.values,
        };
        let (out, panels) = (fig.out, &self.panels);
        let panel_col = panels
            .as_ref()
            .and_then(|k| out.keys.iter().position(|c| c == k));
        let mut list: Vec<Panel<'_>> = Vec::new();
        let rows = out.summary.iter().filter(|r| {
            self.quantities.contains(&r.quantity)
                && self.models.as_ref().is_none_or(|m| m.contains(&r.model))
        });
        // The model is named where the quantities that use one have several.
        let mut models = rows
            .clone()
            .filter(|r| fig.names.uses_model(&r.quantity))
            .map(|r| &r.model);
        let first = models.next();
        let several_models = models.any(|m| Some(m) != first);
        for r in rows {
            let setting = panel_col
                .zip(panels.as_deref())
                .map(|(c, k)| fig.names.setting(k, r.labels[c].as_str()));
            let model = (several_models && fig.names.uses_model(&r.quantity))
                .then(|| fig.names.panel(&r.model, &r.quantity));
            let title = model
                .into_iter()
                .chain(setting)
                .collect::<Vec<_>>()
                .join(", ");
            match list.iter_mut().find(|p| p.title == title) {
                Some(p) => p.rows.push(r),
                None => list.push(Panel {
                    title,
                    rows: vec![r],
                }),
            }
        }
        (list, order)
    }
}

impl PlotKind for Bars {
    fn replicate(&self) -> Option<usize> {
        self.replicate
    }

    fn uses_data(&self) -> bool {
        false
    }

    fn validate(&self, plan: &PlotPlan<'_>) -> std::result::Result<(), Invalid> {
        for q in self.quantities.iter().chain(&self.order_by) {
            plan.known(q, q)?;
        }
        for m in self.models.iter().flatten() {
            if !plan.models.contains(&m.as_str()) {
                return Err(Invalid::new(
                    "models",
                    format!(
                        "bars `models` names `{m}`, which the experiment does not fit; its \
                         models are {}",
                        plan.models.join(", ")
                    ),
                ));
            }
        }
        if self.models.as_ref().is_some_and(Vec::is_empty) {
            return Err(Invalid::new(
                "models",
                "bars `models` lists at least one model (leave it out to draw all)",
            ));
        }
        if self.values && !self.horizontal {
            return Err(Invalid::new(
                "values",
                "bars `values` prints each estimate beyond its whisker: it needs \
                 `horizontal: true`",
            ));
        }
        if self.top == Some(0) {
            return Err(Invalid::new("top", "bars `top` must be at least 1"));
        }
        if self.wrap.is_some() && !self.side_by_side || self.wrap == Some(0) {
            return Err(Invalid::new(
                "wrap",
                "bars `wrap` (at least 1 panel a row) goes with `side_by_side: true`",
            ));
        }
        plan.panels(&self.panels)
    }

    /// A column for one column of panels whose bars and names fit it, the page
    /// otherwise.
    fn width(&self, fig: &Figure<'_>) -> Width {
        let (list, order) = self.panel_list(fig);
        let layout = Layout::of(&list, &self.quantities, &order);
        let fits = order.horizontal || bar_count(&list, &order, fig.names) <= 8;
        match layout.cols == 1 && fits {
            true => Width::Column,
            false => Width::Page,
        }
    }

    /// Horizontal bars take a row of 8-pt type each (18 units) and their axis and
    /// caption; vertical panels are 0.6 as tall as wide, at least 1.4 in, and tall
    /// enough that each value axis's name fits at 9 pt beside the plot (below the
    /// captions and above the names, turned where they do not fit across); then
    /// the key.
    fn height(&self, fig: &Figure<'_>, width: u32) -> u32 {
        let (list, order) = self.panel_list(fig);
        let layout = Layout::of(&list, &self.quantities, &order);
        let bars = bar_count(&list, &order, fig.names) as u32;
        let panel = match order.horizontal {
            true => 18 * bars + 80,
            false => {
                let w = width / layout.cols.max(1) as u32;
                let band = super::caption_band_of(
                    captions(&list, &self.quantities, &layout)
                        .iter()
                        .map(String::as_str),
                    w,
                );
                let longest = widest_name(
                    list.iter()
                        .flat_map(|p| p.rows.iter())
                        .map(|r| fig.names.feature(&r.feature)),
                );
                // The value labels' width is not known before the range: 50 units.
                let slot = w.saturating_sub(50 + 16) / bars.max(1);
                let x_labels = names_area(longest, slot);
                // The names drawn: a caption that says one leaves it out.
                let titles = super::labels::quantity_titles(&self.quantities);
                let name = self
                    .quantities
                    .iter()
                    .enumerate()
                    .flat_map(|(qi, q)| {
                        let axis = value_axis(&self.quantities, q, fig.names);
                        let drawn = layout.cells[qi].iter().any(|&pi| {
                            caption(&titles, &list, layout.side_by_side, qi, pi) != axis
                        });
                        drawn.then(|| super::glyphs::text_width(&axis, super::print::LABEL))
                    })
                    .fold(0.0, f64::max)
                    .ceil() as u32;
                let aspect = (f64::from(w) * 0.6).max(140.0) as u32 + 40;
                aspect.max(name + 8 + 16 + band + x_labels)
            }
        };
        let key = whiskers_key(&list, &self.quantities, fig.names);
        panel * layout.rows as u32 + key.height(width)
    }

    fn draw(&self, canvas: Canvas<'_, '_>, fig: &Figure<'_>) -> std::result::Result<(), PlotError> {
        let (list, order) = self.panel_list(fig);
        one_row_per_bar(&list, &fig.out.keys)?;
        super::on_canvas!(canvas, root => {
            let key = whiskers_key(&list, &self.quantities, fig.names);
            let (root, strip) = key.split(root);
            key.draw(&strip)?;
            bars(&root, &list, &self.quantities, &order, fig.names)
        })
    }
}

/// The number of bars a panel draws.
fn bar_count(list: &[Panel<'_>], order: &BarOrder, names: &Names) -> usize {
    let mut seen: Vec<&str> = Vec::new();
    for f in list
        .iter()
        .flat_map(|p| p.rows.iter().map(|r| names.feature(&r.feature)))
    {
        if !seen.contains(&f) {
            seen.push(f);
        }
    }
    order.top.unwrap_or(usize::MAX).min(seen.len())
}

/// Refuses a figure that would draw several summary rows as one bar (variants of a
/// grid key that no `panels:` separates), naming the grid keys in which they differ.
fn one_row_per_bar(panels: &[Panel<'_>], keys: &[String]) -> std::result::Result<(), PlotError> {
    for p in panels {
        for (i, a) in p.rows.iter().enumerate() {
            // Rows of a model-free quantity repeat under every model with one value:
            // only rows of other grid values would hide each other.
            let same_bar = |b: &&&SummaryRow| {
                b.quantity == a.quantity
                    && b.feature == a.feature
                    && b.x == a.x
                    && b.labels != a.labels
            };
            let others: Vec<&&SummaryRow> = p.rows[i + 1..].iter().filter(same_bar).collect();
            if !others.is_empty() {
                let differ: Vec<&str> = keys
                    .iter()
                    .enumerate()
                    .filter(|(c, _)| others.iter().any(|b| b.labels[*c] != a.labels[*c]))
                    .map(|(_, k)| k.as_str())
                    .collect();
                return Err(PlotError::Layout(format!(
                    "bars would draw several rows of `{}` as one bar: they differ in {}; give \
                     `panels:` one of these grid keys, and run the others as separate \
                     experiments (or pick their values with a scale's `grid:`)",
                    a.quantity,
                    differ.join(", ")
                )));
            }
        }
    }
    Ok(())
}

/// The key of a bar figure: what the whiskers are, once where every quantity's are
/// the same, else per quantity (by its name).
fn whiskers_key(panels: &[Panel<'_>], quantities: &[String], names: &Names) -> Key {
    let titles = super::labels::quantity_titles(quantities);
    let notes: Vec<(&String, String)> = quantities
        .iter()
        .zip(&titles)
        .filter_map(|(q, title)| {
            let r = panels
                .iter()
                .flat_map(|p| p.rows.iter())
                .filter(|r| r.quantity == *q)
                .find(|r| r.value.lower.is_finite())?;
            Some((title, names.interval(q, r.value.n)))
        })
        .collect();
    let mut key = Key::default();
    match notes.as_slice() {
        [] => {}
        [(_, what), rest @ ..] if rest.iter().all(|(_, w)| w == what) => {
            key.add(format!("bars and whiskers: {what}"), Swatch::Note);
        }
        _ => {
            for (title, what) in notes {
                key.add(format!("{title}: {what}"), Swatch::Note);
            }
        }
    }
    key
}

/// Where each (quantity, panel) cell with rows goes: a panel without rows of a
/// quantity (a model-free term has no model panel) gets no cell.
struct Layout {
    /// Per quantity, the panels (indices) with rows of it.
    cells: Vec<Vec<usize>>,
    cols: usize,
    rows: usize,
    side_by_side: bool,
}

impl Layout {
    fn of(panels: &[Panel<'_>], quantities: &[String], order: &BarOrder) -> Self {
        let cells: Vec<Vec<usize>> = quantities
            .iter()
            .map(|q| {
                (0..panels.len())
                    .filter(|&p| panels[p].rows.iter().any(|r| r.quantity == *q))
                    .collect()
            })
            .collect();
        let side_by_side = order.side_by_side;
        let (cols, rows) = match side_by_side {
            true => {
                // Cells in reading order, `wrap` a row.
                let total = cells.iter().map(Vec::len).sum::<usize>().max(1);
                let cols = order.wrap.map_or(total, |w| w.clamp(1, total));
                (cols, total.div_ceil(cols))
            }
            false => (
                cells.iter().map(Vec::len).max().unwrap_or(0).max(1),
                quantities.len().max(1),
            ),
        };
        Self {
            cells,
            cols,
            rows,
            side_by_side,
        }
    }

    /// The index of the area of quantity `qi`'s `k`-th cell in a `rows` × `cols` split.
    fn area(&self, qi: usize, k: usize) -> usize {
        match self.side_by_side {
            true => self.cells[..qi].iter().map(Vec::len).sum::<usize>() + k,
            false => qi * self.cols + k,
        }
    }
}

/// A thin interval whisker at category position c over [lower, upper] with short
/// caps, no marker; `pt` maps (category, value) to the chart's coordinates.
fn whisker(
    pt: impl Fn(f64, f64) -> (f64, f64),
    c: f64,
    lower: f64,
    upper: f64,
) -> [PathElement<(f64, f64)>; 3] {
    let style = BLACK.mix(0.75).stroke_width(1);
    let cap = 0.15;
    [
        PathElement::new(vec![pt(c, lower), pt(c, upper)], style),
        PathElement::new(vec![pt(c - cap, lower), pt(c + cap, lower)], style),
        PathElement::new(vec![pt(c - cap, upper), pt(c + cap, upper)], style),
    ]
}

/// The range [lo, hi] of the estimates and interval ends of quantity `q` over all
/// panels (of every quantity drawn, with a shared y-axis), always including 0.
fn value_range(panels: &[Panel<'_>], quantities: &[String], q: &str, shared_y: bool) -> (f64, f64) {
    let (mut lo, mut hi) = (0.0f64, 0.0f64);
    let in_range = |r: &&SummaryRow| {
        if shared_y {
            quantities.contains(&r.quantity)
        } else {
            r.quantity == q
        }
    };
    for r in panels
        .iter()
        .flat_map(|p| p.rows.iter().copied())
        .filter(in_range)
    {
        for v in [r.value.estimate, r.value.lower, r.value.upper] {
            if v.is_finite() {
                lo = lo.min(v);
                hi = hi.max(v);
            }
        }
    }
    (lo, hi)
}

/// The features a panel shows, in drawing order: ranked by estimate (`rank`) or in
/// the order `features` lists them, the first `top`; `rows` keeps only theirs (ranked
/// too).
fn shown_features<'a>(rows: &mut Vec<&'a SummaryRow>, order: &BarOrder) -> Vec<&'a str> {
    let mut features: Vec<&str> = Vec::new();
    if order.rank {
        rows.sort_by(|a, b| b.value.estimate.total_cmp(&a.value.estimate));
    }
    for r in rows.iter() {
        if !features.contains(&r.feature.as_str()) {
            features.push(&r.feature);
        }
    }
    if !order.rank {
        let model = rows.first().map(|r| r.model.as_str());
        let own = order
            .features
            .iter()
            .find(|(m, _)| Some(m.as_str()) == model);
        let listed = own.or(order.features.first()).map(|(_, f)| f.as_slice());
        let place = |f: &str| {
            listed
                .unwrap_or_default()
                .iter()
                .position(|o| o == f)
                .unwrap_or(usize::MAX)
        };
        features.sort_by_key(|f| place(f));
    }
    features.truncate(order.top.unwrap_or(usize::MAX));
    rows.retain(|r| features.contains(&r.feature.as_str()));
    features
}

/// One row of panels per quantity (each row with its own y-range, shared across the
/// row, or one range for all rows with `shared_y`), one column per panel (model × grid
/// value); bars per feature with whiskers from the interval.
fn bars<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    panels: &[Panel<'_>],
    quantities: &[String],
    order: &BarOrder,
    names: &Names,
) -> std::result::Result<(), PlotError> {
    let e = crate::drawn::<DB::ErrorType>;
    let layout = Layout::of(panels, quantities, order);
    let areas = root.split_evenly((layout.rows, layout.cols));
    let titles = super::labels::quantity_titles(quantities);
    let caption = |qi: usize, pi: usize| caption(&titles, panels, layout.side_by_side, qi, pi);
    let captions = captions(panels, quantities, &layout);
    let band = super::caption_band_of(
        captions.iter().map(String::as_str),
        areas[0].dim_in_pixel().0,
    );
    // Vertical bars: one tick-label width for every panel, so the rows' axes align.
    let plot_h = areas[0].dim_in_pixel().1.saturating_sub(band + 24 + 16);
    let value_labels = quantities
        .iter()
        .map(|q| {
            let (lo, hi) = value_range(panels, quantities, q, order.shared_y);
            let pad = 0.08 * (hi - lo).max(1e-9);
            super::y_label_area((lo - pad, hi + pad), plot_h, false)
        })
        .max()
        .unwrap_or(0);
    for (qi, q) in quantities.iter().enumerate() {
        let color = super::palette::quantity(q, qi);
        super::palette::record(&titles[qi], color);
        fn of_q<'a>(p: &Panel<'a>, q: &str) -> Vec<&'a SummaryRow> {
            p.rows.iter().copied().filter(|r| r.quantity == q).collect()
        }
        let (lo, hi) = value_range(panels, quantities, q, order.shared_y);
        let pad = 0.08 * (hi - lo).max(1e-9);
        for (k, &pi) in layout.cells[qi].iter().enumerate() {
            let panel = &panels[pi];
            let mut rows = of_q(panel, q);
            let features = shown_features(&mut rows, order);
            let nf = features.len();
            let area = &areas[layout.area(qi, k)];
            // Category c (a feature) at position c, left to right, or from the top.
            let horizontal = order.horizontal;
            let pos = |c: f64| if horizontal { nf as f64 - 1.0 - c } else { c };
            let pt = |c: f64, v: f64| if horizontal { (v, pos(c)) } else { (pos(c), v) };
            let categories = -0.5f64..nf as f64 - 0.5;
            // The widest name at 8 pt, and whether vertical bars' names fit their slot
            // across (else they are turned a quarter, reading upwards).
            let longest = widest_name(features.iter().map(|f| names.feature(f)));
            let w = area.dim_in_pixel().0;
            let y_labels = match horizontal {
                true => longest + 12,
                false => value_labels,
            };
            // Printed values take the room of the widest beyond the largest bar.
            let printed = |r: &&SummaryRow| value_label(r.value.estimate);
            let room = match order.values {
                true => rows
                    .iter()
                    .map(|r| super::glyphs::text_width(&printed(r), super::print::TICK))
                    .fold(0.0, f64::max),
                false => 0.0,
            };
            let plot_w = f64::from(w.saturating_sub(y_labels + 16)).max(1.0);
            let span = hi - lo + 2.0 * pad;
            let beyond = match room > 0.0 {
                true => (room + 8.0) / (plot_w - room - 8.0).max(1.0) * span,
                false => 0.0,
            };
            let values = (lo - pad)..(hi + pad + beyond);
            let slot = w.saturating_sub(y_labels + 16) / nf.max(1) as u32;
            let turned = !horizontal && turns(longest, slot);
            let caption = caption(qi, pi);
            super::draw_caption(area, &caption, band).map_err(e)?;
            let x_labels = match horizontal {
                true => 36,
                false => names_area(longest, slot),
            };
            let builder = ChartBuilder::on(area)
                .margin(8)
                .margin_top(8 + band)
                .x_label_area_size(x_labels)
                .y_label_area_size(y_labels)
                .build_cartesian_2d(
                    if horizontal {
                        values.clone()
                    } else {
                        categories.clone()
                    },
                    if horizontal { categories } else { values },
                );
            let mut chart = builder.map_err(e)?;
            let name_at = |v: &f64| {
                let p = v.round();
                let c = if horizontal { nf as f64 - 1.0 - p } else { p };
                if (v - p).abs() < 1e-6 && c >= 0.0 {
                    features
                        .get(c as usize)
                        .map_or(String::new(), |f| names.feature(f).to_string())
                } else {
                    String::new()
                }
            };
            // A row of panels of one quantity shares its value axis: named once, on
            // the left; a caption that says the axis's name already is not repeated.
            let axis = value_axis(quantities, q, names);
            let label = match horizontal || layout.side_by_side || k == 0 {
                true if axis == caption => String::new(),
                true => axis,
                false => String::new(),
            };
            let (x_desc, y_desc) = if horizontal {
                (label.as_str(), "")
            } else {
                ("", label.as_str())
            };
            let no_name = |_: &f64| String::new();
            let mut mesh = super::axes(&mut chart, x_desc, y_desc);
            if horizontal {
                mesh.disable_y_mesh()
                    .y_labels(nf.max(1))
                    .y_label_formatter(&name_at);
            } else {
                mesh.disable_x_mesh()
                    .x_labels(nf.max(1))
                    .x_label_formatter(if turned { &no_name } else { &name_at });
            }
            mesh.draw().map_err(e)?;
            if turned {
                turned_names(area, &chart, &features, names, lo - pad).map_err(e)?;
            }
            let at =
                |r: &SummaryRow| features.iter().position(|f| *f == r.feature).unwrap_or(0) as f64;
            let series = Series {
                rows: &rows,
                at: &at,
                pt: &pt,
                nf,
                color,
                span,
                plot_w,
            };
            draw_series(&mut chart, &series, order, &printed).map_err(e)?;
        }
    }
    Ok(())
}

/// A panel's caption: the model and setting, after the quantity's title (of
/// `titles`) where the quantities stand `side_by_side` (in rows of one quantity each,
/// the row's value axis names it).
fn caption(
    titles: &[String],
    panels: &[Panel<'_>],
    side_by_side: bool,
    qi: usize,
    pi: usize,
) -> String {
    [
        (side_by_side && titles.len() > 1).then(|| titles[qi].clone()),
        Some(panels[pi].title.clone()),
    ]
    .into_iter()
    .flatten()
    .filter(|t| !t.is_empty())
    .collect::<Vec<_>>()
    .join(", ")
}

/// Every panel's caption, quantity by quantity ([`caption`]).
fn captions(panels: &[Panel<'_>], quantities: &[String], layout: &Layout) -> Vec<String> {
    let titles = super::labels::quantity_titles(quantities);
    (0..quantities.len())
        .flat_map(|qi| layout.cells[qi].iter().map(move |&pi| (qi, pi)))
        .map(|(qi, pi)| caption(&titles, panels, layout.side_by_side, qi, pi))
        .collect()
}

/// The name of `q`'s value axis among `quantities`: as one fit's where the panels
/// are titled by their estimands ([`Names::estimand_axis`]).
fn value_axis(quantities: &[String], q: &str, names: &Names) -> String {
    match super::labels::titled_by_estimand(quantities) {
        true => names.estimand_axis(q),
        false => names.axis(q),
    }
}

/// The width of the widest of `names` at 8 pt, in whole layout units.
fn widest_name<'a>(names: impl Iterator<Item = &'a str>) -> u32 {
    names
        .map(|n| super::glyphs::text_width(n, super::print::TICK))
        .fold(0.0, f64::max)
        .ceil() as u32
}

/// Whether vertical bars' names `longest` units wide are turned a quarter (reading
/// upwards): they do not fit their `slot` across, with 4 units between.
fn turns(longest: u32, slot: u32) -> bool {
    longest + 4 > slot
}

/// The height below vertical bars for their names: turned ([`turns`]), the
/// longest and 10 units; across, one 24-unit line.
fn names_area(longest: u32, slot: u32) -> u32 {
    match turns(longest, slot) {
        true => longest + 10,
        false => 24,
    }
}

/// 8-pt black type anchored at `pos` (a mark or a value beside a bar).
fn tick_text(pos: Pos) -> TextStyle<'static> {
    ("sans-serif", super::print::TICK)
        .into_font()
        .color(&BLACK)
        .pos(pos)
}

/// A bar, and its whiskers, shorter than this share of the value axis cannot be seen.
const NEAR_ZERO: f64 = 0.01;

/// At most this many unseen bars in a panel are marked "≈0".
const NEAR_ZERO_MARKS: usize = 2;

/// A bar's printed value: two significant digits below 100 (whole numbers from 10
/// up), trailing zeros kept, with a real minus sign ("2.3", "0.20", "−0.0070", "376");
/// "0" for 0.
fn value_label(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return super::tick(&v);
    }
    let digits = (1.0 - v.abs().log10().floor()).max(0.0) as usize;
    let text = format!("{:.digits$}", v.abs());
    match v < 0.0 {
        true => format!("\u{2212}{text}"),
        false => text,
    }
}

/// The names of vertical bars turned a quarter, reading upwards, their ends just
/// below the axis at `bottom` (drawn on the panel's `area`: plotters places turned
/// tick labels off their ticks).
fn turned_names<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &ChartContext<'_, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    features: &[&str],
    names: &Names,
    bottom: f64,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let base = area.get_base_pixel();
    let style = ("sans-serif", super::print::TICK)
        .into_font()
        .transform(FontTransform::Rotate270)
        .color(&BLACK)
        .pos(Pos::new(HPos::Right, VPos::Center));
    for (c, f) in features.iter().enumerate() {
        let (x, y) = chart.backend_coord(&(c as f64, bottom));
        area.draw(&Text::new(
            names.feature(f),
            (x - base.0, y - base.1 + 6),
            style.clone(),
        ))?;
    }
    Ok(())
}

/// What one panel's bars are drawn from: its rows, each row's category position
/// (`at`) and the point of (category, value) in the chart (`pt`, which turns it for
/// horizontal bars), the number of categories, the colour, the value axis's span and
/// the plot's width in units.
struct Series<'a, 'r> {
    rows: &'a [&'r SummaryRow],
    at: &'a dyn Fn(&SummaryRow) -> f64,
    pt: &'a dyn Fn(f64, f64) -> (f64, f64),
    nf: usize,
    color: RGBColor,
    span: f64,
    plot_w: f64,
}

/// Draws a panel's bars, their "0" and "≈0" marks, whiskers, printed values (with
/// `order.values`, each `printed`) and the zero line on `chart`.
fn draw_series<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    series: &Series<'_, '_>,
    order: &BarOrder,
    printed: &dyn Fn(&&SummaryRow) -> String,
) -> std::result::Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let Series {
        rows,
        at,
        pt,
        nf,
        color,
        span,
        plot_w,
    } = *series;
    chart.draw_series(rows.iter().map(|r| {
        let c = at(r);
        Rectangle::new(
            [pt(c - 0.3, 0.0), pt(c + 0.3, r.value.estimate)],
            color.mix(0.8).filled(),
        )
    }))?;
    // A bar of exactly 0 (a term set to zero, e.g. Ĉ of a feature whose Î
    // is below its null) is marked "0", so it does not read as a missing bar;
    // one too short to see, whiskers and all, "≈0" where at most
    // [`NEAR_ZERO_MARKS`] bars of the panel are that short (whiskers or not:
    // a row of short bars reads as nothing anyway, and marks would crowd
    // it), unless its value is printed.
    let seen = |v: f64| v.is_finite() && v.abs() >= NEAR_ZERO * span;
    let unseen = |r: &&&SummaryRow| {
        r.value.estimate != 0.0
            && ![r.value.estimate, r.value.lower, r.value.upper]
                .into_iter()
                .any(seen)
    };
    let near_zero = rows.iter().filter(|r| !seen(r.value.estimate)).count();
    let mark = |r: &&&SummaryRow| match r.value.estimate {
        0.0 => Some("0"),
        _ if !order.values && near_zero <= NEAR_ZERO_MARKS && unseen(r) => Some("≈0"),
        _ => None,
    };
    chart.draw_series(
        rows.iter()
            .filter_map(|r| Some((r, mark(&r)?)))
            .map(|(r, m)| {
                Text::new(
                    m,
                    pt(at(r), 0.0),
                    tick_text(match order.horizontal {
                        true => Pos::new(HPos::Left, VPos::Center),
                        false => Pos::new(HPos::Center, VPos::Bottom),
                    }),
                )
            }),
    )?;
    chart.draw_series(
        rows.iter()
            .filter(|r| r.value.lower.is_finite())
            .flat_map(|r| whisker(pt, at(r), r.value.lower, r.value.upper)),
    )?;
    if order.values {
        // Just beyond the whisker's (or the bar's) end, at 4 units.
        let gap = 4.0 / plot_w * span;
        chart.draw_series(rows.iter().map(|r| {
            let end = [r.value.estimate, r.value.upper, 0.0]
                .into_iter()
                .filter(|v| v.is_finite())
                .fold(f64::NEG_INFINITY, f64::max);
            Text::new(
                printed(r),
                pt(at(r), end + gap),
                tick_text(Pos::new(HPos::Left, VPos::Center)),
            )
        }))?;
    }
    chart.draw_series(std::iter::once(PathElement::new(
        vec![pt(-0.5, 0.0), pt(nf as f64 - 0.5, 0.0)],
        BLACK.stroke_width(1),
    )))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{Layout, Panel};
    use xai_results::table::SummaryRow;

    fn row(quantity: &str) -> SummaryRow {
        SummaryRow {
            quantity: quantity.into(),
            labels: Vec::new(),
            model: "m".into(),
            feature: "X1".into(),
            x: None,
            value: xai_results::point(1.0, 1),
            sd: f64::NAN,
        }
    }

    /// Rows that differ only in grid keys no panel separates would be one bar: refused,
    /// naming the keys; rows of other features or quantities are bars of their own.
    #[test]
    fn several_rows_for_one_bar_are_refused_with_the_keys_they_differ_in() {
        let keys = ["dgp".to_string(), "n".to_string()];
        let at = |q: &str, feature: &str, dgp: &str, n: &str| SummaryRow {
            labels: vec![dgp.into(), n.into()],
            feature: feature.into(),
            ..row(q)
        };
        let (a, b, c) = (
            at("pfi", "X1", "g", "10"),
            at("pfi", "X2", "g", "10"),
            at("pd", "X1", "g", "10"),
        );
        // A model-free quantity's row repeated under a second model is one bar.
        let same_under_another_model = SummaryRow {
            model: "m2".into(),
            ..at("pfi", "X1", "g", "10")
        };
        let fine = [Panel {
            title: String::new(),
            rows: vec![&a, &b, &c, &same_under_another_model],
        }];
        assert!(super::one_row_per_bar(&fine, &keys).is_ok());
        let (d, e) = (at("pfi", "X1", "h", "10"), at("pfi", "X1", "g", "20"));
        let clash = [Panel {
            title: String::new(),
            rows: vec![&a, &b, &d, &e],
        }];
        let err = super::one_row_per_bar(&clash, &keys).unwrap_err();
        let msg = err.to_string();
        assert!(
            matches!(err, xai_error::PlotError::Layout(_))
                && msg.contains("`pfi`")
                && msg.contains("differ in dgp, n"),
            "{msg}"
        );
    }

    /// Printed values keep two significant digits and their trailing zeros.
    #[test]
    fn printed_values_keep_two_significant_digits() {
        let label = super::value_label;
        assert_eq!(label(2.2712), "2.3");
        assert_eq!(label(0.2), "0.20");
        assert_eq!(label(0.0054), "0.0054");
        assert_eq!(label(-0.00704), "\u{2212}0.0070");
        assert_eq!(label(37.6), "38");
        assert_eq!(label(376.2), "376");
        assert_eq!(label(0.0), "0");
    }

    /// Each model's panel takes its own order; a model the order does not list takes
    /// the first model's.
    #[test]
    fn each_model_s_bars_follow_its_own_order() {
        let at = |model: &str, feature: &str| SummaryRow {
            model: model.into(),
            feature: feature.into(),
            ..row("pfi")
        };
        let order = super::BarOrder {
            features: vec![
                ("a".into(), vec!["X2".into(), "X1".into()]),
                ("b".into(), vec!["X1".into(), "X2".into()]),
            ],
            rank: false,
            top: None,
            shared_y: false,
            side_by_side: false,
            wrap: None,
            horizontal: true,
            values: false,
        };
        let shown = |model: &str| {
            let (x1, x2) = (at(model, "X1"), at(model, "X2"));
            let mut rows = vec![&x1, &x2];
            super::shown_features(&mut rows, &order)
                .iter()
                .map(|f| f.to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(shown("a"), ["X2", "X1"]);
        assert_eq!(shown("b"), ["X1", "X2"]);
        assert_eq!(shown("c"), ["X2", "X1"]);
    }

    #[test]
    fn a_panel_without_rows_of_a_quantity_gets_no_cell() {
        let (model, data) = (row("r2_pfi"), row("mi"));
        let panels = [
            Panel {
                title: "model".into(),
                rows: vec![&model],
            },
            Panel {
                title: "data alone".into(),
                rows: vec![&data],
            },
        ];
        let quantities = ["r2_pfi".to_string(), "mi".to_string()];
        let order = |side_by_side, wrap| super::BarOrder {
            features: Vec::new(),
            rank: false,
            top: None,
            shared_y: false,
            side_by_side,
            wrap,
            horizontal: false,
            values: false,
        };
        let side = Layout::of(&panels, &quantities, &order(true, None));
        assert_eq!((side.rows, side.cols), (1, 2));
        assert_eq!((side.area(0, 0), side.area(1, 0)), (0, 1));
        let wrapped = Layout::of(&panels, &quantities, &order(true, Some(1)));
        assert_eq!((wrapped.rows, wrapped.cols), (2, 1));
        assert_eq!((wrapped.area(0, 0), wrapped.area(1, 0)), (0, 1));
        let stacked = Layout::of(&panels, &quantities, &order(false, None));
        assert_eq!((stacked.rows, stacked.cols), (2, 1));
        assert_eq!((stacked.area(0, 0), stacked.area(1, 0)), (0, 1));
        assert_eq!(stacked.cells, vec![vec![0], vec![1]]);
    }
}
