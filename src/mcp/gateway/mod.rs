//! The gateway: skilldex in front of the MCP servers of `mcp_servers`
//! (DESIGN §14).
//!
//! The model keeps skilldex's few tools plus `tool_search`. When it
//! notices a gap it searches in its own words; the tools found are loaded:
//! appended to skilldex's own `tools/list` under callable names
//! (`server__tool`, see [`loaded`]) and announced with
//! `notifications/tools/list_changed`. Within a session that list only
//! grows, and a loaded tool keeps its place and schema, so prompt caches
//! keep hitting. A call of a loaded tool is proxied to its server through
//! the [`pool`]; `call_tool {tool, arguments}` runs any catalog tool by id
//! for clients that never list again.
//!
//! Skills are not in `tool_search`: a hit there is loaded (it changes the
//! tool list), which a skill cannot be, and a skill is read, not called —
//! `search_skills` finds those. Keeping the two apart also keeps the eight
//! places of a tool search for tools.
//!
//! This module holds no rmcp server types: `server/gateway.rs` wires it
//! into the handler.

pub mod arguments;
mod declared;
pub mod find;
pub mod loaded;
pub mod pool;

use crate::catalog::Catalog;
use crate::search::Searchable;
use crate::toolcat::servers::ConfiguredServer;
use crate::toolcat::{CatalogTool, ToolNamespace};
use find::ToolCatalog;
use loaded::Loaded;
use pool::Pool;
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

pub const TOOL_SEARCH: &str = "tool_search";
pub const CALL_TOOL: &str = "call_tool";
pub const REQUEST_INSTALL: &str = "request_install";
/// The resource listing the loaded tools.
pub const LOADED_URI: &str = "skilldex://tools/loaded";
pub const DEFAULT_LIMIT: usize = 8;
pub const MAX_LIMIT: usize = 50;
/// How long a server gets to start, and to answer one call (restarted by
/// each progress notification), unless its entry sets `timeout`.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
/// How much of `tool_search`'s description the server list may take.
const SERVER_LIST_BYTES: usize = 1_500;

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// The gateway of one session.
pub struct Gateway {
    pub pool: Pool,
    /// What `tool_search` searches: the catalog's tools, with the
    /// snapshots this gateway rewrote laid over them.
    pub tools: ToolCatalog,
    pub loaded: Mutex<Loaded>,
    /// `tool_search`, `call_tool` and `request_install` as first listed;
    /// unset while there are neither tools nor servers (they are not
    /// offered then, and are appended once a tool catalog appears).
    definitions: OnceLock<Vec<Value>>,
    /// Set when a tool list went out without them: once they appear, the
    /// clients must hear of it (see [`Gateway::appears_with`]).
    listed_without: std::sync::atomic::AtomicBool,
    /// Servers configured with `enabled: false`, by name: what
    /// `request_install {type: mcp_server, action: enable}` may enable.
    disabled: Mutex<BTreeMap<String, ConfiguredServer>>,
    /// Servers offered under `available_servers`, by name: what
    /// `request_install {type: mcp_server, action: install}` may install.
    offered: BTreeMap<String, ConfiguredServer>,
    /// Whether the configuration offers anything to install (`available`
    /// collections or `available_servers`): `request_install` is offered
    /// then, with or without tool catalogs.
    offers: bool,
    /// Suggestions the user declined for good (`action:type:id`): those of
    /// `declined_suggestions` in the configuration, and this session's.
    pub suppressed: Mutex<BTreeSet<String>>,
    /// Servers that skills read in this session declare but that are not
    /// installed (or are disabled), with those skills' names: installing
    /// one appends the tools they declare of it.
    wanted: Mutex<BTreeMap<String, BTreeSet<String>>>,
    /// `pinned_tools` of the configuration: listed from the first
    /// `tools/list`, with the tools their servers mark
    /// `anthropic/alwaysLoad`.
    pinned: Vec<crate::config::PinnedTool>,
    /// The revision of the catalog whose pinned tools were last loaded
    /// (they are looked up again only when it changes).
    pinned_revision: Mutex<Option<String>>,
}

