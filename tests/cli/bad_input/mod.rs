//! Bad input: one fixture root per broken `SKILL.md` (always next to a good
//! sibling), checked through `lint --format json` and the JSON directory.
//!
//! Every test asserts the exact code, position, severity and hint of the
//! diagnostic about the bad file, whether the bad skill is still loaded, that
//! the good sibling is untouched, the exit code, and that nothing panicked.
//! Symlinks, FIFOs and huge files are made at test time in temp folders.

use super::*;
use serde_json::Value;

mod cases;

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

// ---------------------------------------------------------------- fields

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

// ---------------------------------------------------------------- bytes

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
    // shadows: through `b` it still loads. (A hard link: a symlinked
    // skill file leading out of its folder is refused, see hardening.)
    std::fs::hard_link(root.join("a/skill.md"), root.join("b/skill.md")).unwrap();
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
