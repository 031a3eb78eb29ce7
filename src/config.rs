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

use serde::Deserialize;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

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
    #[error("could not edit the configuration file {}: {message} — edit it by hand", .path.display())]
    Edit { path: PathBuf, message: String },
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
    /// MCP servers `skilldex tools sync` starts (the `mcpServers` shape of
    /// `.mcp.json`); a higher layer's entry replaces a lower one's.
    #[serde(default)]
    pub mcp_servers: std::collections::BTreeMap<String, crate::toolcat::servers::ServerConfig>,
    /// `search:` settings (the semantic mode's model folder).
    #[serde(default)]
    pub search: Option<SearchFileSettings>,
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
    /// Every entry of its `roots`, `disabled` and `enabled` lists, in file
    /// order, with where it is written.
    pub entries: Vec<Entry>,
}

/// One entry of a list of a configuration file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// `roots`, `disabled` or `enabled`.
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
                if entry.key != "roots" && !is_skill(&entry.value) {
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

/// Read the files and variables of `sources` and merge them.
pub fn load(sources: &Sources) -> Result<Settings, ConfigError> {
    let mut files = Vec::new();
    match &sources.explicit {
        Some(path) => {
            let hint = if sources.explicit_from_variable {
                "check the path in SKILLDEX_CONFIG, or unset it to read ./skilldex.yaml and the user file"
            } else {
                "check the path given to --config, or leave --config out to read ./skilldex.yaml and the user file"
            };
            files.push(read_file_with_hint(path, Layer::Explicit, hint)?);
        }
        None => {
            if let Some(user) = sources.user_file().filter(|p| p.is_file()) {
                files.push(read_file(&user, Layer::User)?);
            }
            let project = sources.project_dir.join(FILE_NAME);
            if project.is_file() {
                files.push(read_file(&project, Layer::Project)?);
            }
        }
    }
    let mut settings = Settings::default();
    for file in &files {
        let settings_of_file = &file.settings;
        if let Some(roots) = &settings_of_file.roots {
            let base = file.path.parent().unwrap_or(Path::new("."));
            settings.roots = Some(
                roots
                    .iter()
                    .map(|r| resolve_path(r, base, sources.home.as_deref()))
                    .collect(),
            );
            settings.roots_origin = file
                .entries
                .iter()
                .filter(|entry| entry.key == "roots")
                .map(|entry| Origin::File {
                    path: file.path.clone(),
                    line: entry.line,
                    column: entry.column,
                })
                .collect();
        }
        apply_lists(
            &mut settings.disabled,
            &settings_of_file.disabled,
            &settings_of_file.enabled,
        );
        if settings_of_file.budget_tokens.is_some() {
            settings.budget_tokens = settings_of_file.budget_tokens;
        }
        if settings_of_file.format.is_some() {
            settings.format = settings_of_file.format.clone();
        }
        if let Some(pinned) = &settings_of_file.pinned {
            settings.pinned = pinned.clone();
        }
        if let Some(model) = settings_of_file
            .search
            .as_ref()
            .and_then(|s| s.model.as_ref())
        {
            let base = file.path.parent().unwrap_or(Path::new("."));
            settings.search_model = Some(resolve_path(model, base, sources.home.as_deref()));
        }
    }
    if let Some(value) = sources.variable("SKILLDEX_MODEL").filter(|v| !v.is_empty()) {
        settings.search_model = Some(PathBuf::from(value));
    }
    // The environment, above every file.
    if let Some(value) = sources.variable("SKILLDEX_ROOTS") {
        // Empty entries (`a::b`, a trailing `:` from `$SKILLDEX_ROOTS:x`)
        // name nothing; a variable with none but empty ones is unset.
        let roots: Vec<PathBuf> = std::env::split_paths(value)
            .filter(|p| !p.as_os_str().is_empty())
            .collect();
        if !roots.is_empty() {
            settings.roots_origin = vec![Origin::Variable("SKILLDEX_ROOTS"); roots.len()];
            settings.roots = Some(roots);
        }
    }
    let list = |value: &str| -> Vec<String> {
        value
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect()
    };
    let disabled = sources.variable("SKILLDEX_DISABLED").map(list);
    let enabled = sources.variable("SKILLDEX_ENABLED").map(list);
    if disabled.is_some() || enabled.is_some() {
        let (disabled, enabled) = (disabled.unwrap_or_default(), enabled.unwrap_or_default());
        settings.disabled_by_environment = disabled.iter().cloned().collect();
        settings.enabled_by_environment = enabled.iter().cloned().collect();
        apply_lists(&mut settings.disabled, &disabled, &enabled);
    }
    if let Some(value) = sources.variable("SKILLDEX_BUDGET_TOKENS") {
        settings.budget_tokens =
            Some(value.trim().parse().map_err(|_| ConfigError::Environment {
                variable: "SKILLDEX_BUDGET_TOKENS",
                value: value.to_string(),
                message: "expected a whole number of tokens, such as 2000".to_string(),
            })?);
    }
    if let Some(value) = sources.variable("SKILLDEX_FORMAT") {
        check_format(value).map_err(|message| ConfigError::Environment {
            variable: "SKILLDEX_FORMAT",
            value: value.to_string(),
            message,
        })?;
        settings.format = Some(value.to_string());
    }
    settings.files = files;
    Ok(settings)
}

fn apply_lists(set: &mut BTreeSet<String>, disabled: &[String], enabled: &[String]) {
    for name in disabled {
        set.insert(name.trim().to_string());
    }
    for name in enabled {
        set.remove(name.trim());
    }
}

/// The formats `render --format` accepts.
pub const FORMATS: &[&str] = &["markdown", "xml", "json", "agents-md"];

fn check_format(value: &str) -> Result<(), String> {
    if FORMATS.contains(&value) {
        Ok(())
    } else {
        Err(format!("the format must be one of {}", FORMATS.join(", ")))
    }
}

fn resolve_path(text: &str, base: &Path, home: Option<&Path>) -> PathBuf {
    if let (Some(rest), Some(home)) = (text.strip_prefix("~/"), home) {
        return home.join(rest);
    }
    if text == "~" {
        if let Some(home) = home {
            return home.to_path_buf();
        }
    }
    let path = Path::new(text);
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    }
}