/// Why a gateway tool's arguments are refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct GatewayArgumentError(pub String);

impl Gateway {
    /// The servers of `settings` (none without a configuration).
    pub fn new(settings: Option<&crate::config::Settings>, log: crate::mcp::Log) -> Gateway {
        let lookup = |name: &str| std::env::var(name).ok();
        let (disabled, enabled): (Vec<ConfiguredServer>, Vec<ConfiguredServer>) = settings
            .map(|s| crate::config::configured_servers(&s.files))
            .unwrap_or_default()
            .into_iter()
            .partition(|s| s.config.enabled == Some(false));
        let servers = enabled
            .into_iter()
            .map(|server| {
                let command = crate::mcp::upstream::UpstreamCommand::for_server(
                    &server,
                    DEFAULT_TIMEOUT,
                    &lookup,
                );
                (server.name, command)
            })
            .collect();
        let tools = ToolCatalog::default();
        Gateway {
            pool: Pool::new(servers, log, Arc::clone(&tools.rewrites)),
            tools,
            loaded: Mutex::new(Loaded::default()),
            definitions: OnceLock::new(),
            listed_without: std::sync::atomic::AtomicBool::new(false),
            disabled: Mutex::new(disabled.into_iter().map(|s| (s.name.clone(), s)).collect()),
            offered: settings
                .map(|s| crate::config::available_servers(&s.files))
                .unwrap_or_default()
                .into_iter()
                .map(|s| (s.name.clone(), s))
                .collect(),
            offers: settings.is_some_and(|s| {
                !s.available.is_empty() || !crate::config::available_servers(&s.files).is_empty()
            }),
            suppressed: Mutex::new(
                settings
                    .map(|s| s.declined_suggestions.clone())
                    .unwrap_or_default(),
            ),
            wanted: Mutex::new(BTreeMap::new()),
            pinned: settings.map(|s| s.pinned_tools.clone()).unwrap_or_default(),
            pinned_revision: Mutex::new(None),
        }
    }

    /// Load the pinned tools of `catalog` that are not loaded yet, in
    /// their order (see [`crate::tool_settings::pinned_ids`]); true when
    /// the list grew. Called before anything else is appended, so the
    /// pinned tools lead the loaded ones; one that appears later (a new
    /// snapshot) is appended like any other, and none ever moves.
    pub fn load_pinned(&self, catalog: &Catalog, reserved: &dyn Fn(&str) -> bool) -> bool {
        let mut loaded = lock(&self.loaded);
        self.pin_into(&mut loaded, catalog, reserved)
    }

    fn pin_into(
        &self,
        loaded: &mut Loaded,
        catalog: &Catalog,
        reserved: &dyn Fn(&str) -> bool,
    ) -> bool {
        {
            let mut last = lock(&self.pinned_revision);
            if last.as_deref() == Some(catalog.revision()) {
                return false;
            }
            *last = Some(catalog.revision().to_string());
        }
        let mut grew = false;
        let disabled = self.disabled_servers();
        let is_disabled = |name: &str| disabled.iter().any(|d| d == name);
        for id in crate::tool_settings::pinned_ids(catalog, &self.pinned, &is_disabled) {
            if loaded.by_id(&id).is_some() {
                continue;
            }
            let Some((server, tool)) = catalog.tool_entry(&id) else {
                continue;
            };
            // A host with a tool search of its own keeps it in view.
            let definition = definition(server, tool, true);
            let (_, new) = loaded.load(&tool.id, &server.name, &tool.name, definition, reserved);
            loaded.mark_pinned(&tool.id);
            grew |= new;
        }
        grew
    }

    /// The servers offered for installation, sorted.
    pub fn offered_servers(&self) -> Vec<String> {
        self.offered.keys().cloned().collect()
    }

