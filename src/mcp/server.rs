//! The `ServerHandler`: one snapshot view per catalog revision, the tools,
//! the resources, the Skills extension, elicitation for
//! `request_skill_enable`, and change notifications.

use super::skills::{self, SkillIndex};
use super::{Log, ServeError, ServeOptions, Snapshots};
use crate::catalog::Catalog;
use crate::query::{self, Budget, Format, Mode, PathStyle, Reach, RenderOptions};
use crate::tools::{self, ArgumentError, Arguments, ToolAnswer};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestParams, CompleteResult,
    ContentBlock, CustomRequest, CustomResult, ElicitRequest, ElicitRequestParams, ElicitResult,
    ElicitationAction, ElicitationSchema, ErrorCode, GetPromptRequestParams, GetPromptResponse,
    GetSkillRequestParams, GetSkillResult, Implementation, InputRequest, InputRequests,
    InputRequiredResult, ListPromptsResult, ListResourcesResult, ListSkillsResult, ListToolsResult,
    MetaObject, PaginatedRequestParams, ProtocolVersion, ReadResourceDirectoryRequestParams,
    ReadResourceDirectoryResult, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, RequestMetaObject, Resource, ResourceContents, ServerCapabilities,
    ServerConfig, SubscribeRequestParams, SubscriptionFilter, Tool, ToolAnnotations,
    UnsubscribeRequestParams,
};
use rmcp::service::{
    ElicitationMode, RequestContext, RoleServer, SubscriptionContext, SubscriptionSink,
};
use rmcp::{ErrorData as McpError, Peer, ServerHandler, ServiceExt};
use serde_json::{json, Map, Value};
use std::collections::{BTreeSet, HashSet};
use std::sync::{Arc, Mutex, OnceLock};

/// URI of the rendered directory resource.
pub const DIRECTORY_URI: &str = "skilldex://directory";
/// Resources per `resources/list` page.
const RESOURCE_PAGE: usize = 1_000;
/// The instructions' directory budget when none is configured.
const DEFAULT_BUDGET_TOKENS: usize = 4_000;
/// Key of the one input request of `request_skill_enable` (2026-07-28).
const ENABLE_INPUT: &str = "enable";

/// What one snapshot looks like through MCP; rebuilt when the snapshot or
/// the skills enabled in this session change.
struct View {
    catalog: Arc<Catalog>,
    index: SkillIndex,
    instructions: String,
    /// The full directory, rendered on first read.
    directory: OnceLock<String>,
    /// The snapshot with its search index beside it (built on the first
    /// search).
    searchable: crate::search::Searchable,
    /// The catalog with its disabled skills enabled (None when none is
    /// disabled), so that a search can name the disabled ones that match.
    everything: OnceLock<Option<crate::search::Searchable>>,
}

struct State {
    base: Option<Arc<Catalog>>,
    view: Option<Arc<View>>,
    /// Ids the user enabled in this session.
    enabled: BTreeSet<String>,
}

struct Inner {
    snapshots: Arc<dyn Snapshots>,
    settings: Option<crate::config::Settings>,
    budget_tokens: Option<usize>,
    log: Log,
    semantic: Option<Arc<crate::search::SemanticModel>>,
    state: Mutex<State>,
    /// Open `subscriptions/listen` streams (2026-07-28 sessions).
    sinks: Mutex<Vec<(u64, SubscriptionSink)>>,
    next_sink: std::sync::atomic::AtomicU64,
    /// Skills whose exclusion from the extension was already logged.
    logged: Mutex<HashSet<String>>,
    /// When the resources last changed, so a listen stream opened just
    /// after (within 250 ms) still hears of it (rmcp acknowledges a `subscriptions/listen`
    /// before the handler registers its sink, and a client may send its
    /// next request in between).
    last_change: Mutex<Option<std::time::Instant>>,
    /// The revision last announced in the log.
    logged_revision: Mutex<String>,
    /// Becomes true when the client closes stdin: what waits on the
    /// client (an elicitation, a listen stream) stops then.
    input_closed: tokio::sync::watch::Sender<bool>,
}

