//! Every quantity name is a typed [`Quantity`]: each one a method of any experiment
//! emits, and each one a committed result holds, parses and writes back unchanged,
//! so labels, checks and tables read the names the methods build.

use xai_bench::catalog::{experiment_ids, resolve};
use xai_bench::results::quantity::Quantity;
use xai_bench::table::read_csv;
use xai_bench::workspace::workspace_root;

/// Whether `name` parses and writes back unchanged.
fn round_trips(name: &str) -> bool {
    Quantity::parse(name).is_some_and(|q| q.to_string() == name)
}

#[test]
fn every_quantity_a_method_emits_round_trips() {
    let root = workspace_root();
    let mut seen = 0;
    for id in experiment_ids(&root).unwrap() {
        let exp = resolve(&root, &id).unwrap();
        for m in &exp.spec.methods {
            let m = m.method();
            for q in m.quantities().iter().chain(&m.curve_quantities()) {
                assert!(round_trips(q), "{id}: `{q}` does not round-trip");
                seen += 1;
            }
        }
    }
    assert!(seen > 100, "only {seen} quantities");
}

#[test]
fn every_committed_quantity_round_trips() {
    let root = workspace_root();
    let mut seen = std::collections::BTreeSet::new();
    for id in experiment_ids(&root).unwrap() {
        for dir in [
            root.join("results").join(&id),
            root.join("results").join(&id).join("paper"),
        ] {
            let path = dir.join("summary.csv");
            if !path.is_file() {
                continue;
            }
            let table = read_csv(&path).unwrap();
            let Some(col) = table.header.iter().position(|h| h == "quantity") else {
                continue;
            };
            for row in &table.rows {
                seen.insert(row[col].clone());
            }
        }
    }
    assert!(seen.len() > 50, "only {} quantities", seen.len());
    let broken: Vec<&String> = seen.iter().filter(|q| !round_trips(q)).collect();
    assert!(broken.is_empty(), "do not round-trip: {broken:?}");
}

#[test]
fn a_pfi_of_a_renamed_statistic_is_caught() {
    assert!(round_trips("loss_pfi"));
    assert!(!round_trips("lost_pfi"));
    assert!(!round_trips(""));
}
