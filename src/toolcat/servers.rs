//! The MCP servers a sync starts: `mcp_servers` of `skilldex.yaml` (the
//! `command`/`args`/`env`/`cwd` shape of `.mcp.json`'s `mcpServers`), and
//! the same entries imported from the configs users already have —
//! `.mcp.json` (Claude Code), `.cursor/mcp.json`, VS Code's
//! `.vscode/mcp.json` (`servers`), and Codex's `config.toml`
//! (`[mcp_servers.NAME]`).
//!
//! Imports read only what a stdio server needs and ignore the rest (each
//! client adds its own keys); `skilldex.yaml` is strict, like the rest of
//! that file. `${VAR}` and `${VAR:-default}` in `command`, `args`, `env`
//! and `cwd` are expanded when the server is started, so a secret can stay
//! in the environment instead of a committed file. Nothing here is ever
//! written to a snapshot.

use super::position::Positions;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One server entry as `skilldex.yaml` writes it.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerConfig {
    /// The program to start (stdio servers).
    #[serde(default)]
    pub command: Option<String>,
    #[serde(default)]
    pub args: Vec<String>,
    /// Variables added to the server's environment.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// The folder it starts in (relative to the file that names it).
    #[serde(default)]
    pub cwd: Option<String>,
    /// `stdio` (the default), or `http`/`sse` for a remote server (not
    /// synced: only stdio servers are started).
    #[serde(default, rename = "type")]
    pub transport: Option<String>,
    #[serde(default)]
    pub url: Option<String>,
    /// Seconds to wait for the whole listing (start, initialize, every
    /// page) before giving up on this server.
    #[serde(default)]
    pub timeout: Option<f64>,
    /// `false` leaves the server out of a sync.
    #[serde(default)]
    pub enabled: Option<bool>,
}

/// A server with its name and where it was configured.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfiguredServer {
    pub name: String,
    pub config: ServerConfig,
    /// The file that named it.
    pub source: PathBuf,
}

impl ConfiguredServer {
    /// The folder `cwd` is relative to (and the default `cwd`): the
    /// folder of the file that configured the server.
    pub fn base_dir(&self) -> PathBuf {
        match self.source.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
            _ => PathBuf::from("."),
        }
    }

    /// A name usable as a folder name: not empty, no `/` or `\`, not `.`
    /// or `..`, no control characters.
    pub fn check_name(&self) -> Result<(), BadServerName> {
        let name = &self.name;
        if name.is_empty()
            || name == "."
            || name == ".."
            || name.contains(['/', '\\'])
            || name.chars().any(char::is_control)
        {
            Err(BadServerName(name.clone()))
        } else {
            Ok(())
        }
    }
}

