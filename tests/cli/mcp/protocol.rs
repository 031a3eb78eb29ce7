//! Raw JSON-RPC checks of `skilldex serve`: error answers and their ids,
//! paging, refusals, URIs, and the tools' answers in the terms the model
//! passed.

use super::{fixture, Raw};
use crate::write;
use serde_json::{json, Value};
use std::process::Stdio;
use std::time::Duration;

#[test]
fn every_error_answer_carries_the_request_id() {
    let (_temp, root, _config) = fixture();
    let mut raw = Raw::start(&root, &["--no-watch"]);
    for (line, id, says) in [
        (
            r#"{"id":77,"method":"ping"}"#,
            json!(77),
            "`jsonrpc` is missing",
        ),
        (
            r#"{"jsonrpc":"1.0","id":78,"method":"ping"}"#,
            json!(78),
            r#"`jsonrpc` must be "2.0", not "1.0""#,
        ),
        (
            r#"{"jsonrpc":"1.0","id":"seventy-nine","method":"ping"}"#,
            json!("seventy-nine"),
            r#"must be "2.0""#,
        ),
        (
            r#"{"jsonrpc":2,"id":80,"method":"ping"}"#,
            json!(80),
            r#"`jsonrpc` must be the string "2.0""#,
        ),
        (
            r#"{"jsonrpc":"2.0","id":81,"method":"ping","params":{"_meta":5}}"#,
            json!(81),
            "`_meta` of ping must be an object",
        ),
        (
            r#"{"jsonrpc":"2.0","id":82,"method":"tools/call","params":{"name":"read_skill","arguments":{},"_meta":[]}}"#,
            json!(82),
            "`_meta` of tools/call must be an object",
        ),
    ] {
        raw.send(line);
        let answer = raw.answer(&id);
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(says), "{line}: {answer}");
        assert_eq!(answer["jsonrpc"], "2.0", "{line}: {answer}");
    }
    // An id that cannot be read is answered with id null.
    raw.send(r#"{"jsonrpc":"1.0","id":{"x":1},"method":"ping"}"#);
    let answer = raw.answer(&Value::Null);
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
    // The session goes on.
    assert!(raw.request("ping", json!({})).get("result").is_some());
}

fn skill_file(name: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: Skill {name}. Use when testing paging.\n---\n\n# {name}\n"
    )
}

/// The names on one `skills/list` page, and its `nextCursor`.
fn skills_page(raw: &mut Raw, cursor: Option<&str>) -> (Vec<String>, Option<String>) {
    let params = match cursor {
        Some(cursor) => json!({"cursor": cursor}),
        None => json!({}),
    };
    let answer = raw.request("skills/list", params);
    let result = answer
        .get("result")
        .unwrap_or_else(|| panic!("skills/list: {answer}"));
    let names = result["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["frontmatter"]["name"].as_str().unwrap().to_string())
        .collect();
    (names, result["nextCursor"].as_str().map(str::to_string))
}

#[test]
fn skills_list_pages_continue_after_the_last_skill_served() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("skills");
    for i in 0..230 {
        let name = format!("s{i:03}");
        write(&root, &format!("{name}/SKILL.md"), skill_file(&name));
    }
    let mut raw = Raw::start(&root, &[]);
    let changed = |m: &Value| m["method"] == "notifications/resources/list_changed";
    let (first, cursor) = skills_page(&mut raw, None);
    assert_eq!((first.len(), first[99].as_str()), (100, "s099"));
    let cursor = cursor.expect("a second page");
    assert!(
        !cursor.contains("100"),
        "the cursor is not an offset: {cursor}"
    );
    // A skill that sorts first appears between two pages: the next page
    // still starts after s099, with nothing repeated.
    write(&root, "a000/SKILL.md", skill_file("a000"));
    raw.wait_for(
        "notifications/resources/list_changed after adding a000",
        changed,
    );
    let (second, cursor) = skills_page(&mut raw, Some(&cursor));
    assert_eq!(
        (second.len(), second[0].as_str(), second[99].as_str()),
        (100, "s100", "s199")
    );
    // The skill the cursor names is removed: the next page starts at the
    // first skill after it.
    std::fs::remove_dir_all(root.join("s199")).unwrap();
    raw.wait_for(
        "notifications/resources/list_changed after removing s199",
        changed,
    );
    let (third, cursor) = skills_page(&mut raw, Some(&cursor.expect("a third page")));
    assert_eq!(
        (third.len(), third.first().map(String::as_str), cursor),
        (30, Some("s200"), None)
    );
    // A cursor that is not one of ours is a clear -32602.
    for cursor in ["garbage", "100", ""] {
        let (code, message) = raw.error("skills/list", json!({"cursor": cursor}));
        assert_eq!(code, -32602, "{cursor:?}: {message}");
        assert!(
            message.contains("invalid cursor") && message.contains("nextCursor"),
            "{cursor:?}: {message}"
        );
    }
}

