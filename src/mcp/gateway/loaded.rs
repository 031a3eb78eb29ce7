//! The tools a session has loaded: what `tool_search` appended to
//! skilldex's own `tools/list`, under callable names.
//!
//! The list only grows. An entry keeps its place, its name and the
//! definition it was loaded with for the rest of the session, even when
//! the catalog changes under it: prompt caches live on stable prefixes
//! (the seeds' rule: append new schemas at the end, never insert, reorder
//! or remove). A changed upstream schema is noticed by comparing the
//! catalog's current schema with the frozen one (see [`Loaded::changed`]).
//!
//! Callable names are `server__tool` with every character outside
//! `[A-Za-z0-9_-]` turned into `_`, within the 64 characters hosts allow.
//! When that spelling loses information (a character replaced, a cut) or
//! is already taken, the name ends with `_` and eight hex digits of a
//! stable hash of the id instead, so two ids never share a name and the
//! same id gets the same name in every session.

use crate::hash::StableHasher;
use serde_json::Value;
use std::collections::HashMap;

/// The longest tool name clients accept (OpenAI, Claude and Gemini
/// function names).
pub const MAX_NAME: usize = 64;

/// One loaded tool.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedTool {
    /// The callable name in skilldex's `tools/list`.
    pub name: String,
    /// The catalog id, `server/tool`.
    pub id: String,
    /// The upstream server (the namespace's name).
    pub server: String,
    /// The tool's name as the upstream server calls it.
    pub tool: String,
    /// The definition as listed, frozen at load time (`name`,
    /// `description`, `inputSchema`, …).
    pub definition: Value,
    /// Listed from the start (`pinned_tools`, or `anthropic/alwaysLoad`),
    /// not loaded by a search or a skill.
    pub pinned: bool,
}

/// The session's loaded tools, in load order.
#[derive(Debug, Default)]
pub struct Loaded {
    entries: Vec<LoadedTool>,
    by_name: HashMap<String, usize>,
    by_id: HashMap<String, usize>,
}

impl Loaded {
    pub fn entries(&self) -> &[LoadedTool] {
        &self.entries
    }

    pub fn by_name(&self, name: &str) -> Option<&LoadedTool> {
        self.by_name.get(name).map(|&i| &self.entries[i])
    }

    pub fn by_id(&self, id: &str) -> Option<&LoadedTool> {
        self.by_id.get(id).map(|&i| &self.entries[i])
    }

    /// Load `id` (a no-op when it is loaded already): `definition` gets
    /// its callable name as `name` and is appended. `reserved` names are
    /// never given out (skilldex's own tools). Returns the entry and
    /// whether it is new.
    pub fn load(
        &mut self,
        id: &str,
        server: &str,
        tool: &str,
        mut definition: Value,
        reserved: &dyn Fn(&str) -> bool,
    ) -> (&LoadedTool, bool) {
        if let Some(&index) = self.by_id.get(id) {
            return (&self.entries[index], false);
        }
        let taken = |name: &str| self.by_name.contains_key(name) || reserved(name);
        let name = callable_name(server, tool, id, &taken);
        if let Value::Object(map) = &mut definition {
            map.insert("name".to_string(), Value::String(name.clone()));
        }
        let index = self.entries.len();
        self.entries.push(LoadedTool {
            name: name.clone(),
            id: id.to_string(),
            server: server.to_string(),
            tool: tool.to_string(),
            definition,
            pinned: false,
        });
        self.by_name.insert(name, index);
        self.by_id.insert(id.to_string(), index);
        (&self.entries[index], true)
    }

    /// Mark the loaded `id` as pinned (listed from the start).
    pub fn mark_pinned(&mut self, id: &str) {
        if let Some(&index) = self.by_id.get(id) {
            self.entries[index].pinned = true;
        }
    }