/// What to do when a file that exists cannot be read.
const UNREADABLE: &str = "make it readable, or move it away";

/// Read and check one file.
pub fn read_file(path: &Path, layer: Layer) -> Result<ConfigFile, ConfigError> {
    read_file_with_hint(path, layer, UNREADABLE)
}

fn read_file_with_hint(
    path: &Path,
    layer: Layer,
    hint: &'static str,
) -> Result<ConfigFile, ConfigError> {
    let text = read_text(path, hint)?;
    let settings = parse(&text).map_err(|(line, column, message)| ConfigError::Invalid {
        path: path.to_path_buf(),
        line,
        column,
        message,
    })?;
    Ok(ConfigFile {
        path: path.to_path_buf(),
        layer,
        entries: entries_of(&text, &settings),
        settings,
    })
}

/// The largest configuration file read: a real one is a few hundred bytes.
pub const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

fn read_text(path: &Path, hint: &'static str) -> Result<String, ConfigError> {
    // Opened without blocking and checked on the open file: a pipe named
    // as the config file is refused, not waited on.
    let read_error = |error| ConfigError::Read {
        path: path.to_path_buf(),
        error,
        hint,
    };
    let bytes = crate::contain::read_regular(path, MAX_CONFIG_BYTES).map_err(read_error)?;
    String::from_utf8(bytes).map_err(|_| {
        read_error(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        ))
    })
}

/// The entries of the lists of `settings` with their positions in `text`.
fn entries_of(text: &str, settings: &FileSettings) -> Vec<Entry> {
    let mut entries = Vec::new();
    for (key, values) in [
        ("roots", settings.roots.as_deref().unwrap_or_default()),
        ("disabled", &settings.disabled[..]),
        ("enabled", &settings.enabled[..]),
    ] {
        let items = find_list(text, key).ok().flatten().map(|l| l.items);
        let written = items.filter(|items| {
            items.len() == values.len() && items.iter().zip(values).all(|(i, v)| &i.value == v)
        });
        let key_at = key_position(text, key).unwrap_or((1, 1));
        for (index, value) in values.iter().enumerate() {
            let (line, column) = written
                .as_ref()
                .map_or(key_at, |items| (items[index].line, items[index].column));
            entries.push(Entry {
                key,
                value: value.clone(),
                line,
                column,
            });
        }
    }
    entries
}

/// Parse the text of a `skilldex.yaml`. Errors are (line, column, message).
pub fn parse(text: &str) -> Result<FileSettings, (usize, usize, String)> {
    if text.trim().is_empty() {
        return Ok(FileSettings::default());
    }
    crate::parse::bounds::check_flow_nesting(text)
        .map_err(|(line, column)| (line, column, crate::parse::bounds::flow_nesting_message()))?;
    let settings: FileSettings = serde_yaml_ng::from_str(text).map_err(|error| {
        let (line, column) = error.location().map_or((1, 1), |l| (l.line(), l.column()));
        let mut message = error.to_string();
        // The library appends " at line L column C"; the prefix says it.
        if let Some(cut) = message.find(" at line ") {
            message.truncate(cut);
        }
        if message.contains("unknown field") {
            message.push_str(
                " — skilldex.yaml knows roots, disabled, enabled, budget_tokens, format, pinned, mcp_servers and search (with model)",
            );
        }
        // The library has no position for a key given twice: point at the
        // second one.
        let duplicate = message
            .strip_prefix("duplicate field `")
            .and_then(|rest| rest.split_once('`'))
            .map(|(key, _)| key.to_string());
        if let Some(key) = duplicate {
            if let Some(&(line, column)) = key_positions(text, &key).get(1) {
                message.push_str(&format!(
                    " — it is first set on line {}; keep one of the two",
                    key_position(text, &key).map_or(1, |(l, _)| l)
                ));
                return (line, column, message);
            }
        }
        (line, column, message)
    })?;
    if let Some(format) = &settings.format {
        if let Err(message) = check_format(format) {
            let (line, column) = key_position(text, "format").unwrap_or((1, 1));
            return Err((line, column, format!("format `{format}`: {message}")));
        }
    }
    for (key, list) in [
        ("disabled", &settings.disabled),
        ("enabled", &settings.enabled),
    ] {
        if list.iter().any(|name| name.trim().is_empty()) {
            let (line, column) = key_position(text, key).unwrap_or((1, 1));
            return Err((
                line,
                column,
                format!("`{key}` holds an empty name — list skill names"),
            ));
        }
    }
    Ok(settings)
}

