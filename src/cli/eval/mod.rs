//! `skilldex eval`: how well search finds the expected entries for a file
//! of labelled requests, against the catalog as configured (lexical, or
//! semantic with a model), with thresholds that fail the run.

use super::commands::{report_diagnostics, stdout, write_json};
use super::search::KindArg;
use super::{build, builder, Cli};
use clap::Args;
use score::{Check, QueryFile, Ranked, Report, Scores};
use skilldex::catalog::Catalog;
use skilldex::entry::Profile;
use skilldex::search::{self, Confidence, SearchIndex, SearchOptions, ToolScoring};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

mod baseline;
mod score;

#[derive(Debug, Args)]
pub(super) struct EvalArgs {
    /// A JSON-lines file, one request per line:
    /// {"query": "…", "expect": ["skill-or-tool-id", …]} (`expect` empty
    /// or absent: no entry answers it). An optional first line
    /// {"eval": {"min_r5": 0.8, …}} sets thresholds that fail the run.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    /// Only skills, or only MCP tools (both by default).
    #[arg(long, value_enum, value_name = "KIND")]
    kind: Option<KindArg>,
    /// Fail when R@5 is below this share (instead of the file's min_r5).
    #[arg(long, value_name = "SHARE", value_parser = share)]
    min_r5: Option<f64>,
    /// Misses listed in the text report (all of them in --json).
    #[arg(long, value_name = "N", default_value_t = 20)]
    misses: usize,
    /// Score a baseline ranker beside skilldex's search, on the same
    /// requests: `bm25` is a plain BM25 over each entry's name,
    /// description and (for tools) parameters.
    #[arg(long, value_enum, value_name = "RANKER")]
    baseline: Option<BaselineArg>,
    /// How tools are scored: `hierarchical` (a server's evidence apart,
    /// lifting its tools; what search does) or `flat` (the server's text a
    /// field of each tool) — to measure one against the other.
    #[arg(
        long,
        value_enum,
        value_name = "SCORING",
        default_value = "hierarchical"
    )]
    tool_scoring: ToolScoringArg,
    #[command(flatten)]
    model: super::model::ModelArgs,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum BaselineArg {
    Bm25,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum ToolScoringArg {
    Hierarchical,
    Flat,
}

fn share(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err("a share from 0 to 1, such as 0.8".into()),
    }
}

/// Each result of a run, ranked as `search` ranks.
const LIMIT: usize = 10;

