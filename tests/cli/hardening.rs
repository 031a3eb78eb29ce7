//! Hostile trees: reads that try to leave a skill folder (a symlink swapped
//! in mid-read, links to ignored or skipped files, a skill file linked out
//! of its folder), special files where files are expected, and inputs
//! built to make a parser or a lookup slow. Every case is made at test time
//! in a temp folder; the MCP cases drive `skilldex serve` over raw JSON-RPC
//! (`mcp::Raw`).

use super::{bounded, skill_md, skilldex, write};
use std::path::Path;
use std::time::{Duration, Instant};

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
}

/// `skilldex ARGS` on `root`, killed (and failed) if it hangs.
fn run(root: &Path, args: &[&str]) -> super::Run {
    let mut command = skilldex();
    command.current_dir(root).args(args).arg("--root").arg(root);
    bounded(command)
}

/// Skill `s` holding, besides its own files, links to a file under
/// `.git`, to a gitignored file and to a gitignored folder; each target
/// holds a marker that must never be served.
fn tree_with_links_to_hidden_files() -> tempfile::TempDir {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path();
    write(
        root,
        "s/SKILL.md",
        skill_md("s", "Links. Use when testing links."),
    );
    write(root, "s/guide.md", "# Guide\n\nVISIBLE-MARKER\n");
    write(root, "s/.gitignore", "secret.txt\nsecrets/\n");
    write(root, "s/secret.txt", "HIDDEN-MARKER ignored file\n");
    write(root, "s/secrets/key.txt", "HIDDEN-MARKER ignored folder\n");
    write(root, "s/.git/config", "HIDDEN-MARKER git config\n");
    for (target, link) in [
        (".git/config", "s/git.md"),
        ("secret.txt", "s/ignored.md"),
        ("secrets", "s/keys"),
        ("guide.md", "s/alias.md"),
    ] {
        std::os::unix::fs::symlink(target, root.join(link)).unwrap();
    }
    temp
}

#[test]
fn a_link_is_judged_by_the_file_it_leads_to() {
    let temp = tree_with_links_to_hidden_files();
    let root = temp.path();
    for path in ["s/git.md", "s/ignored.md", "s/keys/key.txt"] {
        let out = run(root, &["read", path]);
        assert_eq!(out.code, 2, "{path}: {out:?}");
        assert!(!out.stdout.contains("HIDDEN-MARKER"), "{path}: {out:?}");
        assert!(
            out.stderr.contains("is not part of skill `s`"),
            "{path}: {out:?}"
        );
    }
    // A link to a file that is part of the skill still reads.
    let out = run(root, &["read", "s/alias.md"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("VISIBLE-MARKER"), "{out:?}");
    let out = run(root, &["grep", "MARKER"]);
    assert!(!out.stdout.contains("HIDDEN-MARKER"), "{out:?}");
    assert!(out.stdout.contains("VISIBLE-MARKER"), "{out:?}");
}

#[test]
fn a_skill_file_linked_out_of_its_root_is_not_read() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("root");
    write(
        temp.path(),
        "elsewhere/SKILL.md",
        format!(
            "{}OUTSIDE-MARKER\n",
            skill_md("s", "Out. Use when testing.")
        ),
    );
    std::fs::create_dir_all(root.join("s")).unwrap();
    std::os::unix::fs::symlink(
        temp.path().join("elsewhere/SKILL.md"),
        root.join("s/SKILL.md"),
    )
    .unwrap();
    // A link to a file inside its own folder is a skill like any other.
    write(
        &root,
        "inside/real.md",
        skill_md("inside", "In. Use when testing."),
    );
    std::os::unix::fs::symlink("real.md", root.join("inside/SKILL.md")).unwrap();
    // Refused the same way everywhere: not listed, not rendered, not read,
    // not shown, and lint names the file and what to do.
    let outside = temp
        .path()
        .join("elsewhere/SKILL.md")
        .canonicalize()
        .unwrap();
    for args in [&["read", "s"][..], &["show", "s"], &["read", "s/SKILL.md"]] {
        let out = run(&root, args);
        assert!(!out.stdout.contains("OUTSIDE-MARKER"), "{args:?}: {out:?}");
        assert_eq!(out.code, 1, "{args:?}: {out:?}");
        assert!(
            out.stderr.contains("did not load")
                && out.stderr.contains("outside the root")
                && out.stderr.contains(s(&outside)),
            "{args:?}: {out:?}"
        );
    }
    for args in [&["list"][..], &["render"]] {
        let out = run(&root, args);
        assert_eq!(out.code, 0, "{args:?}: {out:?}");
        assert!(out.stdout.contains("inside"), "{args:?}: {out:?}");
        assert!(
            !out.stdout.contains("Out. Use when testing."),
            "{args:?}: {out:?}"
        );
    }
    let out = run(&root, &["lint"]);
    assert_eq!(out.code, 1, "{out:?}");
    let finding = out
        .stdout
        .lines()
        .chain(out.stderr.lines())
        .find(|l| l.contains("skill-file-outside"))
        .unwrap_or_else(|| panic!("no skill-file-outside finding: {out:?}"));
    assert!(finding.contains("s/SKILL.md:1:1"), "{finding}");
    assert!(
        finding.contains("move the file into the skill folder"),
        "{finding}"
    );
    let out = run(&root, &["read", "inside"]);
    assert_eq!(out.code, 0, "{out:?}");
}

