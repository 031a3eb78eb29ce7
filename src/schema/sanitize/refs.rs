//! References: local `$ref`s kept when they resolve, `$defs` no ref
//! reaches pruned, and the walks over a sanitised schema that find them.

use super::node::Sanitizer;
use super::types::decode;
use crate::schema::escape;
use serde_json::Value;

impl Sanitizer {
    /// Keep each local `$ref` that resolves (rewriting `definitions` to
    /// `$defs`); drop the others.
    pub(super) fn resolve_refs(&mut self, root: &mut Value) {
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
    pub(super) fn prune_definitions(&mut self, root: &mut Value) {
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

/// Every schema node of a sanitised schema (the subset's structure), with
/// its pointer, children before parents are visited.
pub(in crate::schema) fn walk_mut(
    node: &mut Value,
    pointer: &str,
    visit: &mut dyn FnMut(&mut Value, &str),
) {
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
pub(in crate::schema) fn refs_in(node: &Value) -> Vec<String> {
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
