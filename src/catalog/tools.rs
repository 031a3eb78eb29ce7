//! Tool servers in the catalog: the `mcp-tools.json` snapshots the scan
//! loaded, put in precedence order, described, and looked up.
//!
//! Each snapshot folder is one MCP server namespace named after the folder;
//! its tools are catalog entries of kind `tool` with id `server/tool`.
//! Precedence is the skills': the earlier root, then a folder outside
//! hidden folders, then the shallower, then the first by path keeps a
//! server name; a later folder of the same name is left out with a
//! `name-shadowed` warning naming the winner. A server's description and
//! title come, in this order, from the front matter of the folder's
//! `README.md` (`description`, `name`), then the snapshot's `server`
//! object, then the first line of its instructions, then a default naming
//! it (see `toolcat::load_namespace`).

use super::Catalog;
use crate::entry::{Diagnostic, Severity};
use crate::scan::{FoundNamespaceFile, FoundToolCatalog};
use crate::toolcat::{CatalogTool, SnapshotDiagnostic, ToolNamespace};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What a catalog holds of tool catalogs: the servers that won, every
/// snapshot file, and the detailed findings (tool and JSON Pointer) behind
/// their catalog diagnostics.
#[derive(Debug, Default)]
pub(crate) struct ToolPart {
    /// Sorted by name.
    pub servers: Vec<Arc<ToolNamespace>>,
    /// Every snapshot file found, sorted by path.
    pub files: Vec<ToolCatalogFile>,
    /// The findings of the files, in catalog-diagnostic order.
    pub details: Vec<SnapshotDiagnostic>,
    /// Every tool as (server, tool) indices, servers by name: what
    /// [`Catalog::tool_at`] indexes (search hits point here).
    pub flat: Vec<(u32, u32)>,
    /// Stands for all of it in the revision.
    pub hash: u64,
    /// The configured descriptions (by tool id) applied to the servers,
    /// kept to apply them again to servers laid over this part.
    pub descriptions: Arc<std::collections::BTreeMap<String, String>>,
}

/// One `mcp-tools.json` found under the roots.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ToolCatalogFile {
    pub path: PathBuf,
    /// The server it loaded as (`None` when it does not load, or when a
    /// server of the same name takes precedence).
    pub server: Option<String>,
    /// Its tools that loaded.
    pub tools: usize,
    /// The server is the last good version of a file that no longer
    /// loads (live catalogs only).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub stale: bool,
}

/// The servers of the found snapshots; every snapshot's findings go to
/// `diagnostics` too.
pub(crate) fn tool_part_of(
    found: &[&FoundToolCatalog],
    readmes: &[&FoundNamespaceFile],
    descriptions: &std::collections::BTreeMap<String, String>,
    diagnostics: &mut Vec<Diagnostic>,
) -> ToolPart {
    let mut part = ToolPart {
        descriptions: Arc::new(descriptions.clone()),
        ..ToolPart::default()
    };
    if found.is_empty() {
        return part;
    }
    let mut found: Vec<&FoundToolCatalog> = found.to_vec();
    crate::scan::precedence::by_precedence(&mut found);
    // The README front matter of each folder (a README whose front matter
    // sets a description).
    let readme_of: HashMap<(usize, &Path), &FoundNamespaceFile> = readmes
        .iter()
        .filter(|f| !f.plugin && f.description.is_some())
        .map(|f| ((f.root, f.folder.as_path()), *f))
        .collect();
    let mut hash = crate::hash::StableHasher::new();
    let mut winners: HashMap<String, &Path> = HashMap::new();
    for file in found {
        let readme = readme_of.get(&(file.root, file.folder.as_path())).copied();
        let mut entry = ToolCatalogFile {
            path: file.path.clone(),
            server: None,
            tools: 0,
            stale: false,
        };
        for finding in &file.diagnostics {
            // A README that describes the server answers the default's note.
            if readme.is_some() && finding.code == "server-description-default" {
                continue;
            }
            part.details.push(finding.clone());
        }
        hash.write(file.path.as_os_str().as_encoded_bytes());
        hash.write(&file.content_hash.to_le_bytes());
        let Some(namespace) = &file.namespace else {
            part.files.push(entry);
            continue;
        };
        if file.stale {
            entry.stale = true;
            part.details.push(SnapshotDiagnostic {
                path: file.path.clone(),
                line: 1,
                column: 1,
                severity: Severity::Warning,
                code: "snapshot-stale",
                tool: None,
                pointer: String::new(),
                message: format!(
                    "this file no longer loads (see its error), so the last version that did is still served: server `{}` with {} — fix the file or write it again with `skilldex tools sync`; deleting it removes the server",
                    namespace.name,
                    crate::text::plural(namespace.tools.len(), "tool", "tools"),
                ),
            });
        }
        if let Some(winner) = winners.get(&namespace.name) {
            part.details.push(SnapshotDiagnostic {
                path: file.path.clone(),
                line: 1,
                column: 1,
                severity: Severity::Warning,
                code: "name-shadowed",
                tool: None,
                pointer: String::new(),
                message: format!(
                    "`{}` is also the name of the tool server at {}, which takes precedence; this server's {} are left out — rename this folder to make both reachable",
                    namespace.name,
                    winner.display(),
                    crate::text::plural(namespace.tools.len(), "tool", "tools"),
                ),
            });
            part.files.push(entry);
            continue;
        }
        winners.insert(namespace.name.clone(), &file.path);
        entry.server = Some(namespace.name.clone());
        entry.tools = namespace.tools.len();
        part.files.push(entry);
        let mut namespace = namespace.clone();
        if let Some(readme) = readme {
            let server = Arc::make_mut(&mut namespace);
            if let Some(description) = &readme.description {
                server.description = description.clone();
            }
            if let Some(name) = &readme.name {
                server.title = Some(name.clone());
            }
            hash.write(readme.path.as_os_str().as_encoded_bytes());
            hash.write(server.description.as_bytes());
            hash.write(server.title.as_deref().unwrap_or("").as_bytes());
        }
        override_descriptions(&mut namespace, descriptions, &mut hash);
        part.servers.push(namespace);
    }
    part.servers.sort_by(|a, b| a.name.cmp(&b.name));
    part.flat = part
        .servers
        .iter()
        .enumerate()
        .flat_map(|(s, server)| (0..server.tools.len()).map(move |t| (s as u32, t as u32)))
        .collect();
    part.files.sort_by(|a, b| a.path.cmp(&b.path));
    part.details.sort_by(|a, b| {
        (&a.path, a.line, a.column, a.code, &a.message)
            .cmp(&(&b.path, b.line, b.column, b.code, &b.message))
    });
    diagnostics.extend(part.details.iter().map(SnapshotDiagnostic::to_diagnostic));
    part.hash = hash.finish();
    part
}

