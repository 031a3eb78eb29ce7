//! The directory's MCP tool servers: after the skills, a section with one
//! line per server (its description and tool count), the seeds' rule for
//! large tool sets — tools are found by search and loaded when needed.
//!
//! The server lines are reserved first: the skills are fitted to what the
//! budget leaves. When the budget still has room after the skills, the
//! servers' tools get lines too, the richest form that fits: every tool
//! with its description (shortened to one common cap, like skills'), then
//! every tool by name. Without a budget, only the server lines are shown.
//! The same catalog gives the same bytes.

use super::{shorten, Budget, Format, Reach, RenderOptions, RenderedDirectory};
use crate::catalog::Catalog;
use crate::toolcat::ToolNamespace;
use serde::Serialize;

/// One server as the directory shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ShownServer {
    pub name: String,
    pub description: String,
    pub tools: usize,
    /// How many of its tools have a line of their own.
    pub listed: usize,
}

/// What the tool section shows of the servers' tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    /// One line per server.
    Servers,
    /// And a line per tool, its name only.
    Names,
    /// And a line per tool with its description cut to this many
    /// characters (`None`: as written).
    Described(Option<usize>),
}

/// Caps tried for tool descriptions, longest first.
const CAPS: &[Option<usize>] = &[None, Some(200), Some(120), Some(80), Some(48)];

/// `rendered` (the skills' directory of `catalog`) with the servers'
/// section; `fit` renders the skills within a budget.
pub(super) fn with_tool_servers(
    catalog: &Catalog,
    options: &RenderOptions,
    fit: impl Fn(&RenderOptions) -> RenderedDirectory,
) -> RenderedDirectory {
    let servers = catalog.tool_servers();
    if servers.is_empty() {
        return fit(options);
    }
    let servers: Vec<&ToolNamespace> = servers.iter().map(|s| &**s).collect();
    let measured = |text: &str| match options.budget {
        Some(budget) => budget.cost(text),
        None => 0,
    };
    let least = section(&servers, options, Level::Servers);
    let mut inner = options.clone();
    if let Some(budget) = options.budget {
        let left = budget.limit().saturating_sub(measured(&least));
        inner.budget = Some(match budget {
            Budget::Tokens(_) => Budget::Tokens(left),
            Budget::Chars(_) => Budget::Chars(left),
        });
    }
    let mut rendered = fit(&inner);
    let mut level = Level::Servers;
    let mut text = least;
    if let Some(budget) = options.budget {
        let room = budget.limit().saturating_sub(budget.cost(&rendered.text));
        let richer = CAPS
            .iter()
            .map(|&cap| Level::Described(cap))
            .chain([Level::Names]);
        for candidate in richer {
            let candidate_text = section(&servers, options, candidate);
            if budget.cost(&candidate_text) <= room {
                level = candidate;
                text = candidate_text;
                break;
            }
        }
    }
    rendered.text.push_str(&text);
    if let Some(budget) = options.budget {
        rendered.cost = budget.cost(&rendered.text);
        rendered.fits = rendered.cost <= budget.limit();
        rendered.budget = Some(budget);
    }
    rendered.tool_servers = servers
        .iter()
        .map(|s| ShownServer {
            name: s.name.clone(),
            description: s.description.clone(),
            tools: s.tools.len(),
            listed: if level == Level::Servers {
                0
            } else {
                s.tools.len()
            },
        })
        .collect();
    rendered
}

/// The section's text for `level`, in the options' format (JSON is
/// measured as Markdown).
fn section(servers: &[&ToolNamespace], options: &RenderOptions, level: Level) -> String {
    let command = if options.command.is_empty() {
        "skilldex"
    } else {
        options.command.as_str()
    };
    let reach = match options.reach {
        Reach::Cli => format!(
            "Find a tool with `{command} search --kind tool WORDS`; `{command} tools spec SERVER/TOOL` prints its definition."
        ),
        Reach::Mcp => "Search for a tool by what it does, then load its definition to call it.".to_string(),
    };
    let count = |s: &ToolNamespace| crate::text::plural(s.tools.len(), "tool", "tools");
    let cut = |text: &str, cap: Option<usize>| match cap {
        Some(cap) => shorten(text, cap).0.into_owned(),
        None => text.to_string(),
    };
    let mut out = String::new();
    if options.format == Format::Xml {
        out.push_str("<available_tool_servers>\n");
        for s in servers {
            out.push_str(&format!(
                "<server name=\"{}\" tools=\"{}\">\n<description>{}</description>\n",
                super::escape_xml(&s.name),
                s.tools.len(),
                super::escape_xml(&s.description)
            ));
            for tool in &s.tools {
                match level {
                    Level::Servers => {}
                    Level::Names => out.push_str(&format!(
                        "<tool name=\"{}\"/>\n",
                        super::escape_xml(&tool.id)
                    )),
                    Level::Described(cap) => out.push_str(&format!(
                        "<tool name=\"{}\">{}</tool>\n",
                        super::escape_xml(&tool.id),
                        super::escape_xml(&cut(&tool.description, cap))
                    )),
                }
            }
            out.push_str("</server>\n");
        }
        out.push_str(&format!(
            "<tool_search>{}</tool_search>\n</available_tool_servers>\n",
            super::escape_xml(&reach)
        ));
        return out;
    }
    out.push_str("\n## MCP tool servers\n\n");
    out.push_str(&format!(
        "Tools of these MCP servers are available on demand. {reach}\n\n"
    ));
    for s in servers {
        let name = crate::entry::printable(&s.name);
        let description = crate::entry::printable(&s.description);
        out.push_str(&format!("- {name} ({}): {description}\n", count(s)));
        for tool in &s.tools {
            let id = crate::entry::printable(&tool.id);
            match level {
                Level::Servers => {}
                Level::Names => out.push_str(&format!("  - {id}\n")),
                Level::Described(cap) => out.push_str(&format!(
                    "  - {id}: {}\n",
                    crate::entry::printable(&cut(&tool.description, cap))
                )),
            }
        }
    }
    out
}
