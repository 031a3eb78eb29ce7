//! `skilldex tools spec server/tool`: one catalog tool's full definition,
//! for a host that loads it now — an OpenAI Responses-API `namespace`
//! holding the function, or an MCP `tools/list` entry. The schema is the
//! sanitised one (it passes the subset validator).

use super::commands::write_json;
use super::{build, builder, Cli};
use clap::{Args, ValueEnum};
use skilldex::entry::Profile;
use skilldex::search::specs;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub(super) struct SpecArgs {
    /// The tool: `server/tool`, or a tool name only one server has.
    #[arg(required = true, num_args = 1..)]
    tools: Vec<String>,
    /// Shape of the definition.
    #[arg(long, value_enum, default_value_t = SpecFormat::Openai)]
    format: SpecFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum SpecFormat {
    /// A Responses-API `namespace` tool (the server) holding the function.
    Openai,
    /// An MCP `tools/list` entry: {name, title, description, inputSchema, annotations}.
    Mcp,
}

pub(super) fn spec_command(cli: &Cli, args: &SpecArgs) -> anyhow::Result<ExitCode> {
    let catalog = build(&cli.global, &builder(&cli.global, Profile::Spec)?)?;
    let mut found = Vec::new();
    for key in &args.tools {
        let Some((server, tool)) = catalog.tool_entry(key) else {
            let similar = catalog.similar_tools(key, 3);
            let hint = if similar.is_empty() {
                format!(
                    "find tools with `skilldex{} search --kind tool WORDS`",
                    super::commands::global_flags(&cli.global)
                )
            } else {
                format!("did you mean {}?", similar.join(", "))
            };
            say!(
                "skilldex: no tool `{}` in the catalog — {hint}",
                skilldex::entry::printable(key)
            );
            return Ok(ExitCode::from(1));
        };
        found.push((server, tool));
    }
    let value = match args.format {
        SpecFormat::Mcp => {
            // As serve lists it: pinned tools marked to stay loaded.
            let settings = super::settings(&cli.global)?;
            let disabled = skilldex::tool_settings::disabled_servers(&settings);
            let is_disabled = |name: &str| disabled.iter().any(|(d, _)| d == name);
            let pinned =
                skilldex::tool_settings::pinned_ids(&catalog, &settings.pinned_tools, &is_disabled);
            let tools: Vec<serde_json::Value> = found
                .iter()
                .map(|(_, t)| specs::mcp_tool(t, pinned.contains(&t.id)))
                .collect();
            if tools.len() == 1 {
                tools.into_iter().next().unwrap_or_default()
            } else {
                serde_json::Value::Array(tools)
            }
        }
        SpecFormat::Openai => {
            // One namespace per server, in the order first named.
            let mut groups: Vec<(&skilldex::toolcat::ToolNamespace, Vec<serde_json::Value>)> =
                Vec::new();
            for (server, tool) in &found {
                let function = specs::openai_function(tool, false);
                match groups.iter_mut().find(|(s, _)| s.name == server.name) {
                    Some((_, tools)) => tools.push(function),
                    None => groups.push((server, vec![function])),
                }
            }
            serde_json::Value::Array(
                groups
                    .into_iter()
                    .map(|(server, tools)| specs::openai_namespace(server, tools))
                    .collect(),
            )
        }
    };
    write_json(&value)?;
    Ok(ExitCode::SUCCESS)
}
