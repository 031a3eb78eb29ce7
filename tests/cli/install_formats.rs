//! `skilldex install` from discovery indexes whose artifacts are `.zip`
//! archives (built here with the `zip` crate, or by hand where a writer
//! would clean the names) and whose `url`s are percent-encoded paths or
//! `file:` URLs. Each install is checked on disk, in `skilldex.lock`, and
//! by `install --locked` into an empty checkout; each refusal leaves
//! nothing behind (no skill, no staging folder, no lock, nothing outside).

use super::{bounded, skilldex, write, Run};
use std::io::Write;
use std::path::Path;

const SCHEMA: &str = "https://schemas.agentskills.io/discovery/0.2.0/schema.json";

fn run(cwd: &Path, args: &[&str]) -> Run {
    let mut command = skilldex();
    command.current_dir(cwd).args(args);
    bounded(command)
}

/// The names in `dir`, hidden ones too (a staging folder would show).
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(bytes);
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// A zip of `(name, unix mode, content)`; a mode with the symlink type
/// makes a link whose target is the content; a name ending in `/` a folder.
fn zip_of(entries: &[(&str, u32, &[u8])]) -> Vec<u8> {
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, mode, content) in entries {
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .unix_permissions(*mode);
        if mode & 0o170_000 == 0o120_000 {
            writer
                .add_symlink(*name, std::str::from_utf8(content).unwrap(), options)
                .unwrap();
        } else if name.ends_with('/') {
            writer.add_directory(*name, options).unwrap();
        } else {
            writer.start_file(*name, options).unwrap();
            writer.write_all(content).unwrap();
        }
    }
    writer.finish().unwrap().into_inner()
}

/// An index entry for the artifact `bytes` at `url`.
fn entry(name: &str, kind: &str, url: &str, bytes: &[u8]) -> serde_json::Value {
    serde_json::json!({
        "name": name, "type": kind, "description": format!("The {name} skill."),
        "url": url, "digest": sha256(bytes),
    })
}

