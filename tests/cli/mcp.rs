//! `skilldex serve` driven by an independent client: the official MCP
//! Python SDK (tests/mcp/*.py) against the real binary over stdio.
//!
//! The first run creates a virtual environment in `target/mcp-venv` from
//! the pinned tests/mcp/requirements.txt (it is rebuilt when that file
//! changes). Without Python 3.10+ these tests fail and say what to
//! install: an MCP server untested by a real client is not tested.
//!
//! Protocol details no SDK lets a client get wrong on purpose (a missing
//! `jsonrpc`, a cursor kept across a change) are tested here with `Raw`,
//! which writes JSON-RPC lines to the binary and reads its answers by id.

use super::{copy_dir, repo, write};
use serde_json::{json, Value};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The venv's python, created once per test run.
fn python() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| {
        let venv = repo().join("target/mcp-venv");
        let requirements = repo().join("tests/mcp/requirements.txt");
        let wanted = std::fs::read_to_string(&requirements).expect("tests/mcp/requirements.txt");
        let stamp = venv.join("requirements.installed");
        let python = venv.join("bin/python");
        if std::fs::read_to_string(&stamp).ok().as_deref() == Some(wanted.as_str()) && python.exists() {
            return python;
        }
        let system = ["python3", "python"]
            .into_iter()
            .find(|p| {
                Command::new(p)
                    .args(["-c", "import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)"])
                    .status()
                    .is_ok_and(|s| s.success())
            })
            .unwrap_or_else(|| {
                panic!(
                    "the MCP end-to-end tests need Python 3.10 or newer with the venv module \
                     (Debian/Ubuntu: apt-get install python3 python3-venv; macOS: brew install python) \
                     — install it and run cargo test again"
                )
            });
        let _ = std::fs::remove_dir_all(&venv);
        let status = Command::new(system)
            .args(["-m", "venv"])
            .arg(&venv)
            .status()
            .expect("python -m venv runs");
        assert!(
            status.success(),
            "`{system} -m venv {}` failed — install the venv module (Debian/Ubuntu: apt-get install python3-venv)",
            venv.display()
        );
        let output = Command::new(venv.join("bin/pip"))
            .args(["install", "--quiet", "--disable-pip-version-check", "-r"])
            .arg(&requirements)
            .output()
            .expect("pip runs");
        assert!(
            output.status.success(),
            "pip install -r tests/mcp/requirements.txt failed (is PyPI reachable?):\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        std::fs::write(&stamp, wanted).unwrap();
        python
    })
}

/// A catalog for the end-to-end tests: the bundled skills, a long skill
/// with sections, a skill disabled by the configuration, and one whose name
/// breaks the Skills extension's rules.
fn fixture() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("skills");
    copy_dir(&repo().join("skills"), &root);
    let mut big = String::from(
        "---\nname: big\ndescription: A long reference. Use when testing long reads.\n---\n\n# Big\n\n",
    );
    for part in 1..=3 {
        big.push_str(&format!("## Part {part}\n\n"));
        for line in 0..400 {
            big.push_str(&format!(
                "Line {line} of part {part} says something about tokens and budgets.\n"
            ));
        }
        big.push('\n');
    }
    write(&root, "docs/big/SKILL.md", big);
    write(
        &root,
        "private/secret-recipes/SKILL.md",
        "---\nname: secret-recipes\ndescription: The family recipes. Use when cooking for the family.\n---\n\n# Recipes\n\nSalt first.\n",
    );
    write(
        &root,
        "odd/Bad_Name/SKILL.md",
        "---\nname: Bad_Name\ndescription: A name the extension refuses. Use when testing.\n---\n\n# Odd\n",
    );
    let config = temp.path().join("skilldex.yaml");
    std::fs::write(
        &config,
        // `old-recipes` names no skill: serve warns and carries on.
        "# test configuration\nformat: markdown\ndisabled: [secret-recipes, old-recipes]  # private\n",
    )
    .unwrap();
    (temp, root, config)
}

#[allow(clippy::print_stdout)] // the report, shown with --nocapture
pub(crate) fn run_script(script: &str, args: &[&str]) {
    let output = Command::new(python())
        .arg(repo().join("tests/mcp").join(script))
        .args(args)
        .output()
        .expect("python runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{script} {args:?} failed:\n{stdout}\n--- stderr ---\n{stderr}"
    );
    // Keep the report visible with --nocapture.
    println!("{stdout}");
}

fn e2e(mode: &str) {
    let (_temp, root, config) = fixture();
    run_script(
        "e2e.py",
        &[
            "--mode",
            mode,
            "--binary",
            env!("CARGO_BIN_EXE_skilldex"),
            "--root",
            root.to_str().unwrap(),
            "--config",
            config.to_str().unwrap(),
            "--live",
        ],
    );
}

#[test]
fn python_sdk_legacy_session() {
    e2e("legacy");
}

#[test]
fn python_sdk_2026_session() {
    e2e("auto");
}

