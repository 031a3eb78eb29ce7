//! Tools end to end: our own MCP servers (tests/fixtures/mcp-servers/
//! catalog_mcp_server.py, fourteen servers with schemas in the styles
//! real SDKs write, some deliberately broken; and fake_mcp_server.py's
//! generated `big` server) are synced into a catalog of a few hundred
//! tools, which then lints, renders, searches and prints specs — every
//! emitted schema inside the subset models accept.

use super::{bounded, fixture, run_in, skill_md, skilldex, write, Run};
use serde_json::Value;

const SERVERS: &[&str] = &[
    "files", "forge", "browser", "sql", "chat", "calendar", "cloud", "payments", "tracker",
    "memory", "mail", "places", "clock", "pages",
];

/// A project with one skill and every test server configured; synced.
fn synced_project() -> (tempfile::TempDir, Run) {
    let folder = tempfile::tempdir().unwrap();
    let root = folder.path();
    let catalog = fixture("mcp-servers").join("catalog_mcp_server.py");
    let big = fixture("mcp-servers").join("fake_mcp_server.py");
    let mut config = String::from("roots: [skills]\nmcp_servers:\n");
    for server in SERVERS {
        config.push_str(&format!(
            "  {server}:\n    command: python3\n    args: [{:?}, {server:?}]\n",
            catalog.display().to_string()
        ));
    }
    config.push_str(&format!(
        "  generated:\n    command: python3\n    args: [{:?}, \"big\", \"160\"]\n",
        big.display().to_string()
    ));
    write(root, "skilldex.yaml", config);
    write(
        root,
        "skills/pdf-forms/SKILL.md",
        skill_md(
            "pdf-forms",
            "Fill PDF forms. Use when a task involves PDF forms.",
        ),
    );
    let mut command = skilldex();
    command
        .current_dir(root)
        .args(["tools", "sync", "--json", "--timeout", "25"]);
    let run = bounded(command);
    (folder, run)
}

/// Every schema in a `search --format tool-spec` answer or a spec.
fn schemas(value: &Value, out: &mut Vec<Value>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                if key == "parameters" || key == "inputSchema" {
                    out.push(child.clone());
                } else {
                    schemas(child, out);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|i| schemas(i, out)),
        _ => {}
    }
}

fn assert_subset(value: &Value) -> usize {
    let mut found = Vec::new();
    schemas(value, &mut found);
    for schema in &found {
        let issues = skilldex::schema::validate_subset(schema);
        assert!(issues.is_empty(), "{issues:?}\n{schema:#}");
    }
    found.len()
}

