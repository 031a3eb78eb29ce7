//! Ranked search over the catalog: which skills fit a task described in a
//! few words.
//!
//! Lexical and built for short texts. Each skill is a document with weighted
//! fields (name, description, headings); each namespace is one too (its
//! path and description). A query is split the way the documents are
//! (identifiers at `_`, `-` and case changes, stems, CJK character pairs),
//! widened with synonyms of common task words and with near spellings of
//! words the catalog does not know, then scored with BM25F.
//!
//! Query words weigh by what the catalog says about them: a word most
//! skills have says little, a word the catalog lacks nothing for the
//! ranking. Namespaces are scored first and lift the skills inside the
//! ones that match, the way a person picks the shelf, then the book. A
//! skill named exactly in the query ranks first.
//!
//! Honest without hiding: weak candidates are returned, flagged with
//! [`Confidence::Low`] (on the answer and on each hit) and the words that
//! matched nothing or only weakly, so the caller decides. The answer is
//! "no match" only when no skill shares a meaningful word with the query
//! (a light word such as "fix" alone is not one).

pub(crate) mod index;
pub(crate) mod kinds;
mod named;
mod output;
mod plan;
mod rank;
mod searchable;
pub mod semantic;
pub mod specs;
mod text;

use crate::catalog::Catalog;
pub use kinds::ToolScoring;
use named::select;
pub use named::select_list;
pub use output::{advice, results_json, tool_specs};
use plan::NameWords;
pub use searchable::{Searchable, READY_GRACE, SEMANTIC_OFF_NOTE, WARMING_NOTE};
pub use semantic::{skill_text, tool_text, EmbedStats, SemanticIndex, SemanticModel};
use text::Kind;

/// Options of one search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchOptions {
    /// At most this many results.
    pub limit: usize,
    /// Only skills, or only tools; both when `None` (the default).
    pub kind: Option<EntryKind>,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            limit: 8,
            kind: None,
        }
    }
}

impl SearchOptions {
    /// At most `limit` skills, no tools (what skilldex's own `search`
    /// tool answers).
    pub fn skills(limit: usize) -> SearchOptions {
        SearchOptions {
            limit,
            kind: Some(EntryKind::Skill),
        }
    }
}

/// What a catalog entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EntryKind {
    /// A skill: `Hit::index` is into [`Catalog::skills`].
    Skill,
    /// An MCP tool: `Hit::index` is into [`Catalog::tools`] (see
    /// [`Catalog::tool_at`]).
    Tool,
}

impl EntryKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EntryKind::Skill => "skill",
            EntryKind::Tool => "tool",
        }
    }
}

/// How sure an answer is. `High`: the skill matches what the query is
/// about. `Low`: it is the best there is, but it matches little of the
/// query (see `unmatched_terms` and `weak_terms`), so check its
/// description before relying on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Confidence {
    Low,
    High,
}

impl Confidence {
    pub fn as_str(self) -> &'static str {
        match self {
            Confidence::High => "high",
            Confidence::Low => "low",
        }
    }
}

/// One ranked entry: a skill or a tool.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    pub kind: EntryKind,
    /// Index into [`Catalog::skills`] for a skill, into [`Catalog::tools`]
    /// for a tool.
    pub index: usize,
    /// Relevance in 0..=1 (1 for a skill named exactly).
    pub score: f32,
    /// Whether this skill matches what the query is about.
    pub confidence: Confidence,
}

/// A namespace and how well it matches the query.
#[derive(Debug, Clone, PartialEq)]
pub struct NamespaceScore {
    pub name: String,
    pub score: f32,
}

/// The answer to a query.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchResults {
    pub query: String,
    pub hits: Vec<Hit>,
    /// The best-matching namespaces, best first (at most three).
    pub namespaces: Vec<NamespaceScore>,
    /// True when no skill shares a meaningful word with the query (`hits`
    /// is then empty).
    pub no_match: bool,
    /// `High` when at least one hit matches what the query is about;
    /// `Low` when the hits are only the closest there is (and for no match).
    pub confidence: Confidence,
    /// True when the ranking mixed in a sentence model's cosines (see
    /// [`semantic`]).
    pub semantic: bool,
    /// Query words that matched nothing in the catalog.
    pub unmatched_terms: Vec<String>,
    /// Query words that matched only weakly: the catalog does not have
    /// them, and what was tried instead is a synonym (`picture` → image)
    /// or a guess (`dock` → docs), which counts half. Together with
    /// `unmatched_terms`, they say why an answer is "no match".
    pub weak_terms: Vec<String>,
}