fn write_index(path: &Path, entries: Vec<serde_json::Value>) {
    let text = serde_json::json!({"$schema": SCHEMA, "skills": entries}).to_string();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn skill_text(name: &str) -> Vec<u8> {
    format!("---\nname: {name}\ndescription: The {name} skill.\n---\n# {name}\n\nSteps.\n")
        .into_bytes()
}

#[test]
fn a_zip_archive_installs_its_digest_checked_and_the_lock_replays_it() {
    let temp = tempfile::tempdir().unwrap();
    let skill = skill_text("zipped");
    let archive = zip_of(&[
        ("SKILL.md", 0o100_644, &skill),
        ("scripts/", 0o040_755, b""),
        ("scripts/run.sh", 0o100_755, b"#!/bin/sh\necho ok\n"),
        ("reference/guide.md", 0o100_644, b"# Guide\n"),
        ("reference/same.md", 0o120_777, b"guide.md"),
    ]);
    let site = temp.path().join("site/.well-known/agent-skills");
    write(&site, "zipped.zip", &archive);
    write_index(
        &site.join("index.json"),
        vec![entry("zipped", "archive", "zipped.zip", &archive)],
    );
    let project = temp.path().join("project");
    std::fs::create_dir_all(project.join("skills")).unwrap();
    let from = temp.path().join("site");
    let out = run(
        &project,
        &[
            "--root",
            "skills",
            "install",
            "--from",
            from.to_str().unwrap(),
            "zipped",
        ],
    );
    assert_eq!(out.code, 0, "{out:?}");
    // The link inside the folder is left out and said.
    assert!(out.stderr.contains("reference/same.md"), "{out:?}");
    let installed = project.join("skills/zipped");
    assert_eq!(std::fs::read(installed.join("SKILL.md")).unwrap(), skill);
    assert_eq!(
        std::fs::read_to_string(installed.join("reference/guide.md")).unwrap(),
        "# Guide\n"
    );
    assert!(std::fs::symlink_metadata(installed.join("reference/same.md")).is_err());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(installed.join("scripts/run.sh"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o755);
    }
    assert_eq!(names(&project.join("skills")), ["zipped"], "nothing staged");
    // The installed skill is in the catalog and reads.
    let out = run(&project, &["--root", "skills", "read", "zipped"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("Steps."), "{out:?}");

    let lock = std::fs::read_to_string(project.join("skilldex.lock")).unwrap();
    let value: serde_json::Value = serde_json::from_str(&lock).unwrap();
    let recorded = &value["skills"][0];
    assert_eq!(recorded["type"], "archive", "{lock}");
    assert!(
        recorded["url"].as_str().unwrap().ends_with("zipped.zip"),
        "{lock}"
    );
    assert_eq!(recorded["digest"], sha256(&archive), "{lock}");
    // Replayed into an empty checkout: the zip is fetched, checked and
    // unpacked again, to the same tree.
    let checkout = temp.path().join("checkout");
    write(&checkout, "skilldex.lock", &lock);
    let out = run(&checkout, &["install", "--locked"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        std::fs::read(checkout.join("skills/zipped/scripts/run.sh")).unwrap(),
        b"#!/bin/sh\necho ok\n"
    );
    let out = run(&checkout, &["install", "--locked"]);
    assert!(out.stdout.contains("unchanged "), "{out:?}");

    // The same zip changed after the index was written: refused.
    let mut tampered = archive.clone();
    let at = tampered.len() - 30;
    tampered[at] ^= 1;
    std::fs::write(site.join("zipped.zip"), &tampered).unwrap();
    let other = temp.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    let out = run(
        temp.path(),
        &[
            "--root",
            "other",
            "install",
            "--from",
            from.to_str().unwrap(),
            "zipped",
        ],
    );
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("does not match its digest"), "{out:?}");
    assert_eq!(names(&other), Vec::<String>::new());
}

/// A stored zip with raw names, written by hand so that no writer cleans
/// them: local headers, the central directory, its end. `mode` is the
/// Unix mode (with its type bits) of each entry.
fn raw_zip(entries: &[(&str, u32, &[u8])]) -> Vec<u8> {
    let crc = |bytes: &[u8]| {
        let mut crc = !0u32;
        for &b in bytes {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 != 0 {
                    (crc >> 1) ^ 0xEDB8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    };
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, mode, content) in entries {
        let offset = out.len() as u32;
        let sum = crc(content);
        let size = content.len() as u32;
        let fixed = |out: &mut Vec<u8>| {
            out.extend_from_slice(&20u16.to_le_bytes()); // version needed
            out.extend_from_slice(&0u16.to_le_bytes()); // flags
            out.extend_from_slice(&0u16.to_le_bytes()); // stored
            out.extend_from_slice(&0u32.to_le_bytes()); // time, date
            out.extend_from_slice(&sum.to_le_bytes());
            out.extend_from_slice(&size.to_le_bytes());
            out.extend_from_slice(&size.to_le_bytes());
            out.extend_from_slice(&(name.len() as u16).to_le_bytes());
            out.extend_from_slice(&0u16.to_le_bytes()); // extra
        };
        out.extend_from_slice(b"PK\x03\x04");
        fixed(&mut out);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(content);
        central.extend_from_slice(b"PK\x01\x02");
        central.extend_from_slice(&(0x0300u16 | 20).to_le_bytes()); // made by Unix
        fixed(&mut central);
        central.extend_from_slice(&0u16.to_le_bytes()); // comment
        central.extend_from_slice(&0u16.to_le_bytes()); // disk
        central.extend_from_slice(&0u16.to_le_bytes()); // internal attributes
        central.extend_from_slice(&(mode << 16).to_le_bytes());
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
    }
    let start = out.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(b"PK\x05\x06");
    out.extend_from_slice(&0u32.to_le_bytes()); // disks
    out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&start.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}

#[test]
fn hostile_zips_are_refused_and_leave_nothing_behind() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("root");
    std::fs::create_dir_all(&root).unwrap();
    let skill = skill_text("evil");
    let outside = temp.path().join("outside.txt");
    let absolute = format!("{}/absolute.txt", temp.path().display());
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "climb",
            raw_zip(&[
                ("SKILL.md", 0o100_644, &skill),
                ("../../outside.txt", 0o100_644, b"x"),
            ]),
            "path traversal",
        ),
        (
            "climb-inside",
            raw_zip(&[
                ("SKILL.md", 0o100_644, &skill),
                ("docs/../../../outside.txt", 0o100_644, b"x"),
            ]),
            "path traversal",
        ),
        (
            "absolute",
            raw_zip(&[
                ("SKILL.md", 0o100_644, &skill),
                (absolute.as_str(), 0o100_644, b"x"),
            ]),
            "path traversal",
        ),
        (
            "backslash",
            raw_zip(&[
                ("SKILL.md", 0o100_644, &skill),
                ("..\\..\\outside.txt", 0o100_644, b"x"),
            ]),
            "backslash",
        ),
        (
            "linkout",
            raw_zip(&[
                ("SKILL.md", 0o100_644, &skill),
                ("data", 0o120_777, b"../../../etc"),
                ("data/passwd", 0o100_644, b"x"),
            ]),
            "outside the skill's folder",
        ),
        (
            "linkabsolute",
            zip_of(&[
                ("SKILL.md", 0o100_644, &skill),
                ("passwd", 0o120_777, b"/etc/passwd"),
            ]),
            "outside the skill's folder",
        ),
        (
            "wrapped",
            zip_of(&[("evil-main/SKILL.md", 0o100_644, &skill)]),
            "no SKILL.md at its top",
        ),
    ];
    for (name, archive, expected) in &cases {
        let site = temp.path().join(name);
        write(&site, "evil.zip", archive);
        write_index(
            &site.join("index.json"),
            vec![entry("evil", "archive", "evil.zip", archive)],
        );
        let index = site.join("index.json");
        let out = run(
            temp.path(),
            &[
                "--root",
                "root",
                "install",
                "--from",
                index.to_str().unwrap(),
                "evil",
            ],
        );
        assert_eq!(out.code, 2, "{name}: {out:?}");
        assert!(out.stderr.contains(expected), "{name}: {out:?}");
        assert!(
            out.stderr.contains("nothing was written"),
            "{name}: {out:?}"
        );
        assert_eq!(names(&root), Vec::<String>::new(), "{name}: staged left");
    }
    assert!(!outside.exists());
    assert!(!Path::new(&absolute).exists());
    assert!(!temp.path().join("skilldex.lock").exists());
}

