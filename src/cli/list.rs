//! `skilldex list`: the catalog as a tree of namespaces and skills with token costs.

use super::commands::*;
use super::style::Style;
use super::{build, builder, Cli, ListArgs};
use skilldex::entry::{Profile, Skill};
use skilldex::query::{self, render};
use skilldex::rules::thousands;
use skilldex::tokens;
use std::io::Write;
use std::process::ExitCode;

/// The directory line cost of each skill, as `render` prints it by
/// default: with its absolute path, however the root was spelled.
fn entry_tokens(skill: &Skill) -> usize {
    let base = std::path::Path::new("");
    let path = render::display_path(&skill.path, query::PathStyle::Absolute, base)
        .unwrap_or_else(|| skill.path.to_string_lossy().into_owned());
    tokens::count(&format!(
        "- {}: {} [{}]\n",
        skill.id,
        skill.description,
        skilldex::entry::printable(&path)
    ))
}

fn in_namespace(namespace: &str, filter: &str) -> bool {
    let filter = filter.trim_matches('/');
    filter.is_empty() || namespace == filter || namespace.starts_with(&format!("{filter}/"))
}

pub(super) fn list_command(cli: &Cli, args: &ListArgs) -> anyhow::Result<ExitCode> {
    tokens::warm_up();
    let catalog = build(&cli.global, &builder(&cli.global, Profile::Spec)?)?;
    let filter = args.namespace.as_deref().unwrap_or("");
    let servers: Vec<&skilldex::toolcat::ToolNamespace> = catalog
        .tool_servers()
        .iter()
        .map(|s| &**s)
        .filter(|s| in_namespace(&s.name, filter))
        .collect();
    if !filter.is_empty()
        && servers.is_empty()
        && !catalog
            .namespaces()
            .iter()
            .any(|n| in_namespace(&n.name, filter))
    {
        let names: Vec<&str> = catalog
            .namespaces()
            .iter()
            .map(|n| n.display_name())
            .chain(catalog.tool_servers().iter().map(|s| s.name.as_str()))
            .collect();
        say!(
            "skilldex: no namespace `{filter}` — the namespaces are: {}",
            names.join(", ")
        );
        return Ok(ExitCode::from(1));
    }
    let skills: Vec<&Skill> = catalog
        .skills()
        .iter()
        .filter(|s| in_namespace(&s.namespace, filter))
        .map(|s| &**s)
        .collect();
    let counts = count(catalog.diagnostics());
    if args.json {
        let entries: Vec<serde_json::Value> = skills
            .iter()
            .map(|s| {
                serde_json::json!({
                    "kind": "skill",
                    "id": s.id,
                    "name": s.name,
                    "namespace": s.namespace,
                    "description": s.description,
                    "path": s.path,
                    "tokens": entry_tokens(s),
                    "shadowed": s.shadowed,
                })
            })
            .collect();
        let namespaces: Vec<&skilldex::entry::Namespace> = catalog
            .namespaces()
            .iter()
            .filter(|n| in_namespace(&n.name, filter))
            .collect();
        let tools: Vec<serde_json::Value> = servers
            .iter()
            .flat_map(|server| {
                server
                    .tools
                    .iter()
                    .map(|tool| skilldex::toolcat::tool_json(server, tool, false))
            })
            .collect();
        let server_entries: Vec<serde_json::Value> = servers
            .iter()
            .map(|server| skilldex::toolcat::server_json(server, false))
            .collect();
        write_json(&serde_json::json!({
            "revision": catalog.revision(),
            "skills": entries,
            "namespaces": namespaces,
            "tools": tools,
            "servers": server_entries,
            "diagnostics": {
                "errors": counts.errors,
                "warnings": counts.warnings,
                "infos": counts.infos,
            }
        }))?;
        return Ok(ExitCode::SUCCESS);
    }
    let style = Style::stdout(cli.global.color);
    let mut out = stdout();
    let total_tokens: usize = skills.iter().map(|s| entry_tokens(s)).sum();
    let namespace_count = catalog
        .namespaces()
        .iter()
        .filter(|n| in_namespace(&n.name, filter))
        .count();
    let tool_count: usize = servers.iter().map(|s| s.tools.len()).sum();
    let tools_part = if servers.is_empty() {
        String::new()
    } else {
        format!(
            " · {} on {}",
            plural(tool_count, "tool", "tools"),
            plural(servers.len(), "MCP server", "MCP servers")
        )
    };
    writeln!(
        out,
        "{} in {} · directory ≈ {} tokens{tools_part}",
        style.bold(&plural(skills.len(), "skill", "skills")),
        plural(namespace_count, "namespace", "namespaces"),
        thousands(total_tokens)
    )?;
    let name_width = skills
        .iter()
        .map(|s| super::style::text_width(&s.id))
        .max()
        .unwrap_or(0)
        .min(40);
    // The namespaces as a tree of folders: every folder on the way to a
    // namespace is a node, so `area/team/skills` nests under `area/`.
    let namespaces: Vec<&skilldex::entry::Namespace> = catalog
        .namespaces()
        .iter()
        .filter(|n| in_namespace(&n.name, filter))
        .collect();
    let mut nodes: std::collections::BTreeSet<Vec<&str>> = std::collections::BTreeSet::new();
    for namespace in &namespaces {
        let parts: Vec<&str> = namespace
            .name
            .split('/')
            .filter(|p| !p.is_empty())
            .collect();
        for end in 0..=parts.len() {
            nodes.insert(parts[..end].to_vec());
        }
    }
    for node in &nodes {
        let name = node.join("/");
        let namespace = namespaces.iter().find(|n| n.name == name);
        let depth = node.len().saturating_sub(1);
        let indent = "  ".repeat(depth);
        if node.is_empty() && namespace.is_none() {
            continue; // No skills at the top of the roots.
        }
        writeln!(out)?;
        let label = match node.last() {
            Some(last) => format!("{}/", skilldex::entry::printable(last)),
            None => "(top level)".to_string(),
        };
        match namespace {
            Some(namespace) => writeln!(
                out,
                "{indent}{}  {}",
                style.bold(&label),
                style.dim(
                    &render::shorten(&skilldex::entry::printable(&namespace.description), 80).0
                )
            )?,
            None => {
                let below = skills
                    .iter()
                    .filter(|s| s.namespace.starts_with(&format!("{name}/")))
                    .count();
                writeln!(
                    out,
                    "{indent}{}  {}",
                    style.bold(&label),
                    style.dim(&plural(below, "skill below", "skills below"))
                )?
            }
        }
        let members: Vec<&&Skill> = skills.iter().filter(|s| s.namespace == name).collect();
        for (i, skill) in members.iter().enumerate() {
            let branch = if i + 1 == members.len() {
                "└─"
            } else {
                "├─"
            };
            let id = &skill.id;
            let pad = name_width.saturating_sub(super::style::text_width(id));
            let description = super::style::fit_width(&skill.description, 62);
            writeln!(
                out,
                "{indent}{branch} {}{}  {}  {}",
                if skill.shadowed {
                    style.yellow(id)
                } else {
                    style.cyan(id)
                },
                " ".repeat(pad),
                description,
                style.dim(&format!("{} tok", entry_tokens(skill)))
            )?;
        }
    }
    write_servers(&mut out, &style, &servers)?;
    out.flush()?;
    // The state of the catalog is a note, not part of the tree: stderr.
    if !cli.global.quiet {
        let style = Style::stderr(cli.global.color);
        if counts.errors + counts.warnings == 0 {
            say!("{}", style.green("no problems found"));
        } else {
            say!(
                "{}, {} — run `skilldex lint` for details",
                style.red(&plural(counts.errors, "error", "errors")),
                style.yellow(&plural(counts.warnings, "warning", "warnings"))
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The MCP tool servers after the skills: a line per server (its
/// description and tool count), then a line per tool.
fn write_servers(
    out: &mut impl Write,
    style: &Style,
    servers: &[&skilldex::toolcat::ToolNamespace],
) -> std::io::Result<()> {
    let printable = skilldex::entry::printable;
    for server in servers {
        writeln!(out)?;
        writeln!(
            out,
            "{}  {}",
            style.bold(&format!("{}/", printable(&server.name))),
            style.dim(&format!(
                "{} (MCP server, {})",
                render::shorten(&printable(&server.description), 70).0,
                plural(server.tools.len(), "tool", "tools")
            ))
        )?;
        let width = server
            .tools
            .iter()
            .map(|t| super::style::text_width(&t.name))
            .max()
            .unwrap_or(0)
            .min(40);
        for (i, tool) in server.tools.iter().enumerate() {
            let branch = if i + 1 == server.tools.len() {
                "└─"
            } else {
                "├─"
            };
            let pad = width.saturating_sub(super::style::text_width(&tool.name));
            writeln!(
                out,
                "{branch} {}{}  {}",
                style.cyan(&printable(&tool.name)),
                " ".repeat(pad),
                super::style::fit_width(&tool.description, 62).trim_end()
            )?;
        }
    }
    Ok(())
}
