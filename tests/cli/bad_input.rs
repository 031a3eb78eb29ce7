//! Bad input: one fixture root per broken `SKILL.md` (always next to a good
//! sibling), checked through `lint --format json` and the JSON directory.
//!
//! Every test asserts the exact code, position, severity and hint of the
//! diagnostic about the bad file, whether the bad skill is still loaded, that
//! the good sibling is untouched, the exit code, and that nothing panicked.
//! Symlinks, FIFOs and huge files are made at test time in temp folders.

use super::*;
use serde_json::Value;
use std::time::{Duration, Instant};

/// Run `skilldex ARGS` in `cwd`, killing it (and failing) if it hangs.
fn run_bounded(cwd: &Path, args: &[&str]) -> Run {
    let mut command = skilldex();
    command.current_dir(cwd).args(args);
    bounded(command)
}

fn s(path: &Path) -> &str {
    path.to_str().expect("UTF-8 temp path")
}

/// `lint --format json --root ROOT [--profile P]`, run inside the root.
/// Checks the JSON envelope (profile, summary counts) before handing back
/// the diagnostics.
fn lint(root: &Path, profile: &str) -> (Run, Vec<Value>) {
    lint_roots(root, &[root], profile)
}

fn lint_roots(cwd: &Path, roots: &[&Path], profile: &str) -> (Run, Vec<Value>) {
    let mut args = vec!["lint", "--format", "json", "--profile", profile];
    for root in roots {
        args.extend(["--root", s(root)]);
    }
    let run = run_bounded(cwd, &args);
    let json = run.json();
    assert_eq!(json["profile"], profile, "{run:?}");
    let diagnostics = json["diagnostics"].as_array().cloned().unwrap_or_default();
    let of = |severity: &str| {
        diagnostics
            .iter()
            .filter(|d| d["severity"] == severity)
            .count() as u64
    };
    assert_eq!(json["summary"]["errors"], of("error"), "{run:?}");
    assert_eq!(json["summary"]["warnings"], of("warning"), "{run:?}");
    assert_eq!(json["summary"]["infos"], of("info"), "{run:?}");
    let expected_code = if of("error") > 0 { 1 } else { 0 };
    assert_eq!(
        run.code, expected_code,
        "exit code must be 1 exactly when there are errors\n{run:?}"
    );
    (run, diagnostics)
}

/// `render --format json --mode directory --paths relative`, run inside
/// `cwd` so paths are relative to it.
fn render_roots(cwd: &Path, roots: &[&Path]) -> Value {
    let mut args = vec![
        "render",
        "--format",
        "json",
        "--mode",
        "directory",
        "--paths",
        "relative",
    ];
    for root in roots {
        args.extend(["--root", s(root)]);
    }
    let run = run_bounded(cwd, &args);
    assert_eq!(
        run.code, 0,
        "render must succeed despite bad skills\n{run:?}"
    );
    run.json()
}

fn render(root: &Path) -> Value {
    render_roots(root, &[root])
}

/// The rendered Markdown directory (`--mode directory --paths relative`).
fn render_markdown(root: &Path) -> String {
    let run = run_bounded(
        root,
        &[
            "render",
            "--mode",
            "directory",
            "--paths",
            "relative",
            "--root",
            s(root),
        ],
    );
    assert_eq!(run.code, 0, "{run:?}");
    run.stdout
}

fn show(root: &Path, name: &str) -> Value {
    let run = run_bounded(root, &["show", name, "--json", "--root", s(root)]);
    assert_eq!(run.code, 0, "{run:?}");
    run.json()
}

/// Ids of the skills in a JSON directory, sorted.
fn ids(render: &Value) -> Vec<String> {
    let mut ids: Vec<String> = render["skills"]
        .as_array()
        .expect("skills array")
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_string())
        .collect();
    ids.sort();
    ids
}

fn skill<'a>(render: &'a Value, id: &str) -> &'a Value {
    render["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == id)
        .unwrap_or_else(|| panic!("no skill `{id}` in the directory: {:#}", render["skills"]))
}

/// Diagnostics about `file` (a path suffix such as `bad/SKILL.md`, matched
/// component by component so `good/SKILL.md` never matches `not-good/...`).
fn about<'a>(diagnostics: &'a [Value], file: &str) -> Vec<&'a Value> {
    diagnostics
        .iter()
        .filter(|d| Path::new(d["path"].as_str().unwrap_or("")).ends_with(file))
        .collect()
}

/// The only diagnostic about `file`, which must have `code`.
fn only<'a>(diagnostics: &'a [Value], file: &str, code: &str) -> &'a Value {
    let found = about(diagnostics, file);
    let codes: Vec<&str> = found.iter().map(|d| d["code"].as_str().unwrap()).collect();
    assert_eq!(codes, [code], "diagnostics about {file}: {diagnostics:#?}");
    found[0]
}

/// Check severity, position and that the message names the fix.
fn check(d: &Value, severity: &str, line: u64, column: Option<u64>, hints: &[&str]) {
    assert_eq!(d["severity"], severity, "{d:#}");
    assert_eq!(d["line"], line, "line: {d:#}");
    if let Some(column) = column {
        assert_eq!(d["column"], column, "column: {d:#}");
    }
    let message = d["message"].as_str().unwrap();
    for hint in hints {
        assert!(message.contains(hint), "message lacks `{hint}`: {message}");
    }
}

/// The good sibling: no diagnostics, listed with its own path.
fn check_good(diagnostics: &[Value], render: &Value) {
    assert!(
        about(diagnostics, "good/SKILL.md").is_empty(),
        "the good sibling got diagnostics: {diagnostics:#?}"
    );
    let good = skill(render, "good");
    assert_eq!(good["path"], "good/SKILL.md");
    assert_eq!(
        good["description"],
        "A well-formed sibling skill. Use when checking that one bad file does not hide the others."
    );
}

fn summary_skills(run: &Run) -> u64 {
    run.json()["summary"]["skills"].as_u64().unwrap()
}

// ---------------------------------------------------------------- header

#[test]
fn missing_front_matter_is_an_error_and_the_skill_is_not_loaded() {
    let root = fixture("bad/missing-frontmatter");
    let (run, diags) = lint(&root, "spec");
    let d = only(&diags, "no-header/SKILL.md", "frontmatter-missing");
    check(d, "error", 1, Some(1), &["---", "name:", "description:"]);
    assert_eq!(run.code, 1);
    assert_eq!(summary_skills(&run), 1);
    let render = render(&root);
    check_good(&diags, &render);
    assert_eq!(ids(&render), ["good"]);
}