/// The skilldex MCP server. Cheap to clone: clones share one state.
#[derive(Clone)]
pub struct SkilldexServer {
    inner: Arc<Inner>,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

impl SkilldexServer {
    pub fn new(options: &ServeOptions) -> Self {
        SkilldexServer {
            inner: Arc::new(Inner {
                snapshots: Arc::clone(&options.snapshots),
                settings: options.settings.clone(),
                budget_tokens: options.budget_tokens,
                log: Arc::clone(&options.log),
                semantic: options.semantic.clone(),
                state: Mutex::new(State {
                    base: None,
                    view: None,
                    enabled: BTreeSet::new(),
                }),
                sinks: Mutex::new(Vec::new()),
                next_sink: std::sync::atomic::AtomicU64::new(0),
                logged: Mutex::new(HashSet::new()),
                last_change: Mutex::new(None),
                logged_revision: Mutex::new(options.snapshots.snapshot().revision().to_string()),
                input_closed: tokio::sync::watch::Sender::new(false),
            }),
        }
    }

    /// Resolves when the client has closed stdin.
    async fn input_closed(&self) {
        let mut closed = self.inner.input_closed.subscribe();
        // An error means the sender is gone: the session is over too.
        let _ = closed.wait_for(|closed| *closed).await;
    }

    fn log(&self, message: &str) {
        (self.inner.log)(message);
    }

    /// The view of the current snapshot.
    fn view(&self) -> Arc<View> {
        let base = self.inner.snapshots.snapshot();
        let mut state = lock(&self.inner.state);
        if let (Some(previous), Some(view)) = (&state.base, &state.view) {
            if Arc::ptr_eq(previous, &base) {
                return Arc::clone(view);
            }
        }
        let catalog = if state.enabled.is_empty() {
            Arc::clone(&base)
        } else {
            let keys: Vec<&str> = state.enabled.iter().map(String::as_str).collect();
            Arc::new(base.enabling(&keys))
        };
        let index = SkillIndex::new(&catalog);
        {
            let mut logged = lock(&self.inner.logged);
            for message in &index.left_out {
                if logged.insert(message.clone()) {
                    self.log(message);
                }
            }
        }
        let instructions = self.instructions(&catalog);
        let view = Arc::new(View {
            searchable: match &self.inner.semantic {
                Some(model) => crate::search::Searchable::with_semantic(
                    Arc::clone(&catalog),
                    Arc::clone(model),
                ),
                None => crate::search::Searchable::new(Arc::clone(&catalog)),
            },
            catalog,
            index,
            instructions,
            directory: OnceLock::new(),
            everything: OnceLock::new(),
        });
        state.base = Some(base);
        state.view = Some(Arc::clone(&view));
        view
    }

    fn instructions(&self, catalog: &Catalog) -> String {
        let budget = self.inner.budget_tokens.unwrap_or(DEFAULT_BUDGET_TOKENS);
        let rendered = query::render_directory(
            catalog,
            &RenderOptions {
                format: Format::Markdown,
                paths: PathStyle::None,
                mode: Mode::Auto,
                budget: Some(Budget::Tokens(budget)),
                base: std::path::PathBuf::from("/"),
                reach: Reach::Mcp,
                counts_only: true,
                ..RenderOptions::default()
            },
        );
        let mut text = String::from(
            "This server gives you skills: instructions for specific tasks, written by people who know them. \
When a task matches a skill's description, call `read_skill` with its name and follow it before you start; \
pass `path` to open a file the skill mentions. Call `search_skills` with a few words of the task to find skills \
the directory below does not list, and `grep_skills` to look for text inside skills. If a read or a search says a skill \
is disabled by configuration and it is clearly what the task needs, `request_skill_enable` asks the user to \
enable it.\n\n",
        );
        text.push_str(&rendered.text);
        text
    }

    /// Build the current snapshot's search index (it is built once, on
    /// first use, and kept with the snapshot).
    fn warm_search(&self) {
        let view = self.view();
        let _ = view.searchable.index();
        // The semantic mode: this snapshot's vectors (only changed skills
        // are embedded; the rest come from the model's cache).
        match view.searchable.semantic_index() {
            Some(Ok(vectors)) => {
                let stats = vectors.stats();
                if stats.embedded > 0 {
                    self.log(&format!(
                        "embedded {} of {} skills for semantic search",
                        stats.embedded, stats.entries
                    ));
                }
                if let Some(error) = &stats.cache_error {
                    self.log(&format!("could not write the embedding cache: {error}"));
                }
            }
            Some(Err(error)) => self.log(&format!("semantic search is off: {error}")),
            None => {}
        }
    }

