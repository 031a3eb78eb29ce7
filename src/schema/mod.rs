//! The JSON Schema subset every tool schema we publish must fit (DESIGN
//! §10), a validator that checks a schema against it, and a sanitiser that
//! patches foreign schemas into it.
//!
//! The subset is what the strictest model APIs accept: the seven types
//! (`string number boolean integer object array null`, alone or as a
//! union), the keywords `anyOf oneOf allOf $ref enum const properties
//! required description` plus the structural ones an object or array needs
//! (`items`, `additionalProperties`, `$defs`, `default`), `properties` on
//! every object (some APIs reject an object without it), descriptions that
//! are non-empty and at most 1,000 bytes, and keys in sorted order so the
//! JSON is byte-stable.
//!
//! The validator never changes a schema; the sanitiser never fails on a
//! schema it can repair, and refuses only what has no faithful repair (a
//! top-level `null` type, a type name nobody defines).

use serde_json::{Map, Value};

/// The types a schema may name.
pub const TYPES: &[&str] = &[
    "string", "number", "boolean", "integer", "object", "array", "null",
];

/// Keywords a schema may hold.
pub const KEYWORDS: &[&str] = &[
    "$defs",
    "$ref",
    "additionalProperties",
    "allOf",
    "anyOf",
    "const",
    "default",
    "description",
    "enum",
    "items",
    "oneOf",
    "properties",
    "required",
    "type",
];

/// Descriptions are cut to this many bytes, at a character boundary.
pub const MAX_DESCRIPTION_BYTES: usize = 1_000;

/// One way a schema breaks the subset, with the JSON pointer of the place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issue {
    pub pointer: String,
    pub message: String,
}

impl std::fmt::Display for Issue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at = if self.pointer.is_empty() {
            "/"
        } else {
            &self.pointer
        };
        write!(f, "{at}: {}", self.message)
    }
}

/// Why a foreign schema could not be patched.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SchemaError(pub Issue);

/// Every place where `schema` breaks the subset (empty when it fits). The
/// top level must be an object schema, as tool inputs are.
pub fn validate(schema: &Value) -> Vec<Issue> {
    let mut issues = Vec::new();
    match schema.get("type") {
        Some(Value::String(t)) if t == "object" => {}
        _ => issues.push(Issue {
            pointer: String::new(),
            message: "a tool's input schema must be `\"type\": \"object\"`".to_string(),
        }),
    }
    check(schema, "", &mut issues);
    issues
}

fn issue(issues: &mut Vec<Issue>, pointer: &str, message: impl Into<String>) {
    issues.push(Issue {
        pointer: pointer.to_string(),
        message: message.into(),
    });
}

