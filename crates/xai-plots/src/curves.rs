//! Partial dependence with interval bands, and ICE curves coloured by another
//! feature or by class with the PD in bold and an optional class histogram.

use plotters::coord::Shift;
use plotters::prelude::*;
use serde::Deserialize;
use xai_error::PlotError;

use super::key::{Key, Swatch};
use super::labels::Names;
use super::print::{Width, grid_height};
use super::scatter::ScatterPanel;
use super::{Canvas, Figure, PlotKind, PlotPlan, chart_on, draw_vlines, range};
use xai_core::interpolate;
use xai_results::Invalid;
use xai_results::output::RunOutput;
use xai_results::table::{CurveRow, SummaryRow};

plot_settings! {
    /// Partial-dependence curves with their interval bands, one panel per PD quantity,
    /// model and value of `panels`, each holding every feature, all on one y-axis; or, with `ice`, one panel per feature
    /// with the sampled rows' ICE curves (coloured by `color_by`, a dot at each row's own
    /// value) and the PD in black.
    pub struct Curves {
        /// The PD quantity (`entropy_pd`, ...), or several drawn side by side on one
        /// y-axis (`[prediction_conditional_pd, learner_prediction_conditional_pd_corrected]`:
        /// a model-PDP beside its learner-PDP, molnar2023 Fig. 6).
        pub pd: PdQuantities,
        /// The ICE quantity of the sampled rows (`entropy_ice`, ...), if drawn.
        #[serde(default)]
        pub ice: Option<String>,
        /// Feature whose original value colours each ICE curve; `other` (two-feature
        /// data only) colours each panel by the feature it does not vary; `class`
        /// colours by the row's class (red = class 1, blue = class 0).
        #[serde(default)]
        pub color_by: Option<String>,
        /// Vertical dotted lines at these x values.
        #[serde(default)]
        pub vlines: Vec<f64>,
        /// Mark each ICE row's own value by a rug tick at the bottom instead of a dot.
        #[serde(default)]
        pub rug: bool,
        /// Add a panel with the training-set histogram of the feature by class.
        #[serde(default)]
        pub histogram: bool,
        /// Draw at most this many of the kept ICE curves per panel (the first in
        /// replicate and row order; checks still read them all).
        #[serde(default)]
        pub max_curves: Option<usize>,
        /// Draw the training sample on the left, as a `scatter` plot would (wood2024
        /// Fig. 6: the data beside its Entropy-PDP).
        #[serde(default)]
        pub data: Option<ScatterPanel>,
        /// Grid key whose values get a panel each.
        #[serde(default)]
        pub panels: Option<String>,
        /// At most this many panels a row, the rest wrapped into further rows (a
        /// 2 × 2 grid instead of one wide row of four).
        #[serde(default)]
        pub wrap: Option<usize>,
        /// Draw replicate k's own estimates and intervals (one fit, as a paper's
        /// figure shows one) instead of the mean over replicates with the interval
        /// over replicates; needs the tidy rows. An ICE figure draws replicate 0
        /// unless it asks for `replicates`.
        #[serde(default)]
        pub replicate: Option<usize>,
        /// With `ice`: draw every fit's ICE curves around the PD averaged over the
        /// fits (the spread over refits), instead of one fit's curves and its own PD.
        #[serde(default)]
        pub replicates: bool,
        /// With `ice`: one y-range for every ICE panel (the union of each panel's
        /// own), so the models' curves of one quantity compare by eye (wood2024
        /// Fig. 12: the forest's entropy beside the network's).
        #[serde(default)]
        pub shared_y: bool,
    }
}

/// One PD quantity, or several drawn side by side (`pd: a` or `pd: [a, b]`).
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum PdQuantities {
    /// One quantity.
    One(String),
    /// Several, a panel each, in this order.
    Many(Vec<String>),
}

impl PdQuantities {
    /// The quantities, in order.
    pub fn list(&self) -> &[String] {
        match self {
            PdQuantities::One(q) => std::slice::from_ref(q),
            PdQuantities::Many(v) => v,
        }
    }
}

