//! The sanitiser: patch a foreign input schema (an MCP server's
//! `inputSchema`) into the subset, and say what it changed.
//!
//! Every change is a [`Finding`] with the JSON Pointer of the node (in the
//! schema as the server wrote it), so a server author can fix it upstream.
//! The sanitiser never fails on a schema it can repair; it refuses only an
//! input schema that cannot describe arguments at all (a top-level `null`
//! or other non-object type). What it does, node by node:
//!
//! - boolean schemas: `true` (anything) becomes a string schema, the
//!   closest honest tool input; a `false` property (never allowed) is
//!   removed;
//! - `type`: aliases (`int`, `bool`, `dict`, …) renamed, string formats
//!   written as types (`date`, `uri`, `email`, …) become `string`, names
//!   nobody defines are dropped; a missing `type` is inferred from the
//!   keywords present (`properties` → object, `items` → array, `format` or
//!   `pattern` → string, `minimum` → number, `enum` values of one type);
//! - `const` becomes a one-value `enum`; `definitions` becomes `$defs`
//!   (and refs to it follow); tuple `items` keep their first schema;
//! - keywords outside the subset (`format`, `pattern`, `title`, `$schema`,
//!   `minimum`, …) are dropped, one finding per node naming them all;
//! - every object schema gets `properties`, every array `items`;
//!   `required` keeps only names of properties;
//! - local `$ref`s that resolve are kept, others dropped; `$defs` that no
//!   ref reaches are pruned;
//! - descriptions: trimmed, empty ones removed, long ones cut to 1,000
//!   bytes at a character boundary;
//! - keys sorted, so the JSON is byte-stable.
//!
//! Oversized schemas are then compacted in stages ([`super::compact`]).

//!
//! Files: `node` (the pass over each node), `types` (what a node is),
//! `refs` (`$ref` and `$defs`); this file holds the entry point.

use super::{alias, Issue, SchemaError};
use node::Sanitizer;
use serde_json::{Map, Value};

/// One change the sanitiser made, at a node of the original schema.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Finding {
    /// JSON Pointer of the node in the schema as written (`""` is the root).
    pub pointer: String,
    /// A stable name for the kind of change, such as `type-inferred`.
    pub code: &'static str,
    pub message: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {}",
            super::shown_pointer(&self.pointer),
            self.message
        )
    }
}

/// A sanitised schema and what was changed to make it.
#[derive(Debug, Clone, PartialEq)]
pub struct Sanitized {
    pub schema: Value,
    pub findings: Vec<Finding>,
}

/// Type names that are really string formats.
const STRING_FORMATS: &[&str] = &[
    "date",
    "date-time",
    "datetime",
    "time",
    "duration",
    "uri",
    "url",
    "uri-reference",
    "iri",
    "email",
    "uuid",
    "regex",
    "path",
    "file",
    "filepath",
    "binary",
    "bytes",
    "byte",
    "hostname",
    "ipv4",
    "ipv6",
    "password",
    "char",
];

/// Keywords dropped without changing what a model may send (annotations).
const ANNOTATIONS: &[&str] = &[
    "$schema",
    "$id",
    "$comment",
    "title",
    "examples",
    "example",
    "readOnly",
    "writeOnly",
    "deprecated",
    "markdownDescription",
];

