//! A guard between stdio and rmcp that makes sure every request gets an
//! answer.
//!
//! rmcp drops lines that are not JSON, and answers a request whose shape it
//! cannot read with an error that carries no `id`, which no client can
//! match to its request (it waits until its timeout). The guard reads each
//! line first: a line that is not JSON gets a parse error (`-32700`, id
//! null); a batch or a non-object gets `-32600`; a message whose `jsonrpc`
//! is not `"2.0"` gets `-32600` saying so; a request whose `method` or
//! `params` has the wrong shape gets `-32600`/`-32602`. Every answer carries
//! the request's id when it has one that can be read (a string or an
//! integer), else null, as JSON-RPC 2.0 requires. A request the guard finds
//! nothing wrong with is read once more as rmcp reads it, so one rmcp would
//! refuse is answered here, with its id. Everything else goes to rmcp
//! unchanged, and rmcp's output is copied to stdout line by line, so the
//! guard's answers never split one of rmcp's.
//!
//! Before a session starts (an `initialize`, or a first request carrying
//! the 2026-07-28 `_meta`), a request is answered here with what to send
//! first, and a notification or response is dropped: rmcp would end the
//! session on one. The guard also tells the server when stdin has ended,
//! so that work waiting on the client (an elicitation) stops at once.

use super::lines::{read_line, sketch, Line};
use rmcp::model::{ClientJsonRpcMessage, GetMeta, ProtocolVersion};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};

/// Lines longer than this are refused (rmcp's own limit is 16 MiB).
const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// The two ends rmcp talks to, and the task that moves bytes between them
/// and stdio. The task ends when stdin ends and rmcp has written its last
/// answer. `input_closed` is set to true when stdin ends.
pub(super) fn guarded<R, W>(
    input: R,
    output: W,
    input_closed: tokio::sync::watch::Sender<bool>,
) -> (
    tokio::io::DuplexStream,
    tokio::io::DuplexStream,
    tokio::task::JoinHandle<()>,
)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (rmcp_in, mut to_rmcp) = tokio::io::duplex(1 << 20);
    let (rmcp_out, from_rmcp) = tokio::io::duplex(1 << 20);
    let (errors, mut error_lines) = tokio::sync::mpsc::unbounded_channel::<String>();
    let reader = tokio::spawn(async move {
        let mut input = BufReader::with_capacity(1 << 16, input);
        let mut read = Line::default();
        let mut started = false;
        loop {
            if read_line(&mut input, &mut read, MAX_LINE_BYTES)
                .await
                .is_err()
                || read.consumed == 0
            {
                break;
            }
            if read.cut {
                let id = sketch(&read.bytes, &read.tail).id.unwrap_or(Value::Null);
                let _ = errors.send(error(
                    id,
                    -32700,
                    &format!("the message is longer than {MAX_LINE_BYTES} bytes"),
                ));
                continue;
            }
            let line = &read.bytes;
            match check(line, &mut started) {
                Check::Pass => {
                    if to_rmcp.write_all(line).await.is_err() {
                        break;
                    }
                    if !line.ends_with(b"\n") && to_rmcp.write_all(b"\n").await.is_err() {
                        break;
                    }
                }
                Check::Skip => {}
                Check::Answer(answer) => {
                    let _ = errors.send(answer);
                }
            }
        }
        let _ = input_closed.send(true);
        let _ = to_rmcp.shutdown().await;
    });
    let writer = tokio::spawn(async move {
        let mut output = output;
        let mut lines = BufReader::with_capacity(1 << 16, from_rmcp);
        let mut line = Vec::new();
        let mut rmcp_open = true;
        let mut errors_open = true;
        while rmcp_open || errors_open {
            tokio::select! {
                read = lines.read_until(b'\n', &mut line), if rmcp_open => {
                    match read {
                        Ok(0) | Err(_) => rmcp_open = false,
                        Ok(_) => {
                            if output.write_all(&line).await.is_err() {
                                break;
                            }
                            line.clear();
                            if line.capacity() > 1 << 20 {
                                line = Vec::new();
                            }
                            if output.flush().await.is_err() {
                                break;
                            }
                        }
                    }
                }
                answer = error_lines.recv(), if errors_open => {
                    match answer {
                        None => errors_open = false,
                        Some(answer) => {
                            if output.write_all(answer.as_bytes()).await.is_err()
                                || output.write_all(b"\n").await.is_err()
                                || output.flush().await.is_err()
                            {
                                break;
                            }
                        }
                    }
                }
            }
        }
        let _ = output.flush().await;
        let _ = reader.await;
    });
    (rmcp_in, rmcp_out, writer)
}

