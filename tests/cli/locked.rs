//! Folders skilldex may not enter (mode 000): every command names the
//! folder and what to do, and goes on with the rest. Root reads through
//! mode 000, so the binary runs as an unprivileged user (`setpriv`, as in
//! `hardening::run_unprivileged`); each test says so and passes when that
//! cannot be done here.

use super::hardening::{open_tempdir, run_unprivileged};
use super::{line_channel, skill_md, write};
use serde_json::{json, Value};
use std::io::Write as _;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

/// How long to wait for a line before failing with what was seen.
const PATIENCE: Duration = Duration::from_secs(60);

fn lock(path: &Path) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o000)).unwrap();
}

fn unlock(path: &Path) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A root every user may read: skills `a` and `b` (`b` has a locked
/// `b/locked/` holding a file with `needle`), a locked skill folder `c`, and
/// namespaces `n1`..`n4` to add skills to while watching (folders listed
/// after the locked ones must be watched too, whatever the listing order).
fn locked_tree() -> (tempfile::TempDir, PathBuf) {
    let temp = open_tempdir();
    let root = temp.path().join("skills");
    for name in ["a", "b"] {
        write(
            &root,
            &format!("{name}/SKILL.md"),
            skill_md(name, "Letters. Use when testing.") + "needle\n",
        );
    }
    write(&root, "b/locked/hidden.md", "needle hidden\n");
    write(
        &root,
        "c/SKILL.md",
        skill_md("c", "Locked. Use when testing."),
    );
    for n in 1..=4 {
        write(&root, &format!("n{n}/README.md"), "# A namespace\n");
    }
    lock(&root.join("b/locked"));
    lock(&root.join("c"));
    (temp, root)
}

/// `skilldex ARGS --root ROOT` started as the unprivileged user with piped
/// stdio, or `None` (reason printed) when that cannot be done here.
fn spawn_unprivileged(root: &Path, args: &[&str]) -> Option<Child> {
    // The same probe as `run_unprivileged`: it prints why it skips.
    run_unprivileged(root, &["--version"])?;
    let child = Command::new("/usr/bin/setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(env!("CARGO_BIN_EXE_skilldex"))
        .args(args)
        .arg("--root")
        .arg(root)
        .current_dir(root)
        .env("NO_COLOR", "1")
        .env_remove("SKILLDEX_CONFIG")
        .env_remove("SKILLDEX_ROOTS")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("setpriv starts skilldex");
    Some(child)
}

/// Lines of one stream, waited for by content.
struct Lines {
    lines: Receiver<String>,
    seen: Vec<String>,
}

impl Lines {
    fn new(reader: impl std::io::Read + Send + 'static) -> Lines {
        Lines {
            lines: line_channel(reader),
            seen: Vec::new(),
        }
    }

    fn wait_for(&mut self, what: &str, check: impl Fn(&str) -> bool) -> String {
        if let Some(line) = self.seen.iter().find(|l| check(l)) {
            return line.clone();
        }
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
}

struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn added(line: &str, id: &str) -> bool {
    serde_json::from_str::<Value>(line).is_ok_and(|v| {
        v["type"] == "revision"
            && v["added"]
                .as_array()
                .is_some_and(|a| a.iter().any(|x| x == id))
    })
}

/// A locked folder is named (path and what to do) and the rest is still
/// watched; once unlocked, what it holds appears.
fn watch_goes_round_locked_folders(poll: bool) {
    let (_temp, root) = locked_tree();
    let mut args = vec!["watch", "--json"];
    if poll {
        args.extend(["--poll", "--poll-interval", "100"]);
    }
    let Some(mut child) = spawn_unprivileged(&root, &args) else {
        return;
    };
    let mut out = Lines::new(child.stdout.take().unwrap());
    let mut err = Lines::new(child.stderr.take().unwrap());
    let _child = Killed(child);
    out.wait_for("the ready line", |l| l.contains("\"ready\""));
    for folder in ["b/locked", "c"] {
        let path = root.join(folder);
        let line = err.wait_for(&format!("a warning naming {folder}"), |l| {
            l.contains(&format!("cannot watch {}:", path.display()))
        });
        assert!(line.contains("check its permissions"), "{line}");
    }
    assert!(
        !err.seen
            .iter()
            .any(|l| l.contains(&format!("cannot watch {}:", root.display()))),
        "the root itself is watched: {:?}",
        err.seen
    );
    // Every other folder is watched, before and after the locked ones.
    for n in 1..=4 {
        let id = format!("new{n}");
        write(
            &root,
            &format!("n{n}/{id}/SKILL.md"),
            skill_md(&id, "New. Use when testing."),
        );
        out.wait_for(&format!("{id} added"), |l| added(l, &id));
    }
    unlock(&root.join("c"));
    out.wait_for("c added once unlocked", |l| added(l, "c"));
    // Told once, however often it is polled or watched again.
    let told = format!("cannot watch {}:", root.join("b/locked").display());
    let times = err.seen.iter().filter(|l| l.contains(&told)).count();
    assert_eq!(times, 1, "{:?}", err.seen);
    assert!(
        !err.seen.iter().any(|l| l.contains("error")),
        "{:?}",
        err.seen
    );
}

#[test]
fn watch_names_a_locked_folder_and_watches_the_rest() {
    watch_goes_round_locked_folders(false);
}

#[test]
fn watch_by_polling_names_a_locked_folder_once() {
    watch_goes_round_locked_folders(true);
}

#[test]
fn read_and_grep_say_they_cannot_enter_a_locked_folder() {
    let (_temp, root) = locked_tree();
    let c = root.join("c");
    let Some(out) = run_unprivileged(&root, &["read", "c"]) else {
        return;
    };
    // Not "no skill named": the folder of that name may not be entered.
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr
            .contains(&format!("may not enter the folder {}", c.display()))
            && out.stderr.contains("check its permissions")
            && !out.stderr.contains("no skill named"),
        "{out:?}"
    );
    let out = run_unprivileged(&root, &["grep", "needle", "--skill", "c"]).unwrap();
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("may not enter the folder"), "{out:?}");
    // A name matching no folder is still unknown.
    let out = run_unprivileged(&root, &["read", "zz"]).unwrap();
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("no skill named `zz`"), "{out:?}");

    // grep answers what it could read and names both locked folders.
    let out = run_unprivileged(&root, &["grep", "needle"]).unwrap();
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stdout.contains("a/SKILL.md:") && out.stdout.contains("b/SKILL.md:"),
        "{out:?}"
    );
    assert!(!out.stdout.contains("hidden"), "{out:?}");
    assert!(
        out.stderr
            .contains("could not read b/locked/: skilldex may not enter this folder")
            && out
                .stderr
                .contains(&format!("could not read {}:", c.display())),
        "{out:?}"
    );
    // Asked about one skill, only its folders are named.
    let out = run_unprivileged(&root, &["grep", "needle", "--skill", "b", "--json"]).unwrap();
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stdout
            .lines()
            .last()
            .unwrap_or_default()
            .contains("\"unreadable\":1"),
        "{out:?}"
    );
    assert!(!out.stderr.contains(&c.display().to_string()), "{out:?}");
    let out = run_unprivileged(&root, &["grep", "needle", "--skill", "a"]).unwrap();
    assert_eq!(out.code, 0, "{out:?}");
    // Unlocked: an ordinary answer.
    unlock(&root.join("b/locked"));
    unlock(&c);
    let out = run_unprivileged(&root, &["grep", "needle"]).unwrap();
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("b/locked/hidden.md:1:"), "{out:?}");
}

