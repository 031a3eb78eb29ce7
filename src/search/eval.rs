//! Measuring search quality on a labelled query set: Recall@1, Recall@5,
//! MRR, and how honest the answers are: answerable queries should be
//! answered (not "no match") and mostly flagged `high`; queries no skill
//! answers should come back flagged `low` or "no match". Used by
//! `examples/search_eval.rs` and by tests that guard against regressions.

use super::{Confidence, SearchOptions};
use crate::catalog::Catalog;
use serde::Deserialize;
use std::collections::BTreeMap;

/// One labelled query: `relevant` lists skill names, best first; empty when
/// no skill of the catalog fits.
#[derive(Debug, Clone, Deserialize)]
pub struct LabelledQuery {
    pub query: String,
    #[serde(default)]
    pub kind: String,
    pub relevant: Vec<String>,
}

/// A line of a query file that is not a labelled query.
#[derive(Debug, thiserror::Error)]
#[error("line {line}: {error}")]
pub struct QueryFileError {
    /// 1-based.
    pub line: usize,
    /// Part of the message, not a `source` (printed once).
    pub error: serde_json::Error,
}

/// Parse a JSON-lines query file.
pub fn parse_queries(text: &str) -> Result<Vec<LabelledQuery>, QueryFileError> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|error| QueryFileError { line: i + 1, error })
        })
        .collect()
}

/// Sums for one group of queries.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Scores {
    /// Queries with at least one right answer.
    pub answerable: usize,
    pub recall_at_1: f64,
    pub recall_at_5: f64,
    pub mrr: f64,
    /// Answerable queries answered with a ranked list (not "no match").
    pub answered: usize,
    /// Answerable queries answered with confidence `high`.
    pub high: usize,
    /// Of those, the ones whose first hit is right.
    pub high_right: usize,
    /// Queries with no right answer.
    pub unanswerable: usize,
    /// Of those, answered "no match".
    pub correct_no_match: usize,
    /// Of those, answered "no match" or flagged `low`: the answer did not
    /// claim to fit.
    pub declined: usize,
    /// Answerable queries wrongly answered "no match".
    pub false_no_match: usize,
}

impl Scores {
    fn add(&mut self, other: &Scores) {
        self.answerable += other.answerable;
        self.recall_at_1 += other.recall_at_1;
        self.recall_at_5 += other.recall_at_5;
        self.mrr += other.mrr;
        self.answered += other.answered;
        self.high += other.high;
        self.high_right += other.high_right;
        self.declined += other.declined;
        self.unanswerable += other.unanswerable;
        self.correct_no_match += other.correct_no_match;
        self.false_no_match += other.false_no_match;
    }

    fn mean(sum: f64, n: usize) -> f64 {
        if n == 0 {
            0.0
        } else {
            sum / n as f64
        }
    }

    pub fn r1(&self) -> f64 {
        Self::mean(self.recall_at_1, self.answerable)
    }
    pub fn r5(&self) -> f64 {
        Self::mean(self.recall_at_5, self.answerable)
    }
    pub fn mrr(&self) -> f64 {
        Self::mean(self.mrr, self.answerable)
    }
    /// Of all "no match" answers, the share that were right.
    pub fn no_match_precision(&self) -> f64 {
        let said = self.correct_no_match + self.false_no_match;
        if said == 0 {
            1.0
        } else {
            self.correct_no_match as f64 / said as f64
        }
    }
    /// Of the queries with no answer, the share answered "no match".
    pub fn no_match_recall(&self) -> f64 {
        Self::share(self.correct_no_match, self.unanswerable)
    }
    /// Of the answerable queries, the share answered with a list.
    pub fn answered_share(&self) -> f64 {
        Self::share(self.answered, self.answerable)
    }
    /// Of the answerable queries, the share answered with confidence `high`.
    pub fn high_share(&self) -> f64 {
        Self::share(self.high, self.answerable)
    }
    /// Of the `high` answers to answerable queries, the share whose first
    /// hit is right.
    pub fn high_precision(&self) -> f64 {
        Self::share(self.high_right, self.high)
    }
    /// Of the queries with no answer, the share answered "no match" or
    /// flagged `low`.
    pub fn declined_share(&self) -> f64 {
        Self::share(self.declined, self.unanswerable)
    }

    fn share(part: usize, whole: usize) -> f64 {
        if whole == 0 {
            1.0
        } else {
            part as f64 / whole as f64
        }
    }
}

/// Results over a query set: overall and per kind, plus the misses.
#[derive(Debug, Clone, Default)]
pub struct Report {
    pub overall: Scores,
    pub by_kind: BTreeMap<String, Scores>,
    /// Queries whose best answer was not in the top five (or a wrong
    /// no-match, or a wrong answer to an unanswerable query).
    pub misses: Vec<String>,
}

/// What a ranking function answers to one query.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ranked {
    /// Skill names, best first.
    pub names: Vec<String>,
    /// It declared "no match".
    pub no_match: bool,
    /// It flagged the answer as weak (confidence `low`).
    pub low: bool,
}

/// A ranking function under evaluation.
pub type Ranker<'a> = dyn Fn(&str) -> Ranked + 'a;

