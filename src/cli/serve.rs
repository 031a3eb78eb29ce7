//! `skilldex serve`: build the catalog, then answer MCP on stdin/stdout
//! until the client closes stdin. stdout belongs to the protocol; every
//! message for the person goes to stderr.

use super::Cli;
use clap::Args;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub(super) struct ServeArgs {
    /// Fit the directory in the server instructions in this many tokens
    /// [default: budget_tokens of skilldex.yaml, else 4000].
    #[arg(long, value_name = "N")]
    budget_tokens: Option<usize>,
}

#[cfg(feature = "mcp")]
#[allow(clippy::print_stderr)]
pub(super) fn serve_command(cli: &Cli, args: &ServeArgs) -> anyhow::Result<ExitCode> {
    use crate::mcp;
    use std::sync::Arc;
    let settings = super::settings(&cli.global)?;
    // Load the tokenizer (for the instructions' budget) while scanning.
    crate::tokens::warm_up();
    let builder = super::builder(&cli.global, crate::model::Profile::Spec)?;
    let catalog = Arc::new(super::build(&builder)?);
    super::commands::report_diagnostics(cli, &catalog);
    let quiet = cli.global.quiet;
    let log: mcp::Log = Arc::new(move |message: &str| {
        if !quiet {
            eprintln!("skilldex serve: {message}");
        }
    });
    if !quiet {
        eprintln!(
            "skilldex serve: {} skills (revision {}); speaking MCP on stdin/stdout",
            catalog.skills().len(),
            catalog.revision()
        );
    }
    mcp::serve_stdio(mcp::ServeOptions {
        snapshots: Arc::new(mcp::Fixed(catalog)),
        changes: None,
        budget_tokens: args.budget_tokens.or(settings.budget_tokens),
        settings: Some(settings),
        log,
    })?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(not(feature = "mcp"))]
pub(super) fn serve_command(_cli: &Cli, _args: &ServeArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!(
        "this skilldex was built without the `mcp` feature; rebuild with `--features mcp`"
    )
}