/// Line and column (1-based) of a top-level `key:`.
fn key_position(text: &str, key: &str) -> Option<(usize, usize)> {
    key_positions(text, key).first().copied()
}

/// Lines and columns (1-based) of every top-level `key:`.
fn key_positions(text: &str, key: &str) -> Vec<(usize, usize)> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| top_level_key(line) == Some(key))
        .map(|(index, _)| (index + 1, 1))
        .collect()
}

fn top_level_key(line: &str) -> Option<&str> {
    let (key, _) = line.split_once(':')?;
    let key = key.trim_end();
    let bare = key.trim_matches(|c| c == '"' || c == '\'');
    (!key.is_empty() && !line.starts_with([' ', '\t', '#', '-'])).then_some(bare)
}

/// Does a `disabled`/`enabled` entry name this skill?
pub fn names_skill(entry: &str, skill: &crate::model::Skill) -> bool {
    skill.answers_to(entry)
}

/// What persisting "enable always" changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Persisted {
    /// The files edited so that they no longer disable the skill.
    pub files: Vec<PathBuf>,
    /// True when `SKILLDEX_DISABLED` also names the skill (no file can
    /// change that).
    pub still_disabled_by_environment: bool,
}

/// Make every file in `settings` that disables `skill` stop disabling it
/// (see `enable_in_text`); nothing else in those files changes.
pub fn persist_enable(
    settings: &Settings,
    skill: &crate::model::Skill,
) -> Result<Persisted, ConfigError> {
    let mut changed = Vec::new();
    for file in &settings.files {
        if !file.settings.disabled.iter().any(|e| names_skill(e, skill)) {
            continue;
        }
        let text = read_text(&file.path, UNREADABLE)?;
        let new_text =
            enable_in_text(&text, |entry| names_skill(entry, skill)).map_err(|message| {
                ConfigError::Edit {
                    path: file.path.clone(),
                    message,
                }
            })?;
        if new_text != text {
            write_atomically(&file.path, &new_text)?;
            changed.push(file.path.clone());
        }
    }
    Ok(Persisted {
        files: changed,
        still_disabled_by_environment: settings
            .disabled_by_environment
            .iter()
            .any(|e| names_skill(e, skill)),
    })
}