#[test]
fn unterminated_front_matter_points_at_the_opening_line() {
    let root = fixture("bad/unterminated-frontmatter");
    let (run, diags) = lint(&root, "spec");
    let d = only(&diags, "open/SKILL.md", "frontmatter-unterminated");
    check(d, "error", 1, Some(1), &["line 1", "add a `---`"]);
    assert_eq!(run.code, 1);
    let render = render(&root);
    check_good(&diags, &render);
    assert_eq!(ids(&render), ["good"]);
}

#[test]
fn tab_indentation_is_invalid_yaml_at_the_tab_line() {
    let root = fixture("bad/yaml-tab-indent");
    let (run, diags) = lint(&root, "spec");
    let d = only(&diags, "tabbed/SKILL.md", "yaml-invalid");
    // Line 3 of the file holds the tab.
    check(d, "error", 3, Some(1), &["tab", "indent with spaces"]);
    assert!(
        !d["message"].as_str().unwrap().contains(" at line "),
        "the library's header-relative position must not leak: {d:#}"
    );
    assert_eq!(run.code, 1);
    let render = render(&root);
    check_good(&diags, &render);
    assert_eq!(ids(&render), ["good"]);
}

#[test]
fn unclosed_quote_is_invalid_yaml_at_the_opening_quote() {
    let root = fixture("bad/yaml-unclosed-quote");
    let (run, diags) = lint(&root, "spec");
    let d = only(&diags, "quoted/SKILL.md", "yaml-invalid");
    // `description: "Never closed…` — the quote opens on line 3, column 14;
    // that is where the author has to look, and the hint must say so.
    check(d, "error", 3, Some(14), &["quote"]);
    assert_eq!(run.code, 1);
    let render = render(&root);
    check_good(&diags, &render);
    assert_eq!(ids(&render), ["good"]);
}

#[test]
fn duplicate_keys_and_bad_escapes_point_at_the_fault() {
    let root = fixture("bad/yaml-error-positions");
    let (run, diags) = lint(&root, "spec");
    // The second `description:` is on line 8; the library reports the
    // start of the mapping (line 2), which is not where to look.
    check(
        only(&diags, "duplicate/SKILL.md", "yaml-invalid"),
        "error",
        8,
        Some(1),
        &["`description` is already set on line 5", "keep one"],
    );
    check(
        only(&diags, "nested-duplicate/SKILL.md", "yaml-invalid"),
        "error",
        7,
        Some(3),
        &["`author` is already set on line 5", "keep one"],
    );
    // `"… C:\qux …"`: the quote is closed; the backslash at column 38 is
    // the fault.
    let d = only(&diags, "escape/SKILL.md", "yaml-invalid");
    check(d, "error", 3, Some(38), &["escape", "single quotes"]);
    assert!(
        !d["message"].as_str().unwrap().contains("close the quote"),
        "{d:#}"
    );
    assert_eq!(run.code, 1);
    let render = render(&root);
    check_good(&diags, &render);
    assert_eq!(ids(&render), ["good"]);
}

#[test]
fn unquoted_colon_is_repaired_with_a_warning_and_text_kept() {
    let root = fixture("bad/unquoted-colon");
    let (run, diags) = lint(&root, "spec");
    let d = only(&diags, "colon/SKILL.md", "yaml-repaired");
    // `description: Use this skill when: …` — the `: ` is at column 33.
    check(d, "warning", 3, Some(33), &["description", "quotes"]);
    assert_eq!(run.code, 0);
    let render = render(&root);
    check_good(&diags, &render);
    assert_eq!(
        skill(&render, "colon")["description"],
        "Use this skill when: the user asks about colons, e.g. key: value pairs"
    );
}

#[test]
fn indented_key_is_named_at_its_line_and_not_folded_into_the_value() {
    let root = fixture("bad/yaml-indented-key");
    let (run, diags) = lint(&root, "spec");
    check(
        only(&diags, "license/SKILL.md", "yaml-indented-key"),
        "warning",
        4,
        Some(3),
        &[
            "`license` is indented",
            "`description`",
            "remove the spaces",
        ],
    );
    // `name: swallowed` then `  description: …`: the description used to
    // vanish into the name (description-missing at 1:1).
    check(
        only(&diags, "swallowed/SKILL.md", "yaml-indented-key"),
        "warning",
        3,
        Some(3),
        &["`description` is indented", "`name`", "remove the spaces"],
    );
    assert_eq!(run.code, 0);
    let render = render(&root);
    check_good(&diags, &render);
    assert_eq!(ids(&render), ["good", "license", "swallowed"]);
    assert_eq!(
        skill(&render, "license")["description"],
        "Use when checking that an indented key stays a key."
    );
    assert_eq!(show(&root, "license")["skill"]["license"], "MIT");
    assert_eq!(
        skill(&render, "swallowed")["description"],
        "Use when checking that the description is not swallowed by the name."
    );
}

#[test]
fn values_yaml_1_1_hosts_read_differently_are_warned_about() {
    let root = fixture("bad/yaml11-values");
    let (run, diags) = lint(&root, "spec");
    let found = about(&diags, "hosts-differ/SKILL.md");
    assert_eq!(found.len(), 2, "{found:#?}");
    for d in &found {
        assert_eq!(d["code"], "yaml11-value", "{d:#}");
    }
    // `  released: 2024-01-01` and `  beta: yes`; the quoted `"yes"` is fine.
    check(
        found[0],
        "warning",
        6,
        Some(13),
        &["`2024-01-01`", "a date", "PyYAML", "quote it"],
    );
    check(
        found[1],
        "warning",
        7,
        Some(9),
        &["`yes`", "the boolean true", "PyYAML", "quote it"],
    );
    assert_eq!(run.code, 0);
    let (_, lenient) = lint(&root, "lenient");
    assert!(
        about(&lenient, "hosts-differ/SKILL.md").is_empty(),
        "{lenient:#?}"
    );
    let render = render(&root);
    check_good(&diags, &render);
    assert_eq!(ids(&render), ["good", "hosts-differ"]);
}

#[test]
fn yaml_alias_bomb_is_refused_quickly() {
    let root = fixture("bad/yaml-alias-bomb");
    let started = Instant::now();
    let (run, diags) = lint(&root, "spec");
    let elapsed = started.elapsed();
    let d = only(&diags, "bomb/SKILL.md", "yaml-alias-limit");
    assert_eq!(d["severity"], "error");
    let line = d["line"].as_u64().unwrap();
    assert!((2..=12).contains(&line), "points inside the header: {d:#}");
    let message = d["message"].as_str().unwrap();
    assert!(message.contains("72 YAML aliases"), "{message}");
    assert!(message.contains("write the values out"), "{message}");
    assert_eq!(run.code, 1);
    assert!(
        elapsed < Duration::from_secs(10),
        "alias bomb took {elapsed:?}"
    );
    let render = render(&root);
    check_good(&diags, &render);
    assert_eq!(ids(&render), ["good"]);
}

