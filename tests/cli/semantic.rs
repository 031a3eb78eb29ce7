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

    // Random bytes in its place, of the same length or after a whole
    // header, and a block cut in its middle: every vector embedded again,
    // the same answer.
    let whole = std::fs::read(&files[0]).unwrap();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut random = |n: usize| -> Vec<u8> {
        (0..n)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state as u8
            })
            .collect()
    };
    let mut after_header = whole[..28].to_vec();
    after_header.extend(random(whole.len() - 28));
    let cut_mid_block = whole[..28 + 4 + 100].to_vec();
    for (label, bytes) in [
        ("random bytes", random(whole.len())),
        ("random bytes after the header", after_header),
        ("a block cut in its middle", cut_mid_block),
    ] {
        std::fs::write(&files[0], bytes).unwrap();
        let run = search(&root, &cache, &args, "weather tomorrow");
        assert_eq!(run.code, 0, "{label}: {run:?}");
        assert!(
            run.stderr.contains("embedded 6 of 6 skills"),
            "{label}: {run:?}"
        );
        assert_eq!(run.stdout, third.stdout, "{label}");
    }
    // A link to /dev/zero in its place is not read (it never ends) and is
    // replaced by a file.
    #[cfg(unix)]
    {
        std::fs::remove_file(&files[0]).unwrap();
        std::os::unix::fs::symlink("/dev/zero", &files[0]).unwrap();
        let run = search(&root, &cache, &args, "weather tomorrow");
        assert_eq!(run.code, 0, "{run:?}");
        assert!(run.stderr.contains("embedded 6 of 6 skills"), "{run:?}");
        assert!(std::fs::symlink_metadata(&files[0]).unwrap().is_file());
    }
}

/// The test model's folder copied to `to`, with `change` applied to the
/// bytes of `file`.
#[cfg(feature = "semantic")]
fn model_copy(model: &Path, to: &Path, file: &str, change: impl Fn(&mut Vec<u8>)) {
    std::fs::create_dir_all(to).unwrap();
    for name in ["config.json", "tokenizer.json", "model.safetensors"] {
        let mut bytes = std::fs::read(model.join(name)).unwrap();
        if name == file {
            change(&mut bytes);
        }
        std::fs::write(to.join(name), bytes).unwrap();
    }
}

