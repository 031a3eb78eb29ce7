//! The inverted index behind search: BM25F over short fields, with the
//! per-document saturation precomputed so a query is a few postings walks.

use super::text::{self, Kind};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A small, fast hasher for short keys (the multiply-rotate scheme of
/// rustc's FxHash). Not DoS-resistant: keys come from the catalog's own
/// files and the query, and a slow map only makes a search slower.
#[derive(Default, Clone, Copy)]
pub(crate) struct FastHasher(u64);

impl Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
            self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.write(&[i]);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

pub(crate) type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;

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
    vocab: FastMap<String, u32>,
    /// Term texts by id, for typo and prefix lookups.
    term_text: Vec<Box<str>>,
    /// The words of the documents as written (ASCII, lower-cased, not
    /// stemmed) grouped by byte length, with their term and the set of
    /// letters in the word (a cheap filter before an edit distance).
    words_by_len: Vec<Vec<(Box<str>, u32, u64)>>,
    idf: Vec<f32>,
    /// (document, saturated weighted frequency in 0..1), grouped by term:
    /// term `t` owns `postings[offsets[t]..offsets[t + 1]]`.
    postings: Vec<(u32, f32)>,
    offsets: Vec<u32>,
    docs: usize,
    /// The idf of a term no document has: the most informative a word can be.
    idf_max: f32,
}

