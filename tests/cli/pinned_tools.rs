//! Always-visible and hinted tools: `pinned_tools` of `skilldex.yaml` and
//! the tools an upstream marks `anthropic/alwaysLoad` are in `serve`'s
//! first `tools/list` and stay in front of everything appended later;
//! `anthropic/searchHint` is search evidence and is passed on; the
//! descriptions of `tool_descriptions` replace the server's, and `lint`
//! names what in those settings is wrong, at `file:line:column`, with
//! fixes that pass.

use super::mcp::Raw;
use super::{bounded, fixture, skill_md, skilldex, write};
use serde_json::{json, Value};
use std::path::Path;

const ECHO_TEXT: &str = "Say the text back unchanged, from the lab bench.";

/// A project with the `lab` upstream (its hints on) synced, pinning
/// `lab/sample_measure` (and a misspelt `lab/sampel_label`), with a
/// description for `lab/echo` (and one for `lab/fail_tol`, which does not exist).
fn project() -> tempfile::TempDir {
    let temp = tempfile::tempdir().unwrap();
    let folder = temp.path();
    let script = format!(
        "{:?}",
        fixture("mcp-servers")
            .join("gateway_server.py")
            .display()
            .to_string()
    );
    write(
        folder,
        "skilldex.yaml",
        format!(
            "roots: [skills]\npinned_tools: [lab/sample_measure, lab/sampel_label]\ntool_descriptions:\n  lab/echo: {ECHO_TEXT}\n  lab/fail_tol: Never used.\nmcp_servers:\n  lab:\n    command: python3\n    args: [{script}, lab, \"40\", lab]\n    env: {{GATEWAY_HINTS: \"1\"}}\n    timeout: 20\n"
        ),
    );
    write(
        folder,
        "skills/bench/SKILL.md",
        skill_md(
            "bench",
            "Run bench experiments. Use when a sample needs measuring.",
        ),
    );
    let mut command = skilldex();
    command.current_dir(folder).args(["tools", "sync"]);
    let run = bounded(command);
    assert_eq!(run.code, 0, "{run:?}");
    temp
}

fn serve(folder: &Path) -> Raw {
    let config = folder.join("skilldex.yaml");
    let mut raw = Raw::spawn(
        &folder.join("skills"),
        &["--config", config.to_str().unwrap(), "--no-watch"],
        std::process::Stdio::piped(),
    );
    let answer = raw.request(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}),
    );
    assert!(answer.get("result").is_some(), "{answer}");
    raw.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());
    raw
}

fn listed(raw: &mut Raw) -> Vec<Value> {
    raw.request("tools/list", json!({}))["result"]["tools"]
        .as_array()
        .unwrap()
        .clone()
}

fn names(tools: &[Value]) -> Vec<&str> {
    tools.iter().map(|t| t["name"].as_str().unwrap()).collect()
}

fn named<'a>(tools: &'a [Value], name: &str) -> &'a Value {
    tools
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {:?}", names(tools)))
}

