//! `skilldex tools sync` against test MCP servers the tests start: a
//! Python script speaking newline-delimited JSON-RPC on stdio
//! (tests/fixtures/mcp-servers/fake_mcp_server.py) with messy schemas,
//! paging, a crash, a hang and nonsense answers.

use super::{bounded, fixture, skilldex, write, Run};
use std::path::{Path, PathBuf};

fn server_script() -> PathBuf {
    fixture("mcp-servers").join("fake_mcp_server.py")
}

fn require_python() {
    let found = std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        found,
        "these tests start a Python MCP server: install python3"
    );
}

/// A skilldex.yaml with one stdio server per `(name, mode args, extra)`.
fn config(folder: &Path, servers: &[(&str, &str, &str)]) {
    let script = server_script();
    let mut text = String::from("roots: [skills]\nmcp_servers:\n");
    for (name, mode, extra) in servers {
        let args: Vec<String> = std::iter::once(format!("{:?}", script.display().to_string()))
            .chain(mode.split_whitespace().map(|a| format!("{a:?}")))
            .collect();
        text.push_str(&format!(
            "  {name}:\n    command: python3\n    args: [{}]\n{extra}",
            args.join(", ")
        ));
    }
    write(folder, "skilldex.yaml", text);
    std::fs::create_dir_all(folder.join("skills")).unwrap();
}

fn sync(folder: &Path, args: &[&str]) -> Run {
    let mut command = skilldex();
    command
        .current_dir(folder)
        .args(["tools", "sync"])
        .args(args);
    bounded(command)
}

fn snapshot(folder: &Path, server: &str) -> PathBuf {
    folder.join("skills").join(server).join("mcp-tools.json")
}

#[test]
fn sync_pages_through_tools_and_writes_byte_stable_snapshots() {
    require_python();
    let folder = tempfile::tempdir().unwrap();
    let folder = folder.path();
    config(
        folder,
        &[
            (
                "notes",
                "messy",
                "    env: {FAKE_SERVER_TOKEN: \"sekrit-${NOT_SET_ANYWHERE:-default}\"}\n",
            ),
            ("crm", "big 120", ""),
        ],
    );
    let first = sync(folder, &["--json"]);
    assert_eq!(first.code, 0, "{first:?}");
    let report = first.json();
    let statuses: Vec<(&str, &str, u64, u64)> = report["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["server"].as_str().unwrap(),
                s["status"].as_str().unwrap(),
                s["tools"].as_u64().unwrap(),
                s["pages"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        statuses,
        [("crm", "created", 120, 3), ("notes", "created", 7, 3)]
    );
    let text = std::fs::read_to_string(snapshot(folder, "notes")).unwrap();
    // What the server said, untouched (the boolean schema, the null type),
    // from every page, sorted by name, with what initialize said.
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    let names: Vec<&str> = value["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "list_issues",
            "no_schema",
            "null_input",
            "ping_anything",
            "search_notes",
            "tree_edit",
            "write_note"
        ]
    );
    assert_eq!(value["tools"][3]["inputSchema"], serde_json::json!(true));
    assert_eq!(value["server"]["name"], "fake-messy");
    assert!(value["server"]["instructions"]
        .as_str()
        .unwrap()
        .starts_with("Notebook tools"));
    assert!(text.ends_with("}\n") && text.starts_with("{\n  \"server\""));
    // The env is never written.
    assert!(!text.contains("sekrit") && !text.contains("FAKE_SERVER_TOKEN"));

    // Again: nothing changes, byte for byte; --check agrees.
    let before = std::fs::read(snapshot(folder, "crm")).unwrap();
    let again = sync(folder, &[]);
    assert_eq!(again.code, 0, "{again:?}");
    assert!(
        again
            .stderr
            .contains("crm: unchanged, 120 tools in 3 pages"),
        "{again:?}"
    );
    assert_eq!(std::fs::read(snapshot(folder, "crm")).unwrap(), before);
    let check = sync(folder, &["--check"]);
    assert_eq!(check.code, 0, "{check:?}");

    // An edited snapshot is out of date: --check says so and writes nothing.
    std::fs::write(snapshot(folder, "crm"), "{\"tools\": []}\n").unwrap();
    let check = sync(folder, &["--check", "--server", "crm"]);
    assert_eq!(check.code, 1, "{check:?}");
    assert!(check.stderr.contains("crm: out-of-date"), "{check:?}");
    assert!(!check.stderr.contains("notes:"), "{check:?}");
    assert_eq!(
        std::fs::read_to_string(snapshot(folder, "crm")).unwrap(),
        "{\"tools\": []}\n"
    );
    let fixed = sync(folder, &["--server", "crm"]);
    assert_eq!(fixed.code, 0, "{fixed:?}");
    assert!(fixed.stderr.contains("crm: updated"), "{fixed:?}");
    assert_eq!(std::fs::read(snapshot(folder, "crm")).unwrap(), before);
}

