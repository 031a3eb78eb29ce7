//! Planning a query: which terms of the index each query word stands for
//! (the word, its stem, a name it begins, a sure typo fix, a synonym, a
//! guess), what each word weighs, and scoring the plan over an index.

use super::index::{FastMap, Inverted};
use super::text::{self, Kind};
use super::LIGHT_MASS;

/// A query word of this many characters or more one edit away from a
/// catalog word is taken for a typo of it, and counts as that word; from
/// [`MIN_SURE_SLIP`] characters when the edit is a letter left out or two
/// letters swapped.
pub(super) const MIN_SURE_TYPO: usize = 6;
pub(super) const MIN_SURE_SLIP: usize = 5;
/// The weight of a number word ("two") found in a skill: it says little
/// about which skill is meant ("between two versions" is not about merging
/// two PDFs).
pub(super) const NUMBER_WEIGHT: f32 = 0.25;
/// A term whose weighted frequency in a document is under 0.2 (a mention
/// only in a field weighed 0.15, a body's lead or its sections' first
/// sentences, or in a field three times its average length) is found
/// there only in passing; as saturated in the postings (`tf / (K1 + tf)`).
const FAINT_SAT: f32 = 0.2 / (1.2 + 0.2);
/// How a query term was matched, which sets its weight and how much of its
/// query word it covers.
#[derive(Debug, Clone, Copy)]
pub(super) struct Expansion {
    pub(super) term: u32,
    pub(super) weight: f32,
    /// Query units (words, CJK characters) this term stands for.
    pub(super) units: u64,
    /// Full (1.0) or partial (0.5) credit for those units.
    pub(super) full: bool,
}

