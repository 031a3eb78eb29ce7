//! Search over MCP tools, hierarchical: locate the server, then the tool.
//!
//! Each server is a document (its name and title, its description and the
//! first paragraph of its instructions) and each tool is one (its name split
//! into words, its title and description, its top-level parameters' names
//! and descriptions). A query is scored over both; a server that matches
//! lifts its tools and puts all of them in the running, the way skill
//! namespaces lift their skills, so a strong match at either level counts:
//! `relevance = own · (1 + α·server) + β·server·coverage`, where `own` is
//! the tool's BM25F score over the query's ideal weighted by how much of the
//! query the tool and its server cover together (MCP-Zero scores a tool by
//! server and tool similarity together; `evals/tools/` measures this
//! against flat scoring, where the server's text is a field of each tool).
//!
//! A tool named exactly (`server/tool`, or a tool name only one server has)
//! ranks first. Confidence follows the skills' rules.

use super::index::{FieldSpec, Inverted};
use super::plan::{plan, score};
use super::{EntryKind, LIGHT_MASS, NAMESPACE_MIN, NAME_IDF_FLOOR};
use super::{Hit, NamespaceScore};
use crate::catalog::Catalog;
use crate::toolcat::{CatalogTool, ToolNamespace};

/// How tools are scored: with their server's evidence apart (the
/// default), or flat, the server's text only a field of every tool (kept
/// to measure the difference).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ToolScoring {
    #[default]
    Hierarchical,
    Flat,
}

/// How much a matching server lifts its tools' own score (α) and adds on
/// its own (β).
const SERVER_LIFT: f32 = 0.5;
const SERVER_ADD: f32 = 0.3;

/// The tool half of a search index.
#[derive(Debug, Clone, Default)]
pub(crate) struct ToolIndex {
    tools: Inverted,
    servers: Inverted,
    /// Per tool (in `Catalog::tools` order): its server's index.
    tool_server: Vec<u32>,
    /// Per server: its first tool and the end of its run.
    runs: Vec<(u32, u32)>,
    scoring: ToolScoring,
}

/// The texts of a server's document: name and title; description and the
/// first paragraph of its instructions.
pub(crate) fn server_text(server: &ToolNamespace) -> [String; 2] {
    let name = match &server.title {
        Some(title) => format!("{} {title}", server.name),
        None => server.name.clone(),
    };
    let lead = server
        .instructions
        .as_deref()
        .and_then(|i| i.split("\n\n").map(str::trim).find(|p| !p.is_empty()))
        .unwrap_or("");
    [name, format!("{}\n{lead}", server.description)]
}

/// Enum values of a parameter that count as its words, and their length.
const MAX_ENUM_VALUES: usize = 16;
const MAX_ENUM_BYTES: usize = 40;

/// The texts of a tool's document: its name (split into words by the
/// tokenizer: `create_issue`, `createIssue`, `create-issue`), its title and
/// description, and its top-level parameters' names, descriptions and
/// (short) enum values.
pub(crate) fn tool_text(tool: &CatalogTool) -> [String; 3] {
    let described = match &tool.title {
        Some(title) => format!("{title}\n{}", tool.description),
        None => tool.description.clone(),
    };
    let mut parameters = String::new();
    if let Some(properties) = tool
        .input_schema
        .get("properties")
        .and_then(|p| p.as_object())
    {
        for (name, schema) in properties {
            parameters.push_str(name);
            parameters.push('\n');
            if let Some(text) = schema.get("description").and_then(|d| d.as_str()) {
                parameters.push_str(text);
                parameters.push('\n');
            }
            // The values a parameter takes name what the tool can do
            // (`state: open|closed`): the first few, short ones only.
            let values = schema.get("enum").and_then(|e| e.as_array());
            for value in values.into_iter().flatten().take(MAX_ENUM_VALUES) {
                if let Some(value) = value.as_str().filter(|v| v.len() <= MAX_ENUM_BYTES) {
                    parameters.push_str(value);
                    parameters.push('\n');
                }
            }
        }
    }
    [tool.name.clone(), described, parameters]
}

