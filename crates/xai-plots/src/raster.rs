//! The PNG backend: plotters' bitmap backend with text drawn at the font's glyph
//! positions.
//!
//! plotters 0.3.7 draws raster text with ab_glyph (`style/font/ab_glyph.rs`) by
//! placing each glyph's pixel bounding box at the pen position truncated to a whole
//! pixel, dropping the glyph's left side bearing (`px_bounds().min.x`) and the pen's
//! fraction. Glyphs with a wide bearing ("l", "i") then sit too far left and round
//! ones too far right, which read as broken words ("del ayed", "Itchi ng"). The SVG
//! backend is unaffected: the viewer lays the text out. [`Raster`] delegates
//! everything to the bitmap backend except text, which it draws with the same font
//! (DejaVu Sans, the only one registered) and the same layout box as plotters, but
//! with each glyph outlined at its exact pen position x_i = Σ_{k<i} (advance_k +
//! kern_{k,k+1}), so its ink starts at x_i + left side bearing_i.
//!
//! A translucent one-pixel path (an ICE curve) is drawn by the bitmap backend one
//! segment at a time, so the pixel where two segments meet is blended twice and shows
//! as a darker dot at every grid point. [`Raster`] rasterises the whole path first and
//! blends each pixel once, with the largest coverage any segment gave it, as the SVG
//! viewer does with a polyline.

use std::collections::HashMap;
use std::path::Path;

use ab_glyph::{Font, point};

use crate::glyphs::{font, layout_box, pen_positions};
use plotters::prelude::*;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind,
};

/// Rasterises `text` at `size` px: calls `draw(x, y, coverage)` for every covered
/// pixel, x from the pen's start, y from the top of plotters' text box (the baseline
/// at size/2 − ascent offset exactly as plotters places it).
pub fn glyph_pixels(text: &str, size: f64, mut draw: impl FnMut(i32, i32, f32)) {
    for (id, pen) in pen_positions(text, size).0 {
        // The glyph is outlined at its exact pen position with the baseline at
        // size/2, so its pixel bounds are whole pixels (`px_bounds` floors them) and
        // every glyph keeps its own sub-pixel offset in its coverage. Truncating
        // size/2 + bounds.min.y towards zero instead rounded tall glyphs (negative
        // tops) down and short ones (a decimal point) up: "0·1" at odd sizes.
        let glyph = id.with_scale_and_position(size as f32, point(pen, (size as f32) / 2.0));
        if let Some(outline) = font().outline_glyph(glyph) {
            let bounds = outline.px_bounds();
            let y0 = bounds.min.y as i32;
            let x0 = bounds.min.x as i32;
            outline.draw(|x, y, coverage| draw(x0 + x as i32, y0 + y as i32, coverage));
        }
    }
}

/// A PNG file being drawn: [`BitMapBackend`] at `scale` pixels a layout unit, with
/// text placed by [`glyph_pixels`]. plotters sees the size in layout units; every
/// coordinate, stroke width, radius and type size is multiplied by the scale here,
/// so a figure laid out in units prints at [`crate::print::PX_PER_UNIT`] px a unit.
pub struct Raster<'a> {
    bitmap: BitMapBackend<'a>,
    scale: u32,
}

impl<'a> Raster<'a> {
    /// A PNG at `path` of `size` layout units, 300 dpi, written on `present`.
    pub fn new(path: &'a Path, size: (u32, u32)) -> Self {
        let scale = crate::print::PX_PER_UNIT;
        Self {
            bitmap: BitMapBackend::new(path, (size.0 * scale, size.1 * scale)),
            scale,
        }
    }

    /// Drawing into an RGB buffer of `size` layout units at `scale` px a unit (for
    /// tests; the buffer holds size × scale pixels).
    pub fn with_buffer(buffer: &'a mut [u8], size: (u32, u32), scale: u32) -> Self {
        Self {
            bitmap: BitMapBackend::with_buffer(buffer, (size.0 * scale, size.1 * scale)),
            scale,
        }
    }

    /// The pixel at the centre of layout unit `p`.
    fn centre(&self, p: BackendCoord) -> BackendCoord {
        let s = self.scale as i32;
        (p.0 * s + s / 2, p.1 * s + s / 2)
    }