#[test]
fn triple_dash_inside_values_is_text() {
    let root = fixture("bad/dashes-in-value");
    let (run, diags) = lint(&root, "spec");
    assert!(diags.is_empty(), "{diags:#?}");
    assert_eq!(run.code, 0);
    let render = render(&root);
    check_good(&diags, &render);
    assert_eq!(
        skill(&render, "dashes")["description"],
        "before --- after. Use when testing."
    );
    let detail = show(&root, "dashes");
    // An indented `---` inside a block scalar does not close the header.
    assert_eq!(detail["skill"]["license"], "MIT --- or Apache");
    assert_eq!(detail["skill"]["body_line"], 9);
}

// ---------------------------------------------------------------- fields

#[test]
fn missing_name_falls_back_to_the_folder() {
    let root = fixture("bad/name-missing");
    let (run, diags) = lint(&root, "spec");
    let d = only(&diags, "nameless/SKILL.md", "name-missing");
    check(d, "error", 1, Some(1), &["add `name: nameless`"]);
    assert_eq!(run.code, 1);
    let render = render(&root);
    check_good(&diags, &render);
    let nameless = skill(&render, "nameless");
    assert_eq!(nameless["name"], "nameless");
    assert_eq!(nameless["path"], "nameless/SKILL.md");
}

#[test]
fn missing_description_is_an_error_and_the_skill_is_not_loaded() {
    let root = fixture("bad/description-missing");
    let (run, diags) = lint(&root, "spec");
    let d = only(&diags, "no-description/SKILL.md", "description-missing");
    check(
        d,
        "error",
        1,
        Some(1),
        &["not loaded", "add `description:`"],
    );
    assert_eq!(run.code, 1);
    assert_eq!(summary_skills(&run), 1);
    let render = render(&root);
    check_good(&diags, &render);
    assert_eq!(ids(&render), ["good"]);
}

#[test]
fn uppercase_name_is_invalid_with_a_lowercase_suggestion() {
    let root = fixture("bad/name-uppercase");
    let (run, diags) = lint(&root, "spec");
    let d = only(&diags, "PDF-Tools/SKILL.md", "name-invalid");
    check(
        d,
        "error",
        2,
        Some(7),
        &[
            "lowercase",
            "rename the folder to `pdf-tools` and set `name: pdf-tools`",
        ],
    );
    assert_eq!(run.code, 1);
    let render = render(&root);
    check_good(&diags, &render);
    assert_eq!(skill(&render, "PDF-Tools")["path"], "PDF-Tools/SKILL.md");
}

#[test]
fn name_with_spaces_is_invalid_with_a_kebab_suggestion() {
    let root = fixture("bad/name-spaces");
    let (run, diags) = lint(&root, "spec");
    let d = only(&diags, "my skill/SKILL.md", "name-invalid");
    check(
        d,
        "error",
        2,
        Some(7),
        &[
            "hyphens",
            "rename the folder to `my-skill` and set `name: my-skill`",
        ],
    );
    assert_eq!(run.code, 1);
    let render = render(&root);
    check_good(&diags, &render);
    assert_eq!(skill(&render, "my skill")["path"], "my skill/SKILL.md");
}

#[test]
fn name_of_65_characters_is_too_long() {
    let root = fixture("bad/name-too-long");
    let long = "a".repeat(65);
    let (run, diags) = lint(&root, "spec");
    let d = only(&diags, &format!("{long}/SKILL.md"), "name-too-long");
    check(d, "error", 2, Some(7), &["65 characters", "64", "shorten"]);
    assert_eq!(run.code, 1);
    let render = render(&root);
    check_good(&diags, &render);
    assert_eq!(skill(&render, &long)["name"], long.as_str());
}

#[test]
fn name_different_from_folder_is_a_mismatch() {
    let root = fixture("bad/name-mismatch");
    let (run, diags) = lint(&root, "spec");
    let d = only(&diags, "folder-name/SKILL.md", "name-mismatch");
    check(
        d,
        "error",
        2,
        Some(7),
        &["`other-name`", "`folder-name`", "rename the folder"],
    );
    assert_eq!(run.code, 1);
    let render = render(&root);
    check_good(&diags, &render);
    assert_eq!(skill(&render, "other-name")["path"], "folder-name/SKILL.md");
}

#[test]
fn name_mismatch_never_suggests_an_invalid_name() {
    let root = fixture("bad/name-mismatch-invalid-folder");
    let (run, diags) = lint(&root, "spec");
    for (file, name, folder) in [
        ("data_tools/SKILL.md", "data-tools", "data_tools"),
        ("Mixed/SKILL.md", "mixed", "Mixed"),
    ] {
        let d = only(&diags, file, "name-mismatch");
        check(
            d,
            "error",
            2,
            Some(7),
            &[
                &format!("rename the folder to `{name}`"),
                &format!("`{folder}` is not a valid skill name"),
            ],
        );
        let message = d["message"].as_str().unwrap();
        assert!(!message.contains("set `name:"), "{message}");
    }
    assert_eq!(run.code, 1);
    check_good(&diags, &render(&root));
}

#[test]
fn control_and_bidi_characters_in_a_description_are_reported() {
    let root = fixture("bad/control-characters");
    let (run, diags) = lint(&root, "spec");
    let d = only(&diags, "hidden/SKILL.md", "control-character");
    // `description: "Use when \u0000 …` — the value starts at column 14.
    check(
        d,
        "warning",
        3,
        Some(14),
        &["`description`", "U+0000", "U+001B", "U+202E", "remove them"],
    );
    assert_eq!(run.code, 0);
    let (_, strict) = lint(&root, "strict");
    check(
        only(&strict, "hidden/SKILL.md", "control-character"),
        "error",
        3,
        Some(14),
        &[],
    );
    let render = render(&root);
    check_good(&diags, &render);
    assert_eq!(ids(&render), ["good", "hidden"]);
}

/// A directory description is capped at 1,024 bytes, at a character
/// boundary, ending in `…`, and is a prefix of the real one.
fn check_capped(shown: &Value, full: &str) {
    let text = shown["description"].as_str().unwrap();
    assert!(text.len() <= 1024, "{} bytes: {text}", text.len());
    assert!(text.ends_with('…'), "{text}");
    let head = text.trim_end_matches('…');
    assert!(
        !head.is_empty() && full.starts_with(head),
        "not a prefix of the description: {text}"
    );
    assert_eq!(shown["shortened"], true, "{shown:#}");
}