#[test]
fn resources_list_pages_continue_after_the_last_skill_served() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("skills");
    for i in 0..1_002 {
        let name = format!("s{i:04}");
        write(&root, &format!("{name}/SKILL.md"), skill_file(&name));
    }
    let mut raw = Raw::start(&root, &[]);
    let uris = |answer: &Value| -> Vec<String> {
        answer["result"]["resources"]
            .as_array()
            .unwrap_or_else(|| panic!("resources/list: {answer}"))
            .iter()
            .map(|r| r["uri"].as_str().unwrap().to_string())
            .collect()
    };
    let first = raw.request("resources/list", json!({}));
    let page = uris(&first);
    assert_eq!(
        (
            page.len(),
            page[0].as_str(),
            page[1].as_str(),
            page[999].as_str()
        ),
        (
            1_000,
            "skilldex://directory",
            "skill://index.json",
            "skill://s0997/SKILL.md"
        )
    );
    let cursor = first["result"]["nextCursor"].as_str().unwrap().to_string();
    write(&root, "a000/SKILL.md", skill_file("a000"));
    raw.wait_for("notifications/resources/list_changed", |m| {
        m["method"] == "notifications/resources/list_changed"
    });
    let second = raw.request("resources/list", json!({"cursor": cursor}));
    assert_eq!(
        uris(&second),
        [
            "skill://s0998/SKILL.md",
            "skill://s0999/SKILL.md",
            "skill://s1000/SKILL.md",
            "skill://s1001/SKILL.md"
        ]
    );
    assert!(second["result"].get("nextCursor").is_none(), "{second}");
    let (code, message) = raw.error("resources/list", json!({"cursor": "999"}));
    assert!(
        code == -32602 && message.contains("invalid cursor"),
        "{message}"
    );
}

#[test]
fn counts_below_one_are_refused_in_the_same_words() {
    let (_temp, root, _config) = fixture();
    let mut raw = Raw::start(&root, &["--no-watch"]);
    for (tool, arguments, says) in [
        (
            "grep_skills",
            json!({"pattern": "a", "max_results": 0}),
            "`max_results` is 0; it must be at least 1 — leave it out for the default (200)",
        ),
        (
            "grep_skills",
            json!({"pattern": "a", "max_results": -3}),
            "`max_results` is -3; it must be at least 1",
        ),
        (
            "search_skills",
            json!({"query": "csv", "limit": 0}),
            "`limit` is 0; it must be at least 1 — leave it out for the default (8)",
        ),
        (
            "search_skills",
            json!({"query": "csv", "limit": -1}),
            "`limit` is -1; it must be at least 1",
        ),
        (
            "read_skill",
            json!({"name": "csv-cleanup", "start_line": 0}),
            "`start_line` is 0; it must be at least 1 — line numbers start at 1",
        ),
        (
            "read_skill",
            json!({"name": "csv-cleanup", "end_line": -5}),
            "`end_line` is -5; it must be at least 1",
        ),
    ] {
        let (is_error, text) = raw.call(tool, arguments.clone());
        assert!(
            is_error && text.contains(says),
            "{tool} {arguments}: {text}"
        );
    }
    // One match is still one match.
    let (is_error, text) = raw.call("grep_skills", json!({"pattern": "CSV", "max_results": 1}));
    assert!(
        !is_error && text.starts_with("1 match in 1 file (stopped at 1"),
        "{text}"
    );
    // A number that is not whole is not an integer at all: -32602.
    let (code, message) = raw.error(
        "tools/call",
        json!({"name": "grep_skills", "arguments": {"pattern": "a", "max_results": 2.5}}),
    );
    assert_eq!(code, -32602);
    assert_eq!(
        message,
        "grep_skills: argument `max_results` must be a whole number, not the number 2.5"
    );
}

