//! Pixel maps of Shapley values (watson2023 Fig. 1a): for each value of a grid key (a
//! pair of digits) and each of the first kept test images, the image in grey and one
//! map per Shapley quantity, each pixel red where its φ raises the explained
//! uncertainty and blue where it lowers it, white at 0, on one colour scale per row
//! of maps: full colour at the row's 95th percentile of |φ| (larger values saturate,
//! so one extreme pixel does not wash out the rest).

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use xai_error::PlotError;

use super::labels::Names;
use super::print::Width;
use super::{Canvas, Figure, PlotKind, PlotPlan};
use xai_results::Invalid;
use xai_results::output::RunOutput;

plot_settings! {
    /// Pixel maps (watson2023 Fig. 1a): per value of `panels` and each of the first `rows`
    /// kept test rows (a `shapley` method's `keep`), the image in grey and a map of each
    /// quantity's φ per pixel, red above 0 and blue below; the features must be the pixels
    /// of a square image.
    pub struct PixelMaps {
        /// The Shapley quantities mapped (`aleatoric_entropy_shap`, ...).
        pub quantities: Vec<String>,
        /// Images per block (default 5).
        #[serde(default = "five")]
        pub rows: usize,
        /// Grid key whose values get a block each (none: one block).
        #[serde(default)]
        pub panels: Option<String>,
    }
}

fn five() -> usize {
    5
}

impl PlotKind for PixelMaps {
    fn replicate(&self) -> Option<usize> {
        None
    }

    fn uses_data(&self) -> bool {
        false
    }

    fn validate(&self, plan: &PlotPlan<'_>) -> Result<(), Invalid> {
        for q in &self.quantities {
            plan.kept(q, "`keep:` on a `shapley` method")?;
        }
        if self.rows == 0 {
            return Err(Invalid::new("rows", "draw at least one image"));
        }
        plan.panels(&self.panels)
    }

    fn width(&self, _fig: &Figure<'_>) -> Width {
        Width::Page
    }

    fn height(&self, fig: &Figure<'_>, width: u32) -> u32 {
        height(
            fig.out,
            &self.quantities,
            self.rows,
            self.panels.as_deref(),
            width,
        )
    }

    fn draw(&self, canvas: Canvas<'_, '_>, fig: &Figure<'_>) -> Result<(), PlotError> {
        let key = self.panels.as_deref();
        super::on_canvas!(canvas, root => draw(root, fig.out, &self.quantities, self.rows, key, fig.names))
    }
}

/// The least width of the row titles on the left, in layout units (they take what
/// the images leave: [`left`]).
const LEFT: u32 = 140;
/// The space between two images side by side.
const GAP: u32 = 10;

/// The space below row `line` of a block of `lines` rows, in layout units: room for
/// the test images' captions (13-unit type), a hairline between the maps of one
/// block, and a wider one where the next block starts, so that three pairs of two
/// maps with their notes take 9.4 in (watson2023 Fig. 1a; 10.4 in with 20-unit gaps).
fn gap_below(line: usize, lines: usize) -> u32 {
    match line {
        0 => 18,
        l if l + 1 == lines => 12,
        _ => 4,
    }
}

/// The side of one image pixel, in whole layout units: `columns` images fill the
/// figure's `width` beside the row titles.
fn pixel_side(width: u32, columns: usize, side: usize) -> u32 {
    let cell = width.saturating_sub(LEFT + 10) / columns.max(1) as u32;
    (cell.saturating_sub(GAP) / side.max(1) as u32).max(1)
}

/// Where the images start: the row titles take every unit the `columns` images of
/// `cell` units leave on a figure `width` wide, so the images reach its right edge.
fn left(width: u32, columns: usize, cell: u32) -> u32 {
    width
        .saturating_sub(10 + columns as u32 * (cell + GAP))
        .max(LEFT)
}

