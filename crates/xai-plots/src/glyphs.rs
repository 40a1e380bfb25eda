//! The bundled font's metrics (DejaVu Sans, as plotters' ab_glyph font lays text
//! out): where each glyph's pen stands and how wide a text is, for the layout
//! ([`crate::print`], the key, captions) and the PNG raster ([`crate::raster`]).

use std::sync::OnceLock;

use ab_glyph::{Font, FontRef, ScaleFont};

/// The bundled font.
pub(crate) fn font() -> &'static FontRef<'static> {
    static FONT: OnceLock<FontRef<'static>> = OnceLock::new();
    FONT.get_or_init(|| {
        FontRef::try_from_slice(dejavu::sans::regular()).expect("the bundled DejaVu Sans is valid")
    })
}

/// Each glyph of `text` at `size` px with its pen position x_i = Σ_{k<i} (advance_k
/// + kern_{k,k+1}), and the pen's position after the last.
pub(crate) fn pen_positions(text: &str, size: f64) -> (Vec<(ab_glyph::GlyphId, f32)>, f32) {
    let scaled = font().as_scaled(size as f32);
    let mut pen = 0f32;
    let mut prev = None;
    let mut glyphs = Vec::with_capacity(text.len());
    for c in text.chars() {
        let id = scaled.glyph_id(c);
        if let Some(p) = prev {
            pen += scaled.kern(p, id);
        }
        prev = Some(id);
        glyphs.push((id, pen));
        pen += scaled.h_advance(id);
    }
    (glyphs, pen)
}

/// The width of `text` at type size `size`: the pen's advance with kerning (as
/// plotters' ab_glyph font measures it).
pub fn text_width(text: &str, size: f64) -> f64 {
    f64::from(layout_box(text, size).0)
}

/// The width and height of plotters' layout box of `text` at `size` px: the pen's
/// advance with kerning, and size / 1.24 (as plotters' ab_glyph font lays it out).
pub(crate) fn layout_box(text: &str, size: f64) -> (i32, i32) {
    (pen_positions(text, size).1 as i32, (size / 1.24) as i32)
}
