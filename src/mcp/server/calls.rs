//! `tools/list` and `tools/call`: the tools of `crate::agent_tools`, with reads
//! and greps off the protocol thread; the gateway's tools are in
//! `gateway.rs`.

use super::SkilldexServer;
use crate::agent_tools::{self, ArgumentError, Arguments};
use crate::mcp::skills;
use rmcp::model::{CallToolRequestParams, CallToolResponse, ContentBlock, ListToolsResult, Tool};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::ErrorData as McpError;
use serde_json::Value;
use std::sync::Arc;

impl SkilldexServer {
    pub(super) async fn tools_list(&self) -> Result<ListToolsResult, McpError> {
        // The entries `skilldex agent-tools --format mcp` prints, as they are.
        let mut tools: Vec<Tool> = match agent_tools::mcp_json(&agent_tools::definitions()) {
            Value::Array(entries) => entries
                .into_iter()
                .map(serde_json::from_value)
                .collect::<Result<_, _>>()
                .map_err(|e| McpError::internal_error(format!("a tool definition: {e}"), None))?,
            _ => Vec::new(),
        };
        // The gateway's tools come after skilldex's own, the loaded ones
        // last: the list only ever grows at its end.
        tools.extend(self.gateway_tools(&self.view()).await?);
        Ok(ListToolsResult::with_all_items(tools))
    }

    pub(super) async fn tools_call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let view = self.view();
        let arguments = request.arguments.clone().unwrap_or_default();
        let name = request.name.to_string();
        // Unknown arguments are ignored; a misspelt one is named after the answer.
        let ignored = agent_tools::ignored_note(&name, &arguments);
        let answer = match name.as_str() {
            agent_tools::READ_SKILL => {
                // Its SKILL.md (whole or in part, not another file): the
                // skill's declared tools are loaded once it has been read.
                let whole_skill = match arguments.get("path") {
                    None | Some(serde_json::Value::Null) => true,
                    Some(path) => path.as_str().is_some_and(|p| {
                        crate::scan::SKILL_FILE_NAMES.contains(&p.trim_start_matches("./"))
                    }),
                };
                let name = arguments
                    .get("name")
                    .and_then(serde_json::Value::as_str)
                    .map(str::to_string);
                // A read opens files: off the protocol thread, so a slow
                // disk or a hostile file never holds up other requests.
                let task_view = Arc::clone(&view);
                let answer = super::off_thread(&context, "read", move || {
                    let checked = Arguments::new(agent_tools::READ_SKILL, &arguments)?;
                    let locate = |uri: &str| task_view.index.locate(uri);
                    agent_tools::read_skill(&task_view.catalog, &checked, &locate)
                })
                .await?
                .map_err(Self::invalid)?;
                let note = match name.filter(|_| whole_skill) {
                    Some(name) => self.load_declared_tools(&name, &context, &view).await,
                    None => None,
                };
                let mut result = Self::answer(answer);
                result.content.extend(note.map(ContentBlock::text));
                result.content.extend(ignored.map(ContentBlock::text));
                return Ok(result.into());
            }
            agent_tools::GREP_SKILLS => {
                // Grep may read every file: keep it off the protocol thread.
                let view = Arc::clone(&view);
                super::off_thread(&context, "grep", move || {
                    let checked = Arguments::new(agent_tools::GREP_SKILLS, &arguments)?;
                    agent_tools::grep_skills(&view.catalog, &checked)
                })
                .await?
                .map_err(Self::invalid)?
            }
            agent_tools::SEARCH_SKILLS => {
                let checked = Arguments::new(&name, &arguments).map_err(Self::invalid)?;
                let (index, all) = (&view.index, view.catalog.skills());
                let uri_of = |skill: &crate::entry::Skill| {
                    let root = skills::root_uri(skill);
                    index
                        .by_root(&root)
                        .filter(|&i| std::ptr::eq(all[i].as_ref(), skill))
                        .map(|_| format!("{root}/SKILL.md"))
                };
                let everything = view.everything.get_or_init(|| {
                    let disabled = view.catalog.disabled_skills();
                    (!disabled.is_empty()).then(|| {
                        let ids: Vec<&str> = disabled.iter().map(|s| s.id.as_str()).collect();
                        // Searched as the view is (semantic when a model is set).
                        view.searchable
                            .for_catalog(Arc::new(view.catalog.enabling(&ids)))
                    })
                });
                agent_tools::search_skills(&view.searchable, &checked, &uri_of, everything.as_ref())
                    .map_err(Self::invalid)?
            }
            agent_tools::REQUEST_SKILL_ENABLE => {
                return self
                    .request_enable(&request, &arguments, &context, &view)
                    .await;
            }
            other => {
                if let Some(answer) = self.gateway_call(&request, &context, &view).await {
                    return answer;
                }
                return Err(Self::invalid(ArgumentError::UnknownTool(other.to_string())));
            }
        };
        let mut result = Self::answer(answer);
        result.content.extend(ignored.map(ContentBlock::text));
        Ok(result.into())
    }
}
