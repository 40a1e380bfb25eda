//! The PDF beside every figure's SVG and PNG, for LaTeX: the figure's SVG converted
//! by svg2pdf (parsed by usvg, vector throughout), its type in the bundled DejaVu
//! Sans embedded as a subset, its page the figure's printed size (the SVG's inches
//! at usvg's 96 px an inch).
//!
//! svg2pdf writes each page's resource dictionaries (`/XObject`, `/ExtGState`, …)
//! from hash maps, so their entries come in a different order every run. Entries of
//! a PDF dictionary have no order, so [`from_svg`] sorts them; each entry keeps its
//! line and length, so no offset of the file moves, and the same SVG gives the same
//! bytes.

use std::sync::Arc;
use xai_error::PlotError;

use svg2pdf::usvg;

/// The PDF of the figure `svg` (as [`crate::print::physical_svg`] writes it), with
/// DejaVu Sans embedded.
pub fn from_svg(svg: &str) -> Result<Vec<u8>, PlotError> {
    let mut fonts = usvg::fontdb::Database::new();
    fonts.load_font_data(dejavu::sans::regular().to_vec());
    fonts.set_sans_serif_family("DejaVu Sans");
    let options = usvg::Options {
        fontdb: Arc::new(fonts),
        ..usvg::Options::default()
    };
    let tree = usvg::Tree::from_str(svg, &options).map_err(|e| PlotError::Pdf(e.to_string()))?;
    let page = svg2pdf::PageOptions { dpi: 96.0 };
    let pdf = svg2pdf::to_pdf(&tree, svg2pdf::ConversionOptions::default(), page)
        .map_err(|e| PlotError::Pdf(e.to_string()))?;
    Ok(sorted_dictionaries(&pdf))
}

/// `pdf` with the entries of every dictionary written one `/Name N 0 R` a line
/// (after a line ending in `<<`) in sorted order.
fn sorted_dictionaries(pdf: &[u8]) -> Vec<u8> {
    let entry = |line: &[u8]| {
        let text = line.trim_ascii_start();
        text.first() == Some(&b'/')
            && text.ends_with(b" 0 R")
            && text.iter().filter(|&&b| b == b' ').count() == 3
    };
    let mut out: Vec<&[u8]> = Vec::new();
    let mut block: Vec<&[u8]> = Vec::new();
    let mut open = false;
    for line in pdf.split(|&b| b == b'\n') {
        if open && entry(line) {
            block.push(line);
            continue;
        }
        block.sort_unstable();
        out.append(&mut block);
        out.push(line);
        open = line.trim_ascii_end().ends_with(b"<<");
    }
    block.sort_unstable();
    out.append(&mut block);
    out.join(&b'\n')
}

#[cfg(test)]
mod tests {
    use super::*;

    const SVG: &str = "<svg width=\"7in\" height=\"2in\" viewBox=\"0 0 700 200\" \
        xmlns=\"http://www.w3.org/2000/svg\"><rect x=\"10\" y=\"10\" width=\"50\" \
        height=\"50\" fill=\"#1f77b4\" opacity=\"0.5\"/><rect x=\"70\" y=\"10\" width=\"50\" \
        height=\"50\" fill=\"#ff7f0e\" opacity=\"0.3\"/><text x=\"100\" y=\"150\" \
        font-family=\"sans-serif\" font-size=\"11\">Entropy-PFI (nats)</text></svg>";

    #[test]
    fn a_figure_prints_at_its_size_with_its_font_embedded() {
        let pdf = from_svg(SVG).unwrap();
        let text = String::from_utf8_lossy(&pdf);
        assert!(text.starts_with("%PDF-"));
        // 7 in × 2 in = 504 × 144 pt.
        assert!(
            text.contains("/MediaBox [0 0 504 144]"),
            "{}",
            &text[..600.min(text.len())]
        );
        assert!(text.contains("DejaVuSans") && text.contains("/FontFile2"));
    }

    #[test]
    fn the_same_figure_gives_the_same_bytes() {
        // Every conversion draws new hash-map keys; sorting the dictionaries
        // makes the files equal.
        let runs: Vec<Vec<u8>> = (0..4).map(|_| from_svg(SVG).unwrap()).collect();
        assert!(runs.windows(2).all(|w| w[0] == w[1]));
    }

    #[test]
    fn dictionary_entries_are_sorted_and_nothing_else_moves() {
        let pdf = b"<<\n  /xo3 14 0 R\n  /xo1 12 0 R\n>>\nstream\n/b 2 0 R\n/a 1 0 R\n";
        let sorted = sorted_dictionaries(pdf);
        assert_eq!(
            sorted,
            b"<<\n  /xo1 12 0 R\n  /xo3 14 0 R\n>>\nstream\n/b 2 0 R\n/a 1 0 R\n".to_vec()
        );
        assert_eq!(sorted.len(), pdf.len());
    }
}
