//! `skilldex serve`: build the catalog (live: it follows the roots as files
//! change, unless --no-watch), then answer MCP on stdin/stdout until the
//! client closes stdin. stdout belongs to the protocol; every message for
//! the person goes to stderr.

use super::Cli;
use clap::Args;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub(super) struct ServeArgs {
    /// Fit the directory in the server instructions in this many tokens
    /// [default: budget_tokens of skilldex.yaml, else the --host's listing
    /// budget, else 4000]. The instructions are capped at 2,048 characters
    /// whatever the budget (what Claude Code keeps; --host sets another
    /// cap); the whole directory is the resource skilldex://directory.
    #[arg(long, value_name = "N")]
    budget_tokens: Option<usize>,
    /// Fit the instructions to this agent host: what it keeps of them
    /// (claude 2,048 characters; codex shows 247, so the first paragraph
    /// alone; the others publish no limit) and its skill-listing budget
    /// for the directory in them (see docs/render.md).
    #[arg(long, value_enum)]
    host: Option<super::HostArg>,
    /// The model's context window, in tokens: with --host, the directory's
    /// budget is the host's share of it.
    #[arg(long, value_name = "N", requires = "host")]
    context_tokens: Option<usize>,
    /// Serve one snapshot: do not follow changes on disk.
    #[arg(long)]
    no_watch: bool,
    /// Poll the roots instead of using native file events (network and
    /// virtual filesystems).
    #[arg(long, conflicts_with = "no_watch")]
    poll: bool,
    #[command(flatten)]
    model: super::model::ModelArgs,
}

#[cfg(feature = "mcp")]
pub(super) fn serve_command(cli: &Cli, args: &ServeArgs) -> anyhow::Result<ExitCode> {
    use skilldex::mcp;
    use std::sync::Arc;
    let settings = super::settings(&cli.global)?;
    let semantic = super::model::serve_model(&cli.global, &args.model)?;
    // Load the tokenizer (for the instructions' budget) while scanning.
    skilldex::tokens::warm_up();
    let builder = super::builder(&cli.global, skilldex::entry::Profile::Spec)?;
    let quiet = cli.global.quiet;
    let log: mcp::Log = Arc::new(move |message: &str| {
        if !quiet {
            say!("skilldex serve: {message}");
        }
    });
    // A model that does not load does not take search down: the searches
    // answer by words and say semantic search is off; the log says why.
    let (semantic, semantic_off) = match semantic {
        Ok(model) => (model, false),
        Err(why) => {
            log(&format!(
                "semantic search is off: {why} — searches answer by words only; fix the model, or pass --no-model to say so"
            ));
            (None, true)
        }
    };
    // A root that does not exist yet is waited for, as `watch` does; with
    // `--no-watch` nothing would ever pick it up, so it stays an error.
    let missing: Vec<&std::path::Path> = builder
        .roots()
        .iter()
        .map(|r| r.as_path())
        .filter(|r| !r.exists())
        .collect();
    for root in builder.roots().iter().filter(|r| r.exists()) {
        skilldex::catalog::check_root(root)
            .map_err(|error| super::explain_root_error(&cli.global, error))?;
    }
    let first = if args.no_watch || missing.is_empty() {
        Arc::new(super::build(&cli.global, &builder)?)
    } else {
        for root in &missing {
            log(&format!(
                "{} does not exist yet; watching for it to appear",
                root.display()
            ));
        }
        let catalog = builder.build_allowing_missing();
        super::warn_unknown_names(&cli.global, &catalog);
        Arc::new(catalog)
    };
    let mut on_started: Option<Box<dyn FnOnce() + Send>> = None;
    let (snapshots, changes): (Arc<dyn mcp::Snapshots>, _) = if args.no_watch {
        (Arc::new(mcp::Fixed(first)), None)
    } else {
        let options = skilldex::live::WatchOptions {
            poll: args.poll,
            ..skilldex::live::WatchOptions::default()
        };
        let (sender, receiver) = std::sync::mpsc::channel();
        let handover = mcp::Handover::new(first);
        let (watcher, watch_log) = (Arc::clone(&handover), Arc::clone(&log));
        // Watching every folder costs more than the first walk: start it
        // once the client has its first answer.
        on_started = Some(Box::new(move || {
            if let Err(error) = watcher.watch(builder, options, sender, Arc::clone(&watch_log)) {
                watch_log(&format!("not following changes on disk: {error}"));
            }
        }));
        (handover as Arc<dyn mcp::Snapshots>, Some(receiver))
    };
    let catalog = snapshots.snapshot();
    super::commands::report_diagnostics(cli, &catalog);
    // A pinned tool or a description that names no tool changes nothing:
    // said once, where it is written (`lint` reports them too).
    if !quiet {
        let style = super::style::Style::stderr(cli.global.color);
        for finding in skilldex::tool_settings::diagnostics(&catalog, &settings) {
            say!("{}", super::commands::diagnostic_line(&finding, &style));
        }
    }
    log(&format!(
        "{} skills (revision {}){}; speaking MCP on stdin/stdout",
        catalog.skills().len(),
        catalog.revision(),
        if args.no_watch {
            ""
        } else {
            ", following changes"
        }
    ));
    let fit = mcp::instructions::Fit {
        budget_tokens: args.budget_tokens.or(settings.budget_tokens),
        host: args.host.map(Into::into),
        context_tokens: args.context_tokens,
    };
    if let Some(host) = fit.host.filter(|_| !quiet) {
        let fitted = mcp::instructions::fitted(&catalog, &fit);
        let length = fitted.text.encode_utf16().count();
        let kept = match fitted.max_chars {
            Some(max) => format!(
                "{} of the {} characters it keeps",
                skilldex::text::thousands(length),
                skilldex::text::thousands(max)
            ),
            None => format!(
                "{} characters (it publishes no limit)",
                skilldex::text::thousands(length)
            ),
        };
        log(&format!(
            "instructions for {}: {kept}; their directory names {} of {} (a budget of {} {}){}",
            host.profile().name,
            skilldex::text::thousands(fitted.named),
            skilldex::text::plural(fitted.skills, "skill", "skills"),
            skilldex::text::thousands(fitted.budget.limit()),
            fitted.budget.unit(),
            if fitted.named < fitted.skills {
                "; search_skills finds the rest"
            } else {
                ""
            },
        ));
    }
    drop(catalog);
    mcp::serve_stdio(mcp::ServeOptions {
        snapshots,
        changes,
        instructions: fit,
        settings: Some(settings),
        log,
        on_started,
        semantic,
        semantic_off,
    })?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(not(feature = "mcp"))]
pub(super) fn serve_command(_cli: &Cli, _args: &ServeArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!(
        "this skilldex was built without the `mcp` feature; rebuild with `--features mcp`"
    )
}
