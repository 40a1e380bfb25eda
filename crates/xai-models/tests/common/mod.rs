//! What the JSON-fixture reference tests share: reading a fixture and its arrays.

use ndarray::{Array1, Array2};
use serde_json::Value;
use xai_core::{Dataset, Target};

/// `tests/fixtures/<name>`, parsed.
pub fn fixture(name: &str) -> Value {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap()
}

/// A JSON array of numbers.
pub fn vector(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_f64().unwrap())
        .collect()
}

/// A JSON array of equally long arrays of numbers, as rows.
pub fn matrix(v: &Value) -> Array2<f64> {
    let rows: Vec<Vec<f64>> = v.as_array().unwrap().iter().map(vector).collect();
    Array2::from_shape_fn((rows.len(), rows[0].len()), |(i, j)| rows[i][j])
}

/// The fixture's training rows `x` with their binary labels `y`.
pub fn training(f: &Value) -> Dataset {
    let x = matrix(&f["x"]);
    let labels: Array1<usize> = f["y"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as usize)
        .collect();
    let names = (1..=x.ncols()).map(|j| format!("x{j}")).collect();
    let y = Target::Classes {
        labels,
        n_classes: 2,
    };
    Dataset::new(x, y, names).unwrap()
}