#[test]
fn a_few_hundred_tools_sync_lint_render_search_and_print_specs() {
    let (folder, sync) = synced_project();
    let root = folder.path();
    assert_eq!(sync.code, 0, "{sync:?}");
    let report: Value = serde_json::from_str(&sync.stdout).unwrap();
    let created = report["servers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["status"] == "created")
        .count();
    assert_eq!(created, SERVERS.len() + 1, "{report:#}");

    // The catalog: 137 tools of our servers and 160 generated ones.
    let list = run_in(root, &["list", "--json"]).json();
    let tools = list["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 137 + 160, "{}", tools.len());
    assert_eq!(list["servers"].as_array().unwrap().len(), 15);

    // Lint: the broken shapes are warnings at their place, nothing fails.
    let lint = run_in(root, &["lint"]);
    assert_eq!(lint.code, 0, "{lint:?}");
    for expected in [
        "skills/tracker/mcp-tools.json:",
        "warning[ref-unresolved]: link_tickets: /properties/kind",
        "warning[boolean-schema]: set_status: /properties/emoji",
        "warning[items-tuple]: set_status: /properties/expires",
        "info[const-to-enum]: set_status: /properties/mode",
        "info[type-renamed]",
    ] {
        assert!(
            lint.stdout.contains(expected),
            "{expected}\n{}",
            lint.stdout
        );
    }
    assert!(
        lint.stderr
            .contains("1 skill loaded, 15 tool catalogs (297 tools), 0 errors"),
        "{lint:?}"
    );

    // The directory: one line per server, no tool lines without a budget;
    // the same bytes twice.
    let render = run_in(root, &["render"]);
    assert_eq!(render.code, 0, "{render:?}");
    assert!(render.stdout.contains("## MCP tool servers"), "{render:?}");
    assert!(
        render.stdout.contains(
            "- forge (20 tools): Code hosting: repositories, issues, pull requests, branches, workflows and releases.\n"
        ),
        "{}",
        render.stdout
    );
    assert!(render
        .stdout
        .contains("- clock (2 tools): Tools of the Clock MCP server.\n"));
    assert!(
        !render.stdout.contains("forge/create_issue"),
        "{}",
        render.stdout
    );
    assert_eq!(render.stdout, run_in(root, &["render"]).stdout);
    // A budget with room gives the tools lines, within the budget.
    let roomy = run_in(
        root,
        &["render", "--budget-tokens", "12000", "--format", "json"],
    )
    .json();
    assert_eq!(roomy["fits"], true, "{roomy:#}");
    assert_eq!(
        roomy["tool_servers"][0]["listed"],
        roomy["tool_servers"][0]["tools"]
    );
    let tight = run_in(
        root,
        &["render", "--budget-tokens", "900", "--format", "json"],
    )
    .json();
    assert!(tight["tokens"].as_u64().unwrap() <= 900, "{tight:#}");
    assert_eq!(tight["tool_servers"][0]["listed"], 0, "{tight:#}");

    // Search: hierarchical, over skills and tools, kinds and ids on hits.
    let found = run_in(
        root,
        &["search", "--json", "squash and merge a pull request"],
    )
    .json();
    assert_eq!(
        found["results"][0]["id"], "forge/merge_pull_request",
        "{found:#}"
    );
    assert_eq!(found["results"][0]["kind"], "tool");
    let skills_only = run_in(
        root,
        &["search", "--json", "--kind", "skill", "fill a pdf form"],
    )
    .json();
    assert!(skills_only["results"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["kind"] == "skill"));
    assert_eq!(skills_only["results"][0]["id"], "pdf-forms");
    let tools_only = run_in(
        root,
        &["search", "--json", "--kind", "tool", "fill a pdf form"],
    )
    .json();
    assert!(tools_only["results"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["kind"] == "tool"));
    // An exact name ranks first, whatever else matches better.
    let named = run_in(root, &["search", "--json", "browser_snapshot"]).json();
    assert_eq!(named["results"][0]["id"], "browser/browser_snapshot");
    assert_eq!(named["results"][0]["score"], 1.0);
    // Nothing to match is still no match (exit 1).
    let none = run_in(root, &["search", "--kind", "tool", "knit a sweater"]);
    assert_eq!(none.code, 1, "{none:?}");

    // Specs: deferred namespaces of functions, and one tool's full spec.
    let spec = run_in(
        root,
        &[
            "search",
            "--format",
            "tool-spec",
            "--kind",
            "tool",
            "-n",
            "20",
            "create an issue or a ticket",
        ],
    )
    .json();
    let namespaces = spec.as_array().unwrap();
    assert!(
        namespaces.iter().all(|n| n["type"] == "namespace"),
        "{spec:#}"
    );
    let functions: Vec<&Value> = namespaces
        .iter()
        .flat_map(|n| n["tools"].as_array().unwrap())
        .collect();
    assert!(functions.len() >= 2, "{spec:#}");
    assert!(functions
        .iter()
        .all(|f| f["type"] == "function" && f["defer_loading"] == true));
    assert_eq!(assert_subset(&spec), functions.len());
    let openai = run_in(root, &["tools", "spec", "forge/create_issue"]).json();
    assert_eq!(openai[0]["type"], "namespace");
    assert_eq!(openai[0]["name"], "forge");
    assert_eq!(openai[0]["tools"][0]["name"], "create_issue");
    assert!(openai[0]["tools"][0].get("defer_loading").is_none());
    let mcp = run_in(
        root,
        &["tools", "spec", "tracker/link_tickets", "--format", "mcp"],
    )
    .json();
    assert_eq!(mcp["name"], "link_tickets");
    assert_eq!(assert_subset(&openai) + assert_subset(&mcp), 2);
    let unknown = run_in(root, &["tools", "spec", "forge/create_isue"]);
    assert_eq!(unknown.code, 1, "{unknown:?}");
    assert!(unknown.stderr.contains("forge/create_issue"), "{unknown:?}");
    // Every tool's spec fits the subset (all 297, both shapes).
    let ids: Vec<&str> = tools.iter().map(|t| t["id"].as_str().unwrap()).collect();
    let mut args = vec!["tools", "spec", "--format", "mcp"];
    args.extend(&ids);
    let all = run_in(root, &args).json();
    assert_eq!(assert_subset(&all), ids.len());
    let mut args = vec!["tools", "spec"];
    args.extend(&ids);
    assert_eq!(assert_subset(&run_in(root, &args).json()), ids.len());

    // Synced again, nothing changes: the files are byte-stable.
    let check = bounded({
        let mut command = skilldex();
        command.current_dir(root).args(["tools", "sync", "--check"]);
        command
    });
    assert_eq!(check.code, 0, "{check:?}");
}
