//! `mcp-tools.json`: a server's `tools/list` result as a file, read with
//! diagnostics and written byte-stable.
//!
//! The file is what the server said — `{"tools": [...]}`, optionally with
//! `"server": {name, title, description, instructions, version}` — and
//! nothing is sanitised in it: repairs happen when it is loaded
//! ([`super::namespace`]), so the file stays a faithful record a team can
//! review. Written files have sorted keys, tools sorted by name, two-space
//! indentation and a final newline, so the same answer gives the same
//! bytes; they are replaced atomically (a temporary file beside them, then
//! a rename), keeping the old file's permissions.

use super::position::Positions;
use crate::entry::Severity;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// The file name that makes a folder an MCP server namespace.
pub const SNAPSHOT_FILE: &str = "mcp-tools.json";

/// The `server` object of a snapshot (every field optional, as servers
/// fill them unevenly).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerInfo {
    pub name: Option<String>,
    pub title: Option<String>,
    pub description: Option<String>,
    pub instructions: Option<String>,
    pub version: Option<String>,
}

/// A snapshot as read: the tools that have a usable name, each as the
/// server wrote it, in file order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Snapshot {
    pub server: Option<ServerInfo>,
    /// Each tool's object, untouched, with its index in the file's
    /// `tools` list (for JSON Pointers).
    pub tools: Vec<(usize, Map<String, Value>)>,
}

/// A problem in a snapshot file, at a place in it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SnapshotDiagnostic {
    pub path: PathBuf,
    pub line: u32,
    pub column: u32,
    pub severity: Severity,
    /// A stable name for the kind of problem (`tool-name-missing`, or a
    /// sanitiser code such as `type-inferred`).
    pub code: &'static str,
    /// The tool the problem is in, when it is in one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// JSON Pointer of the node in the file (`""` is the whole file).
    pub pointer: String,
    pub message: String,
}

/// `path:line:column: severity[code]: tool: message` (the tool when the
/// problem is in one).
impl std::fmt::Display for SnapshotDiagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}[{}]: ",
            self.path.display(),
            self.line,
            self.column,
            self.severity.as_str(),
            self.code,
        )?;
        if let Some(tool) = &self.tool {
            write!(f, "{tool}: ")?;
        }
        f.write_str(&self.message)
    }
}

impl SnapshotDiagnostic {
    /// The catalog's diagnostic for this finding: its code a
    /// [`crate::entry::Code::Tool`], the tool (when it is in one) leading
    /// the message.
    pub fn to_diagnostic(&self) -> crate::entry::Diagnostic {
        let message = match &self.tool {
            Some(tool) => format!("{}: {}", crate::entry::printable(tool), self.message),
            None => self.message.clone(),
        };
        crate::entry::Diagnostic {
            path: self.path.clone(),
            line: self.line,
            column: self.column,
            severity: self.severity,
            // A skill code (`name-shadowed`) when it is one.
            code: crate::entry::Code::parse(self.code)
                .unwrap_or(crate::entry::Code::tool(self.code)),
            message,
        }
    }
}

/// Why a snapshot could not be read at all.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    #[error("could not read {}: {error}", .path.display())]
    Read {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{0}")]
    Invalid(Box<SnapshotDiagnostic>),
    #[error("could not write {}: {error} — check that the folder is writable", .path.display())]
    Write {
        path: PathBuf,
        error: std::io::Error,
    },
}

/// Collects diagnostics for one file, placing pointers with the text's
/// positions (computed once, when the first diagnostic needs them).
pub(crate) struct Reporter<'a> {
    pub path: &'a Path,
    text: &'a str,
    positions: Option<Positions>,
    pub diagnostics: Vec<SnapshotDiagnostic>,
}

impl<'a> Reporter<'a> {
    pub fn new(path: &'a Path, text: &'a str) -> Self {
        Reporter {
            path,
            text,
            positions: None,
            diagnostics: Vec::new(),
        }
    }

    /// Line and column of the value at `pointer` (or its nearest written
    /// ancestor).
    pub fn position(&mut self, pointer: &str) -> (u32, u32) {
        let text = self.text;
        self.positions
            .get_or_insert_with(|| Positions::of(text))
            .get(pointer)
    }

    pub fn report(
        &mut self,
        severity: Severity,
        code: &'static str,
        tool: Option<&str>,
        pointer: &str,
        message: impl Into<String>,
    ) {
        let (line, column) = self.position(pointer);
        self.diagnostics.push(SnapshotDiagnostic {
            path: self.path.to_path_buf(),
            line,
            column,
            severity,
            code,
            tool: tool.map(str::to_string),
            pointer: pointer.to_string(),
            message: message.into(),
        });
    }
}