impl Inverted {
    /// Index `docs`, each a list of fields (the same number of fields, with
    /// the same weights, for every document). Tokenizing is spread over
    /// the available cores; the result does not depend on how.
    pub fn build<'a, D>(docs: D) -> Inverted
    where
        D: IntoIterator<Item = Vec<Field<'a>>>,
    {
        let docs: Vec<Vec<Field<'a>>> = docs.into_iter().collect();
        let field_params: Vec<(f32, f32)> = docs
            .first()
            .map(|fields| fields.iter().map(|f| (f.weight, f.b)).collect())
            .unwrap_or_default();
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .clamp(1, 8)
            .min(docs.len() / 512 + 1);
        let chunk = docs.len().div_ceil(threads).max(1);
        let mut parts: Vec<(Vocab, Vec<Tokenized>)> = if threads == 1 {
            vec![tokenize(&docs)]
        } else {
            std::thread::scope(|scope| {
                let handles: Vec<_> = docs
                    .chunks(chunk)
                    .map(|slice| scope.spawn(move || tokenize(slice)))
                    .collect();
                handles
                    .into_iter()
                    .map(|h| {
                        h.join()
                            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                    })
                    .collect()
            })
        };
        // One vocabulary: the first part's ids stay, the others are mapped.
        let mut vocab = Vocab::default();
        let mut per_doc: Vec<Vec<(u32, u8, f32)>> = Vec::with_capacity(docs.len());
        let mut field_lengths: Vec<Vec<f32>> = Vec::with_capacity(docs.len());
        for (n, (part_vocab, tokenized)) in parts.drain(..).enumerate() {
            let remap: Option<Vec<u32>> = if n == 0 {
                vocab = part_vocab;
                None
            } else {
                let remap: Vec<u32> = part_vocab
                    .terms
                    .iter()
                    .map(|(t, k)| vocab.intern(t, *k))
                    .collect();
                // The words as written too: typo and prefix lookups use them.
                for (surface, id) in part_vocab.surfaces {
                    vocab.surfaces.entry(surface).or_insert(remap[id as usize]);
                }
                Some(remap)
            };
            for mut doc in tokenized {
                if let Some(remap) = &remap {
                    for e in &mut doc.entries {
                        e.0 = remap[e.0 as usize];
                    }
                }
                per_doc.push(doc.entries);
                field_lengths.push(doc.lengths);
            }
        }
        let mut index = Inverted::default();
        let compounds = vocab
            .terms
            .iter()
            .enumerate()
            .filter(|(_, (_, kind))| *kind == Kind::Compound)
            .map(|(id, (text, _))| (text.clone(), id as u32));
        for (surface, id) in vocab.surfaces.drain().chain(compounds) {
            if surface.is_ascii() {
                let len = surface.len();
                if index.words_by_len.len() <= len {
                    index.words_by_len.resize(len + 1, Vec::new());
                }
                let mask = letters(surface.as_bytes());
                index.words_by_len[len].push((surface, id, mask));
            }
        }
        // Map order depends on how the work was split: sort.
        for bucket in &mut index.words_by_len {
            bucket.sort_unstable();
        }
        index.term_text = vocab.terms.into_iter().map(|(t, _)| t).collect();
        index.vocab = vocab.map;
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
        // Fold each document's (term, field, count) entries, grouped by term
        // (sorted in the tokenizing pass; a remap keeps groups together),
        // into one weight per term, then lay the postings out by term.
        let terms = index.term_text.len();
        let mut folded_docs: Vec<(u32, u32, f32)> = Vec::new();
        let mut df = vec![0u32; terms + 1];
        let mut folded: Vec<(u32, f32)> = Vec::new();
        for (doc, entries) in per_doc.into_iter().enumerate() {
            folded.clear();
            for (term, f, count) in entries {
                let f = f as usize;
                let (weight, b) = field_params[f];
                let norm = 1.0 - b + b * field_lengths[doc][f] / average[f];
                let contribution = weight * count / norm;
                match folded.last_mut() {
                    Some((t, w)) if *t == term => *w += contribution,
                    _ => folded.push((term, contribution)),
                }
            }
            for &(term, tf) in &folded {
                df[term as usize] += 1;
                folded_docs.push((term, doc as u32, tf / (K1 + tf)));
            }
        }
        let mut offsets = vec![0u32; terms + 1];
        for t in 0..terms {
            offsets[t + 1] = offsets[t] + df[t];
        }
        let mut fill = offsets.clone();
        let mut postings = vec![(0u32, 0.0f32); folded_docs.len()];
        // Documents arrive in order, so each term's postings stay sorted.
        for (term, doc, weight) in folded_docs {
            let slot = &mut fill[term as usize];
            postings[*slot as usize] = (doc, weight);
            *slot += 1;
        }
        let n = docs as f32;
        index.idf = df[..terms]
            .iter()
            .map(|&df| {
                let df = df as f32;
                (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
            })
            .collect();
        index.idf_max = (1.0 + (n + 0.5) / 0.5).ln();
        index.postings = postings;
        index.offsets = offsets;
        index
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
        let t = term as usize;
        &self.postings[self.offsets[t] as usize..self.offsets[t + 1] as usize]
    }

    fn df(&self, term: u32) -> u32 {
        self.offsets[term as usize + 1] - self.offsets[term as usize]
    }

    /// Terms with a word within a small edit distance of `word` (1 for
    /// short words, 2 from eight letters), closest first, at most `limit`.
    pub fn near(&self, word: &str, limit: usize) -> Vec<(u32, usize)> {
        let len = word.len();
        if len < 4 || !word.is_ascii() {
            return Vec::new();
        }
        let max = if len >= 8 { 2 } else { 1 };
        let mut found = Vec::new();
        let mask = letters(word.as_bytes());
        for l in len.saturating_sub(max)..=len + max {
            for (surface, id, other) in self.words_by_len.get(l).map(Vec::as_slice).unwrap_or(&[]) {
                // Each edit adds or removes at most one letter of the set.
                if (mask ^ other).count_ones() as usize > 2 * max {
                    continue;
                }
                if let Some(d) = text::bounded_distance(word.as_bytes(), surface.as_bytes(), max) {
                    found.push((*id, d));
                }
            }
        }
        // Closest first; among equals, the more common word (it is the
        // likelier intent), then the text for a stable order.
        found.sort_by(|a, b| {
            a.1.cmp(&b.1)
                .then(self.df(b.0).cmp(&self.df(a.0)))
                .then(self.term_text[a.0 as usize].cmp(&self.term_text[b.0 as usize]))
        });
        // Several spellings of one stem: keep its closest.
        let mut seen: Vec<u32> = Vec::new();
        found.retain(|(id, _)| {
            let new = !seen.contains(id);
            seen.push(*id);
            new
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
            .filter(|(surface, _, _)| surface.starts_with(prefix))
            .map(|&(_, id, _)| id)
            .collect();
        found.sort_by(|&a, &b| {
            self.df(b)
                .cmp(&self.df(a))
                .then(self.term_text[a as usize].cmp(&self.term_text[b as usize]))
        });
        found.dedup();
        found.truncate(limit);
        found
    }

    /// Approximate heap size in bytes, for reports.
    pub fn heap_bytes(&self) -> usize {
        let postings = self.postings.capacity() * 8 + self.offsets.capacity() * 4;
        let terms: usize = self
            .term_text
            .iter()
            .map(|t| t.len() * 2 + 16 + 8)
            .sum::<usize>()
            + self
                .words_by_len
                .iter()
                .flatten()
                .map(|(w, _, _)| w.len() + 28)
                .sum::<usize>();
        postings + terms + self.idf.len() * 4
    }
}

/// Term ids of one tokenizing pass: stemmed term → id, and surface word →
/// id so each distinct word is stemmed once.
#[derive(Debug, Default)]
struct Vocab {
    map: FastMap<String, u32>,
    terms: Vec<(Box<str>, Kind)>,
    surfaces: FastMap<Box<str>, u32>,
}

impl Vocab {
    fn intern(&mut self, text: &str, kind: Kind) -> u32 {
        if let Some(&id) = self.map.get(text) {
            return id;
        }
        let id = self.terms.len() as u32;
        self.terms.push((text.into(), kind));
        self.map.insert(text.to_string(), id);
        id
    }

    fn intern_piece(&mut self, piece: text::Piece<'_>) -> u32 {
        if piece.kind != Kind::Word {
            return self.intern(piece.text, piece.kind);
        }
        if let Some(&id) = self.surfaces.get(piece.text) {
            return id;
        }
        let id = self.intern(&text::stem(piece.text), Kind::Word);
        self.surfaces.insert(piece.text.into(), id);
        id
    }
}

/// One document's terms: (term, field, count), and each field's length.
#[derive(Debug, Default)]
struct Tokenized {
    entries: Vec<(u32, u8, f32)>,
    lengths: Vec<f32>,
}

fn tokenize(docs: &[Vec<Field<'_>>]) -> (Vocab, Vec<Tokenized>) {
    let mut vocab = Vocab::default();
    let mut out = Vec::with_capacity(docs.len());
    let mut buffers = text::Buffers::default();
    for fields in docs {
        let mut doc = Tokenized {
            entries: Vec::with_capacity(64),
            lengths: Vec::with_capacity(fields.len()),
        };
        for (f, field) in fields.iter().enumerate() {
            let f = f as u8;
            let mut length = 0.0f32;
            text::scan_with(field.text, &mut buffers, &mut |piece| {
                // A CJK character alone counts less than a word.
                let count = match piece.kind {
                    Kind::Single => 0.5,
                    _ => 1.0,
                };
                length += count;
                let id = vocab.intern_piece(piece);
                doc.entries.push((id, f, count));
            });
            // CJK words also stand for their English equivalents, so an
            // English query finds a skill written in Chinese.
            for (_, _, english) in text::glossary_matches(field.text) {
                for word in english {
                    let id = vocab.intern(word, Kind::Word);
                    doc.entries.push((id, f, 0.5));
                }
            }
            doc.lengths.push(length);
        }
        doc.entries.sort_unstable_by_key(|&(t, f, _)| (t, f));
        out.push(doc);
    }
    (vocab, out)
}

/// The set of bytes of a word, folded onto 64 bits.
fn letters(word: &[u8]) -> u64 {
    word.iter().fold(0u64, |m, &b| m | 1u64 << (b % 64))
}
