//! Ranking the skills: namespaces first, then the skills in them, each
//! flagged with how sure it is.

use super::named::named_skills;
use super::plan::{plan, score};
use super::{
    answer_confidence, hits_of, round, semantic, Best, EntryKind, NamespaceScore, SearchIndex,
    SearchResults, LIGHT_MASS, NAMESPACE_MIN,
};
use crate::catalog::Catalog;

/// Rank the skills alone.
pub(super) fn search_skills(
    catalog: &Catalog,
    index: &SearchIndex,
    query: &str,
    limit: usize,
    semantic: Option<&semantic::QueryCosines>,
) -> SearchResults {
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
        let coverage = ns_plan.coverage(ns_scored.docs[n].full, ns_scored.docs[n].partial);
        ns_strength[n] = (ns_scored.docs[n].score / ns_ideal).min(1.0) * coverage;
        ns_full[n] = ns_scored.docs[n].full;
        ns_partial[n] = ns_scored.docs[n].partial;
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
            scored.spread(start..end, ns_full[ns as usize], ns_partial[ns as usize]);
        }
    }

    let ideal = plan.ideal(&index.skills);
    let by_rank = |a: &(f32, f32, u32), b: &(f32, f32, u32)| {
        b.0.total_cmp(&a.0)
            .then_with(|| index.id_rank[a.2 as usize].cmp(&index.id_rank[b.2 as usize]))
    };
    // The semantic mode ranks every entry by the mix (its lexical relevance
    // kept beside, for the flags); the lexical one keeps the best as it goes.
    let keep = limit + pinned.len();
    let mut lexical: Vec<(f32, f32, u32)> = Vec::new();
    let mut best = Best::new(keep, by_rank);
    for &doc in &scored.touched {
        let d = doc as usize;
        let got = &scored.docs[d];
        let coverage = plan.coverage(got.full, got.partial);
        let ns = index.skill_namespace[d];
        let lift = if ns == u32::MAX {
            0.0
        } else {
            ns_strength[ns as usize]
        };
        let own = got.score / ideal * (0.25 + 0.75 * coverage);
        let relevance = own * (1.0 + 0.5 * lift) + 0.2 * lift * coverage;
        // A skill that matches only light words or guesses has not
        // matched what the query is about: it may follow, not lead.
        let relevance = if plan.has_subject(got.full | got.partial) {
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
    let semantic = semantic.map(|s| (s.cosines.as_slice(), s.weight));
    let (ranked, meaning_answers) = best.finish(&lexical, semantic);

    // A skill is an answer only when it shares a meaningful word with the
    // query (not only a light word such as "fix"): with none, the answer
    // is "no match". Otherwise the best come back, each flagged with how
    // sure it is.
    let mut hits = hits_of(
        EntryKind::Skill,
        &pinned,
        &ranked,
        meaning_answers,
        limit,
        &plan,
        &scored,
    );
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
                let coverage = plan.coverage(scored.docs[d].full, scored.docs[d].partial);
                let slot = &mut partial[ns as usize];
                *slot = slot.max((scored.docs[d].score / ideal).min(1.0) * coverage);
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
        semantic: semantic.is_some(),
        hits,
        namespaces,
        unmatched_terms,
        weak_terms,
    }
}