    /// The pixel at the top-left corner of layout unit `p`.
    fn corner(&self, p: BackendCoord) -> BackendCoord {
        let s = self.scale as i32;
        (p.0 * s, p.1 * s)
    }
}

type Failure<'a> = DrawingErrorKind<<BitMapBackend<'a> as DrawingBackend>::ErrorType>;

impl<'a> DrawingBackend for Raster<'a> {
    type ErrorType = <BitMapBackend<'a> as DrawingBackend>::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        let (w, h) = self.bitmap.get_size();
        (w / self.scale, h / self.scale)
    }

    fn ensure_prepared(&mut self) -> Result<(), Failure<'a>> {
        self.bitmap.ensure_prepared()
    }

    fn present(&mut self) -> Result<(), Failure<'a>> {
        self.bitmap.present()
    }

    /// A layout unit: a square of scale × scale pixels.
    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Result<(), Failure<'a>> {
        let s = self.scale as i32;
        let (x, y) = self.corner(point);
        self.bitmap.draw_rect((x, y), (x + s, y + s), &color, true)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), Failure<'a>> {
        self.draw_path([from, to], style)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), Failure<'a>> {
        let points: Vec<BackendCoord> = path.into_iter().map(|p| self.centre(p)).collect();
        self.stroke(points, style.color(), style.stroke_width() * self.scale)
    }

    /// Filled: the units from the upper-left corner's up to the lower-right's
    /// (exclusive, as the bitmap backend fills), so neighbouring rectangles tile.
    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), Failure<'a>> {
        if fill {
            let (a, b) = (self.corner(upper_left), self.corner(bottom_right));
            return self.bitmap.draw_rect(a, b, style, true);
        }
        let (l, t) = upper_left;
        let (r, b) = bottom_right;
        let corners = [(l, t), (r, t), (r, b), (l, b), (l, t)].map(|p| self.centre(p));
        self.stroke(
            corners.to_vec(),
            style.color(),
            style.stroke_width() * self.scale,
        )
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), Failure<'a>> {
        let center = self.centre(center);
        let style = Width(style.color(), style.stroke_width() * self.scale);
        self.bitmap
            .draw_circle(center, radius * self.scale, &style, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), Failure<'a>> {
        let vert: Vec<BackendCoord> = vert.into_iter().map(|p| self.centre(p)).collect();
        self.bitmap.fill_polygon(vert, style)
    }

    fn blit_bitmap(
        &mut self,
        pos: BackendCoord,
        (w, h): (u32, u32),
        src: &[u8],
    ) -> Result<(), Failure<'a>> {
        // Each source pixel is a layout unit.
        for y in 0..h {
            for x in 0..w {
                let i = ((y * w + x) * 3) as usize;
                let color = BackendColor {
                    alpha: 1.0,
                    rgb: (src[i], src[i + 1], src[i + 2]),
                };
                self.draw_pixel((pos.0 + x as i32, pos.1 + y as i32), color)?;
            }
        }
        Ok(())
    }

    /// plotters' own text placement (layout box, anchor, rotation) at the scale,
    /// with the glyphs of [`glyph_pixels`]; the type's size is recorded
    /// ([`crate::print::record_type`]).
    fn draw_text<TStyle: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &TStyle,
        pos: BackendCoord,
    ) -> Result<(), Failure<'a>> {
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        crate::print::record_type(style.size());
        let size = style.size() * f64::from(self.scale);
        let (width, height) = layout_box(text, size);
        let dx = match style.anchor().h_pos {
            HPos::Left => 0,
            HPos::Right => -width,
            HPos::Center => -width / 2,
        };
        let dy = match style.anchor().v_pos {
            VPos::Top => 0,
            VPos::Center => -height / 2,
            VPos::Bottom => -height,
        };
        let transform = style.transform();
        let (w, h) = self.bitmap.get_size();
        let pos = self.corner(pos);
        let mut result = Ok(());
        glyph_pixels(text, size, |x, y, coverage| {
            if result.is_err() {
                return;
            }
            let (x, y) = transform.transform(x + dx, y + dy);
            let (x, y) = (pos.0 + x, pos.1 + y);
            if x >= 0 && x < w as i32 && y >= 0 && y < h as i32 {
                result = self.bitmap.draw_pixel((x, y), color.mix(coverage as f64));
            }
        });
        result
    }
}

