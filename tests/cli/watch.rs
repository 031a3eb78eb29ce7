//! `skilldex watch` driven as a real process, and prefix-stable rendering:
//! the in-session delta (`DirectorySession`) and `render --since` across
//! processes.

use super::live::{put, Session};
use super::*;
use skilldex::query::{self, DirectorySession, RenderOptions};
use std::process::{Child, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

const PATIENCE: Duration = Duration::from_secs(60);

/// A running `skilldex watch`, its stdout lines arriving on a channel.
struct Watch {
    child: Child,
    lines: Receiver<String>,
    seen: Vec<String>,
}

impl Watch {
    fn start(cwd: &Path, args: &[&str]) -> Watch {
        let mut child = skilldex()
            .current_dir(cwd)
            .arg("watch")
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("skilldex watch starts");
        let lines = line_channel(child.stdout.take().unwrap());
        Watch {
            child,
            lines,
            seen: Vec::new(),
        }
    }

    /// Wait for a line that `check` accepts.
    fn wait_for(&mut self, what: &str, check: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if check(&line) {
                        return line;
                    }
                }
                Err(_) => panic!(
                    "timed out waiting for {what}; lines seen:\n{}",
                    self.seen.join("\n")
                ),
            }
        }
    }

    fn wait_json(
        &mut self,
        what: &str,
        check: impl Fn(&serde_json::Value) -> bool,
    ) -> serde_json::Value {
        let line = self.wait_for(what, |line| {
            serde_json::from_str::<serde_json::Value>(line).is_ok_and(|v| check(&v))
        });
        serde_json::from_str(&line).unwrap()
    }

    /// Send SIGINT (Ctrl-C) and wait for the exit.
    fn interrupt(mut self) -> Run {
        let status = std::process::Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success());
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                let mut stderr = String::new();
                use std::io::Read;
                self.child
                    .stderr
                    .take()
                    .unwrap()
                    .read_to_string(&mut stderr)
                    .unwrap();
                while let Ok(line) = self.lines.recv_timeout(Duration::from_millis(100)) {
                    self.seen.push(line);
                }
                return Run {
                    code: status.code().unwrap_or(-1),
                    stdout: self.seen.join("\n"),
                    stderr,
                };
            }
            assert!(Instant::now() < deadline, "watch did not stop on Ctrl-C");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn has_id(list: &serde_json::Value, id: &str) -> bool {
    list.as_array().is_some_and(|a| a.iter().any(|v| v == id))
}

#[test]
fn watch_json_lines_from_ready_to_ctrl_c() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("skills");
    put(
        &root,
        "pdf/SKILL.md",
        skill_md("pdf", "Read PDFs. Use when a PDF is given."),
    );
    let mut watch = Watch::start(temp.path(), &["--root", "skills", "--json"]);
    let ready = watch.wait_json("ready", |v| v["type"] == "ready");
    assert_eq!(ready["skills"], 1);
    assert!(ready["revision"].is_string());

    put(
        &root,
        "csv/SKILL.md",
        skill_md("csv", "Read CSV. Use when a CSV is given."),
    );
    let line = watch.wait_json("csv added", |v| {
        v["type"] == "revision" && has_id(&v["added"], "csv")
    });
    assert_ne!(line["revision"], ready["revision"]);
    for key in ["changed", "removed", "diagnostics"] {
        assert!(line[key].is_array(), "{line}");
    }

    // A broken edit: the skill stays (stale), the error comes with it.
    put(&root, "pdf/SKILL.md", "---\nname: pdf\n---\n");
    let line = watch.wait_json("pdf stale, with its error", |v| {
        has_id(&v["stale"], "pdf")
            && v["diagnostics"]
                .as_array()
                .is_some_and(|d| d.iter().any(|d| d["code"] == "description-missing"))
    });
    assert_eq!(line["removed"], serde_json::json!([]));
    put(
        &root,
        "pdf/SKILL.md",
        skill_md("pdf", "Fixed. Use when fixed."),
    );
    watch.wait_json("pdf fixed", |v| has_id(&v["changed"], "pdf"));

    std::fs::remove_dir_all(root.join("csv")).unwrap();
    let removed = watch.wait_json("csv removed", |v| has_id(&v["removed"], "csv"));

    // Another file of a skill: the directory is the same, the revision
    // too; a `files` line names the skill.
    let revision = removed["revision"].clone();
    put(&root, "pdf/references/tips.md", "Tips.\n");
    let line = watch.wait_json("pdf's files", |v| v["type"] == "files");
    assert_eq!(line["skills"], serde_json::json!(["pdf"]), "{line}");
    assert_eq!(line["revision"], revision, "{line}");

    let run = watch.interrupt();
    assert_eq!(run.code, 0, "{run:?}");
    // Every line is JSON.
    for line in run.stdout.lines() {
        serde_json::from_str::<serde_json::Value>(line).unwrap_or_else(|e| panic!("{e}: {line}"));
    }
}

