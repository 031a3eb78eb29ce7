//! `skilldex link`: the catalog laid out in a host's own skills folder as
//! its loader reads it (`<dir>/<name>/SKILL.md`), links only, nothing of
//! anyone else's touched; a link whose skill file breaks is held, not removed.

use super::{run_in, skill_md, write};
use std::path::Path;

/// What Claude Code's loader sees in `dir`: the names of the folders (or
/// links to folders) that hold a `SKILL.md`, with the name it declares.
fn loaded(dir: &Path) -> Vec<(String, String)> {
    let mut found: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| {
            let e = e.unwrap();
            let text = std::fs::read_to_string(e.path().join("SKILL.md")).ok()?;
            let name = text
                .lines()
                .find_map(|l| l.strip_prefix("name: "))?
                .to_string();
            Some((e.file_name().to_string_lossy().into_owned(), name))
        })
        .collect();
    found.sort();
    found
}

#[cfg(unix)]
#[test]
fn link_lays_the_catalog_out_flat_and_touches_nothing_else() {
    let temp = tempfile::tempdir().unwrap();
    let project = temp.path();
    let root = project.join("catalog");
    // Namespaces, a nested skill, and one name in two namespaces.
    write(
        &root,
        "dev/review/SKILL.md",
        skill_md("review", "Reviews. Use when reviewing."),
    );
    write(
        &root,
        "docs/pdf/SKILL.md",
        skill_md("pdf", "PDFs. Use when reading PDFs."),
    );
    write(
        &root,
        "docs/pdf/forms/SKILL.md",
        skill_md("forms", "Forms. Use when filling forms."),
    );
    write(
        &root,
        "ops/deploy/SKILL.md",
        skill_md("deploy", "Deploys. Use when deploying."),
    );
    write(
        &root,
        "zz/review/SKILL.md",
        skill_md("review", "Another review. Use when reviewing."),
    );
    let dir = project.join(".claude/skills");
    // Someone else's folder and link are there already.
    write(
        &dir,
        "deploy/SKILL.md",
        skill_md("deploy", "Their own deploy. Use when deploying."),
    );
    std::fs::create_dir_all(project.join("elsewhere")).unwrap();
    std::os::unix::fs::symlink(project.join("elsewhere"), dir.join("theirs")).unwrap();
    let root_s = root.to_str().unwrap();
    let args = ["link", "--host", "claude", "--root", root_s];

    // A dry run says what it would do and changes nothing.
    let dry = run_in(project, &[&args[..], &["--dry-run"]].concat());
    assert_eq!(dry.code, 1, "a clash is a finding: {dry:?}");
    assert!(dry.stdout.contains("would link pdf -> "), "{dry:?}");
    assert_eq!(loaded(&dir), [("deploy".to_string(), "deploy".to_string())]);
    assert!(!dir.join(".skilldex-links.json").exists());

    let first = run_in(project, &args);
    assert_eq!(first.code, 1, "{first:?}");
    // Flat names, nested skills too; the first `review` wins, the other
    // is reported; the folder that was there stays as it was.
    assert_eq!(
        loaded(&dir),
        [
            ("deploy".to_string(), "deploy".to_string()),
            ("forms".to_string(), "forms".to_string()),
            ("pdf".to_string(), "pdf".to_string()),
            ("review".to_string(), "review".to_string()),
        ]
    );
    let review = std::fs::read_link(dir.join("review")).unwrap();
    assert!(review.ends_with("catalog/dev/review"), "{review:?}");
    assert!(
        first.stdout.contains("skipped  review (") && first.stdout.contains("the name is taken by"),
        "{first:?}"
    );
    assert!(
        first.stdout.contains("skipped  deploy (")
            && first.stdout.contains("not a link skilldex made"),
        "{first:?}"
    );
    assert!(std::fs::read_to_string(dir.join("deploy/SKILL.md"))
        .unwrap()
        .contains("Their own deploy"));
    assert_eq!(
        std::fs::read_link(dir.join("theirs")).unwrap(),
        project.join("elsewhere")
    );

    // Again: nothing changes, byte for byte.
    let record = std::fs::read(dir.join(".skilldex-links.json")).unwrap();
    let again = run_in(project, &args);
    assert!(!again.stdout.contains("linked"), "{again:?}");
    assert!(again.stderr.contains("0 changed"), "{again:?}");
    assert_eq!(
        std::fs::read(dir.join(".skilldex-links.json")).unwrap(),
        record
    );

    // A skill removed: its link goes, nothing else does.
    std::fs::remove_dir_all(root.join("docs/pdf/forms")).unwrap();
    let after = run_in(project, &args);
    assert!(after.stdout.contains("removed  forms"), "{after:?}");
    assert!(std::fs::symlink_metadata(dir.join("forms")).is_err());
    assert!(dir.join("theirs").exists() && dir.join("deploy/SKILL.md").exists());
    assert_eq!(loaded(&dir).len(), 3);

    // JSON says the same, for scripts.
    let json = run_in(project, &[&args[..], &["--json", "--dry-run"]].concat()).json();
    let actions = json["actions"].as_array().unwrap();
    assert!(actions
        .iter()
        .any(|a| a["action"] == "keep" && a["name"] == "pdf"));
    assert_eq!(json["host"], "claude");
}

