//! What `skilldex.yaml` says about the tools of the tool catalogs, resolved
//! against a catalog: the tools `serve` lists from the start
//! (`pinned_tools`, and every tool whose server marks it
//! `anthropic/alwaysLoad`), and `lint`'s findings on `pinned_tools` and
//! `tool_descriptions` (an id that names no tool, a description that is
//! empty, too long, or reads as orders), each at the entry's
//! `file:line:column`.
//!
//! The descriptions themselves are applied when the catalog is built
//! (`CatalogBuilder::tool_descriptions`), so search and every command see
//! them; this module only says what is wrong with them. Every fix it
//! suggests passes its own checks: a suggested id is a tool of the
//! catalog, and "shorten it to N bytes" is within the cap.

use crate::catalog::Catalog;
use crate::config::{Origin, PinnedTool, Settings};
use crate::entry::{Code, Diagnostic};
use crate::toolcat::MAX_OVERRIDE_BYTES;

/// The most tools one `server/*` (or bare `server`) of `pinned_tools`
/// pins: a pin is for the few tools an agent needs in every session.
pub const MAX_PINNED_PER_SERVER: usize = 50;

/// The ids a `pinned_tools` pattern names in `catalog`, in the server's
/// order (at most [`MAX_PINNED_PER_SERVER`] for a whole server), and how
/// many more a whole server has. Empty when it names nothing.
pub fn resolve_pin(catalog: &Catalog, pattern: &str) -> (Vec<String>, usize) {
    let pattern = pattern.trim().trim_end_matches('/');
    let (server, tool) = match pattern.split_once('/') {
        Some((server, "*")) => (server, None),
        Some((server, tool)) => (server, Some(tool)),
        None => (pattern, None),
    };
    let Some(server) = catalog.tool_server(server) else {
        return (Vec::new(), 0);
    };
    match tool {
        Some(tool) => (
            server
                .tools
                .iter()
                .filter(|t| t.name == tool)
                .map(|t| t.id.clone())
                .collect(),
            0,
        ),
        None => {
            let ids: Vec<String> = server
                .tools
                .iter()
                .take(MAX_PINNED_PER_SERVER)
                .map(|t| t.id.clone())
                .collect();
            (
                ids,
                server.tools.len().saturating_sub(MAX_PINNED_PER_SERVER),
            )
        }
    }
}

/// Every tool listed from the start, in order: those of `pinned_tools` in
/// the order written, then the tools whose server marks them
/// `anthropic/alwaysLoad`, by server and then in the server's order. Each
/// once; none of a server `disabled` names (an `mcp_servers` entry with
/// `enabled: false`: its tools cannot be called).
pub fn pinned_ids(
    catalog: &Catalog,
    pinned: &[PinnedTool],
    disabled: &dyn Fn(&str) -> bool,
) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    let mut ids = Vec::new();
    let configured = pinned
        .iter()
        .flat_map(|p| resolve_pin(catalog, &p.pattern).0);
    let always = catalog
        .tools()
        .filter(|(_, tool)| tool.always_load)
        .map(|(_, tool)| tool.id.clone());
    for id in configured.chain(always) {
        let off = catalog
            .tool_entry(&id)
            .is_some_and(|(server, _)| disabled(&server.name));
        if !off && seen.insert(id.clone()) {
            ids.push(id);
        }
    }
    ids
}

/// The servers `settings` configures with `enabled: false`, with the file
/// of each.
pub fn disabled_servers(settings: &Settings) -> Vec<(String, std::path::PathBuf)> {
    crate::config::configured_servers(&settings.files)
        .into_iter()
        .filter(|s| s.config.enabled == Some(false))
        .map(|s| (s.name, s.source))
        .collect()
}

