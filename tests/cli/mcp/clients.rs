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

/// The instructions as a host written in JavaScript measures them.
fn host_len(text: &str) -> usize {
    text.encode_utf16().count()
}

/// Claude Code keeps the first 2,048 characters of the instructions and
/// Codex shows the model the first 247: the whole fits in the first, and
/// the first paragraph, within the second, says how to use the tools.
fn check_instructions(instructions: &str, what: &str) {
    assert!(
        host_len(instructions) <= 2_048,
        "{what}: {} characters:\n{instructions}",
        host_len(instructions)
    );
    let lead = instructions.split("\n\n").next().unwrap();
    assert!(
        host_len(lead) <= 247,
        "{what}: the lead is {} characters: {lead}",
        host_len(lead)
    );
    for tool in ["`search_skills`", "`read_skill`"] {
        assert!(
            lead.contains(tool),
            "{what}: the lead does not name {tool}: {lead}"
        );
    }
    assert!(
        instructions.contains("skilldex://directory"),
        "{what}: the directory resource is not named:\n{instructions}"
    );
}

fn instructions_of(root: &std::path::Path, extra: &[&str]) -> String {
    let mut raw = Raw::spawn(root, extra, std::process::Stdio::null());
    let answer = raw.request(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}),
    );
    answer["result"]["instructions"]
        .as_str()
        .unwrap_or_else(|| panic!("no instructions: {answer}"))
        .to_string()
}

#[test]
fn instructions_fit_what_hosts_keep() {
    // The bundled catalog: small enough that most of it is listed.
    let (_temp, root, _config) = fixture();
    let small = instructions_of(&root, &["--no-watch"]);
    check_instructions(&small, "the bundled catalog");
    assert!(small.contains("csv-cleanup"), "{small}");
    // A generous token budget does not lift the character limit.
    let generous = instructions_of(&root, &["--no-watch", "--budget-tokens", "100000"]);
    check_instructions(&generous, "--budget-tokens 100000");
    // A large catalog, with long descriptions, some in Chinese (more bytes
    // per character) and some with characters outside the BMP (two UTF-16
    // units each).
    let temp = tempfile::tempdir().unwrap();
    for i in 0..600 {
        let description = match i % 3 {
            0 => format!("Handles task number {i} in great detail, covering every step of the work and its many edge cases. Use when task {i} comes up."),
            1 => format!("处理第 {i} 号任务的全部步骤，包括准备、执行、检查和收尾工作。在需要完成第 {i} 号任务时使用。"),
            _ => format!("Sorts 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝔱𝔢𝔵𝔱 for task {i} 🚀 with care. Use when task {i} needs sorting."),
        };
        crate::write(
            temp.path(),
            &format!("group-{}/skill-{i}/SKILL.md", i % 40),
            crate::skill_md(&format!("skill-{i}"), &description),
        );
    }
    let large = instructions_of(temp.path(), &["--no-watch"]);
    check_instructions(&large, "600 skills");
    assert!(
        large.contains("600 skills") || large.contains("skill-"),
        "{large}"
    );
}

/// Every object schema inside `schema`, with its JSON Pointer.
fn objects<'a>(schema: &'a Value, pointer: String, out: &mut Vec<(String, &'a Value)>) {
    let Some(map) = schema.as_object() else {
        return;
    };
    if map.get("type") == Some(&json!("object")) || map.contains_key("properties") {
        out.push((pointer.clone(), schema));
    }
    for (key, value) in map {
        match value {
            Value::Object(children) if key == "properties" || key == "$defs" => {
                for (name, child) in children {
                    objects(child, format!("{pointer}/{key}/{name}"), out);
                }
            }
            Value::Array(variants) if key == "anyOf" => {
                for (i, variant) in variants.iter().enumerate() {
                    objects(variant, format!("{pointer}/anyOf/{i}"), out);
                }
            }
            _ if key == "items" => objects(value, format!("{pointer}/items"), out),
            _ => {}
        }
    }
}

