//! The client side: start an upstream MCP server over stdio (through the
//! guard of [`stdio`]), initialize, and page through `tools/list`.
//!
//! A listing returns the tools exactly as the server sent them (the
//! `tools/list` request goes out as a custom request, so a tool whose
//! schema rmcp's types would reject still arrives as JSON), together with
//! what `initialize` said about the server. Everything is bounded by one
//! deadline; a server that fails to start, exits, stalls or answers
//! something that is not a tool list gives an [`UpstreamFailure`] carrying
//! the tail of its stderr, with the values of its `env` masked. The child
//! is killed when the listing ends, however it ends.

mod stdio;

use rmcp::model::{ClientRequest, CustomRequest};
use rmcp::ServiceExt as _;
use serde_json::{Map, Value};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
pub(crate) use stdio::{start, Noise, UNREADABLE};

/// How to start one server.
#[derive(Debug, Clone)]
pub struct UpstreamCommand {
    pub program: String,
    pub args: Vec<String>,
    /// Added to the inherited environment.
    pub env: Vec<(String, String)>,
    pub cwd: PathBuf,
    /// For the whole listing: start, initialize and every page.
    pub timeout: Duration,
}

/// What a server said.
#[derive(Debug, Clone, PartialEq)]
pub struct Listing {
    /// `name`, `title`, `version`, `description`, `instructions` from
    /// `initialize`, those the server gave.
    pub server: Map<String, Value>,
    /// Every tool of every page, as sent.
    pub tools: Vec<Value>,
    pub pages: usize,
    pub elapsed: Duration,
}

/// Why a listing failed, with the end of what the server wrote to stderr.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct UpstreamFailure {
    pub message: String,
    /// The last lines of the server's stderr (env values masked).
    pub stderr_tail: String,
}

impl UpstreamCommand {
    /// The first field that holds a NUL byte (`command`, `args[1]`,
    /// `env` `KEY`), which a process cannot be given.
    pub(crate) fn nul_byte(&self) -> Option<String> {
        if self.program.contains('\0') {
            return Some("`command`".into());
        }
        if let Some(at) = self.args.iter().position(|a| a.contains('\0')) {
            return Some(format!("`args[{at}]`"));
        }
        self.env
            .iter()
            .find(|(k, v)| k.contains('\0') || v.contains('\0'))
            .map(|(k, _)| format!("`env` `{}`", k.escape_debug()))
    }

