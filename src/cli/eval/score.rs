//! Scoring a ranking on a labelled query set: Recall@1, Recall@5, MRR,
//! nDCG@10, and how honest the answers are: answerable queries should be
//! answered (not "no match") and mostly flagged `high`; queries no entry
//! answers should come back flagged `low` or "no match".

use serde::Deserialize;
use std::collections::BTreeMap;

/// One labelled query: `relevant` (or `expect`) lists entry ids (skill ids
/// or names, tool `server/tool` ids), best first; empty or absent when no
/// entry of the catalog fits.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct LabelledQuery {
    pub query: String,
    /// A group label; the report scores each group apart.
    #[serde(default)]
    pub kind: String,
    #[serde(default, alias = "expect")]
    pub relevant: Vec<String>,
    /// The line of the file it came from (1-based; 0 when built in code).
    #[serde(skip)]
    pub line: usize,
}

/// What a run must reach, from a query file's header line
/// `{"eval": {"min_r5": 0.8, ...}}`: minimums for the recall figures and
/// the share of unanswerable requests declined, maximums for the shares of
/// answerable requests answered "no match" or flagged `low`. Each in 0..=1.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Thresholds {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_r1: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_r5: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_mrr: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_ndcg10: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_no_match: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_low: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_declined: Option<f64>,
}

/// One threshold checked against a run.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub(super) struct Check {
    /// The header's key (`min_r5`).
    pub name: &'static str,
    pub threshold: f64,
    pub value: f64,
    pub passed: bool,
}

impl Thresholds {
    fn each(&self) -> [(&'static str, Option<f64>); 7] {
        [
            ("min_r1", self.min_r1),
            ("min_r5", self.min_r5),
            ("min_mrr", self.min_mrr),
            ("min_ndcg10", self.min_ndcg10),
            ("max_no_match", self.max_no_match),
            ("max_low", self.max_low),
            ("min_declined", self.min_declined),
        ]
    }

    /// Every threshold that is set, checked against `scores` (a `min_`
    /// passes at or above, a `max_` at or below).
    pub(super) fn check(&self, scores: &Scores) -> Vec<Check> {
        self.each()
            .into_iter()
            .filter_map(|(name, threshold)| {
                let threshold = threshold?;
                let value = match name {
                    "min_r1" => scores.r1(),
                    "min_r5" => scores.r5(),
                    "min_mrr" => scores.mrr(),
                    "min_ndcg10" => scores.ndcg10(),
                    "max_no_match" => scores.no_match_share(),
                    "max_low" => scores.low_share(),
                    _ => scores.declined_share(),
                };
                let passed = if name.starts_with("min_") {
                    value >= threshold
                } else {
                    value <= threshold
                };
                Some(Check {
                    name,
                    threshold,
                    value,
                    passed,
                })
            })
            .collect()
    }
}

/// A query file: its thresholds (from the header line, if any) and its
/// labelled queries.
#[derive(Debug, Clone, Default)]
pub(super) struct QueryFile {
    pub thresholds: Thresholds,
    pub queries: Vec<LabelledQuery>,
}

/// A line of a query file that is not a labelled query.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("line {line}, column {column}: {message}")]
pub(super) struct QueryFileError {
    /// 1-based.
    pub line: usize,
    /// 1-based, in characters.
    pub column: usize,
    pub message: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Header {
    eval: Thresholds,
}

/// Parse a JSON-lines query file: one `{"query": …, "expect": […]}`
/// object per line, blank lines skipped, and optionally, as its first
/// object, the header `{"eval": {…thresholds…}}`.
pub(super) fn parse_query_file(text: &str) -> Result<QueryFile, QueryFileError> {
    let mut file = QueryFile::default();
    let mut first = true;
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = |column: usize, message: String| QueryFileError {
            line: i + 1,
            column,
            message,
        };
        let value: serde_json::Value = serde_json::from_str(line).map_err(|e| {
            let what = match e.classify() {
                serde_json::error::Category::Eof => {
                    "the line ends inside its JSON value — each query is one JSON object on one line"
                }
                _ => "this is not valid JSON — each line is one object such as {\"query\": \"…\", \"expect\": [\"skill-name\"]}",
            };
            at(char_column(line, e.column()), what.to_string())
        })?;
        let indent = line.len() - line.trim_start().len() + 1;
        let is_header = value.get("eval").is_some() && value.get("query").is_none();
        if is_header {
            if !first {
                return Err(at(
                    indent,
                    "the {\"eval\": …} header must be the file's first line".into(),
                ));
            }
            let header: Header = serde_json::from_value(value)
                .map_err(|e| at(indent, format!("in the header: {e}")))?;
            for (name, threshold) in header.eval.each() {
                if threshold.is_some_and(|t| !(0.0..=1.0).contains(&t)) {
                    return Err(at(
                        indent,
                        format!("in the header: {name} is a share, from 0 to 1"),
                    ));
                }
            }
            file.thresholds = header.eval;
        } else {
            let mut query: LabelledQuery = serde_json::from_value(value).map_err(|e| {
                at(
                    indent,
                    format!("{e} — a line is {{\"query\": \"…\", \"expect\": [\"id\", …]}}"),
                )
            })?;
            if query.query.trim().is_empty() {
                return Err(at(indent, "the query is empty".into()));
            }
            query.line = i + 1;
            file.queries.push(query);
        }
        first = false;
    }
    Ok(file)
}

/// A byte column (1-based, as serde_json counts) as a character column.
fn char_column(line: &str, byte_column: usize) -> usize {
    let end = byte_column.saturating_sub(1).min(line.len());
    let end = (0..=end)
        .rev()
        .find(|&i| line.is_char_boundary(i))
        .unwrap_or(0);
    line[..end].chars().count() + 1
}

/// Sums for one group of queries.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Scores {
    /// Queries with at least one right answer.
    pub answerable: usize,
    pub recall_at_1: f64,
    pub recall_at_5: f64,
    pub mrr: f64,
    pub ndcg_at_10: f64,
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
        self.ndcg_at_10 += other.ndcg_at_10;
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

