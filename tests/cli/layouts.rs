//! Layouts and conventions of real skill repositories: Claude Code plugins
//! and marketplaces as namespaces, `plugin:skill` names, tool-specific
//! copies that must not take a name, and path placeholders in links.

use super::{copy_fixture, fixture, lint_json, run, write};

fn marketplace() -> String {
    fixture("layouts/marketplace").to_str().unwrap().to_string()
}

#[test]
fn a_plugin_is_its_namespace_described_by_its_manifest() {
    let root = marketplace();
    let out = run(&["render", "--root", &root, "--paths", "none"]);
    assert_eq!(out.code, 0, "{out:?}");
    // The manifest's description wins over the marketplace's copy of it.
    assert!(
        out.stdout
            .contains("### git-tools: Git helpers for everyday branching and history digging\n"),
        "{out:?}"
    );
    // A plugin known by its shape only, and one the marketplace lists by skill.
    assert!(
        out.stdout
            .contains("### lint-kit: Skills of the lint-kit plugin.\n"),
        "{out:?}"
    );
    assert!(
        out.stdout
            .contains("### paper-kit: Document helpers shared across the team\n- pdf-notes:"),
        "{out:?}"
    );
    assert!(!out.stdout.contains("plugins/"), "{out:?}");
    // Files of a plugin that are not skills stay out.
    assert!(!out.stdout.contains("historian"), "{out:?}");

    let json = run(&["render", "--root", &root, "--json"]).json();
    let namespaces: Vec<&str> = json["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["namespace"].as_str().unwrap())
        .collect();
    assert!(namespaces.contains(&"git-tools"), "{json}");
    assert!(
        !namespaces.iter().any(|n| n.starts_with("plugins")),
        "{json}"
    );
}

#[test]
fn clashing_plugin_skills_are_qualified_plugin_colon_skill() {
    let root = marketplace();
    let out = run(&["render", "--root", &root, "--paths", "none"]);
    assert!(
        out.stdout
            .contains("- lint-kit:review-notes: Collect lint findings"),
        "{out:?}"
    );
    // Every form reaches the skill it names: the plain name the winner's,
    // `plugin:skill` and `plugin/skill` either one.
    for (key, folder) in [
        ("review-notes", "git-tools/skills/review-notes"),
        ("git-tools:review-notes", "git-tools/skills/review-notes"),
        ("lint-kit:review-notes", "lint-kit/skills/review-notes"),
        ("lint-kit/review-notes", "lint-kit/skills/review-notes"),
        ("lint-kit:style-pass", "lint-kit/skills/style-pass"),
        ("paper-kit:pdf-notes", "shared/pdf-notes"),
    ] {
        let read = run(&["read", key, "--root", &root]);
        assert_eq!(read.code, 0, "{key}: {read:?}");
        assert!(
            read.stdout.lines().next().unwrap().ends_with(folder),
            "{key}: {read:?}"
        );
        let show = run(&["show", key, "--root", &root, "--json"]);
        assert_eq!(show.code, 0, "{key}: {show:?}");
    }
    // A plugin that holds no such skill names nothing.
    let wrong = run(&["read", "paper-kit:review-notes", "--root", &root]);
    assert_ne!(wrong.code, 0, "{wrong:?}");
    // The warning names both files and the qualified id.
    let (_, diagnostics) = lint_json(&fixture("layouts/marketplace"), &[]);
    let shadowed: Vec<&str> = diagnostics
        .iter()
        .filter(|d| d["code"] == "name-shadowed")
        .map(|d| d["message"].as_str().unwrap())
        .collect();
    assert!(
        shadowed
            .iter()
            .any(|m| m.contains("listed as `lint-kit:review-notes`")),
        "{shadowed:?}"
    );
}

#[test]
fn a_hidden_tool_copy_never_takes_the_name_from_the_real_skill() {
    // `.gemini/skills/bisect-hunt` is shallower and sorts first, yet the
    // skill in plain folders keeps the name.
    let root = marketplace();
    let read = run(&["read", "bisect-hunt", "--root", &root]);
    assert_eq!(read.code, 0, "{read:?}");
    assert!(
        read.stdout
            .lines()
            .next()
            .unwrap()
            .ends_with("git-tools/skills/bisect-hunt"),
        "{read:?}"
    );
    let stub = run(&["read", ".gemini/skills/bisect-hunt", "--root", &root]);
    assert_eq!(stub.code, 0, "{stub:?}");
    assert!(
        stub.stdout.starts_with("skill .gemini/skills/bisect-hunt"),
        "{stub:?}"
    );

    // Earlier root still comes first: a hidden copy in the first root wins.
    let temp = tempfile::tempdir().unwrap();
    let first = temp.path().join("first");
    write(
        &first,
        ".cursor/skills/bisect-hunt/SKILL.md",
        super::skill_md("bisect-hunt", "The first root's copy. Use when testing."),
    );
    let read = run(&[
        "read",
        "bisect-hunt",
        "--root",
        first.to_str().unwrap(),
        "--root",
        &root,
    ]);
    assert!(
        read.stdout
            .lines()
            .next()
            .unwrap()
            .ends_with("first/.cursor/skills/bisect-hunt"),
        "{read:?}"
    );
}

#[test]
fn a_manifest_that_does_not_parse_is_reported_and_its_skills_still_load() {
    let (_temp, root) = copy_fixture("layouts/marketplace");
    write(
        &root,
        "plugins/git-tools/.claude-plugin/plugin.json",
        "{\"name\": \"git-tools\",\n  \"description\": }\n",
    );
    let (run, diagnostics) = lint_json(&root, &[]);
    let bad: Vec<&serde_json::Value> = diagnostics
        .iter()
        .filter(|d| d["code"] == "plugin-manifest-invalid")
        .collect();
    assert_eq!(bad.len(), 1, "{run:?}");
    assert!(bad[0]["path"].as_str().unwrap().ends_with("plugin.json"));
    assert_eq!(bad[0]["line"], 2, "{run:?}");
    let render = super::run(&["render", "--root", root.to_str().unwrap()]);
    // Named by its folder; described by the marketplace entry.
    assert!(
        render.stdout.contains(
            "### git-tools: Listed description that the manifest overrides\n- bisect-hunt:"
        ),
        "{render:?}"
    );
}

#[test]
fn path_placeholders_in_links_resolve_for_lint_and_read() {
    let root = fixture("layouts/placeholders");
    let (_, diagnostics) = lint_json(&root, &[]);
    let links: Vec<(String, String)> = diagnostics
        .iter()
        .filter(|d| d["code"].as_str().unwrap().starts_with("link-"))
        .map(|d| {
            let message = d["message"].as_str().unwrap();
            let target = message.split('`').nth(1).unwrap().to_string();
            (d["code"].as_str().unwrap().to_string(), target)
        })
        .collect();
    assert_eq!(
        links,
        [
            // Not in a plugin: `${CLAUDE_PLUGIN_ROOT}` leads nowhere.
            (
                "link-escapes".to_string(),
                "${CLAUDE_PLUGIN_ROOT}/scripts/changelog.sh".to_string()
            ),
            // A placeholder does not make a missing file exist...
            (
                "link-broken".to_string(),
                "{baseDir}/references/glossary.md".to_string()
            ),
            // ...nor let a link climb out of the plugin.
            (
                "link-escapes".to_string(),
                "${CLAUDE_PLUGIN_ROOT}/../outside.md".to_string()
            ),
        ],
        "{diagnostics:?}"
    );
    let read = run(&[
        "read",
        "guide-writer",
        "--root",
        root.to_str().unwrap(),
        "--json",
    ])
    .json();
    let resolving: Vec<&str> = read["links"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["resolves"] == true)
        .map(|l| l["target"].as_str().unwrap())
        .collect();
    assert_eq!(
        resolving,
        [
            "{baseDir}/references/style.md",
            "${CLAUDE_SKILL_DIR}/references/style.md",
            "${CLAUDE_PLUGIN_ROOT}/scripts/check-links.sh"
        ]
    );
    // In a reference file, `{baseDir}` is still the skill folder.
    let text = run(&[
        "read",
        "release-notes/references/template.md",
        "--root",
        root.to_str().unwrap(),
    ]);
    assert!(!text.stdout.contains("broken links"), "{text:?}");
}