#[test]
fn pinned_and_always_load_tools_are_listed_first_and_stay_in_front() {
    let temp = project();
    let folder = temp.path();
    // The snapshot keeps the server's `_meta` as it sent it, and a second
    // sync writes the same bytes.
    let snapshot = std::fs::read_to_string(folder.join("skills/lab/mcp-tools.json")).unwrap();
    assert!(
        snapshot.contains("\"anthropic/alwaysLoad\": true"),
        "{snapshot}"
    );
    assert!(snapshot.contains("\"vendor/x\": 1"), "{snapshot}");
    let mut command = skilldex();
    command
        .current_dir(folder)
        .args(["tools", "sync", "--check"]);
    let check = bounded(command);
    assert_eq!(check.code, 0, "{check:?}");

    let mut raw = serve(folder);
    let first = listed(&mut raw);
    let loaded: Vec<&str> = names(&first)
        .into_iter()
        .filter(|n| n.starts_with("lab__"))
        .collect();
    // `pinned_tools` in its order, then what the server marks alwaysLoad.
    assert_eq!(
        loaded,
        ["lab__sample_measure", "lab__slow_count"],
        "{first:#?}"
    );
    for name in ["lab__sample_measure", "lab__slow_count", "tool_search"] {
        assert_eq!(
            named(&first, name)["_meta"]["anthropic/alwaysLoad"],
            json!(true),
            "{name}"
        );
    }
    assert!(named(&first, "tool_search")["_meta"]["anthropic/searchHint"].is_string());
    assert_eq!(
        named(&first, "search_skills")["_meta"]["anthropic/alwaysLoad"],
        json!(true)
    );
    assert!(named(&first, "call_tool")["_meta"]
        .get("anthropic/alwaysLoad")
        .is_none());

    // The hint is the only text with "parrot" in it: search finds echo by
    // it, with the configured description.
    let (is_error, text) = raw.call("tool_search", json!({"query": "parrot", "limit": 1}));
    assert!(!is_error, "{text}");
    let answer: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(answer["tools"][0]["id"], "lab/echo", "{answer:#}");
    assert_eq!(answer["tools"][0]["description"], ECHO_TEXT, "{answer:#}");
    assert_eq!(
        answer["loaded"],
        json!(["lab__sample_measure", "lab__slow_count", "lab__echo"])
    );
    raw.wait_for("tools/list_changed", |m| {
        m["method"] == "notifications/tools/list_changed"
    });
    let after = listed(&mut raw);
    assert!(after[..first.len()] == first[..], "nothing listed moves");
    assert_eq!(names(&after[first.len()..]), ["lab__echo"]);
    let echo = &after[first.len()];
    assert_eq!(echo["description"], ECHO_TEXT);
    assert_eq!(
        echo["_meta"],
        json!({"anthropic/searchHint": "parrot mirror repeat"}),
        "the hint passed on, whitespace collapsed; the server's other keys stay its own"
    );

    // A pinned tool is called through skilldex like any loaded one.
    let (is_error, text) = raw.call("lab__sample_measure", json!({"id": "s-1"}));
    assert!(!is_error && text.contains("s-1"), "{text}");
    // Searching for a pinned tool loads nothing new.
    let (_, text) = raw.call(
        "tool_search",
        json!({"query": "lab/sample_measure", "limit": 1}),
    );
    let answer: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(answer["tools"][0]["status"], "already loaded", "{answer:#}");
    assert!(listed(&mut raw) == after, "the list is unchanged");
    let loaded = raw.request("resources/read", json!({"uri": "skilldex://tools/loaded"}));
    let loaded: Value =
        serde_json::from_str(loaded["result"]["contents"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(loaded["loaded"][0]["pinned"], json!(true), "{loaded}");
    assert!(loaded["loaded"][2].get("pinned").is_none(), "{loaded}");
    assert_eq!(loaded["loaded"][0]["id"], "lab/sample_measure", "{loaded}");

    let (status, _, stderr) = raw.close();
    assert!(status.success(), "{status:?}");
    // The misspelt pin and the description of no tool, said once each
    // with where they are written and what was meant.
    let config = folder.join("skilldex.yaml");
    for line in [
        format!("{}:2:36: warning[pinned-tool-unknown]: `pinned_tools` names `lab/sampel_label`, which matches no tool of the tool catalogs — did you mean `lab/sample_label`", config.display()),
        format!("{}:5:3: warning[tool-description-unknown]: `tool_descriptions` names `lab/fail_tol`", config.display()),
    ] {
        assert!(
            stderr.lines().any(|l| l.starts_with(&line)),
            "{line}\n{stderr}"
        );
    }
}

#[test]
fn lint_names_each_bad_tool_setting_and_its_fixes_pass() {
    let temp = project();
    let folder = temp.path();
    let long = "Measure a sample. ".repeat(60);
    let config = folder.join("skilldex.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    let text = text.replace(
        "  lab/fail_tol: Never used.\n",
        &format!("  lab/fail_tol: Never used.\n  lab/sample_measure: \"{long}\"\n  lab/slow_count: \"  \"\n"),
    );
    std::fs::write(&config, &text).unwrap();
    let lint = |folder: &Path| {
        let mut command = skilldex();
        command.current_dir(folder).args([
            "lint",
            "--format",
            "json",
            "--code",
            "pinned-tool-unknown",
            "--code",
            "tool-description-*",
        ]);
        let run = bounded(command);
        assert_eq!(run.code, 0, "warnings only: {run:?}");
        let found: Vec<String> = run.json()["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                format!(
                    "{}:{}:{} {} {}",
                    Path::new(d["path"].as_str().unwrap())
                        .file_name()
                        .unwrap()
                        .to_string_lossy(),
                    d["line"],
                    d["column"],
                    d["code"].as_str().unwrap(),
                    d["message"].as_str().unwrap()
                )
            })
            .collect();
        found
    };
    let found = lint(folder);
    let expected = [
        "skilldex.yaml:2:36 pinned-tool-unknown `pinned_tools` names `lab/sampel_label`, which matches no tool of the tool catalogs — did you mean `lab/sample_label`",
        "skilldex.yaml:5:3 tool-description-unknown `tool_descriptions` names `lab/fail_tol`, which is no tool of the tool catalogs, so its description is not used — did you mean `lab/fail_tool`",
        "skilldex.yaml:6:23 tool-description-too-long the description of `lab/sample_measure` is 1,079 bytes; the limit is 1,000 — shorten it to at most 1,000 bytes",
        "skilldex.yaml:7:19 tool-description-empty the description of `lab/slow_count` is empty",
    ];
    assert_eq!(found.len(), expected.len(), "{found:#?}");
    for (found, expected) in found.iter().zip(expected) {
        assert!(found.starts_with(expected), "{expected}\n{found}");
    }
    // The catalog uses the first 1,000 bytes meanwhile.
    let mut command = skilldex();
    command
        .current_dir(folder)
        .args(["show", "lab/sample_measure", "--json"]);
    let shown = bounded(command).json();
    let description = shown["description"].as_str().unwrap();
    assert!(
        description.len() <= 1_000 && long.starts_with(description),
        "{shown}"
    );

    // The fixes as suggested: the ids meant, the text within the limit, a
    // description written.
    let cut = &long[..1_000];
    let fixed = text
        .replace("lab/sampel_label", "lab/sample_label")
        .replace("lab/fail_tol", "lab/fail_tool")
        .replace(&long, cut)
        .replace("lab/slow_count: \"  \"", "lab/slow_count: Count slowly.");
    std::fs::write(&config, fixed).unwrap();
    assert_eq!(lint(folder), Vec::<String>::new());
}

