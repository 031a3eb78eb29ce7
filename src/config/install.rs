//! Edits for install requests: a server offered under `available_servers`
//! added to the same file's `mcp_servers`, and a suggestion the user
//! declined with "always" appended to `declined_suggestions`. Like every
//! edit of this module they keep every other byte of the file (comments,
//! layout, its mode, a symlink) and are checked by parsing the result.

use super::edit::{append_entry, edit_file, EditError};
use super::lists::{top_level_key, yaml_scalar};
use super::load::parse;
use super::{ConfigError, Settings};
use crate::toolcat::servers::{ConfiguredServer, ServerConfig};
use std::path::PathBuf;

/// The key a suggestion is remembered under in `declined_suggestions`:
/// `ACTION:TYPE:ID` (`install:skill:pdf-tools`, `enable:mcp_server:lab`).
pub fn suggestion_key(action: &str, tool_type: &str, id: &str) -> String {
    format!("{action}:{tool_type}:{id}")
}

/// Remember for good that the user declined the suggestion `key`: it is
/// appended to `declined_suggestions` of the highest configuration file
/// read (the `--config` file, else the project's, else the user's).
/// Returns that file, or `None` when no file is in use (the decline then
/// lasts for the session only).
pub fn persist_decline(settings: &Settings, key: &str) -> Result<Option<PathBuf>, ConfigError> {
    let Some(file) = settings.files.last() else {
        return Ok(None);
    };
    edit_file(&file.path, |text| decline_in_text(text, key))?;
    Ok(Some(file.path.clone()))
}

/// `text` with `key` appended to its `declined_suggestions` list (in the
/// list's style, or as a new line at the end); unchanged when the list
/// already holds it.
pub fn decline_in_text(text: &str, key: &str) -> Result<String, EditError> {
    let before = parse(text)?;
    if before.declined_suggestions.iter().any(|d| d.trim() == key) {
        return Ok(text.to_string());
    }
    let mut expected = before;
    expected.declined_suggestions.push(key.to_string());
    let out =
        append_entry(text, "declined_suggestions", key).ok_or_else(|| EditError::NotEditable {
            key: "declined_suggestions",
            what: format!("add `{key}` to it"),
        })?;
    if parse(&out).ok().as_ref() == Some(&expected) {
        Ok(out)
    } else {
        Err(EditError::WouldChangeOtherSettings)
    }
}

/// Install the offered server `server` (an `available_servers` entry):
/// add it to `mcp_servers` of the file that offers it. Returns that file.
pub fn persist_server_install(server: &ConfiguredServer) -> Result<PathBuf, ConfigError> {
    let path = &server.source;
    edit_file(path, |text| {
        add_server_in_text(text, &server.name, &server.config)
    })?;
    Ok(path.clone())
}

/// `text` with the server `name` added to its `mcp_servers` block (after
/// its last entry, indented like the others), or with a new `mcp_servers:`
/// block at the end. Unchanged when `mcp_servers` already has `name`
/// configured the same way; an error when it has it otherwise, or when
/// `mcp_servers` is written as a flow mapping (`{…}`).
pub fn add_server_in_text(
    text: &str,
    name: &str,
    config: &ServerConfig,
) -> Result<String, EditError> {
    let before = parse(text)?;
    let mut expected = before.clone();
    match before.mcp_servers.get(name) {
        Some(existing) if existing == config => return Ok(text.to_string()),
        Some(_) => {
            return Err(EditError::NotEditable {
                key: "mcp_servers",
                what: format!("`mcp_servers` already has a different `{name}`: rename one"),
            })
        }
        None => {}
    }
    expected
        .mcp_servers
        .insert(name.to_string(), config.clone());
    let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let not_editable = || EditError::NotEditable {
        key: "mcp_servers",
        what: format!("add `{name}` to it"),
    };
    // Where the top-level `mcp_servers:` key is, by line.
    let lines: Vec<(usize, &str)> = {
        let mut start = 0;
        text.split_inclusive('\n')
            .map(|line| {
                let at = start;
                start += line.len();
                (at, line)
            })
            .collect()
    };
    let key_line = lines
        .iter()
        .position(|(_, line)| top_level_key(line) == Some("mcp_servers"));
    let out = match key_line {
        None => {
            let mut out = text.to_string();
            if !out.is_empty() && !out.ends_with('\n') {
                out.push_str(newline);
            }
            out.push_str(&format!("mcp_servers:{newline}"));
            out.push_str(&server_lines(name, config, "  ", "    ", newline));
            out
        }
        Some(index) => {
            let (_, key_text) = lines[index];
            let after = key_text.split_once(':').map_or("", |(_, rest)| rest);
            let value = after.split('#').next().unwrap_or("").trim();
            if !value.is_empty() {
                return Err(not_editable());
            }
            // The block: the lines after the key up to the next line at
            // column 1 that is not blank or a comment.
            let mut last_content = index;
            let mut child = None;
            let mut grandchild = None;
            for (i, (_, line)) in lines.iter().enumerate().skip(index + 1) {
                let bare = line.trim_end_matches(['\n', '\r']);
                let trimmed = bare.trim_start();
                if trimmed.is_empty() || trimmed.starts_with('#') {
                    continue;
                }
                let indent = &bare[..bare.len() - trimmed.len()];
                if indent.is_empty() {
                    break;
                }
                if indent.contains('\t') {
                    return Err(not_editable());
                }
                match child {
                    None => child = Some(indent.to_string()),
                    Some(ref c) if indent.len() > c.len() && grandchild.is_none() => {
                        grandchild = Some(indent.to_string())
                    }
                    _ => {}
                }
                last_content = i;
            }
            let child = child.unwrap_or_else(|| "  ".to_string());
            let grandchild = grandchild.unwrap_or_else(|| format!("{child}{child}"));
            let (at, line) = lines[last_content];
            let mut out = text.to_string();
            let mut insert = server_lines(name, config, &child, &grandchild, newline);
            if !line.ends_with('\n') {
                insert.insert_str(0, newline);
            }
            out.insert_str(at + line.len(), &insert);
            out
        }
    };
    match parse(&out) {
        Ok(after) if after == expected => Ok(out),
        _ => Err(EditError::WouldChangeOtherSettings),
    }
}

