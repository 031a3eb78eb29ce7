//! `read` and `grep`: sections, ranges, sub-files, caps, path safety, and
//! search across the catalog.

use super::*;

/// A catalog with one richly structured skill and a few neighbours.
fn catalog() -> tempfile::TempDir {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("root");
    write(
        &root,
        "tools/guide/SKILL.md",
        "---\nname: guide\ndescription: A guide with many sections. Use when testing reads.\n---\n\
# Guide\n\nIntro line.\n\n## Setup\n\nInstall it.\n\n```sh\n# not a heading\necho hi\n```\n\n\
## Usage\n\nFirst usage.\n\n### Details\n\nDeep detail.\n\n## Usage\n\nSecond usage.\n\n\
Setext Title\n------------\n\nUnder setext.\n\nSee [ref](references/ref.md) and [gone](references/gone.md).\n",
    );
    write(
        &root,
        "tools/guide/references/ref.md",
        "# Reference\n\nalpha line\nbeta line\ngamma line\n",
    );
    write(
        &root,
        "tools/guide/references/crlf.md",
        "# Win\r\n\r\n## Part A\r\n\r\nline a\r\n\r\n## Part B\r\n\r\nline b\r\n",
    );
    write(&root, "tools/guide/assets/logo.bin", [0u8, 1, 2, 3, 0, 255]);
    write(
        &root,
        "tools/guide/references/latin1.txt",
        b"caf\xe9 au lait\n",
    );
    write(
        &root,
        "tools/guide/nested/SKILL.md",
        skill_md("nested", "A skill inside guide. Use when nesting."),
    );
    write(&root, "tools/guide/nested/notes.md", "nested alpha\n");
    write(
        &root,
        "other/helper/SKILL.md",
        skill_md("helper", "Helps. Use when ALPHA is needed."),
    );
    write(temp.path(), "outside/secret.txt", "top secret\n");
    temp
}

fn root_of(temp: &tempfile::TempDir) -> String {
    temp.path().join("root").to_str().unwrap().to_string()
}

fn read(temp: &tempfile::TempDir, extra: &[&str]) -> Run {
    let root = root_of(temp);
    let mut args = vec!["read", "--root", root.as_str()];
    args.extend_from_slice(extra);
    run(&args)
}

fn grep(temp: &tempfile::TempDir, extra: &[&str]) -> Run {
    let root = root_of(temp);
    let mut args = vec!["grep", "--root", root.as_str()];
    args.extend_from_slice(extra);
    run(&args)
}