#[test]
fn percent_encoded_urls_are_decoded_and_escapes_that_hide_a_climb_are_refused() {
    let temp = tempfile::tempdir().unwrap();
    // A folder with spaces, an index beside it naming the files with
    // escapes, and one artifact named by a `file:` URL.
    let site = temp.path().join("my site");
    let plain = skill_text("plain-skill");
    write(&site, "skills/my skill/SKILL.md", &plain);
    let zipped = zip_of(&[("SKILL.md", 0o100_644, &skill_text("far-skill"))]);
    let far = temp.path().join("far away/far skill.zip");
    write(far.parent().unwrap(), "far skill.zip", &zipped);
    let far_url = format!("file://{}", far.display().to_string().replace(' ', "%20"));
    let secret = skill_text("secret");
    write(temp.path(), "secret/SKILL.md", &secret);
    write_index(
        &site.join("index.json"),
        vec![
            entry(
                "plain-skill",
                "skill-md",
                "skills/my%20skill/SKILL.md",
                &plain,
            ),
            entry("far-skill", "archive", &far_url, &zipped),
            entry("climb", "skill-md", "%2e%2e/secret/SKILL.md", &secret),
            entry("slash", "skill-md", "..%2Fsecret%2FSKILL.md", &secret),
        ],
    );
    let root = temp.path().join("root");
    std::fs::create_dir_all(&root).unwrap();
    // The index itself named by a `file:` URL, escapes and all.
    let index_url = format!(
        "file://{}",
        site.join("index.json")
            .display()
            .to_string()
            .replace(' ', "%20")
    );
    let out = run(temp.path(), &["install", "--list", "--from", &index_url]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("plain-skill"), "{out:?}");
    assert!(out.stdout.contains("far skill.zip"), "{out:?}");
    for refused in ["`climb` is left out", "`slash` is left out"] {
        assert!(out.stderr.contains(refused), "{refused}: {out:?}");
    }
    assert!(out.stderr.contains("behind percent escapes"), "{out:?}");

    let out = run(
        temp.path(),
        &[
            "--root",
            "root",
            "install",
            "--from",
            &index_url,
            "plain-skill",
            "far-skill",
        ],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        std::fs::read(root.join("plain-skill/SKILL.md")).unwrap(),
        plain
    );
    assert!(root.join("far-skill/SKILL.md").is_file());
    let lock = std::fs::read_to_string(temp.path().join("skilldex.lock")).unwrap();
    assert!(
        lock.contains("my skill/SKILL.md"),
        "the decoded path: {lock}"
    );

    // The hidden climbs are not offered, so not installed.
    for name in ["climb", "slash"] {
        let out = run(
            temp.path(),
            &["--root", "root", "install", "--from", &index_url, name],
        );
        assert_eq!(out.code, 1, "{name}: {out:?}");
        assert!(!root.join(name).exists());
    }
    assert_eq!(names(&root), ["far-skill", "plain-skill"]);

    // The same index served over `available:` as a `file:` URL.
    let project = temp.path().join("project");
    write(
        &project,
        "skilldex.yaml",
        format!("roots: [skills]\navailable:\n  - {index_url}\n"),
    );
    std::fs::create_dir_all(project.join("skills")).unwrap();
    let out = run(&project, &["install", "plain-skill"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(project.join("skills/plain-skill/SKILL.md").is_file());
    // A `file:` URL for another host is an error that says so.
    let out = run(
        temp.path(),
        &[
            "install",
            "--list",
            "--from",
            "file://example.com/index.json",
        ],
    );
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("this machine"), "{out:?}");
}
