//! `skilldex eval`: a file of requests and the entries they expect, scored
//! against the catalog as configured, failing the run under the file's
//! thresholds; every problem of the file named by line and column.

use super::{bounded, run, run_in, skilldex};
use serde_json::Value;

fn json(out: &super::Run) -> Value {
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out:?}"))
}

#[test]
fn the_bundled_sample_passes_its_own_thresholds() {
    let out = run(&["eval", "evals/skills.jsonl", "--root", "skills", "--json"]);
    assert_eq!(out.code, 0, "{out:?}");
    let report = json(&out);
    assert_eq!(report["mode"], "lexical", "{report}");
    assert_eq!(report["passed"], true, "{report}");
    let checks = report["thresholds"].as_array().unwrap();
    let min_r5 = checks
        .iter()
        .find(|c| c["name"] == "min_r5")
        .unwrap_or_else(|| panic!("the sample's header sets min_r5: {report}"));
    assert!(report["r5"].as_f64().unwrap() >= min_r5["threshold"].as_f64().unwrap());
    assert!(report["answerable"].as_u64().unwrap() >= 30, "{report}");
    assert!(report["unanswerable"].as_u64().unwrap() >= 4, "{report}");
    for key in ["r1", "mrr", "ndcg10", "no_match", "low", "declined"] {
        let v = report[key]
            .as_f64()
            .unwrap_or_else(|| panic!("{key}: {report}"));
        assert!((0.0..=1.0).contains(&v), "{key}: {report}");
    }
    assert!(
        report["latency_us"]["p95"].as_f64().unwrap()
            >= report["latency_us"]["p50"].as_f64().unwrap()
    );

    // The text report says the same, on stdout.
    let out = run(&["eval", "evals/skills.jsonl", "--root", "skills"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("R@5 "), "{out:?}");
    assert!(out.stdout.contains("min_r5 ≥ 0.850"), "{out:?}");
}

#[test]
fn a_threshold_missed_fails_the_run_and_lists_the_misses() {
    let temp = tempfile::tempdir().unwrap();
    let file = temp.path().join("q.jsonl");
    std::fs::write(
        &file,
        concat!(
            "{\"eval\": {\"min_r1\": 0.9}}\n",
            "{\"query\": \"find the commit that broke the build\", \"expect\": [\"git-bisect\"]}\n",
            "{\"query\": \"fill in this PDF form\", \"expect\": [\"csv-cleanup\"], \"kind\": \"wrong\"}\n",
        ),
    )
    .unwrap();
    let skills = super::repo().join("skills");
    let args = [
        "eval",
        file.to_str().unwrap(),
        "--root",
        skills.to_str().unwrap(),
    ];
    let out = run(&[&args[..], &["--json"]].concat());
    assert_eq!(out.code, 1, "{out:?}");
    let report = json(&out);
    assert_eq!(report["r1"], 0.5, "{report}");
    assert_eq!(report["passed"], false, "{report}");
    let misses = report["misses"].as_array().unwrap();
    assert_eq!(misses.len(), 1, "{report}");
    assert_eq!(misses[0]["line"], 3);
    assert_eq!(misses[0]["top"][0], "pdf-forms", "{report}");
    assert!(
        out.stderr
            .contains("min_r1 is 0.500, below the threshold 0.900"),
        "{out:?}"
    );
    assert_eq!(report["by_kind"]["wrong"]["r5"], 0.0, "{report}");

    // --min-r5 adds to the header's thresholds; met, the run still fails
    // on min_r1.
    let out = run(&[&args[..], &["--min-r5", "0.5"]].concat());
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stdout.contains("min_r5 ≥ 0.500: 0.500 ok"), "{out:?}");
    assert!(
        out.stdout.contains("min_r1 ≥ 0.900: 0.500 FAILED"),
        "{out:?}"
    );
    assert!(
        out.stdout
            .contains(&format!("{}:3: [wrong]", file.display())),
        "{out:?}"
    );
}

