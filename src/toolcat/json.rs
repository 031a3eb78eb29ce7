//! Tools and servers as JSON, the shape `list --json`, `show --json` and
//! the gateway print: `kind` first (`tool` or `server`), then the id.

use super::{CatalogTool, ToolNamespace};
use serde_json::{json, Value};

/// One tool's catalog entry; with `schema`, its sanitised input schema
/// and annotations too.
pub fn tool_json(server: &ToolNamespace, tool: &CatalogTool, schema: bool) -> Value {
    let mut value = json!({
        "kind": "tool",
        "id": tool.id,
        "server": server.name,
        "name": tool.name,
        "title": tool.title,
        "description": tool.description,
        "path": server.path,
        "line": tool.line,
        "column": tool.column,
    });
    if schema {
        value["input_schema"] = tool.input_schema.clone();
        value["annotations"] = tool.annotations.clone().unwrap_or(Value::Null);
    }
    value
}

/// One server: its description and, with `tools`, a line per tool.
pub fn server_json(server: &ToolNamespace, tools: bool) -> Value {
    let mut value = json!({
        "kind": "server",
        "name": server.name,
        "title": server.title,
        "description": server.description,
        "instructions": server.instructions,
        "version": server.version,
        "path": server.path,
        "tool_count": server.tools.len(),
    });
    if tools {
        value["tools"] = server
            .tools
            .iter()
            .map(|t| tool_json(server, t, false))
            .collect();
    }
    value
}
