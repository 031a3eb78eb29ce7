//! A snapshot loaded as an MCP server namespace: its tools with sanitised
//! input schemas, defaulted descriptions, and every repair as a diagnostic
//! naming the file, the tool and the JSON Pointer of the node.
//!
//! This is the value a catalog entry of kind `tool` (id `server/tool`) is
//! built from; search, render and the gateway read it and never the file.

use super::snapshot::{Reporter, SnapshotDiagnostic, SnapshotError};
use crate::entry::Severity;
use crate::schema::{self, MAX_DESCRIPTION_BYTES};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// One MCP server's tools, ready for a catalog.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolNamespace {
    /// The namespace id: the name of the folder holding the snapshot.
    pub name: String,
    /// The snapshot file.
    pub path: PathBuf,
    /// `server.name` as the server reported it, when given.
    pub server_name: Option<String>,
    pub title: Option<String>,
    /// Never empty: the server's, else the first line of its
    /// instructions, else a default naming the server.
    pub description: String,
    pub instructions: Option<String>,
    pub version: Option<String>,
    /// In file order (a written snapshot has them sorted by name).
    pub tools: Vec<CatalogTool>,
}

/// One tool of a namespace.
#[derive(Debug, Clone, PartialEq)]
pub struct CatalogTool {
    /// The tool's name as the server calls it.
    pub name: String,
    /// `namespace/name`.
    pub id: String,
    pub title: Option<String>,
    /// Never empty (≤ 1,000 bytes): the server's, else a default.
    pub description: String,
    /// Sanitised into the subset: passes [`schema::validate_subset`].
    pub input_schema: Value,
    /// `annotations` as the server gave them (hints such as `readOnlyHint`).
    pub annotations: Option<Value>,
    /// `_meta["anthropic/alwaysLoad"]` is `true`: the server asks hosts to
    /// keep the tool in the tool list, never deferred behind a search. The
    /// gateway lists it from the first `tools/list`, as if pinned.
    pub always_load: bool,
    /// `_meta["anthropic/searchHint"]`: a few words the server gives a
    /// host's tool search, whitespace collapsed, at most
    /// [`MAX_SEARCH_HINT_BYTES`]. Searched as a field of the tool, and
    /// passed on when the gateway lists the tool.
    pub search_hint: Option<String>,
    /// Where the tool's object starts in the file (1-based).
    pub line: u32,
    pub column: u32,
}

/// The `_meta` key of a tool that asks hosts never to defer it.
pub const ALWAYS_LOAD_KEY: &str = "anthropic/alwaysLoad";
/// The `_meta` key of a tool's words for a host's tool search.
pub const SEARCH_HINT_KEY: &str = "anthropic/searchHint";
/// The `_meta` object of a tool as skilldex lists it: the words a host's
/// tool search finds it by, and `anthropic/alwaysLoad` when the host must
/// never defer it. `None` when there is neither. Every tool skilldex
/// publishes — its own, the gateway's, a catalog tool loaded or printed by
/// `tools spec` — gets its `_meta` here.
pub fn hint_meta(search_hint: Option<&str>, always_load: bool) -> Option<serde_json::Value> {
    let mut meta = serde_json::Map::new();
    if let Some(hint) = search_hint {
        meta.insert(SEARCH_HINT_KEY.to_string(), hint.into());
    }
    if always_load {
        meta.insert(ALWAYS_LOAD_KEY.to_string(), true.into());
    }
    (!meta.is_empty()).then_some(serde_json::Value::Object(meta))
}

/// The longest search hint kept (a hint is a few words; a longer one is
/// cut at a character boundary).
pub const MAX_SEARCH_HINT_BYTES: usize = 200;

/// The longest description that configuration may give a tool
/// (`tool_descriptions` of `skilldex.yaml`): the cap every tool
/// description of the catalog has, so an override is held to what a
/// server's own description may be.
pub const MAX_OVERRIDE_BYTES: usize = MAX_DESCRIPTION_BYTES;

/// A configured description as the catalog uses it: trimmed and cut at a
/// character boundary to [`MAX_OVERRIDE_BYTES`]; `None` when empty.
pub fn override_text(text: &str) -> Option<String> {
    let text = text.trim();
    (!text.is_empty()).then(|| {
        schema::cut_at_char_boundary(text, MAX_OVERRIDE_BYTES)
            .trim_end()
            .to_string()
    })
}

