//! What the hosts people use send and expect (issue 20 §4): arguments a
//! host adds for itself, strict function calling's nulls, instructions
//! within the hosts' limits, prompts, and the discovery index.

use super::{fixture, Raw};
use serde_json::{json, Value};

/// Every text block of a tool result, joined.
fn texts(answer: &Value) -> String {
    answer["result"]["content"]
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// Gemini CLI adds `wait_for_previous: true` to every call: every tool
/// answers it as if it were not there, and says nothing about it; a
/// misspelt argument is ignored too, but named with the one it meant.
#[test]
fn unknown_arguments_are_ignored_on_every_tool() {
    let (_temp, root, _config) = fixture();
    let mut raw = Raw::start(&root, &["--no-watch"]);
    for (tool, arguments, says) in [
        (
            "search_skills",
            json!({"query": "clean a csv file"}),
            "csv-cleanup",
        ),
        (
            "read_skill",
            json!({"name": "csv-cleanup"}),
            "skill csv-cleanup",
        ),
        (
            "grep_skills",
            json!({"pattern": "delimiter", "fixed_strings": true}),
            "csv-cleanup/SKILL.md:",
        ),
    ] {
        let plain = raw.request("tools/call", json!({"name": tool, "arguments": arguments}));
        let mut with_extra = arguments.clone();
        with_extra["wait_for_previous"] = json!(true);
        let answer = raw.request("tools/call", json!({"name": tool, "arguments": with_extra}));
        assert!(answer.get("error").is_none(), "{tool}: {answer}");
        assert_eq!(answer["result"]["isError"], false, "{tool}: {answer}");
        assert!(texts(&answer).contains(says), "{tool}: {answer}");
        // The same answer, word for word: nothing to say about it.
        assert_eq!(answer["result"], plain["result"], "{tool}");
    }
    // request_skill_enable reaches its own checks with an extra argument.
    let answer = raw.request(
        "tools/call",
        json!({"name": "request_skill_enable", "arguments": {"name": "csv-cleanup", "suggest_reason": "It cleans CSV files.", "wait_for_previous": true}}),
    );
    assert!(answer.get("error").is_none(), "{answer}");
    assert!(texts(&answer).contains("already enabled"), "{answer}");
    // A misspelt argument is ignored, and named.
    let answer = raw.request(
        "tools/call",
        json!({"name": "read_skill", "arguments": {"name": "git-bisect", "sectoin": "Steps", "wait_for_previous": true}}),
    );
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    let text = texts(&answer);
    assert!(text.contains("skill git-bisect — SKILL.md"), "{text}");
    assert!(
        text.contains("ignored `sectoin`; did you mean `section`?"),
        "{text}"
    );
    assert!(!text.contains("wait_for_previous"), "{text}");
    // A known argument of the wrong type is still refused.
    let (code, message) = raw.error(
        "tools/call",
        json!({"name": "search_skills", "arguments": {"query": "csv", "limit": "five", "wait_for_previous": true}}),
    );
    assert_eq!(code, -32602, "{message}");
    assert!(
        message.contains("`limit` must be a whole number"),
        "{message}"
    );
}
