//! The kinds an experiment file (or a front end's call) can name, with their settings:
//! each registry's schema ([`xai_core::settings`]), read once here for
//! `cargo xtask kinds`, `docs/kinds.md` and the front ends' `kinds()`.

use serde::Serialize;
use xai_core::settings::{Kind, NamedType, Schemas, Setting, plain};

use crate::error::{BenchError, Result};

/// One registry of kinds: where they are written and each kind with its settings.
#[derive(Debug, Clone, Serialize)]
pub struct Registry {
    /// The YAML key the kinds are written under (`dgp`, `models`, `methods`, a
    /// check's `assert`, `plots`).
    pub section: &'static str,
    /// What the kinds are, in words (a heading of `docs/kinds.md`).
    pub title: &'static str,
    /// Every kind's YAML name, in registry order (also those behind a disabled
    /// feature).
    pub names: &'static [&'static str],
    /// Every kind with its settings, in registry order.
    pub kinds: Vec<Kind>,
}

/// Every registry and the named types their settings use (statistics,
/// perturbations, grids, ...).
#[derive(Debug, Clone, Serialize)]
pub struct Vocabulary {
    /// `dgp`, `models`, `methods`, `assert`, `plots`.
    pub registries: Vec<Registry>,
    /// The types the kinds' settings refer to by name, sorted by name.
    pub types: Vec<NamedType>,
}

/// Every kind an experiment file can name, by where it is written: `dgp:`,
/// `models:`, `methods:`, a check's `assert:` and `plots:`, each read off its
/// registry's schema, so it cannot miss a kind or a setting.
pub fn vocabulary() -> Vocabulary {
    let mut schemas = Schemas::default();
    let registry = |section, title, names, kinds| Registry {
        section,
        title,
        names,
        kinds,
    };
    let registries = vec![
        registry(
            "dgp",
            "Data generating processes (`data: dgp:`)",
            xai_synth::DgpSpec::NAMES,
            schemas.registry::<xai_synth::DgpSpec>(),
        ),
        registry(
            "models",
            "Learners (`models:`)",
            xai_models::LearnerSpec::NAMES,
            schemas.registry::<xai_models::LearnerSpec>(),
        ),
        registry(
            "methods",
            "Methods (`methods:`)",
            crate::methods::MethodSpec::NAMES,
            schemas.registry::<crate::methods::MethodSpec>(),
        ),
        registry(
            "assert",
            "Assertions (a check's `assert:`)",
            crate::checks::Assertion::NAMES,
            schemas.registry::<crate::checks::Assertion>(),
        ),
        registry(
            "plots",
            "Plots (`plots:`)",
            crate::plots::PlotSpec::NAMES,
            schemas.registry::<crate::plots::PlotSpec>(),
        ),
    ];
    Vocabulary {
        types: schemas.named_types(),
        registries,
    }
}

/// A kind with where it is written: a registry's section (`methods`), or for a
/// variant of a named type, the type's name (`PerturbationSpec`).
#[derive(Debug, Clone, Serialize)]
pub struct Entry<'a> {
    /// The registry's section or the named type.
    pub section: &'a str,
    /// The kind (a struct type's settings are one kind named after the type).
    #[serde(flatten)]
    pub kind: Kind,
}

