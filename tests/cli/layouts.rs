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

/// What a lint fix asks for, read from its message as a user would.
#[derive(Debug, Clone, PartialEq)]
enum Edit {
    RenameFolder(String),
    /// Replace (or add) a top-level front-matter entry with this line.
    SetTop(String, String),
    /// Move a top-level key under `metadata:` as this line.
    MoveToMetadata(String, String),
    /// Replace (or add) an entry under `metadata:` with this line.
    SetMetadata(String, String),
}

/// The `` `…` `` spans of `text`, in order.
fn quoted(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

fn key_of(line: &str) -> String {
    line.split(':').next().unwrap().trim().to_string()
}

/// Each alternative a fix offers (`… or …`), as the edits it makes.
fn alternatives(code: &str, message: &str) -> Vec<Vec<Edit>> {
    let (_, fix) = message
        .split_once(" — ")
        .unwrap_or_else(|| panic!("{code}: no fix in {message:?}"));
    fix.replace(", or ", " or ")
        .split(" or ")
        .map(|alternative| {
            let mut edits = Vec::new();
            let mut rest = alternative;
            while !rest.is_empty() {
                let spans = quoted(rest);
                let Some(first) = spans.first() else { break };
                let before = &rest[..rest.find('`').unwrap()];
                if before.ends_with("rename the folder to ") {
                    edits.push(Edit::RenameFolder(first.to_string()));
                } else if before.ends_with("set ") && first.starts_with("name: ") {
                    edits.push(Edit::SetTop("name".into(), first.to_string()));
                } else if before.ends_with("move it under ") {
                    let line = spans[1];
                    edits.push(Edit::MoveToMetadata(key_of(line), line.to_string()));
                    break;
                } else if before.ends_with("write ") && first.starts_with("allowed-tools:") {
                    edits.push(Edit::SetTop("allowed-tools".into(), first.to_string()));
                } else if before.ends_with(": ") || before.ends_with(", ") {
                    // `quote them: `a: "1"`, `b: "2"`` and `as one string: …`
                    for line in &spans {
                        edits.push(Edit::SetMetadata(key_of(line), line.to_string()));
                    }
                    break;
                }
                // Any other quoted word (a name, a folder) is not an edit.
                let end = rest.find('`').unwrap() + first.len() + 2;
                rest = &rest[end.min(rest.len())..];
            }
            assert!(
                !edits.is_empty(),
                "{code}: no edit read from {alternative:?}"
            );
            edits
        })
        .collect()
}

/// The front matter of `text` as lines, and the body after it.
fn split_front(text: &str) -> (Vec<String>, String) {
    let rest = text.strip_prefix("---\n").unwrap();
    let end = rest.find("\n---\n").unwrap();
    (
        rest[..end].lines().map(str::to_string).collect(),
        rest[end + 5..].to_string(),
    )
}

/// The range of lines of the entry at `start` (its continuation lines
/// are the indented ones after it).
fn entry_end(lines: &[String], start: usize, indent: usize) -> usize {
    let mut end = start + 1;
    while end < lines.len() && lines[end].len() - lines[end].trim_start().len() > indent {
        end += 1;
    }
    end
}

fn find_key(lines: &[String], key: &str, indent: usize) -> Option<usize> {
    lines.iter().position(|l| {
        l.len() - l.trim_start().len() == indent && key_of(l) == key && l.contains(':')
    })
}

fn set_top(lines: &mut Vec<String>, key: &str, line: &str) {
    match find_key(lines, key, 0) {
        Some(start) => {
            let end = entry_end(lines, start, 0);
            lines.splice(start..end, [line.to_string()]);
        }
        None => lines.push(line.to_string()),
    }
}

fn set_metadata(lines: &mut Vec<String>, key: &str, line: &str) {
    let start = match find_key(lines, "metadata", 0) {
        Some(start) => start,
        None => {
            lines.push("metadata:".into());
            lines.len() - 1
        }
    };
    let end = entry_end(lines, start, 0);
    let entry = format!("  {line}");
    match (start + 1..end).find(|&i| find_key(&lines[i..=i], key, 2).is_some()) {
        Some(at) => {
            let sub_end = entry_end(lines, at, 2);
            lines.splice(at..sub_end, [entry]);
        }
        None => lines.insert(end, entry),
    }
}

/// Apply `edits` to the skill in `folder` (alone in its root); returns
/// the skill's folder afterwards.
fn apply(folder: &std::path::Path, edits: &[Edit]) -> std::path::PathBuf {
    let mut folder = folder.to_path_buf();
    let file = |f: &std::path::Path| f.join("SKILL.md");
    for edit in edits {
        if let Edit::RenameFolder(to) = edit {
            let renamed = folder.with_file_name(to);
            std::fs::rename(&folder, &renamed).unwrap();
            folder = renamed;
            continue;
        }
        let text = std::fs::read_to_string(file(&folder)).unwrap();
        let (mut lines, body) = split_front(&text);
        match edit {
            Edit::SetTop(key, line) => set_top(&mut lines, key, line),
            Edit::MoveToMetadata(key, line) => {
                let start = find_key(&lines, key, 0).unwrap();
                let end = entry_end(&lines, start, 0);
                lines.drain(start..end);
                set_metadata(&mut lines, key, line);
            }
            Edit::SetMetadata(key, line) => set_metadata(&mut lines, key, line),
            Edit::RenameFolder(_) => unreachable!(),
        }
        std::fs::write(
            file(&folder),
            format!("---\n{}\n---\n{body}", lines.join("\n")),
        )
        .unwrap();
    }
    folder
}

#[test]
fn every_suggested_fix_passes_when_applied_as_written() {
    let fixtures = fixture("layouts/fixes");
    let mut folders: Vec<_> = std::fs::read_dir(&fixtures)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    folders.sort();
    let mut applied = 0;
    for original in folders {
        let name = original.file_name().unwrap().to_str().unwrap().to_string();
        // The skill alone in a root, so each fix is judged on its own.
        let temp = tempfile::tempdir().unwrap();
        let copy = temp.path().join(&name);
        super::copy_dir(&original, &copy);
        let (_, before) = lint_json(temp.path(), &[]);
        assert!(!before.is_empty(), "{name}: the fixture has no finding");
        for finding in &before {
            let code = finding["code"].as_str().unwrap();
            let message = finding["message"].as_str().unwrap();
            for edits in alternatives(code, message) {
                let trial = tempfile::tempdir().unwrap();
                let trial_copy = trial.path().join(&name);
                super::copy_dir(&original, &trial_copy);
                apply(&trial_copy, &edits);
                let (_, after) = lint_json(trial.path(), &[]);
                // What remains are the file's other findings, nothing new.
                let subject = |d: &serde_json::Value| {
                    let message = d["message"].as_str().unwrap();
                    let first = quoted(message).first().map(|s| s.to_string());
                    (d["code"].as_str().unwrap().to_string(), first)
                };
                let fixed = subject(finding);
                let others: Vec<_> = before.iter().map(subject).filter(|s| *s != fixed).collect();
                for left in &after {
                    assert!(
                        others.contains(&subject(left)),
                        "{name}: applying {edits:?} (from {message:?}) gives {left}"
                    );
                }
                applied += 1;
            }
        }
    }
    // Every fixture fault was fixed, some in two ways.
    assert!(applied >= 14, "only {applied} fixes applied");
}

#[test]
fn typed_metadata_and_listed_tools_are_warnings_that_keep_the_values() {
    let root = fixture("layouts/fixes");
    let (_, diagnostics) = lint_json(&root, &[]);
    let found = |folder: &str| -> Vec<(String, String)> {
        diagnostics
            .iter()
            .filter(|d| d["path"].as_str().unwrap().contains(&format!("/{folder}/")))
            .map(|d| {
                (
                    d["severity"].as_str().unwrap().to_string(),
                    d["code"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let warning = |code: &str| vec![("warning".to_string(), code.to_string())];
    assert_eq!(
        found("metadata-numbers"),
        warning("metadata-value-not-text")
    );
    assert_eq!(found("tools-list"), warning("allowed-tools-list"));
    // A list in metadata has no text form: still an error.
    assert_eq!(
        found("metadata-list"),
        [("error".to_string(), "metadata-not-string-map".to_string())]
    );
    let show = run(&[
        "show",
        "tools-list",
        "--root",
        root.to_str().unwrap(),
        "--json",
    ])
    .json();
    assert_eq!(
        show["skill"]["allowed_tools"], "Read Grep Bash(git log:*)",
        "{show:#}"
    );
    let show = run(&[
        "show",
        "metadata-numbers",
        "--root",
        root.to_str().unwrap(),
        "--json",
    ])
    .json();
    assert_eq!(show["skill"]["metadata"]["count"], "28", "{show:#}");
}

#[test]
fn lint_filters_by_severity_and_code_and_caps_with_a_count() {
    let root = fixture("layouts/fixes");
    let root_s = root.to_str().unwrap();
    let summary = |extra: &[&str]| {
        let mut args = vec!["lint", "--json", "--root", root_s];
        args.extend_from_slice(extra);
        let out = run(&args);
        (out.code, out.json())
    };
    let (code, all) = summary(&[]);
    assert_eq!(code, 1);
    let total = all["diagnostics"].as_array().unwrap().len();
    assert_eq!(
        all["summary"]["by_code"]["name-invalid"]["count"], 3,
        "{all:#}"
    );
    assert_eq!(
        all["summary"]["by_code"]["name-invalid"]["severity"],
        "error"
    );
    // Only warnings and worse; only one family; everything but errors.
    let (code, errors) = summary(&["--severity", "error"]);
    assert_eq!(code, 1);
    let errors = errors["diagnostics"].as_array().unwrap().clone();
    assert!(!errors.is_empty() && errors.len() < total);
    assert!(
        errors.iter().all(|d| d["severity"] == "error"),
        "{errors:?}"
    );
    let (code, names) = summary(&["--code", "name-*"]);
    assert_eq!(code, 1);
    assert!(names["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .all(|d| d["code"].as_str().unwrap().starts_with("name-")));
    let (code, allowed) = summary(&[
        "--allow",
        "name-invalid,name-mismatch,name-too-long",
        "--allow",
        "metadata-not-string-map",
    ]);
    assert_eq!(code, 0, "{allowed:#}");
    assert_eq!(allowed["summary"]["errors"], 0);
    assert_eq!(
        allowed["summary"]["filtered_out"].as_u64().unwrap() as usize
            + allowed["diagnostics"].as_array().unwrap().len(),
        total
    );
    // A cap prints that many and counts the rest; the verdict still
    // counts every finding left.
    let (code, capped) = summary(&["--max-findings", "2"]);
    assert_eq!(code, 1);
    assert_eq!(capped["diagnostics"].as_array().unwrap().len(), 2);
    assert_eq!(capped["summary"]["shown"], 2);
    assert_eq!(capped["summary"]["omitted"], total - 2);
    let text = run(&["lint", "--root", root_s, "--max-findings", "1"]);
    assert_eq!(text.stdout.lines().count(), 1, "{text:?}");
    assert!(
        text.stderr
            .contains(&format!("{} more findings not shown", total - 1)),
        "{text:?}"
    );
    assert!(
        text.stderr
            .contains("by code: name-invalid 3 (error), name-mismatch 2 (error)"),
        "{text:?}"
    );
    // A code that does not exist is a usage error naming the known ones.
    let bad = run(&["lint", "--root", root_s, "--code", "name-wrong"]);
    assert_eq!(bad.code, 2, "{bad:?}");
    assert!(
        bad.stderr.contains("`name-wrong` names no diagnostic code")
            && bad.stderr.contains("link-broken"),
        "{bad:?}"
    );
}

#[test]
fn configuration_names_a_plugin_skill_as_plugin_colon_skill() {
    let temp = tempfile::tempdir().unwrap();
    let config = write(
        temp.path(),
        "skilldex.yaml",
        "disabled:\n  - lint-kit:review-notes\n",
    );
    let out = run(&[
        "render",
        "--root",
        &marketplace(),
        "--config",
        config.to_str().unwrap(),
        "--paths",
        "none",
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(!out.stdout.contains("Collect lint findings"), "{out:?}");
    assert!(
        out.stdout.contains("- review-notes: Write review notes"),
        "{out:?}"
    );
    assert!(out.stdout.contains("- style-pass:"), "{out:?}");
}
