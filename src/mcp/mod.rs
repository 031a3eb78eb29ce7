//! `skilldex serve`: the catalog as an MCP server over stdio, built on
//! `rmcp`. Every rmcp type stays inside this module.
//!
//! What a client gets: the tools of `crate::agent_tools` (search, read, grep,
//! and a request to enable a disabled skill through elicitation), server
//! instructions within what hosts keep of them (`instructions`), every
//! skill as a prompt (`prompts`), the directory, the discovery index
//! `skill://index.json` (`discovery`) and every `SKILL.md` as resources,
//! and the MCP Skills extension (SEP-2640:
//! `skills/list`, `skills/get`, `resources/read` of every manifest file,
//! `resources/directory/read`). rmcp answers `initialize` and
//! `server/discover` (protocol 2026-07-28) from the same server
//! configuration, so both lifecycles see the same capabilities.
//!
//! The server reads catalog snapshots from a `Snapshots` source; each
//! request takes one snapshot and uses it to the end. When the source says
//! the catalog changed, clients get `notifications/resources/list_changed`
//! and `notifications/prompts/list_changed`
//! (unsolicited on legacy sessions, on their `subscriptions/listen` stream
//! on 2026-07-28). skilldex's own tool definitions do not depend on the
//! catalog; the list grows only when the gateway (`gateway/`, in front of
//! the servers of `mcp_servers`) loads tools a `tool_search` found, and
//! that is announced with `notifications/tools/list_changed`.
//!
//! Nothing here prints: messages for the person running the server go to
//! the `log` callback the CLI provides (which writes to stderr); stdout
//! carries the protocol only.

pub mod discovery;
pub mod gateway;
mod guard;
pub mod instructions;
mod lines;
pub mod prompts;
mod server;
pub mod skills;
pub mod upstream;

use crate::catalog::Catalog;
use std::sync::Arc;

/// Where the server gets its catalog: one fixed snapshot, or a live one
/// that is replaced as files change.
pub trait Snapshots: Send + Sync + 'static {
    /// The current snapshot; must not block.
    fn snapshot(&self) -> Arc<Catalog>;
    /// Pick up what changed on disk now (after an install wrote a skill);
    /// may block. False when these snapshots do not follow the disk.
    fn refresh(&self) -> bool {
        false
    }
}

/// A catalog that never changes.
pub struct Fixed(pub Arc<Catalog>);

impl Snapshots for Fixed {
    fn snapshot(&self) -> Arc<Catalog> {
        Arc::clone(&self.0)
    }
}

/// The live catalog: a new snapshot after every change on disk.
impl Snapshots for crate::live::LiveCatalog {
    fn snapshot(&self) -> Arc<Catalog> {
        crate::live::LiveCatalog::snapshot(self)
    }
    fn refresh(&self) -> bool {
        self.flush();
        true
    }
}

/// A first snapshot now, the live catalog as soon as it is watching.
///
/// Starting a live catalog watches every folder before its first walk, which
/// costs more than the walk on a large tree; a server should not make its
/// client wait for that. `Handover` serves a snapshot built the plain way
/// until `LiveCatalog::start` returns on a background thread, then the live
/// one. The live catalog's first walk happens after its watches are set, so
/// nothing written in between is missed: if it differs from the first
/// snapshot, `changes` hears of it.
pub struct Handover {
    first: Arc<Catalog>,
    live: std::sync::OnceLock<crate::live::LiveCatalog>,
}

impl Handover {
    /// Serve `first` until `watch` has a live catalog running.
    pub fn new(first: Arc<Catalog>) -> Arc<Handover> {
        Arc::new(Handover {
            first,
            live: std::sync::OnceLock::new(),
        })
    }

    /// Start watching `builder`'s roots on a background thread. Every
    /// change (the handover itself, when it changed anything, and each
    /// later swap) is sent to `changes` as its revision; a failure to start
    /// watching goes to `log`.
    pub fn watch(
        self: &Arc<Self>,
        builder: crate::catalog::CatalogBuilder,
        options: crate::live::WatchOptions,
        changes: std::sync::mpsc::Sender<String>,
        log: Log,
    ) -> std::io::Result<()> {
        let shared = Arc::clone(self);
        std::thread::Builder::new()
            .name("skilldex-serve-live".into())
            .spawn(move || {
                let live = match crate::live::LiveCatalog::start(builder, options) {
                    Ok(live) => live,
                    Err(error) => {
                        log(&format!(
                            "not following changes on disk: {error} (restart to retry)"
                        ));
                        return;
                    }
                };
                let subscription = live.subscribe();
                let problems = live.problems();
                let revision = live.snapshot().revision().to_string();
                let _ = shared.live.set(live);
                if revision != shared.first.revision() && changes.send(revision).is_err() {
                    return;
                }
                let problem_log = Arc::clone(&log);
                let _ = std::thread::Builder::new()
                    .name("skilldex-serve-problems".into())
                    .spawn(move || {
                        for problem in problems {
                            problem_log(&problem.to_string());
                        }
                    });
                for change in subscription {
                    if changes.send(change.revision.clone()).is_err() {
                        break;
                    }
                }
            })?;
        Ok(())
    }
}

impl Snapshots for Handover {
    fn snapshot(&self) -> Arc<Catalog> {
        match self.live.get() {
            Some(live) => live.snapshot(),
            None => Arc::clone(&self.first),
        }
    }
    fn refresh(&self) -> bool {
        if let Some(live) = self.live.get() {
            live.flush();
        }
        true
    }
}

/// A message for the person running the server.
pub type Log = Arc<dyn Fn(&str) + Send + Sync>;

/// How to run the server.
pub struct ServeOptions {
    pub snapshots: Arc<dyn Snapshots>,
    /// Signals that the catalog changed (one message per change).
    pub changes: Option<std::sync::mpsc::Receiver<String>>,
    /// The configuration files, for persisting "enable always".
    pub settings: Option<crate::config::Settings>,
    /// What the instructions are fitted to (the directory's budget, the
    /// host).
    pub instructions: instructions::Fit,
    /// Run once the first request is answered (to start work that must
    /// not delay it, such as watching the roots).
    pub on_started: Option<Box<dyn FnOnce() + Send>>,
    pub log: Log,
    /// The semantic search model (`--model`): `search_skills` ranks by
    /// meaning too, and each snapshot embeds only the skills that changed.
    pub semantic: Option<Arc<crate::search::SemanticModel>>,
    /// A model was named but could not be loaded: searches answer by
    /// words with [`crate::search::SEMANTIC_OFF_NOTE`].
    pub semantic_off: bool,
}

/// Why the server stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("could not start the async runtime: {0}")]
    Runtime(std::io::Error),
    #[error("the MCP session failed to start: {0}")]
    Start(String),
    #[error("the MCP session ended with an error: {0}")]
    Session(String),
}

/// Serve on stdin/stdout until the client closes stdin.
pub fn serve_stdio(options: ServeOptions) -> Result<(), ServeError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(ServeError::Runtime)?;
    runtime.block_on(server::run(options))
}