#[test]
fn hostile_and_heavy_input_is_answered() {
    let (_temp, root, _config) = fixture();
    run_script(
        "robustness.py",
        &[
            "--binary",
            env!("CARGO_BIN_EXE_skilldex"),
            "--root",
            root.to_str().unwrap(),
            "--touch",
            root.join("data").to_str().unwrap(),
        ],
    );
}

/// A root that does not exist when `serve` starts is followed once it
/// appears, as `watch` does (raw JSON-RPC over the pipes).
#[test]
fn serve_waits_for_a_root_created_later() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::Stdio;
    use std::time::{Duration, Instant};
    let temp = tempfile::tempdir().unwrap();
    let present = temp.path().join("present");
    write(
        &present,
        "alpha/SKILL.md",
        super::skill_md("alpha", "Alpha tasks. Use when alpha is needed."),
    );
    let later = temp.path().join("later/deep");
    let mut child = super::skilldex()
        .current_dir(temp.path())
        .args(["serve", "--root"])
        .arg(&present)
        .arg("--root")
        .arg(&later)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let (lines, answers) = std::sync::mpsc::channel::<String>();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = lines.send(line);
        }
    });
    let mut send = |text: String| {
        stdin.write_all(text.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    };
    let answer = |id: u64| -> serde_json::Value {
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline {
            if let Ok(line) = answers.recv_timeout(Duration::from_secs(1)) {
                let value: serde_json::Value = serde_json::from_str(&line).unwrap();
                if value["id"] == id {
                    return value;
                }
            }
        }
        panic!("no answer to request {id}");
    };
    send(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#.into());
    let init = answer(1);
    assert!(init["result"]["serverInfo"].is_object(), "{init}");
    send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.into());
    write(
        &later,
        "beta/SKILL.md",
        super::skill_md("beta", "Beta tasks. Use when beta is needed."),
    );
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut id = 10;
    loop {
        id += 1;
        send(format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"read_skill","arguments":{{"name":"beta"}}}}}}"#
        ));
        let reply = answer(id);
        if reply["result"]["isError"] == false {
            assert!(reply.to_string().contains("skill beta"), "{reply}");
            break;
        }
        assert!(Instant::now() < deadline, "beta never appeared: {reply}");
        std::thread::sleep(Duration::from_millis(200));
    }
    // Closing stdin ends the session.
    drop(stdin);
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert!(err.contains("does not exist yet"), "{err}");
}

/// How long to wait for one answer or notification.
pub(crate) const WAIT: Duration = Duration::from_secs(20);

/// `skilldex serve` over raw JSON-RPC lines: an `initialize` session.
pub(crate) struct Raw {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// Every message read so far and not yet taken, in order.
    seen: Vec<Value>,
    pub(crate) next_id: u64,
}

