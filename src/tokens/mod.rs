//! Token counting with the o200k tokenizer (the one GPT-4o-class models
//! use), so a `--budget-tokens` budget means what it says.
//!
//! This is our own counter rather than a wrapper around a tokenizer crate.
//! We only ever need the *number* of tokens, never the tokens themselves, and
//! the general-purpose crates pay for far more than that: `bpe-openai` peaked
//! around 70 MB of resident memory and ~60 ms to load, `tiktoken-rs` around
//! 57 MB and ~150 ms, while the CLI has to stay under 64 MB on a 10k-skill
//! catalog and start quickly. Counting needs three things, all owned here:
//!
//! 1. **The vocabulary.** `o200k_base.tiktoken`, next to this file, is
//!    OpenAI's public o200k_base rank file exactly as shipped in the
//!    `tiktoken-rs` 0.7.0 crate (`assets/o200k_base.tiktoken`), sha256
//!    `446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d`.
//!    Each line is `<base64 token bytes> <rank>`, ranks 0..=199997 in order.
//!    It is compiled into the binary and decoded once, lazily, into one
//!    byte buffer holding every token back to back, an offset per rank, an
//!    open-addressing hash table from bytes to rank (one `u64` per slot,
//!    short tokens stored inline) and a direct table for two-byte strings:
//!    a handful of allocations, about 6.5 MB, instead of 200k small ones.
//!    Loading takes ~17 ms and ~12 MB of resident memory (including the
//!    pages of the embedded file) in a release build.
//! 2. **Pre-tokenization.** o200k first splits text into pieces with a regular
//!    expression (`PATTERN` below); tokens never cross piece boundaries. The
//!    upstream pattern uses a look-ahead (`\s+(?!\S)`) that Rust's regex
//!    engines do not support, so we match `\s+` and apply the look-ahead by
//!    hand. We use `regex-automata` (the engine behind `regex`, already in
//!    the dependency tree through `ignore`) rather than `regex` for one
//!    feature: anchored searches. Each piece starts where the previous one
//!    ended; an unanchored search must also run backwards to find the start
//!    and build a second lazy DFA for that, which made a cold count of 1.5 MB
//!    take twice as long.
//! 3. **Byte-pair merging.** Within a piece, the adjacent pair whose
//!    concatenation has the lowest rank is merged until no pair is a token,
//!    exactly like tiktoken; the count is the number of parts left. A piece
//!    that is itself a token counts as one without merging.
//!
//! o200k applies no Unicode normalization, so neither do we. The tables are
//! loaded once per process, on first use; callers that know they will need
//! them can start loading early with [`warm_up`] so the load overlaps the
//! scan. The tests check exact parity with `bpe-openai` (a dev-dependency).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::{Once, OnceLock};

use regex_automata::meta::Regex;
use regex_automata::{Anchored, Input};

/// The vocabulary file (see the module docs for its origin and checksum).
const VOCAB_FILE: &str = include_str!("o200k_base.tiktoken");

/// Number of ranks in [`VOCAB_FILE`] (ranks are `0..VOCAB_SIZE`, in order).
const VOCAB_SIZE: usize = 199_998;

/// o200k's pre-tokenization pattern, as published by OpenAI, except that the
/// final `\s+(?!\S)|\s+` is written `\s+`: the regex engine has no
/// look-around, so [`Pieces`] applies the look-ahead itself.
const PATTERN: &str = concat!(
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    r"|\p{N}{1,3}",
    r"| ?[^\s\p{L}\p{N}]+[\r\n/]*",
    r"|\s*[\r\n]+",
    r"|\s+",
);

/// log2 of the hash table's slot count: 2^19 slots for ~200k tokens keeps
/// the load factor under 0.4, so probes are short.
const TABLE_BITS: u32 = 19;

/// An empty hash-table slot (no entry is all ones: ranks are < 2^18).
const EMPTY: u64 = u64::MAX;

/// The low bits of a hash-table entry hold the rank.
const RANK_BITS: u32 = 24;

/// "No rank": the pair is not a token.
const NONE: u32 = u32::MAX;

/// Pieces up to this many bytes are merged in a small array on the stack;
/// longer ones (long runs of spaces or symbols) use a heap, so a pathological
/// input costs O(n log n) rather than tiktoken's O(n²).
const SMALL_PIECE: usize = 128;

struct Tokenizer {
    vocab: Vocab,
    pieces: Regex,
}

