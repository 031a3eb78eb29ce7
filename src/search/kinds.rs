//! What each kind of entry brings to the one ranking (`search/rank.rs`),
//! as data: its documents' fields and their weights, its groups, its tie
//! order.
//!
//! | kind  | entry fields (weight)                                   | group     | group fields (weight)          |
//! | ----- | ------------------------------------------------------- | --------- | ------------------------------ |
//! | skill | name (3), description (1), headings (0.5), lead (0.15), "when to use" items (0.5) | namespace | path (2), description (1) |
//! | tool  | name (3), title + description (1), parameters (0.4), search hint (1) | server | name + title (2), description and instructions' lead (1) |
//!
//! A tool's name is split into words by the tokenizer (`create_issue`,
//! `createIssue`, `repo.list`); its parameters are their names,
//! descriptions and short enum values; its search hint is the words its
//! server gives hosts' tool searches (`_meta["anthropic/searchHint"]`).
//! Namespaces nest (a nested one
//! inherits part of its parent's match); servers do not. Flat tool scoring
//! (the server's text a field of every tool, no groups) is kept to measure
//! what the hierarchy brings.

use super::index::{FieldSpec, Inverted};
use super::rank::Tier;
use super::{LEAD_WEIGHT, NAME_IDF_FLOOR};
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

/// An entry's name: short, precise, weighed high.
const NAME: FieldSpec = FieldSpec {
    weight: 3.0,
    b: 0.3,
    min_idf: NAME_IDF_FLOOR,
};
/// What an entry says it does.
const DESCRIPTION: FieldSpec = FieldSpec {
    weight: 1.0,
    b: 0.75,
    min_idf: 0.0,
};
/// A skill's headings.
const HEADINGS: FieldSpec = FieldSpec {
    weight: 0.5,
    b: 0.5,
    min_idf: 0.0,
};
/// The body's first paragraph: the skill in its own words, often the
/// terms a user would type; at low weight, as it also says much that is
/// not what the skill is for.
const LEAD: FieldSpec = FieldSpec {
    weight: LEAD_WEIGHT,
    b: 0.75,
    min_idf: 0.0,
};
/// The situations a skill's "when to use" sections name: written to be
/// matched against a request, like a description, but longer and less
/// precise, so weighed less and normalised by length.
const TRIGGERS: FieldSpec = FieldSpec {
    weight: 0.5,
    b: 0.75,
    min_idf: 0.0,
};
/// A tool's parameters.
const PARAMETERS: FieldSpec = FieldSpec {
    weight: 0.4,
    b: 0.75,
    min_idf: 0.0,
};
/// A tool's search hint: a few words its server chose for tool searches,
/// weighed as its description is, with little length normalisation (a
/// hint is short by design).
const SEARCH_HINT: FieldSpec = FieldSpec {
    weight: 1.0,
    b: 0.3,
    min_idf: 0.0,
};
/// A group's name (a namespace's path, a server's name and title).
const GROUP_NAME: FieldSpec = FieldSpec {
    weight: 2.0,
    b: 0.0,
    min_idf: NAME_IDF_FLOOR,
};
/// A group's description.
const GROUP_DESCRIPTION: FieldSpec = FieldSpec {
    weight: 1.0,
    b: 0.5,
    min_idf: 0.0,
};
/// Flat tool scoring: the server's text as a field of each tool.
const FLAT_SERVER: FieldSpec = FieldSpec {
    weight: 0.6,
    b: 0.75,
    min_idf: 0.0,
};

/// What a matching namespace adds to its skills, and a server to its
/// tools, on its own (β of the ranking): a tool's own text says less
/// (`list_items`), so its server's match counts more.
const SKILL_GROUP_ADD: f32 = 0.2;
const TOOL_GROUP_ADD: f32 = 0.3;

/// Enum values of a parameter that count as its words, and their length.
const MAX_ENUM_VALUES: usize = 16;
const MAX_ENUM_BYTES: usize = 40;