impl PlotKind for Curves {
    /// The asked-for replicate; an ICE figure's is 0 unless it draws every fit's
    /// curves (`replicates`), so its curves and PD are one fit's, as the papers draw.
    fn replicate(&self) -> Option<usize> {
        let one_fit = self.ice.is_some() && !self.replicates;
        self.replicate.or(one_fit.then_some(0))
    }

    fn uses_data(&self) -> bool {
        self.histogram || self.data.is_some()
    }

    fn validate(&self, plan: &PlotPlan<'_>) -> Result<(), Invalid> {
        if let Some(d) = &self.data {
            plan.feature(&d.x)?;
            plan.feature(&d.y)?;
        }
        let pd = self.pd.list();
        if pd.is_empty() || (self.ice.is_some() && pd.len() > 1) {
            return Err(Invalid::new(
                "pd",
                "`pd` names one PD quantity, or several without `ice`",
            ));
        }
        pd.iter().try_for_each(|q| plan.known(q, q))?;
        if let Some(q) = &self.ice {
            plan.kept(q, "`curves:` on an `ice` method")?;
        }
        match self.color_by.as_deref() {
            Some("other") if !plan.two_features() => {
                return Err(Invalid::new(
                    "color_by",
                    "`color_by: other` needs data with exactly two features",
                ));
            }
            Some("other") | Some("class") | None => {}
            Some(_) => self.color_by.iter().try_for_each(|f| plan.feature(f))?,
        }
        if self.replicates && (self.ice.is_none() || self.replicate.is_some()) {
            return Err(Invalid::new(
                "replicates",
                "curves `replicates` draws every fit's ICE curves: it needs `ice` and no \
                 `replicate` (one fit)",
            ));
        }
        if self.shared_y && self.ice.is_none() {
            return Err(Invalid::new(
                "shared_y",
                "curves `shared_y` shares the ICE panels' y-range: it needs `ice` (PD \
                 panels without ICE share one y-axis already)",
            ));
        }
        if self.wrap == Some(0) || self.wrap.is_some() && self.data.is_some() {
            return Err(Invalid::new(
                "wrap",
                "curves `wrap` is at least 1 panel a row, and cannot wrap a `data` panel",
            ));
        }
        plan.panels(&self.panels)
    }

    fn width(&self, fig: &Figure<'_>) -> Width {
        let (_, cols) = grid(self, fig.out, fig.names);
        Width::for_panels(cols + usize::from(self.data.is_some()))
    }

    /// Panels 0.9 as tall as wide (ICE panels with a colour bar keep a square plot
    /// beside it), and the key.
    fn height(&self, fig: &Figure<'_>, width: u32) -> u32 {
        let (rows, cols) = grid(self, fig.out, fig.names);
        let cols = cols + usize::from(self.data.is_some());
        let list = pd_panels(fig.out, self.pd.list(), &self.panels, fig.names);
        let key = figure_key(self, fig.out, &list, fig.names);
        grid_height(width, (rows, cols), 0.9, key.height(width))
    }

    fn draw(&self, canvas: Canvas<'_, '_>, fig: &Figure<'_>) -> Result<(), PlotError> {
        super::on_canvas!(canvas, root => draw(root, self, fig.out, fig.names))
    }
}

/// A panel of PD curves: title, quantity, and per feature its summary rows in grid
/// order.
struct PdPanel<'a> {
    title: String,
    quantity: &'a str,
    model: String,
    labels: Vec<String>,
    features: Vec<(String, Vec<&'a SummaryRow>)>,
}