impl Expansion {
    pub(super) fn new(term: u32, weight: f32, units: u64, full: bool) -> Self {
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
pub(super) struct Unit {
    pub(super) label: String,
    pub(super) cjk: bool,
    pub(super) mass: f32,
    /// A light word ("fix", "file"): it weighs [`LIGHT_MASS`] of its mass
    /// in the share of the query an answer must cover.
    pub(super) light: bool,
    /// Something in the catalog answers to it, if only a guess.
    pub(super) matched: bool,
    /// Something answers to it for sure: the word, its stem, a sure typo
    /// fix, a name it begins; not only a synonym or a guess.
    pub(super) sure: bool,
    /// Only guesses answer to it (a near spelling of a short word, the
    /// start of some word): no evidence that a skill is meant.
    pub(super) guessed: bool,
}

pub(super) struct Plan {
    pub(super) expansions: Vec<Expansion>,
    pub(super) units: Vec<Unit>,
    /// Per unit (the first 64): what it weighs as evidence that a skill
    /// fits, in words: 1 for a word found in one skill, less for a common
    /// one (a word most skills have, "data" or "help", says little), and 1
    /// for a word the catalog does not have at all or only guessed (it may
    /// be what the query is about); light words half.
    pub(super) evidence_weights: Vec<f32>,
    /// Per unit (the first 64): its mass, and their sum; the units a
    /// match must cover to be about the query's subject, as bits (see
    /// [`Plan::has_subject`]). Kept so a document costs a few bit steps.
    masses: Vec<f32>,
    mass_total: f32,
    subject: u64,
}

/// What the skills' names offer a query word the index does not know: the
/// name typed without its separators (`gitbisect` for `git-bisect`), or the
/// start of one of its words (`kube` for `kubernetes`, `docker` for
/// `dockerfile`). Both are what a person types when they half remember a
/// name, so both count as real matches.
#[derive(Debug, Clone, Default)]
pub(super) struct NameWords {
    /// Names with separators, joined, each with the terms of its words.
    pub(super) joined: FastMap<String, Vec<u32>>,
    /// The words of the names as written (lower-cased, not stemmed),
    /// sorted, each with its term.
    pub(super) words: Vec<(Box<str>, u32)>,
}

/// A query word this long (in characters) that begins a word of a skill's
/// name stands for that word. Shorter ones begin too many.
pub(super) const MIN_NAME_PREFIX: usize = 4;

impl NameWords {
    /// Terms of the name words that begin with `prefix` and are longer,
    /// the most common first, at most `limit`.
    pub(super) fn completions(&self, index: &Inverted, prefix: &str, limit: usize) -> Vec<u32> {
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

pub(super) fn plan(index: &Inverted, query: &str, names: Option<&NameWords>) -> Plan {
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
    let masses: Vec<f32> = units.iter().take(64).map(|u| u.mass).collect();
    let subject = units
        .iter()
        .take(64)
        .enumerate()
        .filter(|(_, u)| u.mass > 0.0 && !u.light && !u.guessed)
        .fold(0u64, |m, (u, _)| m | 1u64 << u);
    let mut plan = Plan {
        expansions,
        units,
        evidence_weights: Vec::new(),
        mass_total: masses.iter().sum(),
        masses,
        subject,
    };
    plan.weigh(index);
    plan
}

/// What one document got from a plan: its score and the units it matched
/// in full and in part. Kept together, so a posting touches one place.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct DocScore {
    pub(super) score: f32,
    /// Already in `touched` (a term past the 64th query word has no unit
    /// bits, so the masks cannot tell).
    seen: bool,
    pub(super) full: u64,
    pub(super) partial: u64,
}

/// Scores of one plan over one index: relevance and coverage per document.
pub(super) struct Scored {
    pub(super) docs: Vec<DocScore>,
    /// The documents something matched, in the order first matched.
    pub(super) touched: Vec<u32>,
}

impl Scored {
    /// Documents `range` join the candidates and carry a group's matched
    /// words (a namespace's for its skills, a server's for its tools).
    pub(super) fn spread(&mut self, range: std::ops::Range<u32>, full: u64, partial: u64) {
        for d in range.start as usize..range.end as usize {
            let doc = &mut self.docs[d];
            if !doc.seen {
                doc.seen = true;
                self.touched.push(d as u32);
            }
            doc.full |= full;
            doc.partial |= partial;
        }
    }
}

pub(super) fn score(index: &Inverted, plan: &Plan) -> Scored {
    let mut scored = Scored {
        docs: vec![DocScore::default(); index.docs()],
        touched: Vec::new(),
    };
    for e in &plan.expansions {
        let factor = e.weight * index.idf(e.term);
        for &(d, sat) in index.postings(e.term) {
            let doc = &mut scored.docs[d as usize];
            if !doc.seen {
                doc.seen = true;
                scored.touched.push(d);
            }
            doc.score += factor * sat;
            // A word found only in passing (in a long body's sections, not
            // in the name or description) covers its query word in part.
            if e.full && sat >= FAINT_SAT {
                doc.full |= e.units;
            } else {
                doc.partial |= e.units;
            }
        }
    }
    scored
}

impl Plan {
    /// Share of the query a document's matches cover: the mass of the
    /// units matched, half for those matched only in part.
    pub(super) fn coverage(&self, full: u64, partial: u64) -> f32 {
        if self.mass_total == 0.0 {
            return 0.0;
        }
        // Units in order, as a sum over all of them would add them.
        let mut got = 0.0;
        let mut bits = full | partial;
        while bits != 0 {
            let u = bits.trailing_zeros() as usize;
            let mass = self.masses.get(u).copied().unwrap_or(0.0);
            got += if full & (1u64 << u) != 0 {
                mass
            } else {
                mass * 0.5
            };
            bits &= bits - 1;
        }
        got / self.mass_total
    }

    /// Weigh the units as evidence by what the catalog says about them
    /// (see [`Plan::evidence_weights`]).
    pub(super) fn weigh(&mut self, index: &Inverted) {
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
    /// A unit only guessed at (see [`Unit::guessed`]) is no evidence that
    /// the document is meant, wherever the guess was found.
    pub(super) fn evidence(&self, full: u64, partial: u64) -> (f32, f32) {
        let guessed = self
            .units
            .iter()
            .take(64)
            .enumerate()
            .filter(|(_, u)| u.guessed)
            .fold(0u64, |m, (i, _)| m | (1u64 << i));
        let (got, total) =
            Self::weighted(&self.evidence_weights, full & !guessed, partial & !guessed);
        (got, if total > 0.0 { got / total } else { 0.0 })
    }

    pub(super) fn weighted(weights: &[f32], full: u64, partial: u64) -> (f32, f32) {
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
    pub(super) fn has_subject(&self, matched: u64) -> bool {
        matched & self.subject != 0
    }

    /// How many query words (CJK characters count half) `full` matches
    /// exactly.
    pub(super) fn full_mass(&self, full: u64) -> f32 {
        self.units
            .iter()
            .enumerate()
            .take(64)
            .filter(|(u, _)| full & (1u64 << u) != 0)
            .map(|(_, unit)| unit.mass)
            .sum()
    }

    /// The best score a document could reach: every unit matched exactly.
    pub(super) fn ideal(&self, index: &Inverted) -> f32 {
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
    pub(super) fn weak(&self) -> Vec<String> {
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
    pub(super) fn unmatched(&self) -> Vec<String> {
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
