//! Which skill a path belongs to: every file belongs to its nearest skill
//! folder, judged by where the file really is, never by a folder's name.
//! Probes for folders named like other skills, a namespace folder named
//! like a skill, a nested skill named like a top-level one, and links into
//! nested skills that are disabled or did not load.

use super::{skill_md, write};
use serde_json::json;
use std::path::Path;

fn run(root: &Path, args: &[&str]) -> super::Run {
    let mut command = super::skilldex();
    command.current_dir(root).args(args).arg("--root").arg(root);
    super::bounded(command)
}

/// Skill `outer` with a sub-folder `pdf/`; skill `pdf` with a sub-folder
/// `pdf/`; namespace `tools` holding skills `tools` and `pdf`; skill `x/tools`.
fn look_alike_tree() -> tempfile::TempDir {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path();
    write(
        root,
        "outer/SKILL.md",
        skill_md("outer", "Outer. Use when testing."),
    );
    write(root, "outer/pdf/notes.md", "OUTER-PDF notes\n");
    write(
        root,
        "pdf/SKILL.md",
        skill_md("pdf", "Pdf. Use when testing."),
    );
    write(root, "pdf/notes.md", "PDF notes\n");
    write(root, "pdf/pdf/notes.md", "PDF-PDF notes\n");
    write(root, "tools/README.md", "# Tools\n\nTools.\n");
    write(
        root,
        "tools/pdf/SKILL.md",
        skill_md("pdf", "Tools pdf. Use when testing."),
    );
    write(root, "tools/pdf/notes.md", "TOOLS-PDF notes\n");
    write(
        root,
        "tools/tools/SKILL.md",
        skill_md("tools", "Tools. Use when testing."),
    );
    write(root, "tools/tools/notes.md", "TOOLS-TOOLS notes\n");
    write(
        root,
        "x/tools/SKILL.md",
        skill_md("tools", "X tools. Use when testing."),
    );
    temp
}

#[test]
fn folders_named_like_other_skills_belong_to_the_skill_they_are_in() {
    let temp = look_alike_tree();
    let root = temp.path();
    for (target, text) in [
        ("outer/pdf/notes.md", "OUTER-PDF notes"),
        ("./outer/pdf/notes.md", "OUTER-PDF notes"),
        ("pdf/notes.md", "PDF notes"),
        ("pdf/pdf/notes.md", "PDF-PDF notes"),
        ("./pdf/pdf/notes.md", "PDF-PDF notes"),
        ("tools/pdf/notes.md", "TOOLS-PDF notes"),
        ("./tools/pdf/notes.md", "TOOLS-PDF notes"),
        ("./tools/tools/notes.md", "TOOLS-TOOLS notes"),
    ] {
        let out = run(root, &["read", target]);
        assert_eq!(out.code, 0, "{target}: {out:?}");
        assert!(out.stdout.lines().any(|l| l == text), "{target}: {out:?}");
    }
    // grep names each file under the skill that holds it.
    let out = run(root, &["grep", "notes"]);
    for line in [
        "outer/pdf/notes.md:1:OUTER-PDF notes",
        "pdf/pdf/notes.md:1:PDF-PDF notes",
        "tools/pdf/notes.md:1:TOOLS-PDF notes",
    ] {
        assert!(out.stdout.contains(line), "{line}: {out:?}");
    }
}

/// Skill `s` with a nested skill `broken` whose file does not load, a
/// nested skill `d` (disabled) holding a broken nested skill `sub`, and
/// links from `s` to a file in each.
fn links_into_nested_skills() -> tempfile::TempDir {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path();
    let broken = "---\nname: [\n---\n";
    write(root, "s/SKILL.md", skill_md("s", "S. Use when testing."));
    write(root, "s/mine.md", "MARKER of s\n");
    write(root, "s/broken/SKILL.md", broken);
    write(root, "s/broken/secret.md", "MARKER of broken\n");
    write(root, "s/d/SKILL.md", skill_md("d", "D. Use when testing."));
    write(root, "s/d/sub/SKILL.md", broken);
    write(root, "s/d/sub/secret.md", "MARKER of sub\n");
    write(root, "skilldex.yaml", "disabled: [d]\n");
    for (link, target) in [
        ("s/to-broken.md", "broken/secret.md"),
        ("s/to-sub.md", "d/sub/secret.md"),
        ("s/to-mine.md", "mine.md"),
    ] {
        std::os::unix::fs::symlink(target, root.join(link)).unwrap();
    }
    temp
}