/// The block lines of one `mcp_servers` entry.
fn server_lines(
    name: &str,
    config: &ServerConfig,
    child: &str,
    grandchild: &str,
    newline: &str,
) -> String {
    let mut out = format!("{child}{}:{newline}", yaml_scalar(name));
    let mut field = |key: &str, value: String| {
        out.push_str(&format!("{grandchild}{key}: {value}{newline}"));
    };
    if let Some(transport) = &config.transport {
        field("type", yaml_scalar(transport));
    }
    if let Some(command) = &config.command {
        field("command", yaml_scalar(command));
    }
    if !config.args.is_empty() {
        let args: Vec<String> = config.args.iter().map(|a| yaml_scalar(a)).collect();
        field("args", format!("[{}]", args.join(", ")));
    }
    if !config.env.is_empty() {
        let env: Vec<String> = config
            .env
            .iter()
            .map(|(k, v)| format!("{}: {}", yaml_scalar(k), yaml_scalar(v)))
            .collect();
        field("env", format!("{{{}}}", env.join(", ")));
    }
    if let Some(cwd) = &config.cwd {
        field("cwd", yaml_scalar(cwd));
    }
    if let Some(url) = &config.url {
        field("url", yaml_scalar(url));
    }
    if let Some(timeout) = config.timeout {
        field("timeout", format!("{timeout}"));
    }
    if let Some(enabled) = config.enabled {
        field("enabled", format!("{enabled}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offered(text: &str, name: &str) -> ServerConfig {
        parse(text).unwrap().available_servers[name].clone()
    }

    #[test]
    fn an_offered_server_is_added_after_the_last_entry_keeping_every_other_byte() {
        let text = "# team\nmcp_servers:\n    lab:   # ours\n        command: python3\n        args: [lab.py]\n\n    # more later\navailable_servers:\n  notes:\n    command: \"node x\"\n    args: [notes.js, \"--port\", \"8080\"]\n    env: {TOKEN: \"a b\"}\n    timeout: 2.5\nformat: xml\n";
        let config = offered(text, "notes");
        let out = add_server_in_text(text, "notes", &config).unwrap();
        assert_eq!(
            out,
            "# team\nmcp_servers:\n    lab:   # ours\n        command: python3\n        args: [lab.py]\n    notes:\n        command: \"node x\"\n        args: [notes.js, --port, \"8080\"]\n        env: {TOKEN: \"a b\"}\n        timeout: 2.5\n\n    # more later\navailable_servers:\n  notes:\n    command: \"node x\"\n    args: [notes.js, \"--port\", \"8080\"]\n    env: {TOKEN: \"a b\"}\n    timeout: 2.5\nformat: xml\n"
        );
        assert_eq!(parse(&out).unwrap().mcp_servers["notes"], config);
        // Again: nothing changes.
        assert_eq!(add_server_in_text(&out, "notes", &config).unwrap(), out);
    }

    #[test]
    fn without_mcp_servers_a_block_is_appended_and_flow_mappings_are_refused() {
        let text = "available_servers: {notes: {command: node}}";
        let config = offered(text, "notes");
        assert_eq!(
            add_server_in_text(text, "notes", &config).unwrap(),
            "available_servers: {notes: {command: node}}\nmcp_servers:\n  notes:\n    command: node\n"
        );
        let flow =
            "mcp_servers: {lab: {command: x}}\navailable_servers: {notes: {command: node}}\n";
        let error = add_server_in_text(flow, "notes", &config).unwrap_err();
        assert!(
            error.to_string().contains("add `notes` to it by hand"),
            "{error}"
        );
        let clash = "mcp_servers:\n  notes:\n    command: other\n";
        let error = add_server_in_text(clash, "notes", &config).unwrap_err();
        assert!(error.to_string().contains("different `notes`"), "{error}");
    }

    #[test]
    fn a_declined_suggestion_is_appended_once() {
        let text = "roots: [skills]  # mine\n";
        let out = decline_in_text(text, "install:skill:pdf").unwrap();
        assert_eq!(
            out,
            "roots: [skills]  # mine\ndeclined_suggestions: [\"install:skill:pdf\"]\n"
        );
        let again = decline_in_text(&out, "enable:mcp_server:lab").unwrap();
        assert_eq!(
            again,
            "roots: [skills]  # mine\ndeclined_suggestions: [\"install:skill:pdf\", \"enable:mcp_server:lab\"]\n"
        );
        assert_eq!(decline_in_text(&again, "install:skill:pdf").unwrap(), again);
        let block = "declined_suggestions:\n  - \"install:skill:pdf\"\n";
        assert_eq!(
            decline_in_text(block, "install:skill:csv").unwrap(),
            "declined_suggestions:\n  - \"install:skill:pdf\"\n  - \"install:skill:csv\"\n"
        );
    }
}