/// When a hit is a sure answer (confidence `high`): it matches at least one
/// query word exactly, scores above [`FLOOR`], and covers more than
/// [`HIGH_SHARE`] of the query's evidence weight (half is not enough: "bake
/// bread" is not about a Dockerfile's baked-in secrets), or [`HIGH_MASS`] words' worth of it (a word
/// found in one skill weighs 1, a common one less) and [`HIGH_MASS_SHARE`].
/// Words unknown to the catalog weigh in full: they may be what the query
/// is about ("knit a sweater"), so a skill that matches only the other
/// words is flagged `low`, never hidden.
const HIGH_SHARE: f32 = 0.5;
const HIGH_MASS: f32 = 2.0;
const HIGH_MASS_SHARE: f32 = 0.15;
/// What a word of a skill's first paragraph weighs, against one of its
/// description's 1.
const LEAD_WEIGHT: f32 = 0.15;
/// What a light word ("fix", "file", "return") weighs, against a word's 1.
const LIGHT_MASS: f32 = 0.5;
/// Relevance (score over the query's ideal score) under which a hit is
/// never sure, whatever it matched.
const FLOOR: f32 = 0.02;
/// At most this many names in a `select:` list.
const MAX_SELECT: usize = 256;
/// Longer queries are cut to this many bytes.
const MAX_QUERY_BYTES: usize = 1024;

/// A namespace matching at least this well puts all its skills in the
/// running.
const NAMESPACE_MIN: f32 = 0.3;
/// A word found in a skill's name (or a namespace's path) weighs at least
/// this share of the most a word can weigh (the idf of a word no document
/// has). A skill is named for what it is about, so a common word there
/// ("pdf" among many PDF skills) still says more than a rarer word in
/// another skill's description ("merged pull requests" for "merge pdf").
/// On a large catalog that is about the weight of a word in one skill of
/// thirty.
const NAME_IDF_FLOOR: f32 = 0.35;
/// Results scoring under this share of the best one are noise.
const RELATIVE_FLOOR: f32 = 0.15;

impl Hit {
    /// The entry's id: a skill's id, or a tool's `server/tool`.
    pub fn id<'a>(&self, catalog: &'a Catalog) -> &'a str {
        match self.kind {
            EntryKind::Skill => catalog
                .skills()
                .get(self.index)
                .map_or("", |s| s.id.as_str()),
            EntryKind::Tool => catalog
                .tool_at(self.index)
                .map_or("", |(_, t)| t.id.as_str()),
        }
    }
}

/// The text search indexes for one entry (`index` as in [`Hit::index`]),
/// its fields joined by newlines: what an embedding of the entry should
/// cover. A tool's text includes its server's name and description.
pub fn entry_text(catalog: &Catalog, kind: EntryKind, index: usize) -> Option<String> {
    match kind {
        EntryKind::Skill => {
            let s = catalog.skills().get(index)?;
            let b = &s.body;
            Some([s.name.as_str(), &s.description, &b.headings, &b.lead].join("\n"))
        }
        EntryKind::Tool => {
            let (server, tool) = catalog.tool_at(index)?;
            let [name, described, parameters, hint] = kinds::tool_text(tool);
            let [server_name, server_described] = kinds::server_text(server);
            let fields = [
                name,
                described,
                parameters,
                hint,
                server_name,
                server_described,
            ];
            Some(fields.join("\n"))
        }
    }
}

/// The search index of one catalog snapshot, built once on first use.
#[derive(Debug, Clone, Default)]
pub struct SearchIndex {
    skills: rank::Tier,
    /// Built on the first query word the index does not know.
    names: std::sync::OnceLock<NameWords>,
    /// The tools (empty when the catalog has none).
    tools: rank::Tier,
    tool_scoring: ToolScoring,
}

impl SearchIndex {
    pub fn build(catalog: &Catalog) -> SearchIndex {
        SearchIndex::build_with(catalog, ToolScoring::Hierarchical)
    }

