//! Partial dependence with interval bands, and ICE curves coloured by another
//! feature or by class with the PD in bold and an optional class histogram.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::colors::colormaps::ViridisRGB;

use super::labels::Names;
use super::scatter::ScatterPanel;
use super::{
    COLORS, Canvas, Figure, PlotKind, PlotPlan, chart_on, class_color, draw_vlines, legend, range,
};
use xai_core::interpolate;
use xai_methods::Invalid;
use xai_methods::output::RunOutput;
use xai_methods::table::SummaryRow;

plot_settings! {
    /// Partial-dependence curves with their interval bands, one panel per model (and
    /// value of `panels`) holding every feature; or, with `ice`, one panel per feature
    /// with the sampled rows' ICE curves (coloured by `color_by`, a dot at each row's own
    /// value) and the PD in black.
    pub struct Curves {
        /// The PD quantity (`entropy_pd`, ...).
        pub pd: String,
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
        /// Draw replicate k's own estimates and intervals (one fit, as a paper's
        /// figure shows one) instead of the mean over replicates with the interval
        /// over replicates; needs the tidy rows.
        #[serde(default)]
        pub replicate: Option<usize>,
    }
}

impl PlotKind for Curves {
    fn replicate(&self) -> Option<usize> {
        self.replicate
    }

    fn validate(&self, plan: &PlotPlan<'_>) -> Result<(), Invalid> {
        if let Some(d) = &self.data {
            plan.feature(&d.x)?;
            plan.feature(&d.y)?;
        }
        plan.known(&self.pd, &self.pd)?;
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
        plan.panels(&self.panels)
    }

    fn size(&self, fig: &Figure<'_>) -> (u32, u32) {
        size(self, fig.out, fig.names)
    }

    fn draw(&self, canvas: Canvas<'_, '_>, fig: &Figure<'_>) -> Result<(), String> {
        super::on_canvas!(canvas, root => draw(root, self, fig.out, fig.names))
    }
}

/// A panel of PD curves: title, and per feature its summary rows in grid order.
struct PdPanel<'a> {
    title: String,
    model: String,
    labels: Vec<String>,
    features: Vec<(String, Vec<&'a SummaryRow>)>,
}

