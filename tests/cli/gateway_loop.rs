//! The gateway's whole loop, again and again on a busy machine: `tools
//! sync` snapshots a Python stdio upstream, `serve` starts, `tool_search`
//! answers from the snapshot and the found tool is called through
//! skilldex — 50 times, with a CPU hog per core beside it. Every answer
//! must come (each within the client's 20 s patience); the figures go to
//! stderr.

use super::mcp::Raw;
use super::{bounded, fixture, skill_md, skilldex, write, Hogs};
use serde_json::json;
use std::time::{Duration, Instant};

/// Loops per run (`SKILLDEX_GATEWAY_LOOPS` to change it).
const LOOPS: usize = 50;

fn percentile(sorted: &[Duration], p: usize) -> Duration {
    sorted[((sorted.len() * p).div_ceil(100)).clamp(1, sorted.len()) - 1]
}

#[test]
#[allow(clippy::print_stderr)]
fn sync_serve_search_and_call_answer_every_time_beside_a_cpu_hog() {
    let loops = std::env::var("SKILLDEX_GATEWAY_LOOPS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(LOOPS);
    let temp = tempfile::tempdir().unwrap();
    let folder = temp.path();
    let script = fixture("mcp-servers").join("gateway_server.py");
    let config = write(
        folder,
        "skilldex.yaml",
        format!(
            "roots: [skills]\nmcp_servers:\n  lab:\n    command: python3\n    args: [{:?}, lab, \"40\", lab]\n    timeout: 20\n",
            script.display().to_string()
        ),
    );
    write(
        folder,
        "skills/demo/SKILL.md",
        skill_md("demo", "A demo skill. Use when testing."),
    );
    let config = config.to_str().unwrap().to_string();
    let skills = folder.join("skills");
    let _hogs = Hogs::start();
    let (mut searches, mut calls, mut syncs) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..loops {
        let started = Instant::now();
        let mut command = skilldex();
        command.current_dir(folder).args(["tools", "sync"]);
        let run = bounded(command);
        assert_eq!(run.code, 0, "round {round}: tools sync: {run:?}");
        syncs.push(started.elapsed());

        let mut raw = Raw::start(&skills, &["--config", &config, "--no-watch"]);
        let asked = Instant::now();
        let (is_error, text) = raw.call("tool_search", json!({"query": "echo the arguments back"}));
        searches.push(asked.elapsed());
        assert!(
            !is_error && text.contains("lab/echo"),
            "round {round}: {text}"
        );

        let word = format!("round-{round}");
        let asked = Instant::now();
        let (is_error, text) = raw.call(
            "call_tool",
            json!({"tool": "lab/echo", "arguments": {"text": word}}),
        );
        calls.push(asked.elapsed());
        assert!(!is_error && text.contains(&word), "round {round}: {text}");
        let answer = raw.request("ping", json!({}));
        assert!(answer.get("result").is_some(), "round {round}: {answer}");
        let (status, _, _) = raw.close();
        assert!(status.success(), "round {round}: {status:?}");
    }
    for list in [&mut searches, &mut calls, &mut syncs] {
        list.sort();
    }
    eprintln!(
        "gateway loop, {loops} rounds beside a CPU hog per core: tool_search p50 {:?} max {:?}; call_tool (upstream started) p50 {:?} max {:?}; tools sync p50 {:?} max {:?}",
        percentile(&searches, 50),
        searches[loops - 1],
        percentile(&calls, 50),
        calls[loops - 1],
        percentile(&syncs, 50),
        syncs[loops - 1],
    );
}
