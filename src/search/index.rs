//! The inverted index behind search: BM25F over short fields, with the
//! per-document saturation precomputed so a query is a few postings walks.

use super::text::{self, Kind, Term};
use std::collections::HashMap;

/// BM25 saturation constant.
const K1: f32 = 1.2;

/// One weighted field of a document to index.
pub(crate) struct Field<'a> {
    pub text: &'a str,
    pub weight: f32,
    /// Length normalisation (BM25 `b`): 0 = none, 1 = full.
    pub b: f32,
}

/// An inverted index over a set of documents (skills, or namespaces).
#[derive(Debug, Clone, Default)]
pub(crate) struct Inverted {
    vocab: HashMap<String, u32>,
    /// Term texts by id, for typo and prefix lookups.
    term_text: Vec<Box<str>>,
    /// Ids of plain word terms (ASCII), grouped by byte length.
    words_by_len: Vec<Vec<u32>>,
    idf: Vec<f32>,
    /// Per term: (document, saturated weighted frequency in 0..1).
    postings: Vec<Vec<(u32, f32)>>,
    docs: usize,
    /// The idf of a term no document has: the most informative a word can be.
    idf_max: f32,
}

impl Inverted {
    /// Index `docs`, each a list of fields (the same number of fields, with
    /// the same weights, for every document).
    pub fn build<'a, D>(docs: D) -> Inverted
    where
        D: IntoIterator<Item = Vec<Field<'a>>>,
    {
        let mut index = Inverted::default();
        // Per document: (term, field, count) gathered, then folded.
        let mut per_doc: Vec<Vec<(u32, usize, f32)>> = Vec::new();
        let mut field_lengths: Vec<Vec<f32>> = Vec::new();
        let mut field_params: Vec<(f32, f32)> = Vec::new();
        for fields in docs {
            let mut entries = Vec::new();
            let mut lengths = Vec::with_capacity(fields.len());
            if field_params.len() < fields.len() {
                field_params = fields.iter().map(|f| (f.weight, f.b)).collect();
            }
            for (f, field) in fields.iter().enumerate() {
                let terms = text::terms(field.text);
                let mut length = 0.0f32;
                for term in terms {
                    // A CJK character alone counts less than a word.
                    let count = match term.kind {
                        Kind::Single => 0.5,
                        _ => 1.0,
                    };
                    length += count;
                    let id = index.intern(term);
                    entries.push((id, f, count));
                }
                // CJK words also stand for their English equivalents, so an
                // English query finds a skill written in Chinese.
                for (_, _, english) in text::glossary_matches(field.text) {
                    for word in english {
                        let id = index.intern_word(word);
                        entries.push((id, f, 0.5));
                    }
                }
                lengths.push(length);
            }
            per_doc.push(entries);
            field_lengths.push(lengths);
        }
        let docs = per_doc.len();
        index.docs = docs;
        let fields = field_params.len();
        let mut average = vec![0.0f32; fields];
        for lengths in &field_lengths {
            for (f, l) in lengths.iter().enumerate() {
                average[f] += l;
            }
        }
        for a in &mut average {
            *a = (*a / docs.max(1) as f32).max(1.0);
        }
        index.postings = vec![Vec::new(); index.term_text.len()];
        let mut folded: Vec<(u32, f32)> = Vec::new();
        for (doc, mut entries) in per_doc.into_iter().enumerate() {
            entries.sort_unstable_by_key(|&(t, f, _)| (t, f));
            folded.clear();
            for (term, f, count) in entries {
                let (weight, b) = field_params[f];
                let norm = 1.0 - b + b * field_lengths[doc][f] / average[f];
                let contribution = weight * count / norm;
                match folded.last_mut() {
                    Some((t, w)) if *t == term => *w += contribution,
                    _ => folded.push((term, contribution)),
                }
            }
            for &(term, tf) in &folded {
                index.postings[term as usize].push((doc as u32, tf / (K1 + tf)));
            }
        }
        let n = docs as f32;
        index.idf = index
            .postings
            .iter()
            .map(|p| {
                let df = p.len() as f32;
                (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
            })
            .collect();
        index.idf_max = (1.0 + (n + 0.5) / 0.5).ln();
        for p in &mut index.postings {
            p.shrink_to_fit();
        }
        index
    }

    fn intern_word(&mut self, word: &str) -> u32 {
        match self.vocab.get(word) {
            Some(&id) => id,
            None => self.intern(Term {
                text: word.to_string(),
                kind: Kind::Word,
                surface: word.to_string(),
                units: (0, 0),
                offset: 0,
            }),
        }
    }

    fn intern(&mut self, term: Term) -> u32 {
        if let Some(&id) = self.vocab.get(&term.text) {
            return id;
        }
        let id = self.term_text.len() as u32;
        if term.kind == Kind::Word && term.text.is_ascii() {
            let len = term.text.len();
            if self.words_by_len.len() <= len {
                self.words_by_len.resize(len + 1, Vec::new());
            }
            self.words_by_len[len].push(id);
        }
        self.term_text.push(term.text.clone().into_boxed_str());
        self.vocab.insert(term.text, id);
        id
    }

    pub fn docs(&self) -> usize {
        self.docs
    }

    pub fn term(&self, text: &str) -> Option<u32> {
        self.vocab.get(text).copied()
    }

    pub fn idf(&self, term: u32) -> f32 {
        self.idf[term as usize]
    }

    pub fn idf_max(&self) -> f32 {
        self.idf_max
    }

    pub fn postings(&self, term: u32) -> &[(u32, f32)] {
        &self.postings[term as usize]
    }

    /// Word terms within a small edit distance of `word` (1 for short
    /// words, 2 from eight letters), closest first, at most `limit`.
    pub fn near(&self, word: &str, limit: usize) -> Vec<(u32, usize)> {
        let len = word.len();
        if len < 4 || !word.is_ascii() {
            return Vec::new();
        }
        let max = if len >= 8 { 2 } else { 1 };
        let mut found = Vec::new();
        for l in len.saturating_sub(max)..=len + max {
            for &id in self.words_by_len.get(l).map(Vec::as_slice).unwrap_or(&[]) {
                let candidate = self.term_text[id as usize].as_bytes();
                if let Some(d) = text::bounded_distance(word.as_bytes(), candidate, max) {
                    found.push((id, d));
                }
            }
        }
        // Closest first; among equals, the more common word (it is the
        // likelier intent), then the text for a stable order.
        found.sort_by(|a, b| {
            a.1.cmp(&b.1)
                .then(
                    self.postings[b.0 as usize]
                        .len()
                        .cmp(&self.postings[a.0 as usize].len()),
                )
                .then(self.term_text[a.0 as usize].cmp(&self.term_text[b.0 as usize]))
        });
        found.truncate(limit);
        found
    }

    /// Word terms that start with `prefix` (at least four letters), most
    /// common first, at most `limit`.
    pub fn completions(&self, prefix: &str, limit: usize) -> Vec<u32> {
        if prefix.len() < 4 || !prefix.is_ascii() {
            return Vec::new();
        }
        let mut found: Vec<u32> = self
            .words_by_len
            .iter()
            .skip(prefix.len() + 1)
            .flatten()
            .copied()
            .filter(|&id| self.term_text[id as usize].starts_with(prefix))
            .collect();
        found.sort_by(|&a, &b| {
            self.postings[b as usize]
                .len()
                .cmp(&self.postings[a as usize].len())
                .then(self.term_text[a as usize].cmp(&self.term_text[b as usize]))
        });
        found.truncate(limit);
        found
    }

    /// Approximate heap size in bytes, for reports.
    pub fn heap_bytes(&self) -> usize {
        let postings: usize = self.postings.iter().map(|p| p.capacity() * 8 + 24).sum();
        let terms: usize = self.term_text.iter().map(|t| t.len() * 2 + 16 + 8).sum();
        postings + terms + self.idf.len() * 4
    }
}