/// The panels of the PD quantities `pd`: one per quantity, model and value of the
/// `panels` key, in order of first appearance. A panel's title names what tells it
/// from the others: the quantity where there are several ("conditional
/// learner-PDP"), the model where there are several, and the grid value.
fn pd_panels<'a>(
    out: &'a RunOutput,
    pd: &'a [String],
    panels: &Option<String>,
    names: &Names,
) -> Vec<PdPanel<'a>> {
    let col = panels
        .as_ref()
        .and_then(|k| out.keys.iter().position(|c| c == k));
    let rows: Vec<&SummaryRow> = out
        .summary
        .iter()
        .filter(|r| pd.contains(&r.quantity))
        .collect();
    let several_models = rows.iter().any(|r| r.model != rows[0].model);
    let mut list: Vec<PdPanel<'a>> = Vec::new();
    for q in pd {
        for r in rows.iter().filter(|r| r.quantity == *q) {
            let setting = col
                .zip(panels.as_deref())
                .map(|(c, k)| names.setting(k, r.labels[c].as_str()));
            let title = [
                (pd.len() > 1).then(|| super::labels::estimand_name(q)),
                several_models.then(|| names.panel(&r.model, q)),
                setting,
            ]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(", ");
            let found = list
                .iter()
                .position(|p| p.quantity == q && p.title == title);
            let panel = match found {
                Some(i) => &mut list[i],
                None => {
                    list.push(PdPanel {
                        title,
                        quantity: q,
                        model: r.model.clone(),
                        labels: r.labels.clone(),
                        features: Vec::new(),
                    });
                    list.last_mut().expect("just pushed")
                }
            };
            match panel.features.iter_mut().find(|(f, _)| *f == r.feature) {
                Some((_, rows)) => rows.push(r),
                None => panel.features.push((r.feature.clone(), vec![r])),
            }
        }
    }
    list
}

/// The pixel size of a `curves` figure: a 520 × 470-px cell per panel (PD), or per
/// ICE panel plus one per feature with histograms, `wrap` a row; and the key below.
/// The (rows, columns) of a `curves` figure's panels, without the `data` panel.
fn grid(plot: &Curves, out: &RunOutput, names: &Names) -> (usize, usize) {
    let p = pd_panels(out, plot.pd.list(), &plot.panels, names);
    let cells: usize = p.iter().map(|p| p.features.len()).sum();
    let n = match (plot.ice.is_some(), plot.histogram) {
        (true, true) => cells + ice_columns(&p).len(),
        (true, false) => cells,
        (false, _) => p.len(),
    }
    .max(1);
    let cols = plot.wrap.map_or(n, |w| w.clamp(1, n));
    (n.div_ceil(cols), cols)
}

/// The distinct features of the panels, in order of first appearance.
fn ice_columns(panels: &[PdPanel<'_>]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (name, _) in panels.iter().flat_map(|p| p.features.iter()) {
        if !names.contains(name) {
            names.push(name.clone());
        }
    }
    names
}

