//! Figures other than bar charts: partial dependence with interval bands, ICE curves
//! coloured by another feature, a scatter of the training sample, and the entropy
//! map of a permutation (wood2024 Fig. 2).

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::colors::colormaps::ViridisRGB;

use crate::plot::COLORS;
use crate::run::RunOutput;
use crate::spec::PlotSpec;
use crate::table::SummaryRow;
use xai_core::interpolate;

/// A panel of PD curves: title, and per feature its summary rows in grid order.
struct PdPanel<'a> {
    title: String,
    model: String,
    labels: Vec<String>,
    features: Vec<(String, Vec<&'a SummaryRow>)>,
}

fn pd_panels<'a>(out: &'a RunOutput, pd: &str, panels: &Option<String>) -> Vec<PdPanel<'a>> {
    let col = panels
        .as_ref()
        .and_then(|k| out.keys.iter().position(|c| c == k));
    let mut list: Vec<PdPanel<'a>> = Vec::new();
    for r in out.summary.iter().filter(|r| r.quantity == pd) {
        let title = match (col, panels) {
            (Some(c), Some(k)) => format!("{}, {k} = {}", r.model, r.labels[c]),
            _ => r.model.clone(),
        };
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

/// The pixel size of a curves or scatter figure.
pub fn size(plot: &PlotSpec, out: &RunOutput) -> (u32, u32) {
    match plot {
        PlotSpec::Curves {
            pd,
            ice,
            panels,
            histogram,
            ..
        } => {
            let p = pd_panels(out, pd, panels);
            let features: usize = p.iter().map(|p| p.features.len()).sum();
            let cols = match (ice.is_some(), histogram) {
                (true, true) => 2 * features,
                (true, false) => features,
                (false, _) => p.len(),
            };
            (520 * cols.max(1) as u32 + 40, 470)
        }
        PlotSpec::PermutationMap { .. } => (1500, 500),
        _ => (560, 560),
    }
}

/// Draws a curves or scatter figure.
pub fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    title: &str,
    plot: &PlotSpec,
    out: &RunOutput,
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(e)?;
    let root = root.titled(title, ("sans-serif", 18)).map_err(e)?;
    match plot {
        PlotSpec::Curves {
            pd,
            ice,
            color_by,
            vlines,
            panels,
            y_unit,
            rug,
            histogram,
            ..
        } => {
            let list = pd_panels(out, pd, panels);
            if let Some(ice) = ice {
                let cells: Vec<(&PdPanel<'_>, usize)> = list
                    .iter()
                    .flat_map(|p| (0..p.features.len()).map(move |f| (p, f)))
                    .collect();
                let per_cell = if *histogram { 2 } else { 1 };
                let areas = root.split_evenly((1, (per_cell * cells.len()).max(1)));
                let style = IceStyle {
                    ice,
                    color_by: color_by.as_deref(),
                    vlines,
                    rug: *rug,
                    y_desc: format!("{pd} ({y_unit})"),
                };
                for (k, (panel, f)) in cells.into_iter().enumerate() {
                    ice_panel(&areas[per_cell * k], panel, f, out, &style)?;
                    if *histogram {
                        class_histogram(&areas[per_cell * k + 1], out, &panel.features[f].0)?;
                    }
                }
            } else {
                let areas = root.split_evenly((1, list.len().max(1)));
                for (area, panel) in areas.iter().zip(&list) {
                    pd_panel(area, panel, vlines, &format!("{pd} ({y_unit})"))?;
                }
            }
        }
        PlotSpec::Scatter { x, y, shade, .. } => scatter(&root, out, x, y, *shade)?,
        PlotSpec::PermutationMap { .. } => {
            let snap = out
                .snapshot
                .as_ref()
                .ok_or("no snapshot of the first replicate")?;
            let areas = root.split_evenly((1, 3));
            entropy_map(&areas[0], snap, false)?;
            entropy_map(&areas[1], snap, true)?;
            histograms(&areas[2], snap)?;
        }
        PlotSpec::Bars { .. } => unreachable!("bars are drawn by plot::draw"),
    }
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

fn pd_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    panel: &PdPanel<'_>,
    vlines: &[f64],
    y_desc: &str,
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let rows = panel.features.iter().flat_map(|(_, r)| r.iter());
    let (x0, x1) = range(rows.clone().filter_map(|r| r.x));
    let (y0, y1) = range(rows.flat_map(|r| [r.value.lower, r.value.upper, r.value.estimate]));
    let mut chart = chart_on(area, &panel.title, (x0, x1), (y0, y1)).map_err(e)?;
    chart
        .configure_mesh()
        .x_desc("feature value")
        .y_desc(y_desc)
        .label_style(("sans-serif", 13))
        .draw()
        .map_err(e)?;
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
            chart
                .draw_series(std::iter::once(Polygon::new(band, color.mix(0.2).filled())))
                .map_err(e)?;
        }
        chart
            .draw_series(LineSeries::new(
                rows.iter().map(|r| (r.x.unwrap_or(0.0), r.value.estimate)),
                color.stroke_width(2),
            ))
            .map_err(e)?
            .label(feature.as_str())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2))
            });
    }
    draw_vlines(&mut chart, vlines, (y0, y1)).map_err(e)?;
    legend(&mut chart).map_err(e)
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
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
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