    /// The index with tools scored as `scoring` says (flat scoring is kept
    /// to measure what the hierarchy brings).
    pub fn build_with(catalog: &Catalog, scoring: ToolScoring) -> SearchIndex {
        SearchIndex {
            skills: kinds::skill_tier(catalog),
            names: std::sync::OnceLock::new(),
            tools: kinds::tool_tier(catalog, scoring),
            tool_scoring: scoring,
        }
    }

    /// How this index scores tools.
    pub fn tool_scoring(&self) -> ToolScoring {
        self.tool_scoring
    }

    /// The words of the skills' names (see [`NameWords`]).
    fn name_words(&self, catalog: &Catalog) -> &NameWords {
        self.names.get_or_init(|| {
            let mut names = NameWords::default();
            for skill in catalog.skills() {
                let name = skill.name.to_lowercase();
                let words: Vec<(String, u32)> = text::terms(&name)
                    .into_iter()
                    .filter(|t| t.kind == Kind::Word)
                    .filter_map(|t| Some((t.surface, self.skills.entries.term(&t.text)?)))
                    .collect();
                if words.is_empty() {
                    continue;
                }
                if name.contains(['-', '_', '.']) {
                    let key: String = name
                        .chars()
                        .filter(|c| !matches!(c, '-' | '_' | '.'))
                        .collect();
                    names
                        .joined
                        .entry(key)
                        .or_insert_with(|| words.iter().map(|w| w.1).collect());
                }
                names
                    .words
                    .extend(words.into_iter().map(|(w, id)| (w.into_boxed_str(), id)));
            }
            names.words.sort_unstable();
            names.words.dedup();
            names
        })
    }

    /// Approximate heap size in bytes.
    pub fn heap_bytes(&self) -> usize {
        self.skills.heap_bytes() + self.tools.heap_bytes()
    }
}

impl Catalog {
    /// Rank the skills for `query`, building this snapshot's index for the
    /// one answer. To search one snapshot many times, keep a
    /// [`SearchIndex`] (or a [`Searchable`]) beside it.
    pub fn search(&self, query: &str, options: &SearchOptions) -> SearchResults {
        // `select:` names skills: no index needed.
        if let Some(list) = select_list(query) {
            return select(self, query, list, options);
        }
        SearchIndex::build(self).search(self, query, options)
    }
}

impl SearchIndex {
    /// Rank the skills of `catalog` (the snapshot this index was built
    /// from) for `query`.
    pub fn search(&self, catalog: &Catalog, query: &str, options: &SearchOptions) -> SearchResults {
        if let Some(list) = select_list(query) {
            return select(catalog, query, list, options);
        }
        search(catalog, self, query, options, None)
    }
}

fn search(
    catalog: &Catalog,
    index: &SearchIndex,
    query: &str,
    options: &SearchOptions,
    semantic: Option<&semantic::QueryCosines>,
) -> SearchResults {
    let limit = options.limit.max(1);
    // A query is a few words; a runaway one is cut (at a character
    // boundary) so it costs what a long sentence costs, not more.
    let query = crate::text::cut_at_char_boundary(query, MAX_QUERY_BYTES);
    let want_tools = options.kind != Some(EntryKind::Skill) && catalog.tool_count() > 0;
    let want_skills = options.kind != Some(EntryKind::Tool);
    let skills = want_skills.then(|| {
        let query = rank::Query {
            kind: EntryKind::Skill,
            text: query,
            names: Some(index.name_words(catalog)),
            pinned: named::named_skills(catalog, query),
            limit,
            semantic: semantic.map(|s| (s.cosines.as_slice(), s.weight)),
        };
        let skills = catalog.skills();
        rank::answer(
            &index.skills,
            query,
            |g| catalog.namespaces()[g].name.clone(),
            |e, word| skills[e].name.contains(word),
        )
    });
    let tools = want_tools.then(|| {
        let query = rank::Query {
            kind: EntryKind::Tool,
            text: query,
            names: None,
            pinned: named::named_tools(catalog, query),
            limit,
            semantic: semantic
                .filter(|s| s.tools.len() == catalog.tool_count())
                .map(|s| (s.tools.as_slice(), s.weight)),
        };
        rank::answer(
            &index.tools,
            query,
            |g| catalog.tool_servers()[g].name.clone(),
            |e, word| {
                catalog
                    .tool_at(e)
                    .is_some_and(|(_, tool)| tool.id.to_lowercase().contains(word))
            },
        )
    });
    merge(
        query,
        [skills, tools].into_iter().flatten().collect(),
        limit,
    )
}

