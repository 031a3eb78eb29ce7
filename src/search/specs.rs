//! Tool definitions of catalog tools for hosts: OpenAI Responses-API
//! functions (grouped in `namespace` tools, `defer_loading: true` when a
//! search offers them) and MCP `tools/list` entries. Every `parameters` /
//! `inputSchema` is the sanitised schema, so it passes
//! [`crate::schema::validate_subset`].

use super::output::{cap_description, function_name};
use crate::toolcat::{CatalogTool, ToolNamespace};
use serde_json::{json, Value};

/// The function name a host accepts for `tool` (its own when it fits
/// `[A-Za-z0-9_-]{1,64}`, else a readable form with a hash).
pub fn openai_function_name(tool: &CatalogTool) -> String {
    function_name(&tool.name, "tool")
}

/// The namespace name for `server`.
pub fn openai_namespace_name(server: &ToolNamespace) -> String {
    function_name(&server.name, "server")
}

/// One tool as a Responses-API function; `defer` marks it
/// `defer_loading: true` (its schema loads when the model searches for it).
pub fn openai_function(tool: &CatalogTool, defer: bool) -> Value {
    let mut value = json!({
        "type": "function",
        "name": openai_function_name(tool),
        "description": cap_description(&tool.description, "A tool."),
        "parameters": tool.input_schema,
    });
    if defer {
        value["defer_loading"] = json!(true);
    }
    value
}

/// A Responses-API `namespace` tool holding `tools` of `server`.
pub fn openai_namespace(server: &ToolNamespace, tools: Vec<Value>) -> Value {
    json!({
        "type": "namespace",
        "name": openai_namespace_name(server),
        "description": cap_description(&server.description, "A group of tools."),
        "tools": tools,
    })
}

/// One tool as an MCP `tools/list` entry, as `serve` lists it once loaded
/// (the sanitised input schema; the server's annotations kept; `_meta`
/// with the server's search hint and, when `always_load` — a pinned tool
/// — `anthropic/alwaysLoad`).
pub fn mcp_tool(tool: &CatalogTool, always_load: bool) -> Value {
    let mut value = json!({
        "name": tool.name,
        "description": tool.description,
        "inputSchema": tool.input_schema,
    });
    if let Some(title) = &tool.title {
        value["title"] = json!(title);
    }
    if let Some(annotations @ Value::Object(_)) = &tool.annotations {
        value["annotations"] = annotations.clone();
    }
    if let Some(meta) = crate::toolcat::hint_meta(tool.search_hint.as_deref(), always_load) {
        value["_meta"] = meta;
    }
    value
}
