//! Protocol storms against `skilldex serve`, beside a CPU hog per core:
//! malformed and odd JSON-RPC (batches, ids that are not ids, huge ids,
//! notifications rmcp cannot read), 10,000 pipelined requests, and a
//! storm of requests cancelled as soon as they are sent. Every request is
//! answered (or refused) with its id, every answer is JSON-RPC (an error
//! always has an `id`, null when none is usable), no notification is
//! answered, and serve's memory stays under a cap. The timings are
//! printed (`--nocapture`), not asserted.

use super::{fixture, Raw};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::process::Stdio;
use std::time::{Duration, Instant};

/// serve's peak resident memory must stay below this through the storms
/// (the debug build peaks near 210 MB, during the 10,000 pipelined
/// requests, which are all in flight at once).
const RSS_CAP_MB: u64 = 384;

/// serve's peak resident memory so far (`VmHWM`), in MB.
fn peak_rss_mb(pid: u32) -> u64 {
    crate::memory_mb(pid, "VmHWM")
}

/// Read answers until every id of `ids` has one (or `patience` passes);
/// returns the ids still missing and every other message seen.
fn collect(raw: &mut Raw, ids: &mut BTreeSet<String>, patience: Duration) -> Vec<Value> {
    let deadline = Instant::now() + patience;
    let mut others = Vec::new();
    for message in std::mem::take(&mut raw.seen) {
        if !ids.remove(&message["id"].to_string()) {
            others.push(message);
        }
    }
    while !ids.is_empty() {
        let left = deadline.saturating_duration_since(Instant::now());
        let Ok(line) = raw.lines.recv_timeout(left) else {
            break;
        };
        let message: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("serve wrote a line that is not JSON ({e}): {line}"));
        assert_eq!(message["jsonrpc"], "2.0", "{message}");
        if message.get("error").is_some() {
            assert!(
                message.get("id").is_some(),
                "an error without `id`: {message}"
            );
        }
        if !ids.remove(&message["id"].to_string()) {
            others.push(message);
        }
    }
    others
}

