//! Special files where files are expected, for every command: a named
//! pipe, a socket and a character device (a symlink to /dev/zero), as a
//! skill's `SKILL.md`, as a file inside a skill, and as the file given to
//! `--config`, `SKILLDEX_CONFIG` and `render --since`. No command waits on
//! one (each run is killed and failed past `HANG_LIMIT`), none panics, and
//! every refusal says what the file is.

use super::{bounded, skill_md, skilldex, write};
use std::path::Path;

/// The three kinds, as (label, what the messages call it).
const KINDS: [(&str, &str); 3] = [
    ("fifo", "a named pipe (FIFO)"),
    ("sock", "a socket"),
    ("zero", "a character device"),
];

/// Make a special file of `kind` at `path`.
fn special(kind: &str, path: &Path) {
    match kind {
        "fifo" => {
            let status = std::process::Command::new("mkfifo")
                .arg(path)
                .status()
                .expect("mkfifo runs");
            assert!(status.success());
        }
        // The socket file stays once the listener is dropped.
        "sock" => drop(std::os::unix::net::UnixListener::bind(path).unwrap()),
        _ => std::os::unix::fs::symlink("/dev/zero", path).unwrap(),
    }
}

/// Skills `s-KIND` whose `SKILL.md` is special, skill `t` holding a
/// special `KIND.md` of each kind, skill `ok`, and files `cfg-KIND`.
fn special_tree() -> tempfile::TempDir {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path();
    write(
        root,
        "ok/SKILL.md",
        skill_md("ok", "Ok. Use when testing.") + "needle\n",
    );
    write(
        root,
        "t/SKILL.md",
        skill_md("t", "T. Use when testing.") + "needle\n",
    );
    for (kind, _) in KINDS {
        std::fs::create_dir_all(root.join(format!("s-{kind}"))).unwrap();
        special(kind, &root.join(format!("s-{kind}/SKILL.md")));
        special(kind, &root.join(format!("t/{kind}.md")));
        special(kind, &root.join(format!("cfg-{kind}")));
    }
    temp
}

fn run(root: &Path, args: &[&str]) -> super::Run {
    let mut command = skilldex();
    command.current_dir(root).args(args).arg("--root").arg(root);
    bounded(command)
}

#[test]
fn no_command_waits_on_a_special_file_and_each_says_what_it_is() {
    let temp = special_tree();
    let root = temp.path();
    // Whole-catalog commands answer with the rest.
    for args in [
        &["render"][..],
        &["list"],
        &["search", "needle"],
        &["grep", "needle"],
    ] {
        let out = run(root, args);
        assert_eq!(out.code, 0, "{args:?}: {out:?}");
        assert!(out.stdout.contains("ok"), "{args:?}: {out:?}");
    }
    let out = run(root, &["grep", "needle"]);
    assert!(out.stdout.contains("t/SKILL.md:"), "{out:?}");
    let out = run(root, &["lint"]);
    assert_eq!(out.code, 1, "{out:?}");
    for (kind, _) in KINDS {
        let file = format!("s-{kind}/SKILL.md:1:1");
        let line = out
            .stdout
            .lines()
            .find(|l| l.contains(&file))
            .unwrap_or_else(|| panic!("{file}: {out:?}"));
        assert!(
            line.contains("not a regular file") || line.contains("outside the root"),
            "{line}"
        );
    }
    for (kind, what) in KINDS {
        let skill = format!("s-{kind}");
        for args in [["read", skill.as_str()], ["show", skill.as_str()]] {
            let out = run(root, &args);
            assert_eq!(out.code, 1, "{args:?}: {out:?}");
            assert!(
                out.stderr.contains("did not load")
                    && out.stderr.contains(&format!("{skill}/SKILL.md")),
                "{args:?}: {out:?}"
            );
        }
        // By its path: the file is named for what it is.
        let path = root.join(format!("s-{kind}/SKILL.md"));
        let out = run(root, &["read", path.to_str().unwrap()]);
        assert_eq!(out.code, 2, "{kind}: {out:?}");
        assert!(out.stderr.contains(what), "{kind}: {out:?}");
        // A file inside a skill: a pipe or socket is named; the device is
        // reached through a link out of the folder, and refused as that.
        let inside = format!("t/{kind}.md");
        let out = run(root, &["read", &inside]);
        assert_eq!(out.code, 2, "{inside}: {out:?}");
        let expected = if kind == "zero" {
            "outside the skill folder"
        } else {
            what
        };
        assert!(out.stderr.contains(expected), "{inside}: {out:?}");
        if kind == "zero" {
            // The author is told where the link leads.
            assert!(out.stderr.contains("/dev/zero"), "{inside}: {out:?}");
        }
        // The files the user names.
        let config = root.join(format!("cfg-{kind}"));
        let config = config.to_str().unwrap();
        for args in [
            &["--config", config, "render"][..],
            &["render", "--since", config],
        ] {
            let out = run(root, args);
            assert_eq!(out.code, 2, "{args:?}: {out:?}");
            assert!(out.stderr.contains(what), "{args:?}: {out:?}");
        }
        let mut command = skilldex();
        command
            .current_dir(root)
            .env("SKILLDEX_CONFIG", config)
            .args(["render", "--root"])
            .arg(root);
        let out = bounded(command);
        assert_eq!(out.code, 2, "SKILLDEX_CONFIG={config}: {out:?}");
        assert!(out.stderr.contains(what), "SKILLDEX_CONFIG: {out:?}");
    }
}

