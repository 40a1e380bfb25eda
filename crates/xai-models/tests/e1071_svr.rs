//! `svr` against R's e1071 `svm(type = "eps-regression")` with its defaults (R 4.2.2,
//! e1071 1.7.13; `fixtures/e1071_svr.csv`, written by `scripts/peers/e1071_svr.R`,
//! which says how the 200 rows were drawn; 17 significant digits, so both read the
//! same doubles):
//!
//! against e1071 with `shrinking = FALSE`, libsvm's plain SMO as ours (same
//! working-set rule, same single-precision Q, tolerance 0.001): the same steps, so the
//! predictions at all 200 rows differ by the order of floating-point sums only: 1e-9.
//! (e1071's default, `shrinking = TRUE`, takes another path to the same tolerance: the
//! fixture holds its predictions too, which differ from the plain fit's by up to
//! 1e-3.)
//!
//! Planted: ε = 0.2 instead of 0.1 must break the first bound.

use ndarray::Array2;
use xai_core::{Model, Predictions};
use xai_models::svr::{Svr, SvrParams};

struct Rows {
    x: Array2<f64>,
    y: Vec<f64>,
    train: Vec<usize>,
    plain: Vec<f64>,
    shrinking: Vec<f64>,
}

fn rows() -> Rows {
    let path = format!(
        "{}/tests/fixtures/e1071_svr.csv",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let records: Vec<Vec<&str>> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    let num = |s: &str| -> f64 { s.parse().unwrap() };
    Rows {
        x: Array2::from_shape_fn((records.len(), 3), |(i, j)| num(records[i][2 + j])),
        y: records.iter().map(|r| num(r[5])).collect(),
        train: (0..records.len())
            .filter(|&i| records[i][1] == "train")
            .collect(),
        plain: records.iter().map(|r| num(r[6])).collect(),
        shrinking: records.iter().map(|r| num(r[7])).collect(),
    }
}

fn largest_gap(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(u, v)| (u - v).abs())
        .fold(0.0, f64::max)
}

/// Our predictions at every row of a fit on the training rows.
fn ours(r: &Rows, params: &SvrParams) -> Vec<f64> {
    let x = r.x.select(ndarray::Axis(0), &r.train);
    let y: Vec<f64> = r.train.iter().map(|&i| r.y[i]).collect();
    let model = Svr::fit(x.view(), &y, params);
    let Predictions::Point(p) = model.predict(r.x.view()).unwrap() else {
        panic!("a regression predicts points")
    };
    p.to_vec()
}

#[test]
fn svr_equals_e1071s_svm() {
    let r = rows();
    assert_eq!((r.x.nrows(), r.train.len()), (200, 150));
    let p = ours(&r, &SvrParams::default());
    let plain = largest_gap(&p, &r.plain);
    eprintln!("against e1071 without shrinking: {plain:e}");
    assert!(plain < 1e-9, "largest difference {plain}");
    eprintln!(
        "e1071's own plain and shrinking fits differ by {:e}",
        largest_gap(&r.plain, &r.shrinking)
    );
    let planted = ours(
        &r,
        &SvrParams {
            epsilon: 0.2,
            ..Default::default()
        },
    );
    assert!(
        largest_gap(&planted, &r.plain) > 1e-9,
        "ε = 0.2 went unseen"
    );
}