/// In a project whose default roots include the host's folder itself, the
/// links are not taken for more skills: a second run changes nothing and
/// reports no clash.
#[cfg(unix)]
#[test]
fn link_into_a_folder_that_is_also_a_root_stays_idempotent() {
    let temp = tempfile::tempdir().unwrap();
    let project = temp.path();
    write(
        project,
        "skills/dev/review/SKILL.md",
        skill_md("review", "Reviews. Use when reviewing."),
    );
    write(
        project,
        ".claude/skills/mine/SKILL.md",
        skill_md("mine", "Mine. Use when testing."),
    );
    let first = run_in(project, &["link", "--host", "claude"]);
    assert_eq!(first.code, 0, "{first:?}");
    let second = run_in(project, &["link", "--host", "claude"]);
    assert_eq!(second.code, 0, "{second:?}");
    assert!(
        second
            .stderr
            .contains("0 changed, 2 already in place, 0 skipped"),
        "{second:?}"
    );
    // Every host has its own folder.
    let codex = run_in(project, &["link", "--host", "codex", "--dry-run"]);
    assert!(codex.stderr.contains(".agents/skills"), "{codex:?}");
    // A broken record is an error at its place.
    std::fs::write(
        project.join(".claude/skills/.skilldex-links.json"),
        "{\n  \"links\": 3\n}\n",
    )
    .unwrap();
    let broken = run_in(project, &["link", "--host", "claude"]);
    assert_eq!(broken.code, 2, "{broken:?}");
    assert!(
        broken.stderr.contains(".skilldex-links.json:2:"),
        "{broken:?}"
    );
}

/// What a loader that reads nested folders (opencode's `**/SKILL.md`)
/// sees in `dir`: every `SKILL.md` below it, links followed, by the name
/// it declares — a name seen twice is a duplicate to the host.
fn loaded_recursively(dir: &Path) -> Vec<String> {
    fn walk(dir: &Path, names: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, names);
            } else if path.file_name().is_some_and(|n| n == "SKILL.md") {
                let text = std::fs::read_to_string(&path).unwrap();
                names.extend(
                    text.lines()
                        .find_map(|l| l.strip_prefix("name: "))
                        .map(String::from),
                );
            }
        }
    }
    let mut names = Vec::new();
    walk(dir, &mut names);
    names.sort();
    names
}

/// opencode reads skills nested in a skill's folder: a nested skill is
/// found through its parent's link, so it gets no link of its own (the
/// host would see it twice), and a link made before that is taken back.
/// Claude Code, which reads one level, still gets the nested skill linked.
#[cfg(unix)]
#[test]
fn link_for_a_host_that_reads_nested_skills_shows_each_skill_once() {
    let temp = tempfile::tempdir().unwrap();
    let project = temp.path();
    let root = project.join("catalog");
    write(
        &root,
        "docs/pdf/SKILL.md",
        skill_md("pdf", "PDFs. Use when reading PDFs."),
    );
    write(
        &root,
        "docs/pdf/forms/SKILL.md",
        skill_md("forms", "Forms. Use when filling forms."),
    );
    write(
        &root,
        "ops/deploy/SKILL.md",
        skill_md("deploy", "Deploys. Use when deploying."),
    );
    let root_s = root.to_str().unwrap();
    let dir = project.join(".opencode/skills");

    // A link for the nested skill, made as a host that reads one level.
    let dir_s = dir.to_str().unwrap();
    let flat = run_in(
        project,
        &["link", "--host", "claude", "--root", root_s, "--dir", dir_s],
    );
    assert_eq!(flat.code, 0, "{flat:?}");
    assert!(dir.join("forms").symlink_metadata().is_ok(), "{flat:?}");
    assert_eq!(
        loaded_recursively(&dir),
        ["deploy", "forms", "forms", "pdf"]
    );

    let args = ["link", "--host", "opencode", "--root", root_s];
    let first = run_in(project, &args);
    assert_eq!(first.code, 0, "{first:?}");
    assert!(
        first
            .stdout
            .contains("removed  forms (opencode finds it inside pdf"),
        "{first:?}"
    );
    assert!(dir.join("forms").symlink_metadata().is_err());
    assert_eq!(loaded_recursively(&dir), ["deploy", "forms", "pdf"]);

    // Again: nothing to do, and the JSON names where it is found.
    let again = run_in(project, &args);
    assert!(again.stderr.contains("0 changed"), "{again:?}");
    let json = run_in(project, &[&args[..], &["--json", "--dry-run"]].concat()).json();
    let actions = json["actions"].as_array().unwrap();
    assert!(
        actions
            .iter()
            .any(|a| a["action"] == "within" && a["name"] == "forms" && a["via"] == "pdf"),
        "{json}"
    );
}