/// `lint`'s findings on the tool settings of the configuration.
pub fn diagnostics(catalog: &Catalog, settings: &Settings) -> Vec<Diagnostic> {
    let (pinned, descriptions) = (&settings.pinned_tools, &settings.tool_descriptions);
    let disabled = disabled_servers(settings);
    let mut out = Vec::new();
    for pin in pinned {
        let ids = resolve_pin(catalog, &pin.pattern).0;
        let server_of = |id: &String| {
            catalog
                .tool_entry(id)
                .map(|(server, _)| server.name.clone())
        };
        let off: Option<&(String, std::path::PathBuf)> = ids
            .iter()
            .filter_map(server_of)
            .next()
            .and_then(|name| disabled.iter().find(|(n, _)| *n == name));
        if let Some((server, file)) = off {
            let message = format!(
                "`pinned_tools` names `{}`, a tool of `{server}`, which `mcp_servers` disables (`enabled: false` in {}), so serve does not list it — remove the entry, or enable the server",
                pin.pattern,
                file.display()
            );
            push(&mut out, &pin.origin, "pinned-tool-disabled", message);
            continue;
        }
        if ids.is_empty() {
            let message = format!(
                "`pinned_tools` names `{}`, which matches no tool of the tool catalogs{}",
                pin.pattern,
                advice(&similar_pins(catalog, &pin.pattern))
            );
            push(&mut out, &pin.origin, "pinned-tool-unknown", message);
        }
    }
    for entry in descriptions {
        let id = entry.id.as_str();
        if catalog.tool_entry(id).is_none_or(|(_, tool)| tool.id != id) {
            // Not an id described already: that fix would give a key twice.
            let similar: Vec<String> = catalog
                .similar_tools(id, 3 + descriptions.len())
                .into_iter()
                .filter(|near| descriptions.iter().all(|d| d.id != *near))
                .take(3)
                .map(str::to_string)
                .collect();
            let message = format!(
                "`tool_descriptions` names `{id}`, which is no tool of the tool catalogs, so its description is not used{}",
                advice(&similar)
            );
            push(&mut out, &entry.origin, "tool-description-unknown", message);
        }
        let text = entry.description.trim();
        if text.is_empty() {
            let message = format!(
                "the description of `{id}` is empty, so the server's own is used — write one, or remove the entry"
            );
            push(
                &mut out,
                &entry.value_origin,
                "tool-description-empty",
                message,
            );
            continue;
        }
        if text.len() > MAX_OVERRIDE_BYTES {
            let message = format!(
                "the description of `{id}` is {} bytes; the limit is {} — shorten it to at most {} bytes (until then the first {} are used)",
                crate::text::thousands(text.len()),
                crate::text::thousands(MAX_OVERRIDE_BYTES),
                crate::text::thousands(MAX_OVERRIDE_BYTES),
                crate::text::thousands(crate::text::floor_char_boundary(text, MAX_OVERRIDE_BYTES)),
            );
            push(
                &mut out,
                &entry.value_origin,
                "tool-description-too-long",
                message,
            );
        }
        if let Some(message) = crate::rules::hidden_characters_note("description", text) {
            push(&mut out, &entry.value_origin, "control-character", message);
        }
        if let Some(why) = crate::rules::orders_to_the_model(text) {
            let message = format!(
                "the description of `{id}` reads as orders to the agent: {why} — say what the tool does and when to use it"
            );
            push(&mut out, &entry.value_origin, "prompt-injection", message);
        }
    }
    out.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    out
}

/// Ids of `catalog` close to the pattern `pattern`: tools for
/// `server/tool`, `server/*` of servers for a whole server.
fn similar_pins(catalog: &Catalog, pattern: &str) -> Vec<String> {
    let pattern = pattern.trim();
    let whole = pattern
        .strip_suffix("/*")
        .or((!pattern.contains('/')).then_some(pattern));
    match whole {
        Some(server) => {
            let key = server.to_lowercase();
            let mut scored: Vec<(usize, String)> = catalog
                .tool_servers()
                .iter()
                .map(|s| {
                    (
                        crate::text::edit_distance(&key, &s.name.to_lowercase()),
                        &s.name,
                    )
                })
                .filter(|(d, name)| *d <= 3.max(key.chars().count() / 3) || name.contains(&key))
                .map(|(d, name)| (d, format!("{name}/*")))
                .collect();
            scored.sort();
            scored.into_iter().take(3).map(|(_, id)| id).collect()
        }
        None => catalog
            .similar_tools(pattern, 3)
            .into_iter()
            .map(str::to_string)
            .collect(),
    }
}

/// " — did you mean `a`, `b`?", or how to see the tools.
fn advice(similar: &[String]) -> String {
    if similar.is_empty() {
        " — check the id (`skilldex list` shows the tools as `server/tool`)".to_string()
    } else {
        let named: Vec<String> = similar.iter().map(|id| format!("`{id}`")).collect();
        format!(" — did you mean {}?", named.join(", "))
    }
}

/// A warning at `origin` (findings of the configuration are warnings in
/// every profile, as a tool catalog's are: nothing fails to load).
fn push(out: &mut Vec<Diagnostic>, origin: &Origin, code: &'static str, message: String) {
    let Origin::File { path, line, column } = origin else {
        return;
    };
    out.push(Diagnostic {
        path: path.clone(),
        line: *line as u32,
        column: *column as u32,
        severity: crate::entry::Severity::Warning,
        code: Code::parse(code).unwrap_or(Code::tool(code)),
        message,
    });
}
