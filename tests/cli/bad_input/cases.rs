//! The broken fixtures that share one sequence — `lint --profile spec`,
//! the one diagnostic about each bad file, the exit code, the JSON
//! directory with the good sibling untouched — as one table, run by one
//! test that names every failing case.

use super::*;

/// The only diagnostic about one bad file: its code, severity, position
/// and the words of the fix its message must hold.
struct Bad {
    file: &'static str,
    code: &'static str,
    severity: &'static str,
    line: u64,
    column: Option<u64>,
    hints: &'static [&'static str],
}

/// What one case saw: its root, `lint --profile spec` and the directory.
struct Seen<'a> {
    root: &'a Path,
    run: &'a Run,
    diags: &'a [Value],
    render: &'a Value,
}

/// One broken fixture beside its good sibling: the diagnostics about the
/// bad files, the exit code of `lint`, the skills the JSON directory lists,
/// and what else the case checks.
struct Case {
    name: &'static str,
    fixture: &'static str,
    /// Run on a copy of the fixture first (links, FIFOs, folders made at
    /// test time); `None` reads the fixture in place.
    setup: Option<fn(&Path)>,
    bad: &'static [Bad],
    /// True when `lint` must report nothing at all.
    clean: bool,
    exit: i32,
    /// The ids of the directory, sorted; `None` when `more` checks it.
    listed: Option<&'static [&'static str]>,
    more: fn(&Seen),
}

const fn bad(
    file: &'static str,
    code: &'static str,
    severity: &'static str,
    line: u64,
    column: u64,
    hints: &'static [&'static str],
) -> Bad {
    Bad {
        file,
        code,
        severity,
        line,
        column: Some(column),
        hints,
    }
}

fn nothing_more(_: &Seen) {}

fn precondition_in_place(seen: &Seen, file: &str, holds: fn(&[u8]) -> bool) {
    let bytes = std::fs::read(seen.root.join(file)).unwrap();
    assert!(holds(&bytes), "fixture precondition: {file}");
}

fn message_of<'a>(seen: &'a Seen, file: &str, code: &str) -> &'a str {
    only(seen.diags, file, code)["message"].as_str().unwrap()
}

/// `lint --profile spec`, the diagnostics about each bad file, the exit
/// code, the directory with the good sibling untouched, then `more`.
fn run_case(case: &Case) {
    let temp;
    let root = match case.setup {
        Some(setup) => {
            let (dir, root) = copy_fixture(case.fixture);
            temp = dir;
            let _ = &temp;
            setup(&root);
            root
        }
        None => fixture(case.fixture),
    };
    let (run, diags) = lint(&root, "spec");
    if case.clean {
        assert!(diags.is_empty(), "{diags:#?}");
    }
    for b in case.bad {
        check(
            only(&diags, b.file, b.code),
            b.severity,
            b.line,
            b.column,
            b.hints,
        );
    }
    assert_eq!(run.code, case.exit, "{run:?}");
    let render = render(&root);
    check_good(&diags, &render);
    if let Some(listed) = case.listed {
        assert_eq!(ids(&render), listed);
    }
    (case.more)(&Seen {
        root: &root,
        run: &run,
        diags: &diags,
        render: &render,
    });
}