impl ToolIndex {
    pub(crate) fn build(catalog: &Catalog, scoring: ToolScoring) -> ToolIndex {
        let servers = catalog.tool_servers();
        let mut tool_server = Vec::with_capacity(catalog.tool_count());
        let mut runs = Vec::with_capacity(servers.len());
        for (s, server) in servers.iter().enumerate() {
            let start = tool_server.len() as u32;
            tool_server.extend(std::iter::repeat_n(s as u32, server.tools.len()));
            runs.push((start, tool_server.len() as u32));
        }
        let server_texts: Vec<[String; 2]> = servers.iter().map(|s| server_text(s)).collect();
        let name = FieldSpec {
            weight: 3.0,
            b: 0.3,
            min_idf: NAME_IDF_FLOOR,
        };
        let described = FieldSpec {
            weight: 1.0,
            b: 0.75,
            min_idf: 0.0,
        };
        let parameters = FieldSpec {
            weight: 0.4,
            b: 0.75,
            min_idf: 0.0,
        };
        let tools = match scoring {
            ToolScoring::Hierarchical => {
                let texts: Vec<[String; 3]> =
                    catalog.tools().map(|(_, tool)| tool_text(tool)).collect();
                let borrowed: Vec<[&str; 3]> = texts
                    .iter()
                    .map(|[a, b, c]| [a.as_str(), b.as_str(), c.as_str()])
                    .collect();
                Inverted::build([name, described, parameters], &borrowed)
            }
            ToolScoring::Flat => {
                let texts: Vec<[String; 4]> = catalog
                    .tools()
                    .map(|(server, tool)| {
                        let [a, b, c] = tool_text(tool);
                        let [n, d] = server_text(server);
                        [a, b, c, format!("{n}\n{d}")]
                    })
                    .collect();
                let borrowed: Vec<[&str; 4]> = texts
                    .iter()
                    .map(|[a, b, c, d]| [a.as_str(), b.as_str(), c.as_str(), d.as_str()])
                    .collect();
                let server = FieldSpec {
                    weight: 0.6,
                    b: 0.75,
                    min_idf: 0.0,
                };
                Inverted::build([name, described, parameters, server], &borrowed)
            }
        };
        let borrowed: Vec<[&str; 2]> = server_texts
            .iter()
            .map(|[a, b]| [a.as_str(), b.as_str()])
            .collect();
        let servers = Inverted::build(
            [
                FieldSpec {
                    weight: 2.0,
                    b: 0.0,
                    min_idf: NAME_IDF_FLOOR,
                },
                FieldSpec {
                    weight: 1.0,
                    b: 0.5,
                    min_idf: 0.0,
                },
            ],
            &borrowed,
        );
        ToolIndex {
            tools,
            servers,
            tool_server,
            runs,
            scoring,
        }
    }

    pub(crate) fn scoring(&self) -> ToolScoring {
        self.scoring
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        self.tools.heap_bytes()
            + self.servers.heap_bytes()
            + self.tool_server.len() * 4
            + self.runs.len() * 8
    }
}

/// The tools' part of an answer.
pub(crate) struct ToolAnswer {
    pub hits: Vec<Hit>,
    /// Whether a sentence model's cosines were mixed in.
    pub semantic: bool,
    pub servers: Vec<NamespaceScore>,
    pub unmatched_terms: Vec<String>,
    pub weak_terms: Vec<String>,
}