    /// Forget the cached view (the next request rebuilds it).
    fn invalidate(&self) {
        let mut state = lock(&self.inner.state);
        state.base = None;
        state.view = None;
    }

    /// Tell every listener that the resources changed.
    async fn notify_changed(&self, peer: Option<&Peer<RoleServer>>) {
        *lock(&self.inner.last_change) = Some(std::time::Instant::now());
        if let Some(peer) = peer {
            // Unsolicited notifications exist only on sessions that began
            // with `initialize`.
            if peer.peer_info().is_some() {
                let _ = peer.notify_resource_list_changed().await;
            }
        }
        let sinks: Vec<SubscriptionSink> = lock(&self.inner.sinks)
            .iter()
            .map(|(_, s)| s.clone())
            .collect();
        for sink in sinks {
            let _ = sink.notify_resource_list_changed().await;
        }
    }

    /// The catalog changed on disk: rebuild the view now (so the log shows
    /// problems at once) and tell the clients.
    async fn on_catalog_change(&self, peer: &Peer<RoleServer>, revision: &str) {
        let view = self.view();
        let same = std::mem::replace(
            &mut *lock(&self.inner.logged_revision),
            revision.to_string(),
        ) == revision;
        if same {
            self.log(&format!(
                "files of skills changed (the catalog is still revision {revision})"
            ));
        } else {
            self.log(&format!(
                "catalog revision {revision}: {} skills",
                view.catalog.skills().len()
            ));
        }
        self.notify_changed(Some(peer)).await;
    }

    fn capabilities() -> ServerCapabilities {
        ServerCapabilities::builder()
            .enable_resources()
            .enable_resources_list_changed()
            .enable_tools()
            .enable_skills_with_directory_read()
            .build()
    }

    fn answer(answer: ToolAnswer) -> CallToolResult {
        let content = vec![ContentBlock::text(answer.text)];
        if answer.is_error {
            CallToolResult::error(content)
        } else {
            CallToolResult::success(content)
        }
    }

    fn invalid(error: ArgumentError) -> McpError {
        McpError::invalid_params(error.to_string(), None)
    }

