//! The shapes of a search answer: its `--json` form (also the MCP tool's),
//! deferred-loading tool specs, and the sentence that says what a weak
//! answer or a miss means.

use super::{select_list, Confidence, EntryKind, SearchResults};
use crate::catalog::Catalog;
use crate::paths::display_path;
use crate::paths::PathStyle;
use serde_json::{json, Value};

/// What an answer means, in words for a person or a model: the CLI's text
/// output and the MCP tool's `advice` say the same. `None` for a sure
/// answer.
pub fn advice(results: &SearchResults, kind: Option<EntryKind>) -> Option<&'static str> {
    let selection = select_list(&results.query).is_some();
    // What the answer is about: the kind asked for, else the kind of
    // every hit (both when they are mixed or there are none).
    let about = kind.or_else(|| {
        let first = results.hits.first()?.kind;
        results
            .hits
            .iter()
            .all(|h| h.kind == first)
            .then_some(first)
    });
    if results.no_match {
        Some(match (about, selection) {
            (Some(EntryKind::Skill), true) => "No skill has any of these names.",
            (Some(EntryKind::Tool), true) => "No tool has any of these names.",
            (None, true) => "No skill or tool has any of these names.",
            (Some(EntryKind::Skill), false) => "No skill shares a meaningful word with this query. Try other words (what the task does, not how) or look at the namespaces listed; do not pick a skill that does not fit.",
            (Some(EntryKind::Tool), false) => "No tool shares a meaningful word with this query. Try other words (what the task does, not how) or a server's name; do not call a tool that does not fit.",
            (None, false) => "No skill or tool shares a meaningful word with this query. Try other words (what the task does, not how) or look at the namespaces listed; do not pick one that does not fit.",
        })
    } else if results.confidence == Confidence::Low && !selection {
        Some(match about {
            Some(EntryKind::Skill) => "Weak matches: these skills match little of what the query is about (confidence: low). Read a description before relying on one; if none fits, do the task without a skill.",
            Some(EntryKind::Tool) => "Weak matches: these tools match little of what the query is about (confidence: low). Read a description before calling one; if none fits, do the task without one.",
            None => "Weak matches: these skills and tools match little of what the query is about (confidence: low). Read a description before relying on one; if none fits, do the task without them.",
        })
    } else {
        None
    }
}

/// A score for JSON: the three decimals it was rounded to, not the binary
/// expansion of the `f32` (`0.232`, not `0.23199999332427979`).
fn json_score(score: f32) -> f64 {
    format!("{score:.3}").parse().unwrap_or(0.0)
}

/// The `--json` shape of a search answer: each result has its `kind`
/// (`skill` or `tool`) and `id`.
pub fn results_json(catalog: &Catalog, results: &SearchResults, paths: PathStyle) -> Value {
    let base = std::env::current_dir().unwrap_or_default();
    let skills = catalog.skills();
    let mut value = json!({
        "query": results.query,
        "results": results.hits.iter().filter_map(|h| Some(match h.kind {
            EntryKind::Skill => {
                let s = skills.get(h.index)?;
                json!({
                    "kind": "skill",
                    "id": s.id,
                    "name": s.name,
                    "namespace": s.namespace,
                    "description": s.description,
                    "path": display_path(&s.path, paths, &base),
                    "score": json_score(h.score),
                    "confidence": h.confidence.as_str(),
                })
            }
            EntryKind::Tool => {
                let (server, tool) = catalog.tool_at(h.index)?;
                json!({
                    "kind": "tool",
                    "id": tool.id,
                    "name": tool.name,
                    "server": server.name,
                    "title": tool.title,
                    "description": tool.description,
                    "path": display_path(&server.path, paths, &base),
                    "score": json_score(h.score),
                    "confidence": h.confidence.as_str(),
                })
            }
        })).collect::<Vec<_>>(),
        "namespaces": results.namespaces.iter().map(|n| json!({"name": n.name, "score": json_score(n.score)})).collect::<Vec<_>>(),
        "no_match": results.no_match,
        "confidence": results.confidence.as_str(),
        "unmatched_terms": results.unmatched_terms,
        "weak_terms": results.weak_terms,
    });
    // Only in the semantic mode, so lexical answers stay as they were.
    if results.semantic {
        value["mode"] = json!("semantic");
    }
    value
}

/// Search results as Responses-API `namespace` tools of deferred-loading
/// functions: a skill's namespace holds a function per skill (calling it
/// returns the skill's instructions), a tool server's namespace holds its
/// tools with their sanitised `parameters`. A host registers them; the
/// model loads a schema only when it needs it.
pub fn tool_specs(catalog: &Catalog, results: &SearchResults) -> Value {
    let skills = catalog.skills();
    let mut groups: Vec<(String, Vec<Value>)> = Vec::new();
    let mut servers: Vec<(&crate::toolcat::ToolNamespace, Vec<Value>)> = Vec::new();
    for hit in &results.hits {
        if hit.kind == EntryKind::Tool {
            let Some((server, tool)) = catalog.tool_at(hit.index) else {
                continue;
            };
            let function = super::specs::openai_function(tool, true);
            match servers.iter_mut().find(|(s, _)| s.name == server.name) {
                Some((_, tools)) => tools.push(function),
                None => servers.push((server, vec![function])),
            }
            continue;
        }
        let Some(s) = skills.get(hit.index) else {
            continue;
        };
        let tool = json!({
            "type": "function",
            "name": tool_name(&s.id),
            "description": cap_description(&format!("{} (Skill `{}`; calling this tool returns its instructions.)", s.description, s.id), "A skill."),
            "defer_loading": true,
            "parameters": {
                "type": "object",
                "properties": {
                    "section": {
                        "type": "string",
                        "description": "Heading of one section to read instead of the whole skill.",
                    },
                    "path": {
                        "type": "string",
                        "description": "A file inside the skill folder to read instead of SKILL.md, relative to the folder.",
                    },
                },
                "required": [],
            },
        });
        match groups.iter_mut().find(|(n, _)| *n == s.namespace) {
            Some((_, tools)) => tools.push(tool),
            None => groups.push((s.namespace.clone(), vec![tool])),
        }
    }
    let tool_groups = servers
        .into_iter()
        .map(|(server, tools)| super::specs::openai_namespace(server, tools));
    Value::Array(
        groups
            .into_iter()
            .map(|(name, tools)| {
                let description = catalog
                    .namespace(&name)
                    .map(|n| n.description.clone())
                    .unwrap_or_default();
                json!({
                    "type": "namespace",
                    "name": if name.is_empty() { "skills".to_string() } else { name },
                    "description": cap_description(&description, "A group of skills."),
                    "tools": tools,
                })
            })
            .chain(tool_groups)
            .collect(),
    )
}

