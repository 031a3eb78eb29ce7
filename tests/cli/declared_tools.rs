//! Skills that declare the MCP tools they need — in `allowed-tools`
//! (`mcp__server__tool`), in `metadata.mcp-tools`, in Codex's
//! `agents/openai.yaml` — linted against the tool catalogs, listed by
//! `show`, and appended to the agent's tool list by `serve` when the
//! skill is read (the tools of a synced stdio server, called through
//! skilldex).

use super::mcp::Raw;
use super::{bounded, fixture, skill_md, skilldex, write};
use serde_json::{json, Value};
use std::path::Path;

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
            "roots: [skills]\nmcp_servers:\n  lab:\n    command: python3\n    args: [{script}, lab, \"40\", lab]\n    timeout: 20\navailable_servers:\n  notes:\n    command: python3\n    args: [{script}, notes, \"10\", office]\n"
        ),
    );
    write(
        folder,
        "skills/bench/SKILL.md",
        "---\nname: bench\ndescription: Run bench experiments. Use when a sample needs measuring.\nallowed-tools: Read Bash(git:*) mcp__lab__echo\nmetadata:\n  mcp-tools: lab/slow_count lab/nope\n---\n# Bench\n\nMeasure the sample.\n",
    );
    write(
        folder,
        "skills/journal/SKILL.md",
        skill_md("journal", "Keep a lab journal. Use when notes are taken."),
    );
    write(
        folder,
        "skills/journal/agents/openai.yaml",
        "interface:\n  display_name: Journal\ndependencies:\n  tools:\n    - type: \"mcp\"\n      value: \"notes\"\n      description: Notes server\n    - type: mcp\n      value: ghost\n",
    );
    write(
        folder,
        "skills/plain/SKILL.md",
        skill_md("plain", "A skill without tools. Use when testing."),
    );
    let mut command = skilldex();
    command.current_dir(folder).args(["tools", "sync"]);
    let run = bounded(command);
    assert_eq!(run.code, 0, "{run:?}");
    temp
}

