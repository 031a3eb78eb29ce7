//! `skilldex search`: ranking guarantees, honest misses, output shapes, and
//! the quality of the ranking on the labelled set in `evals/search/`.

use super::{run, run_in, skill_md, write, Run};
use serde_json::Value;

fn search_json(args: &[&str]) -> (Run, Value) {
    let mut all = vec!["search", "--json"];
    all.extend_from_slice(args);
    let run = run(&all);
    let json = run.json();
    (run, json)
}

fn ids(json: &Value) -> Vec<String> {
    json["results"]
        .as_array()
        .expect("results array")
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn json_has_the_documented_shape() {
    let (run, json) = search_json(&["extract", "text", "from", "a", "pdf"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(json["query"], "extract text from a pdf");
    assert_eq!(json["no_match"], false);
    assert!(json["unmatched_terms"].is_array());
    let first = &json["results"][0];
    assert_eq!(first["id"], "pdf-extract");
    assert_eq!(first["name"], "pdf-extract");
    assert_eq!(first["namespace"], "docs");
    assert!(first["description"].as_str().unwrap().contains("PDF"));
    assert!(first["path"]
        .as_str()
        .unwrap()
        .ends_with("skills/docs/pdf-extract/SKILL.md"));
    let score = first["score"].as_f64().unwrap();
    assert!(score > 0.0 && score < 1.0, "{score}");
    // Namespaces come scored, best first, and the answer's namespace (or
    // the one its nested skills make) leads.
    let namespaces = json["namespaces"].as_array().unwrap();
    assert!(
        ["docs", "docs/pdf-extract"].contains(&namespaces[0]["name"].as_str().unwrap()),
        "{json}"
    );
    let scores: Vec<f64> = namespaces
        .iter()
        .map(|n| n["score"].as_f64().unwrap())
        .collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
}

#[test]
fn an_exact_name_ranks_first() {
    // Even inside a sentence, and even when other skills match more words.
    for (query, expected) in [
        ("pdf-forms", "pdf-forms"),
        (
            "use git-bisect to find the pdf text extraction regression",
            "git-bisect",
        ),
        ("docs/pdf-extract", "pdf-extract"),
        ("`release-notes`, please", "release-notes"),
        // Words that spell a name with spaces count too.
        ("git bisect", "git-bisect"),
    ] {
        let (run, json) = search_json(&[query]);
        assert_eq!(run.code, 0, "{query}: {run:?}");
        assert_eq!(ids(&json)[0], expected, "{query}: {json}");
        assert_eq!(json["results"][0]["score"], 1.0, "{query}");
    }
}

#[test]
fn select_returns_exactly_the_named_skills_in_order() {
    let (run, json) = search_json(&["select:sql-query-review,pdf-forms,git-bisect"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(ids(&json), ["sql-query-review", "pdf-forms", "git-bisect"]);
    // Unknown names are reported, the known ones still returned.
    let (run, json) = search_json(&["select: git-bisect , no-such-skill"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(ids(&json), ["git-bisect"]);
    assert_eq!(
        json["unmatched_terms"],
        serde_json::json!(["no-such-skill"])
    );
    let (run, json) = search_json(&["select:nothing-here"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(json["no_match"], true);
}

#[test]
fn the_text_answer_names_what_it_could_not_find() {
    let answer = run(&["search", "select:git-bisect,no-such-skill"]);
    assert_eq!(answer.code, 0, "{answer:?}");
    assert!(answer.stdout.contains("git-bisect"), "{answer:?}");
    assert!(
        answer.stdout.contains("No skill named: no-such-skill"),
        "{answer:?}"
    );
    let answer = run(&["search", "extract pdf text zzqxv"]);
    assert_eq!(answer.code, 0, "{answer:?}");
    assert!(answer.stdout.contains("pdf-extract"), "{answer:?}");
    assert!(
        answer.stdout.contains("Words that matched nothing: zzqxv"),
        "{answer:?}"
    );
    let answer = run(&["search", "extract pdf text"]);
    assert!(!answer.stdout.contains("matched nothing"), "{answer:?}");
    let answer = run(&["search", "select:nope,nada"]);
    assert_eq!(answer.code, 1, "{answer:?}");
    assert!(
        answer.stdout.contains("No skill named: nope, nada"),
        "{answer:?}"
    );
}

#[test]
fn a_query_with_no_answer_says_so() {
    let (run, json) = search_json(&["book a flight to Lisbon"]);
    assert_eq!(run.code, 1, "{run:?}");
    assert_eq!(json["no_match"], true);
    assert_eq!(json["results"], serde_json::json!([]));
    let unmatched: Vec<&str> = json["unmatched_terms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert!(
        unmatched.contains(&"flight") && unmatched.contains(&"lisbon"),
        "{json}"
    );
    // The human answer names the words and where to look instead.
    let run = run_in(&super::repo(), &["search", "book a flight to Lisbon"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout
            .starts_with("No skill shares a meaningful word with this query."),
        "{run:?}"
    );
    assert!(run.stdout.contains("flight"), "{run:?}");
    assert!(run.stdout.contains("skilldex list"), "{run:?}");
}

#[test]
fn chinese_queries_find_chinese_and_english_skills() {
    let (_, json) = search_json(&["写提交信息"]);
    assert_eq!(ids(&json)[0], "commit-message-zh", "{json}");
    let (_, json) = search_json(&["怎么提取PDF里的文字"]);
    assert_eq!(ids(&json)[0], "pdf-extract", "{json}");
    // And an English query finds a skill written in Chinese.
    let (_, json) = search_json(&["chinese api documentation"]);
    assert_eq!(ids(&json)[0], "api-doc-zh", "{json}");
}

#[test]
fn typos_and_word_forms_still_match() {
    let (_, json) = search_json(&["git bisct regresion"]);
    assert_eq!(ids(&json)[0], "git-bisect", "{json}");
    let (_, json) = search_json(&["reviewing sql queries"]);
    assert_eq!(ids(&json)[0], "sql-query-review", "{json}");
}

#[test]
fn identifiers_are_split_like_the_descriptions() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path();
    write(
        root,
        "web/effect-cleanup/SKILL.md",
        skill_md(
            "effect-cleanup",
            "Stops React useEffect hooks from leaking subscriptions and timers.",
        ),
    );
    write(
        root,
        "db/pg-backup/SKILL.md",
        skill_md(
            "pg-backup",
            "Takes consistent PostgreSQL backups with pg_dump and restores them.",
        ),
    );
    write(
        root,
        "db/xml-config/SKILL.md",
        skill_md(
            "xml-config",
            "Edits XMLHttpRequest settings in legacy pages.",
        ),
    );
    let root_s = root.to_str().unwrap();
    let search = |q: &str| {
        let run = run_in(root, &["search", "--json", "--root", root_s, q]);
        ids(&run.json())
    };
    assert_eq!(search("use effect cleanup")[0], "effect-cleanup");
    assert_eq!(search("useeffect")[0], "effect-cleanup");
    assert_eq!(search("pg dump")[0], "pg-backup");
    assert_eq!(search("pgdump")[0], "pg-backup");
    assert_eq!(search("xml http request")[0], "xml-config");
}

#[test]
fn namespaces_shape_the_ranking() {
    // Two skills with the same words; the query names one's namespace.
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path();
    write(
        root,
        "aws/README.md",
        "---\ndescription: Amazon Web Services.\n---\n",
    );
    write(
        root,
        "gcp/README.md",
        "---\ndescription: Google Cloud.\n---\n",
    );
    write(
        root,
        "aws/signed-links/SKILL.md",
        skill_md(
            "signed-links",
            "Share private files with links that expire.",
        ),
    );
    write(
        root,
        "gcp/expiring-links/SKILL.md",
        skill_md(
            "expiring-links",
            "Share private files with links that expire.",
        ),
    );
    let root_s = root.to_str().unwrap();
    for (query, first) in [
        ("share a private file on amazon", "signed-links"),
        ("share a private file on google", "expiring-links"),
    ] {
        let run = run_in(root, &["search", "--json", "--root", root_s, query]);
        let json = run.json();
        assert_eq!(ids(&json)[0], first, "{query}: {json}");
        assert_eq!(
            json["results"][0]["namespace"], json["namespaces"][0]["name"],
            "{json}"
        );
    }
}

#[test]
fn limit_caps_the_results_and_output_is_stable() {
    let (_, json) = search_json(&["--limit", "2", "review"]);
    assert!(ids(&json).len() <= 2, "{json}");
    let a = run(&["search", "--json", "write release notes and changelog"]);
    let b = run(&["search", "--json", "write release notes and changelog"]);
    assert_eq!(a.stdout, b.stdout);
    let list = ids(&a.json());
    assert!(
        list.contains(&"release-notes".to_string())
            && list.contains(&"changelog-keeping".to_string()),
        "{list:?}"
    );
}

#[test]
fn an_empty_query_is_a_usage_error() {
    let r = run(&["search", "  "]);
    assert_eq!(r.code, 2, "{r:?}");
    assert!(r.stderr.contains("query is empty"), "{r:?}");
}

#[test]
fn tool_specs_are_grouped_deferred_and_follow_the_schema_rules() {
    let r = run(&["search", "--format", "tool-spec", "review code and sql"]);
    assert_eq!(r.code, 0, "{r:?}");
    let groups = r.json();
    let groups = groups.as_array().expect("an array of namespaces");
    assert!(!groups.is_empty());
    let mut names = Vec::new();
    for group in groups {
        assert_eq!(group["type"], "namespace");
        assert!(!group["name"].as_str().unwrap().is_empty());
        check_description(&group["description"]);
        for tool in group["tools"].as_array().unwrap() {
            assert_eq!(tool["type"], "function");
            assert_eq!(tool["defer_loading"], true);
            let name = tool["name"].as_str().unwrap();
            assert!(!name.is_empty() && name.len() <= 64);
            assert!(
                name.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'),
                "{name}"
            );
            check_description(&tool["description"]);
            check_schema(&tool["parameters"]);
            names.push(name.to_string());
        }
    }
    assert!(
        names.contains(&"code-review".to_string())
            && names.contains(&"sql-query-review".to_string()),
        "{names:?}"
    );
}

fn check_description(value: &Value) {
    let text = value.as_str().expect("a description string");
    assert!(!text.trim().is_empty() && text.len() <= 1000, "{text:?}");
}

/// DESIGN §10: only the seven types, `properties` on every object, non-empty
/// descriptions of at most 1,000 bytes.
fn check_schema(schema: &Value) {
    const TYPES: [&str; 7] = [
        "string", "number", "boolean", "integer", "object", "array", "null",
    ];
    let object = schema.as_object().expect("a schema object");
    for key in object.keys() {
        assert!(
            [
                "type",
                "properties",
                "required",
                "description",
                "items",
                "enum",
                "const",
                "anyOf",
                "oneOf",
                "allOf",
                "$ref"
            ]
            .contains(&key.as_str()),
            "unexpected key {key}"
        );
    }
    match &object["type"] {
        Value::String(t) => assert!(TYPES.contains(&t.as_str()), "{t}"),
        Value::Array(ts) => assert!(ts.iter().all(|t| TYPES.contains(&t.as_str().unwrap_or("")))),
        other => panic!("bad type {other}"),
    }
    if object["type"] == "object" {
        let properties = object["properties"]
            .as_object()
            .expect("objects carry properties");
        for property in properties.values() {
            check_description(&property["description"]);
            check_schema(property);
        }
    }
    if let Some(description) = object.get("description") {
        check_description(description);
    }
}

/// `skilldex eval` on `file` over `roots` (in the repository), with
/// `extra` arguments, as JSON.
fn eval_json(roots: &[&str], file: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["eval", file, "--json", "--baseline", "bm25"];
    for root in roots {
        args.extend(["--root", root]);
    }
    args.extend(extra);
    let out = super::run_in(&super::repo(), &args);
    assert!(out.code <= 1, "{out:?}");
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out:?}"))
}

fn figure(report: &serde_json::Value, key: &str) -> f64 {
    report[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key}: {report}"))
}

/// The labelled set: the ranking must stay well above plain BM25 and
/// the "no match" answers mostly right.
#[test]
fn ranking_quality_on_the_labelled_set() {
    let o = eval_json(
        &["skills", "evals/search/catalog"],
        "evals/search/queries.jsonl",
        &["--kind", "skill"],
    );
    let b = &o["baseline"];
    assert!(o["answerable"].as_u64().unwrap() >= 150, "{o}");
    // No worse than the ranking of 2026-12-01 (R@1 0.816, R@5 0.864, MRR
    // 0.858), and well above plain BM25.
    assert!(
        figure(&o, "r5") >= 0.864 && figure(&o, "r5") > figure(b, "r5") + 0.1,
        "R@5 {} vs BM25 {}",
        o["r5"],
        b["r5"]
    );
    assert!(
        figure(&o, "r1") >= 0.816 && figure(&o, "mrr") >= 0.858,
        "R@1 {} MRR {}",
        o["r1"],
        o["mrr"]
    );
    // Honest without hiding: answerable queries are answered, and mostly
    // flagged high; the ones no skill answers are flagged low or no match.
    assert!(
        figure(&o, "answered") >= 0.95 && figure(&o, "high") >= 0.75,
        "{o}"
    );
    assert!(figure(&o, "declined") >= 0.8, "{o}");
    let exact = &o["by_kind"]["exact"];
    assert_eq!(figure(exact, "r1"), 1.0, "{exact}");
    assert_eq!(figure(exact, "high"), 1.0, "{exact}");
}

/// Requests no skill answers (everyday tasks, in a user's words, some
/// sharing words with the catalog: "my python keeps hiding under the log")
/// come back flagged low or "no match", on the bundled catalog alone and
/// with the evaluation catalog.
#[test]
fn requests_no_skill_answers_are_flagged() {
    for roots in [&["skills"][..], &["skills", "evals/search/catalog"]] {
        let report = eval_json(roots, "evals/search/unanswerable.jsonl", &[]);
        assert!(report["unanswerable"].as_u64().unwrap() >= 50, "{report}");
        assert_eq!(report["answerable"], 0, "{report}");
        let declined = figure(&report, "declined");
        assert!(declined >= 0.8, "{declined}: {:#}", report["misses"]);
    }
}

#[test]
fn a_cut_directory_points_at_search() {
    let r = run(&["render", "--paths", "none", "--mode", "namespaces"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(
        r.stdout.contains("skilldex search \"<what you need>\""),
        "{r:?}"
    );
}

#[test]
fn runaway_queries_are_cut_not_choked_on() {
    let catalog = skilldex::CatalogBuilder::new([super::repo().join("skills")])
        .build()
        .unwrap();
    let options = skilldex::search::SearchOptions::default();
    // Ten megabytes of words, unknown words, CJK, and a huge select list.
    for query in [
        "review sql ".repeat(1_000_000),
        "qwxz ".repeat(2_000_000),
        "数据库备份".repeat(700_000),
        format!("select:{}", "git-bisect,".repeat(1_000_000)),
    ] {
        let results = catalog.search(&query, &options);
        assert!(results.query.len() <= query.len());
        assert!(results.hits.len() <= 8);
    }
    let results = catalog.search(&"review sql ".repeat(1_000_000), &options);
    assert_eq!(
        catalog.skills()[results.hits[0].index].name,
        "sql-query-review"
    );
}

mod properties {
    use proptest::prelude::*;
    use std::sync::OnceLock;

    /// The catalog and its search index, built once for every case (what
    /// `Catalog::search` would rebuild on each call; a server keeps one).
    fn catalog() -> &'static (skilldex::Catalog, skilldex::search::SearchIndex) {
        static CATALOG: OnceLock<(skilldex::Catalog, skilldex::search::SearchIndex)> =
            OnceLock::new();
        CATALOG.get_or_init(|| {
            let repo = super::super::repo();
            let catalog = skilldex::CatalogBuilder::new([
                repo.join("skills"),
                repo.join("evals/search/catalog"),
            ])
            .build()
            .unwrap();
            let index = skilldex::search::SearchIndex::build(&catalog);
            (catalog, index)
        })
    }

    /// An index built again answers as the one the cases share: the
    /// "same answer twice" of each case does not hide a build that
    /// depends on more than the catalog.
    #[test]
    fn a_rebuilt_index_answers_the_same() {
        let (catalog, index) = catalog();
        let options = skilldex::search::SearchOptions::skills(8);
        for query in [
            "review sql",
            "pdf 数据",
            "kubernets rolout",
            "deploy a service",
            "",
        ] {
            assert_eq!(
                catalog.search(query, &options),
                index.search(catalog, query, &options),
                "{query:?}"
            );
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        /// Any text: no panic, at most `limit` distinct hits, scores in
        /// 0..=1 and best first, "no match" exactly when there are no
        /// hits, and the same answer twice.
        #[test]
        fn any_query_gets_a_well_formed_answer(
            query in "(\\PC{0,40}|[a-z_ -]{0,60}|[\\u{4e00}-\\u{4e2f}pdf ]{0,20})",
            limit in 1usize..12,
        ) {
            let (catalog, index) = catalog();
            let options = skilldex::search::SearchOptions::skills(limit);
            let results = index.search(catalog, &query, &options);
            prop_assert!(results.hits.len() <= limit);
            prop_assert_eq!(results.no_match, results.hits.is_empty());
            let mut seen = std::collections::HashSet::new();
            for hit in &results.hits {
                prop_assert!(seen.insert(hit.index));
                prop_assert!(hit.index < catalog.skills().len());
                prop_assert!((0.0..=1.0).contains(&hit.score), "{}", hit.score);
            }
            let scores: Vec<f32> = results.hits.iter().map(|h| h.score).collect();
            prop_assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{:?}", scores);
            prop_assert_eq!(index.search(catalog, &query, &options), results);
        }
    }
}

#[test]
fn scores_print_as_their_rounded_decimals() {
    let r = run(&["search", "--json", "find the commit that broke the build"]);
    assert_eq!(r.code, 0, "{r:?}");
    for line in r.stdout.lines().filter(|l| l.contains("\"score\"")) {
        let number = line.split(':').nth(1).unwrap().trim().trim_end_matches(',');
        let decimals = number.split('.').nth(1).unwrap_or("");
        assert!(decimals.len() <= 3, "{line}");
    }
}

#[test]
fn a_closed_pipe_is_not_an_error() {
    use std::io::Read;
    use std::process::Stdio;
    for args in [
        &["agent-tools", "--format", "openai"][..],
        &["search", "--json", "review"][..],
    ] {
        let mut child = super::skilldex()
            .current_dir(super::repo())
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Read one byte, then hang up.
        let mut stdout = child.stdout.take().unwrap();
        let mut byte = [0u8; 1];
        stdout.read_exact(&mut byte).unwrap();
        drop(stdout);
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!stderr.contains("Broken pipe"), "{args:?}: {stderr}");
        assert!(
            output.status.code() == Some(0),
            "{args:?}: {:?}",
            output.status
        );
    }
}

#[test]
fn typo_fixes_reach_words_of_every_skill_however_the_build_is_split() {
    // The index is tokenized in parallel chunks; a word that only the last
    // skill has must still be a typo target.
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path();
    for i in 0..1200 {
        let name = format!("filler-{i:04}");
        write(
            root,
            &format!("n/{name}/SKILL.md"),
            skill_md(
                &name,
                "Sorts widgets into labelled boxes. Use when widgets pile up.",
            ),
        );
    }
    write(
        root,
        "n/zz-rollout/SKILL.md",
        skill_md(
            "zz-rollout",
            "Rolls out kubernetes deployments gradually. Use when shipping to a cluster.",
        ),
    );
    let catalog = skilldex::CatalogBuilder::new([root]).build().unwrap();
    let results = catalog.search(
        "kubernets rolout",
        &skilldex::search::SearchOptions::default(),
    );
    assert!(!results.no_match, "{results:?}");
    assert_eq!(catalog.skills()[results.hits[0].index].name, "zz-rollout");
}

#[test]
fn chinese_particles_are_not_unmatched_words() {
    let (_, json) = search_json(&["怎么压缩图片"]);
    let unmatched = json["unmatched_terms"].as_array().unwrap();
    assert!(
        !unmatched.iter().any(|t| t == "么" || t == "怎么"),
        "{json}"
    );
}

#[test]
fn a_plain_word_that_is_also_a_name_is_not_pinned_inside_a_sentence() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path();
    write(
        root,
        "dev/jest/SKILL.md",
        skill_md("jest", "Mocks modules and timers in JavaScript unit tests."),
    );
    write(
        root,
        "dev/card-design/SKILL.md",
        skill_md(
            "card-design",
            "Designs birthday and greeting cards with short jokes.",
        ),
    );
    let root_s = root.to_str().unwrap();
    let search = |q: &str| run_in(root, &["search", "--json", "--root", root_s, q]).json();
    // Alone, the word is the name.
    assert_eq!(ids(&search("jest"))[0], "jest");
    // In a sentence about something else, it is only a word.
    let json = search("jest jokes for a birthday card");
    assert_eq!(ids(&json)[0], "card-design", "{json}");
    assert!(
        json["results"][0]["score"].as_f64().unwrap() < 1.0,
        "{json}"
    );
}

#[test]
fn a_broken_skill_is_reported_and_the_rest_still_searched() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path();
    write(
        root,
        "dev/ok-skill/SKILL.md",
        skill_md("ok-skill", "Bisects git history to find a regression."),
    );
    write(
        root,
        "dev/broken/SKILL.md",
        "---\nname: broken\ndescription: \"unclosed\n---\nbody\n",
    );
    let root_s = root.to_str().unwrap();
    let r = run_in(
        root,
        &["search", "--json", "--root", root_s, "git regression"],
    );
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(ids(&r.json()), ["ok-skill"]);
    assert!(r.stderr.contains("1 error"), "{r:?}");
    let r = run_in(root, &["search", "--root", root_s, "--limit", "0", "git"]);
    assert_eq!(r.code, 2, "{r:?}");
}

#[test]
fn joined_words_and_accents_are_found() {
    // Two words written together, as in a hyphenated name typed without
    // the hyphen.
    let (first, json) = search_json(&["gitbisect"]);
    assert_eq!(first.code, 0, "{first:?}");
    assert_eq!(ids(&json)[0], "git-bisect");
    let (_, json) = search_json(&["dockerfilehardening"]);
    assert_eq!(ids(&json)[0], "dockerfile-hardening");
    // A name in fullwidth letters is the name: pinned first.
    let (_, json) = search_json(&["ｇｉｔ-ｂｉｓｅｃｔ"]);
    assert_eq!(ids(&json)[0], "git-bisect");
    assert_eq!(json["results"][0]["score"], 1.0, "{json}");
    // Accents and fullwidth letters fold to their plain letters, both ways.
    let temp = tempfile::tempdir().unwrap();
    write(
        temp.path(),
        "cafe-menu/SKILL.md",
        skill_md(
            "cafe-menu",
            "Writes the crème brûlée menu of a café with a naïve façade. Use when a menu is needed.",
        ),
    );
    let root = temp.path().to_str().unwrap();
    for query in ["facade", "creme brulee", "naive", "ｃａｆé menu"] {
        let answer = run(&["search", "--json", "--root", root, query]);
        assert_eq!(answer.code, 0, "{query}: {answer:?}");
        assert_eq!(ids(&answer.json()), ["cafe-menu"], "{query}");
    }
    let answer = run(&["search", "--json", "--root", root, "façade"]);
    assert_eq!(ids(&answer.json()), ["cafe-menu"]);
    // Only a skill's name joins words: two unrelated known words that
    // happen to spell a query word are no evidence.
    write(
        temp.path(),
        "java-build/SKILL.md",
        skill_md(
            "java-build",
            "Builds Java projects. Use when a jar is needed.",
        ),
    );
    write(
        temp.path(),
        "shell-script/SKILL.md",
        skill_md(
            "shell-script",
            "Writes a shell script. Use when automating.",
        ),
    );
    let answer = run(&["search", "--json", "--root", root, "javascript"]);
    assert_eq!(answer.code, 1, "{answer:?}");
    assert_eq!(answer.json()["no_match"], true);
    let answer = run(&["search", "--json", "--root", root, "javabuild"]);
    assert_eq!(ids(&answer.json())[0], "java-build");
}

fn words(json: &Value, key: &str) -> Vec<String> {
    json[key]
        .as_array()
        .unwrap_or_else(|| panic!("{key} array: {json}"))
        .iter()
        .map(|t| t.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn one_word_that_begins_a_name_or_is_a_sure_typo_is_an_answer() {
    // The start of a word of a skill's name, a letter left out of a
    // five-letter word, two letters swapped, a letter doubled.
    for (query, first) in [
        ("docker", "dockerfile-hardening"),
        ("dockerfil", "dockerfile-hardening"),
        ("bisec", "git-bisect"),
        ("revew", "code-review"),
        ("reveiw", "code-review"),
        ("bisecct", "git-bisect"),
    ] {
        let (run, json) = search_json(&[query]);
        assert_eq!(run.code, 0, "{query}: {run:?}");
        assert_eq!(json["no_match"], false, "{query}: {json}");
        assert_eq!(ids(&json)[0], first, "{query}: {json}");
    }
    // A guess at the word scores under the word itself.
    for (guess, word) in [("bisec", "bisect"), ("revew", "review")] {
        let score = |q: &str| search_json(&[q]).1["results"][0]["score"].as_f64().unwrap();
        assert!(score(guess) < score(word), "{guess} vs {word}");
    }
}

#[test]
fn a_name_prefix_is_counted_in_characters() {
    let temp = tempfile::tempdir().unwrap();
    write(
        temp.path(),
        "dev/проверка-кода/SKILL.md",
        skill_md(
            "проверка-кода",
            "Reviews a change before it is merged. Use when asked for a review.",
        ),
    );
    let root = temp.path().to_str().unwrap();
    let search = |q: &str| run(&["search", "--json", "--root", root, q]);
    // Four letters (eight bytes) begin the name; two letters (four bytes)
    // are too few.
    let answer = search("пров");
    assert_eq!(answer.code, 0, "{answer:?}");
    assert_eq!(ids(&answer.json()), ["проверка-кода"]);
    let answer = search("пр");
    assert_eq!(answer.code, 1, "{answer:?}");
    assert_eq!(words(&answer.json(), "unmatched_terms"), ["пр"]);
}

#[test]
fn a_no_match_names_the_words_that_matched_nothing_or_only_weakly() {
    // A letter changed in a short word, a four-letter word: guesses, not
    // evidence.
    for (query, weak) in [("paint", "paint"), ("txet", "txet")] {
        let (run, json) = search_json(&[query]);
        assert_eq!(run.code, 1, "{query}: {run:?}");
        assert_eq!(json["no_match"], true, "{query}: {json}");
        assert_eq!(words(&json, "weak_terms"), [weak], "{query}: {json}");
        assert!(words(&json, "unmatched_terms").is_empty(), "{json}");
    }
    // A word known only through a synonym ("picture" → image) is related:
    // the closest skills come back, flagged low.
    let (run, json) = search_json(&["picture"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(json["no_match"], false, "{json}");
    assert_eq!(json["confidence"], "low", "{json}");
    assert_eq!(words(&json, "weak_terms"), ["picture"], "{json}");
    // Unrelated words still find nothing, and the answer says which.
    for query in [
        "terraform helm ansible",
        "weather forecast",
        "guitar chords",
        "banana",
        "horse",
        "book a flight",
    ] {
        let (run, json) = search_json(&[query]);
        assert_eq!(run.code, 1, "{query}: {run:?}");
        assert_eq!(json["no_match"], true, "{query}: {json}");
        let named = words(&json, "unmatched_terms").len() + words(&json, "weak_terms").len();
        assert!(named > 0, "{query}: {json}");
    }
    // An answer lists its weak words too.
    let (run, json) = search_json(&["extract pdf text picture"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(words(&json, "weak_terms"), ["picture"], "{json}");
}

#[test]
fn a_general_word_alone_does_not_answer_for_the_subject() {
    // "fix", "file" and "return" are in the bundled skills; "car", "visa"
    // and "parcel" are in none. A skill that matches only the general word
    // has not matched what the query is about.
    for (query, subject) in [
        ("fix my car", "car"),
        ("file my visa", "visa"),
        ("parcel return", "parcel"),
    ] {
        let (run, json) = search_json(&[query]);
        assert_eq!(run.code, 1, "{query}: {run:?}");
        assert_eq!(json["no_match"], true, "{query}: {json}");
        assert_eq!(
            words(&json, "unmatched_terms"),
            [subject],
            "{query}: {json}"
        );
    }
    // One word of two is not a sure answer when the other is unknown or
    // only guessed: "bake" is in a Dockerfile skill ("baked-in"), bread
    // nowhere. The skill comes back, flagged low.
    let (run, json) = search_json(&["bake bread"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(ids(&json)[0], "dockerfile-hardening", "{json}");
    assert_eq!(json["confidence"], "low", "{json}");
    assert_eq!(json["results"][0]["confidence"], "low", "{json}");
    assert_eq!(words(&json, "weak_terms"), ["bread"], "{json}");
    let (run, json) = search_json(&["bake"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(ids(&json)[0], "dockerfile-hardening", "{json}");
    // On their own, or with the subject found, they still answer.
    for (query, first) in [
        ("fix", None),
        ("write a changelog", Some("changelog-keeping")),
    ] {
        let (run, json) = search_json(&[query]);
        assert_eq!(run.code, 0, "{query}: {run:?}");
        if let Some(first) = first {
            assert_eq!(ids(&json)[0], first, "{query}: {json}");
        }
    }
}

#[test]
fn a_word_in_a_name_outranks_a_word_in_another_description() {
    // "two" in "between two versions" and "merged" in "merged pull
    // requests" do not make release notes about merging PDFs.
    let (_, json) = search_json(&["merge two pdf"]);
    let mut top: Vec<String> = ids(&json).into_iter().take(2).collect();
    top.sort();
    assert_eq!(top, ["pdf-extract", "pdf-forms"], "{json}");
    // Even when the name's word is common in the catalog and the
    // description's word is rare.
    let temp = tempfile::tempdir().unwrap();
    for (name, description) in [
        (
            "pdf-fill",
            "Fills PDF form fields. Use when a PDF has a form.",
        ),
        (
            "pdf-text",
            "Pulls text out of PDF files. Use when reading a PDF.",
        ),
        (
            "pdf-sign",
            "Signs PDF documents. Use when a PDF needs a signature.",
        ),
        (
            "release-notes",
            "Drafts release notes from merged pull requests. Use when cutting a release.",
        ),
        ("csv-clean", "Cleans CSV files. Use when a CSV is messy."),
    ] {
        write(
            temp.path(),
            &format!("{name}/SKILL.md"),
            skill_md(name, description),
        );
    }
    let root = temp.path().to_str().unwrap();
    let answer = run(&["search", "--json", "--root", root, "merge pdf"]);
    let list = ids(&answer.json());
    assert!(list[0].starts_with("pdf-"), "{list:?}");
    assert_eq!(
        list.iter().position(|n| n == "release-notes"),
        Some(3),
        "{list:?}"
    );
}

/// A no-match answer in text names the words that matched only weakly,
/// as the JSON answer does.
#[test]
fn a_text_no_match_names_the_weak_words() {
    let out = run(&["search", "paint", "--root", "skills"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stdout
            .contains("Words that matched only weakly (a related word or a guessed typo): paint"),
        "{out:?}"
    );
}

/// A request that shares a word with a skill but whose other words the
/// catalog lacks gets that skill, flagged low with the words that matched
/// nothing; the words of a sure answer leave it high.
#[test]
fn a_weak_answer_is_flagged_not_hidden() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path();
    for (name, description) in [
        (
            "currency-exchange",
            "Converts an amount between currencies at today's exchange rate. Use when prices are in another currency.",
        ),
        ("unit-convert", "Converts lengths, weights and temperatures. Use when a recipe or a plan uses other units."),
        ("csv-clean", "Cleans CSV files. Use when a CSV is messy."),
    ] {
        write(root, &format!("money/{name}/SKILL.md"), skill_md(name, description));
    }
    let root_s = root.to_str().unwrap();
    let query = "I want to exchange my 1000 Russian Rubles to Chinese Yuan, how much will I get?";
    let answer = run_in(root, &["search", "--json", "--root", root_s, query]);
    assert_eq!(answer.code, 0, "{answer:?}");
    let json = answer.json();
    assert_eq!(json["no_match"], false, "{json}");
    assert_eq!(json["confidence"], "low", "{json}");
    assert_eq!(ids(&json)[0], "currency-exchange", "{json}");
    assert_eq!(json["results"][0]["confidence"], "low", "{json}");
    let unmatched = words(&json, "unmatched_terms");
    for word in ["rubles", "yuan"] {
        assert!(unmatched.contains(&word.to_string()), "{json}");
    }
    // The text answer says so first, and marks the hit.
    let text = run_in(root, &["search", "--root", root_s, query]);
    assert_eq!(text.code, 0, "{text:?}");
    assert!(text.stdout.starts_with("Weak matches: "), "{text:?}");
    assert!(text.stdout.contains(" low\n"), "{text:?}");
    assert!(
        text.stdout.contains("Words that matched nothing: "),
        "{text:?}"
    );
    // Said with the catalog's words, the answer is sure.
    let sure = run_in(
        root,
        &[
            "search",
            "--json",
            "--root",
            root_s,
            "exchange rate between currencies",
        ],
    );
    let json = sure.json();
    assert_eq!(json["confidence"], "high", "{json}");
    assert_eq!(json["results"][0]["confidence"], "high", "{json}");
    assert_eq!(ids(&json)[0], "currency-exchange", "{json}");
    let text = run_in(
        root,
        &[
            "search",
            "--root",
            root_s,
            "exchange rate between currencies",
        ],
    );
    assert!(!text.stdout.contains("Weak matches"), "{text:?}");
}

/// Split a command the way a POSIX shell does for plain, single-quoted and
/// backslash-escaped words (all the hints use).
fn shell_words(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut quoted = false;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' if !quoted => {
                if let Some(next) = chars.next() {
                    word.get_or_insert_with(String::new).push(next);
                }
            }
            '\'' => {
                quoted = !quoted;
                word.get_or_insert_with(String::new);
            }
            ' ' if !quoted => {
                if let Some(w) = word.take() {
                    words.push(w);
                }
            }
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    words
}

/// The commands a search answer suggests carry the `--root` and
/// `--config` the user gave, and run as printed.
#[test]
fn suggested_commands_run_as_printed() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path().join("my skills");
    write(
        &root,
        "kitchen/bread-baking/SKILL.md",
        skill_md("bread-baking", "Bakes sourdough bread. Use when baking."),
    );
    write(
        &root,
        "kitchen/README.md",
        "---\ndescription: Cooking and baking at home.\n---\n\nCooking and baking at home.\n",
    );
    let config = temp.path().join("it's.yaml");
    std::fs::write(&config, "{}\n").unwrap();
    let root_s = root.to_str().unwrap();
    let config_s = config.to_str().unwrap();
    let cwd = temp.path();
    let base = ["search", "--root", root_s, "--config", config_s];
    let check = |command: &str| {
        let words = shell_words(command);
        assert_eq!(words[0], "skilldex", "{command}");
        assert!(words.iter().any(|w| w == root_s), "{command}");
        assert!(words.iter().any(|w| w == config_s), "{command}");
        let args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
        let ran = run_in(cwd, &args);
        assert_eq!(ran.code, 0, "{command}: {ran:?}");
        ran
    };
    // No match: browse the catalog.
    let answer = run_in(cwd, &[&base[..], &["knit a sweater"]].concat());
    assert_eq!(answer.code, 1, "{answer:?}");
    let browse = answer
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("Browse everything with `"))
        .and_then(|l| l.strip_suffix("`."))
        .unwrap_or_else(|| panic!("{answer:?}"));
    assert!(check(browse).stdout.contains("bread-baking"));
    // An answer: read a hit.
    let answer = run_in(cwd, &[&base[..], &["bake bread"]].concat());
    assert_eq!(answer.code, 0, "{answer:?}");
    let read = answer
        .stderr
        .lines()
        .find_map(|l| l.strip_prefix("skilldex: read one with `"))
        .and_then(|l| l.split_once('`'))
        .map(|(command, _)| command.replace("NAME", "bread-baking"))
        .unwrap_or_else(|| panic!("{answer:?}"));
    assert!(check(&read).stdout.contains("Do the thing."));
}

/// Tools are ranked above a plain BM25 over the same text (name,
/// description, parameters) on the labelled tool set, and the
/// hierarchical scoring search uses is no worse than the flat one.
#[test]
fn tool_search_beats_plain_bm25_on_the_labelled_tool_set() {
    let args = ["--kind", "tool"];
    let ours = eval_json(&["evals/tools/catalog"], "evals/tools/queries.jsonl", &args);
    let baseline = &ours["baseline"];
    assert!(ours["answerable"].as_u64().unwrap() >= 100, "{ours}");
    assert!(
        figure(&ours, "r5") > figure(baseline, "r5")
            && figure(&ours, "mrr") > figure(baseline, "mrr"),
        "tool search R@5 {} MRR {}, plain BM25 R@5 {} MRR {}",
        ours["r5"],
        ours["mrr"],
        baseline["r5"],
        baseline["mrr"]
    );
    let flat = eval_json(
        &["evals/tools/catalog"],
        "evals/tools/queries.jsonl",
        &["--kind", "tool", "--tool-scoring", "flat"],
    );
    assert!(
        figure(&ours, "mrr") >= figure(&flat, "mrr"),
        "hierarchical MRR {} < flat {}",
        ours["mrr"],
        flat["mrr"]
    );
}

#[test]
fn the_body_says_when_a_skill_is_used() {
    // Two skills whose descriptions say nothing of the request: one names
    // it under "When to use", the other under "When not to use" and in a
    // code block. Only the first is found, and it is a sure answer.
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path();
    let body = |name: &str, description: &str, rest: &str| {
        format!("---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n\nAn overview.\n\n{rest}")
    };
    write(
        root,
        "a11y/wcag-audit/SKILL.md",
        body(
            "wcag-audit",
            "Audits web pages against WCAG 2.2 with automated and manual checks.",
            "## When to Use This Skill\n\n- A customer's procurement team asks for a VPAT\n- Before a public launch\n\n## Steps\n\nRun axe on every template first.\n",
        ),
    );
    write(
        root,
        "a11y/contrast/SKILL.md",
        body(
            "contrast",
            "Checks colour contrast ratios of a design system's tokens.",
            "## When NOT to use\n\n- A procurement team wants a VPAT document\n\n```text\nvpat vpat vpat\n```\n\n## Tokens\n\nRatios are computed from the sRGB luminance of each pair.\n",
        ),
    );
    for filler in ["alpha", "beta", "gamma"] {
        write(
            root,
            &format!("misc/{filler}/SKILL.md"),
            skill_md(filler, &format!("Handles {filler} records in reports.")),
        );
    }
    let root_s = root.to_str().unwrap();
    let search = |q: &str| {
        let run = run_in(root, &["search", "--json", "--root", root_s, q]);
        assert_eq!(run.code, 0, "{run:?}");
        run.json()
    };
    let json = search("our procurement team wants a VPAT");
    assert_eq!(ids(&json), ["wcag-audit"], "{json}");
    assert_eq!(json["confidence"], "high", "{json}");
}

#[test]
fn a_server_named_in_the_query_is_the_shelf() {
    // "on github" picks the server, though another server's tools share
    // more of the request's other words (in their parameters).
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path();
    let server = |name: &str, description: &str, tools: serde_json::Value| {
        let value = serde_json::json!({
            "server": {"name": name, "description": description},
            "tools": tools,
        });
        write(
            root,
            &format!("{name}/mcp-tools.json"),
            serde_json::to_string_pretty(&value).unwrap() + "\n",
        );
    };
    let object = |properties: serde_json::Value| serde_json::json!({"type": "object", "properties": properties});
    server(
        "github",
        "Repositories, issues and pull requests.",
        serde_json::json!([
            {"name": "get_team_members", "description": "Members of an organisation's team.",
             "inputSchema": object(serde_json::json!({"org": {"type": "string"}, "team_slug": {"type": "string"}}))},
            {"name": "create_issue", "description": "Open an issue.",
             "inputSchema": object(serde_json::json!({"title": {"type": "string"}}))},
        ]),
    );
    server(
        "sentry",
        "Error monitoring.",
        serde_json::json!([
            {"name": "update_project", "description": "Change a project's settings.",
             "inputSchema": object(serde_json::json!({
                 "platform": {"type": "string", "description": "The project's platform."},
                 "teamSlug": {"type": "string", "description": "The team that owns it."}}))},
            {"name": "find_releases", "description": "Releases of a project.",
             "inputSchema": object(serde_json::json!({"project": {"type": "string"}}))},
        ]),
    );
    let root_s = root.to_str().unwrap();
    let run = run_in(
        root,
        &[
            "search",
            "--json",
            "--kind",
            "tool",
            "--root",
            root_s,
            "who is in the platform team on github",
        ],
    );
    let json = run.json();
    assert_eq!(ids(&json)[0], "github/get_team_members", "{json}");
    assert_eq!(json["namespaces"][0]["name"], "github", "{json}");
}