impl Raw {
    /// Serve `root` (with `extra` flags) and finish the `initialize` handshake.
    pub(crate) fn start(root: &Path, extra: &[&str]) -> Raw {
        let mut raw = Raw::spawn(root, extra, Stdio::null());
        let answer = raw.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}),
        );
        assert!(answer.get("result").is_some(), "{answer}");
        raw.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());
        raw
    }

    /// Serve `root` (with `extra` flags), nothing sent yet.
    pub(crate) fn spawn(root: &Path, extra: &[&str], stderr: Stdio) -> Raw {
        let mut child = super::skilldex()
            .arg("serve")
            .arg("--root")
            .arg(root)
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .expect("skilldex serve starts");
        let stdin = child.stdin.take();
        let lines = super::line_channel(child.stdout.take().unwrap());
        Raw {
            child,
            stdin,
            lines,
            seen: Vec::new(),
            next_id: 1,
        }
    }

    /// Close stdin and wait for the server to exit: its status, how long
    /// it took, and what it wrote to stderr (when that was piped).
    pub(crate) fn close(&mut self) -> (std::process::ExitStatus, Duration, String) {
        let closed = Instant::now();
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        let took = closed.elapsed();
        let mut stderr = String::new();
        if let Some(mut pipe) = self.child.stderr.take() {
            std::io::Read::read_to_string(&mut pipe, &mut stderr).unwrap();
        }
        (status, took, stderr)
    }

    pub(crate) fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        writeln!(stdin, "{line}").expect("the server reads stdin");
        stdin.flush().unwrap();
    }

    /// The first message (read or still to come) that `wanted` accepts;
    /// fails with what was seen after `WAIT`.
    pub(crate) fn wait_for(&mut self, what: &str, wanted: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(i) = self.seen.iter().position(&wanted) {
                return self.seen.remove(i);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => self
                    .seen
                    .push(serde_json::from_str(&line).unwrap_or_else(|e| {
                        panic!("the server wrote a line that is not JSON ({e}): {line}")
                    })),
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => panic!(
                    "no {what} within {WAIT:?}; the server wrote:\n{}",
                    self.seen
                        .iter()
                        .map(Value::to_string)
                        .collect::<Vec<_>>()
                        .join("\n")
                ),
            }
        }
    }

    /// The answer to the request with this id.
    pub(crate) fn answer(&mut self, id: &Value) -> Value {
        self.wait_for(&format!("answer with id {id}"), |m| {
            m.get("id") == Some(id) && (m.get("result").is_some() || m.get("error").is_some())
        })
    }

    pub(crate) fn request(&mut self, method: &str, params: Value) -> Value {
        let id = json!(self.next_id);
        self.next_id += 1;
        self.send(
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string(),
        );
        self.answer(&id)
    }

    /// A `tools/call`; returns (is_error, text).
    pub(crate) fn call(&mut self, tool: &str, arguments: Value) -> (bool, String) {
        let answer = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        let result = answer
            .get("result")
            .unwrap_or_else(|| panic!("{tool} {arguments}: no result: {answer}"));
        (
            result["isError"].as_bool().unwrap_or(false),
            result["content"][0]["text"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
        )
    }

    /// The error of a request that must fail: (code, message).
    pub(crate) fn error(&mut self, method: &str, params: Value) -> (i64, String) {
        let answer = self.request(method, params.clone());
        let error = answer
            .get("error")
            .unwrap_or_else(|| panic!("{method} {params}: expected an error, got {answer}"));
        (
            error["code"].as_i64().unwrap(),
            error["message"].as_str().unwrap().to_string(),
        )
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn every_error_answer_carries_the_request_id() {
    let (_temp, root, _config) = fixture();
    let mut raw = Raw::start(&root, &["--no-watch"]);
    for (line, id, says) in [
        (
            r#"{"id":77,"method":"ping"}"#,
            json!(77),
            "`jsonrpc` is missing",
        ),
        (
            r#"{"jsonrpc":"1.0","id":78,"method":"ping"}"#,
            json!(78),
            r#"`jsonrpc` must be "2.0", not "1.0""#,
        ),
        (
            r#"{"jsonrpc":"1.0","id":"seventy-nine","method":"ping"}"#,
            json!("seventy-nine"),
            r#"must be "2.0""#,
        ),
        (
            r#"{"jsonrpc":2,"id":80,"method":"ping"}"#,
            json!(80),
            r#"`jsonrpc` must be the string "2.0""#,
        ),
        (
            r#"{"jsonrpc":"2.0","id":81,"method":"ping","params":{"_meta":5}}"#,
            json!(81),
            "`_meta` of ping must be an object",
        ),
        (
            r#"{"jsonrpc":"2.0","id":82,"method":"tools/call","params":{"name":"read_skill","arguments":{},"_meta":[]}}"#,
            json!(82),
            "`_meta` of tools/call must be an object",
        ),
    ] {
        raw.send(line);
        let answer = raw.answer(&id);
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(says), "{line}: {answer}");
        assert_eq!(answer["jsonrpc"], "2.0", "{line}: {answer}");
    }
    // An id that cannot be read is answered with id null.
    raw.send(r#"{"jsonrpc":"1.0","id":{"x":1},"method":"ping"}"#);
    let answer = raw.answer(&Value::Null);
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
    // The session goes on.
    assert!(raw.request("ping", json!({})).get("result").is_some());
}

fn skill_file(name: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: Skill {name}. Use when testing paging.\n---\n\n# {name}\n"
    )
}

/// The names on one `skills/list` page, and its `nextCursor`.
fn skills_page(raw: &mut Raw, cursor: Option<&str>) -> (Vec<String>, Option<String>) {
    let params = match cursor {
        Some(cursor) => json!({"cursor": cursor}),
        None => json!({}),
    };
    let answer = raw.request("skills/list", params);
    let result = answer
        .get("result")
        .unwrap_or_else(|| panic!("skills/list: {answer}"));
    let names = result["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["frontmatter"]["name"].as_str().unwrap().to_string())
        .collect();
    (names, result["nextCursor"].as_str().map(str::to_string))
}

#[test]
fn skills_list_pages_continue_after_the_last_skill_served() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("skills");
    for i in 0..230 {
        let name = format!("s{i:03}");
        write(&root, &format!("{name}/SKILL.md"), skill_file(&name));
    }
    let mut raw = Raw::start(&root, &[]);
    let changed = |m: &Value| m["method"] == "notifications/resources/list_changed";
    let (first, cursor) = skills_page(&mut raw, None);
    assert_eq!((first.len(), first[99].as_str()), (100, "s099"));
    let cursor = cursor.expect("a second page");
    assert!(
        !cursor.contains("100"),
        "the cursor is not an offset: {cursor}"
    );
    // A skill that sorts first appears between two pages: the next page
    // still starts after s099, with nothing repeated.
    write(&root, "a000/SKILL.md", skill_file("a000"));
    raw.wait_for(
        "notifications/resources/list_changed after adding a000",
        changed,
    );
    let (second, cursor) = skills_page(&mut raw, Some(&cursor));
    assert_eq!(
        (second.len(), second[0].as_str(), second[99].as_str()),
        (100, "s100", "s199")
    );
    // The skill the cursor names is removed: the next page starts at the
    // first skill after it.
    std::fs::remove_dir_all(root.join("s199")).unwrap();
    raw.wait_for(
        "notifications/resources/list_changed after removing s199",
        changed,
    );
    let (third, cursor) = skills_page(&mut raw, Some(&cursor.expect("a third page")));
    assert_eq!(
        (third.len(), third.first().map(String::as_str), cursor),
        (30, Some("s200"), None)
    );
    // A cursor that is not one of ours is a clear -32602.
    for cursor in ["garbage", "100", ""] {
        let (code, message) = raw.error("skills/list", json!({"cursor": cursor}));
        assert_eq!(code, -32602, "{cursor:?}: {message}");
        assert!(
            message.contains("invalid cursor") && message.contains("nextCursor"),
            "{cursor:?}: {message}"
        );
    }
}

#[test]
fn resources_list_pages_continue_after_the_last_skill_served() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("skills");
    for i in 0..1_002 {
        let name = format!("s{i:04}");
        write(&root, &format!("{name}/SKILL.md"), skill_file(&name));
    }
    let mut raw = Raw::start(&root, &[]);
    let uris = |answer: &Value| -> Vec<String> {
        answer["result"]["resources"]
            .as_array()
            .unwrap_or_else(|| panic!("resources/list: {answer}"))
            .iter()
            .map(|r| r["uri"].as_str().unwrap().to_string())
            .collect()
    };
    let first = raw.request("resources/list", json!({}));
    let page = uris(&first);
    assert_eq!(
        (page.len(), page[0].as_str(), page[999].as_str()),
        (1_000, "skilldex://directory", "skill://s0998/SKILL.md")
    );
    let cursor = first["result"]["nextCursor"].as_str().unwrap().to_string();
    write(&root, "a000/SKILL.md", skill_file("a000"));
    raw.wait_for("notifications/resources/list_changed", |m| {
        m["method"] == "notifications/resources/list_changed"
    });
    let second = raw.request("resources/list", json!({"cursor": cursor}));
    assert_eq!(
        uris(&second),
        [
            "skill://s0999/SKILL.md",
            "skill://s1000/SKILL.md",
            "skill://s1001/SKILL.md"
        ]
    );
    assert!(second["result"].get("nextCursor").is_none(), "{second}");
    let (code, message) = raw.error("resources/list", json!({"cursor": "999"}));
    assert!(
        code == -32602 && message.contains("invalid cursor"),
        "{message}"
    );
}

