//! The semantic mode of search (the `semantic` feature): each index entry
//! embedded once with a local sentence encoder, the query embedded per
//! search, and the cosine mixed with the lexical score.
//!
//! **Fusion.** A linear mix of the lexical relevance, divided by the best
//! one of the query, and the cosine: `(1 − w) · lexical / best + w · cosine`
//! with `w` = [`DEFAULT_WEIGHT`], chosen on the MetaTool dev split (see
//! docs/search.md). Every entry takes part, so a skill that shares no word
//! with the query can still rank by meaning.
//!
//! **Honesty.** The cosine moves hits up and down, never the flags:
//! `confidence` stays what the lexical evidence of each hit says (a hit
//! found by meaning alone is `low`), so semantic similarity cannot make an
//! answer to a request no skill serves look sure. A query that shares no
//! meaningful word with the catalog is still answered (flagged `low`) when
//! its best cosine reaches [`SEMANTIC_MIN`]; below that it is "no match".
//!
//! **What is embedded.** [`skill_text`] and [`tool_text`] are the functions
//! that say what text stands for an entry (a tool's: its server's and its
//! own name in words, its description and its parameters, bounded); the
//! tools' cosines mix with their lexical relevance, server evidence
//! included, the way the skills' do. Their vectors come from the
//! [`EmbeddingCache`](crate::embed::EmbeddingCache) when that text was
//! embedded before (by this process or an earlier one), so a rebuilt
//! snapshot embeds only the entries whose text changed.

use crate::catalog::Catalog;
use crate::embed::{self, EmbedError};
#[cfg(feature = "semantic")]
use crate::embed::{Embedder, EmbeddingCache};
use std::path::Path;
use std::sync::Arc;
#[cfg(feature = "semantic")]
use std::sync::Mutex;

/// The cosine's share of the mix (see the module docs).
pub const DEFAULT_WEIGHT: f32 = 0.8;
/// A query with no meaningful word in common with any entry is answered
/// (flagged `low`) only when its best cosine reaches this.
pub const SEMANTIC_MIN: f32 = 0.35;

/// The text an entry of the index is embedded by: its name (words apart)
/// and its description.
pub fn skill_text(catalog: &Catalog, index: usize) -> String {
    let mut text = String::new();
    write_skill_text(&mut text, catalog, index);
    text
}

/// [`skill_text`] into `out` (cleared first), so a pass over every skill
/// reuses one buffer.
fn write_skill_text(out: &mut String, catalog: &Catalog, index: usize) {
    let skill = &catalog.skills()[index];
    out.clear();
    out.extend(
        skill
            .name
            .chars()
            .map(|c| if matches!(c, '-' | '_') { ' ' } else { c }),
    );
    out.push_str(": ");
    out.push_str(&skill.description);
}

/// A tool's text is cut to this many bytes (its description to
/// [`MAX_TOOL_DESCRIPTION`]): the encoder reads 256 tokens at most, and
/// parameters listed past that are noise.
const MAX_TOOL_TEXT: usize = 1_000;
const MAX_TOOL_DESCRIPTION: usize = 600;

