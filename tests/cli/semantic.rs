//! The semantic search mode from the command line and over MCP: `--model`,
//! `SKILLDEX_MODEL` and `search.model`, the embedding cache, honest flags,
//! `model fetch` against a local server, and the errors that say what to do.
//!
//! Tests that run the model need `target/test-model`
//! (`scripts/fetch-test-model.sh`); without it they print why and pass,
//! unless `SKILLDEX_REQUIRE_MODEL` is set (as `.ci/run` does), when they fail.

use super::{bounded, skill_md, skilldex, write, Run};
#[cfg(feature = "semantic")]
use serde_json::Value;
use std::path::Path;
#[cfg(feature = "semantic")]
use std::path::PathBuf;

/// The test model, or None (with the reason printed) when it is absent and
/// not required.
#[cfg(feature = "semantic")]
#[allow(clippy::print_stderr)]
fn test_model() -> Option<PathBuf> {
    let dir = super::repo().join("target/test-model");
    if dir.join("model.safetensors").is_file() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("SKILLDEX_REQUIRE_MODEL").is_none(),
        "SKILLDEX_REQUIRE_MODEL is set but {} has no model — run scripts/fetch-test-model.sh",
        dir.display()
    );
    eprintln!(
        "skipped: no test model in {} (run scripts/fetch-test-model.sh)",
        dir.display()
    );
    None
}

/// A small catalog in our own words: what a few tools do, none of it in
/// the words the queries below use.
fn catalog(root: &Path) {
    for (namespace, name, description) in [
        (
            "money",
            "currency-converter",
            "Convert an amount between two currencies at the latest exchange rates.",
        ),
        (
            "money",
            "invoice-builder",
            "Create invoices with line items, taxes and due dates as PDF.",
        ),
        (
            "travel",
            "weather-forecast",
            "Forecast of temperature, rain and wind for a city for the next days.",
        ),
        (
            "travel",
            "flight-finder",
            "Find flights between airports, with prices and stops.",
        ),
        (
            "code",
            "git-bisect",
            "Find the commit that introduced a bug by bisecting the history.",
        ),
        (
            "code",
            "sql-formatter",
            "Format and indent SQL queries so they are easy to read.",
        ),
    ] {
        write(
            root,
            &format!("{namespace}/{name}/SKILL.md"),
            skill_md(name, description),
        );
    }
}

fn search(root: &Path, cache: &Path, extra: &[&str], query: &str) -> Run {
    let mut command = skilldex();
    command
        .args(["search", "--json", "--root"])
        .arg(root)
        .arg("--cache-dir")
        .arg(cache)
        .args(extra)
        .args(["--", query])
        .env_remove("SKILLDEX_MODEL");
    bounded(command)
}