/// `skilldex tools --format openai --strict` prints definitions strict
/// mode accepts, and a call shaped by them (every optional argument
/// `null`, as openai-agents, LangChain and pydantic-ai send it) works on
/// every tool.
#[test]
fn strict_function_calls_work_with_nulls() {
    let strict = crate::run(&["tools", "--format", "openai", "--strict"]);
    assert_eq!(strict.code, 0, "{strict:?}");
    let strict = strict.json();
    let plain = crate::run(&["tools", "--format", "mcp"]).json();
    let tools = strict.as_array().unwrap();
    assert_eq!(tools.len(), plain.as_array().unwrap().len());
    let (_temp, root, _config) = fixture();
    let mut raw = Raw::start(&root, &["--no-watch"]);
    for tool in tools {
        let name = tool["name"].as_str().unwrap();
        assert_eq!(tool["strict"], true, "{name}");
        let parameters = &tool["parameters"];
        assert_eq!(
            parameters["type"], "object",
            "{name}: the root is an object"
        );
        let mut found = Vec::new();
        objects(parameters, String::new(), &mut found);
        for (pointer, object) in found {
            assert_eq!(object["additionalProperties"], false, "{name}{pointer}");
            let mut keys: Vec<&str> = object["properties"]
                .as_object()
                .map(|p| p.keys().map(String::as_str).collect())
                .unwrap_or_default();
            let mut required: Vec<&str> = object["required"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r.as_str().unwrap())
                .collect();
            keys.sort_unstable();
            required.sort_unstable();
            assert_eq!(
                keys, required,
                "{name}{pointer}: every property is required"
            );
        }
        // What was optional accepts null now; what was required does not.
        let original = plain
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap();
        let was_required: Vec<&Value> = original["inputSchema"]["required"]
            .as_array()
            .unwrap()
            .iter()
            .collect();
        let mut arguments = serde_json::Map::new();
        for (argument, schema) in parameters["properties"].as_object().unwrap() {
            let types = &schema["type"];
            let nullable = types.as_array().is_some_and(|t| t.contains(&json!("null")));
            assert_eq!(
                nullable,
                !was_required.contains(&&json!(argument)),
                "{name}.{argument}: {schema}"
            );
            let value = if nullable {
                Value::Null
            } else {
                match argument.as_str() {
                    "name" if name == "read_skill" => json!("git-bisect"),
                    "name" => json!("secret-recipes"),
                    "query" => json!("find the commit that broke a test"),
                    "pattern" => json!("bisect"),
                    _ => json!("It helps with the task at hand."),
                }
            };
            arguments.insert(argument.clone(), value);
        }
        let answer = raw.request("tools/call", json!({"name": name, "arguments": arguments}));
        assert!(
            answer.get("error").is_none(),
            "{name} {arguments:?}: {answer}"
        );
        let text = texts(&answer);
        assert!(!text.contains("not both"), "{name}: {text}");
        if name != "request_skill_enable" {
            assert_eq!(answer["result"]["isError"], false, "{name}: {text}");
        }
    }
    // Strict callers that cannot send null fill text with "": a blank
    // section is no section, so lines can still be read.
    let (is_error, text) = raw.call(
        "read_skill",
        json!({"name": "git-bisect", "section": "", "start_line": 1, "end_line": 3}),
    );
    assert!(!is_error, "{text}");
    assert!(text.contains("lines 1–3"), "{text}");
    // --strict is for OpenAI's shape only.
    let mcp = crate::run(&["tools", "--format", "mcp", "--strict"]);
    assert_eq!(mcp.code, 2, "{mcp:?}");
    assert!(mcp.stderr.contains("--format openai"), "{mcp:?}");
}

/// One `prompts/list` page: the names, and the cursor of the next.
fn prompts_page(raw: &mut Raw, cursor: Option<&str>) -> (Vec<String>, Option<String>) {
    let params = match cursor {
        Some(cursor) => json!({"cursor": cursor}),
        None => json!({}),
    };
    let answer = raw.request("prompts/list", params);
    let result = &answer["result"];
    let names = result["prompts"]
        .as_array()
        .unwrap_or_else(|| panic!("no prompts: {answer}"))
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect();
    (names, result["nextCursor"].as_str().map(str::to_string))
}

