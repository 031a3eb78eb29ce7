//! `skilldex search`: ranked skills and MCP tools for a task, as a list,
//! JSON, or deferred-loading tool specs.

use super::commands::{report_diagnostics, stdout, write_json};
use super::style::{fit_width, Style};
use super::{build, builder, Cli, PathsArg};
use clap::{Args, ValueEnum};
use skilldex::entry::Profile;
use skilldex::query::PathStyle;
use skilldex::search::{self, SearchOptions};
use std::io::Write;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub(super) struct SearchArgs {
    /// What the skill should do, in a few words (several arguments are
    /// joined with spaces). `select:a,b` returns exactly those skills.
    #[arg(required = true, num_args = 1..)]
    query: Vec<String>,
    /// At most this many results.
    #[arg(short = 'n', long, value_name = "N", default_value_t = 8,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    limit: usize,
    /// Output format.
    #[arg(long, value_enum, default_value_t = SearchFormat::Text)]
    format: SearchFormat,
    /// Same as --format json.
    #[arg(long, conflicts_with = "format")]
    json: bool,
    /// How skill paths are shown.
    #[arg(long, value_enum, default_value_t = PathsArg::Absolute)]
    paths: PathsArg,
    /// Only skills, or only MCP tools (both by default).
    #[arg(long, value_enum, value_name = "KIND")]
    kind: Option<KindArg>,
    #[command(flatten)]
    model: super::model::ModelArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(super) enum KindArg {
    Skill,
    Tool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum SearchFormat {
    Text,
    Json,
    /// Responses-API namespaces of deferred-loading functions: skills, and
    /// tools with their sanitised parameters.
    ToolSpec,
}

pub(super) fn search_command(cli: &Cli, args: &SearchArgs) -> anyhow::Result<ExitCode> {
    let query = args.query.join(" ");
    if query.trim().is_empty() {
        say!("skilldex: the query is empty — say in a few words what the skill should do");
        return Ok(ExitCode::from(2));
    }
    let model = super::model::load_model(&cli.global, &args.model)?;
    let catalog = build(&cli.global, &builder(&cli.global, Profile::Spec)?)?;
    report_diagnostics(cli, &catalog);
    let kind = args.kind.map(KindArg::entry_kind);
    let options = SearchOptions {
        limit: args.limit,
        kind,
    };
    let results = match model.as_deref() {
        Some(model) if search::select_list(&query).is_none() => {
            let vectors = model.index(&catalog)?;
            super::model::report_embedding(&cli.global, vectors.stats());
            search::SearchIndex::build(&catalog)
                .search_semantic(&catalog, &query, &options, model, &vectors)?
        }
        _ => catalog.search(&query, &options),
    };
    let format = if args.json {
        SearchFormat::Json
    } else {
        args.format
    };
    let paths = PathStyle::from(args.paths);
    match format {
        SearchFormat::Json => write_json(&search::results_json(&catalog, &results, paths))?,
        SearchFormat::ToolSpec => write_json(&search::tool_specs(&catalog, &results))?,
        SearchFormat::Text => {
            let style = Style::stdout(cli.global.color);
            let mut out = stdout();
            let base = std::env::current_dir().unwrap_or_default();
            let command = command_prefix(cli);
            let about = kind.or((catalog.tool_count() == 0).then_some(search::EntryKind::Skill));
            if let Some(advice) = search::advice(&results, about) {
                writeln!(out, "{advice}")?;
            }
            if results.no_match {
                write_unmatched(&mut out, &results)?;
                if !results.namespaces.is_empty() {
                    let names: Vec<&str> =
                        results.namespaces.iter().map(|n| n.name.as_str()).collect();
                    writeln!(
                        out,
                        "Closest namespaces: {} ({command} list --namespace {})",
                        names.join(", "),
                        super::commands::shell_word(names[0])
                    )?;
                }
                writeln!(out, "Browse everything with `{command} list`.")?;
            } else {
                let columns = terminal_columns();
                for (rank, hit) in results.hits.iter().enumerate() {
                    let flag = match hit.confidence {
                        search::Confidence::High => "",
                        search::Confidence::Low => " low",
                    };
                    let score = style.dim(&format!("{:.2}{flag}", hit.score));
                    let printable = skilldex::entry::printable;
                    let (id, label, description, path) = match hit.kind {
                        search::EntryKind::Skill => {
                            let skill = &catalog.skills()[hit.index];
                            let namespace = if skill.namespace.is_empty() {
                                String::new()
                            } else {
                                format!("  {}", style.dim(&format!("[{}]", skill.namespace)))
                            };
                            (
                                skill.id.as_str(),
                                namespace,
                                skill.description.as_str(),
                                &skill.path,
                            )
                        }
                        search::EntryKind::Tool => {
                            let Some((server, tool)) = catalog.tool_at(hit.index) else {
                                continue;
                            };
                            let label =
                                format!("  {}", style.dim(&format!("[tool · {}]", server.name)));
                            (
                                tool.id.as_str(),
                                label,
                                tool.description.as_str(),
                                &server.path,
                            )
                        }
                    };
                    writeln!(
                        out,
                        "{:>2}. {}{}  {}",
                        rank + 1,
                        style.bold(&printable(id)),
                        label,
                        score
                    )?;
                    writeln!(
                        out,
                        "    {}",
                        fit_width(description, columns.saturating_sub(4)).trim_end()
                    )?;
                    if let Some(path) = skilldex::query::render::display_path(path, paths, &base) {
                        writeln!(out, "    {}", style.dim(&path))?;
                    }
                }
                write_unmatched(&mut out, &results)?;
            }
            out.flush()?;
            if !results.no_match && !cli.global.quiet {
                let skills = results
                    .hits
                    .iter()
                    .any(|h| h.kind == search::EntryKind::Skill);
                let tools = results
                    .hits
                    .iter()
                    .any(|h| h.kind == search::EntryKind::Tool);
                if skills {
                    say!("skilldex: read one with `{command} read NAME` (or `--section HEADING`)");
                }
                if tools {
                    say!("skilldex: load a tool's definition with `{command} tools spec SERVER/TOOL` (`--format mcp` for MCP's shape)");
                }
            }
        }
    }
    let no_match = results.no_match;
    drop(results);
    // As in `render`: the process ends now; skip freeing the catalog and
    // its index.
    std::mem::forget(catalog);
    Ok(if no_match {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// `skilldex` with the options that chose the catalog (`--root`,
/// `--config`) as the user gave them, so a suggested command runs as
/// printed.
fn command_prefix(cli: &Cli) -> String {
    format!("skilldex{}", super::commands::global_flags(&cli.global))
}

/// Width for descriptions: the terminal's when known, else 100.
fn terminal_columns() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .filter(|&c: &usize| c >= 40)
        .unwrap_or(100)
}

/// The names a `select:` list gave that no skill has, or the query words
/// that matched nothing: one line, when there are any.
fn write_unmatched(out: &mut impl Write, results: &search::SearchResults) -> std::io::Result<()> {
    if !results.unmatched_terms.is_empty() {
        let label = if search::select_list(&results.query).is_some() {
            "No skill named"
        } else {
            "Words that matched nothing"
        };
        writeln!(out, "{label}: {}", results.unmatched_terms.join(", "))?;
    }
    if !results.weak_terms.is_empty() {
        writeln!(
            out,
            "Words that matched only weakly (a related word or a guessed typo): {}",
            results.weak_terms.join(", ")
        )?;
    }
    Ok(())
}