/// A skill whose front matter breaks keeps its link (held, with where and
/// why), one that never loaded is named as not linked; fixed, both are as
/// before, and a skill really gone loses its link.
#[test]
fn a_link_whose_skill_file_breaks_is_held_not_removed() {
    let temp = tempfile::tempdir().unwrap();
    let project = temp.path();
    write(
        project,
        "skills/two/SKILL.md",
        skill_md("two", "Two. Use when testing."),
    );
    write(
        project,
        "skills/ok/SKILL.md",
        skill_md("ok", "Fine. Use when testing."),
    );
    let first = run_in(project, &["link", "--host", "claude"]);
    assert_eq!(first.code, 0, "{first:?}");
    let broken = "---\nname: two\ndescription: [unclosed\n---\n";
    write(project, "skills/two/SKILL.md", broken);
    write(
        project,
        "skills/three/SKILL.md",
        broken.replace("two", "three"),
    );
    let held = run_in(project, &["link", "--host", "claude"]);
    assert_eq!(held.code, 1, "{held:?}");
    assert!(
        held.stdout.contains("held     two: ")
            && held
                .stdout
                .contains("skills/two/SKILL.md:4:1: its skill file did not load"),
        "{held:?}"
    );
    assert!(
        held.stderr.contains(
            "skills/three/SKILL.md:4:1: this skill file did not load, so it is not linked"
        ),
        "{held:?}"
    );
    let dir = project.join(".claude/skills");
    assert!(dir.join("two").join("SKILL.md").is_file(), "{held:?}");
    let json = run_in(project, &["link", "--host", "claude", "--json"]);
    let answer: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let actions = answer["actions"].as_array().unwrap();
    assert!(
        actions
            .iter()
            .any(|a| a["action"] == "hold" && a["name"] == "two"),
        "{answer}"
    );
    assert_eq!(
        answer["not_loaded"].as_array().map(Vec::len),
        Some(1),
        "{answer}"
    );
    // A broken skill kept in the link folder itself is in place: not
    // reported as unlinked.
    write(
        project,
        ".claude/skills/mine/SKILL.md",
        "---\nname: mine\ndescription: [unclosed\n---\n",
    );
    let own = run_in(project, &["link", "--host", "claude"]);
    assert!(!own.stderr.contains("mine/SKILL.md"), "{own:?}");
    std::fs::remove_dir_all(project.join(".claude/skills/mine")).unwrap();
    // Fixed: the link was there all along.
    write(
        project,
        "skills/two/SKILL.md",
        skill_md("two", "Two. Use when testing."),
    );
    std::fs::remove_dir_all(project.join("skills/three")).unwrap();
    let fixed = run_in(project, &["link", "--host", "claude"]);
    assert_eq!(fixed.code, 0, "{fixed:?}");
    assert!(
        fixed
            .stderr
            .contains("0 changed, 2 already in place, 0 skipped"),
        "{fixed:?}"
    );
    // Gone for real: removed.
    std::fs::remove_dir_all(project.join("skills/two")).unwrap();
    let gone = run_in(project, &["link", "--host", "claude"]);
    assert!(gone.stdout.contains("removed  two"), "{gone:?}");
    assert!(!dir.join("two").exists(), "{gone:?}");
}
