//! Every CSV the repository commits parses with a strict reader: a header row, and
//! every record with exactly as many fields as the header (the `csv` crate's default,
//! `flexible(false)`), so a spreadsheet or pandas reads each table as written.

mod common;

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The records of `text` after its header, or the strict reader's error.
fn strict_records(text: &str) -> Result<usize, csv::Error> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(false)
        .from_reader(text.as_bytes());
    let width = reader.headers()?.len();
    let mut records = 0;
    for record in reader.records() {
        let record = record?;
        assert_eq!(record.len(), width);
        records += 1;
    }
    Ok(records)
}

#[test]
fn the_strict_reader_refuses_a_header_with_an_unquoted_comma() {
    // icefi2022-tableD's table once wrote the row key `ICE FI, printed Eq. 1`
    // unquoted: 6 fields under a 5-field header.
    let bad = "feature,column,ours\nAge,ICE FI, printed Eq. 1,0.09\n";
    assert!(strict_records(bad).is_err());
    let quoted = "feature,column,ours\nAge,\"ICE FI, printed Eq. 1\",0.09\n";
    assert_eq!(strict_records(quoted).unwrap(), 1);
}

#[test]
fn every_committed_csv_parses_strictly() {
    let mut read = 0;
    for path in common::files_under(&root().join("results")) {
        if path.extension().is_none_or(|e| e != "csv") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        if let Err(e) = strict_records(&text) {
            panic!("{} does not parse strictly: {e}", path.display());
        }
        read += 1;
    }
    assert!(read > 100, "read only {read} committed CSV files");
}
