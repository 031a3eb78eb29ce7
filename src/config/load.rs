//! Reading the configuration: one file's text into `FileSettings` with
//! positions (`parse`, `read_file`), and the layers merged into `Settings`
//! (`load`).

use super::lists::{find_list, top_level_key};
use super::{
    ConfigError, ConfigFile, Entry, FileSettings, Layer, Origin, Settings, Sources, FILE_NAME,
};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

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
        if let Some(pinned) = &settings_of_file.pinned_tools {
            let origins = file.entries.iter().filter(|e| e.key == "pinned_tools");
            settings.pinned_tools = pinned
                .iter()
                .zip(origins)
                .map(|(pattern, entry)| super::PinnedTool {
                    pattern: pattern.trim().to_string(),
                    origin: file.origin(entry.line, entry.column),
                })
                .collect();
        }
        for (id, description) in &settings_of_file.tool_descriptions {
            let place = file.mapping_entries.iter().find(|entry| &entry.key == id);
            let (key_at, value_at) = place.map_or(((1, 1), (1, 1)), |e| (e.key_at, e.value_at));
            let id = id.trim().to_string();
            settings.tool_descriptions.retain(|d| d.id != id);
            settings.tool_descriptions.push(super::ToolDescription {
                id,
                description: description.clone(),
                origin: file.origin(key_at.0, key_at.1),
                value_origin: file.origin(value_at.0, value_at.1),
            });
        }
        if let Some(model) = settings_of_file
            .search
            .as_ref()
            .and_then(|s| s.model.as_ref())
        {
            let base = file.path.parent().unwrap_or(Path::new("."));
            settings.search_model = Some(resolve_path(model, base, sources.home.as_deref()));
        }
        let base = file.path.parent().unwrap_or(Path::new("."));
        // Highest layer first: a collection of the project is looked in
        // before the user's.
        let mut available: Vec<PathBuf> = settings_of_file
            .available
            .iter()
            .map(|a| resolve_path(a, base, sources.home.as_deref()))
            .collect();
        available.retain(|a| !settings.available.contains(a));
        available.append(&mut settings.available);
        settings.available = available;
        settings.declined_suggestions.extend(
            settings_of_file
                .declined_suggestions
                .iter()
                .map(|d| d.trim().to_string()),
        );
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
        check_format(value).map_err(|error| ConfigError::Environment {
            variable: "SKILLDEX_FORMAT",
            value: value.to_string(),
            message: error.to_string(),
        })?;
        settings.format = Some(value.to_string());
    }
    settings.tool_descriptions.sort_by(|a, b| a.id.cmp(&b.id));
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

/// A `format` that is not one of `FORMATS`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the format must be one of {}", FORMATS.join(", "))]
pub struct UnknownFormat;

fn check_format(value: &str) -> Result<(), UnknownFormat> {
    if FORMATS.contains(&value) {
        Ok(())
    } else {
        Err(UnknownFormat)
    }
}

fn resolve_path(text: &str, base: &Path, home: Option<&Path>) -> PathBuf {
    // A URL (an `available` index) is kept as written.
    let lower = text.get(..8).unwrap_or(text).to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") || lower.starts_with("file:") {
        return PathBuf::from(text);
    }
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
pub(super) const UNREADABLE: &str = "make it readable, or move it away";

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
    let settings = parse(&text).map_err(|error| ConfigError::Invalid {
        path: path.to_path_buf(),
        line: error.line,
        column: error.column,
        message: error.message,
    })?;
    Ok(ConfigFile {
        path: path.to_path_buf(),
        layer,
        entries: entries_of(&text, &settings),
        mapping_entries: super::lists::mapping_entries(&text, "tool_descriptions"),
        settings,
    })
}

/// The largest configuration file read: a real one is a few hundred bytes.
pub const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