#[rustfmt::skip]
const CASES: &[Case] = &[
    Case {
        name: "missing front matter is an error and the skill is not loaded",
        fixture: "bad/missing-frontmatter",
        setup: None,
        bad: &[bad("no-header/SKILL.md", "frontmatter-missing", "error", 1, 1, &["---", "name:", "description:"])],
        clean: false,
        exit: 1,
        listed: Some(&["good"]),
        more: |seen| assert_eq!(summary_skills(seen.run), 1),
    },
    Case {
        name: "unterminated front matter points at the opening line",
        fixture: "bad/unterminated-frontmatter",
        setup: None,
        bad: &[bad("open/SKILL.md", "frontmatter-unterminated", "error", 1, 1, &["line 1", "add a `---`"])],
        clean: false,
        exit: 1,
        listed: Some(&["good"]),
        more: nothing_more,
    },
    Case {
        // Line 3 of the file holds the tab.
        name: "tab indentation is invalid YAML at the tab line",
        fixture: "bad/yaml-tab-indent",
        setup: None,
        bad: &[bad("tabbed/SKILL.md", "yaml-invalid", "error", 3, 1, &["tab", "indent with spaces"])],
        clean: false,
        exit: 1,
        listed: Some(&["good"]),
        more: |seen| {
            let message = message_of(seen, "tabbed/SKILL.md", "yaml-invalid");
            assert!(
                !message.contains(" at line "),
                "the library's header-relative position must not leak: {message}"
            );
        },
    },
    Case {
        // `description: "Never closed…` — the quote opens on line 3, column
        // 14; that is where the author has to look, and the hint must say so.
        name: "an unclosed quote is invalid YAML at the opening quote",
        fixture: "bad/yaml-unclosed-quote",
        setup: None,
        bad: &[bad("quoted/SKILL.md", "yaml-invalid", "error", 3, 14, &["quote"])],
        clean: false,
        exit: 1,
        listed: Some(&["good"]),
        more: nothing_more,
    },
    Case {
        // The second `description:` is on line 8; the library reports the
        // start of the mapping (line 2), which is not where to look. In
        // `"… C:\qux …"` the quote is closed; the backslash at column 38 is
        // the fault.
        name: "duplicate keys and bad escapes point at the fault",
        fixture: "bad/yaml-error-positions",
        setup: None,
        bad: &[
            bad("duplicate/SKILL.md", "yaml-invalid", "error", 8, 1, &["`description` is already set on line 5", "keep one"]),
            bad("nested-duplicate/SKILL.md", "yaml-invalid", "error", 7, 3, &["`author` is already set on line 5", "keep one"]),
            bad("escape/SKILL.md", "yaml-invalid", "error", 3, 38, &["escape", "single quotes"]),
        ],
        clean: false,
        exit: 1,
        listed: Some(&["good"]),
        more: |seen| {
            let message = message_of(seen, "escape/SKILL.md", "yaml-invalid");
            assert!(!message.contains("close the quote"), "{message}");
        },
    },
    Case {
        // `description: Use this skill when: …` — the `: ` is at column 33.
        name: "an unquoted colon is repaired with a warning and the text kept",
        fixture: "bad/unquoted-colon",
        setup: None,
        bad: &[bad("colon/SKILL.md", "yaml-repaired", "warning", 3, 33, &["description", "quotes"])],
        clean: false,
        exit: 0,
        listed: None,
        more: |seen| {
            assert_eq!(
                skill(seen.render, "colon")["description"],
                "Use this skill when: the user asks about colons, e.g. key: value pairs"
            );
        },
    },
    Case {
        // `name: swallowed` then `  description: …`: the description used
        // to vanish into the name (description-missing at 1:1).
        name: "an indented key is named at its line and not folded into the value",
        fixture: "bad/yaml-indented-key",
        setup: None,
        bad: &[
            bad("license/SKILL.md", "yaml-indented-key", "warning", 4, 3, &["`license` is indented", "`description`", "remove the spaces"]),
            bad("swallowed/SKILL.md", "yaml-indented-key", "warning", 3, 3, &["`description` is indented", "`name`", "remove the spaces"]),
        ],
        clean: false,
        exit: 0,
        listed: Some(&["good", "license", "swallowed"]),
        more: |seen| {
            assert_eq!(
                skill(seen.render, "license")["description"],
                "Use when checking that an indented key stays a key."
            );
            assert_eq!(show(seen.root, "license")["skill"]["license"], "MIT");
            assert_eq!(
                skill(seen.render, "swallowed")["description"],
                "Use when checking that the description is not swallowed by the name."
            );
        },
    },
    Case {
        // The limit on aliases is checked before parsing: `bounded` fails
        // the run if it hangs.
        name: "a YAML alias bomb is refused before parsing",
        fixture: "bad/yaml-alias-bomb",
        setup: None,
        bad: &[],
        clean: false,
        exit: 1,
        listed: Some(&["good"]),
        more: |seen| {
            let d = only(seen.diags, "bomb/SKILL.md", "yaml-alias-limit");
            assert_eq!(d["severity"], "error");
            let line = d["line"].as_u64().unwrap();
            assert!((2..=12).contains(&line), "points inside the header: {d:#}");
            let message = d["message"].as_str().unwrap();
            assert!(message.contains("72 YAML aliases"), "{message}");
            assert!(message.contains("write the values out"), "{message}");
        },
    },
    Case {
        name: "a triple dash inside values is text",
        fixture: "bad/dashes-in-value",
        setup: None,
        bad: &[],
        clean: true,
        exit: 0,
        listed: None,
        more: |seen| {
            assert_eq!(
                skill(seen.render, "dashes")["description"],
                "before --- after. Use when testing."
            );
            let detail = show(seen.root, "dashes");
            // An indented `---` inside a block scalar does not close the header.
            assert_eq!(detail["skill"]["license"], "MIT --- or Apache");
            assert_eq!(detail["skill"]["body_line"], 9);
        },
    },
    Case {
        name: "a missing name falls back to the folder",
        fixture: "bad/name-missing",
        setup: None,
        bad: &[bad("nameless/SKILL.md", "name-missing", "error", 1, 1, &["add `name: nameless`"])],
        clean: false,
        exit: 1,
        listed: None,
        more: |seen| {
            let nameless = skill(seen.render, "nameless");
            assert_eq!(nameless["name"], "nameless");
            assert_eq!(nameless["path"], "nameless/SKILL.md");
        },
    },
    Case {
        name: "a missing description is an error and the skill is not loaded",
        fixture: "bad/description-missing",
        setup: None,
        bad: &[bad("no-description/SKILL.md", "description-missing", "error", 1, 1, &["not loaded", "add `description:`"])],
        clean: false,
        exit: 1,
        listed: Some(&["good"]),
        more: |seen| assert_eq!(summary_skills(seen.run), 1),
    },
    Case {
        name: "an uppercase name is invalid with a lowercase suggestion",
        fixture: "bad/name-uppercase",
        setup: None,
        bad: &[bad("PDF-Tools/SKILL.md", "name-invalid", "error", 2, 7, &["lowercase", "rename the folder to `pdf-tools` and set `name: pdf-tools`"])],
        clean: false,
        exit: 1,
        listed: None,
        more: |seen| assert_eq!(skill(seen.render, "PDF-Tools")["path"], "PDF-Tools/SKILL.md"),
    },
    Case {
        name: "a name with spaces is invalid with a kebab-case suggestion",
        fixture: "bad/name-spaces",
        setup: None,
        bad: &[bad("my skill/SKILL.md", "name-invalid", "error", 2, 7, &["hyphens", "rename the folder to `my-skill` and set `name: my-skill`"])],
        clean: false,
        exit: 1,
        listed: None,
        more: |seen| assert_eq!(skill(seen.render, "my skill")["path"], "my skill/SKILL.md"),
    },
    Case {
        name: "a name of 65 characters is too long",
        fixture: "bad/name-too-long",
        setup: None,
        bad: &[],
        clean: false,
        exit: 1,
        listed: None,
        more: |seen| {
            let long = "a".repeat(65);
            let d = only(seen.diags, &format!("{long}/SKILL.md"), "name-too-long");
            check(d, "error", 2, Some(7), &["65 characters", "64", "shorten"]);
            assert_eq!(skill(seen.render, &long)["name"], long.as_str());
        },
    },
    Case {
        name: "a name different from its folder is a mismatch",
        fixture: "bad/name-mismatch",
        setup: None,
        bad: &[bad("folder-name/SKILL.md", "name-mismatch", "error", 2, 7, &["`other-name`", "`folder-name`", "rename the folder"])],
        clean: false,
        exit: 1,
        listed: None,
        more: |seen| assert_eq!(skill(seen.render, "other-name")["path"], "folder-name/SKILL.md"),
    },
    Case {
        name: "a name mismatch never suggests an invalid name",
        fixture: "bad/name-mismatch-invalid-folder",
        setup: None,
        bad: &[
            bad("data_tools/SKILL.md", "name-mismatch", "error", 2, 7, &["rename the folder to `data-tools`", "`data_tools` is not a valid skill name"]),
            bad("Mixed/SKILL.md", "name-mismatch", "error", 2, 7, &["rename the folder to `mixed`", "`Mixed` is not a valid skill name"]),
        ],
        clean: false,
        exit: 1,
        listed: None,
        more: |seen| {
            for file in ["data_tools/SKILL.md", "Mixed/SKILL.md"] {
                let message = message_of(seen, file, "name-mismatch");
                assert!(!message.contains("set `name:"), "{message}");
            }
        },
    },
    Case {
        // `description: "Use when \u0000 …` — the value starts at column 14.
        name: "control and bidi characters in a description are reported",
        fixture: "bad/control-characters",
        setup: None,
        bad: &[bad("hidden/SKILL.md", "control-character", "warning", 3, 14, &["`description`", "U+0000", "U+001B", "U+202E", "remove them"])],
        clean: false,
        exit: 0,
        listed: Some(&["good", "hidden"]),
        more: |seen| {
            let (_, strict) = lint(seen.root, "strict");
            check(
                only(&strict, "hidden/SKILL.md", "control-character"),
                "error",
                3,
                Some(14),
                &[],
            );
        },
    },
    Case {
        name: "a description of 1,100 characters is too long",
        fixture: "bad/description-too-long",
        setup: None,
        bad: &[bad("wordy/SKILL.md", "description-too-long", "error", 3, 14, &["1,100 characters", "1,024", "shorten"])],
        clean: false,
        exit: 1,
        listed: None,
        more: |seen| {
            let full = description_in_file(&seen.root.join("wordy/SKILL.md"));
            assert_eq!(full.chars().count(), 1100, "fixture precondition");
            check_capped(skill(seen.render, "wordy"), &full);
        },
    },
    Case {
        // 600 characters are within the limit, however many bytes they take.
        name: "the description limit counts characters, not bytes",
        fixture: "bad/description-multibyte",
        setup: None,
        bad: &[bad("zh-long/SKILL.md", "description-too-long", "error", 3, 14, &["1,100 characters"])],
        clean: false,
        exit: 1,
        listed: None,
        more: |seen| {
            let long = description_in_file(&seen.root.join("zh-long/SKILL.md"));
            let ok = description_in_file(&seen.root.join("zh-ok/SKILL.md"));
            assert_eq!((long.chars().count(), long.len()), (1100, 3300));
            assert_eq!((ok.chars().count(), ok.len()), (600, 1800));
            assert!(about(seen.diags, "zh-ok/SKILL.md").is_empty(), "{:#?}", seen.diags);
            check_capped(skill(seen.render, "zh-long"), &long);
            check_capped(skill(seen.render, "zh-ok"), &ok);
        },
    },
    Case {
        name: "multi-line descriptions render on one line",
        fixture: "bad/multiline-description",
        setup: None,
        bad: &[],
        clean: true,
        exit: 0,
        listed: None,
        more: |seen| {
            let markdown = render_markdown(seen.root);
            for (id, kind) in [
                ("literal", "Literal block"),
                ("folded", "Folded block"),
                ("plain", "Plain scalar"),
            ] {
                let expected = format!("{kind} first line. {kind} second line. Use when testing.");
                assert_eq!(skill(seen.render, id)["description"], expected.as_str());
                let line = format!("- {id}: {expected} [{id}/SKILL.md]");
                assert!(
                    markdown.lines().any(|l| l == line),
                    "missing line `{line}` in:\n{markdown}"
                );
            }
            assert!(
                markdown.lines().any(|l| l.starts_with("- good: ")),
                "{markdown}"
            );
        },
    },
    Case {
        // `description: Caf\xE9` — the bad byte is the 17th character of line 3.
        name: "invalid UTF-8 is reported at the first bad byte and loads",
        fixture: "bad/invalid-utf8",
        setup: None,
        bad: &[bad("latin1/SKILL.md", "invalid-utf8", "error", 3, 17, &["UTF-8", "re-save"])],
        clean: false,
        exit: 1,
        listed: None,
        more: |seen| {
            precondition_in_place(seen, "latin1/SKILL.md", |b| std::str::from_utf8(b).is_err());
            assert_eq!(
                skill(seen.render, "latin1")["description"],
                "Caf\u{FFFD} helper. Use when testing."
            );
        },
    },
    Case {
        name: "a byte-order mark is skipped",
        fixture: "bad/bom",
        setup: None,
        bad: &[],
        clean: true,
        exit: 0,
        listed: None,
        more: |seen| {
            precondition_in_place(seen, "bom/SKILL.md", |b| b.starts_with(b"\xEF\xBB\xBF---"));
            let bom = skill(seen.render, "bom");
            assert_eq!(bom["name"], "bom");
            assert_eq!(
                bom["description"],
                "Starts with a byte-order mark. Use when testing."
            );
        },
    },
    Case {
        name: "CRLF line endings load without carriage returns",
        fixture: "bad/crlf",
        setup: None,
        bad: &[],
        clean: true,
        exit: 0,
        listed: None,
        more: |seen| {
            for file in ["crlf/SKILL.md", "crlf-block/SKILL.md"] {
                precondition_in_place(seen, file, |b| {
                    let text = std::str::from_utf8(b).unwrap();
                    text.contains("\r\n") && !text.replace("\r\n", "").contains('\n')
                });
            }
            assert_eq!(skill(seen.render, "crlf")["name"], "crlf");
            assert_eq!(
                skill(seen.render, "crlf-block")["description"],
                "First line of a literal block. Second line. Use when testing."
            );
            let plain = show(seen.root, "crlf");
            assert_eq!(
                plain["skill"]["raw_description"],
                "Saved with Windows line endings. Use when testing."
            );
            let block = show(seen.root, "crlf-block");
            assert_eq!(
                block["skill"]["raw_description"],
                "First line of a literal block.\nSecond line. Use when testing.\n"
            );
        },
    },
    Case {
        name: "an empty file is reported and not loaded",
        fixture: "bad/empty-file",
        setup: None,
        bad: &[bad("empty/SKILL.md", "frontmatter-missing", "error", 1, 1, &["empty", "start it with `---`"])],
        clean: false,
        exit: 1,
        listed: Some(&["good"]),
        more: |seen| precondition_in_place(seen, "empty/SKILL.md", <[u8]>::is_empty),
    },
    #[cfg(unix)]
    Case {
        // loop/up -> .. : back to the root, an ancestor of the link. Each
        // skill once: nothing was reached again through the loop.
        name: "a symlink loop is reported without hanging",
        fixture: "bad/symlink-loop",
        setup: Some(|root| std::os::unix::fs::symlink("..", root.join("loop/up")).unwrap()),
        bad: &[bad("loop/up", "symlink-loop", "warning", 1, 1, &["loop", "remove the link"])],
        clean: false,
        exit: 0,
        listed: Some(&["good", "loop"]),
        more: |seen| assert_eq!(skill(seen.render, "loop")["path"], "loop/SKILL.md"),
    },
    #[cfg(unix)]
    Case {
        name: "dangling symlinks are warnings naming the target",
        fixture: "bad/dangling-symlink",
        setup: Some(|root| {
            std::os::unix::fs::symlink("missing-skill-folder", root.join("ghost")).unwrap();
            std::fs::create_dir(root.join("broken")).unwrap();
            std::os::unix::fs::symlink("missing.md", root.join("broken/SKILL.md")).unwrap();
        }),
        bad: &[
            bad("ghost", "dangling-symlink", "warning", 1, 1, &["missing-skill-folder", "fix or delete"]),
            bad("broken/SKILL.md", "dangling-symlink", "warning", 1, 1, &["missing.md", "fix or delete"]),
        ],
        clean: false,
        exit: 0,
        listed: Some(&["good"]),
        more: nothing_more,
    },
    #[cfg(unix)]
    Case {
        name: "a FIFO named SKILL.md is not a file and does not hang",
        fixture: "bad/unreadable",
        setup: Some(|root| {
            std::fs::create_dir(root.join("fifo")).unwrap();
            let status = std::process::Command::new("mkfifo")
                .arg(root.join("fifo/SKILL.md"))
                .status()
                .expect("mkfifo runs");
            assert!(status.success());
        }),
        bad: &[bad("fifo/SKILL.md", "not-a-file", "error", 1, 1, &["not a regular file", "replace it"])],
        clean: false,
        exit: 1,
        listed: Some(&["good"]),
        more: nothing_more,
    },
    Case {
        // A folder that looks like a skill but cannot load must be
        // explained, not skipped in silence.
        name: "a directory named SKILL.md is not a file",
        fixture: "bad/unreadable",
        setup: Some(|root| {
            write(root, "folder/SKILL.md/notes.md", "# Notes\n");
        }),
        bad: &[bad("folder/SKILL.md", "not-a-file", "error", 1, 1, &["not a regular file"])],
        clean: false,
        exit: 1,
        listed: Some(&["good"]),
        more: nothing_more,
    },
    Case {
        name: "of duplicate names the shallower path wins",
        fixture: "bad/duplicate-names",
        setup: None,
        bad: &[bad("vendor/pdf/SKILL.md", "name-shadowed", "warning", 2, 7, &["`vendor/pdf`", "rename"])],
        clean: false,
        exit: 0,
        listed: Some(&["good", "pdf", "vendor/pdf"]),
        more: |seen| {
            assert!(about(seen.diags, "pdf/SKILL.md").iter().all(|d| Path::new(
                d["path"].as_str().unwrap()
            )
            .ends_with("vendor/pdf/SKILL.md")));
            let winner = seen.root.join("pdf/SKILL.md");
            let message = message_of(seen, "vendor/pdf/SKILL.md", "name-shadowed");
            assert!(message.contains(s(&winner)), "{message}");
            assert_eq!(skill(seen.render, "pdf")["path"], "pdf/SKILL.md");
            let loser = skill(seen.render, "vendor/pdf");
            assert_eq!(loser["path"], "vendor/pdf/SKILL.md");
            assert_eq!(loser["namespace"], "vendor");
            assert_eq!(loser["name"], "pdf");
        },
    },
    Case {
        name: "a nested skill loads in its parent folder's namespace",
        fixture: "bad/nested-skill",
        setup: None,
        bad: &[],
        clean: true,
        exit: 0,
        listed: Some(&["good", "inner", "outer"]),
        more: |seen| {
            assert_eq!(skill(seen.render, "outer")["namespace"], "tools");
            let inner = skill(seen.render, "inner");
            assert_eq!(inner["namespace"], "tools/outer");
            assert_eq!(inner["path"], "tools/outer/inner/SKILL.md");
            let namespace = seen.render["namespaces"]
                .as_array()
                .unwrap()
                .iter()
                .find(|n| n["name"] == "tools/outer")
                .expect("namespace tools/outer");
            assert_eq!(
                namespace["description"],
                "Skills nested inside the outer skill."
            );
        },
    },
    Case {
        name: "skills under hidden folders are found",
        fixture: "bad/hidden-folders",
        setup: None,
        bad: &[],
        clean: true,
        exit: 0,
        listed: Some(&["good", "x", "y"]),
        more: |seen| {
            assert_eq!(summary_skills(seen.run), 3);
            assert_eq!(skill(seen.render, "x")["namespace"], ".curated");
            assert_eq!(skill(seen.render, "x")["path"], ".curated/x/SKILL.md");
            assert_eq!(skill(seen.render, "y")["namespace"], ".github/skills");
            assert_eq!(skill(seen.render, "y")["path"], ".github/skills/y/SKILL.md");
        },
    },
];

/// Every case of `CASES`, a few at a time; a failure names its case.
#[test]
fn each_broken_file_is_reported_where_it_breaks_and_the_rest_loads() {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get().min(4));
    let failed = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let index = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(case) = CASES.get(index) else { break };
                let outcome = std::panic::catch_unwind(|| run_case(case));
                if let Err(payload) = outcome {
                    let message = payload
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default();
                    failed.lock().unwrap().push(format!(
                        "case `{}` ({}): {message}",
                        case.name, case.fixture
                    ));
                }
            });
        }
    });
    let mut failed = failed.into_inner().unwrap();
    failed.sort();
    assert!(
        failed.is_empty(),
        "{} of {} cases failed:\n{}",
        failed.len(),
        CASES.len(),
        failed.join("\n\n")
    );
}
