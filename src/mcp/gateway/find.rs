//! The tool catalog the gateway serves and searches: every MCP server
//! namespace (`mcp-tools.json`) under the catalog's roots, loaded and
//! sanitised by `toolcat`.
//!
//! Interim: until the catalog holds tool entries itself (kind `tool`,
//! `Catalog::tool_servers`, search with a kind), this reads the snapshots
//! with `toolcat::load_namespace` and ranks with a small BM25 over a
//! tool's name words, title, description, parameter names and its
//! server. [`ToolSet::of`] and [`ToolSet::search`] are the two functions
//! to replace.

use crate::catalog::Catalog;
use crate::toolcat::{self, CatalogTool, ToolNamespace};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// How deep below a root snapshots are looked for.
const SNAPSHOT_DEPTH: usize = 8;

/// Every tool server of one catalog snapshot, and a search index over
/// their tools.
#[derive(Debug, Default)]
pub struct ToolSet {
    /// Sorted by name; the first snapshot of a name wins.
    pub servers: Vec<Arc<ToolNamespace>>,
    /// (server, tool) of each document.
    docs: Vec<(u32, u32)>,
    postings: HashMap<String, Vec<(u32, f32)>>,
    by_id: HashMap<String, (u32, u32)>,
    /// Tool names only one server has.
    by_name: HashMap<String, Option<(u32, u32)>>,
}

/// Field weights: name words, title, description and parameters, server.
const WEIGHTS: [f32; 4] = [3.0, 1.5, 1.0, 0.6];

impl ToolSet {
    /// The tool servers of `catalog`'s roots.
    pub fn of(catalog: &Catalog) -> ToolSet {
        let mut by_name: BTreeMap<String, Arc<ToolNamespace>> = BTreeMap::new();
        for path in toolcat::find_snapshots(catalog.roots(), SNAPSHOT_DEPTH) {
            if let Ok((namespace, _)) = toolcat::load_namespace(&path) {
                by_name
                    .entry(namespace.name.clone())
                    .or_insert_with(|| Arc::new(namespace));
            }
        }
        ToolSet::new(by_name.into_values().collect())
    }

    /// Index `servers` (sorted by name).
    pub fn new(servers: Vec<Arc<ToolNamespace>>) -> ToolSet {
        let mut set = ToolSet {
            servers,
            ..ToolSet::default()
        };
        let mut frequencies: HashMap<String, Vec<(u32, f32)>> = HashMap::new();
        for (s, server) in set.servers.iter().enumerate() {
            let server_text = format!("{} {}", server.name, server.description);
            for (t, tool) in server.tools.iter().enumerate() {
                let doc = set.docs.len() as u32;
                set.docs.push((s as u32, t as u32));
                set.by_id.insert(tool.id.clone(), (s as u32, t as u32));
                set.by_name
                    .entry(tool.name.clone())
                    .and_modify(|e| *e = None)
                    .or_insert(Some((s as u32, t as u32)));
                let fields = [
                    tool.name.clone(),
                    tool.title.clone().unwrap_or_default(),
                    format!("{} {}", tool.description, parameters(tool)),
                    server_text.clone(),
                ];
                let mut weights: HashMap<String, f32> = HashMap::new();
                for (field, text) in fields.iter().enumerate() {
                    for word in words(text) {
                        *weights.entry(word).or_default() += WEIGHTS[field];
                    }
                }
                for (word, weight) in weights {
                    // Saturate like BM25 (k1 = 1.2) so a repeated word
                    // does not drown the others.
                    let saturated = weight / (weight + 1.2);
                    frequencies.entry(word).or_default().push((doc, saturated));
                }
            }
        }
        set.postings = frequencies;
        set
    }

    pub fn tool_count(&self) -> usize {
        self.docs.len()
    }

    /// The tool `key` names: its id `server/tool`, or a tool name only one
    /// server has.
    pub fn get(&self, key: &str) -> Option<(&ToolNamespace, &CatalogTool)> {
        let (s, t) = self
            .by_id
            .get(key)
            .copied()
            .or_else(|| self.by_name.get(key).copied().flatten())?;
        let server = &self.servers[s as usize];
        Some((server, &server.tools[t as usize]))
    }

    pub fn server(&self, name: &str) -> Option<&ToolNamespace> {
        self.servers
            .binary_search_by(|s| s.name.as_str().cmp(name))
            .ok()
            .map(|i| self.servers[i].as_ref())
    }

