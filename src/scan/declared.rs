//! Reading the MCP tools a skill declares it needs, in the forms the
//! ecosystem already writes them:
//!
//! - `allowed-tools` entries that name MCP tools the way Claude Code does:
//!   `mcp__server__tool`, or `mcp__server` (and `mcp__server__*`) for
//!   every tool of a server;
//! - `agents/openai.yaml` beside `SKILL.md` (Codex): each
//!   `dependencies.tools` entry of `type: mcp` names a server by `value`;
//! - skilldex's own `metadata: {mcp-tools: "server/tool server"}`: ids as
//!   the catalog writes them, separated by spaces or commas (`server` or
//!   `server/*` for every tool of it).
//!
//! Each declaration keeps where it was written; `crate::declared`
//! resolves them against the catalog's tool servers.

use crate::entry::{DeclaredTool, Position};

/// The `metadata` key skilldex reads declarations from.
pub const METADATA_KEY: &str = "mcp-tools";

/// Codex's sidecar file, relative to the skill folder.
pub const CODEX_FILE: &str = "agents/openai.yaml";

fn entries(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty())
}

/// The declarations in a skill's `allowed-tools` and `metadata`.
pub fn from_fields(
    allowed_tools: Option<&str>,
    allowed_position: Position,
    metadata: Option<&str>,
    metadata_position: Position,
    path: &std::path::Path,
) -> Vec<DeclaredTool> {
    let at = |server: &str, tool: Option<&str>, declared_in, position: Position| DeclaredTool {
        server: server.to_string(),
        tool: tool
            .filter(|t| !t.is_empty() && *t != "*")
            .map(str::to_string),
        declared_in,
        path: path.to_path_buf(),
        line: position.line,
        column: position.column,
    };
    let mut out = Vec::new();
    for entry in allowed_tools.map(entries).into_iter().flatten() {
        let Some(rest) = entry.strip_prefix("mcp__") else {
            continue;
        };
        let (server, tool) = match rest.split_once("__") {
            Some((server, tool)) => (server, Some(tool)),
            None => (rest, None),
        };
        if !server.is_empty() {
            out.push(at(server, tool, "allowed-tools", allowed_position));
        }
    }
    for entry in metadata.map(entries).into_iter().flatten() {
        let (server, tool) = match entry.split_once('/') {
            Some((server, tool)) => (server, Some(tool)),
            None => (entry, None),
        };
        if !server.is_empty() {
            out.push(at(server, tool, "metadata.mcp-tools", metadata_position));
        }
    }
    out
}

/// The servers `agents/openai.yaml` (its `text`, at `path`) declares.
/// A file that is not YAML or has no such entries declares nothing (Codex
/// owns the format; `lint` does not judge it).
pub fn from_codex_file(text: &str, path: &std::path::Path) -> Vec<DeclaredTool> {
    let Ok(value) = serde_yaml_ng::from_str::<serde_json::Value>(text) else {
        return Vec::new();
    };
    let Some(tools) = value
        .get("dependencies")
        .and_then(|d| d.get("tools"))
        .and_then(|t| t.as_array())
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut searched = 0;
    for entry in tools {
        let kind = entry.get("type").and_then(|t| t.as_str());
        let Some(server) = entry.get("value").and_then(|v| v.as_str()) else {
            continue;
        };
        if kind.is_some_and(|k| !k.eq_ignore_ascii_case("mcp")) || server.trim().is_empty() {
            continue;
        }
        let server = server.trim();
        // The line that names it (the YAML reader keeps no positions of
        // values): the next `value:` line, after the previous one found,
        // whose value is the name.
        let (line, column) = text
            .lines()
            .enumerate()
            .skip(searched)
            .find_map(|(i, l)| {
                let at = l.find("value:")?;
                let value = l[at + "value:".len()..].split(" #").next()?;
                let value = value.trim().trim_end_matches(['}', ',']).trim();
                (value.trim_matches(['"', '\'']) == server).then_some((i + 1, at + 1))
            })
            .unwrap_or((1, 1));
        if line > 1 {
            searched = line;
        }
        out.push(DeclaredTool {
            server: server.to_string(),
            tool: None,
            declared_in: CODEX_FILE,
            path: path.to_path_buf(),
            line: u32::try_from(line).unwrap_or(u32::MAX),
            column: u32::try_from(column).unwrap_or(u32::MAX),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn declarations_are_read_from_every_form() {
        let found = from_fields(
            Some("Read Bash(git:*) mcp__github__create_issue, mcp__sentry mcp__lab__*"),
            Position {
                line: 4,
                column: 16,
            },
            Some("lab/echo office"),
            Position { line: 6, column: 3 },
            Path::new("s/SKILL.md"),
        );
        let ids: Vec<(String, &str, u32)> = found
            .iter()
            .map(|d| (d.id(), d.declared_in, d.line))
            .collect();
        assert_eq!(
            ids,
            [
                ("github/create_issue".to_string(), "allowed-tools", 4),
                ("sentry".to_string(), "allowed-tools", 4),
                ("lab".to_string(), "allowed-tools", 4),
                ("lab/echo".to_string(), "metadata.mcp-tools", 6),
                ("office".to_string(), "metadata.mcp-tools", 6),
            ]
        );
        let codex = "interface:\n  display_name: X\ndependencies:\n  tools:\n    - type: \"mcp\"\n      value: \"releaseApi\"\n    - type: env_var\n      value: TOKEN\n";
        let found = from_codex_file(codex, Path::new("s/agents/openai.yaml"));
        assert_eq!(found.len(), 1);
        assert_eq!(
            (found[0].id(), found[0].line, found[0].column),
            ("releaseApi".to_string(), 6, 7)
        );
        assert!(from_codex_file(": : not yaml [", Path::new("x")).is_empty());
        // Each entry at its own line, even when one name is part of another.
        let codex = "dependencies:\n  tools:\n    - {type: mcp, value: laboratory}\n    - type: mcp\n      value: 'lab' # the bench\n";
        let found = from_codex_file(codex, Path::new("x"));
        let at: Vec<(String, u32)> = found.iter().map(|d| (d.id(), d.line)).collect();
        assert_eq!(at, [("laboratory".to_string(), 3), ("lab".to_string(), 5)]);
    }
}
