//! Configuration: the optional `skilldex.yaml` files and `SKILLDEX_*`
//! variables, merged into one `Settings` value the CLI maps onto builders.
//!
//! Layers, lowest first: defaults, the user file
//! (`$XDG_CONFIG_HOME/skilldex/skilldex.yaml`, else
//! `~/.config/skilldex/skilldex.yaml`), the project file (`./skilldex.yaml`),
//! the environment (`SKILLDEX_ROOTS`, `SKILLDEX_DISABLED`,
//! `SKILLDEX_ENABLED`, `SKILLDEX_BUDGET_TOKENS`, `SKILLDEX_FORMAT`), then
//! command-line flags (applied by the CLI). `--config FILE` (or
//! `SKILLDEX_CONFIG`) names the one file to read instead of the user and
//! project files.
//!
//! Scalar keys (`roots`, `budget_tokens`, `format`) are taken from the
//! highest layer that sets them. `disabled` and `enabled` accumulate: each
//! layer, from the lowest, adds its `disabled` names and then takes away its
//! `enabled` names, so a project can re-enable what a user disabled.
//!
//! This module reads and writes files but never prints. A file that cannot
//! be read as a configuration is an error naming `file:line:column`: a
//! configuration silently ignored is worse than none. Rewriting (persisting
//! "enable this skill always") touches only the `disabled` list of the file
//! that disabled the skill and keeps the rest of the text as written.

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
    #[error("could not read the configuration file {}: {source} — check the path given to --config", .path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("could not write the configuration file {}: {source}", .path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
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
}

/// One configuration file that was read.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigFile {
    pub path: PathBuf,
    pub layer: Layer,
    pub settings: FileSettings,
}

/// The merged configuration (without command-line flags).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Settings {
    /// Roots from the highest layer that names them, resolved.
    pub roots: Option<Vec<PathBuf>>,
    /// Where `roots` came from, for messages.
    pub roots_source: Option<String>,
    /// The names kept out of the catalog after every layer.
    pub disabled: BTreeSet<String>,
    pub budget_tokens: Option<usize>,
    pub format: Option<String>,
    /// The files read, lowest layer first.
    pub files: Vec<ConfigFile>,
    /// Names disabled by `SKILLDEX_DISABLED` (these cannot be persisted
    /// away: no file holds them).
    pub disabled_by_environment: BTreeSet<String>,
}

/// Where to look for files and variables. `Default` is the real process
/// environment; tests fill it in by hand.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    /// `--config FILE`.
    pub explicit: Option<PathBuf>,
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
        Sources {
            explicit: explicit.or_else(|| var("SKILLDEX_CONFIG").map(PathBuf::from)),
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
        Some(path) => files.push(read_file(path, Layer::Explicit)?),
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
            settings.roots_source = Some(file.path.display().to_string());
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
    }
    // The environment, above every file.
    if let Some(value) = sources.variable("SKILLDEX_ROOTS") {
        settings.roots = Some(std::env::split_paths(value).collect());
        settings.roots_source = Some("SKILLDEX_ROOTS".to_string());
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
        let disabled = disabled.unwrap_or_default();
        settings.disabled_by_environment = disabled.iter().cloned().collect();
        apply_lists(
            &mut settings.disabled,
            &disabled,
            &enabled.unwrap_or_default(),
        );
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

/// Read and check one file.
pub fn read_file(path: &Path, layer: Layer) -> Result<ConfigFile, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let settings = parse(&text).map_err(|(line, column, message)| ConfigError::Invalid {
        path: path.to_path_buf(),
        line,
        column,
        message,
    })?;
    Ok(ConfigFile {
        path: path.to_path_buf(),
        layer,
        settings,
    })
}