#[test]
fn a_bad_regex_is_reported_against_the_pattern_as_written() {
    let (_temp, root, _config) = fixture();
    let mut raw = Raw::start(&root, &["--no-watch"]);
    for pattern in ["(", "a{2,1}", "[z-a]"] {
        let (is_error, text) = raw.call("grep_skills", json!({"pattern": pattern}));
        assert!(is_error, "{pattern}: {text}");
        assert!(
            text.contains("not a valid regular expression") && text.contains(pattern),
            "{pattern}: {text}"
        );
        assert!(!text.contains("(?:"), "{pattern}: {text}");
        assert!(text.contains("fixed_strings: true"), "{pattern}: {text}");
    }
}

#[test]
fn unknown_names_are_answered_in_the_terms_they_were_passed() {
    let (_temp, root, _config) = fixture();
    let mut raw = Raw::start(&root, &["--no-watch"]);
    for (name, says) in [
        (
            "ns1/zeta",
            "no skill `zeta` in namespace `ns1`, and no namespace `ns1` exists — find skills with search_skills",
        ),
        (
            "data/csv-cleanu",
            "no skill `csv-cleanu` in namespace `data` — did you mean `data/csv-cleanup`?",
        ),
        (
            "dev/csv-cleanup",
            "no skill `csv-cleanup` in namespace `dev` — did you mean `data/csv-cleanup`?",
        ),
        (
            "../csv-cleanup",
            "`../csv-cleanup` is not a skill name: `..` is not allowed in a skill name or path — did you mean `csv-cleanup`?",
        ),
        ("csv-cleanu", "no skill named `csv-cleanu` — did you mean `csv-cleanup`?"),
    ] {
        let (is_error, text) = raw.call("read_skill", json!({"name": name}));
        assert!(is_error, "{name}: {text}");
        assert_eq!(text, says, "{name}");
        // The same with a path: the name is still the name.
        let (is_error, text) = raw.call("read_skill", json!({"name": name, "path": "scripts/profile_csv.py"}));
        assert!(is_error && text == says, "{name} with a path: {text}");
    }
    // A path that climbs is still refused as a path.
    let (is_error, text) = raw.call("read_skill", json!({"name": "csv-cleanup", "path": "../x"}));
    assert!(
        is_error && text.contains("paths may not leave the skill folder"),
        "{text}"
    );
}

#[test]
fn a_skill_uri_without_its_namespace_gets_the_right_uri() {
    let (_temp, root, _config) = fixture();
    let mut raw = Raw::start(&root, &["--no-watch"]);
    let right = "skill://data/csv-cleanup/SKILL.md";
    for uri in [
        "skill://csv-cleanup/SKILL.md",
        "skill://dev/csv-cleanup/SKILL.md",
    ] {
        let (code, message) = raw.error("skills/get", json!({"uri": uri}));
        assert_eq!(code, -32602, "{uri}: {message}");
        assert!(
            message.starts_with(&format!(
                "No skill is served at {uri} — did you mean {right}?"
            )),
            "{uri}: {message}"
        );
    }
    let (_, message) = raw.error(
        "resources/read",
        json!({"uri": "skill://csv-cleanup/SKILL.md"}),
    );
    assert!(
        message.contains(&format!("did you mean {right}?")),
        "{message}"
    );
    // Nothing like it: no hint.
    let (_, message) = raw.error(
        "skills/get",
        json!({"uri": "skill://nothing-like-it/SKILL.md"}),
    );
    assert_eq!(
        message,
        "No skill is served at skill://nothing-like-it/SKILL.md"
    );
    // The right URI works.
    let answer = raw.request("skills/get", json!({"uri": right}));
    assert!(answer.get("result").is_some(), "{answer}");
}