/// Why an import file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("could not read {}: {error}", .path.display())]
    Read {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{}:{line}:{column}: {message}", .path.display())]
    Invalid {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
}

/// Servers from a JSON config: `{"mcpServers": {...}}` (Claude Code,
/// Cursor) or `{"servers": {...}}` (VS Code). Entries are kept in name
/// order.
pub fn import_json(path: &Path) -> Result<Vec<ConfiguredServer>, ImportError> {
    let text = read(path)?;
    let invalid = |line: usize, column: usize, message: String| ImportError::Invalid {
        path: path.to_path_buf(),
        line,
        column,
        message,
    };
    let value: Value = serde_json::from_str(&text).map_err(|error| {
        let mut message = error.to_string();
        if let Some(cut) = message.find(" at line ") {
            message.truncate(cut);
        }
        invalid(
            error.line(),
            error.column(),
            format!("not valid JSON: {message}"),
        )
    })?;
    let positions = Positions::of(&text);
    let at = |pointer: &str, message: String| {
        let (line, column) = positions.get(pointer);
        invalid(line as usize, column as usize, message)
    };
    let (key, servers) = match (value.get("mcpServers"), value.get("servers")) {
        (Some(servers), _) => ("mcpServers", servers),
        (None, Some(servers)) => ("servers", servers),
        (None, None) => {
            return Err(at(
                "",
                "no `mcpServers` (or `servers`) object: this is not an MCP client config".into(),
            ))
        }
    };
    let Value::Object(servers) = servers else {
        return Err(at(
            &format!("/{key}"),
            format!("`{key}` must be an object of servers"),
        ));
    };
    let mut out = Vec::new();
    for (name, entry) in servers {
        let pointer = format!("/{key}/{}", name.replace('~', "~0").replace('/', "~1"));
        let Value::Object(entry) = entry else {
            return Err(at(&pointer, format!("server `{name}` must be an object")));
        };
        let string = |field: &str| -> Result<Option<String>, ImportError> {
            match entry.get(field) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(at(
                    &format!("{pointer}/{field}"),
                    format!("`{field}` of server `{name}` must be a string"),
                )),
            }
        };
        let args = match entry.get("args") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(list)) => list
                .iter()
                .map(|a| match a {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .collect(),
            Some(_) => {
                return Err(at(
                    &format!("{pointer}/args"),
                    format!("`args` of server `{name}` must be a list"),
                ))
            }
        };
        let env = match entry.get("env") {
            None | Some(Value::Null) => BTreeMap::new(),
            Some(Value::Object(map)) => map
                .iter()
                .map(|(k, v)| {
                    let v = match v {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    (k.clone(), v)
                })
                .collect(),
            Some(_) => {
                return Err(at(
                    &format!("{pointer}/env"),
                    format!("`env` of server `{name}` must be an object"),
                ))
            }
        };
        let disabled = entry.get("disabled").and_then(Value::as_bool) == Some(true);
        out.push(ConfiguredServer {
            name: name.clone(),
            config: ServerConfig {
                command: string("command")?,
                args,
                env,
                cwd: string("cwd")?,
                transport: string("type")?,
                url: string("url")?,
                timeout: entry.get("timeout").and_then(Value::as_f64),
                enabled: disabled.then_some(false),
            },
            source: path.to_path_buf(),
        });
    }
    Ok(out)
}

/// Servers from Codex's `config.toml`: every `[mcp_servers.NAME]` table
/// (`command`, `args`, `env`, `cwd`, `url`, `enabled`,
/// `startup_timeout_sec` / `startup_timeout_ms`).
pub fn import_codex_toml(path: &Path) -> Result<Vec<ConfiguredServer>, ImportError> {
    #[derive(Deserialize)]
    struct CodexFile {
        #[serde(default)]
        mcp_servers: BTreeMap<String, CodexServer>,
    }
    #[derive(Deserialize)]
    struct CodexServer {
        command: Option<String>,
        #[serde(default)]
        args: Vec<String>,
        #[serde(default)]
        env: BTreeMap<String, String>,
        cwd: Option<String>,
        url: Option<String>,
        enabled: Option<bool>,
        startup_timeout_sec: Option<f64>,
        startup_timeout_ms: Option<u64>,
    }
    let text = read(path)?;
    let file: CodexFile = toml::from_str(&text).map_err(|error| {
        let (line, column) = error
            .span()
            .map_or((1, 1), |span| line_column(&text, span.start));
        ImportError::Invalid {
            path: path.to_path_buf(),
            line,
            column,
            message: error.message().trim_end().to_string(),
        }
    })?;
    Ok(file
        .mcp_servers
        .into_iter()
        .map(|(name, server)| ConfiguredServer {
            name,
            config: ServerConfig {
                command: server.command,
                args: server.args,
                env: server.env,
                cwd: server.cwd,
                transport: server.url.as_ref().map(|_| "http".to_string()),
                url: server.url,
                timeout: server
                    .startup_timeout_sec
                    .or(server.startup_timeout_ms.map(|ms| ms as f64 / 1000.0)),
                enabled: server.enabled,
            },
            source: path.to_path_buf(),
        })
        .collect())
}

/// Import `path`, by its name: `*.toml` as Codex's config, anything else
/// as a JSON client config.
pub fn import(path: &Path) -> Result<Vec<ConfiguredServer>, ImportError> {
    if path.extension().is_some_and(|e| e == "toml") {
        import_codex_toml(path)
    } else {
        import_json(path)
    }
}

/// A server name that cannot be a folder name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("server name {0:?} cannot be a folder name — rename it (letters, digits, `-`, `_`, `.`)")]
pub struct BadServerName(pub String);

/// A `${VAR}` without a default whose variable is not set.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`${{{0}}}` is not set — export {0}, or write `${{{0}:-default}}`")]
pub struct UnsetVariable(pub String);

/// `text` with `${VAR}` and `${VAR:-default}` replaced from `lookup`; an
/// unset variable without a default is an error naming it.
pub fn expand(
    text: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<String, UnsetVariable> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return Ok(out);
        };
        let inner = &after[..end];
        let (name, default) = match inner.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (inner, None),
        };
        match (lookup(name).filter(|v| !v.is_empty()), default) {
            (Some(value), _) => out.push_str(&value),
            (None, Some(default)) => out.push_str(default),
            (None, None) => return Err(UnsetVariable(name.to_string())),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

fn read(path: &Path) -> Result<String, ImportError> {
    std::fs::read_to_string(path).map_err(|error| ImportError::Read {
        path: path.to_path_buf(),
        error,
    })
}

fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(name: &str, text: &str) -> (tempfile::TempDir, PathBuf) {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        (folder, path)
    }

    #[test]
    fn imports_mcp_json_shapes() {
        let (_keep, path) = write(
            ".mcp.json",
            r#"{"mcpServers": {
  "files": {"command": "npx", "args": ["-y", "files-server", 3], "env": {"TOKEN": "${TOKEN}", "N": 1}},
  "remote": {"type": "http", "url": "https://example.com/mcp"},
  "off": {"command": "x", "disabled": true, "alwaysAllow": []}
}}"#,
        );
        let servers = import(&path).unwrap();
        let names: Vec<&str> = servers.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["files", "off", "remote"]);
        assert_eq!(servers[0].config.args, ["-y", "files-server", "3"]);
        assert_eq!(servers[0].config.env["N"], "1");
        assert_eq!(servers[1].config.enabled, Some(false));
        assert_eq!(
            servers[2].config.url.as_deref(),
            Some("https://example.com/mcp")
        );
        let (_keep, path) = write(
            ".vscode/mcp.json",
            r#"{"servers": {"a": {"command": "a"}}}"#,
        );
        assert_eq!(import(&path).unwrap()[0].name, "a");
    }

    #[test]
    fn import_errors_have_positions() {
        let (_keep, path) = write(
            "mcp.json",
            "{\"mcpServers\": {\n  \"a\": {\"command\": 3}\n}}",
        );
        let error = import(&path).unwrap_err().to_string();
        assert!(
            error.ends_with("mcp.json:2:20: `command` of server `a` must be a string"),
            "{error}"
        );
        let (_keep, path) = write("config.toml", "[mcp_servers.a]\ncommand = [1]\n");
        let error = import(&path).unwrap_err().to_string();
        assert!(error.contains("config.toml:2:"), "{error}");
        let (_keep, path) = write("x.json", "{\"other\": 1}");
        assert!(import(&path)
            .unwrap_err()
            .to_string()
            .contains("not an MCP client config"));
    }

    #[test]
    fn imports_codex_tables() {
        let (_keep, path) = write(
            "config.toml",
            r#"model = "o3"

[mcp_servers.docs]
command = "docs-mcp"
args = ["--stdio"]
startup_timeout_sec = 20
env = { API_KEY = "${DOCS_KEY}" }

[mcp_servers.web]
url = "https://example.com/mcp"

[mcp_servers.old]
command = "old"
enabled = false
startup_timeout_ms = 1500
"#,
        );
        let servers = import(&path).unwrap();
        let names: Vec<&str> = servers.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["docs", "old", "web"]);
        assert_eq!(servers[0].config.timeout, Some(20.0));
        assert_eq!(servers[0].config.env["API_KEY"], "${DOCS_KEY}");
        assert_eq!(servers[1].config.timeout, Some(1.5));
        assert_eq!(servers[1].config.enabled, Some(false));
        assert_eq!(servers[2].config.transport.as_deref(), Some("http"));
    }

    #[test]
    fn expands_variables() {
        let lookup = |name: &str| (name == "HOME").then(|| "/h".to_string());
        assert_eq!(expand("${HOME}/x", &lookup).unwrap(), "/h/x");
        assert_eq!(expand("${NOPE:-d}-${HOME}", &lookup).unwrap(), "d-/h");
        assert!(expand("${NOPE}", &lookup)
            .unwrap_err()
            .to_string()
            .contains("export NOPE"));
        assert_eq!(expand("no vars $HOME", &lookup).unwrap(), "no vars $HOME");
    }

    #[test]
    fn names_must_be_folder_names() {
        let server = |name: &str| ConfiguredServer {
            name: name.to_string(),
            config: ServerConfig::default(),
            source: PathBuf::from("skilldex.yaml"),
        };
        assert!(server("github").check_name().is_ok());
        for bad in ["", "..", "a/b", "a\\b"] {
            assert!(server(bad).check_name().is_err(), "{bad}");
        }
    }
}
