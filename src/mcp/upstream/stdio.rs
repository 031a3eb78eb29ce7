//! Starting an upstream server, and the guard on its stdout.
//!
//! `tools sync` and the gateway's pool both start servers here: the child
//! in its own process group, killed when dropped, the tail of its stderr
//! kept for messages, and its stdout read through a guard before rmcp
//! sees it.
//!
//! rmcp drops a line it cannot parse and one over 16 MiB, so a call whose
//! answer is such a line would wait for its timeout and then be told the
//! server "did not answer". The guard reads each line first (at most
//! [`MAX_MESSAGE_BYTES`] of it kept in memory): a line rmcp can read goes
//! on unchanged; an answer it cannot read (too long, not JSON, nested
//! too deep, not a JSON-RPC message) whose `id` can still be made out is
//! replaced by a JSON-RPC error for that id saying what was wrong, so the
//! waiting call fails at once with the reason. Any other line rmcp would
//! drop (a banner printed to stdout) goes on too, and is counted in
//! [`Noise`] for the messages of a call that then times out.

use super::UpstreamCommand;
use crate::mcp::lines::{read_line, sketch, Line};
use rmcp::model::ServerJsonRpcMessage;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncWriteExt as _, BufReader, DuplexStream};
use tokio::process::ChildStdin;

/// The longest message read from a server (rmcp's own limit).
pub(crate) const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// The JSON-RPC error code of an answer the guard wrote in place of one
/// it could not read; the message says why.
pub(crate) const UNREADABLE: i32 = -32098;

/// Lines a server wrote to stdout that are not JSON-RPC and belong to no
/// call.
#[derive(Debug, Default)]
pub(crate) struct Noise {
    pub(crate) lines: usize,
    /// The start of the first.
    pub(crate) first: Option<String>,
}

impl Noise {
    /// " — it wrote N lines to stdout that are not JSON-RPC (the first:
    /// …)", or nothing.
    pub(crate) fn note(&self) -> String {
        match &self.first {
            Some(first) => format!(
                " — it wrote {} to stdout that {} not JSON-RPC (the first: {first:?}); a server must write only protocol messages there, logs go to stderr",
                if self.lines == 1 { "1 line".to_string() } else { format!("{} lines", self.lines) },
                if self.lines == 1 { "is" } else { "are" }
            ),
            None => String::new(),
        }
    }
}

/// A started server.
pub(crate) struct Started {
    /// What rmcp reads (the guarded stdout) and writes (stdin).
    pub(crate) transport: (DuplexStream, ChildStdin),
    /// The process, killed when dropped.
    pub(crate) process: tokio::process::Child,
    /// Reads stderr into the kept tail until the process closes it.
    pub(crate) stderr_reader: tokio::task::JoinHandle<()>,
}

