//! A `SKILL.md` that is a symlink to a Markdown file elsewhere in its root
//! (a repository keeping its skills' text in `docs/`): the skill loads as
//! its link's folder, its text read from the target, on the command line
//! and over MCP; a link that leads outside the root, directly or through a
//! chain, is refused; the skill's other files stay inside its folder; and
//! a link retargeted outside after the scan is refused when read.

use super::{bounded, skill_md, skilldex, write};
use serde_json::json;
use std::path::Path;

fn run(root: &Path, args: &[&str]) -> super::Run {
    let mut command = skilldex();
    command.current_dir(root).args(args).arg("--root").arg(root);
    bounded(command)
}

fn link(target: &str, at: &Path) {
    std::fs::create_dir_all(at.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(target, at).unwrap();
}

/// `root/skills/foo/SKILL.md -> ../../docs/foo.md` with `ref.md` and a
/// sibling link out of the skill; `skills/two/SKILL.md` links into `foo`'s
/// folder; `elsewhere/` (outside the root) holds a marker never served.
fn tree() -> (tempfile::TempDir, std::path::PathBuf) {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("root");
    write(
        &root,
        "docs/foo.md",
        "---\nname: foo\ndescription: Foo things. Use when testing.\n---\n\n# Foo\n\nBODY-MARKER\n\n## Part\n\nSECTION-MARKER\n",
    );
    write(&root, "docs/other.md", "OTHER-MARKER\n");
    write(&root, "skills/foo/ref.md", "REF-MARKER\n");
    link("../../docs/foo.md", &root.join("skills/foo/SKILL.md"));
    link("../../docs/other.md", &root.join("skills/foo/sib.md"));
    write(
        &root,
        "skills/foo/notes.md",
        skill_md("two", "Two. Use when testing.") + "TWO-MARKER\n",
    );
    link("../foo/notes.md", &root.join("skills/two/SKILL.md"));
    write(
        temp.path(),
        "elsewhere/out.md",
        skill_md("chain", "Out. Use when testing.") + "OUTSIDE-MARKER\n",
    );
    (temp, root)
}

#[test]
fn a_skill_file_linked_elsewhere_in_the_root_loads_as_its_folder() {
    let (_temp, root) = tree();
    let out = run(&root, &["list"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout.contains("foo") && out.stdout.contains("two"),
        "{out:?}"
    );
    assert!(out.stdout.contains("skills/"), "{out:?}");
    for (args, marker) in [
        (&["read", "foo"][..], "BODY-MARKER"),
        (&["read", "foo", "--section", "Part"], "SECTION-MARKER"),
        (&["read", "foo/SKILL.md"], "BODY-MARKER"),
        (&["read", "foo/ref.md"], "REF-MARKER"),
        (&["read", "two"], "TWO-MARKER"),
        (&["show", "foo"], "ref.md"),
        (&["render"], "BODY-MARKER"),
        (&["search", "foo things"], "foo"),
        (&["grep", "BODY-MARKER"], "foo/SKILL.md:"),
    ] {
        let out = run(&root, args);
        assert_eq!(out.code, 0, "{args:?}: {out:?}");
        assert!(out.stdout.contains(marker), "{args:?}: {out:?}");
    }
    // The skill's other files stay in its folder: a sibling link to a file
    // elsewhere in the root is not the skill's.
    let out = run(&root, &["read", "foo/sib.md"]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(!out.stdout.contains("OTHER-MARKER"), "{out:?}");
    assert!(out.stderr.contains("is not inside skill `foo`"), "{out:?}");
    let out = run(&root, &["grep", "OTHER-MARKER"]);
    assert!(!out.stdout.contains("OTHER-MARKER"), "{out:?}");
    // `name` is judged against the link's folder: `two` lives in `two/`.
    let out = run(&root, &["lint"]);
    assert!(!out.stdout.contains("name-mismatch"), "{out:?}");
    assert!(!out.stdout.contains("skill-file-outside"), "{out:?}");
}

#[test]
fn a_skill_file_linked_elsewhere_in_the_root_is_served_over_mcp() {
    let (_temp, root) = tree();
    let mut raw = crate::mcp::Raw::start(&root, &["--no-watch"]);
    let (is_error, text) = raw.call("read_skill", json!({"name": "foo"}));
    assert!(!is_error && text.contains("BODY-MARKER"), "{text}");
    let answer = raw.request(
        "resources/read",
        json!({"uri": "skill://skills/foo/SKILL.md"}),
    );
    assert!(answer.to_string().contains("BODY-MARKER"), "{answer}");
    let answer = raw.request("skills/get", json!({"uri": "skill://skills/foo/SKILL.md"}));
    let listed = answer.to_string();
    assert!(answer.get("error").is_none(), "{listed}");
    assert!(
        listed.contains("skill://skills/foo/SKILL.md")
            && listed.contains("skill://skills/foo/ref.md"),
        "{listed}"
    );
    assert!(!listed.contains("sib.md"), "{listed}");
    let answer = raw.request(
        "resources/read",
        json!({"uri": "skill://skills/foo/sib.md"}),
    );
    assert!(answer.get("error").is_some(), "{answer}");
    assert!(!answer.to_string().contains("OTHER-MARKER"), "{answer}");
    let (_, text) = raw.call("grep_skills", json!({"pattern": "BODY-MARKER"}));
    assert!(text.contains("BODY-MARKER"), "{text}");
}

#[test]
fn a_chain_of_links_that_ends_outside_the_root_is_refused() {
    let (_temp, root) = tree();
    link("../../elsewhere/out.md", &root.join("docs/hop.md"));
    link("../../docs/hop.md", &root.join("skills/chain/SKILL.md"));
    let out = run(&root, &["read", "chain"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(!out.stdout.contains("OUTSIDE-MARKER"), "{out:?}");
    assert!(out.stderr.contains("outside the root"), "{out:?}");
    let out = run(&root, &["lint"]);
    let finding = out
        .stdout
        .lines()
        .find(|l| l.contains("skill-file-outside"))
        .unwrap_or_else(|| panic!("no skill-file-outside finding: {out:?}"));
    assert!(finding.contains("chain/SKILL.md:1:1"), "{finding}");
    let out = run(&root, &["grep", "OUTSIDE-MARKER"]);
    assert!(!out.stdout.contains("OUTSIDE-MARKER"), "{out:?}");
}

/// Retargeted outside after the server's scan: the read opens the link
/// again through the boundary and refuses.
#[test]
fn a_skill_file_retargeted_outside_after_the_scan_is_refused() {
    let (temp, root) = tree();
    let mut raw = crate::mcp::Raw::start(&root, &["--no-watch"]);
    let (is_error, text) = raw.call("read_skill", json!({"name": "foo"}));
    assert!(!is_error && text.contains("BODY-MARKER"), "{text}");
    let skill_file = root.join("skills/foo/SKILL.md");
    std::fs::remove_file(&skill_file).unwrap();
    std::os::unix::fs::symlink(temp.path().join("elsewhere/out.md"), &skill_file).unwrap();
    let (is_error, text) = raw.call("read_skill", json!({"name": "foo"}));
    assert!(is_error && !text.contains("OUTSIDE-MARKER"), "{text}");
    assert!(text.contains("outside the root"), "{text}");
    let read = raw.request(
        "resources/read",
        json!({"uri": "skill://skills/foo/SKILL.md"}),
    );
    assert!(read.get("error").is_some(), "{read}");
    assert!(!read.to_string().contains("OUTSIDE-MARKER"), "{read}");
    let answer = raw.request("skills/get", json!({"uri": "skill://skills/foo/SKILL.md"}));
    assert!(!answer.to_string().contains("OUTSIDE-MARKER"), "{answer}");
    let (_, grep) = raw.call("grep_skills", json!({"pattern": "OUTSIDE-MARKER"}));
    assert!(!grep.contains("OUTSIDE-MARKER of"), "{grep}");
    // Nothing a client reads says where the link leads.
    let outside = temp.path().join("elsewhere");
    let outside = outside.to_str().unwrap();
    for said in [text, read.to_string(), answer.to_string(), grep] {
        assert!(
            !said.contains(outside),
            "names where the link leads: {said}"
        );
    }
}

/// The root is watched whole: an edit of the target, outside the skill
/// folder, reaches the served skill (its description, from the front
/// matter the scan read).
#[test]
fn an_edit_of_the_linked_file_is_served() {
    let (_temp, root) = tree();
    let mut raw = crate::mcp::Raw::start(&root, &[]);
    let answer = raw.request("resources/list", json!({}));
    assert!(answer.to_string().contains("Foo things."), "{answer}");
    let target = root.join("docs/foo.md");
    let text = std::fs::read_to_string(&target).unwrap();
    std::fs::write(&target, text.replace("Foo things.", "Edited things.")).unwrap();
    let deadline = std::time::Instant::now() + crate::mcp::WAIT;
    loop {
        let answer = raw.request("resources/list", json!({}));
        if answer.to_string().contains("Edited things.") {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the edit of the linked file never reached the catalog: {answer}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}
