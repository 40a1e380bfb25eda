//! Downloading registered datasets into `data/cache/`, verified.
//!
//! A dataset with a `fetch:` block is downloaded from its pinned upstream URL; the
//! download's sha256 is checked, the declared header line is prepended where the
//! verified copy added one, and the result must have the registry's sha256. With a
//! base URL (a mirror laid out like `../shared/data`), the verified file is fetched
//! from `<base>/<file>` instead. Files are written atomically (`.part`, then renamed).

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::datasets::DatasetEntry;
use xai_error::{BenchError, Result, io_err};

fn sha256(bytes: &[u8]) -> String {
    format!("{:x}", Sha256::digest(bytes))
}

fn download(url: &str) -> Result<Vec<u8>> {
    let fail = |e: ureq::Error| BenchError::Download {
        url: url.to_string(),
        message: e.to_string(),
    };
    let mut response = ureq::get(url).call().map_err(fail)?;
    response
        .body_mut()
        .with_config()
        .limit(200 << 20)
        .read_to_vec()
        .map_err(fail)
}

/// Downloads dataset `name` into `cache/<file>` unless a verified copy is already
/// there; returns the file's path.
pub fn fetch(
    name: &str,
    entry: &DatasetEntry,
    cache: &Path,
    base_url: Option<&str>,
) -> Result<PathBuf> {
    let target = cache.join(&entry.file);
    if std::fs::read(&target).is_ok_and(|b| sha256(&b) == entry.sha256) {
        return Ok(target);
    }
    let (url, raw_sha, header) = match (base_url, &entry.fetch) {
        (Some(base), _) => (
            format!("{}/{}", base.trim_end_matches('/'), entry.file),
            entry.sha256.clone(),
            None,
        ),
        (None, Some(f)) => (
            f.url.clone(),
            f.sha256.clone().unwrap_or_else(|| entry.sha256.clone()),
            f.header.clone(),
        ),
        (None, None) => {
            return Err(BenchError::Dataset {
                name: name.to_string(),
                message: format!(
                    "no pinned download yields the verified file ({}); copy the verified \
                     file to {} or pass --base-url of a mirror laid out like ../shared/data",
                    entry.source,
                    target.display()
                ),
            });
        }
    };
    let bytes = download(&url)?;
    let found = sha256(&bytes);
    if found != raw_sha {
        return Err(BenchError::Dataset {
            name: name.to_string(),
            message: format!(
                "{url} has sha256 {found}, expected {raw_sha}; the source changed, nothing was written"
            ),
        });
    }
    let bytes = match header {
        Some(h) => [h.as_bytes(), b"\n", &bytes].concat(),
        None => bytes,
    };
    let found = sha256(&bytes);
    if found != entry.sha256 {
        return Err(BenchError::Dataset {
            name: name.to_string(),
            message: format!(
                "the file built from {url} has sha256 {found}, but the registry expects {}; nothing was written",
                entry.sha256
            ),
        });
    }
    let dir = target.parent().unwrap_or(cache);
    std::fs::create_dir_all(dir).map_err(io_err(dir))?;
    let part = target.with_extension("part");
    std::fs::write(&part, &bytes).map_err(io_err(&part))?;
    std::fs::rename(&part, &target).map_err(io_err(&target))?;
    Ok(target)
}