    /// The offered server `name`.
    pub fn offered_server(&self, name: &str) -> Option<&ConfiguredServer> {
        self.offered.get(name)
    }

    /// Start using the installed server `server` in this session: it joins
    /// the pool. Returns how to start it.
    pub fn install_server(
        &self,
        server: &ConfiguredServer,
    ) -> Result<crate::mcp::upstream::UpstreamCommand, String> {
        let lookup = |name: &str| std::env::var(name).ok();
        let command =
            crate::mcp::upstream::UpstreamCommand::for_server(server, DEFAULT_TIMEOUT, &lookup);
        self.pool.add(server.name.clone(), command.clone());
        command
    }

    /// The servers disabled in the configuration, sorted.
    pub fn disabled_servers(&self) -> Vec<String> {
        lock(&self.disabled).keys().cloned().collect()
    }

    /// Enable the disabled server `name` for this session: it joins the
    /// pool. Returns how to start it (`None` when it is not disabled).
    pub fn enable_server(
        &self,
        name: &str,
    ) -> Option<Result<crate::mcp::upstream::UpstreamCommand, String>> {
        let server = lock(&self.disabled).remove(name)?;
        // Its pinned tools are listed from the next `tools/list` on.
        *lock(&self.pinned_revision) = None;
        let lookup = |name: &str| std::env::var(name).ok();
        let command =
            crate::mcp::upstream::UpstreamCommand::for_server(&server, DEFAULT_TIMEOUT, &lookup);
        self.pool.add(server.name.clone(), command.clone());
        Some(command)
    }

    /// List `command`'s tools and write its snapshot to `path` (as `tools
    /// sync` does), so that search finds them at once. Blocks.
    pub fn sync_snapshot(
        &self,
        command: &crate::mcp::upstream::UpstreamCommand,
        path: &std::path::Path,
    ) -> Result<usize, String> {
        let listing = crate::mcp::upstream::list_tools(command).map_err(|f| f.message)?;
        let bytes = crate::toolcat::snapshot_bytes(Some(&listing.server), &listing.tools);
        crate::toolcat::write_atomically(path, &bytes).map_err(|e| e.to_string())?;
        self.tools.rewrites.record(path)
    }

    /// `tool_search`, `call_tool` and `request_install`, frozen the first
    /// time they are listed; `None` while there are neither tools nor
    /// servers.
    pub fn definitions(&self, catalog: &Catalog) -> Option<&[Value]> {
        if let Some(listed) = self.definitions.get() {
            return Some(listed);
        }
        if catalog.tool_count() == 0 && self.pool.is_empty() && !self.offers {
            self.listed_without
                .store(true, std::sync::atomic::Ordering::SeqCst);
            return None;
        }
        Some(self.definitions.get_or_init(|| {
            vec![
                search_definition(catalog, &self.pool),
                call_definition(),
                install_definition(),
            ]
        }))
    }

    /// True (once) when the gateway's tools are offered with `catalog`
    /// but a tool list without them went out before: the clients must be
    /// told the list grew (even when one of them already listed again).
    pub fn appears_with(&self, catalog: &Catalog) -> bool {
        self.definitions(catalog).is_some()
            && self
                .listed_without
                .swap(false, std::sync::atomic::Ordering::SeqCst)
    }

