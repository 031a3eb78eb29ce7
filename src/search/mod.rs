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

#[doc(hidden)]
pub mod eval;
pub(crate) mod index;
mod text;

use crate::catalog::Catalog;
use crate::query::render::display_path;
use crate::query::PathStyle;
use index::{FastMap, FieldSpec, Inverted};
use serde_json::{json, Value};
use text::Kind;

/// Options of one search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchOptions {
    /// At most this many results.
    pub limit: usize,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions { limit: 8 }
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

/// One ranked skill.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    /// Index into [`Catalog::skills`].
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
/// A query word of this many characters or more one edit away from a
/// catalog word is taken for a typo of it, and counts as that word; from
/// [`MIN_SURE_SLIP`] characters when the edit is a letter left out or two
/// letters swapped.
const MIN_SURE_TYPO: usize = 6;
const MIN_SURE_SLIP: usize = 5;
/// The weight of a number word ("two") found in a skill: it says little
/// about which skill is meant ("between two versions" is not about merging
/// two PDFs).
const NUMBER_WEIGHT: f32 = 0.25;
/// At most this many names in a `select:` list.
const MAX_SELECT: usize = 256;
/// Longer queries are cut to this many bytes.
const MAX_QUERY_BYTES: usize = 1024;

fn cut_at_char(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

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

/// The search index of one catalog snapshot, built once on first use.
#[derive(Debug, Clone, Default)]
pub struct SearchIndex {
    skills: Inverted,
    namespaces: Inverted,
    /// Per skill: index of its namespace in `Catalog::namespaces`.
    skill_namespace: Vec<u32>,
    /// Runs of skills of one namespace: (namespace, first skill, end).
    namespace_runs: Vec<(u32, u32, u32)>,
    /// Per namespace: the nearest ancestor namespace, or `u32::MAX`.
    parent: Vec<u32>,
    /// Built on the first query word the index does not know.
    names: std::sync::OnceLock<NameWords>,
}

impl SearchIndex {
    pub fn build(catalog: &Catalog) -> SearchIndex {
        let skill_texts: Vec<[&str; 4]> = catalog
            .skills()
            .iter()
            .map(|s| [s.name.as_str(), &s.description, &s.headings, &s.lead])
            .collect();
        let skills = Inverted::build(
            [
                FieldSpec {
                    weight: 3.0,
                    b: 0.3,
                    min_idf: NAME_IDF_FLOOR,
                },
                FieldSpec {
                    weight: 1.0,
                    b: 0.75,
                    min_idf: 0.0,
                },
                FieldSpec {
                    weight: 0.5,
                    b: 0.5,
                    min_idf: 0.0,
                },
                // The body's first paragraph: the skill in its own words,
                // often the terms a user would type; at low weight, as it
                // also says much that is not what the skill is for.
                FieldSpec {
                    weight: LEAD_WEIGHT,
                    b: 0.75,
                    min_idf: 0.0,
                },
            ],
            &skill_texts,
        );
        let namespaces = catalog.namespaces();
        let namespace_texts: Vec<[&str; 2]> = namespaces
            .iter()
            .map(|n| [n.name.as_str(), &n.description])
            .collect();
        let ns_index = Inverted::build(
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
            &namespace_texts,
        );
        let position = |name: &str| {
            namespaces
                .binary_search_by(|n| n.name.as_str().cmp(name))
                .map_or(u32::MAX, |i| i as u32)
        };
        // Skills come sorted by namespace: look each run up once.
        let mut last: Option<(&str, u32)> = None;
        let skill_namespace: Vec<u32> = catalog
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
        let mut namespace_runs: Vec<(u32, u32, u32)> = Vec::new();
        for (d, &ns) in skill_namespace.iter().enumerate() {
            match namespace_runs.last_mut() {
                Some((n, _, end)) if *n == ns => *end = d as u32 + 1,
                _ => namespace_runs.push((ns, d as u32, d as u32 + 1)),
            }
        }
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
        SearchIndex {
            skills,
            namespaces: ns_index,
            skill_namespace,
            namespace_runs,
            parent,
            names: std::sync::OnceLock::new(),
        }
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
                    .filter_map(|t| Some((t.surface, self.skills.term(&t.text)?)))
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
        self.skills.heap_bytes()
            + self.namespaces.heap_bytes()
            + self.skill_namespace.len() * 4
            + self.namespace_runs.len() * 12
            + self.parent.len() * 4
    }
}

/// How a query term was matched, which sets its weight and how much of its
/// query word it covers.
#[derive(Debug, Clone, Copy)]
struct Expansion {
    term: u32,
    weight: f32,
    /// Query units (words, CJK characters) this term stands for.
    units: u64,
    /// Full (1.0) or partial (0.5) credit for those units.
    full: bool,
}

impl Expansion {
    fn new(term: u32, weight: f32, units: u64, full: bool) -> Self {
        Expansion {
            term,
            weight,
            units,
            full,
        }
    }
}

/// A query word (or CJK character) and what it weighs in the coverage.
#[derive(Debug, Clone)]
struct Unit {
    label: String,
    cjk: bool,
    mass: f32,
    /// A light word ("fix", "file"): it weighs [`LIGHT_MASS`] of its mass
    /// in the share of the query an answer must cover.
    light: bool,
    /// Something in the catalog answers to it, if only a guess.
    matched: bool,
    /// Something answers to it for sure: the word, its stem, a sure typo
    /// fix, a name it begins; not only a synonym or a guess.
    sure: bool,
    /// Only guesses answer to it (a near spelling of a short word, the
    /// start of some word): no evidence that a skill is meant.
    guessed: bool,
}

struct Plan {
    expansions: Vec<Expansion>,
    units: Vec<Unit>,
    /// Per unit (the first 64): what it weighs as evidence that a skill
    /// fits, in words: 1 for a word found in one skill, less for a common
    /// one (a word most skills have, "data" or "help", says little), and 1
    /// for a word the catalog does not have at all or only guessed (it may
    /// be what the query is about); light words half.
    evidence_weights: Vec<f32>,
}

/// What the skills' names offer a query word the index does not know: the
/// name typed without its separators (`gitbisect` for `git-bisect`), or the
/// start of one of its words (`kube` for `kubernetes`, `docker` for
/// `dockerfile`). Both are what a person types when they half remember a
/// name, so both count as real matches.
#[derive(Debug, Clone, Default)]
struct NameWords {
    /// Names with separators, joined, each with the terms of its words.
    joined: FastMap<String, Vec<u32>>,
    /// The words of the names as written (lower-cased, not stemmed),
    /// sorted, each with its term.
    words: Vec<(Box<str>, u32)>,
}

/// A query word this long (in characters) that begins a word of a skill's
/// name stands for that word. Shorter ones begin too many.
const MIN_NAME_PREFIX: usize = 4;

impl NameWords {
    /// Terms of the name words that begin with `prefix` and are longer,
    /// the most common first, at most `limit`.
    fn completions(&self, index: &Inverted, prefix: &str, limit: usize) -> Vec<u32> {
        if prefix.chars().count() < MIN_NAME_PREFIX {
            return Vec::new();
        }
        let start = self.words.partition_point(|(w, _)| &**w < prefix);
        let mut found: Vec<u32> = self.words[start..]
            .iter()
            .take_while(|(w, _)| w.starts_with(prefix))
            .filter(|(w, _)| w.len() > prefix.len())
            .map(|&(_, id)| id)
            .collect();
        found.sort_unstable();
        found.dedup();
        found.sort_by_key(|&id| std::cmp::Reverse(index.df(id)));
        found.truncate(limit);
        found
    }
}

fn plan(index: &Inverted, query: &str, names: Option<&NameWords>) -> Plan {
    let terms = text::terms(query);
    let mut units: Vec<Unit> = Vec::new();
    let mut expansions = Vec::new();
    let unit_bit = |u: usize| if u < 64 { 1u64 << u } else { 0 };
    for term in &terms {
        let (first, last) = term.units;
        while units.len() <= last {
            units.push(Unit {
                label: String::new(),
                cjk: false,
                mass: 0.0,
                light: false,
                matched: false,
                sure: false,
                guessed: false,
            });
        }
        let mask = (first..=last).fold(0u64, |m, u| m | unit_bit(u));
        match term.kind {
            Kind::Word => {
                let unit = &mut units[first];
                unit.label = term.surface.clone();
                let number = text::is_number_word(&term.surface);
                unit.mass = if number { 0.0 } else { 1.0 };
                unit.light = text::is_light_word(&term.text);
                if let Some(id) = index.term(&term.text) {
                    let weight = if number { NUMBER_WEIGHT } else { 1.0 };
                    expansions.push(Expansion::new(id, weight, mask, true));
                    unit.matched = true;
                    unit.sure = true;
                } else {
                    // Unknown word. A skill name typed without its hyphens
                    // (`gitbisect`) or the start of a word of a name (`kube`,
                    // `docker` for `dockerfile`) is someone half remembering
                    // a name: both count in full.
                    if let Some(terms) = names.and_then(|n| n.joined.get(term.surface.as_str())) {
                        for &id in terms {
                            expansions.push(Expansion::new(id, 0.8, mask, true));
                        }
                        unit.matched = true;
                        unit.sure = true;
                        continue;
                    }
                    let starts =
                        names.map_or_else(Vec::new, |n| n.completions(index, &term.surface, 3));
                    for &id in &starts {
                        expansions.push(Expansion::new(id, 0.7, mask, true));
                        unit.matched = true;
                        unit.sure = true;
                    }
                    // Otherwise, unless a synonym is known (the likelier
                    // reading), a near spelling, else a completion of any
                    // word. A near spelling of a short word and a
                    // completion are guesses: they cover their query word
                    // only in part.
                    let guess = starts.is_empty()
                        && !text::synonyms(&term.text)
                            .iter()
                            .any(|s| index.term(s).is_some());
                    if guess {
                        let mut near = index.near(&term.text, 2);
                        if near.is_empty() && term.surface != term.text {
                            near = index.near(&term.surface, 2);
                        }
                        // One edit in a word of six letters or more is almost
                        // surely a typo, and so is a slip in a five-letter
                        // word (a letter left out, `revew`, or two swapped);
                        // a letter changed in a short word often makes
                        // another word (`paint`, `print`), and four-letter
                        // words have too many neighbours (`dock`: docs, lock).
                        let letters = term.surface.chars().count();
                        for near in &near {
                            let one = near.distance == 1;
                            let weight = if one { 0.7 } else { 0.5 };
                            let sure = (one && letters >= MIN_SURE_TYPO)
                                || (one && near.slip && letters >= MIN_SURE_SLIP)
                                || letters >= 9;
                            expansions.push(Expansion::new(near.term, weight, mask, sure));
                            unit.matched = true;
                            unit.sure |= sure;
                        }
                        if near.is_empty() {
                            for id in index.completions(&term.surface, 2) {
                                expansions.push(Expansion::new(id, 0.5, mask, false));
                                unit.matched = true;
                            }
                        }
                        unit.guessed = unit.matched && !unit.sure;
                    }
                }
                for synonym in text::synonyms(&term.text) {
                    if let Some(id) = index.term(synonym) {
                        if !expansions.iter().any(|e| e.term == id && e.units == mask) {
                            expansions.push(Expansion::new(id, 0.5, mask, false));
                            units[first].matched = true;
                        }
                    }
                }
            }
            Kind::Compound => {
                if let Some(id) = index.term(&term.text) {
                    expansions.push(Expansion::new(id, 1.0, mask, true));
                    for u in &mut units[first..=last] {
                        u.matched = true;
                        u.sure = true;
                    }
                }
            }
            Kind::Pair | Kind::Single => {
                let full = term.kind == Kind::Pair;
                for (offset, c) in term.surface.chars().enumerate() {
                    let unit = &mut units[first + offset];
                    unit.label = c.to_string();
                    unit.cjk = true;
                    // Particles and pronouns weigh nothing in the coverage.
                    if !text::is_stop_char(c) {
                        unit.mass = 0.5;
                    }
                }
                if let Some(id) = index.term(&term.text) {
                    let weight = if full { 1.0 } else { 0.3 };
                    expansions.push(Expansion::new(id, weight, mask, full));
                    for u in &mut units[first..=last] {
                        u.matched = true;
                        u.sure |= full;
                    }
                }
            }
        }
    }
    // Chinese, Japanese and Korean words also look for their English
    // equivalents: the units of the characters they span get the credit.
    let glossary = text::glossary_matches(query);
    if !glossary.is_empty() {
        let mut unit_at: Vec<(usize, usize)> = Vec::new();
        for term in &terms {
            if matches!(term.kind, Kind::Single | Kind::Pair) {
                unit_at.push((term.offset, term.units.0));
                if term.kind == Kind::Pair {
                    if let Some(c) = term.surface.chars().next() {
                        unit_at.push((term.offset + c.len_utf8(), term.units.1));
                    }
                }
            }
        }
        for (start, end, english) in glossary {
            let covered: Vec<usize> = unit_at
                .iter()
                .filter(|(offset, _)| (start..end).contains(offset))
                .map(|&(_, u)| u)
                .collect();
            let mask = covered.iter().fold(0u64, |m, &u| m | unit_bit(u));
            if mask == 0 {
                continue;
            }
            for word in english {
                if let Some(id) = index.term(word) {
                    expansions.push(Expansion::new(id, 0.7, mask, true));
                    for &u in &covered {
                        units[u].matched = true;
                        units[u].sure = true;
                    }
                }
            }
        }
    }
    // A query of light words only ("fix", "new file") is about them after
    // all.
    if units.iter().all(|u| u.mass == 0.0 || u.light) {
        for unit in &mut units {
            unit.light = false;
        }
    }
    // A query of number words only ("two") is about them after all.
    if units.iter().all(|u| u.mass == 0.0) {
        for unit in &mut units {
            if !unit.cjk && text::is_number_word(&unit.label) {
                unit.mass = 1.0;
            }
        }
    }
    let mut plan = Plan {
        expansions,
        units,
        evidence_weights: Vec::new(),
    };
    plan.weigh(index);
    plan
}

/// Scores of one plan over one index: relevance and coverage per document.
struct Scored {
    score: Vec<f32>,
    full: Vec<u64>,
    partial: Vec<u64>,
    /// Documents already in `touched` (a term past the 64th query word
    /// has no unit bits, so the masks cannot tell).
    seen: Vec<bool>,
    touched: Vec<u32>,
}

fn score(index: &Inverted, plan: &Plan) -> Scored {
    let docs = index.docs();
    let mut scored = Scored {
        score: vec![0.0; docs],
        full: vec![0; docs],
        partial: vec![0; docs],
        seen: vec![false; docs],
        touched: Vec::new(),
    };
    for e in &plan.expansions {
        let factor = e.weight * index.idf(e.term);
        for &(doc, sat) in index.postings(e.term) {
            let d = doc as usize;
            if !scored.seen[d] {
                scored.seen[d] = true;
                scored.touched.push(doc);
            }
            scored.score[d] += factor * sat;
            if e.full {
                scored.full[d] |= e.units;
            } else {
                scored.partial[d] |= e.units;
            }
        }
    }
    scored
}

impl Plan {
    /// Share of the query a document's matches cover.
    fn coverage(&self, full: u64, partial: u64) -> f32 {
        self.share(full, partial, |unit| unit.mass)
    }

    fn share(&self, full: u64, partial: u64, weigh: impl Fn(&Unit) -> f32) -> f32 {
        let total: f32 = self.units.iter().take(64).map(&weigh).sum();
        if total == 0.0 {
            return 0.0;
        }
        let mut got = 0.0;
        for (u, unit) in self.units.iter().enumerate().take(64) {
            let bit = 1u64 << u;
            if full & bit != 0 {
                got += weigh(unit);
            } else if partial & bit != 0 {
                got += weigh(unit) * 0.5;
            }
        }
        got / total
    }

    /// Weigh the units as evidence by what the catalog says about them
    /// (see [`Plan::evidence_weights`]).
    fn weigh(&mut self, index: &Inverted) {
        let idf_one = index.idf_one();
        for (u, unit) in self.units.iter().enumerate().take(64) {
            let bit = 1u64 << u;
            let best = self
                .expansions
                .iter()
                .filter(|e| e.units & bit != 0)
                .map(|e| index.idf(e.term))
                .fold(0.0f32, f32::max);
            let base = if unit.light {
                unit.mass * LIGHT_MASS
            } else {
                unit.mass
            };
            // A guess says nothing of what the catalog knows of the word.
            let specific = if best > 0.0 && !unit.guessed {
                (best / idf_one).min(1.0)
            } else {
                1.0
            };
            self.evidence_weights.push(base * specific);
        }
    }

    /// The evidence `full` and `partial` give: the weight they cover (in
    /// words found in one skill each) and its share of the query's.
    fn evidence(&self, full: u64, partial: u64) -> (f32, f32) {
        let (got, total) = Self::weighted(&self.evidence_weights, full, partial);
        (got, if total > 0.0 { got / total } else { 0.0 })
    }

    fn weighted(weights: &[f32], full: u64, partial: u64) -> (f32, f32) {
        let mut got = 0.0;
        let mut total = 0.0;
        for (u, &w) in weights.iter().enumerate() {
            let bit = 1u64 << u;
            total += w;
            if full & bit != 0 {
                got += w;
            } else if partial & bit != 0 {
                got += 0.5 * w;
            }
        }
        (got, total)
    }

    /// Whether `matched` covers a unit the query is about: one with mass,
    /// not a light word, and matched by more than a guess.
    fn has_subject(&self, matched: u64) -> bool {
        self.units.iter().enumerate().take(64).any(|(u, unit)| {
            matched & (1u64 << u) != 0 && unit.mass > 0.0 && !unit.light && !unit.guessed
        })
    }

    /// How many query words (CJK characters count half) `full` matches
    /// exactly.
    fn full_mass(&self, full: u64) -> f32 {
        self.units
            .iter()
            .enumerate()
            .take(64)
            .filter(|(u, _)| full & (1u64 << u) != 0)
            .map(|(_, unit)| unit.mass)
            .sum()
    }

    /// The best score a document could reach: every unit matched exactly.
    fn ideal(&self, index: &Inverted) -> f32 {
        let mut ideal = 0.0;
        for (u, unit) in self.units.iter().enumerate().take(64) {
            if unit.mass == 0.0 {
                continue;
            }
            let bit = 1u64 << u;
            let best = self
                .expansions
                .iter()
                .filter(|e| e.units & bit != 0 && e.full)
                .map(|e| index.idf(e.term))
                .fold(0.0f32, f32::max);
            let idf = if best > 0.0 { best } else { index.idf_max() };
            ideal += idf * unit.mass * 0.6;
        }
        ideal.max(f32::EPSILON)
    }

    /// Query words that matched only a synonym or a guess.
    fn weak(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for unit in &self.units {
            if unit.mass > 0.0
                && unit.matched
                && !unit.sure
                && !unit.cjk
                && !out.contains(&unit.label)
            {
                out.push(unit.label.clone());
            }
        }
        out
    }

    /// Query words that matched nothing, CJK runs joined back together.
    fn unmatched(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut last_cjk: Option<usize> = None;
        for (u, unit) in self.units.iter().enumerate() {
            if unit.mass == 0.0 || unit.matched {
                last_cjk = None;
                continue;
            }
            if unit.cjk {
                if last_cjk == Some(u.wrapping_sub(1)) {
                    if let Some(s) = out.last_mut() {
                        s.push_str(&unit.label);
                    }
                } else {
                    out.push(unit.label.clone());
                }
                last_cjk = Some(u);
            } else {
                last_cjk = None;
                if !out.contains(&unit.label) {
                    out.push(unit.label.clone());
                }
            }
        }
        out
    }
}

impl Catalog {
    /// Rank the skills for `query`. The index is built on the first call
    /// and kept with this snapshot.
    pub fn search(&self, query: &str, options: &SearchOptions) -> SearchResults {
        // `select:` names skills: no index needed.
        if let Some(list) = select_list(query) {
            return select(self, query, list, options.limit.max(1));
        }
        search(self, self.search_index(), query, options)
    }
}

fn search(
    catalog: &Catalog,
    index: &SearchIndex,
    query: &str,
    options: &SearchOptions,
) -> SearchResults {
    let limit = options.limit.max(1);
    // A query is a few words; a runaway one is cut (at a character
    // boundary) so it costs what a long sentence costs, not more.
    let query = cut_at_char(query, MAX_QUERY_BYTES);
    let pinned = named_skills(catalog, query);
    let plan = plan(&index.skills, query, Some(index.name_words(catalog)));
    let scored = score(&index.skills, &plan);

    // Namespaces first: how well each matches on its own text.
    let ns_plan = self::plan(&index.namespaces, query, None);
    let ns_scored = score(&index.namespaces, &ns_plan);
    let namespace_count = catalog.namespaces().len();
    let mut ns_strength = vec![0.0f32; namespace_count];
    let mut ns_full = vec![0u64; namespace_count];
    let mut ns_partial = vec![0u64; namespace_count];
    let ns_ideal = ns_plan.ideal(&index.namespaces);
    for &n in &ns_scored.touched {
        let n = n as usize;
        let coverage = ns_plan.coverage(ns_scored.full[n], ns_scored.partial[n]);
        ns_strength[n] = (ns_scored.score[n] / ns_ideal).min(1.0) * coverage;
        ns_full[n] = ns_scored.full[n];
        ns_partial[n] = ns_scored.partial[n];
    }
    // A nested namespace inherits part of its parent's match (parents sort
    // before their children).
    for n in 0..namespace_count {
        let p = index.parent[n];
        if p != u32::MAX {
            let p = p as usize;
            if 0.7 * ns_strength[p] > ns_strength[n] {
                ns_strength[n] = 0.7 * ns_strength[p];
            }
            ns_full[n] |= ns_full[p];
            ns_partial[n] |= ns_partial[p];
        }
    }

    // The skills of a namespace that matches the query are candidates even
    // when their own text does not repeat the namespace's words: those
    // words count for them.
    let mut scored = scored;
    if ns_strength.iter().any(|&s| s >= NAMESPACE_MIN) {
        for &(ns, start, end) in &index.namespace_runs {
            if ns == u32::MAX || ns_strength[ns as usize] < NAMESPACE_MIN {
                continue;
            }
            for d in start as usize..end as usize {
                if !scored.seen[d] {
                    scored.seen[d] = true;
                    scored.touched.push(d as u32);
                }
                scored.full[d] |= ns_full[ns as usize];
                scored.partial[d] |= ns_partial[ns as usize];
            }
        }
    }

    let ideal = plan.ideal(&index.skills);
    let mut ranked: Vec<(f32, f32, u32)> = scored
        .touched
        .iter()
        .map(|&doc| {
            let d = doc as usize;
            let coverage = plan.coverage(scored.full[d], scored.partial[d]);
            let ns = index.skill_namespace[d];
            let lift = if ns == u32::MAX {
                0.0
            } else {
                ns_strength[ns as usize]
            };
            let own = scored.score[d] / ideal * (0.25 + 0.75 * coverage);
            let relevance = own * (1.0 + 0.5 * lift) + 0.2 * lift * coverage;
            // A skill that matches only light words or guesses has not
            // matched what the query is about: it may follow, not lead.
            let relevance = if plan.has_subject(scored.full[d] | scored.partial[d]) {
                relevance
            } else {
                relevance * LIGHT_MASS
            };
            (relevance, coverage, doc)
        })
        .collect();
    let by_rank = |a: &(f32, f32, u32), b: &(f32, f32, u32)| {
        b.0.total_cmp(&a.0).then_with(|| {
            catalog.skills()[a.2 as usize]
                .id
                .cmp(&catalog.skills()[b.2 as usize].id)
        })
    };
    let keep = (limit + pinned.len()).min(ranked.len());
    if keep > 0 && keep < ranked.len() {
        ranked.select_nth_unstable_by(keep - 1, by_rank);
        ranked.truncate(keep);
    }
    ranked.sort_by(by_rank);

    // A skill is an answer only when it shares a meaningful word with the
    // query (not only a light word such as "fix"): with none, the answer
    // is "no match". Otherwise the best come back, each flagged with how
    // sure it is.
    let evidence = |d: usize| plan.has_subject(scored.full[d] | scored.partial[d]);
    let confidence = |relevance: f32, d: usize| {
        let (mass, share) = plan.evidence(scored.full[d], scored.partial[d]);
        let sure = relevance >= FLOOR
            && plan.full_mass(scored.full[d]) >= 1.0
            && (share > HIGH_SHARE || (mass >= HIGH_MASS && share >= HIGH_MASS_SHARE));
        if sure {
            Confidence::High
        } else {
            Confidence::Low
        }
    };
    let mut hits: Vec<Hit> = pinned
        .iter()
        .map(|&index| Hit {
            index,
            score: 1.0,
            confidence: Confidence::High,
        })
        .collect();
    // Once one skill shares a meaningful word, the others that rank well
    // come too (flagged by their own evidence): a skill that matches only
    // "work" in "work on two branches" may still be the one.
    let answerable = ranked.iter().any(|r| evidence(r.2 as usize));
    let top = ranked.first().map_or(0.0, |b| b.0);
    for &(relevance, _, doc) in ranked.iter().filter(|_| answerable) {
        if hits.len() >= limit || relevance < top * RELATIVE_FLOOR {
            break;
        }
        let d = doc as usize;
        if hits.iter().any(|h| h.index == d) {
            continue;
        }
        hits.push(Hit {
            index: d,
            score: display_score(relevance),
            confidence: confidence(relevance, d),
        });
    }
    let no_evidence = hits.is_empty();
    hits.truncate(limit);

    // Namespaces: their own match, plus the best of their skills.
    let mut ns_best = vec![0.0f32; namespace_count];
    for &(relevance, _, doc) in &ranked {
        let ns = index.skill_namespace[doc as usize];
        if ns != u32::MAX && !no_evidence {
            let slot = &mut ns_best[ns as usize];
            *slot = slot.max(relevance.min(1.0));
        }
    }
    let mut namespaces: Vec<NamespaceScore> = catalog
        .namespaces()
        .iter()
        .enumerate()
        .filter(|(_, n)| !n.name.is_empty())
        .map(|(i, n)| NamespaceScore {
            name: n.name.clone(),
            score: round(0.5 * ns_strength[i] + 0.5 * ns_best[i]),
        })
        .filter(|n| n.score > 0.0)
        .collect();
    if namespaces.is_empty() && hits.is_empty() {
        // Nothing cleared the floor: suggest the namespaces where partial
        // evidence fell.
        let mut partial = vec![0.0f32; namespace_count];
        for &doc in &scored.touched {
            let d = doc as usize;
            let ns = index.skill_namespace[d];
            if ns != u32::MAX {
                let coverage = plan.coverage(scored.full[d], scored.partial[d]);
                let slot = &mut partial[ns as usize];
                *slot = slot.max((scored.score[d] / ideal).min(1.0) * coverage);
            }
        }
        namespaces = catalog
            .namespaces()
            .iter()
            .enumerate()
            .filter(|(i, n)| !n.name.is_empty() && partial[*i] > 0.0)
            .map(|(i, n)| NamespaceScore {
                name: n.name.clone(),
                score: round(partial[i]),
            })
            .collect();
    }
    namespaces.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.name.cmp(&b.name))
    });
    namespaces.truncate(3);

    let mut unmatched_terms = plan.unmatched();
    if !pinned.is_empty() {
        // A named skill answers the query whatever else it says.
        unmatched_terms.retain(|t| {
            !pinned
                .iter()
                .any(|&i| catalog.skills()[i].name.contains(t.as_str()))
        });
    }
    let mut weak_terms = plan.weak();
    if !pinned.is_empty() {
        weak_terms.retain(|t| {
            !pinned
                .iter()
                .any(|&i| catalog.skills()[i].name.contains(t.as_str()))
        });
    }
    SearchResults {
        query: query.to_string(),
        no_match: hits.is_empty(),
        confidence: answer_confidence(&hits),
        hits,
        namespaces,
        unmatched_terms,
        weak_terms,
    }
}