#[test]
fn methods_not_offered_say_what_is() {
    let (_temp, root, _config) = fixture();
    let mut raw = Raw::start(&root, &["--no-watch"]);
    let offers = "(this server offers tools, prompts, resources and skills: tools/list, tools/call, prompts/list, prompts/get, resources/list, resources/read, skills/list, skills/get";
    for (method, params) in [
        ("logging/setLevel", json!({"level": "debug"})),
        (
            "resources/subscribe",
            json!({"uri": "skill://data/csv-cleanup/SKILL.md"}),
        ),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "x"}, "argument": {"name": "a", "value": "b"}}),
        ),
        ("completion/complete", json!({})),
        ("no/such/method", json!({})),
    ] {
        let (code, message) = raw.error(method, params);
        assert_eq!(code, -32601, "{method}: {message}");
        assert!(
            message.starts_with(&format!("method not found: {method} {offers}")),
            "{method}: {message}"
        );
    }
    let (_, message) = raw.error("resources/subscribe", json!({"uri": "skill://x/SKILL.md"}));
    assert!(
        message.contains("notifications/resources/list_changed"),
        "{message}"
    );
    // A method the server offers, with params rmcp cannot read: -32602.
    let (code, message) = raw.error("initialize", json!({}));
    assert_eq!(code, -32602, "{message}");
    assert!(message.contains("initialize"), "{message}");
}

/// A reference file of a skill changes: its digest in `skills/list`
/// changes, and clients are told, though the directory is the same.
#[test]
fn a_changed_reference_file_is_announced() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("skills");
    write(&root, "alpha/SKILL.md", skill_file("alpha"));
    write(&root, "alpha/references/notes.md", "First notes.\n");
    let mut raw = Raw::start(&root, &[]);
    let digest = |raw: &mut Raw| -> String {
        let list = raw.request("skills/list", json!({}));
        list.to_string()
    };
    let before = digest(&mut raw);
    // The watcher may start after the first answer: edit until an edit is
    // announced (each edit is a change the server must tell), up to WAIT.
    let deadline = std::time::Instant::now() + super::WAIT;
    for edit in 1.. {
        write(
            &root,
            "alpha/references/notes.md",
            format!("Second notes, longer (edit {edit}).\n"),
        );
        let announced = raw.wait_within(Duration::from_millis(500), |m| {
            m["method"] == "notifications/resources/list_changed"
        });
        if announced.is_some() {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no notifications/resources/list_changed after {edit} reference edits in {:?}",
            super::WAIT
        );
    }
    let after = digest(&mut raw);
    assert_ne!(before, after, "the manifest's digest follows the file");
}

/// Every file a manifest lists reads back with its digest; a nested skill
/// whose name differs from its folder does not take over a folder of its
/// parent: it is left out of the extension (and stays readable by name).
#[test]
fn a_nested_skill_never_takes_over_its_parents_uris() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("skills");
    write(
        &root,
        "p/SKILL.md",
        crate::skill_md("p", "Parent. Use when testing."),
    );
    write(&root, "p/references/guide.md", "the guide\n");
    write(
        &root,
        "p/refs/SKILL.md",
        crate::skill_md("references", "Nested. Use when testing."),
    );
    write(&root, "p/refs/docs/x.md", "nested doc\n");
    // A nested skill named after its folder is served as before.
    write(
        &root,
        "p/inner/SKILL.md",
        crate::skill_md("inner", "Inner. Use when testing."),
    );
    let mut raw = Raw::start(&root, &["--no-watch"]);
    let listed = raw.request("skills/list", json!({}));
    let skills = listed["result"]["skills"].as_array().unwrap().clone();
    let uris: Vec<&str> = skills.iter().map(|s| s["uri"].as_str().unwrap()).collect();
    assert_eq!(
        uris,
        ["skill://p/SKILL.md", "skill://p/inner/SKILL.md"],
        "{listed}"
    );
    let mut files = 0;
    for skill in &skills {
        for file in skill["resources"].as_array().unwrap() {
            let uri = file["uri"].as_str().unwrap();
            let answer = raw.request("resources/read", json!({"uri": uri}));
            let text = answer["result"]["contents"][0]["text"]
                .as_str()
                .unwrap_or_else(|| panic!("{uri}: {answer}"));
            let digest = rmcp::model::sha256_digest(text.as_bytes());
            assert_eq!(file["digest"], digest, "{uri}");
            files += 1;
        }
    }
    assert_eq!(files, 6);
    let listing = raw.request(
        "resources/directory/read",
        json!({"uri": "skill://p/references"}),
    );
    let names: Vec<&str> = listing["result"]["resources"]
        .as_array()
        .unwrap_or_else(|| panic!("{listing}"))
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["guide.md"], "{listing}");
    let (is_error, text) = raw.call("read_skill", json!({"name": "references"}));
    assert!(!is_error && text.contains("# references"), "{text}");
}