static TOKENIZER: OnceLock<Tokenizer> = OnceLock::new();
static WARM_UP: Once = Once::new();

fn tokenizer() -> &'static Tokenizer {
    TOKENIZER.get_or_init(|| Tokenizer {
        vocab: Vocab::parse(VOCAB_FILE),
        pieces: Regex::new(PATTERN).expect("the o200k pattern is a valid regex"),
    })
}

/// Number of o200k tokens in `text`.
pub fn count(text: &str) -> usize {
    if text.is_empty() {
        return 0;
    }
    let tok = tokenizer();
    Pieces::new(&tok.pieces, text)
        .map(|piece| tok.vocab.count_piece(piece.as_bytes()))
        .sum()
}

/// Start loading the tokenizer on a background thread. Cheap and safe to call
/// any number of times: at most one thread is ever started.
pub fn warm_up() {
    if TOKENIZER.get().is_some() {
        return;
    }
    WARM_UP.call_once(|| {
        // If the thread cannot be spawned, the first `count` loads instead.
        let _ = std::thread::Builder::new()
            .name("tokens-warm-up".into())
            .spawn(|| {
                tokenizer();
            });
    });
}

/// A lower bound on the tokens of `text` that needs no tokenizer: the
/// tokenizer never merges across whitespace, so every run of non-space
/// characters is at least one token.
pub fn lower_bound(text: &str) -> usize {
    text.split_whitespace().count()
}

/// An upper bound that needs no tokenizer: every token covers at least one
/// byte.
pub fn upper_bound(text: &str) -> usize {
    text.len()
}

/// The pre-tokenizer: yields the pieces of `text` in order; together they
/// cover `text` exactly.
struct Pieces<'r, 't> {
    re: &'r Regex,
    text: &'t str,
    pos: usize,
}

impl<'r, 't> Pieces<'r, 't> {
    fn new(re: &'r Regex, text: &'t str) -> Self {
        Pieces { re, text, pos: 0 }
    }
}

impl<'t> Iterator for Pieces<'_, 't> {
    type Item = &'t str;

    fn next(&mut self) -> Option<&'t str> {
        let text = self.text;
        let start = self.pos;
        if start >= text.len() {
            return None;
        }
        // Every character starts a match of some alternative (letters, marks,
        // numbers, whitespace, and everything else), so an anchored search
        // always succeeds.
        let input = Input::new(text).range(start..).anchored(Anchored::Yes);
        let mut end = match self.re.search(&input) {
            Some(m) if m.end() > start => m.end(),
            // Unreachable by the argument above; stay total regardless.
            _ => start + text[start..].chars().next().map_or(1, char::len_utf8),
        };
        // Emulate `\s+(?!\S)|\s+`. Only the final `\s+` alternative yields a
        // match ending in whitespace other than \r or \n (a run containing a
        // newline is taken by `\s*[\r\n]+`), and being greedy it stops only at
        // the end of the text or before a non-space. In the latter case the
        // look-ahead gives the run back its last character, which then starts
        // the next piece — unless the run is that one character.
        if end < text.len() {
            let last = text[start..end].chars().next_back();
            if let Some(c) = last {
                if c.is_whitespace() && c != '\r' && c != '\n' && end - start > c.len_utf8() {
                    end -= c.len_utf8();
                }
            }
        }
        self.pos = end;
        Some(&text[start..end])
    }
}

/// The o200k vocabulary: every token's bytes back to back in rank order, a
/// hash table from bytes to rank, and a direct table for two-byte strings
/// (the first thing byte-pair merging asks about).
struct Vocab {
    /// All tokens, concatenated in rank order.
    bytes: Vec<u8>,
    /// Token `r` is `bytes[offsets[r]..offsets[r + 1]]`.
    offsets: Vec<u32>,
    /// Open addressing with linear probing. A slot holds [`EMPTY`] or a
    /// token's [`Key::entry`] with its rank in the low [`RANK_BITS`] bits.
    table: Vec<u64>,
    /// Rank of each two-byte string (`first << 8 | second`), or [`NONE`].
    pairs: Vec<u32>,
    /// Length of the longest token, in bytes.
    max_len: usize,
}

