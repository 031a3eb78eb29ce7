//! The MCP tools a skill declares it needs (read by the scan, see
//! `scan/declared.rs`: `allowed-tools` `mcp__server__tool`,
//! `metadata.mcp-tools`, Codex's `agents/openai.yaml`), resolved against
//! the catalog's tool servers ([`resolve`]): `lint` reports those it
//! cannot find ([`diagnostics`]), `show` and `read` list them, and `serve`
//! appends a read skill's tools to the agent's tool list.

pub use crate::entry::DeclaredTool;
use crate::entry::Skill;

/// What a declaration found in the catalog.
#[derive(Debug, Clone, PartialEq)]
pub enum Resolved {
    /// The tool ids it names (one, or every tool of a server).
    Tools(Vec<String>),
    /// The server has no tool of that name; similar ids.
    NoSuchTool(Vec<String>),
    /// No tool server of that name is in the catalog.
    NoSuchServer,
}

impl Resolved {
    /// What the catalog has of `declared`, in words: "in the catalog",
    /// "12 tools in the catalog", "`lab` has no such tool", "no tool
    /// catalog of this server".
    pub fn status(&self, declared: &DeclaredTool) -> String {
        match self {
            Resolved::Tools(ids) if declared.tool.is_none() => {
                format!("{} tools in the catalog", ids.len())
            }
            Resolved::Tools(_) => "in the catalog".to_string(),
            Resolved::NoSuchTool(_) => format!("`{}` has no such tool", declared.server),
            Resolved::NoSuchServer => "no tool catalog of this server".to_string(),
        }
    }
}

/// Resolve each of `skill`'s declarations against `catalog`'s tools.
pub fn resolve<'a>(
    skill: &'a Skill,
    catalog: &crate::catalog::Catalog,
) -> Vec<(&'a DeclaredTool, Resolved)> {
    skill
        .declared_tools
        .iter()
        .map(|declared| {
            let resolved = match catalog.tool_server(&declared.server) {
                None => Resolved::NoSuchServer,
                Some(server) => match &declared.tool {
                    None => Resolved::Tools(server.tools.iter().map(|t| t.id.clone()).collect()),
                    Some(tool) => match server.tools.iter().find(|t| &t.name == tool) {
                        Some(found) => Resolved::Tools(vec![found.id.clone()]),
                        None => Resolved::NoSuchTool(
                            catalog
                                .similar_tools(&declared.id(), 3)
                                .into_iter()
                                .map(str::to_string)
                                .collect(),
                        ),
                    },
                },
            };
            (declared, resolved)
        })
        .collect()
}

/// The lint findings about `catalog`'s declarations: a tool its server
/// does not have (warning), a server with no tool catalog (info).
pub fn diagnostics(catalog: &crate::catalog::Catalog) -> Vec<crate::entry::Diagnostic> {
    use crate::entry::{Code, Diagnostic};
    let mut out = Vec::new();
    for skill in catalog.skills() {
        for (declared, resolved) in resolve(skill, catalog) {
            let (code, message) = match resolved {
                Resolved::Tools(_) => continue,
                Resolved::NoSuchTool(similar) => (
                    Code::DeclaredToolUnknown,
                    format!(
                        "`{}` (in {}): the server `{}` has no tool `{}`{} — fix the name, or run `skilldex tools sync` if the server gained it",
                        declared.id(),
                        declared.declared_in,
                        declared.server,
                        declared.tool.as_deref().unwrap_or_default(),
                        if similar.is_empty() {
                            String::new()
                        } else {
                            format!("; did you mean {}?", similar.join(", "))
                        }
                    ),
                ),
                Resolved::NoSuchServer => (
                    Code::DeclaredServerUnknown,
                    format!(
                        "`{}` (in {}): no MCP server `{}` has a tool catalog here, so the skill's tools cannot be loaded with it — add the server to `mcp_servers` and run `skilldex tools sync`",
                        declared.id(),
                        declared.declared_in,
                        declared.server
                    ),
                ),
            };
            if let Some(severity) = code.severity(catalog.profile()) {
                out.push(Diagnostic {
                    path: declared.path.clone(),
                    line: declared.line,
                    column: declared.column,
                    severity,
                    code,
                    message,
                });
            }
        }
    }
    out
}