/// Replace the text of the configuration file `path` the way its owner
/// set it up: through a symlink the file it points to is edited (the link
/// stays a link), its permissions are kept, and the new text is written
/// to a new file beside it and renamed over it, so a reader sees the old
/// text or the new, never half. A file with other hard links is rewritten
/// in place instead (a rename would split the links).
fn write_atomically(path: &Path, text: &str) -> Result<(), ConfigError> {
    let error = |error| ConfigError::Write {
        path: path.to_path_buf(),
        error,
    };
    let target = path.canonicalize().map_err(error)?;
    let metadata = std::fs::metadata(&target).map_err(error)?;
    #[cfg(unix)]
    let (mode, links) = {
        use std::os::unix::fs::MetadataExt;
        (metadata.mode() & 0o7777, metadata.nlink())
    };
    #[cfg(not(unix))]
    let links = 1;
    if links > 1 {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(&target)
            .map_err(error)?;
        std::io::Write::write_all(&mut file, text.as_bytes()).map_err(error)?;
        return file.sync_all().map_err(error);
    }
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temporary = target.with_file_name(format!(".{name}.skilldex-{}.tmp", std::process::id()));
    let mut options = std::fs::OpenOptions::new();
    // A new file, never one planted under that name (nor a link's target).
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, mode);
    let written = (|| {
        let mut file = options.open(&temporary)?;
        std::io::Write::write_all(&mut file, text.as_bytes())?;
        // The mode asked at creation is cut by the umask: set it again.
        file.set_permissions(metadata.permissions())?;
        file.sync_all()?;
        std::fs::rename(&temporary, &target)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written.map_err(error)
}

/// The text of a `skilldex.yaml` in which no `disabled` entry accepted by
/// `names` disables anything any more, edited the way a person would:
///
/// - `disabled: [a, b]  # note` loses just the item and its comma
///   (`[a]  # note`; the last one leaves `[]`);
/// - a block list loses just the `- item` line (the last one leaves
///   `disabled: []`);
/// - where the list is written in a way this cannot edit exactly (anchors,
///   nested values, …), the entry is appended to the file's `enabled` list
///   instead, in that list's style, or as a new `enabled: [entry]` line at
///   the end (a file's `enabled` takes away its own `disabled` entries).
///
/// Every other byte stays as it was. The result is parsed to check that
/// only the intended list changed; if not, the error says to edit by hand.
pub fn enable_in_text(text: &str, names: impl Fn(&str) -> bool) -> Result<String, String> {
    let before = parse(text).map_err(|(l, c, m)| format!("{l}:{c}: {m}"))?;
    let gone: Vec<String> = before
        .disabled
        .iter()
        .filter(|entry| names(entry))
        .cloned()
        .collect();
    if gone.is_empty() {
        return Ok(text.to_string());
    }
    let reads_as =
        |text: &str, expected: &FileSettings| parse(text).ok().as_ref() == Some(expected);
    let removed = FileSettings {
        disabled: before
            .disabled
            .iter()
            .filter(|entry| !names(entry))
            .cloned()
            .collect(),
        ..before.clone()
    };
    if let Some(out) = remove_entries(text, "disabled", &names) {
        if reads_as(&out, &removed) {
            return Ok(out);
        }
    }
    let mut expected = before;
    let mut out = text.to_string();
    for entry in gone {
        if expected.enabled.contains(&entry) {
            continue;
        }
        out = append_entry(&out, "enabled", &entry).ok_or_else(|| {
            format!(
                "neither its `disabled` list nor its `enabled` list is written in a layout skilldex can edit exactly; remove `{entry}` from `disabled`"
            )
        })?;
        expected.enabled.push(entry);
    }
    if reads_as(&out, &expected) {
        Ok(out)
    } else {
        Err("editing the `disabled` or `enabled` list would change other settings".to_string())
    }
}

/// `text` without the items of the top-level list `key` that `names`
/// accepts; `None` when the list is not written in a layout this can
/// edit exactly.
fn remove_entries(text: &str, key: &str, names: &impl Fn(&str) -> bool) -> Option<String> {
    let mut text = text.to_string();
    // One item at a time: the positions change with each removal.
    loop {
        let list = find_list(&text, key).ok()??;
        let Some(index) = list.items.iter().position(|item| names(&item.value)) else {
            return Some(text);
        };
        let item = &list.items[index];
        match list.layout {
            Layout::Flow { open, close } => {
                // The item and the separator after it; the last item takes
                // the separator before it; a lone item leaves `[]`.
                let range = if let Some(next) = list.items.get(index + 1) {
                    item.start..next.start
                } else if let Some(previous) = index.checked_sub(1).map(|i| &list.items[i]) {
                    previous.end..item.end
                } else {
                    open + 1..close
                };
                text.replace_range(range, "");
            }
            Layout::Block => {
                text.replace_range(item.line_start..item.line_end, "");
                if list.items.len() == 1 {
                    text.insert_str(list.after_colon, " []");
                }
            }
            Layout::Empty => return None,
        }
    }
}

/// `text` with `value` appended to the top-level list `key` in the style
/// the list is written in, or with a new `key: [value]` line at the end.
fn append_entry(text: &str, key: &str, value: &str) -> Option<String> {
    let scalar = yaml_scalar(value);
    let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let mut out = text.to_string();
    match find_list(text, key).ok()? {
        None => {
            if !out.is_empty() && !out.ends_with('\n') {
                out.push_str(newline);
            }
            out.push_str(&format!("{key}: [{scalar}]{newline}"));
        }
        Some(list) => match (list.layout, list.items.last()) {
            (Layout::Flow { open, close }, None) => {
                out.replace_range(open + 1..close, &scalar);
            }
            (Layout::Flow { .. }, Some(last)) => out.insert_str(last.end, &format!(", {scalar}")),
            (Layout::Block, Some(last)) => {
                // The last item's line again: same indent, same dash.
                let mut line = text[last.line_start..last.start].to_string();
                line.push_str(&scalar);
                line.push_str(newline);
                if !text[..last.line_end].ends_with('\n') {
                    line.insert_str(0, newline);
                }
                out.insert_str(last.line_end, &line);
            }
            (Layout::Empty, _) | (Layout::Block, None) => {
                out.insert_str(list.after_colon, &format!(" [{scalar}]"));
            }
        },
    }
    Some(out)
}

/// How a top-level list is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// `key: [a, b]` (possibly over several lines): byte offsets of the
    /// brackets.
    Flow { open: usize, close: usize },
    /// `key:` then `- a` lines.
    Block,
    /// `key:` with nothing after it.
    Empty,
}

/// A top-level list as written in the text.
#[derive(Debug, Clone)]
struct ListText {
    /// Byte offset just after the colon of `key:`.
    after_colon: usize,
    layout: Layout,
    items: Vec<ItemText>,
}

/// One item of a list as written.
#[derive(Debug, Clone)]
struct ItemText {
    /// The value (quotes and escapes resolved).
    value: String,
    /// Byte range of the item as written, quotes included.
    start: usize,
    end: usize,
    /// Byte range of the item's line, line break included.
    line_start: usize,
    line_end: usize,
    /// 1-based line and column of `start`.
    line: usize,
    column: usize,
}