/// A client that closes stdin ends the session, whenever it does: exit 0,
/// no error, and at once even while an elicitation waits for the user.
#[test]
fn closing_stdin_ends_serve_cleanly_at_any_time() {
    let (_temp, root, config) = fixture();
    let config = config.to_str().unwrap();
    // Before `initialize`.
    let mut raw = Raw::spawn(&root, &["--no-watch"], Stdio::piped());
    let (status, _, stderr) = raw.close();
    assert!(status.success(), "{status:?}: {stderr}");
    assert!(!stderr.contains("skilldex: error"), "{stderr}");
    // While `request_skill_enable` waits for the user's answer.
    let mut raw = Raw::spawn(&root, &["--no-watch", "--config", config], Stdio::piped());
    let answer = raw.request(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {"form": {}}}, "clientInfo": {"name": "raw", "version": "1"}}),
    );
    assert!(answer.get("result").is_some(), "{answer}");
    raw.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());
    raw.send(
        &json!({"jsonrpc": "2.0", "id": "enable", "method": "tools/call", "params": {"name": "request_skill_enable", "arguments": {"name": "secret-recipes", "suggest_reason": "Cooking."}}})
            .to_string(),
    );
    raw.wait_for("elicitation/create", |m| {
        m["method"] == "elicitation/create"
    });
    let (status, took, stderr) = raw.close();
    assert!(status.success(), "{status:?}: {stderr}");
    assert!(took < Duration::from_secs(2), "took {took:?} to exit");
}

/// Requests before `initialize` are told to send it (or the 2026-07-28
/// `_meta`); a stray notification before it does not end the session.
#[test]
fn requests_before_initialize_are_told_to_send_it() {
    let (_temp, root, _config) = fixture();
    let mut raw = Raw::spawn(&root, &["--no-watch"], Stdio::piped());
    raw.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());
    for method in ["tools/list", "skills/list", "resources/list"] {
        let (code, message) = raw.error(method, json!({}));
        assert_eq!(code, -32602, "{method}: {message}");
        assert!(
            message.contains("send `initialize`") && message.contains("2026-07-28"),
            "{method}: {message}"
        );
    }
    let answer = raw.request(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}),
    );
    assert!(answer.get("result").is_some(), "{answer}");
    raw.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());
    let tools = raw.request("tools/list", json!({}));
    assert!(tools["result"]["tools"].is_array(), "{tools}");
    let (status, _, stderr) = raw.close();
    assert!(status.success(), "{status:?}: {stderr}");
}

/// Only canonical `skill://` URIs are served: aliases of a file or folder
/// (empty or dot segments, an encoded `/`, a trailing slash) are refused
/// with the URI meant; a cursor that is not a string is refused.
#[test]
fn non_canonical_uris_and_cursors_are_refused() {
    let (_temp, root, _config) = fixture();
    let mut raw = Raw::start(&root, &["--no-watch"]);
    let file = "skill://dev/code-review/references/checklist.md";
    assert!(raw.request("resources/read", json!({"uri": file}))["result"].is_object());
    for alias in [
        "skill://dev/code-review/references//checklist.md",
        "skill://dev/code-review/./references/checklist.md",
        "skill://dev/code-review/references/checklist.md/",
        "skill://dev/code-review/references%2Fchecklist.md",
        "skill://dev/code-review/references/../references/checklist.md",
    ] {
        let (code, message) = raw.error("resources/read", json!({"uri": alias}));
        assert_eq!(code, -32002, "{alias}: {message}");
        assert!(
            message.ends_with(&format!("— read {file}")),
            "{alias}: {message}"
        );
    }
    let (_, message) = raw.error("resources/read", json!({"uri": "skill://dev/code-review/"}));
    assert!(
        message.ends_with("— read skill://dev/code-review/SKILL.md"),
        "{message}"
    );
    for (alias, meant) in [
        (
            "skill://dev/code-review/references/..",
            "skill://dev/code-review",
        ),
        ("skill://dev/code-review/", "skill://dev/code-review"),
    ] {
        let (code, message) = raw.error("resources/directory/read", json!({"uri": alias}));
        assert_eq!(code, -32602, "{alias}: {message}");
        assert!(
            message.ends_with(&format!("— list {meant}")),
            "{alias}: {message}"
        );
    }
    for cursor in [json!(5), json!({"a": 1}), json!(true)] {
        let (code, message) = raw.error("skills/list", json!({"cursor": cursor}));
        assert_eq!(code, -32602, "{cursor}: {message}");
        assert!(
            message.contains("`cursor` of skills/list must be a string"),
            "{message}"
        );
    }
}

