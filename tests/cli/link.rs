//! `skilldex link`: the catalog laid out in a host's own skills folder as
//! its loader reads it (`<dir>/<name>/SKILL.md`), links only, nothing of
//! anyone else's touched.

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