/// Every skill is a prompt (Claude Code shows them as slash commands):
/// listed in pages like resources, its instructions as a user message,
/// arguments only where the skill declares them; a change on disk is
/// announced with `notifications/prompts/list_changed`.
#[test]
fn every_skill_is_a_prompt() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("skills");
    for i in 0..1_005 {
        let name = format!("s{i:04}");
        crate::write(
            &root,
            &format!("bulk/{name}/SKILL.md"),
            crate::skill_md(&name, &format!("Bulk task {i}. Use when testing.")),
        );
    }
    crate::write(
        &root,
        "tools/bisect-run/SKILL.md",
        "---\nname: bisect-run\ndescription: Bisects with a test. Use when a test broke.\nargument-hint: <good-tag> <test command>\n---\n\n# Bisect run\n\nStart from $ARGUMENTS and mark each step.\n",
    );
    crate::write(
        &root,
        "tools/deploy-check/SKILL.md",
        "---\nname: deploy-check\ndescription: Checks a deploy. Use before a deploy.\narguments:\n  - name: service\n    description: The service to check.\n    required: true\n  - region\n---\n\n# Deploy check\n\nCheck the service's health first.\n",
    );
    let mut raw = Raw::start(&root, &[]);
    // Paged like resources: 1,000, then the rest, nothing twice.
    let (first, cursor) = prompts_page(&mut raw, None);
    assert_eq!(first.len(), 1_000);
    let (second, last) = prompts_page(&mut raw, cursor.as_deref());
    assert_eq!(last, None);
    let mut all: Vec<String> = first.into_iter().chain(second).collect();
    assert_eq!(all.len(), 1_007);
    all.sort();
    all.dedup();
    assert_eq!(all.len(), 1_007, "a prompt listed twice");
    let (code, message) = raw.error("prompts/list", json!({"cursor": "not-ours"}));
    assert_eq!(code, -32602, "{message}");
    assert!(message.contains("invalid cursor"), "{message}");
    // Arguments: none, a hint, a declared list.
    let answer = raw.request("prompts/list", json!({"cursor": cursor}));
    let prompts = answer["result"]["prompts"].as_array().unwrap().clone();
    let prompt = |name: &str| {
        prompts
            .iter()
            .find(|p| p["name"] == name)
            .unwrap_or_else(|| panic!("no prompt {name}: {prompts:?}"))
            .clone()
    };
    assert!(
        prompt("s1004").get("arguments").is_none(),
        "{}",
        prompt("s1004")
    );
    assert_eq!(
        prompt("bisect-run")["arguments"],
        json!([{"name": "arguments", "description": "What to pass, as <good-tag> <test command>", "required": false}])
    );
    assert_eq!(
        prompt("deploy-check")["arguments"],
        json!([{"name": "service", "description": "The service to check.", "required": true}, {"name": "region"}])
    );
    assert_eq!(
        prompt("deploy-check")["description"],
        "Checks a deploy. Use before a deploy."
    );
    // prompts/get: the instructions as one user message.
    let answer = raw.request("prompts/get", json!({"name": "s0007"}));
    let messages = answer["result"]["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 1, "{answer}");
    assert_eq!(messages[0]["role"], "user");
    let text = messages[0]["content"]["text"].as_str().unwrap();
    assert!(text.contains("# s0007\n\nDo the thing."), "{text}");
    assert!(!text.contains("description:"), "no front matter: {text}");
    let answer = raw.request(
        "prompts/get",
        json!({"name": "bisect-run", "arguments": {"arguments": "v1.4.0 cargo test"}}),
    );
    let text = answer["result"]["messages"][0]["content"]["text"]
        .as_str()
        .unwrap();
    assert!(
        text.contains("Start from v1.4.0 cargo test and mark"),
        "{text}"
    );
    let answer = raw.request(
        "prompts/get",
        json!({"name": "deploy-check", "arguments": {"region": "eu-west", "service": "billing"}}),
    );
    let text = answer["result"]["messages"][0]["content"]["text"]
        .as_str()
        .unwrap();
    assert!(
        text.ends_with("health first.\n\nARGUMENTS: billing eu-west\n"),
        "{text:?}"
    );
    let (code, message) = raw.error("prompts/get", json!({"name": "s00077"}));
    assert_eq!(code, -32602, "{message}");
    assert!(message.contains("did you mean"), "{message}");
    // A new skill on disk: the prompts changed.
    crate::write(
        &root,
        "tools/new-one/SKILL.md",
        crate::skill_md("new-one", "New. Use when testing."),
    );
    raw.wait_for("notifications/prompts/list_changed", |m| {
        m["method"] == "notifications/prompts/list_changed"
    });
    let answer = raw.request("prompts/get", json!({"name": "new-one"}));
    assert!(answer.get("result").is_some(), "{answer}");
}

/// `skill://index.json` is the Agent Skills discovery document of the
/// skills the extension serves, listed beside them.
#[test]
fn the_discovery_index_lists_the_served_skills() {
    let (_temp, root, _config) = fixture();
    let mut raw = Raw::start(&root, &["--no-watch"]);
    let listed = raw.request("resources/list", json!({}));
    let uris: Vec<&str> = listed["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uri"].as_str().unwrap())
        .collect();
    assert!(uris.contains(&"skill://index.json"), "{uris:?}");
    let answer = raw.request("resources/read", json!({"uri": "skill://index.json"}));
    let contents = &answer["result"]["contents"][0];
    assert_eq!(contents["mimeType"], "application/json", "{answer}");
    let index: Value = serde_json::from_str(contents["text"].as_str().unwrap()).unwrap();
    assert_eq!(
        index["$schema"],
        "https://schemas.agentskills.io/discovery/0.2.0/schema.json"
    );
    let entries = index["skills"].as_array().unwrap();
    // The same skills as skills/list, in its order.
    let served = raw.request("skills/list", json!({}));
    let served: Vec<&str> = served["result"]["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["uri"].as_str().unwrap())
        .collect();
    let urls: Vec<&str> = entries.iter().map(|e| e["url"].as_str().unwrap()).collect();
    assert_eq!(urls, served);
    // Bad_Name breaks the extension's naming rule: in neither.
    assert!(!urls.iter().any(|u| u.contains("Bad_Name")), "{urls:?}");
    for entry in entries {
        let keys: Vec<&str> = entry
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            ["description", "digest", "name", "type", "url"],
            "{entry}"
        );
        assert_eq!(entry["type"], "skill-md");
        // The digest is that of the file a client reads at `url`.
        let read = raw.request("resources/read", json!({"uri": entry["url"]}));
        let text = read["result"]["contents"][0]["text"].as_str().unwrap();
        assert_eq!(
            entry["digest"].as_str().unwrap(),
            rmcp::model::sha256_digest(text.as_bytes()),
            "{entry}"
        );
    }
    let csv = entries.iter().find(|e| e["name"] == "csv-cleanup").unwrap();
    assert_eq!(csv["url"], "skill://data/csv-cleanup/SKILL.md");
    assert!(csv["description"]
        .as_str()
        .unwrap()
        .starts_with("Profiles and cleans"));
}