/// Parse a snapshot's text (read from `path`). Problems with single tools
/// are diagnostics (the tool is skipped when it has no usable name); text
/// that is not JSON or has no `tools` list is an error.
pub fn parse_snapshot(
    path: &Path,
    text: &str,
) -> Result<(Snapshot, Vec<SnapshotDiagnostic>), SnapshotError> {
    let invalid = |line: usize, column: usize, message: String| {
        SnapshotError::Invalid(Box::new(SnapshotDiagnostic {
            path: path.to_path_buf(),
            line: line as u32,
            column: column as u32,
            severity: Severity::Error,
            code: "snapshot-invalid",
            tool: None,
            pointer: String::new(),
            message,
        }))
    };
    let value: Value = serde_json::from_str::<Strict>(text.strip_prefix('\u{feff}').unwrap_or(text))
        .map(|strict| strict.0)
        .map_err(|error| {
            let mut message = error.to_string();
            if let Some(cut) = message.find(" at line ") {
                message.truncate(cut);
            }
            // At the end of the text serde_json says column 0; ours are 1-based.
            invalid(
                error.line().max(1),
                error.column().max(1),
                match error.classify() {
                    // A duplicate key: valid JSON, but it reads two ways.
                    serde_json::error::Category::Data => format!(
                        "{message} — fix the file, or run `skilldex tools sync` to write it again"
                    ),
                    _ => format!(
                        "not valid JSON: {message} — fix the file, or run `skilldex tools sync` to write it again"
                    ),
                },
            )
        })?;
    let Value::Object(top) = value else {
        return Err(invalid(
            1,
            1,
            "a snapshot must be a JSON object `{\"tools\": [...]}` (a `tools/list` result)".into(),
        ));
    };
    let mut reporter = Reporter::new(path, text);
    let Some(Value::Array(tools)) = top.get("tools") else {
        let (line, column) = Positions::of(text).get("/tools");
        return Err(invalid(
            line as usize,
            column as usize,
            "a snapshot needs a `tools` list (a `tools/list` result: `{\"tools\": [...]}`)".into(),
        ));
    };
    for key in top.keys() {
        match key.as_str() {
            "tools" | "server" => {}
            "nextCursor" => reporter.report(
                Severity::Warning,
                "snapshot-incomplete",
                None,
                "/nextCursor",
                "`nextCursor` is set: this is one page of the tool list, not all of it — run `skilldex tools sync` to fetch every page",
            ),
            "_meta" => {}
            other => reporter.report(
                Severity::Info,
                "snapshot-unknown-key",
                None,
                &format!("/{}", escape(other)),
                format!("`{other}` is not part of a snapshot; ignored"),
            ),
        }
    }
    let server = match top.get("server") {
        None => None,
        Some(Value::Object(map)) => Some(server_info(map, &mut reporter)),
        Some(_) => {
            reporter.report(
                Severity::Warning,
                "server-invalid",
                None,
                "/server",
                "`server` must be an object {name, title, description, instructions, version}; ignored",
            );
            None
        }
    };
    let mut snapshot = Snapshot {
        server,
        tools: Vec::new(),
    };
    let mut seen: std::collections::HashMap<String, usize> = Default::default();
    for (index, tool) in tools.iter().enumerate() {
        let at = format!("/tools/{index}");
        let Value::Object(map) = tool else {
            reporter.report(
                Severity::Error,
                "tool-invalid",
                None,
                &at,
                "a tool must be an object {name, description, inputSchema}; skipped",
            );
            continue;
        };
        let name = match map.get("name") {
            Some(Value::String(name)) if !name.trim().is_empty() => name.clone(),
            Some(Value::String(_)) => {
                reporter.report(
                    Severity::Error,
                    "tool-name-missing",
                    None,
                    &format!("{at}/name"),
                    "the tool's `name` is empty; skipped",
                );
                continue;
            }
            Some(other) => {
                reporter.report(
                    Severity::Error,
                    "tool-name-missing",
                    None,
                    &format!("{at}/name"),
                    format!("the tool's `name` is {other}, not a string; skipped"),
                );
                continue;
            }
            None => {
                reporter.report(
                    Severity::Error,
                    "tool-name-missing",
                    None,
                    &at,
                    "the tool has no `name`; skipped",
                );
                continue;
            }
        };
        if let Some(first) = seen.get(&name) {
            let (line, _) = Positions::of(text).get(&format!("/tools/{first}"));
            reporter.report(
                Severity::Error,
                "tool-name-duplicate",
                Some(&name),
                &format!("{at}/name"),
                format!(
                    "a second tool named `{name}` (the first is on line {line}); this one is skipped — tool names must be unique within a server"
                ),
            );
            continue;
        }
        seen.insert(name.clone(), index);
        if let Some(problem) = tool_name_problem(&name) {
            reporter.report(
                Severity::Warning,
                "tool-name-unusual",
                Some(&name),
                &format!("{at}/name"),
                format!("tool name {name:?} {problem}"),
            );
        }
        match map.get("inputSchema") {
            Some(Value::Object(_)) => {}
            None => reporter.report(
                Severity::Warning,
                "input-schema-missing",
                Some(&name),
                &at,
                "the tool has no `inputSchema`; it is taken as an object with no properties",
            ),
            Some(other) => reporter.report(
                Severity::Warning,
                "input-schema-invalid",
                Some(&name),
                &format!("{at}/inputSchema"),
                format!("`inputSchema` is {other}, not a schema object"),
            ),
        }
        for key in ["description", "title"] {
            if let Some(value) = map.get(key).filter(|v| !v.is_string()) {
                reporter.report(
                    Severity::Warning,
                    "tool-field-invalid",
                    Some(&name),
                    &format!("{at}/{key}"),
                    format!("`{key}` is {value}, not a string; ignored"),
                );
            }
        }
        snapshot.tools.push((index, map.clone()));
    }
    Ok((snapshot, reporter.diagnostics))
}