/// A line of the text: byte offsets of its start, of the end of its
/// content (before `\r\n` or `\n`) and of its end (after them).
#[derive(Debug, Clone, Copy)]
struct LineSpan {
    start: usize,
    content_end: usize,
    end: usize,
}

fn line_spans(text: &str) -> Vec<LineSpan> {
    let mut spans = Vec::new();
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let end = start + line.len();
        let content = line.trim_end_matches('\n').trim_end_matches('\r');
        spans.push(LineSpan {
            start,
            content_end: start + content.len(),
            end,
        });
        start = end;
    }
    spans
}

/// The top-level list `key` of `text`: `Ok(None)` when the key is absent,
/// `Err(())` when its value is not a list this module can edit exactly
/// (a scalar, nested collections, anchors, aliases, tags, block scalars,
/// multi-line items).
fn find_list(text: &str, key: &str) -> Result<Option<ListText>, ()> {
    let lines = line_spans(text);
    let content = |span: &LineSpan| &text[span.start..span.content_end];
    let Some(index) = lines
        .iter()
        .position(|span| top_level_key(content(span)) == Some(key))
    else {
        return Ok(None);
    };
    let key_line = lines[index];
    let after_colon = key_line.start + content(&key_line).find(':').ok_or(())? + 1;
    let rest = &text[after_colon..key_line.content_end];
    let value_start = after_colon + (rest.len() - rest.trim_start().len());
    let column_of = |offset: usize, span: &LineSpan| text[span.start..offset].chars().count() + 1;
    if rest.trim_start().starts_with('[') {
        let (close, found) = scan_flow(text, value_start)?;
        let mut items = Vec::new();
        for (start, end) in found {
            let line = lines.partition_point(|span| span.end <= start);
            let span = lines[line];
            items.push(ItemText {
                value: decode_scalar(&text[start..end])?,
                start,
                end,
                line_start: span.start,
                line_end: span.end,
                line: line + 1,
                column: column_of(start, &span),
            });
        }
        // After `]`: nothing but a comment.
        let close_line = lines[lines.partition_point(|span| span.end <= close)];
        let after = text[close + 1..close_line.content_end].trim_start();
        if !(after.is_empty() || after.starts_with('#')) {
            return Err(());
        }
        return Ok(Some(ListText {
            after_colon,
            layout: Layout::Flow {
                open: value_start,
                close,
            },
            items,
        }));
    }
    if !(rest.trim().is_empty() || rest.trim_start().starts_with('#')) {
        return Err(());
    }
    // A block list: `- item` lines at one indentation, with blank lines
    // and comments between them; it ends at the next line at column 0.
    let mut items = Vec::new();
    let mut indent = None;
    for (line, span) in lines.iter().enumerate().skip(index + 1) {
        let line_text = content(span);
        let body = line_text.trim_start_matches(' ');
        let spaces = line_text.len() - body.len();
        if body.trim().is_empty() || body.starts_with('#') {
            continue;
        }
        let Some(after_dash) = body
            .strip_prefix('-')
            .filter(|after| after.starts_with([' ', '\t']))
        else {
            if spaces > 0 || body == "-" {
                return Err(()); // an item continued or a nested value
            }
            break;
        };
        if *indent.get_or_insert(spaces) != spaces {
            return Err(());
        }
        let value = after_dash.trim_start();
        let start = span.content_end - value.len();
        let end = start + scalar_length(value)?;
        let after = text[end..span.content_end].trim_start();
        if end == start || !(after.is_empty() || after.starts_with('#')) {
            return Err(());
        }
        items.push(ItemText {
            value: decode_scalar(&text[start..end])?,
            start,
            end,
            line_start: span.start,
            line_end: span.end,
            line: line + 1,
            column: column_of(start, span),
        });
    }
    let layout = if items.is_empty() {
        Layout::Empty
    } else {
        Layout::Block
    };
    Ok(Some(ListText {
        after_colon,
        layout,
        items,
    }))
}

/// The items of the flow list whose `[` is at `open`: the offset of its
/// `]` and the byte range of each item.
fn scan_flow(text: &str, open: usize) -> Result<(usize, Vec<(usize, usize)>), ()> {
    let bytes = text.as_bytes();
    let mut items = Vec::new();
    // The item being read: its start and the end of its last character.
    let mut current: Option<(usize, usize)> = None;
    let mut quoted = false;
    let mut i = open + 1;
    while i < bytes.len() {
        let byte = bytes[i];
        match byte {
            b' ' | b'\t' | b'\r' | b'\n' => i += 1,
            b'#' if bytes[i - 1].is_ascii_whitespace() => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b',' | b']' => {
                match current.take() {
                    Some(item) => items.push(item),
                    None if byte == b',' => return Err(()), // `[,` or `,,`
                    None => {}                              // `[]`, or `[a,]`
                }
                quoted = false;
                if byte == b']' {
                    return Ok((i, items));
                }
                i += 1;
            }
            b'[' | b'{' | b'}' => return Err(()),
            _ if quoted => return Err(()), // text after a closing quote
            b'"' | b'\'' if current.is_none() => {
                let length = scalar_length(&text[i..])?;
                current = Some((i, i + length));
                quoted = true;
                i += length;
            }
            _ => {
                let start = current.map_or(i, |(start, _)| start);
                let char_length = text[i..].chars().next().map_or(1, char::len_utf8);
                current = Some((start, i + char_length));
                i += char_length;
            }
        }
    }
    Err(())
}

