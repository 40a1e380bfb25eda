//! `data fetch` against a loopback HTTP server serving fixture files.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};

use xai_data::datasets::FetchSpec;
use xai_data::datasets::Registry;
use xai_data::fetch::fetch;

/// Serves `dir` over HTTP on a free loopback port; returns the base URL.
fn serve(dir: PathBuf) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut request = String::new();
            reader.read_line(&mut request).unwrap();
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                line.clear();
            }
            let path = request
                .split_whitespace()
                .nth(1)
                .unwrap_or("/")
                .replace("%20", " ");
            let mut stream = stream;
            match std::fs::read(dir.join(path.trim_start_matches('/'))) {
                Ok(body) => {
                    let head = format!(
                        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                        body.len()
                    );
                    stream.write_all(head.as_bytes()).unwrap();
                    stream.write_all(&body).unwrap();
                }
                Err(_) => stream
                    .write_all(
                        b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                    )
                    .unwrap(),
            }
        }
    });
    base
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/data")
}

fn sha(bytes: &[u8]) -> String {
    use sha2::Digest;
    format!("{:x}", sha2::Sha256::digest(bytes))
}

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("xai-fetch-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The registry entry of the `tiny` fixture, its sha256 computed from the file.
fn tiny_entry() -> xai_data::datasets::DatasetEntry {
    let bytes = std::fs::read(fixtures().join("tiny/tiny.csv")).unwrap();
    let text = format!(
        "tiny:\n  file: tiny/tiny.csv\n  sha256: {}\n  rows: 5\n  target: {{ column: label, task: classification, classes: [\"no\", \"yes\"] }}\n  expected: {{ missing_cells: 2 }}\n  source: fixture\n  citation: none\n  license: none\n",
        sha(&bytes)
    );
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let k = NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let path = scratch(&format!("registry-{k}")).join("r.yaml");
    std::fs::write(&path, text).unwrap();
    Registry::load(&path).unwrap().get("tiny").unwrap().clone()
}

#[test]
fn fetches_a_verified_copy_from_a_mirror() {
    let base = serve(fixtures());
    let cache = scratch("mirror");
    let entry = tiny_entry();
    let path = fetch("tiny", &entry, &cache, Some(&base)).unwrap();
    assert_eq!(sha(&std::fs::read(&path).unwrap()), entry.sha256);
    // A verified copy in the cache is not downloaded again (a dead URL still works).
    assert_eq!(
        fetch("tiny", &entry, &cache, Some("http://127.0.0.1:9")).unwrap(),
        path
    );
}

#[test]
fn builds_the_verified_file_from_a_headerless_upstream() {
    let upstream = scratch("upstream");
    let text = std::fs::read_to_string(fixtures().join("tiny/tiny.csv")).unwrap();
    let (header, body) = text.split_once('\n').unwrap();
    std::fs::write(upstream.join("raw.csv"), body).unwrap();
    let base = serve(upstream);
    let mut entry = tiny_entry();
    entry.fetch = Some(FetchSpec {
        url: format!("{base}/raw.csv"),
        sha256: Some(sha(body.as_bytes())),
        header: Some(header.to_string()),
    });
    let path = fetch("tiny", &entry, &scratch("built"), None).unwrap();
    assert_eq!(std::fs::read_to_string(path).unwrap(), text);
}

#[test]
fn a_changed_upstream_names_both_checksums_and_writes_nothing() {
    let upstream = scratch("changed");
    std::fs::write(upstream.join("raw.csv"), "not,the,data\n").unwrap();
    let base = serve(upstream);
    let mut entry = tiny_entry();
    entry.fetch = Some(FetchSpec {
        url: format!("{base}/raw.csv"),
        sha256: Some("ab".repeat(32)),
        header: None,
    });
    let cache = scratch("changed-cache");
    let err = fetch("tiny", &entry, &cache, None).unwrap_err().to_string();
    assert!(
        err.contains(&"ab".repeat(32)) && err.contains(&sha(b"not,the,data\n")),
        "{err}"
    );
    assert!(!cache.join("tiny/tiny.csv").exists());
}

#[test]
fn a_missing_file_on_the_server_is_a_readable_error() {
    let base = serve(scratch("empty"));
    let err = fetch("tiny", &tiny_entry(), &scratch("404"), Some(&base))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("tiny/tiny.csv") && err.contains("404"),
        "{err}"
    );
}