fn check(schema: &Value, pointer: &str, issues: &mut Vec<Issue>) {
    let Value::Object(map) = schema else {
        issue(
            issues,
            pointer,
            "a schema must be a JSON object (not a boolean or other value)",
        );
        return;
    };
    let keys: Vec<&String> = map.keys().collect();
    if keys.windows(2).any(|w| w[0] > w[1]) {
        issue(issues, pointer, "keys are not in sorted order");
    }
    for key in map.keys() {
        if !KEYWORDS.contains(&key.as_str()) {
            issue(
                issues,
                pointer,
                format!("keyword `{key}` is outside the subset"),
            );
        }
    }
    let types = match map.get("type") {
        None => Vec::new(),
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(list)) if !list.is_empty() => {
            list.iter().filter_map(Value::as_str).collect()
        }
        Some(other) => {
            issue(
                issues,
                pointer,
                format!("`type` must be a type name or a list of them, not {other}"),
            );
            Vec::new()
        }
    };
    for t in &types {
        if !TYPES.contains(t) {
            issue(
                issues,
                pointer,
                format!("type `{t}` is not one of {TYPES:?}"),
            );
        }
    }
    if types.contains(&"object") && !map.contains_key("properties") {
        issue(issues, pointer, "an object schema must have `properties`");
    }
    if let Some(description) = map.get("description") {
        match description.as_str() {
            Some(d) if d.trim().is_empty() => issue(issues, pointer, "empty description"),
            Some(d) if d.len() > MAX_DESCRIPTION_BYTES => issue(
                issues,
                pointer,
                format!(
                    "description is {} bytes; the limit is {MAX_DESCRIPTION_BYTES}",
                    d.len()
                ),
            ),
            Some(_) => {}
            None => issue(issues, pointer, "description must be a string"),
        }
    }
    if let Some(properties) = map.get("properties") {
        match properties {
            Value::Object(properties) => {
                let names: Vec<&String> = properties.keys().collect();
                if names.windows(2).any(|w| w[0] > w[1]) {
                    issue(issues, pointer, "properties are not in sorted order");
                }
                for (name, property) in properties {
                    let at = format!("{pointer}/properties/{}", escape(name));
                    if property.get("description").is_none() {
                        issue(issues, &at, "every property needs a description");
                    }
                    check(property, &at, issues);
                }
                if let Some(required) = map.get("required") {
                    match required.as_array() {
                        Some(list) => {
                            for name in list {
                                match name.as_str() {
                                    Some(n) if properties.contains_key(n) => {}
                                    _ => issue(
                                        issues,
                                        pointer,
                                        format!("required {name} is not a property"),
                                    ),
                                }
                            }
                        }
                        None => issue(issues, pointer, "`required` must be a list"),
                    }
                }
            }
            _ => issue(issues, pointer, "`properties` must be an object"),
        }
    }
    if let Some(items) = map.get("items") {
        check(items, &format!("{pointer}/items"), issues);
    }
    if let Some(additional) = map.get("additionalProperties") {
        if !additional.is_boolean() {
            check(
                additional,
                &format!("{pointer}/additionalProperties"),
                issues,
            );
        }
    }
    for keyword in ["anyOf", "oneOf", "allOf"] {
        if let Some(list) = map.get(keyword) {
            match list.as_array() {
                Some(list) if !list.is_empty() => {
                    for (i, sub) in list.iter().enumerate() {
                        check(sub, &format!("{pointer}/{keyword}/{i}"), issues);
                    }
                }
                _ => issue(
                    issues,
                    pointer,
                    format!("`{keyword}` must be a non-empty list"),
                ),
            }
        }
    }
    if let Some(defs) = map.get("$defs") {
        match defs.as_object() {
            Some(defs) => {
                for (name, sub) in defs {
                    check(sub, &format!("{pointer}/$defs/{}", escape(name)), issues);
                }
            }
            None => issue(issues, pointer, "`$defs` must be an object"),
        }
    }
    if let Some(list) = map.get("enum") {
        if list.as_array().is_none_or(|l| l.is_empty()) {
            issue(issues, pointer, "`enum` must be a non-empty list");
        }
    }
}

fn escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

/// Type names other tools write, and what they mean in the subset.
fn alias(name: &str) -> Option<&'static str> {
    Some(match name.to_ascii_lowercase().as_str() {
        "string" | "str" | "text" => "string",
        "number" | "float" | "double" | "decimal" => "number",
        "integer" | "int" | "long" => "integer",
        "boolean" | "bool" => "boolean",
        "object" | "dict" | "map" | "record" => "object",
        "array" | "list" | "tuple" => "array",
        "null" | "none" => "null",
        _ => return None,
    })
}

/// Patch `schema` into the subset: booleans become schemas, missing types
/// are inferred, aliases of the seven types are renamed, objects get
/// `properties` and arrays `items`, unsupported keywords are dropped, empty
/// descriptions removed and long ones cut at a character boundary, keys
/// sorted. Fails only on a top-level `null` type or an unknown type name.
pub fn sanitize(schema: &Value) -> Result<Value, SchemaError> {
    let mut out = sanitize_at(schema, "")?;
    if let Value::Object(map) = &mut out {
        if map.get("type").and_then(Value::as_str) == Some("null") {
            return Err(SchemaError(Issue {
                pointer: String::new(),
                message: "a tool's input schema cannot be the `null` type".to_string(),
            }));
        }
        if !map.contains_key("type") && !has_composition(map) {
            map.insert("type".to_string(), "object".into());
        }
        if map.get("type").and_then(Value::as_str) == Some("object")
            && !map.contains_key("properties")
        {
            map.insert("properties".to_string(), Value::Object(Map::new()));
        }
    }
    Ok(sorted(out))
}

fn has_composition(map: &Map<String, Value>) -> bool {
    ["$ref", "anyOf", "oneOf", "allOf"]
        .iter()
        .any(|k| map.contains_key(*k))
}