fn description_in_file(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("description: "))
        .unwrap();
    line.to_string()
}

#[test]
fn description_of_1100_characters_is_too_long() {
    let root = fixture("bad/description-too-long");
    let full = description_in_file(&root.join("wordy/SKILL.md"));
    assert_eq!(full.chars().count(), 1100, "fixture precondition");
    let (run, diags) = lint(&root, "spec");
    let d = only(&diags, "wordy/SKILL.md", "description-too-long");
    check(
        d,
        "error",
        3,
        Some(14),
        &["1,100 characters", "1,024", "shorten"],
    );
    assert_eq!(run.code, 1);
    let render = render(&root);
    check_good(&diags, &render);
    check_capped(skill(&render, "wordy"), &full);
}

#[test]
fn description_limit_counts_characters_not_bytes() {
    let root = fixture("bad/description-multibyte");
    let long = description_in_file(&root.join("zh-long/SKILL.md"));
    let ok = description_in_file(&root.join("zh-ok/SKILL.md"));
    assert_eq!((long.chars().count(), long.len()), (1100, 3300));
    assert_eq!((ok.chars().count(), ok.len()), (600, 1800));
    let (run, diags) = lint(&root, "spec");
    let d = only(&diags, "zh-long/SKILL.md", "description-too-long");
    check(d, "error", 3, Some(14), &["1,100 characters"]);
    // 600 characters are within the limit, however many bytes they take.
    assert!(about(&diags, "zh-ok/SKILL.md").is_empty(), "{diags:#?}");
    assert_eq!(run.code, 1);
    let render = render(&root);
    check_good(&diags, &render);
    check_capped(skill(&render, "zh-long"), &long);
    check_capped(skill(&render, "zh-ok"), &ok);
}

#[test]
fn unknown_keys_by_profile_and_values_kept() {
    let root = fixture("bad/unknown-keys");
    let file = "extra-keys/SKILL.md";

    let (run, diags) = lint(&root, "spec");
    let found = about(&diags, file);
    assert_eq!(found.len(), 2, "{diags:#?}");
    for (d, (key, line)) in found.iter().zip([("`foo`", 4), ("`tags`", 5)]) {
        assert_eq!(d["code"], "unknown-key");
        check(d, "warning", line, None, &[key, "metadata:"]);
    }
    assert_eq!(run.code, 0);

    let (run, diags) = lint(&root, "strict");
    let codes: Vec<(&str, &str)> = about(&diags, file)
        .iter()
        .map(|d| (d["code"].as_str().unwrap(), d["severity"].as_str().unwrap()))
        .collect();
    assert_eq!(codes, [("unknown-key", "error"), ("unknown-key", "error")]);
    assert_eq!(run.code, 1);

    let (run, diags) = lint(&root, "lenient");
    assert!(about(&diags, file).is_empty(), "{diags:#?}");
    assert_eq!(run.code, 0);

    let render = render(&root);
    check_good(&diags, &render);
    let detail = show(&root, "extra-keys");
    assert_eq!(detail["skill"]["extra"]["foo"], "bar");
    assert_eq!(
        detail["skill"]["extra"]["tags"],
        serde_json::json!(["alpha", "beta"])
    );
}

#[test]
fn multi_line_descriptions_render_on_one_line() {
    let root = fixture("bad/multiline-description");
    let (run, diags) = lint(&root, "spec");
    assert!(diags.is_empty(), "{diags:#?}");
    assert_eq!(run.code, 0);
    let render = render(&root);
    check_good(&diags, &render);
    let markdown = render_markdown(&root);
    for (id, kind) in [
        ("literal", "Literal block"),
        ("folded", "Folded block"),
        ("plain", "Plain scalar"),
    ] {
        let expected = format!("{kind} first line. {kind} second line. Use when testing.");
        assert_eq!(skill(&render, id)["description"], expected.as_str());
        let line = format!("- {id}: {expected} [{id}/SKILL.md]");
        assert!(
            markdown.lines().any(|l| l == line),
            "missing line `{line}` in:\n{markdown}"
        );
    }
    assert!(
        markdown.lines().any(|l| l.starts_with("- good: ")),
        "{markdown}"
    );
}

// ---------------------------------------------------------------- bytes

#[test]
fn invalid_utf8_is_reported_at_the_first_bad_byte_and_loads() {
    let root = fixture("bad/invalid-utf8");
    let bytes = std::fs::read(root.join("latin1/SKILL.md")).unwrap();
    assert!(std::str::from_utf8(&bytes).is_err(), "fixture precondition");
    let (run, diags) = lint(&root, "spec");
    let d = only(&diags, "latin1/SKILL.md", "invalid-utf8");
    // `description: Caf\xE9` — the bad byte is the 17th character of line 3.
    check(d, "error", 3, Some(17), &["UTF-8", "re-save"]);
    assert_eq!(run.code, 1);
    let render = render(&root);
    check_good(&diags, &render);
    assert_eq!(
        skill(&render, "latin1")["description"],
        "Caf\u{FFFD} helper. Use when testing."
    );
}

#[test]
fn byte_order_mark_is_skipped() {
    let root = fixture("bad/bom");
    let bytes = std::fs::read(root.join("bom/SKILL.md")).unwrap();
    assert!(
        bytes.starts_with(b"\xEF\xBB\xBF---"),
        "fixture precondition"
    );
    let (run, diags) = lint(&root, "spec");
    assert!(diags.is_empty(), "{diags:#?}");
    assert_eq!(run.code, 0);
    let render = render(&root);
    check_good(&diags, &render);
    let bom = skill(&render, "bom");
    assert_eq!(bom["name"], "bom");
    assert_eq!(
        bom["description"],
        "Starts with a byte-order mark. Use when testing."
    );
}

#[test]
fn crlf_line_endings_load_without_carriage_returns() {
    let root = fixture("bad/crlf");
    for file in ["crlf/SKILL.md", "crlf-block/SKILL.md"] {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        assert!(
            text.contains("\r\n") && !text.replace("\r\n", "").contains('\n'),
            "fixture precondition: {file} must use CRLF only"
        );
    }
    let (run, diags) = lint(&root, "spec");
    assert!(diags.is_empty(), "{diags:#?}");
    assert_eq!(run.code, 0);
    let render = render(&root);
    check_good(&diags, &render);
    assert_eq!(skill(&render, "crlf")["name"], "crlf");
    assert_eq!(
        skill(&render, "crlf-block")["description"],
        "First line of a literal block. Second line. Use when testing."
    );
    let plain = show(&root, "crlf");
    assert_eq!(
        plain["skill"]["raw_description"],
        "Saved with Windows line endings. Use when testing."
    );
    let block = show(&root, "crlf-block");
    assert_eq!(
        block["skill"]["raw_description"],
        "First line of a literal block.\nSecond line. Use when testing.\n"
    );
}

