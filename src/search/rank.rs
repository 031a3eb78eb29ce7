//! One ranking for every kind of entry. Skills sit in namespaces and
//! tools in servers: an entry is a document of an [`Inverted`] index and
//! belongs to a group, a document of a second one. What differs between
//! the kinds is data (the fields and their weights, the groups' parents,
//! the tie order; see `search/kinds.rs`), not code: a query is scored over
//! the groups first, the way a person picks the shelf, then the book; a
//! group that matches puts all its entries in the running (its words count
//! for them) and lifts them:
//!
//! `relevance = own · (1 + α·group) + β·group·coverage`
//!
//! where `own` is the entry's BM25F score over the query's ideal, weighted
//! by how much of the query the entry and its group cover together, and
//! `group` is the group's own match. A nested group (a namespace inside
//! another) inherits part of its parent's match.

use super::index::Inverted;
use super::plan::{plan, score, NameWords, Plan};
use super::{hits_of, round, Best, EntryKind, Hit, NamespaceScore, LIGHT_MASS, NAMESPACE_MIN};

/// How much a matching group lifts its entries' own score (α); what it
/// adds on its own (β) is the kind's (`Tier::group_add`).
const GROUP_LIFT: f32 = 0.5;

/// The share of a parent group's match a nested group inherits.
const PARENT_SHARE: f32 = 0.7;

/// What a group named in the query (all the words of its name, as its own
/// words of the query: "on github", "the aws ones") weighs at least, of
/// the 1 of a group that matches the whole query: the person has picked
/// the shelf, whatever else the query says.
const NAMED_GROUP: f32 = 0.5;

/// The groups named in an answer, at most.
const MAX_GROUPS: usize = 3;

/// No group.
const NONE: u32 = u32::MAX;

/// One kind's index: its entries, the groups they belong to, and how they
/// are told apart at equal scores.
#[derive(Debug, Clone, Default)]
pub(crate) struct Tier {
    pub(super) entries: Inverted,
    groups: Inverted,
    /// Per entry: its group, or [`NONE`].
    entry_group: Vec<u32>,
    /// Runs of entries of one group: (group, first entry, end).
    runs: Vec<(u32, u32, u32)>,
    /// Per group: the nearest ancestor group, or [`NONE`].
    parent: Vec<u32>,
    /// Per entry: its place among the entries sorted by id (ties in score
    /// go by id, and comparing these is cheaper than the strings).
    id_rank: Vec<u32>,
    /// Whether the groups are scored apart (otherwise their text is a
    /// field of each entry, and `groups` is not consulted).
    hierarchical: bool,
    /// What a matching group adds on its own (β): more where entries say
    /// little without their group (tools), less where they describe
    /// themselves (skills).
    group_add: f32,
    /// The groups by the first word of their name (a namespace's last
    /// segment, a server's name), with the name's other words.
    named: crate::hash::FastMap<Box<str>, Vec<NamedGroup>>,
}

/// A group known by its name: the group, and its name's words after the
/// first.
type NamedGroup = (u32, Box<[Box<str>]>);

impl Tier {
    /// `entry_group[e]` is entry `e`'s group in `groups` (or `u32::MAX`),
    /// `parent[g]` group `g`'s parent (or `u32::MAX`), `ids[e]` the id that
    /// orders entry `e` among equals.
    pub(super) fn new(
        entries: Inverted,
        groups: Inverted,
        entry_group: Vec<u32>,
        parent: Vec<u32>,
        ids: &[&str],
        hierarchical: bool,
        group_add: f32,
    ) -> Tier {
        let mut runs: Vec<(u32, u32, u32)> = Vec::new();
        for (e, &g) in entry_group.iter().enumerate() {
            match runs.last_mut() {
                Some((group, _, end)) if *group == g => *end = e as u32 + 1,
                _ => runs.push((g, e as u32, e as u32 + 1)),
            }
        }
        let mut by_id: Vec<u32> = (0..ids.len() as u32).collect();
        by_id.sort_by(|&a, &b| ids[a as usize].cmp(ids[b as usize]));
        let mut id_rank = vec![0u32; by_id.len()];
        for (rank, &entry) in by_id.iter().enumerate() {
            id_rank[entry as usize] = rank as u32;
        }
        Tier {
            entries,
            groups,
            entry_group,
            runs,
            parent,
            id_rank,
            hierarchical,
            group_add,
            named: Default::default(),
        }
    }

