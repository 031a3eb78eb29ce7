//! The skilldex MCP server: one snapshot view per catalog revision and the
//! state a session shares. The work is split by job:
//! `handler.rs` wires rmcp's `ServerHandler` to the rest (and refuses what
//! is not offered), `calls.rs` lists and runs the tools, `enable.rs` asks
//! the user (elicitation) for `request_skill_enable`, `resources.rs` serves
//! the directory, the resources and the Skills extension, `prompts.rs`
//! offers every skill as a prompt, and `notify.rs` tells clients about
//! changes (`list_changed`, `subscriptions/listen`).

mod calls;
mod enable;
mod gateway;
mod handler;
mod notify;
mod prompts;
mod resources;
mod suggest;

use super::skills::SkillIndex;
use super::{Log, ServeError, ServeOptions, Snapshots};
use crate::agent_tools::{ArgumentError, ToolAnswer};
use crate::catalog::Catalog;
use rmcp::model::{CallToolResult, ContentBlock, ServerCapabilities};
use rmcp::service::SubscriptionSink;
use rmcp::{ErrorData as McpError, ServiceExt};
use std::collections::{BTreeSet, HashSet};
use std::sync::{Arc, Mutex, OnceLock};

/// URI of the rendered directory resource.
pub const DIRECTORY_URI: &str = "skilldex://directory";
/// Resources per `resources/list` page.
const RESOURCE_PAGE: usize = 1_000;

/// What one snapshot looks like through MCP; rebuilt when the snapshot or
/// the skills enabled in this session change.
struct View {
    catalog: Arc<Catalog>,
    index: SkillIndex,
    instructions: String,
    /// The full directory, rendered on first read.
    directory: OnceLock<String>,
    /// `skill://index.json` of this snapshot, made on first read (it
    /// reads and hashes every `SKILL.md`).
    discovery: OnceLock<String>,
    /// The snapshot with its search index beside it (built on the first
    /// search).
    searchable: Arc<crate::search::Searchable>,
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
    instructions: super::instructions::Fit,
    log: Log,
    semantic: Option<Arc<crate::search::SemanticModel>>,
    semantic_off: bool,
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
    /// The MCP servers behind skilldex and the tools loaded from them.
    gateway: Arc<crate::mcp::gateway::Gateway>,
}

/// The skilldex MCP server. Cheap to clone: clones share one state.
#[derive(Clone)]
pub struct SkilldexServer {
    inner: Arc<Inner>,
}

/// Requests whose blocking work (reads, greps, searches) runs at once;
/// the rest wait for a slot, so a storm of requests holds at most this
/// many requests' memory. stdin and stdout are not behind it.
const WORK_SLOTS: usize = 32;

/// Run `work` on the blocking pool for a request once one of
/// [`WORK_SLOTS`] is free, unless the client cancels the request first:
/// a storm of requests cancelled at once costs their queueing, not their
/// work.
async fn off_thread<T: Send + 'static>(
    context: &rmcp::service::RequestContext<rmcp::RoleServer>,
    what: &str,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, McpError> {
    static SLOTS: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(WORK_SLOTS);
    let cancelled =
        || McpError::internal_error(format!("{what} was cancelled before it started"), None);
    let token = context.ct.clone();
    let slot = tokio::select! {
        slot = SLOTS.acquire() => slot.map_err(|e| McpError::internal_error(e.to_string(), None))?,
        () = token.cancelled() => return Err(cancelled()),
    };
    tokio::task::spawn_blocking(move || {
        let _slot = slot;
        (!token.is_cancelled()).then(work)
    })
    .await
    .map_err(|e| McpError::internal_error(format!("{what} failed: {e}"), None))?
    .ok_or_else(cancelled)
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
                instructions: options.instructions,
                log: Arc::clone(&options.log),
                semantic: options.semantic.clone(),
                semantic_off: options.semantic_off,
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
                gateway: Arc::new(crate::mcp::gateway::Gateway::new(
                    options.settings.as_ref(),
                    Arc::clone(&options.log),
                )),
            }),
        }
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
            searchable: Arc::new(match &self.inner.semantic {
                Some(model) => crate::search::Searchable::with_semantic(
                    Arc::clone(&catalog),
                    Arc::clone(model),
                ),
                None if self.inner.semantic_off => {
                    crate::search::Searchable::semantic_off(Arc::clone(&catalog))
                }
                None => crate::search::Searchable::new(Arc::clone(&catalog)),
            }),
            catalog,
            index,
            instructions,
            directory: OnceLock::new(),
            discovery: OnceLock::new(),
            everything: OnceLock::new(),
        });
        state.base = Some(base);
        state.view = Some(Arc::clone(&view));
        view
    }

    fn instructions(&self, catalog: &Catalog) -> String {
        super::instructions::fitted(catalog, &self.inner.instructions).text
    }

    /// Build the current snapshot's search index (it is built once, on
    /// first use, and kept with the snapshot).
    fn warm_search(&self) {
        let view = self.view();
        // Tools are in it too: `tool_search` searches this index.
        let _ = view.searchable.index();
        // The semantic mode: this snapshot's vectors (only changed skills
        // are embedded; the rest come from the model's cache).
        match view.searchable.semantic_index() {
            Some(Ok(vectors)) => {
                let stats = vectors.stats();
                if stats.embedded > 0 {
                    self.log(&format!(
                        "embedded {} of {} {} for semantic search",
                        stats.embedded,
                        stats.entries,
                        if stats.tools > 0 {
                            "skills and tools"
                        } else {
                            "skills"
                        }
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

    fn capabilities() -> ServerCapabilities {
        ServerCapabilities::builder()
            .enable_prompts()
            .enable_prompts_list_changed()
            .enable_resources()
            .enable_resources_list_changed()
            .enable_tools()
            .enable_tool_list_changed()
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
    // Stop the upstream servers the session started.
    server.inner.gateway.pool.shutdown().await;
    // rmcp's end of the pipe is gone: the copier writes what is left.
    let _ = copier.await;
    ended
}
