//! Discovery: default roots, precedence, ignore files, skipped folders,
//! bounds, symlinked files and folders.

use super::*;

fn ids(root: &Path, extra: &[&str]) -> Vec<String> {
    let mut args = vec![
        "render",
        "--format",
        "json",
        "--mode",
        "directory",
        "--root",
        root.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let out = run_in(root, &args);
    assert_eq!(out.code, 0, "{out:?}");
    let mut ids: Vec<String> = out.json()["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_string())
        .collect();
    ids.sort();
    ids
}

#[test]
fn default_roots_are_found_from_the_current_folder_and_home() {
    let project = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    write(
        project.path(),
        ".claude/skills/alpha/SKILL.md",
        skill_md("alpha", "A. Use when a."),
    );
    write(
        project.path(),
        ".agents/skills/beta/SKILL.md",
        skill_md("beta", "B. Use when b."),
    );
    write(
        home.path(),
        ".claude/skills/gamma/SKILL.md",
        skill_md("gamma", "G. Use when g."),
    );
    // The project's copy of `gamma` wins over the user's.
    write(
        project.path(),
        "skills/gamma/SKILL.md",
        skill_md("gamma", "Project G. Use when g."),
    );
    let out = finish(
        skilldex()
            .current_dir(project.path())
            .env("HOME", home.path())
            .args(["render", "--format", "json", "--paths", "relative"])
            .output()
            .unwrap(),
    );
    assert_eq!(out.code, 0, "{out:?}");
    let json = out.json();
    let skills = json["skills"].as_array().unwrap();
    let find = |id: &str| skills.iter().find(|s| s["id"] == id).cloned();
    assert!(find("alpha").is_some() && find("beta").is_some(), "{json}");
    assert_eq!(
        find("gamma").unwrap()["description"],
        "Project G. Use when g."
    );
    // The user's gamma is still reachable under a qualified id.
    assert!(
        skills
            .iter()
            .any(|s| s["name"] == "gamma" && s["id"] != "gamma"),
        "{json}"
    );

    let none = tempfile::tempdir().unwrap();
    let out = finish(
        skilldex()
            .current_dir(none.path())
            .env("HOME", none.path())
            .args(["render"])
            .output()
            .unwrap(),
    );
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr.contains("no skill folders found") && out.stderr.contains("--root"),
        "{out:?}"
    );
}

#[test]
fn skilldex_roots_env_is_used_when_no_flag_is_given() {
    let a = tempfile::tempdir().unwrap();
    write(
        a.path(),
        "one/SKILL.md",
        skill_md("one", "One. Use when one."),
    );
    let out = finish(
        skilldex()
            .env("SKILLDEX_ROOTS", a.path())
            .args(["list", "--json"])
            .output()
            .unwrap(),
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.json()["skills"][0]["id"], "one");
}

#[test]
fn ignore_files_and_build_folders_are_respected() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path();
    write(
        root,
        "keep/SKILL.md",
        skill_md("keep", "Keep. Use when keeping."),
    );
    write(
        root,
        "drafts/wip/SKILL.md",
        skill_md("wip", "Draft. Use when drafting."),
    );
    write(root, ".gitignore", "drafts/\n");
    write(
        root,
        "node_modules/pkg/dep/SKILL.md",
        skill_md("dep", "Dep. Use when dep."),
    );
    write(
        root,
        "target/gen/SKILL.md",
        skill_md("gen", "Gen. Use when gen."),
    );
    write(
        root,
        ".git/hooks/x/SKILL.md",
        skill_md("x", "X. Use when x."),
    );
    write(
        root,
        ".hidden/found/SKILL.md",
        skill_md("found", "Found. Use when found."),
    );
    assert_eq!(ids(root, &[]), ["found", "keep"]);
}