/// Patch `schema` into the subset and report every change. Fails only when
/// the top level cannot be an object schema (`null`, `string`, …).
pub fn sanitize_with_findings(schema: &Value) -> Result<Sanitized, SchemaError> {
    let mut findings = Vec::new();
    let top = match schema {
        Value::Object(map) => map.clone(),
        other => {
            findings.push(Finding {
                pointer: String::new(),
                code: "not-an-object-schema",
                message: format!(
                    "the input schema is {}, not an object schema; replaced by an object with no properties",
                    kind_of(other)
                ),
            });
            Map::new()
        }
    };
    // The top level first: its type must be `object`.
    let mut top = top;
    match top.get("type").cloned() {
        None => {}
        Some(Value::String(name)) => match alias(&name) {
            Some("object") => {}
            Some("null") => return Err(refuse("the `null` type")),
            Some(other) => return Err(refuse(&format!("the `{other}` type"))),
            None => {
                findings.push(Finding {
                    pointer: String::new(),
                    code: "type-unknown",
                    message: format!("type `{name}` is not a type; the input is an object"),
                });
                top.remove("type");
            }
        },
        Some(Value::Array(names)) => {
            let names: Vec<&str> = names.iter().filter_map(Value::as_str).collect();
            if !names.iter().any(|n| alias(n) == Some("object")) {
                if names.iter().all(|n| alias(n) == Some("null")) && !names.is_empty() {
                    return Err(refuse("the `null` type"));
                }
                if !names.is_empty() {
                    return Err(refuse(&format!("the types {names:?}")));
                }
            }
            findings.push(Finding {
                pointer: String::new(),
                code: "type-union-narrowed",
                message: format!(
                    "the input schema's type {names:?} is narrowed to `object` (tool arguments are an object)"
                ),
            });
            top.insert("type".to_string(), "object".into());
        }
        Some(other) => {
            findings.push(Finding {
                pointer: String::new(),
                code: "type-unknown",
                message: format!("`type` is {other}, not a type name; the input is an object"),
            });
            top.remove("type");
        }
    }
    let mut sanitizer = Sanitizer {
        findings,
        renamed_definitions: top.contains_key("definitions"),
    };
    let out = sanitizer.node(&Value::Object(top), "");
    let mut out = match out {
        Some(Value::Object(map)) => map,
        _ => Map::new(),
    };
    if out.get("type").and_then(Value::as_str) != Some("object") {
        let inferred_already = out.contains_key("type");
        out.insert("type".to_string(), "object".into());
        if !inferred_already {
            sanitizer.findings.push(Finding {
                pointer: String::new(),
                code: "type-inferred",
                message: "the input schema has no `type`; it is an object (tool arguments are)"
                    .to_string(),
            });
        }
    }
    if !out.contains_key("properties") {
        out.insert("properties".to_string(), Value::Object(Map::new()));
        sanitizer.findings.push(Finding {
            pointer: String::new(),
            code: "properties-added",
            message: "an object schema without `properties`; added `\"properties\": {}`"
                .to_string(),
        });
    }
    let mut root = Value::Object(out);
    sanitizer.resolve_refs(&mut root);
    sanitizer.prune_definitions(&mut root);
    let mut findings = sanitizer.findings;
    findings.sort_by(|a, b| a.pointer.cmp(&b.pointer).then(a.code.cmp(b.code)));
    findings.dedup();
    Ok(Sanitized {
        schema: super::sorted(root),
        findings,
    })
}