/// How serious each sanitiser change is: `Warning` when the schema was
/// wrong or the model loses meaning (an unknown type, a ref to nothing, a
/// boolean schema, a cut description), `Info` when valid JSON Schema was
/// only brought into the subset (keywords such as `format` or `minimum`
/// dropped, `properties` added, a type inferred).
pub fn finding_severity(code: &'static str) -> Severity {
    crate::entry::Code::tool(code)
        .severity(crate::entry::Profile::Spec)
        .unwrap_or(Severity::Info)
}

/// Read the snapshot at `path` as the namespace named after its folder.
pub fn load_namespace(
    path: &Path,
) -> Result<(ToolNamespace, Vec<SnapshotDiagnostic>), SnapshotError> {
    let text = std::fs::read_to_string(path).map_err(|error| SnapshotError::Read {
        path: path.to_path_buf(),
        error,
    })?;
    load_namespace_text(path, &text)
}

/// [`load_namespace`] on the file's text, already read.
pub fn load_namespace_text(
    path: &Path,
    text: &str,
) -> Result<(ToolNamespace, Vec<SnapshotDiagnostic>), SnapshotError> {
    let (snapshot, mut diagnostics) = super::snapshot::parse_snapshot(path, text)?;
    let name = path
        .parent()
        .and_then(Path::file_name)
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "tools".to_string());
    let mut reporter = Reporter::new(path, text);
    let server = snapshot.server.clone().unwrap_or_default();
    let nonempty = |s: &Option<String>| {
        s.as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let description = match nonempty(&server.description) {
        Some(text) => cut_described(&mut reporter, None, "/server/description", &text),
        None => {
            let label = nonempty(&server.title).unwrap_or_else(|| name.clone());
            let from_instructions = nonempty(&server.instructions).and_then(|i| {
                i.lines()
                    .map(str::trim)
                    .find(|l| !l.is_empty())
                    .map(str::to_string)
            });
            let (text, source) = match from_instructions {
                Some(line) => (
                    schema::cut_at_char_boundary(&line, 200),
                    "the first line of its instructions",
                ),
                None => (
                    format!("Tools of the {label} MCP server."),
                    "a default naming it",
                ),
            };
            reporter.report(
                Severity::Info,
                "server-description-default",
                None,
                if snapshot.server.is_some() { "/server" } else { "" },
                format!(
                    "the server has no description; the catalog uses {source} — add `server.description` to the snapshot (or to the server)"
                ),
            );
            text
        }
    };
    let mut tools = Vec::new();
    for (index, tool) in &snapshot.tools {
        if let Some(entry) = load_tool(&mut reporter, &name, *index, tool) {
            tools.push(entry);
        }
    }
    diagnostics.extend(reporter.diagnostics);
    diagnostics.sort_by(|a, b| (a.line, a.column, a.code).cmp(&(b.line, b.column, b.code)));
    Ok((
        ToolNamespace {
            name,
            path: path.to_path_buf(),
            server_name: server.name,
            title: nonempty(&server.title),
            description,
            instructions: nonempty(&server.instructions),
            version: server.version,
            tools,
        },
        diagnostics,
    ))
}

fn cut_described(
    reporter: &mut Reporter<'_>,
    tool: Option<&str>,
    pointer: &str,
    text: &str,
) -> String {
    if let Some(message) = crate::rules::hidden_characters_note("description", text) {
        reporter.report(
            Severity::Warning,
            "control-character",
            tool,
            pointer,
            message,
        );
    }
    if let Some(why) = crate::rules::orders_to_the_model(text) {
        reporter.report(
            Severity::Warning,
            "prompt-injection",
            tool,
            pointer,
            format!("description reads as orders to the agent: {why} — read it before an agent loads the tool, and leave the server out if you do not trust it"),
        );
    }
    if text.len() > MAX_DESCRIPTION_BYTES {
        reporter.report(
            Severity::Warning,
            "description-cut",
            tool,
            pointer,
            format!(
                "description is {} bytes; cut to {} at a character boundary",
                crate::rules::thousands(text.len()),
                crate::rules::thousands(MAX_DESCRIPTION_BYTES)
            ),
        );
        schema::cut_at_char_boundary(text, MAX_DESCRIPTION_BYTES)
            .trim_end()
            .to_string()
    } else {
        text.to_string()
    }
}

