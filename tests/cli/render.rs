//! `render`, `list`, `show` and `lint` on the bundled catalog and small
//! temporary catalogs: formats, paths, budgets, modes, determinism.

use super::*;

const BUNDLED: &[&str] = &[
    "api-doc-zh",
    "changelog-keeping",
    "code-review",
    "commit-message-zh",
    "csv-cleanup",
    "dockerfile-hardening",
    "git-bisect",
    "incident-triage",
    "json-schema-design",
    "markdown-tables",
    "pdf-extract",
    "pdf-forms",
    "release-notes",
    "rust-error-handling",
    "sql-query-review",
];

#[test]
fn bundled_catalog_renders_every_skill_byte_stable() {
    let first = run(&["render", "--paths", "relative"]);
    assert_eq!(first.code, 0, "{first:?}");
    for name in BUNDLED {
        let line = first
            .stdout
            .lines()
            .find(|l| l.starts_with(&format!("- {name}: ")))
            .unwrap_or_else(|| panic!("{name} missing:\n{}", first.stdout));
        assert!(line.ends_with("/SKILL.md]"), "{line}");
        assert!(line.contains("skills/"), "{line}");
    }
    let second = run(&["render", "--paths", "relative"]);
    assert_eq!(first.stdout, second.stdout, "render is not byte-stable");
    // Nothing from the engine's inside leaks into the text for the model.
    for word in ["revision", "token", "collapsed", "skilldex:"] {
        assert!(
            !first.stdout.to_lowercase().contains(word),
            "leaks `{word}`"
        );
    }
    assert!(
        first.stderr.is_empty(),
        "clean catalog, quiet stderr: {first:?}"
    );
}

#[test]
fn bundled_catalog_is_lint_clean_under_spec() {
    let lint = run(&["lint", "--format", "json"]);
    assert_eq!(lint.code, 0, "{lint:?}");
    let json = lint.json();
    assert_eq!(json["summary"]["skills"], BUNDLED.len());
    assert_eq!(json["summary"]["errors"], 0);
    assert_eq!(json["summary"]["warnings"], 0);
    assert_eq!(json["diagnostics"].as_array().unwrap().len(), 0, "{json}");
}