#[test]
fn counts_below_one_are_refused_in_the_same_words() {
    let (_temp, root, _config) = fixture();
    let mut raw = Raw::start(&root, &["--no-watch"]);
    for (tool, arguments, says) in [
        (
            "grep_skills",
            json!({"pattern": "a", "max_results": 0}),
            "`max_results` is 0; it must be at least 1 — leave it out for the default (200)",
        ),
        (
            "grep_skills",
            json!({"pattern": "a", "max_results": -3}),
            "`max_results` is -3; it must be at least 1",
        ),
        (
            "search_skills",
            json!({"query": "csv", "limit": 0}),
            "`limit` is 0; it must be at least 1 — leave it out for the default (8)",
        ),
        (
            "search_skills",
            json!({"query": "csv", "limit": -1}),
            "`limit` is -1; it must be at least 1",
        ),
        (
            "read_skill",
            json!({"name": "csv-cleanup", "start_line": 0}),
            "`start_line` is 0; it must be at least 1 — line numbers start at 1",
        ),
        (
            "read_skill",
            json!({"name": "csv-cleanup", "end_line": -5}),
            "`end_line` is -5; it must be at least 1",
        ),
    ] {
        let (is_error, text) = raw.call(tool, arguments.clone());
        assert!(
            is_error && text.contains(says),
            "{tool} {arguments}: {text}"
        );
    }
    // One match is still one match.
    let (is_error, text) = raw.call("grep_skills", json!({"pattern": "CSV", "max_results": 1}));
    assert!(
        !is_error && text.starts_with("1 match in 1 file (stopped at 1"),
        "{text}"
    );
    // A number that is not whole is not an integer at all: -32602.
    let (code, message) = raw.error(
        "tools/call",
        json!({"name": "grep_skills", "arguments": {"pattern": "a", "max_results": 2.5}}),
    );
    assert_eq!(code, -32602);
    assert_eq!(
        message,
        "grep_skills: argument `max_results` must be a whole number, not the number 2.5"
    );
}

#[test]
fn a_bad_regex_is_reported_against_the_pattern_as_written() {
    let (_temp, root, _config) = fixture();
    let mut raw = Raw::start(&root, &["--no-watch"]);
    for pattern in ["(", "a{2,1}", "[z-a]"] {
        let (is_error, text) = raw.call("grep_skills", json!({"pattern": pattern}));
        assert!(is_error, "{pattern}: {text}");
        assert!(
            text.contains("not a valid regular expression") && text.contains(pattern),
            "{pattern}: {text}"
        );
        assert!(!text.contains("(?:"), "{pattern}: {text}");
        assert!(text.contains("fixed_strings: true"), "{pattern}: {text}");
    }
}

