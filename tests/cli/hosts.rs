//! Host-shaped listings beyond `render`: `link --host` says which linked
//! skills the host's own listing would shorten or leave out, with that
//! host's budget (on stderr, and as data in `--json`), and
//! `serve --host` fits the instructions of `initialize` to what the host
//! keeps — checked with the Python MCP SDK as the client.

use super::mcp::python;
use super::{repo, run_in, skill_md, write};
use serde_json::Value;
use std::path::Path;

/// A catalog of `count` skills in one namespace, each with a description
/// of about 150 characters.
fn catalog(root: &Path, count: usize) {
    for i in 0..count {
        write(
            root,
            &format!("team/skill-{i:03}/SKILL.md"),
            skill_md(
                &format!("skill-{i:03}"),
                &format!("Prepare the weekly report number {i} from the sales sheets, with charts and a summary. Use when someone asks for the weekly sales report."),
            ),
        );
    }
}

#[cfg(unix)]
#[test]
fn link_says_what_the_hosts_own_listing_would_cut() {
    let temp = tempfile::tempdir().unwrap();
    let project = temp.path();
    let root = project.join("catalog");
    catalog(&root, 120);
    let root_s = root.to_str().unwrap();
    let args = ["link", "--host", "claude", "--root", root_s, "--dry-run"];
    // 120 entries of ~165 characters are over Claude Code's 8,000.
    let json = run_in(project, &[&args[..], &["--json"]].concat());
    assert_eq!(json.code, 0, "{json:?}");
    let plan: Value = serde_json::from_str(&json.stdout).unwrap();
    let listing = &plan["listing"];
    assert_eq!(listing["host"], "claude");
    assert_eq!(listing["budget"]["limit"], 8_000, "{listing}");
    assert_eq!(listing["skills"], 120);
    let cut = listing["cut"].as_array().unwrap();
    assert_eq!(cut.len(), 120, "{listing}");
    assert!(cut.iter().all(|c| c["fate"] == "shortened"), "{listing}");
    assert!(cut[0]["reason"]
        .as_str()
        .unwrap()
        .contains("over 8,000 characters"));
    assert!(listing["used"].as_u64().unwrap() <= 8_000);

    // For a person: stderr says it; stdout stays the plan.
    let human = run_in(project, &args);
    assert_eq!(human.code, 0, "{human:?}");
    assert!(
        human
            .stderr
            .contains("claude's own listing of these 120 skills would use")
            && human.stderr.contains("0 whole, 120 shortened"),
        "{human:?}"
    );
    assert!(human.stderr.contains("skill-000, skill-001"), "{human:?}");
    assert!(!human.stdout.contains("listing"), "{human:?}");

    // A larger context gives room for every description.
    let wide = run_in(
        project,
        &[&args[..], &["--json", "--context-tokens", "1000000"]].concat(),
    );
    let plan: Value = serde_json::from_str(&wide.stdout).unwrap();
    assert_eq!(plan["listing"]["budget"]["limit"], 40_000);
    assert_eq!(plan["listing"]["whole"], 120, "{}", plan["listing"]);
    let wide = run_in(
        project,
        &[&args[..], &["--context-tokens", "1000000"]].concat(),
    );
    assert!(
        wide.stderr
            .contains("claude lists all 120 linked skills whole"),
        "{wide:?}"
    );

    // A small one: names only, then names left out, last in name order.
    let narrow = run_in(
        project,
        &[&args[..], &["--json", "--context-tokens", "20000"]].concat(),
    );
    let plan: Value = serde_json::from_str(&narrow.stdout).unwrap();
    let cut = plan["listing"]["cut"].as_array().unwrap();
    let left_out: Vec<&str> = cut
        .iter()
        .filter(|c| c["fate"] == "left_out")
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    // 800 characters hold 66 lines of `- skill-NNN\n` (12 characters).
    assert_eq!(left_out.len(), 120 - 66);
    assert_eq!(left_out.last(), Some(&"skill-119"));
}

/// What a client gets from `serve ARGS`: the instructions and the tools.
fn served(cwd: &Path, args: &[&str]) -> Value {
    let output = std::process::Command::new(python())
        .arg(repo().join("tests/mcp/hosts.py"))
        .args([
            "--binary",
            env!("CARGO_BIN_EXE_skilldex"),
            "--cwd",
            cwd.to_str().unwrap(),
            "--",
        ])
        .args(args)
        .output()
        .expect("python runs");
    assert!(
        output.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

fn utf16(text: &str) -> usize {
    text.encode_utf16().count()
}

#[test]
fn serve_fits_its_instructions_to_the_host() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("catalog");
    catalog(&root, 300);
    let root_s = root.to_str().unwrap();
    let serve = |extra: &[&str]| {
        let mut args = vec!["serve", "--no-watch", "--root", root_s];
        args.extend_from_slice(extra);
        served(temp.path(), &args)
    };
    let instructions = |answer: &Value| answer["instructions"].as_str().unwrap().to_string();

    // Without --host: as before, within 2,048 characters.
    let plain = instructions(&serve(&[]));
    assert!(utf16(&plain) <= 2_048, "{}", utf16(&plain));
    // Claude Code keeps 2,048: the directory says what it did not list
    // and that search_skills finds it.
    let claude = instructions(&serve(&["--host", "claude"]));
    assert!(utf16(&claude) <= 2_048, "{}", utf16(&claude));
    assert!(claude.contains("not listed one by one"), "{claude}");
    assert!(claude.contains("`search_skills`"), "{claude}");
    // Codex shows the model 247: the lead alone, which says to search.
    let codex = instructions(&serve(&["--host", "codex"]));
    assert!(utf16(&codex) <= 247, "{codex}");
    assert!(codex.contains("`search_skills`"), "{codex}");
    // Gemini CLI publishes no limit: its listing share, 1% of 1M tokens,
    // holds far more of the directory than 2,048 characters.
    let gemini = instructions(&serve(&["--host", "gemini"]));
    assert!(utf16(&gemini) > 4 * 2_048, "{}", utf16(&gemini));
    let named = |text: &str| text.matches("skill-").count();
    assert!(named(&gemini) > named(&claude), "{gemini}");
    // A smaller context, a smaller directory.
    let small = instructions(&serve(&["--host", "gemini", "--context-tokens", "200000"]));
    assert!(utf16(&small) < utf16(&gemini) / 2, "{small}");
    assert!(small.contains("`search_skills`"), "{small}");
}

#[test]
fn tools_format_mcp_is_what_serve_lists() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("catalog");
    catalog(&root, 2);
    let answer = served(
        temp.path(),
        &["serve", "--no-watch", "--root", root.to_str().unwrap()],
    );
    let printed = run_in(temp.path(), &["tools", "--format", "mcp"]);
    assert_eq!(printed.code, 0, "{printed:?}");
    let printed: Value = serde_json::from_str(&printed.stdout).unwrap();
    let listed = answer["tools"].as_array().unwrap();
    let printed = printed.as_array().unwrap();
    assert_eq!(printed.len(), 4);
    for entry in printed {
        let name = entry["name"].as_str().unwrap();
        let served = listed.iter().find(|t| t["name"] == name).unwrap();
        assert_eq!(entry["_meta"], served["_meta"], "{name}");
        assert_eq!(entry["annotations"], served["annotations"], "{name}");
        assert_eq!(entry["description"], served["description"], "{name}");
    }
    let search = printed
        .iter()
        .find(|t| t["name"] == "search_skills")
        .unwrap();
    assert_eq!(search["_meta"]["anthropic/alwaysLoad"], true);
    assert!(search["_meta"]["anthropic/searchHint"].is_string());
}