#[test]
fn watch_shows_the_directory_then_each_change() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("skills");
    for name in ["alpha", "beta", "gamma", "delta", "epsilon"] {
        put(
            &root,
            &format!("{name}/SKILL.md"),
            skill_md(name, &format!("{name} things. Use when {name}.")),
        );
    }
    let mut watch = Watch::start(temp.path(), &["--root", "skills", "--paths", "relative"]);
    watch.wait_for("the directory", |l| l == "## Skills");
    watch.wait_for("the watching line", |l| l.contains("watching: 5 skills"));
    put(
        &root,
        "zeta/SKILL.md",
        skill_md("zeta", "Zeta things. Use when zeta."),
    );
    watch.wait_for("the added skill", |l| {
        l == "+ zeta: Zeta things. Use when zeta."
    });
    watch.wait_for("the totals", |l| {
        l.contains("6 skills") && l.contains("tokens appended")
    });
    put(
        &root,
        "alpha/SKILL.md",
        "---\nname: alpha\ndescription: [broken\n---\n",
    );
    watch.wait_for("the stale note", |l| l.starts_with("! alpha:"));
    watch.wait_for("the error", |l| l.contains("error[yaml-invalid]"));
    let run = watch.interrupt();
    assert_eq!(run.code, 0, "{run:?}");
}

#[test]
fn watch_waits_for_a_missing_root_and_polls() {
    let temp = tempfile::tempdir().unwrap();
    let mut watch = Watch::start(
        temp.path(),
        &[
            "--root",
            "later/skills",
            "--json",
            "--poll",
            "--poll-interval",
            "100",
        ],
    );
    let ready = watch.wait_json("ready", |v| v["type"] == "ready");
    assert_eq!(ready["skills"], 0);
    put(
        &temp.path().join("later/skills"),
        "pdf/SKILL.md",
        skill_md("pdf", "P. Use when p."),
    );
    watch.wait_json("pdf added", |v| has_id(&v["added"], "pdf"));
    let run = watch.interrupt();
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stderr.contains("does not exist yet"), "{run:?}");
}

