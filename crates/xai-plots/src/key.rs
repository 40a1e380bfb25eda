//! A figure's key, drawn outside its axes: one strip below the panels that names
//! every series once (one shared key per facet grid), so no legend covers data.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use xai_error::PlotError;

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

impl Swatch {
    /// The colour the swatch draws, if any (a note has none).
    fn colour(self) -> Option<RGBColor> {
        match self {
            Swatch::Line(c, _, _)
            | Swatch::Banded(c)
            | Swatch::Marker(c, _)
            | Swatch::Patch(c, _) => Some(c),
            Swatch::Note => None,
        }
    }
}

/// The entries of a figure's key, in order, each label once.
#[derive(Debug, Default)]
pub(crate) struct Key {
    entries: Vec<(String, Swatch)>,
}

/// Type size of the key's labels: 8 pt.
const TYPE: f64 = crate::print::TICK;
/// Height of one row of entries, in layout units.
const ROW: u32 = 18;
/// Width of a swatch, and the space between a swatch and its label, in layout units.
const SWATCH: (i32, i32) = (24, 6);
/// Space between two entries of a row, in layout units.
const GAP: i32 = 20;

impl Key {
    /// Adds an entry, unless one with the same label is there.
    pub(crate) fn add(&mut self, label: impl Into<String>, swatch: Swatch) {
        let label = label.into();
        if !self.entries.iter().any(|(l, _)| *l == label) {
            self.entries.push((label, swatch));
        }
    }

    /// The entries laid out in rows of at most `width` units (less a margin): each
    /// row's entries as (label, swatch, width). A note wider than a row is broken at
    /// spaces into notes that fit ([`crate::print::wrap`]).
    fn rows(&self, width: u32) -> Vec<Vec<(String, Swatch, i32)>> {
        let width = width as i32 - 2 * GAP;
        let measure = |s: &str| crate::glyphs::text_width(s, TYPE).ceil() as i32;
        let mut rows: Vec<Vec<(String, Swatch, i32)>> = Vec::new();
        let mut used = 0;
        // A row holding a piece of a broken note takes nothing else.
        let mut closed = false;
        let pieces = self.entries.iter().flat_map(|(label, swatch)| {
            match matches!(swatch, Swatch::Note) && measure(label) > width {
                true => crate::print::wrap(label, TYPE, f64::from(width))
                    .into_iter()
                    .map(|l| (l, Swatch::Note, true))
                    .collect(),
                false => vec![(label.clone(), *swatch, false)],
            }
        });
        for (label, swatch, broken) in pieces {
            let w = measure(&label)
                + match swatch {
                    Swatch::Note => 0,
                    _ => SWATCH.0 + SWATCH.1,
                };
            match rows.last_mut() {
                Some(row) if !broken && !closed && used + GAP + w <= width => {
                    used += GAP + w;
                    row.push((label, swatch, w));
                }
                _ => {
                    used = w;
                    rows.push(vec![(label, swatch, w)]);
                }
            }
            closed = broken;
        }
        rows
    }

    /// The height of the key's strip on a figure `width` units wide (0 when empty).
    pub(crate) fn height(&self, width: u32) -> u32 {
        match self.rows(width).len() as u32 {
            0 => 0,
            rows => ROW * rows + 12,
        }
    }

    /// Splits the key's strip off the bottom of `area`: (the panels' area, the
    /// strip); an empty key takes no room.
    pub(crate) fn split<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
    ) -> (DrawingArea<DB, Shift>, DrawingArea<DB, Shift>) {
        let (w, h) = area.dim_in_pixel();
        area.split_vertically(h.saturating_sub(self.height(w)))
    }

    /// Draws the entries into `strip`, each row centred.
    pub(crate) fn draw<DB: DrawingBackend>(
        &self,
        strip: &DrawingArea<DB, Shift>,
    ) -> Result<(), PlotError> {
        let e = crate::drawn::<DB::ErrorType>;
        let width = strip.dim_in_pixel().0 as i32;
        let style = ("sans-serif", TYPE)
            .into_text_style(strip)
            .pos(Pos::new(HPos::Left, VPos::Center));
        for (r, row) in self.rows(width as u32).iter().enumerate() {
            let used: i32 =
                row.iter().map(|(_, _, w)| w).sum::<i32>() + GAP * (row.len() as i32 - 1);
            let mut x = (width - used) / 2;
            let y = 4 + (r as i32) * ROW as i32 + ROW as i32 / 2;
            for (label, swatch, w) in row {
                draw_entry(strip, label, *swatch, (x, y), &style).map_err(e)?;
                x += *w + GAP;
            }
        }
        Ok(())
    }

    /// The key split in two: (its entries with a swatch, its notes).
    pub(crate) fn split_notes(&self) -> (Key, Key) {
        let (notes, entries): (Vec<_>, Vec<_>) = self
            .entries
            .iter()
            .cloned()
            .partition(|(_, s)| matches!(s, Swatch::Note));
        (Key { entries }, Key { entries: notes })
    }

    /// The size of the key drawn as a block ([`Key::draw_block`]): one entry a row,
    /// in layout units.
    pub(crate) fn block_size(&self) -> (i32, i32) {
        let widest = self
            .entries
            .iter()
            .map(|(l, _)| crate::glyphs::text_width(l, TYPE).ceil() as i32)
            .max()
            .unwrap_or(0);
        (
            widest + SWATCH.0 + SWATCH.1 + 2 * BLOCK_PAD,
            self.entries.len() as i32 * ROW as i32 + 2 * BLOCK_PAD,
        )
    }

    /// Draws the entries one a row, left-aligned, in a block whose bottom-right
    /// corner is at `(right, bottom)` of `area`, on a white ground at 0.85 opacity
    /// with a hairline frame (a key inside a plot: whatever it covers still shows).
    pub(crate) fn draw_block<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        (right, bottom): (i32, i32),
    ) -> Result<(), PlotError> {
        let e = crate::drawn::<DB::ErrorType>;
        let (w, h) = self.block_size();
        let (left, top) = (right - w, bottom - h);
        area.draw(&Rectangle::new(
            [(left, top), (right, bottom)],
            WHITE.mix(0.85).filled(),
        ))
        .map_err(e)?;
        area.draw(&Rectangle::new(
            [(left, top), (right, bottom)],
            RGBColor(190, 190, 190).stroke_width(1),
        ))
        .map_err(e)?;
        let style = ("sans-serif", TYPE)
            .into_text_style(area)
            .pos(Pos::new(HPos::Left, VPos::Center));
        for (r, (label, swatch)) in self.entries.iter().enumerate() {
            let y = top + BLOCK_PAD + r as i32 * ROW as i32 + ROW as i32 / 2;
            draw_entry(area, label, *swatch, (left + BLOCK_PAD, y), &style).map_err(e)?;
        }
        Ok(())
    }
}

