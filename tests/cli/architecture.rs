//! The shape of the source tree, checked: the top-level modules of the
//! library import each other without cycles, no source file grows past
//! 900 lines, and the library builds without the command line's crates.
//!
//! The import graph is read from the source text: every `crate::module`
//! path outside comments and literals (including `use crate::{a, b}`
//! groups) is an edge from the file's top-level module to `module`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const MAX_LINES: usize = 900;

fn source_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            source_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `text` with comments, string literals and char literals blanked out
/// (replaced by spaces), so that only code is left to read paths from.
fn code_only(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    let blank = |out: &mut Vec<u8>, b: u8| out.push(if b == b'\n' { b'\n' } else { b' ' });
    while i < bytes.len() {
        let rest = &bytes[i..];
        if rest.starts_with(b"//") {
            while i < bytes.len() && bytes[i] != b'\n' {
                blank(&mut out, bytes[i]);
                i += 1;
            }
        } else if rest.starts_with(b"/*") {
            let mut depth = 0;
            while i < bytes.len() {
                if bytes[i..].starts_with(b"/*") {
                    depth += 1;
                    out.extend_from_slice(b"  ");
                    i += 2;
                } else if bytes[i..].starts_with(b"*/") {
                    depth -= 1;
                    out.extend_from_slice(b"  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, bytes[i]);
                    i += 1;
                }
            }
        } else if (rest.starts_with(b"r#") || rest.starts_with(b"r\""))
            && (i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_'))
        {
            // A raw string: r"…", r#"…"#, …
            let hashes = rest[1..].iter().take_while(|&&b| b == b'#').count();
            if rest.get(1 + hashes) != Some(&b'"') {
                out.push(bytes[i]);
                i += 1;
                continue;
            }
            let mut close = vec![b'"'];
            close.extend(std::iter::repeat_n(b'#', hashes));
            let start = i;
            i += 2 + hashes;
            while i < bytes.len() && !bytes[i..].starts_with(&close) {
                i += 1;
            }
            i = (i + close.len()).min(bytes.len());
            for &b in &bytes[start..i] {
                blank(&mut out, b);
            }
        } else if bytes[i] == b'"' {
            blank(&mut out, bytes[i]);
            i += 1;
            while i < bytes.len() && bytes[i] != b'"' {
                if bytes[i] == b'\\' {
                    blank(&mut out, bytes[i]);
                    i += 1;
                }
                if i < bytes.len() {
                    blank(&mut out, bytes[i]);
                    i += 1;
                }
            }
            if i < bytes.len() {
                blank(&mut out, bytes[i]);
                i += 1;
            }
        } else if bytes[i] == b'\'' {
            // A char literal ('a', '\n', '\u{1b}', 'é'), or a lifetime.
            let end = if rest.get(1) == Some(&b'\\') {
                rest.iter().skip(2).position(|&b| b == b'\'').map(|p| p + 3)
            } else {
                let width = std::str::from_utf8(&rest[1..rest.len().min(5)])
                    .ok()
                    .or_else(|| {
                        (2..=5)
                            .rev()
                            .find_map(|n| std::str::from_utf8(rest.get(1..n)?).ok())
                    })
                    .and_then(|s| s.chars().next())
                    .map_or(1, char::len_utf8);
                (rest.get(1 + width) == Some(&b'\'')).then_some(2 + width)
            };
            match end {
                Some(end) => {
                    for &b in &rest[..end] {
                        blank(&mut out, b);
                    }
                    i += end;
                }
                None => {
                    out.push(bytes[i]);
                    i += 1;
                }
            }
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The top-level modules `code` names through `crate::`.
fn imports(code: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    for (at, _) in code.match_indices("crate::") {
        if at > 0 {
            let before = code[..at].chars().next_back().unwrap();
            if before.is_alphanumeric() || before == '_' {
                continue; // e.g. `$crate::` or `foo_crate::`
            }
        }
        let rest = code[at + "crate::".len()..].trim_start();
        if let Some(group) = rest.strip_prefix('{') {
            // `crate::{a, b::c, d::{e}}`: the names at depth 0.
            let mut depth = 0;
            let mut expect_name = true;
            let mut chars = group.char_indices();
            while let Some((i, c)) = chars.next() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => expect_name = true,
                    c if c.is_whitespace() => {}
                    _ if expect_name && depth == 0 => {
                        let name = ident(&group[i..]);
                        if !name.is_empty() {
                            found.insert(name.clone());
                            for _ in 1..name.chars().count() {
                                chars.next();
                            }
                        }
                        expect_name = false;
                    }
                    _ => {}
                }
            }
        } else {
            let name = ident(rest);
            if !name.is_empty() {
                found.insert(name);
            }
        }
    }
    found
}

/// The top-level module a file under `src/` belongs to.
fn top_module(src: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(src).unwrap();
    let first = relative.components().next().unwrap();
    let name = first.as_os_str().to_string_lossy();
    name.trim_end_matches(".rs").to_string()
}

/// The first cycle of `graph`, as the modules along it (the first one
/// repeated at the end).
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(node.to_string(), 1);
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            match state.get(next.as_str()).copied().unwrap_or(0) {
                1 => {
                    let start = path.iter().position(|n| n == next).unwrap();
                    let mut cycle = path[start..].to_vec();
                    cycle.push(next.clone());
                    return Some(cycle);
                }
                0 => {
                    if let Some(cycle) = visit(next, graph, state, path) {
                        return Some(cycle);
                    }
                }
                _ => {}
            }
        }
        path.pop();
        state.insert(node.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for node in graph.keys() {
        if state.get(node.as_str()).copied().unwrap_or(0) == 0 {
            if let Some(cycle) = visit(node, graph, &mut state, &mut Vec::new()) {
                return Some(cycle);
            }
        }
    }
    None
}

fn library_graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    source_files(&src, &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let module = top_module(&src, &file);
        // The binary's own modules (`main.rs`, `cli/`) sit above the
        // library and may use all of it.
        if matches!(module.as_str(), "lib" | "main" | "cli") {
            continue;
        }
        let code = code_only(&std::fs::read_to_string(&file).unwrap());
        let edges = graph.entry(module.clone()).or_default();
        for target in imports(&code) {
            // `crate::Catalog` and the like are the crate root's re-exports.
            let is_module = src.join(format!("{target}.rs")).exists() || src.join(&target).is_dir();
            if target != module && is_module {
                edges.insert(target);
            }
        }
    }
    graph
}

#[test]
fn the_library_modules_import_each_other_without_cycles() {
    let graph = library_graph();
    assert!(graph.len() > 5, "too few modules found: {graph:?}");
    if let Some(cycle) = find_cycle(&graph) {
        panic!(
            "import cycle between top-level modules: {}\nthe whole graph: {graph:#?}\nmove what both sides need into a leaf module (hash.rs, text.rs, …) or turn the edge around",
            cycle.join(" -> ")
        );
    }
}

#[test]
fn the_cycle_check_sees_cycles_and_grouped_imports() {
    let code = code_only(
        "use crate::{alpha, beta::{x, y}, gamma::z};\n// crate::commented\nlet s = \"crate::quoted\"; let c = '\"'; fn f<'a>(x: &'a str) { crate::delta::f(); }\nlet r = r#\"crate::raw\"#;",
    );
    assert_eq!(
        imports(&code).into_iter().collect::<Vec<_>>(),
        ["alpha", "beta", "delta", "gamma"]
    );
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    graph.entry("a".into()).or_default().insert("b".into());
    graph.entry("b".into()).or_default().insert("c".into());
    assert_eq!(find_cycle(&graph), None);
    graph.entry("c".into()).or_default().insert("a".into());
    assert_eq!(
        find_cycle(&graph).unwrap(),
        ["a", "b", "c", "a"].map(String::from)
    );
}

#[test]
fn no_source_file_holds_more_than_one_job_of_lines() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    source_files(&src, &mut files);
    let long: Vec<String> = files
        .iter()
        .filter_map(|file| {
            let lines = std::fs::read_to_string(file).unwrap().lines().count();
            let shown = file.strip_prefix(&src).unwrap_or(file);
            (lines > MAX_LINES).then(|| format!("  src/{} ({lines} lines)", shown.display()))
        })
        .collect();
    assert!(
        long.is_empty(),
        "{} source files over {MAX_LINES} lines (split them by job; word lists go to data files):\n{}",
        long.len(),
        long.join("\n")
    );
}

#[test]
fn the_library_builds_without_the_command_lines_crates() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(cargo)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "tree",
            "--offline",
            "--locked",
            "--no-default-features",
            "--edges",
            "normal",
            "--prefix",
            "none",
            "--package",
            "skilldex",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let tree = String::from_utf8(out.stdout).unwrap();
    assert!(tree.contains("serde_json"), "{tree}");
    for name in ["clap ", "anyhow ", "ctrlc "] {
        assert!(
            !tree.lines().any(|line| line.starts_with(name)),
            "the library without default features depends on {name}:\n{tree}"
        );
    }
}