/// The figure's key: its ICE panels' ([`ice_key`]) or its PD panels' ([`pd_key`]),
/// then what the training sample's hatched square is, where it draws one.
fn figure_key(plot: &Curves, out: &RunOutput, list: &[PdPanel<'_>], names: &Names) -> Key {
    let mut key = match plot.ice {
        Some(_) => ice_key(plot, out, names),
        None => pd_key(list, &plot.vlines, names),
    };
    if let Some(ScatterPanel {
        x,
        y,
        shade: Some(s),
    }) = &plot.data
    {
        key.add(
            format!(
                "hatched: the square |{}|, |{}| < {} (left)",
                names.feature(x),
                names.feature(y),
                super::tick(s)
            ),
            Swatch::Note,
        );
    }
    key
}

/// The key of PD panels: each feature's curve (over its band where it has one), in
/// the colour every panel draws it in, then what each quantity's band is.
fn pd_key(list: &[PdPanel<'_>], vlines: &[f64], names: &Names) -> Key {
    let mut key = Key::default();
    // One feature is the x-axis's name: its swatch would say nothing more.
    let features = ice_columns(list);
    for (i, feature) in features.iter().enumerate().filter(|_| features.len() > 1) {
        let color = super::palette::series(i);
        let rows = list
            .iter()
            .flat_map(|p| p.features.iter())
            .filter(|(f, _)| f == feature)
            .flat_map(|(_, r)| r.iter());
        let swatch = match rows.clone().any(|r| banded(r)) {
            true => Swatch::Banded(color),
            false => Swatch::Line(color, 2, 0),
        };
        key.add(names.feature(feature), swatch);
    }
    let several = list.iter().any(|p| p.quantity != list[0].quantity);
    for p in list {
        let rows = p.features.iter().flat_map(|(_, r)| r.iter());
        if let Some(r) = rows.clone().find(|r| banded(r)) {
            let what = names.interval(p.quantity, r.value.n);
            key.add(
                match several {
                    true => format!(
                        "{}: shaded = {what}",
                        super::labels::estimand_name(p.quantity)
                    ),
                    false => format!("shaded: {what}"),
                },
                Swatch::Note,
            );
        }
    }
    vlines_entry(&mut key, vlines);
    key
}

/// The colour of the PD over ICE curves: its statistic's ([`super::palette`]), black
/// for other statistics; never a class's, so it stands out over curves by class.
fn pd_color(pd: &str) -> RGBColor {
    super::palette::statistic(pd).unwrap_or(BLACK)
}

/// The key's entry for dashed vertical lines at `vlines`, if any.
fn vlines_entry(key: &mut Key, vlines: &[f64]) {
    if !vlines.is_empty() {
        let at: Vec<String> = vlines.iter().map(super::tick).collect();
        key.add(
            format!("x = {}", at.join(" and ")),
            Swatch::Line(BLACK, 1, 1),
        );
    }
}

/// Whether a PD row has an interval (a band).
fn banded(r: &SummaryRow) -> bool {
    r.value.lower.is_finite()
}

/// The key of ICE panels: the PD in bold, the ICE curves' colours by class, and the
/// histogram's classes.
fn ice_key(plot: &Curves, out: &RunOutput, names: &Names) -> Key {
    let mut key = Key::default();
    let pd = &plot.pd.list()[0];
    key.add(
        super::labels::curve_name(pd),
        Swatch::Line(pd_color(pd), 3, 0),
    );
    let grey = RGBColor(150, 150, 150);
    // Coloured by a feature, the curves are keyed by a colour bar; by class, below.
    if plot.color_by.is_none() {
        key.add("ICE of a row", Swatch::Line(grey, 1, 0));
    }
    if plot.color_by.as_deref() == Some("class") {
        for class in [1, 0] {
            key.add(
                format!("ICE of a row: {}", names.class(class)),
                Swatch::Line(super::palette::class(Some(class)), 2, 0),
            );
        }
    }
    if plot.replicates {
        key.add(
            "every fit's ICE curves around the PD averaged over the fits",
            Swatch::Note,
        );
    }
    let (cut, total) = cut_curves(plot, out, names);
    if cut > 0 {
        key.add(super::cut_note(cut, total), Swatch::Note);
    }
    match plot.rug {
        true => key.add("ticks at the bottom: each row's own value", Swatch::Note),
        false => key.add("each row's own value", Swatch::Marker(grey, false)),
    }
    vlines_entry(&mut key, &plot.vlines);
    if plot.histogram {
        for class in [0, 1] {
            key.add(
                format!("training rows: {}", names.class(class)),
                Swatch::Patch(super::palette::class(Some(class)), 0.45),
            );
        }
    }
    key
}

/// Draws a `curves` figure: PD bands, or ICE panels (with a class histogram), and
/// the key below them.
fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    plot: &Curves,
    out: &RunOutput,
    names: &Names,
) -> Result<(), PlotError> {
    let Curves {
        pd,
        vlines,
        panels,
        histogram,
        data,
        ..
    } = plot;
    let list = pd_panels(out, pd.list(), panels, names);
    let key = figure_key(plot, out, &list, names);
    let (root, strip) = key.split(root);
    key.draw(&strip)?;
    // The training sample on the left, one column of the figure's width.
    let (w, _) = root.dim_in_pixel();
    let (left, rest) = root.split_horizontally(match data {
        Some(_) => w / (grid(plot, out, names).1 as u32 + 1),
        None => 0,
    });
    if let Some(d) = data {
        super::scatter::draw(&left, out, &d.x, &d.y, d.shade)?;
    }
    let root = &rest;
    if let Some(style) = plot.ice_style(out, names) {
        // Per feature: its ICE panel of each model, then (with `histogram`)
        // the feature's class histogram once (wood2024 Fig. 12-15's layout).
        let features = ice_columns(&list);
        let cells: Vec<(&PdPanel<'_>, usize)> = features
            .iter()
            .flat_map(|name| {
                list.iter().flat_map(move |p| {
                    (0..p.features.len())
                        .filter(move |&f| p.features[f].0 == *name)
                        .map(move |f| (p, f))
                })
            })
            .collect();
        let areas = root.split_evenly(grid(plot, out, names));
        // The curves' panels beside a colour bar are the narrowest.
        let width = areas[0]
            .dim_in_pixel()
            .0
            .saturating_sub(match plot.color_by.as_deref() {
                Some("class") | None => 0,
                Some(_) => COLOUR_BAR,
            });
        let titles: Vec<String> = cells
            .iter()
            .map(|(p, f)| ice_title(out, style.ice, p, &p.features[*f].0, names))
            .chain(histogram.then(|| HISTOGRAM.to_string()))
            .collect();
        let band = super::caption_band_of(titles.iter().map(String::as_str), width);
        let mut next = areas.iter();
        for (k, (panel, f)) in cells.iter().enumerate() {
            let area = next.next().expect("a column per cell");
            ice_panel(area, panel, *f, out, &style, names, band)?;
            let name = &panel.features[*f].0;
            let last_of_feature = cells
                .get(k + 1)
                .is_none_or(|(p, g)| p.features[*g].0 != *name);
            if *histogram && last_of_feature {
                let area = next.next().expect("a column per histogram");
                class_histogram(area, out, name, names, band)?;
            }
        }
    } else {
        // Every panel on one y-axis, so quantities side by side compare by eye.
        let rows = list
            .iter()
            .flat_map(|p| p.features.iter().flat_map(|(_, r)| r.iter()));
        let y = range(rows.flat_map(|r| [r.value.lower, r.value.upper, r.value.estimate]));
        let features = ice_columns(&list);
        let areas = root.split_evenly(grid(plot, out, names));
        let band = super::caption_band_of(
            list.iter().map(|p| p.title.as_str()),
            areas[0].dim_in_pixel().0,
        );
        for (area, panel) in areas.iter().zip(&list) {
            let style = PdStyle {
                vlines,
                y,
                features: &features,
                band,
                estimands: pd.list().len() > 1,
            };
            pd_panel(area, panel, &style, names)?;
        }
    }
    Ok(())
}

/// How PD panels are drawn: their dotted lines, their shared y-range, the features
/// in colour order, their caption band and whether their captions name their
/// estimands (several PD quantities side by side).
struct PdStyle<'a> {
    vlines: &'a [f64],
    y: (f64, f64),
    features: &'a [String],
    band: u32,
    estimands: bool,
}

fn pd_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    panel: &PdPanel<'_>,
    style: &PdStyle<'_>,
    names: &Names,
) -> Result<(), PlotError> {
    let e = crate::drawn::<DB::ErrorType>;
    let rows = panel.features.iter().flat_map(|(_, r)| r.iter());
    let (x0, x1) = range(rows.clone().filter_map(|r| r.x));
    let (y0, y1) = style.y;
    let frame = super::Frame::new(&panel.title, style.band);
    let mut chart = chart_on(area, &frame, (x0, x1), (y0, y1)).map_err(e)?;
    // One feature's PD reads against that feature's name and unit; several share
    // the axis.
    let x_desc = match panel.features.as_slice() {
        [(feature, _)] => names.feature_axis(feature),
        _ => "feature value".to_string(),
    };
    let y_desc = match style.estimands {
        true => names.estimand_axis(panel.quantity),
        false => names.axis(panel.quantity),
    };
    super::axes(&mut chart, &x_desc, &y_desc)
        .draw()
        .map_err(e)?;
    for (feature, rows) in &panel.features {
        let i = style
            .features
            .iter()
            .position(|f| f == feature)
            .unwrap_or(0);
        // Several features take a colour each; one takes its quantity's.
        let color = match style.features.len() {
            1 => super::palette::quantity(panel.quantity, 0),
            _ => super::palette::series(i),
        };
        let band: Vec<(f64, f64)> = rows
            .iter()
            .filter(|r| r.value.lower.is_finite())
            .map(|r| (r.x.unwrap_or(0.0), r.value.upper))
            .chain(
                rows.iter()
                    .rev()
                    .filter(|r| r.value.lower.is_finite())
                    .map(|r| (r.x.unwrap_or(0.0), r.value.lower)),
            )
            .collect();
        if !band.is_empty() {
            // The band's edges in its colour keep two overlapping bands apart.
            let half = band.len() / 2;
            chart
                .draw_series(std::iter::once(Polygon::new(
                    band.clone(),
                    color.mix(0.15).filled(),
                )))
                .map_err(e)?;
            for edge in [&band[..half], &band[half..]] {
                chart
                    .draw_series(std::iter::once(PathElement::new(
                        edge.to_vec(),
                        color.mix(0.6).stroke_width(1),
                    )))
                    .map_err(e)?;
            }
        }
        chart
            .draw_series(LineSeries::new(
                rows.iter().map(|r| (r.x.unwrap_or(0.0), r.value.estimate)),
                color.stroke_width(2),
            ))
            .map_err(e)?;
    }
    draw_vlines(&mut chart, style.vlines, (y0, y1)).map_err(e)
}

