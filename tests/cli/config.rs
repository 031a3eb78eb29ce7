//! skilldex.yaml and SKILLDEX_* variables: where roots come from, disabled
//! skills, render defaults, and errors that point into the file.

use super::{finish, skill_md, skilldex, write};
use std::path::Path;

fn catalog(dir: &Path) {
    write(
        dir,
        "skills/pdf/SKILL.md",
        skill_md("pdf", "Read PDFs. Use when a PDF arrives."),
    );
    write(
        dir,
        "skills/csv/SKILL.md",
        skill_md("csv", "Clean CSVs. Use when a CSV is messy."),
    );
    write(
        dir,
        "other/extra/SKILL.md",
        skill_md("extra", "Extra things. Use when testing roots."),
    );
}

fn run(dir: &Path, envs: &[(&str, &str)], args: &[&str]) -> super::Run {
    let mut command = skilldex();
    command.current_dir(dir).args(args);
    // A user config folder that does not exist unless a test makes one.
    command.env("XDG_CONFIG_HOME", dir.join("xdg"));
    for (k, v) in envs {
        command.env(k, v);
    }
    finish(command.output().unwrap())
}

#[test]
fn project_file_sets_roots_and_disabled() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    catalog(dir);
    write(dir, "skilldex.yaml", "roots: [skills]\ndisabled: [pdf]\n");
    let list = run(dir, &[], &["list", "--json"]);
    assert_eq!(list.code, 0, "{list:?}");
    let ids: Vec<String> = list.json()["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids, ["csv"]);
    let read = run(dir, &[], &["read", "pdf"]);
    assert_eq!(read.code, 1, "{read:?}");
    assert!(
        read.stderr.contains("disabled by configuration") && read.stderr.contains("skilldex.yaml"),
        "{read:?}"
    );
    let show = run(dir, &[], &["show", "pdf"]);
    assert_eq!(show.code, 1);
    assert!(
        show.stderr.contains("disabled by configuration"),
        "{show:?}"
    );
    let render = run(dir, &[], &["render", "--paths", "none"]);
    assert!(!render.stdout.contains("pdf"), "{render:?}");
}

#[test]
fn precedence_flags_env_project_user() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    catalog(dir);
    write(
        dir,
        "xdg/skilldex/skilldex.yaml",
        "roots: [/nonexistent]\ndisabled: [csv, extra]\nformat: xml\n",
    );
    write(dir, "skilldex.yaml", "roots: [skills]\nenabled: [csv]\n");
    // Project roots beat the user's; the project re-enables csv; the user
    // format applies.
    let render = run(
        dir,
        &[],
        &["render", "--paths", "none", "--mode", "directory"],
    );
    assert_eq!(render.code, 0, "{render:?}");
    assert!(render.stdout.contains("<available_skills>"), "{render:?}");
    assert!(render.stdout.contains("csv") && render.stdout.contains("pdf"));
    // The environment beats the files.
    let render = run(
        dir,
        &[
            ("SKILLDEX_ROOTS", "other"),
            ("SKILLDEX_FORMAT", "markdown"),
            ("SKILLDEX_ENABLED", "extra"),
        ],
        &["render", "--paths", "none", "--mode", "directory"],
    );
    assert!(
        render.stdout.contains("## Skills") && render.stdout.contains("extra"),
        "{render:?}"
    );
    // Flags beat everything.
    let render = run(
        dir,
        &[("SKILLDEX_ROOTS", "other")],
        &["render", "--root", "skills", "--format", "json"],
    );
    assert_eq!(render.code, 0, "{render:?}");
    assert_eq!(render.json()["skills"].as_array().unwrap().len(), 2);
}

#[test]
fn explicit_config_replaces_the_others() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    catalog(dir);
    write(dir, "skilldex.yaml", "roots: [/nonexistent]\n");
    write(
        dir,
        "conf/mine.yaml",
        "roots: [../other]\nbudget_tokens: 50\n",
    );
    let render = run(
        dir,
        &[],
        &["render", "--config", "conf/mine.yaml", "--paths", "none"],
    );
    assert_eq!(render.code, 0, "{render:?}");
    // The file's roots and budget apply.
    assert!(render.stdout.contains("1 skill is available"), "{render:?}");
    assert!(render.stderr.contains("of 50 tokens"), "{render:?}");
    let render = run(
        dir,
        &[],
        &[
            "render",
            "--config",
            "conf/mine.yaml",
            "--budget-tokens",
            "500",
            "--paths",
            "none",
        ],
    );
    assert!(render.stdout.contains("extra"), "{render:?}");
    let render = run(
        dir,
        &[("SKILLDEX_CONFIG", "conf/mine.yaml")],
        &["list", "--json"],
    );
    assert_eq!(render.code, 0, "{render:?}");
}