/// `read_skill` takes the skill:// URI search_skills hands out, of the
/// skill or of one of its files.
#[test]
fn read_skill_accepts_a_skill_uri() {
    let (_temp, root, _config) = fixture();
    let mut raw = Raw::start(&root, &["--no-watch"]);
    let (is_error, text) = raw.call("search_skills", json!({"query": "code review"}));
    assert!(!is_error, "{text}");
    let hits: Value = serde_json::from_str(&text).unwrap();
    let uri = hits["results"][0]["uri"].as_str().unwrap().to_string();
    assert_eq!(uri, "skill://dev/code-review/SKILL.md", "{text}");
    let (is_error, text) = raw.call("read_skill", json!({"name": uri}));
    assert!(
        !is_error && text.starts_with("skill code-review — SKILL.md"),
        "{text}"
    );
    let (is_error, text) = raw.call(
        "read_skill",
        json!({"name": "skill://dev/code-review/references/checklist.md"}),
    );
    assert!(
        !is_error && text.starts_with("skill code-review — references/checklist.md"),
        "{text}"
    );
    let (is_error, text) = raw.call(
        "read_skill",
        json!({"name": "skill://code-review/SKILL.md"}),
    );
    assert!(
        is_error && text.contains("is not the URI of a skill this server serves"),
        "{text}"
    );
}

/// search_skills and `skilldex search` say the same thing in words: a weak
/// answer comes flagged low with the same advice, a plain no-match too, and
/// every hit carries its confidence.
#[test]
fn search_skills_says_what_the_cli_says() {
    let (temp, root, _config) = fixture();
    let mut raw = Raw::start(&root, &["--no-watch"]);
    let root_s = root.to_str().unwrap();
    for (query, confidence, no_match) in [
        ("review a knitting pattern for a wool sweater", "low", false),
        ("knit a sweater", "low", true),
        ("review the code of a pull request", "high", false),
    ] {
        let (is_error, text) = raw.call("search_skills", json!({"query": query}));
        assert!(!is_error, "{text}");
        let answer: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(answer["confidence"], confidence, "{query}: {text}");
        assert_eq!(answer["no_match"], no_match, "{query}: {text}");
        for hit in answer["results"].as_array().unwrap() {
            assert!(
                hit["confidence"] == "high" || hit["confidence"] == "low",
                "{text}"
            );
        }
        let cli = crate::run_in(temp.path(), &["search", "--root", root_s, query]);
        match answer["advice"].as_str() {
            Some(advice) => {
                assert_eq!(cli.stdout.lines().next(), Some(advice), "{query}: {cli:?}")
            }
            None => {
                assert_eq!(confidence, "high", "{text}");
                assert!(!cli.stdout.contains("Weak matches"), "{cli:?}");
            }
        }
    }
}

/// A disabled skill can be found: search_skills names the matching ones
/// apart from the results, `select:` too, and request_skill_enable
/// suggests disabled names.
#[test]
fn disabled_skills_are_named_apart_by_search() {
    let (_temp, root, config) = fixture();
    let mut raw = Raw::start(&root, &["--no-watch", "--config", config.to_str().unwrap()]);
    for query in ["family recipes", "select:secret-recipes"] {
        let (is_error, text) = raw.call("search_skills", json!({"query": query}));
        assert!(!is_error, "{text}");
        let answer: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            answer["disabled_matches"][0]["id"], "secret-recipes",
            "{query}: {text}"
        );
        assert!(
            answer["disabled_note"]
                .as_str()
                .is_some_and(|n| n.contains("request_skill_enable")),
            "{text}"
        );
        let ids: Vec<&str> = answer["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["id"].as_str().unwrap())
            .collect();
        assert!(!ids.contains(&"secret-recipes"), "{query}: {text}");
        if query.starts_with("select:") {
            assert_eq!(answer["unmatched_terms"], json!([]), "{text}");
        }
    }
    // Nothing disabled matches: no disabled_matches at all.
    let (_, text) = raw.call("search_skills", json!({"query": "git bisect"}));
    assert!(!text.contains("disabled_matches"), "{text}");
    let (is_error, text) = raw.call(
        "request_skill_enable",
        json!({"name": "secret-recipe", "suggest_reason": "Cooking."}),
    );
    assert!(
        is_error && text.contains("did you mean secret-recipes?"),
        "{text}"
    );
}