/// The length in bytes of the scalar at the start of `text` (one line of
/// a block item, or the rest of the text from a quote): up to the closing
/// quote, or for a plain scalar up to a ` #` comment or the end.
fn scalar_length(text: &str) -> Result<usize, ()> {
    let bytes = text.as_bytes();
    match bytes.first() {
        Some(b'"') => {
            let mut i = 1;
            while i < bytes.len() {
                match bytes[i] {
                    b'\\' => i += 2,
                    b'"' => return Ok(i + 1),
                    b'\n' => return Err(()),
                    _ => i += 1,
                }
            }
            Err(())
        }
        Some(b'\'') => {
            let mut i = 1;
            while i < bytes.len() {
                match bytes[i] {
                    b'\'' if bytes.get(i + 1) == Some(&b'\'') => i += 2,
                    b'\'' => return Ok(i + 1),
                    b'\n' => return Err(()),
                    _ => i += 1,
                }
            }
            Err(())
        }
        // Anchors, aliases, tags, block scalars, nested collections,
        // directives: not a plain name.
        Some(b'&' | b'*' | b'!' | b'|' | b'>' | b'[' | b'{' | b'%' | b'@' | b'`') | None => Err(()),
        Some(_) => {
            let end = text
                .find(" #")
                .into_iter()
                .chain(text.find("\t#"))
                .min()
                .unwrap_or(text.len());
            Ok(text[..end].trim_end().len())
        }
    }
}

/// The string a YAML scalar as written stands for.
fn decode_scalar(written: &str) -> Result<String, ()> {
    serde_yaml_ng::from_str::<String>(written).map_err(|_| ())
}

/// A YAML scalar for `text`: plain when that reads back as the same
/// string, else double-quoted.
fn yaml_scalar(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '/' | '.' | '~'))
        && !matches!(
            text,
            "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "~"
        )
        && text.parse::<f64>().is_err();
    if plain {
        text.to_string()
    } else {
        serde_json::to_string(text).unwrap_or_else(|_| format!("{text:?}"))
    }
}