/// A key the top-level object of `text` (valid JSON) gives twice.
fn repeated_key(text: &[u8]) -> Option<String> {
    use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
    struct Keys;
    impl<'de> Visitor<'de> for Keys {
        type Value = Option<String>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut seen = std::collections::HashSet::new();
            let mut repeated = None;
            while let Some(key) = map.next_key::<String>()? {
                map.next_value::<IgnoredAny>()?;
                if !seen.insert(key.clone()) && repeated.is_none() {
                    repeated = Some(key);
                }
            }
            Ok(repeated)
        }
    }
    serde_json::Deserializer::from_slice(text)
        .deserialize_map(Keys)
        .ok()
        .flatten()
}

enum Check {
    Pass,
    Skip,
    Answer(String),
}

fn error(id: Value, code: i64, message: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}).to_string()
}

/// What to do with one line; `started` says whether a session has begun,
/// and is set when this line begins one.
fn check(line: &[u8], started: &mut bool) -> Check {
    let text = line.trim_ascii();
    if text.is_empty() {
        return Check::Skip;
    }
    let value: Value = match serde_json::from_slice(text) {
        Ok(value) => value,
        Err(e) => {
            return Check::Answer(error(
                Value::Null,
                -32700,
                &format!("parse error: the message is not JSON ({e})"),
            ))
        }
    };
    let Value::Object(message) = &value else {
        let what = if value.is_array() {
            "batches are not supported; send one message per line"
        } else {
            "a message must be a JSON object"
        };
        return Check::Answer(error(Value::Null, -32600, what));
    };
    if let Some(key) = repeated_key(text) {
        // JSON parsers keep one of the two silently; which one the sender
        // meant is unknown, so neither is used.
        return Check::Answer(error(
            Value::Null,
            -32600,
            &format!("invalid request: the key `{key}` is given twice — send each key once"),
        ));
    }
    let id = message.get("id").cloned();
    let method = message.get("method");
    let is_response = message.contains_key("result") || message.contains_key("error");
    if !is_response {
        if let Some(problem) = version_problem(message.get("jsonrpc")) {
            // Answered with the request's id when it has a usable one, and
            // with id null otherwise (notifications included: a message
            // that is not JSON-RPC 2.0 is not a notification).
            let id = id.filter(usable_id).unwrap_or(Value::Null);
            return Check::Answer(error(id, -32600, &problem));
        }
    }
    match (id, method) {
        // Before a session, rmcp would end it on a response or a
        // notification: nothing to answer, so drop them.
        (Some(_), None) if is_response && !*started => Check::Skip,
        (None, Some(_)) if !*started => Check::Skip,
        // A response to one of our requests (elicitation): rmcp's.
        (Some(_), None) if is_response => Check::Pass,
        (Some(id), None) => Check::Answer(error(id, -32600, "invalid request: no `method`")),
        (Some(id), Some(method)) => {
            let Some(method) = method.as_str() else {
                return Check::Answer(error(
                    id,
                    -32600,
                    "invalid request: `method` must be a string",
                ));
            };
            if method.len() > 256 {
                // No method is that long; do not echo it back.
                return Check::Answer(error(
                    id,
                    -32601,
                    &format!("method not found: a {}-byte method name", method.len()),
                ));
            }
            if !usable_id(&id) {
                return Check::Answer(error(
                    Value::Null,
                    -32600,
                    "invalid request: `id` must be a string or an integer",
                ));
            }
            let session_meta = message
                .get("params")
                .and_then(|p| p.get("_meta"))
                .is_some_and(Value::is_object);
            if method == "initialize"
                && !session_meta
                && !message
                    .get("params")
                    .and_then(|p| p.get("protocolVersion"))
                    .is_some_and(Value::is_string)
            {
                return Check::Answer(error(
                    id,
                    -32602,
                    "invalid params: initialize needs `protocolVersion`, the MCP version the client speaks (such as \"2025-06-18\")",
                ));
            }
            match message.get("params") {
                None | Some(Value::Object(_)) => {}
                Some(_) => {
                    return Check::Answer(error(
                        id,
                        -32602,
                        &format!("invalid params: `params` of {method} must be an object"),
                    ))
                }
            }
            if matches!(
                method,
                "tools/list"
                    | "resources/list"
                    | "resources/templates/list"
                    | "prompts/list"
                    | "skills/list"
                    | "resources/directory/read"
            ) && message
                .get("params")
                .and_then(|p| p.get("cursor"))
                .is_some_and(|c| !c.is_string() && !c.is_null())
            {
                return Check::Answer(error(
                    id,
                    -32602,
                    &format!("invalid params: the `cursor` of {method} must be a string: the `nextCursor` of the previous page, as it was given"),
                ));
            }
            if method == "tools/call" {
                let params = message.get("params");
                let name = params.and_then(|p| p.get("name"));
                if !name.is_some_and(Value::is_string) {
                    return Check::Answer(error(
                        id,
                        -32602,
                        "invalid params: tools/call needs `name`, the tool's name as a string",
                    ));
                }
                match params.and_then(|p| p.get("arguments")) {
                    None | Some(Value::Object(_)) | Some(Value::Null) => {}
                    Some(_) => {
                        return Check::Answer(error(
                            id,
                            -32602,
                            "invalid params: tools/call `arguments` must be an object",
                        ))
                    }
                }
            }
            if matches!(
                method,
                "resources/read" | "skills/get" | "resources/directory/read"
            ) && !message
                .get("params")
                .and_then(|p| p.get("uri"))
                .is_some_and(Value::is_string)
            {
                return Check::Answer(error(
                    id,
                    -32602,
                    &format!("invalid params: {method} needs `uri` as a string"),
                ));
            }
            // A URI longer than any served one is answered here, before
            // rmcp parses the whole message again (a 14 MB URI costs a
            // parse per reader, and the requests after it wait).
            if let Some(uri) = message
                .get("params")
                .and_then(|p| p.get("uri"))
                .and_then(Value::as_str)
            {
                if let Err(why) = super::skills::check_length(uri) {
                    let code = if method == "resources/read" {
                        -32002
                    } else {
                        -32602
                    };
                    return Check::Answer(error(id, code, &why));
                }
            }
            // Anything else rmcp cannot read it would answer without an id:
            // read it as rmcp does, and answer with the id here.
            let parsed = serde_json::from_slice::<ClientJsonRpcMessage>(text);
            if parsed.is_err() {
                // serde's message for rmcp's untagged types says nothing
                // ("data did not match any variant"): say what can be said.
                let meta = message.get("params").and_then(|p| p.get("_meta"));
                let problem = if meta.is_some_and(|m| !m.is_object() && !m.is_null()) {
                    format!("invalid params: `_meta` of {method} must be an object")
                } else {
                    format!("invalid params: the `params` of {method} do not have the shape MCP defines for it")
                };
                return Check::Answer(error(id, -32602, &problem));
            }
            if !*started {
                match method {
                    // Allowed before a session; rmcp answers them.
                    "ping" | "server/discover" => {}
                    "initialize" => *started = true,
                    _ if parsed.as_ref().is_ok_and(has_inline_meta) => *started = true,
                    _ => {
                        return Check::Answer(error(
                            id,
                            -32602,
                            &format!(
                                "no MCP session yet: send `initialize` before {method} (protocol 2025-11-25 and earlier), or give each request the `_meta` of protocol 2026-07-28 (`io.modelcontextprotocol/protocolVersion` and `io.modelcontextprotocol/clientCapabilities`)"
                            ),
                        ))
                    }
                }
            }
            Check::Pass
        }
        // A message without an id that rmcp cannot read is not a
        // notification it can act on: answered here with id null (rmcp
        // would answer with an error that has no `id` at all).
        (None, Some(method)) if serde_json::from_slice::<ClientJsonRpcMessage>(text).is_err() => {
            let what = match method.as_str() {
                Some(method) if method.len() <= 256 => format!("the notification {method}"),
                Some(_) => "a notification".to_string(),
                None => "a message whose `method` is not a string".to_string(),
            };
            Check::Answer(error(
                Value::Null,
                -32600,
                &format!("invalid request: {what} does not have the shape MCP defines for it"),
            ))
        }
        (None, Some(_)) => Check::Pass,
        (None, None) => Check::Skip,
    }
}