#[test]
fn failing_servers_keep_their_last_snapshot_and_show_their_stderr() {
    require_python();
    let folder = tempfile::tempdir().unwrap();
    let folder = folder.path();
    config(
        folder,
        &[
            (
                "crashy",
                "crash",
                "    env: {FAKE_SERVER_TOKEN: sekrit-value-42}\n",
            ),
            ("stuck", "hang", "    timeout: 4\n"),
            ("odd", "nonsense", ""),
            ("missing", "x", ""),
        ],
    );
    // `missing` starts a program that does not exist.
    let text = std::fs::read_to_string(folder.join("skilldex.yaml")).unwrap();
    let text = text.replacen(
        "  missing:\n    command: python3",
        "  missing:\n    command: ./no-such-server",
        1,
    );
    write(folder, "skilldex.yaml", text);
    for server in ["crashy", "stuck", "odd"] {
        write(
            &folder.join("skills"),
            &format!("{server}/mcp-tools.json"),
            "{\"tools\": []}\n",
        );
    }
    let run = sync(folder, &["--json"]);
    assert_eq!(run.code, 1, "{run:?}");
    for server in ["crashy", "stuck", "odd"] {
        assert_eq!(
            std::fs::read_to_string(snapshot(folder, server)).unwrap(),
            "{\"tools\": []}\n",
            "{server}"
        );
    }
    let report = run.json();
    let outcome = |name: &str| {
        report["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["server"] == name)
            .unwrap()
            .clone()
    };
    for name in ["crashy", "stuck", "odd", "missing"] {
        assert_eq!(outcome(name)["status"], "failed", "{name}: {run:?}");
    }
    assert!(
        outcome("crashy")["message"]
            .as_str()
            .unwrap()
            .contains("exited"),
        "{run:?}"
    );
    let tail = outcome("crashy")["stderr_tail"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        tail.contains("fatal: the notebook database is locked"),
        "{tail}"
    );
    // The secret the server printed is masked.
    assert!(tail.contains("starting with token ***"), "{tail}");
    assert!(!run.stderr.contains("sekrit-value-42") && !run.stdout.contains("sekrit-value-42"));
    assert!(
        outcome("stuck")["message"]
            .as_str()
            .unwrap()
            .contains("within 4.0 s"),
        "{run:?}"
    );
    assert!(outcome("stuck")["stderr_tail"]
        .as_str()
        .unwrap()
        .contains("never comes"));
    assert!(outcome("odd")["message"]
        .as_str()
        .unwrap()
        .contains("without a `tools` list"));
    assert!(outcome("missing")["message"]
        .as_str()
        .unwrap()
        .contains("could not start `./no-such-server`"));
    assert!(run.stderr.contains("stuck: failed"), "{run:?}");
    assert!(
        run.stderr.contains("(its last snapshot is kept)"),
        "{run:?}"
    );
    assert!(
        run.stderr
            .contains("  | fatal: the notebook database is locked"),
        "{run:?}"
    );
}

#[test]
fn servers_are_imported_from_client_configs() {
    require_python();
    let folder = tempfile::tempdir().unwrap();
    let folder = folder.path();
    let script = server_script().display().to_string();
    write(
        folder,
        ".mcp.json",
        serde_json::json!({"mcpServers": {
            "notes": {"command": "python3", "args": [script, "messy"]},
            "web": {"type": "http", "url": "https://example.com/mcp"}
        }})
        .to_string(),
    );
    write(
        folder,
        "codex/config.toml",
        format!("[mcp_servers.crm]\ncommand = \"python3\"\nargs = [{script:?}, \"big\", \"60\"]\nstartup_timeout_sec = 20\n\n[mcp_servers.off]\ncommand = \"x\"\nenabled = false\n"),
    );
    let out = folder.join("catalog");
    let run = sync(
        folder,
        &[
            "--import",
            ".mcp.json",
            "--import",
            "codex/config.toml",
            "--dir",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert!(out.join("notes/mcp-tools.json").is_file(), "{run:?}");
    assert!(out.join("crm/mcp-tools.json").is_file(), "{run:?}");
    assert!(
        run.stderr.contains("web: skipped") && run.stderr.contains("only stdio servers"),
        "{run:?}"
    );
    assert!(run.stderr.contains("off: skipped"), "{run:?}");
    // Nothing configured at all is a usage error that says what to do.
    let empty = tempfile::tempdir().unwrap();
    std::fs::create_dir(empty.path().join("skills")).unwrap();
    let run = sync(empty.path(), &[]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr.contains("add `mcp_servers` to skilldex.yaml"),
        "{run:?}"
    );
    // A broken import names the place.
    write(
        folder,
        "bad.json",
        "{\"mcpServers\": {\"a\": {\"command\": 3}}}",
    );
    let run = sync(folder, &["--import", "bad.json"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr
            .contains("bad.json:1:34: `command` of server `a` must be a string"),
        "{run:?}"
    );
}

#[test]
fn the_tools_command_still_prints_our_definitions() {
    let mut command = skilldex();
    command.args(["agent-tools", "--format", "openai"]);
    let run = bounded(command);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("\"search_skills\""), "{run:?}");
}

/// A `timeout` no `Duration` holds (`.inf`, `1e300`) is the default, not a
/// panic that leaves the server "stopped unexpectedly".
#[test]
fn a_timeout_past_what_a_duration_holds_is_the_default() {
    require_python();
    let folder = tempfile::tempdir().unwrap();
    let folder = folder.path();
    config(
        folder,
        &[
            ("endless", "", "    timeout: .inf\n"),
            ("huge", "", "    timeout: 1e300\n"),
        ],
    );
    let run = sync(folder, &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    for server in ["endless", "huge"] {
        assert!(
            snapshot(folder, server).is_file(),
            "{server}: {}",
            run.stderr
        );
    }
}
