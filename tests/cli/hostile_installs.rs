//! Installs from hostile collections (`request_install`, accepted over
//! MCP): entries with symlinks out, named pipes, a huge file, more files
//! than an install copies, `.git`, names with `..`, a folder linked in
//! from outside the collection; a root that is a symlink; installs at the
//! same time; offered servers with odd commands and environments. Nothing
//! is written outside the target root, nothing is left half-installed,
//! and the configuration file keeps its comments, mode and link.
//!
//! `SKILLDEX_HEAVY=1` makes the "too many files" entry 100,000 files
//! (the suite's default is just over the limit, 10,001).

use super::mcp::Raw;
use super::{skill_md, write};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// Every path under `dir` (links not followed) with what it is: its
/// bytes' length for a file, its target for a link.
fn tree(dir: &Path) -> BTreeMap<PathBuf, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let what = if meta.file_type().is_symlink() {
                format!("link to {}", std::fs::read_link(&path).unwrap().display())
            } else if meta.is_dir() {
                stack.push(path.clone());
                "folder".to_string()
            } else {
                use std::os::unix::fs::PermissionsExt;
                format!("{} bytes, mode {:o}", meta.len(), meta.permissions().mode())
            };
            out.insert(path.strip_prefix(dir).unwrap().to_path_buf(), what);
        }
    }
    out
}

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success());
}

/// A session that answers elicitations.
fn session(root: &Path, config: &Path) -> Raw {
    let mut raw = Raw::spawn(root, &["--config", config.to_str().unwrap()], Stdio::null());
    let answer = raw.request(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {"form": {}}}, "clientInfo": {"name": "raw", "version": "1"}}),
    );
    assert!(answer.get("result").is_some(), "{answer}");
    raw.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());
    raw
}

