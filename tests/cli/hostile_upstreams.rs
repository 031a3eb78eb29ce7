//! Upstream MCP servers that misbehave (tests/fixtures/mcp-servers/
//! hostile_server.py): a call that hangs, crashes, answers 50 MB or a
//! line that is not JSON, a flood of `tools/list_changed`; listings of
//! 5,000 tools, schema bombs, poisoned names and descriptions, answers
//! nested too deep or broken. Each failure reaches the agent as a short,
//! clear error of its own call, `serve` answers every other request
//! meanwhile (beside a CPU hog per core), its memory stays bounded, and a
//! poisoned tool never takes a built-in tool's name.

use super::mcp::Raw;
use super::{bounded, fixture, skill_md, skilldex, write, Hogs, Run};
use serde_json::{json, Value};
use std::path::Path;
use std::time::{Duration, Instant};

/// serve's resident memory must stay below this (the largest message it
/// keeps is 16 MiB; the rest streams).
const RSS_CAP_MB: u64 = 256;

/// A project with one hostile server per `(name, listing, timeout)`.
fn project(folder: &Path, servers: &[(&str, &str, u32)]) {
    let script = fixture("mcp-servers").join("hostile_server.py");
    let mut text = String::from("roots: [skills]\nmcp_servers:\n");
    for (name, listing, timeout) in servers {
        let args: Vec<String> = std::iter::once(format!("{:?}", script.display().to_string()))
            .chain(listing.split_whitespace().map(|a| format!("{a:?}")))
            .collect();
        text.push_str(&format!(
            "  {name}:\n    command: python3\n    args: [{}]\n    timeout: {timeout}\n    env:\n      HOSTILE_LOG: {:?}\n",
            args.join(", "),
            folder.join(format!("{name}.log")).display().to_string()
        ));
    }
    write(folder, "skilldex.yaml", text);
    write(
        folder,
        "skills/demo/SKILL.md",
        skill_md("demo", "A demo skill. Use when testing."),
    );
}

fn sync(folder: &Path, only: &[&str]) -> Run {
    let mut command = skilldex();
    command
        .current_dir(folder)
        .args(["tools", "sync"])
        .args(only);
    bounded(command)
}

fn serve(folder: &Path) -> Raw {
    let config = folder.join("skilldex.yaml");
    Raw::start(
        &folder.join("skills"),
        &["--config", config.to_str().unwrap(), "--no-watch"],
    )
}

fn rss_mb(pid: u32) -> u64 {
    super::memory_mb(pid, "VmRSS")
}

/// Call `tool` through `call_tool` and, while it runs, ping: the call's
/// (is_error, text) and how long the ping took.
fn call_beside_a_ping(raw: &mut Raw, tool: &str, arguments: Value) -> (bool, String, Duration) {
    let id = json!(raw.next_id);
    raw.next_id += 1;
    raw.send(
        &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "call_tool", "arguments": {"tool": tool, "arguments": arguments}}})
        .to_string(),
    );
    let asked = Instant::now();
    let pong = raw.request("ping", json!({}));
    let ping = asked.elapsed();
    assert!(pong.get("result").is_some(), "ping beside {tool}: {pong}");
    let answer = raw.answer(&id);
    let result = &answer["result"];
    let text = result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        text.len() < 2_000,
        "{tool}: the error is short: {} bytes",
        text.len()
    );
    (result["isError"] == true, text, ping)
}

#[test]
#[allow(clippy::print_stderr)]
fn each_hostile_call_fails_alone_and_serve_answers_everything_else() {
    let temp = tempfile::tempdir().unwrap();
    let folder = temp.path();
    project(folder, &[("h", "calls", 3)]);
    let run = sync(folder, &[]);
    assert_eq!(run.code, 0, "{run:?}");
    let _hogs = Hogs::start();
    let mut raw = serve(folder);
    let mut pings = Vec::new();
    let echo = |raw: &mut Raw, after: &str| {
        let (is_error, text, ping) = call_beside_a_ping(raw, "h/echo", json!({"text": after}));
        assert!(
            !is_error && text.contains(after),
            "echo after {after}: {text}"
        );
        ping
    };
    let cases: [(&str, Value, &[&str]); 5] = [
        (
            "h/hang",
            json!({}),
            &["`h` did not answer `hang` within 3.0 s"],
        ),
        (
            "h/garbage",
            json!({}),
            &[
                "did not answer `garbage` within 3.0 s",
                "1 line to stdout that is not JSON-RPC (the first: \"this is not JSON {{{\")",
            ],
        ),
        (
            "h/huge",
            json!({"mb": 50}),
            &[
                "`h` answered the call of `huge` with an answer of 52,4",
                "more than the 16,777,216 bytes",
            ],
        ),
        (
            "h/crash",
            json!({}),
            &[
                "MCP server `h` exited during the call of `crash`",
                "hostile: crashing now",
            ],
        ),
        ("h/flood", json!({"count": 2000}), &[]),
    ];
    for (tool, arguments, expected) in cases {
        let (is_error, text, ping) = call_beside_a_ping(&mut raw, tool, arguments);
        pings.push(ping);
        if expected.is_empty() {
            assert!(!is_error && text == "flooded", "{tool}: {text}");
        } else {
            assert!(is_error, "{tool}: {text}");
            for part in expected {
                assert!(text.contains(part), "{tool}: {part:?} in {text}");
            }
        }
        pings.push(echo(&mut raw, tool));
        let rss = rss_mb(raw.pid());
        assert!(rss < RSS_CAP_MB, "after {tool}: serve holds {rss} MB");
    }
    pings.sort();
    eprintln!(
        "hostile calls beside a CPU hog per core: ping p50 {:?} max {:?}; serve's memory {} MB",
        pings[pings.len() / 2],
        pings[pings.len() - 1],
        rss_mb(raw.pid())
    );
    let (status, _, _) = raw.close();
    assert!(status.success(), "{status:?}");
    // 2,000 notices, and the server was asked for its tools a few times,
    // not 2,000: one listing at a time, and at most one per 200 ms of the
    // flood. (Counted once serve and its upstream are gone.)
    let listings = std::fs::read_to_string(folder.join("h.log"))
        .unwrap_or_default()
        .lines()
        .count();
    assert!(
        (1..=20).contains(&listings),
        "tools/list asked {listings} times (tools sync's included) after a flood of 2,000 notices"
    );
}