fn names(listed: &Value) -> Vec<String> {
    listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

/// The last text block of `read_skill`'s answer for `name`: the note on
/// its declared tools.
fn read_note(raw: &mut Raw, name: &str) -> String {
    let answer = raw.request(
        "tools/call",
        json!({"name": "read_skill", "arguments": {"name": name}}),
    );
    answer["result"]["content"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()["text"]
        .as_str()
        .unwrap()
        .to_string()
}

fn serve(folder: &Path) -> Raw {
    let config = folder.join("skilldex.yaml");
    Raw::start(
        &folder.join("skills"),
        &["--config", config.to_str().unwrap(), "--no-watch"],
    )
}

#[test]
fn lint_and_show_name_each_declaration_and_what_the_catalog_has_of_it() {
    let temp = project();
    let folder = temp.path();
    let mut command = skilldex();
    command
        .current_dir(folder)
        .args(["lint", "--format", "json"]);
    let lint = bounded(command);
    let value = lint.json();
    let found: Vec<String> = value["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"].as_str().unwrap().starts_with("declared-"))
        .map(|d| {
            let path = d["path"].as_str().unwrap();
            let path = Path::new(path)
                .strip_prefix(folder)
                .unwrap_or(Path::new(path));
            format!(
                "{}:{}:{} {} {}",
                path.display(),
                d["line"],
                d["column"],
                d["code"].as_str().unwrap(),
                d["message"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(found.len(), 3, "{found:#?}");
    assert!(
        found[0].starts_with("skills/bench/SKILL.md:5:10 declared-tool-unknown `lab/nope` (in metadata.mcp-tools): the server `lab` has no tool `nope`"),
        "{found:#?}"
    );
    assert!(
        found[1].starts_with("skills/journal/agents/openai.yaml:6:7 declared-server-unknown `notes` (in agents/openai.yaml): no MCP server `notes` has a tool catalog here"),
        "{found:#?}"
    );
    assert!(
        found[2]
            .starts_with("skills/journal/agents/openai.yaml:9:7 declared-server-unknown `ghost`"),
        "{found:#?}"
    );

    let mut command = skilldex();
    command.current_dir(folder).args(["show", "bench"]);
    let show = bounded(command);
    assert_eq!(show.code, 0, "{show:?}");
    for line in [
        "mcp tool:      lab/echo (from allowed-tools) — in the catalog",
        "mcp tool:      lab/slow_count (from metadata.mcp-tools) — in the catalog",
        "mcp tool:      lab/nope (from metadata.mcp-tools) — `lab` has no such tool",
    ] {
        assert!(show.stdout.contains(line), "{line}\n{}", show.stdout);
    }

    let mut command = skilldex();
    command.current_dir(folder).args(["read", "bench"]);
    let read = bounded(command);
    assert_eq!(read.code, 0, "{read:?}");
    assert!(
        read.stdout.lines().any(|l| l == "mcp tools: lab/echo (in the catalog), lab/slow_count (in the catalog), lab/nope (`lab` has no such tool)"),
        "{}",
        read.stdout
    );
    let mut command = skilldex();
    command
        .current_dir(folder)
        .args(["read", "journal", "--json"]);
    let read = bounded(command).json();
    assert_eq!(
        read["mcp_tools"],
        json!([
            {"id": "notes", "declared_in": "agents/openai.yaml", "status": "no tool catalog of this server"},
            {"id": "ghost", "declared_in": "agents/openai.yaml", "status": "no tool catalog of this server"},
        ])
    );
    // A sub-file's read does not repeat them.
    write(folder, "skills/bench/notes.md", "# Notes\n");
    let mut command = skilldex();
    command
        .current_dir(folder)
        .args(["read", "bench/notes.md", "--json"]);
    assert_eq!(bounded(command).json()["mcp_tools"], json!([]));
}

#[test]
fn reading_a_skill_appends_exactly_its_declared_tools_and_they_are_proxied() {
    let temp = project();
    let folder = temp.path();
    let mut raw = serve(folder);
    let before = names(&raw.request("tools/list", json!({})));
    assert!(!before.iter().any(|n| n.starts_with("lab__")), "{before:?}");

    // A skill without declarations changes nothing.
    let (is_error, text) = raw.call("read_skill", json!({"name": "plain"}));
    assert!(!is_error && !text.contains("MCP tools"), "{text}");

    let answer = raw.request(
        "tools/call",
        json!({"name": "read_skill", "arguments": {"name": "bench"}}),
    );
    let content = answer["result"]["content"].as_array().unwrap();
    assert!(
        content[0]["text"]
            .as_str()
            .unwrap()
            .contains("Measure the sample."),
        "{answer}"
    );
    let note = content.last().unwrap()["text"].as_str().unwrap();
    assert!(
        note.contains("Added to the end of your tool list: `lab__echo` (lab/echo), `lab__slow_count` (lab/slow_count)."),
        "{note}"
    );
    assert!(note.contains("`lab/nope` is not a tool of `lab`"), "{note}");
    raw.wait_for("tools/list_changed", |m| {
        m["method"] == "notifications/tools/list_changed"
    });
    let after = names(&raw.request("tools/list", json!({})));
    assert_eq!(after[..before.len()], before[..], "nothing listed moves");
    assert_eq!(
        after[before.len()..],
        ["lab__echo", "lab__slow_count"],
        "{after:?}"
    );

    // The appended tool is called by its name, through skilldex.
    let (is_error, text) = raw.call("lab__echo", json!({"text": "from the bench"}));
    assert!(
        !is_error && text.contains("from the bench") && text.contains("lab"),
        "{text}"
    );

    // Read again: nothing more is added.
    let (is_error, text) = raw.call("read_skill", json!({"name": "bench", "section": "bench"}));
    assert!(!is_error, "{text}");
    let note = read_note(&mut raw, "bench");
    assert!(
        note.contains("Already in your tool list: `lab__echo`"),
        "{note}"
    );
    assert_eq!(names(&raw.request("tools/list", json!({}))), after);

    // A declared server that is offered but not installed: the install
    // request that would add it; one that is nowhere: said so.
    let note = read_note(&mut raw, "journal");
    assert!(
        note.contains("it needs the MCP server `notes`, which is offered but not installed: if the task needs it, call `request_install` with type `mcp_server`, action `install`, id `notes`"),
        "{note}"
    );
    assert!(
        note.contains("`ghost`, which skilldex does not serve here"),
        "{note}"
    );
    assert_eq!(names(&raw.request("tools/list", json!({}))), after);
    let (status, _, _) = raw.close();
    assert!(status.success(), "{status:?}");
}

/// The same through the official MCP Python SDK (tests/mcp/gateway.py,
/// scenario `declared`), on both lifecycles: the declared tools appended
/// and called, and the offered server a skill needs installed on request
/// with its tools appended.
#[test]
fn an_independent_client_sees_declared_tools_appended_and_an_install_add_them() {
    for mode in ["legacy", "auto"] {
        let temp = project();
        super::mcp::run_script(
            "gateway.py",
            &[
                "--scenario",
                "declared",
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