/// How ICE panels are drawn.
struct IceStyle<'a> {
    ice: &'a str,
    color_by: Option<&'a str>,
    vlines: &'a [f64],
    rug: bool,
    y_desc: String,
}

/// Red for class 1, blue for class 0.
fn class_color(class: Option<usize>) -> RGBColor {
    if class == Some(1) {
        COLORS[3]
    } else {
        COLORS[0]
    }
}

fn ice_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    panel: &PdPanel<'_>,
    f: usize,
    out: &RunOutput,
    style: &IceStyle<'_>,
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
    let color_by = if by_class {
        Some("class (red = 1, blue = 0)")
    } else {
        by.map(|b| out.feature_names[b].as_str())
    };
    let (c0, c1) = range(curves.iter().filter_map(|c| by.map(|b| c.row_values[b])));
    let (x0, x1) = range(pd.iter().filter_map(|r| r.x));
    let (y0, y1) = range(
        curves
            .iter()
            .flat_map(|c| c.values.iter().copied())
            .chain(pd.iter().map(|r| r.value.estimate)),
    );
    let title = match color_by {
        Some(b) => format!("{}: ICE of {feature}, colour = {b}", panel.title),
        None => format!("{}: ICE of {feature}", panel.title),
    };
    let mut chart = chart_on(area, &title, (x0, x1), (y0, y1)).map_err(e)?;
    chart
        .configure_mesh()
        .x_desc(feature.as_str())
        .y_desc(y_desc)
        .label_style(("sans-serif", 13))
        .draw()
        .map_err(e)?;
    for c in &curves {
        let color = match by {
            _ if by_class => class_color(c.row_class),
            Some(b) => ViridisRGB::get_color_normalized(c.row_values[b], c0, c1),
            None => RGBColor(128, 128, 128),
        };
        chart
            .draw_series(LineSeries::new(
                c.grid.iter().copied().zip(c.values.iter().copied()),
                color.mix(0.8).stroke_width(1),
            ))
            .map_err(e)?;
        let x = c.row_values[own];
        if style.rug {
            let tick = 0.03 * (y1 - y0);
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(x, y0), (x, y0 + tick)],
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
    chart
        .draw_series(LineSeries::new(
            pd.iter().map(|r| (r.x.unwrap_or(0.0), r.value.estimate)),
            BLACK.stroke_width(3),
        ))
        .map_err(e)?;
    draw_vlines(&mut chart, vlines, (y0, y1)).map_err(e)
}

fn scatter<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    out: &RunOutput,
    x: &str,
    y: &str,
    shade: Option<f64>,
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let Some(data) = &out.train_sample else {
        return Err("no training sample to draw".into());
    };
    let col = |name: &str| {
        data.feature_names()
            .iter()
            .position(|n| n == name)
            .unwrap_or(0)
    };
    let (xs, ys) = (
        data.x().column(col(x)).to_vec(),
        data.x().column(col(y)).to_vec(),
    );
    let (lo, hi) = range(xs.iter().chain(&ys).copied());
    let mut chart = ChartBuilder::on(root)
        .caption("training sample (first replicate)", ("sans-serif", 15))
        .margin(12)
        .x_label_area_size(35)
        .y_label_area_size(45)
        .build_cartesian_2d(lo..hi, lo..hi)
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_desc(x)
        .y_desc(y)
        .label_style(("sans-serif", 13))
        .draw()
        .map_err(e)?;
    if let Some(a) = shade {
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(-a, -a), (a, a)],
                RGBColor(230, 230, 230).filled(),
            )))
            .map_err(e)?;
        // Hatching: the lines v = u + c clipped to the square.
        let hatch = (-8..=8).map(|k| {
            let c = a * k as f64 / 4.0;
            let (u0, u1) = ((-a).max(-a - c), a.min(a - c));
            PathElement::new(
                vec![(u0, u0 + c), (u1, u1 + c)],
                RGBColor(150, 150, 150).stroke_width(1),
            )
        });
        chart.draw_series(hatch).map_err(e)?;
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(-a, -a), (a, a)],
                BLACK.stroke_width(1),
            )))
            .map_err(e)?;
    }
    chart
        .draw_series(
            xs.iter()
                .zip(&ys)
                .map(|(&u, &v)| Circle::new((u, v), 2, COLORS[0].mix(0.7).filled())),
        )
        .map_err(e)?;
    Ok(())
}