/// Send `request_install` for each of `ids` at once, accept every
/// question the server asks, and return each answer (parsed when it is
/// JSON) with its error flag, in the order of `ids`.
fn install_all(raw: &mut Raw, tool_type: &str, ids: &[&str]) -> Vec<(bool, Value)> {
    let sent: Vec<Value> = ids
        .iter()
        .map(|id| {
            let request_id = json!(format!("install-{id}-{}", raw.next_id));
            raw.next_id += 1;
            raw.send(
                &json!({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": "request_install", "arguments": {"type": tool_type, "action": "install", "id": id, "suggest_reason": "The task needs it."}}})
                    .to_string(),
            );
            request_id
        })
        .collect();
    let mut answers: Vec<Option<(bool, Value)>> = vec![None; ids.len()];
    while answers.iter().any(Option::is_none) {
        let message = raw.wait_for("an answer or a question", |m| {
            m["method"] == "elicitation/create"
                || sent
                    .iter()
                    .any(|id| m.get("id") == Some(id) && m.get("method").is_none())
        });
        if message["method"] == "elicitation/create" {
            raw.send(
                &json!({"jsonrpc": "2.0", "id": message["id"], "result": {"action": "accept", "content": {"persist": "always"}}})
                    .to_string(),
            );
            continue;
        }
        let at = sent
            .iter()
            .position(|id| message.get("id") == Some(id))
            .unwrap();
        let result = &message["result"];
        let text = result["content"][0]["text"].as_str().unwrap_or_default();
        let value = serde_json::from_str(text).unwrap_or_else(|_| json!(text));
        answers[at] = Some((result["isError"].as_bool().unwrap_or(false), value));
    }
    answers.into_iter().map(Option::unwrap).collect()
}

fn text(answer: &(bool, Value)) -> String {
    match &answer.1 {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[test]
fn hostile_collections_install_only_what_belongs_to_the_skill_and_nothing_outside_the_root() {
    let temp = super::hardening::open_tempdir();
    let base = temp.path();
    let real_root = base.join("releases/v1");
    write(
        &real_root,
        "demo/SKILL.md",
        skill_md("demo", "A demo skill. Use when testing."),
    );
    // The root is a symlink, as deployments make it.
    let root = base.join("current");
    std::os::unix::fs::symlink(&real_root, &root).unwrap();
    let collection = base.join("collection");
    let outside = base.join("outside");
    write(&outside, "secret.txt", "not to be copied\n");
    write(
        &outside,
        "escape/SKILL.md",
        skill_md("escape", "Lives outside the collection. Use when testing."),
    );
    let offer = |name: &str| {
        write(
            &collection,
            &format!("{name}/SKILL.md"),
            skill_md(name, "An offered skill. Use when testing installing."),
        );
        collection.join(name)
    };
    let links = offer("links");
    write(&links, "guide.md", "# Guide\n");
    std::os::unix::fs::symlink("/etc/passwd", links.join("passwd")).unwrap();
    std::os::unix::fs::symlink(&outside, links.join("outside")).unwrap();
    std::os::unix::fs::symlink("guide.md", links.join("same-guide.md")).unwrap();
    let fifo = offer("fifo");
    mkfifo(&fifo.join("pipe"));
    write(&fifo, "scripts/run.py", "print(1)\n");
    let huge = offer("huge");
    std::fs::File::create(huge.join("weights.bin"))
        .unwrap()
        .set_len(8 << 30)
        .unwrap();
    let many = offer("many");
    let count = if std::env::var_os("SKILLDEX_HEAVY").is_some() {
        100_000
    } else {
        10_001
    };
    std::fs::create_dir_all(many.join("data")).unwrap();
    for i in 0..count {
        std::fs::write(many.join(format!("data/{i}.txt")), "x").unwrap();
    }
    let vcs = offer("vcs");
    write(&vcs, ".git/config", "[core]\n");
    write(&vcs, "node_modules/x/index.js", "module.exports = 1\n");
    write(&vcs, "scripts/run.sh", "echo run\n");
    std::os::unix::fs::symlink(outside.join("escape"), collection.join("escape")).unwrap();
    for twin in ["twin", "left", "right"] {
        offer(twin);
    }
    // A skill whose SKILL.md is a link to its text elsewhere in the
    // collection (a layout real repositories use).
    let text_of_linked = skill_md(
        "linked",
        "Kept in texts/. Use when testing linked skill files.",
    );
    write(&collection, "texts/linked.md", &text_of_linked);
    std::fs::create_dir_all(collection.join("linked")).unwrap();
    std::os::unix::fs::symlink("../texts/linked.md", collection.join("linked/SKILL.md")).unwrap();
    // The configuration file is a link; paths in it are relative to the
    // link's folder.
    let config_text = "# the team's settings\navailable: [collection]   # offered skills\n";
    let config_real = write(base, "config/real.yaml", config_text);
    let config = base.join("skilldex.yaml");
    std::os::unix::fs::symlink(&config_real, &config).unwrap();

    let outside_root = |base: &Path| {
        let mut all = tree(base);
        all.retain(|path, _| !path.starts_with("releases"));
        all
    };
    let before = outside_root(base);
    let mut raw = session(&root, &config);
    let answers = install_all(
        &mut raw,
        "skill",
        &["links", "fifo", "huge", "many", "vcs", "escape", "linked"],
    );
    let [links_answer, fifo_answer, huge_answer, many_answer, vcs_answer, escape_answer, linked_answer] =
        &answers[..]
    else {
        unreachable!()
    };
    let installed = |name: &str| tree(&real_root.join(name)).into_keys().collect::<Vec<_>>();
    let paths = |names: &[&str]| names.iter().map(PathBuf::from).collect::<Vec<_>>();

    // Links are not copied (one could lead anywhere); the answer says
    // what was left out, without naming where a link leads.
    assert!(!links_answer.0, "{}", text(links_answer));
    assert_eq!(links_answer.1["completed"], true, "{}", text(links_answer));
    assert_eq!(installed("links"), paths(&["SKILL.md", "guide.md"]));
    let note = text(links_answer);
    assert!(note.contains("3 symbolic links"), "{note}");
    assert!(
        !note.contains("/etc/passwd") && !note.contains("outside/"),
        "{note}"
    );

    // A named pipe is left out at once, not waited on.
    assert!(!fifo_answer.0, "{}", text(fifo_answer));
    assert_eq!(
        installed("fifo"),
        paths(&["SKILL.md", "scripts", "scripts/run.py"])
    );
    assert!(
        text(fifo_answer).contains("1 named pipe"),
        "{}",
        text(fifo_answer)
    );

    // Too big, too many: refused before copying, nothing left behind.
    assert!(huge_answer.0, "{}", text(huge_answer));
    let huge_text = text(huge_answer);
    assert!(
        huge_text.contains("weights.bin") && huge_text.contains("8.0 GiB"),
        "{huge_text}"
    );
    assert!(many_answer.0, "{}", text(many_answer));
    assert!(
        text(many_answer).contains("more than 10,000 files"),
        "{}",
        text(many_answer)
    );
    for refused in ["huge", "many"] {
        assert!(
            !real_root.join(refused).exists(),
            "{refused} was left behind"
        );
        assert!(
            text(if refused == "huge" {
                huge_answer
            } else {
                many_answer
            })
            .contains("nothing was written"),
            "{refused}"
        );
    }

    // Version control and dependency folders are not part of a skill.
    assert!(!vcs_answer.0, "{}", text(vcs_answer));
    assert_eq!(
        installed("vcs"),
        paths(&["SKILL.md", "scripts", "scripts/run.sh"])
    );

    // A skill folder linked into the collection is followed, as the
    // catalog follows one in a root: its own files are copied, nothing of
    // the folder around it.
    assert!(!escape_answer.0, "{}", text(escape_answer));
    assert_eq!(installed("escape"), paths(&["SKILL.md"]));

    // The linked skill file is copied as the skill's own file.
    assert!(!linked_answer.0, "{}", text(linked_answer));
    assert_eq!(installed("linked"), paths(&["SKILL.md"]));
    let copied = real_root.join("linked/SKILL.md");
    assert!(!std::fs::symlink_metadata(&copied)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read_to_string(&copied).unwrap(), text_of_linked);

    // Names that try to leave: never offered, nothing written.
    for id in [
        "..",
        "../outside",
        "collection/../outside/escape",
        "/etc",
        "links/../../outside",
    ] {
        let answer = &install_all(&mut raw, "skill", &[id])[0];
        assert!(answer.0, "{id}: {}", text(answer));
        assert!(
            text(answer).contains("no available collection offers"),
            "{id}: {}",
            text(answer)
        );
    }

    // The same skill twice at once: one install, one "already installed";
    // two different skills at once: both.
    let twins = install_all(&mut raw, "skill", &["twin", "twin", "left", "right"]);
    let done: Vec<bool> = twins[..2].iter().map(|a| !a.0).collect();
    assert_eq!(
        done.iter().filter(|d| **d).count(),
        1,
        "{:?}",
        twins.iter().map(text).collect::<Vec<_>>()
    );
    let refused = twins[..2].iter().find(|a| a.0).unwrap();
    assert!(
        text(refused).contains("already installed"),
        "{}",
        text(refused)
    );
    assert!(
        !twins[2].0 && !twins[3].0,
        "{:?}",
        twins.iter().map(text).collect::<Vec<_>>()
    );
    for name in ["twin", "left", "right"] {
        assert_eq!(installed(name), paths(&["SKILL.md"]), "{name}");
    }

    // Outside the root only the lock file beside the configuration is new
    // (it records each install); no staging folder is left in the root;
    // the configuration file is untouched and still a link.
    let mut after = outside_root(base);
    let lock = after
        .keys()
        .find(|p| p.file_name().is_some_and(|n| n == "skilldex.lock"))
        .cloned()
        .expect("the installs are recorded in skilldex.lock");
    let recorded = std::fs::read_to_string(base.join(&lock)).unwrap();
    for name in ["twin", "left", "right"] {
        assert!(recorded.contains(&format!("\"{name}\"")), "{recorded}");
    }
    after.remove(&lock);
    assert_eq!(after, before);
    let mut names: Vec<String> = std::fs::read_dir(&real_root)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["demo", "escape", "fifo", "left", "linked", "links", "right", "twin", "vcs"]
    );
    assert_eq!(std::fs::read_to_string(&config_real).unwrap(), config_text);
    assert!(std::fs::symlink_metadata(&config)
        .unwrap()
        .file_type()
        .is_symlink());
    let (status, _, _) = raw.close();
    assert!(status.success());
}

/// Offered servers whose command, arguments and environment hold what
/// YAML and shells treat specially: an accepted install writes each to
/// `mcp_servers` so that it reads back the same, keeping the file's
/// comments, mode and link; a command that cannot start is named.
#[test]
fn odd_offered_servers_install_into_a_config_that_keeps_its_comments_mode_and_link() {
    use std::os::unix::fs::PermissionsExt;
    let temp = tempfile::tempdir().unwrap();
    let base = temp.path();
    let root = base.join("skills");
    write(
        &root,
        "demo/SKILL.md",
        skill_md("demo", "A demo skill. Use when testing."),
    );
    let config_text = concat!(
        "# the team's settings\n",
        "roots: [skills]\n",
        "available_servers:   # offered, not installed\n",
        "  odd:\n",
        "    command: \"./no such # program\"\n",
        "    args: [\"- dash\", \"*star\", \"&anchor\", \"a: b\", \"'single'\", \"\\\"double\\\"\", \"line\\nbreak\", \"{}\", \"[x]\", \"yes\", \"~\", \"01\", \"\\u00e9t\\u00e9\", \"tab\\there\", \"\"]\n",
        "    env: {\"A B\": \"${HOME} $(whoami)\", \"EMPTY\": \"\", \"QUOTE\": \"it's \\\"quoted\\\"\", \"HASH\": \"a #b\"}\n",
        "  # a comment between entries\n",
        "  nul:\n",
        "    command: python3\n",
        "    env: {BAD: \"a\\u0000b\"}\n",
        "format: xml  # trailing comment\n",
    );
    let real = write(base, "settings/real.yaml", config_text);
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o600)).unwrap();
    let config = base.join("skilldex.yaml");
    std::os::unix::fs::symlink("settings/real.yaml", &config).unwrap();
    // Paths in the file are relative to it: where the link is.
    let mut raw = session(&root, &config);
    let answers = install_all(&mut raw, "mcp_server", &["odd", "nul"]);
    for (name, answer) in ["odd", "nul"].iter().zip(&answers) {
        assert!(!answer.0, "{name}: {}", text(answer));
        assert!(
            answer.1["persisted"].is_array(),
            "{name} was not written to the file: {}",
            text(answer)
        );
        let note = text(answer);
        assert!(note.contains("could not start"), "{name}: {note}");
    }
    assert!(
        text(&answers[1]).contains("`env` `BAD` holds a NUL byte"),
        "the NUL byte is named: {}",
        text(&answers[1])
    );
    raw.close();

    // The file: every old byte kept, in place; the new entries after them.
    let after = std::fs::read_to_string(&real).unwrap();
    assert!(after.starts_with(config_text), "{after}");
    assert_eq!(
        std::fs::metadata(&real).unwrap().permissions().mode() & 0o777,
        0o600
    );
    assert!(std::fs::symlink_metadata(&config)
        .unwrap()
        .file_type()
        .is_symlink());
    // What was written reads back: a new session has both installed.
    let mut raw = session(&root, &config);
    for answer in install_all(&mut raw, "mcp_server", &["odd", "nul"]) {
        assert!(answer.0, "{}", text(&answer));
        assert!(
            text(&answer).contains("already installed"),
            "{}",
            text(&answer)
        );
    }
    raw.close();
}
