//! A scatter of two features of the first replicate's training sample.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{COLORS, range};
use crate::run::RunOutput;

/// Draws the scatter, with the square [−shade, shade]² hatched.
pub fn draw<DB: DrawingBackend>(
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
    super::axes(&mut chart, x, y).draw().map_err(e)?;
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
