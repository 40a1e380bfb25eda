//! The print size of every figure: laid out in layout units of 1/100 in on a page
//! (7 in) or a column (3.4 in) wide, type set in points, written at 300 dpi.
//!
//! A figure is drawn in layout units (plotters' "pixels"): the SVG file carries them
//! as its view box with the physical size beside it, and the PNG raster
//! ([`crate::raster::Raster`]) multiplies every coordinate, width, radius and type
//! size by [`PX_PER_UNIT`], so the PNG is 300 dpi and prints at the same size. A
//! plotters type size is DejaVu Sans' ascent − descent (2384 of its 2048 units per
//! em), so type of `p` points has the size p / 0.72 · 2384 / 2048 units, and whole,
//! since plotters truncates the size of a chart's caption and tick labels to a whole
//! unit ([`pt`] rounds up): ticks and keys 13 units (8.0 pt), axis names and panel
//! captions 15 (9.3 pt), figure titles 16 (9.9 pt), as the matplotlib and ggplot2
//! publication styles set them (8, 9, 10 pt).

use std::cell::Cell;

use serde::Deserialize;

/// Layout units per inch.
pub const UNITS_PER_INCH: f64 = 100.0;
/// PNG pixels per layout unit: 300 dpi.
pub const PX_PER_UNIT: u32 = 3;
/// A type size's height (ascent − descent) per em, in DejaVu Sans' units (2384/2048).
pub const SIZE_PER_EM: f64 = 2384.0 / 2048.0;
/// The smallest type a figure may print, in points (ticks, keys and captions).
pub const SMALLEST_PT: f64 = 7.0;

/// Tick labels and key entries: 13 units, 8.0 pt.
pub const TICK: f64 = 13.0;
/// Axis names and panel captions: 15 units, 9.3 pt.
pub const LABEL: f64 = 15.0;
/// Figure titles: 16 units, 9.9 pt.
pub const TITLE: f64 = 16.0;

/// The smallest whole plotters type size (layout units) whose em is at least
/// `points`: ⌈points / 72 · 100 · 2384 / 2048⌉.
pub fn pt(points: f64) -> f64 {
    (points / 72.0 * UNITS_PER_INCH * SIZE_PER_EM - 1e-9).ceil()
}

/// The em in points of a plotters type size in layout units (the inverse of [`pt`]).
pub fn points(size: f64) -> f64 {
    size / SIZE_PER_EM / UNITS_PER_INCH * 72.0
}

/// The printed width of a figure: the page's text width or one column of a
/// two-column page.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Width {
    /// 7 in, a full page's text width.
    Page,
    /// 3.4 in, one column.
    Column,
}

impl Width {
    /// The width in layout units.
    pub fn units(self) -> u32 {
        match self {
            Width::Page => 700,
            Width::Column => 340,
        }
    }

    /// A figure of `panels` panels side by side: one panel fits a column, more take
    /// the page.
    pub fn for_panels(panels: usize) -> Self {
        match panels {
            0 | 1 => Width::Column,
            _ => Width::Page,
        }
    }
}

/// The height of a figure of `rows` × `cols` panels on `width` units whose panels
/// keep the shape `aspect` (height / width), plus `extra` units (its key, its
/// title): each panel is width / cols wide.
pub fn grid_height(width: u32, (rows, cols): (usize, usize), aspect: f64, extra: u32) -> u32 {
    let panel = f64::from(width) / cols.max(1) as f64;
    (panel * aspect * rows.max(1) as f64).round() as u32 + extra
}

/// The SVG text of a figure with its physical size: the root's width and height in
/// inches (its view box stays in layout units), and each `font-size` set so the
/// em is the one the PNG prints (plotters writes size / 1.24; the PNG's em is
/// size / [`SIZE_PER_EM`]).
pub fn physical_svg(svg: &str) -> String {
    let (root, body) = svg.split_at(svg.find('>').unwrap_or(0));
    let mut out = physical_root(root);
    out.reserve(body.len());
    let mut pieces = body.split("font-size=\"");
    out.push_str(pieces.next().unwrap_or_default());
    for piece in pieces {
        out.push_str("font-size=\"");
        let end = piece.find('"').unwrap_or(piece.len());
        match piece[..end].parse::<f64>() {
            Ok(size) => out.push_str(&format!("{:.3}", size * 1.24 / SIZE_PER_EM)),
            Err(_) => out.push_str(&piece[..end]),
        }
        out.push_str(&piece[end..]);
    }
    out
}

/// The `<svg …` root tag's `width="W" height="H"` (layout units) as inches.
fn physical_root(tag: &str) -> String {
    let mut tag = tag.to_string();
    for attr in ["width", "height"] {
        let key = format!(" {attr}=\"");
        let Some(i) = tag.find(&key) else { continue };
        let start = i + key.len();
        let Some(len) = tag[start..].find('"') else {
            continue;
        };
        if let Ok(units) = tag[start..start + len].parse::<f64>() {
            let inches = format!("{}in", units / UNITS_PER_INCH);
            tag.replace_range(start..start + len, &inches);
        }
    }
    tag
}