impl Curves {
    /// How its ICE panels are drawn, where it draws ICE curves: with `shared_y`,
    /// on the union of every panel's own y-range.
    fn ice_style(&self, out: &RunOutput, names: &Names) -> Option<IceStyle<'_>> {
        let pd = &self.pd.list()[0];
        let mut style = IceStyle {
            ice: self.ice.as_deref()?,
            max_curves: self.max_curves,
            pd,
            color_by: self.color_by.as_deref(),
            vlines: &self.vlines,
            rug: self.rug,
            y_desc: names.axis(pd),
            shared_y: None,
        };
        if self.shared_y {
            let panels = pd_panels(out, self.pd.list(), &self.panels, names);
            let own = panels.iter().flat_map(|p| {
                p.features
                    .iter()
                    .map(|(f, pd)| ice_y_range(&panel_curves(out, &style, p, f), pd))
            });
            style.shared_y = own.reduce(|(a0, a1), (b0, b1)| (a0.min(b0), a1.max(b1)));
        }
        Some(style)
    }
}

/// How ICE panels are drawn.
struct IceStyle<'a> {
    ice: &'a str,
    max_curves: Option<usize>,
    pd: &'a str,
    color_by: Option<&'a str>,
    vlines: &'a [f64],
    rug: bool,
    y_desc: String,
    /// The y-range every panel shares (`shared_y`), or none: each its own.
    shared_y: Option<(f64, f64)>,
}

