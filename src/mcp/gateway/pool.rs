//! The upstream pool: one long-lived rmcp client per configured MCP server.
//!
//! A server starts on its first call and stays up. Each server has its own
//! lock, held only while it is being started: a slow or dead server makes
//! only its own callers wait (at most its `timeout`), never the others or
//! skilldex's own tools. A call does not hold the lock, so calls to one
//! server run side by side.
//!
//! After a crash the next call starts it again. A server that dies before
//! answering any call, or fails to start, is retried with backoff (250 ms,
//! doubling, at most 30 s); a call that arrives within a short backoff
//! waits it out, one that arrives within a long one is told when the next
//! attempt is.
//!
//! A call carries through what the protocol carries: its progress (the
//! upstream's `notifications/progress` go to the client under the
//! client's own token), its cancellation (`notifications/cancelled`
//! upstream) and a timeout (the server's `timeout`, restarted by every
//! progress notification, and ten times that in all). Whatever goes wrong
//! upstream comes back as a tool result with `isError: true` and the
//! server's own message, never as a protocol error of skilldex's.
//!
//! When a server announces `notifications/tools/list_changed`, its tools
//! are listed again on the same connection and its snapshot rewritten
//! atomically (byte-stable, as `tools sync` writes it) when it differs. The
//! notices of a burst (within 200 ms) are answered by one listing, and one
//! listing runs at a time: a flood of notices costs a listing per 200 ms
//! at most, not one per notice.

use crate::mcp::upstream::{self, UpstreamCommand};
use crate::mcp::Log;
use rmcp::model::{
    CallToolResult, CancelledNotificationParam, ClientRequest, ContentBlock, CustomRequest,
    ProgressNotificationParam, ProgressToken, ResultType,
};
use rmcp::service::{
    NotificationContext, PeerRequestOptions, RoleClient, RoleServer, RunningService,
};
use rmcp::{ClientHandler, Peer, ServiceError, ServiceExt};
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A short backoff is waited out by the call that meets it.
const WAIT_OUT: Duration = Duration::from_secs(1);
const FIRST_BACKOFF: Duration = Duration::from_millis(250);
const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// A call may run this many times its server's timeout in all, even while
/// it keeps reporting progress.
const MAX_TOTAL_FACTOR: u32 = 10;
/// How long a `tools/list_changed` waits for more of its kind before the
/// tools are listed again.
const REFRESH_GATHER: Duration = Duration::from_millis(200);
/// How long an upstream progress token is still forwarded after its call
/// ended.
const PROGRESS_LINGER: Duration = Duration::from_millis(500);

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// Every configured server, by name.
pub struct Pool {
    upstreams: std::sync::RwLock<BTreeMap<String, Arc<Upstream>>>,
    log: Log,
    rewrites: Arc<super::find::Rewrites>,
}

/// What a proxied call carries from the client's request.
pub struct Through {
    /// The client, for progress notifications.
    pub peer: Peer<RoleServer>,
    /// The client's progress token, when it asked for progress.
    pub progress_token: Option<ProgressToken>,
    /// Resolves when the client cancels its request.
    pub cancelled: std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>,
}

impl Pool {
    /// `servers`: each name with how to start it, or why it cannot be.
    /// Every snapshot a server's `tools/list_changed` rewrites is recorded
    /// in `rewrites` (searchable at once).
    pub fn new(
        servers: Vec<(String, Result<UpstreamCommand, String>)>,
        log: Log,
        rewrites: Arc<super::find::Rewrites>,
    ) -> Pool {
        let pool = Pool {
            upstreams: std::sync::RwLock::default(),
            log,
            rewrites,
        };
        for (name, command) in servers {
            pool.add(name, command);
        }
        pool
    }

