//! `grep`: `--max-count` with context as `rg` answers it, and files reached
//! twice inside one skill (through a symlink) answered once; a bad pattern
//! reported as the user wrote it; a skill file that did not load named as
//! not searched.

use super::*;

/// One skill whose `SKILL.md` and `notes.md` each match `Steps` twice.
fn steps_catalog() -> tempfile::TempDir {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("root");
    write(
        &root,
        "steps/SKILL.md",
        "---\nname: steps\ndescription: A guide to follow. Use when testing grep.\n---\n\
\n## Steps\n\nFirst step.\n\n## More Steps\n\nLast step.\n",
    );
    write(
        &root,
        "steps/notes.md",
        "Steps one\nSteps two\nafter two\nthird line\n",
    );
    temp
}

fn grep_in(temp: &tempfile::TempDir, extra: &[&str]) -> Run {
    let root = temp.path().join("root");
    let root = root.to_str().unwrap();
    let mut args = vec!["grep", "--root", root];
    args.extend_from_slice(extra);
    run(&args)
}

fn json_lines(out: &Run) -> Vec<serde_json::Value> {
    out.stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}\n{out:?}")))
        .collect()
}

#[test]
fn max_count_keeps_the_after_context_of_the_last_counted_match() {
    let temp = steps_catalog();
    // As `grep -m1 -A1 Steps`: the first match of each file and the line
    // after it; a line of that context that matches too is shown as
    // context, so `-m 1` means one match (rg shows it as a match).
    let out = grep_in(&temp, &["-A", "1", "-m", "1", "Steps"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        out.stdout,
        "steps/SKILL.md:6:## Steps\n\
steps/SKILL.md-7-\n\
steps/notes.md:1:Steps one\n\
steps/notes.md-2-Steps two\n"
    );
    let counted = grep_in(&temp, &["--json", "-A", "1", "-m", "1", "Steps"]);
    let summary = json_lines(&counted).pop().unwrap();
    assert_eq!(summary["matches"], 2, "one per file: {counted:?}");
    // As `rg -m1 -C1 First`: the before-context too.
    let around = grep_in(&temp, &["-C", "1", "-m", "1", "First"]);
    assert_eq!(
        around.stdout, "steps/SKILL.md-7-\nsteps/SKILL.md:8:First step.\nsteps/SKILL.md-9-\n",
        "{around:?}"
    );
    // More context than lines left ends with the file.
    let long = grep_in(&temp, &["-A", "3", "-m", "1", "--skill", "steps", "one"]);
    assert_eq!(
        long.stdout,
        "steps/notes.md:1:Steps one\n\
steps/notes.md-2-Steps two\n\
steps/notes.md-3-after two\n\
steps/notes.md-4-third line\n",
        "{long:?}"
    );
    // Without context, -m still stops at the count.
    let plain = grep_in(&temp, &["-m", "1", "Steps"]);
    assert_eq!(
        plain.stdout,
        "steps/SKILL.md:6:## Steps\nsteps/notes.md:1:Steps one\n"
    );
}

#[test]
fn max_count_after_context_in_json() {
    let temp = steps_catalog();
    let out = grep_in(&temp, &["--json", "-A", "1", "-m", "1", "First"]);
    assert_eq!(out.code, 0, "{out:?}");
    let lines = json_lines(&out);
    let shape: Vec<(String, u64, String)> = lines
        .iter()
        .filter(|l| l["type"] != "summary")
        .map(|l| {
            (
                l["type"].as_str().unwrap().to_string(),
                l["line"].as_u64().unwrap(),
                l["text"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        shape,
        [
            ("match".to_string(), 8, "First step.".to_string()),
            ("context".to_string(), 9, String::new()),
        ]
    );
    let summary = lines.last().unwrap();
    assert_eq!(summary["type"], "summary");
    assert_eq!(summary["matches"], 1);
    assert_eq!(summary["truncated"], false);
}

#[test]
fn invalid_utf8_is_replaced_line_by_line() {
    // The lines of a file are checked as UTF-8 together: a line that ends
    // in the middle of a character and a next line that starts with the
    // rest of it must not make one valid character between them.
    let temp = steps_catalog();
    let root = temp.path().join("root");
    write(
        &root,
        "steps/split.md",
        b"Steps \xe2\x82\n\xacSteps\n".as_slice(),
    );
    write(
        &root,
        "steps/bad.md",
        b"Steps \xff one\r\nSteps caf\xc3\xa9\n".as_slice(),
    );
    let out = grep_in(&temp, &["--skill", "steps", "-F", "Steps"]);
    assert_eq!(out.code, 0, "{out:?}");
    let of = |file: &str| -> Vec<&str> {
        out.stdout
            .lines()
            .filter(|l| l.starts_with(&format!("steps/{file}:")))
            .collect()
    };
    assert_eq!(
        of("split.md"),
        [
            "steps/split.md:1:Steps \u{fffd}",
            "steps/split.md:2:\u{fffd}Steps"
        ],
        "{out:?}"
    );
    assert_eq!(
        of("bad.md"),
        [
            "steps/bad.md:1:Steps \u{fffd} one",
            "steps/bad.md:2:Steps café"
        ],
        "{out:?}"
    );
    let json = grep_in(&temp, &["--skill", "steps", "--json", "-F", "Steps"]);
    let texts: Vec<String> = json_lines(&json)
        .iter()
        .filter(|l| l["path"] == "split.md")
        .map(|l| l["text"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(texts, ["Steps \u{fffd}", "\u{fffd}Steps"], "{json:?}");
}

/// `tools/linked`: `refs/a.md`, a folder link `inner -> refs`, a file link
/// `alias.md -> refs/a.md`, a link `away -> ../../outside` that leaves the
/// skill, and a link to the skill's own `SKILL.md`.
#[cfg(unix)]
fn linked_catalog() -> tempfile::TempDir {
    use std::os::unix::fs::symlink;
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("root");
    let skill = root.join("tools/linked");
    write(
        &root,
        "tools/linked/SKILL.md",
        skill_md("linked", "Links inside. Use when testing grep."),
    );
    write(&skill, "refs/a.md", "some text here\nmore text\n");
    write(temp.path(), "outside/secret.md", "some text outside\n");
    symlink("refs", skill.join("inner")).unwrap();
    symlink("refs/a.md", skill.join("alias.md")).unwrap();
    symlink("SKILL.md", skill.join("zz-skill.md")).unwrap();
    symlink("../../../outside", skill.join("away")).unwrap();
    temp
}

#[cfg(unix)]
#[test]
fn a_file_reached_twice_in_a_skill_is_searched_once() {
    let temp = linked_catalog();
    let out = grep_in(&temp, &["some text"]);
    assert_eq!(out.code, 0, "{out:?}");
    // Under its path without a symlink; the link that leaves the skill is
    // still not searched.
    assert_eq!(out.stdout, "linked/refs/a.md:1:some text here\n");
    let json = grep_in(&temp, &["--json", "text"]);
    let lines = json_lines(&json);
    let paths: Vec<&str> = lines
        .iter()
        .filter(|l| l["type"] == "match")
        .map(|l| l["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["refs/a.md", "refs/a.md"], "{json:?}");
    assert_eq!(lines.last().unwrap()["matches"], 2);
    assert_eq!(lines.last().unwrap()["files"], 1);
    let files = grep_in(&temp, &["-l", "text|Do the thing"]);
    assert_eq!(
        files.stdout, "linked/SKILL.md\nlinked/refs/a.md\n",
        "{files:?}"
    );
    // The skill file wins over a link to it.
    let own = grep_in(&temp, &["Do the thing"]);
    assert_eq!(own.stdout, "linked/SKILL.md:8:Do the thing.\n", "{own:?}");
    // `--max-results` counts the file once.
    let capped = grep_in(&temp, &["--json", "--max-results", "2", "text"]);
    let capped = json_lines(&capped);
    assert_eq!(capped.last().unwrap()["truncated"], false);
}

#[cfg(unix)]
#[test]
fn show_and_read_list_a_file_reached_twice_once() {
    let temp = linked_catalog();
    let root = temp.path().join("root");
    let root = root.to_str().unwrap();
    let show = run(&["show", "linked", "--json", "--root", root]);
    assert_eq!(show.code, 0, "{show:?}");
    let listed: Vec<(String, String)> = show.json()["sub_files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_string(),
                f["kind"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let read = run(&["read", "linked", "--json", "--root", root]);
    assert_eq!(read.code, 0, "{read:?}");
    let read_listed: Vec<String> = read.json()["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_string())
        .collect();
    for paths in [
        listed.iter().map(|(p, _)| p.clone()).collect::<Vec<_>>(),
        read_listed,
    ] {
        // Links are named as links, never walked into.
        assert_eq!(
            paths,
            ["alias.md", "away", "inner", "refs/a.md", "zz-skill.md"],
            "{show:?}"
        );
    }
    for (path, kind) in &listed {
        let expected = if path == "refs/a.md" {
            "markdown"
        } else {
            "symlink"
        };
        assert_eq!(kind, expected, "{path}");
    }
}

#[cfg(unix)]
#[test]
fn library_grep_agrees_with_the_scan_search_on_linked_files() {
    let temp = linked_catalog();
    let root = temp.path().join("root");
    let request = skilldex::query::GrepRequest {
        pattern: "text|thing".into(),
        after_context: 1,
        max_count: Some(1),
        ..Default::default()
    };
    let catalog = skilldex::CatalogBuilder::new([&root]).build().unwrap();
    let two_pass = skilldex::query::grep(&catalog, &request).unwrap();
    let search = skilldex::query::grep::ScanSearch::new(&request).unwrap();
    let scanned = skilldex::CatalogBuilder::new([&root])
        .file_visitor(search.visitor())
        .build()
        .unwrap();
    let one_pass = search.finish(&scanned).unwrap();
    let paths: Vec<&str> = one_pass.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["SKILL.md", "refs/a.md"], "{one_pass:?}");
    assert_eq!(one_pass.files[1].lines.len(), 2, "{one_pass:?}");
    assert_eq!(two_pass, one_pass);
}

#[test]
fn a_bad_pattern_is_reported_against_the_pattern_as_written() {
    let temp = steps_catalog();
    let out = grep_in(&temp, &["("]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr.contains("invalid pattern") && out.stderr.contains("unclosed group"),
        "{out:?}"
    );
    assert!(!out.stderr.contains("(?:"), "{out:?}");
    // The caret points at the user's `(`: the line under the pattern.
    let lines: Vec<&str> = out.stderr.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.trim() == "(")
        .expect("the pattern is quoted");
    assert_eq!(lines[at + 1].find('^'), lines[at].find('('), "{out:?}");
}

/// A skill whose folder holds files the tree's ignore rules leave out: by
/// the root's `.gitignore` (a pattern and a path anchored at the root), and
/// by the skill's own `.ignore`, which also takes one file back.
fn ignoring_catalog() -> tempfile::TempDir {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("root");
    write(&root, ".gitignore", "*.env\n/team/alpha/build/\n");
    write(
        &root,
        "team/alpha/SKILL.md",
        "---\nname: alpha\ndescription: Has ignored files. Use when testing grep.\n---\nneedle in the skill\n",
    );
    write(&root, "team/alpha/.ignore", "!keep.env\ndrafts/\n");
    write(&root, "team/alpha/keep.env", "needle kept\n");
    write(&root, "team/alpha/notes.md", "needle noted\n");
    write(&root, "team/alpha/secret.env", "needle secret\n");
    write(&root, "team/alpha/build/out.md", "needle built\n");
    write(&root, "team/alpha/drafts/x.md", "needle drafted\n");
    write(&root, "team/alpha/node_modules/m/a.md", "needle module\n");
    temp
}

#[test]
fn listing_grep_and_read_leave_out_what_the_ignore_rules_leave_out() {
    let temp = ignoring_catalog();
    let root = temp.path().join("root");
    let root_arg = root.to_str().unwrap();
    // The CLI (searching inside the scan) and the library (MCP's grep,
    // searching the catalog's listing) find the same files.
    let out = grep_in(&temp, &["-l", "needle"]);
    assert_eq!(
        out.stdout, "alpha/SKILL.md\nalpha/keep.env\nalpha/notes.md\n",
        "{out:?}"
    );
    let catalog = skilldex::CatalogBuilder::new([&root]).build().unwrap();
    let request = skilldex::query::GrepRequest {
        pattern: "needle".into(),
        ..Default::default()
    };
    let library = skilldex::query::grep(&catalog, &request).unwrap();
    let paths: Vec<&str> = library.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["SKILL.md", "keep.env", "notes.md"], "{library:?}");
    // `show` and `read` list the same files.
    let show = run(&["show", "alpha", "--json", "--root", root_arg]);
    let show: serde_json::Value = serde_json::from_str(&show.stdout).unwrap();
    let listed: Vec<&str> = show["sub_files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(listed, [".ignore", "keep.env", "notes.md"], "{show}");
    let read = run(&["read", "alpha", "--json", "--root", root_arg]);
    assert_eq!(read.code, 0, "{read:?}");
    let read: serde_json::Value = serde_json::from_str(&read.stdout).unwrap();
    let files: Vec<&str> = read["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(files, listed, "{read}");
    // A file left out is refused by name, saying why; one taken back reads.
    for (path, why) in [
        ("secret.env", ".gitignore/.ignore"),
        ("build/out.md", ".gitignore/.ignore"),
        ("drafts/x.md", ".gitignore/.ignore"),
        ("node_modules/m/a.md", "never reads"),
    ] {
        let out = run(&["read", &format!("alpha/{path}"), "--root", root_arg]);
        assert_eq!(out.code, 2, "{path}: {out:?}");
        assert!(out.stdout.is_empty(), "{path}: {out:?}");
        assert!(
            out.stderr
                .contains(&format!("`{path}` is not part of skill `alpha`"))
                && out.stderr.contains(why),
            "{path}: {out:?}"
        );
    }
    let kept = run(&["read", "alpha/keep.env", "--root", root_arg]);
    assert_eq!(kept.code, 0, "{kept:?}");
    assert!(kept.stdout.contains("needle kept"), "{kept:?}");
}

/// `-l --json` counts every match of a file (as `rg -c` does), and
/// `--max-results 0` is a usage error rather than an empty answer.
#[test]
fn files_with_matches_count_every_match_and_a_zero_cap_is_refused() {
    let temp = steps_catalog();
    let out = grep_in(&temp, &["-l", "--json", "Steps"]);
    assert_eq!(out.code, 0, "{out:?}");
    let lines = json_lines(&out);
    let counts: Vec<(&str, u64)> = lines
        .iter()
        .filter(|l| l["type"] == "file")
        .map(|l| (l["path"].as_str().unwrap(), l["matches"].as_u64().unwrap()))
        .collect();
    assert_eq!(counts, [("SKILL.md", 2), ("notes.md", 2)], "{out:?}");
    assert_eq!(lines.last().unwrap()["matches"], 4, "{out:?}");
    let text = grep_in(&temp, &["-l", "-C", "1", "Steps"]);
    assert_eq!(text.stdout, "steps/SKILL.md\nsteps/notes.md\n", "{text:?}");
    let zero = grep_in(&temp, &["--max-results", "0", "Steps"]);
    assert_eq!(zero.code, 2, "{zero:?}");
    assert!(zero.stderr.contains("at least 1"), "{zero:?}");
}

/// A skill under a symlinked folder: the scan walks the link as a walk of
/// its own (no rules from above it), and the listing, the library's grep
/// and the scan's grep all agree on its files.
#[cfg(unix)]
#[test]
fn rules_above_a_symlinked_folder_are_applied_alike_everywhere() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("root");
    write(&root, ".gitignore", "*.log\n");
    write(
        temp.path(),
        "ext/sk/SKILL.md",
        skill_md("sk", "Linked. Use when testing grep."),
    );
    write(temp.path(), "ext/sk/a.log", "needle log\n");
    write(temp.path(), "ext/sk/b.md", "needle md\n");
    std::os::unix::fs::symlink("../ext", root.join("linked")).unwrap();
    let out = grep_in(&temp, &["-l", "needle"]);
    let catalog = skilldex::CatalogBuilder::new([&root]).build().unwrap();
    let request = skilldex::query::GrepRequest {
        pattern: "needle".into(),
        ..Default::default()
    };
    let library: Vec<String> = skilldex::query::grep(&catalog, &request)
        .unwrap()
        .files
        .iter()
        .map(|f| format!("{}/{}\n", f.skill, f.path))
        .collect();
    assert_eq!(out.stdout, library.concat(), "{out:?}");
    let show = run(&["show", "sk", "--json", "--root", root.to_str().unwrap()]);
    let show: serde_json::Value = serde_json::from_str(&show.stdout).unwrap();
    let listed: Vec<String> = show["sub_files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| format!("sk/{}\n", f["path"].as_str().unwrap()))
        .collect();
    assert_eq!(out.stdout, listed.concat(), "{show}");
}

/// Symlinked files inside a skill: the scan's grep and the library's grep
/// (MCP's) search the same ones, with or without a disabled nested skill
/// they lead into.
#[cfg(unix)]
#[test]
fn linked_files_inside_a_skill_are_searched_alike_everywhere() {
    use std::os::unix::fs::symlink;
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("root");
    outer_and_inner(&root, "SECRET inner body\n");
    write(&root, "outer/refs/own.md", "SECRET own\n");
    write(&root, "outer/inner/refs/a.md", "SECRET inner ref\n");
    symlink("../inner/refs/a.md", root.join("outer/refs/link.md")).unwrap();
    symlink("inner/SKILL.md", root.join("outer/innerskill.md")).unwrap();
    symlink("refs/own.md", root.join("outer/alias.md")).unwrap();
    for disabled in [&[][..], &["inner"][..]] {
        let mut command = skilldex();
        command.args(["grep", "-l", "SECRET", "--root", root.to_str().unwrap()]);
        command.env("SKILLDEX_DISABLED", disabled.join(","));
        let out = finish(command.output().unwrap());
        let catalog = skilldex::CatalogBuilder::new([&root])
            .disabled(disabled.iter().copied())
            .build()
            .unwrap();
        let request = skilldex::query::GrepRequest {
            pattern: "SECRET".into(),
            files_with_matches: true,
            ..Default::default()
        };
        let library: String = skilldex::query::grep(&catalog, &request)
            .unwrap()
            .files
            .iter()
            .map(|f| format!("{}/{}\n", f.skill, f.path))
            .collect();
        assert_eq!(out.stdout, library, "disabled {disabled:?}: {out:?}");
        assert!(out.stdout.contains("outer/refs/own.md"), "{out:?}");
        assert!(!out.stdout.contains("alias.md"), "a duplicate: {out:?}");
        assert_eq!(
            out.stdout.contains("outer/refs/link.md"),
            disabled.is_empty(),
            "{out:?}"
        );
    }
}

/// Three skills whose files match `needle` on many lines, one of them
/// with a file large enough that its lines are handed on in chunks while
/// it is searched (and, in the scan, searched again afterwards).
fn streaming_catalog() -> tempfile::TempDir {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("root");
    for (name, lines) in [("alpha", 40), ("beta", 3), ("gamma", 30_000)] {
        write(
            &root,
            &format!("{name}/SKILL.md"),
            format!(
                "---\nname: {name}\ndescription: Matches a lot. Use when testing grep.\n---\n\nneedle in {name}\nplain\n"
            ),
        );
        let mut text = String::new();
        for i in 0..lines {
            // Matches in runs with gaps, so context lines and `--` appear.
            if i % 7 < 3 {
                text.push_str(&format!("line {i} has a needle and some padding text\n"));
            } else {
                text.push_str(&format!("line {i} is plain and has some padding text\n"));
            }
        }
        write(&root, &format!("{name}/refs/notes.md"), text);
    }
    temp
}

/// The answer cut at `cap` the way `--max-results` promises: the first
/// `cap` matches in answer order, the after-context of the last one up to
/// the next match, and `truncated` when a match was left out.
fn cut(
    full: &skilldex::query::GrepResult,
    cap: usize,
    after: usize,
) -> skilldex::query::GrepResult {
    use skilldex::query::LineKind;
    let mut out = skilldex::query::GrepResult::default();
    for file in &full.files {
        let room = cap - out.matches;
        if file.matches <= room {
            out.matches += file.matches;
            out.files.push(file.clone());
            continue;
        }
        out.truncated = true;
        let mut kept = file.clone();
        kept.lines.clear();
        kept.matches = room;
        let mut seen = 0;
        let mut context_after = 0;
        for line in &file.lines {
            if seen == room {
                if line.kind == LineKind::Match || context_after == after || room == 0 {
                    break;
                }
                context_after += 1;
            } else if line.kind == LineKind::Match {
                seen += 1;
            }
            kept.lines.push(line.clone());
        }
        out.matches += room;
        if room > 0 {
            out.files.push(kept);
        }
        break;
    }
    out
}

#[test]
fn a_capped_answer_is_the_whole_answer_cut_at_the_cap() {
    let temp = streaming_catalog();
    let root = temp.path().join("root");
    let catalog = skilldex::CatalogBuilder::new([&root]).build().unwrap();
    for (before, after) in [(0, 0), (1, 2), (0, 3), (2, 0)] {
        let request = skilldex::query::GrepRequest {
            pattern: "needle".into(),
            before_context: before,
            after_context: after,
            ..Default::default()
        };
        let full = skilldex::query::grep(&catalog, &request).unwrap();
        assert!(full.matches > 12_000 && !full.truncated, "{}", full.matches);
        assert_eq!(full.files.len(), 6);
        // Every cap around a file's edges and inside the big file.
        let edges = [
            1,
            2,
            19,
            20,
            21,
            22,
            23,
            24,
            25,
            26,
            5_000,
            full.matches - 1,
        ];
        for cap in edges.into_iter().chain([full.matches, full.matches + 1]) {
            let capped = skilldex::query::GrepRequest {
                max_results: Some(cap),
                ..request.clone()
            };
            let expected = cut(&full, cap.min(full.matches), after);
            let library = skilldex::query::grep(&catalog, &capped).unwrap();
            assert_eq!(library, expected, "cap {cap}, context {before}/{after}");
            let search = skilldex::query::grep::ScanSearch::new(&capped).unwrap();
            let scanned = skilldex::CatalogBuilder::new([&root])
                .file_visitor(search.visitor())
                .build()
                .unwrap();
            let one_pass = search.finish(&scanned).unwrap();
            assert_eq!(
                one_pass, expected,
                "scan, cap {cap}, context {before}/{after}"
            );
        }
    }
}

/// A sink whose writes fail (a closed pipe) ends the search with that
/// error after the first line, rather than searching on.
#[test]
fn a_failing_sink_ends_the_search() {
    struct Closed(usize);
    impl skilldex::query::GrepSink for Closed {
        fn line(
            &mut self,
            _: &str,
            _: &str,
            _: skilldex::query::LineKind,
            _: u64,
            _: &str,
        ) -> std::io::Result<()> {
            self.0 += 1;
            Err(std::io::ErrorKind::BrokenPipe.into())
        }
        fn file_end(&mut self, _: &str, _: &str, _: usize) -> std::io::Result<()> {
            Ok(())
        }
    }
    let temp = streaming_catalog();
    let root = temp.path().join("root");
    let catalog = skilldex::CatalogBuilder::new([&root]).build().unwrap();
    let request = skilldex::query::GrepRequest {
        pattern: "needle".into(),
        ..Default::default()
    };
    let mut sink = Closed(0);
    let error = skilldex::query::grep::grep_into(&catalog, &request, &mut sink).unwrap_err();
    assert!(
        matches!(&error, skilldex::query::GrepError::Output(e) if e.kind() == std::io::ErrorKind::BrokenPipe),
        "{error:?}"
    );
    assert_eq!(sink.0, 1);
}

/// The CLI prints the same bytes whichever way a file was searched: held
/// from the scan, or (past the scan's limit) streamed afterwards.
#[test]
fn the_cli_prints_the_library_answer_in_every_format() {
    let temp = streaming_catalog();
    let root = temp.path().join("root");
    let catalog = skilldex::CatalogBuilder::new([&root]).build().unwrap();
    let request = skilldex::query::GrepRequest {
        pattern: "needle".into(),
        before_context: 1,
        after_context: 1,
        ..Default::default()
    };
    let full = skilldex::query::grep(&catalog, &request).unwrap();
    let mut text = String::new();
    for file in &full.files {
        let mut previous: Option<u64> = None;
        for line in &file.lines {
            if previous.is_some_and(|p| line.line > p + 1) {
                text.push_str("--\n");
            }
            let separator = if line.kind == skilldex::query::LineKind::Match {
                ':'
            } else {
                '-'
            };
            text.push_str(&format!(
                "{}/{}{separator}{}{separator}{}\n",
                file.skill, file.path, line.line, line.text
            ));
            previous = Some(line.line);
        }
    }
    let out = grep_in(&temp, &["-C", "1", "needle"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout == text,
        "the CLI's text differs from the library's answer"
    );
    let json = grep_in(&temp, &["--json", "-C", "1", "needle"]);
    let lines = json_lines(&json);
    let (summary, lines) = lines.split_last().unwrap();
    let expected: Vec<serde_json::Value> = full
        .files
        .iter()
        .flat_map(|f| f.lines.iter().map(|l| f.line_json(l)))
        .collect();
    assert!(
        lines == expected,
        "the CLI's JSON differs from the library's answer"
    );
    assert_eq!(summary["matches"], full.matches);
    assert_eq!(summary["files"], full.files.len());
    // Each JSON line is written as serde_json writes the object.
    let first = json.stdout.lines().next().unwrap();
    assert_eq!(first, serde_json::to_string(&expected[0]).unwrap());
}

/// Memory does not grow with the answer: while the CLI prints the lines of
/// an 8 MB file that matches on every line, its peak RSS stays far below
/// what holding the answer took (60 MB, from 9 MB with no match). Read from `/proc` while
/// the child waits on the pipe the test reads slowly.
#[cfg(target_os = "linux")]
#[test]
fn printing_a_huge_answer_keeps_memory_flat() {
    use std::io::Read;
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("root");
    write(
        &root,
        "huge/SKILL.md",
        skill_md("huge", "One very large file. Use when testing grep."),
    );
    let mut text = String::with_capacity(9 << 20);
    let mut i = 0u64;
    while text.len() < 8 << 20 {
        text.push_str(&format!("{i} needle\n"));
        i += 1;
    }
    write(&root, "huge/refs/big.md", &text);
    let mut child = skilldex()
        .args(["grep", "-F", "needle", "--root", root.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let peak = |pid: u32| -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
        line.split_whitespace().nth(1)?.parse().ok()
    };
    let mut buffer = vec![0; 1 << 20];
    let mut read = 0usize;
    let mut highest = 0;
    let mut lines = 0;
    loop {
        let n = stdout.read(&mut buffer).unwrap();
        if n == 0 {
            break;
        }
        lines += buffer[..n].iter().filter(|&&b| b == b'\n').count();
        read += n;
        // The child is blocked on the pipe now and then: sample it.
        if let Some(kb) = peak(child.id()) {
            highest = highest.max(kb);
        }
    }
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    assert_eq!(lines as u64, i, "every line of the file is a match");
    assert!(read > 20 << 20, "{read}");
    assert!(highest > 0, "the child was sampled");
    assert!(
        highest < 32 * 1024,
        "peak RSS {highest} KB while printing a {} MB answer",
        read >> 20
    );
}

/// A skill whose `SKILL.md` does not load beside one that does.
fn one_broken_catalog() -> tempfile::TempDir {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("root");
    write(
        &root,
        "ok/SKILL.md",
        "---\nname: ok\ndescription: Fine. Use when testing.\n---\n\nneedle here\n",
    );
    write(
        &root,
        "broken/SKILL.md",
        "---\nname: broken\ndescription: [unclosed\n---\n\nneedle in the broken one\n",
    );
    write(&root, "broken/notes.md", "needle in its notes\n");
    temp
}

#[test]
fn a_skill_file_that_did_not_load_is_named_as_not_searched() {
    let temp = one_broken_catalog();
    let broken = temp.path().join("root/broken/SKILL.md");
    let out = grep_in(&temp, &["needle"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, "ok/SKILL.md:6:needle here\n", "{out:?}");
    // Where, line and column, and why: the front matter's error.
    let expected = format!("skilldex: {}:4:1: ", broken.to_str().unwrap());
    assert!(out.stderr.contains(&expected), "{out:?}");
    assert!(
        out.stderr
            .contains("did not load, so its folder was not searched"),
        "{out:?}"
    );
    assert!(out.stderr.contains("invalid YAML"), "{out:?}");
    // The JSON summary counts it; --quiet and --skill of a loaded skill
    // leave the note out.
    let json = grep_in(&temp, &["needle", "--json"]);
    let summary = json_lines(&json).pop().unwrap();
    assert_eq!(summary["not_loaded"], 1, "{json:?}");
    let quiet = grep_in(&temp, &["needle", "-q"]);
    assert!(!quiet.stderr.contains("not searched"), "{quiet:?}");
    let one = grep_in(&temp, &["needle", "--skill", "ok"]);
    assert!(!one.stderr.contains("not searched"), "{one:?}");
    // Nor for a namespace the broken one is not in; said for one it is in.
    let root = temp.path().join("root");
    write(
        &root,
        "dev/tools/tool/SKILL.md",
        "---\nname: tool\ndescription: A tool. Use when testing.\n---\n\nneedle in dev\n",
    );
    write(
        &root,
        "dev/sub/gone/SKILL.md",
        "---\nname: gone\ndescription: [unclosed\n---\n\nneedle\n",
    );
    let other = grep_in(&temp, &["needle", "--namespace", "dev/tools"]);
    assert_eq!(other.stdout, "tool/SKILL.md:6:needle in dev\n", "{other:?}");
    assert!(!other.stderr.contains("not searched"), "{other:?}");
    let inside = grep_in(&temp, &["needle", "--namespace", "dev"]);
    assert!(
        inside.stderr.contains("dev/sub/gone/SKILL.md:4:1: "),
        "{inside:?}"
    );
    assert!(!inside.stderr.contains("root/broken/"), "{inside:?}");
    std::fs::remove_dir_all(root.join("dev/sub")).unwrap();
    // Fixed as the error says, the skill loads and its files are searched.
    write(
        &temp.path().join("root"),
        "broken/SKILL.md",
        "---\nname: broken\ndescription: Fixed. Use when testing.\n---\n\nneedle in the broken one\n",
    );
    let fixed = grep_in(&temp, &["needle"]);
    assert!(!fixed.stderr.contains("not searched"), "{fixed:?}");
    assert!(
        fixed
            .stdout
            .contains("broken/notes.md:1:needle in its notes"),
        "{fixed:?}"
    );
}

#[cfg(feature = "mcp")]
#[test]
fn grep_skills_names_a_skill_file_that_did_not_load() {
    use serde_json::json;
    let temp = one_broken_catalog();
    let mut raw = crate::mcp::Raw::start(&temp.path().join("root"), &["--no-watch"]);
    for pattern in ["needle", "never-there"] {
        let (is_error, text) = raw.call("grep_skills", json!({"pattern": pattern}));
        assert!(!is_error, "{text}");
        assert!(
            text.contains("not searched: the folder of")
                && text.contains("broken/SKILL.md:4:1: invalid YAML"),
            "{text}"
        );
    }
    let (_, text) = raw.call("grep_skills", json!({"pattern": "needle", "skill": "ok"}));
    assert!(!text.contains("not searched"), "{text}");
}