impl Vocabulary {
    /// Every kind of every registry, then every variant of every named type (a struct
    /// type as one kind named after it); only those under `section` when given.
    pub fn entries(&self, section: Option<&str>) -> Vec<Entry<'_>> {
        let wanted = |s: &str| section.is_none_or(|w| w == s);
        let registries = self.registries.iter().filter(|r| wanted(r.section));
        let types = self.types.iter().filter(|t| wanted(&t.name));
        registries
            .flat_map(|r| r.kinds.iter().map(|k| (r.section, k.clone())))
            .chain(types.flat_map(|t| {
                t.kinds.iter().map(|k| {
                    let mut k = k.clone();
                    if k.name.is_empty() {
                        k.name = t.name.clone();
                    }
                    (t.name.as_str(), k)
                })
            }))
            .map(|(section, kind)| Entry { section, kind })
            .collect()
    }

    /// The kind named `name` (under `section` when given); a [`BenchError::Setting`]
    /// naming `kind` lists the kinds when there is none, and asks for the section
    /// when two registries share the name (`permutation_map`).
    pub fn find(&self, name: &str, section: Option<&str>) -> Result<Entry<'_>> {
        let entries = self.entries(section);
        let found: Vec<&Entry<'_>> = entries.iter().filter(|e| e.kind.name == name).collect();
        let refuse = |message: String| BenchError::Setting {
            field: "kind".into(),
            message,
        };
        match found.as_slice() {
            [] => {
                let mut names: Vec<&str> = entries.iter().map(|e| e.kind.name.as_str()).collect();
                names.sort_unstable();
                names.dedup();
                let under = section.map_or(String::new(), |s| format!(" under `{s}`"));
                Err(refuse(format!(
                    "no kind `{name}`{under}; the kinds: {}",
                    names.join(", ")
                )))
            }
            [one, rest @ ..] if rest.iter().all(|e| e.section == one.section) => Ok((*one).clone()),
            several => {
                let mut sections: Vec<&str> = several.iter().map(|e| e.section).collect();
                sections.dedup();
                Err(refuse(format!(
                    "`{name}` is a kind of several registries ({}): name its section",
                    sections.join(", ")
                )))
            }
        }
    }
}

/// Reads a kind's node (a `dgp:`, `models:` or `methods:` entry, as JSON) into its
/// registry type `T`, as every front end and the experiment files do: each number
/// first checked against the range its setting's schema declares
/// ([`xai_core::settings::check_ranges`], the one place a range is enforced), then
/// the node deserialized. A refusal is a [`BenchError::Setting`] naming `field` and
/// the setting's path (`methods[0].perturbation.permutation.repeats`); an unknown
/// kind's lists `names`, the registry's kinds.
pub fn read<T>(node: &serde_json::Value, field: &str, names: &[&str]) -> Result<T>
where
    T: serde::de::DeserializeOwned + schemars::JsonSchema,
{
    out_of_range::<T>(node, field)?;
    serde_json::from_value(node.clone()).map_err(|e| {
        let message = e.to_string();
        let kinds = match message.contains("unknown variant") {
            true => format!(" (the kinds: {})", names.join(", ")),
            false => String::new(),
        };
        BenchError::Setting {
            field: field.to_string(),
            message: format!("{message}{kinds}"),
        }
    })
}

/// The range check of [`read`] alone, for a node read with others (an experiment's
/// variant): a number outside its declared range as a [`BenchError::Setting`] naming
/// `field` and the setting's path.
pub fn out_of_range<T: schemars::JsonSchema>(node: &serde_json::Value, field: &str) -> Result<()> {
    xai_core::settings::check_ranges::<T>(node).map_err(|e| BenchError::Setting {
        field: match e.path.as_str() {
            "" => field.to_string(),
            path => format!("{field}.{path}"),
        },
        message: format!("{} is outside its range {}", e.value, e.range),
    })
}

/// The first paragraph of a doc comment on one line, its rustdoc links (`` [`x`] ``)
/// written as plain code (`` `x` ``).
pub fn one_line(doc: &str) -> String {
    let paragraph: Vec<&str> = doc
        .lines()
        .map(str::trim)
        .take_while(|l| !l.is_empty())
        .collect();
    paragraph.join(" ").replace("[`", "`").replace("`]", "`")
}

/// The names of `names` that `doc` never writes as code (`` `name` ``).
pub fn undocumented<'a>(doc: &str, names: &[&'a str]) -> Vec<&'a str> {
    names
        .iter()
        .copied()
        .filter(|n| !doc.contains(&format!("`{n}`")))
        .collect()
}

