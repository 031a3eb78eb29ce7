//! The tool catalog the gateway searches: the catalog snapshot's own tool
//! servers (entries of kind `tool`), ranked by the catalog's hierarchical
//! search — the one `search_skills` and `skilldex search --kind tool` use
//! (a tool scores by its own text and its server's:
//! own·(1+0.5·server)+0.3·server·coverage), so the semantic mode applies
//! to `tool_search` too.
//!
//! The gateway writes snapshots itself: when an upstream announces
//! `tools/list_changed`, and when a server is enabled or installed. Those
//! must be searchable at once, before the watcher reloads the file (and
//! without a watcher, `serve --no-watch`). Each rewritten snapshot is
//! loaded and sanitised once, here, and laid over the snapshot's server
//! of that name ([`Catalog::with_tool_servers`]) until a catalog snapshot
//! holds the same tools; the schemas of the other servers are never read
//! again.

use crate::catalog::Catalog;
use crate::search::{EntryKind, SearchOptions, Searchable, SemanticModel};
use crate::toolcat::{CatalogTool, ToolNamespace};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// The snapshots the gateway wrote in this session, loaded.
#[derive(Debug, Default)]
pub struct Rewrites {
    /// Bumped at every rewrite.
    generation: AtomicU64,
    servers: Mutex<BTreeMap<String, Arc<ToolNamespace>>>,
}

impl Rewrites {
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::SeqCst)
    }

    /// Load the snapshot just written to `path` (sanitised once, here)
    /// and search it from now on. Returns its tool count. Blocks.
    pub fn record(&self, path: &Path) -> Result<usize, String> {
        let (namespace, _) =
            crate::toolcat::load_namespace(path).map_err(|error| error.to_string())?;
        let count = namespace.tools.len();
        lock(&self.servers).insert(namespace.name.clone(), Arc::new(namespace));
        self.generation.fetch_add(1, Ordering::SeqCst);
        Ok(count)
    }

    /// The rewritten servers `base` does not hold as they are now; those it
    /// holds (the watcher loaded them) are forgotten.
    fn pending(&self, base: &Catalog) -> Vec<Arc<ToolNamespace>> {
        let mut servers = lock(&self.servers);
        servers.retain(|name, server| {
            base.tool_server(name)
                .is_none_or(|loaded| loaded.tools != server.tools)
        });
        servers.values().cloned().collect()
    }
}

/// The searchable tool catalog of one snapshot at one generation.
type Cached = (Arc<Catalog>, u64, Arc<Searchable>);

/// What the gateway searches: the view's searchable snapshot, or that
/// snapshot with the rewritten servers laid over it (built once per
/// snapshot and generation).
#[derive(Default)]
pub struct ToolCatalog {
    pub rewrites: Arc<Rewrites>,
    cached: Mutex<Option<Cached>>,
}

impl ToolCatalog {
    /// The catalog to search for tools, given the view's `searchable`
    /// (what `search_skills` searches). Cheap unless the gateway rewrote a
    /// snapshot the watcher has not loaded yet.
    pub fn of(
        &self,
        searchable: &Arc<Searchable>,
        base: &Arc<Catalog>,
        semantic: Option<&Arc<SemanticModel>>,
    ) -> Arc<Searchable> {
        if self.rewrites.generation() == 0 {
            return Arc::clone(searchable);
        }
        let generation = self.rewrites.generation();
        if let Some((seen, at, cached)) = lock(&self.cached).as_ref() {
            if Arc::ptr_eq(seen, base) && *at == generation {
                return Arc::clone(cached);
            }
        }
        let pending = self.rewrites.pending(base);
        let result = if pending.is_empty() {
            Arc::clone(searchable)
        } else {
            let catalog = Arc::new(base.with_tool_servers(&pending));
            Arc::new(match semantic {
                Some(model) => Searchable::with_semantic(catalog, Arc::clone(model)),
                None => Searchable::new(catalog),
            })
        };
        *lock(&self.cached) = Some((Arc::clone(base), generation, Arc::clone(&result)));
        result
    }
}

/// The tools found, best first, and what a weak answer means (the
/// search's advice, worded for tools).
pub type Found<'a> = (
    Vec<(&'a ToolNamespace, &'a CatalogTool)>,
    Option<&'static str>,
    Warming,
);

/// True when the ranking is lexical because the semantic vectors are
/// still being embedded ([`crate::search::WARMING_NOTE`]).
pub type Warming = bool;