    /// Run `tool_search`: find, load what is new, and answer. `reserved`
    /// are names never given to a loaded tool. Returns the answer and
    /// whether the tool list grew.
    pub fn search(
        &self,
        searchable: &Searchable,
        arguments: &Map<String, Value>,
        reserved: &dyn Fn(&str) -> bool,
    ) -> Result<(Value, bool), GatewayArgumentError> {
        let query = match arguments.get("query") {
            Some(Value::String(q)) if !q.trim().is_empty() => q.trim().to_string(),
            Some(Value::String(_)) | None | Some(Value::Null) => {
                return Err(GatewayArgumentError(
                    "`query` is required: say in a few words what you need to do (or give a tool's name)".into(),
                ))
            }
            Some(other) => {
                return Err(GatewayArgumentError(format!(
                    "`query` must be a string, not {other}"
                )))
            }
        };
        let limit = match arguments.get("limit") {
            None | Some(Value::Null) => DEFAULT_LIMIT,
            Some(Value::Number(n)) => match n.as_u64() {
                Some(n @ 1..) => (n as usize).min(MAX_LIMIT),
                _ => {
                    return Err(GatewayArgumentError(format!(
                        "`limit` must be a whole number from 1 to {MAX_LIMIT}, not {n}"
                    )))
                }
            },
            Some(other) => {
                return Err(GatewayArgumentError(format!(
                    "`limit` must be a whole number from 1 to {MAX_LIMIT}, not {other}"
                )))
            }
        };
        let (hits, advice, warming) = find::search_tools(searchable, &query, limit);
        let mut loaded = lock(&self.loaded);
        // Pinned tools lead whatever this search appends.
        let mut grew = self.pin_into(&mut loaded, searchable.catalog(), reserved);
        let mut tools = Vec::with_capacity(hits.len());
        for (server, tool) in hits {
            let definition = definition(server, tool, false);
            let changed = loaded.changed(&tool.id, &tool.input_schema) == Some(true);
            let (entry, new) =
                loaded.load(&tool.id, &server.name, &tool.name, definition, reserved);
            grew |= new;
            let mut hit = json!({
                "name": entry.name,
                "id": tool.id,
                "server": server.name,
                "description": tool.description,
                "input_schema": tool.input_schema,
                "status": if new { "loaded" } else if changed { "changed" } else { "already loaded" },
            });
            if let Some(title) = &tool.title {
                hit["title"] = json!(title);
            }
            if changed {
                hit["note"] = json!(format!(
                    "`{}` keeps the schema it was loaded with; `{}` now publishes the one above — run it with `call_tool` to use it",
                    entry.name, server.name
                ));
            }
            tools.push(hit);
        }
        let names: Vec<&str> = loaded.entries().iter().map(|e| e.name.as_str()).collect();
        let mut answer = json!({
            "query": query,
            "tools": tools,
            "loaded": names,
        });
        if let Some(advice) = advice {
            answer["advice"] = json!(advice);
        }
        if warming {
            answer["note"] = json!(crate::search::WARMING_NOTE);
        } else if let Some(note) = searchable.lexical_note() {
            answer["note"] = json!(note);
        }
        if tools_is_empty(&answer) && !warming {
            let servers: Vec<&str> = searchable
                .catalog()
                .tool_servers()
                .iter()
                .map(|s| s.name.as_str())
                .collect();
            answer["note"] = json!(if servers.is_empty() {
                "no tool catalog is available: no MCP server has a snapshot (`skilldex tools sync` writes them)".to_string()
            } else {
                format!(
                    "no tool matches; try other words, or a server's name ({})",
                    servers.join(", ")
                )
            });
        }
        Ok((answer, grew))
    }

    /// Whether the gateway is offered: servers are configured, or the
    /// first `tools/list` found tools.
    pub fn is_on(&self) -> bool {
        !self.pool.is_empty() || self.offers || self.definitions.get().is_some()
    }

    /// The loaded tools, as the resource shows them.
    pub fn loaded_json(&self) -> Value {
        let loaded = lock(&self.loaded);
        let entries: Vec<Value> = loaded
            .entries()
            .iter()
            .map(|e| {
                let mut entry = json!({"name": e.name, "id": e.id, "server": e.server});
                if e.pinned {
                    entry["pinned"] = json!(true);
                }
                entry
            })
            .collect();
        json!({ "loaded": entries })
    }
}