/// The descriptions of `descriptions` (by tool id) in place of the
/// server's, each trimmed and cut to [`crate::toolcat::MAX_OVERRIDE_BYTES`];
/// an empty one is left out (lint says so).
fn override_descriptions(
    namespace: &mut Arc<ToolNamespace>,
    descriptions: &std::collections::BTreeMap<String, String>,
    hash: &mut crate::hash::StableHasher,
) {
    let prefix = format!("{}/", namespace.name);
    let ours = descriptions
        .range(prefix.clone()..)
        .take_while(|(id, _)| id.starts_with(&prefix));
    for (id, text) in ours {
        let Some(text) = crate::toolcat::override_text(text) else {
            continue;
        };
        let Some(index) = namespace.tools.iter().position(|t| &t.id == id) else {
            continue;
        };
        hash.write(id.as_bytes());
        hash.write(text.as_bytes());
        Arc::make_mut(namespace).tools[index].description = text;
    }
}

/// The library's view of tools, for search, render and the gateway.
impl Catalog {
    /// Every MCP tool server (a folder holding `mcp-tools.json`), sorted by
    /// name; each holds its tools with sanitised input schemas.
    pub fn tool_servers(&self) -> &[Arc<ToolNamespace>] {
        &self.tools.servers
    }

    /// The tool server named `name` (its folder's name).
    pub fn tool_server(&self, name: &str) -> Option<&ToolNamespace> {
        let servers = &self.tools.servers;
        servers
            .binary_search_by(|s| s.name.as_str().cmp(name))
            .ok()
            .map(|i| &*servers[i])
    }

    /// The tool `key` names: its id `server/tool`, or a tool name that only
    /// one server has.
    pub fn tool(&self, key: &str) -> Option<&CatalogTool> {
        self.tool_entry(key).map(|(_, tool)| tool)
    }

    /// Like [`Catalog::tool`], with the tool's server.
    pub fn tool_entry(&self, key: &str) -> Option<(&ToolNamespace, &CatalogTool)> {
        let key = key.trim().trim_matches('/');
        if let Some((server, name)) = key.split_once('/') {
            if let Some(server) = self.tool_server(server) {
                if let Some(tool) = server.tools.iter().find(|t| t.name == name) {
                    return Some((server, tool));
                }
            }
        }
        let mut named = self.tools().filter(|(_, tool)| tool.name == key);
        match (named.next(), named.next()) {
            (Some(only), None) => Some(only),
            _ => None,
        }
    }

    /// Every tool with its server: servers by name, tools in their
    /// snapshot's order.
    pub fn tools(&self) -> impl Iterator<Item = (&ToolNamespace, &CatalogTool)> {
        self.tools
            .servers
            .iter()
            .flat_map(|server| server.tools.iter().map(move |tool| (&**server, tool)))
    }

