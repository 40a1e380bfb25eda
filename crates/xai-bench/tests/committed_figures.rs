//! Every committed figure is what the code draws from the committed numbers: each
//! baseline (ci and paper scale) is read back and its figures drawn again, byte for
//! byte the committed files, so a change to a plot that is not re-drawn (`cargo
//! xtask bless --committed`) is caught. Figures drawn from a training sample or an
//! entropy map, which no baseline keeps, are drawn by the runs alone.

use std::path::{Path, PathBuf};

use xai_bench::catalog::{baseline_dir, experiment_ids, resolve};
use xai_bench::plan::Scale;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn every_committed_figure_is_drawn_from_the_committed_numbers() {
    let root = root();
    let scratch = std::env::temp_dir().join(format!("committed-figures-{}", std::process::id()));
    let (mut compared, mut stale) = (0, Vec::new());
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
            let left = xai_bench::figures::redraw(&exp, &out, &fresh).unwrap();
            for entry in std::fs::read_dir(&fresh).unwrap() {
                let path = entry.unwrap().path();
                let name = path.file_name().unwrap();
                let committed = std::fs::read(dir.join(name)).unwrap_or_default();
                if std::fs::read(&path).unwrap() != committed {
                    stale.push(dir.join(name).display().to_string());
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
}
