//! `prompts/list` and `prompts/get`: every skill as a prompt
//! (`crate::mcp::prompts`), from the session's view of the catalog.

use super::SkilldexServer;
use rmcp::model::{
    GetPromptRequestParams, GetPromptResponse, ListPromptsResult, PaginatedRequestParams,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::ErrorData as McpError;

impl SkilldexServer {
    pub(super) fn prompts_list(
        &self,
        request: Option<PaginatedRequestParams>,
    ) -> Result<ListPromptsResult, McpError> {
        let view = self.view();
        let cursor = request.as_ref().and_then(|p| p.cursor.as_deref());
        crate::mcp::prompts::list(&view.catalog, cursor)
            .map_err(|why| McpError::invalid_params(why, None))
    }

    pub(super) async fn prompt_get(
        &self,
        request: GetPromptRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        let view = self.view();
        // A prompt reads the skill's file: off the protocol thread.
        super::off_thread(context, "prompt", move || {
            crate::mcp::prompts::get(&view.catalog, &request.name, request.arguments.as_ref())
        })
        .await?
        .map(Into::into)
        .map_err(|e| McpError::invalid_params(e.to_string(), None))
    }
}