#[cfg(feature = "mcp")]
#[test]
fn serve_refuses_special_files_and_serves_what_it_advertises() {
    use serde_json::json;
    let temp = special_tree();
    let root = temp.path();
    let mut raw = crate::mcp::Raw::start(root, &["--no-watch"]);
    for (kind, what) in KINDS {
        let expected = if kind == "zero" { "outside" } else { what };
        let file = format!("{kind}.md");
        let answer = raw.request(
            "resources/read",
            json!({"uri": format!("skill://t/{file}")}),
        );
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(expected), "{file}: {answer}");
        let (is_error, text) = raw.call("read_skill", json!({"name": "t", "path": file}));
        assert!(is_error && text.contains(expected), "{file}: {text}");
        // A client is told that a link leads outside, never where.
        for said in [message, text.as_str()] {
            assert!(!said.contains("/dev"), "{file}: {said}");
        }
        let (is_error, text) = raw.call("read_skill", json!({"name": format!("s-{kind}")}));
        assert!(
            is_error && text.contains("did not load"),
            "s-{kind}: {text}"
        );
    }
    let (_, text) = raw.call("grep_skills", json!({"pattern": "needle"}));
    assert!(text.contains("t/SKILL.md:"), "{text}");
    // Every file skills/get lists is served.
    let answer = raw.request("skills/get", json!({"uri": "skill://t/SKILL.md"}));
    let resources = answer["result"]["skill"]["resources"]
        .as_array()
        .cloned()
        .unwrap_or_else(|| panic!("{answer}"));
    for resource in resources {
        let uri = resource["uri"].as_str().unwrap();
        let read = raw.request("resources/read", json!({"uri": uri}));
        assert!(
            read.get("result").is_some(),
            "{uri} is listed but not served: {read}"
        );
    }
    // And so is every file the folder's listing gives.
    let answer = raw.request("resources/directory/read", json!({"uri": "skill://t"}));
    let listed = answer["result"]["contents"]
        .as_array()
        .or(answer["result"]["resources"].as_array())
        .cloned()
        .unwrap_or_else(|| panic!("{answer}"));
    assert!(!listed.is_empty(), "{answer}");
    for resource in listed {
        let uri = resource["uri"].as_str().unwrap();
        let read = raw.request("resources/read", json!({"uri": uri}));
        assert!(
            read.get("result").is_some(),
            "{uri} is listed but not served: {read}"
        );
    }
    let answer = raw.request("ping", json!({}));
    assert!(answer.get("result").is_some(), "{answer}");
}

/// Peak resident memory of process `pid`, in KiB (Linux).
#[cfg(feature = "mcp")]
fn peak_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