    pub(super) fn r1(&self) -> f64 {
        Self::mean(self.recall_at_1, self.answerable)
    }
    pub(super) fn r5(&self) -> f64 {
        Self::mean(self.recall_at_5, self.answerable)
    }
    pub(super) fn mrr(&self) -> f64 {
        Self::mean(self.mrr, self.answerable)
    }
    /// nDCG@10 with binary relevance: the right answers' places in the top
    /// ten, against the best order.
    pub(super) fn ndcg10(&self) -> f64 {
        Self::mean(self.ndcg_at_10, self.answerable)
    }
    /// Of the answerable queries, the share answered "no match".
    pub(super) fn no_match_share(&self) -> f64 {
        Self::share0(self.false_no_match, self.answerable)
    }
    /// Of the answerable queries, the share answered but flagged `low`.
    pub(super) fn low_share(&self) -> f64 {
        Self::share0(self.answered - self.high, self.answerable)
    }
    fn share0(part: usize, whole: usize) -> f64 {
        if whole == 0 {
            0.0
        } else {
            part as f64 / whole as f64
        }
    }
    /// Of the queries with no answer, the share answered "no match".
    pub(super) fn no_match_recall(&self) -> f64 {
        Self::share(self.correct_no_match, self.unanswerable)
    }
    /// Of the answerable queries, the share answered with a list.
    pub(super) fn answered_share(&self) -> f64 {
        Self::share(self.answered, self.answerable)
    }
    /// Of the answerable queries, the share answered with confidence `high`.
    pub(super) fn high_share(&self) -> f64 {
        Self::share(self.high, self.answerable)
    }
    /// Of the `high` answers to answerable queries, the share whose first
    /// hit is right.
    pub(super) fn high_precision(&self) -> f64 {
        Self::share(self.high_right, self.high)
    }
    /// Of the queries with no answer, the share answered "no match" or
    /// flagged `low`.
    pub(super) fn declined_share(&self) -> f64 {
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
pub(super) struct Report {
    pub overall: Scores,
    pub by_kind: BTreeMap<String, Scores>,
    /// Queries whose best answer was not in the top five (or a wrong
    /// no-match, or a wrong answer to an unanswerable query).
    pub misses: Vec<Miss>,
}

/// A query the ranking missed, with what it answered.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub(super) struct Miss {
    pub query: String,
    /// The query file's line (0 when built in code).
    pub line: usize,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub kind: String,
    /// What was expected (empty: no entry answers it).
    pub expect: Vec<String>,
    /// The top five answered.
    pub top: Vec<String>,
    pub no_match: bool,
    pub low: bool,
}

impl std::fmt::Display for Miss {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if !self.kind.is_empty() {
            write!(f, "[{}] ", self.kind)?;
        }
        write!(f, "{:?} → ", self.query)?;
        if self.no_match {
            write!(f, "no match")?;
        } else {
            write!(f, "{}", self.top.join(", "))?;
            if self.low {
                write!(f, " (low)")?;
            }
        }
        if self.expect.is_empty() {
            write!(f, "; expected low or no match")
        } else {
            write!(f, "; expected {}", self.expect.join(", "))
        }
    }
}

/// What a ranking function answers to one query.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Ranked {
    /// Skill names, best first.
    pub names: Vec<String>,
    /// It declared "no match".
    pub no_match: bool,
    /// It flagged the answer as weak (confidence `low`).
    pub low: bool,
}

/// A ranking function under evaluation.
pub(super) type Ranker<'a> = dyn Fn(&str) -> Ranked + 'a;

/// Score `rank` on `queries`.
pub(super) fn evaluate(queries: &[LabelledQuery], rank: &Ranker<'_>) -> Report {
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
                report.misses.push(miss(q, &answer));
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
            s.ndcg_at_10 = ndcg_at_10(ranked, &q.relevant);
            if s.high == 1 && s.recall_at_1 == 1.0 {
                s.high_right = 1;
            }
            if s.recall_at_5 < 1.0 {
                report.misses.push(miss(q, &answer));
            }
        }
        report.overall.add(&s);
        report.by_kind.entry(q.kind.clone()).or_default().add(&s);
    }
    report
}

fn miss(q: &LabelledQuery, answer: &Ranked) -> Miss {
    Miss {
        query: q.query.clone(),
        line: q.line,
        kind: q.kind.clone(),
        expect: q.relevant.clone(),
        top: answer.names.iter().take(5).cloned().collect(),
        no_match: answer.no_match,
        low: answer.low,
    }
}

/// nDCG@10 of one ranking, relevance 1 for each entry of `relevant`.
fn ndcg_at_10(ranked: &[String], relevant: &[String]) -> f64 {
    let gain = |place: usize| 1.0 / ((place + 2) as f64).log2();
    let mut seen: Vec<&String> = Vec::new();
    let dcg: f64 = ranked
        .iter()
        .take(10)
        .enumerate()
        .filter(|(_, id)| {
            let new = relevant.contains(id) && !seen.contains(id);
            seen.push(id);
            new
        })
        .map(|(place, _)| gain(place))
        .sum();
    let ideal: f64 = (0..relevant.len().min(10)).map(gain).sum();
    if ideal == 0.0 {
        0.0
    } else {
        dcg / ideal
    }
}