/// An identifier in words: `create_issue`, `create-issue` and
/// `createIssue` all become "create issue".
fn name_words(name: &str) -> String {
    let mut words = String::with_capacity(name.len() + 4);
    let mut previous_lower = false;
    for c in name.chars() {
        if matches!(c, '-' | '_' | '.' | '/') {
            words.push(' ');
            previous_lower = false;
            continue;
        }
        if c.is_uppercase() && previous_lower {
            words.push(' ');
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
        words.extend(c.to_lowercase());
    }
    words
}

/// The text a tool (`index` into [`Catalog::tools`]' order) is embedded
/// by: "server name / tool name: title. description" and its top-level
/// parameters' names and descriptions, at most [`MAX_TOOL_TEXT`] bytes.
pub fn tool_text(catalog: &Catalog, index: usize) -> Option<String> {
    let (server, tool) = catalog.tool_at(index)?;
    let mut text = format!(
        "{} / {}: ",
        name_words(&server.name),
        name_words(&tool.name)
    );
    if let Some(title) = tool.title.as_deref().filter(|t| !t.is_empty()) {
        text.push_str(title);
        text.push_str(". ");
    }
    text.push_str(crate::text::cut_at_char_boundary(
        tool.description.trim(),
        MAX_TOOL_DESCRIPTION,
    ));
    if let Some(properties) = tool
        .input_schema
        .get("properties")
        .and_then(|p| p.as_object())
        .filter(|p| !p.is_empty())
    {
        text.push_str(" Parameters:");
        for (name, schema) in properties {
            text.push(' ');
            text.push_str(&name_words(name));
            if let Some(described) = schema.get("description").and_then(|d| d.as_str()) {
                text.push_str(" (");
                text.push_str(described.trim());
                text.push(')');
            }
            text.push(';');
            if text.len() >= MAX_TOOL_TEXT {
                break;
            }
        }
    }
    Some(crate::text::cut_at_char_boundary(&text, MAX_TOOL_TEXT).to_string())
}

/// A loaded model with the cache of its vectors, shared by every snapshot
/// a process searches (so a reload embeds only what changed).
#[cfg(feature = "semantic")]
#[derive(Debug)]
pub struct SemanticModel {
    embedder: Embedder,
    cache: Mutex<EmbeddingCache>,
    weight: f32,
    /// The last query and its vector: one request may search two
    /// snapshots (the enabled skills, then all of them for the disabled
    /// matches) and should embed its query once.
    last_query: Mutex<Option<(String, Vec<f32>)>>,
}

/// What building a snapshot's vectors did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EmbedStats {
    /// Skills and tools.
    pub entries: usize,
    /// Of which tools.
    pub tools: usize,
    /// Entries embedded now (the rest came from the cache).
    pub embedded: usize,
    /// Why the cache file could not be written, when it could not (the
    /// vectors are still used; the next run embeds them again).
    pub cache_error: Option<String>,
}

/// The vectors of one snapshot's entries, row by row: the skills', then
/// the tools' (in [`Catalog::tools`]' order). Rows are shared with the
/// cache and with earlier snapshots, not copied.
#[derive(Debug, Clone)]
pub struct SemanticIndex {
    skills: usize,
    rows: Vec<Arc<[f32]>>,
    stats: EmbedStats,
}

impl SemanticIndex {
    pub fn stats(&self) -> &EmbedStats {
        &self.stats
    }

    /// The cosine of every skill with `query` (a unit vector).
    pub fn cosines(&self, query: &[f32]) -> Vec<f32> {
        self.cosines_of(&self.rows[..self.skills.min(self.rows.len())], query)
    }

    /// The cosine of every tool with `query`.
    pub fn tool_cosines(&self, query: &[f32]) -> Vec<f32> {
        self.cosines_of(&self.rows[self.skills.min(self.rows.len())..], query)
    }

    fn cosines_of(&self, rows: &[Arc<[f32]>], query: &[f32]) -> Vec<f32> {
        rows.iter().map(|row| embed::cosine(row, query)).collect()
    }
}

#[cfg(feature = "semantic")]
impl SemanticModel {
    /// Load the model in `model_dir`; vectors are cached under `cache_dir`
    /// (None: in memory only).
    pub fn load(model_dir: &Path, cache_dir: Option<&Path>) -> Result<SemanticModel, EmbedError> {
        let embedder = Embedder::load(model_dir)?;
        let cache = match cache_dir {
            Some(dir) => EmbeddingCache::open(dir, embedder.id(), embedder.dimension()),
            None => EmbeddingCache::in_memory(embedder.dimension()),
        };
        Ok(SemanticModel {
            embedder,
            cache: Mutex::new(cache),
            weight: DEFAULT_WEIGHT,
            last_query: Mutex::new(None),
        })
    }