/// Rank the tools of `catalog` for `query` (already cut to size); in the
/// semantic mode, mixed with the tools' cosines (`semantic`, one per tool)
/// as skills are (see `search::semantic`).
pub(crate) fn search_tools(
    catalog: &Catalog,
    index: &ToolIndex,
    query: &str,
    limit: usize,
    semantic: Option<&super::semantic::QueryCosines>,
) -> ToolAnswer {
    let pinned = named_tools(catalog, query);
    let plan = plan(&index.tools, query, None);
    let mut scored = score(&index.tools, &plan);
    let server_count = index.runs.len();
    let mut strength = vec![0.0f32; server_count];
    let mut server_full = vec![0u64; server_count];
    let mut server_partial = vec![0u64; server_count];
    let hierarchical = index.scoring == ToolScoring::Hierarchical;
    let server_plan = hierarchical.then(|| self::plan(&index.servers, query, None));
    if let Some(server_plan) = &server_plan {
        let server_scored = score(&index.servers, server_plan);
        let ideal = server_plan.ideal(&index.servers);
        for &s in &server_scored.touched {
            let s = s as usize;
            let coverage =
                server_plan.coverage(server_scored.docs[s].full, server_scored.docs[s].partial);
            strength[s] = (server_scored.docs[s].score / ideal).min(1.0) * coverage;
            server_full[s] = server_scored.docs[s].full;
            server_partial[s] = server_scored.docs[s].partial;
        }
        // A server that matches puts all its tools in the running; its
        // words count for them.
        for (s, &(start, end)) in index.runs.iter().enumerate() {
            if strength[s] < NAMESPACE_MIN {
                continue;
            }
            scored.spread(start..end, server_full[s], server_partial[s]);
        }
    }
    let ideal = plan.ideal(&index.tools);
    // The server's words count for its tools' coverage only where the
    // server matched them (its strength), not for every tool scored.
    let id_of = |d: u32| {
        catalog
            .tool_at(d as usize)
            .map_or("", |(_, t)| t.id.as_str())
    };
    let by_rank = |a: &(f32, f32, u32), b: &(f32, f32, u32)| {
        b.0.total_cmp(&a.0).then_with(|| id_of(a.2).cmp(id_of(b.2)))
    };
    // The semantic mode ranks every tool by the mix (its lexical relevance,
    // server evidence included, kept for the flags); the lexical one keeps
    // the best as it goes.
    let keep = limit + pinned.len();
    let mut lexical: Vec<(f32, f32, u32)> = Vec::new();
    let mut best = super::Best::new(keep, by_rank);
    for &doc in &scored.touched {
        let d = doc as usize;
        let s = index.tool_server[d] as usize;
        let got = &mut scored.docs[d];
        if hierarchical {
            got.full |= server_full[s];
            got.partial |= server_partial[s];
        }
        let (full, partial) = (got.full, got.partial);
        let coverage = plan.coverage(full, partial);
        let lift = strength[s];
        let own = got.score / ideal * (0.25 + 0.75 * coverage);
        let relevance = own * (1.0 + SERVER_LIFT * lift) + SERVER_ADD * lift * coverage;
        let relevance = if plan.has_subject(full | partial) {
            relevance
        } else {
            relevance * LIGHT_MASS
        };
        if semantic.is_some() {
            lexical.push((relevance, relevance, doc));
        } else {
            best.offer((relevance, relevance, doc));
        }
    }
    let semantic = semantic.map(|s| (s.tools.as_slice(), s.weight));
    let (ranked, meaning_answers) = best.finish(&lexical, semantic);
    let mut hits = super::hits_of(
        EntryKind::Tool,
        &pinned,
        &ranked,
        meaning_answers,
        limit,
        &plan,
        &scored,
    );
    hits.truncate(limit);
    let mut servers: Vec<NamespaceScore> = catalog
        .tool_servers()
        .iter()
        .enumerate()
        .filter(|(s, _)| strength[*s] > 0.0)
        .map(|(s, server)| NamespaceScore {
            name: server.name.clone(),
            score: super::round(strength[s]),
        })
        .collect();
    servers.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.name.cmp(&b.name))
    });
    servers.truncate(3);
    let named = |t: &String| {
        pinned.iter().any(|&i| {
            catalog
                .tool_at(i)
                .is_some_and(|(_, tool)| tool.id.to_lowercase().contains(t.as_str()))
        })
    };
    let mut unmatched_terms = plan.unmatched();
    let mut weak_terms = plan.weak();
    if let Some(server_plan) = &server_plan {
        // A word the servers know is not unmatched.
        let server_unmatched = server_plan.unmatched();
        unmatched_terms.retain(|t| server_unmatched.contains(t));
        let server_weak = server_plan.weak();
        weak_terms.retain(|t| server_weak.contains(t) || server_unmatched.contains(t));
    }
    unmatched_terms.retain(|t| !named(t));
    weak_terms.retain(|t| !named(t));
    ToolAnswer {
        hits,
        semantic: semantic.is_some(),
        servers,
        unmatched_terms,
        weak_terms,
    }
}