/// The skills, in namespaces.
pub(super) fn skill_tier(catalog: &Catalog) -> Tier {
    let texts: Vec<[&str; 5]> = catalog
        .skills()
        .iter()
        .map(|s| {
            [
                s.name.as_str(),
                &s.description,
                &s.body.headings,
                &s.body.lead,
                &s.body.triggers,
            ]
        })
        .collect();
    let entries = Inverted::build([NAME, DESCRIPTION, HEADINGS, LEAD, TRIGGERS], &texts);
    let namespaces = catalog.namespaces();
    let texts: Vec<[&str; 2]> = namespaces
        .iter()
        .map(|n| [n.name.as_str(), &n.description])
        .collect();
    let groups = Inverted::build([GROUP_NAME, GROUP_DESCRIPTION], &texts);
    let position = |name: &str| {
        namespaces
            .binary_search_by(|n| n.name.as_str().cmp(name))
            .map_or(u32::MAX, |i| i as u32)
    };
    // Skills come sorted by namespace: look each run up once.
    let mut last: Option<(&str, u32)> = None;
    let entry_group: Vec<u32> = catalog
        .skills()
        .iter()
        .map(|s| match last {
            Some((name, p)) if name == s.namespace => p,
            _ => {
                let p = position(&s.namespace);
                last = Some((&s.namespace, p));
                p
            }
        })
        .collect();
    let parent = namespaces
        .iter()
        .map(|n| {
            let mut name = n.name.as_str();
            while let Some((up, _)) = name.rsplit_once('/') {
                let p = position(up);
                if p != u32::MAX {
                    return p;
                }
                name = up;
            }
            u32::MAX
        })
        .collect();
    let ids: Vec<&str> = catalog.skills().iter().map(|s| s.id.as_str()).collect();
    Tier::new(
        entries,
        groups,
        entry_group,
        parent,
        &ids,
        true,
        SKILL_GROUP_ADD,
    )
    .with_group_names(namespaces.iter().map(|n| n.name.as_str()))
}

/// The tools, in servers (or flat).
pub(super) fn tool_tier(catalog: &Catalog, scoring: ToolScoring) -> Tier {
    let servers = catalog.tool_servers();
    let mut entry_group = Vec::with_capacity(catalog.tool_count());
    for (s, server) in servers.iter().enumerate() {
        entry_group.extend(std::iter::repeat_n(s as u32, server.tools.len()));
    }
    let entries = match scoring {
        ToolScoring::Hierarchical => {
            let texts: Vec<[String; 4]> =
                catalog.tools().map(|(_, tool)| tool_text(tool)).collect();
            let borrowed: Vec<[&str; 4]> = texts
                .iter()
                .map(|[a, b, c, d]| [a.as_str(), b.as_str(), c.as_str(), d.as_str()])
                .collect();
            Inverted::build([NAME, DESCRIPTION, PARAMETERS, SEARCH_HINT], &borrowed)
        }
        ToolScoring::Flat => {
            let texts: Vec<[String; 5]> = catalog
                .tools()
                .map(|(server, tool)| {
                    let [a, b, c, h] = tool_text(tool);
                    let [n, d] = server_text(server);
                    [a, b, c, h, format!("{n}\n{d}")]
                })
                .collect();
            let borrowed: Vec<[&str; 5]> = texts
                .iter()
                .map(|[a, b, c, h, d]| [a.as_str(), b.as_str(), c.as_str(), h.as_str(), d.as_str()])
                .collect();
            Inverted::build(
                [NAME, DESCRIPTION, PARAMETERS, SEARCH_HINT, FLAT_SERVER],
                &borrowed,
            )
        }
    };
    let texts: Vec<[String; 2]> = servers.iter().map(|s| server_text(s)).collect();
    let borrowed: Vec<[&str; 2]> = texts
        .iter()
        .map(|[a, b]| [a.as_str(), b.as_str()])
        .collect();
    let groups = Inverted::build([GROUP_NAME, GROUP_DESCRIPTION], &borrowed);
    let ids: Vec<&str> = catalog.tools().map(|(_, t)| t.id.as_str()).collect();
    Tier::new(
        entries,
        groups,
        entry_group,
        vec![u32::MAX; servers.len()],
        &ids,
        scoring == ToolScoring::Hierarchical,
        TOOL_GROUP_ADD,
    )
    .with_group_names(servers.iter().map(|s| s.name.as_str()))
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

/// The texts of a tool's document: its name, its title and description,
/// its top-level parameters' names, descriptions and (short) enum values,
/// and its search hint (empty without one).
pub(crate) fn tool_text(tool: &CatalogTool) -> [String; 4] {
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
    let hint = tool.search_hint.clone().unwrap_or_default();
    [tool.name.clone(), described, parameters, hint]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{EntryKind, SearchIndex, SearchOptions};

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
