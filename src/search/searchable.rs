//! A snapshot with its search index (and, in the semantic mode, its
//! vectors) kept beside it: what a server answering many searches holds.

use super::named::select;
use super::{search, select_list, SearchIndex, SearchOptions, SearchResults};
use super::{SemanticIndex, SemanticModel};
use crate::catalog::Catalog;

/// How long [`Searchable::search_ready`] waits for a snapshot's semantic
/// vectors before it answers lexically.
pub const READY_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// What an answer says when it is lexical because the semantic vectors
/// are still being embedded.
pub const WARMING_NOTE: &str = "the semantic index is still being built, so this ranking is lexical (by words only) — search again in a few seconds for the ranking by meaning";

/// What an answer says when it is lexical because semantic search is off:
/// a model was named but could not be loaded, or embedding failed. Where
/// the model is and what is wrong with it is for the server's log, not
/// for the answer.
pub const SEMANTIC_OFF_NOTE: &str = "semantic search is off (the model could not be loaded or run; the server's log says why), so this ranking is lexical (by words only)";

/// A snapshot with its search index beside it, built on the first search
/// and kept while the snapshot is: what a server that answers many
/// searches of one snapshot holds. With a [`SemanticModel`] (the
/// `semantic` feature), the entries' vectors are kept beside it too.
pub struct Searchable {
    catalog: std::sync::Arc<Catalog>,
    index: std::sync::OnceLock<SearchIndex>,
    semantic: Option<SemanticPart>,
    /// Semantic search was asked for, but there is no model.
    off: bool,
}

struct SemanticPart {
    model: std::sync::Arc<SemanticModel>,
    vectors: std::sync::Arc<Vectors>,
}

/// A snapshot's vectors, embedded once, by whichever thread asks first;
/// [`Searchable::search_ready`] waits for them a bounded time.
#[derive(Default)]
struct Vectors {
    built: std::sync::OnceLock<Result<SemanticIndex, String>>,
    /// A background build was started.
    started: std::sync::atomic::AtomicBool,
    /// Set (and signalled) once `built` is.
    done: std::sync::Mutex<bool>,
    signal: std::sync::Condvar,
}

impl Vectors {
    fn build(&self, model: &SemanticModel, catalog: &Catalog) -> &Result<SemanticIndex, String> {
        let built = self
            .built
            .get_or_init(|| model.index(catalog).map_err(|e| e.to_string()));
        *self.done.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.signal.notify_all();
        built
    }

    /// The vectors, when they are built within `grace`.
    fn wait(&self, grace: std::time::Duration) -> Option<&Result<SemanticIndex, String>> {
        if let Some(built) = self.built.get() {
            return Some(built);
        }
        let done = self.done.lock().unwrap_or_else(|e| e.into_inner());
        let _ = self
            .signal
            .wait_timeout_while(done, grace, |done| !*done)
            .unwrap_or_else(|e| e.into_inner());
        self.built.get()
    }
}

impl Searchable {
    pub fn new(catalog: std::sync::Arc<Catalog>) -> Searchable {
        Searchable {
            catalog,
            index: std::sync::OnceLock::new(),
            semantic: None,
            off: false,
        }
    }

    /// Search by words where a model was asked for but could not be loaded
    /// ([`Searchable::lexical_note`] says so).
    pub fn semantic_off(catalog: std::sync::Arc<Catalog>) -> Searchable {
        Searchable {
            off: true,
            ..Searchable::new(catalog)
        }
    }

