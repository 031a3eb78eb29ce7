//! OpenAI strict function calling: a schema of our subset made strict-ready,
//! and a check against the rules OpenAI documents for it.
//!
//! Strict mode (`"strict": true` on a function tool; Structured Outputs,
//! "Supported schemas") decodes arguments under a grammar built from the
//! schema, and accepts only schemas where:
//! - the root is an object, not an `anyOf`;
//! - every object has `additionalProperties: false` and lists every one of
//!   its properties in `required`: an optional argument is written as a
//!   union with `null` (`"type": ["string", "null"]`), and the model sends
//!   `null` for "not given";
//! - only supported keywords appear: `allOf`, `not`, `if`/`then`/`else`,
//!   `dependentRequired`, `dependentSchemas` are not, nor is `default`
//!   (the API answers "'default' is not permitted"); `oneOf` is refused in
//!   nested places, so unions are `anyOf`;
//! - at most 5,000 object properties in all and 10 levels of object nesting;
//!   at most 120,000 characters of property names, definition names, enum
//!   and const values together; at most 1,000 enum values in all, and a
//!   string enum of more than 250 values at most 15,000 characters.
//!
//! `strict_schema` converts (optional → nullable, `oneOf` → `anyOf`, a one-entry
//! `allOf` merged, `default` dropped, objects closed) and then checks the
//! result (`check_strict`); it refuses what has no faithful conversion. Our tools treat
//! `null` as "absent" on every argument, so a strict call means what the
//! same call without its nulls means.

use super::shown_pointer;
use serde_json::{json, Map, Value};

/// Object properties a strict schema may hold in all.
pub const MAX_PROPERTIES: usize = 5_000;
/// Levels of object nesting a strict schema may have.
pub const MAX_OBJECT_DEPTH: usize = 10;
/// Characters of property names, definition names, enum and const values.
pub const MAX_NAME_CHARS: usize = 120_000;
/// Enum values in all.
pub const MAX_ENUM_VALUES: usize = 1_000;
/// A string enum longer than this many values ...
pub const LARGE_ENUM_VALUES: usize = 250;
/// ... holds at most this many characters.
pub const MAX_LARGE_ENUM_CHARS: usize = 15_000;

/// Keywords strict mode does not accept.
const UNSUPPORTED: &[&str] = &[
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
    "default",
    "oneOf",
];

/// Why a schema cannot be used in strict mode, at a JSON Pointer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {message}", shown_pointer(pointer))]
pub struct StrictError {
    pub pointer: String,
    pub message: String,
}

fn error(pointer: &str, message: impl Into<String>) -> StrictError {
    StrictError {
        pointer: pointer.to_string(),
        message: message.into(),
    }
}

/// `schema` made strict-ready; `Err` names the first place that cannot be.
pub fn strict_schema(schema: &Value) -> Result<Value, StrictError> {
    let mut converted = schema.clone();
    convert(&mut converted, "")?;
    let problems = check_strict(&converted);
    match problems.into_iter().next() {
        Some(problem) => Err(problem),
        None => Ok(super::sorted(converted)),
    }
}

/// Close every object, make its optional properties nullable, and replace
/// what strict mode refuses by what means the same.
fn convert(schema: &mut Value, pointer: &str) -> Result<(), StrictError> {
    let Some(map) = schema.as_object_mut() else {
        return Ok(());
    };
    map.remove("default");
    if let Some(one_of) = map.remove("oneOf") {
        // Exactly one of disjoint alternatives is what any of them means
        // for a model that fills in one; our subset's unions are disjoint.
        match map.get_mut("anyOf") {
            Some(_) => {
                return Err(error(
                    pointer,
                    "both `oneOf` and `anyOf`: strict mode has only `anyOf`",
                ))
            }
            None => {
                map.insert("anyOf".to_string(), one_of);
            }
        }
    }
    if let Some(all_of) = map.remove("allOf") {
        match all_of {
            Value::Array(mut parts) if parts.len() == 1 => {
                if let Value::Object(part) = parts.remove(0) {
                    for (key, value) in part {
                        map.entry(key).or_insert(value);
                    }
                }
            }
            _ => {
                return Err(error(
                    pointer,
                    "`allOf` of several schemas: strict mode has no `allOf` — merge them into one object",
                ))
            }
        }
    }
    if let Some(Value::Object(defs)) = map.get_mut("$defs") {
        for (name, def) in defs.iter_mut() {
            convert(def, &format!("{pointer}/$defs/{}", escape(name)))?;
        }
    }
    if let Some(Value::Array(variants)) = map.get_mut("anyOf") {
        for (i, variant) in variants.iter_mut().enumerate() {
            convert(variant, &format!("{pointer}/anyOf/{i}"))?;
        }
    }
    if let Some(items) = map.get_mut("items") {
        convert(items, &format!("{pointer}/items"))?;
    }
    let is_object = type_names(map).contains(&"object") || map.contains_key("properties");
    if !is_object {
        return Ok(());
    }
    if map
        .get("additionalProperties")
        .is_some_and(|a| a != &json!(false))
    {
        return Err(error(
            pointer,
            "an object that allows other properties: strict mode needs `additionalProperties: false`",
        ));
    }
    map.insert("additionalProperties".to_string(), json!(false));
    let required: Vec<String> = map
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect()
        })
        .unwrap_or_default();
    let properties = map
        .entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(properties) = properties.as_object_mut() else {
        return Err(error(pointer, "`properties` is not an object"));
    };
    for (name, property) in properties.iter_mut() {
        convert(property, &format!("{pointer}/properties/{}", escape(name)))?;
        if !required.contains(name) {
            nullable(property);
        }
    }
    let every: Vec<Value> = properties.keys().map(|k| json!(k)).collect();
    map.insert("required".to_string(), Value::Array(every));
    Ok(())
}

