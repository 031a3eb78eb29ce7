//! What a schema node is: its types (written or inferred from its
//! keywords), whether a name is a string format, and small helpers of the
//! node pass.

use super::STRING_FORMATS;
use serde_json::Map;
use serde_json::{json, Value};

pub(super) fn quoted_list(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

pub(super) fn is_format(name: &str) -> bool {
    STRING_FORMATS.contains(&name.to_ascii_lowercase().as_str())
}

/// A type-only schema with the structure its type needs.
pub(super) fn with_structure(mut schema: Value) -> Value {
    match schema["type"].as_str() {
        Some("object") => schema["properties"] = json!({}),
        Some("array") => schema["items"] = json!({"type": "string"}),
        _ => {}
    }
    schema
}

/// One JSON Pointer segment decoded (`~1` is `/`, `~0` is `~`).
pub(super) fn decode(segment: &str) -> String {
    segment.replace("~1", "/").replace("~0", "~")
}

pub(super) fn has_composition(map: &Map<String, Value>) -> bool {
    ["$ref", "anyOf", "oneOf", "allOf"]
        .iter()
        .any(|k| map.contains_key(*k))
}

pub(in crate::schema) fn types_of(map: &Map<String, Value>) -> Vec<&str> {
    match map.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// What type a schema without `type` has, from its keywords, and which
/// keyword says so.
pub(super) fn infer_type(
    out: &Map<String, Value>,
    original: &Map<String, Value>,
) -> Option<(&'static str, String)> {
    let first = |keys: &[&str]| {
        keys.iter()
            .find(|k| original.contains_key(**k))
            .map(|k| format!("`{k}`"))
    };
    if let Some(k) = first(&[
        "properties",
        "required",
        "additionalProperties",
        "patternProperties",
        "minProperties",
        "maxProperties",
    ]) {
        Some(("object", k))
    } else if let Some(k) = first(&[
        "items",
        "prefixItems",
        "minItems",
        "maxItems",
        "uniqueItems",
        "contains",
    ]) {
        Some(("array", k))
    } else if let Some(k) = first(&[
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
    ]) {
        Some(("number", k))
    } else if let Some(k) = first(&[
        "format",
        "pattern",
        "minLength",
        "maxLength",
        "contentEncoding",
        "contentMediaType",
    ]) {
        Some(("string", k))
    } else if let Some(values) = out.get("enum").and_then(Value::as_array) {
        single_type(values).map(|t| (t, "the values of `enum`".to_string()))
    } else {
        None
    }
}

pub(super) fn single_type(values: &[Value]) -> Option<&'static str> {
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