/// grep_skills searches one namespace; a namespace passed as `skill` is
/// pointed at `namespace`.
#[test]
fn grep_skills_searches_a_namespace() {
    let (_temp, root, _config) = fixture();
    let mut raw = Raw::start(&root, &["--no-watch"]);
    let (is_error, text) = raw.call(
        "grep_skills",
        json!({"pattern": "^name:", "namespace": "data"}),
    );
    assert!(!is_error, "{text}");
    let skills: Vec<&str> = text
        .lines()
        .skip(1)
        .map(|l| l.split('/').next().unwrap())
        .collect();
    assert_eq!(
        skills,
        ["csv-cleanup", "json-schema-design", "sql-query-review"],
        "{text}"
    );
    let (is_error, text) = raw.call("grep_skills", json!({"pattern": "a", "skill": "data"}));
    assert!(
        is_error && text.contains("`data` is a namespace, not a skill — pass it as `namespace`"),
        "{text}"
    );
    let (is_error, text) = raw.call(
        "grep_skills",
        json!({"pattern": "a", "skill": "csv-cleanup", "namespace": "data"}),
    );
    assert!(is_error && text.contains("not both"), "{text}");
}

/// A line longer than the cap is shown in part with a note that says how
/// to see more: `max_tokens`, which the continuation call carries on.
#[test]
fn a_long_line_can_be_read_further_with_max_tokens() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("skills");
    write(&root, "alpha/SKILL.md", skill_file("alpha"));
    let wide = "word ".repeat(40_000); // 200,000 bytes on one line
    write(
        &root,
        "alpha/refs/wide.md",
        format!("{wide}\nsecond line\nthird line\n"),
    );
    let mut raw = Raw::start(&root, &[]);
    let (is_error, small) = raw.call(
        "read_skill",
        json!({"name": "alpha", "path": "refs/wide.md"}),
    );
    let head = |text: &str| text.chars().take(300).collect::<String>();
    assert!(!is_error, "{}", head(&small));
    assert!(
        small.contains("pass a larger max_tokens"),
        "{}",
        head(&small)
    );
    let (is_error, large) = raw.call(
        "read_skill",
        json!({"name": "alpha", "path": "refs/wide.md", "max_tokens": 20000}),
    );
    assert!(!is_error, "{large}");
    assert!(
        large.len() > small.len() + 20_000,
        "{} vs {}",
        large.len(),
        small.len()
    );
    assert!(
        large.contains("\"max_tokens\":20000"),
        "the continuation keeps the cap: {large}"
    );
    let (is_error, text) = raw.call("read_skill", json!({"name": "alpha", "max_tokens": 0}));
    assert!(is_error && text.contains("`max_tokens` is 0"), "{text}");
}

#[test]
fn read_skill_takes_the_plugin_colon_skill_form() {
    let root = crate::fixture("layouts/marketplace");
    let mut raw = Raw::start(&root, &["--no-watch"]);
    // The header names the skill by its id: the winner of the name by
    // the plain name, the other by `plugin:skill`.
    for (name, id) in [
        ("lint-kit:review-notes", "lint-kit:review-notes"),
        ("lint-kit/review-notes", "lint-kit:review-notes"),
        ("git-tools:review-notes", "review-notes"),
        ("review-notes", "review-notes"),
    ] {
        let (is_error, text) = raw.call("read_skill", json!({"name": name}));
        assert!(!is_error, "{name}: {text}");
        assert!(
            text.starts_with(&format!("skill {id} — ")),
            "{name}: {text}"
        );
    }
    let (is_error, text) = raw.call("read_skill", json!({"name": "paper-kit:review-notes"}));
    assert!(is_error, "{text}");
}