fn entropy_map<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    snap: &crate::run::Snapshot,
    permuted: bool,
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let (xs, ys) = (&snap.xs, &snap.ys);
    let (h0, h1) = range(snap.entropy.iter().copied());
    let title = if permuted {
        format!("after permuting {} (colour = original class)", snap.feature)
    } else {
        "test rows and the model's entropy".to_string()
    };
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 15))
        .margin(12)
        .x_label_area_size(35)
        .y_label_area_size(45)
        .build_cartesian_2d(xs[0]..xs[xs.len() - 1], ys[0]..ys[ys.len() - 1])
        .map_err(e)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc("X1")
        .y_desc("X2")
        .label_style(("sans-serif", 13))
        .draw()
        .map_err(e)?;
    let (dx, dy) = ((xs[1] - xs[0]) / 2.0, (ys[1] - ys[0]) / 2.0);
    chart
        .draw_series(snap.entropy.indexed_iter().map(|((i, j), &h)| {
            let color = ViridisRGB::get_color_normalized(h, h0, h1);
            Rectangle::new(
                [(xs[i] - dx, ys[j] - dy), (xs[i] + dx, ys[j] + dy)],
                color.filled(),
            )
        }))
        .map_err(e)?;
    let points = if permuted {
        &snap.permuted
    } else {
        &snap.points
    };
    chart
        .draw_series(points.rows().into_iter().zip(&snap.classes).map(|(p, &c)| {
            Circle::new(
                (p[0], p[1]),
                3,
                ShapeStyle::from(&COLORS[(c + 1) % COLORS.len()]).filled(),
            )
        }))
        .map_err(e)?;
    chart
        .draw_series(
            points
                .rows()
                .into_iter()
                .map(|p| Circle::new((p[0], p[1]), 3, BLACK.stroke_width(1))),
        )
        .map_err(e)?;
    Ok(())
}

fn histograms<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    snap: &crate::run::Snapshot,
) -> Result<(), String> {
    const BINS: usize = 20;
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let (lo, hi) = range(snap.before.iter().chain(&snap.after).copied());
    let width = (hi - lo) / BINS as f64;
    let count = |v: &[f64]| {
        let mut c = vec![0usize; BINS];
        for &x in v {
            c[(((x - lo) / width) as usize).min(BINS - 1)] += 1;
        }
        c
    };
    let (before, after) = (count(&snap.before), count(&snap.after));
    let top = before.iter().chain(&after).copied().max().unwrap_or(1) as f64 * 1.1;
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let mut chart = chart_on(area, "entropy of the test rows", (lo, hi), (0.0, top)).map_err(e)?;
    chart
        .configure_mesh()
        .x_desc("entropy (nats)")
        .y_desc("rows")
        .label_style(("sans-serif", 13))
        .draw()
        .map_err(e)?;
    for (k, (counts, label, values)) in [
        (&before, "before", &snap.before),
        (&after, "after permutation", &snap.after),
    ]
    .into_iter()
    .enumerate()
    {
        let color = COLORS[k];
        chart
            .draw_series(counts.iter().enumerate().map(|(b, &n)| {
                let x = lo + b as f64 * width;
                Rectangle::new([(x, 0.0), (x + width, n as f64)], color.mix(0.45).filled())
            }))
            .map_err(e)?
            .label(format!("{label} (mean {:.3})", mean(values)))
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled()));
    }
    legend(&mut chart).map_err(e)
}

/// Histogram of `feature` in the first replicate's training sample, one colour per
/// class (red = 1, blue = 0), bars overlaid.
fn class_histogram<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    out: &RunOutput,
    feature: &str,
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
    let caption = format!("training {feature} by class");
    let mut chart = chart_on(area, &caption, (lo, hi), (0.0, top)).map_err(e)?;
    chart
        .configure_mesh()
        .x_desc(feature)
        .y_desc("rows")
        .label_style(("sans-serif", 13))
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
