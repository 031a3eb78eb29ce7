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
//! **What is embedded.** [`skill_text`] is the one function that says what
//! text stands for an entry; its vectors come from the
//! [`EmbeddingCache`](crate::embed::EmbeddingCache) when that text was
//! embedded before (by this process or an earlier one), so a rebuilt
//! snapshot embeds only the entries whose text changed.

use crate::catalog::Catalog;
use crate::embed::{self, EmbedError};
#[cfg(feature = "semantic")]
use crate::embed::{Embedder, EmbeddingCache};
use std::path::Path;
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
    let skill = &catalog.skills()[index];
    let name: String = skill
        .name
        .chars()
        .map(|c| if matches!(c, '-' | '_') { ' ' } else { c })
        .collect();
    format!("{name}: {}", skill.description)
}

/// A loaded model with the cache of its vectors, shared by every snapshot
/// a process searches (so a reload embeds only what changed).
#[cfg(feature = "semantic")]
#[derive(Debug)]
pub struct SemanticModel {
    embedder: Embedder,
    cache: Mutex<EmbeddingCache>,
    weight: f32,
}

/// What building a snapshot's vectors did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EmbedStats {
    pub entries: usize,
    /// Entries embedded now (the rest came from the cache).
    pub embedded: usize,
    /// Why the cache file could not be written, when it could not (the
    /// vectors are still used; the next run embeds them again).
    pub cache_error: Option<String>,
}

/// The vectors of one snapshot's entries, row by row.
#[derive(Debug, Clone)]
pub struct SemanticIndex {
    dimension: usize,
    vectors: Vec<f32>,
    stats: EmbedStats,
}

impl SemanticIndex {
    pub fn stats(&self) -> &EmbedStats {
        &self.stats
    }

    /// The cosine of every entry with `query` (a unit vector).
    pub fn cosines(&self, query: &[f32]) -> Vec<f32> {
        self.vectors
            .chunks_exact(self.dimension)
            .map(|row| embed::cosine(row, query))
            .collect()
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

    /// Vectors for every entry of `catalog`: from the cache, or embedded
    /// now (then written to the cache file).
    pub fn index(&self, catalog: &Catalog) -> Result<SemanticIndex, EmbedError> {
        let count = catalog.skills().len();
        let dimension = self.embedder.dimension();
        let texts: Vec<String> = (0..count).map(|i| skill_text(catalog, i)).collect();
        let keys: Vec<u128> = texts.iter().map(|t| embed::text_key(t)).collect();
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        let missing: Vec<usize> = (0..count)
            .filter(|&i| cache.get(keys[i]).is_none())
            .collect();
        if !missing.is_empty() {
            let batch: Vec<&str> = missing.iter().map(|&i| texts[i].as_str()).collect();
            let vectors = self.embedder.embed(&batch)?;
            for (&i, vector) in missing.iter().zip(vectors) {
                cache.insert(keys[i], vector);
            }
        }
        let mut vectors = Vec::with_capacity(count * dimension);
        for key in &keys {
            match cache.get(*key) {
                Some(v) => vectors.extend_from_slice(v),
                None => vectors.extend(std::iter::repeat_n(0.0, dimension)),
            }
        }
        let cache_error = cache.save().err().map(|e| {
            format!(
                "{}: {e}",
                cache
                    .path()
                    .map_or_else(String::new, |p| p.display().to_string())
            )
        });
        Ok(SemanticIndex {
            dimension,
            vectors,
            stats: EmbedStats {
                entries: count,
                embedded: missing.len(),
                cache_error,
            },
        })
    }

    /// The unit vector of a query.
    pub fn query_vector(&self, query: &str) -> Result<Vec<f32>, EmbedError> {
        Ok(self
            .embedder
            .embed(&[query])?
            .pop()
            .unwrap_or_else(|| vec![0.0; self.embedder.dimension()]))
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
    pub(super) cosines: Vec<f32>,
    pub(super) weight: f32,
}

/// Mix the lexical candidates `ranked` (relevance, lexical relevance, doc)
/// with the cosines: every entry becomes a candidate, its first value the
/// mix and its second its lexical relevance (0 for an entry no word
/// matched). Also says whether meaning alone answers the query.
pub(super) fn fuse(
    ranked: &[(f32, f32, u32)],
    semantic: &QueryCosines,
) -> (Vec<(f32, f32, u32)>, bool) {
    let best_lexical = ranked.iter().map(|r| r.0).fold(0.0f32, f32::max);
    let mut lexical = vec![0.0f32; semantic.cosines.len()];
    for &(relevance, _, doc) in ranked {
        if let Some(slot) = lexical.get_mut(doc as usize) {
            *slot = relevance;
        }
    }
    let w = semantic.weight;
    let fused = semantic
        .cosines
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
    let best_cosine = semantic.cosines.iter().copied().fold(f32::MIN, f32::max);
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
        let query = super::cut_at_char(query, super::MAX_QUERY_BYTES);
        let cosines = QueryCosines {
            cosines: vectors.cosines(&model.query_vector(query)?),
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
}
