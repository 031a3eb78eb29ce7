//! Tools as catalog entries: every `mcp-tools.json` under the roots is an
//! MCP server namespace whose tools are entries of kind `tool`, id
//! `server/tool`, with the skills' precedence, diagnostics, hot reload and
//! JSON (`list --json`, `show server/tool`, `show server`).

use super::live::Session;
use super::{run_in, skill_md, write};
use skilldex::CatalogBuilder;

/// A small snapshot of a server with the tools `names` (each takes a
/// `path` string).
fn snapshot(description: Option<&str>, names: &[&str]) -> String {
    let tools: Vec<serde_json::Value> = names
        .iter()
        .map(|name| {
            serde_json::json!({
                "name": name,
                "description": format!("Do {name} on a file."),
                "inputSchema": {
                    "type": "object",
                    "properties": {"path": {"type": "string", "description": "The file."}},
                    "required": ["path"]
                }
            })
        })
        .collect();
    let mut value = serde_json::json!({ "tools": tools });
    if let Some(description) = description {
        value["server"] = serde_json::json!({ "name": "files-server", "description": description });
    }
    serde_json::to_string_pretty(&value).unwrap() + "\n"
}

#[test]
fn tools_are_entries_beside_skills_in_list_and_show() {
    let folder = tempfile::tempdir().unwrap();
    let root = folder.path();
    write(
        root,
        "pdf/SKILL.md",
        skill_md("pdf", "Fill PDF forms. Use when a task involves PDF forms."),
    );
    write(
        root,
        "servers/files/mcp-tools.json",
        snapshot(Some("Read and write files."), &["read_file", "write_file"]),
    );
    let list = run_in(root, &["list", "--root", ".", "--json"]);
    assert_eq!(list.code, 0, "{list:?}");
    let json = list.json();
    assert_eq!(json["skills"][0]["kind"], "skill");
    let tools = json["tools"].as_array().unwrap();
    let ids: Vec<&str> = tools.iter().map(|t| t["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["files/read_file", "files/write_file"]);
    assert_eq!(tools[0]["kind"], "tool");
    assert_eq!(tools[0]["server"], "files");
    assert_eq!(json["servers"][0]["name"], "files");
    assert_eq!(json["servers"][0]["tool_count"], 2);
    assert_eq!(json["servers"][0]["description"], "Read and write files.");

    let tool = run_in(root, &["show", "files/write_file", "--root", ".", "--json"]).json();
    assert_eq!(tool["kind"], "tool");
    assert_eq!(tool["input_schema"]["required"][0], "path");
    assert!(skilldex::schema::validate_subset(&tool["input_schema"]).is_empty());
    // A tool name only one server has names the tool too.
    let bare = run_in(root, &["show", "read_file", "--root", "."]);
    assert_eq!(bare.code, 0, "{bare:?}");
    assert!(bare.stdout.starts_with("files/read_file\n"), "{bare:?}");
    let server = run_in(root, &["show", "files", "--root", ".", "--json"]).json();
    assert_eq!(server["kind"], "server");
    assert_eq!(server["tools"].as_array().unwrap().len(), 2);
    let missing = run_in(root, &["show", "files/writ_file", "--root", "."]);
    assert_eq!(missing.code, 1, "{missing:?}");
    assert!(missing.stderr.contains("files/write_file"), "{missing:?}");
    // Same files, same bytes.
    assert_eq!(
        list.stdout,
        run_in(root, &["list", "--root", ".", "--json"]).stdout
    );
}

#[test]
fn a_readme_describes_the_server_over_the_snapshot() {
    let folder = tempfile::tempdir().unwrap();
    let root = folder.path();
    write(
        root,
        "files/mcp-tools.json",
        snapshot(Some("What the server says."), &["read_file"]),
    );
    write(root, "plain/mcp-tools.json", snapshot(None, &["list_rows"]));
    write(
        root,
        "files/README.md",
        "---\nname: Team files\ndescription: Our shared drive, read and written by the team's agents.\n---\n\n# Files\n",
    );
    let catalog = CatalogBuilder::new([root]).build().unwrap();
    let files = catalog.tool_server("files").unwrap();
    assert_eq!(
        files.description,
        "Our shared drive, read and written by the team's agents."
    );
    assert_eq!(files.title.as_deref(), Some("Team files"));
    let plain = catalog.tool_server("plain").unwrap();
    assert_eq!(plain.description, "Tools of the plain MCP server.");
    assert!(catalog
        .diagnostics()
        .iter()
        .any(|d| d.code.as_str() == "server-description-default"
            && d.path.ends_with("plain/mcp-tools.json")));
    assert_eq!(
        catalog.tool("plain/list_rows").map(|t| t.id.as_str()),
        Some("plain/list_rows")
    );
}

#[test]
fn an_earlier_root_shadows_a_server_of_the_same_name() {
    let first = tempfile::tempdir().unwrap();
    let second = tempfile::tempdir().unwrap();
    write(
        first.path(),
        "files/mcp-tools.json",
        snapshot(Some("First."), &["a"]),
    );
    write(
        second.path(),
        "files/mcp-tools.json",
        snapshot(Some("Second."), &["b", "c"]),
    );
    let catalog = CatalogBuilder::new([first.path(), second.path()])
        .build()
        .unwrap();
    assert_eq!(catalog.tool_servers().len(), 1);
    assert_eq!(catalog.tool_server("files").unwrap().description, "First.");
    let shadowed: Vec<_> = catalog
        .diagnostics()
        .iter()
        .filter(|d| d.code.as_str() == "name-shadowed")
        .collect();
    assert_eq!(shadowed.len(), 1, "{:?}", catalog.diagnostics());
    assert!(shadowed[0].path.starts_with(second.path()));
    assert!(
        shadowed[0].message.contains("2 tools are left out"),
        "{shadowed:?}"
    );
    assert_eq!(catalog.tool_catalog_files().len(), 2);
}

#[test]
fn a_broken_snapshot_is_a_diagnostic_and_the_rest_loads() {
    let folder = tempfile::tempdir().unwrap();
    let root = folder.path();
    write(
        root,
        "pdf/SKILL.md",
        skill_md("pdf", "Fill PDF forms. Use when a task involves PDF forms."),
    );
    write(root, "good/mcp-tools.json", snapshot(Some("Good."), &["a"]));
    write(
        root,
        "bad/mcp-tools.json",
        "{\"tools\": [\n  {\"name\": 3\n",
    );
    write(root, "binary/mcp-tools.json", b"\xff\xfe{}".as_slice());
    let catalog = CatalogBuilder::new([root]).build().unwrap();
    assert_eq!(catalog.skills().len(), 1);
    assert_eq!(catalog.tool_servers().len(), 1);
    let errors: Vec<String> = catalog
        .diagnostics()
        .iter()
        .filter(|d| d.severity == skilldex::entry::Severity::Error)
        .map(|d| format!("{}:{}:{} {}", d.path.display(), d.line, d.column, d.code))
        .collect();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(
        errors[0].contains("bad/mcp-tools.json:3:1 snapshot-invalid"),
        "{errors:?}"
    );
    assert!(
        errors[1].contains("binary/mcp-tools.json:1:1 snapshot-unreadable"),
        "{errors:?}"
    );
}

/// Snapshots built to hurt: 100 MB, nested 100,000 deep, not UTF-8, a key
/// given twice, a symlink out of the root. Each is one error at its
/// line:column, none loads a server, and the rest of the catalog loads —
/// a snapshot linked from elsewhere in the root among it.
#[cfg(unix)]
#[test]
fn hostile_snapshots_are_one_error_each_at_their_place() {
    let folder = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let root = folder.path();
    write(root, "good/mcp-tools.json", snapshot(Some("Good."), &["a"]));
    write(root, "shared/files.json", snapshot(Some("Linked."), &["b"]));
    std::fs::create_dir_all(root.join("linked")).unwrap();
    std::os::unix::fs::symlink("../shared/files.json", root.join("linked/mcp-tools.json")).unwrap();
    // 100 MB, sparse: refused by its size, before reading.
    std::fs::create_dir_all(root.join("huge")).unwrap();
    std::fs::File::create(root.join("huge/mcp-tools.json"))
        .unwrap()
        .set_len(100 * 1024 * 1024)
        .unwrap();
    let deep = format!(
        "{{\"tools\": [{{\"name\": \"a\", \"inputSchema\": {}1{}}}]}}",
        "{\"a\": ".repeat(100_000),
        "}".repeat(100_000)
    );
    write(root, "deep/mcp-tools.json", deep);
    write(
        root,
        "binary/mcp-tools.json",
        b"{\"tools\": [\n  {\"name\": \"caf\xc3\xa9 \xff\"}]}".as_slice(),
    );
    write(
        root,
        "twice/mcp-tools.json",
        "{\"tools\": [{\"name\": \"a\"}],\n \"tools\": []}\n",
    );
    let secret = write(
        outside.path(),
        "mcp-tools.json",
        snapshot(None, &["secret"]),
    );
    std::fs::create_dir_all(root.join("out")).unwrap();
    std::os::unix::fs::symlink(&secret, root.join("out/mcp-tools.json")).unwrap();

    let catalog = CatalogBuilder::new([root]).build().unwrap();
    let servers: Vec<&str> = catalog
        .tool_servers()
        .iter()
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(servers, ["good", "linked"], "{servers:?}");
    let errors: Vec<String> = catalog
        .diagnostics()
        .iter()
        .filter(|d| d.severity == skilldex::entry::Severity::Error)
        .map(|d| {
            let path = d.path.strip_prefix(root).unwrap_or(&d.path);
            format!(
                "{}:{}:{} {}: {}",
                path.display(),
                d.line,
                d.column,
                d.code,
                d.message
            )
        })
        .collect();
    let expected = [
        "binary/mcp-tools.json:2:18 snapshot-unreadable: the file is not UTF-8 (byte 0xFF here)",
        "deep/mcp-tools.json:1:",
        "huge/mcp-tools.json:1:1 snapshot-unreadable: the snapshot is 104,857,600 bytes; the limit is 67,108,864",
        "out/mcp-tools.json:1:1 snapshot-outside: this mcp-tools.json is a symlink to ",
        "twice/mcp-tools.json:2:8 snapshot-invalid: the key `tools` is given twice in one object",
    ];
    assert_eq!(errors.len(), expected.len(), "{errors:#?}");
    for (error, expected) in errors.iter().zip(expected) {
        assert!(
            error.starts_with(expected),
            "{error}\nshould start with {expected}"
        );
    }
    assert!(
        errors[1].contains("snapshot-invalid: not valid JSON: recursion limit exceeded"),
        "{errors:#?}"
    );
    let listed = run_in(root, &["--root", ".", "list", "--json"]);
    assert!(!listed.stdout.contains("secret"), "{}", listed.stdout);
}

#[test]
fn the_live_catalog_follows_snapshot_and_readme_edits() {
    let folder = tempfile::tempdir().unwrap();
    let root = folder.path();
    write(
        root,
        "pdf/SKILL.md",
        skill_md("pdf", "Fill PDF forms. Use when a task involves PDF forms."),
    );
    write(
        root,
        "files/mcp-tools.json",
        snapshot(Some("Files."), &["read_file"]),
    );
    let mut session = Session::start(&[root]);
    session.wait_until("the first snapshot's server", |c| {
        match c.tool_server("files").map(|s| s.tools.len()) {
            Some(1) => Ok(()),
            other => Err(format!("files server tools: {other:?}")),
        }
    });
    write(
        root,
        "files/mcp-tools.json",
        snapshot(Some("Files."), &["read_file", "write_file"]),
    );
    session.wait_until("the new tool", |c| match c.tool("files/write_file") {
        Some(_) => Ok(()),
        None => Err(format!(
            "tools: {:?}",
            c.tools().map(|(_, t)| &t.id).collect::<Vec<_>>()
        )),
    });
    write(
        root,
        "files/README.md",
        "---\ndescription: The team's shared files.\n---\n",
    );
    session.wait_until("the README's description", |c| {
        match c.tool_server("files").map(|s| s.description.as_str()) {
            Some("The team's shared files.") => Ok(()),
            other => Err(format!("description: {other:?}")),
        }
    });
    write(root, "other/mcp-tools.json", snapshot(None, &["ping"]));
    session.wait_until("a new server", |c| match c.tool("other/ping") {
        Some(_) => Ok(()),
        None => Err("no other/ping".into()),
    });
    std::fs::remove_file(root.join("other/mcp-tools.json")).unwrap();
    session.wait_until("the server gone", |c| match c.tool_server("other") {
        None => Ok(()),
        Some(_) => Err("other is still there".into()),
    });
    let live = session.settle("the disk's catalog");
    let fresh = CatalogBuilder::new([root]).build().unwrap();
    assert_eq!(live.revision(), fresh.revision());
    assert_eq!(live.skills().len(), 1);
}
