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

use super::{alias, escape, Issue, SchemaError, MAX_DESCRIPTION_BYTES, TYPES};
use serde_json::{json, Map, Value};

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

struct Sanitizer {
    findings: Vec<Finding>,
    /// The schema used `definitions`; refs to it are rewritten to `$defs`.
    renamed_definitions: bool,
}

impl Sanitizer {
    fn note(&mut self, pointer: &str, code: &'static str, message: impl Into<String>) {
        self.findings.push(Finding {
            pointer: pointer.to_string(),
            code,
            message: message.into(),
        });
    }

    /// The sanitised node, or `None` when it should be removed (a `false`
    /// property).
    fn node(&mut self, schema: &Value, pointer: &str) -> Option<Value> {
        let map = match schema {
            Value::Object(map) => map,
            Value::Bool(true) => {
                self.note(
                    pointer,
                    "boolean-schema",
                    "the boolean schema `true` is replaced by a string schema",
                );
                return Some(json!({"type": "string"}));
            }
            Value::Bool(false) => {
                self.note(
                    pointer,
                    "boolean-schema",
                    "the boolean schema `false` allows no value; removed",
                );
                return None;
            }
            Value::String(name) if alias(name).is_some() || is_format(name) => {
                let t = alias(name).unwrap_or("string");
                self.note(
                    pointer,
                    "schema-not-an-object",
                    format!(
                        "the schema is the string {name:?}; replaced by `{{\"type\": \"{t}\"}}`"
                    ),
                );
                return Some(with_structure(json!({ "type": t })));
            }
            other => {
                self.note(
                    pointer,
                    "schema-not-an-object",
                    format!(
                        "the schema is {}, not a schema object; replaced by a string schema",
                        kind_of(other)
                    ),
                );
                return Some(json!({"type": "string"}));
            }
        };
        let mut out = Map::new();
        let mut dropped: Vec<&str> = Vec::new();
        let mut annotations: Vec<&str> = Vec::new();
        for (key, value) in map {
            match key.as_str() {
                "type" => {
                    if let Some(t) = self.type_value(value, pointer) {
                        out.insert(key.clone(), t);
                    }
                }
                "description" => match value.as_str() {
                    Some(text) => {
                        let trimmed = text.trim();
                        if trimmed.is_empty() {
                            self.note(pointer, "description-empty", "empty description removed");
                        } else if trimmed.len() > MAX_DESCRIPTION_BYTES {
                            self.note(
                                pointer,
                                "description-cut",
                                format!(
                                    "description is {} bytes; cut to {} at a character boundary",
                                    crate::rules::thousands(trimmed.len()),
                                    crate::rules::thousands(MAX_DESCRIPTION_BYTES)
                                ),
                            );
                            // Trimmed again: a cut may end in a space, and a
                            // second pass must find nothing to change.
                            let cut = super::cut_at_char_boundary(trimmed, MAX_DESCRIPTION_BYTES);
                            out.insert(key.clone(), cut.trim_end().into());
                        } else {
                            out.insert(key.clone(), trimmed.into());
                        }
                    }
                    None => self.note(
                        pointer,
                        "description-not-a-string",
                        format!("description is {}, not a string; removed", kind_of(value)),
                    ),
                },
                "properties" | "$defs" | "definitions" => {
                    let Some(children) = value.as_object() else {
                        self.note(
                            pointer,
                            "keyword-malformed",
                            format!("`{key}` is {}, not an object; removed", kind_of(value)),
                        );
                        continue;
                    };
                    let target = if key == "definitions" { "$defs" } else { key };
                    if key == "definitions" {
                        self.note(
                            pointer,
                            "definitions-renamed",
                            "`definitions` is renamed `$defs` (and refs to it follow)",
                        );
                        if out.contains_key("$defs") || map.contains_key("$defs") {
                            self.note(
                                pointer,
                                "definitions-renamed",
                                "both `definitions` and `$defs`: the `$defs` entries win",
                            );
                        }
                    }
                    let mut patched = match out.remove(target) {
                        Some(Value::Object(existing)) => existing,
                        _ => Map::new(),
                    };
                    for (name, child) in children {
                        let at = format!("{pointer}/{key}/{}", escape(name));
                        if key == "definitions" && patched.contains_key(name) {
                            continue;
                        }
                        if let Some(child) = self.node(child, &at) {
                            patched.insert(name.clone(), child);
                        }
                    }
                    out.insert(target.to_string(), Value::Object(patched));
                }
                "items" => {
                    let child = match value {
                        Value::Array(list) => {
                            self.note(
                                pointer,
                                "items-tuple",
                                format!(
                                    "tuple `items` ({} schemas): the first stands for every item",
                                    list.len()
                                ),
                            );
                            list.first().cloned().unwrap_or(Value::Bool(true))
                        }
                        other => other.clone(),
                    };
                    let at = match value {
                        Value::Array(_) => format!("{pointer}/items/0"),
                        _ => format!("{pointer}/items"),
                    };
                    let child = self.node(&child, &at).unwrap_or(json!({"type": "string"}));
                    out.insert(key.clone(), child);
                }
                "prefixItems" => {
                    if !map.contains_key("items") {
                        if let Some(first) = value.as_array().and_then(|l| l.first()) {
                            self.note(
                                pointer,
                                "items-tuple",
                                "`prefixItems`: the first schema stands for every item",
                            );
                            let child = self
                                .node(first, &format!("{pointer}/prefixItems/0"))
                                .unwrap_or(json!({"type": "string"}));
                            out.insert("items".to_string(), child);
                            continue;
                        }
                    }
                    dropped.push(key);
                }
                "additionalProperties" => {
                    let value = match value {
                        Value::Bool(b) => Some(Value::Bool(*b)),
                        other => self.node(other, &format!("{pointer}/additionalProperties")),
                    };
                    out.insert(key.clone(), value.unwrap_or(Value::Bool(false)));
                }
                "anyOf" | "oneOf" | "allOf" => {
                    let Some(list) = value.as_array().filter(|l| !l.is_empty()) else {
                        self.note(
                            pointer,
                            "keyword-malformed",
                            format!("`{key}` is not a non-empty list; removed"),
                        );
                        continue;
                    };
                    let mut patched = Vec::new();
                    for (i, child) in list.iter().enumerate() {
                        if let Some(child) = self.node(child, &format!("{pointer}/{key}/{i}")) {
                            patched.push(child);
                        }
                    }
                    if patched.is_empty() {
                        continue;
                    }
                    out.insert(key.clone(), Value::Array(patched));
                }
                "required" => match value.as_array() {
                    Some(list) => {
                        let names: Vec<Value> =
                            list.iter().filter(|v| v.is_string()).cloned().collect();
                        if names.len() != list.len() {
                            self.note(
                                pointer,
                                "required-malformed",
                                "`required` holds values that are not names; they are removed",
                            );
                        }
                        out.insert(key.clone(), Value::Array(names));
                    }
                    None => self.note(
                        pointer,
                        "keyword-malformed",
                        format!("`required` is {}, not a list; removed", kind_of(value)),
                    ),
                },
                "enum" => match value.as_array() {
                    Some(list) if !list.is_empty() => {
                        out.insert(key.clone(), value.clone());
                    }
                    _ => self.note(
                        pointer,
                        "keyword-malformed",
                        "`enum` is not a non-empty list; removed",
                    ),
                },
                "const" => {
                    self.note(
                        pointer,
                        "const-to-enum",
                        "`const` is written as a one-value `enum`",
                    );
                    if !map.contains_key("enum") {
                        out.insert("enum".to_string(), Value::Array(vec![value.clone()]));
                    }
                }
                "default" => {
                    out.insert(key.clone(), value.clone());
                }
                "$ref" => match value.as_str() {
                    Some(reference) => {
                        out.insert(key.clone(), reference.into());
                    }
                    None => self.note(
                        pointer,
                        "ref-unresolved",
                        format!("`$ref` is {}, not a string; removed", kind_of(value)),
                    ),
                },
                other if ANNOTATIONS.contains(&other) => annotations.push(other),
                other => dropped.push(other),
            }
        }
        if !dropped.is_empty() {
            dropped.sort_unstable();
            self.note(
                pointer,
                "keyword-dropped",
                format!(
                    "dropped {} (outside the subset; the server should check them itself)",
                    quoted_list(&dropped)
                ),
            );
        }
        if !annotations.is_empty() {
            annotations.sort_unstable();
            self.note(
                pointer,
                "annotation-dropped",
                format!("dropped the annotations {}", quoted_list(&annotations)),
            );
        }
        if !out.contains_key("type") && !has_composition(&out) {
            if let Some((inferred, because)) = infer_type(&out, map) {
                self.note(
                    pointer,
                    "type-inferred",
                    format!("no `type`; inferred `{inferred}` from {because}"),
                );
                out.insert("type".to_string(), inferred.into());
            }
        }
        let (object, array) = {
            let types = types_of(&out);
            (types.contains(&"object"), types.contains(&"array"))
        };
        if object && !out.contains_key("properties") {
            self.note(
                pointer,
                "properties-added",
                "an object schema without `properties`; added `\"properties\": {}`",
            );
            out.insert("properties".to_string(), Value::Object(Map::new()));
        }
        if array && !out.contains_key("items") {
            self.note(
                pointer,
                "items-added",
                "an array schema without `items`; added a string item schema",
            );
            out.insert("items".to_string(), json!({"type": "string"}));
        }
        if let Some(Value::Array(required)) = out.get("required") {
            let properties = out.get("properties").and_then(Value::as_object);
            let (kept, missing): (Vec<Value>, Vec<Value>) =
                required.iter().cloned().partition(|n| {
                    n.as_str()
                        .is_some_and(|n| properties.is_some_and(|p| p.contains_key(n)))
                });
            if !missing.is_empty() {
                let names: Vec<String> = missing.iter().map(ToString::to_string).collect();
                self.note(
                    pointer,
                    "required-unknown",
                    format!(
                        "`required` names {} that is not a property; removed",
                        names.join(", ")
                    ),
                );
            }
            let mut unique: Vec<Value> = Vec::new();
            for name in kept {
                if !unique.contains(&name) {
                    unique.push(name);
                }
            }
            out.insert("required".to_string(), Value::Array(unique));
        }
        Some(Value::Object(out))
    }