    /// How to start `server` (with `${VAR}`s expanded through `lookup`),
    /// waiting `default_timeout` unless its entry sets `timeout`. `Err`
    /// says what is wrong with the entry; a remote (`url`) server is an
    /// `Err` too, since only stdio servers are started.
    pub fn for_server(
        server: &crate::toolcat::servers::ConfiguredServer,
        default_timeout: Duration,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> Result<UpstreamCommand, String> {
        use crate::toolcat::servers::expand;
        server.check_name().map_err(|e| e.to_string())?;
        let config = &server.config;
        let Some(program) = config.command.as_deref().filter(|c| !c.trim().is_empty()) else {
            return Err(match &config.url {
                Some(url) => format!("a remote server ({url}); only stdio servers are started"),
                None => format!(
                    "no `command` — {} must say how to start it",
                    server.source.display()
                ),
            });
        };
        let expand = |text: &str| expand(text, lookup).map_err(|e| e.to_string());
        let program = expand(program)?;
        let args = config
            .args
            .iter()
            .map(|a| expand(a))
            .collect::<Result<Vec<_>, _>>()?;
        let env = config
            .env
            .iter()
            .map(|(k, v)| Ok((k.clone(), expand(v)?)))
            .collect::<Result<Vec<_>, String>>()?;
        let base = server.base_dir();
        let cwd = match &config.cwd {
            Some(cwd) => base.join(expand(cwd)?),
            None => base,
        };
        let timeout = config
            .timeout
            .filter(|t| *t > 0.0)
            // Infinite or past what a Duration holds: the default, not a panic.
            .and_then(|t| Duration::try_from_secs_f64(t).ok())
            .unwrap_or(default_timeout);
        Ok(UpstreamCommand {
            program,
            args,
            env,
            cwd,
            timeout,
        })
    }

    /// The child process this command starts: its own process group (a signal to skilldex's terminal does not reach
    /// it twice), killed when dropped.
    pub(crate) fn process(&self) -> tokio::process::Command {
        let mut process = tokio::process::Command::new(&self.program);
        process
            .args(&self.args)
            .envs(self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .current_dir(&self.cwd)
            .kill_on_drop(true);
        #[cfg(unix)]
        process.process_group(0);
        process
    }
}

/// Pages beyond this are taken as a server that never stops paging.
const MAX_PAGES: usize = 1_000;
/// How long the end of a stopped server's stderr is waited for.
const STDERR_DRAIN: Duration = Duration::from_millis(500);
/// How much of stderr is kept.
pub(crate) const STDERR_TAIL_BYTES: usize = 2_048;

/// Start the server, list its tools, stop it. Blocks (it runs its own
/// small runtime), so callers may run several on threads.
pub fn list_tools(command: &UpstreamCommand) -> Result<Listing, UpstreamFailure> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| UpstreamFailure {
            message: format!("could not start an async runtime: {error}"),
            stderr_tail: String::new(),
        })?;
    let stderr = Arc::new(Mutex::new(Vec::<u8>::new()));
    let reader: Arc<Mutex<Option<tokio::task::JoinHandle<()>>>> = Arc::default();
    let noise = Arc::new(Mutex::new(stdio::Noise::default()));
    let started = Instant::now();
    let outcome = runtime.block_on(async {
        let outcome = tokio::time::timeout(
            command.timeout,
            listing(
                command,
                Arc::clone(&stderr),
                Arc::clone(&noise),
                Arc::clone(&reader),
            ),
        )
        .await;
        // The listing's end dropped the transport, which kills the child:
        // read what it wrote to stderr up to its end (briefly).
        let handle = reader.lock().ok().and_then(|mut r| r.take());
        if let Some(handle) = handle {
            let _ = tokio::time::timeout(STDERR_DRAIN, handle).await;
        }
        outcome
    });
    drop(runtime);
    let tail = || {
        mask(
            &tail_of(&stderr.lock().map(|b| b.clone()).unwrap_or_default()),
            command,
        )
    };
    match outcome {
        Ok(Ok(mut listing)) => {
            listing.elapsed = started.elapsed();
            Ok(listing)
        }
        Ok(Err(message)) => Err(UpstreamFailure {
            message,
            stderr_tail: tail(),
        }),
        Err(_) => Err(UpstreamFailure {
            message: format!(
                "no complete answer within {:.1} s{} — raise `timeout` for this server, or check that it speaks MCP on stdio",
                command.timeout.as_secs_f64(),
                noise.lock().map(|n| n.note()).unwrap_or_default()
            ),
            stderr_tail: tail(),
        }),
    }
}

async fn listing(
    command: &UpstreamCommand,
    stderr: Arc<Mutex<Vec<u8>>>,
    noise: Arc<Mutex<stdio::Noise>>,
    reader: Arc<Mutex<Option<tokio::task::JoinHandle<()>>>>,
) -> Result<Listing, String> {
    let started = stdio::start(command, stderr, noise)?;
    if let Ok(mut slot) = reader.lock() {
        *slot = Some(started.stderr_reader);
    }
    // Killed when the listing ends, however it ends.
    let _process = started.process;
    let client = ()
        .serve(started.transport)
        .await
        .map_err(|error| format!("the server did not complete `initialize`: {error}"))?;
    let server = server_info(client.peer());
    let (tools, pages) = list_pages(client.peer()).await?;
    let _ = client.cancel().await;
    Ok(Listing {
        server,
        tools,
        pages,
        elapsed: Duration::ZERO,
    })
}

/// `name`, `title`, `version`, `description`, `instructions` from what
/// the server said in `initialize`, those it gave.
pub(crate) fn server_info(peer: &rmcp::Peer<rmcp::RoleClient>) -> Map<String, Value> {
    let mut server = Map::new();
    if let Some(info) = peer.peer_info() {
        if let Some(implementation) = &info.server_info {
            let mut put = |key: &str, value: Option<&String>| {
                if let Some(value) = value.filter(|v| !v.trim().is_empty()) {
                    server.insert(key.to_string(), value.clone().into());
                }
            };
            put("name", Some(&implementation.name));
            put("title", implementation.title.as_ref());
            put("version", Some(&implementation.version));
            put("description", implementation.description.as_ref());
        }
        if let Some(instructions) = info.instructions.as_ref().filter(|i| !i.trim().is_empty()) {
            server.insert("instructions".to_string(), instructions.clone().into());
        }
    }
    server
}