fn pd_panels<'a>(
    out: &'a RunOutput,
    pd: &str,
    panels: &Option<String>,
    names: &Names,
) -> Vec<PdPanel<'a>> {
    let col = panels
        .as_ref()
        .and_then(|k| out.keys.iter().position(|c| c == k));
    let mut list: Vec<PdPanel<'a>> = Vec::new();
    for r in out.summary.iter().filter(|r| r.quantity == pd) {
        let setting = col
            .zip(panels.as_deref())
            .map(|(c, k)| (k, r.labels[c].as_str()));
        let title = names.panel(&r.model, &r.quantity, setting);
        let panel = match list.iter().position(|p| p.title == title) {
            Some(i) => &mut list[i],
            None => {
                list.push(PdPanel {
                    title,
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
    list
}

/// The pixel size of a `curves` figure: one 520-px column per panel (PD), or per
/// ICE panel plus one per feature with histograms.
fn size(plot: &Curves, out: &RunOutput, names: &Names) -> (u32, u32) {
    let Curves {
        pd,
        ice,
        panels,
        histogram,
        data,
        ..
    } = plot;
    let p = pd_panels(out, pd, panels, names);
    let cells: usize = p.iter().map(|p| p.features.len()).sum();
    let cols = match (ice.is_some(), histogram) {
        (true, true) => cells + ice_columns(&p).len(),
        (true, false) => cells,
        (false, _) => p.len(),
    } + usize::from(data.is_some());
    (520 * cols.max(1) as u32 + 40, 470)
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

/// Draws a `curves` figure: PD bands, or ICE panels (with a class histogram).
fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    plot: &Curves,
    out: &RunOutput,
    names: &Names,
) -> Result<(), String> {
    let Curves {
        pd,
        ice,
        color_by,
        vlines,
        panels,
        rug,
        histogram,
        data,
        max_curves,
        ..
    } = plot;
    let list = pd_panels(out, pd, panels, names);
    // The training sample on the left, one column of the figure's width.
    let (w, _) = root.dim_in_pixel();
    let (left, rest) = root.split_horizontally(match data {
        Some(_) => w * 520 / (size(plot, out, names).0),
        None => 0,
    });
    if let Some(d) = data {
        super::scatter::draw(&left, out, &d.x, &d.y, d.shade)?;
    }
    let root = &rest;
    if let Some(ice) = ice {
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
        let columns = cells.len() + if *histogram { features.len() } else { 0 };
        let areas = root.split_evenly((1, columns.max(1)));
        let style = IceStyle {
            ice,
            max_curves: *max_curves,
            pd,
            color_by: color_by.as_deref(),
            vlines,
            rug: *rug,
            y_desc: super::labels::axis_label(pd),
        };
        let mut next = areas.iter();
        for (k, (panel, f)) in cells.iter().enumerate() {
            let area = next.next().expect("a column per cell");
            ice_panel(area, panel, *f, out, &style, names)?;
            let name = &panel.features[*f].0;
            let last_of_feature = cells
                .get(k + 1)
                .is_none_or(|(p, g)| p.features[*g].0 != *name);
            if *histogram && last_of_feature {
                let area = next.next().expect("a column per histogram");
                class_histogram(area, out, name, names)?;
            }
        }
    } else {
        let areas = root.split_evenly((1, list.len().max(1)));
        for (area, panel) in areas.iter().zip(&list) {
            pd_panel(area, panel, vlines, &super::labels::axis_label(pd), names)?;
        }
    }
    Ok(())
}

fn pd_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    panel: &PdPanel<'_>,
    vlines: &[f64],
    y_desc: &str,
    names: &Names,
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let rows = panel.features.iter().flat_map(|(_, r)| r.iter());
    let (x0, x1) = range(rows.clone().filter_map(|r| r.x));
    let (y0, y1) = range(rows.flat_map(|r| [r.value.lower, r.value.upper, r.value.estimate]));
    let mut chart = chart_on(area, &panel.title, (x0, x1), (y0, y1)).map_err(e)?;
    // One feature's PD reads against that feature's name and unit; several share
    // the axis.
    let x_desc = match panel.features.as_slice() {
        [(feature, _)] => names.feature_axis(feature),
        _ => "feature value".to_string(),
    };
    super::axes(&mut chart, &x_desc, y_desc).draw().map_err(e)?;
    for (i, (feature, rows)) in panel.features.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
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
            .map_err(e)?
            .label(names.feature(feature))
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2))
            });
    }
    if panel
        .features
        .iter()
        .flat_map(|(_, r)| r.iter())
        .any(|r| r.value.lower.is_finite())
    {
        // What the bands are: the summary's interval over replicates.
        let grey = BLACK.mix(0.15);
        chart
            .draw_series(std::iter::empty::<Rectangle<(f64, f64)>>())
            .map_err(e)?
            .label(names.band())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 16, y + 5)], grey.filled()));
    }
    draw_vlines(&mut chart, vlines, (y0, y1)).map_err(e)?;
    legend(&mut chart).map_err(e)
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
}

