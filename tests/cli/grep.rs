//! `grep`: `--max-count` with context as `rg` answers it.

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
    // As `rg -m1 -A1 Steps`: the first match of each file and the line
    // after it; a line of that context that matches is shown as a match.
    let out = grep_in(&temp, &["-A", "1", "-m", "1", "Steps"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        out.stdout,
        "steps/SKILL.md:6:## Steps\n\
steps/SKILL.md-7-\n\
steps/notes.md:1:Steps one\n\
steps/notes.md:2:Steps two\n"
    );
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
