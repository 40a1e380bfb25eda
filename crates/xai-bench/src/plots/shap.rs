//! A SHAP summary ("beeswarm") figure: for every feature a row of dots, one per kept
//! test row, at its Shapley value, jittered vertically and coloured by the row's value
//! of the feature; a dashed red line at 0; one panel per value of a grid key
//! (watson2023 Fig. 3a: the mean model beside the variance model).

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::colors::colormaps::ViridisRGB;

use super::labels::Names;
use super::{COLORS, colour_bar, range, tick, with_colour_bar};
use crate::run::RunOutput;

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

/// The pixel size: a 520-px column per panel and the colour bar.
pub(super) fn size(out: &RunOutput, quantity: &str, key: Option<&str>) -> (u32, u32) {
    let rows = out.feature_names.len().max(1) as u32;
    (
        520 * panels(out, quantity, key).len().max(1) as u32 + 110,
        (120 + 42 * rows).max(420),
    )
}

/// A deterministic vertical offset in [−0.3, 0.3] for the k-th dot of a row (the
/// golden-ratio sequence: spread evenly, no random numbers).
fn jitter(k: usize) -> f64 {
    ((k as f64 * 0.618_033_988_749_895).fract() - 0.5) * 0.6
}

/// Draws the panels side by side, each on its own x-scale (a variance model's values
/// are an order smaller than a mean model's), with the colour key on the right.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    out: &RunOutput,
    quantity: &str,
    key: Option<&str>,
    names: &Names,
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let list = panels(out, quantity, key);
    if list.iter().all(|p| p.points.iter().all(Vec::is_empty)) {
        return Err(format!(
            "no kept values of `{quantity}` to draw: give the shapley method `keep: k`"
        ));
    }
    let d = out.feature_names.len();
    let (plots, bar) = with_colour_bar(root, 110);
    let areas = plots.split_evenly((1, list.len()));
    let axis = super::labels::axis_label(quantity);
    for (area, p) in areas.iter().zip(&list) {
        let title = match key {
            Some(k) => names.setting_value(k, &p.value),
            None => String::new(),
        };
        let (x0, x1) = range(p.points.iter().flatten().map(|q| q.0));
        let mut chart = ChartBuilder::on(area)
            .caption(title, ("sans-serif", 16))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(x0..x1, -0.6..(d as f64 - 0.4))
            .map_err(e)?;
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
            .y_label_formatter(&feature_at)
            .x_label_formatter(&tick)
            .label_style(("sans-serif", 13))
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
                        ViridisRGB::get_color_normalized(v, lo, hi)
                            .mix(0.8)
                            .filled(),
                    )
                }))
                .map_err(e)?;
        }
        let red = COLORS[3].stroke_width(2);
        let steps = 30;
        chart
            .draw_series((0..steps).step_by(2).map(|k| {
                let a = -0.6 + d as f64 * k as f64 / steps as f64;
                let b = -0.6 + d as f64 * (k + 1) as f64 / steps as f64;
                PathElement::new(vec![(0.0, a), (0.0, b)], red)
            }))
            .map_err(e)?;
    }
    colour_bar(&bar, (0.0, 1.0), "feature value")
}
