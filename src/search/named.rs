//! Entries named rather than described: `select:a,b` lists (exactly the
//! skills and tools named, whatever the limit) and skills whose exact name
//! or id appears in a query (they rank first).

use super::MAX_SELECT;
use super::{answer_confidence, Confidence, EntryKind, Hit, SearchOptions, SearchResults};
use crate::catalog::Catalog;
use crate::toolcat::{CatalogTool, ToolNamespace};

/// `select:a,b` → the listed names.
/// The list of a `select:a,b` query.
pub fn select_list(query: &str) -> Option<&str> {
    let q = query.trim();
    let (head, rest) = q.split_at_checked(7)?;
    head.eq_ignore_ascii_case("select:").then_some(rest)
}

pub(super) fn select(
    catalog: &Catalog,
    query: &str,
    list: &str,
    options: &SearchOptions,
) -> SearchResults {
    let mut hits: Vec<Hit> = Vec::new();
    let mut unmatched_terms = Vec::new();
    for name in list
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .take(MAX_SELECT)
    {
        let skill = (options.kind != Some(EntryKind::Tool))
            .then(|| lookup(catalog, name))
            .flatten()
            .map(|index| (EntryKind::Skill, index));
        let tool = || {
            (options.kind != Some(EntryKind::Skill))
                .then(|| catalog.tool_entry(name))
                .flatten()
                .and_then(|(server, tool)| position_of(catalog, server, tool))
                .map(|index| (EntryKind::Tool, index))
        };
        match skill.or_else(tool) {
            Some((kind, index)) if !hits.iter().any(|h| h.kind == kind && h.index == index) => hits
                .push(Hit {
                    kind,
                    index,
                    score: 1.0,
                    confidence: Confidence::High,
                }),
            Some(_) => {}
            None => unmatched_terms.push(name.to_string()),
        }
    }
    // A selection returns exactly what it names, whatever the limit.
    SearchResults {
        query: query.to_string(),
        no_match: hits.is_empty(),
        confidence: answer_confidence(&hits),
        semantic: false,
        hits,
        namespaces: Vec::new(),
        unmatched_terms,
        weak_terms: Vec::new(),
    }
}

fn lookup(catalog: &Catalog, key: &str) -> Option<usize> {
    catalog
        .position(key)
        .or_else(|| catalog.position(&key.to_lowercase()))
}

/// Skills whose exact name or id appears in the query (as a word, or as
/// words joined by spaces: "git bisect" names `git-bisect`), in order.
pub(super) fn named_skills(catalog: &Catalog, query: &str) -> Vec<usize> {
    // Fullwidth letters (from CJK input methods) name skills too.
    let folded: String;
    let query = if query.is_ascii() {
        query
    } else {
        use unicode_normalization::UnicodeNormalization;
        folded = query.nfkc().collect();
        folded.as_str()
    };
    let words: Vec<&str> = query
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| "\"'`()[]{}<>,.;:!?".contains(c)))
        .filter(|w| !w.is_empty())
        .collect();
    let mut found = Vec::new();
    for start in 0..words.len() {
        for len in 1..=4.min(words.len() - start) {
            let key = if len == 1 {
                words[start].to_string()
            } else {
                words[start..start + len].join("-")
            };
            if key.len() < 2 {
                continue;
            }
            // A plain word inside a longer query ("jest jokes for a card")
            // is not a name given on purpose; a hyphenated id or the whole
            // query is.
            if len == 1 && words.len() > 1 && !key.contains(['-', '/', '_']) {
                continue;
            }
            if let Some(index) = lookup(catalog, &key) {
                if !found.contains(&index) {
                    found.push(index);
                }
            }
        }
    }
    found
}

/// Tools named in the query: a word that is a tool's id (`server/tool`)
/// or a tool name only one server has, given on purpose (the whole query,
/// or a word with `_`, `-`, `.` or `/` in it), in order; as indices of
/// `Catalog::tools`.
pub(super) fn named_tools(catalog: &Catalog, query: &str) -> Vec<usize> {
    if catalog.tool_count() == 0 {
        return Vec::new();
    }
    let words: Vec<&str> = query
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| "\"'`()[]{}<>,;:!?".contains(c)))
        .map(|w| w.trim_end_matches('.'))
        .filter(|w| w.len() >= 2)
        .collect();
    let mut found = Vec::new();
    for word in &words {
        if words.len() > 1 && !word.contains(['-', '/', '_', '.']) {
            continue;
        }
        if let Some((server, tool)) = catalog
            .tool_entry(word)
            .or_else(|| catalog.tool_entry(&word.to_lowercase()))
        {
            if let Some(index) = position_of(catalog, server, tool) {
                if !found.contains(&index) {
                    found.push(index);
                }
            }
        }
    }
    found
}

/// The index in `Catalog::tools` of `tool` of `server`.
pub(crate) fn position_of(
    catalog: &Catalog,
    server: &ToolNamespace,
    tool: &CatalogTool,
) -> Option<usize> {
    let mut offset = 0;
    for s in catalog.tool_servers() {
        if s.name == server.name {
            return s
                .tools
                .iter()
                .position(|t| t.name == tool.name)
                .map(|t| offset + t);
        }
        offset += s.tools.len();
    }
    None
}
