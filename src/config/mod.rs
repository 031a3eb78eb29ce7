//! Configuration: the optional `skilldex.yaml` files and `SKILLDEX_*`
//! variables, merged into one `Settings` value the CLI maps onto builders.
//!
//! Layers, lowest first: defaults, the user file
//! (`$XDG_CONFIG_HOME/skilldex/skilldex.yaml`, else
//! `~/.config/skilldex/skilldex.yaml`), the project file (`./skilldex.yaml`),
//! the environment (`SKILLDEX_ROOTS`, `SKILLDEX_DISABLED`,
//! `SKILLDEX_ENABLED`, `SKILLDEX_BUDGET_TOKENS`, `SKILLDEX_FORMAT`,
//! `SKILLDEX_MODEL`), then
//! command-line flags (applied by the CLI). `--config FILE` (or
//! `SKILLDEX_CONFIG`) names the one file to read instead of the user and
//! project files.
//!
//! Scalar keys (`roots`, `budget_tokens`, `format`, `search.model`, and the `pinned` list)
//! are taken from the highest layer that sets them. `disabled` and `enabled` accumulate: each
//! layer, from the lowest, adds its `disabled` names and then takes away its
//! `enabled` names, so a project can re-enable what a user disabled.
//!
//! This module reads and writes files but never prints. A file that cannot
//! be read as a configuration is an error naming `file:line:column`: a
//! configuration silently ignored is worse than none. Rewriting (persisting
//! "enable this skill always") edits the text of the file that disabled the
//! skill the way a person would: it deletes the entry from the `disabled`
//! list (one item of a `[…]` list, or one `- item` line) and keeps every
//! other byte, comments and layout included; where the list is written in a
//! way it cannot edit exactly, it lists the entry under `enabled` instead.
//! Every edit is checked by parsing the result.
//!
//! The files of this module: `load` reads and merges the layers, `edit`
//! rewrites a file in place, `lists` finds where a top-level list is
//! written in the text (both need it).

use serde::Deserialize;
use std::collections::BTreeSet;
use std::path::PathBuf;

/// The file name looked for in the current folder and the user's config
/// folder.
pub const FILE_NAME: &str = "skilldex.yaml";

/// Why the configuration could not be loaded or saved.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{}:{line}:{column}: {message}", .path.display())]
    Invalid {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    /// `error` is part of the message, not a `source`: chained, it would
    /// be printed twice.
    #[error("could not read the configuration file {}: {error} — {hint}", .path.display())]
    Read {
        path: PathBuf,
        error: std::io::Error,
        /// What to do, which depends on who named the file.
        hint: &'static str,
    },
    #[error("could not write the configuration file {}: {error} — check that its folder is writable", .path.display())]
    Write {
        path: PathBuf,
        error: std::io::Error,
    },
    /// `error` is part of the message, not a `source` (printed once).
    #[error("could not edit the configuration file {}: {error} — edit it by hand", .path.display())]
    Edit { path: PathBuf, error: EditError },
    #[error("{variable}={value:?} is not valid: {message}")]
    Environment {
        variable: &'static str,
        value: String,
        message: String,
    },
}

/// Which layer a file belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Layer {
    User,
    Project,
    /// Named with `--config` or `SKILLDEX_CONFIG`.
    Explicit,
}