#[test]
fn unknown_names_are_answered_in_the_terms_they_were_passed() {
    let (_temp, root, _config) = fixture();
    let mut raw = Raw::start(&root, &["--no-watch"]);
    for (name, says) in [
        (
            "ns1/zeta",
            "no skill `zeta` in namespace `ns1`, and no namespace `ns1` exists — find skills with search_skills",
        ),
        (
            "data/csv-cleanu",
            "no skill `csv-cleanu` in namespace `data` — did you mean `data/csv-cleanup`?",
        ),
        (
            "dev/csv-cleanup",
            "no skill `csv-cleanup` in namespace `dev` — did you mean `data/csv-cleanup`?",
        ),
        (
            "../csv-cleanup",
            "`../csv-cleanup` is not a skill name: `..` is not allowed in a skill name or path — did you mean `csv-cleanup`?",
        ),
        ("csv-cleanu", "no skill named `csv-cleanu` — did you mean `csv-cleanup`?"),
    ] {
        let (is_error, text) = raw.call("read_skill", json!({"name": name}));
        assert!(is_error, "{name}: {text}");
        assert_eq!(text, says, "{name}");
        // The same with a path: the name is still the name.
        let (is_error, text) = raw.call("read_skill", json!({"name": name, "path": "scripts/profile_csv.py"}));
        assert!(is_error && text == says, "{name} with a path: {text}");
    }
    // A path that climbs is still refused as a path.
    let (is_error, text) = raw.call("read_skill", json!({"name": "csv-cleanup", "path": "../x"}));
    assert!(
        is_error && text.contains("paths may not leave the skill folder"),
        "{text}"
    );
}

#[test]
fn a_skill_uri_without_its_namespace_gets_the_right_uri() {
    let (_temp, root, _config) = fixture();
    let mut raw = Raw::start(&root, &["--no-watch"]);
    let right = "skill://data/csv-cleanup/SKILL.md";
    for uri in [
        "skill://csv-cleanup/SKILL.md",
        "skill://dev/csv-cleanup/SKILL.md",
    ] {
        let (code, message) = raw.error("skills/get", json!({"uri": uri}));
        assert_eq!(code, -32602, "{uri}: {message}");
        assert!(
            message.starts_with(&format!(
                "No skill is served at {uri} — did you mean {right}?"
            )),
            "{uri}: {message}"
        );
    }
    let (_, message) = raw.error(
        "resources/read",
        json!({"uri": "skill://csv-cleanup/SKILL.md"}),
    );
    assert!(
        message.contains(&format!("did you mean {right}?")),
        "{message}"
    );
    // Nothing like it: no hint.
    let (_, message) = raw.error(
        "skills/get",
        json!({"uri": "skill://nothing-like-it/SKILL.md"}),
    );
    assert_eq!(
        message,
        "No skill is served at skill://nothing-like-it/SKILL.md"
    );
    // The right URI works.
    let answer = raw.request("skills/get", json!({"uri": right}));
    assert!(answer.get("result").is_some(), "{answer}");
}

#[test]
fn methods_not_offered_say_what_is() {
    let (_temp, root, _config) = fixture();
    let mut raw = Raw::start(&root, &["--no-watch"]);
    let offers = "(this server offers tools, resources and skills: tools/list, tools/call, resources/list, resources/read, skills/list, skills/get";
    for (method, params) in [
        ("prompts/list", json!({})),
        ("prompts/get", json!({"name": "x"})),
        ("logging/setLevel", json!({"level": "debug"})),
        (
            "resources/subscribe",
            json!({"uri": "skill://data/csv-cleanup/SKILL.md"}),
        ),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "x"}, "argument": {"name": "a", "value": "b"}}),
        ),
        ("completion/complete", json!({})),
        ("no/such/method", json!({})),
    ] {
        let (code, message) = raw.error(method, params);
        assert_eq!(code, -32601, "{method}: {message}");
        assert!(
            message.starts_with(&format!("method not found: {method} {offers}")),
            "{method}: {message}"
        );
    }
    let (_, message) = raw.error("resources/subscribe", json!({"uri": "skill://x/SKILL.md"}));
    assert!(
        message.contains("notifications/resources/list_changed"),
        "{message}"
    );
    // A method the server offers, with params rmcp cannot read: -32602.
    let (code, message) = raw.error("initialize", json!({}));
    assert_eq!(code, -32602, "{message}");
    assert!(message.contains("initialize"), "{message}");
}

/// A reference file of a skill changes: its digest in `skills/list`
/// changes, and clients are told, though the directory is the same.
#[test]
fn a_changed_reference_file_is_announced() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("skills");
    write(&root, "alpha/SKILL.md", skill_file("alpha"));
    write(&root, "alpha/references/notes.md", "First notes.\n");
    let mut raw = Raw::start(&root, &[]);
    let digest = |raw: &mut Raw| -> String {
        let list = raw.request("skills/list", json!({}));
        list.to_string()
    };
    let before = digest(&mut raw);
    // Let the watcher settle in before the edit.
    std::thread::sleep(std::time::Duration::from_millis(300));
    write(
        &root,
        "alpha/references/notes.md",
        "Second notes, longer.\n",
    );
    raw.wait_for(
        "notifications/resources/list_changed after a reference edit",
        |m| m["method"] == "notifications/resources/list_changed",
    );
    let after = digest(&mut raw);
    assert_ne!(before, after, "the manifest's digest follows the file");
}