fn load_tool(
    reporter: &mut Reporter<'_>,
    namespace: &str,
    index: usize,
    tool: &Map<String, Value>,
) -> Option<CatalogTool> {
    let name = tool.get("name")?.as_str()?.to_string();
    let at = format!("/tools/{index}");
    let title = tool
        .get("title")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_string);
    let description = match tool
        .get("description")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|d| !d.is_empty())
    {
        Some(text) => cut_described(reporter, Some(&name), &format!("{at}/description"), text),
        None => {
            reporter.report(
                Severity::Warning,
                "tool-description-missing",
                Some(&name),
                &at,
                "the tool has no description; a model can only guess from its name — describe it in the server",
            );
            match &title {
                Some(title) => format!("{title} ({namespace} tool)."),
                None => format!("The {name} tool of {namespace}."),
            }
        }
    };
    // A missing or non-object schema was reported when the file was read;
    // it stands for an object with no properties.
    let raw = match tool.get("inputSchema") {
        Some(schema @ Value::Object(_)) => schema.clone(),
        _ => serde_json::json!({"type": "object", "properties": {}}),
    };
    let base = format!("{at}/inputSchema");
    let input_schema = match schema::sanitize_input_schema(&raw) {
        Ok(sanitized) => {
            for finding in sanitized.findings {
                reporter.report(
                    finding_severity(finding.code),
                    finding.code,
                    Some(&name),
                    &format!("{base}{}", finding.pointer),
                    finding.to_string(),
                );
            }
            sanitized.schema
        }
        Err(error) => {
            reporter.report(
                Severity::Error,
                "input-schema-refused",
                Some(&name),
                &base,
                format!("{error}; the tool is left out"),
            );
            return None;
        }
    };
    let (line, column) = reporter.position(&at);
    let (always_load, search_hint) = meta_hints(reporter, &name, &at, tool.get("_meta"));
    Some(CatalogTool {
        id: format!("{namespace}/{name}"),
        name,
        title,
        description,
        input_schema,
        annotations: tool.get("annotations").cloned(),
        always_load,
        search_hint,
        line,
        column,
    })
}

