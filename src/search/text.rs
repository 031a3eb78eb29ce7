//! Turning text into search terms: words split at case changes, `_`, `-`
//! and punctuation, lower-cased and stemmed; runs of Chinese, Japanese and
//! Korean characters cut into overlapping pairs (and single characters),
//! since those scripts do not separate words with spaces.

use rust_stemmers::{Algorithm, Stemmer};
use std::sync::OnceLock;

/// What a term is made of, which decides how much it weighs in a query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A word of a space-separated language, stemmed.
    Word,
    /// A run of joined word parts (`pg_dump` → `pgdump`, `useEffect` → `useeffect`).
    Compound,
    /// Two adjacent CJK characters.
    Pair,
    /// One CJK character.
    Single,
}

/// One term found in a text. `unit` numbers the query word (or CJK
/// character) the term stands for, so a match can be credited to it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Term {
    pub text: String,
    pub kind: Kind,
    /// The surface form (lower-cased, not stemmed) for words.
    pub surface: String,
    /// First and last unit covered (a pair covers two characters).
    pub units: (usize, usize),
    /// Byte offset of the term's first character in the text.
    pub offset: usize,
}

fn stemmer() -> &'static Stemmer {
    static STEMMER: OnceLock<Stemmer> = OnceLock::new();
    STEMMER.get_or_init(|| Stemmer::create(Algorithm::English))
}

/// Stem a lower-case word. Only ASCII letters go through the English
/// stemmer; other words are kept as they are.
pub(crate) fn stem(word: &str) -> String {
    if word.len() > 3 && word.bytes().all(|b| b.is_ascii_lowercase()) {
        stemmer().stem(word).into_owned()
    } else {
        word.to_string()
    }
}

/// The lines of a word list in `words/`: blank lines and `#` comments
/// left out, surrounding spaces trimmed.
fn word_lines(text: &'static str) -> impl Iterator<Item = &'static str> {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
}

/// Common English words that say nothing about which skill is meant.
static STOP_WORDS: OnceLock<Vec<&'static str>> = OnceLock::new();

fn stop_words() -> &'static [&'static str] {
    STOP_WORDS.get_or_init(|| word_lines(include_str!("words/stop_words.txt")).collect())
}

/// Number words ("merge two pdfs", "three python versions") are searched
/// but say little about which skill is meant: they weigh nothing in how
/// much of a query a skill covers. ("one" is a stop word.)
pub(crate) fn is_number_word(word: &str) -> bool {
    matches!(
        word,
        "two" | "three" | "four" | "five" | "six" | "seven" | "eight" | "nine" | "ten"
    )
}

/// Words of a request that name an action or a thing in general, not a
/// subject: "fix my car", "file my taxes", "tax return". They are searched,
/// but a skill that matches only them has not matched what the query is
/// about, so they weigh half in how much of a query a skill covers.
fn light_words() -> impl Iterator<Item = &'static str> {
    word_lines(include_str!("words/light_words.txt"))
}

/// Whether `stem` (a query word as [`stem`] gives it) is one of the
/// light words (`words/light_words.txt`), in any of its forms (`fixing`,
/// `files`).
pub(crate) fn is_light_word(stem: &str) -> bool {
    static STEMS: OnceLock<Vec<String>> = OnceLock::new();
    STEMS
        .get_or_init(|| light_words().map(self::stem).collect())
        .iter()
        .any(|s| s == stem)
}

