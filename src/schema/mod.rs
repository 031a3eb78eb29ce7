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

mod compact;
mod sanitize;
mod strict;

pub use compact::{compact, MAX_SCHEMA_BYTES};
pub use sanitize::{sanitize_with_findings, Finding, Sanitized};
use serde_json::Value;
pub use strict::{check_strict, strict_schema, StrictError};

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

/// A JSON Pointer as messages show it: `/` for the root (the empty pointer).
pub(crate) fn shown_pointer(pointer: &str) -> &str {
    if pointer.is_empty() {
        "/"
    } else {
        pointer
    }
}

impl std::fmt::Display for Issue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", shown_pointer(&self.pointer), self.message)
    }
}

/// Why a foreign schema could not be patched.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SchemaError(pub Issue);

/// Every place where `schema` breaks the subset (empty when it fits), as a
/// model API sees it. The top level must be an object schema, as tool
/// inputs are. Foreign schemas (an MCP server's) are held to this.
pub fn validate_subset(schema: &Value) -> Vec<Issue> {
    validate(schema)
        .into_iter()
        .filter(|issue| issue.message != PROPERTY_WITHOUT_DESCRIPTION)
        .collect()
}

const PROPERTY_WITHOUT_DESCRIPTION: &str = "every property needs a description";

/// [`validate_subset`], and every property described: the rule for the
/// tools skilldex itself publishes.
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
                        issue(issues, &at, PROPERTY_WITHOUT_DESCRIPTION);
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

/// Patch `schema` into the subset (see [`sanitize_with_findings`] for
/// what changes); the findings are left out. Fails only when the top level
/// cannot be an object schema.
pub fn sanitize(schema: &Value) -> Result<Value, SchemaError> {
    sanitize_with_findings(schema).map(|sanitized| sanitized.schema)
}

/// What a model is given for a foreign tool's input schema: sanitised,
/// then compacted when over [`MAX_SCHEMA_BYTES`], with every finding.
pub fn sanitize_input_schema(schema: &Value) -> Result<Sanitized, SchemaError> {
    let mut sanitized = sanitize_with_findings(schema)?;
    let (compacted, finding) = compact::compact(sanitized.schema, MAX_SCHEMA_BYTES);
    sanitized.schema = compacted;
    sanitized.findings.extend(finding);
    Ok(sanitized)
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
        assert!(sanitize(&json!({"type": ["null"]})).is_err());
        assert!(sanitize(&json!({"type": "string"})).is_err());
        // A type name that is a string format is mapped, not refused.
        let patched =
            sanitize(&json!({"type": "object", "properties": {"a": {"type": "date"}}})).unwrap();
        assert_eq!(patched["properties"]["a"], json!({"type": "string"}));
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