/// Parse the text of a `skilldex.yaml`. Errors are (line, column, message).
pub fn parse(text: &str) -> Result<FileSettings, (usize, usize, String)> {
    if text.trim().is_empty() {
        return Ok(FileSettings::default());
    }
    let settings: FileSettings = serde_yaml_ng::from_str(text).map_err(|error| {
        let (line, column) = error.location().map_or((1, 1), |l| (l.line(), l.column()));
        let mut message = error.to_string();
        // The library appends " at line L column C"; the prefix says it.
        if let Some(cut) = message.find(" at line ") {
            message.truncate(cut);
        }
        if message.contains("unknown field") {
            message.push_str(
                " — skilldex.yaml knows roots, disabled, enabled, budget_tokens and format",
            );
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
    text.lines()
        .position(|line| top_level_key(line) == Some(key))
        .map(|index| (index + 1, 1))
}

fn top_level_key(line: &str) -> Option<&str> {
    let (key, _) = line.split_once(':')?;
    let key = key.trim_end();
    let bare = key.trim_matches(|c| c == '"' || c == '\'');
    (!key.is_empty() && !line.starts_with([' ', '\t', '#', '-'])).then_some(bare)
}

/// Does a `disabled`/`enabled` entry name this skill?
pub fn names_skill(entry: &str, skill: &crate::model::Skill) -> bool {
    let entry = entry.trim().trim_matches('/');
    entry == skill.name || entry == skill.id || entry == skill.qualified_name()
}

/// What persisting "enable always" changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Persisted {
    /// The files whose `disabled` list lost an entry.
    pub files: Vec<PathBuf>,
    /// True when `SKILLDEX_DISABLED` also names the skill (no file can
    /// change that).
    pub still_disabled_by_environment: bool,
}

/// Remove every entry naming `skill` from the `disabled` lists of the files
/// in `settings`, rewriting only that list in each file.
pub fn persist_enable(
    settings: &Settings,
    skill: &crate::model::Skill,
) -> Result<Persisted, ConfigError> {
    let mut changed = Vec::new();
    for file in &settings.files {
        if !file.settings.disabled.iter().any(|e| names_skill(e, skill)) {
            continue;
        }
        let text = std::fs::read_to_string(&file.path).map_err(|source| ConfigError::Read {
            path: file.path.clone(),
            source,
        })?;
        let kept: Vec<String> = file
            .settings
            .disabled
            .iter()
            .filter(|e| !names_skill(e, skill))
            .cloned()
            .collect();
        let new_text = rewrite_disabled(&text, &kept).map_err(|message| ConfigError::Invalid {
            path: file.path.clone(),
            line: 1,
            column: 1,
            message,
        })?;
        write_atomically(&file.path, &new_text)?;
        changed.push(file.path.clone());
    }
    Ok(Persisted {
        files: changed,
        still_disabled_by_environment: settings
            .disabled_by_environment
            .iter()
            .any(|e| names_skill(e, skill)),
    })
}

fn write_atomically(path: &Path, text: &str) -> Result<(), ConfigError> {
    let error = |source| ConfigError::Write {
        path: path.to_path_buf(),
        source,
    };
    let temporary = path.with_extension("yaml.skilldex-tmp");
    std::fs::write(&temporary, text).map_err(error)?;
    std::fs::rename(&temporary, path).map_err(error)
}

/// `text` with the value of its top-level `disabled` key replaced by
/// `names` (a block list), every other line kept byte for byte. Checked by
/// parsing the result: the other keys must read as before.
pub fn rewrite_disabled(text: &str, names: &[String]) -> Result<String, String> {
    let before = parse(text).map_err(|(l, c, m)| format!("{l}:{c}: {m}"))?;
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let start = lines
        .iter()
        .position(|line| top_level_key(line.trim_end_matches(['\n', '\r'])) == Some("disabled"));
    let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let mut block = String::from("disabled:");
    if names.is_empty() {
        block.push_str(" []");
        block.push_str(newline);
    } else {
        block.push_str(newline);
        for name in names {
            block.push_str("  - ");
            block.push_str(&yaml_scalar(name));
            block.push_str(newline);
        }
    }
    let result = match start {
        Some(start) => {
            // The value runs over the following lines that belong to it:
            // indented lines, `- ` items at column 0, and blank lines or
            // comments between them (trailing blanks and comments stay).
            let mut end = start + 1;
            let mut last_value = start + 1;
            while end < lines.len() {
                let line = lines[end].trim_end_matches(['\n', '\r']);
                if line.starts_with([' ', '\t']) && !line.trim().is_empty() {
                    if !line.trim_start().starts_with('#') {
                        last_value = end + 1;
                    }
                } else if line.starts_with("- ") || line == "-" {
                    last_value = end + 1;
                } else if !(line.trim().is_empty() || line.starts_with('#')) {
                    break;
                }
                end += 1;
            }
            let mut out = String::with_capacity(text.len() + 64);
            for line in &lines[..start] {
                out.push_str(line);
            }
            out.push_str(&block);
            for line in &lines[last_value..] {
                out.push_str(line);
            }
            out
        }
        None => {
            let mut out = text.to_string();
            if !out.is_empty() && !out.ends_with('\n') {
                out.push_str(newline);
            }
            out.push_str(&block);
            out
        }
    };
    let after = parse(&result).map_err(|(l, c, m)| {
        format!(
            "rewriting the `disabled` list would break the file ({l}:{c}: {m}); edit it by hand"
        )
    })?;
    let expected = FileSettings {
        disabled: names.to_vec(),
        ..before
    };
    if after != expected {
        return Err(
            "rewriting the `disabled` list would change other keys; edit the file by hand"
                .to_string(),
        );
    }
    Ok(result)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_key() {
        let settings = parse(
            "roots: [skills, ~/more]\ndisabled:\n  - pdf\nenabled: [x]\nbudget_tokens: 2000\nformat: xml\n",
        )
        .unwrap();
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

    #[test]
    fn rewrite_keeps_the_rest() {
        let text = "# my config\nroots: [skills]   # here\ndisabled:\n  - pdf\n  # a note\n  - docx\n\nformat: xml\n";
        let out = rewrite_disabled(text, &["docx".to_string()]).unwrap();
        assert_eq!(
            out,
            "# my config\nroots: [skills]   # here\ndisabled:\n  - docx\n\nformat: xml\n"
        );
        let out = rewrite_disabled("disabled: [a, b]\nformat: xml\n", &[]).unwrap();
        assert_eq!(out, "disabled: []\nformat: xml\n");
        let out = rewrite_disabled("disabled:\n- a\n- b\nformat: xml\n", &["b".into()]).unwrap();
        assert_eq!(out, "disabled:\n  - b\nformat: xml\n");
        let out = rewrite_disabled("format: xml", &["yes".into()]).unwrap();
        assert_eq!(out, "format: xml\ndisabled:\n  - \"yes\"\n");
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