pub(crate) fn is_stop_word(word: &str) -> bool {
    // Words of up to eight bytes packed into integers and kept in a small
    // open-addressing table: one multiply and a probe or two (this runs for
    // every word of every skill).
    const SLOTS: usize = 256;
    static TABLE: OnceLock<[u64; SLOTS]> = OnceLock::new();
    let slot = |key: u64| (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as usize;
    let table = TABLE.get_or_init(|| {
        let mut table = [0u64; SLOTS];
        for w in stop_words().iter().filter(|w| w.len() <= 8) {
            let key = pack(w);
            let mut i = slot(key);
            while table[i] != 0 {
                i = (i + 1) % SLOTS;
            }
            table[i] = key;
        }
        table
    });
    match word.len() {
        0 => false,
        1..=8 => {
            let key = pack(word);
            let mut i = slot(key);
            loop {
                match table[i] {
                    0 => return false,
                    k if k == key => return true,
                    _ => i = (i + 1) % SLOTS,
                }
            }
        }
        // The only longer stop word: compared without a call.
        9 => word.as_bytes() == b"something",
        _ => false,
    }
}

fn pack(word: &str) -> u64 {
    // Big-endian, zero-padded: the same integer `u64::from_be_bytes` of
    // the word padded to eight bytes gives, without a copy call.
    let bytes = word.as_bytes();
    let mut value = 0u64;
    for &b in bytes {
        value = value << 8 | u64::from(b);
    }
    value << (8 * (8 - bytes.len()))
}

/// CJK characters that carry grammar rather than meaning (particles,
/// pronouns, question words): not searched on their own.
const STOP_CHARS: &str = "的了吗呢吧啊我你他她它们是在有和与或把被给用要想请帮个一这那些么怎如何什哪里能会可以就都也还之其将让从对于为及并等着过所且而已很再";
const STOP_KANA_HANGUL: &str =
    "のはをにがでともへやかなねよだですますしたいるこれそれあの이가은는을를에의도로와과한하고있다";

pub(crate) fn is_stop_char(c: char) -> bool {
    STOP_CHARS.contains(c) || STOP_KANA_HANGUL.contains(c)
}

/// Chinese, Japanese and Korean characters (ideographs, kana, hangul).
pub(crate) fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF     // hiragana, katakana
        | 0x3400..=0x4DBF   // CJK extension A
        | 0x4E00..=0x9FFF   // CJK unified ideographs
        | 0xF900..=0xFAFF   // compatibility ideographs
        | 0xAC00..=0xD7AF   // hangul syllables
        | 0x1100..=0x11FF   // hangul jamo
        | 0x3130..=0x318F   // hangul compatibility jamo
        | 0x20000..=0x2FFFF // extensions B and later
    )
}

/// A term as the scanner finds it, borrowed: the index interns it without
/// allocating when it has seen the word before.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Piece<'a> {
    /// Lower-cased text (not stemmed).
    pub text: &'a str,
    pub kind: Kind,
    pub units: (usize, usize),
    pub offset: usize,
}

/// Split `text` into terms (stop words dropped), stemmed: the query side.
pub(crate) fn terms(text: &str) -> Vec<Term> {
    let mut out = Vec::new();
    scan(text, &mut |piece| {
        out.push(Term {
            text: if piece.kind == Kind::Word {
                stem(piece.text)
            } else {
                piece.text.to_string()
            },
            kind: piece.kind,
            surface: piece.text.to_string(),
            units: piece.units,
            offset: piece.offset,
        })
    });
    out
}

/// Byte classes of the scanner: 1 lower-case letter or digit, 2 upper-case
/// letter or joiner (`_`, `-`, `.`, `'`), 0 anything else (ASCII only).
const CLASS: [u8; 128] = {
    let mut table = [0u8; 128];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        table[b] = if c.is_ascii_lowercase() || c.is_ascii_digit() {
            1
        } else if c.is_ascii_uppercase() || c == b'_' || c == b'-' || c == b'.' || c == b'\'' {
            2
        } else {
            0
        };
        b += 1;
    }
    table
};

/// Walk the terms of `text` in order, handing each to `emit`.
pub(crate) fn scan(text: &str, emit: &mut dyn FnMut(Piece<'_>)) {
    scan_with(text, &mut Buffers::default(), emit);
}

/// [`scan`] with scratch space kept between calls.
pub(crate) fn scan_with<F: FnMut(Piece<'_>) + ?Sized>(
    text: &str,
    buffers: &mut Buffers,
    emit: &mut F,
) {
    let mut unit = 0usize;
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 {
            if !b.is_ascii_alphanumeric() {
                i += 1;
                continue;
            }
        } else {
            let c = text[i..].chars().next().unwrap_or(' ');
            if is_cjk(c) {
                buffers.run.clear();
                for (offset, c) in text[i..].char_indices() {
                    if !is_cjk(c) {
                        break;
                    }
                    buffers.run.push((i + offset, c));
                }
                let last = buffers.run.last().map_or(i + 1, |&(o, c)| o + c.len_utf8());
                cjk_pieces(&buffers.run, &mut unit, emit);
                i = last;
                continue;
            }
            if !c.is_alphanumeric() {
                i += c.len_utf8();
                continue;
            }
        }
        // A token: word characters joined by `_`, `-`, `.`, `'` (no spaces).
        let start = i;
        // Plain lower-case ASCII words (most of them) skip the splitting.
        let mut plain = true;
        while i < bytes.len() {
            let b = bytes[i];
            if b < 0x80 {
                match CLASS[b as usize] {
                    1 => {}
                    2 => plain = false,
                    _ => break,
                }
                i += 1;
                continue;
            }
            let c = text[i..].chars().next().unwrap_or(' ');
            if !c.is_alphanumeric() || is_cjk(c) {
                break;
            }
            plain = false;
            i += c.len_utf8();
        }
        let token = &text[start..i];
        if plain {
            if !is_stop_word(token) {
                emit(Piece {
                    text: token,
                    kind: Kind::Word,
                    units: (unit, unit),
                    offset: start,
                });
                unit += 1;
            }
        } else {
            token_pieces(token, start, &mut unit, buffers, emit);
        }
    }
}

