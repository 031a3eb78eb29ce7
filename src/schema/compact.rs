//! Compaction of very large input schemas, in stages, each taken only
//! while the schema is still over the limit: first descriptions (nested
//! ones dropped, then the top-level ones shortened), then long enums (one
//! of thousands of values says how many and names a few in its
//! description; the server still checks the value), then refs (each
//! `$ref` becomes a stub of its definition's type and `$defs` goes), then
//! depth (nodes below a depth become stubs of their type, the limit
//! lowered one level at a time). The result stays in the subset; the
//! finding says which stages ran and the sizes before and after.

use super::sanitize::{types_of, Finding};
use serde_json::{json, Map, Value};

/// Input schemas larger than this (compact JSON bytes) are compacted.
pub const MAX_SCHEMA_BYTES: usize = 5_000;

/// Enums with more values than this are replaced in the enum stage.
const MAX_ENUM_VALUES: usize = 64;
/// How many of their values the description names.
const ENUM_EXAMPLES: usize = 5;

/// Top-level descriptions are cut to this many bytes in the second
/// description stage.
const SHORT_DESCRIPTION_BYTES: usize = 160;

fn size(schema: &Value) -> usize {
    serde_json::to_vec(schema).map_or(0, |bytes| bytes.len())
}

/// `schema` (already sanitised) made to fit `limit` bytes as far as the
/// stages allow, and a finding when anything was done.
pub fn compact(schema: Value, limit: usize) -> (Value, Option<Finding>) {
    let before = size(&schema);
    if before <= limit {
        return (schema, None);
    }
    let mut schema = schema;
    let mut stages: Vec<String> = Vec::new();
    // 1. Descriptions.
    strip_descriptions(&mut schema, 0);
    stages.push("dropped nested descriptions".to_string());
    if size(&schema) > limit {
        shorten_top_descriptions(&mut schema);
        stages.push(format!(
            "cut top-level descriptions to {SHORT_DESCRIPTION_BYTES} bytes"
        ));
    }
    // 2. Long enums.
    if size(&schema) > limit && shorten_enums(&mut schema) {
        stages.push(format!(
            "replaced enums of over {MAX_ENUM_VALUES} values by a few examples in the description"
        ));
    }
    // 3. Refs.
    if size(&schema) > limit && schema.get("$defs").is_some() {
        let defs = schema
            .as_object_mut()
            .and_then(|m| m.remove("$defs"))
            .unwrap_or_default();
        replace_refs(&mut schema, &defs);
        stages.push("replaced `$ref`s by stubs of their type".to_string());
    }
    // 4. Depth.
    if size(&schema) > limit {
        let mut depth = max_depth(&schema);
        while depth > 1 && size(&schema) > limit {
            depth -= 1;
            cut_below(&mut schema, 0, depth);
        }
        stages.push(format!("cut nesting below depth {depth}"));
        drop_dangling_refs(&mut schema);
    }
    let after = size(&schema);
    let tail = if after > limit {
        " — still over the limit; the server should split this tool".to_string()
    } else {
        String::new()
    };
    let finding = Finding {
        pointer: String::new(),
        code: "schema-compacted",
        message: format!(
            "input schema is {} bytes compact (limit {}); compacted to {} bytes: {}{tail}",
            crate::rules::thousands(before),
            crate::rules::thousands(limit),
            crate::rules::thousands(after),
            stages.join(", "),
        ),
    };
    (super::sorted(schema), Some(finding))
}

/// Children of a node in the subset's structure, with the depth step.
fn children_mut(map: &mut Map<String, Value>) -> Vec<&mut Value> {
    let mut out = Vec::new();
    for (key, value) in map.iter_mut() {
        match key.as_str() {
            "properties" | "$defs" => {
                if let Value::Object(children) = value {
                    out.extend(children.values_mut());
                }
            }
            "items" | "additionalProperties" if value.is_object() => out.push(value),
            "anyOf" | "oneOf" | "allOf" => {
                if let Value::Array(list) = value {
                    out.extend(list.iter_mut());
                }
            }
            _ => {}
        }
    }
    out
}

/// Drop descriptions of nodes deeper than the top-level properties.
fn strip_descriptions(node: &mut Value, depth: usize) {
    let Value::Object(map) = node else { return };
    if depth >= 2 {
        map.remove("description");
    }
    for child in children_mut(map) {
        strip_descriptions(child, depth + 1);
    }
}

fn shorten_top_descriptions(schema: &mut Value) {
    let cut = |node: &mut Value| {
        if let Some(Value::String(text)) = node.get_mut("description") {
            if text.len() > SHORT_DESCRIPTION_BYTES {
                *text = super::cut_at_char_boundary(text, SHORT_DESCRIPTION_BYTES)
                    .trim_end()
                    .to_string();
            }
        }
    };
    cut(schema);
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        properties.values_mut().for_each(cut);
    }
}