pub(super) fn eval_command(cli: &Cli, args: &EvalArgs) -> anyhow::Result<ExitCode> {
    let shown = args.file.display();
    let text = match skilldex::contain::read_regular(&args.file, 64 * 1024 * 1024)
        .map_err(|e| e.to_string())
        .and_then(|bytes| String::from_utf8(bytes).map_err(|_| "it is not UTF-8 text".to_string()))
    {
        Ok(text) => text,
        Err(error) => {
            say!("skilldex: cannot read {shown}: {error}");
            return Ok(ExitCode::from(2));
        }
    };
    let mut file = match score::parse_query_file(&text) {
        Ok(file) => file,
        Err(e) => {
            say!("{shown}:{}:{}: {}", e.line, e.column, e.message);
            return Ok(ExitCode::from(2));
        }
    };
    if file.queries.is_empty() {
        say!("{shown}: no requests — each line is {{\"query\": \"…\", \"expect\": [\"id\"]}}");
        return Ok(ExitCode::from(2));
    }
    if let Some(min) = args.min_r5 {
        file.thresholds.min_r5 = Some(min);
    }
    let model = super::model::load_model(&cli.global, &args.model)?;
    let catalog = build(&cli.global, &builder(&cli.global, Profile::Spec)?)?;
    report_diagnostics(cli, &catalog);
    if let Err(problems) = resolve_expected(&catalog, &mut file) {
        for (line, problem) in problems {
            say!("{shown}:{line}:1: {problem}");
        }
        return Ok(ExitCode::from(2));
    }
    let options = SearchOptions {
        limit: LIMIT,
        kind: args.kind.map(KindArg::entry_kind),
    };
    let index = SearchIndex::build_with(
        &catalog,
        match args.tool_scoring {
            ToolScoringArg::Hierarchical => ToolScoring::Hierarchical,
            ToolScoringArg::Flat => ToolScoring::Flat,
        },
    );
    let vectors = match model.as_deref() {
        Some(model) => {
            let vectors = model.index(&catalog)?;
            super::model::report_embedding(&cli.global, vectors.stats());
            Some(vectors)
        }
        None => None,
    };
    let mut answers: BTreeMap<&str, Ranked> = BTreeMap::new();
    let mut latencies = Vec::with_capacity(file.queries.len());
    for query in &file.queries {
        let started = Instant::now();
        let results = match (model.as_deref(), &vectors) {
            (Some(model), Some(vectors)) => {
                index.search_semantic(&catalog, &query.query, &options, model, vectors)?
            }
            _ => index.search(&catalog, &query.query, &options),
        };
        latencies.push(started.elapsed());
        let ranked = Ranked {
            names: results
                .hits
                .iter()
                .map(|h| h.id(&catalog).to_string())
                .collect(),
            no_match: results.no_match,
            low: results.confidence == Confidence::Low,
        };
        answers.insert(&query.query, ranked);
    }
    let report = score::evaluate(&file.queries, &|q: &str| {
        answers.get(q).cloned().unwrap_or_default()
    });
    let baseline = args.baseline.map(|BaselineArg::Bm25| {
        score::evaluate(&file.queries, &baseline::bm25(&catalog, options.kind))
    });
    let checks = file.thresholds.check(&report.overall);
    let passed = checks.iter().all(|c| c.passed);
    latencies.sort();
    let run = Run {
        file: &shown.to_string(),
        mode: if model.is_some() {
            "semantic"
        } else {
            "lexical"
        },
        kind: match args.kind {
            Some(KindArg::Skill) => "skill",
            Some(KindArg::Tool) => "tool",
            None => "all",
        },
        report: &report,
        baseline: baseline.as_ref(),
        checks: &checks,
        p50: percentile(&latencies, 50),
        p95: percentile(&latencies, 95),
    };
    if args.json {
        write_json(&run.json())?;
    } else {
        run.write_text(args.misses)?;
    }
    for check in checks.iter().filter(|c| !c.passed) {
        say!(
            "skilldex: {} is {:.3}, {} {:.3} — the run fails",
            check.name,
            check.value,
            if check.name.starts_with("min_") {
                "below the threshold"
            } else {
                "above the threshold"
            },
            check.threshold
        );
    }
    std::mem::forget(catalog);
    Ok(if passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Turn each expected skill name into its id; name every expectation that
/// is no entry of the catalog, with its line.
fn resolve_expected(catalog: &Catalog, file: &mut QueryFile) -> Result<(), Vec<(usize, String)>> {
    let mut problems = Vec::new();
    for query in &mut file.queries {
        for expected in &mut query.relevant {
            if catalog.skills().iter().any(|s| s.id == *expected)
                || catalog.tool(expected).is_some()
            {
                continue;
            }
            let named: Vec<&str> = catalog
                .skills()
                .iter()
                .filter(|s| s.name == *expected)
                .map(|s| s.id.as_str())
                .collect();
            if let [id] = named[..] {
                *expected = id.to_string();
                continue;
            }
            let mut problem = if named.is_empty() {
                format!("`{expected}` is no skill or tool of the catalog")
            } else {
                format!(
                    "`{expected}` names {} skills; expect one of their ids: {}",
                    named.len(),
                    named.join(", ")
                )
            };
            if named.is_empty() {
                let similar = catalog.similar(expected, 3);
                let similar = if similar.is_empty() {
                    catalog.similar_tools(expected, 3)
                } else {
                    similar
                };
                if similar.is_empty() {
                    problem.push_str(" — `skilldex list` shows the ids");
                } else {
                    problem.push_str(&format!(" — did you mean {}?", similar.join(", ")));
                }
            }
            problems.push((query.line, problem));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

fn percentile(sorted: &[Duration], p: usize) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let at = (sorted.len() * p).div_ceil(100).clamp(1, sorted.len()) - 1;
    sorted[at]
}

struct Run<'a> {
    file: &'a str,
    mode: &'static str,
    kind: &'static str,
    report: &'a Report,
    /// The baseline ranker's report, when one was asked for.
    baseline: Option<&'a Report>,
    checks: &'a [Check],
    p50: Duration,
    p95: Duration,
}

fn scores_json(s: &Scores) -> serde_json::Value {
    let answerable = s.answerable > 0;
    let figure = |present: bool, v: f64| {
        if present {
            serde_json::json!(round(v))
        } else {
            serde_json::Value::Null
        }
    };
    serde_json::json!({
        "queries": s.answerable + s.unanswerable,
        "answerable": s.answerable,
        "unanswerable": s.unanswerable,
        "r1": figure(answerable, s.r1()),
        "r5": figure(answerable, s.r5()),
        "mrr": figure(answerable, s.mrr()),
        "ndcg10": figure(answerable, s.ndcg10()),
        "no_match": figure(answerable, s.no_match_share()),
        "low": figure(answerable, s.low_share()),
        "answered": figure(answerable, s.answered_share()),
        "high": figure(answerable, s.high_share()),
        "high_r1": figure(s.high > 0, s.high_precision()),
        "declined": figure(s.unanswerable > 0, s.declined_share()),
    })
}

fn round(v: f64) -> f64 {
    (v * 10_000.0).round() / 10_000.0
}

fn micros(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e7).round() / 10.0
}

impl Run<'_> {
    fn json(&self) -> serde_json::Value {
        let mut value = scores_json(&self.report.overall);
        let by_kind: serde_json::Map<String, serde_json::Value> = self
            .report
            .by_kind
            .iter()
            .filter(|(kind, _)| !kind.is_empty())
            .map(|(kind, s)| (kind.clone(), scores_json(s)))
            .collect();
        let mut extra = serde_json::json!({
            "file": self.file,
            "mode": self.mode,
            "kind": self.kind,
            "latency_us": {"p50": micros(self.p50), "p95": micros(self.p95)},
            "by_kind": by_kind,
            "thresholds": self.checks,
            "passed": self.checks.iter().all(|c| c.passed),
            "misses": self.report.misses,
        });
        if let (Some(baseline), Some(map)) = (self.baseline, extra.as_object_mut()) {
            let mut scores = scores_json(&baseline.overall);
            scores["ranker"] = "bm25".into();
            map.insert("baseline".into(), scores);
        }
        if let (Some(value), serde_json::Value::Object(extra)) = (value.as_object_mut(), extra) {
            value.extend(extra);
        }
        value
    }

    fn write_text(&self, misses: usize) -> anyhow::Result<()> {
        let mut out = stdout();
        let s = &self.report.overall;
        writeln!(
            out,
            "{}: {} requests ({} answerable, {} with no answer), {} search of {}",
            self.file,
            s.answerable + s.unanswerable,
            s.answerable,
            s.unanswerable,
            self.mode,
            match self.kind {
                "skill" => "skills",
                "tool" => "tools",
                _ => "skills and tools",
            }
        )?;
        let percent = |v: f64| format!("{:.1} %", v * 100.0);
        if s.answerable > 0 {
            writeln!(
                out,
                "R@1 {:.3}  R@5 {:.3}  MRR {:.3}  nDCG@10 {:.3}",
                s.r1(),
                s.r5(),
                s.mrr(),
                s.ndcg10()
            )?;
            writeln!(
                out,
                "answered no match {}  flagged low {}",
                percent(s.no_match_share()),
                percent(s.low_share())
            )?;
        }
        if s.unanswerable > 0 {
            writeln!(
                out,
                "with no answer: declined (low or no match) {}, no match {}",
                percent(s.declined_share()),
                percent(s.no_match_recall())
            )?;
        }
        if let Some(b) = self.baseline.map(|b| &b.overall) {
            if b.answerable > 0 {
                writeln!(
                    out,
                    "baseline (plain BM25): R@1 {:.3}  R@5 {:.3}  MRR {:.3}  nDCG@10 {:.3}",
                    b.r1(),
                    b.r5(),
                    b.mrr(),
                    b.ndcg10()
                )?;
            }
        }
        writeln!(
            out,
            "latency p50 {} µs  p95 {} µs",
            micros(self.p50),
            micros(self.p95)
        )?;
        let kinds: Vec<_> = self
            .report
            .by_kind
            .iter()
            .filter(|(k, _)| !k.is_empty())
            .collect();
        if kinds.len() > 1 {
            writeln!(out, "by kind:")?;
            for (kind, k) in kinds {
                writeln!(
                    out,
                    "  {kind:<16} {:>4}  R@1 {}  R@5 {}  declined {}",
                    k.answerable + k.unanswerable,
                    or_dash(k.answerable, k.r1()),
                    or_dash(k.answerable, k.r5()),
                    or_dash(k.unanswerable, k.declined_share())
                )?;
            }
        }
        for check in self.checks {
            writeln!(
                out,
                "{} {} {:.3}: {:.3} {}",
                check.name,
                if check.name.starts_with("min_") {
                    "≥"
                } else {
                    "≤"
                },
                check.threshold,
                check.value,
                if check.passed { "ok" } else { "FAILED" }
            )?;
        }
        let missed = &self.report.misses;
        if !missed.is_empty() {
            writeln!(out, "misses ({}):", missed.len())?;
            for miss in missed.iter().take(misses) {
                writeln!(out, "  {}:{}: {miss}", self.file, miss.line)?;
            }
            if missed.len() > misses {
                writeln!(
                    out,
                    "  … and {} more (--misses N, or --json for all)",
                    missed.len() - misses
                )?;
            }
        }
        out.flush()?;
        Ok(())
    }
}

fn or_dash(n: usize, v: f64) -> String {
    if n == 0 {
        "    -".into()
    } else {
        format!("{v:.3}")
    }
}

impl KindArg {
    pub(super) fn entry_kind(self) -> search::EntryKind {
        match self {
            KindArg::Skill => search::EntryKind::Skill,
            KindArg::Tool => search::EntryKind::Tool,
        }
    }
}
