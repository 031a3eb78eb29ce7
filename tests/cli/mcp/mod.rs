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

mod clients;
mod protocol;
#[cfg(target_os = "linux")]
mod storms;

use super::{copy_dir, repo, write};
use serde_json::{json, Value};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The venv's python, created once per test run.
pub(crate) fn python() -> &'static Path {
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

    /// The server's process id (to read its memory use).
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    pub(crate) fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        writeln!(stdin, "{line}").expect("the server reads stdin");
        stdin.flush().unwrap();
    }

    /// The first message (read or still to come) that `wanted` accepts;
    /// fails with what was seen after `WAIT`.
    pub(crate) fn wait_for(&mut self, what: &str, wanted: impl Fn(&Value) -> bool) -> Value {
        self.wait_within(WAIT, &wanted).unwrap_or_else(|| {
            panic!(
                "no {what} within {WAIT:?}; the server wrote:\n{}",
                self.seen
                    .iter()
                    .map(Value::to_string)
                    .collect::<Vec<_>>()
                    .join("\n")
            )
        })
    }

    /// The first message `wanted` accepts, if one comes within `patience`.
    pub(crate) fn wait_within(
        &mut self,
        patience: Duration,
        wanted: impl Fn(&Value) -> bool,
    ) -> Option<Value> {
        let deadline = Instant::now() + patience;
        loop {
            if let Some(i) = self.seen.iter().position(&wanted) {
                return Some(self.seen.remove(i));
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => self
                    .seen
                    .push(serde_json::from_str(&line).unwrap_or_else(|e| {
                        panic!("the server wrote a line that is not JSON ({e}): {line}")
                    })),
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => return None,
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