#[test]
fn namespaces_have_descriptions_and_nested_skills_their_parent() {
    let json = run(&["render", "--format", "json", "--paths", "relative"]).json();
    let namespaces = json["namespaces"].as_array().unwrap();
    let names: Vec<&str> = namespaces
        .iter()
        .map(|n| n["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["data", "dev", "docs", "docs/pdf-extract", "ops", "zh"]
    );
    for namespace in namespaces {
        assert!(!namespace["description"].as_str().unwrap().is_empty());
    }
    let nested = &namespaces[3];
    assert_eq!(
        nested["description"],
        "Skills nested inside the pdf-extract skill."
    );
    let forms = json["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "pdf-forms")
        .unwrap();
    assert_eq!(forms["namespace"], "docs/pdf-extract");
    assert_eq!(forms["path"], "skills/docs/pdf-extract/pdf-forms/SKILL.md");
    assert!(forms["tokens"].as_u64().unwrap() > 10);
    assert_eq!(json["revision"].as_str().unwrap().len(), 32);
    assert!(json["collapsed"].as_array().unwrap().is_empty());
}

/// A temporary catalog of `count` skills in two namespaces.
fn catalog(count: usize) -> tempfile::TempDir {
    let temp = tempfile::tempdir().unwrap();
    for i in 0..count {
        let namespace = if i % 2 == 0 { "alpha" } else { "beta/gamma" };
        let name = format!("skill-{i:03}");
        write(
            temp.path(),
            &format!("{namespace}/{name}/SKILL.md"),
            skill_md(
                &name,
                &format!(
                    "Handles task number {i} with care, covering inputs, outputs and edge cases in detail. Use when the user asks for task {i} or something close to it."
                ),
            ),
        );
    }
    temp
}

#[test]
fn xml_is_entity_escaped_and_paths_absolute_by_default() {
    let temp = tempfile::tempdir().unwrap();
    write(
        temp.path(),
        "x/esc/SKILL.md",
        "---\nname: esc\ndescription: \"Handles <tags> & 'quotes' \\\"here\\\". Use when escaping.\"\n---\nbody\n",
    );
    write(
        temp.path(),
        "x/other/SKILL.md",
        skill_md("other", "Other thing. Use when needed."),
    );
    let out = run_in(
        temp.path(),
        &[
            "render",
            "--root",
            ".",
            "--format",
            "xml",
            "--mode",
            "directory",
        ],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.starts_with("<available_skills>\n"), "{out:?}");
    assert!(out.stdout.ends_with("</available_skills>\n"));
    assert!(
        out.stdout
            .contains("<description>Handles &lt;tags&gt; &amp; &#39;quotes&#39; &quot;here&quot;. Use when escaping.</description>"),
        "{}",
        out.stdout
    );
    let real = std::fs::canonicalize(temp.path()).unwrap();
    let location = format!("<location>{}/x/esc/SKILL.md</location>", real.display());
    let logical = format!(
        "<location>{}/x/esc/SKILL.md</location>",
        temp.path().display()
    );
    assert!(
        out.stdout.contains(&location) || out.stdout.contains(&logical),
        "{}",
        out.stdout
    );
}

#[test]
fn paths_none_and_agents_md() {
    let temp = catalog(4);
    let root = temp.path().to_str().unwrap();
    let none = run(&[
        "render",
        "--root",
        root,
        "--paths",
        "none",
        "--mode",
        "directory",
    ]);
    assert!(!none.stdout.contains("SKILL.md]"), "{none:?}");
    assert!(
        none.stdout.contains("- skill-000: Handles task number 0"),
        "{none:?}"
    );
    let agents = run(&[
        "render",
        "--root",
        root,
        "--format",
        "agents-md",
        "--mode",
        "directory",
    ]);
    assert!(
        agents
            .stdout
            .starts_with("<!-- skilldex:begin -->\n## Skills\n"),
        "{agents:?}"
    );
    assert!(agents.stdout.ends_with("<!-- skilldex:end -->\n"));
}

#[test]
fn auto_mode_inlines_bodies_for_a_handful_and_lists_beyond() {
    let small = catalog(2);
    let out = run(&["render", "--root", small.path().to_str().unwrap()]);
    assert!(
        out.stdout.contains("Do the thing."),
        "bodies inline: {out:?}"
    );
    let large = catalog(12);
    let out = run(&["render", "--root", large.path().to_str().unwrap()]);
    assert!(
        !out.stdout.contains("Do the thing."),
        "directory only: {out:?}"
    );
    assert_eq!(out.stdout.matches("\n- skill-").count(), 12);
}

#[test]
fn namespaces_mode_shows_one_line_per_namespace() {
    let temp = catalog(10);
    let out = run(&[
        "render",
        "--root",
        temp.path().to_str().unwrap(),
        "--mode",
        "namespaces",
        "--paths",
        "none",
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout
            .contains("### alpha: Skills in the alpha namespace. (5 skills, not listed)"),
        "{out:?}"
    );
    assert!(out
        .stdout
        .contains("### beta/gamma: Skills in the beta/gamma namespace. (5 skills, not listed)"));
    assert!(!out.stdout.contains("- skill-"));
    assert!(
        out.stdout
            .contains("10 more skills are not listed one by one"),
        "{out:?}"
    );
}

#[test]
fn token_budget_is_respected_and_nothing_is_silently_dropped() {
    let temp = catalog(40);
    let root = temp.path().to_str().unwrap();
    let full = run(&[
        "render",
        "--root",
        root,
        "--format",
        "json",
        "--mode",
        "directory",
    ])
    .json();
    let full_tokens = full["tokens"].as_u64().unwrap();
    // The shortest form (everything collapsed) names the root, whose
    // random temporary name costs a varying number of tokens: a fixed
    // small budget (60 was used) fitted or not by chance. Its cost, as a
    // budget of 1 reports it, is the smallest budget that must fit.
    let floor = run(&[
        "render",
        "--root",
        root,
        "--format",
        "json",
        "--mode",
        "directory",
        "--budget-tokens",
        "1",
    ])
    .json();
    assert_eq!(floor["fits"], false, "{floor}");
    let shortest = floor["tokens"].as_u64().unwrap();
    for budget in [
        full_tokens + 10,
        full_tokens * 3 / 4,
        full_tokens / 3,
        full_tokens / 10,
        shortest,
    ] {
        let budget_s = budget.to_string();
        let json = run(&[
            "render",
            "--root",
            root,
            "--format",
            "json",
            "--mode",
            "directory",
            "--budget-tokens",
            &budget_s,
        ])
        .json();
        assert_eq!(json["fits"], true, "budget {budget}: {json}");
        assert!(
            json["tokens"].as_u64().unwrap() <= budget,
            "budget {budget}: {json}"
        );
        let shown = json["skills"].as_array().unwrap().len();
        let collapsed = json["collapsed"].as_array().unwrap().len();
        assert_eq!(shown + collapsed, 40, "every skill is shown or collapsed");
        let text = run(&[
            "render",
            "--root",
            root,
            "--mode",
            "directory",
            "--budget-tokens",
            &budget_s,
        ]);
        if collapsed > 0 {
            assert!(
                text.stdout.contains(&format!(
                    "`skilldex --root {root} search \"<what you need>\"`"
                )) && text
                    .stdout
                    .contains(&format!("`skilldex --root {root} list")),
                "closing line present, with the root: {text:?}"
            );
            assert!(text.stderr.contains("fitted in"), "{text:?}");
        }
        if budget > full_tokens {
            assert_eq!(collapsed, 0);
            assert_eq!(json["shortened"], 0);
        }
    }
    // Paths go first, then descriptions are shortened (at word
    // boundaries), and only then is anything collapsed.
    let fit = |budget: u64| {
        run(&[
            "render",
            "--root",
            root,
            "--format",
            "json",
            "--mode",
            "directory",
            "--budget-tokens",
            &budget.to_string(),
        ])
        .json()
    };
    let json = fit(full_tokens * 3 / 4);
    assert_eq!(json["shortened"], 0, "{json}");
    assert_eq!(json["collapsed"].as_array().unwrap().len(), 0, "{json}");
    assert!(json["skills"][0]["path"].is_null(), "{json}");
    let without_paths = json["tokens"].as_u64().unwrap();
    let json = fit(without_paths * 3 / 4);
    assert!(json["shortened"].as_u64().unwrap() > 0, "{json}");
    assert_eq!(json["collapsed"].as_array().unwrap().len(), 0, "{json}");
    for skill in json["skills"].as_array().unwrap() {
        let shown = skill["description"].as_str().unwrap();
        let Some(head) = shown.strip_suffix('…') else {
            continue;
        };
        let full = full["skills"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["id"] == skill["id"])
            .unwrap()["description"]
            .as_str()
            .unwrap();
        let rest = full
            .strip_prefix(head)
            .expect("a prefix of the description");
        assert!(
            rest.starts_with([' ', ',', '.', ';', ':']),
            "cut inside a word: {shown:?} of {full:?}"
        );
    }
}

#[test]
fn char_budget_is_respected() {
    let temp = catalog(30);
    let root = temp.path().to_str().unwrap();
    for budget in [5000usize, 2000, 800] {
        let out = run(&[
            "render",
            "--root",
            root,
            "--mode",
            "directory",
            "--paths",
            "relative",
            "--budget-chars",
            &budget.to_string(),
        ]);
        assert_eq!(out.code, 0, "{out:?}");
        assert!(
            out.stdout.chars().count() <= budget,
            "{} > {budget}",
            out.stdout.chars().count()
        );
    }
}

#[test]
fn tiny_budget_still_says_how_to_reach_skills() {
    let temp = catalog(30);
    let out = run(&[
        "render",
        "--root",
        temp.path().to_str().unwrap(),
        "--budget-tokens",
        "5",
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("30 skills are available"), "{out:?}");
    assert!(
        out.stderr.contains("smaller than the shortest directory"),
        "{out:?}"
    );
}

#[test]
fn empty_catalog_prints_nothing_and_says_why() {
    let temp = tempfile::tempdir().unwrap();
    let out = run(&["render", "--root", temp.path().to_str().unwrap()]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.is_empty(), "{out:?}");
    assert!(out.stderr.contains("no skills found"), "{out:?}");
}

#[test]
fn missing_root_is_a_usage_error() {
    let out = run(&["render", "--root", "/nonexistent/skills"]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr.contains("/nonexistent/skills") && out.stderr.contains("does not exist"),
        "{out:?}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn global_flags_go_before_or_after_the_command() {
    let temp = catalog(6);
    let root = temp.path().to_str().unwrap();
    let after = run(&["render", "--root", root, "--paths", "none"]);
    let before = run(&["--root", root, "render", "--paths", "none"]);
    assert_eq!(after.code, 0, "{after:?}");
    assert_eq!(after.stdout, before.stdout);
    let usage = run(&["render", "--format", "yaml"]);
    assert_eq!(usage.code, 2, "{usage:?}");
}

#[test]
fn list_shows_a_tree_and_respects_no_color() {
    let out = run(&["list"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout.starts_with("15 skills in 6 namespaces"),
        "{out:?}"
    );
    assert!(
        out.stdout
            .contains("dev/  Skills for everyday software development work"),
        "{out:?}"
    );
    assert!(out.stdout.contains("├─ code-review"), "{out:?}");
    // Nested namespaces sit under their parent folder.
    assert!(
        out.stdout.contains(
            "\n  pdf-extract/  Skills nested inside the pdf-extract skill.\n  └─ pdf-forms"
        ),
        "{out:?}"
    );
    assert!(out.stdout.contains(" tok\n"));
    // The diagnostics summary is a note: stderr, not the tree.
    assert!(out.stderr.contains("no problems found"), "{out:?}");
    assert!(!out.stdout.contains("no problems found"), "{out:?}");
    assert!(!out.stdout.contains('\x1b'), "NO_COLOR is set: no escapes");
    let colored = run(&["list", "--color", "always"]);
    assert!(
        colored.stdout.contains('\x1b'),
        "--color always forces escapes"
    );
    let only = run(&["list", "--namespace", "docs"]);
    assert!(
        only.stdout.starts_with("4 skills in 2 namespaces"),
        "{only:?}"
    );
    assert!(!only.stdout.contains("git-bisect"));
    let bad = run(&["list", "--namespace", "nope"]);
    assert_eq!(bad.code, 1, "{bad:?}");
    assert!(bad.stderr.contains("data, dev, docs"), "{bad:?}");
    let json = run(&["list", "--json"]).json();
    assert_eq!(json["skills"].as_array().unwrap().len(), 15);
    assert_eq!(json["diagnostics"]["errors"], 0);
}

#[test]
fn show_gives_metadata_outline_and_files() {
    let out = run(&["show", "pdf-extract"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("namespace:     docs"), "{out:?}");
    assert!(out.stdout.contains("Outline"));
    assert!(out.stdout.contains("references/tools.md"));
    assert!(
        out.stdout.contains("pdf-forms/SKILL.md"),
        "nested skill named: {out:?}"
    );
    let json = run(&["show", "pdf-extract", "--json"]).json();
    let files = json["sub_files"].as_array().unwrap();
    let nested = files
        .iter()
        .find(|f| f["path"] == "pdf-forms/SKILL.md")
        .unwrap();
    assert_eq!(nested["kind"], "nested-skill");
    let reference = files
        .iter()
        .find(|f| f["path"] == "references/tools.md")
        .unwrap();
    assert_eq!(reference["kind"], "markdown");
    assert!(reference["tokens"].as_u64().unwrap() > 50);
    assert!(reference["bytes"].as_u64().unwrap() > 200);
    let headings = json["headings"].as_array().unwrap();
    assert_eq!(headings[0]["level"], 1);
    assert!(headings[0]["line"].as_u64().unwrap() > 3);
    // The heading really is on that line of the file.
    let text = std::fs::read_to_string(repo().join("skills/docs/pdf-extract/SKILL.md")).unwrap();
    let line = headings[1]["line"].as_u64().unwrap() as usize;
    assert!(text
        .lines()
        .nth(line - 1)
        .unwrap()
        .contains(headings[1]["text"].as_str().unwrap()));
    assert!(json["links"]
        .as_array()
        .unwrap()
        .iter()
        .all(|l| l["resolves"] == true));
}

#[test]
fn show_unknown_skill_suggests_names() {
    let out = run(&["show", "git-bisct"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("did you mean `git-bisect`"), "{out:?}");
    assert!(out.stdout.is_empty());
}

#[test]
fn lint_text_output_is_compiler_style() {
    let temp = tempfile::tempdir().unwrap();
    write(
        temp.path(),
        "Bad_Name/SKILL.md",
        "---\nname: Bad_Name\ndescription: Does things. Use when asked.\n---\n",
    );
    let out = run_in(temp.path(), &["lint", "--root", "."]);
    assert_eq!(out.code, 1, "{out:?}");
    assert_eq!(
        out.stdout,
        "./Bad_Name/SKILL.md:2:7: error[name-invalid]: name `Bad_Name` must be lowercase, may only contain letters, digits and hyphens — rename the folder to `bad-name` and set `name: bad-name`\n"
    );
    assert!(out.stderr.contains("failed"), "{out:?}");
}

#[test]
fn closed_pipe_is_not_an_error() {
    use std::io::Read;
    let temp = catalog(400);
    let mut child = skilldex()
        .args([
            "render",
            "--root",
            temp.path().to_str().unwrap(),
            "--mode",
            "directory",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 16];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("error"), "{stderr}");
}

#[test]
fn a_namespace_in_two_roots_points_at_the_folder_of_the_first_root() {
    let temp = tempfile::tempdir().unwrap();
    let first = temp.path().join("first");
    let second = temp.path().join("second");
    // `alpha` (second root) sorts before `zeta` (first root) in the
    // namespace; the folder shown must still be the first root's.
    write(&first, "ns/zeta/SKILL.md", skill_md("zeta", "Zeta things."));
    write(
        &second,
        "ns/alpha/SKILL.md",
        skill_md("alpha", "Alpha things."),
    );
    let out = run_in(
        temp.path(),
        &[
            "render",
            "--root",
            "first",
            "--root",
            "second",
            "--mode",
            "namespaces",
            "--paths",
            "relative",
            "--json",
        ],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let json = out.json();
    let paths: Vec<&str> = json["namespaces"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["name"] == "ns")
        .filter_map(|n| n["path"].as_str())
        .collect();
    assert_eq!(paths, ["first/ns/"], "{}", out.stdout);
    let text = run_in(
        temp.path(),
        &[
            "render",
            "--root",
            "first",
            "--root",
            "second",
            "--mode",
            "namespaces",
            "--paths",
            "relative",
        ],
    );
    assert!(text.stdout.contains("folder `first/ns/`"), "{text:?}");
}

#[test]
fn the_budget_note_counts_what_is_shown() {
    // The bundled catalog without paths (so the figures do not depend on
    // where the checkout lives), at budgets that cut each way: the figures
    // the note gives are the lines printed.
    let render = |budget: &str| run(&["render", "--paths", "none", "--budget-tokens", budget]);
    let figure = |note: &str, after: &str| -> Option<usize> {
        let head = &note[..note.find(after)?];
        head.rsplit(|c: char| !c.is_ascii_digit())
            .find(|w| !w.is_empty())?
            .parse()
            .ok()
    };
    let mut kinds = std::collections::BTreeSet::new();
    for budget in ["150", "300", "600"] {
        let out = render(budget);
        assert_eq!(out.code, 0, "{out:?}");
        let lines: Vec<&str> = out.stdout.lines().filter(|l| l.starts_with("- ")).collect();
        let bare = lines.iter().filter(|l| !l.contains(": ")).count();
        let note = out
            .stderr
            .lines()
            .find(|l| l.contains("fitted in"))
            .unwrap();
        if let Some(named) = figure(note, " of 15 skills named one by one") {
            assert_eq!(named, lines.len(), "{out:?}");
            kinds.insert("collapsed");
        } else {
            assert_eq!(lines.len(), 15, "{out:?}");
        }
        if let Some(count) = figure(note, " skills named without a description") {
            assert_eq!(count, bare, "{out:?}");
            kinds.insert("name-only");
        } else {
            assert_eq!(bare, 0, "{out:?}");
        }
        if let Some(count) = figure(note, " descriptions shortened") {
            let cut = lines.iter().filter(|l| l.ends_with('…')).count();
            assert_eq!(count, cut, "{out:?}");
            kinds.insert("shortened");
        }
    }
    assert_eq!(kinds.len(), 3, "each kind of cut is seen: {kinds:?}");
}

/// Control characters and bidirectional overrides in a description, and a
/// newline in a folder name, never reach the directory, `list` or `show`
/// as they are: descriptions drop them, paths and namespaces show them
/// escaped, so no file can add lines (or colours) to a prompt.
#[cfg(unix)]
#[test]
fn control_characters_never_reach_the_output() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("root");
    write(
        &root,
        "x4/SKILL.md",
        "---\nname: x4\ndescription: \"Use when \\u0000 nul \\u001b[31m red \\u202e rtl\"\n---\nbody\n",
    );
    write(&root, "new\nline/d/SKILL.md", skill_md("d", "Use when d."));
    let root_arg = root.to_str().unwrap();
    let hidden = |text: &str| {
        text.chars()
            .any(|c| (c.is_control() && c != '\n') || ('\u{202a}'..='\u{202e}').contains(&c))
    };
    for args in [
        vec!["render"],
        vec!["render", "--mode", "directory"],
        vec!["render", "--format", "xml"],
        vec!["render", "--format", "agents-md"],
        vec!["list"],
        vec!["show", "d"],
        vec!["show", "x4"],
        vec!["read", "d"],
    ] {
        let mut full = args.clone();
        full.extend(["--root", root_arg]);
        let out = run(&full);
        assert_eq!(out.code, 0, "{args:?}: {out:?}");
        assert!(!hidden(&out.stdout), "{args:?}: {:?}", out.stdout);
        // No line starts inside the folder name.
        assert!(
            !out.stdout.lines().any(|l| l.starts_with("line")),
            "{args:?}: {}",
            out.stdout
        );
    }
    // JSON carries names and paths as they are (JSON escapes them itself).
    let json = run(&["render", "--format", "json", "--root", root_arg]);
    let json: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let d = json["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "d")
        .unwrap();
    assert_eq!(d["namespace"], "new\nline", "{json}");
    assert!(
        d["path"]
            .as_str()
            .unwrap()
            .ends_with("new\nline/d/SKILL.md"),
        "{json}"
    );
    assert!(
        json["namespaces"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n["name"] == "new\nline"
                && n["description"] == "Skills in the new\nline namespace."),
        "{json}"
    );
    let directory = run(&["render", "--mode", "directory", "--root", root_arg]).stdout;
    assert!(
        directory.contains("- x4: Use when nul [31m red rtl"),
        "{directory}"
    );
    assert!(directory.contains("new\\nline/d/SKILL.md"), "{directory}");
}

/// `--mode full` that cannot fit the bodies in the budget says it printed
/// the directory instead; one that fits prints the bodies without a note.
#[test]
fn full_mode_that_does_not_fit_says_so() {
    let small = run(&[
        "render",
        "--mode",
        "full",
        "--budget-tokens",
        "3000",
        "--root",
        "skills",
    ]);
    assert_eq!(small.code, 0, "{small:?}");
    assert!(
        small
            .stderr
            .contains("--mode full: the skills' bodies do not fit in 3,000 tokens"),
        "{small:?}"
    );
    let large = run(&[
        "render",
        "--mode",
        "full",
        "--budget-tokens",
        "1000000",
        "--root",
        "skills",
    ]);
    assert!(!large.stderr.contains("do not fit"), "{large:?}");
    assert!(
        large.stdout.len() > small.stdout.len() * 5,
        "the bodies are printed"
    );
}

/// `list` counts each skill's directory line as `render` prints it (with
/// its absolute path), so how the root was spelled changes nothing.
#[test]
fn list_costs_do_not_depend_on_how_the_root_is_spelled() {
    let absolute = repo().join("skills");
    let relative = run(&["list", "--json", "--root", "skills"]);
    let spelled = run(&["list", "--json", "--root", absolute.to_str().unwrap()]);
    assert_eq!(relative.code, 0, "{relative:?}");
    let costs = |out: &Run| -> Vec<u64> {
        let json: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        json["skills"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["tokens"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(costs(&relative), costs(&spelled));
    // The cost of a line holds its absolute path.
    let text = run(&["list", "--root", "skills"]).stdout;
    let absolute_text = run(&["list", "--root", absolute.to_str().unwrap()]).stdout;
    assert_eq!(text, absolute_text);
}

/// Split a command as printed in backquotes into words (double quotes
/// group words, as a shell would).
fn words_of(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    for c in command.chars() {
        match c {
            '"' => quoted = !quoted,
            ' ' if !quoted => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// Every command the budgeted directory and the notes on stderr suggest
/// runs as printed, with the root and the configuration it was given —
/// here a relative root and a `--config`, from another folder than the
/// repository's.
#[test]
fn suggested_commands_run_as_printed() {
    let temp = catalog(40);
    let config = write(temp.path(), "conf/skilldex.yaml", "pinned: [skill-039]\n");
    write(temp.path(), "alpha/broken/SKILL.md", "---\nname: [\n---\n");
    let config = config.to_str().unwrap();
    let args = [
        "--config", config, "render", "--root", "alpha", "--root", "beta",
    ];
    for budget in ["120", "300", "700"] {
        let out = run_in(
            temp.path(),
            &[&args[..], &["--budget-tokens", budget]].concat(),
        );
        assert_eq!(out.code, 0, "{out:?}");
        let mut commands: Vec<String> = Vec::new();
        for line in out.stdout.lines().chain(out.stderr.lines()) {
            for (i, part) in line.split('`').enumerate() {
                if i % 2 == 1 && part.starts_with("skilldex ") {
                    commands.push(part.to_string());
                }
            }
        }
        let collapsed = out.stdout.contains("not listed one by one")
            || out.stdout.contains("skills are available");
        assert_eq!(
            collapsed,
            commands.iter().any(|c| c.contains(" search ")),
            "the closing line names a search when skills are not listed: {out:?}"
        );
        assert!(
            commands.iter().any(|c| c.contains(" lint")),
            "the broken file's note names lint: {out:?}"
        );
        for command in &commands {
            let words: Vec<String> = words_of(command)
                .into_iter()
                .skip(1)
                .map(|w| match w.as_str() {
                    "<what you need>" => "task".to_string(),
                    "<name>" if command.contains(" read ") => "skill-001".to_string(),
                    "<name>" => "gamma".to_string(),
                    "<name>/<file>" => "skill-001/SKILL.md".to_string(),
                    _ => w,
                })
                .collect();
            let words: Vec<&str> = words.iter().map(String::as_str).collect();
            let ran = run_in(temp.path(), &words);
            // lint finds the broken file (1); every other command succeeds.
            let expected = if command.contains(" lint") { 1 } else { 0 };
            assert_eq!(ran.code, expected, "`{command}` as printed: {ran:?}");
        }
    }
    // The pinned skill keeps its line before any other: without the pin,
    // the skills at the top of a root (`alpha`) come before the nested
    // ones, and skill-039 is nested.
    let out = run_in(
        temp.path(),
        &[&args[..], &["--budget-tokens", "250", "--json"]].concat(),
    );
    let json = out.json();
    let named: Vec<&str> = json["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert!(named.contains(&"skill-039"), "{json}");
    assert!(!named.contains(&"skill-037"), "{json}");
    assert!(named.contains(&"skill-000"), "{json}");
}

/// `--host` fits the directory in that host's own listing budget (its
/// share of the context window) and says how it got there; the output
/// never goes over it.
#[test]
fn a_host_budget_is_its_share_of_the_context_and_is_kept() {
    let temp = tempfile::tempdir().unwrap();
    for i in 0..300 {
        write(
            temp.path(),
            &format!("team{}/skill-{i}/SKILL.md", i % 7),
            skill_md(
                &format!("skill-{i}"),
                &format!("Handles case {i} of the work with a long explanation of when it applies and why. Use when case {i} comes up."),
            ),
        );
    }
    let root = temp.path().to_str().unwrap();
    for (args, limit, said) in [
        (&["--host", "codex"][..], 5_440, "--host codex: a budget of 5,440 characters (2% of a 272,000-token context"),
        (&["--host", "claude"][..], 8_000, "--host claude: a budget of 8,000 characters (1% of a 200,000-token context, at 4 characters a token)"),
        (&["--host", "claude", "--context-tokens", "100000"][..], 4_000, "a budget of 4,000 characters"),
    ] {
        let run = run(&[&["--root", root, "render", "--paths", "none"][..], args].concat());
        assert_eq!(run.code, 0, "{args:?}: {run:?}");
        let chars = run.stdout.chars().count();
        assert!(chars <= limit, "{args:?}: {chars} characters over {limit}");
        assert!(chars > limit * 9 / 10, "{args:?}: the budget is spent: {chars} of {limit}");
        assert!(run.stderr.contains(said), "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains("skilldex: fitted in"), "{args:?}: {}", run.stderr);
    }
    let copilot = run(&["--root", root, "render", "--host", "copilot"]);
    assert!(
        copilot.stderr.contains("a budget of 1,280 tokens")
            && copilot
                .stderr
                .contains("copilot publishes no listing budget"),
        "{}",
        copilot.stderr
    );
    let plain = run(&[
        "--root",
        root,
        "render",
        "--context-tokens",
        "50000",
        "--json",
    ]);
    let json: serde_json::Value = serde_json::from_str(&plain.stdout).unwrap();
    assert_eq!(
        json["budget"],
        serde_json::json!({"unit": "tokens", "limit": 500}),
        "{}",
        plain.stdout.chars().take(300).collect::<String>()
    );
    for wrong in [
        &["--host", "cursor"][..],
        &["--host", "codex", "--budget-chars", "100"][..],
        &["--context-tokens", "1000", "--budget-tokens", "10"][..],
    ] {
        let run = run(&[&["--root", root, "render"][..], wrong].concat());
        assert_eq!(run.code, 2, "{wrong:?}: {run:?}");
    }
}
