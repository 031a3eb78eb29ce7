//! The baseline `skilldex eval --baseline bm25` scores beside skilldex's
//! own search: a plain BM25 (k1 1.2, b 0.75) over each entry's text —
//! lower-cased words split at non-alphanumerics, no stemming, no field
//! weights, never "no match" and never flagged. A skill's text is its name
//! and description; a tool's its name, title, description, search hint and
//! its parameters' names and descriptions. Ids as search gives them.

use super::score::Ranked;
use skilldex::catalog::Catalog;
use skilldex::search::EntryKind;
use std::collections::BTreeMap;

/// The baseline over the entries of `kind` (both kinds when `None`).
pub(super) fn bm25(catalog: &Catalog, kind: Option<EntryKind>) -> impl Fn(&str) -> Ranked {
    let mut documents = Vec::new();
    if kind != Some(EntryKind::Tool) {
        documents.extend(
            catalog
                .skills()
                .iter()
                .map(|s| (s.id.clone(), format!("{} {}", s.name, s.description))),
        );
    }
    if kind != Some(EntryKind::Skill) {
        documents.extend(catalog.tools().map(|(_, tool)| {
            let [name, described, parameters, hint] = skilldex::search::kinds::tool_text(tool);
            (
                tool.id.clone(),
                format!("{name} {described} {parameters} {hint}"),
            )
        }));
    }
    bm25_over(documents)
}

/// Plain BM25 over `(id, text)` documents.
fn bm25_over(documents: Vec<(String, String)>) -> impl Fn(&str) -> Ranked {
    let words = |text: &str| -> Vec<String> {
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    };
    let (ids, docs): (Vec<String>, Vec<Vec<String>>) = documents
        .into_iter()
        .map(|(id, text)| (id, words(&text)))
        .unzip();
    let n = docs.len() as f64;
    let average = docs.iter().map(Vec::len).sum::<usize>() as f64 / n.max(1.0);
    let mut df: BTreeMap<String, usize> = BTreeMap::new();
    for d in &docs {
        let mut seen: Vec<&String> = d.iter().collect();
        seen.sort();
        seen.dedup();
        for w in seen {
            *df.entry(w.clone()).or_default() += 1;
        }
    }
    move |query| {
        let q = words(query);
        let mut scored: Vec<(f64, usize)> = docs
            .iter()
            .enumerate()
            .map(|(i, d)| {
                let mut score = 0.0;
                for t in &q {
                    let tf = d.iter().filter(|w| *w == t).count() as f64;
                    if tf == 0.0 {
                        continue;
                    }
                    let df = *df.get(t).unwrap_or(&0) as f64;
                    let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                    score += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * d.len() as f64 / average));
                }
                (score, i)
            })
            .filter(|(s, _)| *s > 0.0)
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let names = scored
            .iter()
            .take(10)
            .map(|&(_, i)| ids[i].clone())
            .collect();
        Ranked {
            names,
            no_match: false,
            low: false,
        }
    }
}