/// Scratch space of the scanner.
#[derive(Default)]
pub(crate) struct Buffers {
    run: Vec<(usize, char)>,
    parts: Vec<(usize, usize)>,
    lower: String,
    joined: String,
}

/// The parts of one space-free token: `pg_dump` → `pg`, `dump` (+ `pgdump`);
/// `useEffect` → `use`, `effect` (+ `useeffect`); `s3-presigned-urls` →
/// `s3`, `presigned`, `urls`.
fn token_pieces<F: FnMut(Piece<'_>) + ?Sized>(
    token: &str,
    offset: usize,
    unit: &mut usize,
    buffers: &mut Buffers,
    emit: &mut F,
) {
    let token = token.trim_end_matches(['.', '-', '_', '\'']);
    // Lower-case once; parts are byte ranges of the lower-cased token
    // (cut at the original's case changes, which keep their positions for
    // ASCII; other scripts are not split by case).
    buffers.lower.clear();
    let ascii = token.is_ascii();
    if ascii {
        buffers.lower.push_str(token);
        buffers.lower.make_ascii_lowercase();
    } else {
        for c in token.chars() {
            fold(c, &mut buffers.lower);
        }
    }
    buffers.parts.clear();
    let mut compound_worthy = token.contains('_');
    if ascii {
        let bytes = token.as_bytes();
        // Most tokens (`plan-profile`, `pg_dump`) have no case changes.
        let cased = bytes.iter().any(u8::is_ascii_uppercase);
        let mut piece_start = 0;
        for i in 0..=bytes.len() {
            let at_joiner = i == bytes.len() || matches!(bytes[i], b'_' | b'-' | b'.' | b'\'');
            if at_joiner {
                if i > piece_start {
                    let before = buffers.parts.len();
                    if cased {
                        split_case(bytes, piece_start, i, &mut buffers.parts);
                    } else {
                        buffers.parts.push((piece_start, i));
                    }
                    if buffers.parts.len() - before > 1 {
                        compound_worthy = true;
                    }
                }
                piece_start = i + 1;
            }
        }
    } else {
        let lower = buffers.lower.as_str();
        let mut piece_start = 0;
        for (i, c) in lower
            .char_indices()
            .chain(std::iter::once((lower.len(), ' ')))
        {
            if i == lower.len() || matches!(c, '_' | '-' | '.' | '\'') {
                if i > piece_start {
                    buffers.parts.push((piece_start, i));
                }
                piece_start = i + c.len_utf8();
            }
        }
    }
    // Possessives and contractions: "skill's" → "skill".
    if token.contains('\'') {
        compound_worthy = false;
        if let Some(&(a, b)) = buffers.parts.last() {
            if matches!(&buffers.lower[a..b], "s" | "t" | "re" | "ve" | "ll" | "d") {
                buffers.parts.pop();
            }
        }
    }
    let first_unit = *unit;
    let mut kept = 0;
    for &(a, b) in &buffers.parts {
        let part = &buffers.lower[a..b];
        if is_stop_word(part) {
            continue;
        }
        emit(Piece {
            text: part,
            kind: Kind::Word,
            units: (*unit, *unit),
            offset,
        });
        *unit += 1;
        kept += 1;
    }
    if compound_worthy && buffers.parts.len() > 1 && kept > 0 {
        buffers.joined.clear();
        for &(a, b) in &buffers.parts {
            buffers.joined.push_str(&buffers.lower[a..b]);
        }
        if buffers.joined.len() <= 32 {
            emit(Piece {
                text: &buffers.joined,
                kind: Kind::Compound,
                units: (first_unit, *unit - 1),
                offset,
            });
        }
    }
}

/// Lower-case `c` into `out`, Latin letters without their accents and
/// compatibility forms as their plain letters (`é` → `e`, fullwidth `ｇ`
/// → `g`, `ﬁ` → `fi`), so that `cafe` finds `café` and the other way round.
/// Letters of other scripts stay as they are (`й` is not `и`).
fn fold(c: char, out: &mut String) {
    use unicode_normalization::char::{decompose_compatible, is_combining_mark};
    let mut plain = [0u8; 4];
    let mut len = 0;
    let mut ascii = true;
    decompose_compatible(c, |d| {
        if d.is_ascii_alphanumeric() && len < plain.len() {
            plain[len] = d.to_ascii_lowercase() as u8;
            len += 1;
        } else if !is_combining_mark(d) {
            ascii = false;
        }
    });
    if ascii && len > 0 {
        for &b in &plain[..len] {
            out.push(char::from(b));
        }
    } else {
        out.extend(c.to_lowercase());
    }
}