/// Replace every `enum` of over [`MAX_ENUM_VALUES`] values by a note in
/// the node's description; whether any was.
fn shorten_enums(node: &mut Value) -> bool {
    let Value::Object(map) = node else {
        return false;
    };
    let mut changed = false;
    if let Some(Value::Array(values)) = map.get("enum") {
        if values.len() > MAX_ENUM_VALUES {
            let examples: Vec<String> = values
                .iter()
                .take(ENUM_EXAMPLES)
                .map(|v| {
                    let text = v.as_str().map_or_else(|| v.to_string(), str::to_string);
                    super::cut_at_char_boundary(&text, 40).to_string()
                })
                .collect();
            let note = format!(
                "One of {} values, such as {}.",
                crate::rules::thousands(values.len()),
                examples.join(", ")
            );
            let description = match map.get("description").and_then(Value::as_str) {
                Some(text) if !text.trim().is_empty() => format!("{} {note}", text.trim_end()),
                _ => note,
            };
            map.remove("enum");
            map.insert("description".to_string(), Value::String(description));
            changed = true;
        }
    }
    for child in children_mut(map) {
        changed |= shorten_enums(child);
    }
    changed
}

/// A schema of `node`'s type only, with the structure the type needs.
fn stub(node: &Value) -> Value {
    let Value::Object(map) = node else {
        return json!({});
    };
    let mut out = Map::new();
    for key in ["type", "description", "enum"] {
        if let Some(value) = map.get(key) {
            out.insert(key.to_string(), value.clone());
        }
    }
    let types = types_of(map);
    if types.contains(&"object") {
        out.insert("properties".to_string(), json!({}));
    }
    if types.contains(&"array") {
        out.insert("items".to_string(), json!({}));
    }
    Value::Object(out)
}

fn replace_refs(node: &mut Value, defs: &Value) {
    let Value::Object(map) = node else { return };
    if let Some(Value::String(reference)) = map.remove("$ref") {
        let target = reference
            .strip_prefix("#/$defs/")
            .and_then(|name| defs.get(name.replace("~1", "/").replace("~0", "~")));
        if let Some(Value::Object(stubbed)) = target.map(stub) {
            for (key, value) in stubbed {
                map.entry(key).or_insert(value);
            }
        }
    }
    for child in children_mut(map) {
        replace_refs(child, defs);
    }
}

fn max_depth(node: &Value) -> usize {
    let mut node = node.clone();
    let Value::Object(map) = &mut node else {
        return 0;
    };
    children_mut(map)
        .into_iter()
        .map(|child| 1 + max_depth(child))
        .max()
        .unwrap_or(0)
}

/// Every node at depth `limit` loses its children (kept as stubs of their
/// types one level down would still nest; so the node itself becomes a
/// stub).
fn cut_below(node: &mut Value, depth: usize, limit: usize) {
    if depth >= limit {
        let stubbed = stub(node);
        *node = stubbed;
        return;
    }
    if let Value::Object(map) = node {
        for child in children_mut(map) {
            cut_below(child, depth + 1, limit);
        }
    }
}

/// Remove the `$ref`s whose target a cut removed.
fn drop_dangling_refs(schema: &mut Value) {
    let snapshot = schema.clone();
    super::sanitize::walk_mut(schema, "", &mut |node, _| {
        if let Some(map) = node.as_object_mut() {
            let dangling = map.get("$ref").and_then(Value::as_str).is_some_and(|r| {
                r != "#"
                    && r.strip_prefix('#')
                        .is_none_or(|p| snapshot.pointer(p).is_none())
            });
            if dangling {
                map.remove("$ref");
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_enum_becomes_a_few_examples_and_the_schema_fits() {
        let values: Vec<String> = (0..100_000).map(|i| format!("value-{i}")).collect();
        let schema = json!({
            "type": "object",
            "properties": {
                "choice": {"type": "string", "description": "What to pick.", "enum": values},
                "small": {"type": "string", "enum": ["a", "b"]},
            },
        });
        let (compacted, finding) = compact(schema, MAX_SCHEMA_BYTES);
        assert!(size(&compacted) <= MAX_SCHEMA_BYTES, "{compacted}");
        let choice = &compacted["properties"]["choice"];
        assert!(choice.get("enum").is_none(), "{choice}");
        assert_eq!(
            choice["description"],
            "What to pick. One of 100,000 values, such as value-0, value-1, value-2, value-3, value-4."
        );
        assert_eq!(compacted["properties"]["small"]["enum"], json!(["a", "b"]));
        let message = finding.unwrap().message;
        assert!(
            message.contains("replaced enums of over 64 values"),
            "{message}"
        );
        assert!(!message.contains("still over the limit"), "{message}");
    }
}