/// The keys of one `skilldex.yaml`, as written.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileSettings {
    /// Skill folders, in precedence order; relative paths are relative to
    /// the file's folder, and `~/` is the home folder.
    #[serde(default)]
    pub roots: Option<Vec<String>>,
    /// Skill names, ids or qualified names (`namespace/name`) kept out of
    /// the catalog.
    #[serde(default)]
    pub disabled: Vec<String>,
    /// Names that lower layers disabled and this one enables again.
    #[serde(default)]
    pub enabled: Vec<String>,
    /// Default `--budget-tokens` for the directory.
    #[serde(default)]
    pub budget_tokens: Option<usize>,
    /// Default `--format` of `render` (markdown, xml, json, agents-md).
    #[serde(default)]
    pub format: Option<String>,
    /// Skills (names, ids or `namespace/name`) that keep their lines in a
    /// budgeted directory before any other, in this order.
    #[serde(default)]
    pub pinned: Option<Vec<String>>,
    /// Tools of the tool catalogs that `serve` lists from the first
    /// `tools/list`, before any `tool_search`, in this order: ids
    /// `server/tool`, or `server/*` (or a bare `server`) for the tools of a
    /// server.
    #[serde(default)]
    pub pinned_tools: Option<Vec<String>>,
    /// Descriptions that replace a tool's own, by id `server/tool`: what
    /// `serve`, `list`, `show` and search see. A higher layer's entry
    /// replaces a lower one's.
    #[serde(default)]
    pub tool_descriptions: std::collections::BTreeMap<String, String>,
    /// MCP servers `skilldex tools sync` starts (the `mcpServers` shape of
    /// `.mcp.json`); a higher layer's entry replaces a lower one's.
    #[serde(default)]
    pub mcp_servers: std::collections::BTreeMap<String, crate::toolcat::servers::ServerConfig>,
    /// `search:` settings (the semantic mode's model folder).
    #[serde(default)]
    pub search: Option<SearchFileSettings>,
    /// Collection folders of skills offered for installation: not part of
    /// the catalog; `request_install {type: skill, action: install}` copies
    /// a skill from one of them into the first writable root. Relative to
    /// the file's folder, `~/` is the home folder.
    #[serde(default)]
    pub available: Vec<String>,
    /// MCP servers offered for installation (the shape of `mcp_servers`):
    /// `request_install {type: mcp_server, action: install}` adds one to
    /// this file's `mcp_servers` and syncs its tools.
    #[serde(default)]
    pub available_servers:
        std::collections::BTreeMap<String, crate::toolcat::servers::ServerConfig>,
    /// Suggestions the user declined with "always"
    /// (`ACTION:TYPE:ID`, such as `install:skill:pdf-tools`): the server
    /// does not ask about them again. Delete an entry to be asked again.
    #[serde(default)]
    pub declined_suggestions: Vec<String>,
}

/// The `search:` block of a `skilldex.yaml`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchFileSettings {
    /// The sentence-transformers model folder of the semantic mode;
    /// relative to the file's folder, `~/` is the home folder.
    #[serde(default)]
    pub model: Option<String>,
}

/// One configuration file that was read.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigFile {
    pub path: PathBuf,
    pub layer: Layer,
    pub settings: FileSettings,
    /// Every entry of its `roots`, `disabled`, `enabled` and
    /// `pinned_tools` lists, in file order, with where it is written.
    pub entries: Vec<Entry>,
    /// Every entry of its `tool_descriptions`, with where its key and its
    /// value are written.
    pub mapping_entries: Vec<MappingEntry>,
}

/// One entry of a top-level mapping of a configuration file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MappingEntry {
    /// The key as the file's reader sees it (quotes removed).
    pub key: String,
    /// 1-based line and column of the key, and of its value.
    pub key_at: (usize, usize),
    pub value_at: (usize, usize),
}

impl ConfigFile {
    /// The origin of what is written at `line`:`column` of this file.
    pub fn origin(&self, line: usize, column: usize) -> Origin {
        Origin::File {
            path: self.path.clone(),
            line,
            column,
        }
    }
}

/// One entry of a list of a configuration file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// `roots`, `disabled`, `enabled` or `pinned_tools`.
    pub key: &'static str,
    /// The entry as the file's reader sees it (quotes removed).
    pub value: String,
    /// 1-based line and column of the entry (of its key when the list is
    /// written in a layout whose entries cannot be told apart).
    pub line: usize,
    pub column: usize,
}

/// Where a value of the configuration was written, for messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// An entry of a configuration file (1-based line and column).
    File {
        path: PathBuf,
        line: usize,
        column: usize,
    },
    /// A `SKILLDEX_*` variable.
    Variable(&'static str),
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::File { path, line, column } => {
                write!(f, "{}:{line}:{column}", path.display())
            }
            Origin::Variable(name) => f.write_str(name),
        }
    }
}

/// The merged configuration (without command-line flags).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Settings {
    /// Roots from the highest layer that names them, resolved.
    pub roots: Option<Vec<PathBuf>>,
    /// Where each of `roots` was written (same order and length).
    pub roots_origin: Vec<Origin>,
    /// The names kept out of the catalog after every layer.
    pub disabled: BTreeSet<String>,
    pub budget_tokens: Option<usize>,
    pub format: Option<String>,
    /// Skills that keep their lines first in a budgeted directory.
    pub pinned: Vec<String>,
    /// `pinned_tools` of the highest layer that sets it, in its order.
    pub pinned_tools: Vec<PinnedTool>,
    /// `tool_descriptions` of every layer, by id (sorted), a higher
    /// layer's entry replacing a lower one's.
    pub tool_descriptions: Vec<ToolDescription>,
    /// The files read, lowest layer first.
    pub files: Vec<ConfigFile>,
    /// Names disabled by `SKILLDEX_DISABLED` (these cannot be persisted
    /// away: no file holds them).
    pub disabled_by_environment: BTreeSet<String>,
    /// Names enabled by `SKILLDEX_ENABLED`.
    pub enabled_by_environment: BTreeSet<String>,
    /// The semantic search model folder (`search.model`, or
    /// `SKILLDEX_MODEL` above every file), resolved.
    pub search_model: Option<PathBuf>,
    /// The `available` collection folders of every file, highest layer
    /// first, resolved.
    pub available: Vec<PathBuf>,
    /// The `declined_suggestions` of every file.
    pub declined_suggestions: BTreeSet<String>,
}