/// Every file a manifest lists reads back with its digest; a nested skill
/// whose name differs from its folder does not take over a folder of its
/// parent: it is left out of the extension (and stays readable by name).
#[test]
fn a_nested_skill_never_takes_over_its_parents_uris() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("skills");
    write(
        &root,
        "p/SKILL.md",
        super::skill_md("p", "Parent. Use when testing."),
    );
    write(&root, "p/references/guide.md", "the guide\n");
    write(
        &root,
        "p/refs/SKILL.md",
        super::skill_md("references", "Nested. Use when testing."),
    );
    write(&root, "p/refs/docs/x.md", "nested doc\n");
    // A nested skill named after its folder is served as before.
    write(
        &root,
        "p/inner/SKILL.md",
        super::skill_md("inner", "Inner. Use when testing."),
    );
    let mut raw = Raw::start(&root, &["--no-watch"]);
    let listed = raw.request("skills/list", json!({}));
    let skills = listed["result"]["skills"].as_array().unwrap().clone();
    let uris: Vec<&str> = skills.iter().map(|s| s["uri"].as_str().unwrap()).collect();
    assert_eq!(
        uris,
        ["skill://p/SKILL.md", "skill://p/inner/SKILL.md"],
        "{listed}"
    );
    let mut files = 0;
    for skill in &skills {
        for file in skill["resources"].as_array().unwrap() {
            let uri = file["uri"].as_str().unwrap();
            let answer = raw.request("resources/read", json!({"uri": uri}));
            let text = answer["result"]["contents"][0]["text"]
                .as_str()
                .unwrap_or_else(|| panic!("{uri}: {answer}"));
            let digest = rmcp::model::sha256_digest(text.as_bytes());
            assert_eq!(file["digest"], digest, "{uri}");
            files += 1;
        }
    }
    assert_eq!(files, 6);
    let listing = raw.request(
        "resources/directory/read",
        json!({"uri": "skill://p/references"}),
    );
    let names: Vec<&str> = listing["result"]["resources"]
        .as_array()
        .unwrap_or_else(|| panic!("{listing}"))
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["guide.md"], "{listing}");
    let (is_error, text) = raw.call("read_skill", json!({"name": "references"}));
    assert!(!is_error && text.contains("# references"), "{text}");
}

/// A client that closes stdin ends the session, whenever it does: exit 0,
/// no error, and at once even while an elicitation waits for the user.
#[test]
fn closing_stdin_ends_serve_cleanly_at_any_time() {
    let (_temp, root, config) = fixture();
    let config = config.to_str().unwrap();
    // Before `initialize`.
    let mut raw = Raw::spawn(&root, &["--no-watch"], Stdio::piped());
    let (status, _, stderr) = raw.close();
    assert!(status.success(), "{status:?}: {stderr}");
    assert!(!stderr.contains("skilldex: error"), "{stderr}");
    // While `request_skill_enable` waits for the user's answer.
    let mut raw = Raw::spawn(&root, &["--no-watch", "--config", config], Stdio::piped());
    let answer = raw.request(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {"form": {}}}, "clientInfo": {"name": "raw", "version": "1"}}),
    );
    assert!(answer.get("result").is_some(), "{answer}");
    raw.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());
    raw.send(
        &json!({"jsonrpc": "2.0", "id": "enable", "method": "tools/call", "params": {"name": "request_skill_enable", "arguments": {"name": "secret-recipes", "suggest_reason": "Cooking."}}})
            .to_string(),
    );
    raw.wait_for("elicitation/create", |m| {
        m["method"] == "elicitation/create"
    });
    let (status, took, stderr) = raw.close();
    assert!(status.success(), "{status:?}: {stderr}");
    assert!(took < Duration::from_secs(2), "took {took:?} to exit");
}

/// Requests before `initialize` are told to send it (or the 2026-07-28
/// `_meta`); a stray notification before it does not end the session.
#[test]
fn requests_before_initialize_are_told_to_send_it() {
    let (_temp, root, _config) = fixture();
    let mut raw = Raw::spawn(&root, &["--no-watch"], Stdio::piped());
    raw.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());
    for method in ["tools/list", "skills/list", "resources/list"] {
        let (code, message) = raw.error(method, json!({}));
        assert_eq!(code, -32602, "{method}: {message}");
        assert!(
            message.contains("send `initialize`") && message.contains("2026-07-28"),
            "{method}: {message}"
        );
    }
    let answer = raw.request(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}),
    );
    assert!(answer.get("result").is_some(), "{answer}");
    raw.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());
    let tools = raw.request("tools/list", json!({}));
    assert!(tools["result"]["tools"].is_array(), "{tools}");
    let (status, _, stderr) = raw.close();
    assert!(status.success(), "{status:?}: {stderr}");
}