/// An answer is as sure as its surest hit.
fn answer_confidence(hits: &[Hit]) -> Confidence {
    hits.iter()
        .map(|h| h.confidence)
        .max()
        .unwrap_or(Confidence::Low)
}

/// What an answer means, in words for a person or a model: the CLI's text
/// output and the MCP tool's `advice` say the same. `None` for a sure
/// answer.
pub fn advice(results: &SearchResults) -> Option<&'static str> {
    let selection = select_list(&results.query).is_some();
    if results.no_match {
        Some(if selection {
            "No skill has any of these names."
        } else {
            "No skill shares a meaningful word with this query. Try other words (what the task does, not how) or look at the namespaces listed; do not pick a skill that does not fit."
        })
    } else if results.confidence == Confidence::Low && !selection {
        Some("Weak matches: these skills match little of what the query is about (confidence: low). Read a description before relying on one; if none fits, do the task without a skill.")
    } else {
        None
    }
}

/// Relevance squashed into 0..1 (exclusive: 1 is kept for skills named
/// exactly), rounded so output is stable.
fn display_score(relevance: f32) -> f32 {
    round((1.0 - (-relevance).exp()).min(0.999))
}

fn round(x: f32) -> f32 {
    (x * 1000.0).round() / 1000.0
}

/// `select:a,b` → the listed names.
/// The list of a `select:a,b` query.
pub fn select_list(query: &str) -> Option<&str> {
    let q = query.trim();
    let (head, rest) = q.split_at_checked(7)?;
    head.eq_ignore_ascii_case("select:").then_some(rest)
}