/// An entry of `pinned_tools`, with where it is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PinnedTool {
    /// `server/tool`, `server/*` or `server`, as written (trimmed).
    pub pattern: String,
    pub origin: Origin,
}

/// An entry of `tool_descriptions`, with where it is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolDescription {
    /// The tool's id, `server/tool`, as written (trimmed).
    pub id: String,
    /// The description as written.
    pub description: String,
    /// Where the entry's key is written.
    pub origin: Origin,
    /// Where its value starts (the key's position when it cannot be told).
    pub value_origin: Origin,
}

/// A `disabled` or `enabled` entry that names no skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownName {
    /// `disabled` or `enabled`.
    pub key: &'static str,
    pub name: String,
    pub origin: Origin,
}

impl Settings {
    /// The `disabled` and `enabled` entries, of every file and variable,
    /// that `is_skill` does not accept: most likely misspelt, since they
    /// change nothing.
    pub fn unknown_names(&self, is_skill: impl Fn(&str) -> bool) -> Vec<UnknownName> {
        let mut unknown = Vec::new();
        for file in &self.files {
            for entry in &file.entries {
                let names_skills = matches!(entry.key, "disabled" | "enabled");
                if names_skills && !is_skill(&entry.value) {
                    unknown.push(UnknownName {
                        key: entry.key,
                        name: entry.value.clone(),
                        origin: Origin::File {
                            path: file.path.clone(),
                            line: entry.line,
                            column: entry.column,
                        },
                    });
                }
            }
        }
        for (key, variable, names) in [
            (
                "disabled",
                "SKILLDEX_DISABLED",
                &self.disabled_by_environment,
            ),
            ("enabled", "SKILLDEX_ENABLED", &self.enabled_by_environment),
        ] {
            for name in names.iter().filter(|name| !is_skill(name)) {
                unknown.push(UnknownName {
                    key,
                    name: name.clone(),
                    origin: Origin::Variable(variable),
                });
            }
        }
        unknown
    }
}

/// Where to look for files and variables. `Default` is the real process
/// environment; tests fill it in by hand.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    /// `--config FILE` (or `SKILLDEX_CONFIG`).
    pub explicit: Option<PathBuf>,
    /// True when `explicit` came from `SKILLDEX_CONFIG`, not `--config`.
    pub explicit_from_variable: bool,
    /// The folder holding the project file (normally the current folder).
    pub project_dir: PathBuf,
    /// `$HOME`.
    pub home: Option<PathBuf>,
    /// `$XDG_CONFIG_HOME`.
    pub xdg_config_home: Option<PathBuf>,
    /// `SKILLDEX_*` variables (name, value).
    pub variables: Vec<(String, String)>,
}

impl Sources {
    /// The real environment, with `explicit` from `--config`.
    pub fn from_environment(explicit: Option<PathBuf>) -> Self {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        let explicit_from_variable = explicit.is_none() && var("SKILLDEX_CONFIG").is_some();
        Sources {
            explicit: explicit.or_else(|| var("SKILLDEX_CONFIG").map(PathBuf::from)),
            explicit_from_variable,
            project_dir: std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
            home: var("HOME").map(PathBuf::from),
            xdg_config_home: var("XDG_CONFIG_HOME").map(PathBuf::from),
            variables: std::env::vars()
                .filter(|(name, _)| name.starts_with("SKILLDEX_"))
                .collect(),
        }
    }

    fn variable(&self, name: &str) -> Option<&str> {
        self.variables
            .iter()
            .rev()
            .find(|(n, v)| n == name && !v.is_empty())
            .map(|(_, v)| v.as_str())
    }

    /// The user file's path (whether or not it exists).
    pub fn user_file(&self) -> Option<PathBuf> {
        if let Some(xdg) = &self.xdg_config_home {
            return Some(xdg.join("skilldex").join(FILE_NAME));
        }
        self.home
            .as_ref()
            .map(|home| home.join(".config").join("skilldex").join(FILE_NAME))
    }
}

mod edit;
mod install;
mod lists;
mod load;

pub use edit::{names_skill, persist_enable, persist_server_enable, EditError};
pub use install::{persist_decline, persist_server_install, suggestion_key};
pub use load::{available_servers, configured_servers, load};