/// Every tool of every page of `tools/list`, as sent, and the number of
/// pages.
pub(crate) async fn list_pages(
    peer: &rmcp::Peer<rmcp::RoleClient>,
) -> Result<(Vec<Value>, usize), String> {
    let mut tools = Vec::new();
    let mut cursor: Option<String> = None;
    let mut seen_cursors = std::collections::HashSet::new();
    let mut pages = 0;
    loop {
        let params = cursor.as_ref().map(|c| serde_json::json!({ "cursor": c }));
        let request = ClientRequest::CustomRequest(CustomRequest::new("tools/list", params));
        let answer = peer
            .send_request(request)
            .await
            .map_err(|error| match error {
                rmcp::ServiceError::TransportClosed => {
                    "the server exited (or closed its stdout) before answering `tools/list`"
                        .to_string()
                }
                rmcp::ServiceError::McpError(error) if error.code.0 == stdio::UNREADABLE => {
                    format!("the server answered `tools/list` with {}", error.message)
                }
                other => format!("`tools/list` failed: {other}"),
            })?;
        let answer = serde_json::to_value(&answer)
            .map_err(|error| format!("`tools/list` answer could not be read: {error}"))?;
        pages += 1;
        let Some(Value::Array(page)) = answer.get("tools") else {
            return Err(format!(
                "`tools/list` answered without a `tools` list (page {pages}): {}",
                crate::schema::cut_at_char_boundary(&answer.to_string(), 200)
            ));
        };
        tools.extend(page.iter().cloned());
        match answer.get("nextCursor") {
            None | Some(Value::Null) => break,
            Some(Value::String(next)) if next.is_empty() => break,
            Some(Value::String(next)) => {
                if !seen_cursors.insert(next.clone()) || pages >= MAX_PAGES {
                    return Err(format!(
                        "`tools/list` keeps paging (cursor {next:?} after {pages} pages) — the server's paging is broken"
                    ));
                }
                cursor = Some(next.clone());
            }
            Some(other) => {
                return Err(format!("`nextCursor` is {other}, not a string"));
            }
        }
    }
    Ok((tools, pages))
}

/// The last lines of `bytes` that fit [`STDERR_TAIL_BYTES`], as text.
pub(crate) fn tail_of(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_end();
    if text.len() <= STDERR_TAIL_BYTES {
        return text.to_string();
    }
    let mut start = text.len() - STDERR_TAIL_BYTES;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    let cut = &text[start..];
    // Start at a line boundary when there is one.
    match cut.find('\n') {
        Some(newline) => cut[newline + 1..].to_string(),
        None => cut.to_string(),
    }
}

/// `text` with every configured env value (of 4 bytes or more) masked:
/// a server that prints its token must not put it in our output.
pub(crate) fn mask(text: &str, command: &UpstreamCommand) -> String {
    let mut text = text.to_string();
    for (_, value) in &command.env {
        if value.len() >= 4 {
            text = text.replace(value.as_str(), "***");
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stderr_tails_are_cut_and_masked() {
        let long = format!("{}\nlast line with sekrit-token\n", "x".repeat(5000));
        let command = UpstreamCommand {
            program: "x".into(),
            args: vec![],
            env: vec![
                ("TOKEN".into(), "sekrit-token".into()),
                ("N".into(), "1".into()),
            ],
            cwd: PathBuf::from("."),
            timeout: Duration::from_secs(1),
        };
        let tail = mask(&tail_of(long.as_bytes()), &command);
        assert_eq!(tail, "last line with ***");
    }

    #[test]
    fn a_missing_program_is_a_failure_not_a_panic() {
        let failure = list_tools(&UpstreamCommand {
            program: "/nonexistent/skilldex-test-server".into(),
            args: vec![],
            env: vec![],
            cwd: PathBuf::from("."),
            timeout: Duration::from_secs(5),
        })
        .unwrap_err();
        assert!(failure.message.contains("could not start"), "{failure}");
    }
}