fn select(catalog: &Catalog, query: &str, list: &str, limit: usize) -> SearchResults {
    let mut hits: Vec<Hit> = Vec::new();
    let mut unmatched_terms = Vec::new();
    for name in list
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .take(MAX_SELECT)
    {
        match lookup(catalog, name) {
            Some(index) if !hits.iter().any(|h| h.index == index) => hits.push(Hit {
                index,
                score: 1.0,
                confidence: Confidence::High,
            }),
            Some(_) => {}
            None => unmatched_terms.push(name.to_string()),
        }
    }
    let _ = limit; // a selection returns exactly what it names
    SearchResults {
        query: query.to_string(),
        no_match: hits.is_empty(),
        confidence: answer_confidence(&hits),
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
fn named_skills(catalog: &Catalog, query: &str) -> Vec<usize> {
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

/// A score for JSON: the three decimals it was rounded to, not the binary
/// expansion of the `f32` (`0.232`, not `0.23199999332427979`).
fn json_score(score: f32) -> f64 {
    format!("{score:.3}").parse().unwrap_or(0.0)
}

/// The `--json` shape of a search answer.
pub fn results_json(catalog: &Catalog, results: &SearchResults, paths: PathStyle) -> Value {
    let base = std::env::current_dir().unwrap_or_default();
    let skills = catalog.skills();
    json!({
        "query": results.query,
        "results": results.hits.iter().map(|h| {
            let s = &skills[h.index];
            json!({
                "id": s.id,
                "name": s.name,
                "namespace": s.namespace,
                "description": s.description,
                "path": display_path(&s.path, paths, &base),
                "score": json_score(h.score),
                "confidence": h.confidence.as_str(),
            })
        }).collect::<Vec<_>>(),
        "namespaces": results.namespaces.iter().map(|n| json!({"name": n.name, "score": json_score(n.score)})).collect::<Vec<_>>(),
        "no_match": results.no_match,
        "confidence": results.confidence.as_str(),
        "unmatched_terms": results.unmatched_terms,
        "weak_terms": results.weak_terms,
    })
}

/// Search results as deferred-loading tool specs, grouped by namespace:
/// a host can register them and load a skill's body only when the model
/// calls the tool.
pub fn tool_specs(catalog: &Catalog, results: &SearchResults) -> Value {
    let skills = catalog.skills();
    let mut groups: Vec<(String, Vec<Value>)> = Vec::new();
    for hit in &results.hits {
        let s = &skills[hit.index];
        let tool = json!({
            "type": "function",
            "name": tool_name(&s.id),
            "description": cap_description(&format!("{} (Skill `{}`; calling this tool returns its instructions.)", s.description, s.id)),
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
                    "description": cap_description(&description),
                    "tools": tools,
                })
            })
            .collect(),
    )
}

/// A function name hosts accept (`[A-Za-z0-9_-]{1,64}`) for a skill id:
/// the id itself when it fits; otherwise its ASCII letters (accents
/// dropped: `café` → `cafe`) and a hash of the whole id, so that two
/// skills never share a name (`数据-清洗` → `skill-1f0c…`).
fn tool_name(id: &str) -> String {
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
        "skill"
    };
    let mut hash = crate::catalog::Fnv::new();
    hash.write(id.as_bytes());
    let suffix = format!("-{:010x}", hash.finish() >> 24);
    // The base is ASCII: cut anywhere.
    let keep = base.len().min(64 - suffix.len());
    format!("{}{suffix}", &base[..keep])
}

/// Descriptions in tool schemas: at most 1,000 bytes, cut at a character
/// boundary, never empty.
fn cap_description(text: &str) -> String {
    const MAX: usize = 1000;
    if text.trim().is_empty() {
        return "A group of skills.".to_string();
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
}
