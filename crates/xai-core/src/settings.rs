//! The settings schema of every registered kind, read off its settings type: each
//! registry enum and every type its kinds' settings hold derive
//! [`schemars::JsonSchema`] beside `serde::Deserialize`, so a setting's name, type,
//! default, range and doc comment are declared once, where the setting is. This
//! module turns those JSON Schemas into what people read: a list of kinds, each with
//! its settings ([`Kind`], [`Setting`]), and the named types the settings refer to
//! (statistics, perturbations, grids, ...). `docs/kinds.md`, `cargo xtask kinds` and
//! the front ends' `kinds()` all print these.

use schemars::generate::{SchemaGenerator, SchemaSettings};
use serde::Serialize;
use serde_json::{Map, Value};

/// One setting of a kind, as written in its YAML node.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Setting {
    /// The YAML key.
    pub name: String,
    /// Its type in words: `integer`, `number`, `list of Statistic`, `one of a, b`, or
    /// the name of a type listed beside the kinds.
    #[serde(rename = "type")]
    pub ty: String,
    /// Whether the node must give it.
    pub required: bool,
    /// The value used when it is left out (none for a required setting or one whose
    /// absence means "none").
    pub default: Option<Value>,
    /// The values it allows beyond its type, e.g. `≥ 1` or `(0, 1)`.
    pub range: Option<String>,
    /// Its doc comment.
    pub doc: String,
}

/// One kind of a registry (or one variant of a named type): its YAML name, its doc
/// comment and its settings.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Kind {
    /// The YAML name (`pfi`, `random_forest`, `squared_error`).
    pub name: String,
    /// The registry line's doc comment (else its settings type's).
    pub doc: String,
    /// Its settings, in the order of the settings type's fields; empty for a kind
    /// written as a bare name.
    pub settings: Vec<Setting>,
}

/// A named type the settings of kinds refer to, e.g. `Statistic` or
/// `PerturbationSpec`: either a choice among kinds or one set of settings.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NamedType {
    /// The Rust type's name, as [`Setting::ty`] writes it.
    pub name: String,
    /// Its doc comment.
    pub doc: String,
    /// Its variants (for a choice) or a single unnamed entry holding its settings.
    pub kinds: Vec<Kind>,
}

/// The schemas of several registries read with one generator, so that a type two
/// registries share has one name.
#[derive(Debug, Clone)]
pub struct Schemas {
    generator: SchemaGenerator,
    roots: Vec<Value>,
}

impl Default for Schemas {
    fn default() -> Self {
        Schemas {
            generator: SchemaSettings::draft2020_12()
                .for_deserialize()
                .into_generator(),
            roots: Vec::new(),
        }
    }
}

impl Schemas {
    /// Adds the registry enum `T` and returns its kinds.
    pub fn registry<T: schemars::JsonSchema>(&mut self) -> Vec<Kind> {
        let root = self.generator.subschema_for::<T>().to_value();
        self.roots.push(root.clone());
        let defs = self.generator.definitions().clone();
        kinds(&root, &defs)
    }

    /// Every named type the registries' settings refer to (not a registry enum nor a
    /// kind's own settings type), by name.
    pub fn named_types(&self) -> Vec<NamedType> {
        let defs = self.generator.definitions();
        let mut own: Vec<String> = Vec::new();
        for root in &self.roots {
            own.extend(ref_name(root));
            let root = resolve(root, defs);
            for variant in alternatives(root) {
                if let Some((_, inner)) = tagged(variant) {
                    own.extend(ref_name(inner));
                }
            }
        }
        defs.iter()
            .filter(|(name, _)| !own.contains(name))
            .map(|(name, schema)| NamedType {
                name: name.clone(),
                doc: description(schema),
                kinds: kinds(schema, defs),
            })
            .collect()
    }
}