/// One kept image: its pixel values and, per quantity, its φ per pixel.
struct Image {
    pixels: Vec<f64>,
    class: Option<usize>,
    phi: Vec<Vec<f64>>,
}

/// Per value of `key` (one block, in run order), the first `rows` kept images of the
/// first replicate.
fn blocks(
    out: &RunOutput,
    quantities: &[String],
    rows: usize,
    key: Option<&str>,
) -> Vec<(String, Vec<Image>)> {
    let col = key.and_then(|k| out.keys.iter().position(|c| c == k));
    let d = out.feature_names.len();
    let mut list: Vec<(String, Vec<Image>)> = Vec::new();
    for c in out
        .curves
        .iter()
        .filter(|c| c.replicate == 0 && c.row < rows)
    {
        let Some(q) = quantities.iter().position(|q| *q == c.quantity) else {
            continue;
        };
        let Some(j) = out.feature_names.iter().position(|f| *f == c.feature) else {
            continue;
        };
        let value = col.map_or_else(String::new, |i| c.labels[i].clone());
        let b = match list.iter().position(|(v, _)| *v == value) {
            Some(b) => b,
            None => {
                list.push((value, Vec::new()));
                list.len() - 1
            }
        };
        let images = &mut list[b].1;
        while images.len() <= c.row {
            images.push(Image {
                pixels: vec![0.0; d],
                class: c.row_class,
                phi: vec![vec![0.0; d]; quantities.len()],
            });
        }
        // A kept value's x is its pixel's own grey level.
        let image = &mut images[c.row];
        image.pixels[j] = c.grid.first().copied().unwrap_or(f64::NAN);
        image.class = c.row_class;
        image.phi[q][j] = c.values.first().copied().unwrap_or(f64::NAN);
    }
    list
}

/// The figure's size: a column per image and the titles; a row per block and map.
/// The height on `width` units: every block's rows of images, and the notes.
fn height(
    out: &RunOutput,
    quantities: &[String],
    rows: usize,
    key: Option<&str>,
    width: u32,
) -> u32 {
    let b = blocks(out, quantities, rows, key);
    let columns = b.iter().map(|(_, i)| i.len()).max().unwrap_or(1);
    let side = (out.feature_names.len() as f64).sqrt().round() as usize;
    let cell = pixel_side(width, columns, side) * side as u32;
    let lines = quantities.len() + 1;
    let block: u32 = (0..lines).map(|l| cell + gap_below(l, lines)).sum();
    10 + b.len().max(1) as u32 * block + 10 + NOTE_LINE as u32 * notes(width).len() as u32
}

/// |φ| at full colour as text: three decimals from 0.01 up, else two significant
/// digits in scientific notation (an epistemic entropy's φ are ~1e-3).
fn magnitude(v: f64) -> String {
    if v >= 0.01 {
        format!("{v:.3}")
    } else {
        format!("{v:.1e}")
    }
}

/// The red–white–blue scale of a row's maps: φ from −`scale` (blue) through 0
/// (white) to +`scale` (red), 110 × 8 units from (x0, y0), labelled at its ends
/// and middle.
fn colour_bar<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    (x0, y0): (i32, i32),
    scale: f64,
) -> Result<(), PlotError> {
    let e = crate::drawn::<DB::ErrorType>;
    const WIDE: i32 = 110;
    for i in 0..WIDE {
        let t = (2.0 * i as f64 + 1.0) / WIDE as f64 - 1.0;
        let fade = (255.0 * (1.0 - t.abs())).round() as u8;
        let colour = if t >= 0.0 {
            RGBColor(255, fade, fade)
        } else {
            RGBColor(fade, fade, 255)
        };
        root.draw(&Rectangle::new(
            [(x0 + i, y0), (x0 + i + 1, y0 + 8)],
            colour.filled(),
        ))
        .map_err(e)?;
    }
    root.draw(&Rectangle::new(
        [(x0, y0), (x0 + WIDE, y0 + 8)],
        BLACK.mix(0.4),
    ))
    .map_err(e)?;
    let small = ("sans-serif", super::print::TICK).into_font().color(&BLACK);
    let label = magnitude(scale);
    for (text, x, anchor) in [
        (format!("−{label}"), x0, HPos::Left),
        ("0".to_string(), x0 + WIDE / 2, HPos::Center),
        (format!("+{label}"), x0 + WIDE, HPos::Right),
    ] {
        let style = small.clone().pos(Pos::new(anchor, VPos::Top));
        root.draw(&Text::new(text, (x, y0 + 10), style))
            .map_err(e)?;
    }
    Ok(())
}