#[cfg(feature = "semantic")]
fn names(json: &Value) -> Vec<String> {
    json["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| r["name"].as_str().unwrap().to_string())
        .collect()
}

#[cfg(feature = "semantic")]
#[test]
fn meaning_finds_a_skill_that_shares_no_word_with_the_request_and_flags_it_low() {
    let Some(model) = test_model() else { return };
    let temp = tempfile::tempdir().unwrap();
    let (root, cache) = (temp.path().join("skills"), temp.path().join("cache"));
    catalog(&root);
    let query = "how many yen would I get for 50 euros";
    let lexical = search(&root, &cache, &[], query);
    assert_eq!(lexical.json()["no_match"], true, "{lexical:?}");
    assert!(lexical.json().get("mode").is_none());

    let model_arg = model.to_str().unwrap();
    let run = search(&root, &cache, &["--model", model_arg], query);
    assert_eq!(run.code, 0, "{run:?}");
    let json = run.json();
    assert_eq!(json["mode"], "semantic");
    assert_eq!(names(&json)[0], "currency-converter", "{json:#}");
    // Found by meaning alone: never a sure answer.
    assert_eq!(json["confidence"], "low");
    assert_eq!(json["results"][0]["confidence"], "low");

    // A request no skill serves stays unsure (or no match).
    let run = search(
        &root,
        &cache,
        &["--model", model_arg],
        "knit a sweater for my nephew",
    );
    let json = run.json();
    assert!(
        json["no_match"] == true || json["confidence"] == "low",
        "{json:#}"
    );

    // A request the words answer keeps its sure answer first.
    let run = search(&root, &cache, &["--model", model_arg], "format sql queries");
    let json = run.json();
    assert_eq!(names(&json)[0], "sql-formatter");
    assert_eq!(json["results"][0]["confidence"], "high");

    // The text output says the same.
    let mut command = skilldex();
    command
        .args(["search", "--root"])
        .arg(&root)
        .arg("--cache-dir")
        .arg(&cache)
        .args(["--model", model_arg, "--", query]);
    let text = bounded(command);
    assert!(text.stdout.contains("currency-converter"), "{text:?}");
    assert!(!text.stdout.lines().next().unwrap_or("").is_empty());
}

#[cfg(feature = "semantic")]
#[test]
fn the_cache_embeds_only_new_texts_and_survives_corruption() {
    let Some(model) = test_model() else { return };
    let temp = tempfile::tempdir().unwrap();
    let (root, cache) = (temp.path().join("skills"), temp.path().join("cache"));
    catalog(&root);
    let model_arg = model.to_str().unwrap();
    let args = ["--model", model_arg];
    let first = search(&root, &cache, &args, "weather tomorrow");
    assert_eq!(first.code, 0, "{first:?}");
    assert!(first.stderr.contains("embedded 6 of 6 skills"), "{first:?}");
    let second = search(&root, &cache, &args, "weather tomorrow");
    assert!(!second.stderr.contains("embedded"), "{second:?}");
    assert_eq!(first.stdout, second.stdout, "same files, same bytes");

    // One skill changes: one embedding.
    write(
        &root,
        "travel/weather-forecast/SKILL.md",
        skill_md(
            "weather-forecast",
            "Hourly forecast of rain and sun for any town.",
        ),
    );
    let third = search(&root, &cache, &args, "weather tomorrow");
    assert!(third.stderr.contains("embedded 1 of 6 skills"), "{third:?}");

    // The cache is a journal: that one vector was appended as a block of
    // its own. A torn last block (a write cut short) loses only itself.
    let files: Vec<PathBuf> = std::fs::read_dir(cache.join("embeddings"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let bytes = std::fs::read(&files[0]).unwrap();
    std::fs::write(&files[0], &bytes[..bytes.len() - 3]).unwrap();
    let torn = search(&root, &cache, &args, "weather tomorrow");
    assert_eq!(torn.code, 0, "{torn:?}");
    assert!(torn.stderr.contains("embedded 1 of 6 skills"), "{torn:?}");
    assert_eq!(torn.stdout, third.stdout);

    // A damaged cache file is ignored and rewritten, never fatal.
    let mut bytes = std::fs::read(&files[0]).unwrap();
    bytes.truncate(bytes.len() / 2);
    std::fs::write(&files[0], bytes).unwrap();
    let fourth = search(&root, &cache, &args, "weather tomorrow");
    assert_eq!(fourth.code, 0, "{fourth:?}");
    assert!(
        fourth.stderr.contains("embedded 6 of 6 skills"),
        "{fourth:?}"
    );
    assert_eq!(fourth.stdout, third.stdout);
}

/// Three tool servers in our own words.
#[cfg(feature = "semantic")]
fn tool_servers(root: &Path) {
    for (server, description, tools) in [
        (
            "weather",
            "Weather data for places.",
            vec![
                (
                    "get_forecast",
                    "Forecast of temperature, rain and wind for a city over the next days.",
                ),
                (
                    "get_alerts",
                    "Storm and flood warnings issued for a region.",
                ),
            ],
        ),
        (
            "files",
            "The local file system.",
            vec![
                ("read_text_file", "Read a text file from disk."),
                ("list_directory", "List the entries of a folder."),
            ],
        ),
        (
            "mail",
            "An email account.",
            vec![("send_message", "Send an email to a recipient.")],
        ),
    ] {
        let tools: Vec<Value> = tools
            .iter()
            .map(|(name, text)| {
                serde_json::json!({"name": name, "description": text,
                    "inputSchema": {"type": "object", "properties": {"place": {"type": "string"}}}})
            })
            .collect();
        let value = serde_json::json!({"server": {"description": description}, "tools": tools});
        write(root, &format!("{server}/mcp-tools.json"), value.to_string());
    }
}

#[cfg(feature = "semantic")]
#[test]
fn tools_are_embedded_and_ranked_by_meaning_in_tool_and_mixed_searches() {
    let Some(model) = test_model() else { return };
    let temp = tempfile::tempdir().unwrap();
    let (root, cache) = (temp.path().join("catalog"), temp.path().join("cache"));
    catalog(&root);
    tool_servers(&root);
    let model_arg = model.to_str().unwrap();
    let query = "is a hurricane coming";
    let ids = |json: &Value| -> Vec<String> {
        json["results"]
            .as_array()
            .expect("results")
            .iter()
            .map(|r| r["id"].as_str().unwrap().to_string())
            .collect()
    };
    let lexical = search(&root, &cache, &["--kind", "tool"], query);
    assert_eq!(lexical.json()["no_match"], true, "{lexical:?}");
    let run = search(
        &root,
        &cache,
        &["--kind", "tool", "--model", model_arg],
        query,
    );
    assert_eq!(run.code, 0, "{run:?}");
    // Skills and tools embedded on the first search, then cached.
    assert!(
        run.stderr.contains("embedded 11 of 11 skills and tools"),
        "{run:?}"
    );
    let json = run.json();
    assert_eq!(json["mode"], "semantic", "{json:#}");
    assert_eq!(ids(&json)[0], "weather/get_alerts", "{json:#}");
    assert_eq!(json["results"][0]["confidence"], "low", "{json:#}");

    // A mixed search ranks the tool and the skills on one scale.
    let mixed = search(&root, &cache, &["--model", model_arg], query);
    assert!(!mixed.stderr.contains("embedded"), "{mixed:?}");
    let found = ids(&mixed.json());
    assert!(
        found.iter().take(3).any(|id| id == "weather/get_alerts"),
        "{found:?}"
    );
    // Words still decide between tools that mean the same.
    let run = search(
        &root,
        &cache,
        &["--kind", "tool", "--model", model_arg],
        "read_text_file",
    );
    let json = run.json();
    assert_eq!(ids(&json)[0], "files/read_text_file", "{json:#}");
    assert_eq!(json["results"][0]["confidence"], "high", "{json:#}");
}

#[cfg(all(feature = "semantic", feature = "mcp"))]
#[test]
fn disabled_skills_found_by_meaning_are_named_apart_over_mcp() {
    let Some(model) = test_model() else { return };
    let temp = tempfile::tempdir().unwrap();
    let (root, cache) = (temp.path().join("skills"), temp.path().join("cache"));
    catalog(&root);
    let config = temp.path().join("skilldex.yaml");
    std::fs::write(&config, "disabled: [currency-converter]\n").unwrap();
    let mut raw = super::mcp::Raw::start(
        &root,
        &[
            "--no-watch",
            "--config",
            config.to_str().unwrap(),
            "--model",
            model.to_str().unwrap(),
            "--cache-dir",
            cache.to_str().unwrap(),
        ],
    );
    // No word in common with the disabled skill: only its meaning finds it.
    // While the vectors are still being embedded the answer is lexical and
    // says so; it turns semantic once they are.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    let answer = loop {
        let (is_error, text) = raw.call(
            "search_skills",
            serde_json::json!({"query": "how many yen would I get for 50 euros"}),
        );
        assert!(!is_error, "{text}");
        let answer: Value = serde_json::from_str(&text).unwrap();
        if answer["mode"] == "semantic" {
            break answer;
        }
        assert_eq!(answer["mode"], "lexical", "{text}");
        assert!(
            answer["note"]
                .as_str()
                .unwrap_or_default()
                .contains("still being built"),
            "{text}"
        );
        assert!(
            std::time::Instant::now() < deadline,
            "never semantic: {text}"
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    };
    let text = answer.to_string();
    assert_eq!(
        answer["disabled_matches"][0]["id"], "currency-converter",
        "{text}"
    );
}

#[cfg(feature = "semantic")]
#[test]
fn the_model_comes_from_the_variable_or_the_configuration_file() {
    let Some(model) = test_model() else { return };
    let temp = tempfile::tempdir().unwrap();
    let (root, cache) = (temp.path().join("skills"), temp.path().join("cache"));
    catalog(&root);
    let query = "how many yen would I get for 50 euros";
    let mut command = skilldex();
    command
        .args(["search", "--json", "--root"])
        .arg(&root)
        .arg("--cache-dir")
        .arg(&cache)
        .env("SKILLDEX_MODEL", &model)
        .args(["--", query]);
    let run = bounded(command);
    assert_eq!(run.json()["mode"], "semantic", "{run:?}");

    let config = temp.path().join("skilldex.yaml");
    std::fs::write(&config, format!("search:\n  model: {}\n", model.display())).unwrap();
    let mut command = skilldex();
    command
        .args(["search", "--json", "--config"])
        .arg(&config)
        .arg("--root")
        .arg(&root)
        .arg("--cache-dir")
        .arg(&cache)
        .env_remove("SKILLDEX_MODEL")
        .args(["--", query]);
    let run = bounded(command);
    assert_eq!(run.json()["mode"], "semantic", "{run:?}");
    // --no-model wins over the configuration.
    let mut command = skilldex();
    command
        .args(["search", "--json", "--no-model", "--config"])
        .arg(&config)
        .arg("--root")
        .arg(&root)
        .env_remove("SKILLDEX_MODEL")
        .args(["--", query]);
    let run = bounded(command);
    assert!(run.json().get("mode").is_none(), "{run:?}");
}

#[test]
fn a_missing_or_broken_model_folder_says_what_is_missing_and_how_to_get_it() {
    let temp = tempfile::tempdir().unwrap();
    let (root, cache) = (temp.path().join("skills"), temp.path().join("cache"));
    catalog(&root);
    let empty = temp.path().join("model");
    std::fs::create_dir_all(&empty).unwrap();
    std::fs::write(empty.join("config.json"), "{}").unwrap();
    let run = search(
        &root,
        &cache,
        &["--model", empty.to_str().unwrap()],
        "weather",
    );
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stdout.is_empty(), "{run:?}");
    if cfg!(feature = "semantic") {
        assert!(run.stderr.contains("no tokenizer.json"), "{run:?}");
        assert!(run.stderr.contains("model fetch --dir"), "{run:?}");
        let gone = temp.path().join("nowhere");
        let run = search(
            &root,
            &cache,
            &["--model", gone.to_str().unwrap()],
            "weather",
        );
        assert_eq!(run.code, 2, "{run:?}");
        assert!(run.stderr.contains("does not exist"), "{run:?}");
    } else {
        assert!(run.stderr.contains("--features semantic"), "{run:?}");
    }
}

/// Serves `files` (name → body) under `/{repo}/resolve/main/` on 127.0.0.1
/// for at most `connections` connections; other paths get 404.
#[cfg(feature = "semantic")]
fn local_hub(files: Vec<(&'static str, Vec<u8>)>, connections: usize) -> String {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(connections) {
            let Ok(mut stream) = stream else { continue };
            let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(10)));
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut request = String::new();
            if reader.read_line(&mut request).is_err() {
                continue;
            }
            loop {
                let mut header = String::new();
                if reader.read_line(&mut header).map_or(true, |n| n == 0) || header == "\r\n" {
                    break;
                }
            }
            let path = request.split_whitespace().nth(1).unwrap_or("");
            let body = files
                .iter()
                .find(|(name, _)| path == format!("/o/good/resolve/main/{name}"))
                .map(|(_, body)| body.clone());
            let response = match &body {
                Some(body) => format!(
                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                ),
                None => "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    .to_string(),
            };
            let _ = stream.write_all(response.as_bytes());
            if let Some(body) = body {
                let _ = stream.write_all(&body);
            }
        }
    });
    format!("http://{address}")
}