/// The best `limit` tools of `searchable` for `query`, best first: the
/// tool the query names exactly (its id `server/tool`, or a tool name one
/// server has) first, then the catalog search's ranking of kind `tool`.
pub fn search_tools<'a>(searchable: &'a Searchable, query: &str, limit: usize) -> Found<'a> {
    let catalog = searchable.catalog();
    let mut out: Vec<(&ToolNamespace, &CatalogTool)> = Vec::with_capacity(limit);
    if let Some(exact) = catalog.tool_entry(query) {
        out.push(exact);
    }
    let options = SearchOptions {
        limit,
        kind: Some(EntryKind::Tool),
    };
    let (results, warming) = searchable.search_ready(query, &options, crate::search::READY_GRACE);
    // A tool named exactly is a sure answer whatever the ranking says.
    let advice = if out.is_empty() {
        crate::search::advice(&results, Some(EntryKind::Tool))
    } else {
        None
    };
    for hit in results.hits {
        if out.len() >= limit {
            break;
        }
        if let Some((server, tool)) = catalog.tool_at(hit.index) {
            if !out.iter().any(|(_, o)| o.id == tool.id) {
                out.push((server, tool));
            }
        }
    }
    out.truncate(limit);
    (out, advice, warming)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snapshot(dir: &Path, server: &str, tools: &[(&str, &str)]) -> std::path::PathBuf {
        let tools: Vec<serde_json::Value> = tools
            .iter()
            .map(|(name, description)| {
                serde_json::json!({"name": name, "description": description,
                    "inputSchema": {"type": "object", "properties": {"query": {"type": "string"}}}})
            })
            .collect();
        let path = dir.join(server).join(crate::toolcat::SNAPSHOT_FILE);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, serde_json::json!({ "tools": tools }).to_string()).unwrap();
        path
    }

    #[test]
    fn the_catalog_search_ranks_tools_and_rewrites_show_at_once() {
        let temp = tempfile::tempdir().unwrap();
        let root = temp.path();
        snapshot(
            root,
            "calendar",
            &[("create_event", "Add an event to a calendar")],
        );
        let github = snapshot(
            root,
            "github",
            &[
                ("create_issue", "Open a new issue in a repository"),
                ("list_issues", "List the issues of a repository"),
            ],
        );
        let base = Arc::new(crate::catalog::CatalogBuilder::new([root]).build().unwrap());
        let searchable = Arc::new(Searchable::new(Arc::clone(&base)));
        let tools = ToolCatalog::default();
        let ids = |s: &Searchable, query: &str| -> Vec<String> {
            search_tools(s, query, 8)
                .0
                .into_iter()
                .map(|(_, t)| t.id.clone())
                .collect()
        };
        let now = tools.of(&searchable, &base, None);
        assert!(
            Arc::ptr_eq(&now, &searchable),
            "nothing rewritten: the view's own"
        );
        assert_eq!(ids(&now, "open an issue")[0], "github/create_issue");
        assert_eq!(ids(&now, "calendar event")[0], "calendar/create_event");
        assert_eq!(ids(&now, "github/list_issues")[0], "github/list_issues");
        assert_eq!(ids(&now, "list_issues")[0], "github/list_issues");
        assert!(ids(&now, "zebra quantum").is_empty());
        assert_eq!(search_tools(&now, "issue", 1).0.len(), 1);
        let (found, advice, _) = search_tools(&now, "zebra quantum", 8);
        assert!(found.is_empty());
        assert!(advice.unwrap().starts_with("No tool shares"), "{advice:?}");
        // The gateway rewrites github's snapshot: searchable at once.
        snapshot(
            root,
            "github",
            &[
                ("create_issue", "Open a new issue in a repository"),
                ("polish_zebra", "Polish a zebra until it shines"),
            ],
        );
        assert_eq!(tools.rewrites.record(&github).unwrap(), 2);
        let now = tools.of(&searchable, &base, None);
        assert_eq!(ids(&now, "polish a zebra")[0], "github/polish_zebra");
        assert!(now.catalog().tool("github/list_issues").is_none());
        assert!(now.catalog().tool("calendar/create_event").is_some());
        assert!(
            Arc::ptr_eq(&now, &tools.of(&searchable, &base, None)),
            "kept"
        );
        // Once a snapshot holds the same tools, the rewrite is forgotten.
        let reloaded = Arc::new(crate::catalog::CatalogBuilder::new([root]).build().unwrap());
        let searchable = Arc::new(Searchable::new(Arc::clone(&reloaded)));
        let now = tools.of(&searchable, &reloaded, None);
        assert!(Arc::ptr_eq(&now, &searchable));
    }
}