    /// The best `limit` tools for `query`, best first: an exact id or
    /// unique tool name first, then by score (ties by id, so the order is
    /// deterministic). Empty when no tool shares a word with the query.
    pub fn search(&self, query: &str, limit: usize) -> Vec<(&ToolNamespace, &CatalogTool)> {
        let mut scores: HashMap<u32, f32> = HashMap::new();
        let total = self.docs.len().max(1) as f32;
        let mut seen = std::collections::HashSet::new();
        for word in words(query) {
            if !seen.insert(word.clone()) {
                continue;
            }
            let Some(postings) = self.postings.get(&word) else {
                continue;
            };
            let df = postings.len() as f32;
            let idf = (1.0 + (total - df + 0.5) / (df + 0.5)).ln();
            for &(doc, weight) in postings {
                *scores.entry(doc).or_default() += idf * weight;
            }
        }
        let exact = self.get(query.trim());
        let mut ranked: Vec<(u32, f32)> = scores.into_iter().collect();
        let id = |doc: u32| {
            let (s, t) = self.docs[doc as usize];
            self.servers[s as usize].tools[t as usize].id.as_str()
        };
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| id(a.0).cmp(id(b.0))));
        let mut out: Vec<(&ToolNamespace, &CatalogTool)> = Vec::with_capacity(limit);
        if let Some(hit) = exact {
            out.push(hit);
        }
        for (doc, _) in ranked {
            if out.len() >= limit {
                break;
            }
            let (s, t) = self.docs[doc as usize];
            let server = &self.servers[s as usize];
            let tool = &server.tools[t as usize];
            if !out.iter().any(|(_, o)| o.id == tool.id) {
                out.push((server, tool));
            }
        }
        out.truncate(limit);
        out
    }
}

/// The top-level parameter names and descriptions of a tool's schema.
fn parameters(tool: &CatalogTool) -> String {
    let mut text = String::new();
    if let Some(properties) = tool
        .input_schema
        .get("properties")
        .and_then(|p| p.as_object())
    {
        for (name, schema) in properties {
            text.push_str(name);
            text.push(' ');
            if let Some(description) = schema.get("description").and_then(|d| d.as_str()) {
                text.push_str(description);
                text.push(' ');
            }
        }
    }
    text
}

/// Lower-cased words of `text`: identifiers split at `_`, `-`, `.`, `/`
/// and case changes, a plural `s` dropped.
fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut previous_lower = false;
    let flush = |current: &mut String, out: &mut Vec<String>| {
        if !current.is_empty() {
            let mut word = std::mem::take(current);
            if word.len() > 3 && word.ends_with('s') && !word.ends_with("ss") {
                word.pop();
            }
            out.push(word);
        }
    };
    for c in text.chars() {
        if c.is_alphanumeric() {
            if c.is_uppercase() && previous_lower {
                flush(&mut current, &mut out);
            }
            previous_lower = c.is_lowercase() || c.is_ascii_digit();
            current.extend(c.to_lowercase());
        } else {
            previous_lower = false;
            flush(&mut current, &mut out);
        }
    }
    flush(&mut current, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(server: &str, name: &str, description: &str) -> CatalogTool {
        CatalogTool {
            name: name.to_string(),
            id: format!("{server}/{name}"),
            title: None,
            description: description.to_string(),
            input_schema: json!({"type": "object", "properties": {"query": {"type": "string"}}}),
            annotations: None,
            line: 1,
            column: 1,
        }
    }

    fn server(name: &str, tools: Vec<CatalogTool>) -> Arc<ToolNamespace> {
        Arc::new(ToolNamespace {
            name: name.to_string(),
            path: format!("/{name}/mcp-tools.json").into(),
            server_name: None,
            title: None,
            description: format!("The {name} server"),
            instructions: None,
            version: None,
            tools,
        })
    }

    #[test]
    fn words_split_identifiers() {
        assert_eq!(
            words("createIssue list_pull-requests"),
            ["create", "issue", "list", "pull", "request"]
        );
    }

    #[test]
    fn search_ranks_by_name_then_text_and_finds_exact_ids() {
        let set = ToolSet::new(vec![
            server(
                "calendar",
                vec![tool(
                    "calendar",
                    "create_event",
                    "Add an event to a calendar",
                )],
            ),
            server(
                "github",
                vec![
                    tool("github", "create_issue", "Open a new issue in a repository"),
                    tool("github", "list_issues", "List the issues of a repository"),
                ],
            ),
        ]);
        let ids = |query: &str| -> Vec<String> {
            set.search(query, 8)
                .into_iter()
                .map(|(_, t)| t.id.clone())
                .collect()
        };
        assert_eq!(ids("open an issue")[0], "github/create_issue");
        assert_eq!(ids("calendar event")[0], "calendar/create_event");
        assert_eq!(ids("github/list_issues")[0], "github/list_issues");
        assert_eq!(ids("list_issues")[0], "github/list_issues");
        assert!(ids("zebra quantum").is_empty());
        assert_eq!(set.search("issue", 1).len(), 1);
        assert_eq!(
            set.get("create_event").map(|(_, t)| t.id.as_str()),
            Some("calendar/create_event")
        );
    }
}
