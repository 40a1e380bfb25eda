//! The entropy map of a permutation (wood2024 Fig. 2): the model's entropy over the
//! plane with the test rows before and after permuting a feature, and histograms of
//! the rows' entropies.

use plotters::coord::Shift;
use plotters::prelude::*;
use xai_error::PlotError;

use super::key::{Key, Swatch};
use super::print::Width;
use super::{Canvas, Figure, PlotKind, PlotPlan, chart_on, range};
use xai_results::Invalid;
use xai_results::entropy_map::EntropyMap;
use xai_results::output::RunOutput;

plot_settings! {
    /// wood2024 Fig. 2: the entropy map of a `permutation_map` method (the first model's
    /// predictive entropy over the plane of the two features, first replicate), with the
    /// test points (left) and the same points after the permutation (centre), coloured by
    /// class, and histograms of the rows' entropies before and after (right).
    pub struct PermutationMap {
    }
}

impl PlotKind for PermutationMap {
    fn replicate(&self) -> Option<usize> {
        None
    }

    fn uses_data(&self) -> bool {
        true
    }

    fn validate(&self, plan: &PlotPlan<'_>) -> Result<(), Invalid> {
        if !plan.entropy_maps {
            return Err(Invalid::new(
                "permutation_map",
                "a permutation_map plot draws the map of a `permutation_map` method; list one under `methods:`",
            ));
        }
        Ok(())
    }

    fn width(&self, _fig: &Figure<'_>) -> Width {
        Width::Page
    }

    /// The maps' square plots as wide as their share of the page ([`MAP_SHARE`])
    /// less their y-axis, below two lines of caption and above their x-axis, and
    /// the key.
    fn height(&self, fig: &Figure<'_>, width: u32) -> u32 {
        let key = fig.out.maps.first().map_or(0, |s| key(s).height(width));
        let side = (f64::from(width) * MAP_SHARE) as u32;
        side + 40 + key
    }

    fn draw(&self, canvas: Canvas<'_, '_>, fig: &Figure<'_>) -> Result<(), PlotError> {
        super::on_canvas!(canvas, root => draw(root, fig.out))
    }
}

/// Draws the map of the run's first `permutation_map` method in three panels.
fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    out: &RunOutput,
) -> Result<(), PlotError> {
    let snap = out.maps.first().ok_or_else(|| {
        PlotError::Missing("no entropy map: the run has no permutation_map method".into())
    })?;
    let key = key(snap);
    let (root, strip) = key.split(root);
    key.draw(&strip)?;
    // Both maps share one entropy scale, its colour bar beside the second: the first
    // map's area is the second's without it, so the two maps are one size, and the
    // histograms take what is left.
    let width = root.dim_in_pixel().0;
    let map = (f64::from(width) * MAP_SHARE) as u32;
    let (first, rest) = root.split_horizontally(map);
    let (areas_1, hist) = rest.split_horizontally(map + COLOUR_BAR);
    let (second, bar) = super::with_colour_bar(&areas_1, COLOUR_BAR);
    let titles = [
        map_title(snap, false),
        map_title(snap, true),
        HISTOGRAMS.to_string(),
    ];
    let band = super::caption_band_of(titles.iter().map(String::as_str), second.dim_in_pixel().0);
    entropy_map(&first, snap, false, band)?;
    entropy_map(&second, snap, true, band)?;
    super::colour_bar(
        &bar,
        range(snap.entropy.iter().copied()),
        "Entropy (nats)",
        super::greys,
    )?;
    histograms(&hist, snap, band)
}

/// Each map's share of the figure's width (the second's colour bar besides): the
/// two maps and the histograms fill a page, the maps about 1.9 in square.
const MAP_SHARE: f64 = 0.32;
/// The width of the entropy colour bar beside the second map, in layout units.
const COLOUR_BAR: u32 = 60;

/// The key: the points' classes, then the histograms' two samples (before in grey,
/// after in the entropy colour: no class's colour).
fn key(snap: &EntropyMap) -> Key {
    let mut key = Key::default();
    let mut classes = snap.classes.clone();
    classes.sort_unstable();
    classes.dedup();
    for c in classes {
        key.add(
            format!("class {c}"),
            Swatch::Marker(super::palette::class(Some(c)), false),
        );
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    for (k, (label, values)) in [("before", &snap.before), ("after permutation", &snap.after)]
        .into_iter()
        .enumerate()
    {
        key.add(
            format!("entropies {label} (mean {:.3})", mean(values)),
            Swatch::Patch(SAMPLES[k], 0.45),
        );
    }
    key
}

/// The histograms' colours: before grey, after the entropy colour.
const SAMPLES: [RGBColor; 2] = [RGBColor(110, 110, 110), super::palette::ENTROPY];

/// The histograms' caption.
const HISTOGRAMS: &str = "entropy of the test rows";

/// The caption of the map before or after the permutation.
fn map_title(snap: &EntropyMap, permuted: bool) -> String {
    match permuted {
        true => format!("after permuting {} (colour = original class)", snap.feature),
        false => "test rows and the model's entropy".to_string(),
    }
}

fn entropy_map<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    snap: &EntropyMap,
    permuted: bool,
    band: u32,
) -> Result<(), PlotError> {
    let e = crate::drawn::<DB::ErrorType>;
    let (xs, ys) = (&snap.xs, &snap.ys);
    let (h0, h1) = range(snap.entropy.iter().copied());
    let title = map_title(snap, permuted);
    // One scale on both axes where the map's region is square.
    let (x, y) = ((xs[0], xs[xs.len() - 1]), (ys[0], ys[ys.len() - 1]));
    let square = ((x.1 - x.0) - (y.1 - y.0)).abs() < 1e-9 * (x.1 - x.0).abs().max(1.0);
    let frame = super::Frame::new(&title, band).square(square);
    let mut chart = chart_on(area, &frame, x, y).map_err(e)?;
    super::axes(&mut chart, &snap.axes.0, &snap.axes.1)
        .disable_mesh()
        .draw()
        .map_err(e)?;
    let (dx, dy) = ((xs[1] - xs[0]) / 2.0, (ys[1] - ys[0]) / 2.0);
    chart
        .draw_series(snap.entropy.indexed_iter().map(|((i, j), &h)| {
            let color = super::greys(h, h0, h1);
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
                ShapeStyle::from(&super::palette::class(Some(c))).filled(),
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
    snap: &EntropyMap,
    band: u32,
) -> Result<(), PlotError> {
    const BINS: usize = 20;
    let e = crate::drawn::<DB::ErrorType>;
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
    let frame = super::Frame::new(HISTOGRAMS, band);
    let mut chart = chart_on(area, &frame, (lo, hi), (0.0, top)).map_err(e)?;
    super::axes(&mut chart, "Entropy (nats)", "rows")
        .y_label_formatter(&super::count)
        .draw()
        .map_err(e)?;
    for (k, counts) in [&before, &after].into_iter().enumerate() {
        let color = SAMPLES[k];
        chart
            .draw_series(counts.iter().enumerate().map(|(b, &n)| {
                let x = lo + b as f64 * width;
                Rectangle::new([(x, 0.0), (x + width, n as f64)], color.mix(0.45).filled())
            }))
            .map_err(e)?;
    }
    Ok(())
}