#[test]
#[allow(clippy::print_stdout)] // the figures, shown with --nocapture
fn malformed_lines_pipelined_floods_and_cancel_storms_are_each_answered() {
    let (_temp, root, _config) = fixture();
    let _hogs = crate::Hogs::start();
    let mut raw = Raw::spawn(&root, &["--no-watch"], Stdio::null());
    let answer = raw.request(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}),
    );
    assert!(answer.get("result").is_some(), "{answer}");
    raw.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());

    // Malformed and odd lines: (line, the id its answer carries, the
    // error code, or None for a result). Notifications get no answer.
    let huge_id = "i".repeat(1 << 20);
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let cases: Vec<(String, Value, Option<i64>)> = vec![
        ("{".into(), Value::Null, Some(-32700)),
        ("[]".into(), Value::Null, Some(-32600)),
        (
            r#"[{"jsonrpc":"2.0","id":"b","method":"ping"}]"#.into(),
            Value::Null,
            Some(-32600),
        ),
        (r#""a string""#.into(), Value::Null, Some(-32600)),
        (
            r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#.into(),
            Value::Null,
            Some(-32600),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#.into(),
            Value::Null,
            Some(-32600),
        ),
        (
            r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#.into(),
            Value::Null,
            Some(-32600),
        ),
        (
            r#"{"jsonrpc":"2.0","id":18446744073709551616,"method":"ping"}"#.into(),
            Value::Null,
            Some(-32600),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1e400,"method":"ping"}"#.into(),
            Value::Null,
            Some(-32700),
        ),
        (
            r#"{"jsonrpc":"1.0","id":"v1","method":"ping"}"#.into(),
            json!("v1"),
            Some(-32600),
        ),
        (
            r#"{"id":"nojr","method":"ping"}"#.into(),
            json!("nojr"),
            Some(-32600),
        ),
        (
            r#"{"jsonrpc":"2.0","id":"nometh"}"#.into(),
            json!("nometh"),
            Some(-32600),
        ),
        (
            r#"{"jsonrpc":"2.0","id":"px","method":"ping","params":"x"}"#.into(),
            json!("px"),
            Some(-32602),
        ),
        (
            r#"{"jsonrpc":"2.0","id":"unknown","method":"no/such"}"#.into(),
            json!("unknown"),
            Some(-32601),
        ),
        (
            format!(r#"{{"jsonrpc":"2.0","id":"deep","method":"ping","params":{deep}}}"#),
            Value::Null,
            Some(-32700),
        ),
        (
            format!(r#"{{"jsonrpc":"2.0","id":"{huge_id}","method":"ping"}}"#),
            json!(huge_id),
            None,
        ),
        (
            r#"{"jsonrpc":"2.0","id":-7,"method":"ping"}"#.into(),
            json!(-7),
            None,
        ),
        (
            r#"{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}"#.into(),
            json!(9007199254740993u64),
            None,
        ),
        (
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":5}"#.into(),
            Value::Null,
            Some(-32600),
        ),
        (
            r#"{"jsonrpc":"2.0","method":1,"params":"bar"}"#.into(),
            Value::Null,
            Some(-32600),
        ),
        (
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"none"}}"#
                .into(),
            Value::Null,
            None,
        ),
        (
            r#"{"jsonrpc":"2.0","method":"no/such/notification"}"#.into(),
            Value::Null,
            None,
        ),
    ];
    for (n, (line, id, code)) in cases.iter().enumerate() {
        raw.send(line);
        // A ping of its own after each line: what comes before its answer
        // is the line's answer (or nothing, for a notification).
        let ping = json!(format!("after-{n}"));
        raw.send(&json!({"jsonrpc": "2.0", "id": ping, "method": "ping"}).to_string());
        let pong = raw.answer(&ping);
        assert!(pong.get("result").is_some(), "{pong}");
        let shown = &line[..line.len().min(80)];
        let answers = std::mem::take(&mut raw.seen);
        if id.is_null() && code.is_none() {
            assert!(
                answers.is_empty(),
                "{shown}: a notification was answered: {answers:?}"
            );
            continue;
        }
        let [answer] = &answers[..] else {
            panic!("{shown}: expected one answer, got {answers:?}");
        };
        assert_eq!(answer["id"], *id, "{shown}: {answer}");
        assert_eq!(answer["error"]["code"].as_i64(), *code, "{shown}: {answer}");
        assert!(
            answer.get("error").is_none() || answer.get("id").is_some(),
            "{shown}: {answer}"
        );
    }

    // 10,000 requests pipelined, five kinds in turn.
    let kinds = [
        ("ping", json!({})),
        ("tools/list", json!({})),
        (
            "tools/call",
            json!({"name": "search_skills", "arguments": {"query": "review code"}}),
        ),
        ("resources/list", json!({})),
        (
            "tools/call",
            json!({"name": "read_skill", "arguments": {"name": "code-review"}}),
        ),
    ];
    let started = Instant::now();
    let mut ids = BTreeSet::new();
    for i in 0..10_000 {
        let (method, params) = &kinds[i % kinds.len()];
        let id = format!("flood-{i}");
        raw.send(
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string(),
        );
        ids.insert(json!(id).to_string());
    }
    let others = collect(&mut raw, &mut ids, Duration::from_secs(300));
    assert!(
        ids.is_empty(),
        "{} of 10,000 unanswered: {:?}",
        ids.len(),
        ids.iter().take(5).collect::<Vec<_>>()
    );
    assert!(
        others.is_empty(),
        "unexpected: {:?}",
        &others[..others.len().min(3)]
    );
    let flood = started.elapsed();
    let after_flood = peak_rss_mb(raw.pid());

    // A cancel storm: 2,000 greps each cancelled as it is sent, 2,000
    // cancels of ids never sent, a ping every 100 greps.
    let started = Instant::now();
    let mut pings = BTreeSet::new();
    for i in 0..2_000 {
        let id = format!("grep-{i}");
        raw.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "grep_skills", "arguments": {"pattern": "(a|b)+c"}}}).to_string());
        raw.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id, "reason": "storm"}}).to_string());
        raw.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": format!("never-{i}")}}).to_string());
        if i % 100 == 0 {
            let ping = format!("storm-ping-{i}");
            raw.send(&json!({"jsonrpc": "2.0", "id": ping, "method": "ping"}).to_string());
            pings.insert(json!(ping).to_string());
        }
    }
    let ping_sent = Instant::now();
    raw.send(&json!({"jsonrpc": "2.0", "id": "last-ping", "method": "ping"}).to_string());
    pings.insert(json!("last-ping").to_string());
    let others = collect(&mut raw, &mut pings, Duration::from_secs(60));
    let last_ping = ping_sent.elapsed();
    assert!(pings.is_empty(), "pings unanswered in the storm: {pings:?}");
    // A cancelled grep may still be answered (when it finished first),
    // with its own id; nothing else comes.
    for message in &others {
        let id = message["id"].as_str().unwrap_or_default();
        assert!(id.starts_with("grep-"), "unexpected: {message}");
    }
    let storm = started.elapsed();
    // Still serving, each kind of request.
    let (is_error, text) = raw.call("read_skill", json!({"name": "code-review"}));
    assert!(!is_error && text.contains("code-review"), "{text}");
    let rss = peak_rss_mb(raw.pid());
    assert!(
        rss < RSS_CAP_MB,
        "serve peaked at {rss} MB in the storms (cap {RSS_CAP_MB} MB)"
    );
    println!(
        "storms: 10,000 pipelined answered in {flood:.2?} ({after_flood} MB); cancel storm of 2,000 greps: {} answered anyway, ping after it {last_ping:.2?}, all in {storm:.2?}; peak {rss} MB",
        others.len()
    );
    let (status, _, _) = raw.close();
    assert!(status.success(), "{status:?}");
}