#[test]
fn show_of_a_sparse_four_gigabyte_skill_file_is_refused_before_reading() {
    let temp = tempfile::tempdir().unwrap();
    let path = write(
        temp.path(),
        "big/SKILL.md",
        skill_md("big", "Big. Use when testing."),
    );
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(4 << 30)
        .unwrap();
    let out = run(temp.path(), &["show", "big"]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("4,294,967,296 bytes"), "{out:?}");
}

#[test]
fn pipes_named_by_the_user_are_refused_without_waiting() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path();
    write(root, "s/SKILL.md", skill_md("s", "S. Use when testing."));
    let fifo = root.join("pipe");
    mkfifo(&fifo);
    let out = run(root, &["--config", s(&fifo), "render"]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("named pipe (FIFO)"), "{out:?}");
    let mut command = skilldex();
    command
        .current_dir(root)
        .env("SKILLDEX_CONFIG", &fifo)
        .args(["render", "--root", s(root)]);
    let out = bounded(command);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("named pipe (FIFO)"), "{out:?}");
    let out = run(root, &["render", "--since", s(&fifo)]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("named pipe (FIFO)"), "{out:?}");
}

#[test]
fn deep_brackets_are_refused_before_the_yaml_parser_sees_them() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("root");
    write(
        &root,
        "deep/SKILL.md",
        format!(
            "---\nname: deep\ndescription: Deep. Use when testing.\nx: {}\n---\nbody\n",
            "[".repeat(64 * 1024 - 64)
        ),
    );
    write(
        &root,
        "fine/SKILL.md",
        skill_md("fine", "Fine. Use when testing."),
    );
    let out = run(&root, &["lint", "--format", "json"]);
    let diagnostics = out.json()["diagnostics"].as_array().cloned().unwrap();
    let deep = diagnostics
        .iter()
        .find(|d| d["path"].as_str().unwrap().ends_with("deep/SKILL.md"))
        .unwrap_or_else(|| panic!("{out:?}"));
    assert_eq!(deep["code"], "yaml-invalid", "{deep}");
    assert_eq!(
        (deep["line"].as_u64(), deep["column"].as_u64()),
        (Some(4), Some(4 + 32))
    );
    assert!(
        deep["message"]
            .as_str()
            .unwrap()
            .contains("more than 32 levels"),
        "{deep}"
    );
    // A skilldex.yaml a cloned repository ships, `roots: [[[[…`.
    let config = write(
        temp.path(),
        "skilldex.yaml",
        format!("roots: {}\n", "[".repeat(200_000)),
    );
    let out = run(&root, &["--config", s(&config), "render"]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("skilldex.yaml:1:"), "{out:?}");
    assert!(out.stderr.contains("more than 32 levels"), "{out:?}");
}