#[test]
fn an_unknown_id_is_named_by_line_with_a_suggestion_that_runs() {
    let temp = tempfile::tempdir().unwrap();
    let skills = super::repo().join("skills");
    let skills = skills.to_str().unwrap();
    let file = temp.path().join("q.jsonl");
    std::fs::write(
        &file,
        "\n{\"query\": \"clean a messy csv\", \"expect\": [\"csv-claenup\"]}\n",
    )
    .unwrap();
    let out = run(&["eval", file.to_str().unwrap(), "--root", skills]);
    assert_eq!(out.code, 2, "{out:?}");
    let said = format!(
        "{}:2:1: `csv-claenup` is no skill or tool of the catalog — did you mean csv-cleanup?",
        file.display()
    );
    assert!(out.stderr.contains(&said), "{out:?}");
    assert!(out.stdout.is_empty(), "{out:?}");
    // The suggestion, applied, runs.
    let fixed = std::fs::read_to_string(&file)
        .unwrap()
        .replace("csv-claenup", "csv-cleanup");
    std::fs::write(&file, fixed).unwrap();
    let out = run(&["eval", file.to_str().unwrap(), "--root", skills]);
    assert_eq!(out.code, 0, "{out:?}");
}

#[test]
fn a_broken_file_is_named_by_line_and_column() {
    let temp = tempfile::tempdir().unwrap();
    let skills = super::repo().join("skills");
    let skills = skills.to_str().unwrap();
    let cases = [
        (
            "{\"query\": \"a\", \"expect\": []}\n{\"query\": \"b\" \"expect\": []}\n",
            "2:15: this is not valid JSON",
        ),
        (
            "{\"query\": \"a\", \"expct\": []}\n",
            "1:1: unknown field `expct`",
        ),
        (
            "{\"query\": \"a\"}\n{\"eval\": {\"min_r5\": 0.5}}\n",
            "2:1: the {\"eval\": …} header must be the file's first line",
        ),
        (
            "{\"eval\": {\"min_r5\": 5}}\n{\"query\": \"a\"}\n",
            "1:1: in the header: min_r5 is a share, from 0 to 1",
        ),
        (
            "{\"eval\": {\"min_recall\": 0.5}}\n",
            "1:1: in the header: unknown field `min_recall`",
        ),
        ("  {\"query\": \"  \"}\n", "1:3: the query is empty"),
        (
            "{\"query\": \"é\", \"expect\": [1]}\n",
            "1:1: invalid type: integer `1`",
        ),
        ("\n\n", "no requests"),
    ];
    for (i, (text, said)) in cases.into_iter().enumerate() {
        let file = temp.path().join(format!("q{i}.jsonl"));
        std::fs::write(&file, text).unwrap();
        let out = run(&["eval", file.to_str().unwrap(), "--root", skills]);
        assert_eq!(out.code, 2, "{text}: {out:?}");
        assert!(
            out.stderr.contains(said),
            "{text}: wanted {said:?} in {out:?}"
        );
        assert!(out.stdout.is_empty(), "{out:?}");
    }
    // A pipe is refused at once, not waited on.
    let fifo = temp.path().join("pipe.jsonl");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let mut command = skilldex();
    command.args(["eval", fifo.to_str().unwrap(), "--root", skills]);
    let out = bounded(command);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("named pipe"), "{out:?}");
}

#[test]
fn tools_are_scored_by_their_server_slash_tool_ids() {
    let repo = super::repo();
    let out = run_in(
        &repo,
        &[
            "eval",
            "evals/tools/queries.jsonl",
            "--root",
            "evals/tools/catalog",
            "--kind",
            "tool",
            "--json",
        ],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let report = json(&out);
    assert_eq!(report["kind"], "tool", "{report}");
    assert!(report["answerable"].as_u64().unwrap() >= 100, "{report}");
    // The tool ranking finds most tools in its top five; a run that
    // matched no id would score 0.
    assert!(report["r5"].as_f64().unwrap() > 0.5, "{report}");
    for miss in report["misses"].as_array().unwrap() {
        for id in miss["top"].as_array().unwrap() {
            assert!(id.as_str().unwrap().contains('/'), "{miss}");
        }
    }
}