impl<'a> Raster<'a> {
    /// Strokes the pixel points `points` in `color`, `width` px wide. A translucent
    /// path is blended once per pixel (see the module doc); an opaque one is drawn
    /// as the bitmap backend draws it.
    fn stroke(
        &mut self,
        points: Vec<BackendCoord>,
        color: BackendColor,
        width: u32,
    ) -> Result<(), Failure<'a>> {
        if color.alpha >= 1.0 {
            return self.bitmap.draw_path(points, &Width(color, width));
        }
        let mut coverage = Coverage {
            size: self.bitmap.get_size(),
            pixels: HashMap::new(),
        };
        let opaque = BackendColor {
            alpha: 1.0,
            rgb: color.rgb,
        };
        // Coverage never fails.
        let _ = coverage.draw_path(points, &Width(opaque, width));
        for (point, c) in coverage.pixels {
            self.bitmap.draw_pixel(
                point,
                BackendColor {
                    alpha: color.alpha * c,
                    rgb: color.rgb,
                },
            )?;
        }
        Ok(())
    }
}

/// A colour and a stroke width in pixels.
struct Width(BackendColor, u32);

impl BackendStyle for Width {
    fn color(&self) -> BackendColor {
        self.0
    }

    fn stroke_width(&self) -> u32 {
        self.1
    }
}

/// A backend that only records, per pixel, the largest coverage (alpha) drawn there.
struct Coverage {
    size: (u32, u32),
    pixels: HashMap<BackendCoord, f64>,
}

impl DrawingBackend for Coverage {
    type ErrorType = std::convert::Infallible;

    fn get_size(&self) -> (u32, u32) {
        self.size
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        Ok(())
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        Ok(())
    }

