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

/// The bounds of a number, in words: `≥ 1`, `≤ 1`, `(0, 1)`, `[0, 1]`; of a list, its
/// length and its items' bounds: `≥ 1 items, each ≥ 1`, `4 items, each [0, 1)`.
fn range(schema: &Value) -> Option<String> {
    if let Some(items) = schema.get("items") {
        let count = |key: &str| schema.get(key).and_then(Value::as_u64);
        let length = match (count("minItems"), count("maxItems")) {
            (Some(a), Some(b)) if a == b => Some(format!("{a} items")),
            (Some(a), _) if a > 0 => Some(format!("≥ {a} items")),
            _ => None,
        };
        let each = number_range(items).map(|r| format!("each {r}"));
        let parts: Vec<String> = length.into_iter().chain(each).collect();
        return (!parts.is_empty()).then(|| parts.join(", "));
    }
    number_range(schema)
}

/// [`range`] of a number.
fn number_range(schema: &Value) -> Option<String> {
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

/// A number in a node outside the range its setting's schema declares (the
/// `#[schemars(range(..))]` or `exclusiveMinimum`/`exclusiveMaximum` of the field).
#[derive(Debug, Clone, PartialEq)]
pub struct OutOfRange {
    /// Where the number is, in the node: `n_trees`, `perturbation.permutation.repeats`,
    /// `grid[1]`.
    pub path: String,
    /// The number given (NaN for one that is not finite: JSON writes NaN and ±∞ as
    /// `null`).
    pub value: f64,
    /// The range it must lie in, in words (`≥ 1`, `(0, 1)`).
    pub range: String,
}

impl std::fmt::Display for OutOfRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.value.is_finite() {
            true => write!(f, "{} is {}", self.path, self.value)?,
            false => write!(f, "{} is not a finite number", self.path)?,
        }
        write!(f, ", outside its range {}", self.range)
    }
}

/// Checks every number of `node` (a kind's YAML node, as JSON) against the range the
/// schema of `T` declares for it, before the node is read into `T`: the one place a
/// setting's range is enforced, so the range the docs print is the range applied.
/// Types, names and required settings are left to the deserializer, whose messages
/// say what was expected; a node that fits none of a choice's alternatives passes
/// here and is refused there.
pub fn check_ranges<T: schemars::JsonSchema>(node: &Value) -> Result<(), OutOfRange> {
    let root = SchemaSettings::draft2020_12()
        .for_deserialize()
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    let mut defs = root
        .get("$defs")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    // A recursive type refers to itself as `#` (an `uncertainty` learner's stages).
    defs.insert("#".into(), root.clone());
    within(&root, &defs, node, "")
}

/// [`check_ranges`] of settings built in code, serialized first: the check a kind's
/// own `validate` runs, so a value built in Rust is refused as its node would be.
pub fn check_value<T: Serialize + schemars::JsonSchema>(value: &T) -> Result<(), OutOfRange> {
    match serde_json::to_value(value) {
        Ok(node) => check_ranges::<T>(&node),
        // Settings serialize to JSON (string keys); one that does not has no node.
        Err(_) => Ok(()),
    }
}