#[test]
fn empty_file_is_reported_and_not_loaded() {
    let root = fixture("bad/empty-file");
    assert_eq!(
        std::fs::metadata(root.join("empty/SKILL.md"))
            .unwrap()
            .len(),
        0
    );
    let (run, diags) = lint(&root, "spec");
    let d = only(&diags, "empty/SKILL.md", "frontmatter-missing");
    check(d, "error", 1, Some(1), &["empty", "start it with `---`"]);
    assert_eq!(run.code, 1);
    let render = render(&root);
    check_good(&diags, &render);
    assert_eq!(ids(&render), ["good"]);
}

#[test]
fn five_megabyte_skill_file_is_reported_but_its_header_loads() {
    let (_temp, root) = copy_fixture("bad/huge-file");
    let path = root.join("huge/SKILL.md");
    let mut text = std::fs::read_to_string(&path).unwrap();
    let line = "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod.\n";
    while text.len() < 5 * 1024 * 1024 {
        text.push_str(line);
    }
    std::fs::write(&path, &text).unwrap();
    let size = text.len().to_string();

    let (run, diags) = lint(&root, "spec");
    let found = about(&diags, "huge/SKILL.md");
    let d = found
        .iter()
        .find(|d| d["code"] == "file-too-large")
        .unwrap_or_else(|| panic!("no file-too-large: {diags:#?}"));
    check(
        d,
        "error",
        1,
        Some(1),
        &[
            "--max-file-bytes",
            "read only its head",
            "split the body into reference files",
        ],
    );
    let message = d["message"].as_str().unwrap();
    let digits: String = message.chars().filter(|c| c.is_ascii_digit()).collect();
    assert!(
        digits.contains(&size),
        "message must give the size: {message}"
    );
    // Nothing about the header: it was read and is fine.
    for d in &found {
        assert!(
            ["file-too-large", "body-too-long"].contains(&d["code"].as_str().unwrap()),
            "{d:#}"
        );
    }
    assert_eq!(run.code, 1);
    assert_eq!(summary_skills(&run), 2);
    let render = render(&root);
    check_good(&diags, &render);
    assert_eq!(
        skill(&render, "huge")["description"],
        "A very large skill file. Use when testing size limits."
    );
}

// ---------------------------------------------------------------- filesystem

#[cfg(unix)]
#[test]
fn symlink_loop_is_reported_without_hanging() {
    let (_temp, root) = copy_fixture("bad/symlink-loop");
    // loop/up -> .. : back to the root, an ancestor of the link.
    std::os::unix::fs::symlink("..", root.join("loop/up")).unwrap();
    let (run, diags) = lint(&root, "spec");
    let d = only(&diags, "loop/up", "symlink-loop");
    check(d, "warning", 1, Some(1), &["loop", "remove the link"]);
    assert_eq!(run.code, 0);
    let render = render(&root);
    check_good(&diags, &render);
    // Each skill once: nothing was reached again through the loop.
    assert_eq!(ids(&render), ["good", "loop"]);
    assert_eq!(skill(&render, "loop")["path"], "loop/SKILL.md");
}

#[cfg(unix)]
#[test]
fn symlink_to_a_skill_outside_the_root_is_followed_with_a_note() {
    let (_temp, copy) = copy_fixture("bad/symlink-outside");
    let root = copy.join("root");
    let outside = copy.join("outside/external");
    std::os::unix::fs::symlink(&outside, root.join("external")).unwrap();
    let (run, diags) = lint(&root, "spec");
    let d = only(&diags, "root/external", "symlink-outside-root");
    let target = outside.canonicalize().unwrap();
    check(d, "info", 1, Some(1), &[s(&target), "followed"]);
    assert!(about(&diags, "external/SKILL.md").is_empty(), "{diags:#?}");
    assert_eq!(run.code, 0);
    let render = render(&root);
    check_good(&diags, &render);
    assert_eq!(skill(&render, "external")["path"], "external/SKILL.md");
    assert_eq!(ids(&render), ["external", "good"]);
}

#[cfg(unix)]
#[test]
fn dangling_symlinks_are_warnings_naming_the_target() {
    let (_temp, root) = copy_fixture("bad/dangling-symlink");
    std::os::unix::fs::symlink("missing-skill-folder", root.join("ghost")).unwrap();
    std::fs::create_dir(root.join("broken")).unwrap();
    std::os::unix::fs::symlink("missing.md", root.join("broken/SKILL.md")).unwrap();
    let (run, diags) = lint(&root, "spec");
    let ghost = only(&diags, "ghost", "dangling-symlink");
    check(
        ghost,
        "warning",
        1,
        Some(1),
        &["missing-skill-folder", "fix or delete"],
    );
    let broken = only(&diags, "broken/SKILL.md", "dangling-symlink");
    check(
        broken,
        "warning",
        1,
        Some(1),
        &["missing.md", "fix or delete"],
    );
    assert_eq!(run.code, 0);
    let render = render(&root);
    check_good(&diags, &render);
    assert_eq!(ids(&render), ["good"]);
}

#[cfg(unix)]
#[test]
fn fifo_named_skill_md_is_not_a_file_and_does_not_hang() {
    let (_temp, root) = copy_fixture("bad/unreadable");
    std::fs::create_dir(root.join("fifo")).unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(root.join("fifo/SKILL.md"))
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
    let (run, diags) = lint(&root, "spec");
    let d = only(&diags, "fifo/SKILL.md", "not-a-file");
    check(
        d,
        "error",
        1,
        Some(1),
        &["not a regular file", "replace it"],
    );
    assert_eq!(run.code, 1);
    let render = render(&root);
    check_good(&diags, &render);
    assert_eq!(ids(&render), ["good"]);
}

#[test]
fn directory_named_skill_md_is_not_a_file() {
    let (_temp, root) = copy_fixture("bad/unreadable");
    write(&root, "folder/SKILL.md/notes.md", "# Notes\n");
    let (run, diags) = lint(&root, "spec");
    // A folder that looks like a skill but cannot load must be explained,
    // not skipped in silence.
    let d = only(&diags, "folder/SKILL.md", "not-a-file");
    check(d, "error", 1, Some(1), &["not a regular file"]);
    assert_eq!(run.code, 1);
    let render = render(&root);
    check_good(&diags, &render);
    assert_eq!(ids(&render), ["good"]);
}