    /// Add (or replace) the server `name`.
    pub fn add(&self, name: String, command: Result<UpstreamCommand, String>) {
        let shared = Arc::new(Shared {
            name: name.clone(),
            progress: Mutex::default(),
            stderr: Arc::default(),
            noise: Arc::default(),
            refreshing: Mutex::default(),
            snapshot: Mutex::default(),
            command: command.as_ref().ok().cloned(),
            log: Arc::clone(&self.log),
            rewrites: Arc::clone(&self.rewrites),
        });
        let upstream = Upstream {
            command,
            state: tokio::sync::Mutex::default(),
            shared,
        };
        self.upstreams
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(name, Arc::new(upstream));
    }

    fn get(&self, name: &str) -> Option<Arc<Upstream>> {
        self.upstreams
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(name)
            .cloned()
    }

    /// The configured servers' names, sorted.
    pub fn names(&self) -> Vec<String> {
        self.upstreams
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .keys()
            .cloned()
            .collect()
    }

    pub fn is_empty(&self) -> bool {
        self.upstreams
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .is_empty()
    }

    /// Call `tool` of `server` with `arguments`; `snapshot` is the file a
    /// `tools/list_changed` of the server rewrites.
    pub async fn call(
        &self,
        server: &str,
        tool: &str,
        arguments: Option<Map<String, Value>>,
        snapshot: Option<PathBuf>,
        through: Through,
    ) -> CallToolResult {
        let Some(upstream) = self.get(server) else {
            let known: Vec<String> = self.names().iter().map(|n| format!("`{n}`")).collect();
            return failure(format!(
                "no MCP server `{server}` is configured, so its tool `{tool}` cannot be run — add `{server}` to `mcp_servers` in skilldex.yaml (configured: {})",
                if known.is_empty() { "none".to_string() } else { known.join(", ") }
            ));
        };
        if let Some(path) = snapshot {
            *lock(&upstream.shared.snapshot) = Some(path);
        }
        upstream.call(tool, arguments, through).await
    }

    /// Stop every server (their children are killed).
    pub async fn shutdown(&self) {
        let all: Vec<Arc<Upstream>> = self
            .upstreams
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .cloned()
            .collect();
        for upstream in all {
            let (service, process) = {
                let mut state = upstream.state.lock().await;
                (state.service.take(), state.process.take())
            };
            if let Some(service) = service {
                let _ = service.cancel().await;
            }
            drop(process);
        }
    }
}

/// A tool result with `isError: true`.
pub fn failure(message: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message)])
}

/// Whether the server's tools are being listed again, and whether another
/// `tools/list_changed` came meanwhile.
#[derive(Default)]
struct Refreshing {
    running: bool,
    again: bool,
}

/// What the client handler of a server shares with the pool.
struct Shared {
    name: String,
    /// Upstream progress token → the client and its token.
    progress: Mutex<HashMap<ProgressToken, (Peer<RoleServer>, ProgressToken)>>,
    /// The end of what the server wrote to stderr.
    stderr: Arc<Mutex<Vec<u8>>>,
    /// What it wrote to stdout that is not JSON-RPC.
    noise: Arc<Mutex<upstream::Noise>>,
    refreshing: Mutex<Refreshing>,
    snapshot: Mutex<Option<PathBuf>>,
    command: Option<UpstreamCommand>,
    log: Log,
    rewrites: Arc<super::find::Rewrites>,
}

impl Shared {
    fn stderr_tail(&self) -> String {
        let tail = upstream::tail_of(&lock(&self.stderr));
        match &self.command {
            Some(command) => upstream::mask(&tail, command),
            None => tail,
        }
    }

    /// " — its stderr ended with: …", or nothing.
    fn stderr_note(&self) -> String {
        let tail = self.stderr_tail();
        let last: Vec<&str> = tail.lines().rev().take(5).collect();
        if last.is_empty() {
            String::new()
        } else {
            let lines: Vec<&str> = last.into_iter().rev().collect();
            format!(" — its stderr ended with: {}", lines.join(" | "))
        }
    }
}

struct Upstream {
    command: Result<UpstreamCommand, String>,
    state: tokio::sync::Mutex<Connection>,
    shared: Arc<Shared>,
}