    /// [`SEMANTIC_OFF_NOTE`] when this answers by words though semantic
    /// search was asked for: no model, or its vectors failed to build.
    pub fn lexical_note(&self) -> Option<&'static str> {
        let failed = self
            .semantic
            .as_ref()
            .is_some_and(|part| matches!(part.vectors.built.get(), Some(Err(_))));
        (self.off || failed).then_some(SEMANTIC_OFF_NOTE)
    }

    /// Search `catalog` in the semantic mode with `model` (shared by the
    /// snapshots of a process, so each new one embeds only what changed).
    pub fn with_semantic(
        catalog: std::sync::Arc<Catalog>,
        model: std::sync::Arc<SemanticModel>,
    ) -> Searchable {
        Searchable {
            semantic: Some(SemanticPart {
                model,
                vectors: std::sync::Arc::default(),
            }),
            ..Searchable::new(catalog)
        }
    }

    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// Another snapshot searched the same way (the same model, if any).
    pub fn for_catalog(&self, catalog: std::sync::Arc<Catalog>) -> Searchable {
        match &self.semantic {
            Some(part) => Searchable::with_semantic(catalog, std::sync::Arc::clone(&part.model)),
            None if self.off => Searchable::semantic_off(catalog),
            None => Searchable::new(catalog),
        }
    }

    /// The index, built now if it was not yet.
    pub fn index(&self) -> &SearchIndex {
        self.index.get_or_init(|| SearchIndex::build(&self.catalog))
    }

    /// The entries' vectors (embedded now if they were not yet), when this
    /// searches in the semantic mode.
    pub fn semantic_index(&self) -> Option<Result<&SemanticIndex, crate::embed::EmbedError>> {
        let part = self.semantic.as_ref()?;
        let built = part.vectors.build(&part.model, &self.catalog);
        Some(
            built
                .as_ref()
                .map_err(|e| crate::embed::EmbedError::Inference(e.clone())),
        )
    }

    /// Rank as [`Searchable::search`] does, but never wait long for the
    /// semantic vectors: they are embedded on a thread of their own, and
    /// when they are not ready within `grace`, the answer is lexical and
    /// the second value is true (ask again later for the semantic one).
    /// What a server answering while it warms up wants.
    pub fn search_ready(
        &self,
        query: &str,
        options: &SearchOptions,
        grace: std::time::Duration,
    ) -> (SearchResults, bool) {
        let Some(part) = &self.semantic else {
            return (self.search(query, options), false);
        };
        if part.vectors.built.get().is_none() && select_list(query).is_none() {
            if !part
                .vectors
                .started
                .swap(true, std::sync::atomic::Ordering::AcqRel)
            {
                let (vectors, model, catalog) = (
                    std::sync::Arc::clone(&part.vectors),
                    std::sync::Arc::clone(&part.model),
                    std::sync::Arc::clone(&self.catalog),
                );
                let spawned = std::thread::Builder::new()
                    .name("skilldex-embed".into())
                    .spawn(move || {
                        vectors.build(&model, &catalog);
                    });
                if spawned.is_err() {
                    // No thread to spare: embed here.
                    return (self.search(query, options), false);
                }
            }
            if part.vectors.wait(grace).is_none() {
                return (
                    search(&self.catalog, self.index(), query, options, None),
                    true,
                );
            }
        }
        (self.search(query, options), false)
    }

    /// Rank the skills for `query`. In the semantic mode, an embedding
    /// failure is an error (see [`Searchable::search`] for an answer
    /// regardless).
    pub fn try_search(
        &self,
        query: &str,
        options: &SearchOptions,
    ) -> Result<SearchResults, crate::embed::EmbedError> {
        if let Some(list) = select_list(query) {
            return Ok(select(&self.catalog, query, list, options));
        }
        if let Some(part) = &self.semantic {
            let vectors = self.semantic_index().transpose()?;
            if let Some(vectors) = vectors {
                return self.index().search_semantic(
                    &self.catalog,
                    query,
                    options,
                    &part.model,
                    vectors,
                );
            }
        }
        Ok(search(&self.catalog, self.index(), query, options, None))
    }

    /// Rank the skills for `query`; in the semantic mode, the lexical
    /// ranking when embedding fails (`semantic` is then false).
    pub fn search(&self, query: &str, options: &SearchOptions) -> SearchResults {
        match self.try_search(query, options) {
            Ok(results) => results,
            Err(_) => search(&self.catalog, self.index(), query, options, None),
        }
    }
}