    /// Know group `g` by `names[g]`: the words of its last `/` segment,
    /// lower-cased.
    pub(super) fn with_group_names<'a>(mut self, names: impl Iterator<Item = &'a str>) -> Tier {
        for (g, name) in names.enumerate() {
            let last = name.rsplit('/').next().unwrap_or(name).to_lowercase();
            let mut words = last
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .map(Box::from);
            if let Some(first) = words.next() {
                self.named
                    .entry(first)
                    .or_default()
                    .push((g as u32, words.collect()));
            }
        }
        self
    }

    /// The groups whose whole name is among `words`.
    fn named_in(&self, words: &[&str]) -> Vec<usize> {
        let mut found = Vec::new();
        for word in words {
            for (g, rest) in self.named.get(*word).into_iter().flatten() {
                if rest.iter().all(|w| words.contains(&&**w)) {
                    found.push(*g as usize);
                }
            }
        }
        found
    }

    pub(super) fn heap_bytes(&self) -> usize {
        self.entries.heap_bytes()
            + self.groups.heap_bytes()
            + self.entry_group.len() * 4
            + self.runs.len() * 12
            + self.parent.len() * 4
            + self.id_rank.len() * 4
    }

    fn group_of(&self, entry: usize) -> Option<usize> {
        let g = self.entry_group[entry];
        (g != NONE).then_some(g as usize)
    }
}

/// A query of one kind.
pub(super) struct Query<'a> {
    pub kind: EntryKind,
    pub text: &'a str,
    /// The entries' name words, for query words the index does not know.
    pub names: Option<&'a NameWords>,
    /// Entries named in the query: first, whatever they score.
    pub pinned: Vec<usize>,
    pub limit: usize,
    /// Per entry its cosine with the query, and the weight of meaning.
    pub semantic: Option<(&'a [f32], f32)>,
}

/// One kind's answer.
pub(super) struct Answer {
    pub hits: Vec<Hit>,
    /// The groups that match best (namespaces, servers).
    pub groups: Vec<NamespaceScore>,
    pub unmatched_terms: Vec<String>,
    pub weak_terms: Vec<String>,
    pub semantic: bool,
}

/// The groups' match: per group its strength and the query units it
/// matched fully and partly.
struct GroupMatch {
    plan: Plan,
    strength: Vec<f32>,
    full: Vec<u64>,
    partial: Vec<u64>,
}

fn match_groups(tier: &Tier, query: &str) -> GroupMatch {
    let plan = plan(&tier.groups, query, None);
    let scored = score(&tier.groups, &plan);
    let count = tier.parent.len();
    let mut strength = vec![0.0f32; count];
    let mut full = vec![0u64; count];
    let mut partial = vec![0u64; count];
    let ideal = plan.ideal(&tier.groups);
    for &g in &scored.touched {
        let g = g as usize;
        let doc = &scored.docs[g];
        strength[g] = (doc.score / ideal).min(1.0) * plan.coverage(doc.full, doc.partial);
        full[g] = doc.full;
        partial[g] = doc.partial;
    }
    // Parents sort before their children.
    for g in 0..count {
        let p = tier.parent[g];
        if p != NONE {
            let p = p as usize;
            strength[g] = strength[g].max(PARENT_SHARE * strength[p]);
            full[g] |= full[p];
            partial[g] |= partial[p];
        }
    }
    GroupMatch {
        plan,
        strength,
        full,
        partial,
    }
}

