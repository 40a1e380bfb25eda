//! Checks of settings against the data, found before any work; their error is
//! [`Invalid`] (in the engine's error crate, where it becomes a
//! `BenchError::Setting`).

pub use xai_error::Invalid;

/// Checks feature names against `names`, the data's, when known.
pub fn known_feature_names<'a>(
    names: Option<&[String]>,
    wanted: impl IntoIterator<Item = &'a String>,
) -> Result<(), Invalid> {
    let Some(names) = names else {
        return Ok(());
    };
    for f in wanted {
        if !names.contains(f) {
            return Err(Invalid::new(
                f.clone(),
                format!("unknown feature `{f}`; the data has {}", names.join(", ")),
            ));
        }
    }
    Ok(())
}