pub(super) fn read_text(path: &Path, hint: &'static str) -> Result<String, ConfigError> {
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
        (
            "pinned_tools",
            settings.pinned_tools.as_deref().unwrap_or_default(),
        ),
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

/// Why the text of a `skilldex.yaml` is not a configuration, and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {message}")]
pub struct ParseError {
    /// 1-based line and column.
    pub line: usize,
    pub column: usize,
    pub message: String,
}

fn at(line: usize, column: usize, message: String) -> ParseError {
    ParseError {
        line,
        column,
        message,
    }
}

/// Parse the text of a `skilldex.yaml`.
pub fn parse(text: &str) -> Result<FileSettings, ParseError> {
    if text.trim().is_empty() {
        return Ok(FileSettings::default());
    }
    crate::parse::bounds::check_flow_nesting(text)
        .map_err(|deep| at(deep.line, deep.column, deep.to_string()))?;
    let settings: FileSettings = serde_yaml_ng::from_str(text).map_err(|error| {
        let (line, column) = error.location().map_or((1, 1), |l| (l.line(), l.column()));
        let mut message = error.to_string();
        // The library appends " at line L column C"; the prefix says it.
        if let Some(cut) = message.find(" at line ") {
            message.truncate(cut);
        }
        if message.contains("unknown field") {
            message.push_str(
                " — skilldex.yaml knows roots, disabled, enabled, budget_tokens, format, pinned, pinned_tools, tool_descriptions, mcp_servers, search (with model), available, available_servers and declined_suggestions",
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
                return at(line, column, message);
            }
        }
        at(line, column, message)
    })?;
    if let Some(format) = &settings.format {
        if let Err(error) = check_format(format) {
            let (line, column) = key_position(text, "format").unwrap_or((1, 1));
            return Err(at(line, column, format!("format `{format}`: {error}")));
        }
    }
    for (key, list, what) in [
        ("disabled", &settings.disabled[..], "skill names"),
        ("enabled", &settings.enabled[..], "skill names"),
        (
            "pinned_tools",
            settings.pinned_tools.as_deref().unwrap_or_default(),
            "tool ids such as `server/tool`",
        ),
    ] {
        if list.iter().any(|name| name.trim().is_empty()) {
            let (line, column) = key_position(text, key).unwrap_or((1, 1));
            return Err(at(
                line,
                column,
                format!("`{key}` holds an empty name — list {what}"),
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

/// The servers of the configuration files, lowest layer first: a higher
/// layer's entry replaces a lower one's of the same name.
pub fn configured_servers(files: &[ConfigFile]) -> Vec<crate::toolcat::servers::ConfiguredServer> {
    servers_by_name(files, |settings| &settings.mcp_servers)
}

/// The servers offered for installation (`available_servers`) of the
/// configuration files: a higher layer's entry replaces a lower one's.
pub fn available_servers(files: &[ConfigFile]) -> Vec<crate::toolcat::servers::ConfiguredServer> {
    servers_by_name(files, |settings| &settings.available_servers)
}

/// One list of servers of every layer, by name, the highest layer's entry
/// kept, each with the file it came from.
fn servers_by_name(
    files: &[ConfigFile],
    list: impl Fn(
        &FileSettings,
    ) -> &std::collections::BTreeMap<String, crate::toolcat::servers::ServerConfig>,
) -> Vec<crate::toolcat::servers::ConfiguredServer> {
    let mut by_name = std::collections::BTreeMap::new();
    for file in files {
        for (name, config) in list(&file.settings) {
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
        let ParseError {
            line,
            column,
            message,
        } = parse("roots: [a]\nbudget_tokens: many\n").unwrap_err();
        assert_eq!((line, column), (2, 16), "{message}");
        let ParseError { line, message, .. } = parse("roots: [a]\ncolour: red\n").unwrap_err();
        assert_eq!(line, 2);
        assert!(message.contains("unknown field `colour`"), "{message}");
        let ParseError { line, message, .. } = parse("roots: [a]\nformat: html\n").unwrap_err();
        assert_eq!(line, 2);
        assert!(message.contains("markdown"), "{message}");
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
    fn tool_settings_know_where_they_are_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("skilldex.yaml");
        std::fs::write(
            &path,
            "pinned_tools:\n  - lab/echo\n  - notes/*\ntool_descriptions:\n  # why\n  lab/echo: Say it back.\n  \"lab/x\": |\n    Two\n    lines.\nroots: [a]\n",
        )
        .unwrap();
        let sources = Sources {
            explicit: Some(path.clone()),
            ..Sources::default()
        };
        let settings = load(&sources).unwrap();
        let at = |l, c| format!("{}:{l}:{c}", path.display());
        let pinned: Vec<(String, &str)> = settings
            .pinned_tools
            .iter()
            .map(|p| (p.origin.to_string(), p.pattern.as_str()))
            .collect();
        assert_eq!(pinned, [(at(2, 5), "lab/echo"), (at(3, 5), "notes/*")]);
        let described: Vec<(String, String, &str, &str)> = settings
            .tool_descriptions
            .iter()
            .map(|d| {
                (
                    d.origin.to_string(),
                    d.value_origin.to_string(),
                    d.id.as_str(),
                    d.description.as_str(),
                )
            })
            .collect();
        assert_eq!(
            described,
            [
                (at(6, 3), at(6, 13), "lab/echo", "Say it back."),
                (at(7, 3), at(7, 12), "lab/x", "Two\nlines.\n"),
            ]
        );
        // Not skill names: never reported as unknown skills.
        assert!(settings.unknown_names(|_| false).is_empty());
    }

    #[test]
    fn a_duplicate_key_is_reported_where_it_repeats() {
        let ParseError {
            line,
            column,
            message,
        } = parse("disabled: [a]\nroots: [x]\ndisabled: [b]\n").unwrap_err();
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