/// Rank `tier`'s entries for `query`: the hits, flagged with how sure each
/// is; the groups that match; the words nothing matched or only weakly.
/// `group_name(g)` names group `g` (empty: not named in answers);
/// `named(e, word)` says whether pinned entry `e`'s name has `word`.
pub(super) fn answer(
    tier: &Tier,
    query: Query,
    group_name: impl Fn(usize) -> String,
    named: impl Fn(usize, &str) -> bool,
) -> Answer {
    let plan = plan(&tier.entries, query.text, query.names);
    let mut scored = score(&tier.entries, &plan);
    let mut groups = tier.hierarchical.then(|| match_groups(tier, query.text));
    if let Some(groups) = &mut groups {
        let words: Vec<&str> = plan
            .units
            .iter()
            .filter(|u| !u.cjk && !u.label.is_empty())
            .map(|u| u.label.as_str())
            .collect();
        for g in tier.named_in(&words) {
            groups.strength[g] = groups.strength[g].max(NAMED_GROUP);
        }
    }
    if let Some(groups) = &groups {
        // A group that matches puts all its entries in the running; its
        // words count for them.
        if groups.strength.iter().any(|&s| s >= NAMESPACE_MIN) {
            for &(g, start, end) in &tier.runs {
                if g != NONE && groups.strength[g as usize] >= NAMESPACE_MIN {
                    let g = g as usize;
                    scored.spread(start..end, groups.full[g], groups.partial[g]);
                }
            }
        }
    }
    let ideal = plan.ideal(&tier.entries);
    let by_rank = |a: &(f32, f32, u32), b: &(f32, f32, u32)| {
        b.0.total_cmp(&a.0)
            .then_with(|| tier.id_rank[a.2 as usize].cmp(&tier.id_rank[b.2 as usize]))
    };
    // The semantic mode ranks every entry by the mix (its lexical relevance
    // kept beside, for the flags); the lexical one keeps the best as it goes.
    let keep = query.limit + query.pinned.len();
    let mut lexical: Vec<(f32, f32, u32)> = Vec::new();
    let mut best = Best::new(keep, by_rank);
    for &doc in &scored.touched {
        let d = doc as usize;
        let group = groups.as_ref().zip(tier.group_of(d));
        let got = &scored.docs[d];
        let coverage = plan.coverage(got.full, got.partial);
        let lift = group.map_or(0.0, |(groups, g)| groups.strength[g]);
        let own = got.score / ideal * (0.25 + 0.75 * coverage);
        let relevance = own * (1.0 + GROUP_LIFT * lift) + tier.group_add * lift * coverage;
        // An entry that matches only light words or guesses has not
        // matched what the query is about: it may follow, not lead.
        let relevance = if plan.has_subject(got.full | got.partial) {
            relevance
        } else {
            relevance * LIGHT_MASS
        };
        if query.semantic.is_some() {
            lexical.push((relevance, relevance, doc));
        } else {
            best.offer((relevance, relevance, doc));
        }
    }
    let (ranked, meaning_answers) = best.finish(&lexical, query.semantic);

    // An entry is an answer only when it shares a meaningful word with the
    // query (not only a light word such as "fix"): with none, the answer
    // is "no match". Otherwise the best come back, each flagged with how
    // sure it is.
    let mut hits = hits_of(
        query.kind,
        &query.pinned,
        &ranked,
        meaning_answers,
        query.limit,
        &plan,
        &scored,
    );
    let no_evidence = hits.is_empty();
    hits.truncate(query.limit);

    // Groups: their own match, plus the best of their entries.
    let group_count = tier.parent.len();
    let strength = |g: usize| groups.as_ref().map_or(0.0, |m| m.strength[g]);
    let mut group_best = vec![0.0f32; group_count];
    if !no_evidence {
        for &(relevance, _, doc) in &ranked {
            if let Some(g) = tier.group_of(doc as usize) {
                group_best[g] = group_best[g].max(relevance.min(1.0));
            }
        }
    }
    let named_groups = |score: &dyn Fn(usize) -> f32| -> Vec<NamespaceScore> {
        (0..group_count)
            .filter_map(|g| {
                let score = round(score(g));
                let name = group_name(g);
                (score > 0.0 && !name.is_empty()).then_some(NamespaceScore { name, score })
            })
            .collect()
    };
    let mut found_groups = named_groups(&|g| 0.5 * strength(g) + 0.5 * group_best[g]);
    if found_groups.is_empty() && hits.is_empty() {
        // Nothing cleared the floor: suggest the groups where partial
        // evidence fell.
        let mut partial = vec![0.0f32; group_count];
        for &doc in &scored.touched {
            let d = doc as usize;
            if let Some(g) = tier.group_of(d) {
                let coverage = plan.coverage(scored.docs[d].full, scored.docs[d].partial);
                partial[g] = partial[g].max((scored.docs[d].score / ideal).min(1.0) * coverage);
            }
        }
        found_groups = named_groups(&|g| partial[g]);
    }
    found_groups.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.name.cmp(&b.name))
    });
    found_groups.truncate(MAX_GROUPS);

    let mut unmatched_terms = plan.unmatched();
    let mut weak_terms = plan.weak();
    if let Some(groups) = &groups {
        // A word the groups know is not unmatched.
        let group_unmatched = groups.plan.unmatched();
        unmatched_terms.retain(|t| group_unmatched.contains(t));
        let group_weak = groups.plan.weak();
        weak_terms.retain(|t| group_weak.contains(t) || group_unmatched.contains(t));
    }
    // A named entry answers the query whatever else it says.
    let named = |t: &String| query.pinned.iter().any(|&e| named(e, t));
    unmatched_terms.retain(|t| !named(t));
    weak_terms.retain(|t| !named(t));
    Answer {
        hits,
        groups: found_groups,
        unmatched_terms,
        weak_terms,
        semantic: query.semantic.is_some(),
    }
}