#[test]
fn read_body_with_header_listing_files() {
    let temp = catalog();
    let out = read(&temp, &["guide"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.starts_with("skill guide — folder "), "{out:?}");
    assert!(out.stdout.contains("files: assets/logo.bin, nested/SKILL.md (nested skill), references/crlf.md, references/latin1.txt, references/ref.md"), "{out:?}");
    assert!(
        out.stdout.contains("broken links: references/gone.md"),
        "{out:?}"
    );
    assert!(out.stdout.contains("# Guide\n"));
    assert!(
        !out.stdout.contains("description: A guide"),
        "front matter stripped"
    );
    assert!(
        !out.stdout.contains("alpha line"),
        "sub-file contents never included"
    );
    let raw = read(&temp, &["guide", "--raw", "--json"]).json();
    assert!(raw["content"]
        .as_str()
        .unwrap()
        .starts_with("---\nname: guide\n"));
    assert_eq!(raw["start_line"], 1);
    assert_eq!(raw["truncated"], false);
    assert_eq!(raw["next"], serde_json::Value::Null);
    for key in [
        "skill",
        "path",
        "content",
        "start_line",
        "end_line",
        "total_lines",
        "truncated",
        "next",
    ] {
        assert!(raw.get(key).is_some(), "{key}");
    }
}

#[test]
fn sections_by_text_or_slug_and_honest_misses() {
    let temp = catalog();
    let json = read(&temp, &["guide", "--section", "setup", "--json"]).json();
    let content = json["content"].as_str().unwrap();
    assert!(content.starts_with("## Setup\n"), "{content}");
    assert!(
        content.contains("# not a heading"),
        "a fenced `#` line is not a section: {content}"
    );
    assert!(!content.contains("## Usage"));
    let details = read(&temp, &["guide", "--section", "### Details", "--json"]).json();
    assert_eq!(details["content"], "### Details\n\nDeep detail.\n\n");
    let setext = read(&temp, &["guide", "--section", "setext-title", "--json"]).json();
    assert!(
        setext["content"]
            .as_str()
            .unwrap()
            .starts_with("Setext Title\n----"),
        "{setext}"
    );
    let ambiguous = read(&temp, &["guide", "--section", "Usage"]);
    assert_eq!(ambiguous.code, 1, "{ambiguous:?}");
    assert!(
        ambiguous.stderr.contains("matches 2 headings"),
        "{ambiguous:?}"
    );
    assert!(
        ambiguous.stderr.contains("## Setup"),
        "outline shown: {ambiguous:?}"
    );
    let unknown = read(&temp, &["guide", "--section", "Nope"]);
    assert_eq!(unknown.code, 1);
    assert!(
        unknown
            .stderr
            .contains("no section `Nope`; the headings are:"),
        "{unknown:?}"
    );
    let crlf = read(
        &temp,
        &["guide/references/crlf.md", "--section", "Part A", "--json"],
    )
    .json();
    assert_eq!(crlf["content"], "## Part A\r\n\r\nline a\r\n\r\n");
}

#[test]
fn ambiguous_or_unknown_section_answers_json_candidates() {
    let temp = catalog();
    let ambiguous = read(&temp, &["guide", "--section", "Usage", "--json"]);
    assert_eq!(ambiguous.code, 1, "{ambiguous:?}");
    let json = ambiguous.json();
    assert_eq!(json["skill"], "guide", "{json}");
    assert_eq!(json["path"], "SKILL.md", "{json}");
    assert_eq!(json["section"], "Usage", "{json}");
    assert_eq!(json["error"], "ambiguous section", "{json}");
    let candidates: Vec<(String, String, u64, u64)> = json["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["heading"].as_str().unwrap().to_string(),
                c["slug"].as_str().unwrap().to_string(),
                c["line"].as_u64().unwrap(),
                c["end_line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        candidates,
        [
            ("Usage".to_string(), "usage".to_string(), 18, 25),
            ("Usage".to_string(), "usage-1".to_string(), 26, 29),
        ]
    );
    assert_eq!(json["candidates"][0]["slug_selects"], false, "{json}");
    assert_eq!(json["candidates"][1]["slug_selects"], true, "{json}");
    assert!(
        ambiguous.stderr.contains("matches 2 headings"),
        "{ambiguous:?}"
    );

    let unknown = read(&temp, &["guide", "--section", "Nope", "--json"]);
    assert_eq!(unknown.code, 1, "{unknown:?}");
    let json = unknown.json();
    assert_eq!(json["error"], "unknown section", "{json}");
    let outline: Vec<(&str, &str, u64)> = json["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["heading"].as_str().unwrap(),
                c["slug"].as_str().unwrap(),
                c["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        outline,
        [
            ("Guide", "guide", 5),
            ("Setup", "setup", 9),
            ("Usage", "usage", 18),
            ("Details", "details", 22),
            ("Usage", "usage-1", 26),
            ("Setext Title", "setext-title", 30),
        ]
    );
    // The text answer is unchanged in kind: the outline on stderr, nothing on stdout.
    let text = read(&temp, &["guide", "--section", "Nope"]);
    assert_eq!(text.code, 1, "{text:?}");
    assert!(text.stdout.is_empty(), "{text:?}");
}

#[test]
fn repeated_headings_are_picked_by_numbered_slugs() {
    let temp = catalog();
    let second = read(&temp, &["guide", "--section", "usage-1", "--json"]);
    assert_eq!(second.code, 0, "{second:?}");
    let json = second.json();
    assert_eq!(json["content"], "## Usage\n\nSecond usage.\n\n", "{json}");
    assert_eq!(json["start_line"], 26);
    // The bare slug names both, as the text does.
    let both = read(&temp, &["guide", "--section", "usage"]);
    assert_eq!(both.code, 1, "{both:?}");
    assert!(both.stderr.contains("matches 2 headings"), "{both:?}");
    // Each heading is listed with a way to pick it that works.
    assert!(
        both.stderr.contains("L26    ## Usage  (--section usage-1)"),
        "{both:?}"
    );
    assert!(
        both.stderr.contains("L18    ## Usage  (--lines 18:25)"),
        "{both:?}"
    );
    let first = read(&temp, &["guide", "--lines", "18:25", "--json"]).json();
    assert!(first["content"]
        .as_str()
        .unwrap()
        .starts_with("## Usage\n\nFirst usage."));
    // `show` lists the same unique slugs.
    let root = root_of(&temp);
    let show = run(&["show", "--root", &root, "guide", "--json"]).json();
    let slugs: Vec<&str> = show["headings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["slug"].as_str().unwrap())
        .collect();
    assert_eq!(
        slugs,
        [
            "guide",
            "setup",
            "usage",
            "details",
            "usage-1",
            "setext-title"
        ]
    );
}

#[test]
fn an_empty_skill_name_is_a_usage_error() {
    let temp = catalog();
    let root = root_of(&temp);
    for args in [
        vec!["read", ""],
        vec!["read", "/"],
        vec!["read", " // "],
        vec!["read", "", "--json"],
        vec!["show", ""],
        vec!["show", "/"],
        vec!["show", " ", "--json"],
        vec!["grep", "x", "--skill", ""],
    ] {
        let mut full = args.clone();
        full.extend(["--root", root.as_str()]);
        let out = run(&full);
        assert_eq!(out.code, 2, "{args:?}: {out:?}");
        assert!(out.stdout.is_empty(), "{args:?}: {out:?}");
        assert!(
            out.stderr.contains("the skill name is empty")
                && out.stderr.contains("needs the name of a skill"),
            "{args:?}: {out:?}"
        );
        assert!(!out.stderr.contains("did you mean"), "{args:?}: {out:?}");
    }
}

#[test]
fn line_ranges_and_sub_files() {
    let temp = catalog();
    let json = read(
        &temp,
        &["guide/references/ref.md", "--lines", "3:4", "--json"],
    )
    .json();
    assert_eq!(json["content"], "alpha line\nbeta line\n");
    assert_eq!(
        (json["start_line"].as_u64(), json["end_line"].as_u64()),
        (Some(3), Some(4))
    );
    assert_eq!(json["total_lines"], 5);
    let open = read(
        &temp,
        &["guide/references/ref.md", "--lines", "4:", "--json"],
    )
    .json();
    assert_eq!(open["content"], "beta line\ngamma line\n");
    let outside = read(&temp, &["guide/references/ref.md", "--lines", "9:10"]);
    assert_eq!(outside.code, 2, "{outside:?}");
    assert!(outside.stderr.contains("has 5 lines"), "{outside:?}");
    let nested = read(&temp, &["nested", "--json"]).json();
    assert_eq!(nested["skill"], "nested");
    let through_parent = read(&temp, &["guide/nested/SKILL.md", "--raw", "--json"]).json();
    assert!(through_parent["content"]
        .as_str()
        .unwrap()
        .contains("name: nested"));
    let folder = read(&temp, &["guide/references"]);
    assert_eq!(folder.code, 2);
    assert!(
        folder.stderr.contains("is a folder") && folder.stderr.contains("references/ref.md"),
        "{folder:?}"
    );
    let missing = read(&temp, &["guide/references/none.md"]);
    assert_eq!(missing.code, 1, "a missing file is no match");
    assert!(
        missing.stderr.contains("has no file `references/none.md`"),
        "{missing:?}"
    );
    write(
        &temp.path().join("root"),
        "tools/bare/SKILL.md",
        "---\nname: bare\ndescription: Only a header. Use when testing.\n---\n",
    );
    let bare = read(&temp, &["bare", "--json"]).json();
    assert_eq!(bare["content"], "", "{bare}");
    let unknown = read(&temp, &["gude"]);
    assert_eq!(unknown.code, 1);
    assert!(
        unknown.stderr.contains("did you mean `guide`"),
        "{unknown:?}"
    );
}

#[test]
fn large_reads_are_cut_with_a_continuation() {
    let temp = catalog();
    let body: String = (1..=400)
        .map(|i| format!("line number {i} with a few words in it\n"))
        .collect();
    write(
        &temp.path().join("root"),
        "big/long/SKILL.md",
        format!("---\nname: long\ndescription: Long. Use when long.\n---\n{body}"),
    );
    let first = read(&temp, &["long", "--max-tokens", "200", "--json"]).json();
    assert_eq!(first["truncated"], true);
    let next = first["next"].as_str().unwrap().to_string();
    let end = first["end_line"].as_u64().unwrap();
    assert_eq!(next, format!("{}:", end + 1));
    assert!(skilldex::tokens::count(first["content"].as_str().unwrap()) <= 200);
    let rest = read(
        &temp,
        &["long", "--lines", &next, "--max-tokens", "100000", "--json"],
    )
    .json();
    assert_eq!(rest["truncated"], false);
    let joined = format!(
        "{}{}",
        first["content"].as_str().unwrap(),
        rest["content"].as_str().unwrap()
    );
    assert_eq!(joined, body);
    let text = read(&temp, &["long", "--max-tokens", "200"]);
    assert!(
        text.stdout.contains(&format!(
            "continue with `skilldex read long --lines {next} --max-tokens 200 --root {}`",
            temp.path().join("root").display()
        )),
        "{text:?}"
    );
    // A single enormous line is shown in part, without hanging.
    let huge = "x".repeat(2_000_000);
    write(
        &temp.path().join("root"),
        "big/wide/SKILL.md",
        format!("---\nname: wide\ndescription: Wide. Use when wide.\n---\n{huge}\n"),
    );
    let wide = read(&temp, &["wide", "--json"]).json();
    assert_eq!(wide["truncated"], true);
    assert!(wide["content"].as_str().unwrap().len() < 100_000);
    assert!(wide["note"].as_str().unwrap().contains("bytes"), "{wide}");
}

#[test]
fn a_cut_section_continues_inside_the_section() {
    let temp = catalog();
    let steps: String = (1..=60)
        .map(|i| format!("{i}. step number {i} of the procedure\n"))
        .collect();
    write(
        &temp.path().join("root"),
        "big/procedure/SKILL.md",
        format!(
            "---\nname: procedure\ndescription: Steps. Use when following steps.\n---\n# Procedure\n\n## Steps\n\n{steps}\n## After\n\nNot part of the steps.\n"
        ),
    );
    // `## Steps` is line 7; the section ends before `## After`.
    let whole = read(
        &temp,
        &[
            "procedure",
            "--section",
            "Steps",
            "--max-tokens",
            "100000",
            "--json",
        ],
    )
    .json();
    let section_end = whole["end_line"].as_u64().unwrap();
    assert_eq!(whole["start_line"], 7);
    assert_eq!(section_end, 7 + 2 + 60);
    assert_eq!(whole["next"], serde_json::Value::Null);

    let first = read(
        &temp,
        &[
            "procedure",
            "--section",
            "Steps",
            "--max-tokens",
            "30",
            "--json",
        ],
    )
    .json();
    assert_eq!(first["truncated"], true, "{first}");
    let end = first["end_line"].as_u64().unwrap();
    assert_eq!(
        first["next"].as_str().unwrap(),
        format!("{}:{section_end}", end + 1),
        "{first}"
    );
    let text = read(
        &temp,
        &["procedure", "--section", "Steps", "--max-tokens", "30"],
    );
    assert!(
        text.stdout.contains(&format!(
            "continue with `skilldex read procedure --lines {}:{section_end} --max-tokens 30 --root {}`",
            end + 1,
            temp.path().join("root").display()
        )),
        "{text:?}"
    );
    // Following the hints reads the section and nothing after it; the last
    // chunk has no hint.
    let mut joined = first["content"].as_str().unwrap().to_string();
    let mut next = first["next"].as_str().unwrap().to_string();
    for _ in 0..100 {
        let chunk = read(
            &temp,
            &[
                "procedure",
                "--lines",
                &next,
                "--max-tokens",
                "30",
                "--json",
            ],
        )
        .json();
        joined.push_str(chunk["content"].as_str().unwrap());
        match chunk["next"].as_str() {
            Some(more) => next = more.to_string(),
            None => {
                assert_eq!(chunk["end_line"].as_u64(), Some(section_end), "{chunk}");
                break;
            }
        }
    }
    assert_eq!(joined, whole["content"].as_str().unwrap());
    assert!(!joined.contains("## After"), "{joined}");
    // A range with an end continues inside it too; an open one and the
    // whole body continue to the end of the file.
    let range = read(
        &temp,
        &[
            "procedure",
            "--lines",
            "9:40",
            "--max-tokens",
            "30",
            "--json",
        ],
    )
    .json();
    let range_end = range["end_line"].as_u64().unwrap();
    assert_eq!(range["next"], format!("{}:40", range_end + 1), "{range}");
    let open = read(
        &temp,
        &["procedure", "--lines", "9:", "--max-tokens", "30", "--json"],
    )
    .json();
    let open_end = open["end_line"].as_u64().unwrap();
    assert_eq!(open["next"], format!("{}:", open_end + 1), "{open}");
    let body = read(&temp, &["procedure", "--max-tokens", "30", "--json"]).json();
    let body_end = body["end_line"].as_u64().unwrap();
    assert_eq!(body["next"], format!("{}:", body_end + 1), "{body}");
}

#[test]
fn a_file_over_the_size_limit_is_described_truly() {
    let temp = catalog();
    let root = temp.path().join("root");
    let filler: String = (1..=3_000)
        .map(|i| format!("Line {i} of a body that is far too long for one file.\n"))
        .collect();
    write(
        &root,
        "big/heavy/SKILL.md",
        format!("---\nname: heavy\ndescription: Heavy. Use when heavy.\n---\n# Heavy\n\n{filler}The very last line.\n"),
    );
    write(
        &root,
        "big/medium/SKILL.md",
        format!(
            "---\nname: medium\ndescription: Medium. Use when medium.\n---\n# Medium\n\n{}",
            &filler[..2_000]
        ),
    );
    let message = |skill: &str, extra: &[&str]| {
        let (_, diagnostics) = lint_json(&root, extra);
        let found = diagnostics
            .iter()
            .find(|d| d["code"] == "file-too-large" && d["path"].as_str().unwrap().contains(skill))
            .unwrap_or_else(|| panic!("no file-too-large for {skill}: {diagnostics:#?}"));
        found["message"].as_str().unwrap().to_string()
    };
    // Larger than the head the scan reads: only the head was scanned.
    let head_only = message("heavy", &["--max-file-bytes", "100000"]);
    assert!(
        !head_only.contains("only its front matter was read"),
        "{head_only}"
    );
    for part in [
        "the limit is 100,000",
        "when scanning, the catalog read only its head (the front matter)",
        "split the body into reference files",
        "--max-file-bytes",
    ] {
        assert!(head_only.contains(part), "{part}: {head_only}");
    }
    // Smaller than that head: the whole file was scanned; no claim otherwise.
    let read_whole = message("medium", &["--max-file-bytes", "1000"]);
    assert!(!read_whole.contains("only its head"), "{read_whole}");
    assert!(
        read_whole.contains("split the body into reference files"),
        "{read_whole}"
    );
    // And `read` shows the whole body, as the message now lets one expect.
    let root_s = root.to_str().unwrap();
    let body = run(&[
        "read",
        "--root",
        root_s,
        "--max-file-bytes",
        "100000",
        "heavy",
        "--max-tokens",
        "1000000",
    ]);
    assert_eq!(body.code, 0, "{body:?}");
    assert!(body.stdout.contains("The very last line."), "{body:?}");
}

#[test]
fn binary_is_refused_and_invalid_utf8_shown_lossily() {
    let temp = catalog();
    let binary = read(&temp, &["guide/assets/logo.bin"]);
    assert_eq!(binary.code, 2, "{binary:?}");
    assert!(binary.stderr.contains("binary file"), "{binary:?}");
    let latin = read(&temp, &["guide/references/latin1.txt", "--json"]);
    assert_eq!(latin.code, 0, "{latin:?}");
    let json = latin.json();
    assert_eq!(json["content"], "caf\u{FFFD} au lait\n");
    assert!(json["note"].as_str().unwrap().contains("not valid UTF-8"));
}

#[test]
fn no_path_leads_out_of_the_skill() {
    let temp = catalog();
    let root = temp.path().join("root");
    let secret = temp.path().join("outside/secret.txt");
    #[cfg(unix)]
    {
        use std::os::unix::fs::symlink;
        symlink(&secret, root.join("tools/guide/references/link.txt")).unwrap();
        symlink(
            temp.path().join("outside"),
            root.join("tools/guide/references/dir"),
        )
        .unwrap();
        symlink(
            root.join("other/helper/SKILL.md"),
            root.join("tools/guide/references/sibling.md"),
        )
        .unwrap();
        symlink(
            root.join("tools/guide/references/ref.md"),
            root.join("tools/guide/references/inside.md"),
        )
        .unwrap();
        symlink(
            "/nonexistent/target",
            root.join("tools/guide/references/dangling.md"),
        )
        .unwrap();
    }
    let attempts = [
        "guide/../../../outside/secret.txt",
        "guide/references/../../helper/SKILL.md",
        "guide/./references/../../../outside/secret.txt",
        &format!("guide/{}", secret.display()),
        "guide/references/link.txt",
        "guide/references/dir/secret.txt",
        "guide/references/sibling.md",
        "guide/references/dangling.md",
    ];
    for attempt in attempts {
        let out = read(&temp, &[attempt]);
        assert_eq!(out.code, 2, "{attempt}: {out:?}");
        assert!(
            !out.stdout.contains("top secret"),
            "{attempt} leaked: {out:?}"
        );
        assert!(out.stdout.is_empty(), "{attempt}: {out:?}");
        assert!(
            out.stderr.contains("not inside skill `guide`") || out.stderr.contains("has no file"),
            "{attempt}: {out:?}"
        );
    }
    // grep does not search through those links either.
    let searched = grep(&temp, &["top secret"]);
    assert_eq!(searched.code, 1, "{searched:?}");
    assert!(searched.stdout.is_empty(), "{searched:?}");
    // A link that stays inside the skill folder is fine.
    let inside = read(&temp, &["guide/references/inside.md", "--json"]);
    assert_eq!(inside.code, 0, "{inside:?}");
    assert!(inside.json()["content"]
        .as_str()
        .unwrap()
        .contains("alpha line"));
}

#[test]
fn a_path_the_directory_prints_reads_like_the_name() {
    let temp = catalog();
    let root = temp.path().join("root");
    let root_s = root_of(&temp);
    // The directory's bracketed path is what an agent copies.
    let rendered = run(&["render", "--root", &root_s, "--format", "json"]);
    let listed = rendered.json()["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "guide")
        .unwrap()["path"]
        .as_str()
        .unwrap()
        .to_string();
    let by_name = read(&temp, &["guide", "--section", "details", "--json"]);
    assert_eq!(by_name.code, 0, "{by_name:?}");
    let skill_file = root.join("tools/guide/SKILL.md");
    let folder = root.join("tools/guide");
    for target in [
        listed.clone(),
        skill_file.display().to_string(),
        folder.display().to_string(),
    ] {
        let by_path = read(&temp, &[&target, "--section", "details", "--json"]);
        assert_eq!(by_path.code, 0, "{target}: {by_path:?}");
        assert_eq!(by_path.json(), by_name.json(), "{target}");
    }
    // `show` takes the same paths.
    let shown = run(&["show", "--root", &root_s, "guide", "--json"]);
    let shown_by_path = run(&["show", "--root", &root_s, &listed, "--json"]);
    assert_eq!(shown_by_path.code, 0, "{shown_by_path:?}");
    assert_eq!(shown_by_path.json(), shown.json());
    // Relative to the current folder, through `..`, and a file in the skill.
    let from_temp = run_in(
        temp.path(),
        &[
            "read",
            "--root",
            "root",
            "./root/tools/guide/../guide/references/ref.md",
            "--json",
        ],
    );
    assert_eq!(from_temp.code, 0, "{from_temp:?}");
    let same_by_name = run_in(
        temp.path(),
        &[
            "read",
            "--root",
            "root",
            "guide/references/ref.md",
            "--json",
        ],
    );
    assert_eq!(from_temp.json(), same_by_name.json());
    let relative = run_in(
        temp.path(),
        &["read", "--root", "root", "./root/tools/guide/nested"],
    );
    assert_eq!(relative.code, 0, "{relative:?}");
    assert!(
        relative.stdout.starts_with("skill nested — folder "),
        "{relative:?}"
    );
    // Without `./` a relative path is a name; the answer says how to write it.
    let bare = run_in(
        temp.path(),
        &["read", "--root", "root", "root/tools/guide/SKILL.md"],
    );
    assert_eq!(bare.code, 1, "{bare:?}");
    assert!(
        bare.stderr.contains("write ./root/tools/guide/SKILL.md"),
        "{bare:?}"
    );
    // Paths that lead to no skill say so, by path.
    let outside = temp.path().join("outside/secret.txt");
    let no_skill = [
        (
            outside.display().to_string(),
            2,
            "not inside a skill folder",
        ),
        (
            root.join("tools").display().to_string(),
            2,
            "not inside a skill folder",
        ),
        (
            root.join("tools/missing/SKILL.md").display().to_string(),
            1,
            "no file or folder at",
        ),
    ];
    for (target, code, says) in no_skill {
        let out = read(&temp, &[&target]);
        assert_eq!(out.code, code, "{target}: {out:?}");
        assert!(out.stdout.is_empty(), "{target}: {out:?}");
        assert!(
            out.stderr.contains(says) && out.stderr.contains(&target),
            "{target}: {out:?}"
        );
    }
    let missing = run_in(
        temp.path(),
        &["read", "--root", "root", "./root/tools/nope"],
    );
    assert_eq!(missing.code, 1, "{missing:?}");
    assert!(
        missing
            .stderr
            .contains("no file or folder at ./root/tools/nope"),
        "{missing:?}"
    );
    // An ignored skill is not read by path either, and a disabled one says how to enable it.
    write(&root, ".gitignore", "other/\n");
    let ignored = read(&temp, &[root.join("other/helper").to_str().unwrap()]);
    assert_eq!(ignored.code, 1, "{ignored:?}");
    assert!(ignored.stderr.contains("not in the catalog"), "{ignored:?}");
    let disabled = skilldex()
        .env("SKILLDEX_DISABLED", "guide")
        .args(["read", "--root", &root_s, skill_file.to_str().unwrap()])
        .output()
        .unwrap();
    let disabled = finish(disabled);
    assert_eq!(disabled.code, 1, "{disabled:?}");
    assert!(disabled.stderr.contains("disabled"), "{disabled:?}");
}

/// What a path read must agree on with the whole catalog: roots reached
/// through links, skill folders outside every root, ids that only the whole
/// catalog knows, and names that look like paths.
#[cfg(unix)]
#[test]
fn a_path_read_never_guesses() {
    use std::os::unix::fs::symlink;
    let temp = tempfile::tempdir().unwrap();
    let base = temp.path();
    write(base, "r1/x/SKILL.md", skill_md("x", "First x. Use when x."));
    write(
        base,
        "r2/x/SKILL.md",
        "---\nname: x\ndescription: Second x. Use when x.\n---\nSECOND-X-BODY\n",
    );
    write(base, "r2/ops/y/SKILL.md", skill_md("y", "Y. Use when y."));
    write(
        base,
        "elsewhere/z/SKILL.md",
        skill_md("z", "Z. Use when z."),
    );
    symlink(base.join("r2"), base.join("link2")).unwrap();
    symlink("/nonexistent/target", base.join("r2/ops/y/dangling.md")).unwrap();
    let roots = |first: &str, second: &str| {
        vec![
            "--root".to_string(),
            base.join(first).display().to_string(),
            "--root".to_string(),
            base.join(second).display().to_string(),
        ]
    };
    let read_with = |roots: &[String], extra: &[&str], disabled: &str| {
        let mut command = skilldex();
        command
            .env("SKILLDEX_DISABLED", disabled)
            .arg("read")
            .args(roots)
            .args(extra);
        finish(command.output().unwrap())
    };
    let both = roots("r1", "r2");
    let second = base.join("r2/x/SKILL.md").display().to_string();
    // The second `x` is `x~2` in the whole catalog; disabled by that id, it
    // stays unreadable by path too.
    let by_id = read_with(&both, &["x~2"], "x~2");
    let by_path = read_with(&both, &[&second], "x~2");
    assert_eq!(by_id.code, 1, "{by_id:?}");
    assert_eq!(by_path.code, 1, "{by_path:?}");
    assert!(
        by_path.stderr.contains("disabled") && !by_path.stdout.contains("SECOND-X-BODY"),
        "{by_path:?}"
    );
    // A root given through a link, the path by its real folder (and back).
    let linked = roots("r1", "link2");
    let real = read_with(&linked, &[&second], "");
    assert_eq!(real.code, 0, "{real:?}");
    assert!(real.stdout.contains("SECOND-X-BODY"), "{real:?}");
    let through_link = base.join("link2/x").display().to_string();
    let via = read_with(&both, &[&through_link], "");
    assert_eq!(via.code, 0, "{via:?}");
    assert!(via.stdout.contains("SECOND-X-BODY"), "{via:?}");
    // A skill folder under no root is refused, not read.
    let outside = base.join("elsewhere/z").display().to_string();
    let refused = read_with(&both, &[&outside], "");
    assert_eq!(refused.code, 2, "{refused:?}");
    assert!(
        refused.stdout.is_empty() && refused.stderr.contains(&outside),
        "{refused:?}"
    );
    // A dangling link inside a skill is explained as one.
    let dangling = base.join("r2/ops/y/dangling.md").display().to_string();
    let out = read_with(&both, &[&dangling], "");
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr.contains("dangling.md") && !out.stderr.contains("not inside a skill folder"),
        "{out:?}"
    );
    // From inside a root, where ids look like folders, a name stays a name:
    // `ops/y` is the id of the second `y` (shadowed by `dev/y`).
    write(
        base,
        "r2/dev/y/SKILL.md",
        skill_md("y", "Other y. Use when y."),
    );
    let in_root = run_in(
        &base.join("r2"),
        &["read", "--root", ".", "ops/y", "--json"],
    );
    assert_eq!(in_root.code, 0, "{in_root:?}");
    assert_eq!(in_root.json()["skill"], "ops/y", "{in_root:?}");
}

#[cfg(unix)]
#[test]
fn no_path_on_disk_leads_out_of_the_skill_either() {
    let temp = catalog();
    let root = temp.path().join("root");
    let secret = temp.path().join("outside/secret.txt");
    use std::os::unix::fs::symlink;
    symlink(&secret, root.join("tools/guide/references/link.txt")).unwrap();
    symlink(
        temp.path().join("outside"),
        root.join("tools/guide/references/dir"),
    )
    .unwrap();
    let attempts = [
        root.join("tools/guide/references/link.txt"),
        root.join("tools/guide/references/dir/secret.txt"),
        root.join("tools/guide/../../../outside/secret.txt"),
        secret.clone(),
    ];
    for attempt in attempts {
        let out = read(&temp, &[attempt.to_str().unwrap()]);
        assert_eq!(out.code, 2, "{attempt:?}: {out:?}");
        assert!(out.stdout.is_empty(), "{attempt:?}: {out:?}");
        assert!(!out.stderr.contains("top secret"), "{attempt:?}: {out:?}");
    }
}

#[cfg(unix)]
#[test]
fn reading_a_fifo_does_not_hang() {
    let temp = catalog();
    let fifo = temp.path().join("root/tools/guide/references/pipe.md");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let out = read(&temp, &["guide/references/pipe.md"]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("not a regular file"), "{out:?}");
}

#[test]
fn grep_orders_by_skill_and_attributes_nested_files() {
    let temp = catalog();
    let out = grep(&temp, &["-i", "alpha"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        out.stdout,
        "helper/SKILL.md:3:description: Helps. Use when ALPHA is needed.\n\
guide/references/ref.md:3:alpha line\n\
nested/notes.md:1:nested alpha\n"
    );
    let case = grep(&temp, &["alpha"]);
    assert!(!case.stdout.contains("ALPHA"), "{case:?}");
    let smart = grep(&temp, &["-S", "ALPHA"]);
    assert_eq!(smart.stdout.lines().count(), 1, "{smart:?}");
    let only = grep(&temp, &["--skill", "guide", "alpha"]);
    assert_eq!(only.stdout, "guide/references/ref.md:3:alpha line\n");
    let namespace = grep(&temp, &["--namespace", "other", "-i", "alpha"]);
    assert!(namespace.stdout.starts_with("helper/"), "{namespace:?}");
    assert_eq!(namespace.stdout.lines().count(), 1);
}

#[test]
fn grep_options_match_ripgrep_semantics() {
    let temp = catalog();
    let fixed = grep(&temp, &["-F", "[ref](references/ref.md)"]);
    assert_eq!(fixed.code, 0, "{fixed:?}");
    assert!(fixed.stdout.starts_with("guide/SKILL.md:"), "{fixed:?}");
    let word = grep(&temp, &["-w", "usag"]);
    assert_eq!(word.code, 1, "{word:?}");
    let context = grep(&temp, &["-C", "1", "beta line"]);
    assert_eq!(
        context.stdout,
        "guide/references/ref.md-3-alpha line\nguide/references/ref.md:4:beta line\nguide/references/ref.md-5-gamma line\n"
    );
    let zero = grep(&temp, &["-m", "0", "line"]);
    assert_eq!(zero.code, 1, "{zero:?}");
    let per_file = grep(&temp, &["-m", "1", "line"]);
    assert!(
        per_file
            .stdout
            .lines()
            .filter(|l| l.starts_with("guide/references/ref.md"))
            .count()
            == 1,
        "{per_file:?}"
    );
    let files = grep(&temp, &["-l", "line"]);
    assert!(files.stdout.lines().all(|l| !l.contains(':')), "{files:?}");
    assert!(files.stdout.contains("guide/references/ref.md\n"));
    let none = grep(&temp, &["zzz-not-there"]);
    assert_eq!(none.code, 1);
    assert!(none.stdout.is_empty());
    let bad = grep(&temp, &["(unclosed"]);
    assert_eq!(bad.code, 2, "{bad:?}");
    assert!(bad.stderr.contains("unclosed group"), "{bad:?}");
}

#[test]
fn grep_json_lines_and_global_cap() {
    let temp = catalog();
    let out = grep(&temp, &["--json", "--max-results", "2", "line"]);
    assert_eq!(out.code, 0, "{out:?}");
    let lines: Vec<serde_json::Value> = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let matches: Vec<&serde_json::Value> = lines.iter().filter(|l| l["type"] == "match").collect();
    assert_eq!(matches.len(), 2);
    for m in &matches {
        for key in ["skill", "path", "line", "text"] {
            assert!(m.get(key).is_some(), "{key} in {m}");
        }
    }
    let summary = lines.last().unwrap();
    assert_eq!(summary["type"], "summary");
    assert_eq!(summary["matches"], 2);
    assert_eq!(summary["truncated"], true);
    assert!(out.stderr.contains("stopped at 2 matches"), "{out:?}");
    let all = grep(&temp, &["--json", "-C", "1", "beta"]);
    let kinds: Vec<String> = all
        .stdout
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(kinds, ["context", "match", "context", "summary"]);
}

#[test]
fn library_grep_agrees_with_the_search_inside_the_scan() {
    let temp = catalog();
    let root = temp.path().join("root");
    for request in [
        skilldex::query::GrepRequest {
            pattern: "line".into(),
            before_context: 1,
            ..Default::default()
        },
        skilldex::query::GrepRequest {
            pattern: "ALPHA".into(),
            ignore_case: true,
            max_results: Some(2),
            ..Default::default()
        },
    ] {
        let catalog = skilldex::CatalogBuilder::new([&root]).build().unwrap();
        let two_pass = skilldex::query::grep(&catalog, &request).unwrap();
        let search = skilldex::query::grep::ScanSearch::new(&request).unwrap();
        let scanned = skilldex::CatalogBuilder::new([&root])
            .file_visitor(search.visitor())
            .build()
            .unwrap();
        let one_pass = search.finish(&scanned).unwrap();
        assert!(one_pass.matches >= 2, "{one_pass:?}");
        assert_eq!(two_pass, one_pass);
    }
}

#[test]
fn read_and_show_name_what_was_asked_for() {
    let temp = catalog();
    let root = root_of(&temp);
    let namespaced = temp.path().join("root/tools");
    assert!(namespaced.is_dir(), "the catalog has a `tools` namespace");
    for (name, code, says) in [
        ("tools/gide", 1, "no skill `gide` in namespace `tools` — did you mean `tools/guide`?"),
        ("tols/guide", 1, "no skill `guide` in namespace `tols`, and no namespace `tols` exists — did you mean `tools/guide`?"),
        ("../guide", 2, "`../guide` is not a skill name: `..` is not allowed in a skill name or path — did you mean `guide`?"),
    ] {
        for command in ["read", "show"] {
            let out = run(&[command, name, "--root", root.as_str()]);
            assert_eq!(out.code, code, "{command} {name}: {out:?}");
            assert_eq!(out.stderr.trim(), format!("skilldex: {says}"), "{command} {name}");
        }
    }
}

#[test]
fn a_heading_text_wins_over_another_headings_numbered_slug() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("root");
    write(
        &root,
        "steps/SKILL.md",
        "---\nname: steps\ndescription: Steps. Use when testing.\n---\n\
## Steps\n\nOne.\n\n## Steps\n\nTwo.\n\n## Steps 1\n\nThree.\n",
    );
    let root = root.to_str().unwrap().to_string();
    let third = run(&[
        "read",
        "--root",
        &root,
        "steps",
        "--section",
        "Steps 1",
        "--json",
    ]);
    assert_eq!(third.code, 0, "{third:?}");
    assert!(
        third.json()["content"].as_str().unwrap().contains("Three."),
        "{third:?}"
    );
    let second = run(&[
        "read",
        "--root",
        &root,
        "steps",
        "--section",
        "steps-1",
        "--json",
    ]);
    assert_eq!(second.code, 0, "{second:?}");
    assert!(
        second.json()["content"].as_str().unwrap().contains("Two."),
        "{second:?}"
    );
    let third_by_slug = run(&[
        "read",
        "--root",
        &root,
        "steps",
        "--section",
        "steps-1-1",
        "--json",
    ]);
    assert!(
        third_by_slug.json()["content"]
            .as_str()
            .unwrap()
            .contains("Three."),
        "{third_by_slug:?}"
    );
}

#[test]
fn a_heading_repeated_thousands_of_times_lists_a_few_candidates() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("root");
    let body = "## Step\n\nDo it.\n\n".repeat(2000);
    write(
        &root,
        "many/SKILL.md",
        format!("---\nname: many\ndescription: Many steps. Use when testing.\n---\n{body}"),
    );
    let root = root.to_str().unwrap().to_string();
    let out = run(&["read", "--root", &root, "many", "--section", "Step"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("matches 2000 headings"), "{out:?}");
    assert!(out.stderr.contains("… and 1950 more"), "{out:?}");
    assert!(
        out.stderr.lines().count() < 60,
        "{}",
        out.stderr.lines().count()
    );
}

/// The hint that ends a cut read, run as printed by a shell, reads the next
/// part of the same file: by path when the read was by path (a shadowed
/// skill's plain name is another skill's), quoted when the path has spaces.
#[test]
fn a_continuation_hint_run_by_a_shell_reads_on_in_the_same_file() {
    let temp = tempfile::tempdir().unwrap();
    let lines = |tag: &str| {
        (1..=400)
            .map(|i| format!("{tag} line {i} with a few words in it\n"))
            .collect::<String>()
    };
    write(
        temp.path(),
        "first/dup/SKILL.md",
        format!(
            "---\nname: dup\ndescription: First. Use when testing.\n---\n{}",
            lines("first")
        ),
    );
    write(
        temp.path(),
        "second/ns/dup/SKILL.md",
        format!(
            "---\nname: dup\ndescription: Second. Use when testing.\n---\n{}",
            lines("second")
        ),
    );
    write(temp.path(), "second/ns/dup/my refs/a b.md", lines("spaced"));
    let shell = |command: &str| {
        let bin = env!("CARGO_BIN_EXE_skilldex");
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(command.replacen("skilldex", bin, 1))
            .current_dir(temp.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{command}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let hint = |stdout: &str| {
        let at = stdout.rfind("continue with `").expect("a hint") + "continue with `".len();
        stdout[at..].split('`').next().unwrap().to_string()
    };
    for (first, tag) in [
        ("skilldex read ./second/ns/dup --max-tokens 300 --root first --root second", "second"),
        ("skilldex read 'ns/dup/my refs/a b.md' --max-tokens 300 --root first --root second", "spaced"),
        ("skilldex read './second/ns/dup/my refs/a b.md' --max-tokens 300 --root first --root second", "spaced"),
    ] {
        let out = shell(first);
        let command = hint(&out);
        let next = shell(&command);
        assert!(next.contains(&format!("{tag} line ")), "{command}: {next}");
        assert!(!next.contains("first line "), "{command}: {next}");
    }
}

/// A file of a nested skill, named through the skill it is nested in, is
/// the nested skill's: read as it, refused when it is disabled.
#[test]
fn a_nested_skill_read_through_its_parent_is_itself() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("root");
    outer_and_inner(&root, "the inner body\n");
    write(&root, "outer/inner/refs/a.md", "inner reference\n");
    let root_arg = root.to_str().unwrap();
    for target in ["outer/inner", "outer/inner/SKILL.md"] {
        let out = run(&["read", target, "--json", "--root", root_arg]);
        assert_eq!(out.code, 0, "{target}: {out:?}");
        let json: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(json["skill"], "inner", "{target}: {json}");
        assert!(json["content"].as_str().unwrap().contains("the inner body"));
    }
    let sub = run(&[
        "read",
        "outer/inner/refs/a.md",
        "--json",
        "--root",
        root_arg,
    ]);
    let sub: serde_json::Value = serde_json::from_str(&sub.stdout).unwrap();
    assert_eq!(
        (sub["skill"].as_str(), sub["path"].as_str()),
        (Some("inner"), Some("refs/a.md"))
    );
    for target in [
        "outer/inner/SKILL.md",
        "outer/inner/refs/a.md",
        "outer/inner",
    ] {
        let out = skilldex()
            .args(["read", target, "--root", root_arg])
            .env("SKILLDEX_DISABLED", "inner")
            .output()
            .unwrap();
        let out = finish(out);
        assert_eq!(out.code, 1, "{target}: {out:?}");
        assert!(out.stdout.is_empty(), "{target}: {out:?}");
        assert!(
            out.stderr.contains("skill `inner` is disabled"),
            "{target}: {out:?}"
        );
    }
    // A nested skill file that does not load keeps its folder out of reach.
    write(
        &root,
        "outer/broken/SKILL.md",
        "---\nname: broken\n---\nno description\n",
    );
    write(&root, "outer/broken/notes.md", "broken notes\n");
    let out = run(&["read", "outer/broken/notes.md", "--root", root_arg]);
    assert_eq!(out.code, 1, "as `read broken` answers: {out:?}");
    assert!(
        out.stderr.contains("skill `broken` did not load")
            && out.stderr.contains("outer/broken/SKILL.md:"),
        "{out:?}"
    );
}

/// A symlink inside a skill never leads into a disabled skill nested in
/// it: not by `read`, not by `grep`; and `read`/`show` do not announce the
/// disabled skill. An alias of an enabled nested skill reads as that skill.
#[cfg(unix)]
#[test]
fn links_inside_a_skill_do_not_lead_into_a_disabled_nested_skill() {
    use std::os::unix::fs::symlink;
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("root");
    outer_and_inner(&root, "# inner\n");
    write(&root, "outer/inner/refs/a.md", "inner ref\n");
    write(&root, "outer/refs/own.md", "outer ref\n");
    symlink("inner", root.join("outer/alias")).unwrap();
    symlink("../inner/refs/a.md", root.join("outer/refs/link.md")).unwrap();
    let root_arg = root.to_str().unwrap();
    let with = |disabled: &str, args: &[&str]| {
        let mut command = skilldex();
        command.args(args).args(["--root", root_arg]);
        command.env("SKILLDEX_DISABLED", disabled);
        finish(command.output().unwrap())
    };
    let by_path = format!("{root_arg}/outer/refs/link.md");
    for target in [
        "outer/refs/link.md",
        "outer/alias/refs/a.md",
        "outer/alias",
        by_path.as_str(),
    ] {
        let out = with("inner", &["read", target]);
        assert_eq!(out.code, 1, "{target}: {out:?}");
        assert!(
            out.stderr.contains("skill `inner` is disabled"),
            "{target}: {out:?}"
        );
    }
    let grep = with("inner", &["grep", "-F", "inner ref"]);
    assert_eq!(grep.code, 1, "{grep:?}");
    let read = with("inner", &["read", "outer", "--json"]);
    let read: serde_json::Value = serde_json::from_str(&read.stdout).unwrap();
    assert!(!read.to_string().contains("inner/SKILL.md"), "{read}");
    for target in ["outer", &format!("{root_arg}/outer")] {
        let show = with("inner", &["show", target, "--json"]);
        assert!(!show.stdout.contains("inner/SKILL.md"), "{show:?}");
    }
    // An enabled skill nested in a disabled one is its own: a link to it
    // from the outer skill reads.
    write(
        &root,
        "outer/mid/SKILL.md",
        skill_md("mid", "Mid. Use when testing."),
    );
    write(
        &root,
        "outer/mid/deep/SKILL.md",
        skill_md("deep", "Deep. Use when testing."),
    );
    write(&root, "outer/mid/deep/refs/d.md", "deep ref\n");
    symlink("mid/deep/refs/d.md", root.join("outer/d.md")).unwrap();
    let by_path = format!("{root_arg}/outer/d.md");
    for target in ["outer/d.md", by_path.as_str()] {
        let out = with("mid", &["read", target]);
        assert_eq!(out.code, 0, "{target}: {out:?}");
        assert!(out.stdout.contains("deep ref"), "{target}: {out:?}");
    }
    // Enabled, the alias is the nested skill itself.
    let alias = with("", &["read", "outer/alias/refs/a.md", "--json"]);
    let alias: serde_json::Value = serde_json::from_str(&alias.stdout).unwrap();
    assert_eq!(alias["skill"], "inner", "{alias}");
}

/// Sections are named as the agent sees them: by the heading as written
/// (inline markup, closing `#`s), and the outline offers a flag that works
/// for a slug starting with `-`. A file that is not Markdown has no
/// sections; a reference opening with a `---` rule keeps its first lines;
/// a missing file is "no match".
#[test]
fn sections_and_files_as_the_agent_sees_them() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("root");
    write(
        &root,
        "eps/SKILL.md",
        "---\nname: eps\ndescription: Flags. Use when testing.\n---\n# Use `foo()` with [link](refs/x.md)\n\nintro\n\n## `--dry-run`\n\ndry\n\n## Trailing hashes ##\n\ntrail\n",
    );
    write(&root, "eps/run.sh", "#!/bin/sh\n# Steps\necho hi\n");
    write(
        &root,
        "eps/hr.md",
        "---\n\nImportant intro.\n\n---\n\nRest.\n",
    );
    let root_arg = root.to_str().unwrap();
    let read = |extra: &[&str]| {
        let mut args = vec!["read", "--root", root_arg];
        args.extend_from_slice(extra);
        run(&args)
    };
    for (section, expected) in [
        ("Use `foo()` with [link](refs/x.md)", "intro"),
        ("# Use `foo()` with [link](refs/x.md)", "intro"),
        ("Trailing hashes ##", "trail"),
        ("## Trailing hashes ##", "trail"),
    ] {
        let out = read(&["eps", "--section", section]);
        assert_eq!(out.code, 0, "{section}: {out:?}");
        assert!(out.stdout.contains(expected), "{section}: {out:?}");
    }
    let unknown = read(&["eps", "--section", "nope"]);
    assert_eq!(unknown.code, 1, "{unknown:?}");
    assert!(
        unknown.stderr.contains("(--section=--dry-run)"),
        "{unknown:?}"
    );
    let picked = read(&["eps", "--section=--dry-run"]);
    assert!(picked.stdout.contains("dry"), "{picked:?}");
    let script = read(&["eps/run.sh", "--section", "Steps"]);
    assert_eq!(script.code, 2, "{script:?}");
    assert!(script.stderr.contains("is not Markdown"), "{script:?}");
    let rule = read(&["eps/hr.md", "--json"]);
    let rule: serde_json::Value = serde_json::from_str(&rule.stdout).unwrap();
    assert_eq!(rule["start_line"], 1, "{rule}");
    assert!(rule["content"]
        .as_str()
        .unwrap()
        .contains("Important intro."));
    for target in ["eps/missing.md", &format!("{root_arg}/eps/missing.md")] {
        let missing = read(&[target]);
        assert_eq!(missing.code, 1, "{target}: {missing:?}");
    }
}

/// A skill whose file does not load is named as such, with the first
/// error at its file, line and column: by name, by path, and in `show`.
#[test]
fn a_skill_that_did_not_load_says_why() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("root");
    write(
        &root,
        "team/broken/SKILL.md",
        "---\nname: broken\ndescription: \"Use when\n---\nbody\n",
    );
    write(
        &root,
        "team/fine/SKILL.md",
        skill_md("fine", "Fine. Use when testing."),
    );
    let root_arg = root.to_str().unwrap();
    let path = format!("{root_arg}/team/broken");
    for args in [
        vec!["read", "broken"],
        vec!["read", "team/broken"],
        vec!["show", "broken"],
        vec!["read", path.as_str()],
        vec!["show", path.as_str()],
    ] {
        let mut full = args.clone();
        full.extend(["--root", root_arg]);
        let out = run(&full);
        assert_eq!(out.code, 1, "{args:?}: {out:?}");
        assert!(
            out.stderr.contains("did not load")
                && out.stderr.contains("team/broken/SKILL.md:3:14:")
                && out.stderr.contains("close the quote"),
            "{args:?}: {out:?}"
        );
    }
    // A name that is nowhere stays an unknown name.
    let out = run(&["read", "nowhere", "--root", root_arg]);
    assert!(out.stderr.contains("no skill named `nowhere`"), "{out:?}");
}

#[test]
fn suggestions_name_each_skill_by_a_form_that_reads_it() {
    // `ns/t` also calls itself `s` and loses the name to `ns/s`: its id is
    // `ns/s`, so the winner is suggested by its plain name, not as `ns/s`.
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("skills");
    write(
        &root,
        "ns/s/SKILL.md",
        skill_md("s", "The winner. Use when testing."),
    );
    write(
        &root,
        "ns/t/SKILL.md",
        skill_md("s", "The loser. Use when testing."),
    );
    let run = finish(
        skilldex()
            .args(["read", "ns/s~3", "--root"])
            .arg(&root)
            .output()
            .unwrap(),
    );
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(run.stderr.matches("`ns/s`").count(), 1, "{run:?}");
    assert!(run.stderr.contains("`s`"), "{run:?}");
    // Each suggestion reads the skill it stands for.
    for (suggested, description) in [("s", "The winner"), ("ns/s", "The loser")] {
        let read = finish(
            skilldex()
                .args(["read", suggested, "--raw", "--root"])
                .arg(&root)
                .output()
                .unwrap(),
        );
        assert_eq!(read.code, 0, "{suggested}: {read:?}");
        assert!(read.stdout.contains(description), "{suggested}: {read:?}");
    }
}