/// Only canonical `skill://` URIs are served: aliases of a file or folder
/// (empty or dot segments, an encoded `/`, a trailing slash) are refused
/// with the URI meant; a cursor that is not a string is refused.
#[test]
fn non_canonical_uris_and_cursors_are_refused() {
    let (_temp, root, _config) = fixture();
    let mut raw = Raw::start(&root, &["--no-watch"]);
    let file = "skill://dev/code-review/references/checklist.md";
    assert!(raw.request("resources/read", json!({"uri": file}))["result"].is_object());
    for alias in [
        "skill://dev/code-review/references//checklist.md",
        "skill://dev/code-review/./references/checklist.md",
        "skill://dev/code-review/references/checklist.md/",
        "skill://dev/code-review/references%2Fchecklist.md",
        "skill://dev/code-review/references/../references/checklist.md",
    ] {
        let (code, message) = raw.error("resources/read", json!({"uri": alias}));
        assert_eq!(code, -32002, "{alias}: {message}");
        assert!(
            message.ends_with(&format!("— read {file}")),
            "{alias}: {message}"
        );
    }
    let (_, message) = raw.error("resources/read", json!({"uri": "skill://dev/code-review/"}));
    assert!(
        message.ends_with("— read skill://dev/code-review/SKILL.md"),
        "{message}"
    );
    for (alias, meant) in [
        (
            "skill://dev/code-review/references/..",
            "skill://dev/code-review",
        ),
        ("skill://dev/code-review/", "skill://dev/code-review"),
    ] {
        let (code, message) = raw.error("resources/directory/read", json!({"uri": alias}));
        assert_eq!(code, -32602, "{alias}: {message}");
        assert!(
            message.ends_with(&format!("— list {meant}")),
            "{alias}: {message}"
        );
    }
    for cursor in [json!(5), json!({"a": 1}), json!(true)] {
        let (code, message) = raw.error("skills/list", json!({"cursor": cursor}));
        assert_eq!(code, -32602, "{cursor}: {message}");
        assert!(
            message.contains("`cursor` of skills/list must be a string"),
            "{message}"
        );
    }
}

/// `read_skill` takes the skill:// URI search_skills hands out, of the
/// skill or of one of its files.
#[test]
fn read_skill_accepts_a_skill_uri() {
    let (_temp, root, _config) = fixture();
    let mut raw = Raw::start(&root, &["--no-watch"]);
    let (is_error, text) = raw.call("search_skills", json!({"query": "code review"}));
    assert!(!is_error, "{text}");
    let hits: Value = serde_json::from_str(&text).unwrap();
    let uri = hits["results"][0]["uri"].as_str().unwrap().to_string();
    assert_eq!(uri, "skill://dev/code-review/SKILL.md", "{text}");
    let (is_error, text) = raw.call("read_skill", json!({"name": uri}));
    assert!(
        !is_error && text.starts_with("skill code-review — SKILL.md"),
        "{text}"
    );
    let (is_error, text) = raw.call(
        "read_skill",
        json!({"name": "skill://dev/code-review/references/checklist.md"}),
    );
    assert!(
        !is_error && text.starts_with("skill code-review — references/checklist.md"),
        "{text}"
    );
    let (is_error, text) = raw.call(
        "read_skill",
        json!({"name": "skill://code-review/SKILL.md"}),
    );
    assert!(
        is_error && text.contains("is not the URI of a skill this server serves"),
        "{text}"
    );
}

/// search_skills and `skilldex search` say the same thing in words: a weak
/// answer comes flagged low with the same advice, a plain no-match too, and
/// every hit carries its confidence.
#[test]
fn search_skills_says_what_the_cli_says() {
    let (temp, root, _config) = fixture();
    let mut raw = Raw::start(&root, &["--no-watch"]);
    let root_s = root.to_str().unwrap();
    for (query, confidence, no_match) in [
        ("review a knitting pattern for a wool sweater", "low", false),
        ("knit a sweater", "low", true),
        ("review the code of a pull request", "high", false),
    ] {
        let (is_error, text) = raw.call("search_skills", json!({"query": query}));
        assert!(!is_error, "{text}");
        let answer: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(answer["confidence"], confidence, "{query}: {text}");
        assert_eq!(answer["no_match"], no_match, "{query}: {text}");
        for hit in answer["results"].as_array().unwrap() {
            assert!(
                hit["confidence"] == "high" || hit["confidence"] == "low",
                "{text}"
            );
        }
        let cli = super::run_in(temp.path(), &["search", "--root", root_s, query]);
        match answer["advice"].as_str() {
            Some(advice) => {
                assert_eq!(cli.stdout.lines().next(), Some(advice), "{query}: {cli:?}")
            }
            None => {
                assert_eq!(confidence, "high", "{text}");
                assert!(!cli.stdout.contains("Weak matches"), "{cli:?}");
            }
        }
    }
}