/// The width of an ICE panel's colour bar, in layout units.
const COLOUR_BAR: u32 = 64;

/// The share of the colouring feature's values a colour bar spans (the middle 98 %;
/// the rest take its end colours), so one outlying row cannot stretch the bar.
const COLOUR_SHARE: f64 = 0.98;

/// The ICE curves a panel draws: of its model, variant and feature, the first
/// `max_curves`.
fn panel_curves<'a>(
    out: &'a RunOutput,
    style: &IceStyle<'_>,
    panel: &PdPanel<'_>,
    feature: &str,
) -> Vec<&'a CurveRow> {
    out.curves
        .iter()
        .filter(|c| {
            c.quantity == style.ice
                && c.model == panel.model
                && c.labels == panel.labels
                && c.feature == feature
        })
        .take(style.max_curves.unwrap_or(usize::MAX))
        .collect()
}

/// An ICE panel's y-range: the middle [`super::ROBUST_SHARE`] of its curves'
/// values, widened to the whole PD.
fn ice_y_range(curves: &[&CurveRow], pd: &[&SummaryRow]) -> (f64, f64) {
    let whole: Vec<f64> = pd.iter().map(|r| r.value.estimate).collect();
    super::robust_range(
        curves.iter().flat_map(|c| c.values.iter().copied()),
        super::ROBUST_SHARE,
        &whole,
    )
}

