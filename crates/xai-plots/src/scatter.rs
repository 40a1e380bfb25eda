//! A scatter of two features of the first replicate's training sample.

use plotters::coord::Shift;
use plotters::prelude::*;
use serde::Deserialize;
use xai_error::PlotError;

use super::print::Width;
use super::{Canvas, Figure, PlotKind, PlotPlan, range};
use xai_results::Invalid;
use xai_results::output::RunOutput;

/// A scatter of two features of the first replicate's training sample, with the
/// square [−shade, shade]² hatched.
#[derive(Debug, Clone, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScatterPanel {
    /// Feature on the x-axis.
    pub x: String,
    /// Feature on the y-axis.
    pub y: String,
    /// Half-width of the hatched square, if any.
    #[serde(default)]
    pub shade: Option<f64>,
}

plot_settings! {
    /// Scatter of two features of the first replicate's training sample, with the square
    /// [−shade, shade]² hatched.
    pub struct Scatter {
        /// Feature on the x-axis.
        pub x: String,
        /// Feature on the y-axis.
        pub y: String,
        /// Half-width of the hatched square, if any.
        #[serde(default)]
        pub shade: Option<f64>,
    }
}

impl PlotKind for Scatter {
    fn replicate(&self) -> Option<usize> {
        None
    }

    fn uses_data(&self) -> bool {
        true
    }

    fn validate(&self, plan: &PlotPlan<'_>) -> Result<(), Invalid> {
        plan.feature(&self.x)?;
        plan.feature(&self.y)
    }

    fn width(&self, _fig: &Figure<'_>) -> Width {
        Width::Column
    }

    /// A square plot area and its axes.
    fn height(&self, _fig: &Figure<'_>, width: u32) -> u32 {
        width
    }

    fn draw(&self, canvas: Canvas<'_, '_>, fig: &Figure<'_>) -> Result<(), PlotError> {
        super::on_canvas!(canvas, root => draw(root, fig.out, &self.x, &self.y, self.shade))
    }
}

/// The training rows' dark grey: a sample, not a series, so it takes none of the
/// series' colours (beside it wood2024 Fig. 6 draws X1's PD green).
const POINTS: RGBColor = RGBColor(60, 60, 60);

/// Draws the scatter, with the square [−shade, shade]² hatched.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    out: &RunOutput,
    x: &str,
    y: &str,
    shade: Option<f64>,
) -> Result<(), PlotError> {
    let e = crate::drawn::<DB::ErrorType>;
    let Some(data) = &out.train_sample else {
        return Err(PlotError::Missing("no training sample to draw".into()));
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
    // One scale on both axes, so the square region is drawn square.
    let caption = "training sample (first replicate)";
    let frame = super::Frame::new(
        caption,
        super::caption_band_of([caption], root.dim_in_pixel().0),
    )
    .square(true);
    let mut chart = super::chart_on(root, &frame, (lo, hi), (lo, hi)).map_err(e)?;
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
                .map(|(&u, &v)| Circle::new((u, v), 2, POINTS.mix(0.7).filled())),
        )
        .map_err(e)?;
    Ok(())
}