/// The kinds of a choice (an enum's `oneOf`/`anyOf`, each alternative a bare name or
/// a one-key object `{name: settings}`), or one unnamed kind holding the settings of
/// a struct.
fn kinds(schema: &Value, defs: &Map<String, Value>) -> Vec<Kind> {
    let schema = resolve(schema, defs);
    let alts = alternatives(schema);
    if alts.is_empty() {
        if let Some(names) = schema.get("enum").and_then(Value::as_array) {
            return bare(names, &description(schema));
        }
        return vec![Kind {
            name: String::new(),
            doc: description(schema),
            settings: settings(schema, defs),
        }];
    }
    let mut out = Vec::new();
    for alt in alts {
        let doc = description(alt);
        if let Some(name) = alt.get("const").and_then(Value::as_str) {
            out.push(Kind {
                name: name.into(),
                doc,
                settings: Vec::new(),
            });
        } else if let Some(names) = alt.get("enum").and_then(Value::as_array) {
            out.extend(bare(names, &doc));
        } else if let Some((name, inner)) = tagged(alt) {
            let target = resolve(inner, defs);
            let doc = if doc.is_empty() {
                description(target)
            } else {
                doc
            };
            out.push(Kind {
                name: name.into(),
                doc,
                settings: settings_or_value(target, inner, defs),
            });
        } else {
            out.push(Kind {
                name: String::new(),
                doc,
                settings: settings_or_value(resolve(alt, defs), alt, defs),
            });
        }
    }
    out
}

/// Kinds written as bare names, sharing one doc.
fn bare(names: &[Value], doc: &str) -> Vec<Kind> {
    names
        .iter()
        .filter_map(Value::as_str)
        .map(|n| Kind {
            name: n.into(),
            doc: doc.into(),
            settings: Vec::new(),
        })
        .collect()
}

/// A struct's settings, or for a kind whose node is one value (a number, a list, a
/// pair), that value as a setting with an empty name.
fn settings_or_value(target: &Value, written: &Value, defs: &Map<String, Value>) -> Vec<Setting> {
    if target.get("properties").is_some() {
        return settings(target, defs);
    }
    if is_empty_object(target) {
        return Vec::new();
    }
    vec![Setting {
        name: String::new(),
        ty: type_name(written, defs),
        required: true,
        default: None,
        range: range(target),
        doc: String::new(),
    }]
}

/// `{}` or an object without properties: a kind with no settings.
fn is_empty_object(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
        && schema
            .get("additionalProperties")
            .is_none_or(|a| a == false)
}

/// The settings of an object schema, in its properties' order.
fn settings(schema: &Value, defs: &Map<String, Value>) -> Vec<Setting> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    props
        .iter()
        .map(|(name, p)| Setting {
            name: name.clone(),
            ty: type_name(p, defs),
            required: required.contains(&name.as_str()),
            default: p.get("default").cloned(),
            range: range(resolve(p, defs)),
            doc: description(p),
        })
        .collect()
}

/// A schema's type in words.
fn type_name(schema: &Value, defs: &Map<String, Value>) -> String {
    if let Some(name) = ref_name(schema) {
        // A newtype's schema is its inner type's: name that one.
        return match defs.get(&name) {
            Some(def) if ref_name(def).is_some() => type_name(def, defs),
            _ => name,
        };
    }
    if let Some(c) = schema.get("const") {
        return plain(c);
    }
    if let Some(names) = schema.get("enum").and_then(Value::as_array) {
        let names: Vec<String> = names.iter().map(plain).collect();
        return format!("one of {}", names.join(", "));
    }
    let alts = alternatives(schema);
    if !alts.is_empty() {
        let mut names: Vec<String> = alts
            .iter()
            .filter(|a| a.get("type").and_then(Value::as_str) != Some("null"))
            .map(|a| type_name(a, defs))
            .collect();
        names.dedup();
        return names.join(" or ");
    }
    match schema.get("type") {
        Some(Value::Array(types)) => {
            let one = |t: &Value| {
                let mut s = schema.clone();
                s["type"] = t.clone();
                type_name(&s, defs)
            };
            let names: Vec<String> = types.iter().filter(|t| *t != "null").map(one).collect();
            names.join(" or ")
        }
        Some(Value::String(t)) if t == "array" => {
            if let Some(items) = schema.get("prefixItems").and_then(Value::as_array) {
                let items: Vec<String> = items.iter().map(|i| type_name(i, defs)).collect();
                return format!("[{}]", items.join(", "));
            }
            match schema.get("items") {
                Some(items) => format!("list of {}", type_name(items, defs)),
                None => "list".into(),
            }
        }
        Some(Value::String(t)) if t == "object" => match schema.get("additionalProperties") {
            Some(v @ Value::Object(_)) => format!("map of string to {}", type_name(v, defs)),
            _ => "mapping".into(),
        },
        Some(Value::String(t)) => t.clone(),
        _ => "any".into(),
    }
}