/// Does this request carry the `_meta` that starts a 2026-07-28 session
/// without `initialize`?
fn has_inline_meta(message: &ClientJsonRpcMessage) -> bool {
    match message {
        ClientJsonRpcMessage::Request(request) => {
            let meta = request.request.get_meta();
            meta.protocol_version().is_some()
                && meta
                    .missing_required_keys(&ProtocolVersion::V_2026_07_28)
                    .is_empty()
        }
        _ => false,
    }
}

/// A request id the answer can carry: a string or an integer.
fn usable_id(id: &Value) -> bool {
    // rmcp reads integer ids as i64: a larger one cannot be answered by it.
    id.is_string() || id.is_i64()
}

/// What is wrong with a message's `jsonrpc` member, if anything.
fn version_problem(version: Option<&Value>) -> Option<String> {
    match version {
        Some(Value::String(v)) if v == "2.0" => None,
        None => Some("invalid request: `jsonrpc` is missing; it must be \"2.0\"".to_string()),
        Some(Value::String(v)) if v.len() <= 32 => Some(format!(
            "invalid request: `jsonrpc` must be \"2.0\", not {v:?}"
        )),
        Some(_) => Some("invalid request: `jsonrpc` must be the string \"2.0\"".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(line: &str) -> Option<Value> {
        match check(line.as_bytes(), &mut true) {
            Check::Answer(text) => Some(serde_json::from_str(&text).unwrap()),
            _ => None,
        }
    }

    #[test]
    fn every_bad_request_is_answered_with_its_id() {
        assert_eq!(answer("garbage{").unwrap()["error"]["code"], -32700);
        assert_eq!(answer("[1]").unwrap()["error"]["code"], -32600);
        let a = answer(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":5}"#).unwrap();
        assert_eq!(
            (a["id"].clone(), a["error"]["code"].clone()),
            (json!(2), json!(-32602))
        );
        let a = answer(r#"{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"r","arguments":"x"}}"#).unwrap();
        assert_eq!(a["id"], "x");
        let a = answer(r#"{"id":"v","method":"ping"}"#).unwrap();
        assert_eq!(
            (a["id"].clone(), a["error"]["code"].clone()),
            (json!("v"), json!(-32600))
        );
        let a = answer(r#"{"jsonrpc":"1.0","method":"notifications/initialized"}"#).unwrap();
        assert_eq!(a["id"], Value::Null);
        assert!(answer(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).is_none());
        assert!(answer(r#"{"jsonrpc":"2.0","id":1,"method":"no/such/method"}"#).is_none());
        assert!(answer(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).is_none());
        assert!(answer(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#).is_none());
        // A notification rmcp cannot read: an error with id null.
        let a =
            answer(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":5}"#).unwrap();
        assert_eq!(
            (a["id"].clone(), a["error"]["code"].clone()),
            (Value::Null, json!(-32600))
        );
        let a = answer(r#"{"jsonrpc":"2.0","method":1,"params":"bar"}"#).unwrap();
        assert_eq!(a["id"], Value::Null);
    }

    #[test]
    fn before_a_session_requests_are_told_to_initialize() {
        let mut started = false;
        let before = |line: &str, started: &mut bool| match check(line.as_bytes(), started) {
            Check::Answer(text) => Some(serde_json::from_str::<Value>(&text).unwrap()),
            _ => None,
        };
        let a = before(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            &mut started,
        )
        .unwrap();
        assert!(a["error"]["message"]
            .as_str()
            .unwrap()
            .contains("send `initialize`"));
        assert!(matches!(
            check(
                br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                &mut started
            ),
            Check::Skip
        ));
        assert!(before(r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#, &mut started).is_none());
        assert!(!started);
        let init = r#"{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;
        assert!(before(init, &mut started).is_none());
        assert!(started);
        assert!(before(
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/list"}"#,
            &mut started
        )
        .is_none());
    }
}