/// A disabled skill can be found: search_skills names the matching ones
/// apart from the results, `select:` too, and request_skill_enable
/// suggests disabled names.
#[test]
fn disabled_skills_are_named_apart_by_search() {
    let (_temp, root, config) = fixture();
    let mut raw = Raw::start(&root, &["--no-watch", "--config", config.to_str().unwrap()]);
    for query in ["family recipes", "select:secret-recipes"] {
        let (is_error, text) = raw.call("search_skills", json!({"query": query}));
        assert!(!is_error, "{text}");
        let answer: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            answer["disabled_matches"][0]["id"], "secret-recipes",
            "{query}: {text}"
        );
        assert!(
            answer["disabled_note"]
                .as_str()
                .is_some_and(|n| n.contains("request_skill_enable")),
            "{text}"
        );
        let ids: Vec<&str> = answer["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["id"].as_str().unwrap())
            .collect();
        assert!(!ids.contains(&"secret-recipes"), "{query}: {text}");
        if query.starts_with("select:") {
            assert_eq!(answer["unmatched_terms"], json!([]), "{text}");
        }
    }
    // Nothing disabled matches: no disabled_matches at all.
    let (_, text) = raw.call("search_skills", json!({"query": "git bisect"}));
    assert!(!text.contains("disabled_matches"), "{text}");
    let (is_error, text) = raw.call(
        "request_skill_enable",
        json!({"name": "secret-recipe", "suggest_reason": "Cooking."}),
    );
    assert!(
        is_error && text.contains("did you mean secret-recipes?"),
        "{text}"
    );
}

/// grep_skills searches one namespace; a namespace passed as `skill` is
/// pointed at `namespace`.
#[test]
fn grep_skills_searches_a_namespace() {
    let (_temp, root, _config) = fixture();
    let mut raw = Raw::start(&root, &["--no-watch"]);
    let (is_error, text) = raw.call(
        "grep_skills",
        json!({"pattern": "^name:", "namespace": "data"}),
    );
    assert!(!is_error, "{text}");
    let skills: Vec<&str> = text
        .lines()
        .skip(1)
        .map(|l| l.split('/').next().unwrap())
        .collect();
    assert_eq!(
        skills,
        ["csv-cleanup", "json-schema-design", "sql-query-review"],
        "{text}"
    );
    let (is_error, text) = raw.call("grep_skills", json!({"pattern": "a", "skill": "data"}));
    assert!(
        is_error && text.contains("`data` is a namespace, not a skill — pass it as `namespace`"),
        "{text}"
    );
    let (is_error, text) = raw.call(
        "grep_skills",
        json!({"pattern": "a", "skill": "csv-cleanup", "namespace": "data"}),
    );
    assert!(is_error && text.contains("not both"), "{text}");
}

/// A line longer than the cap is shown in part with a note that says how
/// to see more: `max_tokens`, which the continuation call carries on.
#[test]
fn a_long_line_can_be_read_further_with_max_tokens() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("skills");
    write(&root, "alpha/SKILL.md", skill_file("alpha"));
    let wide = "word ".repeat(40_000); // 200,000 bytes on one line
    write(
        &root,
        "alpha/refs/wide.md",
        format!("{wide}\nsecond line\nthird line\n"),
    );
    let mut raw = Raw::start(&root, &[]);
    let (is_error, small) = raw.call(
        "read_skill",
        json!({"name": "alpha", "path": "refs/wide.md"}),
    );
    let head = |text: &str| text.chars().take(300).collect::<String>();
    assert!(!is_error, "{}", head(&small));
    assert!(
        small.contains("pass a larger max_tokens"),
        "{}",
        head(&small)
    );
    let (is_error, large) = raw.call(
        "read_skill",
        json!({"name": "alpha", "path": "refs/wide.md", "max_tokens": 20000}),
    );
    assert!(!is_error, "{large}");
    assert!(
        large.len() > small.len() + 20_000,
        "{} vs {}",
        large.len(),
        small.len()
    );
    assert!(
        large.contains("\"max_tokens\":20000"),
        "the continuation keeps the cap: {large}"
    );
    let (is_error, text) = raw.call("read_skill", json!({"name": "alpha", "max_tokens": 0}));
    assert!(is_error && text.contains("`max_tokens` is 0"), "{text}");
}

#[test]
fn read_skill_takes_the_plugin_colon_skill_form() {
    let root = super::fixture("layouts/marketplace");
    let mut raw = Raw::start(&root, &["--no-watch"]);
    // The header names the skill by its id: the winner of the name by
    // the plain name, the other by `plugin:skill`.
    for (name, id) in [
        ("lint-kit:review-notes", "lint-kit:review-notes"),
        ("lint-kit/review-notes", "lint-kit:review-notes"),
        ("git-tools:review-notes", "review-notes"),
        ("review-notes", "review-notes"),
    ] {
        let (is_error, text) = raw.call("read_skill", json!({"name": name}));
        assert!(!is_error, "{name}: {text}");
        assert!(
            text.starts_with(&format!("skill {id} — ")),
            "{name}: {text}"
        );
    }
    let (is_error, text) = raw.call("read_skill", json!({"name": "paper-kit:review-notes"}));
    assert!(is_error, "{text}");
}