/// Start `command`; its stderr's tail goes to `stderr`, what it writes to
/// stdout that is not JSON-RPC is counted in `noise`. Runs inside a tokio
/// runtime (it spawns the readers).
pub(crate) fn start(
    command: &UpstreamCommand,
    stderr: Arc<Mutex<Vec<u8>>>,
    noise: Arc<Mutex<Noise>>,
) -> Result<Started, String> {
    if let Some(field) = command.nul_byte() {
        return Err(format!(
            "could not start `{}`: its {field} holds a NUL byte, which no process can be given — remove it from the server's entry in skilldex.yaml",
            command.program
        ));
    }
    let mut process = command.process();
    process
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = process.spawn().map_err(|error| {
        format!(
            "could not start `{}`: {error} — check `command` (and `cwd` {})",
            command.program,
            command.cwd.display()
        )
    })?;
    let (Some(stdin), Some(stdout), Some(mut child_stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(format!("`{}` started without its stdio", command.program));
    };
    let stderr_reader = tokio::spawn(async move {
        use tokio::io::AsyncReadExt as _;
        let mut buffer = [0u8; 4096];
        while let Ok(n) = child_stderr.read(&mut buffer).await {
            if n == 0 {
                break;
            }
            let mut kept = stderr.lock().unwrap_or_else(|e| e.into_inner());
            kept.extend_from_slice(&buffer[..n]);
            if kept.len() > 4 * super::STDERR_TAIL_BYTES {
                let cut = kept.len() - super::STDERR_TAIL_BYTES;
                kept.drain(..cut);
            }
        }
    });
    let (rmcp_end, mut ours) = tokio::io::duplex(1 << 20);
    let kept_noise = noise;
    tokio::spawn(async move {
        let mut input = BufReader::with_capacity(1 << 16, stdout);
        let mut line = Line::default();
        loop {
            if read_line(&mut input, &mut line, MAX_MESSAGE_BYTES)
                .await
                .is_err()
                || line.consumed == 0
            {
                break;
            }
            let out = match judge(&line) {
                Judged::Pass => None,
                Judged::Replace(answer) => Some(answer),
                Judged::Noise => {
                    let mut noise = kept_noise.lock().unwrap_or_else(|e| e.into_inner());
                    noise.lines += 1;
                    if noise.first.is_none() {
                        let text = String::from_utf8_lossy(&line.bytes);
                        noise.first = Some(
                            crate::schema::cut_at_char_boundary(text.trim_end(), 120).to_string(),
                        );
                    }
                    None
                }
            };
            let written = match &out {
                Some(answer) => ours.write_all(answer.as_bytes()).await,
                None if line.cut => Ok(()),
                None => ours.write_all(&line.bytes).await,
            };
            if written.is_err() {
                break;
            }
            if !line.bytes.ends_with(b"\n") && !line.cut && out.is_none() {
                let _ = ours.write_all(b"\n").await;
            }
        }
        let _ = ours.shutdown().await;
    });
    Ok(Started {
        transport: (rmcp_end, stdin),
        process: child,
        stderr_reader,
    })
}

enum Judged {
    Pass,
    /// An error answer (a whole line) in place of the unreadable one.
    Replace(String),
    Noise,
}

fn judge(line: &Line) -> Judged {
    let text = line.bytes.trim_ascii();
    let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
    let why = if line.cut {
        format!(
            "an answer of {} bytes, more than the {} bytes skilldex takes from a server",
            crate::rules::thousands(line.consumed),
            crate::rules::thousands(MAX_MESSAGE_BYTES)
        )
    } else if text.is_empty() {
        return Judged::Pass;
    } else {
        match serde_json::from_slice::<ServerJsonRpcMessage>(text) {
            Ok(_) => return Judged::Pass,
            Err(error) => match serde_json::from_slice::<serde::de::IgnoredAny>(text) {
                Ok(_) => format!("an answer skilldex cannot read as JSON-RPC ({error})"),
                Err(error) => format!("an answer that is not valid JSON ({error})"),
            },
        }
    };
    let found = sketch(&line.bytes, if line.cut { &line.tail } else { &line.bytes });
    match found.id {
        Some(id) if !found.method => {
            let mut answer = json!({
                "jsonrpc": "2.0",
                "id": id,
                "error": {"code": UNREADABLE, "message": why},
            })
            .to_string();
            answer.push('\n');
            Judged::Replace(answer)
        }
        // A request or notification rmcp will drop, or noise.
        _ if line.cut || serde_json::from_slice::<Value>(text).is_err() => Judged::Noise,
        _ => Judged::Pass,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged(text: &str) -> Option<Value> {
        let line = Line {
            bytes: format!("{text}\n").into_bytes(),
            ..Line::default()
        };
        match judge(&line) {
            Judged::Pass => None,
            Judged::Replace(answer) => Some(serde_json::from_str(&answer).unwrap()),
            Judged::Noise => Some(Value::String("noise".into())),
        }
    }

    #[test]
    fn unreadable_answers_become_errors_for_their_id() {
        assert_eq!(judged(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#), None);
        assert_eq!(
            judged(r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#),
            None
        );
        let broken = judged(r#"{"jsonrpc":"2.0","id":3,"result":{oops"#).unwrap();
        assert_eq!(broken["id"], 3);
        assert_eq!(broken["error"]["code"], UNREADABLE);
        assert!(broken["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not valid JSON"));
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":"q","result":{}{}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        let deep = judged(&deep).unwrap();
        assert_eq!(deep["id"], "q");
        assert!(
            deep["error"]["message"]
                .as_str()
                .unwrap()
                .contains("recursion limit"),
            "{deep}"
        );
        let shapeless = judged(r#"{"jsonrpc":"2.0","id":4}"#).unwrap();
        assert!(
            shapeless["error"]["message"]
                .as_str()
                .unwrap()
                .contains("cannot read as JSON-RPC"),
            "{shapeless}"
        );
        assert_eq!(
            judged("Server listening on port 3000"),
            Some(Value::String("noise".into()))
        );
    }
}