fn sanitize_at(schema: &Value, pointer: &str) -> Result<Value, SchemaError> {
    let map = match schema {
        // `true` accepts anything; `false` nothing — as a tool input the
        // closest honest schema is a string.
        Value::Bool(_) => return Ok(serde_json::json!({"type": "string"})),
        Value::Object(map) => map,
        _ => return Ok(serde_json::json!({"type": "string"})),
    };
    let mut out = Map::new();
    for (key, value) in map {
        match key.as_str() {
            "type" => {
                let rename = |name: &str| -> Result<&'static str, SchemaError> {
                    alias(name).ok_or_else(|| {
                        SchemaError(Issue {
                            pointer: pointer.to_string(),
                            message: format!(
                                "type `{name}` is not one of {TYPES:?} and has no equivalent"
                            ),
                        })
                    })
                };
                let value = match value {
                    Value::String(name) => Value::String(rename(name)?.to_string()),
                    Value::Array(names) => {
                        let mut list: Vec<Value> = Vec::new();
                        for name in names {
                            let Some(name) = name.as_str() else { continue };
                            let renamed = Value::String(rename(name)?.to_string());
                            if !list.contains(&renamed) {
                                list.push(renamed);
                            }
                        }
                        match list.len() {
                            0 => continue,
                            1 => list.remove(0),
                            _ => Value::Array(list),
                        }
                    }
                    _ => continue,
                };
                out.insert(key.clone(), value);
            }
            "description" => {
                if let Some(text) = value.as_str() {
                    let text = text.trim();
                    if !text.is_empty() {
                        out.insert(
                            key.clone(),
                            Value::String(cut_at_char_boundary(text, MAX_DESCRIPTION_BYTES)),
                        );
                    }
                }
            }
            "properties" | "$defs" | "definitions" => {
                let Some(children) = value.as_object() else {
                    continue;
                };
                let mut patched = Map::new();
                for (name, child) in children {
                    let at = format!("{pointer}/{key}/{}", escape(name));
                    patched.insert(name.clone(), sanitize_at(child, &at)?);
                }
                let key = if key == "definitions" { "$defs" } else { key };
                out.insert(key.to_string(), Value::Object(patched));
            }
            "items" => {
                let child = match value {
                    // Tuple form: the first item's schema stands for all.
                    Value::Array(list) => list.first().cloned().unwrap_or(Value::Bool(true)),
                    other => other.clone(),
                };
                out.insert(
                    key.clone(),
                    sanitize_at(&child, &format!("{pointer}/items"))?,
                );
            }
            "additionalProperties" => {
                let value = match value {
                    Value::Bool(b) => Value::Bool(*b),
                    other => sanitize_at(other, &format!("{pointer}/additionalProperties"))?,
                };
                out.insert(key.clone(), value);
            }
            "anyOf" | "oneOf" | "allOf" => {
                let Some(list) = value.as_array().filter(|l| !l.is_empty()) else {
                    continue;
                };
                let mut patched = Vec::new();
                for (i, child) in list.iter().enumerate() {
                    patched.push(sanitize_at(child, &format!("{pointer}/{key}/{i}"))?);
                }
                out.insert(key.clone(), Value::Array(patched));
            }
            "required" => {
                if let Some(list) = value.as_array() {
                    let names: Vec<Value> =
                        list.iter().filter(|v| v.is_string()).cloned().collect();
                    out.insert(key.clone(), Value::Array(names));
                }
            }
            "enum" if value.as_array().is_some_and(|l| !l.is_empty()) => {
                out.insert(key.clone(), value.clone());
            }
            "const" | "default" | "$ref" => {
                out.insert(key.clone(), value.clone());
            }
            // Everything else (`format`, `pattern`, `minimum`, `title`,
            // `examples`, ...) is outside the subset and dropped.
            _ => {}
        }
    }
    if !out.contains_key("type") && !has_composition(&out) {
        if let Some(inferred) = infer_type(&out, map) {
            out.insert("type".to_string(), inferred.into());
        }
    }
    let types: Vec<&str> = match out.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let object = types.contains(&"object");
    let array = types.contains(&"array");
    if object && !out.contains_key("properties") {
        out.insert("properties".to_string(), Value::Object(Map::new()));
    }
    if array && !out.contains_key("items") {
        out.insert("items".to_string(), serde_json::json!({"type": "string"}));
    }
    // `required` may only name properties that exist.
    if let (Some(Value::Array(required)), Some(Value::Object(properties))) =
        (out.get("required"), out.get("properties"))
    {
        let kept: Vec<Value> = required
            .iter()
            .filter(|n| n.as_str().is_some_and(|n| properties.contains_key(n)))
            .cloned()
            .collect();
        out.insert("required".to_string(), Value::Array(kept));
    }
    Ok(Value::Object(out))
}

