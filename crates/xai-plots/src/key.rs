//! A figure's key, drawn outside its axes: one strip below the panels that names
//! every series once (one shared key per facet grid), so no legend covers data.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// How an entry of the key is drawn.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Swatch {
    /// A line of this colour and width: solid (style 0), dashed (1) or dotted (2),
    /// as [`crate::coverage`] draws its line styles.
    Line(RGBColor, u32, usize),
    /// A curve over its band: a line in front of a pale patch of the same colour.
    Banded(RGBColor),
    /// A point marker of this colour: a circle, or a triangle (`true`).
    Marker(RGBColor, bool),
    /// A filled patch of this colour and opacity (a histogram's class).
    Patch(RGBColor, f64),
    /// No swatch: a note on the entries before it (what the bands are).
    Note,
}

/// The entries of a figure's key, in order, each label once.
#[derive(Debug, Default)]
pub(crate) struct Key {
    entries: Vec<(String, Swatch)>,
}

/// Type size of the key's labels, in pixels.
const TYPE: u32 = 13;
/// Height of one row of entries, in pixels.
const ROW: u32 = 20;
/// Width of a swatch, and the space between a swatch and its label, in pixels.
const SWATCH: (i32, i32) = (24, 6);
/// Space between two entries of a row, in pixels.
const GAP: i32 = 24;

impl Key {
    /// Adds an entry, unless one with the same label is there.
    pub(crate) fn add(&mut self, label: impl Into<String>, swatch: Swatch) {
        let label = label.into();
        if !self.entries.iter().any(|(l, _)| *l == label) {
            self.entries.push((label, swatch));
        }
    }

    /// The entries laid out in rows of at most `area`'s width, each entry's width.
    fn rows<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Vec<Vec<(usize, i32)>> {
        let width = area.dim_in_pixel().0 as i32 - 2 * GAP;
        let style = ("sans-serif", TYPE).into_text_style(area);
        let mut rows: Vec<Vec<(usize, i32)>> = Vec::new();
        let mut used = 0;
        for (i, (label, swatch)) in self.entries.iter().enumerate() {
            let text = area
                .estimate_text_size(label, &style)
                .map_or(7 * label.len() as i32, |(w, _)| w as i32);
            let w = text
                + match swatch {
                    Swatch::Note => 0,
                    _ => SWATCH.0 + SWATCH.1,
                };
            match rows.last_mut() {
                Some(row) if used + GAP + w <= width => {
                    used += GAP + w;
                    row.push((i, w));
                }
                _ => {
                    used = w;
                    rows.push(vec![(i, w)]);
                }
            }
        }
        rows
    }

    /// Splits the key's strip off the bottom of `area`: (the panels' area, the
    /// strip); an empty key takes no room.
    pub(crate) fn split<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
    ) -> (DrawingArea<DB, Shift>, DrawingArea<DB, Shift>) {
        let rows = self.rows(area).len() as u32;
        let height = if rows == 0 { 0 } else { ROW * rows + 12 };
        let (_, h) = area.dim_in_pixel();
        area.split_vertically(h.saturating_sub(height))
    }

    /// Draws the entries into `strip`, each row centred.
    pub(crate) fn draw<DB: DrawingBackend>(
        &self,
        strip: &DrawingArea<DB, Shift>,
    ) -> Result<(), String> {
        let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
        let width = strip.dim_in_pixel().0 as i32;
        let style = ("sans-serif", TYPE)
            .into_text_style(strip)
            .pos(Pos::new(HPos::Left, VPos::Center));
        for (r, row) in self.rows(strip).iter().enumerate() {
            let used: i32 = row.iter().map(|(_, w)| w).sum::<i32>() + GAP * (row.len() as i32 - 1);
            let mut x = (width - used) / 2;
            let y = 4 + (r as i32) * ROW as i32 + ROW as i32 / 2;
            for &(i, w) in row {
                let (label, swatch) = &self.entries[i];
                let text_x = match *swatch {
                    Swatch::Note => x,
                    swatch => {
                        draw_swatch(strip, swatch, (x, y)).map_err(e)?;
                        x + SWATCH.0 + SWATCH.1
                    }
                };
                strip
                    .draw(&Text::new(label.as_str(), (text_x, y), style.clone()))
                    .map_err(e)?;
                x += w + GAP;
            }
        }
        Ok(())
    }
}

/// Draws `swatch` with its left end at `(x, y)`, centred on `y`.
fn draw_swatch<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    swatch: Swatch,
    (x, y): (i32, i32),
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let w = SWATCH.0;
    match swatch {
        Swatch::Line(color, width, style) => {
            // Solid; three dashes; or four dots, as the line styles draw them.
            let pieces: &[(i32, i32)] = match style {
                0 => &[(0, 24)],
                1 => &[(0, 6), (9, 15), (18, 24)],
                _ => &[(0, 2), (7, 9), (14, 16), (21, 23)],
            };
            for &(a, b) in pieces {
                area.draw(&PathElement::new(
                    vec![(x + a, y), (x + b, y)],
                    color.stroke_width(width),
                ))?;
            }
        }
        Swatch::Banded(color) => {
            area.draw(&Rectangle::new(
                [(x, y - 7), (x + w, y + 7)],
                color.mix(0.15).filled(),
            ))?;
            for edge in [y - 7, y + 7] {
                area.draw(&PathElement::new(
                    vec![(x, edge), (x + w, edge)],
                    color.mix(0.6).stroke_width(1),
                ))?;
            }
            area.draw(&PathElement::new(
                vec![(x, y), (x + w, y)],
                color.stroke_width(2),
            ))?;
        }
        Swatch::Marker(color, true) => {
            area.draw(&TriangleMarker::new((x + w / 2, y), 6, color.filled()))?;
        }
        Swatch::Marker(color, false) => {
            area.draw(&Circle::new((x + w / 2, y), 5, color.filled()))?;
        }
        Swatch::Patch(color, opacity) => {
            area.draw(&Rectangle::new(
                [(x + 4, y - 6), (x + w - 4, y + 6)],
                color.mix(opacity).filled(),
            ))?;
        }
        Swatch::Note => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{Key, ROW, Swatch};
    use plotters::prelude::*;

    /// The strip's height in pixels when `key` is split off a `width` × 400 figure.
    fn strip_height(key: &Key, width: u32) -> u32 {
        crate::register_fonts();
        let mut svg = String::new();
        let root = SVGBackend::with_string(&mut svg, (width, 400)).into_drawing_area();
        let (_, strip) = key.split(&root);
        strip.dim_in_pixel().1
    }

    #[test]
    fn an_empty_key_takes_no_room_and_a_long_one_wraps() {
        assert_eq!(strip_height(&Key::default(), 600), 0);
        let mut key = Key::default();
        for k in 0..6 {
            key.add(
                format!("a label of some length, number {k}"),
                Swatch::Line(BLACK, 2, 0),
            );
        }
        // Six entries of ~250 px: one row at 2000 px, several at 600 px.
        assert_eq!(strip_height(&key, 2000), ROW + 12);
        assert!(strip_height(&key, 600) >= 3 * ROW + 12);
    }

    #[test]
    fn a_label_is_keyed_once() {
        let mut key = Key::default();
        key.add("class 1", Swatch::Patch(RED, 0.5));
        key.add("class 1", Swatch::Line(RED, 2, 0));
        assert_eq!(key.entries.len(), 1);
    }
}