/// Draws one entry with its left end at `(x, y)`: its swatch (none for a note),
/// then its label in `style`, recording the colour it is drawn in
/// ([`crate::palette::record`]).
fn draw_entry<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    label: &str,
    swatch: Swatch,
    (x, y): (i32, i32),
    style: &TextStyle<'_>,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    if let Some(c) = swatch.colour() {
        crate::palette::record(label, c);
    }
    let text_x = match swatch {
        Swatch::Note => x,
        swatch => {
            draw_swatch(area, swatch, (x, y))?;
            x + SWATCH.0 + SWATCH.1
        }
    };
    area.draw(&Text::new(label, (text_x, y), style.clone()))
}

/// The padding inside a key block, in layout units.
const BLOCK_PAD: i32 = 6;

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

    /// The strip's height in units when `key` is split off a `width` × 400 figure.
    fn strip_height(key: &Key, width: u32) -> u32 {
        crate::register_fonts();
        let mut svg = String::new();
        let root = SVGBackend::with_string(&mut svg, (width, 400)).into_drawing_area();
        let (_, strip) = key.split(&root);
        assert_eq!(strip.dim_in_pixel().1, key.height(width));
        strip.dim_in_pixel().1
    }

    #[test]
    fn a_note_wider_than_the_figure_is_broken_into_rows_that_fit() {
        let mut key = Key::default();
        let note = "shaded: a 95 % t-interval over 30 replicates of fresh data and a fresh fit each, \
                    the paper's one fit drawn as a line";
        key.add(note, Swatch::Note);
        let rows = key.rows(340);
        assert!(rows.len() >= 2, "{rows:?}");
        for row in &rows {
            assert!(row.iter().map(|(_, _, w)| *w).sum::<i32>() <= 340 - 2 * super::GAP);
        }
        let words: Vec<String> = rows.iter().flatten().map(|(l, _, _)| l.clone()).collect();
        assert_eq!(words.join(" "), note);
        assert_eq!(key.rows(4000).len(), 1);
        // An entry after a broken note starts a row of its own.
        key.add("boot", Swatch::Line(BLACK, 2, 0));
        let rows = key.rows(340);
        assert_eq!(rows.last().unwrap().len(), 1, "{rows:?}");
    }

    /// A key split for a block keeps its swatched entries in order and its notes
    /// apart; the block is one entry a row, as wide as its widest label.
    #[test]
    fn a_block_holds_the_entries_one_a_row_and_leaves_the_notes() {
        let mut key = Key::default();
        key.add("0% missing", Swatch::Line(BLACK, 3, 0));
        key.add("shaded: an interval", Swatch::Note);
        key.add("50% missing (AUC 0.725)", Swatch::Line(RED, 3, 0));
        let (entries, notes) = key.split_notes();
        let labels = |k: &Key| k.entries.iter().map(|(l, _)| l.clone()).collect::<Vec<_>>();
        assert_eq!(labels(&entries), ["0% missing", "50% missing (AUC 0.725)"]);
        assert_eq!(labels(&notes), ["shaded: an interval"]);
        let (w, h) = entries.block_size();
        let widest = crate::glyphs::text_width("50% missing (AUC 0.725)", super::TYPE);
        assert!(f64::from(w) > widest && f64::from(w) < widest + 60.0, "{w}");
        assert_eq!(h, 2 * ROW as i32 + 2 * super::BLOCK_PAD);
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
        // Six entries of ~250 units: one row at 2000 units, several at 600.
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