/// The same through the official MCP Python SDK (tests/mcp/gateway.py,
/// scenario `pinned`), on both lifecycles.
#[test]
fn an_independent_client_sees_pinned_tools_first_with_their_hints() {
    for mode in ["legacy", "auto"] {
        let temp = project();
        super::mcp::run_script(
            "gateway.py",
            &[
                "--scenario",
                "pinned",
                "--mode",
                mode,
                "--binary",
                env!("CARGO_BIN_EXE_skilldex"),
                "--folder",
                temp.path().to_str().unwrap(),
            ],
        );
    }
}

/// `lint --format json` of `folder`, only `code`: `line:column message`.
fn findings(folder: &Path, code: &str) -> Vec<String> {
    let mut command = skilldex();
    command
        .current_dir(folder)
        .args(["lint", "--format", "json", "--code", code]);
    let run = bounded(command);
    assert_eq!(run.code, 0, "warnings only: {run:?}");
    run.json()["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            format!(
                "{}:{} {}",
                d["line"],
                d["column"],
                d["message"].as_str().unwrap()
            )
        })
        .collect()
}

#[test]
fn a_pin_of_a_disabled_server_is_not_listed_and_lint_says_so() {
    let temp = project();
    let folder = temp.path();
    let config = folder.join("skilldex.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("{text}    enabled: false\n")).unwrap();

    // Neither the pin nor the tool the server marks alwaysLoad: the
    // server is off, so its tools could not be called.
    let mut raw = serve(folder);
    let first = listed(&mut raw);
    assert!(
        names(&first).iter().all(|n| !n.starts_with("lab__")),
        "{:?}",
        names(&first)
    );
    let (status, _, _) = raw.close();
    assert!(status.success(), "{status:?}");

    let found = findings(folder, "pinned-tool-disabled");
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(
        found[0].starts_with(&format!(
            "2:16 `pinned_tools` names `lab/sample_measure`, a tool of `lab`, which `mcp_servers` disables (`enabled: false` in {}), so serve does not list it — remove the entry, or enable the server",
            config.display()
        )),
        "{found:#?}"
    );
    // Both fixes pass: the entry removed, or the server enabled.
    let removed = text.replace("[lab/sample_measure, ", "[");
    std::fs::write(&config, format!("{removed}    enabled: false\n")).unwrap();
    assert_eq!(findings(folder, "pinned-tool-disabled"), [] as [String; 0]);
    std::fs::write(&config, format!("{text}    enabled: true\n")).unwrap();
    assert_eq!(findings(folder, "pinned-tool-disabled"), [] as [String; 0]);
}

#[test]
fn tools_spec_gives_a_loaded_tool_as_serve_lists_it() {
    let temp = project();
    let folder = temp.path();
    let mut raw = serve(folder);
    let first = listed(&mut raw);
    let _ = raw.close();
    for (id, name) in [
        ("lab/sample_measure", "lab__sample_measure"),
        ("lab/slow_count", "lab__slow_count"),
    ] {
        let mut command = skilldex();
        command
            .current_dir(folder)
            .args(["tools", "spec", id, "--format", "mcp"]);
        let run = bounded(command);
        assert_eq!(run.code, 0, "{run:?}");
        let spec = run.json();
        let served = named(&first, name);
        assert_eq!(spec["_meta"], served["_meta"], "{id}: {spec} / {served}");
        assert_eq!(spec["_meta"]["anthropic/alwaysLoad"], json!(true), "{id}");
        assert_eq!(spec["inputSchema"], served["inputSchema"], "{id}");
    }
}