#[cfg(feature = "semantic")]
#[test]
fn model_fetch_downloads_the_three_files_and_reports_a_missing_repository() {
    let temp = tempfile::tempdir().unwrap();
    let endpoint = local_hub(
        vec![
            ("config.json", b"{\"model_type\": \"bert\"}".to_vec()),
            ("tokenizer.json", b"{}".to_vec()),
            ("model.safetensors", vec![7u8; 100_000]),
        ],
        8,
    );
    let dir = temp.path().join("m");
    let mut command = skilldex();
    command
        .args(["model", "fetch", "--repo", "o/good", "--dir"])
        .arg(&dir)
        .env("HF_ENDPOINT", &endpoint);
    let run = bounded(command);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.stdout.trim(), dir.to_str().unwrap());
    assert_eq!(
        std::fs::read(dir.join("model.safetensors")).unwrap().len(),
        100_000
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("tokenizer.json")).unwrap(),
        "{}"
    );

    let other = temp.path().join("n");
    let mut command = skilldex();
    command
        .args(["model", "fetch", "--repo", "o/missing", "--dir"])
        .arg(&other)
        .env("HF_ENDPOINT", &endpoint);
    let run = bounded(command);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("answered 404"), "{run:?}");
    assert!(run.stderr.contains("check --repo"), "{run:?}");
    assert!(!other.join("config.json").exists());

    let mut command = skilldex();
    command
        .args(["model", "fetch", "--repo", "../etc", "--dir"])
        .arg(&other);
    let run = bounded(command);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stderr.contains("owner/name"), "{run:?}");
}