fn render_json(cwd: &Path, root: &Path) -> String {
    let out = run_in(cwd, &["render", "--json", "--root", root.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{out:?}");
    out.stdout
}

#[test]
fn a_session_only_appends_and_render_since_prints_the_same_block() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("skills");
    for n in 0..8 {
        put(
            &root,
            &format!("team/s{n}/SKILL.md"),
            skill_md(&format!("s{n}"), &format!("Skill {n}. Use when {n}.")),
        );
    }
    put(&root, "team/s0/references/notes.md", "# Notes\n");
    let previous = temp.path().join("previous.json");
    std::fs::write(&previous, render_json(temp.path(), &root)).unwrap();
    let since = |format: &str| {
        run_in(
            temp.path(),
            &[
                "render",
                "--root",
                root.to_str().unwrap(),
                "--since",
                previous.to_str().unwrap(),
                "--format",
                format,
            ],
        )
    };

    // No change: nothing printed, exit 0.
    let out = since("markdown");
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{out:?}");

    let mut session = Session::start(&[&root]);
    let options = RenderOptions {
        base: temp.path().to_path_buf(),
        ..RenderOptions::default()
    };
    let (mut directory, _) = DirectorySession::new(&session.live.snapshot(), options.clone());
    let first = directory.text().to_string();
    assert!(first.contains("- s3: Skill 3."), "{first}");

    // Only a sub-file changes: the directory has nothing to say.
    put(&root, "team/s0/references/notes.md", "# Notes, more\n");
    put(
        &root,
        "team/s1/SKILL.md",
        skill_md("s1", "Skill 1, now better. Use when 1."),
    );
    put(
        &root,
        "team/s9/SKILL.md",
        skill_md("s9", "Skill 9. Use when 9."),
    );
    std::fs::remove_dir_all(root.join("team/s2")).unwrap();
    let catalog = session.settle("the edits");
    let delta = directory.update(&catalog);
    let ids =
        |list: &[query::render::ShownSkill]| list.iter().map(|s| s.id.clone()).collect::<Vec<_>>();
    assert_eq!(ids(&delta.added), ["s9"]);
    assert_eq!(ids(&delta.changed), ["s1"]);
    assert_eq!(delta.removed, ["s2"]);
    // Revision N+1 is revision N followed by the block.
    assert!(directory.text().starts_with(&first));
    assert_eq!(&directory.text()[first.len()..], delta.text);
    assert!(
        delta
            .text
            .contains("- s1: Skill 1, now better. Use when 1."),
        "{}",
        delta.text
    );
    assert!(
        !delta.text.contains(catalog.revision()),
        "no engine internals: {}",
        delta.text
    );

    // Another process prints the same block from the first directory's JSON.
    let out = since("markdown");
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, delta.text);

    // Nothing more changed: the session appends nothing.
    let again = directory.update(&catalog);
    assert!(again.is_empty() && again.text.is_empty());

    // The JSON of --since can be the next PREVIOUS.json.
    let out = since("json");
    assert_eq!(out.code, 0, "{out:?}");
    std::fs::write(&previous, &out.stdout).unwrap();
    let out = since("markdown");
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{out:?}");
    put(
        &root,
        "team/s3/SKILL.md",
        skill_md("s3", "Skill 3 again. Use when 3."),
    );
    session.settle("one more edit");
    let out = since("xml");
    assert!(out.stdout.starts_with("<skill_updates>"), "{out:?}");
    assert!(
        out.stdout
            .contains("<skill status=\"changed\">\n<name>s3</name>"),
        "{out:?}"
    );
}

#[test]
fn render_since_refuses_what_is_not_a_previous_render() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("skills");
    put(&root, "pdf/SKILL.md", skill_md("pdf", "P. Use when p."));
    std::fs::write(temp.path().join("bad.json"), "{\"nothing\": 1}").unwrap();
    let out = run_in(
        temp.path(),
        &["render", "--root", "skills", "--since", "bad.json"],
    );
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("render --format json"), "{out:?}");
}

#[test]
fn render_since_with_another_path_style_lists_only_real_changes() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("skills");
    super::copy_dir(&super::repo().join("skills"), &root);
    let root_s = root.to_str().unwrap();
    let previous = temp.path().join("previous.json");
    let first = super::run_in(temp.path(), &["render", "--json", "--root", root_s]);
    assert_eq!(first.code, 0, "{first:?}");
    std::fs::write(&previous, &first.stdout).unwrap();
    let bisect = root.join("dev/git-bisect/SKILL.md");
    let text = std::fs::read_to_string(&bisect).unwrap();
    std::fs::write(
        &bisect,
        text.replace("Finds the exact commit", "Locates the exact commit"),
    )
    .unwrap();
    // The previous render had absolute paths; these have none, or relative ones.
    for paths in ["none", "relative"] {
        let run = super::run_in(
            temp.path(),
            &[
                "render",
                "--root",
                root_s,
                "--paths",
                paths,
                "--since",
                previous.to_str().unwrap(),
            ],
        );
        assert_eq!(run.code, 0, "{run:?}");
        assert!(run.stdout.contains("- git-bisect: Locates"), "{run:?}");
        assert_eq!(
            run.stdout.matches("\n- ").count(),
            1,
            "only git-bisect changed: {run:?}"
        );
    }
}