#[test]
fn ignore_rules_follow_git_precedence_and_bad_patterns_are_reported() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path();
    for folder in [
        "private-a",
        "private-keep",
        "team/private-team",
        "team/private-other",
        "team/solo",
        "keep",
        "odd/skipme",
        "odd/fine",
    ] {
        let name = folder.rsplit('/').next().unwrap();
        write(
            root,
            &format!("{folder}/SKILL.md"),
            skill_md(name, "Testing. Use when testing."),
        );
    }
    write(root, ".gitignore", "private-*\n");
    // `.ignore` outranks `.gitignore` in the same folder and above it.
    write(root, ".ignore", "!private-keep\n");
    // A deeper folder's rules outrank its parents'.
    write(root, "team/.gitignore", "!private-team\n");
    write(root, "team/.ignore", "solo\n");
    // A bad pattern is reported at its line; the file's other rules apply.
    write(root, "odd/.gitignore", "skipme\n{a,b\n");
    assert_eq!(
        ids(root, &[]),
        ["fine", "keep", "private-keep", "private-team"]
    );
    let (run, diagnostics) = lint_json(root, &[]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    let bad = &diagnostics[0];
    assert!(
        bad["path"].as_str().unwrap().ends_with("odd/.gitignore"),
        "{bad}"
    );
    assert_eq!(
        (bad["line"].as_u64(), bad["column"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(bad["severity"], "warning");
    assert!(bad["message"].as_str().unwrap().contains("{a,b"), "{bad}");
}

/// Folders are opened relative to their open parent; a deep tree must not
/// keep so many open that the walk runs out of file descriptors.
#[cfg(unix)]
#[test]
fn a_deep_tree_is_walked_with_few_file_descriptors() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path();
    let mut folder = String::new();
    for level in 0..150 {
        folder.push_str("d/");
        write(
            root,
            &format!("{folder}s{level}/SKILL.md"),
            skill_md(&format!("s{level}"), "Deep. Use when deep."),
        );
    }
    let command = format!(
        "ulimit -n 100 && exec {} list --json --max-depth 400 --root {}",
        env!("CARGO_BIN_EXE_skilldex"),
        root.display()
    );
    let out = finish(
        std::process::Command::new("sh")
            .args(["-c", &command])
            .env("NO_COLOR", "1")
            .env_remove("SKILLDEX_ROOTS")
            .output()
            .unwrap(),
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        out.json()["skills"].as_array().unwrap().len(),
        150,
        "{out:?}"
    );
    assert!(!out.stderr.contains("Too many open files"), "{out:?}");
}

#[test]
fn depth_and_entry_bounds_are_reported() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path();
    write(
        root,
        "a/b/c/d/deep/SKILL.md",
        skill_md("deep", "Deep. Use when deep."),
    );
    write(root, "top/SKILL.md", skill_md("top", "Top. Use when top."));
    assert_eq!(ids(root, &[]), ["deep", "top"]);
    assert_eq!(ids(root, &["--max-depth", "3"]), ["top"]);
    let (_, diagnostics) = lint_json(root, &["--max-depth", "3"]);
    let cut = diagnostics
        .iter()
        .find(|d| d["code"] == "walk-limit")
        .expect("walk-limit reported");
    assert!(
        cut["message"].as_str().unwrap().contains("--max-depth"),
        "{cut}"
    );
    let (_, diagnostics) = lint_json(root, &["--max-entries", "3"]);
    let cut = diagnostics
        .iter()
        .find(|d| d["code"] == "walk-limit")
        .expect("walk-limit reported");
    assert!(
        cut["message"].as_str().unwrap().contains("--max-entries"),
        "{cut}"
    );
}

#[cfg(unix)]
#[test]
fn symlinked_skill_file_and_folder_are_followed_and_deduplicated() {
    use std::os::unix::fs::symlink;
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("root");
    write(
        &root,
        "real/SKILL.md",
        skill_md("real", "Real. Use when real."),
    );
    // The same folder reached twice is one skill.
    symlink(root.join("real"), root.join("alias")).unwrap();
    // A skill whose SKILL.md is a link to another file of its folder.
    write(
        &root,
        "linked/linked.md",
        skill_md("linked", "Linked. Use when linked."),
    );
    symlink("linked.md", root.join("linked/SKILL.md")).unwrap();
    // One whose SKILL.md leads out of its folder is refused (it is served
    // from nowhere; `hardening` checks the message).
    let store = temp.path().join("store");
    write(&store, "away.md", skill_md("away", "Away. Use when away."));
    std::fs::create_dir_all(root.join("away")).unwrap();
    symlink(store.join("away.md"), root.join("away/SKILL.md")).unwrap();
    assert_eq!(ids(&root, &[]), ["linked", "real"]);
}

#[test]
fn lint_json_shape_and_exit_codes() {
    let temp = tempfile::tempdir().unwrap();
    write(
        temp.path(),
        "ok/SKILL.md",
        skill_md("ok", "Fine. Use when fine."),
    );
    let (run_ok, diagnostics) = lint_json(temp.path(), &[]);
    assert_eq!(run_ok.code, 0, "{run_ok:?}");
    assert!(diagnostics.is_empty());
    let summary = &run_ok.json()["summary"];
    assert_eq!(summary["skills"], 1);
    write(temp.path(), "broken/SKILL.md", "no front matter\n");
    let (run_bad, diagnostics) = lint_json(temp.path(), &[]);
    assert_eq!(run_bad.code, 1, "{run_bad:?}");
    let d = &diagnostics[0];
    for key in ["path", "line", "column", "severity", "code", "message"] {
        assert!(d.get(key).is_some(), "{key} missing in {d}");
    }
    assert_eq!(d["code"], "frontmatter-missing");
    assert_eq!(run_bad.json()["summary"]["errors"], 1);
}

#[cfg(unix)]
#[test]
fn many_links_to_one_folder_pick_the_same_one_every_time() {
    use std::os::unix::fs::symlink;
    let temp = tempfile::tempdir().unwrap();
    write(
        temp.path(),
        "shared/x/SKILL.md",
        skill_md("x", "X. Use when x."),
    );
    let root = temp.path().join("root");
    for i in 1..=12 {
        std::fs::create_dir_all(root.join(format!("d{i}"))).unwrap();
        symlink(temp.path().join("shared"), root.join(format!("d{i}/link"))).unwrap();
    }
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..6 {
        let out = run(&["list", "--json", "--root", root.to_str().unwrap()]);
        let json = out.json();
        assert_eq!(json["skills"].as_array().unwrap().len(), 1, "{json}");
        seen.insert(json["skills"][0]["path"].as_str().unwrap().to_string());
    }
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert!(
        seen.iter().next().unwrap().ends_with("d1/link/x/SKILL.md"),
        "{seen:?}"
    );
}

/// A skill reached both in place and through a symlinked alias of a folder
/// above it is listed at its real place (with its real namespace), whatever
/// the alias is called.
#[cfg(unix)]
#[test]
fn a_skill_reached_through_an_alias_is_listed_where_it_is() {
    for alias in ["outer-again", "a-outer", "zz-outer"] {
        let temp = tempfile::tempdir().unwrap();
        let root = temp.path().join("root");
        outer_and_inner(&root, "# inner\n");
        std::os::unix::fs::symlink("outer", root.join(alias)).unwrap();
        let out = run(&["render", "--json", "--root", root.to_str().unwrap()]);
        assert_eq!(out.code, 0, "{out:?}");
        let json: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        let skills: Vec<(String, String)> = json["skills"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                (
                    s["name"].as_str().unwrap().to_string(),
                    s["namespace"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        assert_eq!(
            skills,
            [
                ("outer".to_string(), String::new()),
                ("inner".to_string(), "outer".to_string())
            ],
            "{alias}: {out:?}"
        );
    }
}
