//! The gateway end to end: `skilldex serve` in front of two upstream test
//! servers (tests/fixtures/mcp-servers/gateway_server.py, a few hundred
//! tools), driven by the official MCP Python SDK (tests/mcp/gateway.py) on
//! both lifecycles. The snapshots come from `skilldex tools sync`, as a
//! user would make them.

use super::mcp::run_script;
use super::{bounded, fixture, skill_md, skilldex, write};
use std::path::Path;

/// A folder with a skill, two configured upstream servers (`office`,
/// 207 tools; `lab`, 157 tools) and their synced snapshots.
fn gateway_folder() -> tempfile::TempDir {
    let temp = tempfile::tempdir().unwrap();
    let folder = temp.path();
    let script = fixture("mcp-servers").join("gateway_server.py");
    let script = format!("{:?}", script.display().to_string());
    write(
        folder,
        "skilldex.yaml",
        format!(
            "roots: [skills]\ndisabled: [secret, secret2, secret3, secret4]\navailable: [collection]\nmcp_servers:\n  office:\n    command: python3\n    args: [{script}, office, \"200\", office]\n  lab:\n    command: python3\n    args: [{script}, lab, \"150\", lab]\n    timeout: 20\n  spare:   # the spare server\n    command: python3\n    args: [{script}, spare, \"120\", lab]\n    enabled: false   # off until needed\n  spare2:\n    command: python3\n    args: [{script}, spare2, \"10\", lab]\n    enabled: false\n  spare3:\n    command: python3\n    args: [{script}, spare3, \"10\", lab]\n    enabled: false\n  extra:\n    command: python3\n    args: [{script}, extra, \"10\", office]\n    enabled: false\n# offered, not installed\navailable_servers:\n  notes:\n    command: python3\n    args: [{script}, notes, \"30\", office]\n  notes2:\n    command: python3\n    args: [{script}, notes2, \"10\", office]\n  notes3:\n    command: python3\n    args: [{script}, notes3, \"10\", office]\n  notes4:\n    command: python3\n    args: [{script}, notes4, \"10\", office]\n"
        ),
    );
    write(
        folder,
        "skills/demo/SKILL.md",
        skill_md("demo", "A demo skill. Use when testing."),
    );
    for name in ["secret", "secret2", "secret3", "secret4"] {
        write(
            folder,
            &format!("skills/{name}/SKILL.md"),
            skill_md(name, "A disabled skill. Use when testing enabling."),
        );
    }
    // A collection offered for installation (not a root).
    for name in ["pdf-tools", "csv-tools", "zip-tools", "tar-tools"] {
        write(
            folder,
            &format!("collection/{name}/SKILL.md"),
            skill_md(name, "An offered skill. Use when testing installing."),
        );
        write(
            folder,
            &format!("collection/{name}/scripts/run.py"),
            "print('run')\n",
        );
    }
    sync(folder);
    temp
}

fn sync(folder: &Path) {
    let mut command = skilldex();
    command.current_dir(folder).args(["tools", "sync"]);
    let run = bounded(command);
    assert_eq!(
        run.code, 0,
        "tools sync failed: {}{}",
        run.stdout, run.stderr
    );
}

fn drive(mode: &str) {
    let temp = gateway_folder();
    run_script(
        "gateway.py",
        &[
            "--mode",
            mode,
            "--binary",
            env!("CARGO_BIN_EXE_skilldex"),
            "--folder",
            temp.path().to_str().unwrap(),
        ],
    );
}

#[test]
fn python_sdk_drives_the_gateway_legacy_session() {
    drive("legacy");
}

#[test]
fn python_sdk_drives_the_gateway_2026_session() {
    drive("auto");
}

#[test]
fn python_sdk_sees_the_gateway_appear_when_a_tool_catalog_does() {
    let temp = tempfile::tempdir().unwrap();
    write(
        temp.path(),
        "skills/demo/SKILL.md",
        skill_md("demo", "A demo skill. Use when testing."),
    );
    run_script(
        "gateway.py",
        &[
            "--scenario",
            "appear",
            "--binary",
            env!("CARGO_BIN_EXE_skilldex"),
            "--folder",
            temp.path().to_str().unwrap(),
        ],
    );
}