/// Tools named in the query: a word that is a tool's id (`server/tool`)
/// or a tool name only one server has, given on purpose (the whole query,
/// or a word with `_`, `-`, `.` or `/` in it), in order; as indices of
/// `Catalog::tools`.
fn named_tools(catalog: &Catalog, query: &str) -> Vec<usize> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{SearchIndex, SearchOptions};

    fn catalog() -> (tempfile::TempDir, Catalog) {
        let folder = tempfile::tempdir().unwrap();
        let write = |server: &str, description: &str, tools: &[(&str, &str)]| {
            let tools: Vec<serde_json::Value> = tools
                .iter()
                .map(|(name, text)| {
                    serde_json::json!({"name": name, "description": text,
                        "inputSchema": {"type": "object", "properties": {"id": {"type": "string", "description": "Which one."}}}})
                })
                .collect();
            let path = folder.path().join(server).join("mcp-tools.json");
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            let value = serde_json::json!({"server": {"description": description}, "tools": tools});
            std::fs::write(path, value.to_string()).unwrap();
        };
        write(
            "kubernetes",
            "Kubernetes clusters: pods, deployments and nodes.",
            &[
                ("list_items", "List the items of a namespace."),
                ("get_logs", "The logs of one item."),
            ],
        );
        write(
            "warehouse",
            "Inventory of a warehouse: items, shelves and stock.",
            &[
                ("list_items", "List the items on a shelf."),
                ("count_stock", "Count what is left."),
            ],
        );
        let catalog = crate::CatalogBuilder::new([folder.path()]).build().unwrap();
        (folder, catalog)
    }

    fn ids(catalog: &Catalog, index: &SearchIndex, query: &str) -> Vec<String> {
        let options = SearchOptions {
            limit: 8,
            kind: Some(EntryKind::Tool),
        };
        index
            .search(catalog, query, &options)
            .hits
            .iter()
            .map(|h| h.id(catalog).to_string())
            .collect()
    }

    #[test]
    fn the_server_decides_between_tools_that_say_the_same() {
        let (_keep, catalog) = catalog();
        let index = SearchIndex::build(&catalog);
        // Both `list_items` match "list items" alike; the server's words
        // say which is meant.
        let found = ids(&catalog, &index, "list items in the kubernetes cluster");
        assert_eq!(found[0], "kubernetes/list_items", "{found:?}");
        let found = ids(&catalog, &index, "list items in the warehouse");
        assert_eq!(found[0], "warehouse/list_items", "{found:?}");
        // A tool whose own text has none of the query's words is found by
        // its server's.
        let found = ids(&catalog, &index, "pods and deployments");
        assert!(
            found.iter().any(|id| id == "kubernetes/get_logs"),
            "{found:?}"
        );
        // A tool name two servers share names neither exactly.
        let results = index.search(&catalog, "list_items", &SearchOptions::default());
        assert!(
            results.hits.iter().all(|h| h.score < 1.0),
            "{:?}",
            results.hits
        );
        let results = index.search(&catalog, "warehouse/list_items", &SearchOptions::default());
        assert_eq!(results.hits[0].id(&catalog), "warehouse/list_items");
        assert_eq!(results.hits[0].score, 1.0);
    }

    #[test]
    fn entry_text_covers_the_tool_and_its_server() {
        let (_keep, catalog) = catalog();
        let text = crate::search::entry_text(&catalog, EntryKind::Tool, 0).unwrap();
        assert!(
            text.contains("list_items") && text.contains("Which one."),
            "{text}"
        );
        assert!(text.contains("Kubernetes clusters"), "{text}");
        assert!(crate::search::entry_text(&catalog, EntryKind::Tool, 99).is_none());
    }
}
