//! The inverted index behind search: BM25F over short fields, with the
//! per-document saturation precomputed so a query is a few postings walks.

use super::text::{self, Kind};

pub(crate) use crate::hash::FastMap;

/// A word of the index near a query word (see [`Inverted::near`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Near {
    pub term: u32,
    pub distance: usize,
    /// The one edit is a letter left out of the query word or two
    /// letters swapped, not a letter changed or added.
    pub slip: bool,
}

/// `a` and `b` differ only by two neighbouring letters swapped.
fn swapped(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let Some(i) = a.iter().zip(b).position(|(x, y)| x != y) else {
        return false;
    };
    i + 1 < a.len() && a[i] == b[i + 1] && a[i + 1] == b[i] && a[i + 2..] == b[i + 2..]
}

/// BM25 saturation constant.
const K1: f32 = 1.2;

/// How one field of every document is weighted.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FieldSpec {
    pub weight: f32,
    /// Length normalisation (BM25 `b`): 0 = none, 1 = full.
    pub b: f32,
    /// A term found in this field weighs at least this share of the
    /// largest idf (that of a term no document has); 0 for none.
    pub min_idf: f32,
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
    /// (document, saturated weighted frequency in 0..1, lifted by a field's
    /// idf floor when the term is in that field), grouped by term:
    /// term `t` owns `postings[offsets[t]..offsets[t + 1]]`.
    postings: Vec<(u32, f32)>,
    offsets: Vec<u32>,
    docs: usize,
    /// The idf of a term no document has: the most informative a word can be.
    idf_max: f32,
}