#[test]
fn a_bad_file_is_an_error_with_its_position() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    catalog(dir);
    write(
        dir,
        "skilldex.yaml",
        "roots: [skills]\nbudget_tokens: lots\n",
    );
    let render = run(dir, &[], &["render"]);
    assert_eq!(render.code, 2, "{render:?}");
    assert!(
        render.stderr.contains("skilldex.yaml:2:16:"),
        "the error names file:line:col: {render:?}"
    );
    write(dir, "skilldex.yaml", "roots: [skills]\ncolor: always\n");
    let render = run(dir, &[], &["render"]);
    assert_eq!(render.code, 2);
    assert!(
        render.stderr.contains("skilldex.yaml:2:1:")
            && render.stderr.contains("unknown field `color`"),
        "{render:?}"
    );
    let render = run(
        dir,
        &[("SKILLDEX_BUDGET_TOKENS", "many")],
        &["render", "--config", "/dev/null"],
    );
    assert_eq!(render.code, 2);
    assert!(
        render.stderr.contains("SKILLDEX_BUDGET_TOKENS"),
        "{render:?}"
    );
    let missing = run(dir, &[], &["render", "--config", "nope.yaml"]);
    assert_eq!(missing.code, 2);
    assert!(missing.stderr.contains("nope.yaml"), "{missing:?}");
}

#[test]
fn tools_prints_schemas_in_both_shapes() {
    let mcp = super::run(&["agent-tools", "--format", "mcp"]);
    assert_eq!(mcp.code, 0, "{mcp:?}");
    let json = mcp.json();
    let names: Vec<&str> = json
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "search_skills",
            "read_skill",
            "grep_skills",
            "request_skill_enable"
        ]
    );
    let openai = super::run(&["agent-tools", "--format", "openai"]);
    let first = &openai.json()[0];
    assert_eq!(first["type"], "function");
    assert_eq!(first["parameters"]["type"], "object");
    for tool in mcp.json().as_array().unwrap() {
        let issues = skilldex::schema::validate(&tool["inputSchema"]);
        assert!(issues.is_empty(), "{}: {issues:?}", tool["name"]);
    }
}

#[test]
fn a_missing_root_says_where_it_was_named() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    catalog(dir);
    write(dir, "skilldex.yaml", "# roots\nroots: [skills, missing]\n");
    let from_file = run(dir, &[], &["list"]);
    assert_eq!(from_file.code, 2, "{from_file:?}");
    assert!(
        from_file.stderr.contains("missing does not exist")
            && from_file.stderr.contains("skilldex.yaml:2:17")
            && !from_file.stderr.contains("--root DIR")
            && !from_file.stderr.contains("given to --root"),
        "names the entry of the file: {from_file:?}"
    );
    let from_variable = run(dir, &[("SKILLDEX_ROOTS", "skills:gone")], &["list"]);
    assert_eq!(from_variable.code, 2, "{from_variable:?}");
    assert!(
        from_variable.stderr.contains("gone does not exist")
            && from_variable.stderr.contains("SKILLDEX_ROOTS")
            && !from_variable.stderr.contains("given to --root"),
        "names the variable: {from_variable:?}"
    );
    // Empty entries name nothing: `skills:` and `:skills` are `skills`.
    for value in ["skills:", ":skills", "skills::"] {
        let empty = run(dir, &[("SKILLDEX_ROOTS", value)], &["list", "--json"]);
        assert_eq!(empty.code, 0, "{value}: {empty:?}");
    }
    let from_flag = run(dir, &[], &["list", "--root", "nowhere"]);
    assert_eq!(from_flag.code, 2, "{from_flag:?}");
    assert!(
        from_flag.stderr.contains("nowhere does not exist") && from_flag.stderr.contains("--root"),
        "{from_flag:?}"
    );
}