#[derive(Default)]
struct Connection {
    service: Option<RunningService<RoleClient, Handler>>,
    /// The server's process, killed when dropped.
    process: Option<tokio::process::Child>,
    /// Which start this is (so a call that saw one instance die does not
    /// count the death of the next).
    instance: u64,
    /// A call was answered since the last start.
    answered: bool,
    /// Starts (or lives) in a row that ended before any answer.
    failures: u32,
    retry_at: Option<Instant>,
    last_error: Option<String>,
}

impl Connection {
    /// The current process is gone: forget it and schedule the restart.
    fn died(&mut self) {
        self.service = None;
        self.process = None;
        if self.answered {
            self.failures = 0;
            self.retry_at = None;
        } else {
            self.failures += 1;
            self.retry_at = Some(Instant::now() + backoff(self.failures));
        }
    }
}

fn backoff(failures: u32) -> Duration {
    let doublings = failures.saturating_sub(1).min(16);
    (FIRST_BACKOFF * 2u32.pow(doublings)).min(MAX_BACKOFF)
}

impl Upstream {
    /// A live connection, started (or restarted) if need be.
    async fn peer(&self) -> Result<(Peer<RoleClient>, u64), String> {
        let name = &self.shared.name;
        let command = self
            .command
            .as_ref()
            .map_err(|why| format!("MCP server `{name}` cannot be started: {why}"))?;
        let mut state = self.state.lock().await;
        if let Some(service) = &state.service {
            if !service.is_closed() && !service.peer().is_transport_closed() {
                return Ok((service.peer().clone(), state.instance));
            }
            state.died();
            (self.shared.log)(&format!(
                "MCP server `{name}` exited{}; starting it again",
                self.shared.stderr_note()
            ));
        }
        if let Some(at) = state.retry_at {
            let wait = at.saturating_duration_since(Instant::now());
            if wait > WAIT_OUT {
                return Err(format!(
                    "MCP server `{name}` failed {} times in a row (last: {}); the next attempt is in {:.1} s",
                    state.failures,
                    state.last_error.as_deref().unwrap_or("it exited before answering"),
                    wait.as_secs_f64()
                ));
            }
            tokio::time::sleep(wait).await;
        }
        lock(&self.shared.stderr).clear();
        let started = tokio::time::timeout(command.timeout, self.start(command)).await;
        let error = match started {
            Ok(Ok((service, process))) => {
                let peer = service.peer().clone();
                state.service = Some(service);
                state.process = Some(process);
                state.instance += 1;
                state.answered = false;
                state.retry_at = None;
                return Ok((peer, state.instance));
            }
            Ok(Err(error)) => error,
            Err(_) => format!(
                "it did not complete `initialize` within {:.1} s (raise `timeout` of `{name}` in skilldex.yaml)",
                command.timeout.as_secs_f64()
            ),
        };
        state.failures += 1;
        state.retry_at = Some(Instant::now() + backoff(state.failures));
        state.last_error = Some(error.clone());
        let message = format!(
            "MCP server `{name}` could not be started: {error}{}",
            self.shared.stderr_note()
        );
        (self.shared.log)(&message);
        Err(message)
    }