/// Over every ICE panel of the figure: how many curves leave their panel's
/// y-range ([`ice_y_range`]), and how many are drawn.
fn cut_curves(plot: &Curves, out: &RunOutput, names: &Names) -> (usize, usize) {
    let Some(style) = plot.ice_style(out, names) else {
        return (0, 0);
    };
    let (mut cut, mut total) = (0, 0);
    for panel in &pd_panels(out, plot.pd.list(), &plot.panels, names) {
        for (feature, pd) in &panel.features {
            let curves = panel_curves(out, &style, panel, feature);
            let (y0, y1) = style.shared_y.unwrap_or_else(|| ice_y_range(&curves, pd));
            total += curves.len();
            cut += curves
                .iter()
                .filter(|c| c.values.iter().any(|v| !(y0..=y1).contains(v)))
                .count();
        }
    }
    (cut, total)
}

/// An ICE panel's caption: what tells it from the others, the model or setting,
/// after the feature where the figure varies several (the curves' name is the
/// y-axis's and the key's, the feature the x-axis's).
fn ice_title(
    out: &RunOutput,
    ice: &str,
    panel: &PdPanel<'_>,
    feature: &str,
    names: &Names,
) -> String {
    let several = out
        .curves
        .iter()
        .any(|c| c.quantity == ice && c.feature != feature);
    match (panel.title.is_empty(), several) {
        (true, _) => format!(
            "{} of {}",
            super::labels::curve_name(ice),
            names.feature(feature)
        ),
        (false, true) => format!("{}: {}", names.feature(feature), panel.title),
        (false, false) => panel.title.clone(),
    }
}

/// The class histogram's caption (the feature is the x-axis's name).
const HISTOGRAM: &str = "training rows by class";

fn ice_panel<DB: DrawingBackend>(
    whole: &DrawingArea<DB, Shift>,
    panel: &PdPanel<'_>,
    f: usize,
    out: &RunOutput,
    style: &IceStyle<'_>,
    names: &Names,
    band: u32,
) -> Result<(), PlotError> {
    let (ice, color_by, vlines, y_desc) = (
        style.ice,
        style.color_by,
        style.vlines,
        style.y_desc.as_str(),
    );
    let e = crate::drawn::<DB::ErrorType>;
    let (feature, pd) = &panel.features[f];
    let curves = panel_curves(out, style, panel, feature);
    let own = out
        .feature_names
        .iter()
        .position(|n| n == feature)
        .unwrap_or(0);
    let by_class = color_by == Some("class");
    let by = match color_by {
        Some("other") => Some(1 - own.min(1)),
        Some(b) => out.feature_names.iter().position(|n| n == b),
        None => None,
    };
    // The colour bar spans the middle 98 % of the colouring feature's values over
    // every panel coloured by it (one bar for one feature); the rest take its end
    // colours.
    let colouring = |c: &&CurveRow| match color_by {
        Some("other") => c.feature == *feature,
        _ => true,
    };
    let (c0, c1) = super::robust_range(
        out.curves
            .iter()
            .filter(|c| c.quantity == ice)
            .filter(colouring)
            .filter_map(|c| by.and_then(|b| c.row_values.get(b).copied())),
        COLOUR_SHARE,
        &[],
    );
    let (x0, x1) = range(pd.iter().filter_map(|r| r.x));
    let (y0, y1) = style.shared_y.unwrap_or_else(|| ice_y_range(&curves, pd));
    // The rug of the rows' own values has a strip of its own below the curves (two
    // rows, one per class), so it never covers them.
    let floor = match style.rug {
        true => y0 - 0.08 * (y1 - y0),
        false => y0,
    };
    let title = ice_title(out, ice, panel, feature, names);
    // Colour encodes another feature's value: a labelled colour bar beside the panel.
    let area = match (by_class, by) {
        (false, Some(b)) => {
            let (rest, bar) = super::with_colour_bar(whole, COLOUR_BAR);
            super::colour_bar(
                &bar,
                (c0, c1),
                names.feature(&out.feature_names[b]),
                super::viridis,
            )?;
            rest
        }
        _ => whole.clone(),
    };
    let area = &area;
    let frame = super::Frame::new(&title, band);
    let mut chart = chart_on(area, &frame, (x0, x1), (floor, y1)).map_err(e)?;
    super::axes(&mut chart, &names.feature_axis(feature), y_desc)
        .draw()
        .map_err(e)?;
    for c in &curves {
        let color = match by {
            _ if by_class => super::palette::class(c.row_class),
            Some(b) => c
                .row_values
                .get(b)
                .map_or(RGBColor(128, 128, 128), |&v| super::viridis(v, c0, c1)),
            None => RGBColor(128, 128, 128),
        };
        let points: Vec<(f64, f64)> = c
            .grid
            .iter()
            .copied()
            .zip(c.values.iter().copied())
            .collect();
        for piece in super::clip_y(&points, (y0, y1)) {
            chart
                .draw_series(LineSeries::new(piece, color.mix(0.35).stroke_width(1)))
                .map_err(e)?;
        }
        // A variant with other features than the first's keeps no row values; a value
        // outside the grid has no curve point to mark (it would sit on the frame),
        // nor one beyond the y-range.
        let Some(&x) = c.row_values.get(own) else {
            continue;
        };
        let (first, last) = (c.grid.first().copied(), c.grid.last().copied());
        let at = interpolate(&c.grid, &c.values, x);
        if first
            .zip(last)
            .is_some_and(|(a, b)| x < a.min(b) || x > a.max(b))
            || !(y0..=y1).contains(&at)
        {
            continue;
        }
        if style.rug {
            // One rug row per class (class 1 above class 0), one row otherwise.
            let tick = 0.035 * (y1 - floor);
            let row = if by_class {
                c.row_class.unwrap_or(0) as f64
            } else {
                0.0
            };
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(x, floor + row * tick), (x, floor + (row + 1.0) * tick)],
                    color.stroke_width(1),
                )))
                .map_err(e)?;
        } else {
            chart
                .draw_series(std::iter::once(Circle::new((x, at), 3, color.filled())))
                .map_err(e)?;
        }
    }
    let pd_color = pd_color(style.pd);
    chart
        .draw_series(LineSeries::new(
            pd.iter().map(|r| (r.x.unwrap_or(0.0), r.value.estimate)),
            pd_color.stroke_width(3),
        ))
        .map_err(e)?;
    draw_vlines(&mut chart, vlines, (floor, y1)).map_err(e)
}

