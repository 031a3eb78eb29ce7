//! The node-by-node pass of the sanitiser: each schema node patched into
//! the subset (booleans, `type`, `const`, keywords outside the subset,
//! structure, descriptions), each change noted as a finding.

use super::kind_of;
use super::types::has_composition;
use super::types::infer_type;
use super::types::is_format;
use super::types::quoted_list;
use super::types::types_of;
use super::types::with_structure;
use super::Finding;
use super::ANNOTATIONS;
use crate::schema::alias;
use crate::schema::escape;
use crate::schema::MAX_DESCRIPTION_BYTES;
use crate::schema::TYPES;
use serde_json::Map;
use serde_json::{json, Value};

pub(super) struct Sanitizer {
    pub(super) findings: Vec<Finding>,
    /// The schema used `definitions`; refs to it are rewritten to `$defs`.
    pub(super) renamed_definitions: bool,
}

impl Sanitizer {
    pub(super) fn note(&mut self, pointer: &str, code: &'static str, message: impl Into<String>) {
        self.findings.push(Finding {
            pointer: pointer.to_string(),
            code,
            message: message.into(),
        });
    }

    /// The sanitised node, or `None` when it should be removed (a `false`
    /// property).
    pub(super) fn node(&mut self, schema: &Value, pointer: &str) -> Option<Value> {
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
                            let cut =
                                crate::schema::cut_at_char_boundary(trimmed, MAX_DESCRIPTION_BYTES);
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
    pub(super) fn type_value(&mut self, value: &Value, pointer: &str) -> Option<Value> {
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
}