#[cfg(all(feature = "semantic", feature = "mcp"))]
#[test]
fn search_skills_over_mcp_ranks_by_meaning_and_embeds_only_what_changed() {
    let Some(model) = test_model() else { return };
    let temp = tempfile::tempdir().unwrap();
    let (root, cache) = (temp.path().join("skills"), temp.path().join("cache"));
    catalog(&root);
    super::mcp::run_script(
        "semantic.py",
        &[
            "--binary",
            env!("CARGO_BIN_EXE_skilldex"),
            "--root",
            root.to_str().unwrap(),
            "--model",
            model.to_str().unwrap(),
            "--cache-dir",
            cache.to_str().unwrap(),
            "--stderr",
            temp.path().join("serve.log").to_str().unwrap(),
        ],
    );
}

/// `eval` asks the catalog as configured: with a model, by meaning, so a
/// request that shares no word with its skill is found.
#[cfg(feature = "semantic")]
#[test]
fn eval_scores_the_semantic_ranking_when_a_model_is_given() {
    let Some(model) = test_model() else { return };
    let temp = tempfile::tempdir().unwrap();
    let (root, cache) = (temp.path().join("skills"), temp.path().join("cache"));
    catalog(&root);
    let file = temp.path().join("q.jsonl");
    std::fs::write(
        &file,
        "{\"eval\": {\"min_r1\": 1}}\n{\"query\": \"how many yen would I get for 50 euros\", \"expect\": [\"currency-converter\"]}\n",
    )
    .unwrap();
    let eval = |extra: &[&str]| {
        let mut command = skilldex();
        command
            .arg("eval")
            .arg(&file)
            .arg("--json")
            .arg("--root")
            .arg(&root)
            .arg("--cache-dir")
            .arg(&cache)
            .args(extra)
            .env_remove("SKILLDEX_MODEL");
        bounded(command)
    };
    let lexical = eval(&[]);
    assert_eq!(lexical.code, 1, "{lexical:?}");
    assert_eq!(lexical.json()["mode"], "lexical");
    let semantic = eval(&["--model", model.to_str().unwrap()]);
    assert_eq!(semantic.code, 0, "{semantic:?}");
    assert_eq!(semantic.json()["mode"], "semantic");
    assert_eq!(semantic.json()["r1"], 1.0);
}
