//! `skilldex tools`: print the tool definitions `serve` publishes, as MCP
//! `tools/list` entries or as OpenAI function tools, for hosts that wire
//! the tools themselves; and `skilldex tools sync`, which fills the tool
//! catalogs (`mcp-tools.json`) from the MCP servers people configured.

use super::Cli;
use clap::{Args, Subcommand, ValueEnum};
use std::io::Write;
use std::process::ExitCode;

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub(super) struct ToolsArgs {
    #[command(subcommand)]
    action: Option<ToolsAction>,
    /// Shape of the definitions.
    #[arg(long, value_enum, default_value_t = ToolsFormat::Mcp)]
    format: ToolsFormat,
    /// Accepted like on every command that prints data: the definitions
    /// are JSON in either shape.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Subcommand)]
enum ToolsAction {
    /// Start each configured MCP server, list its tools, and write
    /// <dir>/<server>/mcp-tools.json.
    Sync(super::tools_sync::SyncArgs),
    /// Print catalog tools' full definitions for loading (OpenAI namespace
    /// or MCP shape), their schemas sanitised.
    Spec(super::tools_spec::SpecArgs),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ToolsFormat {
    /// MCP `tools/list` entries: {name, description, inputSchema}.
    Mcp,
    /// OpenAI Responses API function tools: {type, name, description, parameters, strict}.
    Openai,
}

pub(super) fn tools_command(cli: &Cli, args: &ToolsArgs) -> anyhow::Result<ExitCode> {
    match &args.action {
        Some(ToolsAction::Sync(sync)) => return super::tools_sync::sync_command(cli, sync),
        Some(ToolsAction::Spec(spec)) => return super::tools_spec::spec_command(cli, spec),
        None => {}
    }
    let definitions = skilldex::tools::definitions();
    let value = match args.format {
        ToolsFormat::Mcp => skilldex::tools::mcp_json(&definitions),
        ToolsFormat::Openai => skilldex::tools::openai_json(&definitions),
    };
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, &value)?;
    out.write_all(b"\n")?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