/// `text` broken at spaces into the fewest lines of at most `width` units at type
/// size `size`, balanced (the narrowest limit that still needs no more lines), so no
/// line is left with a lone word; a word wider than `width` stands on its own line.
/// A parenthesis that fits a line is not broken ("Î(X; Y | rest)" stays whole).
pub fn wrap(text: &str, size: f64, width: f64) -> Vec<String> {
    let measure = |s: &str| crate::glyphs::text_width(s, size);
    let words = unbroken(text, &|s: &str| measure(s) <= width);
    let greedy = |limit: f64| {
        let mut lines: Vec<String> = Vec::new();
        for word in &words {
            match lines.last_mut() {
                Some(line) if measure(&format!("{line} {word}")) <= limit => {
                    line.push(' ');
                    line.push_str(word);
                }
                _ => lines.push(word.to_string()),
            }
        }
        lines
    };
    let fewest = greedy(width).len();
    // The narrowest limit in [0, width] that keeps `fewest` lines, to a unit.
    let (mut lo, mut hi) = (0.0, width);
    while hi - lo > 1.0 {
        let mid = (lo + hi) / 2.0;
        match greedy(mid).len() <= fewest {
            true => hi = mid,
            false => lo = mid,
        }
    }
    greedy(hi)
}

/// The words of `text`, those inside one parenthesis joined into one where the
/// joined one `fits`.
fn unbroken(text: &str, fits: &dyn Fn(&str) -> bool) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    let mut group: Vec<&str> = Vec::new();
    let mut depth = 0i32;
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        group.push(word);
        depth += word.matches('(').count() as i32 - word.matches(')').count() as i32;
        if depth <= 0 {
            let joined = group.join(" ");
            match fits(&joined) {
                true => words.push(joined),
                false => words.extend(group.iter().map(|w| w.to_string())),
            }
            group.clear();
            depth = 0;
        }
    }
    words.extend(group.iter().map(|w| w.to_string()));
    words
}

thread_local! {
    /// The smallest type size drawn since [`smallest_type`] started recording, if
    /// recording.
    static SMALLEST: Cell<Option<f64>> = const { Cell::new(None) };
}

/// Records that type of `size` layout units was drawn (by the PNG raster).
pub(crate) fn record_type(size: f64) {
    SMALLEST.with(|s| {
        if let Some(least) = s.get() {
            s.set(Some(least.min(size)));
        }
    });
}

/// Runs `draw` on this thread and returns its result with the em, in points, of the
/// smallest type it drew into a PNG (`None` when it drew none).
pub fn smallest_type<R>(draw: impl FnOnce() -> R) -> (R, Option<f64>) {
    let before = SMALLEST.with(|s| s.replace(Some(f64::INFINITY)));
    let result = draw();
    let least = SMALLEST.with(|s| s.replace(before));
    let least = least.filter(|v| v.is_finite()).map(points);
    // An outer recording sees the inner one's type too.
    if let (Some(outer), Some(inner)) = (before, least) {
        SMALLEST.with(|s| s.set(Some(outer.min(inner / 72.0 * UNITS_PER_INCH * SIZE_PER_EM))));
    }
    (result, least)
}

/// How the axes of the figure being drawn size their names: each at its own fit,
/// recording the least fit (a measuring pass), or every one at one size.
#[derive(Debug, Clone, Copy)]
enum AxisNames {
    /// Each axis at its own fit size (outside a figure's drawing).
    Own,
    /// The measuring pass: the least fit size so far.
    Measuring(f64),
    /// The drawing pass: every axis at this size (or its own fit, if smaller).
    At(f64),
}

thread_local! {
    /// The axis names' sizing of the figure this thread draws.
    static AXIS_NAMES: Cell<AxisNames> = const { Cell::new(AxisNames::Own) };
}

/// The type size of axis names that fit their axes at `own` units: `own`, or, inside
/// [`one_axis_name_size`]'s drawing, the least size any panel's names fit at.
pub(crate) fn axis_name_size(own: f64) -> f64 {
    AXIS_NAMES.with(|a| match a.get() {
        AxisNames::Own => own,
        AxisNames::Measuring(least) => {
            a.set(AxisNames::Measuring(least.min(own)));
            own
        }
        AxisNames::At(size) => size.min(own),
    })
}

/// Puts the axis names' sizing back when dropped, a failed drawing too.
struct Restore(AxisNames);

impl Drop for Restore {
    fn drop(&mut self) {
        AXIS_NAMES.with(|a| a.set(self.0));
    }
}