/// Vectors are cached per model, and the model is known by its files'
/// contents: a copy elsewhere shares the cache, a model with one weight
/// changed never gets the other's vectors, not even from a cache file
/// put under its name.
#[cfg(feature = "semantic")]
#[test]
fn a_cache_written_by_another_model_is_never_served() {
    let Some(model) = test_model() else { return };
    let temp = tempfile::tempdir().unwrap();
    let (root, cache) = (temp.path().join("skills"), temp.path().join("cache"));
    catalog(&root);
    let query = "weather tomorrow";
    let with =
        |dir: &Path, cache: &Path| search(&root, cache, &["--model", dir.to_str().unwrap()], query);
    let first = with(&model, &cache);
    assert!(first.stderr.contains("embedded 6 of 6 skills"), "{first:?}");
    // The same files in another folder: the same model, its cache used.
    let same = temp.path().join("same");
    model_copy(&model, &same, "", |_| {});
    let run = with(&same, &cache);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(!run.stderr.contains("embedded"), "{run:?}");
    // One weight changed (the last byte of the file, in the last tensor):
    // another model, every text embedded again.
    let other = temp.path().join("other");
    model_copy(&model, &other, "model.safetensors", |bytes| {
        *bytes.last_mut().unwrap() ^= 0x01;
    });
    let run = with(&other, &cache);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stderr.contains("embedded 6 of 6 skills"), "{run:?}");
    // A config.json that says the same in other bytes is another model too.
    let spaced = temp.path().join("spaced");
    model_copy(&model, &spaced, "config.json", |bytes| bytes.push(b'\n'));
    let run = with(&spaced, &cache);
    assert!(run.stderr.contains("embedded 6 of 6 skills"), "{run:?}");
    // The first model's cache file copied under the other's name (a cache
    // folder shared or copied between machines): not served.
    let own = temp.path().join("own");
    let run = with(&other, &own);
    assert!(run.stderr.contains("embedded 6 of 6 skills"), "{run:?}");
    let file_of = |cache: &Path| -> PathBuf {
        let files: Vec<PathBuf> = std::fs::read_dir(cache.join("embeddings"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert_eq!(files.len(), 1, "{files:?}");
        files[0].clone()
    };
    let theirs = temp.path().join("theirs");
    with(&model, &theirs);
    std::fs::copy(file_of(&theirs), file_of(&own)).unwrap();
    let run = with(&other, &own);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stderr.contains("embedded 6 of 6 skills"), "{run:?}");
    // And once rewritten, its own vectors are served.
    let run = with(&other, &own);
    assert!(!run.stderr.contains("embedded"), "{run:?}");
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

// Broken caches and models (issue 37 part 4). A model that cannot be
// loaded is an error for the CLI's `search` (exit 2) that names the file,
// says what is wrong with it and how to search without it (`--no-model`);
// `serve` logs it and answers by words, saying so. Nothing hangs on a pipe
// or a device, nothing panics (`bounded` checks both).

/// A BERT of our own small enough to write in a test: 4 dimensions, one
/// layer, a word-level tokenizer over `TINY_WORDS`. It loads and ranks
/// (badly); each broken variant below differs from it in one file.
#[cfg(feature = "semantic")]
const TINY_WORDS: [&str; 8] = [
    "[UNK]", "weather", "rain", "city", "flights", "sql", "format", "bug",
];

#[cfg(feature = "semantic")]
fn tiny_config() -> Value {
    serde_json::json!({
        "model_type": "bert", "vocab_size": TINY_WORDS.len(), "hidden_size": 4,
        "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 8,
        "max_position_embeddings": 16, "type_vocab_size": 2, "hidden_act": "gelu",
        "layer_norm_eps": 1e-12
    })
}

/// Tensors by name and shape.
#[cfg(feature = "semantic")]
type Tensors = Vec<(String, Vec<usize>)>;

/// A broken variant: its label, the file replaced and its bytes, and what
/// the error must say.
#[cfg(feature = "semantic")]
type Case<'a> = (&'a str, (&'a str, Vec<u8>), Vec<&'a str>);

/// The tensors (name, shape) `config` implies.
#[cfg(feature = "semantic")]
fn tiny_tensors(config: &Value) -> Tensors {
    let size = |key: &str| config[key].as_u64().unwrap() as usize;
    let (h, i) = (size("hidden_size"), size("intermediate_size"));
    let mut tensors = vec![
        (
            "embeddings.word_embeddings.weight".to_string(),
            vec![size("vocab_size"), h],
        ),
        (
            "embeddings.position_embeddings.weight".to_string(),
            vec![size("max_position_embeddings"), h],
        ),
        (
            "embeddings.token_type_embeddings.weight".to_string(),
            vec![2, h],
        ),
    ];
    let norm = |prefix: &str| {
        [
            (format!("{prefix}.LayerNorm.weight"), vec![h]),
            (format!("{prefix}.LayerNorm.bias"), vec![h]),
        ]
    };
    tensors.extend(norm("embeddings"));
    let dense = |name: String, outputs: usize, inputs: usize| {
        [
            (format!("{name}.weight"), vec![outputs, inputs]),
            (format!("{name}.bias"), vec![outputs]),
        ]
    };
    let l = "encoder.layer.0";
    for part in ["query", "key", "value"] {
        tensors.extend(dense(format!("{l}.attention.self.{part}"), h, h));
    }
    tensors.extend(dense(format!("{l}.attention.output.dense"), h, h));
    tensors.extend(norm(&format!("{l}.attention.output")));
    tensors.extend(dense(format!("{l}.intermediate.dense"), i, h));
    tensors.extend(dense(format!("{l}.output.dense"), h, i));
    tensors.extend(norm(&format!("{l}.output")));
    tensors
}

/// A safetensors file (8-byte little-endian header length, the JSON
/// header, the data) of `tensors` stored as `dtype` (4 bytes a value),
/// filled with small values.
#[cfg(feature = "semantic")]
fn safetensors(tensors: &[(String, Vec<usize>)], dtype: &str) -> Vec<u8> {
    let mut header = serde_json::Map::new();
    let mut data = Vec::new();
    for (name, shape) in tensors {
        let start = data.len();
        for k in 0..shape.iter().product::<usize>() {
            let value = ((k * 7 + name.len()) % 13) as f32 / 13.0 - 0.4;
            data.extend_from_slice(&value.to_le_bytes());
        }
        header.insert(
            name.clone(),
            serde_json::json!({"dtype": dtype, "shape": shape, "data_offsets": [start, data.len()]}),
        );
    }
    let mut header = Value::Object(header).to_string();
    while !header.len().is_multiple_of(8) {
        header.push(' ');
    }
    let mut file = (header.len() as u64).to_le_bytes().to_vec();
    file.extend_from_slice(header.as_bytes());
    file.extend_from_slice(&data);
    file
}

/// A word-level tokenizer.json over `words` (ids in their order).
#[cfg(feature = "semantic")]
fn tiny_tokenizer(words: &[&str]) -> String {
    let vocab: serde_json::Map<String, Value> = words
        .iter()
        .enumerate()
        .map(|(id, word)| (word.to_string(), Value::from(id)))
        .collect();
    serde_json::json!({
        "version": "1.0", "truncation": null, "padding": null, "added_tokens": [],
        "normalizer": {"type": "Lowercase"}, "pre_tokenizer": {"type": "Whitespace"},
        "post_processor": null, "decoder": null,
        "model": {"type": "WordLevel", "vocab": vocab, "unk_token": "[UNK]"}
    })
    .to_string()
}

/// The tiny model in `dir`.
#[cfg(feature = "semantic")]
fn tiny_model(dir: &Path) {
    let config = tiny_config();
    write(dir, "config.json", config.to_string());
    write(dir, "tokenizer.json", tiny_tokenizer(&TINY_WORDS));
    write(
        dir,
        "model.safetensors",
        safetensors(&tiny_tensors(&config), "F32"),
    );
}

/// A broken model makes `search` fail at once with exit 2, naming what is
/// wrong (`expect`, all of them) and how to search without it.
#[cfg(feature = "semantic")]
fn assert_refused(run: &Run, expect: &[&str], label: &str) {
    assert_eq!(run.code, 2, "{label}: {run:?}");
    assert!(run.stdout.is_empty(), "{label}: {run:?}");
    for fragment in expect {
        assert!(
            run.stderr.contains(fragment),
            "{label}: no {fragment:?} in {run:?}"
        );
    }
    assert!(run.stderr.contains("--no-model"), "{label}: {run:?}");
}

#[cfg(feature = "semantic")]
#[test]
fn a_broken_model_folder_is_refused_naming_the_file_and_what_is_wrong() {
    let temp = tempfile::tempdir().unwrap();
    let (root, cache) = (temp.path().join("skills"), temp.path().join("cache"));
    catalog(&root);
    let good = temp.path().join("good");
    tiny_model(&good);
    let run = search(
        &root,
        &cache,
        &["--model", good.to_str().unwrap()],
        "weather in my city",
    );
    assert_eq!(run.code, 0, "the tiny model loads: {run:?}");
    assert_eq!(run.json()["mode"], "semantic", "{run:?}");

    let config = tiny_config();
    let tensors = tiny_tensors(&config);
    let with_config = |change: &dyn Fn(&mut Value)| {
        let mut changed = config.clone();
        change(&mut changed);
        ("config.json", changed.to_string().into_bytes())
    };
    let with_tensors = |change: &dyn Fn(&mut Tensors)| {
        let mut changed = tensors.clone();
        change(&mut changed);
        ("model.safetensors", safetensors(&changed, "F32"))
    };
    let weights = safetensors(&tensors, "F32");
    let mut absurd_header = u64::MAX.to_le_bytes().to_vec();
    absurd_header.extend_from_slice(&weights[8..]);
    let mut longer_vocab: Vec<&str> = TINY_WORDS.to_vec();
    longer_vocab.extend(["alpha", "beta", "gamma"]);
    let cases: Vec<Case> = vec![
        (
            "tokenizer not JSON",
            ("tokenizer.json", b"{\"model\": ".to_vec()),
            vec!["tokenizer.json", "not a tokenizer"],
        ),
        (
            "tokenizer of the wrong shape",
            ("tokenizer.json", b"{\"model\": 5}".to_vec()),
            vec!["tokenizer.json", "not a tokenizer"],
        ),
        (
            "tokenizer a list",
            ("tokenizer.json", b"[]".to_vec()),
            vec!["tokenizer.json", "not a tokenizer"],
        ),
        (
            "tokenizer vocabulary past the embeddings",
            ("tokenizer.json", tiny_tokenizer(&longer_vocab).into_bytes()),
            vec!["tokenizer.json", "11 tokens", "vocab_size 8"],
        ),
        (
            "weights cut short",
            ("model.safetensors", weights[..weights.len() / 2].to_vec()),
            vec!["model.safetensors", "not a safetensors file"],
        ),
        (
            "weights not safetensors",
            (
                "model.safetensors",
                b"PK\x03\x04 a zip, not weights".to_vec(),
            ),
            vec!["model.safetensors", "not a safetensors file"],
        ),
        (
            "weights header length absurd",
            ("model.safetensors", absurd_header),
            vec!["model.safetensors", "not a safetensors file"],
        ),
        (
            "weights empty",
            ("model.safetensors", Vec::new()),
            vec!["model.safetensors", "not a safetensors file"],
        ),
        (
            "a tensor of a wrong dimension",
            with_tensors(&|t| t[0].1[1] = 5),
            vec!["model.safetensors", "word_embeddings.weight", "[8, 5]"],
        ),
        (
            "a tensor missing",
            with_tensors(&|t| t.retain(|(n, _)| n != "encoder.layer.0.output.dense.weight")),
            vec![
                "model.safetensors",
                "no tensor `encoder.layer.0.output.dense.weight`",
            ],
        ),
        (
            "tensors of integers",
            ("model.safetensors", safetensors(&tensors, "I32")),
            vec!["model.safetensors", "I32"],
        ),
        (
            "hidden_size 0",
            with_config(&|c| c["hidden_size"] = 0.into()),
            vec!["config.json: hidden_size"],
        ),
        (
            "num_hidden_layers 10^9",
            with_config(&|c| c["num_hidden_layers"] = 1_000_000_000u64.into()),
            vec!["config.json: num_hidden_layers"],
        ),
        (
            "intermediate_size 10^12",
            with_config(&|c| c["intermediate_size"] = 1_000_000_000_000u64.into()),
            vec!["config.json: intermediate_size"],
        ),
        (
            "num_attention_heads 10^12",
            with_config(&|c| c["num_attention_heads"] = 1_000_000_000_000u64.into()),
            vec!["config.json: num_attention_heads"],
        ),
        (
            "vocab_size other than the weights'",
            with_config(&|c| c["vocab_size"] = 9.into()),
            vec!["model.safetensors", "word_embeddings.weight", "[9, 4]"],
        ),
        (
            "layer_norm_eps negative",
            with_config(&|c| c["layer_norm_eps"] = (-1.0).into()),
            vec!["config.json: layer_norm_eps"],
        ),
        (
            "config not an object",
            ("config.json", b"[1, 2]".to_vec()),
            vec!["config.json:1:"],
        ),
    ];
    let count = cases.len();
    for (label, (file, bytes), expect) in cases {
        let dir = temp.path().join(label.replace(' ', "-"));
        tiny_model(&dir);
        std::fs::write(dir.join(file), bytes).unwrap();
        let run = search(
            &root,
            &cache,
            &["--model", dir.to_str().unwrap()],
            "weather in my city",
        );
        assert_refused(&run, &expect, label);
    }
    assert_eq!(count, 18);
}

/// `--model` or `SKILLDEX_MODEL` naming something that is not a model
/// folder, or a folder whose files are pipes or devices: refused at once
/// (nothing is opened that could block, nothing read that never ends).
#[cfg(all(unix, feature = "semantic"))]
#[test]
fn a_model_that_is_a_pipe_or_a_device_is_refused_at_once() {
    let temp = tempfile::tempdir().unwrap();
    let (root, cache) = (temp.path().join("skills"), temp.path().join("cache"));
    catalog(&root);
    let fifo = |path: &Path| {
        let made = std::process::Command::new("mkfifo")
            .arg(path)
            .status()
            .unwrap();
        assert!(made.success());
    };
    let pipe = temp.path().join("pipe");
    fifo(&pipe);
    let file = write(temp.path(), "model.bin", "not a folder");
    let folder_with = |name: &str, file: &str, make: &dyn Fn(&Path)| {
        let dir = temp.path().join(name);
        tiny_model(&dir);
        let path = dir.join(file);
        std::fs::remove_file(&path).ok();
        make(&path);
        dir
    };
    let zero = |path: &Path| std::os::unix::fs::symlink("/dev/zero", path).unwrap();
    let cases: Vec<(&str, PathBuf, Vec<&str>)> = vec![
        ("a FIFO", pipe.clone(), vec!["named pipe", "not a folder"]),
        (
            "/dev/zero",
            PathBuf::from("/dev/zero"),
            vec!["/dev/zero", "character device", "not a folder"],
        ),
        (
            "/dev/null",
            PathBuf::from("/dev/null"),
            vec!["/dev/null", "character device", "not a folder"],
        ),
        (
            "a file",
            file.clone(),
            vec!["model.bin", "a file, not a folder"],
        ),
        (
            "weights a FIFO",
            folder_with("fifo-weights", "model.safetensors", &|p| fifo(p)),
            vec!["model.safetensors", "named pipe"],
        ),
        (
            "weights a link to /dev/zero",
            folder_with("zero-weights", "model.safetensors", &zero),
            vec!["model.safetensors", "character device"],
        ),
        (
            "tokenizer a link to /dev/zero",
            folder_with("zero-tokenizer", "tokenizer.json", &zero),
            vec!["tokenizer.json", "character device"],
        ),
        (
            "config a FIFO",
            folder_with("fifo-config", "config.json", &|p| fifo(p)),
            vec!["config.json", "named pipe"],
        ),
        (
            "config a folder",
            folder_with("folder-config", "config.json", &|p| {
                std::fs::create_dir(p).unwrap()
            }),
            vec!["config.json", "a folder"],
        ),
        (
            "sentence_bert_config.json a FIFO",
            folder_with("fifo-sbert", "sentence_bert_config.json", &|p| fifo(p)),
            vec!["sentence_bert_config.json", "named pipe"],
        ),
        (
            "sentence_bert_config.json a link to /dev/zero",
            folder_with("zero-sbert", "sentence_bert_config.json", &zero),
            vec!["sentence_bert_config.json", "character device"],
        ),
    ];
    for (label, model, expect) in &cases {
        let run = search(
            &root,
            &cache,
            &["--model", model.to_str().unwrap()],
            "weather",
        );
        assert_refused(&run, expect, label);
    }
    // The variable is refused the same way.
    for (label, model, expect) in [&cases[0], &cases[1], &cases[4]] {
        let mut command = skilldex();
        command
            .args(["search", "--json", "--root"])
            .arg(&root)
            .arg("--cache-dir")
            .arg(&cache)
            .env("SKILLDEX_MODEL", model)
            .args(["--", "weather"]);
        assert_refused(
            &bounded(command),
            expect,
            &format!("SKILLDEX_MODEL {label}"),
        );
    }
}

/// `serve` with a model that cannot be loaded still answers: by words,
/// saying semantic search is off (the log says why).
#[cfg(all(feature = "mcp", unix))]
#[test]
fn serve_with_a_broken_model_answers_by_words_and_says_why() {
    use serde_json::Value;
    let temp = tempfile::tempdir().unwrap();
    let (root, cache) = (temp.path().join("skills"), temp.path().join("cache"));
    catalog(&root);
    write(
        &root,
        "weather/mcp-tools.json",
        serde_json::json!({"server": {"description": "Weather data for places."},
            "tools": [{"name": "get_forecast", "description": "Forecast of rain and wind for a city.",
                "inputSchema": {"type": "object"}}]})
        .to_string(),
    );
    let model = temp.path().join("model");
    std::fs::create_dir_all(&model).unwrap();
    for file in ["config.json", "tokenizer.json"] {
        std::fs::write(model.join(file), "{").unwrap();
    }
    std::os::unix::fs::symlink("/dev/zero", model.join("model.safetensors")).unwrap();
    let mut raw = super::mcp::Raw::spawn(
        &root,
        &[
            "--no-watch",
            "--model",
            model.to_str().unwrap(),
            "--cache-dir",
            cache.to_str().unwrap(),
        ],
        std::process::Stdio::piped(),
    );
    let answer = raw.request(
        "initialize",
        serde_json::json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}),
    );
    assert!(answer.get("result").is_some(), "{answer}");
    raw.send(
        &serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
    );
    let (is_error, text) = raw.call(
        "search_skills",
        serde_json::json!({"query": "weather forecast"}),
    );
    assert!(!is_error, "{text}");
    let answer: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(answer["results"][0]["name"], "weather-forecast", "{text}");
    assert_eq!(answer["mode"], "lexical", "{text}");
    let note = answer["note"].as_str().unwrap_or_default();
    assert!(note.contains("semantic search is off"), "{text}");
    // The answer does not say where the model is; the log does.
    assert!(!text.contains(model.to_str().unwrap()), "{text}");
    let (is_error, text) = raw.call("tool_search", serde_json::json!({"query": "rain forecast"}));
    assert!(!is_error, "{text}");
    let answer: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(answer["tools"][0]["id"], "weather/get_forecast", "{text}");
    assert!(
        answer["note"]
            .as_str()
            .unwrap_or_default()
            .contains("semantic search is off"),
        "{text}"
    );
    let (status, _, stderr) = raw.close();
    assert!(status.success(), "{status:?}\n{stderr}");
    assert!(stderr.contains("semantic search is off"), "{stderr}");
    if cfg!(feature = "semantic") {
        assert!(stderr.contains("config.json"), "{stderr}");
    }
    assert!(!stderr.contains("panicked"), "{stderr}");
}