#[cfg(unix)]
#[test]
fn unreadable_skill_file_is_read_failed() {
    use std::os::unix::fs::PermissionsExt;
    let (_temp, root) = copy_fixture("bad/unreadable");
    let path = write(
        &root,
        "locked/SKILL.md",
        skill_md("locked", "Cannot be read. Use when testing permissions."),
    );
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o000)).unwrap();
    // Root (and CAP_DAC_OVERRIDE) reads through mode 000; the FIFO and
    // folder tests cover unreadable files there.
    let readable = std::fs::read(&path).is_ok();
    let (run, diags) = lint(&root, "spec");
    let render = render(&root);
    check_good(&diags, &render);
    if readable {
        assert!(about(&diags, "locked/SKILL.md").is_empty(), "{diags:#?}");
        assert_eq!(run.code, 0);
        assert_eq!(ids(&render), ["good", "locked"]);
    } else {
        let d = only(&diags, "locked/SKILL.md", "read-failed");
        check(d, "error", 1, Some(1), &["check its permissions"]);
        assert_eq!(run.code, 1);
        assert_eq!(ids(&render), ["good"]);
    }
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
}

// ---------------------------------------------------------------- catalog

#[test]
fn duplicate_names_shallower_path_wins() {
    let root = fixture("bad/duplicate-names");
    let (run, diags) = lint(&root, "spec");
    assert!(about(&diags, "pdf/SKILL.md")
        .iter()
        .all(|d| Path::new(d["path"].as_str().unwrap()).ends_with("vendor/pdf/SKILL.md")));
    let d = only(&diags, "vendor/pdf/SKILL.md", "name-shadowed");
    let winner = root.join("pdf/SKILL.md");
    check(
        d,
        "warning",
        2,
        Some(7),
        &[s(&winner), "`vendor/pdf`", "rename"],
    );
    assert_eq!(run.code, 0);
    let render = render(&root);
    check_good(&diags, &render);
    assert_eq!(ids(&render), ["good", "pdf", "vendor/pdf"]);
    assert_eq!(skill(&render, "pdf")["path"], "pdf/SKILL.md");
    let loser = skill(&render, "vendor/pdf");
    assert_eq!(loser["path"], "vendor/pdf/SKILL.md");
    assert_eq!(loser["namespace"], "vendor");
    assert_eq!(loser["name"], "pdf");
}

#[test]
fn duplicate_names_across_roots_first_root_wins() {
    let base = fixture("bad/duplicate-roots");
    let first = base.join("first");
    let second = base.join("second");
    // The first root's `pdf` is deeper, and still wins: roots come first.
    for (roots, winner, loser) in [
        (
            [&first, &second],
            "first/docs/pdf/SKILL.md",
            "second/pdf/SKILL.md",
        ),
        (
            [&second, &first],
            "second/pdf/SKILL.md",
            "first/docs/pdf/SKILL.md",
        ),
    ] {
        let roots = [roots[0].as_path(), roots[1].as_path()];
        let (run, diags) = lint_roots(&base, &roots, "spec");
        let d = only(&diags, loser, "name-shadowed");
        check(d, "warning", 2, Some(7), &[s(&base.join(winner)), "rename"]);
        assert!(about(&diags, winner).is_empty(), "{diags:#?}");
        assert_eq!(run.code, 0);
        let render = render_roots(&base, &roots);
        assert_eq!(skill(&render, "pdf")["path"], winner);
        let listed: Vec<&Value> = render["skills"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["name"] == "pdf")
            .collect();
        assert_eq!(listed.len(), 2, "both stay in the directory");
        let shadowed = listed.iter().find(|s| s["path"] == loser).unwrap();
        assert_ne!(shadowed["id"], "pdf");
        assert!(d["message"]
            .as_str()
            .unwrap()
            .contains(&format!("`{}`", shadowed["id"].as_str().unwrap())));
        assert_eq!(skill(&render, "good")["path"], "first/good/SKILL.md");
    }
}

#[test]
fn nested_skill_loads_in_the_parent_folders_namespace() {
    let root = fixture("bad/nested-skill");
    let (run, diags) = lint(&root, "spec");
    assert!(diags.is_empty(), "{diags:#?}");
    assert_eq!(run.code, 0);
    let render = render(&root);
    check_good(&diags, &render);
    assert_eq!(ids(&render), ["good", "inner", "outer"]);
    assert_eq!(skill(&render, "outer")["namespace"], "tools");
    let inner = skill(&render, "inner");
    assert_eq!(inner["namespace"], "tools/outer");
    assert_eq!(inner["path"], "tools/outer/inner/SKILL.md");
    let namespace = render["namespaces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == "tools/outer")
        .expect("namespace tools/outer");
    assert_eq!(
        namespace["description"],
        "Skills nested inside the outer skill."
    );
}

#[test]
fn skills_under_hidden_folders_are_found() {
    let root = fixture("bad/hidden-folders");
    let (run, diags) = lint(&root, "spec");
    assert!(diags.is_empty(), "{diags:#?}");
    assert_eq!(run.code, 0);
    assert_eq!(summary_skills(&run), 3);
    let render = render(&root);
    check_good(&diags, &render);
    assert_eq!(ids(&render), ["good", "x", "y"]);
    assert_eq!(skill(&render, "x")["namespace"], ".curated");
    assert_eq!(skill(&render, "x")["path"], ".curated/x/SKILL.md");
    assert_eq!(skill(&render, "y")["namespace"], ".github/skills");
    assert_eq!(skill(&render, "y")["path"], ".github/skills/y/SKILL.md");
}

// ---------------------------------------------------------------- profiles

#[test]
fn lenient_profile_downgrades_format_rules_but_not_load_failures() {
    let root = fixture("bad/name-uppercase");
    let (run, diags) = lint(&root, "lenient");
    let d = only(&diags, "PDF-Tools/SKILL.md", "name-invalid");
    check(d, "warning", 2, Some(7), &["set `name: pdf-tools`"]);
    assert_eq!(run.code, 0);
    assert_eq!(summary_skills(&run), 2);

    let (run, diags) = lint(&root, "strict");
    let d = only(&diags, "PDF-Tools/SKILL.md", "name-invalid");
    assert_eq!(d["severity"], "error");
    assert_eq!(run.code, 1);

    // What stops a skill from loading is an error in every profile.
    let root = fixture("bad/missing-frontmatter");
    let (run, diags) = lint(&root, "lenient");
    let d = only(&diags, "no-header/SKILL.md", "frontmatter-missing");
    assert_eq!(d["severity"], "error");
    assert_eq!(run.code, 1);
}

#[test]
fn strict_profile_adds_the_hosted_rules() {
    let root = fixture("bad/strict-only");
    let (run, diags) = lint(&root, "spec");
    assert!(diags.is_empty(), "{diags:#?}");
    assert_eq!(run.code, 0);

    let (run, diags) = lint(&root, "strict");
    let d = only(&diags, "claude-helper/SKILL.md", "name-reserved-word");
    check(d, "error", 2, Some(7), &["`claude`", "choose another name"]);
    assert_eq!(run.code, 1);
    assert_eq!(summary_skills(&run), 2);

    let (run, diags) = lint(&root, "lenient");
    assert!(diags.is_empty(), "{diags:#?}");
    assert_eq!(run.code, 0);

    let render = render(&root);
    check_good(&diags, &render);
    assert_eq!(
        skill(&render, "claude-helper")["path"],
        "claude-helper/SKILL.md"
    );
}

#[cfg(unix)]
#[test]
fn two_links_to_one_skill_keep_the_one_named_like_the_skill() {
    let temp = tempfile::tempdir().unwrap();
    let outside = temp.path().join("outside/ext-skill");
    write(
        &outside,
        "SKILL.md",
        skill_md("ext-skill", "An external skill."),
    );
    let root = temp.path().join("root");
    std::fs::create_dir_all(&root).unwrap();
    // `ext-again` sorts first, but only `ext-skill` carries the name.
    std::os::unix::fs::symlink(&outside, root.join("ext-again")).unwrap();
    std::os::unix::fs::symlink(&outside, root.join("ext-skill")).unwrap();
    let (run, diags) = lint(&root, "spec");
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        !diags.iter().any(|d| d["code"] == "name-mismatch"),
        "{diags:#?}"
    );
    let render = render(&root);
    assert_eq!(ids(&render), ["ext-skill"]);
    assert_eq!(skill(&render, "ext-skill")["path"], "ext-skill/SKILL.md");
}

