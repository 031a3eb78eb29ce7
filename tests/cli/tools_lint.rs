//! `skilldex lint` over tool catalogs: every `mcp-tools.json` under the
//! roots, with the sanitiser's findings (file, line, column, tool, JSON
//! Pointer); skills are linted as before.

use super::{copy_fixture, run_in, write};

#[test]
fn lint_reports_every_repair_with_file_tool_and_pointer() {
    let (_keep, root) = copy_fixture("tool-catalogs");
    let run = run_in(&root, &["lint", "--root", "."]);
    // A tool whose input schema is a `null` type is an error.
    assert_eq!(run.code, 1, "{run:?}");
    let lines: Vec<&str> = run.stdout.lines().collect();
    for expected in [
        "./notebook/mcp-tools.json:62:22: error[input-schema-refused]: null_input: /: a tool's input schema must describe an object of arguments, not the `null` type",
        "./notebook/mcp-tools.json:164:18: info[type-renamed]: write_note: /properties/due: type `date` is a string format; written `string`",
        "./notebook/mcp-tools.json:150:21: warning[ref-unresolved]: tree_edit: /properties/remote: `$ref` \"https://example.com/schemas/thing.json\" is not local",
        "./notebook/mcp-tools.json:92:21: info[definition-pruned]: search_notes: /$defs/Unused: no `$ref` reaches this definition; removed",
        "./notebook/mcp-tools.json:9:22: warning[description-cut]: list_issues: description is 1,839 bytes; cut to 1,000 at a character boundary",
        "./notebook/mcp-tools.json:2:13: info[server-description-default]: the server has no description; the catalog uses the first line of its instructions",
    ] {
        assert!(lines.iter().any(|l| l.starts_with(expected)), "{expected}\n{}", run.stdout);
    }
    assert!(
        run.stderr
            .contains("1 skill loaded, 1 tool catalog (6 tools), 1 error,"),
        "{run:?}"
    );
    let json = run_in(&root, &["lint", "--root", ".", "--json"]).json();
    assert_eq!(json["summary"]["skills"], 1);
    assert_eq!(
        json["summary"]["errors"], 1,
        "tool findings are counted with the skills'"
    );
    let tools = &json["tool_catalogs"];
    assert_eq!(tools["summary"]["tools"], 6);
    let refused = tools["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "input-schema-refused")
        .unwrap();
    assert_eq!(refused["tool"], "null_input");
    assert_eq!(refused["pointer"], "/tools/2/inputSchema");
    assert_eq!(refused["severity"], "error");
    assert_eq!(
        (refused["line"].as_u64(), refused["column"].as_u64()),
        (Some(62), Some(22))
    );
}

#[test]
fn a_broken_snapshot_is_one_error_at_its_place_and_skills_lint_as_before() {
    let folder = tempfile::tempdir().unwrap();
    let root = folder.path();
    write(
        root,
        "pdf-tools/SKILL.md",
        "---\nname: pdf-tools\ndescription: Fill PDF forms. Use when a task involves PDF forms.\n---\n\n# PDF\n",
    );
    let before = run_in(root, &["lint", "--root", "."]);
    assert_eq!(before.code, 0, "{before:?}");
    assert!(!before.stderr.contains("tool catalog"), "{before:?}");
    write(
        root,
        "broken/mcp-tools.json",
        "{\n  \"tools\": [\n    {\"name\": \"a\"\n  ]\n}\n",
    );
    write(
        root,
        "dupes/mcp-tools.json",
        "{\"server\": {\"description\": \"Two of one.\"}, \"tools\": [\n  {\"name\": \"x\", \"description\": \"X.\", \"inputSchema\": {\"type\": \"object\", \"properties\": {}}},\n  {\"name\": \"x\", \"description\": \"X again.\", \"inputSchema\": {\"type\": \"object\", \"properties\": {}}}\n]}\n",
    );
    let run = run_in(root, &["lint", "--root", "."]);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(
        run.stdout.contains("./broken/mcp-tools.json:4:3: error[snapshot-invalid]: not valid JSON: expected `,` or `}`"),
        "{run:?}"
    );
    assert!(
        run.stdout.contains("./dupes/mcp-tools.json:3:12: error[tool-name-duplicate]: x: a second tool named `x` (the first is on line 2)"),
        "{run:?}"
    );
    // The skill's own lint is what it was.
    assert_eq!(
        run.stdout
            .lines()
            .filter(|l| l.contains("SKILL.md"))
            .count(),
        before
            .stdout
            .lines()
            .filter(|l| l.contains("SKILL.md"))
            .count()
    );
    assert!(
        run.stderr.contains("2 tool catalogs (1 tool), 2 errors"),
        "{run:?}"
    );
}

#[test]
fn lint_filters_apply_to_tool_findings() {
    let (_keep, root) = copy_fixture("tool-catalogs");
    // Leaving the refused schema's code out leaves no error.
    let allowed = run_in(
        &root,
        &["lint", "--root", ".", "--allow", "input-schema-refused"],
    );
    assert_eq!(allowed.code, 0, "{allowed:?}");
    assert!(
        !allowed.stdout.contains("input-schema-refused"),
        "{allowed:?}"
    );
    // `--code` keeps only the named codes, families included.
    let only = run_in(&root, &["lint", "--root", ".", "--code", "type-*"]);
    assert!(!only.stdout.is_empty(), "{only:?}");
    assert!(
        only.stdout
            .lines()
            .all(|l| l.contains("info[type-") || l.contains("warning[type-")),
        "{only:?}"
    );
    // `--severity error` keeps the refused schema only.
    let errors = run_in(
        &root,
        &["lint", "--root", ".", "--severity", "error", "--json"],
    )
    .json();
    let found = errors["tool_catalogs"]["diagnostics"].as_array().unwrap();
    assert_eq!(found.len(), 1, "{errors:#}");
    assert_eq!(found[0]["code"], "input-schema-refused");
    assert_eq!(found[0]["pointer"], "/tools/2/inputSchema");
    // An unknown code is a usage error that lists the tool codes too.
    let unknown = run_in(&root, &["lint", "--root", ".", "--code", "no-such-code"]);
    assert_eq!(unknown.code, 2, "{unknown:?}");
    assert!(unknown.stderr.contains("type-renamed"), "{unknown:?}");
}