/// The bounds of a number, in words: `≥ 1`, `≤ 1`, `(0, 1)`, `[0, 1]`.
fn range(schema: &Value) -> Option<String> {
    let bound = |key: &str| schema.get(key).and_then(Value::as_f64);
    let lower = bound("minimum")
        .map(|v| ('[', v))
        .or(bound("exclusiveMinimum").map(|v| ('(', v)));
    let upper = bound("maximum")
        .map(|v| (']', v))
        .or(bound("exclusiveMaximum").map(|v| (')', v)));
    match (lower, upper) {
        (Some((l, a)), Some((u, b))) => Some(format!("{l}{a}, {b}{u}")),
        (Some(('[', a)), None) => Some(format!("≥ {a}")),
        (Some((_, a)), None) => Some(format!("> {a}")),
        (None, Some((']', b))) => Some(format!("≤ {b}")),
        (None, Some((_, b))) => Some(format!("< {b}")),
        (None, None) => None,
    }
}

/// A value as YAML's flow style writes it: strings without quotes, `none` for null,
/// `[a, b]` and `{key: value}`.
pub fn plain(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => "none".into(),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(plain).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(map) => {
            let entries: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{k}: {}", plain(v)))
                .collect();
            format!("{{{}}}", entries.join(", "))
        }
        other => other.to_string(),
    }
}

/// The alternatives of a choice (`oneOf`, or `anyOf` of an untagged enum or an
/// `Option`).
fn alternatives(schema: &Value) -> Vec<&Value> {
    ["oneOf", "anyOf"]
        .iter()
        .find_map(|k| schema.get(*k).and_then(Value::as_array))
        .map(|a| a.iter().collect())
        .unwrap_or_default()
}

/// An externally tagged variant `{name: inner}`: its name and inner schema.
fn tagged(alt: &Value) -> Option<(&str, &Value)> {
    let props = alt.get("properties")?.as_object()?;
    let required = alt.get("required")?.as_array()?;
    if props.len() != 1 || required.len() != 1 {
        return None;
    }
    let (name, inner) = props.iter().next()?;
    (required[0] == *name).then_some((name.as_str(), inner))
}

/// The name a `$ref` points to.
fn ref_name(schema: &Value) -> Option<String> {
    let r = schema.get("$ref")?.as_str()?;
    Some(r.rsplit('/').next()?.to_string())
}

/// The schema a `$ref` points to, through a chain of them (a newtype's), or the
/// schema itself.
fn resolve<'a>(mut schema: &'a Value, defs: &'a Map<String, Value>) -> &'a Value {
    for _ in 0..defs.len() {
        match ref_name(schema).and_then(|n| defs.get(&n)) {
            Some(next) => schema = next,
            None => break,
        }
    }
    schema
}