    /// Mix with another weight of the cosine (0..=1).
    pub fn with_weight(mut self, weight: f32) -> SemanticModel {
        self.weight = weight.clamp(0.0, 1.0);
        self
    }

    pub fn weight(&self) -> f32 {
        self.weight
    }

    pub fn embedder(&self) -> &Embedder {
        &self.embedder
    }

    /// The encoder, to change how it spreads work (see
    /// [`EmbedPlan`](crate::embed::EmbedPlan)).
    pub fn embedder_mut(&mut self) -> &mut Embedder {
        &mut self.embedder
    }

    /// Vectors for every entry of `catalog`: from the cache, or embedded
    /// now (then written to the cache file).
    pub fn index(&self, catalog: &Catalog) -> Result<SemanticIndex, EmbedError> {
        let skills = catalog.skills().len();
        let dimension = self.embedder.dimension();
        // Keys first, each text built in one reused buffer: on a reload
        // almost every entry is cached, and only the missing ones' texts
        // are kept.
        let mut buffer = String::new();
        let mut keys: Vec<u128> = Vec::with_capacity(skills + catalog.tool_count());
        let mut texts: Vec<(usize, String)> = Vec::new();
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        for i in 0..skills {
            write_skill_text(&mut buffer, catalog, i);
            let key = embed::text_key(&buffer);
            if cache.get(key).is_none() {
                texts.push((keys.len(), buffer.clone()));
            }
            keys.push(key);
        }
        for text in (0..catalog.tool_count()).filter_map(|i| tool_text(catalog, i)) {
            let key = embed::text_key(&text);
            if cache.get(key).is_none() {
                texts.push((keys.len(), text));
            }
            keys.push(key);
        }
        let count = keys.len();
        // The same text twice (two skills alike) is embedded once.
        texts.sort_by_key(|(i, _)| keys[*i]);
        texts.dedup_by_key(|(i, _)| keys[*i]);
        let embedded = texts.len();
        if !texts.is_empty() {
            let batch: Vec<&str> = texts.iter().map(|(_, t)| t.as_str()).collect();
            let vectors = self.embedder.embed(&batch)?;
            for ((i, _), vector) in texts.iter().zip(vectors) {
                cache.insert(keys[*i], vector);
            }
        }
        let missing: Arc<[f32]> = vec![0.0; dimension].into();
        let rows = keys
            .iter()
            .map(|key| cache.shared(*key).unwrap_or_else(|| missing.clone()))
            .collect();
        let cache_error = cache.save().err().map(|e| {
            format!(
                "{}: {e}",
                cache
                    .path()
                    .map_or_else(String::new, |p| p.display().to_string())
            )
        });
        Ok(SemanticIndex {
            skills,
            rows,
            stats: EmbedStats {
                entries: count,
                tools: count - skills,
                embedded,
                cache_error,
            },
        })
    }

    /// The unit vector of a query.
    pub fn query_vector(&self, query: &str) -> Result<Vec<f32>, EmbedError> {
        if let Some((last, vector)) = &*self.last_query.lock().unwrap_or_else(|e| e.into_inner()) {
            if last == query {
                return Ok(vector.clone());
            }
        }
        let vector = self
            .embedder
            .embed(&[query])?
            .pop()
            .unwrap_or_else(|| vec![0.0; self.embedder.dimension()]);
        *self.last_query.lock().unwrap_or_else(|e| e.into_inner()) =
            Some((query.to_string(), vector.clone()));
        Ok(vector)
    }
}

/// Without the `semantic` feature there is no model: [`SemanticModel::load`]
/// says how to get one, and no value of this type can exist.
#[cfg(not(feature = "semantic"))]
#[derive(Debug)]
pub enum SemanticModel {}

#[cfg(not(feature = "semantic"))]
impl SemanticModel {
    pub fn load(_model_dir: &Path, _cache_dir: Option<&Path>) -> Result<SemanticModel, EmbedError> {
        Err(EmbedError::NotBuilt)
    }