#[test]
fn names_that_match_no_skill_are_warned_about() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    catalog(dir);
    write(
        dir,
        "skilldex.yaml",
        "roots: [skills]\ndisabled: [pdf, nonexistent-skill]\nenabled:\n  - cvs\n",
    );
    for args in [
        &["render", "--paths", "none"][..],
        &["list", "--json"],
        &["lint"],
    ] {
        let out = run(dir, &[], args);
        assert_eq!(out.code, 0, "{args:?}: {out:?}");
        let warnings: Vec<&str> = out
            .stderr
            .lines()
            .filter(|l| l.starts_with("skilldex: warning:"))
            .collect();
        assert_eq!(warnings.len(), 2, "{args:?}: one per name: {out:?}");
        assert!(
            warnings[0].contains("skilldex.yaml:2:17")
                && warnings[0].contains("`nonexistent-skill`")
                && !warnings[0].contains("did you mean"),
            "{args:?}: {out:?}"
        );
        assert!(
            warnings[1].contains("skilldex.yaml:4:5")
                && warnings[1].contains("`cvs`")
                && warnings[1].contains("did you mean `csv`"),
            "{args:?}: {out:?}"
        );
        assert!(
            !out.stdout.contains("nonexistent"),
            "stdout stays data: {out:?}"
        );
    }
    // The environment's names too; -q keeps stderr for errors.
    let out = run(dir, &[("SKILLDEX_DISABLED", "pfd")], &["list", "--json"]);
    assert!(
        out.stderr.contains("SKILLDEX_DISABLED") && out.stderr.contains("did you mean `pdf`"),
        "{out:?}"
    );
    let quiet = run(dir, &[], &["-q", "list", "--json"]);
    assert!(quiet.stderr.is_empty(), "{quiet:?}");
    // Names of real skills, disabled or not, are fine.
    write(
        dir,
        "skilldex.yaml",
        "roots: [skills]\ndisabled: [pdf, csv]\nenabled: [csv]\n",
    );
    let out = run(dir, &[], &["list", "--json"]);
    assert!(!out.stderr.contains("warning"), "{out:?}");
}

#[test]
fn a_key_given_twice_is_reported_at_the_second() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    catalog(dir);
    write(
        dir,
        "skilldex.yaml",
        "roots: [skills]\ndisabled: [pdf]\nformat: xml\ndisabled: [csv]\n",
    );
    let out = run(dir, &[], &["list"]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr.contains("skilldex.yaml:4:1:")
            && out.stderr.contains("duplicate field `disabled`"),
        "{out:?}"
    );
}

#[test]
fn a_missing_config_file_is_reported_once() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    catalog(dir);
    let out = run(dir, &[], &["list", "--config", "/nonexistent.yaml"]);
    assert_eq!(out.code, 2, "{out:?}");
    assert_eq!(
        out.stderr.matches("No such file or directory").count(),
        1,
        "{out:?}"
    );
    assert!(
        out.stderr.contains("/nonexistent.yaml") && out.stderr.contains("--config"),
        "{out:?}"
    );
    let out = run(dir, &[("SKILLDEX_CONFIG", "/nonexistent.yaml")], &["list"]);
    assert_eq!(out.code, 2, "{out:?}");
    assert_eq!(out.stderr.matches("No such file or directory").count(), 1);
    assert!(out.stderr.contains("SKILLDEX_CONFIG"), "{out:?}");
}

#[test]
fn agent_tools_accepts_json() {
    let plain = super::run(&["agent-tools"]);
    let json = super::run(&["agent-tools", "--json"]);
    assert_eq!(json.code, 0, "{json:?}");
    assert_eq!(json.stdout, plain.stdout);
    assert!(json.stderr.is_empty(), "{json:?}");
    let openai = super::run(&["agent-tools", "--json", "--format", "openai"]);
    assert_eq!(openai.json()[0]["type"], "function", "{openai:?}");
}

/// `tools --format`, the older spelling, prints the same definitions and
/// says on stderr what the command is called now.
#[test]
fn tools_without_a_subcommand_is_the_older_spelling_of_agent_tools() {
    for format in ["mcp", "openai"] {
        let now = super::run(&["agent-tools", "--format", format]);
        let before = super::run(&["tools", "--format", format]);
        assert_eq!(before.code, 0, "{before:?}");
        assert_eq!(before.stdout, now.stdout);
        assert!(before.stderr.contains("skilldex agent-tools"), "{before:?}");
    }
}