impl Vocab {
    /// Decode the `.tiktoken` text. The file is compiled in and checked by
    /// the tests, so malformed data is a bug, not an input error.
    fn parse(file: &str) -> Vocab {
        let data = file.as_bytes();
        // Decoded tokens take at most 3/4 of the file; capacity we do not
        // write to is never touched, so it costs address space, not memory.
        let mut bytes = Vec::with_capacity(data.len() / 4 * 3);
        let mut offsets = Vec::with_capacity(VOCAB_SIZE + 1);
        offsets.push(0u32);
        let mut max_len = 0;
        let mut pos = 0;
        while pos < data.len() {
            let start = bytes.len();
            pos = decode_line(data, pos, offsets.len() - 1, &mut bytes);
            max_len = max_len.max(bytes.len() - start);
            offsets.push(u32::try_from(bytes.len()).expect("vocabulary under 4 GiB"));
        }
        assert_eq!(offsets.len(), VOCAB_SIZE + 1, "vocabulary size");

        // Fill the table in a second pass, in blocks: hash a block of tokens,
        // then insert it. The inserts are cache misses; issued back to back,
        // the processor overlaps them (interleaved with hashing, it could
        // not, and loading took several times longer).
        let mut table = vec![EMPTY; 1 << TABLE_BITS];
        let mask = table.len() - 1;
        let mut block = [Key { slot: 0, entry: 0 }; 256];
        for first in (0..VOCAB_SIZE).step_by(block.len()) {
            let ranks = first..VOCAB_SIZE.min(first + block.len());
            for (entry, rank) in block.iter_mut().zip(ranks.clone()) {
                let token = &bytes[offsets[rank] as usize..offsets[rank + 1] as usize];
                *entry = Key::new(token);
            }
            for (key, rank) in block.iter().zip(ranks) {
                let mut slot = key.slot;
                while table[slot] != EMPTY {
                    slot = (slot + 1) & mask;
                }
                table[slot] = key.entry | rank as u64;
            }
        }
        let mut pairs = vec![NONE; 1 << 16];
        for (rank, span) in offsets.windows(2).enumerate() {
            if let [a, b] = bytes[span[0] as usize..span[1] as usize] {
                pairs[usize::from(a) << 8 | usize::from(b)] = rank as u32;
            }
        }
        Vocab {
            bytes,
            offsets,
            table,
            pairs,
            max_len,
        }
    }

    fn token(&self, rank: u32) -> &[u8] {
        let r = rank as usize;
        &self.bytes[self.offsets[r] as usize..self.offsets[r + 1] as usize]
    }

    /// The rank of `bytes`, or [`NONE`] if it is not a token.
    fn rank(&self, bytes: &[u8]) -> u32 {
        match *bytes {
            [a, b] => self.pair_rank(a, b),
            _ if bytes.len() > self.max_len => NONE,
            _ => self.lookup(bytes),
        }
    }

    /// The rank of the two-byte string `[a, b]`, or [`NONE`].
    fn pair_rank(&self, a: u8, b: u8) -> u32 {
        self.pairs[usize::from(a) << 8 | usize::from(b)]
    }

    /// Hash-table lookup. Keys of up to [`INLINE`] bytes are stored in the
    /// entry itself, so they need no comparison against `self.bytes`.
    fn lookup(&self, bytes: &[u8]) -> u32 {
        let mask = self.table.len() - 1;
        let key = Key::new(bytes);
        let mut slot = key.slot;
        loop {
            let entry = self.table[slot];
            if entry == EMPTY {
                return NONE;
            }
            if entry >> RANK_BITS == key.entry >> RANK_BITS {
                let rank = (entry & ((1 << RANK_BITS) - 1)) as u32;
                if bytes.len() <= INLINE || self.token(rank) == bytes {
                    return rank;
                }
            }
            slot = (slot + 1) & mask;
        }
    }

    /// Number of tokens in one pre-tokenized piece.
    fn count_piece(&self, piece: &[u8]) -> usize {
        if piece.len() <= 1 {
            return piece.len();
        }
        if self.rank(piece) != NONE {
            return 1;
        }
        if piece.len() <= SMALL_PIECE {
            self.merge_small(piece)
        } else {
            self.merge_large(piece)
        }
    }

