//! Tool catalogs on disk: MCP servers' tool lists as `mcp-tools.json`
//! snapshots beside skills (DESIGN §13).
//!
//! A folder holding `mcp-tools.json` is an MCP server namespace. This
//! module owns the file (reading it with diagnostics that name
//! `file:line:column`, writing it byte-stable and atomically), loading it
//! as a [`ToolNamespace`] whose tools have sanitised input schemas (every
//! repair a diagnostic with the tool and the JSON Pointer), and the server
//! configurations a sync starts (`mcp_servers` of `skilldex.yaml`, and
//! imports from `.mcp.json`, `.cursor/mcp.json` and Codex's
//! `config.toml`).
//!
//! It does not talk to servers (that is `mcp::upstream`, behind the `mcp`
//! feature) and it does not build catalog entries, search or render them:
//! those read a [`ToolNamespace`] and never the file.

mod json;
mod namespace;
mod position;
pub mod servers;
mod snapshot;

pub use json::{server_json, tool_json};
pub use namespace::{
    hint_meta, load_namespace, load_namespace_text, override_text, CatalogTool, ToolNamespace,
    MAX_OVERRIDE_BYTES,
};
pub use position::Positions;
pub use snapshot::{
    snapshot_bytes, write_atomically, SnapshotDiagnostic, SnapshotError, SNAPSHOT_FILE,
};