/// The servers of the configuration files, lowest layer first: a higher
/// layer's entry replaces a lower one's of the same name.
pub fn configured_servers(files: &[ConfigFile]) -> Vec<crate::toolcat::servers::ConfiguredServer> {
    let mut by_name = std::collections::BTreeMap::new();
    for file in files {
        for (name, config) in &file.settings.mcp_servers {
            by_name.insert(
                name.clone(),
                crate::toolcat::servers::ConfiguredServer {
                    name: name.clone(),
                    config: config.clone(),
                    source: file.path.clone(),
                },
            );
        }
    }
    by_name.into_values().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_rewrite_edits_the_linked_file_and_keeps_its_mode_and_hard_links() {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.yaml");
        std::fs::write(&real, "disabled: [a]\n").unwrap();
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o600)).unwrap();
        let link = dir.path().join("skilldex.yaml");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_atomically(&link, "disabled: []\n").unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "disabled: []\n");
        assert_eq!(std::fs::metadata(&real).unwrap().mode() & 0o777, 0o600);
        let hard = dir.path().join("hard.yaml");
        std::fs::hard_link(&real, &hard).unwrap();
        write_atomically(&hard, "enabled: [b]\n").unwrap();
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "enabled: [b]\n");
        assert_eq!(std::fs::metadata(&hard).unwrap().nlink(), 2);
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 3, "no temporary file is left behind");
    }

    #[test]
    fn parses_every_key() {
        let settings = parse(
            "roots: [skills, ~/more]\ndisabled:\n  - pdf\nenabled: [x]\nbudget_tokens: 2000\nformat: xml\npinned: [code-review, dev/git-bisect]\n",
        )
        .unwrap();
        assert_eq!(
            settings.pinned.unwrap(),
            vec!["code-review", "dev/git-bisect"]
        );
        assert_eq!(settings.roots.unwrap(), vec!["skills", "~/more"]);
        assert_eq!(settings.disabled, vec!["pdf"]);
        assert_eq!(settings.budget_tokens, Some(2000));
        assert_eq!(settings.format.as_deref(), Some("xml"));
    }

    #[test]
    fn errors_have_positions() {
        let (line, column, message) = parse("roots: [a]\nbudget_tokens: many\n").unwrap_err();
        assert_eq!((line, column), (2, 16), "{message}");
        let (line, _, message) = parse("roots: [a]\ncolour: red\n").unwrap_err();
        assert_eq!(line, 2);
        assert!(message.contains("unknown field `colour`"), "{message}");
        let (line, _, message) = parse("roots: [a]\nformat: html\n").unwrap_err();
        assert_eq!(line, 2);
        assert!(message.contains("markdown"), "{message}");
    }

    /// `enable_in_text` for the entry `csv-cleanup` (by name or id).
    fn enable(text: &str) -> String {
        enable_in_text(text, |e| e == "csv-cleanup" || e == "data/csv-cleanup")
            .unwrap_or_else(|e| panic!("{e}\n{text}"))
    }

    #[test]
    fn enabling_edits_a_flow_list_in_place() {
        let cases = [
            // The item and its comma go; the comment stays.
            (
                "disabled: [csv-cleanup, git-bisect]  # two\n",
                "disabled: [git-bisect]  # two\n",
            ),
            (
                "# mine\ndisabled: [git-bisect, csv-cleanup, pdf]   # three\nformat: xml\n",
                "# mine\ndisabled: [git-bisect, pdf]   # three\nformat: xml\n",
            ),
            // The last item takes the comma before it.
            (
                "disabled: [git-bisect, csv-cleanup]\n",
                "disabled: [git-bisect]\n",
            ),
            // The only item leaves `[]`, comment and all.
            (
                "disabled: [csv-cleanup]  # proj\nbudget_tokens: 300\n",
                "disabled: []  # proj\nbudget_tokens: 300\n",
            ),
            ("disabled: [ csv-cleanup ]", "disabled: []"),
            // Quoted names, either quote.
            (
                "disabled: [\"csv-cleanup\", 'git-bisect']  # q\n",
                "disabled: ['git-bisect']  # q\n",
            ),
            (
                "disabled: ['git-bisect', \"data/csv-cleanup\"]\n",
                "disabled: ['git-bisect']\n",
            ),
            // Every entry naming the skill, by name or id.
            (
                "disabled: [data/csv-cleanup, pdf, csv-cleanup]\n",
                "disabled: [pdf]\n",
            ),
            // Over several lines, with a trailing comma.
            (
                "disabled: [\n  csv-cleanup,\n  pdf,\n]\nformat: xml\n",
                "disabled: [\n  pdf,\n]\nformat: xml\n",
            ),
            (
                "disabled: [csv-cleanup, pdf]\r\nformat: xml\r\n",
                "disabled: [pdf]\r\nformat: xml\r\n",
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(enable(text), expected, "from {text:?}");
        }
    }

    #[test]
    fn enabling_edits_a_block_list_in_place() {
        let cases = [
            // Just the `- item` line goes; comments and blank lines stay.
            (
                "# my config\nroots: [skills]   # keep\ndisabled:\n  - git-bisect\n  # a note\n  - csv-cleanup   # this one\n\nformat: xml\n",
                "# my config\nroots: [skills]   # keep\ndisabled:\n  - git-bisect\n  # a note\n\nformat: xml\n",
            ),
            (
                "disabled:\n- csv-cleanup\n- \"pdf\"\nformat: xml\n",
                "disabled:\n- \"pdf\"\nformat: xml\n",
            ),
            (
                "disabled:\n    - 'csv-cleanup'\n    - pdf",
                "disabled:\n    - pdf",
            ),
            // The last item leaves `disabled: []`, with the key's comment.
            (
                "# my config\ndisabled:   # off for now\n  - csv-cleanup\nbudget_tokens: 3000\n",
                "# my config\ndisabled: []   # off for now\nbudget_tokens: 3000\n",
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(enable(text), expected, "from {text:?}");
        }
    }

    #[test]
    fn enabling_lists_under_enabled_what_it_cannot_remove() {
        let cases = [
            // An anchored list: add a new `enabled` key at the end.
            (
                "disabled: &off [csv-cleanup, pdf]\nformat: xml",
                "disabled: &off [csv-cleanup, pdf]\nformat: xml\nenabled: [csv-cleanup]\n",
            ),
            // An `enabled` list already there keeps its style.
            (
                "disabled: &off [csv-cleanup]\nenabled: [pdf]  # back on\n",
                "disabled: &off [csv-cleanup]\nenabled: [pdf, csv-cleanup]  # back on\n",
            ),
            (
                "disabled: &off [csv-cleanup]\nenabled: []\n",
                "disabled: &off [csv-cleanup]\nenabled: [csv-cleanup]\n",
            ),
            (
                "disabled: &off [csv-cleanup]\nenabled:\n  - pdf   # a\nformat: xml\n",
                "disabled: &off [csv-cleanup]\nenabled:\n  - pdf   # a\n  - csv-cleanup\nformat: xml\n",
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(enable(text), expected, "from {text:?}");
        }
        // A name that needs quotes gets them.
        let out = enable_in_text("disabled: !!seq [\"yes\"]\n", |e| e == "yes").unwrap();
        assert_eq!(out, "disabled: !!seq [\"yes\"]\nenabled: [\"yes\"]\n");
        // Nothing names the skill: nothing changes.
        let text = "disabled: [pdf]  # c\n";
        assert_eq!(enable(text), text);
    }

    #[test]
    fn entries_have_positions() {
        let text =
            "# c\nroots: [a, \"b\"]\ndisabled:\n  - pdf\n  -   'x y'  # z\nenabled: &q [q]\n";
        let settings = parse(text).unwrap();
        let entries = entries_of(text, &settings);
        let entries: Vec<(&str, &str, usize, usize)> = entries
            .iter()
            .map(|e| (e.key, e.value.as_str(), e.line, e.column))
            .collect();
        assert_eq!(
            entries,
            [
                ("roots", "a", 2, 9),
                ("roots", "b", 2, 12),
                ("disabled", "pdf", 4, 5),
                ("disabled", "x y", 5, 7),
                // An anchor: the key's position.
                ("enabled", "q", 6, 1),
            ]
        );
    }

    #[test]
    fn a_duplicate_key_is_reported_where_it_repeats() {
        let (line, column, message) =
            parse("disabled: [a]\nroots: [x]\ndisabled: [b]\n").unwrap_err();
        assert_eq!((line, column), (3, 1), "{message}");
        assert!(message.contains("duplicate field `disabled`"), "{message}");
        assert!(message.contains("line 1"), "{message}");
    }

    #[test]
    fn unknown_names_say_where_they_are() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("skilldex.yaml");
        std::fs::write(&path, "disabled: [pdf, pfd]\nenabled:\n  - csv\n").unwrap();
        let sources = Sources {
            explicit: Some(path.clone()),
            variables: vec![("SKILLDEX_ENABLED".into(), "zip".into())],
            ..Sources::default()
        };
        let settings = load(&sources).unwrap();
        let unknown = settings.unknown_names(|name| name == "pdf");
        let found: Vec<(String, &str, &str)> = unknown
            .iter()
            .map(|u| (u.origin.to_string(), u.key, u.name.as_str()))
            .collect();
        let at = |l, c| format!("{}:{l}:{c}", path.display());
        assert_eq!(
            found,
            [
                (at(1, 17), "disabled", "pfd"),
                (at(3, 5), "enabled", "csv"),
                ("SKILLDEX_ENABLED".to_string(), "enabled", "zip"),
            ]
        );
    }

    #[test]
    fn roots_know_where_they_come_from() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("skilldex.yaml");
        std::fs::write(&path, "roots: [one, two]\n").unwrap();
        let mut sources = Sources {
            explicit: Some(path.clone()),
            ..Sources::default()
        };
        let settings = load(&sources).unwrap();
        assert_eq!(
            settings.roots_origin,
            [
                Origin::File {
                    path: path.clone(),
                    line: 1,
                    column: 9
                },
                Origin::File {
                    path: path.clone(),
                    line: 1,
                    column: 14
                }
            ]
        );
        sources.variables = vec![("SKILLDEX_ROOTS".into(), "a:b".into())];
        let settings = load(&sources).unwrap();
        assert_eq!(
            settings.roots_origin,
            vec![Origin::Variable("SKILLDEX_ROOTS"); 2]
        );
    }

    #[test]
    fn an_unreadable_file_is_named_once_with_what_to_do() {
        let mut sources = Sources {
            explicit: Some(PathBuf::from("/nonexistent/skilldex.yaml")),
            ..Sources::default()
        };
        let message = load(&sources).unwrap_err().to_string();
        assert!(message.contains("/nonexistent/skilldex.yaml"), "{message}");
        assert!(message.contains("--config"), "{message}");
        sources.explicit_from_variable = true;
        let message = load(&sources).unwrap_err().to_string();
        assert!(message.contains("SKILLDEX_CONFIG"), "{message}");
        let error = load(&sources).unwrap_err();
        assert!(
            std::error::Error::source(&error).is_none(),
            "the I/O error is in the message only, so it is printed once"
        );
    }

    #[test]
    fn layers_accumulate() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let project = dir.path().join("project");
        std::fs::create_dir_all(home.join(".config/skilldex")).unwrap();
        std::fs::create_dir_all(&project).unwrap();
        std::fs::write(
            home.join(".config/skilldex/skilldex.yaml"),
            "disabled: [a, b]\nformat: xml\nroots: [~/s]\n",
        )
        .unwrap();
        std::fs::write(
            project.join("skilldex.yaml"),
            "enabled: [a]\ndisabled: [c]\nroots: [local]\n",
        )
        .unwrap();
        let sources = Sources {
            project_dir: project.clone(),
            home: Some(home.clone()),
            variables: vec![
                ("SKILLDEX_DISABLED".into(), "d, e".into()),
                ("SKILLDEX_ENABLED".into(), "e".into()),
                ("SKILLDEX_BUDGET_TOKENS".into(), "900".into()),
            ],
            ..Sources::default()
        };
        let settings = load(&sources).unwrap();
        let disabled: Vec<&str> = settings.disabled.iter().map(String::as_str).collect();
        assert_eq!(disabled, ["b", "c", "d"]);
        assert_eq!(settings.roots.unwrap(), vec![project.join("local")]);
        assert_eq!(settings.format.as_deref(), Some("xml"));
        assert_eq!(settings.budget_tokens, Some(900));
        assert_eq!(settings.files.len(), 2);
    }
}