    /// tiktoken's `byte_pair_merge`, counting only: `parts[i]` is the start of
    /// part `i` and the rank of part `i` joined with part `i + 1`; the last
    /// two entries are sentinels. Repeatedly merge the leftmost lowest-ranked
    /// pair. Needs `2 <= piece.len() <= SMALL_PIECE`.
    fn merge_small(&self, piece: &[u8]) -> usize {
        let n = piece.len();
        let mut parts = [(0u32, NONE); SMALL_PIECE + 1];
        for (i, part) in parts.iter_mut().enumerate().take(n - 1) {
            *part = (i as u32, self.pair_rank(piece[i], piece[i + 1]));
        }
        parts[n - 1] = ((n - 1) as u32, NONE);
        parts[n] = (n as u32, NONE);
        let mut len = n + 1;

        // Rank of parts i and i + 1 joined, once part i + 1 has absorbed
        // part i + 2 (so the span ends where part i + 3 starts).
        let joined = |parts: &[(u32, u32)], len: usize, i: usize| -> u32 {
            if i + 3 < len {
                self.rank(&piece[parts[i].0 as usize..parts[i + 3].0 as usize])
            } else {
                NONE
            }
        };

        loop {
            let mut best = (NONE, 0);
            for (i, &(_, rank)) in parts[..len - 1].iter().enumerate() {
                if rank < best.0 {
                    best = (rank, i);
                }
            }
            if best.0 == NONE {
                break;
            }
            let i = best.1;
            if i > 0 {
                parts[i - 1].1 = joined(&parts, len, i - 1);
            }
            parts[i].1 = joined(&parts, len, i);
            parts.copy_within(i + 2..len, i + 1);
            len -= 1;
        }
        len - 1
    }

    /// The same merge order as [`Vocab::merge_small`], with a linked list of
    /// parts and a min-heap of `(rank, start)` pairs instead of rescanning.
    /// A part is named by its start byte, which never changes (merging keeps
    /// the left part). A heap entry is stale once its part is gone or the
    /// part's pair rank changed; a pair only ever grows, so a stale entry
    /// can never match again.
    fn merge_large(&self, piece: &[u8]) -> usize {
        let n = piece.len();
        // next[i]: start of the part after the part starting at i (n if none).
        // prev[i]: start of the part before it (NONE if none).
        // rank[i]: rank of part i joined with next[i], or NONE (also for
        // parts merged away, so their heap entries all read as stale).
        let mut next: Vec<u32> = (1..=n as u32).collect();
        let mut prev: Vec<u32> = (0..n as u32).map(|i| i.wrapping_sub(1)).collect();
        let mut rank = vec![NONE; n];
        let mut heap = BinaryHeap::with_capacity(n);
        for i in 0..n - 1 {
            rank[i] = self.pair_rank(piece[i], piece[i + 1]);
            if rank[i] != NONE {
                heap.push(Reverse((rank[i], i as u32)));
            }
        }
        // Rank of the part at `i` joined with its successor, given the
        // current links.
        let pair_rank = |next: &[u32], i: usize| -> u32 {
            let j = next[i] as usize;
            if j >= n {
                return NONE;
            }
            self.rank(&piece[i..next[j] as usize])
        };

        let mut parts = n;
        while let Some(Reverse((r, i))) = heap.pop() {
            let i = i as usize;
            if rank[i] != r {
                continue;
            }
            // Merge part i with its successor j.
            let j = next[i] as usize;
            let k = next[j];
            rank[j] = NONE;
            next[i] = k;
            if (k as usize) < n {
                prev[k as usize] = i as u32;
            }
            parts -= 1;

            rank[i] = pair_rank(&next, i);
            if rank[i] != NONE {
                heap.push(Reverse((rank[i], i as u32)));
            }
            let p = prev[i];
            if p != NONE {
                let p = p as usize;
                rank[p] = pair_rank(&next, p);
                if rank[p] != NONE {
                    heap.push(Reverse((rank[p], p as u32)));
                }
            }
        }
        parts
    }
}

/// Keys of up to this many bytes are stored inline in their table entry.
const INLINE: usize = 4;

/// Where a byte string goes in the hash table, and what its entry looks like.
#[derive(Clone, Copy)]
struct Key {
    /// Home slot: the top [`TABLE_BITS`] bits of the hash.
    slot: usize,
    /// The entry without its rank: the length in bits 24..32 and, above
    /// that, the bytes themselves if there are at most [`INLINE`] of them,
    /// else 32 other bits of the hash (a filter before comparing bytes).
    entry: u64,
}

