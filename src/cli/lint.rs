//! `skilldex lint`: the catalog's diagnostics, filtered and capped for a
//! repository of hundreds of skills.
//!
//! Filters apply in one order: `--allow` drops codes, `--code` keeps
//! codes, `--severity` keeps what is at least that serious. What is left
//! decides the exit code (1 when an error is left) and the summary, which
//! counts every finding left by code. `--max-findings` then only limits how
//! many are printed; the rest are counted, never silently dropped.

use super::commands::{diagnostic_line, plural, stdout, write_json, Counts};
use super::style::Style;
use super::{build, builder, Cli, LintArgs, LintFormat, SeverityArg};
use skilldex::entry::{Code, Diagnostic, Profile, Severity};
use skilldex::rules::thousands;
use std::collections::BTreeMap;
use std::io::Write;
use std::process::ExitCode;

/// Codes named on the command line: exact codes, or `prefix-*` families.
fn code_filter(given: &[String], flag: &str) -> anyhow::Result<Vec<Code>> {
    let mut codes = Vec::new();
    for text in given {
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        let matched: Vec<Code> = match text.strip_suffix('*') {
            Some(prefix) => Code::every()
                .filter(|c| c.as_str().starts_with(prefix))
                .collect(),
            None => Code::parse(text).into_iter().collect(),
        };
        if matched.is_empty() {
            let known: Vec<&str> = Code::every().map(|c| c.as_str()).collect();
            anyhow::bail!(
                "{flag} `{text}` names no diagnostic code — use one of: {}",
                known.join(", ")
            );
        }
        codes.extend(matched);
    }
    codes.sort();
    codes.dedup();
    Ok(codes)
}

/// How many findings of one code are left, and how serious they are.
#[derive(Debug, Default, serde::Serialize)]
struct CodeCount {
    severity: Option<Severity>,
    count: usize,
}

pub(super) fn lint_command(cli: &Cli, args: &LintArgs) -> anyhow::Result<ExitCode> {
    let profile: Profile = args.profile.into();
    let allow = code_filter(&args.allow, "--allow")?;
    let only = code_filter(&args.codes, "--code")?;
    let least = args.severity.map(|s| match s {
        SeverityArg::Error => Severity::Error,
        SeverityArg::Warning => Severity::Warning,
        SeverityArg::Info => Severity::Info,
    });
    let builder = builder(&cli.global, profile)?.check_bodies(true);
    let catalog = build(&cli.global, &builder)?;
    // With what the skills' tool declarations miss in the tool catalogs.
    let mut declared = skilldex::declared::diagnostics(&catalog);
    // With what the configuration's tool settings name that is not there.
    if let Ok(settings) = super::settings(&cli.global) {
        declared.extend(skilldex::tool_settings::diagnostics(&catalog, &settings));
    }
    let mut all = catalog.diagnostics().to_vec();
    if !declared.is_empty() {
        all.extend(declared);
        all.sort_by(|a, b| (&a.path, a.line, a.column).cmp(&(&b.path, b.line, b.column)));
    }
    let kept: Vec<&Diagnostic> = all
        .iter()
        .filter(|d| !allow.contains(&d.code))
        .filter(|d| only.is_empty() || only.contains(&d.code))
        // Severity is ordered most serious first.
        .filter(|d| least.is_none_or(|least| d.severity <= least))
        .collect();
    let of = |s| kept.iter().filter(|d| d.severity == s).count();
    let counts = Counts {
        errors: of(Severity::Error),
        warnings: of(Severity::Warning),
        infos: of(Severity::Info),
    };
    let mut by_code: BTreeMap<&str, CodeCount> = BTreeMap::new();
    for d in &kept {
        let entry = by_code.entry(d.code.as_str()).or_default();
        entry.count += 1;
        // One code can differ in severity only across profiles; keep the
        // most serious seen.
        entry.severity = Some(entry.severity.map_or(d.severity, |s| s.min(d.severity)));
    }
    let shown = args.max_findings.unwrap_or(usize::MAX).min(kept.len());
    let omitted = kept.len() - shown;
    let filtered_out = all.len() - kept.len();
    if args.json || args.format == LintFormat::Json {
        let mut value = serde_json::json!({
            "profile": profile.as_str(),
            "diagnostics": &kept[..shown],
            "summary": {
                "skills": catalog.skills().len(),
                "errors": counts.errors,
                "warnings": counts.warnings,
                "infos": counts.infos,
                "by_code": by_code,
                "shown": shown,
                "omitted": omitted,
                "filtered_out": filtered_out,
            }
        });
        if let Some(tools) = super::tools_lint::json(&catalog, &kept) {
            value["tool_catalogs"] = tools;
        }
        write_json(&value)?;
    } else {
        let style = Style::stdout(cli.global.color);
        let mut out = stdout();
        for d in &kept[..shown] {
            writeln!(out, "{}", diagnostic_line(d, &style))?;
        }
        out.flush()?;
        if !cli.global.quiet {
            let style = Style::stderr(cli.global.color);
            if omitted > 0 {
                say!(
                    "… {} not shown (--max-findings {shown}); narrow with --code or --severity, or raise --max-findings",
                    plural(omitted, "more finding", "more findings")
                );
            }
            if by_code.len() > 1 || omitted > 0 {
                let mut rows: Vec<(&str, &CodeCount)> =
                    by_code.iter().map(|(c, n)| (*c, n)).collect();
                // Most serious first, then most frequent, then by code.
                rows.sort_by(|a, b| {
                    (a.1.severity, std::cmp::Reverse(a.1.count), a.0).cmp(&(
                        b.1.severity,
                        std::cmp::Reverse(b.1.count),
                        b.0,
                    ))
                });
                let listed: Vec<String> = rows
                    .iter()
                    .map(|(code, n)| {
                        let severity = n.severity.map_or("", Severity::as_str);
                        format!("{code} {} ({severity})", n.count)
                    })
                    .collect();
                say!("by code: {}", listed.join(", "));
            }
            let verdict = if counts.errors > 0 {
                style.red("failed")
            } else {
                style.green("ok")
            };
            let left_out = if filtered_out > 0 {
                format!(" ({} left out by the filters)", thousands(filtered_out))
            } else {
                String::new()
            };
            say!(
                "skilldex lint ({}): {} — {} loaded{}, {}, {}, {}{left_out}",
                profile.as_str(),
                verdict,
                plural(catalog.skills().len(), "skill", "skills"),
                super::tools_lint::loaded_tail(&catalog),
                plural(counts.errors, "error", "errors"),
                plural(counts.warnings, "warning", "warnings"),
                plural(counts.infos, "note", "notes"),
            );
        }
    }
    Ok(if counts.errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