#[test]
fn a_link_into_a_nested_skill_that_did_not_load_is_not_served() {
    let temp = links_into_nested_skills();
    let root = temp.path();
    // Asked for by its own path, the file is refused as the broken skill's;
    // through a link of `s` it is refused the same way.
    for target in ["s/broken/secret.md", "s/to-broken.md", "s/to-sub.md"] {
        let out = run(root, &["read", target]);
        assert_ne!(out.code, 0, "{target}: {out:?}");
        assert!(!out.stdout.contains("MARKER"), "{target}: {out:?}");
        assert!(out.stderr.contains("did not load"), "{target}: {out:?}");
    }
    let out = run(root, &["read", "s/to-mine.md"]);
    assert!(out.stdout.lines().any(|l| l == "MARKER of s"), "{out:?}");
    let out = run(root, &["grep", "MARKER"]);
    assert!(out.stdout.contains("s/mine.md:1:MARKER of s"), "{out:?}");
    assert!(!out.stdout.contains("of broken"), "{out:?}");
    assert!(!out.stdout.contains("of sub"), "{out:?}");

    let mut raw = crate::mcp::Raw::start(root, &["--no-watch"]);
    for file in ["to-broken.md", "to-sub.md"] {
        let (is_error, text) = raw.call("read_skill", json!({"name": "s", "path": file}));
        assert!(is_error && text.contains("did not load"), "{file}: {text}");
        let answer = raw.request(
            "resources/read",
            json!({"uri": format!("skill://s/{file}")}),
        );
        assert!(answer.get("error").is_some(), "{file}: {answer}");
        assert!(!answer.to_string().contains("MARKER of"), "{answer}");
    }
    let (_, text) = raw.call("grep_skills", json!({"pattern": "MARKER"}));
    assert!(text.contains("MARKER of s"), "{text}");
    assert!(
        !text.contains("of broken") && !text.contains("of sub"),
        "{text}"
    );
    // What is not served is not advertised.
    let answer = raw.request("skills/get", json!({"uri": "skill://s/SKILL.md"}));
    let listed = answer.to_string();
    assert!(listed.contains("skill://s/to-mine.md"), "{listed}");
    for hidden in ["to-broken.md", "to-sub.md"] {
        assert!(
            !listed.contains(&format!("skill://s/{hidden}")),
            "{hidden}: {listed}"
        );
    }
}

/// A `SKILL.md` that is a symlink to a file outside its root is refused
/// over MCP as on the command line: not listed, not served.
#[test]
fn a_skill_file_linked_out_of_its_root_is_not_served() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("root");
    write(
        temp.path(),
        "elsewhere/SKILL.md",
        skill_md("s", "Out. Use when testing.") + "OUTSIDE-MARKER\n",
    );
    write(
        &root,
        "ok/SKILL.md",
        skill_md("ok", "Ok. Use when testing."),
    );
    std::fs::create_dir_all(root.join("s")).unwrap();
    std::os::unix::fs::symlink(
        temp.path().join("elsewhere/SKILL.md"),
        root.join("s/SKILL.md"),
    )
    .unwrap();
    let mut raw = crate::mcp::Raw::start(&root, &["--no-watch"]);
    let answer = raw.request("resources/read", json!({"uri": "skill://s/SKILL.md"}));
    assert!(answer.get("error").is_some(), "{answer}");
    assert!(!answer.to_string().contains("OUTSIDE-MARKER"), "{answer}");
    let (is_error, text) = raw.call("read_skill", json!({"name": "s"}));
    assert!(is_error && text.contains("outside the root"), "{text}");
    let answer = raw.request("resources/list", json!({}));
    assert!(
        answer.to_string().contains("skill://ok/SKILL.md"),
        "{answer}"
    );
    assert!(!answer.to_string().contains("skill://s/"), "{answer}");
}