#[test]
fn an_empty_name_is_called_empty_where_it_is_written() {
    let temp = tempfile::tempdir().unwrap();
    write(
        temp.path(),
        "blank/SKILL.md",
        "---\nname: \"\"\ndescription: Does a thing. Use when a thing is needed.\n---\nBody\n",
    );
    let (_, diags) = lint(temp.path(), "spec");
    let d = only(&diags, "blank/SKILL.md", "name-missing");
    check(d, "error", 2, Some(7), &["`name` is empty", "name: blank"]);
}

#[cfg(unix)]
#[test]
fn a_shadowed_lowercase_file_does_not_hide_another_path_to_it() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path();
    write(root, "a/SKILL.md", skill_md("a", "The upper-case one."));
    write(root, "a/skill.md", skill_md("b", "The lower-case one."));
    std::fs::create_dir_all(root.join("b")).unwrap();
    // `b/skill.md` is the same file as `a/skill.md`, which `a/SKILL.md`
    // shadows: through `b` it still loads.
    std::os::unix::fs::symlink(root.join("a/skill.md"), root.join("b/skill.md")).unwrap();
    let render = render(root);
    assert_eq!(ids(&render), ["a", "b"]);
}

#[test]
fn front_matter_closing_past_the_head_is_too_large_not_unclosed() {
    let temp = tempfile::tempdir().unwrap();
    let filler = "x: ".to_string() + &"a".repeat(100) + "\n";
    let text = format!(
        "---\nname: big\ndescription: Big. Use when big.\n{}---\n\n# Big\n",
        filler.repeat(800)
    );
    assert!(text.len() > 80_000);
    write(temp.path(), "big/SKILL.md", text);
    let (_, diags) = lint(temp.path(), "spec");
    assert_eq!(
        codes_for(&diags, "big/SKILL.md"),
        ["frontmatter-too-large"],
        "{diags:#?}"
    );
}

/// A skill file past the size a scan reads for its header (72 KiB) but
/// under the file limit is checked whole by `lint`: its links, its UTF-8
/// and its length, as a small one is.
#[test]
fn lint_checks_the_whole_body_of_a_large_skill_file() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("root");
    let mut text = b"---\nname: big\ndescription: Large. Use when testing lint.\n---\n# Big\n\nSee [missing](references/missing.md).\n\n".to_vec();
    for _ in 0..2000 {
        text.extend_from_slice(b"Plain prose line for the body of this skill.\n");
    }
    text.extend_from_slice(b"bad byte here: \xff\nAlso see [gone](../../escape.md).\n");
    assert!(text.len() > 80 * 1024);
    write(&root, "big/SKILL.md", &text);
    let (run, diagnostics) = lint(&root, "spec");
    let codes: Vec<(&str, u64)> = diagnostics
        .iter()
        .map(|d| (d["code"].as_str().unwrap(), d["line"].as_u64().unwrap()))
        .collect();
    for expected in [
        ("body-too-long", 5),
        ("link-broken", 7),
        ("invalid-utf8", 2009),
        ("link-escapes", 2010),
    ] {
        assert!(
            codes.contains(&expected),
            "{expected:?} in {codes:?}\n{run:?}"
        );
    }
    assert_eq!(run.code, 1, "{run:?}");
}