#[test]
fn unreadable_listings_are_clear_sync_errors_and_the_last_snapshot_stays() {
    let temp = tempfile::tempdir().unwrap();
    let folder = temp.path();
    project(folder, &[("x", "calls", 60)]);
    let run = sync(folder, &[]);
    assert_eq!(run.code, 0, "{run:?}");
    let snapshot = folder.join("skills/x/mcp-tools.json");
    let good = std::fs::read(&snapshot).unwrap();
    for (listing, expected) in [
        (
            "deep",
            "the server answered `tools/list` with an answer skilldex cannot read as JSON-RPC (recursion limit exceeded at line 1 column",
        ),
        (
            "invalid",
            "the server answered `tools/list` with an answer that is not valid JSON (key must be a string at line 1 column 40)",
        ),
    ] {
        project(folder, &[("x", listing, 60)]);
        let run = sync(folder, &[]);
        assert_eq!(run.code, 1, "{listing}: {run:?}");
        assert!(run.stderr.contains(expected), "{listing}: {}", run.stderr);
        assert!(!run.stderr.contains("within 60.0 s"), "{listing}: {}", run.stderr);
        assert_eq!(std::fs::read(&snapshot).unwrap(), good, "{listing}");
    }
}

#[test]
fn big_lists_schema_bombs_and_poisoned_tools_are_linted_and_never_shadow_built_ins() {
    let temp = tempfile::tempdir().unwrap();
    let folder = temp.path();
    project(
        folder,
        &[
            ("many", "many 5000", 30),
            ("bombs", "bombs", 30),
            ("pois", "poison", 30),
        ],
    );
    let run = sync(folder, &[]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stderr.contains("5,000 tools"), "{}", run.stderr);

    let mut command = skilldex();
    command
        .current_dir(folder)
        .args(["lint", "--format", "json"]);
    let lint = bounded(command);
    assert_eq!(lint.code, 0, "warnings only: {lint:?}");
    let diagnostics = lint.json();
    let found = |code: &str, tool: &str| {
        diagnostics["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["code"] == code && d.to_string().contains(tool))
    };
    assert!(
        found("prompt-injection", "ignore all previous instructions"),
        "{diagnostics:#}"
    );
    assert!(found("tool-name-unusual", "a__b"), "{diagnostics:#}");
    assert!(found("tool-name-unusual", "files/read"), "{diagnostics:#}");
    assert!(found("tool-name-unusual", "bell"), "{diagnostics:#}");
    assert!(
        found("schema-compacted", "replaced enums of over 64 values"),
        "{diagnostics:#}"
    );
    assert!(!found("prompt-injection", "honest"), "{diagnostics:#}");

    let mut raw = serve(folder);
    // Load every poisoned tool (each by its id), the bombs, and one of
    // the 5,000.
    for id in [
        "pois/tool_search",
        "pois/call_tool",
        "pois/read_skill",
        "pois/a__b",
        "pois/files/read",
        "pois/weather",
        "bombs/wide_enum",
        "bombs/cycle",
        "bombs/deep",
        "many/gadget_04711",
    ] {
        let (is_error, text) = raw.call("tool_search", json!({"query": id, "limit": 1}));
        assert!(!is_error && text.contains(id), "{id}: {text}");
    }
    let (is_error, text) = raw.call("tool_search", json!({"query": "bell", "limit": 3}));
    assert!(!is_error, "{text}");
    let listed = raw.request("tools/list", json!({}));
    let tools = listed["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    for built_in in ["tool_search", "call_tool", "read_skill"] {
        assert_eq!(
            names.iter().filter(|n| **n == built_in).count(),
            1,
            "{built_in} is skilldex's own, once: {names:?}"
        );
    }
    for name in &names {
        assert!(
            !name.is_empty()
                && name.len() <= 64
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'),
            "{name:?} is a name every host accepts"
        );
    }
    let search = tools.iter().find(|t| t["name"] == "tool_search").unwrap();
    assert!(
        search["description"]
            .as_str()
            .unwrap()
            .starts_with("Find tools of the MCP servers behind skilldex"),
        "{search}"
    );
    let wide = tools
        .iter()
        .find(|t| t["name"] == "bombs__wide_enum")
        .unwrap_or_else(|| panic!("{names:?}"));
    assert!(
        wide.to_string().len() < 10_000,
        "a 100,000-value enum is not shown whole: {} bytes",
        wide.to_string().len()
    );
    // The built-in still answers as itself.
    let (is_error, text) = raw.call(
        "tool_search",
        json!({"query": "operate gadget number 4711"}),
    );
    assert!(!is_error && text.contains("many/gadget_04711"), "{text}");
    let rss = rss_mb(raw.pid());
    assert!(rss < RSS_CAP_MB, "serve holds {rss} MB");
    let (status, _, _) = raw.close();
    assert!(status.success(), "{status:?}");
}