/// A JSON-RPC session with a `serve` run as the unprivileged user.
struct Session {
    stdin: ChildStdin,
    out: Lines,
    next: u64,
}

impl Session {
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
        let answer = self.out.wait_for(&format!("the answer to {method}"), |l| {
            serde_json::from_str::<Value>(l).is_ok_and(|v| v["id"] == id)
        });
        serde_json::from_str(&answer).unwrap()
    }

    fn call(&mut self, tool: &str, arguments: Value) -> String {
        let answer = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("{tool}: {answer}"))
            .to_string()
    }
}

#[cfg(feature = "mcp")]
#[test]
fn serve_names_locked_folders_in_its_log_and_its_answers() {
    let (_temp, root) = locked_tree();
    // A file it may not read, too.
    let file = write(&root, "a/locked.md", "needle locked\n");
    lock(&file);
    let Some(mut child) = spawn_unprivileged(&root, &["serve"]) else {
        return;
    };
    let stdin = child.stdin.take().unwrap();
    let out = Lines::new(child.stdout.take().unwrap());
    let mut err = Lines::new(child.stderr.take().unwrap());
    let _child = Killed(child);
    let mut session = Session {
        stdin,
        out,
        next: 0,
    };
    let answer = session.request(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
    );
    assert!(answer.get("result").is_some(), "{answer}");
    writeln!(
        session.stdin,
        "{}",
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    )
    .unwrap();
    // The watcher names the locked folder; it keeps serving.
    let locked = root.join("b/locked");
    err.wait_for("a log line naming b/locked", |l| {
        l.contains(&format!("cannot watch {}:", locked.display()))
    });
    // The file it may not read: skills/get and the folder listing agree
    // (neither offers it), and reading it says why.
    let listed = session
        .request("skills/get", json!({"uri": "skill://a/SKILL.md"}))
        .to_string();
    let folder = session
        .request("resources/directory/read", json!({"uri": "skill://a"}))
        .to_string();
    assert!(listed.contains("skill://a/SKILL.md"), "{listed}");
    assert!(folder.contains("skill://a/SKILL.md"), "{folder}");
    assert_eq!(
        listed.contains("skill://a/locked.md"),
        folder.contains("skill://a/locked.md"),
        "skills/get: {listed}\ndirectory: {folder}"
    );
    let answer = session.request("resources/read", json!({"uri": "skill://a/locked.md"}));
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("Permission denied"), "{answer}");
    let text = session.call("read_skill", json!({"name": "a", "path": "locked.md"}));
    assert!(text.contains("Permission denied"), "{text}");
    let text = session.call("read_skill", json!({"name": "c"}));
    assert!(
        text.contains("may not enter the folder") && !text.contains("no skill named"),
        "{text}"
    );
    let text = session.call("grep_skills", json!({"pattern": "needle"}));
    assert!(text.contains("a/SKILL.md:"), "{text}");
    assert!(!text.contains("hidden"), "{text}");
    assert!(
        text.contains("not searched: b/locked/: skilldex may not enter this folder")
            && text.contains(&format!("not searched: {}:", root.join("c").display())),
        "{text}"
    );
    assert!(
        text.contains("not searched: a/locked.md:") && text.contains("Permission denied"),
        "{text}"
    );
    let text = session.call("grep_skills", json!({"pattern": "needle", "skill": "b"}));
    assert!(!text.contains("not searched: a/"), "{text}");
    assert!(text.contains("not searched: b/locked/"), "{text}");
}