#[test]
fn messages_say_what_is_wrong() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("root");
    write(&root, "s/SKILL.md", skill_md("s", "S. Use when testing."));
    // A root that is a link to itself loops; it does exist.
    std::os::unix::fs::symlink("loop", temp.path().join("loop")).unwrap();
    let config = write(temp.path(), "skilldex.yaml", "roots: [loop]\n");
    let mut command = skilldex();
    command
        .current_dir(temp.path())
        .args(["--config", s(&config), "render"]);
    let out = bounded(command);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("leads nowhere"), "{out:?}");
    // A skill file that is a pipe, read by its path, is called a pipe.
    write(&root, "p/other.md", "x");
    mkfifo(&root.join("p/SKILL.md"));
    let out = run(&root, &["read", s(&root.join("p/SKILL.md"))]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("named pipe (FIFO)"), "{out:?}");
}

#[test]
fn control_characters_in_file_names_never_reach_the_terminal() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path();
    write(root, "s/SKILL.md", skill_md("s", "S. Use when testing."));
    write(root, "s/ref\x1b[2J.md", "NEEDLE one\n");
    write(root, "s/ref\nnew.md", "NEEDLE two\n");
    let out = run(root, &["grep", "NEEDLE"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(!out.stdout.contains('\x1b'), "{out:?}");
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{out:?}");
    assert!(lines.iter().all(|l| l.starts_with("s/ref")), "{out:?}");
    assert!(
        out.stdout.contains("s/ref\\u{1b}[2J.md:1:NEEDLE one"),
        "{out:?}"
    );
    assert!(
        out.stdout.contains("s/ref\\nnew.md:1:NEEDLE two"),
        "{out:?}"
    );
}

/// A symlinked root retargeted the way deployments do it (`ln -sfn v2
/// current`: a new link renamed over the old) is noticed, and so is a
/// root folder swapped for a link and back.
#[test]
fn a_retargeted_root_link_is_followed_by_watch() {
    use std::process::Stdio;
    let temp = tempfile::tempdir().unwrap();
    let base = temp.path();
    write(base, "v1/a/SKILL.md", skill_md("a", "A. Use when testing."));
    write(base, "v2/b/SKILL.md", skill_md("b", "B. Use when testing."));
    std::os::unix::fs::symlink("v1", base.join("current")).unwrap();
    /// Killed when the test ends, passed or failed.
    struct Killed(std::process::Child);
    impl Drop for Killed {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let mut child = Killed(
        skilldex()
            .current_dir(base)
            .args(["watch", "--root", "current", "--json"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let lines = super::line_channel(child.0.stdout.take().unwrap());
    let mut seen = Vec::new();
    let mut wait_for = |what: &str, check: &dyn Fn(&serde_json::Value) -> bool| {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let Ok(line) = lines.recv_timeout(left) else {
                panic!("no {what} within 60 s; seen:\n{}", seen.join("\n"));
            };
            seen.push(line.clone());
            if serde_json::from_str::<serde_json::Value>(&line).is_ok_and(|v| check(&v)) {
                return;
            }
        }
    };
    let has = |v: &serde_json::Value, key: &str, id: &str| {
        v[key].as_array().is_some_and(|a| a.iter().any(|x| x == id))
    };
    wait_for("ready", &|v| v["type"] == "ready");
    std::os::unix::fs::symlink("v2", base.join("current.new")).unwrap();
    std::fs::rename(base.join("current.new"), base.join("current")).unwrap();
    wait_for("b after the retarget", &|v| {
        has(v, "added", "b") && has(v, "removed", "a")
    });
    // The link swapped for a folder, and back.
    std::fs::remove_file(base.join("current")).unwrap();
    write(
        base,
        "current/c/SKILL.md",
        skill_md("c", "C. Use when testing."),
    );
    wait_for("c in the folder", &|v| has(v, "added", "c"));
    std::fs::rename(base.join("current"), base.join("v3")).unwrap();
    std::os::unix::fs::symlink("v1", base.join("current")).unwrap();
    wait_for("a again", &|v| {
        has(v, "added", "a") && has(v, "removed", "c")
    });
}

#[cfg(feature = "mcp")]
mod served {
    use super::*;
    use crate::mcp::Raw;
    use serde_json::{json, Value};

    fn text_of(answer: &Value) -> String {
        answer.to_string()
    }

    #[test]
    fn nothing_a_link_hides_is_served_or_listed() {
        let temp = tree_with_links_to_hidden_files();
        let root = temp.path();
        let mut raw = Raw::start(root, &["--no-watch"]);
        for file in ["git.md", "ignored.md", "keys/key.txt"] {
            let answer = raw.request(
                "resources/read",
                json!({"uri": format!("skill://s/{file}")}),
            );
            assert!(answer.get("error").is_some(), "{file}: {answer}");
            assert!(!text_of(&answer).contains("HIDDEN-MARKER"), "{answer}");
            let (is_error, text) = raw.call("read_skill", json!({"name": "s", "path": file}));
            assert!(is_error, "{file}: {text}");
            assert!(!text.contains("HIDDEN-MARKER"), "{text}");
        }
        let (_, text) = raw.call("grep_skills", json!({"pattern": "MARKER"}));
        assert!(text.contains("VISIBLE-MARKER"), "{text}");
        assert!(!text.contains("HIDDEN-MARKER"), "{text}");
        let answer = raw.request("skills/get", json!({"uri": "skill://s/SKILL.md"}));
        let listed = text_of(&answer);
        assert!(listed.contains("skill://s/alias.md"), "{listed}");
        for hidden in ["git.md", "ignored.md", "keys", ".git"] {
            assert!(
                !listed.contains(&format!("skill://s/{hidden}\"")),
                "{hidden}: {listed}"
            );
        }
        for folder in [".git", "secrets", "keys"] {
            let answer = raw.request(
                "resources/directory/read",
                json!({"uri": format!("skill://s/{folder}")}),
            );
            assert!(answer.get("error").is_some(), "{folder}: {answer}");
        }
        let answer = raw.request("resources/directory/read", json!({"uri": "skill://s"}));
        let listed = text_of(&answer);
        assert!(listed.contains("skill://s/alias.md"), "{listed}");
        for hidden in ["git.md", "ignored.md", "keys", ".git", "secrets"] {
            assert!(
                !listed.contains(&format!("skill://s/{hidden}\"")),
                "{hidden}: {listed}"
            );
        }
    }

    #[test]
    fn a_pipe_swapped_in_after_the_scan_is_refused_and_serve_goes_on() {
        let temp = tempfile::tempdir().unwrap();
        let root = temp.path();
        write(root, "s/SKILL.md", skill_md("s", "S. Use when testing."));
        write(root, "s/ref.md", "# Ref\n");
        let mut raw = Raw::start(root, &["--no-watch"]);
        for file in ["SKILL.md", "ref.md"] {
            std::fs::remove_file(root.join("s").join(file)).unwrap();
            mkfifo(&root.join("s").join(file));
        }
        for file in ["SKILL.md", "ref.md"] {
            let answer = raw.request(
                "resources/read",
                json!({"uri": format!("skill://s/{file}")}),
            );
            let message = answer["error"]["message"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            assert!(message.contains("named pipe (FIFO)"), "{file}: {answer}");
            let (is_error, text) = raw.call("read_skill", json!({"name": "s", "path": file}));
            assert!(
                is_error && text.contains("named pipe (FIFO)"),
                "{file}: {text}"
            );
        }
        let answer = raw.request("skills/get", json!({"uri": "skill://s/SKILL.md"}));
        assert!(answer.get("error").is_some(), "{answer}");
        let answer = raw.request("ping", json!({}));
        assert!(answer.get("result").is_some(), "{answer}");
        // Closing stdin still ends it.
        let (status, _, _) = raw.close();
        assert!(status.success(), "{status:?}");
    }

    #[test]
    fn odd_file_names_are_escaped_and_what_is_advertised_is_served() {
        use std::os::unix::ffi::OsStrExt;
        let temp = tempfile::tempdir().unwrap();
        let root = temp.path();
        write(root, "s/SKILL.md", skill_md("s", "S. Use when testing."));
        write(root, "s/ref\x1b[2J.md", "NEEDLE one\n");
        write(root, "s/ref\nnew.md", "NEEDLE two\n");
        let odd = root
            .join("s")
            .join(std::ffi::OsStr::from_bytes(b"bad\xff.md"));
        std::fs::write(odd, "NEEDLE three\n").unwrap();
        let mut raw = Raw::start(root, &["--no-watch"]);
        let (_, text) = raw.call("grep_skills", json!({"pattern": "NEEDLE"}));
        assert!(!text.contains('\x1b'), "{text}");
        assert!(text.contains("s/ref\\nnew.md:1: NEEDLE two"), "{text}");
        let answer = raw.request("skills/get", json!({"uri": "skill://s/SKILL.md"}));
        let resources = answer["result"]["skill"]["resources"].as_array().cloned();
        let resources = resources.unwrap_or_else(|| panic!("{answer}"));
        assert!(resources.len() >= 3, "{answer}");
        for resource in resources {
            let uri = resource["uri"].as_str().unwrap();
            let read = raw.request("resources/read", json!({"uri": uri}));
            assert!(
                read.get("result").is_some(),
                "{uri} is advertised but not served: {read}"
            );
        }
    }

    #[test]
    fn protocol_mistakes_are_named() {
        let temp = tempfile::tempdir().unwrap();
        write(
            temp.path(),
            "s/SKILL.md",
            skill_md("s", "S. Use when testing."),
        );
        let mut raw = Raw::spawn(temp.path(), &["--no-watch"], std::process::Stdio::null());
        raw.send(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{},"clientInfo":{"name":"r","version":"1"}}}"#);
        let answer = raw.answer(&json!(1));
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("needs `protocolVersion`"), "{answer}");
        raw.send(r#"{"jsonrpc":"2.0","id":2,"id":3,"method":"ping"}"#);
        let answer = raw.wait_for("the duplicate-id answer", |m| m.get("error").is_some());
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("the key `id` is given twice"), "{answer}");
    }

    /// `serve` follows a root symlink retargeted the way deployments do it
    /// (`ln -sfn v2 current`), as `watch` does.
    #[test]
    fn a_retargeted_root_link_is_followed_by_serve() {
        let temp = tempfile::tempdir().unwrap();
        let base = temp.path();
        write(base, "v1/a/SKILL.md", skill_md("a", "A. Use when testing."));
        write(base, "v2/b/SKILL.md", skill_md("b", "B. Use when testing."));
        std::os::unix::fs::symlink("v1", base.join("current")).unwrap();
        let mut raw = Raw::start(&base.join("current"), &[]);
        let listed = raw.request("resources/list", json!({})).to_string();
        assert!(listed.contains("skill://a/SKILL.md"), "{listed}");
        std::os::unix::fs::symlink("v2", base.join("current.new")).unwrap();
        std::fs::rename(base.join("current.new"), base.join("current")).unwrap();
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let listed = raw.request("resources/list", json!({})).to_string();
            if listed.contains("skill://b/SKILL.md") && !listed.contains("skill://a/SKILL.md") {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "never followed the link: {listed}"
            );
            // Wait for the server's list-changed notice, or poll again.
            raw.wait_within(Duration::from_millis(200), |m| {
                m["method"] == "notifications/resources/list_changed"
            });
        }
        let (is_error, text) = raw.call("read_skill", json!({"name": "b"}));
        assert!(!is_error, "{text}");
    }

    /// Send `hostile` (a request line with id `hostile_id`) and then a
    /// ping; the ping's answer must come. Returns how long the ping took.
    fn ping_during(raw: &mut Raw, hostile: &str, hostile_id: &Value) -> Duration {
        raw.send(hostile);
        let ping_id = json!(format!("ping-{hostile_id}"));
        let sent = Instant::now();
        raw.send(&json!({"jsonrpc": "2.0", "id": ping_id, "method": "ping"}).to_string());
        let answer = raw.answer(&ping_id);
        let took = sent.elapsed();
        assert!(answer.get("result").is_some(), "{answer}");
        raw.answer(hostile_id);
        took
    }

    #[test]
    #[allow(clippy::print_stdout)] // the latencies, shown with --nocapture
    fn pings_are_answered_while_hostile_requests_are_handled() {
        let temp = tempfile::tempdir().unwrap();
        let root = temp.path();
        write(root, "s/SKILL.md", skill_md("s", "S. Use when testing."));
        // A big file grep must read whole: the slow request of the lot.
        let line = "nothing to see on this line, only filler text\n";
        write(
            root,
            "s/big.txt",
            line.repeat(20 * 1024 * 1024 / line.len()),
        );
        write(
            root,
            "deep/SKILL.md",
            format!(
                "---\nname: deep\ndescription: Deep. Use when testing.\nx: {}\n---\n",
                "[".repeat(60 * 1024)
            ),
        );
        write(root, "s/pipe-later.md", "x");
        let mut raw = Raw::start(root, &["--no-watch"]);
        std::fs::remove_file(root.join("s/pipe-later.md")).unwrap();
        mkfifo(&root.join("s/pipe-later.md"));
        let request = |id: &str, method: &str, params: Value| {
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
        };
        let huge_uri = format!("skill://s/{}", "a/".repeat(7 * 1024 * 1024));
        let long_uri = format!("skill://s/{}", "a/".repeat(400 * 1024));
        let cases = [
            (
                "huge-uri",
                request("huge-uri", "resources/read", json!({"uri": huge_uri})),
            ),
            (
                "long-uri",
                request("long-uri", "resources/read", json!({"uri": long_uri})),
            ),
            (
                "fifo",
                request(
                    "fifo",
                    "resources/read",
                    json!({"uri": "skill://s/pipe-later.md"}),
                ),
            ),
            (
                "grep-big",
                request(
                    "grep-big",
                    "tools/call",
                    json!({"name": "grep_skills", "arguments": {"pattern": "never-there-[0-9]+"}}),
                ),
            ),
        ];
        let mut report = Vec::new();
        for (id, line) in &cases {
            let took = ping_during(&mut raw, line, &json!(id));
            report.push(format!("{id}: ping answered in {took:?}"));
        }
        // The slow grep again, with the ping's answer required first.
        raw.send(&cases[3].1);
        let sent = Instant::now();
        raw.send(&json!({"jsonrpc": "2.0", "id": "order", "method": "ping"}).to_string());
        let first = raw.wait_for("an answer", |m| {
            m.get("id") == Some(&json!("order")) || m.get("id") == Some(&json!("grep-big"))
        });
        report.push(format!(
            "grep-big again: first answer {} after {:?}",
            first["id"],
            sent.elapsed()
        ));
        assert_eq!(first["id"], "order", "the grep held up the ping: {first}");
        raw.answer(&json!("grep-big"));
        println!("{}", report.join("\n"));
    }

    /// Swap `sw` between a folder (holding `SECRET`) and a symlink to a
    /// folder outside the skill (holding its own `SECRET`) as fast as the
    /// system allows while `read` runs: an answer must never carry the
    /// outside file.
    #[test]
    #[allow(clippy::print_stdout)] // the counts, shown with --nocapture
    fn a_folder_swapped_for_a_link_mid_read_never_leaks() {
        use std::sync::atomic::{AtomicBool, Ordering};
        let temp = tempfile::tempdir().unwrap();
        let root = temp.path().join("root");
        write(&root, "s/SKILL.md", skill_md("s", "S. Use when testing."));
        write(&root, "s/sw/SECRET", "inside\n");
        write(temp.path(), "outside/SECRET", "LEAKED outside\n");
        let skill = root.join("s");
        std::fs::rename(skill.join("sw"), skill.join("sw.dir")).unwrap();
        std::os::unix::fs::symlink(temp.path().join("outside"), skill.join("sw.link")).unwrap();
        std::fs::rename(skill.join("sw.dir"), skill.join("sw")).unwrap();
        let mut raw = Raw::start(&root, &["--no-watch"]);
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let swapper = {
            let stop = std::sync::Arc::clone(&stop);
            let skill = skill.clone();
            std::thread::spawn(move || {
                let mut swaps = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    // sw: folder → link → folder.
                    let _ = std::fs::rename(skill.join("sw"), skill.join("sw.dir"));
                    let _ = std::fs::rename(skill.join("sw.link"), skill.join("sw"));
                    let _ = std::fs::rename(skill.join("sw"), skill.join("sw.link"));
                    let _ = std::fs::rename(skill.join("sw.dir"), skill.join("sw"));
                    swaps += 1;
                }
                swaps
            })
        };
        let deadline = Instant::now() + Duration::from_secs(4);
        let (mut requests, mut leaks, mut cli_runs, mut served) = (0u64, Vec::new(), 0u64, 0u64);
        while Instant::now() < deadline {
            for (method, params) in [
                (
                    "tools/call",
                    json!({"name": "read_skill", "arguments": {"name": "s", "path": "sw/SECRET"}}),
                ),
                ("resources/read", json!({"uri": "skill://s/sw/SECRET"})),
                (
                    "tools/call",
                    json!({"name": "grep_skills", "arguments": {"pattern": "LEAKED|inside"}}),
                ),
            ] {
                let answer = raw.request(method, params);
                requests += 1;
                let text = answer.to_string();
                if text.contains("LEAKED outside") {
                    leaks.push(format!("{method}: {answer}"));
                }
                // The reads do reach the file (a test that could never
                // read it could never see a leak either).
                served += u64::from(text.contains("inside\\n"));
            }
            if requests % 60 == 0 {
                for args in [&["read", "s/sw/SECRET"][..], &["grep", "LEAKED|inside"]] {
                    let out = run(&root, args);
                    cli_runs += 1;
                    if out.stdout.contains("LEAKED outside") {
                        leaks.push(format!("{args:?}: {out:?}"));
                    }
                }
            }
        }
        stop.store(true, Ordering::Relaxed);
        let swaps = swapper.join().unwrap();
        println!(
            "{requests} MCP requests ({served} answered with the inside file) and {cli_runs} CLI runs during {swaps} swaps; {} leaks",
            leaks.len()
        );
        assert!(swaps > 0 && requests > 0 && cli_runs > 0 && served > 0);
        assert!(
            leaks.is_empty(),
            "{} leaks, first: {}",
            leaks.len(),
            leaks[0]
        );
    }
}

/// `skilldex ARGS --root ROOT` run as an unprivileged user (nobody), so a
/// mode-000 file stops it as it stops any user (root reads through mode
/// 000). `None`, with the reason printed, when that cannot be done here.
#[allow(clippy::print_stderr)] // The reason a test is skipped.
pub(crate) fn run_unprivileged(root: &Path, args: &[&str]) -> Option<super::Run> {
    let setpriv = Path::new("/usr/bin/setpriv");
    let probe = std::process::Command::new(setpriv)
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "true"])
        .status();
    if !probe.is_ok_and(|s| s.success()) {
        eprintln!("skipped: cannot run as an unprivileged user (setpriv --reuid=65534 failed or is missing)");
        return None;
    }
    let binary = std::path::PathBuf::from(env!("CARGO_BIN_EXE_skilldex"));
    let mut command = std::process::Command::new(setpriv);
    command
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(binary)
        .args(args)
        .arg("--root")
        .arg(root)
        .current_dir(root)
        .env_remove("SKILLDEX_CONFIG");
    Some(bounded(command))
}