/// One answer of the kinds' answers: hits by score (a skill before a tool
/// at equal scores), groups by score, words unmatched only when every kind
/// missed them.
fn merge(query: &str, answers: Vec<rank::Answer>, limit: usize) -> SearchResults {
    let mut hits: Vec<Hit> = answers
        .iter()
        .flat_map(|a| a.hits.iter().cloned())
        .collect();
    // Stable: within a kind, the order of its own ranking stays.
    hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.kind.cmp(&b.kind)));
    hits.truncate(limit);
    let mut namespaces: Vec<NamespaceScore> = answers
        .iter()
        .flat_map(|a| a.groups.iter().cloned())
        .collect();
    namespaces.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.name.cmp(&b.name))
    });
    namespaces.truncate(3);
    let missed =
        |a: &rank::Answer, t: &String| a.unmatched_terms.contains(t) || a.weak_terms.contains(t);
    let mut unmatched_terms: Vec<String> = Vec::new();
    let mut weak_terms: Vec<String> = Vec::new();
    for answer in &answers {
        for t in &answer.unmatched_terms {
            if answers.iter().all(|a| a.unmatched_terms.contains(t)) && !unmatched_terms.contains(t)
            {
                unmatched_terms.push(t.clone());
            }
        }
    }
    for answer in &answers {
        for t in &answer.weak_terms {
            if answers.iter().all(|a| missed(a, t))
                && !unmatched_terms.contains(t)
                && !weak_terms.contains(t)
            {
                weak_terms.push(t.clone());
            }
        }
    }
    SearchResults {
        query: query.to_string(),
        no_match: hits.is_empty(),
        confidence: answer_confidence(&hits),
        semantic: answers.iter().any(|a| a.semantic),
        hits,
        namespaces,
        unmatched_terms,
        weak_terms,
    }
}

/// The hits of a ranking: the entries named in the query first, then the
/// best of `ranked` down to [`RELATIVE_FLOOR`] of the top, each flagged by
/// its own lexical evidence. None unless something shares a meaningful
/// word with the query (or meaning alone answers): then it is "no match".
/// Once one does, the others that rank well come too: an entry that
/// matches only "work" in "work on two branches" may still be the one.
fn hits_of(
    kind: EntryKind,
    pinned: &[usize],
    ranked: &[(f32, f32, u32)],
    meaning_answers: bool,
    limit: usize,
    plan: &plan::Plan,
    scored: &plan::Scored,
) -> Vec<Hit> {
    let evidence = |d: usize| plan.has_subject(scored.docs[d].full | scored.docs[d].partial);
    let mut hits: Vec<Hit> = pinned
        .iter()
        .map(|&index| Hit {
            kind,
            index,
            score: 1.0,
            confidence: Confidence::High,
        })
        .collect();
    let answerable = meaning_answers || ranked.iter().any(|r| evidence(r.2 as usize));
    let top = ranked.first().map_or(0.0, |b| b.0);
    for &(relevance, lexical, doc) in ranked.iter().filter(|_| answerable) {
        if hits.len() >= limit || relevance < top * RELATIVE_FLOOR {
            break;
        }
        let d = doc as usize;
        if hits.iter().any(|h| h.index == d) {
            continue;
        }
        hits.push(Hit {
            kind,
            index: d,
            score: display_score(relevance),
            // The lexical evidence alone decides how sure a hit is.
            confidence: confidence(plan, scored, lexical, d),
        });
    }
    hits
}

/// How sure a hit with this lexical `relevance` is, from what document
/// `d` matched of the plan (skills and tools alike).
fn confidence(plan: &plan::Plan, scored: &plan::Scored, relevance: f32, d: usize) -> Confidence {
    let (mass, share) = plan.evidence(scored.docs[d].full, scored.docs[d].partial);
    let sure = relevance >= FLOOR
        && plan.full_mass(scored.docs[d].full) >= 1.0
        && (share > HIGH_SHARE || (mass >= HIGH_MASS && share >= HIGH_MASS_SHARE));
    if sure {
        Confidence::High
    } else {
        Confidence::Low
    }
}