impl Inverted {
    /// Index `docs`, each the texts of its `N` fields, weighted by
    /// `specs`. Tokenizing is spread over the available cores; the result
    /// does not depend on how.
    pub fn build<const N: usize>(specs: [FieldSpec; N], docs: &[[&str; N]]) -> Inverted {
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .clamp(1, 8)
            .min(docs.len() / 512 + 1);
        let chunk = docs.len().div_ceil(threads).max(1);
        let mut parts: Vec<Tokenized<N>> = if threads == 1 {
            vec![tokenize(docs)]
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
        for (n, part) in parts.iter_mut().enumerate() {
            let part_vocab = std::mem::take(&mut part.vocab);
            if n == 0 {
                vocab = part_vocab;
                continue;
            }
            let remap: Vec<u32> = part_vocab
                .terms
                .iter()
                .map(|(t, k)| vocab.intern(t, *k))
                .collect();
            // The words as written too: typo and prefix lookups use them.
            for (surface, id) in part_vocab.surfaces {
                vocab.surfaces.entry(surface).or_insert(remap[id as usize]);
            }
            for e in &mut part.entries {
                e.0 = remap[e.0 as usize];
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
        let docs = docs.len();
        index.docs = docs;
        // A field's average length is over the documents that have it: a
        // field most documents leave empty (a body's "when to use" list)
        // is not long wherever it is present.
        let mut average = [0.0f32; N];
        let mut present = [0u32; N];
        for part in &parts {
            for lengths in &part.lengths {
                for ((a, n), &l) in average.iter_mut().zip(&mut present).zip(lengths) {
                    *a += l;
                    *n += u32::from(l > 0.0);
                }
            }
        }
        for (a, &n) in average.iter_mut().zip(&present) {
            *a = (*a / n.max(1) as f32).max(1.0);
        }
        // Each document lists its terms once, with a count per field: one
        // weight per term, laid out by term. Documents arrive in order, so
        // each term's postings stay sorted.
        let terms = index.term_text.len();
        let mut df = vec![0u32; terms + 1];
        for part in &parts {
            for &(term, _) in &part.entries {
                df[term as usize] += 1;
            }
        }
        let mut offsets = vec![0u32; terms + 1];
        for t in 0..terms {
            offsets[t + 1] = offsets[t] + df[t];
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
        let mut fill = offsets.clone();
        let mut postings = vec![(0u32, 0.0f32); offsets[terms] as usize];
        let mut doc = 0u32;
        for part in &parts {
            let mut start = 0;
            for (&end, lengths) in part.ends.iter().zip(&part.lengths) {
                let mut norms = [1.0f32; N];
                for f in 0..N {
                    let b = specs[f].b;
                    norms[f] = 1.0 - b + b * lengths[f] / average[f];
                }
                for &(term, counts) in &part.entries[start..end as usize] {
                    let mut tf = 0.0f32;
                    // A field with an idf floor lifts a common term's weight
                    // in the documents where the term is in that field.
                    let mut lift = 1.0f32;
                    for f in 0..N {
                        if counts[f] > 0.0 {
                            tf += specs[f].weight * counts[f] / norms[f];
                            let floor = specs[f].min_idf * index.idf_max;
                            lift = lift.max(floor / index.idf[term as usize]);
                        }
                    }
                    let slot = &mut fill[term as usize];
                    postings[*slot as usize] = (doc, tf / (K1 + tf) * lift);
                    *slot += 1;
                }
                start = end as usize;
                doc += 1;
            }
        }
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

    /// The idf of a term exactly one document has.
    pub fn idf_one(&self) -> f32 {
        let n = self.docs as f32;
        (1.0 + (n - 0.5).max(0.0) / 1.5).ln().max(f32::EPSILON)
    }

    pub fn postings(&self, term: u32) -> &[(u32, f32)] {
        let t = term as usize;
        &self.postings[self.offsets[t] as usize..self.offsets[t + 1] as usize]
    }

    pub fn df(&self, term: u32) -> u32 {
        self.offsets[term as usize + 1] - self.offsets[term as usize]
    }

    /// Terms with a word within a small edit distance of `word` (1 for
    /// short words, 2 from eight letters), closest first, at most `limit`,
    /// each with its distance and whether the one edit is a slip: a letter
    /// of the word left out (`revew` for `review`) or two letters swapped.
    pub fn near(&self, word: &str, limit: usize) -> Vec<Near> {
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
                    let slip = d == 1 && (surface.len() > len || swapped(word, surface));
                    found.push(Near {
                        term: *id,
                        distance: d,
                        slip,
                    });
                }
            }
        }
        // Closest first; among equals, a slip (the likelier typo), then the
        // more common word (the likelier intent), then the text for a
        // stable order.
        found.sort_by(|a, b| {
            a.distance
                .cmp(&b.distance)
                .then(b.slip.cmp(&a.slip))
                .then(self.df(b.term).cmp(&self.df(a.term)))
                .then(self.term_text[a.term as usize].cmp(&self.term_text[b.term as usize]))
        });
        // Several spellings of one stem: keep its closest.
        let mut seen: Vec<u32> = Vec::new();
        found.retain(|near| {
            let new = !seen.contains(&near.term);
            seen.push(near.term);
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
        // Each bucket is sorted: the words with the prefix are one range.
        let mut found: Vec<u32> = Vec::new();
        for bucket in self.words_by_len.iter().skip(prefix.len() + 1) {
            let start = bucket.partition_point(|(surface, _, _)| &**surface < prefix);
            found.extend(
                bucket[start..]
                    .iter()
                    .take_while(|(surface, _, _)| surface.starts_with(prefix))
                    .map(|&(_, id, _)| id),
            );
        }
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
    fn with_capacity(docs: usize) -> Vocab {
        Vocab {
            map: FastMap::with_capacity_and_hasher(docs.min(1 << 16), Default::default()),
            terms: Vec::with_capacity(docs.min(1 << 16)),
            surfaces: FastMap::with_capacity_and_hasher(docs.min(1 << 16), Default::default()),
        }
    }

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

/// One tokenizing pass over a run of documents: its vocabulary, and each
/// document's terms, once each with a count per field (document `d` owns
/// `entries[ends[d - 1]..ends[d]]`), with its field lengths.
struct Tokenized<const N: usize> {
    vocab: Vocab,
    entries: Vec<(u32, [f32; N])>,
    ends: Vec<u32>,
    lengths: Vec<[f32; N]>,
}

fn tokenize<const N: usize>(docs: &[[&str; N]]) -> Tokenized<N> {
    let mut out = Tokenized {
        vocab: Vocab::with_capacity(docs.len()),
        entries: Vec::with_capacity(docs.len() * 40),
        ends: Vec::with_capacity(docs.len()),
        lengths: Vec::with_capacity(docs.len()),
    };
    let mut buffers = text::Buffers::default();
    // Where term `t` sits in `entries` if the current document has it
    // already: `seen[t]`, valid when `stamp[t]` is the document's number
    // plus one. Counting this way needs no sort per document.
    let mut seen: Vec<u32> = Vec::new();
    let mut stamp: Vec<u32> = Vec::new();
    for (n, fields) in docs.iter().enumerate() {
        let doc_stamp = n as u32 + 1;
        let entries = &mut out.entries;
        let vocab = &mut out.vocab;
        let mut add = |id: u32, f: usize, count: f32, entries: &mut Vec<(u32, [f32; N])>| {
            let t = id as usize;
            if t >= stamp.len() {
                stamp.resize(t + 1, 0);
                seen.resize(t + 1, 0);
            }
            if stamp[t] == doc_stamp {
                entries[seen[t] as usize].1[f] += count;
            } else {
                stamp[t] = doc_stamp;
                seen[t] = entries.len() as u32;
                let mut counts = [0.0; N];
                counts[f] = count;
                entries.push((id, counts));
            }
        };
        let mut lengths = [0.0f32; N];
        for (f, text) in fields.iter().enumerate() {
            let mut length = 0.0f32;
            text::scan_with(text, &mut buffers, &mut |piece| {
                // A CJK character alone counts less than a word.
                let count = match piece.kind {
                    Kind::Single => 0.5,
                    _ => 1.0,
                };
                length += count;
                let id = vocab.intern_piece(piece);
                add(id, f, count, entries);
            });
            // CJK words also stand for their English equivalents, so an
            // English query finds a skill written in Chinese.
            for (_, _, english) in text::glossary_matches(text) {
                for word in english {
                    let id = vocab.intern(word, Kind::Word);
                    add(id, f, 0.5, entries);
                }
            }
            lengths[f] = length;
        }
        out.ends.push(entries.len() as u32);
        out.lengths.push(lengths);
    }
    out
}

/// The set of bytes of a word, folded onto 64 bits.
fn letters(word: &[u8]) -> u64 {
    word.iter().fold(0u64, |m, &b| m | 1u64 << (b % 64))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(docs: &[&str]) -> Inverted {
        let docs: Vec<[&str; 1]> = docs.iter().map(|d| [*d]).collect();
        Inverted::build(
            [FieldSpec {
                weight: 1.0,
                b: 0.5,
                min_idf: 0.0,
            }],
            &docs,
        )
    }

    fn texts(index: &Inverted, ids: &[u32]) -> Vec<String> {
        ids.iter()
            .map(|&id| index.term_text[id as usize].to_string())
            .collect()
    }

    #[test]
    fn completions_are_the_longer_words_with_the_prefix_most_common_first() {
        let index = index(&[
            "deploy kubernetes",
            "kubernetes cluster",
            "kubectl apply",
            "kube config",
            "kubeadm init",
            "cube render",
        ]);
        // The stems of `kubernetes`, `kubectl`, `kubeadm`; not `kube`
        // itself (no longer than the prefix) nor `cube`.
        let found = texts(&index, &index.completions("kube", 10));
        assert_eq!(found.first().map(String::as_str), Some("kubernet"));
        let mut rest = found[1..].to_vec();
        rest.sort();
        assert_eq!(rest, ["kubeadm", "kubectl"]);
        assert_eq!(index.completions("kube", 1).len(), 1);
        assert!(index.completions("zzzz", 5).is_empty());
        assert!(
            index.completions("kub", 5).is_empty(),
            "prefixes under four letters"
        );
    }

    #[test]
    fn near_words_say_whether_the_edit_is_a_slip() {
        let index = index(&["review the code", "print a page"]);
        let near = |word: &str| -> Vec<(String, usize, bool)> {
            index
                .near(word, 5)
                .iter()
                .map(|n| {
                    (
                        index.term_text[n.term as usize].to_string(),
                        n.distance,
                        n.slip,
                    )
                })
                .collect()
        };
        // A letter left out, two letters swapped: slips.
        assert_eq!(near("revew"), [("review".to_string(), 1, true)]);
        assert_eq!(near("reveiw"), [("review".to_string(), 1, true)]);
        // A letter changed or added: not.
        assert_eq!(near("paint"), [("print".to_string(), 1, false)]);
        assert_eq!(near("prints"), [("print".to_string(), 1, false)]);
        assert!(swapped("abcd", "abdc") && !swapped("abcd", "abcd") && !swapped("abcd", "bacdx"));
    }

    #[test]
    fn a_field_idf_floor_lifts_common_terms_found_in_it() {
        let docs = [
            ["pdf fill", "pdf forms"],
            ["pdf sign", "pdf"],
            ["notes", "pdf merged"],
        ];
        let build = |min_idf: f32| {
            Inverted::build(
                [
                    FieldSpec {
                        weight: 3.0,
                        b: 0.0,
                        min_idf,
                    },
                    FieldSpec {
                        weight: 1.0,
                        b: 0.0,
                        min_idf: 0.0,
                    },
                ],
                &docs,
            )
        };
        let (plain, lifted) = (build(0.0), build(0.5));
        let pdf = plain.term("pdf").expect("indexed");
        let floor = 0.5 * plain.idf_max() / plain.idf(pdf);
        assert!(floor > 1.0, "{floor}");
        let weights =
            |index: &Inverted| -> Vec<f32> { index.postings(pdf).iter().map(|p| p.1).collect() };
        let (before, after) = (weights(&plain), weights(&lifted));
        // In the names of the first two documents: lifted to the floor.
        for d in 0..2 {
            assert!(
                (after[d] - before[d] * floor).abs() < 1e-5,
                "{before:?} {after:?}"
            );
        }
        // Only in the description of the third: as it was.
        assert_eq!(after[2], before[2]);
    }

    #[test]
    fn counts_a_term_once_per_document_across_fields() {
        let docs = [["alpha beta", "alpha alpha gamma"], ["beta", "delta"]];
        let index = Inverted::build(
            [
                FieldSpec {
                    weight: 2.0,
                    b: 0.0,
                    min_idf: 0.0,
                },
                FieldSpec {
                    weight: 1.0,
                    b: 0.0,
                    min_idf: 0.0,
                },
            ],
            &docs,
        );
        assert_eq!(index.docs(), 2);
        let alpha = index.term("alpha").expect("indexed");
        let beta = index.term("beta").expect("indexed");
        // One posting per document, its weight from both fields:
        // tf = 2·1 + 1·2 = 4, saturated 4 / (1.2 + 4).
        assert_eq!(index.postings(alpha).len(), 1);
        let (doc, weight) = index.postings(alpha)[0];
        assert_eq!(doc, 0);
        assert!((weight - 4.0 / 5.2).abs() < 1e-6, "{weight}");
        assert_eq!(
            index.postings(beta).iter().map(|p| p.0).collect::<Vec<_>>(),
            [0, 1]
        );
    }
}
