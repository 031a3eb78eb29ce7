//! Tool catalogs (`mcp-tools.json`) in a live catalog: bad input loses
//! nothing. A snapshot that breaks while watched (invalid JSON, a pipe
//! swapped in) keeps its last good server, as a broken `SKILL.md` keeps
//! its last good skill, beside a diagnostic naming the file, line and
//! column; the next good version replaces it and deleting the file
//! removes the server. Each step waits (polling, with a deadline) for the
//! snapshot it expects.

use super::live::{put, Session};
use super::*;
use skilldex::{Catalog, Severity};

fn snapshot(names: &[&str]) -> String {
    let tools: Vec<serde_json::Value> = names
        .iter()
        .map(|name| {
            serde_json::json!({
                "name": name,
                "description": format!("Do {name} on a file."),
                "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}
            })
        })
        .collect();
    serde_json::to_string_pretty(&serde_json::json!({ "tools": tools })).unwrap() + "\n"
}

fn tools_of(catalog: &Catalog, server: &str) -> Option<Vec<String>> {
    catalog
        .tool_server(server)
        .map(|s| s.tools.iter().map(|t| t.name.clone()).collect())
}

/// The live snapshot serves `files` with `tools`, marked stale, and
/// reports the file's error at `line` (any line when `None`).
fn kept(catalog: &Catalog, tools: &[&str], line: Option<u32>) -> Result<(), String> {
    let diagnostics = catalog.diagnostics();
    let about = |d: &&skilldex::Diagnostic| d.path.ends_with("files/mcp-tools.json");
    let error = diagnostics
        .iter()
        .filter(about)
        .any(|d| d.severity == Severity::Error && line.is_none_or(|l| d.line == l));
    let stale = diagnostics
        .iter()
        .filter(about)
        .any(|d| d.code.as_str() == "snapshot-stale" && d.message.contains("`files`"));
    let served = tools_of(catalog, "files");
    if error
        && stale
        && served.as_deref() == Some(&tools.iter().map(|t| t.to_string()).collect::<Vec<_>>())
    {
        Ok(())
    } else {
        Err(format!(
            "served {served:?}, error {error}, stale {stale}: {diagnostics:?}"
        ))
    }
}

#[test]
fn a_broken_tool_snapshot_keeps_its_last_good_server() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("skills");
    put(
        &root,
        "pdf/SKILL.md",
        skill_md("pdf", "Pdf. Use when testing."),
    );
    put(
        &root,
        "files/mcp-tools.json",
        snapshot(&["read_file", "write_file"]),
    );
    let mut session = Session::start(&[&root]);
    session.wait_until("the first server", |c| match tools_of(c, "files") {
        Some(tools) if tools.len() == 2 => Ok(()),
        other => Err(format!("{other:?}")),
    });

    // Invalid JSON on line 3: the server stays, the error names line 3.
    put(
        &root,
        "files/mcp-tools.json",
        "{\n  \"tools\": [\n    {\"name\": }\n",
    );
    let catalog = session.wait_until("the last good server, marked", |c| {
        kept(c, &["read_file", "write_file"], Some(3))
    });
    let error = catalog
        .diagnostics()
        .iter()
        .find(|d| d.path.ends_with("files/mcp-tools.json") && d.severity == Severity::Error)
        .unwrap();
    assert!(error.column > 0, "{error:?}");
    // A fresh scan of the same disk has no such server: only the live
    // catalog knows its last good version.
    let fresh = session.builder.build().unwrap();
    assert!(fresh.tool_server("files").is_none());
    assert_eq!(catalog.get("pdf"), fresh.get("pdf"));

    // A good version replaces it, with no stale mark left.
    put(&root, "files/mcp-tools.json", snapshot(&["read_file"]));
    session.wait_until("the new version", |c| {
        let stale = c
            .diagnostics()
            .iter()
            .any(|d| d.code.as_str() == "snapshot-stale");
        match tools_of(c, "files") {
            Some(tools) if tools == ["read_file"] && !stale => Ok(()),
            other => Err(format!("{other:?}, stale {stale}")),
        }
    });

    // A pipe swapped in: refused without waiting, the server stays.
    std::fs::remove_file(root.join("files/mcp-tools.json")).unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(root.join("files/mcp-tools.json"))
        .status()
        .unwrap();
    assert!(status.success());
    session.wait_until("the server kept over a pipe", |c| {
        kept(c, &["read_file"], None)
    });
    // A fresh scan names the pipe too (it is never opened).
    let fresh = session.builder.build().unwrap();
    assert!(
        fresh
            .diagnostics()
            .iter()
            .any(|d| d.path.ends_with("files/mcp-tools.json")
                && d.message.contains("not a regular file")),
        "{:?}",
        fresh.diagnostics()
    );

    // Deleted: the server goes, and the live catalog is the disk's.
    std::fs::remove_file(root.join("files/mcp-tools.json")).unwrap();
    session.wait_until("the server gone", |c| match tools_of(c, "files") {
        None => Ok(()),
        Some(tools) => Err(format!("still served: {tools:?}")),
    });
    let live = session.settle("the disk's catalog");
    assert!(!live
        .diagnostics()
        .iter()
        .any(|d| d.path.ends_with("files/mcp-tools.json")));
}
