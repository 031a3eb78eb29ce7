//! `skilldex show`: everything about one skill — metadata, outline, files.

use super::commands::*;
use super::read::{read_by_path, PathRead};
use super::style::Style;
use super::{build, builder, Cli, ShowArgs};
use anyhow::Context as _;
use skilldex::entry::Profile;
use skilldex::query::{self, render};
use skilldex::rules::thousands;
use skilldex::tokens;
use std::io::Write;
use std::process::ExitCode;

pub(super) fn show_command(cli: &Cli, args: &ShowArgs) -> anyhow::Result<ExitCode> {
    if let Some(code) = refuse_blank_name(&args.name, "show") {
        return Ok(code);
    }
    tokens::warm_up();
    let builder = builder(&cli.global, Profile::Spec)?;
    // A path shows the skill it is in, as `read` takes it.
    let (catalog, name) = match read_by_path(&cli.global, &builder, &args.name)? {
        PathRead::Found { catalog, id, .. } => (*catalog, id),
        PathRead::Refused(message, code) => {
            say!("skilldex: {message}");
            return Ok(ExitCode::from(code));
        }
        PathRead::NotAPath => (build(&cli.global, &builder)?, args.name.clone()),
    };
    let Some(skill) = catalog.get(&name) else {
        // Not a skill: a tool (`server/tool`, or a tool name only one
        // server has), or a tool server.
        if let Some((server, tool)) = catalog.tool_entry(&name) {
            return show_tool(cli, args, server, tool);
        }
        if let Some(server) = catalog.tool_server(name.trim().trim_matches('/')) {
            return show_server(cli, args, server);
        }
        if let Some(skill) = catalog.disabled_skill(&name) {
            say!(
                "skilldex: skill `{}` is disabled by configuration — {}",
                skill.id,
                skilldex::query::read::HOW_TO_ENABLE
            );
            return Ok(ExitCode::from(1));
        }
        let error = query::read::unknown_name(&catalog, &name);
        let tools = catalog.similar_tools(&name, 3);
        if !tools.is_empty() && catalog.similar(&name, 1).is_empty() {
            say!(
                "skilldex: no skill or tool `{}` — did you mean the tool {}?",
                skilldex::entry::printable(&name),
                tools.join(", ")
            );
            return Ok(ExitCode::from(1));
        }
        say!("skilldex: {error}");
        if matches!(error, query::ReadError::ParentInName { .. }) {
            return Ok(ExitCode::from(2));
        }
        return Ok(ExitCode::from(1));
    };
    let detail = query::skill_detail(&catalog, skill)
        .with_context(|| format!("reading {}", skill.path.display()))?;
    if args.json {
        write_json(&detail)?;
        return Ok(ExitCode::SUCCESS);
    }
    let style = Style::stdout(cli.global.color);
    let mut out = stdout();
    writeln!(out, "{}", style.bold(&skill.id))?;
    writeln!(out, "  {}", skill.description)?;
    writeln!(out)?;
    let mut field = |key: &str, value: &str| writeln!(out, "{:<15}{}", format!("{key}:"), value);
    field("name", &skill.name)?;
    field(
        "namespace",
        &if skill.namespace.is_empty() {
            "(top level)".into()
        } else {
            skilldex::entry::printable(&skill.namespace)
        },
    )?;
    field(
        "path",
        &skilldex::entry::printable(&skill.path.to_string_lossy()),
    )?;
    if let Some(v) = &skill.license {
        field("license", v)?;
    }
    if let Some(v) = &skill.compatibility {
        field("compatibility", v)?;
    }
    if let Some(v) = &skill.allowed_tools {
        field("allowed-tools", v)?;
    }
    for (k, v) in &skill.metadata {
        field("metadata", &format!("{k} = {v}"))?;
    }
    for (declared, resolved) in skilldex::declared::resolve(skill, &catalog) {
        field(
            "mcp tool",
            &skilldex::entry::printable(&format!(
                "{} (from {}) — {}",
                declared.id(),
                declared.declared_in,
                resolved.status(declared)
            )),
        )?;
    }
    for (k, v) in &skill.extra {
        field("extra", &format!("{k} = {v}"))?;
    }
    field(
        "body",
        &format!(
            "{} lines, {}{} tokens (from line {})",
            thousands(detail.body_lines),
            if detail.body_tokens_estimated {
                "~"
            } else {
                ""
            },
            thousands(detail.body_tokens),
            skill.body_line
        ),
    )?;
    if skill.shadowed {
        field(
            "note",
            "another skill of higher precedence has this name; use the id above",
        )?;
    }
    if !detail.headings.is_empty() {
        writeln!(out, "\n{}", style.bold("Outline"))?;
        for heading in &detail.headings {
            writeln!(
                out,
                "  {:>5}  {}{} {}",
                style.dim(&format!("L{}", heading.line)),
                "  ".repeat(usize::from(heading.level.saturating_sub(1))),
                "#".repeat(usize::from(heading.level)),
                heading.text
            )?;
        }
    }
    if !detail.links.is_empty() {
        writeln!(out, "\n{}", style.bold("Links"))?;
        for link in &detail.links {
            let mark = if link.resolves {
                style.green("ok")
            } else {
                style.red("missing")
            };
            writeln!(
                out,
                "  {:>5}  {}  {}",
                style.dim(&format!("L{}", link.line)),
                link.target,
                mark
            )?;
        }
    }
    if !detail.sub_files.is_empty() {
        writeln!(out, "\n{}", style.bold("Files"))?;
        let width = detail
            .sub_files
            .iter()
            .map(|f| f.path.chars().count())
            .max()
            .unwrap_or(0);
        for file in &detail.sub_files {
            let kind = serde_json::to_value(file.kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            let tokens = match file.tokens {
                Some(t) if file.estimated => format!("~{} tokens", thousands(t)),
                Some(t) => format!("{} tokens", thousands(t)),
                None => String::new(),
            };
            writeln!(
                out,
                "  {:<width$}  {:<12} {:>10}  {}{}",
                file.path,
                kind,
                skilldex::text::bytes(file.bytes),
                tokens,
                file.description
                    .as_deref()
                    .map(|d| format!("  {}", style.dim(&render::shorten(d, 60).0)))
                    .unwrap_or_default(),
            )?;
        }
        if detail.sub_files_truncated {
            writeln!(out, "  … more files not listed")?;
        }
    }
    if !detail.diagnostics.is_empty() {
        writeln!(out, "\n{}", style.bold("Diagnostics"))?;
        for d in &detail.diagnostics {
            writeln!(out, "  {}", diagnostic_line(d, &style))?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// `show server/tool`: the tool's entry and its sanitised input schema.
fn show_tool(
    cli: &Cli,
    args: &ShowArgs,
    server: &skilldex::toolcat::ToolNamespace,
    tool: &skilldex::toolcat::CatalogTool,
) -> anyhow::Result<ExitCode> {
    if args.json {
        write_json(&skilldex::toolcat::tool_json(server, tool, true))?;
        return Ok(ExitCode::SUCCESS);
    }
    let style = Style::stdout(cli.global.color);
    let mut out = stdout();
    let printable = skilldex::entry::printable;
    writeln!(out, "{}", style.bold(&printable(&tool.id)))?;
    writeln!(out, "  {}", printable(&tool.description))?;
    writeln!(out)?;
    let mut field = |key: &str, value: &str| writeln!(out, "{:<15}{}", format!("{key}:"), value);
    field("kind", "tool (MCP)")?;
    field("server", &printable(&server.name))?;
    if let Some(title) = &tool.title {
        field("title", &printable(title))?;
    }
    field(
        "path",
        &format!(
            "{}:{}:{}",
            printable(&server.path.to_string_lossy()),
            tool.line,
            tool.column
        ),
    )?;
    if let Some(annotations) = &tool.annotations {
        field("annotations", &annotations.to_string())?;
    }
    writeln!(out, "\n{}", style.bold("Input schema"))?;
    writeln!(
        out,
        "{}",
        serde_json::to_string_pretty(&tool.input_schema).unwrap_or_default()
    )?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// `show server`: the server's description and a line per tool.
fn show_server(
    cli: &Cli,
    args: &ShowArgs,
    server: &skilldex::toolcat::ToolNamespace,
) -> anyhow::Result<ExitCode> {
    if args.json {
        write_json(&skilldex::toolcat::server_json(server, true))?;
        return Ok(ExitCode::SUCCESS);
    }
    let style = Style::stdout(cli.global.color);
    let mut out = stdout();
    let printable = skilldex::entry::printable;
    writeln!(out, "{}", style.bold(&printable(&server.name)))?;
    writeln!(out, "  {}", printable(&server.description))?;
    writeln!(out)?;
    let mut field = |key: &str, value: &str| writeln!(out, "{:<15}{}", format!("{key}:"), value);
    field("kind", "MCP tool server")?;
    if let Some(title) = &server.title {
        field("title", &printable(title))?;
    }
    if let Some(version) = &server.version {
        field("version", &printable(version))?;
    }
    field("path", &printable(&server.path.to_string_lossy()))?;
    field("tools", &thousands(server.tools.len()))?;
    if !server.tools.is_empty() {
        writeln!(out, "\n{}", style.bold("Tools"))?;
        let width = server
            .tools
            .iter()
            .map(|t| super::style::text_width(&t.name))
            .max()
            .unwrap_or(0)
            .min(40);
        for tool in &server.tools {
            let pad = width.saturating_sub(super::style::text_width(&tool.name));
            writeln!(
                out,
                "  {}{}  {}",
                style.cyan(&printable(&tool.name)),
                " ".repeat(pad),
                super::style::fit_width(&tool.description, 70).trim_end()
            )?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