    pub fn with_weight(self, _weight: f32) -> SemanticModel {
        match self {}
    }

    pub fn weight(&self) -> f32 {
        match *self {}
    }

    pub fn index(&self, _catalog: &Catalog) -> Result<SemanticIndex, EmbedError> {
        match *self {}
    }

    pub fn query_vector(&self, _query: &str) -> Result<Vec<f32>, EmbedError> {
        match *self {}
    }
}

/// One query's cosines and the weight they mix with.
pub(super) struct QueryCosines {
    /// Per skill.
    pub(super) cosines: Vec<f32>,
    /// Per tool (empty: tools ranked by their words alone).
    pub(super) tools: Vec<f32>,
    pub(super) weight: f32,
}

/// Mix the lexical candidates `ranked` (relevance, lexical relevance, doc)
/// with the cosines: every entry becomes a candidate, its first value the
/// mix and its second its lexical relevance (0 for an entry no word
/// matched). Also says whether meaning alone answers the query.
pub(super) fn fuse(
    ranked: &[(f32, f32, u32)],
    cosines: &[f32],
    w: f32,
) -> (Vec<(f32, f32, u32)>, bool) {
    let best_lexical = ranked.iter().map(|r| r.0).fold(0.0f32, f32::max);
    let mut lexical = vec![0.0f32; cosines.len()];
    for &(relevance, _, doc) in ranked {
        if let Some(slot) = lexical.get_mut(doc as usize) {
            *slot = relevance;
        }
    }
    let fused = cosines
        .iter()
        .zip(&lexical)
        .enumerate()
        .map(|(doc, (&cosine, &relevance))| {
            let lexical_share = if best_lexical > 0.0 {
                relevance / best_lexical
            } else {
                0.0
            };
            (
                (1.0 - w) * lexical_share + w * cosine.max(0.0),
                relevance,
                doc as u32,
            )
        })
        .collect();
    let best_cosine = cosines.iter().copied().fold(f32::MIN, f32::max);
    (fused, best_cosine >= SEMANTIC_MIN)
}