    /// Whether the catalog's `input_schema` for a loaded `id` differs from
    /// the one it was loaded with (`None` when `id` is not loaded).
    pub fn changed(&self, id: &str, input_schema: &Value) -> Option<bool> {
        self.by_id(id)
            .map(|entry| entry.definition.get("inputSchema") != Some(input_schema))
    }
}

/// The callable name of `server`'s `tool` (id `id`); see the module docs.
pub fn callable_name(server: &str, tool: &str, id: &str, taken: &dyn Fn(&str) -> bool) -> String {
    let plain = format!("{server}__{tool}");
    let mut lossy = false;
    let mut name: String = plain
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                lossy = true;
                '_'
            }
        })
        .collect();
    if !lossy && name.len() <= MAX_NAME && !taken(&name) {
        return name;
    }
    let mut hasher = StableHasher::new();
    hasher.write(id.as_bytes());
    let mut hash = hasher.finish();
    // `_` and 8 hex digits; the rest is the readable part.
    name.truncate(MAX_NAME - 9);
    loop {
        let candidate = format!("{name}_{:08x}", hash as u32);
        if !taken(&candidate) {
            return candidate;
        }
        // Two ids whose hashes share 32 bits: step on, deterministically.
        hash = hash.rotate_left(13).wrapping_add(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn none(_: &str) -> bool {
        false
    }

    #[test]
    fn plain_names_join_server_and_tool() {
        assert_eq!(
            callable_name("github", "create_issue", "github/create_issue", &none),
            "github__create_issue"
        );
    }

    #[test]
    fn lossy_or_long_names_end_with_a_stable_hash() {
        let dotted = callable_name("fs", "read.file", "fs/read.file", &none);
        let underscored = callable_name("fs", "read_file", "fs/read_file", &none);
        assert_ne!(dotted, underscored, "two ids never share a name");
        assert!(
            dotted.starts_with("fs__read_file_") && dotted.len() == 22,
            "{dotted}"
        );
        assert_eq!(
            dotted,
            callable_name("fs", "read.file", "fs/read.file", &none)
        );
        let long = "x".repeat(80);
        let name = callable_name("server", &long, &format!("server/{long}"), &none);
        assert_eq!(name.len(), MAX_NAME, "{name}");
        assert!(name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'));
    }

    #[test]
    fn a_taken_name_is_never_given_out_again() {
        let mut loaded = Loaded::default();
        // `a__b` + `c` and `a` + `b__c` spell the same plain name.
        let first = loaded
            .load("a__b/c", "a__b", "c", json!({}), &none)
            .0
            .name
            .clone();
        let second = loaded
            .load("a/b__c", "a", "b__c", json!({}), &none)
            .0
            .name
            .clone();
        assert_eq!(first, "a__b__c");
        assert_ne!(first, second);
        assert!(second.starts_with("a__b__c_"), "{second}");
        let reserved = |n: &str| n == "x__y";
        assert_ne!(
            loaded.load("x/y", "x", "y", json!({}), &reserved).0.name,
            "x__y"
        );
    }

    #[test]
    fn loading_again_keeps_the_first_definition_and_place() {
        let mut loaded = Loaded::default();
        loaded.load(
            "s/a",
            "s",
            "a",
            json!({"inputSchema": {"type": "object"}}),
            &none,
        );
        loaded.load("s/b", "s", "b", json!({}), &none);
        let (entry, new) = loaded.load(
            "s/a",
            "s",
            "a",
            json!({"inputSchema": {"type": "string"}}),
            &none,
        );
        assert!(!new);
        assert_eq!(entry.definition["inputSchema"], json!({"type": "object"}));
        assert_eq!(entry.definition["name"], json!("s__a"));
        assert_eq!(loaded.entries()[0].id, "s/a");
        assert_eq!(
            loaded.changed("s/a", &json!({"type": "string"})),
            Some(true)
        );
        assert_eq!(
            loaded.changed("s/a", &json!({"type": "object"})),
            Some(false)
        );
        assert_eq!(loaded.changed("s/zzz", &json!({})), None);
    }
}