/// What type a schema without `type` has, from its other keywords.
fn infer_type(out: &Map<String, Value>, original: &Map<String, Value>) -> Option<&'static str> {
    let has = |k: &str| original.contains_key(k);
    if has("properties") || has("required") || has("additionalProperties") {
        Some("object")
    } else if has("items") || has("prefixItems") {
        Some("array")
    } else if has("minimum") || has("maximum") || has("multipleOf") || has("exclusiveMinimum") {
        Some("number")
    } else if has("format") || has("pattern") || has("minLength") || has("maxLength") {
        Some("string")
    } else if let Some(values) = out.get("enum").and_then(Value::as_array) {
        single_type(values)
    } else {
        out.get("const")
            .and_then(|value| single_type(std::slice::from_ref(value)))
    }
}

fn single_type(values: &[Value]) -> Option<&'static str> {
    let type_of = |v: &Value| match v {
        Value::String(_) => "string",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::Null => "null",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    let first = type_of(values.first()?);
    values.iter().all(|v| type_of(v) == first).then_some(first)
}

/// `text` cut to at most `max` bytes at a character boundary.
pub fn cut_at_char_boundary(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_string()
}

/// The same JSON with every object's keys in sorted order (whatever map
/// type serde_json was built with).
pub fn sorted(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(entries.into_iter().map(|(k, v)| (k, sorted(v))).collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn patches_foreign_schemas() {
        let foreign = json!({
            "type": "object",
            "title": "x",
            "properties": {
                "when": {"type": "string", "format": "date-time", "description": ""},
                "tags": {"type": "list"},
                "opts": {"additionalProperties": true},
                "any": true,
                "n": {"minimum": 3, "description": "é".repeat(600)}
            },
            "required": ["when", "missing"]
        });
        let patched = sanitize(&foreign).unwrap();
        assert_eq!(patched["properties"]["when"], json!({"type": "string"}));
        assert_eq!(
            patched["properties"]["tags"],
            json!({"items": {"type": "string"}, "type": "array"})
        );
        assert_eq!(
            patched["properties"]["opts"],
            json!({"additionalProperties": true, "properties": {}, "type": "object"})
        );
        assert_eq!(patched["properties"]["any"], json!({"type": "string"}));
        assert_eq!(patched["properties"]["n"]["type"], "number");
        let description = patched["properties"]["n"]["description"].as_str().unwrap();
        assert_eq!(description.len(), 1000);
        assert_eq!(patched["required"], json!(["when"]));
        assert!(patched.get("title").is_none());
        // What the sanitiser makes passes the validator, apart from the
        // property descriptions a foreign schema may lack.
        let issues: Vec<Issue> = validate(&patched)
            .into_iter()
            .filter(|i| !i.message.contains("needs a description"))
            .collect();
        assert!(issues.is_empty(), "{issues:?}");
    }

    #[test]
    fn refuses_what_cannot_be_patched() {
        assert!(sanitize(&json!({"type": "null"})).is_err());
        assert!(
            sanitize(&json!({"type": "object", "properties": {"a": {"type": "date"}}})).is_err()
        );
        let patched = sanitize(&json!({})).unwrap();
        assert_eq!(patched, json!({"properties": {}, "type": "object"}));
    }

    #[test]
    fn validator_names_each_problem() {
        let issues = validate(&json!({
            "type": "object",
            "properties": {"b": {"type": "date", "description": "x"}, "a": {"type": "object"}}
        }));
        let text: Vec<String> = issues.iter().map(ToString::to_string).collect();
        assert!(
            text.iter()
                .any(|t| t.contains("/properties/b: type `date`")),
            "{text:?}"
        );
        assert!(
            text.iter()
                .any(|t| t.contains("/properties/a: an object schema must have `properties`")),
            "{text:?}"
        );
        assert!(
            text.iter()
                .any(|t| t.contains("/properties/a: every property needs a description")),
            "{text:?}"
        );
    }
}