impl Key {
    /// Hash `bytes` FxHash-style (multiply-rotate over 8-byte words, plus a
    /// final mix so the top bits depend on every input bit).
    fn new(bytes: &[u8]) -> Key {
        const K: u64 = 0xf135_7aea_2e62_a9c5;
        let mut h = bytes.len() as u64;
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            let w = u64::from_le_bytes(word.try_into().expect("8-byte chunk"));
            h = (h.rotate_left(26) ^ w).wrapping_mul(K);
        }
        let rest = words.remainder();
        let mut buf = [0u8; 8];
        buf[..rest.len()].copy_from_slice(rest);
        let last = u64::from_le_bytes(buf);
        h = (h.rotate_left(26) ^ last).wrapping_mul(K);
        h = (h ^ (h >> 29)).wrapping_mul(K);
        let tag = if bytes.len() <= INLINE {
            last
        } else {
            h & 0xffff_ffff
        };
        Key {
            slot: (h >> (64 - TABLE_BITS)) as usize,
            // Lengths are at most 128 (`max_len`), so they fit in 8 bits.
            entry: tag << 32 | (bytes.len() as u64 & 0xff) << RANK_BITS,
        }
    }
}

/// Decode the vocabulary line starting at `data[pos]`, `<base64> <rank>\n`,
/// whose rank must be `rank`: append the token's bytes to `out` and return
/// where the next line starts. Written for speed: it runs 200k times a load.
fn decode_line(data: &[u8], mut pos: usize, rank: usize, out: &mut Vec<u8>) -> usize {
    /// Sextet value of each byte, [`PAD`] for `=`, [`BAD`] for the rest.
    const PAD: u8 = 0x40;
    const BAD: u8 = 0x80;
    const SEXTET: [u8; 256] = {
        let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut values = [BAD; 256];
        let mut i = 0;
        while i < alphabet.len() {
            values[alphabet[i] as usize] = i as u8;
            i += 1;
        }
        values[b'=' as usize] = PAD;
        values
    };
    // Padded base64: groups of four characters, each three bytes except a
    // final `xx==` (one byte) or `xxx=` (two).
    loop {
        let Some(&[a, b, c, d]) = data.get(pos..pos + 4) else {
            panic!("truncated base64 in the vocabulary");
        };
        let [a, b, c, d] = [a, b, c, d].map(|x| u32::from(SEXTET[usize::from(x)]));
        pos += 4;
        if (a | b | c | d) < 64 {
            let [_, x, y, z] = (a << 18 | b << 12 | c << 6 | d).to_be_bytes();
            out.extend_from_slice(&[x, y, z]);
            if data.get(pos) == Some(&b' ') {
                break;
            }
        } else {
            assert!(
                (a | b) < 64 && d == u32::from(PAD),
                "invalid base64 in the vocabulary"
            );
            let [_, x, y, _] = (a << 18 | b << 12 | (c & 63) << 6).to_be_bytes();
            if c == u32::from(PAD) {
                out.push(x);
            } else {
                assert!(c < 64, "invalid base64 in the vocabulary");
                out.extend_from_slice(&[x, y]);
            }
            break;
        }
    }
    assert_eq!(data.get(pos), Some(&b' '), "`<base64> <rank>` line");
    pos += 1;
    let mut listed = 0usize;
    while let Some(&digit) = data.get(pos) {
        pos += 1;
        match digit {
            b'\n' => break,
            // Tolerate a checkout that turned the line ends into \r\n.
            b'\r' => continue,
            _ => {}
        }
        assert!(digit.is_ascii_digit(), "numeric rank in the vocabulary");
        listed = listed * 10 + usize::from(digit - b'0');
    }
    assert_eq!(listed, rank, "ranks are listed in order");
    pos
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn reference(text: &str) -> usize {
        bpe_openai::o200k_base().count(text)
    }

    #[track_caller]
    fn assert_parity(text: &str) {
        let n = count(text);
        assert_eq!(
            n,
            reference(text),
            "count differs from bpe-openai on {text:?}"
        );
        assert!(
            lower_bound(text) <= n,
            "lower bound above count on {text:?}"
        );
        assert!(
            n <= upper_bound(text),
            "upper bound below count on {text:?}"
        );
    }

    #[test]
    fn counts_are_real_and_bounded() {
        let text = "Render the skills directory within a token budget.";
        let n = count(text);
        assert!(n >= lower_bound(text) && n <= upper_bound(text), "{n}");
        assert_eq!(count("hello world"), 2);
        assert_eq!(count(""), 0);
    }

    #[test]
    fn vocabulary_is_the_vendored_o200k_file() {
        let vocab = &tokenizer().vocab;
        assert_eq!(vocab.offsets.len(), VOCAB_SIZE + 1);
        assert_eq!(vocab.max_len, 128);
        // Every token maps back to its own rank (so all tokens are distinct
        // and the table is complete).
        for rank in 0..VOCAB_SIZE as u32 {
            assert_eq!(vocab.rank(vocab.token(rank)), rank);
        }
        // The direct pair table agrees with the hash table.
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                assert_eq!(vocab.pair_rank(a, b), vocab.lookup(&[a, b]));
            }
        }
        assert_eq!(vocab.token(0), b"!");
        assert_eq!(vocab.rank(b" the"), 290);
        assert_eq!(vocab.rank(b"no such token, surely"), NONE);
        // Spot-check the decoder against the file's own lines.
        assert_eq!(VOCAB_FILE.lines().count(), VOCAB_SIZE);
    }

    #[test]
    fn vocabulary_lines_decode() {
        let decode = |line: &str, rank: usize| {
            let mut out = Vec::new();
            let next = decode_line(line.as_bytes(), 0, rank, &mut out);
            assert_eq!(next, line.len());
            out
        };
        assert_eq!(decode("IQ== 0\n", 0), b"!");
        assert_eq!(decode("aGk= 7\n", 7), b"hi");
        assert_eq!(decode("aGV5 12", 12), b"hey");
        assert_eq!(
            decode("IGhlbGxvIHdvcmxk 199997\n", 199_997),
            b" hello world"
        );
        assert_eq!(decode("/+8= 3\n", 3), [0xff, 0xef]);
        assert_eq!(decode("IQ== 0\r\n", 0), b"!");
    }

    #[test]
    #[should_panic(expected = "ranks are listed in order")]
    fn vocabulary_lines_must_be_in_rank_order() {
        decode_line(b"IQ== 1\n", 0, 0, &mut Vec::new());
    }

    #[test]
    fn pieces_follow_the_o200k_pattern() {
        let re = &tokenizer().pieces;
        let split = |t: &'static str| Pieces::new(re, t).collect::<Vec<_>>();
        assert_eq!(split("a   b"), ["a", "  ", " b"]);
        assert_eq!(split("a \t1"), ["a", " ", "\t", "1"]);
        assert_eq!(split("x  "), ["x", "  "]);
        assert_eq!(split("x \n  y"), ["x", " \n", " ", " y"]);
        assert_eq!(split("I'M don't"), ["I'M", " don't"]);
        assert_eq!(split("1234567"), ["123", "456", "7"]);
        assert_eq!(split("a/b\r\n"), ["a", "/b", "\r\n"]);
        for text in ["", "a", "  ", "\u{3000}x\u{a0}\u{a0}y"] {
            assert_eq!(split(text).concat(), text);
        }
    }

    #[test]
    fn large_merge_matches_small_merge() {
        let vocab = &tokenizer().vocab;
        let samples: [&[u8]; 6] = [
            b"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            b"internationalizationalisticallyunbelievablesupercalifragilistic",
            b"====------____****////++++====------____****////++++",
            "\u{4f60}\u{597d}\u{4e16}\u{754c}\u{3053}\u{3093}\u{306b}\u{3061}\u{306f}".as_bytes(),
            b"\xff\xfe\x00\x01abc\x80\x81\x82  \t\t  ",
            b"                                                                ",
        ];
        for s in samples {
            assert_eq!(vocab.merge_large(s), vocab.merge_small(s), "{s:?}");
        }
        // A long run of spaces is one piece; it must stay fast and exact.
        let spaces = " ".repeat(100_000);
        assert_parity(&spaces);
        assert_parity(&format!("{spaces}x"));
        assert_parity(&"=".repeat(10_000));
    }

    #[test]
    fn parity_on_bundled_skills() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("skills");
        let mut stack = vec![root];
        let mut files = 0;
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).expect("read skills dir") {
                let path = entry.expect("dir entry").path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "md") {
                    let text = std::fs::read_to_string(&path).expect("read skill");
                    assert_parity(&text);
                    for line in text.lines() {
                        assert_parity(line);
                    }
                    files += 1;
                }
            }
        }
        assert!(files > 0, "no Markdown files under skills/");
    }

    #[test]
    fn parity_on_embedded_samples() {
        let samples = [
            "The quick brown fox jumps over the lazy dog. It wasn't the fox's fault.",
            "Skills are folders of instructions, scripts and resources that agents \
             discover and load dynamically to perform better at specific tasks.",
            "fn main() {\n    let v: Vec<u32> = (0..10).map(|x| x * 2).collect();\n    \
             println!(\"{v:?}\");\n}\n",
            "def f(x):\n\treturn {'a': [1, 2, 3], \"b\": x ** 2}  # comment\n",
            "SELECT id, name FROM users WHERE email LIKE '%@example.com' ORDER BY 2;",
            "<div class=\"x\"><a href=\"https://example.com/a/b?c=d&e=f\">link</a></div>",
            "我们的目标是为代理提供一个薄目录。技能按需加载，节省上下文。",
            "日本語のテキストも正しく数えます。カタカナとひらがな、漢字。",
            "한국어 문장도 정확하게 세어야 합니다. 안녕하세요!",
            "Emoji: 😀🎉👍🏽 👨‍👩‍👧‍👦 🇯🇵 ❤️ and ✅ done",
            "Numbers: 1234567 3.14159 1,000,000 -42 0x1F 1e-9 ٣٤٥ ²³ Ⅻ",
            "Contractions: don't, I'M, we've, they'll, she'd, it's, YOU'RE, We'Ve",
            "Apostrophes: ’s rock'n'roll ''quoted'' ' s 's",
            "tabs\tbetween\t\twords and  multiple   spaces    before words",
            "trailing spaces   \nnext line\t \r\nwindows\r\n\r\n\r\nblank lines\n\n\n",
            "   leading spaces and a lone trailing space ",
            "\n\n  \n \t\n",
            "Ünïcödé façade naïve coöperate Ελληνικά Русский текст العربية עברית हिन्दी",
            "MixedCASEWordsLikeHTTPServer and camelCaseIdentifiers and ALLCAPS",
            "path/to/file.rs:12:34 C:\\Users\\me\\file.txt ../../up\n//comment",
            "- [x] item\n- [ ] item\n  1. nested\n> quote\n```rust\ncode\n```\n| a | b |\n|---|---|",
            "\u{a0}non-breaking\u{a0}\u{a0}spaces\u{2003}em\u{3000}ideographic\u{200b}zw",
            "combining: e\u{301} a\u{300}\u{301} \u{301}alone",
            "<|endoftext|> special tokens are plain text here <|endofprompt|>",
        ];
        for text in samples {
            assert_parity(text);
        }
        let all = samples.concat();
        assert_parity(&all);
    }

    #[test]
    fn warm_up_is_idempotent() {
        for _ in 0..100 {
            warm_up();
        }
        assert_eq!(count("hello world"), 2);
    }

    /// Characters that exercise the pattern's edge cases, mixed with
    /// arbitrary ones.
    fn tricky_char() -> impl Strategy<Value = char> {
        prop_oneof![
            3 => prop::sample::select(vec![
                ' ', ' ', '\t', '\n', '\r', '\u{a0}', '\u{3000}', '\u{2028}', '\u{b}',
                '\'', '’', 's', 'S', 't', 'r', 'e', 'v', 'm', 'l', 'L', 'd', 'D',
                'a', 'Z', 'é', 'ǅ', 'ʰ', '中', 'の', '한', '\u{301}', '\u{94d}',
                '0', '7', '٣', '²', 'Ⅻ', '!', '.', '/', '-', '_', '#', '`', '{',
                '😀', '\u{200d}', '\u{fe0f}', 'ſ', 'K',
            ]),
            2 => proptest::char::range('\u{20}', '\u{7e}'),
            1 => any::<char>(),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn parity_on_arbitrary_strings(text in any::<String>()) {
            let n = count(&text);
            prop_assert_eq!(n, reference(&text));
            prop_assert!(lower_bound(&text) <= n && n <= upper_bound(&text));
        }

        #[test]
        fn parity_on_tricky_strings(chars in prop::collection::vec(tricky_char(), 0..200)) {
            let text: String = chars.into_iter().collect();
            let n = count(&text);
            prop_assert_eq!(n, reference(&text));
            prop_assert!(lower_bound(&text) <= n && n <= upper_bound(&text));
        }

        #[test]
        fn large_merge_agrees_with_small(bytes in prop::collection::vec(any::<u8>(), 2..=SMALL_PIECE)) {
            let vocab = &tokenizer().vocab;
            prop_assert_eq!(vocab.merge_large(&bytes), vocab.merge_small(&bytes));
        }
    }
}