/// A schema's doc comment, its lines joined as rustdoc would (paragraphs kept).
fn description(schema: &Value) -> String {
    schema
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// The settings that lack what a reader needs, each named `kind.setting`: one the
/// node may leave out whose default the schema does not show (its type does not
/// implement `Serialize`), or one without a doc comment.
pub fn undocumented(kinds: &[Kind]) -> Vec<String> {
    let mut out = Vec::new();
    for k in kinds {
        for s in k.settings.iter().filter(|s| !s.name.is_empty()) {
            if !s.required && s.default.is_none() {
                out.push(format!("{}.{}: no default shown", k.name, s.name));
            }
            if s.doc.is_empty() {
                out.push(format!("{}.{}: no doc comment", k.name, s.name));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    fn three() -> usize {
        3
    }

    /// A kind's settings.
    #[derive(Deserialize, schemars::JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Counted {
        /// How many.
        #[serde(default = "three")]
        #[schemars(range(min = 1))]
        count: usize,
        /// A share.
        #[schemars(range(min = 0.0, max = 1.0))]
        share: f64,
        /// Names, if any.
        #[serde(default)]
        names: Option<Vec<String>>,
        /// A mode whose default the schema cannot show.
        #[serde(default)]
        mode: Mode,
    }

    /// A mode without `Serialize`.
    #[derive(Default, Deserialize, schemars::JsonSchema)]
    #[serde(rename_all = "snake_case")]
    #[allow(dead_code)]
    enum Mode {
        /// The first.
        #[default]
        Fast,
        /// The second.
        Slow,
    }

    /// A registry of two kinds.
    #[derive(Deserialize, schemars::JsonSchema)]
    #[serde(rename_all = "snake_case")]
    #[allow(dead_code)]
    enum Registry {
        /// Counts things.
        Counted(Counted),
        /// Takes no settings.
        Bare,
    }

    #[test]
    fn a_registry_reads_as_its_kinds_with_their_settings() {
        let mut schemas = Schemas::default();
        let kinds = schemas.registry::<Registry>();
        let names: Vec<&str> = kinds.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(names, ["counted", "bare"]);
        assert_eq!(kinds[0].doc, "Counts things.");
        assert!(kinds[1].settings.is_empty());
        let by = |n: &str| kinds[0].settings.iter().find(|s| s.name == n).unwrap();
        let count = by("count");
        assert_eq!((count.ty.as_str(), count.required), ("integer", false));
        assert_eq!(count.default, Some(serde_json::json!(3)));
        assert_eq!(count.range.as_deref(), Some("≥ 1"));
        assert_eq!(count.doc, "How many.");
        let share = by("share");
        assert!(share.required);
        assert_eq!(share.range.as_deref(), Some("[0, 1]"));
        let names = by("names");
        assert_eq!(names.ty, "list of string");
        assert_eq!(names.default, Some(Value::Null));
        assert_eq!(by("mode").ty, "Mode");
        let types = schemas.named_types();
        assert_eq!(
            types.len(),
            1,
            "only Mode: the registry and its kind's settings are not"
        );
        let modes: Vec<&str> = types[0].kinds.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(modes, ["fast", "slow"]);
    }

    #[test]
    fn a_default_the_schema_cannot_show_is_reported() {
        let kinds = Schemas::default().registry::<Registry>();
        assert_eq!(undocumented(&kinds), ["counted.mode: no default shown"]);
    }

    #[test]
    fn defaults_read_as_yaml_flow_style() {
        let v = serde_json::json!({"permutation": {"repeats": 5}, "grid": [0.5, "a", null]});
        assert_eq!(
            plain(&v),
            "{grid: [0.5, a, none], permutation: {repeats: 5}}"
        );
    }

    #[test]
    fn bounds_read_as_words() {
        let r = |v: Value| range(&v);
        assert_eq!(
            r(serde_json::json!({"exclusiveMinimum": 0.0, "exclusiveMaximum": 1.0})).as_deref(),
            Some("(0, 1)")
        );
        assert_eq!(r(serde_json::json!({"maximum": 2})).as_deref(), Some("≤ 2"));
        assert_eq!(
            r(serde_json::json!({"exclusiveMinimum": 0})).as_deref(),
            Some("> 0")
        );
        assert_eq!(r(serde_json::json!({})), None);
    }
}