/// [`check_ranges`] of `node` at `path` under `schema`.
fn within(
    schema: &Value,
    defs: &Map<String, Value>,
    node: &Value,
    path: &str,
) -> Result<(), OutOfRange> {
    let schema = resolve(schema, defs);
    for part in schema
        .get("allOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        within(part, defs, node, path)?;
    }
    let alts = alternatives(schema);
    if !alts.is_empty() {
        // The alternatives the node can be: any one that takes it is enough.
        let mut first = None;
        for alt in alts
            .into_iter()
            .filter(|a| fits(resolve(a, defs), node, defs))
        {
            match within(alt, defs, node, path) {
                Ok(()) => return Ok(()),
                Err(e) => {
                    first.get_or_insert(e);
                }
            }
        }
        return first.map_or(Ok(()), Err);
    }
    match node {
        Value::Number(n) => match (n.as_f64(), number_range(schema)) {
            (Some(v), Some(words)) if !in_range(schema, v) => Err(OutOfRange {
                path: path.to_string(),
                value: v,
                range: words,
            }),
            _ => Ok(()),
        },
        // A number that is not finite reads as `null` (JSON has none): refused where
        // the field declares a range and takes no `null`.
        Value::Null if only_numbers(schema) => match number_range(schema) {
            Some(words) => Err(OutOfRange {
                path: path.to_string(),
                value: f64::NAN,
                range: words,
            }),
            None => Ok(()),
        },
        Value::Object(map) => {
            let props = schema.get("properties").and_then(Value::as_object);
            let rest = schema.get("additionalProperties").filter(|a| a.is_object());
            for (key, v) in map {
                if let Some(sub) = props.and_then(|p| p.get(key)).or(rest) {
                    let at = match path {
                        "" => key.clone(),
                        _ => format!("{path}.{key}"),
                    };
                    within(sub, defs, v, &at)?;
                }
            }
            Ok(())
        }
        Value::Array(items) => {
            let few = schema.get("minItems").and_then(Value::as_u64);
            if let Some(min) = few.filter(|m| (items.len() as u64) < *m) {
                return Err(OutOfRange {
                    path: format!("{path} (its length)"),
                    value: items.len() as f64,
                    range: format!("≥ {min}"),
                });
            }
            let prefix = schema.get("prefixItems").and_then(Value::as_array);
            for (i, v) in items.iter().enumerate() {
                if let Some(sub) = prefix.and_then(|p| p.get(i)).or(schema.get("items")) {
                    within(sub, defs, v, &format!("{path}[{i}]"))?;
                }
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// Whether `schema` takes numbers and nothing else (not `null`).
fn only_numbers(schema: &Value) -> bool {
    matches!(
        schema.get("type").and_then(Value::as_str),
        Some("number" | "integer")
    )
}

/// Whether `v` meets the bounds of `schema` (a NaN meets none).
fn in_range(schema: &Value, v: f64) -> bool {
    let bound = |key: &str| schema.get(key).and_then(Value::as_f64);
    bound("minimum").is_none_or(|m| v >= m)
        && bound("exclusiveMinimum").is_none_or(|m| v > m)
        && bound("maximum").is_none_or(|m| v <= m)
        && bound("exclusiveMaximum").is_none_or(|m| v < m)
}

/// Whether `node` can be an instance of the alternative `alt` by its JSON type (and,
/// for an externally tagged variant `{name: settings}`, by its one key).
fn fits(alt: &Value, node: &Value, defs: &Map<String, Value>) -> bool {
    if let Some((name, _)) = tagged(alt) {
        return node
            .as_object()
            .is_some_and(|m| m.len() == 1 && m.contains_key(name));
    }
    let types: Vec<&str> = match alt.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        // A choice within the choice: the node fits if one of its alternatives does.
        _ => {
            return alternatives(alt)
                .iter()
                .any(|a| fits(resolve(a, defs), node, defs));
        }
    };
    types.iter().any(|t| {
        matches!(
            (*t, node),
            ("integer" | "number", Value::Number(_))
                | ("object", Value::Object(_))
                | ("array", Value::Array(_))
                | ("string", Value::String(_))
                | ("boolean", Value::Bool(_))
                | ("null", Value::Null)
        )
    })
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
        /// A positive rate, if any.
        #[serde(default)]
        #[schemars(extend("exclusiveMinimum" = 0))]
        rate: Option<f64>,
        /// A count or a mode, if any.
        #[serde(default)]
        size: Option<Size>,
    }

    /// A count (≥ 1) or a mode: a choice whose second alternative is itself a choice.
    #[derive(Deserialize, schemars::JsonSchema)]
    #[serde(untagged)]
    #[allow(dead_code)]
    enum Size {
        /// A count.
        Count(#[schemars(range(min = 1))] usize),
        /// A mode.
        Mode(Mode),
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
        let names: Vec<&str> = types.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(
            names,
            ["Mode", "Size"],
            "the registry and its kind's settings are not named types"
        );
        let modes: Vec<&str> = types[0].kinds.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(modes, ["fast", "slow"]);
    }

    #[test]
    fn a_number_outside_its_declared_range_is_refused_with_its_path() {
        let check = |v: Value| check_ranges::<Registry>(&v);
        let ok = serde_json::json!({"counted": {"count": 1, "share": 1.0, "rate": 0.5}});
        assert_eq!(check(ok), Ok(()));
        assert_eq!(check(serde_json::json!("bare")), Ok(()));
        let e = check(serde_json::json!({"counted": {"count": 0, "share": 0.5}})).unwrap_err();
        assert_eq!(e.to_string(), "counted.count is 0, outside its range ≥ 1");
        let e = check(serde_json::json!({"counted": {"share": 1.5}})).unwrap_err();
        assert_eq!(
            (e.path.as_str(), e.range.as_str()),
            ("counted.share", "[0, 1]")
        );
        let e = check(serde_json::json!({"counted": {"share": 0, "rate": 0}})).unwrap_err();
        assert_eq!((e.path.as_str(), e.range.as_str()), ("counted.rate", "> 0"));
        // A count outside its range is refused although the mode alternative, a choice
        // of names, cannot hold a number either.
        let e = check(serde_json::json!({"counted": {"share": 0, "size": 0}})).unwrap_err();
        assert_eq!(e.path, "counted.size");
        assert_eq!(
            check(serde_json::json!({"counted": {"share": 0, "size": "fast"}})),
            Ok(())
        );
        // A number that is not finite (JSON's null) is outside any declared range.
        let e = check(serde_json::json!({"counted": {"share": f64::NAN}})).unwrap_err();
        assert_eq!(
            e.to_string(),
            "counted.share is not a finite number, outside its range [0, 1]"
        );
        // A type the deserializer refuses is left to it.
        assert_eq!(
            check(serde_json::json!({"counted": {"share": "x"}})),
            Ok(())
        );
    }

    #[test]
    fn a_default_the_schema_cannot_show_is_reported() {
        let kinds = Schemas::default().registry::<Registry>();
        assert_eq!(
            undocumented(&kinds),
            [
                "counted.mode: no default shown",
                "counted.size: no default shown"
            ],
            "rate's default none shows; size's type, holding a Mode, cannot show one"
        );
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
        let list = serde_json::json!({"minItems": 1, "items": {"minimum": 1}});
        assert_eq!(r(list).as_deref(), Some("≥ 1 items, each ≥ 1"));
        let four = serde_json::json!({"minItems": 4, "maxItems": 4, "items": {"minimum": 0, "exclusiveMaximum": 1}});
        assert_eq!(r(four).as_deref(), Some("4 items, each [0, 1)"));
        assert_eq!(r(serde_json::json!({"items": {"type": "number"}})), None);
    }
}