    async fn start(
        &self,
        command: &UpstreamCommand,
    ) -> Result<(RunningService<RoleClient, Handler>, tokio::process::Child), String> {
        *lock(&self.shared.noise) = upstream::Noise::default();
        let started = upstream::start(
            command,
            Arc::clone(&self.shared.stderr),
            Arc::clone(&self.shared.noise),
        )?;
        let service = Handler(Arc::clone(&self.shared))
            .serve(started.transport)
            .await
            .map_err(|error| format!("it did not complete `initialize`: {error}"))?;
        Ok((service, started.process))
    }
    async fn call(
        &self,
        tool: &str,
        arguments: Option<Map<String, Value>>,
        mut through: Through,
    ) -> CallToolResult {
        let name = self.shared.name.clone();
        let started = tokio::select! {
            started = self.peer() => started,
            () = &mut through.cancelled => {
                return failure(format!("the call of `{name}/{tool}` was cancelled while `{name}` was starting"));
            }
        };
        let (peer, instance) = match started {
            Ok(started) => started,
            Err(message) => return failure(message),
        };
        let timeout = self
            .command
            .as_ref()
            .map(|c| c.timeout)
            .unwrap_or(Duration::from_secs(60));
        let options = PeerRequestOptions::with_timeout(timeout)
            .reset_timeout_on_progress()
            .with_max_total_timeout(timeout * MAX_TOTAL_FACTOR);
        let params = json!({
            "name": tool,
            "arguments": Value::Object(arguments.unwrap_or_default()),
        });
        let request = ClientRequest::CustomRequest(CustomRequest::new("tools/call", Some(params)));
        let handle = match peer.send_request_with_option(request, options).await {
            Ok(handle) => handle,
            Err(error) => return self.failed(tool, instance, error).await,
        };
        let (id, token) = (handle.id.clone(), handle.progress_token.clone());
        if let Some(client_token) = through.progress_token.clone() {
            lock(&self.shared.progress).insert(token.clone(), (through.peer.clone(), client_token));
        }
        let outcome = tokio::select! {
            outcome = handle.await_response() => Some(outcome),
            () = &mut through.cancelled => None,
        };
        // A progress notification the server sent just before its answer
        // may still be on its way through the client's handler: forget the
        // token a little later.
        if through.progress_token.is_some() {
            let shared = Arc::clone(&self.shared);
            tokio::spawn(async move {
                tokio::time::sleep(PROGRESS_LINGER).await;
                lock(&shared.progress).remove(&token);
            });
        }
        match outcome {
            None => {
                let _ = peer
                    .notify_cancelled(CancelledNotificationParam::new(
                        Some(id),
                        Some("cancelled by skilldex's client".to_string()),
                    ))
                    .await;
                failure(format!("the call of `{name}/{tool}` was cancelled"))
            }
            Some(Ok(answer)) => {
                {
                    let mut state = self.state.lock().await;
                    if state.instance == instance {
                        state.answered = true;
                        state.failures = 0;
                    }
                }
                let value = serde_json::to_value(&answer).unwrap_or(Value::Null);
                match serde_json::from_value::<CallToolResult>(value.clone()) {
                    Ok(mut result)
                        if value.get("content").is_some()
                            || value.get("structuredContent").is_some() =>
                    {
                        // Servers of earlier protocols leave it out; the
                        // client may speak 2026-07-28, where it is required.
                        result.result_type = Some(ResultType::COMPLETE);
                        result
                    }
                    _ => failure(format!(
                        "`{name}` answered `tools/call` of `{tool}` with something that is not a tool result: {}",
                        crate::schema::cut_at_char_boundary(&value.to_string(), 300)
                    )),
                }
            }
            Some(Err(error)) => self.failed(tool, instance, error).await,
        }
    }

    /// The tool result for a call that failed with `error`.
    async fn failed(&self, tool: &str, instance: u64, error: ServiceError) -> CallToolResult {
        let name = &self.shared.name;
        match error {
            ServiceError::McpError(error) if error.code.0 == upstream::UNREADABLE => failure(
                format!("`{name}` answered the call of `{tool}` with {}", error.message),
            ),
            ServiceError::McpError(error) => failure(format!(
                "`{name}` refused the call of `{tool}`: {} (JSON-RPC error {})",
                error.message, error.code.0
            )),
            ServiceError::Timeout { timeout } => failure(format!(
                "`{name}` did not answer `{tool}` within {:.1} s, so the call was cancelled{} — raise `timeout` of `{name}` in skilldex.yaml if it needs longer",
                timeout.as_secs_f64(),
                lock(&self.shared.noise).note()
            )),
            ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
                // Give the stderr reader a moment to take the last words.
                tokio::task::yield_now().await;
                {
                    let mut state = self.state.lock().await;
                    if state.instance == instance && state.service.is_some() {
                        state.died();
                    }
                }
                let message = format!(
                    "MCP server `{name}` exited during the call of `{tool}`{}; it is started again on the next call",
                    self.shared.stderr_note()
                );
                (self.shared.log)(&message);
                failure(message)
            }
            other => failure(format!("the call of `{name}/{tool}` failed: {other}")),
        }
    }
}

