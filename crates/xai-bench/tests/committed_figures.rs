//! Every committed figure is what the code draws from the committed numbers: each
//! baseline (ci and paper scale) is read back and its figures drawn again, byte for
//! byte the committed files, so a change to a plot that is not re-drawn (`cargo
//! xtask bless --committed`) is caught. Figures drawn from a training sample or an
//! entropy map, which no baseline keeps, are drawn by the runs alone.
//!
//! While they are drawn, the type of every text is measured and every key entry's
//! and row of bars' colour recorded: no text prints below 7 pt at the figure's
//! printed width, no PNG is wider than the 7-in page at 300 dpi, and no label (a
//! model, statistic, class or setting) is drawn in two colours across the figures.

use std::path::{Path, PathBuf};

use xai_bench::catalog::{baseline_dir, experiment_ids, resolve};
use xai_bench::plan::Scale;
use xai_bench::plots::{palette, print};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn every_committed_figure_is_drawn_from_the_committed_numbers() {
    let root = root();
    let scratch = std::env::temp_dir().join(format!("committed-figures-{}", std::process::id()));
    let (mut compared, mut stale) = (0, Vec::new());
    let (mut small, mut wide, mut colours, mut measured) = (Vec::new(), Vec::new(), Vec::new(), 0);
    for id in experiment_ids(&root).unwrap() {
        let exp = resolve(&root, &id).unwrap();
        for scale in [Scale::Ci, Scale::Paper] {
            let dir = baseline_dir(&root, &id, scale);
            if !dir.join("manifest.json").is_file() {
                continue;
            }
            let out = xai_bench::committed::read(&exp, scale, &dir).unwrap();
            let fresh = scratch.join(&id).join(scale.name());
            std::fs::create_dir_all(&fresh).unwrap();
            let ((left, least), drawn) = palette::colours_drawn(|| {
                print::smallest_type(|| xai_bench::figures::redraw(&exp, &out, &fresh).unwrap())
            });
            let at = format!("{id} ({})", scale.name());
            colours.extend(drawn.into_iter().map(|(l, c)| (l, c, at.clone())));
            if let Some(points) = least {
                measured += 1;
                if points < print::SMALLEST_PT - 1e-9 {
                    small.push(format!("{at}: {points:.2} pt"));
                }
            }
            for entry in std::fs::read_dir(&fresh).unwrap() {
                let path = entry.unwrap().path();
                let name = path.file_name().unwrap();
                let committed = std::fs::read(dir.join(name)).unwrap_or_default();
                if std::fs::read(&path).unwrap() != committed {
                    stale.push(dir.join(name).display().to_string());
                }
                if path.extension().is_some_and(|e| e == "png") {
                    let width = png_width(&path);
                    if width > print::Width::Page.units() * print::PX_PER_UNIT {
                        wide.push(format!("{}: {width} px", path.display()));
                    }
                }
                compared += 1;
            }
            // What could not be drawn again is drawn from data the baseline lacks.
            for u in left {
                assert!(
                    dir.join(format!("{}.png", u.name)).is_file(),
                    "{id}: {}",
                    u.name
                );
            }
        }
    }
    std::fs::remove_dir_all(&scratch).ok();
    assert!(
        stale.is_empty(),
        "committed figures that the code draws otherwise now (run `cargo xtask bless \
         --committed [--scale paper] <id>`): {stale:?}"
    );
    assert!(compared > 100, "compared only {compared} figure files");
    assert!(
        measured > 30,
        "measured the type of only {measured} baselines"
    );
    assert!(
        small.is_empty(),
        "type below {} pt: {small:?}",
        print::SMALLEST_PT
    );
    assert!(
        wide.is_empty(),
        "PNGs wider than the 7-in page at 300 dpi: {wide:?}"
    );
    let conflicts = palette::conflicts(&colours);
    assert!(
        conflicts.is_empty(),
        "labels drawn in two colours: {conflicts:#?}"
    );
}

/// The width in pixels of a PNG file (its IHDR chunk).
fn png_width(path: &Path) -> u32 {
    let bytes = std::fs::read(path).unwrap();
    u32::from_be_bytes([bytes[16], bytes[17], bytes[18], bytes[19]])
}