/// The hints hosts read in a tool's `_meta`: `anthropic/alwaysLoad` (a
/// boolean) and `anthropic/searchHint` (a string). A value of another type
/// is reported and ignored; other keys of `_meta` are the server's own.
fn meta_hints(
    reporter: &mut Reporter<'_>,
    tool: &str,
    at: &str,
    meta: Option<&Value>,
) -> (bool, Option<String>) {
    let Some(meta) = meta else {
        return (false, None);
    };
    let Some(meta) = meta.as_object() else {
        reporter.report(
            Severity::Warning,
            "tool-field-invalid",
            Some(tool),
            &format!("{at}/_meta"),
            format!("`_meta` is {meta}, not an object; ignored"),
        );
        return (false, None);
    };
    // JSON Pointer escapes `/` as `~1`.
    let pointer = |key: &str| format!("{at}/_meta/{}", key.replace('~', "~0").replace('/', "~1"));
    let always_load = match meta.get(ALWAYS_LOAD_KEY) {
        None | Some(Value::Null) => false,
        Some(Value::Bool(value)) => *value,
        Some(other) => {
            reporter.report(
                Severity::Warning,
                "tool-field-invalid",
                Some(tool),
                &pointer(ALWAYS_LOAD_KEY),
                format!("`_meta.{ALWAYS_LOAD_KEY}` is {other}, not `true` or `false`; ignored"),
            );
            false
        }
    };
    let search_hint = match meta.get(SEARCH_HINT_KEY) {
        None | Some(Value::Null) => None,
        Some(Value::String(text)) => {
            let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
            let cut = schema::cut_at_char_boundary(&words, MAX_SEARCH_HINT_BYTES);
            Some(cut.trim_end().to_string()).filter(|hint| !hint.is_empty())
        }
        Some(other) => {
            reporter.report(
                Severity::Warning,
                "tool-field-invalid",
                Some(tool),
                &pointer(SEARCH_HINT_KEY),
                format!("`_meta.{SEARCH_HINT_KEY}` is {other}, not a string; ignored"),
            );
            None
        }
    };
    (always_load, search_hint)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> (ToolNamespace, Vec<SnapshotDiagnostic>) {
        let folder = tempfile::tempdir().unwrap();
        let path = folder
            .path()
            .join("files")
            .join(super::super::SNAPSHOT_FILE);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        let (mut namespace, mut diagnostics) = load_namespace(&path).unwrap();
        namespace.path = PathBuf::from("files/mcp-tools.json");
        for d in &mut diagnostics {
            d.path = PathBuf::from("files/mcp-tools.json");
        }
        (namespace, diagnostics)
    }

    #[test]
    fn findings_name_file_tool_and_pointer() {
        let text = r#"{
  "tools": [
    {
      "name": "write_file",
      "inputSchema": {
        "type": "object",
        "properties": {
          "path": {"type": "string", "format": "uri"},
          "when": {"type": "date"}
        }
      }
    },
    {"name": "broken", "inputSchema": {"type": "null"}}
  ]
}
"#;
        let (namespace, diagnostics) = load(text);
        assert_eq!(namespace.name, "files");
        assert_eq!(namespace.description, "Tools of the files MCP server.");
        assert_eq!(namespace.tools.len(), 1);
        let tool = &namespace.tools[0];
        assert_eq!(tool.id, "files/write_file");
        assert_eq!((tool.line, tool.column), (3, 5));
        assert_eq!(tool.description, "The write_file tool of files.");
        assert!(schema::validate_subset(&tool.input_schema).is_empty());
        let lines: Vec<String> = diagnostics.iter().map(ToString::to_string).collect();
        for expected in [
            "files/mcp-tools.json:1:1: info[server-description-default]",
            "files/mcp-tools.json:3:5: warning[tool-description-missing]",
            "files/mcp-tools.json:8:19: info[keyword-dropped]: write_file: /properties/path: dropped `format`",
            "files/mcp-tools.json:9:19: info[type-renamed]: write_file: /properties/when: type `date` is a string format",
            "files/mcp-tools.json:13:39: error[input-schema-refused]: broken: /: a tool's input schema must describe an object",
        ] {
            assert!(lines.iter().any(|l| l.starts_with(expected)), "{expected}\n{lines:#?}");
        }
        let dropped = diagnostics
            .iter()
            .find(|d| d.code == "keyword-dropped")
            .unwrap();
        assert_eq!(dropped.tool.as_deref(), Some("write_file"));
        assert_eq!(dropped.pointer, "/tools/0/inputSchema/properties/path");
    }

    #[test]
    fn every_loaded_schema_of_the_fixture_fits_the_subset() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/tool-catalogs/notebook")
            .join(super::super::SNAPSHOT_FILE);
        let (namespace, diagnostics) = load_namespace(&path).unwrap();
        assert_eq!(namespace.tools.len(), 6, "the null-typed tool is left out");
        for tool in &namespace.tools {
            let issues = schema::validate_subset(&tool.input_schema);
            assert!(issues.is_empty(), "{}: {issues:?}", tool.id);
            assert!(!tool.description.is_empty() && tool.description.len() <= 1_000);
        }
        assert_eq!(
            namespace.description,
            "Notebook tools: search, write and organise notes."
        );
        assert!(diagnostics.iter().all(|d| d.path == path));
    }

    #[test]
    fn meta_hints_are_read_and_a_wrong_type_is_reported() {
        let (namespace, diagnostics) = load(
            r#"{"tools": [
  {"name": "a", "description": "A.", "_meta": {"anthropic/alwaysLoad": true, "anthropic/searchHint": "  one\n two  ", "x/y": 1}},
  {"name": "b", "description": "B.", "_meta": {"anthropic/alwaysLoad": "yes", "anthropic/searchHint": 3}},
  {"name": "c", "description": "C."}
]}"#,
        );
        let hints: Vec<(bool, Option<&str>)> = namespace
            .tools
            .iter()
            .map(|t| (t.always_load, t.search_hint.as_deref()))
            .collect();
        assert_eq!(
            hints,
            [(true, Some("one two")), (false, None), (false, None)]
        );
        let found: Vec<(&str, &str)> = diagnostics
            .iter()
            .filter(|d| d.code == "tool-field-invalid")
            .map(|d| (d.pointer.as_str(), d.message.as_str()))
            .collect();
        assert_eq!(found.len(), 2, "{diagnostics:?}");
        assert_eq!(found[0].0, "/tools/1/_meta/anthropic~1alwaysLoad");
        assert_eq!(found[1].0, "/tools/1/_meta/anthropic~1searchHint");
    }

    #[test]
    fn a_server_description_comes_from_instructions_when_missing() {
        let (namespace, _) = load(
            r#"{"server": {"name": "x", "description": "", "instructions": "\n  Search the wiki.\nMore."}, "tools": []}"#,
        );
        assert_eq!(namespace.description, "Search the wiki.");
        let (namespace, diagnostics) =
            load(r#"{"server": {"description": "Wiki pages."}, "tools": []}"#);
        assert_eq!(namespace.description, "Wiki pages.");
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
    }
}
