//! Resources and the Skills extension: the directory resource, every
//! served skill file (`resources/list`, `resources/read`,
//! `resources/directory/read`) and `skills/list` / `skills/get`.

use super::{lock, SkilldexServer, DIRECTORY_URI, RESOURCE_PAGE};
use crate::mcp::skills::{self, SkillIndex};
use crate::query::{self, Format, Mode, PathStyle, Reach, RenderOptions};
use rmcp::model::{
    GetSkillRequestParams, GetSkillResult, ListResourcesResult, ListSkillsResult,
    PaginatedRequestParams, ReadResourceDirectoryRequestParams, ReadResourceDirectoryResult,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::ErrorData as McpError;

impl SkilldexServer {
    pub(super) async fn resources_list(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let view = self.view();
        // The directory first, then the skills, with the same cursors as
        // `skills/list` (the last skill served).
        let (start, mut all) = match request.as_ref().and_then(|p| p.cursor.as_deref()) {
            Some(cursor) => (
                view.index
                    .start_after(&view.catalog, cursor)
                    .map_err(|why| McpError::invalid_params(why, None))?,
                Vec::with_capacity(RESOURCE_PAGE),
            ),
            None => {
                let directory = Resource::new(DIRECTORY_URI, "skills directory")
                    .with_description(
                        "Every skill of this server: name and description, grouped by namespace.",
                    )
                    .with_mime_type("text/markdown");
                let index = Resource::new(crate::mcp::discovery::INDEX_URI, "skills index")
                    .with_description(
                        "The Agent Skills discovery index of the skills served through skills/list.",
                    )
                    .with_mime_type("application/json");
                let mut first = vec![directory, index];
                first.extend(self.loaded_resource());
                (0, first)
            }
        };
        let skills = view.catalog.skills();
        let end = view
            .index
            .entries
            .len()
            .min(start + RESOURCE_PAGE - all.len());
        for (_, index) in view.index.entries.get(start..end).unwrap_or(&[]) {
            let skill = &skills[*index];
            all.push(
                Resource::new(skills::skill_uri(skill), skill.name.clone())
                    .with_description(skill.description.clone())
                    .with_mime_type("text/markdown"),
            );
        }
        let mut result = ListResourcesResult::with_all_items(all);
        if end < view.index.entries.len() && end > start {
            let (_, last) = &view.index.entries[end - 1];
            result.next_cursor = Some(skills::cursor_after(&skills[*last]));
        }
        Ok(result)
    }

    pub(super) async fn resource_read(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let view = self.view();
        skills::check_length(&request.uri)
            .map_err(|why| McpError::resource_not_found(why, None))?;
        if request.uri == crate::mcp::gateway::LOADED_URI {
            let contents = self.read_loaded(&request.uri);
            return Ok(ReadResourceResult::new(vec![contents]).into());
        }
        // Files are read off the protocol thread: other requests (a ping)
        // are answered meanwhile.
        let task = super::off_thread(&context, "read", move || {
            let uri = request.uri.as_str();
            if uri == DIRECTORY_URI {
                let text = view.directory.get_or_init(|| {
                    query::render_directory(
                        &view.catalog,
                        &RenderOptions {
                            format: Format::Markdown,
                            paths: PathStyle::None,
                            mode: Mode::Directory,
                            budget: None,
                            base: std::path::PathBuf::from("/"),
                            reach: Reach::Mcp,
                            counts_only: true,
                            ..RenderOptions::default()
                        },
                    )
                    .text
                });
                return Ok(ReadResourceResult::new(vec![ResourceContents::text(
                    text.clone(),
                    uri,
                )
                .with_mime_type("text/markdown")])
                .into());
            }
            if uri == crate::mcp::discovery::INDEX_URI {
                // Once per snapshot: it reads and hashes every SKILL.md.
                let text = view
                    .discovery
                    .get_or_init(|| crate::mcp::discovery::index_json(&view.catalog, &view.index));
                return Ok(ReadResourceResult::new(vec![ResourceContents::text(
                    text.clone(),
                    uri,
                )
                .with_mime_type("application/json")])
                .into());
            }
            let not_found = |why: String| McpError::resource_not_found(why, None);
            if let Err(meant) = skills::check_canonical(uri) {
                // A folder's URI is meant for its SKILL.md when it is a skill's.
                let meant = meant.map(|m| match view.index.locate(&m) {
                    Some((_, relative)) if relative.is_empty() => format!("{m}/SKILL.md"),
                    _ => m,
                });
                return Err(not_found(not_canonical(uri, meant.as_deref(), "read")));
            }
            let Some((index, relative)) = view.index.locate(uri) else {
                let hint = if uri.ends_with("/SKILL.md") {
                    uri_hint(&view.index, uri)
                } else {
                    String::new()
                };
                return Err(not_found(format!("no resource at {uri}{hint}")));
            };
            let skill = &view.catalog.skills()[index];
            let contents =
                skills::read_file(&view.catalog, skill, &relative, uri).map_err(not_found)?;
            Ok(ReadResourceResult::new(vec![contents]).into())
        });
        task.await?
    }

    pub(super) async fn skills_list(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, McpError> {
        let view = self.view();
        let offset = match request.as_ref().and_then(|p| p.cursor.as_deref()) {
            None => 0,
            Some(cursor) => view
                .index
                .start_after(&view.catalog, cursor)
                .map_err(|why| McpError::invalid_params(why, None))?,
        };
        let end = view.index.entries.len().min(offset + skills::PAGE_SIZE);
        let mut served = Vec::with_capacity(end.saturating_sub(offset));
        let mut rules = crate::scan::RulesCache::default();
        for (_, index) in view.index.entries.get(offset..end).unwrap_or(&[]) {
            let skill = &view.catalog.skills()[*index];
            match skills::entry_with(&mut rules, &view.catalog, skill) {
                Ok(entry) => served.push(entry),
                Err(reason) => {
                    let message = format!(
                        "{}: not served through the MCP Skills extension: {reason}",
                        skill.path.display()
                    );
                    if lock(&self.inner.logged).insert(message.clone()) {
                        self.log(&message);
                    }
                }
            }
        }
        let mut result = ListSkillsResult::with_all_items(served);
        if end < view.index.entries.len() {
            let (_, last) = &view.index.entries[end - 1];
            result.next_cursor = Some(skills::cursor_after(&view.catalog.skills()[*last]));
        }
        Ok(result)
    }

    pub(super) async fn skill_get(
        &self,
        request: GetSkillRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, McpError> {
        let view = self.view();
        skills::check_length(&request.uri).map_err(|why| McpError::invalid_params(why, None))?;
        let task = super::off_thread(&context, "get", move || {
            let uri = request.uri.as_str();
            if let Err(meant) = skills::check_canonical(uri) {
                return Err(McpError::invalid_params(
                    not_canonical(uri, meant.as_deref(), "get"),
                    None,
                ));
            }
            let unknown = || {
                McpError::invalid_params(
                    format!("No skill is served at {uri}{}", uri_hint(&view.index, uri)),
                    None,
                )
            };
            let root = uri.strip_suffix("/SKILL.md").ok_or_else(unknown)?;
            let index = view.index.by_root(root).ok_or_else(unknown)?;
            let skill = &view.catalog.skills()[index];
            let entry = skills::entry(&view.catalog, skill).map_err(|reason| {
                McpError::invalid_params(format!("{uri} is not served: {reason}"), None)
            })?;
            Ok(GetSkillResult::new(entry))
        });
        task.await?
    }

    pub(super) async fn directory_read(
        &self,
        request: ReadResourceDirectoryRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceDirectoryResult, McpError> {
        let view = self.view();
        skills::check_length(&request.uri).map_err(|why| McpError::invalid_params(why, None))?;
        let task = super::off_thread(&context, "list", move || {
            let uri = request.uri.as_str();
            let not_directory = |why: String| McpError::invalid_params(why, None);
            if let Err(meant) = skills::check_canonical(uri) {
                return Err(not_directory(not_canonical(uri, meant.as_deref(), "list")));
            }
            let Some((index, relative)) = view.index.locate(uri) else {
                return Err(not_directory(format!("{uri} is not a directory resource")));
            };
            let skill = &view.catalog.skills()[index];
            let children = skills::read_directory(&view.catalog, skill, &relative, uri)
                .map_err(not_directory)?;
            Ok(ListResourcesResult::with_all_items(children))
        });
        task.await?
    }
}

/// The refusal of a `skill://` URI not spelled as this server spells it,
/// naming the spelling it most likely meant.
fn not_canonical(uri: &str, meant: Option<&str>, verb: &str) -> String {
    let shown: String = uri.chars().take(300).collect();
    format!(
        "{shown} is not a canonical skill:// URI (no empty, `.` or `..` segments, encoded `/`, query or fragment; characters encoded as this server encodes them){}",
        match meant {
            Some(meant) => format!(" — {verb} {meant}"),
            None => " — use a URI from skills/list or resources/list".to_string(),
        }
    )
}

/// " — did you mean …" for a skill URI that matches no skill, naming the
/// served skills its last segment names; empty when there are none.
fn uri_hint(index: &SkillIndex, uri: &str) -> String {
    let why = "(a skill's URI names its namespace folders and ends with /SKILL.md)";
    match index.uris_like(uri).as_slice() {
        [] => String::new(),
        [one] => format!(" — did you mean {one}? {why}"),
        several => format!(" — did you mean one of {}? {why}", several.join(", ")),
    }
}
