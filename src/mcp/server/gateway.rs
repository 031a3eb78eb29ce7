//! The gateway in the handler: `tool_search` and `call_tool` in
//! `tools/list` (after skilldex's own tools, before the loaded ones), the
//! loaded tools appended, calls of loaded tools proxied to their servers,
//! `notifications/tools/list_changed` when the list grows, and the
//! resource of loaded names.

use super::{SkilldexServer, View};
use crate::agent_tools;
use crate::mcp::gateway::{self, pool::Through};
use crate::search::Searchable;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Resource,
    ResourceContents, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::ErrorData as McpError;
use serde_json::{json, Map, Value};
use std::sync::Arc;

impl SkilldexServer {
    /// What `tool_search` searches for this view: its own searchable
    /// snapshot, or that snapshot with the gateway's rewritten snapshots
    /// laid over it. Cheap (no schema is read) unless a rewrite is
    /// pending.
    pub(super) fn tool_set(&self, view: &View) -> Arc<Searchable> {
        self.inner.gateway.tools.of(
            &view.searchable,
            &view.catalog,
            self.inner.semantic.as_ref(),
        )
    }

    /// What the gateway adds to `tools/list`: `tool_search` and
    /// `call_tool` (when there are tools or servers), then every loaded
    /// tool in load order, each as it was first listed.
    pub(super) async fn gateway_tools(&self, view: &View) -> Result<Vec<Tool>, McpError> {
        let set = self.tool_set(view);
        let gateway = &self.inner.gateway;
        let mut listed = Vec::new();
        for definition in gateway.definitions(set.catalog()).unwrap_or_default() {
            listed.push(tool_of(definition)?);
        }
        // Pinned tools are listed from the first `tools/list` on.
        gateway.load_pinned(set.catalog(), &reserved_name);
        let loaded = gateway::lock_loaded(gateway);
        for entry in loaded.entries() {
            listed.push(tool_of(&entry.definition)?);
        }
        Ok(listed)
    }

    /// Whether `name` is a gateway tool or a loaded one; answers its call.
    pub(super) async fn gateway_call(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
        view: &View,
    ) -> Option<Result<CallToolResponse, McpError>> {
        let name = request.name.as_ref();
        let arguments = request.arguments.clone().unwrap_or_default();
        match name {
            gateway::TOOL_SEARCH => Some(self.tool_search(&arguments, context, view).await),
            gateway::CALL_TOOL => Some(self.call_by_id(&arguments, context, view).await),
            gateway::REQUEST_INSTALL => Some(
                self.request_install(request, &arguments, context, view)
                    .await,
            ),
            _ => {
                let entry = gateway::lock_loaded(&self.inner.gateway)
                    .by_name(name)
                    .cloned()?;
                let set = self.tool_set(view);
                let snapshot = set
                    .catalog()
                    .tool_server(&entry.server)
                    .map(|s| s.path.clone());
                // Fitted to the schema the tool was loaded with: that is
                // what the model sees.
                let fitted = gateway::arguments::fit(
                    &entry.name,
                    &entry.definition["inputSchema"],
                    request.arguments.clone(),
                );
                let result = self
                    .inner
                    .gateway
                    .pool
                    .call(
                        &entry.server,
                        &entry.tool,
                        fitted.arguments,
                        snapshot,
                        through(context),
                    )
                    .await;
                let result = with_note(result, fitted.note);
                Some(Ok(result.into()))
            }
        }
    }

    /// After a read of skill `name`: its declared tools loaded (and the
    /// client told the list changed), and a note saying what was done.
    pub(super) async fn load_declared_tools(
        &self,
        name: &str,
        context: &RequestContext<RoleServer>,
        view: &View,
    ) -> Option<String> {
        let gateway = &self.inner.gateway;
        if !gateway.is_on() {
            return None;
        }
        let skill = view.catalog.get(name)?;
        let set = self.tool_set(view);
        let (note, grew) = gateway.load_declared(skill, &set, &reserved_name);
        if grew {
            self.notify_tools_changed(Some(&context.peer)).await;
        }
        note
    }

    /// After the server `name` joined: append the tools of it that skills
    /// read in this session declare; names them in `answer.appended`.
    pub(super) async fn append_wanted_tools(
        &self,
        name: &str,
        context: &RequestContext<RoleServer>,
        view: &View,
        answer: &mut Value,
    ) {
        let set = self.tool_set(view);
        let added = self
            .inner
            .gateway
            .load_wanted(name, &view.catalog, &set, &reserved_name);
        if !added.is_empty() {
            answer["appended"] = json!(added);
            self.notify_tools_changed(Some(&context.peer)).await;
        }
    }