/// A function name hosts accept (`[A-Za-z0-9_-]{1,64}`) for a skill id:
/// the id itself when it fits; otherwise its ASCII letters (accents
/// dropped: `café` → `cafe`) and a hash of the whole id, so that two
/// skills never share a name (`数据-清洗` → `skill-1f0c…`).
fn tool_name(id: &str) -> String {
    function_name(id, "skill")
}

/// [`tool_name`] for any name, `fallback` standing for a name with no
/// ASCII letter or digit.
pub(super) fn function_name(id: &str, fallback: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    let allowed = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    if !id.is_empty() && id.len() <= 64 && id.chars().all(allowed) {
        return id.to_string();
    }
    let mut base = String::new();
    for c in id.nfkd() {
        if allowed(c) {
            base.push(c);
        } else if c == '/' || c == '.' || c.is_whitespace() {
            base.push('_');
        }
        // Anything else (accents, other scripts) is left out; the hash
        // keeps the name unique.
    }
    let base = base.trim_matches(|c| c == '_' || c == '-');
    let base = if base.chars().any(|c| c.is_ascii_alphanumeric()) {
        base
    } else {
        fallback
    };
    let mut hash = crate::hash::StableHasher::new();
    hash.write(id.as_bytes());
    let suffix = format!("-{:010x}", hash.finish() >> 24);
    // The base is ASCII: cut anywhere.
    let keep = base.len().min(64 - suffix.len());
    format!("{}{suffix}", &base[..keep])
}

/// Descriptions in tool schemas: at most 1,000 bytes, cut at a character
/// boundary, never empty.
pub(super) fn cap_description(text: &str, empty: &str) -> String {
    const MAX: usize = 1000;
    if text.trim().is_empty() {
        return empty.to_string();
    }
    if text.len() <= MAX {
        return text.to_string();
    }
    let mut end = MAX - '…'.len_utf8();
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::tool_name;

    #[test]
    fn tool_names_are_valid_and_unique() {
        let valid = |n: &str| {
            (1..=64).contains(&n.len())
                && n.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        };
        assert_eq!(tool_name("pdf-extract"), "pdf-extract");
        assert_eq!(tool_name("snake_case-2"), "snake_case-2");
        let long = "a".repeat(100);
        let ids = [
            "数据-清洗",
            "文档-翻译",
            "café-skill",
            "cafe\u{301}-skill",
            "docs/pdf-extract",
            "docs/pdf-extract~2",
            long.as_str(),
            &long[..99],
        ];
        let names: Vec<String> = ids.iter().map(|id| tool_name(id)).collect();
        for (id, name) in ids.iter().zip(&names) {
            assert!(valid(name), "{id} → {name}");
        }
        let mut unique = names.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "{names:?}");
        assert!(names[2].starts_with("cafe-skill-"), "{}", names[2]);
        assert!(names[0].starts_with("skill-"), "{}", names[0]);
        assert!(names[4].starts_with("docs_pdf-extract-"), "{}", names[4]);
        // The same id, the same name.
        assert_eq!(tool_name("数据-清洗"), names[0]);
    }

    #[test]
    fn advice_is_worded_by_kind() {
        use super::super::{Confidence, EntryKind, Hit, SearchResults};
        use super::advice;
        let hit = |kind| Hit {
            kind,
            index: 0,
            score: 0.1,
            confidence: Confidence::Low,
        };
        let answer = |hits: Vec<Hit>| SearchResults {
            query: "polish a zebra".into(),
            no_match: hits.is_empty(),
            hits,
            namespaces: Vec::new(),
            confidence: Confidence::Low,
            semantic: false,
            unmatched_terms: Vec::new(),
            weak_terms: Vec::new(),
        };
        let none = answer(Vec::new());
        assert!(advice(&none, Some(EntryKind::Tool))
            .unwrap()
            .starts_with("No tool shares"));
        assert!(advice(&none, Some(EntryKind::Skill))
            .unwrap()
            .starts_with("No skill shares"));
        assert!(advice(&none, None)
            .unwrap()
            .starts_with("No skill or tool shares"));
        let tools = answer(vec![hit(EntryKind::Tool), hit(EntryKind::Tool)]);
        let text = advice(&tools, None).unwrap();
        assert!(
            text.contains("these tools") && !text.contains("skill"),
            "{text}"
        );
        let mixed = answer(vec![hit(EntryKind::Skill), hit(EntryKind::Tool)]);
        assert!(advice(&mixed, None).unwrap().contains("skills and tools"));
        let skills = answer(vec![hit(EntryKind::Skill)]);
        assert!(advice(&skills, None).unwrap().contains("without a skill"));
    }
}