/// Runs `measure` (a drawing of the figure, thrown away), recording the least size any
/// of its axes' names fit at, then `draw` with every axis named at that size, so
/// sibling panels' names are one size (a long name on a short axis sets it).
pub(crate) fn one_axis_name_size<R>(measure: impl FnOnce(), draw: impl FnOnce() -> R) -> R {
    let _restore = Restore(AXIS_NAMES.with(|a| a.replace(AxisNames::Measuring(LABEL))));
    measure();
    let least = match AXIS_NAMES.with(|a| a.get()) {
        AxisNames::Measuring(least) => least,
        _ => LABEL,
    };
    AXIS_NAMES.with(|a| a.set(AxisNames::At(least)));
    draw()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_axis_of_a_figure_names_itself_at_the_least_size_measured() {
        let sizes = one_axis_name_size(
            || {
                assert_eq!(axis_name_size(LABEL), LABEL);
                assert_eq!(axis_name_size(13.0), 13.0);
            },
            || [axis_name_size(LABEL), axis_name_size(12.0)],
        );
        assert_eq!(sizes, [13.0, 12.0]);
        // Outside a figure's drawing, each axis has its own size again.
        assert_eq!(axis_name_size(LABEL), LABEL);
    }

    #[test]
    fn a_page_is_seven_inches_and_type_has_its_points() {
        assert_eq!(Width::Page.units() * PX_PER_UNIT, 2100);
        assert_eq!(Width::Column.units() * PX_PER_UNIT, 1020);
        // The em of a tick label, from DejaVu's metrics: 8 pt (12.94 units, whole 13).
        assert!((points(TICK) - 8.04).abs() < 0.01, "{}", points(TICK));
        assert_eq!(pt(8.0), TICK);
        assert_eq!(pt(7.0), 12.0);
        assert!(points(pt(7.0)) >= 7.0 && points(pt(7.0) - 1.0) < 7.0);
    }

    #[test]
    fn the_svg_carries_inches_and_the_pngs_em() {
        let svg = "<svg width=\"700\" height=\"350\" viewBox=\"0 0 700 350\" xmlns=\"x\">\n\
                   <text font-size=\"10\">a</text><text font-size=\"x\">b</text></svg>";
        let out = physical_svg(svg);
        assert!(out.starts_with("<svg width=\"7in\" height=\"3.5in\" viewBox=\"0 0 700 350\""));
        // 10 / 1.24 was plotters' em; 10 / 1.164 is the PNG's.
        assert!(out.contains("font-size=\"10.652\""), "{out}");
        assert!(out.contains("font-size=\"x\""));
    }

    #[test]
    fn the_smallest_type_drawn_is_recorded_in_points() {
        let ((), none) = smallest_type(|| {});
        assert_eq!(none, None);
        let ((), least) = smallest_type(|| {
            record_type(15.0);
            let ((), inner) = smallest_type(|| record_type(11.0));
            assert!((inner.unwrap() - points(11.0)).abs() < 1e-9);
        });
        assert!((least.unwrap() - points(11.0)).abs() < 1e-9);
        assert!(least.unwrap() < SMALLEST_PT, "11 units print below 7 pt");
        // Outside a recording nothing is kept.
        record_type(1.0);
        let ((), after) = smallest_type(|| record_type(13.0));
        assert!((after.unwrap() - points(13.0)).abs() < 1e-9);
    }

    #[test]
    fn a_long_text_wraps_into_balanced_lines() {
        crate::register_fonts();
        let text = "Entropy-PDP and ICE of plas (wood2024 Fig. 12), one run of the data and fits (replicate 0)";
        let one = crate::glyphs::text_width(text, TITLE);
        let lines = wrap(text, TITLE, one * 0.9);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert_eq!(lines.join(" "), text);
        // Balanced: neither line under a third of the other (no lone "0)").
        let w: Vec<f64> = lines
            .iter()
            .map(|l| crate::glyphs::text_width(l, TITLE))
            .collect();
        assert!(w[0].min(w[1]) > w[0].max(w[1]) / 3.0, "{lines:?}");
        assert_eq!(wrap(text, TITLE, one + 1.0), vec![text.to_string()]);
    }

    #[test]
    fn a_parenthesis_that_fits_a_line_is_not_broken() {
        crate::register_fonts();
        let text = "95% quantile of Î(X; Y | rest) under the null (nats)";
        let formula = crate::glyphs::text_width("of Î(X; Y | rest)", LABEL);
        let lines = wrap(text, LABEL, formula + 20.0);
        assert!(lines.len() > 1, "{lines:?}");
        assert!(
            lines.iter().any(|l| l.contains("Î(X; Y | rest)")),
            "{lines:?}"
        );
        assert_eq!(lines.join(" "), text);
        // Narrower than the parenthesis: broken inside it after all.
        let lines = wrap(text, LABEL, formula / 2.0);
        assert!(
            !lines.iter().any(|l| l.contains("Î(X; Y | rest)")),
            "{lines:?}"
        );
        assert_eq!(lines.join(" "), text);
    }

    #[test]
    fn panels_keep_their_shape() {
        assert_eq!(grid_height(700, (1, 2), 0.75, 40), 263 + 40);
        assert_eq!(Width::for_panels(1), Width::Column);
        assert_eq!(Width::for_panels(3), Width::Page);
    }
}
