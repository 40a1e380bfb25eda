//! The error of a setting found before any work (a method's, a check's, a plot's):
//! the YAML field at fault, to point at its line, and what to write instead.

/// A setting (of a method, a check, a plot) that cannot work, found before any work.
#[derive(Debug, Clone, PartialEq)]
pub struct Invalid {
    /// The YAML field at fault (used to point at its line).
    pub field: String,
    /// What is wrong and what to write instead.
    pub message: String,
}

impl Invalid {
    /// An error about `field`.
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            message: message.into(),
        }
    }
}

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