/// The client side of one upstream connection: forwards progress and
/// refreshes the snapshot when the server's tools change.
#[derive(Clone)]
struct Handler(Arc<Shared>);

impl ClientHandler for Handler {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let target = lock(&self.0.progress).get(&params.progress_token).cloned();
        if let Some((peer, token)) = target {
            let mut params = params;
            params.progress_token = token;
            let _ = peer.notify_progress(params).await;
        }
    }

    async fn on_tool_list_changed(&self, context: NotificationContext<RoleClient>) {
        // One listing at a time, however many notices come: a notice that
        // arrives during a listing asks for one more after it.
        {
            let mut refreshing = lock(&self.0.refreshing);
            if refreshing.running {
                refreshing.again = true;
                return;
            }
            refreshing.running = true;
        }
        // Not on the connection's own task: the listing needs it to read
        // the answers.
        let shared = Arc::clone(&self.0);
        tokio::spawn(async move {
            loop {
                // Notices that come in a burst are answered by one listing.
                tokio::time::sleep(REFRESH_GATHER).await;
                lock(&shared.refreshing).again = false;
                refresh(Arc::clone(&shared), context.peer.clone()).await;
                let mut refreshing = lock(&shared.refreshing);
                if !std::mem::take(&mut refreshing.again) {
                    refreshing.running = false;
                    break;
                }
            }
        });
    }
}

/// List the server's tools again and rewrite its snapshot if they changed.
async fn refresh(shared: Arc<Shared>, peer: Peer<RoleClient>) {
    let name = &shared.name;
    let Some(path) = lock(&shared.snapshot).clone() else {
        (shared.log)(&format!(
            "MCP server `{name}` changed its tools, but it has no snapshot to update — run `skilldex tools sync`"
        ));
        return;
    };
    let tools = match upstream::list_pages(&peer).await {
        Ok((tools, _)) => tools,
        Err(error) => {
            (shared.log)(&format!(
                "MCP server `{name}` changed its tools, but listing them failed: {error}; {} is kept",
                path.display()
            ));
            return;
        }
    };
    let bytes = crate::toolcat::snapshot_bytes(Some(&upstream::server_info(&peer)), &tools);
    if std::fs::read(&path).ok().as_deref() == Some(bytes.as_slice()) {
        return;
    }
    match crate::toolcat::write_atomically(&path, &bytes) {
        Ok(()) => {
            let rewrites = Arc::clone(&shared.rewrites);
            let written = path.clone();
            let recorded = tokio::task::spawn_blocking(move || rewrites.record(&written)).await;
            if let Ok(Err(error)) = recorded {
                (shared.log)(&format!(
                    "MCP server `{name}` changed its tools, but {} does not load: {error}",
                    path.display()
                ));
            }
            (shared.log)(&format!(
                "MCP server `{name}` changed its tools: {} rewritten ({} tools)",
                path.display(),
                tools.len()
            ));
        }
        Err(error) => (shared.log)(&format!(
            "MCP server `{name}` changed its tools, but its snapshot could not be written: {error}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_its_cap() {
        assert_eq!(backoff(1), Duration::from_millis(250));
        assert_eq!(backoff(2), Duration::from_millis(500));
        assert_eq!(backoff(4), Duration::from_secs(2));
        assert_eq!(backoff(40), MAX_BACKOFF);
    }

    #[test]
    fn a_death_before_any_answer_backs_off_and_one_after_does_not() {
        let mut connection = Connection::default();
        connection.died();
        assert_eq!(connection.failures, 1);
        assert!(connection.retry_at.is_some());
        connection.answered = true;
        connection.died();
        assert_eq!(connection.failures, 0);
        assert!(connection.retry_at.is_none());
    }
}