    async fn request_enable(
        &self,
        request: &CallToolRequestParams,
        arguments: &Map<String, Value>,
        context: &RequestContext<RoleServer>,
        view: &View,
    ) -> Result<CallToolResponse, McpError> {
        let checked =
            Arguments::new(tools::REQUEST_SKILL_ENABLE, arguments).map_err(Self::invalid)?;
        let (skill, reason) =
            match tools::enable_request(&view.catalog, &checked).map_err(Self::invalid)? {
                Ok(found) => found,
                Err(answer) => return Ok(Self::answer(answer).into()),
            };
        let id = skill.id.clone();
        let modern = context
            .protocol_version()
            .is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
        let state_token = format!("enable:{id}");
        let supports_form = if modern {
            context
                .client_capabilities()
                .is_some_and(|c| c.elicitation.is_some())
        } else {
            context
                .peer
                .supported_elicitation_modes()
                .contains(&ElicitationMode::Form)
        };
        let response: ElicitResult = match request
            .input_responses
            .as_ref()
            .and_then(|r| r.get(ENABLE_INPUT))
        {
            Some(value) if modern && request.request_state.as_deref() == Some(&state_token) => {
                serde_json::from_value(value.clone()).map_err(|e| {
                    McpError::invalid_params(
                        format!(
                            "the `{ENABLE_INPUT}` input response is not an elicitation result: {e}"
                        ),
                        None,
                    )
                })?
            }
            _ => {
                if !supports_form {
                    return Ok(Self::answer(ToolAnswer::error(format!(
                        "this MCP client does not support elicitation, so skilldex cannot ask the user to enable `{id}`. Tell the user that the skill `{id}` would help ({reason}) and that they can enable it by removing it from the `disabled` list of skilldex.yaml{}.",
                        self.config_files_hint(skill)
                    )))
                    .into());
                }
                let params = Self::elicitation(skill, &reason);
                if modern {
                    let mut requests = InputRequests::new();
                    requests.insert(
                        ENABLE_INPUT.to_string(),
                        InputRequest::Elicitation(ElicitRequest::new(params)),
                    );
                    return Ok(CallToolResponse::InputRequired(InputRequiredResult::new(
                        Some(requests),
                        Some(state_token),
                    )));
                }
                let asked = tokio::select! {
                    asked = context.peer.create_elicitation(params) => asked,
                    () = self.input_closed() => {
                        return Ok(Self::answer(ToolAnswer::error(format!(
                            "the client closed the connection before the user answered; `{id}` stays disabled"
                        )))
                        .into())
                    }
                };
                match asked {
                    Ok(result) => result,
                    Err(error) => {
                        return Ok(Self::answer(ToolAnswer::error(format!(
                            "could not ask the user to enable `{id}`: {error}"
                        )))
                        .into())
                    }
                }
            }
        };
        let confirmed = response.action == ElicitationAction::Accept;
        let persist = confirmed && wants_persist(&response);
        let mut answer = json!({
            "completed": false,
            "user_confirmed": confirmed,
            "name": id,
        });
        if confirmed {
            let mut notes = Vec::new();
            if persist {
                match &self.inner.settings {
                    Some(settings) => match crate::config::persist_enable(settings, skill) {
                        Ok(persisted) => {
                            if !persisted.files.is_empty() {
                                answer["persisted"] = json!(persisted
                                    .files
                                    .iter()
                                    .map(|p| p.display().to_string())
                                    .collect::<Vec<_>>());
                                self.log(&format!(
                                    "enabled `{id}` for good: edited {} so that it is no longer disabled",
                                    persisted
                                        .files
                                        .iter()
                                        .map(|p| p.display().to_string())
                                        .collect::<Vec<_>>()
                                        .join(", ")
                                ));
                            }
                            if persisted.still_disabled_by_environment {
                                notes.push("SKILLDEX_DISABLED still names it, so it stays disabled in future sessions until that variable changes".to_string());
                            }
                        }
                        Err(error) => {
                            notes.push(format!("enabled for this session only: {error}"));
                        }
                    },
                    None => notes.push(
                        "enabled for this session only: no configuration file is in use"
                            .to_string(),
                    ),
                }
            }
            lock(&self.inner.state).enabled.insert(id.clone());
            self.invalidate();
            let now = self.view();
            answer["completed"] = json!(now.catalog.get(&id).is_some());
            if !notes.is_empty() {
                answer["note"] = json!(notes.join("; "));
            }
            let peer = context.peer.clone();
            self.notify_changed(Some(&peer)).await;
            self.log(&format!("the user enabled `{id}` for this session"));
        }
        Ok(Self::answer(ToolAnswer::ok(answer.to_string())).into())
    }

    fn config_files_hint(&self, skill: &crate::model::Skill) -> String {
        let files: Vec<String> = self
            .inner
            .settings
            .iter()
            .flat_map(|s| s.files.iter())
            .filter(|f| {
                f.settings
                    .disabled
                    .iter()
                    .any(|e| crate::config::names_skill(e, skill))
            })
            .map(|f| f.path.display().to_string())
            .collect();
        if files.is_empty() {
            String::new()
        } else {
            format!(" ({})", files.join(", "))
        }
    }