fn refuse(what: &str) -> SchemaError {
    SchemaError(Issue {
        pointer: String::new(),
        message: format!(
            "a tool's input schema must describe an object of arguments, not {what} — fix the server's inputSchema"
        ),
    })
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(true) => "the boolean schema `true`",
        Value::Bool(false) => "the boolean schema `false`",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

mod node;
mod refs;
mod types;

pub(super) use refs::walk_mut;
pub(super) use types::types_of;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{sanitize_input_schema, validate_subset, MAX_SCHEMA_BYTES};
    use serde_json::json;

    fn codes_at(findings: &[Finding], pointer: &str) -> Vec<&'static str> {
        findings
            .iter()
            .filter(|f| f.pointer == pointer)
            .map(|f| f.code)
            .collect()
    }

    #[test]
    fn every_change_is_a_finding_at_its_pointer() {
        let messy = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": ["object", "null"],
            "properties": {
                "when": {"type": "date", "description": "  "},
                "mode": {"const": "fast"},
                "link": {"format": "uri"},
                "tags": {"type": "array"},
                "pair": {"type": "array", "items": [{"type": "int"}, {"type": "string"}]},
                "never": false,
                "any": true,
                "opts": {"additionalProperties": {"type": "string"}},
                "node": {"$ref": "#/definitions/Node"},
                "far": {"$ref": "https://example.com/schema.json"},
                "odd": {"type": "frobnicate", "title": "Odd"}
            },
            "required": ["when", "ghost"],
            "definitions": {
                "Node": {"type": "object", "properties": {"next": {"$ref": "#/definitions/Node"}}},
                "Unused": {"type": "string"}
            }
        });
        let out = sanitize_with_findings(&messy).unwrap();
        let f = &out.findings;
        assert_eq!(
            codes_at(f, ""),
            [
                "annotation-dropped",
                "definitions-renamed",
                "required-unknown",
                "type-union-narrowed",
            ]
        );
        assert_eq!(
            codes_at(f, "/properties/when"),
            ["description-empty", "type-renamed"]
        );
        assert_eq!(
            codes_at(f, "/properties/mode"),
            ["const-to-enum", "type-inferred"]
        );
        assert_eq!(
            out.schema["properties"]["mode"],
            json!({"enum": ["fast"], "type": "string"})
        );
        assert_eq!(
            codes_at(f, "/properties/link"),
            ["keyword-dropped", "type-inferred"]
        );
        assert_eq!(out.schema["properties"]["link"], json!({"type": "string"}));
        assert_eq!(codes_at(f, "/properties/tags"), ["items-added"]);
        assert_eq!(codes_at(f, "/properties/pair"), ["items-tuple"]);
        assert_eq!(codes_at(f, "/properties/pair/items/0"), ["type-renamed"]);
        assert_eq!(
            out.schema["properties"]["pair"]["items"],
            json!({"type": "integer"})
        );
        assert_eq!(codes_at(f, "/properties/never"), ["boolean-schema"]);
        assert!(out.schema["properties"].get("never").is_none());
        assert_eq!(codes_at(f, "/properties/any"), ["boolean-schema"]);
        assert_eq!(
            codes_at(f, "/properties/opts"),
            ["properties-added", "type-inferred"]
        );
        assert_eq!(
            out.schema["properties"]["node"],
            json!({"$ref": "#/$defs/Node"})
        );
        assert_eq!(codes_at(f, "/properties/far"), ["ref-unresolved"]);
        assert_eq!(out.schema["properties"]["far"], json!({}));
        assert_eq!(
            codes_at(f, "/properties/odd"),
            ["annotation-dropped", "type-unknown"]
        );
        assert_eq!(codes_at(f, "/definitions/Unused"), ["definition-pruned"]);
        assert!(out.schema["$defs"].get("Unused").is_none());
        assert!(out.schema["$defs"].get("Node").is_some());
        assert_eq!(out.schema["required"], json!(["when"]));
        assert!(
            validate_subset(&out.schema).is_empty(),
            "{:?}",
            validate_subset(&out.schema)
        );
    }

    #[test]
    fn a_fitting_schema_has_no_findings() {
        let fitting = json!({
            "type": "object",
            "properties": {"q": {"type": "string", "description": "What to find."}},
            "required": ["q"],
            "additionalProperties": false
        });
        let out = sanitize_with_findings(&fitting).unwrap();
        assert!(out.findings.is_empty(), "{:?}", out.findings);
        assert_eq!(out.schema, fitting);
    }

    #[test]
    fn descriptions_are_cut_at_a_character_boundary() {
        let long = "é".repeat(700); // 1,400 bytes
        let out = sanitize_with_findings(&json!({
            "type": "object",
            "properties": {"a": {"type": "string", "description": long}}
        }))
        .unwrap();
        let cut = out.schema["properties"]["a"]["description"]
            .as_str()
            .unwrap();
        assert_eq!(cut.len(), 1_000);
        assert_eq!(
            codes_at(&out.findings, "/properties/a"),
            ["description-cut"]
        );
    }

    #[test]
    fn the_top_level_is_an_object_or_refused() {
        for refused in [json!({"type": "null"}), json!({"type": "integer"})] {
            let error = sanitize_with_findings(&refused).unwrap_err();
            assert!(
                error.to_string().contains("must describe an object"),
                "{error}"
            );
        }
        let out = sanitize_with_findings(&json!(true)).unwrap();
        assert_eq!(out.schema, json!({"properties": {}, "type": "object"}));
        assert_eq!(
            codes_at(&out.findings, ""),
            ["not-an-object-schema", "properties-added", "type-inferred"]
        );
        let out = sanitize_with_findings(&json!({"anyOf": [{"type": "object", "properties": {}}]}))
            .unwrap();
        assert_eq!(out.schema["type"], "object");
    }

    #[test]
    fn large_schemas_are_compacted_in_stages() {
        let mut properties = Map::new();
        for i in 0..20 {
            properties.insert(
                format!("field_{i}"),
                json!({
                    "type": "object",
                    "description": "x".repeat(300),
                    "properties": {
                        "inner": {"type": "string", "description": "y".repeat(200)},
                        "deep": {"$ref": "#/$defs/Deep"}
                    }
                }),
            );
        }
        let schema = json!({
            "type": "object",
            "properties": properties,
            "$defs": {"Deep": {"type": "object", "properties": {"z": {"type": "array", "items": {"type": "object", "properties": {"w": {"type": "string"}}}}}}}
        });
        let out = sanitize_input_schema(&schema).unwrap();
        let bytes = serde_json::to_vec(&out.schema).unwrap().len();
        assert!(bytes <= MAX_SCHEMA_BYTES, "{bytes}");
        let finding = out
            .findings
            .iter()
            .find(|f| f.code == "schema-compacted")
            .unwrap();
        assert!(
            finding.message.contains("dropped nested descriptions"),
            "{}",
            finding.message
        );
        assert!(
            validate_subset(&out.schema).is_empty(),
            "{:?}",
            validate_subset(&out.schema)
        );
        // Small schemas are left alone.
        let small = sanitize_input_schema(&json!({"type": "object", "properties": {}})).unwrap();
        assert!(small.findings.is_empty());
    }

    mod property {
        use super::*;
        use proptest::prelude::*;

        fn leaf() -> impl Strategy<Value = Value> {
            prop_oneof![
                Just(json!(true)),
                Just(json!(false)),
                Just(json!(null)),
                Just(json!("string")),
                Just(json!(7)),
                prop::sample::select(vec![
                    "string",
                    "integer",
                    "int",
                    "date",
                    "uri",
                    "object",
                    "array",
                    "null",
                    "frobnicate",
                    "number",
                    "bool",
                    "list",
                ])
                .prop_map(|t| json!({ "type": t })),
                Just(json!({"format": "date-time"})),
                Just(json!({"const": 3})),
                Just(json!({"enum": []})),
                Just(json!({"enum": ["a", 1]})),
                Just(json!({"$ref": "#/$defs/A"})),
                Just(json!({"$ref": "#/definitions/B"})),
                Just(json!({"$ref": "#"})),
                Just(json!({"$ref": "http://x/y"})),
                Just(json!({"description": ""})),
                Just(json!({"description": "ü".repeat(600)})),
                Just(json!({"minimum": 1, "title": "n"})),
                Just(json!({"type": ["string", "null", "date"]})),
                Just(json!({"type": 5})),
            ]
        }

        fn schema() -> impl Strategy<Value = Value> {
            leaf().prop_recursive(4, 48, 6, |inner| {
                prop_oneof![
                    prop::collection::btree_map("[a-c~/]{1,3}", inner.clone(), 0..4).prop_map(
                        |props| json!({"type": "object", "properties": props, "required": ["a", "zz"]})
                    ),
                    prop::collection::btree_map("[a-c]{1,2}", inner.clone(), 0..3)
                        .prop_map(|props| json!({ "properties": props })),
                    inner.clone().prop_map(|items| json!({"type": "array", "items": items})),
                    prop::collection::vec(inner.clone(), 0..3)
                        .prop_map(|items| json!({ "items": items })),
                    prop::collection::vec(inner.clone(), 0..3)
                        .prop_map(|list| json!({ "anyOf": list })),
                    inner.clone().prop_map(|a| json!({"additionalProperties": a})),
                    (inner.clone(), inner.clone()).prop_map(|(a, b)| json!({
                        "type": "object",
                        "properties": {"p": {"$ref": "#/$defs/A"}},
                        "$defs": {"A": a},
                        "definitions": {"B": b}
                    })),
                    "[ -~]{0,3000}".prop_map(|d| json!({"type": "object", "description": d})),
                ]
            })
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(400))]
            #[test]
            fn every_emitted_schema_passes_the_validator(input in schema()) {
                if let Ok(out) = sanitize_input_schema(&input) {
                    let issues = validate_subset(&out.schema);
                    prop_assert!(issues.is_empty(), "{input}\n→ {}\n{issues:?}", out.schema);
                    // Sanitising is idempotent: what comes out fits as it is.
                    let again = sanitize_input_schema(&out.schema).unwrap();
                    prop_assert_eq!(&again.schema, &out.schema);
                }
            }
        }
    }
}