    async fn tool_search(
        &self,
        arguments: &Map<String, Value>,
        context: &RequestContext<RoleServer>,
        view: &View,
    ) -> Result<CallToolResponse, McpError> {
        let set = self.tool_set(view);
        let gateway = Arc::clone(&self.inner.gateway);
        let arguments = arguments.clone();
        // Off the protocol thread: the first search of a snapshot builds
        // its index.
        let found = super::off_thread(context, "tool_search", move || {
            gateway.search(&set, &arguments, &reserved_name)
        })
        .await?;
        let (answer, grew) = match found {
            Ok(found) => found,
            Err(error) => return Ok(text_result(error.to_string(), true).into()),
        };
        if grew {
            self.notify_tools_changed(Some(&context.peer)).await;
        }
        Ok(text_result(answer.to_string(), false).into())
    }

    async fn call_by_id(
        &self,
        arguments: &Map<String, Value>,
        context: &RequestContext<RoleServer>,
        view: &View,
    ) -> Result<CallToolResponse, McpError> {
        let (key, inner) = match gateway::call_arguments(arguments) {
            Ok(parsed) => parsed,
            Err(error) => return Ok(text_result(error.to_string(), true).into()),
        };
        let set = self.tool_set(view);
        let catalog = set.catalog();
        // A loaded tool's callable name works too.
        let loaded = gateway::lock_loaded(&self.inner.gateway)
            .by_name(&key)
            .cloned();
        let (server, tool, snapshot, schema) = match (catalog.tool_entry(&key), loaded) {
            (Some((server, tool)), _) => (
                server.name.clone(),
                tool.name.clone(),
                Some(server.path.clone()),
                tool.input_schema.clone(),
            ),
            (None, Some(entry)) => (
                entry.server.clone(),
                entry.tool.clone(),
                catalog.tool_server(&entry.server).map(|s| s.path.clone()),
                entry.definition["inputSchema"].clone(),
            ),
            (None, None) => {
                let near: Vec<String> = catalog
                    .similar_tools(&key, 3)
                    .into_iter()
                    .map(|id| format!("`{id}`"))
                    .collect();
                let hint = if near.is_empty() {
                    " — find tools with `tool_search`".to_string()
                } else {
                    format!(
                        " — did you mean {}? (`tool_search` finds tools)",
                        near.join(", ")
                    )
                };
                return Ok(
                    text_result(format!("no tool `{key}` in the tool catalog{hint}"), true).into(),
                );
            }
        };
        let fitted = gateway::arguments::fit(&format!("{server}/{tool}"), &schema, inner);
        let result = self
            .inner
            .gateway
            .pool
            .call(&server, &tool, fitted.arguments, snapshot, through(context))
            .await;
        Ok(with_note(result, fitted.note).into())
    }

    /// The loaded-tools resource, listed after the directory when the
    /// gateway is on.
    pub(super) fn loaded_resource(&self) -> Option<Resource> {
        let on = self.inner.gateway.is_on();
        on.then(|| {
            Resource::new(gateway::LOADED_URI, "loaded tools")
                .with_description(
                    "The tools tool_search loaded in this session, in the order they were appended to tools/list.",
                )
                .with_mime_type("application/json")
        })
    }

    pub(super) fn read_loaded(&self, uri: &str) -> ResourceContents {
        ResourceContents::text(self.inner.gateway.loaded_json().to_string(), uri)
            .with_mime_type("application/json")
    }
}

impl SkilldexServer {
    /// After a change on disk: append the pinned tools the new snapshot
    /// has that are not listed yet; true when the list grew.
    pub(super) fn pin_new_tools(&self, view: &View) -> bool {
        let set = self.tool_set(view);
        self.inner
            .gateway
            .load_pinned(set.catalog(), &reserved_name)
    }
}

/// Names never given to a loaded tool: skilldex's own tools.
fn reserved_name(name: &str) -> bool {
    agent_tools::definitions().iter().any(|d| d.name == name)
        || name == gateway::TOOL_SEARCH
        || name == gateway::CALL_TOOL
        || name == gateway::REQUEST_INSTALL
}

/// What a proxied call carries from the client's request.
fn through(context: &RequestContext<RoleServer>) -> Through {
    let cancel = context.ct.clone();
    Through {
        peer: context.peer.clone(),
        progress_token: context.meta.get_progress_token(),
        cancelled: Box::pin(async move { cancel.cancelled().await }),
    }
}

/// `result` with `note` (about ignored arguments) as a last text block.
fn with_note(mut result: CallToolResult, note: Option<String>) -> CallToolResult {
    if let Some(note) = note {
        result.content.push(ContentBlock::text(note));
    }
    result
}

fn text_result(text: String, is_error: bool) -> CallToolResult {
    let content = vec![ContentBlock::text(text)];
    if is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    }
}

fn tool_of(definition: &Value) -> Result<Tool, McpError> {
    serde_json::from_value(definition.clone()).map_err(|e| {
        McpError::internal_error(
            format!("a gateway tool definition is not an MCP tool: {e}"),
            None,
        )
    })
}
