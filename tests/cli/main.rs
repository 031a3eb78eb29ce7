//! Integration tests: they drive the real `skilldex` binary on real fixture
//! folders. One test binary, one module per area.

mod architecture;
mod bad_input;
mod budget;
mod catalog;
mod config;
#[cfg(feature = "mcp")]
mod declared_tools;
mod disclosure;
mod eval;
#[cfg(feature = "mcp")]
mod gateway;
#[cfg(feature = "mcp")]
mod gateway_loop;
mod grep;
#[cfg(unix)]
mod hardening;
#[cfg(all(unix, feature = "mcp"))]
mod hostile_installs;
#[cfg(feature = "mcp")]
mod hostile_upstreams;
#[cfg(feature = "mcp")]
mod hosts;
mod install_formats;
mod layouts;
mod link;
#[cfg(all(unix, feature = "mcp"))]
mod linked_skill_file;
mod live;
#[cfg(unix)]
mod live_tools;
#[cfg(unix)]
mod locked;
#[cfg(feature = "mcp")]
mod mcp;
#[cfg(all(unix, feature = "mcp"))]
mod ownership;
#[cfg(feature = "mcp")]
mod pinned_tools;
#[cfg(unix)]
mod properties;
mod publish;
#[cfg(target_os = "linux")]
mod render;
mod search;
mod semantic;
#[cfg(unix)]
mod special_files;
mod tools_catalog;
mod tools_e2e;
mod tools_lint;
#[cfg(feature = "mcp")]
mod tools_sync;
mod watch;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The result of one run of the binary.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not JSON ({e}):\n{}\nstderr:\n{}",
                self.stdout, self.stderr
            )
        })
    }
}

impl std::fmt::Debug for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "exit {}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

/// A `skilldex` command isolated from the user's environment: no colors, a
/// HOME without skills, no SKILLDEX_ROOTS.
pub fn skilldex() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_skilldex"));
    command
        .env("NO_COLOR", "1")
        .env(
            "HOME",
            std::env::temp_dir().join("skilldex-test-home-does-not-exist"),
        )
        .env_remove("SKILLDEX_ROOTS");
    command
}

/// The lines `reader` gives (a child's stdout or stderr), each sent on
/// the returned channel as it arrives, from a thread of its own.
pub fn line_channel(
    reader: impl std::io::Read + Send + 'static,
) -> std::sync::mpsc::Receiver<String> {
    use std::io::BufRead;
    let (sender, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(reader).lines() {
            let Ok(line) = line else { break };
            if sender.send(line).is_err() {
                break;
            }
        }
    });
    lines
}

pub fn finish(output: Output) -> Run {
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// A run taking longer than this is a hang, not a slow machine.
const HANG_LIMIT: std::time::Duration = std::time::Duration::from_secs(30);

/// Run `command` (a `skilldex` command), killing it (and failing) if it
/// hangs, and failing if it panicked.
pub fn bounded(mut command: Command) -> Run {
    use std::io::Read;
    use std::process::Stdio;
    let label = format!("{command:?}");
    let started = std::time::Instant::now();
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the skilldex binary runs");
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut buf = Vec::new();
        stdout.read_to_end(&mut buf).ok();
        buf
    });
    let err = std::thread::spawn(move || {
        let mut buf = Vec::new();
        stderr.read_to_end(&mut buf).ok();
        buf
    });
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting for skilldex") {
            break status;
        }
        if started.elapsed() > HANG_LIMIT {
            child.kill().ok();
            child.wait().ok();
            panic!("{label} did not finish within {HANG_LIMIT:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    let run = Run {
        code: status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.join().unwrap()).into_owned(),
        stderr: String::from_utf8_lossy(&err.join().unwrap()).into_owned(),
    };
    assert!(
        !run.stderr.contains("panicked"),
        "{label} panicked:\n{run:?}"
    );
    run
}

/// Run `skilldex ARGS` in `cwd`.
pub fn run_in(cwd: &Path, args: &[&str]) -> Run {
    finish(
        skilldex()
            .current_dir(cwd)
            .args(args)
            .output()
            .expect("the skilldex binary runs"),
    )
}

/// Run `skilldex ARGS` in the repository root.
pub fn run(args: &[&str]) -> Run {
    run_in(Path::new(env!("CARGO_MANIFEST_DIR")), args)
}

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn fixture(name: &str) -> PathBuf {
    repo().join("tests/fixtures").join(name)
}

/// Copy a fixture folder into a fresh temporary folder (for tests that add
/// symlinks or change permissions). Returns the temp dir guard and the copy.
pub fn copy_fixture(name: &str) -> (tempfile::TempDir, PathBuf) {
    let temp = tempfile::tempdir().expect("temp dir");
    let target = temp.path().join(name.replace('/', "_"));
    copy_dir(&fixture(name), &target);
    (temp, target)
}

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let path = entry.path();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

/// Write `content` to `root/relative`, creating folders.
pub fn write(root: &Path, relative: &str, content: impl AsRef<[u8]>) -> PathBuf {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, content).unwrap();
    path
}

/// A minimal valid SKILL.md for `name`.
pub fn skill_md(name: &str, description: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n\nDo the thing.\n")
}

/// Skill `outer` at `root/outer`, with skill `inner` nested in it whose
/// body is `inner_body`.
pub fn outer_and_inner(root: &Path, inner_body: &str) {
    write(
        root,
        "outer/SKILL.md",
        skill_md("outer", "Outer. Use when testing."),
    );
    write(
        root,
        "outer/inner/SKILL.md",
        format!("---\nname: inner\ndescription: Inner. Use when testing.\n---\n{inner_body}"),
    );
}

/// Diagnostics of `skilldex lint --format json` as (file name relative to
/// root, line, column, severity, code).
pub fn lint_json(root: &Path, extra: &[&str]) -> (Run, Vec<serde_json::Value>) {
    let root_s = root.to_str().unwrap();
    let mut args = vec!["lint", "--format", "json", "--root", root_s];
    args.extend_from_slice(extra);
    let run = run_in(root, &args);
    let diagnostics = run.json()["diagnostics"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    (run, diagnostics)
}

/// Codes of the diagnostics about files whose path contains `needle`.
pub fn codes_for(diagnostics: &[serde_json::Value], needle: &str) -> Vec<String> {
    diagnostics
        .iter()
        .filter(|d| d["path"].as_str().unwrap_or("").contains(needle))
        .map(|d| d["code"].as_str().unwrap_or("").to_string())
        .collect()
}

/// Busy processes, killed when dropped.
/// A memory figure of process `pid` from /proc (`VmRSS`, `VmHWM`), in MB;
/// 0 where there is no /proc.
pub fn memory_mb(pid: u32, key: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix(':'))
        .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        .map_or(0, |kb| kb / 1024)
}

pub struct Hogs(Vec<std::process::Child>);

impl Hogs {
    pub fn start() -> Hogs {
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        Hogs(
            (0..cores)
                .map(|_| {
                    std::process::Command::new("sh")
                        .args(["-c", "while :; do :; done"])
                        .stdin(std::process::Stdio::null())
                        .spawn()
                        .expect("sh runs")
                })
                .collect(),
        )
    }
}

impl Drop for Hogs {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