/// Draws the maps (module doc); the images must be square (d = w²).
fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    out: &RunOutput,
    quantities: &[String],
    rows: usize,
    key: Option<&str>,
    names: &Names,
) -> Result<(), PlotError> {
    let e = crate::drawn::<DB::ErrorType>;
    let d = out.feature_names.len();
    let width = (d as f64).sqrt().round() as usize;
    if width * width != d || d == 0 {
        return Err(PlotError::Layout(format!(
            "pixel maps need square images; the rows have {d} features"
        )));
    }
    let list = blocks(out, quantities, rows, key);
    if list.is_empty() {
        return Err(PlotError::Missing(format!(
            "no kept values of {}: the shapley method needs `keep:`",
            quantities.join(", ")
        )));
    }
    let brightest = list
        .iter()
        .flat_map(|(_, images)| images.iter().flat_map(|i| i.pixels.iter().copied()))
        .fold(0.0f64, f64::max)
        .max(f64::MIN_POSITIVE);
    let text = ("sans-serif", super::print::LABEL)
        .into_font()
        .color(&BLACK);
    let small = ("sans-serif", super::print::TICK).into_font().color(&BLACK);
    let columns = list.iter().map(|(_, i)| i.len()).max().unwrap_or(1);
    let side = pixel_side(root.dim_in_pixel().0, columns, width) as i32;
    let cell = side * width as i32;
    let left = left(root.dim_in_pixel().0, columns, cell as u32);
    let square = |x0: i32, y0: i32, values: &[f64], colour: &dyn Fn(f64) -> RGBColor| {
        for (p, v) in values.iter().enumerate() {
            let (r, c) = ((p / width) as i32, (p % width) as i32);
            let (x, y) = (x0 + c * side, y0 + r * side);
            root.draw(&Rectangle::new(
                [(x, y), (x + side, y + side)],
                colour(*v).filled(),
            ))
            .map_err(e)?;
        }
        root.draw(&Rectangle::new(
            [
                (x0, y0),
                (x0 + side * width as i32, y0 + side * width as i32),
            ],
            BLACK.mix(0.4),
        ))
        .map_err(e)
    };
    // The digit's strokes over a map: the edges between its pixels at or above half
    // the image's brightest and those below (or the border).
    let outline = |x0: i32, y0: i32, pixels: &[f64]| {
        let top = pixels.iter().copied().fold(0.0f64, f64::max);
        let ink = |r: i32, c: i32| {
            (0..width as i32).contains(&r)
                && (0..width as i32).contains(&c)
                && pixels[r as usize * width + c as usize] >= 0.5 * top
        };
        for p in 0..pixels.len() {
            let (r, c) = ((p / width) as i32, (p % width) as i32);
            if !ink(r, c) {
                continue;
            }
            let (x, y) = (x0 + c * side, y0 + r * side);
            let edges = [
                (ink(r - 1, c), [(x, y), (x + side, y)]),
                (ink(r + 1, c), [(x, y + side), (x + side, y + side)]),
                (ink(r, c - 1), [(x, y), (x, y + side)]),
                (ink(r, c + 1), [(x + side, y), (x + side, y + side)]),
            ];
            for (_, edge) in edges.iter().filter(|(inside, _)| !inside) {
                root.draw(&PathElement::new(edge.to_vec(), BLACK.stroke_width(1)))
                    .map_err(e)?;
            }
        }
        Ok::<(), PlotError>(())
    };
    let mut y = 10i32;
    for (value, images) in &list {
        let label = key.map_or_else(String::new, |k| names.setting_value(k, value));
        let pair: Vec<&str> = label.split(" vs ").collect();
        let setting = match label.is_empty() {
            true => String::new(),
            false => format!("{label}: "),
        };
        for line in 0..=quantities.len() {
            let title = match line {
                0 => format!("{setting}test images"),
                q => names.setting_value("quantity", &quantities[q - 1]),
            };
            // The row's title, in lines that fit beside the images.
            let lines = super::print::wrap(&title, super::print::LABEL, f64::from(left - 16));
            for (k, l) in lines.iter().enumerate() {
                let at = y + cell / 2 - 22 - 13 * (lines.len() as i32 - 1) + 15 * k as i32;
                root.draw(&Text::new(l.as_str(), (10, at), text.clone()))
                    .map_err(e)?;
            }
            let scale = match line {
                0 => 0.0,
                q => {
                    let mut abs: Vec<f64> = images
                        .iter()
                        .flat_map(|i| i.phi[q - 1].iter().map(|v| v.abs()))
                        .collect();
                    abs.sort_by(f64::total_cmp);
                    let at = ((abs.len() as f64 - 1.0) * 0.95).round() as usize;
                    abs.get(at).copied().unwrap_or(0.0).max(f64::MIN_POSITIVE)
                }
            };
            for (k, image) in images.iter().enumerate() {
                let x = left as i32 + k as i32 * (cell + GAP as i32);
                if line == 0 {
                    square(x, y, &image.pixels, &|v| {
                        let g = (255.0 * (1.0 - v / brightest)).round() as u8;
                        RGBColor(g, g, g)
                    })?;
                    if let Some(class) = image.class {
                        // A pair "a vs b" names its classes a (0) and b (1).
                        let caption = match pair.as_slice() {
                            [a, b] => [*a, *b][class.min(1)].to_string(),
                            _ => names.class(class),
                        };
                        root.draw(&Text::new(caption, (x, y + cell + 3), small.clone()))
                            .map_err(e)?;
                    }
                } else {
                    square(x, y, &image.phi[line - 1], &|v| {
                        let t = (v.abs() / scale).min(1.0);
                        let fade = (255.0 * (1.0 - t)).round() as u8;
                        if v >= 0.0 {
                            RGBColor(255, fade, fade)
                        } else {
                            RGBColor(fade, fade, 255)
                        }
                    })?;
                    outline(x, y, &image.pixels)?;
                }
            }
            if line > 0 {
                colour_bar(root, (10, y + cell / 2 + 8), scale)?;
            }
            y += cell + gap_below(line, quantities.len() + 1) as i32;
        }
    }
    for (k, line) in notes(root.dim_in_pixel().0).iter().enumerate() {
        root.draw(&Text::new(
            line.as_str(),
            (10, y + NOTE_LINE * k as i32),
            small.clone(),
        ))
        .map_err(e)?;
    }
    Ok(())
}

/// The height of a line of the notes below the maps, in layout units.
const NOTE_LINE: i32 = 15;

/// The notes below the maps (what the colours and outlines are), in lines that fit
/// a figure `width` units wide at 8 pt.
fn notes(width: u32) -> Vec<String> {
    [
        "Red: the pixel raises the entropy; blue: it lowers it; black outline: the digit's strokes.",
        "Each row's colour scale is symmetric about 0 and saturates at its 95% quantile of |value| (its bar, left).",
    ]
    .iter()
    .flat_map(|n| super::print::wrap(n, super::print::TICK, f64::from(width.saturating_sub(20))))
    .collect()
}