/// The session's loaded tools (the guard must not be held across an
/// `.await`).
pub fn lock_loaded(gateway: &Gateway) -> std::sync::MutexGuard<'_, Loaded> {
    lock(&gateway.loaded)
}

fn tools_is_empty(answer: &Value) -> bool {
    answer["tools"].as_array().is_none_or(Vec::is_empty)
}

/// A catalog tool as skilldex lists it once loaded (the name is set by
/// [`Loaded::load`]): the entry `tools spec --format mcp` prints, with
/// the server's search hint passed on and, for a pinned tool,
/// `anthropic/alwaysLoad`.
pub fn definition(_server: &ToolNamespace, tool: &CatalogTool, pinned: bool) -> Value {
    crate::search::specs::mcp_tool(tool, pinned)
}

/// `_meta` of one of the gateway's own tools: the words a host's tool
/// search finds it by, and, for `tool_search`, that it stays loaded (a
/// host that defers tools behind its own search must not hide the one
/// that finds the rest).
fn own_meta(hint: &str, always_load: bool) -> Value {
    crate::toolcat::hint_meta(Some(hint), always_load).unwrap_or_default()
}

fn search_definition(catalog: &Catalog, pool: &Pool) -> Value {
    let mut servers = String::new();
    let mut left = 0;
    let mut named: Vec<&str> = Vec::new();
    for server in catalog.tool_servers() {
        named.push(&server.name);
        let line = format!(
            "\n- {} ({}): {}",
            server.name,
            crate::text::plural(server.tools.len(), "tool", "tools"),
            crate::schema::cut_at_char_boundary(&server.description, 160)
        );
        if servers.len() + line.len() > SERVER_LIST_BYTES {
            left += 1;
        } else {
            servers.push_str(&line);
        }
    }
    let configured = pool.names();
    let unsynced: Vec<&str> = configured
        .iter()
        .map(String::as_str)
        .filter(|n| !named.contains(n))
        .collect();
    if left > 0 {
        servers.push_str(&format!("\n- and {left} more servers"));
    }
    let mut description = String::from(
        "Find tools of the MCP servers behind skilldex and load them. Say in a few words what you need to do \
(or give a tool's name or `server/tool` id); the best matches (8 by default) are added to the end of your tool list as \
`server__tool` and stay there for this session: call them directly. If your tool list does not refresh, run a found tool \
with `call_tool`. Every answer lists the loaded tools.",
    );
    if !servers.is_empty() {
        description.push_str("\n\nServers:");
        description.push_str(&servers);
    }
    if !unsynced.is_empty() {
        description.push_str(&format!(
            "\n\nConfigured without a tool snapshot (not searchable): {}",
            unsynced.join(", ")
        ));
    }
    json!({
        "name": TOOL_SEARCH,
        "description": description,
        "inputSchema": {
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "description": "What you need to do, in a few words; or a tool's name or `server/tool` id."
                },
                "limit": {
                    "type": "integer",
                    "description": format!("At most this many tools (default {DEFAULT_LIMIT}, at most {MAX_LIMIT}).")
                }
            },
            "required": ["query"]
        },
        "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": false, "openWorldHint": false},
        "_meta": own_meta("find and load MCP tools of the servers behind skilldex", true)
    })
}

fn call_definition() -> Value {
    json!({
        "name": CALL_TOOL,
        "description": "Run a tool of an MCP server behind skilldex by its id (`server/tool`, as `tool_search` gives it). \
    For clients whose tool list does not show the tools `tool_search` loaded; otherwise call those directly.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "tool": {
                    "type": "string",
                    "description": "The tool's id, `server/tool`, from a `tool_search` answer."
                },
                "arguments": {
                    "type": "object",
                    "description": "The tool's arguments, as its input schema in the `tool_search` answer describes them.",
                    "properties": {}
                }
            },
            "required": ["tool"]
        },
        "annotations": {"readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": true},
        "_meta": own_meta("run an MCP tool by its server/tool id", false)
    })
}

