//! `request_install`: the seeds' Type × Action taxonomy in one tool —
//! `{type: skill | mcp_server, action: enable | install, id,
//! suggest_reason}`. Every combination asks the user the same way
//! (elicitation tagged `codex_approval_kind: "tool_suggestion"`, `persist:
//! "always"`, see `enable.rs`); nothing changes without a yes, and a
//! declined "always" is not asked again in the session.
//!
//! `skill` + `enable` is `request_skill_enable` (which stays, for the
//! clients that know it). `mcp_server` + `enable` starts using a server
//! configured with `enabled: false`: it joins the pool, its tools are
//! synced into a snapshot when it has none, and "always" deletes its
//! `enabled: false` from the configuration file.
//!
//! `skill` + `install` copies a skill offered by a collection of
//! `available:` into the first writable root (see `gateway::install`),
//! then waits for the catalog to load it. `mcp_server` + `install` adds a
//! server offered under `available_servers` to `mcp_servers` of the same
//! file and syncs its tools into a snapshot, so `tool_search` finds them.
//! An install is lasting by nature, so "always" changes nothing more for
//! a yes; for a no it is remembered (see `enable.rs`).

use super::enable::{wants_persist, Suggestion};
use super::{SkilldexServer, View};
use crate::agent_tools::ToolAnswer;
use crate::mcp::gateway;
use rmcp::model::{CallToolRequestParams, CallToolResponse, ElicitationAction};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::ErrorData as McpError;
use serde_json::{json, Map, Value};
use std::sync::Arc;

impl SkilldexServer {
    pub(super) async fn request_install(
        &self,
        request: &CallToolRequestParams,
        arguments: &Map<String, Value>,
        context: &RequestContext<RoleServer>,
        view: &View,
    ) -> Result<CallToolResponse, McpError> {
        let wanted = match gateway::install_arguments(arguments) {
            Ok(wanted) => wanted,
            Err(error) => return Ok(Self::answer(ToolAnswer::error(error.to_string())).into()),
        };
        match (wanted.tool_type, wanted.action) {
            ("skill", "enable") => {
                let mut alias = Map::new();
                alias.insert("name".into(), json!(wanted.id));
                alias.insert("suggest_reason".into(), json!(wanted.reason));
                self.request_enable(request, &alias, context, view).await
            }
            ("mcp_server", "enable") => {
                self.enable_server(request, context, view, &wanted.id, &wanted.reason)
                    .await
            }
            ("skill", _) => {
                self.install_skill(request, context, view, &wanted.id, &wanted.reason)
                    .await
            }
            _ => {
                self.install_server(request, context, view, &wanted.id, &wanted.reason)
                    .await
            }
        }
    }

