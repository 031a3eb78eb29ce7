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
//! `enabled: false` from the configuration file. The two `install`
//! actions are not built yet and say so.

use super::enable::{wants_persist, Suggestion};
use super::{SkilldexServer, View};
use crate::mcp::gateway;
use crate::tools::ToolAnswer;
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
            (tool_type, _) => Ok(Self::answer(ToolAnswer::error(format!(
                "installing a{} is not available in this version of skilldex — tell the user what `{}` would do and let them install it by hand",
                if tool_type == "skill" { " skill" } else { "n MCP server" },
                wanted.id
            )))
            .into()),
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
        // Its tools must be in a snapshot for tool_search to find them.
        let set = self.tool_set(view).await?;
        match (set.server(name), command) {
            (Some(server), _) => answer["tools"] = json!(server.tools.len()),
            (None, Ok(command)) => {
                let root = view.catalog.roots().first().cloned();
                match root {
                    Some(root) => {
                        let path = root.join(name).join(crate::toolcat::SNAPSHOT_FILE);
                        let task = {
                            let gateway = Arc::clone(&gateway);
                            tokio::task::spawn_blocking(move || {
                                gateway.sync_snapshot(&command, &path)
                            })
                        };
                        match task.await {
                            Ok(Ok(count)) => answer["tools"] = json!(count),
                            Ok(Err(error)) => {
                                notes.push(format!("its tools could not be listed: {error}"))
                            }
                            Err(error) => {
                                notes.push(format!("its tools could not be listed: {error}"))
                            }
                        }
                    }
                    None => notes.push("no skill root to write its tool snapshot into".into()),
                }
            }
            (None, Err(error)) => notes.push(format!("it cannot be started: {error}")),
        }
        answer["completed"] = json!(true);
        if !notes.is_empty() {
            answer["note"] = json!(notes.join("; "));
        }
        self.log(&format!("the user enabled MCP server `{name}`"));
        Ok(Self::answer(ToolAnswer::ok(answer.to_string())).into())
    }
}