/// A sparse 1 GiB file in a skill is sized on the open file and refused
/// before a byte is read: the server's peak memory stays far below it.
#[cfg(all(feature = "mcp", target_os = "linux"))]
#[test]
fn serve_refuses_a_huge_file_by_its_size_without_reading_it() {
    use serde_json::json;
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path();
    write(
        root,
        "big/SKILL.md",
        skill_md("big", "Big. Use when testing."),
    );
    let huge = write(root, "big/huge.md", "x");
    std::fs::OpenOptions::new()
        .write(true)
        .open(&huge)
        .unwrap()
        .set_len(1 << 30)
        .unwrap();
    // A text file over the extension's limit, under what read_skill takes.
    let filler = "a line of filler text to make the file large\n";
    let mut long = filler.repeat((17 << 20) / filler.len());
    long.push_str("the needle\n");
    write(root, "big/long.md", long);
    let mut raw = crate::mcp::Raw::start(root, &["--no-watch"]);
    // The sparse file is zeros past its first byte: binary, which nothing
    // reads, so no search is suggested.
    let answer = raw.request("resources/read", json!({"uri": "skill://big/huge.md"}));
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("larger than 16 MiB"), "{answer}");
    assert!(message.contains("binary"), "{answer}");
    let (is_error, text) = raw.call("read_skill", json!({"name": "big", "path": "huge.md"}));
    assert!(is_error && text.contains("binary file"), "{text}");
    // Text says what to do instead, and it works: grep the skill.
    let answer = raw.request("resources/read", json!({"uri": "skill://big/long.md"}));
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("grep_skills tool (skill `big`)"),
        "{answer}"
    );
    let (is_error, text) = raw.call(
        "grep_skills",
        json!({"pattern": "the needle", "skill": "big"}),
    );
    assert!(!is_error && text.contains("big/long.md:"), "{text}");
    // The manifest holds every file's digest: refused by the total size.
    let answer = raw.request("skills/get", json!({"uri": "skill://big/SKILL.md"}));
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("more than 16 MiB"), "{answer}");
    assert!(message.contains("`.ignore` file"), "{answer}");
    let answer = raw.request("resources/list", json!({}));
    assert!(answer.get("result").is_some(), "{answer}");
    let (_, text) = raw.call("grep_skills", json!({"pattern": "never-there"}));
    assert!(!text.is_empty(), "{text}");
    let peak = peak_kib(raw.pid());
    assert!(
        peak < 256 * 1024,
        "peak memory {peak} KiB: the file was read"
    );
    drop(raw);
    // The author's fix the refusal names: the skill is served again.
    write(root, "big/.ignore", "huge.md\nlong.md\n");
    let mut raw = crate::mcp::Raw::start(root, &["--no-watch"]);
    let answer = raw.request("skills/get", json!({"uri": "skill://big/SKILL.md"}));
    assert!(answer.get("result").is_some(), "{answer}");
}

/// A text file over what `read` takes at once is refused with a command
/// that finds its lines, and that command works.
#[test]
fn read_refuses_a_file_too_large_and_names_a_grep_that_finds_its_lines() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path();
    write(
        root,
        "big/SKILL.md",
        skill_md("big", "Big. Use when testing."),
    );
    let filler = "a line of filler text to make the file large\n";
    let lines = (skilldex::query::read::MAX_READ_BYTES as usize) / filler.len() + 1;
    let mut text = filler.repeat(lines);
    text.push_str("the needle\n");
    write(root, "big/huge.md", text);
    let root_arg = root.to_str().unwrap();
    let mut read = skilldex();
    read.args(["read", "big/huge.md", "--root", root_arg]);
    let run = bounded(read);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stdout.is_empty(), "{run:?}");
    let suggested = run
        .stderr
        .split("(`")
        .nth(1)
        .and_then(|rest| rest.split('`').next())
        .unwrap_or_else(|| panic!("no command in {:?}", run.stderr));
    let args: Vec<&str> = suggested
        .split_whitespace()
        .skip(1)
        .map(|a| if a == "PATTERN" { "needle" } else { a })
        .collect();
    assert!(args.contains(&"grep"), "{suggested}");
    let mut grep = skilldex();
    grep.args(&args);
    let run = bounded(grep);
    assert_eq!(run.code, 0, "{suggested}: {run:?}");
    assert_eq!(
        run.stdout.trim(),
        format!("big/huge.md:{}:the needle", lines + 1)
    );
}

/// A link inside a skill to an ordinary file outside it: the author's CLI
/// says where it leads; an MCP client learns only that it leads outside.
#[cfg(feature = "mcp")]
#[test]
fn reads_of_links_out_never_name_the_target_over_mcp() {
    use serde_json::json;
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret-place");
    std::fs::write(&secret, "password\n").unwrap();
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path();
    write(root, "t/SKILL.md", skill_md("t", "T. Use when testing."));
    std::os::unix::fs::symlink(&secret, root.join("t/notes.md")).unwrap();
    std::os::unix::fs::symlink(outside.path(), root.join("t/more")).unwrap();

    for path in ["t/notes.md", "t/more/secret-place"] {
        let out = run(root, &["read", path]);
        assert_ne!(out.code, 0, "{path}: {out:?}");
        assert!(
            out.stderr.contains("secret-place")
                || out.stderr.contains(outside.path().to_str().unwrap()),
            "{path}: {out:?}"
        );
        assert!(!out.stdout.contains("password"), "{path}: {out:?}");
    }

    let mut raw = crate::mcp::Raw::start(root, &["--no-watch"]);
    for file in ["notes.md", "more/secret-place"] {
        let answer = raw.request(
            "resources/read",
            json!({"uri": format!("skill://t/{file}")}),
        );
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        let (is_error, text) = raw.call("read_skill", json!({"name": "t", "path": file}));
        assert!(is_error, "{file}: {text}");
        for said in [message, text.as_str()] {
            assert!(said.contains("outside"), "{file}: {answer} / {text}");
            assert!(!said.contains("password"), "{file}: {said}");
            assert!(
                !said.contains(outside.path().to_str().unwrap()),
                "{file} names where it leads: {said}"
            );
        }
    }
}