/// Byte ranges of `bytes[start..end]` cut at case changes: `useEffect` →
/// `use`, `Effect`; `HTTPServer` → `HTTP`, `Server`; `k8s`, `ec2` stay whole.
fn split_case(bytes: &[u8], start: usize, end: usize, out: &mut Vec<(usize, usize)>) {
    let mut cut = start;
    for i in start + 1..end {
        let (prev, c) = (bytes[i - 1], bytes[i]);
        let next = bytes.get(i + 1).copied().filter(|_| i + 1 < end);
        let lower_to_upper = prev.is_ascii_lowercase() && c.is_ascii_uppercase();
        let acronym_end = prev.is_ascii_uppercase()
            && c.is_ascii_uppercase()
            && next.is_some_and(|n| n.is_ascii_lowercase());
        if lower_to_upper || acronym_end {
            out.push((cut, i));
            cut = i;
        }
    }
    out.push((cut, end));
}

fn cjk_pieces<F: FnMut(Piece<'_>) + ?Sized>(run: &[(usize, char)], unit: &mut usize, emit: &mut F) {
    let base = *unit;
    let mut buf = [0u8; 8];
    for (i, &(offset, c)) in run.iter().enumerate() {
        if !is_stop_char(c) {
            emit(Piece {
                text: c.encode_utf8(&mut buf),
                kind: Kind::Single,
                units: (base + i, base + i),
                offset,
            });
        }
        if let Some(&(_, next)) = run.get(i + 1) {
            if !(is_stop_char(c) && is_stop_char(next)) {
                let n = c.len_utf8();
                c.encode_utf8(&mut buf);
                next.encode_utf8(&mut buf[n..]);
                let pair = std::str::from_utf8(&buf[..n + next.len_utf8()]).unwrap_or("");
                emit(Piece {
                    text: pair,
                    kind: Kind::Pair,
                    units: (base + i, base + i + 1),
                    offset,
                });
            }
        }
    }
    *unit += run.len();
}

/// Words that mean the same thing in a task description ("shrink" an image
/// is "resize" or "compress" it). Written as plain words; stemmed on load.
/// Each group is symmetric. General vocabulary of tools and tasks only.
fn synonym_groups() -> impl Iterator<Item = &'static str> {
    word_lines(include_str!("words/synonyms.txt"))
}

/// Synonym lookup by stemmed term.
pub(crate) fn synonyms(term: &str) -> &'static [String] {
    static MAP: OnceLock<std::collections::HashMap<String, Vec<String>>> = OnceLock::new();
    let map = MAP.get_or_init(|| {
        let mut map: std::collections::HashMap<String, Vec<String>> = Default::default();
        for group in synonym_groups() {
            let stems: Vec<String> = group.split_whitespace().map(stem).collect();
            for s in &stems {
                let entry = map.entry(s.clone()).or_default();
                for other in &stems {
                    if other != s && !entry.contains(other) {
                        entry.push(other.clone());
                    }
                }
            }
        }
        map
    });
    map.get(term).map(Vec::as_slice).unwrap_or(&[])
}

/// Edit distance with adjacent transpositions (optimal string alignment),
/// giving up once it exceeds `max`.
pub(crate) fn bounded_distance(a: &[u8], b: &[u8], max: usize) -> Option<usize> {
    const MAX_LEN: usize = 48;
    if a.len().abs_diff(b.len()) > max || a.len() >= MAX_LEN || b.len() >= MAX_LEN {
        return None;
    }
    let n = b.len();
    let mut prev2 = [0usize; MAX_LEN];
    let mut prev = [0usize; MAX_LEN];
    let mut cur = [0usize; MAX_LEN];
    for (j, p) in prev.iter_mut().enumerate().take(n + 1) {
        *p = j;
    }
    for i in 1..=a.len() {
        cur[0] = i;
        let mut row_min = cur[0];
        for j in 1..=n {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(prev2[j - 2] + 1);
            }
            cur[j] = v;
            row_min = row_min.min(v);
        }
        if row_min > max {
            return None;
        }
        prev2 = prev;
        prev = cur;
    }
    (prev[n] <= max).then_some(prev[n])
}