    fn draw_pixel(
        &mut self,
        point: BackendCoord,
        color: BackendColor,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let c = self.pixels.entry(point).or_insert(0.0);
        *c = c.max(color.alpha);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ab_glyph::ScaleFont;

    const SIZE: f64 = 60.0;
    const WIDTH: u32 = 1400;
    const HEIGHT: u32 = 90;

    /// The columns where each glyph's ink starts, from the font's metrics alone:
    /// pen position (advances and kerning) plus the left side bearing.
    fn expected_starts(text: &str) -> Vec<f32> {
        let scaled = font().as_scaled(SIZE as f32);
        let mut pen = 0f32;
        let mut prev = None;
        let mut out = Vec::new();
        for c in text.chars() {
            let id = font().glyph_id(c);
            if let Some(p) = prev {
                pen += scaled.kern(p, id);
            }
            prev = Some(id);
            out.push(pen + scaled.h_side_bearing(id));
            pen += scaled.h_advance(id);
        }
        out
    }

    /// Renders `text` left-anchored at x = 10 with `draw` and returns the first column
    /// of each run of inked columns.
    fn ink_starts(text: &str, draw: impl Fn(&mut [u8], &str)) -> Vec<i32> {
        let mut buffer = vec![255u8; (WIDTH * HEIGHT * 3) as usize];
        draw(&mut buffer, text);
        let inked = |x: u32| (0..HEIGHT).any(|y| buffer[((y * WIDTH + x) * 3) as usize] < 128);
        let mut starts = Vec::new();
        let mut was = false;
        for x in 0..WIDTH {
            let now = inked(x);
            if now && !was {
                starts.push(x as i32 - 10);
            }
            was = now;
        }
        starts
    }

    fn draw_with<DB: DrawingBackend>(backend: DB, text: &str) {
        let root = backend.into_drawing_area();
        root.fill(&WHITE).unwrap();
        super::super::register_fonts();
        root.draw(&Text::new(
            text,
            (10, 10),
            ("sans-serif", SIZE).into_font().color(&BLACK),
        ))
        .unwrap();
        root.present().unwrap();
    }

    /// Glyphs of these words are separated by a gap at 60 px, so every glyph is one
    /// run of inked columns.
    const WORDS: &str = "dlyhticlmwo";

    #[test]
    fn raster_glyphs_start_where_the_font_metrics_put_them() {
        let starts = ink_starts(WORDS, |buf, t| {
            draw_with(Raster::with_buffer(buf, (WIDTH, HEIGHT), 1), t)
        });
        let expected = expected_starts(WORDS);
        assert_eq!(starts.len(), expected.len(), "{starts:?} vs {expected:?}");
        for (i, (s, e)) in starts.iter().zip(&expected).enumerate() {
            assert!(
                (*s as f32 - e).abs() <= 1.0,
                "glyph {i} ({:?}) starts at {s}, the font puts it at {e:.1}",
                WORDS.chars().nth(i)
            );
        }
    }

    /// The lowest inked row of each run of inked columns of `text`, drawn as
    /// [`ink_starts`] draws it.
    fn ink_bottoms(text: &str, draw: impl Fn(&mut [u8], &str)) -> Vec<u32> {
        let mut buffer = vec![255u8; (WIDTH * HEIGHT * 3) as usize];
        draw(&mut buffer, text);
        let ink = |x: u32, y: u32| buffer[((y * WIDTH + x) * 3) as usize] < 128;
        let mut bottoms = Vec::new();
        let mut run: Option<u32> = None;
        for x in 0..WIDTH {
            let lowest = (0..HEIGHT).rev().find(|&y| ink(x, y));
            match (lowest, run) {
                (Some(y), Some(b)) => run = Some(b.max(y)),
                (Some(y), None) => run = Some(y),
                (None, Some(b)) => {
                    bottoms.push(b);
                    run = None;
                }
                (None, None) => {}
            }
        }
        bottoms
    }

    /// A decimal point sits on the baseline with the digits, not raised ("0·1"): its
    /// lowest inked row is that of the flat-based "1" at every size tick labels use
    /// (the round "0" may overshoot the baseline by a pixel, as the font draws it).
    /// Before glyphs were outlined at their exact baseline, the point stood a pixel
    /// higher at 11, 13 and 15 px.
    #[test]
    fn the_decimal_point_sits_on_the_digits_baseline() {
        for size in [10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 18.0, 20.0, 60.0] {
            let bottoms = ink_bottoms("0.1", |buf, t| {
                let root = Raster::with_buffer(buf, (WIDTH, HEIGHT), 1).into_drawing_area();
                root.fill(&WHITE).unwrap();
                super::super::register_fonts();
                root.draw(&Text::new(
                    t,
                    (10, 10),
                    ("sans-serif", size).into_font().color(&BLACK),
                ))
                .unwrap();
                root.present().unwrap();
            });
            assert_eq!(bottoms.len(), 3, "{size} px: {bottoms:?}");
            assert_eq!(
                bottoms[1], bottoms[2],
                "{size} px: 0, point, 1 end at {bottoms:?}"
            );
        }
    }

    /// The grey of pixel (x, y) after drawing a translucent black corner path
    /// (10, 10) → (50, 10) → (50, 50) with `backend`.
    fn corner_pixels<DB: DrawingBackend>(backend: DB) {
        let root = backend.into_drawing_area();
        root.fill(&WHITE).unwrap();
        root.draw(&PathElement::new(
            vec![(10, 10), (50, 10), (50, 50)],
            ShapeStyle::from(BLACK.mix(0.35)),
        ))
        .unwrap();
        root.present().unwrap();
    }

    /// The grey of pixel (x, y) of an RGB buffer `width` pixels wide.
    fn grey(buffer: &[u8], width: u32, (x, y): (u32, u32)) -> u8 {
        buffer[((y * width + x) * 3) as usize]
    }

    #[test]
    fn a_translucent_path_is_blended_once_where_its_segments_meet() {
        let mut buffer = vec![255u8; 60 * 60 * 3];
        corner_pixels(Raster::with_buffer(&mut buffer, (60, 60), 1));
        let (segment, corner) = (grey(&buffer, 60, (30, 10)), grey(&buffer, 60, (50, 10)));
        assert!(segment < 200, "the path was drawn ({segment})");
        assert_eq!(corner, segment, "the corner is as light as the segments");
    }

    #[test]
    fn at_three_pixels_a_unit_a_path_is_three_pixels_wide_and_blended_once() {
        let mut buffer = vec![255u8; 180 * 180 * 3];
        corner_pixels(Raster::with_buffer(&mut buffer, (60, 60), 3));
        // The segment (10, 10) → (50, 10) covers the pixel rows of unit row 10.
        let column = 30 * 3 + 1;
        let rows: Vec<u8> = (28..35).map(|y| grey(&buffer, 180, (column, y))).collect();
        // Three pixel rows, or four where plotters' polygon fill takes a boundary row.
        let inked = rows.iter().filter(|&&g| g < 230).count();
        assert!((3..=4).contains(&inked), "{rows:?}");
        assert_eq!(
            grey(&buffer, 180, (50 * 3 + 1, 10 * 3 + 1)),
            grey(&buffer, 180, (column, 31))
        );
    }

    #[test]
    fn at_three_pixels_a_unit_neighbouring_rectangles_tile_without_a_seam_or_overlap() {
        let mut buffer = vec![255u8; 180 * 180 * 3];
        let root = Raster::with_buffer(&mut buffer, (60, 60), 3).into_drawing_area();
        root.fill(&WHITE).unwrap();
        for (x0, x1) in [(10, 20), (20, 30)] {
            root.draw(&Rectangle::new(
                [(x0, 10), (x1, 20)],
                BLACK.mix(0.5).filled(),
            ))
            .unwrap();
        }
        root.present().unwrap();
        drop(root);
        let row: Vec<u8> = (27..=92).map(|x| grey(&buffer, 180, (x, 45))).collect();
        // Units 10..30 are 60 pixels from pixel 30, each blended once.
        assert!(row[..3].iter().all(|&g| g == 255), "{row:?}");
        // Blended once: 0.5 black on white, 127 or 128 as plotters rounds the blend.
        let inside = &row[3..63];
        assert!(inside.iter().all(|&g| g.abs_diff(127) <= 1), "{row:?}");
        assert!(row[63..].iter().all(|&g| g == 255), "{row:?}");
    }

    #[test]
    fn at_three_pixels_a_unit_text_is_three_times_as_wide() {
        let width = |scale: u32| {
            let mut buffer = vec![255u8; (400 * scale * 40 * scale * 3) as usize];
            let root = Raster::with_buffer(&mut buffer, (400, 40), scale).into_drawing_area();
            root.fill(&WHITE).unwrap();
            super::super::register_fonts();
            root.draw(&Text::new(
                "tick 0.25",
                (10, 10),
                ("sans-serif", 13.0).into_font(),
            ))
            .unwrap();
            root.present().unwrap();
            drop(root);
            let w = 400 * scale;
            let inked: Vec<u32> = (0..w)
                .filter(|&x| (0..40 * scale).any(|y| buffer[((y * w + x) * 3) as usize] < 128))
                .collect();
            inked.last().unwrap() - inked.first().unwrap()
        };
        // At 1 px a unit each end of the ink is quantised to a pixel (±1 px, so ±2
        // over the width), which is ±6 px at 3.
        let (one, three) = (width(1), width(3));
        assert!(
            three.abs_diff(3 * one) <= 6,
            "{one} px at 1, {three} px at 3"
        );
    }

    #[test]
    fn plotters_bitmap_blends_a_path_corner_twice() {
        // The defect Raster::draw_path exists for.
        let mut buffer = vec![255u8; 60 * 60 * 3];
        corner_pixels(BitMapBackend::with_buffer(&mut buffer, (60, 60)));
        assert!(grey(&buffer, 60, (50, 10)) + 20 < grey(&buffer, 60, (30, 10)));
    }

    #[test]
    fn plotters_bitmap_text_misplaces_glyphs_by_their_bearing() {
        // The defect Raster exists for; if plotters fixes it, Raster can go.
        let starts = ink_starts(WORDS, |buf, t| {
            draw_with(BitMapBackend::with_buffer(buf, (WIDTH, HEIGHT)), t)
        });
        let expected = expected_starts(WORDS);
        let worst = starts
            .iter()
            .zip(&expected)
            .map(|(s, e)| (*s as f32 - e).abs())
            .fold(0f32, f32::max);
        assert!(
            worst > 2.0,
            "plotters' raster text now matches the metrics ({worst} px)"
        );
    }
}