impl super::SearchIndex {
    /// Rank the skills of `catalog` for `query` in the semantic mode, with
    /// `vectors` made by `model` for this snapshot.
    pub fn search_semantic(
        &self,
        catalog: &Catalog,
        query: &str,
        options: &super::SearchOptions,
        model: &SemanticModel,
        vectors: &SemanticIndex,
    ) -> Result<super::SearchResults, crate::embed::EmbedError> {
        if let Some(list) = super::select_list(query) {
            return Ok(super::named::select(catalog, query, list, options));
        }
        let query = crate::text::cut_at_char_boundary(query, super::MAX_QUERY_BYTES);
        let vector = model.query_vector(query)?;
        let cosines = QueryCosines {
            cosines: vectors.cosines(&vector),
            tools: vectors.tool_cosines(&vector),
            weight: model.weight(),
        };
        Ok(super::search(catalog, self, query, options, Some(&cosines)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{Confidence, SearchIndex, SearchOptions};

    fn catalog(skills: &[(&str, &str)]) -> (tempfile::TempDir, Catalog) {
        let dir = tempfile::tempdir().unwrap();
        for (name, description) in skills {
            let folder = dir.path().join(name);
            std::fs::create_dir_all(&folder).unwrap();
            std::fs::write(
                folder.join("SKILL.md"),
                format!("---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n"),
            )
            .unwrap();
        }
        let catalog = crate::CatalogBuilder::new([dir.path().to_path_buf()])
            .build()
            .unwrap();
        (dir, catalog)
    }

    fn run(catalog: &Catalog, query: &str, cosines: Vec<f32>) -> crate::search::SearchResults {
        let index = SearchIndex::build(catalog);
        let semantic = QueryCosines {
            cosines,
            tools: Vec::new(),
            weight: DEFAULT_WEIGHT,
        };
        super::super::search(
            catalog,
            &index,
            query,
            &SearchOptions::skills(5),
            Some(&semantic),
        )
    }

    fn position(catalog: &Catalog, name: &str) -> usize {
        catalog
            .skills()
            .iter()
            .position(|s| s.name == name)
            .unwrap()
    }

    /// A search that cannot wait answers lexically while the vectors are
    /// embedded on their own thread, says so, and turns semantic once they
    /// are; a waiting search is semantic at once.
    #[cfg(feature = "semantic")]
    #[test]
    fn a_search_that_cannot_wait_is_lexical_until_the_vectors_are_built() {
        let Some(model) = crate::embed::test_model() else {
            return;
        };
        let (_dir, catalog) = catalog(&[
            (
                "currency-converter",
                "Convert an amount between two currencies.",
            ),
            ("sql-formatter", "Format SQL queries."),
        ]);
        let catalog = std::sync::Arc::new(catalog);
        let model = std::sync::Arc::new(SemanticModel::load(&model, None).unwrap());
        let searchable =
            crate::search::Searchable::with_semantic(std::sync::Arc::clone(&catalog), model);
        let options = SearchOptions::skills(5);
        let query = "how many yen for fifty euros";
        let (first, warming) = searchable.search_ready(query, &options, std::time::Duration::ZERO);
        assert!(warming && !first.semantic, "{first:?}");
        let (later, warming) =
            searchable.search_ready(query, &options, std::time::Duration::from_secs(120));
        assert!(!warming && later.semantic, "{later:?}");
        assert_eq!(
            catalog.skills()[later.hits[0].index].name,
            "currency-converter"
        );
    }

    #[test]
    fn meaning_lifts_a_skill_but_never_makes_it_sure() {
        let (_dir, catalog) = catalog(&[
            (
                "currency-converter",
                "Convert an amount between two currencies.",
            ),
            ("flight-finder", "Find flights between airports."),
            ("sql-formatter", "Format SQL queries."),
        ]);
        let mut cosines = vec![0.05; 3];
        cosines[position(&catalog, "currency-converter")] = 0.6;
        let results = run(&catalog, "how many yen for fifty euros", cosines);
        assert!(results.semantic);
        assert!(!results.no_match);
        let first = results.hits[0];
        assert_eq!(catalog.skills()[first.index].name, "currency-converter");
        assert_eq!(first.confidence, Confidence::Low);
        assert_eq!(results.confidence, Confidence::Low);
    }

    #[test]
    fn weak_cosines_alone_are_no_match_and_lexical_sure_answers_stay_sure() {
        let (_dir, catalog) = catalog(&[
            (
                "currency-converter",
                "Convert an amount between two currencies.",
            ),
            ("sql-formatter", "Format SQL queries."),
        ]);
        let results = run(&catalog, "knit a warm sweater", vec![SEMANTIC_MIN - 0.1; 2]);
        assert!(results.no_match, "{results:?}");

        let mut cosines = vec![0.0; 2];
        cosines[position(&catalog, "currency-converter")] = 0.3;
        cosines[position(&catalog, "sql-formatter")] = 0.7;
        let results = run(&catalog, "format sql queries", cosines);
        let first = results.hits[0];
        assert_eq!(catalog.skills()[first.index].name, "sql-formatter");
        assert_eq!(first.confidence, Confidence::High);
        // The other one comes after it, flagged by its own (missing) words.
        let other = results
            .hits
            .iter()
            .find(|h| h.index != first.index)
            .unwrap();
        assert_eq!(other.confidence, Confidence::Low);
    }

    #[test]
    fn entry_text_is_the_name_in_words_and_the_description() {
        let (_dir, catalog) = catalog(&[("sql-formatter", "Format SQL queries.")]);
        assert_eq!(
            skill_text(&catalog, 0),
            "sql formatter: Format SQL queries."
        );
    }

    fn tool_catalog() -> (tempfile::TempDir, Catalog) {
        let folder = tempfile::tempdir().unwrap();
        let write = |server: &str, description: &str, tools: &[(&str, &str)]| {
            let tools: Vec<serde_json::Value> = tools
                .iter()
                .map(|(name, text)| {
                    serde_json::json!({"name": name, "description": text,
                        "inputSchema": {"type": "object", "properties": {
                            "amountDue": {"type": "number", "description": "How much."}}}})
                })
                .collect();
            let path = folder.path().join(server).join("mcp-tools.json");
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            let value = serde_json::json!({"server": {"description": description}, "tools": tools});
            std::fs::write(path, value.to_string()).unwrap();
        };
        write(
            "bank",
            "Accounts and payments of a bank.",
            &[
                ("convertCurrency", "Convert an amount between currencies."),
                ("list_payments", "List the payments of an account."),
            ],
        );
        write(
            "shop",
            "An online shop: orders and payments.",
            &[("list_payments", "List the payments of an order.")],
        );
        let catalog = crate::CatalogBuilder::new([folder.path()]).build().unwrap();
        (folder, catalog)
    }

    fn tool_search(
        catalog: &Catalog,
        query: &str,
        tools: Vec<f32>,
    ) -> crate::search::SearchResults {
        let index = SearchIndex::build(catalog);
        let semantic = QueryCosines {
            cosines: vec![0.0; catalog.skills().len()],
            tools,
            weight: DEFAULT_WEIGHT,
        };
        let options = SearchOptions {
            limit: 5,
            kind: Some(crate::search::EntryKind::Tool),
        };
        super::super::search(catalog, &index, query, &options, Some(&semantic))
    }

    fn tool_position(catalog: &Catalog, id: &str) -> usize {
        (0..catalog.tool_count())
            .position(|i| catalog.tool_at(i).unwrap().1.id == id)
            .unwrap()
    }

    #[test]
    fn tools_mix_meaning_with_their_words_and_their_servers_evidence() {
        let (_keep, catalog) = tool_catalog();
        // No word in common: the cosine finds the tool, flagged low.
        let mut cosines = vec![0.05; catalog.tool_count()];
        cosines[tool_position(&catalog, "bank/convertCurrency")] = 0.6;
        let results = tool_search(&catalog, "how many yen for fifty euros", cosines);
        assert!(results.semantic && !results.no_match, "{results:?}");
        assert_eq!(results.hits[0].id(&catalog), "bank/convertCurrency");
        assert_eq!(results.hits[0].confidence, Confidence::Low);

        // Equal cosines: the server's words still say which tool is meant,
        // and the sure answer stays sure.
        let cosines = vec![0.4; catalog.tool_count()];
        let results = tool_search(&catalog, "list payments of the online shop", cosines);
        assert_eq!(
            results.hits[0].id(&catalog),
            "shop/list_payments",
            "{results:?}"
        );
        assert_eq!(results.hits[0].confidence, Confidence::High);

        // Cosines too weak and no word shared: no match.
        let results = tool_search(
            &catalog,
            "knit a warm sweater",
            vec![SEMANTIC_MIN - 0.1; catalog.tool_count()],
        );
        assert!(results.no_match, "{results:?}");
    }

    #[test]
    fn a_tool_text_names_server_and_tool_in_words_with_its_parameters_bounded() {
        let (_keep, catalog) = tool_catalog();
        let at = tool_position(&catalog, "bank/convertCurrency");
        assert_eq!(
            tool_text(&catalog, at).unwrap(),
            "bank / convert currency: Convert an amount between currencies. Parameters: amount due (How much.);"
        );
        assert!(tool_text(&catalog, catalog.tool_count()).is_none());
        assert_eq!(name_words("getHTTPStatus_v2"), "get httpstatus v2");
        assert_eq!(name_words("read-text.file"), "read text file");
    }
}