/// Common task words of Chinese, Japanese and Korean with their English
/// equivalents, so a question in one language finds a skill described in
/// another. General vocabulary of software and office work only.
fn glossary() -> impl Iterator<Item = (&'static str, &'static str)> {
    word_lines(include_str!("words/glossary.txt")).filter_map(|line| line.split_once(' '))
}

/// English stems for the glossary words found in `text`, with the byte
/// range each was found at. Longer words win over the words inside them.
pub(crate) fn glossary_matches(text: &str) -> Vec<(usize, usize, &'static [String])> {
    static ENTRIES: OnceLock<Vec<(&'static str, Vec<String>)>> = OnceLock::new();
    let entries = ENTRIES.get_or_init(|| {
        let mut entries: Vec<(&'static str, Vec<String>)> = glossary()
            .map(|(k, v)| (k, v.split_whitespace().map(stem).collect()))
            .collect();
        // Longest first, so 数据库 is taken before 数据.
        entries.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.0.cmp(b.0)));
        entries
    });
    if text.is_ascii() || !text.chars().any(is_cjk) {
        return Vec::new();
    }
    // Bytes already claimed by a longer word: one flag per byte.
    let mut taken = vec![false; text.len()];
    let mut out = Vec::new();
    for (key, english) in entries {
        for (start, _) in text.match_indices(key) {
            let end = start + key.len();
            if taken[start..end].iter().any(|&t| t) {
                continue;
            }
            taken[start..end].fill(true);
            out.push((start, end, english.as_slice()));
        }
    }
    out.sort_by_key(|m| m.0);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &str) -> Vec<String> {
        terms(s).into_iter().map(|t| t.text).collect()
    }

    #[test]
    fn stop_words_sorted() {
        let words = stop_words();
        assert!(words.len() > 50);
        assert!(words.windows(2).all(|w| w[0] < w[1]));
        assert!(words.iter().all(|w| w.len() <= 9 && is_stop_word(w)));
        for word in [
            "",
            "x",
            "resize",
            "somethings",
            "abouts",
            "tho",
            "kubernetes",
        ] {
            assert!(!is_stop_word(word), "{word}");
        }
    }

    #[test]
    fn splits_identifiers() {
        assert_eq!(texts("pg_dump"), ["pg", "dump", "pgdump"]);
        assert_eq!(
            texts("useEffect cleanup"),
            ["effect", "useeffect", "cleanup"]
        );
        assert_eq!(texts("HTTPServer"), ["http", "server", "httpserver"]);
        assert_eq!(texts("s3-presigned-urls"), ["s3", "presign", "url"]);
        assert_eq!(texts("Ünïcode-Wörds"), ["unicod", "word"]);
        assert_eq!(texts("k8s ec2"), ["k8s", "ec2"]);
    }

    #[test]
    fn folds_accents_and_compatibility_forms() {
        assert_eq!(
            texts("Crème brûlée, naïve façade"),
            texts("creme brulee, naive facade")
        );
        assert_eq!(texts("ｇｉｔ ｂｉｓｅｃｔ"), ["git", "bisect"]);
        assert_eq!(texts("ﬁle"), ["file"]);
        // Other scripts keep their letters.
        assert_eq!(texts("йога"), ["йога"]);
        assert_eq!(texts("Straße"), ["straße"]);
    }

    #[test]
    fn stems_and_drops_stop_words() {
        assert_eq!(texts("How do I resize the images?"), ["resiz", "imag"]);
        assert_eq!(texts("the skill's files"), ["skill", "file"]);
    }

    #[test]
    fn cjk_pairs_and_singles() {
        let t = texts("提取PDF文字");
        assert_eq!(t, ["提", "提取", "取", "pdf", "文", "文字", "字"]);
        // Stop characters alone are dropped; pairs of two stop characters too.
        assert_eq!(texts("怎么"), Vec::<String>::new());
    }

    #[test]
    fn units_number_query_words() {
        let t = terms("resize big pictures");
        let units: Vec<_> = t.iter().map(|t| t.units).collect();
        assert_eq!(units, [(0, 0), (1, 1), (2, 2)]);
    }

    #[test]
    fn distance() {
        assert_eq!(bounded_distance(b"kubernets", b"kubernetes", 2), Some(1));
        assert_eq!(bounded_distance(b"postgress", b"postgres", 1), Some(1));
        assert_eq!(bounded_distance(b"teh", b"the", 1), Some(1));
        assert_eq!(bounded_distance(b"abc", b"xyz", 2), None);
    }

    #[test]
    fn synonyms_are_symmetric() {
        assert!(synonyms(&stem("shrink")).contains(&stem("resize")));
        assert!(synonyms(&stem("resize")).contains(&stem("shrink")));
    }
}