/// A JSON value read like `serde_json::Value`, except that an object
/// giving a key twice is an error at that key (`Value` keeps the last one
/// silently: a second `"tools": []` would empty the server).
struct Strict(Value);

impl<'de> serde::Deserialize<'de> for Strict {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Strict, D::Error> {
        deserializer.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> serde::de::Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(Strict(value)) = seq.next_element()? {
            out.push(value);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                return Err(serde::de::Error::custom(format_args!(
                    "the key `{key}` is given twice in one object (a JSON reader keeps only one of them)"
                )));
            }
            let Strict(value) = map.next_value()?;
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

fn server_info(map: &Map<String, Value>, reporter: &mut Reporter<'_>) -> ServerInfo {
    let mut field = |key: &str| match map.get(key) {
        None | Some(Value::Null) => None,
        Some(Value::String(text)) => Some(text.clone()),
        Some(other) => {
            reporter.report(
                Severity::Warning,
                "server-invalid",
                None,
                &format!("/server/{key}"),
                format!("`server.{key}` is {other}, not a string; ignored"),
            );
            None
        }
    };
    ServerInfo {
        name: field("name"),
        title: field("title"),
        description: field("description"),
        instructions: field("instructions"),
        version: field("version"),
    }
}

/// MCP's recommendation for tool names: 1–128 of `A-Za-z0-9_-.`.
/// What is unusual about a tool's name, if anything.
fn tool_name_problem(name: &str) -> Option<&'static str> {
    if name.len() > 128
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
    {
        Some("has characters outside A-Z a-z 0-9 _ - . or is over 128 characters; some clients refuse such names")
    } else if name.contains("__") {
        Some("has `__`, which hosts put between server and tool (`mcp__server__tool`), so the joined name reads two ways; some clients refuse such names")
    } else {
        None
    }
}

fn escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

/// The bytes of a snapshot file for `tools` (each the server's object as
/// given) and `server`: keys sorted, tools sorted by name, two-space
/// indentation, final newline. `nextCursor` and `_meta` of a page are not
/// part of it.
pub fn snapshot_bytes(server: Option<&Map<String, Value>>, tools: &[Value]) -> Vec<u8> {
    let mut tools: Vec<Value> = tools.to_vec();
    tools.sort_by(|a, b| {
        let name = |v: &Value| v.get("name").and_then(Value::as_str).map(str::to_string);
        name(a).cmp(&name(b))
    });
    let mut top = Map::new();
    if let Some(server) = server.filter(|s| !s.is_empty()) {
        top.insert("server".to_string(), Value::Object(server.clone()));
    }
    top.insert("tools".to_string(), Value::Array(tools));
    let value = crate::schema::sorted(Value::Object(top));
    let mut bytes = serde_json::to_vec_pretty(&value).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

/// Replace `path` with `bytes` atomically: write a temporary file beside
/// it, give it the old file's permissions, and rename it over. Creates the
/// folder when needed.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), SnapshotError> {
    use std::io::Write as _;
    let error = |error| SnapshotError::Write {
        path: path.to_path_buf(),
        error,
    };
    let folder = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(folder).map_err(error)?;
    let temporary = crate::paths::temporary_beside(path);
    let result = (|| {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temporary)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        if let Ok(metadata) = std::fs::metadata(path) {
            std::fs::set_permissions(&temporary, metadata.permissions())?;
        }
        std::fs::rename(&temporary, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    result.map_err(error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(text: &str) -> Result<(Snapshot, Vec<SnapshotDiagnostic>), SnapshotError> {
        parse_snapshot(Path::new("srv/mcp-tools.json"), text)
    }

    #[test]
    fn bad_json_names_line_and_column() {
        let error = parse("{\n  \"tools\": [\n    {\"name\": \"a\",}\n  ]\n}\n").unwrap_err();
        let text = error.to_string();
        assert!(
            text.starts_with(
                "srv/mcp-tools.json:3:18: error[snapshot-invalid]: not valid JSON: trailing comma"
            ),
            "{text}"
        );
        let error = parse("{\"server\": {}}").unwrap_err();
        assert!(
            error.to_string().contains("needs a `tools` list"),
            "{error}"
        );
        let error = parse("[1]").unwrap_err();
        assert!(
            error.to_string().contains("must be a JSON object"),
            "{error}"
        );
    }

    #[test]
    fn tool_problems_are_diagnostics_at_their_place() {
        let text = r#"{
  "tools": [
    {"name": "read", "inputSchema": {"type": "object"}},
    {"description": "no name"},
    {"name": "read", "inputSchema": {}},
    {"name": "has space", "inputSchema": true},
    7
  ],
  "nextCursor": "p2"
}
"#;
        let (snapshot, diagnostics) = parse(text).unwrap();
        let names: Vec<&str> = snapshot
            .tools
            .iter()
            .map(|(_, t)| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["read", "has space"]);
        let lines: Vec<String> = diagnostics.iter().map(ToString::to_string).collect();
        let expect = [
            "srv/mcp-tools.json:9:17: warning[snapshot-incomplete]",
            "srv/mcp-tools.json:4:5: error[tool-name-missing]: the tool has no `name`",
            "srv/mcp-tools.json:5:14: error[tool-name-duplicate]: read: a second tool named `read` (the first is on line 3)",
            "srv/mcp-tools.json:6:14: warning[tool-name-unusual]: has space: tool name",
            "srv/mcp-tools.json:6:42: warning[input-schema-invalid]: has space: `inputSchema` is true",
            "srv/mcp-tools.json:7:5: error[tool-invalid]",
        ];
        for line in expect {
            assert!(
                lines.iter().any(|l| l.starts_with(line)),
                "{line}\n{lines:#?}"
            );
        }
        assert_eq!(lines.len(), expect.len(), "{lines:#?}");
    }

    #[test]
    fn written_snapshots_are_byte_stable() {
        let tools = [
            json!({"name": "zeta", "inputSchema": {"type": "object", "properties": {"b": {}, "a": {}}}}),
            json!({"inputSchema": {"type": "object"}, "name": "alpha", "description": "é"}),
        ];
        let server = json!({"version": "1.0", "name": "demo"});
        let bytes = snapshot_bytes(server.as_object(), &tools);
        let reversed: Vec<Value> = tools.iter().rev().cloned().collect();
        assert_eq!(bytes, snapshot_bytes(server.as_object(), &reversed));
        let text = String::from_utf8(bytes).unwrap();
        assert!(text.ends_with("}\n"));
        assert!(
            text.starts_with("{\n  \"server\": {\n    \"name\": \"demo\",\n"),
            "{text}"
        );
        assert!(text.find("alpha").unwrap() < text.find("zeta").unwrap());
        assert!(text.find("\"a\"").unwrap() < text.find("\"b\"").unwrap());
        // What is written reads back as the same tools.
        let (snapshot, diagnostics) = parse(&text).unwrap();
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        assert_eq!(snapshot.tools.len(), 2);
        assert_eq!(snapshot.server.unwrap().name.as_deref(), Some("demo"));
    }

    #[cfg(unix)]
    #[test]
    fn atomic_writes_keep_the_mode() {
        use std::os::unix::fs::PermissionsExt;
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("srv").join(SNAPSHOT_FILE);
        write_atomically(&path, b"{}\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_atomically(&path, b"{\"tools\": []}\n").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"{\"tools\": []}\n");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
        let leftovers: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(leftovers.len(), 1, "{leftovers:?}");
    }
}