    /// The `type` value renamed into the subset, or `None` to drop it.
    fn type_value(&mut self, value: &Value, pointer: &str) -> Option<Value> {
        let mut rename = |name: &str| -> Option<&'static str> {
            if let Some(t) = alias(name) {
                if t != name {
                    self.note(
                        pointer,
                        "type-renamed",
                        format!("type `{name}` is written `{t}`"),
                    );
                }
                Some(t)
            } else if is_format(name) {
                self.note(
                    pointer,
                    "type-renamed",
                    format!("type `{name}` is a string format; written `string`"),
                );
                Some("string")
            } else {
                self.note(
                    pointer,
                    "type-unknown",
                    format!("type `{name}` is not one of {TYPES:?}; dropped"),
                );
                None
            }
        };
        match value {
            Value::String(name) => rename(name).map(Value::from),
            Value::Array(names) => {
                let mut list: Vec<Value> = Vec::new();
                for name in names {
                    let Some(name) = name.as_str() else { continue };
                    if let Some(t) = rename(name) {
                        let t = Value::from(t);
                        if !list.contains(&t) {
                            list.push(t);
                        }
                    }
                }
                match list.len() {
                    0 => None,
                    1 => list.pop(),
                    _ => Some(Value::Array(list)),
                }
            }
            other => {
                self.note(
                    pointer,
                    "type-unknown",
                    format!("`type` is {}, not a type name; dropped", kind_of(other)),
                );
                None
            }
        }
    }

    /// Keep each local `$ref` that resolves (rewriting `definitions` to
    /// `$defs`); drop the others.
    fn resolve_refs(&mut self, root: &mut Value) {
        let snapshot = root.clone();
        let renamed = self.renamed_definitions;
        let mut notes = Vec::new();
        walk_mut(root, "", &mut |node, pointer| {
            let Some(map) = node.as_object_mut() else {
                return;
            };
            let Some(reference) = map.get("$ref").and_then(Value::as_str).map(str::to_string)
            else {
                return;
            };
            let mut target = reference.clone();
            if renamed {
                if let Some(rest) = target.strip_prefix("#/definitions/") {
                    target = format!("#/$defs/{rest}");
                }
            }
            let resolves = target == "#"
                || target
                    .strip_prefix('#')
                    .is_some_and(|p| p.starts_with('/') && snapshot.pointer(p).is_some());
            if resolves {
                map.insert("$ref".to_string(), target.into());
            } else {
                map.remove("$ref");
                let why = if reference.starts_with('#') {
                    "points at nothing in this schema"
                } else {
                    "is not local (only `#/…` refs are kept)"
                };
                notes.push((
                    pointer.to_string(),
                    format!("`$ref` {reference:?} {why}; removed"),
                ));
            }
        });
        for (pointer, message) in notes {
            self.note(&pointer, "ref-unresolved", message);
        }
    }

    /// Remove the `$defs` entries no ref reaches from outside `$defs`.
    fn prune_definitions(&mut self, root: &mut Value) {
        let Some(defs) = root.get("$defs").and_then(Value::as_object) else {
            return;
        };
        let names: Vec<String> = defs.keys().cloned().collect();
        let mut reached: std::collections::BTreeSet<String> = Default::default();
        let mut queue: Vec<Value> = Vec::new();
        if let Value::Object(map) = &*root {
            for (key, value) in map {
                if key != "$defs" {
                    queue.push(value.clone());
                }
            }
        }
        while let Some(node) = queue.pop() {
            for reference in refs_in(&node) {
                let Some(name) = reference.strip_prefix("#/$defs/") else {
                    continue;
                };
                let name = decode(name.split('/').next().unwrap_or(name));
                if reached.insert(name.clone()) {
                    if let Some(def) = defs.get(&name) {
                        queue.push(def.clone());
                    }
                }
            }
        }
        let unreached: Vec<String> = names.into_iter().filter(|n| !reached.contains(n)).collect();
        if unreached.is_empty() {
            return;
        }
        let key = if self.renamed_definitions {
            "definitions"
        } else {
            "$defs"
        };
        if let Some(Value::Object(defs)) = root.get_mut("$defs") {
            for name in &unreached {
                defs.remove(name);
                self.note(
                    &format!("/{key}/{}", escape(name)),
                    "definition-pruned",
                    "no `$ref` reaches this definition; removed",
                );
            }
            if defs.is_empty() {
                root.as_object_mut().map(|m| m.remove("$defs"));
            }
        }
    }
}