    async fn enable_server(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
        view: &View,
        name: &str,
        reason: &str,
    ) -> Result<CallToolResponse, McpError> {
        let gateway = Arc::clone(&self.inner.gateway);
        let disabled = gateway.disabled_servers();
        if !disabled.iter().any(|d| d == name) {
            let text = if gateway.pool.names().iter().any(|n| n == name) {
                format!("MCP server `{name}` is already enabled — find its tools with tool_search")
            } else if disabled.is_empty() {
                format!("no disabled MCP server named `{name}` (no server is disabled in the configuration)")
            } else {
                format!(
                    "no disabled MCP server named `{name}` — the disabled ones are {}",
                    disabled
                        .iter()
                        .map(|d| format!("`{d}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            return Ok(Self::answer(ToolAnswer::error(text)).into());
        }
        let suggestion = Suggestion {
            tool_type: "mcp_server",
            action: "enable",
            id: name.to_string(),
            name: name.to_string(),
            description: "an MCP server configured in skilldex.yaml with `enabled: false`"
                .to_string(),
            reason: reason.to_string(),
        };
        let manual =
            "deleting `enabled: false` from its entry under `mcp_servers` in skilldex.yaml";
        let response = match self.ask(request, context, &suggestion, manual).await? {
            Ok(response) => response,
            Err(answer) => return Ok(answer),
        };
        let confirmed = response.action == ElicitationAction::Accept;
        let mut answer = json!({"completed": false, "user_confirmed": confirmed, "name": name});
        if !confirmed {
            return Ok(Self::answer(ToolAnswer::ok(answer.to_string())).into());
        }
        let Some(command) = gateway.enable_server(name) else {
            return Ok(Self::answer(ToolAnswer::ok(answer.to_string())).into());
        };
        let mut notes = Vec::new();
        if wants_persist(&response) {
            match &self.inner.settings {
                Some(settings) => match crate::config::persist_server_enable(settings, name) {
                    Ok(files) if !files.is_empty() => {
                        answer["persisted"] = json!(files
                            .iter()
                            .map(|p| p.display().to_string())
                            .collect::<Vec<_>>());
                    }
                    Ok(_) => {}
                    Err(error) => notes.push(format!("enabled for this session only: {error}")),
                },
                None => notes
                    .push("enabled for this session only: no configuration file is in use".into()),
            }
        }
        self.sync_server_tools(view, name, command, &mut answer, &mut notes)
            .await?;
        self.append_wanted_tools(name, context, view, &mut answer)
            .await;
        answer["completed"] = json!(true);
        if !notes.is_empty() {
            answer["note"] = json!(notes.join("; "));
        }
        self.log(&format!("the user enabled MCP server `{name}`"));
        Ok(Self::answer(ToolAnswer::ok(answer.to_string())).into())
    }

    /// Make sure the tools of the server `name` (now in the pool) are in a
    /// snapshot for `tool_search`: sync one into the first root when there
    /// is none. Sets `answer.tools`; problems go to `notes`.
    async fn sync_server_tools(
        &self,
        view: &View,
        name: &str,
        command: Result<crate::mcp::upstream::UpstreamCommand, String>,
        answer: &mut Value,
        notes: &mut Vec<String>,
    ) -> Result<(), McpError> {
        let gateway = Arc::clone(&self.inner.gateway);
        let set = self.tool_set(view);
        match (set.catalog().tool_server(name), command) {
            (Some(server), _) => answer["tools"] = json!(server.tools.len()),
            (None, Ok(command)) => match view.catalog.roots().first().cloned() {
                Some(root) => {
                    let path = root.join(name).join(crate::toolcat::SNAPSHOT_FILE);
                    let task =
                        tokio::task::spawn_blocking(move || gateway.sync_snapshot(&command, &path));
                    match task.await {
                        Ok(Ok(count)) => answer["tools"] = json!(count),
                        Ok(Err(error)) => {
                            notes.push(format!("its tools could not be listed: {error}"))
                        }
                        Err(error) => notes.push(format!("its tools could not be listed: {error}")),
                    }
                }
                None => notes.push("no skill root to write its tool snapshot into".into()),
            },
            (None, Err(error)) => notes.push(format!("it cannot be started: {error}")),
        }
        Ok(())
    }

    async fn install_server(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
        view: &View,
        name: &str,
        reason: &str,
    ) -> Result<CallToolResponse, McpError> {
        let gateway = Arc::clone(&self.inner.gateway);
        let refuse = |text: String| Ok(Self::answer(ToolAnswer::error(text)).into());
        if gateway.disabled_servers().iter().any(|d| d == name) {
            return refuse(format!(
                "MCP server `{name}` is already installed but disabled — ask with `action: enable` instead"
            ));
        }
        if gateway.pool.names().iter().any(|n| n == name) {
            return refuse(format!(
                "MCP server `{name}` is already installed — find its tools with tool_search"
            ));
        }
        let Some(server) = gateway.offered_server(name).cloned() else {
            let offered = gateway.offered_servers();
            return refuse(if offered.is_empty() {
                format!("no MCP server `{name}` is offered for installation (skilldex.yaml lists none under `available_servers`)")
            } else {
                format!(
                    "no MCP server `{name}` is offered for installation — the offered ones are {}",
                    offered
                        .iter()
                        .map(|d| format!("`{d}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            });
        };
        let command = server
            .config
            .command
            .as_deref()
            .map(|c| format!("runs `{c}`"))
            .or_else(|| server.config.url.as_deref().map(|u| format!("at {u}")))
            .unwrap_or_default();
        let suggestion = Suggestion {
            tool_type: "mcp_server",
            action: "install",
            id: name.to_string(),
            name: name.to_string(),
            description: format!(
                "an MCP server offered under `available_servers` in {}; it {command}",
                server.source.display()
            ),
            reason: reason.to_string(),
        };
        let manual = format!(
            "copying its entry from `available_servers` to `mcp_servers` in {} and running `skilldex tools sync`",
            server.source.display()
        );
        let response = match self.ask(request, context, &suggestion, &manual).await? {
            Ok(response) => response,
            Err(answer) => return Ok(answer),
        };
        let confirmed = response.action == ElicitationAction::Accept;
        let mut answer = json!({"completed": false, "user_confirmed": confirmed, "name": name});
        if !confirmed {
            return Ok(Self::answer(ToolAnswer::ok(answer.to_string())).into());
        }
        let mut notes = Vec::new();
        let edit = {
            let server = server.clone();
            tokio::task::spawn_blocking(move || crate::config::persist_server_install(&server))
                .await
        };
        match edit {
            Ok(Ok(path)) => answer["persisted"] = json!([path.display().to_string()]),
            Ok(Err(error)) => notes.push(format!("installed for this session only: {error}")),
            Err(error) => notes.push(format!("installed for this session only: {error}")),
        }
        let command = gateway.install_server(&server);
        self.sync_server_tools(view, name, command, &mut answer, &mut notes)
            .await?;
        self.append_wanted_tools(name, context, view, &mut answer)
            .await;
        answer["completed"] = json!(answer.get("tools").is_some());
        if !notes.is_empty() {
            answer["note"] = json!(notes.join("; "));
        }
        self.log(&format!("the user installed MCP server `{name}`"));
        Ok(Self::answer(ToolAnswer::ok(answer.to_string())).into())
    }

    async fn install_skill(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
        view: &View,
        id: &str,
        reason: &str,
    ) -> Result<CallToolResponse, McpError> {
        let available = self
            .inner
            .settings
            .as_ref()
            .map(|s| {
                s.available
                    .iter()
                    .map(|a| {
                        crate::install::Location::from_path(a).map_err(|error| {
                            format!(
                                "the `available` entry {} of skilldex.yaml: {error}",
                                a.display()
                            )
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()
            })
            .unwrap_or_else(|| Ok(Vec::new()));
        let available = match available {
            Ok(available) => available,
            Err(error) => return Ok(Self::answer(ToolAnswer::error(error)).into()),
        };
        let offered = {
            let catalog = Arc::clone(&view.catalog);
            let id = id.to_string();
            tokio::task::spawn_blocking(move || {
                crate::install::find_offered(&available, &catalog, &id)
            })
            .await
            .map_err(|e| McpError::internal_error(e.to_string(), None))?
        };
        let offered = match offered {
            Ok(offered) => offered,
            Err(error) => return Ok(Self::answer(ToolAnswer::error(error.to_string())).into()),
        };
        let suggestion = Suggestion {
            tool_type: "skill",
            action: "install",
            id: offered.id().to_string(),
            name: offered.name().to_string(),
            description: offered.description().to_string(),
            reason: reason.to_string(),
        };
        let manual = offered.by_hand();
        let response = match self.ask(request, context, &suggestion, &manual).await? {
            Ok(response) => response,
            Err(answer) => return Ok(answer),
        };
        let confirmed = response.action == ElicitationAction::Accept;
        let mut answer =
            json!({"completed": false, "user_confirmed": confirmed, "name": offered.name()});
        if !confirmed {
            return Ok(Self::answer(ToolAnswer::ok(answer.to_string())).into());
        }
        let roots = view.catalog.roots().to_vec();
        let copied = {
            let offered = offered.clone();
            tokio::task::spawn_blocking(move || crate::install::install(&offered, &roots))
                .await
                .map_err(|e| McpError::internal_error(e.to_string(), None))?
        };
        let installed = match copied {
            Ok(installed) => installed,
            Err(error) => {
                answer["error"] = json!(error.to_string());
                return Ok(Self::answer(ToolAnswer::error(answer.to_string())).into());
            }
        };
        answer["installed"] = json!(installed.folder.display().to_string());
        if !installed.left_out.is_empty() {
            answer["left_out"] = json!(installed.left_out);
        }
        // Recorded beside the configuration file, for `install --locked`.
        if let Some(file) = self.inner.settings.as_ref().and_then(|s| s.files.last()) {
            let lock_file = crate::install::lock_beside(&file.path);
            match crate::install::record(&lock_file, &installed) {
                Ok(()) => answer["lock_file"] = json!(lock_file.display().to_string()),
                Err(error) => answer["lock_error"] = json!(error.to_string()),
            }
        }
        self.log(&format!(
            "the user installed skill `{}` into {}",
            offered.name(),
            installed.folder.display()
        ));
        // The catalog picks it up: wait (with a deadline) for a snapshot
        // that has it.
        let snapshots = Arc::clone(&self.inner.snapshots);
        let name = offered.name().to_string();
        let loaded = tokio::task::spawn_blocking(move || {
            let deadline = std::time::Instant::now() + INSTALL_WAIT;
            loop {
                let follows = snapshots.refresh();
                if let Some(skill) = snapshots.snapshot().get(&name) {
                    return Some(skill.id.clone());
                }
                if !follows || std::time::Instant::now() >= deadline {
                    return None;
                }
                std::thread::sleep(std::time::Duration::from_millis(25));
            }
        })
        .await
        .ok()
        .flatten();
        match loaded {
            Some(id) => {
                answer["completed"] = json!(true);
                answer["name"] = json!(id);
                let peer = context.peer.clone();
                self.notify_changed(Some(&peer)).await;
            }
            None => {
                answer["note"] = json!(
                    "copied, but this server does not follow changes on disk (`serve --no-watch`), or the catalog has not loaded it yet: restart `skilldex serve` to read it"
                );
            }
        }
        Ok(Self::answer(ToolAnswer::ok(answer.to_string())).into())
    }
}

/// How long an install waits for the catalog to load the new skill.
const INSTALL_WAIT: std::time::Duration = std::time::Duration::from_secs(10);