/// `docs/kinds.md`: every registry's kinds with their settings, then the types the
/// settings name (`cargo xtask kinds --markdown` prints it; a test fails when the
/// file is stale).
pub fn kinds_markdown() -> String {
    let v = vocabulary();
    let types: Vec<&str> = v.types.iter().map(|t| t.name.as_str()).collect();
    let mut out = String::from(
        "# Kinds\n\nEvery kind an experiment file can name, with its settings. Generated by \
         `cargo xtask kinds --markdown > docs/kinds.md` from the settings types (their doc \
         comments, defaults and ranges); a test fails when this file is stale. A setting \
         whose default is *required* must be written; the others may be left out. A type \
         in the form `Name` is listed under [Types the settings use](#types-the-settings-use).\n",
    );
    for r in &v.registries {
        out.push_str(&format!("\n## {}\n", r.title));
        for k in &r.kinds {
            out.push_str(&format!("\n### `{}`\n\n{}\n", k.name, one_line(&k.doc)));
            settings_table(&mut out, &k.settings, &types);
        }
    }
    out.push_str("\n## Types the settings use\n");
    for t in &v.types {
        out.push_str(&format!("\n### `{}`\n\n{}\n", t.name, one_line(&t.doc)));
        type_body(&mut out, t, &types);
    }
    out
}

/// A named type's variants: those written as a bare name in one table, each with
/// settings under its own heading; a struct's settings as one table.
fn type_body(out: &mut String, t: &NamedType, types: &[&str]) {
    let (bare, with): (Vec<&Kind>, Vec<&Kind>) =
        t.kinds.iter().partition(|k| k.settings.is_empty());
    let bare: Vec<&Kind> = bare.into_iter().filter(|k| !k.name.is_empty()).collect();
    if !bare.is_empty() {
        out.push_str("\n| value | what it is |\n|---|---|\n");
        for k in bare {
            out.push_str(&format!("| `{}` | {} |\n", k.name, cell(&one_line(&k.doc))));
        }
    }
    for k in with {
        if k.name.is_empty() {
            settings_table(out, &k.settings, types);
        } else {
            out.push_str(&format!("\n#### `{}`\n\n{}\n", k.name, one_line(&k.doc)));
            settings_table(out, &k.settings, types);
        }
    }
}

/// The table of a kind's settings (nothing for a kind without any).
fn settings_table(out: &mut String, settings: &[Setting], types: &[&str]) {
    if settings.is_empty() {
        return;
    }
    out.push_str("\n| setting | type | default | what it is |\n|---|---|---|---|\n");
    for s in settings {
        let name = if s.name.is_empty() {
            "(the value)".to_string()
        } else {
            format!("`{}`", s.name)
        };
        out.push_str(&format!(
            "| {name} | {} | {} | {} |\n",
            cell(&linked(&type_and_range(s), types)),
            cell(&default_text(s)),
            cell(&one_line(&s.doc)),
        ));
    }
}

/// A setting's type with its range, e.g. `integer ≥ 1`.
pub fn type_and_range(s: &Setting) -> String {
    match &s.range {
        Some(r) if s.ty.starts_with("list") => format!("{} ({r})", s.ty),
        Some(r) => format!("{} {r}", s.ty),
        None => s.ty.clone(),
    }
}

/// A setting's default as the docs write it: *required*, or the value.
pub fn default_text(s: &Setting) -> String {
    match (&s.default, s.required) {
        (_, true) => "*required*".into(),
        (Some(v), false) => format!("`{}`", plain(v)),
        (None, false) => "none".into(),
    }
}

/// A type's words with each named type linked to its section.
fn linked(ty: &str, types: &[&str]) -> String {
    let mut out = String::new();
    for (i, word) in ty.split(' ').enumerate() {
        if i > 0 {
            out.push(' ');
        }
        match types.contains(&word) {
            true => out.push_str(&format!("[`{word}`](#{})", word.to_lowercase())),
            false => out.push_str(word),
        }
    }
    out
}

/// Text safe inside a Markdown table cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}