fn quoted_list(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn is_format(name: &str) -> bool {
    STRING_FORMATS.contains(&name.to_ascii_lowercase().as_str())
}

/// A type-only schema with the structure its type needs.
fn with_structure(mut schema: Value) -> Value {
    match schema["type"].as_str() {
        Some("object") => schema["properties"] = json!({}),
        Some("array") => schema["items"] = json!({"type": "string"}),
        _ => {}
    }
    schema
}

/// One JSON Pointer segment decoded (`~1` is `/`, `~0` is `~`).
fn decode(segment: &str) -> String {
    segment.replace("~1", "/").replace("~0", "~")
}

fn has_composition(map: &Map<String, Value>) -> bool {
    ["$ref", "anyOf", "oneOf", "allOf"]
        .iter()
        .any(|k| map.contains_key(*k))
}

pub(super) fn types_of(map: &Map<String, Value>) -> Vec<&str> {
    match map.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// What type a schema without `type` has, from its keywords, and which
/// keyword says so.
fn infer_type(
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

/// Every schema node of a sanitised schema (the subset's structure), with
/// its pointer, children before parents are visited.
pub(super) fn walk_mut(node: &mut Value, pointer: &str, visit: &mut dyn FnMut(&mut Value, &str)) {
    if let Value::Object(map) = node {
        for key in ["properties", "$defs"] {
            if let Some(Value::Object(children)) = map.get_mut(key) {
                for (name, child) in children.iter_mut() {
                    walk_mut(child, &format!("{pointer}/{key}/{}", escape(name)), visit);
                }
            }
        }
        for key in ["items", "additionalProperties"] {
            if let Some(child @ Value::Object(_)) = map.get_mut(key) {
                walk_mut(child, &format!("{pointer}/{key}"), visit);
            }
        }
        for key in ["anyOf", "oneOf", "allOf"] {
            if let Some(Value::Array(list)) = map.get_mut(key) {
                for (i, child) in list.iter_mut().enumerate() {
                    walk_mut(child, &format!("{pointer}/{key}/{i}"), visit);
                }
            }
        }
    }
    visit(node, pointer);
}

/// Every `$ref` string inside `node` (any depth).
pub(super) fn refs_in(node: &Value) -> Vec<String> {
    let mut refs = Vec::new();
    let mut stack = vec![node];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(map) => {
                if let Some(Value::String(r)) = map.get("$ref") {
                    refs.push(r.clone());
                }
                for (key, child) in map {
                    if key != "enum" && key != "default" {
                        stack.push(child);
                    }
                }
            }
            Value::Array(list) => stack.extend(list),
            _ => {}
        }
    }
    refs
}

#[cfg(test)]
mod tests {
    use super::super::{sanitize_input_schema, validate_subset, MAX_SCHEMA_BYTES};
    use super::*;

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