fn ice_panel<DB: DrawingBackend>(
    whole: &DrawingArea<DB, Shift>,
    panel: &PdPanel<'_>,
    f: usize,
    out: &RunOutput,
    style: &IceStyle<'_>,
    names: &Names,
) -> Result<(), String> {
    let (ice, color_by, vlines, y_desc) = (
        style.ice,
        style.color_by,
        style.vlines,
        style.y_desc.as_str(),
    );
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let (feature, pd) = &panel.features[f];
    let curves: Vec<_> = out
        .curves
        .iter()
        .filter(|c| {
            c.quantity == ice
                && c.model == panel.model
                && c.labels == panel.labels
                && &c.feature == feature
        })
        .take(style.max_curves.unwrap_or(usize::MAX))
        .collect();
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
    let (c0, c1) = range(
        curves
            .iter()
            .filter_map(|c| by.and_then(|b| c.row_values.get(b).copied())),
    );
    let (x0, x1) = range(pd.iter().filter_map(|r| r.x));
    let (y0, y1) = range(
        curves
            .iter()
            .flat_map(|c| c.values.iter().copied())
            .chain(pd.iter().map(|r| r.value.estimate)),
    );
    let title = format!("{}: ICE of {}", panel.title, names.feature(feature));
    // Colour encodes another feature's value: a labelled colour bar beside the panel.
    let area = match (by_class, by) {
        (false, Some(b)) => {
            let (rest, bar) = super::with_colour_bar(whole, 92);
            super::colour_bar(&bar, (c0, c1), names.feature(&out.feature_names[b]))?;
            rest
        }
        _ => whole.clone(),
    };
    let area = &area;
    let mut chart = chart_on(area, &title, (x0, x1), (y0, y1)).map_err(e)?;
    super::axes(&mut chart, &names.feature_axis(feature), y_desc)
        .draw()
        .map_err(e)?;
    for c in &curves {
        let color = match by {
            _ if by_class => class_color(c.row_class),
            Some(b) => c.row_values.get(b).map_or(RGBColor(128, 128, 128), |&v| {
                ViridisRGB::get_color_normalized(v, c0, c1)
            }),
            None => RGBColor(128, 128, 128),
        };
        chart
            .draw_series(LineSeries::new(
                c.grid.iter().copied().zip(c.values.iter().copied()),
                color.mix(0.35).stroke_width(1),
            ))
            .map_err(e)?;
        // A variant with other features than the first's keeps no row values.
        let Some(&x) = c.row_values.get(own) else {
            continue;
        };
        if style.rug {
            // One rug row per class (class 1 above class 0), one row otherwise.
            let tick = 0.03 * (y1 - y0);
            let row = if by_class {
                c.row_class.unwrap_or(0) as f64
            } else {
                0.0
            };
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(x, y0 + row * tick), (x, y0 + (row + 1.0) * tick)],
                    color.stroke_width(1),
                )))
                .map_err(e)?;
        } else {
            chart
                .draw_series(std::iter::once(Circle::new(
                    (x, interpolate(&c.grid, &c.values, x)),
                    3,
                    color.filled(),
                )))
                .map_err(e)?;
        }
    }
    let pd_color = super::statistic_color(style.pd).unwrap_or(BLACK);
    chart
        .draw_series(LineSeries::new(
            pd.iter().map(|r| (r.x.unwrap_or(0.0), r.value.estimate)),
            pd_color.stroke_width(3),
        ))
        .map_err(e)?
        .label(super::labels::curve_name(style.pd))
        .legend(move |(x, y)| {
            PathElement::new(vec![(x, y), (x + 16, y)], pd_color.stroke_width(3))
        });
    if by_class {
        // The key to the curves' colours: one entry per class.
        for class in [1, 0] {
            let color = class_color(Some(class));
            chart
                .draw_series(std::iter::empty::<PathElement<(f64, f64)>>())
                .map_err(e)?
                .label(format!("ICE, class {class}"))
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2))
                });
        }
    }
    draw_vlines(&mut chart, vlines, (y0, y1)).map_err(e)?;
    legend(&mut chart).map_err(e)
}

/// Histogram of `feature` in the first replicate's training sample, one colour per
/// class (red = 1, blue = 0), bars overlaid.
fn class_histogram<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    out: &RunOutput,
    feature: &str,
    names: &Names,
) -> Result<(), String> {
    const BINS: usize = 25;
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let Some(data) = &out.train_sample else {
        return Err("no training sample to draw".into());
    };
    let j = data
        .feature_names()
        .iter()
        .position(|n| n == feature)
        .ok_or("feature not in the data")?;
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
    let caption = format!("training rows by class: {}", names.feature(feature));
    let mut chart = chart_on(area, &caption, (lo, hi), (0.0, top)).map_err(e)?;
    super::axes(&mut chart, &names.feature_axis(feature), "rows")
        .y_label_formatter(&super::count)
        .draw()
        .map_err(e)?;
    for (k, class_counts) in counts.iter().enumerate() {
        let color = class_color(Some(k));
        chart
            .draw_series(class_counts.iter().enumerate().map(|(b, &n)| {
                let x0 = lo + b as f64 * width;
                Rectangle::new(
                    [(x0, 0.0), (x0 + width, n as f64)],
                    color.mix(0.45).filled(),
                )
            }))
            .map_err(e)?
            .label(format!("class {k}"))
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled()));
    }
    legend(&mut chart).map_err(e)
}
