//! `skilldex publish` and `skilldex install`: the discovery index that
//! publish writes validates against the format's schema
//! (tests/fixtures/discovery/schema-0.2.0.json, checked with the
//! `jsonschema` package of the MCP tests' venv); the bundled catalog
//! published and installed back into an empty root gives the same digests;
//! a lock file replays to the same tree; a tampered artifact, a traversal
//! archive, an unknown skill and an unreachable URL each fail clearly and
//! leave nothing behind; marketplaces offer their local plugins' skills.

use super::{bounded, copy_dir, fixture, repo, skilldex, write, Run};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn run(cwd: &Path, args: &[&str]) -> Run {
    let mut command = skilldex();
    command.current_dir(cwd).args(args);
    bounded(command)
}

fn index_of(dir: &Path) -> PathBuf {
    dir.join(".well-known/agent-skills/index.json")
}

/// Every file under `dir` (relative path → bytes).
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let relative = path.strip_prefix(dir).unwrap().display().to_string();
                out.insert(relative, std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

/// The names of `dir`'s entries.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn published_names(index: &Path) -> Vec<String> {
    let value: serde_json::Value = serde_json::from_slice(&std::fs::read(index).unwrap()).unwrap();
    value["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect()
}

fn sha256_of(path: &Path) -> String {
    let output = std::process::Command::new("sha256sum")
        .arg(path)
        .output()
        .expect("sha256sum runs");
    let text = String::from_utf8(output.stdout).unwrap();
    format!("sha256:{}", text.split_whitespace().next().unwrap())
}

#[cfg(feature = "mcp")]
#[test]
fn the_published_index_validates_against_the_discovery_schema() {
    let temp = tempfile::tempdir().unwrap();
    let site = temp.path().join("site");
    let out = run(
        &repo(),
        &["--root", "skills", "publish", site.to_str().unwrap()],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let script = r#"
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
index = json.load(open(sys.argv[2]))
errors = [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(index)]
bad = dict(index, skills=index["skills"] + [{"name": "Bad", "type": "zip", "description": "", "url": "x", "digest": "sha256:00"}])
caught = list(jsonschema.Draft202012Validator(schema).iter_errors(bad))
print(json.dumps({"errors": errors, "caught": len(caught)}))
"#;
    let output = std::process::Command::new(super::mcp::python())
        .args(["-c", script])
        .arg(fixture("discovery/schema-0.2.0.json"))
        .arg(index_of(&site))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let verdict: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(verdict["errors"], serde_json::json!([]), "{verdict}");
    // The schema can fail: a bad entry breaks several of its rules.
    assert!(verdict["caught"].as_u64().unwrap() >= 4, "{verdict}");
}

#[test]
fn publish_is_byte_stable_and_its_digests_are_the_artifacts() {
    let temp = tempfile::tempdir().unwrap();
    let first = temp.path().join("first");
    let second = temp.path().join("second");
    for dir in [&first, &second] {
        let out = run(
            &repo(),
            &["--root", "skills", "publish", dir.to_str().unwrap()],
        );
        assert_eq!(out.code, 0, "{out:?}");
        assert!(out.stderr.contains("published 15 skills"), "{out:?}");
    }
    assert_eq!(tree(&first), tree(&second), "same files, same bytes");
    let index: serde_json::Value =
        serde_json::from_slice(&std::fs::read(index_of(&first)).unwrap()).unwrap();
    let skills = index["skills"].as_array().unwrap();
    let names: Vec<&str> = skills.iter().map(|s| s["name"].as_str().unwrap()).collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
    for skill in skills {
        let artifact = first
            .join(".well-known/agent-skills")
            .join(skill["url"].as_str().unwrap());
        assert_eq!(sha256_of(&artifact), skill["digest"], "{skill}");
        let expected = if skill["url"].as_str().unwrap().ends_with(".tar.gz") {
            "archive"
        } else {
            "skill-md"
        };
        assert_eq!(skill["type"], expected);
    }
    // A skill with scripts is an archive; one that is only a SKILL.md is not.
    let kind = |name: &str| {
        skills.iter().find(|s| s["name"] == name).unwrap()["type"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(kind("pdf-extract"), "archive");
    assert_eq!(
        kind("pdf-forms"),
        "skill-md",
        "a nested skill is published on its own"
    );
    // Publishing again over an old index leaves no stale artifact.
    let only = temp.path().join("only");
    copy_dir(&repo().join("skills/dev"), &only);
    let out = run(
        temp.path(),
        &["--root", "only", "publish", first.to_str().unwrap()],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(!first
        .join(".well-known/agent-skills/pdf-extract.tar.gz")
        .exists());
    assert_eq!(published_names(&index_of(&first)).len(), 4);
}

/// Install every skill of the index at `from` into `root` (run in `cwd`).
fn install_all(cwd: &Path, root: &str, from: &str, names: &[String]) -> Run {
    let mut args = vec!["--root", root, "install", "--from", from];
    args.extend(names.iter().map(String::as_str));
    run(cwd, &args)
}

#[test]
fn the_bundled_catalog_published_installs_back_with_the_same_digests_and_the_lock_replays() {
    let temp = tempfile::tempdir().unwrap();
    let site = temp.path().join("site");
    assert_eq!(
        run(
            &repo(),
            &["--root", "skills", "publish", site.to_str().unwrap()]
        )
        .code,
        0
    );
    let published = published_names(&index_of(&site));
    assert_eq!(published.len(), 15);
    let project = temp.path().join("project");
    std::fs::create_dir_all(project.join("skills")).unwrap();
    let out = install_all(&project, "skills", site.to_str().unwrap(), &published);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout.lines().count(), 15, "{out:?}");
    assert_eq!(
        names(&project.join("skills")),
        published,
        "one folder per skill, nothing staged"
    );
    // The installed root published again gives the same index, byte for byte.
    let again = temp.path().join("again");
    let out = run(
        &project,
        &["--root", "skills", "publish", again.to_str().unwrap()],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        std::fs::read_to_string(index_of(&again)).unwrap(),
        std::fs::read_to_string(index_of(&site)).unwrap()
    );
    // The lock file replays into an empty checkout: the same tree.
    let lock = std::fs::read_to_string(project.join("skilldex.lock")).unwrap();
    assert!(
        lock.contains("\"destination\": \"skills/pdf-extract\""),
        "{lock}"
    );
    let checkout = temp.path().join("checkout");
    write(&checkout, "skilldex.lock", &lock);
    let out = run(&checkout, &["install", "--locked"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        tree(&checkout.join("skills")),
        tree(&project.join("skills"))
    );
    // Again: nothing to do.
    let out = run(&checkout, &["install", "--locked"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout.matches("unchanged ").count(), 15, "{out:?}");
    // A changed folder is not overwritten.
    std::fs::write(checkout.join("skills/code-review/SKILL.md"), "mine\n").unwrap();
    let out = run(&checkout, &["install", "--locked"]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr.contains("not as the lock file records it"),
        "{out:?}"
    );
    assert_eq!(
        std::fs::read_to_string(checkout.join("skills/code-review/SKILL.md")).unwrap(),
        "mine\n"
    );
}

#[test]
fn a_tampered_artifact_an_unknown_skill_and_an_unreachable_url_fail_and_leave_nothing() {
    let temp = tempfile::tempdir().unwrap();
    let site = temp.path().join("site");
    assert_eq!(
        run(
            &repo(),
            &["--root", "skills", "publish", site.to_str().unwrap()]
        )
        .code,
        0
    );
    let root = temp.path().join("root");
    std::fs::create_dir_all(&root).unwrap();
    let from = site.to_str().unwrap();
    // Tampered after publishing: refused, nothing written.
    let archive = site.join(".well-known/agent-skills/code-review.tar.gz");
    let mut bytes = std::fs::read(&archive).unwrap();
    bytes.push(0);
    std::fs::write(&archive, bytes).unwrap();
    let readme = site.join(".well-known/agent-skills/markdown-tables/SKILL.md");
    std::fs::write(&readme, "---\nname: markdown-tables\n---\nchanged\n").unwrap();
    for name in ["code-review", "markdown-tables"] {
        let out = run(
            temp.path(),
            &["--root", "root", "install", "--from", from, name],
        );
        assert_eq!(out.code, 2, "{out:?}");
        assert!(out.stderr.contains("does not match its digest"), "{out:?}");
        assert!(out.stderr.contains("nothing was written"), "{out:?}");
    }
    // Unknown: exit 1, with the closest names.
    let out = run(
        temp.path(),
        &["--root", "root", "install", "--from", from, "git-bisec"],
    );
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("did you mean `git-bisect`"), "{out:?}");
    // Unreachable: a port nobody listens on.
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let url = format!("http://127.0.0.1:{port}/.well-known/agent-skills/index.json");
    let out = run(
        temp.path(),
        &["--root", "root", "install", "--from", &url, "git-bisect"],
    );
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr.contains(&url) && out.stderr.contains("could not fetch"),
        "{out:?}"
    );
    assert_eq!(names(&root), Vec::<String>::new(), "nothing is left behind");
    assert!(!temp.path().join("skilldex.lock").exists());
}

/// A `.tar.gz` of raw entries (path, link target, content), headers
/// written by hand so that nothing cleans the paths.
fn raw_archive(entries: &[(&str, u8, &str, &[u8])]) -> Vec<u8> {
    use std::io::Write;
    let mut tar = Vec::new();
    for (path, kind, link, content) in entries {
        let mut header = [0u8; 512];
        header[..path.len()].copy_from_slice(path.as_bytes());
        header[100..107].copy_from_slice(b"0000644");
        header[108..115].copy_from_slice(b"0000000");
        header[116..123].copy_from_slice(b"0000000");
        header[124..135].copy_from_slice(format!("{:011o}", content.len()).as_bytes());
        header[136..147].copy_from_slice(b"00000000000");
        header[156] = *kind;
        header[157..157 + link.len()].copy_from_slice(link.as_bytes());
        header[148..156].copy_from_slice(b"        ");
        let sum: u32 = header.iter().map(|&b| u32::from(b)).sum();
        header[148..155].copy_from_slice(format!("{sum:06o}\0").as_bytes());
        tar.extend_from_slice(&header);
        tar.extend_from_slice(content);
        tar.resize(tar.len().div_ceil(512) * 512, 0);
    }
    tar.resize(tar.len() + 1024, 0);
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gzip.write_all(&tar).unwrap();
    gzip.finish().unwrap()
}

/// An index of one archive `name` with the right digest, in `site`.
fn hostile_site(site: &Path, name: &str, archive: &[u8]) {
    write(
        site,
        &format!(".well-known/agent-skills/{name}.tar.gz"),
        archive,
    );
    let digest = sha256_of(&site.join(format!(".well-known/agent-skills/{name}.tar.gz")));
    write(
        site,
        ".well-known/agent-skills/index.json",
        serde_json::json!({
            "$schema": "https://schemas.agentskills.io/discovery/0.2.0/schema.json",
            "skills": [{"name": name, "type": "archive", "description": "Hostile.", "url": format!("{name}.tar.gz"), "digest": digest}],
        })
        .to_string(),
    );
}

#[test]
fn hostile_archives_and_indexes_are_refused_without_a_trace() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("root");
    std::fs::create_dir_all(&root).unwrap();
    let skill: &[u8] = b"---\nname: evil\ndescription: d\n---\n";
    let cases: [(&str, Vec<u8>, &str); 3] = [
        (
            "climb",
            raw_archive(&[
                ("SKILL.md", b'0', "", skill),
                ("../../outside.txt", b'0', "", b"x"),
            ]),
            "path traversal",
        ),
        (
            "absolute",
            raw_archive(&[
                ("SKILL.md", b'0', "", skill),
                ("/tmp/skilldex-evil", b'0', "", b"x"),
            ]),
            "path traversal",
        ),
        (
            "linkout",
            raw_archive(&[
                ("SKILL.md", b'0', "", skill),
                ("data", b'2', "../../../etc", b""),
            ]),
            "outside the skill's folder",
        ),
    ];
    for (name, archive, expected) in cases {
        let site = temp.path().join(name);
        hostile_site(&site, name, &archive);
        let out = run(
            temp.path(),
            &[
                "--root",
                "root",
                "install",
                "--from",
                site.to_str().unwrap(),
                name,
            ],
        );
        assert_eq!(out.code, 2, "{name}: {out:?}");
        assert!(out.stderr.contains(expected), "{name}: {out:?}");
        assert!(
            out.stderr.contains("nothing was written"),
            "{name}: {out:?}"
        );
    }
    assert_eq!(names(&root), Vec::<String>::new());
    assert!(!temp.path().join("outside.txt").exists());
    assert!(!Path::new("/tmp/skilldex-evil").exists());

    // Indexes that are not JSON, too deep, too large, or another format:
    // errors naming the file with line:column, never a panic or a hang.
    let bad = temp.path().join("bad.json");
    let cases: [(Vec<u8>, &str); 4] = [
        (b"{\"$schema\": \"https://schemas.agentskills.io/discovery/0.2.0/schema.json\",\n  \"skills\": [\n".to_vec(), ":3:1: the index is not valid JSON"),
        ("[".repeat(200_000).into_bytes(), "not valid JSON"),
        (vec![b' '; 9 << 20], "the limit is"),
        (b"{\"skills\": []}".to_vec(), "0.1.0 format"),
    ];
    for (bytes, expected) in cases {
        std::fs::write(&bad, bytes).unwrap();
        let out = run(
            temp.path(),
            &["install", "--list", "--from", bad.to_str().unwrap()],
        );
        assert!(out.stderr.contains(bad.to_str().unwrap()), "{out:?}");
        assert!(out.stderr.contains(expected), "{expected}: {out:?}");
    }
}

#[test]
fn an_index_is_installed_over_http() {
    let temp = tempfile::tempdir().unwrap();
    let site = temp.path().join("site");
    assert_eq!(
        run(
            &repo(),
            &["--root", "skills", "publish", site.to_str().unwrap()]
        )
        .code,
        0
    );
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let mut server = std::process::Command::new("python3")
        .args(["-m", "http.server", "--bind", "127.0.0.1"])
        .arg(port.to_string())
        .current_dir(&site)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("python3 -m http.server starts");
    struct Kill(std::process::Child);
    impl Drop for Kill {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let started = std::time::Instant::now();
    loop {
        use std::io::{Read, Write};
        if let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", port)) {
            let _ = stream.write_all(b"HEAD /.well-known/agent-skills/index.json HTTP/1.0\r\n\r\n");
            let mut answer = String::new();
            let _ = stream.read_to_string(&mut answer);
            if answer.starts_with("HTTP/1.0 200") {
                break;
            }
        }
        if let Some(status) = server.try_wait().unwrap() {
            panic!("the test server exited: {status}");
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "the test server did not answer within 20 s"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let _server = Kill(server);
    let url = format!("http://127.0.0.1:{port}/.well-known/agent-skills/index.json");
    let project = temp.path().join("project");
    std::fs::create_dir_all(project.join("skills")).unwrap();
    write(
        &project,
        "skilldex.yaml",
        format!("roots: [skills]\navailable: [\"{url}\"]\n"),
    );
    let out = run(&project, &["install", "pdf-extract", "git-bisect"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        names(&project.join("skills")),
        ["git-bisect", "pdf-extract"]
    );
    assert!(project.join("skills/pdf-extract/references").is_dir());
    let lock = std::fs::read_to_string(project.join("skilldex.lock")).unwrap();
    assert!(
        lock.contains(&format!(
            "http://127.0.0.1:{port}/.well-known/agent-skills/pdf-extract.tar.gz"
        )),
        "{lock}"
    );
    // A URL whose artifact is gone: a clear error, nothing left.
    std::fs::remove_file(site.join(".well-known/agent-skills/code-review.tar.gz")).unwrap();
    let out = run(&project, &["install", "code-review"]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("HTTP 404"), "{out:?}");
    assert_eq!(
        names(&project.join("skills")),
        ["git-bisect", "pdf-extract"]
    );
}

#[test]
fn claude_and_codex_marketplaces_offer_their_local_plugins_skills() {
    let temp = tempfile::tempdir().unwrap();
    let markets = temp.path().join("markets");
    copy_dir(&fixture("marketplaces"), &markets);
    let claude = markets.join("claude/.claude-plugin/marketplace.json");
    let codex = markets.join("codex/.agents/plugins/marketplace.json");
    let out = run(
        temp.path(),
        &[
            "install",
            "--list",
            "--from",
            claude.to_str().unwrap(),
            "--from",
            codex.to_str().unwrap(),
        ],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("note-taking (folder)"), "{out:?}");
    assert!(out.stdout.contains("deploy-check (folder)"), "{out:?}");
    // Remote plugins are named with where they are written.
    assert!(
        out.stderr
            .contains("marketplace.json:6:5: the plugin `remote-kit`"),
        "{out:?}"
    );
    assert!(
        out.stderr
            .contains("the plugin `elsewhere` comes from a repository or URL"),
        "{out:?}"
    );
    let root = temp.path().join("root");
    std::fs::create_dir_all(&root).unwrap();
    let out = run(
        temp.path(),
        &[
            "--root",
            "root",
            "install",
            "--from",
            codex.to_str().unwrap(),
            "deploy-check",
        ],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let script = root.join("deploy-check/scripts/check.sh");
    assert!(script.is_file());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&script).unwrap().permissions().mode();
        assert_ne!(mode & 0o111, 0, "the script stays executable");
    }
    let lock = std::fs::read_to_string(temp.path().join("skilldex.lock")).unwrap();
    assert!(lock.contains("\"type\": \"folder\""), "{lock}");
    // Its lock entry replays from the marketplace folder.
    let checkout = temp.path().join("checkout");
    std::fs::create_dir_all(&checkout).unwrap();
    std::fs::write(
        checkout.join("skilldex.lock"),
        lock.replace("\"root/", "\"skills/"),
    )
    .unwrap();
    let out = run(&checkout, &["install", "--locked"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(tree(&checkout.join("skills")), tree(&root));
}

#[test]
fn a_skill_file_that_does_not_load_is_named_not_dropped_in_silence() {
    let temp = tempfile::tempdir().unwrap();
    let base = temp.path();
    write(
        base,
        "skills/good/SKILL.md",
        "---\nname: good\ndescription: A skill that loads.\n---\nBody.\n",
    );
    write(
        base,
        "skills/broken/SKILL.md",
        "---\nname: [broken\ndescription: x\n",
    );
    let out = run(base, &["--root", "skills", "publish", "out"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(published_names(&index_of(&base.join("out"))), ["good"]);
    assert!(
        out.stderr.contains("broken/SKILL.md:1:1:")
            && out.stderr.contains("did not load, so it is not published"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("1 left out"), "{}", out.stderr);
    let json = run(base, &["--root", "skills", "publish", "out", "--json"]).json();
    let left_out = json["left_out"].as_array().unwrap();
    assert_eq!(left_out.len(), 1, "{json}");
    assert!(left_out[0]["path"]
        .as_str()
        .unwrap()
        .ends_with("broken/SKILL.md"));
    assert_eq!(left_out[0]["line"], 1);
}