/// Score `rank` on `queries`.
pub fn evaluate(queries: &[LabelledQuery], rank: &Ranker<'_>) -> Report {
    let mut report = Report::default();
    for q in queries {
        let answer = rank(&q.query);
        let (ranked, no_match) = (&answer.names, answer.no_match);
        let mut s = Scores::default();
        if q.relevant.is_empty() {
            s.unanswerable = 1;
            if no_match {
                s.correct_no_match = 1;
            }
            if no_match || answer.low {
                s.declined = 1;
            } else {
                report.misses.push(format!(
                    "[{}] {:?} → {:?} (expected low or no match)",
                    q.kind,
                    q.query,
                    ranked.first()
                ));
            }
        } else {
            s.answerable = 1;
            if no_match {
                s.false_no_match = 1;
            } else {
                s.answered = 1;
                if !answer.low {
                    s.high = 1;
                }
            }
            let top5: Vec<&String> = ranked.iter().take(5).collect();
            let found = q.relevant.iter().filter(|r| top5.contains(r)).count();
            s.recall_at_5 = found as f64 / q.relevant.len() as f64;
            s.recall_at_1 = f64::from(u8::from(
                ranked.first().is_some_and(|t| q.relevant.contains(t)),
            ));
            if let Some(rank) = ranked.iter().position(|t| q.relevant.contains(t)) {
                s.mrr = 1.0 / (rank + 1) as f64;
            }
            if s.high == 1 && s.recall_at_1 == 1.0 {
                s.high_right = 1;
            }
            if s.recall_at_5 < 1.0 {
                report.misses.push(format!(
                    "[{}] {:?} → {:?}{} (expected {:?})",
                    q.kind,
                    q.query,
                    ranked.iter().take(5).collect::<Vec<_>>(),
                    if answer.low { " low" } else { "" },
                    q.relevant
                ));
            }
        }
        report.overall.add(&s);
        report.by_kind.entry(q.kind.clone()).or_default().add(&s);
    }
    report
}

/// skilldex's own search as a ranker.
pub fn skilldex_ranker(catalog: &Catalog) -> impl Fn(&str) -> Ranked + '_ {
    let index = super::SearchIndex::build(catalog);
    move |query| {
        let results = index.search(catalog, query, &SearchOptions::skills(10));
        let names = results
            .hits
            .iter()
            .map(|h| catalog.skills()[h.index].name.clone())
            .collect();
        Ranked {
            names,
            no_match: results.no_match,
            low: results.confidence == Confidence::Low,
        }
    }
}

/// skilldex's tool search as a ranker (tools only, ids `server/tool`),
/// with tools scored as `scoring` says.
pub fn tool_ranker(catalog: &Catalog, scoring: super::ToolScoring) -> impl Fn(&str) -> Ranked + '_ {
    let index = super::SearchIndex::build_with(catalog, scoring);
    move |query| {
        let options = SearchOptions {
            limit: 10,
            kind: Some(super::EntryKind::Tool),
        };
        let results = index.search(catalog, query, &options);
        let names = results
            .hits
            .iter()
            .map(|h| h.id(catalog).to_string())
            .collect();
        Ranked {
            names,
            no_match: results.no_match,
            low: results.confidence == Confidence::Low,
        }
    }
}

/// The baseline: plain BM25 (k1 1.2, b 0.75) over name and description,
/// lower-cased words split at non-alphanumerics, no stemming, no field
/// weights, never "no match" and never flagged.
pub fn bm25_ranker(catalog: &Catalog) -> impl Fn(&str) -> Ranked + '_ {
    let words = |text: &str| -> Vec<String> {
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    };
    let docs: Vec<Vec<String>> = catalog
        .skills()
        .iter()
        .map(|s| words(&format!("{} {}", s.name, s.description)))
        .collect();
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
            .map(|&(_, i)| catalog.skills()[i].name.clone())
            .collect();
        Ranked {
            names,
            no_match: false,
            low: false,
        }
    }
}

/// A plain-text table of a report.
pub fn table(report: &Report) -> String {
    // Answerable queries: answered (not "no match"), flagged high, and
    // of the high ones, right at rank 1. Unanswerable ones: declined (low
    // or "no match").
    let mut out = String::from(
        "kind          queries  R@1    R@5    MRR    answered  high   high R@1  declined\n",
    );
    let mut line = |name: &str, s: &Scores| {
        let or_dash = |n: usize, v: f64| {
            if n == 0 {
                "    -".to_string()
            } else {
                format!("{v:.3}")
            }
        };
        out.push_str(&format!(
            "{:<13} {:>7}  {}  {}  {}  {}     {}  {}     {}\n",
            name,
            s.answerable + s.unanswerable,
            or_dash(s.answerable, s.r1()),
            or_dash(s.answerable, s.r5()),
            or_dash(s.answerable, s.mrr()),
            or_dash(s.answerable, s.answered_share()),
            or_dash(s.answerable, s.high_share()),
            or_dash(s.high, s.high_precision()),
            or_dash(s.unanswerable, s.declined_share()),
        ));
    };
    for (kind, s) in &report.by_kind {
        line(kind, s);
    }
    line("all", &report.overall);
    out
}