    /// The tool at `index` of [`Catalog::tools`]' order (what a search
    /// hit of kind `tool` points at), with its server.
    pub fn tool_at(&self, index: usize) -> Option<(&ToolNamespace, &CatalogTool)> {
        let &(server, tool) = self.tools.flat.get(index)?;
        let server = &self.tools.servers[server as usize];
        Some((server, &server.tools[tool as usize]))
    }

    /// How many tools the servers hold.
    pub fn tool_count(&self) -> usize {
        self.tools.flat.len()
    }

    /// Tool ids that look like `key`, for "did you mean" answers.
    pub fn similar_tools(&self, key: &str, limit: usize) -> Vec<&str> {
        let key = key.to_lowercase();
        let mut scored: Vec<(usize, &str)> = self
            .tools()
            .map(|(_, tool)| {
                let id = tool.id.to_lowercase();
                let name = tool.name.to_lowercase();
                let distance = crate::text::edit_distance(&key, &id)
                    .min(crate::text::edit_distance(&key, &name));
                (distance, tool.id.as_str())
            })
            .filter(|(d, id)| {
                *d <= 3.max(key.chars().count() / 3) || id.to_lowercase().contains(&key)
            })
            .collect();
        scored.sort();
        scored.into_iter().take(limit).map(|(_, id)| id).collect()
    }

    /// Every `mcp-tools.json` found under the roots, sorted by path.
    pub fn tool_catalog_files(&self) -> &[ToolCatalogFile] {
        &self.tools.files
    }

    /// The findings about tool catalogs with their tool and JSON Pointer
    /// (each is also in [`Catalog::diagnostics`], under a `Code::Tool`).
    pub fn tool_findings(&self) -> &[SnapshotDiagnostic] {
        &self.tools.details
    }

    /// This snapshot with `servers` in place of its tool servers of the
    /// same names (or beside them): what the gateway searches right after
    /// it rewrote snapshots itself, before the watcher has reloaded them.
    /// A replaced server keeps the title and description the catalog gave
    /// it (a README's front matter may set them). Skills are shared.
    pub fn with_tool_servers(&self, servers: &[Arc<ToolNamespace>]) -> Catalog {
        let mut by_name: std::collections::BTreeMap<String, Arc<ToolNamespace>> = self
            .tools
            .servers
            .iter()
            .map(|s| (s.name.clone(), Arc::clone(s)))
            .collect();
        let mut hash = crate::hash::StableHasher::new();
        hash.write(&self.tools.hash.to_le_bytes());
        for server in servers {
            let mut server = Arc::clone(server);
            if let Some(old) = by_name.get(&server.name) {
                if old.description != server.description || old.title != server.title {
                    let mut renamed = (*server).clone();
                    renamed.description = old.description.clone();
                    renamed.title = old.title.clone();
                    server = Arc::new(renamed);
                }
            }
            // The configuration's descriptions hold for a rewritten
            // snapshot as for the one it replaces.
            override_descriptions(&mut server, &self.tools.descriptions, &mut hash);
            hash.write(server.name.as_bytes());
            for tool in &server.tools {
                hash.write(tool.id.as_bytes());
                hash.write(tool.description.as_bytes());
                hash.write(tool.input_schema.to_string().as_bytes());
                hash.write(&[u8::from(tool.always_load)]);
                hash.write(tool.search_hint.as_deref().unwrap_or("").as_bytes());
            }
            by_name.insert(server.name.clone(), server);
        }
        let servers: Vec<Arc<ToolNamespace>> = by_name.into_values().collect();
        let flat = servers
            .iter()
            .enumerate()
            .flat_map(|(s, server)| (0..server.tools.len()).map(move |t| (s as u32, t as u32)))
            .collect();
        let part = ToolPart {
            servers,
            files: self.tools.files.clone(),
            details: self.tools.details.clone(),
            flat,
            hash: hash.finish(),
            descriptions: Arc::clone(&self.tools.descriptions),
        };
        let mut catalog = self.clone();
        catalog.tools = Arc::new(part);
        let mut revision = crate::hash::StableHasher::new();
        revision.write(self.revision.as_bytes());
        revision.write(&catalog.tools.hash.to_le_bytes());
        catalog.revision = revision.finish_hex();
        catalog
    }

    /// This snapshot holding the tool catalogs of `part`.
    pub(crate) fn with_tools(mut self, part: Arc<ToolPart>) -> Catalog {
        if part.files.is_empty() && self.tools.files.is_empty() {
            return self;
        }
        let mut revision = crate::hash::StableHasher::new();
        revision.write(self.revision.as_bytes());
        revision.write(&part.hash.to_le_bytes());
        self.revision = revision.finish_hex();
        self.tools = part;
        self
    }
}