    fn elicitation(skill: &crate::model::Skill, reason: &str) -> ElicitRequestParams {
        let mut meta = MetaObject::new();
        for (key, value) in [
            ("codex_approval_kind", json!("tool_suggestion")),
            ("persist", json!("always")),
            ("tool_type", json!("skill")),
            ("suggest_type", json!("enable")),
            ("suggest_reason", json!(reason)),
            ("tool_id", json!(skill.id)),
            ("tool_name", json!(skill.name)),
        ] {
            meta.0.insert(key.to_string(), value);
        }
        // Nothing to fill in: the answer is the action (accept or decline)
        // and, for "always", `_meta.persist`.
        let schema = ElicitationSchema::new(std::collections::BTreeMap::new());
        ElicitRequestParams::FormElicitationParams {
            meta: Some(RequestMetaObject(meta)),
            message: format!(
                "{reason}\n\nEnable the skill `{}`? ({})",
                skill.id, skill.description
            ),
            requested_schema: schema,
        }
    }
}

/// Did the user ask to remember the answer (`_meta.persist` or a
/// `persist` field in the form)?
fn wants_persist(response: &ElicitResult) -> bool {
    let always = |v: Option<&Value>| {
        v.is_some_and(|v| v.as_str() == Some("always") || v.as_bool() == Some(true))
    };
    always(response.meta.as_ref().and_then(|m| m.0.get("persist")))
        || always(response.content.as_ref().and_then(|c| c.get("persist")))
}

/// `-32601` for a method this server does not offer, saying what it does
/// offer (rmcp's own answer is the bare method name).
fn not_offered(method: &str) -> McpError {
    let note = if method.starts_with("resources/") {
        "; it announces changes with notifications/resources/list_changed"
    } else {
        ""
    };
    McpError::new(
        ErrorCode::METHOD_NOT_FOUND,
        format!(
            "method not found: {method} (this server offers tools, resources and skills: tools/list, tools/call, resources/list, resources/read, skills/list, skills/get{note})"
        ),
        None,
    )
}

/// Methods this server answers; rmcp hands one over as a custom request
/// only when it could not read its params.
const OFFERED: &[&str] = &[
    "initialize",
    "ping",
    "server/discover",
    "subscriptions/listen",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "resources/directory/read",
    "skills/list",
    "skills/get",
];

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

impl ServerHandler for SkilldexServer {
    fn get_info(&self) -> ServerConfig {
        let view = self.view();
        let mut info =
            ServerConfig::new(Self::capabilities()).with_instructions(view.instructions.clone());
        info.server_info = Implementation::new("skilldex", env!("CARGO_PKG_VERSION"));
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let tools = tools::definitions()
            .into_iter()
            .map(|d| {
                let schema = match d.input_schema {
                    Value::Object(map) => map,
                    _ => Map::new(),
                };
                // Search, read and grep only read local files; enabling a
                // skill asks the user and may rewrite a config file.
                let read_only = d.name != tools::REQUEST_SKILL_ENABLE;
                let annotations = ToolAnnotations::new()
                    .read_only(read_only)
                    .destructive(false)
                    .idempotent(read_only)
                    .open_world(false);
                Tool::new(d.name, d.description, Arc::new(schema)).with_annotations(annotations)
            })
            .collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let view = self.view();
        let arguments = request.arguments.clone().unwrap_or_default();
        let name = request.name.to_string();
        let answer = match name.as_str() {
            tools::READ_SKILL => {
                // A read opens files: off the protocol thread, so a slow
                // disk or a hostile file never holds up other requests.
                let view = Arc::clone(&view);
                let task = tokio::task::spawn_blocking(move || {
                    let checked = Arguments::new(tools::READ_SKILL, &arguments)?;
                    let locate = |uri: &str| view.index.locate(uri);
                    tools::read_skill(&view.catalog, &checked, &locate)
                });
                task.await
                    .map_err(|e| McpError::internal_error(format!("read failed: {e}"), None))?
                    .map_err(Self::invalid)?
            }
            tools::GREP_SKILLS => {
                // Grep may read every file: keep it off the protocol thread.
                let view = Arc::clone(&view);
                let task = tokio::task::spawn_blocking(move || {
                    let checked = Arguments::new(tools::GREP_SKILLS, &arguments)?;
                    tools::grep_skills(&view.catalog, &checked)
                });
                task.await
                    .map_err(|e| McpError::internal_error(format!("grep failed: {e}"), None))?
                    .map_err(Self::invalid)?
            }
            tools::SEARCH_SKILLS => {
                let checked = Arguments::new(&name, &arguments).map_err(Self::invalid)?;
                let (index, all) = (&view.index, view.catalog.skills());
                let uri_of = |skill: &crate::model::Skill| {
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
                        crate::search::Searchable::new(Arc::new(view.catalog.enabling(&ids)))
                    })
                });
                tools::search_skills(&view.searchable, &checked, &uri_of, everything.as_ref())
                    .map_err(Self::invalid)?
            }
            tools::REQUEST_SKILL_ENABLE => {
                return self
                    .request_enable(&request, &arguments, &context, &view)
                    .await;
            }
            other => {
                return Err(Self::invalid(ArgumentError::UnknownTool(other.to_string())));
            }
        };
        Ok(Self::answer(answer).into())
    }

    async fn list_resources(
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
                (0, vec![directory])
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

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let view = self.view();
        skills::check_length(&request.uri)
            .map_err(|why| McpError::resource_not_found(why, None))?;
        // Files are read off the protocol thread: other requests (a ping)
        // are answered meanwhile.
        let task = tokio::task::spawn_blocking(move || {
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
        task.await
            .map_err(|e| McpError::internal_error(format!("read failed: {e}"), None))?
    }

    async fn list_skills(
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

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, McpError> {
        let view = self.view();
        skills::check_length(&request.uri).map_err(|why| McpError::invalid_params(why, None))?;
        let task = tokio::task::spawn_blocking(move || {
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
        task.await
            .map_err(|e| McpError::internal_error(format!("get failed: {e}"), None))?
    }

    async fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceDirectoryResult, McpError> {
        let view = self.view();
        skills::check_length(&request.uri).map_err(|why| McpError::invalid_params(why, None))?;
        let task = tokio::task::spawn_blocking(move || {
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
        task.await
            .map_err(|e| McpError::internal_error(format!("list failed: {e}"), None))?
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        Err(not_offered("prompts/list"))
    }

    async fn get_prompt(
        &self,
        _request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        Err(not_offered("prompts/get"))
    }

    async fn complete(
        &self,
        _request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        Err(not_offered("completion/complete"))
    }

    // Logging is deprecated (SEP-2577), but older clients still send it.
    #[allow(deprecated)]
    async fn set_level(
        &self,
        _request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        Err(not_offered("logging/setLevel"))
    }

    async fn subscribe(
        &self,
        _request: SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        Err(not_offered("resources/subscribe"))
    }

    async fn unsubscribe(
        &self,
        _request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        Err(not_offered("resources/unsubscribe"))
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, McpError> {
        let method = request.method.as_str();
        if OFFERED.contains(&method) {
            return Err(McpError::invalid_params(
                format!("invalid params: the `params` of {method} do not have the shape MCP defines for it"),
                None,
            ));
        }
        Err(not_offered(method))
    }

    fn accepted_subscription_filter(
        &self,
        _requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(
            SubscriptionFilter::builder()
                .resources_list_changed()
                .tools_list_changed()
                .build(),
        )
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), McpError> {
        let id = self
            .inner
            .next_sink
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        lock(&self.inner.sinks).push((id, context.sink().clone()));
        let recent = lock(&self.inner.last_change)
            .is_some_and(|at| at.elapsed() < std::time::Duration::from_millis(250));
        if recent {
            let _ = context.sink().notify_resource_list_changed().await;
        }
        tokio::select! {
            () = context.cancelled() => {}
            () = self.input_closed() => {}
        }
        lock(&self.inner.sinks).retain(|(i, _)| *i != id);
        Ok(())
    }
}

/// Run the server on stdio until the client closes stdin.
pub(super) async fn run(options: ServeOptions) -> Result<(), ServeError> {
    let server = SkilldexServer::new(&options);
    // Render the instructions before the first request arrives.
    let _ = server.view();
    let (reader, writer) = rmcp::transport::stdio_pipes();
    let (rmcp_in, rmcp_out, copier) =
        super::guard::guarded(reader, writer, server.inner.input_closed.clone());
    let service = match server.clone().serve((rmcp_in, rmcp_out)).await {
        Ok(service) => service,
        // The client closed stdin before a session began: nothing failed.
        Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => {
            let _ = copier.await;
            return Ok(());
        }
        Err(error) => return Err(ServeError::Start(error.to_string())),
    };
    if let Some(started) = options.on_started {
        started();
    }
    // Build the search index while the client is still getting ready.
    {
        let server = server.clone();
        tokio::task::spawn_blocking(move || server.warm_search());
    }
    if let Some(changes) = options.changes {
        let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel::<String>();
        std::thread::Builder::new()
            .name("skilldex-changes".to_string())
            .spawn(move || {
                while let Ok(revision) = changes.recv() {
                    if sender.send(revision).is_err() {
                        break;
                    }
                }
            })
            .map_err(|e| ServeError::Start(e.to_string()))?;
        let peer = service.peer().clone();
        let server = server.clone();
        tokio::spawn(async move {
            while let Some(revision) = receiver.recv().await {
                server.on_catalog_change(&peer, &revision).await;
                // The new snapshot's search index, before a search needs it.
                let warm = server.clone();
                tokio::task::spawn_blocking(move || warm.warm_search());
            }
        });
    }
    let ended = service
        .waiting()
        .await
        .map(|_| ())
        .map_err(|e| ServeError::Session(e.to_string()));
    // rmcp's end of the pipe is gone: the copier writes what is left.
    let _ = copier.await;
    ended
}