fn install_definition() -> Value {
    json!({
        "name": REQUEST_INSTALL,
        "description": "Ask the user to enable or install a skill or an MCP server the task clearly needs. \
    `type` is `skill` or `mcp_server`; `action` is `enable` (it is configured but disabled; reads and searches say so) or \
    `install` (it is offered but not installed). The user sees `suggest_reason` and decides; nothing changes without their yes. \
    Answers {completed, user_confirmed, name}. IMPORTANT: do not call this tool in parallel with other tools.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "type": {"type": "string", "enum": ["skill", "mcp_server"], "description": "What to enable or install."},
                "action": {"type": "string", "enum": ["enable", "install"], "description": "`enable` a disabled one, or `install` an offered one."},
                "id": {"type": "string", "description": "The skill's name or id, or the MCP server's name."},
                "suggest_reason": {"type": "string", "description": "One sentence for the user: why it helps with the current task."}
            },
            "required": ["type", "action", "id", "suggest_reason"]
        },
        "annotations": {"readOnlyHint": false, "destructiveHint": false, "idempotentHint": false, "openWorldHint": false},
        "_meta": own_meta("ask the user to install or enable a skill or MCP server", false)
    })
}

/// A checked `request_install`: type, action, id and reason.
pub struct InstallRequest {
    pub tool_type: &'static str,
    pub action: &'static str,
    pub id: String,
    pub reason: String,
}

/// Check `request_install`'s arguments.
pub fn install_arguments(
    arguments: &Map<String, Value>,
) -> Result<InstallRequest, GatewayArgumentError> {
    let text = |key: &str| match arguments.get(key) {
        Some(Value::String(s)) => Some(s.trim().to_string()),
        _ => None,
    };
    let tool_type = match text("type").as_deref() {
        Some("skill") => "skill",
        Some("mcp_server") => "mcp_server",
        _ => {
            return Err(GatewayArgumentError(
                "`type` must be `skill` or `mcp_server`".into(),
            ))
        }
    };
    let action = match text("action").as_deref() {
        Some("enable") => "enable",
        Some("install") => "install",
        _ => {
            return Err(GatewayArgumentError(
                "`action` must be `enable` or `install`".into(),
            ))
        }
    };
    let id = text("id").filter(|s| !s.is_empty()).ok_or_else(|| {
        GatewayArgumentError("`id` is required: the skill's name or the MCP server's name".into())
    })?;
    let reason = text("suggest_reason").filter(|s| !s.is_empty()).ok_or_else(|| {
        GatewayArgumentError(
            "`suggest_reason` is required and must not be empty — say in one sentence why it helps with the current task; the user reads it".into(),
        )
    })?;
    Ok(InstallRequest {
        tool_type,
        action,
        id,
        reason,
    })
}

/// The `call_tool` arguments: the tool's key and its arguments.
pub fn call_arguments(
    arguments: &Map<String, Value>,
) -> Result<(String, Option<Map<String, Value>>), GatewayArgumentError> {
    let tool = match arguments.get("tool") {
        Some(Value::String(t)) if !t.trim().is_empty() => t.trim().to_string(),
        _ => {
            return Err(GatewayArgumentError(
                "`tool` is required: the tool's id, `server/tool`, from a `tool_search` answer"
                    .into(),
            ))
        }
    };
    let inner = match arguments.get("arguments") {
        None | Some(Value::Null) => None,
        Some(Value::Object(map)) => Some(map.clone()),
        // Some models pass the arguments as a JSON text.
        Some(Value::String(text)) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(map)) => Some(map),
            _ => {
                return Err(GatewayArgumentError(
                    "`arguments` must be an object of the tool's arguments".into(),
                ))
            }
        },
        Some(_) => {
            return Err(GatewayArgumentError(
                "`arguments` must be an object of the tool's arguments".into(),
            ))
        }
    };
    Ok((tool, inner))
}