/// A namespace file whose front matter is broken YAML is reported where it
/// breaks (the namespace falls back to its default description); one that
/// opens with a `---` rule, or describes its namespace, is not.
#[test]
fn a_broken_namespace_file_is_reported_where_it_breaks() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("root");
    write(&root, "docs/a/SKILL.md", skill_md("a", "Use when testing."));
    write(&root, "docs/README.md", "---\ndescription: \"broken\n---\n");
    write(
        &root,
        "rules/b/SKILL.md",
        skill_md("b", "Use when testing."),
    );
    write(
        &root,
        "rules/README.md",
        "---\n\nJust a rule.\n\n---\ntext\n",
    );
    write(
        &root,
        "tables/t/SKILL.md",
        skill_md("t", "Use when testing."),
    );
    write(
        &root,
        "tables/README.md",
        "---\n\n| Skill | Use |\n|---|---|\n| t | stuff |\n\n---\n\nMore text\n",
    );
    write(
        &root,
        "prose/p/SKILL.md",
        skill_md("p", "Use when testing."),
    );
    write(
        &root,
        "prose/README.md",
        "---\nWarning: do not edit.\nThese skills are generated.\n---\n",
    );
    write(
        &root,
        "spaced/q/SKILL.md",
        skill_md("q", "Use when testing."),
    );
    write(
        &root,
        "spaced/README.md",
        "---\ndescription : Spaced things.\n---\n",
    );
    write(&root, "good/c/SKILL.md", skill_md("c", "Use when testing."));
    write(
        &root,
        "good/index.md",
        "---\ndescription: Good things.\n---\n",
    );
    let (run, diagnostics) = lint(&root, "spec");
    let found: Vec<(String, u64, u64, &str)> = diagnostics
        .iter()
        .map(|d| {
            (
                d["path"].as_str().unwrap().replace('\\', "/"),
                d["line"].as_u64().unwrap(),
                d["column"].as_u64().unwrap(),
                d["code"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(found.len(), 1, "{found:?}\n{run:?}");
    assert!(found[0].0.ends_with("docs/README.md"), "{found:?}");
    assert_eq!(
        (found[0].1, found[0].2, found[0].3),
        (2, 14, "namespace-file-invalid")
    );
    assert!(diagnostics[0]["message"]
        .as_str()
        .unwrap()
        .contains("close the quote"));
    let list = run_in(&root, &["list", "--root", s(&root)]);
    assert!(
        list.stdout.contains("Skills in the docs namespace."),
        "{list:?}"
    );
    assert!(list.stdout.contains("Good things."), "{list:?}");
    assert!(list.stdout.contains("Spaced things."), "{list:?}");
}

/// Links that lead round in a circle are called loops, not missing targets.
#[cfg(unix)]
#[test]
fn a_circle_of_links_is_a_loop_not_a_dangling_link() {
    use std::os::unix::fs::symlink;
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("root");
    write(&root, "a/SKILL.md", skill_md("a", "Use when testing."));
    symlink("loop1", root.join("loop2")).unwrap();
    symlink("loop2", root.join("loop1")).unwrap();
    symlink("nowhere", root.join("dang")).unwrap();
    let (run, diagnostics) = lint(&root, "spec");
    let codes: Vec<(String, &str)> = diagnostics
        .iter()
        .map(|d| {
            let path = d["path"].as_str().unwrap();
            let name = path.rsplit('/').next().unwrap().to_string();
            (name, d["code"].as_str().unwrap())
        })
        .collect();
    assert_eq!(
        codes,
        [
            ("dang".to_string(), "dangling-symlink"),
            ("loop1".to_string(), "symlink-loop"),
            ("loop2".to_string(), "symlink-loop")
        ],
        "{run:?}"
    );
}

/// A closed stderr loses the messages, never the run: the exit code is
/// the command's, not a panic's.
#[cfg(unix)]
#[test]
fn a_closed_stderr_is_not_a_crash() {
    let bin = env!("CARGO_BIN_EXE_skilldex");
    let skills = repo().join("skills");
    for (args, code) in [
        (format!("list --root {}", skills.display()), 0),
        ("list --root /nonexistent/skilldex".to_string(), 2),
        (format!("read no-such-skill --root {}", skills.display()), 1),
    ] {
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("{bin} {args} 2>&- >/dev/null"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(code), "{args}: {out:?}");
    }
}

#[cfg(unix)]
#[test]
fn a_pipe_named_gitignore_is_not_read_and_does_not_hang() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path();
    write(root, "a/SKILL.md", skill_md("a", "A. Use when testing."));
    let made = std::process::Command::new("mkfifo")
        .arg(root.join(".gitignore"))
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let run = run_bounded(root, &["read", "a", "--root", s(root)]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("Do the thing."), "{run:?}");
}

#[cfg(unix)]
#[test]
fn a_json_read_of_a_folder_whose_name_is_not_utf8_is_answered() {
    use std::os::unix::ffi::OsStrExt;
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path();
    let folder = root.join(std::ffi::OsStr::from_bytes(b"caf\xe9"));
    std::fs::create_dir(&folder).unwrap();
    std::fs::write(
        folder.join("SKILL.md"),
        "---\nname: cafe\ndescription: Coffee. Use when testing.\n---\n\nBody.\n",
    )
    .unwrap();
    let run = run_bounded(root, &["read", "cafe", "--json", "--root", s(root)]);
    assert_eq!(run.code, 0, "{run:?}");
    let json = run.json();
    assert_eq!(json["content"], "\nBody.\n", "{json}");
    assert!(
        json["folder"].as_str().unwrap().contains('\u{fffd}'),
        "{json}"
    );
}

#[cfg(unix)]
#[test]
fn a_symlinked_folder_at_the_depth_limit_is_reported_like_a_folder() {
    let temp = tempfile::tempdir().unwrap();
    let (root, elsewhere) = (temp.path().join("root"), temp.path().join("elsewhere"));
    write(
        &root,
        "top/SKILL.md",
        skill_md("top", "Top. Use when testing."),
    );
    write(
        &elsewhere,
        "deep/SKILL.md",
        skill_md("deep", "Deep. Use when testing."),
    );
    std::fs::create_dir_all(root.join("a")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, root.join("a/link")).unwrap();
    let run = run_bounded(
        &root,
        &[
            "lint",
            "--format",
            "json",
            "--max-depth",
            "2",
            "--root",
            s(&root),
        ],
    );
    let json = run.json();
    let cut: Vec<&Value> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "walk-limit")
        .collect();
    assert_eq!(cut.len(), 1, "{json}");
    assert!(
        cut[0]["path"].as_str().unwrap().ends_with("a/link"),
        "{json}"
    );
    // Deep enough, the link is followed and its skill found.
    let run = run_bounded(
        &root,
        &["read", "deep", "--max-depth", "4", "--root", s(&root)],
    );
    assert_eq!(run.code, 0, "{run:?}");
}

#[test]
fn a_very_long_path_after_a_name_is_answered_promptly() {
    // Each part of the path used to be checked for ignore rules from the
    // top again: 1,000 parts took 21 s. The hang guard stops the run.
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("skills");
    write(
        &root,
        "tool/SKILL.md",
        skill_md("tool", "A tool. Use when testing."),
    );
    // Under the system's longest path (4,096 bytes): looked up, not there.
    let target = format!("tool/{}", vec!["x"; 2000].join("/"));
    let run = run_bounded(temp.path(), &["read", &target, "--root", s(&root)]);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(run.stderr.contains("has no file"), "{run:?}");
    // Past it: refused at once, saying how long it may be.
    let target = format!("tool/{}", vec!["tool"; 20_000].join("/"));
    let run = run_bounded(temp.path(), &["read", &target, "--root", s(&root)]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("at most 4096"), "{run:?}");
}