/// The best `keep` of the items offered, best first, by `by_rank`: a total
/// order of `(relevance, lexical relevance, entry)` with ties by id, so
/// the answer does not depend on the order of the offers.
struct Best<F> {
    keep: usize,
    by_rank: F,
    /// Few kept: sorted as they come, most offers losing to the last in
    /// one comparison. Many kept: all gathered, then a partial selection.
    items: Vec<(f32, f32, u32)>,
}

impl<F: Fn(&(f32, f32, u32), &(f32, f32, u32)) -> std::cmp::Ordering> Best<F> {
    /// Above this many kept, gather and select.
    const SORTED_UP_TO: usize = 64;

    fn new(keep: usize, by_rank: F) -> Self {
        Best {
            keep,
            by_rank,
            items: Vec::with_capacity(keep.min(Self::SORTED_UP_TO) + 1),
        }
    }

    #[inline]
    fn offer(&mut self, item: (f32, f32, u32)) {
        if self.keep > Self::SORTED_UP_TO {
            self.items.push(item);
            return;
        }
        if self.items.len() == self.keep {
            let Some(last) = self.items.last() else {
                return;
            };
            // Most offers: plainly lower than the last kept.
            if item.0 < last.0 || (self.by_rank)(&item, last).is_ge() {
                return;
            }
        }
        let at = self
            .items
            .partition_point(|kept| (self.by_rank)(kept, &item).is_lt());
        self.items.insert(at, item);
        self.items.truncate(self.keep);
    }

    /// The best kept: of the offers (lexical), or of the mix of `lexical`
    /// (then every candidate, none offered) with `cosines` at `weight`
    /// (semantic), and whether meaning alone answers.
    fn finish(
        self,
        lexical: &[(f32, f32, u32)],
        semantic: Option<(&[f32], f32)>,
    ) -> (Vec<(f32, f32, u32)>, bool) {
        let Some((cosines, weight)) = semantic else {
            return (self.into_vec(), false);
        };
        let (fused, meaning) = semantic::fuse(lexical, cosines, weight);
        let mut best = Best::new(self.keep, self.by_rank);
        fused.into_iter().for_each(|r| best.offer(r));
        (best.into_vec(), meaning)
    }

    fn into_vec(self) -> Vec<(f32, f32, u32)> {
        let Best {
            keep,
            by_rank,
            mut items,
        } = self;
        if keep > Self::SORTED_UP_TO {
            if keep < items.len() {
                items.select_nth_unstable_by(keep - 1, &by_rank);
                items.truncate(keep);
            }
            items.sort_by(&by_rank);
        }
        items
    }
}

/// An answer is as sure as its surest hit.
fn answer_confidence(hits: &[Hit]) -> Confidence {
    hits.iter()
        .map(|h| h.confidence)
        .max()
        .unwrap_or(Confidence::Low)
}

/// Relevance squashed into 0..1 (exclusive: 1 is kept for skills named
/// exactly), rounded so output is stable.
fn display_score(relevance: f32) -> f32 {
    round((1.0 - (-relevance).exp()).min(0.999))
}

fn round(x: f32) -> f32 {
    (x * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::Best;
    use proptest::prelude::*;

    proptest! {
        /// Kept as they come or gathered and selected, the best are the
        /// first of a full sort, in its order, whatever the order offered.
        #[test]
        fn the_best_kept_are_the_first_of_a_full_sort(
            scores in proptest::collection::vec(0u8..6, 0..300),
            keep in prop_oneof![0usize..5, 60usize..70, 150usize..400],
        ) {
            // Few distinct scores: many ties, broken by the entry.
            let items: Vec<(f32, f32, u32)> = scores
                .iter()
                .enumerate()
                .map(|(i, &s)| (f32::from(s) / 5.0, 0.0, (i * 7919 % 1009) as u32))
                .collect();
            let by_rank = |a: &(f32, f32, u32), b: &(f32, f32, u32)| {
                b.0.total_cmp(&a.0).then(a.2.cmp(&b.2))
            };
            let mut sorted = items.clone();
            sorted.sort_by(by_rank);
            sorted.truncate(keep);
            let mut best = Best::new(keep, by_rank);
            for &item in &items {
                best.offer(item);
            }
            prop_assert_eq!(best.into_vec(), sorted);
        }
    }
}
