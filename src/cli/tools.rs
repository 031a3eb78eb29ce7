//! `skilldex agent-tools`: print skilldex's own tool definitions, the ones
//! `serve` publishes, as MCP `tools/list` entries or as OpenAI function
//! tools, for hosts that wire the tools themselves. And `skilldex tools`,
//! which acts on the tool catalogs (`mcp-tools.json`): `sync` fills them
//! from the MCP servers people configured, `spec` prints a catalog tool's
//! definition. (`tools --format`, the older spelling of `agent-tools`,
//! still works, with a note.)

use super::Cli;
use clap::{Args, Subcommand, ValueEnum};
use std::io::Write;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub(super) struct AgentToolsArgs {
    /// Shape of the definitions.
    #[arg(long, value_enum, default_value_t = ToolsFormat::Mcp)]
    format: ToolsFormat,
    /// Accepted like on every command that prints data: the definitions
    /// are JSON in either shape.
    #[arg(long)]
    json: bool,
    /// With `--format openai`: definitions for strict function calling
    /// (`"strict": true`; every property required, optional ones nullable,
    /// every object closed).
    #[arg(long)]
    strict: bool,
}

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_required = false)]
pub(super) struct ToolsArgs {
    #[command(subcommand)]
    action: Option<ToolsAction>,
    /// The older spelling of `skilldex agent-tools`.
    #[command(flatten)]
    own: AgentToolsArgs,
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
        Some(ToolsAction::Sync(sync)) => super::tools_sync::sync_command(cli, sync),
        Some(ToolsAction::Spec(spec)) => super::tools_spec::spec_command(cli, spec),
        None => {
            say!("skilldex: `tools` without `sync` or `spec` prints skilldex's own tool definitions; that command is now `skilldex agent-tools` (same flags)");
            agent_tools_command(&args.own)
        }
    }
}

pub(super) fn agent_tools_command(args: &AgentToolsArgs) -> anyhow::Result<ExitCode> {
    let definitions = skilldex::agent_tools::definitions();
    let value = match (args.format, args.strict) {
        (ToolsFormat::Mcp, false) => skilldex::agent_tools::mcp_json(&definitions),
        (ToolsFormat::Openai, false) => skilldex::agent_tools::openai_json(&definitions),
        (ToolsFormat::Openai, true) => skilldex::agent_tools::openai_strict_json(&definitions)?,
        (ToolsFormat::Mcp, true) => {
            say!("skilldex: --strict shapes OpenAI function tools — pass it with --format openai");
            return Ok(ExitCode::from(2));
        }
    };
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, &value)?;
    out.write_all(b"\n")?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