/// Let `schema` also accept `null`.
fn nullable(schema: &mut Value) {
    let Some(map) = schema.as_object_mut() else {
        return;
    };
    match map.get_mut("type") {
        Some(Value::String(name)) if name == "null" => return,
        Some(Value::String(name)) => {
            let name = name.clone();
            map.insert("type".to_string(), json!([name, "null"]));
        }
        Some(Value::Array(names)) => {
            if !names.iter().any(|n| n == "null") {
                names.push(json!("null"));
            }
        }
        _ => {
            // No type of its own (`$ref`, `anyOf`, `enum`, `const`): one
            // more alternative.
            let inner = std::mem::take(map);
            let description = inner.get("description").cloned();
            let mut wrapped = Map::new();
            if let Some(description) = description {
                wrapped.insert("description".to_string(), description);
            }
            let mut inner = inner;
            inner.remove("description");
            wrapped.insert(
                "anyOf".to_string(),
                json!([Value::Object(inner), {"type": "null"}]),
            );
            *map = wrapped;
            return;
        }
    }
    if let Some(Value::Array(values)) = map.get_mut("enum") {
        if !values.iter().any(Value::is_null) {
            values.push(Value::Null);
        }
    }
}

fn type_names(map: &Map<String, Value>) -> Vec<&str> {
    match map.get("type") {
        Some(Value::String(name)) => vec![name.as_str()],
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// A JSON Pointer segment (RFC 6901).
fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// Every way `schema` breaks the rules of strict mode, in document order.
pub fn check_strict(schema: &Value) -> Vec<StrictError> {
    let mut checker = Checker::default();
    match schema.as_object() {
        Some(root) if type_names(root) == ["object"] && !root.contains_key("anyOf") => {}
        _ => checker.problems.push(error(
            "",
            "the root must be an object schema (`\"type\": \"object\"`), not a union",
        )),
    }
    checker.walk(schema, "", 0);
    if checker.properties > MAX_PROPERTIES {
        checker.problems.push(error(
            "",
            format!(
                "{} object properties; strict mode allows {MAX_PROPERTIES}",
                checker.properties
            ),
        ));
    }
    if checker.name_chars > MAX_NAME_CHARS {
        checker.problems.push(error(
            "",
            format!(
                "{} characters of names and enum values; strict mode allows {MAX_NAME_CHARS}",
                checker.name_chars
            ),
        ));
    }
    if checker.enum_values > MAX_ENUM_VALUES {
        checker.problems.push(error(
            "",
            format!(
                "{} enum values; strict mode allows {MAX_ENUM_VALUES}",
                checker.enum_values
            ),
        ));
    }
    checker.problems
}

#[derive(Default)]
struct Checker {
    problems: Vec<StrictError>,
    properties: usize,
    name_chars: usize,
    enum_values: usize,
}

impl Checker {
    fn walk(&mut self, schema: &Value, pointer: &str, depth: usize) {
        let Some(map) = schema.as_object() else {
            return;
        };
        for keyword in UNSUPPORTED {
            if map.contains_key(*keyword) {
                self.problems.push(error(
                    pointer,
                    format!("`{keyword}` is not supported in strict mode"),
                ));
            }
        }
        let depth = if type_names(map).contains(&"object") || map.contains_key("properties") {
            self.object(map, pointer, depth + 1);
            depth + 1
        } else {
            depth
        };
        if let Some(Value::Array(values)) = map.get("enum") {
            self.enum_values += values.len();
            let chars: usize = values
                .iter()
                .filter_map(Value::as_str)
                .map(|v| v.chars().count())
                .sum();
            self.name_chars += chars;
            if values.len() > LARGE_ENUM_VALUES && chars > MAX_LARGE_ENUM_CHARS {
                self.problems.push(error(
                    pointer,
                    format!("an enum of {} values holds {chars} characters; strict mode allows {MAX_LARGE_ENUM_CHARS} in one of more than {LARGE_ENUM_VALUES} values", values.len()),
                ));
            }
        }
        if let Some(Value::String(value)) = map.get("const") {
            self.name_chars += value.chars().count();
        }
        if let Some(Value::Object(properties)) = map.get("properties") {
            for (name, property) in properties {
                self.walk(
                    property,
                    &format!("{pointer}/properties/{}", escape(name)),
                    depth,
                );
            }
        }
        if let Some(Value::Object(defs)) = map.get("$defs") {
            for (name, def) in defs {
                self.name_chars += name.chars().count();
                self.walk(def, &format!("{pointer}/$defs/{}", escape(name)), depth);
            }
        }
        if let Some(Value::Array(variants)) = map.get("anyOf") {
            for (i, variant) in variants.iter().enumerate() {
                self.walk(variant, &format!("{pointer}/anyOf/{i}"), depth);
            }
        }
        if let Some(items) = map.get("items") {
            self.walk(items, &format!("{pointer}/items"), depth);
        }
    }

    fn object(&mut self, map: &Map<String, Value>, pointer: &str, depth: usize) {
        if depth > MAX_OBJECT_DEPTH {
            self.problems.push(error(
                pointer,
                format!("objects nested {depth} deep; strict mode allows {MAX_OBJECT_DEPTH}"),
            ));
        }
        if map.get("additionalProperties") != Some(&json!(false)) {
            self.problems.push(error(
                pointer,
                "an object without `additionalProperties: false`",
            ));
        }
        let properties = map.get("properties").and_then(Value::as_object);
        let required: Vec<&str> = map
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for name in properties.into_iter().flat_map(|p| p.keys()) {
            self.properties += 1;
            self.name_chars += name.chars().count();
            if !required.contains(&name.as_str()) {
                self.problems.push(error(
                    pointer,
                    format!("property `{name}` is not in `required`: strict mode needs every property there (optional ones as a union with null)"),
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn optional_properties_become_nullable_and_objects_closed() {
        let schema = json!({
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "limit": {"type": "integer", "default": 8},
                "mode": {"enum": ["a", "b"]},
                "kind": {"type": "string", "enum": ["x", "y"]},
                "nested": {"type": "object", "properties": {"flag": {"type": "boolean"}}},
                "either": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
            },
            "required": ["name"],
        });
        let strict = strict_schema(&schema).unwrap();
        assert_eq!(
            strict["required"],
            json!(["either", "kind", "limit", "mode", "name", "nested"])
        );
        assert_eq!(strict["additionalProperties"], false);
        let properties = &strict["properties"];
        assert_eq!(properties["name"]["type"], "string");
        assert_eq!(properties["limit"], json!({"type": ["integer", "null"]}));
        assert_eq!(
            properties["mode"],
            json!({"anyOf": [{"enum": ["a", "b"]}, {"type": "null"}]})
        );
        assert_eq!(properties["kind"]["enum"], json!(["x", "y", null]));
        assert_eq!(properties["nested"]["required"], json!(["flag"]));
        assert_eq!(properties["nested"]["additionalProperties"], false);
        assert_eq!(
            properties["nested"]["properties"]["flag"]["type"],
            json!(["boolean", "null"])
        );
        assert!(properties["either"].get("oneOf").is_none());
        assert!(
            check_strict(&strict).is_empty(),
            "{:?}",
            check_strict(&strict)
        );
    }

    #[test]
    fn what_strict_mode_refuses_is_named() {
        let open = json!({"type": "object", "properties": {}, "additionalProperties": true});
        assert!(strict_schema(&open)
            .unwrap_err()
            .message
            .contains("additionalProperties"));
        let intersection = json!({"type": "object", "properties": {"a": {"allOf": [{"type": "string"}, {"type": "string"}]}}});
        let problem = strict_schema(&intersection).unwrap_err();
        assert_eq!(problem.pointer, "/properties/a");
        assert!(problem.message.contains("allOf"), "{problem}");
        let union = json!({"anyOf": [{"type": "object", "properties": {}}]});
        assert!(check_strict(&union)
            .iter()
            .any(|p| p.message.contains("root")));
        // Too deep: eleven levels of objects.
        let mut deep = json!({"type": "object", "properties": {}});
        for _ in 0..10 {
            deep = json!({"type": "object", "properties": {"inner": deep}});
        }
        let problem = strict_schema(&deep).unwrap_err();
        assert!(problem.message.contains("nested 11 deep"), "{problem}");
        // Unclosed and optional properties, as found.
        let loose = json!({"type": "object", "properties": {"a": {"type": "string"}}});
        let problems = check_strict(&loose);
        assert_eq!(problems.len(), 2, "{problems:?}");
        let many: Map<String, Value> = (0..MAX_ENUM_VALUES + 1)
            .map(|i| (format!("p{i}"), json!({"enum": [i]})))
            .collect();
        let wide = json!({"type": "object", "properties": many});
        assert!(strict_schema(&wide)
            .unwrap_err()
            .message
            .contains("enum values"));
    }
}