/// Histogram of `feature` in the first replicate's training sample, one colour per
/// class (red = 1, blue = 0), bars overlaid.
fn class_histogram<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    out: &RunOutput,
    feature: &str,
    names: &Names,
    band: u32,
) -> Result<(), PlotError> {
    const BINS: usize = 25;
    let e = crate::drawn::<DB::ErrorType>;
    let Some(data) = &out.train_sample else {
        return Err(PlotError::Missing("no training sample to draw".into()));
    };
    let j = data
        .feature_names()
        .iter()
        .position(|n| n == feature)
        .ok_or_else(|| {
            PlotError::Missing(format!("no feature `{feature}` in the training sample"))
        })?;
    let x = data.x().column(j).to_vec();
    let classes: Vec<Option<usize>> = match data.y() {
        xai_core::Target::Classes { labels, .. } => labels.iter().map(|&c| Some(c)).collect(),
        xai_core::Target::Continuous(_) => vec![None; x.len()],
    };
    let (lo, hi) = range(x.iter().copied());
    let width = (hi - lo) / BINS as f64;
    let mut counts = [[0usize; BINS]; 2];
    for (v, c) in x.iter().zip(&classes) {
        counts[usize::from(*c == Some(1))][(((v - lo) / width) as usize).min(BINS - 1)] += 1;
    }
    let top = counts.iter().flatten().copied().max().unwrap_or(1) as f64 * 1.1;
    let mut chart = chart_on(
        area,
        &super::Frame::new(HISTOGRAM, band),
        (lo, hi),
        (0.0, top),
    )
    .map_err(e)?;
    super::axes(&mut chart, &names.feature_axis(feature), "rows")
        .y_label_formatter(&super::count)
        .draw()
        .map_err(e)?;
    for (k, class_counts) in counts.iter().enumerate() {
        let color = super::palette::class(Some(k));
        chart
            .draw_series(class_counts.iter().enumerate().map(|(b, &n)| {
                let x0 = lo + b as f64 * width;
                Rectangle::new(
                    [(x0, 0.0), (x0 + width, n as f64)],
                    color.mix(0.45).filled(),
                )
            }))
            .map_err(e)?;
    }
    Ok(())
}