/// A temp folder every user may enter (`tempdir` makes it 0700).
pub(crate) fn open_tempdir() -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let temp = tempfile::tempdir().unwrap();
    std::fs::set_permissions(temp.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    temp
}

#[test]
fn grep_names_the_files_it_could_not_read() {
    use std::os::unix::fs::PermissionsExt;
    let temp = open_tempdir();
    let root = temp.path();
    write(root, "s/SKILL.md", skill_md("s", "S. Use when testing."));
    write(root, "s/notes.md", "needle here\n");
    let locked = write(root, "s/refs/locked.md", "needle hidden\n");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    let Some(out) = run_unprivileged(root, &["grep", "needle"]) else {
        return;
    };
    // The readable file is answered; the locked one is named on stderr,
    // and the exit code says the answer is incomplete (as rg: 2).
    assert!(out.stdout.contains("s/notes.md:1:needle here"), "{out:?}");
    assert!(!out.stdout.contains("hidden"), "{out:?}");
    assert!(
        out.stderr.contains("could not read s/refs/locked.md")
            && out.stderr.contains("check its permissions"),
        "{out:?}"
    );
    assert_eq!(out.code, 2, "{out:?}");
    let out = run_unprivileged(root, &["grep", "needle", "--json"]).unwrap();
    let summary = out.stdout.lines().last().unwrap_or_default();
    assert!(summary.contains("\"unreadable\":1"), "{out:?}");
    // Readable again: an ordinary answer.
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = run_unprivileged(root, &["grep", "needle"]).unwrap();
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout.contains("s/refs/locked.md:1:needle hidden"),
        "{out:?}"
    );
}
